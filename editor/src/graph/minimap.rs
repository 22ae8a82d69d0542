//! The minimap of a graph too big for its view: a small overview in the canvas's bottom-right
//! corner with every node and the rectangle the view shows; a click or drag there moves the
//! camera (the one [`Camera`]) to that point, keeping the zoom.
//!
//! It lives in its own layer above the canvas, so its clicks neither select nor pan. It is faint
//! until the pointer is over it, so the nodes under it show through, and a view too small for
//! it to leave the graph room (the canvas under an open bottom panel) gets none.

use super::Camera;
use crate::theme;
use eframe::egui;
use egui::{Color32, CornerRadius, Pos2, Rect, Sense, Stroke, StrokeKind, Ui, Vec2, vec2};

/// The largest the overview gets, in points.
const MAX_SIZE: Vec2 = vec2(220.0, 150.0);
/// Its distance from the canvas's corner.
const INSET: f32 = 12.0;
/// Room around the graph in the overview, in graph points.
const MARGIN: f32 = 60.0;
/// The smallest view that gets one: a canvas shortened by the bottom panel keeps its few rows
/// of nodes uncovered.
const MIN_VIEWPORT: Vec2 = vec2(480.0, 440.0);
/// How strongly it is drawn while the pointer is elsewhere, so the nodes under it show through.
const RESTING_OPACITY: f32 = 0.4;

/// What the minimap shows and where: `world` (graph coordinates) drawn into `map` (screen).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overview {
    pub world: Rect,
    pub map: Rect,
}

impl Overview {
    /// The overview of `nodes` (graph coordinates) for a view showing `view` (graph
    /// coordinates) in `viewport` (screen); `None` when the whole graph is in view or the
    /// viewport is smaller than [`MIN_VIEWPORT`].
    pub fn of(nodes: &[Rect], view: Rect, viewport: Rect) -> Option<Overview> {
        let graph = nodes.iter().fold(Rect::NOTHING, |bb, r| bb.union(*r));
        if !graph.is_positive()
            || view.contains_rect(graph)
            || viewport.width() < MIN_VIEWPORT.x
            || viewport.height() < MIN_VIEWPORT.y
        {
            return None;
        }
        let world = graph.union(view).expand(MARGIN);
        let max = MAX_SIZE.min(viewport.size() * 0.3);
        let scale = (max.x / world.width()).min(max.y / world.height());
        let size = world.size() * scale;
        let map = Rect::from_min_size(viewport.max - size - Vec2::splat(INSET), size);
        Some(Overview { world, map })
    }

    fn scale(&self) -> f32 {
        self.map.width() / self.world.width()
    }

    /// A graph rectangle as drawn in the overview.
    pub fn to_map(&self, r: Rect) -> Rect {
        let s = self.scale();
        Rect::from_min_max(
            self.map.min + (r.min - self.world.min) * s,
            self.map.min + (r.max - self.world.min) * s,
        )
    }

    /// The graph point under a point of the overview.
    pub fn to_graph(&self, p: Pos2) -> Pos2 {
        self.world.min + (p - self.map.min) / self.scale()
    }
}

/// Draws the minimap over the canvas (when the graph exceeds the view) and moves `camera`
/// when it is clicked or dragged. `nodes` are every node's rectangle in graph coordinates
/// (those out of view too).
pub fn show(ui: &Ui, camera: &mut Camera, nodes: &[Rect]) {
    let view = camera.to_screen.inverse() * camera.viewport;
    let Some(overview) = Overview::of(nodes, view, camera.viewport) else {
        return;
    };
    let id = ui.id().with("minimap");
    egui::Area::new(id)
        .order(egui::Order::Middle)
        .fixed_pos(overview.map.min)
        .constrain(false)
        .show(ui.ctx(), |ui| {
            let (rect, response) = ui.allocate_exact_size(overview.map.size(), Sense::drag());
            let response = response
                .on_hover_text("Overview of the whole graph: click or drag to move the view there");
            response.widget_info(|| {
                egui::WidgetInfo::labeled(egui::WidgetType::Other, true, "Minimap")
            });
            // The area may be placed a little off where asked; map through where it is.
            let overview = Overview {
                map: rect,
                ..overview
            };
            let mut painter = ui.painter().clone();
            if !(response.hovered() || response.dragged()) {
                painter.multiply_opacity(RESTING_OPACITY);
            }
            painter.rect(
                rect,
                CornerRadius::same(4),
                theme::CANVAS.gamma_multiply(0.92),
                Stroke::new(1.0, theme::BOX_STROKE),
                StrokeKind::Inside,
            );
            for r in nodes {
                painter.rect_filled(overview.to_map(*r), CornerRadius::same(1), theme::EDGE);
            }
            painter.rect_stroke(
                overview.to_map(view).intersect(rect),
                CornerRadius::same(2),
                Stroke::new(1.5, theme::ACCENT),
                StrokeKind::Inside,
            );
            painter.rect_filled(
                overview.to_map(view).intersect(rect),
                CornerRadius::same(2),
                Color32::from_rgba_unmultiplied(108, 182, 217, 20),
            );
            if (response.is_pointer_button_down_on() || response.dragged())
                && let Some(p) = response.interact_pointer_pos()
            {
                camera.centre_at(overview.to_graph(p));
                ui.ctx().request_repaint();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::pos2;

    #[test]
    fn shown_only_when_the_graph_exceeds_the_view_and_maps_both_ways() {
        let viewport = Rect::from_min_size(pos2(0.0, 0.0), vec2(1000.0, 800.0));
        let nodes = [
            Rect::from_min_size(pos2(0.0, 0.0), vec2(200.0, 80.0)),
            Rect::from_min_size(pos2(3000.0, 400.0), vec2(200.0, 80.0)),
        ];
        let all = Rect::from_min_size(pos2(-100.0, -100.0), vec2(4000.0, 1000.0));
        assert_eq!(Overview::of(&nodes, all, viewport), None);
        let part = Rect::from_min_size(pos2(-100.0, -100.0), vec2(1000.0, 800.0));
        let o = Overview::of(&nodes, part, viewport).expect("a minimap");
        assert!(viewport.contains_rect(o.map), "{o:?}");
        assert!(o.map.width() <= MAX_SIZE.x + 0.01 && o.map.height() <= MAX_SIZE.y + 0.01);
        let far = nodes[1].center();
        let on_map = o.to_map(nodes[1]).center();
        assert!(o.map.contains(on_map));
        assert!((o.to_graph(on_map) - far).length() < 0.5);
        // A canvas shortened by the bottom panel (about 400 points of a 900-point window) gets
        // none.
        let short = Rect::from_min_size(pos2(0.0, 0.0), vec2(1000.0, 400.0));
        let part = Rect::from_min_size(pos2(-100.0, -100.0), vec2(1000.0, 400.0));
        assert_eq!(Overview::of(&nodes, part, short), None);
    }
}
