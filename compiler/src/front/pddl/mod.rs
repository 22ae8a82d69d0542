//! The PDDL frontend: the STRIPS subset with `:typing`, `:negative-preconditions` and
//! `:equality`, grounded into the runtime's [`ensemble_runtime::plan::Task`].
//!
//! ```text
//! text ─► sexpr ─► parse (AST, refuses unsupported constructs) ─► resolve (names, arities,
//!         types) ─► ground (reachability fixpoint, statics compiled away) ─► Task
//! ```
//! Everything is reported with its location; nothing panics on bad input. docs/formats/pddl.md
//! lists what is accepted and what is refused.

pub mod ast;
pub mod ground;
pub mod parse;
pub mod resolve;
pub mod sexpr;

pub use ground::{GroundOptions, Grounded, GroundingStats, Naming};

use crate::diag::Diagnostics;
use crate::source::{FileId, SourceFile, SourceMap, Span};
use std::path::Path;

/// One PDDL file: a domain or a problem.
#[derive(Clone, Debug)]
pub enum PddlFile {
    Domain(ast::Domain),
    Problem(ast::Problem),
}

/// What a PDDL text defines, `(domain NAME)` or `(problem NAME)`, without reporting anything
/// (to find a problem's domain among the files beside it).
pub fn header(text: &str) -> Option<(bool, String)> {
    let mut quiet = Diagnostics::default();
    let top = sexpr::parse(FileId(0), text, &mut quiet);
    let define = top.first()?.list()?;
    let head = define.get(1)?.list()?;
    let name = head.get(1)?.atom()?.to_string();
    match head.first()?.atom()? {
        "domain" => Some((true, name)),
        "problem" => Some((false, name)),
        _ => None,
    }
}

/// The name of the domain a problem text is for, `(:domain NAME)`.
pub fn problem_domain(text: &str) -> Option<String> {
    let mut quiet = Diagnostics::default();
    let top = sexpr::parse(FileId(0), text, &mut quiet);
    top.first()?
        .list()?
        .iter()
        .find(|s| s.head() == Some(":domain"))?
        .list()?
        .get(1)?
        .atom()
        .map(str::to_string)
}

/// Reads one file of a project: a domain or a problem, decided by its `define` header.
pub fn read(sources: &SourceMap, file: FileId, diags: &mut Diagnostics) -> Option<PddlFile> {
    let text = &sources.get(file).text;
    let before = diags.count(crate::diag::Severity::Error);
    let top = sexpr::parse(file, text, diags);
    if diags.count(crate::diag::Severity::Error) > before {
        // Unbalanced brackets: whatever structure is left is not what was meant, and reading
        // it would only add follow-up errors to the one that matters.
        return None;
    }
    let file_span = Span::file_start(file);
    match header(text) {
        Some((false, _)) => parse::problem(&top, file_span, diags).map(PddlFile::Problem),
        // A domain, or something broken: the domain reader reports what is wrong.
        _ => parse::domain(&top, file_span, diags).map(PddlFile::Domain),
    }
}

/// Parses, resolves and grounds a domain and a problem given as text. Returns `None` when there
/// are errors (all of them are in `diags`).
pub fn ground_texts(
    sources: &mut SourceMap,
    domain: (&str, &str),
    problem: (&str, &str),
    diags: &mut Diagnostics,
) -> Option<Grounded> {
    ground_texts_with(sources, domain, problem, &GroundOptions::default(), diags)
}

/// [`ground_texts`] with grounding options (limits, a deadline).
pub fn ground_texts_with(
    sources: &mut SourceMap,
    domain: (&str, &str),
    problem: (&str, &str),
    opts: &GroundOptions,
    diags: &mut Diagnostics,
) -> Option<Grounded> {
    let before = diags.count(crate::diag::Severity::Error);
    let dfile = sources.add(SourceFile::new(
        domain.0.to_string(),
        domain.0.into(),
        domain.1.to_string(),
    ));
    let pfile = sources.add(SourceFile::new(
        problem.0.to_string(),
        problem.0.into(),
        problem.1.to_string(),
    ));
    let dtop = sexpr::parse(dfile, domain.1, diags);
    let ptop = sexpr::parse(pfile, problem.1, diags);
    if diags.count(crate::diag::Severity::Error) > before {
        return None;
    }
    let d = parse::domain(&dtop, Span::file_start(dfile), diags);
    let p = parse::problem(&ptop, Span::file_start(pfile), diags);
    let (d, p) = (d?, p?);
    if diags.count(crate::diag::Severity::Error) > before {
        // Resolve anyway to report name errors too, but do not ground broken input.
        resolve::resolve(&d, &p, diags);
        return None;
    }
    let lifted = resolve::resolve(&d, &p, diags);
    if diags.count(crate::diag::Severity::Error) > before {
        return None;
    }
    Some(ground::ground_with(&lifted, opts, diags))
}

/// Reads the two files and grounds them. I/O problems are returned as errors (exit 2).
pub fn ground_files(
    sources: &mut SourceMap,
    domain: &Path,
    problem: &Path,
    diags: &mut Diagnostics,
) -> Result<Option<Grounded>, (std::path::PathBuf, std::io::Error)> {
    ground_files_with(sources, domain, problem, &GroundOptions::default(), diags)
}

/// [`ground_files`] with grounding options (limits, a deadline).
pub fn ground_files_with(
    sources: &mut SourceMap,
    domain: &Path,
    problem: &Path,
    opts: &GroundOptions,
    diags: &mut Diagnostics,
) -> Result<Option<Grounded>, (std::path::PathBuf, std::io::Error)> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| (p.to_path_buf(), e));
    let dtext = read(domain)?;
    let ptext = read(problem)?;
    Ok(ground_texts_with(
        sources,
        (&domain.display().to_string(), &dtext),
        (&problem.display().to_string(), &ptext),
        opts,
        diags,
    ))
}

#[cfg(test)]
mod tests;
