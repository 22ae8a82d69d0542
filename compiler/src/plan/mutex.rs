//! Mutually exclusive goals: pairs of facts that no reachable state holds together, by the
//! h² reachability fixpoint (Haslum & Geffner 2000; Graphplan's static mutexes). A pair that
//! h² cannot reach is truly unreachable, so a goal containing it can never be achieved, even
//! though each of its facts can be on its own.
//!
//! Negative preconditions are ignored (a relaxation, so still sound). The analysis is quadratic
//! in the facts; tasks past [`MAX_FACTS`] facts are not analysed.

use ensemble_runtime::plan::{FactId, Task};

/// The largest task analysed (facts); the pair table has `facts²` bits.
pub const MAX_FACTS: usize = 3000;

/// Pairs of facts reachable together.
struct Pairs {
    n: usize,
    bits: Vec<u64>,
}

impl Pairs {
    fn new(n: usize) -> Self {
        Pairs {
            n,
            bits: vec![0; (n * n).div_ceil(64)],
        }
    }

    fn get(&self, a: FactId, b: FactId) -> bool {
        let i = a as usize * self.n + b as usize;
        self.bits[i / 64] & (1 << (i % 64)) != 0
    }

    /// Sets (a, b) and (b, a); true if new.
    fn set(&mut self, a: FactId, b: FactId) -> bool {
        let mut fresh = false;
        for (x, y) in [(a, b), (b, a)] {
            let i = x as usize * self.n + y as usize;
            let w = &mut self.bits[i / 64];
            fresh |= *w & (1 << (i % 64)) == 0;
            *w |= 1 << (i % 64);
        }
        fresh
    }
}

/// The pairs of positive goal facts that cannot hold together, each singly reachable.
/// `None` when the task is too large to analyse.
pub fn goal_mutexes(task: &Task) -> Option<Vec<(FactId, FactId)>> {
    let r = reachable_pairs(task)?;
    let mut out = Vec::new();
    for (i, &a) in task.goal.iter().enumerate() {
        for &b in &task.goal[i + 1..] {
            if r.get(a, a) && r.get(b, b) && !r.get(a, b) {
                out.push((a, b));
            }
        }
    }
    Some(out)
}

/// Groups of facts no two of which hold together in any state reachable from the initial one
/// (cliques of h² mutexes, taken greedily in fact order, so a fact's group is usually its
/// object's place or status, as Fast Downward's invariant groups are). Facts in no group are
/// left out; a task too large to analyse has none. The search stores each group in a few bits
/// ([`Task::mutex_groups`]).
pub fn mutex_groups(task: &Task) -> Vec<Vec<FactId>> {
    let Some(r) = reachable_pairs(task) else {
        return Vec::new();
    };
    let n = task.facts.len() as FactId;
    let mut taken = vec![false; n as usize];
    let mut groups = Vec::new();
    for f in 0..n {
        if taken[f as usize] {
            continue;
        }
        taken[f as usize] = true;
        let mut group = vec![f];
        for g in f + 1..n {
            if !taken[g as usize] && group.iter().all(|&m| !r.get(g, m)) {
                taken[g as usize] = true;
                group.push(g);
            }
        }
        if group.len() > 1 {
            groups.push(group);
        }
    }
    groups
}

/// The h² fixpoint: which pairs of facts (and, on the diagonal, which facts) some reachable
/// state holds together. `None` past [`MAX_FACTS`].
fn reachable_pairs(task: &Task) -> Option<Pairs> {
    let n = task.facts.len();
    if n > MAX_FACTS {
        return None;
    }
    let mut r = Pairs::new(n);
    for &a in &task.init {
        for &b in &task.init {
            r.set(a, b);
        }
    }
    let holds = |r: &Pairs, pre: &[FactId]| pre.iter().all(|&a| pre.iter().all(|&b| r.get(a, b)));
    loop {
        let mut changed = false;
        for op in &task.operators {
            if !holds(&r, &op.pre) {
                continue;
            }
            for &a in &op.add {
                for &b in &op.add {
                    changed |= r.set(a, b);
                }
            }
            // A fact the operator leaves alone survives next to what it adds, if it could
            // hold together with every precondition.
            for q in 0..n as FactId {
                if !r.get(q, q) || op.add.contains(&q) || op.del.contains(&q) {
                    continue;
                }
                if op.pre.iter().all(|&p| r.get(q, p)) {
                    for &a in &op.add {
                        changed |= r.set(a, q);
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_runtime::plan::fixtures;

    /// One thing moving between two places, and a bell it can ring at the first.
    fn two_places(goal: &[&str]) -> Task {
        Task::builder()
            .op("ab", &["at-a"], &["at-b"], &["at-a"])
            .op("ba", &["at-b"], &["at-a"], &["at-b"])
            .op("ring", &["at-a"], &["rang"], &[])
            .init(&["at-a"])
            .goal(goal)
            .build()
    }

    #[test]
    fn one_place_at_a_time() {
        let t = two_places(&["at-a", "at-b", "rang"]);
        let m = goal_mutexes(&t).unwrap();
        let names: Vec<(String, String)> = m
            .iter()
            .map(|&(a, b)| (t.facts[a as usize].clone(), t.facts[b as usize].clone()))
            .collect();
        assert_eq!(names, [("at-a".to_string(), "at-b".to_string())]);
    }

    #[test]
    fn the_place_of_one_thing_is_a_group() {
        let t = two_places(&["rang"]);
        let ids = |names: &[&str]| -> Vec<FactId> {
            names.iter().map(|n| t.fact_id(n).unwrap()).collect()
        };
        assert_eq!(mutex_groups(&t), vec![ids(&["at-a", "at-b"])]);
    }

    /// A truck among three places and two packages, each at a place or in the truck.
    fn delivery() -> Task {
        let places = ["p", "q", "r"];
        let mut b = Task::builder();
        for from in places {
            for to in places.iter().filter(|&&t| t != from) {
                let (f, t) = (format!("truck-{from}"), format!("truck-{to}"));
                b = b.op(&format!("drive-{from}-{to}"), &[&f], &[&t], &[&f]);
            }
            for pkg in ["x", "y"] {
                let (at, truck, inside) = (
                    format!("{pkg}-{from}"),
                    format!("truck-{from}"),
                    format!("{pkg}-in"),
                );
                b = b
                    .op(
                        &format!("load-{pkg}-{from}"),
                        &[&at, &truck],
                        &[&inside],
                        &[&at],
                    )
                    .op(
                        &format!("unload-{pkg}-{from}"),
                        &[&inside, &truck],
                        &[&at],
                        &[&inside],
                    );
            }
        }
        b.init(&["truck-p", "x-p", "y-q"])
            .goal(&["x-r", "y-r"])
            .build()
    }

    #[test]
    fn groups_hold_in_every_reachable_state() {
        // The oracle: every state breadth-first search reaches has at most one fact per group.
        let (shop, _) = fixtures::shop();
        for t in [
            fixtures::dinner_date(),
            fixtures::funny_dinner_date(),
            shop,
            delivery(),
        ] {
            let groups = mutex_groups(&t);
            let mut seen = std::collections::HashSet::new();
            let mut queue = vec![t.initial_state()];
            while let Some(s) = queue.pop() {
                if !seen.insert(s.clone()) {
                    continue;
                }
                for g in &groups {
                    assert!(
                        g.iter().filter(|&&f| s.contains(f)).count() <= 1,
                        "{g:?} in {s:?}"
                    );
                }
                for op in t.operators.iter().filter(|o| o.is_applicable(&s)) {
                    let mut next = s.clone();
                    op.apply_in_place(&mut next);
                    queue.push(next);
                }
            }
        }
        // And they are the groups one would write: the truck's place, each package's place.
        let t = delivery();
        let names: Vec<Vec<&str>> = mutex_groups(&t)
            .iter()
            .map(|g| g.iter().map(|&f| t.facts[f as usize].as_str()).collect())
            .collect();
        assert!(
            names.contains(&vec!["truck-p", "truck-q", "truck-r"]),
            "{names:?}"
        );
        assert!(
            names.iter().any(|g| g.len() == 4 && g.contains(&"x-in")),
            "{names:?}"
        );
    }

    #[test]
    fn the_seeds_goals_are_not_mutex() {
        for t in [fixtures::dinner_date(), fixtures::funny_dinner_date()] {
            assert_eq!(goal_mutexes(&t).unwrap(), vec![]);
        }
        let (shop, _) = fixtures::shop();
        assert_eq!(goal_mutexes(&shop).unwrap(), vec![]);
    }

    #[test]
    fn a_weapon_cannot_be_in_stock_and_sold() {
        let (mut shop, _) = fixtures::shop();
        shop.goal.push(shop.fact_id("inStock").unwrap());
        let m = goal_mutexes(&shop).unwrap();
        assert_eq!(m.len(), 1);
    }
}
