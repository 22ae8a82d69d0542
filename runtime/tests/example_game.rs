//! The example game (runtime/examples/tavern) runs on the core alone — its own world, no
//! simulator in this crate's dependency tree — and tells the evening it was written for: the
//! bard's interaction script at the hearth, the patron's walk, the conversation of dialog
//! states at the bar (the mug changes hands inside it), the plan for the rest of the evening,
//! and the game's own `Sip` state.

#[path = "../examples/tavern/game.rs"]
mod game;

use ensemble_runtime::Program;
use ensemble_runtime::hsm::AgentStatus;
use ensemble_runtime::session::Session;
use std::path::Path;
use std::sync::Arc;

fn program() -> Arc<Program> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/tavern/tavern.ensb");
    Arc::new(Program::load(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}\nrebuild it: ensemble build runtime/examples/tavern/project -o runtime/examples/tavern",
            path.display()
        )
    }))
}

#[test]
fn the_tavern_tells_its_evening() {
    let evening = game::run(program(), 60.0).unwrap();
    let expected = [
        "  2.1s  agent 2 plays the `tune` animation",
        "  2.1s  bard joins perform as bard",
        "  2.1s  bard: tuned(bard)",
        "  2.1s  bard starts tune",
        "  4.1s  agent 2 plays the `play` animation",
        "  4.1s  bard finished tune",
        "  4.1s  bard starts play",
        "  4.1s  bard says \"A song of the sea\"",
        "  4.2s  agent 1 subtitle \"Hi.\" (voice Order/Salutation/1)",
        "  4.2s  mara says \"Hi.\"",
        "  5.4s  agent 1 subtitle \"I would like something to drink.\" (voice AskForDrink/5a48ebfd)",
        "  5.4s  mara says \"I would like something to drink.\"",
        "  8.1s  agent 0 subtitle \"Enjoy your cider.\" (voice EnjoyYourX/06e9088d)",
        "  8.1s  keeper: Mug(mara) = a mug of cider",
        "  8.1s  keeper says \"Enjoy your cider.\"",
        "  8.2s  bard finished play",
        " 10.1s  agent 1 subtitle \"Thank you kindly.\" (voice Order/Thank)",
        " 10.1s  mara says \"Thank you kindly.\"",
        " 12.2s  mara plans sit, drink, toast",
        " 12.2s  mara starts sit",
        " 15.5s  mara finished sit",
        " 15.5s  mara starts drink",
        " 16.5s  mara sips a mug of cider",
        " 17.5s  mara sips a mug of cider",
        " 18.5s  mara sips a mug of cider",
        " 18.5s  agent 1 subtitle \"Cheers!\" (voice Toast/Cheers/1)",
        " 18.5s  mara finished drink",
        " 18.5s  mara starts toast",
        " 18.5s  mara says \"Cheers!\"",
        " 19.9s  mara finished toast",
    ];
    assert_eq!(evening.lines, expected, "{:#?}", evening.lines);
    let scene = evening.session.scene();
    let status = |name: &str| {
        let agent = scene
            .agents()
            .find(|&a| scene.agent_name(a) == name)
            .unwrap();
        scene.status(agent).clone()
    };
    assert_eq!(status("mara"), AgentStatus::Finished);
    assert_eq!(status("keeper"), AgentStatus::Finished);
}

#[test]
fn an_evening_restored_from_a_savegame_goes_on_as_the_uninterrupted_one() {
    let whole = game::run(program(), 60.0).unwrap();
    // Saved before anything happens, mid-song and mid-conversation (8.15 s), mid-plan while mara
    // sits (14 s) and mid-sip (17 s), and once the evening is over.
    for at in [0.0, 8.15, 14.0, 17.0, 30.0] {
        let first = game::run(program(), at).unwrap();
        let bytes = first.save().expect("nothing carried across a reload");
        let mut rest = game::Evening::restore(program(), &bytes).unwrap();
        rest.play(60.0);
        let mut lines = first.lines.clone();
        lines.extend(rest.lines.iter().cloned());
        assert_eq!(lines, whole.lines, "saved at {at} s");
        let (rest, whole) = (rest.session.scene(), whole.session.scene());
        for agent in whole.agents() {
            assert_eq!(rest.status(agent), whole.status(agent), "saved at {at} s");
        }
    }
}

#[test]
fn a_savegame_of_the_evening_is_refused_once_damaged() {
    let first = game::run(program(), 10.0).unwrap();
    let mut bytes = first.save().expect("nothing carried across a reload");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x55;
    let err = game::Evening::restore(program(), &bytes)
        .err()
        .expect("refused");
    assert!(!err.is_empty());
    bytes.truncate(bytes.len() / 2);
    assert!(game::Evening::restore(program(), &bytes).is_err());
}

#[test]
fn the_game_state_is_linked_from_the_games_own_code() {
    // Without the game's `Sip` the program does not link: the standard library alone is not
    // what this game runs.
    let world = game::TavernWorld::default();
    let standard_only = ensemble_runtime::stdlib::library::<game::TavernWorld>();
    let err = Session::start(program(), standard_only, "evening", world, 7)
        .err()
        .expect("Sip is missing");
    assert!(err.to_string().contains("`Sip`"), "{err}");
}
