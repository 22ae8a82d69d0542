//! A machine as the diagram shows it: boxes with their texts, and arrows with their events.
//! Built from the IR without any egui, so what the view says about a machine is testable.
//!
//! Transitions between the same two states are merged into one arrow listing every event, and a
//! transition whose target did not resolve points at a "missing" box named as written, so a typo
//! is visible where it happened instead of silently dropping the arrow.

use crate::spans::Severities;
use ensemble_compiler::Compilation;
use ensemble_compiler::diag::Severity;
use ensemble_compiler::ir::{Handle, Machine, Modifier, Module, State};
use ensemble_runtime::program::Terminal;
use std::collections::HashMap;

/// Longest modifier shown inside a box; the tooltip has the whole text.
const MODIFIER_CHARS: usize = 30;

pub struct Node {
    /// `None` for the box standing in for a missing target.
    pub state: Option<Handle<State>>,
    pub title: String,
    /// `code · modifier`, shortened.
    pub subtitle: Option<String>,
    /// Longer explanations for the tooltip.
    pub details: Vec<String>,
    /// The machine this state hosts.
    pub child: Option<Handle<Machine>>,
    /// Ends the machine (`Finish`, `Fail`).
    pub is_final: bool,
    pub severity: Option<Severity>,
}

impl Node {
    pub fn is_missing(&self) -> bool {
        self.state.is_none()
    }
}

pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub events: Vec<String>,
    /// Goes to a missing state.
    pub broken: bool,
}

pub struct MachineGraph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// The initial state's node.
    pub root: Option<usize>,
}

/// The modifier as a designer would say it (`TicketCounterLocation`, `“Hello”`, `2.5`).
fn modifier_text(module: &Module, c: &Compilation, state: &State) -> Option<String> {
    Some(match &state.modifier {
        Modifier::None => return None,
        Modifier::Location(h) => module.locations[*h].name.text.clone(),
        Modifier::Machine(h) => module.machines[*h].name.text.clone(),
        Modifier::Agent(a) => a.clone(),
        Modifier::Text(t) => format!("“{t}”"),
        Modifier::Number(n) => n.to_string(),
        Modifier::Unresolved => {
            let written = state.modifier_span.map(|s| {
                let text = &c.sources.get(s.file).text;
                text.get(s.range())
                    .unwrap_or("")
                    .trim_matches('"')
                    .to_string()
            });
            format!("{}?", written.unwrap_or_default())
        }
    })
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let mut out: String = text.chars().take(max_chars - 1).collect();
    out.truncate(out.trim_end().len());
    out.push('…');
    out
}

fn state_node(c: &Compilation, severities: &Severities, handle: Handle<State>) -> Node {
    let module = &c.module;
    let state = &module.states[handle];
    let library = state.code.map(|h| &module.library[h]);
    let code = &state.code_name.text;
    let modifier = modifier_text(module, c, state);
    let subtitle = match &modifier {
        Some(m) => Some(format!("{code} · {}", shorten(m, MODIFIER_CHARS))),
        None if *code != state.name.text => Some(code.clone()),
        None => None,
    };
    let child = match state.modifier {
        Modifier::Machine(h) => Some(h),
        _ => None,
    };
    let mut details = Vec::new();
    match library {
        Some(l) if !l.doc.is_empty() => details.push(format!("{code}: {}", l.doc)),
        Some(_) => {}
        None => details.push(format!("{code}: not a known library state")),
    }
    if let Some(m) = modifier.filter(|m| m.chars().count() > MODIFIER_CHARS) {
        details.push(m);
    }
    if let Some(h) = child {
        details.push(format!(
            "Double-click to open {}.",
            module.machines[h].name.text
        ));
    }
    Node {
        state: Some(handle),
        title: state.name.text.clone(),
        subtitle,
        details,
        child,
        is_final: library.is_some_and(|l| l.terminal != Terminal::No),
        severity: severities.states.get(&handle).copied(),
    }
}

/// The diagram model of `machine`.
pub fn build(c: &Compilation, severities: &Severities, machine: Handle<Machine>) -> MachineGraph {
    let module = &c.module;
    let m = &module.machines[machine];
    let mut nodes: Vec<Node> = m
        .states
        .iter()
        .map(|&s| state_node(c, severities, s))
        .collect();
    let index: HashMap<Handle<State>, usize> =
        m.states.iter().enumerate().map(|(i, &s)| (s, i)).collect();

    let mut missing: HashMap<String, usize> = HashMap::new();
    let mut edges: Vec<Edge> = Vec::new();
    for (from, &s) in m.states.iter().enumerate() {
        for t in &module.states[s].transitions {
            let (to, broken) = match t.target.and_then(|h| index.get(&h)) {
                Some(&to) => (to, false),
                None => {
                    let name = &t.target_name.text;
                    let to = *missing.entry(name.clone()).or_insert_with(|| {
                        nodes.push(Node {
                            state: None,
                            title: name.clone(),
                            subtitle: Some("no such state".to_string()),
                            details: vec![format!("`{name}` is not a state of {}.", m.name.text)],
                            child: None,
                            is_final: false,
                            severity: Some(Severity::Error),
                        });
                        nodes.len() - 1
                    });
                    (to, true)
                }
            };
            match edges.iter_mut().find(|e| e.from == from && e.to == to) {
                Some(e) => e.events.push(t.event.text.clone()),
                None => edges.push(Edge {
                    from,
                    to,
                    events: vec![t.event.text.clone()],
                    broken,
                }),
            }
        }
    }
    let root = m.initial.and_then(|h| index.get(&h).copied());
    MachineGraph { nodes, edges, root }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn airport(sub: &str) -> Compilation {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../samples/airport")
            .join(sub);
        ensemble_compiler::compile_path(&path).expect("sample loads")
    }

    #[test]
    fn boxes_say_code_and_modifier() {
        let c = airport("");
        let g = build(
            &c,
            &Severities::of(&c),
            c.module.machine_by_name("StandSellTicket").unwrap(),
        );
        let goto = g.nodes.iter().find(|n| n.title == "Goto1").unwrap();
        assert_eq!(
            goto.subtitle.as_deref(),
            Some("Goto · TicketCounterLocation")
        );
        let talk = g
            .nodes
            .iter()
            .find(|n| n.title == "TalkStateMachine")
            .unwrap();
        assert_eq!(talk.child, c.module.machine_by_name("SellTicket"));
        assert_eq!(g.nodes[g.root.unwrap()].title, "Start");
        assert!(
            g.edges
                .iter()
                .any(|e| g.nodes[e.from].title == "FinishTalkState"
                    && g.nodes[e.to].title == "Goto1")
        );
    }

    #[test]
    fn long_text_modifiers_are_shortened() {
        // The broken sample keeps Fig. 3.6's states with literal `Say` lines.
        let c = airport("broken");
        let g = build(
            &c,
            &Severities::of(&c),
            c.module.machine_by_name("BuyTicket").unwrap(),
        );
        let leave = g.nodes.iter().find(|n| n.title == "LeaveAtY").unwrap();
        let sub = leave.subtitle.as_deref().unwrap();
        assert!(
            sub.starts_with("Say · “I would") && sub.ends_with('…'),
            "{sub}"
        );
        assert!(g.nodes.iter().any(|n| n.title == "Finish" && n.is_final));
    }

    #[test]
    fn a_dangling_transition_points_at_a_missing_box() {
        let c = airport("broken");
        let g = build(
            &c,
            &Severities::of(&c),
            c.module.machine_by_name("BuyTicket").unwrap(),
        );
        let ghost = g.nodes.iter().position(|n| n.is_missing()).unwrap();
        assert_eq!(g.nodes[ghost].title, "LeaveAtX");
        let edge = g.edges.iter().find(|e| e.to == ghost).unwrap();
        assert!(edge.broken && g.nodes[edge.from].title == "WantTicketToX");
        let severity = |name: &str| g.nodes.iter().find(|n| n.title == name).unwrap().severity;
        assert_eq!(severity("WantTicketToX"), Some(Severity::Error));
        assert_eq!(severity("LeaveAtY"), Some(Severity::Warning));
        assert_eq!(severity("Salutation"), None);
    }
}
