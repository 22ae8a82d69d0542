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

pub use crate::program::strings::{
    LineDef, LineIndex, LocaleDef, PSEUDO, SlotValueDef, StringTable, Translation, WrittenDef,
};
use crate::program::{Program, StateId};
use crate::speech::Part;

/// A locale the program does not translate into ([`StringTable::check_locale`]).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("the program has no locale `{name}` (locales: {available})")]
pub struct UnknownLocale {
    /// The name asked for.
    pub name: String,
    /// The program's locales, comma-separated (the pseudo-locale among them).
    pub available: String,
}

impl Program {
    /// `value`, bound to `variable` and said in a slot, in `locale`: its translation when the
    /// program has one (a value scenes bind, translated: `noon` → `midi`), else as it is.
    pub fn slot_value<'a>(&'a self, variable: &str, value: &'a str, locale: Locale) -> &'a str {
        if !matches!(locale, Locale::Table(_)) {
            return value;
        }
        let strings = &self.strings;
        let line = self
            .slot_values
            .iter()
            .find(|v| self.name(v.variable) == variable && strings.line(v.line).source == value);
        match line.map(|v| strings.translation(v.line, locale)) {
            Some(Translation::Text(t)) => t,
            _ => value,
        }
    }
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
