//! The preview attached to a running game over the inspection protocol
//! (docs/formats/inspect.md): the second source of [`Report`]s behind the same [`Command`]s as
//! the simulation worker. A reader thread turns the game's lines into reports, folding its
//! trace stream into snapshots ([`TracedScene`]); the connection's thread writes the commands
//! (play is `resume`, a reload is `reload` with the program's bytes) and asks for a `snapshot`
//! whenever the game stops and every [`SNAPSHOT_EVERY`] while it runs: the trace does not say
//! where agents stand, what their blackboards hold, their variables or beliefs.

use super::snapshot::WorldInfo;
use super::traced::TracedScene;
use super::worker::{Command, Report, Worker};
use ensemble_runtime::Program;
use ensemble_runtime::inspect::protocol::{
    Breakpoint, FromGame, GameMessage, PING_EVERY, PROTOCOL_VERSION, ToolMessage, base64,
    decode_from_game, encode,
};
use ensemble_runtime::trace::TraceEvent;
use ensemble_sim::Simulation;
use ensemble_sim::simulation::Options;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::{IpAddr, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long leaving waits for the game to close its side.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// How often a running game is asked for a snapshot (positions, blackboards, variables).
pub const SNAPSHOT_EVERY: Duration = Duration::from_millis(250);

/// The game to attach to.
pub struct Game {
    /// host:port.
    pub address: String,
    /// The token the game was started with (`--inspect-token-file`, `ENSEMBLE_TOKEN`), if any.
    pub token: Option<String>,
    /// The editor's program: the map of the scene the game runs (its locations, smart
    /// locations and navigation graph), when the program has that scene.
    pub program: Option<Arc<Program>>,
}

/// Whether `address` (host:port) names this machine: a loopback IP, or `localhost`. Any other
/// name is taken for another machine (a game there needs a token).
pub fn is_loopback(address: &str) -> bool {
    let host = address
        .rsplit_once(':')
        .map_or(address, |(host, _)| host)
        .trim_start_matches('[')
        .trim_end_matches(']');
    match host.parse::<IpAddr>() {
        Ok(ip) => ip.is_loopback(),
        Err(_) => host.eq_ignore_ascii_case("localhost"),
    }
}

/// What the reader asks of the writer: a snapshot now (the game stopped, a variable was
/// set), and whether the game runs (snapshots every [`SNAPSHOT_EVERY`] then).
#[derive(Default)]
struct Wants {
    snapshot: AtomicBool,
    running: AtomicBool,
}

/// Reloads sent and not answered yet, oldest first: when each was asked.
type Asked = Arc<Mutex<VecDeque<Instant>>>;

impl Worker {
    /// Attaches to the game serving the inspection protocol at `game.address`.
    pub fn attach(game: Game) -> Worker {
        Worker::spawn("ensemble-attach", move |commands, out| {
            run(game, commands, out)
        })
    }
}

/// Connects to the game, says hello and serves until the command channel closes or the game
/// goes away. Runs on the worker's thread.
pub fn run(game: Game, commands: Receiver<Command>, out: SyncSender<Report>) {
    let address = game.address.as_str();
    let mut stream = match connect(address) {
        Ok(s) => s,
        Err(e) => {
            let _ = out.send(Report::Failed(format!("cannot attach to {address}: {e}")));
            return;
        }
    };
    let hello = ToolMessage::Hello {
        version: PROTOCOL_VERSION,
        token: game.token.clone(),
        trace: true,
    };
    let reader = match stream.try_clone() {
        Ok(r) => r,
        Err(e) => {
            let _ = out.send(Report::Failed(format!("cannot attach to {address}: {e}")));
            return;
        }
    };
    let asked: Asked = Arc::default();
    let wants: Arc<Wants> = Arc::default();
    let reading = {
        let (asked, wants, out) = (asked.clone(), wants.clone(), out.clone());
        let program = game.program.clone();
        std::thread::Builder::new()
            .name("ensemble-attach-reader".into())
            .spawn(move || read(reader, program, asked, wants, out))
    };
    if reading.is_err()
        || write(&mut stream, &hello).is_err()
        || write(&mut stream, &ToolMessage::Snapshot).is_err()
    {
        let _ = out.send(Report::Failed(format!("the game at {address} went away")));
        return;
    }
    let mut last_snapshot = Instant::now();
    // When the editor last wrote: a paused game hears nothing for long, and closes a tool it
    // has not heard from (`InspectorOptions::idle_timeout`) unless it says `ping`.
    let mut last_sent = Instant::now();
    loop {
        let command = match commands.recv_timeout(SNAPSHOT_EVERY / 4) {
            Ok(command) => Some(command),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let due =
            wants.running.load(Ordering::Relaxed) && last_snapshot.elapsed() >= SNAPSHOT_EVERY;
        if wants.snapshot.swap(false, Ordering::Relaxed) || due {
            if write(&mut stream, &ToolMessage::Snapshot).is_err() {
                break;
            }
            last_snapshot = Instant::now();
            last_sent = last_snapshot;
        }
        if last_sent.elapsed() >= PING_EVERY {
            if write(&mut stream, &ToolMessage::Ping).is_err() {
                break;
            }
            last_sent = Instant::now();
        }
        let Some(command) = command else { continue };
        let message = match command {
            Command::Play => ToolMessage::Resume,
            Command::Pause => ToolMessage::Pause,
            Command::Step(n) => ToolMessage::Step { ticks: n.into() },
            Command::Reload {
                program, asked: at, ..
            } => {
                asked
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push_back(at);
                ToolMessage::Reload {
                    program: base64::encode(&program.to_bytes()),
                }
            }
            // The editor answers a save that does not compile itself (`answer_pending`):
            // nothing reaches the game, which goes on with the program it has.
            Command::Reject { .. } => continue,
            Command::Protocol(message) => message,
            // The game keeps its own clock and speaks in the locale its player chose; a
            // player line is the game's to take.
            Command::Speed(_) | Command::Say(_) | Command::Locale(_) => continue,
        };
        // A variable set shows at once, not at the next periodic snapshot.
        let set = matches!(message, ToolMessage::Set { .. });
        if write(&mut stream, &message).is_err()
            || (set && write(&mut stream, &ToolMessage::Snapshot).is_err())
        {
            break;
        }
        last_sent = Instant::now();
    }
    // Closing only our side first: the game reads what was sent last (a detach's `clear` and
    // `resume`), sees the end and closes, and the reader stops at the end of the stream. Closed
    // at once, the unread trace would reset the connection and the game could lose those lines.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    if let Ok(reader) = &reading {
        let start = Instant::now();
        while !reader.is_finished() && start.elapsed() < CLOSE_TIMEOUT {
            std::thread::sleep(Duration::from_millis(2));
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

fn connect(address: &str) -> std::io::Result<TcpStream> {
    let mut last = None;
    for a in address.to_socket_addrs()? {
        match TcpStream::connect_timeout(&a, CONNECT_TIMEOUT) {
            Ok(s) => {
                let _ = s.set_nodelay(true);
                return Ok(s);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("the address names no host")))
}

fn write(stream: &mut TcpStream, message: &ToolMessage) -> std::io::Result<()> {
    stream.write_all(encode(message).as_bytes())
}

/// The map of `scene` as the editor's program has it, if it has that scene.
fn world_of(program: Option<Arc<Program>>, scene: &str) -> Option<Arc<WorldInfo>> {
    let sim = Simulation::start(program?, scene, 0, &Options::default()).ok()?;
    Some(Arc::new(WorldInfo::of(&sim, 0)))
}

/// Folds what the game sends into reports, one snapshot per tick of the trace.
fn read(
    stream: TcpStream,
    mut program: Option<Arc<Program>>,
    asked: Asked,
    wants: Arc<Wants>,
    out: SyncSender<Report>,
) {
    let mut lines = BufReader::new(stream);
    let mut scene: Option<TracedScene> = None;
    // The tick being received and its events (a tick's snapshot goes when the next begins,
    // when the game says something else, such as `paused`, or when nothing more waits).
    let mut tick = (0u64, 0.0f64);
    let mut events: Vec<TraceEvent> = Vec::new();
    let mut line = Vec::new();
    let why = loop {
        line.clear();
        match lines.read_until(b'\n', &mut line) {
            Ok(0) => break "the game closed the connection".to_string(),
            Ok(_) => {}
            Err(e) => break format!("the connection failed: {e}"),
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        let message = match decode_from_game(text) {
            Ok(m) => m,
            Err(e) => break format!("the game sent something unreadable: {e}"),
        };
        let Some(s) = scene.as_mut() else {
            match message {
                FromGame::Message(GameMessage::Hello(hello)) => {
                    let mut s = match world_of(program.take(), &hello.scene) {
                        Some(world) => TracedScene::with_world(world),
                        None => TracedScene::new(&hello.scene, 0.0),
                    };
                    for name in &hello.agents {
                        s.join(name);
                    }
                    tick = (hello.tick, 0.0);
                    let _ = out.send(Report::Started(s.world()));
                    let _ = out.send(Report::Playing(!hello.paused));
                    wants.running.store(!hello.paused, Ordering::Relaxed);
                    scene = Some(s);
                    continue;
                }
                FromGame::Message(GameMessage::Error { message }) => {
                    break format!("the game refused: {message}");
                }
                _ => continue,
            }
        };
        let sent = match message {
            FromGame::Trace(value) => match TraceEvent::from_json(&value.to_string()) {
                Ok(e) => {
                    let ok = e.tick == tick.0
                        || events.is_empty()
                        || s.send_tick(tick, std::mem::take(&mut events), &out);
                    tick = (e.tick, e.time);
                    events.push(e);
                    ok
                }
                Err(e) => break format!("the game sent a trace event the editor cannot read: {e}"),
            },
            FromGame::Message(m) => {
                // What the game says next comes after the tick received so far.
                let mut ok = s.send_tick(tick, std::mem::take(&mut events), &out);
                match m {
                    GameMessage::Snapshot { tick: t, agents } => {
                        s.take_snapshot(&agents);
                        // A snapshot answers for the last tick run, which may be past the
                        // last event received.
                        if t > tick.0 {
                            tick = (t, tick.1 + (t - tick.0) as f64 * s.world().dt);
                        }
                        ok = s.send_tick(tick, Vec::new(), &out)
                            && out.send(Report::Agents(t, agents.into())).is_ok();
                    }
                    GameMessage::Paused {
                        tick: t,
                        breakpoint,
                        event,
                        ..
                    } => {
                        tick.0 = t;
                        wants.running.store(false, Ordering::Relaxed);
                        wants.snapshot.store(true, Ordering::Relaxed);
                        ok = ok && out.send(Report::Playing(false)).is_ok();
                        if let Some(b) = breakpoint {
                            let what = event
                                .and_then(|e| TraceEvent::from_json(&e.to_string()).ok())
                                .map_or(String::new(), |e| format!(": {}", e.to_text().trim()));
                            ok = ok
                                && out
                                    .send(Report::Note(format!(
                                        "stopped at the breakpoint {}{what}",
                                        breakpoint_name(&b)
                                    )))
                                    .is_ok();
                        }
                    }
                    GameMessage::Resumed { .. } => {
                        wants.running.store(true, Ordering::Relaxed);
                        ok = ok && out.send(Report::Playing(true)).is_ok()
                    }
                    GameMessage::Reload { .. } | GameMessage::ReloadRejected { .. } => {
                        wants.snapshot.store(true, Ordering::Relaxed);
                        let at = asked
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .pop_front()
                            .unwrap_or_else(Instant::now);
                        ok = ok
                            && out
                                .send(Report::Reloaded {
                                    world: s.world(),
                                    ok: matches!(m, GameMessage::Reload { .. }),
                                    asked: at,
                                    done: Instant::now(),
                                })
                                .is_ok();
                    }
                    GameMessage::Error { message } => {
                        ok = ok
                            && out
                                .send(Report::Note(format!("the game says: {message}")))
                                .is_ok();
                    }
                    GameMessage::Hello(_) | GameMessage::Ok { .. } => {}
                }
                ok
            }
        };
        // Nothing more waiting: what arrived of this tick is shown now, not when the next
        // tick begins (a paused game sends no next tick). More of it later records the tick
        // again, and the later snapshot answers for it.
        let sent = sent
            && (events.is_empty()
                || !lines.buffer().is_empty()
                || s.send_tick(tick, std::mem::take(&mut events), &out));
        if !sent {
            return;
        }
    };
    let _ = out.send(Report::Failed(why));
}

/// A breakpoint as the Breakpoints pane names it.
fn breakpoint_name(b: &Breakpoint) -> String {
    match b {
        Breakpoint::State { machine, state, .. } => format!("{machine}/{state}"),
        Breakpoint::Rule { action, .. } => format!("rule {action}"),
        Breakpoint::Message { name, .. } => format!("message {name}"),
    }
}
