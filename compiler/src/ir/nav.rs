//! The project's navigation graph, resolved (compiler/src/nav/lower.rs): the graph built from
//! whichever source the `*.nav.ron` names, node names, doors, where every location stands on
//! it, and the door events of every scene. The back end precomputes PPA* from this
//! (compiler/src/back/nav.rs).

use super::{Handle, Name, Scene};
use crate::source::Span;
use ensemble_runtime::nav::cost::Packed;
use ensemble_runtime::nav::{Graph, NavData, NodeId};
use ensemble_runtime::program::nav::Placement;

#[derive(Clone, Debug)]
pub struct Navigation {
    /// The whole `*.nav.ron` asset.
    pub span: Span,
    pub graph: Graph,
    pub placement: Placement,
    /// Named nodes.
    pub names: Vec<(Name, NodeId)>,
    pub doors: Vec<Door>,
    /// The node each location stands on, by location handle order; `None` when it is off the
    /// graph (reported).
    pub location_nodes: Vec<Option<NodeId>>,
    /// Door events of every scene: scene, time, door index, open.
    pub events: Vec<(Handle<Scene>, f64, usize, bool)>,
    pub leaf_size: u32,
    /// Changes with the graph's sources (the asset and the files it names).
    pub fingerprint: u32,
    /// The PPA* data, once precomputed (compiler/src/nav/precompute.rs).
    pub data: Option<NavData>,
}

#[derive(Clone, Debug)]
pub struct Door {
    pub name: Name,
    /// Edges it blocks, with their costs.
    pub edges: Vec<(NodeId, NodeId, Packed)>,
    pub closed: bool,
}

/// A door opening or closing during a scene (`events` of a `*.scene.ron`).
#[derive(Clone, Debug)]
pub struct SceneEvent {
    /// Seconds into the scene.
    pub at: f64,
    pub door: Name,
    pub open: bool,
}
