//! Lozano et al.'s real-time search: Korf's MinMin lookahead inside a depth-first
//! branch-and-bound, with HSP's heuristic at the horizon (§2.2–2.3 of seed 004).
//!
//! - **Horizon** `H`: from every node the children are scored by a minimin lookahead `H` levels
//!   deep; the heuristic is computed only at frontier nodes (a goal scores its depth).
//! - **Dynamic depth bound** `d`: starts at the number of operators and drops to one less than
//!   the length of the best plan found, so each later plan is strictly shorter ("plans of length
//!   10 refined to 6").
//! - **Second bound (2-B)**: a successor that adds no new atom is pruned. Sound for positive
//!   STRIPS (the successor is a subset of its parent, so everything it can do its parent can).
//!   With negative preconditions or goals a delete can be what a plan needs (closing a door
//!   so that it is closed), so a successor is pruned only if it also deletes no fact that a
//!   negative precondition or goal asks about: then it is still dominated and no plan is lost
//!   (the digest's caveat; 004 gets the same by compiling negations into positive atoms).
//!
//! [`run`] interleaves planning and execution: plan, execute the first operator, observe the new
//! state (which the world may have changed), re-plan.

use super::heuristic::{Heuristic, RelaxedExploration};
use super::search::Successors;
use super::state::State;
use super::task::{OpId, Task};
use std::collections::HashMap;

/// How a MinMin search runs ([`minmin`], [`run`]).
#[derive(Clone, Copy, Debug)]
pub struct MinMinConfig {
    /// Lookahead depth `H`; the heuristic is computed `H` levels below each scored child.
    pub horizon: u32,
    /// Initial depth bound `d`; `None` = number of operators (the paper's choice).
    pub depth_bound: Option<u32>,
    /// Prune successors that add no new atom (and delete nothing a negative condition asks
    /// about).
    pub second_bound: bool,
    /// The estimate at the lookahead's frontier.
    pub heuristic: Heuristic,
    /// Skip a state already explored at the same or a smaller depth (sound for branch and
    /// bound; not in the paper, on by default).
    pub transpositions: bool,
    /// Stop after this many generated nodes, returning the best plan so far.
    pub max_nodes: Option<u64>,
}

impl Default for MinMinConfig {
    fn default() -> Self {
        MinMinConfig {
            horizon: 3,
            depth_bound: None,
            second_bound: true,
            heuristic: Heuristic::Add,
            transpositions: true,
            max_nodes: Some(5_000_000),
        }
    }
}

/// What one MinMin search found.
#[derive(Clone, Debug, Default)]
pub struct MinMinResult {
    /// The shortest plan found (its first operator is what the agent executes).
    pub plan: Option<Vec<OpId>>,
    /// Nodes generated, in the branch and bound and in the lookaheads.
    pub nodes: u64,
    /// Heuristic evaluations (frontier nodes).
    pub evaluations: u64,
    /// The solution vector: how many plans were found at each length.
    pub solutions_by_length: Vec<u64>,
    /// Whether `max_nodes` stopped the search early (the plan may then not be the shortest).
    pub truncated: bool,
    /// Successors pruned by the second bound.
    pub pruned_2b: u64,
}

struct Search<'a> {
    task: &'a Task,
    cfg: MinMinConfig,
    succ: Successors,
    relaxed: RelaxedExploration,
    /// Facts some negative precondition or goal asks about: deleting one is progress.
    negative: State,
    /// Longest plan still wanted.
    limit: u32,
    path: Vec<OpId>,
    on_path: Vec<State>,
    seen: HashMap<State, u32>,
    scratch: Vec<Vec<OpId>>,
    out: MinMinResult,
}

const INF: u32 = u32::MAX;

impl Search<'_> {
    fn stop(&self) -> bool {
        self.cfg.max_nodes.is_some_and(|m| self.out.nodes >= m)
    }

    /// Successors of `s` after the second bound, in declaration order.
    fn children(&mut self, s: &State, depth: usize) -> Vec<(OpId, State)> {
        if self.scratch.len() <= depth {
            self.scratch.resize_with(depth + 1, Vec::new);
        }
        let mut ops = std::mem::take(&mut self.scratch[depth]);
        self.succ.applicable(self.task, s, &mut ops);
        let mut kids = Vec::with_capacity(ops.len());
        for &o in &ops {
            let op = self.task.op(o);
            if self.cfg.second_bound
                && op.add.iter().all(|&f| s.contains(f))
                && !op.del.iter().any(|&f| self.negative.contains(f))
            {
                self.out.pruned_2b += 1;
                continue;
            }
            self.out.nodes += 1;
            kids.push((o, op.apply(s)));
        }
        self.scratch[depth] = ops;
        kids
    }

    /// Minimin value of `s` reached at depth `g`, looking `k` more levels ahead.
    fn lookahead(&mut self, s: &State, g: u32, k: u32, depth: usize) -> u32 {
        if self.task.is_goal(s) {
            return g;
        }
        if k == 0 || g > self.limit || self.stop() {
            self.out.evaluations += 1;
            return match self.relaxed.evaluate(self.task, s, self.cfg.heuristic) {
                Some(h) => g.saturating_add(h),
                None => INF,
            };
        }
        let mut best = INF;
        for (_, next) in self.children(s, depth) {
            best = best.min(self.lookahead(&next, g + 1, k - 1, depth + 1));
        }
        best
    }

    fn dfs(&mut self, s: &State) {
        let g = self.path.len() as u32;
        if self.task.is_goal(s) {
            let len = g as usize;
            if self.out.solutions_by_length.len() <= len {
                self.out.solutions_by_length.resize(len + 1, 0);
            }
            self.out.solutions_by_length[len] += 1;
            if self.out.plan.as_ref().is_none_or(|p| p.len() > len) {
                self.out.plan = Some(self.path.clone());
            }
            self.limit = g.saturating_sub(1);
            return;
        }
        if g >= self.limit || self.stop() {
            return;
        }
        if self.cfg.transpositions {
            match self.seen.get(s) {
                Some(&d) if d <= g => return,
                _ => {
                    self.seen.insert(s.clone(), g);
                }
            }
        }
        let kids = self.children(s, 0);
        let mut scored: Vec<(u32, usize, OpId, State)> = Vec::with_capacity(kids.len());
        for (i, (o, next)) in kids.into_iter().enumerate() {
            if self.on_path.contains(&next) {
                continue; // a cycle can never shorten a plan
            }
            let v = self.lookahead(&next, g + 1, self.cfg.horizon.saturating_sub(1), 1);
            if v != INF {
                scored.push((v, i, o, next));
            }
        }
        scored.sort_by_key(|&(v, i, _, _)| (v, i));
        for (_, _, o, next) in scored {
            if self.path.len() as u32 >= self.limit {
                break;
            }
            self.path.push(o);
            self.on_path.push(next.clone());
            self.dfs(&next);
            self.on_path.pop();
            self.path.pop();
            if self.stop() {
                self.out.truncated = true;
                return;
            }
        }
    }
}

/// Plans from `from` with MinMin; the returned plan is the shortest found within the bounds.
pub fn minmin(task: &Task, from: &State, cfg: MinMinConfig) -> MinMinResult {
    let mut search = Search {
        task,
        cfg,
        succ: Successors::new(task),
        relaxed: RelaxedExploration::new(task),
        negative: task.state_of(
            task.operators
                .iter()
                .flat_map(|o| o.pre_neg.iter().copied())
                .chain(task.goal_neg.iter().copied()),
        ),
        limit: cfg
            .depth_bound
            .unwrap_or(task.operators.len() as u32)
            .max(1),
        path: Vec::new(),
        on_path: vec![from.clone()],
        seen: HashMap::new(),
        scratch: Vec::new(),
        out: MinMinResult::default(),
    };
    search.dfs(from);
    if search.stop() {
        search.out.truncated = true;
    }
    search.out
}

/// What happened while an agent interleaved planning and execution.
#[derive(Clone, Debug, Default)]
pub struct Episode {
    /// Operators executed, in order.
    pub executed: Vec<OpId>,
    /// The plan computed before each executed step.
    pub plans: Vec<Vec<OpId>>,
    /// Whether the goal held when the loop stopped.
    pub reached_goal: bool,
    /// Nodes generated over every planning call.
    pub nodes: u64,
    /// The state the agent observed last; always set once [`run`] returns.
    pub final_state: Option<State>,
}

/// The real-time loop: plan, execute the first operator through `execute` (which returns the
/// state the agent observes afterwards — the world may have changed it), re-plan, until the goal
/// holds, no plan is found, or `max_steps` operators have run.
///
/// ```
/// use ensemble_runtime::plan::minmin::{MinMinConfig, run};
/// use ensemble_runtime::plan::{fixtures, validate};
///
/// // The funny dinner date: optimal plans have six actions.
/// let task = fixtures::funny_dinner_date();
/// let start = task.initial_state();
/// // A world that does exactly what the agent does.
/// let world = |_step, op, s: &_| task.op(op).apply(s);
/// let episode = run(&task, &start, MinMinConfig::default(), 20, world);
/// assert!(episode.reached_goal);
/// assert_eq!(episode.plans.len(), episode.executed.len(), "one plan before each step");
/// assert!(episode.executed.len() >= 6);
/// let end = validate(&task, &start, &episode.executed).expect("every step applied");
/// assert!(task.is_goal(&end));
/// ```
pub fn run(
    task: &Task,
    from: &State,
    cfg: MinMinConfig,
    max_steps: usize,
    mut execute: impl FnMut(usize, OpId, &State) -> State,
) -> Episode {
    let mut ep = Episode::default();
    let mut s = from.clone();
    for step in 0..=max_steps {
        if task.is_goal(&s) {
            ep.reached_goal = true;
            break;
        }
        if step == max_steps {
            break;
        }
        let r = minmin(task, &s, cfg);
        ep.nodes += r.nodes;
        let Some(plan) = r.plan else { break };
        let Some(&first) = plan.first() else { break };
        ep.plans.push(plan);
        s = execute(step, first, &s);
        ep.executed.push(first);
    }
    ep.final_state = Some(s);
    ep
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::fixtures;
    use crate::plan::validate::validate;

    fn cfg(h: u32, two_b: bool) -> MinMinConfig {
        MinMinConfig {
            horizon: h,
            depth_bound: Some(10),
            second_bound: two_b,
            ..MinMinConfig::default()
        }
    }

    #[test]
    fn t1_dinner_date_length_three() {
        let t = fixtures::dinner_date();
        let r = minmin(&t, &t.initial_state(), MinMinConfig::default());
        let p = r.plan.unwrap();
        assert_eq!(p.len(), 3);
        validate(&t, &t.initial_state(), &p).unwrap();
    }

    #[test]
    fn t4_length_six_for_every_horizon_with_and_without_2b() {
        let t = fixtures::funny_dinner_date();
        let s0 = t.initial_state();
        let mut nodes = Vec::new();
        for two_b in [true, false] {
            for h in [3, 4] {
                let r = minmin(&t, &s0, cfg(h, two_b));
                assert!(!r.truncated);
                let p = r.plan.unwrap();
                assert_eq!(p.len(), 6, "H={h} 2B={two_b}");
                validate(&t, &s0, &p).unwrap();
                nodes.push(r.nodes);
            }
        }
        // 2-B never changes the length and reduces the nodes (digest T4).
        assert!(nodes[0] < nodes[2] && nodes[1] < nodes[3], "{nodes:?}");
    }

    #[test]
    fn t5_second_bound_prunes_wash_hands_not_carry() {
        let t = fixtures::funny_dinner_date();
        let s0 = t.initial_state();
        let wash = t.op(t.op_id("washHands").unwrap());
        let carry = t.op(t.op_id("carry").unwrap());
        assert!(wash.add.iter().all(|&f| s0.contains(f)));
        assert!(!carry.add.iter().all(|&f| s0.contains(f)));
        let r = minmin(&t, &s0, MinMinConfig::default());
        assert!(r.pruned_2b > 0);
    }

    #[test]
    fn t6_interleaving_replans_after_an_external_change() {
        let t = fixtures::funny_dinner_date();
        let s0 = t.initial_state();
        let wrap = t.op_id("wrap").unwrap();
        let present = t.fact_id("present").unwrap();
        // After wrap the remaining optimal length is 5.
        let s1 = t.op(wrap).apply(&s0);
        let r = minmin(&t, &s1, MinMinConfig::default());
        assert_eq!(r.plan.unwrap().len(), 5);
        // The world takes the present away after the first step.
        let ep = run(&t, &s0, MinMinConfig::default(), 20, |step, o, s| {
            let mut next = t.op(o).apply(s);
            if step == 0 {
                next.remove(present);
            }
            next
        });
        assert!(ep.reached_goal);
        let wraps = ep.executed.iter().filter(|&&o| o == wrap).count();
        assert!(
            ep.executed[1..].contains(&wrap),
            "{:?}",
            t.plan_names(&ep.executed)
        );
        assert!(wraps >= 1);
    }

    #[test]
    fn the_second_bound_keeps_a_delete_that_a_negative_condition_needs() {
        // Closing the door adds nothing, yet only a closed door lets the agent knock:
        // pruning it would report a solvable task as having no plan.
        let t = Task::builder()
            .op("close", &["open"], &[], &["open"])
            .op("knock", &["!open"], &["knocked"], &[])
            .init(&["open"])
            .goal(&["knocked"])
            .build();
        let r = minmin(&t, &t.initial_state(), MinMinConfig::default());
        assert_eq!(t.plan_names(&r.plan.expect("a plan")), ["close", "knock"]);
        // The same holds for a negative goal.
        let t = Task::builder()
            .op("close", &["open"], &[], &["open"])
            .init(&["open"])
            .goal(&["!open"])
            .build();
        let r = minmin(&t, &t.initial_state(), MinMinConfig::default());
        assert_eq!(t.plan_names(&r.plan.expect("a plan")), ["close"]);
    }
}
