//! From a cluster tree to PPA*'s precomputed data: border nodes (members with an edge leaving
//! the cluster's region), inner clusters made of their children's border nodes, each node's
//! chain, and the distance tables, computed bottom-up (children first, because an inner
//! cluster's virtual edges are its children's table entries).

use super::partition::{ClusterTree, Partitioning, partition_with};
use ensemble_runtime::nav::hierarchy::{Cluster, NO_CLUSTER};
use ensemble_runtime::nav::{Graph, Hierarchy, NavData, NodeId};
#[cfg(feature = "progress")]
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Instant;

#[derive(Clone, Debug)]
pub struct BuildOptions {
    /// Largest leaf cluster (nodes). The default measured best on the 512×512 reference maps
    /// (docs/benchmarks/navigation.md): fewer levels, fewer expansions, and leaf tables of `nodes × border`.
    pub leaf_size: u32,
    /// Draw a progress bar on stderr (only when it is a terminal, and only with the `progress`
    /// feature, which the `ensemble` command turns on).
    pub progress: bool,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            leaf_size: 4000,
            progress: false,
        }
    }
}

/// What the precomputation made and what it cost.
#[derive(Clone, Debug, PartialEq)]
pub struct BuildReport {
    pub nodes: u32,
    pub edges: usize,
    pub clusters: usize,
    pub leaves: usize,
    pub levels: u32,
    pub leaf_size: u32,
    pub border_nodes: usize,
    pub table_entries: usize,
    pub partition_secs: f64,
    pub tables_secs: f64,
    /// Bytes the graph and hierarchy occupy in memory.
    pub data_bytes: usize,
}

/// How far a build has come, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stage {
    /// METIS is cutting the graph into the cluster tree (one call, no finer progress).
    Clustering,
    /// Distance tables, bottom-up; `done` and `total` are in units of table entries.
    Tables { done: u64, total: u64 },
}

/// Clusters `graph` and computes every distance table.
pub fn build(graph: Graph, options: &BuildOptions) -> Result<(NavData, BuildReport), String> {
    build_with(graph, options, &Partitioning::default())
}

/// [`build`] with METIS settings (for measuring them; the defaults are what measured best).
pub fn build_with(
    graph: Graph,
    options: &BuildOptions,
    how: &Partitioning,
) -> Result<(NavData, BuildReport), String> {
    #[cfg(feature = "progress")]
    let bar = if options.progress {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "distance tables {bar:40} {percent:>3}% [{elapsed_precise} < {eta_precise}]",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let built = build_observed_with(graph, options, how, |_stage| {
        #[cfg(feature = "progress")]
        if let Stage::Tables { done, total } = _stage {
            bar.set_length(total);
            bar.set_position(done);
        }
        true
    });
    #[cfg(feature = "progress")]
    bar.finish_and_clear();
    built.and_then(|b| b.ok_or_else(|| "the build was cancelled".to_string()))
}

/// [`build`], telling `observe` where it is (clustering, then after each cluster's table). When
/// `observe` returns `false` the build stops and returns `Ok(None)`: the editor cancels a build
/// when another map is opened.
pub fn build_observed(
    graph: Graph,
    options: &BuildOptions,
    observe: impl FnMut(Stage) -> bool,
) -> Result<Option<(NavData, BuildReport)>, String> {
    build_observed_with(graph, options, &Partitioning::default(), observe)
}

/// [`build_observed`] with METIS settings.
pub fn build_observed_with(
    graph: Graph,
    options: &BuildOptions,
    how: &Partitioning,
    mut observe: impl FnMut(Stage) -> bool,
) -> Result<Option<(NavData, BuildReport)>, String> {
    let t0 = Instant::now();
    if !observe(Stage::Clustering) {
        return Ok(None);
    }
    let tree = partition_with(&graph, options.leaf_size, how);
    let partition_secs = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let mut hierarchy = structure(&graph, &tree, options.leaf_size)?;
    // Work per cluster ~ sources × members, for progress that moves evenly.
    let work: Vec<u64> = hierarchy
        .clusters
        .iter()
        .map(|c| c.table_len() as u64 + 1)
        .collect();
    let total = work.iter().sum();
    let mut done = 0;
    for c in (0..hierarchy.clusters.len()).rev() {
        if !observe(Stage::Tables { done, total }) {
            return Ok(None);
        }
        let table = hierarchy
            .compute_table(&graph, c as u32)
            .map_err(|e| e.to_string())?;
        hierarchy.clusters[c].table = table;
        done += work[c];
    }
    observe(Stage::Tables { done, total });
    let tables_secs = t1.elapsed().as_secs_f64();
    let edges = graph.edge_slots() / 2;
    let data = NavData::new(graph, hierarchy).map_err(|e| format!("internal error: {e}"))?;
    let h = &data.hierarchy;
    let report = BuildReport {
        nodes: data.graph.node_count(),
        edges,
        clusters: h.clusters.len(),
        leaves: h.leaf_count(),
        levels: h.levels(),
        leaf_size: options.leaf_size,
        border_nodes: h
            .clusters
            .iter()
            .filter(|c| c.is_leaf())
            .map(|c| c.border.len())
            .sum(),
        table_entries: h.table_entries(),
        partition_secs,
        tables_secs,
        data_bytes: data.heap_bytes(),
    };
    Ok(Some((data, report)))
}

/// Members, border nodes and chains of every cluster (tables left empty).
pub fn structure(graph: &Graph, tree: &ClusterTree, leaf_size: u32) -> Result<Hierarchy, String> {
    let n = graph.node_count() as usize;
    let k = tree.len();
    let mut leaf_of = vec![NO_CLUSTER; n];
    for (c, nodes) in tree.leaf_nodes.iter().enumerate() {
        for &v in nodes {
            leaf_of[v as usize] = c as u32;
        }
    }
    // Each leaf's path from the root, to answer "is w inside cluster c's region?".
    let max_depth = tree.depth.iter().copied().max().unwrap_or(0) as usize;
    let mut ancestors = vec![Vec::new(); k];
    for c in 0..k {
        let p = tree.parent[c];
        let mut path = if p == u32::MAX {
            Vec::with_capacity(max_depth + 1)
        } else {
            ancestors[p as usize].clone()
        };
        path.push(c as u32);
        ancestors[c] = path;
    }
    let inside = |w: NodeId, c: usize| {
        let path = &ancestors[leaf_of[w as usize] as usize];
        path.get(tree.depth[c] as usize) == Some(&(c as u32))
    };
    let leaves_over = |v: NodeId, c: usize| graph.neighbors(v).any(|(w, _)| !inside(w, c));

    let mut clusters: Vec<Cluster> = (0..k)
        .map(|c| Cluster {
            parent: if tree.parent[c] == u32::MAX {
                NO_CLUSTER
            } else {
                tree.parent[c]
            },
            depth: tree.depth[c],
            children: tree.children[c].clone(),
            members: Vec::new(),
            child_start: Vec::new(),
            border: Vec::new(),
            table: Default::default(),
        })
        .collect();
    // Bottom-up: a cluster's members are its children's border nodes.
    for c in (0..k).rev() {
        if tree.children[c].is_empty() {
            let mut nodes = tree.leaf_nodes[c].clone();
            nodes.sort_unstable();
            let (border, inner): (Vec<NodeId>, Vec<NodeId>) =
                nodes.into_iter().partition(|&v| leaves_over(v, c));
            let cl = &mut clusters[c];
            cl.border = (0..border.len() as u32).collect();
            cl.members = border;
            cl.members.extend(inner);
        } else {
            let mut members = Vec::new();
            let mut child_start = vec![0u32];
            for &ch in &tree.children[c] {
                let child = &clusters[ch as usize];
                members.extend(child.border.iter().map(|&b| child.members[b as usize]));
                child_start.push(members.len() as u32);
            }
            let border = (0..members.len() as u32)
                .filter(|&i| leaves_over(members[i as usize], c))
                .collect();
            let cl = &mut clusters[c];
            cl.members = members;
            cl.child_start = child_start;
            cl.border = border;
        }
    }
    // Chains: climb while the node is a border node of the cluster it is in.
    let mut border_pos: Vec<Vec<u32>> = clusters
        .iter()
        .map(|cl| {
            let mut pos = vec![u32::MAX; cl.members.len()];
            for (p, &b) in cl.border.iter().enumerate() {
                pos[b as usize] = p as u32;
            }
            pos
        })
        .collect();
    let mut chains = vec![Vec::new(); n];
    for c in 0..k {
        if !tree.children[c].is_empty() {
            continue;
        }
        for (local, &v) in clusters[c].members.iter().enumerate() {
            let chain: &mut Vec<u32> = &mut chains[v as usize];
            let (mut cur, mut loc) = (c, local as u32);
            chain.push(loc);
            loop {
                let p = border_pos[cur][loc as usize];
                let parent = clusters[cur].parent;
                if p == u32::MAX || parent == NO_CLUSTER {
                    break;
                }
                let pc = &clusters[parent as usize];
                let slot = pc
                    .children
                    .iter()
                    .position(|&x| x as usize == cur)
                    .ok_or("internal error: cluster missing from its parent")?;
                loc = pc.child_start[slot] + p;
                cur = parent as usize;
                chain.push(loc);
            }
        }
    }
    border_pos.clear();
    if leaf_of.contains(&NO_CLUSTER) {
        return Err("internal error: a node has no leaf cluster".into());
    }
    Hierarchy::from_parts(leaf_size, clusters, leaf_of, &chains).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_runtime::nav::astar::astar;

    fn room() -> Graph {
        // Two rooms joined by a door, big enough for several leaves.
        let (w, h) = (24, 12);
        let passable: Vec<bool> = (0..w * h)
            .map(|i| {
                let (x, y) = (i % w, i / w);
                x != 12 || y == 6
            })
            .collect();
        Graph::octile_grid(w, h, &passable).unwrap()
    }

    #[test]
    fn progress_climbs_to_the_total_and_the_result_is_the_plain_build() {
        let options = BuildOptions {
            leaf_size: 40,
            progress: false,
        };
        let mut stages = Vec::new();
        let (data, report) = build_observed(room(), &options, |s| {
            stages.push(s);
            true
        })
        .unwrap()
        .unwrap();
        assert_eq!(stages[0], Stage::Clustering);
        let tables: Vec<(u64, u64)> = stages[1..]
            .iter()
            .map(|s| match s {
                Stage::Tables { done, total } => (*done, *total),
                Stage::Clustering => panic!("clustering twice"),
            })
            .collect();
        assert!(tables.windows(2).all(|w| w[0].0 <= w[1].0));
        let &(done, total) = tables.last().unwrap();
        assert_eq!(done, total);
        assert_eq!(tables.len(), report.clusters + 1);
        let (plain, _) = build(room(), &options).unwrap();
        assert_eq!(data, plain);
        let mut ws = ensemble_runtime::nav::Workspace::new(data.graph.node_count());
        let (a, b) = (0, data.graph.node_count() - 1);
        let ppa = data.find_path(a, b, &mut ws).unwrap().unwrap();
        let reference = astar(&data.graph, a, b, &mut ws).unwrap().unwrap();
        assert_eq!(ppa.cost, reference.cost);
    }

    #[test]
    fn a_build_stops_when_asked() {
        let options = BuildOptions {
            leaf_size: 40,
            progress: false,
        };
        assert!(
            build_observed(room(), &options, |_| false)
                .unwrap()
                .is_none()
        );
        let mut calls = 0;
        let stopped = build_observed(room(), &options, |s| {
            calls += 1;
            matches!(s, Stage::Clustering)
        });
        assert!(stopped.unwrap().is_none());
        assert_eq!(calls, 2);
    }
}
