//! From a sentence state to its ranked candidates: over-generate, realise, de-duplicate, score.

use super::ngram::{Method, NgramDb, score::score_tokens, tokenise::sentence_tokens};
use super::overgen::{Input, SlotKind, Term, for_each_variant, variation_count};
use super::realise::{Sentence, realise};
use crate::ir::sentence::Token;
use std::collections::HashMap;

pub use crate::ir::sentence::{Candidate, GenerationReport};

/// One distinct realisation of a sentence state.
#[derive(Clone, Debug)]
pub struct Realised {
    pub sentence: Sentence,
    /// The subject of the first variation that produced it.
    pub subject: Option<usize>,
    /// Whether every variation that produced it lost the verb's object.
    pub object_lost: bool,
    /// Singular common nouns it says without a determiner.
    pub bare: Vec<String>,
    /// Whether every variation that produced it gave a destination the preposition its word
    /// does not take.
    pub unlike_preposition: bool,
}

/// Over-generates and realises `input`; returns the distinct sentences in generation order, and
/// the number of variations. Beyond [`MAX_VARIATIONS`](super::overgen::MAX_VARIATIONS) nothing
/// is generated (the count says why). Variations are realised as they are enumerated: only the
/// distinct sentences are kept. A sentence that some variation says with its object kept keeps
/// it ("I saw your dog at the mill" is an object and a place, whichever tree made it first).
pub fn generate(input: &Input) -> (Vec<Realised>, usize) {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut unique: Vec<Realised> = Vec::new();
    for_each_variant(input, |v| {
        let s = realise(&v.clause);
        if s.tokens.is_empty() {
            return;
        }
        match seen.entry(s.template()) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let r = &mut unique[*e.get()];
                r.object_lost &= v.object_lost;
                r.unlike_preposition &= v.unlike_preposition;
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(unique.len());
                unique.push(Realised {
                    sentence: s,
                    subject: v.subject,
                    object_lost: v.object_lost,
                    bare: v.bare,
                    unlike_preposition: v.unlike_preposition,
                });
            }
        }
    });
    let count = usize::try_from(variation_count(input)).unwrap_or(usize::MAX);
    (unique, count)
}

/// Whether the counts see `noun` (its last word) as a count noun: of its occurrences after
/// "a", "an" or "the", at least one in [`COUNT_NOUN_SHARE`] is after "a"/"an". A mass noun is
/// almost never after "a" ("the bread", "the money", "the news": under one in twenty); a count
/// noun often is ("a wolf", "a sword", "a horse": a third), and said bare it is ungrammatical
/// ("I saw wolf near the mill"). A word the counts never see with an article counts as a count
/// noun: most nouns are.
pub fn is_count_noun(db: &NgramDb, noun: &str) -> bool {
    let word = noun.rsplit(' ').next().unwrap_or(noun).to_lowercase();
    let Some(w) = db.word_id(&word) else {
        return true;
    };
    let after = |article: &str| db.word_id(article).map_or(0, |a| db.count(&[a, w]));
    let indefinite = after("a") + after("an");
    let all = indefinite + after("the");
    all == 0 || indefinite * COUNT_NOUN_SHARE >= all
}

/// See [`is_count_noun`]: one in this many after "a"/"an" makes a count noun.
pub const COUNT_NOUN_SHARE: u64 = 10;

/// Scores every sentence and sorts best first (ties by template, so the order is stable).
/// Without a database every score is 0 and the order is the templates'.
pub fn rank(
    sentence_name: &str,
    sentences: Vec<Realised>,
    db: Option<&NgramDb>,
    method: Method,
    kinds: &[(String, SlotKind)],
    slot_value: impl Fn(&str) -> String,
) -> Vec<Candidate> {
    // Each candidate is scored with the designer's example values and with each stand-in of
    // the slots' kinds, and the scores are averaged (`SlotKind::stand_ins`).
    let rounds = kinds
        .iter()
        .map(|(_, k)| k.stand_ins().len())
        .max()
        .unwrap_or(0);
    let fill = |round: usize, name: &str| -> String {
        match (round, kinds.iter().find(|(n, _)| n == name)) {
            (0, _) | (_, None) => slot_value(name),
            (r, Some((_, k))) => k.stand_ins()[(r - 1) % k.stand_ins().len()].to_string(),
        }
    };
    let mut out: Vec<Candidate> = sentences
        .into_iter()
        .map(|r| {
            let Realised {
                sentence,
                subject,
                object_lost,
                bare,
                unlike_preposition,
            } = r;
            let bare_count = db.is_some_and(|db| bare.iter().any(|w| is_count_noun(db, w)));
            let template = sentence.template();
            let (score, oov) = match db {
                Some(db) => {
                    let s = score_tokens(
                        db,
                        &sentence_tokens(&sentence.with_slots(&slot_value)),
                        method,
                    );
                    let mut total = s.value;
                    for round in 1..=rounds {
                        let filled = sentence.with_slots(|n| fill(round, n));
                        total += score_tokens(db, &sentence_tokens(&filled), method).value;
                    }
                    (total / (rounds + 1) as f64, s.oov)
                }
                None => (0.0, Vec::new()),
            };
            Candidate {
                id: ensemble_runtime::speech::candidate_id(sentence_name, &template),
                sentence,
                template,
                score,
                subject,
                object_lost,
                bare_count,
                unlike_preposition,
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
        .and_then(|n| match &n.term {
            Term::Variable(v) => kind(v).map(|k| (v.as_str(), k)),
            Term::Word(_) => None,
        });
    if subject_slot.is_some_and(|(_, k)| !k.may_be_subject()) {
        return false;
    }
    // A slot named after a noun ("gate {GateNumber}") is introduced by nothing: its noun is.
    let named: Vec<&str> = input
        .nouns
        .iter()
        .filter_map(|n| n.name.as_deref())
        .collect();
    tokens.iter().enumerate().all(|(i, t)| {
        let Token::Slot(name) = t else {
            return true;
        };
        let Some(k) = kind(name).filter(|_| !named.contains(&name.as_str())) else {
            return true;
        };
        // A possessor ("{Guest}'s horse") is in its place whatever its kind.
        if tokens.get(i + 1).is_some_and(Token::attaches) {
            return true;
        }
        let before = word(i.checked_sub(1));
        if before.is_some_and(|w| ["the", "a", "an"].contains(&w)) {
            return false;
        }
        match before {
            Some(w) if is_preposition(w) => k.prepositions().contains(&w),
            _ => !k.needs_preposition(),
        }
    })
}

fn is_preposition(w: &str) -> bool {
    super::overgen::PREPOSITIONS.contains(&w) || super::input::WRITTEN_PREPOSITIONS.contains(&w)
}

/// Whether a candidate keeps the subject the designer wrote first: the first noun, or no noun
/// at all (a wh-word subject, an imperative). Sentence states are written subject first
/// ("I, you" is "I ... you"); the over-generator also tries the second noun as the subject, and
/// the n-grams cannot tell "I would like to meet you" from "You would like to meet me"
/// (Hewlett §3.4.3, "Bob hit Sam").
pub fn keeps_written_subject(candidate: &Candidate) -> bool {
    candidate.subject.is_none_or(|k| k == 0)
}

/// Whether a candidate keeps the verb's object where it takes one (see
/// [`object_lost`](super::overgen) for the rule; the over-generator decides it per variation).
pub fn keeps_direct_object(candidate: &Candidate) -> bool {
    !candidate.object_lost
}

/// How far a candidate is from what the sentence state says, beyond its words' likelihood:
/// 0 when its slots fit their kinds, its subject is the written one and the noun after it is
/// the verb's object; a slot out of its role weighs more than the other two together (the slot
/// kinds are declared, the order only written).
pub fn misfit(candidate: &Candidate, input: &Input) -> u8 {
    let swapped = input.subject_as_written && !keeps_written_subject(candidate);
    let object_lost = input.direct_object && !keeps_direct_object(candidate);
    3 * u8::from(!fits_slot_kinds(candidate, input))
        + u8::from(swapped)
        + u8::from(object_lost)
        + u8::from(candidate.bare_count)
        + u8::from(candidate.unlike_preposition)
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
    apply_judgements(ranked, ban, pin, &[]);
}

/// The designer's judgements over a ranked list: banned candidates are removed, pinned ones
/// move to the front in the order they are pinned, accepted ones come next in their rank
/// order; the rest keep their rank after them.
pub fn apply_judgements(ranked: &mut Vec<Candidate>, ban: &[&str], pin: &[&str], accept: &[&str]) {
    let named = |list: &[&str], c: &Candidate| {
        list.iter()
            .position(|e| names_candidate(e, c.id, &c.template))
    };
    ranked.retain(|c| named(ban, c).is_none());
    // A stable sort on the key keeps each group in rank order.
    ranked.sort_by_key(|c| match named(pin, c) {
        Some(i) => i,
        None if named(accept, c).is_some() => pin.len(),
        None => pin.len() + 1,
    });
}

/// The margin used when neither the sentence file nor the state sets `score_margin`, in the
/// scores' unit (log2 of the per-token probability). Chosen on the evaluation set's tuning
/// states only (docs/formats/sentence.md says how).
pub const DEFAULT_SCORE_MARGIN: f64 = 0.0;

/// Which of a sentence state's ranked candidates the runtime draws from. When the designer
/// judged some of them (pinned or accepted), those: the judged lines at the front of the list,
/// at most `choose_among`. Otherwise the first, then each next one while it scores within
/// `score_margin` of the first and says what the state says as well as the first does
/// ([`misfit`]) — at most `choose_among` in all. A weak second candidate is not spoken just
/// because a second one is asked for: `choose_among` is a bound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Speaking {
    pub choose_among: u32,
    pub score_margin: f64,
}

impl Speaking {
    /// How many of `ranked` (after [`put_fitting_first`] and [`apply_judgements`]) are spoken:
    /// a prefix, since judged lines come first and within a group of equal [`misfit`] the
    /// scores only fall. `judged` are the state's `pin` and `accept` entries. An infinite
    /// margin turns the score rule off: the first `choose_among`, whatever they score.
    pub fn count(&self, ranked: &[Candidate], input: &Input, judged: &[&str]) -> usize {
        let bound = (self.choose_among.max(1) as usize).min(ranked.len());
        let is_judged =
            |c: &Candidate| judged.iter().any(|e| names_candidate(e, c.id, &c.template));
        let judged_first = ranked[..bound].iter().take_while(|c| is_judged(c)).count();
        if judged_first > 0 {
            return judged_first;
        }
        if self.score_margin == f64::INFINITY {
            return bound;
        }
        let mut reference: Option<(f64, u8)> = None;
        let mut n = 0;
        for c in &ranked[..bound] {
            let fits = misfit(c, input);
            match reference {
                None => reference = Some((c.score, fits)),
                // Scores are log2 per token, so the margin reads the same for short and long
                // lines; `-inf` (Eq. 3.1, an unseen n-gram) is only close to `-inf`.
                Some((best, best_fits)) => {
                    if c.score < best - self.score_margin || fits != best_fits {
                        break;
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
            object_lost: false,
            bare_count: false,
            unlike_preposition: false,
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
    fn judged_lines_are_what_is_spoken() {
        let mut ranked = vec![
            candidate("i thank you", -8.0),
            candidate("i will thank you", -8.2),
            candidate("thank you", -11.0),
        ];
        let pin = ["Thank you."];
        ban_and_pin(&mut ranked, &[], &pin);
        assert_eq!(ranked[0].template, "Thank you.");
        // The pinned line alone: the designer judged it, the others are unjudged.
        assert_eq!(speaking(3, 0.25).count(&ranked, &Input::default(), &pin), 1);
        // Accepted lines come after the pinned, in rank order, and are spoken with them.
        let accept = ["I will thank you."];
        apply_judgements(&mut ranked, &[], &pin, &accept);
        let order: Vec<&str> = ranked.iter().map(|c| c.template.as_str()).collect();
        assert_eq!(order, ["Thank you.", "I will thank you.", "I thank you."]);
        let judged = ["Thank you.", "I will thank you."];
        assert_eq!(
            speaking(3, 0.0).count(&ranked, &Input::default(), &judged),
            2
        );
        assert_eq!(
            speaking(1, 0.0).count(&ranked, &Input::default(), &judged),
            1
        );
        // Accepted alone, no pin: the accepted lines, whatever they score.
        let mut ranked = vec![
            candidate("i thank you", -8.0),
            candidate("thank you", -11.0),
        ];
        apply_judgements(&mut ranked, &["I thank you."], &[], &["Thank you."]);
        assert_eq!(ranked.len(), 1);
        assert_eq!(
            speaking(2, 0.0).count(&ranked, &Input::default(), &["Thank you."]),
            1
        );
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

    /// Whether `line` is generated for `input` with its object lost.
    fn loses_object(input: &Input, line: &str) -> bool {
        let (unique, _) = generate(input);
        let r = unique
            .iter()
            .find(|r| r.sentence.template() == line)
            .unwrap_or_else(|| panic!("`{line}` is not generated"));
        r.object_lost
    }

    #[test]
    fn a_preposition_before_a_transitive_verbs_object_ranks_last() {
        let need = state("need", "I, ticket, VARIABLE CityName");
        assert!(loses_object(&need, "I need for a ticket to {CityName}."));
        assert!(!loses_object(&need, "I need a ticket to {CityName}."));
        // Written determiners and possessors do not hide the object.
        let touch = state("NOT IMPERATIVE touch", "you, the king's horse");
        assert!(loses_object(&touch, "Do not touch in the king's horse."));
        assert!(!loses_object(&touch, "Do not touch the king's horse."));
        // Pronoun objects: "I" written second is "me".
        let meet = state("like, meet", "you, I");
        assert!(loses_object(&meet, "You would like to meet at me."));
        assert!(!loses_object(&meet, "You would like to meet me."));
        // A verb of two objects keeps both, or says the first with "to".
        let give = state("IMPERATIVE give", "you, him, this letter");
        assert!(loses_object(&give, "Give him in this letter."));
        assert!(!loses_object(&give, "Give him this letter."));
        assert!(!loses_object(&give, "Give this letter to him."));
        // What is paid is the object: "pay {Price}".
        let pay = Input {
            slot_kinds: vec![("Price".into(), SlotKind::Price)],
            ..state("MUST pay", "you, VARIABLE Price, for the crossing")
        };
        assert!(loses_object(
            &pay,
            "You must pay for {Price} for the crossing."
        ));
        assert!(!loses_object(
            &pay,
            "You must pay {Price} for the crossing."
        ));
    }

    #[test]
    fn verbs_that_take_a_preposition_and_passives_keep_it() {
        let pay = state("need, pay", "you, room");
        assert!(!loses_object(&pay, "You need to pay for a room."));
        // WordNet: "work" takes no object in its first sense.
        let work = state("work", "my father, mill");
        assert!(!loses_object(&work, "My father works at a mill."));
        let booked = state("be, PAST book", "you, flight");
        assert!(!loses_object(&booked, "You are booked on a flight."));
        // A written preposition is the designer's.
        let ride = state("like, ride", "I, on your horse");
        assert!(!loses_object(&ride, "I would like to ride on your horse."));
    }
}
