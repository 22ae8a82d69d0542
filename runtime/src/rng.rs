//! Deterministic random numbers. Same seed, same trace: every agent draws from its own stream,
//! derived from the scene seed and the agent's index, so adding an agent or reordering updates
//! does not perturb the others.

use rand_core::{Rng as _, SeedableRng};
use rand_pcg::Pcg32;

/// A small, fast, reproducible generator (PCG32). Its output for a seed is fixed by the
/// algorithm, so golden traces stay valid across dependency updates.
///
/// ```
/// use ensemble_runtime::rng::Rng;
///
/// // Agent 3 of a scene seeded 42 draws the same numbers on every run...
/// let draws = |stream| {
///     let mut rng = Rng::new(42, stream);
///     (0..4).map(|_| rng.index(100)).collect::<Vec<_>>()
/// };
/// assert_eq!(draws(3), draws(3));
/// // ...and its own numbers, whatever agent 4 draws.
/// assert_ne!(draws(3), draws(4));
/// let x = Rng::new(42, 3).range_f64(0.5, 2.0);
/// assert!((0.5..2.0).contains(&x));
/// ```
/// Serialisable (its state and stream) so a savegame continues the very same sequence.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rng(Pcg32);

impl Rng {
    /// The generator for one `stream` of a scene's `seed`: a scene uses the agent's index (or
    /// another fixed number per consumer) as the stream, so consumers never share draws.
    pub fn new(seed: u64, stream: u64) -> Self {
        // splitmix64 spreads nearby (seed, stream) pairs over the whole seed space.
        let mut z = seed ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Rng(Pcg32::seed_from_u64(z))
    }

    /// An independent generator for `stream`, keyed by this one's state, which it leaves
    /// as it is: a consumer that forks per occasion (a conversation's wording per action and
    /// line) gets draws that do not shift when another occasion draws more or fewer.
    pub fn fork(&self, stream: u64) -> Rng {
        let mut key = self.0.clone();
        let seed = (key.next_u32() as u64) << 32 | key.next_u32() as u64;
        Rng::new(seed, stream)
    }

    /// The next raw 32 bits.
    pub fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u32() >> 8) as f64 / (1u32 << 24) as f64
    }

    /// Uniform in [lo, hi).
    pub fn range_f64(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform index in 0..n (n > 0), without modulo bias worth caring about for n << 2^32.
    pub fn index(&mut self, n: usize) -> usize {
        debug_assert!(n > 0);
        ((self.next_u32() as u64 * n as u64) >> 32) as usize
    }
}

/// A random draw that picks a branch of the run, as a world may decide it instead of the seed
/// ([`crate::world::World::decide`]): a content test's `Draw` setup and `ensemble reach` force
/// one this way without searching seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DrawKind {
    /// Which line a state says: a sentence state's candidate, one of a `OneOff`'s lines.
    Line,
    /// Whether a chance comes true: a mocked action's `probability`, a failure rate.
    Chance,
}

impl DrawKind {
    /// Every kind, in the order counts are kept and saved.
    pub const ALL: [DrawKind; 2] = [DrawKind::Line, DrawKind::Chance];

    /// As tests and reports write it.
    pub fn name(self) -> &'static str {
        match self {
            DrawKind::Line => "Line",
            DrawKind::Chance => "Chance",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_stream() {
        let mut a = Rng::new(7, 3);
        let mut b = Rng::new(7, 3);
        for _ in 0..100 {
            assert_eq!(a.next_u32(), b.next_u32());
        }
    }

    #[test]
    fn streams_differ() {
        let mut a = Rng::new(7, 0);
        let mut b = Rng::new(7, 1);
        let same = (0..32).filter(|_| a.next_u32() == b.next_u32()).count();
        assert!(same < 4);
    }

    #[test]
    fn forks_leave_the_key_and_differ_by_stream() {
        let key = Rng::new(7, 2);
        let before = key.clone();
        let draws = |stream| {
            let mut f = key.fork(stream);
            (0..8).map(|_| f.next_u32()).collect::<Vec<_>>()
        };
        assert_eq!(draws(5), draws(5), "a fork is reproducible");
        assert_ne!(draws(5), draws(6), "another stream, other draws");
        assert_eq!(key, before, "forking does not advance the key");
        let mut other = Rng::new(7, 3).fork(5);
        let other: Vec<u32> = (0..8).map(|_| other.next_u32()).collect();
        assert_ne!(draws(5), other, "another key, other draws");
    }

    #[test]
    fn ranges_stay_in_bounds() {
        let mut r = Rng::new(1, 1);
        for _ in 0..10_000 {
            let x = r.range_f64(1.5, 3.0);
            assert!((1.5..3.0).contains(&x));
            assert!(r.index(5) < 5);
        }
    }
}
