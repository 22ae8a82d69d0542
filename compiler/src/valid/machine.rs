//! Checks on state machines: reachability, dead ends, events no code raises, and hosting cycles.

use crate::diag::{Code, Diagnostic, Diagnostics, suggest};
use crate::ir::{Handle, Machine, Modifier, Module, State};
use ensemble_runtime::hsm::{END_STATE_MACHINE, STATE_MACHINE_FAILED};
use ensemble_runtime::program::Terminal;
use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::Bfs;
use std::collections::HashMap;

/// The transition graph of one machine: nodes are its states.
fn state_graph(
    module: &Module,
    machine: &Machine,
) -> (
    DiGraph<Handle<State>, ()>,
    HashMap<Handle<State>, NodeIndex>,
) {
    let mut g = DiGraph::new();
    let nodes: HashMap<_, _> = machine.states.iter().map(|&s| (s, g.add_node(s))).collect();
    for &s in &machine.states {
        for t in &module.states[s].transitions {
            if let Some(target) = t.target {
                g.add_edge(nodes[&s], nodes[&target], ());
            }
        }
    }
    (g, nodes)
}

/// `unreachable-state`: states no path of transitions leads to from the initial state.
pub fn check_reachability(module: &Module, diags: &mut Diagnostics) {
    for (_, machine) in module.machines.iter() {
        let Some(initial) = machine.initial else {
            continue;
        };
        let (g, nodes) = state_graph(module, machine);
        let mut reached = vec![false; g.node_count()];
        let mut bfs = Bfs::new(&g, nodes[&initial]);
        while let Some(n) = bfs.next(&g) {
            reached[n.index()] = true;
        }
        // Transitions to no state, gathered once: scanning every transition again for each
        // unreachable state made this quadratic (250,000 duplicate states: minutes).
        let dangling: Vec<&crate::ir::Transition> = machine
            .states
            .iter()
            .flat_map(|&o| module.states[o].transitions.iter())
            .filter(|t| t.target.is_none())
            .collect();
        let mut misspellings: HashMap<&str, Vec<&crate::ir::Transition>> = HashMap::new();
        for &s in &machine.states {
            if !reached[nodes[&s].index()] {
                let state = &module.states[s];
                let mut d = Diagnostic::warning(
                    Code::UnreachableState,
                    format!(
                        "state `{}` of machine `{}` can never be entered",
                        state.name.text, machine.name.text
                    ),
                )
                .at(state.name.span, "no transition leads here")
                .related(module.states[initial].name.span, "the machine starts here");
                // The classic cause: a transition that names this state with a typo.
                let name = state.name.text.as_str();
                let found = misspellings.entry(name).or_insert_with(|| {
                    dangling
                        .iter()
                        .filter(|t| suggest(&t.target_name.text, [name]).is_some())
                        .copied()
                        .collect()
                });
                for t in found.iter() {
                    d = d.related(
                        t.target_name.span,
                        format!(
                            "`{}` looks like a misspelling of `{}`",
                            t.target_name.text, state.name.text
                        ),
                    );
                }
                diags.push(d);
            }
        }
    }
}

fn terminal(module: &Module, state: &State) -> Option<Terminal> {
    state.code.map(|c| module.library[c].terminal)
}

/// `dead-end-state`: an ordinary state with no way out; an agent entering it stays forever.
pub fn check_dead_ends(module: &Module, diags: &mut Diagnostics) {
    for (_, state) in module.states.iter() {
        if state.code.is_none()
            || terminal(module, state) != Some(Terminal::No)
            || !state.transitions.is_empty()
        {
            continue;
        }
        let machine = &module.machines[state.machine];
        diags.push(
            Diagnostic::warning(
                Code::DeadEndState,
                format!("state `{}` of machine `{}` has no transitions: an agent that enters it stays there", state.name.text, machine.name.text),
            )
            .at(state.name.span, "dead end")
            .note("add a transition, or end the machine with a `Finish` (or `Fail`) state"),
        );
    }
}

/// `unknown-event`: a transition on an event its state's code never raises. It can still fire if
/// a message of that name arrives, so this is a warning — unless it is one slip from an event
/// the code does raise: then it is a typo, an error with the fix.
pub fn check_events(module: &Module, diags: &mut Diagnostics) {
    for (_, state) in module.states.iter() {
        let Some(code) = state.code else { continue };
        let lib = &module.library[code];
        let Some(raises) = &lib.raises else { continue };
        let hosts = matches!(state.modifier, Modifier::Machine(_));
        for t in &state.transitions {
            let e = t.event.text.as_str();
            if raises.iter().any(|r| r == e)
                || (hosts && (e == END_STATE_MACHINE || e == STATE_MACHINE_FAILED))
                || notified(module, e)
                || requested(module, state.machine, e)
            {
                continue;
            }
            let list = if raises.is_empty() {
                "nothing".to_string()
            } else {
                raises.join(", ")
            };
            let message = format!(
                "library state `{}` never raises `{e}`: this transition of `{}` fires only if a message `{e}` arrives",
                lib.name, state.name.text
            );
            // One slip from an event the state does raise is a typo, not a message name: the
            // agent would wait for an event that never comes, so the build stops here.
            let d = match suggest(e, raises.iter().map(String::as_str)) {
                Some(s) => Diagnostic::error(Code::UnknownEvent, message)
                    .at(t.event.span, "misspelt event")
                    .note(format!("`{}` raises: {list}", lib.name))
                    .did_you_mean(e, s),
                None => Diagnostic::warning(Code::UnknownEvent, message)
                    .at(t.event.span, "never raised")
                    .note(format!("`{}` raises: {list}", lib.name)),
            };
            diags.push(d);
        }
    }
}

/// Whether `event` is the conversation request a `RequestConversation` state sends to an agent
/// that runs `machine` (as its root or below it): a patrolling guard's `Goto` that stops to talk
/// takes it though `Goto` never raises it.
fn requested(module: &Module, machine: Handle<Machine>, event: &str) -> bool {
    let request = ensemble_runtime::stdlib::REQUEST_CONVERSATION;
    if event != request {
        return false;
    }
    let asked: Vec<&str> = (module.states.iter())
        .filter(|(_, s)| s.code.is_some_and(|c| module.library[c].name == request))
        .filter_map(|(_, s)| match &s.modifier {
            Modifier::Agent(agent) => Some(agent.as_str()),
            _ => None,
        })
        .collect();
    module.scenes.iter().any(|(_, scene)| {
        scene.agents.iter().any(|a| {
            asked.contains(&a.name.text.as_str())
                && a.machine.is_some_and(|root| {
                    super::scene::hosted_closure(module, root).contains(&machine)
                })
        })
    })
}

/// Whether a smart location's notification emitter sends messages named `event` (agents in
/// reach receive them, so a transition on it is expected).
fn notified(module: &Module, event: &str) -> bool {
    module
        .smart_locations
        .iter()
        .any(|(_, l)| l.notifications.iter().any(|n| n.name.text == event))
}

/// `recursive-machine`: machines that host themselves, directly or through their children.
pub fn check_recursion(module: &Module, diags: &mut Diagnostics) {
    let mut g: DiGraph<Handle<Machine>, Handle<State>> = DiGraph::new();
    let nodes: HashMap<_, _> = module
        .machines
        .handles()
        .map(|m| (m, g.add_node(m)))
        .collect();
    for (s, state) in module.states.iter() {
        if let Modifier::Machine(child) = state.modifier {
            g.add_edge(nodes[&state.machine], nodes[&child], s);
        }
    }
    for scc in tarjan_scc(&g) {
        let cyclic = scc.len() > 1 || g.find_edge(scc[0], scc[0]).is_some();
        if !cyclic {
            continue;
        }
        let mut members: Vec<Handle<Machine>> = scc.iter().map(|n| g[*n]).collect();
        members.sort();
        let names: Vec<&str> = members
            .iter()
            .map(|m| module.machines[*m].name.text.as_str())
            .collect();
        // Point at every hosting state inside the cycle.
        let mut edges: Vec<Handle<State>> = g
            .edge_indices()
            .filter(|e| {
                let (a, b) = g.edge_endpoints(*e).expect("edge exists");
                scc.contains(&a) && scc.contains(&b)
            })
            .map(|e| g[e])
            .collect();
        edges.sort();
        let first = &module.states[edges[0]];
        let mut d = Diagnostic::error(
            Code::RecursiveMachine,
            format!(
                "machines host each other in a cycle: {} -> {}",
                names.join(" -> "),
                names[0]
            ),
        )
        .at(
            first.modifier_span.unwrap_or(first.name.span),
            "hosts a machine of the cycle",
        );
        for &e in &edges[1..] {
            let s = &module.states[e];
            d = d.related(
                s.modifier_span.unwrap_or(s.name.span),
                "also part of the cycle",
            );
        }
        diags.push(
            d.note("entering any of these states would start the machines again without end"),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::project::{Overlay, load_with};
    use std::path::Path;

    /// The airport with `machine`'s `Goto1` also leaving on a conversation request: the
    /// `unknown-event` warnings the build then gives.
    fn request_on_goto(machine: &str) -> Vec<String> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport");
        let file = format!("machines/{machine}.machine.ron");
        let text = std::fs::read_to_string(root.join(&file)).unwrap();
        let from = "on: [(\"ReachedLocation\", ";
        assert!(text.contains(from), "{file}");
        let mut overlay = Overlay::default();
        let to = "on: [(\"RequestConversation\", \"Goto1\"), (\"ReachedLocation\", ";
        overlay.set(file, text.replacen(from, to, 1));
        let compiled = crate::compile(load_with(&root, &overlay).unwrap());
        (compiled.diagnostics.iter())
            .filter(|d| d.code == crate::diag::Code::UnknownEvent)
            .map(|d| d.message.clone())
            .collect()
    }

    #[test]
    fn a_state_of_an_agent_others_ask_for_a_conversation_takes_the_request_without_a_warning() {
        // The seller is asked (the buyers' RequestConversation names it): its Goto1 may stop
        // for the request, though Goto never raises it.
        assert_eq!(request_on_goto("StandSellTicket"), Vec::<String>::new());
        // Nobody asks a buyer: the same transition there is never taken, and says so.
        let buyer = request_on_goto("BuyTicketAtCounter");
        assert!(
            buyer
                .iter()
                .any(|m| m.contains("never raises `RequestConversation`")),
            "{buyer:?}"
        );
    }
}
