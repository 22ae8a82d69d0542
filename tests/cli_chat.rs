//! HMM spaces end to end: the innkeeper's scripted conversation (golden), the digest's
//! behaviour tests that need a whole agent (Table 5-2, fallback, situation override,
//! variables), and one negative fixture per diagnostic of the content kind.

use ensemble_runtime::hpmm::{Input, SocialAgent};
use ensemble_tests::{assert_golden, ensemble, json_lines as events, repo_path, root};
use serde_json::Value;
use std::sync::Arc;

fn chat(input: &str, seed: &str) -> String {
    chat_traced(input, seed, "json")
}

/// The innkeeper's conversation on `lines` (seed 7), its trace in `format`.
fn chat_on(lines: &str, format: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("lines.txt");
    std::fs::write(&input, lines).unwrap();
    chat_traced(input.to_str().unwrap(), "7", format)
}

/// The `input` events of a JSON trace.
fn inputs(trace: &str) -> Vec<Value> {
    (events(trace).into_iter())
        .filter(|e| e["event"] == "input")
        .collect()
}

/// The innkeeper's conversation on `input`, its trace in `format` (`json` or `text`).
fn chat_traced(input: &str, seed: &str, format: &str) -> String {
    let out = ensemble(&[
        "run",
        &repo_path("samples/innkeeper"),
        "--scene",
        "chat",
        "--input",
        input,
        "--seed",
        seed,
        "--trace",
        format,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

/// (player line, agent outputs that followed it) pairs.
fn exchanges(trace: &str) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for e in events(trace) {
        match e["event"].as_str().unwrap() {
            "input" => out.push((e["text"].as_str().unwrap().to_string(), vec![])),
            "output" => {
                let line = format!(
                    "{}: {}",
                    e["emote"].as_str().unwrap(),
                    e["text"].as_str().unwrap()
                );
                if let Some(last) = out.last_mut() {
                    last.1.push(line);
                }
            }
            other => panic!("unexpected event {other}"),
        }
    }
    out
}

const TRANSCRIPT: &str = "samples/innkeeper/transcripts/xenos.txt";

#[test]
fn the_innkeeper_conversation_is_golden() {
    let trace = chat(&repo_path(TRANSCRIPT), "7");
    assert_golden("innkeeper-chat-seed7.jsonl", &trace);
    assert_eq!(
        trace,
        chat(&repo_path(TRANSCRIPT), "7"),
        "same seed, same trace"
    );
    for e in events(&trace) {
        assert!(e["tick"].is_u64() && e["time"].is_number(), "{e}");
        assert_eq!(e["agent"], "Xenos");
        assert!(e["text"].is_string(), "{e}");
    }
}

#[test]
fn fallbacks_answer_at_the_most_specific_level_that_understood() {
    // Digest test 20 (Figs. 4-14, 4-17) and the Fig. 1-1 interleaving, on the golden run.
    let ex = exchanges(&chat(&repo_path(TRANSCRIPT), "7"));
    let reply = |said: &str| -> Vec<String> {
        ex.iter()
            .find(|(p, _)| p == said)
            .unwrap_or_else(|| panic!("`{said}` not in the transcript"))
            .1
            .clone()
    };
    assert_eq!(
        reply("i demand a shrubbery"),
        ["says: you like what again?"]
    );
    assert_eq!(reply("a shrubbery"), ["says: i not have that"]);
    assert_eq!(
        reply("it is necessary that i get some food"),
        ["says: what about half a chicken?"]
    );
    // The nod is one of `agree`'s wordings (which one is the reply's own draw).
    let food = reply("i demand food!");
    assert_eq!(food.len(), 3, "{food:?}");
    assert_eq!(
        (&*food[0], &*food[2]),
        ("glances: ", "gives you: chicken roast")
    );
    assert!(
        ["nods: absolutely", "nods: sure"].contains(&&*food[1]),
        "{food:?}"
    );
    assert_eq!(
        reply("i hate it when the slithy toves gyre and gimble in the wabe"),
        ["says: me not know enough to judge, really"]
    );
    assert_eq!(
        reply("i h8 slithy toves"),
        ["says: by the way, you might like this sword me just got"]
    );
    // Haggle and praise interleave (α1 β1 α2 β3 α3 of Fig. 1-1's spaces).
    assert_eq!(
        reply("how much is it"),
        ["says: i'll trade for a health potion"]
    );
    // `deal`, in whichever of its wordings.
    let deal = &reply("how about one gold")[0];
    assert!(
        deal.starts_with("says: ") && deal.contains("deal"),
        "{deal}"
    );
    // The stuck monitor rushes the player once while the offer is pending.
    let rushes = ex
        .iter()
        .flat_map(|(_, r)| r)
        .filter(|r| r.contains("other customers"))
        .count();
    assert_eq!(rushes, 1);
    // The synchronous help call: ask, wait for the directions handler, then move on one
    // iteration after its end state is believed (the silent line that follows).
    assert_eq!(
        reply("can you help me"),
        ["considers: ", "says: what help you need?"]
    );
    assert_eq!(
        reply("i need to find the mayor"),
        [
            "says: mayor is in town hall, by fountain",
            "says: anything else you need?"
        ]
    );
}

fn write_input(dir: &tempfile::TempDir, lines: &str) -> String {
    let path = dir.path().join("input.txt");
    std::fs::write(&path, lines).unwrap();
    path.to_string_lossy().into_owned()
}

#[test]
fn whats_up_is_a_greeting_only_during_the_greeting() {
    // Digest test 21 (Fig. 4-18): the specialised handler wins while the greeting runs; after
    // the greeting is over it is disengaged and the general what-is handler answers.
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(&dir, "hi there\nwhat's up\nwhat's up\n");
    let actions: Vec<String> = events(&chat(&input, "1"))
        .iter()
        .filter(|e| e["event"] == "output")
        .map(|e| e["action"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(actions, ["greet", "staying-out-of-trouble", "answer-what"]);
}

#[test]
fn input_problems_are_reported_not_panicked() {
    let missing = ensemble(&[
        "run",
        &repo_path("samples/innkeeper"),
        "--scene",
        "chat",
        "--input",
        "/nonexistent/input.txt",
    ]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("cannot read"), "{}", missing.stderr);
    let hsm = ensemble(&[
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-counter",
        "--input",
        &repo_path(TRANSCRIPT),
    ]);
    assert_eq!(hsm.code, 2);
    assert!(hsm.stderr.contains("conversation"), "{}", hsm.stderr);
    // Text mode reads like the report's figures.
    let dir = tempfile::tempdir().unwrap();
    let input = write_input(&dir, "# a comment\nhi there\n/waves\n");
    let text = ensemble(&[
        "run",
        &repo_path("samples/innkeeper"),
        "--scene",
        "chat",
        "--input",
        &input,
    ]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(
        text.stdout.contains("Player says: hi there"),
        "{}",
        text.stdout
    );
    assert!(text.stdout.contains("Player waves"), "{}", text.stdout);
    assert!(text.stdout.contains("Xenos says: "), "{}", text.stdout);
}

fn innkeeper() -> Arc<ensemble_runtime::Program> {
    let c = ensemble_compiler::compile_path(&root().join("samples/innkeeper")).unwrap();
    Arc::new(c.output.expect("the innkeeper compiles").0)
}

fn evidence_for(agent: &mut SocialAgent, said: &str, names: &[&str]) -> Vec<f64> {
    agent.iterate(Some(&Input::player(said)));
    names.iter().map(|n| agent.evidence(n).unwrap()).collect()
}

#[test]
fn table_5_2_and_the_reports_estimator_examples() {
    // Digest test 5.
    let program = innkeeper();
    let mut agent = SocialAgent::new(program.clone(), "chat", 0).unwrap();
    let e = evidence_for(
        &mut agent,
        "it's a good idea",
        &["compliment", "agreement", "greeting", "insult"],
    );
    assert!(e[0] > 0.8 && e[0] > e[1] && e[1] > 0.0, "{e:?}");
    assert_eq!((e[2], e[3]), (0.0, 0.0));
    let high = evidence_for(&mut agent, "can you give me a beer", &["request"])[0];
    let low = evidence_for(&mut agent, "you can give me a beer", &["request"])[0];
    assert!(high > 0.8 && low < 0.3, "{high} {low}");
    let e = evidence_for(&mut agent, "what's up", &["greeting", "question"]);
    assert!(e[0] > e[1], "{e:?}");
}

#[test]
fn categories_are_bitmasks_with_set_operations_and_variables_track_topics() {
    // Digest test 24.
    let program = innkeeper();
    let m = &program.hpmm;
    let bit = |name: &str| {
        let i = m
            .categories
            .iter()
            .position(|&c| program.name(c) == name)
            .unwrap();
        1u128 << i
    };
    let tags = |word: &str| m.lexicon.iter().find(|w| w.word == word).unwrap().tags;
    let isnt = tags("isn't");
    assert!(isnt & bit("copula") != 0 && isnt & bit("negative") != 0);
    // negative = insulting ∪ unpleasant ∪ negation.
    assert!(tags("idiot") & bit("negative") != 0 && tags("awful") & bit("negative") != 0);
    assert!(tags("good") & bit("negative") == 0);
    let mut agent = SocialAgent::new(program.clone(), "chat", 0).unwrap();
    agent.iterate(Some(&Input::player("what about the job")));
    assert_eq!(agent.binding("the-topic"), Some("letter-quest"));
    assert_eq!(agent.evidence("topic-is-quest"), Some(1.0));
    agent.iterate(Some(&Input::player("i need a new sword")));
    assert_eq!(agent.binding("the-item"), Some("sword"));
}

#[test]
fn beliefs_carry_across_a_reload_of_the_compiled_sample() {
    let program = innkeeper();
    let mut agent = SocialAgent::new(program.clone(), "chat", 0).unwrap();
    agent.iterate(Some(&Input::player("i need a new sword")));
    let out = agent.iterate(None);
    assert!(out.is_none() || out.is_some());
    let before = agent.argmax("selling").unwrap().to_string();
    let report = agent.reload(innkeeper()).unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    assert_eq!(agent.argmax("selling").unwrap(), before);
    assert_eq!(agent.binding("the-item"), Some("sword"));
}

// ---- negative fixtures: one small project per diagnostic -------------------------------

const BASE: &[(&str, &str)] = &[
    ("Ensemble.ron", r#"Project(name: "t")"#),
    (
        "t.evidence.ron",
        r#"Evidence(estimators: [
    (name: "hi", is: Match("^ hi|hello", 1.0)),
    (name: "did-greet", is: Did("greet")),
])"#,
    ),
    (
        "t.actions.ron",
        r#"Actions(
    actions: [(name: "greet", say: ["{hello|hail}"])],
    accumulators: [(name: "out", rule: Max, inputs: ["g"])],
)"#,
    ),
    (
        "g.space.ron",
        r#"Space(name: "g", initial: "idle", states: [
    (name: "idle", to: [("idle", 0.5), ("greeted", 0.5)]),
    (name: "greeted", expects: ["hi"], action: "greet", to: [("replied", 1.0)]),
    (name: "replied", expects: ["did-greet"]),
])"#,
    ),
    (
        "chat.chat.ron",
        r#"Chat(name: "chat", agent: "A", output: "out")"#,
    ),
];

/// Checks the base project with some files replaced or added; returns the JSON document.
fn check_with(changes: &[(&str, &str)]) -> (i32, Value) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in BASE.iter().chain(changes) {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let out = ensemble(&["check", &dir.path().to_string_lossy(), "--format", "json"]);
    let doc: Value = serde_json::from_str(&out.stdout).expect("JSON");
    (out.code, doc)
}

/// Asserts exactly one diagnostic with `code` and `severity`, located in `file`.
fn expect_one(changes: &[(&str, &str)], code: &str, severity: &str, file: &str, says: &str) {
    let (exit, doc) = check_with(changes);
    let ds = doc["diagnostics"].as_array().unwrap();
    let found: Vec<&Value> = ds.iter().filter(|d| d["code"] == code).collect();
    assert_eq!(found.len(), 1, "{code}: {doc:#}");
    let d = found[0];
    assert_eq!(d["severity"], severity, "{d}");
    assert_eq!(d["file"], file, "{d}");
    assert!(d["line"].is_u64() && d["column"].is_u64(), "{d}");
    assert!(d["message"].as_str().unwrap().contains(says), "{d}");
    assert_eq!(exit, if severity == "error" { 1 } else { 0 }, "{doc:#}");
}

#[test]
fn the_base_fixture_is_clean_and_runs() {
    let (exit, doc) = check_with(&[]);
    assert_eq!(exit, 0);
    assert_eq!(doc["summary"]["errors"], 0, "{doc:#}");
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
}

#[test]
fn transition_not_normalized() {
    let space = r#"Space(name: "g", initial: "idle", states: [
    (name: "idle", to: [("idle", 0.5), ("greeted", 0.6)]),
    (name: "greeted", expects: ["hi"], action: "greet", to: [("replied", 1.0)]),
    (name: "replied", expects: ["did-greet"]),
])"#;
    expect_one(
        &[("g.space.ron", space)],
        "transition-not-normalized",
        "error",
        "g.space.ron",
        "sum to 1.1",
    );
}

#[test]
fn no_initial_state() {
    let space = r#"Space(name: "g", states: [
    (name: "idle", to: [("idle", 0.5), ("greeted", 0.5)]),
    (name: "greeted", expects: ["hi"], action: "greet", to: [("replied", 1.0)]),
    (name: "replied", expects: ["did-greet"]),
])"#;
    expect_one(
        &[("g.space.ron", space)],
        "no-initial-state",
        "error",
        "g.space.ron",
        "no initial state",
    );
}

#[test]
fn unknown_references_of_every_kind() {
    // An estimator an expectation names.
    let space = r#"Space(name: "g", initial: "idle", states: [
    (name: "idle", to: [("idle", 0.5), ("greeted", 0.5)]),
    (name: "greeted", expects: ["hii"], action: "greet", to: [("replied", 1.0)]),
    (name: "replied", expects: ["did-greet"]),
])"#;
    expect_one(
        &[("g.space.ron", space)],
        "unknown-reference",
        "error",
        "g.space.ron",
        "estimator `hii`",
    );
    // An inspection target.
    let inspect = r#"Evidence(estimators: [(name: "look", is: Inspect(of: ["g.nowhere"]))])"#;
    expect_one(
        &[("more.evidence.ron", inspect)],
        "unknown-reference",
        "error",
        "more.evidence.ron",
        "no state `nowhere`",
    );
    // A dependency target.
    let dependent = r#"Space(name: "d", initial: "on", disable: "off", enabled_by: (of: ["missing.x"]), states: [
    (name: "on", to: [("on", 0.5), ("off", 0.5)]),
    (name: "off", to: [("off", 0.5), ("on", 0.5)]),
])"#;
    expect_one(
        &[("d.space.ron", dependent)],
        "unknown-reference",
        "error",
        "d.space.ron",
        "space `missing`",
    );
    // A template.
    let actions = r#"Actions(
    actions: [(name: "greet", say: ["{@salutation}"])],
    accumulators: [(name: "out", rule: Max, inputs: ["g"])],
)"#;
    expect_one(
        &[("t.actions.ron", actions)],
        "unknown-reference",
        "error",
        "t.actions.ron",
        "template `salutation`",
    );
}

#[test]
fn arbitration_cycle() {
    let actions = r#"Actions(
    actions: [(name: "greet", say: ["hello"])],
    accumulators: [
        (name: "out", rule: First, inputs: ["a"]),
        (name: "a", rule: Max, inputs: ["g", "b"]),
        (name: "b", rule: All, inputs: ["a"]),
    ],
)"#;
    expect_one(
        &[("t.actions.ron", actions)],
        "arbitration-cycle",
        "error",
        "t.actions.ron",
        "cycle",
    );
}

#[test]
fn unreachable_state_is_a_warning() {
    let space = r#"Space(name: "g", initial: "idle", states: [
    (name: "idle", to: [("idle", 0.5), ("greeted", 0.5)]),
    (name: "greeted", expects: ["hi"], action: "greet", to: [("replied", 1.0)]),
    (name: "replied", expects: ["did-greet"]),
    (name: "lost", expects: ["hi"], to: [("idle", 1.0)]),
])"#;
    expect_one(
        &[("g.space.ron", space)],
        "unreachable-state",
        "warning",
        "g.space.ron",
        "`lost`",
    );
}

#[test]
fn an_action_nobody_hears_would_repeat() {
    let space = r#"Space(name: "g", initial: "idle", states: [
    (name: "idle", to: [("idle", 0.5), ("greeted", 0.5)]),
    (name: "greeted", expects: ["hi"], action: "greet", to: [("replied", 1.0)]),
    (name: "replied", expects: ["hi"]),
])"#;
    expect_one(
        &[("g.space.ron", space)],
        "repeating-action",
        "warning",
        "g.space.ron",
        "repeat itself",
    );
}

#[test]
fn an_action_whose_every_wording_has_a_slot_is_a_template_hole() {
    let concepts = r#"Concepts(variables: [(name: "the-topic", track: [(rule: Mention([]))])])"#;
    let actions = r#"Actions(
    actions: [(name: "greet", say: ["what about {the-topic}?", "{hello {the-topic}|hail {the-topic.title}}"])],
    accumulators: [(name: "out", rule: Max, inputs: ["g"])],
)"#;
    expect_one(
        &[("t.concepts.ron", concepts), ("t.actions.ron", actions)],
        "template-hole",
        "error",
        "t.actions.ron",
        "`greet` has no wording without",
    );
    // One alternative without the slot (here inside a choice) is the fallback: accepted.
    let fallback = actions.replace("hail {the-topic.title}", "hail");
    let (exit, doc) = check_with(&[("t.concepts.ron", concepts), ("t.actions.ron", &fallback)]);
    assert_eq!(exit, 0, "{doc:#}");
}

#[test]
fn alternatives_written_as_phrases_are_a_warning_where_they_stand() {
    // `light the|light a fire` is `light`, `the|light`, `a`, `fire`: it never matches
    // "light the fire", so `check` says so at the estimator.
    let evidence = r#"Evidence(estimators: [
    (name: "lights-fire", is: Match("light the|light a fire", 1.0)),
])"#;
    // Each sign the check reads, as the pattern in the estimator and what the warning says.
    for (pattern, says) in [
        ("light the|light a fire", "repeats `light` beside it"),
        // A contraction beside its first word, before the word it contracts.
        ("you'll|you will regret", "before `will`"),
        // A contraction of the word written before the list.
        (
            "you are|you're|youre * from",
            "a contraction of `you` written before it",
        ),
        // A common phrase split at the list's end: "is there" read as `is` then `there`.
        (
            "have|got|any|is there * bath",
            "splits the phrase `is there` at its end",
        ),
    ] {
        let written = evidence.replace("light the|light a fire", pattern);
        expect_one(
            &[("more.evidence.ron", &written)],
            "phrase-alternative",
            "warning",
            "more.evidence.ron",
            says,
        );
    }
    // Written as single-word alternatives, the same pattern is clean.
    let fixed = evidence.replace("light the|light a fire", "light the|a fire");
    let (exit, doc) = check_with(&[("more.evidence.ron", &fixed)]);
    assert_eq!(exit, 0, "{doc:#}");
    assert!(!doc.to_string().contains("phrase-alternative"), "{doc:#}");
}

#[test]
fn a_negated_match_among_alternatives_is_a_warning_where_it_stands() {
    // `Not(Match("building"))` inside the `Max` holds for every line without "building": the
    // estimator then holds for nearly every line that says "who".
    let evidence = r#"Evidence(estimators: [
    (name: "asks-oldest", is: And([Match("who", 1.0), Max([Match("oldest", 1.0), Not(Match("building", 1.0))])])),
])"#;
    expect_one(
        &[("more.evidence.ron", evidence)],
        "negated-alternative",
        "warning",
        "more.evidence.ron",
        "`Not(Match(\"building\"))` is one of the alternatives",
    );
    // The same condition beside the `Max` is clean, and so is a negated estimator inside one.
    let fixed = r#"Evidence(estimators: [
    (name: "asks-elder", is: Match("elder", 1.0)),
    (name: "asks-oldest", is: And([Match("who", 1.0), Max([Match("oldest", 1.0), Not(Ev("asks-elder"))]), Not(Match("building", 1.0))])),
])"#;
    let (exit, doc) = check_with(&[("more.evidence.ron", fixed)]);
    assert_eq!(exit, 0, "{doc:#}");
    assert!(!doc.to_string().contains("negated-alternative"), "{doc:#}");
}

#[test]
fn a_negated_word_with_a_required_words_stem_is_a_warning_where_it_stands() {
    // Words compare by stem: `fairly` is `fair`, so the `Not` rejects every line that the match
    // finds by "fair", and the festival is never asked about.
    let evidence = r#"Evidence(estimators: [
    (name: "asks-festival", is: And([Match("a fair * coming|soon", 1.0), Not(Match("unfair|fairly", 1.0))])),
])"#;
    expect_one(
        &[("more.evidence.ron", evidence)],
        "negated-stem",
        "warning",
        "more.evidence.ron",
        "rejects `fairly`, which has the stem of `fair`",
    );
    // The same inside a `Max`, through a synonym: "tired" is understood as "weary" too, so
    // negating it rejects every line found by "weary"; a negation below 1 only discounts.
    let synonym = r#"Evidence(estimators: [
    (name: "is-weary", is: And([Max([Match("so weary", 1.0), Match("weary", 0.8)]), Not(Match("tired", 0.5))])),
])"#;
    expect_one(
        &[("more.evidence.ron", synonym)],
        "negated-stem",
        "warning",
        "more.evidence.ron",
        "discounts `tired`, which is understood as `weary` too (a synonym)",
    );
    // A negated word of another stem is clean, and so is a negated phrase (`fair?` is "fair"
    // then "?"): it is a narrower condition written on purpose. So is negating one synonym of a
    // matched word ("tired" but not "weary").
    let fixed = r#"Evidence(estimators: [
    (name: "asks-festival", is: And([Match("a fair * coming|soon", 1.0), Not(Match("unfair", 1.0))])),
    (name: "asks-fair", is: And([Max([Match("fair", 1.0)]), Not(Match("fair price", 1.0)), Not(Match("fair?", 1.0))])),
    (name: "is-tired", is: And([Match("tired", 1.0), Not(Match("weary", 1.0))])),
])"#;
    let (exit, doc) = check_with(&[("more.evidence.ron", fixed)]);
    assert_eq!(exit, 0, "{doc:#}");
    assert!(!doc.to_string().contains("negated-stem"), "{doc:#}");
}

#[test]
fn definition_cycle() {
    let evidence = r#"Evidence(estimators: [
    (name: "x", is: Max([Ev("y"), Match("yo", 1.0)])),
    (name: "y", is: Not(Ev("x"))),
])"#;
    expect_one(
        &[("more.evidence.ron", evidence)],
        "definition-cycle",
        "error",
        "more.evidence.ron",
        "x → y → x",
    );
}

#[test]
fn incomplete_dependency() {
    let space = r#"Space(name: "d", initial: "on", disable: "off", enabled_by: (of: ["g.greeted"]), states: [
    (name: "on", to: [("on", 1.0)]),
    (name: "off", to: [("off", 0.5), ("on", 0.5)]),
])"#;
    expect_one(
        &[("d.space.ron", space)],
        "incomplete-dependency",
        "warning",
        "d.space.ron",
        "into `off` from on",
    );
}

#[test]
fn bad_patterns_and_templates_are_syntax_errors() {
    let evidence = r#"Evidence(estimators: [(name: "odd", is: Match("hello ^", 1.0))])"#;
    expect_one(
        &[("more.evidence.ron", evidence)],
        "syntax",
        "error",
        "more.evidence.ron",
        "bad pattern",
    );
    let actions = r#"Actions(
    actions: [(name: "greet", say: ["{hello|hail"])],
    accumulators: [(name: "out", rule: Max, inputs: ["g"])],
)"#;
    expect_one(
        &[("t.actions.ron", actions)],
        "syntax",
        "error",
        "t.actions.ron",
        "bad template",
    );
}

/// The `understood` entry of the input event that said `line`.
fn understood_words(trace: &str, line: &str) -> Vec<Value> {
    let input = events(trace)
        .into_iter()
        .find(|e| e["event"] == "input" && e["text"] == line)
        .unwrap_or_else(|| panic!("`{line}` not in the trace"));
    input["understood"]["words"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn a_typo_is_read_as_the_known_word_and_a_real_word_is_not() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("lines.txt");
    let lines = [
        "helo old friend",
        "whats the wether like",
        "my cart wheel is broken, where is the blacksmith",
        "thank you, you have been most kind",
        "is the north road scary at night",
        "why did the bee cross the road",
        "a mild night, we supped well and the stars align",
    ];
    std::fs::write(&input, lines.join("\n")).unwrap();
    let trace = chat(input.to_str().unwrap(), "7");
    let read_as = |line: &str, word: &str| -> Option<String> {
        let words = understood_words(&trace, line);
        let w = words.iter().find(|w| w["word"] == word)?;
        Some(w["read_as"].as_str().unwrap_or("(as typed)").to_string())
    };
    assert_eq!(read_as(lines[0], "helo").as_deref(), Some("hello"));
    assert_eq!(read_as(lines[1], "wether").as_deref(), Some("weather"));
    // "cart" is a word of its own, one letter from the map concept's "chart": not a typo, so
    // it is read as typed (listed only as the thing the line names, if at all).
    let as_typed = |r: Option<String>| r.is_none_or(|r| r == "(as typed)");
    assert!(as_typed(read_as(lines[2], "cart")));
    // Real words one slip from a word the designer wrote are read as typed too: "most" is not
    // the damp of "moist", "scary" no "scar" with an ending, "bee" no "be" held down.
    assert!(as_typed(read_as(lines[3], "most")));
    assert!(as_typed(read_as(lines[4], "scary")));
    assert!(as_typed(read_as(lines[5], "bee")));
    // Nor is a real word a slip of a rarer spelling of a known stem: "mild" was read as
    // "miled" (a mile), "supped" as "soupped" (soup), "align" as "aling" (ale).
    for word in ["mild", "supped", "align"] {
        assert!(as_typed(read_as(lines[6], word)), "{word}");
    }
    let ex = exchanges(&trace);
    assert!(ex[0].1[0].contains("says"), "{:?}", ex[0]);
    assert!(ex[2].1.iter().any(|r| r.contains("smith")), "{:?}", ex[2]);
}

#[test]
fn an_order_of_two_things_serves_both() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("lines.txt");
    std::fs::write(
        &input,
        "i'll have the stew and a mug of ale\nthanks\njust some bread please\n",
    )
    .unwrap();
    let ex = exchanges(&chat(input.to_str().unwrap(), "7"));
    let served = |i: usize| ex[i].1.iter().find(|r| r.starts_with("gives you")).cloned();
    let both = served(0).expect("the order is served");
    assert!(both.contains("stew") && both.contains("ale"), "{both}");
    // An order of one thing after it serves that one only.
    let one = served(2).expect("the bread is served");
    assert!(one.contains("bread") && !one.contains("stew"), "{one}");
}

/// The trace says which evidence chose each reply (what the states behind it expected), listed
/// first: a designer sees why "thank you" was thanked and why a bath was offered, and where a
/// reply was chosen by the wrong evidence.
#[test]
fn the_trace_names_the_evidence_that_chose_the_reply() {
    let lines = "is there somewhere i can take a bath\nthank you\n";
    let inputs = inputs(&chat_on(lines, "json"));
    let chose = |i: usize| inputs[i]["understood"]["chose"].clone();
    let first = |i: usize| inputs[i]["understood"]["evidence"][0]["name"].clone();
    assert_eq!(chose(0), serde_json::json!(["player-asks-bath"]));
    assert_eq!(first(0), "player-asks-bath");
    assert_eq!(chose(1), serde_json::json!(["player-thanks"]));
    assert_eq!(first(1), "player-thanks");
    // The text trace marks it.
    let text = chat_on(lines, "text");
    assert!(
        text.contains("player-asks-bath 1.00 (chose the reply)"),
        "{text}"
    );
}

/// A thing refused gives way to the one asked for, and the trace says so: "a cup of wine, not
/// water" serves the wine, and the water's word is marked.
#[test]
fn the_trace_marks_a_thing_that_gave_way() {
    let lines = "a cup of wine, not water\n";
    let trace = chat_on(lines, "json");
    let inputs = inputs(&trace);
    let words = inputs[0]["understood"]["words"].as_array().unwrap().clone();
    let word = |w: &str| words.iter().find(|x| x["word"] == w).cloned().unwrap();
    assert_eq!(word("water")["gives_way"], true, "{words:?}");
    assert!(word("wine").get("gives_way").is_none(), "{words:?}");
    let served: Vec<String> = exchanges(&trace)[0].1.clone();
    let served = served.iter().find(|r| r.starts_with("gives you")).unwrap();
    assert!(
        served.contains("wine") && !served.contains("water"),
        "{served}"
    );
    let text = chat_on(lines, "text");
    assert!(text.contains("water: water (gives way)"), "{text}");
}

/// "instead of" refuses what follows it, like "not": "tea instead of ale" serves the tea alone
/// (it served both, as if two things were ordered).
#[test]
fn a_thing_asked_for_instead_of_another_is_served_alone() {
    let trace = chat_on("could i have tea instead of ale\n", "json");
    let words = inputs(&trace)[0]["understood"]["words"]
        .as_array()
        .unwrap()
        .clone();
    let ale = words.iter().find(|x| x["word"] == "ale").unwrap();
    assert_eq!(ale["gives_way"], true, "{words:?}");
    let replies = exchanges(&trace)[0].1.clone();
    let served = replies.iter().find(|r| r.starts_with("gives you")).unwrap();
    assert!(
        served.contains("tea") && !served.contains("ale"),
        "{served}"
    );
}

/// A refusal reaches over `or` to the next thing: "water please, no wine or ale" serves the
/// water alone (it served the water and an ale); "no onions, and a cup of wine" still wants
/// the wine, past the pause.
#[test]
fn a_refusal_reaches_over_or() {
    let trace = chat_on(
        "just water please, no wine or ale for me\nthe roast, no onions, and a cup of wine\n",
        "json",
    );
    let inputs = inputs(&trace);
    let gives_way = |line: usize, w: &str| {
        let words = inputs[line]["understood"]["words"].as_array().unwrap();
        let word = words.iter().find(|x| x["word"] == w).unwrap();
        word.get("gives_way") == Some(&serde_json::json!(true))
    };
    assert!(gives_way(0, "wine") && gives_way(0, "ale"));
    assert!(!gives_way(0, "water"));
    assert!(!gives_way(1, "wine"));
    let served = |k: usize| {
        let replies = exchanges(&trace)[k].1.clone();
        replies
            .into_iter()
            .find(|r| r.starts_with("gives you"))
            .unwrap()
    };
    let water = served(0);
    assert!(
        water.contains("water") && !water.contains("ale") && !water.contains("wine"),
        "{water}"
    );
    assert!(served(1).contains("wine"), "{}", served(1));
}

/// A place word after a thing places the thing, and gives way to it: "the temple in the
/// village" is about the temple, not about the village (the innkeeper once told of millbrook,
/// the next town, when asked what the temple in town was like); "the market in the next
/// village" is not.
#[test]
fn a_thing_placed_in_town_is_the_thing() {
    let trace = chat_on(
        "what's that temple in the village like?\nwhere is the market in the next village\n",
        "json",
    );
    let inputs = inputs(&trace);
    let gives_way = |i: usize, w: &str| {
        let words = inputs[i]["understood"]["words"].as_array().unwrap();
        let word = words.iter().find(|x| x["word"] == w).unwrap();
        word.get("gives_way") == Some(&Value::Bool(true))
    };
    assert!(gives_way(0, "village"));
    assert!(!gives_way(0, "temple"));
    assert!(!gives_way(1, "village"));
    let ex = exchanges(&trace);
    assert!(ex[0].1.iter().any(|r| r.contains("temple")), "{:?}", ex[0]);
    assert!(
        !ex[0].1.iter().any(|r| r.contains("millbrook")),
        "{:?}",
        ex[0]
    );
    assert!(
        ex[1].1.iter().any(|r| r.contains("millbrook")),
        "{:?}",
        ex[1]
    );
}

/// A synonym counts only in the sense the words written beside it share: the distance pattern
/// lists "close" beside "far" and "near", and WordNet's "last" (a close, an end) is no distance
/// — "last night" once asked how far the temple was.
#[test]
fn a_synonym_counts_only_in_the_sense_its_siblings_share() {
    let trace = chat_on(
        "who sang at the temple last night\nhow near is the temple\n",
        "json",
    );
    let inputs = inputs(&trace);
    let distance = |i: usize| {
        (inputs[i]["understood"]["evidence"]
            .as_array()
            .unwrap()
            .iter())
        .any(|e| e["name"] == "distance-question")
    };
    assert!(!distance(0));
    assert!(distance(1));
    let ex = exchanges(&trace);
    assert!(
        !ex[0].1.iter().any(|r| r.contains("short walk")),
        "{:?}",
        ex[0]
    );
}
