//! The landmark-cut heuristic (Helmert & Domshlak 2009): admissible like `h_max` and dominating
//! it, but far better informed — it sums the costs of disjoint action landmarks instead of
//! taking one maximum.
//!
//! Each round computes `h_max` under the current operator costs, picks for every reached
//! operator its precondition choice (a precondition of maximal `h_max`), and reads a cut off the
//! justification graph: the goal zone is every fact that reaches the goal through zero-cost
//! operators; the cut is every operator leading from the part reachable from the state without
//! crossing the goal zone into the goal zone. Every plan uses one operator of the cut (a
//! disjunctive action landmark), so its cheapest cost is added to the estimate and subtracted
//! from each of its operators; rounds stop when `h_max` of the goal reaches 0.
//!
//! Among preconditions of equal `h_max`, the choice matters: while the goal zone is marked, a
//! zero-cost operator's choice goes to a precondition already in the zone, or else to one that
//! no zero-cost operator adds (the zone's border) — Fast Downward's `goal_zone_detection` and
//! `border_detection` (Lauer & Fickert 2020). The zone then stops at facts only paid-for
//! operators reach, and the cuts lie nearer the goal: elevators/task01's initial estimate is
//! 12 with it (Fast Downward's 13, the optimum 14); it was 8 without. Fast Downward takes the first precondition that
//! is either; we look for one in the zone first, whatever its place: an operator whose choice
//! is already in the zone adds no fact to it, so the zone stays smaller, fewer operators lead
//! into it, and each cut lowers fewer costs (depot/task03 10,661 → 9,705 expansions,
//! elevators/task05 6,155 → 5,394, none worse on the ten A* tasks of issue 21).
//!
//! The end operator's choice is kept across rounds, as every operator's is, and as in Fast
//! Downward: it moves only when another goal fact becomes strictly costlier, or to the first
//! costliest goal fact on the border. Taking the first costliest goal fact afresh each round
//! instead left satellite/task11 unsolved after 106,097 expansions in 60 s; kept, it is
//! solved in 5,823 (Fast Downward: 3,990), satellite/task07 9,969 → 1,666, at the price of
//! satellite/task09 774 → 6,835 and elevators/task11 727 → 1,104. Ties among goal facts fall by
//! their order, which Fast Downward's translator takes from the causal graph (goal facts
//! grouped by the instrument that achieves them on satellite) and ours from grounding: given
//! Fast Downward's goal order, satellite/task09 takes 340 expansions (Fast Downward: 344).
//! Other tie-breaks were measured and not kept: FIFO buckets, the state's facts or the
//! artificial precondition pushed in another order, the first or last costliest precondition
//! as the first exploration's choice (each moved the sum by under 1%), and all facts numbered
//! in Fast Downward's variable order (satellite/task07 3,007, task09 576, task11 5,983).
//!
//! Operators without preconditions get an artificial precondition that always holds (the fact
//! after the task's last one), and the goal is reached by an artificial zero-cost end operator,
//! handled implicitly: its precondition choice is a costliest goal fact. Negative
//! preconditions and goals are relaxed away, which keeps the estimate admissible. Every
//! operator costs 1 (plans are measured by length).

use super::state::State;
use super::task::{FactId, OpId, Task};

const INF: u32 = u32::MAX;
const UNREACHED: FactId = FactId::MAX;

/// The priority queue of the `h_max` explorations: costs are small integers and a Dijkstra pops
/// them in non-decreasing order once seeded, so one bucket per cost does without a heap's
/// logarithm (as Fast Downward's LM-cut does).
#[derive(Default)]
struct Buckets {
    buckets: Vec<Vec<FactId>>,
    /// The lowest cost that may still hold entries.
    current: usize,
    len: usize,
}

impl Buckets {
    fn clear(&mut self) {
        for b in &mut self.buckets {
            b.clear();
        }
        self.current = 0;
        self.len = 0;
    }

    /// Files `f` at cost `c`; `c` must not be below the last popped cost.
    fn push(&mut self, c: u32, f: FactId) {
        let c = c as usize;
        debug_assert!(c >= self.current || self.len == 0);
        if c >= self.buckets.len() {
            self.buckets.resize_with(c + 1, Vec::new);
        }
        self.current = self.current.min(c);
        self.buckets[c].push(f);
        self.len += 1;
    }

    fn pop(&mut self) -> Option<(u32, FactId)> {
        while self.len > 0 {
            if let Some(f) = self.buckets[self.current].pop() {
                self.len -= 1;
                return Some((self.current as u32, f));
            }
            self.current += 1;
        }
        None
    }
}

/// Lists of ids stored back to back (row `i` is `items[start[i]..start[i + 1]]`): the
/// explorations walk them once per round for every evaluated state, and one contiguous array
/// keeps them in cache where a `Vec` per list would scatter them.
struct Rows {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    fn new<'a>(rows: impl IntoIterator<Item = &'a Vec<u32>>) -> Self {
        let mut start = vec![0];
        let mut items = Vec::new();
        for r in rows {
            items.extend_from_slice(r);
            start.push(items.len() as u32);
        }
        Rows { start, items }
    }

    #[inline]
    fn row(&self, i: usize) -> &[u32] {
        &self.items[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// Scratch space for LM-cut evaluations on one task.
pub struct LmCut {
    /// Precondition lists, `[always]` for operators without one.
    pre: Rows,
    /// Their lengths, the unsatisfied counts an exploration starts from.
    num_pre: Vec<u32>,
    /// Add lists, as in the task.
    add: Rows,
    /// For each fact (and the artificial one), the operators that need it.
    consumers: Rows,
    /// For each fact, the operators that add it.
    achievers: Rows,
    /// Index of the fact that always holds.
    always: FactId,
    cost: Vec<u32>,
    fact_cost: Vec<u32>,
    unsat: Vec<u32>,
    /// Precondition choice of each reached operator (`UNREACHED` otherwise).
    choice: Vec<FactId>,
    heap: Buckets,
    in_goal_zone: Vec<bool>,
    /// The goal zone's facts, in marking order.
    zone: Vec<FactId>,
    /// Facts at least as costly as the goal that are reached before the cut.
    before_cut: Vec<bool>,
    /// Operators that add a zone fact, while a cut is found; the cut's afterwards.
    enters_zone: Vec<bool>,
    /// Costly facts not yet reached before the cut, while a cut is found.
    pending: Vec<FactId>,
    /// Facts some zero-cost operator adds (costs only fall during an evaluation, so this only
    /// grows): the goal zone's border is where it is false.
    zero_cost_achieved: Vec<bool>,
    /// The goal zone's depth-first marking: a fact and the index of its next achiever.
    zone_stack: Vec<(FactId, usize)>,
    cut: Vec<OpId>,
    /// The goal facts in their tie-breaking order, and a mark on each.
    goal: Vec<FactId>,
    is_goal: Vec<bool>,
    /// The end operator's precondition choice, kept across rounds like any operator's.
    goal_choice: FactId,
}

impl LmCut {
    /// Scratch space sized for `task`.
    pub fn new(task: &Task) -> Self {
        let n = task.num_facts();
        let always = n as FactId;
        let mut consumers = vec![Vec::new(); n + 1];
        let mut achievers = vec![Vec::new(); n + 1];
        let mut pre = Vec::with_capacity(task.operators.len());
        for (i, op) in task.operators.iter().enumerate() {
            let p = if op.pre.is_empty() {
                vec![always]
            } else {
                op.pre.clone()
            };
            for &f in &p {
                consumers[f as usize].push(i as OpId);
            }
            for &a in &op.add {
                achievers[a as usize].push(i as OpId);
            }
            pre.push(p);
        }
        let ops = task.operators.len();
        LmCut {
            num_pre: pre.iter().map(|p| p.len() as u32).collect(),
            pre: Rows::new(&pre),
            add: Rows::new(task.operators.iter().map(|o| &o.add)),
            consumers: Rows::new(&consumers),
            achievers: Rows::new(&achievers),
            always,
            cost: vec![1; ops],
            fact_cost: vec![INF; n + 1],
            unsat: vec![0; ops],
            choice: vec![UNREACHED; ops],
            heap: Buckets::default(),
            in_goal_zone: vec![false; n + 1],
            zone: Vec::new(),
            before_cut: vec![false; n + 1],
            enters_zone: vec![false; ops],
            pending: Vec::new(),
            zero_cost_achieved: vec![false; n + 1],
            zone_stack: Vec::new(),
            cut: Vec::new(),
            goal: Vec::new(),
            is_goal: vec![false; n + 1],
            goal_choice: UNREACHED,
        }
    }

    /// Takes `goal` as the end operator's preconditions (in the order ties are broken in).
    fn set_goal(&mut self, goal: &[FactId]) {
        if goal == self.goal {
            return;
        }
        for &g in &self.goal {
            self.is_goal[g as usize] = false;
        }
        for &g in goal {
            self.is_goal[g as usize] = true;
        }
        self.goal = goal.to_vec();
    }

    /// `h_max` from `s` under the current costs, recording precondition choices.
    fn hmax(&mut self, s: &State) {
        self.fact_cost.fill(INF);
        self.choice.fill(UNREACHED);
        self.unsat.copy_from_slice(&self.num_pre);
        self.heap.clear();
        self.fact_cost[self.always as usize] = 0;
        self.heap.push(0, self.always);
        for f in s.facts() {
            self.fact_cost[f as usize] = 0;
            self.heap.push(0, f);
        }
        self.goal_choice = UNREACHED;
        while let Some((c, f)) = self.heap.pop() {
            if c > self.fact_cost[f as usize] {
                continue;
            }
            if self.is_goal[f as usize] {
                // The end operator's choice, like any operator's: its last precondition settled.
                self.goal_choice = f;
            }
            for &o in self.consumers.row(f as usize) {
                let oi = o as usize;
                self.unsat[oi] -= 1;
                if self.unsat[oi] == 0 {
                    // Facts settle in cost order, so the last precondition settled is a
                    // costliest one.
                    self.choice[oi] = f;
                    let reach = c + self.cost[oi];
                    for &a in self.add.row(oi) {
                        if reach < self.fact_cost[a as usize] {
                            self.fact_cost[a as usize] = reach;
                            self.heap.push(reach, a);
                        }
                    }
                }
            }
        }
    }

    /// The estimate of `s` for the positive `goal` facts; `None` when they are unreachable even
    /// with deletes ignored (a proven dead end).
    pub fn evaluate(&mut self, s: &State, goal: &[FactId]) -> Option<u32> {
        if goal.iter().all(|&g| s.contains(g)) {
            return Some(0);
        }
        self.set_goal(goal);
        self.cost.fill(1);
        self.zero_cost_achieved.fill(false);
        self.hmax(s);
        if self.goal.iter().any(|&g| self.fact_cost[g as usize] == INF) {
            return None;
        }
        let mut h = 0u32;
        loop {
            let top = self.fact_cost[self.goal_choice as usize];
            if top == 0 {
                return Some(h);
            }
            // The end operator costs nothing, so its ties are broken as the zone's are: the
            // first costliest goal fact on the border, else the choice kept from before.
            if let Some(&g) = self
                .goal
                .iter()
                .find(|&&g| self.fact_cost[g as usize] == top && self.on_border(g))
            {
                self.goal_choice = g;
            }
            let goal_choice = self.goal_choice;
            self.mark_goal_zone(goal_choice);
            self.find_cut();
            #[cfg(test)]
            assert_eq!(
                self.cut,
                self.cut_by_walk(s),
                "the cut differs from the plain walk's"
            );
            let Some(m) = self.cut.iter().map(|&o| self.cost[o as usize]).min() else {
                // Cannot happen while h_max of the goal is positive; stop rather than loop.
                return Some(h);
            };
            h = h.saturating_add(m);
            for &o in &self.cut {
                self.cost[o as usize] -= m;
                if self.cost[o as usize] == 0 {
                    for &a in self.add.row(o as usize) {
                        self.zero_cost_achieved[a as usize] = true;
                    }
                }
            }
            self.hmax_after_cut();
            #[cfg(test)]
            {
                // The incremental update must equal a fresh exploration under the new costs;
                // the choices are put back, so test builds cut as release builds do.
                let incremental = self.fact_cost.clone();
                let choices = (self.choice.clone(), self.goal_choice);
                self.hmax(s);
                assert_eq!(incremental, self.fact_cost, "incremental h_max diverged");
                (self.choice, self.goal_choice) = choices;
            }
        }
    }

    /// Brings `h_max` up to date after the cut's operators became cheaper: costs only fall, so
    /// a Dijkstra seeded with the cut's effects, recomputing an operator's maximum only when its
    /// precondition choice fell, gives the same values as exploring again from scratch.
    fn hmax_after_cut(&mut self) {
        self.heap.clear();
        for &o in &self.cut {
            let oi = o as usize;
            // Seeding one cut operator can lower another's recorded choice (an effect of the
            // first is a precondition of the second): its maximum is taken afresh here, or a
            // precondition that did not fall would be skipped.
            let mut choice = self.choice[oi];
            for &p in self.pre.row(oi) {
                if self.fact_cost[p as usize] > self.fact_cost[choice as usize] {
                    choice = p;
                }
            }
            self.choice[oi] = choice;
            let reach = self.fact_cost[choice as usize] + self.cost[oi];
            for &a in self.add.row(oi) {
                if reach < self.fact_cost[a as usize] {
                    self.fact_cost[a as usize] = reach;
                    self.heap.push(reach, a);
                }
            }
        }
        while let Some((c, f)) = self.heap.pop() {
            if c > self.fact_cost[f as usize] {
                continue;
            }
            if f == self.goal_choice {
                let mut choice = f;
                for &g in &self.goal {
                    if self.fact_cost[g as usize] > self.fact_cost[choice as usize] {
                        choice = g;
                    }
                }
                self.goal_choice = choice;
            }
            for &o in self.consumers.row(f as usize) {
                let oi = o as usize;
                if self.choice[oi] != f {
                    continue;
                }
                let mut choice = f;
                for &p in self.pre.row(oi) {
                    if self.fact_cost[p as usize] > self.fact_cost[choice as usize] {
                        choice = p;
                    }
                }
                self.choice[oi] = choice;
                let reach = self.fact_cost[choice as usize] + self.cost[oi];
                for &a in self.add.row(oi) {
                    if reach < self.fact_cost[a as usize] {
                        self.fact_cost[a as usize] = reach;
                        self.heap.push(reach, a);
                    }
                }
            }
        }
    }

    /// Facts that reach the goal in the justification graph through zero-cost operators, marked
    /// depth-first (the order decides which ties [`Self::break_choice_ties`] sees in the zone).
    fn mark_goal_zone(&mut self, goal_choice: FactId) {
        self.in_goal_zone.fill(false);
        self.in_goal_zone[goal_choice as usize] = true;
        self.zone.clear();
        self.zone.push(goal_choice);
        self.zone_stack.clear();
        self.zone_stack.push((goal_choice, 0));
        while let Some(top) = self.zone_stack.last_mut() {
            let (f, next) = *top;
            let Some(&o) = self.achievers.row(f as usize).get(next) else {
                self.zone_stack.pop();
                continue;
            };
            top.1 += 1;
            let oi = o as usize;
            if self.cost[oi] != 0 || self.choice[oi] == UNREACHED {
                continue;
            }
            self.break_choice_ties(oi);
            let p = self.choice[oi];
            if !self.in_goal_zone[p as usize] {
                self.in_goal_zone[p as usize] = true;
                self.zone.push(p);
                self.zone_stack.push((p, 0));
            }
        }
    }

    /// Whether no zero-cost operator adds `f`: the goal zone's marking stops there.
    fn on_border(&self, f: FactId) -> bool {
        !self.zero_cost_achieved[f as usize]
    }

    /// Moves a zero-cost operator's precondition choice, among preconditions of the same
    /// `h_max`, to the first already in the goal zone, or else to the first on the border. The
    /// choice stays a costliest precondition, so `h_max` and its incremental update are
    /// unchanged.
    fn break_choice_ties(&mut self, oi: usize) {
        let c = self.fact_cost[self.choice[oi] as usize];
        let row = self.pre.row(oi);
        let tied = |p: FactId| self.fact_cost[p as usize] == c;
        let found = row
            .iter()
            .find(|&&p| tied(p) && self.in_goal_zone[p as usize])
            .or_else(|| row.iter().find(|&&p| tied(p) && self.on_border(p)));
        if let Some(&p) = found {
            self.choice[oi] = p;
        }
    }

    /// The operators from the facts reachable from the state (without entering the goal zone)
    /// into the goal zone, by operator id: Fast Downward's cut, found without its walk.
    ///
    /// That walk goes forward from the state through every operator whose choice it reached,
    /// and on satellite/task11 it took 80% of the search's time. But every fact cheaper than
    /// the goal choice is reached: its cheapest achiever's choice is cheaper still, and that
    /// achiever cannot enter the zone (a zone fact costs at least the goal, and the achiever
    /// would give it less). So only the costlier facts are looked at: one is reached if an
    /// achiever outside the cut has a cheap choice, or else (in passes over the few left until
    /// one reaches none) a reached costly choice. Most operators there only add cheap facts
    /// (the turns on satellite), and satellite/task11's search took 5.6 s instead of 28.
    /// Test builds check the result against the walk every round.
    fn find_cut(&mut self) {
        let LmCut {
            achievers,
            choice,
            fact_cost,
            in_goal_zone,
            zone,
            before_cut,
            enters_zone,
            cut,
            pending,
            goal_choice,
            ..
        } = self;
        let top = fact_cost[*goal_choice as usize];
        let costly = |f: usize| fact_cost[f] >= top && fact_cost[f] != INF;
        for &o in cut.iter() {
            enters_zone[o as usize] = false;
        }
        cut.clear();
        for &z in zone.iter() {
            for &o in achievers.row(z as usize) {
                enters_zone[o as usize] = true;
            }
        }
        // Costly facts some operator with a cheap choice adds.
        before_cut.fill(false);
        pending.clear();
        for f in 0..fact_cost.len() {
            if !costly(f) || in_goal_zone[f] {
                continue;
            }
            let reached = achievers.row(f).iter().any(|&o| {
                let c = choice[o as usize];
                !enters_zone[o as usize] && c != UNREACHED && fact_cost[c as usize] < top
            });
            if reached {
                before_cut[f] = true;
            } else {
                pending.push(f as FactId);
            }
        }
        // The rest is reached through operators justified by costly facts already reached.
        // Walking those facts' operators forward visits every operator they justify, most of
        // which add nothing new (each turn on satellite); asking the few facts still pending
        // for such an achiever, until a pass reaches none, does far less.
        loop {
            let pending_before = pending.len();
            pending.retain(|&f| {
                let reached = achievers.row(f as usize).iter().any(|&o| {
                    let c = choice[o as usize];
                    // An operator into the goal zone is in the cut, and its other effects are
                    // not reached before the cut (as in Fast Downward): every operator whose
                    // choice lies before the cut either enters the goal zone or stays before
                    // it, so this is still a cut, but smaller — fewer operators lose cost,
                    // and later rounds find more.
                    !enters_zone[o as usize] && c != UNREACHED && before_cut[c as usize]
                });
                before_cut[f as usize] |= reached;
                !reached
            });
            if pending.is_empty() || pending.len() == pending_before {
                break;
            }
        }
        // The cut: operators into the zone whose choice was reached.
        for &z in zone.iter() {
            for &o in achievers.row(z as usize) {
                enters_zone[o as usize] = false;
            }
        }
        for &z in zone.iter() {
            for &o in achievers.row(z as usize) {
                let oi = o as usize;
                let c = choice[oi];
                if enters_zone[oi] || c == UNREACHED || in_goal_zone[c as usize] {
                    continue;
                }
                if fact_cost[c as usize] < top || before_cut[c as usize] {
                    enters_zone[oi] = true;
                    cut.push(o);
                }
            }
        }
        // `enters_zone` now marks exactly the cut, and is cleared through it next round.
        cut.sort_unstable();
    }
}

#[cfg(test)]
impl LmCut {
    /// The cut as Fast Downward's second exploration finds it, for test builds to check
    /// [`LmCut::find_cut`] against: walk forward from `s` through every operator whose choice
    /// is reached, stopping at operators into the goal zone.
    fn cut_by_walk(&self, s: &State) -> Vec<OpId> {
        let mut reached = vec![false; self.fact_cost.len()];
        let mut stack: Vec<FactId> = s.facts().chain([self.always]).collect();
        for &f in &stack {
            reached[f as usize] = true;
        }
        let mut cut = Vec::new();
        while let Some(f) = stack.pop() {
            for &o in self.consumers.row(f as usize) {
                if self.choice[o as usize] != f {
                    continue;
                }
                let adds = self.add.row(o as usize);
                if adds.iter().any(|&a| self.in_goal_zone[a as usize]) {
                    cut.push(o);
                    continue;
                }
                for &a in adds {
                    if !reached[a as usize] {
                        reached[a as usize] = true;
                        stack.push(a);
                    }
                }
            }
        }
        cut.sort_unstable();
        cut.dedup();
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::fixtures;
    use crate::plan::heuristic::{Heuristic, evaluate};

    #[test]
    fn independent_goals_add_up_where_hmax_takes_the_maximum() {
        // Three goals, each needing its own operator: h_max says 1, the optimum (and LM-cut) 3.
        let t = Task::builder()
            .op("a", &["s"], &["ga"], &[])
            .op("b", &["s"], &["gb"], &[])
            .op("c", &[], &["gc"], &[])
            .init(&["s"])
            .goal(&["ga", "gb", "gc"])
            .build();
        let s0 = t.initial_state();
        assert_eq!(evaluate(&t, &s0, Heuristic::Max), Some(1));
        assert_eq!(evaluate(&t, &s0, Heuristic::LmCut), Some(3));
    }

    #[test]
    fn seeds_examples_are_within_bounds() {
        // Dinner date: optimum 3, h_max 1. Funny dinner date: optimum 6, h_max 2.
        for (t, opt) in [
            (fixtures::dinner_date(), 3),
            (fixtures::funny_dinner_date(), 6),
        ] {
            let s0 = t.initial_state();
            let lm = evaluate(&t, &s0, Heuristic::LmCut).unwrap();
            let hm = evaluate(&t, &s0, Heuristic::Max).unwrap();
            assert!(hm <= lm && lm <= opt, "{hm} {lm} {opt}");
            assert!(lm > hm, "LM-cut should see more than h_max here: {lm}");
        }
    }

    #[test]
    fn relaxed_dead_end_is_none() {
        let t = Task::builder()
            .op("a", &["x"], &["y"], &[])
            .goal(&["y"])
            .build();
        assert_eq!(evaluate(&t, &t.initial_state(), Heuristic::LmCut), None);
    }
}
