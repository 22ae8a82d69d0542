//! The messages of the inspection protocol (docs/formats/inspect.md), both ways, and their
//! reader. Every message is one line of JSON; a line is at most [`MAX_LINE`] bytes.
//!
//! [`decode`] reads one line from a tool and never panics: anything that is not a message it
//! knows is a [`ProtocolError`] that the game answers with an `error` message.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// The protocol's version: `hello` carries it both ways, and a tool that speaks another is
/// refused. Raised whenever a message changes incompatibly.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line a game reads, in bytes (the newline excluded). A `reload` carries the
/// program base64-encoded, so this bounds the programs a tool can push (about 12 MiB).
pub const MAX_LINE: usize = 16 << 20;

/// What a tool sends. The JSON form is `{"type": KIND, ...}` (docs/formats/inspect.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum ToolMessage {
    /// The first message of every connection: the protocol version the tool speaks, the token
    /// (required when the game listens on a non-loopback address), and whether it wants the
    /// trace streamed.
    Hello {
        /// The protocol version the tool speaks.
        version: u32,
        /// The token the game was started with, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// Stream the trace events (a `push` does not need them).
        #[serde(default = "yes")]
        trace: bool,
    },
    /// Replace the running program: the `.ensb` bytes, base64 (RFC 4648, with padding).
    Reload {
        /// The program's bytes, base64-encoded.
        program: String,
    },
    /// Stop ticking until `resume` or `step`.
    Pause,
    /// Go on ticking.
    Resume,
    /// Tick `ticks` times, then pause again.
    Step {
        /// How many ticks (at least 1).
        ticks: u64,
    },
    /// Pause when the breakpoint fires.
    Break {
        /// Where to stop.
        breakpoint: Breakpoint,
    },
    /// Remove a breakpoint, or every one when none is given.
    Clear {
        /// The breakpoint to remove; `None`: all of them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        breakpoint: Option<Breakpoint>,
    },
    /// Ask for a snapshot of every agent.
    Snapshot,
    /// Nothing to ask: keeps an attached tool from being closed as idle
    /// ([`super::InspectorOptions::idle_timeout`]). Not answered. Tools send one every
    /// [`PING_EVERY`] when they have sent nothing else.
    Ping,
    /// Set one of an agent's variables.
    Set {
        /// The agent, by name.
        agent: String,
        /// The variable's name.
        variable: String,
        /// Its new value (variables are text, as in the scene file).
        value: String,
    },
}

fn yes() -> bool {
    true
}

/// How often a tool that has nothing else to send says `ping`: well inside
/// [`super::InspectorOptions::idle_timeout`]'s default.
pub const PING_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// The fewest bytes a token has.
pub const MIN_TOKEN_LEN: usize = 16;

/// Why `token` is too weak to guard a game, if it is: shorter than [`MIN_TOKEN_LEN`] bytes, one
/// character repeated, or holding whitespace or control characters. The message says how to
/// make a good one.
pub fn weak_token(token: &str) -> Option<String> {
    let why = if token.len() < MIN_TOKEN_LEN {
        format!(
            "it is {} bytes long, fewer than {MIN_TOKEN_LEN}",
            token.len()
        )
    } else if token.chars().any(|c| c.is_whitespace() || c.is_control()) {
        "it holds whitespace or control characters".to_string()
    } else if token
        .chars()
        .next()
        .is_some_and(|first| token.chars().all(|c| c == first))
    {
        "it is one character repeated".to_string()
    } else {
        return None;
    };
    Some(format!(
        "the token is too weak: {why}; make one with `openssl rand -hex 16` (32 random hex \
         digits) and pass it in a file (--inspect-token-file, --token-file) or in ENSEMBLE_TOKEN"
    ))
}

/// Whether the token a tool sent is the game's, in time that does not depend on where they
/// differ (a compare that stops at the first difference tells a guesser, by its timing, how
/// many leading bytes are right). Only the length of the longer one shows. Hand-written rather
/// than a crate: a dozen lines, and `black_box` keeps the compiler from adding the early exit.
pub fn tokens_equal(sent: &str, expected: &str) -> bool {
    let (a, b) = (sent.as_bytes(), expected.as_bytes());
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..a.len().max(b.len()) {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= std::hint::black_box(x ^ y);
    }
    std::hint::black_box(diff) == 0
}

/// Where the game pauses. Each matches trace events; `agent` narrows any of them to one agent.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "on", rename_all = "kebab-case")]
pub enum Breakpoint {
    /// An agent enters or leaves `machine`/`state` (`enter` / `exit` events).
    State {
        /// The machine.
        machine: String,
        /// The state of that machine.
        state: String,
        /// On entering, leaving, or both.
        #[serde(default)]
        when: When,
        /// Only this agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    /// An interaction script rule fires: the trace names a rule by the action it starts (an
    /// `act` event), so this matches the action's name.
    Rule {
        /// The action the rule starts.
        action: String,
        /// Only this agent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
    /// A message with this name is delivered (`message` events).
    Message {
        /// The message's name.
        name: String,
        /// Only this agent (the receiver).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
    },
}

/// When a state breakpoint fires.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum When {
    /// On entering the state.
    Enter,
    /// On leaving it.
    Exit,
    /// Either.
    #[default]
    Both,
}

impl Breakpoint {
    /// A state breakpoint written `MACHINE/STATE` (the CLI's `--break`), firing on enter and exit.
    pub fn parse_state(text: &str) -> Result<Breakpoint, String> {
        match text.split_once('/') {
            Some((machine, state))
                if !machine.trim().is_empty()
                    && !state.trim().is_empty()
                    && !state.contains('/') =>
            {
                Ok(Breakpoint::State {
                    machine: machine.trim().to_string(),
                    state: state.trim().to_string(),
                    when: When::Both,
                    agent: None,
                })
            }
            _ => Err(format!(
                "`{text}` is not a breakpoint: write MACHINE/STATE, e.g. StandSellTicket/TalkStateMachine"
            )),
        }
    }
}

/// What a game sends besides the trace events (which go out exactly as `--trace json` writes
/// them, with an `event` field and no `type`). The JSON form is `{"type": KIND, ...}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum GameMessage {
    /// The answer to a tool's `hello`: what runs, and where it is.
    Hello(Hello),
    /// Every agent as it is now (the answer to `snapshot`).
    Snapshot {
        /// The tick the snapshot was taken after.
        tick: u64,
        /// Every agent, in the scene's order.
        agents: Vec<AgentSnapshot>,
    },
    /// The game stopped ticking: a breakpoint fired, a `step` ran out, or a tool said `pause`.
    Paused {
        /// The last tick run.
        tick: u64,
        /// Why: `breakpoint`, `step` or `pause`.
        reason: PauseReason,
        /// The breakpoint that fired.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        breakpoint: Option<Breakpoint>,
        /// The trace event that fired it, as the trace writes it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        event: Option<serde_json::Value>,
    },
    /// The game goes on ticking after a pause.
    Resumed {
        /// The last tick run.
        tick: u64,
    },
    /// The answer to `reload`: the new program runs.
    Reload {
        /// The tick it was reloaded after.
        tick: u64,
        /// Active states and script participants carried across by name.
        kept: u32,
        /// What could not be mapped, and what was done instead.
        fallbacks: Vec<String>,
    },
    /// The answer to `reload`: the program was refused, the old one goes on.
    ReloadRejected {
        /// Why.
        reason: String,
    },
    /// The answer to `break`, `clear` and `set`: done. `breakpoints` lists every one now set.
    Ok {
        /// The request it answers (`break`, `clear`, `set`).
        request: String,
        /// The breakpoints now set.
        breakpoints: Vec<Breakpoint>,
    },
    /// A request was malformed or could not be carried out; the game goes on.
    Error {
        /// What was wrong.
        message: String,
    },
}

/// Why the game paused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PauseReason {
    /// A breakpoint fired.
    Breakpoint,
    /// A `step` ran its ticks.
    Step,
    /// A tool said `pause`.
    Pause,
}

/// What a game says about itself in `hello`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// [`PROTOCOL_VERSION`].
    pub version: u32,
    /// The program's name (the project's).
    pub program: String,
    /// The program's checksum, 8 hex digits: equal means the very same build.
    pub hash: String,
    /// The running scene.
    pub scene: String,
    /// Its agents, by name.
    pub agents: Vec<String>,
    /// Ticks run so far.
    pub tick: u64,
    /// Whether the game is paused.
    pub paused: bool,
    /// The breakpoints set (by every tool).
    pub breakpoints: Vec<Breakpoint>,
}

/// One agent in a snapshot.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentSnapshot {
    /// Its name.
    pub name: String,
    /// Its active states, root machine first.
    pub states: Vec<ActiveState>,
    /// Its variables.
    pub variables: BTreeMap<String, String>,
    /// The facts of the interaction scripts it takes part in.
    pub scripts: Vec<ScriptFacts>,
    /// Its beliefs: each HMM space's distribution over its states.
    pub beliefs: Vec<SpaceBelief>,
    /// Its current plan (what is left), if it plans.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<Vec<String>>,
    /// Where it stands (metres), when the game reports positions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f64; 2]>,
}

/// One active state of an agent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveState {
    /// The machine.
    pub machine: String,
    /// Its active state.
    pub state: String,
}

/// A script instance an agent takes part in, and its tuple space.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScriptFacts {
    /// The script.
    pub script: String,
    /// The smart location running it.
    pub location: String,
    /// The role the agent plays.
    pub role: String,
    /// The facts, written as in a cell.
    pub facts: Vec<String>,
}

/// The belief over one HMM space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SpaceBelief {
    /// The space.
    pub space: String,
    /// Each state and its probability, in the space's order.
    pub states: Vec<(String, f64)>,
}

/// Why a line from a tool is not a message.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ProtocolError {
    /// Longer than [`MAX_LINE`].
    #[error("line longer than {max} bytes")]
    TooLong {
        /// The limit.
        max: usize,
    },
    /// Not UTF-8.
    #[error("not UTF-8 (byte {at})")]
    NotUtf8 {
        /// Where the first bad byte is.
        at: usize,
    },
    /// Not JSON, or not a message this protocol knows.
    #[error("not a message: {0}")]
    NotAMessage(String),
}

/// Reads one line from a tool (without its newline).
pub fn decode(line: &[u8]) -> Result<ToolMessage, ProtocolError> {
    if line.len() > MAX_LINE {
        return Err(ProtocolError::TooLong { max: MAX_LINE });
    }
    let text = std::str::from_utf8(line).map_err(|e| ProtocolError::NotUtf8 {
        at: e.valid_up_to(),
    })?;
    serde_json::from_str(text).map_err(|e| ProtocolError::NotAMessage(e.to_string()))
}

/// A message as one line of JSON, newline included.
pub fn encode<T: Serialize>(message: &T) -> String {
    // Every message is plain data (strings, numbers, maps with string keys): serialising it
    // cannot fail.
    let mut line = serde_json::to_string(message).unwrap_or_else(|e| {
        serde_json::json!({"type": "error", "message": format!("cannot encode: {e}")}).to_string()
    });
    line.push('\n');
    line
}

/// A line from a game, as a tool reads it: a message, or a trace event.
#[derive(Clone, Debug, PartialEq)]
pub enum FromGame {
    /// A message with a `type`.
    Message(GameMessage),
    /// A trace event, as `--trace json` writes it.
    Trace(serde_json::Value),
}

/// Reads one line from a game.
pub fn decode_from_game(line: &[u8]) -> Result<FromGame, ProtocolError> {
    let text = std::str::from_utf8(line).map_err(|e| ProtocolError::NotUtf8 {
        at: e.valid_up_to(),
    })?;
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| ProtocolError::NotAMessage(e.to_string()))?;
    if value.get("type").is_some() {
        serde_json::from_value(value)
            .map(FromGame::Message)
            .map_err(|e| ProtocolError::NotAMessage(e.to_string()))
    } else if value.get("event").is_some() {
        Ok(FromGame::Trace(value))
    } else {
        Err(ProtocolError::NotAMessage(
            "neither a message (`type`) nor a trace event (`event`)".into(),
        ))
    }
}

/// Base64 (RFC 4648, standard alphabet, with padding): how `reload` carries a program in a
/// line of JSON.
pub mod base64 {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    /// Encodes `bytes`.
    pub fn encode(bytes: &[u8]) -> String {
        let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
        for chunk in bytes.chunks(3) {
            let b = [
                chunk[0],
                chunk.get(1).copied().unwrap_or(0),
                chunk.get(2).copied().unwrap_or(0),
            ];
            let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * i)) as usize & 63] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }

    fn value(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }

    /// Decodes `text`; `Err` says where it is not base64.
    pub fn decode(text: &str) -> Result<Vec<u8>, String> {
        let bytes = text.as_bytes();
        if !bytes.len().is_multiple_of(4) {
            return Err(format!(
                "base64 length {} is not a multiple of 4",
                bytes.len()
            ));
        }
        let mut out = Vec::with_capacity(bytes.len() / 4 * 3);
        let quads = bytes.len() / 4;
        for (q, quad) in bytes.chunks(4).enumerate() {
            let pad = if q + 1 == quads {
                quad.iter().rev().take_while(|&&c| c == b'=').count()
            } else {
                0
            };
            if pad > 2 {
                return Err(format!("bad base64 padding at byte {}", q * 4));
            }
            let mut n = 0u32;
            for (i, &c) in quad.iter().enumerate() {
                let v = if i >= 4 - pad {
                    0
                } else {
                    value(c).ok_or_else(|| format!("not base64 at byte {}", q * 4 + i))?
                };
                n = (n << 6) | v;
            }
            let b = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            out.extend_from_slice(&b[..3 - pad]);
        }
        Ok(out)
    }
}
