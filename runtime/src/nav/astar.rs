//! Plain A* on the full graph: the baseline PPA* is measured against and the oracle it is
//! tested against (same heuristic, same tie-breaking).

use super::graph::{Graph, NodeId};
use super::hierarchy::NO_CLUSTER;
use super::search::Workspace;
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
    ws.reset(n);
    if goals.is_empty() {
        return Ok(None);
    }
    let heuristic = |v: NodeId| {
        goals
            .iter()
            .map(|&t| graph.heuristic(v, t))
            .fold(f64::INFINITY, f64::min)
    };
    ws.relax(start, 0.0, || heuristic(start), start, NO_CLUSTER);
    while let Some(v) = ws.pop() {
        if goals.contains(&v) {
            let mut path: Vec<NodeId> = ws.hops(start, v).into_iter().map(|h| h.1).collect();
            path.insert(0, start);
            return Ok(Some(PathResult {
                goal: v,
                cost: ws.g(v),
                path,
                expanded: ws.expanded,
                generated: ws.generated,
            }));
        }
        let g = ws.g(v);
        for (w, cost) in graph.neighbors(v) {
            ws.relax(
                w,
                g + graph.metric.value(cost),
                || heuristic(w),
                v,
                NO_CLUSTER,
            );
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
