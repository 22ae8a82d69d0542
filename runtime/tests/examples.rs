//! Every example of `runtime/examples/` runs, and shows what its top comment says it teaches.
//! The conversation example needs a program built from `samples/innkeeper`: the workspace's
//! tests build it and run it (tests/examples.rs).

#[allow(dead_code)]
#[path = "../examples/hello.rs"]
mod hello;

#[allow(dead_code)]
#[path = "../examples/own_world.rs"]
mod own_world;

#[allow(dead_code)]
#[path = "../examples/game_state.rs"]
mod game_state;

#[allow(dead_code)]
#[path = "../examples/save_restore.rs"]
mod save_restore;

#[allow(dead_code)]
#[path = "../examples/hot_reload.rs"]
mod hot_reload;

#[test]
fn hello_prints_what_the_agents_do_from_tick_0() {
    let lines = hello::hello(20.0).unwrap();
    assert!(lines[0].trim_start().starts_with("0 "), "{}", lines[0]);
    assert!(lines.iter().any(|l| l.contains("buyer1")), "{lines:#?}");
    assert!(lines.iter().any(|l| l.contains("say")), "{lines:#?}");
}

#[test]
fn own_world_starts_set_up_and_draws_moves_and_lines() {
    let drawn = own_world::own_world(20.0).unwrap();
    assert!(drawn[0].contains("bound for Boston"), "{drawn:#?}");
    assert!(
        drawn.iter().any(|l| l.contains("stands on tile")),
        "{drawn:#?}"
    );
    assert!(drawn.iter().any(|l| l.contains("bubble")), "{drawn:#?}");
}

#[test]
fn game_state_reads_its_typed_parameters() {
    let shown = game_state::game_state().unwrap();
    let expected = [
        "guard plays Wave on the full layer (loop: true, blend 0.2 s)",
        "guard attacks thief with fists from 2 cover points",
        "guard: Nod",
        "guard: Halt!",
    ];
    let shown: Vec<&str> = shown.iter().map(|l| l[8..].trim_start()).collect();
    assert_eq!(shown, expected);
}

#[test]
fn save_restore_goes_on_as_if_the_game_had_never_stopped() {
    let played = |save_at| -> Vec<String> {
        let lines = save_restore::save_restore(save_at, 60.0).unwrap();
        assert!(lines.iter().any(|l| l.starts_with("-- saved at")));
        assert!(
            !lines.iter().any(|l| l.starts_with("-- not carried")),
            "{lines:#?}"
        );
        lines.into_iter().filter(|l| !l.starts_with("--")).collect()
    };
    let whole = played(60.0);
    assert!(
        whole.iter().any(|l| l.contains("sit")),
        "the bench's script ran: {whole:#?}"
    );
    for at in [0.0, 20.0, 33.3] {
        assert_eq!(played(at), whole, "saved at {at} s");
    }
}

#[test]
fn hot_reload_carries_the_states_and_refuses_another_project() {
    let lines = hot_reload::hot_reload().unwrap();
    assert!(lines[0].starts_with("reloaded at 5.0 s:"), "{lines:#?}");
    assert!(!lines[0].contains(" 0 active states"), "{lines:#?}");
    let refused = lines
        .iter()
        .find(|l| l.starts_with("refused:"))
        .expect("refused");
    assert!(refused.contains("project `bench`"), "{refused}");
    assert!(
        lines.iter().any(|l| l.trim_start().starts_with("seller:")),
        "{lines:#?}"
    );
}

#[test]
fn the_guides_first_example_is_this_hello_loop_complete_in_at_most_30_lines() {
    let guide = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/embedding.md");
    let guide = std::fs::read_to_string(guide).unwrap();
    let first = guide.split("```rust\n").nth(1).unwrap();
    let first = first.split("```").next().unwrap();
    assert!(
        first.lines().count() <= 30,
        "{} lines:\n{first}",
        first.lines().count()
    );
    let hello = include_str!("../examples/hello.rs");
    for needed in [
        "use ensemble_runtime::session::Session;",
        "use ensemble_runtime::{Program, stdlib, world::Greybox};",
        "fn main() -> Result<(), Box<dyn",
        "Program::load(",
        "let world = Greybox::default();",
        "Session::start(program, stdlib::library(), \"ticket-counter\", world, 7)?;",
        "The trace is on from tick 0",
        "session.tick();",
        "session.take_events()",
        "event.to_text()",
    ] {
        assert!(first.contains(needed), "the guide's loop lacks `{needed}`");
        assert!(hello.contains(needed), "examples/hello.rs lacks `{needed}`");
    }
}
