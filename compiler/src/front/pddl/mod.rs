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

pub use ground::{Grounded, GroundingStats};

use crate::diag::Diagnostics;
use crate::source::{SourceFile, SourceMap, Span};
use std::path::Path;

/// Parses, resolves and grounds a domain and a problem given as text. Returns `None` when there
/// are errors (all of them are in `diags`).
pub fn ground_texts(
    sources: &mut SourceMap,
    domain: (&str, &str),
    problem: (&str, &str),
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
    Some(ground::ground(&lifted, diags))
}

/// Reads the two files and grounds them. I/O problems are returned as errors (exit 2).
pub fn ground_files(
    sources: &mut SourceMap,
    domain: &Path,
    problem: &Path,
    diags: &mut Diagnostics,
) -> Result<Option<Grounded>, (std::path::PathBuf, std::io::Error)> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| (p.to_path_buf(), e));
    let dtext = read(domain)?;
    let ptext = read(problem)?;
    Ok(ground_texts(
        sources,
        (&domain.display().to_string(), &dtext),
        (&problem.display().to_string(), &ptext),
        diags,
    ))
}

#[cfg(test)]
mod tests;
