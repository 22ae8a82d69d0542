//! The Tests panel (the bottom dock's third tab): runs the project's content tests
//! (docs/formats/test.md) on a background thread with the library code `ensemble test` uses,
//! lists every test × seed as passed or failed, shows a failure's message, and loads a failing
//! run into the preview's timeline at its failing tick (the run is replayed with the same
//! setup, messages and seed, recording a snapshot per tick). What no run reached is marked in
//! the machine graphs ([`TestsPanel::unreached_states`]) and the rule table
//! ([`TestsPanel::unreached_rules`]).

use crate::analysis::{ProgramOf, Report};
use crate::preview::snapshot::{History, replay};
use crate::theme;
use eframe::egui::{self, RichText, Ui};
use ensemble_compiler::content_test::{ContentTest, lower};
use ensemble_compiler::content_test::{Reached, Section, coverage_report};
use ensemble_compiler::content_test::{RunResult, run_all};
use ensemble_runtime::Program;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, channel};
use std::time::Instant;

/// Every run of the last `Run tests`, with the coverage over all of them.
pub struct Outcome {
    pub tests: Vec<ContentTest>,
    /// In test order, then seed order.
    pub runs: Vec<RunResult>,
    pub coverage: Vec<Section>,
    pub reached: Reached,
    pub seconds: f64,
    program: Arc<Program>,
}

impl Outcome {
    pub fn failed_runs(&self) -> usize {
        self.runs.iter().filter(|r| !r.passed()).count()
    }

    /// The runs of test `test`.
    pub fn runs_of(&self, test: usize) -> impl Iterator<Item = (usize, &RunResult)> {
        self.runs
            .iter()
            .enumerate()
            .filter(move |(_, r)| r.test == test)
    }

    /// What went wrong in a run, as the CLI's report says it: why it could not run, else each
    /// broken expectation with its tick.
    pub fn message(&self, run: &RunResult) -> String {
        if let Some(e) = &run.error {
            return e.clone();
        }
        run.broken(&self.tests[run.test].test).join("\n")
    }
}

/// A failing run replayed for the timeline.
pub struct Replayed {
    pub history: History,
    /// The tick to show: the run's first failing tick (or its last, if it could not go on).
    pub tick: u64,
    /// `TEST, seed S`.
    pub label: String,
    pub scene: String,
    pub seed: u64,
}

#[derive(Default)]
pub struct TestsPanel {
    running: Option<(Receiver<Outcome>, Instant)>,
    replaying: Option<Receiver<Result<Replayed, String>>>,
    pub outcome: Option<Outcome>,
    /// The run (index into [`Outcome::runs`]) whose details are shown.
    pub selected: Option<usize>,
    /// Why the tests could not run, or a replay failed.
    pub error: Option<String>,
    /// The run last loaded into the preview.
    pub shown: Option<String>,
}

impl TestsPanel {
    pub fn is_running(&self) -> bool {
        self.running.is_some() || self.replaying.is_some()
    }

    /// Runs every content test of the last compile, whose program `program_of` gives (the
    /// preview's), on a background thread.
    pub fn run(&mut self, report: Option<&Report>, program_of: ProgramOf) {
        let Some(report) = report else {
            self.error = Some("The project has not been compiled yet.".into());
            return;
        };
        let c = match &report.compilation {
            Ok(c) if !c.diagnostics.has_errors() => c,
            Ok(_) => {
                self.error = Some("The project has errors (see Problems): no test can run.".into());
                return;
            }
            Err(e) => {
                self.error = Some(e.clone());
                return;
            }
        };
        let program = match program_of(report) {
            Ok(p) => p,
            Err(e) => {
                self.error = Some(e);
                return;
            }
        };
        // Checked with the compile already; read again for the tests themselves.
        let mut quiet = ensemble_compiler::diag::Diagnostics::default();
        let tests = lower(&c.sources, &c.module, &mut quiet);
        if tests.is_empty() {
            self.error = Some("No tests in this project: add a *.test.ron file.".into());
            return;
        }
        self.error = None;
        self.selected = None;
        let (tx, rx) = channel();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let spawned = std::thread::Builder::new()
            .name("ensemble-tests".into())
            .spawn(move || {
                let started = Instant::now();
                let runs = run_all(&program, &tests, threads);
                let mut reached = Reached::default();
                for r in &runs {
                    reached.merge(&r.reached);
                }
                let coverage = coverage_report(&program, &reached);
                let _ = tx.send(Outcome {
                    tests,
                    runs,
                    coverage,
                    reached,
                    seconds: started.elapsed().as_secs_f64(),
                    program,
                });
            });
        match spawned {
            Ok(_) => self.running = Some((rx, Instant::now())),
            Err(e) => self.error = Some(format!("cannot start the tests: {e}")),
        }
    }

    /// Replays run `index` of the outcome on a background thread, for the timeline.
    pub fn replay(&mut self, index: usize) {
        let Some(o) = &self.outcome else { return };
        let Some(run) = o.runs.get(index) else { return };
        let test = o.tests[run.test].test.clone();
        let (program, seed) = (o.program.clone(), run.seed);
        let tick = run.first_failing_tick().unwrap_or(run.ticks);
        let label = format!("{}, seed {seed}", test.name);
        let scene = test.scene.clone();
        let (tx, rx) = channel();
        let spawned = std::thread::Builder::new()
            .name("ensemble-test-replay".into())
            .spawn(move || {
                let replayed = replay(&program, &test, seed);
                let _ = tx.send(replayed.map(|history| Replayed {
                    history,
                    tick,
                    label,
                    scene,
                    seed,
                }));
            });
        match spawned {
            Ok(_) => self.replaying = Some(rx),
            Err(e) => self.error = Some(format!("cannot replay the run: {e}")),
        }
    }

    /// Takes what the background threads finished; a replayed run for the preview to show.
    /// `ctx` is asked to repaint while they work.
    pub fn poll(&mut self, ctx: &egui::Context) -> Option<Replayed> {
        if let Some((rx, _)) = &self.running {
            match rx.try_recv() {
                Ok(outcome) => {
                    self.running = None;
                    self.selected = outcome.runs.iter().position(|r| !r.passed());
                    self.outcome = Some(outcome);
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.running = None;
                    self.error = Some("the tests stopped (an internal error)".into());
                }
            }
        }
        let mut done = None;
        if let Some(rx) = &self.replaying {
            match rx.try_recv() {
                Ok(Ok(replayed)) => {
                    self.replaying = None;
                    self.shown = Some(replayed.label.clone());
                    done = Some(replayed);
                }
                Ok(Err(why)) => {
                    self.replaying = None;
                    self.error = Some(why);
                }
                Err(std::sync::mpsc::TryRecvError::Empty) => {}
                Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                    self.replaying = None;
                    self.error = Some("the replay stopped (an internal error)".into());
                }
            }
        }
        if self.is_running() {
            ctx.request_repaint_after(std::time::Duration::from_millis(30));
        }
        done
    }

    /// States of `machine` no run of the last outcome entered (none before tests have run).
    pub fn unreached_states(&self, machine: &str) -> Vec<String> {
        let Some(o) = &self.outcome else {
            return Vec::new();
        };
        let p = &o.program;
        p.states
            .iter()
            .filter(|s| p.name(p.machine(s.machine).name) == machine)
            .map(|s| p.name(s.name).to_string())
            .filter(|s| {
                !o.reached
                    .states
                    .iter()
                    .any(|(m, st)| &**m == machine && **st == **s)
            })
            .collect()
    }

    /// `(state, rule)` names of the rules of script `script` no run fired (none before tests
    /// have run).
    pub fn unreached_rules(&self, script: &str) -> BTreeSet<(String, String)> {
        let Some(o) = &self.outcome else {
            return BTreeSet::new();
        };
        let p = &o.program;
        let mut never = BTreeSet::new();
        for (si, s) in p.scripts.iter().enumerate() {
            if p.name(s.name) != script {
                continue;
            }
            for state in &s.states {
                let first = state.first_rule as usize;
                for r in first..first + state.rule_count as usize {
                    if let Some(rule) = s.rules.get(r)
                        && !o.reached.rules.contains(&(si as u32, r as u32))
                    {
                        never.insert((
                            p.name(state.name).to_string(),
                            p.name(rule.name).to_string(),
                        ));
                    }
                }
            }
        }
        never
    }

    /// The tab: the Run button, tests × seeds, the selected failure, coverage. A clicked
    /// failing run is replayed for the timeline (see [`TestsPanel::poll`]).
    pub fn ui(&mut self, ui: &mut Ui, report: Option<&Report>, program_of: ProgramOf) {
        ui.set_min_size(ui.available_size());
        ui.horizontal(|ui| {
            let run = ui
                .add_enabled(!self.is_running(), egui::Button::new("▶ Run tests"))
                .on_hover_text(
                    "Run every content test (*.test.ron) with every seed, as `ensemble test` does",
                );
            if run.clicked() {
                self.run(report, program_of);
            }
            if let Some((_, since)) = &self.running {
                ui.spinner();
                ui.label(format!("running… {:.1} s", since.elapsed().as_secs_f64()));
            } else if self.replaying.is_some() {
                ui.spinner();
                ui.label("replaying the run for the timeline…");
            } else if let Some(o) = &self.outcome {
                let failed = o.failed_runs();
                let (text, color) = if failed == 0 {
                    (
                        format!("{} tests, {} runs: all passed", o.tests.len(), o.runs.len()),
                        theme::OK,
                    )
                } else {
                    (
                        format!(
                            "{} tests, {} runs: {failed} failed",
                            o.tests.len(),
                            o.runs.len()
                        ),
                        theme::ERROR,
                    )
                };
                ui.label(RichText::new(text).color(color).strong());
                ui.label(RichText::new(format!("in {:.2} s", o.seconds)).color(theme::TEXT_WEAK));
            }
            if let Some(shown) = &self.shown {
                ui.label(RichText::new(format!("timeline: {shown}")).color(theme::ACCENT));
            }
        });
        if let Some(e) = &self.error {
            ui.label(RichText::new(e).color(theme::ERROR));
        }
        let Some(o) = &self.outcome else {
            if self.error.is_none() && self.running.is_none() {
                ui.label(
                    RichText::new(
                        "Run the project's tests to see which pass, and what no run reaches.",
                    )
                    .color(theme::TEXT_WEAK),
                );
            }
            return;
        };
        let mut clicked = None;
        ui.columns(2, |cols| {
            egui::ScrollArea::vertical()
                .id_salt("tests-runs")
                .auto_shrink([false, false])
                .show(&mut cols[0], |ui| {
                    for (ti, t) in o.tests.iter().enumerate() {
                        let passed = o.runs_of(ti).all(|(_, r)| r.passed());
                        ui.horizontal_wrapped(|ui| {
                            let (mark, color) = if passed {
                                ("✔", theme::OK)
                            } else {
                                ("✖", theme::ERROR)
                            };
                            ui.label(RichText::new(mark).color(color));
                            ui.label(RichText::new(&t.test.name).color(theme::TEXT))
                                .on_hover_text(format!(
                                    "{}:{} · scene {}",
                                    t.file, t.line, t.test.scene
                                ));
                        });
                        ui.horizontal_wrapped(|ui| {
                            ui.add_space(18.0);
                            for (i, r) in o.runs_of(ti) {
                                let color = if r.passed() { theme::OK } else { theme::ERROR };
                                let text = RichText::new(format!("{}", r.seed))
                                    .color(color)
                                    .monospace();
                                let cell = ui
                                    .selectable_label(self.selected == Some(i), text)
                                    .on_hover_text(if r.passed() {
                                        format!("seed {} passed", r.seed)
                                    } else {
                                        format!(
                                            "seed {} failed: click to show it in the timeline",
                                            r.seed
                                        )
                                    });
                                if cell.clicked() {
                                    clicked = Some(i);
                                }
                            }
                        });
                    }
                });
            egui::ScrollArea::vertical()
                .id_salt("tests-details")
                .auto_shrink([false, false])
                .show(&mut cols[1], |ui| {
                    if let Some(r) = self.selected.and_then(|i| o.runs.get(i)) {
                        let name = &o.tests[r.test].test.name;
                        if r.passed() {
                            ui.label(
                                RichText::new(format!(
                                    "{name} — seed {} passed in {} ticks",
                                    r.seed, r.ticks
                                ))
                                .color(theme::OK),
                            );
                        } else {
                            let at = r
                                .first_failing_tick()
                                .map_or(String::new(), |t| format!(", first failing tick {t}"));
                            ui.label(
                                RichText::new(format!("{name} — seed {}{at}", r.seed))
                                    .color(theme::ERROR)
                                    .strong(),
                            );
                            ui.label(RichText::new(o.message(r)).monospace().color(theme::TEXT));
                        }
                        ui.add_space(6.0);
                    }
                    ui.label(
                        RichText::new("COVERAGE")
                            .font(theme::section_font())
                            .color(theme::TEXT_WEAK),
                    );
                    // A kind the project has none of (no planning actions in a chat-only
                    // project) says nothing; "0/0 reached" read as a gap in its tests.
                    for s in o.coverage.iter().filter(|s| s.total > 0) {
                        // The JSON's section keys, in words.
                        let kind = s.kind.replace("hmm_", "HMM ").replace('_', " ");
                        egui::CollapsingHeader::new(format!(
                            "{kind}: {}/{} reached",
                            s.reached, s.total
                        ))
                        .id_salt(("coverage", s.kind))
                        .show(ui, |ui| {
                            for item in s.never_reached() {
                                ui.label(
                                    RichText::new(format!("never reached: {}", item.name))
                                        .color(theme::WARNING),
                                );
                            }
                        });
                    }
                });
        });
        if let Some(i) = clicked {
            let failed = o.runs.get(i).is_some_and(|r| !r.passed());
            self.selected = Some(i);
            if failed {
                self.replay(i);
            }
        }
    }
}

impl crate::panel::Coverage for TestsPanel {
    fn unreached_rules(&self, script: &str) -> BTreeSet<(String, String)> {
        TestsPanel::unreached_rules(self, script)
    }
}
