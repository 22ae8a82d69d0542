//! The inspection protocol on the command line (docs/formats/inspect.md): `ensemble run
//! --inspect ADDR` serves it while a scene runs; `ensemble attach ADDR` prints what a game
//! sends; `ensemble push ADDR PATH` compiles PATH and hot-reloads it into the game.

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Io};
use crate::io::{LoadFailure, load};
use clap::{Args, ValueEnum};
use ensemble_runtime::inspect::protocol::{
    self, Breakpoint, FromGame, GameMessage, PING_EVERY, PROTOCOL_VERSION, ToolMessage, base64,
    encode,
};
use ensemble_runtime::inspect::{Flow, Inspector, InspectorOptions};
use ensemble_runtime::trace::{TraceEvent, printable};
use ensemble_sim::Simulation;
use ensemble_sim::inspect::InspectedSimulation;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

/// `ensemble run`'s options for serving the protocol.
#[derive(Args, Clone, Debug, Default)]
pub struct ServeArgs {
    /// Serve the inspection protocol on ADDR while the scene runs (real time, at --speed);
    /// the bound address is printed on stderr, so `127.0.0.1:0` picks a free port.
    #[arg(long, value_name = "ADDR")]
    pub inspect: Option<String>,
    /// The token tools must send (required for a non-loopback address), on the command line:
    /// visible to every user of this machine in the process list, so prefer
    /// --inspect-token-file or ENSEMBLE_TOKEN.
    #[arg(
        long,
        value_name = "T",
        requires = "inspect",
        conflicts_with = "inspect_token_file"
    )]
    pub inspect_token: Option<String>,
    /// Read the token tools must send from FILE (its first line). Without this or
    /// --inspect-token, the environment's ENSEMBLE_TOKEN is the token, if set.
    #[arg(long, value_name = "FILE", requires = "inspect")]
    pub inspect_token_file: Option<PathBuf>,
    /// Start paused until a tool says `resume` or `step` (so it can set breakpoints first).
    #[arg(long, requires = "inspect")]
    pub inspect_wait: bool,
}

/// Binds the inspector `args` asks for, saying where on stderr; `Err`: the exit code.
pub(super) fn serve(args: &ServeArgs, io: &mut Io<'_>) -> Result<Option<Inspector>, i32> {
    let Some(address) = &args.inspect else {
        return Ok(None);
    };
    let (token, warning) = token(
        args.inspect_token.clone(),
        args.inspect_token_file.as_deref(),
        "--inspect-token",
        io,
    )?;
    let options = InspectorOptions {
        token,
        start_paused: args.inspect_wait,
        ..InspectorOptions::default()
    };
    match Inspector::bind(address.as_str(), options) {
        Ok(inspector) => {
            let bound = inspector.address();
            // First: tools and scripts read the address from the first line.
            let _ = writeln!(io.err, "inspecting on {bound}");
            if let Some(w) = warning {
                let _ = writeln!(io.err, "{w}");
            }
            if !bound.ip().is_loopback() {
                let _ = writeln!(
                    io.err,
                    "warning: {bound} is reachable from other machines, and the inspection \
                     protocol has no TLS: the token, the trace (every line the agents say, every \
                     variable), snapshots and pushed programs travel in plain text, readable by \
                     anyone on the network path; whoever has the token can pause the game, set \
                     its variables and replace its program. Serve on 127.0.0.1 and reach it \
                     through an SSH tunnel (ssh -L) or a VPN instead."
                );
            }
            let _ = io.err.flush();
            Ok(Some(inspector))
        }
        Err(e) => {
            if let Some(w) = warning {
                let _ = writeln!(io.err, "{w}");
            }
            let _ = writeln!(io.err, "error: --inspect {address}: {e}");
            Err(EXIT_CANNOT_RUN)
        }
    }
}

/// One frame of a served run: streams `events` (and prints them with `print`), answers the
/// tools, and while they hold the game paused keeps answering (printing what their requests
/// record, a reload). Returns when the game should tick, or `false` when `print` failed.
pub(super) fn frame(
    inspector: &mut Inspector,
    sim: &mut Simulation,
    program_name: &str,
    mut events: Vec<TraceEvent>,
    print: &mut dyn FnMut(Vec<TraceEvent>) -> bool,
) -> bool {
    loop {
        let mut game = InspectedSimulation { sim, program_name };
        let flow = inspector.frame(&mut game, &events);
        if !print(events) {
            return false;
        }
        if flow == Flow::Tick {
            return true;
        }
        // Paused: poll often enough that `resume` and `step` feel immediate.
        std::thread::sleep(Duration::from_millis(5));
        events = sim.take_events();
    }
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TraceStream {
    /// Trace events as `--trace json` writes them.
    Json,
}

/// `ensemble attach`.
#[derive(Args, Debug)]
pub struct AttachArgs {
    /// The game's address (`127.0.0.1:7878`).
    address: String,
    /// Also print the trace events as the game streams them.
    #[arg(long, value_enum)]
    trace: Option<TraceStream>,
    /// Pause when an agent enters or leaves MACHINE/STATE (repeatable).
    #[arg(long = "break", value_name = "MACHINE/STATE")]
    breaks: Vec<String>,
    /// Resume the game once the breakpoints are set (one started with --inspect-wait waits).
    #[arg(long)]
    resume: bool,
    /// The token the game was started with, on the command line: visible to every user of
    /// this machine in the process list, so prefer --token-file or ENSEMBLE_TOKEN.
    #[arg(long, value_name = "T", conflicts_with = "token_file")]
    token: Option<String>,
    /// Read the token from FILE (its first line). Without this or --token, the environment's
    /// ENSEMBLE_TOKEN is the token, if set.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Give up when the game has not answered the hello in SECONDS (once it has, a paused,
    /// silent game is waited for as long as it takes).
    #[arg(long, value_name = "SECONDS", default_value_t = ANSWER_TIMEOUT, value_parser = crate::io::seconds)]
    timeout: f64,
}

/// The environment variable a token is read from when no flag gives one.
pub const TOKEN_VARIABLE: &str = "ENSEMBLE_TOKEN";

/// The token from `flag`, from `file`, or from [`TOKEN_VARIABLE`], with the warning to print
/// when it came from the flag (visible to every local user); `Err`: the exit code, the reason
/// said on stderr.
fn token(
    flag: Option<String>,
    file: Option<&std::path::Path>,
    flag_name: &str,
    io: &mut Io<'_>,
) -> Result<(Option<String>, Option<String>), i32> {
    let file_text = match file {
        Some(path) => match std::fs::read_to_string(path) {
            Ok(text) => Some(text),
            Err(e) => {
                let _ = writeln!(io.err, "error: {flag_name}-file {}: {e}", path.display());
                return Err(EXIT_CANNOT_RUN);
            }
        },
        None => None,
    };
    let warning = flag.is_some().then(|| {
        format!(
            "warning: {flag_name} is visible to every user of this machine in the process list; \
             pass the token in a file ({flag_name}-file PATH) or in {TOKEN_VARIABLE}"
        )
    });
    let token = resolve_token(
        flag,
        file_text.as_deref(),
        std::env::var(TOKEN_VARIABLE).ok(),
    );
    Ok((token, warning))
}

/// [`token`] for a tool: the warning said at once.
fn tool_token(
    flag: Option<String>,
    file: Option<&std::path::Path>,
    io: &mut Io<'_>,
) -> Result<Option<String>, i32> {
    let (token, warning) = token(flag, file, "--token", io)?;
    if let Some(w) = warning {
        let _ = writeln!(io.err, "{w}");
    }
    Ok(token)
}

/// Which token counts: the flag's, else the file's first line (without its line end), else the
/// environment's (when not empty).
fn resolve_token(
    flag: Option<String>,
    file_text: Option<&str>,
    env: Option<String>,
) -> Option<String> {
    flag.or_else(|| file_text.map(|t| t.lines().next().unwrap_or("").to_string()))
        .or(env.filter(|t| !t.is_empty()))
}

/// How long a tool waits for a game's answer by default, in seconds (`--timeout`).
pub const ANSWER_TIMEOUT: f64 = 30.0;

/// `ensemble push`.
#[derive(Args, Debug)]
pub struct PushArgs {
    /// The game's address.
    address: String,
    /// The project (or source file, or built `.ensb`) to compile and push.
    path: PathBuf,
    /// The token the game was started with, on the command line: visible to every user of
    /// this machine in the process list, so prefer --token-file or ENSEMBLE_TOKEN.
    #[arg(long, value_name = "T", conflicts_with = "token_file")]
    token: Option<String>,
    /// Read the token from FILE (its first line). Without this or --token, the environment's
    /// ENSEMBLE_TOKEN is the token, if set.
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Give up when the game has not answered the push in SECONDS.
    #[arg(long, value_name = "SECONDS", default_value_t = ANSWER_TIMEOUT, value_parser = crate::io::seconds)]
    timeout: f64,
}

/// A tool's connection: hello said and answered.
struct Connection {
    stream: TcpStream,
    reader: BufReader<TcpStream>,
    address: String,
    /// How long a read waits for the game (`None`: for ever).
    timeout: Option<Duration>,
}

impl Connection {
    /// Connects and says hello; `Err`: why not, in one line.
    fn open(
        address: &str,
        token: Option<String>,
        trace: bool,
        timeout: f64,
    ) -> Result<Connection, String> {
        let addr = address
            .to_socket_addrs()
            .map_err(|e| format!("{address}: {e}"))?
            .next()
            .ok_or_else(|| format!("{address}: no such address"))?;
        let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
            .map_err(|e| format!("cannot connect to {address}: {e}"))?;
        let reader = BufReader::new(stream.try_clone().map_err(|e| e.to_string())?);
        let mut c = Connection {
            stream,
            reader,
            address: address.to_string(),
            timeout: None,
        };
        c.wait_at_most(Some(Duration::from_secs_f64(timeout)))?;
        c.send(&ToolMessage::Hello {
            version: PROTOCOL_VERSION,
            token,
            trace,
        })?;
        Ok(c)
    }

    fn send(&mut self, message: &ToolMessage) -> Result<(), String> {
        self.stream
            .write_all(encode(message).as_bytes())
            .map_err(|e| format!("cannot send to the game: {e}"))
    }

    /// Makes every read wait at most `timeout` for the game (`None`: for ever).
    fn wait_at_most(&mut self, timeout: Option<Duration>) -> Result<(), String> {
        self.stream
            .set_read_timeout(timeout)
            .map_err(|e| format!("{}: {e}", self.address))?;
        self.timeout = timeout;
        Ok(())
    }

    /// The next line from the game (without its newline); `None` when it closed.
    fn line(&mut self) -> Option<Result<Vec<u8>, String>> {
        let mut line = Vec::new();
        // At most one byte past the protocol's limit: a server that never ends its line is
        // refused instead of filling the memory.
        let limit = protocol::MAX_LINE as u64 + 2;
        match (&mut self.reader).take(limit).read_until(b'\n', &mut line) {
            Ok(0) => None,
            Ok(_) => {
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if line.len() > protocol::MAX_LINE {
                    return Some(Err(format!(
                        "{} sent a line longer than {} bytes (the protocol's limit); is it an \
                         Ensemble game?",
                        self.address,
                        protocol::MAX_LINE
                    )));
                }
                Some(Ok(line))
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                let waited = self.timeout.unwrap_or_default().as_secs_f64();
                Some(Err(format!(
                    "{} did not answer in {waited} s; is it an Ensemble game serving the \
                     inspection protocol? (--timeout SECONDS waits longer)",
                    self.address
                )))
            }
            Err(e) => Some(Err(format!("cannot read from the game: {e}"))),
        }
    }
}

pub fn attach(args: AttachArgs, io: &mut Io<'_>) -> i32 {
    let mut breakpoints = Vec::new();
    for text in &args.breaks {
        match Breakpoint::parse_state(text) {
            Ok(b) => breakpoints.push(b),
            Err(e) => {
                let _ = writeln!(io.err, "error: --break {e}");
                return EXIT_CANNOT_RUN;
            }
        }
    }
    let token = match tool_token(args.token, args.token_file.as_deref(), io) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut c = match Connection::open(&args.address, token, args.trace.is_some(), args.timeout) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let mut requests: Vec<ToolMessage> = breakpoints
        .into_iter()
        .map(|breakpoint| ToolMessage::Break { breakpoint })
        .collect();
    if args.resume {
        requests.push(ToolMessage::Resume);
    }
    for r in &requests {
        if let Err(e) = c.send(r) {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    }
    forward_stdin(&c.stream);
    // A wrong token or protocol version is answered with an error, no hello, and a close.
    let mut welcomed = false;
    while let Some(line) = c.line() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                let _ = writeln!(io.err, "error: {e}");
                return EXIT_CANNOT_RUN;
            }
        };
        if !welcomed
            && matches!(
                protocol::decode_from_game(&line),
                Ok(FromGame::Message(GameMessage::Hello(_)))
            )
        {
            welcomed = true;
            // Answered: from now on the game speaks when it has something to say (a paused
            // game may be silent for hours).
            if let Err(e) = c.wait_at_most(None) {
                let _ = writeln!(io.err, "error: {e}");
                return EXIT_CANNOT_RUN;
            }
        }
        if io.out.write_all(printable_bytes(&line).as_bytes()).is_err()
            || io.out.write_all(b"\n").is_err()
            || io.out.flush().is_err()
        {
            return EXIT_OK; // the reader went away (`| head`)
        }
    }
    if welcomed { EXIT_OK } else { EXIT_ERRORS }
}

/// Sends what is typed on standard input to the game, line by line (requests by hand:
/// `{"type":"snapshot"}`), and a `ping` whenever nothing was sent for [`PING_EVERY`], so the
/// game does not close an attached tool as idle; the end of input leaves the connection open.
fn forward_stdin(stream: &TcpStream) {
    let Ok(mut stream) = stream.try_clone() else {
        return;
    };
    let (lines, typed) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(line) = line else { break };
            if lines.send(line).is_err() {
                break;
            }
        }
    });
    std::thread::spawn(move || {
        let ping = encode(&ToolMessage::Ping);
        loop {
            let text = match typed.recv_timeout(PING_EVERY) {
                Ok(line) => format!("{line}\n"),
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => ping.clone(),
                // The end of input: only pings from now on.
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(PING_EVERY);
                    ping.clone()
                }
            };
            if stream.write_all(text.as_bytes()).is_err() {
                break;
            }
        }
    });
}

/// A line from the game as it may be printed on a terminal: control characters and escape
/// sequences escaped (`\u{1b}`), bytes that are not UTF-8 written `\xNN` — a hostile server
/// cannot move the cursor, retitle the window or write the clipboard.
fn printable_bytes(line: &[u8]) -> String {
    let mut out = String::with_capacity(line.len());
    for chunk in line.utf8_chunks() {
        out.push_str(&printable(chunk.valid()));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
    out
}

pub fn push(args: PushArgs, io: &mut Io<'_>) -> i32 {
    let program = match load(&args.path, io) {
        Ok(p) => p,
        Err(LoadFailure::CannotRun(message)) => {
            let _ = writeln!(io.err, "error: {message}");
            return EXIT_CANNOT_RUN;
        }
        Err(LoadFailure::Errors(message)) => {
            let _ = writeln!(io.err, "error: not pushed: {message}");
            return EXIT_ERRORS;
        }
    };
    let token = match tool_token(args.token, args.token_file.as_deref(), io) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut c = match Connection::open(&args.address, token, false, args.timeout) {
        Ok(c) => c,
        Err(e) => {
            let _ = writeln!(io.err, "error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let reload = ToolMessage::Reload {
        program: base64::encode(&program.to_bytes()),
    };
    if let Err(e) = c.send(&reload) {
        let _ = writeln!(io.err, "error: {e}");
        return EXIT_CANNOT_RUN;
    }
    while let Some(line) = c.line() {
        let line = match line {
            Ok(l) => l,
            Err(e) => {
                let _ = writeln!(io.err, "error: {e}");
                return EXIT_CANNOT_RUN;
            }
        };
        let answer = match protocol::decode_from_game(&line) {
            Ok(FromGame::Message(m)) => m,
            _ => continue,
        };
        let code = match &answer {
            GameMessage::Reload { .. } => EXIT_OK,
            GameMessage::ReloadRejected { .. } => EXIT_ERRORS,
            GameMessage::Error { message } => {
                let _ = writeln!(io.err, "error: the game refused: {}", printable(message));
                EXIT_ERRORS
            }
            _ => continue, // hello, a pause
        };
        let _ = writeln!(io.out, "{}", printable(encode(&answer).trim_end()));
        let _ = io.out.flush();
        return code;
    }
    let _ = writeln!(
        io.err,
        "error: the game closed the connection without answering"
    );
    EXIT_CANNOT_RUN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_comes_from_the_flag_the_file_or_the_environment_in_that_order() {
        let env = || Some("from-the-environment".to_string());
        assert_eq!(
            resolve_token(Some("flag".into()), Some("file\n"), env()).as_deref(),
            Some("flag")
        );
        assert_eq!(
            resolve_token(None, Some("from-the-file\r\nsecond line\n"), env()).as_deref(),
            Some("from-the-file")
        );
        assert_eq!(
            resolve_token(None, None, env()).as_deref(),
            Some("from-the-environment")
        );
        assert_eq!(resolve_token(None, None, Some(String::new())), None);
        assert_eq!(resolve_token(None, None, None), None);
    }

    #[test]
    fn attach_escapes_control_characters_and_bytes_that_are_not_utf8() {
        let line = b"{\"type\":\"error\",\"message\":\"\x1b]52;c;cGF5\x07\x1b[2J\xff\xfe ok\"}";
        let shown = printable_bytes(line);
        assert!(!shown.chars().any(char::is_control), "{shown}");
        assert_eq!(
            shown,
            r#"{"type":"error","message":"\u{1b}]52;c;cGF5\u{7}\u{1b}[2J\xff\xfe ok"}"#
        );
    }
}
