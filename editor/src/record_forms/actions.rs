//! The actions form (`*.actions.ron`, Zubek §5.2.6): actions (emote, utterance variants with
//! their templates, variable bindings, self-modification of beliefs), named templates, and the
//! arbitration network of accumulators, drawn as the tree it is from each sink.

use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P, Side};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::rename::Named;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::spaces::{
    AccumulatorAsset, ActionAsset, ActionsAsset, RuleAsset, TemplateAsset,
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Tab {
    #[default]
    Actions,
    Templates,
    Arbitration,
}

#[derive(Default)]
pub struct ActionsPanel {
    tab: Tab,
    actions: ItemList,
    templates: ItemList,
    accumulators: ItemList,
    pending: Option<Reveal>,
}

const RULES: [(RuleAsset, &str); 3] = [
    (RuleAsset::First, "First: the first input that proposes"),
    (RuleAsset::Max, "Max: the most believed input"),
    (RuleAsset::All, "All: every input's actions"),
];

/// The arbitration network below `root`, one line per node, indented (a node met again on the
/// way down, in a cycle, is marked and not followed).
pub fn network(acc: &[AccumulatorAsset], root: &str) -> Vec<String> {
    fn walk(
        acc: &[AccumulatorAsset],
        name: &str,
        depth: usize,
        path: &mut Vec<String>,
        out: &mut Vec<String>,
    ) {
        let pad = "    ".repeat(depth);
        let Some(a) = acc.iter().find(|a| a.name == name) else {
            out.push(format!("{pad}{name}"));
            return;
        };
        if path.iter().any(|p| p == name) {
            out.push(format!("{pad}{name}  (cycle)"));
            return;
        }
        let rule = match a.rule {
            RuleAsset::First => "First",
            RuleAsset::Max => "Max",
            RuleAsset::All => "All",
        };
        out.push(format!("{pad}{name}  ({rule})"));
        path.push(name.to_string());
        for i in &a.inputs {
            walk(acc, i, depth + 1, path, out);
        }
        path.pop();
    }
    let mut out = Vec::new();
    walk(acc, root, 0, &mut Vec::new(), &mut out);
    out
}

/// Accumulators no other accumulator takes as input: the network's sinks.
fn sinks(acc: &[AccumulatorAsset]) -> Vec<&str> {
    acc.iter()
        .filter(|a| !acc.iter().any(|b| b.inputs.contains(&a.name)))
        .map(|a| a.name.as_str())
        .collect()
}

impl ActionsPanel {
    fn action(
        &mut self,
        ui: &mut Ui,
        i: usize,
        a: &mut ActionAsset,
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        let more = &cx.names.more;
        let at = |f: &'static str| [P::F("actions"), P::I(i), P::F(f)];
        form::grid(ui, ("action", i), |ui| {
            form::label(
                ui,
                "Name",
                "Space states perform it by this name; renaming updates them and Did(...) evidence.",
            );
            if let Some(new) = form::name_field(
                ui,
                ("action-name", i),
                &a.name,
                220.0,
                "action name",
                &d.notes(&at("name")),
            ) {
                cx.request(Request::Rename {
                    what: Named::Action,
                    old: a.name.clone(),
                    new,
                });
            }
            ui.end_row();
            form::label(
                ui,
                "Emote",
                "What the agent does as it speaks (says, nods, glances).",
            );
            changed |= form::text(
                ui,
                &mut a.emote,
                160.0,
                "says",
                "emote",
                &d.notes(&at("emote")),
            );
            ui.end_row();
        });
        form::section(ui, "Says (one variant per line)");
        form::help(
            ui,
            "One is chosen at random. {a|b} picks an alternative, {@template} a template, {the-item} a variable, {the-item.price} its property, {the-dish.quantity} the number heard with it (\"two ales\"; a wording that says it is preferred when one was heard).",
        );
        changed |= form::line_list(
            ui,
            &mut a.say,
            f32::INFINITY,
            3,
            "none: a pure emote",
            "says",
            &d.notes(&at("say")),
        );
        form::section(ui, "Binds");
        changed |= form::pairs(
            ui,
            ("action-bind", i),
            &mut a.bind,
            Side::Pick {
                options: &more.variables,
                width: 140.0,
            },
            "to",
            Side::Pick {
                options: &more.concepts,
                width: 140.0,
            },
            "binding",
        );
        form::section(ui, "Unbinds");
        changed |= form::chips(
            ui,
            ("action-unbind", i),
            &mut a.unbind,
            &more.variables,
            false,
            false,
            "unbinds",
        );
        form::section(ui, "Puts on a tally");
        form::help(
            ui,
            "What goes on the tally when the action is done: a variable's concept, or a concept by name.",
        );
        let items: Vec<String> = (more.variables.iter().chain(&more.concepts).cloned()).collect();
        changed |= form::pairs(
            ui,
            ("action-tally", i),
            &mut a.tally,
            Side::Pick {
                options: &more.variables,
                width: 140.0,
            },
            "+=",
            Side::Pick {
                options: &items,
                width: 140.0,
            },
            "tally",
        );
        form::help(
            ui,
            "Once: only when nothing of its kind is on the tally yet (a room is let once).",
        );
        changed |= form::pairs(
            ui,
            ("action-tally-once", i),
            &mut a.tally_once,
            Side::Pick {
                options: &more.variables,
                width: 140.0,
            },
            "+= once",
            Side::Pick {
                options: &items,
                width: 140.0,
            },
            "tally once",
        );
        form::section(ui, "Copies belief");
        form::help(
            ui,
            "Self-modification: b(target) := b(source), applied after arbitration.",
        );
        let targets = more
            .inspection_targets()
            .into_iter()
            .filter(|t| t.contains('.'))
            .collect::<Vec<_>>();
        changed |= form::pairs(
            ui,
            ("action-copy", i),
            &mut a.copy_belief,
            Side::Pick {
                options: &targets,
                width: 170.0,
            },
            ":=",
            Side::Pick {
                options: &targets,
                width: 170.0,
            },
            "belief copy",
        );
        form::problems(ui, d.under(&[P::F("actions"), P::I(i)]));
        changed
    }

    fn template(
        &mut self,
        ui: &mut Ui,
        i: usize,
        t: &mut TemplateAsset,
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        let at = |f: &'static str| [P::F("templates"), P::I(i), P::F(f)];
        form::grid(ui, ("template", i), |ui| {
            form::label(
                ui,
                "Name",
                "Utterances use it as {@name}; renaming updates them.",
            );
            if let Some(new) = form::name_field(
                ui,
                ("template-name", i),
                &t.name,
                220.0,
                "template name",
                &d.notes(&at("name")),
            ) {
                cx.request(Request::Rename {
                    what: Named::Template,
                    old: t.name.clone(),
                    new,
                });
            }
            ui.end_row();
        });
        form::section(ui, "Variants (one per line)");
        changed |= form::line_list(
            ui,
            &mut t.variants,
            f32::INFINITY,
            4,
            "hm\nwell",
            "variants",
            &d.notes(&at("variants")),
        );
        form::problems(ui, d.under(&[P::F("templates"), P::I(i)]));
        changed
    }

    fn accumulator(
        &mut self,
        ui: &mut Ui,
        i: usize,
        acc: &mut [AccumulatorAsset],
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        let inputs: Vec<String> = cx
            .names
            .more
            .arbitration_inputs()
            .into_iter()
            .filter(|n| *n != acc[i].name)
            .collect();
        let a = &mut acc[i];
        let at = |f: &'static str| [P::F("accumulators"), P::I(i), P::F(f)];
        form::grid(ui, ("accumulator", i), |ui| {
            form::label(
                ui,
                "Name",
                "Other accumulators and the chat's output name it; renaming updates them.",
            );
            if let Some(new) = form::name_field(
                ui,
                ("accumulator-name", i),
                &a.name,
                220.0,
                "accumulator name",
                &d.notes(&at("name")),
            ) {
                cx.request(Request::Rename {
                    what: Named::Accumulator,
                    old: a.name.clone(),
                    new,
                });
            }
            ui.end_row();
            form::label(ui, "Rule", "How it folds its inputs' proposals.");
            changed |= form::choose(
                ui,
                ("accumulator-rule", i),
                &mut a.rule,
                &RULES,
                280.0,
                "rule",
            );
            ui.end_row();
            form::label(
                ui,
                "Inputs",
                "Spaces and accumulators, in priority order: most specific first (Zubek §4.2.2).",
            );
            changed |= form::chips(
                ui,
                ("accumulator-inputs", i),
                &mut a.inputs,
                &inputs,
                false,
                true,
                "inputs",
            );
            ui.end_row();
        });
        form::problems(ui, d.under(&[P::F("accumulators"), P::I(i)]));
        changed
    }
}

impl AssetPanel<ActionsAsset> for ActionsPanel {
    fn ui(&mut self, ui: &mut Ui, v: &mut ActionsAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take() {
            if let Some(i) = reveal_index(&t, "actions", v.actions.iter().map(|x| x.name.as_str()))
            {
                self.tab = Tab::Actions;
                self.actions.select(i);
            } else if let Some(i) =
                reveal_index(&t, "templates", v.templates.iter().map(|x| x.name.as_str()))
            {
                self.tab = Tab::Templates;
                self.templates.select(i);
            } else if let Some(i) = reveal_index(
                &t,
                "accumulators",
                v.accumulators.iter().map(|x| x.name.as_str()),
            ) {
                self.tab = Tab::Arbitration;
                self.accumulators.select(i);
            }
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new("Actions").heading().color(theme::TEXT));
            ui.add_space(12.0);
            for (tab, label, n) in [
                (Tab::Actions, "Actions", v.actions.len()),
                (Tab::Templates, "Templates", v.templates.len()),
                (Tab::Arbitration, "Arbitration", v.accumulators.len()),
            ] {
                if ui
                    .selectable_label(self.tab == tab, format!("{label} ({n})"))
                    .clicked()
                {
                    self.tab = tab;
                }
            }
        });
        form::problems(ui, d.outside(&["actions", "templates", "accumulators"]));
        ui.separator();
        let list = ui.id().with("actions-list");
        match self.tab {
            Tab::Actions => {
                crate::marks::docked(egui::Panel::left(list), 250.0, 180.0).show(ui, |ui| {
                    changed |= self.actions.show(
                        ui,
                        "actions",
                        "Actions",
                        "action",
                        &mut v.actions,
                        |i, a| ItemRow {
                            detail: if a.emote == "says" {
                                String::new()
                            } else {
                                a.emote.clone()
                            },
                            severity: d.worst(&[P::F("actions"), P::I(i)]),
                        },
                        |name| ActionAsset {
                            name,
                            emote: "says".into(),
                            say: Vec::new(),
                            bind: Vec::new(),
                            unbind: Vec::new(),
                            copy_belief: Vec::new(),
                            tally: Vec::new(),
                            tally_once: Vec::new(),
                        },
                    );
                });
                egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| match self.actions.current(v.actions.len()) {
                        Some(i) => changed |= self.action(ui, i, &mut v.actions[i], cx, d),
                        None => form::help(ui, "No actions yet: add one with “+ action”."),
                    });
            }
            Tab::Templates => {
                crate::marks::docked(egui::Panel::left(list), 250.0, 180.0).show(ui, |ui| {
                    changed |= self.templates.show(
                        ui,
                        "templates",
                        "Templates",
                        "template",
                        &mut v.templates,
                        |i, t| ItemRow {
                            detail: format!("{} variants", t.variants.len()),
                            severity: d.worst(&[P::F("templates"), P::I(i)]),
                        },
                        |name| TemplateAsset {
                            name,
                            variants: Vec::new(),
                        },
                    );
                });
                egui::ScrollArea::vertical()
                    .auto_shrink([false, false])
                    .show(ui, |ui| match self.templates.current(v.templates.len()) {
                        Some(i) => changed |= self.template(ui, i, &mut v.templates[i], cx, d),
                        None => form::help(ui, "No templates yet: add one with “+ template”."),
                    });
            }
            Tab::Arbitration => {
                crate::marks::docked(egui::Panel::left(list), 250.0, 180.0).show(ui, |ui| {
                    changed |= self.accumulators.show(
                        ui,
                        "accumulators",
                        "Accumulators",
                        "accumulator",
                        &mut v.accumulators,
                        |i, a| ItemRow {
                            detail: format!("{:?}", a.rule),
                            severity: d.worst(&[P::F("accumulators"), P::I(i)]),
                        },
                        |name| AccumulatorAsset {
                            name,
                            rule: RuleAsset::First,
                            inputs: Vec::new(),
                        },
                    );
                });
                form::detail(ui, |ui| {
                    if let Some(i) = self.accumulators.current(v.accumulators.len()) {
                        changed |= self.accumulator(ui, i, &mut v.accumulators, cx, d);
                    } else {
                        form::help(ui, "No accumulators yet: add one with “+ accumulator”.");
                    }
                    form::section(ui, "Network");
                    for sink in sinks(&v.accumulators) {
                        for line in network(&v.accumulators, sink) {
                            ui.label(RichText::new(line).monospace().color(theme::TEXT));
                        }
                        ui.add_space(4.0);
                    }
                });
            }
        }
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acc(name: &str, inputs: &[&str]) -> AccumulatorAsset {
        AccumulatorAsset {
            name: name.into(),
            rule: RuleAsset::First,
            inputs: inputs.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn the_network_is_drawn_from_its_sink_and_cycles_are_marked() {
        let a = vec![
            acc("specific", &["bar", "haggle"]),
            acc("respond", &["specific", "greeting"]),
        ];
        assert_eq!(sinks(&a), ["respond"]);
        assert_eq!(
            network(&a, "respond"),
            [
                "respond  (First)",
                "    specific  (First)",
                "        bar",
                "        haggle",
                "    greeting"
            ]
        );
        let cyclic = vec![acc("a", &["b"]), acc("b", &["a"])];
        assert!(network(&cyclic, "a").iter().any(|l| l.contains("(cycle)")));
    }
}
