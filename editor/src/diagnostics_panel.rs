//! The "Diagnostics" panel: one row per diagnostic, in the compiler's stable order, fed by the
//! background compile of the documents as they are now (saved or not). A row is a single
//! clickable widget whose accessible label carries the whole diagnostic; clicking it opens the
//! document it points into and selects the item (the state, the transition, the rule).

use crate::analysis::{Located, Report};
use crate::panel::Request;
use crate::quick_fix::QuickFix;
use crate::theme;
use eframe::egui;
use egui::text::{LayoutJob, TextWrapping};
use egui::{Color32, FontFamily, FontId, Pos2, RichText, Sense, Ui, pos2, vec2};
use ensemble_compiler::diag::Severity;

const ROW_HEIGHT: f32 = 26.0;

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// A circle for errors, a triangle for warnings: told apart by shape as well as colour.
fn paint_icon(painter: &egui::Painter, center: Pos2, severity: Severity) {
    let color = theme::severity_color(severity);
    match severity {
        Severity::Warning => {
            let (r, h) = (5.5, 5.0);
            let points = vec![
                pos2(center.x, center.y - h),
                pos2(center.x + r, center.y + h),
                pos2(center.x - r, center.y + h),
            ];
            painter.add(egui::Shape::convex_polygon(
                points,
                color,
                egui::Stroke::NONE,
            ));
        }
        _ => {
            painter.circle_filled(center, 4.5, color);
        }
    }
}

fn one_line(text: &str, font: FontId, color: Color32, max_width: f32) -> LayoutJob {
    let mut job = LayoutJob::simple_singleline(text.replace('\n', " "), font, color);
    job.wrap = TextWrapping {
        max_width: max_width.max(0.0),
        max_rows: 1,
        break_anywhere: true,
        overflow_character: Some('…'),
    };
    job
}

pub fn show(ui: &mut Ui, report: Option<&Report>, stale: bool, requests: &mut Vec<Request>) {
    ui.horizontal(|ui| {
        ui.label(RichText::new("Diagnostics").heading().color(theme::TEXT));
        if let Some(r) = report {
            ui.label(RichText::new(summary(r)).color(theme::TEXT_WEAK));
        }
        if stale {
            ui.add(egui::Spinner::new().size(12.0));
            ui.label(RichText::new("checking…").small().color(theme::TEXT_WEAK));
        }
    });
    let Some(r) = report else {
        return;
    };
    let located = match &r.compilation {
        Ok(_) => &r.located,
        Err(message) => {
            ui.label(RichText::new(message).color(theme::ERROR));
            return;
        }
    };
    if located.is_empty() {
        ui.add_space(6.0);
        ui.label(RichText::new("No problems found.").color(theme::OK));
        return;
    }
    let mono = FontId::new(12.5, FontFamily::Monospace);
    let body = FontId::new(13.5, FontFamily::Proportional);
    let code_width = located
        .iter()
        .map(|l| {
            ui.painter()
                .layout_no_wrap(
                    l.diagnostic.code.as_str().to_string(),
                    mono.clone(),
                    theme::TEXT,
                )
                .size()
                .x
        })
        .fold(0.0, f32::max);
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (i, l) in located.iter().enumerate() {
                let d = &l.diagnostic;
                let loc = l.location();
                let (rect, response) =
                    ui.allocate_exact_size(vec2(ui.available_width(), ROW_HEIGHT), Sense::click());
                let label = format!(
                    "{} {}: {} {loc}",
                    severity_word(d.severity),
                    d.code.as_str(),
                    d.message
                );
                response.widget_info(|| {
                    egui::WidgetInfo::labeled(egui::WidgetType::Button, true, &label)
                });
                let painter = ui.painter_at(rect);
                if response.hovered() {
                    painter.rect_filled(rect, 4.0, theme::BOX_FILL_HOVER);
                } else if i % 2 == 1 {
                    painter.rect_filled(rect, 4.0, Color32::from_rgb(33, 37, 46));
                }
                let mid = rect.center().y;
                paint_icon(&painter, pos2(rect.left() + 12.0, mid), d.severity);
                let color = theme::severity_color(d.severity);
                let code_x = rect.left() + 26.0;
                painter.text(
                    pos2(code_x, mid),
                    egui::Align2::LEFT_CENTER,
                    d.code.as_str(),
                    mono.clone(),
                    color,
                );
                // Quick fixes sit at the row's right end, before its location.
                let mut right = rect.right() - 8.0;
                let offered = l
                    .file
                    .as_deref()
                    .map(|f| QuickFix::offered(d, f))
                    .unwrap_or_default();
                for fix in offered.into_iter().rev() {
                    let title = fix.title(d);
                    let width = ui
                        .painter()
                        .layout_no_wrap(title.clone(), body.clone(), theme::TEXT)
                        .size()
                        .x
                        + 14.0;
                    let at = egui::Rect::from_min_max(
                        pos2(right - width, rect.top() + 3.0),
                        pos2(right, rect.bottom() - 3.0),
                    );
                    let button = ui
                        .put(at, egui::Button::new(RichText::new(title).size(12.5)))
                        .on_hover_text(fix.hint(d));
                    if button.clicked() && !stale {
                        requests.push(Request::QuickFix(Box::new(l.clone()), fix));
                    }
                    right = at.left() - 6.0;
                }
                let loc_rect = painter.text(
                    pos2(right, mid),
                    egui::Align2::RIGHT_CENTER,
                    &loc,
                    mono.clone(),
                    theme::TEXT_WEAK,
                );
                let message_x = code_x + code_width + 16.0;
                let job = one_line(
                    &d.message,
                    body.clone(),
                    theme::TEXT,
                    loc_rect.left() - 16.0 - message_x,
                );
                let galley = painter.layout_job(job);
                painter.galley(
                    pos2(message_x, mid - galley.size().y * 0.5),
                    galley,
                    theme::TEXT,
                );
                let response = response.on_hover_ui(|ui| details(ui, l));
                if response.clicked() && l.file.is_some() {
                    requests.push(Request::ShowDiagnostic(Box::new(l.clone())));
                }
            }
        });
}

/// "1 error, 2 warnings" (the status bar says it the same way).
pub fn summary(r: &Report) -> String {
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    format!(
        "{}, {}",
        plural(r.errors(), "error"),
        plural(r.warnings(), "warning")
    )
}

/// The whole diagnostic, for the row's tooltip.
fn details(ui: &mut Ui, l: &Located) {
    let d = &l.diagnostic;
    ui.label(RichText::new(&d.message).color(theme::TEXT));
    if let Some(p) = &d.primary {
        ui.label(RichText::new(format!("{}: {}", l.location(), p.message)).color(theme::TEXT_WEAK));
    }
    for r in &d.related {
        ui.label(RichText::new(format!("see also: {}", r.message)).color(theme::TEXT_WEAK));
    }
    for note in &d.notes {
        ui.label(RichText::new(format!("note: {note}")).color(theme::ACCENT));
    }
}
