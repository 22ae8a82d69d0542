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

/// Every state a search has seen, packed: one arena of words (no allocation per state) and an
/// open-addressing hash index of state ids (4 bytes a slot, at most 3/4 full), probed linearly
/// and compared by content. A state's id is its insertion index.
pub struct StateRegistry {
    words_per_state: usize,
    arena: Vec<u64>,
    /// Slots holding state ids (`EMPTY` when free); its length is a power of two.
    slots: Vec<u32>,
    len: usize,
}

const EMPTY: u32 = u32::MAX;

impl StateRegistry {
    /// An empty registry for states over `num_facts` facts.
    pub fn new(num_facts: usize) -> Self {
        StateRegistry {
            words_per_state: num_facts.div_ceil(64),
            arena: Vec::new(),
            slots: vec![EMPTY; 1024],
            len: 0,
        }
    }

    /// Bytes the registry holds per state: the packed words and the index slots at their mean
    /// load (between 3/8 and 3/4 full: about 8 bytes).
    pub fn bytes_per_state(&self) -> usize {
        self.words_per_state * 8 + 8
    }

    /// How many states it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no state.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn hash(words: &[u64]) -> u64 {
        // FxHash-style mixing: states are already well spread bit patterns.
        let mut h = 0u64;
        for &w in words {
            h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        // The high bits are the best mixed: fold them down for the slot mask.
        h ^ (h >> 32)
    }

    fn words(&self, id: u32) -> &[u64] {
        let i = id as usize * self.words_per_state;
        &self.arena[i..i + self.words_per_state]
    }

    /// The slot holding `words`, or the free slot where it would go.
    fn slot_of(&self, words: &[u64]) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = Self::hash(words) as usize & mask;
        loop {
            let id = self.slots[i];
            if id == EMPTY || self.words(id) == words {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `s` if it is held.
    pub fn find(&self, s: &State) -> Option<u32> {
        let id = self.slots[self.slot_of(&s.words)];
        (id != EMPTY).then_some(id)
    }

    /// The id of `s`, and whether it was new.
    pub fn insert(&mut self, s: &State) -> (u32, bool) {
        let slot = self.slot_of(&s.words);
        if self.slots[slot] != EMPTY {
            return (self.slots[slot], false);
        }
        let id = self.len as u32;
        self.arena.extend_from_slice(&s.words);
        self.len += 1;
        if self.len * 4 > self.slots.len() * 3 {
            self.grow();
        } else {
            self.slots[slot] = id;
        }
        (id, true)
    }

    /// Doubles the index and files every state again (the newest included).
    fn grow(&mut self) {
        self.slots = vec![EMPTY; self.slots.len() * 2];
        for id in 0..self.len as u32 {
            let slot = self.slot_of(self.words(id));
            self.slots[slot] = id;
        }
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

    #[test]
    fn registry_keeps_every_state_through_growth() {
        // Far more states than the first index holds: every one is found by content after the
        // index has doubled several times, and none is stored twice.
        let mut r = StateRegistry::new(70);
        let state = |i: u32| State::from_facts(70, (0..20).filter(|b| i >> b & 1 == 1).chain([69]));
        for i in 0..5000 {
            assert_eq!(r.insert(&state(i)), (i, true));
        }
        for i in (0..5000).rev() {
            assert_eq!(r.find(&state(i)), Some(i));
            assert_eq!(r.insert(&state(i)), (i, false));
            assert_eq!(r.get(i), state(i));
        }
        assert_eq!(r.find(&State::from_facts(70, [68])), None);
        assert_eq!(r.len(), 5000);
    }
}
