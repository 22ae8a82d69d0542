//! The script's keys (name, initial state, base, supplies, meta-parameters) and its roles
//! (name, cardinality, flags), edited as small forms above the rule grid. Flags the compiler
//! knows are offered as controls; anything else written in the flags cell is kept and shown.

use super::check::{Flags, KeyProblems, check_keys, check_role};
use super::grid::notes_of;
use super::locate::{Key, Markers, Place, RoleField};
use crate::marks::{mark, name_widget, text_field};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::scripts::{RoleAsset, ScriptAsset};

/// A one-line text field, named and marked.
fn field(
    ui: &mut Ui,
    text: &mut String,
    width: f32,
    hint: &str,
    name: &str,
    notes: &[(Severity, String)],
) -> bool {
    let r = text_field(ui, text, width, hint, name);
    mark(ui, r, notes).changed()
}

/// An optional key: empty text means "not set" (left out of the file).
fn optional(
    ui: &mut Ui,
    value: &mut Option<String>,
    width: f32,
    hint: &str,
    name: &str,
    notes: &[(Severity, String)],
) -> bool {
    let mut text = value.clone().unwrap_or_default();
    if field(ui, &mut text, width, hint, name, notes) {
        *value = (!text.trim().is_empty()).then_some(text);
        return true;
    }
    false
}

fn label(ui: &mut Ui, text: &str, tip: &str) {
    ui.label(RichText::new(text).color(theme::TEXT_WEAK))
        .on_hover_text(tip);
}

/// The script keys. Returns whether anything changed.
pub(super) fn keys(ui: &mut Ui, s: &mut ScriptAsset, markers: &Markers) -> bool {
    let problems: KeyProblems = check_keys(s);
    let mut changed = false;
    let states: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for r in &s.rules {
            let st = r.state.trim();
            if !st.is_empty() && !v.iter().any(|x| x == st) {
                v.push(st.to_string());
            }
        }
        v
    };
    egui::Grid::new("script-keys")
        .num_columns(2)
        .spacing([10.0, 6.0])
        .show(ui, |ui| {
            label(ui, "Name", "The script's name; smart locations run it by this name.");
            changed |= field(
                ui,
                &mut s.name,
                220.0,
                "script name",
                "script name",
                &notes_of(problems.name.as_ref(), markers, Place::Key(Key::Name)),
            );
            ui.end_row();

            label(ui, "Initial state", "Where every actor starts; empty: the first rule's state.");
            ui.horizontal(|ui| {
                changed |= optional(
                    ui,
                    &mut s.initial_state,
                    190.0,
                    states.first().map_or("first rule's state", String::as_str),
                    "initial state",
                    &notes_of(problems.initial_state.as_ref(), markers, Place::Key(Key::InitialState)),
                );
                ui.menu_button("⏷", |ui| {
                    if states.is_empty() {
                        ui.label("No states yet: give a rule a State.");
                    }
                    for st in &states {
                        if ui.button(st).clicked() {
                            s.initial_state = Some(st.clone());
                            changed = true;
                            ui.close();
                        }
                    }
                })
                .response
                .on_hover_text("Pick one of the states the rules use");
            });
            ui.end_row();

            label(ui, "Base", "A script this one extends: its rules come after these, its roles and parameters fill in.");
            changed |= optional(
                ui,
                &mut s.base,
                220.0,
                "none",
                "base script",
                &notes_of(None, markers, Place::Key(Key::Base)),
            );
            ui.end_row();

            label(ui, "Supplies", "Predicates the smart location or a proxy puts in the tuple space: `seat/1, sale/2`.");
            changed |= optional(
                ui,
                &mut s.supplies,
                220.0,
                "seat/1, sale/2",
                "supplies",
                &notes_of(problems.supplies.as_ref(), markers, Place::Key(Key::Supplies)),
            );
            ui.end_row();

            label(ui, "Meta-parameters", "`$name = value`: replaced in every cell before checking, for templates.");
            ui.vertical(|ui| {
                let mut remove = None;
                for (i, (k, v)) in s.params.iter_mut().enumerate() {
                    ui.horizontal(|ui| {
                        let problem = problems.params.iter().find(|(j, _)| *j == i).map(|(_, p)| p);
                        let key_notes = notes_of(problem, markers, Place::Key(Key::Param(i)));
                        changed |= field(ui, k, 90.0, "$name", &format!("parameter {} name", i + 1), &key_notes);
                        ui.label("=");
                        changed |= field(ui, v, 110.0, "value", &format!("parameter {} value", i + 1), &[]);
                        if ui.small_button("🗙").on_hover_text("Remove this parameter").clicked() {
                            remove = Some(i);
                        }
                    });
                }
                if let Some(i) = remove {
                    s.params.remove(i);
                    changed = true;
                }
                if ui.small_button("+ Parameter").clicked() {
                    let mut n = s.params.len() + 1;
                    while s.params.iter().any(|(k, _)| *k == format!("$param{n}")) {
                        n += 1;
                    }
                    s.params.push((format!("$param{n}"), String::new()));
                    changed = true;
                }
            });
            ui.end_row();
        });
    changed
}

/// The roles; `focus` gives role `i`'s name the keyboard (a revealed role). Returns whether
/// anything changed.
pub(super) fn roles(
    ui: &mut Ui,
    s: &mut ScriptAsset,
    markers: &Markers,
    focus: Option<usize>,
) -> bool {
    let mut changed = false;
    let mut remove = None;
    let problems: Vec<_> = (0..s.roles.len())
        .map(|i| check_role(i, &s.roles, &s.params))
        .collect();
    egui::Grid::new("script-roles")
        .num_columns(6)
        .spacing([8.0, 6.0])
        .show(ui, |ui| {
            label(
                ui,
                "Role",
                "The role's name, as the Role column of the rules names it.",
            );
            label(
                ui,
                "Min",
                "Fewest actors for the script to run (empty: 0). Below it the script ends.",
            );
            label(ui, "Max", "Most actors (empty: no limit).");
            label(
                ui,
                "Joins late",
                "dynamicJoin: newcomers may take this role while the script runs.",
            );
            label(
                ui,
                "Leave command",
                "leaveCommand=ACTION: the action an actor of this role runs to leave.",
            );
            ui.label("");
            ui.end_row();
            for (i, role) in s.roles.iter_mut().enumerate() {
                let p = &problems[i];
                let n = i + 1;
                let r = text_field(ui, &mut role.name, 110.0, "role", format!("role {n} name"));
                if focus == Some(i) {
                    r.request_focus();
                    r.scroll_to_me(Some(egui::Align::Center));
                }
                let notes = notes_of(p.name.as_ref(), markers, Place::Role(i, RoleField::Name));
                changed |= mark(ui, r, &notes).changed();
                changed |= field(
                    ui,
                    &mut role.min,
                    36.0,
                    "0",
                    &format!("role {n} min"),
                    &notes_of(p.min.as_ref(), markers, Place::Role(i, RoleField::Min)),
                );
                changed |= field(
                    ui,
                    &mut role.max,
                    36.0,
                    "∞",
                    &format!("role {n} max"),
                    &notes_of(p.max.as_ref(), markers, Place::Role(i, RoleField::Max)),
                );
                changed |= flags(
                    ui,
                    role,
                    n,
                    &notes_of(p.flags.as_ref(), markers, Place::Role(i, RoleField::Flags)),
                );
                if ui
                    .small_button("🗙")
                    .on_hover_text("Delete this role")
                    .clicked()
                {
                    remove = Some(i);
                }
                ui.end_row();
            }
        });
    if let Some(i) = remove {
        s.roles.remove(i);
        changed = true;
    }
    if ui.small_button("+ Role").clicked() {
        let mut n = s.roles.len() + 1;
        while s.roles.iter().any(|r| r.name == format!("role{n}")) {
            n += 1;
        }
        s.roles.push(RoleAsset {
            name: format!("role{n}"),
            min: "1".into(),
            max: "1".into(),
            flags: String::new(),
        });
        changed = true;
    }
    changed
}

/// The flags as a checkbox and a text field (two grid cells); unknown flags are kept, shown in
/// red, and can be removed.
fn flags(ui: &mut Ui, role: &mut RoleAsset, n: usize, notes: &[(Severity, String)]) -> bool {
    let mut f = Flags::parse(&role.flags);
    let mut touched = false;
    let r = ui.checkbox(&mut f.dynamic_join, "");
    name_widget(ui, &r, format!("role {n} joins late"));
    touched |= r.changed();
    ui.horizontal(|ui| {
        let mut leave = f.leave_command.clone().unwrap_or_default();
        let r = text_field(ui, &mut leave, 90.0, "action", format!("role {n} leave command"));
        if mark(ui, r, notes).changed() {
            f.leave_command = (!leave.trim().is_empty()).then_some(leave);
            touched = true;
        }
        let mut drop = None;
        for (k, u) in f.unknown.iter().enumerate() {
            let chip = ui
                .add(egui::Button::new(RichText::new(format!("{u} 🗙")).color(theme::ERROR)).small())
                .on_hover_text("Not a flag the compiler knows (dynamicJoin, leaveCommand=ACTION). Click to remove.");
            if chip.clicked() {
                drop = Some(k);
            }
        }
        if let Some(k) = drop {
            f.unknown.remove(k);
            touched = true;
        }
    });
    if touched {
        role.flags = f.write();
    }
    touched
}
