//! HSP's delete-relaxation heuristics (Bonet & Geffner; Lozano et al. §2.3): the cost of a fact
//! is 0 if it holds, otherwise 1 + the cost of the cheapest achiever's preconditions, where the
//! cost of a set of facts is their sum (`h_add`, informative, not admissible) or their maximum
//! (`h_max`, admissible). `h_ff` counts the operators of the relaxed plan read off `h_add`'s best
//! supporters.
//!
//! Computed by a generalised Dijkstra over facts with one counter of unsatisfied preconditions
//! per operator. Negative preconditions and negative goals are relaxed away (treated as true),
//! which keeps `h_max` admissible.

pub use crate::program::planning::Heuristic;

use super::lmcut::LmCut;
use super::state::State;
use super::task::{FactId, OpId, Task};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

impl Heuristic {
    /// Its short name (`hmax`, `hff`), as `ensemble plan --heuristic` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Heuristic::Blind => "blind",
            Heuristic::Max => "hmax",
            Heuristic::Add => "hadd",
            Heuristic::Ff => "hff",
            Heuristic::LmCut => "lmcut",
        }
    }

    /// Whether it never overestimates, so A* with it finds optimal plans.
    pub fn is_admissible(self) -> bool {
        matches!(self, Heuristic::Blind | Heuristic::Max | Heuristic::LmCut)
    }
}

const INF: u32 = u32::MAX;

/// Reusable scratch space for relaxed exploration of one task.
pub struct RelaxedExploration {
    /// For each fact, the operators that have it as a (positive) precondition.
    consumers: Vec<Vec<OpId>>,
    num_pre: Vec<u32>,
    no_pre: Vec<OpId>,
    fact_cost: Vec<u32>,
    supporter: Vec<OpId>,
    unsat: Vec<u32>,
    op_cost: Vec<u32>,
    heap: BinaryHeap<Reverse<(u32, FactId)>>,
    marked: Vec<bool>,
    /// LM-cut's own scratch space, made on its first use.
    lmcut: Option<LmCut>,
}

impl RelaxedExploration {
    /// Scratch space sized for `task`.
    pub fn new(task: &Task) -> Self {
        let mut consumers = vec![Vec::new(); task.num_facts()];
        let mut num_pre = Vec::with_capacity(task.operators.len());
        let mut no_pre = Vec::new();
        for (i, op) in task.operators.iter().enumerate() {
            for &f in &op.pre {
                consumers[f as usize].push(i as OpId);
            }
            num_pre.push(op.pre.len() as u32);
            if op.pre.is_empty() {
                no_pre.push(i as OpId);
            }
        }
        RelaxedExploration {
            consumers,
            num_pre,
            no_pre,
            fact_cost: vec![INF; task.num_facts()],
            supporter: vec![OpId::MAX; task.num_facts()],
            unsat: vec![0; task.operators.len()],
            op_cost: vec![0; task.operators.len()],
            heap: BinaryHeap::new(),
            marked: vec![false; task.operators.len()],
            lmcut: None,
        }
    }

    /// Runs the exploration from `s` with sum (`additive`) or max costs. Stops early once every
    /// fact in `goal` is settled, unless `goal` is `None`.
    fn explore(&mut self, task: &Task, s: &State, additive: bool, goal: Option<&[FactId]>) {
        self.fact_cost.fill(INF);
        self.supporter.fill(OpId::MAX);
        self.unsat.copy_from_slice(&self.num_pre);
        self.op_cost.fill(0);
        self.heap.clear();
        for f in s.facts() {
            self.fact_cost[f as usize] = 0;
            self.heap.push(Reverse((0, f)));
        }
        for &o in &self.no_pre {
            let op = &task.operators[o as usize];
            for &a in &op.add {
                if self.fact_cost[a as usize] > 1 {
                    self.fact_cost[a as usize] = 1;
                    self.supporter[a as usize] = o;
                    self.heap.push(Reverse((1, a)));
                }
            }
        }
        let mut goals_left = goal.map(|g| g.len());
        while let Some(Reverse((c, f))) = self.heap.pop() {
            if c > self.fact_cost[f as usize] {
                continue;
            }
            if let (Some(left), Some(g)) = (goals_left.as_mut(), goal) {
                if g.contains(&f) {
                    *left -= 1;
                }
                if *left == 0 {
                    break;
                }
            }
            for &o in &self.consumers[f as usize] {
                let oi = o as usize;
                self.op_cost[oi] = if additive {
                    self.op_cost[oi].saturating_add(c)
                } else {
                    self.op_cost[oi].max(c)
                };
                self.unsat[oi] -= 1;
                if self.unsat[oi] == 0 {
                    let cost = self.op_cost[oi].saturating_add(1);
                    for &a in &task.operators[oi].add {
                        if cost < self.fact_cost[a as usize] {
                            self.fact_cost[a as usize] = cost;
                            self.supporter[a as usize] = o;
                            self.heap.push(Reverse((cost, a)));
                        }
                    }
                }
            }
        }
    }

    /// The heuristic value of `s` for the task's goal; `None` when the goal is unreachable even
    /// with deletes ignored (a proven dead end).
    pub fn evaluate(&mut self, task: &Task, s: &State, h: Heuristic) -> Option<u32> {
        self.evaluate_goal(task, s, &task.goal, h)
    }

    /// Like [`Self::evaluate`] for an arbitrary set of goal facts.
    pub fn evaluate_goal(
        &mut self,
        task: &Task,
        s: &State,
        goal: &[FactId],
        h: Heuristic,
    ) -> Option<u32> {
        if goal.iter().all(|&g| s.contains(g)) {
            return Some(0);
        }
        if h == Heuristic::Blind {
            // Still detect relaxed dead ends: cheap and it keeps "unsolvable" proofs sound.
            self.explore(task, s, false, Some(goal));
            return goal
                .iter()
                .all(|&g| self.fact_cost[g as usize] != INF)
                .then_some(0);
        }
        if h == Heuristic::LmCut {
            return self
                .lmcut
                .get_or_insert_with(|| LmCut::new(task))
                .evaluate(s, goal);
        }
        self.explore(task, s, h != Heuristic::Max, Some(goal));
        let mut total: u32 = 0;
        for &g in goal {
            let c = self.fact_cost[g as usize];
            if c == INF {
                return None;
            }
            total = match h {
                Heuristic::Max => total.max(c),
                _ => total.saturating_add(c),
            };
        }
        if h == Heuristic::Ff {
            return Some(self.relaxed_plan(task, goal).len() as u32);
        }
        Some(total)
    }

    /// Like [`Self::evaluate`], and fills `preferred` with the helpful actions (Hoffmann &
    /// Nebel): the operators of the relaxed plan that apply in `s`. Only `h_ff` and `h_add`
    /// have a relaxed plan; for other heuristics `preferred` stays empty.
    pub fn evaluate_preferred(
        &mut self,
        task: &Task,
        s: &State,
        h: Heuristic,
        preferred: &mut Vec<OpId>,
    ) -> Option<u32> {
        preferred.clear();
        let value = self.evaluate(task, s, h)?;
        if value > 0 && matches!(h, Heuristic::Ff | Heuristic::Add) {
            let goal = &task.goal;
            preferred.extend(
                self.relaxed_plan(task, goal)
                    .into_iter()
                    .filter(|&o| self.op_cost[o as usize] == 0 && task.op(o).is_applicable(s)),
            );
            preferred.sort_unstable();
        }
        Some(value)
    }

    /// The relaxed plan of the last additive exploration: the best supporters needed for `goal`,
    /// in an order that respects their relaxed dependencies.
    fn relaxed_plan(&mut self, task: &Task, goal: &[FactId]) -> Vec<OpId> {
        self.marked.fill(false);
        let mut plan = Vec::new();
        let mut stack: Vec<FactId> = goal.to_vec();
        while let Some(f) = stack.pop() {
            if self.fact_cost[f as usize] == 0 {
                continue;
            }
            let o = self.supporter[f as usize];
            if o == OpId::MAX || self.marked[o as usize] {
                continue;
            }
            self.marked[o as usize] = true;
            plan.push(o);
            stack.extend(task.operators[o as usize].pre.iter().copied());
        }
        plan.sort_by_key(|&o| self.op_cost[o as usize]);
        plan
    }

    /// Every fact reachable from `s` with deletes ignored.
    pub fn reachable_facts(&mut self, task: &Task, s: &State) -> State {
        self.explore(task, s, false, None);
        State::from_facts(
            task.num_facts(),
            (0..task.num_facts() as FactId).filter(|&f| self.fact_cost[f as usize] != INF),
        )
    }

    /// Relaxed cost of every fact after the last exploration (`u32::MAX` = unreachable).
    pub fn fact_costs(&self) -> &[u32] {
        &self.fact_cost
    }
}

/// One-shot evaluation (allocates; use [`RelaxedExploration`] in loops).
pub fn evaluate(task: &Task, s: &State, h: Heuristic) -> Option<u32> {
    RelaxedExploration::new(task).evaluate(task, s, h)
}

/// Operators whose preconditions are reachable from `s` with deletes ignored; the others can
/// never fire (`unexecutable-rule`).
pub fn relaxed_applicable(task: &Task, s: &State) -> Vec<bool> {
    let reach = RelaxedExploration::new(task).reachable_facts(task, s);
    task.operators
        .iter()
        .map(|o| o.pre.iter().all(|&f| reach.contains(f)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::fixtures;

    #[test]
    fn t2_dinner_date_heuristics() {
        let t = fixtures::dinner_date();
        let s0 = t.initial_state();
        assert_eq!(evaluate(&t, &s0, Heuristic::Add), Some(3));
        assert_eq!(evaluate(&t, &s0, Heuristic::Max), Some(1));
        let mut s = s0.clone();
        s.insert(t.fact_id("dinner").unwrap());
        s.insert(t.fact_id("present").unwrap());
        assert_eq!(evaluate(&t, &s, Heuristic::Add), Some(1));
        // A goal state is worth 0.
        let g = t.state_of(t.goal.iter().copied());
        assert_eq!(evaluate(&t, &g, Heuristic::Add), Some(0));
    }

    #[test]
    fn t4_funny_dinner_date_heuristics() {
        let t = fixtures::funny_dinner_date();
        let s0 = t.initial_state();
        assert_eq!(evaluate(&t, &s0, Heuristic::Add), Some(6));
        assert_eq!(evaluate(&t, &s0, Heuristic::Max), Some(2));
        // The relaxed plan is never longer than h_add.
        let ff = evaluate(&t, &s0, Heuristic::Ff).unwrap();
        assert!((2..=6).contains(&ff));
    }

    #[test]
    fn unreachable_goal_is_none() {
        let t = Task::builder()
            .op("a", &["x"], &["y"], &[])
            .init(&[])
            .goal(&["y"])
            .build();
        let s0 = t.initial_state();
        for h in [
            Heuristic::Blind,
            Heuristic::Max,
            Heuristic::Add,
            Heuristic::Ff,
        ] {
            assert_eq!(evaluate(&t, &s0, h), None, "{h:?}");
        }
        assert_eq!(relaxed_applicable(&t, &s0), vec![false]);
    }
}
