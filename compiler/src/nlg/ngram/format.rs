//! The on-disk n-gram database (`.ngr`): a sorted trie of integer n-grams, bit-packed, read in
//! place through a memory map. See docs/formats/sentence.md ("N-gram database") for the layout.
//!
//! Lookup of `C(w1 w2 w3)`: the vocabulary maps words to ids (binary search over ids sorted by
//! spelling); `L2_START[w1] .. L2_START[w1+1]` is the range of bigrams starting with `w1`,
//! sorted by `w2` (binary search); `L3_START[j] .. L3_START[j+1]` is the range of trigrams
//! extending bigram `j`, sorted by `w3` (binary search). Counts are indices into a codebook of
//! the distinct count values, so a trigram costs `bits(V) + bits(distinct counts)` bits plus its
//! share of the bigram level.
//!
//! Opening a file checks the header, the section table, the CRC-32 of every byte and the
//! monotonicity of the offset arrays, so a corrupt file is refused with a message. Every read
//! after that is still bounds-checked: no byte sequence makes a lookup panic.

use super::packed::{Packed, PackedWriter, bits_for, packed_len};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use thiserror::Error;

pub const MAGIC: [u8; 8] = [0x89, b'N', b'G', b'R', b'\r', b'\n', 0x1a, b'\n'];
pub const VERSION: u16 = 1;
const HEADER_LEN: u64 = 64;
const SECTION_ENTRY: u64 = 32;

/// The sections, in file order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Section {
    VocabOffsets = 1,
    VocabBlob = 2,
    VocabSorted = 3,
    Codebook = 4,
    Count1 = 5,
    L2Start = 6,
    W2 = 7,
    Count2 = 8,
    L3Start = 9,
    W3 = 10,
    Count3 = 11,
}

const SECTIONS: [Section; 11] = [
    Section::VocabOffsets,
    Section::VocabBlob,
    Section::VocabSorted,
    Section::Codebook,
    Section::Count1,
    Section::L2Start,
    Section::W2,
    Section::Count2,
    Section::L3Start,
    Section::W3,
    Section::Count3,
];

impl Section {
    pub fn name(self) -> &'static str {
        match self {
            Section::VocabOffsets => "vocabulary offsets",
            Section::VocabBlob => "vocabulary text",
            Section::VocabSorted => "vocabulary index",
            Section::Codebook => "count codebook",
            Section::Count1 => "unigram counts",
            Section::L2Start => "bigram ranges",
            Section::W2 => "bigram words",
            Section::Count2 => "bigram counts",
            Section::L3Start => "trigram ranges",
            Section::W3 => "trigram words",
            Section::Count3 => "trigram counts",
        }
    }
}

/// Why an n-gram file was refused.
#[derive(Debug, Error)]
pub enum NgramError {
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    #[error("{0} is not an Ensemble n-gram database (.ngr): wrong magic bytes")]
    BadMagic(String),
    #[error(
        "{path}: n-gram format version {found} is not supported (this build reads {VERSION}); rebuild it with `ensemble ngram build`"
    )]
    Version { path: String, found: u16 },
    #[error("{path} is truncated ({actual} bytes, the header needs {expected})")]
    Truncated {
        path: String,
        expected: u64,
        actual: u64,
    },
    #[error(
        "{path}: checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is corrupt"
    )]
    Checksum {
        path: String,
        stored: u32,
        computed: u32,
    },
    #[error("{path} is corrupt: {message}")]
    Corrupt { path: String, message: String },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct SectionEntry {
    bits: u32,
    items: u64,
    offset: u64,
    bytes: u64,
}

/// Sizes of a database, for reports and BENCHMARKS.md.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub vocabulary: u64,
    pub bigrams: u64,
    pub trigrams: u64,
    /// Sum of all unigram counts (tokens, sentence markers included).
    pub total: u64,
    pub file_bytes: u64,
    /// `(section name, bytes, bits per item)`.
    pub sections: Vec<(&'static str, u64, u32)>,
    pub distinct_counts: u64,
}

impl Stats {
    /// Bytes the trigram level takes per trigram (words, counts and ranges into it), the figure
    /// comparable with Hewlett's 16 bytes per trigram.
    pub fn trigram_bytes_per_trigram(&self) -> f64 {
        let t: u64 = self
            .sections
            .iter()
            .filter(|(n, _, _)| {
                *n == Section::W3.name()
                    || *n == Section::Count3.name()
                    || *n == Section::L3Start.name()
            })
            .map(|(_, b, _)| b)
            .sum();
        t as f64 / self.trigrams.max(1) as f64
    }
}

enum Backing {
    Mapped(memmap2::Mmap),
    Owned(Vec<u8>),
}

impl Backing {
    fn bytes(&self) -> &[u8] {
        match self {
            Backing::Mapped(m) => m,
            Backing::Owned(v) => v,
        }
    }
}

/// An open n-gram database.
pub struct NgramDb {
    backing: Backing,
    sections: [SectionEntry; 11],
    vocabulary: u64,
    bigrams: u64,
    trigrams: u64,
    total: u64,
    /// Kneser-Ney statistics, gathered on first use (one pass over the trie).
    kneser_ney: std::sync::OnceLock<super::kneser_ney::KneserNey>,
}

fn le_u16(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}
fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}
fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl NgramDb {
    /// Maps and verifies a `.ngr` file.
    pub fn open(path: &Path) -> Result<Self, NgramError> {
        let shown = path.display().to_string();
        let io = |e: io::Error| NgramError::Io {
            path: shown.clone(),
            message: e.to_string(),
        };
        let file = File::open(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        if len < HEADER_LEN {
            return Err(NgramError::Truncated {
                path: shown,
                expected: HEADER_LEN,
                actual: len,
            });
        }
        // SAFETY: the map is read-only and private to this process; the file is replaced only by
        // atomic rename (a new inode), never rewritten in place by Ensemble. Every read through
        // it is bounds-checked.
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(io)?;
        Self::verify(Backing::Mapped(map), &shown)
    }

    /// Verifies a database held in memory.
    pub fn from_bytes(bytes: Vec<u8>, name: &str) -> Result<Self, NgramError> {
        Self::verify(Backing::Owned(bytes), name)
    }

    fn verify(backing: Backing, path: &str) -> Result<Self, NgramError> {
        let b = backing.bytes();
        let corrupt = |message: String| NgramError::Corrupt {
            path: path.to_string(),
            message,
        };
        if b.len() < MAGIC.len() || b[..8] != MAGIC {
            return Err(NgramError::BadMagic(path.to_string()));
        }
        let table_end = HEADER_LEN + SECTION_ENTRY * SECTIONS.len() as u64;
        if (b.len() as u64) < table_end {
            return Err(NgramError::Truncated {
                path: path.to_string(),
                expected: table_end,
                actual: b.len() as u64,
            });
        }
        let version = le_u16(b, 8);
        if version != VERSION {
            return Err(NgramError::Version {
                path: path.to_string(),
                found: version,
            });
        }
        if le_u16(b, 10) != 3 || le_u32(b, 12) as usize != SECTIONS.len() {
            return Err(corrupt("unexpected order or section count".into()));
        }
        if let Some(offset) = (52..HEADER_LEN as usize).find(|&i| b[i] != 0) {
            return Err(corrupt(format!(
                "header byte {offset} is reserved and must be zero, but is {:#04x}",
                b[offset]
            )));
        }
        let stored = le_u32(b, 48);
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&b[8..48]);
        hasher.update(&b[HEADER_LEN as usize..]);
        let computed = hasher.finalize();
        if stored != computed {
            return Err(NgramError::Checksum {
                path: path.to_string(),
                stored,
                computed,
            });
        }
        let (vocabulary, bigrams, trigrams, total) =
            (le_u64(b, 16), le_u64(b, 24), le_u64(b, 32), le_u64(b, 40));
        let mut sections = [SectionEntry::default(); 11];
        for (i, s) in SECTIONS.iter().enumerate() {
            let at = (HEADER_LEN + SECTION_ENTRY * i as u64) as usize;
            if le_u32(b, at) != *s as u32 {
                return Err(corrupt(format!("section {} is out of place", i + 1)));
            }
            let e = SectionEntry {
                bits: le_u32(b, at + 4),
                items: le_u64(b, at + 8),
                offset: le_u64(b, at + 16),
                bytes: le_u64(b, at + 24),
            };
            let expected_items = match s {
                Section::VocabOffsets | Section::L2Start => vocabulary.checked_add(1),
                Section::VocabSorted | Section::Count1 => Some(vocabulary),
                Section::W2 | Section::Count2 => Some(bigrams),
                Section::L3Start => bigrams.checked_add(1),
                Section::W3 | Section::Count3 => Some(trigrams),
                Section::VocabBlob | Section::Codebook => Some(e.items),
            };
            if Some(e.items) != expected_items {
                return Err(corrupt(format!("the {} has {} items", s.name(), e.items)));
            }
            let need = match s {
                Section::VocabBlob => Some(e.items),
                Section::Codebook => e.items.checked_mul(8),
                _ if (1..=57).contains(&e.bits) => e
                    .items
                    .checked_mul(e.bits as u64)
                    .map(|_| packed_len(e.items, e.bits)),
                _ => return Err(corrupt(format!("the {} has width {}", s.name(), e.bits))),
            };
            let end = e.offset.checked_add(e.bytes);
            if need.is_none_or(|n| e.bytes < n)
                || end.is_none_or(|end| end > b.len() as u64)
                || e.offset < table_end
            {
                return Err(corrupt(format!("the {} does not fit the file", s.name())));
            }
            sections[i] = e;
        }
        let db = NgramDb {
            backing,
            sections,
            vocabulary,
            bigrams,
            trigrams,
            total,
            kneser_ney: std::sync::OnceLock::new(),
        };
        db.check_monotone(
            Section::VocabOffsets,
            db.entry(Section::VocabBlob).items,
            path,
        )?;
        db.check_monotone(Section::L2Start, bigrams, path)?;
        db.check_monotone(Section::L3Start, trigrams, path)?;
        if std::str::from_utf8(db.section(Section::VocabBlob)).is_err() {
            return Err(corrupt("the vocabulary is not UTF-8".into()));
        }
        Ok(db)
    }

    fn check_monotone(&self, s: Section, last: u64, path: &str) -> Result<(), NgramError> {
        let p = self.packed(s);
        let mut prev = 0;
        for i in 0..p.len {
            let v = p.get(i).unwrap_or(u64::MAX);
            if v < prev || v > last {
                return Err(NgramError::Corrupt {
                    path: path.to_string(),
                    message: format!("the {} are not increasing at item {i}", s.name()),
                });
            }
            prev = v;
        }
        if p.len > 0 && prev != last {
            return Err(NgramError::Corrupt {
                path: path.to_string(),
                message: format!("the {} do not end at {last}", s.name()),
            });
        }
        Ok(())
    }

    fn entry(&self, s: Section) -> SectionEntry {
        self.sections[s as usize - 1]
    }

    fn section(&self, s: Section) -> &[u8] {
        let e = self.entry(s);
        let b = self.backing.bytes();
        &b[e.offset as usize..(e.offset + e.bytes) as usize]
    }

    fn packed(&self, s: Section) -> Packed<'_> {
        let e = self.entry(s);
        Packed {
            data: self.section(s),
            bits: e.bits,
            len: e.items,
        }
    }

    pub fn vocabulary(&self) -> u64 {
        self.vocabulary
    }

    /// Sum of the unigram counts.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The word with id `id`.
    pub fn word(&self, id: u32) -> Option<&str> {
        let offs = self.packed(Section::VocabOffsets);
        let (a, b) = (offs.get(id as u64)?, offs.get(id as u64 + 1)?);
        let blob = self.section(Section::VocabBlob);
        std::str::from_utf8(blob.get(a as usize..b as usize)?).ok()
    }

    /// The id of `word` (exact spelling: words are stored lower-cased).
    pub fn word_id(&self, word: &str) -> Option<u32> {
        let sorted = self.packed(Section::VocabSorted);
        let (mut lo, mut hi) = (0u64, sorted.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let id = sorted.get(mid)? as u32;
            match self.word(id)?.as_bytes().cmp(word.as_bytes()) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(id),
            }
        }
        None
    }

    fn decode(&self, index: Option<u64>) -> u64 {
        let cb = self.section(Section::Codebook);
        index
            .and_then(|i| cb.get(i as usize * 8..i as usize * 8 + 8))
            .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
            .unwrap_or(0)
    }

    /// The bigram index of `(w1, w2)`.
    fn bigram(&self, w1: u32, w2: u32) -> Option<u64> {
        let starts = self.packed(Section::L2Start);
        let (lo, hi) = (starts.get(w1 as u64)?, starts.get(w1 as u64 + 1)?);
        self.packed(Section::W2).search(lo, hi, w2 as u64)
    }

    /// Count of the n-gram `ids` (1 to 3 word ids); 0 when unseen.
    pub fn count(&self, ids: &[u32]) -> u64 {
        match *ids {
            [w] => self.decode(self.packed(Section::Count1).get(w as u64)),
            [w1, w2] => self.decode(
                self.bigram(w1, w2)
                    .and_then(|j| self.packed(Section::Count2).get(j)),
            ),
            [w1, w2, w3] => {
                let Some(j) = self.bigram(w1, w2) else {
                    return 0;
                };
                let starts = self.packed(Section::L3Start);
                let (Some(lo), Some(hi)) = (starts.get(j), starts.get(j + 1)) else {
                    return 0;
                };
                let k = self.packed(Section::W3).search(lo, hi, w3 as u64);
                self.decode(k.and_then(|k| self.packed(Section::Count3).get(k)))
            }
            _ => 0,
        }
    }

    /// How many distinct words follow the n-gram `ids` (1 or 2 word ids): `N1+(w •)` and
    /// `N1+(w1 w2 •)`, read off the trie's ranges.
    pub fn continuations(&self, ids: &[u32]) -> u64 {
        let range = |p: Packed<'_>, i: u64| match (p.get(i), p.get(i + 1)) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => 0,
        };
        match *ids {
            [w] => range(self.packed(Section::L2Start), w as u64),
            [w1, w2] => self
                .bigram(w1, w2)
                .map_or(0, |j| range(self.packed(Section::L3Start), j)),
            _ => 0,
        }
    }

    /// The modified Kneser-Ney model of these counts (built once, on first use).
    pub fn kneser_ney(&self) -> &super::kneser_ney::KneserNey {
        self.kneser_ney
            .get_or_init(|| super::kneser_ney::KneserNey::new(self))
    }

    /// Visits every n-gram of `order` (1..=3) in id order with its count.
    pub fn for_each(&self, order: usize, mut f: impl FnMut(&[u32], u64)) {
        let c1 = self.packed(Section::Count1);
        let l2 = self.packed(Section::L2Start);
        let w2 = self.packed(Section::W2);
        let c2 = self.packed(Section::Count2);
        let l3 = self.packed(Section::L3Start);
        let w3 = self.packed(Section::W3);
        let c3 = self.packed(Section::Count3);
        for a in 0..self.vocabulary {
            if order == 1 {
                f(&[a as u32], self.decode(c1.get(a)));
                continue;
            }
            let (lo, hi) = (l2.get(a).unwrap_or(0), l2.get(a + 1).unwrap_or(0));
            for j in lo..hi {
                let b = w2.get(j).unwrap_or(0) as u32;
                if order == 2 {
                    f(&[a as u32, b], self.decode(c2.get(j)));
                    continue;
                }
                let (lo3, hi3) = (l3.get(j).unwrap_or(0), l3.get(j + 1).unwrap_or(0));
                for k in lo3..hi3 {
                    let c = w3.get(k).unwrap_or(0) as u32;
                    f(&[a as u32, b, c], self.decode(c3.get(k)));
                }
            }
        }
    }

    pub fn stats(&self) -> Stats {
        Stats {
            vocabulary: self.vocabulary,
            bigrams: self.bigrams,
            trigrams: self.trigrams,
            total: self.total,
            file_bytes: self.backing.bytes().len() as u64,
            sections: SECTIONS
                .iter()
                .map(|s| (s.name(), self.entry(*s).bytes, self.entry(*s).bits))
                .collect(),
            distinct_counts: self.entry(Section::Codebook).items,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writing

/// A bigram record of the build's intermediate file: the bigram, its count, and how many
/// trigrams extend it.
pub const BIGRAM_RECORD: usize = 4 + 4 + 8 + 8;
/// A trigram record: three ids and the count.
pub const TRIGRAM_RECORD: usize = 4 * 3 + 8;

pub fn write_bigram(w: &mut impl Write, a: u32, b: u32, count: u64, ext: u64) -> io::Result<()> {
    w.write_all(&a.to_le_bytes())?;
    w.write_all(&b.to_le_bytes())?;
    w.write_all(&count.to_le_bytes())?;
    w.write_all(&ext.to_le_bytes())
}

pub fn write_trigram(w: &mut impl Write, k: [u32; 3], count: u64) -> io::Result<()> {
    for x in k {
        w.write_all(&x.to_le_bytes())?;
    }
    w.write_all(&count.to_le_bytes())
}

fn read_exact_or_eof<const N: usize>(r: &mut impl Read) -> io::Result<Option<[u8; N]>> {
    let mut buf = [0u8; N];
    let mut filled = 0;
    while filled < N {
        let n = r.read(&mut buf[filled..])?;
        if n == 0 {
            return if filled == 0 {
                Ok(None)
            } else {
                Err(io::Error::new(io::ErrorKind::UnexpectedEof, "short record"))
            };
        }
        filled += n;
    }
    Ok(Some(buf))
}

/// Everything the writer needs, produced by the builder.
pub struct Parts<'a> {
    pub words: &'a [String],
    pub unigrams: &'a [u64],
    /// Number of bigrams starting with each word.
    pub bigrams_per_word: &'a [u64],
    /// Sorted bigram records ([`BIGRAM_RECORD`]), rewound.
    pub bigram_file: &'a mut File,
    pub bigrams: u64,
    /// Sorted trigram records ([`TRIGRAM_RECORD`]), rewound.
    pub trigram_file: &'a mut File,
    pub trigrams: u64,
    /// Distinct counts, ascending.
    pub codebook: &'a [u64],
}

/// A writer that hashes what passes through it.
struct Hashing<W: Write> {
    inner: W,
    hasher: crc32fast::Hasher,
    written: u64,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

fn finish_hashing<W: Write>(mut w: Hashing<W>) -> io::Result<(u32, u64)> {
    w.inner.flush()?;
    Ok((w.hasher.finalize(), w.written))
}

/// Writes the database to `out` (positioned at 0). Returns the file length.
pub fn write(out: &mut File, p: Parts<'_>) -> io::Result<u64> {
    let v = p.words.len() as u64;
    let blob_len: u64 = p.words.iter().map(|w| w.len() as u64).sum();
    let code = |c: u64| -> u64 {
        p.codebook
            .binary_search(&c)
            .expect("every count is in the codebook") as u64
    };
    let count_bits = bits_for(p.codebook.len().saturating_sub(1) as u64);
    let word_bits = bits_for(v.saturating_sub(1));
    let layout: [(Section, u32, u64); 11] = [
        (Section::VocabOffsets, bits_for(blob_len), v + 1),
        (Section::VocabBlob, 8, blob_len),
        (Section::VocabSorted, word_bits, v),
        (Section::Codebook, 64, p.codebook.len() as u64),
        (Section::Count1, count_bits, v),
        (Section::L2Start, bits_for(p.bigrams), v + 1),
        (Section::W2, word_bits, p.bigrams),
        (Section::Count2, count_bits, p.bigrams),
        (Section::L3Start, bits_for(p.trigrams), p.bigrams + 1),
        (Section::W3, word_bits, p.trigrams),
        (Section::Count3, count_bits, p.trigrams),
    ];
    let size = |s: Section, bits: u32, items: u64| match s {
        Section::VocabBlob => items,
        Section::Codebook => items * 8,
        _ => packed_len(items, bits),
    };
    let mut entries = Vec::new();
    let mut offset = HEADER_LEN + SECTION_ENTRY * 11;
    for (s, bits, items) in layout {
        let bytes = size(s, bits, items);
        entries.push((s, bits, items, offset, bytes));
        offset = (offset + bytes).div_ceil(8) * 8;
    }
    let mut header = Vec::with_capacity(HEADER_LEN as usize);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&3u16.to_le_bytes());
    header.extend_from_slice(&11u32.to_le_bytes());
    header.extend_from_slice(&v.to_le_bytes());
    header.extend_from_slice(&p.bigrams.to_le_bytes());
    header.extend_from_slice(&p.trigrams.to_le_bytes());
    let total = p.unigrams.iter().fold(0u64, |a, c| a.saturating_add(*c));
    header.extend_from_slice(&total.to_le_bytes());
    // The checksum covers the header fields (bytes 8..48) and everything after the header.
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&header[8..48]);
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&[0u8; HEADER_LEN as usize])?;
    let mut w = Hashing {
        inner: BufWriter::with_capacity(1 << 20, &mut *out),
        hasher,
        written: HEADER_LEN,
    };
    for &(s, bits, items, off, bytes) in &entries {
        w.write_all(&(s as u32).to_le_bytes())?;
        w.write_all(&bits.to_le_bytes())?;
        w.write_all(&items.to_le_bytes())?;
        w.write_all(&off.to_le_bytes())?;
        w.write_all(&bytes.to_le_bytes())?;
    }
    for &(s, bits, _, off, bytes) in &entries {
        while w.written < off {
            w.write_all(&[0])?;
        }
        let start = w.written;
        match s {
            Section::VocabOffsets => {
                let mut pw = PackedWriter::new(&mut w, bits);
                let mut acc = 0u64;
                pw.push(0)?;
                for word in p.words {
                    acc += word.len() as u64;
                    pw.push(acc)?;
                }
                pw.finish()?;
            }
            Section::VocabBlob => {
                for word in p.words {
                    w.write_all(word.as_bytes())?;
                }
            }
            Section::VocabSorted => {
                let mut ids: Vec<u32> = (0..v as u32).collect();
                ids.sort_by(|a, b| {
                    p.words[*a as usize]
                        .as_bytes()
                        .cmp(p.words[*b as usize].as_bytes())
                });
                let mut pw = PackedWriter::new(&mut w, bits);
                for id in ids {
                    pw.push(id as u64)?;
                }
                pw.finish()?;
            }
            Section::Codebook => {
                for c in p.codebook {
                    w.write_all(&c.to_le_bytes())?;
                }
            }
            Section::Count1 => {
                let mut pw = PackedWriter::new(&mut w, bits);
                for &c in p.unigrams {
                    pw.push(code(c))?;
                }
                pw.finish()?;
            }
            Section::L2Start => {
                let mut pw = PackedWriter::new(&mut w, bits);
                let mut acc = 0;
                pw.push(0)?;
                for &n in p.bigrams_per_word {
                    acc += n;
                    pw.push(acc)?;
                }
                pw.finish()?;
            }
            Section::W2 | Section::Count2 | Section::L3Start => {
                p.bigram_file.seek(SeekFrom::Start(0))?;
                let mut r = BufReader::with_capacity(1 << 20, &mut *p.bigram_file);
                let mut pw = PackedWriter::new(&mut w, bits);
                let mut acc = 0;
                if s == Section::L3Start {
                    pw.push(0)?;
                }
                while let Some(rec) = read_exact_or_eof::<BIGRAM_RECORD>(&mut r)? {
                    let b = u32::from_le_bytes(rec[4..8].try_into().expect("4"));
                    let c = u64::from_le_bytes(rec[8..16].try_into().expect("8"));
                    let ext = u64::from_le_bytes(rec[16..24].try_into().expect("8"));
                    match s {
                        Section::W2 => pw.push(b as u64)?,
                        Section::Count2 => pw.push(code(c))?,
                        _ => {
                            acc += ext;
                            pw.push(acc)?;
                        }
                    }
                }
                pw.finish()?;
            }
            Section::W3 | Section::Count3 => {
                p.trigram_file.seek(SeekFrom::Start(0))?;
                let mut r = BufReader::with_capacity(1 << 20, &mut *p.trigram_file);
                let mut pw = PackedWriter::new(&mut w, bits);
                while let Some(rec) = read_exact_or_eof::<TRIGRAM_RECORD>(&mut r)? {
                    if s == Section::W3 {
                        pw.push(u32::from_le_bytes(rec[8..12].try_into().expect("4")) as u64)?;
                    } else {
                        pw.push(code(u64::from_le_bytes(rec[12..20].try_into().expect("8"))))?;
                    }
                }
                pw.finish()?;
            }
        }
        debug_assert_eq!(w.written - start, bytes, "section {}", s.name());
    }
    let (crc, total_len) = finish_hashing(w)?;
    header.extend_from_slice(&crc.to_le_bytes());
    header.resize(HEADER_LEN as usize, 0);
    out.seek(SeekFrom::Start(0))?;
    out.write_all(&header)?;
    out.flush()?;
    Ok(total_len)
}
