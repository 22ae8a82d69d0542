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

/// How a registry packs states: every group of facts of which at most one holds in any state
/// the search meets (a mutex group, as [`super::Task::mutex_groups`]) becomes one variable of
/// `ceil(log2(size + 1))` bits holding which of its facts holds (0: none), every other fact one
/// bit — as Fast Downward packs its finite-domain variables. A depot task's 346 facts take 11
/// 32-bit units as a bitset and 4 packed. No variable straddles two units.
#[derive(Clone, Debug)]
pub struct Packing {
    /// For each fact: where its variable lies, and the fact's value in it.
    place: Vec<FactPlace>,
    /// For each variable: its unit, shift, mask and first fact in `facts_of`.
    vars: Vec<PackedVar>,
    /// The facts of each variable, value 1 first.
    facts_of: Vec<FactId>,
    units: usize,
}

#[derive(Clone, Copy, Debug, Default)]
struct FactPlace {
    unit: u32,
    shift: u32,
    mask: u32,
    value: u32,
}

#[derive(Clone, Copy, Debug)]
struct PackedVar {
    unit: u32,
    shift: u32,
    mask: u32,
    first: u32,
}

impl Packing {
    /// The packing for `num_facts` facts with these mutex groups (each fact in at most one;
    /// facts in none get a bit of their own).
    pub fn new(num_facts: usize, groups: &[Vec<FactId>]) -> Self {
        let mut in_group = vec![false; num_facts];
        let mut vars: Vec<Vec<FactId>> = Vec::new();
        for g in groups {
            let g: Vec<FactId> = g
                .iter()
                .copied()
                .filter(|&f| (f as usize) < num_facts && !in_group[f as usize])
                .collect();
            for &f in &g {
                in_group[f as usize] = true;
            }
            if !g.is_empty() {
                vars.push(g);
            }
        }
        vars.extend(
            (0..num_facts as FactId)
                .filter(|&f| !in_group[f as usize])
                .map(|f| vec![f]),
        );
        let mut packing = Packing {
            place: vec![FactPlace::default(); num_facts],
            vars: Vec::with_capacity(vars.len()),
            facts_of: Vec::with_capacity(num_facts),
            units: 0,
        };
        let (mut unit, mut shift) = (0u32, 0u32);
        for facts in vars {
            // Values 0..=len: at most 32 bits, since a group holds fewer than 2^32 facts.
            let bits = u32::BITS - (facts.len() as u32).leading_zeros();
            if shift + bits > u32::BITS {
                unit += 1;
                shift = 0;
            }
            let first = packing.facts_of.len() as u32;
            let mask = u32::MAX >> (u32::BITS - bits);
            for (i, &f) in facts.iter().enumerate() {
                packing.place[f as usize] = FactPlace {
                    unit,
                    shift,
                    mask,
                    value: i as u32 + 1,
                };
            }
            packing.facts_of.extend_from_slice(&facts);
            packing.vars.push(PackedVar {
                unit,
                shift,
                mask,
                first,
            });
            shift += bits;
        }
        packing.units = unit as usize + usize::from(shift > 0);
        packing
    }

    /// 32-bit units per packed state.
    pub fn units(&self) -> usize {
        self.units
    }

    /// Packs `s` into `out` (of [`Self::units`] units); false if two facts of one group hold,
    /// which a state reachable from the groups' initial state never has.
    fn pack(&self, s: &State, out: &mut [u32]) -> bool {
        out.fill(0);
        for f in s.facts() {
            let Some(p) = self.place.get(f as usize) else {
                return false;
            };
            let u = &mut out[p.unit as usize];
            if *u >> p.shift & p.mask != 0 {
                return false;
            }
            *u |= p.value << p.shift;
        }
        true
    }

    fn unpack(&self, packed: &[u32], out: &mut State) {
        out.words.fill(0);
        for v in &self.vars {
            let value = packed[v.unit as usize] >> v.shift & v.mask;
            if value != 0 {
                out.insert(self.facts_of[(v.first + value - 1) as usize]);
            }
        }
    }
}

/// Every state a search has seen, packed: one arena of 32-bit units (no allocation per state)
/// and an open-addressing hash index of state ids (4 bytes a slot, at most 3/4 full), probed
/// linearly and compared by content. A state's id is its insertion index. States are stored
/// as bitsets, or with a [`Packing`] in its fewer units.
pub struct StateRegistry {
    units_per_state: usize,
    num_facts: usize,
    packing: Option<Packing>,
    /// The stored form of the state being looked up.
    scratch: Vec<u32>,
    arena: Vec<u32>,
    /// Slots holding state ids (`EMPTY` when free); its length is a power of two.
    slots: Vec<u32>,
    len: usize,
}

const EMPTY: u32 = u32::MAX;

impl StateRegistry {
    /// An empty registry for states over `num_facts` facts, stored as bitsets.
    pub fn new(num_facts: usize) -> Self {
        let units = num_facts.div_ceil(32);
        StateRegistry {
            units_per_state: units,
            num_facts,
            packing: None,
            scratch: vec![0; units],
            arena: Vec::new(),
            slots: vec![EMPTY; 1024],
            len: 0,
        }
    }

    /// An empty registry that stores states with `packing`, for a search from `from`; a plain
    /// one if `from` breaks the packing's groups (a start the groups were not found for) or the
    /// packing saves nothing.
    pub fn packed(num_facts: usize, packing: Packing, from: &State) -> Self {
        let mut r = StateRegistry::new(num_facts);
        let mut scratch = vec![0; packing.units()];
        if packing.units() < r.units_per_state && packing.pack(from, &mut scratch) {
            r.units_per_state = packing.units();
            r.scratch = scratch;
            r.packing = Some(packing);
        }
        r
    }

    /// Bytes the registry holds per state: the stored units and the index slots at their mean
    /// load (between 3/8 and 3/4 full: about 8 bytes).
    pub fn bytes_per_state(&self) -> usize {
        self.units_per_state * 4 + 8
    }

    /// How many states it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no state.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn hash(units: &[u32]) -> u64 {
        // FxHash-style mixing: states are already well spread bit patterns.
        let mut h = 0u64;
        for &u in units {
            h = (h.rotate_left(5) ^ u as u64).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        // The high bits are the best mixed: fold them down for the slot mask.
        h ^ (h >> 32)
    }

    fn units(&self, id: u32) -> &[u32] {
        let i = id as usize * self.units_per_state;
        &self.arena[i..i + self.units_per_state]
    }

    /// The slot holding `units`, or the free slot where it would go.
    fn slot_of(&self, units: &[u32]) -> usize {
        let mask = self.slots.len() - 1;
        let mut i = Self::hash(units) as usize & mask;
        loop {
            let id = self.slots[i];
            if id == EMPTY || self.units(id) == units {
                return i;
            }
            i = (i + 1) & mask;
        }
    }

    /// Puts the stored form of `s` in `scratch` and returns the slot it has or would have;
    /// `None` if `s` breaks the packing's groups.
    fn lookup(&mut self, s: &State) -> Option<usize> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let ok = match &self.packing {
            None => {
                for (i, u) in scratch.iter_mut().enumerate() {
                    *u = (s.words[i / 2] >> (32 * (i % 2))) as u32;
                }
                true
            }
            Some(p) => p.pack(s, &mut scratch),
        };
        let slot = ok.then(|| self.slot_of(&scratch));
        self.scratch = scratch;
        slot
    }

    /// The id of `s` if it is held.
    pub fn find(&mut self, s: &State) -> Option<u32> {
        let slot = self.lookup(s)?;
        let id = self.slots[slot];
        (id != EMPTY).then_some(id)
    }

    /// The id of `s`, and whether it was new.
    pub fn insert(&mut self, s: &State) -> (u32, bool) {
        let slot = match self.lookup(s) {
            Some(slot) => slot,
            None => {
                // `s` breaks a mutex group (groups given for another start): store every
                // state as a bitset from now on rather than lose one.
                self.unpack_all();
                self.lookup(s).unwrap_or_default()
            }
        };
        if self.slots[slot] != EMPTY {
            return (self.slots[slot], false);
        }
        let id = self.len as u32;
        self.arena.extend_from_slice(&self.scratch);
        self.len += 1;
        if self.len * 4 > self.slots.len() * 3 {
            self.refile(self.slots.len() * 2);
        } else {
            self.slots[slot] = id;
        }
        (id, true)
    }

    /// A fresh index of `size` slots holding every state, filed from the arena: the old index
    /// is freed first, so the two are never held together.
    fn refile(&mut self, size: usize) {
        self.slots = Vec::new();
        self.slots = vec![EMPTY; size];
        for id in 0..self.len as u32 {
            let slot = self.slot_of(self.units(id));
            self.slots[slot] = id;
        }
    }

    /// Stores every held state as a bitset and stops packing.
    fn unpack_all(&mut self) {
        let mut plain = StateRegistry::new(self.num_facts);
        let mut s = State::empty(self.num_facts);
        for id in 0..self.len as u32 {
            self.get_into(id, &mut s);
            plain.insert(&s);
        }
        *self = plain;
    }

    /// Unpacks state `id` into `out` (which must have this registry's width).
    pub fn get_into(&self, id: u32, out: &mut State) {
        let units = self.units(id);
        match &self.packing {
            None => {
                for (i, w) in out.words.iter_mut().enumerate() {
                    let hi = units.get(2 * i + 1).map_or(0, |&u| (u as u64) << 32);
                    *w = units[2 * i] as u64 | hi;
                }
            }
            Some(p) => p.unpack(units, out),
        }
    }

    /// State `id`, unpacked.
    pub fn get(&self, id: u32) -> State {
        let mut s = State::empty(self.num_facts);
        self.get_into(id, &mut s);
        s
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

    /// Facts 0..40 are one object's 40 places (one holds at a time), 40..100 free facts.
    fn places_and_flags(place: u32, flags: u64) -> State {
        State::from_facts(
            100,
            std::iter::once(place).chain((0..60).filter(|b| flags >> b & 1 == 1).map(|b| 40 + b)),
        )
    }

    #[test]
    fn a_packed_registry_stores_a_group_in_a_few_bits() {
        let groups = vec![(0..40).collect::<Vec<FactId>>()];
        let packing = Packing::new(100, &groups);
        // 6 bits for the 40 places (and none), 60 bits for the rest: 3 units, not 4.
        assert_eq!(packing.units(), 3);
        let first = places_and_flags(0, 0);
        let mut r = StateRegistry::packed(100, packing, &first);
        assert_eq!(r.bytes_per_state(), 3 * 4 + 8);
        let states: Vec<State> = (0..3000u64)
            .map(|i| places_and_flags((i % 40) as u32, i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
            .collect();
        for (i, s) in states.iter().enumerate() {
            assert_eq!(r.insert(s), (i as u32, true));
        }
        for (i, s) in states.iter().enumerate() {
            assert_eq!(r.find(s), Some(i as u32));
            assert_eq!(&r.get(i as u32), s);
        }
        // A state with no place at all is a value of its own.
        let nowhere = State::from_facts(100, [41]);
        assert_eq!(r.find(&nowhere), None);
        assert_eq!(r.insert(&nowhere), (3000, true));
        assert_eq!(r.get(3000), nowhere);
    }

    #[test]
    fn a_state_that_breaks_a_group_turns_the_registry_back_to_bitsets() {
        let groups = vec![(0..40).collect::<Vec<FactId>>()];
        let start = places_and_flags(3, 1);
        let mut r = StateRegistry::packed(100, Packing::new(100, &groups), &start);
        let before: Vec<State> = (0..100u64)
            .map(|i| places_and_flags(i as u32 % 40, i))
            .collect();
        for s in &before {
            r.insert(s);
        }
        let held = r.len();
        // Two places at once: not what the groups promised, but nothing is lost.
        let broken = State::from_facts(100, [1, 2, 50]);
        assert_eq!(r.insert(&broken), (held as u32, true));
        assert_eq!(r.get(held as u32), broken);
        for s in &before {
            let id = r.find(s).expect("kept");
            assert_eq!(&r.get(id), s);
        }
        assert_eq!(r.bytes_per_state(), 4 * 4 + 8);
        // And a start that already breaks them is never packed.
        let r = StateRegistry::packed(100, Packing::new(100, &groups), &broken);
        assert_eq!(r.bytes_per_state(), 4 * 4 + 8);
    }
}
