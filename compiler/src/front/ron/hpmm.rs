//! The shapes of the HMM-space assets, exactly as authored (docs/formats/space.md, evidence.md,
//! concepts.md, actions.md, chat.md). Unknown fields are errors, as for every native asset.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `*.space.ron`: one HMM (Zubek's "space").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Space", deny_unknown_fields)]
pub struct SpaceAsset {
    pub name: String,
    /// The initial state s0 (required: a space has exactly one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<String>,
    /// The disable state s_D of a model dependency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable: Option<String>,
    /// Model dependency: the space is engaged as much as f(Σ b_{t-1}(controllers)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled_by: Option<InspectAsset>,
    pub states: Vec<SpaceStateAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpaceStateAsset {
    pub name: String,
    /// Expectations g(y, s): evidence names, optionally weighted (`("greeting", 0.5)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expects: Vec<ExpectAsset>,
    /// The state's action, at most one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// Transitions p(s' | s) as `(target, probability)`; none means "stays here" (p = 1).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to: Vec<(String, f64)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ExpectAsset {
    Evidence(String),
    Weighted(String, f64),
}

/// An inspection: `of` names states (`space.state`) or whole spaces (`space`: its activation,
/// the belief outside its disable state); their beliefs are summed and shaped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InspectAsset {
    pub of: Vec<String>,
    #[serde(default = "identity", skip_serializing_if = "is_identity")]
    pub shape: ShapeAsset,
}

fn identity() -> ShapeAsset {
    ShapeAsset::Identity
}

fn is_identity(s: &ShapeAsset) -> bool {
    *s == ShapeAsset::Identity
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ShapeAsset {
    Identity,
    Threshold(f64),
    Ramp(f64, f64),
    Scale(f64),
}

/// `*.lexicon.ron`: word categories for the preprocessor.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Lexicon", deny_unknown_fields)]
pub struct LexiconAsset {
    pub categories: Vec<CategoryAsset>,
}

/// A category: `words` ∪ every `union` category, ∩ every `intersect` category, minus every
/// `minus` category.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CategoryAsset {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub union: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intersect: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub minus: Vec<String>,
}

/// `*.evidence.ron`: evidence estimators.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Evidence", deny_unknown_fields)]
pub struct EvidenceAsset {
    pub estimators: Vec<EstimatorAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EstimatorAsset {
    pub name: String,
    pub is: ExprAsset,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SpeakerAsset {
    Player,
    Agent,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum VarTestAsset {
    Bound,
    IsA(String),
    Related(String, String),
    /// A tally with a kind of the concept on it (any other variable: bound to one).
    Holds(String),
}

/// An estimator expression (docs/formats/evidence.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ExprAsset {
    Always,
    /// `Match(pattern, confidence)`.
    Match(String, f64),
    Speaker(SpeakerAsset),
    Emote(String),
    Did(String),
    DidAny,
    Mentions(String),
    Inspect {
        of: Vec<String>,
        #[serde(default = "identity", skip_serializing_if = "is_identity")]
        shape: ShapeAsset,
    },
    Var(String, VarTestAsset),
    /// Another estimator, by name.
    Ev(String),
    And(Vec<ExprAsset>),
    Or(Vec<ExprAsset>),
    Max(Vec<ExprAsset>),
    Not(Box<ExprAsset>),
    Scale(f64, Box<ExprAsset>),
}

/// `*.concepts.ron`: the knowledge representation: concepts and situational variables.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Concepts", deny_unknown_fields)]
pub struct ConceptsAsset {
    #[serde(default)]
    pub concepts: Vec<ConceptAsset>,
    #[serde(default)]
    pub variables: Vec<VariableAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConceptAsset {
    pub name: String,
    /// Concepts this one is a kind of (`sword` is a `weapon`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub is: Vec<String>,
    /// Words that name it in an utterance (stemmed; their synonyms name it too).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub words: Vec<String>,
    /// Words every kind of which names it too (`["person"]`: a lord, a smith, a thief), from
    /// the related-words table.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kinds: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
    /// `(relation, concept)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relations: Vec<(String, String)>,
    /// What it costs on a tally, in the tallies' smallest unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VariableAsset {
    pub name: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub track: Vec<TrackerAsset>,
    /// Kept as a tally: actions put concepts on it, templates say them and their total.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tally: Option<TallyAsset>,
}

/// A tally's units, largest first down to the smallest (worth 1), and the word that joins the
/// last of a list to the others.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TallyAsset {
    /// `(word, value in the smallest unit)`.
    pub units: Vec<(String, u32)>,
    #[serde(default = "and", skip_serializing_if = "is_and")]
    pub and: String,
}

fn and() -> String {
    "and".to_string()
}

fn is_and(s: &str) -> bool {
    s == "and"
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrackerAsset {
    pub rule: TrackerRuleAsset,
    /// Fires only when this evidence is at least `above`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub when: Option<String>,
    #[serde(default = "half", skip_serializing_if = "is_half")]
    pub above: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speaker: Option<SpeakerAsset>,
}

fn half() -> f64 {
    0.5
}

fn is_half(x: &f64) -> bool {
    *x == half()
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum TrackerRuleAsset {
    /// The last mentioned concept of one of these kinds (any concept when empty).
    Mention(Vec<String>),
    /// The concept of one of these kinds mentioned before the last one, in the same input.
    MentionEarlier(Vec<String>),
    /// The concept of one of these kinds mentioned before the `MentionEarlier` one: the third
    /// thing from the last ("bread, cheese and ale": the bread).
    MentionThirdLast(Vec<String>),
    Bind(String),
    Copy(String),
    Clear,
    /// The first concept of one of these kinds named right after a word of lexicon category
    /// `after` (past at most two words that name nothing): the thing in a role ("how far to the
    /// temple, and is the way hilly?": the temple, after "to").
    MentionAfter {
        kinds: Vec<String>,
        after: String,
    },
    /// A noun the agent knows nothing of, named after a word of lexicon category `after`
    /// ("the tide"): binds `concept`, and the variable says the player's word.
    Unheard {
        concept: String,
        after: String,
    },
}

/// `*.actions.ron`: the action-selection system: actions, templates and the arbitration network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Actions", deny_unknown_fields)]
pub struct ActionsAsset {
    #[serde(default)]
    pub templates: Vec<TemplateAsset>,
    #[serde(default)]
    pub actions: Vec<ActionAsset>,
    #[serde(default)]
    pub accumulators: Vec<AccumulatorAsset>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TemplateAsset {
    pub name: String,
    pub variants: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionAsset {
    pub name: String,
    #[serde(default = "says", skip_serializing_if = "is_says")]
    pub emote: String,
    /// Utterance variants (templates); one is chosen at random.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub say: Vec<String>,
    /// `(variable, concept)` bindings the action makes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bind: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unbind: Vec<String>,
    /// Self-modification `(target state, source state)`: b(target) := b(source).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_belief: Vec<(String, String)>,
    /// `(tally, variable or concept)`: what the action puts on a tally.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tally: Vec<(String, String)>,
    /// As `tally`, only when nothing of its kind is on it yet (a room is let once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tally_once: Vec<(String, String)>,
}

fn says() -> String {
    "says".to_string()
}

fn is_says(s: &str) -> bool {
    s == "says"
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum RuleAsset {
    First,
    Max,
    All,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AccumulatorAsset {
    pub name: String,
    pub rule: RuleAsset,
    /// Spaces and accumulators, in priority order.
    pub inputs: Vec<String>,
}

/// `*.chat.ron`: a conversation scene: the project's spaces as one social agent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Chat", deny_unknown_fields)]
pub struct ChatAsset {
    pub name: String,
    pub agent: String,
    #[serde(default = "player")]
    pub player: String,
    /// Iterations per second.
    #[serde(default = "one")]
    pub tick_rate: u32,
    /// The sink accumulator of the arbitration network.
    pub output: String,
}

fn player() -> String {
    "Player".to_string()
}

fn one() -> u32 {
    1
}
