//! The action list editor (`*.actionlist.ron`, Hewlett §2.2): the named variables (enumerated
//! or integer), the actions with their constraints and effects — each variable and value picked
//! from what the variables declare — and the machine that performs each, the seed states and
//! the goal; beside them the planning graph built as you edit, a plan from each seed (or from
//! any state clicked in the graph), or the state-explosion report when the graph outgrows its
//! limit.

use super::picture;
use super::preview::{self, GraphPreview, Job, Preview, Worker};
use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P};
use crate::panel::{AssetPanel, PanelCx, Reveal};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::planning::{Action, Condition, Effect, Value, Variable};
use ensemble_compiler::formats::planning::{ActionListAsset, PlannerAsset, SearchAsset};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Tab {
    Variables,
    #[default]
    Actions,
    Seeds,
}

#[derive(Default)]
pub struct ActionListPanel {
    tab: Tab,
    actions: ItemList,
    worker: Option<Worker>,
    asked: Option<ActionListAsset>,
    /// The seed whose plan is shown, or a state clicked in the graph.
    from: From,
    pending: Option<Reveal>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum From {
    #[default]
    FirstSeed,
    Seed(usize),
    State(u32),
}

pub const SEARCHES: [(Option<SearchAsset>, &str); 6] = [
    (None, "default search"),
    (Some(SearchAsset::Graph), "Graph (shared planning graph)"),
    (Some(SearchAsset::AStar), "A*"),
    (Some(SearchAsset::Gbfs), "greedy best-first"),
    (Some(SearchAsset::MinMin), "MinMin (real-time)"),
    (Some(SearchAsset::Pop), "partial-order (POP)"),
];

/// A count that is optional (unset: the compiler's `default`), labelled `name` before it.
fn count(ui: &mut Ui, value: &mut Option<u64>, default: u64, max: f64, name: &str) -> bool {
    ui.label(RichText::new(name).color(theme::TEXT_WEAK));
    let mut n = value.map(|n| n as f64);
    let hint = default
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|c| std::str::from_utf8(c).unwrap_or_default())
        .collect::<Vec<_>>()
        .join(",");
    let changed = form::opt_number(ui, &mut n, default as f64, 1.0..=max, 10.0, "", &hint, name);
    if changed {
        *value = n.map(|n| n.round() as u64);
    }
    changed
}

/// The planner settings every planning asset has: search and node budget.
pub fn planner(ui: &mut Ui, id: &str, p: &mut PlannerAsset) -> bool {
    let mut changed = form::choose(
        ui,
        (id, "search"),
        &mut p.search,
        &SEARCHES,
        220.0,
        "search",
    );
    changed |= count(ui, &mut p.max_nodes, 100_000, 1e9, "node budget");
    changed
}

fn value_names(vars: &[Variable], name: &str) -> Option<Vec<String>> {
    vars.iter()
        .find(|v| v.name == name)
        .and_then(|v| v.values.clone())
}

/// A value of variable `var`: one of its names, or a number for an integer variable.
fn value(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    vars: &[Variable],
    var: &str,
    v: &mut Value,
    name: String,
) -> bool {
    match value_names(vars, var) {
        Some(names) => {
            let mut shown = match v {
                Value::Name(n) => n.clone(),
                Value::Int(i) => names
                    .get(*i as usize)
                    .cloned()
                    .unwrap_or_else(|| i.to_string()),
            };
            if form::pick(ui, id, &mut shown, &names, 130.0, name, "value…") {
                *v = Value::Name(shown);
                return true;
            }
            false
        }
        None => {
            let mut x = match v {
                Value::Int(i) => *i as f64,
                Value::Name(_) => 0.0,
            };
            let r = ui.add(egui::DragValue::new(&mut x).speed(0.1).max_decimals(0));
            crate::marks::name_widget(ui, &r, name);
            if r.changed() {
                *v = Value::Int(x.round() as i64);
                return true;
            }
            false
        }
    }
}

/// A new value of variable `var`: its `nth` value by name (or its first), or the number `nth`
/// for an integer.
fn initial(vars: &[Variable], var: &str, nth: usize) -> Value {
    match value_names(vars, var) {
        Some(names) => names
            .get(nth)
            .or(names.first())
            .map_or(Value::Int(0), |n| Value::Name(n.clone())),
        None => Value::Int(nth as i64),
    }
}

/// A variable picked among the declared ones; picking another resets `value` to one of its
/// own ([`initial`]: its `nth`).
fn variable(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    (var, value, nth): (&mut String, &mut Value, usize),
    vars: &[Variable],
    name: String,
) -> bool {
    let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
    let changed = form::pick(ui, id, var, &names, 130.0, name, "variable…");
    if changed {
        *value = initial(vars, var, nth);
    }
    changed
}

fn condition(
    ui: &mut Ui,
    id: (&str, usize, usize),
    vars: &[Variable],
    c: &mut Condition,
    label: &str,
) -> bool {
    let (mut var, mut v, mut eq) = match c.clone() {
        Condition::Eq(n, v) => (n, v, true),
        Condition::Ne(n, v) => (n, v, false),
    };
    let mut changed = variable(
        ui,
        (id, "var"),
        (&mut var, &mut v, 0),
        vars,
        format!("{label} variable"),
    );
    changed |= form::choose(
        ui,
        (id, "op"),
        &mut eq,
        &[(true, "="), (false, "≠")],
        44.0,
        format!("{label} test"),
    );
    changed |= value(
        ui,
        (id, "value"),
        vars,
        &var,
        &mut v,
        format!("{label} value"),
    );
    if changed {
        *c = if eq {
            Condition::Eq(var, v)
        } else {
            Condition::Ne(var, v)
        };
    }
    changed
}

fn effect(
    ui: &mut Ui,
    id: (&str, usize, usize),
    vars: &[Variable],
    e: &mut Effect,
    label: &str,
) -> bool {
    let (mut set, mut var, mut v) = match e.clone() {
        Effect::Set(n, v) => (true, n, v),
        Effect::Add(n, k) => (false, n, Value::Int(k)),
    };
    let mut changed = form::choose(
        ui,
        (id, "kind"),
        &mut set,
        &[(true, "set"), (false, "add to")],
        70.0,
        format!("{label} kind"),
    );
    changed |= variable(
        ui,
        (id, "var"),
        (&mut var, &mut v, 1),
        vars,
        format!("{label} variable"),
    );
    ui.label(RichText::new(if set { "to" } else { "by" }).color(theme::TEXT_WEAK));
    if set {
        changed |= value(
            ui,
            (id, "value"),
            vars,
            &var,
            &mut v,
            format!("{label} value"),
        );
    } else {
        let mut k = match v {
            Value::Int(k) => k as f64,
            Value::Name(_) => 1.0,
        };
        let r = ui.add(egui::DragValue::new(&mut k).speed(0.1).max_decimals(0));
        crate::marks::name_widget(ui, &r, format!("{label} amount"));
        if r.changed() {
            v = Value::Int(k.round() as i64);
            changed = true;
        }
    }
    if changed {
        *e = match (set, v) {
            (true, v) => Effect::Set(var, v),
            (false, Value::Int(k)) => Effect::Add(var, k),
            (false, Value::Name(_)) => Effect::Add(var, 1),
        };
    }
    changed
}

/// Rows of conditions with a remove button each and `+`.
fn conditions(
    ui: &mut Ui,
    id: &str,
    vars: &[Variable],
    list: &mut Vec<Condition>,
    noun: &str,
) -> bool {
    let mut changed = false;
    let mut remove = None;
    for (k, c) in list.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            changed |= condition(ui, (id, k, 0), vars, c, &format!("{noun} {}", k + 1));
            if form::remove_button(ui, format!("remove {noun} {}", k + 1)) {
                remove = Some(k);
            }
        });
    }
    if let Some(k) = remove {
        list.remove(k);
        changed = true;
    }
    if form::add_button(ui, format!("+ {noun}"), format!("add {noun}")) {
        let var = vars.first().map(|v| v.name.clone()).unwrap_or_default();
        let v = initial(vars, &var, 0);
        list.push(Condition::Eq(var, v));
        changed = true;
    }
    changed
}

impl ActionListPanel {
    fn variables(&mut self, ui: &mut Ui, l: &mut ActionListAsset, d: Diags) -> bool {
        let mut changed = false;
        form::help(
            ui,
            "The planning state: named variables. An enumerated one names its values; one without values is an integer.",
        );
        let mut remove = None;
        egui::Grid::new("actionlist-variables")
            .num_columns(4)
            .spacing([10.0, 6.0])
            .striped(true)
            .show(ui, |ui| {
                for (i, v) in l.variables.iter_mut().enumerate() {
                    changed |= form::text(
                        ui,
                        &mut v.name,
                        150.0,
                        "name",
                        format!("variable {} name", i + 1),
                        &d.notes(&[P::F("variables"), P::I(i), P::F("name")]),
                    );
                    let mut enumerated = v.values.is_some();
                    let r = ui.checkbox(&mut enumerated, "values");
                    crate::marks::name_widget(ui, &r, format!("variable {} enumerated", i + 1));
                    if r.changed() {
                        v.values = enumerated.then(|| vec!["0".to_string(), "1".to_string()]);
                        changed = true;
                    }
                    match &mut v.values {
                        Some(values) => {
                            changed |= form::comma_list(
                                ui,
                                values,
                                360.0,
                                "Gate, Security, …",
                                format!("variable {} values", i + 1),
                                &d.notes(&[P::F("variables"), P::I(i), P::F("values")]),
                            )
                        }
                        None => {
                            ui.label(RichText::new("integer").italics().color(theme::TEXT_WEAK));
                        }
                    }
                    if form::remove_button(ui, format!("remove variable {}", i + 1)) {
                        remove = Some(i);
                    }
                    ui.end_row();
                }
            });
        if let Some(i) = remove {
            l.variables.remove(i);
            changed = true;
        }
        let add = ui.button("+ variable");
        crate::marks::name_widget(ui, &add, "add variable");
        if add.clicked() {
            let name = form::unique_name(l.variables.iter().map(|v| v.name.as_str()), "Variable");
            l.variables.push(Variable {
                name,
                values: Some(vec!["0".into(), "1".into()]),
            });
            changed = true;
        }
        changed
    }

    fn action(
        &mut self,
        ui: &mut Ui,
        i: usize,
        l: &mut ActionListAsset,
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        let vars = l.variables.clone();
        let a = &mut l.actions[i];
        form::grid(ui, ("list-action", i), |ui| {
            form::label(ui, "Name", "What plans and traces call it.");
            changed |= form::text(
                ui,
                &mut a.name,
                220.0,
                "name",
                "action name",
                &d.notes(&[P::F("actions"), P::I(i), P::F("name")]),
            );
            ui.end_row();
            form::label(
                ui,
                "Machine",
                "The state machine that performs it. None: it takes no time.",
            );
            changed |= form::pick_opt(
                ui,
                ("list-machine", i),
                &mut a.machine,
                &cx.names.machines,
                200.0,
                "machine",
                "none (no time)",
            );
            ui.end_row();
        });
        form::section(ui, "When (constraints)");
        changed |= conditions(
            ui,
            &format!("constraints{i}"),
            &vars,
            &mut a.constraints,
            "constraint",
        );
        form::section(ui, "Then (effects)");
        let mut remove = None;
        for (k, e) in a.effects.iter_mut().enumerate() {
            ui.horizontal(|ui| {
                changed |= effect(
                    ui,
                    ("effects", i, k),
                    &vars,
                    e,
                    &format!("effect {}", k + 1),
                );
                if form::remove_button(ui, format!("remove effect {}", k + 1)) {
                    remove = Some(k);
                }
            });
        }
        if let Some(k) = remove {
            a.effects.remove(k);
            changed = true;
        }
        if form::add_button(ui, "+ effect", "add effect") {
            let var = vars.first().map(|v| v.name.clone()).unwrap_or_default();
            let v = initial(&vars, &var, 1);
            a.effects.push(Effect::Set(var, v));
            changed = true;
        }
        form::problems(ui, d.under(&[P::F("actions"), P::I(i)]));
        changed
    }

    fn seeds(&mut self, ui: &mut Ui, l: &mut ActionListAsset, d: Diags) -> bool {
        let mut changed = false;
        let vars = l.variables.clone();
        let names: Vec<String> = vars.iter().map(|v| v.name.clone()).collect();
        form::section(ui, "Seed states");
        form::help(
            ui,
            "The planning graph grows from these; variables not given are 0. Agents start in the first; add one for every state an agent can only find itself in (Hewlett's wrong gate).",
        );
        let mut remove_seed = None;
        for (s, seed) in l.seeds.iter_mut().enumerate() {
            form::card(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.label(
                        RichText::new(if s == 0 {
                            "seed 1 (agents start here)".to_string()
                        } else {
                            format!("seed {}", s + 1)
                        })
                        .strong()
                        .color(theme::TEXT),
                    );
                    let x = ui.small_button("remove seed");
                    crate::marks::name_widget(ui, &x, format!("remove seed {}", s + 1));
                    if x.clicked() {
                        remove_seed = Some(s);
                    }
                });
                let mut remove = None;
                for (k, (var, v)) in seed.iter_mut().enumerate() {
                    ui.horizontal(|ui| {
                        changed |= variable(
                            ui,
                            ("seed-var", s, k),
                            (var, v, 0),
                            &vars,
                            format!("seed {} variable {}", s + 1, k + 1),
                        );
                        ui.label(RichText::new("=").color(theme::TEXT_WEAK));
                        changed |= value(
                            ui,
                            ("seed-value", s, k),
                            &vars,
                            var,
                            v,
                            format!("seed {} value {}", s + 1, k + 1),
                        );
                        if form::remove_button(ui, format!("remove seed {} value {}", s + 1, k + 1))
                        {
                            remove = Some(k);
                        }
                    });
                }
                if let Some(k) = remove {
                    seed.remove(k);
                    changed = true;
                }
                if form::add_button(ui, "+ value", format!("add seed {} value", s + 1)) {
                    let var = names.first().cloned().unwrap_or_default();
                    let v = initial(&vars, &var, 0);
                    seed.push((var, v));
                    changed = true;
                }
                form::problems(ui, d.under(&[P::F("seeds"), P::I(s)]));
            });
        }
        if let Some(s) = remove_seed {
            l.seeds.remove(s);
            changed = true;
        }
        if ui.button("+ seed").clicked() {
            l.seeds.push(Vec::new());
            changed = true;
        }
        form::section(ui, "Goal");
        form::help(
            ui,
            "Every state where these hold is a goal (the goal is a set of states).",
        );
        changed |= conditions(ui, "goal", &vars, &mut l.goal, "goal condition");
        form::problems(ui, d.under(&[P::F("goal")]));
        changed
    }

    fn preview(&mut self, ui: &mut Ui, l: &ActionListAsset, cx: &PanelCx) {
        let wake = ui.ctx().clone();
        let worker = self
            .worker
            .get_or_insert_with(|| Worker::start(move || wake.request_repaint()));
        if self.asked.as_ref() != Some(l) {
            if self.asked.is_none() {
                worker.ask_now(Job::List(l.clone()));
            } else {
                worker.ask(Job::List(l.clone()));
            }
            self.asked = Some(l.clone());
        }
        if let Some(wait) = worker.poll() {
            ui.ctx().request_repaint_after(wait);
        }
        ui.horizontal(|ui| {
            ui.label(RichText::new("Planning graph").strong().color(theme::TEXT));
            if worker.is_waiting() {
                ui.spinner();
            }
        });
        let Some(answer) = worker.latest.clone() else {
            form::help(ui, "building…");
            return;
        };
        match &answer.preview {
            Preview::Invalid(problems) => {
                for p in problems {
                    ui.label(RichText::new(format!("✖ {p}")).color(theme::ERROR));
                }
                form::help(ui, "The graph is built once every name resolves.");
            }
            Preview::Explosion(r) => {
                ui.label(
                    RichText::new(format!(
                        "✖ more than {} states: the graph explodes",
                        r.limit
                    ))
                    .strong()
                    .color(theme::ERROR),
                );
                ui.label(RichText::new(r.describe()).color(theme::TEXT));
                if !r.variables.is_empty() {
                    form::section(ui, "Values per variable (new in the last layers)");
                    egui::Grid::new("explosion")
                        .num_columns(3)
                        .spacing([12.0, 3.0])
                        .show(ui, |ui| {
                            for v in &r.variables {
                                let growing = r.unbounded.contains(&v.name);
                                let c = if growing { theme::ERROR } else { theme::TEXT };
                                ui.label(RichText::new(&v.name).color(c));
                                ui.label(RichText::new(v.distinct.to_string()).color(c));
                                let last: Vec<String> = v
                                    .new_per_layer
                                    .iter()
                                    .rev()
                                    .take(4)
                                    .rev()
                                    .map(|n| n.to_string())
                                    .collect();
                                ui.label(RichText::new(last.join(" · ")).color(theme::TEXT_WEAK));
                                ui.end_row();
                            }
                        });
                }
                form::help(
                    ui,
                    "Bound the growing variables (give them values), or raise the state limit.",
                );
            }
            Preview::Graph(g) => self.graph(ui, g, &answer.elapsed, cx),
            Preview::Plan(_) => {}
        }
    }

    fn graph(
        &mut self,
        ui: &mut Ui,
        g: &GraphPreview,
        elapsed: &std::time::Duration,
        cx: &PanelCx,
    ) {
        let edges = g.graph.num_edges();
        let goals = g.goal.iter().filter(|x| **x).count();
        ui.label(
            RichText::new(format!(
                "{} states, {edges} edges, {goals} goal states · built in {:.1} ms",
                g.graph.states.len(),
                elapsed.as_secs_f64() * 1000.0
            ))
            .color(theme::TEXT_WEAK),
        );
        let describe = |s: u32| picture::describe_state(g, s);
        let start = match self.from {
            From::FirstSeed => g.seeds.first().copied(),
            From::Seed(k) => g.seeds.get(k).copied(),
            From::State(s) if (s as usize) < g.graph.states.len() => Some(s),
            From::State(_) => g.seeds.first().copied(),
        };
        ui.horizontal(|ui| {
            ui.label(RichText::new("Plan from").color(theme::TEXT_WEAK));
            let shown = match self.from {
                From::State(s) => format!("state {s}"),
                From::Seed(k) => format!("seed {}", k + 1),
                From::FirstSeed => "seed 1".into(),
            };
            let r = egui::ComboBox::from_id_salt("plan-from")
                .selected_text(shown)
                .show_ui(ui, |ui| {
                    for (k, &s) in g.seeds.iter().enumerate() {
                        if ui
                            .selectable_label(
                                start == Some(s) && !matches!(self.from, From::State(_)),
                                format!("seed {}: {}", k + 1, describe(s)),
                            )
                            .clicked()
                        {
                            self.from = From::Seed(k);
                        }
                    }
                });
            crate::marks::name_widget(ui, &r.response, "plan from");
        });
        let Some(start) = start else { return };
        ui.label(
            RichText::new(describe(start))
                .small()
                .color(theme::TEXT_WEAK),
        );
        let steps = preview::plan_on_graph(&g.graph, start, &g.goal);
        let mut path = vec![start];
        match &steps {
            None => {
                ui.label(
                    RichText::new("✖ no goal state is reachable from here").color(theme::ERROR),
                );
            }
            Some(steps) if steps.is_empty() => {
                ui.label(RichText::new("✔ the goal holds here already").color(theme::OK));
            }
            Some(steps) => {
                egui::Grid::new("plan-steps")
                    .num_columns(3)
                    .spacing([8.0, 2.0])
                    .show(ui, |ui| {
                        for (k, &(a, s)) in steps.iter().enumerate() {
                            path.push(s);
                            let action = &g.compiled.actions[a as usize];
                            ui.label(RichText::new(format!("{}.", k + 1)).color(theme::TEXT_WEAK));
                            ui.label(RichText::new(&action.name).color(theme::TEXT))
                                .on_hover_text(describe(s));
                            super::picture::machine_link(
                                ui,
                                cx,
                                self.machine_of(&action.name).as_deref(),
                            );
                            ui.end_row();
                        }
                    });
                ui.label(
                    RichText::new(format!(
                        "✔ {} to a goal state",
                        super::picture::steps(steps.len())
                    ))
                    .color(theme::OK),
                );
            }
        }
        ui.add_space(4.0);
        let height = ui.available_height().clamp(160.0, 420.0);
        if let Some(picture::Clicked(s)) = picture::show(ui, g, &path, Some(start), height) {
            self.from = From::State(s);
        }
    }

    fn machine_of(&self, action: &str) -> Option<String> {
        self.asked
            .as_ref()
            .and_then(|l| l.actions.iter().find(|a| a.name == action))
            .and_then(|a| a.machine.clone())
    }
}

impl AssetPanel<ActionListAsset> for ActionListPanel {
    fn ui(&mut self, ui: &mut Ui, l: &mut ActionListAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take() {
            if let Some(i) =
                crate::panel::reveal_index(&t, "actions", l.actions.iter().map(|a| a.name.as_str()))
            {
                self.tab = Tab::Actions;
                self.actions.select(i);
            } else if let Reveal::Path(p) = &t
                && let Some(ensemble_compiler::formats::locate::PathSeg::Field(f)) = p.first()
            {
                self.tab = match f.as_str() {
                    "variables" => Tab::Variables,
                    "seeds" | "goal" => Tab::Seeds,
                    _ => self.tab,
                };
            }
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new("Action list").heading().color(theme::TEXT));
            changed |= form::text(
                ui,
                &mut l.name,
                180.0,
                "problem name",
                "problem name",
                &d.notes(&[P::F("name")]),
            );
            ui.add_space(10.0);
            changed |= planner(ui, "actionlist", &mut l.planner);
            let mut limit = l.state_limit.map(|n| n as u64);
            if count(
                ui,
                &mut limit,
                preview::STATE_LIMIT as u64,
                1e7,
                "state limit",
            ) {
                l.state_limit = limit.map(|n| n as usize);
                changed = true;
            }
        });
        form::problems(
            ui,
            d.outside(&["variables", "actions", "seeds", "goal", "name"]),
        );
        ui.horizontal(|ui| {
            for (tab, label) in [
                (Tab::Variables, format!("Variables ({})", l.variables.len())),
                (Tab::Actions, format!("Actions ({})", l.actions.len())),
                (Tab::Seeds, format!("Seeds and goal ({})", l.seeds.len())),
            ] {
                if ui.selectable_label(self.tab == tab, label).clicked() {
                    self.tab = tab;
                }
            }
        });
        ui.separator();
        let snapshot = l.clone();
        crate::marks::docked(
            egui::Panel::right(ui.id().with("actionlist-preview")),
            440.0,
            300.0,
        )
        .show(ui, |ui| {
            egui::ScrollArea::vertical()
                .id_salt("actionlist-preview-scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| self.preview(ui, &snapshot, cx));
        });
        match self.tab {
            Tab::Variables => form::detail(ui, |ui| changed |= self.variables(ui, l, d)),
            Tab::Seeds => form::detail(ui, |ui| changed |= self.seeds(ui, l, d)),
            Tab::Actions => {
                crate::marks::docked(
                    egui::Panel::left(ui.id().with("actionlist-actions")),
                    230.0,
                    170.0,
                )
                .show(ui, |ui| {
                    changed |= self.actions.show(
                        ui,
                        "actionlist-actions",
                        "Actions",
                        "action",
                        &mut l.actions,
                        |i, a| ItemRow {
                            detail: a.machine.clone().unwrap_or_default(),
                            severity: d.worst(&[P::F("actions"), P::I(i)]),
                        },
                        |name| Action {
                            name,
                            constraints: Vec::new(),
                            effects: Vec::new(),
                            machine: None,
                        },
                    );
                });
                form::detail(ui, |ui| match self.actions.current(l.actions.len()) {
                    Some(i) => changed |= self.action(ui, i, l, cx, d),
                    None => form::help(ui, "No actions yet: add one with “+ action”."),
                });
            }
        }
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}
