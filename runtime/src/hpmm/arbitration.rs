//! Action selection (Zubek §5.2.6): every space's local policy proposes its argmax state's
//! action with that state's belief; a DAG of accumulators folds the proposals down to the one
//! output of the sink. Actions stay ids until the very end; only the winner is rendered.

use super::belief::argmax;
use super::model::{ActionId, Model, Rule, Source, SpaceId};

/// An action (or, after an `all` accumulator, several) proposed with a belief. The common
/// single action needs no heap allocation: `more` stays empty.
#[derive(Clone, Debug, PartialEq)]
pub struct Proposal {
    /// The first action proposed.
    pub action: ActionId,
    /// Further actions, after an `all` accumulator concatenated proposals (none twice);
    /// usually empty.
    pub more: Vec<ActionId>,
    /// The belief the proposal is carried with, in [0, 1]; accumulators compare it.
    pub belief: f64,
}

impl Proposal {
    /// One action with its belief.
    pub fn single(action: ActionId, belief: f64) -> Self {
        Proposal {
            action,
            more: Vec::new(),
            belief,
        }
    }

    /// Every action, in order.
    pub fn actions(&self) -> impl Iterator<Item = ActionId> + '_ {
        std::iter::once(self.action).chain(self.more.iter().copied())
    }
}

/// The state a space's local policy acts from: its argmax state (ties: the earliest), as an
/// index into the model's states.
pub fn acting_state(model: &Model, space: SpaceId, belief: &[f64]) -> usize {
    let range = model.space(space).states();
    range.start + argmax(&belief[range])
}

/// The local policy of a space: the argmax state's action (ties: the earliest state), or
/// nothing when that state has no action.
pub fn policy(model: &Model, space: SpaceId, belief: &[f64]) -> Option<(ActionId, f64)> {
    let state = acting_state(model, space, belief);
    model.states[state].action.map(|a| (a, belief[state]))
}

/// Folds one accumulator's inputs.
pub fn fold<'a>(
    rule: Rule,
    inputs: impl Iterator<Item = Option<&'a Proposal>>,
) -> Option<Proposal> {
    let mut live = inputs.flatten().filter(|p| p.belief > 0.0);
    match rule {
        Rule::First => live.next().cloned(),
        Rule::Max => live
            .fold(None::<&Proposal>, |best, p| match best {
                Some(b) if b.belief >= p.belief => Some(b),
                _ => Some(p),
            })
            .cloned(),
        Rule::All => live.fold(None, |acc: Option<Proposal>, p| match acc {
            None => Some(p.clone()),
            Some(mut acc) => {
                // One turn never says the same action twice (a greeting before the answer,
                // and the answer a greeting too).
                for a in p.actions() {
                    if !acc.actions().any(|b| b == a) {
                        acc.more.push(a);
                    }
                }
                acc.belief = acc.belief.max(p.belief);
                Some(acc)
            }
        }),
    }
}

/// Evaluates the whole network into `outputs` (one slot per accumulator, table order) and
/// `spaces` (one proposal per space); returns nothing itself: the caller reads its sink.
pub fn arbitrate(
    model: &Model,
    belief: &[f64],
    spaces: &mut Vec<Option<Proposal>>,
    outputs: &mut Vec<Option<Proposal>>,
) {
    spaces.clear();
    spaces
        .extend((0..model.spaces.len()).map(|i| {
            policy(model, SpaceId(i as u32), belief).map(|(a, b)| Proposal::single(a, b))
        }));
    outputs.clear();
    for acc in &model.accumulators {
        let out = {
            let inputs = acc.inputs.iter().map(|s| match *s {
                Source::Space(id) => spaces[id.index()].as_ref(),
                Source::Accumulator(id) => outputs[id.index()].as_ref(),
            });
            fold(acc.rule, inputs)
        };
        outputs.push(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(a: u32, b: f64) -> Proposal {
        Proposal::single(ActionId(a), b)
    }

    #[test]
    fn the_digest_examples() {
        // Digest test 19: first([(a,0),(b,.3),(c,.9)]) = b; max = c; all([(a,.2),(b,.5)]) = (a+b, .5).
        let xs = [p(0, 0.0), p(1, 0.3), p(2, 0.9)];
        assert_eq!(fold(Rule::First, xs.iter().map(Some)), Some(p(1, 0.3)));
        assert_eq!(fold(Rule::Max, xs.iter().map(Some)), Some(p(2, 0.9)));
        let ys = [p(0, 0.2), p(1, 0.5)];
        assert_eq!(
            fold(Rule::All, ys.iter().map(Some)),
            Some(Proposal {
                action: ActionId(0),
                more: vec![ActionId(1)],
                belief: 0.5
            })
        );
    }

    #[test]
    fn all_says_an_action_once() {
        // A greeting before the answer, where the answer is a greeting too: one greeting.
        let mut both = Proposal::single(ActionId(0), 0.4);
        both.more.push(ActionId(1));
        let ys = [p(0, 0.2), both, p(2, 0.9)];
        let folded = fold(Rule::All, ys.iter().map(Some)).expect("live inputs");
        assert_eq!(
            folded.actions().collect::<Vec<_>>(),
            [ActionId(0), ActionId(1), ActionId(2)]
        );
        assert_eq!(folded.belief, 0.9);
    }

    #[test]
    fn missing_and_empty_inputs() {
        assert_eq!(fold(Rule::First, [None, None].into_iter()), None);
        assert_eq!(fold(Rule::All, std::iter::empty()), None);
        // Max keeps the first of equals.
        let xs = [p(0, 0.5), p(1, 0.5)];
        assert_eq!(fold(Rule::Max, xs.iter().map(Some)), Some(p(0, 0.5)));
        assert_eq!(
            fold(Rule::Max, [None, Some(&xs[1])].into_iter()),
            Some(p(1, 0.5))
        );
    }
}
