//! English morphology for the realiser: verb inflection (irregular past tense and participles,
//! third-person `-s`, `-ing`), pronoun case and person, and the `a`/`an` choice.
//!
//! The word lists are small on purpose: they cover the verbs designers write in sentence states
//! (Hewlett's Fig. 3.2 and the scene-2 dialogue) and the common irregular verbs of dialogue.
//! Anything else is inflected by the regular rules.

/// Grammatical person of a noun phrase.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Person {
    First,
    Second,
    Third,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Number {
    Singular,
    Plural,
}

/// The case a pronoun takes from its relation in the clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Case {
    /// Subject (relation I): "I".
    Subject,
    /// Object of a verb or preposition (relation II, or under a preposition): "me".
    Object,
    /// Possessive determiner: "my".
    Possessive,
}

/// `(base, past, past participle)` of irregular verbs: the English irregular verbs in common use
/// (a closed class; where British and American English differ, the form both accept).
const IRREGULAR: &[(&str, &str, &str)] = &[
    ("arise", "arose", "arisen"),
    ("awake", "awoke", "awoken"),
    ("be", "was", "been"),
    ("bear", "bore", "borne"),
    ("beat", "beat", "beaten"),
    ("become", "became", "become"),
    ("begin", "began", "begun"),
    ("bend", "bent", "bent"),
    ("bet", "bet", "bet"),
    ("bind", "bound", "bound"),
    ("bite", "bit", "bitten"),
    ("bleed", "bled", "bled"),
    ("blow", "blew", "blown"),
    ("break", "broke", "broken"),
    ("breed", "bred", "bred"),
    ("bring", "brought", "brought"),
    ("broadcast", "broadcast", "broadcast"),
    ("build", "built", "built"),
    ("burn", "burned", "burned"),
    ("burst", "burst", "burst"),
    ("buy", "bought", "bought"),
    ("cast", "cast", "cast"),
    ("catch", "caught", "caught"),
    ("choose", "chose", "chosen"),
    ("cling", "clung", "clung"),
    ("come", "came", "come"),
    ("cost", "cost", "cost"),
    ("creep", "crept", "crept"),
    ("cut", "cut", "cut"),
    ("deal", "dealt", "dealt"),
    ("dig", "dug", "dug"),
    ("do", "did", "done"),
    ("draw", "drew", "drawn"),
    ("dream", "dreamed", "dreamed"),
    ("drink", "drank", "drunk"),
    ("drive", "drove", "driven"),
    ("dwell", "dwelt", "dwelt"),
    ("eat", "ate", "eaten"),
    ("fall", "fell", "fallen"),
    ("feed", "fed", "fed"),
    ("feel", "felt", "felt"),
    ("fight", "fought", "fought"),
    ("find", "found", "found"),
    ("flee", "fled", "fled"),
    ("fling", "flung", "flung"),
    ("fly", "flew", "flown"),
    ("forbid", "forbade", "forbidden"),
    ("forecast", "forecast", "forecast"),
    ("forget", "forgot", "forgotten"),
    ("forgive", "forgave", "forgiven"),
    ("freeze", "froze", "frozen"),
    ("get", "got", "got"),
    ("give", "gave", "given"),
    ("go", "went", "gone"),
    ("grind", "ground", "ground"),
    ("grow", "grew", "grown"),
    ("hang", "hung", "hung"),
    ("have", "had", "had"),
    ("hear", "heard", "heard"),
    ("hide", "hid", "hidden"),
    ("hit", "hit", "hit"),
    ("hold", "held", "held"),
    ("hurt", "hurt", "hurt"),
    ("keep", "kept", "kept"),
    ("kneel", "knelt", "knelt"),
    ("know", "knew", "known"),
    ("lay", "laid", "laid"),
    ("lead", "led", "led"),
    ("lean", "leaned", "leaned"),
    ("leap", "leapt", "leapt"),
    ("learn", "learned", "learned"),
    ("leave", "left", "left"),
    ("lend", "lent", "lent"),
    ("let", "let", "let"),
    ("light", "lit", "lit"),
    ("lose", "lost", "lost"),
    ("make", "made", "made"),
    ("mean", "meant", "meant"),
    ("meet", "met", "met"),
    ("mislead", "misled", "misled"),
    ("mistake", "mistook", "mistaken"),
    ("overcome", "overcame", "overcome"),
    ("overtake", "overtook", "overtaken"),
    ("pay", "paid", "paid"),
    ("prove", "proved", "proven"),
    ("put", "put", "put"),
    ("quit", "quit", "quit"),
    ("read", "read", "read"),
    ("rid", "rid", "rid"),
    ("ride", "rode", "ridden"),
    ("ring", "rang", "rung"),
    ("rise", "rose", "risen"),
    ("run", "ran", "run"),
    ("say", "said", "said"),
    ("see", "saw", "seen"),
    ("seek", "sought", "sought"),
    ("sell", "sold", "sold"),
    ("send", "sent", "sent"),
    ("set", "set", "set"),
    ("sew", "sewed", "sewn"),
    ("shake", "shook", "shaken"),
    ("shed", "shed", "shed"),
    ("shine", "shone", "shone"),
    ("shoot", "shot", "shot"),
    ("show", "showed", "shown"),
    ("shrink", "shrank", "shrunk"),
    ("shut", "shut", "shut"),
    ("sing", "sang", "sung"),
    ("sink", "sank", "sunk"),
    ("sit", "sat", "sat"),
    ("slay", "slew", "slain"),
    ("sleep", "slept", "slept"),
    ("slide", "slid", "slid"),
    ("sling", "slung", "slung"),
    ("slit", "slit", "slit"),
    ("speak", "spoke", "spoken"),
    ("speed", "sped", "sped"),
    ("spend", "spent", "spent"),
    ("spill", "spilled", "spilled"),
    ("spin", "spun", "spun"),
    ("spit", "spat", "spat"),
    ("split", "split", "split"),
    ("spread", "spread", "spread"),
    ("spring", "sprang", "sprung"),
    ("stand", "stood", "stood"),
    ("steal", "stole", "stolen"),
    ("stick", "stuck", "stuck"),
    ("sting", "stung", "stung"),
    ("stink", "stank", "stunk"),
    ("stride", "strode", "stridden"),
    ("strike", "struck", "struck"),
    ("string", "strung", "strung"),
    ("strive", "strove", "striven"),
    ("swear", "swore", "sworn"),
    ("sweep", "swept", "swept"),
    ("swell", "swelled", "swollen"),
    ("swim", "swam", "swum"),
    ("swing", "swung", "swung"),
    ("take", "took", "taken"),
    ("teach", "taught", "taught"),
    ("tear", "tore", "torn"),
    ("tell", "told", "told"),
    ("think", "thought", "thought"),
    ("throw", "threw", "thrown"),
    ("thrust", "thrust", "thrust"),
    ("tread", "trod", "trodden"),
    ("understand", "understood", "understood"),
    ("undertake", "undertook", "undertaken"),
    ("undo", "undid", "undone"),
    ("upset", "upset", "upset"),
    ("wake", "woke", "woken"),
    ("wear", "wore", "worn"),
    ("weave", "wove", "woven"),
    ("weep", "wept", "wept"),
    ("wet", "wet", "wet"),
    ("win", "won", "won"),
    ("wind", "wound", "wound"),
    ("withdraw", "withdrew", "withdrawn"),
    ("withhold", "withheld", "withheld"),
    ("withstand", "withstood", "withstood"),
    ("wring", "wrung", "wrung"),
    ("write", "wrote", "written"),
];

/// Indefinite pronouns: whole noun phrases, third person singular, no article.
pub const INDEFINITE_PRONOUNS: &[&str] = &[
    "something",
    "anything",
    "nothing",
    "everything",
    "someone",
    "anyone",
    "no-one",
    "everyone",
    "somebody",
    "anybody",
    "nobody",
    "everybody",
    "somewhere",
    "anywhere",
    "nowhere",
    "everywhere",
];

/// Modal auxiliaries: they take a bare infinitive and have no `-s` form.
pub const MODALS: &[&str] = &[
    "would", "can", "will", "could", "should", "may", "might", "must", "shall",
];

fn irregular(lemma: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
    IRREGULAR.iter().find(|(b, _, _)| *b == lemma)
}

fn is_vowel(c: char) -> bool {
    matches!(c, 'a' | 'e' | 'i' | 'o' | 'u')
}

/// Whether a regular verb doubles its final consonant before `-ed`/`-ing` ("stop" -> "stopped"):
/// one syllable ending consonant-vowel-consonant, the last not w, x or y.
fn doubles_final(lemma: &str) -> bool {
    let c: Vec<char> = lemma.chars().collect();
    if c.len() < 3 {
        return false;
    }
    let (a, b, z) = (c[c.len() - 3], c[c.len() - 2], c[c.len() - 1]);
    let syllables = c
        .windows(2)
        .filter(|w| is_vowel(w[1]) && !is_vowel(w[0]))
        .count()
        + usize::from(is_vowel(c[0]));
    syllables == 1 && !is_vowel(a) && is_vowel(b) && !is_vowel(z) && !matches!(z, 'w' | 'x' | 'y')
}

fn regular_ed(lemma: &str) -> String {
    if lemma.ends_with('e') {
        format!("{lemma}d")
    } else if let Some(stem) = lemma.strip_suffix('y')
        && stem.chars().last().is_some_and(|c| !is_vowel(c))
    {
        format!("{stem}ied")
    } else if doubles_final(lemma) {
        let last = lemma.chars().last().unwrap_or_default();
        format!("{lemma}{last}ed")
    } else {
        format!("{lemma}ed")
    }
}

/// Simple past of `lemma` for a subject of the given person and number ("was"/"were" for be).
pub fn past(lemma: &str, person: Person, number: Number) -> String {
    if lemma == "be" {
        return match (person, number) {
            (Person::First | Person::Third, Number::Singular) => "was".into(),
            _ => "were".into(),
        };
    }
    match irregular(lemma) {
        Some((_, p, _)) => (*p).to_string(),
        None => regular_ed(lemma),
    }
}

/// Past participle ("booked", "bought", "been").
pub fn participle(lemma: &str) -> String {
    match irregular(lemma) {
        Some((_, _, pp)) => (*pp).to_string(),
        None => regular_ed(lemma),
    }
}

/// Present tense, agreeing with the subject ("am"/"are"/"is", "likes", "goes", "has").
pub fn present(lemma: &str, person: Person, number: Number) -> String {
    match (lemma, person, number) {
        ("be", Person::First, Number::Singular) => "am".into(),
        ("be", Person::Third, Number::Singular) => "is".into(),
        ("be", _, _) => "are".into(),
        (_, Person::Third, Number::Singular) => third_singular(lemma),
        _ => lemma.to_string(),
    }
}

fn third_singular(lemma: &str) -> String {
    if lemma == "have" {
        return "has".into();
    }
    if MODALS.contains(&lemma) {
        return lemma.into();
    }
    if ["s", "x", "z", "ch", "sh", "o"]
        .iter()
        .any(|e| lemma.ends_with(e))
    {
        format!("{lemma}es")
    } else if let Some(stem) = lemma.strip_suffix('y')
        && stem.chars().last().is_some_and(|c| !is_vowel(c))
    {
        format!("{stem}ies")
    } else {
        format!("{lemma}s")
    }
}

/// The `-ing` form ("leaving", "being", "stopping", "lying").
pub fn gerund(lemma: &str) -> String {
    if let Some(stem) = lemma.strip_suffix("ie") {
        return format!("{stem}ying");
    }
    if lemma.len() > 2
        && lemma.ends_with('e')
        && !lemma.ends_with("ee")
        && !lemma.ends_with("ye")
        && !lemma.ends_with("oe")
    {
        return format!("{}ing", &lemma[..lemma.len() - 1]);
    }
    if doubles_final(lemma) {
        let last = lemma.chars().last().unwrap_or_default();
        return format!("{lemma}{last}ing");
    }
    format!("{lemma}ing")
}

/// Person and number of a personal pronoun written in any case ("I", "me", "my", "you", ...);
/// `None` when the word is not a personal pronoun.
pub fn pronoun_features(word: &str) -> Option<(Person, Number)> {
    Some(match word.to_lowercase().as_str() {
        "i" | "me" | "my" => (Person::First, Number::Singular),
        "we" | "us" | "our" => (Person::First, Number::Plural),
        "you" | "your" => (Person::Second, Number::Singular),
        "he" | "him" | "his" | "she" | "her" | "it" | "its" => (Person::Third, Number::Singular),
        "they" | "them" | "their" => (Person::Third, Number::Plural),
        _ => return None,
    })
}

/// Gender of a third-person singular pronoun, to keep "she" a "she".
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gender {
    Masculine,
    Feminine,
    Neuter,
}

pub fn pronoun_gender(word: &str) -> Gender {
    match word.to_lowercase().as_str() {
        "he" | "him" | "his" => Gender::Masculine,
        "she" | "her" => Gender::Feminine,
        _ => Gender::Neuter,
    }
}

/// The form of a personal pronoun: RealPro's `pro="pro"` node with `person` and the case its
/// relation gives it (`you` in the first person is "I", Fig. 3.3).
pub fn pronoun(person: Person, number: Number, gender: Gender, case: Case) -> &'static str {
    use Case::*;
    use Number::*;
    use Person::*;
    match (person, number, case) {
        (First, Singular, Subject) => "I",
        (First, Singular, Object) => "me",
        (First, Singular, Possessive) => "my",
        (First, Plural, Subject) => "we",
        (First, Plural, Object) => "us",
        (First, Plural, Possessive) => "our",
        (Second, _, Subject | Object) => "you",
        (Second, _, Possessive) => "your",
        (Third, Plural, Subject) => "they",
        (Third, Plural, Object) => "them",
        (Third, Plural, Possessive) => "their",
        (Third, Singular, c) => match (gender, c) {
            (Gender::Masculine, Subject) => "he",
            (Gender::Masculine, Object | Possessive) => {
                if c == Object {
                    "him"
                } else {
                    "his"
                }
            }
            (Gender::Feminine, Subject) => "she",
            (Gender::Feminine, _) => "her",
            (Gender::Neuter, Possessive) => "its",
            (Gender::Neuter, _) => "it",
        },
    }
}

/// "a" or "an" before `next`, by its first sound (letters, with the usual exceptions).
pub fn indefinite_article(next: &str) -> &'static str {
    let w = next.to_lowercase();
    let silent_h = ["hour", "honest", "honour", "honor", "heir"];
    let yoo = ["uni", "use", "usu", "eu", "one", "once", "ure"];
    if silent_h.iter().any(|p| w.starts_with(p)) {
        return "an";
    }
    if yoo.iter().any(|p| w.starts_with(p)) {
        return "a";
    }
    match w.chars().next() {
        Some(c) if is_vowel(c) => "an",
        _ => "a",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Number::*;
    use Person::*;

    #[test]
    fn irregular_and_regular_past() {
        assert_eq!(past("buy", First, Singular), "bought");
        assert_eq!(past("leave", First, Singular), "left");
        assert_eq!(past("be", Second, Singular), "were");
        assert_eq!(past("be", Third, Singular), "was");
        assert_eq!(past("book", First, Singular), "booked");
        assert_eq!(past("like", First, Singular), "liked");
        assert_eq!(past("stop", First, Singular), "stopped");
        assert_eq!(past("travel", First, Singular), "traveled");
        assert_eq!(past("happen", Third, Singular), "happened");
        assert_eq!(past("carry", Third, Singular), "carried");
        assert_eq!(participle("book"), "booked");
        assert_eq!(participle("fly"), "flown");
        assert_eq!(participle("change"), "changed");
    }

    #[test]
    fn agreement_in_the_present() {
        assert_eq!(present("be", First, Singular), "am");
        assert_eq!(present("be", Second, Singular), "are");
        assert_eq!(present("be", Third, Singular), "is");
        assert_eq!(present("like", Third, Singular), "likes");
        assert_eq!(present("go", Third, Singular), "goes");
        assert_eq!(present("have", Third, Singular), "has");
        assert_eq!(present("fly", Third, Singular), "flies");
        assert_eq!(present("like", First, Plural), "like");
    }

    #[test]
    fn gerunds() {
        assert_eq!(gerund("leave"), "leaving");
        assert_eq!(gerund("be"), "being");
        assert_eq!(gerund("travel"), "traveling");
        assert_eq!(gerund("stop"), "stopping");
        assert_eq!(gerund("lie"), "lying");
        assert_eq!(gerund("buy"), "buying");
        assert_eq!(gerund("see"), "seeing");
    }

    #[test]
    fn pronouns_take_person_and_case() {
        // Fig. 3.3: lexeme "you" with person="1st" as the subject is "I".
        let (_, n) = pronoun_features("you").unwrap();
        assert_eq!(pronoun(First, n, Gender::Neuter, Case::Subject), "I");
        assert_eq!(pronoun(First, Singular, Gender::Neuter, Case::Object), "me");
        assert_eq!(
            pronoun(Second, Singular, Gender::Neuter, Case::Possessive),
            "your"
        );
        assert_eq!(
            pronoun(Third, Singular, Gender::Feminine, Case::Object),
            "her"
        );
        assert_eq!(
            pronoun(Third, Singular, Gender::Masculine, Case::Object),
            "him"
        );
        assert_eq!(pronoun_features("Bob"), None);
    }

    #[test]
    fn articles() {
        assert_eq!(indefinite_article("ticket"), "a");
        assert_eq!(indefinite_article("airline"), "an");
        assert_eq!(indefinite_article("hour"), "an");
        assert_eq!(indefinite_article("university"), "a");
    }
}
