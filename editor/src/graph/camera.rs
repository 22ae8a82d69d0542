//! Where a graph editor looks: fitting the graph (or the selection) into view at a size that
//! reads, centring on a node, zooming with the wheel, and the zoom controls of its toolbar.
//! Snarl owns the transform; the camera asks for a new one when snarl reports it
//! (`SnarlViewer::current_transform`).

use eframe::egui;
use egui::emath::TSTransform;
use egui::{Pos2, Rect, RichText, Ui, Vec2};
use egui_snarl::{NodeId, Snarl};
use std::collections::{BTreeSet, HashMap};

/// The smallest zoom at which a node's text still reads (its 12–14 point text at 9–10
/// pixels). A fit to the selection never goes below it; Fit shows the whole graph, smaller
/// when it must (down to [`MIN_SCALE`]).
pub const READABLE: f32 = 0.75;
pub const MIN_SCALE: f32 = 0.25;
pub const MAX_SCALE: f32 = 1.6;

/// Frames a fit is repeated for while node sizes settle (snarl measures a new node over two
/// frames).
pub const FIT_PASSES: u8 = 2;

/// Points of wheel travel that double (or halve) the zoom, as egui zooms with Ctrl+wheel.
const WHEEL_POINTS_PER_E: f32 = 200.0;

#[derive(Clone, Debug, PartialEq)]
enum LookAt {
    /// The whole graph.
    Fit,
    /// The whole graph if it reads so, else from where it starts (a graph just opened).
    Readable,
    /// These nodes, by name.
    Selection(BTreeSet<String>),
    /// Centre on this node.
    Node(String),
    /// Centre on this graph point (the minimap).
    Point(Pos2),
}

/// A node as the camera sees it: its name (if it has one) and its rectangle in graph
/// coordinates, as drawn or estimated.
pub type NodeBox = (Option<String>, Rect);

pub struct Camera {
    look_at: Option<LookAt>,
    fit_passes: u8,
    /// Graph to screen, as last drawn.
    pub to_screen: TSTransform,
    /// The canvas on screen this frame.
    pub viewport: Rect,
    /// The wheel turned over the canvas this frame: zoom by this factor about this point.
    wheel: Option<(f32, Pos2)>,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            look_at: Some(LookAt::Readable),
            fit_passes: FIT_PASSES,
            to_screen: TSTransform::default(),
            viewport: Rect::NOTHING,
            wheel: None,
        }
    }
}

impl Camera {
    /// Shows the whole graph (at a size that reads).
    pub fn fit(&mut self) {
        self.look_at = Some(LookAt::Fit);
        self.fit_passes = FIT_PASSES;
    }

    /// Shows the whole graph if it reads so, else from where it starts at a size that reads
    /// (a graph just opened).
    pub fn fit_readable(&mut self) {
        self.look_at = Some(LookAt::Readable);
        self.fit_passes = FIT_PASSES;
    }

    /// Shows the nodes `names` (at a size that reads).
    pub fn fit_selection(&mut self, names: &BTreeSet<String>) {
        if names.is_empty() {
            return;
        }
        self.look_at = Some(LookAt::Selection(names.clone()));
        self.fit_passes = FIT_PASSES;
    }

    /// Centres the view on the node `name`.
    pub fn reveal(&mut self, name: &str) {
        self.look_at = Some(LookAt::Node(name.to_string()));
    }

    /// Centres the view on a graph point, keeping the zoom.
    pub fn centre_at(&mut self, p: Pos2) {
        self.look_at = Some(LookAt::Point(p));
    }

    /// The view is about to move (every node must be drawn this frame).
    pub fn moving(&self) -> bool {
        self.look_at.is_some()
    }

    /// A fit is still being repeated while sizes settle.
    pub fn fitting(&self) -> bool {
        self.fit_passes > 0
    }

    /// The middle of the view, in graph coordinates (the origin before the first frame).
    pub fn centre(&self) -> Pos2 {
        if self.viewport.is_positive() {
            self.to_screen.inverse() * self.viewport.center()
        } else {
            Pos2::ZERO
        }
    }

    pub fn scale(&self) -> f32 {
        self.to_screen.scaling
    }

    /// Before the snarl is drawn: takes the canvas rectangle, and the wheel over it as zoom
    /// (snarl zooms with Ctrl+wheel only and pans with the wheel; designers zoom with it).
    pub fn begin(&mut self, ui: &mut Ui) -> Rect {
        let viewport = ui.available_rect_before_wrap();
        self.viewport = viewport;
        let (pointer, scroll, zooming) = ui.input(|i| {
            (
                i.pointer.latest_pos(),
                i.smooth_scroll_delta,
                i.modifiers.command || i.modifiers.ctrl,
            )
        });
        if let Some(at) = pointer
            && viewport.contains(at)
            // Not over a menu or window above the canvas.
            && ui
                .ctx()
                .layer_id_at(at)
                .is_none_or(|l| l.order == ui.layer_id().order)
            && !zooming
            && scroll.y != 0.0
        {
            ui.input_mut(|i| i.smooth_scroll_delta.y = 0.0);
            self.wheel = Some(((scroll.y / WHEEL_POINTS_PER_E).exp(), at));
        }
        if self.moving() || self.wheel.is_some() {
            ui.ctx().request_repaint();
        }
        viewport
    }

    /// Sets the view snarl draws with: what was asked for, then the wheel's zoom. `nodes` are
    /// every node (all are drawn while the view moves), `measured` whether each has been
    /// drawn once, `start` the node the graph starts at.
    pub fn apply(
        &mut self,
        to_global: &mut TSTransform,
        nodes: &[NodeBox],
        measured: bool,
        start: Option<Rect>,
    ) {
        match self.look_at.take() {
            Some(look @ (LookAt::Fit | LookAt::Readable | LookAt::Selection(_))) => {
                // Nodes are measured once drawn, and snarl settles a new node's size over two
                // frames; until then, fit what is known and fit again next frame.
                if !measured {
                    self.fit_passes = FIT_PASSES;
                }
                let bb = nodes
                    .iter()
                    .filter(|(name, _)| match &look {
                        LookAt::Selection(names) => {
                            name.as_ref().is_some_and(|n| names.contains(n))
                        }
                        _ => true,
                    })
                    .fold(Rect::NOTHING, |bb, (_, r)| bb.union(*r));
                if bb.is_positive() {
                    *to_global = match look {
                        LookAt::Fit => fit_whole(self.viewport, bb, start),
                        _ => fit(self.viewport, bb, start),
                    };
                }
                if self.fit_passes > 0 {
                    self.fit_passes -= 1;
                    self.look_at = Some(look);
                }
            }
            Some(LookAt::Node(name)) => {
                if let Some((_, r)) = nodes.iter().find(|(n, _)| n.as_deref() == Some(&name)) {
                    *to_global = centre_on(self.viewport, r.center(), to_global.scaling);
                }
            }
            Some(LookAt::Point(p)) => {
                *to_global = centre_on(self.viewport, p, to_global.scaling);
            }
            None => {}
        }
        if let Some((factor, at)) = self.wheel.take() {
            let s = to_global.scaling;
            let factor = factor.clamp(MIN_SCALE / s, MAX_SCALE / s);
            *to_global = TSTransform::from_translation(at.to_vec2())
                * TSTransform::from_scaling(factor)
                * TSTransform::from_translation(-at.to_vec2())
                * *to_global;
        }
        self.to_screen = *to_global;
    }

    /// [`Camera::apply`] for a snarl: each node's box as last drawn, else at its position
    /// with the size `describe` estimates (which also names it); the graph starts at the node
    /// named `start`.
    pub fn follow<N>(
        &mut self,
        to_global: &mut TSTransform,
        snarl: &Snarl<N>,
        rects: &HashMap<NodeId, Rect>,
        describe: impl Fn(&N) -> (Option<String>, Vec2),
        start: Option<&str>,
    ) {
        let nodes: Vec<NodeBox> = snarl
            .nodes_ids_data()
            .map(|(id, node)| {
                let (name, size) = describe(&node.value);
                let rect = rects
                    .get(&id)
                    .copied()
                    .unwrap_or_else(|| Rect::from_min_size(node.pos, size));
                (name, rect)
            })
            .collect();
        let measured = rects.len() >= nodes.len();
        let start = nodes
            .iter()
            .find(|(n, _)| n.is_some() && n.as_deref() == start)
            .map(|(_, r)| *r);
        self.apply(to_global, &nodes, measured, start);
    }

    /// The toolbar's zoom controls: Fit, Zoom to selection, and the zoom in percent.
    pub fn controls(&mut self, ui: &mut Ui, selection: &BTreeSet<String>, what: &str) {
        if ui
            .button("Fit")
            .on_hover_text(format!(
                "Show the whole {what}, smaller when it must (or double-click the canvas)"
            ))
            .clicked()
        {
            self.fit();
        }
        if ui
            .add_enabled(
                !selection.is_empty(),
                egui::Button::new("Zoom to selection"),
            )
            .on_hover_text("Show the selected nodes")
            .on_disabled_hover_text("Select nodes first")
            .clicked()
        {
            self.fit_selection(selection);
        }
        let percent = (self.scale() * 100.0).round();
        ui.label(RichText::new(format!("{percent}%")).monospace())
            .on_hover_text("Zoom: the wheel zooms about the pointer; drag the canvas to pan");
    }
}

/// The view that shows `bb` (graph coordinates) in `viewport`, readable first: whole when it
/// fits at [`READABLE`] or more (never magnified); else at [`READABLE`], from its left edge,
/// with `start` (the node the graph starts at) in view.
pub fn fit(viewport: Rect, bb: Rect, start: Option<Rect>) -> TSTransform {
    let bb = bb.expand(60.0);
    let fits = (viewport.width() / bb.width()).min(viewport.height() / bb.height());
    if fits >= READABLE {
        return centre_on(viewport, bb.center(), fits.min(1.0));
    }
    let scale = READABLE;
    let x = viewport.left() - bb.left() * scale;
    let y = if bb.height() * scale <= viewport.height() {
        viewport.center().y - bb.center().y * scale
    } else {
        let focus = start.map_or(bb.top() + viewport.height() / scale / 2.0, |r| r.center().y);
        viewport.center().y - focus * scale
    };
    TSTransform {
        scaling: scale,
        translation: egui::vec2(x, y),
    }
}

/// The view that shows all of `bb` in `viewport`: at its own size when it fits, else as
/// small as it takes — down to [`MIN_SCALE`], below which it is shown from its start as
/// [`fit`] does.
pub fn fit_whole(viewport: Rect, bb: Rect, start: Option<Rect>) -> TSTransform {
    let fits = {
        let bb = bb.expand(60.0);
        (viewport.width() / bb.width()).min(viewport.height() / bb.height())
    };
    if fits >= MIN_SCALE {
        return centre_on(viewport, bb.expand(60.0).center(), fits.min(1.0));
    }
    let t = fit(viewport, bb, start);
    let at = viewport.left_top();
    // `fit` at READABLE from the start, zoomed out about the view's corner.
    TSTransform::from_translation(at.to_vec2())
        * TSTransform::from_scaling(MIN_SCALE / t.scaling)
        * TSTransform::from_translation(-at.to_vec2())
        * t
}

/// The view at `scale` that puts graph point `p` in the middle of `viewport`.
pub fn centre_on(viewport: Rect, p: Pos2, scale: f32) -> TSTransform {
    TSTransform {
        scaling: scale,
        translation: viewport.center().to_vec2() - p.to_vec2() * scale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::{pos2, vec2};

    #[test]
    fn fit_is_readable_first() {
        let view = Rect::from_min_size(pos2(0.0, 0.0), vec2(1000.0, 800.0));
        // A small graph is shown at its own size, centred.
        let t = fit(
            view,
            Rect::from_min_size(pos2(0.0, 0.0), vec2(200.0, 100.0)),
            None,
        );
        assert_eq!(t.scaling, 1.0);
        assert_eq!(t * pos2(100.0, 50.0), view.center());
        // A bigger one shrinks to fit, not below what reads.
        let t = fit(
            view,
            Rect::from_min_size(pos2(0.0, 0.0), vec2(1150.0, 100.0)),
            None,
        );
        assert!(t.scaling < 1.0 && t.scaling >= READABLE);
        // Beyond that it reads from its start, which is in view; the rest scrolls.
        let bb = Rect::from_min_size(pos2(0.0, 0.0), vec2(9000.0, 4000.0));
        let start = Rect::from_min_size(pos2(0.0, 3000.0), vec2(200.0, 100.0));
        let t = fit(view, bb, Some(start));
        assert_eq!(t.scaling, READABLE);
        assert!(view.contains_rect(t * start), "{:?}", t * start);
    }

    #[test]
    fn fit_shows_the_whole_graph_smaller_when_it_must() {
        let view = Rect::from_min_size(pos2(0.0, 0.0), vec2(1000.0, 800.0));
        let small = Rect::from_min_size(pos2(0.0, 0.0), vec2(200.0, 100.0));
        assert_eq!(fit_whole(view, small, None).scaling, 1.0);
        // Wider than it reads: all of it, below READABLE.
        let wide = Rect::from_min_size(pos2(0.0, 0.0), vec2(2500.0, 300.0));
        let t = fit_whole(view, wide, None);
        assert!(t.scaling < READABLE && t.scaling >= MIN_SCALE);
        assert!(view.contains_rect(t * wide), "{:?}", t * wide);
        // Too big even at the smallest zoom: from its start, at the smallest zoom.
        let huge = Rect::from_min_size(pos2(0.0, 0.0), vec2(20000.0, 300.0));
        let start = Rect::from_min_size(pos2(0.0, 100.0), vec2(200.0, 100.0));
        let t = fit_whole(view, huge, Some(start));
        assert_eq!(t.scaling, MIN_SCALE);
        assert!(view.contains_rect(t * start), "{:?}", t * start);
    }

    #[test]
    fn the_wheel_zooms_about_the_pointer() {
        let mut camera = Camera {
            look_at: None,
            viewport: Rect::from_min_size(pos2(0.0, 0.0), vec2(1000.0, 800.0)),
            wheel: Some((2.0, pos2(300.0, 200.0))),
            ..Camera::default()
        };
        let mut t = TSTransform::from_scaling(0.5);
        let under = t.inverse() * pos2(300.0, 200.0);
        camera.apply(&mut t, &[], true, None);
        assert_eq!(t.scaling, 1.0);
        assert!((t * under - pos2(300.0, 200.0)).length() < 0.01);
        assert_eq!(camera.scale(), 1.0);
    }

    #[test]
    fn zoom_to_selection_frames_only_the_selected_nodes() {
        let mut camera = Camera {
            viewport: Rect::from_min_size(pos2(0.0, 0.0), vec2(1000.0, 800.0)),
            ..Camera::default()
        };
        let a = Rect::from_min_size(pos2(0.0, 0.0), vec2(100.0, 50.0));
        let b = Rect::from_min_size(pos2(5000.0, 0.0), vec2(100.0, 50.0));
        let nodes = [(Some("A".to_string()), a), (Some("B".to_string()), b)];
        camera.fit_selection(&["B".to_string()].into());
        let mut t = TSTransform::default();
        camera.apply(&mut t, &nodes, true, None);
        assert_eq!(t * b.center(), camera.viewport.center());
    }
}
