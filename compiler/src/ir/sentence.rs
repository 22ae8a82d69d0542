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
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Eq31 => "eq3.1",
            Method::StupidBackoff => "stupid-backoff",
            Method::Interpolated => "interpolated",
        }
    }
}

/// A verb of a sentence state (`PAST book` is `past: true`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerbSpec {
    pub lemma: String,
    pub past: bool,
}

/// A noun of a sentence state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Term {
    Word(String),
    /// `VARIABLE <Name>`.
    Variable(String),
}

/// What the over-generator needs from a sentence state.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Input {
    pub verbs: Vec<VerbSpec>,
    pub nouns: Vec<Term>,
    /// `QUESTION` (with its wh-word, if any).
    pub question: Option<Option<String>>,
}

/// A realised word, or a `VARIABLE` slot filled at run time.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Token {
    Word(String),
    Slot(String),
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
            if i > 0 {
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
    /// Words the n-gram database does not know.
    pub oov: Vec<String>,
}

/// What generation did for one sentence state (Hewlett: 864 variations, 306 unique).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenerationReport {
    pub variations: usize,
    pub unique: usize,
}
