//! The editor's window and the host of every panel: the open project and its documents, undo,
//! saving and autosave, the background compile, and the dialogs. Panels report what the user
//! did as [`Action`]s (the graph editor as [`Edit`]s), applied after the frame is drawn, so
//! drawing only reads the documents and every change goes through one place that records it.

mod action;
mod actions;
mod guide;
mod modals;
mod registry;
mod session;
pub mod shortcuts;

pub use action::{Action, DocEdit, PathFor, ValueEdit};
pub use session::Session;
use session::watch_for;

use crate::analysis::{Located, Report};
use crate::document::{Content, DocId, Project};
use crate::find::{self, Hit};
use crate::machine::Edit;
use crate::machine::inspector::InspectorCx;
use crate::machine::ops::Clip;
use crate::machine::view::GraphCx;
use crate::panel::{AssetPanel, KindPanel, PanelCx, Request, Reveal};
use crate::recovery::{self, Recovery};
use crate::watch::POLL_INTERVAL;
use crate::{diagnostics_panel, project_ops, project_panel, recent, theme};
use eframe::egui;
use egui::{CentralPanel, Frame, Key, Margin, Panel, RichText, Ui};
use ensemble_compiler::formats::ron::AssetKind;
use ensemble_compiler::formats::ron::{AnyAsset, FileKind};
use ensemble_compiler::project::MANIFEST;
use std::cell::RefCell;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A dialog in front of everything.
pub enum Modal {
    Open {
        path: String,
        error: Option<String>,
    },
    NewProject {
        folder: String,
        name: String,
        error: Option<String>,
    },
    NewAsset {
        kind: project_ops::Starter,
        name: String,
        error: Option<String>,
    },
    Rename {
        doc: DocId,
        name: String,
        error: Option<String>,
    },
    ConfirmDelete(DocId),
    Recovery(Recovery),
    /// Unsaved changes and the window is closing.
    Close,
    Find {
        query: String,
        selected: usize,
    },
    /// A file asked by a typed path: the system has no file dialog.
    TypedPath {
        typed: crate::file_dialog::Typed,
        then: PathFor,
    },
}

pub struct EditorApp {
    session: Option<Session>,
    /// Why the last project could not be opened.
    pub load_error: Option<String>,
    config: Option<PathBuf>,
    pub recent: Vec<PathBuf>,
    modal: Option<Modal>,
    status: Option<(String, Instant, bool)>,
    /// When the status last reported a save that a running preview reloads: its verdict,
    /// refused or not, must replace "Saved", never sit beside it.
    save_said: Option<Instant>,
    /// What the last save said and the files it wrote, until the diagnostics of what was
    /// saved are in: a save of a file with errors says so (see `report_save_errors`).
    save_check: Option<(String, Vec<String>)>,
    allow_close: bool,
    /// The window was asked to close and may (for tests: what the close prompt decided).
    pub closing: bool,
    themed: bool,
    shown_title: String,
    /// Asks which workbook to import (the system's dialog; tests answer it).
    workbook_picker: crate::rules::FilePicker,
    /// Every other file dialog of the window (tests answer them).
    dialogs: crate::file_dialog::Dialogs,
}

impl EditorApp {
    /// Opens the project at `root`; a project that does not load still opens the window, with
    /// the reason and a way to open another.
    ///
    /// `path` may also be a file of a project: the project opens with that file shown.
    pub fn open(path: impl Into<PathBuf>) -> Self {
        let mut app = EditorApp::empty();
        app.open_path(&path.into());
        app
    }

    /// Opens the project at `path`, or the project of the file `path` with that file shown —
    /// the very file, even one the manifest keeps out of the build (a workbook beside its
    /// import), never a neighbour in its place.
    fn open_path(&mut self, path: &Path) {
        let (root, file) = crate::document::project_of(path);
        self.open_project(&root);
        let (Some(file), Some(s)) = (file, self.session.as_mut()) else {
            return;
        };
        match s.project.open_outside_build(&file) {
            Some(id) => {
                s.open_doc(id);
                if s.project.excluded(&file) {
                    self.say(
                        format!("{file} is excluded from the build (Ensemble.ron): edits are saved but not compiled"),
                        false,
                    );
                }
            }
            None => self.say(format!("{file} is not an asset this editor opens"), true),
        }
    }

    /// The start screen, without a project.
    pub fn empty() -> Self {
        EditorApp {
            session: None,
            load_error: None,
            config: None,
            recent: Vec::new(),
            modal: None,
            status: None,
            save_said: None,
            save_check: None,
            allow_close: false,
            closing: false,
            themed: false,
            shown_title: String::new(),
            workbook_picker: crate::rules::excel::native_picker(),
            dialogs: crate::file_dialog::native(),
        }
    }

    /// Asks `picker` which workbook to import (tests; a host with its own dialogs).
    pub fn with_workbook_picker(mut self, picker: crate::rules::FilePicker) -> Self {
        self.workbook_picker = picker;
        self
    }

    /// Asks `dialogs` for maps, traces and project folders (tests; a host with its own).
    pub fn with_dialogs(mut self, dialogs: crate::file_dialog::Dialogs) -> Self {
        self.dialogs = dialogs;
        self
    }

    /// Opens assets of `kind` with `panel` (instead of the read-only text view).
    pub fn with_panel(mut self, kind: AssetKind, panel: Box<dyn KindPanel>) -> Self {
        if let Some(s) = self.session.as_mut() {
            s.panels.insert(kind, panel);
        }
        self
    }

    /// Remembers recent projects in `dir` (the user's config folder; tests leave it unset).
    pub fn with_config_dir(mut self, dir: Option<PathBuf>) -> Self {
        if let Some(d) = &dir {
            self.recent = recent::load(d);
            if let Some(s) = &self.session {
                recent::remember(d, &mut self.recent, &s.project.root);
            }
        }
        if let Some(s) = self.session.as_mut() {
            s.preview.with_config(dir.clone());
        }
        self.config = dir;
        self
    }

    fn open_project(&mut self, root: &Path) {
        match Project::open(root) {
            Ok(project) => {
                let recovered = recovery::find(&project.root);
                let mut session = Session::new(project);
                session.preview.with_config(self.config.clone());
                self.session = Some(session);
                self.load_error = None;
                self.modal = recovered.map(Modal::Recovery);
                if let Some(d) = &self.config {
                    recent::remember(d, &mut self.recent, root);
                }
            }
            Err(e) => {
                self.load_error = Some(e);
            }
        }
    }

    pub fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The open project's session, to drive it from a harness (benches start the preview).
    pub fn session_mut(&mut self) -> Option<&mut Session> {
        self.session.as_mut()
    }

    pub fn project(&self) -> Option<&Project> {
        self.session.as_ref().map(|s| &s.project)
    }

    pub fn report(&self) -> Option<&Report> {
        self.session.as_ref()?.analysis.current.as_ref()
    }

    /// Whether the shown diagnostics are behind the last edit.
    pub fn is_checking(&self) -> bool {
        self.session.as_ref().is_some_and(|s| s.analysis.is_stale())
    }

    pub fn is_dirty(&self) -> bool {
        self.project().is_some_and(Project::is_dirty)
    }

    /// The status line's message, if one is shown.
    pub fn status(&self) -> Option<&str> {
        self.status.as_ref().map(|(m, _, _)| m.as_str())
    }

    pub fn modal_open(&self) -> bool {
        self.modal.is_some()
    }

    pub fn close_prompt_open(&self) -> bool {
        matches!(self.modal, Some(Modal::Close))
    }

    pub fn current_machine_name(&self) -> Option<&str> {
        let s = self.session.as_ref()?;
        s.project.docs[s.open?]
            .state
            .machine()
            .map(|m| m.name.as_str())
    }

    pub fn current_doc(&self) -> Option<DocId> {
        self.session.as_ref()?.open
    }

    /// The states selected in the graph.
    pub fn selection(&self) -> BTreeSet<String> {
        self.session
            .as_ref()
            .map(|s| s.graph.selection.clone())
            .unwrap_or_default()
    }

    pub fn project_name(&self) -> String {
        match &self.session {
            Some(s) => s.project.name(),
            None => "no project".into(),
        }
    }

    /// The window title: the project, and `•` with the count of unsaved files.
    pub fn title(&self) -> String {
        match &self.session {
            Some(s) if s.project.is_dirty() => {
                format!(
                    "• {} — Ensemble ({} unsaved)",
                    s.project.name(),
                    s.project.dirty_count()
                )
            }
            Some(s) => format!("{} — Ensemble", s.project.name()),
            None => "Ensemble".into(),
        }
    }

    fn say(&mut self, message: impl Into<String>, error: bool) {
        self.status = Some((message.into(), Instant::now(), error));
    }

    /// Saves every unsaved document; true when everything was written.
    pub fn save(&mut self) -> bool {
        let Some(s) = self.session.as_mut() else {
            return true;
        };
        let result = s.project.save();
        let (message, ok) = match &result {
            Ok(r) if r.written.is_empty() && r.removed.is_empty() => {
                ("Nothing to save".to_string(), true)
            }
            Ok(r) => (
                format!(
                    "Saved {} file{}",
                    r.written.len() + r.removed.len(),
                    if r.written.len() + r.removed.len() == 1 {
                        ""
                    } else {
                        "s"
                    }
                ),
                true,
            ),
            Err((_, errors)) => (format!("Could not save: {}", errors.join("; ")), false),
        };
        let message = match &result {
            Ok(r) if !r.notes.is_empty() => format!("{message} · {}", r.notes.join(" · ")),
            _ => message,
        };
        let mut manifest_saved = false;
        let mut reloading = false;
        self.save_check = None;
        if ok {
            let _ = recovery::clear(&s.project.root);
            s.autosaved = (Instant::now(), s.revision);
            if let Ok(r) = &result {
                let files: Vec<String> = r.written.iter().chain(&r.removed).cloned().collect();
                manifest_saved = files.iter().any(|f| f == MANIFEST);
                let said = message.split(" · ").next().unwrap_or_default().to_string();
                self.save_check = Some((said, r.written.clone()));
                // A running preview reloads what was saved (positions alone are not
                // behaviour) and answers later.
                reloading = s.preview.is_running()
                    && files
                        .iter()
                        .any(|f| !f.ends_with(ensemble_compiler::project::LAYOUT_SUFFIX));
                s.preview.saved(&mut s.analysis, &files);
            }
        }
        s.watch = watch_for(&s.project);
        // The manifest decides which files are in the project (exclusions, libraries): the
        // list must show what the compiler now reads.
        if manifest_saved {
            self.reopen();
        }
        if reloading {
            self.say(format!("{message} · reloading the preview…"), !ok);
            self.save_said = self.status.as_ref().map(|(_, at, _)| *at);
        } else {
            self.say(message, !ok);
        }
        self.report_save_errors();
        ok
    }

    /// Adds to the status of the last save how many errors the saved files hold, once the
    /// diagnostics are of what was saved (a save right after typing waits for the compile).
    fn report_save_errors(&mut self) {
        let (Some((said, files)), Some(s)) = (&self.save_check, self.session.as_ref()) else {
            return;
        };
        if s.analysis.is_stale() {
            return;
        }
        let errors: usize = s.analysis.current.as_ref().map_or(0, |r| {
            files
                .iter()
                .flat_map(|f| r.in_file(f))
                .filter(|l| l.severity() == ensemble_compiler::diag::Severity::Error)
                .count()
        });
        let said = said.clone();
        self.save_check = None;
        let Some((message, _, error)) = self.status.as_mut() else {
            return;
        };
        // Only while the status still reports that save (nothing newer replaced it).
        if errors == 0 || message.split(" · ").next() != Some(said.as_str()) {
            return;
        }
        let plural = if errors == 1 { "" } else { "s" };
        *message = message.replacen(&said, &format!("{said}, with {errors} error{plural}"), 1);
        *error = true;
    }

    /// Draws the whole window into `ui` (also what the tests drive).
    pub fn show(&mut self, ui: &mut Ui) {
        if !self.themed {
            theme::apply(ui.ctx());
            self.themed = true;
        }
        let ctx = ui.ctx().clone();
        self.handle_close(&ctx);
        let mut actions = Vec::new();
        if self.modal.is_none() {
            self.shortcuts(&ctx, &mut actions);
        }
        if let Some(s) = self.session.as_mut() {
            if s.analysis.poll(&s.project) {
                s.names_at = None;
            }
            s.preview.poll(&ctx, &s.analysis);
            if let Some(run) = s.tests.poll(&ctx) {
                s.preview
                    .show_recorded(run.history, run.tick, run.scene, run.seed);
            }
            if let Some((history, tick, scene, seed)) = s.reach.poll(&ctx) {
                s.preview.show_recorded(history, tick, scene, seed);
            }
            if let Some(wait) = s.analysis.wake_in() {
                ctx.request_repaint_after(wait);
            }
            s.refresh_names();
            s.autosave();
            if s.project.is_dirty() {
                ctx.request_repaint_after(recovery::INTERVAL);
            }
            if s.watch.poll() {
                self.external_change();
            }
            ctx.request_repaint_after(POLL_INTERVAL);
        }
        self.report_reload();
        self.report_save_errors();
        let title = self.title();
        if title != self.shown_title {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.shown_title = title;
        }

        let bar = Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(12, 6));
        Panel::top("top_bar")
            .frame(bar)
            .show(ui, |ui| self.top_bar(ui, &mut actions));
        if self.session.is_some() {
            self.project_ui(ui, &mut actions);
        } else {
            CentralPanel::default()
                .frame(Frame::new().fill(theme::CANVAS))
                .show(ui, |ui| self.welcome(ui, &mut actions));
        }
        if let Some(s) = self.session.as_mut() {
            let root = s.project.root.clone();
            s.reach.ui(&ctx, &root);
        }
        self.modal_ui(&ctx, &mut actions);

        for action in actions {
            self.apply(action, &ctx);
        }
        // A gesture ends when nothing is being typed into or dragged.
        if let Some(s) = self.session.as_mut()
            && !ctx.text_edit_focused()
            && !ctx.input(|i| i.pointer.any_down())
        {
            s.history.close();
        }
        if let Some(s) = self.session.as_mut() {
            s.repair_trail();
        }
    }

    /// Turns the status of a save the preview was reloading into the reload's verdict.
    fn report_reload(&mut self) {
        let (Some(said), Some(s)) = (self.save_said, self.session.as_ref()) else {
            return;
        };
        if s.preview.reload_pending() {
            return;
        }
        let Some(note) = s.preview.last_reload.as_ref().filter(|n| n.at >= said) else {
            return;
        };
        let saved = self
            .status
            .as_ref()
            .and_then(|(m, _, _)| m.split(" · ").next())
            .unwrap_or("Saved")
            .to_string();
        let (message, error) = if note.ok {
            (format!("{saved} · preview reloaded"), false)
        } else {
            // The refusal names the errors: the save's count of them would say it twice.
            let saved = saved.split(", with ").next().unwrap_or_default();
            let why = &note.summary;
            (
                format!("{saved}, but the preview refused it (save refused): {why}"),
                true,
            )
        };
        self.save_said = None;
        self.say(message, error);
    }

    fn handle_close(&mut self, ctx: &egui::Context) {
        if !ctx.input(|i| i.viewport().close_requested()) {
            return;
        }
        if self.is_dirty() && !self.allow_close {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
            self.modal = Some(Modal::Close);
        } else {
            self.closing = true;
        }
    }

    fn external_change(&mut self) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        if s.project.is_dirty() {
            s.watch = watch_for(&s.project);
            self.say(
                "Files changed on disk; your unsaved changes are kept. Save to overwrite them.",
                true,
            );
            return;
        }
        if self.reopen() {
            if let Some(s) = self.session.as_mut() {
                s.preview.changed_on_disk(&mut s.analysis);
            }
            self.say("Reloaded: files changed on disk", false);
        }
    }

    /// Reads the (saved) project from disk again, keeping what is shown: the machine trail,
    /// the selection, the open asset, the preview, the judging pass, the "How do I get here?"
    /// window, the tests panel and the clipboard. False when it no longer opens.
    fn reopen(&mut self) -> bool {
        let Some(s) = self.session.as_mut() else {
            return false;
        };
        let trail = s.trail.clone();
        let selection = s.graph.selection.clone();
        let open_path = s
            .open
            .filter(|_| trail.is_empty())
            .map(|d| s.project.docs[d].state.path.clone());
        let Ok(project) = Project::open(&s.project.root) else {
            return false;
        };
        let mut fresh = Session::new(project);
        fresh.show_machine(
            trail
                .into_iter()
                .filter(|t| fresh.project.machine_doc(t).is_some())
                .collect(),
        );
        if let Some(id) = open_path.and_then(|p| fresh.project.open_outside_build(&p)) {
            fresh.open_doc(id);
        }
        if fresh.open.is_none() {
            fresh.open_default();
        }
        // The view stays where the designer left it: the same machine shown before and after
        // keeps its graph view (camera, layout memory; it rebuilds what changed without fitting
        // again), and the space panel is view state only, kept by space name.
        let shown = |s: &Session| s.open.map(|d| (d, s.project.docs[d].state.path.clone()));
        let before = shown(s);
        if before.is_some() && before == shown(&fresh) {
            fresh.graph = std::mem::take(&mut s.graph);
        }
        if let Some(panel) = s.panels.remove(&AssetKind::Space) {
            fresh.panels.insert(AssetKind::Space, panel);
        }
        fresh.graph.selection = selection;
        // What the designer is looking at outlives a reload; "Save as test" itself writes a
        // file the watcher reports, so a found play must not vanish with the old session.
        fresh.preview = std::mem::take(&mut s.preview);
        fresh.judge = std::mem::take(&mut s.judge);
        fresh.reach = std::mem::take(&mut s.reach);
        fresh.tests = std::mem::take(&mut s.tests);
        fresh.clipboard = s.clipboard.take();
        self.session = Some(fresh);
        true
    }

    fn shortcuts(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let typing = ctx.text_edit_focused();
        // Selection keys belong to the graph of machines; other panels handle their own.
        let in_graph = self.current_machine_name().is_some();
        actions.extend(ctx.input_mut(|i| shortcuts::pressed(i, typing, in_graph)));
        // The text a system clipboard paste brought, for pasting states from another editor.
        if actions.iter().any(|a| matches!(a, Action::Paste))
            && let Some(s) = self.session.as_mut()
        {
            let pasted = ctx.input(|i| {
                i.events.iter().find_map(|e| match e {
                    egui::Event::Paste(t) => Clip::from_text(t),
                    _ => None,
                })
            });
            if let Some(clip) = pasted {
                s.clipboard = Some(clip);
            }
        }
    }

    fn top_bar(&mut self, ui: &mut Ui, actions: &mut Vec<Action>) {
        let ctx = ui.ctx().clone();
        let keys = |c: shortcuts::Command| shortcuts::keys_for(&ctx, c);
        ui.horizontal(|ui| {
            ui.label(RichText::new("Ensemble").color(theme::ACCENT).strong());
            ui.separator();
            ui.menu_button("File", |ui| {
                if ui
                    .button("New project…")
                    .on_hover_text("Create a project folder with a manifest and a starter machine")
                    .clicked()
                {
                    actions.push(Action::NewProjectDialog);
                    ui.close();
                }
                if ui
                    .button(format!("Open project…   {}", keys(shortcuts::Command::Open)))
                    .on_hover_text("Open a project folder (or a file in one: it opens shown)")
                    .clicked()
                {
                    actions.push(Action::OpenDialog);
                    ui.close();
                }
                ui.menu_button("Open recent", |ui| {
                    ui.set_min_width(200.0);
                    if self.recent.is_empty() {
                        ui.label(RichText::new("none yet").italics().color(theme::TEXT_WEAK));
                    }
                    for p in &self.recent {
                        if ui
                            .button(p.display().to_string())
                            .on_hover_text("Open this project")
                            .clicked()
                        {
                            actions.push(Action::OpenProject(p.clone()));
                            ui.close();
                        }
                    }
                });
                ui.separator();
                if self.session.is_some() {
                    ui.menu_button("New from template", |ui| {
                        let mut asked = Vec::new();
                        project_panel::templates_menu(ui, &mut asked);
                        actions.extend(asked.into_iter().filter_map(|r| match r {
                            Request::NewAsset(starter) => Some(Action::NewAsset(starter)),
                            _ => None,
                        }));
                    });
                    if ui
                        .button("Import Excel workbook…")
                        .on_hover_text("Add an interaction script workbook to the project; it is edited in the rule table and saved as a workbook")
                        .clicked()
                    {
                        actions.push(Action::ImportWorkbook);
                        ui.close();
                    }
                    if ui
                        .button("Open navigation map…")
                        .on_hover_text("Show a MovingAI .map with its PPA* clusters and paths")
                        .clicked()
                    {
                        actions.push(Action::AskFile(PathFor::Map));
                        ui.close();
                    }
                    if ui
                        .button("Open trace…")
                        .on_hover_text("Load a recorded trace (ensemble run --trace json) into the preview's timeline, to scrub through")
                        .clicked()
                    {
                        actions.push(Action::AskFile(PathFor::Trace));
                        ui.close();
                    }
                    ui.separator();
                }
                let dirty = self.is_dirty();
                if ui
                    .add_enabled(
                        dirty,
                        egui::Button::new(format!(
                            "Save all   {}",
                            keys(shortcuts::Command::Save)
                        )),
                    )
                    .on_hover_text("Write every changed file")
                    .on_disabled_hover_text("Nothing has changed since the last save")
                    .clicked()
                {
                    actions.push(Action::Save);
                    ui.close();
                }
            })
            .response
            .on_hover_text("Open, create, save and import projects and assets");
            if let Some(s) = &self.session {
                ui.menu_button("Edit", |ui| {
                    let undo = s
                        .history
                        .undo_label()
                        .map(|l| format!("Undo {l}   {}", keys(shortcuts::Command::Undo)));
                    if ui
                        .add_enabled(
                            undo.is_some(),
                            egui::Button::new(undo.unwrap_or("Undo".into())),
                        )
                        .on_hover_text("Take back the last change")
                        .on_disabled_hover_text("Nothing to undo")
                        .clicked()
                    {
                        actions.push(Action::Undo);
                        ui.close();
                    }
                    let redo = s
                        .history
                        .redo_label()
                        .map(|l| format!("Redo {l}   {}", keys(shortcuts::Command::Redo)));
                    if ui
                        .add_enabled(
                            redo.is_some(),
                            egui::Button::new(redo.unwrap_or("Redo".into())),
                        )
                        .on_hover_text("Make the change you took back again")
                        .on_disabled_hover_text("Nothing to redo")
                        .clicked()
                    {
                        actions.push(Action::Redo);
                        ui.close();
                    }
                    ui.separator();
                    if ui
                        .button("Judge lines…")
                        .on_hover_text("Accept or ban the generated lines of every sentence state of the project, in one list")
                        .clicked()
                    {
                        actions.push(Action::JudgeLines);
                        ui.close();
                    }
                    if ui
                        .button(format!("Find…   {}", keys(shortcuts::Command::Find)))
                        .on_hover_text("Find a machine, state, rule or asset by name")
                        .clicked()
                    {
                        actions.push(Action::Find);
                        ui.close();
                    }
                    if ui
                        .add_enabled(
                            self.current_machine_name().is_some(),
                            egui::Button::new(format!(
                                "Arrange (layered)   {}",
                                keys(shortcuts::Command::Arrange)
                            )),
                        )
                        .on_hover_text("Arrange every state in layers that follow the flow")
                        .on_disabled_hover_text("Open a machine first")
                        .clicked()
                    {
                        actions.push(Action::Arrange);
                        ui.close();
                    }
                })
                .response
                .on_hover_text("Undo, redo, find, arrange");
            }
            ui.menu_button("Help", |ui| {
                ui.set_max_width(460.0);
                guide::first_steps(ui);
                ui.separator();
                ui.label(RichText::new("Keyboard shortcuts").strong());
                shortcuts::help(ui);
                ui.separator();
                ui.label(
                    RichText::new("Formats and diagnostics: docs/formats/ and docs/diagnostics.md")
                        .color(theme::TEXT_WEAK),
                );
            })
            .response
            .on_hover_text("First steps, keyboard shortcuts and where the formats are described");
            if let Some(s) = &self.session {
                ui.separator();
                ui.label(
                    RichText::new(s.project.name())
                        .color(theme::TEXT)
                        .strong()
                        .size(15.0),
                );
                if s.project.is_dirty() {
                    ui.label(RichText::new("•").color(theme::WARNING).size(16.0))
                        .on_hover_text("unsaved changes");
                }
                ui.label(
                    RichText::new(s.project.root.display().to_string())
                        .color(theme::TEXT_WEAK)
                        .small(),
                );
            }
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if let Some(s) = &self.session {
                    let dirty = s.project.is_dirty();
                    let save = egui::Button::new(if dirty { "Save" } else { "Saved" });
                    if ui
                        .add_enabled(dirty, save)
                        .on_hover_text("Save every changed file (Ctrl+S)")
                        .on_disabled_hover_text("Every file is saved")
                        .clicked()
                    {
                        actions.push(Action::Save);
                    }
                    if let Some(r) = s.analysis.current.as_ref() {
                        let (e, w) = (r.errors(), r.warnings());
                        let color = if e > 0 {
                            theme::ERROR
                        } else if w > 0 {
                            theme::WARNING
                        } else {
                            theme::OK
                        };
                        ui.label(RichText::new(diagnostics_panel::summary(r)).color(color));
                    }
                }
                if let Some((message, at, error)) = &self.status
                    && at.elapsed() < Duration::from_secs(6)
                {
                    let color = if *error { theme::ERROR } else { theme::OK };
                    // A refusal's reason can be long: cut to the bar, whole on hover.
                    ui.add(egui::Label::new(RichText::new(message).color(color)).truncate())
                        .on_hover_text(message);
                }
            });
        });
    }

    fn welcome(&mut self, ui: &mut Ui, actions: &mut Vec<Action>) {
        ui.vertical_centered(|ui| {
            ui.add_space((ui.available_height() * 0.2).max(16.0));
            ui.label(RichText::new("Ensemble").size(30.0).color(theme::ACCENT));
            ui.label(
                RichText::new("Author NPC behaviour, check it, preview it.")
                    .color(theme::TEXT_WEAK),
            );
            ui.add_space(18.0);
            if let Some(e) = &self.load_error {
                ui.label(
                    RichText::new("Cannot open this project")
                        .heading()
                        .color(theme::ERROR),
                );
                ui.label(RichText::new(e).color(theme::TEXT));
                ui.add_space(12.0);
            }
            ui.horizontal(|ui| {
                ui.add_space((ui.available_width() - 300.0).max(0.0) / 2.0);
                if ui
                    .button("New project…")
                    .on_hover_text("Create a project folder with a manifest and a starter machine")
                    .clicked()
                {
                    actions.push(Action::NewProjectDialog);
                }
                if ui
                    .button("Open project…")
                    .on_hover_text("Open a project folder (or a file in one)")
                    .clicked()
                {
                    actions.push(Action::OpenDialog);
                }
            });
            if !self.recent.is_empty() {
                ui.add_space(18.0);
                ui.label(
                    RichText::new("RECENT")
                        .font(theme::section_font())
                        .color(theme::TEXT_WEAK),
                );
                for p in &self.recent {
                    if ui.link(p.display().to_string()).clicked() {
                        actions.push(Action::OpenProject(p.clone()));
                    }
                }
            }
        });
    }

    fn project_ui(&mut self, ui: &mut Ui, actions: &mut Vec<Action>) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let side = Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(10, 10));
        Panel::left("project")
            .frame(side)
            .resizable(true)
            .default_size(210.0)
            .min_size(160.0)
            .show(ui, |ui| {
                let maps = (s.maps.found.as_slice(), s.maps.shown());
                let mut asked = Vec::new();
                project_panel::show(
                    ui,
                    &s.project,
                    s.open,
                    s.analysis.current.as_ref(),
                    maps,
                    s.judge.is_shown(),
                    &mut asked,
                );
                take_requests(&s.project, asked, actions);
            });
        let bottom = Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(10, 8));
        let stale = s.analysis.is_stale();
        // The bottom dock: problems, the preview, translations or tests (each keeps its height).
        let preview = s.preview.tab == crate::preview::DockTab::Preview;
        let tall = s.preview.tab != crate::preview::DockTab::Problems;
        let id = match s.preview.tab {
            crate::preview::DockTab::Problems => "diagnostics",
            crate::preview::DockTab::Preview => "preview",
            crate::preview::DockTab::Localisation => "localisation",
            crate::preview::DockTab::Tests => "tests",
        };
        Panel::bottom(id)
            .frame(bottom)
            .resizable(true)
            .default_size(if tall { 400.0 } else { 150.0 })
            .min_size(if tall { 200.0 } else { 70.0 })
            .show(ui, |ui| {
                if s.preview.tabs(ui, s.analysis.current.as_ref()) {
                    s.graph.fit();
                }
                if s.preview.tab == crate::preview::DockTab::Localisation {
                    let report = s.analysis.current.as_ref();
                    match s.localisation.show(ui, report) {
                        Some(crate::localisation::Request::Export) => {
                            actions.push(Action::AskFile(PathFor::StringsExport));
                        }
                        Some(crate::localisation::Request::Import) => {
                            actions.push(Action::AskFile(PathFor::StringsImport));
                        }
                        Some(crate::localisation::Request::Translate { locale, id, text }) => {
                            actions.push(Action::Translate { locale, id, text });
                        }
                        None => {}
                    }
                } else if s.preview.tab == crate::preview::DockTab::Tests {
                    s.tests
                        .ui(ui, s.analysis.current.as_ref(), crate::preview::program_of);
                } else if preview {
                    let mut asked = Vec::new();
                    s.preview.ui(ui, &s.analysis, &mut asked);
                    take_requests(&s.project, asked, actions);
                } else {
                    // Keep the height the user dragged to (a panel shrinks to its contents).
                    ui.set_min_size(ui.available_size());
                    let mut asked = Vec::new();
                    diagnostics_panel::show(ui, s.analysis.current.as_ref(), stale, &mut asked);
                    take_requests(&s.project, asked, actions);
                }
            });

        let open = s.open.filter(|d| !s.project.docs[*d].state.deleted);
        // Owned, so the panels below can borrow the session mutably.
        let owned: Vec<Located> = match (open, s.analysis.current.as_ref()) {
            (Some(d), Some(r)) => r.in_file(&s.project.docs[d].state.path).cloned().collect(),
            _ => Vec::new(),
        };
        let diagnostics: Vec<&Located> = owned.iter().collect();
        let is_machine = open.is_some_and(|d| s.project.docs[d].state.machine().is_some());
        if let (true, Some(doc)) = (is_machine, open) {
            let m = s.project.docs[doc].state.machine().cloned();
            if let Some(m) = m {
                Panel::right("inspector")
                    .frame(side)
                    .resizable(true)
                    .default_size(300.0)
                    .min_size(240.0)
                    .max_size(480.0)
                    .show(ui, |ui| {
                        let live = || s.project.docs.iter().filter(|d| !d.state.deleted);
                        let conversations = crate::machine::suggest::Conversations::of(
                            live().filter_map(|d| d.state.machine()),
                            live().filter_map(|d| match d.state.asset() {
                                Some(AnyAsset::Scene(scene)) => Some(scene),
                                _ => None,
                            }),
                        );
                        let cx = InspectorCx {
                            names: &s.names,
                            diagnostics: &diagnostics,
                            lines: &s.lines,
                            conversations: &conversations,
                        };
                        let out = s.inspector.show(ui, &m, &s.graph, &cx);
                        if !out.edits.is_empty() {
                            actions.push(Action::Edit(doc, DocEdit::Machine(out.edits)));
                        }
                        if let Some(new) = out.rename_machine {
                            actions.push(Action::RenameMachine(doc, new));
                        }
                        if let Some(child) = out.open_machine {
                            actions.push(Action::EnterMachine(child));
                        }
                    });
            }
        }
        CentralPanel::default()
            .frame(Frame::new().fill(theme::CANVAS))
            .show(ui, |ui| {
                // The canvas takes every drag it covers: keep it clear of the bottom dock's
                // resize handle, which reaches this far into the central area.
                let mut area = ui.available_rect_before_wrap();
                area.max.y -= ui.style().interaction.resize_grab_radius_side;
                ui.scope_builder(egui::UiBuilder::new().max_rect(area), |ui| {
                    Self::central(s, ui, open, is_machine, &diagnostics, actions)
                });
            });
    }

    /// The central area: the judging view, the open map, machine or asset.
    fn central(
        s: &mut Session,
        ui: &mut Ui,
        open: Option<DocId>,
        is_machine: bool,
        diagnostics: &[&Located],
        actions: &mut Vec<Action>,
    ) {
        if s.judge.is_shown() {
            Self::judge_view(s, ui, actions);
            return;
        }
        if s.maps.shown().is_some() {
            let root = s.project.root.clone();
            s.maps.ui(ui, &root);
            return;
        }
        let Some(doc) = open else {
            centered_message(
                ui,
                "Nothing open",
                "Pick an asset on the left, or create one with +.",
                theme::TEXT_WEAK,
            );
            return;
        };
        if is_machine {
            Self::machine_view(s, ui, doc, diagnostics, actions);
        } else {
            Self::asset_view(s, ui, doc, diagnostics, actions);
        }
    }

    fn breadcrumbs(s: &mut Session, ui: &mut Ui, doc: DocId, actions: &mut Vec<Action>) {
        Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(12, 6))
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                ui.horizontal(|ui| {
                    for (i, name) in s.trail.iter().enumerate() {
                        if i + 1 == s.trail.len() {
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
                    ui.add_space(16.0);
                    let d = &s.project.docs[doc];
                    if let Some(m) = d.state.machine() {
                        let edits = s.graph.toolbar(ui, m, &d.state.layout, &s.names);
                        if !edits.is_empty() {
                            actions.push(Action::Edit(doc, DocEdit::Machine(edits)));
                        }
                    }
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        // In the room the toolbar leaves (it lay over the zoom buttons, taking
                        // their pointer), and never in the pointer's way.
                        ui.add(
                            egui::Label::new(
                                RichText::new(
                                    "drag a dot or ■ to connect · Shift+drag to select · double-click ⏵ \
                                     to open",
                                )
                                .color(theme::TEXT_WEAK)
                                .small(),
                            )
                            .truncate()
                            .selectable(false)
                            .sense(egui::Sense::hover()),
                        );
                    });
                });
            });
    }

    fn machine_view(
        s: &mut Session,
        ui: &mut Ui,
        doc: DocId,
        diagnostics: &[&Located],
        actions: &mut Vec<Action>,
    ) {
        Self::breadcrumbs(s, ui, doc, actions);
        let d = &s.project.docs[doc];
        let Some(m) = d.state.machine() else { return };
        let live = s.preview.live(&m.name);
        let breakpoints = s.preview.breakpoints_in(&m.name);
        let unreached = s.tests.unreached_states(&m.name);
        let cx = GraphCx {
            names: &s.names,
            diagnostics,
            lines: &s.lines,
            live: live.as_ref(),
            breakpoints: &breakpoints,
            unreached: &unreached,
        };
        let out = s.graph.show(ui, doc, m, &d.state.layout, &cx);
        if !out.edits.is_empty() {
            actions.push(Action::Edit(doc, DocEdit::Machine(out.edits)));
        }
        if let Some(child) = out.open_child {
            actions.push(Action::EnterMachine(child));
        }
        if out.rename {
            s.inspector.focus_name = true;
        }
        if out.copy {
            actions.push(Action::Copy);
        }
        if let Some(state) = out.breakpoint {
            let machine = m.name.clone();
            s.preview.toggle_breakpoint(&machine, &state);
        }
        if let Some(state) = out.reach {
            let machine = m.name.clone();
            actions.push(Action::Reach(crate::reach::Asked::State { machine, state }));
        }
    }

    /// The judging pass over the project's sentence files as they are now; a judgement is an
    /// edit of its file like any panel's (one undo step each).
    fn judge_view(s: &mut Session, ui: &mut Ui, actions: &mut Vec<Action>) {
        use crate::sentences::judge::{JudgeFile, JudgeOut};
        let root = s.project.root.clone();
        let files: Vec<JudgeFile<'_>> = s
            .project
            .live()
            .filter(|(_, d)| d.kind == FileKind::Asset(AssetKind::Sentences))
            .filter_map(|(doc, d)| match d.state.asset() {
                Some(AnyAsset::Sentences(value)) => Some(JudgeFile {
                    doc,
                    path: &d.state.path,
                    value,
                    dir: root
                        .join(&d.state.path)
                        .parent()
                        .map_or_else(|| root.clone(), Path::to_path_buf),
                }),
                _ => None,
            })
            .collect();
        let out = Frame::new()
            .inner_margin(Margin::symmetric(12, 8))
            .show(ui, |ui| s.judge.ui(ui, &files))
            .inner;
        match out {
            Some(JudgeOut::Edit { doc, value, label }) => {
                let d = &s.project.docs[doc];
                actions.push(Action::Edit(
                    doc,
                    DocEdit::Value(Box::new(ValueEdit {
                        content: Content::Asset(AnyAsset::Sentences(value)),
                        layout: d.state.layout.clone(),
                        // Each judgement is its own step.
                        gesture: format!("judge {}", s.revision),
                        label: Some(label),
                    })),
                ));
            }
            Some(JudgeOut::Open { doc, state }) => {
                actions.push(Action::Jump(Hit {
                    kind: "sentence state",
                    context: String::new(),
                    doc,
                    reveal: Some(Reveal::Item {
                        list: "states".into(),
                        name: state.clone(),
                    }),
                    name: state,
                }));
            }
            None => {}
        }
    }

    /// Any asset but a machine: its kind's panel when one is plugged in, else the read-only
    /// text view. The panel edits a copy of the document's value; what it changed comes back
    /// as an [`Action::Edit`], applied after the frame like every other edit.
    fn asset_view(
        s: &mut Session,
        ui: &mut Ui,
        doc: DocId,
        diagnostics: &[&Located],
        actions: &mut Vec<Action>,
    ) {
        let located: Vec<Located> = diagnostics.iter().map(|l| (*l).clone()).collect();
        let requests = RefCell::new(Vec::new());
        let kind = match s.project.docs[doc].kind {
            FileKind::Asset(k) => Some(k),
            _ => None,
        };
        let mut edited = None;
        {
            let d = &s.project.docs[doc];
            let compiled = s.analysis.current.as_ref().and_then(|r| {
                let c = r.compilation.as_ref().ok()?;
                Some(crate::panel::Compiled {
                    diagnostics: &r.all,
                    sources: &c.sources,
                    file: c
                        .sources
                        .iter()
                        .find(|(_, f)| f.name == d.state.path)
                        .map(|(id, _)| id),
                    module: Some(&c.module),
                    tests: Some(&s.tests),
                })
            });
            let cx = PanelCx {
                root: &s.project.root,
                file: &d.state.path,
                diagnostics: &located,
                names: &s.names,
                requests: &requests,
                compiled,
            };
            let panel = match kind {
                Some(k) => s.panels.get_mut(&k),
                None => Some(&mut s.manifest_panel),
            };
            Frame::new()
                .inner_margin(Margin::symmetric(12, 8))
                .show(ui, |ui| match (panel, panel_value(&d.state.content)) {
                    (_, None) if matches!(d.state.content, Content::Text(_)) => {
                        let mut text = d.state.text().unwrap_or_default();
                        if s.pddl.ui(ui, &mut text, &cx) && Some(&text) != d.state.text().as_ref() {
                            edited = Some((Content::Text(text), d.state.layout.clone()));
                        }
                    }
                    (Some(panel), Some(mut value)) => {
                        let mut layout = d.state.layout.clone();
                        if panel.ui_laid_out(ui, &mut value, &mut layout, &cx) {
                            let content = content_of(&d.state.content, value);
                            if content != d.state.content || layout != d.state.layout {
                                edited = Some((content, layout));
                            }
                        }
                    }
                    (_, _) => {
                        let content = &d.state.content;
                        if let Content::Unparsed { error, .. } = content {
                            ui.label(
                                RichText::new(format!("This file does not read: {error}. Fix it in a text editor; the editor reloads it."))
                                    .color(theme::ERROR),
                            );
                        }
                        let mut text = match content {
                            Content::Binary => "This Excel workbook is read by the compiler as it is.\nEdit it in your spreadsheet program; the editor shows its problems here.\n".to_string(),
                            _ => d.state.text().unwrap_or_default(),
                        };
                        s.text.ui(ui, &mut text, &cx);
                    }
                });
        }
        if let Some((content, layout)) = edited {
            // Typing in one field is one step: the gesture is keyed by the focused widget.
            let focus = ui.ctx().memory(|m| m.focused());
            let gesture = format!("panel {doc} {focus:?}");
            actions.push(Action::Edit(
                doc,
                DocEdit::Value(Box::new(ValueEdit {
                    content,
                    layout,
                    gesture,
                    label: None,
                })),
            ));
        }
        take_requests(&s.project, requests.into_inner(), actions);
    }

    /// Copies the selected states to the system clipboard as text too (pasting works across
    /// editor windows and into a text editor).
    pub fn clipboard_text(&self) -> Option<String> {
        self.session.as_ref()?.clipboard.as_ref().map(Clip::to_text)
    }
}

/// What a panel edits of a document's content: its asset, or the script a workbook holds.
fn panel_value(content: &Content) -> Option<AnyAsset> {
    match content {
        Content::Asset(a) => Some(a.clone()),
        Content::Workbook(script) => Some(AnyAsset::Script(script.clone())),
        _ => None,
    }
}

/// The content after a panel edited [`panel_value`]: a workbook stays a workbook.
fn content_of(was: &Content, value: AnyAsset) -> Content {
    match (was, value) {
        (Content::Workbook(_), AnyAsset::Script(script)) => Content::Workbook(script),
        (_, value) => Content::Asset(value),
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

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut Ui, _frame: &mut eframe::Frame) {
        self.show(ui);
    }
}

/// What the host does for each thing a panel asked for ([`Request`]), after the frame.
fn take_requests(project: &Project, requests: Vec<Request>, actions: &mut Vec<Action>) {
    for r in requests {
        actions.push(match r {
            Request::OpenMachine(m) => Action::EnterMachine(m),
            Request::Open(path) => match project.by_path(&path) {
                Some(id) => Action::OpenDoc(id),
                None => continue,
            },
            Request::Rename { what, old, new } => Action::Rename(what, old, new),
            Request::ShowMap(path) => Action::OpenMap(path),
            Request::Reach(asked) => Action::Reach(asked),
            Request::OpenDoc(id) => Action::OpenDoc(id),
            Request::AskRename(id) => Action::AskRename(id),
            Request::AskDelete(id) => Action::AskDelete(id),
            Request::NewAsset(starter) => Action::NewAsset(starter),
            Request::ImportWorkbook => Action::ImportWorkbook,
            Request::JudgeLines => Action::JudgeLines,
            Request::ShowDiagnostic(l) => Action::Reveal(l),
            Request::QuickFix(l, fix) => Action::QuickFix(l, fix),
            Request::Follow(trail) => Action::Follow(trail),
        });
    }
}
