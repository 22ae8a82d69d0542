//! Stand-ins: how long they last (scene time), which event they raise, what they are told to
//! do by the statelib and by a host, and that a game's own scene gets none.

use ensemble_runtime::hsm::{LinkError, Scene, SceneError};
use ensemble_runtime::program::{
    AgentDef, GameStateDef, GameStates, LibraryId, LibraryState, LocationDef, LocationId,
    MachineDef, MachineId, Modifier, ModifierKind, NameId, Program, ProgramParts, SceneDef,
    StandInDef, StateDef, StateId, Terminal, TransitionDef,
};
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_sim::Simulation;
use ensemble_sim::simulation::{Options, StartError};
use ensemble_sim::stand_in::{Choice, DEFAULT_SECONDS, Raises, StandIn};
use std::sync::Arc;

const NAMES: &[&str] = &[
    "Start", "Finish", "Attack", "Empty", "Hit", "Missed", "Guard", "Strike", "Gate", "gate",
    "guard", "Text",
];

fn id(name: &str) -> NameId {
    NameId(NAMES.iter().position(|n| *n == name).unwrap() as u32)
}

/// A guard whose machine strikes with the game's `Attack` (a text modifier; declared raising
/// `Hit` and `Missed`, with `stand_in` as given) and finishes when it misses:
/// Start -Empty-> Strike(Attack "Text") -Missed-> Finish, at 10 ticks a second.
fn guard(raises: Option<&[&str]>, stand_in: Option<StandInDef>) -> Arc<Program> {
    let std = |name: &str| {
        let d = ensemble_runtime::stdlib::declaration(name).unwrap();
        LibraryState {
            name: id(name),
            modifier: d.modifier,
            terminal: d.terminal,
        }
    };
    let library = vec![
        std("Start"),
        std("Finish"),
        LibraryState {
            name: id("Attack"),
            modifier: ModifierKind::Text,
            terminal: Terminal::No,
        },
    ];
    let state = |name: &str, code: u32, modifier, first, count| StateDef {
        name: id(name),
        machine: MachineId(0),
        code: LibraryId(code),
        modifier,
        first_transition: first,
        transition_count: count,
    };
    let parts = ProgramParts {
        names: NAMES.iter().map(|s| s.to_string()).collect(),
        library,
        machines: vec![MachineDef {
            name: id("Guard"),
            initial: StateId(0),
            first_state: 0,
            state_count: 3,
        }],
        states: vec![
            state("Start", 0, Modifier::None, 0, 1),
            state("Strike", 2, Modifier::Text(id("Text")), 1, 1),
            state("Finish", 1, Modifier::None, 2, 0),
        ],
        transitions: vec![
            TransitionDef {
                event: id("Empty"),
                target: StateId(1),
            },
            TransitionDef {
                event: id("Missed"),
                target: StateId(2),
            },
        ],
        locations: vec![LocationDef {
            name: id("Gate"),
            x: 0.0,
            y: 0.0,
        }],
        scenes: vec![SceneDef {
            name: id("gate"),
            tick_rate: 10,
            agents: vec![AgentDef {
                name: id("guard"),
                machine: MachineId(0),
                start: LocationId(0),
            }],
            ambient: vec![],
        }],
        game_states: GameStates {
            states: vec![GameStateDef {
                library: LibraryId(2),
                raises: raises.map(|r| r.iter().map(|e| id(e)).collect()),
                stand_in,
            }],
        },
        ..ProgramParts::default()
    };
    Arc::new(parts.verify().unwrap())
}

fn start(program: Arc<Program>, choices: Vec<Choice>) -> Result<Simulation, StartError> {
    let options = Options {
        stand_ins: choices,
        ..Options::default()
    };
    Simulation::start(program, "gate", 7, &options)
}

/// The tick at which the guard left `Strike`, running at most `ticks` ticks.
fn strike_ends(sim: &mut Simulation, ticks: u64) -> Option<u64> {
    let left = |events: Vec<TraceEvent>| {
        events.into_iter().find_map(|e| match &e.kind {
            EventKind::Exit { state, .. } if &**state == "Strike" => Some(e.tick),
            _ => None,
        })
    };
    if let Some(t) = left(sim.take_events()) {
        return Some(t);
    }
    for _ in 0..ticks {
        sim.tick();
        if let Some(t) = left(sim.take_events()) {
            return Some(t);
        }
    }
    None
}

fn finished(sim: &Simulation) -> bool {
    sim.agents()[0].states.iter().any(|s| &*s.state == "Finish")
}

#[test]
fn a_stand_in_lasts_its_default_second_of_scene_time_then_raises_an_event_the_state_takes() {
    // `Hit` is declared first, but the state has a transition only on `Missed`.
    let mut sim = start(guard(Some(&["Hit", "Missed"]), None), vec![]).unwrap();
    assert_eq!(
        sim.stand_ins(),
        [StandIn {
            state: "Attack".into(),
            seconds: DEFAULT_SECONDS,
            raises: Raises::FirstOf(vec!["Hit".into(), "Missed".into()]),
            terminal: Terminal::No,
        }]
    );
    assert_eq!(
        sim.stand_ins()[0].to_string(),
        "`Attack` is the game's; standing it in: 1 s, then raises the first of `Hit`, `Missed` the state has a transition on"
    );
    // Entered at tick 0; ten ticks of 0.1 s later it raises `Missed`.
    assert_eq!(strike_ends(&mut sim, 100), Some(10));
    assert!(finished(&sim));
}

#[test]
fn the_statelib_says_how_long_and_which_event_and_a_host_overrides_it() {
    let designed = StandInDef {
        seconds: Some(2.5),
        raises: Some(id("Missed")),
    };
    let mut sim = start(guard(Some(&["Hit", "Missed"]), Some(designed)), vec![]).unwrap();
    assert_eq!(
        sim.stand_ins()[0].to_string(),
        "`Attack` is the game's; standing it in: 2.5 s, then raises `Missed`"
    );
    assert_eq!(strike_ends(&mut sim, 100), Some(25));
    // A host's time wins over the statelib's; its event is the statelib's still.
    let choice = Choice::parse("Attack=0.5s").unwrap();
    let mut sim = start(
        guard(Some(&["Hit", "Missed"]), Some(designed)),
        vec![choice],
    )
    .unwrap();
    assert_eq!(strike_ends(&mut sim, 100), Some(5));
    // An event the state has no transition on is raised all the same: nothing moves.
    let choice = Choice::parse("Attack=Hit").unwrap();
    let mut sim = start(guard(Some(&["Hit", "Missed"]), None), vec![choice]).unwrap();
    assert_eq!(strike_ends(&mut sim, 100), None);
}

#[test]
fn a_state_that_declares_no_events_raises_its_first_transitions() {
    let mut sim = start(guard(None, None), vec![]).unwrap();
    assert_eq!(sim.stand_ins()[0].raises, Raises::FirstTransition);
    assert_eq!(strike_ends(&mut sim, 100), Some(10));
    // A host may name an event the states using it take.
    let choice = Choice::parse("Attack=2,Missed").unwrap();
    let mut sim = start(guard(None, None), vec![choice]).unwrap();
    assert_eq!(strike_ends(&mut sim, 100), Some(20));
}

#[test]
fn a_host_choice_that_does_not_fit_is_refused_naming_what_would() {
    let program = guard(Some(&["Hit", "Missed"]), None);
    let refused = |text: &str| match start(program.clone(), vec![Choice::parse(text).unwrap()]) {
        Err(StartError::StandIn(message)) => message,
        Err(e) => panic!("{e}"),
        Ok(_) => panic!("`{text}` was accepted"),
    };
    assert_eq!(
        refused("Atack=1"),
        "--stand-in: `Atack` is not a game state of the program (it uses `Attack`)"
    );
    assert_eq!(
        refused("Start=1"),
        "--stand-in: `Start` is a standard state: the simulated world runs it"
    );
    assert_eq!(
        refused("Attack=Mised"),
        "--stand-in: `Attack` does not raise `Mised` (it raises `Hit`, `Missed`)"
    );
}

#[test]
fn choices_read_a_time_an_event_or_both() {
    let read = |text: &str| Choice::parse(text).map(|c| (c.state, c.seconds, c.raises));
    assert_eq!(
        read("Hammer=2s,Done"),
        Ok(("Hammer".into(), Some(2.0), Some("Done".into())))
    );
    assert_eq!(
        read("Hammer=Done"),
        Ok(("Hammer".into(), None, Some("Done".into())))
    );
    assert_eq!(
        read(" Hammer = 0.5 "),
        Ok(("Hammer".into(), Some(0.5), None))
    );
    for wrong in [
        "Hammer",
        "=2",
        "Hammer=2,3",
        "Hammer=Done,Hit",
        "Hammer=-1",
        "Hammer=2x",
    ] {
        assert!(read(wrong).is_err(), "`{wrong}` was read");
    }
}

/// The guard's scene saved four ticks in, its stand-in striking.
fn saved_striking() -> (Arc<Program>, SnapshotReader) {
    let program = guard(Some(&["Hit", "Missed"]), None);
    let mut sim = start(program.clone(), vec![]).unwrap();
    for _ in 0..4 {
        sim.tick();
    }
    let mut writer = SnapshotWriter::new(&program, "guard");
    sim.save(&mut writer).unwrap();
    (
        program,
        SnapshotReader::from_bytes(&writer.to_bytes()).unwrap(),
    )
}

#[test]
fn a_stand_in_saves_the_time_it_has_left() {
    let (program, reader) = saved_striking();
    let (mut restored, report) =
        Simulation::restore(program, &reader, &Options::default()).unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    assert_eq!(restored.stand_ins().len(), 1);
    assert_eq!(strike_ends(&mut restored, 100), Some(10));
}

/// A simulation's savegame from before sessions saved their own identity (no `session`
/// section, the simulation's instead) still restores, and goes on as the one that has it.
#[test]
fn a_savegame_without_the_session_section_still_restores() {
    let (program, whole) = saved_striking();
    let mut older = SnapshotWriter::new(&program, "guard");
    for section in whole.sections().filter(|s| *s != "session") {
        older.put_bytes(section, whole.bytes(section).unwrap().to_vec());
    }
    let reader = SnapshotReader::from_bytes(&older.to_bytes()).unwrap();
    assert!(!reader.has("session"));
    let (mut restored, _) = Simulation::restore(program, &reader, &Options::default()).unwrap();
    assert_eq!(strike_ends(&mut restored, 100), Some(10));
}

#[test]
fn a_games_own_scene_gets_no_stand_in() {
    let program = guard(Some(&["Hit", "Missed"]), None);
    let world = ensemble_sim::SimWorld::for_scene(&program, ensemble_runtime::program::SceneId(0));
    let refused = Scene::new(program, ensemble_sim::library(), "gate", world, 7);
    assert!(matches!(
        refused,
        Err(SceneError::Link(LinkError::Missing { name, .. })) if name == "Attack"
    ));
}

#[test]
fn a_reload_stands_in_afresh_as_the_new_statelib_says() {
    let mut sim = start(guard(Some(&["Hit", "Missed"]), None), vec![]).unwrap();
    let edited = StandInDef {
        seconds: Some(2.5),
        raises: Some(id("Missed")),
    };
    let report = sim
        .reload(guard(Some(&["Hit", "Missed"]), Some(edited)), "edited")
        .unwrap();
    assert!(report.fallbacks.is_empty(), "{:?}", report.fallbacks);
    // Said once: the same state, its stand-in as it is now.
    assert_eq!(sim.stand_ins().len(), 1);
    assert_eq!(sim.stand_ins()[0].seconds, 2.5);
    assert_eq!(sim.stand_ins()[0].raises, Raises::Event("Missed".into()));
}
