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
    /// Locales the project is translated into (`["fr", "de"]`): `check` reports each one's
    /// missing translations (docs/formats/strings.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub locales: Vec<String>,
    /// The language lines are written in (default `en`): the source column of string tables.
    #[serde(
        default = "default_language",
        skip_serializing_if = "is_default_language"
    )]
    pub language: String,
    /// The folder (relative to the project) that holds voice-over files, one subfolder per
    /// locale: `check` warns about lines whose audio file is missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio: Option<String>,
    /// Names a patch changed since a build that shipped, which savegames made on it are read
    /// through: the program carries them and a game's restore applies them
    /// (docs/formats/project.md, "Migrations").
    #[serde(default, skip_serializing_if = "MigrationsAsset::is_empty")]
    pub migrations: MigrationsAsset,
}

/// The manifest's `migrations`: each an `(old, new)` pair, old being the shipped build's name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MigrationsAsset {
    /// Agents of a scene: `("porter", "bellhop")`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub agents: Vec<(String, String)>,
    /// Machine states as `Machine/State`: `("Traveller/Queue", "Traveller/Waiting")`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub states: Vec<(String, String)>,
}

impl MigrationsAsset {
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty() && self.states.is_empty()
    }
}

fn default_language() -> String {
    "en".to_string()
}

fn is_default_language(l: &str) -> bool {
    l == "en"
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
    /// Named parameters of a library state declared with `params`, by name
    /// (`{"clip": "Wave", "loop": true}`), in the order written.
    #[serde(default, skip_serializing_if = "ParamValues::is_empty")]
    pub params: ParamValues,
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

/// A state's parameter values as written: a map kept in author order, duplicates included (so
/// a name given twice is reported rather than silently overwritten).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamValues(pub Vec<(String, ParamValueAsset)>);

impl ParamValues {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value written for `name` (the first, if written twice).
    pub fn get(&self, name: &str) -> Option<&ParamValueAsset> {
        self.0.iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// Sets `name` to `value`, or removes it (`None`), keeping the others in place.
    pub fn set(&mut self, name: &str, value: Option<ParamValueAsset>) {
        match (self.0.iter().position(|(k, _)| k == name), value) {
            (Some(i), Some(v)) => self.0[i].1 = v,
            (Some(i), None) => {
                self.0.remove(i);
            }
            (None, Some(v)) => self.0.push((name.to_string(), v)),
            (None, None) => {}
        }
    }
}

impl Serialize for ParamValues {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for ParamValues {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Entries;
        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = ParamValues;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of parameter names to values")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ParamValues, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry()? {
                    entries.push(entry);
                }
                Ok(ParamValues(entries))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// A parameter value or default as written: `true`, `0.2`, `"Wave"`, `["Gate", "Exit"]`.
/// Names (locations, machines, agents, sentence states, listed words) are written as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ParamValueAsset {
    Bool(bool),
    Number(f64),
    Text(String),
    List(Vec<ParamValueAsset>),
}

/// One parameter of a library state: `(name: "blend", type: Number, default: 0.2)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamDeclAsset {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ParamTypeAsset,
    /// Absent: every state must set the parameter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<ParamValueAsset>,
}

/// A parameter's type.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ParamTypeAsset {
    Text,
    Number,
    Bool,
    Location,
    Agent,
    Machine,
    Sentence,
    OneOf(Vec<String>),
    List(Box<ParamTypeAsset>),
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
    #[serde(default, skip_serializing_if = "ModifierKindAsset::is_none")]
    pub modifier: ModifierKindAsset,
    /// Named, typed parameters; declared instead of `modifier`, never with it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<ParamDeclAsset>,
    #[serde(default)]
    pub terminal: TerminalAsset,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raises: Option<Vec<String>>,
    /// How a simulated world (`ensemble run`, the editor's preview, content tests) stands in
    /// for the state while the game's code is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stand_in: Option<StandInAsset>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub doc: String,
}

/// `stand_in: (seconds: 2.0, raises: "Done")`: either may be left to the default (1 s; the
/// first declared event the state has a transition on).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StandInAsset {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raises: Option<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ModifierKindAsset {
    #[default]
    None,
    Location,
    Machine,
    Agent,
    Text,
    Number,
}

impl ModifierKindAsset {
    pub fn is_none(&self) -> bool {
        *self == ModifierKindAsset::None
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
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
    /// What happens during the scene: at smart locations, the player's actions and what proxied
    /// game systems report; on the navigation graph, doors opening and closing
    /// (docs/formats/scene.md).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SceneEventAsset>,
}

/// A scene event at `at` seconds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "SceneEvent", deny_unknown_fields)]
pub enum SceneEventAsset {
    /// The player reacts to the interaction icon of a smart location's player emitter.
    Interact { at: f64, location: String },
    /// Player input: a ground fact for the blackboard of the player's script (`.me`: the player).
    Input { at: f64, fact: String },
    /// The player walks away from its script.
    Leave { at: f64 },
    /// A proxy object reports a fact (`.me`: the proxy).
    Push {
        at: f64,
        proxy: String,
        fact: String,
    },
    /// A smart location emits one of its notifications now.
    Notify {
        at: f64,
        location: String,
        notification: String,
    },
    /// The world of a planning agent changes (docs/formats/scene.md, "World events";
    /// compiler/src/plan/): facts are `set`, or someone else `perform`s one of the problem's
    /// actions, at `at` seconds or later, once the `when` conditions hold.
    World {
        name: String,
        /// The planning problem whose facts change.
        problem: String,
        /// Whose world (default: the scene's only agent that plans on the problem).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(default, skip_serializing_if = "is_zero")]
        at: f64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        when: Vec<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        set: Vec<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        perform: Option<String>,
        /// The agent sees it happen (otherwise it finds out when its current action ends).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        seen: bool,
    },
    /// A door of the navigation graph opens (docs/formats/nav.md).
    Open { at: f64, door: String },
    /// A door of the navigation graph closes.
    Close { at: f64, door: String },
}

impl SceneEventAsset {
    pub fn at(&self) -> f64 {
        match self {
            SceneEventAsset::Interact { at, .. }
            | SceneEventAsset::Input { at, .. }
            | SceneEventAsset::Leave { at }
            | SceneEventAsset::Push { at, .. }
            | SceneEventAsset::Notify { at, .. }
            | SceneEventAsset::World { at, .. }
            | SceneEventAsset::Open { at, .. }
            | SceneEventAsset::Close { at, .. } => *at,
        }
    }
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
    /// The player: joins scripts only through player emitters; the scene's events say what it
    /// does.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub player: bool,
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
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub props: Vec<PropAsset>,
    /// Predicates a proxy object supplies (`"sale/2"`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub supplies: String,
    /// Scripts it can run (its script emitter).
    pub scripts: Vec<ScriptChoiceAsset>,
    /// Game systems that take part in its scripts as if they were NPCs (35.6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proxies: Vec<ProxyAsset>,
    /// Notification emitters: events at the location that nearby agents react to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notifications: Vec<NotificationAsset>,
    /// Spawn emitters: NPCs placed at designer points.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spawns: Vec<SpawnAsset>,
    /// The player emitter: an interaction icon that lets the player join the script.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerEmitterAsset>,
}

fn default_radius() -> f64 {
    5.0
}

/// `Proxy(name: "till", role: "till", actions: ["ring_up"], supplies: "sale/2")`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Proxy", deny_unknown_fields)]
pub struct ProxyAsset {
    pub name: String,
    pub role: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    /// What it pushes into the blackboard, `predicate/arity` comma-separated.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub supplies: String,
}

/// `Notification(name: "Show", at: 20.0, every: 60.0, radius: 25.0, facts: "show(juggler)")`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Notification", deny_unknown_fields)]
pub struct NotificationAsset {
    pub name: String,
    #[serde(default)]
    pub at: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub every: f64,
    /// Default: the location's radius.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lasts: Option<f64>,
    /// Ground facts put on the blackboard, cell syntax.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub facts: String,
}

/// `Spawn(name: "passerby", point: "WestGate", roles: ["customer"], route: ["EastGate"], every: 20.0)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Spawn", deny_unknown_fields)]
pub struct SpawnAsset {
    pub name: String,
    pub point: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub route: Vec<String>,
    #[serde(default = "default_size", skip_serializing_if = "is_default_size")]
    pub size: u32,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub at: f64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub every: f64,
    /// How many waves: default 1, or no limit when `every` is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waves: Option<u32>,
}

fn is_default_size(n: &u32) -> bool {
    *n == default_size()
}

fn default_size() -> u32 {
    1
}

/// `Player(role: "buyer", icon: "shop", supplies: "asks/2")`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Player", deny_unknown_fields)]
pub struct PlayerEmitterAsset {
    pub role: String,
    #[serde(default = "default_icon")]
    pub icon: String,
    /// What player input writes into the blackboard, `predicate/arity` comma-separated.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub supplies: String,
}

fn default_icon() -> String {
    "interact".to_string()
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
    #[serde(
        default = "default_preference",
        skip_serializing_if = "is_default_preference"
    )]
    pub preference: f64,
}

fn default_preference() -> f64 {
    1.0
}

fn is_default_preference(x: &f64) -> bool {
    *x == default_preference()
}

/// Whether a field holds its default, so the canonical printer leaves it out.
fn is_default<T: Default + PartialEq>(x: &T) -> bool {
    *x == T::default()
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
    #[serde(default, skip_serializing_if = "is_default")]
    pub scoring: ScoringAsset,
    /// Candidates kept per sentence state (default 5).
    #[serde(default = "default_keep")]
    pub keep: u32,
    /// How many of the best candidates the runtime chooses among, by weight (default 2): an
    /// upper bound, see `score_margin`.
    #[serde(default = "default_choose_among")]
    pub choose_among: u32,
    /// Only candidates scoring within this of the best are spoken (log2 per token; default
    /// `DEFAULT_SCORE_MARGIN`), so a weak second line is not said just because it is second.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_margin: Option<f64>,
    /// Values that stand in for `VARIABLE` slots while ranking.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub examples: std::collections::BTreeMap<String, String>,
    /// Warn (`no-candidate`) when a sentence state's best candidate scores below this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_score: Option<f64>,
    /// What slots stand for (`{"CityName": Destination}`), for every state of the file.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub slots: std::collections::BTreeMap<String, crate::ir::sentence::SlotKind>,
    pub states: Vec<SentenceStateAsset>,
}

fn default_keep() -> u32 {
    5
}

fn default_choose_among() -> u32 {
    2
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ScoringAsset {
    #[default]
    Interpolated,
    StupidBackoff,
    Eq31,
    /// Interpolated modified Kneser-Ney.
    KneserNey,
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
    /// What translators get: every kept candidate (`Each`, the default) or one line the
    /// runtime speaks whichever candidate it chooses (`One`).
    #[serde(default, skip_serializing_if = "is_default")]
    pub translate: TranslateAsset,
    /// What this state's slots stand for, over the file's `slots`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub slots: std::collections::BTreeMap<String, crate::ir::sentence::SlotKind>,
    /// Candidates never to say, by line (`"I would like ... in {CityName}."`) or id (`"33d0a116"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ban: Vec<String>,
    /// Candidates to put first, in this order, by line or id: always among those spoken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pin: Vec<String>,
    /// Candidates the designer judged acceptable, by line or id: spoken (after the pinned, in
    /// rank order) instead of unjudged ones.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accept: Vec<String>,
    /// This state's `score_margin`, over the file's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_margin: Option<f64>,
}

/// `*.strings.ron`: one locale's translations (docs/formats/strings.md), written by
/// `ensemble strings import` and diff-friendly: one line per translation, in export order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Strings", deny_unknown_fields)]
pub struct StringsAsset {
    /// The locale (`fr`, `pt-BR`), as `Ensemble.ron` declares it.
    pub locale: String,
    pub lines: Vec<TranslationAsset>,
}

/// One translated line: the line's id, the source text it was translated from (a later change
/// of the source makes it stale) and the translation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TranslationAsset {
    pub id: String,
    pub source: String,
    pub text: String,
}

/// How a sentence state's candidates are translated (docs/formats/strings.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum TranslateAsset {
    /// Every kept candidate is a line of its own.
    #[default]
    Each,
    /// One line: the best candidate's text, translated once.
    One,
}
