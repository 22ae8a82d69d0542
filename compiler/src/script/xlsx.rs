//! Excel workbooks (`.xlsx`, one workbook = one script), read with calamine. The layout is the
//! contract of [`super::contract`]: sheets `Script`, `Roles` and `Rules` (one rule per row, row
//! order is precedence); the header row first; header names match
//! case-insensitively; unknown columns are warned about; a missing required column is an error
//! naming the sheet and the cell where the header row ends.

use super::contract::{self, Column, Sheet, normalize, roles, rules, script};
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

/// One sheet as a table: its columns by normalized header, and its data rows.
struct Table {
    sheet: String,
    /// The column of each contract header found.
    columns: HashMap<&'static str, u32>,
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
        contract: &Sheet,
    ) -> Option<Table> {
        let sheet = contract.name;
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
        self.uncached_formulas(wb, sheet, &cells);
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
                if let Some(known) = contract.column(&name) {
                    if columns.insert(known.header, col).is_some() {
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
                    let known: Vec<String> = contract.headers().map(normalize).collect();
                    // A header one letter from a known column is a misspelt column whose cells
                    // would all be ignored: an error. Other headers (notes, comments) are
                    // warned about, as the contract says.
                    let d = match crate::diag::suggest(&name, known.iter().map(String::as_str)) {
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
        for c in contract.columns.iter().filter(|c| c.required) {
            if !columns.contains_key(c.header) {
                let r = normalize(c.header);
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

impl Reading<'_> {
    /// A formula whose value the file does not store reads as an empty cell, so the rule or role
    /// it belongs to would silently lose that cell: report each at its cell. Files written by
    /// generators that do not compute formulas (and never opened in a spreadsheet) have them.
    fn uncached_formulas(
        &mut self,
        wb: &mut calamine::Sheets<std::io::Cursor<Vec<u8>>>,
        sheet: &str,
        values: &BTreeMap<u32, BTreeMap<u32, Data>>,
    ) {
        for (at, formula) in formulas(wb, sheet) {
            // Generators write an uncached result as nothing or as an empty string; a formula
            // that really gives "" cannot be told from them, and an empty cell says the same.
            let cached = match values.get(&at.0).and_then(|row| row.get(&at.1)) {
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
    fn empty_cell(
        &self,
        t: &Table,
        row: &(u32, HashMap<u32, Data>),
        column: &Column,
    ) -> Option<Cell> {
        let col = *t.columns.get(column.header)?;
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
}

/// The formulas of a sheet with their (0-based row, column). A workbook's are read cell by cell,
/// like its values (`used_cells`); a sheet whose formulas cannot be read has none that matter.
fn formulas(
    wb: &mut calamine::Sheets<std::io::Cursor<Vec<u8>>>,
    sheet: &str,
) -> Vec<((u32, u32), String)> {
    let mut out = Vec::new();
    if let calamine::Sheets::Xlsx(xlsx) = wb {
        if let Ok(mut reader) = xlsx.worksheet_cells_reader(sheet) {
            while let Ok(Some(cell)) = reader.next_formula() {
                if !cell.get_value().is_empty() {
                    out.push((cell.get_position(), cell.get_value().clone()));
                }
            }
        }
        return out;
    }
    if let Ok(range) = wb.worksheet_formula(sheet) {
        let (top, left) = range.start().unwrap_or((0, 0));
        for (r, c, formula) in range.used_cells() {
            out.push(((top + r as u32, left + c as u32), formula.clone()));
        }
    }
    out
}

/// The most a workbook's parts may unpack to, all together (its XML, its shared strings): a
/// 3 MB zip bomb unpacked to 1.1 GB before anything was read. Fixed (docs/reliability.md).
pub const MAX_WORKBOOK_UNPACKED: u64 = 256 << 20;
/// The most non-empty cells one sheet may have. Fixed (docs/reliability.md).
pub const MAX_SHEET_CELLS: usize = 1_000_000;

/// Refuses a workbook whose parts unpack to more than [`MAX_WORKBOOK_UNPACKED`] bytes, before
/// calamine reads any of it: first by the sizes its directory declares, then — since those can
/// lie — by unpacking each part into nothing, counting, and stopping at the limit. Bytes that
/// are no zip archive pass (the reader says what they are not).
pub fn check_unpacked_size(bytes: &[u8]) -> Result<(), String> {
    use std::io::Read;
    let Ok(mut zip) = zip::ZipArchive::new(std::io::Cursor::new(bytes)) else {
        return Ok(());
    };
    let limit = MAX_WORKBOOK_UNPACKED;
    let too_much = |what: String, size: u64| {
        format!(
            "{what} unpacks to {size} bytes, more than the {limit} a workbook may ({} MiB); \
             not read",
            limit >> 20
        )
    };
    let name_of = |name: zip::result::ZipResult<std::borrow::Cow<'_, str>>| match name {
        Ok(n) => format!("`{n}`"),
        Err(_) => "a part".to_string(),
    };
    let mut total: u64 = 0;
    for i in 0..zip.len() {
        let Ok(part) = zip.by_index_raw(i) else {
            continue;
        };
        let size = part.size();
        if size > limit {
            return Err(too_much(name_of(part.name()), size));
        }
        total = total.saturating_add(size);
        if total > limit {
            return Err(too_much("its parts together".to_string(), total));
        }
    }
    let mut unpacked: u64 = 0;
    for i in 0..zip.len() {
        let Ok(part) = zip.by_index(i) else {
            continue;
        };
        let name = name_of(part.name());
        let mut bounded = part.take(limit - unpacked + 1);
        let mut buffer = [0u8; 64 * 1024];
        loop {
            match bounded.read(&mut buffer) {
                Ok(0) | Err(_) => break, // the end, or damage calamine will report
                Ok(n) => unpacked += n as u64,
            }
        }
        if unpacked > limit {
            return Err(too_much(
                format!("{name} (with the parts before it)"),
                unpacked,
            ));
        }
    }
    Ok(())
}

/// The non-empty cells of a sheet by row, then column. A workbook is read cell by cell, so one
/// value far out (`XFD100000`) costs one entry, not the dense grid up to it that calamine's
/// ranges allocate (52 GB there); other formats fall back to the range.
pub(crate) fn used_cells(
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
        let mut count = 0;
        while let Some(cell) = reader.next_cell().map_err(|e| e.to_string())? {
            let data: Data = cell.get_value().clone().into();
            if !matches!(data, Data::Empty) {
                count += 1;
                if count > MAX_SHEET_CELLS {
                    return Err(too_many_cells());
                }
                let (row, col) = cell.get_position();
                cells.entry(row).or_default().insert(col, data);
            }
        }
        return Ok(cells);
    }
    let range = wb.worksheet_range(sheet).map_err(|e| e.to_string())?;
    let (top, left) = range.start().unwrap_or((0, 0));
    if range.used_cells().count() > MAX_SHEET_CELLS {
        return Err(too_many_cells());
    }
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

fn too_many_cells() -> String {
    format!("more than {MAX_SHEET_CELLS} non-empty cells, the most a sheet may; not read")
}

/// The text a cell reads as (trimmed; whole numbers without `.0`), `None` when empty.
pub(super) fn cell_text(data: &Data) -> Option<String> {
    Some(match data {
        Data::String(s) => s.trim().to_string(),
        Data::Int(i) => i.to_string(),
        Data::Float(f) if f.fract() == 0.0 && f.abs() < 1e15 => format!("{}", *f as i64),
        Data::Float(f) => f.to_string(),
        Data::Bool(b) => b.to_string(),
        Data::Empty => return None,
        other => other.to_string(),
    })
}

impl Reading<'_> {
    /// The text of a cell under `column`, or `None` when empty. Formula errors are reported.
    fn cell(
        &mut self,
        t: &Table,
        row: &(u32, HashMap<u32, Data>),
        column: &Column,
    ) -> Option<Cell> {
        let col = *t.columns.get(column.header)?;
        let data = row.1.get(&col)?;
        let cell = cell_name(row.0, col);
        let text = match data {
            Data::Error(e) => {
                self.at(
                    Diagnostic::error(Code::Syntax, format!("cell holds the formula error `{e}`"))
                        .note("fix the formula or type the value"),
                    &t.sheet,
                    &cell,
                );
                return None;
            }
            other => cell_text(other)?,
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

/// Reads one workbook; reports every problem it finds and returns what it could read.
pub fn read(sources: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<ScriptSource> {
    let source = sources.get(file);
    let whole_file = |message: String| {
        let mut d = Diagnostic::error(Code::Syntax, message);
        d.file = Some(file);
        d
    };
    // Held in memory (an editor's unsaved workbook, as saving would write it), else on disk.
    let bytes = match &source.bytes {
        Some(held) => held.to_vec(),
        None => match std::fs::read(&source.path) {
            Ok(b) => b,
            Err(e) => {
                diags.push(whole_file(format!("cannot read the workbook: {e}")));
                return None;
            }
        },
    };
    if let Err(e) = check_unpacked_size(&bytes) {
        diags.push(whole_file(format!("the workbook is too large: {e}")));
        return None;
    }
    let mut wb = match calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes)) {
        Ok(wb) => wb,
        Err(e) => {
            diags.push(whole_file(format!("not a readable Excel workbook: {e}")));
            return None;
        }
    };
    let names = wb.sheet_names();
    let mut r = Reading { file, diags };
    for required in contract::SHEETS.map(|s| s.name) {
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
    let script = if names.iter().any(|n| n == script::SHEET.name) {
        r.table(&mut wb, &script::SHEET)
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
            let (key, value) = (r.cell(t, row, &script::KEY), r.cell(t, row, &script::VALUE));
            let Some(key) = key else {
                // A value with no key sets nothing: most likely the key was deleted by mistake.
                if value.is_some()
                    && let Some(c) = r.empty_cell(t, row, &script::KEY)
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
                        if let Some(c) = r.empty_cell(t, row, &script::VALUE) {
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
                    if let Some(v) = value.or_else(|| r.empty_cell(t, row, &script::VALUE)) {
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
    let roles_table = if names.iter().any(|n| n == roles::SHEET.name) {
        r.table(&mut wb, &roles::SHEET)
    } else {
        None
    };
    let mut roles = Vec::new();
    if let Some(t) = &roles_table {
        for row in &t.rows {
            let Some(role) = r.cell(t, row, &roles::ROLE) else {
                // The row has Min, Max or Flags but no name: it cannot be a role, and skipping
                // it silently would drop a role the rules may need.
                let d = Diagnostic::error(Code::Syntax, "this role has no name")
                    .note("type the role's name in the Role column, or delete the row");
                if let Some(c) = r.empty_cell(t, row, &roles::ROLE) {
                    r.diags.push(c.locate(d, None, "empty role name"));
                }
                continue;
            };
            roles.push(RoleRow {
                name: role,
                min: r.cell(t, row, &roles::MIN),
                max: r.cell(t, row, &roles::MAX),
                flags: r.cell(t, row, &roles::FLAGS),
            });
        }
    }
    let rules_table = if names.iter().any(|n| n == rules::SHEET.name) {
        r.table(&mut wb, &rules::SHEET)
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
                    sheet: rules::SHEET.name.into(),
                    cell: cell_name(row.0, first_col),
                },
            };
            rules.push(RuleRow {
                origin,
                rule: r.cell(t, row, &rules::RULE),
                role: r.cell(t, row, &rules::ROLE),
                state: r.cell(t, row, &rules::STATE),
                precondition: r.cell(t, row, &rules::PRECONDITION),
                action: r.cell(t, row, &rules::ACTION),
                target: r.cell(t, row, &rules::TARGET),
                parameters: r.cell(t, row, &rules::PARAMETERS),
                add: r.cell(t, row, &rules::ADD),
                delete: r.cell(t, row, &rules::DELETE),
                deferred_add: r.cell(t, row, &rules::DEFERRED_ADD),
                deferred_delete: r.cell(t, row, &rules::DEFERRED_DELETE),
                on_error: r.cell(t, row, &rules::ON_ERROR),
                next_state: r.cell(t, row, &rules::NEXT_STATE),
                terminate: r.cell(t, row, &rules::TERMINATE),
            });
        }
    }
    let Some(name) = name else {
        if script.is_some() && !name_written {
            r.at(
                Diagnostic::error(Code::MissingColumn, "sheet `Script` has no `name` key")
                    .note("add a row `name | <script name>`"),
                script::SHEET.name,
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
