//! ResolvePath (Hewlett §4.3.4, Pseudo-code 2): expand one virtual edge of the search into real
//! steps. The cluster's table is an exact heuristic, so no open list is needed: from the current
//! node take the edge minimising `edge cost + distance(edge end, target)`; a real edge is one
//! step, a virtual edge (two border nodes of one child) recurses into that child.
//!
//! Erratum fixed (shared/research/hewlett-2013.md §4.5): the printed recursive call
//! `ResolvePath(n, bestEdge.to, LowerSubgraph(s, n), p)` starts from the wrong node and picks
//! the child by the wrong node. The virtual edge runs from the *current* node `c` to
//! `bestEdge.to`, inside the child that holds them both, so the call is
//! `ResolvePath(c, bestEdge.to, child containing c, p)`.

use super::cost::UNREACHABLE;
use super::graph::NodeId;
use super::hierarchy::ClusterId;
use super::{NavData, NavError};

impl NavData {
    /// Appends the real path from `a` (already on `out`) to `b` inside cluster `c`, excluding
    /// `a`, including `b`.
    pub(crate) fn resolve_path(
        &self,
        a: NodeId,
        b: NodeId,
        c: ClusterId,
        out: &mut Vec<NodeId>,
    ) -> Result<(), NavError> {
        let h = &self.hierarchy;
        let cl = &h.clusters[c as usize];
        let local = |v: NodeId| {
            h.local_in(v, c)
                .ok_or(NavError::Internal("node not in cluster"))
        };
        let (la, lb) = (local(a)?, local(b)?);
        if cl.is_leaf() {
            let border = cl.border.len() as u32;
            if lb < border {
                return self.walk_leaf(a, lb, c, out);
            }
            if la < border {
                // The table holds distances to border nodes only: walk from `b` to `a` and
                // reverse (the graph is undirected).
                let mut back = Vec::new();
                self.walk_leaf(b, la, c, &mut back)?;
                back.pop(); // `a`
                out.extend(back.into_iter().rev());
                out.push(b);
                return Ok(());
            }
            return Err(NavError::Internal("leaf edge between two inner nodes"));
        }
        let metric = self.graph.metric;
        let mut x = a;
        let mut lx = la;
        // Every step strictly shortens the remaining distance (costs are positive), so the walk
        // ends after at most one visit per member; the bound only guards against corrupt data.
        for _ in 0..=cl.members.len() {
            if x == b {
                return Ok(());
            }
            let k = cl.child_index(lx);
            let child_id = cl.children[k];
            let child = &h.clusters[child_id as usize];
            let (s, e) = (cl.child_start[k], cl.child_start[k + 1]);
            let in_child = child.border[(lx - s) as usize];
            // The tables are exact and sums are exact, so the first edge whose cost plus the
            // remaining distance equals the current distance lies on a shortest path; the
            // minimum is kept only as a fallback.
            let target = cl.dist(lx, lb);
            // (cost to target, next node, its local index, virtual?)
            let mut best: Option<(f64, NodeId, u32, bool)> = None;
            'scan: {
                for (w, cost) in self.graph.neighbors(x) {
                    if let Some(lw) = h.local_in(w, c) {
                        let rest = cl.dist(lw, lb);
                        if rest == UNREACHABLE {
                            continue;
                        }
                        if metric.add(cost, rest) == Some(target) {
                            best = Some((0.0, w, lw, false));
                            break 'scan;
                        }
                        let total = metric.value(cost) + metric.value(rest);
                        if best.is_none_or(|(t, ..)| total < t) {
                            best = Some((total, w, lw, false));
                        }
                    }
                }
                for lw in s..e {
                    if lw == lx {
                        continue;
                    }
                    let step = child.dist(in_child, child.border[(lw - s) as usize]);
                    let rest = cl.dist(lw, lb);
                    if step == UNREACHABLE || rest == UNREACHABLE {
                        continue;
                    }
                    if metric.add(step, rest) == Some(target) {
                        best = Some((0.0, cl.members[lw as usize], lw, true));
                        break 'scan;
                    }
                    let total = metric.value(step) + metric.value(rest);
                    if best.is_none_or(|(t, ..)| total < t) {
                        best = Some((total, cl.members[lw as usize], lw, true));
                    }
                }
            }
            let (_, w, lw, virtual_edge) =
                best.ok_or(NavError::Internal("ResolvePath found no way on"))?;
            if virtual_edge {
                self.resolve_path(x, w, child_id, out)?;
            } else {
                out.push(w);
            }
            x = w;
            lx = lw;
        }
        Err(NavError::Internal("ResolvePath did not reach its target"))
    }

    /// Greedy walk inside leaf `c` from `a` to its border node with local index `lb`.
    fn walk_leaf(
        &self,
        a: NodeId,
        lb: u32,
        c: ClusterId,
        out: &mut Vec<NodeId>,
    ) -> Result<(), NavError> {
        let h = &self.hierarchy;
        let cl = &h.clusters[c as usize];
        let metric = self.graph.metric;
        let target = cl.members[lb as usize];
        let leaf_local = &h.index().leaf_local;
        // The target's column: every member's distance to it, contiguous.
        let m = cl.members.len();
        let column = lb as usize * m;
        let mut x = a;
        let mut lx = leaf_local[a as usize].1;
        for _ in 0..=m {
            if x == target {
                return Ok(());
            }
            let target = cl.table.get(column + lx as usize);
            let mut best: Option<(f64, NodeId, u32)> = None;
            for (w, cost) in self.graph.neighbors(x) {
                let (leaf, lw) = leaf_local[w as usize];
                if leaf != c {
                    continue;
                }
                let rest = cl.table.get(column + lw as usize);
                if rest == UNREACHABLE {
                    continue;
                }
                if metric.add(cost, rest) == Some(target) {
                    best = Some((0.0, w, lw));
                    break;
                }
                let total = metric.value(cost) + metric.value(rest);
                if best.is_none_or(|(t, ..)| total < t) {
                    best = Some((total, w, lw));
                }
            }
            let (_, w, lw) =
                best.ok_or(NavError::Internal("ResolvePath found no way on in a leaf"))?;
            out.push(w);
            x = w;
            lx = lw;
        }
        Err(NavError::Internal(
            "ResolvePath did not reach its target in a leaf",
        ))
    }
}
