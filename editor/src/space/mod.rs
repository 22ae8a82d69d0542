//! The HMM space editor (Zubek's spaces, `*.space.ron`): the space as a graph on the same
//! egui-snarl infrastructure as machines ([`crate::graph`]) — states as nodes, p(s' | s) on the
//! wires, each state's row sum with a one-click normalise, the initial and disable states
//! marked, problems on the nodes and wires they name — and an inspector for the space's model
//! dependency and the selected state's expectations, action and row.
//!
//! It is a [`GraphPanel`]: it edits the asset and the node positions (saved in
//! `*.space.layout.ron` beside it) in place; the host records, saves and recompiles. Renames
//! go to the host ([`crate::rename`]) so inspections of the state in other files follow.

pub mod inspector;
pub mod ops;
pub mod view;

use crate::form_widgets::Diags;
use crate::graph::viewer::Marks;
use crate::panel::{GraphPanel, PanelCx, Reveal};
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::locate::PathSeg;
use ensemble_compiler::formats::spaces::SpaceAsset;
pub use ops::Edit;
use std::collections::BTreeSet;
use view::{SpaceView, ViewCx};

/// Applies `edit`; returns the selection it leaves, when it changes it.
pub fn apply(sp: &mut SpaceAsset, layout: &mut Layout, edit: Edit) -> Option<BTreeSet<String>> {
    match edit {
        Edit::AddState { at, from, keep } => {
            for (state, p) in keep {
                if layout.get(&state).is_none() {
                    layout.set(&state, p);
                }
            }
            let name = ops::add_state(sp, layout, at, from);
            return Some([name].into());
        }
        Edit::Delete(names) => {
            ops::delete_states(sp, layout, &names);
            return Some(BTreeSet::new());
        }
        Edit::Duplicate(names) => {
            let new = ops::duplicate(sp, layout, &names, [30.0, 30.0]);
            return Some(new.into_iter().collect());
        }
        Edit::SetP { state, index, p } => ops::set_p(sp, &state, index, p),
        Edit::AddTransition { from, to } => {
            ops::add_transition(sp, &from, &to);
        }
        Edit::RemoveTransition { state, index } => ops::remove_transition(sp, &state, index),
        Edit::Retarget { state, index, to } => ops::retarget(sp, &state, index, &to),
        Edit::Normalise(state) => {
            if let Some(i) = ops::index_of(sp, &state) {
                ops::normalise(&mut sp.states[i]);
            }
        }
        Edit::NormaliseAll => {
            ops::normalise_all(sp);
        }
        Edit::SetInitial(s) => sp.initial = Some(s),
        Edit::SetDisable(s) => sp.disable = s,
        Edit::Move(positions) => {
            for (name, at) in positions {
                layout.set(&name, at);
            }
        }
        Edit::Arrange => {
            layout.nodes.clear();
            for (name, at) in view::arrange(sp) {
                layout.set(&name, at);
            }
        }
        // Canvas edits come from drawing this layout this frame: one is refused only when an
        // earlier edit of the same frame removed what it names, and then there is nothing
        // left to edit.
        Edit::Canvas(edit) => {
            let _ = edit.apply(layout);
        }
    }
    None
}

/// The space editor: view state only.
#[derive(Default)]
pub struct SpacePanel {
    pub view: SpaceView,
    pending: Option<Reveal>,
    focus_name: bool,
}

impl SpacePanel {
    fn take_reveal(&mut self, sp: &SpaceAsset) {
        let Some(target) = self.pending.take() else {
            return;
        };
        let name = match &target {
            Reveal::Item { name, .. } => sp
                .states
                .iter()
                .find(|s| s.name.eq_ignore_ascii_case(name))
                .map(|s| s.name.clone()),
            Reveal::Path(path) => match path.as_slice() {
                [PathSeg::Field(f), PathSeg::Index(i), ..] if f == "states" => {
                    sp.states.get(*i).map(|s| s.name.clone())
                }
                _ => None,
            },
        };
        match name {
            Some(n) => self.view.reveal(&n),
            None => {
                self.view.selection.clear();
                self.view.fit();
            }
        }
    }

    fn toolbar(&mut self, ui: &mut Ui, sp: &SpaceAsset, layout: &Layout, edits: &mut Vec<Edit>) {
        ui.horizontal(|ui| {
            ui.label(RichText::new(&sp.name).strong().color(theme::TEXT).size(15.0));
            ui.label(RichText::new("HMM space").small().color(theme::TEXT_WEAK));
            ui.add_space(12.0);
            let add = ui.button("+ State").on_hover_text("Add a state (or right-click the canvas)");
            crate::marks::name_widget(ui, &add, "add state");
            if add.clicked() {
                edits.push(self.view.add_state(sp, layout));
            }
            if ui
                .button("Arrange (layered)")
                .on_hover_text("Arrange every state in layers that follow the flow (undoable)")
                .clicked()
            {
                edits.push(Edit::Arrange);
            }
            edits.extend(self.view.canvas_toolbar(ui).into_iter().map(Edit::Canvas));
            self.view.zoom_controls(ui, "space");
            let off = sp.states.iter().filter(|s| !ops::is_normalised(s)).count();
            if off > 0 {
                let b = ui
                    .button(RichText::new(format!("Normalise {off} row{}", if off == 1 { "" } else { "s" })).color(theme::WARNING))
                    .on_hover_text("Scale every row that does not sum to 1");
                crate::marks::name_widget(ui, &b, "normalise every row");
                if b.clicked() {
                    edits.push(Edit::NormaliseAll);
                }
            }
            // Elided where the toolbar is short of room, rather than drawn over the zoom.
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                ui.add(
                    egui::Label::new(
                        RichText::new("drag a dot or ■ to connect · drag a probability to change it · Shift+drag to select")
                            .small()
                            .color(theme::TEXT_WEAK),
                    )
                    .truncate(),
                );
            });
        });
    }
}

impl GraphPanel<SpaceAsset> for SpacePanel {
    fn ui(&mut self, ui: &mut Ui, sp: &mut SpaceAsset, layout: &mut Layout, cx: &PanelCx) -> bool {
        self.take_reveal(sp);
        let before = (sp.clone(), layout.clone());
        let diags = Diags {
            list: cx.diagnostics,
        };
        let mut edits = Vec::new();
        self.toolbar(ui, sp, layout, &mut edits);
        ui.separator();
        let icx = inspector::Cx { panel: cx, diags };
        crate::marks::docked(
            egui::Panel::right(ui.id().with("space-inspector")),
            300.0,
            240.0,
        )
        .show(ui, |ui| {
            ui.set_max_width(ui.available_width());
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    let selected: Vec<usize> = sp
                        .states
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| self.view.selection.contains(&s.name))
                        .map(|(i, _)| i)
                        .collect();
                    match selected.as_slice() {
                        [] => {
                            inspector::space(ui, sp, &icx);
                        }
                        [i] => {
                            let focus = std::mem::take(&mut self.focus_name);
                            inspector::state(
                                ui,
                                sp,
                                *i,
                                layout,
                                &mut self.view.selection,
                                &icx,
                                focus,
                            );
                        }
                        many => {
                            ui.label(
                                RichText::new(format!("{} states selected", many.len()))
                                    .heading()
                                    .color(theme::TEXT),
                            );
                            if ui.button("Duplicate").clicked() {
                                edits.push(Edit::Duplicate(self.view.selection.clone()));
                            }
                            if ui
                                .button(RichText::new("Delete").color(theme::ERROR))
                                .clicked()
                            {
                                edits.push(Edit::Delete(self.view.selection.clone()));
                            }
                        }
                    }
                });
        });
        let marks = Marks::of(cx.diagnostics, "to");
        let vcx = ViewCx {
            marks: &marks,
            layout,
        };
        let out = self.view.show(ui, sp, &vcx);
        edits.extend(out.edits);
        if let Some(state) = out.reach {
            cx.requests.borrow_mut().push(crate::panel::Request::Reach(
                crate::reach::Asked::HmmState {
                    space: sp.name.clone(),
                    state,
                },
            ));
        }
        if out.rename {
            self.focus_name = true;
        }
        if let Some(s) = out.select {
            self.view.selection = [s].into();
        }
        // Delete removes the selected states while no field has the keyboard.
        if !self.view.selection.is_empty()
            && !ui.ctx().text_edit_focused()
            && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::Delete))
        {
            edits.push(Edit::Delete(self.view.selection.clone()));
        }
        for e in edits {
            // A state just added is named next: its name field takes the keyboard.
            let adds = matches!(e, Edit::AddState { .. });
            if let Some(sel) = apply(sp, layout, e) {
                self.view.selection = sel;
                self.focus_name |= adds;
            }
        }
        (sp.clone(), layout.clone()) != before
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}
