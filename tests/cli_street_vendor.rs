//! The street vendor sample: passers-by spawned by spawn emitters join the running script late
//! (35.4.2), take numbered tickets and are served in order; a notification emitter draws NPCs
//! over and sends a machine-driven friend to the stall. Invariants over many seeds, with and
//! without failing actions; the workbook and its import; a golden trace.

use ensemble_tests::{
    assert_golden, assert_import_reproduces, ensemble, fact_args as args, repo_path, run_trace,
};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

fn street(seed: u64, ticks: u64, fail_rate: &str) -> (String, Vec<Value>) {
    run_trace("samples/street-vendor", "street", ticks, seed, fail_rate)
}

fn is(e: &Value, event: &str) -> bool {
    e["event"] == event
}

#[test]
fn the_workbook_checks_clean_and_imports_to_the_committed_asset() {
    let out = ensemble(&[
        "check",
        &repo_path("samples/street-vendor/vendor.xlsx"),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let out = ensemble(&[
        "check",
        &repo_path("samples/street-vendor"),
        "--format",
        "json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
    assert_import_reproduces(
        "samples/street-vendor/vendor.xlsx",
        "samples/street-vendor/vendor.script.ron",
    );
}

#[test]
fn vendor_invariants_hold_for_many_seeds() {
    for seed in 0..15 {
        let (_, trace) = street(seed, 18_000, "0");
        check_vendor(seed, &trace);
    }
}

#[test]
fn vendor_invariants_hold_when_actions_fail() {
    let mut burnt = 0;
    for seed in 0..8 {
        let (_, trace) = street(seed, 18_000, "0.25");
        check_vendor(seed, &trace);
        burnt += trace
            .iter()
            .filter(|e| is(e, "add") && e["fact"].as_str().unwrap().starts_with("burnt("))
            .count();
    }
    assert!(burnt > 0, "failed grills take the On Error path");
}

/// The vendor's invariants over one trace.
fn check_vendor(seed: u64, trace: &[Value]) {
    let end = trace.last().unwrap()["time"].as_f64().unwrap();
    let mut grilling: Option<String> = None;
    let mut next_ticket = 1u64;
    let mut now_serving = 0u64;
    let mut ticket: HashMap<String, u64> = HashMap::new();
    let mut took_ticket_at: HashMap<String, f64> = HashMap::new();
    let mut last_grilled = 0u64;
    let mut served: HashSet<String> = HashSet::new();
    let mut shrugged: HashSet<String> = HashSet::new();
    let mut joins: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    for e in trace {
        let t = e["time"].as_f64().unwrap();
        let agent = e["agent"].as_str().unwrap_or("").to_string();
        // The vendor grills for one customer at a time.
        if let Some(a) = args(e, "grilling") {
            if is(e, "add") {
                assert!(
                    grilling.replace(a[0].clone()).is_none(),
                    "seed {seed}: grilling for two at once (t={t})"
                );
            } else if is(e, "del") {
                assert_eq!(
                    grilling.take().as_deref(),
                    Some(a[0].as_str()),
                    "seed {seed}"
                );
            }
        }
        // Tickets are handed out in sequence, one per customer.
        if let Some(a) = args(e, "queued")
            && is(e, "add")
        {
            let n: u64 = a[1].parse().unwrap();
            assert_eq!(n, next_ticket, "seed {seed}: ticket order");
            next_ticket += 1;
            assert!(
                ticket.insert(a[0].clone(), n).is_none(),
                "seed {seed}: two tickets"
            );
            took_ticket_at.insert(a[0].clone(), t);
        }
        if let Some(a) = args(e, "now_serving")
            && is(e, "add")
        {
            let s: u64 = a[0].parse().unwrap();
            assert!(s > now_serving, "seed {seed}: the counter only goes up");
            assert!(
                s <= next_ticket,
                "seed {seed}: serving {s} before it was handed out"
            );
            now_serving = s;
        }
        // Served in ticket order.
        if is(e, "act") && e["action"] == "grill" {
            let who = e["target"].as_str().unwrap();
            let n = ticket[who];
            assert!(
                n >= last_grilled,
                "seed {seed}: {who} (ticket {n}) served out of turn"
            );
            assert_eq!(
                n, now_serving,
                "seed {seed}: grilling for a ticket not called"
            );
            last_grilled = n;
        }
        if let Some(a) = args(e, "has")
            && is(e, "add")
        {
            served.insert(a[0].clone());
        }
        if is(e, "act") && e["action"] == "shrug" {
            shrugged.insert(agent.clone());
        }
        if is(e, "join") && e["role"] == "customer" {
            joins
                .entry(e["tick"].as_u64().unwrap())
                .or_default()
                .push(agent.clone());
        }
    }
    // Everyone with a ticket gets a skewer or gives up.
    for (who, at) in &took_ticket_at {
        if at + 90.0 < end {
            assert!(
                served.contains(who) || shrugged.contains(who),
                "seed {seed}: {who} took a ticket at {at} and was left waiting"
            );
        }
    }
    // Couples join together or not at all.
    for (tick, who) in &joins {
        let couple: Vec<&String> = who.iter().filter(|w| w.starts_with("couple")).collect();
        assert!(
            couple.len().is_multiple_of(2),
            "seed {seed}: a couple split at tick {tick}: {who:?}"
        );
    }
    assert!(
        served.len() >= 20,
        "seed {seed}: only {} customers served",
        served.len()
    );
}

#[test]
fn passers_by_are_spawned_and_join_late() {
    let (_, trace) = street(4, 3_000, "0");
    let spawned: Vec<&Value> = trace
        .iter()
        .filter(|e| is(e, "message") && e["name"] == "spawned")
        .collect();
    assert_eq!(spawned[0]["agent"], "vendor");
    assert_eq!(spawned[0]["from"], "stall");
    // Passers-by come from both gates at their emitters' rhythm, numbered.
    let times = |prefix: &str| -> Vec<f64> {
        spawned
            .iter()
            .filter(|e| e["agent"].as_str().unwrap().starts_with(prefix))
            .map(|e| e["time"].as_f64().unwrap())
            .collect()
    };
    assert_eq!(&times("west")[..3], [2.0, 13.0, 24.0]);
    assert_eq!(&times("east")[..2], [6.0, 23.0]);
    let couple = times("couple");
    assert_eq!(&couple[..2], [20.0, 20.0], "a wave of two");
    assert!(spawned.iter().any(|e| e["agent"] == "west2"));
    // The script started with the vendor alone; customers joined it later.
    let joins: Vec<&Value> = trace.iter().filter(|e| is(e, "join")).collect();
    assert_eq!(joins[0]["agent"], "vendor");
    assert!(joins[1]["tick"].as_u64().unwrap() > joins[0]["tick"].as_u64().unwrap() + 300);
    assert_eq!(joins[1]["role"], "customer");
    // Strollers take no role: they never join.
    assert!(
        !joins
            .iter()
            .any(|e| e["agent"].as_str().unwrap().starts_with("stroller"))
    );
}

#[test]
fn fresh_batches_draw_npcs_and_send_the_friend_over() {
    let (_, trace) = street(2, 6_000, "0");
    let batches: Vec<f64> = trace
        .iter()
        .filter(|e| is(e, "add") && e["fact"] == "fresh(skewers)")
        .map(|e| e["time"].as_f64().unwrap())
        .collect();
    assert_eq!(batches, [40.0, 160.0], "at 0:40 and every two minutes");
    let call = trace
        .iter()
        .position(|e| is(e, "say") && e["agent"] == "vendor")
        .expect("the vendor calls out");
    assert_eq!(trace[call]["text"], "Hot skewers, fresh off the grill!");
    // NPCs in reach hear it from the stall; the ones free to come react.
    let heard: Vec<&Value> = trace
        .iter()
        .filter(|e| is(e, "message") && e["name"] == "FreshBatch" && e["from"] == "stall")
        .collect();
    let drawn: Vec<&str> = heard
        .iter()
        .filter(|e| e["handled"] == true)
        .map(|e| e["agent"].as_str().unwrap())
        .collect();
    assert!(!drawn.is_empty(), "{heard:?}");
    for who in &drawn {
        assert!(
            trace.iter().any(|e| is(e, "join") && e["agent"] == *who),
            "{who} came over and joined"
        );
    }
    // The friend's machine takes the notification as a message and walks over.
    let got = trace
        .iter()
        .position(|e| is(e, "message") && e["agent"] == "friend" && e["name"] == "FreshBatch")
        .expect("the friend hears of it");
    assert_eq!(trace[got]["handled"], true);
    let went = trace[got..]
        .iter()
        .find(|e| e["agent"] == "friend" && is(e, "enter"))
        .unwrap();
    assert_eq!(went["state"], "Goto2");
    let said = trace[got..]
        .iter()
        .find(|e| e["agent"] == "friend" && is(e, "say"))
        .expect("the friend says something at the stall");
    assert_eq!(said["text"], "Smells great! Save me two.");
    // The batch stops being fresh after 30 s, and the vendor stops calling.
    assert!(
        trace
            .iter()
            .any(|e| is(e, "del") && e["fact"] == "fresh(skewers)" && e["time"] == 70.0)
    );
    assert!(
        trace
            .iter()
            .any(|e| is(e, "del") && e["fact"] == "called(skewers)")
    );
}

#[test]
fn same_seed_same_street_trace_and_the_golden_trace_holds() {
    let (a, _) = street(7, 3_600, "0");
    let (b, _) = street(7, 3_600, "0");
    assert_eq!(a, b);
    assert_golden("street-vendor-seed7.jsonl", &a);
    let (c, _) = street(8, 3_600, "0");
    assert_ne!(a, c);
}
