//! Evidence estimation (Zubek §5.2.3): e(y) ∈ [0, 1] for every evidence type, independently of
//! any state. Surface estimators read the preprocessed words; inspections read the previous
//! iteration's beliefs (so the order in which spaces update never matters); variable tests read
//! the situational variables. Combinations read entries computed before them: the compiler
//! orders the table so that every operand precedes its user, which also memoises sub-patterns
//! shared by several estimators (they are one entry).

use super::model::{
    ActionId, ConceptId, Estimator, Inspected, Model, Speaker, Tallies, VarTest, VariableId,
};
use super::text::Word;
use crate::program::NameId;

/// One input event, preprocessed: what the estimators look at.
#[derive(Clone, Copy, Debug)]
pub struct Observation<'a> {
    /// `None` on an iteration without input (time passes, nobody spoke).
    pub speaker: Option<Speaker>,
    /// The emote's name id, when the program knows the emote.
    pub emote: Option<NameId>,
    /// The preprocessed words of the utterance; empty without input.
    pub words: &'a [Word],
    /// Actions the agent performed, when the input is its own output fed back.
    pub did: &'a [ActionId],
    /// Concepts the words name, in word order.
    pub mentions: &'a [ConceptId],
    /// The number heard before each mention ("two ales"), parallel to `mentions` (empty, or
    /// shorter, when nobody counted).
    pub counted: &'a [Option<u32>],
    /// Whether each word names a concept, parallel to `words`.
    pub named: &'a [bool],
    /// Whether each mention yields to another of its kind, parallel to `mentions` (empty, or
    /// shorter, when none does): one refused ("wine, not water", "no onions", "without meat")
    /// or said aside of the question ("is it cold tonight? my coat is in the river").
    pub yields: &'a [bool],
    /// The word each mention was named by (an index into `words`), parallel to `mentions`
    /// (empty when not known: then no mention follows any word).
    pub mention_words: &'a [usize],
}

impl Observation<'_> {
    /// Whether mention `k` yields to another of its kind (see [`Observation::yields`]).
    pub fn mention_yields(&self, k: usize) -> bool {
        self.yields.get(k).copied().unwrap_or(false)
    }
}

/// Whether concept `c` is (transitively) concept `of`.
pub fn is_a(model: &Model, c: ConceptId, of: ConceptId) -> bool {
    model.concepts[c.index()].is_a.binary_search(&of).is_ok()
}

/// Sum of b_{t-1} over what an inspection looks at.
fn inspected(model: &Model, of: &[Inspected], belief: &[f64]) -> f64 {
    let mut x = 0.0;
    for target in of {
        x += match *target {
            Inspected::State(s) => belief[s.index()],
            Inspected::Active(space) => match model.space(space).disable {
                Some(d) => 1.0 - belief[d.index()],
                None => 1.0,
            },
        };
    }
    x.clamp(0.0, 1.0)
}

/// What the situational variables hold, for variable tests: each variable's binding, and what
/// is on each tally of the program's `tallies`.
#[derive(Clone, Copy)]
pub struct Held<'a> {
    /// Each variable's concept.
    pub bindings: &'a [Option<ConceptId>],
    /// The program's tallies.
    pub tallies: &'a Tallies,
    /// What is on each of them (empty entries, or none, for a model without tallies).
    pub on: &'a [Vec<(ConceptId, u32)>],
}

/// Whether variable `v`'s binding passes `test`; an unbound variable passes no test.
pub fn var_test(model: &Model, held: Held<'_>, v: VariableId, test: &VarTest) -> bool {
    if let VarTest::Holds(c) = test
        && let Some(t) = held.tallies.of(v)
    {
        let on = held.on.get(t).map_or(&[][..], Vec::as_slice);
        return on.iter().any(|&(x, _)| is_a(model, x, *c));
    }
    let Some(bound) = held.bindings[v.index()] else {
        return false;
    };
    match test {
        VarTest::Bound => true,
        VarTest::IsA(c) | VarTest::Holds(c) => is_a(model, bound, *c),
        VarTest::Related { relation, to } => model.concepts[bound.index()]
            .relations
            .iter()
            .any(|(r, c)| r == relation && c == to),
    }
}

/// Computes `e[range]` in table order.
pub fn estimate(
    model: &Model,
    range: std::ops::Range<usize>,
    obs: &Observation<'_>,
    belief: &[f64],
    held: Held<'_>,
    e: &mut [f64],
) {
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    for i in range {
        let value = match &model.evidence[i].estimator {
            Estimator::Always => 1.0,
            Estimator::Match {
                pattern,
                confidence,
            } => {
                if obs.speaker.is_some() && model.patterns[pattern.index()].matches(obs.words) {
                    *confidence
                } else {
                    0.0
                }
            }
            Estimator::Speaker(s) => flag(obs.speaker == Some(*s)),
            Estimator::Emote(n) => flag(obs.emote == Some(*n)),
            Estimator::Did(None) => flag(!obs.did.is_empty()),
            Estimator::Did(Some(a)) => flag(obs.did.contains(a)),
            Estimator::Mentions(c) => flag(obs.mentions.iter().any(|&m| is_a(model, m, *c))),
            Estimator::Inspect {
                of,
                shape,
                complement,
            } => {
                let f = shape.apply(inspected(model, of, belief));
                if *complement { 1.0 - f } else { f }
            }
            Estimator::Var { variable, test } => flag(var_test(model, held, *variable, test)),
            Estimator::And(xs) => xs.iter().map(|x| e[x.index()]).product(),
            Estimator::Or(xs) => 1.0 - xs.iter().map(|x| 1.0 - e[x.index()]).product::<f64>(),
            Estimator::Max(xs) => xs.iter().map(|x| e[x.index()]).fold(0.0, f64::max),
            Estimator::Not(x) => 1.0 - e[x.index()],
            Estimator::Scale(k, x) => (k * e[x.index()]).min(1.0),
        };
        e[i] = value.clamp(0.0, 1.0);
    }
}
