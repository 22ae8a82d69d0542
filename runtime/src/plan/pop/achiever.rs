//! The achiever index (Inampudi's ActionRelationMap, Alg. 1): for every literal, the operators
//! that have it as an effect, in declaration order. A-POP looks achievers up here instead of
//! scanning the action space; the compiler can build it once and ship it.

pub use crate::program::planning::AchieverIndex;

use crate::plan::task::{Lit, OpId, Operator, Task};

impl AchieverIndex {
    /// Alg. 1, ConstructActionRelations.
    pub fn build(task: &Task) -> Self {
        let mut idx = AchieverIndex::default();
        for (i, op) in task.operators.iter().enumerate() {
            idx.add_operator(i as OpId, op);
        }
        idx
    }

    /// Files a new operator under its effects; only those keys change (digest T7).
    pub fn add_operator(&mut self, id: OpId, op: &Operator) {
        for l in op.effects() {
            let v = self.map.entry(l).or_default();
            if !v.contains(&id) {
                v.push(id);
            }
        }
    }

    /// The operators that achieve `l`, in declaration order.
    pub fn achievers(&self, l: Lit) -> &[OpId] {
        self.map.get(&l).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Every literal with at least one achiever.
    pub fn keys(&self) -> impl Iterator<Item = Lit> + '_ {
        self.map.keys().copied()
    }
}

/// How the planner finds achievers: by scanning every operator (plain POP) or through the index
/// (A-POP). Both give the same operators in the same order.
#[derive(Clone, Copy)]
pub enum Achievers<'a> {
    /// Scan the task's operators (POP).
    Scan(&'a Task),
    /// Look them up in the index (A-POP).
    Index(&'a AchieverIndex),
}

impl Achievers<'_> {
    /// The operators that achieve `l`, in declaration order.
    pub fn of(&self, l: Lit) -> Vec<OpId> {
        match self {
            Achievers::Scan(task) => task
                .operators
                .iter()
                .enumerate()
                .filter(|(_, o)| o.has_effect(l))
                .map(|(i, _)| i as OpId)
                .collect(),
            Achievers::Index(idx) => idx.achievers(l).to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::fixtures;

    #[test]
    fn t7_achiever_index_of_the_dinner_date() {
        let t = fixtures::dinner_date();
        let idx = AchieverIndex::build(&t);
        let f = |n: &str| t.fact_id(n).unwrap();
        let names = |v: &[OpId]| t.plan_names(v);
        assert_eq!(names(idx.achievers(Lit::pos(f("dinner")))), ["cook"]);
        assert_eq!(names(idx.achievers(Lit::pos(f("present")))), ["wrap"]);
        assert_eq!(
            names(idx.achievers(Lit::pos(f("garbOut")))),
            ["carry", "dolly"]
        );
        assert_eq!(names(idx.achievers(Lit::neg(f("cleanHands")))), ["carry"]);
        assert_eq!(names(idx.achievers(Lit::neg(f("quiet")))), ["dolly"]);
        // Scanning finds the same achievers in the same order.
        for l in idx.keys() {
            assert_eq!(Achievers::Scan(&t).of(l), Achievers::Index(&idx).of(l));
        }
    }

    #[test]
    fn t7_adding_a_rule_changes_only_its_keys() {
        let mut t = fixtures::dinner_date();
        let mut idx = AchieverIndex::build(&t);
        let before = idx.clone();
        let mut op = Operator::new("takeout");
        op.add.push(t.fact_id("dinner").unwrap());
        t.operators.push(op.clone());
        idx.add_operator(4, &op);
        let dinner = Lit::pos(t.fact_id("dinner").unwrap());
        assert_eq!(idx.achievers(dinner), &[0, 4]);
        for l in before.keys().filter(|&l| l != dinner) {
            assert_eq!(idx.achievers(l), before.achievers(l));
        }
        assert_eq!(idx, AchieverIndex::build(&t));
    }
}
