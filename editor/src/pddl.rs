//! A PDDL text as the compiler's PDDL frontend reads it: what it defines and every problem, at
//! its line and column. The model's, so Find and the PDDL panel read it alike.

use ensemble_compiler::diag::{Diagnostics, Severity};
use ensemble_compiler::source::{SourceFile, SourceMap};

/// A problem the PDDL reader found: where (byte range, line, column) and what.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub range: std::ops::Range<usize>,
    pub line: usize,
    pub column: usize,
    pub severity: Severity,
    pub message: String,
}

/// What the compiler's PDDL frontend reads in a text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Checked {
    /// `(domain NAME)` (true) or `(problem NAME)`.
    pub header: Option<(bool, String)>,
    pub problems: Vec<Problem>,
    /// A domain's actions, each with the byte offset of its name (for Find).
    pub actions: Vec<(String, usize)>,
    /// A domain's types (`object` and those it declares).
    pub types: Vec<String>,
}

/// Reads `text` as the compiler reads a PDDL file; returns what it defines and every problem.
pub fn check(text: &str) -> Checked {
    let mut sources = SourceMap::default();
    let file = sources.add(SourceFile::new(
        "edited.pddl".into(),
        "edited.pddl".into(),
        text.to_string(),
    ));
    let mut diags = Diagnostics::default();
    let read = ensemble_compiler::formats::pddl::read(&sources, file, &mut diags);
    let problems = diags
        .iter()
        .map(|d| {
            let range = d.primary.as_ref().map_or(0..0, |l| l.span.range());
            let (line, column) = sources.get(file).line_col(range.start);
            Problem {
                range,
                line,
                column,
                severity: d.severity,
                message: d.message.clone(),
            }
        })
        .collect();
    let (actions, types) = match read {
        Some(ensemble_compiler::formats::pddl::PddlFile::Domain(d)) => {
            let mut types: Vec<String> = d.types.iter().map(|t| t.name.text.clone()).collect();
            types.push("object".into());
            types.sort();
            types.dedup();
            let actions = d
                .actions
                .iter()
                .map(|a| (a.name.text.clone(), a.name.span.range().start))
                .collect();
            (actions, types)
        }
        _ => (Vec::new(), Vec::new()),
    };
    Checked {
        header: ensemble_compiler::formats::pddl::header(text),
        problems,
        actions,
        types,
    }
}
