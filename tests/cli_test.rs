//! `ensemble test`: every sample's own content tests pass; a broken copy of the airport fails
//! the right test at the right tick; JUnit XML and coverage JSON parse; tests are checked like
//! any other asset.

use ensemble_tests::{copy_dir, ensemble, json_lines, repo_path};
use quick_xml::events::Event;
use serde_json::Value;
use std::path::Path;

const SAMPLES: [&str; 7] = [
    "airport",
    "bench",
    "dinner-date",
    "innkeeper",
    "shops",
    "street-vendor",
    "weapon-shop",
];

fn json(out: &ensemble_tests::Output) -> Value {
    serde_json::from_str(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", out.stdout, out.stderr))
}

#[test]
fn every_sample_passes_its_own_tests() {
    for sample in SAMPLES {
        let path = repo_path(&format!("samples/{sample}"));
        let out = ensemble(&["test", &path, "--format", "json"]);
        assert_eq!(out.code, 0, "{sample}:\n{}\n{}", out.stdout, out.stderr);
        let doc = json(&out);
        let tests = doc["tests"].as_array().unwrap();
        assert!(!tests.is_empty(), "{sample} ships tests");
        for t in tests {
            assert_eq!(t["passed"], true, "{sample}: {t}");
            assert!(!t["runs"].as_array().unwrap().is_empty());
        }
        assert_eq!(doc["summary"]["failed_runs"], 0);
    }
}

/// The airport with a seller whose HandOverTicket says a line instead of giving the ticket.
fn airport_without_tickets(dir: &Path) {
    copy_dir(Path::new(&repo_path("samples/airport")), dir);
    let file = dir.join("machines/SellTicket.machine.ron");
    let text = std::fs::read_to_string(&file).unwrap();
    let handing = r#"(name: "HandOverTicket", code: "Transaction", modifier: "give Ticket = ticket to {CityName}", on: [("Done", "ConfirmFlightX")]),"#;
    assert!(text.contains(handing), "the sample's hand-over changed");
    let saying = r#"(name: "HandOverTicket", code: "OneOff", modifier: "Here you are.", on: [("FinishStatement", "ConfirmFlightX")]),"#;
    std::fs::write(&file, text.replace(handing, saying)).unwrap();
}

#[test]
fn a_seller_who_never_hands_over_the_ticket_fails_the_right_test_at_the_right_tick() {
    let dir = tempfile::tempdir().unwrap();
    airport_without_tickets(dir.path());
    let path = dir.path().to_str().unwrap();
    // Where it goes wrong, read off the trace itself: buyer1's conversation ends without a
    // ticket having changed hands.
    let run = ensemble(&[
        "run",
        path,
        "--scene",
        "ticket-counter",
        "--seed",
        "3",
        "--ticks",
        "2400",
        "--trace",
        "json",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let trace = json_lines(&run.stdout);
    assert!(
        !trace.iter().any(|e| e["event"] == "add"),
        "no ticket given"
    );
    let ended = trace
        .iter()
        .find(|e| {
            e["agent"] == "buyer1"
                && e["event"] == "exit"
                && e["machine"] == "BuyTicketAtCounter"
                && e["state"] == "TalkStateMachine"
        })
        .expect("buyer1's conversation ends")["tick"]
        .as_u64()
        .unwrap();

    let out = ensemble(&["test", path, "--format", "json"]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    let doc = json(&out);
    let by_name = |name: &str| {
        doc["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"].as_str().unwrap().contains(name))
            .unwrap_or_else(|| panic!("no test `{name}`"))
            .clone()
    };
    let serves = by_name("each leaves with a ticket");
    assert_eq!(serves["passed"], false);
    let seed3 = serves["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["seed"] == 3)
        .unwrap();
    assert_eq!(seed3["first_failing_tick"], ended, "{seed3}");
    let first = &seed3["failures"][0];
    assert_eq!(first["kind"], "Before");
    assert_eq!(first["expectation"], 0);
    assert_eq!(first["tick"], ended);
    // The trace around the failure shows the conversation ending.
    assert!(
        seed3["trace"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["tick"] == ended && e["state"] == "TalkStateMachine"),
        "{seed3}"
    );
    // Tests of other scenes are untouched by the change.
    assert_eq!(by_name("replans at the wrong gate")["passed"], true);

    // The human report names the test, the seed and the tick.
    let human = ensemble(&["test", path, "--filter", "each leaves"]);
    assert_eq!(human.code, 1);
    assert!(
        human.stdout.contains("FAIL ticket-counter.test.ron:"),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .contains(&format!("seed 3, first failing tick {ended}")),
        "{}",
        human.stdout
    );
}

#[test]
fn junit_xml_parses_with_one_testcase_per_test_and_seed() {
    let dir = tempfile::tempdir().unwrap();
    airport_without_tickets(dir.path());
    let out = ensemble(&["test", dir.path().to_str().unwrap(), "--format", "junit"]);
    assert_eq!(out.code, 1);
    let mut reader = quick_xml::Reader::from_str(&out.stdout);
    let (mut cases, mut failures, mut suites) = (0, 0, 0);
    let mut failure_texts = String::new();
    let mut in_failure = false;
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => match e.name().as_ref() {
                "testcase" => cases += 1,
                "testsuite" => suites += 1,
                "failure" => {
                    failures += 1;
                    in_failure = true;
                }
                _ => {}
            },
            Ok(Event::Text(t)) if in_failure => {
                failure_texts.push_str(&t.xml10_content());
            }
            Ok(Event::End(e)) if e.name().as_ref() == "failure" => in_failure = false,
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!(
                "not XML at {}: {e}\n{}",
                reader.error_position(),
                out.stdout
            ),
        }
    }
    // ticket-counter (2 tests x 10 seeds), lane-closed (5), traveller (10).
    assert_eq!(cases, 35, "{}", out.stdout);
    assert_eq!(suites, 3);
    assert!(
        failures >= 10,
        "every seed of the broken test fails: {failures}"
    );
    assert!(
        failure_texts.contains("trace around tick"),
        "{failure_texts}"
    );
}

/// What a JUnit report says in its `coverage` suite.
#[derive(Debug, PartialEq)]
struct JunitCoverage {
    /// Its properties, (name, value), in order.
    properties: Vec<(String, String)>,
    /// Its `system-out` text.
    system_out: String,
    /// How many test cases it holds.
    cases: usize,
}

/// The `coverage` suite of a JUnit report; `None` when it has none.
fn junit_coverage(xml: &str) -> Option<JunitCoverage> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let attribute = |e: &quick_xml::events::BytesStart, name: &str| {
        e.try_get_attribute(name)
            .unwrap()
            .map(|a| {
                a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                    .unwrap()
                    .into_owned()
            })
            .unwrap_or_default()
    };
    let (mut in_suite, mut in_out, mut found) = (false, false, false);
    let (mut properties, mut out, mut cases) = (Vec::new(), String::new(), 0);
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => match e.name().as_ref() {
                "testsuite" => {
                    in_suite = attribute(&e, "name") == "coverage";
                    found |= in_suite;
                }
                "property" if in_suite => {
                    properties.push((attribute(&e, "name"), attribute(&e, "value")));
                }
                "testcase" if in_suite => cases += 1,
                "system-out" if in_suite => in_out = true,
                _ => {}
            },
            Ok(Event::Text(t)) if in_out => out.push_str(&t.xml10_content()),
            Ok(Event::GeneralRef(r)) if in_out => {
                out.push_str(&quick_xml::escape::unescape(&format!("&{};", &*r)).unwrap());
            }
            Ok(Event::End(e)) if e.name().as_ref() == "system-out" => in_out = false,
            Ok(Event::End(e)) if e.name().as_ref() == "testsuite" => in_suite = false,
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => panic!("not XML at {}: {e}\n{xml}", reader.error_position()),
        }
    }
    found.then_some(JunitCoverage {
        properties,
        system_out: out,
        cases,
    })
}

/// `--coverage --format junit`: the report ends with a `coverage` suite (no test cases) whose
/// properties give each kind's counts and every item no run reached, as the JSON report does,
/// and whose `system-out` (what CI servers show of a suite) is the human report's coverage.
#[test]
fn junit_xml_carries_the_coverage_as_properties_and_system_out() {
    let bench = repo_path("samples/bench");
    let run = |extra: &[&str]| {
        let mut args = vec!["test", bench.as_str(), "--filter", "late tourists"];
        args.extend_from_slice(extra);
        let out = ensemble(&args);
        assert_eq!(out.code, 0, "{}\n{}", out.stdout, out.stderr);
        out
    };
    let doc = json(&run(&["--coverage", "--format", "json"]));
    let junit = run(&["--coverage", "--format", "junit"]);
    let JunitCoverage {
        properties,
        system_out,
        cases,
    } = junit_coverage(&junit.stdout).expect("a coverage suite");
    assert_eq!(cases, 0, "coverage adds no test case");
    let mut expected = Vec::new();
    for section in doc["coverage"].as_array().unwrap() {
        let kind = section["kind"].as_str().unwrap();
        for count in ["reached", "total"] {
            expected.push((
                format!("coverage.{kind}.{count}"),
                section[count].to_string(),
            ));
        }
        for item in section["items"].as_array().unwrap() {
            if item["reached"] == false {
                let name = item["name"].as_str().unwrap().to_string();
                expected.push((format!("never-reached.{kind}"), name));
            }
        }
    }
    assert_eq!(properties, expected, "{}", junit.stdout);
    assert!(
        properties.contains(&("never-reached.rules".into(), "bench/seated/fell".into())),
        "{properties:?}"
    );
    let human = run(&["--coverage"]).stdout;
    let section = &human[human.find("coverage (over every run):").unwrap()..];
    let section = &section[..section.find("\n\n").unwrap() + 1];
    assert_eq!(system_out, section);
    assert!(system_out.contains("never reached: bench/seated/fell"));

    // Without --coverage there is no such suite.
    assert_eq!(junit_coverage(&run(&["--format", "junit"]).stdout), None);
}

#[test]
fn the_human_coverage_report_leaves_out_kinds_the_project_has_none_of() {
    // The innkeeper has HMM states but no state machines, scripts or planning actions: its
    // report lists the one kind it has, never "actions 0/0 reached".
    let out = ensemble(&["test", &repo_path("samples/innkeeper"), "--coverage"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let section = &out.stdout[out.stdout.find("coverage (over every run):").unwrap()..];
    let kinds: Vec<&str> = section
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(kinds, ["hmm_states"], "{section}");
    assert!(!section.contains("0/0"), "{section}");
}

#[test]
fn coverage_json_lists_what_no_run_reached() {
    let out = ensemble(&[
        "test",
        &repo_path("samples/bench"),
        "--coverage",
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let doc = json(&out);
    let sections = doc["coverage"].as_array().unwrap();
    let kinds: Vec<&str> = sections
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["states", "rules", "lines", "hmm_states", "actions"]);
    let rules = &sections[1];
    assert_eq!(rules["total"], rules["items"].as_array().unwrap().len());
    assert!(rules["total"].as_u64().unwrap() >= 6);
    // `fell` fires only when sitting fails: the mocked test reaches it.
    let fell = rules["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"].as_str().unwrap().ends_with("/fell"))
        .expect("rule fell is listed");
    assert_eq!(fell["reached"], true);

    // Without the mocked test nothing makes sitting fail: `fell` is never reached.
    let unmocked = ensemble(&[
        "test",
        &repo_path("samples/bench"),
        "--coverage",
        "--format",
        "json",
        "--filter",
        "late tourists",
    ]);
    let doc = json(&unmocked);
    let fell = doc["coverage"][1]["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"].as_str().unwrap().ends_with("/fell"))
        .unwrap()
        .clone();
    assert_eq!(fell["reached"], false);
    let human = ensemble(&[
        "test",
        &repo_path("samples/bench"),
        "--coverage",
        "--filter",
        "late tourists",
    ]);
    assert!(
        human.stdout.contains("never reached: bench/seated/fell"),
        "{}",
        human.stdout
    );
}

#[test]
fn results_do_not_depend_on_the_number_of_threads() {
    let path = repo_path("samples/street-vendor");
    let strip = |out: ensemble_tests::Output| {
        let mut doc = json(&out);
        doc["summary"]["seconds"] = Value::Null;
        doc
    };
    let one = strip(ensemble(&[
        "test",
        &path,
        "--format",
        "json",
        "--jobs",
        "1",
        "--coverage",
    ]));
    let four = strip(ensemble(&[
        "test",
        &path,
        "--format",
        "json",
        "--jobs",
        "4",
        "--coverage",
    ]));
    assert_eq!(one, four);
}

/// A project with one test file, `text`, beside a copy of the weapon shop.
fn shop_with_test(text: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(&repo_path("samples/weapon-shop")), dir.path());
    std::fs::remove_file(dir.path().join("shop.test.ron")).unwrap();
    std::fs::write(dir.path().join("typo.test.ron"), text).unwrap();
    dir
}

#[test]
fn a_typo_in_a_test_is_an_unknown_reference_with_did_you_mean_at_its_line() {
    let dir = shop_with_test(
        r#"Tests(
    tests: [
        Test(
            name: "typos",
            scene: "shop",
            seeds: List([1]),
            ticks: 10,
            setup: [
                StartIn(agent: "npc", state: "Pleasd"),
                World(name: "PlayerOpensTheDor"),
            ],
            expect: [
                Happens(what: (event: "entre", agent: "npc")),
                Never(what: (event: "enter", agent: "npcc", machine: "Custmer")),
                Happens(what: (event: "plan", agent: "npc", problem: "BuySwrod")),
                Happens(what: (event: "add", agent: "npc", world: "PlayerOpensTheDor")),
                Happens(what: (event: "join", agent: "npc", script: "shopp", role: "buyer")),
            ],
        ),
    ],
)
"#,
    );
    let out = ensemble(&["check", dir.path().to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc = json(&out);
    let found: Vec<(String, u64, String)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["code"], "unknown-reference", "{d}");
            assert_eq!(d["file"], "typo.test.ron");
            (
                d["message"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["notes"][0].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let expect = [
        ("unknown state `Pleasd`", 9, "did you mean `Pleased`?"),
        ("unknown event kind `entre`", 13, "did you mean `enter`?"),
        ("unknown agent `npcc`", 14, "did you mean `npc`?"),
        ("unknown machine `Custmer`", 14, "did you mean `Customer`?"),
        (
            "unknown planning problem `BuySwrod`",
            15,
            "did you mean `BuySword`?",
        ),
        (
            "unknown world event `PlayerOpensTheDor`",
            16,
            "did you mean `PlayerOpensTheDoor`?",
        ),
        (
            "unknown world event `PlayerOpensTheDor`",
            10,
            "did you mean `PlayerOpensTheDoor`?",
        ),
        ("unknown script or machine `shopp`", 17, ""),
        ("unknown role `buyer`", 17, ""), // the shop has no interaction script at all
    ];
    assert_eq!(found.len(), expect.len(), "{found:?}");
    for (message, line, note) in expect {
        assert!(
            found
                .iter()
                .any(|(m, l, n)| m.starts_with(message) && *l == line && n == note),
            "{message} at line {line}: {found:?}"
        );
    }
    // A project whose tests do not check does not run them.
    let test = ensemble(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(test.code, 1);
}

#[test]
fn a_test_of_a_scene_that_does_not_exist_names_the_scenes_there_are() {
    let dir = shop_with_test(
        r#"Tests(
    tests: [
        Test(name: "t", scene: "shopp", seeds: Range(0, 1), ticks: 10, expect: [Never(what: (event: "error"))]),
    ],
)
"#,
    );
    let out = ensemble(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("unknown scene `shopp`"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean `shop`?"),
        "{}",
        out.stderr
    );
}

#[test]
fn nothing_to_run_is_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Ensemble.ron"), "Project(name: \"empty\")").unwrap();
    let out = ensemble(&["test", dir.path().to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("no tests"), "{}", out.stderr);
    let out = ensemble(&[
        "test",
        &repo_path("samples/bench"),
        "--filter",
        "no such test",
    ]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("no test matches"), "{}", out.stderr);
    let out = ensemble(&["test", "/no/such/project"]);
    assert_eq!(out.code, 2);
}

#[test]
fn a_planning_action_forced_to_fail_with_a_probability_fails_in_some_seeds_only() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(&repo_path("samples/dinner-date")), dir.path());
    std::fs::write(
        dir.path().join("date.test.ron"),
        r#"Tests(tests: [Test(
    name: "carry fails half the time",
    scene: "date",
    seeds: Range(0, 19),
    ticks: 600,
    setup: [Action(action: "carry", outcome: Fails, probability: 0.5)],
    expect: [Never(what: (event: "fail", action: "carry"))],
)])"#,
    )
    .unwrap();
    let out = ensemble(&["test", dir.path().to_str().unwrap(), "--format", "json"]);
    let doc = json(&out);
    let runs = doc["tests"][0]["runs"].as_array().unwrap();
    let failed: Vec<&Value> = runs.iter().filter(|r| r["passed"] == false).collect();
    // Seeded draws: some seeds carry the garbage out, some fail and replan with the dolly.
    assert!(
        !failed.is_empty() && failed.len() < runs.len(),
        "{} of {} runs failed",
        failed.len(),
        runs.len()
    );
    for r in &failed {
        assert_eq!(r["failures"][0]["kind"], "Never", "{r}");
    }
    // The same seeds give the same runs.
    let again = json(&ensemble(&[
        "test",
        dir.path().to_str().unwrap(),
        "--format",
        "json",
    ]));
    let passed = |d: &Value| -> Vec<Value> {
        d["tests"][0]["runs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["passed"].clone())
            .collect()
    };
    assert_eq!(passed(&doc), passed(&again));
}
