//! Excel workbooks (`.xlsx`, one workbook = one script), read with calamine. The layout is the
//! contract of DESIGN.md: sheets `Script` (Key | Value), `Roles` (Role | Min | Max | Flags) and
//! `Rules` (one rule per row, row order is precedence); the header row first; header names match
//! case-insensitively; unknown columns are warned about; a missing required column is an error
//! naming the sheet and the cell where the header row ends.

use super::source::{Cell, Origin, RoleRow, RuleRow, ScriptSource};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap};
use calamine::{Data, Reader};
use std::collections::{BTreeMap, HashMap};

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
        let cells = match used_cells(wb, sheet) {
            Ok(c) => c,
            Err(e) => {
                self.at(
                    Diagnostic::error(Code::Syntax, format!("cannot read sheet `{sheet}`: {e}")),
                    sheet,
                    "A1",
                );
                return None;
            }
        };
        let top = cells.keys().next().copied().unwrap_or(0);
        let left = cells
            .values()
            .flat_map(|row| row.keys().next())
            .min()
            .copied()
            .unwrap_or(0);
        let mut rows = cells.into_iter();
        let mut columns = HashMap::new();
        let mut last_header = left;
        if let Some((_, header)) = rows.next().filter(|(r, _)| *r == top) {
            for (col, cell) in header {
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
                    let mut d = Diagnostic::warning(
                        Code::UnknownColumn,
                        format!("sheet `{sheet}` has an unknown column `{text}`; it is ignored"),
                    );
                    if let Some(s) = crate::diag::suggest(&name, known.iter().copied()) {
                        d = d.note(format!("did you mean `{s}`?"));
                    }
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
        for (r, row) in rows {
            let cells: HashMap<u32, Data> = row
                .into_iter()
                .filter(|(_, d)| !matches!(d, Data::String(s) if s.trim().is_empty()))
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
}

/// The non-empty cells of a sheet by row, then column. A workbook is read cell by cell, so one
/// value far out (`XFD100000`) costs one entry, not the dense grid up to it that calamine's
/// ranges allocate (52 GB there); other formats fall back to the range.
fn used_cells(
    wb: &mut calamine::Sheets<std::io::Cursor<Vec<u8>>>,
    sheet: &str,
) -> Result<BTreeMap<u32, BTreeMap<u32, Data>>, String> {
    let mut cells: BTreeMap<u32, BTreeMap<u32, Data>> = BTreeMap::new();
    if let calamine::Sheets::Xlsx(xlsx) = wb {
        let mut reader = match xlsx.worksheet_cells_reader(sheet) {
            Ok(r) => r,
            // A chart sheet under the name: no cells, as calamine's ranges treat it.
            Err(calamine::XlsxError::NotAWorksheet(_)) => return Ok(cells),
            Err(e) => return Err(e.to_string()),
        };
        while let Some(cell) = reader.next_cell().map_err(|e| e.to_string())? {
            let data: Data = cell.get_value().clone().into();
            if !matches!(data, Data::Empty) {
                let (row, col) = cell.get_position();
                cells.entry(row).or_default().insert(col, data);
            }
        }
        return Ok(cells);
    }
    let range = wb.worksheet_range(sheet).map_err(|e| e.to_string())?;
    let (top, left) = range.start().unwrap_or((0, 0));
    for (row, col, data) in range.used_cells() {
        if !matches!(data, Data::Empty) {
            cells
                .entry(top + row as u32)
                .or_default()
                .insert(left + col as u32, data.clone());
        }
    }
    Ok(cells)
}

impl Reading<'_> {
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
    let mut initial_state = None;
    let mut base = None;
    let mut params = Vec::new();
    let mut supplies = None;
    if let Some(t) = &script {
        for row in &t.rows {
            let (Some(key), value) = (r.cell(t, row, "key"), r.cell(t, row, "value")) else {
                continue;
            };
            match key.text.to_lowercase().as_str() {
                "name" => name = value,
                "initial_state" | "initial state" => initial_state = value,
                "base" => base = value,
                "supplies" => supplies = value,
                k if k.starts_with('$') => {
                    if let Some(v) = value {
                        params.push((key.text.clone(), v));
                    }
                }
                _ => {
                    let d = Diagnostic::warning(Code::UnknownColumn, format!("unknown key `{}` in sheet `Script`; it is ignored", key.text))
                        .note("keys: name, initial_state, base, supplies, and meta-parameters written $name");
                    if let Origin::Sheet { sheet, cell, .. } = &key.origin {
                        let (s, c) = (sheet.clone(), cell.clone());
                        r.at(d, &s, &c);
                    }
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
        if script.is_some() {
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
