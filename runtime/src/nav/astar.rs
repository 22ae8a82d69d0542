//! Plain A* on the full graph: the baseline PPA* is measured against and the oracle it is
//! tested against (same heuristic, same tie-breaking).

use super::graph::{Graph, NodeId};
use super::search::{NodeSearch, Workspace};
use super::{NavError, PathResult};

/// A* from `start` to the nearest of `goals`.
pub fn astar_multi(
    graph: &Graph,
    start: NodeId,
    goals: &[NodeId],
    ws: &mut Workspace,
) -> Result<Option<PathResult>, NavError> {
    let n = graph.node_count();
    if let Some(&bad) = std::iter::once(&start).chain(goals).find(|&&v| v >= n) {
        return Err(NavError::NoSuchNode(bad));
    }
    if goals.is_empty() {
        return Ok(None);
    }
    let heuristic = |v: NodeId| {
        goals
            .iter()
            .map(|&t| graph.heuristic(v, t))
            .fold(f64::INFINITY, f64::min)
    };
    let mut open = NodeSearch::new(ws, n);
    open.relax(start, 0.0, || heuristic(start), start);
    while let Some(v) = open.pop() {
        if goals.contains(&v) {
            let (expanded, generated) = open.effort();
            return Ok(Some(PathResult {
                goal: v,
                cost: open.g(v),
                path: open.path(start, v),
                expanded,
                generated,
            }));
        }
        let g = open.g(v);
        for (w, cost) in graph.neighbors(v) {
            open.relax(w, g + graph.metric.value(cost), || heuristic(w), v);
        }
    }
    Ok(None)
}

/// A* from `start` to `goal`.
pub fn astar(
    graph: &Graph,
    start: NodeId,
    goal: NodeId,
    ws: &mut Workspace,
) -> Result<Option<PathResult>, NavError> {
    astar_multi(graph, start, &[goal], ws)
}
