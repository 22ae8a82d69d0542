//! Exact distance tables, one cluster at a time (Hewlett §4.3.3: "APSP per subgraph",
//! computed bottom-up because an inner cluster's virtual edges read its children's tables).
//!
//! Edge costs are non-negative, so Johnson's algorithm reduces to one Dijkstra per source. A
//! leaf runs it from each border node over the real edges inside the leaf; an inner cluster runs
//! it from each member over its abstract graph (real edges between children plus virtual edges
//! inside each child).

use super::NavError;
use super::cost::{Metric, Packed, UNREACHABLE, key};
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

    /// Dijkstra from local `source`; fills `dist` (length = nodes).
    fn dijkstra(
        &self,
        metric: Metric,
        source: u32,
        dist: &mut [Packed],
        heap: &mut BinaryHeap<Reverse<(u64, u32)>>,
    ) -> Result<(), NavError> {
        dist.fill(UNREACHABLE);
        heap.clear();
        dist[source as usize] = 0;
        heap.push(Reverse((0, source)));
        while let Some(Reverse((k, u))) = heap.pop() {
            let du = dist[u as usize];
            if key(metric.value(du)) != k {
                continue;
            }
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
                    heap.push(Reverse((key(metric.value(nd)), v as u32)));
                }
            }
        }
        Ok(())
    }
}

impl Hierarchy {
    /// Computes cluster `c`'s distance table from the graph and (for an inner cluster) its
    /// children's tables, which must be current.
    pub fn compute_table(&self, graph: &Graph, c: ClusterId) -> Result<Vec<Packed>, NavError> {
        let cl = &self.clusters[c as usize];
        let sources: Vec<u32> = if cl.is_leaf() {
            cl.border.clone()
        } else {
            (0..cl.members.len() as u32).collect()
        };
        let mut table = vec![UNREACHABLE; cl.table_len()];
        self.fill_rows(graph, c, &sources, &mut table)?;
        Ok(table)
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
        let mut table = std::mem::take(&mut self.clusters[c as usize].table);
        let result = self.fill_rows(graph, c, &sources, &mut table);
        self.clusters[c as usize].table = table;
        result.map(|()| sources.len())
    }

    /// Runs Dijkstra from each of `sources` (local indices; border positions for a leaf) over
    /// cluster `c`'s abstract graph and writes every entry that involves the source.
    fn fill_rows(
        &self,
        graph: &Graph,
        c: ClusterId,
        sources: &[u32],
        table: &mut [Packed],
    ) -> Result<(), NavError> {
        let cl = &self.clusters[c as usize];
        let m = cl.members.len();
        let metric = graph.metric;
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
        let local = LocalGraph::from_lists(lists);
        let mut dist = vec![UNREACHABLE; m];
        let mut heap = BinaryHeap::new();
        if cl.is_leaf() {
            let c = cl.border.len();
            for &p in sources {
                local.dijkstra(metric, p, &mut dist, &mut heap)?;
                for (a, &d) in dist.iter().enumerate() {
                    table[a * c + p as usize] = d;
                }
            }
        } else {
            for &i in sources {
                let i = i as usize;
                local.dijkstra(metric, i as u32, &mut dist, &mut heap)?;
                // Row i holds (i, j >= i); the pairs (j < i, i) sit in earlier rows.
                for (j, &d) in dist.iter().enumerate().take(i) {
                    table[j * (2 * m - j + 1) / 2 + (i - j)] = d;
                }
                let row = i * (2 * m - i + 1) / 2;
                table[row..row + (m - i)].copy_from_slice(&dist[i..]);
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
