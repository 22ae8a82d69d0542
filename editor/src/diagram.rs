//! Geometry of a machine diagram: where boxes, arrows and arrow labels go, computed from the
//! layered layout and the measured sizes of the texts. Pure math (no painting), so the promises
//! that keep a diagram legible are unit-tested: boxes never overlap, labels never overlap boxes
//! or each other.
//!
//! Routing rules, chosen so that lines only change height in the free gaps between columns:
//! - an arrow between neighbouring columns is an S-curve across the gap between them;
//! - an arrow that skips columns runs in its own lane above every box (forward) or below every
//!   box (backward, e.g. a loop back to an earlier state), with its label on that lane;
//! - an arrow within one column bulges into the gap beside it (right when going down, left when
//!   going up), so the two arrows of a bidirectional pair never coincide;
//! - a self-loop is a small loop on top of its box, with room reserved above the box;
//! - where several arrows meet one side of a box, their ends are spread over that side, ordered
//!   by where the arrows come from, so parallel arrows stay parallel.

use crate::layout::Layers;
use eframe::egui;
use egui::{Pos2, Rect, Vec2, pos2, vec2};
use std::collections::HashMap;

/// Room around the whole diagram.
const MARGIN: f32 = 24.0;
/// Vertical space between two boxes of one column.
const ROW_GAP: f32 = 36.0;
/// Narrowest gap between two columns.
const MIN_GAP: f32 = 64.0;
/// Horizontal room on each side of a label placed in a gap.
const LABEL_PAD: f32 = 16.0;
/// Room left of the first column for the initial-state marker.
const INITIAL_LEAD: f32 = 48.0;
/// Space between corridor lanes, and between the lanes and the boxes.
const LANE_GAP: f32 = 8.0;
/// How far a self-loop rises above its box.
const LOOP_RISE: f32 = 30.0;
/// How far the first arrow within a column bulges into the gap; later ones bulge further.
const BULGE: f32 = 22.0;
const BULGE_STEP: f32 = 14.0;
/// Space between a label and whatever it must not touch.
const LABEL_GAP: f32 = 4.0;
/// Margin of the frame around the unreachable column, and room for its caption above.
const REGION_MARGIN: f32 = 10.0;
const CAPTION_ROOM: f32 = 20.0;

/// What the geometry needs to know about a machine.
pub struct Input<'a> {
    /// Size of each node's box.
    pub node_sizes: &'a [Vec2],
    /// Directed arrows between nodes, at most one per ordered pair.
    pub edges: &'a [(usize, usize)],
    /// Size of each arrow's label.
    pub label_sizes: &'a [Vec2],
    pub layers: &'a Layers,
    /// The initial node, which gets the start marker.
    pub root: Option<usize>,
}

/// A laid-out diagram; coordinates start at (0, 0), the top-left of the diagram.
#[derive(Debug)]
pub struct Diagram {
    pub boxes: Vec<Rect>,
    pub edges: Vec<EdgeShape>,
    pub initial: Option<InitialMarker>,
    /// The frame around the column of states the initial state never leads to.
    pub unreachable: Option<Rect>,
    pub size: Vec2,
}

/// One arrow: Bézier segments end to end, from the source box to the target box.
#[derive(Debug)]
pub struct EdgeShape {
    pub segments: Vec<[Pos2; 4]>,
    pub label: Rect,
}

/// The UML start marker: a filled dot with an arrow into the initial state.
#[derive(Debug)]
pub struct InitialMarker {
    pub dot: Pos2,
    pub tip: Pos2,
}

impl Diagram {
    /// The same diagram drawn `s` times as large (to fit a smaller view).
    pub fn scaled(&self, s: f32) -> Diagram {
        let p = |p: Pos2| (p.to_vec2() * s).to_pos2();
        let r = |r: Rect| Rect::from_min_max(p(r.min), p(r.max));
        Diagram {
            boxes: self.boxes.iter().map(|&b| r(b)).collect(),
            edges: self
                .edges
                .iter()
                .map(|e| EdgeShape {
                    segments: e.segments.iter().map(|seg| seg.map(p)).collect(),
                    label: r(e.label),
                })
                .collect(),
            initial: self.initial.as_ref().map(|m| InitialMarker {
                dot: p(m.dot),
                tip: p(m.tip),
            }),
            unreachable: self.unreachable.map(r),
            size: self.size * s,
        }
    }
}

impl EdgeShape {
    /// The arrow as a polyline, for painting.
    pub fn polyline(&self) -> Vec<Pos2> {
        let mut points = Vec::new();
        for seg in &self.segments {
            let straight = seg[1] == seg[0] && seg[2] == seg[3];
            let steps = if straight { 1 } else { 20 };
            let first = if points.is_empty() { 0 } else { 1 };
            points.extend((first..=steps).map(|i| cubic(seg, i as f32 / steps as f32)));
        }
        points
    }

    /// Where the arrow ends and the direction it points there.
    pub fn tip(&self) -> (Pos2, Vec2) {
        let last = self.segments.last().copied().unwrap_or([Pos2::ZERO; 4]);
        let end = last[3];
        let from = last[..3]
            .iter()
            .rev()
            .find(|p| (end - **p).length() > 0.5)
            .copied();
        let dir = from.map_or(vec2(1.0, 0.0), |p| (end - p).normalized());
        (end, dir)
    }
}

fn cubic(p: &[Pos2; 4], t: f32) -> Pos2 {
    let u = 1.0 - t;
    let v = p[0].to_vec2() * (u * u * u)
        + p[1].to_vec2() * (3.0 * u * u * t)
        + p[2].to_vec2() * (3.0 * u * t * t)
        + p[3].to_vec2() * (t * t * t);
    v.to_pos2()
}

/// Appends a straight segment, unless it has no length.
fn push_line(segs: &mut Vec<[Pos2; 4]>, a: Pos2, b: Pos2) {
    if (b - a).length() > 0.01 {
        segs.push([a, a, b, b]);
    }
}

/// A curve across a gap that leaves and arrives horizontally.
fn s_curve(a: Pos2, b: Pos2) -> [Pos2; 4] {
    let dx = (b.x - a.x) * 0.5;
    [a, pos2(a.x + dx, a.y), pos2(b.x - dx, b.y), b]
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Route {
    SelfLoop,
    /// Between neighbouring columns.
    Adjacent,
    /// Skips columns; runs on lane `lane` above (forward) or below (backward) the boxes.
    Corridor {
        above: bool,
        lane: usize,
    },
    /// Within one column, bulging right or left by `bulge`.
    SameColumn {
        right: bool,
        bulge: f32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Side {
    Left,
    Right,
}

/// One arrow end on a box side; `key` orders ends top to bottom.
struct Port {
    key: f32,
    leftward: bool,
    end: EndKey,
}

/// Lays out a machine diagram.
pub fn lay_out(input: &Input<'_>) -> Diagram {
    let routes = classify(input);
    let grid = Grid::new(input, &routes);
    let ends = arrow_ends(input, &routes, &grid);
    let mut edges = Vec::with_capacity(input.edges.len());
    let mut fixed_labels = Vec::new();
    let mut movable_labels = Vec::new();
    for (e, route) in routes.iter().enumerate() {
        let Some(route) = *route else {
            edges.push(EdgeShape {
                segments: Vec::new(),
                label: Rect::NOTHING,
            });
            continue;
        };
        let shape = route_edge(input, &grid, &ends, e, route);
        match route {
            Route::Adjacent | Route::SameColumn { .. } => movable_labels.push((e, shape.label)),
            Route::SelfLoop | Route::Corridor { .. } => fixed_labels.push(shape.label),
        }
        edges.push(shape);
    }
    for (e, label) in settle_labels(fixed_labels, movable_labels, &grid.boxes) {
        edges[e].label = label;
    }
    let initial = input.root.filter(|&r| r < grid.boxes.len()).map(|r| {
        let y = ends
            .get(&INITIAL_END)
            .copied()
            .unwrap_or(grid.boxes[r].center().y);
        InitialMarker {
            dot: pos2(grid.boxes[r].left() - 34.0, y),
            tip: pos2(grid.boxes[r].left(), y),
        }
    });
    let unreachable = grid.unreachable_frame(input);
    normalize(Diagram {
        boxes: grid.boxes,
        edges,
        initial,
        unreachable,
        size: Vec2::ZERO,
    })
}

/// How each arrow is drawn (`None` for arrows naming nodes that do not exist).
fn classify(input: &Input<'_>) -> Vec<Option<Route>> {
    let layers = input.layers;
    let n = input.node_sizes.len();
    let col = |node: usize| layers.column_of[node];
    let mut row_of = vec![0; n];
    for nodes in &layers.columns {
        for (r, &node) in nodes.iter().enumerate() {
            row_of[node] = r;
        }
    }
    let mut routes = vec![None; input.edges.len()];
    let (mut above, mut below) = (Vec::new(), Vec::new());
    let mut bulges = HashMap::<(usize, bool), usize>::new();
    for (e, &(a, b)) in input.edges.iter().enumerate() {
        if a >= n || b >= n {
            continue;
        }
        let (ca, cb) = (col(a), col(b));
        routes[e] = Some(if a == b {
            Route::SelfLoop
        } else if ca.abs_diff(cb) == 1 {
            Route::Adjacent
        } else if ca != cb {
            if cb > ca {
                above.push(e)
            } else {
                below.push(e)
            }
            Route::Corridor {
                above: cb > ca,
                lane: 0,
            }
        } else {
            let right = row_of[b] > row_of[a];
            let k = bulges.entry((ca, right)).or_insert(0);
            let bulge = BULGE + BULGE_STEP * *k as f32;
            *k += 1;
            Route::SameColumn { right, bulge }
        });
    }
    // Shorter spans take the lanes nearer the boxes, so corridor arrows nest without crossing.
    for lanes in [&mut above, &mut below] {
        let (edges, layers) = (input.edges, input.layers);
        lanes.sort_by_key(|&e| {
            (
                layers.column_of[edges[e].0].abs_diff(layers.column_of[edges[e].1]),
                e,
            )
        });
        for (lane, &e) in lanes.iter().enumerate() {
            if let Some(Route::Corridor { lane: l, .. }) = &mut routes[e] {
                *l = lane;
            }
        }
    }
    routes
}

/// Where the columns, boxes and corridor lanes are.
struct Grid {
    boxes: Vec<Rect>,
    col_left: Vec<f32>,
    col_right: Vec<f32>,
    /// Room reserved above each box for its self-loop.
    loop_room: Vec<f32>,
    /// Height of each arrow's corridor lane (only meaningful for corridor arrows).
    lane_y: Vec<f32>,
}

impl Grid {
    fn new(input: &Input<'_>, routes: &[Option<Route>]) -> Grid {
        let (layers, edges) = (input.layers, input.edges);
        let n = input.node_sizes.len();
        let ncol = layers.columns.len();
        let col = |node: usize| layers.column_of[node];
        let label = |e: usize| label_size(input, e);

        let mut loop_room = vec![0.0_f32; n];
        let mut col_width = vec![0.0_f32; ncol];
        for (c, nodes) in layers.columns.iter().enumerate() {
            for &node in nodes {
                col_width[c] = col_width[c].max(input.node_sizes[node].x);
            }
        }
        for (e, &(a, _)) in edges.iter().enumerate() {
            if routes[e] == Some(Route::SelfLoop) {
                loop_room[a] = LOOP_RISE + LABEL_GAP + label(e).y + LABEL_GAP;
                col_width[col(a)] = col_width[col(a)].max(label(e).x);
            }
        }

        // Gap g lies left of column g; gap `ncol` is right of the last column.
        let mut gap: Vec<f32> = (0..=ncol)
            .map(|g| match g {
                0 if input.root.is_some() => INITIAL_LEAD,
                g if g > 0 && g < ncol => MIN_GAP,
                _ => 0.0,
            })
            .collect();
        for (e, &(a, b)) in edges.iter().enumerate() {
            match routes[e] {
                Some(Route::Adjacent) => {
                    let g = col(a).max(col(b));
                    gap[g] = gap[g].max(label(e).x + 2.0 * LABEL_PAD);
                }
                Some(Route::SameColumn { right, bulge }) => {
                    let g = if right { col(a) + 1 } else { col(a) };
                    gap[g] = gap[g].max(bulge + LABEL_GAP + label(e).x + LABEL_PAD);
                }
                _ => {}
            }
        }
        let (mut col_left, mut col_right) = (vec![0.0; ncol], vec![0.0; ncol]);
        let mut x = 0.0;
        for c in 0..ncol {
            x += gap[c];
            col_left[c] = x;
            x += col_width[c];
            col_right[c] = x;
        }

        // Boxes stack down each column, columns centred on each other.
        let stack_height = |nodes: &Vec<usize>| -> f32 {
            let boxes: f32 = nodes
                .iter()
                .map(|&m| loop_room[m] + input.node_sizes[m].y)
                .sum();
            boxes + ROW_GAP * nodes.len().saturating_sub(1) as f32
        };
        let max_height = layers.columns.iter().map(stack_height).fold(0.0, f32::max);
        let mut boxes = vec![Rect::NOTHING; n];
        for (c, nodes) in layers.columns.iter().enumerate() {
            let mut y = (max_height - stack_height(nodes)) * 0.5;
            for &node in nodes {
                let size = input.node_sizes[node];
                y += loop_room[node];
                boxes[node] =
                    Rect::from_min_size(pos2(col_left[c] + (col_width[c] - size.x) * 0.5, y), size);
                y += size.y + ROW_GAP;
            }
        }

        // Corridor lanes stack outwards from the boxes, inner lanes first.
        let mut lanes: Vec<(usize, bool, usize)> = routes
            .iter()
            .enumerate()
            .filter_map(|(e, r)| match r {
                Some(Route::Corridor { above, lane }) => Some((*lane, *above, e)),
                _ => None,
            })
            .collect();
        lanes.sort();
        let mut lane_y = vec![0.0_f32; edges.len()];
        let (mut up, mut down) = (LANE_GAP, LANE_GAP);
        for (_, above, e) in lanes {
            let h = label(e).y;
            let offset = if above { &mut up } else { &mut down };
            lane_y[e] = if above {
                -(*offset + h * 0.5)
            } else {
                max_height + *offset + h * 0.5
            };
            *offset += h + LANE_GAP;
        }
        Grid {
            boxes,
            col_left,
            col_right,
            loop_room,
            lane_y,
        }
    }

    /// The frame around the unreachable column; only worth drawing next to a reachable part.
    fn unreachable_frame(&self, input: &Input<'_>) -> Option<Rect> {
        let layers = input.layers;
        let nodes = layers
            .columns
            .last()
            .filter(|_| layers.has_unreachable_column && input.root.is_some())?;
        let top = nodes
            .iter()
            .map(|&m| self.boxes[m].top() - self.loop_room[m])
            .fold(f32::MAX, f32::min);
        let bottom = nodes
            .iter()
            .map(|&m| self.boxes[m].bottom())
            .fold(f32::MIN, f32::max);
        let c = layers.columns.len() - 1;
        Some(
            Rect::from_min_max(pos2(self.col_left[c], top), pos2(self.col_right[c], bottom))
                .expand(REGION_MARGIN),
        )
    }
}

fn label_size(input: &Input<'_>, e: usize) -> Vec2 {
    input.label_sizes.get(e).copied().unwrap_or(Vec2::ZERO)
}

/// Which end of which arrow: `(Some(edge), outgoing)`, or [`INITIAL_END`].
type EndKey = (Option<usize>, bool);
const INITIAL_END: EndKey = (None, false);

/// The height of every arrow end, spread over the box sides they meet.
fn arrow_ends(input: &Input<'_>, routes: &[Option<Route>], grid: &Grid) -> HashMap<EndKey, f32> {
    let col = |node: usize| input.layers.column_of[node];
    let cy = |node: usize| grid.boxes[node].center().y;
    let mut sides: HashMap<(usize, Side), Vec<Port>> = HashMap::new();
    for (e, &(a, b)) in input.edges.iter().enumerate() {
        let Some(route) = routes[e] else { continue };
        let leftward = col(b) < col(a);
        // Ends are ordered by where the arrow comes from; corridor arrows by lane, outermost
        // lane outermost, so they nest.
        let (side_a, side_b, key_a, key_b) = match route {
            Route::SelfLoop => continue,
            Route::Adjacent if leftward => (Side::Left, Side::Right, cy(b), cy(a)),
            Route::Adjacent => (Side::Right, Side::Left, cy(b), cy(a)),
            Route::Corridor { above: true, lane } => {
                let k = -1.0e6 - lane as f32;
                (Side::Right, Side::Left, k, k)
            }
            Route::Corridor { above: false, lane } => {
                let k = 1.0e6 + lane as f32;
                (Side::Left, Side::Right, k, k)
            }
            Route::SameColumn { right, .. } => {
                let s = if right { Side::Right } else { Side::Left };
                (s, s, cy(b), cy(a))
            }
        };
        sides.entry((a, side_a)).or_default().push(Port {
            key: key_a,
            leftward,
            end: (Some(e), true),
        });
        sides.entry((b, side_b)).or_default().push(Port {
            key: key_b,
            leftward,
            end: (Some(e), false),
        });
    }
    if let Some(r) = input.root.filter(|&r| r < grid.boxes.len()) {
        sides.entry((r, Side::Left)).or_default().push(Port {
            key: cy(r),
            leftward: false,
            end: INITIAL_END,
        });
    }
    let mut ends = HashMap::new();
    for ((node, _), mut ports) in sides {
        // Ties (the two arrows of a pair) put the rightward one on top at both boxes, so they
        // run parallel instead of crossing.
        ports.sort_by(|p, q| {
            p.key
                .total_cmp(&q.key)
                .then(p.leftward.cmp(&q.leftward))
                .then(p.end.0.cmp(&q.end.0))
                .then(q.end.1.cmp(&p.end.1))
        });
        let k = ports.len();
        let rect = grid.boxes[node];
        let step = if k > 1 {
            ((rect.height() - 20.0) / (k - 1) as f32).min(14.0)
        } else {
            0.0
        };
        for (i, port) in ports.iter().enumerate() {
            ends.insert(
                port.end,
                rect.center().y + (i as f32 - (k - 1) as f32 * 0.5) * step,
            );
        }
    }
    ends
}

/// The path of arrow `e` and where its label would like to be.
fn route_edge(
    input: &Input<'_>,
    grid: &Grid,
    ends: &HashMap<EndKey, f32>,
    e: usize,
    route: Route,
) -> EdgeShape {
    let (a, b) = input.edges[e];
    let size = label_size(input, e);
    let (ra, rb) = (grid.boxes[a], grid.boxes[b]);
    let end_y = |outgoing: bool| ends.get(&(Some(e), outgoing)).copied().unwrap_or(0.0);
    let (ya, yb) = (end_y(true), end_y(false));
    let (ca, cb) = (input.layers.column_of[a], input.layers.column_of[b]);
    let (left, right) = (&grid.col_left, &grid.col_right);
    let mut segments = Vec::new();
    let label = match route {
        Route::SelfLoop => {
            let (cx, top) = (ra.center().x, ra.top());
            let control = top - LOOP_RISE / 0.75;
            segments.push([
                pos2(cx - 14.0, top),
                pos2(cx - 36.0, control),
                pos2(cx + 36.0, control),
                pos2(cx + 14.0, top),
            ]);
            Rect::from_center_size(pos2(cx, top - LOOP_RISE - LABEL_GAP - size.y * 0.5), size)
        }
        Route::Adjacent => {
            let (start, exit, entry, end) = if cb > ca {
                (
                    pos2(ra.right(), ya),
                    pos2(right[ca], ya),
                    pos2(left[cb], yb),
                    pos2(rb.left(), yb),
                )
            } else {
                (
                    pos2(ra.left(), ya),
                    pos2(left[ca], ya),
                    pos2(right[cb], yb),
                    pos2(rb.right(), yb),
                )
            };
            push_line(&mut segments, start, exit);
            segments.push(s_curve(exit, entry));
            push_line(&mut segments, entry, end);
            Rect::from_center_size(exit.lerp(entry, 0.5), size)
        }
        Route::Corridor { above: forward, .. } => {
            let y = grid.lane_y[e];
            let (start, exit, run_from, run_to, entry, end) = if forward {
                let (s, x) = (pos2(ra.right(), ya), pos2(right[ca], ya));
                (
                    s,
                    x,
                    pos2(left[ca + 1], y),
                    pos2(right[cb - 1], y),
                    pos2(left[cb], yb),
                    pos2(rb.left(), yb),
                )
            } else {
                let (s, x) = (pos2(ra.left(), ya), pos2(left[ca], ya));
                (
                    s,
                    x,
                    pos2(right[ca - 1], y),
                    pos2(left[cb + 1], y),
                    pos2(right[cb], yb),
                    pos2(rb.right(), yb),
                )
            };
            push_line(&mut segments, start, exit);
            segments.push(s_curve(exit, run_from));
            push_line(&mut segments, run_from, run_to);
            segments.push(s_curve(run_to, entry));
            push_line(&mut segments, entry, end);
            Rect::from_center_size(run_from.lerp(run_to, 0.5), size)
        }
        Route::SameColumn {
            right: to_right,
            bulge,
        } => {
            let (edge_x, sign, start_x, end_x) = if to_right {
                (right[ca], 1.0, ra.right(), rb.right())
            } else {
                (left[ca], -1.0, ra.left(), rb.left())
            };
            let (exit, entry) = (pos2(edge_x, ya), pos2(edge_x, yb));
            let control_x = edge_x + sign * bulge / 0.75;
            push_line(&mut segments, pos2(start_x, ya), exit);
            segments.push([exit, pos2(control_x, ya), pos2(control_x, yb), entry]);
            push_line(&mut segments, entry, pos2(end_x, yb));
            let apex = edge_x + sign * bulge;
            let label_left = if to_right {
                apex + LABEL_GAP
            } else {
                apex - LABEL_GAP - size.x
            };
            Rect::from_min_size(pos2(label_left, (ya + yb) * 0.5 - size.y * 0.5), size)
        }
    };
    EdgeShape { segments, label }
}

/// Final label positions: labels in gaps slide down until they touch nothing (no other label,
/// no box); the others are clear by construction.
fn settle_labels(
    fixed: Vec<Rect>,
    mut movable: Vec<(usize, Rect)>,
    boxes: &[Rect],
) -> Vec<(usize, Rect)> {
    movable.sort_by(|p, q| {
        p.1.center()
            .y
            .total_cmp(&q.1.center().y)
            .then(p.0.cmp(&q.0))
    });
    let mut placed = fixed;
    let mut out = Vec::with_capacity(movable.len());
    for (e, mut r) in movable {
        // Each slide moves strictly below an obstacle, so this ends after at most `placed.len()`.
        for _ in 0..=placed.len() + boxes.len() {
            let touches = |o: &&Rect| {
                o.expand(LABEL_GAP * 0.5)
                    .intersects(r.expand(LABEL_GAP * 0.5))
            };
            match placed.iter().chain(boxes.iter()).find(touches) {
                Some(o) => r = r.translate(vec2(0.0, o.bottom() + LABEL_GAP - r.top())),
                None => break,
            }
        }
        placed.push(r);
        out.push((e, r));
    }
    out
}

/// Moves everything so the diagram starts at (MARGIN, MARGIN), and sizes it.
fn normalize(d: Diagram) -> Diagram {
    let mut bounds = Rect::NOTHING;
    for r in d.boxes.iter().chain(d.edges.iter().map(|s| &s.label)) {
        if r.is_positive() {
            bounds = bounds.union(*r);
        }
    }
    for p in d.edges.iter().flat_map(|s| s.segments.iter().flatten()) {
        bounds.extend_with(*p);
    }
    if let Some(m) = &d.initial {
        bounds = bounds.union(Rect::from_center_size(m.dot, Vec2::splat(14.0)));
    }
    if let Some(r) = d.unreachable {
        bounds = bounds.union(r.with_min_y(r.min.y - CAPTION_ROOM));
    }
    if !bounds.is_positive() {
        bounds = Rect::from_min_size(Pos2::ZERO, Vec2::ZERO);
    }
    let shift = vec2(MARGIN, MARGIN) - bounds.min.to_vec2();
    let moved = |p: Pos2| p + shift;
    Diagram {
        boxes: d.boxes.into_iter().map(|r| r.translate(shift)).collect(),
        edges: d
            .edges
            .into_iter()
            .map(|s| EdgeShape {
                segments: s.segments.into_iter().map(|seg| seg.map(moved)).collect(),
                label: s.label.translate(shift),
            })
            .collect(),
        initial: d.initial.map(|m| InitialMarker {
            dot: moved(m.dot),
            tip: moved(m.tip),
        }),
        unreachable: d.unreachable.map(|r| r.translate(shift)),
        size: bounds.size() + Vec2::splat(2.0 * MARGIN),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::layered;

    fn diagram(nodes: usize, root: Option<usize>, edges: &[(usize, usize)]) -> Diagram {
        let layers = layered(nodes, root, edges);
        let sizes: Vec<Vec2> = (0..nodes)
            .map(|i| vec2(100.0 + 13.0 * (i % 4) as f32, 54.0))
            .collect();
        let labels: Vec<Vec2> = (0..edges.len())
            .map(|i| vec2(60.0 + 17.0 * (i % 5) as f32, 16.0 + 14.0 * (i % 2) as f32))
            .collect();
        lay_out(&Input {
            node_sizes: &sizes,
            edges,
            label_sizes: &labels,
            layers: &layers,
            root,
        })
    }

    fn assert_legible(d: &Diagram) {
        let overlap = |a: &Rect, b: &Rect| a.intersects(*b) && a.intersect(*b).area() > 0.0;
        for (i, a) in d.boxes.iter().enumerate() {
            for b in &d.boxes[i + 1..] {
                assert!(!overlap(a, b), "boxes overlap: {a:?} {b:?}");
            }
        }
        let labels: Vec<Rect> = d
            .edges
            .iter()
            .map(|e| e.label)
            .filter(|r| r.is_positive())
            .collect();
        for (i, a) in labels.iter().enumerate() {
            for b in &d.boxes {
                assert!(!overlap(a, b), "label {a:?} overlaps box {b:?}");
            }
            for b in &labels[i + 1..] {
                assert!(!overlap(a, b), "labels overlap: {a:?} {b:?}");
            }
        }
        let whole = Rect::from_min_size(Pos2::ZERO, d.size);
        for r in d.boxes.iter().chain(labels.iter()) {
            assert!(whole.contains_rect(*r), "{r:?} outside {whole:?}");
        }
    }

    #[test]
    fn a_chain_with_a_loop_back_is_legible() {
        // StandSellTicket: Start -> Goto1 -> Wait -> Talk -> FinishTalk -> Goto1.
        let d = diagram(5, Some(0), &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 1)]);
        assert_legible(&d);
        // The loop back runs below the boxes.
        let lowest_box = d.boxes.iter().map(|r| r.bottom()).fold(0.0, f32::max);
        assert!(d.edges[4].label.top() > lowest_box);
        // The chain stays on one row.
        assert!(
            d.boxes
                .windows(2)
                .all(|w| (w[0].center().y - w[1].center().y).abs() < 0.5)
        );
        let m = d.initial.expect("initial marker");
        assert!(m.dot.x < d.boxes[0].left() && (m.tip.y - d.boxes[0].center().y).abs() < 8.0);
    }

    #[test]
    fn bidirectional_pairs_and_self_loops_stay_apart() {
        let d = diagram(
            3,
            Some(0),
            &[(0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2)],
        );
        assert_legible(&d);
        // The two arrows of a pair end at different heights.
        assert!((d.edges[0].tip().0.y - d.edges[1].segments[0][0].y).abs() > 4.0);
        // A self-loop sits on top of its box and points down into it.
        let (tip, dir) = d.edges[2].tip();
        assert!((tip.y - d.boxes[1].top()).abs() < 0.5 && dir.y > 0.0);
    }

    #[test]
    fn same_column_pairs_bulge_to_opposite_sides() {
        // 1 and 2 are both at depth 1, and point at each other.
        let d = diagram(3, Some(0), &[(0, 1), (0, 2), (1, 2), (2, 1)]);
        assert_legible(&d);
        let max_x = |e: &EdgeShape| e.polyline().iter().map(|p| p.x).fold(f32::MIN, f32::max);
        let min_x = |e: &EdgeShape| e.polyline().iter().map(|p| p.x).fold(f32::MAX, f32::min);
        assert!(max_x(&d.edges[2]) > d.boxes[1].right() + 10.0);
        assert!(min_x(&d.edges[3]) < d.boxes[1].left() - 10.0);
    }

    #[test]
    fn dense_graphs_are_legible() {
        let mut seed: u32 = 7;
        let mut next = |m: usize| {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            (seed >> 16) as usize % m
        };
        for nodes in [4, 7, 12] {
            let mut edges = Vec::new();
            for _ in 0..nodes * 2 {
                let e = (next(nodes), next(nodes));
                if !edges.contains(&e) {
                    edges.push(e);
                }
            }
            assert_legible(&diagram(nodes, Some(0), &edges));
        }
    }

    #[test]
    fn unreachable_and_rootless_machines_are_legible() {
        let d = diagram(4, Some(0), &[(0, 1), (2, 3), (3, 2)]);
        assert_legible(&d);
        let frame = d.unreachable.expect("unreachable states are framed");
        assert!(
            frame.contains_rect(d.boxes[2])
                && frame.contains_rect(d.boxes[3])
                && !frame.intersects(d.boxes[1])
        );
        assert_legible(&diagram(3, None, &[(0, 1), (1, 2)]));
        let empty = diagram(0, None, &[]);
        assert!(empty.boxes.is_empty());
    }
}
