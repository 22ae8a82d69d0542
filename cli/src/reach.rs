//! `ensemble reach PROJECT --scene S TARGET [-o FILE.test.ron]`: search the scene's choice
//! points for a play that reaches a state, a line, a rule firing, a reply action or any trace
//! event, print it as a story and write it as a content test (docs/formats/reach.md). With
//! `--uncovered`, every item `ensemble test --coverage` reports never reached is tried.
//! Exit 0: reached; 1: not reached (proven unreachable, or the budget ran out); 2: could not run.

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io, cannot_run, report};
use clap::{ArgGroup, Args};
use ensemble_compiler::content_test::asset::{EventPattern, TestAsset};
use ensemble_compiler::reach::{
    Attempt, Budget, Choices, Outcome, Play, Progress, TIME_LIMIT, Target, across, is_chat,
    random_play, search, story, target,
};
use ensemble_runtime::Program;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("target").required(true).args(["state", "line", "rule", "action", "hmm_state", "event", "uncovered"])))]
pub struct ReachArgs {
    /// The project directory.
    path: PathBuf,
    /// The scene (or conversation) to search.
    #[arg(long)]
    scene: Option<String>,
    /// Target: a state entered, `MACHINE/STATE`.
    #[arg(long, value_name = "MACHINE/STATE")]
    state: Option<String>,
    /// With --state: only this agent entering it counts.
    #[arg(long, requires = "state")]
    agent: Option<String>,
    /// Target: a line said — a sentence state's name, or a candidate line's id (8 hex digits).
    #[arg(long, value_name = "ID")]
    line: Option<String>,
    /// Target: a script rule firing, `SCRIPT/RULE` or `SCRIPT/STATE/RULE`.
    #[arg(long, value_name = "SCRIPT/RULE")]
    rule: Option<String>,
    /// Target: a reply action (a conversation's `output`) or an action started (`act`).
    #[arg(long, value_name = "NAME")]
    action: Option<String>,
    /// Target: an HMM state most believed in its space after an iteration, `SPACE/STATE`.
    #[arg(long, value_name = "SPACE/STATE")]
    hmm_state: Option<String>,
    /// Target: any trace event, as a content test's pattern: `(event: "enter", state: "Finish")`.
    #[arg(long, value_name = "PATTERN")]
    event: Option<String>,
    /// Try every state, rule, line and planning action `ensemble test --coverage` reports never
    /// reached; -o names the folder the tests go to.
    #[arg(long, conflicts_with = "scene")]
    uncovered: bool,
    /// Ticks a run lasts at most (conversations: iterations); default: the longest of the
    /// project's tests of the scene, else 3000 (a conversation 60).
    #[arg(long)]
    ticks: Option<u64>,
    /// Inputs a play has at most: messages sent, actions mocked to fail, player lines and
    /// inputs, draws forced.
    #[arg(long, default_value_t = 3)]
    inputs: usize,
    /// Seeds tried: 0 to N-1.
    #[arg(long, default_value_t = 8, value_name = "N")]
    seeds: u64,
    /// Wall time for the search, in seconds (with --uncovered: for each target).
    #[arg(long, value_name = "SECONDS", default_value_t = TIME_LIMIT, value_parser = crate::io::seconds)]
    time_limit: f64,
    /// Ticks between two choice points (where a message may be sent).
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    step: u64,
    /// Write the play as a content test (`FILE.test.ron`; with --uncovered a folder).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// Replace the file even if it was not written by `ensemble reach`.
    #[arg(long)]
    force: bool,
    /// No search: play seeds 0, 1, 2, … (a conversation: --inputs player lines drawn from the
    /// seed) until the target happens, within the same budget — the baseline the search is
    /// measured against.
    #[arg(long, conflicts_with_all = ["out", "uncovered"])]
    random: bool,
}

/// A project compiled for a search.
struct Loaded {
    program: Arc<Program>,
    compilation: ensemble_compiler::Compilation,
    tests: Vec<TestAsset>,
}

pub fn run(args: ReachArgs, io: &mut Io<'_>) -> i32 {
    if let Some(out) = &args.out
        && let Err(code) = refuse_foreign(out, args.force, args.uncovered, io)
    {
        return code;
    }
    let loaded = match load(&args.path, io) {
        Ok(l) => l,
        Err(code) => return code,
    };
    // Not even --force writes over one of the project's own sources (a test `reach` wrote
    // earlier is its own to replace).
    if let Some(out) = &args.out
        && !args.uncovered
        && !ensemble_compiler::reach::written_by_reach(out)
        && let Err(code) = crate::io::refuse_overwriting_sources(&loaded.compilation, &[out], io)
    {
        return code;
    }
    // The game's own states have no code here: said once, as `ensemble test` says it.
    if let Ok((_, stand_ins)) = ensemble_sim::stand_in::library_for(&loaded.program, &[]) {
        for s in stand_ins {
            let _ = writeln!(io.err, "note: {s} (the search runs against the stand-in)");
        }
    }
    if args.uncovered {
        return uncovered(&args, &loaded, io);
    }
    let Some(scene) = args.scene.clone() else {
        let _ = writeln!(
            io.err,
            "error: a target needs --scene SCENE (or use --uncovered)"
        );
        return EXIT_CANNOT_RUN;
    };
    let program = &loaded.program;
    let scenes: Vec<String> = ensemble_sim::simulation::scene_names(program);
    if !scenes.contains(&scene) {
        return unknown(io, "scene", &scene, scenes.iter().map(String::as_str));
    }
    let target = match target_of(&args, program, &scene, io) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let chat = is_chat(program, &scene);
    let budget = budget_of(&args, &loaded.tests, &scene, chat);
    let mut choices = Choices::of(
        &loaded.compilation.module,
        &args.path,
        &scene,
        &loaded.tests,
    );
    choices.aim(&loaded.compilation.module, &target);
    let _ = writeln!(
        io.out,
        "reach: {} in scene `{scene}`\nbudget: {}\nchoices: {} seeds, {} messages, {} setups (actions to fail, world events, variables), {} player lines, {} player inputs at smart locations, and the draws that pick lines and chances",
        target.label,
        budget.describe(chat),
        budget.seeds,
        choices.messages.len(),
        choices.setups.len(),
        choices.lines.len(),
        choices.player.len()
    );
    let (outcome, stats) = if args.random {
        random_play(program, &scene, &target, &choices, &budget)
    } else {
        search(program, &scene, &target, &choices, &budget)
    };
    let searched = format!(
        "searched {} choice points ({} restores, {} ticks, {} seen before) in {:.2} s",
        stats.nodes, stats.restores, stats.ticks, stats.duplicates, stats.seconds
    );
    match outcome {
        Outcome::Reached {
            play,
            trace,
            pattern,
        } => {
            let _ = writeln!(
                io.out,
                "reached {} at tick {} with seed {} and {} inputs; {searched}\nbudget: {}\n",
                target.label,
                play.ticks,
                play.seed,
                play.inputs(),
                budget.describe(chat)
            );
            let _ = write!(io.out, "{}", story::story_of(&scene, &play, &trace));
            if let Some(out) = &args.out {
                if let Err(code) = write_one(out, &scene, &play, &pattern, &target, io) {
                    return code;
                }
                let _ = writeln!(io.err, "wrote {}", out.display());
            }
            EXIT_OK
        }
        Outcome::Unreachable { why } => {
            let _ = writeln!(
                io.out,
                "unreachable: search space exhausted — {why}\nbudget: {}",
                budget.describe(chat)
            );
            EXIT_ERRORS
        }
        Outcome::NotReached { every_play_tried } => {
            let how = if every_play_tried {
                "every play within the budget was tried; more seeds, inputs or ticks may still reach it"
            } else {
                "the time ran out"
            };
            let _ = writeln!(
                io.out,
                "not reached within the budget: {how}; {searched}; nearest distance {}{}\nbudget: {}",
                stats.best,
                if stats.unverified > 0 {
                    format!(
                        "; {} plays showed it but did not pass from tick 0",
                        stats.unverified
                    )
                } else {
                    String::new()
                },
                budget.describe(chat)
            );
            EXIT_ERRORS
        }
        Outcome::CannotRun(why) => {
            let _ = writeln!(io.err, "error: {why}");
            EXIT_CANNOT_RUN
        }
    }
}

/// Refuses to replace a file `reach` did not write (a designer's own tests), unless forced.
fn refuse_foreign(out: &Path, force: bool, dir: bool, io: &mut Io<'_>) -> Result<(), i32> {
    if dir {
        if out.exists() && !out.is_dir() {
            let _ = writeln!(
                io.err,
                "error: {} is not a folder: --uncovered writes one test file per target into -o DIR",
                out.display()
            );
            return Err(EXIT_CANNOT_RUN);
        }
        return Ok(());
    }
    if !force && out.exists() && !ensemble_compiler::reach::written_by_reach(out) {
        let _ = writeln!(
            io.err,
            "error: {} exists and was not written by `ensemble reach`; refusing to replace it — \
             choose another output path, or add --force to replace it",
            out.display()
        );
        return Err(EXIT_CANNOT_RUN);
    }
    Ok(())
}

fn load(path: &Path, io: &mut Io<'_>) -> Result<Loaded, i32> {
    let c = ensemble_compiler::compile_path(path).map_err(|e| cannot_run(io, &e))?;
    if c.diagnostics.has_errors() {
        report(&c, Format::Human, io);
        let _ = writeln!(io.err, "error: the project has errors: nothing to search");
        return Err(EXIT_CANNOT_RUN);
    }
    let Some((program, _)) = &c.output else {
        return Err(EXIT_CANNOT_RUN);
    };
    let program = Arc::new(program.clone());
    let mut quiet = ensemble_compiler::diag::Diagnostics::default();
    let tests = ensemble_compiler::content_test::lower(&c.sources, &c.module, &mut quiet)
        .into_iter()
        .map(|t| t.test)
        .collect();
    Ok(Loaded {
        program,
        compilation: c,
        tests,
    })
}

fn budget_of(args: &ReachArgs, tests: &[TestAsset], scene: &str, chat: bool) -> Budget {
    let mut budget = Budget::for_scene(tests, scene, chat);
    if let Some(ticks) = args.ticks {
        budget.ticks = ticks;
    }
    budget.inputs = args.inputs;
    budget.seeds = args.seeds.max(1);
    budget.time = Duration::from_secs_f64(args.time_limit);
    budget.step = args.step;
    budget
}

/// An unknown name: the error, with a did-you-mean, and exit 2.
fn unknown<'a>(
    io: &mut Io<'_>,
    what: &str,
    name: &str,
    known: impl IntoIterator<Item = &'a str> + Clone,
) -> i32 {
    let _ = writeln!(io.err, "error: {}", target::unknown(what, name, known));
    EXIT_CANNOT_RUN
}

/// The target the flags name, checked against the program.
fn target_of(
    args: &ReachArgs,
    program: &Program,
    scene: &str,
    io: &mut Io<'_>,
) -> Result<Target, i32> {
    let found = if let Some(spec) = &args.state {
        target::state(program, spec, args.agent.as_deref(), Some(scene))
    } else if let Some(id) = &args.line {
        target::line(program, id)
    } else if let Some(spec) = &args.rule {
        target::rule(program, spec)
    } else if let Some(name) = &args.action {
        target::action(program, name, is_chat(program, scene))
    } else if let Some(spec) = &args.hmm_state {
        target::hmm_state(program, spec)
    } else if let Some(text) = &args.event {
        target::event(program, text)
    } else {
        Err("no target: --state, --line, --rule, --action, --hmm-state or --event".into())
    };
    found.map_err(|why| {
        let _ = writeln!(io.err, "error: {why}");
        EXIT_CANNOT_RUN
    })
}

/// `--uncovered`: every item the project's tests never reach, tried in the scenes that can
/// show it; a test written into `-o DIR` for each one reached.
fn uncovered(args: &ReachArgs, loaded: &Loaded, io: &mut Io<'_>) -> i32 {
    use ensemble_compiler::content_test::coverage::{self, Reached};
    let program = &loaded.program;
    let c = &loaded.compilation;
    let mut quiet = ensemble_compiler::diag::Diagnostics::default();
    let tests = ensemble_compiler::content_test::lower(&c.sources, &c.module, &mut quiet);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results = ensemble_compiler::content_test::run::run_all(program, &tests, threads);
    let mut all = Reached::default();
    for r in &results {
        all.merge(&r.reached);
    }
    let sections = coverage::report(program, &all);
    // (label, target); the scenes tried are those that can show it.
    let mut targets: Vec<(String, Target)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for section in &sections {
        for item in section.never_reached() {
            let found = match section.kind {
                "states" => target::state(program, &item.name, None, None),
                "rules" => target::rule(program, &item.name),
                "actions" => match item.name.split_once(": ") {
                    Some((_, action)) => target::action(program, action, false),
                    None => continue,
                },
                "hmm_states" => target::hmm_state(program, &item.name),
                "lines" => {
                    let id = item
                        .name
                        .split_once(" #")
                        .and_then(|(_, rest)| rest.get(..8))
                        .unwrap_or_default();
                    target::line(program, id)
                }
                _ => {
                    skipped.push(format!("{}: {}", section.kind, item.name));
                    continue;
                }
            };
            // A name coverage reports but a target cannot name is left out, not an error.
            if let Ok(t) = found {
                targets.push((item.name.clone(), t));
            }
        }
    }
    let _ = writeln!(
        io.out,
        "reach --uncovered: {} items never reached by the project's tests; {} s a target",
        targets.len() + skipped.len(),
        args.time_limit
    );
    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| args.path.join("reached"));
    let mut reached = Vec::new();
    let mut unreachable = Vec::new();
    let mut not_reached = Vec::new();
    for (n, (name, target)) in targets.iter().enumerate() {
        let scenes = target::scenes_for(program, target);
        let per_scene = args.time_limit / scenes.len().max(1) as f64;
        let attempts: Vec<Attempt> = scenes
            .iter()
            .map(|scene| {
                let mut budget = budget_of(args, &loaded.tests, scene, is_chat(program, scene));
                budget.time = Duration::from_secs_f64(per_scene.max(0.5));
                let mut choices = Choices::of(&c.module, &args.path, scene, &loaded.tests);
                choices.aim(&c.module, target);
                Attempt {
                    scene: scene.clone(),
                    choices,
                    budget,
                }
            })
            .collect();
        let tried = across(program, target, &attempts, &Progress::default());
        let (found, proof) = match (tried.scene, tried.outcome) {
            (Some(scene), Outcome::Reached { play, pattern, .. }) => {
                (Some((scene, play, pattern)), None)
            }
            (_, Outcome::Unreachable { why }) => (None, Some(why)),
            _ => (None, None),
        };
        match (found, proof) {
            (Some((scene, play, pattern)), _) => {
                let file = dir.join(format!("reach-{:03}.test.ron", n + 1));
                if let Err(code) = refuse_foreign(&file, args.force, false, io) {
                    return code;
                }
                if let Err(code) = write_one(&file, &scene, &play, &pattern, target, io) {
                    return code;
                }
                let _ = writeln!(
                    io.out,
                    "  reached      {name} (scene `{scene}`, seed {}, tick {}) -> {}",
                    play.seed,
                    play.ticks,
                    file.display()
                );
                reached.push(name);
            }
            (None, Some(why)) => {
                let _ = writeln!(
                    io.out,
                    "  unreachable  {name}: search space exhausted — {why}"
                );
                unreachable.push(name);
            }
            (None, None) => {
                let why = format!("not reached within the budget in {}", scenes.join(", "));
                let _ = writeln!(io.out, "  not reached  {name}: {why}");
                not_reached.push(name);
            }
        }
    }
    for s in &skipped {
        let _ = writeln!(io.out, "  not tried    {s}");
    }
    let _ = writeln!(
        io.out,
        "{} reached, {} unreachable (proven), {} not reached, {} not tried",
        reached.len(),
        unreachable.len(),
        not_reached.len(),
        skipped.len()
    );
    if not_reached.is_empty() && skipped.is_empty() && unreachable.is_empty() {
        EXIT_OK
    } else {
        EXIT_ERRORS
    }
}

fn write_one(
    file: &Path,
    scene: &str,
    play: &Play,
    pattern: &EventPattern,
    target: &Target,
    io: &mut Io<'_>,
) -> Result<(), i32> {
    ensemble_compiler::reach::write_test(file, scene, play, pattern, target).map_err(|why| {
        let _ = writeln!(io.err, "error: {why}");
        EXIT_CANNOT_RUN
    })
}
