//! The compiled HPMM section of a program: flat tables indexed by 32-bit ids, exactly what the
//! runtime evaluates. The compiler produces it (`compiler/src/hpmm/`); `program::verify` checks
//! every id in it once, so the runtime indexes without checks.
//!
//! Evaluation order is baked into the tables: evidence entries come in dependency order (an entry
//! reads only entries before it), the evidence that depends on situational variables comes after
//! [`Model::late_evidence`], and accumulators come after every accumulator they read. The runtime
//! walks the tables front to back and never sorts.

use super::NameId;
use super::strings::LineIndex;
use serde::{Deserialize, Serialize};

macro_rules! hpmm_id {
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

hpmm_id!(
    /// A space: index into [`Model::spaces`].
    SpaceId
);
hpmm_id!(
    /// A state of some space, model-wide: index into [`Model::states`] and into the belief vector.
    SpaceStateId
);
hpmm_id!(
    /// An evidence type y: index into [`Model::evidence`] and into the evidence vector e.
    EvidenceId
);
hpmm_id!(
    /// A surface pattern: index into [`Model::patterns`].
    PatternId
);
hpmm_id!(
    /// A concept of the knowledge representation: index into [`Model::concepts`].
    ConceptId
);
hpmm_id!(
    /// A situational variable (`the-topic`): index into [`Model::variables`].
    VariableId
);
hpmm_id!(
    /// An agent action: index into [`Model::actions`].
    ActionId
);
hpmm_id!(
    /// A named output template: index into [`Model::templates`].
    TemplateId
);
hpmm_id!(
    /// An accumulator of the arbitration network: index into [`Model::accumulators`].
    AccumulatorId
);
hpmm_id!(
    /// A stem some pattern or concept mentions: index into [`Model::stems`].
    StemId
);
hpmm_id!(
    /// A conversation scene: index into [`Model::chats`].
    ChatId
);

/// Lexicon categories of a word as a bitmask (bit i = [`Model::categories`]\[i\]). Categories are
/// enumerated at design time, so tag tests are mask operations (Zubek §5.3.2).
pub type Tags = u128;

/// The most lexicon categories a model may define (bits in [`Tags`]).
pub const MAX_CATEGORIES: usize = 128;

/// Everything the HPMM runtime needs. Empty in programs without spaces.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Lexicon categories, by bit.
    pub categories: Vec<NameId>,
    /// Lexicon words (lower case) and stems of those words, with their categories.
    pub lexicon: Vec<LexWord>,
    /// Every stem a pattern or a concept mentions; input words whose stem is not here match no
    /// stem test.
    pub stems: Vec<String>,
    /// Surface patterns the `Match` estimators test.
    pub patterns: Vec<Pattern>,
    /// Evidence types in evaluation order.
    pub evidence: Vec<Evidence>,
    /// `evidence[late_evidence..]` depends on situational variables: it is evaluated after the
    /// trackers ran (Zubek §5.1, stage 3); everything before it, before them.
    pub late_evidence: u32,
    /// The knowledge representation: concepts with their words, properties and relations.
    pub concepts: Vec<Concept>,
    /// Situational variables; their bindings live in each agent.
    pub variables: Vec<Variable>,
    /// Trackers in the order they run.
    pub trackers: Vec<Tracker>,
    /// The HMMs, each a contiguous run of [`Model::states`].
    pub spaces: Vec<Space>,
    /// States of all spaces; the states of one space are contiguous.
    pub states: Vec<SpaceState>,
    /// Actions states propose; the arbitration network picks among them.
    pub actions: Vec<Action>,
    /// Named templates actions' utterances refer to.
    pub templates: Vec<Template>,
    /// Accumulators in evaluation order (inputs first).
    pub accumulators: Vec<Accumulator>,
    /// Conversation scenes, each a social agent and a player.
    pub chats: Vec<Chat>,
}

/// A lexicon entry: a word (or a stem) and its categories.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LexWord {
    /// The word or stem, lower case.
    pub word: String,
    /// Its categories.
    pub tags: Tags,
}

/// A backtracking-free surface pattern: segments of consecutive word tests separated by gaps
/// (`*`). Each segment is matched at its leftmost position after the previous one, which is
/// complete for this shape of pattern, so matching is one pass over the words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pattern {
    /// `^`: the first segment must start at the first word.
    pub from_start: bool,
    /// `$`: the last segment must end at the last word.
    pub to_end: bool,
    /// Segments in order; a gap (`*`) separates each from the next.
    pub segments: Vec<Vec<WordTest>>,
}

/// A test on one word.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum WordTest {
    /// `_`: any word.
    Any,
    /// `can|could|@modal`: the stem is one of `stems`, or the word has one of the `any` tags,
    /// or (when `all` is non-zero) it has all of the `all` tags.
    Is {
        /// Stems the word's stem may be.
        stems: Vec<StemId>,
        /// Categories of which the word needs one.
        any: Tags,
        /// Categories the word needs all of (no test when 0).
        all: Tags,
    },
}

/// Who produced an input event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Speaker {
    /// The person the agent talks with.
    Player,
    /// The agent itself: its own output, fed back as input.
    Agent,
}

/// A scalar map applied to an inspected belief (Zubek's shaping function f, §3.3.4).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Shape {
    /// x itself.
    Identity,
    /// 1 when x ≥ θ, else 0.
    Threshold(f64),
    /// 0 up to `lo`, 1 from `hi`, linear in between.
    Ramp(f64, f64),
    /// min(1, k·x).
    Scale(f64),
}

impl Shape {
    /// f(x) for a belief sum x ∈ [0, 1]; the result is in [0, 1].
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Shape::Identity => x,
            Shape::Threshold(t) => {
                if x >= t {
                    1.0
                } else {
                    0.0
                }
            }
            Shape::Ramp(lo, hi) => {
                if x <= lo {
                    0.0
                } else if x >= hi {
                    1.0
                } else {
                    (x - lo) / (hi - lo)
                }
            }
            Shape::Scale(k) => (k * x).min(1.0),
        }
    }
}

/// What an inspection looks at in the previous iteration's beliefs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Inspected {
    /// b_{t-1}(s).
    State(SpaceStateId),
    /// The space's activation: the mass outside its disable state (1 without one).
    Active(SpaceId),
}

/// A test on a situational variable (Zubek §5.2.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum VarTest {
    /// Bound to anything.
    Bound,
    /// Bound to a concept that is (transitively) a `ConceptId`.
    IsA(ConceptId),
    /// Bound to a concept with relation `relation` to the concept.
    Related {
        /// The relation's name (`sells`, `part-of`).
        relation: NameId,
        /// The concept it must relate to.
        to: ConceptId,
    },
    /// A tally (since version 13) with a concept that is (transitively) this one on it: "a
    /// room is on the tab"; for any other variable, bound to one (as `IsA`).
    Holds(ConceptId),
}

/// How one evidence value e(y) ∈ [0, 1] is estimated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Estimator {
    /// Always 1.
    Always,
    /// `confidence` when the pattern matches the input words, else 0.
    Match {
        /// The pattern tested.
        pattern: PatternId,
        /// e(y) on a match, in [0, 1].
        confidence: f64,
    },
    /// 1 when the input came from this speaker.
    Speaker(Speaker),
    /// 1 when the input's emote is this one (`nods`, `says`).
    Emote(NameId),
    /// 1 when the input is the agent's own output and it performed this action (any action
    /// when `None`).
    Did(Option<ActionId>),
    /// 1 when a word of the input names a concept that is this concept (transitively).
    Mentions(ConceptId),
    /// f(Σ b_{t-1}(inspected)), or 1 − f(...) when `complement` (Zubek §3.3.2–3.3.5).
    Inspect {
        /// What to sum, from b_{t-1}.
        of: Vec<Inspected>,
        /// f, applied to the sum.
        shape: Shape,
        /// Report 1 − f(x) instead.
        complement: bool,
    },
    /// 1 when the variable test holds.
    Var {
        /// The variable tested.
        variable: VariableId,
        /// What its binding must satisfy.
        test: VarTest,
    },
    /// Product of the operands (independent conjunction).
    And(Vec<EvidenceId>),
    /// Noisy or: 1 − Π(1 − x).
    Or(Vec<EvidenceId>),
    /// Largest operand (`greeted-or-complimented`, Zubek §5.2.3).
    Max(Vec<EvidenceId>),
    /// 1 − x.
    Not(EvidenceId),
    /// min(1, k·x).
    Scale(f64, EvidenceId),
}

/// One evidence type y: how e(y) is estimated each iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evidence {
    /// `None` for sub-expressions the compiler pulled out (shared between estimators).
    pub name: Option<NameId>,
    /// How its value is computed.
    pub estimator: Estimator,
}

/// A concept of the knowledge representation (an item for sale, a topic), named by words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Concept {
    /// The concept's name.
    pub name: NameId,
    /// Every concept this one is, itself included (transitive closure, sorted).
    pub is_a: Vec<ConceptId>,
    /// Stems of the words that name it in an utterance.
    pub words: Vec<StemId>,
    /// Properties templates read (`{the-item.price}`), sorted by name.
    pub properties: Vec<(NameId, String)>,
    /// `(relation, concept)` pairs, read by [`VarTest::Related`].
    pub relations: Vec<(NameId, ConceptId)>,
    /// Each property's line in the string section (its value is translated as a line),
    /// parallel to `properties`; empty when the program has no string section.
    pub lines: Vec<LineIndex>,
}

/// A situational variable (`the-topic`, `the-item`): trackers bind it to a concept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Variable {
    /// The variable's name.
    pub name: NameId,
}

/// What a tracker does to its variable when it fires.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TrackerRule {
    /// Bind to the last concept the input mentions that is one of `types` (any when empty).
    Mention {
        /// Concepts it must be (transitively); any concept when empty.
        types: Vec<ConceptId>,
    },
    /// Bind to the concept the input names before the last one of `types` (any when empty),
    /// when it names two that are neither the same nor kinds of each other ("the stew and a mug
    /// of ale": the stew); unbind when it names only one; keep the binding when it names none.
    /// With `Mention` on another variable, a line that asks for two things keeps both.
    MentionEarlier {
        /// Concepts it must be (transitively); any concept when empty.
        types: Vec<ConceptId>,
    },
    /// Bind to a fixed concept.
    Bind(ConceptId),
    /// Copy another variable's binding.
    Copy(VariableId),
    /// Unbind the variable.
    Clear,
    /// Bind to `concept` when the input names a thing the agent knows nothing of, and remember
    /// the word: the first word after a word of the `after` categories (past at most two words
    /// that are not nouns: "the old bell") that no concept, lexicon category or pattern mentions
    /// and whose stem is one of `nouns` (the compiler's table of common nouns). A concept word there
    /// ends the phrase ("the western mountains" names the mountains); what follows the line's
    /// last `?` is not looked at. `{variable}` says the word; other properties are the
    /// concept's. Keeps the binding when the input names no such word.
    Unheard {
        /// What the variable is bound to (its kinds decide which handlers answer).
        concept: ConceptId,
        /// Lexicon categories of the words a noun phrase starts after (determiners, "of").
        after: Tags,
        /// Stems of common nouns, sorted.
        nouns: Vec<String>,
    },
    /// Bind to the concept the input names before the [`TrackerRule::MentionEarlier`] one,
    /// the third thing from the last, when it names three that are neither the same nor kinds
    /// of each other ("bread, cheese and a mug of ale": the bread); unbind when it names fewer;
    /// keep the binding when it names none. Added in format version 14.
    MentionThirdLast {
        /// Concepts it must be (transitively); any concept when empty.
        types: Vec<ConceptId>,
    },
    /// Bind to the first concept of `types` (any when empty) the input names right after a
    /// word of the `after` categories, past at most two words that name nothing ("how far from
    /// here to the old temple, and is the way hilly?": the temple, though the hills come
    /// later): a role word says which thing plays the role (a destination after "to"). A word
    /// that gives way to a noun of `types` right after it is read past ("writing paper": the
    /// paper). Keep the binding when it names none. Last of the rules: format version 16.
    MentionAfter {
        /// Concepts it must be (transitively); any concept when empty.
        types: Vec<ConceptId>,
        /// Lexicon categories of the role words.
        after: Tags,
    },
}

/// A binding routine of one situational variable (Zubek §5.2.4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tracker {
    /// The variable it binds.
    pub variable: VariableId,
    /// What it binds the variable to.
    pub rule: TrackerRule,
    /// Fires only when this evidence is at least the threshold (always when `None`). Always
    /// evidence from before [`Model::late_evidence`].
    pub when: Option<(EvidenceId, f64)>,
    /// Fires only on input from this speaker (any when `None`).
    pub speaker: Option<Speaker>,
}

/// One HMM: a state space with transition matrix p, run every iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Space {
    /// The space's name.
    pub name: NameId,
    /// States `first_state .. first_state + state_count`.
    pub first_state: u32,
    /// Number of states; at least one.
    pub state_count: u32,
    /// The initial state s0.
    pub initial: SpaceStateId,
    /// The disable state s_D of a model dependency: belief in it is the confidence that the
    /// space is disengaged. A space with one starts disengaged (all belief in s_D).
    pub disable: Option<SpaceStateId>,
    /// p(s_j | s_i) at `p[i * n + j]` (row i: from state i; every row sums to 1).
    pub p: Vec<f64>,
    /// Transitions observed through their own evidence instead of their target state's:
    /// q(y | s_i, s_j) of the report's Eq. 1 where a state's q(y | s_j) (Eq. 1b) does not fit.
    /// A model dependency puts its enabling evidence y_E on the edge s_D → s0 only, so an
    /// engaged space is not pulled back to s0 while the controller stays on.
    pub transition_expects: Vec<TransitionExpectation>,
}

/// q(y | s_i, s_j) = Σ e(y)·weight for one edge, in local state indices.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TransitionExpectation {
    /// Local index of the source state.
    pub from: u32,
    /// Local index of the target state.
    pub to: u32,
    /// `(y, weight)` pairs, as for a state's expectations.
    pub expects: Vec<(EvidenceId, f64)>,
}

impl Space {
    /// Number of states.
    pub fn len(&self) -> usize {
        self.state_count as usize
    }

    /// Whether the space has no states (never so for a verified program).
    pub fn is_empty(&self) -> bool {
        self.state_count == 0
    }

    /// Model-wide indices of its states, into [`Model::states`] and the belief vector.
    pub fn states(&self) -> std::ops::Range<usize> {
        self.first_state as usize..(self.first_state + self.state_count) as usize
    }

    /// Where belief starts: the disable state if there is one, else the initial state.
    pub fn start(&self) -> SpaceStateId {
        self.disable.unwrap_or(self.initial)
    }
}

/// One state of a space: what it expects to observe and the action it proposes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpaceState {
    /// The state's name (the compiler keeps it unique within its space).
    pub name: NameId,
    /// The space it belongs to.
    pub space: SpaceId,
    /// Expectations g(y, s): (y, weight). q(y|s) = Σ e(y)·g(y, s).
    pub expects: Vec<(EvidenceId, f64)>,
    /// The state's action (at most one, Zubek §5.2.6).
    pub action: Option<ActionId>,
}

/// A piece of an output template.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Chunk {
    /// Literal text.
    Text(String),
    /// One of the alternatives, chosen at random (seeded).
    Choice(Vec<Vec<Chunk>>),
    /// A property of the concept bound to a variable; its `name` property, or its name, when
    /// `property` is `None`. Renders as nothing when unbound.
    Var {
        /// The variable whose binding is rendered.
        variable: VariableId,
        /// The property to render; the concept's `name` property (or its name) when `None`.
        property: Option<NameId>,
    },
    /// A named template.
    Template(TemplateId),
}

/// A named, reusable template with random variants.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Template {
    /// The template's name.
    pub name: NameId,
    /// Alternatives, one chosen at random when rendered.
    pub variants: Vec<Vec<Chunk>>,
    /// Each variant's line in the string section, parallel to `variants`; empty when the
    /// program has no string section.
    pub lines: Vec<LineIndex>,
}

/// Zubek's self-modification: b_t(target) := b_t(source), applied right after arbitration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct BeliefCopy {
    /// The state whose belief is set.
    pub target: SpaceStateId,
    /// The state whose belief it takes (read after the belief update).
    pub source: SpaceStateId,
}

/// Something the agent does: an emote with an optional utterance, variable bindings and
/// belief changes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Action {
    /// The action's name, as traces and `Did` evidence refer to it.
    pub name: NameId,
    /// `says`, `nods`, `glances`...
    pub emote: NameId,
    /// Utterance variants, one chosen at random; none for a pure emote.
    pub say: Vec<Vec<Chunk>>,
    /// Variable bindings it makes (`None` clears).
    pub bind: Vec<(VariableId, Option<ConceptId>)>,
    /// Self-modifications applied right after arbitration, in order.
    pub copy_belief: Vec<BeliefCopy>,
    /// Each utterance variant's line in the string section, parallel to `say`; empty when
    /// the program has no string section.
    pub lines: Vec<LineIndex>,
}

/// How an accumulator folds its inputs (Zubek §5.2.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Rule {
    /// The first input with non-zero belief (fixed priority).
    First,
    /// The input with the highest belief (the first of equals).
    Max,
    /// Every input's actions concatenated; belief is their max.
    All,
}

/// One input of an accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Source {
    /// A space's local policy: its argmax state's action, with that state's belief.
    Space(SpaceId),
    /// An earlier accumulator's output.
    Accumulator(AccumulatorId),
}

/// A node of the arbitration network: folds its inputs' proposals into one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Accumulator {
    /// The accumulator's name.
    pub name: NameId,
    /// How it folds its inputs.
    pub rule: Rule,
    /// Its inputs, in priority order (the order `first` and ties follow).
    pub inputs: Vec<Source>,
}

/// A conversation scene: one social agent, run by the whole model, talking with a player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Chat {
    /// The conversation's name (`ensemble run --scene NAME` runs it).
    pub name: NameId,
    /// The agent's label in traces.
    pub agent: NameId,
    /// The player's label in traces.
    pub player: NameId,
    /// Iterations per second of scene time.
    pub tick_rate: u32,
    /// The sink of the arbitration network.
    pub output: AccumulatorId,
}

impl Model {
    /// Whether the program has no HPMM content at all.
    pub fn is_empty(&self) -> bool {
        self.spaces.is_empty() && self.chats.is_empty() && self.evidence.is_empty()
    }

    /// Space `id`.
    pub fn space(&self, id: SpaceId) -> &Space {
        &self.spaces[id.index()]
    }

    /// State `id`.
    pub fn state(&self, id: SpaceStateId) -> &SpaceState {
        &self.states[id.index()]
    }
}

/// Tallies (since version 13; the program's last field, read from an earlier version as none):
/// situational variables that keep a running account of concepts — what an innkeeper served
/// and let tonight — with each concept's cost, for templates that say what was had and what it
/// comes to (`{the-tab}`, `{the-tab.total}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Tallies {
    /// The tallies, each a variable of [`Model::variables`] (distinct).
    pub tallies: Vec<Tally>,
    /// What a concept costs on a tally, in the smallest unit, for each concept that has a cost;
    /// sorted by concept, each once. A concept without one costs nothing on a tally.
    pub costs: Vec<(ConceptId, u32)>,
    /// What actions put on tallies, in the order written, grouped by nothing: the runtime
    /// looks up the winner's.
    pub adds: Vec<TallyAdd>,
}

/// A situational variable kept as a tally: it stays bound to the last concept put on it (so
/// `Var(tally, Bound)` tests that something is on it) and holds every concept put on it, with
/// counts, until an action unbinds it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    /// The variable.
    pub variable: VariableId,
    /// Units a total is said in, largest first, each `(word, value in the smallest unit)`;
    /// the last one's value is 1.
    pub units: Vec<(String, u32)>,
    /// The word joining the last item of a list (and the last unit of a total) to the others.
    pub and: String,
    /// The lines of `and` and of each unit's word, in that order; empty when the program has
    /// no string section.
    pub lines: Vec<LineIndex>,
}

/// What an action puts on a tally when it is performed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TallyAdd {
    /// The action.
    pub action: ActionId,
    /// The tally (a variable that is one of [`Tallies::tallies`]).
    pub tally: VariableId,
    /// What goes on it.
    pub item: TallyItem,
    /// Only when nothing of its kind is on the tally yet (a room is let once a stay).
    pub once: bool,
}

/// What an action puts on a tally.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum TallyItem {
    /// The concept a variable is bound to (nothing when it is unbound).
    Bound(VariableId),
    /// A fixed concept.
    Concept(ConceptId),
}

impl Tallies {
    /// The tally kept in variable `v`, if it is one.
    pub fn of(&self, v: VariableId) -> Option<usize> {
        self.tallies.iter().position(|t| t.variable == v)
    }

    /// What `items` (concepts with counts) come to, in the smallest unit; saturating, so a
    /// hand-made savegame's counts cannot overflow it.
    pub fn total(&self, items: &[(ConceptId, u32)]) -> u64 {
        (items.iter())
            .map(|&(c, n)| u64::from(self.cost(c)) * u64::from(n))
            .fold(0, u64::saturating_add)
    }

    /// `items` as a tally says them: each by `name`, a count before one put on more than once
    /// ("2 ale").
    pub fn listed(
        items: &[(ConceptId, u32)],
        mut name: impl FnMut(ConceptId) -> String,
    ) -> Vec<String> {
        (items.iter())
            .map(|&(c, n)| match n {
                1 => name(c),
                n => format!("{n} {}", name(c)),
            })
            .collect()
    }

    /// What concept `c` costs on a tally.
    pub fn cost(&self, c: ConceptId) -> u32 {
        self.costs
            .binary_search_by_key(&c, |&(c, _)| c)
            .map_or(0, |i| self.costs[i].1)
    }
}
