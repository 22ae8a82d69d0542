//! From a sentence state to its ranked candidates: over-generate, realise, de-duplicate, score.

use super::ngram::{Method, NgramDb, score::score_tokens, tokenise::sentence_tokens};
use super::overgen::{Input, Term, for_each_variant, variation_count};
use super::realise::{Sentence, realise};
use crate::ir::sentence::Token;
use std::collections::HashMap;

pub use crate::ir::sentence::{Candidate, GenerationReport};

/// Over-generates and realises `input`; returns the distinct sentences in generation order with
/// the subject of the first variation that produced each, and the number of variations. Beyond
/// [`MAX_VARIATIONS`](super::overgen::MAX_VARIATIONS) nothing is generated (the count says why). Variations are realised as they
/// are enumerated: only the distinct sentences are kept.
pub fn generate(input: &Input) -> (Vec<(Sentence, Option<usize>)>, usize) {
    let mut seen: HashMap<String, ()> = HashMap::new();
    let mut unique = Vec::new();
    for_each_variant(input, |v| {
        let s = realise(&v.clause);
        if !s.tokens.is_empty() && seen.insert(s.template(), ()).is_none() {
            unique.push((s, v.subject));
        }
    });
    let count = usize::try_from(variation_count(input)).unwrap_or(usize::MAX);
    (unique, count)
}

/// Scores every sentence and sorts best first (ties by template, so the order is stable).
/// Without a database every score is 0 and the order is the templates'.
pub fn rank(
    sentence_name: &str,
    sentences: Vec<(Sentence, Option<usize>)>,
    db: Option<&NgramDb>,
    method: Method,
    slot_value: impl Fn(&str) -> String,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = sentences
        .into_iter()
        .map(|(sentence, subject)| {
            let template = sentence.template();
            let (score, oov) = match db {
                Some(db) => {
                    let s = score_tokens(
                        db,
                        &sentence_tokens(&sentence.with_slots(&slot_value)),
                        method,
                    );
                    (s.value, s.oov)
                }
                None => (0.0, Vec::new()),
            };
            Candidate {
                id: ensemble_runtime::speech::candidate_id(sentence_name, &template),
                sentence,
                template,
                score,
                subject,
                oov,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.template.cmp(&b.template))
    });
    out
}

/// Whether a candidate says each declared slot in its role: introduced by one of its kind's
/// prepositions (or, for kinds that may be objects, by none), without an article, and not the
/// subject unless the kind may be one. Slots without a declared kind always fit.
pub fn fits_slot_kinds(candidate: &Candidate, input: &Input) -> bool {
    let kind = |name: &str| {
        input
            .slot_kinds
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, k)| *k)
    };
    let tokens = &candidate.sentence.tokens;
    let word = |i: Option<usize>| match i.and_then(|i| tokens.get(i)) {
        Some(Token::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    let subject_slot = candidate
        .subject
        .and_then(|i| input.nouns.get(i))
        .and_then(|t| match t {
            Term::Variable(v) => kind(v).map(|k| (v.as_str(), k)),
            Term::Word(_) => None,
        });
    if subject_slot.is_some_and(|(_, k)| !k.may_be_subject()) {
        return false;
    }
    tokens.iter().enumerate().all(|(i, t)| {
        let Token::Slot(name) = t else {
            return true;
        };
        let Some(k) = kind(name) else {
            return true;
        };
        let before = word(i.checked_sub(1));
        if before.is_some_and(|w| ["the", "a", "an"].contains(&w)) {
            return false;
        }
        match before {
            Some(w) if super::overgen::PREPOSITIONS.contains(&w) || w == "from" => {
                k.prepositions().contains(&w)
            }
            _ => !k.needs_preposition(),
        }
    })
}

/// Moves the candidates that fit their slots' declared kinds ahead of those that do not,
/// keeping each group's order (a stable partition of an already ranked list).
pub fn put_fitting_first(ranked: &mut [Candidate], input: &Input) {
    if input.slot_kinds.is_empty() {
        return;
    }
    ranked.sort_by_key(|c| !fits_slot_kinds(c, input));
}

/// Whether a `ban`/`pin` entry names a candidate: its line exactly, or its id in hex.
pub fn names_candidate(entry: &str, id: u32, template: &str) -> bool {
    let entry = entry.trim();
    entry == template || entry.eq_ignore_ascii_case(&format!("{id:08x}"))
}

/// The designer's choices over a ranked list: banned candidates are removed, pinned ones move
/// to the front in the order they are pinned; the rest keep their rank.
pub fn ban_and_pin(ranked: &mut Vec<Candidate>, ban: &[&str], pin: &[&str]) {
    let named = |list: &[&str], c: &Candidate| {
        list.iter()
            .position(|e| names_candidate(e, c.id, &c.template))
    };
    ranked.retain(|c| named(ban, c).is_none());
    // Pinned first (by pin order), then the rest in their order: a stable sort on the key.
    ranked.sort_by_key(|c| named(pin, c).unwrap_or(pin.len()));
}
