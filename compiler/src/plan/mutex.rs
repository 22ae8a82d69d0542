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

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_runtime::plan::fixtures;

    #[test]
    fn one_place_at_a_time() {
        let t = Task::builder()
            .op("ab", &["at-a"], &["at-b"], &["at-a"])
            .op("ba", &["at-b"], &["at-a"], &["at-b"])
            .op("ring", &["at-a"], &["rang"], &[])
            .init(&["at-a"])
            .goal(&["at-a", "at-b", "rang"])
            .build();
        let m = goal_mutexes(&t).unwrap();
        let names: Vec<(String, String)> = m
            .iter()
            .map(|&(a, b)| (t.facts[a as usize].clone(), t.facts[b as usize].clone()))
            .collect();
        assert_eq!(names, [("at-a".to_string(), "at-b".to_string())]);
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
