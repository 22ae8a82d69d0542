//! Navigation: Hewlett's Partially Precomputed A* (PPA*, thesis ch. 4).
//!
//! Offline (in the compiler) the graph is clustered recursively into a hierarchy and every
//! cluster gets an exact distance table. Online, [`NavData::find_path`] runs A* over border
//! nodes only, with table lookups for edge costs ([`search`]), then ResolvePath turns the
//! virtual edges into real steps ([`resolve`]). Paths are optimal: the same cost plain
//! [`astar::astar`] finds.
//!
//! - [`cost`]: exact packed costs (octile `a + b·√2`, or whole numbers).
//! - [`graph`]: the navigation graph (CSR, undirected; optional octile grid).
//! - [`hierarchy`]: clusters, border nodes, chains, distance tables (the precomputed data).
//! - [`distances`]: one cluster's stored table, 16 bits an entry where the distances fit.
//! - `index`: what the search reads per expansion, derived on load (dense slots, successor
//!   lists of the non-dominated entries).
//! - [`table`]: computing one cluster's distance table (bottom-up, shared with updates).
//! - [`search`]: the layered A* of Pseudo-code 1, with several goals.
//! - [`resolve`]: ResolvePath (Pseudo-code 2, with the erratum fixed).
//! - [`update`]: dynamic update after an edge is removed.
//! - [`astar`]: plain A*, the baseline and test oracle.
//! - [`file`](mod@file): the checksummed `.ensnav` container.
//! - `codec`: the compact file encodings (tables as prefix-coded differences, grids as
//!   bitmaps).
//!
//! Invariant: a [`NavData`] obtained from [`NavData::new`] or [`NavData::from_bytes`] has been
//! verified (graph, hierarchy structure, table sizes and encodings), so the search and
//! ResolvePath index it without checks and never panic on it; a query naming a node the graph
//! does not have is [`NavError::NoSuchNode`]. A [`Workspace`] is one thread's search memory:
//! keep one per thread and reuse it for every query (see [`NavData::find_path`]).

pub mod astar;
mod codec;
pub mod cost;
pub mod distances;
pub mod file;
pub mod graph;
pub mod hierarchy;
mod index;
pub mod resolve;
pub mod search;
pub mod table;
pub mod update;

#[cfg(test)]
pub(crate) mod tests;

pub use graph::{Graph, NodeId};
pub use hierarchy::{Cluster, ClusterId, Hierarchy};
pub use search::Workspace;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A found path.
#[derive(Clone, Debug, PartialEq)]
pub struct PathResult {
    /// The goal reached (the nearest one, with several goals).
    pub goal: NodeId,
    /// Sum of the edge costs along `path`.
    pub cost: f64,
    /// Every node from start to goal, consecutive nodes joined by an edge.
    pub path: Vec<NodeId>,
    /// Nodes taken off the open list (including the leaf search when start and goal share a
    /// leaf).
    pub expanded: u64,
    /// Nodes put on the open list.
    pub generated: u64,
}

/// The graph and its precomputed hierarchy.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NavData {
    /// The navigation graph.
    pub graph: Graph,
    /// Its cluster hierarchy with the distance tables; verified to fit `graph`.
    pub hierarchy: Hierarchy,
}

impl NavData {
    /// Pairs a graph with its hierarchy, checking that they fit together.
    pub fn new(graph: Graph, hierarchy: Hierarchy) -> Result<NavData, NavError> {
        let mut data = NavData { graph, hierarchy };
        data.verify()?;
        Ok(data)
    }

    pub(crate) fn verify(&mut self) -> Result<(), NavError> {
        self.graph.verify()?;
        self.hierarchy
            .verify_structure(self.graph.node_count(), true)?;
        self.hierarchy.verify_tables(self.graph.metric)?;
        self.hierarchy.reindex()
    }

    /// Bytes held in memory by the graph and the hierarchy.
    pub fn heap_bytes(&self) -> usize {
        self.graph.heap_bytes() + self.hierarchy.heap_bytes()
    }
}

/// What can go wrong in navigation: a refused file, bad input, or a broken invariant.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum NavError {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
    /// The file has no bytes at all.
    #[error("the file is empty")]
    Empty,
    /// The file does not start with the `.ensnav` magic bytes: it is something else.
    #[error(
        "the file is not Ensemble navigation data: it does not start with the .ensnav magic bytes"
    )]
    BadMagic,
    /// The file was written by another format version (the number found).
    #[error(
        "navigation format version {0} is not supported (this runtime reads version {v}); rebuild it with `ensemble nav build`",
        v = file::NAV_FORMAT_VERSION
    )]
    UnsupportedVersion(u16),
    /// The file is shorter than its header says.
    #[error(
        "the file is truncated: the header promises {expected} bytes of payload but {actual} are present"
    )]
    Truncated {
        /// Payload bytes the header promises.
        expected: u64,
        /// Payload bytes present.
        actual: u64,
    },
    /// The file is longer than its header says (by this many bytes).
    #[error("the file has {0} unexpected bytes after its payload")]
    TrailingBytes(u64),
    /// The payload's CRC-32 does not match the header's: the file is corrupt.
    #[error(
        "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is corrupt"
    )]
    ChecksumMismatch {
        /// The checksum in the header.
        stored: u32,
        /// The checksum of the payload as read.
        computed: u32,
    },
    /// The payload is not a valid encoding of navigation data.
    #[error("the payload cannot be decoded: {0}")]
    Decode(String),
    /// The data decoded but breaks an invariant (the message says which); also bad builder input.
    #[error("the navigation data is inconsistent: {0}")]
    Invalid(String),
    /// A query named a node the graph does not have.
    #[error("node {0} does not exist")]
    NoSuchNode(NodeId),
    /// A distance does not fit its packed encoding (an octile path of 65,535 or more steps of
    /// one kind, or a whole-number distance reaching `u32::MAX`).
    #[error(
        "a distance does not fit the table encoding (the graph is too large for 16-bit step counts)"
    )]
    Overflow,
    /// A broken invariant inside the search or ResolvePath; never expected on verified data.
    #[error("internal error in PPA*: {0}")]
    Internal(&'static str),
}
