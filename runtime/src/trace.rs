//! Trace events: what happened, tick by tick. The JSON form is a contract (docs/formats/trace.md):
//! one object per line with `tick`, `time`, `agent`, `event` and the fields of each kind.

use crate::hsm::AgentId;
use crate::program::{MachineId, NameId, Program, StateId};
use serde::Serialize;

#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    pub tick: u64,
    /// Seconds since the scene started.
    pub time: f64,
    pub agent: Option<AgentId>,
    pub kind: EventKind,
}

#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    Enter {
        machine: MachineId,
        state: StateId,
        depth: u32,
    },
    Exit {
        machine: MachineId,
        state: StateId,
        depth: u32,
    },
    /// A message was delivered (`up`: inside one agent's hierarchy; otherwise between agents).
    Message {
        from: AgentId,
        to: AgentId,
        name: NameId,
        handled: bool,
        up: bool,
    },
    Say {
        text: String,
    },
    /// A root machine failed and nothing handled it.
    Fail {
        machine: MachineId,
        state: StateId,
    },
    Error {
        message: String,
    },
}

impl EventKind {
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Enter { .. } => "enter",
            EventKind::Exit { .. } => "exit",
            EventKind::Message { .. } => "message",
            EventKind::Say { .. } => "say",
            EventKind::Fail { .. } => "fail",
            EventKind::Error { .. } => "error",
        }
    }
}

/// Everything needed to turn ids in events into names.
pub struct NameView<'a> {
    pub(crate) program: &'a Program,
    pub(crate) symbols: &'a crate::hsm::Symbols,
    pub(crate) agent_names: &'a [NameId],
}

#[derive(Serialize)]
struct Line<'a> {
    tick: u64,
    time: f64,
    agent: Option<&'a str>,
    event: &'static str,
    #[serde(flatten)]
    fields: Fields<'a>,
}

#[derive(Serialize)]
#[serde(untagged)]
enum Fields<'a> {
    State {
        machine: &'a str,
        state: &'a str,
        depth: u32,
    },
    Message {
        from: &'a str,
        to: &'a str,
        name: &'a str,
        handled: bool,
        scope: &'static str,
    },
    Say {
        text: &'a str,
    },
    Fail {
        action: &'a str,
        target: Option<&'a str>,
        machine: &'a str,
        state: &'a str,
    },
    Error {
        message: &'a str,
    },
}

impl NameView<'_> {
    pub fn name(&self, id: NameId) -> &str {
        self.symbols.name(self.program, id)
    }

    pub fn agent(&self, id: AgentId) -> &str {
        self.agent_names
            .get(id.index())
            .map(|n| self.name(*n))
            .unwrap_or("?")
    }

    pub fn machine(&self, id: MachineId) -> &str {
        self.program.name(self.program.machine(id).name)
    }

    pub fn state(&self, id: StateId) -> &str {
        self.program.name(self.program.state(id).name)
    }

    fn fields<'s>(&'s self, kind: &'s EventKind) -> Fields<'s> {
        match kind {
            EventKind::Enter {
                machine,
                state,
                depth,
            }
            | EventKind::Exit {
                machine,
                state,
                depth,
            } => Fields::State {
                machine: self.machine(*machine),
                state: self.state(*state),
                depth: *depth,
            },
            EventKind::Message {
                from,
                to,
                name,
                handled,
                up,
            } => Fields::Message {
                from: self.agent(*from),
                to: self.agent(*to),
                name: self.name(*name),
                handled: *handled,
                scope: if *up { "up" } else { "agent" },
            },
            EventKind::Say { text } => Fields::Say { text },
            EventKind::Fail { machine, state } => Fields::Fail {
                action: self.machine(*machine),
                target: None,
                machine: self.machine(*machine),
                state: self.state(*state),
            },
            EventKind::Error { message } => Fields::Error { message },
        }
    }

    /// One JSON object, no trailing newline.
    pub fn to_json(&self, e: &TraceEvent) -> String {
        let line = Line {
            tick: e.tick,
            time: (e.time * 1e6).round() / 1e6,
            agent: e.agent.map(|a| self.agent(a)),
            event: e.kind.name(),
            fields: self.fields(&e.kind),
        };
        serde_json::to_string(&line).expect("trace lines always serialise")
    }

    /// One human-readable line.
    pub fn to_text(&self, e: &TraceEvent) -> String {
        let who = e.agent.map(|a| self.agent(a)).unwrap_or("-");
        let what = match &e.kind {
            EventKind::Enter {
                machine,
                state,
                depth,
            } => {
                format!(
                    "{:indent$}enter {}/{}",
                    "",
                    self.machine(*machine),
                    self.state(*state),
                    indent = *depth as usize * 2
                )
            }
            EventKind::Exit {
                machine,
                state,
                depth,
            } => {
                format!(
                    "{:indent$}exit  {}/{}",
                    "",
                    self.machine(*machine),
                    self.state(*state),
                    indent = *depth as usize * 2
                )
            }
            EventKind::Message {
                from,
                to,
                name,
                handled,
                up,
            } => format!(
                "message {} {} -> {}{}{}",
                self.name(*name),
                self.agent(*from),
                self.agent(*to),
                if *up { " (up)" } else { "" },
                if *handled { "" } else { " [unhandled]" }
            ),
            EventKind::Say { text } => format!("says \"{text}\""),
            EventKind::Fail { machine, state } => {
                format!("FAIL {} at {}", self.machine(*machine), self.state(*state))
            }
            EventKind::Error { message } => format!("ERROR {message}"),
        };
        format!("{:>6} {:>8.3}s {:<10} {}", e.tick, e.time, who, what)
    }
}
