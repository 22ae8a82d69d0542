//! A `*.actionlist.ron` in a project: resolve names with exact locations, run the static checks,
//! build Hewlett's planning graph from the seed states (state limit, explosion report), and
//! derive the grounded STRIPS task the runtime plans on.
//!
//! The task has one fact `Var=value` per value a variable can take: every declared value of an
//! enumerated variable; for an integer variable, the values the planning graph reached (plus
//! those world events set). An action that adds to an integer (`Add("X", 1)`) becomes one
//! operator per value it can start from, all with the action's name. Planning on the task and
//! searching the graph therefore agree on every state the graph has.

use super::action_list::{
    ActionDomain, Compiled, CompiledAction, CompiledEffect, Condition, Effect, Value, VarState,
};
use super::assets::{ActionListAsset, SearchAsset};
use super::check;
use super::graph::PlanningGraph;
use super::project::{Settings, planner_of};
use crate::diag::{Code, Diagnostic, Diagnostics, suggest_note};
use crate::front::ron::Locator;
use crate::front::ron::locate::Seg;
use crate::ir::plan::{Problem, ProblemSource};
use crate::ir::{Handle, Machine, Module, Name};
use crate::source::Span;
use ensemble_runtime::plan::graph::PlanGraph;
use ensemble_runtime::plan::{FactId, OpId, Operator, Task};
use std::collections::{BTreeSet, HashMap};

/// Default most states of a planning graph.
pub const STATE_LIMIT: usize = 10_000;

/// A value world events assign: `(variable, value, where it is written)`.
pub type EventValue = (String, Value, Span);

/// Parses `Var = value` or `Var != value` (world events' `set` and `when`).
pub fn assignment(text: &str) -> Option<(String, Value, bool)> {
    let (var, value, eq) = match text.split_once("!=") {
        Some((a, b)) => (a, b, false),
        None => {
            let (a, b) = text.split_once('=')?;
            (a, b, true)
        }
    };
    let (var, value) = (var.trim(), value.trim());
    if var.is_empty() || value.is_empty() {
        return None;
    }
    let value = match value.parse::<i64>() {
        Ok(i) => Value::Int(i),
        Err(_) => Value::Name(value.to_string()),
    };
    Some((var.to_string(), value, eq))
}

/// The fact name of `Var=value` (as the task names it).
pub fn fact_name(domain: &ActionDomain, var: usize, value: i64) -> String {
    let v = &domain.variables[var];
    match &v.values {
        Some(vals) => format!("{}={}", v.name, vals[value as usize]),
        None => format!("{}={value}", v.name),
    }
}

/// A variable and one of its values (a name, or a number: an enumerated variable's index),
/// or a located error.
pub fn resolve_value(
    domain: &ActionDomain,
    var: &str,
    value: &Value,
    at: Span,
    diags: &mut Diagnostics,
) -> Option<(usize, i64)> {
    let Some(v) = domain.var(var) else {
        let d = Diagnostic::error(Code::UnknownReference, format!("unknown variable `{var}`"))
            .at(at, "not declared in `variables`");
        let names = domain.variables.iter().map(|v| v.name.as_str());
        diags.push(suggest_note(d, var, names));
        return None;
    };
    match domain.value(v, value) {
        Ok(x) => Some((v, x)),
        Err(m) => {
            let values: Vec<&str> = domain.variables[v]
                .values
                .iter()
                .flatten()
                .map(String::as_str)
                .collect();
            let d = Diagnostic::error(Code::InvalidValue, m).at(at, "no such value");
            diags.push(match value {
                Value::Name(n) => suggest_note(d, n, values),
                Value::Int(_) => d,
            });
            None
        }
    }
}

/// Resolves, checks and grounds one action list. `None` when it has errors (all reported).
pub fn lower(
    asset: &ActionListAsset,
    loc: &Locator,
    span: Span,
    module: &Module,
    stage: super::project::Options,
    world: &[EventValue],
    diags: &mut Diagnostics,
) -> Option<Problem> {
    let domain = ActionDomain {
        variables: asset.variables.clone(),
        actions: asset.actions.clone(),
    };
    let errors_before = diags.count(crate::diag::Severity::Error);
    let mut seen_vars: HashMap<&str, Span> = HashMap::new();
    for (i, v) in asset.variables.iter().enumerate() {
        let s = loc.span(&[Seg::Field("variables"), Seg::Index(i), Seg::Field("name")]);
        if let Some(prev) = seen_vars.insert(v.name.as_str(), s) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("variable `{}` is declared twice", v.name),
                )
                .at(s, "declared again here")
                .related(prev, "first declared here"),
            );
        }
    }
    // Names and values, each at the exact place it is written.
    let resolve = |var: &str, value: &Value, at: Span, diags: &mut Diagnostics| {
        resolve_value(&domain, var, value, at, diags)
    };
    let mut seen_actions: HashMap<&str, Span> = HashMap::new();
    for (i, a) in asset.actions.iter().enumerate() {
        let field = |f: &'static str| [Seg::Field("actions"), Seg::Index(i), Seg::Field(f)];
        let name_span = loc.span(&field("name"));
        if let Some(prev) = seen_actions.insert(a.name.as_str(), name_span) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("action `{}` is declared twice", a.name),
                )
                .at(name_span, "declared again here")
                .related(prev, "first declared here"),
            );
        }
        for (j, c) in a.constraints.iter().enumerate() {
            let (Condition::Eq(var, value) | Condition::Ne(var, value)) = c;
            let at = loc.span(&[
                Seg::Field("actions"),
                Seg::Index(i),
                Seg::Field("constraints"),
                Seg::Index(j),
            ]);
            resolve(var, value, at, diags);
        }
        for (j, e) in a.effects.iter().enumerate() {
            let at = loc.span(&[
                Seg::Field("actions"),
                Seg::Index(i),
                Seg::Field("effects"),
                Seg::Index(j),
            ]);
            match e {
                Effect::Set(var, value) => {
                    resolve(var, value, at, diags);
                }
                Effect::Add(var, _) => match domain.var(var) {
                    Some(v) if domain.variables[v].values.is_some() => diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "`{var}` is enumerated; only integer variables can be added to"
                            ),
                        )
                        .at(at, "here"),
                    ),
                    Some(_) => {}
                    None => {
                        resolve(var, &Value::Int(0), at, diags);
                    }
                },
            }
        }
        if a.effects.is_empty() {
            diags.push(
                Diagnostic::warning(
                    Code::UnexecutableRule,
                    format!("action `{}` has no effect", a.name),
                )
                .at(name_span, "it changes nothing"),
            );
        }
    }
    let mut seeds: Vec<VarState> = Vec::new();
    for (s, seed) in asset.seeds.iter().enumerate() {
        let mut state = vec![0; asset.variables.len()];
        let mut ok = true;
        for (k, (var, value)) in seed.iter().enumerate() {
            let at = loc.span(&[Seg::Field("seeds"), Seg::Index(s), Seg::Index(k)]);
            match resolve(var, value, at, diags) {
                Some((v, x)) => state[v] = x,
                None => ok = false,
            }
        }
        if ok {
            seeds.push(state);
        }
    }
    if asset.seeds.is_empty() {
        diags.push(
            Diagnostic::error(Code::InvalidValue, "the action list has no seed state")
                .at(
                    loc.span(&[Seg::Field("seeds")]),
                    "add the state agents start from",
                )
                .note("`seeds: [[(\"Location\", \"MainTerminal\")]]`; unnamed variables are 0"),
        );
    }
    let mut goal = Vec::new();
    for (j, c) in asset.goal.iter().enumerate() {
        let (Condition::Eq(var, value) | Condition::Ne(var, value)) = c;
        let at = loc.span(&[Seg::Field("goal"), Seg::Index(j)]);
        if let Some((v, x)) = resolve(var, value, at, diags) {
            goal.push((v, x, matches!(c, Condition::Eq(..))));
        }
    }
    let settings = Settings::read(&asset.planner, SearchAsset::Graph, loc, diags);
    if diags.count(crate::diag::Severity::Error) > errors_before {
        return None;
    }
    // A machine that is not defined is reported; the list is still lowered (so later checks
    // see it), and the build stops anyway.
    let machines: Vec<Option<Handle<Machine>>> = asset
        .actions
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let at = loc.span(&[Seg::Field("actions"), Seg::Index(i), Seg::Field("machine")]);
            a.machine
                .as_ref()
                .and_then(|m| super::project::machine(module, stage, m, at, diags))
        })
        .collect();
    // Mistakes in world events are the events' (they are dropped), not the action list's.
    let mut world_values = Vec::new();
    for (var, value, at) in world {
        if let Some(vx) = resolve(var, value, *at, diags) {
            world_values.push(vx);
        }
    }
    let errors_before = diags.count(crate::diag::Severity::Error);
    let compiled = domain.compile().ok()?;
    // Static checks, located at the action they name or at the goal.
    let goal_span = loc.span(&[Seg::Field("goal")]);
    for (mut d, action) in check::check(&compiled, &seeds, &goal, &world_values) {
        if d.code == Code::UnreachableGoal {
            d.severity = stage.goal_severity;
        }
        let at = action
            .and_then(|a| asset.actions.iter().position(|x| x.name == a))
            .map(|i| loc.span(&[Seg::Field("actions"), Seg::Index(i), Seg::Field("name")]))
            .unwrap_or(goal_span);
        diags.push(d.at(at, "here"));
    }
    if diags.count(crate::diag::Severity::Error) > errors_before {
        return None;
    }
    let limit = asset.state_limit.unwrap_or(STATE_LIMIT);
    let graph = match PlanningGraph::build(&compiled, &seeds, limit) {
        Ok(g) => g,
        Err(report) => {
            let at = if asset.state_limit.is_some() {
                loc.span(&[Seg::Field("state_limit")])
            } else {
                loc.span(&[Seg::Field("seeds")])
            };
            let mut d = check::explosion(&report).at(at, "the graph grows past this limit");
            for (_, acts) in &report.causes {
                for (a, _) in acts.iter().take(3) {
                    if let Some(i) = asset.actions.iter().position(|x| &x.name == a) {
                        d = d.related(
                            loc.span(&[Seg::Field("actions"), Seg::Index(i), Seg::Field("name")]),
                            format!("`{a}` introduces new values"),
                        );
                    }
                }
            }
            diags.push(d.note(
                "bound the variable (give it `values`), frame the problem around what matters to one agent, or raise `state_limit`",
            ));
            return None;
        }
    };
    let (task, graph, op_machines) = ground(
        &domain,
        &compiled,
        &graph,
        &seeds[0],
        &goal,
        &world_values,
        &machines,
    );
    let planner = planner_of(&settings, &task);
    Some(Problem {
        name: Name {
            text: asset.name.clone(),
            span: loc.span(&[Seg::Field("name")]),
        },
        source: ProblemSource::ActionList,
        graph: matches!(planner, ensemble_runtime::plan::section::Planner::Graph).then_some(graph),
        task,
        machines: op_machines,
        external: Vec::new(),
        planner,
        max_nodes: settings.max_nodes,
        span,
    })
}

/// The integer variables an action adds to, ascending: one operator per combination of their
/// starting values.
fn added_to(a: &CompiledAction) -> Vec<usize> {
    let mut added: Vec<usize> = a
        .effects
        .iter()
        .filter_map(|e| match *e {
            CompiledEffect::Add(v, _) => Some(v),
            CompiledEffect::Set(..) => None,
        })
        .collect();
    added.sort_unstable();
    added.dedup();
    added
}

/// The STRIPS task over the variables' reachable values, the planning graph over its facts,
/// and the machine of each operator.
#[allow(clippy::too_many_arguments)]
fn ground(
    domain: &ActionDomain,
    compiled: &Compiled,
    graph: &PlanningGraph,
    start: &[i64],
    goal: &[(usize, i64, bool)],
    world: &[(usize, i64)],
    machines: &[Option<Handle<Machine>>],
) -> (Task, PlanGraph, Vec<Option<Handle<Machine>>>) {
    let nvars = domain.variables.len();
    // Each variable's values, ascending.
    let mut values: Vec<BTreeSet<i64>> = vec![BTreeSet::new(); nvars];
    for (v, var) in domain.variables.iter().enumerate() {
        match &var.values {
            Some(vals) => values[v].extend(0..vals.len() as i64),
            None => {
                values[v].extend(graph.states.iter().map(|s| s[v]));
                values[v].extend(world.iter().filter(|w| w.0 == v).map(|w| w.1));
                // Values the goal or a constraint names get a fact too, reached or not, so
                // that nothing about them is silently dropped.
                values[v].extend(goal.iter().filter(|g| g.0 == v).map(|g| g.1));
                for a in &compiled.actions {
                    values[v].extend(a.constraints.iter().filter(|c| c.0 == v).map(|c| c.1));
                }
                for a in &compiled.actions {
                    for e in &a.effects {
                        if let CompiledEffect::Set(w, x) = *e
                            && w == v
                        {
                            values[v].insert(x);
                        }
                    }
                }
            }
        }
    }
    let mut facts = Vec::new();
    let mut ids: HashMap<(usize, i64), FactId> = HashMap::new();
    for (v, vals) in values.iter().enumerate() {
        for &x in vals {
            ids.insert((v, x), facts.len() as FactId);
            facts.push(fact_name(domain, v, x));
        }
    }
    let fact = |v: usize, x: i64| ids.get(&(v, x)).copied();
    let mut operators = Vec::new();
    let mut op_machines = Vec::new();
    // (action, values of its added-to variables) -> operator.
    let mut instance: HashMap<(usize, Vec<i64>), OpId> = HashMap::new();
    for (ai, a) in compiled.actions.iter().enumerate() {
        let added = added_to(a);
        // Every combination of starting values of the added-to variables.
        let mut combos: Vec<Vec<i64>> = vec![Vec::new()];
        for &v in &added {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    values[v].iter().map(move |&x| {
                        let mut c = c.clone();
                        c.push(x);
                        c
                    })
                })
                .collect();
        }
        'combo: for combo in combos {
            let mut o = Operator::new(a.name.clone());
            let known = |v: usize| added.iter().position(|&w| w == v).map(|i| combo[i]);
            for &(v, x, eq) in &a.constraints {
                match (known(v), eq) {
                    (Some(k), true) if k != x => continue 'combo,
                    (Some(k), false) if k == x => continue 'combo,
                    (Some(_), _) => {}
                    (None, true) => match fact(v, x) {
                        Some(f) => o.pre.push(f),
                        None => continue 'combo,
                    },
                    (None, false) => o.pre_neg.extend(fact(v, x)),
                }
            }
            for (i, &v) in added.iter().enumerate() {
                o.pre
                    .push(fact(v, combo[i]).expect("a value of the variable"));
            }
            // Final value of every variable the effects touch, in order.
            let mut after: Vec<(usize, i64)> = Vec::new();
            for e in &a.effects {
                let (v, x) = match *e {
                    CompiledEffect::Set(v, x) => (v, x),
                    CompiledEffect::Add(v, d) => {
                        let cur = after
                            .iter()
                            .rev()
                            .find(|w| w.0 == v)
                            .map(|w| w.1)
                            .or_else(|| known(v))
                            .expect("an added-to variable has a starting value");
                        (v, cur.saturating_add(d))
                    }
                };
                after.retain(|w| w.0 != v);
                after.push((v, x));
            }
            for &(v, x) in &after {
                let Some(f) = fact(v, x) else {
                    continue 'combo; // leaves the values the graph knows
                };
                o.add.push(f);
                o.del.extend(
                    values[v]
                        .iter()
                        .filter(|&&y| y != x)
                        .filter_map(|&y| fact(v, y)),
                );
            }
            instance.insert((ai, combo), operators.len() as OpId);
            operators.push(o);
            op_machines.push(machines.get(ai).copied().flatten());
        }
    }
    let state_facts = |s: &[i64]| -> Vec<FactId> {
        s.iter()
            .enumerate()
            .filter_map(|(v, &x)| fact(v, x))
            .collect()
    };
    let mut edges = Vec::with_capacity(graph.states.len());
    for (si, s) in graph.states.iter().enumerate() {
        let mut out = Vec::new();
        for &(ai, t) in &graph.edges[si] {
            let combo: Vec<i64> = added_to(&compiled.actions[ai as usize])
                .iter()
                .map(|&v| s[v])
                .collect();
            if let Some(&o) = instance.get(&(ai as usize, combo)) {
                out.push((o, t));
            }
        }
        edges.push(out);
    }
    let nodes = graph.states.iter().map(|s| state_facts(s)).collect();
    let plan_graph = PlanGraph::from_parts(nodes, edges);
    let (mut g, mut gn) = (Vec::new(), Vec::new());
    for &(v, x, eq) in goal {
        if let Some(f) = fact(v, x) {
            if eq { g.push(f) } else { gn.push(f) }
        }
    }
    let task = Task::new(facts, operators, state_facts(start), g, gn)
        .expect("every fact id comes from the table");
    (task, plan_graph, op_machines)
}
