//! The Localisation view, the bottom dock's third tab: every line a player can see or hear ×
//! every locale of the project, each translation with its status (translated, missing, stale,
//! slot-mismatched), filtered to the missing or stale ones (docs/formats/strings.md). It reads
//! the last compile, so it follows every edit of a machine, a sentence file or a table.
//!
//! The translators' round trip starts here too: Export… writes every line for one locale to a
//! CSV, workbook or PO file, Import… reads one back into the locale's table, and a
//! clicked translation is edited in place. The view only asks ([`Request`]); the app
//! picks the file and makes the edit, one undo step, written by Save.

use crate::analysis::Report;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::ron::StringsAsset;
use ensemble_compiler::l10n::{self, exchange, exchange::Status, round_trip};
use std::path::Path;

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

/// What the view asks the app for.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Write every line with its translation into the chosen locale to a file the user picks.
    Export,
    /// Read a translators' file the user picks into the chosen locale's table.
    Import,
    /// Translate line `id` into `locale` as `text` (empty: untranslated again).
    Translate {
        locale: String,
        id: String,
        text: String,
    },
}

/// The view's state: its filter, the locale the round trip works on, the translation being
/// edited, and the table of the compile it last showed.
#[derive(Default)]
pub struct View {
    pub filter: Filter,
    /// The locale Export… and Import… work on (the first one when unset).
    pub locale: Option<String>,
    /// The line and locale being edited in place, the text so far, and whether the field has
    /// been given the keyboard (once: asking every frame would keep Enter from ending it).
    editing: Option<(String, usize, String, bool)>,
    shown: Option<(u64, Table)>,
}

impl View {
    /// The locale the round trip works on: the one chosen, else the project's first.
    pub fn chosen_locale(&self) -> Option<String> {
        let locales = &self.shown.as_ref()?.1.locales;
        (self.locale.clone())
            .filter(|l| locales.contains(l))
            .or_else(|| locales.first().cloned())
    }

    pub fn show(&mut self, ui: &mut Ui, report: Option<&Report>) -> Option<Request> {
        ui.set_min_size(ui.available_size());
        let Some(report) = report else {
            ui.label(
                RichText::new("The project has not been compiled yet.").color(theme::TEXT_WEAK),
            );
            return None;
        };
        let Ok(c) = &report.compilation else {
            ui.label(RichText::new("The project could not be read.").color(theme::ERROR));
            return None;
        };
        if self
            .shown
            .as_ref()
            .is_none_or(|(g, _)| *g != report.generation)
        {
            self.shown = Some((report.generation, Table::of(c)));
        }
        let chosen = self.chosen_locale();
        let Some((_, table)) = &self.shown else {
            return None;
        };
        let mut request = None;
        ui.horizontal(|ui| {
            if !table.locales.is_empty() {
                let mut pick = chosen.clone().unwrap_or_default();
                egui::ComboBox::from_id_salt("localisation-locale")
                    .selected_text(&pick)
                    .show_ui(ui, |ui| {
                        for l in &table.locales {
                            ui.selectable_value(&mut pick, l.clone(), l);
                        }
                    })
                    .response
                    .on_hover_text("The locale Export… and Import… work on");
                self.locale = Some(pick);
                if ui
                    .button("Export…")
                    .on_hover_text("Write every line with its translation to a .csv, .xlsx or .po file for translators")
                    .clicked()
                {
                    request = Some(Request::Export);
                }
                if ui
                    .button("Import…")
                    .on_hover_text("Read a translated .csv, .xlsx or .po file into this locale's table (Save writes it)")
                    .clicked()
                {
                    request = Some(Request::Import);
                }
                ui.separator();
            }
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
                    "The project declares no locales: add `locales: [\"fr\"]` to Ensemble.ron, then translate here (Export…, Import…, or click a translation).",
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
                            for (i, (text, status)) in row.cells.iter().enumerate() {
                                let editing = (self.editing.as_mut())
                                    .filter(|(id, l, _, _)| *id == row.id && *l == i);
                                if let Some((_, _, buffer, focused)) = editing {
                                    let edit = ui.add(
                                        egui::TextEdit::singleline(buffer)
                                            .id_salt(("translation", &row.id, i))
                                            .desired_width(260.0),
                                    );
                                    if !*focused {
                                        edit.request_focus();
                                        *focused = true;
                                    }
                                    if ui.input(|i| i.key_pressed(egui::Key::Escape)) {
                                        self.editing = None;
                                    } else if edit.lost_focus() {
                                        let (id, l, text, _) =
                                            self.editing.take().expect("being edited");
                                        request = Some(Request::Translate {
                                            locale: table.locales[l].clone(),
                                            id,
                                            text,
                                        });
                                    }
                                } else if cell(ui, text, *status).clicked() {
                                    self.editing = Some((row.id.clone(), i, text.clone(), false));
                                }
                            }
                            ui.end_row();
                        }
                    });
            });
        request
    }
}

/// A translation with its status; clicking it edits it.
fn cell(ui: &mut Ui, text: &str, status: Status) -> egui::Response {
    let (badge, color) = match status {
        Status::Translated | Status::New => ("", theme::TEXT),
        Status::Missing => ("missing", theme::ERROR),
        Status::Stale => ("stale", theme::WARNING),
        Status::SlotMismatch => ("slots", theme::ERROR),
    };
    let label = |ui: &mut Ui, text: RichText| {
        // Not selectable: a click edits the translation instead of selecting a word.
        ui.add(
            egui::Label::new(text)
                .selectable(false)
                .sense(egui::Sense::click()),
        )
    };
    let shown = ui.horizontal(|ui| {
        let mut response = ui.allocate_response(egui::vec2(0.0, 0.0), egui::Sense::click());
        if !badge.is_empty() {
            response |= label(ui, RichText::new(badge).small().color(color));
        }
        if !text.is_empty() {
            response |= label(ui, RichText::new(text).color(color));
        }
        if text.is_empty() {
            // Room to click in a missing translation's cell.
            response |= ui.allocate_response(egui::vec2(60.0, 14.0), egui::Sense::click());
        }
        response
    });
    shown
        .inner
        .on_hover_text("Double-click to edit the translation")
}

/// The last compile, as the round trip reads it: the lines come from the project as compiled.
fn compiled(report: Option<&Report>) -> Result<round_trip::Project<'_>, String> {
    let c = (report.map(|r| r.compilation.as_ref()))
        .ok_or("the project has not been compiled yet")?
        .map_err(|e| format!("the project could not be read: {e}"))?;
    Ok(round_trip::Project::new(&c.name, &c.module, &c.sources))
}

/// Writes every line of the last compile, with its translation into `locale`, to `path` (by
/// its extension: CSV, workbook or PO); what to tell the user. A file that is not an earlier
/// export (the designers' own workbook, a source) is never replaced.
pub fn export(
    report: Option<&Report>,
    locale: Option<String>,
    path: &Path,
) -> Result<String, String> {
    let format = round_trip::FileFormat::of(path)?;
    if path.exists() && !exchange::written_by_export(path) {
        return Err(format!(
            "{} exists and was not written by an export; choose another file",
            path.display()
        ));
    }
    let project = compiled(report)?;
    let locales: Vec<String> = locale.into_iter().collect();
    let (bytes, notes) = round_trip::export(&project, format, &locales)?;
    ensemble_runtime::fs::write_atomic(path, &bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let lines = project.lines.len();
    let mut said = format!("Exported {lines} lines to {}", path.display());
    for note in notes {
        said.push_str(&format!(" ({note})"));
    }
    Ok(said)
}

/// `locale`'s table with the translations of the file at `path` merged in, where it goes
/// (relative to the project) and what to tell the user.
pub fn imported(
    report: Option<&Report>,
    locale: Option<String>,
    path: &Path,
) -> Result<(String, StringsAsset, String), String> {
    let locale = locale.ok_or("the project declares no locale to import into")?;
    round_trip::check_locale(&locale)?;
    let format = round_trip::FileFormat::of(path)?;
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let rows = round_trip::read(bytes, format, &locale)?;
    let project = compiled(report)?;
    let merged = round_trip::merge(&project, &locale, rows);
    let table = merged
        .table
        .ok_or_else(|| "no translation in the file".to_string())?;
    let target = round_trip::table_path(&project, &locale);
    let mut said = format!(
        "Imported {locale} into {target}: {} added, {} changed, {} unchanged; Save writes it",
        merged.added, merged.changed, merged.unchanged
    );
    if !merged.unknown.is_empty() {
        said.push_str(&format!(
            " ({} rows of lines the project does not have skipped: {})",
            merged.unknown.len(),
            merged.unknown.join(", ")
        ));
    }
    Ok((target, table, said))
}

/// `locale`'s table with line `id` translated as `text`, and where it goes.
pub fn translated(
    report: Option<&Report>,
    locale: &str,
    id: &str,
    text: &str,
) -> Result<(String, StringsAsset), String> {
    let project = compiled(report)?;
    let table = round_trip::translate(&project, locale, id, text)?;
    Ok((round_trip::table_path(&project, locale), table))
}
