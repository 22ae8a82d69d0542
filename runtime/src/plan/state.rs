//! A planning state: the set of facts that hold, as a fixed-width bitset. Facts absent from the
//! set are false (closed world).

use super::task::FactId;

/// The facts that hold in one world state. Equality and hashing are by content, so states can
/// key hash maps during search.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct State {
    words: Box<[u64]>,
}

impl State {
    /// Whether it is a state over exactly `num_facts` facts (its width, and no fact beyond
    /// them): what a state read from a savegame must be before a task uses it.
    pub fn fits(&self, num_facts: usize) -> bool {
        let tail = num_facts % 64;
        self.words.len() == num_facts.div_ceil(64)
            && (tail == 0 || self.words.last().is_none_or(|w| w >> tail == 0))
    }

    /// The empty state over `num_facts` facts.
    pub fn empty(num_facts: usize) -> Self {
        State {
            words: vec![0; num_facts.div_ceil(64)].into_boxed_slice(),
        }
    }

    /// The state in which exactly `facts` hold.
    pub fn from_facts(num_facts: usize, facts: impl IntoIterator<Item = FactId>) -> Self {
        let mut s = State::empty(num_facts);
        for f in facts {
            s.insert(f);
        }
        s
    }

    /// Whether fact `f` holds (false for a fact beyond the state's width).
    #[inline]
    pub fn contains(&self, f: FactId) -> bool {
        let i = f as usize;
        self.words
            .get(i / 64)
            .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
    }

    /// Makes `f` hold (ignored beyond the state's width).
    #[inline]
    pub fn insert(&mut self, f: FactId) {
        let i = f as usize;
        if let Some(w) = self.words.get_mut(i / 64) {
            *w |= 1u64 << (i % 64);
        }
    }

    /// Makes `f` false.
    #[inline]
    pub fn remove(&mut self, f: FactId) {
        let i = f as usize;
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1u64 << (i % 64));
        }
    }

    /// The facts that hold, in increasing id order.
    pub fn facts(&self) -> impl Iterator<Item = FactId> + '_ {
        self.words.iter().enumerate().flat_map(|(wi, &w)| {
            let mut bits = w;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros();
                bits &= bits - 1;
                Some((wi * 64) as FactId + b)
            })
        })
    }

    /// How many facts hold.
    pub fn len(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Whether no fact holds.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// Whether every fact of `other` also holds here.
    pub fn is_superset(&self, other: &State) -> bool {
        self.words
            .iter()
            .zip(other.words.iter())
            .all(|(a, b)| b & !a == 0)
    }
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.facts()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_remove_iterate() {
        let mut s = State::empty(130);
        for f in [0, 63, 64, 129] {
            s.insert(f);
        }
        assert_eq!(s.facts().collect::<Vec<_>>(), vec![0, 63, 64, 129]);
        s.remove(63);
        assert!(!s.contains(63));
        assert!(s.contains(129));
        assert!(!s.contains(500));
        assert_eq!(s.len(), 3);
        let sub = State::from_facts(130, [0, 129]);
        assert!(s.is_superset(&sub));
        assert!(!sub.is_superset(&s));
    }
}
