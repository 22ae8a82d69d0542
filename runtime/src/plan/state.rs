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

/// Every state a search has seen, packed: one arena of words (no allocation per state) and a
/// hash index by content, chaining states whose hashes collide. A state's id is its insertion
/// index.
pub struct StateRegistry {
    words_per_state: usize,
    arena: Vec<u64>,
    /// Hash of a state's words → the newest state with that hash.
    first: std::collections::HashMap<u64, u32>,
    /// For each state, the previous state with the same hash (`u32::MAX` ends the chain).
    next_same_hash: Vec<u32>,
}

impl StateRegistry {
    /// An empty registry for states over `num_facts` facts.
    pub fn new(num_facts: usize) -> Self {
        StateRegistry {
            words_per_state: num_facts.div_ceil(64),
            arena: Vec::new(),
            first: std::collections::HashMap::new(),
            next_same_hash: Vec::new(),
        }
    }

    /// Bytes the registry holds per state: the packed words, the hash index entry at its usual
    /// load and the chain link.
    pub fn bytes_per_state(&self) -> usize {
        self.words_per_state * 8 + 16 * 8 / 7 + 4
    }

    /// How many states it holds.
    pub fn len(&self) -> usize {
        self.next_same_hash.len()
    }

    /// Whether it holds no state.
    pub fn is_empty(&self) -> bool {
        self.next_same_hash.is_empty()
    }

    fn hash(words: &[u64]) -> u64 {
        // FxHash-style mixing: states are already well spread bit patterns.
        let mut h = 0u64;
        for &w in words {
            h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        h
    }

    fn words(&self, id: u32) -> &[u64] {
        let i = id as usize * self.words_per_state;
        &self.arena[i..i + self.words_per_state]
    }

    /// The id of `s` if it is held.
    pub fn find(&self, s: &State) -> Option<u32> {
        let mut id = *self.first.get(&Self::hash(&s.words))?;
        while id != u32::MAX {
            if self.words(id) == &*s.words {
                return Some(id);
            }
            id = self.next_same_hash[id as usize];
        }
        None
    }

    /// The id of `s`, and whether it was new.
    pub fn insert(&mut self, s: &State) -> (u32, bool) {
        if let Some(id) = self.find(s) {
            return (id, false);
        }
        let id = self.len() as u32;
        let prev = self.first.insert(Self::hash(&s.words), id);
        self.next_same_hash.push(prev.unwrap_or(u32::MAX));
        self.arena.extend_from_slice(&s.words);
        (id, true)
    }

    /// Unpacks state `id` into `out` (which must have this registry's width).
    pub fn get_into(&self, id: u32, out: &mut State) {
        out.words.copy_from_slice(self.words(id));
    }

    /// State `id`, unpacked.
    pub fn get(&self, id: u32) -> State {
        State {
            words: self.words(id).into(),
        }
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

    #[test]
    fn registry_finds_states_by_content() {
        let mut r = StateRegistry::new(130);
        let a = State::from_facts(130, [0, 129]);
        let b = State::from_facts(130, [1]);
        assert_eq!(r.insert(&a), (0, true));
        assert_eq!(r.insert(&b), (1, true));
        assert_eq!(r.insert(&State::from_facts(130, [129, 0])), (0, false));
        assert_eq!(r.find(&State::from_facts(130, [2])), None);
        assert_eq!(r.get(1), b);
        let mut out = State::empty(130);
        r.get_into(0, &mut out);
        assert_eq!(out, a);
        assert_eq!(r.len(), 2);
    }
}
