//! `ensemble plan DOMAIN PROBLEM [--search astar|gbfs|minmin|pop|graph] [--format json]`: plan on a
//! STRIPS task (PDDL, or a native action list in RON), validate the plan step by step, print it.
//! With `--validate PLAN` it checks another planner's plan (the IPC format) instead.
//!
//! Exit codes: 0 with a plan; 3 when the task is proven unsolvable; 1 on errors in the input
//! (or when a search limit stops the search without a plan); 2 when it cannot run.

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io};
use clap::{Args, ValueEnum};
use ensemble_compiler::diag::{Code, Diagnostic, Diagnostics};
use ensemble_compiler::front::ron::AssetKind;
use ensemble_compiler::plan::plan_file;
use ensemble_compiler::source::{SourceFile, SourceMap};
use ensemble_runtime::plan::graph::PlanGraph;
use ensemble_runtime::plan::pop::{self, AchieverIndex, Achievers, PopConfig, PopOutcome};
use ensemble_runtime::plan::search::Limit;
use ensemble_runtime::plan::section::Planner;
use ensemble_runtime::plan::{Heuristic, Limits, Outcome, Task, minmin, search, validate};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Exit code when the task is proven unsolvable.
pub const EXIT_UNSOLVABLE: i32 = 3;

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum SearchKind {
    /// A* (optimal with the default LM-cut, or with h_max or blind).
    Astar,
    /// Satisficing: lazy greedy best-first search with preferred operators (default h_ff),
    /// then plan improvement (action elimination, plan neighbourhood search, anytime weighted
    /// A*) within the limits.
    Gbfs,
    /// MinMin real-time search, interleaving planning and simulated execution.
    Minmin,
    /// Partial-order planning with the achiever index (A-POP).
    Pop,
    /// Breadth-first on an action list's precomputed planning graph (Hewlett §2.5); the default
    /// for an action list whose planner says `search: Graph`.
    Graph,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum HeuristicKind {
    /// Landmark cut: admissible, the default for A*.
    Lmcut,
    Hmax,
    Hadd,
    Hff,
    Blind,
}

#[derive(Args, Debug)]
pub struct PlanArgs {
    /// Domain: a PDDL domain, a native `*.domain.ron`, or an action list `*.actionlist.ron`
    /// (which is its own problem).
    pub domain: PathBuf,
    /// Problem: a PDDL problem or a native `*.problem.ron` (not needed for an action list).
    pub problem: Option<PathBuf>,
    /// Search (default: astar, or graph for an action list that asks for `search: Graph`).
    #[arg(long, value_enum)]
    pub search: Option<SearchKind>,
    /// Heuristic (default: lmcut for astar, hff for gbfs, hadd for minmin).
    #[arg(long, value_enum)]
    pub heuristic: Option<HeuristicKind>,
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// Stop after this many expansions (A*/GBFS), nodes per decision (MinMin) or partial plans
    /// (POP).
    #[arg(long)]
    pub max_expansions: Option<u64>,
    /// Stop after this many seconds (A*/GBFS).
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Stop grounding a PDDL task, and A*/GBFS, before either holds more than this many MiB
    /// (default 2048).
    #[arg(long)]
    pub memory_limit: Option<u64>,
    /// MinMin lookahead horizon.
    #[arg(long, default_value_t = 3)]
    pub horizon: u32,
    /// MinMin's first depth bound (default: the number of operators, as in Lozano et al.).
    #[arg(long)]
    pub depth_bound: Option<u32>,
    /// MinMin without its second bound (2-B: prune successors that add no new fact).
    #[arg(long)]
    pub no_second_bound: bool,
    /// Check the plan in this file step by step instead of planning: one action per line,
    /// `(name arg ...)`, `;` comments (the IPC plan format Fast Downward and VAL use).
    #[arg(long, value_name = "PLAN")]
    pub validate: Option<PathBuf>,
}

struct Found {
    plan: Vec<u32>,
    expanded: u64,
    /// States the search held at the end (A*/GBFS), for memory per state.
    stored: Option<u64>,
    heuristic: Option<Heuristic>,
}

/// The heuristic's estimate of the initial state (A*/GBFS), reported beside Fast Downward's
/// "Initial heuristic value" so the two heuristics can be compared without the search.
fn initial_estimate(task: &Task, found: &Found) -> Option<u32> {
    let h = found.heuristic?;
    ensemble_runtime::plan::heuristic::evaluate(task, &task.initial_state(), h)
}

enum Result_ {
    Found(Found),
    Unsolvable(u64),
    /// Expanded, what ran out, states held (A*/GBFS).
    Limit(u64, &'static str, Option<u64>),
}

fn heuristic(args: &PlanArgs, default: Heuristic) -> Heuristic {
    match args.heuristic {
        None => default,
        Some(HeuristicKind::Lmcut) => Heuristic::LmCut,
        Some(HeuristicKind::Hmax) => Heuristic::Max,
        Some(HeuristicKind::Hadd) => Heuristic::Add,
        Some(HeuristicKind::Hff) => Heuristic::Ff,
        Some(HeuristicKind::Blind) => Heuristic::Blind,
    }
}

/// `--memory-limit` in bytes, or the search's default.
fn memory_limit(args: &PlanArgs) -> u64 {
    args.memory_limit
        .map_or(search::DEFAULT_MEMORY_LIMIT, |mib| {
            mib.saturating_mul(1 << 20)
        })
}

/// How long the greedy search may improve its first plan: without `--time-limit`,
/// [`search::DEFAULT_IMPROVEMENT_TIME`] (printed before the search); with it, whatever of that
/// limit the first plan leaves.
fn improvement_budget(args: &PlanArgs) -> Option<Duration> {
    args.time_limit
        .is_none()
        .then_some(search::DEFAULT_IMPROVEMENT_TIME)
}

/// `time_left`: what `--time-limit` leaves after reading and grounding (one budget for both).
fn solve(
    task: &Task,
    graph: Option<&PlanGraph>,
    kind: SearchKind,
    args: &PlanArgs,
    time_left: Option<Duration>,
) -> Result_ {
    let limits = Limits {
        max_expansions: args.max_expansions,
        max_time: time_left,
        max_memory: Some(memory_limit(args)),
    };
    match kind {
        SearchKind::Graph => {
            let s0 = task.initial_state();
            match graph.and_then(|g| g.plan(task, &s0, &[])) {
                Some((Some(plan), visited)) => Result_::Found(Found {
                    plan,
                    expanded: visited,
                    stored: None,
                    heuristic: None,
                }),
                Some((None, visited)) => Result_::Unsolvable(visited),
                // The initial state is not a graph node: A* with h_max, as agents do.
                None => solve(task, None, SearchKind::Astar, args, time_left),
            }
        }
        SearchKind::Astar | SearchKind::Gbfs => {
            let (h, r) = if kind == SearchKind::Astar {
                let h = heuristic(args, Heuristic::LmCut);
                (h, search::astar(task, h, limits))
            } else {
                let h = heuristic(args, Heuristic::Ff);
                (
                    h,
                    search::satisficing_within(
                        task,
                        &task.initial_state(),
                        h,
                        limits,
                        improvement_budget(args),
                    ),
                )
            };
            match r.outcome {
                Outcome::Plan(plan) => Result_::Found(Found {
                    plan,
                    expanded: r.stats.expanded,
                    stored: Some(r.stats.stored),
                    heuristic: Some(h),
                }),
                Outcome::Unsolvable => Result_::Unsolvable(r.stats.expanded),
                Outcome::LimitReached => Result_::Limit(
                    r.stats.expanded,
                    r.stopped_by
                        .map_or("expansion or time limit", Limit::describe),
                    Some(r.stats.stored),
                ),
            }
        }
        SearchKind::Minmin => {
            let h = heuristic(args, Heuristic::Add);
            let s0 = task.initial_state();
            if ensemble_runtime::plan::heuristic::evaluate(task, &s0, Heuristic::Max).is_none() {
                return Result_::Unsolvable(0);
            }
            let cfg = minmin::MinMinConfig {
                horizon: args.horizon.max(1),
                depth_bound: args.depth_bound,
                second_bound: !args.no_second_bound,
                heuristic: h,
                max_nodes: Some(args.max_expansions.unwrap_or(200_000)),
                ..Default::default()
            };
            let max_steps = 10 * task.operators.len().max(10);
            let ep = minmin::run(task, &s0, cfg, max_steps, |_, o, s| task.op(o).apply(s));
            if ep.reached_goal {
                Result_::Found(Found {
                    plan: ep.executed,
                    expanded: ep.nodes,
                    stored: None,
                    heuristic: Some(h),
                })
            } else {
                Result_::Limit(ep.nodes, "depth bound, node budget or step limit", None)
            }
        }
        SearchKind::Pop => {
            let idx = AchieverIndex::build(task);
            let cfg = PopConfig {
                max_nodes: args
                    .max_expansions
                    .unwrap_or(PopConfig::default().max_nodes),
                ..PopConfig::default()
            };
            let r = pop::plan(task, Achievers::Index(&idx), &task.initial_state(), cfg);
            match r.outcome {
                PopOutcome::Found => Result_::Found(Found {
                    plan: r.plan.expect("found").linear_plan(),
                    expanded: r.nodes,
                    stored: None,
                    heuristic: None,
                }),
                PopOutcome::Unsolvable => Result_::Unsolvable(r.nodes),
                PopOutcome::LimitReached => Result_::Limit(r.nodes, "step or node limit", None),
            }
        }
    }
}

/// `--validate PLAN`: replays the plan in `path` on `task`; exit 0 if it reaches the goal, 1
/// with the step, its line and what does not hold otherwise.
fn check_plan_file(task: &Task, path: &Path, args: &PlanArgs, io: &mut Io<'_>) -> i32 {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot read {}: {e}", path.display());
            return EXIT_CANNOT_RUN;
        }
    };
    let (steps, error) = plan_file::check(task, &path.display().to_string(), &text);
    if matches!(args.format, Format::Json) {
        let doc = json!({ "valid": error.is_none(), "length": steps, "error": error });
        let _ = writeln!(io.out, "{doc}");
    }
    match error {
        None => {
            let _ = writeln!(
                io.err,
                "the plan of {steps} steps is valid: every step applies and the goal holds at the end"
            );
            EXIT_OK
        }
        Some(e) => {
            let _ = writeln!(io.err, "error: {e}");
            EXIT_ERRORS
        }
    }
}

/// Milliseconds, to the microsecond.
fn round_millis(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e6).round() / 1e3
}

fn is_pddl(p: &Path) -> bool {
    p.extension().is_some_and(|e| e == "pddl")
}

/// Reads the files into a source map; `Err` is an I/O problem (exit 2).
fn read_all(files: &[&Path]) -> Result<SourceMap, (PathBuf, std::io::Error)> {
    let mut sources = SourceMap::default();
    for p in files {
        let text = std::fs::read_to_string(p).map_err(|e| (p.to_path_buf(), e))?;
        sources.add(SourceFile::new(
            p.display().to_string(),
            p.to_path_buf(),
            text,
        ));
    }
    Ok(sources)
}

/// Grounds the task: PDDL pairs through the PDDL frontend (with relevance analysis, as the
/// benchmarks compare), everything else through the project's planning stage.
/// The task, and its planning graph when its planner asks for `search: Graph`.
type Grounded = (Task, Option<PlanGraph>);

fn ground(
    args: &PlanArgs,
    sources: &mut SourceMap,
    diags: &mut Diagnostics,
) -> Result<Option<Grounded>, (PathBuf, std::io::Error)> {
    if let Some(problem) = &args.problem
        && is_pddl(&args.domain)
        && is_pddl(problem)
    {
        // `--time-limit` covers grounding too: a large problem can take longer to ground
        // than to solve.
        let opts = ensemble_compiler::front::pddl::GroundOptions {
            deadline: args
                .time_limit
                .filter(|t| t.is_finite() && *t >= 0.0)
                .map(|t| {
                    std::time::Instant::now() + std::time::Duration::from_secs_f64(t.min(1e9))
                }),
            // `--memory-limit` too: grounding alone can take gigabytes.
            max_bytes: Some(memory_limit(args)),
            // A plan to check may use actions that cannot help reach the goal.
            relevance: args.validate.is_none(),
            ..Default::default()
        };
        return ensemble_compiler::front::pddl::ground_files_with(
            sources,
            &args.domain,
            problem,
            &opts,
            diags,
        )
        .map(|g| g.map(|g| (g.task, None)));
    }
    let files: Vec<&Path> = std::iter::once(args.domain.as_path())
        .chain(args.problem.as_deref())
        .collect();
    *sources = read_all(&files)?;
    let mut module = ensemble_compiler::ir::Module::default();
    ensemble_compiler::plan::project::compile_with(
        sources,
        &mut module,
        diags,
        ensemble_compiler::plan::project::Options::PLAN_COMMAND,
    );
    let problems: Vec<&ensemble_compiler::ir::plan::Problem> =
        module.problems.iter().map(|(_, p)| p).collect();
    match problems.as_slice() {
        [p] => {
            let graph = match p.planner {
                Planner::Graph => p.graph.clone(),
                _ => None,
            };
            Ok(Some((p.task.clone(), graph)))
        }
        _ if diags.has_errors() => Ok(None),
        [] => {
            diags.push(Diagnostic::error(
                Code::InvalidValue,
                "these files define no planning problem (give a domain and a problem, or an action list)",
            ));
            Ok(None)
        }
        _ => {
            diags.push(Diagnostic::error(
                Code::InvalidValue,
                "these files define more than one planning problem; give one domain and one problem",
            ));
            Ok(None)
        }
    }
}

/// Loads the task; `Err(code)` when it cannot (diagnostics already printed).
fn load(args: &PlanArgs, io: &mut Io<'_>) -> Result<Grounded, i32> {
    let planning_file = |p: &Path| {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        matches!(
            AssetKind::of(&name),
            Some(AssetKind::Pddl | AssetKind::ActionList | AssetKind::Domain | AssetKind::Problem)
        )
    };
    for p in std::iter::once(&args.domain).chain(args.problem.as_ref()) {
        if !planning_file(p) {
            let _ = writeln!(
                io.err,
                "error: {}: not a planning file (expected .pddl, .actionlist.ron, .domain.ron or .problem.ron)",
                p.display()
            );
            return Err(EXIT_CANNOT_RUN);
        }
    }
    let list = args
        .domain
        .to_string_lossy()
        .ends_with(AssetKind::ActionList.suffix());
    if args.problem.is_none() && !list {
        let _ = writeln!(
            io.err,
            "error: {} needs a problem file (only an action list is its own problem)",
            args.domain.display()
        );
        return Err(EXIT_CANNOT_RUN);
    }
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let task = match ground(args, &mut sources, &mut diags) {
        Ok(t) => t,
        Err((path, e)) => {
            let _ = writeln!(io.err, "error: cannot read {}: {e}", path.display());
            return Err(EXIT_CANNOT_RUN);
        }
    };
    match (task, diags.has_errors()) {
        (Some(t), false) => {
            if !diags.is_empty() && matches!(args.format, Format::Human) {
                let _ = write!(io.err, "{}", diags.render(&sources, io.color));
            }
            Ok(t)
        }
        _ => {
            match args.format {
                Format::Json => {
                    let _ = writeln!(io.out, "{}", diags.to_json(&sources));
                }
                Format::Human => {
                    let _ = write!(io.err, "{}", diags.render(&sources, io.color));
                    let _ = writeln!(io.err, "{}", diags.summary());
                }
            }
            Err(EXIT_ERRORS)
        }
    }
}

pub fn run(args: PlanArgs, io: &mut Io<'_>) -> i32 {
    let began = Instant::now();
    let (mut task, graph) = match load(&args, io) {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Some(plan) = &args.validate {
        return check_plan_file(&task, plan, &args, io);
    }
    let kind = args.search.unwrap_or(if graph.is_some() {
        SearchKind::Graph
    } else {
        SearchKind::Astar
    });
    // Only A* and the greedy search store states to pack. Found before the search starts, as
    // Fast Downward's translator finds its variables.
    if matches!(kind, SearchKind::Astar | SearchKind::Gbfs) {
        task.mutex_groups = ensemble_compiler::plan::mutex::mutex_groups(&task);
    }
    let ground_millis = round_millis(began.elapsed());
    let time_left = args
        .time_limit
        .filter(|t| t.is_finite() && *t >= 0.0)
        .map(|t| Duration::from_secs_f64(t.min(1e9)).saturating_sub(began.elapsed()));
    if kind == SearchKind::Graph && graph.is_none() {
        let _ = writeln!(
            io.err,
            "error: --search graph needs an action list whose planner says `search: Graph` (it plans on the list's precomputed graph)"
        );
        return EXIT_CANNOT_RUN;
    }
    if kind == SearchKind::Gbfs
        && let Some(t) = improvement_budget(&args)
    {
        let _ = writeln!(
            io.err,
            "the greedy search improves its first plan for at most {} s (--time-limit sets the whole budget)",
            t.as_secs_f64()
        );
    }
    let started = Instant::now();
    let result = solve(&task, graph.as_ref(), kind, &args, time_left);
    // Search time alone (after reading and grounding), as Fast Downward reports its own.
    let millis = started.elapsed().as_secs_f64() * 1000.0;
    let search = format!("{kind:?}").to_lowercase();
    let json = matches!(args.format, Format::Json);
    match result {
        Result_::Found(f) => {
            let names = task.plan_names(&f.plan);
            let check = validate(&task, &task.initial_state(), &f.plan);
            let valid = check.is_ok();
            if json {
                let doc = json!({
                    "plan": names,
                    "length": f.plan.len(),
                    "valid": valid,
                    "expanded": f.expanded,
                    "stored": f.stored,
                    "millis": (millis * 1000.0).round() / 1000.0,
                    "ground_millis": ground_millis,
                    "search": search,
                    "improvement_seconds": improvement_budget(&args)
                        .filter(|_| kind == SearchKind::Gbfs)
                        .map(|t| t.as_secs_f64()),
                    "heuristic": f.heuristic.map(Heuristic::name),
                    "initial_h": initial_estimate(&task, &f),
                    "facts": task.facts.len(),
                    "operators": task.operators.len(),
                });
                let _ = writeln!(io.out, "{doc}");
            } else {
                for (i, n) in names.iter().enumerate() {
                    let _ = writeln!(io.out, "{:>4}. {n}", i + 1);
                }
                let _ = writeln!(
                    io.err,
                    "plan of length {} found by {search}{} in {millis:.1} ms ({} expanded; {} facts, {} operators); {}",
                    f.plan.len(),
                    f.heuristic
                        .map(|h| format!(" ({})", h.name()))
                        .unwrap_or_default(),
                    f.expanded,
                    task.facts.len(),
                    task.operators.len(),
                    if valid { "valid" } else { "INVALID" }
                );
            }
            match check {
                Ok(_) => EXIT_OK,
                Err(e) => {
                    let _ = writeln!(
                        io.err,
                        "error: the plan does not validate: {}",
                        e.describe(&task)
                    );
                    EXIT_ERRORS
                }
            }
        }
        Result_::Unsolvable(expanded) => {
            if json {
                let doc = json!({
                    "plan": null, "length": null, "valid": false, "unsolvable": true,
                    "expanded": expanded, "millis": (millis * 1000.0).round() / 1000.0,
                    "ground_millis": ground_millis, "search": search,
                });
                let _ = writeln!(io.out, "{doc}");
            } else {
                let _ = writeln!(
                    io.err,
                    "no plan exists: the task is unsolvable ({search}, {expanded} expanded, {millis:.1} ms)"
                );
            }
            EXIT_UNSOLVABLE
        }
        Result_::Limit(expanded, why, stored) => {
            if json {
                let doc = json!({
                    "plan": null, "length": null, "valid": false, "unsolvable": false,
                    "expanded": expanded, "stored": stored,
                    "millis": (millis * 1000.0).round() / 1000.0,
                    "ground_millis": ground_millis, "search": search,
                    "error": format!("search stopped by the {why} without a plan"),
                });
                let _ = writeln!(io.out, "{doc}");
            }
            let _ = writeln!(
                io.err,
                "error: {search} stopped by the {why} without a plan ({expanded} expanded{}, {millis:.1} ms)",
                stored
                    .map(|n| format!(", {n} states held"))
                    .unwrap_or_default()
            );
            EXIT_ERRORS
        }
    }
}
