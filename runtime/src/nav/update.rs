//! Dynamic update after an edge is removed or blocked (Hewlett §4.3.3): recompute the table of
//! the lowest cluster whose abstract graph holds the edge, then its ancestors, and stop as soon
//! as a cluster's border-to-border distances (all its parent reads) come out unchanged. Within a
//! cluster only the sources whose shortest paths used a changed edge are searched again (a
//! deletion can only lengthen paths, so every other row stays exact).
//!
//! The clustering is kept: a node that loses its last crossing edge stays a border node, which
//! costs a little search effort and nothing in correctness.
//!
//! An edge removed earlier can be put back (a door that opens again): distances can only
//! shrink then, so the affected tables are recomputed from every source, again bottom-up and
//! stopping at the first cluster whose border distances come out unchanged. Only edges the
//! hierarchy was built with can come back, so border nodes stay what they were.

use super::cost::{Packed, UNREACHABLE};
use super::graph::NodeId;
use super::hierarchy::NO_CLUSTER;
use super::{NavData, NavError};

/// What an update did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UpdateReport {
    /// Whether an edge was there to remove (for [`NavData::restore_edge`]: to put back).
    pub removed: bool,
    /// Distance tables recomputed.
    pub recomputed: u32,
    /// Whether it stopped below the root because border distances did not change.
    pub stopped_early: bool,
}

impl NavData {
    /// Removes the edge between `u` and `v` (both directions) and brings the tables up to date.
    pub fn remove_edge(&mut self, u: NodeId, v: NodeId) -> Result<UpdateReport, NavError> {
        let n = self.graph.node_count();
        for x in [u, v] {
            if x >= n {
                return Err(NavError::NoSuchNode(x));
            }
        }
        let Some(cost) = self.graph.edge_cost(u, v) else {
            return Ok(UpdateReport {
                removed: false,
                recomputed: 0,
                stopped_early: true,
            });
        };
        self.graph.remove_edge(u, v);
        let h = &self.hierarchy;
        let mut c = h.common_ancestor(h.leaf_of[u as usize], h.leaf_of[v as usize]);
        // The removed real edge, in the local indices of the lowest cluster that holds it.
        let (Some(lu), Some(lv)) = (h.local_in(u, c), h.local_in(v, c)) else {
            return Err(NavError::Internal(
                "edge endpoints missing from their cluster",
            ));
        };
        let mut changed = vec![(lu, lv, cost)];
        let mut recomputed = 0;
        loop {
            let before = self.hierarchy.border_distances(c);
            self.hierarchy.refresh_table(&self.graph, c, &changed)?;
            recomputed += 1;
            let after = self.hierarchy.border_distances(c);
            let parent = self.hierarchy.clusters[c as usize].parent;
            if parent == NO_CLUSTER || after == before {
                return Ok(UpdateReport {
                    removed: true,
                    recomputed,
                    stopped_early: parent != NO_CLUSTER,
                });
            }
            // Changed border distances are changed virtual edges of the parent.
            let p = &self.hierarchy.clusters[parent as usize];
            let k = p
                .children
                .iter()
                .position(|&x| x == c)
                .ok_or(NavError::Internal("cluster missing from its parent"))?;
            let base = p.child_start[k];
            let nb = self.hierarchy.clusters[c as usize].border.len();
            changed = (0..nb * nb)
                .filter(|&i| before[i] != after[i] && before[i] != UNREACHABLE)
                .map(|i| (base + (i / nb) as u32, base + (i % nb) as u32, before[i]))
                .collect();
            c = parent;
        }
    }
}

impl NavData {
    /// Puts back the edge between `u` and `v` at `cost` after [`NavData::remove_edge`], and
    /// brings the tables up to date.
    pub fn restore_edge(
        &mut self,
        u: NodeId,
        v: NodeId,
        cost: Packed,
    ) -> Result<UpdateReport, NavError> {
        let n = self.graph.node_count();
        for x in [u, v] {
            if x >= n {
                return Err(NavError::NoSuchNode(x));
            }
        }
        if cost == 0 || cost == UNREACHABLE || self.graph.metric.value(cost).is_nan() {
            return Err(NavError::Invalid(format!(
                "edge cost {cost} is not positive"
            )));
        }
        if !self.graph.restore_edge(u, v, cost) {
            return Ok(UpdateReport {
                removed: false,
                recomputed: 0,
                stopped_early: true,
            });
        }
        let h = &self.hierarchy;
        let mut c = h.common_ancestor(h.leaf_of[u as usize], h.leaf_of[v as usize]);
        let mut recomputed = 0;
        loop {
            let before = self.hierarchy.border_distances(c);
            let table = self.hierarchy.compute_table(&self.graph, c)?;
            self.hierarchy.clusters[c as usize].table = table;
            self.hierarchy.reindex_cluster(c);
            recomputed += 1;
            let parent = self.hierarchy.clusters[c as usize].parent;
            if parent == NO_CLUSTER || self.hierarchy.border_distances(c) == before {
                return Ok(UpdateReport {
                    removed: true,
                    recomputed,
                    stopped_early: parent != NO_CLUSTER,
                });
            }
            c = parent;
        }
    }
}
