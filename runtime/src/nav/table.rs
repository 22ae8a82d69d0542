//! Exact distance tables, one cluster at a time (Hewlett §4.3.3: "APSP per subgraph",
//! computed bottom-up because an inner cluster's virtual edges read its children's tables).
//!
//! Edge costs are non-negative, so Johnson's algorithm reduces to one Dijkstra per source. A
//! leaf runs it from each border node over the real edges inside the leaf; an inner cluster runs
//! it from each member over its abstract graph (real edges between children plus virtual edges
//! inside each child).
//!
//! The same Dijkstra marks dominated entries (see [`super::distances`]): it tracks, for every
//! node, which *roles* (border node of the cluster; member of child block k) occur strictly
//! inside some shortest path from the source, OR-ing over every tight predecessor so that ties
//! count. A node's marks are final when it is settled, because all its tight predecessors are
//! nearer and settled before it.

use super::NavError;
use super::cost::{Metric, Packed, UNREACHABLE, key};
use super::distances::{Bits, Entries, Table};
use super::graph::Graph;
use super::hierarchy::{ClusterId, Hierarchy};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The abstract graph of one cluster over its local indices, in CSR form.
struct LocalGraph {
    offsets: Vec<u32>,
    targets: Vec<u32>,
    costs: Vec<Packed>,
}

impl LocalGraph {
    fn from_lists(lists: Vec<Vec<(u32, Packed)>>) -> LocalGraph {
        let mut offsets = Vec::with_capacity(lists.len() + 1);
        let mut targets = Vec::new();
        let mut costs = Vec::new();
        offsets.push(0);
        for list in lists {
            for (t, c) in list {
                targets.push(t);
                costs.push(c);
            }
            offsets.push(targets.len() as u32);
        }
        LocalGraph {
            offsets,
            targets,
            costs,
        }
    }

    /// Dijkstra from local `source`; fills `dist` and `via` (length = nodes): `via[x]` is the
    /// union of `roles` of the nodes strictly between `source` and `x` on shortest paths.
    fn dijkstra(
        &self,
        metric: Metric,
        source: u32,
        roles: &[u32],
        dist: &mut [Packed],
        via: &mut [u32],
        heap: &mut BinaryHeap<Reverse<(u64, u32)>>,
    ) -> Result<(), NavError> {
        dist.fill(UNREACHABLE);
        via.fill(0);
        heap.clear();
        dist[source as usize] = 0;
        heap.push(Reverse((0, source)));
        while let Some(Reverse((k, u))) = heap.pop() {
            let du = dist[u as usize];
            if key(metric.value(du)) != k {
                continue;
            }
            let passed = via[u as usize] | if u == source { 0 } else { roles[u as usize] };
            let (a, b) = (
                self.offsets[u as usize] as usize,
                self.offsets[u as usize + 1] as usize,
            );
            for i in a..b {
                let v = self.targets[i] as usize;
                let nd = metric.add(du, self.costs[i]).ok_or(NavError::Overflow)?;
                let dv = dist[v];
                if dv == UNREACHABLE || metric.value(nd) < metric.value(dv) {
                    dist[v] = nd;
                    via[v] = passed;
                    heap.push(Reverse((key(metric.value(nd)), v as u32)));
                } else if nd == dv {
                    via[v] |= passed;
                }
            }
        }
        Ok(())
    }
}

/// A table being filled: entries in the wide form and the domination bits.
struct Scratch {
    entries: Vec<Packed>,
    via_border: Bits,
    via_block: Bits,
}

impl Scratch {
    fn into_table(self, metric: Metric) -> Table {
        Table {
            entries: Entries::from_wide(metric, self.entries),
            via_border: self.via_border,
            via_block: self.via_block,
        }
    }
}

/// Role bit of a border node of the cluster.
const ROLE_BORDER: u32 = 1;

/// Role bit of a member of child block `k` (none past 31 blocks: such entries are simply never
/// marked, which only costs pruning).
fn role_block(k: usize) -> u32 {
    if k < 31 { 2 << k } else { 0 }
}

impl Hierarchy {
    /// Computes cluster `c`'s distance table from the graph and (for an inner cluster) its
    /// children's tables, which must be current.
    pub fn compute_table(&self, graph: &Graph, c: ClusterId) -> Result<Table, NavError> {
        let cl = &self.clusters[c as usize];
        let sources: Vec<u32> = if cl.is_leaf() {
            cl.border.clone()
        } else {
            (0..cl.members.len() as u32).collect()
        };
        let n = cl.table_len();
        let mut table = Scratch {
            entries: vec![UNREACHABLE; n],
            via_border: Bits::new(n),
            via_block: Bits::new(if cl.is_leaf() { 0 } else { n }),
        };
        self.fill_rows(graph, c, &sources, &mut table)?;
        Ok(table.into_table(graph.metric))
    }

    /// Brings cluster `c`'s table up to date after the edges `changed` of its abstract graph
    /// (local indices, with their old costs) got longer or disappeared. Only sources with a
    /// shortest path over a changed edge (`d(s, x) + old == d(s, y)`) can have changed, so only
    /// their Dijkstra is rerun. Returns how many sources were recomputed.
    pub(crate) fn refresh_table(
        &mut self,
        graph: &Graph,
        c: ClusterId,
        changed: &[(u32, u32, Packed)],
    ) -> Result<usize, NavError> {
        let metric = graph.metric;
        let cl = &self.clusters[c as usize];
        let candidates: Vec<u32> = if cl.is_leaf() {
            cl.border.clone()
        } else {
            (0..cl.members.len() as u32).collect()
        };
        let sources: Vec<u32> = candidates
            .into_iter()
            .filter(|&s| {
                changed.iter().any(|&(x, y, old)| {
                    let tight = |a: u32, b: u32| {
                        metric
                            .add(cl.dist(s, a), old)
                            .is_some_and(|d| d == cl.dist(s, b))
                    };
                    tight(x, y) || tight(y, x)
                })
            })
            .collect();
        if sources.is_empty() {
            return Ok(0);
        }
        // Distances only grow after a deletion, so a narrow table may need the wide form.
        let old = std::mem::take(&mut self.clusters[c as usize].table);
        let mut table = Scratch {
            entries: old.entries.to_wide(),
            via_border: old.via_border,
            via_block: old.via_block,
        };
        let result = self.fill_rows(graph, c, &sources, &mut table);
        self.clusters[c as usize].table = table.into_table(metric);
        self.reindex_cluster(c);
        result.map(|()| sources.len())
    }

    /// Runs Dijkstra from each of `sources` (local indices; border positions for a leaf) over
    /// cluster `c`'s abstract graph and writes every entry that involves the source.
    fn fill_rows(
        &self,
        graph: &Graph,
        c: ClusterId,
        sources: &[u32],
        table: &mut Scratch,
    ) -> Result<(), NavError> {
        let cl = &self.clusters[c as usize];
        let m = cl.members.len();
        let metric = graph.metric;
        let lists = self.local_edges(graph, c);
        let local = LocalGraph::from_lists(lists);
        let leaf = cl.is_leaf();
        let mut roles = vec![0u32; m];
        for &b in &cl.border {
            roles[b as usize] |= ROLE_BORDER;
        }
        let block: Vec<u32> = if leaf {
            Vec::new()
        } else {
            (0..m as u32)
                .map(|a| role_block(cl.child_index(a)))
                .collect()
        };
        for (r, b) in roles.iter_mut().zip(&block) {
            *r |= b;
        }
        let mut dist = vec![UNREACHABLE; m];
        let mut via = vec![0u32; m];
        let mut heap = BinaryHeap::new();
        for &p in sources {
            let p = p as usize;
            local.dijkstra(metric, p as u32, &roles, &mut dist, &mut via, &mut heap)?;
            // A leaf stores border node p's column, an inner cluster member p's row; the
            // inner matrix is symmetric, so p's column gets the same distances. The bits
            // belong to the source's own run (row p).
            let row = p * m;
            table.entries[row..row + m].copy_from_slice(&dist);
            for (x, &passed) in via.iter().enumerate() {
                table.via_border.set(row + x, passed & ROLE_BORDER != 0);
                if !leaf {
                    table.via_block.set(row + x, passed & block[x] != 0);
                    table.entries[x * m + p] = dist[x];
                }
            }
        }
        Ok(())
    }

    /// Cluster `c`'s edges by local index: real edges inside a leaf; for an inner cluster, real
    /// edges between members of different children and virtual edges (the child's table)
    /// between border nodes of the same child.
    fn local_edges(&self, graph: &Graph, c: ClusterId) -> Vec<Vec<(u32, Packed)>> {
        let cl = &self.clusters[c as usize];
        let m = cl.members.len();
        let mut lists: Vec<Vec<(u32, Packed)>> = vec![Vec::new(); m];
        if cl.is_leaf() {
            for (a, &v) in cl.members.iter().enumerate() {
                for (w, cost) in graph.neighbors(v) {
                    if self.leaf_of[w as usize] == c {
                        lists[a].push((self.chain(w)[0], cost));
                    }
                }
            }
        } else {
            for (a, &v) in cl.members.iter().enumerate() {
                let ka = cl.child_index(a as u32);
                // Real edges to members in other children.
                for (w, cost) in graph.neighbors(v) {
                    if let Some(b) = self.local_in(w, c)
                        && cl.child_index(b) != ka
                    {
                        lists[a].push((b, cost));
                    }
                }
                // Virtual edges to the other border nodes of the same child.
                let child = &self.clusters[cl.children[ka] as usize];
                let (s, e) = (cl.child_start[ka], cl.child_start[ka + 1]);
                let pa = a as u32 - s;
                for b in s..e {
                    if b == a as u32 {
                        continue;
                    }
                    let d = child.dist(child.border[pa as usize], child.border[(b - s) as usize]);
                    if d != UNREACHABLE {
                        lists[a].push((b, d));
                    }
                }
            }
        }
        lists
    }

    /// Checks that cluster `c`'s stored table holds the shortest distances of its region: each
    /// finite entry is reached over some edge from another entry of its row, no edge offers a
    /// shorter way, and an unreachable entry has no reachable predecessor. With positive edge
    /// costs these (Bellman's) equations have one solution, so a corrupted entry, or a graph
    /// changed under its tables, is found here, in one pass over the edges per row, instead of
    /// derailing a search later. Children's tables must have passed first (they are read as
    /// edges).
    pub(crate) fn verify_table_distances(
        &self,
        graph: &Graph,
        c: ClusterId,
    ) -> Result<(), NavError> {
        let cl = &self.clusters[c as usize];
        let m = cl.members.len();
        let metric = graph.metric;
        // Predecessors: the row of source p holds distances *from* p.
        let mut into: Vec<Vec<(u32, Packed)>> = vec![Vec::new(); m];
        for (a, out) in self.local_edges(graph, c).into_iter().enumerate() {
            for (b, cost) in out {
                into[b as usize].push((a as u32, cost));
            }
        }
        let sources: Vec<u32> = if cl.is_leaf() {
            cl.border.clone()
        } else {
            (0..m as u32).collect()
        };
        let bad = |p: u32, x: usize| {
            Err(NavError::Invalid(format!(
                "cluster {c}'s distance table disagrees with the graph (entry {p} -> {x}): the file is corrupt or stale; rebuild it"
            )))
        };
        for p in sources {
            let row = p as usize * m;
            for (x, preds) in into.iter().enumerate() {
                let d = cl.table.entries.get(row + x);
                if x == p as usize {
                    if d != 0 {
                        return bad(p, x);
                    }
                    continue;
                }
                // Within rounding of the search's own comparison (octile costs are irrational).
                let shorter_than = metric.value(d) * (1.0 - 1e-12);
                let mut tight = false;
                for &(y, cost) in preds {
                    let Some(through) = metric.add(cl.table.entries.get(row + y as usize), cost)
                    else {
                        continue;
                    };
                    if through == d {
                        tight = true;
                    } else if metric.value(through) < shorter_than {
                        return bad(p, x);
                    }
                }
                if d != UNREACHABLE && !tight {
                    return bad(p, x);
                }
            }
        }
        Ok(())
    }

    /// The distances between border nodes of cluster `c` (all ordered pairs, by border
    /// position): what its parent reads.
    pub(crate) fn border_distances(&self, c: ClusterId) -> Vec<Packed> {
        let cl = &self.clusters[c as usize];
        let mut out = Vec::with_capacity(cl.border.len() * cl.border.len());
        for &a in &cl.border {
            for &b in &cl.border {
                out.push(cl.dist(a, b));
            }
        }
        out
    }
}
