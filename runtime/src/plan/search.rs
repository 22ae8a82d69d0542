//! Complete forward state-space search for offline plans: A* (optimal with an admissible
//! heuristic such as `h_max`) and greedy best-first search (fast, not optimal). Both are
//! complete: when the reachable state space is exhausted the task is proven unsolvable.

use super::heuristic::{Heuristic, RelaxedExploration};
use super::state::{Packing, State, StateRegistry};
use super::task::{OpId, Task};
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::time::{Duration, Instant};

/// Resource bounds; exceeding one ends the search with [`Outcome::LimitReached`].
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop after expanding this many states.
    pub max_expansions: Option<u64>,
    /// Stop after this much wall-clock time (the outcome then depends on the machine's speed).
    pub max_time: Option<Duration>,
    /// Stop before the states, nodes and open list held exceed this many bytes (estimated from
    /// the packed state size); `None` is [`DEFAULT_MEMORY_LIMIT`].
    pub max_memory: Option<u64>,
}

/// Which limit of [`Limits`] stopped a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    /// [`Limits::max_expansions`].
    Expansions,
    /// [`Limits::max_time`].
    Time,
    /// [`Limits::max_memory`] or [`DEFAULT_MEMORY_LIMIT`].
    Memory,
}

impl Limit {
    /// What ran out, in words.
    pub fn describe(self) -> &'static str {
        match self {
            Limit::Expansions => "expansion limit",
            Limit::Time => "time limit",
            Limit::Memory => "memory limit",
        }
    }
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
    /// States held when the search ended.
    pub stored: u64,
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
    /// The limit that stopped it, when the outcome is [`Outcome::LimitReached`].
    pub stopped_by: Option<Limit>,
}

impl SearchResult {
    fn ended(outcome: Outcome, stats: Stats) -> Self {
        SearchResult {
            outcome,
            stats,
            stopped_by: None,
        }
    }

    fn stopped(limit: Limit, stats: Stats) -> Self {
        SearchResult {
            outcome: Outcome::LimitReached,
            stats,
            stopped_by: Some(limit),
        }
    }

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

struct Node {
    parent: u32,
    op: OpId,
    g: u32,
}

/// A* with `h` (optimal when `h` is admissible: [`Heuristic::Max`] or [`Heuristic::Blind`]).
pub fn astar(task: &Task, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, task.initial_state(), h, limits, Order::ASTAR)
}

/// Greedy best-first search on `h` alone (eager, no reopening).
pub fn gbfs(task: &Task, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, task.initial_state(), h, limits, Order::GREEDY)
}

/// [`astar`] from another state than the task's initial one (an agent's current belief).
pub fn astar_from(task: &Task, from: &State, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, from.clone(), h, limits, Order::ASTAR)
}

/// [`gbfs`] from another state than the task's initial one.
pub fn gbfs_from(task: &Task, from: &State, h: Heuristic, limits: Limits) -> SearchResult {
    best_first(task, from.clone(), h, limits, Order::GREEDY)
}

/// How [`best_first`] orders its open list: by `g_weight·g + h_weight·h`, ties to lower `h`,
/// then to the newest (`fifo: false`, the scenes' historical order) or oldest node.
#[derive(Clone, Copy)]
struct Order {
    g_weight: u32,
    h_weight: u32,
    fifo: bool,
    /// Only paths shorter than this are kept (an incumbent plan's length).
    bound: u32,
}

impl Order {
    const ASTAR: Order = Order {
        g_weight: 1,
        h_weight: 1,
        fifo: false,
        bound: u32::MAX,
    };
    const GREEDY: Order = Order {
        g_weight: 0,
        h_weight: 1,
        fifo: false,
        bound: u32::MAX,
    };

    fn key(self, g: u32, h: u32) -> u32 {
        self.g_weight
            .saturating_mul(g)
            .saturating_add(self.h_weight.saturating_mul(h))
    }
}

/// The open list of [`best_first`]: a queue of node ids for every (priority, `h`), the lowest
/// pair first, newest or oldest first within one (as [`Order::fifo`] says). An entry takes 4
/// bytes, where a heap of (priority, h, counter, id) entries took 24; Fast Downward's
/// tie-breaking open list is built the same way.
struct OpenList {
    buckets: BTreeMap<(u32, u32), VecDeque<u32>>,
    fifo: bool,
    len: usize,
}

impl OpenList {
    fn new(fifo: bool) -> Self {
        OpenList {
            buckets: BTreeMap::new(),
            fifo,
            len: 0,
        }
    }

    fn push(&mut self, key: u32, h: u32, id: u32) {
        self.buckets.entry((key, h)).or_default().push_back(id);
        self.len += 1;
    }

    /// The next node and the priority it was filed under.
    fn pop(&mut self) -> Option<(u32, u32)> {
        loop {
            let mut bucket = self.buckets.first_entry()?;
            let key = bucket.key().0;
            let queue = bucket.get_mut();
            let id = if self.fifo {
                queue.pop_front()
            } else {
                queue.pop_back()
            };
            if queue.is_empty() {
                bucket.remove();
            }
            if let Some(id) = id {
                self.len -= 1;
                return Some((key, id));
            }
        }
    }
}

/// The registry a search from `from` stores its states in: packed by the task's mutex groups
/// when it has them and `from` is its initial state (the groups hold only in states reachable
/// from there).
fn registry_for(task: &Task, from: &State) -> StateRegistry {
    let n = task.num_facts();
    if task.mutex_groups.is_empty() || *from != task.initial_state() {
        return StateRegistry::new(n);
    }
    StateRegistry::packed(n, Packing::new(n, &task.mutex_groups), from)
}

fn best_first(
    task: &Task,
    init: State,
    h: Heuristic,
    limits: Limits,
    order: Order,
) -> SearchResult {
    let use_g = order.g_weight > 0;
    let start_time = Instant::now();
    let mut stats = Stats::default();
    let mut relaxed = RelaxedExploration::new(task);
    let succ = Successors::new(task);

    stats.evaluated += 1;
    let Some(h0) = relaxed.evaluate(task, &init, h) else {
        return SearchResult::ended(Outcome::Unsolvable, stats);
    };
    let mut states = registry_for(task, &init);
    states.insert(&init);
    let mut nodes = vec![Node {
        parent: u32::MAX,
        op: OpId::MAX,
        g: 0,
    }];
    // The heuristic value, `DEAD_END` for a relaxed dead end.
    let mut hval: Vec<u32> = vec![h0];
    let memory = MemoryBudget::new(&states, limits, OPEN_ENTRY_BYTES);
    // Ties go to lower h, then by insertion order.
    let mut open = OpenList::new(order.fifo);
    open.push(order.key(0, h0), h0, 0);
    let mut applicable = Vec::new();
    let mut state = init;
    let mut next = state.clone();

    while let Some((f, id)) = open.pop() {
        let idu = id as usize;
        let g = nodes[idu].g;
        // Every node is filed once, and again only when reopened with a lower g: an entry
        // whose priority is not the node's current one is stale, and no closed list is needed.
        if use_g && f != order.key(g, hval[idu]) {
            continue;
        }
        states.get_into(id, &mut state);
        if task.is_goal(&state) {
            stats.stored = states.len() as u64;
            return SearchResult::ended(Outcome::Plan(extract(&nodes, id)), stats);
        }
        if let Some(limit) = memory.reached(&limits, &stats, start_time, states.len(), open.len) {
            stats.stored = states.len() as u64;
            return SearchResult::stopped(limit, stats);
        }
        stats.expanded += 1;
        succ.applicable(task, &state, &mut applicable);
        for &o in &applicable {
            stats.generated += 1;
            next.clone_from(&state);
            task.op(o).apply_in_place(&mut next);
            let ng = g + 1;
            if ng >= order.bound {
                continue; // cannot lead to a plan shorter than the incumbent
            }
            let (nid, new) = states.insert(&next);
            if !new {
                let n = &mut nodes[nid as usize];
                if use_g && ng < n.g {
                    // A cheaper path: reopen (never happens with a consistent heuristic).
                    n.g = ng;
                    n.parent = id;
                    n.op = o;
                    let hn = hval[nid as usize];
                    if hn != DEAD_END {
                        open.push(order.key(ng, hn), hn, nid);
                    }
                }
                continue;
            }
            stats.evaluated += 1;
            let hn = relaxed.evaluate(task, &next, h).unwrap_or(DEAD_END);
            nodes.push(Node {
                parent: id,
                op: o,
                g: ng,
            });
            hval.push(hn);
            if hn != DEAD_END {
                open.push(order.key(ng, hn), hn, nid);
            }
        }
    }
    stats.stored = states.len() as u64;
    SearchResult::ended(Outcome::Unsolvable, stats)
}

const DEAD_END: u32 = u32::MAX;
/// An open-list entry, a node id ([`OpenList`]).
const OPEN_ENTRY_BYTES: usize = std::mem::size_of::<u32>();

/// The default memory limit of a search when [`Limits::max_memory`] is not given.
pub const DEFAULT_MEMORY_LIMIT: u64 = 2 << 30;

/// Bytes one search node costs beyond its packed state: parent, operator, g, h.
const NODE_BYTES: usize = std::mem::size_of::<Node>() + 4;

/// The memory a search holds, estimated from what it stores: per state, the packed state, its
/// index entry and its node; per open-list entry, the entry.
struct MemoryBudget {
    per_state: usize,
    per_open_entry: usize,
}

impl MemoryBudget {
    fn new(states: &StateRegistry, _limits: Limits, per_open_entry: usize) -> Self {
        MemoryBudget {
            per_state: states.bytes_per_state() + NODE_BYTES,
            per_open_entry,
        }
    }

    fn bytes(&self, stored: usize, open: usize) -> u64 {
        (stored * self.per_state + open * self.per_open_entry) as u64
    }

    /// The first limit reached, if any.
    fn reached(
        &self,
        limits: &Limits,
        stats: &Stats,
        start: Instant,
        stored: usize,
        open: usize,
    ) -> Option<Limit> {
        if limits.max_expansions.is_some_and(|m| stats.expanded >= m) {
            return Some(Limit::Expansions);
        }
        if limits.max_time.is_some_and(|t| start.elapsed() >= t) {
            return Some(Limit::Time);
        }
        let max = limits.max_memory.unwrap_or(DEFAULT_MEMORY_LIMIT);
        (self.bytes(stored, open) > max).then_some(Limit::Memory)
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

/// Removes every action whose removal (with the actions that then no longer apply) still
/// reaches the goal (action elimination, Nakhost & Müller 2010). The result is valid whenever
/// `plan` is, and never longer.
pub fn eliminate_actions(task: &Task, from: &State, plan: &[OpId]) -> Vec<OpId> {
    let mut plan = plan.to_vec();
    let mut prefix_state = from.clone();
    let mut i = 0;
    while i < plan.len() {
        let mut s = prefix_state.clone();
        let mut kept = Vec::with_capacity(plan.len() - i);
        for &o in &plan[i + 1..] {
            if task.op(o).is_applicable(&s) {
                task.op(o).apply_in_place(&mut s);
                kept.push(o);
            }
        }
        if task.is_goal(&s) {
            plan.truncate(i);
            plan.extend(kept);
        } else {
            task.op(plan[i]).apply_in_place(&mut prefix_state);
            i += 1;
        }
    }
    plan
}

/// Lazy greedy best-first search with preferred operators, as Fast Downward's `lazy_greedy`
/// (the search of `lama-first`): a successor is evaluated only when taken from the open list
/// (deferred evaluation, queued with its parent's value); helpful actions also go into a
/// second open list that is boosted by 1000 picks whenever a better value is reached; ties go
/// to the oldest entry (FIFO), which keeps the search moving along one relaxed plan.
pub fn lazy_greedy(task: &Task, from: &State, h: Heuristic, limits: Limits) -> SearchResult {
    const BOOST: i64 = 1000;
    let start_time = Instant::now();
    let mut stats = Stats::default();
    let mut relaxed = RelaxedExploration::new(task);
    let succ = Successors::new(task);
    let mut preferred = Vec::new();
    stats.evaluated += 1;
    let Some(h0) = relaxed.evaluate_preferred(task, from, h, &mut preferred) else {
        return SearchResult::ended(Outcome::Unsolvable, stats);
    };
    if task.is_goal(from) {
        return SearchResult::ended(Outcome::Plan(Vec::new()), stats);
    }
    let mut states = registry_for(task, from);
    states.insert(from);
    let mut nodes = vec![Node {
        parent: u32::MAX,
        op: OpId::MAX,
        g: 0,
    }];
    type LazyEntry = Reverse<(u32, u64, u32, OpId)>;
    let memory = MemoryBudget::new(&states, limits, std::mem::size_of::<LazyEntry>());
    // [regular, preferred]: (parent's h, insertion counter, parent, operator), FIFO on ties.
    let mut open: [BinaryHeap<LazyEntry>; 2] = [BinaryHeap::new(), BinaryHeap::new()];
    let mut priority: [i64; 2] = [0, 0];
    let mut counter = 0u64;
    let mut best_h = h0;
    let mut applicable = Vec::new();
    let mut push_successors = |open: &mut [BinaryHeap<LazyEntry>; 2],
                               stats: &mut Stats,
                               id: u32,
                               hv: u32,
                               state: &State,
                               preferred: &[OpId]| {
        succ.applicable(task, state, &mut applicable);
        for &o in &applicable {
            stats.generated += 1;
            counter += 1;
            open[0].push(Reverse((hv, counter, id, o)));
            if preferred.binary_search(&o).is_ok() {
                open[1].push(Reverse((hv, counter, id, o)));
            }
        }
    };
    stats.expanded += 1;
    push_successors(&mut open, &mut stats, 0, h0, from, &preferred);
    let mut next = from.clone();
    loop {
        let which = match (open[0].is_empty(), open[1].is_empty()) {
            (true, true) => break,
            (false, true) => 0,
            (true, false) => 1,
            (false, false) => usize::from(priority[1] <= priority[0]),
        };
        priority[which] += 1;
        let Some(Reverse((_, _, parent, o))) = open[which].pop() else {
            break;
        };
        states.get_into(parent, &mut next);
        task.op(o).apply_in_place(&mut next);
        let (nid, new) = states.insert(&next);
        if !new {
            continue;
        }
        let g = nodes[parent as usize].g + 1;
        nodes.push(Node { parent, op: o, g });
        if task.is_goal(&next) {
            stats.stored = states.len() as u64;
            return SearchResult::ended(Outcome::Plan(extract(&nodes, nid)), stats);
        }
        stats.evaluated += 1;
        let Some(hv) = relaxed.evaluate_preferred(task, &next, h, &mut preferred) else {
            continue; // a relaxed dead end: never expanded
        };
        let open_len = open[0].len() + open[1].len();
        if let Some(limit) = memory.reached(&limits, &stats, start_time, states.len(), open_len) {
            stats.stored = states.len() as u64;
            return SearchResult::stopped(limit, stats);
        }
        if hv < best_h {
            best_h = hv;
            priority[1] -= BOOST;
        }
        stats.expanded += 1;
        push_successors(&mut open, &mut stats, nid, hv, &next, &preferred);
    }
    stats.stored = states.len() as u64;
    SearchResult::ended(Outcome::Unsolvable, stats)
}

/// Expansions the plan improvement of [`satisficing`] may spend when no limit is given.
pub const IMPROVEMENT_EXPANSIONS: u64 = 200_000;

/// Wall-clock time the plan improvement of [`satisficing_within`] may spend after the first
/// plan when the caller gives no time limit (`ensemble plan` without `--time-limit`): on large
/// tasks 200,000 expansions of h_FF take minutes, and the first plan is what was asked for.
pub const DEFAULT_IMPROVEMENT_TIME: Duration = Duration::from_secs(5);

/// Plan neighbourhood graph search (Nakhost and Müller, 2010): the states along `plan` and,
/// around each of them, the first `per_state` new states of a breadth-first search, form a
/// graph in which the shortest path from `from` to a goal is found by breadth-first search.
/// Returns that path if it is shorter than `plan`. Short detours the first plan missed — in
/// gripper, two balls carried on one trip instead of two trips — lie in small neighbourhoods.
/// Every expansion (of both passes) counts in `stats`; `None` also when a limit stops it.
fn neighbourhood_shortcut(
    task: &Task,
    succ: &Successors,
    from: &State,
    plan: &[OpId],
    per_state: usize,
    limits: &Limits,
    stats: &mut Stats,
) -> Option<Vec<OpId>> {
    let start = Instant::now();
    let mut states = registry_for(task, from);
    let memory = MemoryBudget::new(&states, *limits, 0);
    let expansions_at_start = stats.expanded;
    let stopped = |stats: &Stats, stored: usize| {
        let spent = Stats {
            expanded: stats.expanded - expansions_at_start,
            ..*stats
        };
        memory.reached(limits, &spent, start, stored, 0).is_some()
    };
    let mut along = Vec::with_capacity(plan.len() + 1);
    let mut s = from.clone();
    along.push(states.insert(&s).0);
    for &o in plan {
        task.op(o).apply_in_place(&mut s);
        along.push(states.insert(&s).0);
    }
    let mut applicable = Vec::new();
    let mut queue = std::collections::VecDeque::new();
    let mut next = from.clone();
    let mut cur = from.clone();
    for &root in &along {
        queue.clear();
        queue.push_back(root);
        let mut added = 0;
        'local: while let Some(id) = queue.pop_front() {
            if stopped(stats, states.len()) {
                return None;
            }
            stats.expanded += 1;
            states.get_into(id, &mut cur);
            succ.applicable(task, &cur, &mut applicable);
            for &o in &applicable {
                stats.generated += 1;
                states.get_into(id, &mut next);
                task.op(o).apply_in_place(&mut next);
                if states.insert(&next).1 {
                    added += 1;
                    if added >= per_state {
                        break 'local;
                    }
                    queue.push_back(states.len() as u32 - 1);
                }
            }
        }
    }
    // Breadth-first over the graph: successors outside it are ignored.
    let mut reached: Vec<Option<(u32, OpId)>> = vec![None; states.len()];
    let root = along[0];
    reached[root as usize] = Some((root, OpId::MAX));
    queue.clear();
    queue.push_back(root);
    while let Some(id) = queue.pop_front() {
        if stopped(stats, states.len()) {
            return None;
        }
        states.get_into(id, &mut cur);
        if task.is_goal(&cur) {
            let mut path = Vec::new();
            let mut at = id;
            while at != root {
                let (parent, op) = reached[at as usize].expect("reached states have a parent");
                path.push(op);
                at = parent;
            }
            path.reverse();
            return (path.len() < plan.len()).then_some(path);
        }
        stats.expanded += 1;
        succ.applicable(task, &cur, &mut applicable);
        for &o in &applicable {
            states.get_into(id, &mut next);
            task.op(o).apply_in_place(&mut next);
            if let Some(nid) = states.find(&next)
                && reached[nid as usize].is_none()
            {
                reached[nid as usize] = Some((id, o));
                queue.push_back(nid);
            }
        }
    }
    None
}

/// Shortens `best` by [`neighbourhood_shortcut`] while `budget` expansions and the time last,
/// doubling the neighbourhood each time it finds nothing shorter (starting from one state per
/// plan state, as Nakhost and Müller do). Spends at most `budget`; returns what it spent.
fn improve_in_neighbourhoods(
    task: &Task,
    from: &State,
    best: &mut Vec<OpId>,
    budget: u64,
    limits: &Limits,
    start_time: Instant,
    stats: &mut Stats,
) -> u64 {
    let succ = Successors::new(task);
    let before = stats.expanded;
    let mut per_state = 1usize;
    loop {
        let spent = stats.expanded - before;
        let time_left = limits
            .max_time
            .map(|t| t.saturating_sub(start_time.elapsed()));
        // Both passes expand about every state of the graph.
        let graph_expansions = 2 * (best.len() as u64 + 1) * per_state as u64;
        if best.len() <= 1
            || spent + graph_expansions > budget
            || time_left.is_some_and(|t| t.is_zero())
        {
            return spent;
        }
        let run_limits = Limits {
            max_expansions: Some(budget - spent),
            max_time: time_left,
            max_memory: limits.max_memory,
        };
        match neighbourhood_shortcut(task, &succ, from, best, per_state, &run_limits, stats) {
            Some(p) => *best = eliminate_actions(task, from, &p),
            None => per_state *= 2,
        }
    }
}

/// Satisficing planning: [`lazy_greedy`] for a first plan, shortened by action elimination,
/// then, while the budget lasts, plan neighbourhood graph search on up to half of it
/// ([`improve_in_neighbourhoods`]), anytime weighted A* (weights 5, 3, 2, 1 with the same
/// heuristic) bounded by the incumbent's length, each new plan shortened again, and the
/// neighbourhood search again on what remains if weighted A* improved the plan. The budget is
/// what remains of `limits` (or [`IMPROVEMENT_EXPANSIONS`] when no expansion limit is given);
/// the first plan is never lost to it.
pub fn satisficing(task: &Task, from: &State, h: Heuristic, limits: Limits) -> SearchResult {
    satisficing_within(task, from, h, limits, None)
}

/// [`satisficing`], with the improvement after the first plan also bounded by
/// `improvement_time` (counted from the first plan; `limits.max_time` still bounds the whole).
pub fn satisficing_within(
    task: &Task,
    from: &State,
    h: Heuristic,
    limits: Limits,
    improvement_time: Option<Duration>,
) -> SearchResult {
    let start_time = Instant::now();
    let first = lazy_greedy(task, from, h, limits);
    let mut stats = first.stats;
    let Outcome::Plan(plan) = first.outcome else {
        return first;
    };
    // From here on the time left is the smaller of the whole budget's rest and the
    // improvement's own budget.
    let rest = limits
        .max_time
        .map(|m| m.saturating_sub(start_time.elapsed()));
    let limits = Limits {
        max_time: match (rest, improvement_time) {
            (Some(r), Some(t)) => Some(r.min(t)),
            (r, t) => r.or(t),
        },
        ..limits
    };
    let start_time = Instant::now();
    let mut best = eliminate_actions(task, from, &plan);
    let mut budget = limits
        .max_expansions
        .map_or(IMPROVEMENT_EXPANSIONS, |m| m.saturating_sub(stats.expanded));
    budget -= improve_in_neighbourhoods(
        task,
        from,
        &mut best,
        budget / 2,
        &limits,
        start_time,
        &mut stats,
    );
    let mut improved_by_search = false;
    for weight in [5, 3, 2, 1] {
        let time_left = limits
            .max_time
            .map(|t| t.saturating_sub(start_time.elapsed()));
        if best.len() <= 1 || budget == 0 || time_left.is_some_and(|t| t.is_zero()) {
            break;
        }
        let order = Order {
            g_weight: 1,
            h_weight: weight,
            fifo: true,
            bound: best.len() as u32,
        };
        let run_limits = Limits {
            max_expansions: Some(budget),
            max_time: time_left,
            max_memory: limits.max_memory,
        };
        let r = best_first(task, from.clone(), h, run_limits, order);
        stats.expanded += r.stats.expanded;
        stats.generated += r.stats.generated;
        stats.evaluated += r.stats.evaluated;
        stats.stored = stats.stored.max(r.stats.stored);
        budget = budget.saturating_sub(r.stats.expanded);
        if let Outcome::Plan(p) = r.outcome {
            let p = eliminate_actions(task, from, &p);
            if p.len() < best.len() {
                best = p;
                improved_by_search = true;
            }
        }
    }
    if improved_by_search {
        improve_in_neighbourhoods(
            task, from, &mut best, budget, &limits, start_time, &mut stats,
        );
    }
    SearchResult::ended(Outcome::Plan(best), stats)
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
    fn action_elimination_drops_a_detour() {
        let t = fixtures::funny_dinner_date();
        let best = astar(&t, Heuristic::Max, Limits::default());
        let best = best.plan().unwrap();
        // Walk somewhere and back before the optimal plan: both steps are removed.
        let s0 = t.initial_state();
        let detour: Vec<OpId> = (0..t.operators.len() as OpId)
            .filter(|&o| t.op(o).is_applicable(&s0))
            .take(1)
            .chain(best.iter().copied())
            .collect();
        if validate(&t, &s0, &detour).is_ok() {
            let short = eliminate_actions(&t, &s0, &detour);
            validate(&t, &s0, &short).unwrap();
            assert!(short.len() <= best.len() + 1);
        }
        assert_eq!(eliminate_actions(&t, &s0, best), best);
    }

    #[test]
    fn satisficing_finds_the_dinner_dates_optimal_plans() {
        for (t, opt) in [
            (fixtures::dinner_date(), 3),
            (fixtures::funny_dinner_date(), 6),
        ] {
            let s0 = t.initial_state();
            for r in [
                lazy_greedy(&t, &s0, Heuristic::Ff, Limits::default()),
                satisficing(&t, &s0, Heuristic::Ff, Limits::default()),
            ] {
                let p = r.plan().unwrap();
                validate(&t, &s0, p).unwrap();
                assert!(p.len() >= opt);
            }
            let p = satisficing(&t, &s0, Heuristic::Ff, Limits::default());
            assert_eq!(p.plan().unwrap().len(), opt);
        }
    }

    /// Gripper with `balls` balls in room a to carry to room b, two grippers.
    fn gripper(balls: usize) -> Task {
        let mut b = Task::builder();
        let rooms = ["a", "b"];
        for from in rooms {
            for to in rooms.iter().filter(|&&r| r != from) {
                let (at_from, at_to) = (format!("at-robby-{from}"), format!("at-robby-{to}"));
                b = b.op(
                    &format!("move-{from}-{to}"),
                    &[&at_from],
                    &[&at_to],
                    &[&at_from],
                );
            }
        }
        for ball in 0..balls {
            for room in rooms {
                for hand in ["left", "right"] {
                    let at = format!("at-{ball}-{room}");
                    let robby = format!("at-robby-{room}");
                    let free = format!("free-{hand}");
                    let carry = format!("carry-{ball}-{hand}");
                    b = b
                        .op(
                            &format!("pick-{ball}-{room}-{hand}"),
                            &[&at, &robby, &free],
                            &[&carry],
                            &[&at, &free],
                        )
                        .op(
                            &format!("drop-{ball}-{room}-{hand}"),
                            &[&carry, &robby],
                            &[&at, &free],
                            &[&carry],
                        );
                }
            }
        }
        let mut init = vec![
            "at-robby-a".to_string(),
            "free-left".into(),
            "free-right".into(),
        ];
        init.extend((0..balls).map(|ball| format!("at-{ball}-a")));
        let goal: Vec<String> = (0..balls).map(|ball| format!("at-{ball}-b")).collect();
        let init: Vec<&str> = init.iter().map(String::as_str).collect();
        let goal: Vec<&str> = goal.iter().map(String::as_str).collect();
        b.init(&init).goal(&goal).build()
    }

    #[test]
    fn packed_states_search_exactly_as_bitsets_do() {
        // Gripper's mutex groups by hand: the robot's room, and each ball's place. With 20
        // balls its 84 facts take 3 units as bitsets, 2 packed.
        let balls = 20;
        let mut t = gripper(balls);
        let id = |n: &str| t.fact_id(n).unwrap();
        let mut groups = vec![vec![id("at-robby-a"), id("at-robby-b")]];
        for ball in 0..balls {
            groups.push(
                ["a", "b"]
                    .iter()
                    .map(|r| id(&format!("at-{ball}-{r}")))
                    .chain(
                        ["left", "right"]
                            .iter()
                            .map(|h| id(&format!("carry-{ball}-{h}"))),
                    )
                    .collect(),
            );
        }
        let (robby_a, robby_b) = (id("at-robby-a"), id("at-robby-b"));
        let capped = Limits {
            max_expansions: Some(3000),
            ..Limits::default()
        };
        let searches = |t: &Task| {
            [
                astar(t, Heuristic::Max, capped),
                gbfs(t, Heuristic::Ff, Limits::default()),
            ]
        };
        let plain = searches(&t);
        t.mutex_groups = groups;
        let n = t.num_facts();
        let packed = StateRegistry::packed(n, Packing::new(n, &t.mutex_groups), &t.initial_state());
        assert_eq!(packed.bytes_per_state(), 2 * 4 + 8);
        assert_eq!(StateRegistry::new(n).bytes_per_state(), 3 * 4 + 8);
        for (with_groups, plain) in searches(&t).iter().zip(&plain) {
            assert_eq!(with_groups.outcome, plain.outcome);
            assert_eq!(with_groups.stats, plain.stats);
        }
        assert!(plain[1].plan().is_some());
        // A start other than the groups' own is searched unpacked, to a plan all the same.
        let mut elsewhere = t.initial_state();
        elsewhere.remove(robby_a);
        elsewhere.insert(robby_b);
        let r = gbfs_from(&t, &elsewhere, Heuristic::Ff, Limits::default());
        assert!(validate(&t, &elsewhere, r.plan().unwrap()).is_ok());
    }

    #[test]
    fn plan_improvement_carries_two_balls_per_trip_in_gripper() {
        // The first plan carries some balls alone; the optimum is 3 per pair of balls, 2 per
        // trip back, minus the last trip back.
        let balls = 8;
        let t = gripper(balls);
        let s0 = t.initial_state();
        let first = lazy_greedy(&t, &s0, Heuristic::Ff, Limits::default());
        let first = eliminate_actions(&t, &s0, first.plan().unwrap());
        validate(&t, &s0, &first).unwrap();
        let improved = satisficing(&t, &s0, Heuristic::Ff, Limits::default());
        let improved = improved.plan().unwrap();
        validate(&t, &s0, improved).unwrap();
        assert!(
            improved.len() < first.len(),
            "{} vs {}",
            improved.len(),
            first.len()
        );
        assert_eq!(improved.len(), 3 * balls - 1);
    }

    /// The improvement's own budget bounds it: with none left, the first plan (shortened by
    /// action elimination) is what comes back, and the whole budget still bounds the rest.
    #[test]
    fn the_improvement_stops_at_its_own_budget() {
        let balls = 8;
        let t = gripper(balls);
        let s0 = t.initial_state();
        let first = lazy_greedy(&t, &s0, Heuristic::Ff, Limits::default());
        let first = eliminate_actions(&t, &s0, first.plan().unwrap());
        let none = satisficing_within(
            &t,
            &s0,
            Heuristic::Ff,
            Limits::default(),
            Some(Duration::ZERO),
        );
        assert_eq!(none.plan().unwrap(), first.as_slice());
        let some = satisficing_within(
            &t,
            &s0,
            Heuristic::Ff,
            Limits::default(),
            Some(Duration::from_secs(3600)),
        );
        assert_eq!(some.plan().unwrap().len(), 3 * balls - 1);
    }

    #[test]
    fn the_memory_limit_ends_the_search_cleanly() {
        let t = fixtures::funny_dinner_date();
        let s0 = t.initial_state();
        let tight = Limits {
            max_memory: Some(200),
            ..Limits::default()
        };
        for r in [
            astar(&t, Heuristic::Blind, tight),
            lazy_greedy(&t, &s0, Heuristic::Ff, tight),
        ] {
            assert_eq!(r.outcome, Outcome::LimitReached);
            assert_eq!(r.stopped_by, Some(Limit::Memory));
            assert!(r.stats.stored >= 1);
        }
        // The default limit is far above what this task needs.
        assert!(
            astar(&t, Heuristic::Blind, Limits::default())
                .plan()
                .is_some()
        );
    }

    #[test]
    fn limits_stop_the_search() {
        let t = fixtures::funny_dinner_date();
        let r = astar(
            &t,
            Heuristic::Blind,
            Limits {
                max_expansions: Some(2),
                ..Limits::default()
            },
        );
        assert_eq!(r.outcome, Outcome::LimitReached);
    }
}
