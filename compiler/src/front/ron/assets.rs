//! The shapes of the native assets, exactly as authored (docs/formats/). Unknown fields are
//! errors, so a typo in a field name is reported instead of silently ignored.

use serde::{Deserialize, Serialize};

/// `Ensemble.ron`, the project manifest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Project", deny_unknown_fields)]
pub struct Manifest {
    pub name: String,
    /// Built-in state libraries to link against (`sim`: the simulator's standard library).
    #[serde(default = "default_libraries")]
    pub libraries: Vec<String>,
    /// Files (relative to the project root, `/`-separated) that are not part of the project,
    /// such as a workbook whose imported `.script.ron` the project uses instead.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<String>,
}

fn default_libraries() -> Vec<String> {
    vec!["sim".to_string()]
}

/// `*.machine.ron`: one hierarchical state machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Machine", deny_unknown_fields)]
pub struct MachineAsset {
    pub name: String,
    /// The initial state; defaults to the state named `Start`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<String>,
    pub states: Vec<StateAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateAsset {
    pub name: String,
    /// The library state; defaults to the name without its numeric suffix (`Goto1` -> `Goto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// The optional modifier: a location, a child machine, an agent, a text or a number,
    /// depending on what the library state takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifier: Option<ModifierValue>,
    /// Transitions as `(event, target state)`, in author order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub on: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ModifierValue {
    Number(f64),
    Name(String),
}

/// `*.statelib.ron`: library states the game registers, declared for the compiler.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "StateLibrary", deny_unknown_fields)]
pub struct StateLibraryAsset {
    pub states: Vec<LibraryStateAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryStateAsset {
    pub name: String,
    #[serde(default)]
    pub modifier: ModifierKindAsset,
    #[serde(default)]
    pub terminal: TerminalAsset,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raises: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum ModifierKindAsset {
    #[default]
    None,
    Location,
    Machine,
    Agent,
    Text,
    Number,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum TerminalAsset {
    #[default]
    No,
    End,
    Failure,
}

/// `*.locations.ron`: named places of the world.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Locations", deny_unknown_fields)]
pub struct LocationsAsset {
    pub locations: Vec<LocationAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocationAsset {
    pub name: String,
    pub x: f64,
    pub y: f64,
}

/// `*.scene.ron`: a scene to run: agents, their root machines and where they start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Scene", deny_unknown_fields)]
pub struct SceneAsset {
    pub name: String,
    /// Ticks per second.
    #[serde(default = "default_tick_rate")]
    pub tick_rate: u32,
    pub agents: Vec<AgentAsset>,
    /// Doors of the navigation graph opening and closing during the scene.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SceneEventAsset>,
}

/// `(at: 12.0, close: "SecurityLaneA")` or `(at: 40.0, open: "SecurityLaneA")`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneEventAsset {
    /// Seconds into the scene.
    pub at: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub close: Option<String>,
}

fn default_tick_rate() -> u32 {
    30
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentAsset {
    pub name: String,
    /// The root machine. Agents without one are ambient NPCs, driven by smart locations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    /// The location the agent starts at.
    pub at: String,
    /// Roles it can take in interaction scripts (`elder`, `tourist`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    /// Locations it walks through when not in a script.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<String>,
    /// Agents sharing a group join scripts together (a family).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Seconds after the scene starts before it appears.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub delay: f64,
    /// Variables the agent starts with, for the `VARIABLE` slots of sentence states
    /// (`{"CityName": "Boston"}`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub variables: std::collections::BTreeMap<String, String>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// `*.smartloc.ron`: a smart location (Skubch 35.2).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "SmartLocation", deny_unknown_fields)]
pub struct SmartLocationAsset {
    pub name: String,
    /// The named location it stands at.
    pub at: String,
    /// How far it looks for NPCs, metres.
    #[serde(default = "default_radius")]
    pub radius: f64,
    /// Props it owns; each supplies `kind(name)` to its scripts.
    #[serde(default)]
    pub props: Vec<PropAsset>,
    /// Predicates a proxy object supplies (`"sale/2"`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub supplies: String,
    /// Scripts it can run.
    pub scripts: Vec<ScriptChoiceAsset>,
}

fn default_radius() -> f64 {
    5.0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PropAsset {
    pub name: String,
    pub kind: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptChoiceAsset {
    pub script: String,
    #[serde(default = "default_preference")]
    pub preference: f64,
}

fn default_preference() -> f64 {
    1.0
}

/// `*.sentences.ron`: sentence states (Hewlett Fig. 3.2) and how to rank their realisations.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Sentences", deny_unknown_fields)]
pub struct SentencesAsset {
    /// An n-gram database (`.ngr`) or a Web1T-style count file, relative to this file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ngrams: Option<String>,
    /// `Interpolated` (default: interpolated absolute discounting), `StupidBackoff`, or `Eq31`
    /// (Hewlett's Eq. 3.1 exactly, `-inf` for unseen n-grams).
    #[serde(default)]
    pub scoring: ScoringAsset,
    /// Candidates kept per sentence state (default 5).
    #[serde(default = "default_keep")]
    pub keep: u32,
    /// How many of the best candidates the runtime chooses among, by weight (default 2).
    #[serde(default = "default_choose_among")]
    pub choose_among: u32,
    /// Values that stand in for `VARIABLE` slots while ranking.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub examples: std::collections::BTreeMap<String, String>,
    /// Warn (`no-candidate`) when a sentence state's best candidate scores below this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_score: Option<f64>,
    pub states: Vec<SentenceStateAsset>,
}

fn default_keep() -> u32 {
    5
}

fn default_choose_among() -> u32 {
    2
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum ScoringAsset {
    #[default]
    Interpolated,
    StupidBackoff,
    Eq31,
}

/// One sentence state, its two lines written exactly as in Fig. 3.2:
/// `verbs: "be, PAST book"`, `nouns: "you, flight, VARIABLE CityName"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SentenceStateAsset {
    pub name: String,
    #[serde(default)]
    pub verbs: String,
    #[serde(default)]
    pub nouns: String,
}
