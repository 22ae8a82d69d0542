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
                let found = obs
                    .mentions
                    .iter()
                    .rev()
                    .find(|&&m| types.is_empty() || types.iter().any(|&ty| is_a(model, m, ty)));
                if let Some(&c) = found {
                    bindings[v] = Some(c);
                }
            }
            TrackerRule::Bind(c) => bindings[v] = Some(*c),
            TrackerRule::Copy(from) => bindings[v] = bindings[from.index()],
            TrackerRule::Clear => bindings[v] = None,
        }
    }
}
