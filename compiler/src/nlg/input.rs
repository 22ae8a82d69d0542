//! The two lines of a sentence state, as Fig. 3.2 writes them, with the modifiers a designer
//! uses to say what the line means:
//!
//! ```text
//! be, PAST book                    verbs: comma-separated; `PAST <verb>` puts a verb in the past
//! NOT CAN enter                    head-verb modifiers: NOT, FUTURE, IMPERATIVE and the modals
//! you, flight, VARIABLE CityName   nouns: comma-separated; `VARIABLE <Name>` is a slot filled at
//! you QUESTION when                       run time; `QUESTION [<wh-word>]` makes it a question
//! the ferry, from VARIABLE Town    a determiner or a preposition written before a noun is kept
//! VARIABLE Guest's horse           a possessor; `gate VARIABLE GateNumber` a name after a noun
//! ```
//!
//! `QUESTION` may share an item with a noun, as in the thesis's `you QUESTION when`. Without a
//! wh-word it asks a yes/no question. Errors carry the byte range they are about.

use super::overgen::{Noun, Term, VerbSpec};
use std::ops::Range;

pub const WH_WORDS: &[&str] = &[
    "when", "what", "who", "whom", "where", "why", "how", "which",
];

/// Modals a designer may write on the head verb, as written (upper-case).
pub const MODAL_MODIFIERS: &[&str] = &["CAN", "COULD", "MAY", "MIGHT", "MUST", "SHOULD", "WOULD"];

/// Every modifier of the verbs line.
const VERB_MODIFIERS: &[&str] = &["PAST", "NOT", "FUTURE", "WILL", "IMPERATIVE"];

/// Determiners a designer may write before a noun.
pub const DETERMINERS: &[&str] = &[
    "a", "an", "the", "some", "any", "no", "this", "that", "these", "those", "every", "my", "your",
    "his", "her", "its", "our", "their",
];

/// Prepositions a designer may write before a noun.
pub const WRITTEN_PREPOSITIONS: &[&str] = &[
    "to", "from", "at", "in", "on", "for", "with", "about", "of", "into", "by", "near", "under",
    "over", "after", "before", "until", "through", "across", "behind",
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    pub verbs: Vec<(VerbSpec, Range<usize>)>,
    pub nouns: Vec<(Noun, Range<usize>)>,
    pub question: Option<(Option<String>, Range<usize>)>,
    /// Every `VARIABLE` the nouns name, where it is written.
    pub variables: Vec<(String, Range<usize>)>,
    pub negated: bool,
    pub modal: Option<String>,
    pub imperative: bool,
}

impl Parsed {
    /// The over-generation input (slot kinds and ranking switches left to the caller).
    pub fn into_input(self) -> super::overgen::Input {
        super::overgen::Input {
            verbs: self.verbs.into_iter().map(|(v, _)| v).collect(),
            nouns: self.nouns.into_iter().map(|(n, _)| n).collect(),
            question: self.question.map(|(q, _)| q),
            negated: self.negated,
            modal: self.modal,
            imperative: self.imperative,
            slot_kinds: Vec::new(),
            subject_as_written: true,
            direct_object: true,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct LineError {
    pub range: Range<usize>,
    pub message: String,
}

/// Whitespace-separated tokens of `text` with their byte ranges.
fn tokens(text: &str, base: usize) -> Vec<(&str, Range<usize>)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push((&text[s..i], base + s..base + i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    out
}

/// Comma-separated items with their offsets.
fn items(line: &str) -> impl Iterator<Item = (&str, usize)> {
    let mut at = 0;
    line.split(',').map(move |item| {
        let r = (item, at);
        at += item.len() + 1;
        r
    })
}

fn is_identifier(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// A word of a noun: letters, with inner hyphens or apostrophes ("inn-keeper", "o'clock").
fn is_word(s: &str) -> bool {
    s.chars().next().is_some_and(char::is_alphabetic)
        && s.chars()
            .all(|c| c.is_alphabetic() || c == '-' || c == '\'' || c == '\u{2019}')
}

/// `smith's` -> `smith` (also with a typographic apostrophe).
fn possessor_of(s: &str) -> Option<&str> {
    s.strip_suffix("'s")
        .or_else(|| s.strip_suffix("\u{2019}s"))
        .filter(|p| !p.is_empty())
}

/// An upper-case token that is not a known modifier but looks like one (`PASTT`, `NOTE`): a
/// typo the designer should hear about, not a verb.
fn looks_like_modifier(s: &str) -> bool {
    s.len() > 1 && s.chars().all(|c| c.is_ascii_uppercase())
}

fn err(range: Range<usize>, message: impl Into<String>) -> LineError {
    LineError {
        range,
        message: message.into(),
    }
}

/// Parses the verbs line.
pub fn parse_verbs(line: &str, out: &mut Parsed, errors: &mut Vec<LineError>) {
    let mut future: Option<Range<usize>> = None;
    let mut modal_at: Option<Range<usize>> = None;
    let mut imperative_at: Option<Range<usize>> = None;
    let mut past_head: Option<Range<usize>> = None;
    for (index, (item, at)) in items(line).enumerate() {
        let toks = tokens(item, at);
        if toks.is_empty() {
            if !line.trim().is_empty() {
                errors.push(err(at..at + item.len(), "empty verb between commas"));
            }
            continue;
        }
        let head = index == 0;
        let mut past = false;
        let mut verb: Option<(&str, Range<usize>)> = None;
        for (t, r) in &toks {
            if verb.is_some() {
                errors.push(err(
                    toks[0].1.start..toks.last().map_or(r.end, |t| t.1.end),
                    "one verb per item (modifiers such as `PAST` or `NOT` come before it)",
                ));
                verb = None;
                break;
            }
            let only_head = |m: &str, errors: &mut Vec<LineError>| {
                if !head {
                    errors.push(err(
                        r.clone(),
                        format!("`{m}` goes on the head verb (the first), not on a complement"),
                    ));
                }
            };
            match *t {
                "PAST" => {
                    if past {
                        errors.push(err(r.clone(), "`PAST` written twice"));
                    }
                    past = true;
                    if head {
                        past_head = Some(r.clone());
                    }
                }
                "NOT" => {
                    only_head("NOT", errors);
                    if head && out.negated {
                        errors.push(err(r.clone(), "`NOT` written twice"));
                    }
                    out.negated |= head;
                }
                "FUTURE" | "WILL" => {
                    only_head(t, errors);
                    if head {
                        if out.modal.is_some() {
                            errors.push(err(r.clone(), "the head verb has one modal or `FUTURE`"));
                        }
                        out.modal = Some("will".into());
                        future = Some(r.clone());
                    }
                }
                "IMPERATIVE" => {
                    only_head("IMPERATIVE", errors);
                    if head {
                        out.imperative = true;
                        imperative_at = Some(r.clone());
                    }
                }
                m if MODAL_MODIFIERS.contains(&m) => {
                    only_head(m, errors);
                    if head {
                        if out.modal.is_some() {
                            errors.push(err(r.clone(), "the head verb has one modal or `FUTURE`"));
                        }
                        out.modal = Some(m.to_lowercase());
                        modal_at = Some(r.clone());
                    }
                }
                m @ ("VARIABLE" | "QUESTION") => errors.push(err(
                    r.clone(),
                    format!("`{m}` belongs on the nouns line, not the verbs line"),
                )),
                m if looks_like_modifier(m) => errors.push(err(
                    r.clone(),
                    format!(
                        "`{m}` is not a modifier; the verbs line knows {}",
                        VERB_MODIFIERS
                            .iter()
                            .chain(MODAL_MODIFIERS)
                            .map(|m| format!("`{m}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )),
                v if v.chars().all(char::is_alphabetic) => verb = Some((v, r.clone())),
                v => errors.push(err(r.clone(), format!("`{v}` is not a verb"))),
            }
        }
        match verb {
            Some((v, r)) => out.verbs.push((
                VerbSpec {
                    lemma: v.to_lowercase(),
                    past,
                },
                toks[0].1.start..r.end,
            )),
            None if toks
                .iter()
                .all(|(t, _)| VERB_MODIFIERS.contains(t) || MODAL_MODIFIERS.contains(t)) =>
            {
                let (m, r) = toks.last().expect("non-empty");
                errors.push(err(r.clone(), format!("`{m}` must be followed by a verb")));
            }
            None => {}
        }
    }
    if let Some(r) = imperative_at
        && (future.is_some() || modal_at.is_some() || past_head.is_some())
    {
        errors.push(err(
            r,
            "a command has no tense or modal: write `IMPERATIVE` without `PAST`, `FUTURE` or a modal",
        ));
    }
    if let (Some(p), Some(f)) = (past_head, future.clone()) {
        errors.push(err(
            p.start.min(f.start)..p.end.max(f.end),
            "`PAST` and `FUTURE` contradict each other",
        ));
    }
}

/// Parses the nouns line.
pub fn parse_nouns(line: &str, out: &mut Parsed, errors: &mut Vec<LineError>) {
    for (item, at) in items(line) {
        let toks = tokens(item, at);
        if toks.is_empty() {
            if !line.trim().is_empty() {
                errors.push(err(at..at + item.len(), "empty noun between commas"));
            }
            continue;
        }
        // `QUESTION [wh]` may share the item with a noun; take it out first.
        let mut rest: Vec<(&str, Range<usize>)> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let (t, r) = &toks[i];
            if *t == "QUESTION" {
                let wh = toks
                    .get(i + 1)
                    .filter(|(w, _)| WH_WORDS.contains(&w.to_lowercase().as_str()));
                let range = match wh {
                    Some((_, wr)) => r.start..wr.end,
                    None => r.clone(),
                };
                if out.question.is_some() {
                    errors.push(err(range.clone(), "a sentence state has one `QUESTION`"));
                }
                out.question = Some((wh.map(|(w, _)| w.to_lowercase()), range));
                i += 1 + usize::from(wh.is_some());
            } else {
                rest.push((t, r.clone()));
                i += 1;
            }
        }
        if rest.is_empty() {
            continue;
        }
        if let Some(noun) = parse_noun(&rest, out, errors) {
            let range = rest[0].1.start..rest[rest.len() - 1].1.end;
            out.nouns.push((noun, range));
        }
    }
}

/// One noun item (without its `QUESTION`): `[prep] [det | possessor's] words [VARIABLE Name]`,
/// `[prep] VARIABLE Name`, or `[prep] VARIABLE Name's words`.
fn parse_noun(
    toks: &[(&str, Range<usize>)],
    out: &mut Parsed,
    errors: &mut Vec<LineError>,
) -> Option<Noun> {
    let mut i = 0;
    let lower = |k: usize| toks.get(k).map(|(t, _)| t.to_lowercase());
    if let [(only, r)] = toks {
        let w = only.to_lowercase();
        let dangling = [
            "a", "an", "the", "every", "no", "my", "your", "our", "their",
        ]
        .contains(&w.as_str())
            || WRITTEN_PREPOSITIONS.contains(&w.as_str());
        if dangling {
            errors.push(err(
                r.clone(),
                format!("`{only}` must be followed by a noun"),
            ));
            return None;
        }
    }
    let mut prep = None;
    if toks.len() > 1
        && let Some(p) = lower(0).filter(|p| WRITTEN_PREPOSITIONS.contains(&p.as_str()))
    {
        prep = Some(p);
        i = 1;
    }
    let mut det = None;
    let mut possessor = None;
    let variable = |name: &str, r: &Range<usize>, out: &mut Parsed, errors: &mut Vec<LineError>| {
        if !is_identifier(name) {
            errors.push(err(r.clone(), format!("`{name}` is not a variable name")));
            return false;
        }
        if out.variables.iter().any(|(v, _)| v == name) {
            errors.push(err(r.clone(), format!("`VARIABLE {name}` appears twice")));
        }
        out.variables.push((name.to_string(), r.clone()));
        true
    };
    // A possessor slot: `VARIABLE Name's ...`.
    if toks.get(i).is_some_and(|(t, _)| *t == "VARIABLE")
        && let Some((name, nr)) = toks.get(i + 1)
        && let Some(owner) = possessor_of(name)
    {
        let r = toks[i].1.start..nr.end - (name.len() - owner.len());
        if toks.len() <= i + 2 {
            errors.push(err(
                toks[i].1.start..nr.end,
                format!("`VARIABLE {name}` must be followed by what it owns (`VARIABLE {owner}'s horse`)"),
            ));
            return None;
        }
        if variable(owner, &r, out, errors) {
            possessor = Some(Term::Variable(owner.to_string()));
        }
        i += 2;
    } else if toks.len() > i + 1 {
        let word = toks[i].0;
        if let Some(d) = Some(word.to_lowercase()).filter(|d| DETERMINERS.contains(&d.as_str())) {
            det = Some(d);
            i += 1;
        } else if let Some(owner) = possessor_of(word)
            && is_word(owner)
        {
            possessor = Some(Term::Word(owner.to_string()));
            i += 1;
        }
    }
    let mut words: Vec<(&str, Range<usize>)> = Vec::new();
    let mut term: Option<Term> = None;
    let mut name: Option<String> = None;
    while i < toks.len() {
        let (t, r) = &toks[i];
        match *t {
            "VARIABLE" => {
                let Some((v, vr)) = toks.get(i + 1) else {
                    errors.push(err(r.clone(), "`VARIABLE` must be followed by a name"));
                    return None;
                };
                if toks.len() > i + 2 {
                    errors.push(err(
                        r.start..toks[toks.len() - 1].1.end,
                        "a `VARIABLE` ends its noun: separate what follows with a comma",
                    ));
                    return None;
                }
                if possessor_of(v).is_some() {
                    errors.push(err(
                        vr.clone(),
                        format!(
                            "`VARIABLE {v}` must come first in its noun, followed by what it owns"
                        ),
                    ));
                    return None;
                }
                if !variable(v, &(r.start..vr.end), out, errors) {
                    return None;
                }
                if words.is_empty() {
                    term = Some(Term::Variable(v.to_string()));
                } else {
                    name = Some(v.to_string());
                }
                i += 2;
            }
            "PAST" | "NOT" | "FUTURE" | "WILL" | "IMPERATIVE" => {
                errors.push(err(r.clone(), format!("`{t}` belongs on the verbs line")));
                return None;
            }
            m if MODAL_MODIFIERS.contains(&m) => {
                errors.push(err(r.clone(), format!("`{m}` belongs on the verbs line")));
                return None;
            }
            w if looks_like_modifier(w) && w != "I" => {
                errors.push(err(
                    r.clone(),
                    format!(
                        "`{w}` is not a modifier; the nouns line knows `VARIABLE` and `QUESTION`"
                    ),
                ));
                return None;
            }
            w if is_word(w) => {
                words.push((w, r.clone()));
                i += 1;
            }
            w => {
                errors.push(err(r.clone(), format!("`{w}` is not a word")));
                return None;
            }
        }
    }
    let term = match term {
        Some(t) => t,
        None if words.is_empty() => {
            let last = &toks[toks.len() - 1];
            errors.push(err(
                last.1.clone(),
                format!("`{}` must be followed by a noun", last.0),
            ));
            return None;
        }
        None => {
            let text: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
            Term::Word(text.join(" "))
        }
    };
    if let (Some(d), Term::Word(w)) = (&det, &term)
        && super::morph::pronoun_features(w).is_some()
    {
        errors.push(err(
            toks[0].1.start..toks[toks.len() - 1].1.end,
            format!("a pronoun takes no determiner (`{d} {w}`)"),
        ));
        return None;
    }
    Some(Noun {
        term,
        det,
        possessor,
        prep,
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(verbs: &str, nouns: &str) -> (Parsed, Vec<LineError>) {
        let mut p = Parsed::default();
        let mut e = Vec::new();
        parse_verbs(verbs, &mut p, &mut e);
        parse_nouns(nouns, &mut p, &mut e);
        (p, e)
    }

    #[test]
    fn fig_3_2_parses() {
        let (p, e) = parse("be, PAST book", "you, flight, VARIABLE CityName");
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(p.verbs.len(), 2);
        assert!(p.verbs[1].0.past);
        assert_eq!(p.verbs[1].1, 4..13);
        assert_eq!(p.nouns[2].0, Noun::plain(Term::Variable("CityName".into())));
        let (p, e) = parse("like, travel", "you QUESTION when");
        assert!(e.is_empty());
        assert_eq!(p.nouns, vec![(Noun::plain(Term::Word("you".into())), 0..3)]);
        assert_eq!(p.question, Some((Some("when".into()), 4..17)));
        let (p, _) = parse("have", "you, QUESTION");
        assert_eq!(p.question, Some((None, 5..13)));
    }

    #[test]
    fn mistakes_are_located() {
        let (_, e) = parse("be, PAST", "you, VARIABLE, flight PAST");
        let messages: Vec<(&str, Range<usize>)> = e
            .iter()
            .map(|e| (e.message.as_str(), e.range.clone()))
            .collect();
        assert_eq!(messages[0], ("`PAST` must be followed by a verb", 4..8));
        assert!(
            messages
                .iter()
                .any(|(m, _)| m.contains("followed by a name"))
        );
        assert!(messages.iter().any(|(m, _)| m.contains("verbs line")));
        let (_, e) = parse(
            "book ticket",
            "VARIABLE X, VARIABLE X, QUESTION who, QUESTION",
        );
        assert_eq!(e.len(), 3, "{e:?}");
    }

    /// What a designer writes to say what the line means is kept, each in its place.
    #[test]
    fn written_meaning_is_parsed() {
        let (p, e) = parse(
            "NOT PAST see",
            "I, the boy, from VARIABLE TownName, VARIABLE Guest's horse, gate VARIABLE Gate, smith's hammer",
        );
        assert!(e.is_empty(), "{e:?}");
        assert!(p.negated && p.verbs[0].0.past);
        let nouns: Vec<&Noun> = p.nouns.iter().map(|(n, _)| n).collect();
        assert_eq!(nouns[1].det.as_deref(), Some("the"));
        assert_eq!(nouns[1].term, Term::Word("boy".into()));
        assert_eq!(nouns[2].prep.as_deref(), Some("from"));
        assert_eq!(nouns[2].term, Term::Variable("TownName".into()));
        assert_eq!(nouns[3].possessor, Some(Term::Variable("Guest".into())));
        assert_eq!(nouns[3].term, Term::Word("horse".into()));
        assert_eq!(nouns[4].name.as_deref(), Some("Gate"));
        assert_eq!(nouns[5].possessor, Some(Term::Word("smith".into())));
        let vars: Vec<&str> = p.variables.iter().map(|(v, _)| v.as_str()).collect();
        assert_eq!(vars, ["TownName", "Guest", "Gate"]);
        // The possessor's range covers `VARIABLE Guest`, not the `'s`.
        let (_, r) = &p.variables[1];
        assert_eq!(
            &"I, the boy, from VARIABLE TownName, VARIABLE Guest's horse"[r.clone()],
            "VARIABLE Guest"
        );
        let (p, e) = parse("CAN help", "I, you QUESTION");
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(p.modal.as_deref(), Some("can"));
        let (p, e) = parse("NOT IMPERATIVE touch", "you, the anvil");
        assert!(e.is_empty(), "{e:?}");
        assert!(p.imperative && p.negated);
        let (p, _) = parse("FUTURE close", "the gate");
        assert_eq!(p.modal.as_deref(), Some("will"));
        // "her" alone is a pronoun, before a noun a possessive.
        let (p, _) = parse("see", "I, her, her horse");
        assert_eq!(p.nouns[1].0, Noun::plain(Term::Word("her".into())));
        assert_eq!(p.nouns[2].0.det.as_deref(), Some("her"));
    }

    /// Modifier mistakes are errors where they stand, never a silent other meaning.
    #[test]
    fn modifier_mistakes_are_located() {
        let messages = |verbs: &str, nouns: &str| -> Vec<(String, Range<usize>)> {
            let (_, e) = parse(verbs, nouns);
            e.into_iter().map(|e| (e.message, e.range)).collect()
        };
        let m = messages("like, NOT go", "I");
        assert_eq!(m.len(), 1, "{m:?}");
        assert!(m[0].0.contains("head verb"), "{m:?}");
        assert_eq!(m[0].1, 6..9);
        let m = messages("PASTT go", "I");
        assert!(m[0].0.contains("not a modifier"), "{m:?}");
        assert_eq!(m[0].1, 0..5);
        let m = messages("IMPERATIVE PAST go", "you");
        assert!(m.iter().any(|(t, _)| t.contains("no tense")), "{m:?}");
        let m = messages("CAN MUST go", "I");
        assert!(m.iter().any(|(t, _)| t.contains("one modal")), "{m:?}");
        let m = messages("NOT", "I");
        assert!(m[0].0.contains("followed by a verb"), "{m:?}");
        let m = messages("go", "I, the");
        assert!(
            m[0].0.contains("followed by a noun") || m[0].0.contains("not"),
            "{m:?}"
        );
        let m = messages("go", "I, VARIABLE Town's");
        assert!(m[0].0.contains("what it owns"), "{m:?}");
        let m = messages("go", "I, VARIABLE Town horse");
        assert!(m[0].0.contains("ends its noun"), "{m:?}");
        let m = messages("go", "I, the you");
        assert!(m[0].0.contains("pronoun"), "{m:?}");
        let m = messages("go", "I, NOT you");
        assert!(m[0].0.contains("verbs line"), "{m:?}");
    }
}
