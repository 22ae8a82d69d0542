//! Conversation machines end to end: the airport's ticket sale speaks Fig. 3.2 sentence states
//! with slots bound at run time, the string table matches the trace, and broken sentence
//! content is reported.

use ensemble_tests::{ensemble, repo_path};
use serde_json::Value;

fn trace(scene: &str, seed: &str) -> Vec<Value> {
    let out = ensemble(&[
        "run",
        &repo_path("samples/airport"),
        "--scene",
        scene,
        "--ticks",
        "2500",
        "--seed",
        seed,
        "--trace",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn says<'a>(t: &'a [Value], agent: &str) -> Vec<&'a Value> {
    t.iter()
        .filter(|e| e["event"] == "say" && e["agent"] == agent)
        .collect()
}

#[test]
fn the_ticket_sale_speaks_every_dialog_state_with_runtime_slots() {
    let t = trace("ticket-sale", "7");
    for buyer in ["customer", "traveler"] {
        let lines = says(&t, buyer);
        let sentences: Vec<&str> = lines
            .iter()
            .filter_map(|e| e["sentence"].as_str())
            .collect();
        assert_eq!(sentences, ["WantTicketToX", "LeaveAtX"], "{lines:?}");
        for e in &lines {
            assert!(e["text"].is_string() && e.get("sentence").is_some(), "{e}");
        }
    }
    let want = |who: &str| {
        says(&t, who)
            .into_iter()
            .find(|e| e["sentence"] == "WantTicketToX")
            .unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        want("customer").ends_with("Boston."),
        "{}",
        want("customer")
    );
    assert!(
        want("traveler").ends_with("Chicago."),
        "{}",
        want("traveler")
    );
    assert!(
        want("customer").starts_with("I would like to buy a ticket"),
        "{}",
        want("customer")
    );
    // The seller confirms the city of whoever it is talking to: the slot comes from the partner.
    let seller: Vec<&Value> = says(&t, "seller")
        .into_iter()
        .filter(|e| e["sentence"].is_string())
        .collect();
    let order: Vec<&str> = seller
        .iter()
        .map(|e| e["sentence"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "WhenTravel",
            "ConfirmFlightX",
            "WhenTravel",
            "ConfirmFlightX"
        ]
    );
    assert!(
        seller[1]["text"].as_str().unwrap().ends_with("Boston."),
        "{}",
        seller[1]
    );
    assert!(
        seller[3]["text"].as_str().unwrap().ends_with("Chicago."),
        "{}",
        seller[3]
    );
    assert!(
        seller
            .iter()
            .all(|e| e["candidate"].as_str().is_some_and(|c| c.len() == 8))
    );
    // One-off and plain lines say which sentence state they are not.
    assert!(says(&t, "seller").iter().any(|e| e["sentence"].is_null()));
}

#[test]
fn same_seed_same_words() {
    let a = trace("ticket-sale", "3");
    let b = trace("ticket-sale", "3");
    assert_eq!(a, b);
}

#[test]
fn string_table_lists_the_candidates_the_trace_speaks() {
    let dir = tempfile::tempdir().unwrap();
    let csv = dir.path().join("strings.csv");
    let out = ensemble(&[
        "build",
        &repo_path("samples/airport"),
        "-o",
        dir.path().to_str().unwrap(),
        "--strings",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let table = std::fs::read_to_string(&csv).unwrap();
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("id,sentence,rank,score,text,slots"));
    // 7 sentence states, 5 candidates kept each.
    assert_eq!(lines.count(), 35);
    for e in trace("ticket-sale", "7")
        .iter()
        .filter(|e| e["event"] == "say" && e["sentence"].is_string())
    {
        let id = e["candidate"].as_str().unwrap();
        assert!(
            table
                .lines()
                .any(|l| l.starts_with(&format!("{id},{},", e["sentence"].as_str().unwrap()))),
            "{id} missing"
        );
    }
    // Stable ids: building again gives the same table.
    let again = dir.path().join("again.csv");
    ensemble(&[
        "build",
        &repo_path("samples/airport"),
        "-o",
        dir.path().to_str().unwrap(),
        "--strings",
        again.to_str().unwrap(),
    ]);
    assert_eq!(std::fs::read_to_string(&again).unwrap(), table);
}

#[test]
fn broken_sentence_content_is_reported_in_one_run() {
    let out = ensemble(&[
        "check",
        &repo_path("tests/fixtures/nlg-broken"),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let ds = doc["diagnostics"].as_array().unwrap();
    let find = |code: &str, needle: &str| {
        ds.iter()
            .find(|d| d["code"] == code && d["message"].as_str().unwrap().contains(needle))
            .unwrap_or_else(|| panic!("no {code} about {needle}: {}", out.stdout))
    };
    let unbound = find("unbound-sentence-variable", "CityName");
    assert_eq!(unbound["severity"], "error");
    assert_eq!(unbound["file"], "machines/Talker.machine.ron");
    assert_eq!(unbound["line"], 8);
    assert!(
        unbound["related"][0]["file"] == "talk.sentences.ron",
        "{unbound}"
    );
    let unknown = find("unknown-reference", "WantTicketToY");
    assert_eq!(unknown["line"], 9);
    assert!(
        unknown["notes"]
            .to_string()
            .contains("did you mean `WantTicketToX`"),
        "{unknown}"
    );
    let past = find("syntax", "`PAST` must be followed by a verb");
    assert_eq!(
        (
            past["file"].as_str(),
            past["line"].as_u64(),
            past["column"].as_u64()
        ),
        (Some("talk.sentences.ron"), Some(5), Some(38))
    );
    find("syntax", "`VARIABLE` must be followed by a name");
    find("invalid-value", "not `Name = value`");
    // No n-gram source: a warning, not an error.
    assert!(
        ds.iter()
            .any(|d| d["code"] == "ngram-database" && d["severity"] == "warning")
    );
}

#[test]
fn a_buyer_without_a_city_is_an_unbound_variable() {
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("airport");
    copy_dir(std::path::Path::new(&repo_path("samples/airport")), &copy);
    let scene = copy.join("ticket-counter.scene.ron");
    let text = std::fs::read_to_string(&scene).unwrap();
    std::fs::write(&scene, text.replace(r#""CityName": "San Francisco", "#, "")).unwrap();
    let out = ensemble(&["check", copy.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    let files: Vec<&str> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "unbound-sentence-variable")
        .map(|d| d["file"].as_str().unwrap())
        .collect();
    // The buyer's own WantTicketToX, and the seller's ConfirmFlightX (its partner's city).
    assert_eq!(
        files,
        [
            "machines/BuyTicket.machine.ron",
            "machines/SellTicket.machine.ron"
        ],
        "{}",
        out.stdout
    );
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_name() == "build" || e.file_name() == "broken" {
            continue;
        }
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}
