//! Writing an interaction script as an Excel workbook: the inverse of [`super::xlsx`], so
//! designers can keep working in the spreadsheet they know (`ensemble export`, the editor's
//! "Export to .xlsx").
//!
//! The layout is the contract of [`super::contract`] and nothing else: its sheets, each with its
//! columns in contract order, header row first, one rule per row from row 2 in precedence order. Because columns and rows sit exactly
//! where the contract puts them, `ensemble check` on an exported workbook names the same cells as
//! on a workbook laid out by hand the same way.
//!
//! **Invariant:** reading an exported workbook with [`super::xlsx::read`] and converting it with
//! [`super::lower::to_asset`] gives back the asset, up to what a workbook cannot hold: text is
//! trimmed (the reader trims cells), rows of a rule or role that are entirely blank are dropped
//! (the reader skips blank rows), and empty optional keys are left out.

use super::contract::{Column, roles, rules, script};
use super::source::ScriptAsset;
use rust_xlsxwriter::{
    Color, DataValidation, Format, FormatAlign, FormatBorder, Workbook, Worksheet, XlsxError,
};
use std::fmt;
use std::path::Path;

/// Excel's limit on the characters of one cell.
const MAX_CELL_CHARS: usize = 32_767;
/// Rows below the last rule that still offer the Terminate drop-down, for rules added in Excel.
const SPARE_ROWS: u32 = 200;

/// Why a workbook could not be written.
#[derive(Debug)]
pub enum ExportError {
    /// A value Excel cannot hold, at its sheet and cell.
    Cell {
        sheet: &'static str,
        cell: String,
        message: String,
    },
    /// The workbook could not be assembled.
    Workbook(String),
    /// The file could not be written.
    Io(std::io::Error),
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::Cell {
                sheet,
                cell,
                message,
            } => write!(f, "sheet `{sheet}`, cell {cell}: {message}"),
            ExportError::Workbook(m) => write!(f, "cannot assemble the workbook: {m}"),
            ExportError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ExportError {}

/// The cells of one script, in row order per sheet: `(sheet, rows)`.
pub(super) struct Sheets<'a> {
    pub(super) script: Vec<[&'a str; 2]>,
    pub(super) roles: Vec<[&'a str; 4]>,
    pub(super) rules: Vec<[&'a str; 14]>,
}

pub(super) fn sheets(asset: &ScriptAsset) -> Sheets<'_> {
    let mut script = vec![["name", asset.name.as_str()]];
    let keys = [
        ("initial_state", &asset.initial_state),
        ("base", &asset.base),
        ("supplies", &asset.supplies),
    ];
    for (key, value) in keys {
        if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
            script.push([key, v]);
        }
    }
    script.extend(asset.params.iter().map(|(k, v)| [k.as_str(), v.as_str()]));
    let roles = asset
        .roles
        .iter()
        .map(|r| [&*r.name, &*r.min, &*r.max, &*r.flags])
        .collect();
    let rules = asset
        .rules
        .iter()
        .map(|r| {
            [
                &*r.rule,
                &*r.role,
                &*r.state,
                &*r.precondition,
                &*r.action,
                &*r.target,
                &*r.parameters,
                &*r.add,
                &*r.delete,
                &*r.deferred_add,
                &*r.deferred_delete,
                &*r.on_error,
                &*r.next_state,
                &*r.terminate,
            ]
        })
        .collect();
    Sheets {
        script,
        roles,
        rules,
    }
}

/// A whole number written the way it reads back (`"2"`, not `"02"`), stored as a number so
/// Excel does not flag it as "number stored as text".
pub(super) fn as_whole_number(text: &str) -> Option<f64> {
    let n: i64 = text.parse().ok()?;
    (n.to_string() == text && n.unsigned_abs() < 1 << 53).then_some(n as f64)
}

struct Writer {
    header: Format,
    text: Format,
    wrapped: Format,
}

impl Writer {
    fn new() -> Self {
        let header = Format::new()
            .set_bold()
            .set_font_color(Color::White)
            .set_background_color(Color::RGB(0x2F_4A_5E))
            .set_border_bottom(FormatBorder::Thin)
            .set_align(FormatAlign::Top);
        let text = Format::new().set_align(FormatAlign::Top);
        let wrapped = Format::new().set_align(FormatAlign::Top).set_text_wrap();
        Writer {
            header,
            text,
            wrapped,
        }
    }

    /// Writes one sheet: the header row, then `rows`; `wrap[c]` wraps long text in column `c`.
    fn sheet<const N: usize>(
        &self,
        ws: &mut Worksheet,
        sheet: &'static str,
        columns: &[Column; N],
        rows: &[[&str; N]],
        numeric: &[usize],
        wrap: &[usize],
    ) -> Result<(), ExportError> {
        let headers = columns.map(|c| c.header);
        let at = |row: u32, col: usize, e: XlsxError| ExportError::Cell {
            sheet,
            cell: super::xlsx::cell_name(row, col as u32),
            message: match e {
                XlsxError::MaxStringLengthExceeded => format!(
                    "the text is longer than Excel's limit of {MAX_CELL_CHARS} characters per cell"
                ),
                other => other.to_string(),
            },
        };
        ws.set_name(sheet)
            .map_err(|e| ExportError::Workbook(e.to_string()))?;
        for (c, h) in headers.iter().enumerate() {
            ws.write_string_with_format(0, c as u16, *h, &self.header)
                .map_err(|e| at(0, c, e))?;
        }
        let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count() + 2).collect();
        for (i, row) in rows.iter().enumerate() {
            let r =
                u32::try_from(i + 1).map_err(|_| ExportError::Workbook("too many rows".into()))?;
            for (c, value) in row.iter().enumerate() {
                let value = value.trim();
                if value.is_empty() {
                    continue;
                }
                let longest = value.lines().map(|l| l.chars().count()).max().unwrap_or(0);
                widths[c] = widths[c].max(longest + 2);
                let format = if wrap.contains(&c) {
                    &self.wrapped
                } else {
                    &self.text
                };
                let written = match as_whole_number(value).filter(|_| numeric.contains(&c)) {
                    Some(n) => ws.write_number_with_format(r, c as u16, n, format),
                    None => ws.write_string_with_format(r, c as u16, value, format),
                };
                written.map_err(|e| at(r, c, e))?;
            }
        }
        for (c, w) in widths.iter().enumerate() {
            // Wide enough to read, narrow enough that the sheet fits a screen; wrapped
            // columns show the rest on more lines.
            let cap = if wrap.contains(&c) { 48 } else { 28 };
            ws.set_column_width(c as u16, (*w).min(cap) as f64)
                .map_err(|e| ExportError::Workbook(e.to_string()))?;
        }
        ws.set_freeze_panes(1, 0)
            .map_err(|e| ExportError::Workbook(e.to_string()))?;
        Ok(())
    }
}

/// The workbook's bytes.
pub fn to_bytes(asset: &ScriptAsset) -> Result<Vec<u8>, ExportError> {
    let sheets = sheets(asset);
    let writer = Writer::new();
    let mut wb = Workbook::new();
    // The same script gives the same bytes: the writer would stamp the current time as the
    // document's creation date (the zip entries' own times are already fixed).
    wb.set_properties(
        &rust_xlsxwriter::DocProperties::new().set_creation_datetime(&creation_datetime()),
    );
    let workbook = |e: XlsxError| ExportError::Workbook(e.to_string());

    let ws = wb.add_worksheet();
    writer.sheet(
        ws,
        script::SHEET.name,
        &script::COLUMNS,
        &sheets.script,
        &[],
        &[1],
    )?;

    let ws = wb.add_worksheet();
    writer.sheet(
        ws,
        roles::SHEET.name,
        &roles::COLUMNS,
        &sheets.roles,
        &[1, 2],
        &[],
    )?;

    let ws = wb.add_worksheet();
    // Literal and effect lists grow long; names stay on one line.
    let wrapped = [
        rules::PRECONDITION,
        rules::PARAMETERS,
        rules::ADD,
        rules::DELETE,
        rules::DEFERRED_ADD,
        rules::DEFERRED_DELETE,
        rules::ON_ERROR,
    ];
    let wrap: Vec<usize> = (0..rules::COLUMNS.len())
        .filter(|&c| wrapped.contains(&rules::COLUMNS[c]))
        .collect();
    writer.sheet(
        ws,
        rules::SHEET.name,
        &rules::COLUMNS,
        &sheets.rules,
        &[],
        &wrap,
    )?;
    let last = sheets.rules.len() as u32 + SPARE_ROWS;
    let terminate_col = rules::COLUMNS.len() as u16 - 1;
    debug_assert_eq!(rules::COLUMNS[terminate_col as usize], rules::TERMINATE);
    let terminate = DataValidation::new()
        .allow_list_strings(&["actor", "script"])
        .map_err(workbook)?
        .ignore_blank(true)
        .set_input_title(rules::TERMINATE.header)
        .map_err(workbook)?
        .set_input_message("Empty, actor (the actor leaves) or script (the script ends).")
        .map_err(workbook)?;
    ws.add_data_validation(1, terminate_col, last, terminate_col, &terminate)
        .map_err(workbook)?;
    ws.set_active(true);

    wb.save_to_buffer().map_err(workbook)
}

/// The creation date written into exported workbooks: `SOURCE_DATE_EPOCH` (seconds since
/// 1970, the reproducible-builds convention) when it is set, else a fixed 1980-01-01, the
/// earliest date a zip archive can hold.
pub(crate) fn creation_datetime() -> rust_xlsxwriter::ExcelDateTime {
    let fixed =
        || rust_xlsxwriter::ExcelDateTime::from_ymd(1980, 1, 1).expect("a valid calendar date");
    std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<i64>().ok())
        .and_then(|t| rust_xlsxwriter::ExcelDateTime::from_timestamp(t).ok())
        .unwrap_or_else(fixed)
}

/// Writes the workbook to `path` atomically: a failure leaves any previous file untouched and
/// no partial file behind.
pub fn write(asset: &ScriptAsset, path: &Path) -> Result<(), ExportError> {
    let bytes = to_bytes(asset)?;
    ensemble_runtime::fs::write_atomic(path, &bytes).map_err(ExportError::Io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::script::source::{RoleAsset, RuleAsset};
    use crate::source::{SourceFile, SourceMap};

    fn read_back(bytes: &[u8]) -> (Option<ScriptAsset>, Diagnostics) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.xlsx");
        std::fs::write(&path, bytes).unwrap();
        let mut sources = SourceMap::default();
        let file = sources.add(SourceFile::new("s.xlsx".into(), path, String::new()));
        let mut diags = Diagnostics::default();
        let script = crate::script::xlsx::read(&sources, file, &mut diags);
        (script.as_ref().map(crate::script::lower::to_asset), diags)
    }

    fn sample() -> ScriptAsset {
        ScriptAsset {
            name: "vendor".into(),
            initial_state: Some("open".into()),
            base: Some("shop".into()),
            params: vec![("$goods".into(), "bread".into())],
            supplies: Some("stall/1".into()),
            roles: vec![RoleAsset {
                name: "seller".into(),
                min: "1".into(),
                max: "$max".into(),
                flags: "dynamicJoin, leaveCommand=leave".into(),
            }],
            rules: vec![RuleAsset {
                rule: "1".into(),
                role: "seller".into(),
                state: "open".into(),
                precondition: "stall(X), not sold(X, $goods)".into(),
                action: "sell".into(),
                target: "X".into(),
                parameters: "speed=1.5, anim='wave'".into(),
                add: "sold(X, $goods)".into(),
                deferred_add: "timer(.me, .now + randf(2,5) * .minute)".into(),
                on_error: "failed(.me)".into(),
                next_state: "closed".into(),
                terminate: "script".into(),
                ..Default::default()
            }],
        }
    }

    #[test]
    fn a_script_reads_back_as_written() {
        let asset = sample();
        let (back, diags) = read_back(&to_bytes(&asset).unwrap());
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(back.unwrap(), asset);
    }

    #[test]
    fn text_is_trimmed_and_numbers_stay_text_that_reads_the_same() {
        let mut asset = sample();
        asset.roles[0].min = " 02 ".into();
        asset.rules[0].rule = "  7".into();
        let (back, _) = read_back(&to_bytes(&asset).unwrap());
        let back = back.unwrap();
        assert_eq!(back.roles[0].min, "02");
        assert_eq!(back.rules[0].rule, "7");
    }

    #[test]
    fn a_cell_longer_than_excel_allows_is_named() {
        let mut asset = sample();
        asset.rules[0].precondition = "p(X), ".repeat(6000);
        let e = to_bytes(&asset).unwrap_err();
        assert!(e.to_string().starts_with("sheet `Rules`, cell D2:"), "{e}");
    }

    #[test]
    fn writing_into_a_missing_folder_fails_without_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/s.xlsx");
        assert!(matches!(write(&sample(), &path), Err(ExportError::Io(_))));
        assert!(!path.exists());
    }
}
