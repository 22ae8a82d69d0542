//! The market sample: two shops from one base script with meta-parameters (35.6), tills as
//! proxy objects, keepers placed by spawn emitters, the player through a player emitter and a
//! notification emitter — checked as invariants over many seeds, and as a golden trace.

use ensemble_tests::{assert_golden, build_program, ensemble, fact_args, repo_path, run_trace};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

const TICKS: u64 = 12_000; // 400 s of scene time at 30 ticks per second

fn market(seed: u64, ticks: u64, fail_rate: &str) -> (String, Vec<Value>) {
    run_trace("samples/shops", "market", ticks, seed, fail_rate)
}

fn is(e: &Value, event: &str) -> bool {
    e["event"] == event
}

#[test]
fn the_market_checks_clean_and_the_template_is_not_compiled_alone() {
    let out = ensemble(&["check", &repo_path("samples/shops"), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
    let program = build_program(&ensemble_tests::root().join("samples/shops"), "shops");
    let scripts: Vec<&str> = program
        .scripts
        .iter()
        .map(|s| program.name(s.name))
        .collect();
    assert_eq!(scripts, ["baker", "fishmonger"]);
    // The derived scripts differ only where their meta-parameters and own rules say.
    let queue = |s: usize| {
        let def = &program.scripts[s];
        def.roles[def
            .role_by_name(program.name_id("customer").unwrap())
            .unwrap() as usize]
            .max
    };
    assert_eq!((queue(0), queue(1)), (3, 2));
    // Each derived script's own rules come before the base's in their state (precedence).
    let rules_in = |s: usize, state: &str| -> Vec<&str> {
        let def = &program.scripts[s];
        let st = def
            .states
            .iter()
            .position(|x| program.name(x.name) == state)
            .unwrap();
        def.rules_of(st as u16)
            .iter()
            .map(|r| program.name(r.name))
            .collect()
    };
    let baker_open = rules_in(0, "open");
    assert_eq!(baker_open[0], "announce", "{baker_open:?}");
    assert!(!baker_open.contains(&"haggle"));
    let fish_wait = rules_in(1, "wait");
    assert_eq!(fish_wait[0], "haggle", "{fish_wait:?}");
    assert!(!rules_in(1, "open").contains(&"announce"));
}

#[test]
fn shop_invariants_hold_for_many_seeds() {
    for seed in 0..12 {
        let (_, trace) = market(seed, TICKS, "0");
        check_shops(seed, &trace);
    }
}

#[test]
fn shop_invariants_hold_when_actions_fail() {
    for seed in 0..6 {
        let (_, trace) = market(seed, TICKS, "0.2");
        check_shops(seed, &trace);
        assert!(
            trace.iter().any(|e| is(e, "fail")),
            "seed {seed}: a 20% failure rate fails some action"
        );
    }
}

/// The shops' invariants over one trace.
fn check_shops(seed: u64, trace: &[Value]) {
    let end = trace
        .last()
        .map(|e| e["time"].as_f64().unwrap())
        .unwrap_or(0.0);
    // One customer at a time per shop.
    let mut serving: HashMap<String, String> = HashMap::new();
    // Wares and prices per shop, as stocked.
    let mut price: HashMap<(String, String), String> = HashMap::new();
    let mut wants: Vec<(String, String, String, f64)> = Vec::new();
    let mut taken: HashSet<(String, String)> = HashSet::new();
    for e in trace {
        let script = e["script"].as_str().unwrap_or("").to_string();
        let agent = e["agent"].as_str().unwrap_or("").to_string();
        let t = e["time"].as_f64().unwrap();
        if let Some(a) = fact_args(e, "serving") {
            if is(e, "add") {
                if let Some(other) = serving.insert(script.clone(), a[0].clone()) {
                    panic!(
                        "seed {seed}: {script} serves {} while serving {other} (t={t})",
                        a[0]
                    );
                }
            } else if is(e, "del") {
                assert_eq!(serving.remove(&script).as_deref(), Some(a[0].as_str()));
            }
        }
        if let Some(a) = fact_args(e, "ware")
            && is(e, "add")
        {
            price.insert((script.clone(), a[0].clone()), a[1].clone());
        }
        if let Some(a) = fact_args(e, "wants")
            && is(e, "add")
        {
            wants.push((script.clone(), a[0].clone(), a[1].clone(), t));
        }
        // The till rings up exactly the price on the counter.
        if let Some(a) = fact_args(e, "due")
            && is(e, "add")
        {
            assert_eq!(
                price.get(&(script.clone(), a[1].clone())),
                Some(&a[2]),
                "seed {seed}: {e}"
            );
        }
        if is(e, "act") && e["action"] == "ring_up" {
            // Tills are proxies: they only do what they offer, and only after a hand-over.
            assert!(agent.ends_with("_till"), "seed {seed}: {e}");
        }
        if agent.ends_with("_till") && is(e, "act") {
            let a = e["action"].as_str().unwrap();
            assert!(
                ["ring_up", "open_page", "close_page"].contains(&a),
                "seed {seed}: the till did `{a}`"
            );
        }
        if is(e, "done") && e["action"] == "take" {
            taken.insert((agent.clone(), e["target"].as_str().unwrap().to_string()));
        }
    }
    // Everyone who asked for something in time got it (failed steps are retried).
    for (script, who, item, t) in &wants {
        if *t + 90.0 > end {
            continue;
        }
        assert!(
            taken.contains(&(who.clone(), item.clone())),
            "seed {seed}: {who} wanted {item} at {script} (t={t}) and never took it"
        );
    }
    assert!(
        wants.len() >= 8,
        "seed {seed}: the shops should be busy ({wants:?})"
    );
}

#[test]
fn the_player_buys_through_the_till_and_chats() {
    let (_, trace) = market(7, 3_000, "0");
    let find = |pred: &dyn Fn(&Value) -> bool| trace.iter().position(pred);
    let icon = find(&|e| is(e, "message") && e["agent"] == "player" && e["name"] == "shop")
        .expect("the bakery shows the player its icon");
    assert_eq!(trace[icon]["from"], "bakery");
    let join = find(&|e| is(e, "join") && e["agent"] == "player").expect("the player joins");
    assert!(icon < join);
    assert_eq!(trace[join]["role"], "buyer");
    assert_eq!(trace[join]["script"], "baker");
    assert_eq!(trace[join]["time"], 25.0, "at the scripted moment");
    let page =
        find(&|e| is(e, "act") && e["action"] == "open_page").expect("the till opens the page");
    assert_eq!(trace[page]["agent"], "bakery_till");
    assert_eq!(trace[page]["target"], "player");
    // The proxy pushes what the player bought into the blackboard.
    let sale = find(&|e| is(e, "add") && e["fact"] == "sale(player,cake)").expect("the sale");
    assert_eq!(trace[sale]["agent"], "bakery_till");
    let took = find(&|e| is(e, "done") && e["action"] == "take" && e["agent"] == "player")
        .expect("the player gets the cake");
    assert_eq!(trace[took]["target"], "cake");
    assert!(took > sale);
    // Player input goes on the blackboard, and the baker answers from it.
    let asks = find(&|e| is(e, "add") && e["fact"] == "asks(player,weather)").unwrap();
    assert_eq!(trace[asks]["agent"], "player");
    assert!(
        trace[asks..]
            .iter()
            .any(|e| is(e, "say") && e["text"] == "Lovely weather for baking.")
    );
    assert!(
        trace
            .iter()
            .any(|e| is(e, "say") && e["text"] == "Ask me about bread!")
    );
    let left = find(&|e| is(e, "leave") && e["agent"] == "player").expect("the player leaves");
    assert_eq!(trace[left]["time"], 90.0);
    // The page closes once the player has collected.
    assert!(
        trace
            .iter()
            .any(|e| is(e, "act") && e["action"] == "close_page" && e["target"] == "player")
    );
}

#[test]
fn the_two_shops_speak_their_own_lines_from_one_base_script() {
    let (_, trace) = market(3, TICKS, "0");
    let lines = |who: &str| -> HashSet<String> {
        trace
            .iter()
            .filter(|e| is(e, "say") && e["agent"] == who)
            .map(|e| e["text"].as_str().unwrap().to_string())
            .collect()
    };
    let (baker, fish) = (lines("baker"), lines("fishmonger"));
    assert!(
        baker.contains("Good morning! Everything fresh from the oven."),
        "{baker:?}"
    );
    assert!(fish.contains("Caught this morning, all of it!"), "{fish:?}");
    assert!(baker.is_disjoint(&fish), "{baker:?} / {fish:?}");
    let acts = |who: &str| -> HashSet<String> {
        trace
            .iter()
            .filter(|e| is(e, "act") && e["agent"] == who)
            .map(|e| e["action"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(acts("baker").contains("bag") && acts("baker").contains("tie_apron"));
    assert!(acts("fishmonger").contains("wrap_in_paper"));
    assert!(!acts("fishmonger").contains("bag"));
    // The fishmonger's own rule: customers haggle over dear fish.
    assert!(
        trace
            .iter()
            .any(|e| is(e, "act") && e["action"] == "haggle")
    );
}

#[test]
fn keepers_are_spawned_and_fresh_bread_draws_customers() {
    let (_, trace) = market(5, 5_000, "0");
    for (keeper, location) in [("baker", "bakery"), ("fishmonger", "fish_stall")] {
        let spawned = trace
            .iter()
            .find(|e| is(e, "message") && e["agent"] == keeper && e["name"] == "spawned")
            .unwrap_or_else(|| panic!("{keeper} is spawned"));
        assert_eq!(spawned["from"], location);
        assert_eq!(spawned["tick"], 1);
    }
    // The notification at 1:30: its fact goes on the blackboard, NPCs near enough hear it, and
    // those who can still shop there react.
    let fresh = trace
        .iter()
        .position(|e| is(e, "add") && e["fact"] == "fresh(bread)")
        .expect("fresh bread is announced");
    assert_eq!(trace[fresh]["time"], 90.0);
    assert!(trace[fresh]["agent"].is_null());
    let heard: Vec<&Value> = trace
        .iter()
        .filter(|e| is(e, "message") && e["name"] == "FreshBread")
        .collect();
    assert!(heard.iter().any(|e| e["handled"] == true), "{heard:?}");
    assert!(
        trace
            .iter()
            .any(|e| is(e, "say") && e["text"] == "Fresh bread, still warm!")
    );
    // It lasts a minute.
    let gone = trace
        .iter()
        .find(|e| is(e, "del") && e["fact"] == "fresh(bread)")
        .expect("the fact stops lasting");
    assert_eq!(gone["time"], 150.0);
}

#[test]
fn same_seed_same_market_trace_and_the_golden_trace_holds() {
    let (a, _) = market(7, 3_600, "0");
    let (b, _) = market(7, 3_600, "0");
    assert_eq!(a, b);
    assert_golden("shops-market-seed7.jsonl", &a);
    let (c, _) = market(8, 3_600, "0");
    assert_ne!(a, c);
}
