//! Sentence scores from n-gram counts.
//!
//! - [`Method::Eq31`] is Hewlett's Eq. 3.1 as printed:
//!   `log2((∏_i T_i / B_i)^(1/n))`, the product over the trigrams of the sentence padded with
//!   `<s>`/`</s>`, `T_i` the count of the trigram starting at token `i`, `B_i` the count of its
//!   first two words, `n` the number of words. It has no answer for unseen n-grams: one zero
//!   count makes the score `-inf` (the thesis does not say what it did).
//! - [`Method::StupidBackoff`] (Brants et al. 2007, the Web1T authors' own model; the default):
//!   `S(w | u v) = C(u v w) / C(u v)` when the trigram was seen, else `α · S(w | v)`, with
//!   `S(w | v) = C(v w) / C(v)` when seen, else `α · C(w) / N`; `α = 0.4`, `N` the sum of the
//!   unigram counts, and a word never seen counts as half an occurrence. The score is
//!   `log2` of the geometric mean of `S` over every predicted token (each word and `</s>`), so it
//!   reads like Eq. 3.1: higher (closer to zero) is better, and a sentence whose trigrams were all
//!   seen scores almost exactly what Eq. 3.1 gives it.

use super::format::NgramDb;
use super::tokenise::sentence_tokens;
pub use crate::ir::sentence::Method;

/// The back-off factor of stupid back-off.
pub const ALPHA: f64 = 0.4;
/// The discount of interpolated absolute discounting.
pub const DISCOUNT: f64 = 0.75;

/// A sentence's score and what the database did not know.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    pub value: f64,
    /// Words not in the vocabulary.
    pub oov: Vec<String>,
    /// Trigrams of the sentence the database has never seen.
    pub unseen_trigrams: usize,
}

/// Scores `text` (a realised sentence, slots already filled).
pub fn score(db: &NgramDb, text: &str, method: Method) -> Score {
    score_tokens(db, &sentence_tokens(text), method)
}

pub fn score_tokens(db: &NgramDb, tokens: &[String], method: Method) -> Score {
    let ids: Vec<Option<u32>> = tokens.iter().map(|t| db.word_id(t)).collect();
    let oov: Vec<String> = tokens
        .iter()
        .zip(&ids)
        .filter(|(_, id)| id.is_none())
        .map(|(t, _)| t.clone())
        .collect();
    let count = |w: &[Option<u32>]| -> u64 {
        let ids: Option<Vec<u32>> = w.iter().copied().collect();
        ids.map_or(0, |ids| db.count(&ids))
    };
    let unseen_trigrams = ids.windows(3).filter(|w| count(w) == 0).count();
    let words = tokens.len().saturating_sub(2).max(1) as f64;
    let value = match method {
        Method::Eq31 => {
            let mut log = 0.0;
            for w in ids.windows(3) {
                let (t, b) = (count(w), count(&w[..2]));
                if t == 0 || b == 0 {
                    log = f64::NEG_INFINITY;
                    break;
                }
                log += (t as f64 / b as f64).log2();
            }
            log / words
        }
        Method::Interpolated => {
            let n = db.total().max(1) as f64;
            let v = db.vocabulary().max(1) as f64;
            // Unigrams: relative frequency, with an unseen word as half an occurrence and a
            // uniform floor so nothing is zero.
            let p1 = |w: &[Option<u32>]| -> f64 { (count(w) as f64 + 0.5) / (n + 0.5 * v) };
            let interp = |w: &[Option<u32>], lower: f64| -> f64 {
                let ctx = &w[..w.len() - 1];
                let c_ctx = count(ctx) as f64;
                let ids: Option<Vec<u32>> = ctx.iter().copied().collect();
                let follow = ids.map_or(0, |ids| db.continuations(&ids)) as f64;
                if c_ctx == 0.0 || follow == 0.0 {
                    return lower;
                }
                let c = count(w) as f64;
                (c - DISCOUNT).max(0.0) / c_ctx + DISCOUNT * follow / c_ctx * lower
            };
            let mut log = 0.0;
            let mut predicted = 0usize;
            for i in 1..ids.len() {
                let bi = interp(&ids[i - 1..=i], p1(&ids[i..=i]));
                let p = if i >= 2 {
                    interp(&ids[i - 2..=i], bi)
                } else {
                    bi
                };
                log += p.log2();
                predicted += 1;
            }
            log / predicted.max(1) as f64
        }
        Method::KneserNey => {
            let logs = db.kneser_ney().log2_probabilities(db, &ids);
            logs.iter().sum::<f64>() / logs.len().max(1) as f64
        }
        Method::StupidBackoff => {
            let n = db.total().max(1) as f64;
            let unigram = |w: &[Option<u32>]| -> f64 {
                match count(w) {
                    0 => 0.5 / n,
                    c => c as f64 / n,
                }
            };
            let bigram = |w: &[Option<u32>]| -> f64 {
                let (c, ctx) = (count(w), count(&w[..1]));
                if c > 0 && ctx > 0 {
                    c as f64 / ctx as f64
                } else {
                    ALPHA * unigram(&w[1..])
                }
            };
            let mut log = 0.0;
            let mut predicted = 0usize;
            for i in 1..ids.len() {
                let p = if i >= 2 {
                    let w = &ids[i - 2..=i];
                    let (c, ctx) = (count(w), count(&w[..2]));
                    if c > 0 && ctx > 0 {
                        c as f64 / ctx as f64
                    } else {
                        ALPHA * bigram(&w[1..])
                    }
                } else {
                    bigram(&ids[i - 1..=i])
                };
                log += p.log2();
                predicted += 1;
            }
            log / predicted.max(1) as f64
        }
    };
    Score {
        value,
        oov,
        unseen_trigrams,
    }
}
