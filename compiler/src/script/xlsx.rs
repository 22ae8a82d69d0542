//! Excel workbooks (`.xlsx`, one workbook = one script), read with calamine. The layout is the
//! contract of DESIGN.md: sheets `Script` (Key | Value), `Roles` (Role | Min | Max | Flags) and
//! `Rules` (one rule per row, row order is precedence); the header row first; header names match
//! case-insensitively; unknown columns are warned about; a missing required column is an error
//! naming the sheet and the cell where the header row ends.

use super::source::{Cell, Origin, RoleRow, RuleRow, ScriptSource};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap};
use calamine::{Data, Reader};
use std::collections::HashMap;

/// `A`, `B`, ..., `Z`, `AA`, ... for a 0-based column.
pub fn column_name(mut col: u32) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'A' + (col % 26) as u8);
        if col < 26 {
            break;
        }
        col = col / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).expect("ASCII letters")
}

pub fn cell_name(row: u32, col: u32) -> String {
    format!("{}{}", column_name(col), row + 1)
}

fn normalize(header: &str) -> String {
    header
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// One sheet as a table: its columns by normalized header, and its data rows.
struct Table {
    sheet: String,
    columns: HashMap<String, u32>,
    /// (0-based row, cells by column) for each non-blank data row.
    rows: Vec<(u32, HashMap<u32, Data>)>,
}

struct Reading<'a> {
    file: FileId,
    diags: &'a mut Diagnostics,
}

impl Reading<'_> {
    fn at(&mut self, d: Diagnostic, sheet: &str, cell: &str) {
        self.diags.push(d.in_cell(self.file, sheet, cell));
    }

    fn table(
        &mut self,
        wb: &mut calamine::Sheets<std::io::Cursor<Vec<u8>>>,
        sheet: &str,
        required: &[&str],
        optional: &[&str],
    ) -> Option<Table> {
        let range = match wb.worksheet_range(sheet) {
            Ok(r) => r,
            Err(e) => {
                self.at(
                    Diagnostic::error(Code::Syntax, format!("cannot read sheet `{sheet}`: {e}")),
                    sheet,
                    "A1",
                );
                return None;
            }
        };
        self.uncached_formulas(wb, sheet, &range);
        let (top, left) = range.start().unwrap_or((0, 0));
        let mut rows = range.rows();
        let mut columns = HashMap::new();
        let mut last_header = left;
        if let Some(header) = rows.next() {
            for (i, cell) in header.iter().enumerate() {
                let col = left + i as u32;
                let text = match cell {
                    Data::String(s) => s.clone(),
                    Data::Empty => continue,
                    other => other.to_string(),
                };
                last_header = col;
                let name = normalize(&text);
                if required.contains(&name.as_str()) || optional.contains(&name.as_str()) {
                    if columns.insert(name.clone(), col).is_some() {
                        self.at(
                            Diagnostic::error(
                                Code::DuplicateName,
                                format!("column `{text}` appears twice in sheet `{sheet}`"),
                            ),
                            sheet,
                            &cell_name(top, col),
                        );
                    }
                } else {
                    let known: Vec<&str> = required.iter().chain(optional).copied().collect();
                    // A header one letter from a known column is a misspelt column whose cells
                    // would all be ignored: an error. Other headers (notes, comments) are
                    // warned about, as the contract says.
                    let d = match crate::diag::suggest(&name, known.iter().copied()) {
                        Some(s) => Diagnostic::error(
                            Code::UnknownColumn,
                            format!("sheet `{sheet}` has an unknown column `{text}`; its cells would be ignored"),
                        )
                        .note(format!("did you mean `{s}`?")),
                        None => Diagnostic::warning(
                            Code::UnknownColumn,
                            format!("sheet `{sheet}` has an unknown column `{text}`; it is ignored"),
                        ),
                    };
                    self.at(
                        d.note(format!("known columns: {}", known.join(", "))),
                        sheet,
                        &cell_name(top, col),
                    );
                }
            }
        }
        let mut missing = false;
        for r in required {
            if !columns.contains_key(*r) {
                missing = true;
                let d = Diagnostic::error(
                    Code::MissingColumn,
                    format!("sheet `{sheet}` has no `{r}` column"),
                )
                .note("the header row must come first; header names match case-insensitively");
                self.at(d, sheet, &cell_name(top, last_header + 1));
            }
        }
        if missing {
            return None;
        }
        let mut out = Vec::new();
        for (i, row) in rows.enumerate() {
            let r = top + 1 + i as u32;
            let cells: HashMap<u32, Data> = row
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    !matches!(d, Data::Empty)
                        && !matches!(d, Data::String(s) if s.trim().is_empty())
                })
                .map(|(j, d)| (left + j as u32, d.clone()))
                .collect();
            if !cells.is_empty() {
                out.push((r, cells));
            }
        }
        Some(Table {
            sheet: sheet.to_string(),
            columns,
            rows: out,
        })
    }

    /// A formula whose value the file does not store reads as an empty cell, so the rule or role
    /// it belongs to would silently lose that cell: report each at its cell. Files written by
    /// generators that do not compute formulas (and never opened in a spreadsheet) have them.
    fn uncached_formulas(
        &mut self,
        wb: &mut calamine::Sheets<std::io::Cursor<Vec<u8>>>,
        sheet: &str,
        values: &calamine::Range<Data>,
    ) {
        // A sheet whose formulas cannot be read has none that matter: its values are read.
        let Ok(formulas) = wb.worksheet_formula(sheet) else {
            return;
        };
        let (top, left) = formulas.start().unwrap_or((0, 0));
        for (r, c, formula) in formulas.used_cells() {
            let at = (top + r as u32, left + c as u32);
            // Generators write an uncached result as nothing or as an empty string; a formula
            // that really gives "" cannot be told from them, and an empty cell says the same.
            let cached = match values.get_value(at) {
                None | Some(Data::Empty) => false,
                Some(Data::String(s)) => !s.is_empty(),
                Some(_) => true,
            };
            if formula.trim().is_empty() || cached {
                continue;
            }
            let d = Diagnostic::error(
                Code::Syntax,
                format!("cell holds the formula `={formula}` but the workbook stores no value for it"),
            )
            .note("open and save the workbook in Excel or LibreOffice so the values are cached, or type the value instead of the formula")
            .note("a formula meant to give an empty cell: leave the cell empty instead");
            self.at(d, sheet, &cell_name(at.0, at.1));
        }
    }

    /// The cell under `column` in `row` as an empty [`Cell`] located there, for reporting a value
    /// that is missing where one is needed; `None` when the cell holds something unreadable
    /// (a formula error, already reported).
    fn empty_cell(&self, t: &Table, row: &(u32, HashMap<u32, Data>), column: &str) -> Option<Cell> {
        let col = *t.columns.get(column)?;
        if row.1.contains_key(&col) {
            return None;
        }
        Some(Cell {
            text: String::new(),
            origin: Origin::Sheet {
                file: self.file,
                sheet: t.sheet.clone(),
                cell: cell_name(row.0, col),
            },
        })
    }

    /// The text of a cell under `column`, or `None` when empty. Formula errors are reported.
    fn cell(&mut self, t: &Table, row: &(u32, HashMap<u32, Data>), column: &str) -> Option<Cell> {
        let col = *t.columns.get(column)?;
        let data = row.1.get(&col)?;
        let cell = cell_name(row.0, col);
        let text = match data {
            Data::String(s) => s.trim().to_string(),
            Data::Int(i) => i.to_string(),
            Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
            Data::Float(f) => f.to_string(),
            Data::Bool(b) => b.to_string(),
            Data::Error(e) => {
                self.at(
                    Diagnostic::error(Code::Syntax, format!("cell holds the formula error `{e}`"))
                        .note("fix the formula or type the value"),
                    &t.sheet,
                    &cell,
                );
                return None;
            }
            Data::Empty => return None,
            other => other.to_string(),
        };
        Some(Cell {
            text,
            origin: Origin::Sheet {
                file: self.file,
                sheet: t.sheet.clone(),
                cell,
            },
        })
    }
}

pub const RULE_COLUMNS: [&str; 14] = [
    "rule",
    "role",
    "state",
    "precondition",
    "action",
    "target",
    "parameters",
    "add",
    "delete",
    "deferred add",
    "deferred delete",
    "on error",
    "next state",
    "terminate",
];
const RULES_REQUIRED: [&str; 4] = ["role", "state", "precondition", "action"];

/// Reads one workbook; reports every problem it finds and returns what it could read.
pub fn read(sources: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<ScriptSource> {
    let path = &sources.get(file).path;
    let whole_file = |message: String| {
        let mut d = Diagnostic::error(Code::Syntax, message);
        d.file = Some(file);
        d
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            diags.push(whole_file(format!("cannot read the workbook: {e}")));
            return None;
        }
    };
    let mut wb = match calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes)) {
        Ok(wb) => wb,
        Err(e) => {
            diags.push(whole_file(format!("not a readable Excel workbook: {e}")));
            return None;
        }
    };
    let names = wb.sheet_names();
    let mut r = Reading { file, diags };
    for required in ["Script", "Roles", "Rules"] {
        if !names.iter().any(|n| n == required) {
            let d = Diagnostic::error(
                Code::MissingColumn,
                format!("the workbook has no `{required}` sheet"),
            )
            .note(format!("sheets found: {}", names.join(", ")))
            .note("an interaction script workbook has the sheets Script, Roles and Rules");
            r.at(d, required, "A1");
        }
    }
    // Script: Key | Value
    let script = if names.iter().any(|n| n == "Script") {
        r.table(&mut wb, "Script", &["key", "value"], &[])
    } else {
        None
    };
    let mut name = None;
    // Whether a `name` row exists, empty or not (an empty one is reported at its cell).
    let mut name_written = false;
    let mut initial_state = None;
    let mut base = None;
    let mut params = Vec::new();
    let mut supplies = None;
    if let Some(t) = &script {
        for row in &t.rows {
            let (key, value) = (r.cell(t, row, "key"), r.cell(t, row, "value"));
            let Some(key) = key else {
                // A value with no key sets nothing: most likely the key was deleted by mistake.
                if value.is_some()
                    && let Some(c) = r.empty_cell(t, row, "key")
                {
                    let d = Diagnostic::error(Code::Syntax, "this value has no key")
                        .note("type the key (name, initial_state, base, supplies or $parameter) in the Key column, or delete the row");
                    r.diags.push(c.locate(d, None, "empty key"));
                }
                continue;
            };
            let key_name = key.text.to_lowercase();
            name_written |= key_name == "name";
            match key_name.as_str() {
                "name" => match value {
                    Some(v) => name = Some(v),
                    None => {
                        let d = Diagnostic::error(Code::Syntax, "the script's name is empty")
                            .note("type the script's name in the Value column");
                        if let Some(c) = r.empty_cell(t, row, "value") {
                            r.diags.push(c.locate(d, None, "empty name"));
                        }
                    }
                },
                "initial_state" | "initial state" => initial_state = value,
                "base" => base = value,
                "supplies" => supplies = value,
                k if k.starts_with('$') => {
                    // Kept when empty: a meta-parameter set to nothing is reported where it is
                    // used unless a derived script sets it (templating).
                    if let Some(v) = value.or_else(|| r.empty_cell(t, row, "value")) {
                        params.push((key.text.clone(), v));
                    }
                }
                k => {
                    const KEYS: [&str; 4] = ["name", "initial_state", "base", "supplies"];
                    // A misspelt key silently drops what it sets (the initial state, the
                    // base): an error. Any other key is warned about and ignored.
                    let d = match crate::diag::suggest(k, KEYS) {
                        Some(s) => Diagnostic::error(
                            Code::UnknownColumn,
                            format!(
                                "unknown key `{}` in sheet `Script`; its value would be ignored",
                                key.text
                            ),
                        )
                        .note(format!("did you mean `{s}`?")),
                        None => Diagnostic::warning(
                            Code::UnknownColumn,
                            format!(
                                "unknown key `{}` in sheet `Script`; it is ignored",
                                key.text
                            ),
                        ),
                    };
                    let d = d.note(
                        "keys: name, initial_state, base, supplies, and meta-parameters written $name",
                    );
                    r.diags.push(key.locate(d, None, "unknown key"));
                }
            }
        }
    }
    let roles_table = if names.iter().any(|n| n == "Roles") {
        r.table(&mut wb, "Roles", &["role", "min", "max"], &["flags"])
    } else {
        None
    };
    let mut roles = Vec::new();
    if let Some(t) = &roles_table {
        for row in &t.rows {
            let Some(role) = r.cell(t, row, "role") else {
                // The row has Min, Max or Flags but no name: it cannot be a role, and skipping
                // it silently would drop a role the rules may need.
                let d = Diagnostic::error(Code::Syntax, "this role has no name")
                    .note("type the role's name in the Role column, or delete the row");
                if let Some(c) = r.empty_cell(t, row, "role") {
                    r.diags.push(c.locate(d, None, "empty role name"));
                }
                continue;
            };
            roles.push(RoleRow {
                name: role,
                min: r.cell(t, row, "min"),
                max: r.cell(t, row, "max"),
                flags: r.cell(t, row, "flags"),
            });
        }
    }
    let optional: Vec<&str> = RULE_COLUMNS
        .iter()
        .copied()
        .filter(|c| !RULES_REQUIRED.contains(c))
        .collect();
    let rules_table = if names.iter().any(|n| n == "Rules") {
        r.table(&mut wb, "Rules", &RULES_REQUIRED, &optional)
    } else {
        None
    };
    let mut rules = Vec::new();
    if let Some(t) = &rules_table {
        for row in &t.rows {
            let first_col = row.1.keys().min().copied().unwrap_or(0);
            let origin = Cell {
                text: String::new(),
                origin: Origin::Sheet {
                    file,
                    sheet: "Rules".into(),
                    cell: cell_name(row.0, first_col),
                },
            };
            rules.push(RuleRow {
                origin,
                rule: r.cell(t, row, "rule"),
                role: r.cell(t, row, "role"),
                state: r.cell(t, row, "state"),
                precondition: r.cell(t, row, "precondition"),
                action: r.cell(t, row, "action"),
                target: r.cell(t, row, "target"),
                parameters: r.cell(t, row, "parameters"),
                add: r.cell(t, row, "add"),
                delete: r.cell(t, row, "delete"),
                deferred_add: r.cell(t, row, "deferred add"),
                deferred_delete: r.cell(t, row, "deferred delete"),
                on_error: r.cell(t, row, "on error"),
                next_state: r.cell(t, row, "next state"),
                terminate: r.cell(t, row, "terminate"),
            });
        }
    }
    let Some(name) = name else {
        if script.is_some() && !name_written {
            r.at(
                Diagnostic::error(Code::MissingColumn, "sheet `Script` has no `name` key")
                    .note("add a row `name | <script name>`"),
                "Script",
                "A2",
            );
        }
        return None;
    };
    Some(ScriptSource {
        file,
        name,
        initial_state,
        base,
        params,
        supplies,
        roles,
        rules,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_names() {
        assert_eq!(column_name(0), "A");
        assert_eq!(column_name(25), "Z");
        assert_eq!(column_name(26), "AA");
        assert_eq!(column_name(27), "AB");
        assert_eq!(cell_name(6, 3), "D7");
    }
}
