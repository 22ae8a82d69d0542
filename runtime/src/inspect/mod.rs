//! Attach to a running game: the game side of the inspection protocol (docs/formats/inspect.md).
//!
//! A game creates an [`Inspector`] with an address and calls [`Inspector::frame`] once per frame
//! from its own thread, with the trace events of the tick it just ran and itself as
//! [`Inspected`]. The inspector accepts tools (`ensemble attach`, `ensemble push`, the editor),
//! streams the trace to them, answers their requests and says whether the game should tick:
//!
//! ```no_run
//! # use ensemble_runtime::inspect::{Inspector, InspectorOptions, Flow, Inspected};
//! # fn game_loop<G: Inspected>(game: &mut G, mut tick: impl FnMut(&mut G) -> Vec<ensemble_runtime::trace::TraceEvent>) -> std::io::Result<()> {
//! let mut inspector = Inspector::bind("127.0.0.1:7878", InspectorOptions::default())?;
//! let mut events = Vec::new();
//! loop {
//!     if inspector.frame(game, &events) == Flow::Tick {
//!         events = tick(game); // the scene's tick, and the events it recorded
//!     } else {
//!         events.clear(); // paused: render, poll input, call frame again next frame
//!     }
//! }
//! # }
//! ```
//!
//! Everything is non-blocking `std::net`, polled from the game's thread: no thread, no async
//! runtime. It is safe to leave on: it binds the loopback address unless told otherwise and then
//! requires a token; a malformed, oversized or hostile line gets an `error` reply and the game
//! goes on; a tool that stops reading is dropped once its bounded outgoing queue fills, so the
//! game's memory stays flat.

mod client;
pub mod protocol;
mod scene;
#[cfg(test)]
mod tests;

use crate::hsm::ReloadReport;
use crate::program::Program;
use crate::trace::{EventKind, TraceEvent};
use client::{Client, Received};
use protocol::{
    AgentSnapshot, Breakpoint, GameMessage, Hello, PROTOCOL_VERSION, PauseReason, ToolMessage,
    When, encode,
};
use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr, TcpListener, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use scene::{InspectedScene, check_variable, program_variables};

/// What a game shows and lets a tool change; a game implements it over its own scene (the
/// command line's simulated world has one too).
pub trait Inspected {
    /// The program's name (the project's).
    fn program_name(&self) -> &str;
    /// The running program.
    fn program(&self) -> &Program;
    /// The running scene's name.
    fn scene_name(&self) -> &str;
    /// Ticks run so far.
    fn tick_count(&self) -> u64;
    /// The agents' names, in the scene's order.
    fn agent_names(&self) -> Vec<String>;
    /// Every agent as it is now. `plan` may be left `None`: the inspector fills it from the
    /// last `plan`/`replan` event it saw.
    fn snapshot(&self) -> Vec<AgentSnapshot>;
    /// Replaces the running program, carrying live state across by name (and recording the
    /// `reload` or `reload-rejected` trace event); `Err`: why it was refused.
    fn reload(&mut self, program: Program) -> Result<ReloadReport, String>;
    /// Records that a program was refused before it got to the scene (it did not load).
    fn reject_reload(&mut self, reason: String);
    /// Sets one of an agent's variables; `Err`: why not (no such agent).
    fn set_variable(&mut self, agent: &str, variable: &str, value: &str) -> Result<(), String>;
}

/// Whether the game should run its next tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Tick.
    Tick,
    /// Paused: do not tick, call [`Inspector::frame`] again next frame.
    Hold,
}

/// How an inspector serves.
#[derive(Clone, Debug)]
pub struct InspectorOptions {
    /// The token a tool must send in its `hello`; required to listen on a non-loopback address.
    pub token: Option<String>,
    /// Start paused (until a tool says `resume` or `step`), so a tool can set breakpoints
    /// before the first tick.
    pub start_paused: bool,
    /// Tools served at once; more are told so and closed.
    pub max_clients: usize,
    /// Bytes waiting to go to one tool; a tool that lets more pile up is dropped.
    pub max_queued: usize,
    /// Bytes read from one tool per frame, so a flood cannot stall the game.
    pub read_per_frame: usize,
    /// A tool that has not said `hello` by then is closed.
    pub hello_timeout: Duration,
    /// Breakpoints set at once, by all tools together; a `break` beyond is refused (an
    /// `error` that says the limit). Every event of every tick is checked against each.
    pub max_breakpoints: usize,
    /// Breakpoints one tool may have set at once (those it set and nobody cleared).
    pub max_breakpoints_per_tool: usize,
    /// An attached tool (past its `hello`) that sends nothing for this long is closed, so idle
    /// tools cannot hold the slots ([`InspectorOptions::max_clients`]) for ever. Tools send
    /// `ping` every [`protocol::PING_EVERY`] (30 s) when they have nothing else to say.
    pub idle_timeout: Duration,
    /// After a `hello` with the wrong token, the hellos from that address are refused (without
    /// looking at their token) for this long; the wait doubles with each further failure, up
    /// to [`InspectorOptions::hello_backoff_max`], and a right token forgets the failures.
    pub hello_backoff: Duration,
    /// The longest wait [`InspectorOptions::hello_backoff`] grows to.
    pub hello_backoff_max: Duration,
    /// Bytes of one value a tool may `set` (a variable's text); a longer one is refused with
    /// an `error` naming the limit. Every snapshot carries every value, so this bounds them.
    pub max_value: usize,
}

/// [`InspectorOptions::max_breakpoints`] by default.
pub const MAX_BREAKPOINTS: usize = 1024;
/// [`InspectorOptions::max_breakpoints_per_tool`] by default.
pub const MAX_BREAKPOINTS_PER_TOOL: usize = 256;
/// [`InspectorOptions::max_value`] by default: 64 KiB.
pub const MAX_VALUE: usize = 64 << 10;

impl Default for InspectorOptions {
    fn default() -> Self {
        InspectorOptions {
            token: None,
            start_paused: false,
            max_clients: 8,
            max_queued: 8 << 20,
            read_per_frame: 1 << 20,
            hello_timeout: Duration::from_secs(10),
            max_breakpoints: MAX_BREAKPOINTS,
            max_breakpoints_per_tool: MAX_BREAKPOINTS_PER_TOOL,
            max_value: MAX_VALUE,
            idle_timeout: Duration::from_secs(300),
            hello_backoff: Duration::from_millis(500),
            hello_backoff_max: Duration::from_secs(30),
        }
    }
}

/// The mode the game runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Running,
    Paused,
    /// Stepping: this many ticks left to run.
    Stepping(u64),
}

/// Serves the inspection protocol to tools for one game. See the module documentation.
pub struct Inspector {
    listener: TcpListener,
    address: SocketAddr,
    options: InspectorOptions,
    clients: Vec<Client>,
    breakpoints: Vec<Breakpoint>,
    /// Which tool set each of [`Inspector::breakpoints`] (its [`Client::id`]).
    set_by: Vec<u64>,
    /// The id the next tool gets.
    next_client: u64,
    mode: Mode,
    /// Each agent's last plan (`plan` / `replan` events): what a snapshot reports as its plan.
    plans: HashMap<Arc<str>, Vec<String>>,
    /// Tools dropped so far (they stopped reading, sent too much, or said the wrong token).
    dropped: u64,
    /// Addresses whose last hellos had the wrong token: how many, and until when their next
    /// hello is refused unheard.
    failures: HashMap<IpAddr, (u32, Instant)>,
}

/// A tool attached to an [`Inspector`], as [`Inspector::tools`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AttachedTool {
    /// Its number, for [`Inspector::kick`]: unique among the tools this inspector accepted.
    pub id: u64,
    /// The address it connected from.
    pub peer: SocketAddr,
    /// Whether it has said a `hello` the game accepted.
    pub said_hello: bool,
}

/// The most addresses whose failed hellos an inspector remembers; past it, those whose wait is
/// over are forgotten first (the rest stay: forgetting them would lift their backoff).
const MAX_REMEMBERED_FAILURES: usize = 4096;

impl Inspector {
    /// Listens on `address`. A non-loopback address needs a token ([`InspectorOptions::token`]);
    /// without one it is refused (`InvalidInput`).
    pub fn bind(address: impl ToSocketAddrs, options: InspectorOptions) -> io::Result<Inspector> {
        if let Some(why) = options.token.as_deref().and_then(protocol::weak_token) {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, why));
        }
        let listener = TcpListener::bind(address)?;
        let address = listener.local_addr()?;
        if !address.ip().is_loopback() && options.token.is_none() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{address} is not a loopback address: serving it needs a token"),
            ));
        }
        listener.set_nonblocking(true)?;
        let mode = if options.start_paused {
            Mode::Paused
        } else {
            Mode::Running
        };
        Ok(Inspector {
            listener,
            address,
            options,
            clients: Vec::new(),
            breakpoints: Vec::new(),
            set_by: Vec::new(),
            next_client: 0,
            mode,
            plans: HashMap::new(),
            dropped: 0,
            failures: HashMap::new(),
        })
    }

    /// The address it listens on (the port the system chose for `:0`).
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Tools connected now (said hello or not).
    pub fn clients(&self) -> usize {
        self.clients.len()
    }

    /// Tools dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// The tools connected now, in the order they connected.
    pub fn tools(&self) -> Vec<AttachedTool> {
        self.clients
            .iter()
            .filter(|c| c.open())
            .map(|c| AttachedTool {
                id: c.id(),
                peer: c.peer(),
                said_hello: c.said_hello(),
            })
            .collect()
    }

    /// Closes the tool numbered `id` ([`AttachedTool::id`]), telling it `reason` in an `error`
    /// first; the game side's way to free a slot or end a session it did not want. Whether
    /// such a tool was connected.
    pub fn kick(&mut self, id: u64, reason: &str) -> bool {
        let Some(c) = self.clients.iter_mut().find(|c| c.id() == id && c.open()) else {
            return false;
        };
        let message = format!("closed by the game: {reason}");
        c.send(&encode(&GameMessage::Error { message }));
        c.close();
        true
    }

    /// Whether the game is paused (by a breakpoint, a step or a tool).
    pub fn is_paused(&self) -> bool {
        self.mode == Mode::Paused
    }

    /// The breakpoints the tools have set.
    pub fn breakpoints(&self) -> &[Breakpoint] {
        &self.breakpoints
    }

    /// Whether a tool's `step` is under way: a game that may run several ticks in a frame runs
    /// exactly one per frame meanwhile, so that `step N` runs N ticks.
    pub fn is_stepping(&self) -> bool {
        matches!(self.mode, Mode::Stepping(_))
    }

    /// Once per frame: streams `events` (those recorded since the last call) to the tools,
    /// pauses on a breakpoint they fire, accepts tools, answers their requests (a `reload`
    /// reaches `game` here), and says whether to tick.
    pub fn frame(&mut self, game: &mut dyn Inspected, events: &[TraceEvent]) -> Flow {
        self.note_plans(events);
        self.stream(events);
        if self.mode != Mode::Paused
            && let Some((breakpoint, event)) = self.fired(events)
        {
            self.mode = Mode::Paused;
            self.broadcast(&GameMessage::Paused {
                tick: event.tick,
                reason: PauseReason::Breakpoint,
                breakpoint: Some(breakpoint),
                event: serde_json::from_str(&event.to_json()).ok(),
            });
        }
        if self.mode == Mode::Stepping(0) {
            self.mode = Mode::Paused;
            self.broadcast(&GameMessage::Paused {
                tick: game.tick_count(),
                reason: PauseReason::Step,
                breakpoint: None,
                event: None,
            });
        }
        self.accept();
        self.serve(game);
        match self.mode {
            Mode::Running => Flow::Tick,
            Mode::Paused => Flow::Hold,
            Mode::Stepping(n) => {
                self.mode = Mode::Stepping(n - 1);
                Flow::Tick
            }
        }
    }

    fn note_plans(&mut self, events: &[TraceEvent]) {
        for e in events {
            let (EventKind::Plan { actions, .. } | EventKind::Replan { actions, .. }) = &e.kind
            else {
                continue;
            };
            if let Some(agent) = &e.agent {
                let plan = actions.iter().map(|a| a.to_string()).collect();
                self.plans.insert(agent.clone(), plan);
            }
        }
    }

    /// Sends the events to every tool that asked for the trace; each is rendered once.
    fn stream(&mut self, events: &[TraceEvent]) {
        if events.is_empty() || !self.clients.iter().any(Client::wants_trace) {
            return;
        }
        let mut lines = String::new();
        for e in events {
            lines.push_str(&e.to_json());
            lines.push('\n');
        }
        for c in self.clients.iter_mut().filter(|c| c.wants_trace()) {
            c.send_trace(&lines);
        }
        self.flush();
    }

    /// The first breakpoint one of `events` fires, with the event.
    fn fired<'e>(&self, events: &'e [TraceEvent]) -> Option<(Breakpoint, &'e TraceEvent)> {
        if self.breakpoints.is_empty() {
            return None;
        }
        events.iter().find_map(|e| {
            self.breakpoints
                .iter()
                .find(|b| fires(b, e))
                .map(|b| (b.clone(), e))
        })
    }

    fn accept(&mut self) {
        // Until WouldBlock (nobody waiting). Other errors (a connection reset before it was
        // accepted, out of descriptors) are the tool's; accepting goes on next frame.
        while let Ok((stream, peer)) = self.listener.accept() {
            let Ok(mut client) = Client::new(stream, peer, self.next_client, &self.options) else {
                continue;
            };
            self.next_client += 1;
            if self.clients.len() >= self.options.max_clients {
                let message = format!("{} tools are attached already", self.options.max_clients);
                client.send(&encode(&GameMessage::Error { message }));
                client.flush();
                continue; // dropped: closes the connection
            }
            self.clients.push(client);
        }
    }

    /// Reads every tool's requests and answers them.
    fn serve(&mut self, game: &mut dyn Inspected) {
        for i in 0..self.clients.len() {
            let received = self.clients[i].receive(&self.options);
            for r in received {
                match r {
                    Received::Line(line) => self.answer(i, &line, game),
                    Received::Error(message) => self.reply(i, GameMessage::Error { message }),
                }
            }
        }
        let idle = self.options.idle_timeout;
        for c in &mut self.clients {
            if c.said_hello() && c.open() && c.silent_for() >= idle {
                let message = format!(
                    "closed: nothing heard from this tool in {} s (InspectorOptions::idle_timeout); \
                     a tool with nothing to ask sends `ping`",
                    idle.as_secs_f64()
                );
                c.send(&encode(&GameMessage::Error { message }));
                c.close();
            }
        }
        self.flush();
        let timeout = self.options.hello_timeout;
        let before = self.clients.len();
        self.clients.retain(|c| c.is_open(timeout));
        self.dropped += (before - self.clients.len()) as u64;
    }

    fn flush(&mut self) {
        for c in &mut self.clients {
            c.flush();
        }
    }

    fn reply(&mut self, client: usize, message: GameMessage) {
        self.clients[client].send(&encode(&message));
    }

    fn broadcast(&mut self, message: &GameMessage) {
        let line = encode(message);
        for c in self.clients.iter_mut().filter(|c| c.said_hello()) {
            c.send(&line);
        }
        self.flush();
    }

    fn answer(&mut self, client: usize, line: &[u8], game: &mut dyn Inspected) {
        let message = match protocol::decode(line) {
            Ok(m) => m,
            Err(e) => {
                return self.reply(
                    client,
                    GameMessage::Error {
                        message: e.to_string(),
                    },
                );
            }
        };
        let said_hello = self.clients[client].said_hello();
        match message {
            ToolMessage::Hello {
                version,
                token,
                trace,
            } => {
                if version != PROTOCOL_VERSION {
                    let message = format!(
                        "protocol version {version} is not spoken here (this game speaks {PROTOCOL_VERSION})"
                    );
                    self.reply(client, GameMessage::Error { message });
                    return self.clients[client].close();
                }
                if let Err(message) = self.check_token(client, token.as_deref()) {
                    self.reply(client, GameMessage::Error { message });
                    return self.clients[client].close();
                }
                self.clients[client].hello(trace);
                let hello = self.hello(game);
                self.reply(client, GameMessage::Hello(hello));
            }
            _ if !said_hello => {
                let message = "say hello first".to_string();
                self.reply(client, GameMessage::Error { message });
            }
            ToolMessage::Ping => {}
            ToolMessage::Reload { program } => {
                let answer = self.reload(&program, game);
                self.reply(client, answer);
            }
            ToolMessage::Pause => {
                if self.mode != Mode::Paused {
                    self.mode = Mode::Paused;
                    self.broadcast(&GameMessage::Paused {
                        tick: game.tick_count(),
                        reason: PauseReason::Pause,
                        breakpoint: None,
                        event: None,
                    });
                }
            }
            ToolMessage::Resume => {
                if self.mode != Mode::Running {
                    self.mode = Mode::Running;
                    self.broadcast(&GameMessage::Resumed {
                        tick: game.tick_count(),
                    });
                }
            }
            ToolMessage::Step { ticks: 0 } => {
                let message = "step: ticks must be at least 1".to_string();
                self.reply(client, GameMessage::Error { message });
            }
            ToolMessage::Step { ticks } => self.mode = Mode::Stepping(ticks),
            ToolMessage::Break { breakpoint } => {
                if !self.breakpoints.contains(&breakpoint) {
                    if let Err(message) = self.may_set_breakpoint(client) {
                        return self.reply(client, GameMessage::Error { message });
                    }
                    self.breakpoints.push(breakpoint);
                    self.set_by.push(self.clients[client].id());
                }
                self.acknowledge(client, "break");
            }
            ToolMessage::Clear { breakpoint } => {
                match breakpoint {
                    Some(b) => {
                        if let Some(i) = self.breakpoints.iter().position(|x| *x == b) {
                            self.breakpoints.remove(i);
                            self.set_by.remove(i);
                        }
                    }
                    None => {
                        self.breakpoints.clear();
                        self.set_by.clear();
                    }
                }
                self.acknowledge(client, "clear");
            }
            ToolMessage::Snapshot => {
                let mut agents = game.snapshot();
                for a in &mut agents {
                    if a.plan.is_none() {
                        a.plan = self.plans.get(a.name.as_str()).cloned();
                    }
                }
                let tick = game.tick_count();
                self.reply(client, GameMessage::Snapshot { tick, agents });
            }
            ToolMessage::Set { value, .. } if value.len() > self.options.max_value => {
                let message = format!(
                    "set: the value is {} bytes, longer than the {} bytes a variable takes \
                     (InspectorOptions::max_value); not set",
                    value.len(),
                    self.options.max_value
                );
                self.reply(client, GameMessage::Error { message });
            }
            ToolMessage::Set {
                agent,
                variable,
                value,
            } => match game.set_variable(&agent, &variable, &value) {
                Ok(()) => self.acknowledge(client, "set"),
                Err(message) => self.reply(client, GameMessage::Error { message }),
            },
        }
    }

    /// Checks the token of tool `client`'s hello (when the game has one), in constant time,
    /// after the backoff of its address: `Err` is what to tell it before closing it.
    fn check_token(&mut self, client: usize, sent: Option<&str>) -> Result<(), String> {
        let Some(expected) = self.options.token.as_deref() else {
            return Ok(());
        };
        let ip = self.clients[client].peer().ip();
        let now = Instant::now();
        if let Some(&(failed, until)) = self.failures.get(&ip)
            && until > now
        {
            return Err(format!(
                "{failed} wrong token{} from {ip}: its next hello is heard in {:.1} s",
                if failed == 1 { "" } else { "s" },
                (until - now).as_secs_f64()
            ));
        }
        if protocol::tokens_equal(sent.unwrap_or(""), expected) {
            self.failures.remove(&ip);
            return Ok(());
        }
        if self.failures.len() >= MAX_REMEMBERED_FAILURES {
            self.failures.retain(|_, (_, until)| *until > now);
        }
        let failed = self.failures.get(&ip).map_or(0, |f| f.0).saturating_add(1);
        let wait = self
            .options
            .hello_backoff
            .saturating_mul(1 << (failed - 1).min(20))
            .min(self.options.hello_backoff_max);
        if self.failures.len() < MAX_REMEMBERED_FAILURES {
            self.failures.insert(ip, (failed, now + wait));
        }
        Err(format!(
            "wrong token; hellos from {ip} are refused unheard for {:.1} s",
            wait.as_secs_f64()
        ))
    }

    /// Whether tool `client` may set one more breakpoint; `Err`: the limit it would pass.
    fn may_set_breakpoint(&self, client: usize) -> Result<(), String> {
        let all = self.options.max_breakpoints;
        if self.breakpoints.len() >= all {
            return Err(format!(
                "break: {all} breakpoints are set already, the most a game takes \
                 (InspectorOptions::max_breakpoints); clear some first"
            ));
        }
        let id = self.clients[client].id();
        let per_tool = self.options.max_breakpoints_per_tool;
        if self.set_by.iter().filter(|&&by| by == id).count() >= per_tool {
            return Err(format!(
                "break: this tool has set {per_tool} breakpoints already, the most one tool may \
                 (InspectorOptions::max_breakpoints_per_tool); clear some first"
            ));
        }
        Ok(())
    }

    fn acknowledge(&mut self, client: usize, request: &str) {
        let breakpoints = self.breakpoints.clone();
        self.reply(
            client,
            GameMessage::Ok {
                request: request.to_string(),
                breakpoints,
            },
        );
    }

    fn hello(&self, game: &dyn Inspected) -> Hello {
        Hello {
            version: PROTOCOL_VERSION,
            program: game.program_name().to_string(),
            hash: format!("{:08x}", game.program().checksum()),
            scene: game.scene_name().to_string(),
            agents: game.agent_names(),
            tick: game.tick_count(),
            paused: self.mode == Mode::Paused,
            breakpoints: self.breakpoints.clone(),
        }
    }

    /// Loads a pushed program (base64 `.ensb` bytes) and reloads it into the game.
    fn reload(&mut self, program: &str, game: &mut dyn Inspected) -> GameMessage {
        let loaded = protocol::base64::decode(program)
            .and_then(|bytes| Program::from_bytes(&bytes).map_err(|e| e.to_string()));
        let result = match loaded {
            Ok(p) => game.reload(p),
            Err(reason) => {
                let reason = format!("pushed program does not load: {reason}");
                game.reject_reload(reason.clone());
                Err(reason)
            }
        };
        match result {
            Ok(report) => GameMessage::Reload {
                tick: game.tick_count(),
                kept: report.kept,
                fallbacks: report.fallbacks,
            },
            Err(reason) => GameMessage::ReloadRejected { reason },
        }
    }
}

/// Whether trace event `e` fires `breakpoint` (a game that runs several ticks in a frame checks
/// each tick's events against [`Inspector::breakpoints`], to stop right after the one that
/// fires).
pub fn fires(breakpoint: &Breakpoint, e: &TraceEvent) -> bool {
    let agent_is = |agent: &Option<String>| {
        agent
            .as_deref()
            .is_none_or(|a| e.agent.as_deref() == Some(a))
    };
    match (breakpoint, &e.kind) {
        (
            Breakpoint::State {
                machine,
                state,
                when,
                agent,
            },
            EventKind::Enter {
                machine: m,
                state: s,
                ..
            },
        ) => *when != When::Exit && **m == **machine && **s == **state && agent_is(agent),
        (
            Breakpoint::State {
                machine,
                state,
                when,
                agent,
            },
            EventKind::Exit {
                machine: m,
                state: s,
                ..
            },
        ) => *when != When::Enter && **m == **machine && **s == **state && agent_is(agent),
        (Breakpoint::Rule { action, agent }, EventKind::Act { action: a, .. }) => {
            **a == **action && agent_is(agent)
        }
        (Breakpoint::Message { name, agent }, EventKind::Message { name: n, .. }) => {
            **n == **name && agent_is(agent)
        }
        _ => false,
    }
}
