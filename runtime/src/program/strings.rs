//! The string section: every line a player can see or hear, with its stable id, and the
//! project's translations of them, per locale (docs/formats/strings.md); verified against the
//! speech and HPMM sections. `crate::locale` chooses the text of a line at run time.

use super::hpmm::Chunk;
use super::speech::Part;
use super::{ProgramParts, StateId};
use serde::{Deserialize, Serialize};

/// The name of the pseudo-locale (Microsoft's `qps-ploc` family): every line lengthened by
/// about a third, its letters accented and the whole bracketed, slots kept.
pub const PSEUDO: &str = "qps";

/// A line: index into [`StringTable::lines`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct LineIndex(pub u32);

impl LineIndex {
    /// The index as a table index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A line of the program: its stable id and its text in the source language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineDef {
    /// The stable id (`SellTicket/Okay1/2`, `WhenTravel/1a2b3c4d`, or one the designer pinned).
    pub id: String,
    /// The text as written (a candidate's with its slots as `{Name}`).
    pub source: String,
}

/// The lines a speaking state (`Say`, `OneOff`) chooses among, in the order written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrittenDef {
    /// The state that speaks them.
    pub state: StateId,
    /// Its lines, in the order its text lists them.
    pub lines: Vec<LineIndex>,
}

/// One line in one locale.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Translation {
    /// Not translated: the source text is spoken.
    Missing,
    /// A written line's translation.
    Text(String),
    /// A sentence candidate's translation, its `{Slot}`s resolved against the sentence state's
    /// slots as the candidate's own parts are.
    Parts(Vec<Part>),
    /// An HMM output template's translation (an action's utterance variant or a named
    /// template's variant), parsed and resolved as the template's own chunks are.
    Chunks(Vec<Chunk>),
}

/// A locale the project translates into.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocaleDef {
    /// Its name as the project declares it (`fr`, `pt-BR`).
    pub name: String,
    /// One entry per line of [`StringTable::lines`], in the same order.
    pub lines: Vec<Translation>,
}

/// A value scenes bind to a variable that sentence slots read (`Time: "noon"`), as a line of
/// its own: a scene speaking a translated locale says the value's translation in the slot
/// ("Je voudrais partir à midi."). Part of the string section in meaning; stored apart, last in
/// the program (since format version 12).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotValueDef {
    /// The variable the slots read.
    pub variable: super::NameId,
    /// The value's line: its source is the value as bound.
    pub line: LineIndex,
}

/// The program's string section (since format version 7).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StringTable {
    /// Every line, in the order `ensemble strings export` lists them.
    pub lines: Vec<LineDef>,
    /// Speaking states' lines, ascending by state.
    pub written: Vec<WrittenDef>,
    /// The line of every sentence candidate, parallel to `SpeechTable::candidates` (empty when
    /// the program has no string section). Candidates of a sentence state translated as one
    /// line share it.
    pub candidate_lines: Vec<LineIndex>,
    /// The translations, one table per locale.
    pub locales: Vec<LocaleDef>,
}

/// Checks the string section against the program (called by the program verifier).
pub(crate) fn verify(p: &ProgramParts) -> Result<(), String> {
    let s = &p.strings;
    let lines = s.lines.len();
    let mut previous: Option<StateId> = None;
    for w in &s.written {
        if w.state.index() >= p.states.len() {
            return Err("a speaking state's lines name a state that does not exist".into());
        }
        if previous.is_some_and(|prev| prev >= w.state) {
            return Err("speaking states' lines are not in ascending state order".into());
        }
        previous = Some(w.state);
        if w.lines.iter().any(|l| l.index() >= lines) {
            return Err("a speaking state names a line that does not exist".into());
        }
    }
    if !s.candidate_lines.is_empty() && s.candidate_lines.len() != p.speech.candidates.len() {
        return Err("the string section does not give every sentence candidate a line".into());
    }
    if s.candidate_lines.iter().any(|l| l.index() >= lines) {
        return Err("a sentence candidate names a line that does not exist".into());
    }
    for locale in &s.locales {
        if locale.lines.len() != lines {
            return Err(format!(
                "locale `{}` has {} lines for {lines}",
                locale.name,
                locale.lines.len()
            ));
        }
        if locale.name == PSEUDO {
            return Err(format!("`{PSEUDO}` is the pseudo-locale, not a table"));
        }
    }
    // An HMM template's translation refers to variables and templates that exist, as the
    // template's own chunks do (the renderer indexes them unchecked).
    let m = &p.hpmm;
    for locale in &s.locales {
        for t in &locale.lines {
            if let Translation::Chunks(chunks) = t
                && !super::verify::chunks_ok(
                    chunks,
                    m.variables.len(),
                    m.templates.len(),
                    p.names.len(),
                )
            {
                return Err(format!(
                    "locale `{}` translates a template into something that does not exist",
                    locale.name
                ));
            }
        }
    }
    let hpmm_lines = m
        .actions
        .iter()
        .flat_map(|a| &a.lines)
        .chain(m.templates.iter().flat_map(|t| &t.lines))
        .chain(m.concepts.iter().flat_map(|c| &c.lines));
    for line in hpmm_lines {
        if line.index() >= lines {
            return Err("an HMM template or concept names a line that does not exist".into());
        }
    }
    for (i, a) in m.actions.iter().enumerate() {
        if !a.lines.is_empty() && a.lines.len() != a.say.len() {
            return Err(format!("action #{i} does not give every utterance a line"));
        }
    }
    for (i, t) in m.templates.iter().enumerate() {
        if !t.lines.is_empty() && t.lines.len() != t.variants.len() {
            return Err(format!("template #{i} does not give every variant a line"));
        }
    }
    for (i, c) in m.concepts.iter().enumerate() {
        if !c.lines.is_empty() && c.lines.len() != c.properties.len() {
            return Err(format!("concept #{i} does not give every property a line"));
        }
    }
    for v in &p.slot_values {
        if v.line.index() >= lines || v.variable.index() >= p.names.len() {
            return Err("a slot value names a line or a variable that does not exist".into());
        }
    }
    // A translated candidate's slots index its sentence state's slots, as its parts do.
    for (sentence_index, sentence) in p.speech.sentences.iter().enumerate() {
        let first = sentence.first_candidate as usize;
        for c in first..first + sentence.candidate_count as usize {
            let Some(line) = s.candidate_lines.get(c) else {
                continue;
            };
            for locale in &s.locales {
                if let Translation::Parts(parts) = &locale.lines[line.index()]
                    && parts.iter().any(
                        |part| matches!(part, Part::Slot(k) if *k as usize >= sentence.slots.len()),
                    )
                {
                    return Err(format!(
                        "locale `{}` fills a slot sentence state #{sentence_index} does not have",
                        locale.name
                    ));
                }
            }
        }
    }
    Ok(())
}
