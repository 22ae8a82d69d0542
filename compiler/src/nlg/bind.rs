//! `unbound-sentence-variable`: every `VARIABLE` of a sentence state must have a value on every
//! path into each dialog state that speaks it.
//!
//! At run time a dialog state fills a slot from its agent's variables, then from its
//! conversation partner's. Variables come from the scene (`variables:` of an agent) and from
//! `Set` states. The check is a "definitely bound" data-flow analysis, per scene and agent:
//! - the agent's root machine starts with the agent's scene variables;
//! - inside a machine, a state's variables are the intersection over every transition into it
//!   (the initial state also gets its machine's entry set), plus what a `Set` state binds for
//!   the states after it;
//! - a hosted machine starts with its host state's variables; a machine hosted by
//!   `TalkStateMachine` also gets the variables every possible partner has from the scene
//!   (partners: the agents this agent's `RequestConversation` states name, and the agents whose
//!   `RequestConversation` states name this one).
//!
//! Machines no scene runs are not checked.

use super::check::{DIALOG, SET, code_name, set_variable};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Handle, Machine, Modifier, Module, Scene, State};
use std::collections::{BTreeSet, HashMap, HashSet};

type Vars = BTreeSet<String>;

const TALK: &str = "TalkStateMachine";
const REQUEST: &str = "RequestConversation";

/// Machines reachable from `root` by hosting.
fn closure(module: &Module, root: Handle<Machine>) -> Vec<Handle<Machine>> {
    let mut seen = vec![root];
    let mut i = 0;
    while i < seen.len() {
        for &s in &module.machines[seen[i]].states {
            if let Modifier::Machine(c) = module.states[s].modifier
                && !seen.contains(&c)
            {
                seen.push(c);
            }
        }
        i += 1;
    }
    seen
}

/// Agent names the `RequestConversation` states of an agent's machines ask for.
fn requested(module: &Module, root: Handle<Machine>) -> Vec<String> {
    let mut out = Vec::new();
    for m in closure(module, root) {
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

/// Variables every possible partner of agent `i` starts with (`None`: no partner).
fn partner_vars(module: &Module, scene: &Scene, env: &[Vars], i: usize) -> Option<Vars> {
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
    partners
        .into_iter()
        .map(|j| env[j].clone())
        .reduce(|a, b| a.intersection(&b).cloned().collect())
}

/// What a problem was found in, for the message.
struct Context<'a> {
    scene: &'a str,
    agent: &'a str,
}

struct Walker<'a> {
    module: &'a Module,
    partner: Option<Vars>,
    stack: Vec<Handle<Machine>>,
    /// (dialog state, variable) -> where it was first found unbound.
    missing: &'a mut Vec<(Handle<State>, String, String)>,
    reported: &'a mut HashSet<(Handle<State>, String)>,
    context: Context<'a>,
}

impl Walker<'_> {
    fn walk(&mut self, machine: Handle<Machine>, entry: Vars) {
        if self.stack.contains(&machine) {
            return; // hosting cycle: reported as recursive-machine
        }
        self.stack.push(machine);
        let module = self.module;
        let m = &module.machines[machine];
        let Some(initial) = m.initial else {
            self.stack.pop();
            return;
        };
        // Predecessors within the machine.
        let mut preds: HashMap<Handle<State>, Vec<Handle<State>>> = HashMap::new();
        for &s in &m.states {
            for t in &module.states[s].transitions {
                if let Some(target) = t.target {
                    preds.entry(target).or_default().push(s);
                }
            }
        }
        // Reachable states, in BFS order.
        let mut order = vec![initial];
        let mut i = 0;
        while i < order.len() {
            for t in &module.states[order[i]].transitions {
                if let Some(target) = t.target
                    && !order.contains(&target)
                {
                    order.push(target);
                }
            }
            i += 1;
        }
        let binds = |s: Handle<State>| -> Option<String> {
            let st = &module.states[s];
            match (&st.modifier, code_name(module, st)) {
                (Modifier::Text(t), Some(SET)) => set_variable(t).map(str::to_string),
                _ => None,
            }
        };
        // `None` is "everything" (not yet constrained).
        let mut bound_in: HashMap<Handle<State>, Option<Vars>> =
            order.iter().map(|&s| (s, None)).collect();
        loop {
            let mut changed = false;
            for &s in &order {
                let mut acc: Option<Vars> = (s == initial).then(|| entry.clone());
                for p in preds.get(&s).into_iter().flatten() {
                    let Some(Some(pin)) = bound_in.get(p) else {
                        continue; // unreachable or still "everything"
                    };
                    let mut out = pin.clone();
                    out.extend(binds(*p));
                    acc = Some(match acc {
                        None => out,
                        Some(a) => a.intersection(&out).cloned().collect(),
                    });
                }
                if acc.is_some() && bound_in[&s] != acc {
                    bound_in.insert(s, acc);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        for &s in &order {
            let vars = bound_in[&s].clone().unwrap_or_default();
            let st = &module.states[s];
            match (&st.modifier, code_name(module, st)) {
                (Modifier::Text(name), Some(DIALOG)) => {
                    let Some(sentence) = module.sentence_by_name(name) else {
                        continue;
                    };
                    for v in &module.sentences[sentence].variables {
                        if !vars.contains(&v.text) && self.reported.insert((s, v.text.clone())) {
                            self.missing.push((
                                s,
                                v.text.clone(),
                                format!(
                                    "agent `{}` of scene `{}` can reach it without a value for `{}`",
                                    self.context.agent, self.context.scene, v.text
                                ),
                            ));
                        }
                    }
                }
                (Modifier::Machine(child), code) => {
                    let mut child_entry = vars.clone();
                    if code == Some(TALK)
                        && let Some(p) = &self.partner
                    {
                        child_entry.extend(p.iter().cloned());
                    }
                    self.walk(*child, child_entry);
                }
                _ => {}
            }
        }
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
        for (i, agent) in scene.agents.iter().enumerate() {
            let Some(root) = agent.machine else { continue };
            let mut w = Walker {
                module,
                partner: partner_vars(module, scene, &env, i),
                stack: Vec::new(),
                missing: &mut missing,
                reported: &mut reported,
                context: Context {
                    scene: &scene.name.text,
                    agent: &agent.name.text,
                },
            };
            w.walk(root, env[i].clone());
        }
    }
    for (s, var, why) in missing {
        let st = &module.states[s];
        let machine = &module.machines[st.machine].name.text;
        let Modifier::Text(sentence) = &st.modifier else {
            continue;
        };
        let mut d = Diagnostic::error(
            Code::UnboundSentenceVariable,
            format!(
                "`VARIABLE {var}` of sentence state `{sentence}` is not bound on every path into dialog state `{}` of machine `{machine}`",
                st.name.text
            ),
        )
        .at(st.modifier_span.unwrap_or(st.name.span), "spoken here")
        .note(why)
        .note(format!(
            "bind it in the scene (`variables: {{\"{var}\": \"...\"}}` on the agent or its conversation partner) or with a `Set` state (`{var} = ...`) on every path before this state"
        ));
        if let Some(h) = module.sentence_by_name(sentence)
            && let Some(v) = module.sentences[h].variables.iter().find(|v| v.text == var)
        {
            d = d.related(v.span, "the variable is declared here");
        }
        diags.push(d);
    }
}
