//! A world of the game's own: the seam (`ensemble_runtime::world::World`) implemented by a
//! game type, here a tile board where people step one tile a tick and lines become speech
//! bubbles. Run it with `cargo run -p ensemble-runtime --example own_world`.
//!
//! It teaches what the runtime asks of a world — where agents stand, moves and actions that
//! take time (answered when polled), variables, lines — and that the world starts empty: the
//! session places the scene's agents and sets their starting variables through the same calls.

use ensemble_runtime::Program;
use ensemble_runtime::hsm::AgentId;
use ensemble_runtime::script::ActionOutcome;
use ensemble_runtime::session::Session;
use ensemble_runtime::stdlib::{self, StandardState};
use ensemble_runtime::world::{
    ActionId, ActionRequest, Destination, Line, MoveEvent, World, WorldCx,
};
use std::collections::{BTreeMap, BTreeSet};
use std::error::Error;
use std::sync::Arc;

/// The game's world: people on a board of one-metre tiles.
#[derive(Default)]
pub struct Board {
    tiles: BTreeMap<AgentId, (i64, i64)>,
    walking_to: BTreeMap<AgentId, (i64, i64)>,
    bubbles: BTreeMap<AgentId, u32>, // ticks each speech bubble stays up
    actions: BTreeSet<ActionId>,
    variables: BTreeMap<(AgentId, String), String>,
    standard: StandardState, // the runtime's per-scene bookkeeping, kept by the world
    /// What the game drew, in order.
    pub drawn: Vec<String>,
}

fn tile([x, y]: [f64; 2]) -> (i64, i64) {
    (x.round() as i64, y.round() as i64)
}

impl World for Board {
    fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
        self.tiles.get(&agent).map(|&(x, y)| [x as f64, y as f64])
    }
    fn place(&mut self, agent: AgentId, at: [f64; 2]) {
        self.tiles.insert(agent, tile(at));
    }
    fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>) {
        if let Some(at) = to.point(cx.program) {
            self.walking_to.insert(agent, tile(at));
        }
    }
    fn follow_move(&mut self, agent: AgentId, _cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
        let to = *self.walking_to.get(&agent)?;
        let at = self.tiles.entry(agent).or_default();
        at.0 += (to.0 - at.0).signum(); // one tile a tick, diagonals allowed
        at.1 += (to.1 - at.1).signum();
        if *at != to {
            return None;
        }
        self.walking_to.remove(&agent);
        self.drawn
            .push(format!("agent {} stands on tile {to:?}", agent.0));
        Some(MoveEvent::Arrived)
    }
    fn stop_move(&mut self, agent: AgentId) {
        self.walking_to.remove(&agent);
    }
    fn start_action(&mut self, request: &ActionRequest<'_>, _cx: &mut WorldCx<'_>) {
        self.actions.insert(request.id); // every animation is over by the next poll
    }
    fn action_outcome(&mut self, id: ActionId, _cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
        self.actions.remove(&id).then_some(ActionOutcome::Succeeded)
    }
    fn cancel_action(&mut self, id: ActionId) {
        self.actions.remove(&id);
    }
    fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        self.variables
            .get(&(agent, name.into()))
            .map(String::as_str)
    }
    fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        self.variables.insert((agent, name.into()), value.into());
    }
    fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        self.variables.remove(&(agent, name.into()))
    }
    fn say(&mut self, agent: AgentId, line: &Line<'_>, _cx: &mut WorldCx<'_>) {
        self.bubbles.insert(agent, 20);
        self.drawn
            .push(format!("agent {}'s bubble: {}", agent.0, line.text));
    }
    fn still_speaking(&mut self, agent: AgentId, _cx: &mut WorldCx<'_>) -> bool {
        let ticks = self.bubbles.entry(agent).or_default();
        *ticks = ticks.saturating_sub(1);
        *ticks > 0
    }
    fn standard(&self) -> &StandardState {
        &self.standard
    }
    fn standard_mut(&mut self) -> &mut StandardState {
        &mut self.standard
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    for line in own_world(20.0)? {
        println!("{line}");
    }
    Ok(())
}

/// What the board draws in the ticket counter's first `seconds`.
pub fn own_world(seconds: f64) -> Result<Vec<String>, Box<dyn Error>> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/programs/airport.ensb"
    );
    let program = Arc::new(Program::load(path.as_ref())?);
    let mut session = Session::start(
        program,
        stdlib::library(),
        "ticket-counter",
        Board::default(),
        7,
    )?;
    let buyer = session.agent("buyer1").ok_or("no buyer1")?;
    let city = session
        .world()
        .variable(buyer, "CityName")
        .unwrap_or("?")
        .to_string();
    let mut drawn = vec![format!(
        "buyer1 starts on tile {:?}, bound for {city}",
        session.world().tiles[&buyer]
    )];
    while session.now() < seconds {
        session.tick();
        drawn.append(&mut session.world_mut().drawn);
    }
    Ok(drawn)
}
