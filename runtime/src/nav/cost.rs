//! Edge costs and distances, stored exactly.
//!
//! On an octile grid every distance is `straight + diagonal·√2` for two whole numbers, so a
//! distance is stored as the pair packed into one `u32` (straight steps in the low 16 bits,
//! diagonal steps in the high 16 bits): sums stay exact, four bytes per table entry, and two
//! different pairs never compare equal. Road graphs (`.gr`) have whole-number weights and store
//! them as they are. [`UNREACHABLE`] marks "no path inside this cluster" and removed edges.

use serde::{Deserialize, Serialize};

/// A cost or distance in the graph's [`Metric`] encoding.
pub type Packed = u32;

/// No path (in a distance table) or a removed edge (in the graph).
pub const UNREACHABLE: Packed = u32::MAX;

/// How packed costs are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    /// Octile grid: low 16 bits straight steps (cost 1), high 16 bits diagonal steps (cost √2).
    Octile,
    /// Whole-number weights: the packed value is the cost.
    Integer,
}

impl Metric {
    /// The cost as a number. `UNREACHABLE` maps to infinity.
    #[inline]
    pub fn value(self, c: Packed) -> f64 {
        if c == UNREACHABLE {
            return f64::INFINITY;
        }
        match self {
            Metric::Octile => (c & 0xffff) as f64 + (c >> 16) as f64 * std::f64::consts::SQRT_2,
            Metric::Integer => c as f64,
        }
    }

    /// Exact sum, or `None` when it does not fit the encoding (or either side is unreachable).
    #[inline]
    pub fn add(self, a: Packed, b: Packed) -> Option<Packed> {
        if a == UNREACHABLE || b == UNREACHABLE {
            return None;
        }
        match self {
            Metric::Octile => {
                let lo = (a & 0xffff) + (b & 0xffff);
                let hi = (a >> 16) + (b >> 16);
                (lo <= 0xffff && hi < 0xffff).then_some((hi << 16) | lo)
            }
            Metric::Integer => a.checked_add(b).filter(|&s| s != UNREACHABLE),
        }
    }

    /// The cost of one straight step (octile grids).
    pub const STRAIGHT: Packed = 1;
    /// The cost of one diagonal step (octile grids).
    pub const DIAGONAL: Packed = 1 << 16;
}

/// Priority key of a non-negative finite cost: the IEEE bits of a non-negative `f64` order like
/// the numbers, so heaps compare integers.
#[inline]
pub(crate) fn key(v: f64) -> u64 {
    v.to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn octile_sums_are_exact_and_checked() {
        let m = Metric::Octile;
        let c = m.add(Metric::STRAIGHT, Metric::DIAGONAL).unwrap();
        assert_eq!(m.value(c), 1.0 + std::f64::consts::SQRT_2);
        assert_eq!(m.add(0xffff, 1), None);
        assert_eq!(m.add(UNREACHABLE, 1), None);
        assert_eq!(m.value(UNREACHABLE), f64::INFINITY);
        assert_eq!(Metric::Integer.add(u32::MAX - 1, 1), None);
    }

    #[test]
    fn keys_order_like_values() {
        assert!(key(1.0) < key(1.5));
        assert!(key(0.0) < key(f64::MIN_POSITIVE));
        assert!(key(1e9) < key(f64::INFINITY));
    }
}
