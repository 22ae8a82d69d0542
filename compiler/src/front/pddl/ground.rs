//! Grounding with reachability: instantiate only the actions whose positive preconditions are
//! reachable with deletes ignored (a fixpoint from the initial state), compile static
//! predicates away, and build the runtime's grounded task.
//!
//! Also reports what the fixpoint reveals: goals that are unreachable even with deletes
//! relaxed (`unreachable-goal`), actions that never become applicable (`unexecutable-rule`)
//! and predicates that some action needs but nothing produces (`never-produced`).

use super::resolve::{Arg, LAction, LAtom, Lifted, ObjId, PredId};
use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::source::Span;
use ensemble_runtime::plan::{FactId, Operator, Task};
use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::time::Instant;

/// Ground actions one task may have by default: a planner given more could not search them in
/// a game's budget, and grounding them alone takes gigabytes. `GroundOptions::max_operators`.
pub const MAX_GROUND_ACTIONS: usize = 1_000_000;

/// Sizes, for reports and benchmarks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GroundingStats {
    pub lifted_actions: usize,
    pub operators: usize,
    pub facts: usize,
    pub static_facts: usize,
}

/// How ground names are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Naming {
    /// `(at a b)`, `(stack a b)`: the IPC plan format.
    Pddl,
    /// `at(a, b)`, `Open(npc)`, `doorOpen`: the cell syntax of native assets.
    Native,
}

impl Naming {
    pub fn render(self, name: &str, args: &[&str]) -> String {
        match (self, args.is_empty()) {
            (Naming::Pddl, true) => format!("({name})"),
            (Naming::Pddl, false) => format!("({name} {})", args.join(" ")),
            (Naming::Native, true) => name.to_string(),
            (Naming::Native, false) => format!("{name}({})", args.join(", ")),
        }
    }
}

/// How to ground. `ensemble plan` keeps only what the goal needs ([`GroundOptions::default`]);
/// a project keeps every reachable fact, because world events and hot reload find facts by name.
#[derive(Clone, Debug)]
pub struct GroundOptions {
    pub relevance: bool,
    pub naming: Naming,
    /// Facts world events may make true: reachable although no action adds them.
    pub may_become_true: Vec<(PredId, Vec<ObjId>)>,
    /// Predicates world events change: never compiled away as static.
    pub may_change: Vec<PredId>,
    /// `unreachable-goal` is a warning for `ensemble plan` (which exits 3) and an error in a
    /// project (the agent could never succeed).
    pub goal_severity: Severity,
    /// Grounding stops with a `limit-exceeded` error past this many ground actions.
    pub max_operators: usize,
    /// ... or at this moment (`ensemble plan --time-limit`).
    pub deadline: Option<Instant>,
    /// ... or once the grounded task would take more than this many bytes, estimated as it
    /// grows (`ensemble plan --memory-limit`).
    pub max_bytes: Option<u64>,
}

impl Default for GroundOptions {
    fn default() -> Self {
        GroundOptions {
            relevance: true,
            naming: Naming::Pddl,
            may_become_true: Vec::new(),
            may_change: Vec::new(),
            goal_severity: Severity::Warning,
            max_operators: MAX_GROUND_ACTIONS,
            deadline: None,
            max_bytes: None,
        }
    }
}

/// A grounded task and what the reachability analysis found.
#[derive(Clone, Debug)]
pub struct Grounded {
    pub task: Task,
    /// For each operator of `task`: the lifted action and the objects of its parameters.
    pub origins: Vec<(u32, Vec<ObjId>)>,
    /// Goal literals unreachable even with deletes relaxed (the task is then unsolvable).
    pub unreachable_goals: Vec<Span>,
    pub stats: GroundingStats,
}

type Key = (PredId, Vec<ObjId>);

struct Facts {
    set: HashSet<Key>,
    by_pred: Vec<Vec<Vec<ObjId>>>,
    order: Vec<Key>,
}

impl Facts {
    fn new(preds: usize) -> Self {
        Facts {
            set: HashSet::new(),
            by_pred: vec![Vec::new(); preds],
            order: Vec::new(),
        }
    }

    fn insert(&mut self, k: Key) -> bool {
        if self.set.contains(&k) {
            return false;
        }
        self.by_pred[k.0 as usize].push(k.1.clone());
        self.order.push(k.clone());
        self.set.insert(k);
        true
    }

    fn contains(&self, k: &Key) -> bool {
        self.set.contains(k)
    }
}

fn inst(args: &[Arg], binding: &[ObjId]) -> Vec<ObjId> {
    args.iter()
        .map(|a| match a {
            Arg::Obj(o) => *o,
            Arg::Param(p) => binding[*p as usize],
        })
        .collect()
}

/// Bytes one reached fact costs while grounding: its key in the set, the per-predicate list
/// and the order list (each with its arguments), and in the task its name and id entry.
fn fact_bytes(arity: usize) -> u64 {
    let key = std::mem::size_of::<Key>() + 4 * arity;
    (3 * key + std::mem::size_of::<String>() + 8 * (arity + 1) + 2 * 8) as u64
}

/// Bytes one ground action of `a` costs: its binding in the seen set, the groundings and the
/// origins, and its operator (name and fact lists).
fn ground_action_bytes(a: &LAction) -> u64 {
    let binding = std::mem::size_of::<Vec<ObjId>>() + 4 * a.params.len();
    let lists = a.pre_pos.len() + a.pre_neg.len() + a.add.len() + a.del.len();
    let operator = std::mem::size_of::<Operator>() + 4 * lists + 8 * (a.params.len() + 1);
    (3 * binding + 4 + 8 + operator) as u64
}

/// What the grounding holds so far, in bytes (see [`fact_bytes`], [`ground_action_bytes`]).
struct Footprint {
    per_action: Vec<u64>,
    per_fact: Vec<u64>,
    bytes: u64,
}

impl Footprint {
    /// Ground actions of action `ai` that still fit under `max`.
    fn room(&self, ai: usize, max: Option<u64>) -> usize {
        max.map_or(usize::MAX, |m| {
            (m.saturating_sub(self.bytes) / self.per_action[ai].max(1)) as usize
        })
    }
}

/// What stops grounding early: the clock (read every few thousand steps, as reading it costs
/// more than a step) and the number of ground actions.
struct Budget {
    deadline: Option<Instant>,
    steps: Cell<u64>,
    out_of_time: Cell<bool>,
    /// Set when an action found more instances than the limit leaves room for.
    out_of_room: Cell<bool>,
}

impl Budget {
    /// Counts one step; `true` once the deadline has passed (the room does not matter here).
    fn exhausted_in_time(&self) -> bool {
        let room = self.out_of_room.replace(false);
        let out = self.exhausted();
        self.out_of_room.set(room);
        out
    }

    /// Counts one step of the join; `true` once the deadline has passed or the room is full.
    fn exhausted(&self) -> bool {
        if self.out_of_time.get() || self.out_of_room.get() {
            return true;
        }
        let steps = self.steps.get() + 1;
        self.steps.set(steps);
        if steps.is_multiple_of(4096)
            && let Some(d) = self.deadline
            && Instant::now() >= d
        {
            self.out_of_time.set(true);
        }
        self.out_of_time.get()
    }
}

struct Enumerator<'a> {
    action: &'a LAction,
    budget: &'a Budget,
    /// Positive preconditions, static ones first.
    pre: Vec<&'a LAtom>,
    is_static: &'a [bool],
    /// Allowed objects per parameter, as a membership table.
    allowed: Vec<Vec<bool>>,
}

impl Enumerator<'_> {
    fn run(&self, statics: &Facts, fluents: &Facts, out: &mut dyn FnMut(&[ObjId])) {
        let mut binding: Vec<Option<ObjId>> = vec![None; self.action.params.len()];
        self.join(0, &mut binding, statics, fluents, out);
    }

    fn join(
        &self,
        k: usize,
        binding: &mut Vec<Option<ObjId>>,
        statics: &Facts,
        fluents: &Facts,
        out: &mut dyn FnMut(&[ObjId]),
    ) {
        if k == self.pre.len() {
            self.free(0, binding, statics, out);
            return;
        }
        let atom = self.pre[k];
        let source = if self.is_static[atom.pred as usize] {
            statics
        } else {
            fluents
        };
        let n = source.by_pred[atom.pred as usize].len();
        for t in 0..n {
            if self.budget.exhausted() {
                return;
            }
            let tuple = &source.by_pred[atom.pred as usize][t];
            let mut newly = Vec::new();
            let mut ok = true;
            for (a, &o) in atom.args.iter().zip(tuple.iter()) {
                match *a {
                    Arg::Obj(c) => ok = c == o,
                    Arg::Param(p) => match binding[p as usize] {
                        Some(b) => ok = b == o,
                        None => {
                            if self.allowed[p as usize].get(o as usize) == Some(&true) {
                                binding[p as usize] = Some(o);
                                newly.push(p);
                            } else {
                                ok = false;
                            }
                        }
                    },
                }
                if !ok {
                    break;
                }
            }
            if ok {
                self.join(k + 1, binding, statics, fluents, out);
            }
            for p in newly {
                binding[p as usize] = None;
            }
        }
    }

    /// Binds the parameters no positive precondition mentions, then checks the rest.
    fn free(
        &self,
        p: usize,
        binding: &mut Vec<Option<ObjId>>,
        statics: &Facts,
        out: &mut dyn FnMut(&[ObjId]),
    ) {
        if self.budget.exhausted() {
            return;
        }
        if p == binding.len() {
            let b: Vec<ObjId> = binding.iter().map(|x| x.expect("bound")).collect();
            let arg = |a: &Arg| match a {
                Arg::Obj(o) => *o,
                Arg::Param(i) => b[*i as usize],
            };
            if self
                .action
                .eq
                .iter()
                .any(|(x, y, eq)| (arg(x) == arg(y)) != *eq)
            {
                return;
            }
            // A negative precondition on a static predicate is decided now.
            if self.action.pre_neg.iter().any(|a| {
                self.is_static[a.pred as usize] && statics.contains(&(a.pred, inst(&a.args, &b)))
            }) {
                return;
            }
            out(&b);
            return;
        }
        if binding[p].is_some() {
            return self.free(p + 1, binding, statics, out);
        }
        for o in 0..self.allowed[p].len() {
            if self.allowed[p][o] {
                binding[p] = Some(o as ObjId);
                self.free(p + 1, binding, statics, out);
            }
        }
        binding[p] = None;
    }
}

/// Grounds a resolved task. Never fails: problems become diagnostics.
pub fn ground(l: &Lifted, diags: &mut Diagnostics) -> Grounded {
    ground_with(l, &GroundOptions::default(), diags)
}

/// [`ground`] with options (a project's problems).
pub fn ground_with(l: &Lifted, opts: &GroundOptions, diags: &mut Diagnostics) -> Grounded {
    let npred = l.predicates.len();
    let mut is_static = vec![true; npred];
    for a in &l.actions {
        for x in a.add.iter().chain(a.del.iter()) {
            is_static[x.pred as usize] = false;
        }
    }
    for &p in &opts.may_change {
        is_static[p as usize] = false;
    }
    let mut statics = Facts::new(npred);
    let mut fluents = Facts::new(npred);
    for (p, args) in &l.init {
        if is_static[*p as usize] {
            statics.insert((*p, args.clone()));
        } else {
            fluents.insert((*p, args.clone()));
        }
    }
    let init_fluents: Vec<Key> = fluents.order.clone();
    for (p, args) in &opts.may_become_true {
        if !is_static[*p as usize] {
            fluents.insert((*p, args.clone()));
        }
    }
    let seeded = fluents.order.len();
    let budget = Budget {
        deadline: opts.deadline,
        steps: Cell::new(0),
        out_of_time: Cell::new(false),
        out_of_room: Cell::new(false),
    };
    let enumerators: Vec<Enumerator> = l
        .actions
        .iter()
        .map(|a| {
            let mut pre: Vec<&LAtom> = a.pre_pos.iter().collect();
            pre.sort_by_key(|x| !is_static[x.pred as usize]);
            Enumerator {
                action: a,
                budget: &budget,
                pre,
                is_static: &is_static,
                allowed: a
                    .params
                    .iter()
                    .map(|(_, objs)| {
                        let mut m = vec![false; l.objects.len()];
                        for &o in objs {
                            m[o as usize] = true;
                        }
                        m
                    })
                    .collect(),
            }
        })
        .collect();
    // Fixpoint: ground every action whose positive preconditions are reached; add its effects.
    let mut groundings: Vec<Vec<Vec<ObjId>>> = vec![Vec::new(); l.actions.len()];
    let mut seen: Vec<HashSet<Vec<ObjId>>> = vec![HashSet::new(); l.actions.len()];
    let mut total = 0usize;
    // Stopped early: what the fixpoint did not reach is unknown, not unreachable.
    let mut stopped = false;
    let started = Instant::now();
    let mut footprint = Footprint {
        per_action: l.actions.iter().map(ground_action_bytes).collect(),
        per_fact: l
            .predicates
            .iter()
            .map(|(_, arity, _)| fact_bytes(*arity))
            .collect(),
        bytes: 0,
    };
    footprint.bytes = fluents
        .order
        .iter()
        .map(|k| footprint.per_fact[k.0 as usize])
        .sum();
    // Set when the memory limit, not the count of ground actions, left no room.
    let mut out_of_memory = false;
    'fixpoint: loop {
        let mut changed = false;
        for (ai, e) in enumerators.iter().enumerate() {
            let mut found = Vec::new();
            // New instances this round, counted against the limit as they are found so one
            // action's huge join cannot allocate past it.
            let room_in_bytes = footprint.room(ai, opts.max_bytes);
            let room = opts.max_operators.saturating_sub(total).min(room_in_bytes);
            e.run(&statics, &fluents, &mut |b| {
                if !seen[ai].contains(b) {
                    found.push(b.to_vec());
                    if found.len() > room {
                        budget.out_of_room.set(true);
                    }
                }
            });
            for b in found {
                // Recording a million instances takes seconds too: keep honouring the clock.
                if budget.exhausted_in_time() {
                    break;
                }
                if seen[ai].insert(b.clone()) {
                    for x in &l.actions[ai].add {
                        if fluents.insert((x.pred, inst(&x.args, &b))) {
                            changed = true;
                            footprint.bytes += footprint.per_fact[x.pred as usize];
                        }
                    }
                    groundings[ai].push(b);
                    total += 1;
                    footprint.bytes += footprint.per_action[ai];
                }
            }
            if budget.out_of_room.get() && room_in_bytes < opts.max_operators.saturating_sub(total)
                || opts.max_bytes.is_some_and(|m| footprint.bytes > m)
            {
                out_of_memory = true;
            }
            let stop = if budget.out_of_time.get() {
                Some(format!(
                    "grounding stopped by the time limit after {:.1} s and {total} ground actions (at action `{}`)",
                    started.elapsed().as_secs_f64(),
                    l.actions[ai].name
                ))
            } else if out_of_memory {
                Some(format!(
                    "grounding stopped by the memory limit of {} (at action `{}`): {total} ground actions and {} facts reached, about {}",
                    mebibytes(opts.max_bytes.unwrap_or(0)),
                    l.actions[ai].name,
                    fluents.order.len(),
                    mebibytes(footprint.bytes)
                ))
            } else if total > opts.max_operators || budget.out_of_room.get() {
                Some(format!(
                    "grounding stopped: more than {} ground actions (at action `{}`)",
                    opts.max_operators, l.actions[ai].name
                ))
            } else {
                None
            };
            if let Some(message) = stop {
                diags.push(
                    Diagnostic::error(Code::LimitExceeded, message)
                        .at(l.actions[ai].span, "while grounding this action")
                        .note("fewer objects, more typed parameters or static preconditions keep grounding small"),
                );
                stopped = true;
                break 'fixpoint;
            }
        }
        if !changed {
            break;
        }
    }
    if stopped {
        // The error stands; building a task of the million operators found so far would only
        // take longer than grounding did.
        groundings.iter_mut().for_each(Vec::clear);
        fluents.order.truncate(seeded);
    }
    // Facts: the reached fluent atoms, sorted for a deterministic task.
    let mut keys: Vec<Key> = fluents.order.clone();
    keys.sort();
    let ids: HashMap<Key, FactId> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (k.clone(), i as FactId))
        .collect();
    let objects = |args: &[ObjId]| -> Vec<&str> {
        args.iter()
            .map(|&o| l.objects[o as usize].as_str())
            .collect()
    };
    let name = |k: &Key| {
        opts.naming
            .render(&l.predicates[k.0 as usize].0, &objects(&k.1))
    };
    let mut facts: Vec<String> = keys.iter().map(name).collect();
    let mut operators = Vec::new();
    let mut origins = Vec::new();
    for (ai, a) in l.actions.iter().enumerate() {
        for b in &groundings[ai] {
            origins.push((ai as u32, b.clone()));
            let mut o = Operator::new(opts.naming.render(&a.name, &objects(b)));
            for x in &a.pre_pos {
                if !is_static[x.pred as usize] {
                    o.pre.push(ids[&(x.pred, inst(&x.args, b))]);
                }
            }
            for x in &a.pre_neg {
                if !is_static[x.pred as usize]
                    && let Some(&f) = ids.get(&(x.pred, inst(&x.args, b)))
                {
                    o.pre_neg.push(f);
                }
            }
            for x in &a.add {
                o.add.push(ids[&(x.pred, inst(&x.args, b))]);
            }
            for x in &a.del {
                if let Some(&f) = ids.get(&(x.pred, inst(&x.args, b))) {
                    o.del.push(f);
                }
            }
            operators.push(o);
        }
    }
    // Goal.
    let mut goal = Vec::new();
    let mut goal_neg = Vec::new();
    let mut unreachable_goals = Vec::new();
    for g in &l.goal {
        let k = (g.pred, g.args.clone());
        let reachable = if is_static[g.pred as usize] {
            statics.contains(&k) == g.positive
        } else {
            match (ids.get(&k), g.positive) {
                (Some(&f), true) => {
                    goal.push(f);
                    true
                }
                (Some(&f), false) => {
                    goal_neg.push(f);
                    true
                }
                (None, positive) => !positive,
            }
        };
        if !reachable {
            unreachable_goals.push(g.span);
            if stopped {
                continue;
            }
            diags.push(
                Diagnostic::new(
                    opts.goal_severity,
                    Code::UnreachableGoal,
                    "this goal cannot be reached, even ignoring delete effects",
                )
                .at(g.span, "unreachable from the initial state"),
            );
        }
    }
    if !l.goal_equalities_hold
        && let Some(span) = l.goal_span
    {
        unreachable_goals.push(span);
        diags.push(
            Diagnostic::new(
                opts.goal_severity,
                Code::UnreachableGoal,
                "the goal requires two different objects to be equal",
            )
            .at(span, "never true"),
        );
    }
    if !unreachable_goals.is_empty() {
        // Keep the task honest: an unreachable goal fact that nothing achieves.
        facts.push("(unreachable-goal)".into());
        goal.push((facts.len() - 1) as FactId);
    }
    // What the fixpoint says about the domain.
    for (ai, a) in l.actions.iter().enumerate() {
        if groundings[ai].is_empty() && !stopped {
            diags.push(
                Diagnostic::warning(
                    Code::UnexecutableRule,
                    format!("action `{}` can never be applied in this problem", a.name),
                )
                .at(
                    a.span,
                    "no instance is reachable, even ignoring delete effects",
                ),
            );
        }
    }
    let mut produced = vec![false; npred];
    for a in &l.actions {
        for x in &a.add {
            produced[x.pred as usize] = true;
        }
    }
    for (p, _) in l.init.iter().chain(&opts.may_become_true) {
        produced[*p as usize] = true;
    }
    let mut reported = vec![false; npred];
    for a in &l.actions {
        for x in &a.pre_pos {
            let p = x.pred as usize;
            if !produced[p] && !reported[p] {
                reported[p] = true;
                diags.push(
                    Diagnostic::warning(
                        Code::NeverProduced,
                        format!(
                            "`{}` is required by `{}` but no action produces it and the initial state does not hold it",
                            l.predicates[p].0, a.name
                        ),
                    )
                    .at(x.span, "never true"),
                );
            }
        }
    }
    let stats = GroundingStats {
        lifted_actions: l.actions.len(),
        operators: operators.len(),
        facts: facts.len(),
        static_facts: statics.order.len(),
    };
    let init: Vec<FactId> = init_fluents.iter().map(|k| ids[k]).collect();
    let task = Task::new(facts, operators, init, goal, goal_neg)
        .expect("grounding only refers to facts it created");
    let (task, origins) = if opts.relevance {
        let (task, kept) = relevant_part(task);
        let origins = kept.into_iter().map(|o| origins[o].clone()).collect();
        (task, origins)
    } else {
        (task, origins)
    };
    let stats = GroundingStats {
        operators: task.operators.len(),
        facts: task.facts.len(),
        ..stats
    };
    Grounded {
        task,
        origins,
        unreachable_goals,
        stats,
    }
}

/// `12.3 MiB`, for messages.
fn mebibytes(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20))
}

/// Whether `o` can change a fact marked in `relevant`. Adding a fact the operator requires
/// changes nothing (a satellite turning to where it already points): such an operator only
/// makes a state its own successor, so it goes too, as in Fast Downward's translator.
/// `normalise` left no fact both added and deleted.
fn changes_relevant(o: &Operator, relevant: &[bool]) -> bool {
    o.add
        .iter()
        .any(|f| relevant[*f as usize] && o.pre.binary_search(f).is_err())
        || o.del.iter().any(|&f| relevant[f as usize])
}

/// Backward relevance analysis: keep only facts that can matter for the goal (goal facts, and
/// the preconditions of operators that add or delete a relevant fact), and only operators that
/// change a relevant fact. States that differ only in irrelevant facts (a package nobody needs
/// moved) then coincide, as in pyperplan and Fast Downward. Plans stay valid on the full task:
/// no kept operator reads a dropped fact.
/// Also returns the indices of the operators kept.
pub fn relevant_part(task: Task) -> (Task, Vec<usize>) {
    let n = task.facts.len();
    let mut relevant = vec![false; n];
    for &f in task.goal.iter().chain(&task.goal_neg) {
        relevant[f as usize] = true;
    }
    loop {
        let mut changed = false;
        for o in &task.operators {
            if changes_relevant(o, &relevant) {
                for &f in o.pre.iter().chain(&o.pre_neg) {
                    if !relevant[f as usize] {
                        relevant[f as usize] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut new_id = vec![FactId::MAX; n];
    let mut facts = Vec::new();
    for (f, name) in task.facts.iter().enumerate() {
        if relevant[f] {
            new_id[f] = facts.len() as FactId;
            facts.push(name.clone());
        }
    }
    let map = |v: &[FactId]| -> Vec<FactId> {
        v.iter()
            .filter(|&&f| relevant[f as usize])
            .map(|&f| new_id[f as usize])
            .collect()
    };
    let changes = |o: &Operator| changes_relevant(o, &relevant);
    let kept: Vec<usize> = (0..task.operators.len())
        .filter(|&i| changes(&task.operators[i]))
        .collect();
    let operators = kept
        .iter()
        .map(|&i| &task.operators[i])
        .map(|o| Operator {
            name: o.name.clone(),
            pre: map(&o.pre),
            pre_neg: map(&o.pre_neg),
            add: map(&o.add),
            del: map(&o.del),
        })
        .collect();
    let task = Task::new(
        facts,
        operators,
        map(&task.init),
        map(&task.goal),
        map(&task.goal_neg),
    )
    .expect("relevance keeps every referenced fact");
    (task, kept)
}
