//! Speech: what a program carries of its sentence states (Hewlett 2013, §3.4), and the two things
//! the runtime does with them: fill the `VARIABLE` slots and choose a candidate.
//!
//! Everything expensive happened at compile time: over-generation, realisation, de-duplication
//! and n-gram ranking. For each sentence state the program keeps its best candidates, best first,
//! each a sequence of text and slots with its score and a stable id (the same line keeps the same
//! id across rebuilds, for string tables and voice recording). Choosing is a weighted draw among
//! the first `choose_among` candidates (Hewlett §3.4.4: "a weighted average to pick from the
//! first two entries"), weight `2^score`, from the agent's seeded random stream.
//!
//! Invariant: in a verified program every sentence state's candidates are contiguous and in
//! range, `choose_among` is at least 1, scores are finite and every slot index is below its
//! state's slot count, so [`SpeechTable::choose`] and [`SpeechTable::fill`] index without
//! checks. A slot whose variable has no value is not an error: it is spoken as `{Name}` and
//! reported, so a missing binding shows in the trace instead of silencing the agent.
//!
//! # Example
//!
//! ```
//! use ensemble_runtime::program::{NameId, ProgramParts};
//! use ensemble_runtime::speech::*;
//!
//! let names = vec!["WantTicketTo".to_string(), "City".to_string()];
//! let line = |template: &str, parts, score| CandidateDef {
//!     id: candidate_id("WantTicketTo", template),
//!     parts,
//!     score,
//! };
//! let speech = SpeechTable {
//!     sentences: vec![SentenceDef {
//!         name: NameId(0),
//!         slots: vec![NameId(1)],
//!         first_candidate: 0,
//!         candidate_count: 2,
//!         choose_among: 2,
//!     }],
//!     candidates: vec![
//!         line(
//!             "a ticket to {City}, please",
//!             vec![
//!                 Part::Text("a ticket to ".into()),
//!                 Part::Slot(0),
//!                 Part::Text(", please".into()),
//!             ],
//!             -4.0,
//!         ),
//!         line(
//!             "i need to get to {City}",
//!             vec![Part::Text("i need to get to ".into()), Part::Slot(0)],
//!             -7.0,
//!         ),
//!     ],
//!     bindings: vec![],
//! };
//! let program = ProgramParts { names, speech, ..ProgramParts::default() }.verify()?;
//! let speech = &program.speech;
//! let id = speech.sentence_by_name(program.name_id("WantTicketTo").unwrap()).unwrap();
//!
//! // Weights 2^-4 and 2^-7: the better line takes 8/9 of the draws.
//! assert_eq!(speech.choose(id, 0.5), Some(0));
//! assert_eq!(speech.choose(id, 0.95), Some(1));
//!
//! let best = &speech.candidates_of(id)[0];
//! let (said, unbound) = speech.fill(&program, id, best, |v| (v == "City").then_some("Boston"));
//! assert_eq!(said, "A ticket to Boston, please");
//! assert!(unbound.is_empty());
//! let (said, unbound) = speech.fill(&program, id, best, |_| None);
//! assert_eq!(said, "A ticket to {City}, please");
//! assert_eq!(unbound, [Unbound("City".into())]);
//! # Ok::<(), ensemble_runtime::LoadError>(())
//! ```

pub mod transaction;

use crate::program::Program;
pub use crate::program::speech::{
    AgentBinding, CandidateDef, Part, SentenceDef, SentenceId, SpeechTable,
};

/// Why a line could not be spoken as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Unbound(pub String);

impl SpeechTable {
    /// Picks a candidate by weight among the best `choose_among`; `u` is uniform in `[0, 1)`.
    /// Returns an index into [`SpeechTable::candidates_of`] (`None` when there is none).
    pub fn choose(&self, id: SentenceId, u: f64) -> Option<usize> {
        let cands = self.candidates_of(id);
        let k = (self.sentence(id).choose_among as usize).min(cands.len());
        if k == 0 {
            return None;
        }
        // Weights relative to the best, so that very negative scores do not underflow.
        let best = cands[0].score as f64;
        let weights: Vec<f64> = cands[..k]
            .iter()
            .map(|c| (c.score as f64 - best).exp2())
            .collect();
        let total: f64 = weights.iter().sum();
        let mut x = u.clamp(0.0, 1.0) * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return Some(i);
            }
            x -= w;
        }
        Some(k - 1)
    }

    /// The line with its slots filled by `value(variable name)`, capitalised, with "a" turned
    /// into "an" before a value that starts with a vowel. A slot without a value is written
    /// `{Name}` and reported.
    pub fn fill<'v>(
        &self,
        program: &Program,
        id: SentenceId,
        candidate: &CandidateDef,
        value: impl Fn(&str) -> Option<&'v str>,
    ) -> (String, Vec<Unbound>) {
        self.fill_parts(program, id, &candidate.parts, true, value)
    }

    /// [`SpeechTable::fill`] on given parts (a translation of a candidate): `english` applies
    /// the "a"/"an" rule, which only the source language's lines follow.
    pub fn fill_parts<'v>(
        &self,
        program: &Program,
        id: SentenceId,
        parts: &[Part],
        english: bool,
        value: impl Fn(&str) -> Option<&'v str>,
    ) -> (String, Vec<Unbound>) {
        let sentence = self.sentence(id);
        let mut out = String::new();
        let mut missing = Vec::new();
        for part in parts {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Slot(i) => {
                    let name = sentence
                        .slots
                        .get(*i as usize)
                        .map(|n| program.name(*n))
                        .unwrap_or("?");
                    match value(name) {
                        Some(v) => {
                            if english {
                                fix_article(&mut out, v);
                            }
                            out.push_str(v);
                        }
                        None => {
                            missing.push(Unbound(name.to_string()));
                            out.push('{');
                            out.push_str(name);
                            out.push('}');
                        }
                    }
                }
            }
        }
        (capitalise(&out), missing)
    }
}

/// "a" before a word starting with a vowel letter becomes "an" (slot values are not known when
/// the compiler realises the article).
fn fix_article(out: &mut String, next: &str) {
    let vowel = next
        .chars()
        .next()
        .is_some_and(|c| matches!(c.to_ascii_lowercase(), 'a' | 'e' | 'i' | 'o' | 'u'));
    if !vowel {
        return;
    }
    let at_start = out == "a " || out == "A ";
    if at_start || out.ends_with(" a ") {
        out.insert(out.len() - 1, 'n');
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The stable id of a candidate line: FNV-1a (32 bits) of the sentence state's name, a NUL, and
/// the line's template (slots written `{Name}`).
pub fn candidate_id(sentence: &str, template: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in sentence.bytes().chain([0]).chain(template.bytes()) {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::NameId;

    fn table() -> (Program, SpeechTable) {
        let names = vec!["WantTicketToX".into(), "CityName".into()];
        let program = Program::new(names, vec![], vec![], vec![], vec![], vec![], vec![]).unwrap();
        let speech = SpeechTable {
            sentences: vec![SentenceDef {
                name: NameId(0),
                slots: vec![NameId(1)],
                first_candidate: 0,
                candidate_count: 3,
                choose_among: 2,
            }],
            candidates: vec![
                CandidateDef {
                    id: 1,
                    parts: vec![
                        Part::Text("I would like to buy a ticket to ".into()),
                        Part::Slot(0),
                        Part::Text(".".into()),
                    ],
                    score: -9.0,
                },
                CandidateDef {
                    id: 2,
                    parts: vec![
                        Part::Text("a ".into()),
                        Part::Slot(0),
                        Part::Text(" ticket.".into()),
                    ],
                    score: -10.0,
                },
                CandidateDef {
                    id: 3,
                    parts: vec![Part::Text("never chosen.".into())],
                    score: -11.0,
                },
            ],
            bindings: vec![],
        };
        (program, speech)
    }

    #[test]
    fn slots_are_filled_and_capitalised() {
        let (p, s) = table();
        let id = SentenceId(0);
        let (text, missing) = s.fill(&p, id, &s.candidates[0], |n| {
            (n == "CityName").then_some("Boston")
        });
        assert_eq!(text, "I would like to buy a ticket to Boston.");
        assert!(missing.is_empty());
        let (text, _) = s.fill(&p, id, &s.candidates[1], |_| Some("Albany"));
        assert_eq!(text, "An Albany ticket.");
        let (text, missing) = s.fill(&p, id, &s.candidates[0], |_| None);
        assert_eq!(text, "I would like to buy a ticket to {CityName}.");
        assert_eq!(missing, vec![Unbound("CityName".into())]);
    }

    #[test]
    fn choice_is_weighted_among_the_best_two() {
        let (_, s) = table();
        let id = SentenceId(0);
        // Weights 1 and 1/2: the first two thirds choose the best.
        assert_eq!(s.choose(id, 0.0), Some(0));
        assert_eq!(s.choose(id, 0.6), Some(0));
        assert_eq!(s.choose(id, 0.7), Some(1));
        assert_eq!(s.choose(id, 0.999), Some(1));
        assert_eq!(s.choose(id, 1.0), Some(1));
    }

    #[test]
    fn ids_are_stable() {
        assert_eq!(candidate_id("A", "b"), candidate_id("A", "b"));
        assert_ne!(candidate_id("A", "b"), candidate_id("Ab", ""));
    }
}
