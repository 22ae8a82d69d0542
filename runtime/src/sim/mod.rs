//! A small simulated world and the standard state library that runs in it.
//!
//! `ensemble run` and the editor preview execute programs against this world: agents are points
//! on a plane that walk between named locations, and talking takes time proportional to the
//! words said. A game replaces all of this with its own world and library; the interpreter does
//! not depend on it.
//!
//! The library is declared once here; the compiler reads the same declarations (the built-in
//! library `sim`), so what the compiler checks and what the runtime links cannot drift apart.

mod interactions;
pub mod planning;
pub mod simulation;
mod states;
mod walk;

pub use interactions::Interactions;
pub use planning::PlanningWorld;
pub use simulation::Simulation;
pub use walk::{NavWorld, RouteAhead};

use crate::hsm::{AgentId, LibraryDecl, StateLibrary};
use crate::program::{Program, SceneId};
use std::collections::BTreeMap;

/// Walking speed of every simulated agent, metres per second.
pub const WALK_SPEED: f64 = 1.4;
/// How close counts as arrived, metres.
pub const ARRIVAL_RADIUS: f64 = 0.05;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Body {
    pub x: f64,
    pub y: f64,
}

/// The simulated world: one body per agent, who is talking with whom, each agent's
/// variables (the values `VARIABLE` slots of sentence states are filled with), and the
/// navigation graph as the scene's doors leave it.
#[derive(Clone, Debug, Default)]
pub struct SimWorld {
    pub bodies: Vec<Body>,
    pub partners: Vec<Option<AgentId>>,
    pub variables: Vec<BTreeMap<String, String>>,
    /// Agents whose `TalkStateMachine` host is active. Talking without a partner means the
    /// partner has left: the conversation is over and its remaining states stay silent.
    pub talking: Vec<bool>,
    /// Planning agents' worlds and the scene's world events (`planning`).
    pub planning: PlanningWorld,
    /// The navigation graph walks are planned on; `None` when the program has none (agents
    /// then walk straight).
    pub nav: Option<NavWorld>,
    /// The scene this world belongs to (its door events apply).
    scene: Option<SceneId>,
    /// The route each agent is walking (by agent index), for hosts to show; `None` while it
    /// does not walk. Only `Goto` writes it, and nothing in the simulation reads it.
    walks: Vec<Option<RouteAhead>>,
}

impl SimWorld {
    /// The world of a program's scene: each agent at its start location.
    pub fn for_scene(program: &Program, scene: SceneId) -> Self {
        let def = &program.scenes[scene.index()];
        // Machine-driven agents first, then ambient ones: the scene's agent id order.
        let starts = def
            .agents
            .iter()
            .map(|a| a.start)
            .chain(def.ambient.iter().map(|a| a.start));
        let bodies = starts
            .map(|start| {
                let l = &program.locations[start.index()];
                Body { x: l.x, y: l.y }
            })
            .collect::<Vec<_>>();
        let mut variables = vec![BTreeMap::new(); bodies.len()];
        for b in program.speech.bindings.iter().filter(|b| b.scene == scene) {
            if let Some(vars) = variables.get_mut(b.agent as usize) {
                vars.insert(program.name(b.variable).to_string(), b.value.clone());
            }
        }
        SimWorld {
            partners: vec![None; bodies.len()],
            talking: vec![false; bodies.len()],
            bodies,
            variables,
            planning: PlanningWorld::for_scene(program, scene),
            nav: NavWorld::new(program, scene, 0.0),
            scene: Some(scene),
            walks: Vec::new(),
        }
    }

    /// An agent's variable.
    pub fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        self.variables
            .get(agent.index())
            .and_then(|v| v.get(name))
            .map(String::as_str)
    }

    pub fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        let i = agent.index();
        if i >= self.variables.len() {
            self.variables.resize(i + 1, BTreeMap::new());
        }
        self.variables[i].insert(name.to_string(), value.to_string());
    }

    /// Removes one of an agent's variables, returning its value.
    pub fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        self.variables.get_mut(agent.index())?.remove(name)
    }

    pub fn body(&mut self, agent: AgentId) -> &mut Body {
        let i = agent.index();
        if i >= self.bodies.len() {
            self.bodies.resize(i + 1, Body::default());
        }
        &mut self.bodies[i]
    }

    /// The route `agent` is walking, if it walks.
    pub fn walk(&self, agent: AgentId) -> Option<&RouteAhead> {
        self.walks.get(agent.index()).and_then(Option::as_ref)
    }

    pub(crate) fn set_walk(&mut self, agent: AgentId, walk: Option<RouteAhead>) {
        let i = agent.index();
        if i >= self.walks.len() {
            if walk.is_none() {
                return;
            }
            self.walks.resize(i + 1, None);
        }
        self.walks[i] = walk;
    }

    /// Where `agent` stands, `[x, y]`.
    pub fn body_at(&self, agent: AgentId) -> [f64; 2] {
        self.bodies
            .get(agent.index())
            .map_or([0.0, 0.0], |b| [b.x, b.y])
    }

    pub fn partner(&self, agent: AgentId) -> Option<AgentId> {
        self.partners.get(agent.index()).copied().flatten()
    }

    pub fn set_partner(&mut self, agent: AgentId, partner: Option<AgentId>) {
        let i = agent.index();
        if i >= self.partners.len() {
            self.partners.resize(i + 1, None);
        }
        self.partners[i] = partner;
    }

    pub fn set_talking(&mut self, agent: AgentId, on: bool) {
        let i = agent.index();
        if i >= self.talking.len() {
            self.talking.resize(i + 1, false);
        }
        self.talking[i] = on;
    }

    /// True when the agent runs a conversation whose partner has left (or never came): what is
    /// left of its conversation machine does not speak or trade, and its host ends it.
    pub fn conversation_over(&self, agent: AgentId) -> bool {
        self.talking.get(agent.index()).copied().unwrap_or(false) && self.partner(agent).is_none()
    }
}

/// The standard library, ready to link.
pub fn library() -> StateLibrary<SimWorld> {
    let mut lib = StateLibrary::new();
    states::register(&mut lib);
    lib
}

/// The declarations of the standard library (what the compiler checks machines against).
pub fn declarations() -> Vec<LibraryDecl> {
    library().declarations()
}
