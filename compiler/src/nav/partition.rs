//! The cluster tree: recursive METIS partitioning (Hewlett §4.3.3). The whole graph is cut into
//! four balanced parts, then each part again, until a part has at most `leaf_size` nodes.
//! Hewlett used METIS's edge-cut objective as "a fair proxy" for few border nodes; minimising
//! the communication volume (the nodes with a neighbour in another part, counted per part)
//! measures the border nodes more directly and gives fewer of them, as does keeping the best of
//! four cuts ([`Partitioning`]). Clustering ignores coordinates: only connectivity matters.

use ensemble_runtime::nav::{Graph, NodeId};
use std::collections::VecDeque;

/// Parts per split (the thesis uses four).
pub const FANOUT: usize = 4;

/// How METIS cuts each cluster (measured in docs/benchmarks/navigation.md).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Partitioning {
    /// Minimise the total communication volume (roughly: the border nodes) instead of the
    /// edge cut.
    pub volume: bool,
    /// Partitions METIS computes per cut, keeping the best.
    pub ncuts: i32,
    /// Allowed imbalance of the parts, in thousandths over perfect balance (METIS `ufactor`).
    pub ufactor: i32,
    /// Recursive bisection instead of k-way partitioning.
    pub recursive: bool,
}

impl Default for Partitioning {
    /// Communication volume, four cuts per split: fewest border nodes on both 512×512
    /// reference maps (Boston_0_512 −13%, 64room_005 −32% against METIS's defaults), and the
    /// fastest queries (docs/benchmarks/navigation.md).
    fn default() -> Self {
        Partitioning {
            volume: true,
            ncuts: 4,
            ufactor: 30,
            recursive: false,
        }
    }
}

/// Clusters in top-down order (the root is 0, parents before children).
#[derive(Clone, Debug, Default)]
pub struct ClusterTree {
    pub parent: Vec<u32>,
    pub children: Vec<Vec<u32>>,
    pub depth: Vec<u32>,
    /// The nodes of each leaf (empty for inner clusters).
    pub leaf_nodes: Vec<Vec<NodeId>>,
}

impl ClusterTree {
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    fn push(&mut self, parent: u32, depth: u32) -> u32 {
        self.parent.push(parent);
        self.children.push(Vec::new());
        self.depth.push(depth);
        self.leaf_nodes.push(Vec::new());
        (self.parent.len() - 1) as u32
    }
}

/// Splits `graph` into a tree whose leaves have at most `leaf_size` nodes.
pub fn partition(graph: &Graph, leaf_size: u32) -> ClusterTree {
    partition_with(graph, leaf_size, &Partitioning::default())
}

/// [`partition`] with METIS settings.
pub fn partition_with(graph: &Graph, leaf_size: u32, how: &Partitioning) -> ClusterTree {
    let leaf_size = leaf_size.max(1) as usize;
    let n = graph.node_count();
    let mut tree = ClusterTree::default();
    let root = tree.push(u32::MAX, 0);
    let mut queue = VecDeque::from([(root, (0..n).collect::<Vec<NodeId>>())]);
    let mut local_of = vec![u32::MAX; n as usize];
    while let Some((id, nodes)) = queue.pop_front() {
        if nodes.len() <= leaf_size {
            tree.leaf_nodes[id as usize] = nodes;
            continue;
        }
        let parts = split(graph, &nodes, &mut local_of, how);
        let depth = tree.depth[id as usize] + 1;
        for part in parts {
            let child = tree.push(id, depth);
            tree.children[id as usize].push(child);
            queue.push_back((child, part));
        }
    }
    tree
}

/// Cuts `nodes` into up to [`FANOUT`] non-empty parts (always at least two).
fn split(
    graph: &Graph,
    nodes: &[NodeId],
    local_of: &mut [u32],
    how: &Partitioning,
) -> Vec<Vec<NodeId>> {
    for (i, &v) in nodes.iter().enumerate() {
        local_of[v as usize] = i as u32;
    }
    let mut xadj: Vec<metis::Idx> = Vec::with_capacity(nodes.len() + 1);
    let mut adjncy: Vec<metis::Idx> = Vec::new();
    xadj.push(0);
    for &v in nodes {
        let first = adjncy.len();
        for (w, _) in graph.neighbors(v) {
            let lw = local_of[w as usize];
            if lw != u32::MAX && w != v {
                let lw = lw as metis::Idx;
                if !adjncy[first..].contains(&lw) {
                    adjncy.push(lw);
                }
            }
        }
        xadj.push(adjncy.len() as metis::Idx);
    }
    let mut part = vec![0 as metis::Idx; nodes.len()];
    let configured = || {
        metis::Graph::new(1, FANOUT as metis::Idx, &xadj, &adjncy)
            .ok()
            .map(|g| {
                g.set_option(metis::option::Seed(1))
                    .set_option(metis::option::NCuts(how.ncuts.max(1)))
                    .set_option(metis::option::UFactor(how.ufactor.max(1)))
            })
    };
    let kway = |part: &mut [metis::Idx]| {
        configured()
            .map(|g| {
                if how.volume {
                    g.set_option(metis::option::ObjType::Vol)
                } else {
                    g
                }
            })
            .is_some_and(|g| g.part_kway(part).is_ok())
    };
    let recursive =
        |part: &mut [metis::Idx]| configured().is_some_and(|g| g.part_recursive(part).is_ok());
    // The configured method first; the other if METIS refuses.
    type Method<'m> = &'m dyn Fn(&mut [metis::Idx]) -> bool;
    let (first, second): (Method, Method) = if how.recursive {
        (&recursive, &kway)
    } else {
        (&kway, &recursive)
    };
    // METIS keeps its random generator in process-wide state (GKlib), reseeded by each call:
    // two builds partitioning at once (tests, the editor's worker beside a compile) would
    // interleave it and cut differently. One METIS call at a time keeps builds reproducible.
    static METIS: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let ok = {
        let _one = METIS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        first(&mut part) || second(&mut part)
    };
    for &v in nodes {
        local_of[v as usize] = u32::MAX;
    }
    let mut parts: Vec<Vec<NodeId>> = vec![Vec::new(); FANOUT];
    if ok {
        for (i, &p) in part.iter().enumerate() {
            parts[(p.max(0) as usize).min(FANOUT - 1)].push(nodes[i]);
        }
    }
    parts.retain(|p| !p.is_empty());
    if parts.len() < 2 {
        // METIS failed or put everything in one part: fall back to consecutive chunks so the
        // recursion always makes progress.
        let chunk = nodes.len().div_ceil(FANOUT);
        parts = nodes.chunks(chunk).map(<[NodeId]>::to_vec).collect();
    }
    parts
}
