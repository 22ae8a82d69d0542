//! The game-side seam: what a game supplies so that everything a designer authors runs in it.
//!
//! The core runs state machines, the standard library states ([`crate::stdlib`]), interaction
//! scripts at smart locations ([`crate::interactions`]), speech and planning. Wherever those
//! touch the world — an agent walks somewhere, performs an action, reads or sets one of its
//! variables, says a line — they go through the [`World`] trait, implemented by the game. The
//! core knows no other world: the simulated world the `ensemble` command line and the editor
//! preview run on (a crate of its own) is one implementation of this trait, a game's is
//! another.
//!
//! **Requests are asynchronous.** A request to move ([`World::move_to`]) or to perform an action
//! ([`World::start_action`]) returns at once; the game answers later, when the runtime polls
//! ([`World::follow_move`], [`World::action_outcome`]) — once per tick while the request is
//! open. Nothing blocks, so a game can hand requests to its animation and navigation systems
//! and report back whenever they finish.
//!
//! **Time** is the scene's: the game ticks the scene with its frame time, and every call that
//! may take time receives a [`WorldCx`] with the current time, the tick's length, the program
//! (location names and coordinates), a seeded random stream and a place for trace events.
//!
//! ```
//! use ensemble_runtime::hsm::AgentId;
//! use ensemble_runtime::script::ActionOutcome;
//! use ensemble_runtime::stdlib::StandardState;
//! use ensemble_runtime::world::{ActionId, ActionRequest, Destination, Line, MoveEvent, World, WorldCx};
//! use std::collections::HashMap;
//!
//! /// A world where every move arrives at once and every action succeeds on the next poll.
//! #[derive(Default)]
//! struct Instant {
//!     at: HashMap<AgentId, [f64; 2]>,
//!     moving: HashMap<AgentId, [f64; 2]>,
//!     actions: Vec<ActionId>,
//!     variables: HashMap<(AgentId, String), String>,
//!     standard: StandardState,
//! }
//!
//! impl World for Instant {
//!     fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
//!         self.at.get(&agent).copied()
//!     }
//!     fn place(&mut self, agent: AgentId, at: [f64; 2]) {
//!         self.at.insert(agent, at);
//!     }
//!     fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>) {
//!         if let Some(point) = to.point(cx.program) {
//!             self.moving.insert(agent, point);
//!         }
//!     }
//!     fn follow_move(&mut self, agent: AgentId, _cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
//!         let point = self.moving.remove(&agent)?;
//!         self.at.insert(agent, point);
//!         Some(MoveEvent::Arrived)
//!     }
//!     fn stop_move(&mut self, agent: AgentId) {
//!         self.moving.remove(&agent);
//!     }
//!     fn start_action(&mut self, request: &ActionRequest<'_>, _cx: &mut WorldCx<'_>) {
//!         self.actions.push(request.id);
//!     }
//!     fn action_outcome(&mut self, id: ActionId, _cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
//!         let i = self.actions.iter().position(|a| *a == id)?;
//!         self.actions.remove(i);
//!         Some(ActionOutcome::Succeeded)
//!     }
//!     fn cancel_action(&mut self, id: ActionId) {
//!         self.actions.retain(|a| *a != id);
//!     }
//!     fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
//!         self.variables.get(&(agent, name.to_string())).map(String::as_str)
//!     }
//!     fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
//!         self.variables.insert((agent, name.to_string()), value.to_string());
//!     }
//!     fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
//!         self.variables.remove(&(agent, name.to_string()))
//!     }
//!     fn say(&mut self, agent: AgentId, line: &Line<'_>, _cx: &mut WorldCx<'_>) {
//!         println!("{agent:?}: {}", line.text);
//!     }
//!     fn still_speaking(&mut self, _agent: AgentId, _cx: &mut WorldCx<'_>) -> bool {
//!         false
//!     }
//!     fn standard(&self) -> &StandardState {
//!         &self.standard
//!     }
//!     fn standard_mut(&mut self) -> &mut StandardState {
//!         &mut self.standard
//!     }
//! }
//!
//! // The whole standard library, ready to link against a program, runs in this world.
//! let library = ensemble_runtime::stdlib::library::<Instant>();
//! assert!(!library.declarations().is_empty());
//!
//! // A program (built in code here; a game loads the compiler's) where `porter` walks from the
//! // door to the well with the standard `Goto`, then finishes.
//! use ensemble_runtime::hsm::{AgentStatus, Scene};
//! use ensemble_runtime::program::*;
//! let names = ["Goto", "Finish", "Errand", "Walk", "Done", "ReachedLocation", "day", "porter",
//!     "door", "well"];
//! let program = Program::new(
//!     names.iter().map(|n| n.to_string()).collect(),
//!     vec![
//!         LibraryState { name: NameId(0), modifier: ModifierKind::Location, terminal: Terminal::No },
//!         LibraryState { name: NameId(1), modifier: ModifierKind::None, terminal: Terminal::End },
//!     ],
//!     vec![MachineDef { name: NameId(2), initial: StateId(0), first_state: 0, state_count: 2 }],
//!     vec![
//!         StateDef { name: NameId(3), machine: MachineId(0), code: LibraryId(0),
//!             modifier: Modifier::Location(LocationId(1)), first_transition: 0, transition_count: 1 },
//!         StateDef { name: NameId(4), machine: MachineId(0), code: LibraryId(1),
//!             modifier: Modifier::None, first_transition: 1, transition_count: 0 },
//!     ],
//!     vec![TransitionDef { event: NameId(5), target: StateId(1) }],
//!     vec![
//!         LocationDef { name: NameId(8), x: 0.0, y: 0.0 },
//!         LocationDef { name: NameId(9), x: 3.0, y: 4.0 },
//!     ],
//!     vec![SceneDef { name: NameId(6), tick_rate: 10, ambient: vec![],
//!         agents: vec![AgentDef { name: NameId(7), machine: MachineId(0), start: LocationId(0) }] }],
//! )?;
//! let day = program.scene_by_name("day").unwrap();
//! let world = Instant { standard: StandardState::for_scene(&program, day), ..Instant::default() };
//! let mut scene = Scene::new(std::sync::Arc::new(program), library, "day", world, 1).unwrap();
//! scene.tick();
//!
//! // This world moves at once: `Goto` asked it to move, it arrived, the machine finished.
//! let porter = scene.agents().next().unwrap();
//! assert_eq!(scene.game.position(porter), Some([3.0, 4.0]));
//! assert_eq!(*scene.status(porter), AgentStatus::Finished);
//! # Ok::<(), ensemble_runtime::LoadError>(())
//! ```

use crate::hsm::AgentId;
use crate::program::{LocationId, Program};
use crate::rng::Rng;
use crate::script::ActionOutcome;
use crate::trace::EventKind;

mod greybox;
mod planning;
mod standard;
pub use greybox::Greybox;
pub use planning::{AgentWorld, PlanningWorld};
pub use standard::{PLANNING_SECTION, STANDARD_SECTION, StandardState};

/// Where a move goes.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Destination {
    /// A named location of the program (`Goto(Kitchen)`, a stop of an NPC's route).
    Location(LocationId),
    /// A point in world metres.
    Point([f64; 2]),
}

impl Destination {
    /// The point of the destination in world metres (`None` for a location the program does
    /// not have).
    pub fn point(self, program: &Program) -> Option<[f64; 2]> {
        match self {
            Destination::Location(l) => program.locations.get(l.index()).map(|l| [l.x, l.y]),
            Destination::Point(p) => Some(p),
        }
    }
}

/// What became of a move, reported by [`World::follow_move`].
#[derive(Clone, Debug, PartialEq)]
pub enum MoveEvent {
    /// The agent stands at the destination.
    Arrived,
    /// There is no way there now. The move stays open: if the way opens (a door), the world
    /// may go on and report `Arrived` later.
    NoPath,
    /// The world gave up on the move (the agent was stunned, the destination is unreachable for
    /// good), with a reason for the trace.
    Failed(String),
}

/// Identifies an action request until its outcome is reported. Unique within a scene.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct ActionId(pub u64);

/// An action an interaction script asks an agent (or a proxy object) to perform.
#[derive(Clone, Debug, PartialEq)]
pub struct ActionRequest<'a> {
    /// The action's id: the world reports its outcome under it.
    pub id: ActionId,
    /// Who performs it.
    pub agent: AgentId,
    /// The action's name as the script spells it (`sit`, `talk`, `sell`).
    pub action: &'a str,
    /// Its target, spelled (a prop, another participant), if it has one.
    pub target: Option<&'a str>,
    /// Its parameters, names and values spelled.
    pub parameters: &'a [(String, String)],
    /// The line the action says, when it has a `line` parameter (the trace records it as said
    /// when the action starts).
    pub line: Option<&'a str>,
    /// The performer is a smart location's proxy object: a game system (a shop page) rather
    /// than a body.
    pub proxy: bool,
}

/// Which line is said: what a game looks a recorded voice-over or a translation up by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LineId<'a> {
    /// A candidate of a sentence state: the sentence state's name and the candidate's stable id
    /// (the id the compiler gives it, unchanged by edits elsewhere).
    Candidate {
        /// The sentence state's name.
        sentence: &'a str,
        /// The candidate's stable id within it.
        candidate: u32,
    },
    /// A line written in a state's modifier (`Say`, `OneOff`) or a canned `Salutation`: its
    /// id in the string tables is [`Line::key`].
    Written,
}

/// A line for the game to show or voice.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Line<'a> {
    /// The text, variables filled in.
    pub text: &'a str,
    /// What the line is looked up by.
    pub id: LineId<'a>,
    /// The line's stable id in the project's string tables (`SellTicket/Okay1/2`,
    /// `WhenTravel/1a2b3c4d`): what a game finds its recorded voice-over under, in every
    /// locale. `None` for a line the program has no id for (a canned `Salutation`, a program
    /// built without a string section).
    pub key: Option<&'a str>,
}

/// What the world is handed with each request and poll.
pub struct WorldCx<'a> {
    /// The running program (locations by id, names).
    pub program: &'a Program,
    /// Seconds since the scene started.
    pub now: f64,
    /// Seconds since the previous tick (0 when a request is made as a state is entered).
    pub dt: f64,
    /// A seeded random stream (the requesting agent's, or the smart location's): a world that
    /// simulates outcomes draws from it so that the same seed gives the same run. A game's
    /// world need not use it.
    pub rng: &'a mut Rng,
    /// Trace events the world records for the requesting agent (a walk's planned `path`).
    pub trace: &'a mut Vec<EventKind>,
}

/// The world a game supplies: bodies that move, actions that take time, agents' variables,
/// lines to show. See the [module documentation](self) for how requests are answered.
///
/// Agents are the scene's [`AgentId`]s: the agents a scene starts with come first, in the
/// scene's order; agents the runtime creates later (spawned NPCs, proxy objects) are
/// [placed](World::place) when they appear.
pub trait World {
    /// Where `agent` stands, in world metres; `None` when it has no body in the world.
    fn position(&self, agent: AgentId) -> Option<[f64; 2]>;

    /// An agent the runtime created (a spawned NPC, a proxy object) appears at `at`.
    fn place(&mut self, agent: AgentId, at: [f64; 2]);

    /// Asks the world to move `agent` to `to`, replacing any move it has open. Answers come
    /// through [`World::follow_move`].
    fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>);

    /// Polled once per tick while `agent`'s move is open (and once as it starts, with `dt` 0):
    /// what happened to it since the last poll, if anything. `Arrived` may be reported again
    /// on later polls; the runtime takes the first.
    fn follow_move(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> Option<MoveEvent>;

    /// The runtime no longer needs `agent`'s move (it arrived, or the state that asked for it
    /// was left): the agent may stop.
    fn stop_move(&mut self, agent: AgentId);

    /// Asks the world to perform an action. Its outcome comes through
    /// [`World::action_outcome`].
    fn start_action(&mut self, request: &ActionRequest<'_>, cx: &mut WorldCx<'_>);

    /// Polled once per tick for each open action: `Some` once it has succeeded or failed (the
    /// request is then closed; it is not polled again).
    fn action_outcome(&mut self, id: ActionId, cx: &mut WorldCx<'_>) -> Option<ActionOutcome>;

    /// The runtime no longer waits for action `id` (its script ended, a reload dropped it).
    fn cancel_action(&mut self, id: ActionId);

    /// Asked as each action of a planning agent's plan ends: `Some(succeeded)` overrides what
    /// the plan's world would decide (its machine's outcome and whether its preconditions
    /// really hold), as a content test's mocks do. A game leaves it at `None`.
    fn planning_outcome(&mut self, agent: AgentId, action: &str, rng: &mut Rng) -> Option<bool> {
        let _ = (agent, action, rng);
        None
    }

    /// Asked at each random draw that picks a branch of the run (which line a state says,
    /// whether a chance comes true): `natural` is the outcome the stream drew, of `outcomes`
    /// (the stream has drawn either way, so what follows draws the same); the answer is the
    /// outcome that happens. A content test's `Draw` setup forces one this way. A game leaves
    /// it at `natural`.
    fn decide(&mut self, kind: crate::rng::DrawKind, outcomes: usize, natural: usize) -> usize {
        let _ = (kind, outcomes);
        natural
    }

    /// One of an agent's variables (its inventory included: `Transaction` moves them between
    /// agents), filling the slots of sentence states and answering `Has`.
    fn variable(&self, agent: AgentId, name: &str) -> Option<&str>;

    /// Sets one of an agent's variables (`Set`, a transaction).
    fn set_variable(&mut self, agent: AgentId, name: &str, value: &str);

    /// Takes one of an agent's variables away (a transaction hands it over), returning it.
    fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String>;

    /// `agent` says `line` (a speaking state: `Say`, `Dialog`, one-off states). The scene's
    /// trace records it too; the world shows or voices it.
    fn say(&mut self, agent: AgentId, line: &Line<'_>, cx: &mut WorldCx<'_>);

    /// Polled once per tick after [`World::say`]: whether `agent` is still saying its line.
    /// The speaking state yields its turn once it is not.
    fn still_speaking(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> bool;

    /// What the standard library keeps per scene (who talks with whom, planning agents'
    /// worlds): the game keeps one [`StandardState`] in its world and returns it here.
    fn standard(&self) -> &StandardState;

    /// [`World::standard`], to change.
    fn standard_mut(&mut self) -> &mut StandardState;
}
