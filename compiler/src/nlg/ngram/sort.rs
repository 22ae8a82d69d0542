//! Counting n-grams with an external sort, for inputs whose distinct n-grams do not fit in
//! memory.
//!
//! Counts accumulate in a hash map (most n-grams repeat, so this shrinks the data a lot). When
//! the map holds `capacity` distinct keys it is sorted and spilled to an anonymous temporary file
//! (a *run*). At the end the runs are merged with a k-way heap merge that sums the counts of
//! equal keys, exactly as Hewlett merged the case-folded duplicates of Web1T (§3.3.2).

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};
use std::path::{Path, PathBuf};

pub struct Counter<const K: usize> {
    map: HashMap<[u32; K], u64>,
    capacity: usize,
    runs: Vec<File>,
    dir: Option<PathBuf>,
}

fn write_record<const K: usize>(w: &mut impl Write, key: &[u32; K], count: u64) -> io::Result<()> {
    for k in key {
        w.write_all(&k.to_le_bytes())?;
    }
    w.write_all(&count.to_le_bytes())
}

fn read_record<const K: usize>(r: &mut impl Read) -> io::Result<Option<([u32; K], u64)>> {
    let mut buf = [0u8; 8];
    let mut key = [0u32; K];
    for (i, k) in key.iter_mut().enumerate() {
        match r.read_exact(&mut buf[..4]) {
            Ok(()) => *k = u32::from_le_bytes(buf[..4].try_into().expect("4 bytes")),
            Err(e) if i == 0 && e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
    }
    r.read_exact(&mut buf)?;
    Ok(Some((key, u64::from_le_bytes(buf))))
}

impl<const K: usize> Counter<K> {
    /// `capacity`: distinct keys held in memory before spilling; `dir`: where runs go
    /// (the system temporary folder when `None`).
    pub fn new(capacity: usize, dir: Option<&Path>) -> Self {
        Counter {
            map: HashMap::new(),
            capacity: capacity.max(1),
            runs: Vec::new(),
            dir: dir.map(Path::to_path_buf),
        }
    }

    pub fn add(&mut self, key: [u32; K], count: u64) -> io::Result<()> {
        let c = self.map.entry(key).or_insert(0);
        *c = c.saturating_add(count);
        if self.map.len() >= self.capacity {
            self.spill()?;
        }
        Ok(())
    }

    /// Runs spilled so far.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    fn sorted(&mut self) -> Vec<([u32; K], u64)> {
        let mut v: Vec<_> = self.map.drain().collect();
        v.sort_unstable_by_key(|(k, _)| *k);
        v
    }

    fn spill(&mut self) -> io::Result<()> {
        let records = self.sorted();
        let file = match &self.dir {
            Some(d) => tempfile::tempfile_in(d)?,
            None => tempfile::tempfile()?,
        };
        let mut w = BufWriter::with_capacity(1 << 20, file);
        for (k, c) in &records {
            write_record(&mut w, k, *c)?;
        }
        let mut file = w.into_inner().map_err(|e| e.into_error())?;
        file.rewind()?;
        self.runs.push(file);
        Ok(())
    }

    /// All keys in ascending order with their summed counts.
    pub fn finish(mut self) -> io::Result<Merged<K>> {
        if self.runs.is_empty() {
            return Ok(Merged::Memory(self.sorted().into_iter()));
        }
        if !self.map.is_empty() {
            self.spill()?;
        }
        let mut readers: Vec<BufReader<File>> = self
            .runs
            .into_iter()
            .map(|f| BufReader::with_capacity(1 << 16, f))
            .collect();
        let mut heap = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some((k, c)) = read_record::<K>(r)? {
                heap.push(Reverse((k, i, c)));
            }
        }
        Ok(Merged::Runs { readers, heap })
    }
}

/// The merged, sorted, de-duplicated stream of a [`Counter`].
pub enum Merged<const K: usize> {
    Memory(std::vec::IntoIter<([u32; K], u64)>),
    Runs {
        readers: Vec<BufReader<File>>,
        heap: BinaryHeap<Reverse<([u32; K], usize, u64)>>,
    },
}

impl<const K: usize> Merged<K> {
    fn pop(
        readers: &mut [BufReader<File>],
        heap: &mut BinaryHeap<Reverse<([u32; K], usize, u64)>>,
    ) -> io::Result<Option<([u32; K], u64)>> {
        let Some(Reverse((k, i, c))) = heap.pop() else {
            return Ok(None);
        };
        if let Some((nk, nc)) = read_record::<K>(&mut readers[i])? {
            heap.push(Reverse((nk, i, nc)));
        }
        Ok(Some((k, c)))
    }
}

impl<const K: usize> Iterator for Merged<K> {
    type Item = io::Result<([u32; K], u64)>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Merged::Memory(it) => it.next().map(Ok),
            Merged::Runs { readers, heap } => {
                let (key, mut count) = match Self::pop(readers, heap) {
                    Ok(Some(x)) => x,
                    Ok(None) => return None,
                    Err(e) => return Some(Err(e)),
                };
                // Sum the same key across runs.
                while let Some(Reverse((k, _, _))) = heap.peek() {
                    if *k != key {
                        break;
                    }
                    match Self::pop(readers, heap) {
                        Ok(Some((_, c))) => count = count.saturating_add(c),
                        Ok(None) => break,
                        Err(e) => return Some(Err(e)),
                    }
                }
                Some(Ok((key, count)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    proptest! {
        /// Spilling to runs gives exactly the in-memory answer.
        #[test]
        fn external_equals_in_memory(items in proptest::collection::vec(((0u32..20, 0u32..20), 1u64..5), 0..400), cap in 1usize..40) {
            let mut expected: BTreeMap<[u32; 2], u64> = BTreeMap::new();
            let mut c = Counter::<2>::new(cap, None);
            for ((a, b), n) in &items {
                *expected.entry([*a, *b]).or_default() += n;
                c.add([*a, *b], *n).unwrap();
            }
            let got: Vec<([u32; 2], u64)> = c.finish().unwrap().map(Result::unwrap).collect();
            let want: Vec<([u32; 2], u64)> = expected.into_iter().collect();
            prop_assert_eq!(got, want);
        }
    }
}
