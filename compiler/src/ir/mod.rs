//! The one intermediate representation every frontend lowers into and every later stage reads.
//!
//! Items live in typed arenas and refer to each other by [`Handle`]s, as in naga: a handle is an
//! index that can only be used with the arena of its type. References that failed to resolve are
//! `None` (the frontend has already reported them), so validation and lowering never guess.
//!
//! Invariants:
//! - every item carries the [`Span`] of the source it came from;
//! - the states of one machine are appended to `states` consecutively, in author order;
//! - names are resolved once, in the frontend; later stages compare handles, not strings.

mod arena;
pub mod hpmm;
pub mod nav;
pub mod plan;
pub mod script;
pub mod sentence;
pub mod strings;

pub use arena::{Arena, Handle};

use crate::source::Span;
use ensemble_runtime::program::{ModifierKind, ParamType, Terminal};

/// A name as written, with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

/// A library state machines can use: declared by a built-in library (no span) or by a project
/// `.statelib.ron` file.
#[derive(Clone, Debug)]
pub struct LibraryState {
    pub name: String,
    pub span: Option<Span>,
    pub modifier: ModifierKind,
    pub terminal: Terminal,
    /// Events its code raises; `None` when not declared (then any event is accepted).
    pub raises: Option<Vec<String>>,
    pub doc: String,
    /// Declared by the built-in standard library (`ensemble_runtime::stdlib`), not by a game's
    /// `*.statelib.ron`: only these are checked as the standard states of their names.
    pub standard: bool,
    /// Named, typed parameters, when declared with `params` (then `modifier` is `None`).
    pub params: Vec<LibraryParam>,
    /// How a simulated world stands in for a game state, as the statelib says (checked).
    pub stand_in: Option<StandIn>,
}

/// A game state's stand-in in the simulated world (docs/formats/statelib.md, "Stand-ins").
#[derive(Clone, Debug, PartialEq)]
pub struct StandIn {
    /// Seconds of scene time; `None`: the simulated world's default.
    pub seconds: Option<f64>,
    /// One of the state's declared events; `None`: the first it has a transition on.
    pub raises: Option<String>,
}

/// A parameter a library state declares (docs/formats/statelib.md).
#[derive(Clone, Debug)]
pub struct LibraryParam {
    pub name: String,
    pub ty: ParamType,
    /// The default as written; `None`: required.
    pub default_written: Option<ensemble_runtime::program::ParamLiteral>,
    /// The default resolved against the project (`None` when required or unresolvable).
    pub default: Option<Arg>,
    /// Where it is declared (`None` for a built-in library).
    pub span: Option<Span>,
    /// Where its default is written.
    pub default_span: Option<Span>,
}

/// One resolved parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    Text(String),
    Number(f64),
    Bool(bool),
    Location(Handle<Location>),
    Agent(String),
    Machine(Handle<Machine>),
    /// A sentence state, by name (checked once sentence files are lowered).
    Sentence(String),
    /// A listed word of a `OneOf` parameter.
    Choice(String),
}

/// A resolved parameter: one value or a list.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    One(ArgValue),
    List(Vec<ArgValue>),
}

impl Arg {
    pub fn values(&self) -> &[ArgValue] {
        match self {
            Arg::One(v) => std::slice::from_ref(v),
            Arg::List(vs) => vs,
        }
    }
}

/// A state's value for one declared parameter.
#[derive(Clone, Debug, Default)]
pub struct StateArg {
    /// `None`: not set (the default applies) or not resolvable (already reported).
    pub value: Option<Arg>,
    /// Where the value is written.
    pub span: Option<Span>,
}

#[derive(Clone, Debug)]
pub struct Machine {
    pub name: Name,
    /// The initial state; `None` when it is missing or did not resolve.
    pub initial: Option<Handle<State>>,
    /// The whole asset, for diagnostics about the machine as a whole.
    pub span: Span,
    pub states: Vec<Handle<State>>,
}

/// A resolved modifier.
#[derive(Clone, Debug, PartialEq)]
pub enum Modifier {
    None,
    Location(Handle<Location>),
    Machine(Handle<Machine>),
    Agent(String),
    Text(String),
    Number(f64),
    /// Written but not resolvable (already reported).
    Unresolved,
}

#[derive(Clone, Debug)]
pub struct Transition {
    pub event: Name,
    pub target_name: Name,
    pub target: Option<Handle<State>>,
}

#[derive(Clone, Debug)]
pub struct State {
    pub name: Name,
    pub machine: Handle<Machine>,
    /// The library state, written explicitly or derived from the name (`Goto1` -> `Goto`).
    pub code_name: Name,
    pub code: Option<Handle<LibraryState>>,
    pub modifier: Modifier,
    pub modifier_span: Option<Span>,
    /// One per parameter its library state declares with `params`, in declaration order
    /// (empty for a library state with a single modifier).
    pub params: Vec<StateArg>,
    pub transitions: Vec<Transition>,
}

#[derive(Clone, Debug)]
pub struct Location {
    pub name: Name,
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug)]
pub struct SceneAgent {
    pub name: Name,
    /// Empty text when the agent runs no machine (an ambient NPC driven by smart locations).
    pub machine_name: Name,
    pub machine: Option<Handle<Machine>>,
    pub at_name: Name,
    pub at: Option<Handle<Location>>,
    /// Roles it can take in interaction scripts.
    pub roles: Vec<String>,
    /// Locations it walks through when not taking part in a script.
    pub route: Vec<Handle<Location>>,
    /// Agents of one group join scripts together (a family).
    pub group: Option<String>,
    /// Seconds before it appears.
    pub delay: f64,
    /// Variables the agent starts with (`CityName = "Boston"`), for sentence-state slots.
    pub variables: Vec<(Name, String)>,
    /// The player (joins scripts through player emitters only).
    pub player: bool,
}

impl SceneAgent {
    /// Whether a state machine drives it (otherwise smart locations do).
    pub fn runs_machine(&self) -> bool {
        !self.machine_name.text.is_empty()
    }
}

#[derive(Clone, Debug)]
pub struct Scene {
    pub name: Name,
    pub tick_rate: u32,
    pub tick_rate_span: Span,
    pub agents: Vec<SceneAgent>,
    /// World events as written (resolved into `Module::world_events` by the planning stage).
    pub events: Vec<plan::EventSource>,
    /// Doors opening and closing during the scene (resolved against the navigation graph).
    pub doors: Vec<nav::SceneEvent>,
}

/// A `*.sentences.ron` file: the settings its sentence states share (docs/formats/sentence.md).
#[derive(Clone, Debug)]
pub struct SentenceFile {
    /// The whole asset.
    pub span: Span,
    /// The n-gram database or count file, resolved against the file's folder, and where it is
    /// named.
    pub ngrams: Option<(std::path::PathBuf, Span)>,
    pub scoring: sentence::Method,
    /// Candidates kept per sentence state.
    pub keep: u32,
    /// How many of the best the runtime chooses among, at most.
    pub choose_among: u32,
    /// Candidates scoring more than this below the best are not spoken (`score_margin`).
    pub score_margin: f64,
    /// Values used for slots while ranking (`CityName` -> "Boston").
    pub examples: Vec<(String, String)>,
    /// Warn when a sentence state's best candidate scores below this.
    pub min_score: Option<f64>,
}

/// A sentence state (Hewlett Fig. 3.2): verbs, nouns, modifiers; once the natural-language
/// stage has ranked them, its candidates.
#[derive(Clone, Debug)]
pub struct SentenceState {
    pub name: Name,
    pub file: Handle<SentenceFile>,
    pub span: Span,
    pub input: sentence::Input,
    /// The `VARIABLE` names in order of appearance, each with where it is written.
    pub variables: Vec<Name>,
    pub candidates: Vec<sentence::Candidate>,
    pub report: sentence::GenerationReport,
    /// Translators get one line (the best candidate's) instead of every candidate.
    pub translate_one: bool,
    /// Candidates the designer banned (never kept) and pinned (first, in this order), each by
    /// its line (`{Slot}` for slots) or its 8-hex-digit id, with where it is written.
    pub ban: Vec<Name>,
    pub pin: Vec<Name>,
    /// Candidates the designer judged acceptable (spoken after the pinned, in rank order).
    pub accept: Vec<Name>,
    /// The state's own `score_margin`, over its file's.
    pub score_margin: Option<f64>,
    /// How many of `candidates` (the first) the runtime chooses among: the score-gap rule's
    /// set (`nlg::rank::Speaking`), filled with the candidates.
    pub spoken: usize,
}

/// Everything one project defines.
#[derive(Clone, Debug, Default)]
pub struct Module {
    pub library: Arena<LibraryState>,
    pub machines: Arena<Machine>,
    pub states: Arena<State>,
    pub locations: Arena<Location>,
    pub scenes: Arena<Scene>,
    pub scripts: Arena<script::Script>,
    pub smart_locations: Arena<script::SmartLocation>,
    /// What scenes make happen at smart locations, in the order written per scene.
    pub scene_events: Vec<script::SceneEvent>,
    pub sentence_files: Arena<SentenceFile>,
    pub sentences: Arena<SentenceState>,
    pub spaces: Arena<hpmm::Space>,
    pub space_states: Arena<hpmm::SpaceState>,
    pub estimators: Arena<hpmm::Estimator>,
    pub categories: Arena<hpmm::Category>,
    pub concepts: Arena<hpmm::Concept>,
    pub variables: Arena<hpmm::Variable>,
    pub actions: Arena<hpmm::Action>,
    pub templates: Arena<hpmm::Template>,
    pub accumulators: Arena<hpmm::Accumulator>,
    pub chats: Arena<hpmm::Chat>,
    pub problems: Arena<plan::Problem>,
    pub world_events: Arena<plan::WorldEvent>,
    /// Problems written but not lowered (their errors are already reported): names that exist,
    /// though nothing can be said about what they contain.
    pub unlowered_problems: Vec<String>,
    /// The problem each standard `Plan` state plans for (its modifier names it), resolved by
    /// the planning frontend; a state whose problem is unknown or did not lower is absent.
    pub plan_problems: std::collections::BTreeMap<Handle<State>, Handle<plan::Problem>>,
    /// The navigation graph, when the project has one (`*.nav.ron`).
    pub nav: Option<nav::Navigation>,
    /// Declared locales and their translations (`*.strings.ron`).
    pub strings: strings::Strings,
    /// Names a patch changed (the manifest's `migrations`): old names are the shipped build's,
    /// so they are text, not handles; the new ones are checked to exist.
    pub migrations: Migrations,
}

/// The manifest's migrations, each `(old, new)` as written.
#[derive(Clone, Debug, Default)]
pub struct Migrations {
    /// Scene agents.
    pub agents: Vec<(Name, Name)>,
    /// Machine states, as `Machine/State`.
    pub states: Vec<(Name, Name)>,
}

impl Module {
    pub fn machine_by_name(&self, name: &str) -> Option<Handle<Machine>> {
        self.machines
            .iter()
            .find(|(_, m)| m.name.text == name)
            .map(|(h, _)| h)
    }

    pub fn library_by_name(&self, name: &str) -> Option<Handle<LibraryState>> {
        self.library
            .iter()
            .find(|(_, l)| l.name == name)
            .map(|(h, _)| h)
    }

    pub fn sentence_by_name(&self, name: &str) -> Option<Handle<SentenceState>> {
        self.sentences
            .iter()
            .find(|(_, s)| s.name.text == name)
            .map(|(h, _)| h)
    }

    pub fn location_by_name(&self, name: &str) -> Option<Handle<Location>> {
        self.locations
            .iter()
            .find(|(_, l)| l.name.text == name)
            .map(|(h, _)| h)
    }
}
