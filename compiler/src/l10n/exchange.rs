//! String tables out to translators and back (`ensemble strings export` / `import`): CSV,
//! Excel (one sheet per locale) and gettext PO. Export is deterministic (the same project gives
//! the same bytes); import reads any of the three into a locale's `*.strings.ron`.

use super::Line;
use crate::front::ron::{StringsAsset, TranslationAsset};
use crate::ir::strings::{LocaleTable, Strings};
use crate::source::SourceMap;
use std::collections::HashMap;
use std::path::Path;

/// The columns every export has, in order; import needs `id` and `translation` and reads
/// `source` and `status` when they are there.
pub const COLUMNS: [&str; 11] = [
    "id",
    "source",
    "translation",
    "context",
    "status",
    "speaker",
    "machine",
    "state",
    "slots",
    "kind",
    "audio",
];

/// Audio files a line's voice-over may be stored as (the export's `audio` column names the
/// first).
const AUDIO_EXTENSIONS: [&str; 5] = ["ogg", "wav", "opus", "mp3", "flac"];

/// A line's voice-over file, relative to a locale's audio folder: its id as a path.
pub fn audio_file(id: &str) -> String {
    format!("{id}.{}", AUDIO_EXTENSIONS[0])
}

/// Whether `dir` holds a voice-over file for line `id`, in any of the accepted formats.
pub fn audio_exists(dir: &Path, id: &str) -> bool {
    AUDIO_EXTENSIONS
        .iter()
        .any(|ext| dir.join(format!("{id}.{ext}")).is_file())
}

/// Where a line stands in a locale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Exported without a locale: nothing to compare with.
    New,
    Missing,
    Translated,
    /// Translated from a source text that has changed since.
    Stale,
    /// The translation drops or invents a `{Slot}` (`check` fails on it).
    SlotMismatch,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::New => "new",
            Status::Missing => "missing",
            Status::Translated => "translated",
            Status::Stale => "stale",
            Status::SlotMismatch => "slot-mismatch",
        }
    }
}

/// One line as a translator of one locale sees it.
pub struct Row<'a> {
    pub line: &'a Line,
    pub translation: String,
    pub status: Status,
}

impl Row<'_> {
    /// The row's cells, in [`COLUMNS`] order.
    pub fn cells(&self) -> [String; 11] {
        let l = self.line;
        [
            l.id.clone(),
            l.source.clone(),
            self.translation.clone(),
            l.note.clone(),
            self.status.as_str().to_string(),
            l.speakers.join(" "),
            l.machine.clone(),
            l.state.clone(),
            l.slots
                .iter()
                .map(|s| format!("{{{s}}}"))
                .collect::<Vec<_>>()
                .join(" "),
            l.kind.as_str().to_string(),
            audio_file(&l.id),
        ]
    }
}

/// Every line with its translation and status in `locale` (none: status `new`; a locale
/// without a table: every line `missing`).
pub fn rows<'a>(lines: &'a [Line], strings: &Strings, locale: Option<&str>) -> Vec<Row<'a>> {
    let entries: HashMap<&str, (&str, &str)> = locale
        .and_then(|l| table(strings, l))
        .map(|t| {
            t.entries
                .iter()
                .map(|e| (e.id.text.as_str(), (e.source.as_str(), e.text.as_str())))
                .collect()
        })
        .unwrap_or_default();
    lines
        .iter()
        .map(|line| {
            let (translation, status) = match (locale, entries.get(line.id.as_str())) {
                (None, _) => (String::new(), Status::New),
                (Some(_), Some((source, text))) if !text.trim().is_empty() => {
                    let status = if line.slots_in(text).as_ref() != Ok(&line.slots) {
                        Status::SlotMismatch
                    } else if *source != line.source {
                        Status::Stale
                    } else {
                        Status::Translated
                    };
                    (text.to_string(), status)
                }
                (Some(_), _) => (String::new(), Status::Missing),
            };
            Row {
                line,
                translation,
                status,
            }
        })
        .collect()
}

/// The table of `locale` in the project, if it has one.
pub fn table<'s>(strings: &'s Strings, locale: &str) -> Option<&'s LocaleTable> {
    strings.tables.iter().find(|t| t.locale.text == locale)
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// CSV (RFC 4180, UTF-8, CRLF-free): the [`COLUMNS`] header, one row per line.
pub fn to_csv(rows: &[Row<'_>]) -> String {
    let mut out = COLUMNS.join(",");
    out.push('\n');
    for row in rows {
        let cells = row.cells();
        let fields: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        out.push_str(&fields.join(","));
        out.push('\n');
    }
    out
}

fn po_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// What marks a file as written by `ensemble strings export`: the comment of a workbook's
/// document properties, and the second comment line of a PO file.
pub const EXPORT_MARK: &str = "Written by `ensemble strings export`";

/// Whether the file at `path` was written by `ensemble strings export` (so an export may
/// replace it): a workbook whose properties carry [`EXPORT_MARK`], a CSV file whose first line
/// is the [`COLUMNS`] header, a PO file that says it was. Reads a few KiB at most, never the
/// whole file: a file of any size (or a zip bomb) is judged as quickly.
pub fn written_by_export(path: &Path) -> bool {
    use std::io::Read;
    const HEAD: u64 = 4096;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let head = |r: &mut dyn Read, limit: u64| {
        let mut bytes = Vec::new();
        r.take(limit).read_to_end(&mut bytes).ok().map(|_| bytes)
    };
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "xlsx" => {
            let Ok(mut zip) = zip::ZipArchive::new(std::io::BufReader::new(file)) else {
                return false;
            };
            let Ok(mut core) = zip.by_name("docProps/core.xml") else {
                return false;
            };
            head(&mut core, 64 * 1024)
                .is_some_and(|b| String::from_utf8_lossy(&b).contains(&xml_escaped(EXPORT_MARK)))
        }
        "csv" => head(&mut { file }, HEAD).is_some_and(|b| {
            let text = String::from_utf8_lossy(&b);
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            text.lines().next() == Some(COLUMNS.join(",").as_str())
        }),
        "po" | "pot" => head(&mut { file }, HEAD).is_some_and(|b| {
            String::from_utf8_lossy(&b)
                .lines()
                .take(4)
                .any(|l| l.starts_with(&format!("# {EXPORT_MARK}")))
        }),
        _ => false,
    }
}

/// `text` as XML character data writes it.
fn xml_escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// gettext PO: `msgctxt` is the line's id, `#.` comments carry the context for translators,
/// `#:` where the line is written, `#, fuzzy` marks a stale translation.
pub fn to_po(
    rows: &[Row<'_>],
    sources: &SourceMap,
    project: &str,
    language: &str,
    locale: Option<&str>,
) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "# {project}: every line a player can see or hear.\n"
    ));
    out.push_str(&format!(
        "# {EXPORT_MARK}; read back by `ensemble strings import`.\n"
    ));
    out.push_str("msgid \"\"\nmsgstr \"\"\n");
    out.push_str("\"Content-Type: text/plain; charset=UTF-8\\n\"\n");
    out.push_str("\"Content-Transfer-Encoding: 8bit\\n\"\n");
    out.push_str(&format!("\"Project-Id-Version: {project}\\n\"\n"));
    if let Some(locale) = locale {
        out.push_str(&format!("\"Language: {locale}\\n\"\n"));
    }
    out.push_str(&format!("\"X-Source-Language: {language}\\n\"\n"));
    for row in rows {
        let l = row.line;
        out.push('\n');
        out.push_str(&format!("#. {}\n", l.note));
        if !l.speakers.is_empty() {
            out.push_str(&format!("#. said by: {}\n", l.speakers.join(", ")));
        }
        if !l.machine.is_empty() {
            out.push_str(&format!("#. state: {}/{}\n", l.machine, l.state));
        }
        if !l.slots.is_empty() {
            let slots: Vec<String> = l.slots.iter().map(|s| format!("{{{s}}}")).collect();
            out.push_str(&format!("#. keep the slots: {}\n", slots.join(" ")));
        }
        out.push_str(&format!("#. audio: {}\n", audio_file(&l.id)));
        let file = sources.get(l.span.file);
        let (line_no, _) = file.line_col(l.span.start as usize);
        out.push_str(&format!("#: {}:{}\n", file.name, line_no));
        if matches!(row.status, Status::Stale | Status::SlotMismatch) {
            out.push_str("#, fuzzy\n");
        }
        out.push_str(&format!("msgctxt {}\n", po_string(&l.id)));
        out.push_str(&format!("msgid {}\n", po_string(&l.source)));
        out.push_str(&format!("msgstr {}\n", po_string(&row.translation)));
    }
    out
}

/// The Excel workbook: one sheet per locale (named after it), the [`COLUMNS`] with widths set,
/// the header frozen, long text wrapped, and every column but `translation` and `status`
/// shaded and locked (the sheet is protected without a password, so a translator can still
/// unprotect it on purpose).
pub fn to_xlsx(sheets: &[(String, Vec<Row<'_>>)]) -> Result<Vec<u8>, String> {
    use rust_xlsxwriter::{Color, Format, FormatAlign, FormatBorder, ProtectionOptions, Workbook};
    let err = |e: rust_xlsxwriter::XlsxError| e.to_string();
    let mut wb = Workbook::new();
    wb.set_properties(
        &rust_xlsxwriter::DocProperties::new()
            .set_creation_datetime(&crate::script::xlsx_write::creation_datetime())
            .set_comment(EXPORT_MARK),
    );
    let header = Format::new()
        .set_bold()
        .set_font_color(Color::White)
        .set_background_color(Color::RGB(0x2F_4A_5E))
        .set_border_bottom(FormatBorder::Thin)
        .set_align(FormatAlign::Top);
    let locked = Format::new()
        .set_align(FormatAlign::Top)
        .set_text_wrap()
        .set_background_color(Color::RGB(0xEE_EE_EE))
        .set_font_color(Color::RGB(0x40_40_40));
    let open = Format::new()
        .set_align(FormatAlign::Top)
        .set_text_wrap()
        .set_unlocked()
        .set_border(FormatBorder::Thin)
        .set_border_color(Color::RGB(0xBB_BB_BB));
    // Source and translation side by side, wide; context readable; the rest narrow.
    let widths = [
        22.0, 45.0, 45.0, 40.0, 12.0, 16.0, 16.0, 16.0, 14.0, 11.0, 26.0,
    ];
    for (name, rows) in sheets {
        let ws = wb.add_worksheet();
        ws.set_name(sheet_name(name)).map_err(err)?;
        for (c, h) in COLUMNS.iter().enumerate() {
            ws.write_string_with_format(0, c as u16, *h, &header)
                .map_err(err)?;
            ws.set_column_width(c as u16, widths[c]).map_err(err)?;
        }
        for (i, row) in rows.iter().enumerate() {
            let r = i as u32 + 1;
            for (c, value) in row.cells().iter().enumerate() {
                let format = if c == 2 || c == 4 { &open } else { &locked };
                ws.write_string_with_format(r, c as u16, value, format)
                    .map_err(err)?;
            }
        }
        ws.set_freeze_panes(1, 1).map_err(err)?;
        ws.autofilter(0, 0, rows.len() as u32, COLUMNS.len() as u16 - 1)
            .map_err(err)?;
        let options = ProtectionOptions {
            format_columns: true,
            format_rows: true,
            use_autofilter: true,
            sort: true,
            ..ProtectionOptions::default()
        };
        ws.protect_with_options(&options);
    }
    wb.save_to_buffer().map_err(err)
}

/// Excel's sheet names are at most 31 characters and exclude `[]:*?/\`.
fn sheet_name(locale: &str) -> String {
    locale
        .chars()
        .map(|c| if "[]:*?/\\".contains(c) { '_' } else { c })
        .take(31)
        .collect()
}

/// A translation read from a translator's file.
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    pub id: String,
    /// The source text the translator saw, when the file has it.
    pub source: Option<String>,
    pub translation: String,
    /// The file still marks it as needing review (`#, fuzzy`, status `stale`).
    pub unreviewed: bool,
    /// Where it is in the file (`line 12`, `fr!C7`), for messages.
    pub at: String,
}

/// Reads a CSV file (RFC 4180; a UTF-8 byte-order mark is skipped).
pub fn read_csv(text: &str) -> Result<Vec<Imported>, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let records = parse_csv(text)?;
    let mut records = records.into_iter();
    let Some((_, header)) = records.next() else {
        return Err("the file is empty".into());
    };
    let cols = Columns::of(&header)?;
    let mut out = Vec::new();
    for (line, record) in records {
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        out.push(cols.read(&record, format!("line {line}"))?);
    }
    refuse_duplicates(&out)?;
    Ok(out)
}

/// A second row with an id is an error naming both rows: which one should win is the
/// translator's call, not the order of the rows.
fn refuse_duplicates(rows: &[Imported]) -> Result<(), String> {
    let mut first: std::collections::HashMap<&str, &str> = std::collections::HashMap::new();
    for r in rows {
        if let Some(at) = first.insert(&r.id, &r.at) {
            return Err(format!("{}: the id `{}` is also on {at}", r.at, r.id));
        }
    }
    Ok(())
}

/// Where the columns import reads are.
struct Columns {
    id: usize,
    source: Option<usize>,
    translation: usize,
    status: Option<usize>,
}

impl Columns {
    fn of(header: &[String]) -> Result<Self, String> {
        let find = |name: &str| {
            header
                .iter()
                .position(|h| h.trim().eq_ignore_ascii_case(name))
        };
        let need = |name: &str| {
            find(name).ok_or_else(|| {
                format!("no `{name}` column (the header has: {})", header.join(", "))
            })
        };
        Ok(Columns {
            id: need("id")?,
            source: find("source"),
            translation: need("translation")?,
            status: find("status"),
        })
    }

    fn read(&self, record: &[String], at: String) -> Result<Imported, String> {
        let cell = |i: usize| record.get(i).map(String::as_str).unwrap_or("");
        let id = cell(self.id).trim().to_string();
        if id.is_empty() {
            return Err(format!("{at}: a row without an id"));
        }
        Ok(Imported {
            id,
            source: self.source.map(|i| cell(i).to_string()),
            translation: cell(self.translation).to_string(),
            unreviewed: self
                .status
                .is_some_and(|i| matches!(cell(i).trim(), "stale" | "slot-mismatch")),
            at,
        })
    }
}

/// Records with the line each starts on.
fn parse_csv(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut records = Vec::new();
    let mut record = Vec::new();
    let mut field = String::new();
    let mut chars = text.chars().peekable();
    // Where the next character is (1-based); `\r\n`, `\n` and a lone `\r` each end a line.
    let (mut line, mut column) = (1, 1);
    let mut start = 1;
    // Where the open quoted field began.
    let mut opened = (0, 0);
    let mut quoted = false;
    let mut at_field_start = true;
    while let Some(c) = chars.next() {
        let here = (line, column);
        let ends_line = c == '\n' || (c == '\r' && chars.peek() != Some(&'\n'));
        if ends_line {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    column += 1;
                    field.push('"');
                }
                '"' => {
                    quoted = false;
                    // The field ends here: anything but a separator or a line end after the
                    // closing quote means a stray quote ran the field on across columns.
                    if let Some(&next) = chars.peek()
                        && !matches!(next, ',' | '\n' | '\r')
                    {
                        return Err(format!(
                            "line {}, column {}: a quote closes the quoted field opened at line \
                             {}, column {}, and `{next}` follows it: a stray quote? (a quote in a \
                             field is written `\"\"`, inside a field that is quoted whole)",
                            here.0, here.1, opened.0, opened.1
                        ));
                    }
                }
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if at_field_start => {
                quoted = true;
                opened = here;
                at_field_start = false;
            }
            '"' => {
                return Err(format!(
                    "line {}, column {}: a quote inside an unquoted field (quote the whole \
                     field and write the quote `\"\"`)",
                    here.0, here.1
                ));
            }
            ',' => {
                record.push(std::mem::take(&mut field));
                at_field_start = true;
            }
            '\r' if !ends_line => {}
            '\n' | '\r' => {
                record.push(std::mem::take(&mut field));
                records.push((start, std::mem::take(&mut record)));
                start = line;
                at_field_start = true;
            }
            c => {
                field.push(c);
                at_field_start = false;
            }
        }
    }
    if quoted {
        return Err(format!(
            "line {}, column {}: a quoted field is never closed",
            opened.0, opened.1
        ));
    }
    if !field.is_empty() || !record.is_empty() {
        record.push(field);
        records.push((start, record));
    }
    Ok(records)
}

/// Reads a PO file: `msgctxt` is the id, `msgid` the source, `msgstr` the translation.
pub fn read_po(text: &str) -> Result<Vec<Imported>, String> {
    #[derive(Default)]
    struct Entry {
        ctxt: Option<String>,
        id: Option<String>,
        string: Option<String>,
        fuzzy: bool,
        line: usize,
    }
    enum Field {
        Ctxt,
        Id,
        Str,
    }
    let mut out = Vec::new();
    let mut entry = Entry::default();
    let mut last: Option<Field> = None;
    let finish = |e: Entry, out: &mut Vec<Imported>| -> Result<(), String> {
        match (e.ctxt, e.id, e.string) {
            (Some(ctxt), Some(id), Some(string)) => out.push(Imported {
                id: ctxt,
                source: Some(id),
                translation: string,
                unreviewed: e.fuzzy,
                at: format!("line {}", e.line),
            }),
            // The header (no msgctxt, empty msgid) and obsolete entries carry no line.
            (None, _, _) => {}
            _ => return Err(format!("line {}: an entry without msgid or msgstr", e.line)),
        }
        Ok(())
    };
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let n = n + 1;
        if line.is_empty() {
            continue;
        }
        if let Some(flags) = line.strip_prefix("#,") {
            if entry.ctxt.is_some() || entry.id.is_some() {
                finish(std::mem::take(&mut entry), &mut out)?;
            }
            entry.fuzzy |= flags.split(',').any(|f| f.trim() == "fuzzy");
            continue;
        }
        if line.starts_with('#') {
            continue;
        }
        let (field, rest) = if let Some(r) = line.strip_prefix("msgctxt ") {
            (Some(Field::Ctxt), r)
        } else if let Some(r) = line.strip_prefix("msgid ") {
            (Some(Field::Id), r)
        } else if let Some(r) = line.strip_prefix("msgstr ") {
            (Some(Field::Str), r)
        } else if line.starts_with('"') {
            (None, line)
        } else {
            return Err(format!("line {n}: cannot read `{line}`"));
        };
        let value = unquote_po(rest).map_err(|e| format!("line {n}: {e}"))?;
        match field {
            Some(f) => {
                let starts_entry = matches!(f, Field::Ctxt)
                    || (matches!(f, Field::Id) && entry.ctxt.is_none() && entry.id.is_some());
                if starts_entry && (entry.ctxt.is_some() || entry.id.is_some()) {
                    finish(std::mem::take(&mut entry), &mut out)?;
                }
                if entry.line == 0 {
                    entry.line = n;
                }
                let slot = match f {
                    Field::Ctxt => &mut entry.ctxt,
                    Field::Id => &mut entry.id,
                    Field::Str => &mut entry.string,
                };
                *slot = Some(value);
                last = Some(f);
            }
            None => {
                let slot = match last {
                    Some(Field::Ctxt) => &mut entry.ctxt,
                    Some(Field::Id) => &mut entry.id,
                    Some(Field::Str) => &mut entry.string,
                    None => return Err(format!("line {n}: a string outside an entry")),
                };
                slot.get_or_insert_default().push_str(&value);
            }
        }
    }
    finish(entry, &mut out)?;
    refuse_duplicates(&out)?;
    Ok(out)
}

fn unquote_po(s: &str) -> Result<String, String> {
    let inner = s
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .ok_or_else(|| format!("expected a quoted string, found `{s}`"))?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some(other) => return Err(format!("unknown escape `\\{other}`")),
            None => return Err("a string ends in `\\`".into()),
        }
    }
    Ok(out)
}

/// Reads the sheet of `locale` from an Excel workbook (the only sheet, if it has just one).
pub fn read_xlsx(bytes: Vec<u8>, locale: &str) -> Result<Vec<Imported>, String> {
    use calamine::Reader;
    crate::script::xlsx::check_unpacked_size(&bytes)?;
    let mut wb = calamine::open_workbook_auto_from_rs(std::io::Cursor::new(bytes))
        .map_err(|e| format!("not a readable Excel workbook: {e}"))?;
    let names = wb.sheet_names();
    let sheet = names
        .iter()
        .find(|n| **n == sheet_name(locale))
        .or(if names.len() == 1 {
            names.first()
        } else {
            None
        })
        .cloned()
        .ok_or_else(|| {
            format!(
                "the workbook has no sheet `{locale}` (sheets: {})",
                names.join(", ")
            )
        })?;
    // Cell by cell, not as calamine's dense range: one cell at XFD100000 asked for 52 GB.
    let cells = crate::script::xlsx::used_cells(&mut wb, &sheet)
        .map_err(|e| format!("sheet `{sheet}`: {e}"))?;
    let left = cells
        .values()
        .filter_map(|row| row.keys().next())
        .min()
        .copied()
        .unwrap_or(0);
    let text_of = |row: &std::collections::BTreeMap<u32, calamine::Data>| -> Vec<String> {
        let width = row.keys().next_back().map_or(0, |&c| c + 1 - left);
        (0..width)
            .map(|c| {
                row.get(&(left + c))
                    .map(|d| d.to_string())
                    .unwrap_or_default()
            })
            .collect()
    };
    let mut rows = cells.iter();
    let (_, first) = rows
        .next()
        .ok_or_else(|| format!("sheet `{sheet}` is empty"))?;
    let header = text_of(first);
    let cols = Columns::of(&header).map_err(|e| format!("sheet `{sheet}`: {e}"))?;
    let mut out = Vec::new();
    for (row, cells) in rows {
        let record = text_of(cells);
        if record.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let at = format!("{sheet}!row {}", row + 1);
        out.push(cols.read(&record, at)?);
    }
    refuse_duplicates(&out)?;
    Ok(out)
}

/// What an import did.
#[derive(Debug, Default, PartialEq)]
pub struct Merged {
    pub table: Option<StringsAsset>,
    pub added: usize,
    pub changed: usize,
    pub unchanged: usize,
    /// Rows whose id the project does not have, with where they are.
    pub unknown: Vec<String>,
}

/// Merges imported translations into `existing` (the locale's table, if the project has one).
/// A row whose translation is unchanged and still marked for review keeps the source its
/// translation was made from (it stays stale); any other translated row records the source
/// the translator saw (the file's `source`, else the line's current text). Rows with an
/// empty translation leave the table alone. The result lists the project's lines in export
/// order, then translations of lines it no longer has (so `check` can point at them).
pub fn merge(
    lines: &[Line],
    existing: Option<&LocaleTable>,
    locale: &str,
    imported: Vec<Imported>,
) -> Merged {
    let mut merged = Merged::default();
    let mut entries: HashMap<String, TranslationAsset> = existing
        .map(|t| {
            t.entries
                .iter()
                .map(|e| {
                    (
                        e.id.text.clone(),
                        TranslationAsset {
                            id: e.id.text.clone(),
                            source: e.source.clone(),
                            text: e.text.clone(),
                        },
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let current: HashMap<&str, &Line> = lines.iter().map(|l| (l.id.as_str(), l)).collect();
    for row in imported {
        let Some(line) = current.get(row.id.as_str()) else {
            if !row.translation.trim().is_empty() {
                merged.unknown.push(format!("{} ({})", row.id, row.at));
            }
            continue;
        };
        if row.translation.trim().is_empty() {
            continue;
        }
        let before = entries.get(&row.id);
        let same_text = before.is_some_and(|b| b.text == row.translation);
        if same_text && row.unreviewed {
            merged.unchanged += 1;
            continue;
        }
        let source = row.source.unwrap_or_else(|| line.source.clone());
        let entry = TranslationAsset {
            id: row.id.clone(),
            source,
            text: row.translation,
        };
        match before {
            None => merged.added += 1,
            Some(b) if *b == entry => merged.unchanged += 1,
            Some(_) => merged.changed += 1,
        }
        entries.insert(row.id, entry);
    }
    let mut ordered: Vec<TranslationAsset> =
        lines.iter().filter_map(|l| entries.remove(&l.id)).collect();
    let mut rest: Vec<TranslationAsset> = entries.into_values().collect();
    rest.sort_by(|a, b| a.id.cmp(&b.id));
    ordered.extend(rest);
    merged.table = Some(StringsAsset {
        locale: locale.to_string(),
        lines: ordered,
    });
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_reads_quotes_commas_and_newlines() {
        let text =
            "\u{feff}id,source,translation\na/1,\"Hi, you\",\"Salut, \"\"toi\"\"\nici\"\nb,x,\n";
        let rows = read_csv(text).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].id, "a/1");
        assert_eq!(rows[0].source.as_deref(), Some("Hi, you"));
        assert_eq!(rows[0].translation, "Salut, \"toi\"\nici");
        assert_eq!(rows[1].at, "line 4");
        assert!(
            read_csv("id,source\nx,y\n")
                .unwrap_err()
                .contains("translation")
        );
        assert!(
            read_csv("id,translation\n\"open,x\n")
                .unwrap_err()
                .contains("never closed")
        );
    }

    #[test]
    fn po_reads_context_fuzzy_and_continuations() {
        let text = r#"msgid ""
msgstr ""
"Language: fr\n"

#. a note
#, fuzzy
msgctxt "A/1"
msgid "OK."
msgstr "D'acc"
"ord."

msgctxt "A/2"
msgid "Say \"hi\""
msgstr ""
"#;
        let rows = read_po(text).unwrap();
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!(rows[0].id, "A/1");
        assert_eq!(rows[0].translation, "D'accord.");
        assert!(rows[0].unreviewed);
        assert_eq!(rows[1].source.as_deref(), Some("Say \"hi\""));
        assert!(!rows[1].unreviewed);
        assert!(read_po("msgid \"x").is_err());
    }
}
