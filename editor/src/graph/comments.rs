//! Comments and groups on a graph's canvas, kept in its layout sidecar (never in the
//! behaviour): a comment is a text box at a position; a group is a titled rectangle drawn
//! around the nodes it names, and dragging its title moves them together.
//!
//! Edits come back as [`CanvasEdit`]s (and group drags as node moves), applied after the frame
//! like every other edit, so they undo and save with the layout.

use super::Camera;
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::{Color32, CornerRadius, FontId, Pos2, Rect, Sense, Stroke, StrokeKind, Ui, pos2, vec2};
use ensemble_compiler::formats::ron::{CanvasComment, NodeGroup};

/// An edit of the canvas's comments and groups.
#[derive(Clone, Debug, PartialEq)]
pub enum CanvasEdit {
    AddComment { at: [f32; 2], text: String },
    SetComment { index: usize, text: String },
    MoveComment { index: usize, at: [f32; 2] },
    DeleteComment(usize),
    AddGroup { title: String, nodes: Vec<String> },
    SetGroupTitle { index: usize, title: String },
    DeleteGroup(usize),
}

/// A new comment's text, selected for typing over.
pub const NEW_COMMENT: &str = "Comment";
/// A new group's title.
pub const NEW_GROUP: &str = "Group";

/// A comment's box, in graph points.
const COMMENT_SIZE: egui::Vec2 = vec2(220.0, 70.0);
/// Room between a group's frame and its nodes, and the height of its title bar.
const GROUP_MARGIN: f32 = 16.0;
const TITLE_HEIGHT: f32 = 26.0;

impl CanvasEdit {
    /// What Undo says it undoes.
    pub fn label(&self) -> &'static str {
        match self {
            CanvasEdit::AddComment { .. } => "add a comment",
            CanvasEdit::SetComment { .. } => "edit a comment",
            CanvasEdit::MoveComment { .. } => "move a comment",
            CanvasEdit::DeleteComment(_) => "delete a comment",
            CanvasEdit::AddGroup { .. } => "group states",
            CanvasEdit::SetGroupTitle { .. } => "rename a group",
            CanvasEdit::DeleteGroup(_) => "delete a group",
        }
    }

    /// Typing in one comment, or dragging it, is one undo step.
    pub fn coalesce(&self) -> Option<String> {
        match self {
            CanvasEdit::SetComment { index, .. } => Some(format!("comment {index}")),
            CanvasEdit::MoveComment { index, .. } => Some(format!("comment move {index}")),
            CanvasEdit::SetGroupTitle { index, .. } => Some(format!("group {index}")),
            _ => None,
        }
    }

    /// Applies the edit to `layout`; an index that names nothing is refused.
    pub fn apply(self, layout: &mut Layout) -> Result<(), String> {
        // Refuses an index past the `len` items of `what`.
        let named = |len: usize, i: usize, what: &str| {
            (i < len)
                .then_some(())
                .ok_or_else(|| format!("no {what} {i} (of {len})"))
        };
        match self {
            CanvasEdit::AddComment { at, text } => layout.comments.push(CanvasComment {
                text,
                x: at[0].round(),
                y: at[1].round(),
            }),
            CanvasEdit::SetComment { index, text } => {
                named(layout.comments.len(), index, "comment")?;
                layout.comments[index].text = text;
            }
            CanvasEdit::MoveComment { index, at } => {
                named(layout.comments.len(), index, "comment")?;
                layout.comments[index].x = at[0].round();
                layout.comments[index].y = at[1].round();
            }
            CanvasEdit::DeleteComment(index) => {
                named(layout.comments.len(), index, "comment")?;
                layout.comments.remove(index);
            }
            CanvasEdit::AddGroup { title, nodes } => {
                if nodes.is_empty() {
                    return Err("a group needs nodes".into());
                }
                layout.groups.push(NodeGroup { title, nodes });
            }
            CanvasEdit::SetGroupTitle { index, title } => {
                named(layout.groups.len(), index, "group")?;
                layout.groups[index].title = title;
            }
            CanvasEdit::DeleteGroup(index) => {
                named(layout.groups.len(), index, "group")?;
                layout.groups.remove(index);
            }
        }
        Ok(())
    }
}

/// What the designer did to the canvas's comments and groups this frame.
#[derive(Default)]
pub struct CanvasOutput {
    pub edits: Vec<CanvasEdit>,
    /// Nodes a group's drag moved, to their new positions.
    pub moves: Vec<(String, [f32; 2])>,
}

/// A group's frame in graph coordinates: around its nodes' boxes, with its title bar above.
pub fn group_frame(group: &NodeGroup, node_box: &dyn Fn(&str) -> Option<Rect>) -> Option<Rect> {
    let around = group
        .nodes
        .iter()
        .filter_map(|n| node_box(n))
        .fold(Rect::NOTHING, |a, r| a.union(r));
    around.is_positive().then(|| {
        let r = around.expand(GROUP_MARGIN);
        Rect::from_min_max(pos2(r.left(), r.top() - TITLE_HEIGHT), r.max)
    })
}

/// Runs `add` in a small layer of its own over the canvas at `rect` (screen), clipped to the
/// canvas `view`: its widgets win the pointer over the graph below, and clicks on them neither
/// select nor pan.
fn over_canvas<R>(
    ctx: &egui::Context,
    id: egui::Id,
    rect: Rect,
    view: Rect,
    add: impl FnOnce(&mut Ui) -> R,
) -> R {
    egui::Area::new(id)
        .order(egui::Order::Middle)
        .fixed_pos(rect.min)
        .constrain(false)
        .show(ctx, |ui| {
            ui.set_clip_rect(view);
            ui.set_min_size(rect.size());
            add(ui)
        })
        .inner
}

/// Draws the comments and groups of `layout` on the canvas (after the graph, clipped to it).
/// `node_box` gives a node's rectangle and `position` its top-left corner, in graph
/// coordinates.
pub fn show(
    ui: &Ui,
    camera: &Camera,
    layout: &Layout,
    node_box: &dyn Fn(&str) -> Option<Rect>,
    position: &dyn Fn(&str) -> [f32; 2],
) -> CanvasOutput {
    let mut out = CanvasOutput::default();
    let t = camera.to_screen;
    let scale = t.scaling;
    let font = FontId::proportional((13.0 * scale).clamp(6.0, 24.0));
    let view = camera.viewport.intersect(ui.clip_rect());
    // Ids that stay the same from frame to frame, so a drag or typing carries on.
    let base = egui::Id::new("canvas-notes");
    let painter = ui.painter().with_clip_rect(view);

    for (index, group) in layout.groups.iter().enumerate() {
        let Some(frame) = group_frame(group, node_box) else {
            continue;
        };
        let frame = t * frame;
        if !frame.intersects(view) {
            continue;
        }
        painter.rect(
            frame,
            CornerRadius::same(8),
            Color32::from_rgba_unmultiplied(108, 182, 217, 14),
            Stroke::new(1.0, theme::ACCENT.gamma_multiply(0.6)),
            StrokeKind::Inside,
        );
        let bar = Rect::from_min_size(frame.min, vec2(frame.width(), TITLE_HEIGHT * scale));
        let id = base.with(("group", index));
        over_canvas(ui.ctx(), id, bar, view, |ui| {
            // The bar drags the group; the title field and the × sit on it.
            let drag = ui
                .interact(bar, id.with("bar"), Sense::drag())
                .on_hover_text("Drag to move the group's states together");
            if drag.dragged() && drag.drag_delta() != egui::Vec2::ZERO {
                let d = drag.drag_delta() / scale;
                for n in &group.nodes {
                    if node_box(n).is_some() {
                        let [x, y] = position(n);
                        out.moves.push((n.clone(), [x + d.x, y + d.y]));
                    }
                }
            }
            let close =
                Rect::from_min_size(pos2(bar.right() - 22.0, bar.top() + 3.0), vec2(18.0, 18.0));
            if close_button(ui, close, "Delete the group (its states stay)") {
                out.edits.push(CanvasEdit::DeleteGroup(index));
            }
            let title_rect = Rect::from_min_size(
                bar.min + vec2(6.0, 3.0),
                vec2(
                    (bar.width() * 0.6).min(240.0 * scale),
                    (TITLE_HEIGHT * scale - 6.0).max(12.0),
                ),
            );
            let mut title = group.title.clone();
            let field = egui::TextEdit::singleline(&mut title).id(id.with("title"));
            if text_field(ui, title_rect, field, &font, "The group's title") {
                out.edits.push(CanvasEdit::SetGroupTitle { index, title });
            }
        });
    }

    for (index, c) in layout.comments.iter().enumerate() {
        let at = t * pos2(c.x, c.y);
        let rect = Rect::from_min_size(at, COMMENT_SIZE * scale);
        if !rect.intersects(view) {
            continue;
        }
        let id = base.with(("comment", index));
        over_canvas(ui.ctx(), id, rect, view, |ui| {
            ui.painter().rect(
                rect,
                CornerRadius::same(4),
                Color32::from_rgb(74, 68, 44),
                Stroke::new(1.0, theme::WARNING.gamma_multiply(0.7)),
                StrokeKind::Inside,
            );
            let handle = Rect::from_min_size(rect.min, vec2(rect.width() - 22.0, 12.0 * scale));
            let drag = ui
                .interact(handle, id.with("handle"), Sense::drag())
                .on_hover_text("Drag to move the comment");
            if drag.dragged() && drag.drag_delta() != egui::Vec2::ZERO {
                let p = Pos2::new(c.x, c.y) + drag.drag_delta() / scale;
                out.edits.push(CanvasEdit::MoveComment {
                    index,
                    at: [p.x, p.y],
                });
            }
            let close = Rect::from_min_size(
                pos2(rect.right() - 20.0, rect.top() + 1.0),
                vec2(18.0, 16.0),
            );
            if close_button(ui, close, "Delete the comment") {
                out.edits.push(CanvasEdit::DeleteComment(index));
            }
            let mut text = c.text.clone();
            let body = Rect::from_min_max(
                rect.min + vec2(4.0, 12.0 * scale),
                rect.max - vec2(4.0, 2.0),
            );
            let field = egui::TextEdit::multiline(&mut text).id(id.with("text"));
            let what = "A comment: notes on the canvas, kept in the layout sidecar";
            if text_field(ui, body, field, &font, what) {
                out.edits.push(CanvasEdit::SetComment { index, text });
            }
        });
    }
    out
}

/// A small × at `rect` that deletes `what` says; true when clicked.
fn close_button(ui: &mut Ui, rect: Rect, what: &str) -> bool {
    ui.put(rect, egui::Button::new("×").small().frame(false))
        .on_hover_text(what)
        .clicked()
}

/// A frameless text field at `rect`, in the canvas's font; true when its text changed.
fn text_field(ui: &mut Ui, rect: Rect, field: egui::TextEdit, font: &FontId, what: &str) -> bool {
    ui.put(rect, field.font(font.clone()).frame(egui::Frame::NONE))
        .on_hover_text(what)
        .changed()
}

/// The toolbar's canvas buttons: a comment in free space near the view's middle, a group around
/// the selection.
pub fn toolbar(
    ui: &mut Ui,
    camera: &Camera,
    selection: &std::collections::BTreeSet<String>,
) -> Vec<CanvasEdit> {
    let mut edits = Vec::new();
    if ui
        .button("+ Comment")
        .on_hover_text("Write a comment on the canvas (kept in the layout sidecar)")
        .clicked()
    {
        let at = camera.centre() - COMMENT_SIZE / 2.0 + vec2(0.0, -120.0);
        edits.push(CanvasEdit::AddComment {
            at: [at.x.round(), at.y.round()],
            text: NEW_COMMENT.into(),
        });
    }
    if ui
        .add_enabled(!selection.is_empty(), egui::Button::new("Group"))
        .on_hover_text(
            "Draw a titled group around the selected states; drag its title to move them together",
        )
        .on_disabled_hover_text("Select states to group first")
        .clicked()
    {
        edits.push(CanvasEdit::AddGroup {
            title: NEW_GROUP.into(),
            nodes: selection.iter().cloned().collect(),
        });
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_and_refuse_what_names_nothing() {
        let mut l = Layout::default();
        CanvasEdit::AddComment {
            at: [1.4, 2.0],
            text: "hi".into(),
        }
        .apply(&mut l)
        .unwrap();
        assert_eq!(l.comments[0].x, 1.0);
        CanvasEdit::SetComment {
            index: 0,
            text: "there".into(),
        }
        .apply(&mut l)
        .unwrap();
        assert_eq!(l.comments[0].text, "there");
        assert!(CanvasEdit::DeleteComment(3).apply(&mut l).is_err());
        assert!(
            CanvasEdit::AddGroup {
                title: "G".into(),
                nodes: vec![]
            }
            .apply(&mut l)
            .is_err()
        );
        CanvasEdit::AddGroup {
            title: "G".into(),
            nodes: vec!["A".into()],
        }
        .apply(&mut l)
        .unwrap();
        CanvasEdit::DeleteComment(0).apply(&mut l).unwrap();
        CanvasEdit::DeleteGroup(0).apply(&mut l).unwrap();
        assert!(l.is_empty());
    }

    #[test]
    fn a_group_frames_its_nodes_with_its_title_above() {
        let a = Rect::from_min_size(pos2(0.0, 0.0), vec2(100.0, 50.0));
        let b = Rect::from_min_size(pos2(300.0, 100.0), vec2(100.0, 50.0));
        let g = NodeGroup {
            title: "G".into(),
            nodes: vec!["A".into(), "B".into(), "Gone".into()],
        };
        let boxes = |n: &str| match n {
            "A" => Some(a),
            "B" => Some(b),
            _ => None,
        };
        let f = group_frame(&g, &boxes).unwrap();
        assert!(f.contains_rect(a) && f.contains_rect(b));
        assert!(f.top() < a.top() - TITLE_HEIGHT);
    }
}
