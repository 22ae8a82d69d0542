//! Where what the user asked for during a frame ([`Action`]) is carried out: after the frame
//! is drawn, in one place that records every change for undo and marks documents dirty.

use super::*;
use crate::file_dialog::{Answer, Ask};

impl EditorApp {
    /// Asks `ask` by a typed path (relative to the project), for `what`.
    fn ask_typed(&mut self, ask: Ask, what: PathFor) {
        let base = self.project().map(|p| p.root.clone());
        self.modal = Some(Modal::TypedPath {
            typed: crate::file_dialog::Typed::new(ask, base),
            then: what,
        });
    }

    pub(super) fn apply(&mut self, action: Action, ctx: &egui::Context) {
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
                    self.open_path(&path);
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
            Action::AskFile(what) => {
                let ask = what.ask();
                match (self.dialogs)(&ask) {
                    Answer::Path(p) => self.apply(what.then(p), ctx),
                    Answer::Cancelled => {}
                    Answer::NoDialog => self.ask_typed(ask, what),
                }
            }
            Action::ImportWorkbook => {
                let request = crate::rules::FileRequest::Import;
                match (self.workbook_picker)(&request) {
                    Answer::Path(p) => self.apply(Action::ImportWorkbookFrom(p), ctx),
                    Answer::Cancelled => {}
                    Answer::NoDialog => self.ask_typed(request.ask(), PathFor::Workbook),
                }
            }
            Action::ExportStringsTo(path) => {
                let Some(s) = self.session.as_ref() else {
                    return;
                };
                let locale = s.localisation.chosen_locale();
                let said = crate::localisation::export(s.analysis.current.as_ref(), locale, &path);
                let error = said.is_err();
                self.say(said.unwrap_or_else(|e| e), error);
            }
            Action::ImportStringsFrom(path) => {
                let Some(s) = self.session.as_mut() else {
                    return;
                };
                let locale = s.localisation.chosen_locale();
                match crate::localisation::imported(s.analysis.current.as_ref(), locale, &path) {
                    Ok((target, table, said)) => {
                        let (_, changes) =
                            project_ops::set_strings_table(&mut s.project, &target, table);
                        s.record(&format!("import {}", path.display()), changes, None);
                        self.say(said, false);
                    }
                    Err(e) => self.say(format!("Cannot import {}: {e}", path.display()), true),
                }
            }
            Action::Translate { locale, id, text } => {
                let Some(s) = self.session.as_mut() else {
                    return;
                };
                let report = s.analysis.current.as_ref();
                match crate::localisation::translated(report, &locale, &id, &text) {
                    Ok((target, table)) => {
                        let (_, changes) =
                            project_ops::set_strings_table(&mut s.project, &target, table);
                        s.record(&format!("translate {id} ({locale})"), changes, None);
                    }
                    Err(e) => self.say(format!("Cannot translate {id}: {e}"), true),
                }
            }
            Action::ImportWorkbookFrom(path) => {
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

    /// Edits the source `l` was found in as `fix` says, as one undoable step. The edit is made
    /// on the text the compiler read, so it is refused while that text is behind the document.
    fn quick_fix(
        s: &mut Session,
        l: &Located,
        fix: crate::quick_fix::QuickFix,
    ) -> Option<(String, bool)> {
        let path = l.file.as_deref()?;
        let doc = s.project.by_path(path)?;
        let compiled = s.analysis.current.as_ref()?.compilation.as_ref().ok()?;
        let text = compiled
            .sources
            .iter()
            .find(|(_, f)| f.name == path)?
            .1
            .text
            .clone();
        let edited = (!s.analysis.is_stale())
            .then(|| fix.apply(&l.diagnostic, &text))
            .flatten();
        let Some(edited) = edited else {
            return Some(("The file changed since this problem was found: nothing was edited. Try again once it is checked.".into(), true));
        };
        let d = &s.project.docs[doc];
        let before = d.state.clone();
        s.project.docs[doc].state =
            crate::document::DocState::from_text(path, d.kind, edited, d.state.layout.clone());
        let label = format!(
            "{} ({})",
            fix.title(&l.diagnostic),
            l.diagnostic.code.as_str()
        );
        s.record(&label, vec![(doc, before)], None);
        None
    }

    /// Applies an action on the open project; returns a status message.
    pub(super) fn apply_to_session(s: &mut Session, action: Action) -> Option<(String, bool)> {
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
            Action::QuickFix(l, fix) => return Self::quick_fix(s, &l, fix),
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
            Action::Edit(doc, DocEdit::Machine(edits)) => {
                if let Err(e) = s.apply_edits(doc, edits) {
                    s.inspector.refused(e.clone());
                    return Some((e, true));
                }
            }
            Action::Edit(doc, DocEdit::Value(edit)) => {
                let ValueEdit {
                    content,
                    layout,
                    gesture,
                    label,
                } = *edit;
                let before = s.project.docs[doc].state.clone();
                s.project.docs[doc].state.content = content;
                s.project.docs[doc].state.layout = layout;
                let label =
                    label.unwrap_or_else(|| format!("edit {}", s.project.docs[doc].title()));
                s.record(&label, vec![(doc, before)], Some(&gesture));
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
                // A judgement taken back in the judging view stays in the view.
                let judging = s.judge.is_shown()
                    && s.project.docs[doc].kind == FileKind::Asset(AssetKind::Sentences);
                if !judging {
                    s.focus(doc);
                }
                s.reselect(kept);
            }
            Action::OpenTrace(path) => {
                s.preview.open_trace(&path);
                s.preview.tab = crate::preview::DockTab::Preview;
            }
            Action::Reach(asked) => {
                let root = s.project.root.clone();
                let preferred = s.preview.scene.clone();
                s.reach.ask(
                    asked,
                    s.analysis.current.as_ref(),
                    crate::preview::program_of,
                    &root,
                    preferred.as_deref(),
                );
            }
            Action::JudgeLines => {
                s.maps.hide();
                s.judge.show();
                s.open = None;
                s.trail.clear();
            }
            Action::OpenMap(path) => {
                let root = s.project.root.clone();
                s.judge.hide();
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
            Action::Arrange => {
                let doc = s.open?;
                let m = s.project.docs[doc].state.machine()?;
                let edit = Edit::Arrange(s.graph.arrange_measured(m));
                let _ = s.apply_edits(doc, vec![edit]);
            }
            Action::DeleteSelection => {
                let doc = s.open?;
                let m = s.project.docs[doc].state.machine()?;
                let selected = s.graph.selected_states(m);
                // Asks first when transitions into them go too.
                if !selected.is_empty()
                    && let Some(edit) = s.graph.request_delete(m, selected)
                {
                    let _ = s.apply_edits(doc, vec![edit]);
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
                let _ = s.apply_edits(
                    doc,
                    vec![Edit::Paste {
                        clip,
                        offset: [40.0, 40.0],
                    }],
                );
            }
            _ => {}
        }
        None
    }
}
