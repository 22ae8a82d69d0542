//! "How do I get here?": a state's, line's or rule's menu asks for a play that gets there.
//! The search is the compiler's ([`ensemble_compiler::reach`], what `ensemble reach` runs:
//! best-first over seeds, mocked failures, messages and player lines, every find verified as a
//! content test from tick 0). It runs on its own thread with live figures and a Stop; the play
//! found is replayed from tick 0 into the preview's timeline, shown at the tick the target
//! happens; "Save as test" writes it into the project as a content test.
//!
//! **Invariants:** at most one search runs (asking again stops the last); nothing here blocks
//! the UI thread on a search or a replay; a file is only ever replaced if `reach` wrote it.

use crate::analysis::{ProgramOf, Report};
use crate::preview::snapshot::{History, replay};
use crate::theme;
use eframe::egui::{self, RichText, Ui};
use ensemble_compiler::formats::tests::{EventPattern, TestAsset};
use ensemble_compiler::reach::{
    self, Attempt, Budget, Choices, Outcome, Play, Progress, Stats, Target, target,
};
use ensemble_runtime::Program;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::time::{Duration, Instant};

/// Wall time a search from the editor is given, split among the scenes that can show it.
pub const TIME: Duration = Duration::from_secs(30);
/// The folder under the project that "Save as test" writes into (`ensemble reach --uncovered`
/// writes there too).
pub const FOLDER: &str = "reached";

/// What a menu asked to reach.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Asked {
    /// A state entered: its machine and its name.
    State { machine: String, state: String },
    /// A line said: a sentence state's name (any of its lines), or a candidate's 8-hex id.
    Line(String),
    /// A rule firing: `SCRIPT/STATE/RULE`.
    Rule(String),
    /// An HMM state most believed in its space.
    HmmState { space: String, state: String },
}

impl Asked {
    fn target(&self, program: &Program) -> Result<Target, String> {
        match self {
            Asked::State { machine, state } => {
                target::state(program, &format!("{machine}/{state}"), None, None)
            }
            Asked::Line(id) => target::line(program, id),
            Asked::Rule(spec) => target::rule(program, spec),
            Asked::HmmState { space, state } => {
                target::hmm_state(program, &format!("{space}/{state}"))
            }
        }
    }

    /// A file name for its test: `state-Customer-Disappointed`.
    fn file_stem(&self) -> String {
        let raw = match self {
            Asked::State { machine, state } => format!("state-{machine}-{state}"),
            Asked::Line(id) => format!("line-{id}"),
            Asked::Rule(spec) => format!("rule-{spec}"),
            Asked::HmmState { space, state } => format!("hmm-{space}-{state}"),
        };
        raw.chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '-' {
                    c
                } else {
                    '-'
                }
            })
            .collect()
    }
}

/// A play found, replayed for the timeline.
pub struct Found {
    pub scene: String,
    pub play: Play,
    pub pattern: EventPattern,
    pub target: Target,
    /// The play as a reader follows it (what `ensemble reach` prints).
    pub story: String,
    pub stats: Stats,
    /// The replayed run, until the preview takes it.
    history: Option<History>,
}

impl Found {
    /// The play as the content test "Save as test" writes.
    pub fn test(&self) -> TestAsset {
        self.play.test(
            &format!("reaches {}", self.target.label),
            &self.scene,
            &self.pattern,
        )
    }
}

/// How the last search ended.
pub enum Ended {
    Reached(Box<Found>),
    /// No play can reach it: why (a proof over the machine graph).
    Unreachable(String),
    /// Not found within the budget: what was tried.
    NotReached(String),
    /// The search could not run.
    Failed(String),
}

/// A search on its thread.
struct Job {
    progress: Arc<Progress>,
    started: Instant,
    rx: Receiver<Ended>,
}

/// The "How do I get here?" window.
#[derive(Default)]
pub struct ReachPanel {
    /// The window is shown.
    pub open: bool,
    /// What is (or was last) searched for, as the window names it.
    pub label: String,
    asked: Option<Asked>,
    /// The budget, as the window says it.
    budget: String,
    job: Option<Job>,
    pub ended: Option<Ended>,
    /// Where "Save as test" wrote the last test.
    pub saved: Option<PathBuf>,
    pub error: Option<String>,
}

impl ReachPanel {
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// Starts searching for `asked` in the program of the last compile; `preferred` (the
    /// preview's scene) is tried first when it can show the target.
    /// Starts a search for `asked` in the last compile, whose program `program_of` gives (the
    /// preview's: the same program the preview runs).
    pub fn ask(
        &mut self,
        asked: Asked,
        report: Option<&Report>,
        program_of: ProgramOf,
        root: &Path,
        preferred: Option<&str>,
    ) {
        self.stop();
        self.open = true;
        self.ended = None;
        self.saved = None;
        self.error = None;
        self.label = match &asked {
            Asked::State { machine, state } => format!("state {machine}/{state}"),
            Asked::Line(id) => format!("line {id}"),
            Asked::Rule(spec) => format!("rule {spec}"),
            Asked::HmmState { space, state } => format!("HMM state {space}/{state}"),
        };
        self.asked = Some(asked.clone());
        match self.start(&asked, report, program_of, root, preferred) {
            Ok(job) => self.job = Some(job),
            Err(why) => self.error = Some(why),
        }
    }

    fn start(
        &mut self,
        asked: &Asked,
        report: Option<&Report>,
        program_of: ProgramOf,
        root: &Path,
        preferred: Option<&str>,
    ) -> Result<Job, String> {
        let report = report.ok_or("The project has not been compiled yet.")?;
        let c = match &report.compilation {
            Ok(c) if !c.diagnostics.has_errors() => c,
            Ok(_) => return Err("The project has errors (see Problems): nothing to search.".into()),
            Err(e) => return Err(e.clone()),
        };
        let program = program_of(report)?;
        let target = asked.target(&program)?;
        self.label = target.label.clone();
        let mut scenes = target::scenes_for(&program, &target);
        if let Some(p) = preferred
            && let Some(i) = scenes.iter().position(|s| s == p)
        {
            let first = scenes.remove(i);
            scenes.insert(0, first);
        }
        if scenes.is_empty() {
            return Err("The project has no scene to search in.".into());
        }
        let mut quiet = ensemble_compiler::diag::Diagnostics::default();
        let tests: Vec<TestAsset> =
            ensemble_compiler::content_test::lower(&c.sources, &c.module, &mut quiet)
                .into_iter()
                .map(|t| t.test)
                .collect();
        let per_scene = TIME / scenes.len() as u32;
        let attempts: Vec<Attempt> = scenes
            .iter()
            .map(|scene| {
                let mut budget = Budget::for_scene(&tests, scene, reach::is_chat(&program, scene));
                budget.time = per_scene.max(Duration::from_secs(1));
                let mut choices = Choices::of(&c.module, root, scene, &tests);
                choices.aim(&c.module, &target);
                Attempt {
                    scene: scene.clone(),
                    choices,
                    budget,
                }
            })
            .collect();
        let chat = reach::is_chat(&program, &scenes[0]);
        self.budget = format!(
            "{} in {}",
            attempts[0].budget.describe(chat),
            scenes.join(", ")
        );
        let progress = Arc::new(Progress::default());
        let (tx, rx) = channel();
        let watched = progress.clone();
        std::thread::Builder::new()
            .name("ensemble-reach".into())
            .spawn(move || {
                let _ = tx.send(search(&program, &target, &attempts, &watched));
            })
            .map_err(|e| format!("cannot start the search: {e}"))?;
        Ok(Job {
            progress,
            started: Instant::now(),
            rx,
        })
    }

    /// Stops the running search (its thread notices at its next choice point).
    pub fn stop(&mut self) {
        if let Some(job) = self.job.take() {
            job.progress.stop();
            self.ended = Some(Ended::NotReached("stopped".into()));
        }
    }

    /// Takes a finished search; a play found comes back as (its replayed run, the tick the
    /// target happens, scene, seed) for the preview to show.
    pub fn poll(&mut self, ctx: &egui::Context) -> Option<(History, u64, String, u64)> {
        let job = self.job.as_ref()?;
        match job.rx.try_recv() {
            Ok(mut ended) => {
                self.job = None;
                let shown = match &mut ended {
                    Ended::Reached(found) => found
                        .history
                        .take()
                        .map(|h| (h, found.play.ticks, found.scene.clone(), found.play.seed)),
                    _ => None,
                };
                self.ended = Some(ended);
                shown
            }
            Err(TryRecvError::Empty) => {
                ctx.request_repaint_after(Duration::from_millis(100));
                None
            }
            Err(TryRecvError::Disconnected) => {
                self.job = None;
                self.ended = Some(Ended::Failed(
                    "the search stopped (an internal error)".into(),
                ));
                None
            }
        }
    }

    /// Writes the play found into `root`/[`FOLDER`] as a content test; never over a file
    /// `reach` did not write.
    pub fn save(&mut self, root: &Path) -> Result<PathBuf, String> {
        let Some(Ended::Reached(found)) = &self.ended else {
            return Err("nothing found to save".into());
        };
        let stem = self.asked.as_ref().map_or("reach".into(), Asked::file_stem);
        let dir = root.join(FOLDER);
        let mut file = dir.join(format!("{stem}.test.ron"));
        let mut n = 2;
        while file.exists() && !reach::written_by_reach(&file) {
            file = dir.join(format!("{stem}-{n}.test.ron"));
            n += 1;
        }
        reach::write_test(
            &file,
            &found.scene,
            &found.play,
            &found.pattern,
            &found.target,
        )?;
        self.saved = Some(file.clone());
        Ok(file)
    }

    /// The window: what is searched for, live figures and Stop while it runs, then the play
    /// as a story with "Save as test".
    pub fn ui(&mut self, ctx: &egui::Context, root: &Path) {
        if !self.open {
            return;
        }
        let mut open = true;
        egui::Window::new("How do I get here?")
            .open(&mut open)
            .default_width(520.0)
            .anchor(egui::Align2::RIGHT_TOP, [-16.0, 56.0])
            .show(ctx, |ui| self.contents(ui, root));
        if !open {
            self.stop();
            self.open = false;
        }
    }

    fn contents(&mut self, ui: &mut Ui, root: &Path) {
        ui.label(RichText::new(&self.label).strong());
        if let Some(e) = &self.error {
            ui.colored_label(theme::ERROR, e);
            return;
        }
        if let Some(job) = &self.job {
            let p = &job.progress;
            let best = p.best.load(Ordering::Relaxed);
            ui.horizontal(|ui| {
                ui.spinner();
                ui.label(format!(
                    "searching: {} choice points, {} ticks, nearest {} transitions away, {:.1} s",
                    p.nodes.load(Ordering::Relaxed),
                    p.ticks.load(Ordering::Relaxed),
                    if best >= reach::FAR {
                        "?".to_string()
                    } else {
                        best.to_string()
                    },
                    job.started.elapsed().as_secs_f64()
                ));
            });
            ui.label(RichText::new(format!("budget: {}", self.budget)).color(theme::TEXT_WEAK));
            if ui.button("Stop").clicked() {
                self.stop();
            }
            return;
        }
        let mut save = false;
        match &self.ended {
            None => {}
            Some(Ended::Reached(found)) => {
                ui.colored_label(
                    theme::OK,
                    format!(
                        "Reached at tick {} in scene `{}` with seed {} and {} inputs ({} choice points, {:.2} s). The preview shows the run, stopped there.",
                        found.play.ticks,
                        found.scene,
                        found.play.seed,
                        found.play.inputs(),
                        found.stats.nodes,
                        found.stats.seconds
                    ),
                );
                egui::ScrollArea::vertical()
                    .max_height(320.0)
                    .show(ui, |ui| {
                        ui.label(RichText::new(&found.story).monospace().size(11.0));
                    });
                ui.horizontal(|ui| {
                    save = ui.button("Save as test").clicked();
                    if let Some(f) = &self.saved {
                        let shown = f.strip_prefix(root).unwrap_or(f);
                        ui.label(format!("wrote {}", shown.display()));
                    }
                });
            }
            Some(Ended::Unreachable(why)) => {
                ui.colored_label(
                    theme::ERROR,
                    format!("Unreachable: search space exhausted — {why}"),
                );
            }
            Some(Ended::NotReached(why)) => {
                ui.colored_label(
                    theme::WARNING,
                    format!("Not reached within the budget: {why}"),
                );
            }
            Some(Ended::Failed(why)) => {
                ui.colored_label(theme::ERROR, format!("The search could not run: {why}"));
            }
        }
        if save && let Err(why) = self.save(root) {
            self.error = Some(format!("Cannot save the test: {why}"));
        }
    }
}

/// The thread's work: the search across the scenes, then the play found replayed from tick 0.
fn search(
    program: &Arc<Program>,
    target: &Target,
    attempts: &[Attempt],
    progress: &Progress,
) -> Ended {
    let tried = reach::across(program, target, attempts, progress);
    let stats = tried.stats;
    match (tried.scene, tried.outcome) {
        (
            Some(scene),
            Outcome::Reached {
                play,
                trace,
                pattern,
            },
        ) => {
            let story = reach::story_of(&scene, &play, &trace);
            let found = Found {
                scene,
                play,
                pattern,
                target: target.clone(),
                story,
                stats,
                history: None,
            };
            match replay(program, &found.test(), found.play.seed) {
                Ok(history) => Ended::Reached(Box::new(Found {
                    history: Some(history),
                    ..found
                })),
                Err(why) => Ended::Failed(format!("the play found does not replay: {why}")),
            }
        }
        (_, Outcome::Unreachable { why }) => Ended::Unreachable(why),
        (_, Outcome::CannotRun(why)) => Ended::Failed(why),
        (_, Outcome::NotReached { .. }) if progress.stopped() => {
            Ended::NotReached("stopped".into())
        }
        (_, Outcome::NotReached { every_play_tried }) => Ended::NotReached(format!(
            "{}; {} choice points, {} ticks searched, nearest {} transitions away",
            if every_play_tried {
                "every play within the budget was tried; more seeds, inputs or ticks may still reach it"
            } else {
                "the time ran out"
            },
            stats.nodes,
            stats.ticks,
            stats.best
        )),
        (None, Outcome::Reached { .. }) => {
            Ended::Failed("reached in no scene (an internal error)".into())
        }
    }
}
