//! Hewlett's planning graph as the runtime keeps it (§2.1.3, §4.5): the finite state graph the
//! compiler enumerated from the seed states, shared by every agent that plans on the problem.
//! A plan is the shortest path from the node of the agent's believed state to the nearest node
//! that satisfies the goal (a goal is a *set* of states), found breadth-first with actions tried
//! in declaration order — the order that gives Fig. 2.3's plan.
//!
//! Nodes are stored as sorted fact lists, sorted themselves, so the node of a state is found by
//! binary search and no index has to be built on load. Edges are in compressed rows.

pub use crate::program::planning::PlanGraph;

use super::state::State;
use super::task::{FactId, OpId, Task};
use std::collections::VecDeque;

impl PlanGraph {
    /// Builds the graph from explicit nodes (any order) and edges between them.
    pub fn from_parts(nodes: Vec<Vec<FactId>>, edges: Vec<Vec<(OpId, u32)>>) -> PlanGraph {
        let mut order: Vec<u32> = (0..nodes.len() as u32).collect();
        let mut nodes: Vec<Vec<FactId>> = nodes
            .into_iter()
            .map(|mut f| {
                f.sort_unstable();
                f.dedup();
                f
            })
            .collect();
        order.sort_by(|&a, &b| nodes[a as usize].cmp(&nodes[b as usize]));
        let mut new_id = vec![0u32; nodes.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old as usize] = new as u32;
        }
        let mut first_edge = Vec::with_capacity(nodes.len() + 1);
        let mut flat = Vec::new();
        for &old in &order {
            first_edge.push(flat.len() as u32);
            flat.extend(
                edges[old as usize]
                    .iter()
                    .map(|&(o, t)| (o, new_id[t as usize])),
            );
        }
        first_edge.push(flat.len() as u32);
        let sorted = order
            .iter()
            .map(|&old| std::mem::take(&mut nodes[old as usize]))
            .collect();
        PlanGraph {
            nodes: sorted,
            first_edge,
            edges: flat,
        }
    }

    /// Number of states (nodes).
    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// The node of a state, if the graph has it.
    pub fn find(&self, s: &State) -> Option<u32> {
        let facts: Vec<FactId> = s.facts().collect();
        self.nodes.binary_search(&facts).ok().map(|i| i as u32)
    }

    fn out(&self, n: u32) -> &[(OpId, u32)] {
        let (a, b) = (
            self.first_edge[n as usize] as usize,
            self.first_edge[n as usize + 1] as usize,
        );
        &self.edges[a..b]
    }

    /// Multi-goal breadth-first search (§4.5 with h = 0): the shortest plan from `from` to any
    /// node where the goal holds, skipping `banned` operators, and the nodes it visited. `None`
    /// if `from` is not a node; a `None` plan if no goal node is reachable.
    pub fn plan(
        &self,
        task: &Task,
        from: &State,
        banned: &[OpId],
    ) -> Option<(Option<Vec<OpId>>, u64)> {
        let start = self.find(from)?;
        let mut visited = 0u64;
        let n = self.nodes.len();
        let mut parent: Vec<(u32, OpId)> = vec![(u32::MAX, 0); n];
        let mut seen = vec![false; n];
        let mut queue = VecDeque::from([start]);
        seen[start as usize] = true;
        while let Some(v) = queue.pop_front() {
            visited += 1;
            let state = task.state_of(self.nodes[v as usize].iter().copied());
            if task.is_goal(&state) {
                let mut plan = Vec::new();
                let mut cur = v;
                while cur != start {
                    let (p, o) = parent[cur as usize];
                    plan.push(o);
                    cur = p;
                }
                plan.reverse();
                return Some((Some(plan), visited));
            }
            for &(o, t) in self.out(v) {
                if !seen[t as usize] && !banned.contains(&o) {
                    seen[t as usize] = true;
                    parent[t as usize] = (v, o);
                    queue.push_back(t);
                }
            }
        }
        Some((None, visited))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::fixtures;

    /// Enumerates the reachable states of a small task (a test oracle for the compiler's builder).
    fn enumerate(task: &Task) -> PlanGraph {
        let mut nodes: Vec<State> = vec![task.initial_state()];
        let mut edges: Vec<Vec<(OpId, u32)>> = vec![Vec::new()];
        let mut i = 0;
        while i < nodes.len() {
            let s = nodes[i].clone();
            for o in task.applicable(&s).collect::<Vec<_>>() {
                let t = task.op(o).apply(&s);
                let j = match nodes.iter().position(|x| *x == t) {
                    Some(j) => j,
                    None => {
                        nodes.push(t);
                        edges.push(Vec::new());
                        nodes.len() - 1
                    }
                };
                edges[i].push((o, j as u32));
            }
            i += 1;
        }
        PlanGraph::from_parts(nodes.iter().map(|s| s.facts().collect()).collect(), edges)
    }

    #[test]
    fn dinner_date_graph_plans_optimally_and_verifies() {
        let t = fixtures::dinner_date();
        let g = enumerate(&t);
        g.verify(&t).unwrap();
        let plan = g.plan(&t, &t.initial_state(), &[]).unwrap().0.unwrap();
        assert_eq!(plan.len(), 3);
        crate::plan::validate(&t, &t.initial_state(), &plan).unwrap();
        // Without cook the goal is out of reach.
        let cook = t.op_id("cook").unwrap();
        assert_eq!(g.plan(&t, &t.initial_state(), &[cook]).unwrap().0, None);
        // A state that is not a node.
        let odd = t.state_of([t.fact_id("dinner").unwrap()]);
        assert_eq!(g.plan(&t, &odd, &[]), None);
    }

    #[test]
    fn corrupt_graphs_are_refused() {
        let t = fixtures::dinner_date();
        let g = enumerate(&t);
        let mut bad = g.clone();
        bad.nodes.swap(0, 1);
        assert!(bad.verify(&t).is_err());
        let mut bad = g.clone();
        bad.edges[0].1 = 999;
        assert!(bad.verify(&t).is_err());
        let mut bad = g.clone();
        bad.first_edge.pop();
        assert!(bad.verify(&t).is_err());
        let mut bad = g;
        bad.nodes[0].push(999);
        assert!(bad.verify(&t).is_err());
    }
}
