//! The forward step of one space (Zubek Eq. 1b, in the matrix form of §5.3.5):
//!
//! ```text
//! b*  = (b_{t-1} × p) ⊙ q        q(s) = Σ_y e(y)·g(y, s)
//! b_t = b* / Σ b*                (L1 normalisation)
//! ```
//!
//! Edges listed in [`Space::transition_expects`] are observed through q(y | s_i, s_j), the
//! report's general Eq. 1, instead of their target's q(y | s_j).
//!
//! **When all mass vanishes** (Σ b* = 0: no reachable state got any evidence, e.g. the input
//! concerns another space entirely), the belief is kept as it was: b_t = b_{t-1}. The report
//! does not say what to do (normalising would divide by zero); keeping the belief is what makes
//! a space "put on hold" while other spaces take the input (Fig. 1-1, Lemma 2 of §3.4.1 assumes
//! exactly this). A non-finite sum is treated the same way. The converse, tiny-but-non-zero
//! mass, is normalised like any other: a single state with evidence ε gets belief 1. That is
//! Eq. 1b's behaviour, and authors shape it with expectations on the states that should hold.

use super::model::{EvidenceId, Space, SpaceState};

/// What a forward step did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Some state got evidence; the belief was renormalised.
    Updated,
    /// All mass vanished; the previous belief was kept.
    Held,
}

/// q(s) for the states of one space: Σ e(y)·g(y, s) over the state's expectations.
pub fn evidence_for(states: &[SpaceState], e: &[f64], q: &mut [f64]) {
    for (q, s) in q.iter_mut().zip(states) {
        *q = s
            .expects
            .iter()
            .map(|&(EvidenceId(y), g)| e[y as usize] * g)
            .sum();
    }
}

/// One forward step. `prev`, `q` and `next` have the space's length; `next` is overwritten.
/// Edges with their own expectations ([`Space::transition_expects`]) are observed through
/// them: their share of the prior is taken out of b_{t-1}×p and added back times q(y|s_i, s_j).
pub fn forward(space: &Space, prev: &[f64], q: &[f64], e: &[f64], next: &mut [f64]) -> Step {
    let n = space.len();
    next.fill(0.0);
    // b_{t-1} × p, row by row: states without belief (most of them) cost nothing.
    for (i, &b) in prev.iter().enumerate() {
        if b == 0.0 {
            continue;
        }
        let row = &space.p[i * n..(i + 1) * n];
        for (acc, &p) in next.iter_mut().zip(row) {
            *acc += b * p;
        }
    }
    let mut z = 0.0;
    for (b, &q) in next.iter_mut().zip(q) {
        *b *= q;
    }
    // (prior − mass)·q(s_j) + mass·q(y|s_i, s_j) = b*(s_j) + mass·(q(y|s_i, s_j) − q(s_j)).
    for t in &space.transition_expects {
        let (i, j) = (t.from as usize, t.to as usize);
        let mass = prev[i] * space.p[i * n + j];
        if mass != 0.0 {
            let q_edge: f64 = t.expects.iter().map(|&(y, g)| e[y.index()] * g).sum();
            next[j] = (next[j] + mass * (q_edge - q[j])).max(0.0);
        }
    }
    for &b in next.iter() {
        z += b;
    }
    if z > 0.0 && z.is_finite() {
        let eta = 1.0 / z;
        for b in next.iter_mut() {
            *b *= eta;
        }
        Step::Updated
    } else {
        next.copy_from_slice(prev);
        Step::Held
    }
}

/// Index of the largest belief; ties go to the earliest state in author order.
pub fn argmax(belief: &[f64]) -> usize {
    let mut best = 0;
    for (i, &b) in belief.iter().enumerate() {
        if b > belief[best] {
            best = i;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpmm::model::{SpaceId, SpaceStateId};
    use crate::program::NameId;
    use proptest::prelude::*;

    fn space(n: usize, p: Vec<f64>) -> Space {
        Space {
            name: NameId(0),
            first_state: 0,
            state_count: n as u32,
            initial: SpaceStateId(0),
            disable: None,
            p,
            transition_expects: vec![],
        }
    }

    /// Eq. 1b written as the report's naive double loop (§5.2.5).
    fn naive(p: &[f64], n: usize, prev: &[f64], q: &[f64]) -> Vec<f64> {
        let mut raw = vec![0.0; n];
        for s in 0..n {
            let mut prior = 0.0;
            for si in 0..n {
                prior += p[si * n + s] * prev[si];
            }
            raw[s] = prior * q[s];
        }
        let z: f64 = raw.iter().sum();
        if z > 0.0 {
            raw.iter().map(|x| x / z).collect()
        } else {
            prev.to_vec()
        }
    }

    /// A random row-stochastic matrix, some entries zero, and a random distribution.
    fn arb_case() -> impl Strategy<Value = (usize, Vec<f64>, Vec<f64>, Vec<f64>)> {
        (1usize..8).prop_flat_map(|n| {
            (
                Just(n),
                prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..1.0], n * n),
                prop::collection::vec(0.0f64..1.0, n),
                prop::collection::vec(prop_oneof![Just(0.0), 0.0f64..1.0], n),
            )
                .prop_map(|(n, mut p, mut b, q)| {
                    for i in 0..n {
                        let row = &mut p[i * n..(i + 1) * n];
                        let sum: f64 = row.iter().sum();
                        if sum == 0.0 {
                            row[i] = 1.0;
                        } else {
                            row.iter_mut().for_each(|x| *x /= sum);
                        }
                    }
                    let sum: f64 = b.iter().sum();
                    if sum == 0.0 {
                        b[0] = 1.0;
                    } else {
                        b.iter_mut().for_each(|x| *x /= sum);
                    }
                    (n, p, b, q)
                })
        })
    }

    proptest! {
        /// Digest test 2: the matrix form equals the naive formula, and Σb = 1 (L1) after every
        /// step.
        #[test]
        fn matrix_form_equals_naive_formula((n, p, prev, q) in arb_case()) {
            let sp = space(n, p.clone());
            let mut next = vec![0.0; n];
            forward(&sp, &prev, &q, &[], &mut next);
            let expected = naive(&p, n, &prev, &q);
            for (a, b) in next.iter().zip(&expected) {
                prop_assert!((a - b).abs() < 1e-9, "{next:?} vs {expected:?}");
            }
            let sum: f64 = next.iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-9, "sum {sum}");
        }

        /// Several steps in a row stay a distribution, and every state with belief got there
        /// from a state with belief through an edge with p > 0.
        #[test]
        fn beliefs_stay_normalised((n, p, prev, q) in arb_case(), steps in 1usize..6) {
            let sp = space(n, p.clone());
            let mut b = prev;
            for _ in 0..steps {
                let mut next = vec![0.0; n];
                forward(&sp, &b, &q, &[], &mut next);
                for (s, &x) in next.iter().enumerate() {
                    prop_assert!((0.0..=1.0 + 1e-12).contains(&x));
                    if x > 0.0 && next != b {
                        prop_assert!((0..n).any(|i| b[i] > 0.0 && p[i * n + s] > 0.0));
                    }
                }
                prop_assert!((next.iter().sum::<f64>() - 1.0).abs() < 1e-9);
                b = next;
            }
        }
    }

    proptest! {
        /// Eq. 1 with some edges observed through their own evidence, as a naive edge loop.
        #[test]
        fn transition_expectations_follow_eq_1(
            (n, p, prev, q) in arb_case(),
            edges in prop::collection::vec((0usize..8, 0usize..8, 0.0f64..1.0), 0..3),
        ) {
            let mut sp = space(n, p.clone());
            let mut seen = std::collections::HashSet::new();
            let e: Vec<f64> = edges.iter().map(|x| x.2).collect();
            for (k, &(i, j, _)) in edges.iter().enumerate() {
                let (i, j) = (i % n, j % n);
                if seen.insert((i, j)) {
                    sp.transition_expects.push(crate::hpmm::model::TransitionExpectation {
                        from: i as u32,
                        to: j as u32,
                        expects: vec![(EvidenceId(k as u32), 1.0)],
                    });
                }
            }
            let mut raw = vec![0.0; n];
            for i in 0..n {
                for j in 0..n {
                    let q_edge = sp
                        .transition_expects
                        .iter()
                        .find(|t| (t.from as usize, t.to as usize) == (i, j))
                        .map(|t| e[t.expects[0].0.index()])
                        .unwrap_or(q[j]);
                    raw[j] += prev[i] * p[i * n + j] * q_edge;
                }
            }
            let z: f64 = raw.iter().sum();
            let expected: Vec<f64> = if z > 0.0 { raw.iter().map(|x| x / z).collect() } else { prev.clone() };
            let mut next = vec![0.0; n];
            forward(&sp, &prev, &q, &e, &mut next);
            for (a, b) in next.iter().zip(&expected) {
                prop_assert!((a - b).abs() < 1e-9, "{next:?} vs {expected:?}");
            }
        }
    }

    #[test]
    fn intersection_semantics() {
        // Digest test 3: e high but g = 0 gives nothing; g = 1 but e = 0 gives nothing.
        let states = vec![
            SpaceState {
                name: NameId(0),
                space: SpaceId(0),
                expects: vec![(EvidenceId(0), 1.0)],
                action: None,
            },
            SpaceState {
                name: NameId(0),
                space: SpaceId(0),
                expects: vec![(EvidenceId(1), 0.0)],
                action: None,
            },
        ];
        let mut q = [0.0; 2];
        evidence_for(&states, &[0.0, 0.9], &mut q);
        assert_eq!(q, [0.0, 0.0]);
        evidence_for(&states, &[0.5, 0.9], &mut q);
        assert_eq!(q, [0.5, 0.0]);
    }

    #[test]
    fn all_mass_vanishing_keeps_the_belief() {
        // Digest test 17, second half: Z = 0 keeps b_{t-1}.
        let sp = space(2, vec![0.5, 0.5, 0.0, 1.0]);
        let prev = [0.3, 0.7];
        let mut next = [0.0; 2];
        assert_eq!(forward(&sp, &prev, &[0.0, 0.0], &[], &mut next), Step::Held);
        assert_eq!(next, prev);
        // Non-finite evidence is not trusted either.
        assert_eq!(
            forward(&sp, &prev, &[f64::INFINITY, 0.0], &[], &mut next),
            Step::Held
        );
        assert_eq!(next, prev);
    }

    #[test]
    fn normalisation_amplifies_a_tiny_lone_evidence() {
        // Digest test 17, first half: one reachable state with q = ε gets belief 1.
        let sp = space(3, vec![0.5, 0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
        let mut next = [0.0; 3];
        let step = forward(&sp, &[1.0, 0.0, 0.0], &[0.0, 1e-9, 0.0], &[], &mut next);
        assert_eq!(step, Step::Updated);
        assert!((next[1] - 1.0).abs() < 1e-12);
    }

    #[test]
    fn unreachable_states_get_nothing() {
        // From state 0 only state 1 is reachable; state 2 has strong evidence but p = 0.
        let sp = space(3, vec![0.5, 0.5, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 1.0]);
        let mut next = [0.0; 3];
        forward(&sp, &[1.0, 0.0, 0.0], &[0.1, 0.1, 1.0], &[], &mut next);
        assert_eq!(next[2], 0.0);
    }

    #[test]
    fn argmax_breaks_ties_by_author_order() {
        assert_eq!(argmax(&[0.25, 0.5, 0.5]), 1);
        assert_eq!(argmax(&[1.0]), 0);
    }
}
