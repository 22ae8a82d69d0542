//! The innkeeper as visitors talk to an innkeeper (issue 22): every line answered in the
//! iteration it is said, no reply with an empty slot, and a new question never answered with
//! an old topic. `transcripts/visitor.txt` is the conversation the sample was grown on;
//! `fixtures/innkeeper/visitor-heldout.txt` was written with it and never run while growing it.
//! `fixtures/innkeeper-visitors{,-2,…,-111}/` (issue 30) are twelve evenings each written by
//! someone who never saw the sample, with every reply judged by someone who did not tune it:
//! the judgements are committed, and a changed reply must be judged again. Each set measured
//! the innkeeper once, untouched; most then became tuning sets, and the ones `judged_sets!`
//! marks held out were never read by whoever tunes.

use ensemble_tests::{ensemble, json_lines as events, repo_path};

/// One player line, the tick it was said at, and the agent's outputs (tick, action, text)
/// before the next player line.
struct Exchange {
    line: String,
    tick: u64,
    replies: Vec<(u64, String, String)>,
    /// The replies as the judge of the visitor set wrote them: `action: [emote] text`.
    judged: Vec<String>,
}

/// The sample, built once per test process into the test's own folder under the target
/// directory. Compiling it is most of the cost of a run (seconds in a debug build), and the
/// judged sets run some eight hundred evenings of the same program.
fn built_innkeeper() -> &'static str {
    static BUILT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILT.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(exe.file_stem().expect("the test binary has a name"));
        let out = ensemble(&[
            "build",
            &repo_path("samples/innkeeper"),
            "-o",
            &dir.to_string_lossy(),
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        dir.join("innkeeper.ensb").to_string_lossy().into_owned()
    })
}

fn talk(input_text: &str) -> Vec<Exchange> {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("input.txt");
    std::fs::write(&input, input_text).unwrap();
    let out = ensemble(&[
        "run",
        built_innkeeper(),
        "--scene",
        "chat",
        "--input",
        &input.to_string_lossy(),
        "--seed",
        "7",
        "--trace",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let mut exchanges: Vec<Exchange> = Vec::new();
    for e in events(&out.stdout) {
        let tick = e["tick"].as_u64().unwrap();
        match e["event"].as_str().unwrap() {
            "input" => exchanges.push(Exchange {
                line: e["text"].as_str().unwrap().to_string(),
                tick,
                replies: Vec::new(),
                judged: Vec::new(),
            }),
            "output" => {
                let emote = e["emote"].as_str().unwrap();
                let said = format!(
                    "{}: {}{}",
                    e["action"].as_str().unwrap(),
                    if emote.is_empty() {
                        String::new()
                    } else {
                        format!("[{emote}] ")
                    },
                    e["text"].as_str().unwrap()
                );
                let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
                exchanges
                    .last_mut()
                    .expect("the player speaks first")
                    .judged
                    .push(said);
                let reply = (
                    tick,
                    e["action"].as_str().unwrap().to_string(),
                    format!(
                        "{} {}",
                        e["emote"].as_str().unwrap(),
                        e["text"].as_str().unwrap()
                    ),
                );
                exchanges
                    .last_mut()
                    .expect("the player speaks first")
                    .replies
                    .push(reply);
            }
            other => panic!("unexpected event {other}"),
        }
    }
    exchanges
}

fn transcript(rel: &str) -> String {
    std::fs::read_to_string(repo_path(rel)).unwrap()
}

/// A rendered slot that came out empty leaves a space before punctuation ("what about ?") or
/// a dangling preposition at the end.
fn has_hole(text: &str) -> bool {
    let t = text.trim_end();
    t.contains(" ?")
        || t.contains(" ,")
        || t.contains(" .")
        || ["for", "about", "is", "the", "a"]
            .iter()
            .any(|w| t.ends_with(&format!(" {w}")))
}

/// Every line gets a reply in its own iteration, and no reply has a hole. Returns how many
/// lines got more than the catch-all (`pardon`).
fn every_line_answered(rel: &str) -> (usize, usize) {
    let exchanges = talk(&transcript(rel));
    let lines = transcript(rel)
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .count();
    assert_eq!(exchanges.len(), lines, "{rel}: every line is heard");
    answered_in_time_without_holes(rel, &exchanges);
    let understood = exchanges
        .iter()
        .filter(|x| x.replies.iter().all(|(_, a, _)| a != "pardon"))
        .count();
    (understood, exchanges.len())
}

/// Every line got a reply in its own iteration, and no reply has a hole.
fn answered_in_time_without_holes(what: &str, exchanges: &[Exchange]) {
    for x in exchanges {
        assert!(
            x.replies.first().is_some_and(|(t, _, _)| *t == x.tick),
            "{what}: `{}` got no reply in its iteration: {:?}",
            x.line,
            x.replies
        );
        for (_, _, text) in &x.replies {
            assert!(
                !has_hole(text),
                "{what}: `{}` got a reply with a hole: `{text}`",
                x.line
            );
        }
    }
}

/// The actions by which Xenos shows he did not understand (or steers away) rather than answers.
const FALLBACKS: &[&str] = &[
    "pardon",
    "steer",
    "clarify-topic",
    "clarify-act",
    "answer-what",
    "segue",
    "not-have",
    "not-judge",
    "know-nothing",
    "know-nothing-again",
];

/// A player's line was answered only by a fallback.
fn fell_back(x: &Exchange) -> bool {
    x.replies
        .iter()
        .all(|(_, a, _)| FALLBACKS.contains(&a.as_str()))
}

/// The same reply three times running is a stuck NPC, whatever the player said.
fn repeats_three_times(exchanges: &[Exchange]) -> Option<String> {
    exchanges.windows(3).find_map(|w| {
        let text = |x: &Exchange| x.replies.iter().map(|r| r.2.clone()).collect::<Vec<_>>();
        (text(&w[0]) == text(&w[1]) && text(&w[1]) == text(&w[2])).then(|| w[2].line.clone())
    })
}

/// Each evening of a file: the player's lines, `# ...` headers and blank lines between them.
fn evenings(text: &str) -> Vec<Vec<String>> {
    let mut out: Vec<Vec<String>> = Vec::new();
    for line in text.lines() {
        if line.starts_with("# evening") || out.is_empty() {
            out.push(Vec::new());
        }
        if !line.trim().is_empty() && !line.starts_with('#') {
            out.last_mut().unwrap().push(line.to_string());
        }
    }
    out.retain(|e| !e.is_empty());
    out
}

/// The sample's own evenings (the conversations it was grown on, `transcripts/evening-*.txt`):
/// every line answered in its iteration, without holes, mostly without fallbacks, never stuck.
#[test]
fn the_tuning_evenings_are_answered_without_holes_or_repeats() {
    let mut fallbacks = 0;
    let mut lines = 0;
    for name in ["arrival", "chatter", "locals", "road", "rowdy", "supper"] {
        let rel = format!("samples/innkeeper/transcripts/evening-{name}.txt");
        let exchanges = talk(&transcript(&rel));
        let heard: usize = evenings(&transcript(&rel)).iter().map(Vec::len).sum();
        assert_eq!(exchanges.len(), heard, "{rel}: every line is heard");
        answered_in_time_without_holes(&rel, &exchanges);
        assert_eq!(repeats_three_times(&exchanges), None, "{rel}");
        fallbacks += exchanges.iter().filter(|x| fell_back(x)).count();
        lines += exchanges.len();
    }
    eprintln!("tuning evenings: {fallbacks} of {lines} lines fell back");
    assert!(
        fallbacks * 100 <= lines * 15,
        "{fallbacks} of {lines} fell back"
    );
}

/// A judged visitor set (issue 30): every reply is still the one judged (a changed reply must be
/// judged again, by someone who does not tune the innkeeper), none has a hole or comes late,
/// none repeats three times running, at most 15% fall back, and at least `sensible(set)` lines
/// are judged sensible. A `held_out` set's changed replies are named by position only: whoever
/// tunes the innkeeper runs these tests and must not read its lines.
/// The folder of visitor set `set` (set 1's has no number).
fn set_dir(set: usize) -> String {
    match set {
        1 => "tests/fixtures/innkeeper-visitors".to_string(),
        n => format!("tests/fixtures/innkeeper-visitors-{n}"),
    }
}

fn judged_set(set: usize, held_out: bool) {
    let dir = set_dir(set);
    let min_sensible = sensible(set);
    let judged: Vec<Vec<String>> = transcript(&format!("{dir}/judged.tsv"))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let mut rows = judged.iter();
    let (mut sensible, mut fallback, mut changed) = (0, 0, Vec::new());
    let mut lines = 0;
    for (n, evening) in evenings(&transcript(&format!("{dir}/evenings.txt")))
        .iter()
        .enumerate()
    {
        let exchanges = talk(&(evening.join("\n") + "\n"));
        assert_eq!(exchanges.len(), evening.len(), "evening {}", n + 1);
        assert_eq!(repeats_three_times(&exchanges), None, "evening {}", n + 1);
        answered_in_time_without_holes(&format!("evening {}", n + 1), &exchanges);
        for x in &exchanges {
            lines += 1;
            let row = rows.next().expect("a judged row for every line");
            assert_eq!(
                (row[0].as_str(), row[1].as_str()),
                (&*(n + 1).to_string(), &*x.line)
            );
            let reply = x.judged.join(" / ");
            if reply != row[2] {
                changed.push(if held_out {
                    format!("evening {}, line {lines} of the set", row[0])
                } else {
                    format!("{}\t{}\t{reply}", row[0], row[1])
                });
            }
            sensible += usize::from(row[3] == "sensible");
            fallback += usize::from(row[3] == "fallback");
        }
    }
    assert!(
        rows.next().is_none(),
        "judged.tsv has rows for lines evenings.txt lacks"
    );
    assert!(
        changed.is_empty(),
        "{} replies changed since they were judged; have them judged again (not by whoever \
         tunes the innkeeper) and update {dir}/judged.tsv:\n{}",
        changed.len(),
        changed.join("\n")
    );
    eprintln!("{dir}: {sensible} of {lines} sensible, {fallback} fallbacks");
    assert!(
        fallback * 100 <= lines * 15,
        "{fallback} of {lines} fell back"
    );
    assert!(
        sensible >= min_sensible,
        "{dir}: {sensible} of {lines} sensible"
    );
}

/// One test per judged set: `name: set, held_out;` (see `judged_set`).
macro_rules! judged_sets {
    ($($(#[$doc:meta])* $name:ident: $set:expr, $held:expr;)*) => {$(
        $(#[$doc])*
        #[test]
        fn $name() {
            judged_set($set, $held);
        }
    )*};
}

judged_sets! {
    /// The first independent set, written before the innkeeper grew and judged on 2026-12-01/02
    /// (115 of 165 then); since then the tuning set of issue 30's second round.
    the_first_visitor_set_gets_the_replies_judged: 1, false;

    /// The second independent set: the held-out measure of issue 30's second round (114 of 163),
    /// then the tuning set of its third.
    the_second_visitor_set_gets_the_replies_judged: 2, false;

    /// The third independent set: the held-out measure of issue 30's third round (105 of 165),
    /// then a tuning set of its fourth.
    the_third_visitor_set_gets_the_replies_judged: 3, false;

    /// The fourth independent set: the held-out measure of issue 30's fourth round (77 of 167),
    /// then a tuning set of its fifth.
    the_fourth_visitor_set_gets_the_replies_judged: 4, false;

    /// The held-out measure of issue 30's fifth round (written 2026-12-02 by someone who saw
    /// neither the sample nor the other sets, never looked at while tuning, judged by someone who
    /// did not tune; only its counts were reported): the goal is 80% sensible.
    the_held_out_visitor_set_gets_the_replies_judged: 5, true;

    /// The held-out measure from issue 30's ninth round on (written 2026-12-03, before that round
    /// began, by someone who saw neither the sample nor the other sets; never looked at while
    /// tuning, judged by someone who did not tune; only its counts were reported). Set 5 stays
    /// judged, but a reviewer once quoted six of its lines: it no longer counts as unseen.
    the_sixth_visitor_set_gets_the_replies_judged: 6, true;

    /// The held-out measure from issue 30's tenth round on (written 2026-12-03, before that round
    /// began, by someone who saw neither the sample nor the other sets; never looked at while
    /// tuning, judged by someone who did not tune; only its counts were reported). Set 6's counts
    /// had been seen after three rounds: it stays judged, but set 7 is the unseen one.
    the_seventh_visitor_set_gets_the_replies_judged: 7, true;

    /// The held-out measure of issue 30's eleventh round (written 2026-12-03, before that round
    /// began, by someone who saw neither the sample nor the other sets; judged on the program as
    /// the tenth round left it, 88 of 169, by someone who did not tune; never looked at; only its
    /// counts were reported).
    the_eighth_visitor_set_gets_the_replies_judged: 8, true;

    /// The held-out measure of issue 30's twelfth round (written 2026-12-03, before that round
    /// began, by someone who saw neither the sample nor the other sets; judged on the program as
    /// the eleventh round left it, 67 of 165, by someone who did not tune; only its counts were
    /// reported). Read from the fourteenth round on, a tuning set: why its misses failed is in
    /// `misses.tsv` beside it.
    the_ninth_visitor_set_gets_the_replies_judged: 9, true;

    /// The held-out measure of issue 30's thirteenth round (written 2026-12-03, before that round
    /// began, by someone who saw neither the sample nor the other sets; judged on the program as
    /// the twelfth round left it, 75 of 169, by someone who did not tune; only its counts were
    /// reported).
    the_tenth_visitor_set_gets_the_replies_judged: 10, true;

    /// The eleventh independent set (written 2026-12-04 by someone who saw neither the sample nor
    /// the other sets, judged on the program as the fifteenth round left it, 76 of 167, by someone
    /// who did not tune): the fresh measure of how the innkeeper does on lines nobody tuned for,
    /// then the tuning set of the sixteenth round. Set 10 stays the unseen one.
    the_eleventh_visitor_set_gets_the_replies_judged: 11, false;

    /// The twelfth independent set (written 2026-12-04 by someone who saw neither the sample nor
    /// the other sets, judged on the program as the sixteenth round's first part left it, 89 of 170,
    /// by someone who did not tune), then a tuning set of that round's second part.
    the_twelfth_visitor_set_gets_the_replies_judged: 12, false;

    /// The thirteenth independent set (written 2026-12-04 by someone who saw neither the sample nor
    /// the other sets, judged on the program as the sixteenth round's second part left it, 97 of
    /// 165, by someone who did not tune), then a tuning set of that round's third part.
    the_thirteenth_visitor_set_gets_the_replies_judged: 13, false;

    /// The fourteenth independent set (written 2026-12-04 by someone who saw neither the sample
    /// nor the other sets, judged on the program as the sixteenth round's third part left it, 86
    /// of 168, by someone who did not tune), then a tuning set of that round's fourth part.
    the_fourteenth_visitor_set_gets_the_replies_judged: 14, false;

    /// The fifteenth independent set (written 2026-12-04 by someone who saw neither the sample
    /// nor the other sets, judged once on the program as the sixteenth round left it, by someone
    /// who did not tune; never read by the tuner, only its counts reported): the round's fresh
    /// measure, 100 of 169.
    the_fifteenth_visitor_set_gets_the_replies_judged: 15, true;

    /// The sixteenth independent set (written 2026-12-04 by someone who saw neither the sample
    /// nor the other sets, judged on the program as the sixteenth round's fourth part left it,
    /// 102 of 164, by someone who did not tune), then a tuning set of that round's fifth part.
    the_sixteenth_visitor_set_gets_the_replies_judged: 16, false;

    /// The seventeenth independent set (written 2026-12-04 by someone who saw neither the sample
    /// nor the other sets, judged once on the program as the sixteenth round ended, by someone
    /// who did not tune; never read by the tuner, only its counts reported): the fresh measure
    /// of the round's final program.
    the_seventeenth_visitor_set_gets_the_replies_judged: 17, true;

    /// The eighteenth independent set (written 2026-12-04 by someone who saw neither the sample
    /// nor the other sets, judged on the program as the sixteenth round left it, 81 of 167, by
    /// someone who did not tune), then a tuning set of the seventeenth round.
    the_eighteenth_visitor_set_gets_the_replies_judged: 18, false;

    /// The nineteenth independent set (written and judged as set 18 was, 105 of 166), then a
    /// tuning set of the seventeenth round.
    the_nineteenth_visitor_set_gets_the_replies_judged: 19, false;

    /// The twentieth independent set (written and judged as set 18 was, 95 of 167), then a tuning
    /// set of the seventeenth round.
    the_twentieth_visitor_set_gets_the_replies_judged: 20, false;

    /// The twenty-first independent set (written and judged as set 18 was, 88 of 169), then a
    /// tuning set of the seventeenth round.
    the_twenty_first_visitor_set_gets_the_replies_judged: 21, false;

    /// The twenty-second independent set (written 2026-12-04 with sets 18–21 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the sixteenth round left
    /// it, 77 of 168, by someone who did not tune; never read by the tuner, only its counts
    /// reported): the seventeenth round's held-out measure.
    the_twenty_second_visitor_set_gets_the_replies_judged: 22, true;

    /// The twenty-third independent set (written 2026-12-04 by someone who saw neither the sample
    /// nor the other sets, judged on the program as the seventeenth round left it, 99 of 169, by
    /// someone who did not tune), then a tuning set of the eighteenth round.
    the_twenty_third_visitor_set_gets_the_replies_judged: 23, false;

    /// The twenty-fourth independent set (written and judged as set 23 was, 102 of 167), then a
    /// tuning set of the eighteenth round.
    the_twenty_fourth_visitor_set_gets_the_replies_judged: 24, false;

    /// The twenty-fifth independent set (written and judged as set 23 was, 120 of 165), then a
    /// tuning set of the eighteenth round.
    the_twenty_fifth_visitor_set_gets_the_replies_judged: 25, false;

    /// The twenty-sixth independent set (written and judged as set 23 was, 83 of 168), then a
    /// tuning set of the eighteenth round.
    the_twenty_sixth_visitor_set_gets_the_replies_judged: 26, false;

    /// The twenty-seventh independent set (written 2026-12-04 with sets 23–26 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the seventeenth round left
    /// it, 109 of 169, by someone who did not tune; never read by the tuner, only its counts
    /// reported): the eighteenth round's held-out measure.
    the_twenty_seventh_visitor_set_gets_the_replies_judged: 27, true;

    /// The twenty-eighth independent set (written 2026-12-04 by someone who saw neither the
    /// sample nor the other sets, judged on the program as the eighteenth round left it, 92 of
    /// 167, by someone who did not tune), then a tuning set of the nineteenth round.
    the_twenty_eighth_visitor_set_gets_the_replies_judged: 28, false;

    /// The twenty-ninth independent set (written and judged as set 28 was, 100 of 169), then a
    /// tuning set of the nineteenth round.
    the_twenty_ninth_visitor_set_gets_the_replies_judged: 29, false;

    /// The thirty-second independent set (written 2026-12-04 with sets 28 and 29 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the eighteenth round
    /// left it, 90 of 168, by someone who did not tune; never read by the tuner, only its counts
    /// reported): the nineteenth round's held-out measure. (Sets 30 and 31 were written later,
    /// in the twentieth round.)
    the_thirty_second_visitor_set_gets_the_replies_judged: 32, true;

    /// The thirtieth independent set (written 2026-12-04 with sets 31 and 33 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the nineteenth round left
    /// it, 101 of 168, by someone who did not tune), then a tuning set of the twentieth round.
    the_thirtieth_visitor_set_gets_the_replies_judged: 30, false;

    /// The thirty-first independent set (written and judged as set 30 was, 89 of 169), then a
    /// tuning set of the twentieth round.
    the_thirty_first_visitor_set_gets_the_replies_judged: 31, false;

    /// The thirty-third independent set (written with sets 30 and 31, judged as they were, 94 of
    /// 166; never read by the tuner, only its counts reported): the twentieth round's held-out
    /// measure.
    the_thirty_third_visitor_set_gets_the_replies_judged: 33, true;

    /// The thirty-fourth independent set (written 2026-12-04 with sets 35 and 36 by someone who
    /// saw neither the sample nor the other sets, judged during the twentieth round, 103 of 165,
    /// by someone who did not tune), then a tuning set of the twenty-first round.
    the_thirty_fourth_visitor_set_gets_the_replies_judged: 34, false;

    /// The thirty-fifth independent set (written and judged as set 34 was, 103 of 169), then a
    /// tuning set of the twenty-first round.
    the_thirty_fifth_visitor_set_gets_the_replies_judged: 35, false;

    /// The thirty-sixth independent set (written with sets 34 and 35, judged as they were, 112
    /// of 166; never read by the tuner, only its counts reported): the twenty-first round's
    /// held-out measure.
    the_thirty_sixth_visitor_set_gets_the_replies_judged: 36, true;

    /// The thirty-seventh independent set (written 2026-12-04 with sets 38 and 39 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the twenty-first round
    /// left it, 89 of 168, by someone who did not tune), then a tuning set of the twenty-second
    /// round.
    the_thirty_seventh_visitor_set_gets_the_replies_judged: 37, false;

    /// The thirty-eighth independent set (written and judged as set 37 was, 99 of 164), then a
    /// tuning set of the twenty-second round.
    the_thirty_eighth_visitor_set_gets_the_replies_judged: 38, false;

    /// The thirty-ninth independent set (written with sets 37 and 38, judged as they were, 109
    /// of 168; never read by the tuner, only its counts reported): the twenty-second round's
    /// held-out measure.
    the_thirty_ninth_visitor_set_gets_the_replies_judged: 39, true;

    /// The fortieth independent set (written 2026-12-04 with sets 41 and 42 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the twenty-second round
    /// left it, 110 of 169, by someone who did not tune), then a tuning set of the twenty-third
    /// round.
    the_fortieth_visitor_set_gets_the_replies_judged: 40, false;

    /// The forty-first independent set (written and judged as set 40 was, 109 of 167), then a
    /// tuning set of the twenty-third round.
    the_forty_first_visitor_set_gets_the_replies_judged: 41, false;

    /// The forty-second independent set (written with sets 40 and 41, judged as they were, 97
    /// of 166; never read by the tuner, only its counts reported): the twenty-third round's
    /// held-out measure.
    the_forty_second_visitor_set_gets_the_replies_judged: 42, true;

    /// The forty-third independent set (written 2026-12-04 with sets 44 and 45 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the twenty-third round
    /// left it, 105 of 167, by someone who did not tune), then a tuning set of the twenty-fourth
    /// round.
    the_forty_third_visitor_set_gets_the_replies_judged: 43, false;

    /// The forty-fourth independent set (written and judged as set 43 was, 104 of 167), then a
    /// tuning set of the twenty-fourth round.
    the_forty_fourth_visitor_set_gets_the_replies_judged: 44, false;

    /// The forty-fifth independent set (written with sets 43 and 44, judged as they were, 102
    /// of 165; never read by the tuner, only its counts reported): the twenty-fourth round's
    /// held-out measure.
    the_forty_fifth_visitor_set_gets_the_replies_judged: 45, true;

    /// The forty-sixth independent set (written 2026-12-05 with sets 47 and 48 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the twenty-fourth round
    /// left it, 100 of 166, by someone who did not tune), then a tuning set of the twenty-fifth
    /// round.
    the_forty_sixth_visitor_set_gets_the_replies_judged: 46, false;

    /// The forty-seventh independent set (written and judged as set 46 was, 109 of 167), then a
    /// tuning set of the twenty-fifth round.
    the_forty_seventh_visitor_set_gets_the_replies_judged: 47, false;

    /// The forty-eighth independent set (written with sets 46 and 47, judged as they were, 119
    /// of 170; never read by the tuner, only its counts reported): the twenty-fifth round's
    /// held-out measure.
    the_forty_eighth_visitor_set_gets_the_replies_judged: 48, true;

    /// The forty-ninth independent set (written 2026-12-05 with sets 50 and 51 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the twenty-fifth round
    /// left it, 103 of 169, by someone who did not tune), then a tuning set of the twenty-sixth
    /// round.
    the_forty_ninth_visitor_set_gets_the_replies_judged: 49, false;

    /// The fiftieth independent set (written and judged as set 49 was, 99 of 166), then a tuning
    /// set of the twenty-sixth round.
    the_fiftieth_visitor_set_gets_the_replies_judged: 50, false;

    /// The fifty-first independent set (written with sets 49 and 50, judged as they were, 121 of
    /// 167; never read by the tuner, only its counts reported): the twenty-sixth round's
    /// held-out measure.
    the_fifty_first_visitor_set_gets_the_replies_judged: 51, true;

    /// The fifty-second independent set (written 2026-12-05 with sets 53 and 54 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the twenty-sixth
    /// round left it, 122 of 170, by someone who did not tune), then a tuning set of the
    /// twenty-seventh round.
    the_fifty_second_visitor_set_gets_the_replies_judged: 52, false;

    /// The fifty-third independent set (written and judged as set 52 was, 112 of 167), then a
    /// tuning set of the twenty-seventh round.
    the_fifty_third_visitor_set_gets_the_replies_judged: 53, false;

    /// The fifty-fourth independent set (written with sets 52 and 53, judged as they were, 100
    /// of 170; never read by the tuner, only its counts reported): the twenty-seventh round's
    /// held-out measure.
    the_fifty_fourth_visitor_set_gets_the_replies_judged: 54, true;

    /// The fifty-fifth independent set (written 2026-12-05 with sets 56 and 57 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the twenty-seventh
    /// round left it, 113 of 168, by someone who did not tune), then a tuning set of the
    /// twenty-eighth round.
    the_fifty_fifth_visitor_set_gets_the_replies_judged: 55, false;

    /// The fifty-sixth independent set (written and judged as set 55 was, 114 of 166), then a
    /// tuning set of the twenty-eighth round.
    the_fifty_sixth_visitor_set_gets_the_replies_judged: 56, false;

    /// The fifty-seventh independent set (written with sets 55 and 56, judged as they were, 109
    /// of 168; never read by the tuner, only its counts reported): the twenty-eighth round's
    /// held-out measure.
    the_fifty_seventh_visitor_set_gets_the_replies_judged: 57, true;

    /// The fifty-eighth independent set (written 2026-12-05 with sets 59 and 60 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the twenty-eighth
    /// round left it, 124 of 169, by someone who did not tune), then a tuning set of the
    /// twenty-ninth round.
    the_fifty_eighth_visitor_set_gets_the_replies_judged: 58, false;

    /// The fifty-ninth independent set (written and judged as set 58 was, 117 of 166), then a
    /// tuning set of the twenty-ninth round.
    the_fifty_ninth_visitor_set_gets_the_replies_judged: 59, false;

    /// The sixtieth independent set (written with sets 58 and 59, judged as they were, 104 of
    /// 165; never read by the tuner, only its counts reported): the twenty-ninth round's
    /// held-out measure.
    the_sixtieth_visitor_set_gets_the_replies_judged: 60, true;

    /// The sixty-first independent set (written 2026-12-05 with sets 62 and 63 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the twenty-ninth
    /// round left it, 113 of 166, by someone who did not tune), then a tuning set of the
    /// thirtieth round.
    the_sixty_first_visitor_set_gets_the_replies_judged: 61, false;

    /// The sixty-second independent set (written and judged as set 61 was, 107 of 165), then a
    /// tuning set of the thirtieth round.
    the_sixty_second_visitor_set_gets_the_replies_judged: 62, false;

    /// The sixty-third independent set (written with sets 61 and 62, judged as they were, 101 of
    /// 167; never read by the tuner, only its counts reported): the thirtieth round's held-out
    /// measure.
    the_sixty_third_visitor_set_gets_the_replies_judged: 63, true;

    /// The sixty-fourth independent set (written 2026-12-05 with sets 65 and 66 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the thirtieth round
    /// left it, 126 of 170, by someone who did not tune), then a tuning set of the thirty-first
    /// round.
    the_sixty_fourth_visitor_set_gets_the_replies_judged: 64, false;

    /// The sixty-fifth independent set (written and judged as set 64 was, 112 of 165), then a
    /// tuning set of the thirty-first round.
    the_sixty_fifth_visitor_set_gets_the_replies_judged: 65, false;

    /// The sixty-sixth independent set (written with sets 64 and 65, judged as they were, 107 of
    /// 168; never read by the tuner, only its counts reported): the thirty-first round's
    /// held-out measure.
    the_sixty_sixth_visitor_set_gets_the_replies_judged: 66, true;

    /// The sixty-seventh independent set (written 2026-12-05 with sets 68 and 69 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the thirty-first round
    /// left it, 118 of 165, by someone who did not tune), then a tuning set of the thirty-second
    /// round.
    the_sixty_seventh_visitor_set_gets_the_replies_judged: 67, false;

    /// The sixty-eighth independent set (written and judged as set 67 was, 112 of 167), then a
    /// tuning set of the thirty-second round.
    the_sixty_eighth_visitor_set_gets_the_replies_judged: 68, false;

    /// The sixty-ninth independent set (written with sets 67 and 68, judged as they were, 118 of
    /// 168; never read by the tuner, only its counts reported): the thirty-second round's
    /// held-out measure.
    the_sixty_ninth_visitor_set_gets_the_replies_judged: 69, true;

    /// The seventieth independent set (written 2026-12-06 with sets 71 and 72 by someone who saw
    /// neither the sample nor the other sets, judged on the program as the thirty-second round
    /// left it, with children's prices made consistent, 104 of 169, by someone who did not
    /// tune), then a tuning set of the thirty-third round.
    the_seventieth_visitor_set_gets_the_replies_judged: 70, false;

    /// The seventy-first independent set (written and judged as set 70 was, 100 of 168), then a
    /// tuning set of the thirty-third round.
    the_seventy_first_visitor_set_gets_the_replies_judged: 71, false;

    /// The seventy-second independent set (written with sets 70 and 71, judged as they were, 107
    /// of 169; never read by the tuner, only its counts reported): the thirty-third round's
    /// held-out measure.
    the_seventy_second_visitor_set_gets_the_replies_judged: 72, true;

    /// The seventy-third independent set (written 2026-12-06 with sets 74 and 75 by someone who
    /// saw neither the sample nor the other sets, judged on the program as the thirty-third round
    /// left it, with a cot priced as the rates say, 86 of 165, by someone who did not tune), then
    /// a tuning set of the thirty-fourth round.
    the_seventy_third_visitor_set_gets_the_replies_judged: 73, false;

    /// The seventy-fourth independent set (written and judged as set 73 was, 106 of 166), then a
    /// tuning set of the thirty-fourth round.
    the_seventy_fourth_visitor_set_gets_the_replies_judged: 74, false;

    /// The seventy-fifth independent set (written with sets 73 and 74, judged as they were, 73
    /// of 171; never read by the tuner, only its counts reported): the thirty-fourth round's
    /// held-out measure.
    the_seventy_fifth_visitor_set_gets_the_replies_judged: 75, true;

    /// The seventy-sixth independent set (written 2026-12-06 with sets 77 and 78, after the
    /// thirty-fourth round's tuning, by someone who saw neither the sample nor the other sets;
    /// judged once on that round's final program, 101 of 170, by someone who did not tune; never
    /// read by the tuner, only its counts reported): a fresh measure of that program.
    the_seventy_sixth_visitor_set_gets_the_replies_judged: 76, true;

    /// The seventy-seventh independent set (written and judged as set 76 was, 91 of 165; never
    /// read by the tuner).
    the_seventy_seventh_visitor_set_gets_the_replies_judged: 77, true;

    /// The seventy-eighth independent set (written and judged as set 76 was, 110 of 169; never
    /// read by the tuner).
    the_seventy_eighth_visitor_set_gets_the_replies_judged: 78, true;

    /// The seventy-ninth independent set (written 2026-12-06 with sets 80 and 81 by someone who
    /// saw neither the sample nor the other sets, and judged once untouched, on the thirty-fourth
    /// round's final program, 86 of 168, by someone who did not tune), then a tuning set of the
    /// thirty-fifth round.
    the_seventy_ninth_visitor_set_gets_the_replies_judged: 79, false;

    /// The eightieth independent set (written and judged as set 79 was, 95 of 174), then a
    /// tuning set of the thirty-fifth round.
    the_eightieth_visitor_set_gets_the_replies_judged: 80, false;

    /// The eighty-first independent set (written with sets 79 and 80, judged as they were, 111
    /// of 168; never read by the tuner, only its counts reported): the thirty-fifth round's
    /// held-out measure.
    the_eighty_first_visitor_set_gets_the_replies_judged: 81, true;

    /// The eighty-second independent set (written 2026-12-06 with sets 83 and 84, after the
    /// thirty-fifth round's tuning, by someone who saw neither the sample nor the other sets;
    /// judged once on that round's final program, 101 of 167, by someone who did not tune; never
    /// read by the tuner, only its counts reported): a fresh measure of that program.
    the_eighty_second_visitor_set_gets_the_replies_judged: 82, true;

    /// The eighty-third independent set (written and judged as set 82 was, 107 of 167; never
    /// read by the tuner).
    the_eighty_third_visitor_set_gets_the_replies_judged: 83, true;

    /// The eighty-fourth independent set (written and judged as set 82 was, 117 of 172; never
    /// read by the tuner).
    the_eighty_fourth_visitor_set_gets_the_replies_judged: 84, true;

    /// The eighty-fifth independent set (written 2026-12-06 with sets 86 and 87 by someone who
    /// saw neither the sample nor the other sets, and judged once untouched, on the thirty-fifth
    /// round's final program, 76 of 169, by someone who did not tune), then a tuning set of the
    /// thirty-sixth round.
    the_eighty_fifth_visitor_set_gets_the_replies_judged: 85, false;

    /// The eighty-sixth independent set (written and judged as set 85 was, 122 of 168), then a
    /// tuning set of the thirty-sixth round.
    the_eighty_sixth_visitor_set_gets_the_replies_judged: 86, false;

    /// The eighty-seventh independent set (written with sets 85 and 86, judged as they were, 80
    /// of 165; never read by the tuner, only its counts reported): the thirty-sixth round's
    /// held-out measure.
    the_eighty_seventh_visitor_set_gets_the_replies_judged: 87, true;

    /// The eighty-eighth independent set (written 2026-12-06 with sets 89 and 90, before the
    /// thirty-sixth round's tuning began, by someone who saw neither the sample nor the other
    /// sets; judged once on that round's final program, 97 of 169, by someone who did not tune;
    /// never read by the tuner, only its counts reported): a fresh measure of that program.
    the_eighty_eighth_visitor_set_gets_the_replies_judged: 88, true;

    /// The eighty-ninth independent set (written and judged as set 88 was, 99 of 168; never read
    /// by the tuner).
    the_eighty_ninth_visitor_set_gets_the_replies_judged: 89, true;

    /// The ninetieth independent set (written and judged as set 88 was, 108 of 166; never read by
    /// the tuner).
    the_ninetieth_visitor_set_gets_the_replies_judged: 90, true;

    /// The ninety-first independent set (written 2026-12-06 with sets 92 to 96 by someone who
    /// saw neither the sample nor the other sets, travellers in company; judged once untouched,
    /// on the thirty-sixth round's final program, 90 of 168, by someone who did not tune), then a
    /// tuning set of the thirty-seventh round.
    the_ninety_first_visitor_set_gets_the_replies_judged: 91, false;

    /// The ninety-second independent set (written and judged as set 91 was, chat shorthand, 117
    /// of 168), then a tuning set of the thirty-seventh round.
    the_ninety_second_visitor_set_gets_the_replies_judged: 92, false;

    /// The ninety-third independent set (written and judged as set 91 was, role-players, 97 of
    /// 168; never read by the tuner, only its counts reported): the thirty-seventh round's
    /// held-out measure.
    the_ninety_third_visitor_set_gets_the_replies_judged: 93, true;

    /// The ninety-fourth independent set (written with sets 91 to 93, before the thirty-seventh
    /// round's tuning began, by someone who saw neither the sample nor the other sets; judged
    /// once on that round's final program, 109 of 167, by someone who did not tune; never read by
    /// the tuner, only its counts reported): a fresh measure of that program.
    the_ninety_fourth_visitor_set_gets_the_replies_judged: 94, true;

    /// The ninety-fifth independent set (written and judged as set 94 was, 113 of 166; never read
    /// by the tuner).
    the_ninety_fifth_visitor_set_gets_the_replies_judged: 95, true;

    /// The ninety-sixth independent set (written and judged as set 94 was, 115 of 170; never read
    /// by the tuner).
    the_ninety_sixth_visitor_set_gets_the_replies_judged: 96, true;

    /// The ninety-seventh independent set (written 2026-12-06 after the forty-first round by
    /// someone who saw neither the sample nor the other sets; judged once on that round's
    /// program, 75 of 168, by someone who did not tune; never read by the tuner, only its
    /// counts reported): a fresh measure of that program.
    the_ninety_seventh_visitor_set_gets_the_replies_judged: 97, true;

    /// The ninety-eighth independent set (written and judged as set 97 was, 97 of 168; never
    /// read by the tuner).
    the_ninety_eighth_visitor_set_gets_the_replies_judged: 98, true;

    /// The ninety-ninth independent set (written and judged as set 97 was, 82 of 168; never
    /// read by the tuner).
    the_ninety_ninth_visitor_set_gets_the_replies_judged: 99, true;

    /// The hundredth independent set (written 2026-12-07 during the forty-seventh round by
    /// someone who saw neither the sample nor the other sets; judged once on the forty-ninth
    /// round's program, 92 of 170, by someone who did not tune; never read by the tuner, only
    /// its counts reported): a fresh measure of that program.
    the_hundredth_visitor_set_gets_the_replies_judged: 100, true;

    /// The hundred-and-first independent set (written and judged as set 100 was, 91 of
    /// 165; never read by the tuner).
    the_hundred_and_first_visitor_set_gets_the_replies_judged: 101, true;

    /// The hundred-and-second independent set (written and judged as set 100 was, 81 of
    /// 168; never read by the tuner).
    the_hundred_and_second_visitor_set_gets_the_replies_judged: 102, true;

    /// The hundred-and-third independent set (written 2026-12-07 after the eighty-fifth round
    /// by someone who saw neither the sample nor the other sets; judged once on that round's
    /// program, 82 of 170, by someone who did not tune): a fresh measure of that program, then
    /// a tuning set from the eighty-sixth round on.
    the_hundred_and_third_visitor_set_gets_the_replies_judged: 103, true;

    /// The hundred-and-fourth independent set (written and judged as set 103 was, 97 of 169;
    /// then a tuning set).
    the_hundred_and_fourth_visitor_set_gets_the_replies_judged: 104, true;

    /// The hundred-and-fifth independent set (written and judged as set 103 was, 90 of 168;
    /// then a tuning set).
    the_hundred_and_fifth_visitor_set_gets_the_replies_judged: 105, true;

    /// The hundred-and-sixth independent set (written 2026-12-07 during the eighty-seventh round
    /// by someone who saw neither the sample nor the other sets; judged once on that round's
    /// program, 89 of 169, by someone who did not tune; never read by the tuner, only its
    /// counts reported): a fresh measure of that program.
    the_hundred_and_sixth_visitor_set_gets_the_replies_judged: 106, true;

    /// The hundred-and-seventh independent set (written and judged as set 106 was, 92 of
    /// 171; never read by the tuner).
    the_hundred_and_seventh_visitor_set_gets_the_replies_judged: 107, true;

    /// The hundred-and-eighth independent set (written and judged as set 106 was, 97 of
    /// 170; never read by the tuner).
    the_hundred_and_eighth_visitor_set_gets_the_replies_judged: 108, true;

    /// The hundred-and-ninth independent set (written 2026-12-07, before the ninetieth round, by
    /// someone who saw neither the sample nor the other sets; judged once on the program of
    /// 365d3416, 83 of 167, by someone who did not tune; never read by the tuner, only its
    /// counts reported): a fresh measure of that program.
    the_hundred_and_ninth_visitor_set_gets_the_replies_judged: 109, true;

    /// The hundred-and-tenth independent set (written and judged as set 109 was, 98 of
    /// 168; never read by the tuner).
    the_hundred_and_tenth_visitor_set_gets_the_replies_judged: 110, true;

    /// The hundred-and-eleventh independent set (written and judged as set 109 was, 96 of
    /// 168; never read by the tuner).
    the_hundred_and_eleventh_visitor_set_gets_the_replies_judged: 111, true;
}

/// What was judged sensible (2026-12-03, the eleventh round: every changed reply judged again
/// by a judge who did not tune, only the counts of sets 5–8 reported): the figures may only
/// rise. (In the sixteenth round three fresh sets were written, each judged once untouched and
/// then read: classes of line from sets 9 and 11 (what the price includes, sharing, a meal sent
/// up, the guest's own game, a drink the inn lacks said to be missing, the hours of a place, a
/// wedding, a stare, a secret in more words...) took held-out sets 5–8 and 10 from 95, 80, 96,
/// 94, 79 to 96, 84, 101, 103, 89, and the fresh set 12 measured 89 of 170; classes from set 12
/// (a cart with the beasts, children's food, the hayloft, credit in more words...) took them to
/// 97, 84, 102, 104, 90, and the fresh set 13 measured 97 of 165; classes from set 13 (a
/// temple wedding, his own islands, a saddle, a blanket, herbs, the door barred...) to 99, 88,
/// 104, 108, 91, set 14 measuring 86 of 168; classes from set 14 (the ground floor, soft food,
/// no money, a toll, a bottle...) to 100, 88, 106, 108, 90, and the fresh set 15, never read,
/// measured 100 of 169; the fresh set 16 then measured 102 of 164, and classes from it (a
/// licence, what the town says of the lord, a question asked with a laugh...) took set 8 to
/// 109 and set 10 to 92, set 15 staying at 100; the fresh set 17, judged once on the final
/// program and never read, measured 92 of 168. Set 11 was 76 of 167 before the round.
/// In the fifteenth round each reply's wording began to be drawn by its own action and
/// line, so a mended reading no longer re-words the replies after it: no action changed, 796
/// replies were worded anew and judged again; counts moved by the wording alone, tuning sets
/// −4, −2, +2, −3 and +2 (set 9), held out 0, −1, +3, +2 and −3 (set 10) — the noise every
/// earlier round carried, gone from the rounds after. Then readings of acts mended from set 9's
/// misses (a place asked about on the way is no farewell, a question after a laugh is answered,
/// a fault word before what is ordered describes it, labour offered after a question, cold
/// asked ahead, another who pays, a count that is no distance, a compass word that is no road)
/// changed 37 replies of the tuning sets and 25 held out: set 9 rose by 15, sets 2 and 4 by 1
/// and 2, held out 6, 7, 8 and 10 by 1, 2, 2 and 4; none fell. More of them, from the
/// misses of sets 1–4 and 9 (an insult or work offered is no complaint about the room, a person
/// sought is no room asked for, a thing offered for sale, a watered drink is a cheat, asked
/// about himself, a return after a long time, whether someone is at home) and one wording of
/// the weather that said none, changed 20 tuning-set and 8 held-out replies: sets 1, 3, 4 and 9
/// rose by 2, 2, 1 and 6, held out 5, 6 and 7 by 1, 2 and 1; none fell. The road, named
/// beside the place it leads to, gives way to it ("how far to the capital by the main road"),
/// and a pet asked into the stable is stabled: sets 4 and 9 +1 and +2, set 6 +1, set 10 one
/// up and one down. Goods offered in payment (furs, pepper, tokens), credit till a ship comes
/// back and a hinted cheat: sets 3 and 9 +1 and +4, held out 7 and 8 +2 and +1. A price
/// ceiling, an order of "your strongest", a threat, a secret, "the same room": sets 4 and 9 +1
/// and +2, held out 5, 6 and 10 +1 each. In the fourteenth round, a greeting said back before the answer ("hail, friend.
/// xenos? ..."), a thing refused not served ("wine, not water") and a mention said aside of the
/// question giving way to the one asked about changed 166 replies of the tuning sets (2, 4 and 9
/// rose by 2, 2 and 3) and 186 of the held-out ones: sets 5, 6 and 8 fell by 3, 1 and 1, set 7
/// and set 10 stayed. Most changed replies were the same actions in another of their wordings,
/// the random choice shifted by an earlier greeting: of the held-out verdicts that moved, the
/// rerolls were 9 worse and 2 better, the readings themselves 5 better and 3 worse. In the
/// thirteenth round, 110 things, places and people of the inn and the town, each
/// with the one line he says of it, changed 48 replies of sets 2 and 4–10: sets 6–10 rose by
/// 1, 5, 2, 1 and 1, no count fell; then 44 more, and the parts of lumped places split off (the
/// ferry, the ford), changed 41 replies: sets 4, 6, 7 and 10 rose by 2, 1, 1 and 1. In the
/// twelfth round, numbers said back — "2 mules? ... a dry stall each" — changed
/// 13 replies of sets 3–9; set 7 rose to 82, no other count moved. In the eleventh round, when the bill began to read the tab instead of a fixed "seven
/// silver", sets 7 and 8 first fell by one each, 81 to 80 and 88 to 87, then came back once a
/// room went on the tab only once a stay; the tuning sets rose by two. Set 2 fell
/// from 147 to 146 in the fourth round: a thing named beside the mayor is now answered as that
/// thing, "patron? no, friend", where the mayor was asked about. Set 5 fell from 97 to 96 in the
/// ninth, when synonyms began to count only in the sense their siblings share: tuning sets +3,
/// set 6 unchanged.)
/// The seventeenth round (2026-12-04) wrote five fresh sets at once, 18–22, judged on the
/// program as the sixteenth round left it: 81, 105, 95, 88 and 77 sensible (48.5%–63.3%).
/// Classes of line from sets 18–21 (a room's lock, window, desk, linen and quiet; scented oils;
/// herbs hung to dry; island songs, words and food; the inn's one wine; sick folk and cures; a
/// drover's beasts; market day and prices; the faster road; a shared bath; work elsewhere; a
/// craft for keep; who brews and owns; a bribe; a cot for a maid; more words for a secret, a
/// threat, a stare and praise) and one reading of the runtime (a thing placed "in town" gives
/// way to the thing) took set 22, never read, from 77 to 80. The eighteenth round wrote sets
/// 23–27 (99, 102, 120, 83 and, never read, 109) and mended classes from 23–26 (someone asked
/// after, a tale, why he came, the lord's music, family and whereabouts, a sick child, a fire,
/// scraps, a cheap meal, a stable boy, a message kept, game bought, wildlife, the inn's age, a
/// paper note): set 27 went to 113. The nineteenth wrote sets 28, 29 and 32 (92, 100 and,
/// never read, 90) and mended classes from 28–29 (still open, the lord's business, questions,
/// horse buyers, mulled wine, a cart's days, a greeting before a question about work), and "town"
/// alone became this town, not millbrook ("the next town east" is the capital). At the end, the
/// sets never read: 22 83, 27 114, 32 91; the older held-out sets 5, 6, 7, 8, 10, 15, 17 went
/// from 100, 88, 106, 109, 92, 100, 92 to 102, 98, 106, 117, 100, 103, 100.
/// The twentieth to twenty-fourth rounds (2026-12-04) each wrote three fresh sets at once and
/// judged them once before anyone read them: 30, 31, 33 (101, 89, 94), 34, 35, 36 (103, 103,
/// 112), 37, 38, 39 (89, 99, 109), 40, 41, 42 (110, 109, 97), 43, 44, 45 (105, 104, 102). Each
/// round read and mended the first two and kept the third held out. Classes of line from them
/// (a guest sorry for the trouble, which way a room looks, who built the town, news brought, a
/// wish for the cook, children, a guest's things guarded, an old soldier, tales of the town,
/// vermin, the festival, luck, an early start, a party sent ahead of, an apprentice, not
/// disturbed, the richest folk, the lord's character, clean sheets, homesick, a coach, called a
/// liar...) and one runtime reading ("tea instead of ale" refuses the ale) took the sets never
/// read to 22 89, 27 121, 32 99, 33 101, 36 115, 39 111, 42 99, 45 103, and the older held-out
/// sets 5, 6, 7, 8, 10, 15, 17 from 102, 98, 106, 117, 100, 103, 100 to 105, 105, 109, 120, 100,
/// 108, 106.
/// The twenty-fifth and twenty-sixth rounds (2026-12-05) wrote 46, 47, 48 (100, 109, 119) and
/// 49, 50, 51 (103, 99, 121), mined the first two of each and kept 48 and 51 unread. Two
/// readings moved into the runtime: an order of three things keeps all three (the tracker rule
/// `MentionThirdLast`), and a concept's word right before another's only says which ("a meat
/// pie", "your strongest wine"). With classes of line from 46, 47, 49 and 50 (honey with the tea,
/// a bowl that is the stew, a cloak dried, a light supper, the next inn, the day, a hangover, a
/// guest about to be sick...) the sets never read went to 22 90, 27 122, 32 101, 33 103, 36 116,
/// 39 114, 42 101, 45 103, 48 121, 51 121, and the older held-out sets 5, 6, 7, 8, 10, 15, 17 to
/// 105, 105, 111, 121, 102, 108, 108.
/// The twenty-seventh round wrote 52, 53, 54 (122, 112 and, never read, 100) and mended
/// classes from 52 and 53 (whether the river is safe for children, what children pay, how many
/// live in the capital, a guest beaten by his master, other guests staying, a guest book, a
/// fresh horse...): the sets never read went to 22 91, 27 122, 32 102,
/// 33 103, 36 118, 39 114, 42 102, 45 103, 48 123, 51 122, 54 100, the older held-out sets 5, 7,
/// 8, 15, 17 to 105, 110, 122, 108, 109.
/// The twenty-eighth round wrote 55, 56, 57 (113, 114 and, never read, 109) and mended classes
/// from 55 and 56 (a regular's usual, one more for a friend, a haggle that names no price, the
/// rooms compared, a sick one mending, a thing kept quiet, paying on the way out); the runtime
/// reads an order on past its question mark ("broth for her? and water"), `check` warns of
/// alternatives written as phrases (twelve such patterns in the sample had never matched), and
/// the well, smith, temple, river, lord and market say more. Sets 3, 9 and 45 fell by one each
/// (a tenth off offered, then halfway met, or offered against pelts); the sets never read went to
/// 22 94, 27 123, 32 102, 33 104, 36 119, 39 114, 42 103, 45 102, 48 125, 51 122, 54 100, 57 109,
/// the older held-out sets 5, 6, 7, 8, 10, 15, 17 to 105, 105, 111, 123, 103, 109, 109.
/// The twenty-ninth round wrote 58, 59, 60 (124, 117 and, never read, 104) and mended classes
/// from 58 and 59 (the gods he prays to, children who would see the horses, river fish on the
/// menu, the kinds of rooms, a ceiling named in a haggle, a stable bed for work, the lord's
/// daughter, a purse lost, a horse that threw its rider, a table for three, "off i go"...); the
/// forest names its bandits, and `phrase-alternative` learned the contraction before a list
/// (`you're|you are|ur`); a second pass judged the replies of a fish question answered at last.
/// Sets 7 (held out), 20, 34 and 35 fell by one each; the sets never read went to 22 95, 27 124,
/// 32 103, 33 104, 36 123, 39 114, 42 103, 45 103, 48 127, 51 122, 54 102, 57 109, 60 106, the
/// older held-out sets 5, 6, 7, 8, 10, 15, 17 to 106, 106, 110, 123, 104, 109, 109.
/// The thirtieth round wrote 61, 62, 63 (113, 107 and, never read, 101) and mended classes
/// from 61 and 62 (a seat for the weary, his island's name and food, how the road is, a back way
/// off the main road, bounties, "you've heard of me?", a healer sent for, a night more, a family
/// room, "and one for my friend" served twice, the inn not for sale...); the thirty-first wrote
/// 64, 65, 66 (126, 112 and, never read, 107) and mended classes from 64 and 65 (a jail, work in
/// the capital, famous guests, a wager, what he was before, kin he cannot know, a letter written,
/// a hungry guest fed, "don't play dumb"...). From this round on a judge also judged again a
/// later row that a changed reply now contradicts (the family room's "little ones half" against
/// a later "five silver" or a free child's bed): tuning sets 41, 52, 58, 59 and 64 lost six rows
/// so, and the held-out sets 36, 45, 48, 54 and 66 had seven such rows judged again. The sets
/// never read went to 22 101, 27 126, 32 103, 33 105, 36 126, 39 114, 42 103, 45 105, 48 127, 51
/// 126, 54 103, 57 109, 60 108, 63 104, 66 108, the older held-out sets 5, 6, 7, 8, 10, 15, 17 to
/// 108, 107, 110, 124, 106, 112, 110.
/// The thirty-second round wrote 67, 68, 69 (118, 112 and, never read, 118) and mended classes
/// from 67 and 68 (bags carried up, pelts sent to the tanner, the way to a guest's room, the
/// toughest and the oldest in town, other foreigners, a letter for the lord, a bed for a few
/// hours, fairs and feasts coming, the tax man's threat, prayer times, a healer needed, a weak
/// stomach...); `check` warns of a negated match among a `Max`'s alternatives
/// (`negated-alternative`). Set 64 fell by one; the sets never read went to 22 103, 27 127, 32
/// 104, 33 106, 36 127, 39 115, 42 104, 45 105, 48 127, 51 126, 54 103, 57 109, 60 108, 63 104,
/// 66 109, 69 120, the older held-out sets 5, 6, 7, 8, 10, 15, 17 to 108, 108, 113, 128, 107,
/// 112, 112.
/// The thirty-third round wrote 70, 71, 72 (104, 100 and, never read, 107) and mended classes
/// from 70 and 71 (the inn's name, who taught the cooking, loud guests hushed, prayers thanked,
/// grief heard, marriage advice, a namesake, dogs by the fire, hunting rights, fresh bread, where
/// his islands lie, sunrise...); a refusal reaches over `or`, and `Mention` binds the last thing
/// named when a kind follows. The children's prices were worded to agree; the judges caught the
/// first wording contradicting the rates, and a second pass judged the second. Sets 31 and 61
/// (tuning) and 51 (held out) fell by one each: the rates given, not a family's total (31, 61).
/// The sets never read went to 22 103, 27 127, 32 104, 33 109, 36 128, 39 117, 42 105, 45 105,
/// 48 128, 51 125, 54 105, 57 110, 60 108, 63 104, 66 109, 69 121, 72 108, the older held-out
/// sets 5, 6, 7, 8, 10, 15, 17 to 109, 108, 113, 129, 109, 113, 113.
/// The thirty-fourth round wrote 73, 74, 75 (86, 106 and, never read, 73) and mended classes
/// from 73 and 74 (what becomes of guests who do not pay, a floor cleared for a party refused, a
/// quiet table for one who will not dine with everyone, children minded, a hired hand's chores,
/// the salt pot, the smith's hours, who reads in town, a blessing on the house, no names of
/// grumblers, smugglers on the river, where the river floods...); a cot priced as the rates say,
/// the festival "in two weeks" everywhere, and `check` warns of a negated word with the stem of a
/// required one (`negated-stem`: `Not(Match("unfair|fairly"))` had kept every fair from being
/// asked about). Sets 23 (good news with thanks answered as news when the guest was leaving), 29
/// (the forest road's floods answered with the river road's) and 61 (a tax claim answered, "you
/// the owner?" not) fell by one each; the sets never read went to 22 103, 27 128, 32 105, 33
/// 110, 36 128, 39 118, 42 105, 45 105, 48 129, 51 125, 54 106, 57 113, 60 108, 63 106, 66 110,
/// 69 121, 72 109, 75 73, the older held-out sets 5, 6, 7, 8, 10, 15, 17 to 109, 109, 114, 129,
/// 110, 114, 114. Sets 76, 77, 78, written after the round and judged once on its final program
/// (one reply of 76 changed after, its verdict kept), never read: 101 of 170, 91 of 165, 110 of
/// 169.
/// The thirty-fifth round wrote 79, 80, 81 (86, 95 and, never read, 111) and mended classes from
/// 79 and 80 (chat shorthand: "nite", "hw much", "ale 2", "feed+water", "r u"; what the temple
/// keeps to, herbs and where they grow, the inn's age by year, hunting in the lord's forest, a
/// bard's introduction not refused singing, songs for a bed, no knocking in the morning, a cut
/// hand, the islands' warmth...). Set 3 fell by one (a line whose reply changed and changed back
/// was judged afresh: "the year? me lose count" to a question of last year's takings, wrong this
/// time); sets 10 and 57 (held out, counts only) fell by one each. The sets never read went to 22
/// 103, 27 128, 32 105, 33 110, 36 128, 39 119, 42 108, 45 105, 48 130, 51 125, 54 106, 57 112, 60
/// 108, 63 106, 66 112, 69 121, 72 110, 75 75, 76 102, 77 94, 78 111, 81 111, the older held-out
/// sets 5, 6, 7, 8, 10, 15, 17 to 111, 109, 114, 129, 109, 114, 114. Sets 82, 83, 84, written
/// after the round and judged once on its final program, never read: 101 of 167, 107 of 167, 117
/// of 172.
/// The thirty-sixth round wrote 85, 86, 87 (76, 122 and, never read, 80) and mended classes
/// from 85 and 86 (a price asked after the best room is its six silver; where to get things
/// mended, whether the well water is safe, a market stall's fee; "a bit of", "mark my words",
/// "foreigners" and a dog no longer read as coin or insult; "ill pay" is not sickness; a slip one
/// letter from two known words is read as the one that names a thing, "wether" the weather;
/// "nothing with meat" refuses the meat; and `check` found seven phrase traps that had never
/// matched). Sets 8, 57 and 76 (held out) fell by one each; of set 8 the one changed row was seen
/// by mistake while counting (a trade of pelts for a room now offered the room) and left as it is.
/// The sets never read went to 22 103, 27 128, 32 105, 33 112, 36 128, 39 119, 42 108, 45 105, 48
/// 130, 51 125, 54 106, 57 111, 60 108, 63 106, 66 114, 69 121, 72 110, 75 76, 76 101, 77 95, 78
/// 112, 81 112, 82 101, 83 107, 84 120, 87 82, the older held-out sets 5, 6, 7, 8, 10, 15, 17 to
/// 112, 110, 114, 128, 109, 114, 115. Sets 88, 89, 90, written before the round's tuning and
/// judged once on its final program, never read: 97 of 169, 99 of 168, 108 of 166.
/// The thirty-seventh round wrote 91, 92, 93 (90, 117 and, never read, 97) and mended classes
/// from 91 and 92 (a laughing tag after a question is its tone, not a joke; robbery on the road
/// is no haggling; work in the kitchen or stable asked; a wake call after "no more."; threats to
/// wreck or burn the place; a bare "a room" asks one; "I'm going to X" told is no way question;
/// a guest robbed is a misfortune; the bench by the fire; a dish without milk or eggs; a count a
/// few words before its dish, "six bowls of whatever stew"). Sets 36, 57 and 63 (held out) fell
/// by one each; the sets never read before it went to 5 112, 6 111, 7 114, 8 128, 10 111, 15 115,
/// 17 115, 22 104, 27 128, 32 106, 33 113, 36 127, 39 120, 42 109, 45 105, 48 130, 51 125, 54
/// 106, 57 110, 60 108, 63 105, 66 115, 69 121, 72 110, 75 76, 76 102, 77 97, 78 113, 81 113, 82
/// 104, 83 109, 84 120, 87 83, 88 97, 89 99, 90 108; set 93 stayed at 97. Sets 94, 95, 96,
/// written before the round's tuning and judged once on its final program, never read: 109 of
/// 167, 113 of 166, 115 of 170.
/// The thirty-ninth round wrote no sets: a yes/no question about what someone else does ("does
/// the temple take in boys?") is a detail he does not claim to know. Sets 75, 82, 84, 93 and 96
/// (never read) rose by one each to 77, 105, 121, 98, 117; none fell. Sets 12 and 31 lost a line
/// each, where the description then given answers the question.
/// The fortieth and forty-first rounds wrote no sets: the next town north, south or east told
/// as what lies that way; "another one" is more of what was served last; praise of the house in
/// more words; beasts said to be outside stabled; a steward's lady arriving made ready for. Sets
/// 36, 45, 51, 78, 81, 83, 84, 96 (never read) rose by one each and 66 by two; none fell. Read
/// set 86 lost one. A judge's report quoted rows of held-out sets 42, 54 and 57; those rows
/// count as seen.
/// The forty-second round put what he knows before "more than that me not know" (it used to say
/// it did not know and then, often, the answer): sets 45, 66, 98 rose by one, 99 fell by one
/// (never read); read set 35 lost one.
/// The forty-third round told what there is of one kind with its price: sets 33, 54, 57, 69, 76,
/// 83, 89 rose by one, 75 fell by one (never read); read sets 3 and 55 lost one each.
/// The forty-fourth round asked whether the water is hot of the bath: sets 5, 51, 63, 76, 77, 81,
/// 89 rose by one (never read); none fell.
/// The forty-fifth and forty-sixth rounds: a yes/no question about what a place or person is
/// like gets what he knows, then where his knowing ends; an order for one kind is served with
/// what there is of it. Sets 10, 22, 27, 42, 66, 77, 88, 90, 94 rose by one, 96 fell by one
/// (never read); read sets 1, 25 and 29 lost one each.
/// The forty-seventh round named the price of the room offered when asked what it includes; a
/// question after one thing of his islands gets that he does not remember it for sure; a "what"
/// he cannot place gets that he does not know. Sets 27, 32, 54, 63, 69, 89, 94, 95 rose by one,
/// 15 and 99 fell by one (never read); no read set fell.
/// The forty-eighth round served "that, and a cup of wine" whole, stalled a biter apart, looked at
/// a lame beast, stabled a carriage as a cart and took a bare "night" for a goodnight: sets 5,
/// 15, 39, 51, 57, 76, 78, 84, 90, 93, 96 rose by one, 32 and 54 by two, 8, 66 and 87 fell by one
/// (never read); no read set fell.
/// The forty-ninth round priced "that one" as the room offered, told a few coppers what food they
/// buy and gave a tenth off for a plea with no sum: sets 33, 57, 76 rose by one, 54 by two, 5 and
/// 77 fell by one (never read); no read set fell.
/// The fiftieth round reassured a bare plea: sets 39, 45, 51 rose by one, 63 and 87 fell by one
/// (never read); no read set fell.
/// The fifty-first to sixty-second rounds mended the tab (what he agreed to at a price, no beast
/// counted twice), paying and lending, a sought one's way, what one of the town is like, a
/// robbery on the road, lodging a party, a trade's welcome, a remark on his being foreign, who
/// rode through today and a few small classes: sets 6, 7, 32, 63, 66, 72, 75, 76, 82, 89, 96,
/// 100, 102 rose by one, 10, 33, 48, 57, 78, 81, 88, 98 by two, 27, 45, 54, 60 by three, 94 by
/// four; 17, 22 and 83 fell by one (never read); no read set fell.
/// The sixty-third to sixty-eighth rounds answered lines that tell rather than ask (a fault of
/// the house, news by its tone, more coin offered), whatever is hot, a name never heard, another
/// guest, a seat, the place last named, what he ever did or likes, what is free, a look minded,
/// only asking, trust, stepping out: sets 32, 33, 36, 42, 45, 60, 75, 76, 77, 84, 87, 88, 90,
/// 95, 96, 98, 100, 101, 102 rose by one, 48, 54 and 63 by two; 39 and 81 fell by one (never
/// read); no read set fell.
/// The sixty-ninth to seventy-first rounds answered what follows a greeting that opens a line
/// which asks, stopped greeting a "hey" or "oi" deep in the evening, lodged a party or welcomed
/// dogs told at the door, served a red asked by the cup and told the miles: sets 5, 39, 51, 75,
/// 82, 88 rose by one, 87 and 93 fell by one (never read); read set 64 fell by one (a row of
/// round 69) and 71 by one (a judge made similar rows' verdicts agree).
/// The seventy-second round denied watered ale, took kind words about him warmly, saw off thanks
/// with a leaving and served an order said again: sets 17, 22, 63, 66, 93, 94, 100 rose by one,
/// 83 by two (never read); no read set fell.
/// The seventy-third and seventy-fourth rounds took a threat called a joke warily, saw off a
/// guest who comes back, promised a goodnight's errand, thanked praise beside a good evening, put
/// a sorry ahead at ease and lodged a mother with her little ones: sets 45, 60 rose by two, 33,
/// 87 by three, 48, 63, 72, 75, 77, 81 by one; 6 and 84 fell by one (never read); read sets 4
/// and 85 fell by one.
/// The seventy-fifth round answered the ask after an opening thanks: read set 49 rose by one.
/// The seventy-sixth to seventy-ninth rounds read a destination by its role ("how far to the
/// temple, and is the way hilly?") and mended readings for paraphrases of read lines: sets 27,
/// 36, 39, 42, 75, 81, 94 rose by one, 82 by two; 90 fell by two and 101 by one (never read); read
/// sets 25, 26, 31, 44, 74, 79 rose by one, 85 by three.
/// The eightieth round mended more readings for paraphrases: sets 45, 54, 60, 72, 97, 99 rose
/// by one, 101 fell by one (never read); read sets 28, 29, 44 rose by one.
/// The eighty-second round answered "is there X in the Y?" and "can we do X on the Y?", where
/// X is no place or person he knows, as a detail of the place: sets 5, 33, 57, 75, 81, 89, 100
/// rose by one, 87 by two; 78 fell by one (never read); read sets 14 and 46 rose by one, 67 fell
/// by one ("a pretty walk by the river" lost the way there).
/// The eighty-third round kept bed and supper agreed for work or songs (a room, the hay or the
/// hearth asked for afterwards is free), put a bath asked for with its details on the tab,
/// described the best room or the loft when that was the room offered, and told the stable boy
/// asked after from a stall: sets 5, 7, 17, 33, 36, 39, 45, 63, 69, 75, 78, 82, 94, 101 rose by
/// one, 8, 15, 22, 57, 60, 88, 89 by two, 51 by three; 10 and 87 fell by one (never read); read
/// sets 4, 11, 13, 14, 18, 20, 23, 30, 35, 40, 44, 46, 59, 61, 62, 68, 92 rose by one, 37, 41,
/// 47, 56, 58, 80 by two, 65 and 67 by three.
/// The eighty-fourth round gave a hand's wage for "what does it pay", not the mayor's reward;
/// read who rules only where the town or land is meant; told the weather "this time of year" as
/// it is now; priced two and three nights beside the week; took a map the traveller draws for no
/// map asked for; and kept the town's description, the inn's locks and the weather's small talk
/// to lines about them: sets 5, 7, 22, 27, 45, 69, 72, 88, 94 rose by one (never read); read sets
/// 2, 3, 4, 9, 21, 26, 41, 43, 53, 55, 65, 92 rose by one, 12, 34, 35, 64 by two. None fell.
/// The eighty-fifth round answered a bath asked for with rose oil or scented water with what the
/// bath has, defended his prices without a bed and breakfast or a call for an offer, and took
/// paying later for credit, not for too little coin: sets 48, 95, 100 rose by one, 39 fell by one
/// (never read); read sets 23, 31, 35, 44, 56, 61, 62, 74, 91 rose by one.
/// The eighty-sixth round first measured three fresh sets, 103–105, written that day (82, 97 and
/// 90 of 170, 169 and 168 on the eighty-fifth round's program), then read them: thanks for Marta's
/// cooking went to Marta, a sum was no town square, a quiet room, water to wash, what is owed, why
/// the inn has its name, the stable locked at night, tonight paid now, and a question after one
/// detail of a place or person answered as such: sets 10, 36, 69, 75, 77, 87, 98 rose by one, 5,
/// 54, 99, 101, 102 by two, 42 by three; 7, 83, 95 fell by one (never read); read sets 1, 16, 20,
/// 21, 28, 35, 43, 47, 49, 53, 56, 58, 61, 67, 73, 79, 86 rose by one, 13, 80 by two, 105 by
/// five, 103 by seven, 104 by eight; 2 fell by one.
/// The eighty-seventh round read more kinds of line from sets 103–105: a room asked for with
/// stalls and a cart's place gets all three, gossip asked for a song is a rumour, the market
/// tomorrow is the market day, a joke from his islands is a joke, where a drink is from and what
/// is in a dish are answered, a favour "if it is not too much trouble" is no haggle, "i'd be
/// grateful for a bed" is a request, and "here is what i have" is paid: sets 7, 10, 42, 45, 76,
/// 77, 87, 89, 96, 100, 101, 102 rose by one, 81, 98 by two, 72 by three; 15 fell by one (never
/// read); read sets 41, 52, 56, 62 rose by one, 21, 103 by two, 105 by three, 104 by four; 49 and
/// 86 fell by one.
/// The eighty-eighth round read "green" as a colour, not greens, songs or kitchen work offered
/// for supper as such, "if you don't have one" as no question of unpaid guests, and "cheap" said
/// of the lord as no question of the cheapest dish: sets 36, 60, 66, 76, 89, 90 rose by one, 88
/// and 98 fell by one (never read); read sets 38, 104 rose by one, 105 by four; 13 fell by one
/// (its "greens" are no longer read: "greens" and "green" share a stem).
/// The eighty-ninth round read "don't water it", "weak as water" and "i can taste the river in
/// it" as a complaint of watered ale, not an order of water: sets 15, 87, 90, 98 rose by one
/// (never read); read sets 71, 103 rose by one.
/// After it three more fresh sets, 109–111, were written and judged once on its program (83, 98
/// and 96 of 167, 168 and 168); they are never read.
/// The ninetieth round read, from sets 103–105, a noise in the house, a thing lost at the inn, a
/// bath wanted another day, a round for one's own table, a guest who wronged the speaker, a
/// weapon put away, a fault of the room asked about, a guest who asks to be remembered or whether
/// he was here long ago, sums with "times", and the thing asked for right after "do you have"
/// (a word that gives way to the noun after it, "writing paper", is read past): sets 83, 98, 100,
/// 102, 106, 108 rose by one, 90, 93, 99, 111 by two, 97 by three, 107 by four (never read); read
/// sets 13, 26, 44 rose by one, 105 by eight, 104 by eight, 103 by thirteen; 47 and 79 fell by
/// one.
/// The ninety-first round read paying later "in the morning", "tomorrow" or "when i leave" as
/// paying before leaving, an order "on my tab" as an order, "what's on my tab" as the bill, rooms
/// for a party, a bed kept for one who comes later, the same room as before, the quietest room,
/// "no room needed", one more before bed and who took a thing: sets 54, 57, 76 rose by one, 63
/// by two, 66 by three; 82, 84, 95 fell by one, 27 by two (never read); read sets 4, 9, 20, 24,
/// 25, 26, 34, 41, 44, 50, 53, 61, 74, 80, 104 rose by one, 18 by two; 73 and 105 fell by one.
/// The ninety-second round poured the drink again for "one more" after a plate and a drink,
/// served honey asked with milk or water, and answered which way the river runs and where the
/// roads lead: sets 39, 57, 78, 88, 96, 97, 99, 111 rose by one, 95 and 108 by two; 109 fell by
/// one (never read); read sets 21, 23, 28, 30, 35, 49, 56, 59, 62, 79, 103 rose by one.
/// The ninety-third round read "do you have x, or only y?" as a question of the menu, an
/// arm-wrestle for the drinks as a wager, and "i'm strong" as no order: set 75 rose by one (never
/// read); read sets 46, 50 rose by one.
/// The ninety-fourth round forgave an apology said on the way to bed with a good night, took a
/// musician's share of the hat, gave help with a named task, passed a word on to the other
/// guests, told what his own name means, took any good coin with what is owed, sent work in town
/// to the market and the harvest, let a laugh before a question not swallow it, kept the first
/// part of a question that goes on after a pause, counted beasts past a word that says which,
/// and mended readings (a place by the fire is no arson, a window facing is no face, "just
/// kidding" is no order): sets 6, 36, 45, 51, 54, 66, 69, 75, 88, 96, 100, 110 rose by one, 107
/// and 109 by two; 22, 33, 39, 81, 87, 108 fell by one (never read); read sets 9, 13, 14, 16, 19,
/// 20, 25, 28, 34, 35, 41, 44, 53, 58, 59, 64, 68, 70, 80 rose by one, 26 and 31 by two, 103 by
/// four, 104 by five, 105 by ten.
/// The ninety-fifth round said which way the rooms face, named the quickest food, a special
/// supper, the dishes besides the stew, the dearest thing, the crown's post house and the common
/// meadow for grazing, and took no share of the hat before the playing: sets 33, 39, 42, 81, 83,
/// 84, 87, 97, 98, 99, 101, 102, 106 rose by one, 107 by two; 110 fell by one (never read); read
/// sets 18, 26, 28, 37, 41, 53, 55, 65, 74, 79, 80, 91 rose by one, 104 and 105 by two; 19 fell
/// by one.
/// The ninety-sixth round read "where would a thief sell stolen goods?" as no way to a place
/// (what he knows of the one named, then where his knowing ends), let the kitchen cook a dish
/// asked for, and stopped "you ... islands" reading as "you islander": sets 7, 32, 45, 75, 90
/// rose by one (never read); read sets 1, 12, 18, 31, 46, 49, 50 rose by one.
/// The ninety-seventh round brought fresh towels asked for and told how soon the bath is hot:
/// sets 5, 97, 102 rose by one, 101 fell by one (never read); read sets 4, 21, 23, 29, 40 rose
/// by one, 46 fell by one, 52 by two (each row judged twice, the stricter verdict kept).
/// The least each set may be judged sensible, sets 1 to 111 in order.
const SENSIBLE: [usize; 111] = [
    151, 156, 147, 132, 120, 112, 118, 129, 142, 115, 143, 142, 143, 138, 117, 141, 116, 140, 140,
    139, 133, 107, 141, 129, 147, 129, 133, 128, 131, 132, 134, 112, 123, 138, 137, 134, 125, 126,
    126, 143, 142, 118, 138, 135, 120, 132, 139, 136, 137, 128, 134, 145, 131, 122, 144, 145, 120,
    147, 141, 118, 141, 140, 114, 149, 135, 125, 141, 137, 127, 135, 133, 117, 116, 142, 87, 111,
    102, 118, 111, 136, 121, 109, 113, 123, 95, 142, 88, 106, 109, 114, 121, 136, 101, 119, 116,
    123, 82, 106, 87, 100, 94, 89, 110, 126, 121, 91, 100, 99, 84, 98, 99,
];

/// What set `n` (1-based) was judged sensible at least.
const fn sensible(n: usize) -> usize {
    SENSIBLE[n - 1]
}

#[test]
fn the_visitor_is_answered_every_line_without_holes() {
    let (understood, lines) = every_line_answered("samples/innkeeper/transcripts/visitor.txt");
    eprintln!("visitor: {understood}/{lines} lines answered by more than the catch-all");
    // The sample was grown on this conversation: every line has a handler of its own.
    assert_eq!(understood, lines);
}

#[test]
fn the_held_out_visitor_is_answered_every_line_without_holes() {
    let (understood, lines) = every_line_answered("tests/fixtures/innkeeper/visitor-heldout.txt");
    eprintln!("held-out visitor: {understood}/{lines} lines answered by more than the catch-all");
    // 12 of 12 when the sample grew (BENCHMARKS.md); a few may fall to the catch-all, not more.
    assert!(understood * 4 >= lines * 3, "{understood}/{lines}");
}

/// The scripted conversation the sample was first written for still gets a reply to every
/// line, and none with a hole.
#[test]
fn the_first_script_is_still_answered() {
    every_line_answered("samples/innkeeper/transcripts/xenos.txt");
}

/// "what time is breakfast?" after talking about the mayor: the reply is about breakfast, or
/// asks what is meant — never the mayor.
#[test]
fn an_old_topic_is_not_answered_to_a_new_question() {
    for (old, new) in [
        ("where is the mayor?", "what time is breakfast?"),
        ("i need to find the smith", "what is that noise?"),
        ("where is the temple?", "heard any news?"),
    ] {
        let exchanges = talk(&format!("{old}\n\n{new}\n"));
        let last = exchanges.last().unwrap();
        assert_eq!(last.line, new);
        let stale = old.split_whitespace().last().unwrap().trim_end_matches('?');
        for (_, _, text) in &last.replies {
            assert!(
                !text.contains(stale),
                "`{new}` after `{old}` was answered `{text}`"
            );
        }
        assert!(!last.replies.is_empty(), "`{new}` got no reply");
    }
}

/// The innkeeper sample compiled from `dir` (the sample itself when `None`).
fn innkeeper(dir: Option<&std::path::Path>) -> std::sync::Arc<ensemble_runtime::Program> {
    let path = dir.map_or_else(
        || repo_path("samples/innkeeper").into(),
        |d| d.to_path_buf(),
    );
    let c = ensemble_compiler::compile_path(&path).unwrap();
    let errors: Vec<&str> = (c.diagnostics.iter())
        .filter(|d| d.severity == ensemble_compiler::diag::Severity::Error)
        .map(|d| d.message.as_str())
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    std::sync::Arc::new(c.output.expect("the innkeeper compiles").0)
}

/// Says `line` to the conversation and returns what the agent says back, joined.
fn reply(chat: &mut ensemble_runtime::hpmm::ChatScene, line: &str) -> String {
    chat.hear(Some(ensemble_runtime::hpmm::Input::player(line)));
    let mut said = Vec::new();
    loop {
        chat.step();
        if let Some(out) = chat.last_output()
            && !out.text.is_empty()
        {
            said.push(out.text.clone());
        }
        if chat.awaits_player() {
            return said.join(" / ");
        }
    }
}

/// How many paraphrases of `tests/fixtures/innkeeper-paraphrases` are read as their line is
/// (see `paraphrases_of_sensible_lines_are_read_as_the_lines_are`): 442 of 720 when they were
/// written (the sample of e05ee074), before any reading was mended for them; 532 after the
/// seventy-ninth round, 562 after the eightieth, 570 after the eighty-first, 571 after the
/// eighty-second.
const PARAPHRASES_READ_ALIKE: usize = 571;

/// What the reply to `line`, said after `before` in a new evening, does: its last action,
/// without the `-again` of a second wording (`greet+tell-distance` is `tell-distance`).
fn read_as(
    program: &std::sync::Arc<ensemble_runtime::Program>,
    before: &[String],
    line: &str,
) -> String {
    let mut chat = ensemble_runtime::hpmm::ChatScene::new(program.clone(), "chat", 7).unwrap();
    let mut last = String::new();
    for said in before.iter().map(String::as_str).chain([line]) {
        chat.hear(Some(ensemble_runtime::hpmm::Input::player(said)));
        last.clear();
        loop {
            chat.step();
            if let Some(out) = chat.last_output()
                && let Some(&a) = out.actions.last()
            {
                last = chat.agent().action_name(a).to_string();
            }
            if chat.awaits_player() {
                break;
            }
        }
    }
    last.strip_suffix("-again").unwrap_or(&last).to_string()
}

/// Paraphrases of sensible lines (issue 30): 360 lines of the tuning sets, each said again in
/// two other wordings by a writer who saw only the lines and their intents. A paraphrase said
/// where its line was said is read as the line is, or the innkeeper only knows the wordings it
/// was tuned on; the count that are is a floor (tuning material, not a held-out measure).
#[test]
fn paraphrases_of_sensible_lines_are_read_as_the_lines_are() {
    let program = innkeeper(None);
    let fixture = transcript("tests/fixtures/innkeeper-paraphrases/paraphrases.tsv");
    let (mut alike, mut total) = (0, 0);
    let mut read: std::collections::HashMap<usize, Vec<Vec<String>>> = Default::default();
    for row in fixture
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = row.split('\t').collect();
        let (set, number): (usize, usize) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        // The line's evening up to it: what was said before it. Each set is read once.
        let set_evenings = read
            .entry(set)
            .or_insert_with(|| evenings(&transcript(&format!("{}/evenings.txt", set_dir(set)))));
        let mut seen = 0;
        let mut before: Vec<String> = Vec::new();
        for evening in set_evenings.iter() {
            if seen + evening.len() >= number {
                before = evening[..number - seen - 1].to_vec();
                assert_eq!(evening[number - seen - 1], f[2], "set {set}, line {number}");
                break;
            }
            seen += evening.len();
        }
        let as_line = read_as(&program, &before, f[2]);
        for paraphrase in &f[3..5] {
            total += 1;
            alike += usize::from(read_as(&program, &before, paraphrase) == as_line);
        }
    }
    assert_eq!(total, 720);
    eprintln!("{alike} of {total} paraphrases read as their line");
    assert!(
        alike >= PARAPHRASES_READ_ALIKE,
        "{alike} of {total} paraphrases read as their line (at least {PARAPHRASES_READ_ALIKE})"
    );
}

/// The tab (issue 30, eleventh round): what Xenos serves and lets goes on `the-tab`, the bill
/// says it and what it comes to, payment empties it, and a savegame keeps it.
#[test]
fn the_bill_says_what_was_had_and_what_it_comes_to() {
    use ensemble_runtime::hpmm::ChatScene;
    use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
    let program = innkeeper(None);
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    reply(&mut chat, "i need a room for the night");
    reply(&mut chat, "a bowl of stew and a mug of ale please");
    reply(&mut chat, "another ale");
    assert_eq!(
        chat.agent().tally("the-tab").unwrap(),
        [("room", 1), ("stew", 1), ("ale", 2)]
    );
    let bill = reply(&mut chat, "what do i owe you");
    // Room 50, stew 3, two ales 4 copper; ten copper to the silver.
    assert!(bill.contains("5 silver and 7 copper"), "{bill}");
    // Saved and restored mid-evening: the same bill, in French too.
    let mut w = SnapshotWriter::new(&program, "inn");
    chat.save(&mut w);
    let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
    let (mut restored, report) = ChatScene::restore(program.clone(), &snapshot).unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    assert_eq!(
        restored.agent().tally("the-tab"),
        chat.agent().tally("the-tab")
    );
    restored.set_locale(Some("fr")).unwrap();
    let facture = reply(&mut restored, "what do i owe you");
    assert!(facture.contains("5 argent et 7 cuivre"), "{facture}");
    // Paid: the tab is empty, and the next bill says there is nothing on it.
    reply(&mut chat, "here you go");
    assert_eq!(chat.agent().tally("the-tab").unwrap(), []);
    assert_eq!(chat.agent().binding("the-tab"), None);
    let nothing = reply(&mut chat, "what do i owe now");
    assert!(
        !nothing.contains("silver") && !nothing.contains("copper"),
        "{nothing}"
    );
    // A room quoted, then taken: it goes on the tab once.
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    reply(&mut chat, "how much for a room?");
    reply(&mut chat, "fine, i'll take it");
    assert_eq!(chat.agent().tally("the-tab").unwrap(), [("room", 1)]);
    // The cheapest bed taken is the loft, at its own price (thirty-eighth round).
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    reply(&mut chat, "what's your cheapest bed?");
    reply(&mut chat, "fine, i'll take it");
    assert_eq!(chat.agent().tally("the-tab").unwrap(), [("loft-bed", 1)]);
    let bill = reply(&mut chat, "what do i owe you");
    assert!(bill.contains("2 silver") && bill.contains("loft"), "{bill}");
    // A room offered, then the best room taken: one best room, not a room and a best room.
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    reply(&mut chat, "i need a room for the night");
    reply(&mut chat, "actually, your best room");
    assert_eq!(chat.agent().tally("the-tab").unwrap(), [("best-room", 1)]);
    // Offered, described, quoted and taken: still one room on the tab.
    let mut chat = ChatScene::new(program, "chat", 7).unwrap();
    for line in [
        "do you have a room for the night?",
        "is it a quiet room with a window?",
        "how much for the night?",
        "fine, i will take it",
    ] {
        reply(&mut chat, line);
    }
    assert_eq!(chat.agent().tally("the-tab").unwrap(), [("room", 1)]);
}

/// Quantities (issue 30, twelfth round): a number heard before a thing ("two ales", "a couple
/// of pies", "3 mugs of ale") is said back by the wordings that read `.quantity` and put on the
/// tab as many times; a savegame and a hot reload taken between the order and the serving keep
/// it.
#[test]
fn a_number_heard_with_a_thing_is_said_back_and_put_on_the_tab() {
    use ensemble_runtime::hpmm::{ChatScene, Input};
    use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
    let program = innkeeper(None);
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    let served = reply(&mut chat, "two ales please");
    assert!(
        served.ends_with("2 mugs of ale, cold from the cellar"),
        "{served}"
    );
    let served = reply(&mut chat, "the stew and 3 mugs of ale");
    assert!(
        served.ends_with("a bowl of mutton stew, and 3 mugs of ale, cold from the cellar"),
        "{served}"
    );
    let stabled = reply(&mut chat, "i have two mules, can you stable them");
    assert!(stabled.starts_with("2 mules?"), "{stabled}");
    // "one ale" is an ale: no number is said, one goes on the tab.
    let one = reply(&mut chat, "one ale");
    assert!(one.ends_with("a mug of ale, cold from the cellar"), "{one}");
    assert_eq!(
        chat.agent().tally("the-tab").unwrap(),
        [("ale", 6), ("stew", 1), ("mule", 2)]
    );
    // Six ales 12, the stew 3, two stalls 20 copper.
    let bill = reply(&mut chat, "what do i owe you");
    assert!(bill.contains("3 silver and 5 copper"), "{bill}");
    // A measure that names a kind is read past; a number belongs to its own line and ends at
    // "and", "a", "one".
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    let served = reply(&mut chat, "two bowls of stew");
    assert!(served.ends_with("2 bowls of mutton stew"), "{served}");
    let served = reply(&mut chat, "six bowls of whatever stew you have");
    assert!(served.ends_with("6 bowls of mutton stew"), "{served}");
    reply(&mut chat, "same again");
    reply(&mut chat, "stew for two, and an ale");
    reply(&mut chat, "two, no, one ale");
    assert_eq!(
        chat.agent().tally("the-tab").unwrap(),
        [("stew", 10), ("ale", 2)]
    );

    // Saved after the order was heard, before it was served: the restored evening serves as
    // many, in French too, and a hot reload in between carries the number as well.
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    chat.hear(Some(Input::player("a couple of pies")));
    chat.step();
    assert!(
        (chat.agent().situation().iter()).any(|(v, held)| *v == "the-dish" && held == "2 pie"),
        "{:?}",
        chat.agent().situation()
    );
    let mut w = SnapshotWriter::new(&program, "inn");
    chat.save(&mut w);
    let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
    let (mut restored, report) = ChatScene::restore(program.clone(), &snapshot).unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    restored.set_locale(Some("fr")).unwrap();
    let report = restored.reload(program.clone(), "again").unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    let mut said = Vec::new();
    while !restored.awaits_player() {
        restored.step();
        said.extend(restored.last_output().map(|o| o.text.clone()));
    }
    assert!(
        said.iter().any(|s| s == "2 tourtes au porc bien chaudes"),
        "{said:?}"
    );
    assert_eq!(restored.agent().tally("the-tab").unwrap(), [("pie", 2)]);

    // The section is written only while a number is held. A hand-edited one gives a number
    // only to a bound variable that is no tally, and only one a line could say (2 to 999).
    const SECTION: &str = "hpmm.chat.quantities";
    let mut plain = ChatScene::new(program.clone(), "chat", 7).unwrap();
    plain.hear(Some(Input::player("a bowl of stew")));
    plain.step();
    let mut w = SnapshotWriter::new(&program, "inn");
    plain.save(&mut w);
    assert!(
        !SnapshotReader::from_bytes(&w.to_bytes())
            .unwrap()
            .has(SECTION)
    );
    let edited: Vec<(String, u32)> = [("the-dish", 5000), ("the-tab", 3), ("the-place", 2)]
        .iter()
        .map(|(v, n)| (v.to_string(), *n))
        .collect();
    w.put(SECTION, &edited);
    let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
    let (restored, _) = ChatScene::restore(program.clone(), &snapshot).unwrap();
    let held = restored.agent().situation();
    assert!(
        held.iter().any(|(v, h)| *v == "the-dish" && h == "stew"),
        "{held:?}"
    );
    assert!(
        !held
            .iter()
            .any(|(v, _)| *v == "the-tab" || *v == "the-place"),
        "{held:?}"
    );
}

/// A content patch that drops a dish: a savegame taken before it restores with the dish taken
/// off the tab, and says so; a hot reload carries the tab the same way.
#[test]
fn a_tab_survives_a_content_patch_without_the_dish() {
    use ensemble_runtime::hpmm::ChatScene;
    use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
    let program = innkeeper(None);
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    reply(&mut chat, "a bowl of stew and a mug of ale please");
    let mut w = SnapshotWriter::new(&program, "inn");
    chat.save(&mut w);
    let bytes = w.to_bytes();

    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("innkeeper");
    ensemble_tests::copy_dir(std::path::Path::new(&repo_path("samples/innkeeper")), &copy);
    // The stew is renamed hotpot, and with it what names it: a tracker that binds it
    // ("whatever's hot" is the stew), an action (a hungry guest is fed stew) and an estimator.
    for (file, stew) in [
        ("innkeeper.concepts.ron", "(name: \"stew\","),
        ("innkeeper.concepts.ron", "Bind(\"stew\")"),
        ("innkeeper.actions.ron", ", \"stew\")"),
        ("innkeeper.evidence.ron", "Mentions(\"stew\")"),
    ] {
        ensemble_tests::edit(&copy, file, stew, &stew.replace("stew", "hotpot"));
    }
    let patched = innkeeper(Some(&copy));

    let snapshot = SnapshotReader::from_bytes(&bytes).unwrap();
    let (restored, report) = ChatScene::restore(patched.clone(), &snapshot).unwrap();
    assert_eq!(restored.agent().tally("the-tab").unwrap(), [("ale", 1)]);
    assert!(
        (report.fallbacks.iter())
            .any(|f| f == "tally `the-tab`: concept `stew` is gone; taken off it"),
        "{:?}",
        report.fallbacks
    );
    let report = chat.reload(patched, "patched").unwrap();
    assert_eq!(chat.agent().tally("the-tab").unwrap(), [("ale", 1)]);
    assert!(
        (report.fallbacks.iter()).any(|f| f.contains("concept `stew` is gone; taken off it")),
        "{:?}",
        report.fallbacks
    );
}

/// A designer's slip in a tally (or a property called `quantity`) is an error where it is
/// written.
#[test]
fn a_broken_tally_is_an_error_where_it_stands() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("innkeeper");
    ensemble_tests::copy_dir(std::path::Path::new(&repo_path("samples/innkeeper")), &copy);
    let edit = |file: &str, from: &str, to: &str| {
        let path = copy.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no {from}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
    };
    edit(
        "innkeeper.concepts.ron",
        r#"("silver", 10), ("copper", 1)"#,
        r#"("copper", 1), ("silver", 10)"#,
    );
    edit(
        "innkeeper.actions.ron",
        r#"tally: [("the-tab", "the-dish")]"#,
        r#"tally: [("the-tab", "the-dsh")]"#,
    );
    edit(
        "innkeeper.actions.ron",
        r#"say: ["{the-tab.total}, friend: {the-tab}""#,
        r#"say: ["{the-tab.price}, friend: {the-tab}""#,
    );
    edit(
        "innkeeper.actions.ron",
        r#"unbind: ["the-tab"]"#,
        r#"bind: [("the-tab", "ale")]"#,
    );
    edit(
        "innkeeper.concepts.ron",
        r#"("gold", 100)"#,
        r#"("and", 100)"#,
    );
    edit(
        "innkeeper.evidence.ron",
        r#"Not(Ev("decline")),"#,
        r#"Not(Ev("decline")), Not(Var("the-tab", Holds("rooom"))),"#,
    );
    // `quantity` is what a variable heard ("two ales"): no concept's property.
    edit(
        "innkeeper.concepts.ron",
        r#""lamb"], properties: {"#,
        r#""lamb"], properties: {"quantity": "a bowl", "#,
    );
    let out = ensemble(&["check", copy.to_str().unwrap()]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let expect = [
        "concept `stew`: a property cannot be called `quantity`",
        "tally `the-tab`: its smallest unit `silver` is worth 10, not 1",
        "unit `silver` (10) is not worth less than `copper` (1) before it",
        "refers to variable or concept `the-dsh`, which is not defined",
        "did you mean `the-dish`?",
        "`{the-tab.price}` reads a tally, which has no `price`",
        "action `take-payment` binds `the-tab`, a tally",
        "a unit cannot be called `and`",
        "refers to concept `rooom`, which is not defined",
        "innkeeper.concepts.ron:",
        "innkeeper.actions.ron:",
    ];
    for e in expect {
        assert!(out.stderr.contains(e), "no `{e}` in:\n{}", out.stderr);
    }
}

/// A reply's wording is drawn by its action and the number of player lines heard, never by
/// what earlier replies drew: a line read another way (another player line, a mended reading)
/// does not re-word the replies after it, and a savegame words them as the uninterrupted
/// conversation does. (With one shared stream, the first pair below said "sure" and
/// "absolutely" to the same "a bowl of stew please".)
#[test]
fn a_reply_is_worded_by_its_own_action_and_line() {
    use ensemble_runtime::hpmm::{ChatScene, Input};
    use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
    let program = innkeeper(None);
    let later = [
        "a bowl of stew please",
        "how much for a room",
        "any rumours?",
        "thank you, good night",
    ];
    // Every (action, text) the agent says after `lines`, one list per line.
    let said = |chat: &mut ChatScene, lines: &[&str]| -> Vec<Vec<(String, String)>> {
        let mut all = Vec::new();
        for line in lines {
            chat.hear(Some(Input::player(line)));
            let mut turn = Vec::new();
            loop {
                chat.step();
                if let Some(out) = chat.last_output() {
                    for &a in &out.actions {
                        turn.push((chat.agent().action_name(a).to_string(), out.text.clone()));
                    }
                }
                if chat.awaits_player() {
                    break;
                }
            }
            all.push(turn);
        }
        all
    };
    let run = |first: &str| {
        let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
        let first = said(&mut chat, &[first]);
        (first, said(&mut chat, &later))
    };
    let (greeted, after_greeting) = run("hello");
    let (asked, after_asking) = run("what news from the road?");
    assert_ne!(greeted, asked, "the first lines are answered differently");
    assert_eq!(after_greeting, after_asking);

    // Saved after two lines and restored: the rest is worded as without the save.
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    said(&mut chat, &["hello", later[0]]);
    let mut w = SnapshotWriter::new(&program, "inn");
    chat.save(&mut w);
    let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
    let (mut restored, report) = ChatScene::restore(program.clone(), &snapshot).unwrap();
    assert!(report.fallbacks.is_empty(), "{report:?}");
    assert_eq!(said(&mut restored, &later[1..]), after_greeting[1..]);

    // A hand-edited count beyond the iterations run is refused, never a panic on the next line.
    let mut w = SnapshotWriter::new(&program, "inn");
    chat.save(&mut w);
    w.put("hpmm.chat.lines", &(u64::MAX, Vec::<(String, u32)>::new()));
    let snapshot = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
    let e = ChatScene::restore(program.clone(), &snapshot)
        .err()
        .unwrap();
    assert!(e.to_string().contains("hpmm.chat.lines"), "{e}");
}
