//! The live preview: a scene of the open project running against the real runtime, beside the
//! editor, reloaded in place on every save.
//!
//! - [`worker`]: the scene runs on its own thread ([`ensemble_sim::Simulation`], the
//!   runner `ensemble run` uses), driven by commands; it reports one snapshot per tick.
//! - [`snapshot`]: what the views show at one tick, and the bounded history the timeline
//!   scrubs back through. Every view draws from a snapshot — the latest, or the one scrubbed
//!   to — never from the running scene, so looking at the past never disturbs it.
//! - Views: [`world_view`] (the 2D map), [`boards`] (blackboards of running scripts),
//!   [`beliefs`] (HMM beliefs over time and the player's input line), [`transcript`],
//!   [`timeline`] (trace events, filters, the scrubber; its filter is [`filter`]). What the
//!   graph editor highlights, the active state of every machine, is [`crate::live`].
//! - [`model`]: the [`Preview`] itself and each view's state, at the bottom of the folder: the
//!   views import it and nothing above it; this file's `impl Preview` drives the run and lays
//!   the views out.
//!
//! Hot reload: saving sends the program the background compile made of exactly the saved
//! text (the compile is hurried if it is behind the save); the scene reloads it keeping its
//! state, or, when the project does not compile, records `reload-rejected` and goes on with
//! the last good program. Nothing here compiles on the UI thread.
//!
//! **Invariants:** at most one scene runs per preview (a restart stops the old thread before
//! the new one starts); a save is answered exactly once (reload or refusal), by the compile of
//! the generation that was current when it was saved, or a later one.

pub mod attached;
pub mod beliefs;
pub mod boards;
pub mod filter;
pub mod model;
pub mod snapshot;
pub mod timeline;
pub mod traced;
pub mod transcript;
pub mod worker;
pub mod world_view;

use crate::analysis::{Analysis, Report};
use crate::panel::Request as Action;
use crate::theme;
use eframe::egui;
use egui::{Panel, RichText, Ui};
use ensemble_runtime::Program;
use ensemble_runtime::inspect::protocol::{Breakpoint, ToolMessage, When};
use ensemble_runtime::trace::EventKind;
use ensemble_sim::simulation::SceneKind;
use snapshot::History;
use std::sync::Arc;
use std::time::{Duration, Instant};
use worker::{Command, Report as WorkerReport, Worker};

pub use model::{BeliefsState, BoardsState, DockTab, MapState, Pane, Preview, ReloadNote, SPEEDS};
use model::{Pending, Run};

/// The program of a compile, or why there is none (one line, as `reload-rejected` says it).
pub fn program_of(report: &Report) -> Result<Arc<Program>, String> {
    match &report.compilation {
        Ok(c) => match &c.output {
            Some((program, _)) => Ok(Arc::new(program.clone())),
            None => Err(ensemble_compiler::run::error_summary(c)),
        },
        Err(e) => Err(e.clone()),
    }
}

impl Preview {
    /// The scene running (or stopped with an error).
    pub fn running_scene(&self) -> Option<&str> {
        self.run.as_ref().map(|r| r.scene.as_str())
    }

    /// Why the running scene stopped, if it did.
    pub fn failure(&self) -> Option<&str> {
        self.run.as_ref()?.failed.as_deref()
    }

    /// The scenes the last good compile offers.
    pub fn scenes(&self) -> &[(String, SceneKind)] {
        &self.scenes
    }

    /// Starts (or restarts) the picked scene with the current compile's program.
    pub fn start(&mut self, analysis: &Analysis, play: bool) {
        self.stop();
        let Some(scene) = self.scene.clone() else {
            self.error = Some("Pick a scene to run.".into());
            return;
        };
        let program = match analysis.current.as_ref().map(program_of) {
            Some(Ok(p)) => p,
            Some(Err(e)) => {
                self.error = Some(format!("The project does not compile: {e}"));
                return;
            }
            None => {
                self.error = Some("The project has not been compiled yet.".into());
                return;
            }
        };
        self.begin();
        let worker = Worker::start(program, scene.clone(), self.seed, self.speed, play);
        if self.locale.is_some() {
            worker.send(Command::Locale(self.locale.clone()));
        }
        self.run = Some(Run {
            worker,
            scene,
            seed: self.seed,
            world: None,
            playing: play,
            behind: false,
            failed: None,
            attached: false,
        });
    }

    /// Forgets what was shown, for a new source (a scene, a game).
    fn begin(&mut self) {
        self.error = None;
        self.trace_file = None;
        self.game_note = None;
        self.history = History::default();
        self.game_agents = None;
        self.variable_edits.clear();
        self.viewing = None;
        self.followed.clear();
        self.last_reload = None;
    }

    /// Attaches the preview to the game serving the inspection protocol at `attach_address`
    /// (with `attach_token`): the views show the game, saving pushes the program to it. The
    /// program of the current compile draws the map of the game's scene. A game on another
    /// machine needs a token: without one, nothing is attempted and the preview says so.
    pub fn attach(&mut self, analysis: &Analysis) {
        let address = self.attach_address.trim().to_string();
        let token = self.attach_token.trim().to_string();
        if !attached::is_loopback(&address) && token.is_empty() {
            self.error = Some(format!(
                "{address} is not this machine: a game there serves tools only with a token. \
                 Type the one it was started with (--inspect-token-file, ENSEMBLE_TOKEN) beside the address."
            ));
            return;
        }
        self.stop();
        if let Some(dir) = &self.config {
            crate::recent::remember_game_address(dir, &address);
            crate::recent::remember_game_token(dir, &token);
        }
        self.begin();
        let game = attached::Game {
            address: address.clone(),
            token: (!token.is_empty()).then_some(token),
            program: analysis.current.as_ref().and_then(|r| program_of(r).ok()),
        };
        self.run = Some(Run {
            worker: Worker::attach(game),
            scene: format!("game at {address}"),
            seed: self.seed,
            world: None,
            playing: false,
            behind: false,
            failed: None,
            attached: true,
        });
        // Sent after the hello: the game pauses on them from its next tick.
        for (machine, state) in self.breakpoints.clone() {
            let breakpoint = state_breakpoint(&machine, &state);
            self.request(ToolMessage::Break { breakpoint });
        }
    }

    /// Leaves the attached game: the breakpoints the editor set are cleared and a paused game
    /// resumed (no tool would be left to resume it), then the connection closes. The game goes
    /// on; the preview goes back to its own simulation of the picked scene, paused at tick 0.
    pub fn detach(&mut self, analysis: &Analysis) {
        if !self.is_attached() {
            return;
        }
        for (machine, state) in self.breakpoints.clone() {
            let breakpoint = Some(state_breakpoint(&machine, &state));
            self.request(ToolMessage::Clear { breakpoint });
        }
        if !self.is_playing() {
            self.request(ToolMessage::Resume);
        }
        // Dropping the worker sends what is queued, then closes the connection.
        self.stop();
        self.begin();
        if self.scene.is_some() {
            self.start(analysis, false);
        }
    }

    /// Remembers the game address and token in `config` (the editor's config folder),
    /// starting from those remembered there.
    pub fn with_config(&mut self, config: Option<std::path::PathBuf>) {
        if let Some(address) = config.as_deref().and_then(crate::recent::load_game_address) {
            self.attach_address = address;
        }
        if let Some(token) = config.as_deref().and_then(crate::recent::load_game_token) {
            self.attach_token = token;
        }
        self.config = config;
    }

    /// The states of `machine` with a breakpoint.
    pub fn breakpoints_in(&self, machine: &str) -> Vec<String> {
        self.breakpoints
            .iter()
            .filter(|(m, _)| m == machine)
            .map(|(_, s)| s.clone())
            .collect()
    }

    /// Sets or removes the breakpoint on `machine`'s `state`; an attached game is told.
    pub fn toggle_breakpoint(&mut self, machine: &str, state: &str) {
        let key = (machine.to_string(), state.to_string());
        let set = !self.breakpoints.contains(&key);
        if set {
            self.breakpoints.push(key);
        } else {
            self.breakpoints.retain(|b| *b != key);
        }
        if self.is_attached() {
            let breakpoint = state_breakpoint(machine, state);
            self.request(if set {
                ToolMessage::Break { breakpoint }
            } else {
                ToolMessage::Clear {
                    breakpoint: Some(breakpoint),
                }
            });
        }
    }

    /// Whether the preview shows an attached game (rather than its own scene).
    pub fn is_attached(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.attached)
    }

    /// Sends a protocol request (a breakpoint) to the attached game.
    pub fn request(&mut self, message: ToolMessage) {
        self.send(Command::Protocol(message));
    }

    /// Loads a recorded trace (`ensemble run --trace json`) into the timeline, stopping the
    /// running scene. A file that is not a trace leaves the history as it was and says why.
    pub fn open_trace(&mut self, path: &std::path::Path) {
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        );
        let read = std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|text| traced::read_trace(&name, &text));
        match read {
            Ok(history) => {
                self.stop();
                self.history = history;
                // A trace opens at its start, to be scrubbed forward.
                self.viewing = self.history.first_tick();
                self.timeline_scroll = true;
                self.followed.clear();
                self.last_reload = None;
                self.error = None;
                self.trace_file = Some(name);
            }
            Err(why) => {
                self.error = Some(format!("Cannot open the trace {}: {why}", path.display()));
            }
        }
    }

    /// Shows a recorded run (a content test's, replayed) in the timeline at `tick`, stopping
    /// the running scene, and brings the preview tab forward. The scene and seed are picked,
    /// so the toolbar says what is shown (a restart runs them without the test's mocks).
    pub fn show_recorded(&mut self, history: History, tick: u64, scene: String, seed: u64) {
        self.stop();
        self.scene = Some(scene);
        self.seed = seed;
        self.history = history;
        self.viewing = Some(tick);
        self.timeline_scroll = true;
        self.followed.clear();
        self.last_reload = None;
        self.error = None;
        self.trace_file = None;
        self.tab = DockTab::Preview;
    }

    /// Stops the running scene (its history stays to look at).
    pub fn stop(&mut self) {
        self.run = None;
        self.pending = None;
    }

    pub fn play(&mut self, analysis: &Analysis) {
        if !self.is_running() {
            self.start(analysis, true);
            return;
        }
        self.send(Command::Play);
        if let Some(r) = self.run.as_mut() {
            r.playing = true;
        }
        // Playing goes back to the present.
        self.viewing = None;
    }

    pub fn pause(&mut self) {
        self.send(Command::Pause);
        if let Some(r) = self.run.as_mut() {
            r.playing = false;
        }
    }

    /// Runs `n` ticks at once (paused).
    pub fn step(&mut self, analysis: &Analysis, n: u32) {
        if !self.is_running() {
            self.start(analysis, false);
        }
        if let Some(r) = self.run.as_mut() {
            r.playing = false;
        }
        self.viewing = None;
        self.send(Command::Step(n));
    }

    pub fn set_speed(&mut self, speed: f64) {
        self.speed = speed;
        self.send(Command::Speed(speed));
    }

    /// Keeps the scene list in step with the compile and takes what the worker reported.
    /// Returns true when something new arrived (the window should repaint).
    pub fn poll(&mut self, ctx: &egui::Context, analysis: &Analysis) -> bool {
        self.refresh_scenes(analysis);
        self.answer_pending(analysis);
        let mut changed = false;
        if let Some(run) = self.run.as_mut() {
            while let Ok(report) = run.worker.reports.try_recv() {
                changed = true;
                match report {
                    WorkerReport::Started(world) => run.world = Some(world),
                    WorkerReport::Tick {
                        snapshot,
                        bytes,
                        events,
                    } => self.history.push(snapshot, bytes, events),
                    WorkerReport::Reloaded {
                        world,
                        ok,
                        asked,
                        done,
                    } => {
                        run.world = Some(world);
                        let latency = done.saturating_duration_since(asked);
                        if ok {
                            self.latencies.push(latency);
                        }
                        let summary = reload_summary(&self.history);
                        self.last_reload = Some(ReloadNote {
                            ok,
                            latency,
                            at: Instant::now(),
                            summary,
                        });
                    }
                    WorkerReport::Behind(b) => run.behind = b,
                    WorkerReport::Playing(p) => {
                        run.playing = p;
                        if p {
                            // Going on: what stopped it is past.
                            self.game_note = None;
                        }
                    }
                    WorkerReport::Note(n) => self.game_note = Some(n),
                    WorkerReport::Agents(tick, agents) => self.game_agents = Some((tick, agents)),
                    WorkerReport::Failed(why) => {
                        run.failed = Some(why);
                        run.playing = false;
                    }
                }
            }
        }
        let active = self.is_playing() || self.pending.is_some();
        if active || changed {
            // The scene moves on its own clock; draw it at a steady rate while it does.
            ctx.request_repaint_after(Duration::from_millis(16));
        }
        changed
    }

    fn refresh_scenes(&mut self, analysis: &Analysis) {
        let Some(report) = analysis.current.as_ref() else {
            return;
        };
        if self.scenes_of == Some(report.generation) {
            return;
        }
        self.scenes_of = Some(report.generation);
        let Ok(c) = &report.compilation else { return };
        let Some((program, _)) = &c.output else {
            return;
        };
        self.scenes = ensemble_sim::simulation::scene_names(program)
            .into_iter()
            .map(|name| {
                let chat = program
                    .hpmm
                    .chats
                    .iter()
                    .any(|c| program.name(c.name) == name);
                let kind = if chat {
                    SceneKind::Chat
                } else {
                    SceneKind::Machines
                };
                (name, kind)
            })
            .collect();
        if self
            .scene
            .as_ref()
            .is_none_or(|s| !self.scenes.iter().any(|(n, _)| n == s))
        {
            self.scene = self.scenes.first().map(|(n, _)| n.clone());
        }
        self.locales = program.strings.locale_names().map(str::to_string).collect();
        if self
            .locale
            .as_ref()
            .is_some_and(|l| !self.locales.contains(l))
        {
            self.locale = None;
        }
    }

    /// The project was saved (`written`: the files, relative). A running scene reloads the
    /// program of exactly what was saved — the current compile, or the next one if it is
    /// behind the save (hurried: no debounce).
    pub fn saved(&mut self, analysis: &mut Analysis, written: &[String]) {
        // Node positions are not behaviour.
        let names: Vec<&str> = written
            .iter()
            .filter(|p| !p.ends_with(".layout.ron"))
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .collect();
        if !names.is_empty() {
            self.reload_soon(analysis, format!("saved: {}", names.join(", ")));
        }
    }

    /// The project's files changed on disk (the editor reopened them): reload what is there.
    pub fn changed_on_disk(&mut self, analysis: &mut Analysis) {
        self.reload_soon(analysis, "changed on disk".into());
    }

    fn reload_soon(&mut self, analysis: &mut Analysis, reason: String) {
        if !self.is_running() {
            return;
        }
        analysis.hurry();
        self.pending = Some(Pending {
            generation: analysis.generation(),
            asked: Instant::now(),
            reason,
        });
        self.answer_pending(analysis);
    }

    /// Sends the reload (or the refusal) of a pending save once its compile is in.
    fn answer_pending(&mut self, analysis: &Analysis) {
        let Some(p) = &self.pending else { return };
        let Some(report) = analysis
            .current
            .as_ref()
            .filter(|r| r.generation >= p.generation)
        else {
            return;
        };
        let p = self.pending.take().expect("checked");
        if self.is_attached()
            && let Err(why) = program_of(report)
        {
            // Nothing reaches the game, which goes on with the program it has: the refusal is
            // the editor's to show.
            self.last_reload = Some(ReloadNote {
                ok: false,
                latency: p.asked.elapsed(),
                at: Instant::now(),
                summary: why,
            });
            return;
        }
        let command = match program_of(report) {
            Ok(program) => Command::Reload {
                program,
                reason: p.reason,
                asked: p.asked,
            },
            Err(why) => Command::Reject {
                reason: why,
                asked: p.asked,
            },
        };
        self.send(command);
        // A reload is news from the present.
        self.viewing = None;
    }

    /// Whether a save is waiting for its compile.
    pub fn reload_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// What the graph should highlight in machine `machine` now.
    pub fn live(&self, machine: &str) -> Option<crate::live::LiveMachine> {
        if !self.is_running() && self.history.latest().is_none() {
            return None;
        }
        let snapshot = self.shown()?;
        let only = (!self.highlight_all)
            .then_some(self.selected.as_deref())
            .flatten();
        let mut live =
            crate::live::LiveMachine::of(snapshot, machine, only, self.selected.as_deref());
        live.scrubbed = self.viewing.is_some();
        Some(live)
    }

    /// When following, the machine stack of the selected agent, if it changed since it was
    /// last followed.
    fn follow_target(&mut self) -> Option<Vec<String>> {
        if !self.follow {
            return None;
        }
        let name = self.selected.clone()?;
        let stack: Vec<String> = self
            .shown()?
            .agent(&name)?
            .states
            .iter()
            .map(|s| s.machine.to_string())
            .collect();
        if stack.is_empty() || stack == self.followed {
            return None;
        }
        self.followed = stack.clone();
        Some(stack)
    }

    /// The tab strip of the bottom dock: problems and the preview. True when the tab changed
    /// (the dock changes height).
    pub fn tabs(&mut self, ui: &mut Ui, report: Option<&Report>) -> bool {
        let before = self.tab;
        ui.horizontal(|ui| {
            let (e, w) = report.map_or((0, 0), |r| (r.errors(), r.warnings()));
            let problems = if e + w > 0 {
                format!("Problems ({})", e + w)
            } else {
                "Problems".into()
            };
            if tab_button(ui, self.tab == DockTab::Problems, &problems)
                .on_hover_text("Errors and warnings of the project; click one to go to it")
                .clicked()
            {
                self.tab = DockTab::Problems;
            }
            let r = tab_button(ui, self.tab == DockTab::Preview, "Preview")
                .on_hover_text("Run a scene of this project against the runtime");
            if r.clicked() {
                self.tab = DockTab::Preview;
            }
            if tab_button(ui, self.tab == DockTab::Localisation, "Localisation")
                .on_hover_text("Every line and its translations, by locale")
                .clicked()
            {
                self.tab = DockTab::Localisation;
            }
            if tab_button(ui, self.tab == DockTab::Tests, "Tests")
                .on_hover_text(
                    "Run the project's content tests (*.test.ron) and see what no run reaches",
                )
                .clicked()
            {
                self.tab = DockTab::Tests;
            }
            if self.is_playing() {
                // A scene is running, even while the problems are shown.
                ui.painter().circle_filled(
                    r.rect.right_center() + egui::vec2(2.0, -1.0),
                    3.5,
                    theme::OK,
                );
            }
        });
        self.tab != before
    }

    /// The preview tab: controls, views and the timeline.
    pub fn ui(&mut self, ui: &mut Ui, analysis: &Analysis, actions: &mut Vec<Action>) {
        // The dock keeps the height it is given (a panel shrinks to its contents otherwise).
        ui.set_min_size(ui.available_size());
        self.toolbar(ui, analysis);
        if let Some(e) = &self.error
            && self.history.latest().is_some()
        {
            ui.label(RichText::new(e).color(theme::ERROR));
        }
        // What stopped the attached game, on a line of its own (a long event must not push
        // the toolbar's controls away).
        if let Some(note) = &self.game_note {
            ui.add(egui::Label::new(RichText::new(note).color(theme::WARNING)).truncate());
        }
        ui.add_space(4.0);
        if self.history.latest().is_none() {
            let message = match (&self.error, self.failure()) {
                (Some(e), _) => RichText::new(e).color(theme::ERROR),
                (None, Some(f)) => RichText::new(f).color(theme::ERROR),
                _ if self.run.is_some() => RichText::new("Starting…").color(theme::TEXT_WEAK),
                _ => RichText::new(
                    "Pick a scene and press ▶ to run it. Saving reloads it in place, keeping every agent's state.",
                )
                .color(theme::TEXT_WEAK),
            };
            ui.add_space(20.0);
            ui.vertical_centered(|ui| ui.label(message));
            return;
        }
        self.scrubber(ui);
        let panel_frame = egui::Frame::new().inner_margin(egui::Margin::symmetric(6, 4));
        let chat = self
            .history
            .latest()
            .is_some_and(|s| s.world.kind == SceneKind::Chat);
        Panel::right("preview-timeline")
            .frame(panel_frame)
            .resizable(true)
            .default_size(ui.available_width() * 0.34)
            .min_size(220.0)
            // Long rows must not squeeze the map out: they truncate instead.
            .max_size(ui.available_width() * 0.45)
            .show(ui, |ui| timeline::show(self, ui));
        if !chat {
            Panel::right("preview-pane")
                .frame(panel_frame)
                .resizable(true)
                .default_size(ui.available_width() * 0.42)
                .min_size(200.0)
                .max_size(ui.available_width() * 0.5)
                .show(ui, |ui| self.pane_ui(ui));
        }
        egui::CentralPanel::default()
            .frame(egui::Frame::new().fill(theme::CANVAS))
            .show(ui, |ui| {
                if chat {
                    beliefs::show(self, ui);
                } else if let Some(why) = self.no_map() {
                    ui.add_space(20.0);
                    ui.vertical_centered(|ui| ui.label(RichText::new(why).color(theme::TEXT_WEAK)));
                } else {
                    world_view::show(self, ui);
                }
            });
        if let Some(trail) = self.open_trail.take().or_else(|| self.follow_target()) {
            actions.push(Action::Follow(trail));
        }
    }

    /// Why there is no map to draw, when a scene known from outside says nothing of where its
    /// agents stand: a recorded trace, or a game whose snapshots carry no positions.
    pub fn no_map(&self) -> Option<&'static str> {
        let shown = self.shown()?;
        if shown.agents.iter().any(|a| a.at.is_some()) {
            return None;
        }
        if self.is_attached() {
            Some("No map: the game reports no positions (its snapshots carry none).")
        } else if self.trace_file.is_some() {
            Some("No map: a recorded trace says nothing of where agents stand.")
        } else {
            None
        }
    }

    fn pane_ui(&mut self, ui: &mut Ui) {
        // A scene without smart locations has no blackboards to show.
        let boards = self.shown().is_some_and(|s| !s.world.places.is_empty());
        if !boards && self.pane == Pane::Blackboards {
            self.pane = Pane::Transcript;
        }
        ui.horizontal(|ui| {
            for (pane, label) in [
                (Pane::Blackboards, "Blackboards"),
                (Pane::Transcript, "Transcript"),
                (Pane::Agent, "Agent"),
                (Pane::Breakpoints, "Breakpoints"),
            ] {
                if pane == Pane::Blackboards && !boards {
                    continue;
                }
                if tab_button(ui, self.pane == pane, label).clicked() {
                    self.pane = pane;
                }
            }
        });
        ui.separator();
        match self.pane {
            Pane::Blackboards => boards::show(self, ui),
            Pane::Transcript => transcript::show(self, ui),
            Pane::Agent => self.agent_ui(ui),
            Pane::Breakpoints => self.breakpoints_ui(ui),
        }
    }

    /// The breakpoints set, each with a button to remove it.
    fn breakpoints_ui(&mut self, ui: &mut Ui) {
        if self.breakpoints.is_empty() {
            ui.label(
                RichText::new("None. Right-click a state in the graph: Toggle breakpoint.")
                    .color(theme::TEXT_WEAK),
            );
        }
        let mut removed = None;
        for (machine, state) in &self.breakpoints {
            ui.horizontal(|ui| {
                crate::marks::breakpoint_dot(ui);
                ui.label(format!("{machine}/{state}"));
                if ui
                    .small_button("×")
                    .on_hover_text("Remove this breakpoint")
                    .clicked()
                {
                    removed = Some((machine.clone(), state.clone()));
                }
            });
        }
        if let Some((machine, state)) = removed {
            self.toggle_breakpoint(&machine, &state);
        }
        if !self.is_attached() && !self.breakpoints.is_empty() {
            ui.label(
                RichText::new("They pause a game the preview is attached to.")
                    .color(theme::TEXT_WEAK),
            );
        }
    }

    /// The selected agent: its stack of active states and what it takes part in.
    fn agent_ui(&mut self, ui: &mut Ui) {
        let Some(snapshot) = self.shown().cloned() else {
            return;
        };
        let Some(name) = self.selected.clone() else {
            ui.label(
                RichText::new("Click an agent on the map or in the timeline.")
                    .color(theme::TEXT_WEAK),
            );
            return;
        };
        if snapshot.agent(&name).is_none() {
            ui.label(
                RichText::new(format!("{name} is not in the scene at this tick."))
                    .color(theme::TEXT_WEAK),
            );
            return;
        }
        ui.horizontal(|ui| world_view::follow_controls(self, ui, &snapshot));
        let Some(a) = snapshot.agent(&name) else {
            return;
        };
        ui.label(
            RichText::new(format!(
                "{:?} · {}",
                a.kind,
                match a.at {
                    Some([x, y]) => format!("at ({x:.1}, {y:.1})"),
                    None => "not in the world".into(),
                }
            ))
            .color(theme::TEXT_WEAK)
            .small(),
        );
        ui.add_space(4.0);
        if a.states.is_empty() {
            ui.label(
                RichText::new("No machine: smart locations drive it.").color(theme::TEXT_WEAK),
            );
        }
        let mut open = None;
        for (depth, s) in a.states.iter().enumerate() {
            ui.horizontal(|ui| {
                ui.add_space(depth as f32 * 14.0);
                if ui
                    .link(RichText::new(&*s.machine).color(theme::ACCENT))
                    .on_hover_text("Open this machine")
                    .clicked()
                {
                    open = Some(depth);
                }
                ui.label(RichText::new("›").color(theme::TEXT_WEAK));
                ui.label(RichText::new(&*s.state).color(crate::live::LIVE).strong());
            });
        }
        if let Some(p) = a.partner.and_then(|p| snapshot.agents.get(p.index())) {
            ui.label(format!("talking with {}", p.name));
        }
        if let Some((b, p)) = snapshot.board_of(&name) {
            ui.label(format!(
                "{} in {} at {} (state {})",
                p.role, b.script, b.location, p.state
            ));
        }
        // A planning agent's plan, as last made or changed.
        let plan = self.history.events().rev().find_map(|(_, e)| {
            if e.tick > snapshot.tick || e.agent.as_deref() != Some(&*name) {
                return None;
            }
            match &e.kind {
                EventKind::Plan {
                    problem, actions, ..
                } => Some((problem.clone(), actions.clone(), None)),
                EventKind::Replan {
                    problem,
                    actions,
                    reason,
                    ..
                } => Some((problem.clone(), actions.clone(), Some(reason.clone()))),
                _ => None,
            }
        });
        if let Some((problem, actions, why)) = plan {
            ui.add_space(4.0);
            ui.label(RichText::new(format!("plan for {problem}")).color(theme::INFO));
            if let Some(why) = why {
                ui.label(
                    RichText::new(format!("replanned: {why}"))
                        .small()
                        .color(theme::TEXT_WEAK),
                );
            }
            for (i, act) in actions.iter().enumerate() {
                ui.label(RichText::new(format!("{}. {act}", i + 1)).monospace());
            }
        }
        if !matches!(a.status, ensemble_runtime::hsm::AgentStatus::Running) {
            ui.label(RichText::new(format!("{:?}", a.status)).color(theme::WARNING));
        }
        if self.is_attached() {
            self.game_agent_ui(ui, &name);
        }
        if let Some(depth) = open {
            let trail = a.states[..=depth]
                .iter()
                .map(|s| s.machine.to_string())
                .collect();
            self.open_trail = Some(trail);
        }
    }

    /// The locale the scene speaks in: switched while it runs (lines already said keep their
    /// words), and kept for the next start.
    fn locale_picker(&mut self, ui: &mut Ui) {
        let label = |l: Option<&str>| match l {
            None => "source".to_string(),
            Some(ensemble_runtime::locale::PSEUDO) => "pseudo (qps)".to_string(),
            Some(l) => l.to_string(),
        };
        let mut picked = None;
        egui::ComboBox::from_id_salt("preview-locale")
            .selected_text(label(self.locale.as_deref()))
            .width(90.0)
            .show_ui(ui, |ui| {
                let options =
                    std::iter::once(None).chain(self.locales.iter().map(|l| Some(l.as_str())));
                for option in options {
                    if ui
                        .selectable_label(self.locale.as_deref() == option, label(option))
                        .clicked()
                    {
                        picked = Some(option.map(str::to_string));
                    }
                }
            })
            .response
            .on_hover_text("The language lines are spoken in (switches while the scene runs)");
        if let Some(locale) = picked
            && locale != self.locale
        {
            self.locale = locale.clone();
            self.send(Command::Locale(locale));
        }
    }

    /// What the attached game's last snapshot says of agent `name`: its variables, each
    /// editable (Enter sends `set`; the next snapshot shows what the game made of it), and its
    /// beliefs.
    fn game_agent_ui(&mut self, ui: &mut Ui, name: &str) {
        let Some((tick, agents)) = self.game_agents.clone() else {
            return;
        };
        let Some(agent) = agents.iter().find(|a| a.name == name) else {
            return;
        };
        ui.add_space(6.0);
        ui.label(RichText::new(format!("variables (game, tick {tick})")).color(theme::INFO));
        if agent.variables.is_empty() {
            ui.label(RichText::new("none").color(theme::TEXT_WEAK));
        }
        let mut sets = Vec::new();
        egui::Grid::new("preview-game-variables")
            .num_columns(2)
            .show(ui, |ui| {
                for (variable, value) in &agent.variables {
                    ui.label(RichText::new(variable).monospace());
                    let key = (name.to_string(), variable.clone());
                    let text = self
                        .variable_edits
                        .entry(key)
                        .or_insert_with(|| value.clone());
                    let r = ui.add(
                        egui::TextEdit::singleline(text)
                            .id(egui::Id::new(("preview-game-variable", name, variable)))
                            .desired_width(150.0),
                    );
                    let r = r.on_hover_text("Enter sets it in the game");
                    if r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
                        sets.push((variable.clone(), text.clone()));
                    } else if !r.has_focus() {
                        // Not being typed in: it follows the game.
                        text.clone_from(value);
                    }
                    ui.end_row();
                }
            });
        for (variable, value) in sets {
            self.request(ToolMessage::Set {
                agent: name.to_string(),
                variable,
                value,
            });
        }
        for belief in &agent.beliefs {
            ui.add_space(4.0);
            ui.label(RichText::new(format!("beliefs: {}", belief.space)).color(theme::INFO));
            for (state, p) in &belief.states {
                ui.horizontal(|ui| {
                    ui.add(
                        egui::ProgressBar::new(*p as f32)
                            .desired_width(90.0)
                            .text(format!("{p:.2}")),
                    );
                    ui.label(state);
                });
            }
        }
        // Without the scene's smart locations there is no Blackboards pane: they show here.
        let boards_pane = self
            .history
            .latest()
            .is_some_and(|s| !s.world.places.is_empty());
        if !boards_pane {
            for s in &agent.scripts {
                ui.add_space(4.0);
                ui.label(
                    RichText::new(format!("{} in {} at {}", s.role, s.script, s.location))
                        .color(theme::INFO),
                );
                for fact in &s.facts {
                    ui.label(RichText::new(fact).monospace().small());
                }
            }
        }
    }

    fn toolbar(&mut self, ui: &mut Ui, analysis: &Analysis) {
        // Wraps in a narrow window: one long row would widen the dock past the window's edge
        // and cut the timeline and transcript off there.
        ui.horizontal_wrapped(|ui| {
            let scenes = self.scenes.clone();
            let shown = self.scene.clone().unwrap_or_else(|| "no scene".into());
            let mut picked = false;
            egui::ComboBox::from_id_salt("preview-scene")
                .selected_text(shown)
                .width(150.0)
                .show_ui(ui, |ui| {
                    for (name, kind) in &scenes {
                        let label = match kind {
                            SceneKind::Chat => format!("{name}  (conversation)"),
                            SceneKind::Machines => name.clone(),
                        };
                        if ui
                            .selectable_label(self.scene.as_deref() == Some(name), label)
                            .clicked()
                            && self.scene.as_deref() != Some(name)
                        {
                            self.scene = Some(name.clone());
                            picked = true;
                        }
                    }
                })
                .response
                .on_hover_text("The scene to run");
            // Another scene picked while one runs (or failed): that one is what runs now (it
            // said "running" over the old scene's world before).
            if picked && self.run.is_some() && !self.is_attached() {
                let play = self.is_playing();
                self.start(analysis, play);
            }
            let playing = self.is_playing();
            let play = match (playing, self.is_attached()) {
                (true, _) => "⏸ Pause",
                (false, true) => "▶ Resume",
                (false, false) => "▶ Play",
            };
            if ui
                .add_enabled(
                    self.scene.is_some() || self.is_attached(),
                    egui::Button::new(play),
                )
                .on_hover_text(if playing {
                    "Pause the scene"
                } else {
                    "Run the scene in real time"
                })
                .clicked()
            {
                if playing {
                    self.pause();
                } else {
                    self.play(analysis);
                }
            }
            if ui
                .add_enabled(
                    self.scene.is_some() || self.is_attached(),
                    egui::Button::new("⏭ Step"),
                )
                .on_hover_text("Pause and run one tick (Shift: ten)")
                .clicked()
            {
                let n = if ui.input(|i| i.modifiers.shift) {
                    10
                } else {
                    1
                };
                self.step(analysis, n);
            }
            let speed_label = |s: f64| {
                if s < 1.0 {
                    format!("{s}×")
                } else {
                    format!("{s:.0}×")
                }
            };
            egui::ComboBox::from_id_salt("preview-speed")
                .selected_text(speed_label(self.speed))
                .width(60.0)
                .show_ui(ui, |ui| {
                    for s in SPEEDS {
                        if ui
                            .selectable_label(self.speed == s, speed_label(s))
                            .clicked()
                        {
                            self.set_speed(s);
                        }
                    }
                })
                .response
                .on_hover_text("Speed: scene seconds per second");
            // An attached game has its own seed, clock and locale; leaving it is Detach, which
            // clears the editor's breakpoints and resumes it (stopping or restarting would not).
            if !self.is_attached() {
                self.locale_picker(ui);
                ui.label(RichText::new("seed").color(theme::TEXT_WEAK));
                ui.add(egui::DragValue::new(&mut self.seed).speed(0.2))
                    .on_hover_text("The scene's random seed: the same seed gives the same run");
                if ui
                    .add_enabled(self.scene.is_some(), egui::Button::new("↻ Restart"))
                    .on_hover_text("Start the scene again from tick 0 with this seed")
                    .clicked()
                {
                    let play = self.is_playing() || !self.is_running();
                    self.start(analysis, play);
                }
                if ui
                    .add_enabled(self.run.is_some(), egui::Button::new("⏹"))
                    .on_hover_text("Stop the scene (its history stays to look at)")
                    .clicked()
                {
                    self.stop();
                }
            }
            ui.separator();
            ui.add(
                egui::TextEdit::singleline(&mut self.attach_address)
                    .hint_text("game address")
                    .desired_width(130.0),
            )
            .on_hover_text(
                "host:port of a game serving the inspection protocol (ensemble run --inspect)",
            );
            ui.add(
                egui::TextEdit::singleline(&mut self.attach_token)
                    .hint_text("token")
                    .password(true)
                    .desired_width(70.0),
            )
            .on_hover_text(
                "The token the game was started with (--inspect-token-file, ENSEMBLE_TOKEN): required for a game on another machine",
            );
            if ui
                .button("Attach")
                .on_hover_text("Show the running game here; saving pushes the program to it")
                .clicked()
            {
                self.attach(analysis);
            }
            if self.is_attached()
                && ui
                    .button("Detach")
                    .on_hover_text(
                        "Leave the game (it goes on, its breakpoints from here cleared) and go back to the simulation",
                    )
                    .clicked()
            {
                self.detach(analysis);
            }
            ui.separator();
            if let Some(s) = self.history.latest() {
                let seed = match &self.run {
                    Some(r) if !r.attached => format!("  ·  seed {}", r.seed),
                    _ => String::new(),
                };
                ui.label(
                    RichText::new(format!("tick {}  ·  {:.1} s{seed}", s.tick, s.time))
                        .monospace()
                        .color(theme::TEXT),
                );
            }
            let trace_status = self.trace_file.as_ref().map(|f| format!("trace {f}"));
            let (status, color) = match &self.run {
                None if trace_status.is_some() => {
                    (trace_status.as_deref().unwrap_or_default(), theme::ACCENT)
                }
                None if self.history.latest().is_some() => ("stopped", theme::TEXT_WEAK),
                None => ("", theme::TEXT_WEAK),
                Some(r) if r.failed.is_some() => ("stopped", theme::ERROR),
                Some(r) if r.attached && r.playing => ("game running", theme::OK),
                Some(r) if r.attached => ("game paused", theme::TEXT_WEAK),
                Some(r) if r.playing && r.behind => ("slower than real time", theme::WARNING),
                Some(r) if r.playing => ("running", theme::OK),
                Some(_) => ("paused", theme::TEXT_WEAK),
            };
            if color == theme::OK {
                let (rect, _) = ui.allocate_exact_size(egui::vec2(8.0, 8.0), egui::Sense::hover());
                ui.painter().circle_filled(rect.center(), 4.0, color);
            }
            let status = ui.label(RichText::new(status).color(color));
            if let Some(f) = self.failure() {
                status.on_hover_text(f);
            }

            if self.pending.is_some() {
                ui.label(RichText::new("reloading…").color(theme::ACCENT));
            } else if let Some(n) = &self.last_reload
                && n.at.elapsed() < Duration::from_secs(20)
            {
                let (text, color) = if n.ok {
                    (
                        format!("↻ reloaded in {} ms: {}", n.latency.as_millis(), n.summary),
                        theme::OK,
                    )
                } else {
                    (format!("save refused: {}", n.summary), theme::ERROR)
                };
                ui.add(egui::Label::new(RichText::new(text).color(color)).truncate());
            }
        });
    }

    /// The time slider across the views: drag back to look at an earlier tick.
    fn scrubber(&mut self, ui: &mut Ui) {
        let (Some(first), Some(last)) = (
            self.history.first_tick(),
            self.history.latest().map(|s| s.tick),
        ) else {
            return;
        };
        ui.horizontal(|ui| {
            let live = self.viewing.is_none();
            let live_button = egui::Button::new(
                RichText::new(if live { "LIVE" } else { "⏵ LIVE" }).color(if live {
                    theme::OK
                } else {
                    theme::TEXT_WEAK
                }),
            );
            if ui
                .add(live_button)
                .on_hover_text("Back to the present")
                .clicked()
            {
                self.viewing = None;
            }
            let mut tick = self.viewing.unwrap_or(last);
            let width = (ui.available_width() - 140.0).max(80.0);
            ui.spacing_mut().slider_width = width;
            let r = ui.add(
                egui::Slider::new(&mut tick, first..=last.max(first + 1))
                    .show_value(false)
                    .trailing_fill(true),
            );
            // Marks: reloads (green) and refused reloads (red) along the track.
            let track = r.rect;
            let span = (last.max(first + 1) - first) as f32;
            for &(t, ok) in &self.history.reloads {
                if t < first {
                    continue;
                }
                let x = track.left() + 7.0 + (track.width() - 14.0) * (t - first) as f32 / span;
                let color = if ok { theme::OK } else { theme::ERROR };
                ui.painter().line_segment(
                    [
                        egui::pos2(x, track.top() + 1.0),
                        egui::pos2(x, track.bottom() - 1.0),
                    ],
                    egui::Stroke::new(2.0, color),
                );
            }
            if r.changed() {
                self.viewing = (tick < last).then_some(tick);
                self.timeline_scroll = true;
            }
            let at = self.shown().map(|s| (s.tick, s.time));
            if let Some((t, time)) = at {
                let text = if self.viewing.is_some() {
                    format!("viewing tick {t} · {time:.1} s")
                } else {
                    format!("tick {t}")
                };
                ui.label(RichText::new(text).monospace().small().color(
                    if self.viewing.is_some() {
                        theme::WARNING
                    } else {
                        theme::TEXT_WEAK
                    },
                ));
            }
        });
    }
}

/// A breakpoint on entering or leaving `machine`'s `state`, for any agent.
fn state_breakpoint(machine: &str, state: &str) -> Breakpoint {
    Breakpoint::State {
        machine: machine.to_string(),
        state: state.to_string(),
        when: When::Both,
        agent: None,
    }
}

/// What fell back in a reload, as the preview's line says it: the first two named (an agent
/// a deleted state restarted, one deleted from the scene that goes on), the rest counted; the
/// trace's `reload` event lists them all.
fn fallen_back(fallbacks: &[String]) -> String {
    match fallbacks {
        [] => "nothing fell back".to_string(),
        [one] => format!("1 fallback: {one}"),
        [a, b] => format!("2 fallbacks: {a}; {b}"),
        [a, b, rest @ ..] => format!(
            "{} fallbacks: {a}; {b}; and {} more (the trace lists them)",
            fallbacks.len(),
            rest.len()
        ),
    }
}

/// What the last `reload` or `reload-rejected` event said.
fn reload_summary(history: &History) -> String {
    for (_, e) in history.events().rev() {
        match &e.kind {
            EventKind::Reload {
                kept, fallbacks, ..
            } => {
                let states = if *kept == 1 { "state" } else { "states" };
                return format!("kept {kept} {states}, {}", fallen_back(fallbacks));
            }
            EventKind::ReloadRejected { reason } => return reason.clone(),
            _ => {}
        }
    }
    String::new()
}

/// A flat tab: strong and underlined when selected.
pub fn tab_button(ui: &mut Ui, selected: bool, label: &str) -> egui::Response {
    let text = if selected {
        RichText::new(label).color(theme::TEXT).strong()
    } else {
        RichText::new(label).color(theme::TEXT_WEAK)
    };
    let r = ui.add(egui::Button::new(text).frame(false));
    if selected {
        let rect = r.rect;
        ui.painter().line_segment(
            [rect.left_bottom(), rect.right_bottom()],
            egui::Stroke::new(2.0, theme::ACCENT),
        );
    }
    r
}

#[cfg(test)]
mod reload_line {
    #[test]
    fn the_first_two_fallbacks_are_named_and_the_rest_counted() {
        let f = |n: usize| (1..=n).map(|i| format!("f{i}")).collect::<Vec<_>>();
        assert_eq!(super::fallen_back(&f(0)), "nothing fell back");
        assert_eq!(super::fallen_back(&f(1)), "1 fallback: f1");
        assert_eq!(super::fallen_back(&f(2)), "2 fallbacks: f1; f2");
        assert_eq!(
            super::fallen_back(&f(4)),
            "4 fallbacks: f1; f2; and 2 more (the trace lists them)"
        );
    }
}
