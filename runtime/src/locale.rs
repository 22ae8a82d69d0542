//! Localisation: every line a player can see or hear, with its stable id, and the project's
//! translations of them, per locale (docs/formats/strings.md).
//!
//! The compiler gives every line an id — a `Say` text, each alternative of a `OneOff`, each kept
//! candidate of a sentence state, each utterance variant of an HMM action or template and each
//! property value of an HMM concept — and carries the translations a project has imported into the
//! program's [`StringTable`]. At run time a scene speaks in one [`Locale`]: the source language,
//! a translated locale, or the pseudo-locale `qps` (every line lengthened and bracketed, its
//! `{Slot}`s kept) that shows untranslated or truncated text before any translator has worked.
//! A line the locale does not translate falls back to its source text.
//!
//! The choice of *which* line is said never depends on the locale: the same seed makes the same
//! agents say the same lines in every language; only the words differ.
//!
//! # Example
//!
//! ```
//! use ensemble_runtime::locale::*;
//!
//! let table = StringTable {
//!     lines: vec![LineDef { id: "SellTicket/Okay2".into(), source: "OK.".into() }],
//!     written: vec![],
//!     candidate_lines: vec![],
//!     locales: vec![LocaleDef {
//!         name: "fr".into(),
//!         lines: vec![Translation::Text("D'accord.".into())],
//!     }],
//! };
//! let fr = table.locale("fr").unwrap();
//! assert_eq!(table.text(LineIndex(0), fr), "D'accord.");
//! assert_eq!(table.text(LineIndex(0), Locale::Source), "OK.");
//! assert_eq!(table.text(LineIndex(0), Locale::Pseudo), "[!! ÖK. ~~ !!]");
//! assert!(table.locale("de").is_none());
//! ```

use crate::program::{ProgramParts, StateId};
use crate::speech::Part;
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
    Chunks(Vec<crate::hpmm::model::Chunk>),
}

/// A locale the project translates into.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocaleDef {
    /// Its name as the project declares it (`fr`, `pt-BR`).
    pub name: String,
    /// One entry per line of [`StringTable::lines`], in the same order.
    pub lines: Vec<Translation>,
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

/// A locale the program does not translate into ([`StringTable::check_locale`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the program has no locale `{name}` (locales: {available})")]
pub struct UnknownLocale {
    /// The name asked for.
    pub name: String,
    /// The program's locales, comma-separated (the pseudo-locale among them).
    pub available: String,
}

/// The language a scene speaks in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Locale {
    /// The language the lines are written in.
    #[default]
    Source,
    /// One of [`StringTable::locales`], by index.
    Table(u32),
    /// The pseudo-locale [`PSEUDO`].
    Pseudo,
}

impl StringTable {
    /// The locale called `name`: a translated one, [`PSEUDO`], or `None`.
    pub fn locale(&self, name: &str) -> Option<Locale> {
        if name == PSEUDO {
            return Some(Locale::Pseudo);
        }
        self.locales
            .iter()
            .position(|l| l.name == name)
            .map(|i| Locale::Table(i as u32))
    }

    /// Whether the program speaks `locale` (`None`: the source language, always spoken); the
    /// error names the locales it does speak.
    pub fn check_locale(&self, locale: Option<&str>) -> Result<(), UnknownLocale> {
        match locale {
            Some(name) if self.locale(name).is_none() => Err(UnknownLocale {
                name: name.to_string(),
                available: self.locale_names().collect::<Vec<_>>().join(", "),
            }),
            _ => Ok(()),
        }
    }

    /// Every locale's name, the pseudo-locale last.
    pub fn locale_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.locales.iter().map(|l| l.name.as_str()).chain([PSEUDO])
    }

    /// The lines `state` chooses among (empty when it speaks none of its own).
    pub fn written(&self, state: StateId) -> &[LineIndex] {
        match self.written.binary_search_by_key(&state, |w| w.state) {
            Ok(i) => &self.written[i].lines,
            Err(_) => &[],
        }
    }

    /// Line `line`.
    pub fn line(&self, line: LineIndex) -> &LineDef {
        &self.lines[line.index()]
    }

    /// The translation of `line` in `locale` (`Missing` for the source and pseudo-locales).
    pub fn translation(&self, line: LineIndex, locale: Locale) -> &Translation {
        match locale {
            Locale::Table(i) => &self.locales[i as usize].lines[line.index()],
            Locale::Source | Locale::Pseudo => &Translation::Missing,
        }
    }

    /// The text of a written line in `locale`, falling back to the source.
    pub fn text(&self, line: LineIndex, locale: Locale) -> String {
        match (self.translation(line, locale), locale) {
            (Translation::Text(t), _) => t.clone(),
            (_, Locale::Pseudo) => pseudo(&self.line(line).source),
            _ => self.line(line).source.clone(),
        }
    }

    /// The parts candidate `candidate` (an index into `SpeechTable::candidates`, whose own parts
    /// are `own`) is spoken from in `locale`, and whether they are the source language's (whose
    /// English article rule then applies).
    pub fn candidate_parts<'a>(
        &'a self,
        candidate: usize,
        own: &'a [Part],
        locale: Locale,
    ) -> (std::borrow::Cow<'a, [Part]>, bool) {
        use std::borrow::Cow;
        if locale == Locale::Pseudo {
            return (Cow::Owned(pseudo_parts(own)), false);
        }
        if let Some(line) = self.candidate_lines.get(candidate)
            && let Translation::Parts(parts) = self.translation(*line, locale)
        {
            return (Cow::Borrowed(parts), false);
        }
        (Cow::Borrowed(own), true)
    }
}

/// Splits a written line into its pinned id (`{#greet} Welcome!`) and its text: a designer
/// pins a line's id by starting it so (docs/formats/strings.md); the pin is never said.
pub fn split_pin(line: &str) -> (Option<&str>, &str) {
    let trimmed = line.trim_start();
    if let Some(rest) = trimmed.strip_prefix("{#")
        && let Some(end) = rest.find('}')
    {
        return (Some(rest[..end].trim()), rest[end + 1..].trim_start());
    }
    (None, line)
}

/// The pseudo-locale's version of `text`: accented letters, about a third longer, bracketed,
/// with every `{Slot}` kept as written so that slot filling still works.
pub fn pseudo(text: &str) -> String {
    let mut out = String::from("[!! ");
    let mut letters = 0usize;
    let mut in_slot = false;
    for c in text.chars() {
        match c {
            '{' => in_slot = true,
            '}' => in_slot = false,
            _ => {}
        }
        if in_slot || c == '}' {
            out.push(c);
            continue;
        }
        out.push(accent(c));
        if c.is_alphabetic() {
            letters += 1;
        }
    }
    // Translations run about 30 % longer than English: pad so layouts are tried at that size.
    let pad = letters.div_ceil(3).max(2);
    out.push(' ');
    out.extend(std::iter::repeat_n('~', pad));
    out.push_str(" !!]");
    out
}

/// The pseudo-locale's version of a candidate's parts: only the text is changed.
pub fn pseudo_parts(parts: &[Part]) -> Vec<Part> {
    let mut out: Vec<Part> = parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => Part::Text(accent_all(t)),
            Part::Slot(i) => Part::Slot(*i),
        })
        .collect();
    let letters: usize = parts
        .iter()
        .map(|p| match p {
            Part::Text(t) => t.chars().filter(|c| c.is_alphabetic()).count(),
            Part::Slot(_) => 0,
        })
        .sum();
    out.insert(0, Part::Text("[!! ".into()));
    let pad = "~".repeat(letters.div_ceil(3).max(2));
    out.push(Part::Text(format!(" {pad} !!]")));
    out
}

fn accent_all(t: &str) -> String {
    t.chars().map(accent).collect()
}

fn accent(c: char) -> char {
    match c {
        'a' => 'á',
        'e' => 'é',
        'i' => 'í',
        'o' => 'ö',
        'u' => 'ü',
        'c' => 'ç',
        'n' => 'ñ',
        'y' => 'ý',
        'A' => 'Å',
        'E' => 'É',
        'I' => 'Î',
        'O' => 'Ö',
        'U' => 'Ü',
        'C' => 'Ç',
        'N' => 'Ñ',
        other => other,
    }
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
                && !crate::program::verify::chunks_ok(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_keeps_slots_and_lengthens() {
        let p = pseudo("A ticket to {CityName}, please.");
        assert!(p.contains("{CityName}"), "{p}");
        assert!(p.starts_with("[!! ") && p.ends_with(" !!]"), "{p}");
        assert!(p.chars().count() > "A ticket to {CityName}, please.".chars().count() * 4 / 3);
        assert!(p.contains("tíçkét"), "{p}");
    }

    #[test]
    fn pseudo_parts_change_only_text() {
        let parts = vec![Part::Text("to ".into()), Part::Slot(0)];
        let p = pseudo_parts(&parts);
        assert_eq!(p[1], Part::Text("tö ".into()));
        assert_eq!(p[2], Part::Slot(0));
    }
}
