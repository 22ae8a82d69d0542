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

/// Distances in a script's state graph to the state a target rule belongs to: a participant's
/// state leads to the `next_state` of each of its rules. A rule fires from its own state, so a
/// participant there is 1 firing away, and an actor who has not joined one more.
#[derive(Clone, Debug)]
pub struct ScriptDistances {
    script: u32,
    /// Per script state: rules to fire before the target rule's state.
    to: Vec<u32>,
    initial: u16,
}

impl ScriptDistances {
    /// Distances to rule `rule` of script `script`.
    pub fn to(program: &Program, script: u32, rule: u32) -> Option<ScriptDistances> {
        let def = program.scripts.get(script as usize)?;
        let home = def
            .states
            .iter()
            .position(|s| (s.first_rule..s.first_rule + s.rule_count).contains(&rule))?;
        let n = def.states.len();
        let mut into: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, s) in def.states.iter().enumerate() {
            let rules = s.first_rule as usize..(s.first_rule + s.rule_count) as usize;
            for r in def.rules.get(rules).unwrap_or_default() {
                if let Some(next) = r.next_state.map(usize::from).filter(|&x| x < n) {
                    into[next].push(i);
                }
            }
        }
        let mut to = vec![FAR; n];
        to[home] = 0;
        let mut queue = VecDeque::from([home]);
        while let Some(s) = queue.pop_front() {
            for &p in &into[s] {
                if to[p] == FAR {
                    to[p] = to[s] + 1;
                    queue.push_back(p);
                }
            }
        }
        Some(ScriptDistances {
            script,
            to,
            initial: def.initial_state,
        })
    }

    /// The nearest any participant of a running instance of the script is (by their states'
    /// names), else an actor yet to join.
    pub fn nearest<'a>(
        &self,
        program: &Program,
        participant_states: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> u32 {
        let def = &program.scripts[self.script as usize];
        let name = program.name(def.name);
        let joined = participant_states
            .filter(|(script, _)| *script == name)
            .filter_map(|(_, state)| {
                def.states
                    .iter()
                    .position(|s| program.name(s.name) == state)
            })
            .map(|i| self.to[i].saturating_add(1))
            .min();
        let fresh = self.to[self.initial as usize].saturating_add(2);
        joined.map_or(fresh, |j| j.min(fresh)).min(FAR)
    }
}

/// Distances in the HMM spaces' graphs to target states: per space holding one, the
/// transitions (edges of positive probability) from each of its states to the nearest target
/// state. A conversation's search is guided by how far its belief is from them.
#[derive(Clone, Debug, Default)]
pub struct SpaceDistances {
    /// (space, [(state, distance)]), distances capped at the space's state count.
    spaces: Vec<(String, Vec<(String, u32)>)>,
}

impl SpaceDistances {
    /// Distances to `targets`, (space, state) by name.
    pub fn to(program: &Program, targets: &[(String, String)]) -> SpaceDistances {
        let m = &program.hpmm;
        let mut spaces = Vec::new();
        for space in &m.spaces {
            let name = program.name(space.name);
            let n = space.state_count as usize;
            let first = space.first_state as usize;
            let states: Vec<&str> = (first..first + n)
                .filter_map(|i| m.states.get(i))
                .map(|s| program.name(s.name))
                .collect();
            if states.len() != n || space.p.len() != n * n {
                continue;
            }
            let mut to = vec![n as u32; n];
            let mut queue = VecDeque::new();
            for (i, s) in states.iter().enumerate() {
                if targets.iter().any(|(sp, st)| sp == name && st == s) {
                    to[i] = 0;
                    queue.push_back(i);
                }
            }
            if queue.is_empty() {
                continue;
            }
            while let Some(j) = queue.pop_front() {
                for i in 0..n {
                    if i != j && space.p[i * n + j] > 0.0 && to[i] > to[j] + 1 {
                        to[i] = to[j] + 1;
                        queue.push_back(i);
                    }
                }
            }
            let named = states.iter().map(|s| s.to_string()).zip(to).collect();
            spaces.push((name.to_string(), named));
        }
        SpaceDistances { spaces }
    }

    pub fn is_empty(&self) -> bool {
        self.spaces.is_empty()
    }

    /// 1000 × the expected distance of the nearest space's belief to its target states:
    /// `beliefs` per space, each state's name and belief.
    pub fn of<'a>(
        &self,
        beliefs: impl Iterator<Item = (&'a str, &'a [(std::sync::Arc<str>, f64)])>,
    ) -> u32 {
        let mut best = f64::INFINITY;
        for (space, states) in beliefs {
            let Some((_, d)) = self.spaces.iter().find(|(s, _)| s == space) else {
                continue;
            };
            let expected: f64 = states
                .iter()
                .map(|(st, p)| {
                    let far = d
                        .iter()
                        .find(|(s, _)| **s == **st)
                        .map_or(d.len() as u32, |x| x.1);
                    p.clamp(0.0, 1.0) * f64::from(far)
                })
                .sum();
            best = best.min(expected);
        }
        if best.is_finite() {
            ((best * 1000.0) as u32).min(FAR - 1)
        } else {
            FAR - 1
        }
    }
}
