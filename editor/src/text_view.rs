//! The read-only text view: how assets without a panel of their own yet (scripts, sentences,
//! HMM spaces, ...) open — their text, as it would be saved, with line numbers, each problem's
//! line marked and the problems listed above it. It is a panel like any other
//! ([`AssetPanel`]); it just never edits.

use crate::panel::{AssetPanel, PanelCx, Reveal};
use crate::theme;
use eframe::egui;
use egui::{Color32, FontFamily, FontId, RichText, Ui};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::locate::{self, PathSeg, Seg};
use std::collections::HashMap;

#[derive(Default)]
pub struct TextPanel {
    /// Line to scroll to (1-based) on the next draw.
    scroll_to: Option<usize>,
    /// What to look for on the next draw (resolved against the text then).
    pending: Option<Reveal>,
    highlighted: Option<usize>,
}

/// The 1-based line where the value at `path` starts in `text`.
pub fn line_of_path(text: &str, path: &[PathSeg]) -> Option<usize> {
    let tree = locate::parse(text)?;
    let segs: Vec<Seg> = path
        .iter()
        .map(|s| match s {
            PathSeg::Field(f) => Seg::Field(f),
            PathSeg::Index(i) => Seg::Index(*i),
        })
        .collect();
    let span = tree.find(&segs);
    Some(text[..span.start].matches('\n').count() + 1)
}

/// The 1-based line of the item of list `list` whose `name` (or first) field is `name`.
pub fn line_of_item(text: &str, list: &str, name: &str) -> Option<usize> {
    let tree = locate::parse(text)?;
    let locate::Node::Struct { fields, .. } = &tree else {
        return None;
    };
    let (_, items) = fields.iter().find(|(f, _)| f == list)?;
    let locate::Node::Seq { items, .. } = items else {
        return None;
    };
    let quoted = format!("\"{name}\"");
    let item = items.iter().find(|item| match item {
        locate::Node::Struct { fields, .. } => fields
            .iter()
            .find(|(k, _)| k == "name" || k == "rule")
            .or(fields.first())
            .is_some_and(|(_, v)| text[v.span()] == quoted),
        locate::Node::Seq { items, .. } => items.first().is_some_and(|v| text[v.span()] == quoted),
        _ => false,
    })?;
    Some(text[..item.span().start].matches('\n').count() + 1)
}

impl AssetPanel<String> for TextPanel {
    fn ui(&mut self, ui: &mut Ui, text: &mut String, cx: &PanelCx) -> bool {
        if let Some(target) = self.pending.take() {
            let line = match &target {
                Reveal::Path(path) => line_of_path(text, path),
                Reveal::Item { list, name } => line_of_item(text, list, name),
            };
            self.scroll_to = line;
            self.highlighted = line;
        }
        let mut marks: HashMap<usize, Severity> = HashMap::new();
        for l in cx.diagnostics {
            if let Some(line) = l.line {
                let e = marks.entry(line).or_insert(l.severity());
                *e = (*e).min(l.severity());
            }
        }
        ui.horizontal(|ui| {
            ui.label(RichText::new(cx.file).strong().color(theme::TEXT));
            let hint = if cx.file.ends_with(".strings.ron") {
                "read-only here: translate in the Localisation view (bottom dock) — click \
                 a translation, or Export… / Import… for translators"
            } else {
                "read-only: this kind has no editor yet"
            };
            ui.label(RichText::new(hint).small().color(theme::TEXT_WEAK));
        });
        for l in cx.diagnostics {
            ui.horizontal_wrapped(|ui| {
                ui.label(
                    RichText::new(l.diagnostic.code.as_str())
                        .monospace()
                        .color(theme::severity_color(l.severity())),
                );
                ui.label(RichText::new(&l.diagnostic.message).color(theme::TEXT));
                ui.label(RichText::new(l.location()).small().color(theme::TEXT_WEAK));
            });
        }
        ui.separator();
        let mono = FontId::new(13.0, FontFamily::Monospace);
        let scroll_to = self.scroll_to.take();
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.spacing_mut().item_spacing.y = 0.0;
                for (i, line) in text.lines().enumerate() {
                    let n = i + 1;
                    let r = ui.horizontal(|ui| {
                        let bg = match marks.get(&n) {
                            Some(s) => theme::severity_color(*s).linear_multiply(0.18),
                            None if self.highlighted == Some(n) => theme::BOX_FILL_HOVER,
                            None => Color32::TRANSPARENT,
                        };
                        let rect = ui.available_rect_before_wrap();
                        let row =
                            egui::Rect::from_min_size(rect.min, egui::vec2(rect.width(), 18.0));
                        ui.painter().rect_filled(row, 0.0, bg);
                        ui.label(
                            RichText::new(format!("{n:>4}  "))
                                .font(mono.clone())
                                .color(theme::TEXT_WEAK),
                        );
                        ui.label(RichText::new(line).font(mono.clone()).color(theme::TEXT));
                    });
                    if scroll_to == Some(n) {
                        r.response.scroll_to_me(Some(egui::Align::Center));
                    }
                }
            });
        false
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "Script(\n    name: \"s\",\n    rules: [\n        Rule(\n            rule: \"1\",\n        ),\n        Rule(\n            rule: \"wait\",\n        ),\n    ],\n)\n";

    #[test]
    fn items_and_paths_are_found_by_line() {
        assert_eq!(line_of_item(TEXT, "rules", "wait"), Some(7));
        assert_eq!(
            line_of_path(TEXT, &[PathSeg::Field("rules".into()), PathSeg::Index(0)]),
            Some(4)
        );
        assert_eq!(line_of_item(TEXT, "rules", "nope"), None);
    }
}
