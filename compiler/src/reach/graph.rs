//! Distances in the machine graph: how many transitions lie between a state an agent is in and
//! the target state. Nodes are every state of the program; an edge is a transition, or a state
//! hosting a machine to that machine's initial state (the host stays active below its child,
//! so a child machine ending is the host's own transitions).

use ensemble_runtime::Program;
use ensemble_runtime::program::{Modifier, StateId};
use std::collections::VecDeque;

/// A distance for states from which the target cannot be reached in the graph (the search goes
/// on: a conversation partner or a smart location may still lead there in ways the graph does
/// not show).
pub const FAR: u32 = 10_000;

/// Transitions to the target from every state of the program.
#[derive(Clone, Debug)]
pub struct Distances {
    to: Vec<u32>,
}

impl Distances {
    /// Shortest paths (in transitions) from every state to any of `targets`.
    pub fn to(program: &Program, targets: &[StateId]) -> Distances {
        let n = program.states.len();
        // Reverse edges: for each state, the states with an edge into it.
        let mut into: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (i, s) in program.states.iter().enumerate() {
            for t in program.transitions_of(StateId(i as u32)) {
                into[t.target.index()].push(i as u32);
            }
            if let Modifier::Machine(m) = s.modifier {
                into[program.machine(m).initial.index()].push(i as u32);
            }
        }
        let mut to = vec![FAR; n];
        let mut queue = VecDeque::new();
        for t in targets {
            to[t.index()] = 0;
            queue.push_back(t.index());
        }
        while let Some(s) = queue.pop_front() {
            for &p in &into[s] {
                if to[p as usize] == FAR {
                    to[p as usize] = to[s] + 1;
                    queue.push_back(p as usize);
                }
            }
        }
        Distances { to }
    }

    /// The distance from `state` (FAR when no path is known).
    pub fn from(&self, state: StateId) -> u32 {
        self.to.get(state.index()).copied().unwrap_or(FAR)
    }

    /// The shortest distance from any of `states` (an agent's active stack).
    pub fn nearest(&self, states: &[StateId]) -> u32 {
        states.iter().map(|s| self.from(*s)).min().unwrap_or(FAR)
    }
}

/// Whether `target` can be entered at all: a path of transitions leads to it from its
/// machine's initial state. Only transitions move an agent between the states of one machine
/// (a content test's `StartIn` aside, which `reach` never uses), so `false` is a proof that no
/// seed, input or setup reaches it.
pub fn enterable(program: &Program, target: StateId) -> bool {
    let machine = program.machine(program.state(target).machine);
    let mut seen = vec![false; program.states.len()];
    let mut queue = VecDeque::from([machine.initial]);
    seen[machine.initial.index()] = true;
    while let Some(s) = queue.pop_front() {
        if s == target {
            return true;
        }
        for t in program.transitions_of(s) {
            if !seen[t.target.index()] {
                seen[t.target.index()] = true;
                queue.push_back(t.target);
            }
        }
    }
    false
}
