//! An open project and everything about editing it ([`Session`]): its documents, the history,
//! the background compile, the names pickers offer, the graph and inspector state.

use crate::analysis::Analysis;
use crate::document::{Content, DocId, Project, Reveal};
use crate::history::History;
use crate::machine::inspector::Inspector;
use crate::machine::ops::Clip;
use crate::machine::{self, Edit, GraphView};
use crate::names::{ProjectNames, names_from};
use crate::panel::{AssetPanel, KindPanel};
use crate::recovery;
use crate::text_view::TextPanel;
use crate::watch::SourceWatch;
use ensemble_compiler::Compilation;
use ensemble_compiler::formats::ron::AssetKind;
use ensemble_compiler::formats::ron::{AnyAsset, FileKind};
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

/// An open project and everything about editing it.
pub struct Session {
    pub project: Project,
    pub history: History,
    pub analysis: Analysis,
    pub names: ProjectNames,
    /// Best line of each sentence state (dialog nodes show it).
    pub lines: HashMap<String, String>,
    pub(super) names_at: Option<(u64, u64)>,
    /// The document shown in the centre.
    pub open: Option<DocId>,
    /// Breadcrumbs: machine names, the last shown.
    pub trail: Vec<String>,
    pub graph: GraphView,
    pub(super) inspector: Inspector,
    pub(super) text: TextPanel,
    /// The panels of asset kinds that have one (see `app::registry::plugged`).
    pub(super) panels: HashMap<AssetKind, Box<dyn KindPanel>>,
    /// The manifest's form (the manifest is no asset kind).
    pub(super) manifest_panel: Box<dyn KindPanel>,
    /// The project's navigation maps, and the one shown instead of a document.
    pub maps: crate::maps::Maps,
    /// The editor of text sources without a RON shape (PDDL).
    pub(super) pddl: crate::planning::pddl::PddlPanel,
    /// Bumped by every change of any document.
    pub revision: u64,
    pub(super) autosaved: (Instant, u64),
    pub(super) watch: SourceWatch,
    pub(super) clipboard: Option<Clip>,
    /// The live preview of a scene (the bottom dock's second tab).
    pub preview: crate::preview::Preview,
    /// Lines × locales (the bottom dock's Localisation tab).
    pub localisation: crate::localisation::View,
    /// The project's content tests (the bottom dock's third tab).
    pub tests: crate::tests_panel::TestsPanel,
    /// The judging pass over every sentence state, shown instead of a document.
    pub judge: crate::sentences::judge::JudgeView,
    /// "How do I get here?": the search for a play reaching a state, line or rule.
    pub reach: crate::reach::ReachPanel,
}

pub(super) fn lines_from(c: Option<&Compilation>) -> HashMap<String, String> {
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

pub(super) fn watch_for(project: &Project) -> SourceWatch {
    let mut paths = vec![project.root.clone()];
    for (_, d) in project.live() {
        let full = project.root.join(&d.saved.path);
        paths.extend(full.parent().map(Path::to_path_buf));
        paths.push(full);
    }
    SourceWatch::new(paths)
}

impl Session {
    pub(super) fn new(project: Project) -> Session {
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
            panels: super::registry::plugged().into_iter().collect(),
            manifest_panel: crate::record_forms::manifest_panel(),
            maps,
            pddl: Default::default(),
            revision: 0,
            autosaved: (Instant::now(), 0),
            watch,
            clipboard: None,
            preview: Default::default(),
            localisation: Default::default(),
            tests: Default::default(),
            judge: Default::default(),
            reach: Default::default(),
        };
        s.refresh_names();
        s.open_default();
        s
    }

    pub(super) fn compilation(&self) -> Option<&Compilation> {
        self.analysis
            .current
            .as_ref()
            .and_then(|r| r.compilation.as_ref().ok())
    }

    pub(super) fn refresh_names(&mut self) {
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
    pub(super) fn open_default(&mut self) {
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

    pub(super) fn show_machine(&mut self, trail: Vec<String>) {
        let open = trail.last().and_then(|m| self.project.machine_doc(m));
        if open != self.open {
            self.graph.selection.clear();
        }
        self.open = open;
        self.trail = trail;
    }

    pub(super) fn open_doc(&mut self, doc: DocId) {
        self.maps.hide();
        self.judge.hide();
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

    pub(super) fn edited(&mut self) {
        self.revision += 1;
        self.analysis.edited();
    }

    /// Records `changes` as one undo step.
    pub(super) fn record(
        &mut self,
        label: &str,
        changes: crate::document::Changes,
        coalesce: Option<&str>,
    ) {
        if changes.is_empty() {
            return;
        }
        self.history.record(&self.project, label, changes, coalesce);
        self.edited();
    }

    pub(super) fn apply_edits(&mut self, doc: DocId, edits: Vec<Edit>) -> Result<(), String> {
        for edit in edits {
            let before = self.project.docs[doc].state.clone();
            let label = edit.label();
            let key = edit.coalesce().map(|k| format!("{doc} {k}"));
            // A whole new arrangement is looked at whole (it may lie far from the old view).
            let arranged = matches!(edit, Edit::Arrange(_));
            match machine::apply(&mut self.project.docs[doc].state, edit, &self.names) {
                Ok(selection) => {
                    if arranged {
                        self.graph.fit();
                    }
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
    pub(super) fn focus(&mut self, doc: DocId) {
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
    pub(super) fn reveal_in_panel(&mut self, doc: DocId, target: &Reveal) {
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
    pub(super) fn selected_indices(&self) -> Option<(DocId, Vec<usize>)> {
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
    pub(super) fn reselect(&mut self, kept: Option<(DocId, Vec<usize>)>) {
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
    pub(super) fn repair_trail(&mut self) {
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

    pub(super) fn autosave(&mut self) {
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
