//! The Localisation view, the bottom dock's third tab: every line a player can see or hear ×
//! every locale of the project, each translation with its status (translated, missing, stale,
//! slot-mismatched), filtered to the missing or stale ones (docs/formats/strings.md). It reads
//! the last compile, so it follows every edit of a machine, a sentence file or a table.

use crate::analysis::Report;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::front::ron::StringsAsset;
use ensemble_compiler::l10n::{self, Renamed, exchange, exchange::Status};

/// Which lines the view lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Filter {
    #[default]
    All,
    /// Lines some locale does not translate.
    Missing,
    /// Lines some locale translated from an older source (or with a slot dropped or invented).
    Stale,
}

/// One line with its translation and status in each locale.
#[derive(Clone, Debug)]
pub struct Row {
    pub id: String,
    pub source: String,
    pub kind: &'static str,
    pub cells: Vec<(String, Status)>,
}

/// What the view shows of one compile.
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub locales: Vec<String>,
    pub rows: Vec<Row>,
}

impl Table {
    /// The lines and locales of a compiled project: the declared locales, then those that
    /// only have a table.
    pub fn of(c: &ensemble_compiler::Compilation) -> Table {
        let strings = &c.module.strings;
        let mut locales: Vec<String> = strings.declared.iter().map(|d| d.text.clone()).collect();
        for t in &strings.tables {
            if !locales.contains(&t.locale.text) {
                locales.push(t.locale.text.clone());
            }
        }
        let lines = l10n::lines(&c.module, &mut Default::default());
        let per_locale: Vec<Vec<exchange::Row<'_>>> = locales
            .iter()
            .map(|l| exchange::rows(&lines, strings, Some(l)))
            .collect();
        let rows = lines
            .iter()
            .enumerate()
            .map(|(i, line)| Row {
                id: line.id.clone(),
                source: line.source.clone(),
                kind: line.kind.as_str(),
                cells: per_locale
                    .iter()
                    .map(|rows| (rows[i].translation.clone(), rows[i].status))
                    .collect(),
            })
            .collect();
        Table { locales, rows }
    }

    /// The rows `filter` lets through.
    pub fn visible(&self, filter: Filter) -> impl Iterator<Item = &Row> + '_ {
        self.rows.iter().filter(move |r| match filter {
            Filter::All => true,
            Filter::Missing => r.cells.iter().any(|(_, s)| *s == Status::Missing),
            Filter::Stale => r
                .cells
                .iter()
                .any(|(_, s)| matches!(s, Status::Stale | Status::SlotMismatch)),
        })
    }

    /// How many lines of locale `i` have `status`.
    pub fn count(&self, i: usize, status: Status) -> usize {
        self.rows.iter().filter(|r| r.cells[i].1 == status).count()
    }
}

/// The view's state: its filter, and the table of the compile it last showed.
#[derive(Default)]
pub struct View {
    pub filter: Filter,
    shown: Option<(u64, Table)>,
}

impl View {
    pub fn show(&mut self, ui: &mut Ui, report: Option<&Report>) {
        ui.set_min_size(ui.available_size());
        let Some(report) = report else {
            ui.label(
                RichText::new("The project has not been compiled yet.").color(theme::TEXT_WEAK),
            );
            return;
        };
        let Ok(c) = &report.compilation else {
            ui.label(RichText::new("The project could not be read.").color(theme::ERROR));
            return;
        };
        if self
            .shown
            .as_ref()
            .is_none_or(|(g, _)| *g != report.generation)
        {
            self.shown = Some((report.generation, Table::of(c)));
        }
        let Some((_, table)) = &self.shown else {
            return;
        };
        ui.horizontal(|ui| {
            for (filter, label, hint) in [
                (Filter::All, "All", "Every line"),
                (Filter::Missing, "Missing", "Lines a locale does not translate"),
                (Filter::Stale, "Stale", "Translations made from an older source text, or with a slot dropped or invented"),
            ] {
                ui.selectable_value(&mut self.filter, filter, label)
                    .on_hover_text(hint);
            }
            ui.separator();
            for (i, locale) in table.locales.iter().enumerate() {
                let done = table.count(i, Status::Translated);
                let stale = table.count(i, Status::Stale) + table.count(i, Status::SlotMismatch);
                let color = if done == table.rows.len() {
                    theme::OK
                } else {
                    theme::WARNING
                };
                ui.label(
                    RichText::new(format!(
                        "{locale}: {done}/{} translated{}",
                        table.rows.len(),
                        if stale > 0 {
                            format!(", {stale} stale")
                        } else {
                            String::new()
                        }
                    ))
                    .color(color),
                );
            }
        });
        ui.add_space(4.0);
        if table.locales.is_empty() {
            ui.label(
                RichText::new(
                    "The project declares no locales: add `locales: [\"fr\"]` to Ensemble.ron, then translate with `ensemble strings export` and `ensemble strings import`.",
                )
                .color(theme::TEXT_WEAK),
            );
        }
        egui::ScrollArea::both()
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("localisation-grid")
                    .striped(true)
                    .num_columns(2 + table.locales.len())
                    .show(ui, |ui| {
                        ui.label(RichText::new("id").strong());
                        ui.label(RichText::new("source").strong());
                        for l in &table.locales {
                            ui.label(RichText::new(l).strong());
                        }
                        ui.end_row();
                        for row in table.visible(self.filter) {
                            ui.label(RichText::new(&row.id).monospace().color(theme::TEXT_WEAK))
                                .on_hover_text(row.kind);
                            ui.label(&row.source);
                            for (text, status) in &row.cells {
                                cell(ui, text, *status);
                            }
                            ui.end_row();
                        }
                    });
            });
    }
}

fn cell(ui: &mut Ui, text: &str, status: Status) {
    let (badge, color) = match status {
        Status::Translated | Status::New => ("", theme::TEXT),
        Status::Missing => ("missing", theme::ERROR),
        Status::Stale => ("stale", theme::WARNING),
        Status::SlotMismatch => ("slots", theme::ERROR),
    };
    ui.horizontal(|ui| {
        if !badge.is_empty() {
            ui.label(RichText::new(badge).small().color(color));
        }
        if !text.is_empty() {
            ui.label(RichText::new(text).color(color));
        }
    });
}

/// Moves a table's translations to their lines' new ids after `old` was renamed `new` (the
/// renames in `project_ops` and `rename` call it on every table); whether any moved.
pub fn rekey(table: &mut StringsAsset, what: Renamed<'_>, old: &str, new: &str) -> bool {
    let mut moved = false;
    for entry in &mut table.lines {
        if let Some(id) = l10n::rekeyed(&entry.id, what, old, new) {
            entry.id = id;
            moved = true;
        }
    }
    moved
}
