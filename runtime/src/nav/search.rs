//! The layered A* of PPA* (Hewlett §4.3.4, Pseudo-code 1), with several goals (§4.5, §6.3).
//!
//! It is plain A* with the same heuristic; only successor generation differs. Expanding node `v`
//! walks `v`'s chain (the clusters it is a member of, leaf first). In cluster `C` at depth `d`:
//!
//! - if `C` is on the start's path to the root, every border node of `C` is generated, at the
//!   distance read from `C`'s table (up the start's chain);
//! - if `C` is on a goal's path to the root: when `C` is the goal's leaf the goal is generated,
//!   otherwise every border node of the goal's cluster one level below `C` (down the goal's
//!   chain).
//!
//! Each generated node remembers the cluster whose table gave its edge; ResolvePath later
//! expands that virtual edge into real steps. When start and goal share a leaf (Fig. 4.10) the
//! leaf-internal distance comes from a small A* inside the leaf, and the border nodes are
//! still generated, so a shorter way out of the leaf and back wins.

use super::cost::{Packed, UNREACHABLE, key};
use super::graph::NodeId;
use super::hierarchy::{ClusterId, NO_CLUSTER};
use super::{NavData, NavError, PathResult};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

fn prune(bits: &crate::nav::distances::Bits) -> Option<&crate::nav::distances::Bits> {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    ON.get_or_init(|| std::env::var_os("NAV_NO_PRUNE").is_none()).then_some(bits)
}

/// `via` of a node reached by the leaf-internal search from the start.
pub(crate) const VIA_LEAF_SEARCH: ClusterId = u32::MAX - 1;

/// One node's search state; kept together so that touching a node costs one cache line.
#[derive(Clone, Copy, Default)]
pub(crate) struct Slot {
    pub(crate) g: f64,
    pub(crate) parent: NodeId,
    pub(crate) via: ClusterId,
    /// Round in which the node was generated / expanded.
    seen: u32,
    closed: u32,
}

/// Reusable per-thread search memory (one slot per graph node, reset in O(1) per query).
pub struct Workspace {
    pub(crate) slots: Vec<Slot>,
    round: u32,
    heap: BinaryHeap<Reverse<(u64, u64, NodeId)>>,
    pub(crate) expanded: u64,
    pub(crate) generated: u64,
}

impl Workspace {
    pub fn new(nodes: u32) -> Workspace {
        Workspace {
            slots: vec![Slot::default(); nodes as usize],
            round: 0,
            heap: BinaryHeap::new(),
            expanded: 0,
            generated: 0,
        }
    }

    pub(crate) fn reset(&mut self, nodes: u32) {
        if self.slots.len() != nodes as usize {
            *self = Workspace::new(nodes);
        }
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.slots.fill(Slot::default());
            self.round = 1;
        }
        self.heap.clear();
        self.expanded = 0;
        self.generated = 0;
    }

    /// `g` of a generated node.
    #[inline]
    pub(crate) fn g(&self, v: NodeId) -> f64 {
        self.slots[v as usize].g
    }

    /// Records `g` for `v` if it improves on what is known, and queues it with `f = g + h`
    /// (`h` is only computed for nodes that improve).
    #[inline]
    pub(crate) fn relax(
        &mut self,
        v: NodeId,
        g: f64,
        h: impl FnOnce() -> f64,
        parent: NodeId,
        via: ClusterId,
    ) {
        let round = self.round;
        let slot = &mut self.slots[v as usize];
        if slot.closed == round || (slot.seen == round && slot.g <= g) {
            return;
        }
        *slot = Slot {
            g,
            parent,
            via,
            seen: round,
            closed: 0,
        };
        self.generated += 1;
        // Ties on f go to the larger g (the node nearer the goal).
        self.heap
            .push(Reverse((key(g + h()), u64::MAX - key(g), v)));
    }

    /// The next node to expand (skipping stale queue entries); marks it closed.
    #[inline]
    pub(crate) fn pop(&mut self) -> Option<NodeId> {
        while let Some(Reverse((_, gk, v))) = self.heap.pop() {
            let round = self.round;
            let slot = &mut self.slots[v as usize];
            if slot.closed == round || u64::MAX - gk != key(slot.g) {
                continue;
            }
            slot.closed = round;
            self.expanded += 1;
            return Some(v);
        }
        None
    }

    /// The search's hops from the start to `v`: `(from, to, via)`.
    pub(crate) fn hops(&self, start: NodeId, v: NodeId) -> Vec<(NodeId, NodeId, ClusterId)> {
        let mut hops = Vec::new();
        let mut x = v;
        while x != start {
            let s = self.slots[x as usize];
            hops.push((s.parent, x, s.via));
            x = s.parent;
        }
        hops.reverse();
        hops
    }
}

/// A* from the start inside its leaf (leaf-local indices).
pub(crate) struct LeafSearch {
    pub(crate) dist: Vec<Packed>,
    pub(crate) parent: Vec<u32>,
}

impl NavData {
    /// A* from the start inside its leaf, until every goal in that leaf is settled (their
    /// leaf-internal distances are exact then: the heuristic is consistent).
    fn leaf_search(
        &self,
        start: NodeId,
        goals: &[NodeId],
        ws: &mut Workspace,
    ) -> Result<LeafSearch, NavError> {
        let h = &self.hierarchy;
        let leaf = h.leaf_of[start as usize];
        let cl = &h.clusters[leaf as usize];
        let metric = self.graph.metric;
        let k = cl.members.len();
        let targets: Vec<NodeId> = goals
            .iter()
            .copied()
            .filter(|&t| h.leaf_of[t as usize] == leaf)
            .collect();
        let estimate = |v: NodeId| {
            targets
                .iter()
                .map(|&t| self.graph.heuristic(v, t))
                .fold(f64::INFINITY, f64::min)
        };
        let mut left = targets.len();
        let mut dist = vec![UNREACHABLE; k];
        let mut parent = vec![u32::MAX; k];
        let mut done = vec![false; k];
        let mut heap = BinaryHeap::new();
        let s = h.chain(start)[0];
        dist[s as usize] = 0;
        heap.push(Reverse((key(estimate(start)), s)));
        while let Some(Reverse((_, a))) = heap.pop() {
            if std::mem::replace(&mut done[a as usize], true) {
                continue;
            }
            ws.expanded += 1;
            let v = cl.members[a as usize];
            if targets.contains(&v) {
                left -= 1;
                if left == 0 {
                    break;
                }
            }
            let da = dist[a as usize];
            for (w, cost) in self.graph.neighbors(v) {
                if h.leaf_of[w as usize] != leaf {
                    continue;
                }
                let b = h.chain(w)[0] as usize;
                let nd = metric.add(da, cost).ok_or(NavError::Overflow)?;
                if !done[b] && metric.value(nd) < metric.value(dist[b]) {
                    dist[b] = nd;
                    parent[b] = a;
                    heap.push(Reverse((key(metric.value(nd) + estimate(w)), b as u32)));
                }
            }
        }
        // Only settled goals carry final distances.
        for (a, d) in dist.iter_mut().enumerate() {
            if !done[a] {
                *d = UNREACHABLE;
            }
        }
        Ok(LeafSearch { dist, parent })
    }

    /// PPA* from `start` to the nearest of `goals`: the optimal path, its cost and the search
    /// effort, or `None` when no goal is reachable.
    pub fn find_path_multi(
        &self,
        start: NodeId,
        goals: &[NodeId],
        ws: &mut Workspace,
    ) -> Result<Option<PathResult>, NavError> {
        let n = self.graph.node_count();
        if let Some(&bad) = std::iter::once(&start).chain(goals).find(|&&v| v >= n) {
            return Err(NavError::NoSuchNode(bad));
        }
        ws.reset(n);
        if goals.is_empty() {
            return Ok(None);
        }
        let graph = &self.graph;
        let h = &self.hierarchy;
        let metric = graph.metric;
        let heuristic = |v: NodeId| {
            goals
                .iter()
                .map(|&t| graph.heuristic(v, t))
                .fold(f64::INFINITY, f64::min)
        };
        let start_path = h.path_to_root(start);
        let goal_paths: Vec<Vec<ClusterId>> = goals.iter().map(|&t| h.path_to_root(t)).collect();
        let start_leaf = h.leaf_of[start as usize];
        let leaf_search = if goals.iter().any(|&t| h.leaf_of[t as usize] == start_leaf) {
            Some(self.leaf_search(start, goals, ws)?)
        } else {
            None
        };
        ws.relax(start, 0.0, || heuristic(start), start, NO_CLUSTER);
        let mut children_done: Vec<ClusterId> = Vec::new();
        while let Some(v) = ws.pop() {
            if goals.contains(&v) {
                return self.finish(start, v, ws, leaf_search.as_ref()).map(Some);
            }
            let g = ws.g(v);
            if v == start
                && let Some(ls) = &leaf_search
            {
                for &t in goals {
                    if h.leaf_of[t as usize] == start_leaf {
                        let d = ls.dist[h.chain(t)[0] as usize];
                        if d != UNREACHABLE {
                            ws.relax(t, g + metric.value(d), || heuristic(t), v, VIA_LEAF_SEARCH);
                        }
                    }
                }
            }
            let mut c = h.leaf_of[v as usize];
            for &lv in h.chain(v) {
                let cl = &h.clusters[c as usize];
                let depth = cl.depth as usize;
                let m = cl.members.len();
                // Up the start's chain: the border nodes of this ancestor of the start.
                if start_path.get(depth) == Some(&c) {
                    let mut generate = |b: u32, d: Packed| {
                        if d != UNREACHABLE {
                            let w = cl.members[b as usize];
                            ws.relax(w, g + metric.value(d), || heuristic(w), v, c);
                        }
                    };
                    if cl.is_leaf() {
                        let (lv, c) = (lv as usize, cl.border.len());
                        if lv < c {
                            // A border node: its own column holds its distances to the
                            // other border nodes, contiguously.
                            cl.table.for_each(lv * m, c, 1, prune(&cl.table.via_border), |b, d| {
                                generate(b as u32, d)
                            });
                        } else {
                            // Only the start itself: one entry per border column.
                            cl.table.for_each(lv, c, m, prune(&cl.table.via_border), |b, d| {
                                generate(b as u32, d)
                            });
                        }
                    } else {
                        let row = lv as usize * m;
                        let skip = prune(&cl.table.via_border);
                        for &b in &cl.border {
                            let i = row + b as usize;
                            if skip.is_none_or(|bits| !bits.get(i)) {
                                generate(b, cl.table.get(i));
                            }
                        }
                    }
                }
                // Down each goal's chain.
                children_done.clear();
                for (i, &t) in goals.iter().enumerate() {
                    let path = &goal_paths[i];
                    if path.get(depth) != Some(&c) {
                        continue;
                    }
                    if cl.is_leaf() {
                        let d = cl.dist(lv, h.chain(t)[0]);
                        if d != UNREACHABLE {
                            ws.relax(t, g + metric.value(d), || heuristic(t), v, c);
                        }
                        continue;
                    }
                    let below = path[depth + 1];
                    if children_done.contains(&below) {
                        continue;
                    }
                    children_done.push(below);
                    let k = cl.children.iter().position(|&x| x == below).unwrap_or(0);
                    let (s, e) = (cl.child_start[k] as usize, cl.child_start[k + 1] as usize);
                    cl.table
                        .for_each(lv as usize * m + s, e - s, 1, prune(&cl.table.via_block), |j, d| {
                            let w = cl.members[s + j];
                            ws.relax(w, g + metric.value(d), || heuristic(w), v, c);
                        });
                }
                c = cl.parent;
            }
        }
        Ok(None)
    }

    /// PPA* from `start` to `goal`.
    pub fn find_path(
        &self,
        start: NodeId,
        goal: NodeId,
        ws: &mut Workspace,
    ) -> Result<Option<PathResult>, NavError> {
        self.find_path_multi(start, &[goal], ws)
    }

    /// Turns the search's hops into the full path (ResolvePath on every virtual edge).
    fn finish(
        &self,
        start: NodeId,
        goal: NodeId,
        ws: &Workspace,
        leaf_search: Option<&LeafSearch>,
    ) -> Result<PathResult, NavError> {
        let mut path = vec![start];
        for (a, b, via) in ws.hops(start, goal) {
            if via == VIA_LEAF_SEARCH {
                let ls = leaf_search.ok_or(NavError::Internal("leaf search missing"))?;
                let leaf = &self.hierarchy.clusters[self.hierarchy.leaf_of[a as usize] as usize];
                let mut seg = Vec::new();
                let mut x = self.hierarchy.chain(b)[0];
                let s = self.hierarchy.chain(a)[0];
                while x != s {
                    seg.push(leaf.members[x as usize]);
                    x = ls.parent[x as usize];
                    if x == u32::MAX {
                        return Err(NavError::Internal("broken leaf search path"));
                    }
                }
                path.extend(seg.into_iter().rev());
            } else {
                self.resolve_path(a, b, via, &mut path)?;
            }
        }
        let cost = self
            .graph
            .path_cost(&path)
            .ok_or(NavError::Internal("resolved path uses a missing edge"))?;
        Ok(PathResult {
            goal,
            cost,
            path,
            expanded: ws.expanded,
            generated: ws.generated,
        })
    }
}
