//! The search index: what the layered search reads on every expansion, derived from the
//! hierarchy when it is built or loaded (never stored, so the file format does not carry it).
//!
//! - **Slots.** The search only ever generates leaf border nodes (every inner member is one),
//!   plus the start and goals. Each leaf border node gets a dense number, leaf by leaf, so the
//!   search's per-node state is a few hundred kilobytes instead of one entry per graph node.
//! - **Successor lists.** For every node and every set the search generates from it (a leaf's
//!   border nodes; an inner cluster's border nodes; one child block of an inner cluster), the
//!   entries of the table that are *not* dominated, as `(slot, distance)` pairs side by side.
//!   The tables hold many more entries than the search generates (on Boston_0_512 about one in
//!   six of an inner row), and reading the few it needs out of a cold row costs a cache miss
//!   each; a contiguous list costs one miss per eight.
//!
//! **Invariant:** the lists of a cluster are rebuilt whenever its table changes
//! ([`Hierarchy::reindex_cluster`]), so they always agree with it.

use super::NavError;
use super::cost::Packed;
use super::graph::NodeId;
use super::hierarchy::{Cluster, ClusterId, Hierarchy};

/// Not a leaf border node.
pub(crate) const NO_SLOT: u32 = u32::MAX;

#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct SearchIndex {
    /// Slot -> node.
    pub(crate) slot_node: Vec<NodeId>,
    /// Node -> slot, [`NO_SLOT`] for nodes inside a leaf.
    pub(crate) slot_of: Vec<u32>,
    /// Per cluster, local index -> slot (a leaf: its border positions only).
    pub(crate) member_slot: Vec<Vec<u32>>,
    /// Per cluster, its successor lists (empty until the tables exist).
    pub(crate) lists: Vec<Lists>,
    /// Node -> (its leaf, its local index there): what ResolvePath's walk inside a leaf asks
    /// of every neighbour, in one load.
    pub(crate) leaf_local: Vec<(u32, u32)>,
}

/// One cluster's successor lists in compressed-row form. A leaf has one list per border
/// position (to the other border nodes); an inner cluster with `k` children has `1 + k` per
/// member: its border nodes, then each child block.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Lists {
    start: Vec<u32>,
    edges: Vec<(u32, Packed)>,
}

impl Lists {
    /// List `i`: `(slot, distance)` pairs.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &[(u32, Packed)] {
        &self.edges[self.start[i] as usize..self.start[i + 1] as usize]
    }

    fn heap_bytes(&self) -> usize {
        4 * self.start.len() + 8 * self.edges.len()
    }

    /// The lists of cluster `cl` from its table and domination bits.
    fn build(cl: &Cluster, member_slot: &[u32]) -> Lists {
        let m = cl.members.len();
        let mut lists = Lists {
            start: vec![0],
            edges: Vec::new(),
        };
        if cl.table.len() != cl.table_len() {
            // Not computed yet (a hierarchy being built).
            return Lists::default();
        }
        if cl.is_leaf() {
            let nb = cl.border.len();
            for lv in 0..nb {
                cl.table
                    .for_each_open(lv * m, nb, &cl.table.via_border, None, |b, d| {
                        if b != lv {
                            lists.edges.push((member_slot[b], d));
                        }
                    });
                lists.start.push(lists.edges.len() as u32);
            }
            return lists;
        }
        let mut is_border = super::distances::Bits::new(m);
        for &b in &cl.border {
            is_border.set(b as usize, true);
        }
        for a in 0..m {
            let row = a * m;
            cl.table
                .for_each_open(row, m, &cl.table.via_border, Some(&is_border), |b, d| {
                    if b != a {
                        lists.edges.push((member_slot[b], d));
                    }
                });
            lists.start.push(lists.edges.len() as u32);
            for k in 0..cl.children.len() {
                let (from, to) = (cl.child_start[k] as usize, cl.child_start[k + 1] as usize);
                cl.table
                    .for_each_open(row + from, to - from, &cl.table.via_block, None, |j, d| {
                        if from + j != a {
                            lists.edges.push((member_slot[from + j], d));
                        }
                    });
                lists.start.push(lists.edges.len() as u32);
            }
        }
        lists
    }
}

impl SearchIndex {
    /// Numbers the leaf border nodes and builds every cluster's lists (after the hierarchy's
    /// structure has been verified).
    pub(crate) fn new(h: &Hierarchy) -> Result<SearchIndex, NavError> {
        let mut index = SearchIndex {
            slot_node: Vec::new(),
            slot_of: vec![NO_SLOT; h.leaf_of.len()],
            member_slot: Vec::with_capacity(h.clusters.len()),
            lists: Vec::with_capacity(h.clusters.len()),
            leaf_local: (0..h.leaf_of.len() as NodeId)
                .map(|v| (h.leaf_of[v as usize], h.chain(v)[0]))
                .collect(),
        };
        for c in h.clusters.iter().filter(|c| c.is_leaf()) {
            for &v in &c.members[..c.border.len()] {
                index.slot_of[v as usize] = index.slot_node.len() as u32;
                index.slot_node.push(v);
            }
        }
        for (i, c) in h.clusters.iter().enumerate() {
            let members = if c.is_leaf() {
                &c.members[..c.border.len()]
            } else {
                &c.members[..]
            };
            let member: Vec<u32> = members.iter().map(|&v| index.slot_of[v as usize]).collect();
            if member.contains(&NO_SLOT) {
                return Err(NavError::Invalid(format!(
                    "cluster {i} has a member that is not a border node of its leaf"
                )));
            }
            index.lists.push(Lists::build(c, &member));
            index.member_slot.push(member);
        }
        Ok(index)
    }

    /// Rebuilds cluster `c`'s lists after its table changed.
    pub(crate) fn refresh(&mut self, h: &Hierarchy, c: ClusterId) {
        let c = c as usize;
        self.lists[c] = Lists::build(&h.clusters[c], &self.member_slot[c]);
    }

    pub(crate) fn heap_bytes(&self) -> usize {
        4 * (self.slot_node.len()
            + self.slot_of.len()
            + self.member_slot.iter().map(Vec::len).sum::<usize>())
            + 8 * self.leaf_local.len()
            + self.lists.iter().map(Lists::heap_bytes).sum::<usize>()
    }
}
