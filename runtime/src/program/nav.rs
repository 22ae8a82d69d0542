//! The program's navigation section: the project's navigation graph with its precomputed PPA*
//! data ([`crate::nav`]), how graph coordinates map to the world, the node each location
//! stands on, doors, and the scene events that open and close them.
//!
//! A program without a navigation graph has an empty section (`data: None`); the simulated
//! world then walks agents in straight lines, as before.

use super::{LocationId, NameId, ProgramParts, SceneId};
use crate::nav::cost::{Packed, UNREACHABLE};
use crate::nav::{NavData, NodeId};
use serde::{Deserialize, Serialize};

/// How the graph's own coordinates map to world metres.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum Placement {
    /// A grid map: cell `(x, y)` covers `origin + [x, x+1) × cell` by `origin + [y, y+1) × cell`
    /// and its node stands at the cell's centre; a straight step costs `cell` metres.
    Grid {
        /// World position of the grid's corner at cell `(0, 0)`, metres.
        origin: [f64; 2],
        /// Side of a cell, metres.
        cell: f64,
    },
    /// Positioned nodes: world = `origin + position × unit`; a cost of 1 is `cost_unit` metres.
    Points {
        /// World position of the graph's coordinate origin, metres.
        origin: [f64; 2],
        /// Metres per coordinate unit.
        unit: f64,
        /// Metres per unit of edge cost.
        cost_unit: f64,
    },
}

impl Default for Placement {
    fn default() -> Self {
        Placement::Points {
            origin: [0.0, 0.0],
            unit: 1.0,
            cost_unit: 1.0,
        }
    }
}

/// A door: edges of the graph that scene events close (removing them, with the incremental
/// PPA* update) and open again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Door {
    /// The door's name, as scene events name it.
    pub name: NameId,
    /// The edges it blocks when closed, with their costs (to put them back).
    pub edges: Vec<(NodeId, NodeId, Packed)>,
    /// Closed when a scene starts.
    pub closed: bool,
}

/// A door opening or closing `at` seconds into a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DoorEvent {
    /// The scene that scripts it.
    pub scene: SceneId,
    /// Seconds into the scene.
    pub at: f64,
    /// Index into [`NavSection::doors`].
    pub door: u32,
    /// True opens the door, false closes it.
    pub open: bool,
}

/// The navigation section of a program (see the module documentation).
///
/// # Example
///
/// Walking an agent standing at a world position to a named location: find the node under
/// it, the location's node, the path between them, and its length in metres.
///
/// ```
/// use ensemble_runtime::nav::cost::Metric;
/// use ensemble_runtime::nav::hierarchy::NO_CLUSTER;
/// use ensemble_runtime::nav::{Cluster, Graph, Hierarchy, NavData, Workspace};
/// use ensemble_runtime::program::LocationId;
/// use ensemble_runtime::program::nav::{NavSection, Placement};
///
/// // Three waypoints on a line, one unit apart, edges of cost 1.
/// let graph = Graph::from_edges(3, Metric::Integer, &[(0, 1, 1), (1, 2, 1)])?
///     .with_points(vec![[0, 0], [1, 0], [2, 0]])?;
/// let leaf = Cluster {
///     parent: NO_CLUSTER,
///     depth: 0,
///     children: vec![],
///     members: vec![0, 1, 2],
///     child_start: vec![],
///     border: vec![],
///     table: Default::default(),
/// };
/// let chains = [vec![0], vec![1], vec![2]];
/// let hierarchy = Hierarchy::from_parts(4, vec![leaf], vec![0, 0, 0], &chains)?;
/// let section = NavSection {
///     data: Some(NavData::new(graph, hierarchy)?),
///     // Graph unit = 2 m, placed with its origin at (100, 50); a cost of 1 is 2 m too.
///     placement: Placement::Points { origin: [100.0, 50.0], unit: 2.0, cost_unit: 2.0 },
///     // Location 0 (say, `TicketCounter`) stands on node 2.
///     location_nodes: vec![2],
///     ..NavSection::default()
/// };
///
/// assert_eq!(section.world(1), Some([102.0, 50.0]));
/// let start = section.node_near(100.4, 49.0).expect("the graph has nodes");
/// let goal = section.location_node(LocationId(0)).expect("the location has a node");
/// let nav = section.data.as_ref().unwrap();
/// let found = nav.find_path(start, goal, &mut Workspace::new(3))?.expect("reachable");
/// assert_eq!(found.path, [0, 1, 2]);
/// assert_eq!(found.cost * section.metres_per_cost(), 4.0);
/// # Ok::<(), ensemble_runtime::nav::NavError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NavSection {
    /// The graph and its PPA* data; `None` when the project has no navigation graph.
    pub data: Option<NavData>,
    /// How graph coordinates map to world metres.
    pub placement: Placement,
    /// The node of each program location, by [`LocationId`].
    pub location_nodes: Vec<NodeId>,
    /// Named nodes of an authored graph, for the trace (`via`) and tools.
    pub names: Vec<(NameId, NodeId)>,
    /// Doors scene events open and close.
    pub doors: Vec<Door>,
    /// Door events of every scene, in time order within a scene.
    pub events: Vec<DoorEvent>,
    /// Changes whenever the section's content changes, so a running world can tell whether a
    /// reloaded program brought a different graph.
    pub fingerprint: u32,
}

impl NavSection {
    /// Checks the data after decoding and builds what the search derives from it. Called on
    /// every load before [`Program`] verification; cross-references into the rest of the
    /// program are checked by [`verify`].
    pub(crate) fn prepare(&mut self) -> Result<(), String> {
        if let Some(data) = &mut self.data {
            data.verify().map_err(|e| format!("navigation data: {e}"))?;
        }
        Ok(())
    }

    /// The world position of node `v`.
    pub fn world(&self, v: NodeId) -> Option<[f64; 2]> {
        let data = self.data.as_ref()?;
        if v >= data.graph.node_count() {
            return None;
        }
        let [x, y] = data.graph.position(v)?;
        Some(match self.placement {
            Placement::Grid { origin, cell } => {
                [origin[0] + (x + 0.5) * cell, origin[1] + (y + 0.5) * cell]
            }
            Placement::Points { origin, unit, .. } => [origin[0] + x * unit, origin[1] + y * unit],
        })
    }

    /// Metres per unit of path cost.
    pub fn metres_per_cost(&self) -> f64 {
        match self.placement {
            Placement::Grid { cell, .. } => cell,
            Placement::Points { cost_unit, .. } => cost_unit,
        }
    }

    /// The node an agent at `(x, y)` starts from: on a grid the cell under it, or the nearest
    /// passable cell within a few cells; otherwise the nearest node.
    pub fn node_near(&self, x: f64, y: f64) -> Option<NodeId> {
        let data = self.data.as_ref()?;
        let graph = &data.graph;
        match (self.placement, &graph.grid) {
            (Placement::Grid { origin, cell }, Some(grid)) => {
                let cx = ((x - origin[0]) / cell).floor();
                let cy = ((y - origin[1]) / cell).floor();
                const REACH: i64 = 8;
                let mut best: Option<(f64, NodeId)> = None;
                for r in 0..=REACH {
                    for dy in -r..=r {
                        for dx in -r..=r {
                            if dx.abs().max(dy.abs()) != r {
                                continue;
                            }
                            let (gx, gy) = (cx + dx as f64, cy + dy as f64);
                            if gx < 0.0 || gy < 0.0 || gx > u32::MAX as f64 || gy > u32::MAX as f64
                            {
                                continue;
                            }
                            if let Some(v) = grid.node_at(gx as u32, gy as u32) {
                                let [wx, wy] = self.world(v)?;
                                let d = (wx - x).hypot(wy - y);
                                if best.is_none_or(|(b, _)| d < b) {
                                    best = Some((d, v));
                                }
                            }
                        }
                    }
                    if best.is_some() {
                        break;
                    }
                }
                best.map(|(_, v)| v)
            }
            _ => (0..graph.node_count())
                .filter_map(|v| self.world(v).map(|[wx, wy]| ((wx - x).hypot(wy - y), v)))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .map(|(_, v)| v),
        }
    }

    /// The name of node `v`, if the graph names it.
    pub fn node_name(&self, v: NodeId) -> Option<NameId> {
        self.names
            .iter()
            .find(|(_, n)| *n == v)
            .map(|(name, _)| *name)
    }

    /// The node of location `l`.
    pub fn location_node(&self, l: LocationId) -> Option<NodeId> {
        self.location_nodes.get(l.index()).copied()
    }

    /// The door events of `scene`, in time order.
    pub fn events_of(&self, scene: SceneId) -> impl Iterator<Item = &DoorEvent> + '_ {
        self.events.iter().filter(move |e| e.scene == scene)
    }
}

/// Cross-references of the section into the program (run by [`super::verify`]).
pub(crate) fn verify(p: &ProgramParts) -> Result<(), String> {
    let s = &p.nav;
    let Some(data) = &s.data else {
        let empty = s.location_nodes.is_empty()
            && s.names.is_empty()
            && s.doors.is_empty()
            && s.events.is_empty();
        return if empty {
            Ok(())
        } else {
            Err("the navigation section has doors or nodes but no graph".into())
        };
    };
    let n = data.graph.node_count();
    let node = |v: NodeId, what: &str| {
        if v < n {
            Ok(())
        } else {
            Err(format!("{what} names node {v} of {n}"))
        }
    };
    match s.placement {
        Placement::Grid { origin, cell } => {
            if data.graph.grid.is_none() {
                return Err("the navigation placement is a grid but the graph is not".into());
            }
            if !(origin.iter().all(|c| c.is_finite()) && cell.is_finite() && cell > 0.0) {
                return Err(
                    "the navigation grid's origin or cell size is not a finite positive number"
                        .into(),
                );
            }
        }
        Placement::Points {
            origin,
            unit,
            cost_unit,
        } => {
            if data.graph.points.is_none() {
                return Err("the navigation placement needs node positions".into());
            }
            let ok = origin.iter().all(|c| c.is_finite())
                && unit.is_finite()
                && unit > 0.0
                && cost_unit.is_finite()
                && cost_unit > 0.0;
            if !ok {
                return Err(
                    "the navigation placement has a non-finite or non-positive scale".into(),
                );
            }
        }
    }
    if s.location_nodes.len() != p.locations.len() {
        return Err(format!(
            "the navigation section places {} locations but the program has {}",
            s.location_nodes.len(),
            p.locations.len()
        ));
    }
    for (i, &v) in s.location_nodes.iter().enumerate() {
        node(v, &format!("location #{i}"))?;
    }
    for (i, &(name, v)) in s.names.iter().enumerate() {
        if name.index() >= p.names.len() {
            return Err(format!("named node #{i} refers to a missing name"));
        }
        node(v, &format!("named node #{i}"))?;
    }
    for (i, d) in s.doors.iter().enumerate() {
        if d.name.index() >= p.names.len() {
            return Err(format!("door #{i} refers to a missing name"));
        }
        for &(u, v, c) in &d.edges {
            node(u, &format!("door #{i}"))?;
            node(v, &format!("door #{i}"))?;
            if c == 0 || c == UNREACHABLE {
                return Err(format!("door #{i} has an edge without a cost"));
            }
        }
    }
    for (i, e) in s.events.iter().enumerate() {
        if e.scene.index() >= p.scenes.len() || e.door as usize >= s.doors.len() {
            return Err(format!("door event #{i} refers to a missing scene or door"));
        }
        if !(e.at.is_finite() && e.at >= 0.0) {
            return Err(format!("door event #{i} has a bad time"));
        }
    }
    Ok(())
}
