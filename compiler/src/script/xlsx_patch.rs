//! Saving an edited script back into the workbook it came from, cell by cell: a designer's
//! styles, theme, column widths, extra sheets and notes columns stay as they were.
//!
//! rust_xlsxwriter only writes new files, so the worksheet XML inside the zip is patched: only the
//! `<c>` elements of cells whose value changed are rewritten (as inline strings, so the shared
//! string table is not touched; each keeps its `s=` style), new cells and rows are inserted in
//! order, and every other zip entry is copied byte for byte. Cells are placed the way the reader
//! finds them: columns by header, the n-th non-blank data row holds the n-th rule.
//!
//! A file this cannot patch (not an .xlsx, a contract sheet missing, a value for a column the
//! sheet lacks) is written whole by [`super::xlsx_write`], and [`Saved::Rewritten`] says why.

use super::contract::{Sheet, normalize, roles, rules, script};
use super::source::ScriptAsset;
use super::xlsx::{cell_name, cell_text, used_cells};
use super::xlsx_write::{self, ExportError, as_whole_number, sheets};
use calamine::Data;
use std::collections::{BTreeMap, HashMap};
use std::io::{Cursor, Read, Write};
use std::path::Path;

/// How a workbook was saved.
#[derive(Clone, Debug, PartialEq)]
pub enum Saved {
    /// There was no file: written whole.
    Created,
    /// Only these cells were rewritten (`Sheet!A1`, in sheet and row order); none when the
    /// file already held the script, which then is not written at all.
    Patched { cells: Vec<String> },
    /// Written whole, losing the file's own formatting, because it could not be patched: why.
    Rewritten { why: String },
}

/// Saves `asset` into the workbook at `path`, atomically: a failure leaves the previous file
/// as it was.
pub fn save(asset: &ScriptAsset, path: &Path) -> Result<Saved, ExportError> {
    let (bytes, saved) = to_save(asset, path)?;
    let unchanged = matches!(&saved, Saved::Patched { cells } if cells.is_empty());
    if !unchanged {
        ensemble_runtime::fs::write_atomic(path, &bytes).map_err(ExportError::Io)?;
    }
    Ok(saved)
}

/// The bytes [`save`] would write at `path` for `asset`, and how it would write them; reads
/// the file there and writes nothing. An editor compiles these very bytes, so what it checks
/// is what it saves.
pub fn to_save(asset: &ScriptAsset, path: &Path) -> Result<(Vec<u8>, Saved), ExportError> {
    // The whole workbook is assembled first: it checks every value fits a cell (naming the
    // cell otherwise) and is what a file that cannot be patched gets.
    let whole = xlsx_write::to_bytes(asset)?;
    let old = match std::fs::read(path) {
        Ok(old) => old,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok((whole, Saved::Created));
        }
        Err(e) => return Err(ExportError::Io(e)),
    };
    Ok(match patch(&old, asset) {
        Ok((bytes, cells)) => (bytes, Saved::Patched { cells }),
        Err(why) => (whole, Saved::Rewritten { why }),
    })
}

/// A value to write into a cell.
#[derive(Clone, Debug, PartialEq)]
enum Value {
    Text(String),
    Number(f64),
}

/// The cells to rewrite in one sheet: row → column → value, `None` to empty the cell (both
/// 0-based).
type Edits = BTreeMap<u32, BTreeMap<u32, Option<Value>>>;

/// The patched workbook's bytes and the cells it rewrote.
fn patch(old: &[u8], asset: &ScriptAsset) -> Result<(Vec<u8>, Vec<String>), String> {
    let mut wb = calamine::open_workbook_auto_from_rs(Cursor::new(old.to_vec()))
        .map_err(|e| format!("not a readable Excel workbook: {e}"))?;
    if !matches!(wb, calamine::Sheets::Xlsx(_)) {
        return Err("not an .xlsx workbook".into());
    }
    let rows = sheets(asset);
    let script_rows: Vec<&[&str]> = rows.script.iter().map(|r| &r[..]).collect();
    let role_rows: Vec<&[&str]> = rows.roles.iter().map(|r| &r[..]).collect();
    let rule_rows: Vec<&[&str]> = rows.rules.iter().map(|r| &r[..]).collect();
    // Min and Max of a role: whole numbers are stored as numbers, as the export writes them.
    let wanted = [
        (script::SHEET, script_rows, &[][..]),
        (roles::SHEET, role_rows, &[1, 2][..]),
        (rules::SHEET, rule_rows, &[][..]),
    ];
    let mut plans = Vec::new();
    for (sheet, rows, numeric) in &wanted {
        let cells = used_cells(&mut wb, sheet.name)
            .map_err(|e| format!("cannot read sheet `{}`: {e}", sheet.name))?;
        let (first_data_row, edits) = plan(sheet, &cells, rows, numeric)?;
        plans.push((sheet.name, first_data_row, edits));
    }
    let mut zip = zip::ZipArchive::new(Cursor::new(old))
        .map_err(|e| format!("not a readable zip archive: {e}"))?;
    let parts = sheet_parts(&mut zip)?;
    let mut patched: HashMap<String, String> = HashMap::new();
    let mut rewritten = Vec::new();
    for (name, first_data_row, edits) in plans {
        if edits.is_empty() {
            continue;
        }
        let part = parts
            .get(name)
            .ok_or_else(|| format!("the workbook lists no part for sheet `{name}`"))?;
        let xml = entry_text(&mut zip, part)?;
        patched.insert(part.clone(), patch_sheet(&xml, &edits, first_data_row)?);
        for (row, cols) in &edits {
            rewritten.extend(
                cols.keys()
                    .map(|c| format!("{name}!{}", cell_name(*row, *c))),
            );
        }
    }
    if patched.is_empty() {
        return Ok((old.to_vec(), rewritten));
    }
    let zip_error = |e: zip::result::ZipError| format!("cannot rewrite the archive: {e}");
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for i in 0..zip.len() {
        let entry = zip.by_index_raw(i).map_err(zip_error)?;
        let name = entry.name().map_err(zip_error)?.to_string();
        match patched.get(&name) {
            Some(xml) => {
                let options = zip::write::SimpleFileOptions::default()
                    .compression_method(zip::CompressionMethod::Deflated);
                drop(entry);
                out.start_file(name, options).map_err(zip_error)?;
                out.write_all(xml.as_bytes())
                    .map_err(|e| format!("cannot rewrite the archive: {e}"))?;
            }
            None => out.raw_copy_file(entry).map_err(zip_error)?,
        }
    }
    let bytes = out.finish().map_err(zip_error)?.into_inner();
    Ok((bytes, rewritten))
}

/// The cells of one sheet that differ from `rows`, placed where the reader reads them, and the
/// sheet's first data row.
fn plan(
    sheet: &Sheet,
    cells: &BTreeMap<u32, BTreeMap<u32, Data>>,
    rows: &[&[&str]],
    numeric: &[usize],
) -> Result<(u32, Edits), String> {
    let (name, columns) = (sheet.name, sheet.columns);
    let Some((&top, header)) = cells.iter().next() else {
        return Err(format!("sheet `{name}` has no header row"));
    };
    // The sheet column of each contract column, found by header as the reader does.
    let mut at: Vec<Option<u32>> = vec![None; columns.len()];
    for (&col, data) in header {
        let Some(known) = cell_text(data).and_then(|t| sheet.column(&normalize(&t))) else {
            continue;
        };
        if let Some(i) = columns.iter().position(|c| c.header == known.header) {
            at[i] = Some(col);
        }
    }
    let existing: Vec<(u32, &BTreeMap<u32, Data>)> = cells
        .range(top + 1..)
        .filter(|(_, row)| {
            row.values()
                .any(|d| cell_text(d).is_some_and(|t| !t.is_empty()))
        })
        .map(|(r, row)| (*r, row))
        .collect();
    let below = existing.last().map_or(top, |(r, _)| *r);
    let mut edits = Edits::new();
    for i in 0..rows.len().max(existing.len()) {
        let row = match existing.get(i) {
            Some((r, _)) => *r,
            None => below + (i - existing.len()) as u32 + 1,
        };
        for (c, column) in columns.iter().enumerate() {
            let want = rows.get(i).map(|r| r[c].trim()).filter(|v| !v.is_empty());
            let have = at[c]
                .and_then(|col| existing.get(i)?.1.get(&col))
                .and_then(cell_text)
                .filter(|t| !t.is_empty());
            if want == have.as_deref() {
                continue;
            }
            let Some(col) = at[c] else {
                return Err(format!(
                    "sheet `{name}` has no `{}` column for a value",
                    column.header
                ));
            };
            let value = want.map(
                |w| match as_whole_number(w).filter(|_| numeric.contains(&c)) {
                    Some(n) => Value::Number(n),
                    None => Value::Text(w.to_string()),
                },
            );
            edits.entry(row).or_default().insert(col, value);
        }
    }
    Ok((top + 1, edits))
}

fn entry_text(zip: &mut zip::ZipArchive<Cursor<&[u8]>>, name: &str) -> Result<String, String> {
    let mut text = String::new();
    zip.by_name(name)
        .map_err(|e| format!("cannot open `{name}` in the workbook: {e}"))?
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read `{name}` in the workbook: {e}"))?;
    Ok(text)
}

/// The zip entry of each worksheet, by sheet name (`xl/workbook.xml` and its relationships).
fn sheet_parts(
    zip: &mut zip::ZipArchive<Cursor<&[u8]>>,
) -> Result<HashMap<String, String>, String> {
    let workbook = entry_text(zip, "xl/workbook.xml")?;
    let rels = entry_text(zip, "xl/_rels/workbook.xml.rels")?;
    let targets: HashMap<String, String> = tags(&rels, "Relationship")
        .filter_map(|t| Some((attribute(t, "Id")?, attribute(t, "Target")?)))
        .collect();
    let mut parts = HashMap::new();
    for tag in tags(&workbook, "sheet") {
        let (Some(name), Some(id)) = (attribute(tag, "name"), attribute(tag, "r:id")) else {
            continue;
        };
        if let Some(target) = targets.get(&id) {
            let part = match target.strip_prefix('/') {
                Some(absolute) => absolute.to_string(),
                None => format!("xl/{target}"),
            };
            parts.insert(unescape(&name), part);
        }
    }
    Ok(parts)
}

/// The opening tags `<NAME ...>` in `xml`.
fn tags<'a>(xml: &'a str, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let open = format!("<{name}");
    let mut rest = xml;
    std::iter::from_fn(move || {
        loop {
            let start = rest.find(&open)?;
            let after = &rest[start + open.len()..];
            let end = after.find('>')?;
            rest = &after[end..];
            if after.starts_with([' ', '/', '>', '\t', '\n', '\r']) {
                return Some(&after[..end]);
            }
        }
    })
}

/// The value of attribute `name` in a tag's text.
fn attribute(tag: &str, name: &str) -> Option<String> {
    let mut rest = tag;
    loop {
        let at = rest.find(name)?;
        let before_ok = at > 0 && rest.as_bytes()[at - 1].is_ascii_whitespace();
        let after = rest[at + name.len()..].trim_start();
        rest = &rest[at + name.len()..];
        if let Some(value) = after.strip_prefix('=').map(str::trim_start)
            && before_ok
        {
            let quote = value.chars().next()?;
            let value = &value[1..];
            return Some(value[..value.find(quote)?].to_string());
        }
    }
}

fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            // XML cannot hold other control characters; OOXML spells them `_xHHHH_`.
            c if (c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r') => {
                out.push_str(&format!("_x{:04X}_", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// A cell's XML: `style` kept; an emptied cell keeps only its style (or vanishes without one).
fn cell_xml(reference: &str, style: Option<&str>, value: &Option<Value>) -> String {
    let s = style.map_or(String::new(), |s| format!(" s=\"{s}\""));
    match value {
        None if style.is_none() => String::new(),
        None => format!("<c r=\"{reference}\"{s}/>"),
        Some(Value::Number(n)) => format!("<c r=\"{reference}\"{s}><v>{n}</v></c>"),
        Some(Value::Text(t)) => format!(
            "<c r=\"{reference}\"{s} t=\"inlineStr\"><is><t xml:space=\"preserve\">{}</t></is></c>",
            escape(t)
        ),
    }
}

/// `(column, row)`, 0-based, of a reference like `AB12`.
fn parse_reference(reference: &str) -> Option<(u32, u32)> {
    let digits = reference.find(|c: char| c.is_ascii_digit())?;
    let (letters, number) = reference.split_at(digits);
    if letters.is_empty() {
        return None;
    }
    let mut col = 0u32;
    for b in letters.bytes() {
        if !b.is_ascii_uppercase() {
            return None;
        }
        col = col.checked_mul(26)?.checked_add(u32::from(b - b'A') + 1)?;
    }
    let row: u32 = number.parse().ok()?;
    Some((col - 1, row.checked_sub(1)?))
}

/// One element of a row or cell list: its whole text and the end of its opening tag.
struct Element<'a> {
    text: &'a str,
    tag: &'a str,
    body: Option<&'a str>,
}

/// The elements `<NAME ...>...</NAME>` or `<NAME .../>` in `xml`, with what lies between them.
fn elements<'a>(xml: &'a str, name: &str) -> Result<Vec<(&'a str, Element<'a>)>, String> {
    let open = format!("<{name}");
    let close = format!("</{name}>");
    let mut out = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find(&open) {
        let after = &rest[start + open.len()..];
        if !after.starts_with([' ', '>', '/']) {
            return Err(format!(
                "unexpected element in the sheet near `{}`",
                &rest[start..].chars().take(20).collect::<String>()
            ));
        }
        let end = after
            .find('>')
            .ok_or_else(|| format!("unclosed `<{name}` in the sheet"))?;
        let tag = &after[..end];
        let (len, body) = if tag.ends_with('/') {
            (open.len() + end + 1, None)
        } else {
            let inner = &after[end + 1..];
            let stop = inner
                .find(&close)
                .ok_or_else(|| format!("`<{name}>` without `</{name}>` in the sheet"))?;
            (
                open.len() + end + 1 + stop + close.len(),
                Some(&inner[..stop]),
            )
        };
        let text = &rest[start..start + len];
        out.push((&rest[..start], Element { text, tag, body }));
        rest = &rest[start + len..];
    }
    if !rest.trim().is_empty() {
        out.push((
            rest,
            Element {
                text: "",
                tag: "",
                body: None,
            },
        ));
    }
    Ok(out)
}

/// The sheet XML with `edits` applied. Styles for new cells come from the nearest data row
/// above in the same column, so an added rule looks like the others.
fn patch_sheet(xml: &str, edits: &Edits, first_data_row: u32) -> Result<String, String> {
    let start = xml
        .find("<sheetData")
        .ok_or("the sheet has no <sheetData>")?;
    let tag_end = start + xml[start..].find('>').ok_or("unclosed <sheetData")? + 1;
    let (content, tail) = if xml[..tag_end].ends_with("/>") {
        ("", &xml[tag_end..])
    } else {
        let stop = tag_end
            + xml[tag_end..]
                .find("</sheetData>")
                .ok_or("<sheetData> without </sheetData>")?;
        (&xml[tag_end..stop], &xml[stop + "</sheetData>".len()..])
    };
    let mut out = String::with_capacity(xml.len() + 256);
    out.push_str(&xml[..start]);
    out.push_str("<sheetData>");
    let mut styles: HashMap<u32, String> = HashMap::new();
    let mut pending = edits.iter().peekable();
    let new_row = |out: &mut String,
                   row: u32,
                   cells: &BTreeMap<u32, Option<Value>>,
                   styles: &HashMap<u32, String>| {
        let body: String = cells
            .iter()
            .map(|(c, v)| cell_xml(&cell_name(row, *c), styles.get(c).map(String::as_str), v))
            .collect();
        if !body.is_empty() {
            out.push_str(&format!("<row r=\"{}\">{body}</row>", row + 1));
        }
    };
    for (between, row) in elements(content, "row")? {
        out.push_str(between);
        if row.text.is_empty() {
            continue;
        }
        let number = attribute(row.tag, "r")
            .and_then(|r| r.parse::<u32>().ok())
            .and_then(|r| r.checked_sub(1))
            .ok_or("a row without its number")?;
        while let Some(&(&r, cells)) = pending.peek().filter(|(r, _)| **r < number) {
            new_row(&mut out, r, cells, &styles);
            pending.next();
        }
        let cells = elements(row.body.unwrap_or(""), "c")?;
        let mut known = Vec::with_capacity(cells.len());
        for (_, cell) in &cells {
            if cell.text.is_empty() {
                continue;
            }
            let reference = attribute(cell.tag, "r").ok_or("a cell without its reference")?;
            let (col, _) = parse_reference(&reference)
                .ok_or_else(|| format!("a cell with the reference `{reference}`"))?;
            known.push((col, attribute(cell.tag, "s")));
        }
        let Some((_, changes)) = pending.next_if(|(r, _)| **r == number) else {
            out.push_str(row.text);
            if number >= first_data_row {
                styles.extend(known.into_iter().filter_map(|(c, s)| Some((c, s?))));
            }
            continue;
        };
        // The row's `spans` hint would no longer cover inserted cells; it is optional.
        let tag = row.tag.trim_end_matches('/');
        let tag = match attribute(tag, "spans") {
            Some(spans) => tag.replace(&format!(" spans=\"{spans}\""), ""),
            None => tag.to_string(),
        };
        out.push_str(&format!("<row{tag}>"));
        let mut changes = changes.iter().peekable();
        let mut k = known.iter();
        for (between, cell) in &cells {
            out.push_str(between);
            if cell.text.is_empty() {
                continue;
            }
            let (col, style) = k.next().expect("one entry per cell");
            while let Some(&(&c, v)) = changes.peek().filter(|(c, _)| **c < *col) {
                out.push_str(&cell_xml(
                    &cell_name(number, c),
                    styles.get(&c).map(String::as_str),
                    v,
                ));
                changes.next();
            }
            match changes.next_if(|(c, _)| **c == *col) {
                Some((_, v)) => {
                    out.push_str(&cell_xml(&cell_name(number, *col), style.as_deref(), v))
                }
                None => out.push_str(cell.text),
            }
        }
        for (&c, v) in changes {
            out.push_str(&cell_xml(
                &cell_name(number, c),
                styles.get(&c).map(String::as_str),
                v,
            ));
        }
        out.push_str("</row>");
        if number >= first_data_row {
            styles.extend(known.into_iter().filter_map(|(c, s)| Some((c, s?))));
        }
    }
    for (&r, cells) in pending {
        new_row(&mut out, r, cells, &styles);
    }
    out.push_str("</sheetData>");
    out.push_str(tail);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Diagnostics;
    use crate::script::source::{RoleAsset, RuleAsset};
    use crate::source::{SourceFile, SourceMap};
    use rust_xlsxwriter::{Format, Workbook};

    fn read_back(path: &Path) -> ScriptAsset {
        let mut sources = SourceMap::default();
        let file = sources.add(SourceFile::new(
            "s.xlsx".into(),
            path.to_path_buf(),
            String::new(),
        ));
        let mut diags = Diagnostics::default();
        let script = crate::script::xlsx::read(&sources, file, &mut diags);
        assert!(!diags.has_errors(), "{diags:?}");
        crate::script::lower::to_asset(&script.unwrap())
    }

    /// A workbook laid out by hand: bold headers, a wide column, a notes column the contract
    /// does not know, a blank row between rules, and a sheet of its own.
    fn styled(path: &Path) {
        let mut wb = Workbook::new();
        let bold = Format::new().set_bold();
        let ws = wb.add_worksheet().set_name("Script").unwrap();
        ws.write_string_with_format(0, 0, "Key", &bold).unwrap();
        ws.write_string_with_format(0, 1, "Value", &bold).unwrap();
        ws.write_string(1, 0, "name").unwrap();
        ws.write_string(1, 1, "vendor").unwrap();
        let ws = wb.add_worksheet().set_name("Roles").unwrap();
        for (c, h) in ["Role", "Min", "Max", "Notes"].iter().enumerate() {
            ws.write_string_with_format(0, c as u16, *h, &bold).unwrap();
        }
        ws.write_string(1, 0, "seller").unwrap();
        ws.write_number(1, 1, 1.0).unwrap();
        ws.write_number(1, 2, 1.0).unwrap();
        ws.write_string(1, 3, "the one at the stall").unwrap();
        let ws = wb.add_worksheet().set_name("Rules").unwrap();
        let italic = Format::new().set_italic();
        for (c, h) in [
            "Rule",
            "Role",
            "State",
            "Precondition",
            "Action",
            "Next state",
        ]
        .iter()
        .enumerate()
        {
            ws.write_string_with_format(0, c as u16, *h, &bold).unwrap();
        }
        ws.set_column_width(3, 40).unwrap();
        for (r, row) in [
            (1, ["1", "seller", "open", "stall(X)", "sell", "closed"]),
            (3, ["2", "seller", "closed", "", "wait", ""]),
        ] {
            for (c, v) in row.iter().enumerate() {
                if !v.is_empty() {
                    ws.write_string_with_format(r, c as u16, *v, &italic)
                        .unwrap();
                }
            }
        }
        let ws = wb.add_worksheet().set_name("Notes").unwrap();
        ws.write_string_with_format(0, 0, "Ask Ana before changing rule 2", &bold)
            .unwrap();
        wb.save(path).unwrap();
    }

    fn entries(path: &Path) -> BTreeMap<String, Vec<u8>> {
        let mut zip = zip::ZipArchive::new(std::fs::File::open(path).unwrap()).unwrap();
        (0..zip.len())
            .map(|i| {
                let mut f = zip.by_index(i).unwrap();
                let mut bytes = Vec::new();
                f.read_to_end(&mut bytes).unwrap();
                (f.name().unwrap().to_string(), bytes)
            })
            .collect()
    }

    /// Each `<c>` element of a sheet by its reference.
    fn cells(xml: &[u8]) -> BTreeMap<String, String> {
        let xml = std::str::from_utf8(xml).unwrap();
        let start = xml.find("<sheetData").unwrap();
        let mut out = BTreeMap::new();
        for (_, row) in elements(
            &xml[start + "<sheetData>".len()..xml.find("</sheetData>").unwrap()],
            "row",
        )
        .unwrap()
        {
            for (_, c) in elements(row.body.unwrap_or(""), "c").unwrap() {
                if !c.text.is_empty() {
                    out.insert(attribute(c.tag, "r").unwrap(), c.text.to_string());
                }
            }
        }
        out
    }

    const RULES: &str = "xl/worksheets/sheet3.xml";

    #[test]
    fn an_edited_cell_is_the_only_thing_that_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vendor.xlsx");
        styled(&path);
        let before = entries(&path);
        let mut asset = read_back(&path);
        assert_eq!(asset.rules[0].precondition, "stall(X)");
        asset.rules[0].precondition = "stall(X), not sold(X) & <open>".into();
        // What an editor compiles before saving is byte for byte what the save writes.
        let (planned, how) = to_save(&asset, &path).unwrap();
        let saved = save(&asset, &path).unwrap();
        assert_eq!(saved, how);
        assert_eq!(std::fs::read(&path).unwrap(), planned);
        assert_eq!(
            saved,
            Saved::Patched {
                cells: vec!["Rules!D2".into()]
            }
        );
        assert_eq!(read_back(&path), asset);
        let after = entries(&path);
        assert_eq!(
            before.keys().collect::<Vec<_>>(),
            after.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &before {
            if name != RULES {
                assert!(after[name] == *bytes, "{name} changed");
            }
        }
        let (old, new) = (cells(&before[RULES]), cells(&after[RULES]));
        assert_eq!(
            old.keys().collect::<Vec<_>>(),
            new.keys().collect::<Vec<_>>()
        );
        for (reference, xml) in &old {
            if reference != "D2" {
                assert_eq!(new[reference], *xml, "{reference}");
            }
        }
        // The edited cell keeps its style.
        assert_eq!(
            attribute(&new["D2"][2..], "s"),
            attribute(&old["D2"][2..], "s")
        );
        assert!(new["D2"].contains("t=\"inlineStr\""), "{}", new["D2"]);
        // Saving again with nothing changed writes nothing.
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(
            save(&asset, &path).unwrap(),
            Saved::Patched { cells: vec![] }
        );
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }

    #[test]
    fn added_rules_and_roles_get_new_rows_and_removed_ones_are_emptied() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vendor.xlsx");
        styled(&path);
        let before = entries(&path);
        let mut asset = read_back(&path);
        asset.rules.push(RuleAsset {
            rule: "3".into(),
            role: "seller".into(),
            state: "closed".into(),
            action: "sleep".into(),
            ..Default::default()
        });
        asset.roles.push(RoleAsset {
            name: "buyer".into(),
            min: "0".into(),
            max: "3".into(),
            flags: String::new(),
        });
        asset.initial_state = Some("open".into());
        let Saved::Patched { cells: written } = save(&asset, &path).unwrap() else {
            panic!("not patched");
        };
        assert!(written.contains(&"Rules!E5".to_string()), "{written:?}");
        assert!(written.contains(&"Script!B3".to_string()), "{written:?}");
        assert_eq!(read_back(&path), asset);
        let sheet = entries(&path).remove(RULES).unwrap();
        let new = cells(&sheet);
        // The new rule's row takes the style of the rule above it.
        assert_eq!(
            attribute(&new["E5"][2..], "s"),
            attribute(&new["E4"][2..], "s")
        );
        let notes = "xl/worksheets/sheet4.xml";
        assert_eq!(entries(&path)[notes], before[notes]);

        asset.rules.remove(0);
        asset.roles.pop();
        save(&asset, &path).unwrap();
        assert_eq!(read_back(&path), asset);
        // The notes column of the kept role is untouched.
        let roles = cells(&entries(&path)["xl/worksheets/sheet2.xml"]);
        assert!(roles.contains_key("D2"));
    }

    #[test]
    fn a_file_that_is_not_a_workbook_is_written_whole_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vendor.xlsx");
        std::fs::write(&path, "Key,Value\n").unwrap();
        let asset = ScriptAsset {
            name: "vendor".into(),
            ..Default::default()
        };
        let Saved::Rewritten { why } = save(&asset, &path).unwrap() else {
            panic!("not rewritten");
        };
        assert!(why.contains("not a readable Excel workbook"), "{why}");
        assert_eq!(read_back(&path), asset);
        let fresh = dir.path().join("new.xlsx");
        assert_eq!(save(&asset, &fresh).unwrap(), Saved::Created);
        assert_eq!(read_back(&fresh), asset);
    }

    #[test]
    fn a_value_for_a_column_the_sheet_lacks_rewrites_it_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vendor.xlsx");
        styled(&path);
        let mut asset = read_back(&path);
        asset.rules[0].add = "sold(X)".into();
        let Saved::Rewritten { why } = save(&asset, &path).unwrap() else {
            panic!("not rewritten");
        };
        assert!(why.contains("no `Add` column"), "{why}");
        assert_eq!(read_back(&path), asset);
    }

    #[test]
    fn a_save_that_fails_leaves_the_file_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vendor.xlsx");
        styled(&path);
        let bytes = std::fs::read(&path).unwrap();
        let mut asset = read_back(&path);
        asset.rules[0].precondition = "p(X), ".repeat(6000);
        let e = save(&asset, &path).unwrap_err();
        assert!(e.to_string().starts_with("sheet `Rules`, cell D2:"), "{e}");
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
    }
}
