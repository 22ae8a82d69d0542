//! Complete forward state-space search for offline plans: A* (optimal with an admissible
//! heuristic such as `h_max`) and greedy best-first search (fast, not optimal). Both are
//! complete: when the reachable state space is exhausted the task is proven unsolvable.

use super::heuristic::{Heuristic, RelaxedExploration};
use super::state::State;
use super::task::{OpId, Task};
use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::{BinaryHeap, HashMap};
use std::time::{Duration, Instant};

/// Resource bounds; exceeding one ends the search with [`Outcome::LimitReached`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop after expanding this many states.
    pub max_expansions: Option<u64>,
    /// Stop after this much wall-clock time (the outcome then depends on the machine's speed).
    pub max_time: Option<Duration>,
}

/// What a search did, for benchmarks and traces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// States whose successors were generated.
    pub expanded: u64,
    /// Successor states generated (including duplicates).
    pub generated: u64,
    /// Heuristic evaluations.
    pub evaluated: u64,
}

/// How a search ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A plan: operator ids in execution order (empty when the initial state is a goal).
    Plan(Vec<OpId>),
    /// The search space was exhausted (or the goal is relaxed-unreachable): no plan exists.
    Unsolvable,
    /// A limit of [`Limits`] stopped the search before it could decide.
    LimitReached,
}

/// The outcome of a search with its effort.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Plan, proof of unsolvability, or a limit reached.
    pub outcome: Outcome,
    /// The effort it took.
    pub stats: Stats,
}

impl SearchResult {
    /// The plan, if one was found.
    pub fn plan(&self) -> Option<&[OpId]> {
        match &self.outcome {
            Outcome::Plan(p) => Some(p),
            _ => None,
        }
    }
}

/// Finds applicable operators quickly: each operator is filed under its first precondition, so
/// only operators whose first precondition holds are tested.
pub struct Successors {
    by_first: Vec<Vec<OpId>>,
    no_pre: Vec<OpId>,
}

impl Successors {
    /// Files every operator of `task` under its first precondition.
    pub fn new(task: &Task) -> Self {
        let mut by_first = vec![Vec::new(); task.num_facts()];
        let mut no_pre = Vec::new();
        for (i, op) in task.operators.iter().enumerate() {
            match op.pre.first() {
                Some(&f) => by_first[f as usize].push(i as OpId),
                None => no_pre.push(i as OpId),
            }
        }
        Successors { by_first, no_pre }
    }

    /// Applicable operators in `s`, sorted by id (declaration order).
    pub fn applicable(&self, task: &Task, s: &State, out: &mut Vec<OpId>) {
        out.clear();
        out.extend(
            self.no_pre
                .iter()
                .copied()
                .filter(|&o| task.op(o).is_applicable(s)),
        );
        for f in s.facts() {
            out.extend(
                self.by_first[f as usize]
                    .iter()
                    .copied()
                    .filter(|&o| task.op(o).is_applicable(s)),
            );
        }
        out.sort_unstable();
    }
}

type OpenEntry = (u32, u32, Reverse<u64>, u32);

struct Node {
    parent: u32,
    op: OpId,
    g: u32,
}

/// A* with `h` (optimal when `h` is admissible: [`Heuristic::Max`] or [`Heuristic::Blind`]).
pub fn astar(task: &Task, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, task.initial_state(), h, limits, true)
}

/// Greedy best-first search on `h` alone (eager, no reopening).
pub fn gbfs(task: &Task, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, task.initial_state(), h, limits, false)
}

/// [`astar`] from another state than the task's initial one (an agent's current belief).
pub fn astar_from(task: &Task, from: &State, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, from.clone(), h, limits, true)
}

/// [`gbfs`] from another state than the task's initial one.
pub fn gbfs_from(task: &Task, from: &State, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, from.clone(), h, limits, false)
}

fn best_first(task: &Task, init: State, h: Heuristic, limits: Limits, use_g: bool) -> SearchResult {
    let start_time = Instant::now();
    let mut stats = Stats::default();
    let mut relaxed = RelaxedExploration::new(task);
    let succ = Successors::new(task);

    stats.evaluated += 1;
    let Some(h0) = relaxed.evaluate(task, &init, h) else {
        return SearchResult {
            outcome: Outcome::Unsolvable,
            stats,
        };
    };
    let mut states: Vec<State> = vec![init.clone()];
    let mut nodes = vec![Node {
        parent: u32::MAX,
        op: OpId::MAX,
        g: 0,
    }];
    let mut hval: Vec<Option<u32>> = vec![Some(h0)];
    let mut index: HashMap<State, u32> = HashMap::new();
    index.insert(init, 0);
    let mut closed: Vec<bool> = vec![false];
    // (f, h, insertion counter, node) — ties go to lower h, then to the most recent node.
    let mut open: BinaryHeap<Reverse<OpenEntry>> = BinaryHeap::new();
    let mut counter = 0u64;
    open.push(Reverse((h0, h0, Reverse(counter), 0)));
    let mut applicable = Vec::new();

    while let Some(Reverse((f, hv, _, id))) = open.pop() {
        let idu = id as usize;
        let g = nodes[idu].g;
        if closed[idu] || (use_g && f != g + hval[idu].unwrap_or(0)) {
            continue; // stale entry
        }
        if task.is_goal(&states[idu]) {
            return SearchResult {
                outcome: Outcome::Plan(extract(&nodes, id)),
                stats,
            };
        }
        closed[idu] = true;
        if limits.max_expansions.is_some_and(|m| stats.expanded >= m)
            || limits.max_time.is_some_and(|t| start_time.elapsed() >= t)
        {
            return SearchResult {
                outcome: Outcome::LimitReached,
                stats,
            };
        }
        stats.expanded += 1;
        let _ = hv;
        let state = states[idu].clone();
        succ.applicable(task, &state, &mut applicable);
        for &o in &applicable {
            stats.generated += 1;
            let next = task.op(o).apply(&state);
            let ng = g + 1;
            match index.entry(next) {
                Entry::Occupied(e) => {
                    let nid = *e.get();
                    let n = &mut nodes[nid as usize];
                    if use_g && ng < n.g {
                        // A cheaper path: reopen (never happens with a consistent heuristic).
                        n.g = ng;
                        n.parent = id;
                        n.op = o;
                        closed[nid as usize] = false;
                        if let Some(hn) = hval[nid as usize] {
                            counter += 1;
                            open.push(Reverse((ng + hn, hn, Reverse(counter), nid)));
                        }
                    }
                }
                Entry::Vacant(e) => {
                    let nid = states.len() as u32;
                    let s = e.key().clone();
                    e.insert(nid);
                    stats.evaluated += 1;
                    let hn = relaxed.evaluate(task, &s, h);
                    states.push(s);
                    nodes.push(Node {
                        parent: id,
                        op: o,
                        g: ng,
                    });
                    hval.push(hn);
                    closed.push(hn.is_none());
                    if let Some(hn) = hn {
                        counter += 1;
                        let key = if use_g { ng + hn } else { hn };
                        open.push(Reverse((key, hn, Reverse(counter), nid)));
                    }
                }
            }
        }
    }
    SearchResult {
        outcome: Outcome::Unsolvable,
        stats,
    }
}

fn extract(nodes: &[Node], mut id: u32) -> Vec<OpId> {
    let mut plan = Vec::new();
    while nodes[id as usize].parent != u32::MAX {
        plan.push(nodes[id as usize].op);
        id = nodes[id as usize].parent;
    }
    plan.reverse();
    plan
}

/// Breadth-first search: the optimal length by exhaustive search (reference for tests).
pub fn breadth_first(task: &Task, limits: Limits) -> SearchResult {
    astar(task, Heuristic::Blind, limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::fixtures;
    use crate::plan::validate::validate;

    #[test]
    fn t1_dinner_date_optimal_length_three() {
        let t = fixtures::dinner_date();
        for h in [Heuristic::Blind, Heuristic::Max] {
            let r = astar(&t, h, Limits::default());
            let p = r.plan().unwrap();
            assert_eq!(p.len(), 3);
            validate(&t, &t.initial_state(), p).unwrap();
        }
        let r = gbfs(&t, Heuristic::Add, Limits::default());
        validate(&t, &t.initial_state(), r.plan().unwrap()).unwrap();
    }

    #[test]
    fn t1_exactly_six_optimal_plans() {
        let t = fixtures::dinner_date();
        let mut count = 0;
        let mut names = Vec::new();
        let n = t.operators.len() as OpId;
        for a in 0..n {
            for b in 0..n {
                for c in 0..n {
                    let p = [a, b, c];
                    if validate(&t, &t.initial_state(), &p).is_ok() {
                        count += 1;
                        names.push(t.plan_names(&p).join("·"));
                    }
                    // No length-2 plan exists.
                    assert!(validate(&t, &t.initial_state(), &[a, b]).is_err());
                }
            }
        }
        assert_eq!(count, 6, "{names:?}");
        assert!(names.contains(&"wrap·dolly·cook".to_string()));
    }

    #[test]
    fn t4_funny_dinner_date_optimal_length_six() {
        let t = fixtures::funny_dinner_date();
        let r = astar(&t, Heuristic::Max, Limits::default());
        assert_eq!(r.plan().unwrap().len(), 6);
        let r = gbfs(&t, Heuristic::Ff, Limits::default());
        validate(&t, &t.initial_state(), r.plan().unwrap()).unwrap();
    }

    #[test]
    fn exhausted_space_is_unsolvable() {
        // Relaxed-reachable but really unreachable: b needs a, which achieving b destroys.
        let t = Task::builder()
            .op("ab", &["a"], &["b"], &["a"])
            .op("bc", &["a", "b"], &["c"], &[])
            .init(&["a"])
            .goal(&["c"])
            .build();
        let r = astar(&t, Heuristic::Max, Limits::default());
        assert_eq!(r.outcome, Outcome::Unsolvable);
        assert!(r.stats.expanded >= 1);
    }

    #[test]
    fn limits_stop_the_search() {
        let t = fixtures::funny_dinner_date();
        let r = astar(
            &t,
            Heuristic::Blind,
            Limits {
                max_expansions: Some(2),
                max_time: None,
            },
        );
        assert_eq!(r.outcome, Outcome::LimitReached);
    }
}
