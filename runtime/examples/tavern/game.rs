//! The tavern: a game with its own world, embedding Ensemble's core (no simulator).
//!
//! `TavernWorld` is the game's side of the seam (`ensemble_runtime::world::World`): people walk
//! at the game's own pace, actions take the lengths of the game's own animations, lines are
//! shown as subtitles for a time that depends on their length. `Sip` is a library state whose
//! code the game writes. Everything else — the patron's machine, the conversation of dialog
//! states at the bar, the plan for the rest of the evening, the bard's interaction script at
//! the hearth — is authored content (`project/`), compiled to `tavern.ensb`, run by the core.
//!
//! One `Session` drives it all: it places everyone and gives them their starting variables
//! (the world starts empty), ticks the machines, the smart locations and the planning world in
//! their order, and saves and restores the evening between two frames ([`Evening::save`],
//! [`Evening::restore`]) — the game adds its world as a section of its own.

use ensemble_runtime::Program;
use ensemble_runtime::hsm::{AgentId, StateCode, StateCx, StateLibrary};
use ensemble_runtime::script::ActionOutcome;
use ensemble_runtime::session::Session;
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter, decode, encode};
use ensemble_runtime::stdlib::{self, StandardState};
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_runtime::world::{
    ActionId, ActionRequest, Destination, Line, LineId, MoveEvent, World, WorldCx,
};
use std::collections::BTreeMap;
use std::sync::Arc;

/// How fast people walk in the tavern, metres per second.
const WALKING_SPEED: f64 = 2.0;

/// The game's animations that scripts ask for, and how long each plays, seconds.
const ANIMATIONS: &[(&str, f64)] = &[("tune", 2.0), ("play", 4.0)];

/// The section the tavern's own world saves into, beside the core's.
const WORLD_SECTION: &str = "tavern.world";

/// One person in the tavern.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Person {
    at: [f64; 2],
    /// Where it walks, if it walks.
    heading: Option<[f64; 2]>,
    /// The subtitle it shows, and until when.
    subtitle: Option<(String, f64)>,
}

/// The game's world.
#[derive(Default)]
pub struct TavernWorld {
    people: Vec<Person>,
    variables: BTreeMap<(AgentId, String), String>,
    /// Animations playing: when each ends.
    animations: BTreeMap<ActionId, f64>,
    standard: StandardState,
    /// What the player sees happen, in order.
    pub screen: Vec<String>,
}

impl TavernWorld {
    fn person(&mut self, agent: AgentId) -> &mut Person {
        let i = agent.index();
        if i >= self.people.len() {
            self.people.resize(i + 1, Person::default());
        }
        &mut self.people[i]
    }
}

/// What the tavern's world saves: everything but the screen (what was shown is shown).
#[derive(serde::Serialize, serde::Deserialize)]
struct SavedTavern {
    people: Vec<Person>,
    variables: Vec<(AgentId, String, String)>,
    animations: Vec<(ActionId, f64)>,
}

impl TavernWorld {
    fn save(&self, snapshot: &mut SnapshotWriter) {
        let saved = SavedTavern {
            people: self.people.clone(),
            variables: self
                .variables
                .iter()
                .map(|((a, n), v)| (*a, n.clone(), v.clone()))
                .collect(),
            animations: self.animations.iter().map(|(id, t)| (*id, *t)).collect(),
        };
        snapshot.put(WORLD_SECTION, &saved);
    }

    /// The world [`TavernWorld::save`] left in `snapshot` (the session brings the standard
    /// library's state back into it).
    fn restore(snapshot: &SnapshotReader) -> Result<Self, String> {
        let saved: SavedTavern = snapshot.get(WORLD_SECTION).map_err(|e| e.to_string())?;
        Ok(TavernWorld {
            people: saved.people,
            variables: saved
                .variables
                .into_iter()
                .map(|(a, n, v)| ((a, n), v))
                .collect(),
            animations: saved.animations.into_iter().collect(),
            standard: StandardState::default(),
            screen: Vec::new(),
        })
    }
}

impl World for TavernWorld {
    fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
        self.people.get(agent.index()).map(|p| p.at)
    }

    fn place(&mut self, agent: AgentId, at: [f64; 2]) {
        self.person(agent).at = at;
    }

    fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>) {
        // The tavern is one open room: every destination is reachable in a straight line.
        let heading = to.point(cx.program);
        self.person(agent).heading = heading;
    }

    fn follow_move(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
        let p = self.person(agent);
        let to = p.heading?;
        let (dx, dy) = (to[0] - p.at[0], to[1] - p.at[1]);
        let dist = dx.hypot(dy);
        let stride = WALKING_SPEED * cx.dt;
        if dist <= stride.max(0.01) {
            p.at = to;
            return Some(MoveEvent::Arrived);
        }
        p.at = [p.at[0] + dx / dist * stride, p.at[1] + dy / dist * stride];
        None
    }

    fn stop_move(&mut self, agent: AgentId) {
        self.person(agent).heading = None;
    }

    fn start_action(&mut self, request: &ActionRequest<'_>, cx: &mut WorldCx<'_>) {
        let length = ANIMATIONS
            .iter()
            .find(|(name, _)| *name == request.action)
            .map_or(1.0, |(_, seconds)| *seconds);
        self.animations.insert(request.id, cx.now + length);
        self.screen.push(format!(
            "{:>5.1}s  agent {} plays the `{}` animation",
            cx.now, request.agent.0, request.action
        ));
    }

    fn action_outcome(&mut self, id: ActionId, cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
        let ends = *self.animations.get(&id)?;
        if ends > cx.now {
            return None;
        }
        self.animations.remove(&id);
        Some(ActionOutcome::Succeeded)
    }

    fn cancel_action(&mut self, id: ActionId) {
        self.animations.remove(&id);
    }

    fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        self.variables
            .get(&(agent, name.to_string()))
            .map(String::as_str)
    }

    fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        self.variables
            .insert((agent, name.to_string()), value.to_string());
    }

    fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        self.variables.remove(&(agent, name.to_string()))
    }

    fn say(&mut self, agent: AgentId, line: &Line<'_>, cx: &mut WorldCx<'_>) {
        // A subtitle stays up a second, and a little longer for a long line. A recorded
        // voice-over is looked up by the line's id in the string tables, the same in every
        // locale.
        let shown = 1.0 + 0.05 * line.text.len() as f64;
        let voice = match (line.key, line.id) {
            (Some(key), _) => format!("voice {key}"),
            (
                None,
                LineId::Candidate {
                    sentence,
                    candidate,
                },
            ) => format!("voice {sentence}/{candidate:08x}"),
            (None, LineId::Written) => "no voice".to_string(),
        };
        self.screen.push(format!(
            "{:>5.1}s  agent {} subtitle \"{}\" ({voice})",
            cx.now, agent.0, line.text
        ));
        self.person(agent).subtitle = Some((line.text.to_string(), cx.now + shown));
    }

    fn still_speaking(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> bool {
        let p = self.person(agent);
        match &p.subtitle {
            Some((_, until)) if *until > cx.now => true,
            _ => {
                p.subtitle = None;
                false
            }
        }
    }

    fn standard(&self) -> &StandardState {
        &self.standard
    }

    fn standard_mut(&mut self) -> &mut StandardState {
        &mut self.standard
    }
}

/// `Sip(n)`: the game's own state. Drinks the agent's `Mug` in `n` sips, one a second, and
/// raises `Done` when it is empty.
#[derive(Default)]
struct Sip {
    left: u32,
    next: f64,
}

impl StateCode<TavernWorld> for Sip {
    fn init(&mut self, cx: &mut StateCx<'_, TavernWorld>) {
        self.left = cx.number().unwrap_or(1.0).max(1.0) as u32;
        self.next = cx.now + 1.0;
        if cx.game.variable(cx.agent, "Mug").is_none() {
            let state = cx.state_name().to_string();
            cx.error(format!("{state}: nothing to drink"));
            cx.raise("Done");
        }
    }

    fn update(&mut self, cx: &mut StateCx<'_, TavernWorld>, _dt: f64) {
        if self.left == 0 || cx.now < self.next {
            return;
        }
        self.left -= 1;
        self.next += 1.0;
        let me = cx.agent;
        let name = cx.agent_name(me).to_string();
        let mug = cx.game.variable(me, "Mug").unwrap_or("nothing").to_string();
        let now = cx.now;
        cx.game
            .screen
            .push(format!("{now:>5.1}s  {name} sips {mug}"));
        if self.left == 0 {
            cx.game.remove_variable(me, "Mug");
            cx.del_fact(format!("Mug({name}) = {mug}"));
            cx.raise("Done");
        }
    }

    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&(self.left, self.next))
    }

    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        (self.left, self.next) = decode(data)?;
        Ok(())
    }
}

/// The tavern's state library: the standard states in this world, and the game's own, as
/// `project/tavern.statelib.ron` declares them (the program carries the declaration).
pub fn library() -> StateLibrary<TavernWorld> {
    let mut lib = stdlib::library::<TavernWorld>();
    lib.register_declared("Sip", || Box::new(Sip::default()));
    lib
}

/// What one evening shows: the game's screen and the runtime's trace, merged tick by tick.
pub struct Evening {
    pub lines: Vec<String>,
    /// The scene, its smart locations and the tavern's world, driven as one.
    pub session: Session<TavernWorld>,
}

/// The scene the tavern plays.
const SCENE: &str = "evening";

/// Runs scene `evening` of `program` for `seconds`, the way a game's frame loop does.
pub fn run(program: Arc<Program>, seconds: f64) -> Result<Evening, String> {
    let mut evening = Evening::start(program)?;
    evening.play(seconds);
    Ok(evening)
}

impl Evening {
    /// The evening as it starts: the session places everyone and gives them their variables.
    pub fn start(program: Arc<Program>) -> Result<Evening, String> {
        let world = TavernWorld::default();
        let session =
            Session::start(program, library(), SCENE, world, 7).map_err(|e| e.to_string())?;
        Ok(Evening::of(session))
    }

    fn of(session: Session<TavernWorld>) -> Evening {
        // The lines come from the trace (on by default).
        let mut evening = Evening {
            lines: Vec::new(),
            session,
        };
        evening.note();
        evening
    }

    /// Plays frames until `seconds` into the evening.
    pub fn play(&mut self, seconds: f64) {
        while self.session.now() < seconds {
            // One frame: the machines, the smart locations, the planning world's events.
            self.session.tick();
            self.note();
        }
    }

    fn note(&mut self) {
        self.lines.append(&mut self.session.world_mut().screen);
        let events = self.session.take_events();
        self.lines.extend(events.iter().filter_map(story));
    }

    /// A savegame of the evening between two frames: the session's (the scene, the standard
    /// library's state, the smart locations) and the tavern's own world.
    pub fn save(&self) -> Result<Vec<u8>, String> {
        (self.session)
            .save_with(TavernWorld::save)
            .map_err(|e| e.to_string())
    }

    /// The evening saved in `bytes`, going on from the frame after the save (its lines start
    /// empty). Refused when anything of it could not be carried (a rebuild that lost a state).
    pub fn restore(program: Arc<Program>, bytes: &[u8]) -> Result<Evening, String> {
        let (session, report) = Session::restore(program, library(), bytes, TavernWorld::restore)
            .map_err(|e| e.to_string())?;
        if !report.fallbacks.is_empty() {
            return Err(report.fallbacks.join("; "));
        }
        Ok(Evening::of(session))
    }
}

/// The trace events worth a line of the story.
fn story(e: &TraceEvent) -> Option<String> {
    let who = e.agent.as_deref().unwrap_or("-");
    let what = match &e.kind {
        EventKind::Say { text, .. } => format!("{who} says \"{text}\""),
        EventKind::Plan { actions, .. } => format!("{who} plans {}", actions.join(", ")),
        EventKind::Act { action, .. } => format!("{who} starts {action}"),
        EventKind::Done { action, .. } => format!("{who} finished {action}"),
        EventKind::Add { fact, .. } => format!("{who}: {fact}"),
        EventKind::Join { script, role } => format!("{who} joins {script} as {role}"),
        EventKind::Error { message } => format!("{who} ERROR {message}"),
        EventKind::Fail { .. } => format!("{who} FAILED"),
        _ => return None,
    };
    Some(format!("{:>5.1}s  {what}", e.time))
}
