//! Over-generation (Hewlett §3.4.3): from a sentence state's verbs, nouns and modifiers,
//! enumerate realiser inputs that vary what the state leaves open:
//! - the noun-verb relations: which noun is the subject, and for every other noun whether it is
//!   an object of a verb, a prepositional argument of the last verb, or attached to the noun
//!   before it;
//! - the prepositions ("particles") of those attachments;
//! - the articles (a / the / none);
//! - nothing of tense: a fact is said in the simple present — never with `would` or `can`,
//!   which change what is said ("the ferry *would* leave" is a conditional), nor `will` unless
//!   written (`FUTURE`). A head verb written `PAST` is the simple past only, a modal written on
//!   it (`CAN help`) is that modal only, and a verb of liking with a verb under it is a wish
//!   (`would` only: "would like to");
//! - the form of each complement verb (to-infinitive or gerund);
//! - the question form (wh-word fronted with inversion, in situ, or as the subject).
//!
//! What the designer wrote is meaning and is not varied: a determiner, a possessor, a
//! preposition, a name after a noun, negation, an imperative. A declared slot kind limits its
//! slot to its prepositions (and to the object or subject where the kind allows). A common
//! noun that is the subject of a statement is a thing the speaker has in mind: "the".
//!
//! Most variations are still not grammatical; realisation and de-duplication come next, and
//! the n-gram ranking sorts the rest.

use super::morph::{self, Number, Person};
use super::tree::*;

pub use crate::ir::sentence::{Input, Noun, SlotKind, Term, VerbSpec};

/// One variation: the realiser input and which noun it made the subject.
#[derive(Clone, Debug)]
pub struct Variant {
    pub clause: Clause,
    /// Index of the noun that is the subject (`None`: no subject, or the wh-word is).
    pub subject: Option<usize>,
    /// Whether it puts a preposition where the verb takes an object ([`object_lost`]).
    pub object_lost: bool,
    /// Singular common nouns it says without a determiner (fine for "bread", not "wolf").
    pub bare: Vec<String>,
    /// Whether it introduces a destination with the preposition the word before it does not
    /// take ([`unlike_preposition`]).
    pub unlike_preposition: bool,
}

/// Prepositions tried for prepositional attachments of nouns that have none written.
pub const PREPOSITIONS: &[&str] = &["to", "on", "at", "for", "in"];

/// Verbs of liking that express a wish with `would` and a habit without it: "I would like to
/// leave at seven" (now) is not "I like to leave at seven" (usually).
pub const WISH_VERBS: &[&str] = &["like", "love", "prefer", "hate"];

/// A sentence state whose head verb is a verb of liking with another verb under it states a
/// wish (the conversation is about what the speaker wants now), so its modal is `would`: the
/// simple present and past are habits, and `can`/`will` do not combine with the wish reading.
fn is_wish(input: &Input) -> bool {
    input.modal.is_none()
        && matches!(input.verbs.as_slice(), [head, _, ..] if !head.past && WISH_VERBS.contains(&head.lemma.as_str()))
}

/// The tenses and modals a sentence state is said with (see the module doc).
fn tenses(input: &Input) -> Vec<(Option<String>, Tense)> {
    let past_head = input.verbs.first().is_some_and(|v| v.past);
    if input.imperative {
        vec![(None, Tense::Present)]
    } else if let Some(m) = &input.modal {
        let tense = if past_head {
            Tense::Past
        } else {
            Tense::Present
        };
        vec![(Some(m.clone()), tense)]
    } else if past_head {
        vec![(None, Tense::Past)]
    } else if is_wish(input) {
        vec![(Some("would".into()), Tense::Present)]
    } else {
        // A fact, now or scheduled: the simple present ("The ferry leaves at seven.", "My
        // father works at the mill."). "will" says it is yet to happen — `FUTURE` — and is not
        // always the same fact ("will work at the mill" is not where he works).
        vec![(None, Tense::Present)]
    }
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
        // "something", "nobody": a noun phrase of its own, never with an article.
        Term::Word(w) if morph::INDEFINITE_PRONOUNS.contains(&w.to_lowercase().as_str()) => {
            Head::Proper(w.to_lowercase())
        }
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

/// A preposition as a `'static` word: one of ours, or one a designer may write.
fn static_prep(p: &str) -> Option<&'static str> {
    super::input::WRITTEN_PREPOSITIONS
        .iter()
        .chain(PREPOSITIONS)
        .find(|q| **q == p)
        .copied()
}

/// The declared kind of noun `k`'s slot, when the noun is a slot (a name after a noun is not
/// introduced by anything: its noun is).
fn slot_kind(input: &Input, k: usize) -> Option<SlotKind> {
    let Term::Variable(name) = &input.nouns[k].term else {
        return None;
    };
    input
        .slot_kinds
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, kind)| *kind)
}

/// The determiners noun `k` is tried with.
fn articles(input: &Input, heads: &[Head], k: usize) -> Vec<Det> {
    let noun = &input.nouns[k];
    if let Some(d) = &noun.det {
        return vec![Det::Written(d.clone())];
    }
    if noun.possessor.is_some() || noun.name.is_some() {
        return vec![Det::None];
    }
    match &heads[k] {
        Head::Pronoun { .. } => vec![Det::None],
        // A plural the designer did not write "the" before is said bare ("needs new shoes",
        // "does not sell weapons"): "the" would pick out ones the hearer knows. A singular
        // takes "a" or "the" as the counts say, or nothing when it is a mass noun ("bread"):
        // the ranking knows which (`rank::bare_count_noun`).
        Head::Common(w) if super::lexicon::is_plural(w) => vec![Det::None],
        Head::Common(_) => vec![Det::A, Det::The, Det::None],
        // A declared slot is a name, a time, a price: no article.
        Head::Slot(_) if slot_kind(input, k).is_some() => vec![Det::None],
        Head::Proper(_) => vec![Det::None],
        Head::Slot(_) => vec![Det::None, Det::The],
    }
}

/// The nouns that are said: all of them, but the hearer of a command ("you, the anvil").
fn said(input: &Input, heads: &[Head]) -> Vec<usize> {
    (0..heads.len())
        .filter(|&k| {
            !(k == 0
                && input.imperative
                && matches!(
                    heads[0],
                    Head::Pronoun {
                        person: Person::Second,
                        ..
                    }
                ))
        })
        .collect()
}

/// The nouns that may be the subject.
fn subjects(input: &Input, heads: &[Head], wh_subject: bool) -> Vec<Option<usize>> {
    if wh_subject || input.imperative || heads.is_empty() {
        return vec![None];
    }
    let may = |k: usize| {
        input.nouns[k].prep.is_none() && slot_kind(input, k).is_none_or(SlotKind::may_be_subject)
    };
    let out: Vec<Option<usize>> = (0..heads.len().min(2))
        .filter(|&k| may(k))
        .map(Some)
        .collect();
    if out.is_empty() { vec![None] } else { out }
}

/// The relations noun `k` may take, given the subject and the verbs.
fn relations(
    input: &Input,
    heads: &[Head],
    subject: Option<usize>,
    said: &[usize],
    k: usize,
) -> Vec<Relation> {
    let last = input.verbs.len().saturating_sub(1);
    let noun = &input.nouns[k];
    let kind = slot_kind(input, k);
    let preps: Vec<&'static str> = match (&noun.prep, kind) {
        (Some(p), _) => static_prep(p).into_iter().collect(),
        (None, Some(kind)) => kind.prepositions().to_vec(),
        (None, None) => PREPOSITIONS.to_vec(),
    };
    // A passive's participle takes no object, unless its verb takes two ("you were given a
    // key", but not "you are booked a flight").
    let passive = matches!(input.verbs.as_slice(), [be, .., done] if be.lemma == "be" && done.past);
    let passive_object = !passive
        || input
            .verbs
            .last()
            .is_some_and(|v| super::lexicon::valency(&v.lemma).ditransitive);
    let may_be_object =
        noun.prep.is_none() && kind.is_none_or(|k| !k.needs_preposition()) && passive_object;
    let mut out = Vec::new();
    if !input.verbs.is_empty() {
        if may_be_object {
            out.push(Relation::Object(last));
            // "I want you to travel": the first verb's object does the second, so it is one
            // who can (not "I would like the ticket to book"); a passive's "be" takes none.
            if last > 0 && input.verbs[0].lemma != "be" && may_act(&heads[k], kind) {
                out.push(Relation::Object(0));
            }
        }
        out.extend(preps.iter().map(|p| Relation::Oblique(p)));
    }
    // Attach to the nearest earlier said noun that is not the subject and not a pronoun.
    let prev = said.iter().rev().copied().filter(|&j| j < k).find(|&j| {
        (Some(j) != subject || input.verbs.is_empty()) && !matches!(heads[j], Head::Pronoun { .. })
    });
    if let Some(j) = prev
        && !matches!(heads[k], Head::Pronoun { .. })
    {
        out.extend(preps.iter().map(|p| Relation::Attach(p, j)));
    }
    if out.is_empty() {
        out.push(Relation::Object(0));
    }
    out
}

/// Whether a noun can be the one who does a complement verb ("want *you* to travel"): a
/// pronoun, a name, a person slot, or a kind of person (WordNet, through the related-words
/// table). A slot of no declared kind may be anyone.
fn may_act(head: &Head, kind: Option<SlotKind>) -> bool {
    match head {
        Head::Common(word) => {
            word == "person" || crate::related::kinds("person").contains(&word.as_str())
        }
        Head::Slot(_) => kind.is_none_or(|k| k == SlotKind::Person),
        _ => true,
    }
}

/// Verbs whose first noun is introduced by a preposition though WordNet lets them take an
/// object: "wait for you", "pay for the room" (paying the room is not said), "look at", "listen
/// to", "talk to", "belong to".
pub const PREPOSITIONAL_VERBS: &[&str] = &[
    "arrive", "belong", "come", "go", "happen", "listen", "live", "look", "pay", "return", "run",
    "sit", "sleep", "speak", "stay", "talk", "travel", "wait", "walk",
];

/// Whether a variation puts a preposition where the verb takes an object, as an English
/// clause with a transitive verb does not ("I would need *for* a ticket", "Do not touch *in*
/// the king's horse"; Hewlett's Figs. 3.4 and 3.5 put the object right after the verb). The
/// n-grams often prefer such frequent bigrams ("need for", "take in"), so the over-generator
/// says which variations lose the object and the ranking puts them last. Judged on the first
/// noun after the subject: a word noun, or a price (what is paid or costs), when the last verb
/// takes an object (WordNet) and is not one of [`PREPOSITIONAL_VERBS`]; for a verb that takes
/// two objects, the second noun too ("give him *the letter*", not "give him *in* the letter";
/// "give the letter *to* him" is fine). Not for a passive (its object is its subject: "booked
/// *on* the flight"), nor where the designer wrote the preposition.
fn object_lost(input: &Input, subject: Option<usize>, chosen: &[(usize, Relation)]) -> bool {
    let (Some(head), Some(last)) = (input.verbs.first(), input.verbs.last()) else {
        return false;
    };
    if head.lemma == "be" {
        return false;
    }
    let valency = super::lexicon::valency(&last.lemma);
    let after: Vec<&(usize, Relation)> =
        chosen.iter().filter(|(k, _)| Some(*k) != subject).collect();
    let Some(&&(a, rel_a)) = after.first() else {
        return false;
    };
    let object_word = |k: usize| {
        let noun = &input.nouns[k];
        noun.prep.is_none() && matches!(noun.term, Term::Word(_))
    };
    let is_object = |r: Relation| matches!(r, Relation::Object(_));
    let price = input.nouns[a].prep.is_none() && slot_kind(input, a) == Some(SlotKind::Price);
    let takes_object = valency.transitive && !PREPOSITIONAL_VERBS.contains(&last.lemma.as_str());
    // What is paid is the last verb's ("need to pay {Price}", not "need {Price} to pay").
    let last_index = input.verbs.len() - 1;
    if price && rel_a != Relation::Object(last_index) {
        return true;
    }
    // "give the letter to him": a verb of two objects may say the first with "to" or "for".
    let recipient_after = valency.ditransitive
        && matches!(rel_a, Relation::Oblique("to" | "for"))
        && after.get(1).is_some_and(|&&(_, r)| is_object(r));
    if object_word(a) && takes_object && !is_object(rel_a) && !recipient_after {
        return true;
    }
    // Two objects: the one who receives comes first ("gave {Guest} the key", never "gave the
    // key {Guest}").
    let person = |k: usize| {
        matches!(heads_person(input, k), Some(true))
            || slot_kind(input, k) == Some(SlotKind::Person)
    };
    let mut thing_object_before: Vec<usize> = Vec::new();
    for &&(k, r) in &after {
        if let Relation::Object(v) = r {
            if person(k) && thing_object_before.contains(&v) {
                return true;
            }
            if !person(k) {
                thing_object_before.push(v);
            }
        }
    }
    let price_at =
        |k: usize| input.nouns[k].prep.is_none() && slot_kind(input, k) == Some(SlotKind::Price);
    if valency.ditransitive
        && let Some(&&(b, rel_b)) = after.get(1)
        && (object_word(b) || price_at(b))
        && object_word(a)
        && is_object(rel_a)
        && !is_object(rel_b)
    {
        return true;
    }
    false
}

/// Whether a variation introduces a `Destination` slot with the preposition its verb or noun
/// does not take before a place, where the corpus shows which it takes ("leave *for*
/// {Town}", "go *to* {Town}"; [`super::lexicon::destination_preposition`]). The n-grams cannot
/// tell: their counts are lower-cased, and "leave to" is mostly "leave to go".
fn unlike_preposition(input: &Input, heads: &[Head], chosen: &[(usize, Relation)]) -> bool {
    chosen.iter().any(|&(k, rel)| {
        if slot_kind(input, k) != Some(SlotKind::Destination) || input.nouns[k].prep.is_some() {
            return false;
        }
        let (prep, word) = match rel {
            Relation::Oblique(p) => (p, input.verbs.last().map(|v| v.lemma.clone())),
            Relation::Attach(p, j) => (
                p,
                match &heads[j] {
                    Head::Common(w) => w.rsplit(' ').next().map(str::to_string),
                    _ => None,
                },
            ),
            Relation::Object(_) => return false,
        };
        word.and_then(|w| super::lexicon::destination_preposition(&w))
            .is_some_and(|wanted| wanted != prep)
    })
}

/// Whether noun `k` is a personal pronoun (`None` when it is no pronoun at all).
fn heads_person(input: &Input, k: usize) -> Option<bool> {
    match &input.nouns[k].term {
        Term::Word(w) => morph::pronoun_features(w).map(|_| !w.eq_ignore_ascii_case("it")),
        Term::Variable(_) => None,
    }
}

/// The question placements to try.
fn placements(input: &Input) -> Vec<Option<Question>> {
    match &input.question {
        _ if input.imperative => vec![None],
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
    let heads: Vec<Head> = input.nouns.iter().map(|n| head_of(&n.term)).collect();
    plan(input, &heads, |p| {
        let n = p
            .radices
            .iter()
            .fold(1u64, |acc, r| acc.saturating_mul(*r as u64));
        total = total.saturating_add(n);
    });
    total
}

/// One question placement and subject, with the choices left for the other nouns.
struct Plan<'a> {
    question: &'a Option<Question>,
    subject: Option<usize>,
    /// The said nouns other than the subject, in order.
    others: &'a [usize],
    /// Their relations.
    rels: &'a [Vec<Relation>],
    /// Each noun's determiners (indexed by noun).
    dets: &'a [Vec<Det>],
    tenses: &'a [(Option<String>, Tense)],
    /// Digits: tense, complement forms, relations of `others`, determiners of every noun.
    radices: &'a [usize],
}

fn plan(input: &Input, heads: &[Head], mut f: impl FnMut(&Plan<'_>)) {
    let said = said(input, heads);
    let tenses = tenses(input);
    for question in placements(input) {
        let wh_subject = matches!(
            question,
            Some(Question::Wh {
                placement: WhPlacement::Subject,
                ..
            })
        );
        for subject in subjects(input, heads, wh_subject) {
            let others: Vec<usize> = said
                .iter()
                .copied()
                .filter(|&k| Some(k) != subject)
                .collect();
            let rels: Vec<Vec<Relation>> = others
                .iter()
                .map(|&k| relations(input, heads, subject, &said, k))
                .collect();
            let dets: Vec<Vec<Det>> = (0..heads.len())
                .map(|k| articles(input, heads, k))
                .collect();
            let complements = input.verbs.len().saturating_sub(1);
            let mut radices = vec![tenses.len()];
            radices.extend(std::iter::repeat_n(2, complements));
            radices.extend(rels.iter().map(Vec::len));
            radices.extend(dets.iter().map(Vec::len));
            f(&Plan {
                question: &question,
                subject,
                others: &others,
                rels: &rels,
                dets: &dets,
                tenses: &tenses,
                radices: &radices,
            });
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

/// The noun phrase of noun `k` with determiner `det`.
fn noun_phrase(input: &Input, heads: &[Head], k: usize, det: Det) -> NounPhrase {
    let noun = &input.nouns[k];
    let possessor = noun.possessor.as_ref().map(|p| {
        let head = head_of(p);
        let det = match head {
            Head::Common(_) => Det::The,
            _ => Det::None,
        };
        Box::new(NounPhrase {
            det,
            ..NounPhrase::new(head, k)
        })
    });
    NounPhrase {
        det,
        possessor,
        name: noun.name.clone(),
        ..NounPhrase::new(heads[k].clone(), k)
    }
}

/// Hands every variation of a sentence state to `f`, in a fixed order; nothing when there are
/// more than [`MAX_VARIATIONS`] (the caller reports it, see [`variation_count`]).
pub fn for_each_variant(input: &Input, mut f: impl FnMut(Variant)) {
    if variation_count(input) > MAX_VARIATIONS {
        return;
    }
    let heads: Vec<Head> = input.nouns.iter().map(|n| head_of(&n.term)).collect();
    let heads = &heads;
    let complements = input.verbs.len().saturating_sub(1);
    plan(input, heads, |p| {
        for_each_combination(p.radices, |d| {
            let (modal, tense) = p.tenses[d[0]].clone();
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
            let rel_digits = &d[1 + complements..1 + complements + p.rels.len()];
            let det_digits = &d[1 + complements + p.rels.len()..];
            let mut nps: Vec<Option<NounPhrase>> = (0..heads.len())
                .map(|k| {
                    Some(noun_phrase(
                        input,
                        heads,
                        k,
                        p.dets[k][det_digits[k]].clone(),
                    ))
                })
                .collect();
            let chosen: Vec<(usize, Relation)> = p
                .others
                .iter()
                .zip(rel_digits)
                .enumerate()
                .map(|(i, (&k, &r))| (k, p.rels[i][r]))
                .collect();
            // Attach nouns to earlier nouns, last first, so chains keep author order.
            for &(k, rel) in chosen.iter().rev() {
                if let Relation::Attach(prep, j) = rel
                    && let Some(np) = nps[k].take()
                    && let Some(target) = nps[j].as_mut()
                {
                    let prep = Some(prep.to_string());
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
                    Relation::Oblique(prep) => {
                        let last = verbs.len() - 1;
                        verbs[last].obliques.push(PrepPhrase {
                            prep: Some(prep.to_string()),
                            np,
                        })
                    }
                    Relation::Attach(..) => {}
                }
            }
            let object_lost = object_lost(input, p.subject, &chosen);
            let unlike_preposition = unlike_preposition(input, heads, &chosen);
            let bare: Vec<String> = (0..heads.len())
                .filter(|&k| {
                    input.nouns[k].det.is_none()
                        && input.nouns[k].possessor.is_none()
                        && input.nouns[k].name.is_none()
                        && p.dets[k][det_digits[k]] == Det::None
                })
                .filter_map(|k| match &heads[k] {
                    Head::Common(w) if !super::lexicon::is_plural(w) => Some(w.clone()),
                    _ => None,
                })
                .collect();
            let mut subject_np = p.subject.and_then(|s| nps[s].take());
            if let Some(s) = subject_np.as_mut() {
                s.attached.append(&mut loose);
            } else if verbs.is_empty() && !loose.is_empty() {
                // A fragment without a subject: its first noun heads it.
                let mut first = loose.remove(0).np;
                first.attached.append(&mut loose);
                subject_np = Some(first);
            }
            f(Variant {
                clause: Clause {
                    subject: subject_np,
                    verbs,
                    modal,
                    tense,
                    question: p.question.clone(),
                    negated: input.negated,
                    imperative: input.imperative,
                },
                subject: p.subject,
                object_lost,
                bare,
                unlike_preposition,
            });
        });
    });
}

/// Person of the first noun when it is a pronoun (for reports).
pub fn first_person(input: &Input) -> Option<(Person, Number)> {
    match input.nouns.first().map(|n| &n.term) {
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
                    Some(v) => Noun::plain(Term::Variable(v.into())),
                    None => Noun::plain(Term::Word((*n).into())),
                })
                .collect(),
            question: question.map(|q| q.map(Into::into)),
            negated: false,
            modal: None,
            imperative: false,
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
        // Without a verb under it, "like" is an ordinary verb: a fact, in the present.
        let all = unique(&input(&["like"], &["I", "ticket"], None));
        assert!(all.contains("I like the ticket."), "{all:?}");
        assert!(!all.contains("I would like the ticket."), "{all:?}");
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
        // A present head is a fact now: "be, PAST book" is "are booked", never "were".
        let booked = unique(&input(
            &["be", "PAST book"],
            &["you", "flight", "VARIABLE CityName"],
            None,
        ));
        assert!(booked.contains("You are booked on a flight to {CityName}."));
        assert!(
            booked.iter().all(|s| [" were ", " was ", "will", "would"]
                .iter()
                .all(|w| !s.contains(w))),
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
            "You are booked on a flight to {CityName}.",
            "You are booked on the flight to {CityName}.",
            "You are booked on flight to {CityName}.",
        ] {
            assert!(all.contains(s), "missing {s}");
        }
        // Fig. 3.5 also lists "You are booked a flight" (the flight as an object of "be": a
        // passive's "be" takes none) and "You would be booked" (a conditional: not this fact).
        assert!(!all.contains("You are booked a flight to {CityName}."));
        assert!(!all.iter().any(|s| s.contains("would")));
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
        assert!(all.contains("Bob hits Sam."));
        assert!(all.contains("Sam hits Bob."));
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
