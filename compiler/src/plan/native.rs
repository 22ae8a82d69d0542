//! The native planning format: an action-list domain and a problem in RON (`.ron`), read with
//! located diagnostics and checked before planning.

use super::action_list::{ActionDomain, ActionProblem, Compiled, VarState};
use super::check;
use crate::diag::{Diagnostic, Diagnostics};
use crate::source::{FileId, SourceFile, SourceMap, Span};
use std::path::Path;

/// A native domain and problem, resolved.
pub struct Native {
    pub domain: ActionDomain,
    pub compiled: Compiled,
    pub seeds: Vec<VarState>,
    pub goal: Vec<(usize, i64, bool)>,
}

/// The span of the first `"needle"` (a quoted name) in a file, else the file start.
fn locate(sources: &SourceMap, file: FileId, needle: &str) -> Span {
    let text = &sources.get(file).text;
    let quoted = format!("\"{needle}\"");
    match text.find(&quoted) {
        Some(i) => Span::new(file, i..i + quoted.len()),
        None => Span::file_start(file),
    }
}

/// Reads both files; reports problems (with locations) and returns `None` on errors.
pub fn load(
    sources: &mut SourceMap,
    domain: &Path,
    problem: &Path,
    diags: &mut Diagnostics,
) -> Result<Option<Native>, (std::path::PathBuf, std::io::Error)> {
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| (p.to_path_buf(), e));
    let (dtext, ptext) = (read(domain)?, read(problem)?);
    let dfile = sources.add(SourceFile::new(
        domain.display().to_string(),
        domain.into(),
        dtext,
    ));
    let pfile = sources.add(SourceFile::new(
        problem.display().to_string(),
        problem.into(),
        ptext,
    ));
    let d: Option<ActionDomain> = crate::front::ron::parse(sources, dfile, diags);
    let p: Option<ActionProblem> = crate::front::ron::parse(sources, pfile, diags);
    let (Some(d), Some(p)) = (d, p) else {
        return Ok(None);
    };
    let compiled = match d.compile() {
        Ok(c) => c,
        Err(errors) => {
            for e in errors {
                let span = match &e.action {
                    Some(a) => locate(sources, dfile, a),
                    None => Span::file_start(dfile),
                };
                let code = if e.message.starts_with("unknown variable") {
                    crate::diag::Code::UnknownReference
                } else {
                    crate::diag::Code::InvalidValue
                };
                diags.push(Diagnostic::error(code, e.message).at(span, "in this action"));
            }
            return Ok(None);
        }
    };
    let mut ok = true;
    let mut seeds = Vec::new();
    for s in &p.seeds {
        match d.state(s) {
            Ok(s) => seeds.push(s),
            Err(m) => {
                ok = false;
                diags.push(
                    Diagnostic::error(crate::diag::Code::UnknownReference, m)
                        .at(Span::file_start(pfile), "in a seed state"),
                );
            }
        }
    }
    let goal = match d.goal(&p.goal) {
        Ok(g) => g,
        Err(m) => {
            diags.push(
                Diagnostic::error(crate::diag::Code::UnknownReference, m)
                    .at(Span::file_start(pfile), "in the goal"),
            );
            return Ok(None);
        }
    };
    if seeds.is_empty() {
        ok = false;
        diags.push(
            Diagnostic::error(
                crate::diag::Code::InvalidValue,
                "the problem has no seed state",
            )
            .at(Span::file_start(pfile), "add `seeds: [[...]]`"),
        );
    }
    if !ok {
        return Ok(None);
    }
    for (diag, action) in check::check(&compiled, &seeds, &goal) {
        let span = match &action {
            Some(a) => locate(sources, dfile, a),
            None => {
                let text = &sources.get(pfile).text;
                match text.find("goal") {
                    Some(i) => Span::new(pfile, i..i + 4),
                    None => Span::file_start(pfile),
                }
            }
        };
        diags.push(diag.at(span, "here"));
    }
    Ok(Some(Native {
        domain: d,
        compiled,
        seeds,
        goal,
    }))
}
