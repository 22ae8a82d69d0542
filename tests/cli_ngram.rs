//! `ensemble ngram`: building from Gutenberg text and from Web1T-style count files, refusing
//! corrupt databases, and ranking on the sample's counts (Hewlett's Figs. 3.1, 3.4-3.5, 5.6).

use ensemble_tests::{ensemble, repo_path};
use std::path::PathBuf;

/// A book of the Gutenberg corpus (30 MB, not in the repository) when it is at hand: in
/// `$ENSEMBLE_DATA/corpus`, else `shared/data/corpus` beside the repository. The tests that use
/// it fall back to a small stand-in without it.
fn corpus_file(name: &str) -> Option<PathBuf> {
    let data = std::env::var_os("ENSEMBLE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| ensemble_tests::root().join("../shared/data"));
    Some(data.join("corpus").join(name)).filter(|p| p.exists())
}

#[test]
fn build_from_gutenberg_text_strips_headers_and_reports_progress() {
    let dir = tempfile::tempdir().unwrap();
    // Two real books when the shared corpus is present, a small stand-in otherwise.
    let inputs: Vec<String> = match (
        corpus_file("pg00011_carroll_alice-s-adventures-in-wonderland.txt"),
        corpus_file("pg00046_dickens_a-christmas-carol.txt"),
    ) {
        (Some(a), Some(b)) => vec![a.display().to_string(), b.display().to_string()],
        _ => {
            let f = dir.path().join("book.txt");
            std::fs::write(&f, "\u{feff}licence\r\n*** START OF THE PROJECT GUTENBERG EBOOK X ***\r\nAlice said, \"I would like to go.\"\r\n*** END OF THE PROJECT GUTENBERG EBOOK X ***\r\nProject Gutenberg licence text\r\n").unwrap();
            vec![f.display().to_string()]
        }
    };
    let out = dir.path().join("books.ngr");
    let mut args = vec!["ngram", "build"];
    args.extend(inputs.iter().map(String::as_str));
    args.extend(["-o", out.to_str().unwrap(), "--memory-mb", "1"]);
    let r = ensemble(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("100%"), "progress is shown: {}", r.stderr);
    assert!(r.stderr.contains("trigrams"), "{}", r.stderr);
    let info = ensemble(&["ngram", "info", out.to_str().unwrap()]);
    assert_eq!(info.code, 0, "{}", info.stderr);
    assert!(info.stdout.contains("bytes per trigram"), "{}", info.stdout);
    // The header and licence outside the markers are not counted: each book's header and
    // footer say "Gutenberg" dozens of times, its text at most once or twice.
    let dump = ensemble(&["ngram", "dump", out.to_str().unwrap(), "--order", "1"]);
    let gutenberg: u64 = dump
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("gutenberg\t"))
        .map_or(0, |c| c.parse().unwrap());
    assert!(
        gutenberg <= 3,
        "header/footer leaked: gutenberg x{gutenberg}"
    );
    assert!(dump.stdout.lines().any(|l| l.starts_with("alice\t")));
}

#[test]
fn build_from_count_files_merges_duplicates_and_honours_the_dictionary() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("3gm-0001");
    let b = dir.path().join("3gm-0002");
    std::fs::write(
        &a,
        "are booked on\t9822\nAre Booked On\t8\nbooked on a\t17476\nteh booked on\t99\n",
    )
    .unwrap();
    std::fs::write(&b, "are booked on\t170\nare booked\t113311\n").unwrap();
    let dict = dir.path().join("words");
    std::fs::write(&dict, "are\nbooked\non\na\n").unwrap();
    let out = dir.path().join("w.ngr");
    let r = ensemble(&[
        "ngram",
        "build",
        "--counts",
        dir.path().to_str().unwrap(),
        "--dict",
        dict.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    // The dictionary itself is a file of the folder: it has no TAB, so it is refused by line.
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("words:1:"), "{}", r.stderr);
    let r = ensemble(&[
        "ngram",
        "build",
        "--counts",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--dict",
        dict.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dump = ensemble(&["ngram", "dump", out.to_str().unwrap(), "--order", "3"]);
    assert!(
        dump.stdout.contains("are booked on\t10000\n"),
        "{}",
        dump.stdout
    );
    assert!(!dump.stdout.contains("teh"), "{}", dump.stdout);
}

#[test]
fn corrupt_databases_are_refused_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("c.tsv");
    std::fs::write(&src, "a b c\t3\n").unwrap();
    let db = dir.path().join("c.ngr");
    assert_eq!(
        ensemble(&[
            "ngram",
            "build",
            "--counts",
            src.to_str().unwrap(),
            "-o",
            db.to_str().unwrap()
        ])
        .code,
        0
    );
    let mut bytes = std::fs::read(&db).unwrap();
    let last = bytes.len() - 20;
    bytes[last] ^= 0x40;
    std::fs::write(&db, &bytes).unwrap();
    let r = ensemble(&["ngram", "info", db.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("checksum mismatch"), "{}", r.stderr);
    std::fs::write(&db, &bytes[..100]).unwrap();
    let r = ensemble(&["ngram", "info", db.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("error:"), "{}", r.stderr);
}

fn scores(sentences: &[&str]) -> Vec<f64> {
    let mut args = vec!["ngram", "score"];
    let counts = repo_path("samples/airport/ngrams/airport.counts.tsv");
    args.push(&counts);
    args.extend(sentences);
    let r = ensemble(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
        .lines()
        .map(|l| l.split_whitespace().next().unwrap().parse().unwrap())
        .collect()
}

/// Where our corpus's counts allow, the grammatical variant outranks the ungrammatical one.
#[test]
fn grammatical_variants_outrank_ungrammatical_ones_on_the_corpus() {
    for (good, bad) in [
        (
            "I would like to buy a ticket to Boston.",
            "I would like to buy ticket to Boston.",
        ),
        (
            "I would like to leave at seven.",
            "I would like leave at seven.",
        ),
        (
            "When would you like to travel?",
            "You would like to travel when?",
        ),
        // Fig. 5.6: the thesis ranked "Gate was changed." first; our counts get it right.
        ("The gate was changed.", "Gate was changed."),
        ("The gate was changed.", "The gate were changed."),
        ("You need to go to gate two.", "You need go to gate two."),
        (
            "You are booked on a flight to Boston.",
            "You are booked on flight to Boston.",
        ),
    ] {
        let s = scores(&[good, bad]);
        assert!(
            s[0] > s[1],
            "{good} ({}) should outrank {bad} ({})",
            s[0],
            s[1]
        );
    }
}

/// Where the counts do not allow it: documented, not hidden (docs/formats/sentence.md).
#[test]
fn known_ranking_failures_on_the_corpus() {
    // The corpus says "in Boston" far more often than "to Boston".
    let s = scores(&[
        "I would like to buy a ticket in Boston.",
        "I would like to buy a ticket to Boston.",
    ]);
    assert!(s[0] > s[1]);
    // "When did you like" and "When do you like" (habit, not the wish the thesis meant) are
    // more frequent than "When would you like" in 19th-century novels. Both are grammatical;
    // the wish is meaning, which n-grams do not see, so the over-generator makes it a rule
    // (a verb of liking with a verb under it takes `would`) instead of asking the counts.
    let s = scores(&[
        "When do you like to travel?",
        "When did you like to travel?",
        "When would you like to travel?",
    ]);
    assert!(s[0] > s[2] && s[1] > s[2], "{s:?}");
    // Fig. 5.5: "happened to the flight" is rarer in the restricted counts than "happened at
    // the flight", so WhatHappenedToFlight's best is the latter.
    let s = scores(&[
        "What happened at the flight to Boston?",
        "What happened to the flight to Boston?",
    ]);
    assert!(s[0] > s[1], "{s:?}");
    // ... and by a hair, the article: "happened to flight" beats "happened to the flight".
    let s = scores(&[
        "What happened to flight to Boston?",
        "What happened to the flight to Boston?",
    ]);
    assert!(s[0] > s[1], "{s:?}");
    // Fig. 3.1/3.5, the thesis's own failure, reproduced on the sample's lexicon-restricted
    // counts (the full corpus database ranks these two the right way round: BENCHMARKS.md).
    let s = scores(&[
        "You are booked a flight to Boston.",
        "You are booked on a flight to Boston.",
    ]);
    assert!(s[0] > s[1]);
}

#[test]
fn rank_reports_variations_and_unique_sentences() {
    let r = ensemble(&[
        "ngram",
        "rank",
        &repo_path("samples/airport"),
        "--sentence",
        "WantTicketToX",
        "--top",
        "3",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first = r.stdout.lines().next().unwrap();
    assert!(
        first.starts_with("WantTicketToX: 228 variations, 156 unique sentences"),
        "{first}"
    );
    assert!(
        first.ends_with("the game speaks 1 (marked `spoken`)"),
        "{first}"
    );
    assert_eq!(r.stdout.lines().count(), 4);
    // The line the game says is marked; the others are not.
    let marked: Vec<&str> = r
        .stdout
        .lines()
        .skip(1)
        .filter(|l| l.trim_start().starts_with("spoken"))
        .collect();
    assert_eq!(marked.len(), 1, "{}", r.stdout);
    assert!(
        r.stdout
            .lines()
            .nth(1)
            .unwrap()
            .trim_start()
            .starts_with("spoken")
    );
}

/// Inputs larger than the memory budget are counted in sorted runs spilled to disk and merged;
/// the file is byte-for-byte the one an unlimited build writes. The text is generated, so the
/// test does not depend on the shared corpus.
#[test]
fn a_small_memory_budget_spills_sorted_runs_and_writes_the_same_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("generated.txt");
    // 120,000 words over a 400-word vocabulary (a linear congruential stream): far more
    // distinct trigrams than a 1 MB budget holds.
    let mut x: u64 = 12345;
    let mut words = String::new();
    for i in 0..120_000 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        words.push_str(&format!("w{}", (x >> 33) % 400));
        words.push_str(if i % 17 == 16 { ". " } else { " " });
    }
    std::fs::write(&text, words).unwrap();
    let build = |memory: &str, out: &str| {
        let out = dir.path().join(out);
        let r = ensemble(&[
            "ngram",
            "build",
            text.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--memory-mb",
            memory,
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        (std::fs::read(out).unwrap(), r.stderr)
    };
    let (small, report) = build("1", "small.ngr");
    let runs: u64 = report
        .split(" runs spilled")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no run count in: {report}"));
    assert!(runs >= 2, "{report}");
    let (big, report) = build("512", "big.ngr");
    assert!(report.contains(" 0 runs spilled"), "{report}");
    assert!(
        small == big,
        "the spilled build differs from the in-memory one"
    );
}

/// What the airport's sentence states say first, on the sample's counts: the thesis's sentence
/// where the realiser's rules and the counts get there, and the documented failures where they
/// do not (docs/formats/sentence.md). A change to over-generation, realisation or scoring that
/// moves any of these must update this list and the table.
#[test]
fn the_airport_sentence_states_say_first() {
    let r = ensemble(&["ngram", "rank", &repo_path("samples/airport"), "--top", "1"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let best: Vec<(&str, String)> = lines
        .chunks(2)
        .map(|pair| {
            let name = pair[0].split(':').next().unwrap();
            // "  spoken    -8.786122  096a1386  You are booked ...": mark, score, id, text.
            let text = pair[1]
                .split_whitespace()
                .skip(3)
                .collect::<Vec<_>>()
                .join(" ");
            (name, text)
        })
        .collect();
    // Every one is the thesis's sentence (Figs. 3.4, 3.5, 5.4-5.6), or as good.
    let expected = [
        // Fig. 3.5 says "You are booked on a flight to Boston."
        (
            "ConfirmFlightX",
            "You are booked on the flight to {CityName}.",
        ),
        // The wish rule: the counts prefer "When do you like".
        ("WhenTravel", "When would you like to travel?"),
        // The corpus says "in Boston" more than "to Boston"; `CityName` is declared a
        // Destination, so the line that says where the ticket goes comes first.
        (
            "WantTicketToX",
            "I would like to buy a ticket to {CityName}.",
        ),
        ("LeaveAtX", "I would like to leave at {Time}."),
        // Fig. 5.5, now that the state says `to the flight` (the counts prefer "at").
        (
            "WhatHappenedToFlight",
            "What happened to the flight to {CityName}?",
        ),
        // Fig. 5.6's right answer, which the thesis's Web1T ranking missed: `PAST be`.
        ("GateChanged", "The gate was changed."),
        // Fig. 5.4, now that a name can follow a noun: `to gate VARIABLE GateNumber`.
        ("GoToGateX", "You need to go to gate {GateNumber}."),
    ];
    let expected: Vec<(&str, String)> = expected.iter().map(|(n, t)| (*n, t.to_string())).collect();
    assert_eq!(best, expected, "{}", r.stdout);
}

/// `ensemble ngram eval` on both judged sets, as BENCHMARKS.md reports them: the share of
/// states whose whole spoken set is acceptable, tuning and held-out apart, for the default
/// ranking. A change that moves a figure changes this test and BENCHMARKS.md together; a change
/// that breaks the evaluator or a set fails it.
#[test]
fn ngram_eval_gives_the_figures_benchmarks_reports() {
    let figures = |set: &str| -> Vec<String> {
        let r = ensemble(&["ngram", "eval", &repo_path(set)]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        // The default ranking comes first; its score-gap block is the default spoken set.
        let block: Vec<&str> = r
            .stdout
            .lines()
            .skip_while(|l| !l.contains("score gap"))
            .skip(1)
            .take(2)
            .collect();
        block
            .iter()
            .map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                let fractions: Vec<&str> = w.iter().copied().filter(|x| x.contains('/')).collect();
                format!("{} {} {}", w[0], fractions[0], fractions[1])
            })
            .collect()
    };
    // Part, whole spoken set acceptable, best line acceptable.
    assert_eq!(
        figures("tests/fixtures/nlg-eval-2/eval.ron"),
        ["tuning 45/47 45/47", "held-out 21/23 21/23"]
    );
    assert_eq!(
        figures("tests/fixtures/nlg-eval/eval.ron"),
        ["tuning 25/30 25/30", "held-out 11/15 11/15"]
    );
}

/// Tuning looks at tuning states only: `--part tuning` never prints a held-out one.
#[test]
fn ngram_eval_part_tuning_prints_no_held_out_state() {
    let r = ensemble(&[
        "ngram",
        "eval",
        &repo_path("tests/fixtures/nlg-eval-2/eval.ron"),
        "--verbose",
        "--part",
        "tuning",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let states: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| {
            l.starts_with("    ok ") || l.starts_with("    -- ") || l.starts_with("    1/2")
        })
        .collect();
    assert!(!states.is_empty());
    assert!(states.iter().all(|l| l.contains(" tuning ")), "{states:?}");
}
