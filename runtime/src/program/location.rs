//! What a smart location adds around the scripts it runs (Skubch 35.2 and 35.6): its emitters
//! besides the script emitter, its proxy objects, and the events a scene makes happen to them
//! (what the player does, what a proxied game system reports), for headless runs and tests.
//!
//! Facts written here are ground atoms: they may use constants, numbers, `.now` and `.me` (the
//! player for player input, the proxy for a proxy's push), never variables. The verifier checks
//! that, so the runtime evaluates them without a rule's bindings.

use super::script::Atom;
use super::{LocationId, NameId, SceneId};
use serde::{Deserialize, Serialize};

/// A proxy object (35.6): a game system such as a shop that takes part in the location's scripts
/// as if it were an NPC — it holds `role`, executes the actions of that role's rules (only
/// those in `actions`), and pushes what happens in its domain into the blackboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProxyDef {
    /// The proxy's name, as a participant of scripts.
    pub name: NameId,
    /// The role it holds in the location's scripts.
    pub role: NameId,
    /// The actions it offers (opening a shop page, ringing up a sale).
    pub actions: Vec<NameId>,
}

/// A notification emitter (35.2): an event at the location, at `at` seconds and then every
/// `every` seconds (0: once; at most once per step of the scene). Each emission tells the
/// agents within `radius` about it (ambient NPCs come over to the location, machine-driven
/// agents receive a message named `name`) and puts `facts` on the location's blackboard: into
/// the running instance, and into every instance it starts while they last (`lasts` seconds;
/// `None`: for good).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotificationDef {
    /// The notification's name: the message machine-driven agents receive.
    pub name: NameId,
    /// Seconds into the scene of the first emission.
    pub at: f64,
    /// Seconds between emissions; 0 emits once.
    pub every: f64,
    /// Reach of the emission, metres.
    pub radius: f64,
    /// How long its facts stay on the blackboard, seconds; `None` keeps them.
    pub lasts: Option<f64>,
    /// Ground facts it puts on the blackboard.
    pub facts: Vec<Atom>,
}

/// A spawn emitter (35.2): places NPCs at a designer point — `size` at a time (a group of
/// several joins scripts together), at `at` seconds and then every `every` seconds (0: once; at
/// most one wave per step of the scene), `waves` times (0: no limit). Spawned NPCs take
/// `roles`, walk `route`, and leave the scene at its end (they stay where they are when it is
/// empty).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpawnDef {
    /// Spawned NPCs are named `name` when only one is ever spawned, else `name1`, `name2`, ...
    pub name: NameId,
    /// The designer point they appear at.
    pub point: LocationId,
    /// Roles they can take.
    pub roles: Vec<NameId>,
    /// Locations they walk through, in order.
    pub route: Vec<LocationId>,
    /// NPCs per wave.
    pub size: u32,
    /// Seconds into the scene of the first wave.
    pub at: f64,
    /// Seconds between waves; 0 spawns once.
    pub every: f64,
    /// Number of waves; 0 for no limit.
    pub waves: u32,
}

impl SpawnDef {
    /// Whether it ever spawns more than one NPC (then names are numbered).
    pub fn numbered(&self) -> bool {
        self.size > 1 || self.waves != 1
    }
}

/// A player emitter (35.2): shows the player an interaction icon within the location's radius;
/// when the player reacts, the player joins the location's script in `role` (starting one if
/// none runs), and what the player does is written to its blackboard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerEmitterDef {
    /// The role the player joins scripts in.
    pub role: NameId,
    /// The icon shown (`talk`, `shop`): the name of the message the player receives.
    pub icon: NameId,
}

/// Something a scene makes happen at a time. A game calls the same runtime API when the player
/// acts or a proxied system reports; `ensemble run` replays these.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneEventDef {
    /// The scene it happens in.
    pub scene: SceneId,
    /// Seconds into the scene.
    pub at: f64,
    /// What happens.
    pub what: SceneEvent,
}

/// What a scene event does.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SceneEvent {
    /// The player reacts to the icon of smart location `location` (an index into
    /// `Program::smart_locations`).
    Interact {
        /// Index into `Program::smart_locations`.
        location: u32,
    },
    /// Player input, written to the blackboard of the script the player takes part in.
    Input {
        /// The ground fact written.
        fact: Atom,
    },
    /// The player walks away from its script.
    Leave,
    /// Proxy `proxy` of smart location `location` reports a fact.
    Push {
        /// Index into `Program::smart_locations`.
        location: u32,
        /// Index into that location's proxies.
        proxy: u32,
        /// The ground fact reported.
        fact: Atom,
    },
    /// Notification `notification` of smart location `location` is emitted now (besides its
    /// own timing).
    Notify {
        /// Index into `Program::smart_locations`.
        location: u32,
        /// Index into that location's notifications.
        notification: u32,
    },
}

impl SceneEvent {
    /// The fact it writes, if any.
    pub fn fact(&self) -> Option<&Atom> {
        match self {
            SceneEvent::Input { fact } | SceneEvent::Push { fact, .. } => Some(fact),
            _ => None,
        }
    }
}
