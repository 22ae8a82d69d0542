//! Interpolated modified Kneser-Ney smoothing (Chen & Goodman 1998, §3.5) over the trigram
//! database: three discounts per order from the counts of counts, continuation counts for the
//! lower orders, and a uniform floor over the vocabulary plus one unknown word, so that
//! `P(· | u v)` sums to 1 over the vocabulary (and the unknown word) for every context.
//!
//! ```text
//! P3(w | u v) = max(c(u v w) − D3[c], 0) / c(u v •)   + γ(u v) · P2(w | v)
//! P2(w | v)   = max(a(v w) − D2[a], 0)   / a(v •)     + γ(v)   · P1(w)
//! P1(w)       = max(a(w) − D1[a], 0)     / a(•)       + γ      / (V + 1)
//! ```
//!
//! `a(v w) = N1+(• v w)`, the number of distinct words seen before `v w` (the raw count when
//! `v` is `<s>`, which nothing precedes); `a(w) = N1+(• w)`. `γ(ctx)` is the mass the discounts
//! took, `(D[1]·N1(ctx •) + D[2]·N2(ctx •) + D[3]·N3+(ctx •)) / c(ctx •)`; an unseen context
//! passes everything to the lower order. The statistics are gathered in one pass over the trie.

use super::format::NgramDb;
use super::tokenise::BOS;
use std::collections::HashMap;

/// Discounts for counts 1, 2 and 3 or more.
pub type Discounts = [f64; 3];

/// Per context: the sum of the (adjusted) counts that follow it and how many of those are 1, 2,
/// and 3 or more.
#[derive(Clone, Copy, Debug, Default)]
struct Context {
    total: u64,
    by_count: [u64; 3],
}

impl Context {
    fn add(&mut self, c: u64) {
        if c == 0 {
            return;
        }
        self.total += c;
        self.by_count[(c.min(3) - 1) as usize] += 1;
    }

    /// The back-off weight γ.
    fn gamma(&self, d: &Discounts) -> f64 {
        if self.total == 0 {
            return 1.0;
        }
        (0..3).map(|k| d[k] * self.by_count[k] as f64).sum::<f64>() / self.total as f64
    }
}

/// The statistics a modified Kneser-Ney model needs beyond the raw counts.
pub struct KneserNey {
    d3: Discounts,
    d2: Discounts,
    d1: Discounts,
    /// Trigram contexts `u v`: what follows them.
    trigram_contexts: HashMap<(u32, u32), Context>,
    /// `a(v w)` for every bigram.
    bigram_adjusted: HashMap<(u32, u32), u64>,
    bigram_contexts: HashMap<u32, Context>,
    /// `a(w)` per word id.
    unigram_adjusted: Vec<u64>,
    unigram_context: Context,
    vocabulary: usize,
}

/// Chen & Goodman's estimates from the counts of counts n1..n4; 0.75-like defaults where the
/// counts are too few to estimate (tiny databases).
fn discounts(n: [u64; 4]) -> Discounts {
    let [n1, n2, n3, n4] = n.map(|x| x as f64);
    if n1 == 0.0 || n2 == 0.0 || n3 == 0.0 {
        return [0.5, 0.75, 0.9];
    }
    let y = n1 / (n1 + 2.0 * n2);
    let d = [
        1.0 - 2.0 * y * n2 / n1,
        2.0 - 3.0 * y * n3 / n2,
        3.0 - 4.0 * y * n4 / n3,
    ];
    // Each discount stays within (0, its count]; outside, the estimate is meaningless.
    let mut out = [0.0; 3];
    for (k, v) in d.iter().enumerate() {
        out[k] = v.clamp(0.05, (k + 1) as f64);
    }
    out
}

fn count_of_counts(n: &mut [u64; 4], c: u64) {
    if (1..=4).contains(&c) {
        n[(c - 1) as usize] += 1;
    }
}

impl KneserNey {
    pub fn new(db: &NgramDb) -> Self {
        let bos = db.word_id(BOS);
        let mut trigram_contexts: HashMap<(u32, u32), Context> = HashMap::new();
        let mut preceded: HashMap<(u32, u32), u64> = HashMap::new();
        let mut n3 = [0u64; 4];
        db.for_each(3, |g, c| {
            trigram_contexts.entry((g[0], g[1])).or_default().add(c);
            *preceded.entry((g[1], g[2])).or_default() += 1;
            count_of_counts(&mut n3, c);
        });
        let v = db.vocabulary() as usize;
        let mut bigram_adjusted = HashMap::new();
        let mut bigram_contexts: HashMap<u32, Context> = HashMap::new();
        let mut unigram_adjusted = vec![0u64; v];
        let mut n2 = [0u64; 4];
        db.for_each(2, |g, c| {
            let a = if Some(g[0]) == bos {
                c
            } else {
                preceded.get(&(g[0], g[1])).copied().unwrap_or(0)
            };
            if a > 0 {
                bigram_adjusted.insert((g[0], g[1]), a);
                bigram_contexts.entry(g[0]).or_default().add(a);
                count_of_counts(&mut n2, a);
            }
            if let Some(u) = unigram_adjusted.get_mut(g[1] as usize) {
                *u += 1;
            }
        });
        let mut n1 = [0u64; 4];
        let mut unigram_context = Context::default();
        for &a in &unigram_adjusted {
            unigram_context.add(a);
            count_of_counts(&mut n1, a);
        }
        KneserNey {
            d3: discounts(n3),
            d2: discounts(n2),
            d1: discounts(n1),
            trigram_contexts,
            bigram_adjusted,
            bigram_contexts,
            unigram_adjusted,
            unigram_context,
            vocabulary: v,
        }
    }

    fn discount(d: &Discounts, c: u64) -> f64 {
        if c == 0 {
            0.0
        } else {
            d[(c.min(3) - 1) as usize]
        }
    }

    /// `P1(w)`; `None` is the unknown word.
    pub fn unigram(&self, w: Option<u32>) -> f64 {
        let a = w
            .and_then(|w| self.unigram_adjusted.get(w as usize))
            .copied()
            .unwrap_or(0);
        let ctx = &self.unigram_context;
        let floor = ctx.gamma(&self.d1) / (self.vocabulary + 1) as f64;
        if ctx.total == 0 {
            return floor;
        }
        (a as f64 - Self::discount(&self.d1, a)).max(0.0) / ctx.total as f64 + floor
    }

    /// `P2(w | v)`.
    pub fn bigram(&self, v: Option<u32>, w: Option<u32>) -> f64 {
        let lower = self.unigram(w);
        let Some(ctx) = v.and_then(|v| self.bigram_contexts.get(&v)) else {
            return lower;
        };
        let a = match (v, w) {
            (Some(v), Some(w)) => self.bigram_adjusted.get(&(v, w)).copied().unwrap_or(0),
            _ => 0,
        };
        (a as f64 - Self::discount(&self.d2, a)).max(0.0) / ctx.total as f64
            + ctx.gamma(&self.d2) * lower
    }

    /// `P3(w | u v)`, reading `c(u v w)` from the database.
    pub fn trigram(&self, db: &NgramDb, u: Option<u32>, v: Option<u32>, w: Option<u32>) -> f64 {
        let lower = self.bigram(v, w);
        let (Some(u), Some(v)) = (u, v) else {
            return lower;
        };
        let Some(ctx) = self.trigram_contexts.get(&(u, v)) else {
            return lower;
        };
        let c = w.map_or(0, |w| db.count(&[u, v, w]));
        (c as f64 - Self::discount(&self.d3, c)).max(0.0) / ctx.total as f64
            + ctx.gamma(&self.d3) * lower
    }

    /// The probability of each token after the first given the two before it (the first
    /// predicted token has only `<s>` before it, so it is a bigram).
    pub fn log2_probabilities(&self, db: &NgramDb, ids: &[Option<u32>]) -> Vec<f64> {
        (1..ids.len())
            .map(|i| {
                let p = if i >= 2 {
                    self.trigram(db, ids[i - 2], ids[i - 1], ids[i])
                } else {
                    self.bigram(ids[i - 1], ids[i])
                };
                p.log2()
            })
            .collect()
    }
}
