//! The grid: one rule per row in precedence order, the contract's fourteen columns, resizable.
//! Cells are edited in place; each is checked on every keystroke and outlined with what is
//! wrong, the parse error underlined where the parser points. Rows far outside the view are
//! skipped (their height is remembered), so long scripts stay cheap to draw.

use super::check::{CheckCx, Problem};
use super::highlight::{Token, tokens, visible_error};
use super::locate::{Markers, Place};
use super::table::{RowOp, RuleTable, Selection};
use crate::marks::{mark, name_widget};
use crate::theme;
use crate::workbook::columns::Column;
use eframe::egui;
use egui::text::{LayoutJob, TextFormat};
use egui::{
    Align, Color32, FontFamily, FontId, Frame, Id, Key, KeyboardShortcut, Layout, Margin,
    Modifiers, Rect, RichText, Sense, Stroke, TextEdit, Ui, pos2, vec2,
};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::scripts::RuleAsset;
use std::hash::{Hash, Hasher};

pub(super) const ROW_HEADER_WIDTH: f32 = 44.0;
pub(super) const HEADER_HEIGHT: f32 = 26.0;
const MIN_ROW_HEIGHT: f32 = 24.0;
const MIN_COLUMN_WIDTH: f32 = 40.0;

/// Colours of the highlighter's tokens.
fn token_color(t: Token) -> Color32 {
    match t {
        Token::Plain => theme::TEXT,
        Token::Variable => Color32::from_rgb(229, 192, 123),
        Token::Builtin => theme::ACCENT,
        Token::Keyword => Color32::from_rgb(198, 160, 246),
        Token::Predicate => Color32::from_rgb(236, 240, 246),
        Token::Number => Color32::from_rgb(152, 195, 121),
        Token::Quoted => Color32::from_rgb(206, 145, 120),
        Token::Punct => theme::TEXT_WEAK,
    }
}

pub(super) fn cell_font(column: Column) -> FontId {
    if column.is_code() {
        FontId::new(12.5, FontFamily::Monospace)
    } else {
        FontId::new(13.5, FontFamily::Proportional)
    }
}

/// Lays out a cell's text: highlighted if it is cell syntax, the error range underlined.
pub(super) fn layout_cell(
    text: &str,
    column: Column,
    error: Option<std::ops::Range<usize>>,
    wrap_width: f32,
) -> LayoutJob {
    let font = cell_font(column);
    let error = error.and_then(|r| visible_error(text, r));
    let mut job = LayoutJob::default();
    let spans: Vec<(std::ops::Range<usize>, Color32)> = if column.is_code() {
        tokens(text)
            .into_iter()
            .map(|(r, t)| (r, token_color(t)))
            .collect()
    } else {
        vec![(0..text.len(), theme::TEXT)]
    };
    for (range, color) in spans {
        // Split each span at the error's edges so the error can be underlined exactly.
        let mut cuts = vec![range.start, range.end];
        if let Some(e) = &error {
            cuts.extend([e.start, e.end].into_iter().filter(|&x| range.contains(&x)));
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let in_error = error.as_ref().is_some_and(|e| e.start <= a && b <= e.end);
            let mut format = TextFormat::simple(font.clone(), color);
            if in_error {
                format.underline = Stroke::new(1.5, theme::ERROR);
                format.background = theme::ERROR.gamma_multiply(0.22);
            }
            job.append(&text[a..b], 0.0, format);
        }
    }
    job.wrap.max_width = wrap_width;
    job
}

/// A stable colour per state, so the rules of one state are easy to see together.
pub(super) fn state_color(state: &str) -> Color32 {
    if state.trim().is_empty() {
        return theme::TEXT_WEAK;
    }
    let mut h = std::collections::hash_map::DefaultHasher::new();
    state.trim().hash(&mut h);
    let hue = (h.finish() % 360) as f32 / 360.0;
    egui::ecolor::Hsva::new(hue, 0.45, 0.85, 1.0).into()
}

/// The notes shown on a cell or field: its own check, then the compiler's. The compiler's
/// `syntax` report of a cell the live check already finds wrong is left out: the live one is
/// about the text as it is now.
pub(super) fn notes_of(
    problem: Option<&Problem>,
    markers: &Markers,
    place: Place,
) -> Vec<(Severity, String)> {
    let own_error = problem.is_some_and(|p| p.severity == Severity::Error);
    let mut notes: Vec<(Severity, String)> = problem
        .map(|p| (p.severity, p.message.clone()))
        .into_iter()
        .collect();
    notes.extend(
        markers
            .at(place)
            .iter()
            .filter(|m| !(own_error && m.code == "syntax"))
            .map(|m| (m.severity, format!("{}: {}", m.code, m.message))),
    );
    notes
}

/// Where a cell is and how wide.
#[derive(Clone, Copy)]
struct CellView {
    id: Id,
    row: usize,
    column: Column,
    width: f32,
}

/// A cell; its response says whether the text changed.
fn cell(
    ui: &mut Ui,
    view: &CellView,
    text: &mut String,
    problem: Option<&Problem>,
    notes: &[(Severity, String)],
) -> egui::Response {
    let CellView {
        id,
        row,
        column,
        width,
    } = *view;
    let error = problem
        .filter(|p| p.severity == Severity::Error)
        .and_then(|p| p.range.clone());
    if column == Column::Terminate {
        return terminate_cell(ui, id, text, width, notes);
    }
    let mut layouter = |ui: &Ui, buf: &dyn egui::TextBuffer, wrap: f32| {
        let job = layout_cell(buf.as_str(), column, error.clone(), wrap);
        ui.fonts_mut(|f| f.layout_job(job))
    };
    let response = TextEdit::multiline(text)
        .id(id)
        .desired_width(width - 8.0)
        .desired_rows(1)
        .margin(Margin::symmetric(4, 4))
        .frame(Frame::NONE)
        .return_key(KeyboardShortcut::new(Modifiers::SHIFT, Key::Enter))
        .layouter(&mut layouter)
        .show(ui)
        .response
        .response;
    name_widget(
        ui,
        &response,
        format!("row {} {}", row + 1, column.header()),
    );
    mark(ui, response, notes)
}

fn terminate_cell(
    ui: &mut Ui,
    id: Id,
    text: &mut String,
    width: f32,
    notes: &[(Severity, String)],
) -> egui::Response {
    let shown = if text.trim().is_empty() {
        RichText::new("—").color(theme::TEXT_WEAK)
    } else {
        RichText::new(text.trim()).color(theme::TEXT)
    };
    let before = text.clone();
    let mut inner = egui::ComboBox::from_id_salt(id)
        .selected_text(shown)
        .width(width - 12.0)
        .show_ui(ui, |ui| {
            ui.selectable_value(text, String::new(), "— (stays)");
            ui.selectable_value(text, "actor".to_string(), "actor — the actor leaves");
            ui.selectable_value(text, "script".to_string(), "script — the script ends");
        })
        .response;
    if *text != before {
        inner.mark_changed();
    }
    mark(ui, inner, notes)
}

/// The column headers, drawn into `rect` shifted by the horizontal scroll `offset`, with a
/// resize handle at the right edge of each.
pub(super) fn header(ui: &mut Ui, t: &mut RuleTable, rect: Rect, offset: f32) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, theme::BOX_FILL);
    painter.line_segment(
        [rect.left_bottom(), rect.right_bottom()],
        Stroke::new(1.0, theme::BORDER),
    );
    let pinned = Rect::from_min_size(rect.min, vec2(ROW_HEADER_WIDTH, rect.height()));
    let mut x = rect.left() + ROW_HEADER_WIDTH - offset;
    for c in Column::ALL {
        let w = t.widths[c.index()];
        let cell = Rect::from_min_size(pos2(x, rect.top()), vec2(w, rect.height()));
        if cell.right() > pinned.right() && cell.left() < rect.right() {
            painter.text(
                pos2(cell.left() + 6.0, cell.center().y),
                egui::Align2::LEFT_CENTER,
                c.header(),
                FontId::new(12.5, FontFamily::Proportional),
                theme::TEXT,
            );
            let visible = Rect::from_x_y_ranges(pinned.right()..=rect.right(), rect.y_range());
            let tip = ui.interact(
                cell.intersect(visible).shrink2(vec2(4.0, 0.0)),
                ui.id().with(("header", c)),
                Sense::hover(),
            );
            tip.on_hover_text(c.help());
            let handle = Rect::from_center_size(
                pos2(cell.right(), rect.center().y),
                vec2(8.0, rect.height()),
            )
            .intersect(visible);
            let r = ui.interact(handle, ui.id().with(("resize", c)), Sense::click_and_drag());
            if r.hovered() || r.dragged() {
                ui.ctx().set_cursor_icon(egui::CursorIcon::ResizeHorizontal);
            }
            if r.dragged() {
                t.widths[c.index()] = (w + r.drag_delta().x).clamp(MIN_COLUMN_WIDTH, 900.0);
            }
            if r.double_clicked() {
                t.widths[c.index()] = c.default_width();
            }
            let color = if r.hovered() || r.dragged() {
                theme::ACCENT
            } else {
                theme::BORDER
            };
            painter.line_segment(
                [
                    pos2(cell.right(), rect.top() + 4.0),
                    pos2(cell.right(), rect.bottom() - 4.0),
                ],
                Stroke::new(1.0, color),
            );
        }
        x += w;
    }
    painter.rect_filled(pinned, 0.0, theme::BOX_FILL);
    painter.line_segment(
        [pinned.right_top(), pinned.right_bottom()],
        Stroke::new(1.0, theme::BORDER),
    );
    painter.text(
        pos2(pinned.left() + 8.0, pinned.center().y),
        egui::Align2::LEFT_CENTER,
        "#",
        FontId::new(12.0, FontFamily::Proportional),
        theme::TEXT_WEAK,
    );
}

/// A row whose rule no content test fired: hatched in the warning colour behind its cells.
fn mark_unreached(painter: &egui::Painter, rect: Rect) {
    let stroke = Stroke::new(1.0, theme::WARNING.gamma_multiply(0.25));
    theme::hatch(painter, rect, stroke, 10.0);
}

/// What the row drag carries: the row being moved.
#[derive(Clone, Copy)]
struct RowDrag(usize);

/// Draws the rows; edits cells in place and reports row operations.
pub(super) fn rows(
    ui: &mut Ui,
    t: &mut RuleTable,
    rules: &mut [RuleAsset],
    check: &CheckCx<'_>,
    ops: &mut Vec<RowOp>,
) -> bool {
    let mut changed = false;
    let total_width = ROW_HEADER_WIDTH + t.widths.iter().sum::<f32>();
    ui.spacing_mut().item_spacing = vec2(0.0, 0.0);
    t.row_heights.resize(rules.len(), MIN_ROW_HEIGHT);
    let dragging = egui::DragAndDrop::has_payload_of_type::<RowDrag>(ui.ctx());
    let focused_row = t.selection.column.and(t.selection.row);
    let reveal_row = t.reveal.and_then(|r| r.row());
    let mut drop_line: Option<(f32, usize)> = None;
    t.grid_focus = false;
    let n = rules.len();
    for (i, rule) in rules.iter_mut().enumerate() {
        let top = ui.cursor().min;
        let estimate = Rect::from_min_size(top, vec2(total_width, t.row_heights[i]));
        let must_draw =
            Some(i) == focused_row || Some(i) == reveal_row || t.focus.is_some_and(|f| f.0 == i);
        if !ui.is_rect_visible(estimate.expand(200.0)) && !must_draw {
            ui.allocate_space(vec2(total_width, t.row_heights[i]));
            continue;
        }
        // Reserve the row's background so it can be painted once the row's height is known.
        let background = ui.painter().add(egui::Shape::Noop);
        let row_id = ui.id().with(("rule-row", i));
        let selected_row = t.selection.row == Some(i);
        let inner = ui.horizontal_top(|ui| {
            ui.add_space(ROW_HEADER_WIDTH);
            for c in Column::ALL {
                let w = t.widths[c.index()];
                let text = c.get_mut(rule);
                let problem = t.checks.get(c, text, check);
                let shown = problem.as_ref().map(|p| Problem {
                    message: p.located(text),
                    ..p.clone()
                });
                let notes = notes_of(shown.as_ref(), &t.markers, Place::Cell(i, c));
                let id = row_id.with(c);
                let r = ui
                    .allocate_ui_with_layout(vec2(w, 0.0), Layout::top_down(Align::Min), |ui| {
                        ui.set_width(w);
                        let view = CellView {
                            id,
                            row: i,
                            column: c,
                            width: w,
                        };
                        cell(ui, &view, text, problem.as_ref(), &notes)
                    })
                    .inner;
                changed |= r.changed();
                t.grid_focus |= r.has_focus();
                if r.has_focus() || r.gained_focus() {
                    t.selection = Selection {
                        row: Some(i),
                        column: Some(c),
                    };
                }
                // A cell given the keyboard in this frame (by the Enter below, in the row
                // above) must not take that Enter too: each row passed it on to the last.
                let just_focused = t.focus == Some((i, c));
                if just_focused {
                    r.request_focus();
                    ui.scroll_to_rect(r.rect, None);
                    t.focus = None;
                }
                if t.reveal.is_some_and(|rv| rv.cell() == Some((i, c))) {
                    ui.scroll_to_rect(r.rect, Some(Align::Center));
                    r.request_focus();
                    t.selection = Selection {
                        row: Some(i),
                        column: Some(c),
                    };
                    t.reveal = None;
                }
                // Enter (without Shift) moves down a row, as in a spreadsheet.
                if r.has_focus()
                    && !just_focused
                    && ui.input(|inp| inp.key_pressed(Key::Enter) && !inp.modifiers.shift)
                    && i + 1 < n
                {
                    t.focus = Some((i + 1, c));
                }
            }
        });
        let rect = Rect::from_min_size(
            top,
            vec2(
                total_width,
                inner.response.rect.height().max(MIN_ROW_HEIGHT),
            ),
        );
        t.row_heights[i] = rect.height();
        if t.reveal.is_some_and(|rv| rv.row() == Some(i)) {
            // Vertically only: a row is wider than the view, and the columns the designer is
            // looking at should stay where they are.
            let visible = ui.clip_rect();
            ui.scroll_to_rect(
                Rect::from_x_y_ranges(visible.x_range(), rect.y_range()),
                Some(Align::Center),
            );
            t.selection = Selection {
                row: Some(i),
                column: None,
            };
            t.reveal = None;
        }

        // The row header: number, grip, state colour; click selects, drag reorders.
        // Pinned to the left edge of the view, like a spreadsheet's frozen first column, so
        // the rule's number stays in sight when the columns are scrolled.
        let head = Rect::from_min_size(
            pos2(rect.left().max(ui.clip_rect().left()), rect.top()),
            vec2(ROW_HEADER_WIDTH, rect.height()),
        );
        let head_response = ui.interact(head, row_id.with("head"), Sense::click_and_drag());
        head_response.dnd_set_drag_payload(RowDrag(i));
        name_widget(ui, &head_response, format!("rule row {}", i + 1));
        let head_response = head_response.on_hover_text(if t.unreached.contains(&(rule.state.clone(), rule.rule.clone())) {
            "No content test run fired this rule (Tests tab).\nDrag to reorder (rows are precedence: the first matching rule fires).\nRight-click for more."
        } else {
            "Drag to reorder (rows are precedence: the first matching rule fires).\nRight-click for more."
        });
        if head_response.clicked() {
            t.selection = Selection {
                row: Some(i),
                column: None,
            };
            ui.memory_mut(|m| m.surrender_focus(m.focused().unwrap_or(Id::NULL)));
        }
        head_response.context_menu(|ui| row_menu(ui, i, n, ops));

        // Dropping a dragged row: above this row's middle goes before it, below goes after.
        // (The interaction position, not the hover: it survives the pointer leaving as the
        // button is released.)
        if dragging
            && let Some(pointer) = ui.ctx().pointer_interact_pos()
            && rect.contains(pointer)
        {
            let before = pointer.y < rect.center().y;
            let (y, slot) = if before {
                (rect.top(), i)
            } else {
                (rect.bottom(), i + 1)
            };
            drop_line = Some((y, slot));
            if ui.input(|inp| inp.pointer.any_released())
                && let Some(from) = egui::DragAndDrop::take_payload::<RowDrag>(ui.ctx())
            {
                let from = from.0;
                let to = if slot > from { slot - 1 } else { slot };
                if to != from {
                    ops.push(RowOp::Move { from, to });
                }
            }
        }

        let painter = ui.painter();
        let state = &rule.state;
        let mut fill = if i % 2 == 1 {
            Color32::from_rgb(33, 37, 46)
        } else {
            theme::CANVAS
        };
        if selected_row {
            fill = Color32::from_rgb(36, 52, 64);
        }
        let unreached = t
            .unreached
            .contains(&(rule.state.clone(), rule.rule.clone()));
        painter.set(background, egui::Shape::rect_filled(rect, 0.0, fill));
        if unreached {
            mark_unreached(painter, rect);
        }
        let mut x = rect.left() + ROW_HEADER_WIDTH;
        for c in Column::ALL {
            x += t.widths[c.index()];
            painter.line_segment(
                [pos2(x, rect.top()), pos2(x, rect.bottom())],
                Stroke::new(1.0, theme::BORDER.gamma_multiply(0.6)),
            );
        }
        painter.line_segment(
            [rect.left_bottom(), rect.right_bottom()],
            Stroke::new(1.0, theme::BORDER.gamma_multiply(0.6)),
        );
        painter.rect_filled(head, 0.0, fill);
        painter.line_segment(
            [head.right_top(), head.right_bottom()],
            Stroke::new(1.0, theme::BORDER),
        );
        let worst_row = t.markers.worst(Place::Row(i));
        painter.rect_filled(
            Rect::from_min_size(head.min, vec2(3.0, head.height())),
            0.0,
            state_color(state),
        );
        let number_color = match worst_row {
            Some(s) => theme::severity_color(s),
            None if selected_row => theme::ACCENT,
            None => theme::TEXT_WEAK,
        };
        painter.text(
            pos2(head.left() + 12.0, head.top() + 12.0),
            egui::Align2::LEFT_CENTER,
            format!("{}", i + 1),
            FontId::new(12.5, FontFamily::Monospace),
            number_color,
        );
        // The grip: two columns of dots.
        let grip = if head_response.hovered() {
            theme::TEXT
        } else {
            theme::BORDER
        };
        for k in 0..3 {
            for j in 0..2 {
                painter.circle_filled(
                    pos2(
                        head.right() - 12.0 + j as f32 * 4.0,
                        head.top() + 8.0 + k as f32 * 4.0,
                    ),
                    1.2,
                    grip,
                );
            }
        }
        if let Some(worst) = worst_row {
            let r = ui
                .interact(head, row_id.with("row-notes"), Sense::hover())
                .on_hover_ui(|ui| {
                    for m in t.markers.at(Place::Row(i)) {
                        ui.label(
                            RichText::new(format!("{}: {}", m.code, m.message))
                                .color(theme::severity_color(m.severity)),
                        );
                    }
                });
            ui.painter().rect_stroke(
                r.rect.shrink(1.0),
                2.0,
                Stroke::new(1.5, theme::severity_color(worst)),
                egui::StrokeKind::Inside,
            );
        }
    }
    if let Some((y, _)) = drop_line {
        let left = ui.min_rect().left();
        ui.painter().line_segment(
            [pos2(left, y), pos2(left + total_width, y)],
            Stroke::new(2.5, theme::ACCENT),
        );
    }
    if dragging
        && let Some(p) = ui.ctx().pointer_interact_pos()
        && let Some(from) = egui::DragAndDrop::payload::<RowDrag>(ui.ctx())
    {
        let layer = egui::LayerId::new(egui::Order::Tooltip, ui.id().with("row-drag"));
        ui.ctx().layer_painter(layer).text(
            p + vec2(14.0, 0.0),
            egui::Align2::LEFT_CENTER,
            format!("rule {}", from.0 + 1),
            FontId::new(13.0, FontFamily::Proportional),
            theme::ACCENT,
        );
    }
    // Releasing outside any row cancels the drag.
    if dragging && ui.input(|i| i.pointer.any_released()) {
        egui::DragAndDrop::clear_payload(ui.ctx());
    }
    changed
}

/// The row header's context menu.
pub(super) fn row_menu(ui: &mut Ui, i: usize, len: usize, ops: &mut Vec<RowOp>) {
    let mut item = |ui: &mut Ui, enabled: bool, text: &str, op: RowOp| {
        if ui.add_enabled(enabled, egui::Button::new(text)).clicked() {
            ops.push(op);
            ui.close();
        }
    };
    item(ui, true, "Insert rule above", RowOp::Insert(i));
    item(ui, true, "Insert rule below", RowOp::Insert(i + 1));
    item(ui, true, "Duplicate rule", RowOp::Duplicate(i));
    ui.separator();
    item(
        ui,
        i > 0,
        "Move up (Alt+Up)",
        RowOp::Move {
            from: i,
            to: i.saturating_sub(1),
        },
    );
    item(
        ui,
        i + 1 < len,
        "Move down (Alt+Down)",
        RowOp::Move { from: i, to: i + 1 },
    );
    ui.separator();
    item(ui, true, "Delete rule", RowOp::Delete(i));
    ui.separator();
    item(ui, true, "How do I get here?", RowOp::Reach(i));
}
