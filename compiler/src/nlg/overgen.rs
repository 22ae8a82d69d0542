//! Over-generation (Hewlett §3.4.3): from a sentence state's verbs, nouns and modifiers,
//! enumerate realiser inputs that vary
//! - the noun-verb relations: which noun is the subject, and for every other noun whether it is
//!   an object of a verb, a prepositional argument of the last verb, or attached to the noun
//!   before it;
//! - the prepositions ("particles") of those attachments;
//! - the articles (a / the / none);
//! - auxiliaries and modals (none, would, can, will) and tense (present, past), unless the head
//!   verb is written `PAST` (then the simple past only) or is a verb of liking with a verb
//!   under it, a wish (then `would` only: "would like to");
//! - the form of each complement verb (to-infinitive or gerund);
//! - the question form (wh-word fronted with inversion, in situ, or as the subject).
//!
//! Most variations are not grammatical; realisation and de-duplication come next, and the
//! n-gram ranking sorts the rest.

use super::morph::{self, Number, Person};
use super::tree::*;

pub use crate::ir::sentence::{Input, SlotKind, Term, VerbSpec};

/// One variation: the realiser input and which noun it made the subject.
#[derive(Clone, Debug)]
pub struct Variant {
    pub clause: Clause,
    /// Index of the noun that is the subject (`None`: no subject, or the wh-word is).
    pub subject: Option<usize>,
}

/// Prepositions tried for prepositional attachments.
pub const PREPOSITIONS: &[&str] = &["to", "on", "at", "for", "in"];
/// Modal auxiliaries tried on the head verb (besides none).
pub const MODALS: &[&str] = &["would", "can", "will"];

/// Verbs of liking that express a wish with `would` and a habit without it: "I would like to
/// leave at seven" (now) is not "I like to leave at seven" (usually).
pub const WISH_VERBS: &[&str] = &["like", "love", "prefer", "hate"];

/// A sentence state whose head verb is a verb of liking with another verb under it states a
/// wish (the conversation is about what the speaker wants now), so its modal is `would`: the
/// simple present and past are habits, and `can`/`will` do not combine with the wish reading.
fn is_wish(input: &Input) -> bool {
    matches!(input.verbs.as_slice(), [head, _, ..] if !head.past && WISH_VERBS.contains(&head.lemma.as_str()))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Relation {
    Object(usize),
    Oblique(&'static str),
    Attach(&'static str, usize),
}

fn head_of(term: &Term) -> Head {
    match term {
        Term::Variable(name) => Head::Slot(name.clone()),
        Term::Word(w) => match morph::pronoun_features(w) {
            Some((person, number)) => Head::Pronoun {
                person,
                number,
                gender: morph::pronoun_gender(w),
            },
            None if w.chars().next().is_some_and(char::is_uppercase) => Head::Proper(w.clone()),
            None => Head::Common(w.to_lowercase()),
        },
    }
}

fn articles(head: &Head) -> &'static [Det] {
    match head {
        Head::Pronoun { .. } => &[Det::None],
        Head::Common(_) => &[Det::A, Det::The, Det::None],
        Head::Proper(_) | Head::Slot(_) => &[Det::None, Det::The],
    }
}

/// The relations noun `k` may take, given the subject and the verbs.
fn relations(input: &Input, heads: &[Head], subject: Option<usize>, k: usize) -> Vec<Relation> {
    let last = input.verbs.len().saturating_sub(1);
    let mut out = Vec::new();
    if !input.verbs.is_empty() {
        out.push(Relation::Object(last));
        if last > 0 {
            out.push(Relation::Object(0));
        }
        out.extend(PREPOSITIONS.iter().map(|p| Relation::Oblique(p)));
    }
    // Attach to the nearest earlier noun that is not the subject and not a pronoun.
    let prev = (0..k).rev().find(|&j| {
        (Some(j) != subject || input.verbs.is_empty()) && !matches!(heads[j], Head::Pronoun { .. })
    });
    if let Some(j) = prev
        && !matches!(heads[k], Head::Pronoun { .. })
    {
        out.extend(PREPOSITIONS.iter().map(|p| Relation::Attach(p, j)));
    }
    if out.is_empty() {
        out.push(Relation::Object(0));
    }
    out
}

/// The question placements to try.
fn placements(input: &Input) -> Vec<Option<Question>> {
    match &input.question {
        None => vec![None],
        Some(None) => vec![Some(Question::YesNo)],
        Some(Some(word)) => {
            let mut v = vec![
                Some(Question::Wh {
                    word: word.clone(),
                    placement: WhPlacement::Fronted,
                }),
                Some(Question::Wh {
                    word: word.clone(),
                    placement: WhPlacement::InSitu,
                }),
            ];
            if matches!(word.as_str(), "what" | "who") {
                v.push(Some(Question::Wh {
                    word: word.clone(),
                    placement: WhPlacement::Subject,
                }));
            }
            v
        }
    }
}

/// Every combination of choices, as mixed-radix counters.
fn for_each_combination(radices: &[usize], mut f: impl FnMut(&[usize])) {
    if radices.contains(&0) {
        return;
    }
    let mut digits = vec![0usize; radices.len()];
    loop {
        f(&digits);
        let mut i = 0;
        loop {
            if i == digits.len() {
                return;
            }
            digits[i] += 1;
            if digits[i] < radices[i] {
                break;
            }
            digits[i] = 0;
            i += 1;
        }
    }
}

/// The most variations a sentence state may have. Their number is a product over its nouns
/// (relations × articles each): WantTicketToX has a few thousand, four nouns about 10^5, five
/// nouns a few million — more than realising is worth, and more than memory holds if kept.
pub const MAX_VARIATIONS: u64 = 1_000_000;

/// How many variations [`for_each_variant`] enumerates (saturating).
pub fn variation_count(input: &Input) -> u64 {
    let mut total: u64 = 0;
    let heads: Vec<Head> = input.nouns.iter().map(head_of).collect();
    plan(input, &heads, |_, _, _, radices| {
        let n = radices
            .iter()
            .fold(1u64, |acc, r| acc.saturating_mul(*r as u64));
        total = total.saturating_add(n);
    });
    total
}

/// Every question placement and subject with the choices left for the other nouns: `f(question,
/// subject, relations of the other nouns, radices)`.
fn plan(
    input: &Input,
    heads: &[Head],
    mut f: impl FnMut(&Option<Question>, Option<usize>, &[Vec<Relation>], &[usize]),
) {
    for question in placements(input) {
        let wh_subject = matches!(
            question,
            Some(Question::Wh {
                placement: WhPlacement::Subject,
                ..
            })
        );
        let subjects: Vec<Option<usize>> = if wh_subject || heads.is_empty() {
            vec![None]
        } else {
            (0..heads.len().min(2)).map(Some).collect()
        };
        for subject in subjects {
            let rels: Vec<Vec<Relation>> = (0..heads.len())
                .filter(|&k| Some(k) != subject)
                .map(|k| relations(input, heads, subject, k))
                .collect();
            let complements = input.verbs.len().saturating_sub(1);
            // Digits: modal/tense, complement forms, relations, articles. A head verb written
            // `PAST` fixes the tense: a modal would change what is said ("what happened" is
            // not "what would have happened"), so it is realised in the simple past only.
            let past_head = input.verbs.first().is_some_and(|v| v.past);
            let mut radices = vec![if past_head || is_wish(input) {
                1
            } else {
                MODALS.len() + 2
            }];
            radices.extend(std::iter::repeat_n(2, complements));
            radices.extend(rels.iter().map(Vec::len));
            radices.extend(heads.iter().map(|h| articles(h).len()));
            f(&question, subject, &rels, &radices);
        }
    }
}

/// Enumerates the variations of a sentence state, in a fixed order (all of them in memory: for
/// tests and small inputs; [`for_each_variant`] streams).
pub fn overgenerate(input: &Input) -> Vec<Variant> {
    let mut out = Vec::new();
    for_each_variant(input, |v| out.push(v));
    out
}

/// Hands every variation of a sentence state to `f`, in a fixed order; nothing when there are
/// more than [`MAX_VARIATIONS`] (the caller reports it, see [`variation_count`]).
pub fn for_each_variant(input: &Input, mut f: impl FnMut(Variant)) {
    if variation_count(input) > MAX_VARIATIONS {
        return;
    }
    let heads: Vec<Head> = input.nouns.iter().map(head_of).collect();
    let heads = &heads;
    let dets: Vec<&[Det]> = heads.iter().map(articles).collect();
    let complements = input.verbs.len().saturating_sub(1);
    let past_head = input.verbs.first().is_some_and(|v| v.past);
    let wish = is_wish(input);
    plan(input, heads, |question, subject, rels, radices| {
        let others: Vec<usize> = (0..heads.len()).filter(|&k| Some(k) != subject).collect();
        for_each_combination(radices, |d| {
            let (modal, tense) = match d[0] {
                _ if past_head => (None, Tense::Past),
                _ if wish => (Some("would".to_string()), Tense::Present),
                0 => (None, Tense::Present),
                1 => (None, Tense::Past),
                m => (Some(MODALS[m - 2].to_string()), Tense::Present),
            };
            let mut verbs: Vec<VerbNode> = input
                .verbs
                .iter()
                .map(|v| VerbNode::new(&v.lemma, v.past))
                .collect();
            for (i, v) in verbs.iter_mut().skip(1).enumerate() {
                v.form = if d[1 + i] == 0 {
                    VerbForm::ToInfinitive
                } else {
                    VerbForm::Gerund
                };
            }
            let rel_digits = &d[1 + complements..1 + complements + rels.len()];
            let det_digits = &d[1 + complements + rels.len()..];
            let mut nps: Vec<Option<NounPhrase>> = heads
                .iter()
                .enumerate()
                .map(|(k, h)| {
                    Some(NounPhrase {
                        det: dets[k][det_digits[k]],
                        ..NounPhrase::new(h.clone(), k)
                    })
                })
                .collect();
            let chosen: Vec<(usize, Relation)> = others
                .iter()
                .zip(rel_digits)
                .enumerate()
                .map(|(i, (&k, &r))| (k, rels[i][r]))
                .collect();
            // Attach nouns to earlier nouns, last first, so chains keep author order.
            for &(k, rel) in chosen.iter().rev() {
                if let Relation::Attach(p, j) = rel
                    && let Some(np) = nps[k].take()
                    && let Some(target) = nps[j].as_mut()
                {
                    let prep = Some(p.to_string());
                    target.attached.insert(0, PrepPhrase { prep, np });
                }
            }
            let mut loose = Vec::new();
            for &(k, rel) in &chosen {
                let Some(np) = nps[k].take() else { continue };
                match rel {
                    // Without verbs there is nothing to be an object of: a fragment.
                    Relation::Object(_) if verbs.is_empty() => {
                        loose.push(PrepPhrase { prep: None, np })
                    }
                    Relation::Object(v) => verbs[v].objects.push(np),
                    Relation::Oblique(p) => {
                        let last = verbs.len() - 1;
                        verbs[last].obliques.push(PrepPhrase {
                            prep: Some(p.to_string()),
                            np,
                        })
                    }
                    Relation::Attach(..) => {}
                }
            }
            let mut subject_np = subject.and_then(|s| nps[s].take());
            if let Some(s) = subject_np.as_mut() {
                s.attached.append(&mut loose);
            }
            f(Variant {
                clause: Clause {
                    subject: subject_np,
                    verbs,
                    modal,
                    tense,
                    question: question.clone(),
                },
                subject,
            });
        });
    });
}

/// Person of the first noun when it is a pronoun (for reports).
pub fn first_person(input: &Input) -> Option<(Person, Number)> {
    match input.nouns.first() {
        Some(Term::Word(w)) => morph::pronoun_features(w),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::realise::realise;
    use super::*;
    use std::collections::BTreeSet;

    fn input(verbs: &[&str], nouns: &[&str], question: Option<Option<&str>>) -> Input {
        Input {
            verbs: verbs
                .iter()
                .map(|v| match v.strip_prefix("PAST ") {
                    Some(l) => VerbSpec {
                        lemma: l.into(),
                        past: true,
                    },
                    None => VerbSpec {
                        lemma: (*v).into(),
                        past: false,
                    },
                })
                .collect(),
            nouns: nouns
                .iter()
                .map(|n| match n.strip_prefix("VARIABLE ") {
                    Some(v) => Term::Variable(v.into()),
                    None => Term::Word((*n).into()),
                })
                .collect(),
            question: question.map(|q| q.map(Into::into)),
            slot_kinds: Vec::new(),
            subject_as_written: true,
            direct_object: true,
        }
    }

    fn unique(input: &Input) -> BTreeSet<String> {
        overgenerate(input)
            .iter()
            .map(|v| realise(&v.clause).template())
            .collect()
    }

    /// "like, travel" asks what the hearer wants now: "would like", never the habit "do you
    /// like" (which our corpus prefers) nor "can you like".
    #[test]
    fn a_verb_of_liking_with_a_verb_under_it_is_a_wish() {
        let all = unique(&input(&["like", "travel"], &["you"], Some(Some("when"))));
        assert!(all.contains("When would you like to travel?"), "{all:?}");
        assert!(
            all.iter()
                .all(|s| s.contains("would") && s.contains("like")),
            "{all:?}"
        );
        let all = unique(&input(
            &["like", "buy"],
            &["I", "ticket", "VARIABLE CityName"],
            None,
        ));
        assert!(all.contains("I would like to buy a ticket to {CityName}."));
        assert!(
            !all.iter()
                .any(|s| s.starts_with("I like") || s.starts_with("I liked"))
        );
        // Without a verb under it, "like" is an ordinary verb.
        let all = unique(&input(&["like"], &["I", "ticket"], None));
        assert!(all.contains("I like the ticket."), "{all:?}");
        assert!(all.contains("I would like the ticket."), "{all:?}");
    }

    /// Figs. 5.4-5.5: a head verb written `PAST` keeps its tense; no modal reinterprets it.
    #[test]
    fn a_past_head_verb_is_realised_in_the_simple_past_only() {
        let all = unique(&input(
            &["PAST happen"],
            &["flight", "VARIABLE CityName"],
            Some(Some("what")),
        ));
        assert!(
            all.contains("What happened to the flight to {CityName}?"),
            "{all:?}"
        );
        for s in &all {
            assert!(
                !["would", "can", "will", "have", "happens"]
                    .iter()
                    .any(|w| s.split([' ', '?']).any(|x| x == *w)),
                "{s}"
            );
        }
        // A present head still varies: "be, PAST book" keeps "will be booked".
        let booked = unique(&input(
            &["be", "PAST book"],
            &["you", "flight", "VARIABLE CityName"],
            None,
        ));
        assert!(
            booked.iter().any(|s| s.starts_with("You will be booked")),
            "{booked:?}"
        );
    }

    #[test]
    fn want_ticket_to_x_contains_fig_3_4() {
        let i = input(
            &["like", "buy"],
            &["I", "ticket", "VARIABLE CityName"],
            None,
        );
        let all = unique(&i);
        for s in [
            "I would like to buy a ticket to {CityName}.",
            "I would like to buy the ticket to {CityName}.",
            "I would like to buy ticket to {CityName}.",
            "I would like to buy a ticket to the {CityName}.",
        ] {
            assert!(all.contains(s), "missing {s}");
        }
        // Fig. 3.4 also lists the habit "I like to buy a ticket to Boston"; a verb of liking
        // with a verb under it is a wish here (`is_wish`), so it is not generated.
        assert!(!all.contains("I like to buy a ticket to {CityName}."));
        // Many variations realise to the same sentence (Hewlett: 864 -> 306).
        assert!(overgenerate(&i).len() > all.len());
    }

    #[test]
    fn confirm_flight_x_contains_fig_3_5() {
        let i = input(
            &["be", "PAST book"],
            &["you", "flight", "VARIABLE CityName"],
            None,
        );
        let all = unique(&i);
        for s in [
            "You are booked a flight to {CityName}.",
            "You are booked on a flight to {CityName}.",
            "You are booked on the flight to {CityName}.",
            "You are booked on flight to {CityName}.",
            "You would be booked on a flight to {CityName}.",
        ] {
            assert!(all.contains(s), "missing {s}");
        }
    }

    #[test]
    fn when_travel_and_leave_at_x() {
        let all = unique(&input(&["like", "travel"], &["you"], Some(Some("when"))));
        assert!(all.contains("When would you like to travel?"));
        assert!(all.contains("You would like to travel when?"));
        let all = unique(&input(&["like", "leave"], &["I", "VARIABLE Time"], None));
        assert!(all.contains("I would like to leave at {Time}."));
    }

    #[test]
    fn subject_swaps_are_generated() {
        let all = unique(&input(&["hit"], &["Bob", "Sam"], None));
        assert!(all.contains("Bob hit Sam."));
        assert!(all.contains("Sam hit Bob."));
    }

    /// The count is what enumeration yields; beyond the limit nothing is enumerated (five
    /// nouns used to be tens of millions of variations, held in memory at once).
    #[test]
    fn variations_are_counted_and_bounded() {
        let small = input(
            &["be", "PAST book"],
            &["you", "flight", "VARIABLE CityName"],
            None,
        );
        assert_eq!(variation_count(&small), overgenerate(&small).len() as u64);
        let big = input(
            &["like", "buy"],
            &["I", "ticket", "train", "station", "city"],
            None,
        );
        assert!(
            variation_count(&big) > MAX_VARIATIONS,
            "{}",
            variation_count(&big)
        );
        let mut seen = 0;
        for_each_variant(&big, |_| seen += 1);
        assert_eq!(seen, 0);
        // Saturating: a very long noun list does not overflow.
        let huge = input(&["see"], &["a"; 40], None);
        assert_eq!(variation_count(&huge), u64::MAX);
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        for v in overgenerate(&Input::default()) {
            assert!(realise(&v.clause).tokens.is_empty());
        }
        let only_nouns = unique(&input(&[], &["ticket", "VARIABLE CityName"], None));
        assert!(
            only_nouns.contains("A ticket to {CityName}."),
            "{only_nouns:?}"
        );
    }
}
