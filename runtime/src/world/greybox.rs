//! [`Greybox`]: a world to run a program in before the game's own world exists, as a greybox
//! level stands in for the art. Not the simulated world of `ensemble run` (a crate of its own,
//! with navigation and failure rates): the smallest world that answers every call of the seam.

use super::StandardState;
use super::{ActionId, ActionRequest, Destination, Line, MoveEvent, World, WorldCx};
use crate::hsm::AgentId;
use crate::script::ActionOutcome;
use crate::snapshot::{SnapshotReader, SnapshotWriter};
use std::collections::BTreeMap;

/// A placeholder world: agents are points walking straight at [`Greybox::WALKING_SPEED`],
/// every action takes [`Greybox::ACTION_SECONDS`] and succeeds, a line is said for a second
/// and a twentieth of a second per character, and each agent's variables are kept. Everything
/// shown (lines, actions started) is appended to [`Greybox::shown`], for a game to print or
/// draw; nothing in it is random.
///
/// Start it empty (`Greybox::default()`): a [`crate::session::Session`] places the scene's
/// agents and sets their starting variables.
///
/// Its state saves into a savegame's section [`Greybox::SECTION`]:
/// `session.save_with(Greybox::save)`, and back with
/// `Session::restore(program, library, &bytes, Greybox::restore)`.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Greybox {
    /// Where each agent stands, by agent index.
    pub at: Vec<[f64; 2]>,
    /// Each agent's variables.
    pub variables: BTreeMap<(AgentId, String), String>,
    /// What the player would see, in order: `agent 1 says "Hi."`, `agent 2 starts sit`. Not
    /// saved: what was shown is shown.
    #[serde(skip)]
    pub shown: Vec<String>,
    heading: BTreeMap<AgentId, [f64; 2]>,
    speaking_until: BTreeMap<AgentId, f64>,
    actions: BTreeMap<ActionId, f64>,
    /// Saved and restored by the session, not here.
    #[serde(skip)]
    standard: StandardState,
}

impl Greybox {
    /// Metres a second.
    pub const WALKING_SPEED: f64 = 1.4;
    /// How long any action takes, seconds.
    pub const ACTION_SECONDS: f64 = 1.5;

    /// The savegame section the greybox saves into.
    pub const SECTION: &'static str = "greybox";

    /// Saves the world into `snapshot` (section [`Greybox::SECTION`]).
    pub fn save(&self, snapshot: &mut SnapshotWriter) {
        snapshot.put(Self::SECTION, self);
    }

    /// The world [`Greybox::save`] left in `snapshot`.
    pub fn restore(snapshot: &SnapshotReader) -> Result<Greybox, String> {
        snapshot.get(Self::SECTION).map_err(|e| e.to_string())
    }

    fn slot(&mut self, agent: AgentId) -> &mut [f64; 2] {
        if agent.index() >= self.at.len() {
            self.at.resize(agent.index() + 1, [0.0; 2]);
        }
        &mut self.at[agent.index()]
    }
}

impl World for Greybox {
    fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
        self.at.get(agent.index()).copied()
    }

    fn place(&mut self, agent: AgentId, at: [f64; 2]) {
        *self.slot(agent) = at;
    }

    fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>) {
        match to.point(cx.program) {
            Some(point) => self.heading.insert(agent, point),
            None => self.heading.remove(&agent),
        };
    }

    fn follow_move(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
        let to = *self.heading.get(&agent)?;
        let at = self.slot(agent);
        let (dx, dy) = (to[0] - at[0], to[1] - at[1]);
        let distance = dx.hypot(dy);
        let stride = Self::WALKING_SPEED * cx.dt;
        if distance <= stride.max(0.01) {
            *at = to;
            self.heading.remove(&agent);
            return Some(MoveEvent::Arrived);
        }
        *at = [
            at[0] + dx / distance * stride,
            at[1] + dy / distance * stride,
        ];
        None
    }

    fn stop_move(&mut self, agent: AgentId) {
        self.heading.remove(&agent);
    }

    fn start_action(&mut self, request: &ActionRequest<'_>, cx: &mut WorldCx<'_>) {
        self.actions
            .insert(request.id, cx.now + Self::ACTION_SECONDS);
        self.shown.push(format!(
            "{:>6.1}s  agent {} starts {}",
            cx.now, request.agent.0, request.action
        ));
    }

    fn action_outcome(&mut self, id: ActionId, cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
        if *self.actions.get(&id)? > cx.now {
            return None;
        }
        self.actions.remove(&id);
        Some(ActionOutcome::Succeeded)
    }

    fn cancel_action(&mut self, id: ActionId) {
        self.actions.remove(&id);
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
        let seconds = 1.0 + 0.05 * line.text.chars().count() as f64;
        self.speaking_until.insert(agent, cx.now + seconds);
        self.shown.push(format!(
            "{:>6.1}s  agent {} says \"{}\"",
            cx.now, agent.0, line.text
        ));
    }

    fn still_speaking(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> bool {
        self.speaking_until
            .get(&agent)
            .is_some_and(|until| *until > cx.now)
    }

    fn standard(&self) -> &StandardState {
        &self.standard
    }

    fn standard_mut(&mut self) -> &mut StandardState {
        &mut self.standard
    }
}
