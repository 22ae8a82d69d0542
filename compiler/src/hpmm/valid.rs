//! Checks on HMM spaces that need the whole module (after name resolution): normalised
//! transition rows, reachability, the wiring of model dependencies, actions that would repeat,
//! and cycles among estimators, categories, templates and accumulators.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::hpmm::*;
use crate::ir::{Handle, Module};
use ensemble_runtime::hpmm::model::Speaker;
use std::collections::HashSet;

/// How far a transition row may sum from 1.
pub const ROW_TOLERANCE: f64 = 1e-6;

pub fn validate(module: &Module, diags: &mut Diagnostics) {
    for (h, _) in module.spaces.iter() {
        rows(module, h, diags);
        reachability(module, h, diags);
        dependency_wiring(module, h, diags);
        repeating_actions(module, h, diags);
    }
    definition_cycles(module, diags);
    template_holes(module, diags);
    tally_reads(module, diags);
    tracker_evidence(module, diags);
    arbitration_reach(module, diags);
}

/// `never-arbitrated`: a space with actions, or an accumulator, from which no conversation's
/// output can be reached through the arbitration network. What it proposes is never chosen, so
/// that space never answers — most often an input left out of an accumulator's list. Spaces
/// without actions (monitors, controllers read by inspection) need not be inputs.
fn arbitration_reach(module: &Module, diags: &mut Diagnostics) {
    let sinks: Vec<Handle<Accumulator>> = module
        .chats
        .iter()
        .filter_map(|(_, c)| c.output.target)
        .collect();
    // Without a conversation (or with an unresolved output, already reported) there is no
    // output to reach.
    if sinks.is_empty() || module.chats.iter().any(|(_, c)| c.output.target.is_none()) {
        return;
    }
    let mut spaces: HashSet<Handle<Space>> = HashSet::new();
    let mut accumulators: HashSet<Handle<Accumulator>> = HashSet::new();
    let mut stack = sinks.clone();
    while let Some(a) = stack.pop() {
        if !accumulators.insert(a) {
            continue;
        }
        for (_, input) in &module.accumulators[a].inputs {
            match input {
                Some(ArbitrationInput::Space(s)) => {
                    spaces.insert(*s);
                }
                Some(ArbitrationInput::Accumulator(x)) => stack.push(*x),
                None => {}
            }
        }
    }
    let outputs: Vec<&str> = sinks
        .iter()
        .map(|&a| module.accumulators[a].name.text.as_str())
        .collect();
    let outputs = outputs
        .iter()
        .map(|o| format!("`{o}`"))
        .collect::<Vec<_>>()
        .join(", ");
    for (h, sp) in module.spaces.iter() {
        if spaces.contains(&h) {
            continue;
        }
        let Some(acting) = sp
            .states
            .iter()
            .map(|&s| &module.space_states[s])
            .find(|st| st.action.is_some())
        else {
            continue;
        };
        diags.push(
            Diagnostic::error(
                Code::NeverArbitrated,
                format!(
                    "space `{}` has actions but is not an input of the arbitration network that ends in {outputs}: it never answers",
                    sp.name.text
                ),
            )
            .at(sp.name.span, "never arbitrated")
            .related(acting.name.span, "this state's action is never chosen")
            .note(format!(
                "add `{}` to the inputs of an accumulator that leads to {outputs}",
                sp.name.text
            )),
        );
    }
    for (h, acc) in module.accumulators.iter() {
        if accumulators.contains(&h) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                Code::NeverArbitrated,
                format!(
                    "accumulator `{}` is not an input of the arbitration network that ends in {outputs}: what it chooses is never said",
                    acc.name.text
                ),
            )
            .at(acc.name.span, "never arbitrated")
            .note(format!(
                "add `{}` to the inputs of an accumulator that leads to {outputs}, or name it as the conversation's output",
                acc.name.text
            )),
        );
    }
}

/// Successors of a state with their probabilities (the implicit self-loop when it has none).
pub fn successors(module: &Module, s: Handle<SpaceState>) -> Vec<(Handle<SpaceState>, f64)> {
    let st = &module.space_states[s];
    if st.to.is_empty() {
        return vec![(s, 1.0)];
    }
    st.to
        .iter()
        .filter_map(|e| e.target.target.map(|t| (t, e.p)))
        .collect()
}

fn rows(module: &Module, space: Handle<Space>, diags: &mut Diagnostics) {
    let sp = &module.spaces[space];
    for &s in &sp.states {
        let st = &module.space_states[s];
        if st.to.is_empty() {
            continue;
        }
        let sum: f64 = st.to.iter().map(|e| e.p).sum();
        if (sum - 1.0).abs() > ROW_TOLERANCE || !sum.is_finite() {
            let terms: Vec<String> = st
                .to
                .iter()
                .map(|e| format!("{} → {}", e.p, e.target.name.text))
                .collect();
            diags.push(
                Diagnostic::error(
                    Code::TransitionNotNormalized,
                    format!(
                        "the transitions of state `{}` in space `{}` sum to {sum}, not 1",
                        st.name.text, sp.name.text
                    ),
                )
                .at(st.to_span, format!("sums to {sum}"))
                .note(format!("p(s' | {}): {}", st.name.text, terms.join(", ")))
                .note(format!(
                    "every row of p must sum to 1 (within {ROW_TOLERANCE}); a state with no `to` stays where it is"
                )),
            );
        }
    }
}

/// The state belief starts in: the disable state when there is one.
fn start(sp: &Space) -> Option<Handle<SpaceState>> {
    sp.disable.or(sp.initial)
}

fn reachability(module: &Module, space: Handle<Space>, diags: &mut Diagnostics) {
    let sp = &module.spaces[space];
    let Some(start) = start(sp) else { return };
    let mut seen: HashSet<Handle<SpaceState>> = HashSet::new();
    let mut stack = vec![start];
    // The initial state is where engagement starts, even when belief starts disengaged.
    stack.extend(sp.initial);
    while let Some(s) = stack.pop() {
        if seen.insert(s) {
            stack.extend(
                successors(module, s)
                    .into_iter()
                    .filter(|(_, p)| *p > 0.0)
                    .map(|(t, _)| t),
            );
        }
    }
    for &s in &sp.states {
        if !seen.contains(&s) {
            let st = &module.space_states[s];
            diags.push(
                Diagnostic::warning(
                    Code::UnreachableState,
                    format!(
                        "no transition reaches state `{}` of space `{}`: it never gets belief",
                        st.name.text, sp.name.text
                    ),
                )
                .at(st.name.span, "unreachable")
                .note("add a transition into it with p > 0 from a reachable state"),
            );
        }
    }
}

fn dependency_wiring(module: &Module, space: Handle<Space>, diags: &mut Diagnostics) {
    let sp = &module.spaces[space];
    let (Some(disable), Some(initial)) = (sp.disable, sp.initial) else {
        return;
    };
    let name = |s: Handle<SpaceState>| module.space_states[s].name.text.as_str();
    let goes = |from: Handle<SpaceState>, to: Handle<SpaceState>| {
        successors(module, from)
            .iter()
            .any(|&(t, p)| t == to && p > 0.0)
    };
    if disable == initial {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!(
                    "space `{}`: the disable state cannot be the initial state",
                    sp.name.text
                ),
            )
            .at(module.space_states[disable].name.span, "both"),
        );
        return;
    }
    let mut missing = Vec::new();
    if !goes(disable, initial) {
        missing.push(format!("`{}` → `{}`", name(disable), name(initial)));
    }
    let stuck: Vec<&str> = sp
        .states
        .iter()
        .filter(|&&s| s != disable && !goes(s, disable))
        .map(|&s| name(s))
        .collect();
    if !stuck.is_empty() {
        missing.push(format!(
            "into `{}` from {}",
            name(disable),
            stuck.join(", ")
        ));
    }
    if !missing.is_empty() {
        diags.push(
            Diagnostic::warning(
                Code::IncompleteDependency,
                format!(
                    "the disable state `{}` of space `{}` is not fully wired: missing {}",
                    name(disable),
                    sp.name.text,
                    missing.join("; ")
                ),
            )
            .at(module.space_states[disable].name.span, "disable state")
            .note("a disable state needs a transition from every state (so the space can be disengaged anywhere) and one to the initial state (so it can be engaged again)"),
        );
    }
}

/// Whether an estimator expression responds to the agent's own performance of `action`.
fn hears_own(
    module: &Module,
    e: &Expr,
    action: Handle<Action>,
    seen: &mut HashSet<Handle<Estimator>>,
) -> bool {
    match e {
        Expr::Did(None) | Expr::Speaker(Speaker::Agent) => true,
        // A name that did not resolve (reported as unknown already, or its file unreadable)
        // may well be the one that hears it: no warning rests on it.
        Expr::Did(Some(r)) => r.target.is_none_or(|t| t == action),
        Expr::Invalid => true,
        Expr::Ev(r) => r.target.is_none_or(|h| {
            seen.insert(h) && hears_own(module, &module.estimators[h].expr, action, seen)
        }),
        Expr::And(xs) | Expr::Or(xs) | Expr::Max(xs) => {
            xs.iter().any(|x| hears_own(module, x, action, seen))
        }
        Expr::Scale(_, x) => hears_own(module, x, action, seen),
        _ => false,
    }
}

fn repeating_actions(module: &Module, space: Handle<Space>, diags: &mut Diagnostics) {
    let sp = &module.spaces[space];
    for &s in &sp.states {
        let st = &module.space_states[s];
        let Some(action) = st.action.as_ref().and_then(|a| a.target) else {
            continue;
        };
        let heard = successors(module, s).into_iter().any(|(t, p)| {
            t != s
                && p > 0.0
                && module.space_states[t].expects.iter().any(|e| {
                    e.weight > 0.0
                        && e.evidence.target.is_none_or(|h| {
                            hears_own(
                                module,
                                &module.estimators[h].expr,
                                action,
                                &mut HashSet::new(),
                            )
                        })
                })
        });
        if !heard {
            diags.push(
                Diagnostic::warning(
                    Code::RepeatingAction,
                    format!(
                        "state `{}` of space `{}` performs `{}`, but no successor expects the agent's own output: it would repeat itself",
                        st.name.text,
                        sp.name.text,
                        module.actions[action].name.text
                    ),
                )
                .at(st.name.span, "action state")
                .note("the output is fed back as the next input; add a successor state that expects it (an estimator using `Did(\"...\")`, `DidAny` or `Speaker(Agent)`)"),
            );
        }
    }
}

/// Depth-first search for cycles in a graph of `n` nodes; returns each cycle found once (as the
/// nodes on it, starting at the node that closes it).
fn cycles(n: usize, edges: impl Fn(usize) -> Vec<usize>) -> Vec<Vec<usize>> {
    let mut colour = vec![0u8; n];
    let mut found = Vec::new();
    let mut path = Vec::new();
    fn visit(
        v: usize,
        edges: &dyn Fn(usize) -> Vec<usize>,
        colour: &mut [u8],
        path: &mut Vec<usize>,
        found: &mut Vec<Vec<usize>>,
    ) {
        colour[v] = 1;
        path.push(v);
        for w in edges(v) {
            match colour[w] {
                0 => visit(w, edges, colour, path, found),
                1 => {
                    let at = path.iter().position(|&x| x == w).expect("on the path");
                    found.push(path[at..].to_vec());
                }
                _ => {}
            }
        }
        path.pop();
        colour[v] = 2;
    }
    for v in 0..n {
        if colour[v] == 0 {
            visit(v, &edges, &mut colour, &mut path, &mut found);
        }
    }
    found
}

fn expr_refs(e: &Expr, out: &mut Vec<usize>) {
    match e {
        Expr::Ev(r) => out.extend(r.target.map(|h| h.index())),
        Expr::And(xs) | Expr::Or(xs) | Expr::Max(xs) => xs.iter().for_each(|x| expr_refs(x, out)),
        Expr::Not(x) | Expr::Scale(_, x) => expr_refs(x, out),
        _ => {}
    }
}

fn chunk_refs(chunks: &[Chunk], out: &mut Vec<usize>) {
    for c in chunks {
        match c {
            Chunk::Template(t) => out.extend(t.target.map(|h| h.index())),
            Chunk::Choice(alts) => alts.iter().for_each(|a| chunk_refs(a, out)),
            _ => {}
        }
    }
}

fn definition_cycles(module: &Module, diags: &mut Diagnostics) {
    let estimators: Vec<&Estimator> = module.estimators.iter().map(|(_, e)| e).collect();
    for cycle in cycles(estimators.len(), |v| {
        let mut out = Vec::new();
        expr_refs(&estimators[v].expr, &mut out);
        out
    }) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&v| estimators[v].name.text.as_str())
            .collect();
        let mut d = Diagnostic::error(
            Code::DefinitionCycle,
            format!(
                "estimators are defined in terms of themselves: {} → {}",
                names.join(" → "),
                names[0]
            ),
        )
        .at(estimators[cycle[0]].span, "part of the cycle");
        for &v in &cycle[1..] {
            d = d.related(estimators[v].span, "part of the cycle");
        }
        diags.push(d);
    }
    let categories: Vec<&Category> = module.categories.iter().map(|(_, c)| c).collect();
    for cycle in cycles(categories.len(), |v| {
        let c = categories[v];
        c.union
            .iter()
            .chain(&c.intersect)
            .chain(&c.minus)
            .filter_map(|r| r.target.map(|h| h.index()))
            .collect()
    }) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&v| categories[v].name.text.as_str())
            .collect();
        diags.push(
            Diagnostic::error(
                Code::DefinitionCycle,
                format!(
                    "lexicon categories are defined in terms of themselves: {} → {}",
                    names.join(" → "),
                    names[0]
                ),
            )
            .at(categories[cycle[0]].name.span, "part of the cycle"),
        );
    }
    let templates: Vec<&Template> = module.templates.iter().map(|(_, t)| t).collect();
    for cycle in cycles(templates.len(), |v| {
        let mut out = Vec::new();
        templates[v]
            .variants
            .iter()
            .for_each(|c| chunk_refs(c, &mut out));
        out
    }) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&v| templates[v].name.text.as_str())
            .collect();
        diags.push(
            Diagnostic::error(
                Code::DefinitionCycle,
                format!(
                    "templates include themselves: {} → {}",
                    names.join(" → "),
                    names[0]
                ),
            )
            .at(templates[cycle[0]].name.span, "part of the cycle"),
        );
    }
    let accumulators: Vec<&Accumulator> = module.accumulators.iter().map(|(_, a)| a).collect();
    for cycle in cycles(accumulators.len(), |v| {
        accumulators[v]
            .inputs
            .iter()
            .filter_map(|(_, i)| match i {
                Some(ArbitrationInput::Accumulator(a)) => Some(a.index()),
                _ => None,
            })
            .collect()
    }) {
        let names: Vec<&str> = cycle
            .iter()
            .map(|&v| accumulators[v].name.text.as_str())
            .collect();
        let mut d = Diagnostic::error(
            Code::ArbitrationCycle,
            format!(
                "the arbitration network has a cycle: {} → {}",
                names.join(" ← "),
                names[0]
            ),
        )
        .at(accumulators[cycle[0]].name.span, "part of the cycle")
        .note("accumulators must form a directed acyclic graph ending in one sink");
        for &v in &cycle[1..] {
            d = d.related(accumulators[v].name.span, "part of the cycle");
        }
        diags.push(d);
    }
}

/// Whether an estimator (transitively) tests a situational variable: such evidence is only
/// known after the trackers ran.
pub fn tests_variables(module: &Module, e: &Expr, seen: &mut HashSet<Handle<Estimator>>) -> bool {
    match e {
        Expr::Var { .. } => true,
        Expr::Ev(r) => r.target.is_some_and(|h| {
            seen.insert(h) && tests_variables(module, &module.estimators[h].expr, seen)
        }),
        Expr::And(xs) | Expr::Or(xs) | Expr::Max(xs) => {
            xs.iter().any(|x| tests_variables(module, x, seen))
        }
        Expr::Not(x) | Expr::Scale(_, x) => tests_variables(module, x, seen),
        _ => false,
    }
}

fn tracker_evidence(module: &Module, diags: &mut Diagnostics) {
    for (_, v) in module.variables.iter() {
        for t in &v.trackers {
            let Some((r, _)) = &t.when else { continue };
            let Some(h) = r.target else { continue };
            if tests_variables(module, &module.estimators[h].expr, &mut HashSet::new()) {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "a tracker of `{}` waits for `{}`, which tests a variable: trackers run before such evidence is known",
                            v.name.text, r.name.text
                        ),
                    )
                    .at(r.name.span, "tests a variable"),
                );
            }
        }
    }
}

/// Whether `chunks` can render without reading a situational variable: every variable may be
/// unbound when the action is chosen, or bound to a concept without the property read.
fn renders_without_slots(module: &Module, chunks: &[Chunk], depth: usize) -> bool {
    // Cyclic templates are `definition-cycle`; do not follow them here.
    depth <= crate::hpmm::template::MAX_NESTING
        && chunks.iter().all(|c| match c {
            Chunk::Text(_) => true,
            Chunk::Var { .. } => false,
            Chunk::Choice(alternatives) => alternatives
                .iter()
                .any(|a| renders_without_slots(module, a, depth + 1)),
            Chunk::Template(r) => r.target.is_some_and(|t| {
                module.templates[t]
                    .variants
                    .iter()
                    .any(|v| renders_without_slots(module, v, depth + 1))
            }),
        })
}

/// `template-hole`: an action that speaks, every wording of which reads a situational variable.
/// The runtime skips a wording whose slot would come out empty ("what about ?"); with no
/// wording left the agent would say nothing, so one wording without a slot is required.
fn template_holes(module: &Module, diags: &mut Diagnostics) {
    for (_, a) in module.actions.iter() {
        if a.say.is_empty() || a.say.iter().any(|v| renders_without_slots(module, v, 0)) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                Code::TemplateHole,
                format!(
                    "action `{}` has no wording without a `{{variable}}` slot: when the variable is unbound, or its concept lacks the property, it would say nothing",
                    a.name.text
                ),
            )
            .at(a.name.span, "every `say` variant reads a variable")
            .note("add a variant without the slot (\"what about {the-topic}?\" -> also \"what you mean?\"); the runtime falls back to it whenever a slot would be empty"),
        );
    }
}

/// `invalid-value`: a template reads a tally as something other than what is on it (`{the-tab}`)
/// or its total (`{the-tab.total}`): a tally has no other property, so the slot would always
/// be empty.
fn tally_reads(module: &Module, diags: &mut Diagnostics) {
    fn walk<'a>(chunks: &'a [Chunk], out: &mut Vec<(&'a Ref<Variable>, &'a str)>) {
        for c in chunks {
            match c {
                Chunk::Var {
                    variable,
                    property: Some(p),
                } if !matches!(p.as_str(), "name" | "total") => out.push((variable, p)),
                Chunk::Choice(alternatives) => alternatives.iter().for_each(|a| walk(a, out)),
                _ => {}
            }
        }
    }
    let written = (module
        .actions
        .iter()
        .flat_map(|(_, a)| a.say.iter().zip(&a.written)))
    .chain(
        module
            .templates
            .iter()
            .flat_map(|(_, t)| t.variants.iter().zip(&t.written)),
    );
    for (chunks, w) in written {
        let mut reads = Vec::new();
        walk(chunks, &mut reads);
        for (v, property) in reads {
            if v.target
                .is_some_and(|v| module.variables[v].tally.is_some())
            {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("`{{{}.{property}}}` reads a tally, which has no `{property}`", v.name.text),
                    )
                    .at(w.span, "in this wording")
                    .note(format!("a tally says what is on it (`{{{0}}}`) and its total (`{{{0}.total}}`); docs/formats/concepts.md", v.name.text)),
                );
            }
        }
    }
}
