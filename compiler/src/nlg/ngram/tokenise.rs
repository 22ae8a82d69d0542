//! Text to sentences of tokens, the same way for the corpus and for the candidates being ranked:
//! Unicode word segmentation (UAX #29, so "don't" and "café" are one word each), lower-casing,
//! sentences ending at `.`, `!`, `?` (not after "Mr." and friends) or at a blank line.
//!
//! Project Gutenberg files are cut to the text between the `*** START OF ...` and
//! `*** END OF ...` markers; byte-order marks and CR LF line ends are handled.

use unicode_segmentation::UnicodeSegmentation;

/// Sentence start and end markers (Web1T writes them `<S>` and `</S>`).
pub const BOS: &str = "<s>";
pub const EOS: &str = "</s>";

const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "rev", "capt", "col", "gen", "lt", "sgt",
    "messrs", "mme", "mlle", "vs", "etc", "no",
];

/// Whether `line` is a Gutenberg `*** START OF THE PROJECT GUTENBERG ...` (or END, or THIS)
/// marker: `(?i)\*\*\* ?(START|END) OF (THE|THIS) PROJECT GUTENBERG`. Returns `Some(true)` for
/// START, `Some(false)` for END.
pub fn gutenberg_marker(line: &str) -> Option<bool> {
    let l = line.to_ascii_lowercase();
    let at = l.find("***")?;
    let rest = l[at + 3..].strip_prefix(' ').unwrap_or(&l[at + 3..]);
    let (start, rest) = if let Some(r) = rest.strip_prefix("start of ") {
        (true, r)
    } else if let Some(r) = rest.strip_prefix("end of ") {
        (false, r)
    } else {
        return None;
    };
    let rest = rest
        .strip_prefix("the ")
        .or_else(|| rest.strip_prefix("this "))?;
    rest.starts_with("project gutenberg").then_some(start)
}

/// The body of a Gutenberg file: the lines between the START and END markers. Files without
/// markers are used whole.
pub fn gutenberg_body(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut start = 0;
    let mut end = text.len();
    let mut pos = 0;
    let mut seen_start = false;
    for line in text.split_inclusive('\n') {
        match gutenberg_marker(line) {
            Some(true) if !seen_start => {
                start = pos + line.len();
                seen_start = true;
            }
            Some(false) if pos >= start => {
                end = pos;
                break;
            }
            _ => {}
        }
        pos += line.len();
    }
    &text[start..end.max(start)]
}

/// Splits text into sentences of lower-cased word tokens, calling `f` once per sentence (without
/// the `<s>`/`</s>` markers). Paragraph breaks (blank lines) end a sentence too.
pub fn sentences(text: &str, mut f: impl FnMut(&[String])) {
    let mut current: Vec<String> = Vec::new();
    for paragraph in paragraphs(text) {
        for segment in paragraph.split_word_bounds() {
            if segment.chars().any(char::is_alphanumeric) {
                current.push(segment.to_lowercase());
            } else if segment.contains(['.', '!', '?']) {
                let abbreviation = segment == "."
                    && current.last().is_some_and(|w| {
                        ABBREVIATIONS.contains(&w.as_str()) || w.chars().count() == 1 && w != "i"
                    });
                if !abbreviation && !current.is_empty() {
                    f(&current);
                    current.clear();
                }
            }
        }
        if !current.is_empty() {
            f(&current);
            current.clear();
        }
    }
}

/// Text between blank lines.
fn paragraphs(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        // A blank line: "\n" followed by optional whitespace and another "\n".
        let mut search = 0;
        while let Some(i) = rest[search..].find('\n') {
            let nl = search + i;
            let after = &rest[nl + 1..];
            let blank = after
                .find('\n')
                .is_some_and(|j| after[..j].trim().is_empty());
            if blank {
                let (p, r) = rest.split_at(nl + 1);
                rest = r.trim_start_matches(['\r', '\n', ' ', '\t']);
                return Some(p);
            }
            search = nl + 1;
        }
        let p = rest;
        rest = "";
        Some(p)
    })
}

/// Tokens of one sentence to score: lower-cased words between `<s>` and `</s>`.
pub fn sentence_tokens(text: &str) -> Vec<String> {
    let mut out = vec![BOS.to_string()];
    for segment in text.split_word_bounds() {
        if segment.chars().any(char::is_alphanumeric) {
            out.push(segment.to_lowercase());
        }
    }
    out.push(EOS.to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_are_found_case_insensitively() {
        assert_eq!(
            gutenberg_marker("*** START OF THE PROJECT GUTENBERG EBOOK ALICE ***\r\n"),
            Some(true)
        );
        assert_eq!(
            gutenberg_marker("***END OF THIS PROJECT GUTENBERG EBOOK"),
            Some(false)
        );
        assert_eq!(
            gutenberg_marker("*** start of the project gutenberg"),
            Some(true)
        );
        assert_eq!(gutenberg_marker("the START OF THE PROJECT GUTENBERG"), None);
    }

    #[test]
    fn body_is_between_markers_without_bom() {
        let text = "\u{feff}Header\r\nlicence\r\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\r\nHello there.\r\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\r\nfooter\r\n";
        assert_eq!(gutenberg_body(text), "Hello there.\r\n");
        assert_eq!(gutenberg_body("no markers"), "no markers");
    }

    #[test]
    fn sentences_split_and_lowercase() {
        let mut got = Vec::new();
        sentences(
            "Mr. Holmes said, \"I don't know!\" Then\r\nhe left.\r\n\r\nA new paragraph",
            |s| got.push(s.join(" ")),
        );
        assert_eq!(
            got,
            vec![
                "mr holmes said i don't know",
                "then he left",
                "a new paragraph"
            ]
        );
    }

    /// UAX #29 words: accented and non-Latin letters stay inside words, dashes and curly quotes
    /// are not words, upper case folds beyond ASCII.
    #[test]
    fn tokenisation_is_unicode_aware() {
        let mut got = Vec::new();
        sentences(
            "ÉMILE’s café—naïve Straße, «Жил-был» 1840s. Ça va?",
            |s| got.push(s.to_vec()),
        );
        assert_eq!(
            got,
            vec![
                vec!["émile’s", "café", "naïve", "straße", "жил", "был", "1840s"],
                vec!["ça", "va"],
            ]
        );
    }

    #[test]
    fn scoring_tokens_are_padded() {
        assert_eq!(
            sentence_tokens("I would like to buy a ticket to Boston."),
            vec![
                "<s>", "i", "would", "like", "to", "buy", "a", "ticket", "to", "boston", "</s>"
            ]
        );
    }
}
