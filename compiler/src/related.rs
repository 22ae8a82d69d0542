//! The words players use for the words a designer wrote: a related-words table derived once
//! from WordNet 3.0 and the corpora (`related/derive_related.py`) and compiled in. HMM spaces'
//! back end lets every content word of a concept, a lexicon category or a surface pattern also match its
//! synonyms ("thanks" also "appreciation"? no: only synonyms whose most frequent sense is the
//! same and which the corpora use alike: "tired" and "weary", "hello" and "hi"), and a
//! concept that declares `kinds` every kind of those words ("person": a king, a smith, a
//! thief). The runtime only sees more stems: it stays as small as it was. Sentence states'
//! over-generation asks it who can be the one who acts ("want *you* to go", a kind of person).
//! **Invariant:** depends on nothing else in the crate (both `hpmm` and `nlg` read it).

use std::collections::HashMap;
use std::sync::OnceLock;

/// At most this many words come from one concept's `kinds`: "person" has a few hundred in the
/// table's vocabulary, "entity" would have everything.
pub const MAX_KINDS: usize = 2000;

struct Table {
    synonyms: HashMap<&'static str, Vec<&'static str>>,
    kinds: HashMap<&'static str, Vec<&'static str>>,
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut synonyms = HashMap::new();
        let mut kinds = HashMap::new();
        for line in include_str!("related/related.tsv").lines() {
            let mut f = line.split('\t');
            let (Some(word), Some(syn), Some(kind)) = (f.next(), f.next(), f.next()) else {
                continue;
            };
            let words = |s: &'static str| s.split(' ').filter(|w| !w.is_empty()).collect();
            synonyms.insert(word, words(syn));
            kinds.insert(word, words(kind));
        }
        Table { synonyms, kinds }
    })
}

/// Function words: never expanded (their WordNet entries are rare senses: "do" a party, "will"
/// a testament).
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us",
    "them", "my", "your", "his", "its", "our", "their", "this", "that", "these", "those", "is",
    "am", "are", "was", "were", "be", "been", "being", "do", "does", "did", "have", "has", "had",
    "can", "could", "will", "would", "shall", "should", "may", "might", "must", "not", "no", "yes",
    "and", "or", "but", "if", "so", "to", "of", "in", "on", "at", "for", "with", "from", "by",
    "about", "up", "down", "out", "over", "what", "who", "where", "when", "why", "how", "which",
    "there", "here", "some", "any", "all", "one", "get", "go", "make", "take", "give",
];

/// The real words of the table's vocabulary (`related/words.txt`: the corpora's words WordNet
/// knows in some inflection, and the closed-class words it leaves out), sorted: a word a player
/// types that is one of these is no slip of the keys.
pub fn real_words() -> impl Iterator<Item = &'static str> {
    include_str!("related/words.txt")
        .lines()
        .filter(|l| !l.is_empty())
}

/// The common nouns of the table's vocabulary (`related/nouns.txt`: mostly used as nouns in
/// WordNet's sense-tagged counts), what an `Unheard` tracker takes for the thing a line is about.
pub fn nouns() -> impl Iterator<Item = &'static str> {
    include_str!("related/nouns.txt")
        .lines()
        .filter(|l| !l.is_empty())
}

/// The words a player may use for `word` (lower case), `word` itself not included: its
/// synonyms in the table, none for a function word.
pub fn synonyms(word: &str) -> &'static [&'static str] {
    if FUNCTION_WORDS.contains(&word) {
        return &[];
    }
    table().synonyms.get(word).map_or(&[], Vec::as_slice)
}

/// The synonyms of `word` in the sense the words written beside it share: a list of words a
/// designer wrote together (a pattern's alternatives, a category's members, a concept's words)
/// picks which of a word's senses is meant: a synonym is kept when it is one of the siblings or
/// a synonym of one of them, either way round. "close" beside "far" and "near" brings neither
/// "last" (a close of the day) nor "shut". A word written alone keeps all of its synonyms; the
/// price is that a synonym the table links to no sibling is lost even in the right sense.
pub fn synonyms_among(word: &str, siblings: &[&str]) -> Vec<&'static str> {
    // Another spelling of the word itself ("pay|pays") picks no sense.
    let own = ensemble_runtime::hpmm::text::stem(word);
    let others: Vec<&str> = siblings
        .iter()
        .copied()
        .filter(|&m| !FUNCTION_WORDS.contains(&m))
        .filter(|&m| ensemble_runtime::hpmm::text::stem(m) != own)
        .collect();
    let all = synonyms(word);
    if others.is_empty() {
        return all.to_vec();
    }
    all.iter()
        .copied()
        .filter(|&s| {
            others
                .iter()
                .any(|&m| m == s || synonyms(m).contains(&s) || synonyms(s).contains(&m))
        })
        .collect()
}

/// Whether the table knows `word` (for a `kinds` entry: a typo is reported, not ignored).
pub fn is_known(word: &str) -> bool {
    table().synonyms.contains_key(word)
}

/// Every kind of `word` (the table stores them all, walked down WordNet's hyponyms: "person":
/// king, smith, thief, ...), at most [`MAX_KINDS`], in a fixed order.
pub fn kinds(word: &str) -> &'static [&'static str] {
    let kinds = table().kinds.get(word).map_or(&[][..], Vec::as_slice);
    &kinds[..kinds.len().min(MAX_KINDS)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synonyms_are_close_and_function_words_stay_alone() {
        assert!(synonyms("tired").contains(&"weary"));
        // "thankful" stems to "thank", a word of its own: it is left out, not merged.
        assert!(!synonyms("grateful").contains(&"thankful"));
        assert!(synonyms("hello").contains(&"hi"));
        // WordNet's first sense of "lord" is God: no "creator" for an innkeeper's lord.
        assert!(!synonyms("lord").contains(&"creator"));
        assert!(synonyms("do").is_empty() && synonyms("will").is_empty());
        assert!(synonyms("glorble").is_empty());
    }

    #[test]
    fn siblings_pick_the_sense() {
        // "close" beside "far" and "near" is nearness: neither "last" nor "shut".
        assert_eq!(synonyms("close"), ["last", "shut"]);
        assert!(synonyms_among("close", &["far", "near", "close"]).is_empty());
        // Beside "open", "shut" is kept: a sibling's synonym, either way round.
        assert_eq!(
            synonyms_among("close", &["open", "close", "shut"]),
            ["shut"]
        );
        // A synonym of a sibling is kept ("howdy" is one of "hi" too); alone, all are.
        assert_eq!(
            synonyms_among("hello", &["hello", "hi"]),
            ["hi", "howdy", "hullo"]
        );
        assert_eq!(synonyms_among("tired", &["tired"]), synonyms("tired"));
        assert_eq!(synonyms_among("tired", &[]), synonyms("tired"));
        // Function words and the word's own spellings beside it pick nothing.
        assert_eq!(synonyms_among("tired", &["tired", "so"]), synonyms("tired"));
        assert_eq!(synonyms_among("pay", &["pay", "pays"]), synonyms("pay"));
    }

    #[test]
    fn kinds_walk_down_and_are_bounded() {
        let people = kinds("person");
        for k in ["king", "thief", "stranger"] {
            assert!(people.contains(&k), "{k}");
        }
        assert!(people.len() <= MAX_KINDS);
        assert!(kinds("glorble").is_empty());
        assert!(is_known("person") && !is_known("persn"));
    }
}
