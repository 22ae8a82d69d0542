//! The dialogs in front of everything ([`Modal`]): open a project, new asset, rename, delete,
//! restore after a crash, close with unsaved changes.

use super::*;
use crate::file_dialog::{Answer, Ask, Pick};

/// Why a Browse… button left its field as it was, when the system has no dialog.
const NO_DIALOG: &str = "No file dialog is available here: type the path above.";

/// A folder from the system's dialog for a Browse… button, or why there is none.
fn browse(
    dialogs: &mut crate::file_dialog::Dialogs,
    title: &str,
    pick: Pick,
) -> Result<Option<PathBuf>, String> {
    match dialogs(&Ask::new(title, pick)) {
        Answer::Path(p) => Ok(Some(p)),
        Answer::Cancelled => Ok(None),
        Answer::NoDialog => Err(NO_DIALOG.into()),
    }
}

impl EditorApp {
    pub(super) fn modal_ui(&mut self, ctx: &egui::Context, actions: &mut Vec<Action>) {
        let Some(mut modal) = self.modal.take() else {
            return;
        };
        if let Modal::TypedPath { typed, then } = &mut modal {
            match typed.show(ctx) {
                Some(Some(path)) => actions.push(then.then(path)),
                Some(None) => {}
                None => self.modal = Some(modal),
            }
            return;
        }
        let modal_ref = &mut modal;
        let mut close = false;
        let frame = Frame::popup(&ctx.global_style()).inner_margin(Margin::same(16));
        let response = egui::Modal::new(egui::Id::new("modal")).frame(frame).show(ctx, |ui| {
            ui.set_width(440.0);
            match modal_ref {
                Modal::Open { path, error } => {
                    ui.label(RichText::new("Open project").heading());
                    ui.label(RichText::new("The folder that holds Ensemble.ron, or a file in it").color(theme::TEXT_WEAK));
                    let r = ui.add(egui::TextEdit::singleline(path).desired_width(f32::INFINITY).hint_text("/path/to/project"));
                    r.request_focus();
                    if let Some(e) = error {
                        ui.label(RichText::new(e.as_str()).color(theme::ERROR));
                    }
                    ui.horizontal(|ui| {
                        if ui.button("Open").clicked() || ui.input(|i| i.key_pressed(Key::Enter)) {
                            let p = PathBuf::from(path.trim());
                            let (root, _) = crate::document::project_of(&p);
                            if root.join(ensemble_compiler::project::MANIFEST).is_file() {
                                actions.push(Action::OpenProject(p));
                                close = true;
                            } else {
                                *error = Some(format!("{}: no Ensemble.ron here", p.display()));
                            }
                        }
                        if ui.button("Browse…").clicked() {
                            match browse(&mut self.dialogs, "Open an Ensemble project", Pick::Folder) {
                                Ok(Some(p)) => *path = p.display().to_string(),
                                Ok(None) => {}
                                Err(e) => *error = Some(e),
                            }
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
                        if ui.button("Browse…").clicked() {
                            match browse(&mut self.dialogs, "Folder for the new project", Pick::NewFolder) {
                                Ok(Some(p)) => *folder = p.display().to_string(),
                                Ok(None) => {}
                                Err(e) => *error = Some(e),
                            }
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
                // Drawn by itself, above.
                Modal::TypedPath { .. } => {}
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
}
