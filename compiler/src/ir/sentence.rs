//! Sentence states as the IR holds them: what a `*.sentences.ron` state says (verbs, nouns,
//! question form) and, once ranked, its candidate lines. The natural-language stage (`nlg`)
//! fills these; the IR only holds them, so it depends on nothing above it.

use std::fmt;

/// How a sentence file's candidates are scored against its n-gram counts (`scoring:`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Method {
    /// Eq. 3.1 exactly; `-inf` as soon as one n-gram is unseen.
    Eq31,
    /// Stupid back-off.
    StupidBackoff,
    /// Interpolated absolute discounting (Ney, Essen & Kneser 1994), `D = 0.75`: the default.
    #[default]
    Interpolated,
    /// Interpolated modified Kneser-Ney (Chen & Goodman 1998).
    KneserNey,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Eq31 => "eq3.1",
            Method::StupidBackoff => "stupid-backoff",
            Method::Interpolated => "interpolated",
            Method::KneserNey => "kneser-ney",
        }
    }
}

/// A verb of a sentence state (`PAST book` is `past: true`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerbSpec {
    pub lemma: String,
    pub past: bool,
}

/// The head of a noun of a sentence state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Word(String),
    /// `VARIABLE <Name>`.
    Variable(String),
}

/// A noun of a sentence state with what the designer wrote around it. What is written is
/// meaning, so the over-generator keeps it; what is left open it varies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Noun {
    pub term: Term,
    /// A determiner written before it (`the ferry`, `a room`, `some bread`, `my horse`),
    /// lower-case.
    pub det: Option<String>,
    /// A possessor written before it: `VARIABLE GuestName's horse`, `smith's hammer`.
    pub possessor: Option<Term>,
    /// A preposition written before it: `from VARIABLE TownName`, `for the ring`.
    pub prep: Option<String>,
    /// A slot named after it: `gate VARIABLE GateNumber` says "gate {GateNumber}".
    pub name: Option<String>,
}

impl Noun {
    /// A noun with nothing written around it.
    pub fn plain(term: Term) -> Noun {
        Noun {
            term,
            det: None,
            possessor: None,
            prep: None,
            name: None,
        }
    }

    /// The `VARIABLE` slots this noun says: its possessor's, its own, the name after it.
    pub fn slots(&self) -> impl Iterator<Item = &str> {
        fn var(t: Option<&Term>) -> Option<&str> {
            match t {
                Some(Term::Variable(v)) => Some(v.as_str()),
                _ => None,
            }
        }
        [
            var(self.possessor.as_ref()),
            var(Some(&self.term)),
            self.name.as_deref(),
        ]
        .into_iter()
        .flatten()
    }
}

/// What a `VARIABLE` slot stands for (`slots: {"CityName": Destination}`): it decides which
/// prepositions may introduce the slot, whether it may take an article, and whether it may be
/// the subject. These are meanings the n-gram counts cannot tell apart ("a ticket *in* Boston"
/// is common English; it just does not say where the ticket goes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum SlotKind {
    /// Where something goes: "to", "for".
    Destination,
    /// Where something comes from: "from".
    Origin,
    /// A clock time: "at".
    Time,
    /// Where something is: "in", "at".
    Place,
    /// An amount of money: "for", or the object ("pay {Price}").
    Price,
    /// A named person: the object, or "to" (a recipient), and may be the subject.
    Person,
    /// What is talked about: "about".
    Topic,
    /// How long: "for".
    Duration,
}

impl SlotKind {
    /// The prepositions that may introduce the slot.
    pub fn prepositions(self) -> &'static [&'static str] {
        match self {
            // "a ticket for Boston", "the coach leaves for Bath" say where, too.
            SlotKind::Destination => &["to", "for"],
            SlotKind::Origin => &["from"],
            SlotKind::Time => &["at"],
            SlotKind::Place => &["in", "at"],
            SlotKind::Price => &["for"],
            SlotKind::Person => &["to", "for", "with"],
            SlotKind::Topic => &["about"],
            SlotKind::Duration => &["for"],
        }
    }

    /// Values of the kind the corpus knows well, which ranking fills the slot with beside the
    /// designer's example: one example word brings its own n-grams ("Bath" is also a bath),
    /// several of its kind say what the kind does.
    pub fn stand_ins(self) -> &'static [&'static str] {
        match self {
            SlotKind::Destination | SlotKind::Origin | SlotKind::Place => {
                &["London", "Paris", "Rome"]
            }
            SlotKind::Time => &["seven", "noon", "midnight"],
            SlotKind::Price => &["five pounds", "ten shillings", "a guinea"],
            SlotKind::Person => &["John", "Mary", "Tom"],
            SlotKind::Topic => &["the war", "the king", "the weather"],
            SlotKind::Duration => &["three days", "a week", "two hours"],
        }
    }

    /// Whether the slot must come after one of its prepositions (it cannot be an object).
    pub fn needs_preposition(self) -> bool {
        !matches!(self, SlotKind::Price | SlotKind::Person)
    }

    /// Whether the slot may be the sentence's subject ("Boston left at the coach" may not;
    /// "{Price} is too much" may).
    pub fn may_be_subject(self) -> bool {
        matches!(self, SlotKind::Person | SlotKind::Price)
    }
}

/// What the over-generator needs from a sentence state.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Input {
    pub verbs: Vec<VerbSpec>,
    pub nouns: Vec<Noun>,
    /// `QUESTION` (with its wh-word, if any).
    pub question: Option<Option<String>>,
    /// `NOT` on the head verb: the clause is negated.
    pub negated: bool,
    /// A modal written on the head verb, lower-case (`CAN help`: "can"; `FUTURE`: "will").
    pub modal: Option<String>,
    /// `IMPERATIVE` on the head verb: a command to the hearer, who is not said.
    pub imperative: bool,
    /// The declared kind of each slot that has one (`slots:` of the file and of the state).
    pub slot_kinds: Vec<(String, SlotKind)>,
    /// Whether candidates whose subject is not the first noun written rank after those whose
    /// subject is (`nlg::rank::keeps_written_subject`). The compiler always sets it; the
    /// evaluation clears it to measure the rankings from before the rule.
    pub subject_as_written: bool,
    /// Whether candidates that put a preposition before the first noun after the subject rank
    /// after those that make it the verb's object, unless the verb takes a preposition there
    /// (`nlg::rank::keeps_direct_object`). Set and cleared like `subject_as_written`.
    pub direct_object: bool,
}

/// A realised word, or a `VARIABLE` slot filled at run time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    Word(String),
    Slot(String),
}

impl Token {
    /// Whether it is written without a space before it: the possessive "'s".
    pub fn attaches(&self) -> bool {
        matches!(self, Token::Word(w) if w.starts_with('\''))
    }
}

/// A realised sentence: tokens, then the final punctuation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sentence {
    pub tokens: Vec<Token>,
    pub question: bool,
}

impl Sentence {
    /// The sentence with slots written `{Name}`, capitalised and punctuated: the template a
    /// candidate line is stored as, and what de-duplication compares.
    pub fn template(&self) -> String {
        self.to_string()
    }

    /// The sentence with each slot replaced by `fill(name)` (for ranking with sample values).
    pub fn with_slots(&self, fill: impl Fn(&str) -> String) -> String {
        let mut s = String::new();
        for (i, t) in self.tokens.iter().enumerate() {
            if i > 0 && !t.attaches() {
                s.push(' ');
            }
            match t {
                Token::Word(w) => s.push_str(w),
                Token::Slot(n) => s.push_str(&fill(n)),
            }
        }
        s.push(if self.question { '?' } else { '.' });
        capitalise(&s)
    }
}

impl fmt::Display for Sentence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.with_slots(|n| format!("{{{n}}}")))
    }
}

/// Upper-cases the first letter.
pub fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// One realisation of a sentence state, scored.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// Stable id (see [`ensemble_runtime::speech::candidate_id`]).
    pub id: u32,
    pub sentence: Sentence,
    /// The line with slots written `{Name}`.
    pub template: String,
    /// The n-gram score (higher is better); `-inf` under Eq. 3.1 when an n-gram is unseen.
    pub score: f64,
    /// The noun the realisation made the subject (for the swapped-arguments check).
    pub subject: Option<usize>,
    /// Whether every variation that realises it puts a preposition where the verb takes an
    /// object (`nlg::overgen::object_lost`).
    pub object_lost: bool,
    /// Whether it says a count noun without a determiner ("I saw wolf"): a singular common
    /// noun said bare that the counts mostly see after "a"/"an" (`nlg::rank::is_count_noun`).
    pub bare_count: bool,
    /// Whether it gives a destination the preposition its verb or noun does not take before
    /// a place ("leave *to* {Town}"; `nlg::overgen::unlike_preposition`).
    pub unlike_preposition: bool,
    /// Words the n-gram database does not know.
    pub oov: Vec<String>,
}

/// What generation did for one sentence state (Hewlett: 864 variations, 306 unique).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenerationReport {
    pub variations: usize,
    pub unique: usize,
}
