//! The two Fig. 3.2 lines as items, and the edits the chips and modifier buttons make to them,
//! so designers need not remember the syntax: toggle `PAST` on a verb, set or clear the
//! `QUESTION` (with its wh-word), add a `VARIABLE`, remove an item. The line stays the truth;
//! an edit rewrites it with items joined by `", "`.

use ensemble_compiler::nlg::WH_WORDS;
use std::ops::Range;

/// One comma-separated item: its trimmed text and where that text is in the line.
#[derive(Clone, Debug, PartialEq)]
pub struct Item<'a> {
    pub text: &'a str,
    pub range: Range<usize>,
}

pub fn items(line: &str) -> Vec<Item<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    for raw in line.split(',') {
        let lead = raw.len() - raw.trim_start().len();
        let text = raw.trim();
        if !text.is_empty() {
            out.push(Item {
                text,
                range: at + lead..at + lead + text.len(),
            });
        }
        at += raw.len() + 1;
    }
    out
}

fn join(items: impl IntoIterator<Item = String>) -> String {
    items
        .into_iter()
        .filter(|i| !i.trim().is_empty())
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a verbs-line item says.
#[derive(Clone, Debug, PartialEq)]
pub struct Verb {
    pub lemma: String,
    pub past: bool,
}

pub fn verb(item: &str) -> Verb {
    match item.split_whitespace().collect::<Vec<_>>().as_slice() {
        ["PAST", rest @ ..] => Verb {
            lemma: rest.join(" "),
            past: true,
        },
        words => Verb {
            lemma: words.join(" "),
            past: false,
        },
    }
}

/// Puts verb `index` into the past tense, or back.
pub fn toggle_past(line: &str, index: usize) -> String {
    join(items(line).iter().enumerate().map(|(i, it)| {
        if i != index {
            return it.text.to_string();
        }
        let v = verb(it.text);
        if v.past {
            v.lemma
        } else {
            format!("PAST {}", v.lemma)
        }
    }))
}

pub fn remove_item(line: &str, index: usize) -> String {
    join(
        items(line)
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != index)
            .map(|(_, it)| it.text.to_string()),
    )
}

/// What a nouns-line item holds besides `QUESTION`.
#[derive(Clone, Debug, PartialEq)]
pub enum Noun {
    Word(String),
    Variable(String),
    /// Only the `QUESTION` modifier.
    None,
}

/// The item without its `QUESTION [wh]` tokens, as a noun.
pub fn noun(item: &str) -> Noun {
    let words = without_question(item);
    match words.as_slice() {
        [] => Noun::None,
        ["VARIABLE", name, ..] => Noun::Variable(name.to_string()),
        ws => Noun::Word(ws.join(" ")),
    }
}

fn without_question(item: &str) -> Vec<&str> {
    let toks: Vec<&str> = item.split_whitespace().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i] == "QUESTION" {
            let wh = toks
                .get(i + 1)
                .is_some_and(|w| WH_WORDS.contains(&w.to_lowercase().as_str()));
            i += 1 + usize::from(wh);
        } else {
            out.push(toks[i]);
            i += 1;
        }
    }
    out
}

/// The nouns line's question: `None` (a statement), `Some(None)` (yes/no), `Some(Some(wh))`.
pub fn question(line: &str) -> Option<Option<String>> {
    let toks: Vec<&str> = line
        .split(|c: char| c == ',' || c.is_whitespace())
        .collect();
    let at = toks.iter().position(|t| *t == "QUESTION")?;
    Some(
        toks.get(at + 1)
            .map(|w| w.to_lowercase())
            .filter(|w| WH_WORDS.contains(&w.as_str())),
    )
}

/// Sets (or clears, with `None`) the question: any `QUESTION` is taken out, and the new one
/// goes at the end as an item of its own (where it stands does not change its meaning).
pub fn set_question(line: &str, q: Option<Option<&str>>) -> String {
    let mut parts: Vec<String> = items(line)
        .iter()
        .map(|it| without_question(it.text).join(" "))
        .collect();
    if let Some(wh) = q {
        parts.push(match wh {
            Some(w) => format!("QUESTION {w}"),
            None => "QUESTION".to_string(),
        });
    }
    join(parts)
}

pub fn add_variable(line: &str, name: &str) -> String {
    let mut parts: Vec<String> = items(line).iter().map(|it| it.text.to_string()).collect();
    parts.push(format!("VARIABLE {}", name.trim()));
    join(parts)
}

/// Whether `name` can name a `VARIABLE` slot.
pub fn is_variable_name(name: &str) -> bool {
    let name = name.trim();
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The `VARIABLE` names a nouns line uses.
pub fn variables(line: &str) -> Vec<String> {
    items(line)
        .iter()
        .filter_map(|it| match noun(it.text) {
            Noun::Variable(v) => Some(v),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_keep_their_place_in_the_line() {
        let line = "you,  flight , VARIABLE CityName";
        let its = items(line);
        assert_eq!(its.len(), 3);
        assert_eq!(&line[its[1].range.clone()], "flight");
        assert_eq!(its[2].text, "VARIABLE CityName");
        assert!(items(" , ").is_empty());
    }

    #[test]
    fn past_toggles_on_one_verb() {
        assert_eq!(toggle_past("be, PAST book", 1), "be, book");
        assert_eq!(toggle_past("be, book", 0), "PAST be, book");
        assert_eq!(
            verb("PAST book"),
            Verb {
                lemma: "book".into(),
                past: true
            }
        );
        assert_eq!(remove_item("like, travel", 0), "travel");
    }

    #[test]
    fn questions_are_read_set_and_cleared() {
        assert_eq!(question("you QUESTION when"), Some(Some("when".into())));
        assert_eq!(question("you, QUESTION"), Some(None));
        assert_eq!(question("you, flight"), None);
        assert_eq!(
            set_question("you QUESTION when", Some(Some("where"))),
            "you, QUESTION where"
        );
        assert_eq!(set_question("you QUESTION when", None), "you");
        assert_eq!(
            set_question("flight, VARIABLE CityName QUESTION what", Some(None)),
            "flight, VARIABLE CityName, QUESTION"
        );
        assert_eq!(set_question("", Some(Some("who"))), "QUESTION who");
        // The rewritten lines parse as the compiler reads them.
        let (input, v, n) = ensemble_compiler::nlg::parse_lines(
            "like, travel",
            &set_question("you", Some(Some("when"))),
        );
        assert!(v.is_empty() && n.is_empty());
        assert_eq!(input.question, Some(Some("when".into())));
    }

    #[test]
    fn variables_are_added_and_listed() {
        let line = add_variable("you, flight", "CityName");
        assert_eq!(line, "you, flight, VARIABLE CityName");
        assert_eq!(variables(&line), vec!["CityName"]);
        assert_eq!(noun("VARIABLE X QUESTION what"), Noun::Variable("X".into()));
        assert_eq!(noun("QUESTION"), Noun::None);
        assert!(is_variable_name("Gate_2"));
        assert!(!is_variable_name("2Gate"));
        assert!(!is_variable_name("a b"));
    }
}
