//! Running tests: every test × seed on the simulated world, in parallel across cores, each
//! run judged on its own trace. Results come back in test order, then seed order, whatever
//! thread ran them.

use super::asset::{DrawKind, Outcome, SetupAsset, TestAsset, TestEvent};
use super::check::ContentTest;
use super::coverage::Reached;
use super::expect::{Broken, Recorded, judge};
use ensemble_runtime::Program;
use ensemble_runtime::trace::{EventKind, TraceEvent};
use ensemble_sim::simulation::{Options, SceneKind, Setup};
use ensemble_sim::{ForcedDraw, ForcedOutcome, Simulation};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How many trace lines a failure shows: before the failing tick, of the failing tick at
/// most, and after it.
const CONTEXT_BEFORE: usize = 8;
const CONTEXT_AT: usize = 16;
const CONTEXT_AFTER: usize = 2;

/// One run of a test with one seed.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Index of the test in the list run.
    pub test: usize,
    pub seed: u64,
    /// Ticks the run lasted.
    pub ticks: u64,
    /// The expectations that failed: (index in the test, why).
    pub failures: Vec<(usize, Broken)>,
    /// The run could not start (or go on): why.
    pub error: Option<String>,
    /// The trace around the first failing tick, as `--trace json` lines and as text.
    pub context: Vec<TraceEvent>,
    pub reached: Reached,
}

impl RunResult {
    fn failed_to_run(test: usize, seed: u64, why: impl Into<String>) -> RunResult {
        RunResult {
            test,
            seed,
            ticks: 0,
            failures: Vec::new(),
            error: Some(why.into()),
            context: Vec::new(),
            reached: Reached::default(),
        }
    }

    pub fn passed(&self) -> bool {
        self.failures.is_empty() && self.error.is_none()
    }

    /// Each broken expectation of `test` (the test this run ran), as reports say it:
    /// `Before (expect[0]) failed at tick 835: …`.
    pub fn broken(&self, test: &TestAsset) -> Vec<String> {
        self.failures
            .iter()
            .map(|(i, b)| {
                let kind = test.expect.get(*i).map_or("?", super::expect::kind);
                format!(
                    "{kind} (expect[{i}]) failed at tick {}: {}",
                    b.tick, b.message
                )
            })
            .collect()
    }

    /// The earliest failing tick, if any expectation failed.
    pub fn first_failing_tick(&self) -> Option<u64> {
        self.failures.iter().map(|(_, b)| b.tick).min()
    }
}

/// The simulation's setup for a test's mocks.
pub fn setup_of(test: &TestAsset) -> Setup {
    let mut setup = Setup::default();
    for s in &test.setup {
        match s {
            SetupAsset::Action {
                action,
                target,
                outcome,
                probability,
            } => setup.outcomes.push(ForcedOutcome {
                action: action.clone(),
                target: target.clone(),
                succeeds: *outcome == Outcome::Succeeds,
                probability: probability.unwrap_or(1.0),
            }),
            SetupAsset::Variable { agent, name, value } => {
                setup
                    .variables
                    .push((agent.clone(), name.clone(), value.clone()))
            }
            SetupAsset::StartIn { agent, state } => {
                setup.start_in.push((agent.clone(), state.clone()))
            }
            SetupAsset::Disable { machine, state } => {
                setup.disabled.push((machine.clone(), state.clone()))
            }
            SetupAsset::World { name, at } => setup.world_events.push((name.clone(), *at)),
            SetupAsset::Draw { kind, n, value } => setup.draws.push(ForcedDraw {
                kind: match kind {
                    DrawKind::Line => ensemble_runtime::rng::DrawKind::Line,
                    DrawKind::Chance => ensemble_runtime::rng::DrawKind::Chance,
                },
                n: *n,
                value: *value,
            }),
        }
    }
    setup
}

/// A run of a test as it went: its trace, how long it lasted, what it reached, and why it
/// could not go on (if it could not).
pub struct Driven {
    pub trace: Vec<TraceEvent>,
    pub ticks: u64,
    pub reached: Reached,
    pub error: Option<String>,
    /// Stopped at its deadline: the expectations are not judged on what it ran.
    pub timed_out: bool,
}

/// When a run must end, and the time it was given.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    pub at: Instant,
    pub given: Duration,
}

impl Deadline {
    /// `given` from now (as late as can be said, if that is beyond).
    pub fn after(given: Duration) -> Deadline {
        let now = Instant::now();
        Deadline {
            at: now
                .checked_add(given)
                .unwrap_or(now + Duration::from_secs(86_400 * 365)),
            given,
        }
    }

    fn seconds(&self) -> String {
        format!("{}", self.given.as_secs_f64())
    }
}

/// Runs `test` with `seed` as `ensemble test` does — its setup, its messages at their ticks,
/// its player lines — handing `watch` the simulation once it has started and after every
/// tick, with the events recorded since (the editor records its timeline from these).
/// `Err`: the scene could not start.
pub fn drive(
    program: &Arc<Program>,
    test: &TestAsset,
    seed: u64,
    watch: impl FnMut(&Simulation, &[TraceEvent]),
) -> Result<Driven, String> {
    drive_until(program, test, seed, None, watch)
}

/// [`drive`], stopping after the first tick that ends past `deadline` (the run's error then
/// says so).
pub fn drive_until(
    program: &Arc<Program>,
    test: &TestAsset,
    seed: u64,
    deadline: Option<Deadline>,
    mut watch: impl FnMut(&Simulation, &[TraceEvent]),
) -> Result<Driven, String> {
    let options = Options {
        setup: setup_of(test),
        ..Options::default()
    };
    let mut sim = Simulation::start(program.clone(), &test.scene, seed, &options)
        .map_err(|e| format!("cannot start scene `{}`: {e}", test.scene))?;
    let mut run = Driven {
        trace: sim.take_events(),
        ticks: 0,
        reached: Reached::default(),
        error: None,
        timed_out: false,
    };
    watch(&sim, &run.trace);
    run.reached.note_beliefs(&sim);
    let mut lines = test.chat.iter();
    for tick in 1..=test.ticks {
        for e in test.events.iter().filter(|e| e.tick() == tick) {
            let applied = match e {
                TestEvent::Send {
                    to, message, from, ..
                } => send(&mut sim, to, from.as_deref().unwrap_or(to), message),
                _ => super::player::apply(&mut sim, e),
            };
            if let Err(e) = applied {
                run.error = Some(format!("tick {tick}: {e}"));
            }
        }
        if sim.kind() == SceneKind::Chat && sim.awaits_player() {
            match lines.next() {
                Some(line) => {
                    sim.say(line);
                }
                // The player has said everything and the agent has fallen silent.
                None => break,
            }
        }
        sim.tick();
        let events = sim.take_events();
        watch(&sim, &events);
        run.trace.extend(events);
        run.reached.note_beliefs(&sim);
        if let Some(d) = &deadline
            && d.at <= Instant::now()
        {
            run.error = Some(format!(
                "stopped after tick {tick} of {}: past the deadline of {} s a run (--deadline \
                 SECONDS allows more)",
                test.ticks,
                d.seconds()
            ));
            run.timed_out = true;
            break;
        }
    }
    run.ticks = sim.tick_count();
    // A forced draw that did not fit, or that the run never made, is the test's mistake.
    let draws = sim.draw_problems();
    if run.error.is_none() && !draws.is_empty() {
        run.error = Some(draws.join("; "));
    }
    run.reached.note_trace(&run.trace);
    if let Some(interactions) = sim.interactions() {
        run.reached.rules = interactions.fired_rules();
    }
    Ok(run)
}

/// Runs one test with one seed (stopped, and failed, past `within` if given).
pub fn run_one(
    program: &Arc<Program>,
    index: usize,
    test: &TestAsset,
    seed: u64,
    within: Option<Duration>,
) -> RunResult {
    let deadline = within.map(Deadline::after);
    let Driven {
        trace,
        ticks,
        reached,
        error,
        timed_out,
    } = match drive_until(program, test, seed, deadline, |_, _| {}) {
        Ok(run) => run,
        Err(why) => return RunResult::failed_to_run(index, seed, why),
    };
    let mut result = RunResult {
        test: index,
        seed,
        ticks,
        failures: Vec::new(),
        error,
        context: Vec::new(),
        reached,
    };
    if timed_out {
        return result;
    }
    let recorded: Vec<Recorded> = trace.iter().map(Recorded::of).collect();
    for (i, e) in test.expect.iter().enumerate() {
        if let Some(broken) = judge(e, &recorded, result.ticks) {
            result.failures.push((i, broken));
        }
    }
    if let Some(tick) = result.first_failing_tick() {
        let at = trace
            .iter()
            .position(|e| e.tick >= tick)
            .unwrap_or(trace.len());
        let of_tick = trace[at..].iter().take_while(|e| e.tick == tick).count();
        let from = at.saturating_sub(CONTEXT_BEFORE);
        let to = (at + of_tick.min(CONTEXT_AT) + CONTEXT_AFTER).min(trace.len());
        result.context = trace[from..to].to_vec();
    }
    result
}

/// A test's message, as the game would send it.
fn send(sim: &mut Simulation, to: &str, from: &str, message: &str) -> Result<(), String> {
    let Some((scene, _)) = sim.scene_mut() else {
        return Err("a conversation takes no messages".into());
    };
    let id = |name: &str| {
        scene
            .agents()
            .find(|a| scene.agent_name(*a) == name)
            .ok_or_else(|| format!("no agent `{name}` to send `{message}`"))
    };
    let (to, from) = (id(to)?, id(from)?);
    scene.send(to, from, message);
    Ok(())
}

/// Runs every test with every seed on up to `threads` threads; results in test order, then
/// seed order.
pub fn run_all(program: &Arc<Program>, tests: &[ContentTest], threads: usize) -> Vec<RunResult> {
    run_all_within(program, tests, threads, None)
}

/// [`run_all`], each run (a test with one seed) stopped and failed past `within`.
pub fn run_all_within(
    program: &Arc<Program>,
    tests: &[ContentTest],
    threads: usize,
    within: Option<Duration>,
) -> Vec<RunResult> {
    let jobs: Vec<(usize, u64)> = tests
        .iter()
        .enumerate()
        .flat_map(|(i, t)| t.test.seeds.to_vec().into_iter().map(move |s| (i, s)))
        .collect();
    let next = AtomicUsize::new(0);
    let threads = threads.clamp(1, jobs.len().max(1));
    let mut done: Vec<(usize, RunResult)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let j = next.fetch_add(1, Ordering::Relaxed);
                        let Some(&(test, seed)) = jobs.get(j) else {
                            break;
                        };
                        // A panic in one run is that run's error, not the end of the others.
                        let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            run_one(program, test, &tests[test].test, seed, within)
                        }));
                        done.push((
                            j,
                            run.unwrap_or_else(|_| {
                                RunResult::failed_to_run(test, seed, "an internal error (a panic)")
                            }),
                        ));
                    }
                    done
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    });
    done.sort_by_key(|(j, _)| *j);
    done.into_iter().map(|(_, r)| r).collect()
}

/// The candidate line a `say` event spoke, by its stable id.
pub(super) fn candidate_said(e: &TraceEvent) -> Option<u32> {
    match &e.kind {
        EventKind::Say {
            candidate: Some(c), ..
        } => Some(*c),
        _ => None,
    }
}
