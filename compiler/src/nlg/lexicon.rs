//! What the realiser and the over-generator know of English words beyond their spelling, from
//! a real lexical resource: WordNet 3.0's verb frames (which verbs take an object, which take
//! two) and its noun lemmas (which words ending in -s are plurals), and from the text corpus
//! which words take "to" and which "for" before a destination. The tables are derived once by
//! `lexicon/derive_wordnet.py` and `lexicon/derive_destinations.py` and compiled in; nothing is
//! read at run time.

use std::collections::HashMap;
use std::sync::OnceLock;

/// How a verb takes its nouns, from the frames of its most frequent senses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Valency {
    /// It takes an object in one of its first two senses ("mend *the sword*").
    pub transitive: bool,
    /// It takes two objects in one of its first three senses ("give *you the key*").
    pub ditransitive: bool,
}

struct Tables {
    verbs: HashMap<&'static str, Valency>,
    /// Words that take "to" or "for" before a destination ("go to", "leave for").
    destinations: HashMap<&'static str, &'static str>,
    /// Irregular plurals ("children") and nouns ending in -s that are not plurals ("news").
    plurals: HashMap<&'static str, &'static str>,
    singular_s: std::collections::HashSet<&'static str>,
}

fn tables() -> &'static Tables {
    static TABLES: OnceLock<Tables> = OnceLock::new();
    TABLES.get_or_init(|| {
        let verbs = include_str!("lexicon/verbs.tsv")
            .lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(lemma, flags)| {
                (
                    lemma,
                    Valency {
                        transitive: flags.contains('T'),
                        ditransitive: flags.contains('D'),
                    },
                )
            })
            .collect();
        let mut plurals = HashMap::new();
        let mut singular_s = std::collections::HashSet::new();
        for (form, kind) in include_str!("lexicon/nouns.tsv")
            .lines()
            .filter_map(|l| l.split_once('\t'))
        {
            match kind.strip_prefix("p ") {
                Some(base) => {
                    plurals.insert(form, base);
                }
                None => {
                    singular_s.insert(form);
                }
            }
        }
        let destinations = include_str!("lexicon/destinations.tsv")
            .lines()
            .filter_map(|l| {
                let mut f = l.split('\t');
                let (word, to, for_) = (f.next()?, f.next()?, f.next()?);
                let (to, for_): (u32, u32) = (to.parse().ok()?, for_.parse().ok()?);
                Some((word, if to > for_ { "to" } else { "for" }))
            })
            .collect();
        Tables {
            verbs,
            destinations,
            plurals,
            singular_s,
        }
    })
}

/// The valency of a verb (`Valency::default()`, no object, for a verb WordNet does not know).
pub fn valency(lemma: &str) -> Valency {
    tables().verbs.get(lemma).copied().unwrap_or_default()
}

/// The preposition `word` (a verb lemma or a noun) takes before a destination, when the
/// corpus shows a clear preference: "go to London", "leave for London" (`lexicon/derive_destinations.py`).
pub fn destination_preposition(word: &str) -> Option<&'static str> {
    tables().destinations.get(word).copied()
}

/// Whether WordNet knows the verb at all.
pub fn is_known_verb(lemma: &str) -> bool {
    tables().verbs.contains_key(lemma)
}

/// Whether a common noun (its last word: "new shoes") is a plural: an irregular plural, or a
/// word ending in -s that is not a singular noun of its own ("news", "bus", "glass").
pub fn is_plural(noun: &str) -> bool {
    let word = noun.rsplit(' ').next().unwrap_or(noun).to_lowercase();
    let t = tables();
    if t.plurals.contains_key(word.as_str()) {
        return true;
    }
    word.len() > 2
        && word.ends_with('s')
        && !["ss", "us", "is"].iter().any(|e| word.ends_with(e))
        && !t.singular_s.contains(word.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verbs_take_what_wordnet_says() {
        assert!(valency("mend").transitive);
        assert!(valency("give").ditransitive && valency("tell").ditransitive);
        assert!(!valency("work").transitive && !valency("go").transitive);
        assert_eq!(valency("glorble"), Valency::default());
    }

    #[test]
    fn destinations_take_the_corpus_preposition() {
        assert_eq!(destination_preposition("go"), Some("to"));
        assert_eq!(destination_preposition("leave"), Some("for"));
        assert_eq!(destination_preposition("glorble"), None);
    }

    #[test]
    fn plurals() {
        for p in [
            "horses",
            "shoes",
            "children",
            "new shoes",
            "ferries",
            "weapons",
        ] {
            assert!(is_plural(p), "{p}");
        }
        for s in ["horse", "news", "bus", "glass", "mathematics", "room"] {
            assert!(!is_plural(s), "{s}");
        }
    }
}
