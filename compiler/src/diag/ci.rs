//! Diagnostics as continuous-integration tools read them (`ensemble check --format
//! sarif|github`): a SARIF 2.1.0 log for code scanning, and GitHub workflow annotations
//! (`::error file=…,line=…,col=…::message`). Paths are the project's files joined to the
//! path `check` was given, so they resolve from where CI ran the command.

use super::{Diagnostic, Diagnostics, Label, Severity};
use crate::source::{SourceMap, Span};
use serde_json::{Value, json};

/// The SARIF schema a log names (the OASIS standard's, as code-scanning tools expect).
pub const SARIF_SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// Where a label is: its start and end (1-based lines, 1-based columns in characters).
fn region(sources: &SourceMap, span: Span) -> (usize, usize, usize, usize) {
    let (line, col) = sources.line_col(span);
    let end = Span {
        start: span.end,
        ..span
    };
    let (end_line, end_col) = sources.line_col(end);
    // An empty span still covers one character, as editors underline it.
    let end_col = if (end_line, end_col) == (line, col) {
        col + 1
    } else {
        end_col
    };
    (line, col, end_line, end_col)
}

/// A path as a URI reference: `/`-separated, with what a URI cannot hold percent-encoded.
fn uri(path: &str) -> String {
    let mut s = String::with_capacity(path.len());
    for b in path.replace('\\', "/").bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                s.push(b as char)
            }
            _ => s.push_str(&format!("%{b:02X}")),
        }
    }
    s
}

/// `prefix/name`, or `name` alone when `prefix` is empty or `.`.
fn joined(prefix: &str, name: &str) -> String {
    let prefix = prefix.trim_end_matches(['/', '\\']);
    if prefix.is_empty() || prefix == "." {
        name.to_string()
    } else {
        format!("{prefix}/{name}")
    }
}

/// The message with its notes, as one text.
/// The file a diagnostic is in: its primary location's, else the file it names.
fn file_name<'s>(d: &Diagnostic, sources: &'s SourceMap) -> Option<&'s str> {
    d.primary
        .as_ref()
        .map(|l| l.span.file)
        .or(d.file)
        .map(|f| sources.get(f).name.as_str())
}

fn full_message(d: &Diagnostic) -> String {
    let mut text = d.message.clone();
    for n in &d.notes {
        text.push_str(" (");
        text.push_str(n);
        text.push(')');
    }
    text
}

impl Diagnostics {
    /// A SARIF 2.1.0 log of every diagnostic, with one rule per code used. `prefix` is the
    /// path `check` was given (a project folder, or the folder of a single file).
    pub fn to_sarif(&self, sources: &SourceMap, prefix: &str, version: &str) -> String {
        let sorted = self.sorted(sources);
        let mut codes: Vec<&str> = sorted.iter().map(|d| d.code.as_str()).collect();
        codes.sort_unstable();
        codes.dedup();
        let rules: Vec<Value> = codes
            .iter()
            .map(|code| {
                json!({
                    "id": code,
                    "name": code,
                    "shortDescription": {"text": format!("Ensemble diagnostic `{code}` (docs/diagnostics.md)")},
                })
            })
            .collect();
        let location = |file: &str, label: Option<&Label>| {
            let mut physical = json!({
                "artifactLocation": {"uri": uri(&joined(prefix, file))},
            });
            if let Some(l) = label {
                let (line, col, end_line, end_col) = region(sources, l.span);
                physical["region"] = json!({
                    "startLine": line,
                    "startColumn": col,
                    "endLine": end_line,
                    "endColumn": end_col,
                });
            }
            json!({"physicalLocation": physical})
        };
        let results: Vec<Value> = sorted
            .iter()
            .map(|d| {
                let level = match d.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                    Severity::Info => "note",
                };
                let file = file_name(d, sources);
                let mut message = full_message(d);
                if let (Some(sheet), Some(cell)) = (&d.sheet, &d.cell) {
                    message = format!("{message} [{sheet}!{cell}]");
                }
                let mut result = json!({
                    "ruleId": d.code.as_str(),
                    "ruleIndex": codes.binary_search(&d.code.as_str()).unwrap_or(0),
                    "level": level,
                    "message": {"text": message},
                });
                if let Some(file) = file {
                    result["locations"] = json!([location(file, d.primary.as_ref())]);
                }
                let related: Vec<Value> = d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, l)| {
                        let mut r = location(&sources.get(l.span.file).name, Some(l));
                        r["id"] = json!(i);
                        r["message"] = json!({"text": l.message});
                        r
                    })
                    .collect();
                if !related.is_empty() {
                    result["relatedLocations"] = Value::Array(related);
                }
                if d.sheet.is_some() || d.cell.is_some() {
                    result["properties"] = json!({"sheet": d.sheet, "cell": d.cell});
                }
                result
            })
            .collect();
        let log = json!({
            "$schema": SARIF_SCHEMA,
            "version": "2.1.0",
            "runs": [{
                "tool": {"driver": {
                    "name": "ensemble",
                    "version": version,
                    "rules": rules,
                }},
                "results": results,
            }],
        });
        let mut text = serde_json::to_string_pretty(&log).unwrap_or_default();
        text.push('\n');
        text
    }

    /// One GitHub workflow annotation per diagnostic:
    /// `::error file=P,line=L,col=C,endLine=…,endColumn=…,title=CODE::MESSAGE`; a workbook's
    /// sheet and cell go in the title (`unknown-role (Rules!C4)`).
    pub fn to_github(&self, sources: &SourceMap, prefix: &str) -> String {
        let mut out = String::new();
        for d in self.sorted(sources) {
            let command = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Info => "notice",
            };
            let mut properties = Vec::new();
            let file = file_name(d, sources);
            if let Some(file) = file {
                properties.push(format!("file={}", property(&joined(prefix, file))));
            }
            if let Some(l) = &d.primary {
                let (line, col, end_line, end_col) = region(sources, l.span);
                properties.push(format!("line={line},col={col}"));
                properties.push(format!("endLine={end_line},endColumn={end_col}"));
            }
            let title = match (&d.sheet, &d.cell) {
                (Some(sheet), Some(cell)) => format!("{} ({sheet}!{cell})", d.code.as_str()),
                (Some(sheet), None) => format!("{} ({sheet})", d.code.as_str()),
                _ => d.code.as_str().to_string(),
            };
            properties.push(format!("title={}", property(&title)));
            out.push_str(&format!(
                "::{command} {}::{}\n",
                properties.join(","),
                data(&full_message(d))
            ));
        }
        out
    }
}

/// A workflow command's message: `%`, CR and LF escaped.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: as [`data`], and `:` and `,` too.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_commands_escape_what_would_end_them() {
        assert_eq!(data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(property("a,b:c"), "a%2Cb%3Ac");
        assert_eq!(
            uri("my scripts/bench 1.xlsx"),
            "my%20scripts/bench%201.xlsx"
        );
        assert_eq!(joined("samples/airport/", "a.ron"), "samples/airport/a.ron");
        assert_eq!(joined(".", "a.ron"), "a.ron");
    }
}
