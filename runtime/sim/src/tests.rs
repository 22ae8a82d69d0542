//! The simulated world as an implementation of the seam: walking takes the time its length
//! says, actions end (or fail, at the seeded rate) after the time their name says, a line takes
//! time per word.

use super::*;
use ensemble_runtime::hsm::{AgentStatus, Scene};
use ensemble_runtime::program::{
    AgentDef, LibraryId, LibraryState, LocationDef, LocationId, MachineDef, MachineId, Modifier,
    NameId, SceneDef, StateDef, StateId, TransitionDef,
};
use ensemble_runtime::trace::EventKind;
use std::sync::Arc;

/// One agent at `home` (0, 0) whose machine walks to `far` (14, 0) and finishes:
/// Start -Empty-> Goto(far) -ReachedLocation-> Finish.
fn walker() -> Arc<Program> {
    let names: Vec<String> = [
        "Start",
        "Goto",
        "Finish",
        "Empty",
        "ReachedLocation",
        "Walk",
        "home",
        "far",
        "walk",
        "walker",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let id = |s: &str| NameId(names.iter().position(|n| n == s).unwrap() as u32);
    let decl = |name: &str| {
        let d = ensemble_runtime::stdlib::declaration(name).unwrap();
        LibraryState {
            name: id(name),
            modifier: d.modifier,
            terminal: d.terminal,
        }
    };
    let library = vec![decl("Start"), decl("Goto"), decl("Finish")];
    let state = |name: &str, code: u32, modifier, first, count| StateDef {
        name: id(name),
        machine: MachineId(0),
        code: LibraryId(code),
        modifier,
        first_transition: first,
        transition_count: count,
    };
    let states = vec![
        state("Start", 0, Modifier::None, 0, 1),
        state("Goto", 1, Modifier::Location(LocationId(1)), 1, 1),
        state("Finish", 2, Modifier::None, 2, 0),
    ];
    let transitions = vec![
        TransitionDef {
            event: id("Empty"),
            target: StateId(1),
        },
        TransitionDef {
            event: id("ReachedLocation"),
            target: StateId(2),
        },
    ];
    let machines = vec![MachineDef {
        name: id("Walk"),
        initial: StateId(0),
        first_state: 0,
        state_count: 3,
    }];
    let locations = vec![
        LocationDef {
            name: id("home"),
            x: 0.0,
            y: 0.0,
        },
        LocationDef {
            name: id("far"),
            x: 14.0,
            y: 0.0,
        },
    ];
    let scenes = vec![SceneDef {
        name: id("walk"),
        tick_rate: 10,
        agents: vec![AgentDef {
            name: id("walker"),
            machine: MachineId(0),
            start: LocationId(0),
        }],
        ambient: vec![],
    }];
    let program = Program::new(
        names,
        library,
        machines,
        states,
        transitions,
        locations,
        scenes,
    );
    Arc::new(program.unwrap())
}

#[test]
fn a_walk_of_fourteen_metres_takes_ten_seconds() {
    let program = walker();
    let world = SimWorld::for_scene(&program, SceneId(0));
    let mut scene = Scene::new_traced(program.clone(), library(), "walk", world, 7).unwrap();
    let walker = AgentId(0);
    let mut reached = None;
    for _ in 0..200 {
        scene.tick();
        let arrived = scene
            .take_events()
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Enter { state, .. } if &**state == "Finish"));
        if arrived {
            reached = Some(scene.now());
            break;
        }
        assert!(
            scene.game.walk(walker).is_some(),
            "the walk shows its route"
        );
    }
    let at = reached.expect("arrives");
    assert!((at - 10.0).abs() < 0.15, "arrived after {at} s");
    assert_eq!(scene.game.position(walker), Some([14.0, 0.0]));
    assert!(
        scene.game.walk(walker).is_none(),
        "nothing ahead once there"
    );
    assert_eq!(*scene.status(walker), AgentStatus::Finished);
}

/// A world of the walker program and what it is handed with a call.
fn call<T>(
    f: impl FnOnce(&mut SimWorld, &mut WorldCx<'_>) -> T,
    world: &mut SimWorld,
    now: f64,
) -> T {
    let program = walker();
    let mut rng = Rng::new(7, 0);
    let mut trace = Vec::new();
    let mut cx = WorldCx {
        program: &program,
        now,
        dt: 0.1,
        rng: &mut rng,
        trace: &mut trace,
    };
    f(world, &mut cx)
}

fn request(id: u64, action: &str) -> ActionRequest<'_> {
    ActionRequest {
        id: ActionId(id),
        agent: AgentId(0),
        action,
        target: None,
        parameters: &[],
        line: None,
        proxy: false,
    }
}

#[test]
fn actions_end_after_the_time_their_name_takes_and_fail_at_the_seeded_rate() {
    let mut world = SimWorld::for_scene(&walker(), SceneId(0));
    call(
        |w, cx| w.start_action(&request(1, "sit"), cx),
        &mut world,
        0.0,
    );
    // Sitting down takes 1.2 to 1.8 s.
    assert_eq!(
        call(|w, cx| w.action_outcome(ActionId(1), cx), &mut world, 1.1),
        None
    );
    assert_eq!(
        call(|w, cx| w.action_outcome(ActionId(1), cx), &mut world, 1.9),
        Some(ActionOutcome::Succeeded)
    );
    assert_eq!(
        call(|w, cx| w.action_outcome(ActionId(1), cx), &mut world, 2.0),
        None,
        "an outcome is reported once"
    );

    let mut failing = SimWorld::for_scene(&walker(), SceneId(0)).with_failure_rate(1.0);
    call(
        |w, cx| w.start_action(&request(2, "talk"), cx),
        &mut failing,
        0.0,
    );
    assert_eq!(
        call(|w, cx| w.action_outcome(ActionId(2), cx), &mut failing, 4.1),
        Some(ActionOutcome::Failed)
    );
    call(
        |w, cx| w.start_action(&request(3, "talk"), cx),
        &mut failing,
        0.0,
    );
    failing.cancel_action(ActionId(3));
    assert_eq!(
        call(|w, cx| w.action_outcome(ActionId(3), cx), &mut failing, 9.0),
        None
    );
}

#[test]
fn a_line_takes_time_for_every_word() {
    let mut world = SimWorld::for_scene(&walker(), SceneId(0));
    let line = Line {
        text: "one two three four five six",
        id: ensemble_runtime::world::LineId::Written,
        key: None,
    };
    call(|w, cx| w.say(AgentId(0), &line, cx), &mut world, 0.0);
    // (0.4 + 0.3 × 6) s × 0.9..1.1: at least 1.98 s, at most 2.42 s; polled every 0.1 s.
    let mut polls = 0;
    while call(|w, cx| w.still_speaking(AgentId(0), cx), &mut world, 0.0) {
        polls += 1;
        assert!(polls < 100, "never stops speaking");
    }
    assert!((19..=24).contains(&polls), "spoke for {polls} polls");
}

#[test]
fn wildcards_match_any_run_of_characters() {
    use crate::wildcard;
    assert!(wildcard("*", ""));
    assert!(wildcard("buyer*", "buyer12"));
    assert!(wildcard(
        "Ticket(*) = *",
        "Ticket(buyer1) = ticket to Boston"
    ));
    assert!(wildcard("*weather*", "Lovely weather for baking."));
    assert!(wildcard("a*b*c", "aXbYbZc"));
    assert!(!wildcard("a*b*c", "aXbYbZ"));
    assert!(!wildcard("buyer", "buyer1"));
    assert!(!wildcard("", "x"));
    assert!(wildcard("sit", "sit"));
}
