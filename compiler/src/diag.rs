//! Diagnostics: every problem the compiler finds, with a stable code, a location and related
//! locations. Rendered for people (source snippets, via codespan-reporting) and as the JSON
//! document fixed in DESIGN.md. Codes are listed with examples in docs/diagnostics.md.

pub mod allow;
mod ci;
mod shown;
pub use ci::SARIF_SCHEMA;
pub use shown::{LONGEST_QUOTED_LINE, SHOWN_PER_FILE_AND_CODE};

use crate::source::{SourceMap, Span};
use codespan_reporting::diagnostic as cs;
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term;
use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

/// Declares [`Code`] with its stable name, once per code, so the name table and the list of
/// every code cannot drift apart.
macro_rules! codes {
    ($($(#[$doc:meta])* $code:ident => $name:literal,)*) => {
        /// Stable diagnostic codes. Their kebab-case names are a contract: never rename one.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Code {
            $($(#[$doc])* $code,)*
        }

        impl Code {
            /// Every code, in declaration order.
            pub const ALL: &[Code] = &[$(Code::$code),*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$code => $name,)*
                }
            }
        }
    };
}

codes! {
    Syntax => "syntax",
    UnknownReference => "unknown-reference",
    DuplicateName => "duplicate-name",
    UnreachableState => "unreachable-state",
    NoInitialState => "no-initial-state",
    DeadEndState => "dead-end-state",
    RecursiveMachine => "recursive-machine",
    ModifierMismatch => "modifier-mismatch",
    UnknownEvent => "unknown-event",
    UnknownAsset => "unknown-asset",
    InvalidValue => "invalid-value",
    UnknownColumn => "unknown-column",
    MissingColumn => "missing-column",
    DeletionNeverMatches => "deletion-never-matches",
    UninstantiatedVariable => "uninstantiated-variable",
    UnsafeNegation => "unsafe-negation",
    UnexecutableRule => "unexecutable-rule",
    ArityMismatch => "arity-mismatch",
    NeverProduced => "never-produced",
    BadCardinality => "bad-cardinality",
    UnknownRole => "unknown-role",
    UnboundSentenceVariable => "unbound-sentence-variable",
    TransitionNotNormalized => "transition-not-normalized",
    ArbitrationCycle => "arbitration-cycle",
    UnreachableGoal => "unreachable-goal",
    StateLimitExceeded => "state-limit-exceeded",
    UnsupportedFeature => "unsupported-feature",
    NoCandidate => "no-candidate",
    UnknownCandidate => "unknown-candidate",
    /// A judged sentence state none of whose spoken lines is judged any more.
    UnjudgedSpokenSet => "unjudged-spoken-set",
    SwappedArguments => "swapped-arguments",
    OutOfVocabulary => "out-of-vocabulary",
    TransactionOutsideConversation => "transaction-outside-conversation",
    NgramDatabase => "ngram-database",
    DefinitionCycle => "definition-cycle",
    RepeatingAction => "repeating-action",
    TemplateHole => "template-hole",
    IncompleteDependency => "incomplete-dependency",
    /// A location that does not stand on the navigation graph.
    LocationOffGraph => "location-off-graph",
    /// Locations on separate parts of the navigation graph.
    DisconnectedLocation => "disconnected-location",
    /// A map, road graph or coordinate file a navigation graph names is unreadable or wrong.
    NavSource => "nav-source",
    /// A space with actions, or an accumulator, that no conversation's output reaches.
    NeverArbitrated => "never-arbitrated",
    /// Input past a size the compiler bounds (nesting, literals, variables, ground actions,
    /// grounding time): refused where it is, instead of exhausting memory or the stack.
    LimitExceeded => "limit-exceeded",
    /// Two lines with one id (a pinned id taken twice, or taken by another line's).
    DuplicateLineId => "duplicate-line-id",
    /// A declared locale does not translate a line.
    MissingTranslation => "missing-translation",
    /// A translation made from a source text that has changed since.
    StaleTranslation => "stale-translation",
    /// A translation that drops or invents a `{Slot}` of its line.
    SlotMismatch => "slot-mismatch",
    /// A translation of a line the project no longer has, or a table of an undeclared locale.
    UnknownLine => "unknown-line",
    /// A line's voice-over file is missing from the project's audio folder.
    MissingAudio => "missing-audio",
    /// A pattern's alternatives written as phrases (`light the|light a`): alternatives are
    /// single words, so the pattern means a sequence nobody types.
    PhraseAlternative => "phrase-alternative",
    /// A negated match among the alternatives of a `Max([...])` or `Or([...])`: true wherever
    /// its words are absent, so the whole list holds for almost every line.
    NegatedAlternative => "negated-alternative",
    /// A negated one-word match (`Not(Match("unfair|fairly"))`) with a word of the same stem as
    /// a word the same `And` requires (`fair`): words compare by stem, so it rejects every line
    /// the required word finds.
    NegatedStem => "negated-stem",
    Internal => "internal",
}

impl Code {
    /// The code named `name` (`unused-state` style), as written in an `allow(...)` comment.
    pub fn named(name: &str) -> Option<Code> {
        Code::ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

/// The closest candidate to `name`, if one is close enough to be a likely typo.
pub fn suggest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != name)
        .map(|c| {
            let d = if c.eq_ignore_ascii_case(name) {
                0
            } else {
                // Swapped neighbours (`idel` for `idle`) count as one edit: the commonest slip.
                strsim::osa_distance(name, c)
            };
            (d, c)
        })
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// Adds a "did you mean" note when a candidate is close to `name`.
pub fn suggest_note<'a>(
    d: Diagnostic,
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    match suggest(name, candidates) {
        Some(s) => d.did_you_mean(name, s),
        None => d,
    }
}

/// `fix` with its span narrowed to the misspelt name inside it, if the name is there.
fn narrow(fix: Fix, sources: &SourceMap) -> Option<Fix> {
    let text = sources.get(fix.span.file).text.get(fix.span.range())?;
    // A quoted occurrence is the name itself, not a longer word that contains it.
    let quoted = text.find(&format!("\"{}\"", fix.was)).map(|i| i + 1);
    let at = fix.span.start as usize + quoted.or_else(|| text.find(&fix.was))?;
    Some(Fix {
        span: Span::new(fix.span.file, at..at + fix.was.len()),
        ..fix
    })
}

/// Sort key of a cell reference such as `D7`: row first, then column.
fn cell_order(cell: &str) -> (u32, u32) {
    let split = cell
        .find(|c: char| c.is_ascii_digit())
        .unwrap_or(cell.len());
    let col = cell[..split].bytes().fold(0u32, |acc, b| {
        acc * 26 + (b.to_ascii_uppercase() - b'A' + 1) as u32
    });
    (cell[split..].parse().unwrap_or(0), col)
}

/// A location with a message: the primary label of a diagnostic, or a related one.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A machine-applicable repair: replace the text at `span` (which reads `was`) by
/// `replacement`. Made for "did you mean" suggestions; an editor applies it in one click.
#[derive(Clone, Debug, PartialEq)]
pub struct Fix {
    pub span: Span,
    pub was: String,
    pub replacement: String,
}

/// A related location in a workbook: a sheet and a cell (`D7`) rather than a span.
#[derive(Clone, Debug, PartialEq)]
pub struct CellLabel {
    pub file: crate::source::FileId,
    pub sheet: String,
    pub cell: String,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// The file, for diagnostics located by sheet and cell rather than by span.
    pub file: Option<crate::source::FileId>,
    pub code: Code,
    pub message: String,
    pub primary: Option<Label>,
    pub related: Vec<Label>,
    /// Related workbook cells; they go in the JSON `related` list beside the spans.
    pub related_cells: Vec<CellLabel>,
    /// Extra advice ("did you mean ...").
    pub notes: Vec<String>,
    /// For workbook sources: the sheet and cell (`D7`).
    pub sheet: Option<String>,
    pub cell: Option<String>,
    /// The suggested repair, when there is exactly one (see [`Diagnostic::did_you_mean`]).
    pub fix: Option<Fix>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: Code, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            file: None,
            code,
            message: message.into(),
            primary: None,
            related: Vec::new(),
            related_cells: Vec::new(),
            notes: Vec::new(),
            sheet: None,
            cell: None,
            fix: None,
        }
    }

    pub fn error(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }

    pub fn warning(code: Code, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }

    pub fn at(mut self, span: Span, label: impl Into<String>) -> Self {
        self.primary = Some(Label {
            span,
            message: label.into(),
        });
        self
    }

    pub fn related(mut self, span: Span, label: impl Into<String>) -> Self {
        self.related.push(Label {
            span,
            message: label.into(),
        });
        self
    }

    /// A related location at a workbook cell (`sheet`, `cell` such as `D7`).
    pub fn related_cell(
        mut self,
        file: crate::source::FileId,
        sheet: &str,
        cell: &str,
        label: impl Into<String>,
    ) -> Self {
        self.related_cells.push(CellLabel {
            file,
            sheet: sheet.to_string(),
            cell: cell.to_string(),
            message: label.into(),
        });
        self
    }

    /// Locates the diagnostic at a workbook cell (`sheet`, `cell` such as `D7`).
    pub fn in_cell(mut self, file: crate::source::FileId, sheet: &str, cell: &str) -> Self {
        self.file = Some(file);
        self.sheet = Some(sheet.to_string());
        self.cell = Some(cell.to_string());
        self
    }

    /// The file this diagnostic is about, from its primary label or its cell.
    pub fn file_id(&self) -> Option<crate::source::FileId> {
        self.primary.as_ref().map(|l| l.span.file).or(self.file)
    }

    pub fn note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// Suggests `suggestion` for the misspelt `name`: a note, and a [`Fix`] replacing `name`
    /// where the primary label points (narrowed to the name itself by [`Diagnostics::settle`]).
    pub fn did_you_mean(mut self, name: &str, suggestion: &str) -> Self {
        if let Some(l) = &self.primary {
            self.fix = Some(Fix {
                span: l.span,
                was: name.to_string(),
                replacement: suggestion.to_string(),
            });
        }
        self.note(format!("did you mean `{suggestion}`?"))
    }
}

/// How the message of a `syntax` error starts when a whole file could not be read.
pub const UNREADABLE: &str = "cannot read ";

/// How a translation of a line the project does not have ends: while some file is unreadable
/// such a line may only be unread, so these are quieted like unknown references.
pub const NO_SUCH_LINE: &str = ", which the project no longer has";

/// All diagnostics of one compilation, in the order found.
#[derive(Clone, Debug, Default)]
pub struct Diagnostics {
    items: Vec<Diagnostic>,
}

#[derive(Serialize)]
struct JsonLocation<'a> {
    message: &'a str,
    file: &'a str,
    line: Option<usize>,
    column: Option<usize>,
    sheet: Option<&'a str>,
    cell: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    severity: Severity,
    code: &'static str,
    message: &'a str,
    file: Option<&'a str>,
    line: Option<usize>,
    column: Option<usize>,
    sheet: Option<&'a str>,
    cell: Option<&'a str>,
    related: Vec<JsonLocation<'a>>,
    notes: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    fix: Option<JsonFix<'a>>,
}

/// A [`Fix`] in JSON: replace `[start, end)` (bytes; `line`/`column` to `end_line`/`end_column`,
/// 1-based) of `file`, which reads `was`, by `replacement`.
#[derive(Serialize)]
struct JsonFix<'a> {
    file: &'a str,
    start: u32,
    end: u32,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    was: &'a str,
    replacement: &'a str,
}

#[derive(Serialize)]
struct JsonSummary {
    errors: usize,
    warnings: usize,
}

#[derive(Serialize)]
struct JsonDocument<'a> {
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: JsonSummary,
}

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.items.push(d);
    }

    /// The last step of a compilation, once every diagnostic is in: narrows each fix to the
    /// exact text it replaces (dropping one whose name is not there), and drops the warnings
    /// an `allow(code)` comment in the source marks as intended ([`allow`]), warning about
    /// codes such a comment misspells.
    pub fn settle(&mut self, sources: &SourceMap) {
        for d in &mut self.items {
            d.fix = d.fix.take().and_then(|f| narrow(f, sources));
        }
        let mut unknown = Vec::new();
        let allowances: Vec<Vec<allow::Allowance>> = sources
            .iter()
            .map(|(id, f)| {
                let found = allow::find(&f.text);
                for a in &found {
                    for (name, range) in &a.codes {
                        if Code::named(name).is_none() {
                            unknown.push(allow::unknown_code(Span::new(id, range.clone()), name));
                        }
                    }
                }
                found
            })
            .collect();
        self.items.retain(|d| {
            let Some(l) = d.primary.as_ref().filter(|_| d.severity != Severity::Error) else {
                return true;
            };
            !allowances[l.span.file.0 as usize]
                .iter()
                .any(|a| a.silences(d.code, l.span.start as usize))
        });
        self.items.extend(unknown);
    }

    /// A file that cannot be read defines nothing, so every name it defines is unknown wherever
    /// it is used: one missing parenthesis in the evidence file made 400 `unknown-reference`
    /// errors that hid the one that mattered, and one in the concepts file 1,063 warnings that
    /// a translated property is no line of the project. While some file is unreadable, neither
    /// is listed (the build fails on the read error anyway); the read error says how many were
    /// left out, so nothing is hidden silently.
    pub fn quiet_unknowns_while_unreadable(&mut self) {
        let unreadable =
            |d: &Diagnostic| d.code == Code::Syntax && d.message.starts_with(UNREADABLE);
        if !self.items.iter().any(unreadable) {
            return;
        }
        let (mut references, mut lines) = (0, 0);
        self.items.retain(|d| {
            if d.code == Code::UnknownReference {
                references += 1;
            } else if d.code == Code::UnknownLine && d.message.ends_with(NO_SUCH_LINE) {
                lines += 1;
            } else {
                return true;
            }
            false
        });
        let mut left_out = Vec::new();
        if references > 0 {
            left_out.push(format!(
                "{references} unknown reference{} not listed",
                if references == 1 { " is" } else { "s are" }
            ));
        }
        if lines > 0 {
            left_out.push(format!(
                "{lines} translation{} of lines not found {} not listed",
                if lines == 1 { "" } else { "s" },
                if lines == 1 { "is" } else { "are" }
            ));
        }
        if !left_out.is_empty()
            && let Some(first) = self.items.iter_mut().find(|d| unreadable(d))
        {
            first.notes.push(format!(
                "{}: what an unreadable file defines is unknown until it reads; fix this first \
                 and check again",
                left_out.join("; ")
            ));
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.items.iter()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.items.iter().filter(|d| d.severity == severity).count()
    }

    pub fn has_errors(&self) -> bool {
        self.count(Severity::Error) > 0
    }

    /// Sorted by file, then position, then code: output that does not depend on discovery order.
    pub fn sorted(&self, sources: &SourceMap) -> Vec<&Diagnostic> {
        let mut v: Vec<&Diagnostic> = self.items.iter().collect();
        v.sort_by_key(|d| {
            let file = d.file_id().map(|f| sources.get(f).name.clone());
            let start = d.primary.as_ref().map(|l| l.span.start);
            (
                file,
                start,
                d.sheet.clone(),
                d.cell.as_deref().map(cell_order),
                d.code.as_str(),
                d.message.clone(),
            )
        });
        v
    }

    /// The JSON document of DESIGN.md: `{"diagnostics":[...],"summary":{...}}`.
    pub fn to_json(&self, sources: &SourceMap) -> String {
        serde_json::to_string_pretty(&self.json_document(sources))
            .expect("diagnostics always serialise")
    }

    /// The same document on one line (for streams such as `ensemble watch --format json`).
    pub fn to_json_compact(&self, sources: &SourceMap) -> String {
        serde_json::to_string(&self.json_document(sources)).expect("diagnostics always serialise")
    }

    fn json_document<'a>(&'a self, sources: &'a SourceMap) -> JsonDocument<'a> {
        let location = |l: &'_ Label| -> (usize, usize) { sources.line_col(l.span) };
        let diagnostics = self
            .sorted(sources)
            .into_iter()
            .map(|d| {
                let (line, column) = match &d.primary {
                    Some(l) => {
                        let (a, b) = location(l);
                        (Some(a), Some(b))
                    }
                    None => (None, None),
                };
                JsonDiagnostic {
                    severity: d.severity,
                    code: d.code.as_str(),
                    message: &d.message,
                    file: d
                        .primary
                        .as_ref()
                        .map(|l| l.span.file)
                        .or(d.file)
                        .map(|f| sources.get(f).name.as_str()),
                    line,
                    column,
                    sheet: d.sheet.as_deref(),
                    cell: d.cell.as_deref(),
                    related: d
                        .related
                        .iter()
                        .map(|l| {
                            let (line, column) = location(l);
                            JsonLocation {
                                message: &l.message,
                                file: &sources.get(l.span.file).name,
                                line: Some(line),
                                column: Some(column),
                                sheet: None,
                                cell: None,
                            }
                        })
                        .chain(d.related_cells.iter().map(|c| JsonLocation {
                            message: &c.message,
                            file: &sources.get(c.file).name,
                            line: None,
                            column: None,
                            sheet: Some(&c.sheet),
                            cell: Some(&c.cell),
                        }))
                        .collect(),
                    notes: &d.notes,
                    fix: d.fix.as_ref().map(|f| {
                        let file = sources.get(f.span.file);
                        let (line, column) = file.line_col(f.span.start as usize);
                        let (end_line, end_column) = file.line_col(f.span.end as usize);
                        JsonFix {
                            file: &file.name,
                            start: f.span.start,
                            end: f.span.end,
                            line,
                            column,
                            end_line,
                            end_column,
                            was: &f.was,
                            replacement: &f.replacement,
                        }
                    }),
                }
            })
            .collect();
        JsonDocument {
            diagnostics,
            summary: JsonSummary {
                errors: self.count(Severity::Error),
                warnings: self.count(Severity::Warning),
            },
        }
    }

    /// Human-readable rendering with source snippets. `color` adds ANSI colours.
    pub fn render(&self, sources: &SourceMap, color: bool) -> String {
        let mut files = SimpleFiles::new();
        for (_, f) in sources.iter() {
            files.add(f.name.clone(), f.text.as_str());
        }
        let config = term::Config::default();
        let mut buffer = if color {
            term::termcolor::Buffer::ansi()
        } else {
            term::termcolor::Buffer::no_color()
        };
        let mut cap = shown::Cap::default();
        for d in self.sorted(sources) {
            if !cap.admit(d, sources) {
                continue;
            }
            let severity = match d.severity {
                Severity::Error => cs::Severity::Error,
                Severity::Warning => cs::Severity::Warning,
                Severity::Info => cs::Severity::Note,
            };
            let mut labels = Vec::new();
            let mut elided = Vec::new();
            if let Some(l) = &d.primary {
                match shown::elided(l, sources) {
                    Some(note) => elided.push(note),
                    None => labels.push(
                        cs::Label::primary(l.span.file.0 as usize, l.span.range())
                            .with_message(&l.message),
                    ),
                }
            }
            for l in &d.related {
                match shown::elided(l, sources) {
                    Some(note) => elided.push(note),
                    None => labels.push(
                        cs::Label::secondary(l.span.file.0 as usize, l.span.range())
                            .with_message(&l.message),
                    ),
                }
            }
            let mut notes = elided;
            notes.extend(d.notes.iter().cloned());
            // Where related cells go: after the note that says where the diagnostic is.
            let mut at = 0;
            if let (Some(sheet), Some(cell)) = (&d.sheet, &d.cell) {
                at = 1;
                let file = d
                    .file_id()
                    .map(|f| sources.get(f).name.as_str())
                    .unwrap_or("?");
                notes.insert(0, format!("in {file}, sheet `{sheet}`, cell {cell}"));
            } else if d.primary.is_none() {
                // Without a span codespan prints no file name; a whole-file problem (not a
                // workbook, unreadable) must still say which file it is about.
                if let Some(f) = d.file_id() {
                    notes.insert(0, format!("in {}", sources.get(f).name));
                    at = 1;
                }
            }
            // Related cells have no span to draw: they are said in words.
            let related = d.related_cells.iter().map(|c| {
                format!(
                    "{}: {}, sheet `{}`, cell {}",
                    c.message,
                    sources.get(c.file).name,
                    c.sheet,
                    c.cell
                )
            });
            notes.splice(at..at, related);
            let diagnostic = cs::Diagnostic::new(severity)
                .with_code(d.code.as_str())
                .with_message(&d.message)
                .with_labels(labels)
                .with_notes(notes);
            // Rendering only fails when a span is outside its file, which would be a compiler
            // bug; fall back to the bare message rather than losing the diagnostic.
            if term::emit_to_write_style(&mut buffer, &config, &files, &diagnostic).is_err() {
                use std::io::Write;
                let _ = writeln!(
                    buffer,
                    "{}[{}]: {}",
                    match d.severity {
                        Severity::Error => "error",
                        Severity::Warning => "warning",
                        Severity::Info => "note",
                    },
                    d.code.as_str(),
                    d.message
                );
            }
        }
        let mut text = String::from_utf8_lossy(buffer.as_slice()).into_owned();
        text.push_str(&cap.summary());
        text
    }

    /// `N errors, M warnings`.
    pub fn summary(&self) -> String {
        let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
        format!(
            "{}, {}",
            plural(self.count(Severity::Error), "error"),
            plural(self.count(Severity::Warning), "warning")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    #[test]
    fn suggestions_count_a_swapped_pair_as_one_edit() {
        assert_eq!(suggest("idel", ["idle", "resting"]), Some("idle"));
        assert_eq!(suggest("restng", ["idle", "resting"]), Some("resting"));
        assert_eq!(suggest("dancing", ["idle", "resting"]), None);
    }

    #[test]
    fn related_cells_go_in_the_json_related_list() {
        let mut sources = SourceMap::default();
        let file = sources.add(SourceFile::new(
            "t.xlsx".into(),
            "t.xlsx".into(),
            String::new(),
        ));
        let mut diagnostics = Diagnostics::default();
        diagnostics.push(
            Diagnostic::error(Code::DuplicateName, "role `guest` is defined twice")
                .in_cell(file, "Roles", "A3")
                .related_cell(file, "Roles", "A2", "first defined here"),
        );
        let doc: serde_json::Value = serde_json::from_str(&diagnostics.to_json(&sources)).unwrap();
        let related = &doc["diagnostics"][0]["related"][0];
        assert_eq!(related["sheet"], "Roles");
        assert_eq!(related["cell"], "A2");
        assert_eq!(related["file"], "t.xlsx");
        assert!(related["line"].is_null() && related["column"].is_null());
        let text = diagnostics.render(&sources, false);
        assert!(
            text.contains("first defined here: t.xlsx, sheet `Roles`, cell A2"),
            "{text}"
        );
    }

    #[test]
    fn a_whole_file_diagnostic_names_its_file() {
        let mut sources = SourceMap::default();
        let file = sources.add(SourceFile::new(
            "shops/broken.xlsx".into(),
            "broken.xlsx".into(),
            String::new(),
        ));
        let mut diagnostics = Diagnostics::default();
        let mut d = Diagnostic::error(Code::Syntax, "not a readable Excel workbook");
        d.file = Some(file);
        diagnostics.push(d);
        let text = diagnostics.render(&sources, false);
        assert!(
            text.contains("error[syntax]: not a readable Excel workbook"),
            "{text}"
        );
        assert!(text.contains("in shops/broken.xlsx"), "{text}");
    }
}
