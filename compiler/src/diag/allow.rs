//! Warnings marked as intended in the source, where review sees them: a line comment
//! `// allow(code, code…): why` in a RON file.
//!
//! - On a line of its own, it covers the line below it and the whole item that starts there
//!   (a state with all its transitions, a transition, or — above the top-level value — the
//!   whole file).
//! - After code on a line, it covers that line.
//!
//! Only warnings and notes are silenced; errors stand. A code that does not exist is itself a
//! warning (`invalid-value`, with a did-you-mean fix), so a typo cannot silence nothing quietly.
//! Described in docs/formats/README.md.

use super::{Code, Diagnostic, Span, suggest};
use std::ops::Range;

/// One `allow(...)` comment: the codes it names (each with where it is written) and the byte
/// range of the source it covers.
#[derive(Clone, Debug, PartialEq)]
pub struct Allowance {
    pub codes: Vec<(String, Range<usize>)>,
    pub covers: Range<usize>,
}

impl Allowance {
    /// Whether this comment silences a diagnostic `code` whose primary label starts at `at`.
    pub fn silences(&self, code: Code, at: usize) -> bool {
        self.covers.contains(&at) && self.codes.iter().any(|(c, _)| c == code.as_str())
    }
}

/// The warning for a code an `allow` comment names that does not exist.
pub(super) fn unknown_code(span: Span, name: &str) -> Diagnostic {
    let d = Diagnostic::warning(
        Code::InvalidValue,
        format!("`{name}` is not a diagnostic code, so this `allow` silences nothing"),
    )
    .at(span, "unknown code")
    .note("codes are listed in docs/diagnostics.md");
    match suggest(name, Code::ALL.iter().map(|c| c.as_str())) {
        Some(s) => d.did_you_mean(name, s),
        None => d,
    }
}

/// What the scanner is inside.
#[derive(Clone, Copy, PartialEq)]
enum In {
    Code,
    Str,
    Block,
}

/// Every `allow(...)` comment of a RON source. Strings and block comments are skipped, so a
/// `// allow(` inside a string is text, not a comment.
pub fn find(text: &str) -> Vec<Allowance> {
    if !text.contains("allow(") {
        return Vec::new();
    }
    let mut found = Vec::new();
    for comment in line_comments(text) {
        let body = &text[comment.clone()];
        let Some(open) = body.find("allow(") else {
            continue;
        };
        // Only the directive itself: `// allow(...)`, not prose that mentions one.
        if !body[2..open].trim().is_empty() {
            continue;
        }
        let inner_start = comment.start + open + "allow(".len();
        let Some(close) = text[inner_start..comment.end].find(')') else {
            continue;
        };
        let mut codes = Vec::new();
        let mut at = inner_start;
        for part in text[inner_start..inner_start + close].split(',') {
            let name = part.trim();
            if !name.is_empty() {
                let start = at + (part.len() - part.trim_start().len());
                codes.push((name.to_string(), start..start + name.len()));
            }
            at += part.len() + 1;
        }
        let line_start = text[..comment.start].rfind('\n').map_or(0, |i| i + 1);
        let covers = if text[line_start..comment.start].trim().is_empty() {
            below(text, comment.end)
        } else {
            line_start..comment.start
        };
        found.push(Allowance { codes, covers });
    }
    found
}

/// What [`pieces`] finds: a byte of code (the opening quote of a string included, its
/// contents not), or a whole line comment.
enum Piece {
    Code(usize, u8),
    LineComment(Range<usize>),
}

/// The code bytes and line comments of `text` from `from`, skipping strings and block comments,
/// so a `// allow(` or a bracket inside a string is text.
fn pieces(text: &str, from: usize) -> impl Iterator<Item = Piece> + '_ {
    let bytes = text.as_bytes();
    let (mut i, mut state) = (from, In::Code);
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let (at, b, next) = (i, bytes[i], bytes.get(i + 1).copied());
            i += 1;
            match state {
                In::Code if b == b'/' && next == Some(b'/') => {
                    i = text[at..].find('\n').map_or(text.len(), |n| at + n);
                    return Some(Piece::LineComment(at..i));
                }
                In::Code if b == b'/' && next == Some(b'*') => {
                    state = In::Block;
                    i += 1;
                }
                In::Code => {
                    if b == b'"' {
                        state = In::Str;
                    }
                    return Some(Piece::Code(at, b));
                }
                In::Str if b == b'\\' => i += 1,
                In::Str if b == b'"' => state = In::Code,
                In::Block if b == b'*' && next == Some(b'/') => {
                    state = In::Code;
                    i += 1;
                }
                _ => {}
            }
        }
        None
    })
}

/// The byte ranges of the line comments (`//` to the end of the line) of `text`.
fn line_comments(text: &str) -> Vec<Range<usize>> {
    pieces(text, 0)
        .filter_map(|p| match p {
            Piece::LineComment(r) => Some(r),
            Piece::Code(..) => None,
        })
        .collect()
}

/// What a comment on its own line ending at `from` covers: the next line with code, and the
/// whole item that starts there (to its `,` or closing bracket at its own depth). Further
/// comments before it, such as a second allow, are skipped.
fn below(text: &str, from: usize) -> Range<usize> {
    let (mut start, mut depth, mut end) = (None, 0usize, text.len());
    for piece in pieces(text, from) {
        let Piece::Code(at, b) = piece else { continue };
        if b.is_ascii_whitespace() {
            continue;
        }
        start.get_or_insert(at);
        match b {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' | b',' if depth == 0 => {
                end = at;
                break;
            }
            b')' | b']' | b'}' => depth -= 1,
            _ => {}
        }
    }
    let start = start.unwrap_or(text.len());
    let line_end = text[start..].find('\n').map_or(text.len(), |n| start + n);
    start..end.max(line_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered<'a>(text: &'a str, a: &Allowance) -> &'a str {
        &text[a.covers.clone()]
    }

    #[test]
    fn a_comment_above_an_item_covers_the_whole_item() {
        let text = "[\n    // allow(unknown-event, dead-end-state): the partner says it\n    (name: \"Listen\", on: [\n        (\"YourTurn\", \"Speak\"),\n    ]),\n    (name: \"Speak\"),\n]";
        let found = find(text);
        assert_eq!(found.len(), 1);
        let names: Vec<&str> = found[0].codes.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(names, ["unknown-event", "dead-end-state"]);
        for (name, at) in &found[0].codes {
            assert_eq!(&text[at.clone()], name);
        }
        assert_eq!(
            covered(text, &found[0]),
            "(name: \"Listen\", on: [\n        (\"YourTurn\", \"Speak\"),\n    ])"
        );
        let your_turn = text.find("YourTurn").unwrap();
        assert!(found[0].silences(Code::UnknownEvent, your_turn));
        assert!(!found[0].silences(Code::UnreachableState, your_turn));
        assert!(!found[0].silences(Code::UnknownEvent, text.find("(name: \"Speak\")").unwrap()));
    }

    #[test]
    fn a_trailing_comment_covers_its_line_and_strings_are_not_comments() {
        let text =
            "[(\"A\", \"B\"), // allow(unknown-event)\n (\"C\", \"// allow(unknown-event)\")]";
        let found = find(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].silences(Code::UnknownEvent, text.find("\"A\"").unwrap()));
        assert!(!found[0].silences(Code::UnknownEvent, text.find("\"C\"").unwrap()));
    }

    #[test]
    fn prose_that_mentions_allow_is_not_a_directive() {
        assert!(find("// you could allow(unknown-event) here\n(a: 1)").is_empty());
        assert!(find("(a: 1)").is_empty());
    }
}

/// The conversation pattern: a seller that waits for its partner's messages. Its three
/// transitions on messages are right, and warned about until marked as intended.
#[cfg(test)]
mod conversation {
    use crate::diag::{Code, Severity};

    const SELLER: &str = r#"// The seller's half of a conversation: greet, then take turns until the buyer leaves.
Machine(
    name: "Seller",
    states: [
        (name: "Start", on: [("Empty", "Greet")]),
        (name: "Greet", code: "Say", modifier: "Hello!", on: [("FinishStatement", "Wait")]),
        // allow(unknown-event): YourTurn and Bye are the buyer's messages
        (name: "Wait", modifier: 30.0, on: [
            ("YourTurn", "Answer"),
            ("Bye", "Finish"),
            ("Done", "Finish"),
        ]),
        (name: "Answer", code: "Say", modifier: "Here you are.", on: [
            ("FinishStatement", "Wait"),
            ("Bye", "Finish"), // allow(unknown-event): the buyer may leave mid-answer
            ("FinishStatment", "Finish"),
        ]),
        (name: "Finish"),
    ],
)
"#;

    fn check(seller: &str) -> crate::Compilation {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Ensemble.ron"),
            r#"Project(name: "conv", libraries: ["sim"])"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("Seller.machine.ron"), seller).unwrap();
        crate::compile_path(dir.path()).unwrap()
    }

    fn codes(c: &crate::Compilation) -> Vec<(Severity, &'static str)> {
        let mut v: Vec<_> = c
            .diagnostics
            .iter()
            .map(|d| (d.severity, d.code.as_str()))
            .collect();
        v.sort();
        v
    }

    #[test]
    fn the_three_message_warnings_are_silenced_where_marked_and_no_others() {
        let unmarked = SELLER
            .lines()
            .filter(|l| !l.trim_start().starts_with("// allow"))
            .map(|l| l.split(" // allow").next().unwrap())
            .collect::<Vec<_>>()
            .join("\n");
        let before = check(&unmarked);
        let warned = |c: &crate::Compilation, e: &str| {
            c.diagnostics
                .iter()
                .filter(|d| d.code == Code::UnknownEvent && d.message.contains(&format!("`{e}`")))
                .count()
        };
        assert_eq!(warned(&before, "YourTurn"), 1);
        assert_eq!(warned(&before, "Bye"), 2);
        let after = check(SELLER);
        assert_eq!(warned(&after, "YourTurn"), 0, "{:?}", codes(&after));
        assert_eq!(warned(&after, "Bye"), 0, "{:?}", codes(&after));
        // The typo beside a marked line is still reported, with its fix.
        let typo: Vec<_> = after
            .diagnostics
            .iter()
            .filter(|d| d.message.contains("`FinishStatment`"))
            .collect();
        assert_eq!(typo.len(), 1, "{:?}", codes(&after));
        let fix = typo[0].fix.as_ref().expect("a did-you-mean fix");
        let text = &after.sources.get(fix.span.file).text;
        assert_eq!(&text[fix.span.range()], "FinishStatment");
        assert_eq!(fix.replacement, "FinishStatement");
        let json = after.diagnostics.to_json(&after.sources);
        assert!(
            json.contains(r#""replacement": "FinishStatement""#),
            "{json}"
        );
    }

    #[test]
    fn errors_stand_and_a_misspelt_code_is_warned_about_with_a_fix() {
        let broken = SELLER
            .replace(r#"(name: "Finish"),"#, "")
            .replace(
                "// allow(unknown-event): YourTurn",
                "// allow(unknown-evnt): YourTurn",
            )
            .replace(
                r#"("Bye", "Finish"), // allow"#,
                r#"("Bye", "Finish"), // allow(unknown-reference) // allow"#,
            );
        let c = check(&broken);
        // The unknown `Finish` target is an error, allowed or not.
        assert!(c.diagnostics.has_errors(), "{:?}", codes(&c));
        let typo: Vec<_> = c
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::InvalidValue && d.message.contains("unknown-evnt"))
            .collect();
        assert_eq!(typo.len(), 1, "{:?}", codes(&c));
        let fix = typo[0].fix.as_ref().unwrap();
        assert_eq!(fix.replacement, "unknown-event");
        assert_eq!(
            &c.sources.get(fix.span.file).text[fix.span.range()],
            "unknown-evnt"
        );
    }
}
