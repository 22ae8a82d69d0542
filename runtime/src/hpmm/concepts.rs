//! Topic retention (Zubek §3.2.2, §5.2.4): situational variables such as `the-topic` or
//! `the-item`, bound to concepts and kept across iterations. Trackers, the binding routines,
//! run once per iteration after surface evidence and before the evidence that tests variables,
//! so a variable read in an iteration is always the freshly re-evaluated one.

use super::evidence::{Observation, is_a};
use super::model::{ConceptId, Model, TrackerRule};

/// Runs every tracker in order; later trackers see earlier trackers' bindings.
pub fn track(model: &Model, obs: &Observation<'_>, e: &[f64], bindings: &mut [Option<ConceptId>]) {
    for t in &model.trackers {
        if t.speaker.is_some_and(|s| obs.speaker != Some(s)) {
            continue;
        }
        if let Some((y, threshold)) = t.when
            && e[y.index()] < threshold
        {
            continue;
        }
        let v = t.variable.index();
        match &t.rule {
            TrackerRule::Mention { types } => {
                let of_kind =
                    |m: ConceptId| types.is_empty() || types.iter().any(|&ty| is_a(model, m, ty));
                let last = obs.mentions.iter().rev().copied().find(|&m| of_kind(m));
                if let Some(last) = last {
                    // "something strong to drink": the drink named last is the strong one
                    // named before it; a kind does not undo the thing it is the kind of.
                    let specific = (obs.mentions.iter().rev().copied())
                        .find(|&m| m != last && of_kind(m) && is_a(model, m, last));
                    bindings[v] = Some(specific.unwrap_or(last));
                }
            }
            TrackerRule::MentionEarlier { types } => {
                let of_kind =
                    |m: &ConceptId| types.is_empty() || types.iter().any(|&ty| is_a(model, *m, ty));
                if let Some(&last) = obs.mentions.iter().rev().find(|m| of_kind(m)) {
                    // "a plate of sausages": the plate (food) is the sausages' kind, not a
                    // second dish.
                    bindings[v] =
                        obs.mentions.iter().rev().copied().find(|&m| {
                            of_kind(&m) && !is_a(model, m, last) && !is_a(model, last, m)
                        });
                }
            }
            TrackerRule::Bind(c) => bindings[v] = Some(*c),
            TrackerRule::Copy(from) => bindings[v] = bindings[from.index()],
            TrackerRule::Clear => bindings[v] = None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpmm::model::{Concept, Tracker, Variable, VariableId};
    use crate::program::NameId;

    /// food (0) ← stew (1), roast (2); drink (3) ← ale (4). Variable 0 is the dish named last,
    /// variable 1 the one named before it.
    fn model() -> Model {
        let concept = |i: u32, is_a: Vec<u32>| Concept {
            name: NameId(i),
            is_a: is_a.into_iter().map(ConceptId).collect(),
            words: Vec::new(),
            properties: Vec::new(),
            relations: Vec::new(),
            lines: Vec::new(),
        };
        let kinds = vec![ConceptId(0), ConceptId(3)];
        let tracker = |v: u32, rule: TrackerRule| Tracker {
            variable: VariableId(v),
            rule,
            when: None,
            speaker: None,
        };
        Model {
            concepts: vec![
                concept(0, vec![0]),
                concept(1, vec![0, 1]),
                concept(2, vec![0, 2]),
                concept(3, vec![3]),
                concept(4, vec![3, 4]),
            ],
            variables: vec![Variable { name: NameId(0) }, Variable { name: NameId(1) }],
            trackers: vec![
                tracker(
                    0,
                    TrackerRule::Mention {
                        types: kinds.clone(),
                    },
                ),
                tracker(1, TrackerRule::MentionEarlier { types: kinds }),
            ],
            ..Model::default()
        }
    }

    fn after(model: &Model, bindings: &mut [Option<ConceptId>], mentions: &[u32]) {
        let mentions: Vec<ConceptId> = mentions.iter().map(|&m| ConceptId(m)).collect();
        let obs = Observation {
            speaker: None,
            emote: None,
            words: &[],
            did: &[],
            mentions: &mentions,
        };
        track(model, &obs, &[], bindings);
    }

    #[test]
    fn a_line_naming_two_things_keeps_both_and_one_naming_one_unbinds_the_earlier() {
        let m = model();
        let c = |i| Some(ConceptId(i));
        let mut b = vec![None, None];
        // "the stew and a mug of ale"
        after(&m, &mut b, &[1, 4]);
        assert_eq!(b, [c(4), c(1)]);
        // "thanks": nothing named, both kept.
        after(&m, &mut b, &[]);
        assert_eq!(b, [c(4), c(1)]);
        // "just the roast": one thing.
        after(&m, &mut b, &[2]);
        assert_eq!(b, [c(2), None]);
        // "a pint and a plate of sausages": the plate (food) is the sausages' (roast's) kind.
        after(&m, &mut b, &[4, 0, 2]);
        assert_eq!(b, [c(2), c(4)]);
        // "some food, the roast": one thing named twice, at two levels.
        after(&m, &mut b, &[0, 2]);
        assert_eq!(b, [c(2), None]);
        // "a stew, and some food with it": the kind named last does not undo the stew.
        after(&m, &mut b, &[1, 0]);
        assert_eq!(b, [c(1), None]);
    }
}
