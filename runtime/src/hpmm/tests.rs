//! Behaviour of whole models, built by hand (the runtime's tests never need the compiler). The
//! numbers in comments refer to the test list of shared/research/zubek-hpmm.md §6.

use super::agent::{Input, SocialAgent};
use super::chat::ChatScene;
use super::compose::{self, StateBased};
use super::model::*;
use crate::locale::Locale;
use crate::program::{NameId, Program, ProgramParts};
use proptest::prelude::*;
use std::sync::Arc;

/// Builds programs with an HPMM section, interning names as it goes.
#[derive(Default)]
struct Builder {
    names: Vec<String>,
    m: Model,
    tallies: Tallies,
}

/// A state as (name, expectations, action).
type StateSpec<'a> = (&'a str, Vec<(EvidenceId, f64)>, Option<ActionId>);

impl Builder {
    fn name(&mut self, s: &str) -> NameId {
        match self.names.iter().position(|n| n == s) {
            Some(i) => NameId(i as u32),
            None => {
                self.names.push(s.to_string());
                NameId(self.names.len() as u32 - 1)
            }
        }
    }

    fn evidence(&mut self, name: &str, estimator: Estimator) -> EvidenceId {
        let name = Some(self.name(name));
        self.m.evidence.push(Evidence { name, estimator });
        self.m.late_evidence = self.m.evidence.len() as u32;
        EvidenceId(self.m.evidence.len() as u32 - 1)
    }

    /// Evidence that the input's emote is `name` (runtime tests use emotes as symbols).
    fn symbol(&mut self, name: &str) -> EvidenceId {
        let n = self.name(name);
        self.evidence(name, Estimator::Emote(n))
    }

    fn action(&mut self, name: &str, say: &str) -> ActionId {
        let (name, emote) = (self.name(name), self.name("says"));
        self.m.actions.push(Action {
            name,
            emote,
            say: vec![vec![Chunk::Text(say.to_string())]],
            bind: vec![],
            copy_belief: vec![],
            lines: vec![],
        });
        ActionId(self.m.actions.len() as u32 - 1)
    }

    /// A space; `p` is given by rows, `disable` is a local index.
    fn space(
        &mut self,
        name: &str,
        states: Vec<StateSpec<'_>>,
        p: &[&[f64]],
        disable: Option<usize>,
    ) -> SpaceId {
        let id = SpaceId(self.m.spaces.len() as u32);
        let first = self.m.states.len() as u32;
        for (n, expects, action) in states.iter().cloned() {
            let name = self.name(n);
            self.m.states.push(SpaceState {
                name,
                space: id,
                expects,
                action,
            });
        }
        let name = self.name(name);
        self.m.spaces.push(Space {
            name,
            first_state: first,
            state_count: states.len() as u32,
            initial: SpaceStateId(first),
            disable: disable.map(|d| SpaceStateId(first + d as u32)),
            p: p.iter().flat_map(|r| r.iter().copied()).collect(),
            transition_expects: vec![],
        });
        id
    }

    /// Model dependency: the edge from the disable state to s0 observes the enabling evidence.
    fn enable_edge(&mut self, space: SpaceId, disable: usize, y_e: EvidenceId) {
        self.m.spaces[space.index()]
            .transition_expects
            .push(TransitionExpectation {
                from: disable as u32,
                to: 0,
                expects: vec![(y_e, 1.0)],
            });
    }

    fn state(&self, space: SpaceId, local: usize) -> SpaceStateId {
        SpaceStateId(self.m.spaces[space.index()].first_state + local as u32)
    }

    fn accumulator(&mut self, name: &str, rule: Rule, inputs: Vec<Source>) -> AccumulatorId {
        let name = self.name(name);
        self.m.accumulators.push(Accumulator { name, rule, inputs });
        AccumulatorId(self.m.accumulators.len() as u32 - 1)
    }

    /// Adds a conversation `chat` whose output is a `max` over every space, and builds.
    fn build(mut self) -> Arc<Program> {
        if self.m.chats.is_empty() {
            let inputs = (0..self.m.spaces.len())
                .map(|i| Source::Space(SpaceId(i as u32)))
                .collect();
            let output = self.accumulator("output", Rule::Max, inputs);
            let (name, agent, player) =
                (self.name("chat"), self.name("agent"), self.name("player"));
            self.m.chats.push(Chat {
                name,
                agent,
                player,
                tick_rate: 1,
                output,
            });
        }
        let program = ProgramParts {
            names: self.names,
            hpmm: self.m,
            tallies: self.tallies,
            ..ProgramParts::default()
        }
        .verify()
        .expect("the test model verifies");
        // Through the file format, so every test also exercises encoding and verification.
        Arc::new(Program::from_bytes(&program.to_bytes()).expect("round trip"))
    }
}

fn emote(name: &str) -> Input {
    Input {
        emote: name.to_string(),
        text: String::new(),
        ..Input::player("")
    }
}

/// Fig. 1-1: a linear space `x0 → x1 → … → x4`, each x_k (k ≥ 1) expecting symbol `{x}{k}`.
fn linear(b: &mut Builder, space: &str, prefix: &str) -> SpaceId {
    let symbols: Vec<EvidenceId> = (1..=4).map(|k| b.symbol(&format!("{prefix}{k}"))).collect();
    let mut states: Vec<StateSpec<'_>> = vec![("idle", vec![], None)];
    let names = ["p1", "p2", "p3", "p4"];
    for (k, y) in symbols.iter().enumerate() {
        states.push((names[k], vec![(*y, 1.0)], None));
    }
    b.space(
        space,
        states,
        &[
            &[0.5, 0.5, 0.0, 0.0, 0.0],
            &[0.0, 0.5, 0.5, 0.0, 0.0],
            &[0.0, 0.0, 0.5, 0.5, 0.0],
            &[0.0, 0.0, 0.0, 0.5, 0.5],
            &[0.0, 0.0, 0.0, 0.0, 1.0],
        ],
        None,
    )
}

fn fig_1_1() -> (Arc<Program>, SpaceId, SpaceId) {
    let mut b = Builder::default();
    let a = linear(&mut b, "haggle", "a");
    let bb = linear(&mut b, "praise", "b");
    (b.build(), a, bb)
}

#[test]
fn spaces_start_at_their_initial_state() {
    // 1.
    let (program, a, bb) = fig_1_1();
    let agent = SocialAgent::new(program, "chat", 0).unwrap();
    assert_eq!(agent.space_belief(a), [1.0, 0.0, 0.0, 0.0, 0.0]);
    assert_eq!(agent.space_belief(bb), [1.0, 0.0, 0.0, 0.0, 0.0]);
}

#[test]
fn valid_interleavings_advance_each_chain_in_order() {
    // 9: each space's argmax is its last production; a space holds while the other advances.
    let (program, a, bb) = fig_1_1();
    for sequence in [
        ["a1", "a2", "b1", "a3", "b2", "b3", "a4", "b4"],
        ["a1", "b1", "a2", "a3", "a4", "b2", "b3", "b4"],
        ["a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4"],
    ] {
        let mut agent = SocialAgent::new(program.clone(), "chat", 0).unwrap();
        let (mut ka, mut kb) = (0, 0);
        for sym in sequence {
            let before_a = agent.space_belief(a).to_vec();
            let before_b = agent.space_belief(bb).to_vec();
            agent.iterate(Some(&emote(sym)));
            let k: usize = sym[1..].parse().unwrap();
            if sym.starts_with('a') {
                ka = k;
                assert_eq!(agent.space_belief(bb), before_b, "praise held during {sym}");
            } else {
                kb = k;
                assert_eq!(agent.space_belief(a), before_a, "haggle held during {sym}");
            }
            assert_eq!(super::belief::argmax(agent.space_belief(a)), ka);
            assert_eq!(super::belief::argmax(agent.space_belief(bb)), kb);
            assert!((agent.space_belief(a)[ka] - 1.0).abs() < 1e-12);
        }
    }
}

#[test]
fn out_of_order_productions_get_no_belief() {
    // 10: α1 then α4; p(a4|a1) = 0.
    let (program, a, _) = fig_1_1();
    let mut agent = SocialAgent::new(program, "chat", 0).unwrap();
    agent.iterate(Some(&emote("a1")));
    agent.iterate(Some(&emote("a4")));
    assert_eq!(agent.space_belief(a)[4], 0.0);
    assert_eq!(super::belief::argmax(agent.space_belief(a)), 1);
}

/// Fig. 1-1's space as a stand-alone state-based model over symbols `offset..offset+4`.
fn linear_state_based(symbols: usize, offset: usize) -> StateBased {
    let p = vec![
        0.5, 0.5, 0.0, 0.0, 0.0, //
        0.0, 0.5, 0.5, 0.0, 0.0, //
        0.0, 0.0, 0.5, 0.5, 0.0, //
        0.0, 0.0, 0.0, 0.5, 0.5, //
        0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let mut q = vec![vec![0.0; symbols]; 5];
    for (k, row) in q.iter_mut().enumerate().skip(1) {
        row[offset + k - 1] = 1.0;
    }
    StateBased { states: 5, p, q }
}

#[test]
fn parallel_spaces_track_their_cartesian_product() {
    // 7: A ×_C B from Fig. 1-1 (v = 2) fed α1α2β1α3β2β3α4β4: b_C(c_ij) = b_A(a_i)·b_B(b_j)
    // after every step, with the runtime's spaces as A and B.
    let (program, a, bb) = fig_1_1();
    let la = linear_state_based(4, 0).to_labelled();
    let lb = linear_state_based(4, 0).to_labelled();
    let c = compose::cartesian(&la, &lb);
    let mut bc = vec![0.0; 25];
    bc[0] = 1.0;
    let mut agent = SocialAgent::new(program, "chat", 0).unwrap();
    for sym in ["a1", "a2", "b1", "a3", "b2", "b3", "a4", "b4"] {
        let k: usize = sym[1..].parse().unwrap();
        let mut e = vec![0.0; 8];
        e[if sym.starts_with('a') {
            k - 1
        } else {
            4 + k - 1
        }] = 1.0;
        bc = compose::forward(&c, &bc, &e);
        agent.iterate(Some(&emote(sym)));
        let (ba, bb_) = (agent.space_belief(a), agent.space_belief(bb));
        for i in 0..5 {
            for j in 0..5 {
                assert!(
                    (bc[i * 5 + j] - ba[i] * bb_[j]).abs() < 1e-12,
                    "after {sym}: c[{i}][{j}] = {} but a·b = {}",
                    bc[i * 5 + j],
                    ba[i] * bb_[j]
                );
            }
        }
    }
}

/// A random transition-labelled model with every row summing to 1.
fn arb_labelled() -> impl Strategy<Value = compose::Labelled> {
    (1usize..5, 1usize..4).prop_flat_map(|(n, symbols)| {
        prop::collection::vec(
            (
                prop_oneof![Just(0.0), 0.05f64..1.0],
                prop::collection::vec(0.0f64..1.0, symbols),
            ),
            n * n,
        )
        .prop_map(move |cells| {
            let mut edges = Vec::new();
            for i in 0..n {
                let row = &cells[i * n..(i + 1) * n];
                let sum: f64 = row.iter().map(|c| c.0).sum();
                for (j, (p, q)) in row.iter().enumerate() {
                    let p = if sum == 0.0 {
                        f64::from(i == j)
                    } else {
                        p / sum
                    };
                    if p > 0.0 {
                        edges.push(compose::Edge {
                            from: i,
                            to: j,
                            p,
                            q: q.clone(),
                        });
                    }
                }
            }
            compose::Labelled {
                states: n,
                symbols,
                edges,
            }
        })
    })
}

proptest! {
    /// 6: a transition-labelled model and its state-based conversion give the same marginals.
    #[test]
    fn state_based_conversion_keeps_the_marginals(
        m in arb_labelled(),
        inputs in prop::collection::vec(prop::collection::vec(0.0f64..1.0, 3), 1..8),
    ) {
        let (sb, ends) = compose::to_state_based(&m, 0);
        let mut b = vec![0.0; m.states];
        b[0] = 1.0;
        let mut bs = vec![0.0; sb.states];
        bs[0] = 1.0;
        for e in &inputs {
            let e = &e[..m.symbols];
            b = compose::forward(&m, &b, e);
            bs = sb.forward(&bs, e);
            let mut marginal = vec![0.0; m.states];
            for (k, &x) in bs.iter().enumerate() {
                marginal[ends[k]] += x;
            }
            for (x, y) in marginal.iter().zip(&b) {
                prop_assert!((x - y).abs() < 1e-9, "{marginal:?} vs {b:?}");
            }
        }
    }
}

#[test]
fn ambiguous_evidence_advances_only_what_expects_it() {
    // 4: "Rob nods" is affirmation, greeting and yes-answer at once; the greeting space in its
    // initial state advances, the yes/no space with no pending question does not.
    let mut b = Builder::default();
    let nods = b.symbol("nods");
    let affirmation = b.evidence("affirmation", Estimator::Scale(0.6, nods));
    let greeting = b.evidence("greeting", Estimator::Scale(0.4, nods));
    let yes = b.evidence("yes-answer", Estimator::Scale(0.7, nods));
    let ask = b.action("ask-question", "are you sure?");
    let asked = b.evidence("asked", Estimator::Did(Some(ask)));
    let greet = b.space(
        "greeting",
        vec![
            ("idle", vec![], None),
            ("greeted", vec![(greeting, 1.0)], None),
        ],
        &[&[0.5, 0.5], &[0.0, 1.0]],
        None,
    );
    let yn = b.space(
        "yes-no",
        vec![
            ("idle", vec![], None),
            ("asked", vec![(asked, 1.0)], None),
            ("answered", vec![(yes, 1.0)], None),
        ],
        &[&[0.5, 0.5, 0.0], &[0.0, 0.5, 0.5], &[0.0, 0.0, 1.0]],
        None,
    );
    let _ = affirmation;
    let mut agent = SocialAgent::new(b.build(), "chat", 0).unwrap();
    agent.iterate(Some(&emote("nods")));
    for (name, expected) in [("affirmation", 0.6), ("greeting", 0.4), ("yes-answer", 0.7)] {
        assert!((agent.evidence(name).unwrap() - expected).abs() < 1e-12);
    }
    assert_eq!(agent.space_belief(greet), [0.0, 1.0]);
    assert_eq!(agent.space_belief(yn), [1.0, 0.0, 0.0]);
}

/// A controller space (`off` → `on` on symbol `go`, back on `stop`) and a target space whose
/// `engaged` state inspects `controller.on`. `reversed` declares the target first.
fn inspection_model(reversed: bool) -> Arc<Program> {
    let mut b = Builder::default();
    let go = b.symbol("go");
    let stop = b.symbol("stop");
    let controller_states = || -> Vec<StateSpec<'static>> {
        vec![
            ("off", vec![(stop, 1.0)], None),
            ("on", vec![(go, 1.0)], None),
        ]
    };
    let controller_p: &[&[f64]] = &[&[0.5, 0.5], &[0.5, 0.5]];
    let target_p: &[&[f64]] = &[&[0.5, 0.5], &[0.5, 0.5]];
    // The inspection refers to the controller's `on` state, wherever it ends up.
    let on = SpaceStateId(if reversed { 3 } else { 1 });
    let watch = b.evidence(
        "controller-on",
        Estimator::Inspect {
            of: vec![Inspected::State(on)],
            shape: Shape::Identity,
            complement: false,
        },
    );
    let not_watch = b.evidence("controller-off", Estimator::Not(watch));
    let target_states = vec![
        ("idle", vec![(not_watch, 1.0)], None),
        ("engaged", vec![(watch, 1.0)], None),
    ];
    if reversed {
        b.space("target", target_states, target_p, None);
        b.space("controller", controller_states(), controller_p, None);
    } else {
        b.space("controller", controller_states(), controller_p, None);
        b.space("target", target_states, target_p, None);
    }
    b.build()
}

#[test]
fn inspection_reads_the_previous_iteration() {
    // 12: the controller's belief rising at t shows in the target's evidence at t+1; the order
    // in which spaces are declared (and updated) does not change anything.
    let mut runs = Vec::new();
    for reversed in [false, true] {
        let mut agent = SocialAgent::new(inspection_model(reversed), "chat", 0).unwrap();
        let mut log = Vec::new();
        for input in [Some("go"), None, None, Some("stop"), None] {
            agent.iterate(input.map(emote).as_ref());
            log.push((
                agent.belief("controller", "on").unwrap(),
                agent.belief("target", "engaged").unwrap(),
            ));
        }
        runs.push(log);
    }
    assert_eq!(runs[0], runs[1]);
    let log = &runs[0];
    assert_eq!(log[0], (1.0, 0.0), "t=1: the target still sees b_0(on) = 0");
    assert_eq!(log[1], (1.0, 1.0), "t=2: now it sees b_1(on) = 1");
    assert_eq!(log[3], (0.0, 1.0));
    assert_eq!(log[4], (0.0, 0.0));
}

/// Model dependency: `ctl` (off/on) enables `child` (s0, s1, D) through y_E = b(on) expected by
/// s0 and y_D = 1 − b(on) expected by the disable state D.
fn dependency_model() -> Arc<Program> {
    let mut b = Builder::default();
    let enable = b.symbol("enable");
    let disable = b.symbol("disable");
    let x = b.symbol("x");
    b.space(
        "ctl",
        vec![
            ("off", vec![(disable, 1.0)], None),
            ("on", vec![(enable, 1.0)], None),
        ],
        &[&[0.5, 0.5], &[0.5, 0.5]],
        None,
    );
    let on = Inspected::State(SpaceStateId(1));
    let y_e = b.evidence(
        "child-enable",
        Estimator::Inspect {
            of: vec![on],
            shape: Shape::Identity,
            complement: false,
        },
    );
    let y_d = b.evidence(
        "child-disable",
        Estimator::Inspect {
            of: vec![on],
            shape: Shape::Identity,
            complement: true,
        },
    );
    let child = b.space(
        "child",
        vec![
            ("s0", vec![], None),
            ("s1", vec![(x, 1.0)], None),
            ("D", vec![(y_d, 1.0)], None),
        ],
        &[&[0.2, 0.7, 0.1], &[0.0, 0.9, 0.1], &[0.5, 0.0, 0.5]],
        Some(2),
    );
    b.enable_edge(child, 2, y_e);
    b.build()
}

#[test]
fn model_dependency_engages_and_disengages_the_child() {
    // 14.
    let mut agent = SocialAgent::new(dependency_model(), "chat", 0).unwrap();
    assert_eq!(agent.belief("child", "D"), Some(1.0), "starts disengaged");
    let mut step = |input: Option<&str>| {
        agent.iterate(input.map(emote).as_ref());
        agent.argmax("child").unwrap().to_string()
    };
    assert_eq!(step(Some("enable")), "D", "t=1: the child sees b_0(on) = 0");
    assert_eq!(step(None), "s0", "t=2: mass moves D → s0");
    assert_eq!(step(None), "s0", "and stays while e(y_E) holds");
    assert_eq!(step(Some("x")), "s1");
    assert_eq!(step(Some("disable")), "s1", "the controller turns off at t");
    assert_eq!(step(None), "D", "the child collapses into D one step later");
    assert_eq!(agent.belief("child", "D"), Some(1.0));
}

#[test]
fn synchronous_call_waits_for_the_child() {
    // 15: the parent's controller `ask` (action) leads only to the return check `wait`; the
    // child is enabled while the parent believes in `ask` or `wait`; the parent moves on from
    // `wait` exactly one slice after the child's end state becomes high.
    let mut b = Builder::default();
    let help = b.symbol("help");
    let detail = b.symbol("detail");
    let ask = b.action("ask-details", "what do you need?");
    let asked = b.evidence("asked", Estimator::Did(Some(ask)));
    // State ids: parent 0..4, child 4..8.
    let done = SpaceStateId(6);
    let child_done = b.evidence(
        "child-done",
        Estimator::Inspect {
            of: vec![Inspected::State(done)],
            shape: Shape::Threshold(0.5),
            complement: false,
        },
    );
    let calling = vec![
        Inspected::State(SpaceStateId(1)),
        Inspected::State(SpaceStateId(2)),
    ];
    let y_e = b.evidence(
        "child-enable",
        Estimator::Inspect {
            of: calling.clone(),
            shape: Shape::Identity,
            complement: false,
        },
    );
    let y_d = b.evidence(
        "child-disable",
        Estimator::Inspect {
            of: calling,
            shape: Shape::Identity,
            complement: true,
        },
    );
    b.space(
        "parent",
        vec![
            ("idle", vec![], None),
            ("ask", vec![(help, 1.0)], Some(ask)),
            ("wait", vec![(asked, 1.0)], None),
            ("returned", vec![(child_done, 1.0)], None),
        ],
        &[
            &[0.5, 0.5, 0.0, 0.0],
            &[0.0, 0.0, 1.0, 0.0],
            &[0.0, 0.0, 0.5, 0.5],
            &[0.0, 0.0, 0.0, 1.0],
        ],
        None,
    );
    let child = b.space(
        "child",
        vec![
            ("s0", vec![], None),
            ("working", vec![(detail, 1.0)], None),
            ("done", vec![(detail, 1.0)], None),
            ("D", vec![(y_d, 1.0)], None),
        ],
        &[
            &[0.1, 0.8, 0.0, 0.1],
            &[0.0, 0.0, 0.9, 0.1],
            &[0.0, 0.0, 0.9, 0.1],
            &[0.5, 0.0, 0.0, 0.5],
        ],
        Some(3),
    );
    b.enable_edge(child, 3, y_e);
    let mut chat = ChatScene::new(b.build(), "chat", 0).unwrap();
    let mut parent = Vec::new();
    let mut child = Vec::new();
    for input in [
        Some("help"),
        None,
        None,
        Some("detail"),
        Some("detail"),
        None,
        None,
    ] {
        if chat.awaits_player() {
            chat.hear(input.map(emote));
        }
        chat.step();
        parent.push(chat.agent().argmax("parent").unwrap().to_string());
        child.push(chat.agent().argmax("child").unwrap().to_string());
    }
    // t1 help → ask (says "what do you need?"); t2 hears itself → wait; the child, enabled
    // by b_1(ask), reaches s0 at t2; t4 detail → working; t5 detail → done; t6 the parent sees
    // b_5(done) = 1 and returns.
    assert_eq!(
        parent,
        [
            "ask", "wait", "wait", "wait", "wait", "returned", "returned"
        ]
    );
    assert_eq!(child[1], "s0");
    assert_eq!(child[3], "working");
    assert_eq!(child[4], "done");
}

#[test]
fn stuck_monitor_rises_until_the_reset_takes_over() {
    // 16: while pleading is engaged and nothing advances it, b(stuck) rises every slice; when it
    // crosses θ = 0.5 the reset state takes the argmax one slice later.
    let mut b = Builder::default();
    let engaged = b.evidence(
        "pleading-engaged",
        Estimator::Inspect {
            of: vec![Inspected::Active(SpaceId(0))],
            shape: Shape::Identity,
            complement: false,
        },
    );
    b.space("pleading", vec![("begging", vec![], None)], &[&[1.0]], None);
    b.space(
        "monitor",
        vec![
            ("ok", vec![(engaged, 1.0)], None),
            ("stuck", vec![(engaged, 1.0)], None),
        ],
        &[&[0.9, 0.1], &[0.0, 1.0]],
        None,
    );
    let stuck = b.evidence(
        "monitor-stuck",
        Estimator::Inspect {
            of: vec![Inspected::State(SpaceStateId(2))],
            shape: Shape::Threshold(0.5),
            complement: false,
        },
    );
    b.space(
        "recovery",
        vec![("calm", vec![], None), ("reset", vec![(stuck, 1.0)], None)],
        &[&[0.9, 0.1], &[0.0, 1.0]],
        None,
    );
    let mut agent = SocialAgent::new(b.build(), "chat", 0).unwrap();
    let mut last = 0.0;
    let mut crossed = None;
    for t in 1..=12 {
        agent.iterate(None);
        let s = agent.belief("monitor", "stuck").unwrap();
        assert!(s > last, "b(stuck) rises monotonically ({last} → {s})");
        if crossed.is_none() && s >= 0.5 {
            crossed = Some(t);
        }
        let reset = agent.argmax("recovery") == Some("reset");
        assert_eq!(reset, crossed.is_some_and(|c| t > c), "t={t}");
        last = s;
    }
    assert_eq!(crossed, Some(7)); // 1 − 0.9^7 ≈ 0.52
}

#[test]
fn modification_copies_belief_after_the_update() {
    // 13: action a′ chosen at t sets b(target) := b(source) after the update.
    let mut b = Builder::default();
    let go = b.symbol("go");
    let copy = b.action("copy", "copying");
    b.space(
        "source",
        vec![("low", vec![], None), ("high", vec![(go, 1.0)], Some(copy))],
        &[&[0.5, 0.5], &[0.0, 1.0]],
        None,
    );
    b.space(
        "target",
        vec![("a", vec![], None), ("b", vec![], None)],
        &[&[1.0, 0.0], &[0.0, 1.0]],
        None,
    );
    let (target, source) = (b.state(SpaceId(1), 1), b.state(SpaceId(0), 1));
    b.m.actions[copy.index()]
        .copy_belief
        .push(BeliefCopy { target, source });
    let mut agent = SocialAgent::new(b.build(), "chat", 0).unwrap();
    assert_eq!(agent.belief("target", "b"), Some(0.0));
    let out = agent.iterate(Some(&emote("go"))).unwrap();
    assert_eq!(out.text, "copying");
    assert_eq!(agent.belief("target", "b"), Some(1.0));
    assert_eq!(agent.belief("target", "a"), Some(0.0));
}

/// The greeting protocol of Fig. 4-18: `hi` → greeted (action greet) → replied, which expects
/// the agent's own greeting.
fn greeting_model() -> Builder {
    let mut b = Builder::default();
    let hi = b.symbol("hi");
    let greet = b.action("greet", "greetings");
    let did = b.evidence("agent-greeted", Estimator::Did(Some(greet)));
    b.space(
        "greeting",
        vec![
            ("idle", vec![], None),
            ("greeted", vec![(hi, 1.0)], Some(greet)),
            ("replied", vec![(did, 1.0)], None),
        ],
        &[&[0.5, 0.5, 0.0], &[0.0, 0.2, 0.8], &[0.0, 0.0, 1.0]],
        None,
    );
    b
}

#[test]
fn a_conversation_records_only_when_asked() {
    let mut chat = ChatScene::new(greeting_model().build(), "chat", 0).unwrap();
    let talk = |chat: &mut ChatScene| {
        if chat.awaits_player() {
            chat.hear(Some(emote("hi")));
        }
        chat.step();
    };
    for _ in 0..1_000 {
        talk(&mut chat);
    }
    assert_eq!((chat.events_waiting(), chat.trace_capacity()), (0, 0));
    assert!(chat.take_events().is_empty());
    // The same exchange, recorded; switched off, what was not taken is dropped and freed.
    chat.set_tracing(true);
    talk(&mut chat);
    assert!(chat.events_waiting() > 0);
    chat.set_tracing(false);
    assert_eq!((chat.events_waiting(), chat.trace_capacity()), (0, 0));
}

#[test]
fn output_is_fed_back_and_not_repeated() {
    // 22 and 18: the proposal is the argmax state's action; the next iteration hears the
    // agent's own production, the space moves past the action state and proposes nothing.
    let mut chat = ChatScene::new(greeting_model().build(), "chat", 0).unwrap();
    chat.set_tracing(true);
    chat.hear(Some(emote("hi")));
    chat.step();
    assert!(!chat.awaits_player(), "the agent will hear itself first");
    chat.step();
    assert!(chat.awaits_player());
    chat.step();
    let events: Vec<String> = chat.take_events().iter().map(|e| e.to_json()).collect();
    assert_eq!(events.len(), 2, "{events:#?}");
    assert!(
        events[0].contains(r#""event":"input""#) && events[0].contains(r#""speaker":"player""#)
    );
    assert!(
        events[1]
            .contains(r#""event":"output","emote":"says","text":"greetings","action":"greet""#),
        "{}",
        events[1]
    );
    assert_eq!(chat.agent().argmax("greeting"), Some("replied"));
}

#[test]
fn templates_are_seeded_and_read_variables() {
    // 23: randomised chunks are deterministic for a seed; `{the-item.name}` resolves through
    // the variable binding.
    let mut b = greeting_model();
    let item = b.name("the-item");
    b.m.variables.push(Variable { name: item });
    let (sword, name_prop, id_prop) = (b.name("sword"), b.name("name"), b.name("price"));
    b.m.concepts.push(Concept {
        name: sword,
        is_a: vec![ConceptId(0)],
        words: vec![],
        properties: vec![
            (name_prop, "dwarven sword".into()),
            (id_prop, "two gold".into()),
        ],
        relations: vec![],
        lines: vec![],
    });
    let choice = Chunk::Choice(
        ["hello", "greetings", "well met", "hail", "evening"]
            .iter()
            .map(|w| vec![Chunk::Text(w.to_string())])
            .collect(),
    );
    let var = |property| Chunk::Var {
        variable: VariableId(0),
        property,
    };
    let action = &mut b.m.actions[0];
    action.say = vec![vec![
        choice,
        Chunk::Text(", this ".into()),
        var(None),
        Chunk::Text(" costs ".into()),
        var(Some(id_prop)),
    ]];
    action.bind = vec![(VariableId(0), Some(ConceptId(0)))];
    let program = b.build();
    let run = |seed| {
        let mut chat = ChatScene::new(program.clone(), "chat", seed).unwrap();
        chat.set_tracing(true);
        chat.hear(Some(emote("hi")));
        chat.step();
        chat.agent().binding("the-item").map(str::to_string);
        chat.take_events().pop().unwrap().to_json()
    };
    let a = run(1);
    assert_eq!(a, run(1), "same seed, same words");
    assert!(a.contains(", this dwarven sword costs two gold"), "{a}");
    let texts: std::collections::HashSet<String> = (0..20).map(run).collect();
    assert!(texts.len() > 1, "different seeds vary the chunk");
}

/// No holes: a wording whose slot would come out empty (variable unbound, or its concept
/// without the property) is skipped for one that renders whole, and wordings that read
/// variables are preferred to the plain fallback whenever they can be filled.
/// `say` rendered in the source language with these bindings and numbers heard.
fn render_bound(
    program: &Program,
    say: &[Vec<Chunk>],
    bindings: &[Option<ConceptId>],
    quantities: &[Option<u32>],
    rng: &mut crate::rng::Rng,
) -> String {
    let held = super::output::Situation {
        bindings,
        heard: &[],
        quantities,
        tallies: &[],
    };
    super::output::render(program, say, &[], held, rng, Locale::Source).text
}

/// The greeting model with variable 0 and concept 0 (with `properties`), for templates.
fn greeting_about(variable: &str, concept: &str, properties: &[(&str, &str)]) -> Builder {
    let mut b = greeting_model();
    let name = b.name(variable);
    b.m.variables.push(Variable { name });
    let name = b.name(concept);
    let properties = (properties.iter())
        .map(|(p, value)| (b.name(p), value.to_string()))
        .collect();
    b.m.concepts.push(Concept {
        name,
        is_a: vec![],
        words: vec![],
        properties,
        relations: vec![],
        lines: vec![],
    });
    b
}

#[test]
fn a_wording_with_an_empty_slot_falls_back_to_one_without() {
    let mut b = greeting_about("the-topic", "mayor", &[]);
    let location = b.name("location");
    let var = |property| Chunk::Var {
        variable: VariableId(0),
        property,
    };
    let text = |t: &str| Chunk::Text(t.to_string());
    b.m.actions[0].say = vec![
        vec![text("what about "), var(None), text("?")],
        vec![text("the way is "), var(Some(location))],
        vec![text("what you mean?")],
    ];
    let program = b.build();
    let say = |bound: Option<ConceptId>, seed| {
        let mut rng = crate::rng::Rng::new(seed, 0);
        let say = &program.hpmm.actions[0].say;
        render_bound(&program, say, &[bound], &[], &mut rng)
    };
    for seed in 0..20 {
        // Unbound: both slotted wordings have holes; the plain one is said.
        assert_eq!(say(None, seed), "what you mean?");
        // Bound to a concept without `location`: only "what about mayor?" renders whole, and
        // it is preferred to the plain wording.
        assert_eq!(say(Some(ConceptId(0)), seed), "what about mayor?");
    }
}

#[test]
fn a_wording_that_says_how_many_is_said_when_a_number_was_heard() {
    let mut b = greeting_about("the-dish", "ale", &[("servings", "mugs of ale")]);
    let (quantity, servings) = (b.name("quantity"), b.name("servings"));
    let var = |property| Chunk::Var {
        variable: VariableId(0),
        property,
    };
    let text = |t: &str| Chunk::Text(t.to_string());
    let plain = vec![
        vec![text("a mug of "), var(None)],
        vec![text("your "), var(None)],
        vec![text("here")],
    ];
    let mut counted = plain.clone();
    counted.push(vec![var(Some(quantity)), text(" "), var(Some(servings))]);
    // A choice that can say no number is an ordinary slotted wording, not one that says it.
    let mut optional = plain.clone();
    optional.push(vec![Chunk::Choice(vec![
        vec![var(Some(quantity)), text(" "), var(Some(servings))],
        vec![text("fresh "), var(None)],
    ])]);
    let program = b.build();
    let say = |say: &[Vec<Chunk>], quantity: Option<u32>, seed| {
        let mut rng = crate::rng::Rng::new(seed, 0);
        let said = render_bound(&program, say, &[Some(ConceptId(0))], &[quantity], &mut rng);
        (said, rng.index(1000))
    };
    let mut others = 0;
    for seed in 0..20 {
        // Heard "two ales": the wording with the number comes first.
        assert_eq!(say(&counted, Some(2), seed).0, "2 mugs of ale");
        // No number: it has a hole, and the agent's stream moves on exactly as it would
        // without that wording (the same words, the same next draw).
        assert_eq!(say(&counted, None, seed), say(&plain, None, seed));
        let (said, _) = say(&optional, Some(2), seed);
        others += usize::from(said == "a mug of ale" || said == "your ale");
    }
    // Drawn from with the other slotted wordings: some seeds say one of those.
    assert!(others > 0);
}

#[test]
fn accumulator_networks_pick_the_most_specific_first() {
    // 19/20 on a network: first(specific, max(general...)) with a single sink.
    let mut b = Builder::default();
    let x = b.symbol("x");
    let specific = b.action("specific", "specific");
    let general = b.action("general", "general");
    let vague = b.action("vague", "vague");
    let only = |b: &mut Builder, name: &str, act, y: EvidenceId| {
        b.space(
            name,
            vec![("idle", vec![], None), ("on", vec![(y, 1.0)], Some(act))],
            &[&[0.5, 0.5], &[0.5, 0.5]],
            None,
        )
    };
    let never = b.symbol("never");
    let s = only(&mut b, "specific", specific, never);
    let g = only(&mut b, "general", general, x);
    let v = only(&mut b, "vague", vague, x);
    let generic = b.accumulator(
        "generic",
        Rule::Max,
        vec![Source::Space(v), Source::Space(g)],
    );
    let output = b.accumulator(
        "output",
        Rule::First,
        vec![Source::Space(s), Source::Accumulator(generic)],
    );
    let (name, agent, player) = (b.name("chat"), b.name("agent"), b.name("player"));
    b.m.chats.push(Chat {
        name,
        agent,
        player,
        tick_rate: 1,
        output,
    });
    let mut agent = SocialAgent::new(b.build(), "chat", 0).unwrap();
    assert_eq!(agent.iterate(None), None, "no space proposes anything");
    let out = agent.iterate(Some(&emote("x"))).unwrap();
    // `vague` and `general` tie at belief 1: max keeps the first input.
    assert_eq!(agent.action_name(out.actions[0]), "vague");
}

/// Figure 1.1's agent after a1, a2, b1 (haggle at p2, praise at p1).
fn fig_1_1_after_three_lines() -> SocialAgent {
    let (program, _, _) = fig_1_1();
    let mut agent = SocialAgent::new(program, "chat", 0).unwrap();
    for sym in ["a1", "a2", "b1"] {
        agent.iterate(Some(&emote(sym)));
    }
    agent
}

/// What the last line was understood as belongs to the program it was heard with: after a
/// reload to a smaller model, `understanding` reports nothing rather than reading the old
/// program's ids against the new one.
#[test]
fn a_reload_forgets_how_the_last_line_was_understood() {
    let mut agent = fig_1_1_after_three_lines();
    assert!(!agent.understanding().evidence.is_empty());
    let mut b = Builder::default();
    b.space("x", vec![("idle", vec![], None)], &[&[1.0]], None);
    agent.reload(b.build()).unwrap();
    assert_eq!(
        agent.understanding(),
        super::agent::Understanding::default()
    );
}

#[test]
fn reload_carries_beliefs_by_space_and_state_name() {
    let mut agent = fig_1_1_after_three_lines();
    // The new program: praise loses state p1 and gains p5; haggle is unchanged but declared
    // second; a new space appears.
    let mut b = Builder::default();
    let _new = b.space("courtesy", vec![("idle", vec![], None)], &[&[1.0]], None);
    let sym = b.symbol("b2");
    b.space(
        "praise",
        vec![
            ("idle", vec![], None),
            ("p5", vec![], None),
            ("p2", vec![(sym, 1.0)], None),
        ],
        &[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]],
        None,
    );
    linear(&mut b, "haggle", "a");
    let report = agent.reload(b.build()).unwrap();
    assert_eq!(agent.belief("haggle", "p2"), Some(1.0));
    assert_eq!(agent.argmax("courtesy"), Some("idle"));
    // praise was at p1, which is gone: it starts afresh.
    assert_eq!(agent.belief("praise", "idle"), Some(1.0));
    assert_eq!(report.kept, 1);
    assert_eq!(report.fallbacks.len(), 2, "{:?}", report.fallbacks);
    // And it keeps running on the new program.
    agent.iterate(Some(&emote("a3")));
    assert_eq!(agent.argmax("haggle"), Some("p3"));
    // A program without the conversation is refused and the old one kept.
    let mut other = Builder::default();
    other.space("x", vec![("idle", vec![], None)], &[&[1.0]], None);
    let out = other.accumulator("o", Rule::Max, vec![]);
    let (name, a, p) = (other.name("elsewhere"), other.name("a"), other.name("p"));
    other.m.chats.push(Chat {
        name,
        agent: a,
        player: p,
        tick_rate: 1,
        output: out,
    });
    assert!(agent.reload(other.build()).is_err());
    assert_eq!(agent.argmax("haggle"), Some("p3"));
}

#[test]
fn broken_sections_are_refused_not_run() {
    let (program, _, _) = fig_1_1();
    let mut m = program.hpmm.clone();
    m.spaces[0].p[0] = 0.9; // row 0 sums to 1.4
    let base = ProgramParts {
        names: program.names.clone(),
        ..ProgramParts::default()
    };
    let with_hpmm = |hpmm| {
        ProgramParts {
            hpmm,
            ..base.clone()
        }
        .verify()
    };
    let err = with_hpmm(m).unwrap_err().to_string();
    assert!(err.contains("sums to"), "{err}");
    let mut m = program.hpmm.clone();
    m.accumulators[0]
        .inputs
        .push(Source::Accumulator(AccumulatorId(0)));
    assert!(with_hpmm(m).is_err(), "an accumulator reading itself");
    let mut m = program.hpmm.clone();
    m.evidence[0].estimator = Estimator::Not(EvidenceId(0));
    assert!(with_hpmm(m).is_err(), "evidence reading itself");
}

/// The templates model of `templates_are_seeded_and_read_variables`, smaller: a greeting
/// whose words are drawn from the agent's random stream and which binds a variable.
fn seeded_greeting() -> Arc<Program> {
    let mut b = greeting_model();
    let item = b.name("the-item");
    b.m.variables.push(Variable { name: item });
    let sword = b.name("sword");
    b.m.concepts.push(Concept {
        name: sword,
        is_a: vec![ConceptId(0)],
        words: vec![],
        properties: vec![],
        relations: vec![],
        lines: vec![],
    });
    let action = &mut b.m.actions[0];
    action.say = vec![vec![Chunk::Choice(
        ["hello", "greetings", "well met", "hail", "evening"]
            .iter()
            .map(|w| vec![Chunk::Text(w.to_string())])
            .collect(),
    )]];
    action.bind = vec![(VariableId(0), Some(ConceptId(0)))];
    b.build()
}

/// Steps `chat` `n` times, the player saying `hi` (or, every third turn, nothing) whenever it
/// is their turn; returns the events as JSON lines.
fn talk(chat: &mut ChatScene, n: usize) -> Vec<String> {
    for _ in 0..n {
        if chat.awaits_player() {
            let turn = chat.tick_count() % 3 != 2;
            chat.hear(turn.then(|| emote("hi")));
        }
        chat.step();
    }
    chat.take_events().iter().map(|e| e.to_json()).collect()
}

fn saved(chat: &ChatScene) -> Vec<u8> {
    let mut w = SnapshotWriter::new(chat.agent().program(), "inn");
    chat.save(&mut w);
    w.to_bytes()
}

use crate::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};

#[test]
fn a_restored_conversation_goes_on_as_the_uninterrupted_one() {
    let program = seeded_greeting();
    for n in 0..8 {
        let mut whole = ChatScene::new(program.clone(), "chat", 11).unwrap();
        whole.set_tracing(true);
        talk(&mut whole, n);
        // A queued player input is carried too.
        whole.hear(Some(emote("hi")));
        let bytes = saved(&whole);
        let after = talk(&mut whole, 40);
        assert!(!after.is_empty());
        let snapshot = SnapshotReader::from_bytes(&bytes).unwrap();
        let (mut restored, report) = ChatScene::restore(program.clone(), &snapshot).unwrap();
        assert_eq!(report.fallbacks, Vec::<String>::new());
        assert_eq!(report.kept, 1);
        assert_eq!(restored.tick_count(), n as u64);
        restored.set_tracing(true);
        assert_eq!(talk(&mut restored, 40), after, "saved after {n} iterations");
        assert_eq!(restored.agent().binding("the-item"), Some("sword"));
        assert_eq!(restored.now(), whole.now());
    }
}

#[test]
fn a_conversation_restored_onto_a_rebuilt_program_maps_by_name_and_reports() {
    let (program, _, _) = fig_1_1();
    let mut chat = ChatScene::new(program, "chat", 0).unwrap();
    for sym in ["a1", "a2", "b1"] {
        chat.hear(Some(emote(sym)));
        chat.step();
    }
    let bytes = saved(&chat);
    // praise loses p1 (where its belief is) and gains p5; haggle moves; courtesy is new.
    let mut b = Builder::default();
    b.space("courtesy", vec![("idle", vec![], None)], &[&[1.0]], None);
    b.space(
        "praise",
        vec![("idle", vec![], None), ("p5", vec![], None)],
        &[&[1.0, 0.0], &[0.0, 1.0]],
        None,
    );
    linear(&mut b, "haggle", "a");
    let snapshot = SnapshotReader::from_bytes(&bytes).unwrap();
    let (restored, report) = ChatScene::restore(b.build(), &snapshot).unwrap();
    assert_eq!(restored.agent().belief("haggle", "p2"), Some(1.0));
    assert_eq!(restored.agent().belief("praise", "idle"), Some(1.0));
    assert_eq!(report.kept, 1);
    assert_eq!(
        report.fallbacks,
        [
            "space `courtesy` is new: it starts afresh",
            "space `praise`: its believed states are gone: it starts afresh",
        ]
    );
    assert_eq!(restored.tick_count(), 3);
    // Onto a program without the conversation: refused with a message.
    let mut other = Builder::default();
    other.space("x", vec![("idle", vec![], None)], &[&[1.0]], None);
    let out = other.accumulator("o", Rule::Max, vec![]);
    let (name, a, p) = (other.name("elsewhere"), other.name("a"), other.name("p"));
    other.m.chats.push(Chat {
        name,
        agent: a,
        player: p,
        tick_rate: 1,
        output: out,
    });
    let e = ChatScene::restore(other.build(), &snapshot).err().unwrap();
    assert_eq!(
        e.to_string(),
        "the snapshot cannot be restored: the program has no conversation scene `chat` any more"
    );
}

#[test]
fn bad_conversation_snapshots_are_refused_with_a_message() {
    let program = seeded_greeting();
    let mut chat = ChatScene::new(program.clone(), "chat", 3).unwrap();
    talk(&mut chat, 5);
    let bytes = saved(&chat);
    // Truncated or corrupt containers.
    let e = SnapshotReader::from_bytes(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(matches!(e, SnapshotError::Truncated { .. }), "{e}");
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 0x40;
    assert!(SnapshotReader::from_bytes(&flipped).is_err());
    // A snapshot without the section, and one whose section is not a conversation.
    let empty = SnapshotWriter::new(&program, "inn").to_bytes();
    let e = ChatScene::restore(
        program.clone(),
        &SnapshotReader::from_bytes(&empty).unwrap(),
    )
    .err()
    .unwrap();
    assert_eq!(e, SnapshotError::MissingSection("hpmm.chat".into()));
    let mut w = SnapshotWriter::new(&program, "inn");
    w.put("hpmm.chat", &(1u8, "not a conversation"));
    let e = ChatScene::restore(
        program.clone(),
        &SnapshotReader::from_bytes(&w.to_bytes()).unwrap(),
    )
    .err()
    .unwrap();
    assert!(
        e.to_string()
            .starts_with("section `hpmm.chat` of the snapshot cannot be decoded"),
        "{e}"
    );
    // Every single-byte edit of the section restores or is refused, and what restores runs:
    // the container is re-made, so only the section's own checks stand between it and a panic.
    let section = SnapshotReader::from_bytes(&bytes)
        .unwrap()
        .bytes("hpmm.chat")
        .unwrap()
        .to_vec();
    let mut refused = 0;
    for i in 0..section.len() {
        for value in [0x00, 0x7f, 0xff, section[i] ^ 0x01] {
            let mut edited = section.clone();
            edited[i] = value;
            let mut w = SnapshotWriter::new(&program, "inn");
            w.put_bytes("hpmm.chat", edited);
            let r = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
            match ChatScene::restore(program.clone(), &r) {
                Ok((mut restored, _)) => {
                    talk(&mut restored, 10);
                }
                Err(e) => {
                    assert!(!e.to_string().is_empty());
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > 0, "no edit was refused");
}

#[test]
fn a_belief_that_is_not_a_probability_is_refused() {
    let program = seeded_greeting();
    let chat = ChatScene::new(program.clone(), "chat", 3).unwrap();
    let bytes = saved(&chat);
    let section = SnapshotReader::from_bytes(&bytes)
        .unwrap()
        .bytes("hpmm.chat")
        .unwrap()
        .to_vec();
    // The belief of `idle` at tick 0 is 1.0, saved as the f64's 8 little-endian bytes.
    let one = 1.0f64.to_le_bytes();
    let at = section.windows(8).position(|w| w == one).unwrap();
    for bad in [f64::NAN, -0.5, 2.0] {
        let mut edited = section.clone();
        edited[at..at + 8].copy_from_slice(&bad.to_le_bytes());
        let mut w = SnapshotWriter::new(&program, "inn");
        w.put_bytes("hpmm.chat", edited);
        let r = SnapshotReader::from_bytes(&w.to_bytes()).unwrap();
        let e = ChatScene::restore(program.clone(), &r).err().unwrap();
        assert!(
            e.to_string().contains("belief") && e.to_string().contains("is not a probability"),
            "{e}"
        );
    }
}

/// The greeting model whose reply names the thing the player asked about in the player's own
/// word: an `Unheard` tracker (`the` starts a phrase; `tide` and `bell` are nouns) binds
/// `the-thing`, and the reply says `{the-thing}`.
fn unheard_greeting() -> Arc<Program> {
    let mut b = greeting_model();
    let phrase = b.name("phrase-start");
    b.m.categories.push(phrase);
    b.m.lexicon.push(LexWord {
        word: "the".to_string(),
        tags: 1,
    });
    let thing = b.name("the-thing");
    b.m.variables.push(Variable { name: thing });
    let unheard = b.name("unheard-of");
    b.m.concepts.push(Concept {
        name: unheard,
        is_a: vec![ConceptId(0)],
        words: vec![],
        properties: vec![],
        relations: vec![],
        lines: vec![],
    });
    b.m.trackers.push(Tracker {
        variable: VariableId(0),
        rule: TrackerRule::Unheard {
            concept: ConceptId(0),
            after: 1,
            nouns: vec!["bell".to_string(), "tide".to_string()],
        },
        when: None,
        speaker: None,
    });
    b.m.actions[0].say = vec![
        vec![
            Chunk::Var {
                variable: VariableId(0),
                property: None,
            },
            Chunk::Text("? no idea".to_string()),
        ],
        vec![Chunk::Text("greetings".to_string())],
    ];
    b.build()
}

#[test]
fn a_thing_asked_about_is_named_in_the_players_word_and_kept_by_a_save() {
    let program = unheard_greeting();
    let mut chat = ChatScene::new(program.clone(), "chat", 3).unwrap();
    chat.set_tracing(true);
    chat.hear(Some(Input {
        emote: "hi".to_string(),
        text: "when does the tide turn".to_string(),
        ..Input::player("")
    }));
    chat.step();
    let said: Vec<String> = chat.take_events().iter().map(|e| e.to_json()).collect();
    assert!(
        said.iter().any(|e| e.contains("\"tide? no idea\"")),
        "{said:?}"
    );
    // The trace says which word counted for which concept.
    let understood = chat.agent().understanding();
    assert!(
        understood
            .words
            .iter()
            .any(|w| w.word == "tide" && w.concepts == ["unheard-of"]),
        "{:?}",
        understood.words
    );
    // Saved in a section of its own and given back on restore.
    let bytes = saved(&chat);
    let snapshot = SnapshotReader::from_bytes(&bytes).unwrap();
    assert!(snapshot.has(super::chat::CHAT_HEARD_SECTION));
    let (restored, report) = ChatScene::restore(program.clone(), &snapshot).unwrap();
    assert_eq!(report.fallbacks, Vec::<String>::new());
    assert_eq!(restored.agent().binding("the-thing"), Some("unheard-of"));
    assert_eq!(
        restored.agent().heard_by_name(),
        [("the-thing".to_string(), "tide".to_string())]
    );
    // A line naming no such thing keeps the binding (this model never clears it); a model
    // without the tracker saves no such section.
    let plain = ChatScene::new(seeded_greeting(), "chat", 3).unwrap();
    let snapshot = SnapshotReader::from_bytes(&saved(&plain)).unwrap();
    assert!(!snapshot.has(super::chat::CHAT_HEARD_SECTION));
}

/// A bar with a tab: `order` serves an ale, `let` lets the room (once), `note` puts a concept
/// without a cost on it, `pay` says what it came to and settles; `has-room` tests the tab;
/// `bind` binds the variable as a plain one would be. Without `tally`, the-tab is a plain
/// variable (a build from before it became a tally).
fn tab_bar(tally: bool) -> Arc<Program> {
    let mut b = Builder::default();
    // The loft is a room (concept 3 is a kind of concept 0).
    for (name, cost) in [("room", 50), ("ale", 2), ("note", 0), ("loft", 20)] {
        let own = ConceptId(b.m.concepts.len() as u32);
        let name = b.name(name);
        b.m.concepts.push(Concept {
            name,
            is_a: if own.0 == 3 {
                vec![ConceptId(0), own]
            } else {
                vec![own]
            },
            words: vec![],
            properties: vec![],
            relations: vec![],
            lines: vec![],
        });
        if cost > 0 {
            let c = ConceptId(b.m.concepts.len() as u32 - 1);
            b.tallies.costs.push((c, cost));
        }
    }
    let tab = VariableId(0);
    let name = b.name("the-tab");
    b.m.variables.push(Variable { name });
    let symbols: Vec<EvidenceId> = ["order", "let", "note", "pay", "bind", "loft"]
        .iter()
        .map(|s| b.symbol(s))
        .collect();
    let has_room = b.evidence(
        "has-room",
        Estimator::Var {
            variable: tab,
            test: VarTest::Holds(ConceptId(0)),
        },
    );
    let _ = has_room;
    let total = b.name("total");
    let actions: Vec<ActionId> = [
        "serve",
        "let-room",
        "jot",
        "take-payment",
        "bind-tab",
        "let-loft",
    ]
    .iter()
    .map(|a| b.action(a, "ok"))
    .collect();
    let pay = &mut b.m.actions[actions[3].index()];
    pay.say = vec![
        vec![
            Chunk::Var {
                variable: tab,
                property: Some(total),
            },
            Chunk::Text(" paid".into()),
        ],
        vec![Chunk::Text("paid".into())],
    ];
    pay.bind = vec![(tab, None)];
    b.m.actions[actions[4].index()].bind = vec![(tab, Some(ConceptId(0)))];
    // Serving says what is on the tab by then.
    b.m.actions[actions[0].index()].say = vec![
        vec![Chunk::Var {
            variable: tab,
            property: None,
        }],
        vec![Chunk::Text("ok".into())],
    ];
    // Its own line (and a line it has no symbol for) sends it back to idle.
    let spoke = b.evidence("spoke", Estimator::Speaker(Speaker::Agent));
    let other = b.symbol("idle-chatter");
    let mut states: Vec<StateSpec<'_>> = vec![("idle", vec![(spoke, 1.0), (other, 1.0)], None)];
    let names = [
        "serving", "letting", "noting", "paying", "binding", "lofting",
    ];
    for (k, y) in symbols.iter().enumerate() {
        states.push((names[k], vec![(*y, 1.0)], Some(actions[k])));
    }
    let row = [1.0 / 7.0; 7];
    let rows: Vec<&[f64]> = (0..7).map(|_| &row[..]).collect();
    b.space("bar", states, &rows, None);
    if tally {
        for (action, item, once) in [(0, 1, false), (1, 0, true), (2, 2, false), (5, 3, true)] {
            b.tallies.adds.push(TallyAdd {
                action: actions[action],
                tally: tab,
                item: TallyItem::Concept(ConceptId(item)),
                once,
            });
        }
        b.tallies.tallies.push(Tally {
            variable: tab,
            units: vec![("silver".into(), 10), ("copper".into(), 1)],
            and: "and".into(),
            lines: vec![],
        });
    } else {
        b.tallies.costs.clear();
    }
    b.build()
}

/// Says the symbols in turn; what the agent said to the last one.
fn tell(chat: &mut ChatScene, symbols: &[&str]) -> String {
    let mut said = String::new();
    for s in symbols {
        chat.hear(Some(emote(s)));
        chat.step();
        said = chat
            .last_output()
            .map(|o| o.text.clone())
            .unwrap_or_default();
        // It hears itself.
        chat.step();
    }
    said
}

#[test]
fn a_tally_lists_counts_and_totals_and_a_payment_says_it_before_it_settles() {
    let program = tab_bar(true);
    let mut chat = ChatScene::new(program.clone(), "chat", 1).unwrap();
    fn agent(c: &ChatScene) -> Vec<(&str, u32)> {
        c.agent().tally("the-tab").unwrap()
    }
    // Something that costs nothing: listed, and the total says nothing in its smallest unit.
    tell(&mut chat, &["note"]);
    assert_eq!(agent(&chat), [("note", 1)]);
    assert_eq!(tell(&mut chat, &["pay"]), "0 copper paid");
    assert_eq!(agent(&chat), []);
    assert_eq!(chat.agent().binding("the-tab"), None);
    // Nothing on it: the slot is a hole, so the wording without it is said.
    assert_eq!(tell(&mut chat, &["pay"]), "paid");
    // Two ales, and the room let twice but put on once; `Holds` sees it.
    assert_eq!(tell(&mut chat, &["order", "let"]), "ok");
    assert_eq!(tell(&mut chat, &["order"]), "2 ale and room");
    tell(&mut chat, &["let"]);
    assert_eq!(agent(&chat), [("ale", 2), ("room", 1)]);
    // Bound to what was put on it last: the second room was not.
    assert_eq!(chat.agent().binding("the-tab"), Some("ale"));
    chat.hear(Some(emote("idle-chatter")));
    chat.step();
    assert_eq!(chat.agent().evidence("has-room"), Some(1.0));
    let situation = chat.agent().situation();
    assert!(
        situation.contains(&("the-tab", "2 ale, room (54)".to_string())),
        "{situation:?}"
    );
    assert_eq!(tell(&mut chat, &["pay"]), "5 silver and 4 copper paid");
    chat.hear(Some(emote("idle-chatter")));
    chat.step();
    assert_eq!(chat.agent().evidence("has-room"), Some(0.0));
    // A loft is a room: with one on the tab, a room is not let again, and `Holds` sees it.
    tell(&mut chat, &["loft", "let"]);
    assert_eq!(agent(&chat), [("loft", 1)]);
    chat.hear(Some(emote("idle-chatter")));
    chat.step();
    assert_eq!(chat.agent().evidence("has-room"), Some(1.0));
    // The other way round, a kind of what is on refines it: the room let, then the loft
    // taken, is one loft (not a room and a loft), at the loft's price.
    tell(&mut chat, &["pay", "let", "order", "loft"]);
    assert_eq!(agent(&chat), [("loft", 1), ("ale", 1)]);
    assert_eq!(chat.agent().binding("the-tab"), Some("loft"));
    assert_eq!(tell(&mut chat, &["pay"]), "2 silver and 2 copper paid");
}

#[test]
fn a_variable_that_became_a_tally_restores_unbound_with_nothing_on_it() {
    let before = tab_bar(false);
    let mut chat = ChatScene::new(before, "chat", 1).unwrap();
    tell(&mut chat, &["bind"]);
    assert_eq!(chat.agent().binding("the-tab"), Some("room"));
    let snapshot = SnapshotReader::from_bytes(&saved(&chat)).unwrap();
    assert!(!snapshot.has(super::chat::CHAT_TALLIES_SECTION));
    let (restored, _) = ChatScene::restore(tab_bar(true), &snapshot).unwrap();
    assert_eq!(restored.agent().binding("the-tab"), None);
    assert_eq!(restored.agent().tally("the-tab").unwrap(), []);
}
