//! The surface pattern language of estimators (docs/formats/evidence.md). Words separated by
//! spaces, matched against consecutive input words:
//!
//! - `can you` — words, compared by stem (`paying` matches `pay`);
//! - `@pleasant` — a word in a lexicon category; `@copula&negative` — in all of them;
//! - `can|could|@modal` — any one of the alternatives;
//! - `_` — any one word; `*` — any number of words (a gap);
//! - `^` first / `$` last — the match starts at the first / ends at the last word.
//!
//! No backtracking is needed to match (see `ensemble_runtime::hpmm::pattern`).

use crate::ir::hpmm::{Category, Pattern, PatternWord, Ref};
use crate::ir::{Handle, Name};
use crate::source::Span;
use ensemble_runtime::hpmm::text;

/// The stems a written word matches: its own, and its synonyms' (`crate::related`), so a
/// player's "weary" matches a pattern's "tired" — in the sense its alternatives (`siblings`)
/// share ("far|near|close": not "last").
fn understood_as(word: &str, siblings: &[&str]) -> Vec<String> {
    let mut stems = vec![text::stem(word)];
    for s in crate::related::synonyms_among(word, siblings) {
        let s = text::stem(s);
        if !stems.contains(&s) {
            stems.push(s);
        }
    }
    stems
}

/// Parses `source`; category references are resolved with `category` (unresolved ones are
/// `None` in the result, for the caller to report).
pub fn parse(
    source: &str,
    span: Span,
    category: &dyn Fn(&str) -> Option<Handle<Category>>,
) -> Result<Pattern, String> {
    let pieces: Vec<&str> = source.split_whitespace().collect();
    if pieces.is_empty() {
        return Err("the pattern is empty".into());
    }
    let mut pattern = Pattern {
        from_start: false,
        to_end: false,
        segments: vec![Vec::new()],
    };
    let last = pieces.len() - 1;
    for (i, piece) in pieces.iter().enumerate() {
        match *piece {
            "^" if i == 0 => pattern.from_start = true,
            "$" if i == last => pattern.to_end = true,
            "^" | "$" => {
                return Err(format!(
                    "`{piece}` may only {} the pattern",
                    if *piece == "^" { "start" } else { "end" }
                ));
            }
            "*" => {
                if pattern.segments.last().is_some_and(|s| !s.is_empty()) {
                    pattern.segments.push(Vec::new());
                }
            }
            "_" => pattern
                .segments
                .last_mut()
                .expect("one segment")
                .push(PatternWord::Any),
            p if p.contains('|') || p.starts_with('@') => {
                let test = alternatives(p, span, category)?;
                pattern.segments.last_mut().expect("one segment").push(test);
            }
            p => {
                let words = text::tokenize(p);
                if words.is_empty() {
                    return Err(format!("`{p}` contains no word"));
                }
                for w in words {
                    pattern
                        .segments
                        .last_mut()
                        .expect("one segment")
                        .push(PatternWord::Is {
                            stems: understood_as(&w, &[]),
                            any: vec![],
                            all: vec![],
                        });
                }
            }
        }
    }
    pattern.segments.retain(|s| !s.is_empty());
    if pattern.segments.is_empty() {
        return Err("the pattern matches any input: it has no word to test".into());
    }
    Ok(pattern)
}

/// Each written word of a pattern (not `@categories` or `*`, `_`, `^`, `$`) with its stem, the
/// form it is compared in: for `negated-stem`, which finds a negated word that is a form of a
/// word the estimator requires, and for `phrase-alternative`, which compares neighbours.
pub fn words_and_stems(source: &str) -> Vec<(String, String)> {
    source
        .split_whitespace()
        .filter(|p| !matches!(*p, "*" | "^" | "$" | "_"))
        .flat_map(|p| p.split('|'))
        .filter(|a| !a.starts_with('@'))
        .flat_map(text::tokenize)
        .map(|w| {
            let stem = text::stem(&w);
            (w, stem)
        })
        .collect()
}

/// The words of a one-word pattern (`unfair|fairly`, no gap, no phrase) with every stem each
/// matches, its synonyms' too, as [`parse`] reads them; empty for any other pattern. What a
/// negated word rejects, for `negated-stem`.
pub fn one_word_stems(source: &str) -> Vec<(String, Vec<String>)> {
    let pieces: Vec<&str> = source.split_whitespace().collect();
    let [piece] = pieces.as_slice() else {
        return Vec::new();
    };
    let mut words = Vec::new();
    for alt in piece.split('|').filter(|a| !a.starts_with('@')) {
        match text::tokenize(alt).as_slice() {
            [w] => words.push(w.clone()),
            // `fair?` is the phrase "fair" then "?": a narrower condition.
            _ => return Vec::new(),
        }
    }
    let siblings: Vec<&str> = words.iter().map(String::as_str).collect();
    (words.iter())
        .map(|w| (w.clone(), understood_as(w, &siblings)))
        .collect()
}

/// Alternatives written as if they were phrases: `light the|light a` is read as the three
/// words `light`, `the|light`, `a` (alternatives are single words), so it matches "light light a"
/// and never "light the". The sign is an alternative that repeats the word written right beside
/// it, or a contraction beside its first word (`you'll|you will`). Returns each such token with
/// what gives it away, for a warning where it stands.
pub fn phrase_alternatives(source: &str) -> Vec<(String, String)> {
    let pieces: Vec<&str> = source.split_whitespace().collect();
    // The stems a piece can stand for, or none where it breaks adjacency (`*`, `^`, `$`, `_`).
    let stems = |piece: &str| -> Vec<String> {
        words_and_stems(piece)
            .into_iter()
            .map(|(_, stem)| stem)
            .collect()
    };
    // The words that touch a piece: the last of a plain run before, the first after, or the
    // ends of an alternative list. Two lists may share a word by design (`have|drink
    // one|drink`); written phrases leave it at an end of both (`by|to the|to a`).
    let ends =
        |s: &[String]| -> Vec<String> { s.first().into_iter().chain(s.last()).cloned().collect() };
    let touching = |p: &str, before: bool| {
        let s = stems(p);
        match (p.contains('|'), before) {
            (true, _) => ends(&s),
            (false, true) => s.last().cloned().into_iter().collect(),
            (false, false) => s.first().cloned().into_iter().collect(),
        }
    };
    let mut found = Vec::new();
    for (i, piece) in pieces.iter().enumerate() {
        if !piece.contains('|') {
            continue;
        }
        let beside = i
            .checked_sub(1)
            .map(|j| touching(pieces[j], true))
            .into_iter()
            .chain(pieces.get(i + 1).map(|p| touching(p, false)))
            .flatten();
        let own = ends(&stems(piece));
        if let Some(w) = beside.into_iter().find(|w| own.contains(w)) {
            found.push((piece.to_string(), format!("repeats `{w}` beside it")));
            continue;
        }
        // A contraction beside its first word (`you'll|you will`, `can't|can not`): the word
        // after the list (a plain word, or the first of a list: `you're|you are|ur`) was meant
        // to follow only that first word.
        let alts: Vec<&str> = piece.split('|').collect();
        let next = pieces
            .get(i + 1)
            .and_then(|n| n.split('|').next())
            .filter(|n| !matches!(*n, "*" | "_" | "$") && !n.starts_with('@'));
        let contracted = |a: &str, next: &str| {
            a.split_once('\'').is_some_and(|(base, rest)| {
                // "isn't" is "is" + "n't"; "can't" is "can" + "'t".
                let (base, rest) = match (base.strip_suffix('n'), rest) {
                    (Some(short), "t") if alts.contains(&short) => (short, "nt"),
                    _ => (base, rest),
                };
                let expands = match rest {
                    "ll" => &["will"][..],
                    "m" => &["am"],
                    "re" => &["are"],
                    "s" => &["is", "has"],
                    "ve" => &["have"],
                    "d" => &["would", "had", "did"],
                    "t" | "nt" => &["not"],
                    _ => &[],
                };
                alts.contains(&base) && expands.contains(&next)
            })
        };
        if let Some(next) = next
            && alts.iter().any(|a| contracted(a, next))
        {
            found.push((
                piece.to_string(),
                format!("holds a contraction and its first word, before `{next}`"),
            ));
            continue;
        }
        // A common phrase split at the list's end (`have|got|is there`: "is there"; `it|the
        // same|yours`: "the same"): the word after it makes a phrase with the last alternative
        // and with no other, so the list was meant to hold the phrase whole. (A word
        // before a list is the shared word kept outside, `how much|far`, as advised.)
        if let Some(next) = next
            && let Some(last) = alts.last()
            && COMMON_PHRASES.contains(&(*last, next))
            && !alts[..alts.len() - 1]
                .iter()
                .any(|a| COMMON_PHRASES.contains(&(*a, next)))
        {
            found.push((
                piece.to_string(),
                format!("splits the phrase `{last} {next}` at its end"),
            ));
            continue;
        }
        // A contraction of the word before the list (`you are|you're`): read as "you you're".
        let before = i
            .checked_sub(1)
            .map(|j| pieces[j])
            .filter(|b| !b.contains('|'));
        if let Some(before) = before
            && let Some(a) = alts
                .iter()
                .find(|a| a.split_once('\'').is_some_and(|(base, _)| base == before))
        {
            found.push((
                piece.to_string(),
                format!("holds `{a}`, a contraction of `{before}` written before it"),
            ));
        }
    }
    found
}

/// Two-word phrases whose first word is a function word, so that an alternative list ending in
/// the first half of one, before its second, is a sign of a phrase written as an alternative.
/// Lowercase, as written in patterns.
const COMMON_PHRASES: &[(&str, &str)] = &[
    ("is", "there"),
    ("are", "there"),
    ("was", "there"),
    ("were", "there"),
    ("the", "same"),
    ("a", "lot"),
    ("a", "few"),
    ("a", "bit"),
    ("a", "little"),
    ("at", "all"),
    ("at", "night"),
    ("at", "once"),
    ("of", "course"),
    ("in", "town"),
    ("no", "one"),
    ("each", "other"),
    ("thank", "you"),
    ("you", "are"),
    ("we", "are"),
    ("they", "are"),
    ("i", "am"),
    ("i", "will"),
    ("i", "have"),
    ("do", "you"),
    ("did", "you"),
    ("are", "you"),
    ("were", "you"),
    ("would", "you"),
    ("could", "you"),
    ("have", "you"),
    ("can", "you"),
    ("will", "you"),
    ("how", "much"),
    ("how", "many"),
    ("how", "far"),
    ("how", "long"),
    ("too", "much"),
    ("so", "much"),
    ("what", "about"),
    ("how", "about"),
    ("right", "now"),
    ("over", "there"),
    ("in", "there"),
    ("out", "there"),
    // Phrases that were written as alternatives in the innkeeper and never matched
    // (`was|yesterday|last night`, `if|when|in advance`, `i said|told you`).
    ("in", "advance"),
    ("last", "night"),
    ("last", "week"),
    ("next", "week"),
    ("told", "you"),
    ("no", "more"),
    ("first", "light"),
    // And one a later round wrote (`bar|taproom|common room|downstairs`).
    ("common", "room"),
    // Phrases the innkeeper's later rounds wrote as alternatives (`not|besides|apart from`,
    // `without|less|instead of`, `miss|like|go back`), and their like.
    ("apart", "from"),
    ("instead", "of"),
    ("other", "than"),
    ("rather", "than"),
    ("go", "back"),
    ("come", "back"),
    ("never", "mind"),
    ("looking", "for"),
    ("right", "away"),
    ("as", "well"),
    ("kind", "of"),
    ("sort", "of"),
    ("in", "front"),
    ("each", "other"),
    ("because", "of"),
];

fn alternatives(
    piece: &str,
    span: Span,
    category: &dyn Fn(&str) -> Option<Handle<Category>>,
) -> Result<PatternWord, String> {
    let mut stems = Vec::new();
    let mut any = Vec::new();
    let mut all = Vec::new();
    let reference = |name: &str| Ref {
        name: Name {
            text: name.to_string(),
            span,
        },
        target: category(name),
    };
    // The alternatives as the runtime reads them ("Tired|Weary": tired, weary).
    let siblings: Vec<String> = piece
        .split('|')
        .filter(|a| !a.starts_with('@'))
        .flat_map(text::tokenize)
        .collect();
    let siblings: Vec<&str> = siblings.iter().map(String::as_str).collect();
    for alt in piece.split('|') {
        if let Some(cats) = alt.strip_prefix('@') {
            if cats.contains('&') {
                if !all.is_empty() {
                    return Err(format!(
                        "`{piece}` has two `&` conjunctions; one word test takes at most one"
                    ));
                }
                for c in cats.split('&') {
                    if c.is_empty() {
                        return Err(format!("`{piece}` has an empty category name"));
                    }
                    all.push(reference(c));
                }
            } else if cats.is_empty() {
                return Err(format!("`{piece}` has an empty category name"));
            } else {
                any.push(reference(cats));
            }
        } else {
            let words = text::tokenize(alt);
            match words.as_slice() {
                [w] => stems.extend(understood_as(w, &siblings)),
                _ => {
                    return Err(format!(
                        "`{alt}` in `{piece}` is not a single word (alternatives are single words)"
                    ));
                }
            }
        }
    }
    Ok(PatternWord::Is { stems, any, all })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn stems(p: &Pattern) -> Vec<Vec<String>> {
        p.segments
            .iter()
            .map(|s| {
                s.iter()
                    .map(|w| match w {
                        PatternWord::Any => "_".to_string(),
                        PatternWord::Is { stems, any, all } => {
                            let mut parts = stems.clone();
                            parts.extend(any.iter().map(|c| format!("@{}", c.name.text)));
                            if !all.is_empty() {
                                let names: Vec<&str> =
                                    all.iter().map(|c| c.name.text.as_str()).collect();
                                parts.push(format!("@{}", names.join("&")));
                            }
                            parts.join("|")
                        }
                    })
                    .collect()
            })
            .collect()
    }

    fn parse_ok(s: &str) -> Pattern {
        parse(s, Span::file_start(FileId(0)), &|_| None).unwrap()
    }

    #[test]
    fn the_report_examples() {
        let p = parse_ok("^ can|could you *");
        assert!(p.from_start && !p.to_end);
        assert_eq!(stems(&p), [["can|could", "you"]]);
        let p = parse_ok("what's up ?");
        assert_eq!(stems(&p), [["what", "up", "?"]]);
        let p = parse_ok("@wh-word @copula&negative * paying $");
        assert_eq!(
            stems(&p),
            [vec!["@wh-word", "@copula&negative"], vec!["pay"]]
        );
        assert!(p.to_end);
        assert_eq!(
            stems(&parse_ok("give _ beer!")),
            [["give", "_", "beer", "!"]]
        );
    }

    #[test]
    fn malformed_patterns() {
        let err = |s: &str| parse(s, Span::file_start(FileId(0)), &|_| None).unwrap_err();
        assert!(err("").contains("empty"));
        assert!(err("* *").contains("no word"));
        assert!(err("hello ^").contains("start"));
        assert!(err("@a&b|@c&d").contains("two"));
        assert!(err("@").contains("empty category"));
        assert!(err("well|,").contains("not a single word"));
    }

    #[test]
    fn written_words_come_with_the_stems_they_compare_in() {
        // `fairly` is compared as `fair`: a negated `fairly` rejects every "fair".
        // A negated word matches its synonyms' stems too: "tired" finds "weary".
        let tired = one_word_stems("tired");
        assert_eq!(tired[0].0, "tired");
        assert!(tired[0].1.contains(&text::stem("weary")), "{tired:?}");
        // A phrase, a gap or a punctuated word is not one word.
        assert!(one_word_stems("fair price").is_empty());
        assert!(one_word_stems("fair * coming").is_empty());
        assert!(one_word_stems("fair?").is_empty());
        assert_eq!(one_word_stems("@greeting|hello").len(), 1);
        let words = words_and_stems("^ a|any fairly * coming|@greeting _ $");
        let pairs: Vec<(&str, &str)> = words
            .iter()
            .map(|(w, s)| (w.as_str(), s.as_str()))
            .collect();
        assert!(pairs.contains(&("fairly", "fair")), "{pairs:?}");
        assert!(pairs.contains(&("coming", "come")), "{pairs:?}");
        // Gaps, anchors and categories are not words.
        assert_eq!(pairs.len(), 4, "{pairs:?}");
    }

    #[test]
    fn alternatives_written_as_phrases() {
        let found = |s: &str| phrase_alternatives(s);
        assert_eq!(
            found("light the|light a"),
            [(
                "the|light".to_string(),
                "repeats `light` beside it".to_string()
            )]
        );
        assert_eq!(found("not * bad|half bad").len(), 1);
        assert_eq!(found("go by|to the|to a").len(), 2);
        assert_eq!(found("you will * regret|be eating|be spitting").len(), 2);
        // Stems: "paying|pays pay" repeats `pay`.
        assert_eq!(found("paying|pays pay").len(), 1);
        // Real single-word alternatives, and a repeat across a gap, are fine.
        assert!(found("^ can|could you *").is_empty());
        assert!(found("light the|a fire").is_empty());
        assert!(found("bad * bad|good").is_empty());
        assert!(found("have|drink|share|take one|drink|mug with me").is_empty());
        // A contraction and its first word, before the word it contracts.
        assert_eq!(found("you'll|youll|you will * regret").len(), 1);
        assert_eq!(found("can't|cant|cannot|can not * climb").len(), 1);
        assert!(found("you'll|youll * regret").is_empty());
        assert_eq!(found("you're|youre|you are|ur * islander").len(), 1);
        assert!(found("can't|cannot * climb").is_empty());
        // A common phrase split at a list's edge.
        assert_eq!(
            found("have|got|any|is there * bath"),
            [(
                "have|got|any|is".to_string(),
                "splits the phrase `is there` at its end".to_string()
            )]
        );
        assert_eq!(found("of * that|it|this|the same|yours").len(), 1);
        assert_eq!(found("what|how much * pay").len(), 1);
        // Phrases the innkeeper once wrote this way, and which never matched.
        assert_eq!(found("sorry * if|when|in advance|ahead").len(), 1);
        assert_eq!(found("was|yesterday|last night").len(), 1);
        assert_eq!(found("i said|told you").len(), 1);
        assert_eq!(found("bar|taproom|common room|downstairs").len(), 1);
        assert_eq!(found("isn't|not|besides|apart from * stew").len(), 1);
        assert_eq!(found("without|less|instead of|spicy").len(), 1);
        assert_eq!(found("do|did you * miss|like|love|go back|ever").len(), 1);
        assert!(found("instead|rather of").is_empty());
        // A word shared by every alternative is no phrase split (`go|went|put up`).
        assert!(found("when * inn * go|went|put up").is_empty());
        // Other alternatives make phrases too, or the word is kept outside: a real list.
        assert!(found("is|are there * room").is_empty());
        assert!(found("how|what about * it").is_empty());
        assert!(found("are|were|did|do you|u").is_empty());
        assert!(found("do|does|got|have you").is_empty());
        assert!(found("how much|many|far|old").is_empty());
        assert!(found("have|got * bath").is_empty());
        assert!(found("the * same|yours").is_empty());
        // A contraction of the word before the list.
        assert_eq!(found("you are|you're|youre * from").len(), 1);
        assert!(found("you are|were * kind").is_empty());
    }
}
