//! PDDL files in a project (`*.pddl`): a text editor, since PDDL has no shape a form would make
//! clearer, that reads the text with the compiler's PDDL frontend on every edit and marks every
//! problem at its line and column; the text is saved as typed. A problem shows the plan an
//! agent would make on it ([`super::strips::PlanView`]).

use super::strips::PlanView;
use crate::panel::{AssetPanel, PanelCx, Reveal};
use crate::pddl::{Checked, Problem, check};
use crate::theme;
use eframe::egui;
use egui::text::{LayoutJob, TextFormat};
use egui::{FontId, RichText, Ui};

/// The character index of 1-based `line` and `column` (columns count characters, as the
/// compiler's).
fn char_index(text: &str, line: usize, column: usize) -> usize {
    let mut chars = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return chars + (column.max(1) - 1).min(l.trim_end_matches('\n').chars().count());
        }
        chars += l.chars().count();
    }
    chars
}

fn layout(text: &str, problems: &[Problem], wrap: f32) -> LayoutJob {
    let mono = FontId::monospace(12.5);
    let mut job = LayoutJob::default();
    job.wrap.max_width = wrap;
    let plain = |color| TextFormat {
        font_id: mono.clone(),
        color,
        ..Default::default()
    };
    // Comments weak, problem ranges underlined, the rest plain.
    let mut marks = vec![None; text.len()];
    for p in problems {
        for m in marks
            .iter_mut()
            .take(p.range.end.min(text.len()))
            .skip(p.range.start)
        {
            *m = Some(p.severity);
        }
    }
    let mut start = 0;
    let mut in_comment = false;
    let flush = |job: &mut LayoutJob, from: usize, to: usize, comment: bool| {
        if from >= to {
            return;
        }
        let mut f = plain(if comment {
            theme::TEXT_WEAK
        } else {
            theme::TEXT
        });
        if let Some(Some(sev)) = marks.get(from) {
            f.underline = egui::Stroke::new(1.5, theme::severity_color(*sev));
        }
        job.append(&text[from..to], 0.0, f);
    };
    for (i, c) in text.char_indices() {
        let boundary = (c == ';' && !in_comment)
            || (c == '\n' && in_comment)
            || marks.get(i).copied().flatten() != marks.get(i.saturating_sub(1)).copied().flatten();
        if boundary && i > start {
            flush(&mut job, start, i, in_comment);
            start = i;
        }
        if c == ';' {
            in_comment = true;
        } else if c == '\n' {
            in_comment = false;
        }
    }
    flush(&mut job, start, text.len(), in_comment);
    job
}

#[derive(Default)]
pub struct PddlPanel {
    plan: PlanView,
    checked: Option<(String, Checked)>,
    /// Where the cursor goes next frame: a problem's place or an action found by name. Kept
    /// for a few frames until the text takes the focus (a closing Find window holds it for one
    /// frame more).
    pending: Option<(Target, u8)>,
}

#[derive(Clone, Debug, PartialEq)]
enum Target {
    LineColumn(usize, usize),
    Found(Reveal),
}

impl PddlPanel {
    /// Puts the cursor at 1-based `line` and `column` (a diagnostic's place) next frame.
    pub fn reveal_at(&mut self, line: usize, column: usize) {
        self.pending = Some((Target::LineColumn(line, column), 0));
    }

    /// The character index a pending target points at in `text`.
    fn target(&self, text: &str, checked: &Checked) -> Option<usize> {
        match &self.pending.as_ref()?.0 {
            Target::LineColumn(line, column) => Some(char_index(text, *line, *column)),
            Target::Found(Reveal::Item { name, .. }) => checked
                .actions
                .iter()
                .find(|(a, _)| a == name)
                .map(|&(_, byte)| text[..byte.min(text.len())].chars().count()),
            Target::Found(Reveal::Path(_)) => Some(0),
        }
    }
}

impl AssetPanel<String> for PddlPanel {
    fn ui(&mut self, ui: &mut Ui, text: &mut String, cx: &PanelCx) -> bool {
        if self.checked.as_ref().is_none_or(|(t, _)| t != text) {
            self.checked = Some((text.clone(), check(text)));
        }
        let checked = self
            .checked
            .as_ref()
            .map(|(_, c)| c.clone())
            .unwrap_or_default();
        let problems = &checked.problems;
        ui.horizontal(|ui| {
            let title = match &checked.header {
                Some((true, n)) => format!("PDDL domain {n}"),
                Some((false, n)) => format!("PDDL problem {n}"),
                None => "PDDL".to_string(),
            };
            ui.label(RichText::new(title).heading().color(theme::TEXT));
            ui.label(RichText::new(cx.file).small().color(theme::TEXT_WEAK));
            if problems.is_empty() {
                ui.label(RichText::new("✔ reads").color(theme::OK));
            }
        });
        for p in problems {
            let r = ui
                .add(
                    egui::Label::new(
                        RichText::new(format!(
                            "{} line {}, column {}: {}",
                            crate::marks::severity_glyph(p.severity),
                            p.line,
                            p.column,
                            p.message
                        ))
                        .color(theme::severity_color(p.severity)),
                    )
                    .sense(egui::Sense::click()),
                )
                .on_hover_text("click: put the cursor there");
            if r.clicked() {
                self.reveal_at(p.line, p.column);
            }
        }
        crate::form_widgets::problems(ui, cx.diagnostics.iter());
        if let Some((false, name)) = &checked.header {
            crate::marks::docked(egui::Panel::right(ui.id().with("pddl-plan")), 380.0, 260.0).show(
                ui,
                |ui| {
                    egui::ScrollArea::vertical()
                        .id_salt("pddl-plan-scroll")
                        .auto_shrink([false, false])
                        .show(ui, |ui| self.plan.show(ui, name, cx));
                },
            );
        }
        let mut layouter = |ui: &Ui, buf: &dyn egui::TextBuffer, wrap: f32| {
            let job = layout(buf.as_str(), problems, wrap);
            ui.fonts_mut(|f| f.layout_job(job))
        };
        let id = ui.id().with("pddl-text-edit");
        let target = self.target(text, &checked);
        let tries = self.pending.take().map(|(t, n)| (t, n + 1));
        if let Some(at) = target {
            let cursor = egui::text::CCursor::new(at);
            let mut state = egui::text_edit::TextEditState::load(ui.ctx(), id).unwrap_or_default();
            state
                .cursor
                .set_char_range(Some(egui::text::CCursorRange::one(cursor)));
            state.store(ui.ctx(), id);
            ui.ctx().memory_mut(|m| m.request_focus(id));
        }
        let mut changed = false;
        egui::ScrollArea::vertical()
            .id_salt("pddl-text")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let out = egui::TextEdit::multiline(text)
                    .id(id)
                    .code_editor()
                    .desired_width(f32::INFINITY)
                    .desired_rows(24)
                    .background_color(theme::BOX_FILL)
                    .layouter(&mut layouter)
                    .show(ui);
                let r = &out.response.response;
                crate::marks::name_widget(ui, r, "PDDL text");
                changed = r.changed();
                if !r.has_focus()
                    && let Some((t, n)) = tries.clone()
                    && n < 5
                {
                    self.pending = Some((t, n));
                }
                if let Some(at) = target {
                    let caret = out
                        .galley
                        .pos_from_cursor(egui::text::CCursor::new(at))
                        .translate(out.galley_pos.to_vec2());
                    ui.scroll_to_rect(caret.expand(8.0), Some(egui::Align::Center));
                }
            });
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some((Target::Found(target.clone()), 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pddl_is_checked_with_its_line_and_column() {
        let text = "(define (domain d)\n  (:requirements :strips)\n  (:predicates (p))\n  (:action a :parameters () :precondition (p) :effect (not (p))))\n";
        let c = check(text);
        assert_eq!(c.header, Some((true, "d".to_string())));
        assert!(c.problems.is_empty(), "{:?}", c.problems);
        assert_eq!(
            c.actions,
            [("a".to_string(), text.find("a :param").unwrap())]
        );
        let broken = "(define (domain d)\n  (:predicates (p)\n";
        let c = check(broken);
        // Each unclosed `(` at its line and column, innermost first.
        let at: Vec<(usize, usize)> = c.problems.iter().map(|p| (p.line, p.column)).collect();
        assert_eq!(&at[..2], [(2, 3), (1, 1)], "{:?}", c.problems);
        let _ = layout(broken, &c.problems, 400.0);
    }

    #[test]
    fn lines_and_columns_become_character_indices() {
        let text = "ab\nçd\n(x";
        assert_eq!(char_index(text, 1, 1), 0);
        assert_eq!(char_index(text, 2, 2), 4);
        assert_eq!(char_index(text, 3, 1), 6);
        // Past the end of a line: its end; past the last line: the end.
        assert_eq!(char_index(text, 1, 9), 2);
        assert_eq!(char_index(text, 7, 1), 8);
    }
}
