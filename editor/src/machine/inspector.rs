//! The inspector beside the graph: the selected state's name, library state, modifier (or
//! named parameters, [`super::param_fields`]) and transitions (or, with nothing selected, the machine's). The modifier's widget follows what
//! the library state takes: a location or machine is picked by name, a dialog state's sentence
//! state from the project's, a number is dragged, a line is typed.
//!
//! Names are edited in a buffer and applied on Enter or when the field loses focus, because a
//! rename changes references: applying it per keystroke could pass through another state's
//! name and merge the two.

use super::edit::Edit;
pub use super::edit::{InspectorCx, InspectorOutput};
use super::ops;
use super::param_fields::choose_prompt;
use super::view::GraphView;
use super::view::Look;
use crate::analysis::Located;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::ron::{MachineAsset, ModifierValue, StateAsset};
use ensemble_runtime::program::ModifierKind;

#[derive(Default)]
pub struct Inspector {
    /// (state, text) being renamed.
    rename: Option<(String, String)>,
    rename_error: Option<String>,
    machine_name: Option<String>,
    machine_error: Option<String>,
    /// Focus the name field next frame (from a node's Rename… menu).
    pub focus_name: bool,
}

fn heading(ui: &mut Ui, text: &str) {
    ui.add_space(8.0);
    ui.label(
        RichText::new(text.to_uppercase())
            .font(theme::section_font())
            .color(theme::TEXT_WEAK)
            .strong(),
    );
    ui.add_space(2.0);
}

fn diagnostics_list(ui: &mut Ui, list: &[&Located]) {
    if list.is_empty() {
        return;
    }
    heading(ui, "Problems");
    for l in list {
        let color = theme::severity_color(l.severity());
        ui.horizontal_wrapped(|ui| {
            ui.label(
                RichText::new(l.diagnostic.code.as_str())
                    .monospace()
                    .color(color),
            );
            ui.label(RichText::new(&l.diagnostic.message).color(theme::TEXT));
        });
    }
}

impl Inspector {
    /// Sets a rename error to show (from the host, when the edit was refused).
    pub fn refused(&mut self, message: String) {
        self.rename_error = Some(message);
    }

    pub fn show(
        &mut self,
        ui: &mut Ui,
        m: &MachineAsset,
        graph: &GraphView,
        cx: &InspectorCx,
    ) -> InspectorOutput {
        let mut out = InspectorOutput::default();
        let selected = graph.selected_states(m);
        // Content never widens the panel; the designer does, by dragging its edge.
        ui.set_max_width(ui.available_width());
        egui::ScrollArea::vertical()
            .auto_shrink([false, false])
            .show(ui, |ui| match selected.len() {
                0 => self.machine(ui, m, graph, cx, &mut out),
                1 => {
                    let name = selected.iter().next().cloned().unwrap_or_default();
                    if let Some(i) = ops::index_of(m, &name) {
                        self.state(ui, m, &m.states[i], cx, &mut out);
                    }
                }
                n => {
                    ui.label(
                        RichText::new(format!("{n} states selected"))
                            .heading()
                            .color(theme::TEXT),
                    );
                    ui.add_space(6.0);
                    ui.label(
                        RichText::new("Delete removes them; Ctrl+C copies them.")
                            .color(theme::TEXT_WEAK),
                    );
                    if ui.button("Delete selected").clicked() {
                        out.edits.push(Edit::Delete(selected.clone()));
                    }
                }
            });
        out
    }

    fn machine(
        &mut self,
        ui: &mut Ui,
        m: &MachineAsset,
        graph: &GraphView,
        cx: &InspectorCx,
        out: &mut InspectorOutput,
    ) {
        ui.label(RichText::new("Machine").heading().color(theme::TEXT));
        heading(ui, "Name");
        let buffer = self.machine_name.get_or_insert_with(|| m.name.clone());
        if !ui.memory(|mem| mem.has_focus(egui::Id::new("machine-name")))
            && *buffer != m.name
            && self.machine_error.is_none()
        {
            *buffer = m.name.clone();
        }
        let r = ui.add(
            egui::TextEdit::singleline(buffer)
                .id(egui::Id::new("machine-name"))
                .desired_width(f32::INFINITY)
                .hint_text("machine name"),
        );
        let commit =
            r.lost_focus() || (r.has_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
        if commit {
            let new = buffer.trim().to_string();
            if new != m.name {
                out.rename_machine = Some(new);
            }
        }
        if let Some(e) = &self.machine_error {
            ui.label(RichText::new(e).color(theme::ERROR));
        }
        ui.label(
            RichText::new("Renaming updates every state and scene that runs it.")
                .small()
                .color(theme::TEXT_WEAK),
        );

        heading(ui, "Initial state");
        let initial = ops::initial(m).to_string();
        egui::ComboBox::from_id_salt("initial-state")
            .selected_text(&initial)
            .width(ui.available_width() - 8.0)
            .show_ui(ui, |ui| {
                for s in &m.states {
                    if ui.selectable_label(s.name == initial, &s.name).clicked()
                        && s.name != initial
                    {
                        out.edits.push(Edit::SetInitial(s.name.clone()));
                    }
                }
            })
            .response
            .on_hover_text("The state the machine starts in");

        heading(ui, "Contents");
        let transitions: usize = m.states.iter().map(|s| s.on.len()).sum();
        ui.label(
            RichText::new(format!(
                "{} states, {transitions} transitions",
                m.states.len()
            ))
            .color(theme::TEXT),
        );
        ui.add_space(6.0);
        if ui
            .button("Arrange (layered)")
            .on_hover_text("Arrange every state in layers that follow the flow (undoable)")
            .clicked()
        {
            out.edits.push(Edit::Arrange(graph.arrange_measured(m)));
        }
        let machine_level: Vec<&Located> = cx
            .diagnostics
            .iter()
            .copied()
            .filter(|l| l.list() != Some("states"))
            .collect();
        diagnostics_list(ui, &machine_level);
        ui.add_space(10.0);
        ui.label(
            RichText::new("Select a state to edit it. Right-click the canvas to add one; drag from the ■ beside a + (or a dot) to connect.")
                .small()
                .color(theme::TEXT_WEAK),
        );
    }

    /// Shows a refused machine rename.
    pub fn machine_refused(&mut self, message: Option<String>) {
        self.machine_error = message;
    }

    fn state(
        &mut self,
        ui: &mut Ui,
        m: &MachineAsset,
        s: &StateAsset,
        cx: &InspectorCx,
        out: &mut InspectorOutput,
    ) {
        let code = ops::code(s).to_string();
        let look = Look::of(&code, cx.names);
        let lib = cx.names.library(&code);
        ui.horizontal(|ui| {
            ui.label(RichText::new("State").heading().color(theme::TEXT));
            if ops::initial(m) == s.name {
                ui.label(RichText::new("▶ initial").small().color(theme::ACCENT));
            }
        });

        heading(ui, "Name");
        if self.rename.as_ref().is_none_or(|(n, _)| *n != s.name) {
            self.rename = Some((s.name.clone(), s.name.clone()));
            self.rename_error = None;
        }
        let id = egui::Id::new("state-name");
        if let Some((_, buffer)) = self.rename.as_mut() {
            let r = ui.add(
                egui::TextEdit::singleline(buffer)
                    .id(id)
                    .desired_width(f32::INFINITY)
                    .hint_text("state name"),
            );
            if std::mem::take(&mut self.focus_name) {
                r.request_focus();
            }
            if r.has_focus() && ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                *buffer = s.name.clone();
                self.rename_error = None;
            }
            let commit =
                r.lost_focus() || (r.has_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)));
            if commit && buffer.trim() != s.name {
                match ops::check_name(m, &s.name, buffer) {
                    Ok(()) => out.edits.push(Edit::RenameState {
                        old: s.name.clone(),
                        new: buffer.trim().to_string(),
                    }),
                    Err(e) => self.rename_error = Some(e),
                }
            }
        }
        if let Some(e) = &self.rename_error {
            ui.label(RichText::new(e).color(theme::ERROR));
        }
        if ops::initial(m) != s.name
            && ui
                .small_button("Make initial")
                .on_hover_text("Start the machine in this state")
                .clicked()
        {
            out.edits.push(Edit::SetInitial(s.name.clone()));
        }

        heading(ui, "Library state");
        let mut library: Vec<&str> = cx.names.library.iter().map(|l| l.name.as_str()).collect();
        library.sort();
        let shown = if lib.is_none() {
            RichText::new(format!("{code}  (unknown)")).color(theme::ERROR)
        } else {
            RichText::new(&code)
        };
        egui::ComboBox::from_id_salt("library-state")
            .selected_text(shown)
            .width(ui.available_width() - 8.0)
            .show_ui(ui, |ui| {
                for name in library {
                    let doc = cx
                        .names
                        .library(name)
                        .map(|l| l.doc.clone())
                        .unwrap_or_default();
                    if ui
                        .selectable_label(name == code, name)
                        .on_hover_text(doc)
                        .clicked()
                        && name != code
                    {
                        out.edits.push(Edit::SetCode {
                            state: s.name.clone(),
                            code: Some(name.to_string()),
                        });
                    }
                }
            })
            .response
            .on_hover_text("The library state this state runs (what it does)");
        if s.code.is_none() {
            ui.label(
                RichText::new("implied by the state's name")
                    .small()
                    .color(theme::TEXT_WEAK),
            );
        }
        if let Some(l) = lib
            && !l.doc.is_empty()
        {
            ui.label(RichText::new(&l.doc).small().color(theme::TEXT_WEAK));
        }

        // A single modifier written as `params: {"location": ...}` is edited as that one
        // parameter, so it stays in the form it is written in.
        let written_as_param = lib
            .filter(|_| !s.params.is_empty())
            .and_then(|l| ensemble_runtime::program::ParamSpec::of_modifier(l.modifier));
        match (lib.filter(|l| !l.params.is_empty()), written_as_param) {
            (Some(l), _) => {
                heading(ui, "Parameters");
                super::param_fields::show(ui, s, &l.params, cx, out);
            }
            (None, Some(spec)) => {
                heading(ui, "Parameters");
                super::param_fields::show(ui, s, &[spec], cx, out);
            }
            (None, None) => {
                heading(ui, "Modifier");
                self.modifier(ui, &m.name, s, lib.map(|l| l.modifier), look, cx, out);
            }
        }

        heading(ui, "Transitions");
        let suggestions = super::suggest::events(m, s, cx.names, cx.conversations);
        self.transitions(ui, m, s, &suggestions, out);

        let mine: Vec<&Located> = cx
            .diagnostics
            .iter()
            .copied()
            .filter(|l| l.list() == Some("states") && l.item.as_deref() == Some(s.name.as_str()))
            .collect();
        diagnostics_list(ui, &mine);
        if mine.iter().any(|l| l.severity() == Severity::Error) {
            ui.add_space(4.0);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn modifier(
        &mut self,
        ui: &mut Ui,
        machine: &str,
        s: &StateAsset,
        kind: Option<ModifierKind>,
        look: Look,
        cx: &InspectorCx,
        out: &mut InspectorOutput,
    ) {
        let set = |out: &mut InspectorOutput, m: Option<ModifierValue>| {
            out.edits.push(Edit::SetModifier {
                state: s.name.clone(),
                modifier: m,
            })
        };
        let current = match &s.modifier {
            Some(ModifierValue::Name(n)) => n.clone(),
            Some(ModifierValue::Number(x)) => format!("{x}"),
            None => String::new(),
        };
        let pick = |ui: &mut Ui, out: &mut InspectorOutput, what: &str, options: &[String]| {
            let text = if current.is_empty() {
                RichText::new(choose_prompt(what)).color(theme::TEXT_WEAK)
            } else if options.contains(&current) {
                RichText::new(&current)
            } else {
                RichText::new(format!("{current}  (unknown)")).color(theme::ERROR)
            };
            egui::ComboBox::from_id_salt(("modifier", what))
                .selected_text(text)
                .width(ui.available_width() - 8.0)
                .show_ui(ui, |ui| {
                    for o in options {
                        if ui.selectable_label(*o == current, o).clicked() && *o != current {
                            set(out, Some(ModifierValue::Name(o.clone())));
                        }
                    }
                })
                .response
                .on_hover_text("The modifier: what the library state works on");
        };
        match kind {
            Some(ModifierKind::None) => {
                ui.label(
                    RichText::new("This library state takes no modifier.").color(theme::TEXT_WEAK),
                );
                if s.modifier.is_some() {
                    ui.horizontal(|ui| {
                        ui.label(
                            RichText::new(format!("It has “{current}”.")).color(theme::WARNING),
                        );
                        if ui.small_button("Remove").clicked() {
                            set(out, None);
                        }
                    });
                }
            }
            Some(ModifierKind::Location) => pick(ui, out, "location", &cx.names.locations),
            Some(ModifierKind::Machine) => {
                // A machine never runs itself as a child (it would recurse without end).
                let others: Vec<String> = cx
                    .names
                    .machines
                    .iter()
                    .filter(|n| *n != machine)
                    .cloned()
                    .collect();
                pick(ui, out, "machine", &others);
                if let Some(ModifierValue::Name(child)) = &s.modifier
                    && cx.names.machines.contains(child)
                    && ui.button(format!("⏵ Open {child}")).clicked()
                {
                    out.open_machine = Some(child.clone());
                }
            }
            Some(ModifierKind::Agent) => {
                pick(ui, out, "agent", &cx.names.agents);
                let mut text = current.clone();
                if ui
                    .add(egui::TextEdit::singleline(&mut text).hint_text("or type an agent's name"))
                    .changed()
                {
                    set(out, (!text.is_empty()).then_some(ModifierValue::Name(text)));
                }
            }
            Some(ModifierKind::Number) => {
                let mut x = match &s.modifier {
                    Some(ModifierValue::Number(x)) => *x,
                    _ => 0.0,
                };
                let r = ui.add(
                    egui::DragValue::new(&mut x)
                        .speed(0.1)
                        .range(0.0..=f64::MAX)
                        .suffix(" s"),
                );
                if r.changed() || (s.modifier.is_none() && r.clicked()) {
                    out.edits.push(Edit::SetModifier {
                        state: s.name.clone(),
                        modifier: Some(ModifierValue::Number(x)),
                    });
                }
            }
            Some(ModifierKind::Text) if look == Look::Dialog => {
                pick(ui, out, "sentence state", &cx.names.sentences);
                if let Some(line) = cx.lines.get(&current) {
                    ui.label(
                        RichText::new(format!("“{line}”"))
                            .italics()
                            .color(theme::SPEECH),
                    );
                    ui.label(
                        RichText::new("the best-ranked realisation")
                            .small()
                            .color(theme::TEXT_WEAK),
                    );
                }
            }
            _ => {
                let mut text = current.clone();
                let hint = match look {
                    Look::OneOff => "lines separated by | (OK.|Sure.)",
                    Look::Line => "what the agent says",
                    _ => "modifier",
                };
                let r = ui.add(
                    egui::TextEdit::multiline(&mut text)
                        .id(egui::Id::new(("modifier-text", &s.name)))
                        .desired_rows(2)
                        .desired_width(f32::INFINITY)
                        .hint_text(hint),
                );
                if r.changed() {
                    set(out, (!text.is_empty()).then_some(ModifierValue::Name(text)));
                }
            }
        }
    }

    fn transitions(
        &mut self,
        ui: &mut Ui,
        m: &MachineAsset,
        s: &StateAsset,
        suggestions: &[super::suggest::Suggestion],
        out: &mut InspectorOutput,
    ) {
        if s.on.is_empty() {
            ui.label(RichText::new("none: the machine stays here").color(theme::TEXT_WEAK));
        }
        for (j, (event, target)) in s.on.iter().enumerate() {
            // Two lines per transition: "on EVENT", then "go to TARGET"; narrow enough for the
            // panel, and it reads as the rule it is.
            egui::Frame::new()
                .fill(theme::BOX_FILL)
                .corner_radius(5)
                .inner_margin(egui::Margin::symmetric(8, 6))
                .show(ui, |ui| {
                    let (field, text) = ui
                        .horizontal(|ui| {
                            ui.label(RichText::new("on").color(theme::TEXT_WEAK));
                            let mut text = event.clone();
                            let remove_width = 36.0;
                            let menu_width = if !suggestions.is_empty() { 40.0 } else { 0.0 };
                            let r = ui.add(
                                egui::TextEdit::singleline(&mut text)
                                    .id(egui::Id::new(("event", &s.name, j)))
                                    .desired_width(
                                        ui.available_width() - remove_width - menu_width - 8.0,
                                    )
                                    .hint_text("event"),
                            );
                            if r.changed() {
                                out.edits.push(Edit::SetEvent {
                                    state: s.name.clone(),
                                    index: j,
                                    event: text.clone(),
                                });
                            }
                            let mut picked = None;
                            if !suggestions.is_empty() {
                                ui.menu_button("⏷", |ui| {
                                    picked = super::suggest::menu(ui, suggestions)
                                })
                                .response
                                .on_hover_text(
                                    "Events this state raises and messages sent to it (by a \
                                     conversation partner, a request, a notification)",
                                );
                            }
                            if ui
                                .small_button("×")
                                .on_hover_text("Remove this transition")
                                .clicked()
                            {
                                out.edits.push(Edit::RemoveTransition {
                                    state: s.name.clone(),
                                    index: j,
                                });
                            }
                            if let Some(event) = picked {
                                out.edits.push(Edit::SetEvent {
                                    state: s.name.clone(),
                                    index: j,
                                    event,
                                });
                            }
                            (r, text)
                        })
                        .inner;
                    // Under the field, the width of the box: inside the row, after the
                    // buttons, a long event name wrapped a letter a line.
                    if let Some(event) =
                        super::suggest::completion_list(ui, &field, &text, suggestions)
                    {
                        out.edits.push(Edit::SetEvent {
                            state: s.name.clone(),
                            index: j,
                            event,
                        });
                    }
                    ui.horizontal(|ui| {
                        ui.label(RichText::new("go to").color(theme::TEXT_WEAK));
                        let known = ops::index_of(m, target).is_some();
                        let shown = if known {
                            RichText::new(target)
                        } else {
                            RichText::new(format!("{target}?")).color(theme::ERROR)
                        };
                        egui::ComboBox::from_id_salt(("target", &s.name, j))
                            .selected_text(shown)
                            .width(ui.available_width() - 12.0)
                            .show_ui(ui, |ui| {
                                for t in &m.states {
                                    if ui.selectable_label(t.name == *target, &t.name).clicked()
                                        && t.name != *target
                                    {
                                        out.edits.push(Edit::SetTarget {
                                            state: s.name.clone(),
                                            index: j,
                                            target: t.name.clone(),
                                        });
                                    }
                                }
                            })
                            .response
                            .on_hover_text("The state this transition goes to");
                    });
                });
            ui.add_space(2.0);
        }
        if ui
            .button("+ Add transition")
            .on_hover_text("Add a transition out of this state")
            .clicked()
        {
            let target = ops::next_target(m, &s.name);
            out.edits.push(Edit::AddTransition {
                state: s.name.clone(),
                target,
            });
        }
    }
}
