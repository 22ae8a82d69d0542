//! Fixed-width bit-packed integer arrays: `bits` bits per item, little-endian bit order, padded
//! with 8 zero bytes so any item is read with one unaligned 64-bit load.

use std::io::{self, Write};

/// Bits needed to store every value in `0..=max` (at least 1).
pub fn bits_for(max: u64) -> u32 {
    (64 - max.leading_zeros()).max(1)
}

/// Bytes a packed array of `len` items of `bits` bits occupies on disk (with padding).
pub fn packed_len(len: u64, bits: u32) -> u64 {
    (len * bits as u64).div_ceil(8) + 8
}

/// A read-only view of a packed array.
#[derive(Clone, Copy, Debug)]
pub struct Packed<'a> {
    pub data: &'a [u8],
    pub bits: u32,
    pub len: u64,
}

impl Packed<'_> {
    /// Item `i`, or `None` when `i` is out of range or the data is short (a corrupt file).
    #[inline]
    pub fn get(&self, i: u64) -> Option<u64> {
        if i >= self.len {
            return None;
        }
        let bit = i * self.bits as u64;
        let byte = (bit / 8) as usize;
        let word = self.data.get(byte..byte + 8)?;
        let raw = u64::from_le_bytes(word.try_into().ok()?);
        let mask = if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        };
        Some((raw >> (bit % 8)) & mask)
    }

    /// Binary search for `key` among items `lo..hi`, which must be sorted ascending.
    #[inline]
    pub fn search(&self, mut lo: u64, mut hi: u64, key: u64) -> Option<u64> {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let v = self.get(mid)?;
            match v.cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

/// Streams items into a writer, packed.
pub struct PackedWriter<W: Write> {
    out: W,
    bits: u32,
    acc: u128,
    filled: u32,
    written: u64,
}

impl<W: Write> PackedWriter<W> {
    /// `bits` must be 1..=57 (so that readers need one 64-bit load per item).
    pub fn new(out: W, bits: u32) -> Self {
        assert!((1..=57).contains(&bits), "packed width {bits} out of range");
        PackedWriter {
            out,
            bits,
            acc: 0,
            filled: 0,
            written: 0,
        }
    }

    pub fn push(&mut self, value: u64) -> io::Result<()> {
        debug_assert!(
            value >> self.bits == 0,
            "{value} does not fit {} bits",
            self.bits
        );
        self.acc |= (value as u128) << self.filled;
        self.filled += self.bits;
        while self.filled >= 8 {
            self.out.write_all(&[self.acc as u8])?;
            self.acc >>= 8;
            self.filled -= 8;
            self.written += 1;
        }
        Ok(())
    }

    /// Flushes the last partial byte and the padding; returns the writer and the bytes written.
    pub fn finish(mut self) -> io::Result<(W, u64)> {
        if self.filled > 0 {
            self.out.write_all(&[self.acc as u8])?;
            self.written += 1;
        }
        self.out.write_all(&[0u8; 8])?;
        self.written += 8;
        Ok((self.out, self.written))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn round_trip(values in proptest::collection::vec(any::<u64>(), 0..200), bits in 1u32..=57) {
            let mask = (1u64 << bits) - 1;
            let values: Vec<u64> = values.into_iter().map(|v| v & mask).collect();
            let mut w = PackedWriter::new(Vec::new(), bits);
            for &v in &values {
                w.push(v).unwrap();
            }
            let (data, n) = w.finish().unwrap();
            prop_assert_eq!(n, packed_len(values.len() as u64, bits));
            prop_assert_eq!(data.len() as u64, n);
            let p = Packed { data: &data, bits, len: values.len() as u64 };
            for (i, &v) in values.iter().enumerate() {
                prop_assert_eq!(p.get(i as u64), Some(v));
            }
            prop_assert_eq!(p.get(values.len() as u64), None);
        }

        #[test]
        fn search_finds_present_keys(mut values in proptest::collection::btree_set(0u64..10_000, 0..100)) {
            let sorted: Vec<u64> = std::mem::take(&mut values).into_iter().collect();
            let mut w = PackedWriter::new(Vec::new(), bits_for(10_000));
            for &v in &sorted { w.push(v).unwrap(); }
            let (data, _) = w.finish().unwrap();
            let p = Packed { data: &data, bits: bits_for(10_000), len: sorted.len() as u64 };
            for (i, &v) in sorted.iter().enumerate() {
                prop_assert_eq!(p.search(0, sorted.len() as u64, v), Some(i as u64));
            }
            if !sorted.contains(&5000) {
                prop_assert_eq!(p.search(0, sorted.len() as u64, 5000), None);
            }
        }
    }

    #[test]
    fn short_data_is_none_not_a_panic() {
        let p = Packed {
            data: &[1, 2, 3],
            bits: 7,
            len: 10,
        };
        assert_eq!(p.get(0), None);
    }
}
