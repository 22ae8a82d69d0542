//! The STRIPS editors: domains (`*.domain.ron`: types, constants, predicates, operators with
//! their parameters, actor, preconditions, add and delete lists and the machine that performs
//! each) and problems (`*.problem.ron`: the domain, objects, initial facts, goal, the object
//! that plans, machines per action, planner settings) with the plan an agent would make,
//! computed from the last compile on a worker thread. Literals use the cell syntax of
//! interaction scripts and are checked with the compiler's parser as they are typed.

use super::action_list::planner;
use super::preview::{Job, Preview, Worker};
use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P, Side};
use crate::panel::{AssetPanel, PanelCx, Reveal};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::planning::{DomainAsset, OperatorAsset, ProblemAsset};

/// Literal strings, one per line (a line may hold several, comma-separated), each checked.
pub fn literals(ui: &mut Ui, list: &mut Vec<String>, hint: &str, name: &str, atoms: bool) -> bool {
    let changed = form::line_list(ui, list, f32::INFINITY, 2, hint, name, &[]);
    for (i, line) in list.iter().enumerate() {
        let r = if atoms {
            ensemble_compiler::formats::planning::atoms(line).map(|_| ())
        } else {
            ensemble_compiler::formats::planning::literals(line).map(|_| ())
        };
        if let Err(e) = r {
            ui.label(
                RichText::new(format!(
                    "✖ line {}: {} (“{}”)",
                    i + 1,
                    e.message,
                    line.get(e.range.clone()).unwrap_or(line)
                ))
                .small()
                .color(theme::ERROR),
            );
        }
    }
    changed
}

#[derive(Default)]
pub struct DomainPanel {
    list: ItemList,
    pending: Option<Reveal>,
}

impl DomainPanel {
    fn operator(
        &mut self,
        ui: &mut Ui,
        i: usize,
        o: &mut OperatorAsset,
        types: &[String],
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        let at = |f: &'static str| [P::F("actions"), P::I(i), P::F(f)];
        form::grid(ui, ("operator", i), |ui| {
            form::label(ui, "Name", "Ground actions are named Name(arg, …).");
            changed |= form::text(
                ui,
                &mut o.name,
                200.0,
                "name",
                "operator name",
                &d.notes(&at("name")),
            );
            ui.end_row();
            form::label(
                ui,
                "Machine",
                "The state machine that performs it (a problem may override it).",
            );
            changed |= form::pick_opt(
                ui,
                ("operator-machine", i),
                &mut o.machine,
                &cx.names.machines,
                200.0,
                "machine",
                "none (no time)",
            );
            ui.end_row();
        });
        form::section(ui, "Parameters");
        changed |= form::pairs(
            ui,
            ("operator-params", i),
            &mut o.parameters,
            Side::Free {
                hint: "Who",
                width: 90.0,
            },
            "is a",
            Side::Pick {
                options: types,
                width: 120.0,
            },
            "parameter",
        );
        let params: Vec<String> = o.parameters.iter().map(|(p, _)| p.clone()).collect();
        ui.horizontal(|ui| {
            form::label(ui, "Actor", "The parameter that performs it (Inampudi's affordant): a problem plans only with its own agent's instances.");
            changed |= form::pick_opt(ui, ("operator-actor", i), &mut o.actor, &params, 120.0, "actor", "anyone");
        });
        form::section(ui, "Preconditions");
        changed |= literals(
            ui,
            &mut o.pre,
            "atShop(Who), not open(D)",
            "preconditions",
            false,
        );
        form::section(ui, "Adds");
        changed |= literals(ui, &mut o.add, "open(D)", "adds", true);
        form::section(ui, "Deletes");
        changed |= literals(ui, &mut o.del, "inStock(I)", "deletes", true);
        form::problems(ui, d.under(&[P::F("actions"), P::I(i)]));
        changed
    }
}

impl AssetPanel<DomainAsset> for DomainPanel {
    fn ui(&mut self, ui: &mut Ui, dm: &mut DomainAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take()
            && let Some(i) = crate::panel::reveal_index(
                &t,
                "actions",
                dm.actions.iter().map(|a| a.name.as_str()),
            )
        {
            self.list.select(i);
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new("STRIPS domain").heading().color(theme::TEXT));
            changed |= form::text(
                ui,
                &mut dm.name,
                180.0,
                "domain name",
                "domain name",
                &d.notes(&[P::F("name")]),
            );
        });
        form::problems(ui, d.outside(&["actions", "name"]));
        let types = crate::names::domain_types(dm);
        egui::CollapsingHeader::new(RichText::new("Types, constants and predicates").strong())
            .id_salt("domain-header")
            .default_open(true)
            .show(ui, |ui| {
                ui.horizontal_top(|ui| {
                    ui.vertical(|ui| {
                        form::label(ui, "Types", "type ⏵ parent; object is the root");
                        changed |= form::key_values(
                            ui,
                            "domain-types",
                            &mut dm.types,
                            &[],
                            "type",
                            "type",
                        );
                    });
                    ui.add_space(24.0);
                    ui.vertical(|ui| {
                        form::label(
                            ui,
                            "Constants",
                            "objects every problem has, with their type",
                        );
                        changed |= form::key_values(
                            ui,
                            "domain-constants",
                            &mut dm.constants,
                            &[],
                            "constant",
                            "constant",
                        );
                    });
                    ui.add_space(24.0);
                    ui.vertical(|ui| {
                        ui.set_width(320.0);
                        form::label(
                            ui,
                            "Predicates",
                            "names with their argument types: inside(agent)",
                        );
                        changed |=
                            literals(ui, &mut dm.predicates, "open(door)", "predicates", true);
                    });
                });
            });
        ui.separator();
        crate::marks::docked(
            egui::Panel::left(ui.id().with("domain-operators")),
            230.0,
            170.0,
        )
        .show(ui, |ui| {
            changed |= self.list.show(
                ui,
                "domain-operators",
                "Operators",
                "operator",
                &mut dm.actions,
                |i, o| ItemRow {
                    detail: o.machine.clone().unwrap_or_default(),
                    severity: d.worst(&[P::F("actions"), P::I(i)]),
                },
                |name| OperatorAsset {
                    name,
                    parameters: Vec::new(),
                    actor: None,
                    pre: Vec::new(),
                    add: Vec::new(),
                    del: Vec::new(),
                    machine: None,
                },
            );
        });
        form::detail(ui, |ui| match self.list.current(dm.actions.len()) {
            Some(i) => changed |= self.operator(ui, i, &mut dm.actions[i], &types, cx, d),
            None => form::help(ui, "No operators yet: add one with “+ operator”."),
        });
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

/// The plan an agent would make on a problem, from the problem as the last compile grounded
/// it (native or PDDL), planned on a worker thread with the problem's own planner.
#[derive(Default)]
pub struct PlanView {
    worker: Option<Worker>,
    /// What the task last asked about was.
    asked: Option<u64>,
}

impl PlanView {
    pub fn show(&mut self, ui: &mut Ui, name: &str, cx: &PanelCx) {
        let wake = ui.ctx().clone();
        let worker = self
            .worker
            .get_or_insert_with(|| Worker::start(move || wake.request_repaint()));
        let module = cx.compiled.and_then(|c| c.module);
        let grounded = module.and_then(|m| {
            m.problems
                .iter()
                .find(|(_, x)| x.name.text == name)
                .map(|(_, x)| x)
        });
        ui.horizontal(|ui| {
            ui.label(RichText::new("Plan").strong().color(theme::TEXT));
            if worker.is_waiting() {
                ui.spinner();
            }
        });
        let Some(problem) = grounded else {
            form::help(
                ui,
                "The plan appears once this problem compiles without errors.",
            );
            return;
        };
        let fingerprint = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            format!(
                "{:?}{:?}{}{:?}",
                problem.task, problem.planner, problem.max_nodes, problem.machines
            )
            .hash(&mut h);
            h.finish()
        };
        if self.asked != Some(fingerprint) {
            let machines = problem
                .machines
                .iter()
                .map(|m| m.and_then(|h| module.map(|md| md.machines[h].name.text.clone())))
                .collect();
            worker.ask_now(Job::Task {
                task: problem.task.clone(),
                planner: problem.planner,
                max_nodes: problem.max_nodes,
                machines,
            });
            self.asked = Some(fingerprint);
        }
        if let Some(wait) = worker.poll() {
            ui.ctx().request_repaint_after(wait);
        }
        let Some(answer) = worker.latest.clone() else {
            return;
        };
        let Preview::Plan(plan) = &answer.preview else {
            return;
        };
        ui.label(
            RichText::new(format!(
                "{} · {} facts, {} ground actions · {} nodes in {:.1} ms",
                plan.search,
                plan.facts,
                plan.operators,
                plan.expanded,
                answer.elapsed.as_secs_f64() * 1000.0
            ))
            .color(theme::TEXT_WEAK),
        );
        match &plan.outcome {
            Err(e) => {
                ui.label(RichText::new(format!("✖ {e}")).color(theme::ERROR));
            }
            Ok(()) => {
                egui::Grid::new("problem-plan")
                    .num_columns(3)
                    .spacing([8.0, 2.0])
                    .show(ui, |ui| {
                        for (k, (step, machine)) in plan.steps.iter().enumerate() {
                            ui.label(RichText::new(format!("{}.", k + 1)).color(theme::TEXT_WEAK));
                            ui.label(RichText::new(step).color(theme::TEXT));
                            super::picture::machine_link(ui, cx, machine.as_deref());
                            ui.end_row();
                        }
                    });
                let (text, color) = if plan.steps.is_empty() {
                    (
                        "✔ the goal holds in the initial state".to_string(),
                        theme::OK,
                    )
                } else if plan.valid {
                    (
                        format!(
                            "✔ {}, checked: the goal holds after the last",
                            super::picture::steps(plan.steps.len())
                        ),
                        theme::OK,
                    )
                } else {
                    (
                        "✖ the plan does not replay to the goal".to_string(),
                        theme::ERROR,
                    )
                };
                ui.label(RichText::new(text).color(color));
            }
        }
    }
}

#[derive(Default)]
pub struct ProblemPanel {
    plan: PlanView,
}

impl AssetPanel<ProblemAsset> for ProblemPanel {
    fn ui(&mut self, ui: &mut Ui, p: &mut ProblemAsset, cx: &PanelCx) -> bool {
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        let name = p.name.clone();
        crate::marks::docked(
            egui::Panel::right(ui.id().with("problem-plan")),
            400.0,
            280.0,
        )
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("problem-plan-scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| self.plan.show(ui, &name, cx));
        });
        form::detail(ui, |ui| {
            ui.label(RichText::new("STRIPS problem").heading().color(theme::TEXT));
            form::problems(ui, d.outside(&["init", "goal", "objects"]));
            let objects: Vec<String> = p.objects.keys().cloned().collect();
            form::grid(ui, "problem", |ui| {
                form::label(ui, "Name", "What a Plan state and world events name.");
                changed |= form::text(
                    ui,
                    &mut p.name,
                    220.0,
                    "problem name",
                    "problem name",
                    &d.notes(&[P::F("name")]),
                );
                ui.end_row();
                form::label(ui, "Domain", "A *.domain.ron or a PDDL domain, by name.");
                changed |= form::pick(
                    ui,
                    "problem-domain",
                    &mut p.domain,
                    &cx.names.more.domains,
                    220.0,
                    "domain",
                    "choose a domain",
                );
                ui.end_row();
                form::label(
                    ui,
                    "Actor",
                    "The object that plans: it plans only with the actions it performs.",
                );
                changed |= form::pick_opt(
                    ui,
                    "problem-actor",
                    &mut p.actor,
                    &objects,
                    220.0,
                    "actor",
                    "none",
                );
                ui.end_row();
                form::label(ui, "Planner", "How the agent plans.");
                ui.horizontal(|ui| changed |= planner(ui, "problem", &mut p.planner));
                ui.end_row();
            });
            form::section(ui, "Objects");
            let domain = cx.names.more.domain_names.get(&p.domain);
            let of_type = match domain {
                Some(dm) => Side::Pick {
                    options: &dm.types,
                    width: 180.0,
                },
                None => Side::Free {
                    hint: "type",
                    width: 180.0,
                },
            };
            changed |= form::key_values_as(
                ui,
                "problem-objects",
                &mut p.objects,
                &[],
                "object",
                "object",
                of_type,
            );
            form::section(ui, "Initially true");
            changed |= literals(ui, &mut p.init, "atShop(player)", "initial facts", true);
            form::problems(ui, d.under(&[P::F("init")]));
            form::section(ui, "Goal");
            changed |= literals(ui, &mut p.goal, "has(npc, sword)", "goal", false);
            form::problems(ui, d.under(&[P::F("goal")]));
            form::section(ui, "Machines per action");
            form::help(
                ui,
                "Override the domain's (this is how PDDL actions get machines).",
            );
            let actions = domain.map_or(&[][..], |dm| &dm.actions);
            changed |= form::key_values_as(
                ui,
                "problem-machines",
                &mut p.machines,
                actions,
                "action",
                "machine for",
                Side::Pick {
                    options: &cx.names.machines,
                    width: 200.0,
                },
            );
        });
        changed
    }

    fn reveal(&mut self, _target: &Reveal) {}
}
