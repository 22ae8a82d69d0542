//! The two lines of a sentence state, exactly as Fig. 3.2 writes them:
//!
//! ```text
//! be, PAST book                    verbs: comma-separated; `PAST <verb>` puts a verb in the past
//! you, flight, VARIABLE CityName   nouns: comma-separated; `VARIABLE <Name>` is a slot filled at
//! you QUESTION when                       run time; `QUESTION [<wh-word>]` makes it a question
//! ```
//!
//! `QUESTION` may share an item with a noun, as in the thesis's `you QUESTION when`. Without a
//! wh-word it asks a yes/no question. Errors carry the byte range they are about.

use super::overgen::{Term, VerbSpec};
use std::ops::Range;

pub const WH_WORDS: &[&str] = &[
    "when", "what", "who", "whom", "where", "why", "how", "which",
];

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    pub verbs: Vec<(VerbSpec, Range<usize>)>,
    pub nouns: Vec<(Term, Range<usize>)>,
    pub question: Option<(Option<String>, Range<usize>)>,
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

fn err(range: Range<usize>, message: impl Into<String>) -> LineError {
    LineError {
        range,
        message: message.into(),
    }
}

/// Parses the verbs line.
pub fn parse_verbs(line: &str, out: &mut Parsed, errors: &mut Vec<LineError>) {
    for (item, at) in items(line) {
        let toks = tokens(item, at);
        match toks.as_slice() {
            [] if line.trim().is_empty() => {}
            [] => errors.push(err(at..at + item.len(), "empty verb between commas")),
            [("PAST", r), (verb, vr)] => {
                if verb.chars().all(char::is_alphabetic) {
                    out.verbs.push((
                        VerbSpec {
                            lemma: verb.to_lowercase(),
                            past: true,
                        },
                        r.start..vr.end,
                    ));
                } else {
                    errors.push(err(vr.clone(), format!("`{verb}` is not a verb")));
                }
            }
            [("PAST", r)] => errors.push(err(r.clone(), "`PAST` must be followed by a verb")),
            [(m @ ("VARIABLE" | "QUESTION"), r), ..] => errors.push(err(
                r.clone(),
                format!("`{m}` belongs on the nouns line, not the verbs line"),
            )),
            [(verb, r)] if verb.chars().all(char::is_alphabetic) => out.verbs.push((
                VerbSpec {
                    lemma: verb.to_lowercase(),
                    past: false,
                },
                r.clone(),
            )),
            [(verb, r)] => errors.push(err(r.clone(), format!("`{verb}` is not a verb"))),
            [(_, a), .., (_, b)] => errors.push(err(
                a.start..b.end,
                "one verb per item (write `PAST <verb>` for the past tense)",
            )),
        }
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
        let mut words: Vec<(&str, Range<usize>)> = Vec::new();
        let mut i = 0;
        while i < toks.len() {
            let (t, r) = &toks[i];
            match *t {
                "QUESTION" => {
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
                }
                "VARIABLE" => match toks.get(i + 1) {
                    Some((name, nr)) if is_identifier(name) => {
                        if !words.is_empty() {
                            errors.push(err(
                                words[0].1.start..nr.end,
                                "a `VARIABLE` is a noun of its own: separate it with a comma",
                            ));
                        }
                        if out
                            .nouns
                            .iter()
                            .any(|(n, _)| *n == Term::Variable(name.to_string()))
                        {
                            errors
                                .push(err(nr.clone(), format!("`VARIABLE {name}` appears twice")));
                        }
                        out.nouns
                            .push((Term::Variable(name.to_string()), r.start..nr.end));
                        i += 2;
                    }
                    Some((name, nr)) => {
                        errors.push(err(nr.clone(), format!("`{name}` is not a variable name")));
                        i += 2;
                    }
                    None => {
                        errors.push(err(r.clone(), "`VARIABLE` must be followed by a name"));
                        i += 1;
                    }
                },
                "PAST" => {
                    errors.push(err(r.clone(), "`PAST` belongs on the verbs line"));
                    i += 1;
                }
                w => {
                    words.push((w, r.clone()));
                    i += 1;
                }
            }
        }
        if let (Some(first), Some(last)) = (words.first(), words.last()) {
            let text: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
            out.nouns
                .push((Term::Word(text.join(" ")), first.1.start..last.1.end));
        }
    }
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
        assert_eq!(p.nouns[2].0, Term::Variable("CityName".into()));
        let (p, e) = parse("like, travel", "you QUESTION when");
        assert!(e.is_empty());
        assert_eq!(p.nouns, vec![(Term::Word("you".into()), 0..3)]);
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
}
