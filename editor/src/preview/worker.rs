//! The thread a preview's scene runs on.
//!
//! The scene lives on its own thread, not in the editor's frame: its clock is wall time
//! whatever the frame rate (egui only repaints when something happens), a heavy scene slows
//! itself down rather than the editor, and a runtime panic stops the preview, not the editor
//! that holds the designer's unsaved work (the thread body runs under `catch_unwind`). The
//! editor never touches the simulation: it sends [`Command`]s and receives [`Report`]s, among
//! them one [`Snapshot`] per tick, which is all the views draw (live or scrubbed back).
//!
//! The simulation is created on the thread, from the program (an `Arc`, shared read-only). It
//! is `Send` and could be started here and moved, but starting a scene builds its world (its
//! navigation graph, its smart locations), which would hold up the editor's frame, and a panic
//! while starting would reach the editor instead of the thread's `catch_unwind`.

use super::snapshot::{Recorder, Snapshot, WorldInfo};
use ensemble_runtime::Program;
use ensemble_runtime::inspect::protocol::AgentSnapshot;
use ensemble_runtime::trace::TraceEvent;
use ensemble_sim::Simulation;
use ensemble_sim::simulation::Options;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender, channel, sync_channel};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Ticks run back to back at most before commands are looked at again.
const BURST: u32 = 64;
/// A scene that falls further behind its clock than this drops the backlog (it runs slower
/// than its speed asks, and says so) instead of racing to catch up.
const MAX_LAG: Duration = Duration::from_millis(250);
/// Reports in flight: a worker far ahead of the editor waits for it to catch up.
const QUEUE: usize = 4096;

pub enum Command {
    Play,
    Pause,
    /// Pauses and runs this many ticks at once.
    Step(u32),
    /// Scene seconds per wall-clock second.
    Speed(f64),
    Reload {
        program: Arc<Program>,
        reason: String,
        /// When the save that asked for it happened (the reload's latency is measured from it).
        asked: Instant,
    },
    Reject {
        reason: String,
        asked: Instant,
    },
    /// A player line for a conversation scene.
    Say(String),
    /// A request only an attached game understands (breakpoints, snapshots).
    Protocol(ensemble_runtime::inspect::protocol::ToolMessage),
    /// Speak every line from now on in this locale (`None`: the source language).
    Locale(Option<String>),
}

pub enum Report {
    /// The scene started (tick 0 follows as a `Tick`).
    Started(Arc<WorldInfo>),
    Tick {
        snapshot: Snapshot,
        /// Estimated bytes the snapshot adds.
        bytes: usize,
        events: Vec<TraceEvent>,
    },
    /// A reload was applied (`ok`) or refused, and the scene has run its first tick since (or
    /// recorded the refusal): `done - asked` is the save-to-running latency.
    Reloaded {
        world: Arc<WorldInfo>,
        ok: bool,
        asked: Instant,
        done: Instant,
    },
    /// The scene runs slower than real time at this speed.
    Behind(bool),
    /// The scene could not start, or the runtime stopped (a panic).
    Failed(String),
    /// An attached game went on ticking (`true`) or stopped (a pause, a step, a breakpoint).
    Playing(bool),
    /// Something the attached game said, for the toolbar.
    Note(String),
    /// An attached game's `snapshot` after tick `.0`: every agent's variables, beliefs, plan
    /// and scripts, as the game reported them.
    Agents(u64, Arc<[AgentSnapshot]>),
}

/// A running preview: the thread and the two channels.
pub struct Worker {
    commands: Sender<Command>,
    pub reports: Receiver<Report>,
    thread: Option<JoinHandle<()>>,
}

impl Worker {
    /// Starts scene `scene` of `program` with `seed`, paused unless `play`.
    pub fn start(
        program: Arc<Program>,
        scene: String,
        seed: u64,
        speed: f64,
        play: bool,
    ) -> Worker {
        let (commands, command_rx) = channel();
        let (report_tx, reports) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("ensemble-preview".into())
            .spawn(move || {
                let failed = report_tx.clone();
                let run = std::panic::catch_unwind(AssertUnwindSafe(|| {
                    run(program, &scene, seed, speed, play, command_rx, report_tx)
                }));
                if let Err(panic) = run {
                    let what = panic
                        .downcast_ref::<String>()
                        .map(String::as_str)
                        .or_else(|| panic.downcast_ref::<&str>().copied())
                        .unwrap_or("a panic");
                    let _ = failed.send(Report::Failed(format!(
                        "the runtime stopped: {what} (please report this)"
                    )));
                }
            })
            .expect("the preview thread starts");
        Worker {
            commands,
            reports,
            thread: Some(thread),
        }
    }

    /// A worker whose thread (named `name`) runs `body` on the two channels (the attached
    /// game's, [`super::attached`]).
    pub fn spawn(
        name: &str,
        body: impl FnOnce(Receiver<Command>, SyncSender<Report>) + Send + 'static,
    ) -> Worker {
        let (commands, command_rx) = channel();
        let (report_tx, reports) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name(name.into())
            .spawn(move || body(command_rx, report_tx))
            .expect("the worker thread starts");
        Worker {
            commands,
            reports,
            thread: Some(thread),
        }
    }

    /// Sends a command; false if the scene has stopped.
    pub fn send(&self, command: Command) -> bool {
        self.commands.send(command).is_ok()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the command channel ends the loop; reports still queued unblock it.
        let (closed, _) = channel();
        drop(std::mem::replace(&mut self.commands, closed));
        while self.reports.try_recv().is_ok() {}
        if let Some(t) = self.thread.take() {
            // The thread notices within one burst; draining keeps it from blocking on a full
            // report queue meanwhile.
            while !t.is_finished() {
                while self.reports.try_recv().is_ok() {}
                std::thread::sleep(Duration::from_millis(1));
            }
            let _ = t.join();
        }
    }
}

struct Loop {
    sim: Simulation,
    recorder: Recorder,
    world: Arc<WorldInfo>,
    out: SyncSender<Report>,
    program: u32,
}

impl Loop {
    /// Sends the snapshot of now with the events recorded since the last one; false if the
    /// editor has gone.
    fn report(&mut self) -> bool {
        let events = self.sim.take_events();
        let (snapshot, bytes) = self.recorder.record(&self.sim, &self.world);
        self.out
            .send(Report::Tick {
                snapshot,
                bytes,
                events,
            })
            .is_ok()
    }

    fn tick(&mut self) -> bool {
        self.sim.tick();
        self.report()
    }

    fn reloaded(&mut self, ok: bool, asked: Instant) -> bool {
        self.out
            .send(Report::Reloaded {
                world: self.world.clone(),
                ok,
                asked,
                done: Instant::now(),
            })
            .is_ok()
    }
}

fn run(
    program: Arc<Program>,
    scene: &str,
    seed: u64,
    speed: f64,
    play: bool,
    commands: Receiver<Command>,
    out: SyncSender<Report>,
) {
    let sim = match Simulation::start(program, scene, seed, &Options::default()) {
        Ok(s) => s,
        Err(e) => {
            let _ = out.send(Report::Failed(format!("cannot start `{scene}`: {e}")));
            return;
        }
    };
    let world = Arc::new(WorldInfo::of(&sim, 0));
    if out.send(Report::Started(world.clone())).is_err() {
        return;
    }
    // The game's own states run on stand-ins here: said once, under the toolbar.
    if !sim.stand_ins().is_empty() {
        let said: Vec<String> = sim.stand_ins().iter().map(|s| s.to_string()).collect();
        if out.send(Report::Note(said.join("; "))).is_err() {
            return;
        }
    }
    let mut l = Loop {
        sim,
        recorder: Recorder::default(),
        world,
        out,
        program: 0,
    };
    if !l.report() {
        return;
    }
    let mut playing = play;
    let mut speed = speed.clamp(0.01, 100.0);
    let mut clock = Clock::start(Instant::now(), tick_time(&l.sim, speed));
    let mut behind = false;
    // Since when the scene has been playing at this speed, and the ticks it ran since.
    let mut window = (Instant::now(), 0u64);
    loop {
        let wait = if playing {
            clock.wait(Instant::now())
        } else {
            Duration::from_secs(3600)
        };
        let command = match commands.recv_timeout(wait) {
            Ok(c) => Some(c),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let mut go_on = true;
        match command {
            Some(Command::Play) if !playing => {
                playing = true;
                clock = Clock::start(Instant::now(), tick_time(&l.sim, speed));
                window = (Instant::now(), 0);
            }
            Some(Command::Play) => {}
            Some(Command::Pause) => playing = false,
            Some(Command::Step(n)) => {
                playing = false;
                for _ in 0..n {
                    go_on &= l.tick();
                }
            }
            Some(Command::Speed(s)) => {
                speed = s.clamp(0.01, 100.0);
                clock = Clock::start(Instant::now(), tick_time(&l.sim, speed));
                window = (Instant::now(), 0);
            }
            Some(Command::Reload {
                program,
                reason,
                asked,
            }) => {
                let ok = l.sim.reload(program, &reason).is_ok();
                if ok {
                    l.program += 1;
                    l.world = Arc::new(WorldInfo::of(&l.sim, l.program));
                }
                // The reload is recorded at the current tick; the new program's first tick
                // runs now, so the latency covers the program actually running.
                go_on = l.report() && l.tick() && l.reloaded(ok, asked);
                // A new program may have a new tick rate.
                clock = Clock::start(Instant::now(), tick_time(&l.sim, speed));
            }
            Some(Command::Reject { reason, asked }) => {
                l.sim.reject_reload(reason);
                go_on = l.report() && l.reloaded(false, asked);
            }
            Some(Command::Say(line)) => {
                l.sim.say(&line);
            }
            // The picker offers only the program's locales; a reload that dropped one keeps
            // speaking the last locale that was set.
            Some(Command::Locale(locale)) => {
                let _ = l.sim.set_locale(locale.as_deref());
            }
            // Breakpoints and the like are for an attached game; the editor's own scene has
            // no use for them.
            Some(Command::Protocol(_)) | None => {}
        }
        if !go_on {
            return;
        }
        if !playing {
            window = (Instant::now(), 0);
            continue;
        }
        for _ in 0..clock.due(Instant::now()) {
            if !l.tick() {
                return;
            }
            window.1 += 1;
        }
        // Over each second of play: did the scene keep up with its clock?
        let elapsed = window.0.elapsed();
        if elapsed >= Duration::from_secs(1) {
            let expected = elapsed.as_secs_f64() * speed / l.sim.dt();
            let late = (window.1 as f64) < 0.9 * expected;
            window = (Instant::now(), 0);
            if late != behind {
                behind = late;
                if l.out.send(Report::Behind(late)).is_err() {
                    return;
                }
            }
        }
    }
}

fn tick_time(sim: &Simulation, speed: f64) -> Duration {
    Duration::from_secs_f64(sim.dt() / speed)
}

/// The scene's clock while it plays: when the next tick is due.
struct Clock {
    next: Instant,
    period: Duration,
}

impl Clock {
    /// A clock whose first tick is due one period after `now`.
    fn start(now: Instant, period: Duration) -> Clock {
        Clock {
            next: now + period,
            period,
        }
    }

    /// How many ticks are due at `now` (at most [`BURST`]; the rest on the next call). A
    /// backlog longer than [`MAX_LAG`] is dropped: the scene runs slower than its speed asks
    /// rather than racing to catch up.
    fn due(&mut self, now: Instant) -> u32 {
        let mut n = 0;
        while now >= self.next && n < BURST {
            self.next += self.period;
            n += 1;
        }
        if now.saturating_duration_since(self.next) > MAX_LAG {
            self.next = now + self.period;
        }
        n
    }

    fn wait(&self, now: Instant) -> Duration {
        self.next.saturating_duration_since(now)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use ensemble_runtime::trace::EventKind;

    /// A sample project, compiled.
    pub(crate) fn sample(name: &str) -> Arc<Program> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../samples")
            .join(name);
        let c = ensemble_compiler::compile_path(&root).unwrap();
        Arc::new(c.output.expect("the sample compiles").0)
    }

    /// Reports until one satisfies `stop` (returned with the ones before it).
    fn until(w: &Worker, stop: impl Fn(&Report) -> bool) -> Vec<Report> {
        let mut seen = Vec::new();
        loop {
            let r = w
                .reports
                .recv_timeout(Duration::from_secs(60))
                .expect("the worker reports");
            let done = stop(&r);
            seen.push(r);
            if done {
                return seen;
            }
        }
    }

    fn ticks(reports: &[Report]) -> Vec<u64> {
        reports
            .iter()
            .filter_map(|r| match r {
                Report::Tick { snapshot, .. } => Some(snapshot.tick),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn paused_it_steps_reloads_and_refuses_on_command() {
        let program = sample("airport");
        let w = Worker::start(program.clone(), "ticket-counter".into(), 7, 1.0, false);
        let first = until(&w, |r| matches!(r, Report::Tick { .. }));
        assert!(matches!(first[0], Report::Started(_)));
        assert_eq!(ticks(&first), [0]);
        assert!(w.send(Command::Step(10)));
        let steps = until(
            &w,
            |r| matches!(r, Report::Tick { snapshot, .. } if snapshot.tick == 10),
        );
        assert_eq!(ticks(&steps), (1..=10).collect::<Vec<_>>());
        // Paused, nothing more comes.
        assert!(w.reports.recv_timeout(Duration::from_millis(200)).is_err());

        let asked = Instant::now();
        w.send(Command::Reload {
            program: Arc::new((*program).clone()),
            reason: "saved: test".into(),
            asked,
        });
        let reload = until(&w, |r| matches!(r, Report::Reloaded { .. }));
        // The reload is recorded at tick 10, then the new program runs tick 11.
        assert_eq!(ticks(&reload), [10, 11]);
        let Report::Tick { events, .. } = &reload[0] else {
            panic!()
        };
        assert!(
            matches!(&events[..], [e] if matches!(&e.kind, EventKind::Reload { reason, .. } if reason == "saved: test"))
        );
        let Some(Report::Reloaded {
            ok, done, world, ..
        }) = reload.last()
        else {
            panic!()
        };
        assert!(*ok && *done >= asked);
        assert_eq!(world.program, 1, "the second program of the run");

        w.send(Command::Reject {
            reason: "broken".into(),
            asked: Instant::now(),
        });
        let refused = until(&w, |r| matches!(r, Report::Reloaded { .. }));
        let Some(Report::Reloaded { ok, .. }) = refused.last() else {
            panic!()
        };
        assert!(!ok);
        assert_eq!(ticks(&refused), [11], "refusing runs no tick");
    }

    #[test]
    fn the_clock_runs_what_is_due_in_bursts_and_drops_a_long_backlog() {
        let t0 = Instant::now();
        let ms = Duration::from_millis;
        let mut c = Clock::start(t0, ms(10));
        assert_eq!(c.due(t0), 0);
        assert_eq!(c.due(t0 + ms(35)), 3);
        assert_eq!(c.due(t0 + ms(35)), 0, "nothing twice");
        assert_eq!(c.due(t0 + ms(40)), 1);
        // Far behind: one burst, then the backlog is dropped rather than raced through.
        let late = t0 + Duration::from_secs(5);
        assert_eq!(c.due(late), BURST);
        assert_eq!(c.due(late), 0);
        assert_eq!(c.due(late + ms(10)), 1);
        // A short lag is caught up over the next calls.
        let mut c = Clock::start(t0, ms(10));
        assert_eq!(c.due(t0 + ms(10) * (BURST + 10)), BURST);
        assert_eq!(c.due(t0 + ms(10) * (BURST + 10)), 10);
    }

    #[test]
    fn a_scene_that_cannot_start_says_why() {
        let w = Worker::start(sample("airport"), "nowhere".into(), 7, 1.0, true);
        let r = until(&w, |r| matches!(r, Report::Failed(_)));
        let Some(Report::Failed(why)) = r.last() else {
            panic!()
        };
        assert!(why.contains("no scene `nowhere`"), "{why}");
        assert!(why.contains("ticket-counter"), "{why}");
    }

    #[test]
    fn snapshots_share_what_did_not_change() {
        let program = sample("bench");
        let mut sim = Simulation::start(program, "bench", 11, &Options::default()).unwrap();
        let world = Arc::new(WorldInfo::of(&sim, 0));
        let mut recorder = Recorder::default();
        let mut last: Option<Snapshot> = None;
        let (mut shared, mut changed) = (0, 0);
        for _ in 0..3000 {
            sim.tick();
            let (s, bytes) = recorder.record(&sim, &world);
            if let (Some(l), Some(b)) = (&last, s.boards.first())
                && let Some(o) = l.boards.iter().find(|o| o.instance == b.instance)
            {
                if o.version == b.version {
                    assert!(Arc::ptr_eq(&o.facts, &b.facts), "same version, same facts");
                    shared += 1;
                } else {
                    changed += 1;
                }
            }
            if let Some(l) = &last
                && *l.agents == *s.agents
            {
                assert!(Arc::ptr_eq(&l.agents, &s.agents));
                if Arc::ptr_eq(&l.boards, &s.boards) {
                    assert_eq!(
                        bytes,
                        std::mem::size_of::<Snapshot>(),
                        "a tick where nothing changed costs its pointers"
                    );
                }
            }
            last = Some(s);
        }
        assert!(
            shared > 100 && changed > 0,
            "{shared} shared, {changed} changed"
        );
    }
}
