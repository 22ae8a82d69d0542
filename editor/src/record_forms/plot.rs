//! A small 2D plot of named places in metres, for the locations form: a metre grid, this
//! file's locations as points that can be dragged (to a tenth of a metre), the project's other
//! locations in grey and its smart locations' reach as circles, for context. Drag the
//! background to pan, scroll to zoom, double-click empty space to add a location there.
//!
//! `+y` points up the screen (north), as on the live preview's map: both show the one world
//! plane of `*.locations.ron` and `*.nav.ron`.

use crate::theme;
use eframe::egui;
use egui::{Color32, Pos2, Rect, RichText, Sense, Stroke, Ui, Vec2, pos2, vec2};
use ensemble_compiler::diag::Severity;

/// A point of the plot.
pub struct Point<'a> {
    pub name: &'a str,
    pub at: [f64; 2],
    /// This file's: can be dragged and selected.
    pub editable: bool,
    pub selected: bool,
    pub severity: Option<Severity>,
    /// Its label under the point rather than above: context that may share a spot with a
    /// labelled point (a location on a navigation node).
    pub below: bool,
}

/// A circle: a smart location's reach.
pub struct Reach<'a> {
    pub name: &'a str,
    pub at: [f64; 2],
    pub radius: f64,
}

/// A straight line between two world positions (a navigation graph's edge), under the points.
pub struct Line {
    pub from: [f64; 2],
    pub to: [f64; 2],
    pub stroke: Stroke,
}

/// An image stretched over a world rectangle, under the lines (a large road graph).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backdrop {
    pub texture: egui::TextureId,
    /// Its south-west and north-east corners, metres.
    pub min: [f64; 2],
    pub max: [f64; 2],
}

/// What the user did in the plot.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// The editable point at this index (of the points given) was clicked.
    Select(usize),
    /// It was dragged here.
    Moved(usize, [f64; 2]),
    /// Double-click on empty space.
    AddAt([f64; 2]),
}

/// The plot's view: where the world is on screen.
pub struct Plot {
    /// Screen position of the world origin, relative to the canvas' corner.
    origin: Vec2,
    /// Points per metre.
    scale: f32,
    fit: bool,
    dragging: Option<usize>,
    canvas: Rect,
    backdrop: Option<Backdrop>,
    /// The selected point as last drawn (name, where): the view follows it only when it changes.
    selected: Option<(String, [f64; 2])>,
}

impl Default for Plot {
    fn default() -> Self {
        Plot {
            origin: Vec2::ZERO,
            scale: 10.0,
            fit: true,
            dragging: None,
            canvas: Rect::NOTHING,
            backdrop: None,
            selected: None,
        }
    }
}

/// Fewest points per metre: a road graph tens of kilometres wide still fits.
const MIN_SCALE: f32 = 1e-4;

/// The spacing of grid lines at `scale` points per metre: the smallest of 1, 2, 5 × a power
/// of ten metres (from 0.1 m) that puts them at least 30 points apart.
fn grid_step(scale: f32) -> f32 {
    let mut step = 0.1;
    for _ in 0..30 {
        for k in [1.0, 2.0, 5.0] {
            if k * step * scale >= 30.0 {
                return k * step;
            }
        }
        step *= 10.0;
    }
    step
}

/// A tenth of a metre: what a drag snaps to.
fn snap(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

impl Plot {
    pub fn fit(&mut self) {
        self.fit = true;
    }

    /// The image drawn under the lines from now on (and fitted with them), if any.
    pub fn set_backdrop(&mut self, backdrop: Option<Backdrop>) {
        self.backdrop = backdrop;
    }

    fn to_screen(&self, at: [f64; 2]) -> Pos2 {
        self.canvas.min + self.origin + vec2(at[0] as f32, -(at[1] as f32)) * self.scale
    }

    fn to_world(&self, p: Pos2) -> [f64; 2] {
        let v = (p - self.canvas.min - self.origin) / self.scale;
        [v.x as f64, -v.y as f64]
    }

    /// Where the point at `at` was drawn last frame (tests drag it).
    pub fn screen_of(&self, at: [f64; 2]) -> Option<Pos2> {
        self.canvas.is_positive().then(|| self.to_screen(at))
    }

    fn fit_to(&mut self, points: &[Point], reach: &[Reach], lines: &[Line]) {
        let mut bb = Rect::NOTHING;
        let ends = lines.iter().flat_map(|l| [l.from, l.to]);
        let corners = self.backdrop.iter().flat_map(|b| [b.min, b.max]);
        for at in points.iter().map(|p| p.at).chain(ends).chain(corners) {
            bb.extend_with(pos2(at[0] as f32, at[1] as f32));
        }
        for r in reach {
            let c = pos2(r.at[0] as f32, r.at[1] as f32);
            bb = bb.union(Rect::from_center_size(
                c,
                Vec2::splat(2.0 * r.radius as f32),
            ));
        }
        if !bb.is_finite() || bb.is_negative() {
            bb = Rect::from_center_size(Pos2::ZERO, vec2(20.0, 20.0));
        }
        let bb = bb.expand(2.0);
        let size = bb.size().max(vec2(4.0, 4.0));
        let margin = 40.0;
        self.scale = ((self.canvas.width() - 2.0 * margin) / size.x)
            .min((self.canvas.height() - 2.0 * margin) / size.y)
            .clamp(MIN_SCALE, 200.0);
        let c = bb.center();
        self.origin = self.canvas.size() * 0.5 - vec2(c.x, -c.y) * self.scale;
    }

    /// Draws the plot in the space left in `ui`; returns what the user did.
    pub fn show(
        &mut self,
        ui: &mut Ui,
        points: &[Point],
        reach: &[Reach],
        lines: &[Line],
    ) -> Vec<Event> {
        let mut events = Vec::new();
        let (canvas, response) = ui.allocate_exact_size(
            ui.available_size().max(vec2(200.0, 160.0)),
            Sense::click_and_drag(),
        );
        self.canvas = canvas;
        // What was drawn, for screen readers and tests.
        crate::marks::name_widget(
            ui,
            &response,
            format!(
                "plot: {} points, {} lines{}",
                points.len(),
                lines.len(),
                if self.backdrop.is_some() {
                    ", an image"
                } else {
                    ""
                }
            ),
        );
        // A place just selected, added or given coordinates past the edge is brought into view
        // (once: the user's own pan and zoom are left alone; a point being dragged stays under
        // the pointer).
        let selected = points.iter().find(|p| p.selected);
        let now = selected.map(|p| (p.name.to_string(), p.at));
        if now != self.selected {
            let hidden =
                selected.is_some_and(|p| !canvas.shrink(4.0).contains(self.to_screen(p.at)));
            if hidden && self.dragging.is_none() {
                self.fit = true;
            }
            self.selected = now;
        }
        if self.fit {
            self.fit_to(points, reach, lines);
            self.fit = false;
        }
        let painter = ui.painter_at(canvas);
        painter.rect_filled(canvas, 4.0, theme::CANVAS);
        self.grid(&painter);
        if let Some(b) = self.backdrop {
            let rect = Rect::from_two_pos(self.to_screen(b.min), self.to_screen(b.max));
            let uv = Rect::from_min_max(Pos2::ZERO, pos2(1.0, 1.0));
            painter.image(b.texture, rect, uv, Color32::WHITE);
        }

        for r in reach {
            let c = self.to_screen(r.at);
            painter.circle(
                c,
                r.radius as f32 * self.scale,
                theme::ACCENT.gamma_multiply(0.06),
                Stroke::new(1.0, theme::ACCENT.gamma_multiply(0.45)),
            );
            painter.text(
                c + vec2(0.0, -(r.radius as f32) * self.scale - 2.0),
                egui::Align2::CENTER_BOTTOM,
                r.name,
                egui::FontId::proportional(11.0),
                theme::ACCENT.gamma_multiply(0.8),
            );
        }

        for l in lines {
            painter.line_segment([self.to_screen(l.from), self.to_screen(l.to)], l.stroke);
        }

        // Points: the editable ones take the pointer; the rest are context.
        let pointer = ui.input(|i| i.pointer.interact_pos());
        let hit = |p: Pos2| pointer.is_some_and(|q| q.distance(p) <= 9.0);
        let mut hovered = None;
        for (i, p) in points.iter().enumerate() {
            let s = self.to_screen(p.at);
            if p.editable && hit(s) {
                hovered = Some(i);
            }
        }
        if response.drag_started() {
            self.dragging = hovered;
        }
        if let Some(i) = self.dragging {
            if response.dragged()
                && let Some(q) = pointer
            {
                let [x, y] = self.to_world(q);
                events.push(Event::Moved(i, [snap(x), snap(y)]));
            }
            if response.drag_stopped() {
                self.dragging = None;
            }
        } else if response.dragged() {
            self.origin += response.drag_delta();
        }
        if response.clicked()
            && let Some(i) = hovered
        {
            events.push(Event::Select(i));
        }
        if response.double_clicked()
            && hovered.is_none()
            && let Some(q) = pointer
        {
            let [x, y] = self.to_world(q);
            events.push(Event::AddAt([snap(x), snap(y)]));
        }
        if response.hovered() {
            let scroll = ui.input(|i| i.smooth_scroll_delta.y);
            if scroll != 0.0
                && let Some(q) = pointer
            {
                let before = self.to_world(q);
                self.scale = (self.scale * (scroll * 0.003).exp()).clamp(MIN_SCALE, 400.0);
                let after = self.to_screen(before);
                self.origin += q - after;
            }
        }

        for (i, p) in points.iter().enumerate() {
            let s = self.to_screen(p.at);
            let (fill, r) = match (p.editable, p.selected) {
                (_, true) => (theme::ACCENT, 6.5),
                (true, false) => (theme::TEXT, 5.0),
                (false, false) => (theme::TEXT_WEAK.gamma_multiply(0.6), 3.5),
            };
            let stroke = match p.severity {
                Some(sev) => Stroke::new(2.0, theme::severity_color(sev)),
                None if hovered == Some(i) => Stroke::new(2.0, Color32::WHITE),
                None => Stroke::new(1.0, theme::CANVAS),
            };
            painter.circle(s, r, fill, stroke);
            let (offset, align) = if p.below {
                (vec2(8.0, 6.0), egui::Align2::LEFT_TOP)
            } else {
                (vec2(8.0, -8.0), egui::Align2::LEFT_BOTTOM)
            };
            painter.text(
                s + offset,
                align,
                p.name,
                egui::FontId::proportional(if p.editable { 12.5 } else { 11.0 }),
                if p.editable {
                    theme::TEXT
                } else {
                    theme::TEXT_WEAK
                },
            );
        }
        if let Some(q) = pointer.filter(|q| canvas.contains(*q)) {
            let [x, y] = self.to_world(q);
            painter.text(
                canvas.right_bottom() + vec2(-8.0, -6.0),
                egui::Align2::RIGHT_BOTTOM,
                format!("x {x:.1}  y {y:.1} m"),
                egui::FontId::monospace(11.0),
                theme::TEXT_WEAK,
            );
        }
        if hovered.is_some() || self.dragging.is_some() {
            ui.ctx().set_cursor_icon(egui::CursorIcon::Grab);
        }
        let hint = if points.iter().any(|p| p.editable) {
            "drag a location to move it · drag the background to pan · scroll to zoom · double-click to add"
        } else {
            "drag to pan · scroll to zoom"
        };
        let _ = response.on_hover_text_at_pointer(RichText::new(hint).small());
        events
    }

    /// A metre grid with lines at least 30 points apart ([`grid_step`]), the axes brighter.
    fn grid(&self, painter: &egui::Painter) {
        let step = grid_step(self.scale);
        // The canvas' top-left corner is the world's smallest x and largest y.
        let (top_left, bottom_right) = (
            self.to_world(self.canvas.min),
            self.to_world(self.canvas.max),
        );
        let min = [top_left[0], bottom_right[1]];
        let max = [bottom_right[0], top_left[1]];
        let line = Stroke::new(1.0, theme::GRID);
        let axis = Stroke::new(1.0, theme::BORDER);
        let font = egui::FontId::proportional(9.5);
        let color = theme::TEXT_WEAK.gamma_multiply(0.7);
        // Line k is at k × step: counted, not summed (a sum of 0.1s drifts to 0.30000001,
        // which the labels showed).
        let step = step as f64;
        let lines = |from: f64, to: f64| (from / step).floor() as i64..=(to / step).ceil() as i64;
        for k in lines(min[0], max[0]) {
            let x = k as f64 * step;
            let sx = self.to_screen([x, 0.0]).x;
            if !(self.canvas.left()..=self.canvas.right()).contains(&sx) {
                continue;
            }
            painter.line_segment(
                [pos2(sx, self.canvas.top()), pos2(sx, self.canvas.bottom())],
                if k == 0 { axis } else { line },
            );
            painter.text(
                pos2(sx + 2.0, self.canvas.top() + 2.0),
                egui::Align2::LEFT_TOP,
                tick_label(k, step),
                font.clone(),
                color,
            );
        }
        for k in lines(min[1], max[1]) {
            let y = k as f64 * step;
            let sy = self.to_screen([0.0, y]).y;
            if !(self.canvas.top()..=self.canvas.bottom()).contains(&sy) {
                continue;
            }
            painter.line_segment(
                [pos2(self.canvas.left(), sy), pos2(self.canvas.right(), sy)],
                if k == 0 { axis } else { line },
            );
            painter.text(
                pos2(self.canvas.left() + 2.0, sy - 1.0),
                egui::Align2::LEFT_BOTTOM,
                tick_label(k, step),
                font.clone(),
                color,
            );
        }
    }
}

/// The label of grid line `k` of a grid `step` metres apart: `0.3`, `-12`, `2000`, never
/// `0.30000001` or `-0`.
fn tick_label(k: i64, step: f64) -> String {
    if k == 0 {
        return "0".into();
    }
    // Steps are 1, 2 or 5 × a power of ten from 0.1 m: one decimal below a metre.
    let decimals = if step < 0.99 { 1 } else { 0 };
    format!("{:.*}", decimals, k as f64 * step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_lines_are_one_two_or_five_times_a_power_of_ten_metres_apart() {
        assert_eq!(grid_step(10.0), 5.0);
        assert_eq!(grid_step(300.0), 0.1);
        assert_eq!(grid_step(0.02), 2000.0);
        assert_eq!(grid_step(1e-4), 500_000.0);
    }

    #[test]
    fn grid_labels_are_round_numbers() {
        assert_eq!(tick_label(3, grid_step(300.0) as f64), "0.3");
        assert_eq!(tick_label(-7, 0.2), "-1.4");
        assert_eq!(tick_label(0, 0.1), "0");
        assert_eq!(tick_label(-4, 5.0), "-20");
        assert_eq!(tick_label(3, 500_000.0), "1500000");
    }

    #[test]
    fn drags_snap_to_a_tenth_of_a_metre() {
        assert_eq!(snap(1.234), 1.2);
        assert_eq!(snap(-0.06), -0.1);
    }

    #[test]
    fn north_is_up_and_screen_and_world_agree() {
        let plot = Plot {
            canvas: Rect::from_min_size(pos2(10.0, 20.0), vec2(300.0, 200.0)),
            origin: vec2(150.0, 100.0),
            ..Plot::default()
        };
        let south = plot.to_screen([0.0, -5.0]);
        let north = plot.to_screen([0.0, 5.0]);
        assert!(
            north.y < south.y,
            "north {north:?} must be above south {south:?}"
        );
        let back = plot.to_world(plot.to_screen([3.5, -2.25]));
        assert!((back[0] - 3.5).abs() < 1e-4 && (back[1] + 2.25).abs() < 1e-4);
    }
}
