//! `ensemble run`: the airport scene of the spine issue, determinism, and the golden trace.

use ensemble_tests::{assert_golden, ensemble, json_lines as events, repo_path};

fn airport_trace(seed: &str) -> String {
    let out = ensemble(&[
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-counter",
        "--ticks",
        "2000",
        "--seed",
        seed,
        "--trace",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    out.stdout
}

#[test]
fn every_line_has_the_contract_fields() {
    for e in events(&airport_trace("7")) {
        assert!(e["tick"].is_u64(), "{e}");
        assert!(e["time"].is_number(), "{e}");
        assert!(e["agent"].is_string() || e["agent"].is_null(), "{e}");
        let kind = e["event"].as_str().unwrap();
        match kind {
            "enter" | "exit" => {
                assert!(
                    e["machine"].is_string() && e["state"].is_string() && e["depth"].is_u64(),
                    "{e}"
                )
            }
            "message" => assert!(
                e["from"].is_string() && e["to"].is_string() && e["name"].is_string(),
                "{e}"
            ),
            "say" => assert!(e["text"].is_string(), "{e}"),
            // The seller's ticket hand-over, a transaction inside the conversation machine.
            "add" | "del" => assert!(e["fact"].is_string(), "{e}"),
            // The airport has a navigation graph (terminal.nav.ron): walks are planned.
            "path" => assert!(
                e["to"].is_string() && e["length"].is_number() && e["via"].is_array(),
                "{e}"
            ),
            other => panic!("unexpected event kind {other} in the airport trace: {e}"),
        }
    }
}

#[test]
fn the_seller_serves_two_buyers_in_turn() {
    let trace = events(&airport_trace("7"));
    // The seller's top-level states and its child machine, in order.
    let seller: Vec<String> = trace
        .iter()
        .filter(|e| e["agent"] == "seller" && (e["event"] == "enter" || e["event"] == "exit"))
        .map(|e| {
            format!(
                "{} {}/{}",
                e["event"].as_str().unwrap(),
                e["machine"].as_str().unwrap(),
                e["state"].as_str().unwrap()
            )
        })
        .collect();
    let top_entries: Vec<&str> = seller
        .iter()
        .filter_map(|s| s.strip_prefix("enter StandSellTicket/"))
        .collect();
    let serve = [
        "Goto1",
        "WaitForConversation",
        "TalkStateMachine",
        "FinishTalkState",
    ];
    let expected: Vec<&str> = std::iter::once("Start")
        .chain(serve.iter().copied())
        .chain(serve.iter().copied())
        .chain(["Goto1", "WaitForConversation"])
        .collect();
    assert_eq!(top_entries, expected);
    // Each TalkStateMachine runs SellTicket to its end before FinishTalkState.
    let talks: Vec<usize> = seller
        .iter()
        .enumerate()
        .filter(|(_, s)| *s == "enter StandSellTicket/TalkStateMachine")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(talks.len(), 2);
    for start in talks {
        let rest = &seller[start..];
        let child_start = rest
            .iter()
            .position(|s| s == "enter SellTicket/Start")
            .unwrap();
        let child_end = rest
            .iter()
            .position(|s| s == "enter SellTicket/Finish")
            .unwrap();
        let host_exit = rest
            .iter()
            .position(|s| s == "exit StandSellTicket/TalkStateMachine")
            .unwrap();
        let wrap_up = rest
            .iter()
            .position(|s| s == "enter StandSellTicket/FinishTalkState")
            .unwrap();
        assert!(
            child_start < child_end && child_end < host_exit && host_exit < wrap_up,
            "{rest:#?}"
        );
    }
    // Child states are one level down.
    assert!(
        trace
            .iter()
            .filter(|e| e["machine"] == "SellTicket")
            .all(|e| e["depth"] == 1)
    );
    // Both buyers bought a ticket and went on to the gate.
    for buyer in ["buyer1", "buyer2"] {
        assert!(
            trace.iter().any(|e| e["agent"] == buyer
                && e["event"] == "enter"
                && e["state"] == "Finish"
                && e["depth"] == 0),
            "{buyer} did not finish"
        );
    }
    // buyer2 arrived while the seller was busy: its requests went unanswered until it was free.
    assert!(
        trace
            .iter()
            .any(|e| e["event"] == "message" && e["from"] == "buyer2" && e["handled"] == false)
    );
}

#[test]
fn same_seed_same_trace_and_the_golden_trace_holds() {
    let a = airport_trace("7");
    let b = airport_trace("7");
    assert_eq!(a, b);
    assert_golden("airport-ticket-counter-seed7.jsonl", &a);
    let c = airport_trace("8");
    assert_ne!(
        a, c,
        "the seed should matter (greetings and timings are drawn from it)"
    );
}

#[test]
fn text_trace_is_readable() {
    let out = ensemble(&[
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-counter",
        "--ticks",
        "400",
    ]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains("enter StandSellTicket/Goto1"),
        "{}",
        out.stdout
    );
    assert!(out.stderr.contains("ran 400 ticks"), "{}", out.stderr);
}

#[test]
fn unknown_scene_lists_the_scenes() {
    let out = ensemble(&["run", &repo_path("samples/airport"), "--scene", "lobby"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("(scenes: ") && out.stderr.contains("ticket-counter, ticket-sale"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_project_with_errors_does_not_run() {
    let out = ensemble(&["run", &repo_path("samples/airport/broken"), "--scene", "x"]);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("unknown-reference"), "{}", out.stderr);
    assert!(out.stdout.is_empty());
}
