//! Coverage: which machine states, script rules, sentence candidate lines, HMM states and
//! planning actions any run reached, and which none did.
//!
//! Reached means: a state was entered (`enter`), a rule fired (the smart locations count
//! firings; the trace has no event for a rule without an action), a candidate line was said
//! (`say` with its id), an HMM state was its space's most believed state after some
//! iteration, a planning action was started (`act` with its ground name, by an agent whose
//! last `plan` or `replan` was for the action's problem: problems may share action names).

use ensemble_runtime::Program;
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_sim::Simulation;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// What one run (or several, merged) reached, by names and ids.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reached {
    /// (machine, state) entered.
    pub states: BTreeSet<(Arc<str>, Arc<str>)>,
    /// (script index, rule index) fired.
    pub rules: BTreeSet<(u32, u32)>,
    /// Candidate ids said.
    pub candidates: BTreeSet<u32>,
    /// (space, state) most believed after some iteration.
    pub hmm_states: BTreeSet<(Arc<str>, Arc<str>)>,
    /// (problem, ground action) started by an agent planning for that problem.
    pub actions: BTreeSet<(Arc<str>, Arc<str>)>,
}

impl Reached {
    pub fn note_trace(&mut self, trace: &[TraceEvent]) {
        // The problem each agent last planned for: its `act`s are that problem's actions (two
        // problems may share an action's name; script actions come from agents not planning).
        let mut planning: HashMap<Arc<str>, Arc<str>> = HashMap::new();
        for e in trace {
            match &e.kind {
                EventKind::Enter { machine, state, .. } => {
                    self.states.insert((machine.clone(), state.clone()));
                }
                EventKind::Plan { problem, .. } | EventKind::Replan { problem, .. } => {
                    if let Some(agent) = &e.agent {
                        planning.insert(agent.clone(), problem.clone());
                    }
                }
                EventKind::Act { action, .. } => {
                    if let Some(problem) = e.agent.as_ref().and_then(|a| planning.get(a)) {
                        self.actions.insert((problem.clone(), action.clone()));
                    }
                }
                _ => {}
            }
            if let Some(c) = super::run::candidate_said(e) {
                self.candidates.insert(c);
            }
        }
    }

    /// A conversation's most believed state of every space, now.
    pub fn note_beliefs(&mut self, sim: &Simulation) {
        for space in sim.beliefs() {
            let best = space
                .states
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(s, _)| s.clone());
            if let Some(state) = best {
                self.hmm_states.insert((space.space.clone(), state));
            }
        }
    }

    pub fn merge(&mut self, other: &Reached) {
        self.states.extend(other.states.iter().cloned());
        self.rules.extend(other.rules.iter().copied());
        self.candidates.extend(other.candidates.iter().copied());
        self.hmm_states.extend(other.hmm_states.iter().cloned());
        self.actions.extend(other.actions.iter().cloned());
    }
}

/// One kind of item and which of them were reached.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Section {
    /// `states`, `rules`, `lines`, `hmm_states`, `actions`.
    pub kind: &'static str,
    pub total: usize,
    pub reached: usize,
    /// Every item, in program order, with whether a run reached it.
    pub items: Vec<Item>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Item {
    /// How a designer names it: `Machine/State`, `script/state/rule`, `Sentence #id: line`,
    /// `space/state`, `problem: Action(args)`.
    pub name: String,
    pub reached: bool,
}

impl Section {
    fn new(kind: &'static str, items: Vec<Item>) -> Section {
        Section {
            kind,
            total: items.len(),
            reached: items.iter().filter(|i| i.reached).count(),
            items,
        }
    }

    pub fn never_reached(&self) -> impl Iterator<Item = &Item> {
        self.items.iter().filter(|i| !i.reached)
    }
}

/// The coverage report over `reached` (every run merged) of everything `program` has.
pub fn report(program: &Program, reached: &Reached) -> Vec<Section> {
    let name = |id| program.name(id);
    let states = program
        .states
        .iter()
        .map(|s| {
            let machine = name(program.machine(s.machine).name);
            Item {
                name: format!("{machine}/{}", name(s.name)),
                reached: reached
                    .states
                    .iter()
                    .any(|(m, st)| **m == *machine && **st == *name(s.name)),
            }
        })
        .collect();
    let mut rules = Vec::new();
    for (si, script) in program.scripts.iter().enumerate() {
        for state in &script.states {
            let first = state.first_rule as usize;
            for r in first..first + state.rule_count as usize {
                let Some(rule) = script.rules.get(r) else {
                    continue;
                };
                rules.push(Item {
                    name: format!(
                        "{}/{}/{}",
                        name(script.name),
                        name(state.name),
                        name(rule.name)
                    ),
                    reached: reached.rules.contains(&(si as u32, r as u32)),
                });
            }
        }
    }
    let mut lines = Vec::new();
    for sentence in &program.speech.sentences {
        let first = sentence.first_candidate as usize;
        let count = sentence.candidate_count as usize;
        for c in program.speech.candidates.iter().skip(first).take(count) {
            let text: String = c
                .parts
                .iter()
                .map(|p| match p {
                    ensemble_runtime::speech::Part::Text(t) => t.clone(),
                    ensemble_runtime::speech::Part::Slot(i) => sentence
                        .slots
                        .get(*i as usize)
                        .map(|s| format!("{{{}}}", name(*s)))
                        .unwrap_or_else(|| "{?}".into()),
                })
                .collect();
            lines.push(Item {
                name: format!("{} #{:08x}: {}", name(sentence.name), c.id, text.trim()),
                reached: reached.candidates.contains(&c.id),
            });
        }
    }
    let mut hmm_states = Vec::new();
    for space in &program.hpmm.spaces {
        let first = space.first_state as usize;
        for s in program
            .hpmm
            .states
            .iter()
            .skip(first)
            .take(space.state_count as usize)
        {
            hmm_states.push(Item {
                name: format!("{}/{}", name(space.name), name(s.name)),
                reached: reached
                    .hmm_states
                    .iter()
                    .any(|(sp, st)| **sp == *name(space.name) && **st == *name(s.name)),
            });
        }
    }
    let mut actions = Vec::new();
    for problem in &program.planning.problems {
        for op in &problem.task.operators {
            actions.push(Item {
                name: format!("{}: {}", name(problem.name), op.name),
                reached: reached
                    .actions
                    .iter()
                    .any(|(p, a)| **p == *name(problem.name) && **a == *op.name),
            });
        }
    }
    vec![
        Section::new("states", states),
        Section::new("rules", rules),
        Section::new("lines", lines),
        Section::new("hmm_states", hmm_states),
        Section::new("actions", actions),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(agent: &str, kind: EventKind) -> TraceEvent {
        TraceEvent {
            tick: 1,
            time: 0.1,
            agent: Some(agent.into()),
            kind,
        }
    }

    fn act(agent: &str, action: &str) -> TraceEvent {
        event(
            agent,
            EventKind::Act {
                action: action.into(),
                target: None,
            },
        )
    }

    #[test]
    fn a_planning_action_is_reached_for_the_problem_its_agent_plans_for_only() {
        let plan = |problem: &str| EventKind::Plan {
            problem: problem.into(),
            planner: "astar",
            actions: vec!["cook".into()],
            nodes: 3,
        };
        let mut reached = Reached::default();
        reached.note_trace(&[
            // A script action of the same name, by an agent that plans nothing.
            act("elder", "cook"),
            event("host", plan("DinnerDate")),
            act("host", "cook"),
            event("guest", plan("FunnyEvening")),
            act("guest", "wrap"),
        ]);
        let got: Vec<(&str, &str)> = reached.actions.iter().map(|(p, a)| (&**p, &**a)).collect();
        assert_eq!(got, [("DinnerDate", "cook"), ("FunnyEvening", "wrap")]);
    }
}
