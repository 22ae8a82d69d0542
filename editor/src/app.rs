//! The editor's window and the host of every panel: the open project and its documents, undo,
//! saving and autosave, the background compile, and the dialogs. Panels report what the user
//! did as [`Action`]s (the graph editor as [`Op`]s), applied after the frame is drawn, so
//! drawing only reads the documents and every change goes through one place that records it.

use crate::analysis::{Analysis, Located, Report};
use crate::asset_panel::{
    AssetPanel, KindPanel, LibraryEntry, PanelCx, ProjectNames, Request, Reveal,
};
use crate::document::{Content, DocId, Project};
use crate::find::{self, Hit};
use crate::history::History;
use crate::machine::inspector::{Inspector, InspectorCx};
use crate::machine::ops::Clip;
use crate::machine::view::GraphCx;
use crate::machine::{self, GraphView, Op};
use crate::recovery::{self, Recovery};
use crate::text_view::TextPanel;
use crate::watch::{POLL_INTERVAL, SourceWatch};
use crate::{diagnostics_panel, project_ops, project_panel, recent, theme};
use eframe::egui;
use egui::{CentralPanel, Frame, Key, KeyboardShortcut, Margin, Modifiers, Panel, RichText, Ui};
use ensemble_compiler::Compilation;
use ensemble_compiler::front::ron::AssetKind;
use ensemble_compiler::front::ron::any::{AnyAsset, FileKind};
use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Something the user asked for during a frame.
pub enum Action {
    OpenDoc(DocId),
    /// Open the machine named so, entering it from the shown one (breadcrumbs grow).
    EnterMachine(String),
    /// Back up to the machine at this breadcrumb.
    Crumb(usize),
    Reveal(Box<Located>),
    Jump(Hit),
    Ops(DocId, Vec<Op>),
    RenameMachine(DocId, String),
    NewAsset(project_ops::Starter),
    AskRename(DocId),
    AskDelete(DocId),
    Save,
    Undo,
    Redo,
    Find,
    OpenDialog,
    NewProjectDialog,
    OpenProject(PathBuf),
    Copy,
    Paste,
    DeleteSelection,
    /// Select every state of the open machine (true) or none.
    Select(bool),
    /// Show this stack of machines (the preview follows an agent): root first.
    Follow(Vec<String>),
    /// Rename an item and every reference to it ([`crate::rename`]).
    Rename(crate::rename::Named, String, String),
    /// Add an Excel workbook to the project (asks which).
    ImportWorkbook,
    /// Show the navigation map at this path (relative to the project, or absolute).
    OpenMap(String),
}

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
}

/// An open project and everything about editing it.
pub struct Session {
    pub project: Project,
    pub history: History,
    pub analysis: Analysis,
    pub names: ProjectNames,
    /// Best line of each sentence state (dialog nodes show it).
    pub lines: HashMap<String, String>,
    names_at: Option<(u64, u64)>,
    /// The document shown in the centre.
    pub open: Option<DocId>,
    /// Breadcrumbs: machine names, the last shown.
    pub trail: Vec<String>,
    pub graph: GraphView,
    inspector: Inspector,
    text: TextPanel,
    /// The panels of asset kinds that have one (see `asset_panel::plugged`).
    panels: HashMap<AssetKind, Box<dyn KindPanel>>,
    /// The manifest's form (the manifest is no asset kind).
    manifest_panel: Box<dyn KindPanel>,
    /// The project's navigation maps, and the one shown instead of a document.
    pub maps: crate::maps::Maps,
    /// The editor of text sources without a RON shape (PDDL).
    pddl: crate::planning::pddl::PddlPanel,
    /// Bumped by every change of any document.
    pub revision: u64,
    autosaved: (Instant, u64),
    watch: SourceWatch,
    clipboard: Option<Clip>,
    /// The live preview of a scene (the bottom dock's second tab).
    pub preview: crate::preview::Preview,
}

pub struct EditorApp {
    session: Option<Session>,
    /// Why the last project could not be opened.
    pub load_error: Option<String>,
    config: Option<PathBuf>,
    pub recent: Vec<PathBuf>,
    modal: Option<Modal>,
    status: Option<(String, Instant, bool)>,
    allow_close: bool,
    /// The window was asked to close and may (for tests: what the close prompt decided).
    pub closing: bool,
    themed: bool,
    shown_title: String,
    /// Asks which workbook to import (the system's dialog; tests answer it).
    workbook_picker: crate::rules::FilePicker,
}

/// Names for pickers: from the documents as they are now, and the library and sentence lines
/// from the last compile.
pub fn names_from(project: Option<&Project>, c: Option<&Compilation>) -> ProjectNames {
    let mut n = ProjectNames::default();
    if let Some(c) = c {
        n.library = c
            .module
            .library
            .iter()
            .map(|(_, l)| LibraryEntry {
                name: l.name.clone(),
                modifier: l.modifier,
                terminal: l.terminal,
                raises: l.raises.clone(),
                doc: l.doc.clone(),
            })
            .collect();
        n.machines = c
            .module
            .machines
            .iter()
            .map(|(_, m)| m.name.text.clone())
            .collect();
        n.locations = c
            .module
            .locations
            .iter()
            .map(|(_, l)| l.name.text.clone())
            .collect();
        n.sentences = c
            .module
            .sentences
            .iter()
            .map(|(_, s)| s.name.text.clone())
            .collect();
    }
    if let Some(p) = project {
        n.more = crate::names::collect(p);
        n.machines.clear();
        n.locations.clear();
        n.sentences.clear();
        for (_, d) in p.live() {
            match d.state.asset() {
                Some(AnyAsset::Machine(m)) => n.machines.push(m.name.clone()),
                Some(AnyAsset::Locations(l)) => n
                    .locations
                    .extend(l.locations.iter().map(|x| x.name.clone())),
                Some(AnyAsset::Sentences(s)) => {
                    n.sentences.extend(s.states.iter().map(|x| x.name.clone()))
                }
                Some(AnyAsset::Scene(s)) => {
                    n.agents.extend(s.agents.iter().map(|a| a.name.clone()))
                }
                _ => {}
            }
        }
        n.agents.sort();
        n.agents.dedup();
    }
    n
}

fn lines_from(c: Option<&Compilation>) -> HashMap<String, String> {
    c.map(|c| {
        c.module
            .sentences
            .iter()
            .filter_map(|(_, s)| {
                s.candidates
                    .first()
                    .map(|best| (s.name.text.clone(), best.template.clone()))
            })
            .collect()
    })
    .unwrap_or_default()
}

fn watch_for(project: &Project) -> SourceWatch {
    let mut paths = vec![project.root.clone()];
    for (_, d) in project.live() {
        let full = project.root.join(&d.saved.path);
        paths.extend(full.parent().map(Path::to_path_buf));
        paths.push(full);
    }
    SourceWatch::new(paths)
}

impl Session {
    fn new(project: Project) -> Session {
        let mut analysis = Analysis::new();
        analysis.compile_now(&project.root.clone(), &project);
        let watch = watch_for(&project);
        let maps = crate::maps::Maps::new(&project.root);
        let mut s = Session {
            project,
            history: History::default(),
            analysis,
            names: ProjectNames::default(),
            lines: HashMap::new(),
            names_at: None,
            open: None,
            trail: Vec::new(),
            graph: GraphView::default(),
            inspector: Inspector::default(),
            text: TextPanel::default(),
            panels: crate::asset_panel::plugged().into_iter().collect(),
            manifest_panel: crate::forms::manifest_panel(),
            maps,
            pddl: Default::default(),
            revision: 0,
            autosaved: (Instant::now(), 0),
            watch,
            clipboard: None,
            preview: Default::default(),
        };
        s.refresh_names();
        s.open_default();
        s
    }

    fn compilation(&self) -> Option<&Compilation> {
        self.analysis
            .current
            .as_ref()
            .and_then(|r| r.compilation.as_ref().ok())
    }

    fn refresh_names(&mut self) {
        let at = (
            self.revision,
            self.analysis.current.as_ref().map_or(0, |r| r.generation),
        );
        if self.names_at == Some(at) {
            return;
        }
        self.names = names_from(Some(&self.project), self.compilation());
        self.lines = lines_from(self.compilation());
        self.names_at = Some(at);
    }

    /// Start where the first scene starts: its first agent's machine, else the first machine.
    fn open_default(&mut self) {
        let from_scene = self
            .project
            .live()
            .find_map(|(_, d)| match d.state.asset() {
                Some(AnyAsset::Scene(s)) => s.agents.iter().find_map(|a| a.machine.clone()),
                _ => None,
            });
        let machine = from_scene
            .filter(|m| self.project.machine_doc(m).is_some())
            .or_else(|| self.project.machine_names().into_iter().next());
        match machine {
            Some(m) => self.show_machine(vec![m]),
            // No machine: the behaviour a designer authors most (scripts, spaces, sentence
            // states), else the first asset that has an editor, else the first asset.
            None => {
                let rank = |k: AssetKind| {
                    [
                        AssetKind::Script,
                        AssetKind::Workbook,
                        AssetKind::Space,
                        AssetKind::Sentences,
                    ]
                    .iter()
                    .position(|x| *x == k)
                    .unwrap_or(usize::MAX)
                };
                let with_panel = self
                    .project
                    .live()
                    .filter(|(_, d)| match d.kind {
                        FileKind::Asset(k) => self.panels.contains_key(&k),
                        FileKind::Manifest => false,
                    })
                    .min_by_key(|(i, d)| match d.kind {
                        FileKind::Asset(k) => (rank(k), *i),
                        FileKind::Manifest => (usize::MAX, *i),
                    });
                let any = self
                    .project
                    .live()
                    .find(|(_, d)| d.kind != FileKind::Manifest);
                self.open = with_panel.or(any).map(|(id, _)| id);
                self.trail.clear();
            }
        }
    }

    fn show_machine(&mut self, trail: Vec<String>) {
        let open = trail.last().and_then(|m| self.project.machine_doc(m));
        if open != self.open {
            self.graph.selection.clear();
        }
        self.open = open;
        self.trail = trail;
    }

    fn open_doc(&mut self, doc: DocId) {
        self.maps.hide();
        match self.project.docs[doc].state.machine() {
            Some(m) => {
                let name = m.name.clone();
                if self.trail.last() != Some(&name) {
                    self.show_machine(vec![name]);
                }
                self.open = Some(doc);
            }
            None => {
                self.open = Some(doc);
                self.trail.clear();
                self.graph.selection.clear();
            }
        }
    }

    fn edited(&mut self) {
        self.revision += 1;
        self.analysis.edited();
    }

    /// Records `changes` as one undo step.
    fn record(&mut self, label: &str, changes: project_ops::Changes, coalesce: Option<&str>) {
        if changes.is_empty() {
            return;
        }
        self.history.record(&self.project, label, changes, coalesce);
        self.edited();
    }

    fn apply_ops(&mut self, doc: DocId, ops: Vec<Op>) -> Result<(), String> {
        for op in ops {
            // The panels ask for an auto-layout from estimates; the graph knows the sizes the
            // states are drawn at.
            let op = match (op, self.project.docs[doc].state.machine()) {
                (Op::Arrange(_), Some(m)) => Op::Arrange(self.graph.arrange_measured(m)),
                (op, _) => op,
            };
            let before = self.project.docs[doc].state.clone();
            let label = op.label();
            let key = op.coalesce().map(|k| format!("{doc} {k}"));
            match machine::apply(&mut self.project.docs[doc].state, op, &self.names) {
                Ok(selection) => {
                    if let Some(sel) = selection {
                        self.graph.selection = sel;
                    }
                    self.record(&label, vec![(doc, before)], key.as_deref());
                }
                Err(e) => {
                    self.project.docs[doc].state = before;
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// After undo/redo: show the document that changed, keeping the trail if it is on it.
    fn focus(&mut self, doc: DocId) {
        let d = &self.project.docs[doc];
        if d.state.deleted {
            if self.open == Some(doc) {
                self.open_default();
            }
            return;
        }
        if let Some(m) = d.state.machine() {
            let name = m.name.clone();
            if let Some(i) = self.trail.iter().position(|t| *t == name) {
                self.trail.truncate(i + 1);
                self.open = Some(doc);
                return;
            }
        }
        self.open_doc(doc);
    }

    /// Asks the panel showing `doc` (or the text view) to reveal `target`.
    fn reveal_in_panel(&mut self, doc: DocId, target: &Reveal) {
        if let Content::Text(_) = self.project.docs[doc].state.content {
            self.pddl.reveal(target);
            return;
        }
        let panel = match self.project.docs[doc].kind {
            FileKind::Asset(k) => self.panels.get_mut(&k),
            FileKind::Manifest => Some(&mut self.manifest_panel),
        };
        match panel {
            Some(p) => p.reveal(target),
            None => self.text.reveal(target),
        }
    }

    /// The open machine and the indices of its selected states.
    fn selected_indices(&self) -> Option<(DocId, Vec<usize>)> {
        let doc = self.open?;
        let m = self.project.docs[doc].state.machine()?;
        let indices = m
            .states
            .iter()
            .enumerate()
            .filter(|(_, st)| self.graph.selection.contains(&st.name))
            .map(|(i, _)| i)
            .collect();
        Some((doc, indices))
    }

    /// After undo or redo of the same machine, keeps the selection on the same states even when
    /// the step renamed them (states keep their place in the list).
    fn reselect(&mut self, kept: Option<(DocId, Vec<usize>)>) {
        let Some((doc, indices)) = kept else { return };
        if self.open != Some(doc) {
            return;
        }
        let Some(m) = self.project.docs[doc].state.machine() else {
            return;
        };
        if self
            .graph
            .selection
            .iter()
            .all(|n| crate::machine::ops::index_of(m, n).is_some())
            && !self.graph.selection.is_empty()
        {
            return;
        }
        self.graph.selection = indices
            .iter()
            .filter_map(|&i| m.states.get(i).map(|st| st.name.clone()))
            .collect();
    }

    /// Keeps the trail true after renames, deletes and undo.
    fn repair_trail(&mut self) {
        if let Some(doc) = self.open
            && let Some(m) = self.project.docs[doc].state.machine()
            && !self.project.docs[doc].state.deleted
        {
            let name = m.name.clone();
            if self.trail.last() != Some(&name) {
                match self.trail.len() {
                    0 => self.trail.push(name),
                    n => self.trail[n - 1] = name,
                }
            }
            let machines = self.project.machine_names();
            self.trail.retain(|t| machines.contains(t));
            return;
        }
        if self
            .open
            .is_some_and(|d| self.project.docs[d].state.deleted)
        {
            self.open_default();
        }
    }

    fn autosave(&mut self) {
        if self.revision == self.autosaved.1 || self.autosaved.0.elapsed() < recovery::INTERVAL {
            return;
        }
        if recovery::write(&self.project).is_ok() {
            self.autosaved = (Instant::now(), self.revision);
            // Writing the recovery file touches the project folder: that is not a change made
            // elsewhere.
            self.watch = watch_for(&self.project);
        }
    }
}

impl EditorApp {
    /// Opens the project at `root`; a project that does not load still opens the window, with
    /// the reason and a way to open another.
    ///
    /// `path` may also be a file of a project: the project opens with that file shown.
    pub fn open(path: impl Into<PathBuf>) -> Self {
        let (root, file) = crate::document::project_of(&path.into());
        let mut app = EditorApp::empty();
        app.open_project(&root);
        if let (Some(file), Some(s)) = (file, app.session.as_mut())
            && let Some(id) = s.project.by_path(&file)
        {
            s.open_doc(id);
        }
        app
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
            allow_close: false,
            closing: false,
            themed: false,
            shown_title: String::new(),
            workbook_picker: crate::rules::excel::native_picker(),
        }
    }

    /// Asks `picker` which workbook to import (tests; a host with its own dialogs).
    pub fn with_workbook_picker(mut self, picker: crate::rules::FilePicker) -> Self {
        self.workbook_picker = picker;
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
        self.config = dir;
        self
    }

    fn open_project(&mut self, root: &Path) {
        match Project::open(root) {
            Ok(project) => {
                let recovered = recovery::find(&project.root);
                self.session = Some(Session::new(project));
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
        if ok {
            let _ = recovery::clear(&s.project.root);
            s.autosaved = (Instant::now(), s.revision);
            if let Ok(r) = &result {
                let files: Vec<String> = r.written.iter().chain(&r.removed).cloned().collect();
                s.preview.saved(&mut s.analysis, &files);
            }
        }
        s.watch = watch_for(&s.project);
        self.say(message, !ok);
        ok
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
        let trail = s.trail.clone();
        let selection = s.graph.selection.clone();
        let root = s.project.root.clone();
        if let Ok(project) = Project::open(&root) {
            let mut fresh = Session::new(project);
            fresh.show_machine(
                trail
                    .into_iter()
                    .filter(|t| fresh.project.machine_doc(t).is_some())
                    .collect(),
            );
            if fresh.open.is_none() {
                fresh.open_default();
            }
            fresh.graph.selection = selection;
            // The preview goes on, reloaded with what is on disk now.
            fresh.preview = std::mem::take(&mut s.preview);
            fresh.preview.changed_on_disk(&mut fresh.analysis);
            self.session = Some(fresh);
            self.say("Reloaded: files changed on disk", false);
        }
    }

    fn shortcuts(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let shortcut = |m: Modifiers, k: Key| KeyboardShortcut::new(m, k);
        let typing = ctx.text_edit_focused();
        // Selection keys belong to the graph of machines; other panels handle their own.
        let graph_keys = self.current_machine_name().is_some();
        ctx.input_mut(|i| {
            if i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::S)) {
                actions.push(Action::Save);
            }
            if i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::F)) {
                actions.push(Action::Find);
            }
            if i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::O)) {
                actions.push(Action::OpenDialog);
            }
            if typing {
                return;
            }
            if i.consume_shortcut(&shortcut(Modifiers::COMMAND | Modifiers::SHIFT, Key::Z))
                || i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::Y))
            {
                actions.push(Action::Redo);
            }
            if i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::Z)) {
                actions.push(Action::Undo);
            }
            if !graph_keys {
                return;
            }
            if i.consume_key(Modifiers::NONE, Key::Delete) {
                actions.push(Action::DeleteSelection);
            }
            if i.consume_key(Modifiers::NONE, Key::Escape) {
                actions.push(Action::Select(false));
            }
            if i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::A)) {
                actions.push(Action::Select(true));
            }
            let mut copy = i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::C));
            let mut paste = i.consume_shortcut(&shortcut(Modifiers::COMMAND, Key::V));
            for e in &i.events {
                match e {
                    egui::Event::Copy => copy = true,
                    egui::Event::Paste(_) => paste = true,
                    _ => {}
                }
            }
            if copy {
                actions.push(Action::Copy);
            }
            if paste {
                actions.push(Action::Paste);
            }
        });
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
        ui.horizontal(|ui| {
            ui.label(RichText::new("Ensemble").color(theme::ACCENT).strong());
            ui.separator();
            ui.menu_button("File", |ui| {
                if ui.button("New project…").clicked() {
                    actions.push(Action::NewProjectDialog);
                    ui.close();
                }
                if ui.button("Open project…   Ctrl+O").clicked() {
                    actions.push(Action::OpenDialog);
                    ui.close();
                }
                ui.menu_button("Open recent", |ui| {
                    if self.recent.is_empty() {
                        ui.label(RichText::new("none yet").italics().color(theme::TEXT_WEAK));
                    }
                    for p in &self.recent {
                        if ui.button(p.display().to_string()).clicked() {
                            actions.push(Action::OpenProject(p.clone()));
                            ui.close();
                        }
                    }
                });
                ui.separator();
                if self.session.is_some() {
                    if ui
                        .button("Import Excel workbook…")
                        .on_hover_text("Add an interaction script workbook to the project; it is edited in the rule table and saved as a workbook")
                        .clicked()
                    {
                        actions.push(Action::ImportWorkbook);
                        ui.close();
                    }
                    if ui.button("Open navigation map…").clicked() {
                        if let Some(p) = rfd::FileDialog::new()
                            .set_title("Open a MovingAI map")
                            .add_filter("MovingAI map", &["map"])
                            .pick_file()
                        {
                            actions.push(Action::OpenMap(p.display().to_string()));
                        }
                        ui.close();
                    }
                    ui.separator();
                }
                let dirty = self.is_dirty();
                if ui
                    .add_enabled(dirty, egui::Button::new("Save all   Ctrl+S"))
                    .clicked()
                {
                    actions.push(Action::Save);
                    ui.close();
                }
            });
            if let Some(s) = &self.session {
                ui.menu_button("Edit", |ui| {
                    let undo = s.history.undo_label().map(|l| format!("Undo {l}   Ctrl+Z"));
                    if ui
                        .add_enabled(
                            undo.is_some(),
                            egui::Button::new(undo.unwrap_or("Undo".into())),
                        )
                        .clicked()
                    {
                        actions.push(Action::Undo);
                        ui.close();
                    }
                    let redo = s
                        .history
                        .redo_label()
                        .map(|l| format!("Redo {l}   Ctrl+Shift+Z"));
                    if ui
                        .add_enabled(
                            redo.is_some(),
                            egui::Button::new(redo.unwrap_or("Redo".into())),
                        )
                        .clicked()
                    {
                        actions.push(Action::Redo);
                        ui.close();
                    }
                    ui.separator();
                    if ui.button("Find…   Ctrl+F").clicked() {
                        actions.push(Action::Find);
                        ui.close();
                    }
                });
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
                        ui.label(RichText::new(format!("{e} errors, {w} warnings")).color(color));
                    }
                }
                if let Some((message, at, error)) = &self.status
                    && at.elapsed() < Duration::from_secs(6)
                {
                    let color = if *error { theme::ERROR } else { theme::OK };
                    ui.label(RichText::new(message).color(color));
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
                if ui.button("New project…").clicked() {
                    actions.push(Action::NewProjectDialog);
                }
                if ui.button("Open project…").clicked() {
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
                project_panel::show(
                    ui,
                    &s.project,
                    s.open,
                    s.analysis.current.as_ref(),
                    maps,
                    actions,
                )
            });
        let bottom = Frame::new()
            .fill(theme::PANEL)
            .inner_margin(Margin::symmetric(10, 8));
        let stale = s.analysis.is_stale();
        // The bottom dock: problems, or the live preview (each keeps its own height).
        let preview = s.preview.tab == crate::preview::DockTab::Preview;
        Panel::bottom(if preview { "preview" } else { "diagnostics" })
            .frame(bottom)
            .resizable(true)
            .default_size(if preview { 400.0 } else { 150.0 })
            .min_size(if preview { 200.0 } else { 70.0 })
            .show(ui, |ui| {
                if s.preview.tabs(ui, s.analysis.current.as_ref()) {
                    s.graph.fit();
                }
                if preview {
                    s.preview.ui(ui, &s.analysis, actions);
                } else {
                    // Keep the height the user dragged to (a panel shrinks to its contents).
                    ui.set_min_size(ui.available_size());
                    diagnostics_panel::show(ui, s.analysis.current.as_ref(), stale, actions)
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
                        let cx = InspectorCx {
                            names: &s.names,
                            diagnostics: &diagnostics,
                            lines: &s.lines,
                        };
                        let out = s.inspector.show(ui, &m, &s.graph, &cx);
                        if !out.ops.is_empty() {
                            actions.push(Action::Ops(doc, out.ops));
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

    /// The central area: the open map, machine or asset.
    fn central(
        s: &mut Session,
        ui: &mut Ui,
        open: Option<DocId>,
        is_machine: bool,
        diagnostics: &[&Located],
        actions: &mut Vec<Action>,
    ) {
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
                        let ops = s.graph.toolbar(ui, m, &d.state.layout, &s.names);
                        if !ops.is_empty() {
                            actions.push(Action::Ops(doc, ops));
                        }
                    }
                    ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                        ui.label(
                            RichText::new(
                                "drag + to connect · Shift+drag to select · double-click ⏵ to open",
                            )
                            .color(theme::TEXT_WEAK)
                            .small(),
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
        let cx = GraphCx {
            names: &s.names,
            diagnostics,
            lines: &s.lines,
            live: live.as_ref(),
        };
        let out = s.graph.show(ui, doc, m, &d.state.layout, &cx);
        if !out.ops.is_empty() {
            actions.push(Action::Ops(doc, out.ops));
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
    }

    /// Any asset but a machine: its kind's panel when one is plugged in, else the read-only
    /// text view. The host snapshots the value around the panel and records what changed.
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
        let before = s.project.docs[doc].state.clone();
        let mut edited = None;
        {
            let d = &s.project.docs[doc];
            let compiled = s.analysis.current.as_ref().and_then(|r| {
                let c = r.compilation.as_ref().ok()?;
                Some(crate::asset_panel::Compiled {
                    diagnostics: &r.all,
                    sources: &c.sources,
                    file: c
                        .sources
                        .iter()
                        .find(|(_, f)| f.name == d.state.path)
                        .map(|(id, _)| id),
                    module: Some(&c.module),
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
            s.project.docs[doc].state.content = content;
            s.project.docs[doc].state.layout = layout;
            // Typing in one field is one step: the gesture is keyed by the focused widget.
            let focus = ui.ctx().memory(|m| m.focused());
            let key = format!("panel {doc} {focus:?}");
            let label = format!("edit {}", s.project.docs[doc].title());
            s.record(&label, vec![(doc, before)], Some(&key));
        }
        for r in requests.into_inner() {
            match r {
                Request::OpenMachine(m) => actions.push(Action::EnterMachine(m)),
                Request::Open(path) => {
                    if let Some(id) = s.project.by_path(&path) {
                        actions.push(Action::OpenDoc(id));
                    }
                }
                Request::Rename { what, old, new } => {
                    actions.push(Action::Rename(what, old, new));
                }
                Request::ShowMap(path) => actions.push(Action::OpenMap(path)),
            }
        }
    }

    fn modal_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let Some(mut modal) = self.modal.take() else {
            return;
        };
        let modal_ref = &mut modal;
        let mut close = false;
        let frame = Frame::popup(&ctx.global_style()).inner_margin(Margin::same(16));
        let response = egui::Modal::new(egui::Id::new("modal")).frame(frame).show(ctx, |ui| {
            ui.set_width(440.0);
            match modal_ref {
                Modal::Open { path, error } => {
                    ui.label(RichText::new("Open project").heading());
                    ui.label(RichText::new("The folder that holds Ensemble.ron").color(theme::TEXT_WEAK));
                    let r = ui.add(egui::TextEdit::singleline(path).desired_width(f32::INFINITY).hint_text("/path/to/project"));
                    r.request_focus();
                    if let Some(e) = error {
                        ui.label(RichText::new(e.as_str()).color(theme::ERROR));
                    }
                    ui.horizontal(|ui| {
                        if ui.button("Open").clicked() || ui.input(|i| i.key_pressed(Key::Enter)) {
                            let p = PathBuf::from(path.trim());
                            if p.join(ensemble_compiler::project::MANIFEST).is_file() {
                                actions.push(Action::OpenProject(p));
                                close = true;
                            } else {
                                *error = Some(format!("{}: no Ensemble.ron here", p.display()));
                            }
                        }
                        if ui.button("Browse…").clicked()
                            && let Some(p) = rfd::FileDialog::new().set_title("Open an Ensemble project").pick_folder()
                        {
                            *path = p.display().to_string();
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                }
                Modal::NewProject { folder, name, error } => {
                    ui.label(RichText::new("New project").heading());
                    ui.label(RichText::new("Name").color(theme::TEXT_WEAK));
                    ui.add(egui::TextEdit::singleline(name).desired_width(f32::INFINITY).hint_text("my-project"));
                    ui.label(RichText::new("Folder (created if missing)").color(theme::TEXT_WEAK));
                    ui.add(egui::TextEdit::singleline(folder).desired_width(f32::INFINITY).hint_text("/path/to/my-project"));
                    if let Some(e) = error {
                        ui.label(RichText::new(e.as_str()).color(theme::ERROR));
                    }
                    ui.horizontal(|ui| {
                        if ui.button("Create").clicked() {
                            let root = PathBuf::from(folder.trim());
                            let project_name = if name.trim().is_empty() {
                                root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
                            } else {
                                name.trim().to_string()
                            };
                            if folder.trim().is_empty() || project_name.is_empty() {
                                *error = Some("give the project a folder".into());
                            } else {
                                match Project::create(&root, &project_name) {
                                    Ok(_) => {
                                        actions.push(Action::OpenProject(root));
                                        close = true;
                                    }
                                    Err(e) => *error = Some(e),
                                }
                            }
                        }
                        if ui.button("Browse…").clicked()
                            && let Some(p) = rfd::FileDialog::new().set_title("Folder for the new project").pick_folder()
                        {
                            *folder = p.display().to_string();
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                }
                Modal::NewAsset { kind, name, error } => {
                    ui.label(RichText::new(format!("New {}", kind.noun())).heading());
                    let r = ui.add(egui::TextEdit::singleline(name).desired_width(f32::INFINITY).hint_text("name"));
                    r.request_focus();
                    if let Some(e) = error {
                        ui.label(RichText::new(e.as_str()).color(theme::ERROR));
                    }
                    ui.horizontal(|ui| {
                        let enter = ui.input(|i| i.key_pressed(Key::Enter));
                        if ui.button("Create").clicked() || enter {
                            let kind = *kind;
                            let n = name.trim().to_string();
                            if let Some(s) = self.session.as_mut() {
                                match project_ops::start(&mut s.project, kind, &n) {
                                    Ok((id, changes)) => {
                                        s.record(&format!("new {}", kind.noun()), changes, None);
                                        s.open_doc(id);
                                        close = true;
                                    }
                                    Err(e) => *error = Some(e),
                                }
                            }
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                }
                Modal::Rename { doc, name, error } => {
                    ui.label(RichText::new("Rename").heading());
                    let r = ui.add(egui::TextEdit::singleline(name).desired_width(f32::INFINITY));
                    r.request_focus();
                    if let Some(e) = error {
                        ui.label(RichText::new(e.as_str()).color(theme::ERROR));
                    }
                    ui.horizontal(|ui| {
                        let enter = ui.input(|i| i.key_pressed(Key::Enter));
                        if (ui.button("Rename").clicked() || enter)
                            && let Some(s) = self.session.as_mut()
                        {
                            let doc = *doc;
                            let result = if s.project.docs[doc].state.machine().is_some() {
                                project_ops::rename_machine(&mut s.project, doc, name, &s.names)
                            } else {
                                project_ops::rename_file(&mut s.project, doc, name.trim())
                            };
                            match result {
                                Ok(changes) => {
                                    s.record("rename", changes, None);
                                    close = true;
                                }
                                Err(e) => *error = Some(e),
                            }
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                }
                Modal::ConfirmDelete(doc) => {
                    let Some(s) = self.session.as_mut() else { return };
                    let title = s.project.docs[*doc].state.path.clone();
                    ui.label(RichText::new(format!("Delete {title}?")).heading());
                    ui.label(RichText::new("The file is removed when you save. Undo brings it back.").color(theme::TEXT_WEAK));
                    ui.horizontal(|ui| {
                        if ui.button(RichText::new("Delete").color(theme::ERROR)).clicked() {
                            let changes = project_ops::delete(&mut s.project, *doc);
                            s.record(&format!("delete {title}"), changes, None);
                            close = true;
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                }
                Modal::Recovery(r) => {
                    ui.label(RichText::new("Restore unsaved changes?").heading());
                    ui.label(
                        RichText::new(format!(
                            "The editor closed without saving {} file{}. Restore them as they were?",
                            r.docs.len(),
                            if r.docs.len() == 1 { "" } else { "s" }
                        ))
                        .color(theme::TEXT),
                    );
                    for d in &r.docs {
                        ui.label(RichText::new(format!("  {}", d.path)).monospace().color(theme::TEXT_WEAK));
                    }
                    ui.horizontal(|ui| {
                        if ui.button("Restore").clicked() {
                            if let Some(s) = self.session.as_mut() {
                                let changes = recovery::apply(&mut s.project, r);
                                s.record("restore unsaved changes", changes, None);
                            }
                            close = true;
                        }
                        if ui.button("Discard").clicked() {
                            if let Some(s) = &self.session {
                                let _ = recovery::clear(&s.project.root);
                            }
                            close = true;
                        }
                    });
                }
                Modal::Close => {
                    let n = self.project().map_or(0, Project::dirty_count);
                    ui.label(RichText::new("Save changes before closing?").heading());
                    ui.label(
                        RichText::new(format!("{n} file{} ha{} unsaved changes.", if n == 1 { "" } else { "s" }, if n == 1 { "s" } else { "ve" }))
                            .color(theme::TEXT),
                    );
                    ui.horizontal(|ui| {
                        if ui.button("Save").clicked() {
                            close = true;
                            actions.push(Action::Save);
                            self.allow_close = true;
                            self.closing = true;
                        }
                        if ui.button("Don't save").clicked() {
                            close = true;
                            self.allow_close = true;
                            self.closing = true;
                            if let Some(s) = &self.session {
                                let _ = recovery::clear(&s.project.root);
                            }
                            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                        }
                        if ui.button("Cancel").clicked() {
                            close = true;
                        }
                    });
                }
                Modal::Find { query, selected } => {
                    ui.label(RichText::new("Find").heading());
                    let r = ui.add(
                        egui::TextEdit::singleline(query)
                            .id(egui::Id::new("find-query"))
                            .desired_width(f32::INFINITY)
                            .hint_text("a state, machine, rule… by name"),
                    );
                    r.request_focus();
                    let hits = self
                        .session
                        .as_ref()
                        .map(|s| find::search(&find::index(&s.project), query, 12))
                        .unwrap_or_default();
                    let (down, up, enter) = ui.input(|i| (i.key_pressed(Key::ArrowDown), i.key_pressed(Key::ArrowUp), i.key_pressed(Key::Enter)));
                    if down {
                        *selected = (*selected + 1).min(hits.len().saturating_sub(1));
                    }
                    if up {
                        *selected = selected.saturating_sub(1);
                    }
                    if query.trim().is_empty() {
                        ui.label(RichText::new("Type a name.").color(theme::TEXT_WEAK));
                    } else if hits.is_empty() {
                        ui.label(RichText::new("Nothing by that name.").color(theme::TEXT_WEAK));
                    }
                    for (i, h) in hits.iter().enumerate() {
                        let text = format!("{}  ·  {} in {}", h.name, h.kind, h.context);
                        if ui.selectable_label(i == *selected, text).clicked() || (enter && i == *selected) {
                            actions.push(Action::Jump(h.clone()));
                            close = true;
                        }
                    }
                    if ui.input(|i| i.key_pressed(Key::Escape)) {
                        close = true;
                    }
                }
            }
        });
        if response.should_close() && !matches!(modal, Modal::Recovery(_) | Modal::Close) {
            close = true;
        }
        // An action of the modal may have opened another one (it wins).
        if !close && self.modal.is_none() {
            self.modal = Some(modal);
        }
    }

    fn apply(&mut self, action: Action, ctx: &egui::Context) {
        match action {
            Action::Save => {
                let ok = self.save();
                if ok && self.closing {
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                } else if !ok {
                    self.closing = false;
                    self.allow_close = false;
                }
            }
            Action::OpenDialog => {
                self.modal = Some(Modal::Open {
                    path: self
                        .project()
                        .map(|p| p.root.display().to_string())
                        .unwrap_or_default(),
                    error: None,
                })
            }
            Action::NewProjectDialog => {
                self.modal = Some(Modal::NewProject {
                    folder: String::new(),
                    name: String::new(),
                    error: None,
                })
            }
            Action::OpenProject(path) => {
                if self.is_dirty() {
                    self.say(
                        "Save or undo your changes before opening another project.",
                        true,
                    );
                } else {
                    self.open_project(&path);
                }
            }
            Action::Find => {
                if self.session.is_some() {
                    self.modal = Some(Modal::Find {
                        query: String::new(),
                        selected: 0,
                    })
                }
            }
            Action::NewAsset(kind) => {
                self.modal = Some(Modal::NewAsset {
                    kind,
                    name: String::new(),
                    error: None,
                })
            }
            Action::AskRename(doc) => {
                let name = self.project().map(|p| {
                    p.docs[doc]
                        .state
                        .machine()
                        .map_or_else(|| p.docs[doc].title(), |m| m.name.clone())
                });
                self.modal = Some(Modal::Rename {
                    doc,
                    name: name.unwrap_or_default(),
                    error: None,
                })
            }
            Action::AskDelete(doc) => self.modal = Some(Modal::ConfirmDelete(doc)),
            Action::ImportWorkbook => {
                let Some(path) = (self.workbook_picker)(&crate::rules::FileRequest::Import) else {
                    return;
                };
                let Some(s) = self.session.as_mut() else {
                    return;
                };
                match project_ops::import_workbook(&mut s.project, &path) {
                    Ok((doc, changes, report)) => {
                        s.record(&format!("import {}", path.display()), changes, None);
                        s.open_doc(doc);
                        self.say(report, false);
                    }
                    Err(e) => self.say(format!("Cannot import {}: {e}", path.display()), true),
                }
            }
            _ => {
                let copy = matches!(action, Action::Copy);
                let Some(s) = self.session.as_mut() else {
                    return;
                };
                let message = Self::apply_to_session(s, action);
                if let Some((m, e)) = message {
                    if copy
                        && !e
                        && let Some(text) = self.clipboard_text()
                    {
                        ctx.copy_text(text);
                    }
                    self.say(m, e);
                }
            }
        }
    }

    /// Applies an action on the open project; returns a status message.
    fn apply_to_session(s: &mut Session, action: Action) -> Option<(String, bool)> {
        match action {
            Action::OpenDoc(doc) => s.open_doc(doc),
            Action::EnterMachine(name) => {
                if s.project.machine_doc(&name).is_some() {
                    let mut trail = s.trail.clone();
                    match trail.iter().position(|t| *t == name) {
                        Some(i) => trail.truncate(i + 1),
                        None => trail.push(name),
                    }
                    s.show_machine(trail);
                } else {
                    return Some((format!("There is no machine called {name}."), true));
                }
            }
            Action::Crumb(i) => {
                let mut trail = s.trail.clone();
                trail.truncate(i + 1);
                s.show_machine(trail);
            }
            Action::Follow(stack) => {
                let trail: Vec<String> = stack
                    .into_iter()
                    .filter(|m| s.project.machine_doc(m).is_some())
                    .collect();
                if !trail.is_empty() && trail != s.trail {
                    s.show_machine(trail);
                }
            }
            Action::Reveal(l) => {
                let doc = l.file.as_deref().and_then(|f| s.project.by_path(f))?;
                s.open_doc(doc);
                if s.project.docs[doc].state.machine().is_some() {
                    match (&l.item, l.list()) {
                        (Some(state), Some("states")) => s.graph.reveal(state),
                        _ => {
                            s.graph.selection.clear();
                            s.graph.fit();
                        }
                    }
                } else if let (Content::Text(_), Some(line)) =
                    (&s.project.docs[doc].state.content, l.line)
                {
                    // PDDL has no RON path: the cursor goes to the line and column.
                    s.pddl.reveal_at(line, l.column.unwrap_or(1));
                } else {
                    s.reveal_in_panel(doc, &Reveal::Path(l.path.clone()));
                }
            }
            Action::Jump(hit) => {
                s.open_doc(hit.doc);
                match (
                    &hit.reveal,
                    s.project.docs[hit.doc].state.machine().is_some(),
                ) {
                    (Some(Reveal::Item { name, .. }), true) => s.graph.reveal(name),
                    (Some(r), false) => s.reveal_in_panel(hit.doc, r),
                    _ => {}
                }
            }
            Action::Ops(doc, ops) => {
                if let Err(e) = s.apply_ops(doc, ops) {
                    s.inspector.refused(e.clone());
                    return Some((e, true));
                }
            }
            Action::RenameMachine(doc, new) => {
                match project_ops::rename_machine(&mut s.project, doc, &new, &s.names) {
                    Ok(changes) => {
                        s.inspector.machine_refused(None);
                        s.record(&format!("rename machine to {new}"), changes, None);
                    }
                    Err(e) => {
                        s.inspector.machine_refused(Some(e.clone()));
                        return Some((e, true));
                    }
                }
            }
            Action::Undo | Action::Redo => {
                let undo = matches!(action, Action::Undo);
                let kept = s.selected_indices();
                let doc = if undo {
                    s.history.undo(&mut s.project)
                } else {
                    s.history.redo(&mut s.project)
                };
                let Some(doc) = doc else {
                    let what = if undo { "undo" } else { "redo" };
                    return Some((format!("Nothing to {what}"), false));
                };
                s.edited();
                s.focus(doc);
                s.reselect(kept);
            }
            Action::OpenMap(path) => {
                let root = s.project.root.clone();
                s.maps.show(&root, &path);
                s.open = None;
                s.trail.clear();
            }
            Action::Rename(what, old, new) => {
                match crate::rename::apply(&mut s.project, &s.names, &what, &old, &new) {
                    Ok(changes) => {
                        s.record(&format!("rename {old} to {new}"), changes, None);
                    }
                    Err(e) => return Some((format!("Cannot rename {old}: {e}"), true)),
                }
            }
            Action::Select(all) => {
                let doc = s.open?;
                let m = s.project.docs[doc].state.machine()?;
                s.graph.selection = if all {
                    m.states.iter().map(|st| st.name.clone()).collect()
                } else {
                    BTreeSet::new()
                };
            }
            Action::DeleteSelection => {
                let doc = s.open?;
                let m = s.project.docs[doc].state.machine()?;
                let selected = s.graph.selected_states(m);
                if !selected.is_empty() {
                    let _ = s.apply_ops(doc, vec![Op::Delete(selected)]);
                }
            }
            Action::Copy => {
                let doc = s.open?;
                let d = &s.project.docs[doc];
                let m = d.state.machine()?;
                let selected = s.graph.selected_states(m);
                if selected.is_empty() {
                    return None;
                }
                let mut layout = d.state.layout.clone();
                for name in &selected {
                    let p = s.graph.position(&d.state.layout, name);
                    layout.set(name, p);
                }
                let clip = Clip::of(m, &layout, &selected);
                s.clipboard = Some(clip);
                return Some((
                    format!(
                        "Copied {} state{}",
                        selected.len(),
                        if selected.len() == 1 { "" } else { "s" }
                    ),
                    false,
                ));
            }
            Action::Paste => {
                let doc = s.open?;
                s.project.docs[doc].state.machine()?;
                let clip = s.clipboard.clone()?;
                let _ = s.apply_ops(
                    doc,
                    vec![Op::Paste {
                        clip,
                        offset: [40.0, 40.0],
                    }],
                );
            }
            _ => {}
        }
        None
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
