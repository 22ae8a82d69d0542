//! Hewlett's planning graph (§2.5): states are nodes, actions are edges, built by breadth-first
//! expansion from the seed states with a hard state limit. When the limit is hit, the
//! [`ExplosionReport`] says *why*: besides the per-action expansion counts the thesis proposes
//! (which §2.5's polarity example shows to mislead), it tracks, per variable, how many distinct
//! values each BFS layer brings and which actions introduce them. A variable still gaining new
//! values in the last layers is unbounded; the actions writing those values are the cause.
//!
//! Plans are searched on the finished graph (§2.4, §4.5): one graph shared by every agent, a
//! goal that is a set of states, breadth-first (A* with h = 0) to the nearest goal state.

use super::action_list::{Compiled, VarState};
use std::collections::{HashMap, HashSet, VecDeque};

#[derive(Clone, Debug, Default)]
pub struct PlanningGraph {
    pub states: Vec<VarState>,
    /// Outgoing edges: (action index, target state).
    pub edges: Vec<Vec<(u32, u32)>>,
    index: HashMap<VarState, u32>,
}

/// Why the graph grew past its limit.
#[derive(Clone, Debug, PartialEq)]
pub struct ExplosionReport {
    pub limit: usize,
    pub layers: usize,
    /// Per action: how many times it was expanded (Hewlett's proposed debugger).
    pub expansions: Vec<(String, u64)>,
    /// Per variable: distinct values seen, and how many new values each of the last layers
    /// added.
    pub variables: Vec<VariableGrowth>,
    /// Variables still growing in every one of the last layers, most distinct values first.
    pub unbounded: Vec<String>,
    /// For each unbounded variable, the actions that introduced its new values (with counts).
    pub causes: Vec<(String, Vec<(String, u64)>)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct VariableGrowth {
    pub name: String,
    pub distinct: usize,
    pub new_per_layer: Vec<usize>,
}

impl ExplosionReport {
    /// A paragraph for the `state-limit-exceeded` diagnostic.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "the planning graph exceeded {} states after {} layers",
            self.limit, self.layers
        );
        if self.unbounded.is_empty() {
            s.push_str(
                "; no single variable keeps growing: the product of bounded variables is too large",
            );
        }
        for (v, acts) in &self.causes {
            let g = self.variables.iter().find(|g| &g.name == v);
            let names: Vec<String> = acts.iter().map(|(a, n)| format!("{a} ({n})")).collect();
            s.push_str(&format!(
                "; `{v}` is unbounded ({} distinct values, still growing) — new values come from {}",
                g.map_or(0, |g| g.distinct),
                names.join(", ")
            ));
        }
        let top: Vec<String> = self
            .expansions
            .iter()
            .take(4)
            .map(|(a, n)| format!("{a} {n}"))
            .collect();
        s.push_str(&format!("; expansions per action: {}", top.join(", ")));
        s
    }
}

/// How many of the last layers must add values for a variable to count as unbounded.
const GROWING_LAYERS: usize = 3;

impl PlanningGraph {
    /// Breadth-first expansion from `seeds`; fails with a report past `limit` states.
    pub fn build(
        domain: &Compiled,
        seeds: &[VarState],
        limit: usize,
    ) -> Result<PlanningGraph, ExplosionReport> {
        let nvars = domain.names.len();
        let mut g = PlanningGraph::default();
        let mut queue = VecDeque::new();
        let mut expansions = vec![0u64; domain.actions.len()];
        let mut seen_values: Vec<HashSet<i64>> = vec![HashSet::new(); nvars];
        let mut new_per_layer: Vec<Vec<usize>> = vec![Vec::new(); nvars];
        let mut introduced: Vec<HashMap<usize, u64>> = vec![HashMap::new(); nvars];
        for s in seeds {
            if g.add(s.clone()).1 {
                queue.push_back((g.states.len() as u32 - 1, 0usize));
                for (v, &x) in s.iter().enumerate() {
                    seen_values[v].insert(x);
                }
            }
        }
        let mut layer = 0;
        let mut layer_new = vec![0usize; nvars];
        while let Some((id, depth)) = queue.pop_front() {
            if depth != layer {
                for v in 0..nvars {
                    new_per_layer[v].push(layer_new[v]);
                }
                layer_new.fill(0);
                layer = depth;
            }
            let s = g.states[id as usize].clone();
            for (ai, a) in domain.actions.iter().enumerate() {
                if !a.enabled(&s) {
                    continue;
                }
                expansions[ai] += 1;
                let next = a.apply(&s);
                for v in 0..nvars {
                    if seen_values[v].insert(next[v]) {
                        layer_new[v] += 1;
                        *introduced[v].entry(ai).or_default() += 1;
                    }
                }
                let (nid, fresh) = g.add(next);
                g.edges[id as usize].push((ai as u32, nid));
                if fresh {
                    if g.states.len() > limit {
                        for v in 0..nvars {
                            new_per_layer[v].push(layer_new[v]);
                        }
                        return Err(report(
                            domain,
                            limit,
                            layer + 1,
                            &expansions,
                            &seen_values,
                            &new_per_layer,
                            &introduced,
                        ));
                    }
                    queue.push_back((nid, depth + 1));
                }
            }
        }
        Ok(g)
    }

    fn add(&mut self, s: VarState) -> (u32, bool) {
        if let Some(&i) = self.index.get(&s) {
            return (i, false);
        }
        let i = self.states.len() as u32;
        self.index.insert(s.clone(), i);
        self.states.push(s);
        self.edges.push(Vec::new());
        (i, true)
    }

    pub fn find(&self, s: &[i64]) -> Option<u32> {
        self.index.get(s).copied()
    }

    pub fn num_edges(&self) -> usize {
        self.edges.iter().map(Vec::len).sum()
    }

    /// Multi-goal search (§4.5): the shortest path from `start` to any state where `goal`
    /// holds; the plan as action indices. `None` if no goal state is reachable.
    pub fn plan(&self, start: u32, goal: impl Fn(&[i64]) -> bool) -> Option<Vec<u32>> {
        let n = self.states.len();
        let mut parent: Vec<Option<(u32, u32)>> = vec![None; n];
        let mut seen = vec![false; n];
        let mut queue = VecDeque::from([start]);
        seen[start as usize] = true;
        while let Some(s) = queue.pop_front() {
            if goal(&self.states[s as usize]) {
                let mut plan = Vec::new();
                let mut cur = s;
                while let Some((p, a)) = parent[cur as usize] {
                    plan.push(a);
                    cur = p;
                }
                plan.reverse();
                return Some(plan);
            }
            for &(a, t) in &self.edges[s as usize] {
                if !seen[t as usize] {
                    seen[t as usize] = true;
                    parent[t as usize] = Some((s, a));
                    queue.push_back(t);
                }
            }
        }
        None
    }
}

fn report(
    domain: &Compiled,
    limit: usize,
    layers: usize,
    expansions: &[u64],
    seen_values: &[HashSet<i64>],
    new_per_layer: &[Vec<usize>],
    introduced: &[HashMap<usize, u64>],
) -> ExplosionReport {
    let mut exp: Vec<(String, u64)> = domain
        .actions
        .iter()
        .zip(expansions)
        .map(|(a, &n)| (a.name.clone(), n))
        .collect();
    exp.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let variables: Vec<VariableGrowth> = (0..domain.names.len())
        .map(|v| VariableGrowth {
            name: domain.names[v].clone(),
            distinct: seen_values[v].len(),
            new_per_layer: new_per_layer[v].clone(),
        })
        .collect();
    // The last layer was cut short by the limit: judge growth on the complete ones.
    let mut growing: Vec<&VariableGrowth> = variables
        .iter()
        .filter(|g| {
            let complete = &g.new_per_layer[..g.new_per_layer.len().saturating_sub(1)];
            complete.len() >= GROWING_LAYERS
                && complete[complete.len() - GROWING_LAYERS..]
                    .iter()
                    .all(|&n| n > 0)
        })
        .collect();
    growing.sort_by(|a, b| b.distinct.cmp(&a.distinct).then(a.name.cmp(&b.name)));
    let unbounded: Vec<String> = growing.iter().map(|g| g.name.clone()).collect();
    let causes = unbounded
        .iter()
        .map(|name| {
            let v = domain.names.iter().position(|n| n == name).expect("known");
            let mut acts: Vec<(String, u64)> = introduced[v]
                .iter()
                .map(|(&a, &n)| (domain.actions[a].name.clone(), n))
                .collect();
            acts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            (name.clone(), acts)
        })
        .collect();
    ExplosionReport {
        limit,
        layers,
        expansions: exp,
        variables,
        unbounded,
        causes,
    }
}
