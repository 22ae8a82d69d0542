//! One cluster's stored distances: 16 bits an entry when every distance of the cluster fits,
//! 32 otherwise. Half the bytes means half the cache lines the search touches, and on the
//! reference maps most leaves fit (a leaf spans a few dozen cells, so its distances are small).
//!
//! The 16-bit forms keep distances exact: an octile distance `a + b·√2` is `b << 8 | a` with
//! `a, b < 256`; a whole number is itself. `0xffff` is [`UNREACHABLE`] in both.
//!
//! Beside the distances, two bits per entry say whether the entry is *dominated*: some shortest
//! path behind it passes another node the search would generate from the same table, so that
//! node, once expanded, generates the entry's target at the same cost and the search can skip
//! it (see [`super::search`]). `via_border`: through another border node of the cluster (the
//! set generated up the start's chain); `via_block` (inner clusters): through another member of
//! the target's child block (the set generated down the goal's chain).

use super::cost::{Metric, Packed, UNREACHABLE};

const NARROW_UNREACHABLE: u16 = u16::MAX;

/// A cluster's distance entries and their domination bits (the layout is the cluster's
/// business, see [`super::hierarchy`]). Stored compactly in files (`codec`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    /// The distances, in the cluster's layout.
    pub entries: Entries,
    /// Per entry: a shortest path behind it passes another border node of the cluster.
    pub via_border: Bits,
    /// Per entry (inner clusters; empty for leaves): a shortest path behind it passes another
    /// member of the target's child block.
    pub via_block: Bits,
}

/// A fixed-size set of bits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bits {
    len: u64,
    words: Vec<u64>,
}

impl Bits {
    /// `len` bits, all clear.
    pub fn new(len: usize) -> Bits {
        Bits {
            len: len as u64,
            words: vec![0; len.div_ceil(64)],
        }
    }

    /// Number of bits.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether it holds no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `i` (`i < len`).
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        (self.words[i >> 6] >> (i & 63)) & 1 == 1
    }

    /// Sets bit `i` (`i < len`) to `on`.
    #[inline]
    pub fn set(&mut self, i: usize, on: bool) {
        let bit = 1u64 << (i & 63);
        if on {
            self.words[i >> 6] |= bit;
        } else {
            self.words[i >> 6] &= !bit;
        }
    }

    /// The 64 bits starting at `pos` (bit `j` of the result is bit `pos + j`); bits past the
    /// end read as zero.
    #[inline]
    pub fn word_at(&self, pos: usize) -> u64 {
        let (w, shift) = (pos >> 6, pos & 63);
        let lo = self.words.get(w).copied().unwrap_or(0) >> shift;
        if shift == 0 {
            lo
        } else {
            lo | (self.words.get(w + 1).copied().unwrap_or(0) << (64 - shift))
        }
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Bytes of the bit words.
    pub fn heap_bytes(&self) -> usize {
        8 * self.words.len()
    }

    /// Whether the word count matches the length (checked after decoding).
    pub(crate) fn is_consistent(&self) -> bool {
        self.len <= u64::MAX - 64 && self.words.len() as u64 == self.len.div_ceil(64)
    }
}

/// Distance entries, 16 or 32 bits each.
#[derive(Clone, Debug, PartialEq)]
pub enum Entries {
    /// Octile distances, 32 bits an entry: the [`Packed`] value itself.
    Octile(Vec<Packed>),
    /// Whole-number distances, 32 bits an entry.
    Integer(Vec<Packed>),
    /// Octile distances with fewer than 256 straight and 256 diagonal steps.
    Octile16(Vec<u16>),
    /// Whole-number distances below 65,535.
    Integer16(Vec<u16>),
}

impl Default for Entries {
    fn default() -> Self {
        Entries::Integer(Vec::new())
    }
}

#[inline]
fn widen_octile(v: u16) -> Packed {
    if v == NARROW_UNREACHABLE {
        UNREACHABLE
    } else {
        (((v >> 8) as u32) << 16) | (v & 0xff) as u32
    }
}

#[inline]
fn widen_integer(v: u16) -> Packed {
    if v == NARROW_UNREACHABLE {
        UNREACHABLE
    } else {
        v as u32
    }
}

impl Table {
    /// A table of `entries` with no entry marked dominated.
    pub fn new(metric: Metric, entries: Vec<Packed>, inner: bool) -> Table {
        let n = entries.len();
        Table {
            entries: Entries::from_wide(metric, entries),
            via_border: Bits::new(n),
            via_block: Bits::new(if inner { n } else { 0 }),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the table has no entries (a leaf without border nodes).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Bytes held by the entries and both bit sets.
    pub fn heap_bytes(&self) -> usize {
        self.entries.heap_bytes() + self.via_border.heap_bytes() + self.via_block.heap_bytes()
    }

    /// Entry `i` as a packed cost, whatever its stored width.
    #[inline]
    pub fn get(&self, i: usize) -> Packed {
        self.entries.get(i)
    }

    /// Calls `f(k, entry)` for the `count` entries `start + k·stride`, leaving out those whose
    /// bit is set in `skip` (when given) and the unreachable ones. One match for the whole run,
    /// so the search's hot loops do not branch on the entry width.
    #[inline]
    pub fn for_each(
        &self,
        start: usize,
        count: usize,
        stride: usize,
        skip: Option<&Bits>,
        f: impl FnMut(usize, Packed),
    ) {
        match &self.entries {
            Entries::Octile(v) | Entries::Integer(v) => {
                run(v, |x| x, start, count, stride, skip, f)
            }
            Entries::Octile16(v) => run(v, widen_octile, start, count, stride, skip, f),
            Entries::Integer16(v) => run(v, widen_integer, start, count, stride, skip, f),
        }
    }

    /// Calls `f(k, entry)` for the `count` consecutive entries from `start` whose bit in `skip`
    /// is clear and (with `keep`, indexed from 0 for the run) whose bit in `keep` is set, and
    /// which are reachable. Bits are taken 64 at a time, so dominated entries cost almost
    /// nothing.
    #[inline]
    pub fn for_each_open(
        &self,
        start: usize,
        count: usize,
        skip: &Bits,
        keep: Option<&Bits>,
        f: impl FnMut(usize, Packed),
    ) {
        match &self.entries {
            Entries::Octile(v) | Entries::Integer(v) => {
                run_open(v, |x| x, start, count, skip, keep, f)
            }
            Entries::Octile16(v) => run_open(v, widen_octile, start, count, skip, keep, f),
            Entries::Integer16(v) => run_open(v, widen_integer, start, count, skip, keep, f),
        }
    }

    /// Whether every entry is a well-formed distance of `metric` and the bit sets fit
    /// (checked after decoding).
    pub(crate) fn is_valid_for(&self, metric: Metric, inner: bool) -> bool {
        let n = self.len() as u64;
        self.entries.is_valid_for(metric)
            && self.via_border.is_consistent()
            && self.via_border.len == n
            && self.via_block.is_consistent()
            && self.via_block.len == if inner { n } else { 0 }
    }
}

#[inline(always)]
fn run<T: Copy>(
    v: &[T],
    widen: impl Fn(T) -> Packed,
    start: usize,
    count: usize,
    stride: usize,
    skip: Option<&Bits>,
    mut f: impl FnMut(usize, Packed),
) {
    let mut visit = |k: usize, i: usize| {
        let d = widen(v[i]);
        if d != UNREACHABLE {
            f(k, d);
        }
    };
    match skip {
        Some(bits) => {
            for k in 0..count {
                let i = start + k * stride;
                if !bits.get(i) {
                    visit(k, i);
                }
            }
        }
        None => {
            for k in 0..count {
                visit(k, start + k * stride);
            }
        }
    }
}

#[inline(always)]
fn run_open<T: Copy>(
    v: &[T],
    widen: impl Fn(T) -> Packed,
    start: usize,
    count: usize,
    skip: &Bits,
    keep: Option<&Bits>,
    mut f: impl FnMut(usize, Packed),
) {
    let mut k = 0;
    while k < count {
        let mut open = !skip.word_at(start + k);
        if let Some(keep) = keep {
            open &= keep.word_at(k);
        }
        if count - k < 64 {
            open &= (1u64 << (count - k)) - 1;
        }
        while open != 0 {
            let j = k + open.trailing_zeros() as usize;
            open &= open - 1;
            let d = widen(v[start + j]);
            if d != UNREACHABLE {
                f(j, d);
            }
        }
        k += 64;
    }
}

impl Entries {
    /// Stores `entries`, in 16 bits each when they all fit.
    pub fn from_wide(metric: Metric, entries: Vec<Packed>) -> Entries {
        match metric {
            Metric::Octile => {
                let fits = entries
                    .iter()
                    .all(|&d| d == UNREACHABLE || ((d & 0xffff) < 256 && (d >> 16) < 255));
                if fits {
                    return Entries::Octile16(
                        entries
                            .iter()
                            .map(|&d| {
                                if d == UNREACHABLE {
                                    NARROW_UNREACHABLE
                                } else {
                                    (((d >> 16) << 8) | (d & 0xff)) as u16
                                }
                            })
                            .collect(),
                    );
                }
            }
            Metric::Integer => {
                if entries
                    .iter()
                    .all(|&d| d == UNREACHABLE || d < NARROW_UNREACHABLE as u32)
                {
                    return Entries::Integer16(
                        entries
                            .iter()
                            .map(|&d| {
                                if d == UNREACHABLE {
                                    NARROW_UNREACHABLE
                                } else {
                                    d as u16
                                }
                            })
                            .collect(),
                    );
                }
            }
        }
        match metric {
            Metric::Octile => Entries::Octile(entries),
            Metric::Integer => Entries::Integer(entries),
        }
    }

    /// Every entry as a [`Packed`] value.
    pub fn to_wide(&self) -> Vec<Packed> {
        match self {
            Entries::Octile(v) | Entries::Integer(v) => v.clone(),
            Entries::Octile16(v) => v.iter().map(|&x| widen_octile(x)).collect(),
            Entries::Integer16(v) => v.iter().map(|&x| widen_integer(x)).collect(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            Entries::Octile(v) | Entries::Integer(v) => v.len(),
            Entries::Octile16(v) | Entries::Integer16(v) => v.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes an entry takes (2 or 4).
    pub fn entry_bytes(&self) -> usize {
        match self {
            Entries::Octile(_) | Entries::Integer(_) => 4,
            _ => 2,
        }
    }

    /// Bytes held by the entries.
    pub fn heap_bytes(&self) -> usize {
        self.len() * self.entry_bytes()
    }

    /// Entry `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Packed {
        match self {
            Entries::Octile(v) | Entries::Integer(v) => v[i],
            Entries::Octile16(v) => widen_octile(v[i]),
            Entries::Integer16(v) => widen_integer(v[i]),
        }
    }

    /// Whether every entry is a well-formed distance of `metric` (checked after decoding).
    pub(crate) fn is_valid_for(&self, metric: Metric) -> bool {
        match (self, metric) {
            (Entries::Octile(v), Metric::Octile) => {
                v.iter().all(|&d| d == UNREACHABLE || (d >> 16) != 0xffff)
            }
            (Entries::Integer(_), Metric::Integer)
            | (Entries::Octile16(_), Metric::Octile)
            | (Entries::Integer16(_), Metric::Integer) => true,
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrow_tables_round_trip_exactly() {
        let octile = vec![0, 1, 5 | (3 << 16), 255 | (254 << 16), UNREACHABLE];
        let t = Entries::from_wide(Metric::Octile, octile.clone());
        assert!(matches!(t, Entries::Octile16(_)));
        assert_eq!(t.to_wide(), octile);
        assert_eq!(t.get(2), 5 | (3 << 16));
        // 256 straight steps, or 255 diagonal ones, need the wide form.
        for big in [256, 255 << 16] {
            let t = Entries::from_wide(Metric::Octile, vec![1, big]);
            assert!(matches!(t, Entries::Octile(_)), "{big:#x}");
        }
        let t = Entries::from_wide(Metric::Integer, vec![7, 65_534, UNREACHABLE]);
        assert!(matches!(t, Entries::Integer16(_)));
        assert_eq!(t.to_wide(), vec![7, 65_534, UNREACHABLE]);
        assert!(matches!(
            Entries::from_wide(Metric::Integer, vec![65_535]),
            Entries::Integer(_)
        ));
    }

    #[test]
    fn strided_runs_read_the_right_entries() {
        let mut t = Table::new(Metric::Integer, (0..12).collect(), false);
        t.entries = Entries::from_wide(Metric::Integer, {
            let mut e: Vec<Packed> = (0..12).collect();
            e[7] = UNREACHABLE;
            e
        });
        let mut seen = Vec::new();
        t.for_each(1, 4, 3, None, |k, d| seen.push((k, d)));
        assert_eq!(seen, vec![(0, 1), (1, 4), (3, 10)]);
        t.via_border.set(4, true);
        seen.clear();
        t.for_each(1, 4, 3, Some(&t.via_border), |k, d| seen.push((k, d)));
        assert_eq!(seen, vec![(0, 1), (3, 10)]);
        let mut keep = Bits::new(4);
        for k in [0, 1, 3] {
            keep.set(k, true);
        }
        seen.clear();
        t.for_each_open(2, 4, &t.via_border, Some(&keep), |k, d| seen.push((k, d)));
        assert_eq!(
            seen,
            vec![(0, 2), (1, 3), (3, 5)],
            "4 is skipped, 5 not kept"
        );
        // Runs longer than a word, starting off a word boundary.
        let big = Table::new(Metric::Integer, (0..300).collect(), false);
        let mut n = 0;
        big.for_each_open(70, 200, &big.via_border, None, |k, d| {
            assert_eq!(d as usize, 70 + k);
            n += 1;
        });
        assert_eq!(n, 200);
        assert!(!t.is_valid_for(Metric::Octile, false));
        assert!(t.is_valid_for(Metric::Integer, false));
        assert!(!t.is_valid_for(Metric::Integer, true));
    }
}
