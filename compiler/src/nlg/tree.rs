//! The realiser's input: a deep-syntactic tree in the spirit of RealPro's DSyntS (Hewlett
//! Fig. 3.3). One node per content word; relations say how it attaches (subject = relation I,
//! object = relation II, attributes = relation -1), features say how it inflects (person,
//! tense, question).

use super::morph::{Gender, Number, Person};

/// The head of a noun phrase.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Head {
    /// A personal pronoun (`pro="pro"`): the form comes from person, number and the case the
    /// relation gives it.
    Pronoun {
        person: Person,
        number: Number,
        gender: Gender,
    },
    /// A common noun ("ticket"): takes an article.
    Common(String),
    /// A proper name ("Boston"): written as given.
    Proper(String),
    /// A `VARIABLE` slot, filled at run time ("CityName").
    Slot(String),
}

/// Determiner of a noun phrase.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Det {
    None,
    /// "a" / "an".
    A,
    The,
    /// "my", "your", ... (`pro="poss"`).
    Possessive(Person, Number),
    /// A determiner the designer wrote ("some", "this", "no", "my"), said as written.
    Written(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NounPhrase {
    pub head: Head,
    pub det: Det,
    /// Attributes attached to this noun: "flight *to Boston*".
    pub attached: Vec<PrepPhrase>,
    /// Whose it is: "*{Guest}'s* horse", "*the smith's* hammer" (then `det` is `None`).
    pub possessor: Option<Box<NounPhrase>>,
    /// A slot that names it, said after it: "gate *{GateNumber}*".
    pub name: Option<String>,
    /// Index of the sentence-state noun this phrase realises (for meaning checks).
    pub source: usize,
}

impl NounPhrase {
    pub fn new(head: Head, source: usize) -> Self {
        NounPhrase {
            head,
            det: Det::None,
            attached: Vec::new(),
            possessor: None,
            name: None,
            source,
        }
    }
}

/// A noun phrase under a preposition (`None`: attached bare).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PrepPhrase {
    pub prep: Option<String>,
    pub np: NounPhrase,
}

/// How a verb after the first appears under the verb before it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VerbForm {
    /// "like *to buy*".
    ToInfinitive,
    /// "like *buying*", "are *booking*".
    Gerund,
    /// "are *booked*" (with `PAST`: passive after be, perfect after have).
    Participle,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct VerbNode {
    pub lemma: String,
    /// Written `PAST <verb>` in the sentence state.
    pub past: bool,
    /// Form under the previous verb; ignored for the head verb.
    pub form: VerbForm,
    /// Relation II: "buy *a ticket*".
    pub objects: Vec<NounPhrase>,
    /// Prepositional arguments: "leave *at seven*".
    pub obliques: Vec<PrepPhrase>,
}

impl VerbNode {
    pub fn new(lemma: &str, past: bool) -> Self {
        VerbNode {
            lemma: lemma.to_string(),
            past,
            form: VerbForm::ToInfinitive,
            objects: Vec::new(),
            obliques: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tense {
    Present,
    Past,
}

/// Where a wh-word goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WhPlacement {
    /// Fronted with subject-auxiliary inversion (and do-support): "When would you like to travel?"
    Fronted,
    /// The wh-word is the subject: "What happened to the flight?"
    Subject,
    /// Left in place, an echo question: "You would like to travel when?"
    InSitu,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// `question="+"` without a wh-word: "Can I have your ticket?"
    YesNo,
    Wh {
        word: String,
        placement: WhPlacement,
    },
}

/// One clause: the whole sentence of a sentence state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Clause {
    pub subject: Option<NounPhrase>,
    /// The verb chain: `verbs[0]` is the head, each next verb is the complement of the one before.
    pub verbs: Vec<VerbNode>,
    /// A modal auxiliary on the head ("would", "can").
    pub modal: Option<String>,
    pub tense: Tense,
    pub question: Option<Question>,
    /// "does *not* leave", "*cannot* enter".
    pub negated: bool,
    /// A command: no subject, the verb's base form ("Go to gate two.", "Do not touch it.").
    pub imperative: bool,
}
