//! The session's invariants, on the programs the Bevy plugin's tests load (the samples
//! `airport` and `bench`, built; a test of the workspace keeps them current).

use super::{Session, SessionError};
use crate::Program;
use crate::hsm::AgentStatus;
use crate::snapshot::SnapshotError;
use crate::stdlib;
use crate::world::{Greybox, World};
use std::sync::Arc;

fn airport() -> Arc<Program> {
    Arc::new(Program::from_bytes(include_bytes!("../../bevy/assets/airport.ensb")).unwrap())
}

fn bench() -> Arc<Program> {
    Arc::new(Program::from_bytes(include_bytes!("../../bevy/assets/bench.ensb")).unwrap())
}

fn start(program: Arc<Program>, scene: &str) -> Session<Greybox> {
    let mut session =
        Session::start(program, stdlib::library(), scene, Greybox::default(), 7).unwrap();
    session.set_tracing(true);
    session
}

/// The trace of `ticks` ticks, one JSON line an event.
fn run(session: &mut Session<Greybox>, ticks: u32) -> Vec<String> {
    let mut lines: Vec<String> = session.take_events().iter().map(|e| e.to_json()).collect();
    for _ in 0..ticks {
        session.tick();
        lines.extend(session.take_events().iter().map(|e| e.to_json()));
    }
    lines
}

#[test]
fn the_world_is_set_up_from_the_program_through_the_seam() {
    let program = airport();
    let session = start(program.clone(), "ticket-counter");
    let buyer1 = session.agent("buyer1").unwrap();
    assert_eq!(session.world().variable(buyer1, "CityName"), Some("Boston"));
    let entrance = program
        .locations
        .iter()
        .find(|l| program.name(l.name) == "Entrance")
        .unwrap();
    assert_eq!(
        session.world().position(buyer1),
        Some([entrance.x, entrance.y])
    );
}

#[test]
fn the_trace_is_on_by_default_from_tick_0_bounded_and_off_when_asked() {
    let mut session = Session::start(
        airport(),
        stdlib::library(),
        "ticket-counter",
        Greybox::default(),
        7,
    )
    .unwrap();
    assert!(session.is_tracing());
    let events = session.take_events();
    assert!(events.iter().any(|e| e.tick == 0), "{events:?}");
    // Never taken, the trace keeps at most its backlog: the oldest go first, counted.
    session.set_trace_backlog(40);
    for _ in 0..600 {
        session.tick();
        assert!(session.scene().events_waiting() <= 40);
    }
    assert!(session.dropped_events() > 0);
    let kept = session.take_events();
    assert!(
        kept.iter().all(|e| e.tick > 1),
        "the newest are kept: {kept:?}"
    );
    // Off: nothing is recorded.
    session.set_tracing(false);
    session.tick();
    assert!(session.take_events().is_empty());
}

#[test]
fn a_session_restored_at_any_tick_goes_on_as_the_uninterrupted_one() {
    for (program, scene, ticks) in [(airport(), "ticket-counter", 900), (bench(), "bench", 1500)] {
        let whole = run(&mut start(program.clone(), scene), ticks);
        for at in [0, 1, 45, 300, 777] {
            let mut first = start(program.clone(), scene);
            let mut lines = run(&mut first, at);
            let bytes = first.save_with(Greybox::save).unwrap();
            let (mut rest, report) =
                Session::restore(program.clone(), stdlib::library(), &bytes, Greybox::restore)
                    .unwrap();
            assert!(report.fallbacks.is_empty(), "{report:?}");
            rest.set_tracing(true);
            lines.extend(run(&mut rest, ticks - at));
            assert_eq!(lines, whole, "{scene}, saved at tick {at}");
        }
    }
}

#[test]
fn a_save_that_could_not_be_restored_is_refused_and_the_next_one_is_not() {
    // The elder sits down at the bench; the program is reloaded while the action runs.
    let mut session = start(bench(), "bench");
    while !session
        .world()
        .shown
        .iter()
        .any(|l| l.contains("starts sit"))
    {
        session.tick();
        assert!(session.now() < 60.0, "nobody sat down");
    }
    session.reload(bench()).unwrap();
    let refused = session.save().unwrap_err();
    assert!(matches!(refused, SessionError::Save(_)), "{refused}");
    assert!(
        refused.to_string().contains("save again a frame later"),
        "{refused}"
    );
    while session.unsaved_parts().is_some() {
        session.tick();
    }
    let bytes = session.save_with(Greybox::save).unwrap();
    Session::restore(bench(), stdlib::library(), &bytes, Greybox::restore).unwrap();
}

#[test]
fn a_reload_carries_the_scene_across_and_refuses_another_project() {
    let mut session = start(airport(), "ticket-counter");
    run(&mut session, 60);
    let report = session.reload(airport()).unwrap();
    assert!(report.kept > 0, "{report:?}");
    assert!(report.fallbacks.is_empty(), "{report:?}");
    // Another project's program: refused, recorded, and the airport goes on.
    let refused = session.reload(bench()).unwrap_err();
    assert!(matches!(refused, SessionError::Reload(_)), "{refused}");
    assert!(refused.to_string().contains("project `bench`"), "{refused}");
    let events = session.take_events();
    assert!(
        events
            .iter()
            .any(|e| e.to_json().contains("reload-rejected"))
    );
    assert_eq!(session.program().project, "airport");
    let seller = session.agent("seller").unwrap();
    session.tick();
    assert_eq!(*session.scene().status(seller), AgentStatus::Running);
}

#[test]
fn a_savegame_of_another_project_or_a_damaged_one_is_refused_with_the_reason() {
    let mut session = start(airport(), "ticket-counter");
    run(&mut session, 30);
    let bytes = session.save().unwrap();
    let other = Session::restore(bench(), stdlib::library(), &bytes, |_| {
        Ok(Greybox::default())
    });
    let said = other
        .as_ref()
        .err()
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(
        said.ends_with("restore it with a build of project `airport`"),
        "{said}"
    );
    let Err(SessionError::Restore(SnapshotError::WrongProgram { snapshot, running })) = other
    else {
        panic!("restored onto another project");
    };
    assert_eq!((snapshot.as_str(), running.as_str()), ("airport", "bench"));
    let cut = Session::restore(
        airport(),
        stdlib::library(),
        &bytes[..bytes.len() / 2],
        |_| Ok(Greybox::default()),
    );
    assert!(matches!(cut, Err(SessionError::Restore(_))));
    // The game's own section missing: the closure's error, said as the world's.
    let no_world = Session::restore(airport(), stdlib::library(), &bytes, Greybox::restore);
    assert!(matches!(no_world, Err(SessionError::World(_))));
}

#[test]
fn an_unknown_scene_is_refused_with_the_programs_scenes() {
    let e = Session::start(airport(), stdlib::library(), "lobby", Greybox::default(), 7)
        .err()
        .unwrap();
    assert!(e.to_string().contains("ticket-counter"), "{e}");
}

/// The airport patched in its scene's roster: `buyer2` gone, `buyer3` in its place (same
/// machine, start and variables), and `buyer1` renamed `first_buyer` with a migration saying so.
fn patched_airport() -> Arc<Program> {
    let ticket_counter = airport().name_id("ticket-counter").unwrap();
    let mut parts = airport().as_ref().clone().into_parts();
    let mut name = |text: &str| {
        parts.names.push(text.to_string());
        crate::program::NameId(parts.names.len() as u32 - 1)
    };
    let (buyer3, first_buyer) = (name("buyer3"), name("first_buyer"));
    let scene = (parts.scenes.iter_mut())
        .find(|s| s.name == ticket_counter)
        .unwrap();
    scene.agents[2].name = buyer3;
    scene.agents[1].name = first_buyer;
    parts.migrations.agents = vec![("buyer1".into(), "first_buyer".into())];
    Arc::new(parts.verify().unwrap())
}

#[test]
fn a_savegame_restored_onto_a_patched_roster_starts_added_agents_and_retires_removed_ones() {
    use crate::hsm::{AgentId, RosterChange};
    let mut shipped = start(airport(), "ticket-counter");
    run(&mut shipped, 30);
    let buyer1_at = shipped.world().position(AgentId(1)).unwrap();
    let bytes = shipped.save_with(Greybox::save).unwrap();

    let patched = patched_airport();
    let (mut session, report) =
        Session::restore(patched.clone(), stdlib::library(), &bytes, Greybox::restore).unwrap();
    assert_eq!(
        report.roster,
        [
            RosterChange::Renamed {
                from: "buyer1".into(),
                to: "first_buyer".into(),
                agent: AgentId(1)
            },
            RosterChange::Added {
                name: "buyer3".into(),
                agent: AgentId(3)
            },
            RosterChange::Removed {
                name: "buyer2".into(),
                agent: AgentId(2)
            },
        ]
    );
    // Ids never move: the renamed buyer keeps its id and where the game had it.
    assert_eq!(session.agent("first_buyer"), Some(AgentId(1)));
    assert_eq!(session.world().position(AgentId(1)), Some(buyer1_at));
    assert!(matches!(
        session.scene().status(AgentId(2)),
        AgentStatus::Halted(why) if why.contains("removed by the patch")
    ));
    // The added buyer is set up as a starting scene sets its agents up.
    let buyer3 = session.agent("buyer3").unwrap();
    assert_eq!(
        session.world().variable(buyer3, "CityName"),
        Some("San Francisco")
    );
    assert_eq!(
        session.scene().roster().unwrap(),
        [AgentId(0), AgentId(1), AgentId(3)]
    );
    session.set_tracing(true);
    let lines = run(&mut session, 900);
    let entered = |who: &str, state: &str| {
        lines.iter().any(|l| {
            l.contains(&format!("\"agent\":\"{who}\""))
                && l.contains("\"enter\"")
                && l.contains(&format!("\"{state}\""))
        })
    };
    assert!(entered("buyer3", "RequestConversation"), "{lines:#?}");
    assert!(entered("first_buyer", "RequestConversation"), "{lines:#?}");
    // The removed buyer left its state and said why as the savegame was restored (tick 30),
    // and never acted again.
    let buyer2: Vec<&String> = (lines.iter())
        .filter(|l| l.contains("\"agent\":\"buyer2\""))
        .collect();
    assert_eq!(buyer2.len(), 2, "{buyer2:#?}");
    assert!(
        buyer2.iter().any(|l| l.contains("removed by the patch")),
        "{buyer2:#?}"
    );
    assert!(
        buyer2.iter().all(|l| l.starts_with("{\"tick\":30,")),
        "{buyer2:#?}"
    );

    // The patched session's own savegames restore onto it as saved: same roster, no change,
    // and it goes on as the uninterrupted one would.
    let mut again = Session::restore(patched.clone(), stdlib::library(), &bytes, Greybox::restore)
        .unwrap()
        .0;
    again.set_tracing(true);
    let whole = run(&mut again, 600);
    let mut first = Session::restore(patched.clone(), stdlib::library(), &bytes, Greybox::restore)
        .unwrap()
        .0;
    first.set_tracing(true);
    let mut halves = run(&mut first, 250);
    let saved = first.save_with(Greybox::save).unwrap();
    let (mut rest, report) =
        Session::restore(patched, stdlib::library(), &saved, Greybox::restore).unwrap();
    assert!(report.roster.is_empty(), "{report:?}");
    assert!(report.fallbacks.is_empty(), "{report:?}");
    rest.set_tracing(true);
    halves.extend(run(&mut rest, 350));
    assert_eq!(halves, whole);
}

#[test]
fn a_game_state_registers_as_its_statelib_declares_it_and_a_disagreeing_spec_says_the_fix() {
    use crate::hsm::{Inert, StateSpec};
    use crate::program::ModifierKind;
    let tavern =
        Arc::new(Program::from_bytes(include_bytes!("../../examples/tavern/tavern.ensb")).unwrap());
    // `Sip` takes a number (tavern.statelib.ron); declared in Rust as taking a text.
    let mut wrong = stdlib::library::<Greybox>();
    wrong.register("Sip", StateSpec::new(ModifierKind::Text), || {
        Box::new(Inert)
    });
    let refused = Session::start(tavern.clone(), wrong, "evening", Greybox::default(), 7)
        .err()
        .unwrap()
        .to_string();
    for said in [
        "`Sip`",
        "declared in `tavern.statelib.ron`",
        "text",
        "number",
        "*.statelib.ron",
        "register_declared",
    ] {
        assert!(refused.contains(said), "{said}: {refused}");
    }
    let mut declared = stdlib::library::<Greybox>();
    declared.register_declared("Sip", || Box::new(Inert));
    assert!(declared.declarations().iter().all(|d| d.name != "Sip"));
    let mut session = Session::start(tavern, declared, "evening", Greybox::default(), 7).unwrap();
    session.tick();
}

#[test]
fn typed_names_are_checked_as_the_program_links_and_read_without_lookups() {
    use crate::hsm::{EventName, Names, ParamName, StateCode, StateCx};
    let program = Arc::new(
        Program::from_bytes(include_bytes!("../../examples/programs/params-game.ensb")).unwrap(),
    );
    #[derive(Clone, Copy)]
    struct Play {
        done: EventName,
        blend: ParamName,
    }
    impl StateCode<Greybox> for Play {
        fn init(&mut self, cx: &mut StateCx<'_, Greybox>) {
            let blend = cx.number_param(self.blend);
            cx.game.shown.push(format!("blend {blend:?}"));
            cx.raise(self.done);
        }
    }
    let library = |event: &'static str, param: &'static str| {
        let mut lib = stdlib::library::<Greybox>();
        lib.register_linked("PlayAnimation", move |names: &Names<'_>| {
            Ok(Play {
                done: names.event(event)?,
                blend: names.param(param)?,
            })
        });
        for state in ["Attack", "Emote", "Shout"] {
            lib.register_declared(state, || Box::new(crate::hsm::Inert));
        }
        lib
    };
    // Misspelt names stop the program from starting, each with what the statelib declares.
    let start = |lib| Session::start(program.clone(), lib, "gate", Greybox::default(), 7);
    let event = start(library("AnimationDon", "blend"))
        .err()
        .unwrap()
        .to_string();
    for said in [
        "`PlayAnimation`",
        "event `AnimationDon`",
        "declaration in `game.statelib.ron`",
        "AnimationDone",
        "raises",
    ] {
        assert!(event.contains(said), "{said}: {event}");
    }
    let param = start(library("AnimationDone", "blnd"))
        .err()
        .unwrap()
        .to_string();
    for said in ["parameter `blnd`", "clip, loop, blend, layer", "params"] {
        assert!(param.contains(said), "{said}: {param}");
    }
    // Right names: read and raised as the strings would be.
    let mut session = start(library("AnimationDone", "blend")).unwrap();
    for _ in 0..60 {
        session.tick();
    }
    assert!(
        session
            .world()
            .shown
            .first()
            .is_some_and(|l| l == "blend Some(0.2)"),
        "{:?}",
        session.world().shown
    );
    let trace: Vec<String> = session.take_events().iter().map(|e| e.to_text()).collect();
    // The raised `AnimationDone` takes the guard out of `Wave` (its transition to `Strike`).
    assert!(
        trace.iter().any(|l| l.ends_with("enter Guard/Strike")),
        "{trace:#?}"
    );
    // A reload links again: a rebuild is resolved anew (here the same program).
    session.reload(program.clone()).unwrap();
}
