//! The compiled program: what the compiler emits and the runtime executes.
//!
//! A program is a flat set of tables indexed by 32-bit ids. Names are interned once in
//! [`Program::names`]; every other table refers to them by [`NameId`]. States of one machine are
//! contiguous, and transitions of one state are contiguous, so the interpreter scans only the
//! current state's slice.
//!
//! Invariant, by type: a [`Program`] has passed the verifier, so every id in it is in range and
//! every cross-reference is consistent, and interpreters index tables without further checks.
//! Its tables are [`ProgramParts`] (public fields, what the compiler's back end assembles and
//! the file holds); only [`ProgramParts::verify`] (which [`Program::from_bytes`],
//! [`Program::load`] and [`Program::new`] call) turns parts into a `Program`, which reads them
//! through `Deref` and cannot change them.
//!
//! The names stay in the program (not only in the `.ensdbg`) because the runtime links by name:
//! library states are registered by the game under their names, messages arrive by name, and a
//! hot reload carries live state across by name. Source locations live in [`debug::DebugInfo`].

pub(crate) mod container;
pub mod debug;
mod game_states;
pub mod hpmm;
mod location;
mod migrations;
pub mod nav;
mod params;
pub mod planning;
pub mod script;
pub mod speech;
pub mod strings;
pub(crate) mod verify;

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::Arc;

pub use container::{FORMAT_VERSION, Kind, LoadError};
pub use game_states::{DeclaredIn, GameStateDef, GameStates, StandInDef};
pub use location::{
    NotificationDef, PlayerEmitterDef, ProxyDef, SceneEvent, SceneEventDef, SpawnDef,
};
pub use migrations::Migrations;
pub use params::{
    Param, ParamDecl, ParamKind, ParamLiteral, ParamSection, ParamSpec, ParamType, ParamValue,
};

/// The fewest ticks a second a scene or a conversation runs at.
pub const MIN_TICK_RATE: u32 = 1;
/// The most ticks a second a scene or a conversation runs at (the compiler's `tick_rate`
/// range; a program or snapshot outside it is refused).
pub const MAX_TICK_RATE: u32 = 10_000;
/// The deepest an agent's stack of machines may grow (`crate::hsm` re-exports it). Static
/// hosting is acyclic (verified on load); machines that state code starts at run time could
/// recurse, so this stops them.
pub const MAX_DEPTH: usize = 32;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub u32);

        impl $name {
            /// The id as a table index.
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// An interned name: index into [`Program::names`].
    NameId
);
id_type!(
    /// A machine: index into [`Program::machines`].
    MachineId
);
id_type!(
    /// A state, program-wide: index into [`Program::states`].
    StateId
);
id_type!(
    /// A library state the program needs: index into [`Program::library`].
    LibraryId
);
id_type!(
    /// A named location of the world: index into [`Program::locations`].
    LocationId
);
id_type!(
    /// A scene: index into [`Program::scenes`].
    SceneId
);

/// What a library state takes as its modifier (the thesis's "Optional Modifier").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ModifierKind {
    /// No modifier allowed.
    None,
    /// A named location (`Goto1, TicketCounterLocation`).
    Location,
    /// A child machine the state hosts (`TalkStateMachine, SellTicket`).
    Machine,
    /// Another agent of the scene, by name.
    Agent,
    /// Free text (a canned line, a label).
    Text,
    /// A number (a duration in seconds, a count).
    Number,
}

impl ModifierKind {
    /// The kind's name in `*.statelib.ron` and diagnostics (`none`, `location`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            ModifierKind::None => "none",
            ModifierKind::Location => "location",
            ModifierKind::Machine => "machine",
            ModifierKind::Agent => "agent",
            ModifierKind::Text => "text",
            ModifierKind::Number => "number",
        }
    }
}

/// Whether entering a state ends its machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Terminal {
    /// An ordinary state.
    No,
    /// The machine ends successfully (`Finish`); the host receives `EndStateMachine`.
    End,
    /// The machine fails; the host receives `StateMachineFailed` and may handle it or pass it up.
    Failure,
}

/// A resolved modifier of one state instance.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Modifier {
    /// No modifier.
    None,
    /// A location of [`Program::locations`].
    Location(LocationId),
    /// A machine the state hosts as its child.
    Machine(MachineId),
    /// Another agent of the scene, by name.
    Agent(NameId),
    /// Text, interned.
    Text(NameId),
    /// A number, in the state's own unit (seconds for a duration).
    Number(f64),
}

impl Modifier {
    /// Which kind of modifier this is.
    pub fn kind(&self) -> ModifierKind {
        match self {
            Modifier::None => ModifierKind::None,
            Modifier::Location(_) => ModifierKind::Location,
            Modifier::Machine(_) => ModifierKind::Machine,
            Modifier::Agent(_) => ModifierKind::Agent,
            Modifier::Text(_) => ModifierKind::Text,
            Modifier::Number(_) => ModifierKind::Number,
        }
    }
}

/// A library state the program relies on; the game must register code under this name with
/// the same modifier kind.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LibraryState {
    /// The name the game registers its code under.
    pub name: NameId,
    /// The kind of modifier every state using it carries.
    pub modifier: ModifierKind,
    /// Whether entering it ends its machine.
    pub terminal: Terminal,
}

/// A state machine: a contiguous run of [`Program::states`] with an initial state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MachineDef {
    /// The machine's name, as scenes and hosting states name it.
    pub name: NameId,
    /// The state it enters first; one of its own states.
    pub initial: StateId,
    /// States `first_state .. first_state + state_count` belong to this machine.
    pub first_state: u32,
    /// Number of states (at least one).
    pub state_count: u32,
}

/// A state of a machine: the library code that runs while it is active, with its modifier,
/// and its outgoing transitions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateDef {
    /// The state's name, unique within its machine (the compiler's `duplicate-name` check).
    pub name: NameId,
    /// The machine it belongs to.
    pub machine: MachineId,
    /// The library state whose code runs in it.
    pub code: LibraryId,
    /// Its modifier, of the kind its library state takes.
    pub modifier: Modifier,
    /// Transitions `first_transition .. first_transition + transition_count`, in author order.
    pub first_transition: u32,
    /// Number of transitions.
    pub transition_count: u32,
}

/// A named transition: when `event` is raised in the state (by its code, by a message, or by
/// a child machine ending), the machine moves to `target`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransitionDef {
    /// The event's name (raised by state code, a message, or a child machine ending).
    pub event: NameId,
    /// The state it moves to, in the same machine.
    pub target: StateId,
}

/// A named point of the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LocationDef {
    /// The location's name.
    pub name: NameId,
    /// x coordinate, metres (the plane of `*.locations.ron`).
    pub x: f64,
    /// y coordinate, metres.
    pub y: f64,
}

/// A machine-driven agent of a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentDef {
    /// The agent's name, unique in its scene (the compiler's `duplicate-name` check).
    pub name: NameId,
    /// The machine it runs.
    pub machine: MachineId,
    /// Where it starts.
    pub start: LocationId,
}

/// A scene: who takes part and how fast time runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SceneDef {
    /// The scene's name (`ensemble run --scene NAME`).
    pub name: NameId,
    /// Simulation ticks per second; each tick advances time by `1 / tick_rate`.
    pub tick_rate: u32,
    /// Machine-driven agents; an agent's id is its index.
    pub agents: Vec<AgentDef>,
    /// Agents driven by smart locations rather than a machine. Their agent ids follow the
    /// machine-driven agents' (`agents.len() + i`).
    pub ambient: Vec<AmbientAgentDef>,
}

/// An ambient NPC: walks its route and takes part in interaction scripts on the way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AmbientAgentDef {
    /// The NPC's name.
    pub name: NameId,
    /// Where it appears.
    pub start: LocationId,
    /// Roles it can take.
    pub roles: Vec<NameId>,
    /// Locations it walks through, in order.
    pub route: Vec<LocationId>,
    /// Its group: members join scripts together or not at all.
    pub group: Option<NameId>,
    /// Seconds before it appears.
    pub delay: f64,
    /// The player: never recruited by script emitters; it joins scripts through player
    /// emitters, and the scene's events say what it does.
    pub player: bool,
}

/// A smart location (Skubch 35.2): it owns props and runs one script instance at a time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SmartLocationDef {
    /// The location's name.
    pub name: NameId,
    /// Where it stands.
    pub at: LocationId,
    /// How far around it, in metres, agents are within reach of its emitters.
    pub radius: f64,
    /// Props `(name, kind)`; each supplies `kind(name)` to the scripts it runs.
    pub props: Vec<(NameId, NameId)>,
    /// Scripts it can run (indices into `Program::scripts`) with their preference.
    pub scripts: Vec<(u32, f64)>,
    /// Proxy objects taking part in its scripts (35.6).
    pub proxies: Vec<ProxyDef>,
    /// Notification emitters.
    pub notifications: Vec<NotificationDef>,
    /// Spawn emitters.
    pub spawns: Vec<SpawnDef>,
    /// Its player emitter, if players can join its scripts.
    pub player: Option<PlayerEmitterDef>,
}

/// A program's tables, not (yet) verified: what the compiler's back end assembles and an `.ensb`
/// file holds. [`ProgramParts::verify`] makes a [`Program`] of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ProgramParts {
    /// Every interned name; a [`NameId`] indexes this.
    pub names: Vec<String>,
    /// Library states the program needs the game to register.
    pub library: Vec<LibraryState>,
    /// State machines.
    pub machines: Vec<MachineDef>,
    /// States of every machine, each machine's run contiguous.
    pub states: Vec<StateDef>,
    /// Transitions of every state, each state's run contiguous and in author order.
    pub transitions: Vec<TransitionDef>,
    /// Named locations of the world.
    pub locations: Vec<LocationDef>,
    /// Scenes.
    pub scenes: Vec<SceneDef>,
    /// Interaction scripts (`crate::script`; their compiled form is [`script`]).
    pub scripts: Vec<script::ScriptDef>,
    /// Smart locations (Skubch 35.2).
    pub smart_locations: Vec<SmartLocationDef>,
    /// What scenes make happen at smart locations (player input, proxy reports), by time.
    pub scene_events: Vec<SceneEventDef>,
    /// Sentence states with their ranked candidates, and the variables scenes bind
    /// (docs/formats/sentence.md).
    pub speech: speech::SpeechTable,
    /// HMM spaces and everything around them (Zubek's social agents); empty when none.
    pub hpmm: hpmm::Model,
    /// Planning problems and scripted world events (`crate::plan::section`); empty when none.
    pub planning: planning::Planning,
    /// The navigation graph with its PPA* data, doors and door events; empty when the project
    /// has no navigation graph.
    pub nav: nav::NavSection,
    /// Typed, named parameters of library states declared with `params` (since version 6);
    /// empty when no library state is.
    pub params: ParamSection,
    /// Every line's stable id and the project's translations (since version 7); empty for a
    /// program built without them (`crate::locale`).
    pub strings: strings::StringTable,
    /// The game's own library states: the events they raise and the designer's stand-ins
    /// (since version 9); empty when the program uses none.
    pub game_states: GameStates,
    /// The project it was built from (its manifest's `name`; since version 10): a running
    /// scene takes a hot reload only from its own project. Empty for a program put together
    /// without one (tests, a single file checked on its own).
    pub project: String,
    /// Names the project's patches changed, which a restore reads older savegames through
    /// (since version 11, read from version 10 as none).
    pub migrations: Migrations,
    /// The file each game state is declared in, for the messages that name it (since version
    /// 12, read from an earlier version as none).
    pub declared_in: DeclaredIn,
    /// The values scenes bind to the variables sentence slots read, each a line translators
    /// translate (since version 12, read from an earlier version as none).
    pub slot_values: Vec<strings::SlotValueDef>,
    /// The conversations' tallies: running accounts actions add to and templates read (since
    /// version 13, read from an earlier version as none).
    pub tallies: hpmm::Tallies,
}

/// A compiled, verified program: its [`ProgramParts`] (read through `Deref`) and the indexes
/// built from them. See the module documentation for its invariants.
///
/// Only the verifier makes one: there is no `Default`, no public field and no `DerefMut`.
///
/// ```compile_fail
/// let unverified = ensemble_runtime::Program::default();
/// ```
///
/// ```compile_fail
/// use ensemble_runtime::Program;
/// let mut p = Program::new(vec![], vec![], vec![], vec![], vec![], vec![], vec![]).unwrap();
/// p.names.push("changed after verifying".to_string());
/// ```
///
/// ```
/// use ensemble_runtime::{Program, ProgramParts};
/// let p = Program::new(vec![], vec![], vec![], vec![], vec![], vec![], vec![]).unwrap();
/// let mut parts = p.into_parts();
/// parts.names.push("changed, then verified again".to_string());
/// let p: Program = parts.verify().unwrap();
/// assert_eq!(p.names.len(), 1);
/// ```
#[derive(Clone, Debug)]
pub struct Program {
    parts: ProgramParts,
    /// name -> id.
    name_index: HashMap<String, NameId>,
    /// Names shared with trace events, which outlive reloads.
    shared_names: Vec<Arc<str>>,
    /// Which verified program this is, unique in the process (a clone keeps it: same tables):
    /// ids resolved against one program ([`crate::hsm::EventName`]) know whether they still
    /// hold.
    serial: u64,
}

impl std::ops::Deref for Program {
    type Target = ProgramParts;

    fn deref(&self) -> &ProgramParts {
        &self.parts
    }
}

impl PartialEq for Program {
    fn eq(&self, other: &Program) -> bool {
        // The indexes are derived from the parts.
        self.parts == other.parts
    }
}

impl ProgramParts {
    /// Verifies the tables (every id in range, every cross-reference consistent, the navigation
    /// section prepared) and makes them a [`Program`]: the only way to get one.
    pub fn verify(self) -> Result<Program, LoadError> {
        self.verify_then(|_| Ok(()))
    }

    /// [`ProgramParts::verify`] with a further check once the navigation section is prepared.
    fn verify_then(
        mut self,
        check: impl FnOnce(&ProgramParts) -> Result<(), LoadError>,
    ) -> Result<Program, LoadError> {
        self.nav.prepare().map_err(LoadError::Invalid)?;
        check(&self)?;
        verify::verify(&self).map_err(LoadError::Invalid)?;
        let shared_names = self.names.iter().map(|n| Arc::from(n.as_str())).collect();
        let name_index = self
            .names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), NameId(i as u32)))
            .collect();
        static SERIAL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Ok(Program {
            parts: self,
            name_index,
            shared_names,
            serial: SERIAL.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        })
    }

    /// The text of an interned name.
    pub fn name(&self, id: NameId) -> &str {
        &self.names[id.index()]
    }

    /// Machine `id`.
    pub fn machine(&self, id: MachineId) -> &MachineDef {
        &self.machines[id.index()]
    }

    /// State `id`.
    pub fn state(&self, id: StateId) -> &StateDef {
        &self.states[id.index()]
    }

    /// The transitions of state `id`, in author order (the first whose event matches is taken).
    pub fn transitions_of(&self, id: StateId) -> &[TransitionDef] {
        let s = self.state(id);
        let start = s.first_transition as usize;
        &self.transitions[start..start + s.transition_count as usize]
    }

    /// The states of machine `id`, in author order.
    pub fn states_of(&self, id: MachineId) -> impl Iterator<Item = StateId> + '_ {
        let m = self.machine(id);
        (m.first_state..m.first_state + m.state_count).map(StateId)
    }
}

impl Program {
    /// Which verified program this is, unique in the process (a clone shares it).
    pub fn serial(&self) -> u64 {
        self.serial
    }

    /// A program of these tables and no others, verified (a game or test that builds a small
    /// program by hand; the compiler's back end fills every section of [`ProgramParts`]).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        names: Vec<String>,
        library: Vec<LibraryState>,
        machines: Vec<MachineDef>,
        states: Vec<StateDef>,
        transitions: Vec<TransitionDef>,
        locations: Vec<LocationDef>,
        scenes: Vec<SceneDef>,
    ) -> Result<Self, LoadError> {
        ProgramParts {
            names,
            library,
            machines,
            states,
            transitions,
            locations,
            scenes,
            ..ProgramParts::default()
        }
        .verify()
    }

    /// The tables, to change and verify again (a tool that edits a built program).
    pub fn into_parts(self) -> ProgramParts {
        self.parts
    }

    /// The value state `state` gives its library state's `index`-th declared parameter (or
    /// the declared default), as [`Program::param`] finds it by name.
    pub fn param_at(&self, state: StateId, index: usize) -> Option<std::borrow::Cow<'_, Param>> {
        let decls = self.params.decls(self.state(state).code)?;
        let set = self
            .params
            .values(state)
            .and_then(|v| v.get(index)?.as_ref());
        set.or(decls.get(index)?.default.as_ref())
            .map(std::borrow::Cow::Borrowed)
    }

    /// The parameters `state` takes, each with its declaration and its value (the state's, else
    /// the default): the declared `params` of its library state, or, for a library state with a
    /// single modifier, that modifier as one parameter named after its kind (`location`, ...).
    pub fn param(&self, state: StateId, name: &str) -> Option<std::borrow::Cow<'_, Param>> {
        use std::borrow::Cow;
        let def = self.state(state);
        match self.params.decls(def.code) {
            Some(decls) => {
                let n = self.name_id(name)?;
                let i = decls.iter().position(|d| d.name == n)?;
                let set = self.params.values(state).and_then(|v| v.get(i)?.as_ref());
                set.or(decls[i].default.as_ref()).map(Cow::Borrowed)
            }
            None => {
                let kind = self.library[def.code.index()].modifier;
                if kind == ModifierKind::None || kind.as_str() != name {
                    return None;
                }
                let value = match def.modifier {
                    Modifier::Location(l) => ParamValue::Location(l),
                    Modifier::Machine(m) => ParamValue::Machine(m),
                    Modifier::Agent(a) => ParamValue::Agent(a),
                    Modifier::Text(t) => ParamValue::Text(t),
                    Modifier::Number(x) => ParamValue::Number(x),
                    Modifier::None => return None,
                };
                Some(Cow::Owned(Param::One(value)))
            }
        }
    }

    /// The value of a state's only parameter, when its library state declares exactly one with
    /// `params` (so `StateCx::text` and friends work for it as for a single modifier).
    pub(crate) fn sole_param(&self, state: StateId) -> Option<ParamValue> {
        let decls = self.params.decls(self.state(state).code)?;
        let [decl] = decls else { return None };
        let set = self.params.values(state).and_then(|v| v.first()?.as_ref());
        set.or(decl.default.as_ref())?.one()
    }

    /// The name as a shared string (cheap to clone into trace events).
    pub fn shared_name(&self, id: NameId) -> Arc<str> {
        self.shared_names[id.index()].clone()
    }

    /// The id of an interned name, if the program uses it at all.
    pub fn name_id(&self, name: &str) -> Option<NameId> {
        self.name_index.get(name).copied()
    }

    /// The machine called `name`.
    pub fn machine_by_name(&self, name: &str) -> Option<MachineId> {
        let n = self.name_id(name)?;
        self.machines
            .iter()
            .position(|m| m.name == n)
            .map(|i| MachineId(i as u32))
    }

    /// A state of `machine` by name.
    pub fn state_by_name(&self, machine: MachineId, name: &str) -> Option<StateId> {
        let n = self.name_id(name)?;
        self.states_of(machine).find(|s| self.state(*s).name == n)
    }

    /// The scene called `name`.
    pub fn scene_by_name(&self, name: &str) -> Option<SceneId> {
        let n = self.name_id(name)?;
        self.scenes
            .iter()
            .position(|s| s.name == n)
            .map(|i| SceneId(i as u32))
    }

    /// Every scene's name, in program order.
    pub fn scene_names(&self) -> impl Iterator<Item = &str> + '_ {
        self.scenes.iter().map(|s| self.name(s.name))
    }

    /// Serialises into the `.ensb` container: header, checksum, payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload =
            postcard::to_allocvec(&self.parts).expect("serialising into memory cannot fail");
        container::wrap(Kind::Program, &payload)
    }

    /// Parses and verifies an `.ensb` file's bytes. Never panics on any input: bytes that are
    /// not a program, a program of another format version, a truncated or corrupt file and a
    /// program whose tables do not fit together each give their own [`LoadError`].
    ///
    /// ```
    /// use ensemble_runtime::{LoadError, Program};
    ///
    /// // An empty program with one interned name (the compiler builds real ones).
    /// let names = vec!["guard".to_string()];
    /// let program = Program::new(names, vec![], vec![], vec![], vec![], vec![], vec![])?;
    /// let bytes = program.to_bytes();
    ///
    /// let loaded = Program::from_bytes(&bytes)?;
    /// assert_eq!(loaded.name_id("guard").map(|n| loaded.name(n)), Some("guard"));
    ///
    /// // Bad bytes are refused with a reason, never a panic.
    /// assert_eq!(Program::from_bytes(b""), Err(LoadError::Empty));
    /// let json = Program::from_bytes(b"{\"machines\": []}");
    /// assert!(matches!(json, Err(LoadError::BadMagic { .. })));
    /// let cut = &bytes[..bytes.len() - 1];
    /// assert!(matches!(Program::from_bytes(cut), Err(LoadError::Truncated { .. })));
    /// let mut flipped = bytes.clone();
    /// *flipped.last_mut().unwrap() ^= 0x01;
    /// let err = Program::from_bytes(&flipped).unwrap_err();
    /// assert!(matches!(err, LoadError::ChecksumMismatch { .. }));
    /// assert!(err.to_string().contains("the file is corrupt"));
    /// # Ok::<(), LoadError>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let (version, payload) = container::unwrap_versioned(Kind::Program, bytes)?;
        let parts: ProgramParts = if version < FORMAT_VERSION {
            // An earlier version is this one without its last fields: read it with them empty,
            // every byte of it (a later payload whose version was flipped has some left).
            let mut whole = payload.to_vec();
            let empty = |e: postcard::Result<Vec<u8>>| e.expect("in memory");
            if version < 11 {
                whole.extend(empty(postcard::to_allocvec(&Migrations::default())));
            }
            if version < 12 {
                whole.extend(empty(postcard::to_allocvec(&DeclaredIn::default())));
                whole.extend(empty(postcard::to_allocvec(
                    &Vec::<strings::SlotValueDef>::new(),
                )));
            }
            if version < 13 {
                whole.extend(empty(postcard::to_allocvec(&hpmm::Tallies::default())));
            }
            match postcard::take_from_bytes::<ProgramParts>(&whole) {
                Ok((parts, [])) => Ok(parts),
                Ok((_, rest)) => Err(LoadError::Decode(format!(
                    "{} bytes after a version-{version} program",
                    rest.len()
                ))),
                Err(e) => Err(LoadError::Decode(e.to_string())),
            }?
        } else {
            postcard::from_bytes(payload).map_err(|e| LoadError::Decode(e.to_string()))?
        };
        // Tables read from a file are checked against the graph too (see NavData::from_bytes).
        parts.verify_then(|parts| match &parts.nav.data {
            Some(data) => data
                .verify_distances()
                .map_err(|e| LoadError::Invalid(format!("navigation data: {e}"))),
            None => Ok(()),
        })
    }

    /// Reads and verifies an `.ensb` file; an unreadable file is [`LoadError::Io`], anything
    /// else is refused as by [`Program::from_bytes`].
    ///
    /// ```
    /// use ensemble_runtime::{LoadError, Program};
    ///
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("game.ensb");
    /// let names = vec!["guard".to_string()];
    /// let program = Program::new(names, vec![], vec![], vec![], vec![], vec![], vec![])?;
    /// let size = program.save(&path).unwrap();
    /// assert_eq!(size, std::fs::metadata(&path).unwrap().len());
    /// assert_eq!(Program::load(&path)?, program);
    ///
    /// let missing = Program::load(&dir.path().join("missing.ensb"));
    /// assert!(matches!(missing, Err(LoadError::Io(_))));
    /// # Ok::<(), LoadError>(())
    /// ```
    pub fn load(path: &std::path::Path) -> Result<Self, LoadError> {
        // The path in the message: a game loading several programs says which one is missing.
        let bytes =
            std::fs::read(path).map_err(|e| LoadError::Io(format!("{}: {e}", path.display())))?;
        Self::from_bytes(&bytes)
    }

    /// Writes the `.ensb` atomically, streaming the payload (a program with large navigation
    /// data is never held in memory twice). Returns the file's size.
    pub fn save(&self, path: &std::path::Path) -> std::io::Result<u64> {
        crate::fs::write_atomic_framed(
            path,
            container::HEADER_LEN,
            |len, crc| container::header(Kind::Program, len, crc),
            |w| {
                postcard::to_io(&self.parts, w)
                    .map(|_| ())
                    .map_err(std::io::Error::other)
            },
        )?;
        Ok(std::fs::metadata(path)?.len())
    }

    /// The checksum that ties a `.ensdbg` to this program (computed as the payload streams
    /// past, without the bytes in memory).
    pub fn checksum(&self) -> u32 {
        let mut sink = crate::fs::Checksummed::new(std::io::sink());
        postcard::to_io(&self.parts, &mut sink).expect("serialising into a sink cannot fail");
        sink.crc.finalize()
    }
}

#[cfg(test)]
pub(crate) mod tests;
