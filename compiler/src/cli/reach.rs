//! `ensemble reach PROJECT --scene S TARGET [-o FILE.test.ron]`: search the scene's choice
//! points for a play that reaches a state, a line, a rule firing, a reply action or any trace
//! event, print it as a story and write it as a content test (docs/formats/reach.md). With
//! `--uncovered`, every item `ensemble test --coverage` reports never reached is tried.
//! Exit 0: reached; 1: not reached (proven unreachable, or the budget ran out); 2: could not run.

use super::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io, cannot_run, report};
use crate::content_test::asset::{EventPattern, TestAsset};
use crate::diag::suggest;
use crate::reach::{Budget, Choices, Outcome, Play, Target, random_play, search, story, test_file};
use clap::{ArgGroup, Args};
use ensemble_runtime::Program;
use ensemble_runtime::program::{MachineId, Modifier, StateId};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// `--time-limit` by default, in seconds.
pub const TIME_LIMIT: f64 = 60.0;
/// `--ticks` by default for a machine scene none of the project's tests runs.
pub const TICKS: u64 = 3000;
/// `--ticks` by default for a conversation (iterations).
pub const CHAT_TICKS: u64 = 60;

#[derive(Args, Debug)]
#[command(group(ArgGroup::new("target").required(true).args(["state", "line", "rule", "action", "event", "uncovered"])))]
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
    /// Inputs a play has at most: messages sent, actions mocked to fail, player lines.
    #[arg(long, default_value_t = 3)]
    inputs: usize,
    /// Seeds tried: 0 to N-1.
    #[arg(long, default_value_t = 8, value_name = "N")]
    seeds: u64,
    /// Wall time for the search, in seconds (with --uncovered: for each target).
    #[arg(long, value_name = "SECONDS", default_value_t = TIME_LIMIT, value_parser = super::seconds)]
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
    compilation: crate::Compilation,
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
        && !crate::reach::written_by_reach(out)
        && let Err(code) = super::refuse_overwriting_sources(&loaded.compilation, &[out], io)
    {
        return code;
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
    let choices = Choices::of(
        &loaded.compilation.module,
        &args.path,
        &scene,
        &loaded.tests,
    );
    let _ = writeln!(
        io.out,
        "reach: {} in scene `{scene}`\nbudget: {}\nchoices: {} seeds, {} messages, {} setups (actions to fail, variables), {} player lines",
        target.label,
        budget.describe(chat),
        budget.seeds,
        choices.messages.len(),
        choices.setups.len(),
        choices.lines.len()
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
            let _ = write!(io.out, "{}", story::story(&scene, &play, &trace));
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
    if !force && out.exists() && !crate::reach::written_by_reach(out) {
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
    let c = crate::compile_path(path).map_err(|e| cannot_run(io, &e))?;
    if c.diagnostics.has_errors() {
        report(&c, Format::Human, io);
        let _ = writeln!(io.err, "error: the project has errors: nothing to search");
        return Err(EXIT_CANNOT_RUN);
    }
    let Some((program, _)) = &c.output else {
        return Err(EXIT_CANNOT_RUN);
    };
    let program = Arc::new(program.clone());
    let mut quiet = crate::diag::Diagnostics::default();
    let tests = crate::content_test::lower(&c.sources, &c.module, &mut quiet)
        .into_iter()
        .map(|t| t.test)
        .collect();
    Ok(Loaded {
        program,
        compilation: c,
        tests,
    })
}

fn is_chat(program: &Program, scene: &str) -> bool {
    program
        .hpmm
        .chats
        .iter()
        .any(|c| program.name(c.name) == scene)
}

fn budget_of(args: &ReachArgs, tests: &[TestAsset], scene: &str, chat: bool) -> Budget {
    let ticks = args.ticks.unwrap_or_else(|| {
        let longest = tests
            .iter()
            .filter(|t| t.scene == scene)
            .map(|t| t.ticks)
            .max();
        longest.unwrap_or(if chat { CHAT_TICKS } else { TICKS })
    });
    Budget {
        ticks,
        inputs: args.inputs,
        seeds: args.seeds.max(1),
        time: Duration::from_secs_f64(args.time_limit),
        step: args.step,
    }
}

/// An unknown name: the error, with a did-you-mean, and exit 2.
fn unknown<'a>(
    io: &mut Io<'_>,
    what: &str,
    name: &str,
    known: impl IntoIterator<Item = &'a str> + Clone,
) -> i32 {
    let hint = match suggest(name, known.clone()) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => {
            let list: Vec<&str> = known.into_iter().take(12).collect();
            format!(" (known: {})", list.join(", "))
        }
    };
    // `what` may name where it was looked for after the kind: "state in machine `M`".
    let text = match what.split_once(" in ") {
        Some((kind, place)) => format!("no {kind} `{name}` in {place}"),
        None => format!("no {what} `{name}`"),
    };
    let _ = writeln!(io.err, "error: {text}{hint}");
    EXIT_CANNOT_RUN
}

/// The target the flags name, checked against the program.
fn target_of(
    args: &ReachArgs,
    program: &Program,
    scene: &str,
    io: &mut Io<'_>,
) -> Result<Target, i32> {
    let base = Target::new;
    if let Some(spec) = &args.state {
        let (m, s) = state_of(program, spec, io)?;
        let (machine, state) = (program.name(program.machine(m).name), spec_state(spec));
        if let Some(agent) = &args.agent {
            let agents = agents_of(program, scene);
            if !agents.iter().any(|a| a == agent) {
                return Err(unknown(
                    io,
                    &format!("agent in scene `{scene}`"),
                    agent,
                    agents.iter().map(String::as_str),
                ));
            }
        }
        let mut t = base(
            match &args.agent {
                Some(a) => format!("state {machine}/{state} of {a}"),
                None => format!("state {machine}/{state}"),
            },
            EventPattern {
                event: "enter".into(),
                agent: args.agent.clone(),
                machine: Some(machine.to_string()),
                state: Some(state.to_string()),
                ..Default::default()
            },
        );
        t.states = vec![s];
        t.agent = args.agent.clone();
        return Ok(t);
    }
    if let Some(id) = &args.line {
        return line_of(program, id, io).map(|(label, p)| base(label, p));
    }
    if let Some(spec) = &args.rule {
        let (script, rule, label) = rule_of(program, spec, io)?;
        let mut t = base(
            format!("rule {label}"),
            EventPattern {
                event: "*".into(),
                script: Some(program.name(program.scripts[script as usize].name).into()),
                ..Default::default()
            },
        );
        t.rule = Some((script, rule));
        return Ok(t);
    }
    if let Some(name) = &args.action {
        if is_chat(program, scene) {
            let known: Vec<&str> = program
                .hpmm
                .actions
                .iter()
                .map(|a| program.name(a.name))
                .collect();
            if !known.contains(&name.as_str()) {
                return Err(unknown(io, "reply action", name, known.iter().copied()));
            }
            let mut t = base(
                format!("reply {name}"),
                EventPattern {
                    event: "output".into(),
                    action: Some(name.clone()),
                    ..Default::default()
                },
            );
            t.hmm_action = Some(name.clone());
            return Ok(t);
        }
        return Ok(base(
            format!("action {name}"),
            EventPattern {
                event: "act".into(),
                action: Some(name.clone()),
                ..Default::default()
            },
        ));
    }
    if let Some(text) = &args.event {
        let options = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let pattern: EventPattern = match options.from_str(text) {
            Ok(p) => p,
            Err(e) => {
                let _ = writeln!(
                    io.err,
                    "error: --event `{text}` is not a pattern like `(event: \"enter\", state: \"Finish\")`: {e}"
                );
                return Err(EXIT_CANNOT_RUN);
            }
        };
        let mut t = base(format!("event {pattern}"), pattern.clone());
        // An exact state entered guides the search like --state.
        if let (Some(m), Some(s)) = (&pattern.machine, &pattern.state)
            && pattern.event == "enter"
            && let Some(mid) = program.machine_by_name(m)
            && let Some(sid) = program.state_by_name(mid, s)
        {
            t.states = vec![sid];
            t.agent = pattern.agent.clone().filter(|a| !a.contains('*'));
        }
        return Ok(t);
    }
    let _ = writeln!(
        io.err,
        "error: no target: --state, --line, --rule, --action or --event"
    );
    Err(EXIT_CANNOT_RUN)
}

fn spec_state(spec: &str) -> &str {
    spec.split_once('/').map_or(spec, |(_, s)| s)
}

/// `MACHINE/STATE`, resolved (did-you-mean on either half).
fn state_of(program: &Program, spec: &str, io: &mut Io<'_>) -> Result<(MachineId, StateId), i32> {
    let Some((m, s)) = spec.split_once('/') else {
        let _ = writeln!(io.err, "error: --state `{spec}`: write MACHINE/STATE");
        return Err(EXIT_CANNOT_RUN);
    };
    let machines: Vec<&str> = program
        .machines
        .iter()
        .map(|d| program.name(d.name))
        .collect();
    let Some(mid) = program.machine_by_name(m) else {
        return Err(unknown(io, "machine", m, machines.iter().copied()));
    };
    let Some(sid) = program.state_by_name(mid, s) else {
        let states: Vec<&str> = program
            .states_of(mid)
            .map(|s| program.name(program.state(s).name))
            .collect();
        return Err(unknown(
            io,
            &format!("state in machine `{m}`"),
            s,
            states.iter().copied(),
        ));
    };
    Ok((mid, sid))
}

/// A sentence state's name, or a candidate line's 8-hex id.
fn line_of(program: &Program, id: &str, io: &mut Io<'_>) -> Result<(String, EventPattern), i32> {
    let speech = &program.speech;
    if id.len() == 8
        && let Ok(hex) = u32::from_str_radix(id, 16)
    {
        for sentence in &speech.sentences {
            let first = sentence.first_candidate as usize;
            let count = sentence.candidate_count as usize;
            for c in speech.candidates.iter().skip(first).take(count) {
                if c.id == hex {
                    let text: String = c
                        .parts
                        .iter()
                        .map(|p| match p {
                            ensemble_runtime::speech::Part::Text(t) => t.clone(),
                            ensemble_runtime::speech::Part::Slot(_) => "*".into(),
                        })
                        .collect();
                    let name = program.name(sentence.name).to_string();
                    return Ok((
                        format!("line {id} of {name} ({:?})", text.trim()),
                        EventPattern {
                            event: "say".into(),
                            sentence: Some(name),
                            text: Some(text.trim().to_string()),
                            ..Default::default()
                        },
                    ));
                }
            }
        }
        let _ = writeln!(
            io.err,
            "error: no candidate line `{id}` (ids: `ensemble build --strings`)"
        );
        return Err(EXIT_CANNOT_RUN);
    }
    let names: Vec<&str> = speech
        .sentences
        .iter()
        .map(|s| program.name(s.name))
        .collect();
    if !names.contains(&id) {
        return Err(unknown(io, "sentence state", id, names.iter().copied()));
    }
    Ok((
        format!("a line of {id}"),
        EventPattern {
            event: "say".into(),
            sentence: Some(id.to_string()),
            ..Default::default()
        },
    ))
}

/// `SCRIPT/RULE` or `SCRIPT/STATE/RULE`: (script index, rule index, its coverage name).
fn rule_of(program: &Program, spec: &str, io: &mut Io<'_>) -> Result<(u32, u32, String), i32> {
    let parts: Vec<&str> = spec.split('/').collect();
    let (script, state, rule) = match parts.as_slice() {
        [s, r] => (*s, None, *r),
        [s, st, r] => (*s, Some(*st), *r),
        _ => {
            let _ = writeln!(
                io.err,
                "error: --rule `{spec}`: write SCRIPT/RULE or SCRIPT/STATE/RULE"
            );
            return Err(EXIT_CANNOT_RUN);
        }
    };
    let scripts: Vec<&str> = program
        .scripts
        .iter()
        .map(|s| program.name(s.name))
        .collect();
    let Some(si) = scripts.iter().position(|s| *s == script) else {
        return Err(unknown(io, "script", script, scripts.iter().copied()));
    };
    let def = &program.scripts[si];
    let mut names = Vec::new();
    for st in &def.states {
        let first = st.first_rule as usize;
        for r in first..first + st.rule_count as usize {
            let Some(rd) = def.rules.get(r) else { continue };
            let rn = program.name(rd.name);
            let sn = program.name(st.name);
            names.push(rn);
            if rn == rule && state.is_none_or(|s| s == sn) {
                return Ok((si as u32, r as u32, format!("{script}/{sn}/{rn}")));
            }
        }
    }
    Err(unknown(
        io,
        &format!("rule in script `{script}`"),
        rule,
        names.iter().copied(),
    ))
}

/// The agents of a machine scene (machine-driven and ambient) or a conversation's.
fn agents_of(program: &Program, scene: &str) -> Vec<String> {
    if let Some(id) = program.scene_by_name(scene) {
        let def = &program.scenes[id.index()];
        let own = def.agents.iter().map(|a| a.name);
        let ambient = def.ambient.iter().map(|a| a.name);
        return own
            .chain(ambient)
            .map(|n| program.name(n).to_string())
            .collect();
    }
    Vec::new()
}

/// Machine scenes whose agents run `machine` (as their root or hosted below it).
fn scenes_running(program: &Program, machine: MachineId) -> Vec<String> {
    let mut out = Vec::new();
    for scene in &program.scenes {
        let runs = scene.agents.iter().any(|a| {
            let mut stack = vec![a.machine];
            let mut seen = vec![a.machine];
            while let Some(m) = stack.pop() {
                if m == machine {
                    return true;
                }
                for s in program.states_of(m) {
                    if let Modifier::Machine(c) = program.state(s).modifier
                        && !seen.contains(&c)
                    {
                        seen.push(c);
                        stack.push(c);
                    }
                }
            }
            false
        });
        if runs {
            out.push(program.name(scene.name).to_string());
        }
    }
    out
}

/// `--uncovered`: every item the project's tests never reach, tried in the scenes that can
/// show it; a test written into `-o DIR` for each one reached.
fn uncovered(args: &ReachArgs, loaded: &Loaded, io: &mut Io<'_>) -> i32 {
    use crate::content_test::coverage::{self, Reached};
    let program = &loaded.program;
    let c = &loaded.compilation;
    let mut quiet = crate::diag::Diagnostics::default();
    let tests = crate::content_test::lower(&c.sources, &c.module, &mut quiet);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results = crate::content_test::run::run_all(program, &tests, threads);
    let mut all = Reached::default();
    for r in &results {
        all.merge(&r.reached);
    }
    let sections = coverage::report(program, &all);
    let machine_scenes: Vec<String> = program
        .scenes
        .iter()
        .map(|s| program.name(s.name).to_string())
        .collect();
    // (label, scenes to try, target)
    let mut targets: Vec<(String, Vec<String>, Target)> = Vec::new();
    let mut skipped: Vec<String> = Vec::new();
    for section in &sections {
        for item in section.never_reached() {
            let base = Target::new;
            match section.kind {
                "states" => {
                    let Some((m, s)) = item.name.split_once('/') else {
                        continue;
                    };
                    let Some(mid) = program.machine_by_name(m) else {
                        continue;
                    };
                    let Some(sid) = program.state_by_name(mid, s) else {
                        continue;
                    };
                    let mut t = base(
                        format!("state {m}/{s}"),
                        EventPattern {
                            event: "enter".into(),
                            machine: Some(m.into()),
                            state: Some(s.into()),
                            ..Default::default()
                        },
                    );
                    t.states = vec![sid];
                    // A machine no scene hosts may still run (a planning action's machine):
                    // then every scene is tried.
                    let mut scenes = scenes_running(program, mid);
                    if scenes.is_empty() {
                        scenes = machine_scenes.clone();
                    }
                    targets.push((item.name.clone(), scenes, t));
                }
                "rules" => {
                    let Ok((si, ri, label)) = quietly(|io| rule_of(program, &item.name, io)) else {
                        continue;
                    };
                    let mut t = base(
                        format!("rule {label}"),
                        EventPattern {
                            event: "*".into(),
                            script: Some(program.name(program.scripts[si as usize].name).into()),
                            ..Default::default()
                        },
                    );
                    t.rule = Some((si, ri));
                    targets.push((item.name.clone(), machine_scenes.clone(), t));
                }
                "actions" => {
                    let Some((_, action)) = item.name.split_once(": ") else {
                        continue;
                    };
                    let t = base(
                        format!("action {action}"),
                        EventPattern {
                            event: "act".into(),
                            action: Some(action.into()),
                            ..Default::default()
                        },
                    );
                    targets.push((item.name.clone(), machine_scenes.clone(), t));
                }
                "lines" => {
                    let id = item
                        .name
                        .split_once(" #")
                        .and_then(|(_, rest)| rest.get(..8))
                        .unwrap_or_default()
                        .to_string();
                    if let Ok((label, p)) = quietly(|io| line_of(program, &id, io)) {
                        targets.push((item.name.clone(), machine_scenes.clone(), base(label, p)));
                    }
                }
                _ => skipped.push(format!("{}: {}", section.kind, item.name)),
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
    for (n, (name, scenes, target)) in targets.iter().enumerate() {
        let mut found = None;
        let mut proof = None;
        let per_scene = args.time_limit / scenes.len().max(1) as f64;
        for scene in scenes {
            let mut a = budget_of(args, &loaded.tests, scene, is_chat(program, scene));
            a.time = Duration::from_secs_f64(per_scene.max(0.5));
            let choices = Choices::of(&c.module, &args.path, scene, &loaded.tests);
            match search(program, scene, target, &choices, &a).0 {
                Outcome::Reached { play, pattern, .. } => {
                    found = Some((scene.clone(), play, pattern));
                    break;
                }
                Outcome::Unreachable { why } => {
                    proof = Some(why);
                    break;
                }
                _ => {}
            }
        }
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

/// Runs `f` with its messages dropped (a target `--uncovered` cannot name is skipped).
fn quietly<T>(f: impl FnOnce(&mut Io<'_>) -> T) -> T {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    f(&mut Io {
        out: &mut out,
        err: &mut err,
        color: false,
    })
}

fn write_one(
    file: &Path,
    scene: &str,
    play: &Play,
    pattern: &EventPattern,
    target: &Target,
    io: &mut Io<'_>,
) -> Result<(), i32> {
    if let Some(parent) = file.parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        let _ = writeln!(io.err, "error: cannot create {}: {e}", parent.display());
        return Err(EXIT_CANNOT_RUN);
    }
    let test = play.test(&format!("reaches {}", target.label), scene, pattern);
    let text = test_file(
        vec![test],
        &format!("the play that reaches {}", target.label),
    );
    ensemble_runtime::fs::write_atomic(file, text.as_bytes()).map_err(|e| {
        let _ = writeln!(io.err, "error: cannot write {}: {e}", file.display());
        EXIT_CANNOT_RUN
    })
}
