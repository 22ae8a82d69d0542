//! The thread a preview's scene runs on.
//!
//! The scene lives on its own thread, not in the editor's frame: its clock is wall time
//! whatever the frame rate (egui only repaints when something happens), a heavy scene slows
//! itself down rather than the editor, and a runtime panic stops the preview, not the editor
//! that holds the designer's unsaved work (the thread body runs under `catch_unwind`). The
//! editor never touches the simulation: it sends [`Command`]s and receives [`Report`]s, among
//! them one [`Snapshot`] per tick, which is all the views draw (live or scrubbed back).
//!
//! The runtime's state code is not `Send`, so the simulation is created on the thread from
//! the program (an `Arc`, shared read-only).

use super::snapshot::{Recorder, Snapshot, WorldInfo};
use ensemble_runtime::Program;
use ensemble_runtime::sim::Simulation;
use ensemble_runtime::sim::simulation::Options;
use ensemble_runtime::trace::TraceEvent;
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
    // The scene's clock: when the next tick is due.
    let mut due = Instant::now();
    let mut behind = false;
    // Since when the scene has been playing at this speed, and the ticks it ran since.
    let mut window = (Instant::now(), 0u64);
    loop {
        let wait = if playing {
            due.saturating_duration_since(Instant::now())
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
                due = Instant::now() + tick_time(&l.sim, speed);
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
                due = Instant::now() + tick_time(&l.sim, speed);
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
                due = Instant::now() + tick_time(&l.sim, speed);
            }
            Some(Command::Reject { reason, asked }) => {
                l.sim.reject_reload(reason);
                go_on = l.report() && l.reloaded(false, asked);
            }
            Some(Command::Say(line)) => {
                l.sim.say(&line);
            }
            None => {}
        }
        if !go_on {
            return;
        }
        if playing {
            let mut burst = 0;
            while Instant::now() >= due && burst < BURST {
                if !l.tick() {
                    return;
                }
                due += tick_time(&l.sim, speed);
                burst += 1;
                window.1 += 1;
            }
            if Instant::now().saturating_duration_since(due) > MAX_LAG {
                // Drop the backlog: run slower than real time rather than race.
                due = Instant::now();
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
        } else {
            window = (Instant::now(), 0);
        }
    }
}

fn tick_time(sim: &Simulation, speed: f64) -> Duration {
    Duration::from_secs_f64(sim.dt() / speed)
}
