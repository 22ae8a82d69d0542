//! IR items of HMM spaces (Zubek): spaces and their states, evidence estimators, the lexicon,
//! concepts and situational variables, actions, templates, accumulators and conversations.
//! Names are resolved by the frontend; a reference that did not resolve is `None` (reported).

use super::{Handle, Name};
use crate::source::Span;
use ensemble_runtime::hpmm::model::{Rule, Shape, Speaker};

/// A resolved-or-not reference by name.
#[derive(Clone, Debug)]
pub struct Ref<T> {
    pub name: Name,
    pub target: Option<Handle<T>>,
}

#[derive(Clone, Debug)]
pub struct Space {
    pub name: Name,
    /// The whole asset.
    pub span: Span,
    pub initial: Option<Handle<SpaceState>>,
    pub disable: Option<Handle<SpaceState>>,
    pub enabled_by: Option<Inspection>,
    /// In author order.
    pub states: Vec<Handle<SpaceState>>,
}

/// What an inspection looks at: a state, or a whole space's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Inspected {
    State(Handle<SpaceState>),
    Active(Handle<Space>),
}

#[derive(Clone, Debug)]
pub struct InspectTarget {
    pub name: Name,
    pub target: Option<Inspected>,
}

#[derive(Clone, Debug)]
pub struct Inspection {
    pub of: Vec<InspectTarget>,
    pub shape: Shape,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Expectation {
    pub evidence: Ref<Estimator>,
    pub weight: f64,
}

#[derive(Clone, Debug)]
pub struct Edge {
    pub target: Ref<SpaceState>,
    pub p: f64,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct SpaceState {
    pub name: Name,
    pub space: Handle<Space>,
    pub expects: Vec<Expectation>,
    pub action: Option<Ref<Action>>,
    /// Empty: the state stays where it is (an implicit self-loop with p = 1).
    pub to: Vec<Edge>,
    /// The `to` list, or the name when there is none.
    pub to_span: Span,
}

/// One word test of a pattern.
#[derive(Clone, Debug)]
pub enum PatternWord {
    Any,
    Is {
        /// Stems (already stemmed).
        stems: Vec<String>,
        any: Vec<Ref<Category>>,
        all: Vec<Ref<Category>>,
    },
}

#[derive(Clone, Debug)]
pub struct Pattern {
    pub from_start: bool,
    pub to_end: bool,
    pub segments: Vec<Vec<PatternWord>>,
}

#[derive(Clone, Debug)]
pub enum VarTest {
    Bound,
    IsA(Ref<Concept>),
    Related(String, Ref<Concept>),
    Holds(Ref<Concept>),
}

/// An estimator expression.
#[derive(Clone, Debug)]
pub enum Expr {
    Always,
    Match {
        pattern: Pattern,
        confidence: f64,
    },
    Speaker(Speaker),
    Emote(String),
    Did(Option<Ref<Action>>),
    Mentions(Ref<Concept>),
    Inspect(Inspection),
    Var {
        variable: Ref<Variable>,
        test: VarTest,
    },
    Ev(Ref<Estimator>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
    Max(Vec<Expr>),
    Not(Box<Expr>),
    Scale(f64, Box<Expr>),
    /// Did not parse (already reported).
    Invalid,
}

#[derive(Clone, Debug)]
pub struct Estimator {
    pub name: Name,
    pub expr: Expr,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Category {
    pub name: Name,
    pub words: Vec<String>,
    pub union: Vec<Ref<Category>>,
    pub intersect: Vec<Ref<Category>>,
    pub minus: Vec<Ref<Category>>,
}

#[derive(Clone, Debug)]
pub struct Concept {
    pub name: Name,
    pub is: Vec<Ref<Concept>>,
    pub words: Vec<String>,
    /// `kinds`: words every kind of which names the concept, each with where it is written.
    pub kinds: Vec<Name>,
    pub properties: Vec<(String, String)>,
    pub relations: Vec<(String, Ref<Concept>)>,
    /// What it costs on a tally, in the smallest unit.
    pub cost: Option<u32>,
}

#[derive(Clone, Debug)]
pub enum TrackerRule {
    Mention(Vec<Ref<Concept>>),
    MentionEarlier(Vec<Ref<Concept>>),
    MentionThirdLast(Vec<Ref<Concept>>),
    Bind(Ref<Concept>),
    Copy(Ref<Variable>),
    Clear,
    Unheard {
        concept: Ref<Concept>,
        after: Ref<Category>,
    },
    MentionAfter {
        kinds: Vec<Ref<Concept>>,
        after: Ref<Category>,
    },
}

#[derive(Clone, Debug)]
pub struct Tracker {
    pub rule: TrackerRule,
    pub when: Option<(Ref<Estimator>, f64)>,
    pub speaker: Option<Speaker>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Variable {
    pub name: Name,
    pub trackers: Vec<Tracker>,
    /// Kept as a tally (actions put concepts on it).
    pub tally: Option<Tally>,
}

/// A tally's units (largest first, the last worth 1) and its `and`, with where each word is
/// written: they are lines translators translate.
#[derive(Clone, Debug)]
pub struct Tally {
    pub units: Vec<(Name, u32)>,
    pub and: Name,
}

/// What an action puts on a tally.
#[derive(Clone, Debug)]
pub enum TallyItem {
    /// The concept a variable is bound to.
    Bound(Handle<Variable>),
    Concept(Handle<Concept>),
    /// Named nothing (already reported).
    Invalid,
}

/// A piece of an output template.
#[derive(Clone, Debug)]
pub enum Chunk {
    Text(String),
    Choice(Vec<Vec<Chunk>>),
    Var {
        variable: Ref<Variable>,
        property: Option<String>,
    },
    Template(Ref<Template>),
}

/// A template variant or utterance as written (a pinned `{#id}` included), where it is
/// written: what localisation shows translators and points at.
#[derive(Clone, Debug)]
pub struct Written {
    pub text: String,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Template {
    pub name: Name,
    pub variants: Vec<Vec<Chunk>>,
    /// Parallel to `variants`.
    pub written: Vec<Written>,
}

#[derive(Clone, Debug)]
pub struct Action {
    pub name: Name,
    pub emote: String,
    pub say: Vec<Vec<Chunk>>,
    /// Parallel to `say`.
    pub written: Vec<Written>,
    pub bind: Vec<(Ref<Variable>, Option<Ref<Concept>>)>,
    pub copy_belief: Vec<(InspectTarget, InspectTarget)>,
    /// `(tally, item, once)`: `tally` then `tally_once`, each in the order written.
    pub tally: Vec<(Ref<Variable>, TallyItem, bool)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArbitrationInput {
    Space(Handle<Space>),
    Accumulator(Handle<Accumulator>),
}

#[derive(Clone, Debug)]
pub struct Accumulator {
    pub name: Name,
    pub rule: Rule,
    pub inputs: Vec<(Name, Option<ArbitrationInput>)>,
}

#[derive(Clone, Debug)]
pub struct Chat {
    pub name: Name,
    pub agent: String,
    pub player: String,
    pub tick_rate: u32,
    pub output: Ref<Accumulator>,
}
