//! The editor's state and window: which project is open, which machine is shown, and the panels
//! around it. Panels report what the user did as [`Action`]s, applied after the frame is drawn,
//! so drawing only ever reads the state.

use crate::machine_graph;
use crate::spans::{self, Severities};
use crate::watch::{POLL_INTERVAL, SourceWatch};
use crate::{diagnostics_panel, graph_view, project_panel, theme};
use eframe::egui;
use egui::{CentralPanel, Frame, Margin, Panel, RichText, Ui};
use ensemble_compiler::Compilation;
use ensemble_compiler::diag::Severity;
use ensemble_compiler::ir::{Handle, Machine, State};
use ensemble_compiler::project::MANIFEST;
use std::path::{Path, PathBuf};

/// A compiled project and what the view derives from it once per compilation.
pub struct Loaded {
    pub compilation: Compilation,
    pub severities: Severities,
}

/// Something the user asked for during a frame.
pub enum Action {
    Reload,
    /// Show a machine from the project list (resets the breadcrumbs).
    SelectMachine(Handle<Machine>),
    /// Show a machine and highlight one of its states (from a diagnostic).
    Reveal(Handle<Machine>, Option<Handle<State>>),
    /// Enter the machine hosted by a state of the current one.
    OpenChild(Handle<Machine>),
    /// Go back up to the machine at this breadcrumb.
    Crumb(usize),
    SelectState(Handle<State>),
}

pub struct EditorApp {
    root: PathBuf,
    /// The project, or why it could not be loaded.
    project: Result<Loaded, String>,
    /// Breadcrumbs: the machine picked in the list, then each child entered; the last is shown.
    trail: Vec<Handle<Machine>>,
    selected_state: Option<Handle<State>>,
    watch: SourceWatch,
    shown_title: String,
    themed: bool,
}

fn load(root: &Path) -> Result<Loaded, String> {
    let compilation = ensemble_compiler::compile_path(root).map_err(|e| e.to_string())?;
    let severities = Severities::of(&compilation);
    Ok(Loaded {
        compilation,
        severities,
    })
}

/// What to watch for changes: every source and its folder, or where a manifest should appear.
fn watch_for(root: &Path, project: &Result<Loaded, String>) -> SourceWatch {
    let mut paths = vec![root.to_path_buf(), root.join(MANIFEST)];
    if let Ok(p) = project {
        for (_, file) in p.compilation.sources.iter() {
            paths.push(file.path.clone());
            paths.extend(file.path.parent().map(Path::to_path_buf));
        }
    }
    SourceWatch::new(paths)
}

impl EditorApp {
    /// Opens the project at `root`; a project that does not load still opens, showing why.
    pub fn open(root: impl Into<PathBuf>) -> Self {
        let root = root.into();
        let project = load(&root);
        let watch = watch_for(&root, &project);
        let mut app = EditorApp {
            root,
            project,
            trail: Vec::new(),
            selected_state: None,
            watch,
            shown_title: String::new(),
            themed: false,
        };
        app.trail = app.default_trail();
        app.shown_title = app.title();
        app
    }

    /// The project's name, or the folder's when it did not load.
    pub fn project_name(&self) -> String {
        match &self.project {
            Ok(p) => p.compilation.name.clone(),
            Err(_) => {
                let dir = self
                    .root
                    .canonicalize()
                    .unwrap_or_else(|_| self.root.clone());
                dir.file_name().map_or_else(
                    || dir.display().to_string(),
                    |n| n.to_string_lossy().into_owned(),
                )
            }
        }
    }

    pub fn title(&self) -> String {
        format!("Ensemble — {}", self.project_name())
    }

    pub fn project(&self) -> Option<&Loaded> {
        self.project.as_ref().ok()
    }

    /// The machine shown in the centre.
    pub fn current_machine(&self) -> Option<Handle<Machine>> {
        self.trail.last().copied()
    }

    pub fn current_machine_name(&self) -> Option<&str> {
        let p = self.project()?;
        Some(
            p.compilation.module.machines[self.current_machine()?]
                .name
                .text
                .as_str(),
        )
    }

    pub fn selected_state(&self) -> Option<Handle<State>> {
        self.selected_state
    }

    /// Start where the first scene starts: its first agent's machine, else the first machine.
    fn default_trail(&self) -> Vec<Handle<Machine>> {
        let Some(p) = self.project() else {
            return Vec::new();
        };
        let module = &p.compilation.module;
        let from_scene = module
            .scenes
            .iter()
            .next()
            .and_then(|(_, s)| s.agents.first())
            .and_then(|a| a.machine);
        from_scene
            .or_else(|| module.machines.handles().next())
            .into_iter()
            .collect()
    }

    /// Compiles the project again from disk, keeping the view on the same machines and state.
    pub fn reload(&mut self) {
        let names = |app: &Self| -> (Vec<String>, Option<String>) {
            let Some(p) = app.project() else {
                return (Vec::new(), None);
            };
            let module = &p.compilation.module;
            let trail = app
                .trail
                .iter()
                .map(|&h| module.machines[h].name.text.clone())
                .collect();
            (
                trail,
                app.selected_state
                    .map(|s| module.states[s].name.text.clone()),
            )
        };
        let (trail, state) = names(self);
        self.project = load(&self.root);
        self.watch = watch_for(&self.root, &self.project);
        self.trail.clear();
        self.selected_state = None;
        if let Ok(p) = self.project.as_ref() {
            let module = &p.compilation.module;
            self.trail = trail
                .iter()
                .map_while(|name| module.machine_by_name(name))
                .collect();
            if let (Some(&m), Some(state)) = (self.trail.last(), state) {
                let states = &module.machines[m].states;
                self.selected_state = states
                    .iter()
                    .copied()
                    .find(|&s| module.states[s].name.text == state);
            }
        }
        if self.trail.is_empty() {
            self.trail = self.default_trail();
        }
    }

    fn apply(&mut self, action: Action) {
        match action {
            Action::Reload => self.reload(),
            Action::SelectMachine(m) => {
                self.trail = vec![m];
                self.selected_state = None;
            }
            Action::Reveal(m, state) => {
                if !self.trail.contains(&m) {
                    self.trail = vec![m];
                }
                self.trail
                    .truncate(self.trail.iter().position(|&t| t == m).unwrap_or(0) + 1);
                self.selected_state = state;
            }
            Action::OpenChild(m) => {
                self.trail.push(m);
                self.selected_state = None;
            }
            Action::Crumb(i) => {
                self.trail.truncate(i + 1);
                self.selected_state = None;
            }
            Action::SelectState(s) => self.selected_state = Some(s),
        }
    }

    /// Draws the whole window into `ui` (also what the tests drive).
    pub fn show(&mut self, ui: &mut Ui) {
        if !self.themed {
            theme::apply(ui.ctx());
            self.themed = true;
        }
        if self.watch.poll() {
            self.reload();
        }
        ui.ctx().request_repaint_after(POLL_INTERVAL);
        let title = self.title();
        if title != self.shown_title {
            ui.ctx()
                .send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.shown_title = title;
        }

        let mut actions = Vec::new();
        let bar = Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(12, 8));
        Panel::top("top_bar")
            .frame(bar)
            .show(ui, |ui| self.top_bar(ui, &mut actions));
        let side = Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(10, 10));
        Panel::left("project")
            .frame(side)
            .resizable(true)
            .default_size(240.0)
            .min_size(160.0)
            .show(ui, |ui| {
                project_panel::show(ui, self.project(), self.current_machine(), &mut actions)
            });
        let bottom = Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(10, 8));
        Panel::bottom("diagnostics")
            .frame(bottom)
            .resizable(true)
            .default_size(170.0)
            .min_size(80.0)
            .show(ui, |ui| {
                diagnostics_panel::show(ui, self.project(), &mut actions)
            });
        CentralPanel::default()
            .frame(Frame::new().fill(theme::CANVAS))
            .show(ui, |ui| self.central(ui, &mut actions));

        for action in actions {
            self.apply(action);
        }
    }

    fn top_bar(&self, ui: &mut Ui, actions: &mut Vec<Action>) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Ensemble").color(theme::ACCENT).strong());
            ui.separator();
            ui.label(
                RichText::new(self.project_name())
                    .color(theme::TEXT)
                    .strong()
                    .size(15.0),
            );
            ui.label(
                RichText::new(self.root.display().to_string())
                    .color(theme::TEXT_WEAK)
                    .small(),
            );
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui
                    .button("↻ Reload")
                    .on_hover_text("Compile the project again from disk")
                    .clicked()
                {
                    actions.push(Action::Reload);
                }
                if let Some(p) = self.project() {
                    let d = &p.compilation.diagnostics;
                    let color = if d.has_errors() {
                        theme::ERROR
                    } else if d.count(Severity::Warning) > 0 {
                        theme::WARNING
                    } else {
                        theme::OK
                    };
                    ui.label(RichText::new(d.summary()).color(color));
                }
            });
        });
    }

    fn central(&self, ui: &mut Ui, actions: &mut Vec<Action>) {
        let p = match &self.project {
            Ok(p) => p,
            Err(message) => {
                let body = format!(
                    "{message}\n\nFix it on disk, then press Reload (the editor also notices on its own)."
                );
                return centered_message(ui, "Cannot open this project", &body, theme::ERROR);
            }
        };
        let Some(current) = self.current_machine() else {
            let hint = "Add a .machine.ron file to the project; it appears here on its own.";
            return centered_message(
                ui,
                "This project has no machines yet",
                hint,
                theme::TEXT_WEAK,
            );
        };
        let module = &p.compilation.module;
        Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(12, 6))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal(|ui| {
                    for (i, &m) in self.trail.iter().enumerate() {
                        let name = &module.machines[m].name.text;
                        if i + 1 == self.trail.len() {
                            ui.label(RichText::new(name).color(theme::TEXT).strong());
                        } else {
                            let crumb = egui::Button::new(RichText::new(name).color(theme::ACCENT))
                                .frame(false);
                            if ui
                                .add(crumb)
                                .on_hover_text("Back to this machine")
                                .clicked()
                            {
                                actions.push(Action::Crumb(i));
                            }
                            ui.label(RichText::new("›").color(theme::TEXT_WEAK));
                        }
                    }
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        ui.label(
                            RichText::new("double-click a ⏵ child state to open its machine")
                                .color(theme::TEXT_WEAK)
                                .small(),
                        );
                    });
                });
            });
        let graph = machine_graph::build(&p.compilation, &p.severities, current);
        let response = graph_view::show(ui, &graph, self.selected_state);
        if let Some(s) = response.clicked {
            actions.push(Action::SelectState(s));
        }
        if let Some(child) = response.open_child {
            actions.push(Action::OpenChild(child));
        }
    }
}

/// A calm message in the middle of the canvas, for when there is nothing to draw.
fn centered_message(ui: &mut Ui, title: &str, body: &str, color: egui::Color32) {
    ui.vertical_centered(|ui| {
        ui.add_space((ui.available_height() * 0.35).max(16.0));
        ui.label(RichText::new(title).heading().color(color));
        ui.add_space(6.0);
        ui.label(RichText::new(body).color(theme::TEXT));
    });
}

/// Opens the machine a diagnostic points into.
pub(crate) fn reveal(p: &Loaded, span: ensemble_compiler::source::Span) -> Option<Action> {
    spans::locate(&p.compilation.module, span).map(|(m, s)| Action::Reveal(m, s))
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}
