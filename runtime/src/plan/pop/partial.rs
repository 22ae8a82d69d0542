//! A partial-order plan: steps, ordering constraints, causal links and the agenda of open
//! conditions (Inampudi §4.1–4.3). The start step is *a_now*: its effects are the current state
//! (`now`), which fixes the stale-state defect D1 once execution has begun.

use crate::plan::state::State;
use crate::plan::task::{FactId, Lit, OpId, Operator, Task};

/// A step of a partial plan: index into [`PartialPlan::steps`]; stable, removed steps keep
/// their ids.
pub type StepId = u32;
/// The start step, *a_now*: its effects are [`PartialPlan::now`].
pub const START: StepId = 0;
/// The goal step: its preconditions are the task's goal.
pub const GOAL: StepId = 1;

/// What a step stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum StepKind {
    /// The start step (*a_now*).
    Start,
    /// The goal step.
    Goal,
    /// An operator of the planner's action space.
    Op(OpId),
    /// An action someone else performed (a player), by index into `external`.
    External(u32),
}

/// How far execution of a step has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Status {
    /// Not begun: the plan may still drop or reorder it.
    NotStarted,
    /// Being performed.
    Running,
    /// Finished (the start step always is).
    Done,
}

/// A step of the plan with its execution status.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Step {
    /// What it stands for.
    pub kind: StepKind,
    /// How far its execution has come.
    pub status: Status,
    /// Dropped by a repair; the id stays taken so references remain valid.
    pub removed: bool,
    /// Execution order of started steps (start = 0).
    pub started_at: u32,
}

/// ⟨producer, cond, consumer⟩: `producer` establishes `cond` for `consumer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CausalLink {
    /// The step that establishes the condition.
    pub producer: StepId,
    /// The condition it establishes.
    pub cond: Lit,
    /// The step that needs it.
    pub consumer: StepId,
}

/// A precondition of `consumer` that no causal link supports yet (D3: one tuple type).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OpenCondition {
    /// The condition needed.
    pub cond: Lit,
    /// The step that needs it.
    pub consumer: StepId,
}

/// A step that may fall between a causal link's producer and consumer and undo its condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Threat {
    /// The causal link threatened.
    pub link: CausalLink,
    /// The step whose effect undoes the link's condition.
    pub step: StepId,
}

/// A partial-order plan in progress: its steps, ordering, causal links and open conditions.
/// Complete when the agenda is empty and no step threatens a link.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PartialPlan {
    /// Every step, start and goal first; removed steps stay as tombstones.
    pub steps: Vec<Step>,
    /// The causal links.
    pub links: Vec<CausalLink>,
    /// A stack (LIFO), as in the thesis; conditions are pushed in reverse so the first
    /// precondition is handled first (D8).
    pub agenda: Vec<OpenCondition>,
    /// The effects of the start step: the state now.
    pub now: State,
    /// Actions performed outside the plan (player actions), for `StepKind::External`.
    pub external: Vec<Operator>,
    edges: Vec<(StepId, StepId)>,
    /// Transitive closure of `edges`: bit `b` of row `a` = a ≺ b.
    reach: Vec<Vec<u64>>,
    started: u32,
}

impl PartialPlan {
    /// Checks a plan read from a savegame against `task`: every step, link, condition, ordering
    /// and external action within the task's operators and facts, and the ordering's closure
    /// no wider than the steps (its rows grow as bits are set), so no later use of the plan indexes out of range.
    pub fn check(&self, task: &Task) -> Result<(), String> {
        let (steps, ops, facts) = (self.steps.len(), task.operators.len(), task.facts.len());
        let step = |s: StepId| (s as usize) < steps;
        let fact = |f: &FactId| (*f as usize) < facts;
        let lit = |l: &Lit| (l.fact as usize) < facts;
        let op_ok = |o: &Operator| {
            o.pre.iter().all(fact)
                && o.pre_neg.iter().all(fact)
                && o.add.iter().all(fact)
                && o.del.iter().all(fact)
        };
        let kinds_ok = steps >= 2
            && self.steps.iter().all(|s| match s.kind {
                StepKind::Start | StepKind::Goal => true,
                StepKind::Op(o) => (o as usize) < ops,
                StepKind::External(e) => (e as usize) < self.external.len(),
            });
        let words = steps.div_ceil(64);
        let ok = kinds_ok
            && self
                .links
                .iter()
                .all(|l| step(l.producer) && step(l.consumer) && lit(&l.cond))
            && self.agenda.iter().all(|c| step(c.consumer) && lit(&c.cond))
            && self.edges.iter().all(|&(a, b)| step(a) && step(b))
            && self.reach.len() == steps
            && self.reach.iter().all(|row| row.len() <= words)
            && self.now.fits(facts)
            && self.external.iter().all(op_ok);
        if ok {
            Ok(())
        } else {
            Err("the saved partial-order plan does not fit the problem".into())
        }
    }

    /// The null plan: start ≺ goal, every goal condition open.
    pub fn new(task: &Task, now: State) -> Self {
        let mut p = PartialPlan {
            steps: vec![
                Step {
                    kind: StepKind::Start,
                    status: Status::Done,
                    removed: false,
                    started_at: 0,
                },
                Step {
                    kind: StepKind::Goal,
                    status: Status::NotStarted,
                    removed: false,
                    started_at: 0,
                },
            ],
            links: Vec::new(),
            agenda: Vec::new(),
            now,
            external: Vec::new(),
            edges: Vec::new(),
            reach: vec![Vec::new(), Vec::new()],
            started: 0,
        };
        p.add_order(START, GOAL);
        let goals: Vec<Lit> = task.goal_lits().collect();
        for &g in goals.iter().rev() {
            p.agenda.push(OpenCondition {
                cond: g,
                consumer: GOAL,
            });
        }
        p
    }

    /// Step `s`.
    pub fn step(&self, s: StepId) -> &Step {
        &self.steps[s as usize]
    }

    /// Live steps (not removed), start and goal included.
    pub fn live(&self) -> impl Iterator<Item = StepId> + '_ {
        (0..self.steps.len() as StepId).filter(|&s| !self.steps[s as usize].removed)
    }

    /// Started (running or done) or the start step: in the past, cannot be reordered.
    pub fn is_past(&self, s: StepId) -> bool {
        let st = self.step(s);
        st.kind == StepKind::Start || st.status != Status::NotStarted
    }

    fn operator<'a>(&'a self, task: &'a Task, s: StepId) -> Option<&'a Operator> {
        match self.step(s).kind {
            StepKind::Op(o) => Some(task.op(o)),
            StepKind::External(i) => Some(&self.external[i as usize]),
            _ => None,
        }
    }

    /// Preconditions of a step (the goal's are the task's goal).
    pub fn preconditions(&self, task: &Task, s: StepId) -> Vec<Lit> {
        match self.step(s).kind {
            StepKind::Goal => task.goal_lits().collect(),
            StepKind::Start => Vec::new(),
            _ => self
                .operator(task, s)
                .map(|o| o.preconditions().collect())
                .unwrap_or_default(),
        }
    }

    /// Whether step `s` can be the producer of `l`: a future step must have it as an effect; a
    /// past step must have it as an effect and it must still hold now (D1); the start step
    /// (a_now) supplies whatever holds now.
    pub fn supplies(&self, task: &Task, s: StepId, l: Lit) -> bool {
        let st = self.step(s);
        if st.removed {
            return false;
        }
        match st.kind {
            StepKind::Start => l.holds(&self.now),
            StepKind::Goal => false,
            _ => {
                let has = self.operator(task, s).is_some_and(|o| o.has_effect(l));
                match st.status {
                    Status::NotStarted | Status::Running => has,
                    Status::Done => has && l.holds(&self.now),
                }
            }
        }
    }

    /// Whether `a` must come before `b`.
    pub fn precedes(&self, a: StepId, b: StepId) -> bool {
        if a == b {
            return false;
        }
        let (pa, pb) = (self.is_past(a), self.is_past(b));
        if pa && pb {
            return self.step(a).started_at < self.step(b).started_at;
        }
        if pa && !pb {
            return true;
        }
        if pb && !pa {
            return false;
        }
        let row = &self.reach[a as usize];
        row.get(b as usize / 64)
            .is_some_and(|w| w & (1u64 << (b % 64)) != 0)
    }

    /// Adds `a ≺ b`; false (and no change) if that would make a cycle.
    pub fn add_order(&mut self, a: StepId, b: StepId) -> bool {
        if a == b || self.precedes(b, a) {
            return false;
        }
        if self.precedes(a, b) {
            return true;
        }
        self.edges.push((a, b));
        self.close_over(a, b);
        true
    }

    fn set_reach(&mut self, a: StepId, b: StepId) {
        let row = &mut self.reach[a as usize];
        let w = b as usize / 64;
        if row.len() <= w {
            row.resize(w + 1, 0);
        }
        row[w] |= 1u64 << (b % 64);
    }

    fn raw_reach(&self, a: StepId, b: StepId) -> bool {
        self.reach[a as usize]
            .get(b as usize / 64)
            .is_some_and(|w| w & (1u64 << (b % 64)) != 0)
    }

    fn close_over(&mut self, a: StepId, b: StepId) {
        let n = self.steps.len() as StepId;
        let after: Vec<StepId> = std::iter::once(b)
            .chain((0..n).filter(|&x| self.raw_reach(b, x)))
            .collect();
        let before: Vec<StepId> = std::iter::once(a)
            .chain((0..n).filter(|&x| self.raw_reach(x, a)))
            .collect();
        for &x in &before {
            for &y in &after {
                self.set_reach(x, y);
            }
        }
    }

    fn rebuild_closure(&mut self) {
        for row in &mut self.reach {
            row.clear();
        }
        let edges = std::mem::take(&mut self.edges);
        for &(a, b) in &edges {
            self.close_over(a, b);
        }
        self.edges = edges;
    }

    /// Adds a new step (D4: start ≺ s ≺ goal) and pushes its preconditions on the agenda.
    pub fn add_step(&mut self, task: &Task, kind: StepKind) -> StepId {
        let id = self.steps.len() as StepId;
        self.steps.push(Step {
            kind,
            status: Status::NotStarted,
            removed: false,
            started_at: 0,
        });
        self.reach.push(Vec::new());
        self.add_order(START, id);
        self.add_order(id, GOAL);
        let pre = self.preconditions(task, id);
        for &l in pre.iter().rev() {
            self.agenda.push(OpenCondition {
                cond: l,
                consumer: id,
            });
        }
        id
    }

    /// Records a causal link and its ordering; false if the ordering is impossible.
    pub fn add_link(&mut self, producer: StepId, cond: Lit, consumer: StepId) -> bool {
        if !self.add_order(producer, consumer) {
            return false;
        }
        self.links.push(CausalLink {
            producer,
            cond,
            consumer,
        });
        true
    }

    /// The first threat, scanning links then steps in order: a step whose effects contradict a
    /// link's condition and that may fall between its producer and consumer. Done steps are in
    /// `now` already; a running step is not, and its effects land after every step that
    /// started before it and before every future one — so it threatens a link from the past to
    /// the future, and neither demotion nor promotion can move it (the link must go).
    pub fn first_threat(&self, task: &Task) -> Option<Threat> {
        for l in &self.links {
            for t in self.live() {
                if t == l.producer
                    || t == l.consumer
                    || (self.is_past(t) && self.step(t).status != Status::Running)
                {
                    continue;
                }
                let Some(op) = self.operator(task, t) else {
                    continue;
                };
                if !op.has_effect(l.cond.negated()) {
                    continue;
                }
                let between = if self.is_past(t) {
                    self.is_past(l.producer) && !self.is_past(l.consumer)
                } else {
                    !(self.precedes(t, l.producer) || self.precedes(l.consumer, t))
                };
                if between {
                    return Some(Threat { link: *l, step: t });
                }
            }
        }
        None
    }

    /// The same plan over a new task (a hot reload): operators and facts are renamed through
    /// `op` and `fact` (old id -> new id). `None` when something the plan uses has no
    /// counterpart, or the new task has no room for the state now.
    pub fn remap(
        &self,
        op: impl Fn(OpId) -> Option<OpId>,
        fact: impl Fn(FactId) -> Option<FactId>,
        now: State,
    ) -> Option<PartialPlan> {
        let lit = |l: Lit| {
            fact(l.fact).map(|f| Lit {
                fact: f,
                positive: l.positive,
            })
        };
        let mut steps = self.steps.clone();
        for st in &mut steps {
            if let StepKind::Op(o) = st.kind
                && !st.removed
            {
                st.kind = StepKind::Op(op(o)?);
            }
        }
        let links = self
            .links
            .iter()
            .map(|l| {
                Some(CausalLink {
                    cond: lit(l.cond)?,
                    ..*l
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let agenda = self
            .agenda
            .iter()
            .map(|c| {
                Some(OpenCondition {
                    cond: lit(c.cond)?,
                    ..*c
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let ids = |v: &[FactId]| v.iter().map(|&f| fact(f)).collect::<Option<Vec<_>>>();
        let external = self
            .external
            .iter()
            .map(|o| {
                Some(Operator {
                    name: o.name.clone(),
                    pre: ids(&o.pre)?,
                    pre_neg: ids(&o.pre_neg)?,
                    add: ids(&o.add)?,
                    del: ids(&o.del)?,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(PartialPlan {
            steps,
            links,
            agenda,
            now,
            external,
            edges: self.edges.clone(),
            reach: self.reach.clone(),
            started: self.started,
        })
    }

    /// Removes a step with its links, orderings and agenda entries (D7).
    pub fn remove_step(&mut self, s: StepId) {
        if s == START || s == GOAL {
            return;
        }
        self.steps[s as usize].removed = true;
        self.links.retain(|l| l.producer != s && l.consumer != s);
        self.agenda.retain(|c| c.consumer != s);
        self.edges.retain(|&(a, b)| a != s && b != s);
        self.rebuild_closure();
    }

    /// Removes the causal links for which `pred` holds (judged on the plan as it is), returning
    /// them.
    pub fn take_links(
        &mut self,
        pred: impl Fn(&PartialPlan, &CausalLink) -> bool,
    ) -> Vec<CausalLink> {
        let mask: Vec<bool> = self.links.iter().map(|l| pred(self, l)).collect();
        let mut taken = Vec::new();
        let mut i = 0;
        self.links.retain(|l| {
            let take = mask[i];
            i += 1;
            if take {
                taken.push(*l);
            }
            !take
        });
        taken
    }

    /// Future operator steps still in the plan.
    pub fn future_steps(&self) -> impl Iterator<Item = StepId> + '_ {
        self.live()
            .filter(|&s| matches!(self.step(s).kind, StepKind::Op(_)) && !self.is_past(s))
    }

    /// A linearisation of the future operator steps: a topological order of the ordering
    /// constraints, smallest step id first among the ready ones (deterministic).
    pub fn linearize(&self) -> Vec<StepId> {
        let mut left: Vec<StepId> = self.future_steps().collect();
        let mut order = Vec::with_capacity(left.len());
        while !left.is_empty() {
            let i = left
                .iter()
                .position(|&s| !left.iter().any(|&t| self.precedes(t, s)))
                .expect("orderings are acyclic");
            order.push(left.remove(i));
        }
        order
    }

    /// The operators of [`Self::linearize`].
    pub fn linear_plan(&self) -> Vec<OpId> {
        self.linearize()
            .into_iter()
            .filter_map(|s| match self.step(s).kind {
                StepKind::Op(o) => Some(o),
                _ => None,
            })
            .collect()
    }

    /// Number of linearisations of the future steps (exponential; for tests on small plans).
    pub fn count_linearizations(&self) -> u64 {
        fn go(p: &PartialPlan, left: &mut Vec<StepId>) -> u64 {
            if left.is_empty() {
                return 1;
            }
            let ready: Vec<StepId> = left
                .iter()
                .copied()
                .filter(|&s| !left.iter().any(|&t| p.precedes(t, s)))
                .collect();
            let mut n = 0;
            for s in ready {
                let i = left.iter().position(|&x| x == s).unwrap();
                left.remove(i);
                n += go(p, left);
                left.insert(i, s);
            }
            n
        }
        go(self, &mut self.future_steps().collect())
    }

    /// Marks `s` as started.
    pub fn begin(&mut self, s: StepId) {
        self.started += 1;
        let st = &mut self.steps[s as usize];
        st.status = Status::Running;
        st.started_at = self.started;
    }

    /// Marks `s` as done and applies its effects to `now`.
    pub fn finish(&mut self, task: &Task, s: StepId) {
        if self.step(s).status == Status::NotStarted {
            self.begin(s);
        }
        self.steps[s as usize].status = Status::Done;
        if let Some(op) = self.operator(task, s) {
            let op = op.clone();
            op.apply_in_place(&mut self.now);
        }
    }

    /// Executes the first step of the linearisation; returns it.
    pub fn execute_next(&mut self, task: &Task) -> Option<StepId> {
        let s = *self.linearize().first()?;
        self.finish(task, s);
        Some(s)
    }

    /// Number of future operator steps.
    pub fn len(&self) -> usize {
        self.future_steps().count()
    }

    /// Whether no operator step is left to perform.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A step's name for traces: `start`, `goal`, or its operator's name.
    pub fn step_name(&self, task: &Task, s: StepId) -> String {
        match self.step(s).kind {
            StepKind::Start => "start".into(),
            StepKind::Goal => "goal".into(),
            StepKind::Op(o) => task.op(o).name.clone(),
            StepKind::External(i) => self.external[i as usize].name.clone(),
        }
    }

    /// Whether every open condition is supported and no threat remains: then every
    /// linearisation is executable from `now` and reaches the goal.
    pub fn is_complete(&self, task: &Task) -> bool {
        self.agenda.is_empty() && self.first_threat(task).is_none()
    }
}
