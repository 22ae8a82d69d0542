//! Colouring cell syntax as the designer types: variables, built-ins, `not`, constants, numbers
//! and quoted text, with the parse error's range underlined. It is a display aid only: a
//! tokeniser that never fails, independent of the parser that decides what is valid.

use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Token {
    Plain,
    Variable,
    Builtin,
    Keyword,
    Predicate,
    Number,
    Quoted,
    Punct,
}

/// Consecutive `(range, token)` covering all of `text`.
pub fn tokens(text: &str) -> Vec<(Range<usize>, Token)> {
    let b = text.as_bytes();
    let mut out: Vec<(Range<usize>, Token)> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        let token = if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            if word == "not" {
                Token::Keyword
            } else if word.starts_with(|ch: char| ch.is_ascii_uppercase() || ch == '_') {
                Token::Variable
            } else if text[i..].trim_start().starts_with('(') {
                Token::Predicate
            } else {
                Token::Plain
            }
        } else if c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_alphabetic) {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Token::Builtin
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            Token::Number
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += 1;
            }
            i = (i + 1).min(b.len());
            Token::Quoted
        } else if c.is_ascii_punctuation() {
            i += 1;
            Token::Punct
        } else {
            // Whitespace and anything else, up to the next ASCII boundary of interest.
            i += text[i..].chars().next().map_or(1, char::len_utf8);
            Token::Plain
        };
        match out.last_mut() {
            Some((r, t)) if *t == token && token == Token::Plain => r.end = i,
            _ => out.push((start..i, token)),
        }
    }
    out
}

/// The error range made visible: an empty range (an error at the end, "expected `)`") marks
/// the character before it; ranges are clamped to `text` and to character boundaries.
pub fn visible_error(text: &str, range: Range<usize>) -> Option<Range<usize>> {
    if text.is_empty() {
        return None;
    }
    let clamp = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (start, end) = (clamp(range.start), clamp(range.end));
    if start < end {
        return Some(start..end);
    }
    let (at, ch) = text[..end]
        .char_indices()
        .last()
        .or_else(|| text.char_indices().next())?;
    Some(at..at + ch.len_utf8())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_cover_the_text_and_tell_kinds_apart() {
        let text = "seat(X), not reserved(X, .me), T < .now + 2, name='o k'";
        let ts = tokens(text);
        assert_eq!(ts.first().unwrap().0.start, 0);
        assert_eq!(ts.last().unwrap().0.end, text.len());
        assert!(ts.windows(2).all(|w| w[0].0.end == w[1].0.start));
        let kind = |s: &str| {
            let at = text.find(s).unwrap();
            ts.iter().find(|(r, _)| r.start == at).unwrap().1
        };
        assert_eq!(kind("seat"), Token::Predicate);
        assert_eq!(kind("X)"), Token::Variable);
        assert_eq!(kind("not"), Token::Keyword);
        assert_eq!(kind(".me"), Token::Builtin);
        assert_eq!(kind("2"), Token::Number);
        assert_eq!(kind("'o k'"), Token::Quoted);
        assert_eq!(tokens("è p(")[0].1, Token::Plain);
    }

    #[test]
    fn errors_at_the_end_mark_the_last_character() {
        assert_eq!(visible_error("seat(X", 6..6), Some(5..6));
        assert_eq!(visible_error("seat(X) r", 8..9), Some(8..9));
        assert_eq!(visible_error("é", 2..2), Some(0..2));
        assert_eq!(visible_error("", 0..0), None);
        assert_eq!(visible_error("ab", 9..12), Some(1..2));
    }
}
