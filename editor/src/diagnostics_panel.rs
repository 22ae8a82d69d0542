//! The "Diagnostics" panel: one row per diagnostic, in the compiler's stable order. A row is a
//! single clickable widget whose accessible label carries the whole diagnostic, and clicking it
//! opens the machine the diagnostic points into.

use crate::app::{self, Action, Loaded};
use crate::theme;
use eframe::egui;
use egui::text::{LayoutJob, TextWrapping};
use egui::{Color32, FontFamily, FontId, Pos2, RichText, Sense, Ui, pos2, vec2};
use ensemble_compiler::diag::{Diagnostic, Severity};
use ensemble_compiler::source::SourceMap;

const ROW_HEIGHT: f32 = 26.0;

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

fn location(sources: &SourceMap, d: &Diagnostic) -> String {
    match &d.primary {
        Some(l) => {
            let (line, col) = sources.line_col(l.span);
            format!("{}:{line}:{col}", sources.get(l.span.file).name)
        }
        None => String::new(),
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

pub fn show(ui: &mut Ui, project: Option<&Loaded>, actions: &mut Vec<Action>) {
    ui.horizontal(|ui| {
        ui.label(RichText::new("Diagnostics").heading().color(theme::TEXT));
        if let Some(p) = project {
            ui.label(RichText::new(p.compilation.diagnostics.summary()).color(theme::TEXT_WEAK));
        }
    });
    let Some(p) = project else {
        ui.label(
            RichText::new("none: the project did not load")
                .italics()
                .color(theme::TEXT_WEAK),
        );
        return;
    };
    let c = &p.compilation;
    let diagnostics = c.diagnostics.sorted(&c.sources);
    if diagnostics.is_empty() {
        ui.add_space(6.0);
        ui.label(RichText::new("No problems found.").color(theme::OK));
        return;
    }
    let mono = FontId::new(12.5, FontFamily::Monospace);
    let body = FontId::new(13.5, FontFamily::Proportional);
    let code_width = diagnostics
        .iter()
        .map(|d| {
            ui.painter()
                .layout_no_wrap(d.code.as_str().to_string(), mono.clone(), theme::TEXT)
                .size()
                .x
        })
        .fold(0.0, f32::max);
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (i, d) in diagnostics.iter().enumerate() {
                let loc = location(&c.sources, d);
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
                let loc_rect = painter.text(
                    pos2(rect.right() - 8.0, mid),
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

                if let Some(action) = d.primary.as_ref().and_then(|l| app::reveal(p, l.span)) {
                    let response = response.on_hover_ui(|ui| details(ui, c, d));
                    if response.clicked() {
                        actions.push(action);
                    }
                } else {
                    response.on_hover_ui(|ui| details(ui, c, d));
                }
            }
        });
}

/// The whole diagnostic, for the row's tooltip.
fn details(ui: &mut Ui, c: &ensemble_compiler::Compilation, d: &Diagnostic) {
    ui.label(RichText::new(&d.message).color(theme::TEXT));
    if let Some(l) = &d.primary {
        ui.label(
            RichText::new(format!("{}: {}", location(&c.sources, d), l.message))
                .color(theme::TEXT_WEAK),
        );
    }
    for r in &d.related {
        let (line, col) = c.sources.line_col(r.span);
        let file = &c.sources.get(r.span.file).name;
        ui.label(
            RichText::new(format!("{file}:{line}:{col}: {}", r.message)).color(theme::TEXT_WEAK),
        );
    }
    for note in &d.notes {
        ui.label(RichText::new(format!("note: {note}")).color(theme::ACCENT));
    }
}
