//! Hot reload keeps script instances (#9): a running instance of the bench script is carried
//! across to a new program by script, role and state names, with its tuple space and its
//! actions in flight; what cannot be mapped follows the documented rules and is reported in
//! the `reload` event.

use ensemble_runtime::hsm::{AgentId, Scene};
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_runtime::{Program, script::ScriptInstance};
use ensemble_sim::{self as sim, Interactions, SimWorld};
use ensemble_tests::root;
use std::sync::Arc;

/// The bench sample with `edit` applied to its files, compiled.
fn bench(edit: impl Fn(&str, String) -> String) -> Arc<Program> {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(root().join("samples/bench")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".test.ron") {
                continue; // the bench's content tests name the script the edits replace
            }
            let text = match std::fs::read_to_string(entry.path()) {
                Ok(t) => edit(&name, t),
                Err(_) => continue, // the workbook (excluded from the project)
            };
            std::fs::write(dir.path().join(&name), text).unwrap();
        }
    }
    let c = ensemble_compiler::compile_path(dir.path()).unwrap();
    let errors: Vec<String> = c.diagnostics.iter().map(|d| d.message.clone()).collect();
    Arc::new(c.output.unwrap_or_else(|| panic!("{errors:#?}")).0)
}

fn same(_: &str, text: String) -> String {
    text
}

struct Run {
    scene: Scene<SimWorld>,
    interactions: Interactions,
    events: Vec<TraceEvent>,
}

impl Run {
    fn new(program: Arc<Program>, seed: u64) -> Run {
        let id = program.scene_by_name("bench").unwrap();
        let world = SimWorld::for_scene(&program, id);
        let scene =
            Scene::new_traced(program.clone(), sim::library(), "bench", world, seed).unwrap();
        Run {
            scene,
            interactions: Interactions::new(&program, id, seed),
            events: Vec::new(),
        }
    }

    fn tick(&mut self) {
        self.scene.tick();
        self.interactions.advance(&mut self.scene);
        self.events.extend(self.scene.take_events());
    }

    /// Ticks until `done` holds (at most ten minutes of scene time).
    fn until(&mut self, what: &str, done: impl Fn(&Run) -> bool) {
        for _ in 0..18_000 {
            if done(self) {
                return;
            }
            self.tick();
        }
        panic!("never: {what}");
    }

    fn instance(&self) -> Option<&ScriptInstance> {
        self.interactions.running().next().map(|(_, i)| i)
    }

    /// The blackboard, spelled out, sorted.
    fn blackboard(&self) -> Vec<String> {
        let program = self.scene.program().clone();
        let mut facts: Vec<String> = self
            .instance()
            .map(|i| {
                i.space
                    .all()
                    .iter()
                    .map(|f| {
                        let args: Vec<String> = f
                            .args
                            .iter()
                            .map(|a| self.interactions.spell(&program, a))
                            .collect();
                        format!("{}({})", program.name(f.predicate), args.join(","))
                    })
                    .collect()
            })
            .unwrap_or_default();
        facts.sort();
        facts
    }

    /// Participants by name, with role and state names.
    fn cast(&self) -> Vec<(String, String, String)> {
        let program = self.scene.program();
        let Some(inst) = self.instance() else {
            return Vec::new();
        };
        let def = &program.scripts[inst.script as usize];
        let mut cast: Vec<_> = inst
            .states()
            .map(|(actor, role, state)| {
                (
                    self.scene.agent_name(AgentId(actor)).to_string(),
                    program.name(def.roles[role as usize].name).to_string(),
                    program.name(def.states[state as usize].name).to_string(),
                )
            })
            .collect();
        cast.sort();
        cast
    }

    fn reload(&mut self, program: Arc<Program>) -> (u32, Vec<String>) {
        let from = self.events.len();
        self.interactions
            .reload(&mut self.scene, program, "test")
            .expect("the new program links");
        self.events.extend(self.scene.take_events());
        self.events[from..]
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Reload {
                    kept, fallbacks, ..
                } => Some((*kept, fallbacks.clone())),
                _ => None,
            })
            .expect("a reload event")
    }

    fn since(&self, from: usize) -> &[TraceEvent] {
        &self.events[from..]
    }
}

fn seated(run: &Run) -> bool {
    run.cast().iter().filter(|(_, _, s)| s == "seated").count() == 2
}

#[test]
fn reload_keeps_the_instance_its_participants_and_its_tuple_space() {
    let mut run = Run::new(bench(same), 3);
    run.until("two on the bench and a third waiting", |r| {
        seated(r) && r.cast().len() == 3
    });
    let (cast, board) = (run.cast(), run.blackboard());
    // The new program renames the listening action and adds a location, which moves every
    // interned name id: the carried instance must be re-interned by name.
    let edited = bench(|name, text| match name {
        "bench.script.ron" => text.replace(r#"action: "listen""#, r#"action: "nod""#),
        "bench.locations.ron" => text.replace(
            "(name: \"BenchSpot\"",
            "(name: \"AAA\", x: 1.0, y: 1.0),\n        (name: \"BenchSpot\"",
        ),
        _ => text,
    });
    assert_ne!(edited.names, run.scene.program().names);
    let from = run.events.len();
    let (kept, fallbacks) = run.reload(edited);
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    assert_eq!(kept, 3, "three participants carried with their states");
    // The listening started under the old program runs on: a savegame now could not be
    // restored (its rule is the old program's), so the save is refused, not written.
    assert!(run.interactions.has_carried_actions());
    let program = run.scene.program().clone();
    let id = program.scene_by_name("bench").unwrap();
    let mut snapshot = ensemble_runtime::snapshot::SnapshotWriter::new(&program, "test");
    let refused = (run.interactions)
        .save(&program, id, &mut snapshot)
        .expect_err("a save with a carried action is refused");
    assert!(
        refused.to_string().contains("carried across a hot reload"),
        "{refused}"
    );
    assert_eq!(run.cast(), cast, "same participants, roles and states");
    assert_eq!(run.blackboard(), board, "the same tuple space, by name");
    // Nobody left or joined for the reload.
    assert!(
        !run.since(from)
            .iter()
            .any(|e| matches!(e.kind, EventKind::Join { .. } | EventKind::Leave { .. }))
    );
    // The new behaviour: listeners nod now; seats are still released at the end.
    run.until("a nod", |r| {
        r.since(from)
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Act { action, .. } if &**action == "nod"))
    });
    run.until("the bench is empty again", |r| r.instance().is_none());
    let leaves = run
        .events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Leave { .. }))
        .count();
    assert_eq!(leaves, 3);
    let reserved_left = run
        .since(from)
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Del { fact, .. } if fact.starts_with("reserved(")))
        .count();
    assert_eq!(
        reserved_left, 2,
        "both seats taken before the reload are released after it"
    );
}

#[test]
fn a_deleted_state_restarts_its_participants_at_the_initial_state() {
    let mut run = Run::new(bench(same), 3);
    run.until("two on the bench", seated);
    let renamed = bench(|name, text| match name {
        "bench.script.ron" => text.replace("\"seated\"", "\"resting\""),
        _ => text,
    });
    let (kept, fallbacks) = run.reload(renamed);
    let restarted: Vec<&String> = fallbacks
        .iter()
        .filter(|f| {
            f.contains("state `seated` of script `bench` no longer exists; it restarts at `arrive`")
        })
        .collect();
    assert_eq!(restarted.len(), 2, "{fallbacks:?}");
    assert!(kept >= 2);
    assert!(
        run.cast().iter().all(|(_, _, s)| s == "arrive"),
        "{:?}",
        run.cast()
    );
}

#[test]
fn a_deleted_role_makes_its_participants_leave() {
    let mut run = Run::new(bench(same), 3);
    run.until("an elder and a tourist", |r| {
        let cast = r.cast();
        cast.iter().any(|(_, role, _)| role == "elder")
            && cast.iter().any(|(_, role, _)| role == "tourist")
    });
    let from = run.events.len();
    let renamed = bench(|name, text| match name {
        "bench.script.ron" => text.replace("\"tourist\"", "\"visitor\""),
        "bench.scene.ron" => text.replace("\"tourist\"", "\"visitor\""),
        _ => text,
    });
    let (_, fallbacks) = run.reload(renamed);
    assert!(
        fallbacks
            .iter()
            .any(|f| f
                .contains("role `tourist` of script `bench` no longer exists; it left the script")),
        "{fallbacks:?}"
    );
    let left: Vec<&TraceEvent> = run
        .since(from)
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Leave { role, .. } if &**role == "tourist"))
        .collect();
    assert!(!left.is_empty());
    assert!(run.cast().iter().all(|(_, role, _)| role == "elder"));
}

#[test]
fn a_script_the_location_no_longer_runs_ends_and_its_replacement_starts() {
    let mut run = Run::new(bench(same), 3);
    run.until("two on the bench", seated);
    let from = run.events.len();
    let renamed = bench(|name, text| match name {
        "bench.script.ron" => text.replace("name: \"bench\"", "name: \"park-bench\""),
        "bench.smartloc.ron" => text.replace("(script: \"bench\")", "(script: \"park-bench\")"),
        _ => text,
    });
    let (_, fallbacks) = run.reload(renamed);
    assert!(
        fallbacks.iter().any(|f| f
            .contains("script `bench` no longer exists: its running instance at `bench` ended")),
        "{fallbacks:?}"
    );
    let left = run
        .since(from)
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::Leave { script, .. } if &**script == "bench"))
        .count();
    assert_eq!(left, 2);
    // The participants are free again; the location starts its new script with them.
    run.until("the new script", |r| {
        r.since(from)
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Join { script, .. } if &**script == "park-bench"))
    });
}

#[test]
fn an_action_in_flight_finishes_with_the_rule_that_started_it() {
    let mut run = Run::new(bench(same), 3);
    // Someone is walking up to sit: rule 1's action is in flight.
    run.until("a sit in flight", |r| {
        r.events
            .last()
            .is_some_and(|e| matches!(&e.kind, EventKind::Act { action, .. } if &**action == "sit"))
    });
    let sitter = run.events.last().unwrap().agent.clone().unwrap();
    let from = run.events.len();
    let changed = bench(|name, text| {
        match name {
        "bench.script.ron" => text.replace(
            r#"deferred_add: "sitting(.me), timer(.me, .now + randf(2,5) * .minute)""#,
            r#"deferred_add: "perched(.me), sitting(.me), timer(.me, .now + randf(2,5) * .minute)""#,
        ),
        _ => text,
    }
    });
    let (_, fallbacks) = run.reload(changed);
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    run.until("the sit done", |r| {
        r.since(from).iter().any(|e| {
            e.agent.as_deref() == Some(&*sitter)
                && matches!(&e.kind, EventKind::Done { action, .. } if &**action == "sit")
        })
    });
    let added: Vec<String> = run
        .since(from)
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Add { fact, .. } if e.agent.as_deref() == Some(&*sitter) => {
                Some(fact.clone())
            }
            _ => None,
        })
        .collect();
    assert!(
        added.contains(&format!("sitting({sitter})")),
        "the old rule's deferred effects: {added:?}"
    );
    assert!(
        !added.contains(&format!("perched({sitter})")),
        "not the new rule's: {added:?}"
    );
}

#[test]
fn a_refused_program_leaves_every_instance_as_it_was() {
    let mut run = Run::new(bench(same), 3);
    run.until("two on the bench", seated);
    let (cast, board) = (run.cast(), run.blackboard());
    // A program the game's library cannot run: it needs a library state (`Teleport`) the
    // game never registered.
    let mut program = (*run.scene.program().clone()).clone().into_parts();
    program.names.push("Teleport".into());
    program
        .library
        .push(ensemble_runtime::program::LibraryState {
            name: ensemble_runtime::program::NameId(program.names.len() as u32 - 1),
            modifier: ensemble_runtime::program::ModifierKind::None,
            terminal: ensemble_runtime::program::Terminal::No,
        });
    let program = Arc::new(program.verify().unwrap());
    let from = run.events.len();
    assert!(
        run.interactions
            .reload(&mut run.scene, program, "test")
            .is_err()
    );
    run.events.extend(run.scene.take_events());
    assert!(matches!(
        run.since(from)[0].kind,
        EventKind::ReloadRejected { .. }
    ));
    assert_eq!(run.cast(), cast);
    assert_eq!(run.blackboard(), board);
    run.tick();
    assert_eq!(run.cast().len(), cast.len(), "the old program goes on");
}

#[test]
fn reloads_survive_a_scene_that_is_renamed_away_and_back() {
    let mut run = Run::new(bench(same), 3);
    run.until("two on the bench", seated);
    let renamed = bench(|name, text| match name {
        "bench.scene.ron" => text.replace("name: \"bench\"", "name: \"park\""),
        // The sample's content tests follow the scene they test.
        "bench.test.ron" => text.replace("scene: \"bench\"", "scene: \"park\""),
        _ => text,
    });
    let (kept, fallbacks) = run.reload(renamed);
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    assert!(kept >= 2);
    for _ in 0..300 {
        run.tick();
    }
    let (_, fallbacks) = run.reload(bench(same));
    assert!(fallbacks.is_empty(), "{fallbacks:?}");
    run.until("the bench is empty again", |r| r.instance().is_none());
}

#[test]
fn an_agent_deleted_from_the_scene_or_added_to_it_is_said_in_the_reload() {
    // A hot reload does not patch the running cast (a restore onto the new program does): it
    // says so, where a designer reads what the reload did.
    let mut run = Run::new(bench(same), 3);
    run.until("two on the bench", seated);
    let recast = bench(|name, text| match name {
        "bench.scene.ron" => text.replace("\"tourist2\"", "\"pilgrim\""),
        _ => text,
    });
    let (_, fallbacks) = run.reload(recast.clone());
    let said = |s: &str| fallbacks.iter().any(|f| f == s);
    assert!(
        said("tourist2: no longer in scene `bench`; it goes on until the scene restarts"),
        "{fallbacks:?}"
    );
    assert!(
        said("pilgrim: new in scene `bench`; it joins when the scene restarts"),
        "{fallbacks:?}"
    );
    // Said again at the next reload, for as long as it lasts.
    let (_, again) = run.reload(recast.clone());
    assert_eq!(
        again
            .iter()
            .filter(|f| f.contains("scene restarts"))
            .count(),
        2,
        "{again:?}"
    );
    // The cast the scene started with, reloaded, says nothing of it.
    let (_, fallbacks) = run.reload(bench(same));
    assert!(
        !fallbacks.iter().any(|f| f.contains("scene restarts")),
        "{fallbacks:?}"
    );
}
