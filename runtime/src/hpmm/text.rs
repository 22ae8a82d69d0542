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
use std::collections::{HashMap, HashSet};

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
    tokenize_marked(utterance)
        .into_iter()
        .map(|(w, _)| w)
        .collect()
}

/// [`tokenize`], with whether a `,`, `;`, `:` or `.` came right after each word (the dropped
/// punctuation that ends a phrase: "a sundial, friend?").
pub fn tokenize_marked(utterance: &str) -> Vec<(String, bool)> {
    let pause = |c: char| matches!(c, ',' | ';' | ':' | '.');
    let mut out: Vec<(String, bool)> = Vec::new();
    for raw in unjoined(utterance).split_whitespace() {
        let token = raw.replace(['\u{2019}', '\u{2018}'], "'").to_lowercase();
        if !token.chars().any(char::is_alphanumeric) {
            if token.chars().all(|c| c == '?' || c == '!') {
                out.extend(token.chars().map(|c| (String::from(c), false)));
            } else if !token
                .chars()
                .all(|c| matches!(c, '.' | ',' | ';' | ':' | '"' | '-'))
            {
                out.push((token, false));
            } else if token.chars().any(pause)
                && let Some(last) = out.last_mut()
            {
                last.1 = true;
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
        out.push((
            token[start..end].to_string(),
            token[end..].chars().any(pause),
        ));
        out.extend(
            token[end..]
                .chars()
                .filter(|c| *c == '?' || *c == '!')
                .map(|c| (String::from(c), false)),
        );
    }
    out
}

/// Words typed joined by a sign between letters, with no space ("feed+water", "bread&cheese",
/// "room,bath", "ale/cider"), as if spaced: `+` and `&` read as "and", `,` stays a pause, `/`
/// parts them. Numbers keep theirs ("1,000", "24/7").
fn unjoined(utterance: &str) -> std::borrow::Cow<'_, str> {
    // The signs are ASCII, one byte each; the letters beside them may be any.
    let joined = |i: usize, c: char| {
        matches!(c, '+' | '&' | ',' | '/')
            && utterance[..i]
                .chars()
                .next_back()
                .is_some_and(char::is_alphabetic)
            && utterance[i + 1..]
                .chars()
                .next()
                .is_some_and(char::is_alphabetic)
    };
    if !utterance.char_indices().any(|(i, c)| joined(i, c)) {
        return std::borrow::Cow::Borrowed(utterance);
    }
    let mut out = String::with_capacity(utterance.len() + 8);
    for (i, c) in utterance.char_indices() {
        match c {
            '+' | '&' if joined(i, c) => out.push_str(" and "),
            ',' if joined(i, c) => out.push_str(", "),
            '/' if joined(i, c) => out.push(' '),
            _ => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The number a word says, when it says two or more: digits ("3") or an English number word
/// ("three", "dozen"; "couple" and "pair" for "a couple of", "a pair of"). One is no quantity
/// (`None`): "an ale" and "one ale" are the same order. Numbers past 999 are not a count a
/// traveller orders (`None`).
pub fn numeral(word: &str) -> Option<u32> {
    const WORDS: [(&str, u32); 22] = [
        ("two", 2),
        ("three", 3),
        ("four", 4),
        ("five", 5),
        ("six", 6),
        ("seven", 7),
        ("eight", 8),
        ("nine", 9),
        ("ten", 10),
        ("eleven", 11),
        ("twelve", 12),
        ("thirteen", 13),
        ("fourteen", 14),
        ("fifteen", 15),
        ("sixteen", 16),
        ("seventeen", 17),
        ("eighteen", 18),
        ("nineteen", 19),
        ("twenty", 20),
        ("dozen", 12),
        ("couple", 2),
        ("pair", 2),
    ];
    let n = if word.bytes().all(|b| b.is_ascii_digit()) && (1..=3).contains(&word.len()) {
        word.parse().ok()?
    } else {
        WORDS.iter().find(|(w, _)| *w == word)?.1
    };
    (n >= 2).then_some(n)
}

/// Words a number may stand before the thing it counts and still count it: "two big mugs of
/// ale" (the adjective, the measure naming the same thing, "of"), "six bowls of whatever stew"
/// (and a word that leaves the kind open).
pub const QUANTITY_REACH: usize = 4;

/// One preprocessed word.
#[derive(Clone, Debug, PartialEq)]
pub struct Word {
    /// The word in lower case, as tokenised.
    pub text: String,
    /// The stem's id when some pattern or concept mentions it.
    pub stem: Option<StemId>,
    /// Its lexicon categories (of the word itself and of its stem).
    pub tags: Tags,
    /// The word it was read as when it was a misspelling of one the model knows ("helo" is
    /// read as "hello"); `None` when it was read as typed.
    pub read_as: Option<String>,
    /// Whether a `,`, `;`, `:` or `.` came right after it: a phrase ends there.
    pub pause: bool,
}

/// What a word is read as: its stem id, its tags, and the spelling it was read as when that is
/// not the typed one.
type Reading = (Option<StemId>, Tags, Option<String>);

/// Lookup tables built once per agent from the model: stem ids, lexicon tags, concept words.
#[derive(Clone, Debug)]
pub struct Preprocessor {
    /// Word -> reading: stemming, both lexicon lookups and the spelling repair, done once per
    /// distinct word.
    seen: HashMap<String, Reading>,
    stems: HashMap<String, StemId>,
    lexicon: HashMap<String, Tags>,
    concepts: HashMap<StemId, Vec<ConceptId>>,
    /// The stems some pattern tests or some concept is named by. The others the compiler added
    /// only so that a real word is not read as a slip of the keys ("most" is no slip for
    /// "moist"): such a word is read as typed and names nothing, as if it had no stem.
    used: HashSet<StemId>,
}

/// Words shorter than this are read as typed (see [`Preprocessor::classify`]).
pub const SLIP_MIN_LETTERS: usize = 4;

/// Every spelling one slip of the keys from the typed `letters`, in a fixed order: a letter
/// put back where one was left out, two neighbours swapped back, a doubled letter undoubled.
fn slips(letters: &[char]) -> Vec<String> {
    let word = |v: &[char]| v.iter().collect::<String>();
    let mut out = Vec::new();
    for at in 0..=letters.len() {
        for c in 'a'..='z' {
            let mut v = letters.to_vec();
            v.insert(at, c);
            out.push(word(&v));
        }
    }
    for at in 0..letters.len().saturating_sub(1) {
        if letters[at] != letters[at + 1] {
            let mut v = letters.to_vec();
            v.swap(at, at + 1);
            out.push(word(&v));
        } else {
            let mut v = letters.to_vec();
            v.remove(at);
            out.push(word(&v));
        }
    }
    out
}

/// The spellings of a word typed with a letter held down ("hiii", "helloooo"): every run of one
/// letter read twice or once, each run on its own ("helloooo": "helloo", "hello", "heloo",
/// "helo"), keeping more letters first. At most four runs are varied. Empty when no letter
/// repeats.
fn held_down(letters: &[char]) -> Vec<String> {
    let mut runs: Vec<(char, usize)> = Vec::new();
    for &c in letters {
        match runs.last_mut() {
            Some((last, n)) if *last == c => *n += 1,
            _ => runs.push((c, 1)),
        }
    }
    let repeated: Vec<usize> = (0..runs.len()).filter(|&i| runs[i].1 > 1).take(4).collect();
    let typed: String = letters.iter().collect();
    let mut out: Vec<String> = Vec::new();
    for mask in 0..(1u32 << repeated.len()) {
        let spelled: String = (runs.iter().enumerate())
            .flat_map(|(i, &(c, n))| {
                let k = match repeated.iter().position(|&r| r == i) {
                    Some(bit) if mask & (1 << bit) != 0 => 1,
                    Some(_) => n.min(2),
                    None => n,
                };
                std::iter::repeat_n(c, k)
            })
            .collect();
        if spelled != typed && !out.contains(&spelled) {
            out.push(spelled);
        }
    }
    out
}

/// Every spelling that [`slips`] would read as `word`: `word` with a letter left out, two
/// neighbours swapped, a letter doubled; each given to `visit` (a spelling may come twice). The
/// compiler keeps real words among them from being read as `word` ("cart" is no slip for
/// "chart"). With `held_down`, a letter doubled is given at any length too, shorter than
/// [`SLIP_MIN_LETTERS`]: [`held_down`] reads it back ("bee" as "be").
pub fn slip_sources(word: &str, held_down: bool, visit: &mut dyn FnMut(&str)) {
    let letters: Vec<char> = word.chars().collect();
    let mut spelled = String::with_capacity(word.len() + 4);
    let mut emit = |v: &mut dyn Iterator<Item = char>, len: usize, doubled: bool| {
        if (held_down && doubled) || len >= SLIP_MIN_LETTERS {
            spelled.clear();
            spelled.extend(v);
            visit(&spelled);
        }
    };
    let n = letters.len();
    for at in 0..n {
        let (head, tail) = (&letters[..at], &letters[at + 1..]);
        emit(&mut head.iter().chain(tail).copied(), n - 1, false);
        let doubled = &mut letters[..=at].iter().chain(&letters[at..]).copied();
        emit(doubled, n + 1, true);
        if at + 1 < n && letters[at] != letters[at + 1] {
            let swapped = [letters[at + 1], letters[at]];
            let rest = &letters[at + 2..];
            emit(
                &mut head.iter().chain(&swapped).chain(rest).copied(),
                n,
                false,
            );
        }
    }
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
        let mut used: HashSet<StemId> = concepts.keys().copied().collect();
        for pattern in &model.patterns {
            for test in pattern.segments.iter().flatten() {
                if let super::model::WordTest::Is { stems, .. } = test {
                    used.extend(stems.iter().copied());
                }
            }
        }
        Preprocessor {
            seen: HashMap::new(),
            stems,
            lexicon,
            concepts,
            used,
        }
    }

    /// Whether a reading names something a pattern or a concept can test.
    fn names(&self, stem: Option<StemId>, tags: Tags) -> bool {
        tags != 0 || stem.is_some_and(|s| self.used.contains(&s))
    }

    fn lookup(&self, text: &str) -> (Option<StemId>, Tags) {
        let stemmed = stem(text);
        let tags = self.lexicon.get(text).copied().unwrap_or(0)
            | self.lexicon.get(&stemmed).copied().unwrap_or(0);
        (self.stems.get(&stemmed).copied(), tags)
    }

    /// A word the model does not know is read as the one known word it is a slip of the keys
    /// away from, when there is exactly one, or exactly one that names a concept (see below): a
    /// letter left out ("helo", "wether"), two letters swapped ("teh"), a letter doubled
    /// ("helllo"). Players type like that, and without it a line with one typo is a line not
    /// understood. Substitutions are not tried: they turn real words the model does not know
    /// into ones it does ("house" into "horse", "silk" into "milk"). Words shorter than four
    /// letters are too short to tell a slip from another word.
    fn classify(&self, text: &str) -> Reading {
        let (stem_id, tags) = self.lookup(text);
        if self.names(stem_id, tags) {
            return (stem_id, tags, None);
        }
        if stem_id.is_some() {
            // A real word the compiler knows to be one (see `used`).
            return (None, 0, None);
        }
        let letters: Vec<char> = text.chars().collect();
        if !letters.iter().all(|c| c.is_ascii_lowercase()) {
            return (None, 0, None);
        }
        // A letter held down ("hiii", "helloooo"): its run read once, or twice.
        for candidate in held_down(&letters) {
            let (s, t) = self.lookup(&candidate);
            if self.names(s, t) {
                return (s, t, Some(candidate));
            }
        }
        if letters.len() < SLIP_MIN_LETTERS {
            return (None, 0, None);
        }
        // Each distinct reading once: two spellings that read the same are one repair
        // ("helllo": any l removed).
        let mut found: Vec<(String, Option<StemId>, Tags)> = Vec::new();
        for candidate in slips(&letters) {
            let (s, t) = self.lookup(&candidate);
            if self.names(s, t) && !found.iter().any(|(_, fs, ft)| (*fs, *ft) == (s, t)) {
                found.push((candidate, s, t));
            }
        }
        // Two known words one slip away: which one was meant is a guess, unless exactly one
        // of them names a thing ("wether": the weather, not "whether"); players misspell the
        // things they talk about, and a word that only a pattern tests names nothing.
        if found.len() > 1 {
            found.retain(|(_, s, _)| s.is_some_and(|s| self.concepts.contains_key(&s)));
        }
        match found.as_slice() {
            [(word, s, t)] => (*s, *t, Some(word.clone())),
            _ => (None, 0, None),
        }
    }

    /// Tokenizes, stems and tags an utterance into `out` (cleared first).
    pub fn words(&mut self, utterance: &str, out: &mut Vec<Word>) {
        out.clear();
        for (text, pause) in tokenize_marked(utterance) {
            let (stem, tags, read_as) = match self.seen.get(&text) {
                Some(known) => known.clone(),
                None => {
                    let known = self.classify(&text);
                    if self.seen.len() < WORD_CACHE_LIMIT {
                        self.seen.insert(text.clone(), known.clone());
                    }
                    known
                }
            };
            out.push(Word {
                text,
                stem,
                tags,
                read_as,
                pause,
            });
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
    fn words_joined_by_a_sign_are_read_apart() {
        assert_eq!(tokenize("feed+water"), ["feed", "and", "water"]);
        assert_eq!(
            tokenize("bread&cheese pls"),
            ["bread", "and", "cheese", "pls"]
        );
        assert_eq!(tokenize("ale/cider?"), ["ale", "cider", "?"]);
        assert_eq!(tokenize_marked("room,bath")[0], ("room".to_string(), true));
        // Numbers and signs on their own keep theirs.
        assert_eq!(
            tokenize("1,000 open 24/7 :/"),
            ["1,000", "open", "24/7", ":/"]
        );
        assert_eq!(tokenize("rock & roll"), ["rock", "&", "roll"]);
    }

    #[test]
    fn a_comma_or_stop_marks_the_word_before_it() {
        let marked = |line: &str| -> Vec<bool> {
            tokenize_marked(line).into_iter().map(|(_, p)| p).collect()
        };
        assert_eq!(marked("a sundial, friend?"), [false, true, false, false]);
        assert_eq!(marked("ale , then bread. ok"), [true, false, true, false]);
        assert_eq!(marked("is it? yes"), [false, false, false, false]);
    }

    /// A preprocessor that knows the stems of `stems` (all of them tested by some pattern) and
    /// the lexicon words `lexicon` (tag 1).
    fn knowing(stems: &[&str], lexicon: &[&str]) -> Preprocessor {
        Preprocessor {
            seen: HashMap::new(),
            stems: (stems.iter().enumerate())
                .map(|(i, w)| (stem(w), StemId(i as u32)))
                .collect(),
            lexicon: lexicon.iter().map(|w| (w.to_string(), 1)).collect(),
            concepts: HashMap::new(),
            used: (0..stems.len() as u32).map(StemId).collect(),
        }
    }

    /// A real word next to a known one: the compiler gave it a stem no pattern tests, so it is
    /// read as typed and names nothing, and no slip is read as it.
    #[test]
    fn a_real_word_the_compiler_guarded_is_read_as_typed_and_names_nothing() {
        let mut pre = knowing(&["moist", "most"], &["be"]);
        pre.used.remove(&StemId(1));
        assert_eq!(read(&mut pre, "most")[0], (None, 0, None));
        assert_eq!(read(&mut pre, "moist")[0], (Some(StemId(0)), 0, None));
        // A slip lands on a word the model names ("moistt"), never on a guarded one ("mots").
        assert_eq!(
            read(&mut pre, "moistt")[0],
            (Some(StemId(0)), 0, Some("moist".to_string()))
        );
        assert_eq!(read(&mut pre, "mots")[0], (None, 0, None));
        // Without a guard, a letter held down reads "bee" as "be".
        assert_eq!(read(&mut pre, "bee")[0], (None, 1, Some("be".to_string())));
    }

    fn read(pre: &mut Preprocessor, line: &str) -> Vec<(Option<StemId>, Tags, Option<String>)> {
        let mut out = Vec::new();
        pre.words(line, &mut out);
        out.into_iter()
            .map(|w| (w.stem, w.tags, w.read_as))
            .collect()
    }

    #[test]
    fn a_letter_left_out_swapped_or_doubled_is_read_as_the_known_word() {
        let mut pre = knowing(&["weather", "room"], &["hello", "delicious"]);
        let as_ = |s: &str| Some(s.to_string());
        assert_eq!(read(&mut pre, "helo")[0], (None, 1, as_("hello")));
        assert_eq!(read(&mut pre, "helllo")[0], (None, 1, as_("hello")));
        assert_eq!(read(&mut pre, "delicous")[0], (None, 1, as_("delicious")));
        assert_eq!(
            read(&mut pre, "wether")[0],
            (Some(StemId(0)), 0, as_("weather"))
        );
        assert_eq!(
            read(&mut pre, "waether")[0],
            (Some(StemId(0)), 0, as_("weather"))
        );
        // Known words are read as typed, and so is what is no slip from a known word.
        assert_eq!(read(&mut pre, "rooms")[0], (Some(StemId(1)), 0, None));
        assert_eq!(read(&mut pre, "moor")[0], (None, 0, None));
    }

    #[test]
    fn substitutions_short_words_and_ambiguous_slips_are_read_as_typed() {
        let mut pre = knowing(&["horse", "milk", "bread", "break"], &["hello"]);
        // One letter changed would turn a real word into another one.
        assert_eq!(read(&mut pre, "house")[0], (None, 0, None));
        assert_eq!(read(&mut pre, "silk")[0], (None, 0, None));
        // A letter held down, even in a short word.
        let mut hi = knowing(&[], &["hi", "hello"]);
        assert_eq!(read(&mut hi, "hii")[0], (None, 1, Some("hi".to_string())));
        assert_eq!(
            read(&mut hi, "helloooo")[0],
            (None, 1, Some("hello".to_string()))
        );
        // Three letters: "hel" is no more "hello" than anything else.
        assert_eq!(read(&mut pre, "ell")[0], (None, 0, None));
        // "brea" is one letter from "bread" and from "break": a guess, so not made.
        assert_eq!(read(&mut pre, "brea")[0], (None, 0, None));
    }

    #[test]
    fn of_two_known_words_a_slip_away_the_one_that_names_a_thing_is_read() {
        let mut pre = knowing(&["weather", "whether", "bread", "break"], &[]);
        pre.concepts.insert(StemId(0), vec![ConceptId(0)]);
        let as_ = |s: &str| Some(s.to_string());
        // "wether": "weather" names the weather; "whether" only a pattern tests.
        assert_eq!(
            read(&mut pre, "wether")[0],
            (Some(StemId(0)), 0, as_("weather"))
        );
        // Neither names a thing, or both do: still a guess, read as typed.
        assert_eq!(read(&mut pre, "brea")[0], (None, 0, None));
        pre.concepts.insert(StemId(2), vec![ConceptId(1)]);
        pre.concepts.insert(StemId(3), vec![ConceptId(2)]);
        assert_eq!(read(&mut pre, "brea")[0], (None, 0, None));
    }

    proptest::proptest! {
        /// `slip_sources` is the inverse of `slips` (and of `held_down` for a doubled letter):
        /// every source is read back as the word, and none is too short to be read.
        #[test]
        fn every_slip_source_reads_back_as_the_word(word in "[a-z]{2,9}") {
            let mut sources = Vec::new();
            slip_sources(&word, false, &mut |s| sources.push(s.to_string()));
            for source in &sources {
                let letters: Vec<char> = source.chars().collect();
                proptest::prop_assert!(letters.len() >= SLIP_MIN_LETTERS);
                proptest::prop_assert!(
                    slips(&letters).contains(&word),
                    "{source} does not read back as {word}"
                );
            }
            let mut any = Vec::new();
            slip_sources(&word, true, &mut |s| any.push(s.to_string()));
            for source in &any {
                let letters: Vec<char> = source.chars().collect();
                let doubled = held_down(&letters).contains(&word);
                proptest::prop_assert!(
                    doubled || (letters.len() >= SLIP_MIN_LETTERS && slips(&letters).contains(&word)),
                    "{source} does not read back as {word}"
                );
            }
        }
    }

    #[test]
    fn stems_are_porter2() {
        assert_eq!(stem("begging"), "beg");
        assert_eq!(stem("swords"), "sword");
        assert_eq!(stem("What's"), "what");
        assert_eq!(stem("paying"), "pay");
    }

    #[test]
    fn numerals_count_from_two() {
        assert_eq!(numeral("two"), Some(2));
        assert_eq!(numeral("12"), Some(12));
        assert_eq!(numeral("dozen"), Some(12));
        assert_eq!(numeral("couple"), Some(2));
        // One is no quantity; neither is a number past a traveller's order, nor a word.
        assert_eq!(numeral("one"), None);
        assert_eq!(numeral("1"), None);
        assert_eq!(numeral("0"), None);
        assert_eq!(numeral("1000"), None);
        assert_eq!(numeral("2nd"), None);
        assert_eq!(numeral("twofold"), None);
    }
}
