//! The one graph editor every graph uses (the state machine editor in [`crate::machine`], the
//! HMM space editor in [`crate::space`]): the snarl viewer and what a graph supplies to it
//! ([`viewer`]), egui-snarl's look, the camera ([`camera`]), edges that read ([`edges`]),
//! reading node moves back as positions by name, and selection by click, Ctrl/Shift-click and
//! box.
//!
//! Both editors treat the snarl as a *view*, rebuilt from the asset when it changes, so nothing
//! here owns a document: these are the small pieces of a gesture that do not depend on what
//! the nodes stand for.

pub mod camera;
pub mod comments;
pub mod edges;
pub mod layered;
pub mod minimap;
pub mod viewer;

pub use camera::{Camera, FIT_PASSES};

use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::{Color32, CornerRadius, Margin, Pos2, Rect, Stroke, Ui, Vec2, pos2, vec2};
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
        pin_size: Some(edges::PIN_SIZE),
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
        wire_width: Some(edges::WIDTH),
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
        min_scale: Some(camera::MIN_SCALE),
        max_scale: Some(camera::MAX_SCALE),
        centering: Some(true),
        collapsible: Some(false),
        header_drag_space: Some(Vec2::ZERO),
        crisp_magnified_text: Some(false),
        ..SnarlStyle::new()
    }
}

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
/// is taken when it changes; a click anywhere on a node selects it (Ctrl or Shift toggles
/// it); a click on empty canvas clears the selection.
pub struct Select<'a> {
    pub id: egui::Id,
    /// Snarl's selection last frame (to notice when a box selection changes it).
    pub last: &'a mut Vec<NodeId>,
    /// The node clicked this frame, by name.
    pub clicked: Option<String>,
    /// The canvas on screen (snarl's response is in graph coordinates).
    pub canvas: Rect,
    /// The nodes' rectangles on screen.
    pub node_rects: Vec<(NodeId, Rect)>,
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
        let click = ui
            .input(|i| {
                i.pointer
                    .primary_clicked()
                    .then(|| i.pointer.interact_pos())
            })
            .flatten()
            .filter(|p| {
                // Not a click on a menu or dialog above the canvas.
                self.canvas.contains(*p)
                    && !ui.ctx().any_popup_open()
                    && ui
                        .ctx()
                        .layer_id_at(*p)
                        .is_none_or(|l| l.order == ui.layer_id().order)
            });
        // The node under the click: its text reports it, and so does the rest of its frame.
        let on_node = click.and_then(|p| {
            self.node_rects
                .iter()
                .rev()
                .find(|(_, r)| r.contains(p))
                .map(|(id, _)| *id)
        });
        let clicked = self
            .clicked
            .or_else(|| on_node.and_then(|id| snarl.get_node(id).and_then(&name_of)));
        if let Some(name) = clicked {
            if modifiers.command || modifiers.shift {
                if !selection.remove(&name) {
                    selection.insert(name);
                }
            } else {
                *selection = [name].into();
            }
        } else if click.is_some() && on_node.is_none() {
            selection.clear();
        }
    }
}

/// Where a new node of `size` goes when asked for at `at` (graph coordinates): there if it
/// overlaps none of `taken`, else the nearest free place below or beside it, so it never
/// lands on another node.
pub fn free_spot(at: Pos2, size: Vec2, taken: &[Rect]) -> Pos2 {
    const GAP: f32 = 24.0;
    let free = |p: Pos2| {
        let r = Rect::from_min_size(p, size).expand(GAP / 2.0);
        !taken.iter().any(|t| t.intersects(r))
    };
    // Rings of candidates, nearest first: down, right, up, left, then the diagonals.
    let step = vec2(size.x + GAP, size.y / 2.0 + GAP);
    for ring in 0..40 {
        let k = ring as f32;
        let candidates = [
            vec2(0.0, k),
            vec2(k, 0.0),
            vec2(0.0, -k),
            vec2(-k, 0.0),
            vec2(k, k),
            vec2(-k, k),
            vec2(k, -k),
            vec2(-k, -k),
        ];
        for c in candidates {
            let p = at + c * step;
            if free(p) {
                return pos2(p.x.round(), p.y.round());
            }
        }
    }
    at
}

/// F2 over the graph, with one node selected and no text field taking the keys: rename it
/// (the host focuses the inspector's name field, whose rename moves every reference).
pub fn rename_key(ui: &Ui, selection: &BTreeSet<String>) -> bool {
    selection.len() == 1
        && !ui.ctx().text_edit_focused()
        && ui.input_mut(|i| i.consume_key(egui::Modifiers::NONE, egui::Key::F2))
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

    #[test]
    fn a_new_node_goes_where_no_node_is() {
        let size = vec2(100.0, 60.0);
        let taken = [Rect::from_min_size(pos2(0.0, 0.0), size)];
        // Asked for on a node: moved off it.
        let p = free_spot(pos2(10.0, 10.0), size, &taken);
        assert!(!Rect::from_min_size(p, size).intersects(taken[0]), "{p:?}");
        // Asked for in free space: there.
        assert_eq!(free_spot(pos2(400.0, 0.0), size, &taken), pos2(400.0, 0.0));
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
