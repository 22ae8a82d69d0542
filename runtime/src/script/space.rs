//! The tuple space: a multimap from (predicate, arity) to ground facts, closed-world (what is
//! not in it is false). Insertion order is kept, so queries are deterministic.

use crate::program::NameId;
use smallvec::SmallVec;

/// A ground value: a symbol (a prop, a participant, a constant) or a number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Sym(NameId),
    Num(f64),
}

impl Value {
    /// Equality as unification sees it (numbers compare exactly; they come from the same
    /// computations).
    pub fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Sym(a), Value::Sym(b)) => a == b,
            (Value::Num(a), Value::Num(b)) => a == b,
            _ => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    pub predicate: NameId,
    pub args: Vec<Value>,
}

/// A fact's arguments; facts of up to four arguments are stored inline.
pub type Args = SmallVec<[Value; 4]>;

/// Keyed by (predicate, arity). A script uses a handful of predicates, so a linear scan over a
/// small vector beats hashing, and keeps each space in a few contiguous allocations.
#[derive(Clone, Debug, Default)]
pub struct TupleSpace {
    facts: Vec<((NameId, usize), Vec<Args>)>,
}

impl TupleSpace {
    /// The facts of `predicate/arity`, in insertion order.
    pub fn facts(&self, predicate: NameId, arity: usize) -> &[Args] {
        self.facts
            .iter()
            .find(|(k, _)| *k == (predicate, arity))
            .map(|(_, f)| f.as_slice())
            .unwrap_or(&[])
    }

    fn list_mut(&mut self, key: (NameId, usize)) -> &mut Vec<Args> {
        match self.facts.iter().position(|(k, _)| *k == key) {
            Some(i) => &mut self.facts[i].1,
            None => {
                self.facts.push((key, Vec::new()));
                &mut self.facts.last_mut().expect("just pushed").1
            }
        }
    }

    pub fn contains(&self, predicate: NameId, args: &[Value]) -> bool {
        self.facts(predicate, args.len())
            .iter()
            .any(|f| f.iter().zip(args).all(|(a, b)| a.same(b)))
    }

    /// Adds a fact; returns false if it was already there (facts are a set).
    pub fn add(&mut self, predicate: NameId, args: Vec<Value>) -> bool {
        if self.contains(predicate, &args) {
            return false;
        }
        self.list_mut((predicate, args.len()))
            .push(Args::from_vec(args));
        true
    }

    /// Removes every fact matching `pattern` (`None` matches anything: a free variable).
    pub fn remove_matching(
        &mut self,
        predicate: NameId,
        pattern: &[Option<Value>],
    ) -> Vec<Vec<Value>> {
        let Some((_, list)) = self
            .facts
            .iter_mut()
            .find(|(k, _)| *k == (predicate, pattern.len()))
        else {
            return Vec::new();
        };
        let mut removed = Vec::new();
        list.retain(|f| {
            let hit = f
                .iter()
                .zip(pattern)
                .all(|(v, p)| p.as_ref().is_none_or(|p| p.same(v)));
            if hit {
                removed.push(f.to_vec());
            }
            !hit
        });
        removed
    }

    pub fn len(&self) -> usize {
        self.facts.iter().map(|(_, f)| f.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every fact, grouped by predicate in id order (for blackboard views and tests).
    pub fn all(&self) -> Vec<Fact> {
        let mut keyed: Vec<_> = self.facts.iter().collect();
        keyed.sort_by_key(|(k, _)| *k);
        keyed
            .into_iter()
            .flat_map(|(k, facts)| {
                facts.iter().map(move |args| Fact {
                    predicate: k.0,
                    args: args.to_vec(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: NameId = NameId(1);
    fn s(i: u32) -> Value {
        Value::Sym(NameId(i))
    }

    #[test]
    fn facts_are_a_set_keyed_by_predicate_and_arity() {
        let mut t = TupleSpace::default();
        assert!(t.add(P, vec![s(2)]));
        assert!(!t.add(P, vec![s(2)]));
        assert!(t.add(P, vec![s(2), s(3)]));
        assert_eq!(t.facts(P, 1).len(), 1);
        assert_eq!(t.facts(P, 2).len(), 1);
    }

    #[test]
    fn free_variables_in_deletions_remove_every_match() {
        let mut t = TupleSpace::default();
        t.add(P, vec![s(2), s(3)]);
        t.add(P, vec![s(4), s(3)]);
        t.add(P, vec![s(4), s(5)]);
        let removed = t.remove_matching(P, &[None, Some(s(3))]);
        assert_eq!(removed.len(), 2);
        assert_eq!(t.facts(P, 2).len(), 1);
        assert_eq!(t.facts(P, 2)[0].as_slice(), &[s(4), s(5)]);
    }
}
