//! What the human renderer shows of a long list of diagnostics: a bounded number per file and
//! code (the rest are counted in an "and N more" line), and no snippet of a line too long to
//! quote (one 600 KB line quoted by 30,000 warnings ran out of memory). `--format json` still
//! lists every diagnostic.

use super::{Diagnostic, Label};
use crate::source::{FileId, SourceMap};
use std::collections::BTreeMap;

/// Diagnostics of one code shown per file; the rest are summarised.
pub const SHOWN_PER_FILE_AND_CODE: usize = 20;
/// Longest source line (in bytes) quoted in a snippet; a label on a longer line is given as a
/// location and a short excerpt instead.
pub const LONGEST_QUOTED_LINE: usize = 500;
/// Characters of a long line quoted around a label.
const EXCERPT: usize = 60;

/// Counts what was shown and what was left out, per file and code.
#[derive(Default)]
pub(super) struct Cap {
    shown: BTreeMap<(Option<FileId>, &'static str), usize>,
    left_out: BTreeMap<(Option<String>, &'static str), usize>,
}

impl Cap {
    /// Whether `d` is shown; counts it as left out otherwise.
    pub(super) fn admit(&mut self, d: &Diagnostic, sources: &SourceMap) -> bool {
        let file = d.file_id();
        let n = self.shown.entry((file, d.code.as_str())).or_default();
        if *n < SHOWN_PER_FILE_AND_CODE {
            *n += 1;
            return true;
        }
        let name = file.map(|f| sources.get(f).name.clone());
        *self.left_out.entry((name, d.code.as_str())).or_default() += 1;
        false
    }

    /// One line per file and code with diagnostics left out.
    pub(super) fn summary(&self) -> String {
        let mut out = String::new();
        for ((file, code), n) in &self.left_out {
            let place = file
                .as_deref()
                .map(|f| format!(" in {f}"))
                .unwrap_or_default();
            out.push_str(&format!(
                "... and {n} more [{code}] diagnostic{}{place} (not shown; `--format json` lists them all)\n",
                if *n == 1 { "" } else { "s" }
            ));
        }
        out
    }
}

/// For a label whose line is too long to quote: a note with its location, its message and a
/// short excerpt of the text it marks. `None` when the snippet can be shown.
pub(super) fn elided(label: &Label, sources: &SourceMap) -> Option<String> {
    let file = sources.get(label.span.file);
    let text = file.text.as_str();
    let range = label.span.range();
    let start = range.start.min(text.len());
    let end = range.end.clamp(start, text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    if line_end - line_start <= LONGEST_QUOTED_LINE {
        return None;
    }
    let (line, column) = sources.line_col(label.span);
    let mut cut = (start + EXCERPT).min(end.max(start + 1)).min(text.len());
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    let marked = &text[start..cut];
    let more = if cut < end { "…" } else { "" };
    Some(format!(
        "at {}:{line}:{column}: {} — `{marked}{more}` (a line of {} bytes, not quoted)",
        file.name,
        label.message,
        line_end - line_start
    ))
}
