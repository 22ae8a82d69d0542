//! Drawing one machine: measures the texts, asks [`crate::diagram`] where things go, then paints
//! boxes, arrows and labels on a scrollable canvas and reports clicks. States are real widgets
//! (with accessibility labels), so they can be hovered, clicked, double-clicked and tested.
//!
//! A diagram wider or taller than the view is shrunk to fit (down to [`MIN_SCALE`], then it
//! scrolls) by laying its text out again at the smaller size, which keeps the text crisp.

use crate::diagram::{self, Diagram, Input};
use crate::layout;
use crate::machine_graph::{MachineGraph, Node};
use crate::theme;
use eframe::egui;
use egui::epaint::{CornerRadius, Shape, Stroke, StrokeKind};
use egui::text::LayoutJob;
use egui::{Align2, Color32, FontFamily, FontId, Galley, Pos2, Rect, Sense, Ui, Vec2, pos2, vec2};
use ensemble_compiler::ir::{Handle, Machine, State};
use std::sync::Arc;

const PAD_X: f32 = 14.0;
const MIN_BOX_WIDTH: f32 = 96.0;
const BOX_HEIGHT: f32 = 40.0;
const BOX_HEIGHT_WITH_SUBTITLE: f32 = 56.0;
const LABEL_PAD: Vec2 = vec2(7.0, 3.0);
/// `▸` is not in egui's default fonts; `⏵` is, and reads the same.
const CHILD_HINT: &str = "⏵ child";
const ARROW_LENGTH: f32 = 9.0;
const GRID: f32 = 24.0;
/// Smallest shrink-to-fit factor; below it text gets too small to read, so the view scrolls.
const MIN_SCALE: f32 = 0.6;

/// What the user did in the diagram this frame.
#[derive(Default)]
pub struct GraphResponse {
    pub clicked: Option<Handle<State>>,
    pub open_child: Option<Handle<Machine>>,
}

struct NodeTexts {
    title: Arc<Galley>,
    subtitle: Option<Arc<Galley>>,
    hint: Option<Arc<Galley>>,
}

fn title_font(scale: f32) -> FontId {
    FontId::new(14.5 * scale, FontFamily::Proportional)
}

fn small_font(scale: f32) -> FontId {
    FontId::new(12.0 * scale, FontFamily::Proportional)
}

fn node_texts(ui: &Ui, node: &Node, scale: f32) -> NodeTexts {
    let painter = ui.painter();
    let title_color = if node.is_missing() {
        theme::ERROR
    } else {
        theme::TEXT
    };
    let title = painter.layout_no_wrap(node.title.clone(), title_font(scale), title_color);
    let subtitle = node
        .subtitle
        .clone()
        .map(|s| painter.layout_no_wrap(s, small_font(scale), theme::TEXT_WEAK));
    let hint = node
        .child
        .map(|_| painter.layout_no_wrap(CHILD_HINT.to_string(), small_font(scale), theme::ACCENT));
    NodeTexts {
        title,
        subtitle,
        hint,
    }
}

/// The box that holds `texts` at full size.
fn box_size(texts: &NodeTexts) -> Vec2 {
    let title_row = texts.title.size().x + texts.hint.as_ref().map_or(0.0, |h| h.size().x + 12.0);
    let sub_row = texts.subtitle.as_ref().map_or(0.0, |s| s.size().x);
    let width = (title_row.max(sub_row) + 2.0 * PAD_X)
        .max(MIN_BOX_WIDTH)
        .round();
    let height = if texts.subtitle.is_some() {
        BOX_HEIGHT_WITH_SUBTITLE
    } else {
        BOX_HEIGHT
    };
    vec2(width, height)
}

/// An arrow's label: its events, one per line, centred.
fn label_text(ui: &Ui, events: &[String], scale: f32) -> Arc<Galley> {
    let mut job = LayoutJob::simple(
        events.join("\n"),
        small_font(scale),
        Color32::PLACEHOLDER,
        f32::INFINITY,
    );
    job.halign = egui::Align::Center;
    ui.painter().layout_job(job)
}

/// Paints `galley` centred in `rect` (a centred galley's own rect straddles x = 0).
fn paint_centered(painter: &egui::Painter, rect: Rect, galley: Arc<Galley>, color: Color32) {
    let pos = rect.center() - galley.rect.center().to_vec2();
    painter.galley(pos, galley, color);
}

/// Shows `graph`, highlighting `selected`, filling the available space.
pub fn show(ui: &mut Ui, graph: &MachineGraph, selected: Option<Handle<State>>) -> GraphResponse {
    let mut texts: Vec<NodeTexts> = graph.nodes.iter().map(|n| node_texts(ui, n, 1.0)).collect();
    let mut labels: Vec<Arc<Galley>> = graph
        .edges
        .iter()
        .map(|e| label_text(ui, &e.events, 1.0))
        .collect();
    let sizes: Vec<Vec2> = texts.iter().map(box_size).collect();
    let label_sizes: Vec<Vec2> = labels.iter().map(|g| g.size() + 2.0 * LABEL_PAD).collect();
    let pairs: Vec<(usize, usize)> = graph.edges.iter().map(|e| (e.from, e.to)).collect();
    let layers = layout::layered(graph.nodes.len(), graph.root, &pairs);
    let diagram = diagram::lay_out(&Input {
        node_sizes: &sizes,
        edges: &pairs,
        label_sizes: &label_sizes,
        layers: &layers,
        root: graph.root,
    });
    let room = ui.available_size();
    let s = (room.x / diagram.size.x)
        .min(room.y / diagram.size.y)
        .clamp(MIN_SCALE, 1.0);
    let diagram = if s < 1.0 {
        texts = graph.nodes.iter().map(|n| node_texts(ui, n, s)).collect();
        labels = graph
            .edges
            .iter()
            .map(|e| label_text(ui, &e.events, s))
            .collect();
        diagram.scaled(s)
    } else {
        diagram
    };

    let mut out = GraphResponse::default();
    egui::ScrollArea::both()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let size = diagram.size.max(ui.available_size());
            let (canvas, _) = ui.allocate_exact_size(size, Sense::hover());
            paint_grid(ui, canvas);
            let offset =
                canvas.min.to_vec2() + ((size - diagram.size) * 0.5).max(Vec2::ZERO).floor();

            // Interact first, so hovering a state can highlight its arrows in the same frame.
            let mut hovered = None;
            for (i, node) in graph.nodes.iter().enumerate() {
                let rect = diagram.boxes[i].translate(offset);
                let response = ui.interact(rect, ui.id().with(("state", i)), Sense::click());
                response.widget_info(|| {
                    egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &node.title)
                });
                if response.hovered() {
                    hovered = Some(i);
                }
                if response.clicked() {
                    out.clicked = node.state;
                }
                if response.double_clicked() {
                    out.open_child = node.child;
                }
                if !node.details.is_empty() {
                    response.on_hover_ui(|ui| {
                        for line in &node.details {
                            ui.label(line);
                        }
                    });
                }
            }
            let selected_node =
                selected.and_then(|s| graph.nodes.iter().position(|n| n.state == Some(s)));
            let focus = |i: usize| Some(i) == hovered || Some(i) == selected_node;

            let painter = ui.painter();
            if let Some(frame) = diagram.unreachable {
                let frame = frame.translate(offset);
                let corners = [
                    frame.left_top(),
                    frame.right_top(),
                    frame.right_bottom(),
                    frame.left_bottom(),
                    frame.left_top(),
                ];
                painter.extend(Shape::dashed_line(
                    &corners,
                    Stroke::new(1.0, theme::BORDER),
                    4.0 * s,
                    4.0 * s,
                ));
                let caption = FontId::new(11.5 * s, FontFamily::Proportional);
                painter.text(
                    frame.left_top() + vec2(2.0, -4.0) * s,
                    Align2::LEFT_BOTTOM,
                    "unreachable",
                    caption,
                    theme::TEXT_WEAK,
                );
            }
            for (e, edge) in graph.edges.iter().enumerate() {
                let color = if edge.broken {
                    theme::ERROR
                } else if focus(edge.from) || focus(edge.to) {
                    theme::ACCENT
                } else {
                    theme::EDGE
                };
                paint_edge(painter, &diagram, e, offset, color, edge.broken, s);
                let rect = diagram.edges[e].label.translate(offset);
                painter.rect_filled(rect, CornerRadius::same(4), theme::CANVAS);
                let text_color = if color == theme::EDGE {
                    Color32::from_rgb(186, 194, 209)
                } else {
                    color
                };
                paint_centered(painter, rect, labels[e].clone(), text_color);
            }
            if let Some(m) = &diagram.initial {
                let (dot, tip) = (m.dot + offset, m.tip + offset);
                painter.circle_filled(dot, 6.0 * s, theme::TEXT);
                painter.line_segment(
                    [dot, tip - vec2(ARROW_LENGTH * s * 0.6, 0.0)],
                    Stroke::new(1.5, theme::TEXT),
                );
                arrow_head(painter, tip, vec2(1.0, 0.0), theme::TEXT, s);
            }
            for (i, node) in graph.nodes.iter().enumerate() {
                let rect = diagram.boxes[i].translate(offset);
                paint_node(
                    painter,
                    node,
                    &texts[i],
                    rect,
                    Some(i) == hovered,
                    Some(i) == selected_node,
                    s,
                );
            }
        });
    out
}

fn paint_grid(ui: &Ui, canvas: Rect) {
    let painter = ui.painter();
    painter.rect_filled(canvas, 0.0, theme::CANVAS);
    let visible = ui.clip_rect().intersect(canvas);
    let dot = Color32::from_rgb(36, 40, 49);
    let start = ((visible.min - canvas.min) / GRID).floor() * GRID + canvas.min.to_vec2();
    let mut y = start.y;
    while y <= visible.max.y {
        let mut x = start.x;
        while x <= visible.max.x {
            painter.rect_filled(
                Rect::from_center_size(pos2(x, y), Vec2::splat(1.5)),
                0.0,
                dot,
            );
            x += GRID;
        }
        y += GRID;
    }
}

fn arrow_head(painter: &egui::Painter, tip: Pos2, dir: Vec2, color: Color32, scale: f32) {
    let back = tip - dir * ARROW_LENGTH * scale;
    let side = dir.rot90() * (ARROW_LENGTH * scale * 0.42);
    painter.add(Shape::convex_polygon(
        vec![tip, back + side, back - side],
        color,
        Stroke::NONE,
    ));
}

fn paint_edge(
    painter: &egui::Painter,
    diagram: &Diagram,
    e: usize,
    offset: Vec2,
    color: Color32,
    dashed: bool,
    scale: f32,
) {
    let shape = &diagram.edges[e];
    if shape.segments.is_empty() {
        return;
    }
    let mut points: Vec<Pos2> = shape.polyline().into_iter().map(|p| p + offset).collect();
    let (tip, dir) = shape.tip();
    let tip = tip + offset;
    // Stop the line inside the arrow head so its end does not blunt the tip.
    if let Some(last) = points.last_mut() {
        *last = tip - dir * (ARROW_LENGTH * scale * 0.6);
    }
    let stroke = Stroke::new(1.5, color);
    if dashed {
        painter.extend(Shape::dashed_line(&points, stroke, 6.0, 4.0));
    } else {
        painter.add(Shape::line(points, stroke));
    }
    arrow_head(painter, tip, dir, color, scale);
}

fn paint_node(
    painter: &egui::Painter,
    node: &Node,
    texts: &NodeTexts,
    rect: Rect,
    hovered: bool,
    selected: bool,
    s: f32,
) {
    let radius = CornerRadius::same((8.0 * s) as u8);
    let pad = PAD_X * s;
    if node.is_missing() {
        let outline = [
            rect.left_top(),
            rect.right_top(),
            rect.right_bottom(),
            rect.left_bottom(),
            rect.left_top(),
        ];
        painter.rect_filled(rect, radius, theme::CANVAS);
        painter.extend(Shape::dashed_line(
            &outline,
            Stroke::new(1.5, theme::ERROR),
            6.0,
            4.0,
        ));
    } else {
        if node.child.is_some() {
            // A second card peeking out behind: this state holds a whole machine.
            let behind = rect.translate(vec2(4.0, 4.0) * s);
            painter.rect_filled(behind, radius, theme::BOX_FILL);
            painter.rect_stroke(
                behind,
                radius,
                Stroke::new(1.0, theme::BOX_STROKE),
                StrokeKind::Inside,
            );
        }
        let fill = if hovered {
            theme::BOX_FILL_HOVER
        } else {
            theme::BOX_FILL
        };
        painter.rect_filled(rect, radius, fill);
        let stroke = match node.severity {
            Some(s) => Stroke::new(2.0, theme::severity_color(s)),
            None if selected => Stroke::new(2.0, theme::ACCENT),
            None => Stroke::new(1.0, theme::BOX_STROKE),
        };
        painter.rect_stroke(rect, radius, stroke, StrokeKind::Inside);
        if selected && node.severity.is_some() {
            painter.rect_stroke(
                rect.expand(3.0),
                CornerRadius::same(11),
                Stroke::new(1.5, theme::ACCENT),
                StrokeKind::Inside,
            );
        }
        if node.is_final {
            // UML's final state is a ringed dot; a double border says the same on a box.
            let inner = CornerRadius::same((5.0 * s) as u8);
            painter.rect_stroke(
                rect.shrink(4.0 * s),
                inner,
                Stroke::new(1.0, stroke.color),
                StrokeKind::Inside,
            );
        }
    }

    let title_h = texts.title.size().y;
    let (title_y, sub_y) = match &texts.subtitle {
        Some(sub) => {
            let total = title_h + 3.0 * s + sub.size().y;
            let top = rect.center().y - total * 0.5;
            (top, top + title_h + 3.0 * s)
        }
        None => (rect.center().y - title_h * 0.5, 0.0),
    };
    painter.galley(
        pos2(rect.left() + pad, title_y),
        texts.title.clone(),
        theme::TEXT,
    );
    if let Some(sub) = &texts.subtitle {
        painter.galley(
            pos2(rect.left() + pad, sub_y),
            sub.clone(),
            theme::TEXT_WEAK,
        );
    }
    if let Some(hint) = &texts.hint {
        let pos = pos2(rect.right() - pad, title_y + title_h * 0.5);
        let at = Align2::RIGHT_CENTER.anchor_size(pos, hint.size());
        painter.galley(at.min, hint.clone(), theme::ACCENT);
    }
}
