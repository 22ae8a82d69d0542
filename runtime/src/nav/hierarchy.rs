//! The precomputed cluster hierarchy (Hewlett §4.3.3): a tree of clusters, four children per
//! cluster, whose leaves ("level-0 subgraphs") hold every node once. An inner cluster holds only
//! the border nodes of its children; its abstract graph is the real edges between children plus
//! a virtual edge between every two border nodes of one child, weighted by the child's distance
//! table. Each cluster stores exact distances inside its region:
//!
//! - a leaf: `border × members`, border-major (every border node's distance to every member;
//!   the graph is undirected, so it is also the member's distance to the border node). A
//!   border node's column is contiguous, so ResolvePath's walk to it reads neighbouring cells
//!   from neighbouring entries;
//! - an inner cluster: the full `members × members` matrix, row-major, so that every
//!   successor generation of the search reads one contiguous row (the upper triangle alone
//!   would halve the bytes but turn half the reads into cache misses).
//!
//! A node's *chain* is its leaf, then every ancestor it is a member of: it climbs one level for
//! as long as it is a border node of the cluster below.

use super::NavError;
use super::cost::{Metric, Packed, UNREACHABLE};
use super::distances::Table;
use super::graph::NodeId;
use super::index::SearchIndex;
use serde::{Deserialize, Serialize};

/// Cluster id: index into [`Hierarchy::clusters`]. The root is 0; parents come before children.
pub type ClusterId = u32;

/// No cluster (the root's parent).
pub const NO_CLUSTER: ClusterId = u32::MAX;

/// One cluster of the hierarchy: a region of the graph, its members (a leaf's nodes, or an
/// inner cluster's children's border nodes) and its exact distance table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cluster {
    /// The parent cluster; [`NO_CLUSTER`] for the root.
    pub parent: ClusterId,
    /// Root 0, children one more than their parent.
    pub depth: u32,
    /// Child clusters; empty for a leaf.
    pub children: Vec<ClusterId>,
    /// Local index -> node. A leaf lists its border nodes first; an inner cluster lists its
    /// children's border nodes, child by child, each child in its own border order.
    pub members: Vec<NodeId>,
    /// Inner clusters: where each child's block starts in `members` (`children.len() + 1`
    /// entries). Empty for a leaf.
    pub child_start: Vec<u32>,
    /// Local indices of this cluster's border nodes (members with an edge leaving the region).
    /// For a leaf this is `0..border.len()`.
    pub border: Vec<u32>,
    /// The distance table (see the module documentation for its layout).
    pub table: Table,
}

impl Cluster {
    /// Whether it is a leaf (a level-0 subgraph holding real nodes).
    pub fn is_leaf(&self) -> bool {
        self.children.is_empty()
    }

    /// Entries the table must have.
    pub fn table_len(&self) -> usize {
        let m = self.members.len();
        if self.is_leaf() {
            m * self.border.len()
        } else {
            m * m
        }
    }

    /// Distance from local `a` to local `b` inside the region. For a leaf one of the two must
    /// be a border node.
    #[inline]
    pub fn dist(&self, a: u32, b: u32) -> Packed {
        let (a, b) = (a as usize, b as usize);
        let m = self.members.len();
        if self.is_leaf() {
            let c = self.border.len();
            if b < c {
                self.table.get(b * m + a)
            } else if a < c {
                self.table.get(a * m + b)
            } else {
                UNREACHABLE
            }
        } else {
            self.table.get(a * m + b)
        }
    }

    /// The child block that local member `a` of an inner cluster belongs to.
    #[inline]
    pub fn child_index(&self, a: u32) -> usize {
        // At most a handful of children: a linear scan beats a binary search.
        let mut k = 0;
        while self.child_start[k + 1] <= a {
            k += 1;
        }
        k
    }
}

/// The precomputed PPA* data over one graph: clusters, each node's leaf and chain.
///
/// Invariant: a hierarchy obtained from [`Hierarchy::from_parts`] or a verified file has
/// every index in range, so the search and ResolvePath index it without checks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hierarchy {
    /// The leaf size the hierarchy was built for (clusters larger than this were split).
    pub leaf_size: u32,
    /// Every cluster, root first, parents before children.
    pub clusters: Vec<Cluster>,
    /// Node -> its leaf.
    pub leaf_of: Vec<ClusterId>,
    /// Node -> start of its chain in `chain_local` (`nodes + 1` entries).
    chain_start: Vec<u32>,
    /// For each node, its local index in its leaf, its leaf's parent, ... (see module docs).
    chain_local: Vec<u32>,
    /// Derived on construction and load, never stored (see [`super::index`]).
    #[serde(skip)]
    index: SearchIndex,
}

impl Hierarchy {
    /// Assembles and checks a hierarchy. `chains[v]` lists `v`'s local indices from its leaf up.
    pub fn from_parts(
        leaf_size: u32,
        clusters: Vec<Cluster>,
        leaf_of: Vec<ClusterId>,
        chains: &[Vec<u32>],
    ) -> Result<Hierarchy, NavError> {
        let mut chain_start = Vec::with_capacity(chains.len() + 1);
        let mut chain_local = Vec::new();
        chain_start.push(0);
        for c in chains {
            chain_local.extend_from_slice(c);
            chain_start.push(chain_local.len() as u32);
        }
        let mut h = Hierarchy {
            leaf_size,
            clusters,
            leaf_of,
            chain_start,
            chain_local,
            index: SearchIndex::default(),
        };
        h.verify_structure(chains.len() as u32, false)?;
        h.reindex()?;
        Ok(h)
    }

    /// Rebuilds the search index (after [`Hierarchy::verify_structure`]).
    pub(crate) fn reindex(&mut self) -> Result<(), NavError> {
        self.index = SearchIndex::new(self)?;
        Ok(())
    }

    /// Rebuilds cluster `c`'s part of the search index after its table changed.
    pub(crate) fn reindex_cluster(&mut self, c: ClusterId) {
        let mut index = std::mem::take(&mut self.index);
        index.refresh(self, c);
        self.index = index;
    }

    pub(crate) fn index(&self) -> &SearchIndex {
        &self.index
    }

    /// `v`'s local indices, leaf first.
    #[inline]
    pub fn chain(&self, v: NodeId) -> &[u32] {
        let (a, b) = (
            self.chain_start[v as usize] as usize,
            self.chain_start[v as usize + 1] as usize,
        );
        &self.chain_local[a..b]
    }

    /// The cluster path from the root down to `v`'s leaf, indexed by depth.
    pub fn path_to_root(&self, v: NodeId) -> Vec<ClusterId> {
        let mut path = Vec::new();
        let mut c = self.leaf_of[v as usize];
        while c != NO_CLUSTER {
            path.push(c);
            c = self.clusters[c as usize].parent;
        }
        path.reverse();
        path
    }

    /// `v`'s local index in cluster `c`, if `v` is a member of it.
    #[inline]
    pub fn local_in(&self, v: NodeId, c: ClusterId) -> Option<u32> {
        let chain = self.chain(v);
        let mut k = self.leaf_of[v as usize];
        for &local in chain {
            if k == c {
                return Some(local);
            }
            k = self.clusters[k as usize].parent;
            if k == NO_CLUSTER {
                break;
            }
        }
        None
    }

    /// The lowest cluster whose region holds both leaves.
    pub fn common_ancestor(&self, mut a: ClusterId, mut b: ClusterId) -> ClusterId {
        while a != b {
            let (da, db) = (
                self.clusters[a as usize].depth,
                self.clusters[b as usize].depth,
            );
            if da >= db {
                a = self.clusters[a as usize].parent;
            }
            if db >= da {
                b = self.clusters[b as usize].parent;
            }
        }
        a
    }

    /// Number of leaves.
    pub fn leaf_count(&self) -> usize {
        self.clusters.iter().filter(|c| c.is_leaf()).count()
    }

    /// Number of levels (the root alone is one).
    pub fn levels(&self) -> u32 {
        self.clusters.iter().map(|c| c.depth + 1).max().unwrap_or(0)
    }

    /// Distance-table entries over all clusters.
    pub fn table_entries(&self) -> usize {
        self.clusters.iter().map(|c| c.table.len()).sum()
    }

    /// Bytes held by the hierarchy's arrays (tables dominate).
    pub fn heap_bytes(&self) -> usize {
        let per_cluster: usize = self
            .clusters
            .iter()
            .map(|c| {
                std::mem::size_of::<Cluster>()
                    + 4 * (c.children.len()
                        + c.members.len()
                        + c.child_start.len()
                        + c.border.len())
                    + c.table.heap_bytes()
            })
            .sum();
        per_cluster
            + self.index.heap_bytes()
            + 4 * (self.leaf_of.len() + self.chain_start.len() + self.chain_local.len())
    }

    /// Checks every index the search and ResolvePath follow, so that a hierarchy that passed
    /// never makes them panic. With `tables`, also the table sizes and entry encoding.
    pub(crate) fn verify_structure(&self, nodes: u32, tables: bool) -> Result<(), NavError> {
        let bad = |m: String| Err(NavError::Invalid(m));
        let k = self.clusters.len();
        if k == 0 {
            return bad("the hierarchy has no clusters".into());
        }
        if self.clusters[0].parent != NO_CLUSTER || self.clusters[0].depth != 0 {
            return bad("cluster 0 is not the root".into());
        }
        for (i, c) in self.clusters.iter().enumerate() {
            if i > 0 {
                if c.parent as usize >= i {
                    return bad(format!("cluster {i} does not come after its parent"));
                }
                let p = &self.clusters[c.parent as usize];
                if c.depth != p.depth + 1 || !p.children.contains(&(i as u32)) {
                    return bad(format!("cluster {i} and its parent disagree"));
                }
            }
            if c.members.iter().any(|&v| v >= nodes) {
                return bad(format!("cluster {i} has a member that is not a node"));
            }
            let m = c.members.len() as u32;
            if c.members.len() > u32::MAX as usize / 2 {
                return bad(format!("cluster {i} is implausibly large"));
            }
            if c.is_leaf() {
                if !c.child_start.is_empty()
                    || c.border.iter().enumerate().any(|(p, &b)| b != p as u32)
                    || c.border.len() > c.members.len()
                {
                    return bad(format!("leaf {i} does not list its border nodes first"));
                }
            } else {
                if c.child_start.len() != c.children.len() + 1
                    || c.child_start[0] != 0
                    || *c.child_start.last().unwrap() != m
                    || c.child_start.windows(2).any(|w| w[0] > w[1])
                {
                    return bad(format!("cluster {i} has malformed child blocks"));
                }
                for (j, &ch) in c.children.iter().enumerate() {
                    if ch as usize <= i || ch as usize >= k {
                        return bad(format!("cluster {i} has a bad child"));
                    }
                    let child = &self.clusters[ch as usize];
                    let block =
                        &c.members[c.child_start[j] as usize..c.child_start[j + 1] as usize];
                    let expected = child.border.iter().map(|&b| child.members.get(b as usize));
                    if block.len() != child.border.len() || !block.iter().map(Some).eq(expected) {
                        return bad(format!(
                            "cluster {i} does not hold exactly the border nodes of child {ch}"
                        ));
                    }
                }
                if c.border.iter().any(|&b| b >= m) {
                    return bad(format!("cluster {i} has a border index out of range"));
                }
            }
            if tables && c.table.len() != c.table_len() {
                return bad(format!(
                    "cluster {i} has {} table entries, {} expected",
                    c.table.len(),
                    c.table_len()
                ));
            }
        }
        if self.leaf_of.len() != nodes as usize || self.chain_start.len() != nodes as usize + 1 {
            return bad("the node index has the wrong length".into());
        }
        if self.chain_start[0] != 0
            || self.chain_start.windows(2).any(|w| w[0] > w[1])
            || *self.chain_start.last().unwrap() as usize != self.chain_local.len()
        {
            return bad("the chain index is malformed".into());
        }
        for v in 0..nodes {
            let leaf = self.leaf_of[v as usize];
            if leaf as usize >= k || !self.clusters[leaf as usize].is_leaf() {
                return bad(format!("node {v} has no leaf"));
            }
            let chain = self.chain(v);
            if chain.is_empty() {
                return bad(format!("node {v} has an empty chain"));
            }
            let mut c = leaf;
            for (j, &local) in chain.iter().enumerate() {
                if c == NO_CLUSTER {
                    return bad(format!("node {v}'s chain climbs above the root"));
                }
                let cl = &self.clusters[c as usize];
                if cl.members.get(local as usize) != Some(&v) {
                    return bad(format!("node {v}'s chain is wrong at level {j}"));
                }
                c = cl.parent;
            }
        }
        Ok(())
    }

    /// Checks the table entries of a decoded hierarchy.
    pub(crate) fn verify_tables(&self, metric: Metric) -> Result<(), NavError> {
        for (i, c) in self.clusters.iter().enumerate() {
            if !c.table.is_valid_for(metric, !c.is_leaf()) {
                return Err(NavError::Invalid(format!(
                    "cluster {i} has a malformed distance table"
                )));
            }
        }
        Ok(())
    }
}
