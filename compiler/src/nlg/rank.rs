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

/// Whether a candidate keeps the subject the designer wrote first: the first noun, or no noun
/// at all (a wh-word subject, an imperative). Sentence states are written subject first
/// ("I, you" is "I ... you"); the over-generator also tries the second noun as the subject, and
/// the n-grams cannot tell "I would like to meet you" from "You would like to meet me"
/// (Hewlett §3.4.3, "Bob hit Sam").
pub fn keeps_written_subject(candidate: &Candidate) -> bool {
    candidate.subject.is_none_or(|k| k == 0)
}

/// Verbs whose first noun after the subject is introduced by a preposition, not an object:
/// verbs of motion and position ("go to the gate", "stay at the inn") and verbs with a
/// prepositional complement ("wait for you", "pay for the room" — paying the room is not said).
/// A closed list, as the realiser has no lexicon of valency.
pub const PREPOSITIONAL_VERBS: &[&str] = &[
    "arrive", "belong", "come", "go", "happen", "listen", "live", "look", "pay", "return", "run",
    "sit", "sleep", "speak", "stay", "talk", "travel", "wait", "walk",
];

/// Whether a candidate makes the first noun written after its subject the verb's object, as
/// an English clause with a transitive verb does ("I would need a ticket to Boston", not "I
/// would need for a ticket to Boston"; Hewlett's Fig. 3.4 and 3.5 put the object right after
/// the verb). The over-generator also tries every preposition there and the n-grams often
/// prefer the frequent "need for" / "take in" bigrams. The rule holds back when the head verb
/// is `be` (a passive's object is its subject: "you will be booked on the flight"), when the
/// last verb is a [`PREPOSITIONAL_VERBS`] verb, and for slots (their declared kinds decide).
pub fn keeps_direct_object(candidate: &Candidate, input: &Input) -> bool {
    let (Some(head), Some(last)) = (input.verbs.first(), input.verbs.last()) else {
        return true;
    };
    if head.lemma == "be" || PREPOSITIONAL_VERBS.contains(&last.lemma.as_str()) {
        return true;
    }
    let object = (0..input.nouns.len()).find(|&k| Some(k) != candidate.subject);
    let Some(Term::Word(word)) = object.and_then(|k| input.nouns.get(k)) else {
        return true;
    };
    // The word as the realiser writes an object: pronouns in the object case.
    let form = match super::morph::pronoun_features(word) {
        Some((person, number)) => super::morph::pronoun(
            person,
            number,
            super::morph::pronoun_gender(word),
            super::morph::Case::Object,
        )
        .to_string(),
        None => word.clone(),
    };
    let tokens = &candidate.sentence.tokens;
    let is_word = |t: &Token, w: &str| matches!(t, Token::Word(x) if x.eq_ignore_ascii_case(w));
    let Some(at) = tokens.iter().position(|t| is_word(t, &form)) else {
        return true;
    };
    let before_article = match at.checked_sub(1).map(|i| &tokens[i]) {
        Some(t) if ["the", "a", "an"].iter().any(|a| is_word(t, a)) => at.checked_sub(2),
        _ => at.checked_sub(1),
    };
    !before_article.is_some_and(|i| {
        super::overgen::PREPOSITIONS
            .iter()
            .any(|p| is_word(&tokens[i], p))
    })
}

/// How far a candidate is from what the sentence state says, beyond its words' likelihood:
/// 0 when its slots fit their kinds, its subject is the written one and the noun after it is
/// the verb's object; a slot out of its role weighs more than the other two together (the slot
/// kinds are declared, the order only written).
pub fn misfit(candidate: &Candidate, input: &Input) -> u8 {
    let swapped = input.subject_as_written && !keeps_written_subject(candidate);
    let object_lost = input.direct_object && !keeps_direct_object(candidate, input);
    3 * u8::from(!fits_slot_kinds(candidate, input)) + u8::from(swapped) + u8::from(object_lost)
}

/// Moves the candidates that say what the state says ([`misfit`] 0) ahead of the others,
/// keeping each group's order (a stable partition of an already ranked list).
pub fn put_fitting_first(ranked: &mut [Candidate], input: &Input) {
    ranked.sort_by_key(|c| misfit(c, input));
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

/// The margin used when neither the sentence file nor the state sets `score_margin`, in the
/// scores' unit (log2 of the per-token probability). Chosen on the evaluation set's tuning
/// states only (docs/formats/sentence.md says how).
pub const DEFAULT_SCORE_MARGIN: f64 = 0.05;

/// Which of a sentence state's ranked candidates the runtime draws from: the first, then each
/// next one while it is pinned, or scores within `score_margin` of the best unpinned candidate
/// and says what the state says as well as that one does ([`misfit`]) — at most
/// `choose_among` in all. A weak second
/// candidate is not spoken just because a second one is asked for: `choose_among` is a bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speaking {
    pub choose_among: u32,
    pub score_margin: f64,
}

impl Speaking {
    /// How many of `ranked` (after [`put_fitting_first`] and [`ban_and_pin`]) are spoken: a
    /// prefix, since within a group of equal [`misfit`] the scores only fall. An infinite margin turns
    /// the rule off: the first `choose_among`, whatever they score.
    pub fn count(&self, ranked: &[Candidate], input: &Input, pin: &[&str]) -> usize {
        let bound = (self.choose_among.max(1) as usize).min(ranked.len());
        if self.score_margin == f64::INFINITY {
            return bound;
        }
        let pinned = |c: &Candidate| pin.iter().any(|e| names_candidate(e, c.id, &c.template));
        let mut reference: Option<(f64, u8)> = None;
        let mut n = 0;
        for c in &ranked[..bound] {
            if !pinned(c) {
                let fits = misfit(c, input);
                match reference {
                    None => reference = Some((c.score, fits)),
                    // Scores are log2 per token, so the margin reads the same for short and
                    // long lines; `-inf` (Eq. 3.1, an unseen n-gram) is only close to `-inf`.
                    Some((best, best_fits)) => {
                        if c.score < best - self.score_margin || fits != best_fits {
                            break;
                        }
                    }
                }
            }
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::sentence::SlotKind;

    /// A candidate saying `words` (a `{Name}` word is a slot) with `score`.
    fn candidate(words: &str, score: f64) -> Candidate {
        let tokens: Vec<Token> = words
            .split(' ')
            .map(
                |w| match w.strip_prefix('{').and_then(|w| w.strip_suffix('}')) {
                    Some(slot) => Token::Slot(slot.to_string()),
                    None => Token::Word(w.to_string()),
                },
            )
            .collect();
        let sentence = Sentence {
            tokens,
            question: false,
        };
        let template = sentence.template();
        Candidate {
            id: ensemble_runtime::speech::candidate_id("S", &template),
            sentence,
            template,
            score,
            subject: None,
            oov: Vec::new(),
        }
    }

    fn speaking(choose_among: u32, score_margin: f64) -> Speaking {
        Speaking {
            choose_among,
            score_margin,
        }
    }

    #[test]
    fn only_lines_within_the_margin_of_the_best_are_spoken() {
        let ranked = vec![
            candidate("i thank you", -8.0),
            candidate("i will thank you", -8.2),
            candidate("i thanked you", -9.5),
        ];
        let input = Input::default();
        assert_eq!(speaking(3, 0.25).count(&ranked, &input, &[]), 2);
        assert_eq!(speaking(3, 0.1).count(&ranked, &input, &[]), 1);
        assert_eq!(speaking(3, 2.0).count(&ranked, &input, &[]), 3);
        // `choose_among` bounds the set, the margin only shrinks it.
        assert_eq!(speaking(1, 2.0).count(&ranked, &input, &[]), 1);
        // An infinite margin is the rule turned off: the first `choose_among`.
        assert_eq!(speaking(2, f64::INFINITY).count(&ranked, &input, &[]), 2);
        assert_eq!(speaking(2, 0.0).count(&[], &input, &[]), 0);
    }

    #[test]
    fn pinned_lines_are_spoken_and_the_margin_counts_from_the_best_unpinned() {
        let mut ranked = vec![
            candidate("i thank you", -8.0),
            candidate("i will thank you", -8.2),
            candidate("thank you", -11.0),
        ];
        let pin = ["Thank you."];
        ban_and_pin(&mut ranked, &[], &pin);
        assert_eq!(ranked[0].template, "Thank you.");
        let n = speaking(3, 0.25).count(&ranked, &Input::default(), &pin);
        assert_eq!(n, 3, "the pinned line, the best and the one close to it");
        let n = speaking(3, 0.1).count(&ranked, &Input::default(), &pin);
        assert_eq!(n, 2);
    }

    #[test]
    fn a_line_that_misplaces_its_slot_is_not_spoken_beside_one_that_fits() {
        let input = Input {
            slot_kinds: vec![("CityName".into(), SlotKind::Destination)],
            ..Input::default()
        };
        let mut ranked = vec![
            candidate("i fly to {CityName}", -9.0),
            candidate("i fly in {CityName}", -8.0),
        ];
        put_fitting_first(&mut ranked, &input);
        assert_eq!(ranked[0].template, "I fly to {CityName}.");
        assert_eq!(speaking(2, 5.0).count(&ranked, &input, &[]), 1);
        // When nothing fits, the score alone decides.
        let ranked = vec![
            candidate("i fly in {CityName}", -8.0),
            candidate("i fly at {CityName}", -8.1),
        ];
        assert_eq!(speaking(2, 0.25).count(&ranked, &input, &[]), 2);
    }

    /// A state with `verbs` and `nouns` as written, the direct-object rule on.
    fn state(verbs: &str, nouns: &str) -> Input {
        let (mut input, _, _) = crate::nlg::parse_lines(verbs, nouns);
        input.direct_object = true;
        input
    }

    fn with_subject(words: &str, subject: usize) -> Candidate {
        Candidate {
            subject: Some(subject),
            ..candidate(words, -8.0)
        }
    }

    #[test]
    fn a_preposition_before_a_transitive_verbs_object_ranks_last() {
        let need = state("need", "I, ticket, VARIABLE CityName");
        let mut ranked = vec![
            with_subject("i would need for a ticket to {CityName}", 0),
            with_subject("i would need a ticket to {CityName}", 0),
        ];
        assert!(!keeps_direct_object(&ranked[0], &need));
        assert!(keeps_direct_object(&ranked[1], &need));
        put_fitting_first(&mut ranked, &need);
        assert_eq!(ranked[0].template, "I would need a ticket to {CityName}.");
        // Pronoun objects are found in the object case: "I" written second is "me".
        let meet = state("like, meet", "you, I");
        assert!(!keeps_direct_object(
            &with_subject("you would like to meet at me", 0),
            &meet
        ));
        assert!(keeps_direct_object(
            &with_subject("you would like to meet me", 0),
            &meet
        ));
        // Turned off, the rule ranks nothing.
        let off = Input {
            direct_object: false,
            ..need.clone()
        };
        assert_eq!(
            misfit(&with_subject("i would need for a ticket", 0), &off),
            0
        );
    }

    #[test]
    fn verbs_that_take_a_preposition_and_passives_keep_it() {
        let pay = state("need, pay", "you, room");
        assert!(keeps_direct_object(
            &with_subject("you need to pay for the room", 0),
            &pay
        ));
        let booked = state("be, PAST book", "you, flight");
        let on_the_flight = with_subject("you will be booked on the flight", 0);
        assert!(keeps_direct_object(&on_the_flight, &booked));
        // A slot after the subject is judged by its declared kind, not by this rule.
        let leave = state("like, leave", "I, VARIABLE Time");
        assert!(keeps_direct_object(
            &with_subject("i would like to leave at {Time}", 0),
            &leave
        ));
    }
}
