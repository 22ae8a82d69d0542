//! A value typed as RON text, for the fields whose structure a form would not make clearer
//! (an estimator's expression): the text is parsed on every edit with the compiler's options;
//! when it reads, the value changes at once (and is saved in the canonical layout); when it
//! does not, the value stays as it was and the error is shown under the field, with the place
//! it points at underlined. The text is kept as typed while the field has the keyboard.

use crate::marks::name_widget;
use crate::theme;
use eframe::egui;
use egui::text::{LayoutJob, TextFormat};
use egui::{FontId, RichText, Ui};
use ensemble_compiler::formats::ron::ParseError;
use serde::Serialize;
use serde::de::DeserializeOwned;

/// Reads `text` as a `T` the way the compiler reads assets.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str::<T>(text)
        .map_err(|e| ParseError {
            message: e.code.to_string(),
            line: e.span.start.line,
            column: e.span.start.col,
        })
}

/// The canonical text of `value` (no trailing newline: it is a field, not a file).
pub fn print<T: Serialize>(value: &T) -> String {
    ensemble_compiler::formats::ron::to_canonical_string(value)
        .trim_end()
        .to_string()
}

/// Byte offset of a 1-based line and column in `text`.
fn offset(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = &text[start.min(text.len())..];
    start
        + rest
            .char_indices()
            .nth(column.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i)
}

fn layout(text: &str, error: Option<usize>, wrap: f32) -> LayoutJob {
    let mono = FontId::monospace(12.5);
    let mut job = LayoutJob::default();
    job.wrap.max_width = wrap;
    let plain = TextFormat {
        font_id: mono.clone(),
        color: theme::TEXT,
        ..Default::default()
    };
    match error {
        Some(at) if at < text.len() => {
            let end = text[at..]
                .char_indices()
                .nth(1)
                .map_or(text.len(), |(i, _)| at + i);
            job.append(&text[..at], 0.0, plain.clone());
            job.append(
                &text[at..end],
                0.0,
                TextFormat {
                    underline: egui::Stroke::new(2.0, theme::ERROR),
                    color: theme::ERROR,
                    ..plain.clone()
                },
            );
            job.append(&text[end..], 0.0, plain);
        }
        _ => job.append(text, 0.0, plain),
    }
    job
}

/// Edits `value` as RON text; returns whether the value changed.
pub fn ron_value<T>(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    value: &mut T,
    rows: usize,
    name: impl Into<String>,
) -> bool
where
    T: Serialize + DeserializeOwned + PartialEq,
{
    let id = egui::Id::new(("ron-value", id));
    let focused = ui.memory(|m| m.has_focus(id));
    let kept: Option<String> = ui.data(|d| d.get_temp(id));
    // While typing, the text stays as typed even when it does not read yet.
    let mut text = match kept {
        Some(t) if focused => t,
        _ => print(value),
    };
    let error = parse::<T>(&text).err();
    let at = error.as_ref().map(|e| offset(&text, e.line, e.column));
    let mut layouter = |ui: &Ui, buf: &dyn egui::TextBuffer, wrap: f32| {
        let job = layout(buf.as_str(), at, wrap);
        ui.fonts_mut(|f| f.layout_job(job))
    };
    let r = ui.add(
        egui::TextEdit::multiline(&mut text)
            .id(id)
            .code_editor()
            .desired_rows(rows)
            .desired_width(f32::INFINITY)
            .background_color(theme::BOX_FILL)
            .layouter(&mut layouter),
    );
    name_widget(ui, &r, name);
    let mut changed = false;
    if r.changed()
        && let Ok(v) = parse::<T>(&text)
        && v != *value
    {
        *value = v;
        changed = true;
    }
    if let Some(e) = parse::<T>(&text).err() {
        let stroke = egui::Stroke::new(1.5, theme::ERROR);
        ui.painter()
            .rect_stroke(r.rect.expand(1.0), 3.0, stroke, egui::StrokeKind::Inside);
        ui.label(
            RichText::new(format!(
                "✖ line {}, column {}: {} — not applied until it reads",
                e.line, e.column, e.message
            ))
            .color(theme::ERROR),
        );
    }
    ui.data_mut(|d| d.insert_temp(id, text));
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::formats::spaces::ExprAsset;

    #[test]
    fn expressions_print_and_read_back() {
        let e = ExprAsset::Max(vec![
            ExprAsset::Match("^ @greeting-word".into(), 1.0),
            ExprAsset::Ev("player".into()),
        ]);
        let text = print(&e);
        assert_eq!(parse::<ExprAsset>(&text).unwrap(), e);
        let err = parse::<ExprAsset>("Max([Match(\"x\", 1.0)").unwrap_err();
        assert_eq!(err.line, 1);
        assert!(offset("ab\ncd", 2, 2) == 4);
    }
}
