//! Building an n-gram database from plain text or from Web1T-style count files.
//!
//! Words are interned to ids as they are first seen (the vocabulary is held in memory, the
//! n-grams are not: see [`sort`](super::sort)). With a dictionary, words outside it are dropped
//! together with every n-gram that contains them, as Hewlett filtered Web1T with SCOWL
//! (§3.3.2); `<s>` and `</s>` are always in. Counts of duplicate n-grams are summed.
//!
//! The database is complete as a trie: a trigram whose bigram prefix was never counted (possible
//! with count files) gets that bigram with the sum of its extensions' counts, and likewise for
//! unigrams, so lookups and back-off see consistent marginals.

use super::format::{self, Parts};
use super::sort::Counter;
use super::tokenise::{BOS, EOS};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Bytes of memory one distinct n-gram costs while counting (hash map entry and overhead).
const BYTES_PER_ENTRY: usize = 64;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Memory for counting before spilling sorted runs to disk, in bytes.
    pub memory: usize,
    /// Where runs and intermediate files go (default: the output's folder).
    pub temp_dir: Option<PathBuf>,
    /// Keep only n-grams made of these words (lower-cased), plus `<s>` and `</s>`.
    pub dictionary: Option<HashSet<String>>,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            memory: 512 << 20,
            temp_dir: None,
            dictionary: None,
        }
    }
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildReport {
    pub sentences: u64,
    pub tokens: u64,
    /// Tokens dropped by the dictionary filter.
    pub out_of_dictionary: u64,
    pub vocabulary: u64,
    pub bigrams: u64,
    pub trigrams: u64,
    /// Sorted runs spilled to disk (0: everything fit in memory).
    pub runs: usize,
    pub bytes: u64,
}

pub struct Builder {
    ids: HashMap<String, u32>,
    words: Vec<String>,
    unigrams: Vec<u64>,
    bigrams: Counter<2>,
    trigrams: Counter<3>,
    dictionary: Option<HashSet<String>>,
    temp_dir: Option<PathBuf>,
    report: BuildReport,
}

impl Builder {
    pub fn new(options: BuildOptions) -> Self {
        let entries = (options.memory / BYTES_PER_ENTRY).max(16);
        let dir = options.temp_dir.as_deref();
        let mut b = Builder {
            ids: HashMap::new(),
            words: Vec::new(),
            unigrams: Vec::new(),
            bigrams: Counter::new(entries / 3, dir),
            trigrams: Counter::new(entries - entries / 3, dir),
            dictionary: options.dictionary,
            temp_dir: options.temp_dir,
            report: BuildReport::default(),
        };
        b.intern(BOS);
        b.intern(EOS);
        b
    }

    /// The id of a (lower-cased) word, or `None` when the dictionary excludes it.
    fn intern(&mut self, word: &str) -> Option<u32> {
        if let Some(&id) = self.ids.get(word) {
            return Some(id);
        }
        if let Some(d) = &self.dictionary
            && word != BOS
            && word != EOS
            && !d.contains(word)
        {
            return None;
        }
        let id = self.words.len() as u32;
        self.words.push(word.to_string());
        self.unigrams.push(0);
        self.ids.insert(word.to_string(), id);
        Some(id)
    }

    /// Counts one sentence of lower-cased words (without markers).
    pub fn add_sentence(&mut self, words: &[String]) -> io::Result<()> {
        self.report.sentences += 1;
        let mut ids: Vec<Option<u32>> = Vec::with_capacity(words.len() + 2);
        ids.push(self.intern(BOS));
        for w in words {
            let id = self.intern(w);
            if id.is_none() {
                self.report.out_of_dictionary += 1;
            }
            ids.push(id);
        }
        ids.push(self.intern(EOS));
        self.report.tokens += words.len() as u64;
        for id in ids.iter().flatten() {
            self.unigrams[*id as usize] += 1;
        }
        for w in ids.windows(2) {
            if let [Some(a), Some(b)] = *w {
                self.bigrams.add([a, b], 1)?;
            }
        }
        for w in ids.windows(3) {
            if let [Some(a), Some(b), Some(c)] = *w {
                self.trigrams.add([a, b, c], 1)?;
            }
        }
        Ok(())
    }

    /// Adds a counted n-gram of 1 to 3 words (a Web1T line). Words are lower-cased here, so
    /// case variants merge. Returns `false` when the dictionary filtered it out.
    pub fn add_counted(&mut self, words: &[&str], count: u64) -> io::Result<bool> {
        let mut ids = [0u32; 3];
        for (i, w) in words.iter().enumerate() {
            let w = match *w {
                "<S>" => BOS.to_string(),
                "</S>" => EOS.to_string(),
                w => w.to_lowercase(),
            };
            match self.intern(&w) {
                Some(id) => ids[i] = id,
                None => {
                    self.report.out_of_dictionary += 1;
                    return Ok(false);
                }
            }
        }
        match words.len() {
            1 => {
                let u = &mut self.unigrams[ids[0] as usize];
                *u = u.saturating_add(count);
            }
            2 => self.bigrams.add([ids[0], ids[1]], count)?,
            3 => self.trigrams.add(ids, count)?,
            n => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("{n}-grams are not supported (1 to 3 words)"),
                ));
            }
        }
        // Counts saturate, as the tables do: two lines of u64::MAX are still a count.
        self.report.tokens =
            (self.report.tokens).saturating_add(count.saturating_mul(u64::from(words.len() == 1)));
        Ok(true)
    }

    /// Sentences and tokens so far (for progress reports).
    pub fn progress(&self) -> (u64, u64, usize) {
        (
            self.report.sentences,
            self.report.tokens,
            self.bigrams.runs() + self.trigrams.runs(),
        )
    }

    /// Sorts, merges and writes the database to `out` atomically.
    pub fn finish(mut self, out: &Path) -> io::Result<BuildReport> {
        let dir = match &self.temp_dir {
            Some(d) => d.clone(),
            None => out
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(".")),
        };
        std::fs::create_dir_all(&dir)?;
        self.report.runs = self.bigrams.runs() + self.trigrams.runs();
        let v = self.words.len();
        let mut bigram_file = BufWriter::new(tempfile::tempfile_in(&dir)?);
        let mut trigram_file = BufWriter::new(tempfile::tempfile_in(&dir)?);
        let mut per_word = vec![0u64; v];
        let mut marginal1 = vec![0u64; v];
        let mut codebook = BTreeSet::new();
        let (mut n2, mut n3) = (0u64, 0u64);
        let mut bigrams = self.bigrams.finish()?.peekable();
        let mut trigrams = self.trigrams.finish()?.peekable();
        loop {
            let kb = match bigrams.peek() {
                Some(Ok((k, _))) => Some(*k),
                Some(Err(_)) => return Err(bigrams.next().expect("peeked").expect_err("error")),
                None => None,
            };
            let kp = match trigrams.peek() {
                Some(Ok((k, _))) => Some([k[0], k[1]]),
                Some(Err(_)) => return Err(trigrams.next().expect("peeked").expect_err("error")),
                None => None,
            };
            let current = match (kb, kp) {
                (None, None) => break,
                (Some(a), None) | (None, Some(a)) => a,
                (Some(a), Some(b)) => a.min(b),
            };
            let (mut ext, mut sum) = (0u64, 0u64);
            while let Some(Ok((k, _))) = trigrams.peek() {
                if [k[0], k[1]] != current {
                    break;
                }
                let (k, c) = trigrams.next().expect("peeked")?;
                format::write_trigram(&mut trigram_file, k, c)?;
                codebook.insert(c);
                ext += 1;
                sum = sum.saturating_add(c);
                n3 += 1;
            }
            let count = if kb == Some(current) {
                bigrams.next().expect("peeked")?.1
            } else {
                sum
            };
            format::write_bigram(&mut bigram_file, current[0], current[1], count, ext)?;
            codebook.insert(count);
            per_word[current[0] as usize] += 1;
            marginal1[current[0] as usize] = marginal1[current[0] as usize].saturating_add(count);
            n2 += 1;
        }
        for (u, m) in self.unigrams.iter_mut().zip(&marginal1) {
            if *u == 0 {
                *u = *m;
            }
            codebook.insert(*u);
        }
        let codebook: Vec<u64> = codebook.into_iter().collect();
        let mut bigram_file = bigram_file.into_inner().map_err(|e| e.into_error())?;
        let mut trigram_file = trigram_file.into_inner().map_err(|e| e.into_error())?;
        // Beside the output (a rename is atomic only within one file system), with the
        // permissions every other writer gives and our naming, so a killed build's leftover is
        // cleaned by the next write.
        let mut tmp = ensemble_runtime::fs::temporary_beside(out)?;
        let bytes = format::write(
            tmp.as_file_mut(),
            Parts {
                words: &self.words,
                unigrams: &self.unigrams,
                bigrams_per_word: &per_word,
                bigram_file: &mut bigram_file,
                bigrams: n2,
                trigram_file: &mut trigram_file,
                trigrams: n3,
                codebook: &codebook,
            },
        )?;
        tmp.as_file_mut().flush()?;
        tmp.as_file().sync_all()?;
        tmp.persist(out).map_err(|e| e.error)?;
        self.report.vocabulary = v as u64;
        self.report.bigrams = n2;
        self.report.trigrams = n3;
        self.report.bytes = bytes;
        Ok(self.report)
    }
}

/// Reads a dictionary: one word per line (Debian `wamerican` lists, SCOWL), lower-cased;
/// blank lines and `#` comments are skipped.
pub fn read_dictionary(text: &str) -> HashSet<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(str::to_lowercase)
        .collect()
}

/// Parses one Web1T line `w1 w2 w3<TAB>count`. `Err` says what is wrong with it.
pub fn parse_count_line(line: &str) -> Result<(Vec<&str>, u64), String> {
    let line = line.trim_end_matches(['\r', '\n']);
    let (gram, count) = line.rsplit_once('\t').ok_or("expected `words<TAB>count`")?;
    let count: u64 = count
        .trim()
        .parse()
        .map_err(|_| format!("`{}` is not a count", count.trim()))?;
    let words: Vec<&str> = gram.split(' ').filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > 3 {
        return Err(format!(
            "{} words: only 1- to 3-grams are read",
            words.len()
        ));
    }
    Ok((words, count))
}
