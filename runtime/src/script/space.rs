//! The tuple space: a multimap from (predicate, arity) to ground facts, closed-world (what is
//! not in it is false). Insertion order is kept, so queries are deterministic.

use crate::program::NameId;
use smallvec::SmallVec;

/// A ground value: a symbol (a prop, a participant, a constant) or a number.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Value {
    /// A symbol: a prop, a participant's name, a constant.
    Sym(NameId),
    /// A number (a count, seconds, metres).
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

    /// The same value with its symbol renamed.
    pub fn renamed(self, rename: &mut dyn FnMut(NameId) -> NameId) -> Value {
        match self {
            Value::Sym(s) => Value::Sym(rename(s)),
            n => n,
        }
    }
}

/// A ground fact: a predicate applied to values.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Fact {
    /// The predicate's name.
    pub predicate: NameId,
    /// Its arguments, all ground.
    pub args: Vec<Value>,
}

/// A fact's arguments; facts of up to four arguments are stored inline.
pub type Args = SmallVec<[Value; 4]>;

/// One predicate's facts: `(predicate, arity)` and where its run starts in the fact list.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Run {
    key: (NameId, usize),
    start: u32,
    len: u32,
}

/// Keyed by (predicate, arity). A script uses a handful of predicates, so a linear scan over a
/// small inline index beats hashing; the facts themselves sit in one vector, each predicate's
/// facts contiguous, so a whole space is one allocation.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct TupleSpace {
    runs: SmallVec<[Run; 8]>,
    facts: Vec<Args>,
    /// Bumped by every change, so a caller can tell that nothing changed since it last looked.
    version: u64,
}

impl TupleSpace {
    /// Checks a space read from a savegame: runs that tile the facts exactly, each fact of its
    /// run's arity, one run per key, every symbol one of `names` names.
    pub(crate) fn check(&self, names: usize) -> Result<(), String> {
        let mut runs: Vec<&Run> = self.runs.iter().collect();
        // An emptied run keeps its start, which may be the next run's: empty ones first.
        runs.sort_by_key(|r| (r.start, r.len));
        let mut at = 0u64;
        for (i, r) in runs.iter().enumerate() {
            if r.start as u64 != at {
                return Err("its facts are not laid out in runs".into());
            }
            at += r.len as u64;
            if runs[..i].iter().any(|o| o.key == r.key) || r.key.0.index() >= names {
                return Err("a predicate of its facts is repeated or unknown".into());
            }
        }
        if at != self.facts.len() as u64 {
            return Err("its facts are not laid out in runs".into());
        }
        for r in &self.runs {
            let facts = &self.facts[r.start as usize..(r.start + r.len) as usize];
            let ok = facts.iter().all(|f| {
                f.len() == r.key.1
                    && f.iter()
                        .all(|v| !matches!(v, Value::Sym(s) if s.index() >= names))
            });
            if !ok {
                return Err("a fact has the wrong arity or an unknown name".into());
            }
        }
        Ok(())
    }

    /// Changes whenever a fact is added or removed (and only then).
    pub fn version(&self) -> u64 {
        self.version
    }

    fn run(&self, predicate: NameId, arity: usize) -> Option<usize> {
        self.runs.iter().position(|r| r.key == (predicate, arity))
    }

    /// The facts of `predicate/arity`, in insertion order.
    pub fn facts(&self, predicate: NameId, arity: usize) -> &[Args] {
        match self.run(predicate, arity) {
            Some(i) => {
                let r = self.runs[i];
                &self.facts[r.start as usize..(r.start + r.len) as usize]
            }
            None => &[],
        }
    }

    /// Whether the fact `predicate(args)` holds.
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
        let key = (predicate, args.len());
        let i = match self.run(predicate, args.len()) {
            Some(i) => i,
            None => {
                self.runs.push(Run {
                    key,
                    start: self.facts.len() as u32,
                    len: 0,
                });
                self.runs.len() - 1
            }
        };
        let at = self.runs[i].start + self.runs[i].len;
        self.facts.insert(at as usize, Args::from_vec(args));
        self.runs[i].len += 1;
        for r in &mut self.runs {
            if r.start > at || (r.start == at && r.key != key) {
                r.start += 1;
            }
        }
        self.version += 1;
        true
    }

    /// Removes every fact matching `pattern` (`None` matches anything: a free variable).
    pub fn remove_matching(
        &mut self,
        predicate: NameId,
        pattern: &[Option<Value>],
    ) -> Vec<Vec<Value>> {
        let Some(i) = self.run(predicate, pattern.len()) else {
            return Vec::new();
        };
        let Run { start, len, .. } = self.runs[i];
        let (start, end) = (start as usize, (start + len) as usize);
        let mut removed = Vec::new();
        // Keep the survivors in order at the front of the run, then cut the rest out.
        let mut kept = start;
        for k in start..end {
            let hit = self.facts[k]
                .iter()
                .zip(pattern)
                .all(|(v, p)| p.as_ref().is_none_or(|p| p.same(v)));
            if hit {
                removed.push(self.facts[k].to_vec());
            } else {
                self.facts.swap(kept, k);
                kept += 1;
            }
        }
        if removed.is_empty() {
            return removed;
        }
        self.facts.drain(kept..end);
        let gone = (end - kept) as u32;
        self.runs[i].len -= gone;
        for r in &mut self.runs {
            if r.start as usize >= end {
                r.start -= gone;
            }
        }
        self.version += 1;
        removed
    }

    /// Renames every predicate and symbol (a hot reload re-interns names under the new program).
    /// `rename` must be injective, as interning is; the order of facts is kept.
    pub fn rename(&mut self, rename: &mut dyn FnMut(NameId) -> NameId) {
        for r in &mut self.runs {
            r.key.0 = rename(r.key.0);
        }
        for f in &mut self.facts {
            for v in f.iter_mut() {
                *v = v.renamed(rename);
            }
        }
        self.version += 1;
    }

    /// Number of facts.
    pub fn len(&self) -> usize {
        self.facts.len()
    }

    /// Whether it holds no facts.
    pub fn is_empty(&self) -> bool {
        self.facts.is_empty()
    }

    /// Every fact, grouped by predicate in id order (for blackboard views and tests).
    pub fn all(&self) -> Vec<Fact> {
        let mut keyed: Vec<Run> = self.runs.to_vec();
        keyed.sort_by_key(|r| r.key);
        keyed
            .into_iter()
            .flat_map(|r| {
                self.facts[r.start as usize..(r.start + r.len) as usize]
                    .iter()
                    .map(move |args| Fact {
                        predicate: r.key.0,
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
    fn predicates_keep_their_own_facts_in_insertion_order_through_changes() {
        const Q: NameId = NameId(7);
        let mut t = TupleSpace::default();
        let v0 = t.version();
        t.add(P, vec![s(1)]);
        t.add(Q, vec![s(10)]);
        t.add(P, vec![s(2)]);
        t.add(Q, vec![s(11)]);
        t.add(P, vec![s(3)]);
        assert!(t.version() > v0);
        let list =
            |t: &TupleSpace, p| -> Vec<Value> { t.facts(p, 1).iter().map(|f| f[0]).collect() };
        assert_eq!(list(&t, P), [s(1), s(2), s(3)]);
        assert_eq!(list(&t, Q), [s(10), s(11)]);
        let v = t.version();
        assert!(t.remove_matching(P, &[Some(s(9))]).is_empty());
        assert_eq!(t.version(), v, "nothing removed, nothing changed");
        assert_eq!(t.remove_matching(P, &[Some(s(2))]).len(), 1);
        assert_eq!(list(&t, P), [s(1), s(3)]);
        assert_eq!(list(&t, Q), [s(10), s(11)]);
        t.add(Q, vec![s(12)]);
        t.add(P, vec![s(4)]);
        assert_eq!(list(&t, P), [s(1), s(3), s(4)]);
        assert_eq!(list(&t, Q), [s(10), s(11), s(12)]);
        assert_eq!(t.remove_matching(Q, &[None]).len(), 3);
        assert_eq!(list(&t, Q), []);
        assert_eq!(list(&t, P), [s(1), s(3), s(4)]);
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn a_space_with_an_emptied_run_passes_the_savegame_check() {
        // P's run emptied keeps its start, which is Q's: a valid layout the check must accept
        // whatever order the runs are listed in.
        const Q: NameId = NameId(7);
        let mut t = TupleSpace::default();
        t.add(P, vec![s(1)]);
        t.add(Q, vec![s(10)]);
        t.add(Q, vec![s(11)]);
        assert_eq!(t.remove_matching(P, &[None]).len(), 1);
        assert_eq!(t.check(12), Ok(()));
        t.runs.reverse();
        assert_eq!(t.check(12), Ok(()));
        // A symbol the program does not have is refused.
        assert!(t.check(11).is_err());
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

    proptest::proptest! {
        /// Any sequence of additions and deletions leaves the same facts, in the same order per
        /// predicate, as a plain list of facts would (the oracle).
        #[test]
        fn agrees_with_a_plain_list(ops in proptest::collection::vec((0u32..3, 0u32..4, proptest::option::of(0u32..4), proptest::bool::ANY), 0..60)) {
            let mut t = TupleSpace::default();
            let mut oracle: Vec<(u32, Vec<Value>)> = Vec::new();
            for (p, a, b, add) in ops {
                let args: Vec<Value> = std::iter::once(s(a)).chain(b.map(s)).collect();
                if add {
                    let fresh = !oracle.iter().any(|(q, x)| *q == p && *x == args);
                    proptest::prop_assert_eq!(t.add(NameId(p), args.clone()), fresh);
                    if fresh {
                        oracle.push((p, args));
                    }
                } else {
                    // The first argument is a free variable.
                    let pattern: Vec<Option<Value>> = std::iter::once(None).chain(args[1..].iter().copied().map(Some)).collect();
                    let removed = t.remove_matching(NameId(p), &pattern);
                    let expected: Vec<Vec<Value>> = oracle.iter().filter(|(q, x)| *q == p && x.len() == args.len() && x[1..] == args[1..]).map(|(_, x)| x.clone()).collect();
                    proptest::prop_assert_eq!(removed, expected);
                    oracle.retain(|(q, x)| !(*q == p && x.len() == args.len() && x[1..] == args[1..]));
                }
                for q in 0..3 {
                    for n in 1..=2 {
                        let got: Vec<Vec<Value>> = t.facts(NameId(q), n).iter().map(|f| f.to_vec()).collect();
                        let want: Vec<Vec<Value>> = oracle.iter().filter(|(r, x)| *r == q && x.len() == n).map(|(_, x)| x.clone()).collect();
                        proptest::prop_assert_eq!(got, want);
                    }
                }
                proptest::prop_assert_eq!(t.len(), oracle.len());
            }
        }
    }
}
