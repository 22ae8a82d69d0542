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
//! Entries a table marks dominated are not generated (see [`super::distances`]): a shortest
//! path behind them passes another node of the same generated set, which generates the target
//! at the same cost when it is expanded, so the abstract graph keeps every distance.
//!
//! Each generated node remembers the cluster whose table gave its edge; ResolvePath later
//! expands that virtual edge into real steps. When start and goal share a leaf (Fig. 4.10) the
//! leaf-internal distance comes from a small A* inside the leaf, and the border nodes are
//! still generated, so a shorter way out of the leaf and back wins.

use super::cost::{Packed, UNREACHABLE, key};
use super::graph::NodeId;
use super::hierarchy::{ClusterId, NO_CLUSTER};
use super::index::NO_SLOT;
use super::{NavData, NavError, PathResult};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// `via` of a node reached by the leaf-internal search from the start.
pub(crate) const VIA_LEAF_SEARCH: ClusterId = u32::MAX - 1;

/// One node's search state; kept together so that touching a node costs one cache line.
#[derive(Clone, Copy, Default)]
pub(crate) struct Slot {
    pub(crate) g: f64,
    pub(crate) parent: u32,
    pub(crate) via: ClusterId,
    /// Round in which the node was generated / expanded.
    seen: u32,
    closed: u32,
}

/// Reusable per-thread search memory, reset in O(1) per query: one slot per graph node for
/// plain A*, one per search slot of the hierarchy (plus the start and goals) for PPA*.
pub struct Workspace {
    pub(crate) slots: Vec<Slot>,
    dense: Vec<Slot>,
    round: u32,
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    pub(crate) expanded: u64,
    pub(crate) generated: u64,
}

/// The open list over one slot array (shared by A* over nodes and PPA* over search slots).
struct Open<'a> {
    slots: &'a mut [Slot],
    heap: &'a mut BinaryHeap<Reverse<(u64, u64, u32)>>,
    round: u32,
    expanded: &'a mut u64,
    generated: &'a mut u64,
}

impl Open<'_> {
    /// Records `g` for slot `i` if it improves on what is known, and queues it with
    /// `f = g + h` (`h` is only computed for slots that improve).
    #[inline]
    fn relax(&mut self, i: u32, g: f64, h: impl FnOnce() -> f64, parent: u32, via: ClusterId) {
        let round = self.round;
        let slot = &mut self.slots[i as usize];
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
        *self.generated += 1;
        // Ties on f go to the larger g (the node nearer the goal).
        self.heap
            .push(Reverse((key(g + h()), u64::MAX - key(g), i)));
    }

    /// The next slot to expand (skipping stale queue entries); marks it closed.
    #[inline]
    fn pop(&mut self) -> Option<u32> {
        while let Some(Reverse((_, gk, i))) = self.heap.pop() {
            let slot = &mut self.slots[i as usize];
            if slot.closed == self.round || u64::MAX - gk != key(slot.g) {
                continue;
            }
            slot.closed = self.round;
            *self.expanded += 1;
            return Some(i);
        }
        None
    }

    fn g(&self, i: u32) -> f64 {
        self.slots[i as usize].g
    }

    /// The search's hops from `start` to `i`: `(from, to, via)`.
    fn hops(&self, start: u32, i: u32) -> Vec<(u32, u32, ClusterId)> {
        let mut hops = Vec::new();
        let mut x = i;
        while x != start {
            let s = self.slots[x as usize];
            hops.push((s.parent, x, s.via));
            x = s.parent;
        }
        hops.reverse();
        hops
    }
}

impl Workspace {
    /// Scratch space sized for a graph of `nodes` nodes; a search on another graph re-sizes it.
    pub fn new(nodes: u32) -> Workspace {
        Workspace {
            slots: vec![Slot::default(); nodes as usize],
            dense: Vec::new(),
            round: 0,
            heap: BinaryHeap::new(),
            expanded: 0,
            generated: 0,
        }
    }

    fn next_round(&mut self) {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.slots.fill(Slot::default());
            self.dense.fill(Slot::default());
            self.round = 1;
        }
        self.heap.clear();
        self.expanded = 0;
        self.generated = 0;
    }

    /// Starts a plain A* over `nodes` graph nodes.
    pub(crate) fn reset(&mut self, nodes: u32) {
        if self.slots.len() != nodes as usize {
            self.slots = vec![Slot::default(); nodes as usize];
        }
        self.next_round();
    }

    /// Starts a PPA* search over `count` search slots.
    fn reset_dense(&mut self, count: usize) {
        // Slots added by the resize carry round 0, which no search uses.
        self.dense.resize(count, Slot::default());
        self.next_round();
    }

    /// The open list over graph nodes.
    fn open_nodes(&mut self) -> Open<'_> {
        Open {
            slots: &mut self.slots,
            heap: &mut self.heap,
            round: self.round,
            expanded: &mut self.expanded,
            generated: &mut self.generated,
        }
    }

    fn open_dense(&mut self) -> Open<'_> {
        Open {
            slots: &mut self.dense,
            heap: &mut self.heap,
            round: self.round,
            expanded: &mut self.expanded,
            generated: &mut self.generated,
        }
    }
}

/// Plain A* over the graph's nodes (the baseline, [`super::astar`]), on the workspace's node
/// slots: relax, pop, `g` and the path back to the start.
pub(crate) struct NodeSearch<'a>(Open<'a>);

impl<'a> NodeSearch<'a> {
    pub(crate) fn new(ws: &'a mut Workspace, nodes: u32) -> Self {
        ws.reset(nodes);
        NodeSearch(ws.open_nodes())
    }

    #[inline]
    pub(crate) fn relax(&mut self, v: NodeId, g: f64, h: impl FnOnce() -> f64, parent: NodeId) {
        self.0.relax(v, g, h, parent, NO_CLUSTER);
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<NodeId> {
        self.0.pop()
    }

    pub(crate) fn g(&self, v: NodeId) -> f64 {
        self.0.g(v)
    }

    /// The nodes from `start` to `v`.
    pub(crate) fn path(&self, start: NodeId, v: NodeId) -> Vec<NodeId> {
        let mut path: Vec<NodeId> = self.0.hops(start, v).into_iter().map(|h| h.1).collect();
        path.insert(0, start);
        path
    }

    pub(crate) fn effort(&self) -> (u64, u64) {
        (*self.0.expanded, *self.0.generated)
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
        if goals.is_empty() {
            ws.next_round();
            return Ok(None);
        }
        let graph = &self.graph;
        let h = &self.hierarchy;
        let metric = graph.metric;
        let index = h.index();
        // Search slots: a leaf border node has its own; the start and goals inside a leaf get
        // one each after the hierarchy's.
        let base = index.slot_node.len() as u32;
        let mut extra: Vec<NodeId> = Vec::new();
        let mut slot_for = |v: NodeId| match index.slot_of[v as usize] {
            NO_SLOT => match extra.iter().position(|&x| x == v) {
                Some(i) => base + i as u32,
                None => {
                    extra.push(v);
                    base + extra.len() as u32 - 1
                }
            },
            s => s,
        };
        let start_slot = slot_for(start);
        let goal_slots: Vec<u32> = goals.iter().map(|&t| slot_for(t)).collect();
        let node_of = |s: u32| {
            if s < base {
                index.slot_node[s as usize]
            } else {
                extra[(s - base) as usize]
            }
        };
        let heuristic = |v: NodeId| {
            goals
                .iter()
                .map(|&t| graph.heuristic(v, t))
                .fold(f64::INFINITY, f64::min)
        };
        let start_path = h.path_to_root(start);
        let goal_paths: Vec<Vec<ClusterId>> = goals.iter().map(|&t| h.path_to_root(t)).collect();
        let start_leaf = h.leaf_of[start as usize];
        ws.reset_dense(base as usize + extra.len());
        let leaf_search = if goals.iter().any(|&t| h.leaf_of[t as usize] == start_leaf) {
            Some(self.leaf_search(start, goals, ws)?)
        } else {
            None
        };
        let mut open = ws.open_dense();
        open.relax(start_slot, 0.0, || heuristic(start), start_slot, NO_CLUSTER);
        let mut children_done: Vec<ClusterId> = Vec::new();
        while let Some(s) = open.pop() {
            if goal_slots.contains(&s) {
                let hops = open.hops(start_slot, s);
                let hops: Vec<(NodeId, NodeId, ClusterId)> = hops
                    .into_iter()
                    .map(|(a, b, via)| (node_of(a), node_of(b), via))
                    .collect();
                let effort = (*open.expanded, *open.generated);
                return self
                    .finish(start, node_of(s), &hops, effort, leaf_search.as_ref())
                    .map(Some);
            }
            let v = node_of(s);
            let g = open.g(s);
            if s == start_slot
                && let Some(ls) = &leaf_search
            {
                for (i, &t) in goals.iter().enumerate() {
                    if h.leaf_of[t as usize] == start_leaf {
                        let d = ls.dist[h.chain(t)[0] as usize];
                        if d != UNREACHABLE {
                            open.relax(
                                goal_slots[i],
                                g + metric.value(d),
                                || heuristic(t),
                                s,
                                VIA_LEAF_SEARCH,
                            );
                        }
                    }
                }
            }
            let mut c = h.leaf_of[v as usize];
            for &lv in h.chain(v) {
                let cl = &h.clusters[c as usize];
                let depth = cl.depth as usize;
                let m = cl.members.len();
                let member_slot = &index.member_slot[c as usize];
                let lists = &index.lists[c as usize];
                // Inner clusters: per member, its border list, then one per child block.
                let per_member = 1 + cl.children.len();
                let mut generate_list = |list: &[(u32, Packed)]| {
                    for &(w, d) in list {
                        let node = index.slot_node[w as usize];
                        open.relax(w, g + metric.value(d), || heuristic(node), s, c);
                    }
                };
                // Up the start's chain: the border nodes of this ancestor of the start.
                if start_path.get(depth) == Some(&c) {
                    if !cl.is_leaf() {
                        generate_list(lists.get(lv as usize * per_member));
                    } else if (lv as usize) < cl.border.len() {
                        generate_list(lists.get(lv as usize));
                    } else {
                        // The start itself, inside its leaf: one entry per border column.
                        cl.table.for_each(
                            lv as usize,
                            cl.border.len(),
                            m,
                            Some(&cl.table.via_border),
                            |b, d| {
                                let w = cl.members[b];
                                open.relax(
                                    member_slot[b],
                                    g + metric.value(d),
                                    || heuristic(w),
                                    s,
                                    c,
                                );
                            },
                        );
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
                            open.relax(goal_slots[i], g + metric.value(d), || heuristic(t), s, c);
                        }
                        continue;
                    }
                    let below = path[depth + 1];
                    if children_done.contains(&below) {
                        continue;
                    }
                    children_done.push(below);
                    let k = cl.children.iter().position(|&x| x == below).unwrap_or(0);
                    let list = lists.get(lv as usize * per_member + 1 + k);
                    for &(w, d) in list {
                        let node = index.slot_node[w as usize];
                        open.relax(w, g + metric.value(d), || heuristic(node), s, c);
                    }
                }
                c = cl.parent;
            }
        }
        Ok(None)
    }

    /// PPA* from `start` to `goal`: `Ok(None)` when the goal cannot be reached,
    /// [`NavError::NoSuchNode`] for a node the graph does not have. The path is optimal: it
    /// costs what plain [`astar`](super::astar::astar) finds on the full graph.
    ///
    /// ```
    /// use ensemble_runtime::nav::cost::Metric;
    /// use ensemble_runtime::nav::hierarchy::NO_CLUSTER;
    /// use ensemble_runtime::nav::{Cluster, Graph, Hierarchy, NavData, NavError, Workspace};
    ///
    /// // A line 0 - 1 - 2 - 3 (costs 1, 5, 1) with a detour 1 - 4 - 2 (costs 1, 1).
    /// let graph = Graph::from_edges(
    ///     5,
    ///     Metric::Integer,
    ///     &[(0, 1, 1), (1, 2, 5), (2, 3, 1), (1, 4, 1), (4, 2, 1)],
    /// )?;
    /// // The compiler clusters the graph (METIS); by hand here: a root over two leaves,
    /// // A = {0, 1, 4} with border nodes 1 and 4, B = {2, 3} with border node 2.
    /// # let leaf = |members: Vec<u32>, border: u32| Cluster {
    /// #     parent: 0,
    /// #     depth: 1,
    /// #     children: vec![],
    /// #     members,
    /// #     child_start: vec![],
    /// #     border: (0..border).collect(),
    /// #     table: Default::default(),
    /// # };
    /// # let root = Cluster {
    /// #     parent: NO_CLUSTER,
    /// #     depth: 0,
    /// #     children: vec![1, 2],
    /// #     members: vec![1, 4, 2],
    /// #     child_start: vec![0, 2, 3],
    /// #     border: vec![],
    /// #     table: Default::default(),
    /// # };
    /// # let clusters = vec![root, leaf(vec![1, 4, 0], 2), leaf(vec![2, 3], 1)];
    /// # let chains = [vec![2], vec![0, 0], vec![0, 2], vec![1], vec![1, 1]];
    /// let mut hierarchy = Hierarchy::from_parts(4, clusters, vec![1, 1, 2, 2, 1], &chains)?;
    /// for c in (0..3).rev() {
    ///     hierarchy.clusters[c].table = hierarchy.compute_table(&graph, c as u32)?;
    /// }
    /// let nav = NavData::new(graph, hierarchy)?;
    ///
    /// // One workspace per thread, reused for every query.
    /// let mut ws = Workspace::new(nav.graph.node_count());
    /// let found = nav.find_path(0, 3, &mut ws)?.expect("3 is reachable from 0");
    /// assert_eq!(found.path, [0, 1, 4, 2, 3]);
    /// assert_eq!(found.cost, 4.0);
    /// assert_eq!(nav.find_path(0, 9, &mut ws), Err(NavError::NoSuchNode(9)));
    /// # Ok::<(), NavError>(())
    /// ```
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
        hops: &[(NodeId, NodeId, ClusterId)],
        (expanded, generated): (u64, u64),
        leaf_search: Option<&LeafSearch>,
    ) -> Result<PathResult, NavError> {
        let mut path = vec![start];
        for &(a, b, via) in hops {
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
            expanded,
            generated,
        })
    }
}
