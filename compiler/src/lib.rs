//! Ensemble's compiler, shaped like naga: frontends read sources into one IR, validation checks
//! the IR and reports every problem at once, the back end lowers a valid IR into the runtime's
//! program format.
//!
//! ```text
//! project::load ─► frontends ─► ir::Module ─► checks ─► precompute ─► back::program ─► .ensb
//!      (files)     (parse,       (typed        (valid, nlg,  (ranking,   (intern, flatten,
//!                   resolve)      handles)      hpmm, plan)   PPA*)       verify once, write)
//! ```
//! Frontends never emit; backends never parse. Every IR item carries the span it came from, so
//! any stage can point at the source.
//!
//! # The library's surface
//!
//! What tools (the editor, the `ensemble` command in `ensemble-cli`, engines' build scripts)
//! call, a project session from loading to running a scene. The editor names nothing else
//! (compiler/tests/import_circles.rs checks every path it names against this list):
//!
//! - **Load and compile**: [`project::load`] (a project folder or one source file),
//!   [`project::load_with`] and [`project::Overlay`] (unsaved files held in memory),
//!   [`compile`], [`compile_path`], [`compile_path_with`]; the result is a [`Compilation`]:
//!   its `module` is the checked project (module `ir`, read-only: [`ir::Module`]), its
//!   `sources` the files it read (module `source`: [`source::SourceMap`]).
//! - **Check**: [`Compilation::diagnostics`], a [`diag::Diagnostics`] rendered for people
//!   ([`diag::Diagnostics::render`], [`diag::Diagnostics::summary`]) or tools
//!   ([`diag::Diagnostics::to_json`]); content tests (`content_test`): [`content_test::lower`],
//!   [`content_test::run_all`], [`content_test::coverage_report`].
//! - **Build**: [`Compilation::output`], written by [`back::program::write`] (at
//!   [`back::program::paths`]); the lines for translators (`l10n`): [`l10n::lines`],
//!   `l10n::exchange` (the CSV, PO and XLSX tables) and `l10n::round_trip` (export, import,
//!   translate one line).
//! - **Rank** (`nlg`): a sentence state's candidates, best first: [`nlg::parse_lines`],
//!   [`nlg::rank_state`], with an n-gram database from [`nlg::open_ngrams`]; a designer's
//!   judgements applied, [`nlg::apply_judgements`].
//! - **Plan** (`plan`): planning files on their own, [`plan::project::compile_with`]; a plan
//!   file checked against a task, [`plan::plan_file::check`]; the planning graph a preview
//!   draws, [`plan::PlanningGraph`].
//! - **Reach** (`reach`, `reach::target`): a play that reaches a state, a line or a rule,
//!   [`reach::search()`], told as a story by [`reach::story_of`].
//! - **Run a scene** (`run`): [`run::scene`], [`run::summary`], and why a project gave no
//!   program, [`run::error_summary`].
//! - **The source formats** ([`formats`]), every file kind as a tool reads, edits and writes
//!   it: `formats::ron` (manifest, machines, scenes, locations, sentences, strings…),
//!   `formats::locate` and `formats::print` (pointing into a document, printing it with its
//!   comments), `formats::spaces` (HMM spaces and companions), `formats::scripts` and
//!   `formats::cell` (workbooks and their cells' syntax), `formats::planning`,
//!   `formats::pddl`, `formats::nav`, `formats::tests`.
//!
//! The other public modules (`front`, `valid`, `hpmm`, `nav`, `script`, `related`, the parts
//! of `nlg`, `plan` and `reach` not re-exported at their top) are the compiler's internals,
//! public for the command line and the benchmarks, which measure them; the editor's own tests
//! may build assets through them too (the check reads `editor/src` only). The command line is not in this
//! crate (it is `ensemble-cli`); the readers' fuzz targets are behind the `fuzz` feature, for
//! `compiler/fuzz/` and the corpus replay only.

pub mod back;
pub mod content_test;
pub mod diag;
pub mod formats;
pub mod front;
#[cfg(feature = "fuzz")]
#[doc(hidden)]
pub mod fuzz;
pub mod hpmm;
pub mod ir;
pub mod l10n;
pub mod nav;
pub mod nlg;
pub mod plan;
pub mod project;
pub mod reach;
pub mod related;
pub mod run;
pub mod script;
pub mod source;
pub mod valid;

use diag::Diagnostics;
use ensemble_runtime::program::{Program, debug::DebugInfo};
use source::SourceMap;

/// The result of compiling a project: its sources, every diagnostic, and the program when there
/// were no errors.
pub struct Compilation {
    pub name: String,
    pub sources: SourceMap,
    /// The resolved IR (complete even when there are errors; unresolved references are `None`).
    pub module: ir::Module,
    pub diagnostics: Diagnostics,
    pub output: Option<(Program, DebugInfo)>,
}

/// How to run the pipeline.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompileOptions {
    /// Draw a progress bar on stderr for long precomputations (PPA* on a large map); only with
    /// the `progress` feature, which the `ensemble` command turns on.
    pub progress: bool,
}

/// Runs the whole pipeline on a loaded project.
pub fn compile(project: project::Project) -> Compilation {
    compile_with(project, CompileOptions::default())
}

/// [`compile`] with options: the passes in order. Every frontend runs on every file (parsing and
/// resolving names into IR handles), then every check (reading only the IR), then the
/// precomputations (sentence ranking always, so the editor sees its reports; navigation only
/// for a valid module), then the back end emits and verifies the program once.
pub fn compile_with(project: project::Project, options: CompileOptions) -> Compilation {
    let standalone = project.is_single_file();
    let project::Project {
        name,
        sources,
        libraries,
        mut diagnostics,
    } = project;
    let mut module = frontends(&sources, &libraries, standalone, &mut diagnostics);
    checks(&module, &mut diagnostics);
    precompute(&sources, &mut module, options, &mut diagnostics);
    // After the translations are checked: they too name lines an unreadable file defines.
    diagnostics.quiet_unknowns_while_unreadable();
    let output = if diagnostics.has_errors() {
        None
    } else {
        // The navigation data moves into the program.
        let nav_data = module.nav.as_mut().and_then(|n| n.data.take());
        match back::program::emit_with_nav(&name, &module, &sources, nav_data) {
            Ok(out) => Some(out),
            Err(message) => {
                diagnostics.push(diag::Diagnostic::error(diag::Code::Internal, message));
                None
            }
        }
    };
    diagnostics.settle(&sources);
    Compilation {
        name,
        sources,
        module,
        diagnostics,
        output,
    }
}

/// Every frontend: the only passes that read source text. Each parses its kinds of file and
/// resolves names into handles; the order is the order of dependence (scripts name locations
/// and machines, the navigation graph places locations, planning binds machines and scenes).
fn frontends(
    sources: &SourceMap,
    libraries: &[String],
    standalone: bool,
    diagnostics: &mut Diagnostics,
) -> ir::Module {
    let mut module = front::ron::lower(sources, libraries, diagnostics);
    hpmm::lower(&mut module, sources, diagnostics);
    script::lower::lower(sources, &mut module, diagnostics);
    script::location::lower(sources, &mut module, diagnostics);
    nav::lower::lower(sources, &mut module, diagnostics);
    // A file checked on its own cannot see the machines its actions name.
    let planning = plan::project::Options {
        standalone,
        bind_machines: !standalone,
        ..plan::project::Options::PROJECT
    };
    plan::project::lower(sources, &mut module, diagnostics, planning);
    l10n::read_tables(sources, &mut module, diagnostics);
    // Content tests name scenes, machines and states: read after every kind that defines them.
    // `ensemble test` lowers them again to run them; a build only reports their problems.
    content_test::lower(sources, &module, diagnostics);
    module
}

/// Every check, on the IR alone: each reports and goes on.
fn checks(module: &ir::Module, diagnostics: &mut Diagnostics) {
    valid::validate(module, diagnostics);
    nlg::check(module, diagnostics);
    hpmm::validate(module, diagnostics);
    plan::project::check(module, diagnostics);
}

/// What is computed ahead of the game: ranked sentence candidates, and PPA* data for a valid
/// navigation graph.
fn precompute(
    sources: &SourceMap,
    module: &mut ir::Module,
    options: CompileOptions,
    diagnostics: &mut Diagnostics,
) {
    nlg::rank(module, diagnostics);
    // The string tables are checked against the lines the ranking chose.
    l10n::check(sources, module, diagnostics);
    if !diagnostics.has_errors() {
        nav::precompute::precompute(module, options.progress, diagnostics);
    }
}

/// Loads and compiles the project or single source file at `path`.
pub fn compile_path(path: &std::path::Path) -> Result<Compilation, project::ProjectError> {
    Ok(compile(project::load(path)?))
}

/// [`compile_path`] with some files' contents given in memory (the editor's unsaved documents):
/// what the project would be if `overlay` were saved.
pub fn compile_path_with(
    path: &std::path::Path,
    overlay: &project::Overlay,
) -> Result<Compilation, project::ProjectError> {
    Ok(compile(project::load_with(path, overlay)?))
}

/// [`compile_path`] with options (a progress bar for `ensemble build` on a terminal).
pub fn compile_path_with_options(
    path: &std::path::Path,
    options: CompileOptions,
) -> Result<Compilation, project::ProjectError> {
    Ok(compile_with(project::load(path)?, options))
}
