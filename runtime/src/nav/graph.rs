//! The navigation graph: an undirected graph in compressed sparse row form (every edge is
//! stored in both directions), optionally laid out on an octile grid so that A* has a
//! coordinate heuristic.
//!
//! Invariant: an edge's cost is positive (checked when the graph is built); a removed edge keeps
//! its slot, marked [`UNREACHABLE`], so putting it back (a door opening) needs no reallocation
//! and node ids never change.

use super::NavError;
use super::cost::{Metric, Packed, UNREACHABLE};

/// Node id: index into the graph's nodes.
pub type NodeId = u32;

/// The grid behind a graph read from a MovingAI map: which cell each node is.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Columns of the map.
    pub width: u32,
    /// Rows of the map.
    pub height: u32,
    /// Node -> cell (`y * width + x`).
    cell_of: Vec<u32>,
    /// Cell -> node (`u32::MAX` when blocked); rebuilt from `cell_of` after loading.
    node_of: Vec<u32>,
    /// Node -> `[x, y]`, for the heuristic; rebuilt after loading.
    xy: Vec<[u16; 2]>,
}

impl Grid {
    /// The node at `(x, y)`, if the cell exists and is passable.
    pub fn node_at(&self, x: u32, y: u32) -> Option<NodeId> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let n = self.node_of[(y * self.width + x) as usize];
        (n != u32::MAX).then_some(n)
    }

    /// The cell `(x, y)` of node `v`.
    pub fn cell(&self, v: NodeId) -> (u32, u32) {
        let c = self.cell_of[v as usize];
        (c % self.width, c / self.width)
    }

    fn rebuild_index(&mut self) -> Result<(), NavError> {
        if self.width > u16::MAX as u32 || self.height > u16::MAX as u32 {
            return Err(NavError::Invalid(
                "the grid is wider or taller than 65,535 cells".into(),
            ));
        }
        // A grid of no cells can hold no node (and would divide by its zero width below).
        if (self.width == 0 || self.height == 0) && !self.cell_of.is_empty() {
            return Err(NavError::Invalid(format!(
                "{} nodes on a grid of {} by {} cells",
                self.cell_of.len(),
                self.width,
                self.height
            )));
        }
        let w = self.width;
        self.xy = self
            .cell_of
            .iter()
            .map(|&c| [(c % w) as u16, (c / w) as u16])
            .collect();
        let cells = self.width as usize * self.height as usize;
        self.node_of = vec![u32::MAX; cells];
        for (v, &c) in self.cell_of.iter().enumerate() {
            let slot = self
                .node_of
                .get_mut(c as usize)
                .ok_or_else(|| NavError::Invalid(format!("node {v} lies outside the grid")))?;
            if *slot != u32::MAX {
                return Err(NavError::Invalid(format!("two nodes share grid cell {c}")));
            }
            *slot = v as u32;
        }
        Ok(())
    }
}

/// Node positions of a graph that is not a grid (an authored navigation graph, a road graph
/// with coordinates), for A*'s straight-line estimate.
#[derive(Clone, Debug, PartialEq)]
pub struct Points {
    /// Node -> whole-number coordinates.
    xy: Vec<[i32; 2]>,
    /// Cost per coordinate unit in the estimate: the smallest `cost / length` over the graph's
    /// edges, so that `scale · straight-line distance` never exceeds the cost of a path
    /// (admissible and consistent whatever the authored costs are).
    scale: f64,
}

impl Points {
    /// The coordinates of node `v`.
    pub fn xy(&self, v: NodeId) -> [i32; 2] {
        self.xy[v as usize]
    }

    /// Cost per coordinate unit of the straight-line estimate (admissible by construction).
    pub fn scale(&self) -> f64 {
        self.scale
    }
}

/// An undirected weighted graph with positive edge costs. Stored compactly in files
/// (`codec`): a grid as its bitmap.
#[derive(Clone, Debug, PartialEq)]
pub struct Graph {
    /// How its packed costs read.
    pub metric: Metric,
    offsets: Vec<u32>,
    targets: Vec<NodeId>,
    /// Per stored edge; `UNREACHABLE` once the edge is removed.
    costs: Vec<Packed>,
    /// The grid behind the graph, when it was read from a map.
    pub grid: Option<Grid>,
    /// Node positions for graphs that are not grids.
    pub points: Option<Points>,
}

impl Graph {
    /// Builds a graph from undirected edges `(u, v, cost)`. Self-loops are dropped; costs must
    /// be positive.
    pub fn from_edges(
        nodes: u32,
        metric: Metric,
        edges: &[(NodeId, NodeId, Packed)],
    ) -> Result<Graph, NavError> {
        let mut degree = vec![0u32; nodes as usize + 1];
        for (i, &(u, v, c)) in edges.iter().enumerate() {
            if u >= nodes || v >= nodes {
                return Err(NavError::Invalid(format!(
                    "edge {i} joins node {u} and {v} but the graph has {nodes} nodes"
                )));
            }
            if c == 0 || c == UNREACHABLE {
                return Err(NavError::Invalid(format!(
                    "edge {i} ({u}-{v}) has cost {c}; costs must be positive and finite"
                )));
            }
            if u != v {
                degree[u as usize + 1] += 1;
                degree[v as usize + 1] += 1;
            }
        }
        for i in 1..degree.len() {
            degree[i] += degree[i - 1];
        }
        let offsets = degree;
        let mut fill = offsets.clone();
        let m = offsets[nodes as usize] as usize;
        let mut targets = vec![0; m];
        let mut costs = vec![0; m];
        for &(u, v, c) in edges {
            if u == v {
                continue;
            }
            for (a, b) in [(u, v), (v, u)] {
                let slot = fill[a as usize] as usize;
                targets[slot] = b;
                costs[slot] = c;
                fill[a as usize] += 1;
            }
        }
        Ok(Graph {
            metric,
            offsets,
            targets,
            costs,
            grid: None,
            points: None,
        })
    }

    /// Gives the nodes positions (whole-number coordinates, one per node), which turns on the
    /// straight-line estimate for A* and PPA*. The estimate is scaled down to the cheapest
    /// cost per unit of length over the edges, so it stays a lower bound.
    pub fn with_points(self, xy: Vec<[i32; 2]>) -> Result<Graph, NavError> {
        if xy.len() != self.node_count() as usize {
            return Err(NavError::Invalid(format!(
                "{} positions for {} nodes",
                xy.len(),
                self.node_count()
            )));
        }
        let mut scale = f64::INFINITY;
        for u in 0..self.node_count() {
            for (v, c) in self.neighbors(u) {
                let len = distance(xy[u as usize], xy[v as usize]);
                if len > 0.0 {
                    scale = scale.min(self.metric.value(c) / len);
                }
            }
        }
        // No edge with a length: no estimate. The factor keeps float rounding on the safe side.
        let scale = if scale.is_finite() {
            scale * (1.0 - 1e-12)
        } else {
            0.0
        };
        self.with_points_scaled(xy, scale)
    }

    /// Positions with a given scale (decoding: the scale was fixed when the graph was built,
    /// over all its edges, so it stays a lower bound when removed edges come back).
    pub(crate) fn with_points_scaled(
        mut self,
        xy: Vec<[i32; 2]>,
        scale: f64,
    ) -> Result<Graph, NavError> {
        if xy.len() != self.node_count() as usize {
            return Err(NavError::Invalid(format!(
                "{} positions for {} nodes",
                xy.len(),
                self.node_count()
            )));
        }
        if !(scale.is_finite() && scale >= 0.0) {
            return Err(NavError::Invalid(
                "the estimate's scale is not a finite non-negative number".into(),
            ));
        }
        self.points = Some(Points { xy, scale });
        Ok(self)
    }

    /// The position of node `v` in its own coordinates: the cell of a grid node, the
    /// coordinates of a positioned node.
    pub fn position(&self, v: NodeId) -> Option<[f64; 2]> {
        if let Some(g) = &self.grid {
            let (x, y) = g.cell(v);
            return Some([x as f64, y as f64]);
        }
        self.points.as_ref().map(|p| {
            let [x, y] = p.xy(v);
            [x as f64, y as f64]
        })
    }

    /// A graph from its compressed rows, checked as a decoded one would be.
    pub(crate) fn from_csr(
        metric: Metric,
        offsets: Vec<u32>,
        targets: Vec<NodeId>,
        costs: Vec<Packed>,
    ) -> Result<Graph, String> {
        let mut g = Graph {
            metric,
            offsets,
            targets,
            costs,
            grid: None,
            points: None,
        };
        g.verify().map_err(|e| e.to_string())?;
        Ok(g)
    }

    /// Lays the nodes on a grid: `cell_of[v]` is node `v`'s cell (`y * width + x`).
    pub(crate) fn with_grid(
        mut self,
        width: u32,
        height: u32,
        cell_of: Vec<u32>,
    ) -> Result<Graph, NavError> {
        if width as u64 * height as u64 > 1 << 28 {
            return Err(NavError::Invalid("the grid is implausibly large".into()));
        }
        if cell_of.len() != self.node_count() as usize {
            return Err(NavError::Invalid(
                "the grid and the graph disagree on the number of nodes".into(),
            ));
        }
        let mut grid = Grid {
            width,
            height,
            cell_of,
            node_of: Vec::new(),
            xy: Vec::new(),
        };
        grid.rebuild_index()?;
        self.grid = Some(grid);
        Ok(self)
    }

    /// [`Graph::octile_grid`] from a row-major passability bitmap, eight cells a byte.
    pub(crate) fn octile_grid_from_bits(
        width: u32,
        height: u32,
        bits: &[u8],
    ) -> Result<Graph, NavError> {
        let cells = width as usize * height as usize;
        if bits.len() != cells.div_ceil(8) {
            return Err(NavError::Invalid(format!(
                "a {width}x{height} grid needs {} bytes of cells, got {}",
                cells.div_ceil(8),
                bits.len()
            )));
        }
        let passable: Vec<bool> = (0..cells)
            .map(|c| bits[c / 8] >> (c % 8) & 1 == 1)
            .collect();
        Graph::octile_grid(width, height, &passable)
    }

    /// Whether `other` has exactly this graph's edge slots (targets in the same order).
    pub(crate) fn same_edges(&self, other: &Graph) -> bool {
        self.offsets == other.offsets && self.targets == other.targets
    }

    /// Every stored edge leaving `v`, removed ones included (with cost [`UNREACHABLE`]).
    pub(crate) fn all_edges(&self, v: NodeId) -> impl Iterator<Item = (NodeId, Packed)> + '_ {
        let (a, b) = (
            self.offsets[v as usize] as usize,
            self.offsets[v as usize + 1] as usize,
        );
        self.targets[a..b]
            .iter()
            .zip(&self.costs[a..b])
            .map(|(t, c)| (*t, *c))
    }

    /// The octile grid graph of a `width`×`height` map: 8-connected, diagonal cost √2, and a
    /// diagonal step only when both straight cells beside it are passable (no corner cutting).
    pub fn octile_grid(width: u32, height: u32, passable: &[bool]) -> Result<Graph, NavError> {
        let cells = width as usize * height as usize;
        if passable.len() != cells {
            return Err(NavError::Invalid(format!(
                "a {width}x{height} grid needs {cells} cells, got {}",
                passable.len()
            )));
        }
        let open = |x: i64, y: i64| {
            x >= 0
                && y >= 0
                && x < width as i64
                && y < height as i64
                && passable[(y * width as i64 + x) as usize]
        };
        let mut node_of = vec![u32::MAX; cells];
        let mut cell_of = Vec::new();
        for (c, &p) in passable.iter().enumerate() {
            if p {
                node_of[c] = cell_of.len() as u32;
                cell_of.push(c as u32);
            }
        }
        let mut edges = Vec::new();
        for &c in &cell_of {
            let (x, y) = ((c % width) as i64, (c / width) as i64);
            let u = node_of[c as usize];
            // Each undirected edge once: east, south, south-east, south-west.
            for (dx, dy) in [(1i64, 0i64), (0, 1), (1, 1), (-1, 1)] {
                let (nx, ny) = (x + dx, y + dy);
                if !open(nx, ny) {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                if diagonal && !(open(x + dx, y) && open(x, y + dy)) {
                    continue;
                }
                let v = node_of[(ny * width as i64 + nx) as usize];
                let cost = if diagonal {
                    Metric::DIAGONAL
                } else {
                    Metric::STRAIGHT
                };
                edges.push((u, v, cost));
            }
        }
        let mut g = Graph::from_edges(cell_of.len() as u32, Metric::Octile, &edges)?;
        let mut grid = Grid {
            width,
            height,
            cell_of,
            node_of,
            xy: Vec::new(),
        };
        grid.rebuild_index()?;
        g.grid = Some(grid);
        Ok(g)
    }

    /// Number of nodes; ids are `0..node_count`.
    pub fn node_count(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// Stored edge slots (each undirected edge counts twice, removed edges included).
    pub fn edge_slots(&self) -> usize {
        self.targets.len()
    }

    /// The live edges leaving `v`: `(neighbour, cost)`.
    #[inline]
    pub fn neighbors(&self, v: NodeId) -> impl Iterator<Item = (NodeId, Packed)> + '_ {
        let (a, b) = (
            self.offsets[v as usize] as usize,
            self.offsets[v as usize + 1] as usize,
        );
        self.targets[a..b]
            .iter()
            .zip(&self.costs[a..b])
            .filter(|(_, c)| **c != UNREACHABLE)
            .map(|(t, c)| (*t, *c))
    }

    /// The cost of the cheapest live edge `u -> v`, if any.
    pub fn edge_cost(&self, u: NodeId, v: NodeId) -> Option<Packed> {
        if u >= self.node_count() {
            return None;
        }
        self.neighbors(u)
            .filter(|(t, _)| *t == v)
            .map(|(_, c)| c)
            .min_by(|a, b| self.metric.value(*a).total_cmp(&self.metric.value(*b)))
    }

    /// Removes every edge between `u` and `v` (both directions). Returns whether one existed.
    pub fn remove_edge(&mut self, u: NodeId, v: NodeId) -> bool {
        self.set_arcs(u, v, false, UNREACHABLE)
    }

    /// Sets the cost of the arcs between `u` and `v` (both directions) that are removed
    /// (`removed`) or present (otherwise) to `cost`. Returns whether there was one.
    fn set_arcs(&mut self, u: NodeId, v: NodeId, removed: bool, cost: Packed) -> bool {
        let mut found = false;
        for (a, b) in [(u, v), (v, u)] {
            if a >= self.node_count() {
                continue;
            }
            let (s, e) = (
                self.offsets[a as usize] as usize,
                self.offsets[a as usize + 1] as usize,
            );
            for i in s..e {
                if self.targets[i] == b && (self.costs[i] == UNREACHABLE) == removed {
                    self.costs[i] = cost;
                    found = true;
                }
            }
        }
        found
    }

    /// An admissible and consistent estimate of the distance from `a` to `b`: the octile
    /// distance on grids, the scaled straight-line distance on positioned graphs, zero
    /// otherwise.
    #[inline]
    pub fn heuristic(&self, a: NodeId, b: NodeId) -> f64 {
        if let Some(grid) = &self.grid {
            let [ax, ay] = grid.xy[a as usize];
            let [bx, by] = grid.xy[b as usize];
            let dx = ax.abs_diff(bx) as f64;
            let dy = ay.abs_diff(by) as f64;
            return dx.max(dy) + (std::f64::consts::SQRT_2 - 1.0) * dx.min(dy);
        }
        match &self.points {
            Some(p) => p.scale * distance(p.xy[a as usize], p.xy[b as usize]),
            None => 0.0,
        }
    }

    /// Puts back the edge between `u` and `v` (both directions) at `cost`, where it had been
    /// removed. Returns whether a removed edge was there to restore.
    pub fn restore_edge(&mut self, u: NodeId, v: NodeId, cost: Packed) -> bool {
        self.set_arcs(u, v, true, cost)
    }

    /// The cost of a path given as its nodes, or `None` when two consecutive nodes are not
    /// joined by a live edge.
    pub fn path_cost(&self, path: &[NodeId]) -> Option<f64> {
        let mut total = 0.0;
        for w in path.windows(2) {
            total += self.metric.value(self.edge_cost(w[0], w[1])?);
        }
        Some(total)
    }

    /// Bytes held by the graph's arrays.
    pub fn heap_bytes(&self) -> usize {
        4 * (self.offsets.len() + self.targets.len() + self.costs.len())
            + self
                .grid
                .as_ref()
                .map_or(0, |g| 4 * (g.cell_of.len() + g.node_of.len() + g.xy.len()))
            + self.points.as_ref().map_or(0, |p| 8 * p.xy.len())
    }

    /// Checks the arrays after decoding so that no lookup can go out of bounds, and rebuilds the
    /// grid index.
    pub(crate) fn verify(&mut self) -> Result<(), NavError> {
        let bad = |m: String| Err(NavError::Invalid(m));
        if self.offsets.is_empty() || self.offsets[0] != 0 {
            return bad("the edge offsets do not start at 0".into());
        }
        if self.offsets.windows(2).any(|w| w[0] > w[1]) {
            return bad("the edge offsets are not sorted".into());
        }
        let m = *self.offsets.last().unwrap() as usize;
        if m != self.targets.len() || m != self.costs.len() {
            return bad("the edge arrays have inconsistent lengths".into());
        }
        let n = self.node_count();
        if let Some(i) = self.targets.iter().position(|&t| t >= n) {
            return bad(format!("edge slot {i} points at a missing node"));
        }
        if self.costs.contains(&0) {
            return bad("an edge has cost 0".into());
        }
        if let Some(grid) = &mut self.grid {
            if grid.cell_of.len() != n as usize {
                return bad("the grid and the graph disagree on the number of nodes".into());
            }
            if grid.width as u64 * grid.height as u64 > 1 << 28 {
                return bad("the grid is implausibly large".into());
            }
            grid.rebuild_index()?;
        }
        if let Some(p) = &self.points {
            if p.xy.len() != n as usize {
                return bad("the positions and the graph disagree on the number of nodes".into());
            }
            if !(p.scale.is_finite() && p.scale >= 0.0) {
                return bad("the estimate's scale is not a finite non-negative number".into());
            }
            if self.grid.is_some() {
                return bad("a grid graph has positions of its own".into());
            }
        }
        Ok(())
    }
}

/// Straight-line distance between two positions.
fn distance(a: [i32; 2], b: [i32; 2]) -> f64 {
    let dx = (a[0] as f64) - (b[0] as f64);
    let dy = (a[1] as f64) - (b[1] as f64);
    dx.hypot(dy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_has_no_corner_cutting() {
        // . @
        // . .
        let g = Graph::octile_grid(2, 2, &[true, false, true, true]).unwrap();
        let grid = g.grid.as_ref().unwrap();
        let a = grid.node_at(0, 0).unwrap();
        let d = grid.node_at(1, 1).unwrap();
        assert_eq!(
            g.edge_cost(a, d),
            None,
            "the diagonal cuts the blocked corner"
        );
        let b = grid.node_at(0, 1).unwrap();
        assert_eq!(g.edge_cost(a, b), Some(Metric::STRAIGHT));
        assert_eq!(g.heuristic(a, d), std::f64::consts::SQRT_2);
    }

    #[test]
    fn removing_an_edge_removes_both_directions() {
        let mut g = Graph::from_edges(3, Metric::Integer, &[(0, 1, 2), (1, 2, 3)]).unwrap();
        assert!(g.remove_edge(1, 0));
        assert_eq!(g.edge_cost(0, 1), None);
        assert_eq!(g.edge_cost(1, 0), None);
        assert_eq!(g.path_cost(&[1, 2]), Some(3.0));
        assert!(!g.remove_edge(0, 1));
    }

    #[test]
    fn positions_give_a_lower_bound_estimate() {
        // A square with one cheap diagonal (cost 1 over length √2): the estimate scales down.
        let g = Graph::from_edges(
            4,
            Metric::Integer,
            &[(0, 1, 10), (1, 2, 10), (2, 3, 10), (3, 0, 10), (0, 2, 1)],
        )
        .unwrap()
        .with_points(vec![[0, 0], [10, 0], [10, 10], [0, 10]])
        .unwrap();
        let h = g.heuristic(0, 2);
        assert!(h <= 1.0 && h > 0.99, "{h}");
        assert!(g.heuristic(1, 3) <= 2.0);
        assert_eq!(g.position(2), Some([10.0, 10.0]));
        assert!(
            Graph::from_edges(2, Metric::Integer, &[(0, 1, 1)])
                .unwrap()
                .with_points(vec![[0, 0]])
                .is_err()
        );
    }

    #[test]
    fn a_removed_edge_can_be_restored() {
        let mut g = Graph::from_edges(3, Metric::Integer, &[(0, 1, 2), (1, 2, 3)]).unwrap();
        assert!(!g.restore_edge(0, 1, 2), "nothing was removed");
        g.remove_edge(0, 1);
        assert!(g.restore_edge(1, 0, 2));
        assert_eq!(g.edge_cost(0, 1), Some(2));
        assert_eq!(g.edge_cost(1, 0), Some(2));
    }

    #[test]
    fn rejects_bad_edges() {
        assert!(Graph::from_edges(2, Metric::Integer, &[(0, 2, 1)]).is_err());
        assert!(Graph::from_edges(2, Metric::Integer, &[(0, 1, 0)]).is_err());
    }
}
