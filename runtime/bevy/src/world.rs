//! The game-side seam over the ECS: what an agent's entity carries, and [`EcsWorld`], the
//! runtime's view of those entities while a scene ticks.
//!
//! A scene's tick runs inside one system, so the runtime cannot reach into the ECS while it
//! ticks. [`EcsWorld`] is its copy of what the seam needs: before the ticks of a frame the
//! plugin reads each agent's entity into it (position from `Transform`, the game's reports on
//! moves, actions and lines, variables the game changed); after them it writes the runtime's
//! requests back as components ([`Walking`], [`Actions`], [`Speaking`], [`Variables`]) for the
//! game's own systems to carry out and report on.

use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::prelude::Mut;
use bevy::math::Vec2;
use bevy::transform::components::Transform;
use ensemble_runtime::hsm::AgentId;
use ensemble_runtime::script::ActionOutcome;
use ensemble_runtime::stdlib::StandardState;
use ensemble_runtime::world::{
    ActionId, ActionRequest, Destination, Line, LineId, MoveEvent, World, WorldCx,
};
use std::collections::BTreeMap;

/// An agent of a running scene. The plugin spawns one entity per agent, a child of the scene's
/// entity: its `Transform` (in the scene entity's space, scaled by the scene's
/// `units_per_metre`) is where the runtime believes the agent stands.
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform, Variables)]
pub struct Agent {
    /// The entity of the [`EnsembleScene`](crate::EnsembleScene) the agent belongs to.
    pub scene: Entity,
    /// The agent's id in its scene (the scene's agents first, in its order).
    pub id: AgentId,
    /// The agent's name in the scene (`seller`, `buyer1`).
    pub name: String,
    /// Its active states, root machine's first, each as `Machine/State`; updated every tick.
    pub states: Vec<String>,
    /// Its root machine still runs (it has not finished, failed or been halted).
    pub running: bool,
}

/// How a move ended, reported by the game on [`Walking::report`].
#[derive(Clone, Debug, PartialEq)]
pub enum MoveReport {
    /// The agent stands at the destination.
    Arrived,
    /// There is no way there now; the move stays open (the game may report `Arrived` later).
    NoPath,
    /// The game gave up on the move, with a reason for the trace.
    Failed(String),
}

/// The runtime asks the agent to walk to [`Walking::to`]. The game's movement system moves
/// the agent's `Transform` there and sets [`Walking::report`]; the plugin hands the report to
/// the runtime and removes the component once the runtime no longer needs the move.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Walking {
    /// Where to, in the scene entity's space (world metres times `units_per_metre`).
    pub to: Vec2,
    /// The program's location the move goes to, when it goes to one (a `Goto`).
    pub location: Option<String>,
    /// What became of the move since the runtime last looked: the game sets it.
    pub report: Option<MoveReport>,
    /// Which request of the runtime this is: a new request replaces the component.
    order: u64,
}

/// One action the runtime asked an agent (or a smart location's proxy object) to perform.
#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    /// The runtime's id for it.
    pub id: ActionId,
    /// The action's name as the interaction script spells it (`sit`, `talk`).
    pub name: String,
    /// Its target (a prop, another participant), if any.
    pub target: Option<String>,
    /// Its parameters, names and values.
    pub parameters: Vec<(String, String)>,
    /// The line it says, when it has a `line` parameter.
    pub line: Option<String>,
    /// The performer is a proxy object (a game system, not a body).
    pub proxy: bool,
    /// Scene seconds when it was asked for.
    pub started: f64,
    /// How it ended: the game sets it once the action is over.
    pub outcome: Option<ActionOutcome>,
}

/// The actions an agent performs for interaction scripts. The game's systems perform each
/// and set its [`Action::outcome`]; the plugin removes it once the runtime has read it (or no
/// longer waits for it).
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct Actions(pub Vec<Action>);

/// The agent says a line: the game shows it (a bubble) or voices it, and sets
/// [`Speaking::finished`] when it is over. The plugin removes the component when the runtime
/// has seen that, or replaces it with the next line.
#[derive(Component, Clone, Debug, PartialEq)]
pub struct Speaking {
    /// The text, variables filled in.
    pub text: String,
    /// The sentence state and candidate id a voice-over or translation is looked up by;
    /// `None` for a line written in a state's modifier (its text is its id).
    pub sentence: Option<(String, u32)>,
    /// Scene seconds when it was said.
    pub since: f64,
    /// The game sets it once the line has been shown or voiced long enough.
    pub finished: bool,
    order: u64,
}

/// The agent's variables (its inventory included): filled into sentence slots, answered to
/// `Has`, moved between agents by `Transaction`. The runtime writes them back after each
/// frame's ticks; values the game changes reach the runtime before the next tick.
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct Variables(pub BTreeMap<String, String>);

/// A move under way, as the runtime asked for it.
#[derive(Debug)]
struct WalkOrder {
    order: u64,
    to: [f64; 2],
    location: Option<String>,
    report: Option<MoveEvent>,
}

/// A line being said.
#[derive(Debug)]
struct LineOrder {
    order: u64,
    text: String,
    sentence: Option<(String, u32)>,
    since: f64,
    finished: bool,
}

/// What the runtime knows of one agent's entity.
#[derive(Debug, Default)]
struct Body {
    at: [f64; 2],
    walk: Option<WalkOrder>,
    line: Option<LineOrder>,
    variables: BTreeMap<String, String>,
    /// The runtime changed the variables since they were last written to the entity.
    variables_changed: bool,
}

/// An action under way and whom it belongs to.
#[derive(Debug)]
struct ActionOrder {
    agent: AgentId,
    action: Action,
}

/// The seam ([`World`]) over the ECS: the runtime's copy of its agents' entities while a scene
/// ticks (see the [module documentation](self)). The plugin keeps one per running scene.
#[derive(Debug)]
pub struct EcsWorld {
    /// `Transform` units per world metre.
    units_per_metre: f64,
    bodies: Vec<Body>,
    actions: BTreeMap<ActionId, ActionOrder>,
    standard: StandardState,
    /// The last request number given out (moves and lines).
    orders: u64,
}

impl EcsWorld {
    /// An empty world drawn at `units_per_metre`: the session places the scene's agents and
    /// sets their starting variables through the seam (`ensemble_runtime::session`).
    pub fn new(units_per_metre: f32) -> Self {
        EcsWorld {
            units_per_metre: f64::from(units_per_metre),
            bodies: Vec::new(),
            actions: BTreeMap::new(),
            standard: StandardState::default(),
            orders: 0,
        }
    }

    fn body(&mut self, agent: AgentId) -> &mut Body {
        let i = agent.index();
        if i >= self.bodies.len() {
            self.bodies.resize_with(i + 1, Body::default);
        }
        &mut self.bodies[i]
    }

    fn next_order(&mut self) -> u64 {
        self.orders += 1;
        self.orders
    }

    /// A point in world metres as a translation in the scene entity's space.
    fn to_units(&self, at: [f64; 2]) -> Vec2 {
        scaled(at, self.units_per_metre)
    }

    fn to_metres(&self, at: Vec2) -> [f64; 2] {
        [
            f64::from(at.x) / self.units_per_metre,
            f64::from(at.y) / self.units_per_metre,
        ]
    }

    /// Where the runtime believes `agent` stands, in the scene entity's space.
    pub(crate) fn translation(&self, agent: AgentId) -> Vec2 {
        self.to_units(self.bodies.get(agent.index()).map_or([0.0; 2], |b| b.at))
    }

    /// Reads an agent's entity before the frame's ticks: where it stands, what the game
    /// reported, the variables when the game changed them.
    pub(crate) fn read_entity(
        &mut self,
        agent: AgentId,
        entity: EntityView<'_>,
        variables_changed_by_game: bool,
    ) {
        let at = self.to_metres(entity.transform.translation.truncate());
        let body = self.body(agent);
        body.at = at;
        // A report on a move or line the runtime has since replaced is not for it.
        // Mutable access only to take a report, so that the game's `Changed<Walking>` means
        // the runtime asked for something new or the game reported.
        if let (Some(walk), Some(mut walking)) = (&mut body.walk, entity.walking)
            && walk.order == walking.order
            && walking.report.is_some()
            && let Some(report) = walking.report.take()
        {
            walk.report = Some(match report {
                MoveReport::Arrived => MoveEvent::Arrived,
                MoveReport::NoPath => MoveEvent::NoPath,
                MoveReport::Failed(why) => MoveEvent::Failed(why),
            });
        }
        if let (Some(line), Some(speaking)) = (&mut body.line, entity.speaking)
            && line.order == speaking.order
        {
            line.finished |= speaking.finished;
        }
        if variables_changed_by_game {
            body.variables.clone_from(&entity.variables.0);
        }
        for reported in entity.actions.iter().flat_map(|a| &a.0) {
            if let (Some(outcome), Some(order)) =
                (reported.outcome, self.actions.get_mut(&reported.id))
            {
                order.action.outcome = Some(outcome);
            }
        }
    }

    /// What to change on an agent's entity after the frame's ticks so that it carries the
    /// runtime's requests; only what changed (so that the game's change detection means
    /// something).
    pub(crate) fn changes(&mut self, agent: AgentId, now: EntityNow<'_>) -> EntityChanges {
        let units = self.units_per_metre;
        let body = self.body(agent);
        let walking = match (&body.walk, now.walking) {
            (Some(walk), current) if current.is_none_or(|w| w.order != walk.order) => {
                Change::Set(Walking {
                    to: scaled(walk.to, units),
                    location: walk.location.clone(),
                    report: None,
                    order: walk.order,
                })
            }
            (None, Some(_)) => Change::Remove,
            _ => Change::Keep,
        };
        let speaking = match (&body.line, now.speaking) {
            (Some(line), current) if current.is_none_or(|s| s.order != line.order) => {
                Change::Set(Speaking {
                    text: line.text.clone(),
                    sentence: line.sentence.clone(),
                    since: line.since,
                    finished: false,
                    order: line.order,
                })
            }
            (None, Some(_)) => Change::Remove,
            _ => Change::Keep,
        };
        let variables =
            std::mem::take(&mut body.variables_changed).then(|| Variables(body.variables.clone()));
        let wanted: Vec<&Action> = self
            .actions
            .values()
            .filter(|o| o.agent == agent)
            .map(|o| &o.action)
            .collect();
        let current = now.actions.map_or(&[][..], |a| &a.0[..]);
        let same =
            wanted.len() == current.len() && wanted.iter().zip(current).all(|(w, c)| w.id == c.id);
        let actions = match (same, wanted.is_empty()) {
            (true, _) => Change::Keep,
            (false, true) => Change::Remove,
            // What the game already reported on the actions still open is kept.
            (false, false) => Change::Set(Actions(
                wanted
                    .into_iter()
                    .map(|w| current.iter().find(|c| c.id == w.id).unwrap_or(w).clone())
                    .collect(),
            )),
        };
        EntityChanges {
            walking,
            speaking,
            actions,
            variables,
        }
    }
}

/// A point in world metres as a translation at `units` per metre.
fn scaled(at: [f64; 2], units: f64) -> Vec2 {
    Vec2::new((at[0] * units) as f32, (at[1] * units) as f32)
}

/// An agent's entity as the plugin reads it before the ticks.
pub(crate) struct EntityView<'a> {
    pub transform: &'a Transform,
    pub walking: Option<Mut<'a, Walking>>,
    pub speaking: Option<&'a Speaking>,
    pub actions: Option<&'a Actions>,
    pub variables: &'a Variables,
}

/// An agent's entity's request components as they are after the frame's ticks.
#[derive(Default)]
pub(crate) struct EntityNow<'a> {
    pub walking: Option<&'a Walking>,
    pub speaking: Option<&'a Speaking>,
    pub actions: Option<&'a Actions>,
}

/// What becomes of one component of an agent's entity.
pub(crate) enum Change<T> {
    Keep,
    Set(T),
    Remove,
}

/// What to change on an agent's entity ([`EcsWorld::changes`]).
pub(crate) struct EntityChanges {
    pub walking: Change<Walking>,
    pub speaking: Change<Speaking>,
    pub actions: Change<Actions>,
    /// The runtime's variables, when it changed them.
    pub variables: Option<Variables>,
}

impl EcsWorld {
    /// Every variable of agent `index` (the inspector shows them all).
    #[cfg(feature = "inspect")]
    pub(crate) fn variables(&self, index: usize) -> Option<&BTreeMap<String, String>> {
        self.bodies.get(index).map(|b| &b.variables)
    }
}

impl World for EcsWorld {
    fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
        self.bodies.get(agent.index()).map(|b| b.at)
    }

    fn place(&mut self, agent: AgentId, at: [f64; 2]) {
        let new = agent.index() >= self.bodies.len();
        let body = self.body(agent);
        body.at = at;
        // An agent placed for the first time gets its `Variables` component, empty or not.
        body.variables_changed |= new;
    }

    fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>) {
        let order = self.next_order();
        let location = match to {
            Destination::Location(l) => cx
                .program
                .locations
                .get(l.index())
                .map(|l| cx.program.name(l.name).to_string()),
            Destination::Point(_) => None,
        };
        let (point, report) = match to.point(cx.program) {
            Some(p) => (p, None),
            // Verified programs name only their own locations; a foreign id fails the move
            // rather than walking somewhere arbitrary.
            None => (
                self.body(agent).at,
                Some(MoveEvent::Failed(format!("no such destination: {to:?}"))),
            ),
        };
        self.body(agent).walk = Some(WalkOrder {
            order,
            to: point,
            location,
            report,
        });
    }

    fn follow_move(&mut self, agent: AgentId, _cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
        self.body(agent).walk.as_mut()?.report.take()
    }

    fn stop_move(&mut self, agent: AgentId) {
        self.body(agent).walk = None;
    }

    fn start_action(&mut self, request: &ActionRequest<'_>, cx: &mut WorldCx<'_>) {
        let action = Action {
            id: request.id,
            name: request.action.to_string(),
            target: request.target.map(str::to_string),
            parameters: request.parameters.to_vec(),
            line: request.line.map(str::to_string),
            proxy: request.proxy,
            started: cx.now,
            outcome: None,
        };
        self.actions.insert(
            request.id,
            ActionOrder {
                agent: request.agent,
                action,
            },
        );
    }

    fn action_outcome(&mut self, id: ActionId, _cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
        let outcome = self.actions.get(&id)?.action.outcome?;
        self.actions.remove(&id);
        Some(outcome)
    }

    fn cancel_action(&mut self, id: ActionId) {
        self.actions.remove(&id);
    }

    fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        self.bodies
            .get(agent.index())?
            .variables
            .get(name)
            .map(String::as_str)
    }

    fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        let body = self.body(agent);
        body.variables.insert(name.to_string(), value.to_string());
        body.variables_changed = true;
    }

    fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        let body = self.body(agent);
        let value = body.variables.remove(name);
        body.variables_changed |= value.is_some();
        value
    }

    fn say(&mut self, agent: AgentId, line: &Line<'_>, cx: &mut WorldCx<'_>) {
        let order = self.next_order();
        let sentence = match line.id {
            LineId::Candidate {
                sentence,
                candidate,
            } => Some((sentence.to_string(), candidate)),
            LineId::Written => None,
        };
        self.body(agent).line = Some(LineOrder {
            order,
            text: line.text.to_string(),
            sentence,
            since: cx.now,
            finished: false,
        });
    }

    fn still_speaking(&mut self, agent: AgentId, _cx: &mut WorldCx<'_>) -> bool {
        let body = self.body(agent);
        match &body.line {
            Some(line) if !line.finished => true,
            _ => {
                body.line = None;
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
