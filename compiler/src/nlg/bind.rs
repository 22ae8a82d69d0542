//! `unbound-sentence-variable`: every `VARIABLE` of a sentence state (and every `{Slot}` of a
//! transaction's value) must have a value on every path into the state that uses it.
//!
//! At run time a dialog state fills a slot from its agent's variables, then from its
//! conversation partner's. Variables come from the scene (`variables:` of an agent), from `Set`
//! states, from transactions (`give`/`take`, which move a variable between the partners) and
//! from the `Yes` branch of a `Has` state. The check is a "definitely bound" data-flow analysis
//! (intersection over paths), per scene and agent:
//! - the agent's root machine starts with the agent's scene variables; inside a machine a
//!   state's variables are the intersection over every transition into it of what its source
//!   had plus what the source binds on that transition ([`Effect`]);
//! - a hosted machine starts with its host state's variables;
//! - a conversation (a machine hosted by `TalkStateMachine`) is analysed together with each
//!   possible partner's conversation machine, over the product of the two machines under the
//!   turn-taking protocol ([`converse`]): a speaking state that waits for a response yields the
//!   turn and moves on only when the partner yields it back (or leaves); everything else may
//!   happen at any time, and a game's own library states may also yield the turn at any time. So a partner's `Set` or transaction counts exactly when every
//!   interleaving the protocol allows has done it before the dialog state speaks. Partners are
//!   the agents this agent's `RequestConversation` states name and the agents whose
//!   `RequestConversation` states name it, each entering its conversation with what it has
//!   then;
//! - what a partner gave during a conversation is *not* definitely there after it: the
//!   conversation may have been interrupted before the transaction (Hewlett §3.5.2). Later
//!   states find out with `Has`. What the agent may have lost in it — its own `give Name`
//!   (which moves the value) or a possible partner's `take Name` — is not definitely there
//!   either, after any state whose hosted machines hold such a conversation ([`lost_inside`]).
//!
//! Machines no scene runs are not checked.

use super::check::{DIALOG, HAS, SET, TALK, TRANSACTION, code_name, set_variable};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Handle, Machine, Modifier, Module, Scene, State};
use crate::valid::hosted_closure;
use ensemble_runtime::program::Terminal;
use ensemble_runtime::speech::transaction::{self, Direction};
use std::collections::{BTreeSet, HashMap, HashSet};

type Vars = BTreeSet<String>;

use ensemble_runtime::stdlib::{ONE_OFF, REQUEST_CONVERSATION as REQUEST, SALUTATION, SAY};
const SPEAKING: [&str; 4] = [SAY, SALUTATION, ONE_OFF, DIALOG];

/// What leaving a state along a transition does to the variables of its agent (`own`) and of
/// the conversation partner (`other`).
#[derive(Default)]
struct Effect {
    own_gain: Option<String>,
    own_loss: Option<String>,
    other_gain: Option<String>,
    other_loss: Option<String>,
}

fn effect(module: &Module, state: &State, event: &str) -> Effect {
    let Modifier::Text(text) = &state.modifier else {
        return Effect::default();
    };
    let mut e = Effect::default();
    match code_name(module, state) {
        Some(SET) => e.own_gain = set_variable(text).map(str::to_string),
        Some(HAS) if event == "Yes" => e.own_gain = Some(text.trim().to_string()),
        Some(TRANSACTION) if event == "Done" => {
            if let Ok(t) = transaction::parse(text) {
                let var = Some(t.variable.to_string());
                match (t.direction, t.moves()) {
                    (Direction::Give, false) => e.other_gain = var,
                    (Direction::Give, true) => (e.own_loss, e.other_gain) = (var.clone(), var),
                    (Direction::Take, _) => (e.other_loss, e.own_gain) = (var.clone(), var),
                }
            }
        }
        _ => {}
    }
    e
}

fn apply(own: &mut Vars, other: Option<&mut Vars>, e: &Effect) {
    if let Some(v) = &e.own_loss {
        own.remove(v);
    }
    own.extend(e.own_gain.clone());
    if let Some(other) = other {
        if let Some(v) = &e.other_loss {
            other.remove(v);
        }
        other.extend(e.other_gain.clone());
    }
}

fn intersect(a: &Vars, b: &Vars) -> Vars {
    a.intersection(b).cloned().collect()
}

/// The variables an agent may no longer have once it leaves `state`, a state that hosts a
/// machine: what a `give Name` inside it moves to a partner, and — when a conversation runs
/// somewhere inside it — `taken`, what the agent's possible partners' conversations `take`.
/// Either may or may not have happened (the conversation may have been interrupted), so these
/// are not definitely there afterwards.
fn lost_inside(module: &Module, state: &State, taken: &Vars) -> Vars {
    let Modifier::Machine(child) = state.modifier else {
        return Vars::new();
    };
    let mut out = Vars::new();
    let mut converses = code_name(module, state) == Some(TALK);
    for m in hosted_closure(module, child) {
        for &s in &module.machines[m].states {
            let st = &module.states[s];
            match (code_name(module, st), &st.modifier) {
                (Some(TALK), _) => converses = true,
                (Some(TRANSACTION), Modifier::Text(text)) => {
                    if let Ok(t) = transaction::parse(text)
                        && t.direction == Direction::Give
                        && t.moves()
                    {
                        out.insert(t.variable.to_string());
                    }
                }
                _ => {}
            }
        }
    }
    if converses {
        out.extend(taken.iter().cloned());
    }
    out
}

/// What the conversation machines an agent's machines host `take` from the partner.
fn takes(module: &Module, root: Handle<Machine>) -> Vars {
    let mut out = Vars::new();
    for m in hosted_closure(module, root) {
        for &s in &module.machines[m].states {
            let st = &module.states[s];
            if let (Some(TALK), Modifier::Machine(conv)) = (code_name(module, st), &st.modifier) {
                for c in hosted_closure(module, *conv) {
                    for &t in &module.machines[c].states {
                        let tt = &module.states[t];
                        if code_name(module, tt) == Some(TRANSACTION)
                            && let Modifier::Text(text) = &tt.modifier
                            && let Ok(t) = transaction::parse(text)
                            && t.direction == Direction::Take
                        {
                            out.insert(t.variable.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

/// The variables a state needs bound when it is entered, and what they are for.
fn needs(module: &Module, state: &State) -> Vec<(String, Need)> {
    let Modifier::Text(text) = &state.modifier else {
        return Vec::new();
    };
    match code_name(module, state) {
        Some(DIALOG) => module
            .sentence_by_name(text)
            .map(|h| {
                module.sentences[h]
                    .variables
                    .iter()
                    .map(|v| (v.text.clone(), Need::Sentence))
                    .collect()
            })
            .unwrap_or_default(),
        Some(TRANSACTION) => transaction::parse(text)
            .map(|t| {
                t.slots()
                    .into_iter()
                    .map(|v| (v.to_string(), Need::Transaction))
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Need {
    Sentence,
    Transaction,
}

/// Own-side data flow inside one machine: the variables definitely bound on entry to each
/// reachable state, in breadth-first order from the initial state. `taken` is what the agent's
/// possible partners may take from it in a conversation ([`lost_inside`]).
fn flow(
    module: &Module,
    machine: Handle<Machine>,
    entry: &Vars,
    taken: &Vars,
) -> Vec<(Handle<State>, Vars)> {
    let m = &module.machines[machine];
    let Some(initial) = m.initial else {
        return Vec::new();
    };
    let mut order = vec![initial];
    let mut bound: HashMap<Handle<State>, Vars> = HashMap::from([(initial, entry.clone())]);
    let mut work = vec![initial];
    while let Some(s) = work.pop() {
        let st = &module.states[s];
        let lost = lost_inside(module, st, taken);
        for t in &st.transitions {
            let Some(target) = t.target else { continue };
            let mut out = bound[&s].clone();
            out.retain(|v| !lost.contains(v));
            apply(&mut out, None, &effect(module, st, &t.event.text));
            let merged = match bound.get(&target) {
                None => {
                    order.push(target);
                    out
                }
                Some(old) => intersect(old, &out),
            };
            if bound.get(&target) != Some(&merged) {
                bound.insert(target, merged);
                work.push(target);
            }
        }
    }
    order.into_iter().map(|s| (s, bound[&s].clone())).collect()
}

/// One side of a conversation in the product: its state, and whether it has spoken and now
/// waits for the partner's response.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Side {
    state: Handle<State>,
    waiting: bool,
}

/// A node of the product: both sides, and whether a `YourTurn` is on its way to each.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Node {
    a: Side,
    b: Side,
    turn_a: bool,
    turn_b: bool,
}

/// A step one side can take under the turn-taking protocol.
struct Step<'m> {
    /// The state it moves to along the named transition (`None`: it stays, and yields).
    to: Option<(Handle<State>, &'m str)>,
    consumes_turn: bool,
    yields_turn: bool,
}

fn steps<'m>(module: &'m Module, side: Side, my_turn: bool) -> Vec<Step<'m>> {
    let st = &module.states[side.state];
    let code = code_name(module, st);
    if st
        .code
        .is_some_and(|c| module.library[c].terminal != Terminal::No)
    {
        return Vec::new();
    }
    let has = |e: &str| st.transitions.iter().any(|t| t.event.text == e);
    let speaking = code.is_some_and(|c| SPEAKING.contains(&c));
    let yields = speaking && has("WaitForResponse") && !has("FinishStatement");
    // A game's own state (declared in a *.statelib.ron) may take part in turn-taking in ways
    // this model does not know: it may yield the turn at any moment (an over-approximation,
    // so the analysis stays sound).
    let foreign = st.code.is_some_and(|c| !module.library[c].standard);
    let mut out = Vec::new();
    if (yields && !side.waiting) || foreign {
        out.push(Step {
            to: None,
            consumes_turn: false,
            yields_turn: true,
        });
    }
    for t in &st.transitions {
        let Some(target) = t.target else { continue };
        let e = t.event.text.as_str();
        let (allowed, consumes) = if yields && e == "WaitForResponse" {
            (side.waiting && my_turn, true)
        } else if e == "YourTurn" {
            (my_turn, true)
        } else if speaking && e == "WaitForResponse" {
            (false, false) // has FinishStatement: it never waits
        } else {
            (true, false) // raised by its code, or by a message from elsewhere
        };
        if allowed {
            out.push(Step {
                to: Some((target, e)),
                consumes_turn: consumes,
                yields_turn: false,
            });
        }
    }
    out
}

/// Whether yielding the turn leaves the state waiting for the response (the sim library's
/// speaking states do; a game's own states are not modelled and keep going).
fn yields_and_waits(module: &Module, state: Handle<State>) -> bool {
    let st = &module.states[state];
    code_name(module, st).is_some_and(|c| SPEAKING.contains(&c))
}

/// What a conversation analysis found for side `a`: the variables available (its own and the
/// partner's) on every entry into each of its states.
type Available = HashMap<Handle<State>, Vars>;

/// The product analysis of two conversation machines (see the module docs). Returns, for each
/// state of `a` entered while the partner is still there, the variables available to it.
fn converse(
    module: &Module,
    a: Handle<Machine>,
    a_entry: &Vars,
    b: Handle<Machine>,
    b_entry: &Vars,
) -> Available {
    let (Some(ia), Some(ib)) = (module.machines[a].initial, module.machines[b].initial) else {
        return Available::new();
    };
    let start = Node {
        a: Side {
            state: ia,
            waiting: false,
        },
        b: Side {
            state: ib,
            waiting: false,
        },
        turn_a: false,
        turn_b: false,
    };
    // Successors of a node with the effect of the step; `true` when side `a` moved.
    // The lost set: what a machine hosted by the state left may have given away.
    type Succ = (Node, Effect, Vars, bool, Option<Handle<State>>);
    let successors = |n: &Node| -> Vec<Succ> {
        let mut out = Vec::new();
        for moving_a in [true, false] {
            let (me, my_turn) = if moving_a {
                (n.a, n.turn_a)
            } else {
                (n.b, n.turn_b)
            };
            for step in steps(module, me, my_turn) {
                let mut next = *n;
                let (side, mine, theirs) = if moving_a {
                    (&mut next.a, &mut next.turn_a, &mut next.turn_b)
                } else {
                    (&mut next.b, &mut next.turn_b, &mut next.turn_a)
                };
                if step.consumes_turn {
                    *mine = false;
                }
                if step.yields_turn {
                    *theirs = true;
                    side.waiting = yields_and_waits(module, side.state);
                }
                let (e, lost, entered) = match step.to {
                    Some((target, event)) => {
                        let left = &module.states[side.state];
                        // What the partner takes is a step of the partner here.
                        let lost = lost_inside(module, left, &Vars::new());
                        let e = effect(module, left, event);
                        *side = Side {
                            state: target,
                            waiting: false,
                        };
                        (e, lost, Some(target))
                    }
                    None => (Effect::default(), Vars::new(), None),
                };
                out.push((next, e, lost, moving_a, entered));
            }
        }
        out
    };
    // Per node: what `a` has, what `b` has, and what the two hold between them — a transaction
    // moves a variable from one to the other, so a branch that moved it and one that did not
    // both leave it in the conversation although neither side has it on both.
    let step = |(va, vb, vp): &(Vars, Vars, Vars), e: &Effect, lost: &Vars, moving_a: bool| {
        let (mut na, mut nb, mut np) = (va.clone(), vb.clone(), vp.clone());
        let (own, other) = if moving_a {
            (&mut na, &mut nb)
        } else {
            (&mut nb, &mut na)
        };
        own.retain(|v| !lost.contains(v));
        np.retain(|v| !lost.contains(v));
        apply(own, Some(other), e);
        np.extend(e.own_gain.iter().chain(&e.other_gain).cloned());
        (na, nb, np)
    };
    let pooled: Vars = a_entry.union(b_entry).cloned().collect();
    let mut values: HashMap<Node, (Vars, Vars, Vars)> =
        HashMap::from([(start, (a_entry.clone(), b_entry.clone(), pooled.clone()))]);
    let mut work = vec![start];
    while let Some(n) = work.pop() {
        let here = values[&n].clone();
        for (next, e, lost, moving_a, _) in successors(&n) {
            let (na, nb, np) = step(&here, &e, &lost, moving_a);
            let merged = match values.get(&next) {
                None => (na, nb, np),
                Some((oa, ob, op)) => (intersect(oa, &na), intersect(ob, &nb), intersect(op, &np)),
            };
            if values.get(&next) != Some(&merged) {
                values.insert(next, merged);
                work.push(next);
            }
        }
    }
    // Every entry of a state of `a`: the start, and every step of `a` into a state. A line
    // reads its agent's variables, then the partner's: whatever the pair holds.
    let mut available = Available::new();
    let mut note = |s: Handle<State>, vars: Vars| {
        let v = match available.remove(&s) {
            Some(old) => intersect(&old, &vars),
            None => vars,
        };
        available.insert(s, v);
    };
    note(ia, pooled);
    for (n, here) in &values {
        for (next, e, lost, moving_a, entered) in successors(n) {
            if let (true, Some(s)) = (moving_a, entered) {
                let (na, nb, np) = step(here, &e, &lost, true);
                debug_assert_eq!(next.a.state, s);
                note(s, np.union(&na).chain(&nb).cloned().collect());
            }
        }
    }
    available
}

/// Agent names the `RequestConversation` states of an agent's machines ask for.
fn requested(module: &Module, root: Handle<Machine>) -> Vec<String> {
    let mut out = Vec::new();
    for m in hosted_closure(module, root) {
        for &s in &module.machines[m].states {
            let st = &module.states[s];
            if code_name(module, st) == Some(REQUEST)
                && let Modifier::Agent(a) = &st.modifier
            {
                out.push(a.clone());
            }
        }
    }
    out
}

/// The agents that may hold a conversation with agent `i`.
fn partners(module: &Module, scene: &Scene, i: usize) -> BTreeSet<usize> {
    let me = &scene.agents[i].name.text;
    let mut partners = BTreeSet::new();
    if let Some(root) = scene.agents[i].machine {
        for name in requested(module, root) {
            partners.extend(scene.agents.iter().position(|a| a.name.text == name));
        }
    }
    for (j, other) in scene.agents.iter().enumerate() {
        if let Some(root) = other.machine
            && requested(module, root).iter().any(|n| n == me)
        {
            partners.insert(j);
        }
    }
    partners.remove(&i);
    partners
}

/// A conversation an agent can enter: the machine its `TalkStateMachine` hosts, and what the
/// agent definitely has when it starts.
#[derive(Clone)]
struct Conversation {
    machine: Handle<Machine>,
    entry: Vars,
}

/// Every conversation an agent's machines can start (own data flow only; `taken` as in
/// [`flow`]).
fn conversations(
    module: &Module,
    root: Handle<Machine>,
    entry: &Vars,
    taken: &Vars,
) -> Vec<Conversation> {
    fn go(
        module: &Module,
        machine: Handle<Machine>,
        entry: &Vars,
        taken: &Vars,
        stack: &mut Vec<Handle<Machine>>,
        out: &mut Vec<Conversation>,
    ) {
        if stack.contains(&machine) {
            return;
        }
        stack.push(machine);
        for (s, vars) in flow(module, machine, entry, taken) {
            let st = &module.states[s];
            if let Modifier::Machine(child) = st.modifier {
                if code_name(module, st) == Some(TALK) {
                    out.push(Conversation {
                        machine: child,
                        entry: vars,
                    });
                } else {
                    go(module, child, &vars, taken, stack, out);
                }
            }
        }
        stack.pop();
    }
    let mut out = Vec::new();
    go(module, root, entry, taken, &mut Vec::new(), &mut out);
    out
}

/// A state that may be entered without a variable it needs.
struct Missing {
    state: Handle<State>,
    var: String,
    need: Need,
    why: String,
}

struct Checker<'a> {
    module: &'a Module,
    scene: &'a str,
    agent: &'a str,
    /// The conversations each possible partner can start.
    partners: Vec<(&'a str, Vec<Conversation>)>,
    /// What those partners' conversations may take from the agent.
    taken: Vars,
    stack: Vec<Handle<Machine>>,
    missing: &'a mut Vec<Missing>,
    reported: &'a mut HashSet<(Handle<State>, String)>,
}

impl Checker<'_> {
    fn require(&mut self, s: Handle<State>, available: &Vars, partner: Option<&str>) {
        for (var, need) in needs(self.module, &self.module.states[s]) {
            if available.contains(&var) || !self.reported.insert((s, var.clone())) {
                continue;
            }
            let with = match partner {
                Some(p) => format!(" (talking with `{p}`)"),
                None => String::new(),
            };
            self.missing.push(Missing {
                state: s,
                why: format!(
                    "agent `{}` of scene `{}`{with} can reach it without a value for `{var}`",
                    self.agent, self.scene
                ),
                var,
                need,
            });
        }
    }

    /// Checks a machine the agent runs, entered with `entry` (own data flow).
    fn walk(&mut self, machine: Handle<Machine>, entry: &Vars) {
        if self.stack.contains(&machine) {
            return; // hosting cycle: reported as recursive-machine
        }
        self.stack.push(machine);
        let module = self.module;
        for (s, vars) in flow(module, machine, entry, &self.taken) {
            self.require(s, &vars, None);
            let st = &module.states[s];
            if let Modifier::Machine(child) = st.modifier {
                if code_name(module, st) == Some(TALK) && !self.partners.is_empty() {
                    self.talk(child, &vars);
                } else {
                    self.walk(child, &vars);
                }
            }
        }
        self.stack.pop();
    }

    /// Checks a conversation machine against every conversation of every possible partner.
    fn talk(&mut self, machine: Handle<Machine>, entry: &Vars) {
        if self.stack.contains(&machine) {
            return;
        }
        self.stack.push(machine);
        let partners = std::mem::take(&mut self.partners);
        let module = self.module;
        for (partner, convs) in &partners {
            for conv in convs {
                let available = converse(module, machine, entry, conv.machine, &conv.entry);
                let mut states: Vec<_> = available.into_iter().collect();
                states.sort_by_key(|(s, _)| s.index());
                for (s, vars) in states {
                    self.require(s, &vars, Some(partner));
                    if let Modifier::Machine(child) = module.states[s].modifier {
                        self.walk(child, &vars);
                    }
                }
            }
        }
        self.partners = partners;
        self.stack.pop();
    }
}

pub fn check_bindings(module: &Module, diags: &mut Diagnostics) {
    let mut missing = Vec::new();
    let mut reported = HashSet::new();
    for (_, scene) in module.scenes.iter() {
        let env: Vec<Vars> = scene
            .agents
            .iter()
            .map(|a| a.variables.iter().map(|(n, _)| n.text.clone()).collect())
            .collect();
        let partner_sets: Vec<BTreeSet<usize>> = (0..scene.agents.len())
            .map(|i| partners(module, scene, i))
            .collect();
        let takes: Vec<Vars> = scene
            .agents
            .iter()
            .map(|a| {
                a.machine
                    .map(|root| takes(module, root))
                    .unwrap_or_default()
            })
            .collect();
        // What agent i's possible partners may take from it.
        let taken: Vec<Vars> = partner_sets
            .iter()
            .map(|js| js.iter().flat_map(|j| takes[*j].iter().cloned()).collect())
            .collect();
        let convs: Vec<Vec<Conversation>> = scene
            .agents
            .iter()
            .zip(&env)
            .zip(&taken)
            .map(|((a, vars), taken)| match a.machine {
                Some(root) => conversations(module, root, vars, taken),
                None => Vec::new(),
            })
            .collect();
        for (i, agent) in scene.agents.iter().enumerate() {
            let Some(root) = agent.machine else { continue };
            let partners = partner_sets[i]
                .iter()
                .map(|&j| (scene.agents[j].name.text.as_str(), convs[j].clone()))
                .filter(|(_, c)| !c.is_empty())
                .collect();
            Checker {
                module,
                scene: &scene.name.text,
                agent: &agent.name.text,
                partners,
                taken: taken[i].clone(),
                stack: Vec::new(),
                missing: &mut missing,
                reported: &mut reported,
            }
            .walk(root, &env[i]);
        }
    }
    for m in missing {
        let st = &module.states[m.state];
        let machine = &module.machines[st.machine].name.text;
        let Modifier::Text(text) = &st.modifier else {
            continue;
        };
        let var = &m.var;
        let (message, label) = match m.need {
            Need::Sentence => (
                format!(
                    "`VARIABLE {var}` of sentence state `{text}` is not bound on every path into dialog state `{}` of machine `{machine}`",
                    st.name.text
                ),
                "spoken here",
            ),
            Need::Transaction => (
                format!(
                    "`{{{var}}}` in transaction `{}` of machine `{machine}` is not bound on every path into it",
                    st.name.text
                ),
                "used here",
            ),
        };
        let mut d = Diagnostic::error(Code::UnboundSentenceVariable, message)
            .at(st.modifier_span.unwrap_or(st.name.span), label)
            .note(m.why)
            .note(format!(
                "bind it in the scene (`variables: {{\"{var}\": \"...\"}}` on the agent or its conversation partner), with a `Set` state (`{var} = ...`) or a transaction on every path before this state, or test it with a `Has` state"
            ));
        if m.need == Need::Sentence
            && let Some(h) = module.sentence_by_name(text)
            && let Some(v) = module.sentences[h]
                .variables
                .iter()
                .find(|v| v.text == *var)
        {
            d = d.related(v.span, "the variable is declared here");
        }
        diags.push(d);
    }
}
