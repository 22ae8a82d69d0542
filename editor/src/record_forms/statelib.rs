//! The state library form (`*.statelib.ron`): the library states a game registers, declared
//! for the compiler — each one's name, the modifier it takes (or its named, typed parameters:
//! name, type, default), whether it ends or fails its
//! machine, the events it raises (when declared, other events are warned about) and the help
//! designers see when they pick it.

use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Reveal};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::ron::{
    LibraryStateAsset, ModifierKindAsset, ParamDeclAsset, ParamTypeAsset, ParamValueAsset,
    StateLibraryAsset, TerminalAsset,
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
    params: ParamsEditor,
}

/// The kind of a parameter's values, as the form offers it (a list is a checkbox beside it).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Text,
    Number,
    Bool,
    Location,
    Agent,
    Machine,
    Sentence,
    OneOf,
}

const KINDS: [(Kind, &str); 8] = [
    (Kind::Text, "text"),
    (Kind::Number, "number"),
    (Kind::Bool, "bool"),
    (Kind::Location, "location"),
    (Kind::Agent, "agent"),
    (Kind::Machine, "machine"),
    (Kind::Sentence, "sentence state"),
    (Kind::OneOf, "one of…"),
];

fn kind_of(ty: &ParamTypeAsset) -> (Kind, bool) {
    match ty {
        ParamTypeAsset::Text => (Kind::Text, false),
        ParamTypeAsset::Number => (Kind::Number, false),
        ParamTypeAsset::Bool => (Kind::Bool, false),
        ParamTypeAsset::Location => (Kind::Location, false),
        ParamTypeAsset::Agent => (Kind::Agent, false),
        ParamTypeAsset::Machine => (Kind::Machine, false),
        ParamTypeAsset::Sentence => (Kind::Sentence, false),
        ParamTypeAsset::OneOf(_) => (Kind::OneOf, false),
        ParamTypeAsset::List(item) => (kind_of(item).0, true),
    }
}

fn type_of(kind: Kind, list: bool, words: Vec<String>) -> ParamTypeAsset {
    let one = match kind {
        Kind::Text => ParamTypeAsset::Text,
        Kind::Number => ParamTypeAsset::Number,
        Kind::Bool => ParamTypeAsset::Bool,
        Kind::Location => ParamTypeAsset::Location,
        Kind::Agent => ParamTypeAsset::Agent,
        Kind::Machine => ParamTypeAsset::Machine,
        Kind::Sentence => ParamTypeAsset::Sentence,
        Kind::OneOf => ParamTypeAsset::OneOf(words),
    };
    if list {
        ParamTypeAsset::List(Box::new(one))
    } else {
        one
    }
}

/// The listed words of a `OneOf` type (or of a list of them).
fn words_of(ty: &ParamTypeAsset) -> Vec<String> {
    match ty {
        ParamTypeAsset::OneOf(words) => words.clone(),
        ParamTypeAsset::List(item) => words_of(item),
        _ => Vec::new(),
    }
}

/// The parameter a state with a single modifier of `kind` already has: named after the kind
/// (docs/formats/statelib.md), or a first text parameter for a state that took none.
fn first_param(kind: ModifierKindAsset) -> ParamDeclAsset {
    let (name, ty) = match kind {
        ModifierKindAsset::None | ModifierKindAsset::Text => ("text", ParamTypeAsset::Text),
        ModifierKindAsset::Location => ("location", ParamTypeAsset::Location),
        ModifierKindAsset::Machine => ("machine", ParamTypeAsset::Machine),
        ModifierKindAsset::Agent => ("agent", ParamTypeAsset::Agent),
        ModifierKindAsset::Number => ("number", ParamTypeAsset::Number),
    };
    ParamDeclAsset {
        name: name.to_string(),
        ty,
        default: None,
    }
}

/// The parameter rows of the selected state. A default is typed as it is written in the file
/// (`0.2`, `"full"`, `["Gate"]`); text that does not read as a value stays in the field, marked,
/// until it does.
#[derive(Default)]
struct ParamsEditor {
    /// (state, parameter) -> the default's text while it does not read as a value.
    typing: std::collections::HashMap<(usize, usize), String>,
}

impl ParamsEditor {
    fn show(&mut self, ui: &mut Ui, state: usize, params: &mut Vec<ParamDeclAsset>) -> bool {
        let mut changed = false;
        let mut remove = None;
        ui.vertical(|ui| {
            for (j, p) in params.iter_mut().enumerate() {
                ui.horizontal(|ui| {
                    changed |= form::text(
                        ui,
                        &mut p.name,
                        110.0,
                        "name",
                        format!("parameter {} name", j + 1),
                        &[],
                    );
                    let (mut kind, mut list) = kind_of(&p.ty);
                    let mut retyped = form::choose(
                        ui,
                        ("statelib-param-kind", state, j),
                        &mut kind,
                        &KINDS,
                        120.0,
                        format!("parameter {} type", j + 1),
                    );
                    let r = ui.checkbox(&mut list, "list");
                    crate::marks::name_widget(ui, &r, format!("parameter {} is a list", j + 1));
                    retyped |= r.changed();
                    if retyped {
                        p.ty = type_of(kind, list, words_of(&p.ty));
                        changed = true;
                    }
                    if ui
                        .small_button("×")
                        .on_hover_text("Remove this parameter")
                        .clicked()
                    {
                        remove = Some(j);
                    }
                });
                if kind_of(&p.ty).0 == Kind::OneOf {
                    let mut words = words_of(&p.ty);
                    if form::chips(
                        ui,
                        ("statelib-param-words", state, j),
                        &mut words,
                        &[],
                        true,
                        true,
                        &format!("parameter {} values", j + 1),
                    ) {
                        let (kind, list) = kind_of(&p.ty);
                        p.ty = type_of(kind, list, words);
                        changed = true;
                    }
                }
                ui.horizontal(|ui| {
                    ui.label(RichText::new("default").small().color(theme::TEXT_WEAK));
                    let written = p
                        .default
                        .as_ref()
                        .map(|d| {
                            ensemble_compiler::formats::print::print_plain(d)
                                .trim()
                                .to_string()
                        })
                        .unwrap_or_default();
                    let mut text = self.typing.get(&(state, j)).cloned().unwrap_or(written);
                    let r = crate::marks::text_field(
                        ui,
                        &mut text,
                        200.0,
                        "none: required",
                        format!("parameter {} default", j + 1),
                    );
                    if r.changed() {
                        if text.trim().is_empty() {
                            p.default = None;
                            self.typing.remove(&(state, j));
                            changed = true;
                        } else {
                            match ron::from_str::<ParamValueAsset>(&text) {
                                Ok(v) => {
                                    p.default = Some(v);
                                    self.typing.remove(&(state, j));
                                    changed = true;
                                }
                                Err(_) => {
                                    self.typing.insert((state, j), text);
                                }
                            }
                        }
                    }
                    if self.typing.contains_key(&(state, j)) {
                        ui.label(
                            RichText::new("not a value yet: 0.2, true, \"text\", [..]")
                                .small()
                                .color(theme::ERROR),
                        );
                    }
                });
                ui.add_space(4.0);
            }
            if ui.small_button("+ parameter").clicked() {
                let taken = |n: &str| params.iter().any(|p| p.name == n);
                let name = (1..)
                    .map(|k| format!("param{k}"))
                    .find(|n| !taken(n))
                    .unwrap_or_default();
                params.push(ParamDeclAsset {
                    name,
                    ty: ParamTypeAsset::Text,
                    default: None,
                });
                changed = true;
            }
        });
        if let Some(j) = remove {
            params.remove(j);
            // Rows below moved up: their half-typed defaults no longer belong to them.
            self.typing.retain(|(s, k), _| *s != state || *k < j);
            changed = true;
        }
        changed
    }
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
        crate::marks::docked(
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
                    stand_in: None,
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
                    ui.horizontal(|ui| {
                        changed |= form::choose(
                            ui,
                            ("statelib-modifier", i),
                            &mut s.modifier,
                            &MODIFIERS,
                            240.0,
                            "modifier kind",
                        );
                        if ui
                            .small_button("Use named parameters")
                            .on_hover_text(
                                "Declare named, typed parameters instead of one modifier",
                            )
                            .clicked()
                        {
                            s.params = vec![first_param(s.modifier)];
                            s.modifier = ModifierKindAsset::None;
                            changed = true;
                        }
                    });
                } else {
                    form::label(
                        ui,
                        "Parameters",
                        "Named, typed values a state of this kind is given; without a default, every state must set one.",
                    );
                    changed |= self.params.show(ui, i, &mut s.params);
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
                    crate::marks::name_widget(ui, &r, "raises declared");
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
                crate::marks::name_widget(ui, &r, "help text");
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
