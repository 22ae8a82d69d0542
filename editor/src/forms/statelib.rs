//! The state library form (`*.statelib.ron`): the library states a game registers, declared
//! for the compiler — each one's name, the modifier it takes (or, declared with `params`, its
//! named parameters, listed), whether it ends or fails its
//! machine, the events it raises (when declared, other events are warned about) and the help
//! designers see when they pick it.

use super::reveal_index;
use crate::asset_panel::{AssetPanel, PanelCx, Reveal};
use crate::form::{self, Diags, ItemList, ItemRow, P};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::front::ron::assets::{
    LibraryStateAsset, ModifierKindAsset, StateLibraryAsset, TerminalAsset,
};

const MODIFIERS: [(ModifierKindAsset, &str); 6] = [
    (ModifierKindAsset::None, "none"),
    (ModifierKindAsset::Location, "a location"),
    (ModifierKindAsset::Machine, "a child machine"),
    (ModifierKindAsset::Agent, "an agent"),
    (ModifierKindAsset::Text, "a text"),
    (ModifierKindAsset::Number, "a number"),
];

const TERMINALS: [(TerminalAsset, &str); 3] = [
    (TerminalAsset::No, "no: the machine goes on"),
    (TerminalAsset::End, "ends its machine (like Finish)"),
    (TerminalAsset::Failure, "fails its machine (like Fail)"),
];

#[derive(Default)]
pub struct StateLibraryPanel {
    list: ItemList,
    pending: Option<Reveal>,
}

impl AssetPanel<StateLibraryAsset> for StateLibraryPanel {
    fn ui(&mut self, ui: &mut Ui, lib: &mut StateLibraryAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take()
            && let Some(i) = reveal_index(&t, "states", lib.states.iter().map(|s| s.name.as_str()))
        {
            self.list.select(i);
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.label(RichText::new("State library").heading().color(theme::TEXT));
        form::help(
            ui,
            "Library states the game's code provides, declared so the compiler can check machines that use them.",
        );
        form::problems(ui, d.outside(&["states"]));
        crate::panel_cx::docked(
            egui::Panel::left(ui.id().with("statelib-list")),
            250.0,
            180.0,
        )
        .show(ui, |ui| {
            changed |= self.list.show(
                ui,
                "statelib",
                "States",
                "state",
                &mut lib.states,
                |i, s| ItemRow {
                    detail: if s.params.is_empty() {
                        MODIFIERS
                            .iter()
                            .find(|(m, _)| *m == s.modifier)
                            .filter(|(m, _)| *m != ModifierKindAsset::None)
                            .map_or(String::new(), |(_, l)| l.to_string())
                    } else {
                        format!("{} parameters", s.params.len())
                    },
                    severity: d.worst(&[P::F("states"), P::I(i)]),
                },
                |name| LibraryStateAsset {
                    name,
                    modifier: ModifierKindAsset::None,
                    params: Vec::new(),
                    terminal: TerminalAsset::No,
                    raises: None,
                    doc: String::new(),
                },
            );
        });
        form::detail(ui, |ui| {
            let Some(i) = self.list.current(lib.states.len()) else {
                form::help(ui, "No states yet: add one with “+ state”.");
                return;
            };
            let s = &mut lib.states[i];
            let at = |f: &'static str| [P::F("states"), P::I(i), P::F(f)];
            form::grid(ui, ("statelib-state", i), |ui| {
                form::label(
                    ui,
                    "Name",
                    "What machines' states name as their library state.",
                );
                changed |= form::text(
                    ui,
                    &mut s.name,
                    240.0,
                    "name",
                    "library state name",
                    &d.notes(&at("name")),
                );
                ui.end_row();
                if s.params.is_empty() {
                    form::label(
                        ui,
                        "Modifier",
                        "What a state of this kind is given in the machine editor.",
                    );
                    changed |= form::choose(
                        ui,
                        ("statelib-modifier", i),
                        &mut s.modifier,
                        &MODIFIERS,
                        240.0,
                        "modifier kind",
                    );
                } else {
                    // Declared with named parameters instead of one modifier: listed here,
                    // written in the file's text (docs/formats/statelib.md).
                    form::label(
                        ui,
                        "Parameters",
                        "Named, typed values a state of this kind is given; edit them in the text view.",
                    );
                    ui.vertical(|ui| {
                        for p in &s.params {
                            let ty = ensemble_compiler::front::ron::params::param_type(&p.ty)
                                .map_or_else(|why| why.to_string(), |t| t.describe());
                            let default = p.default.as_ref().map_or("required".to_string(), |d| {
                                format!(
                                    "default {}",
                                    crate::machine::param_fields::literal_text(
                                        &ensemble_compiler::front::ron::params::asset_literal(d)
                                    )
                                )
                            });
                            ui.label(
                                RichText::new(format!("{}: {ty}, {default}", p.name))
                                    .color(theme::TEXT),
                            );
                        }
                    });
                }
                ui.end_row();
                form::label(ui, "Terminal", "Whether entering it ends the machine.");
                changed |= form::choose(
                    ui,
                    ("statelib-terminal", i),
                    &mut s.terminal,
                    &TERMINALS,
                    240.0,
                    "terminal",
                );
                ui.end_row();
                form::label(
                    ui,
                    "Raises",
                    "The events its code raises. When declared, a transition on another event is warned about.",
                );
                ui.vertical(|ui| {
                    let mut declared = s.raises.is_some();
                    let r = ui.checkbox(&mut declared, "declared");
                    crate::panel_cx::name_widget(ui, &r, "raises declared");
                    if r.changed() {
                        s.raises = declared.then(Vec::new);
                        changed = true;
                    }
                    if let Some(raises) = &mut s.raises {
                        changed |= form::chips(
                            ui,
                            ("statelib-raises", i),
                            raises,
                            &[],
                            true,
                            false,
                            "raised events",
                        );
                    }
                });
                ui.end_row();
                form::label(ui, "Help", "What designers read when they pick it.");
                let r = ui.add(
                    egui::TextEdit::multiline(&mut s.doc)
                        .desired_rows(3)
                        .desired_width(360.0)
                        .background_color(theme::BOX_FILL),
                );
                crate::panel_cx::name_widget(ui, &r, "help text");
                changed |= r.changed();
                ui.end_row();
            });
            form::problems(ui, d.under(&[P::F("states"), P::I(i)]));
        });
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}
