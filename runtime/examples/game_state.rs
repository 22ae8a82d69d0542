//! A game state with parameters: the designer's machines use states the game codes itself
//! (declared for the compiler in the project's `*.statelib.ron`, here
//! `tests/fixtures/params-game/game.statelib.ron`), registered in the library the session
//! starts with. Run it with `cargo run -p ensemble-runtime --example game_state`.
//!
//! It teaches `StateLibrary::register_linked`: the statelib file is the declaration (the
//! program carries it: parameters with their defaults, events), so the game registers code
//! only, naming the events and parameters it uses once, as the scene links the program: a name
//! the statelib lacks stops the program from starting with what to fix, instead of being
//! dropped every frame. The code then reads its parameters, defaults applied, through
//! `StateCx` with those typed names (`register_declared` is the same with names as strings).

use ensemble_runtime::Program;
use ensemble_runtime::hsm::{EventName, ParamName, StateCode, StateCx, StateLibrary};
use ensemble_runtime::session::Session;
use ensemble_runtime::{stdlib, world::Greybox};
use std::error::Error;
use std::sync::Arc;

/// `PlayAnimation(clip, loop = false, blend = 0.2, layer = "full")`: plays a clip for a
/// second (blended in over `blend` seconds), then raises `AnimationDone`.
#[derive(Clone, Copy)]
struct PlayAnimation {
    clip: ParamName,
    looped: ParamName,
    blend: ParamName,
    layer: ParamName,
    done: EventName,
    left: f64,
}

impl StateCode<Greybox> for PlayAnimation {
    fn init(&mut self, cx: &mut StateCx<'_, Greybox>) {
        let clip = cx.text_param(self.clip).unwrap_or("idle").to_string();
        let (looped, layer) = (
            cx.bool_param(self.looped) == Some(true),
            cx.text_param(self.layer),
        );
        let blend = cx.number_param(self.blend).unwrap_or(0.0);
        self.left = 1.0 + blend;
        let line = format!(
            "{:>5.1}s  {} plays {clip} on the {} layer (loop: {looped}, blend {blend} s)",
            cx.now,
            cx.agent_name(cx.agent),
            layer.unwrap_or("full")
        );
        cx.game.shown.push(line);
    }

    fn update(&mut self, cx: &mut StateCx<'_, Greybox>, dt: f64) {
        self.left -= dt;
        if self.left <= 0.0 {
            cx.raise(self.done);
        }
    }
}

/// `Attack(target, weapon = "fists", cover = [])`, `Emote(clip)`, `Shout("…")`: one line on
/// screen, then the state's event.
struct Instant(&'static str);

impl StateCode<Greybox> for Instant {
    fn init(&mut self, cx: &mut StateCx<'_, Greybox>) {
        let me = cx.agent_name(cx.agent).to_string();
        let line = match self.0 {
            "Hit" => {
                let target = cx
                    .agent_param("target")
                    .map(|a| cx.agent_name(a).to_string());
                let cover = cx.list_param("cover").map_or(0, |c| c.len());
                format!(
                    "{me} attacks {} with {} from {cover} cover points",
                    target.unwrap_or_default(),
                    cx.text_param("weapon").unwrap_or("?")
                )
            }
            _ => format!("{me}: {}", cx.text().unwrap_or("…")), // a single parameter reads as the modifier
        };
        cx.game.shown.push(format!("{:>5.1}s  {line}", cx.now));
        cx.raise(self.0);
    }
}

/// The standard states, and the game's own as its statelib declares them.
fn library() -> StateLibrary<Greybox> {
    let mut lib = stdlib::library::<Greybox>();
    lib.register_linked("PlayAnimation", |names| {
        Ok(PlayAnimation {
            clip: names.param("clip")?,
            looped: names.param("loop")?,
            blend: names.param("blend")?,
            layer: names.param("layer")?,
            done: names.event("AnimationDone")?,
            left: 0.0,
        })
    })
    .register_declared("Attack", || Box::new(Instant("Hit")))
    .register_declared("Emote", || Box::new(Instant("Done")))
    .register_declared("Shout", || Box::new(Instant("Done")));
    lib
}

fn main() -> Result<(), Box<dyn Error>> {
    for line in game_state()? {
        println!("{line}");
    }
    Ok(())
}

/// What the guard at the gate does, as the game's states show it.
pub fn game_state() -> Result<Vec<String>, Box<dyn Error>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/programs/params-game.ensb"
    );
    let program = Arc::new(Program::load(path.as_ref())?);
    let mut session = Session::start(program, library(), "gate", Greybox::default(), 7)?;
    while session.now() < 10.0 {
        session.tick();
    }
    Ok(std::mem::take(&mut session.world_mut().shown))
}
