use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

fn build_text(text: &str, memory: usize, dict: Option<&[&str]>) -> (NgramDb, BuildReport, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Builder::new(BuildOptions {
        memory,
        temp_dir: Some(dir.path().to_path_buf()),
        dictionary: dict.map(|d| d.iter().map(|w| w.to_string()).collect()),
    });
    tokenise::sentences(text, |s| b.add_sentence(s).unwrap());
    let out = dir.path().join("t.ngr");
    let report = b.finish(&out).unwrap();
    let bytes = std::fs::read(&out).unwrap();
    (NgramDb::open(&out).unwrap(), report, bytes)
}

fn ids(db: &NgramDb, words: &str) -> Vec<u32> {
    words.split(' ').map(|w| db.word_id(w).unwrap()).collect()
}

/// Every n-gram of a text, counted naively.
fn naive(text: &str) -> BTreeMap<Vec<String>, u64> {
    let mut m = BTreeMap::new();
    tokenise::sentences(text, |s| {
        let mut t = vec!["<s>".to_string()];
        t.extend(s.iter().cloned());
        t.push("</s>".into());
        for n in 1..=3 {
            for w in t.windows(n) {
                *m.entry(w.to_vec()).or_insert(0) += 1;
            }
        }
    });
    m
}

#[test]
fn counts_match_a_naive_count() {
    let text = "The cat sat on the mat. The cat ran! Did the cat sit on the mat?";
    let (db, report, _) = build_text(text, 1 << 20, None);
    for (gram, c) in naive(text) {
        let words: Vec<&str> = gram.iter().map(String::as_str).collect();
        assert_eq!(db.count(&ids(&db, &words.join(" "))), c, "{gram:?}");
    }
    assert_eq!(db.count(&ids(&db, "mat the cat")), 0);
    assert_eq!(report.sentences, 3);
    assert_eq!(report.tokens, 16);
    assert_eq!(db.word_id("dog"), None);
    let s = db.stats();
    assert_eq!(s.trigrams, report.trigrams);
    assert_eq!(db.total(), 16 + 6);
}

#[test]
fn header_reserved_bytes_not_zero_are_refused_naming_the_offset() {
    let (_, _, bytes) = build_text("the cat sat on the mat. the dog ran.", 1 << 20, None);
    for offset in [52, 63] {
        let mut b = bytes.clone();
        b[offset] = 7;
        let e = NgramDb::from_bytes(b, "x.ngr").err().unwrap();
        assert!(
            e.to_string().contains(&format!(
                "header byte {offset} is reserved and must be zero, but is 0x07"
            )),
            "{e}"
        );
    }
}

proptest! {
    /// Spilling to disk changes nothing: the database is byte-for-byte the in-memory one.
    #[test]
    fn external_sort_gives_the_same_file(words in proptest::collection::vec(0usize..12, 1..300)) {
        let vocab = ["a", "b", "c", "d", "e", "f", "g", "h", "i.", "j!", "k", "l"];
        let text: Vec<&str> = words.iter().map(|&i| vocab[i]).collect();
        let text = text.join(" ");
        let (_, r1, big) = build_text(&text, 1 << 24, None);
        let (_, r2, small) = build_text(&text, 64 * 16, None);
        prop_assert_eq!(r1.runs, 0);
        prop_assert!(r2.runs > 0 || r2.trigrams < 16);
        prop_assert_eq!(big, small);
    }

    /// Every n-gram the naive count sees is found with its count; lookups of anything else
    /// are zero.
    #[test]
    fn lookups_agree_with_the_naive_count(words in proptest::collection::vec(0usize..8, 1..200)) {
        let vocab = ["a", "b", "c", "d.", "e", "f", "g?", "h"];
        let text: Vec<&str> = words.iter().map(|&i| vocab[i]).collect();
        let text = text.join(" ");
        let (db, _, _) = build_text(&text, 64 * 16, None);
        let counts = naive(&text);
        for (gram, c) in &counts {
            let words: Vec<&str> = gram.iter().map(String::as_str).collect();
            prop_assert_eq!(db.count(&ids(&db, &words.join(" "))), *c);
        }
        let mut seen = 0;
        db.for_each(3, |_, _| seen += 1);
        prop_assert_eq!(seen, counts.keys().filter(|k| k.len() == 3).count());
    }
}

#[test]
fn dictionary_drops_ngrams_with_unknown_words() {
    let (db, report, _) = build_text(
        "the cat sat. the dog sat.",
        1 << 20,
        Some(&["the", "cat", "sat"]),
    );
    assert_eq!(db.word_id("dog"), None);
    assert_eq!(report.out_of_dictionary, 1);
    assert_eq!(db.count(&ids(&db, "the sat")), 0);
    assert_eq!(db.count(&ids(&db, "<s> the")), 2);
    assert_eq!(db.count(&ids(&db, "the cat sat")), 1);
}

#[test]
fn count_files_merge_case_variants_and_fill_marginals() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.tsv");
    std::fs::write(
        &path,
        "are booked on\t9822\nAre booked on\t1\nare booked\t113311\nbooked on a\t17476\nbooked on\t124857\non a flight\t113187\non a\t175586178\nare booked a\t1222\nbooked a flight\t8829\nbooked a\t251133\n<S> you are\t5\n",
    )
    .unwrap();
    let db = open_source(&path).unwrap();
    assert_eq!(db.count(&ids(&db, "are booked on")), 9823);
    // "<s> you" was never listed: its count is the sum of its extensions.
    assert_eq!(db.count(&ids(&db, "<s> you")), 5);
    // Fig. 3.1 with the erratum: the ungrammatical product is 3.79e-4, not 3.8e-5.
    let r = |t: &str, b: &str| db.count(&ids(&db, t)) as f64 / db.count(&ids(&db, b)) as f64;
    let good =
        r("are booked on", "are booked") * r("booked on a", "booked on") * r("on a flight", "on a");
    let bad = r("are booked a", "are booked") * r("booked a flight", "booked a");
    assert!((good - 7.8e-6).abs() < 0.05e-6, "{good}");
    assert!((bad - 3.79e-4).abs() < 0.01e-4, "{bad}");
}

#[test]
fn bad_count_lines_are_reported_with_their_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.tsv");
    std::fs::write(&path, "a b\t3\na b c d\t2\n").unwrap();
    let e = open_source(&path).err().unwrap();
    assert!(e.contains(":2:") && e.contains("4 words"), "{e}");
    std::fs::write(&path, "a b\tmany\n").unwrap();
    assert!(open_source(&path).err().unwrap().contains("not a count"));
}

#[test]
fn corrupt_files_are_refused_not_panicked_on() {
    let (_, _, bytes) = build_text("the cat sat on the mat. the dog ran.", 1 << 20, None);
    assert!(NgramDb::from_bytes(bytes.clone(), "x").is_ok());
    // Truncation at every length.
    for len in 0..bytes.len() {
        assert!(
            NgramDb::from_bytes(bytes[..len].to_vec(), "x").is_err(),
            "len {len}"
        );
    }
    // Every single flipped bit in the first 400 bytes.
    for i in 0..bytes.len().min(400) {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            if let Ok(db) = NgramDb::from_bytes(b, "x") {
                let _ = db.count(&[0, 1, 2]);
            }
        }
    }
    let e = NgramDb::from_bytes(
        b"hello world, this is not an n-gram file at all....".repeat(3),
        "x.ngr",
    )
    .err()
    .unwrap();
    assert!(
        e.to_string().contains("not an Ensemble n-gram database"),
        "{e}"
    );
}

proptest! {
    #[test]
    fn random_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..600), keep_magic in any::<bool>()) {
        if keep_magic && bytes.len() >= 8 {
            bytes[..8].copy_from_slice(&format::MAGIC);
        }
        if let Ok(db) = NgramDb::from_bytes(bytes, "x") {
            let _ = db.count(&[0, 0, 0]);
            let _ = db.word_id("a");
        }
    }
}

#[test]
fn scores_prefer_seen_word_orders() {
    let text = "I would like to buy a ticket. I would like to buy a ticket to Boston. \
                I would like a cup of tea. You are booked on a flight to Boston.";
    let (db, _, _) = build_text(text, 1 << 20, None);
    let good = score(
        &db,
        "I would like to buy a ticket to Boston.",
        Method::StupidBackoff,
    );
    let bad = score(
        &db,
        "Ticket a buy to like would I Boston.",
        Method::StupidBackoff,
    );
    assert!(good.value > bad.value, "{good:?} {bad:?}");
    assert!(good.oov.is_empty());
    let eq = score(&db, "I would like to buy a ticket to Boston.", Method::Eq31);
    assert!(eq.value.is_finite());
    assert!(
        score(&db, "Ticket a buy.", Method::Eq31)
            .value
            .is_infinite()
    );
    let oov = score(&db, "I would like a zeppelin.", Method::StupidBackoff);
    assert_eq!(oov.oov, vec!["zeppelin".to_string()]);
    assert!(oov.value.is_finite());
}

/// Modified Kneser-Ney is a distribution: for any context (seen or not), the probabilities of
/// every word of the vocabulary plus the unknown word sum to 1, at each order.
fn kneser_ney_sums_to_one(text: &str) {
    let (db, _, _) = build_text(text, 1 << 20, None);
    let kn = db.kneser_ney();
    let vocabulary: Vec<Option<u32>> = (0..db.vocabulary() as u32)
        .map(Some)
        .chain([None])
        .collect();
    let sum = |p: &dyn Fn(Option<u32>) -> f64| vocabulary.iter().map(|&w| p(w)).sum::<f64>();
    let close = |x: f64, what: &str| assert!((x - 1.0).abs() < 1e-9, "{what}: {x}");
    close(sum(&|w| kn.unigram(w)), "P1");
    for v in vocabulary.iter().copied() {
        close(sum(&|w| kn.bigram(v, w)), "P2");
        for u in vocabulary.iter().copied().take(6) {
            close(sum(&|w| kn.trigram(&db, u, v, w)), "P3");
        }
    }
}

#[test]
fn kneser_ney_is_a_distribution_on_a_fixed_text() {
    kneser_ney_sums_to_one(
        "I would like to buy a ticket to Boston. I would like to buy a ticket. \
         You are booked on a flight to Boston. The flight to Boston was changed. \
         I would like to leave at seven. The gate was changed. You need to go to the gate.",
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn kneser_ney_is_a_distribution(words in prop::collection::vec(0usize..6, 1..60)) {
        // Sentences over a six-word vocabulary, split at every fifth word.
        let lexicon = ["a", "b", "c", "d", "e", "f"];
        let text: Vec<String> = words
            .chunks(5)
            .map(|s| s.iter().map(|&i| lexicon[i]).collect::<Vec<_>>().join(" ") + ".")
            .collect();
        kneser_ney_sums_to_one(&text.join(" "));
    }
}

/// Monotone: seeing a trigram more often never makes it less likely in that context.
#[test]
fn kneser_ney_prefers_what_was_seen_more() {
    let base = "to go to the gate. you go to the gate. ";
    let (db1, _, _) = build_text(&format!("{base}we go to a gate."), 1 << 20, None);
    let (db2, _, _) = build_text(&format!("{base}{base}we go to a gate."), 1 << 20, None);
    let p = |db: &NgramDb| {
        let i = ids(db, "go to the");
        db.kneser_ney()
            .trigram(db, Some(i[0]), Some(i[1]), Some(i[2]))
    };
    let q = |db: &NgramDb| {
        let i = ids(db, "go to a");
        db.kneser_ney()
            .trigram(db, Some(i[0]), Some(i[1]), Some(i[2]))
    };
    assert!(p(&db1) > q(&db1));
    assert!(p(&db2) >= p(&db1), "{} < {}", p(&db2), p(&db1));
}
