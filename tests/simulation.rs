//! The runner every host uses (`ensemble_sim::Simulation`): it produces exactly the
//! traces `ensemble run` printed before the runner existed (the golden files), carries state
//! across a reload, and what it shows of a running scene (blackboards, agents, transcript)
//! agrees with its own trace.

use ensemble_runtime::Program;
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_sim::Simulation;
use ensemble_sim::simulation::{AgentKind, LineKind, Options, SceneKind, StartError};
use ensemble_tests::{assert_golden, copy_dir, first_difference, json_lines, root};
use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

fn compile(project: &Path) -> Arc<Program> {
    let c = ensemble_compiler::compile_path(project).expect("the project reads");
    let (program, _) = c.output.unwrap_or_else(|| {
        panic!(
            "{} does not compile: {}",
            project.display(),
            c.diagnostics.summary()
        )
    });
    Arc::new(program)
}

fn sample(name: &str) -> Arc<Program> {
    compile(&root().join("samples").join(name))
}

/// What `ensemble run --ticks N --trace json` prints: tick 0, then N ticks.
fn run(sim: &mut Simulation, ticks: u64) -> String {
    let mut out = String::new();
    for tick in 0..=ticks {
        if tick > 0 {
            sim.tick();
        }
        for e in sim.take_events() {
            out.push_str(&e.to_json());
            out.push('\n');
        }
    }
    out
}

#[test]
fn the_runner_gives_the_golden_traces_of_ensemble_run() {
    for (project, scene, ticks, seed, file) in [
        (
            "airport",
            "ticket-counter",
            2000,
            7,
            "airport-ticket-counter-seed7.jsonl",
        ),
        ("bench", "bench", 20_000, 11, "bench-seed11.jsonl"),
        ("shops", "market", 3_600, 7, "shops-market-seed7.jsonl"),
        (
            "street-vendor",
            "street",
            3_600,
            7,
            "street-vendor-seed7.jsonl",
        ),
        // Doors of the navigation graph: walkers re-route round a closed lane.
        (
            "airport",
            "lane-closed",
            2000,
            7,
            "airport-lane-closed-seed7.jsonl",
        ),
        (
            "airport",
            "traveller",
            1_500,
            7,
            "airport-traveller-seed7.jsonl",
        ),
        (
            "weapon-shop",
            "shop",
            300,
            7,
            "weapon-shop-shop-seed7.jsonl",
        ),
        (
            "weapon-shop",
            "shop-sold-out",
            300,
            7,
            "weapon-shop-sold-out-seed7.jsonl",
        ),
        (
            "dinner-date",
            "date",
            300,
            7,
            "dinner-date-date-seed7.jsonl",
        ),
        (
            "dinner-date",
            "funny-evening",
            800,
            7,
            "dinner-date-funny-evening-seed7.jsonl",
        ),
    ] {
        let mut sim = Simulation::start(sample(project), scene, seed, &Options::default())
            .unwrap_or_else(|e| panic!("{project}/{scene}: {e}"));
        assert_eq!(sim.kind(), SceneKind::Machines);
        assert_golden(file, &run(&mut sim, ticks));
    }
}

#[test]
fn scenes_tick_on_threads_as_they_do_one_after_another() {
    // Scenes of the golden traces, as long as theirs.
    let scenes = [
        ("airport", "ticket-counter", 2000),
        ("weapon-shop", "shop", 300),
        ("dinner-date", "funny-evening", 800),
        ("street-vendor", "street", 3_600),
    ];
    let programs: Vec<_> = scenes.iter().map(|(p, _, _)| sample(p)).collect();
    let start = |i: usize| {
        Simulation::start(programs[i].clone(), scenes[i].1, 7, &Options::default()).unwrap()
    };
    let one_after_another: Vec<String> = (0..scenes.len())
        .map(|i| run(&mut start(i), scenes[i].2))
        .collect();
    // Started here, ticked on threads: each simulation moves with its scene, library and world.
    let sims: Vec<Simulation> = (0..scenes.len()).map(start).collect();
    let in_parallel: Vec<String> = std::thread::scope(|threads| {
        let handles: Vec<_> = sims
            .into_iter()
            .zip(&scenes)
            .map(|(mut sim, &(_, _, ticks))| threads.spawn(move || run(&mut sim, ticks)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for ((project, scene, _), (seq, par)) in scenes
        .iter()
        .zip(one_after_another.iter().zip(&in_parallel))
    {
        assert!(
            seq.lines().count() > 30,
            "{project}/{scene} records its run ({} lines)",
            seq.lines().count()
        );
        assert!(
            seq == par,
            "{project}/{scene}: on a thread the trace differs at {}",
            first_difference(seq, par)
        );
    }
}

#[test]
fn the_runner_gives_the_golden_conversation() {
    let mut sim = Simulation::start(sample("innkeeper"), "chat", 7, &Options::default()).unwrap();
    assert_eq!(sim.kind(), SceneKind::Chat);
    let transcript =
        std::fs::read_to_string(root().join("samples/innkeeper/transcripts/xenos.txt")).unwrap();
    // As `ensemble run --input FILE` does: the player speaks when the agent has nothing of its
    // own to hear; comments are skipped; the run ends when the input is exhausted.
    let mut lines = transcript
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'));
    let mut out = String::new();
    for _ in 1..=10_000u64 {
        if sim.awaits_player() {
            match lines.next() {
                Some(line) => assert!(sim.say(line)),
                None => break,
            }
        }
        sim.tick();
        for e in sim.take_events() {
            out.push_str(&e.to_json());
            out.push('\n');
        }
    }
    assert_golden("innkeeper-chat-seed7.jsonl", &out);
    // The transcript holds the player's lines and the agent's outputs, in order.
    let said: Vec<(String, String)> = json_lines(&out)
        .iter()
        .filter(|e| e["event"] == "input" || e["event"] == "output")
        .map(|e| {
            let who = if e["event"] == "input" {
                e["speaker"].as_str().unwrap()
            } else {
                e["agent"].as_str().unwrap()
            };
            (who.to_string(), e["text"].as_str().unwrap().to_string())
        })
        .collect();
    let lines: Vec<(String, String)> = sim
        .transcript()
        .map(|l| (l.speaker.to_string(), l.text.clone()))
        .collect();
    assert_eq!(lines, said);
    assert!(
        sim.transcript()
            .any(|l| matches!(&l.kind, LineKind::Player { emote, .. } if &**emote == "says"))
    );
    // Every space's belief is a distribution.
    let beliefs = sim.beliefs();
    assert!(!beliefs.is_empty());
    for b in &beliefs {
        let sum: f64 = b.states.iter().map(|(_, p)| p).sum();
        assert!((sum - 1.0).abs() < 1e-6, "{}: {sum}", b.space);
    }
    assert!(sim.agents()[0].kind == AgentKind::Social);
}

#[test]
fn unknown_scenes_list_every_scene_and_conversation() {
    let err = Simulation::start(sample("airport"), "nope", 1, &Options::default())
        .err()
        .unwrap();
    let StartError::UnknownScene { available, .. } = &err else {
        panic!("{err}")
    };
    assert!(available.contains(&"ticket-counter".to_string()));
    assert!(err.to_string().contains("ticket-sale"), "{err}");
}

/// Whether `agent` entered `machine/state`.
fn entered(events: &[TraceEvent], agent: &str, at: &str) -> bool {
    events.iter().any(|e| {
        e.agent.as_deref() == Some(agent)
            && matches!(&e.kind, EventKind::Enter { machine, state, .. } if format!("{machine}/{state}") == at)
    })
}

#[test]
fn a_reload_keeps_every_agent_in_its_state_and_a_refused_one_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("samples/airport"), dir.path());
    let mut sim = Simulation::start(
        compile(dir.path()),
        "ticket-counter",
        7,
        &Options::default(),
    )
    .unwrap();
    for _ in 0..300 {
        sim.tick();
    }
    sim.take_events();
    let before = sim.agents();

    // A new state the seller goes to after each sale, added by the same edit.
    let machine = dir.path().join("machines/StandSellTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    let edited = text
        .replace(r#"("FinishTalk", "Goto1")"#, r#"("FinishTalk", "Stretch1")"#)
        .replace(
            "    ],\n)",
            "        (name: \"Stretch1\", code: \"Wait\", modifier: 1.5, on: [(\"Done\", \"Goto1\")]),\n    ],\n)",
        );
    assert_ne!(text, edited);
    std::fs::write(&machine, edited).unwrap();
    let report = sim.reload(compile(dir.path()), "test").unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    assert!(report.kept >= 3);
    let after = sim.agents();
    assert_eq!(before, after, "every agent keeps its states and place");
    let events = sim.take_events();
    assert!(matches!(
        events.as_slice(),
        [TraceEvent {
            kind: EventKind::Reload { .. },
            ..
        }]
    ));

    let mut seen = Vec::new();
    for _ in 0..6000 {
        sim.tick();
        seen.extend(sim.take_events());
        if entered(&seen, "seller", "StandSellTicket/Stretch1") {
            break;
        }
    }
    assert!(
        entered(&seen, "seller", "StandSellTicket/Stretch1"),
        "the new state runs"
    );
    assert!(
        !entered(&seen, "seller", "StandSellTicket/Start"),
        "the seller never restarted"
    );

    let tick = sim.tick_count();
    sim.reject_reload("BuyTicket.machine.ron:3:1: syntax error");
    let events = sim.take_events();
    assert!(
        matches!(&events[..], [TraceEvent { kind: EventKind::ReloadRejected { reason }, tick: t, .. }] if reason.contains("syntax") && *t == tick)
    );
    sim.tick();
    assert_eq!(sim.tick_count(), tick + 1, "the scene goes on");
}

#[test]
fn agents_show_their_stack_place_and_partner() {
    let mut sim =
        Simulation::start(sample("airport"), "ticket-counter", 7, &Options::default()).unwrap();
    let start = sim.agents();
    assert_eq!(start.len(), 3);
    let seller = &start[0];
    assert_eq!(&*seller.name, "seller");
    assert_eq!(seller.kind, AgentKind::Machine);
    // At SellerSpawn (12, 6), entering its first walk.
    assert_eq!(seller.at, Some([12.0, 6.0]));
    assert_eq!(&*seller.states[0].machine, "StandSellTicket");
    let mut talked = false;
    for _ in 0..2000 {
        sim.tick();
        let agents = sim.agents();
        let by_name: HashMap<&str, _> = agents.iter().map(|a| (&*a.name, a)).collect();
        // Partners agree (the second one learns it from a message, a tick later).
        for a in &agents {
            if let Some(p) = a.partner {
                talked = true;
                let back = agents[p.index()].partner;
                assert!(back.is_none() || back == Some(a.id), "{}", a.name);
            }
            for pair in a.states.windows(2) {
                assert_ne!(pair[0].machine, pair[1].machine);
            }
        }
        assert!(by_name["seller"].at.is_some());
    }
    assert!(talked, "the seller talks with a buyer");
    // Every line said is in the transcript, with its sentence state when it has one.
    assert!(
        sim.transcript()
            .any(|l| l.sentence.as_deref() == Some("WhenTravel"))
    );
}

#[test]
fn blackboards_hold_what_the_trace_added_and_deleted() {
    let program = sample("bench");
    let props: BTreeSet<String> = program
        .smart_locations
        .iter()
        .flat_map(|l| {
            l.props
                .iter()
                .map(|(name, kind)| format!("{}({})", program.name(*kind), program.name(*name)))
        })
        .collect();
    let mut sim = Simulation::start(program, "bench", 11, &Options::default()).unwrap();
    let mut facts: BTreeSet<String> = BTreeSet::new();
    let mut instance = None;
    let mut checked = 0;
    let mut participants = 0;
    for _ in 0..8000 {
        sim.tick();
        let events = sim.take_events();
        let boards = sim.blackboards();
        assert!(boards.len() <= 1, "the bench runs one script at a time");
        let Some(b) = boards.first() else {
            instance = None;
            continue;
        };
        if instance != Some(b.instance) {
            instance = Some(b.instance);
            facts = props.clone();
        }
        for e in &events {
            match &e.kind {
                EventKind::Add { fact, .. } => {
                    facts.insert(fact.clone());
                }
                EventKind::Del { fact, .. } => {
                    facts.remove(fact);
                }
                _ => {}
            }
        }
        let shown: BTreeSet<String> = b.facts().into_iter().collect();
        assert_eq!(shown, facts, "tick {}", sim.tick_count());
        checked += 1;
        participants = participants.max(b.participants.len());
        for p in &b.participants {
            let a = &sim.agents()[p.agent.index()];
            assert_eq!(a.name, p.name);
            assert!(a.at.is_some(), "{} takes part where it stands", p.name);
        }
    }
    assert!(checked > 1000, "the bench ran a script for a while");
    assert!(participants >= 2);
}

/// A reload of the very program that runs changes nothing: the trace with a reload in the
/// middle is the trace without it, but for the `reload` event (everything carries over, down
/// to script instances, planning worlds and world events already fired).
#[test]
fn reloading_the_same_program_changes_nothing() {
    for (project, scene, ticks, at) in [
        ("airport", "ticket-counter", 1_500, 400),
        ("airport", "traveller", 1_500, 300),
        ("bench", "bench", 6_000, 2_500),
        ("dinner-date", "funny-evening", 800, 200),
    ] {
        let program = sample(project);
        let plain = {
            let mut sim =
                Simulation::start(program.clone(), scene, 7, &Options::default()).unwrap();
            run(&mut sim, ticks)
        };
        let mut sim = Simulation::start(program.clone(), scene, 7, &Options::default()).unwrap();
        let mut out = String::new();
        for tick in 0..=ticks {
            if tick > 0 {
                sim.tick();
            }
            if tick == at {
                let again = Arc::new((*program).clone());
                let report = sim.reload(again, "same").unwrap();
                assert!(
                    report.fallbacks.is_empty(),
                    "{project}/{scene}: {:?}",
                    report.fallbacks
                );
            }
            for e in sim.take_events() {
                if !matches!(e.kind, EventKind::Reload { .. }) {
                    out.push_str(&e.to_json());
                    out.push('\n');
                }
            }
        }
        assert!(
            out == plain,
            "{project}/{scene}: the reload changed the run at {}",
            first_difference(&plain, &out)
        );
    }
}

#[test]
fn a_reload_of_another_projects_program_is_refused_and_the_scene_goes_on() {
    let airport = sample("airport");
    assert_eq!(airport.project, "airport");
    let mut sim = Simulation::start(airport, "ticket-counter", 7, &Options::default()).unwrap();
    run(&mut sim, 50);
    let refused = sim
        .reload(sample("bench"), "pushed")
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("built from project `bench`, but the scene runs project `airport`"),
        "{refused}"
    );
    let events = sim.take_events();
    assert!(
        events.iter().any(|e| matches!(&e.kind,
            EventKind::ReloadRejected { reason } if reason.contains("project `bench`"))),
        "a reload-rejected event says why"
    );
    // Still the airport: the seller goes on serving.
    let after = run(&mut sim, 1_500);
    assert!(after.contains("\"enter\""), "{after}");
}

/// The planning world reloads with the program: a world event removed by the edit no longer
/// happens (the traveller's gate stays where it was), and one that already happened stays
/// happened.
#[test]
fn world_events_follow_the_reloaded_scene() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&root().join("samples/airport"), dir.path());
    // The traveller's content tests name the event this test removes.
    std::fs::remove_file(dir.path().join("traveller/traveller.test.ron")).unwrap();
    let scene_file = dir.path().join("traveller/traveller.scene.ron");
    let text = std::fs::read_to_string(&scene_file).unwrap();
    let changed = |e: &TraceEvent| matches!(&e.kind, EventKind::WorldFact { world, .. } if &**world == "GateChanged");

    // Removed before it happens: it never does.
    let mut sim =
        Simulation::start(compile(dir.path()), "traveller", 7, &Options::default()).unwrap();
    for _ in 0..300 {
        sim.tick();
    }
    let start = text.find("    events: [").unwrap();
    let end = text[start..].find("],\n").unwrap() + start + 3;
    std::fs::write(&scene_file, format!("{}{}", &text[..start], &text[end..])).unwrap();
    let report = sim.reload(compile(dir.path()), "no gate change").unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    let mut seen = sim.take_events();
    for _ in 300..1500 {
        sim.tick();
        seen.extend(sim.take_events());
    }
    assert!(!seen.iter().any(changed), "the removed event happened");

    // Already happened: a reload does not make it happen again.
    std::fs::write(&scene_file, &text).unwrap();
    let mut sim =
        Simulation::start(compile(dir.path()), "traveller", 7, &Options::default()).unwrap();
    let mut seen = Vec::new();
    // The gate changes once the traveller stands at it.
    while !seen.iter().any(changed) {
        assert!(sim.tick_count() < 1500, "the gate never changed");
        sim.tick();
        seen.extend(sim.take_events());
    }
    sim.reload(compile(dir.path()), "same").unwrap();
    seen.clear();
    for _ in 0..800 {
        sim.tick();
        seen.extend(sim.take_events());
    }
    assert!(!seen.iter().any(changed), "the event happened twice");
}

/// The route each agent has ahead (what the editor's map draws) agrees with the trace: when a
/// walk is planned, it ends at the location the `path` event names and passes its `via` nodes
/// in order; a walk on no graph goes straight to its location; an agent that stops walking has
/// none.
#[test]
fn the_route_ahead_agrees_with_the_path_events() {
    let program = sample("airport");
    let nav = &program.nav;
    let graph_nodes = nav.data.as_ref().unwrap().graph.node_count();
    let node = |name: &str| {
        (0..graph_nodes)
            .find(|&v| nav.node_name(v).is_some_and(|n| program.name(n) == name))
            .and_then(|v| nav.world(v))
            .unwrap_or_else(|| panic!("no node {name}"))
    };
    let location = |p: &Program, name: &str| {
        let l = p.locations.iter().find(|l| p.name(l.name) == name).unwrap();
        [l.x, l.y]
    };
    let mut sim =
        Simulation::start(program.clone(), "lane-closed", 7, &Options::default()).unwrap();
    let (mut checked, mut reroutes) = (0, 0);
    for _ in 0..2000 {
        sim.tick();
        let events = sim.take_events();
        let scene = sim.scene().unwrap();
        for e in events {
            let EventKind::Path {
                to,
                via,
                reroute,
                cost: Some(_),
                ..
            } = &e.kind
            else {
                continue;
            };
            let agent = sim
                .agents()
                .into_iter()
                .find(|a| Some(&*a.name) == e.agent.as_deref())
                .unwrap();
            let Some(walk) = scene.game.walk(agent.id) else {
                // Planned and arrived within the same tick: nothing left to show.
                continue;
            };
            let ahead = walk.ahead();
            assert_eq!(ahead.last(), Some(&location(&program, to)), "{e:?}");
            let mut points = walk.points.iter();
            for name in via {
                let at = node(name);
                assert!(points.any(|p| *p == at), "{name} in order: {e:?}");
            }
            checked += 1;
            reroutes += usize::from(*reroute);
        }
    }
    assert!(
        checked >= 6 && reroutes >= 2,
        "{checked} walks, {reroutes} re-routes"
    );
    // At the end every buyer stands at the gate, and nobody walks.
    let scene = sim.scene().unwrap();
    for a in sim.agents() {
        assert!(scene.game.walk(a.id).is_none(), "{} still walks", a.name);
    }

    // No graph: each walk is the straight line to its location, then none on arrival.
    let program = sample("dinner-date");
    let mut sim = Simulation::start(program.clone(), "date", 7, &Options::default()).unwrap();
    let (mut walked, mut stopped) = (BTreeSet::new(), 0);
    let mut before: HashMap<String, bool> = HashMap::new();
    for _ in 0..3000 {
        sim.tick();
        let scene = sim.scene().unwrap();
        for a in sim.agents() {
            let walk = scene.game.walk(a.id);
            if let Some(w) = walk {
                assert_eq!(w.ahead().len(), 1, "{}: straight", a.name);
                let end = w.ahead()[0];
                assert!(
                    program.locations.iter().any(|l| [l.x, l.y] == end),
                    "{} heads for a location",
                    a.name
                );
                walked.insert(a.name.to_string());
            } else if before.get(&*a.name).copied().unwrap_or(false) {
                stopped += 1;
            }
            before.insert(a.name.to_string(), walk.is_some());
        }
    }
    assert!(
        !walked.is_empty() && stopped > 0,
        "{walked:?} walked, {stopped} stopped"
    );
}
