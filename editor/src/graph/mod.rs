//! What the graph editors share (the state machine editor in [`crate::machine`], the HMM space
//! editor in [`crate::space`]): egui-snarl's look, fitting and centring the view, reading node
//! moves back as positions by name, and selection by click, Ctrl/Shift-click and box.
//!
//! Both editors treat the snarl as a *view*, rebuilt from the asset when it changes, so nothing
//! here owns a document: these are the small pieces of a gesture that do not depend on what
//! the nodes stand for.

use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::emath::TSTransform;
use egui::{Color32, CornerRadius, Margin, Pos2, Rect, Stroke, Ui, Vec2, vec2};
use egui_snarl::ui::{
    BackgroundPattern, Grid, NodeLayout, PinPlacement, SelectionStyle, SnarlStyle,
};
use egui_snarl::{NodeId, Snarl};
use std::collections::{BTreeSet, HashMap};

/// The graph editors' look: framed nodes on a dark grid, pins on the node edges, curved wires.
pub fn style() -> SnarlStyle {
    SnarlStyle {
        node_layout: Some(NodeLayout::sandwich().with_min_pin_row_height(18.0)),
        pin_placement: Some(PinPlacement::Edge),
        pin_size: Some(9.0),
        pin_stroke: Some(Stroke::new(1.0, theme::CANVAS)),
        node_frame: Some(egui::Frame {
            inner_margin: Margin::symmetric(10, 6),
            outer_margin: Margin::ZERO,
            corner_radius: CornerRadius::same(7),
            fill: theme::BOX_FILL,
            stroke: Stroke::new(1.0, theme::BOX_STROKE),
            shadow: egui::Shadow::NONE,
        }),
        header_frame: Some(egui::Frame {
            inner_margin: Margin::symmetric(10, 6),
            outer_margin: Margin::ZERO,
            corner_radius: CornerRadius::same(7),
            fill: Color32::TRANSPARENT,
            stroke: Stroke::NONE,
            shadow: egui::Shadow::NONE,
        }),
        bg_frame: Some(egui::Frame {
            inner_margin: Margin::ZERO,
            outer_margin: Margin::ZERO,
            corner_radius: CornerRadius::ZERO,
            fill: theme::CANVAS,
            stroke: Stroke::NONE,
            shadow: egui::Shadow::NONE,
        }),
        bg_pattern: Some(BackgroundPattern::Grid(Grid {
            spacing: vec2(40.0, 40.0),
            angle: 0.0,
        })),
        bg_pattern_stroke: Some(Stroke::new(1.0, theme::GRID)),
        wire_width: Some(2.0),
        wire_style: Some(egui_snarl::ui::WireStyle::Bezier5),
        select_style: Some(SelectionStyle {
            margin: Margin::same(3),
            rounding: CornerRadius::same(9),
            fill: Color32::TRANSPARENT,
            stroke: Stroke::NONE,
        }),
        select_fill: Some(Color32::from_rgba_unmultiplied(108, 182, 217, 24)),
        select_stoke: Some(Stroke::new(1.0, theme::ACCENT)),
        select_rect_contained: Some(false),
        min_scale: Some(0.25),
        max_scale: Some(1.6),
        centering: Some(true),
        collapsible: Some(false),
        header_drag_space: Some(Vec2::ZERO),
        crisp_magnified_text: Some(false),
        ..SnarlStyle::new()
    }
}

/// The view that shows `bb` (graph coordinates) whole in `viewport`, readable first: never
/// magnified, and `None` when it would have to shrink below half size (too big to read whole;
/// the caller starts somewhere sensible instead).
pub fn fit(viewport: Rect, bb: Rect) -> Option<TSTransform> {
    if !bb.is_positive() || !viewport.is_positive() {
        return None;
    }
    let bb = bb.expand(60.0);
    let fits = (viewport.width() / bb.width()).min(viewport.height() / bb.height());
    (fits >= 0.5).then(|| {
        let scale = fits.min(1.0);
        TSTransform {
            scaling: scale,
            translation: viewport.center().to_vec2() - bb.center().to_vec2() * scale,
        }
    })
}

/// The view at `scale` that puts graph point `p` in the middle of `viewport`.
pub fn centre_on(viewport: Rect, p: Pos2, scale: f32) -> TSTransform {
    TSTransform {
        scaling: scale,
        translation: viewport.center().to_vec2() - p.to_vec2() * scale,
    }
}

/// Frames a fit is repeated for while node sizes settle (snarl measures a new node over two
/// frames).
pub const FIT_PASSES: u8 = 2;

/// Positions of the nodes the user dragged this frame: every node whose position differs from
/// where it was put (`expected`), by the name `name_of` gives it (nodes without one, such as
/// markers, never move on their own).
pub fn moved<N>(
    snarl: &Snarl<N>,
    expected: &HashMap<NodeId, Pos2>,
    name_of: impl Fn(&N) -> Option<String>,
) -> Vec<(String, [f32; 2])> {
    snarl
        .nodes_ids_data()
        .filter_map(|(id, node)| {
            let want = expected.get(&id)?;
            let name = name_of(&node.value)?;
            ((node.pos - *want).length() > 0.01).then_some((name, [node.pos.x, node.pos.y]))
        })
        .collect()
}

/// The first move of a graph drawn by the auto-layout keeps every node where it was seen, not
/// only the dragged ones: `all` lists each node and where it is drawn.
pub fn complete_move(
    moved: Vec<(String, [f32; 2])>,
    layout: &Layout,
    all: impl Iterator<Item = (String, [f32; 2])>,
) -> Vec<(String, [f32; 2])> {
    let all: Vec<(String, [f32; 2])> = all.collect();
    if all.iter().all(|(n, _)| layout.get(n).is_some()) {
        return moved;
    }
    all.into_iter()
        .map(|(n, p)| {
            let p = moved.iter().find(|(m, _)| *m == n).map_or(p, |(_, q)| *q);
            (n, p)
        })
        .collect()
}

/// Selection by the gestures both editors share: a box selection (Shift+drag) is snarl's and
/// is taken when it changes; a click on a node selects it (Ctrl or Shift toggles it); a click
/// on empty canvas clears the selection.
pub struct Select<'a> {
    pub id: egui::Id,
    /// Snarl's selection last frame (to notice when a box selection changes it).
    pub last: &'a mut Vec<NodeId>,
    /// The node clicked this frame, by name.
    pub clicked: Option<String>,
    /// The canvas.
    pub response: &'a egui::Response,
    /// The nodes' rectangles on screen.
    pub node_rects: Vec<Rect>,
}

impl Select<'_> {
    pub fn apply<N>(
        self,
        ui: &Ui,
        snarl: &Snarl<N>,
        selection: &mut BTreeSet<String>,
        name_of: impl Fn(&N) -> Option<String>,
    ) {
        let boxed = egui_snarl::ui::get_selected_nodes(self.id, ui.ctx());
        if boxed != *self.last {
            *selection = boxed
                .iter()
                .filter_map(|id| snarl.get_node(*id).and_then(&name_of))
                .collect();
            *self.last = boxed;
        }
        let modifiers = ui.input(|i| i.modifiers);
        if let Some(name) = self.clicked {
            if modifiers.command || modifiers.shift {
                if !selection.remove(&name) {
                    selection.insert(name);
                }
            } else {
                *selection = [name].into();
            }
        } else if ui.input(|i| i.pointer.primary_clicked())
            && let Some(p) = ui.input(|i| i.pointer.interact_pos())
            && self.response.rect.contains(p)
            && !self.node_rects.iter().any(|r| r.contains(p))
            && !ui.ctx().any_popup_open()
        {
            selection.clear();
        }
    }
}

/// A label that reports clicks (node selection) without taking the drag (node moves).
pub fn clickable(ui: &mut Ui, text: egui::RichText) -> egui::Response {
    ui.add(
        egui::Label::new(text)
            .sense(egui::Sense::click())
            .selectable(false),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::pos2;

    #[test]
    fn fit_is_readable_first() {
        let view = Rect::from_min_size(pos2(0.0, 0.0), vec2(1000.0, 800.0));
        // A small graph is shown at its own size, centred.
        let t = fit(
            view,
            Rect::from_min_size(pos2(0.0, 0.0), vec2(200.0, 100.0)),
        )
        .unwrap();
        assert_eq!(t.scaling, 1.0);
        assert_eq!(t * pos2(100.0, 50.0), view.center());
        // A bigger one shrinks to fit, down to half size; beyond that, no fit.
        let t = fit(
            view,
            Rect::from_min_size(pos2(0.0, 0.0), vec2(1500.0, 100.0)),
        )
        .unwrap();
        assert!(t.scaling < 1.0 && t.scaling >= 0.5);
        assert!(
            fit(
                view,
                Rect::from_min_size(pos2(0.0, 0.0), vec2(9000.0, 100.0))
            )
            .is_none()
        );
        assert!(fit(view, Rect::NOTHING).is_none());
    }

    #[test]
    fn the_first_move_of_an_auto_laid_out_graph_keeps_every_node() {
        let mut layout = Layout::default();
        let all = || {
            vec![
                ("A".to_string(), [0.0, 0.0]),
                ("B".to_string(), [100.0, 0.0]),
            ]
            .into_iter()
        };
        let moved = vec![("A".to_string(), [5.0, 5.0])];
        let complete = complete_move(moved.clone(), &layout, all());
        assert_eq!(
            complete,
            vec![
                ("A".to_string(), [5.0, 5.0]),
                ("B".to_string(), [100.0, 0.0])
            ]
        );
        layout.set("A", [0.0, 0.0]);
        layout.set("B", [100.0, 0.0]);
        assert_eq!(complete_move(moved.clone(), &layout, all()), moved);
    }
}
