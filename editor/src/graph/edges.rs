//! Edges drawn so a graph reads at a glance: each one ends in an arrowhead at its target, a
//! transition back to its own state is a loop over the node, and one that goes back against
//! the flow (its target left of its source) runs in a lane below or above every node between
//! the two, not as a straight line behind them; one that goes forward past a node it skips
//! turns into a lane around that node.
//!
//! Snarl draws its own wires from an output pin straight to an input pin; the graph editors
//! make those transparent and draw these instead, in graph coordinates, behind the nodes.

use crate::theme;
use eframe::egui;
use egui::{Color32, Pos2, Rect, Shape, Stroke, Vec2, pos2, vec2};
use egui_snarl::{NodeId, OutPinId, Snarl};
use ensemble_compiler::diag::Severity;
use std::collections::HashMap;

/// How far an edge runs straight out of its pin before it turns.
const STUB: f32 = 18.0;
/// Clearance between a routed edge and the nodes it goes around.
const CLEARANCE: f32 = 22.0;
/// Space between lanes of back edges that pass the same nodes.
const LANE_GAP: f32 = 9.0;
/// Corner radius of routed edges.
const CORNER: f32 = 10.0;
pub const ARROW_LENGTH: f32 = 11.0;
const ARROW_HALF_WIDTH: f32 = 5.5;

/// One edge: from an output pin on the right of `source` to the input pin on the left of
/// `target` (graph coordinates).
#[derive(Clone, Debug)]
pub struct Edge {
    pub from: Pos2,
    pub to: Pos2,
    pub source: Rect,
    pub target: Rect,
    pub color: Color32,
}

/// How an edge is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Left to right, as the flow goes: a curve.
    Forward,
    /// To its own node: a loop over it.
    SelfLoop,
    /// Against the flow: in a lane below (or above, the shorter way) the nodes between.
    Back,
}

impl Edge {
    pub fn route(&self) -> Route {
        if self.source == self.target {
            Route::SelfLoop
        } else if self.to.x >= self.from.x + 2.0 * STUB {
            Route::Forward
        } else {
            Route::Back
        }
    }
}

/// The points each edge is drawn through (a polyline; curves are sampled), in the order of
/// `edges`. `obstacles` are the nodes' rectangles: back edges go around those they pass.
pub fn paths(edges: &[Edge], obstacles: &[Rect]) -> Vec<Vec<Pos2>> {
    // Lanes already taken below and above, by their y: a back edge over the same nodes takes
    // the next one out, so parallel edges stay apart.
    let mut below: Vec<f32> = Vec::new();
    let mut above: Vec<f32> = Vec::new();
    edges
        .iter()
        .map(|e| match e.route() {
            Route::Forward => forward(e, obstacles, &mut below, &mut above),
            Route::SelfLoop => {
                let top = e.source.top() - CLEARANCE;
                rounded(&[
                    e.from,
                    pos2(e.from.x + STUB, e.from.y),
                    pos2(e.from.x + STUB, top),
                    pos2(e.to.x - STUB, top),
                    pos2(e.to.x - STUB, e.to.y),
                    e.to,
                ])
            }
            Route::Back => {
                let (left, right) = (e.to.x - STUB, e.from.x + STUB);
                // Its own two nodes always, though a short edge may span neither.
                let passed = obstacles
                    .iter()
                    .filter(|r| r.right() >= left && r.left() <= right)
                    .chain([&e.source, &e.target]);
                let (mut top, mut bottom) = (f32::INFINITY, f32::NEG_INFINITY);
                for r in passed {
                    top = top.min(r.top());
                    bottom = bottom.max(r.bottom());
                }
                // The shorter way round.
                let go_below =
                    (bottom - e.from.y) + (bottom - e.to.y) <= (e.from.y - top) + (e.to.y - top);
                let lane = if go_below {
                    take_lane(&mut below, bottom + CLEARANCE, 1.0)
                } else {
                    take_lane(&mut above, top - CLEARANCE, -1.0)
                };
                rounded(&[
                    e.from,
                    pos2(right, e.from.y),
                    pos2(right, lane),
                    pos2(left, lane),
                    pos2(left, e.to.y),
                    e.to,
                ])
            }
        })
        .collect()
}

/// A forward edge: a curve, unless that runs through a node it skips; then it turns out of its
/// pin into a lane just below (or above, the shorter way) the nodes in its way, and back in
/// before its target.
fn forward(e: &Edge, obstacles: &[Rect], below: &mut Vec<f32>, above: &mut Vec<f32>) -> Vec<Pos2> {
    let direct = curve(e.from, e.to);
    let others: Vec<Rect> = obstacles
        .iter()
        .copied()
        .filter(|r| *r != e.source && *r != e.target)
        .collect();
    let hit = |path: &[Pos2], r: &Rect| crosses(path, *r);
    let mut blocking: Vec<Rect> = others.iter().filter(|r| hit(&direct, r)).copied().collect();
    if blocking.is_empty() {
        return direct;
    }
    let (left, right) = (e.from.x + STUB, e.to.x - STUB);
    let mut path = direct;
    // Going around some nodes may run into others: those join the ones to pass.
    for _ in 0..4 {
        let (mut top, mut bottom) = (f32::INFINITY, f32::NEG_INFINITY);
        for r in &blocking {
            top = top.min(r.top());
            bottom = bottom.max(r.bottom());
        }
        let go_below = (bottom - e.from.y) + (bottom - e.to.y) <= (e.from.y - top) + (e.to.y - top);
        let lane = if go_below {
            free_lane(below, bottom + CLEARANCE, 1.0)
        } else {
            free_lane(above, top - CLEARANCE, -1.0)
        };
        path = rounded(&[
            e.from,
            pos2(left, e.from.y),
            pos2(left, lane),
            pos2(right, lane),
            pos2(right, e.to.y),
            e.to,
        ]);
        let more: Vec<Rect> = others
            .iter()
            .filter(|r| !blocking.contains(r) && hit(&path, r))
            .copied()
            .collect();
        if more.is_empty() {
            take_lane(if go_below { below } else { above }, lane, 1.0);
            break;
        }
        blocking.extend(more);
    }
    path
}

/// Whether the polyline `path` runs through the inside of `r`.
pub fn crosses(path: &[Pos2], r: Rect) -> bool {
    let inner = r.shrink(1.0);
    if !inner.is_positive() {
        return false;
    }
    path.windows(2).any(|w| segment_enters(w[0], w[1], inner))
}

/// Whether the segment `a`–`b` has a point inside `r` (Liang–Barsky clipping).
fn segment_enters(a: Pos2, b: Pos2, r: Rect) -> bool {
    let d = b - a;
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    for (p, q) in [
        (-d.x, a.x - r.left()),
        (d.x, r.right() - a.x),
        (-d.y, a.y - r.top()),
        (d.y, r.bottom() - a.y),
    ] {
        if p == 0.0 {
            if q <= 0.0 {
                return false;
            }
        } else {
            let t = q / p;
            if p < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    t0 < t1
}

/// The first lane at or beyond `y` (going `dir`) no other edge has taken, without taking it.
fn free_lane(taken: &[f32], mut y: f32, dir: f32) -> f32 {
    while taken.iter().any(|t| (t - y).abs() < LANE_GAP - 0.01) {
        y += dir * LANE_GAP;
    }
    y
}

/// The first lane at or beyond `y` (going `dir`) no other edge has taken, which it takes.
fn take_lane(taken: &mut Vec<f32>, mut y: f32, dir: f32) -> f32 {
    while taken.iter().any(|t| (t - y).abs() < LANE_GAP - 0.01) {
        y += dir * LANE_GAP;
    }
    taken.push(y);
    y
}

/// A curve leaving `from` and arriving at `to` horizontally, sampled.
fn curve(from: Pos2, to: Pos2) -> Vec<Pos2> {
    let dx = ((to.x - from.x) * 0.45).max(STUB * 2.0);
    let (c1, c2) = (from + vec2(dx, 0.0), to - vec2(dx, 0.0));
    (0..=24)
        .map(|i| {
            let t = i as f32 / 24.0;
            let u = 1.0 - t;
            (from.to_vec2() * (u * u * u)
                + c1.to_vec2() * (3.0 * u * u * t)
                + c2.to_vec2() * (3.0 * u * t * t)
                + to.to_vec2() * (t * t * t))
                .to_pos2()
        })
        .collect()
}

/// An orthogonal polyline with its corners rounded.
fn rounded(points: &[Pos2]) -> Vec<Pos2> {
    // A corner needs two segments of some length: repeated points (nodes not laid out yet
    // stand on top of each other) would give it no direction.
    let mut points = points.to_vec();
    points.dedup_by(|b, a| (*b - *a).length() < 0.5);
    if points.len() < 3 {
        return points;
    }
    let mut out = vec![points[0]];
    for w in points.windows(3) {
        let (a, b, c) = (w[0], w[1], w[2]);
        let r = CORNER
            .min((b - a).length() / 2.0)
            .min((c - b).length() / 2.0);
        let (p, q) = (b + (a - b).normalized() * r, b + (c - b).normalized() * r);
        for i in 0..=6 {
            let t = i as f32 / 6.0;
            let u = 1.0 - t;
            out.push(
                (p.to_vec2() * (u * u) + b.to_vec2() * (2.0 * u * t) + q.to_vec2() * (t * t))
                    .to_pos2(),
            );
        }
    }
    out.push(*points.last().expect("a route has two points or more"));
    out
}

/// The shapes of `edges`: each path, and an arrowhead whose tip touches the target's pin.
/// `pin_radius` keeps the tip outside the pin drawn over it.
pub fn shapes(edges: &[Edge], paths: &[Vec<Pos2>], width: f32, pin_radius: f32) -> Vec<Shape> {
    let mut out = Vec::with_capacity(edges.len() * 2);
    for (e, path) in edges.iter().zip(paths) {
        let tip = e.to - vec2(pin_radius, 0.0);
        // The path ends at the pin's centre; stop it where the arrowhead starts.
        let mut line: Vec<Pos2> = path
            .iter()
            .copied()
            .filter(|p| p.x <= tip.x - ARROW_LENGTH + 1.0 || (p.y - e.to.y).abs() > 1.0)
            .collect();
        line.push(tip - vec2(ARROW_LENGTH - 1.0, 0.0));
        out.push(Shape::line(line, Stroke::new(width, e.color)));
        out.push(arrowhead(tip, vec2(1.0, 0.0), e.color));
    }
    out
}

/// A filled triangle pointing along `dir` with its tip at `tip`.
pub fn arrowhead(tip: Pos2, dir: Vec2, color: Color32) -> Shape {
    let dir = if dir.length() > 0.01 {
        dir.normalized()
    } else {
        vec2(1.0, 0.0)
    };
    let back = tip - dir * ARROW_LENGTH;
    let side = dir.rot90() * ARROW_HALF_WIDTH;
    Shape::convex_polygon(vec![tip, back + side, back - side], color, Stroke::NONE)
}

/// The wire being dragged out of a pin (snarl's own is transparent with the others): from the
/// pin to the pointer, arrowhead at the pointer.
pub fn dragged(from: Pos2, to: Pos2, width: f32) -> Vec<Shape> {
    let color = theme::ACCENT;
    let path = curve(from, to);
    let dir = to - path[path.len() - 2];
    vec![
        Shape::line(path, Stroke::new(width, color)),
        arrowhead(
            to,
            if dir.length() > 0.1 {
                dir
            } else {
                vec2(1.0, 0.0)
            },
            color,
        ),
    ]
}

/// Whether `p` is within `distance` of the polyline `path` (right-clicking an edge).
pub fn near(path: &[Pos2], p: Pos2, distance: f32) -> bool {
    path.windows(2).any(|w| {
        let (a, b) = (w[0], w[1]);
        let ab = b - a;
        let t = if ab.length_sq() > 0.0 {
            ((p - a).dot(ab) / ab.length_sq()).clamp(0.0, 1.0)
        } else {
            0.0
        };
        (a + ab * t - p).length() <= distance
    })
}

/// The colour of an edge: an error when its target names no node, its diagnostic's severity
/// when it has one, else `plain`.
pub fn color(names_a_node: bool, marked: Option<&Severity>, plain: Color32) -> Color32 {
    match (names_a_node, marked) {
        (false, _) => theme::ERROR,
        (true, Some(sev)) => theme::severity_color(*sev),
        (true, None) => plain,
    }
}

/// A graph view's edges across a frame: a slot behind the nodes reserved while snarl draws
/// its background, filled once the nodes have been laid out (so edges follow a dragged node in
/// the same frame), and the routes drawn, for telling a right-click on an edge from one beside
/// it.
#[derive(Default)]
pub struct Wires {
    slot: Option<(egui::Painter, egui::layers::ShapeIdx)>,
    routes: HashMap<OutPinId, Vec<Pos2>>,
}

/// Pin rows of the nodes last drawn: (node, output or `None` for the input) -> y, graph
/// coordinates.
pub type PinRows = HashMap<(NodeId, Option<usize>), f32>;

impl Wires {
    /// Reserves the place of the edges in the snarl's layer (call from `draw_background`).
    pub fn reserve(&mut self, painter: &egui::Painter) {
        self.slot = Some((painter.clone(), painter.add(Shape::Noop)));
    }

    /// Whether a right-click at `pointer` (graph coordinates) was on the edge out of `pin`
    /// as drawn; snarl tests its own straight wire, which the drawn route may not follow.
    pub fn hit(&self, pin: OutPinId, pointer: Option<Pos2>, scale: f32) -> bool {
        match (self.routes.get(&pin), pointer) {
            (Some(route), Some(p)) => near(route, p, 6.0 / scale.max(0.1)),
            _ => false,
        }
    }

    /// The edge out of `pin` as last drawn, graph coordinates.
    pub fn route(&self, pin: OutPinId) -> Option<&[Pos2]> {
        self.routes.get(&pin).map(Vec::as_slice)
    }

    /// The point halfway along the edge out of `pin` as last drawn (where its label goes).
    pub fn middle(&self, pin: OutPinId) -> Option<Pos2> {
        let route = self.routes.get(&pin)?;
        let length: f32 = route.windows(2).map(|w| (w[1] - w[0]).length()).sum();
        let mut left = length / 2.0;
        for w in route.windows(2) {
            let step = (w[1] - w[0]).length();
            if step >= left && step > 0.0 {
                return Some(w[0] + (w[1] - w[0]) * (left / step));
            }
            left -= step;
        }
        route.last().copied()
    }

    /// Draws the snarl's wires as routed edges, `extra` ones besides (ends out of view), and
    /// the wire being dragged out of a pin. `color` gives an output pin's edge colour.
    #[allow(clippy::too_many_arguments)]
    pub fn paint<N>(
        &mut self,
        ui: &egui::Ui,
        snarl: &Snarl<N>,
        rects: &HashMap<NodeId, Rect>,
        pins: &PinRows,
        to_screen: egui::emath::TSTransform,
        color: impl Fn(OutPinId) -> Color32,
        extra: Vec<Edge>,
        wiring: Option<PinKey>,
    ) {
        let Some((painter, slot)) = self.slot.take() else {
            return;
        };
        let mut ids = Vec::new();
        let mut edges = Vec::new();
        for (out, inp) in snarl.wires() {
            let (Some(a), Some(ay), Some(b), Some(by)) = (
                rects.get(&out.node),
                pins.get(&(out.node, Some(out.output))),
                rects.get(&inp.node),
                pins.get(&(inp.node, None)),
            ) else {
                continue;
            };
            ids.push(out);
            edges.push(Edge {
                from: pos2(a.right(), *ay),
                to: pos2(b.left(), *by),
                source: *a,
                target: *b,
                color: color(out),
            });
        }
        edges.extend(extra);
        let obstacles: Vec<Rect> = rects.values().copied().collect();
        let paths = paths(&edges, &obstacles);
        let mut shapes = shapes(&edges, &paths, WIDTH, PIN_SIZE / 2.0);
        self.routes = ids.into_iter().zip(paths).collect();
        if let Some((from, to)) = dragged_pin(ui, wiring, rects, pins, to_screen) {
            shapes.extend(dragged(from, to, WIDTH));
        }
        painter.set(slot, Shape::Vec(shapes));
    }
}

/// Width of the edges.
pub const WIDTH: f32 = 2.0;
/// Diameter of the pins; large enough to grab.
pub const PIN_SIZE: f32 = 12.0;

/// A pin of a node: its output, or `None` for its input.
pub type PinKey = (NodeId, Option<usize>);

/// How far either side of a node's edge a pin takes the pointer: a drag that starts a few
/// points off the dot still draws a wire.
pub const GRAB: f32 = 16.0;
/// How far into the node the input pin's target reaches (the rest of the node is its frame's:
/// its menu, its drag).
pub const INSIDE: f32 = 3.0;
/// How far above and below its row's middle an output pin takes the pointer.
pub const ROW_GRAB: f32 = 10.0;

/// The pin whose target holds `p` (graph coordinates): an output pin's row on the node's right
/// edge, or the whole left edge, outside the node, for its input.
pub fn pin_under(p: Pos2, rects: &HashMap<NodeId, Rect>, pins: &PinRows) -> Option<PinKey> {
    // The nearest row, should two rows' targets meet.
    let output = pins
        .iter()
        .filter(|((node, output), y)| {
            output.is_some()
                && (p.y - **y).abs() <= ROW_GRAB
                && rects
                    .get(node)
                    .is_some_and(|r| (p.x - r.right()).abs() <= GRAB)
        })
        .min_by(|a, b| (p.y - a.1).abs().total_cmp(&(p.y - b.1).abs()))
        .map(|(key, _)| *key);
    output.or_else(|| {
        pins.keys().find_map(|&(node, output)| {
            let r = rects.get(&node)?;
            (output.is_none()
                && (r.left() - GRAB..=r.left() + INSIDE).contains(&p.x)
                && (r.top()..=r.bottom()).contains(&p.y))
            .then_some((node, None))
        })
    })
}

/// The wire being dragged out of the pin `wiring`, as (from, to) in graph coordinates, while
/// the primary button is held.
fn dragged_pin(
    ui: &egui::Ui,
    wiring: Option<PinKey>,
    rects: &HashMap<NodeId, Rect>,
    pins: &PinRows,
    to_screen: egui::emath::TSTransform,
) -> Option<(Pos2, Pos2)> {
    let (node, output) = wiring?;
    let (origin, now, down) = ui.input(|i| {
        (
            i.pointer.press_origin(),
            i.pointer.latest_pos(),
            i.pointer.primary_down(),
        )
    });
    let (origin, now) = (origin?, now?);
    if !down || (now - origin).length() < 4.0 {
        return None;
    }
    let now = to_screen.inverse() * now;
    let r = rects.get(&node)?;
    let y = *pins.get(&(node, output))?;
    Some(match output {
        Some(_) => (pos2(r.right(), y), now),
        None => (now, pos2(r.left(), y)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(x: f32, y: f32) -> Rect {
        Rect::from_min_size(pos2(x, y), vec2(100.0, 60.0))
    }

    fn edge(source: Rect, target: Rect) -> Edge {
        Edge {
            from: pos2(source.right(), source.center().y),
            to: pos2(target.left(), target.center().y),
            source,
            target,
            color: Color32::WHITE,
        }
    }

    #[test]
    fn a_back_edge_goes_around_the_nodes_between_not_through_them() {
        let (a, b, c) = (node(0.0, 0.0), node(200.0, 0.0), node(400.0, 0.0));
        let back = edge(c, a);
        assert_eq!(back.route(), Route::Back);
        let paths = paths(&[back], &[a, b, c]);
        for r in [a, b, c] {
            assert!(!crosses(&paths[0], r), "{r:?} is crossed by {:?}", paths[0]);
        }
        // It does run past the middle node, below it.
        let below_b = Rect::from_x_y_ranges(b.x_range(), b.bottom()..=b.bottom() + 100.0);
        assert!(crosses(&paths[0], below_b), "{:?}", paths[0]);
    }

    #[test]
    fn a_forward_edge_goes_around_the_node_it_skips() {
        let (a, b, c) = (node(0.0, 0.0), node(200.0, 0.0), node(400.0, 0.0));
        let skip = edge(a, c);
        assert_eq!(skip.route(), Route::Forward);
        let paths = paths(&[edge(a, b), skip.clone()], &[a, b, c]);
        // The edge to the next node is the plain curve; the one past it goes round it.
        assert_eq!(paths[0], curve(edge(a, b).from, edge(a, b).to));
        for r in [a, b, c] {
            assert!(!crosses(&paths[1], r), "{r:?} is crossed by {:?}", paths[1]);
        }
        assert_eq!(*paths[1].last().unwrap(), skip.to);
    }

    #[test]
    fn a_self_loop_goes_over_its_node() {
        let a = node(0.0, 100.0);
        let e = edge(a, a);
        assert_eq!(e.route(), Route::SelfLoop);
        let paths = paths(&[e], &[a]);
        assert!(!crosses(&paths[0], a));
        assert!(paths[0].iter().any(|p| p.y < a.top()));
    }

    #[test]
    fn parallel_back_edges_take_separate_lanes() {
        let (a, b) = (node(0.0, 0.0), node(200.0, 0.0));
        let paths = paths(&[edge(b, a), edge(b, a)], &[a, b]);
        let lowest = |p: &Vec<Pos2>| p.iter().map(|p| p.y).fold(f32::MIN, f32::max);
        assert!((lowest(&paths[0]) - lowest(&paths[1])).abs() >= LANE_GAP - 0.1);
    }

    #[test]
    fn every_edge_ends_in_an_arrowhead_at_its_target() {
        let (a, b) = (node(0.0, 0.0), node(200.0, 0.0));
        let edges = [edge(a, b), edge(b, a), edge(a, a)];
        let shapes = shapes(&edges, &paths(&edges, &[a, b]), 2.0, 4.0);
        let tips: Vec<Pos2> = shapes
            .iter()
            .filter_map(|s| match s {
                Shape::Path(p) if p.closed => Some(p.points[0]),
                _ => None,
            })
            .collect();
        assert_eq!(tips.len(), 3);
        for (e, tip) in edges.iter().zip(tips) {
            assert!((tip - (e.to - vec2(4.0, 0.0))).length() < 0.01);
        }
    }

    #[test]
    fn nodes_on_top_of_or_close_to_each_other_give_finite_paths() {
        // Before the first layout every node may stand at the origin; a NaN point makes the
        // painter panic.
        let a = node(0.0, 0.0);
        let b = Rect::from_min_size(pos2(0.0, 0.0), vec2(0.0, 0.0));
        let c = node(-36.0, 0.0);
        // Nodes closer than the edge's two stubs: the edge spans neither of them.
        let d = node(a.right() + 20.0, 10.0);
        let edges = [
            edge(a, b),
            edge(b, a),
            edge(b, b),
            edge(a, c),
            edge(c, a),
            edge(a, d),
        ];
        let paths = paths(&edges, &[a, b, c, d]);
        for s in shapes(&edges, &paths, 2.0, 4.0).into_iter().chain(dragged(
            pos2(1.0, 1.0),
            pos2(1.0, 1.0),
            2.0,
        )) {
            let points = match s {
                Shape::Path(p) => p.points,
                other => panic!("{other:?}"),
            };
            assert!(
                points.iter().all(|p| p.x.is_finite() && p.y.is_finite()),
                "{points:?}"
            );
        }
    }

    #[test]
    fn a_point_on_a_path_is_near_it() {
        let path = [pos2(0.0, 0.0), pos2(100.0, 0.0)];
        assert!(near(&path, pos2(50.0, 3.0), 4.0));
        assert!(!near(&path, pos2(50.0, 30.0), 4.0));
    }
}
