//! Shallow preprocessing (Zubek §5.2.2): an utterance becomes a flat list of words, each with its
//! stem and lexicon categories. Zubek's Link-parser pass (roles from a constituent tree) is not
//! reproduced: evidence comes from surface patterns over stems and categories, which is what his
//! estimators matched on.
//!
//! Stemming uses the Snowball English stemmer (Porter2, the maintained successor of the Porter
//! stemmer Zubek used) from `rust-stemmers`. The compiler stems the words it reads with
//! [`stem`] too, so authored patterns and runtime input always agree.

use super::model::{ConceptId, Model, StemId, Tags};
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashMap;

/// The stem of one lower-case word.
pub fn stem(word: &str) -> String {
    Stemmer::create(Algorithm::English)
        .stem(&word.to_lowercase())
        .into_owned()
}

/// Splits an utterance into lower-case words. Apostrophes and hyphens inside a word are kept
/// (`isn't`, `what's`), so the lexicon can tag contractions as a whole (Zubek: "isn't" is both a
/// copula and a negative); `?` and `!` become words of their own, because patterns test for them;
/// other punctuation around words is dropped. A token made only of punctuation, such as `:)`, is
/// kept as one word.
pub fn tokenize(utterance: &str) -> Vec<String> {
    let mut out = Vec::new();
    for raw in utterance.split_whitespace() {
        let token = raw.replace(['\u{2019}', '\u{2018}'], "'").to_lowercase();
        if !token.chars().any(char::is_alphanumeric) {
            if token.chars().all(|c| c == '?' || c == '!') {
                out.extend(token.chars().map(String::from));
            } else if !token
                .chars()
                .all(|c| matches!(c, '.' | ',' | ';' | ':' | '"' | '-'))
            {
                out.push(token);
            }
            continue;
        }
        let start = token
            .char_indices()
            .find(|(_, c)| c.is_alphanumeric())
            .map(|(i, _)| i)
            .unwrap_or(0);
        let end = token
            .char_indices()
            .rev()
            .find(|(_, c)| c.is_alphanumeric())
            .map(|(i, c)| i + c.len_utf8())
            .unwrap_or(token.len());
        out.push(token[start..end].to_string());
        out.extend(
            token[end..]
                .chars()
                .filter(|c| *c == '?' || *c == '!')
                .map(String::from),
        );
    }
    out
}

/// One preprocessed word.
#[derive(Clone, Debug, PartialEq)]
pub struct Word {
    /// The word in lower case, as tokenised.
    pub text: String,
    /// The stem's id when some pattern or concept mentions it.
    pub stem: Option<StemId>,
    /// Its lexicon categories (of the word itself and of its stem).
    pub tags: Tags,
}

/// Lookup tables built once per agent from the model: stem ids, lexicon tags, concept words.
#[derive(Clone, Debug)]
pub struct Preprocessor {
    /// Word -> (stem id, tags): stemming and both lexicon lookups, done once per distinct word.
    seen: HashMap<String, (Option<StemId>, Tags)>,
    stems: HashMap<String, StemId>,
    lexicon: HashMap<String, Tags>,
    concepts: HashMap<StemId, Vec<ConceptId>>,
}

/// The word cache stops growing here; an agent fed endless novel words keeps constant memory.
const WORD_CACHE_LIMIT: usize = 4096;

impl Preprocessor {
    /// Builds the lookup tables of `model`.
    pub fn new(model: &Model) -> Self {
        let stems = model
            .stems
            .iter()
            .enumerate()
            .map(|(i, s)| (s.clone(), StemId(i as u32)))
            .collect();
        let lexicon = model
            .lexicon
            .iter()
            .map(|w| (w.word.clone(), w.tags))
            .collect();
        let mut concepts: HashMap<StemId, Vec<ConceptId>> = HashMap::new();
        for (i, c) in model.concepts.iter().enumerate() {
            for &w in &c.words {
                concepts.entry(w).or_default().push(ConceptId(i as u32));
            }
        }
        Preprocessor {
            seen: HashMap::new(),
            stems,
            lexicon,
            concepts,
        }
    }

    fn classify(&self, text: &str) -> (Option<StemId>, Tags) {
        let stemmed = stem(text);
        let tags = self.lexicon.get(text).copied().unwrap_or(0)
            | self.lexicon.get(&stemmed).copied().unwrap_or(0);
        (self.stems.get(&stemmed).copied(), tags)
    }

    /// Tokenizes, stems and tags an utterance into `out` (cleared first).
    pub fn words(&mut self, utterance: &str, out: &mut Vec<Word>) {
        out.clear();
        for text in tokenize(utterance) {
            let (stem, tags) = match self.seen.get(&text) {
                Some(&known) => known,
                None => {
                    let known = self.classify(&text);
                    if self.seen.len() < WORD_CACHE_LIMIT {
                        self.seen.insert(text.clone(), known);
                    }
                    known
                }
            };
            out.push(Word { text, stem, tags });
        }
    }

    /// Concepts a word names.
    pub fn concepts_of(&self, word: &Word) -> &[ConceptId] {
        word.stem
            .and_then(|s| self.concepts.get(&s))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contractions_stay_whole_and_marks_split_off() {
        assert_eq!(
            tokenize("Isn't it a GOOD idea?!"),
            ["isn't", "it", "a", "good", "idea", "?", "!"]
        );
        assert_eq!(tokenize("what’s up"), ["what's", "up"]);
        assert_eq!(tokenize(":) ... hi, there."), [":)", "hi", "there"]);
        assert_eq!(tokenize("  "), Vec::<String>::new());
    }

    #[test]
    fn stems_are_porter2() {
        assert_eq!(stem("begging"), "beg");
        assert_eq!(stem("swords"), "sword");
        assert_eq!(stem("What's"), "what");
        assert_eq!(stem("paying"), "pay");
    }
}
