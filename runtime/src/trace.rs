//! Trace events: what happened, tick by tick. The JSON form is a contract (docs/formats/trace.md):
//! one object per line with `tick`, `time`, `agent`, `event` and the fields of each kind.
//!
//! Events carry names, not ids, so they stay meaningful after a hot reload replaces the program
//! (the editor's timeline scrubs back across reloads). Names are shared strings: recording an
//! event costs a few reference-count increments, and nothing at all when tracing is off.

use serde::Serialize;
use std::sync::Arc;

/// One event of the trace: when, to whom, what.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceEvent {
    /// The tick it happened in (0: while the scene started).
    pub tick: u64,
    /// Seconds since the scene started.
    pub time: f64,
    /// The agent it happened to, by name; `None` for scene-wide events (a reload, a door).
    pub agent: Option<Arc<str>>,
    /// What happened.
    pub kind: EventKind,
}

/// What happened, with the fields its JSON line carries (docs/formats/trace.md). Machines,
/// states, agents and messages are named, as in the sources.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// The agent entered a state.
    Enter {
        /// The machine the state belongs to.
        machine: Arc<str>,
        /// The state entered.
        state: Arc<str>,
        /// Its depth in the agent's stack of machines (0: the root machine).
        depth: u32,
    },
    /// The agent left a state.
    Exit {
        /// The machine the state belongs to.
        machine: Arc<str>,
        /// The state left.
        state: Arc<str>,
        /// Its depth in the agent's stack of machines (0: the root machine).
        depth: u32,
    },
    /// A message was delivered (`up`: inside one agent's hierarchy; otherwise between agents).
    Message {
        /// The sending agent.
        from: Arc<str>,
        /// The receiving agent.
        to: Arc<str>,
        /// The message's name.
        name: Arc<str>,
        /// Whether a state handled it (an unhandled message is dropped).
        handled: bool,
        /// Sent up inside one agent's hierarchy rather than between agents.
        up: bool,
    },
    /// The agent said a line.
    Say {
        /// The line, variables filled in.
        text: String,
        /// The sentence state the line realises (`None` for plain text).
        sentence: Option<Arc<str>>,
        /// The stable id of the candidate line spoken.
        candidate: Option<u32>,
    },
    /// A root machine failed and nothing handled it.
    Fail {
        /// The root machine.
        machine: Arc<str>,
        /// The state it failed in.
        state: Arc<str>,
    },
    /// An error at run time, as state code or the runtime reported it.
    Error {
        /// What went wrong, in words.
        message: String,
    },
    /// A new program replaced the running one. `kept`: active states carried across by name;
    /// `fallbacks`: what could not be mapped and what was done instead.
    Reload {
        /// Why the program was reloaded, as the caller said.
        reason: String,
        /// Active states carried across by name.
        kept: u32,
        /// What could not be mapped, one line each.
        fallbacks: Vec<String>,
    },
    /// A new program was refused; the old one keeps running.
    ReloadRejected {
        /// Why it was refused.
        reason: String,
    },
    /// An interaction script started an action for the agent.
    Act {
        /// The action's name.
        action: Arc<str>,
        /// Its target, if it has one.
        target: Option<Arc<str>>,
    },
    /// The action finished successfully.
    Done {
        /// The action's name.
        action: Arc<str>,
        /// Its target, if it has one.
        target: Option<Arc<str>>,
    },
    /// The action failed (rendered as `fail`, with `action` and `target`).
    ActionFailed {
        /// The action's name.
        action: Arc<str>,
        /// Its target, if it has one.
        target: Option<Arc<str>>,
    },
    /// A fact was added to a script's tuple space (`fact` such as `reserved(seat1,tourist1)`).
    Add {
        /// The interaction script.
        script: Arc<str>,
        /// The fact, written out.
        fact: String,
    },
    /// A fact was removed from a script's tuple space.
    Del {
        /// The interaction script.
        script: Arc<str>,
        /// The fact, written out.
        fact: String,
    },
    /// The agent joined a script in a role.
    Join {
        /// The interaction script.
        script: Arc<str>,
        /// The role it plays.
        role: Arc<str>,
    },
    /// The agent left a script's role.
    Leave {
        /// The interaction script.
        script: Arc<str>,
        /// The role it played.
        role: Arc<str>,
    },
    /// A social agent heard the player (`speaker`); its own output, fed back, is not repeated.
    Input {
        /// Who spoke.
        speaker: Arc<str>,
        /// The emote that came with it.
        emote: Arc<str>,
        /// What was said.
        text: String,
        /// Why it was understood as it was (chat scenes record it; `None` elsewhere).
        understood: Option<Box<Understood>>,
    },
    /// A social agent's output: the arbitration winner's `action`(s, joined by `+`) and belief.
    Output {
        /// The emote it shows.
        emote: Arc<str>,
        /// What it says.
        text: String,
        /// The winning action(s), joined by `+`.
        action: String,
        /// The winner's belief, 0 to 1.
        belief: f64,
    },
    /// An agent planned its walk to a location on the navigation graph (PPA*). `cost` is the
    /// path's cost in metres (`None`: no path, the agent waits), `length` the walk in metres,
    /// `via` the named nodes it passes, `reroute` whether a change of the graph (a door)
    /// made it plan again.
    Path {
        /// The location walked to.
        to: Arc<str>,
        /// Nodes on the path.
        nodes: u32,
        /// The path's cost in metres; `None`: no path, the agent waits.
        cost: Option<f64>,
        /// The walk's length in metres.
        length: f64,
        /// Nodes the search expanded.
        expanded: u64,
        /// The named nodes it passes.
        via: Vec<Arc<str>>,
        /// A change of the graph (a door) made it plan again.
        reroute: bool,
    },
    /// A door of the navigation graph opened or closed; `tables`: distance tables the
    /// incremental update recomputed.
    Door {
        /// The door.
        door: Arc<str>,
        /// Open (`true`) or closed.
        open: bool,
        /// Distance tables the incremental update recomputed.
        tables: u32,
    },
    /// An agent planned for `problem`: the actions in order (`plan`).
    Plan {
        /// The planning problem.
        problem: Arc<str>,
        /// The planner that found the plan.
        planner: &'static str,
        /// The plan's actions, in order.
        actions: Vec<Arc<str>>,
        /// States (or partial plans) the planner visited.
        nodes: u64,
    },
    /// The plan changed: what is left to do, the current action first if it goes on (`replan`).
    Replan {
        /// The planning problem.
        problem: Arc<str>,
        /// What is left to do, the current action first if it goes on.
        actions: Vec<Arc<str>>,
        /// Why the agent planned again.
        reason: String,
        /// States (or partial plans) the planner visited.
        nodes: u64,
    },
    /// A world event made a fact of an agent's world true or false (rendered as `add` / `del`
    /// with `fact` and `world`, the event's name).
    WorldFact {
        /// The world event's name.
        world: Arc<str>,
        /// The fact.
        fact: Arc<str>,
        /// Made true (`true`) or false.
        added: bool,
    },
}

impl EventKind {
    /// The event's name in the JSON trace (`enter`, `say`, `fail`, …).
    pub fn name(&self) -> &'static str {
        match self {
            EventKind::Enter { .. } => "enter",
            EventKind::Exit { .. } => "exit",
            EventKind::Message { .. } => "message",
            EventKind::Say { .. } => "say",
            EventKind::Fail { .. } => "fail",
            EventKind::Error { .. } => "error",
            EventKind::Reload { .. } => "reload",
            EventKind::ReloadRejected { .. } => "reload-rejected",
            EventKind::Act { .. } => "act",
            EventKind::Done { .. } => "done",
            EventKind::ActionFailed { .. } => "fail",
            EventKind::Add { .. } => "add",
            EventKind::Del { .. } => "del",
            EventKind::Join { .. } => "join",
            EventKind::Leave { .. } => "leave",
            EventKind::Input { .. } => "input",
            EventKind::Output { .. } => "output",
            EventKind::Path { .. } => "path",
            EventKind::Door { .. } => "door",
            EventKind::Plan { .. } => "plan",
            EventKind::Replan { .. } => "replan",
            EventKind::WorldFact { added: true, .. } => "add",
            EventKind::WorldFact { added: false, .. } => "del",
        }
    }
}

/// Why a player's line was understood as it was: the words that counted, with the concepts
/// they name and the lexicon categories they are in, and the named evidence the line gave
/// (what chose the reply first, then the strongest). See `hpmm::agent::Understanding`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Understood {
    /// The words that counted, in order.
    pub words: Vec<UnderstoodWord>,
    /// The named evidence at or above 0.5: the ones that chose the reply first, then the
    /// strongest of the rest.
    pub evidence: Vec<EvidenceValue>,
    /// The evidence that chose the reply (what the states behind it expected), by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chose: Vec<String>,
}

/// One word of [`Understood`].
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct UnderstoodWord {
    /// The word as typed, lower case.
    pub word: String,
    /// The known word it was read as, when it was typed with a slip ("helo": "hello").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_as: Option<String>,
    /// The concepts it names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub concepts: Vec<String>,
    /// The lexicon categories it is in.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub categories: Vec<String>,
    /// What it names gives way to another thing of its kind the line names: refused ("not
    /// water") or said aside of the question. Absent when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub gives_way: bool,
}

/// One evidence entry of [`Understood`].
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct EvidenceValue {
    /// The estimator's name.
    pub name: String,
    /// e(y), rounded to three decimals.
    pub value: f64,
}

impl Understood {
    /// In a line of human-readable text: `chamber: room; player-asks-room 0.90 (chose the
    /// reply); player 1.00`.
    pub fn summary(&self) -> String {
        let words = self.words.iter().map(|w| {
            let what: Vec<&str> = w
                .concepts
                .iter()
                .chain(&w.categories)
                .map(String::as_str)
                .collect();
            let gives_way = if w.gives_way { " (gives way)" } else { "" };
            match &w.read_as {
                Some(read_as) => {
                    format!("{} (as {read_as}): {}{gives_way}", w.word, what.join(", "))
                }
                None => format!("{}: {}{gives_way}", w.word, what.join(", ")),
            }
        });
        let evidence = self
            .evidence
            .iter()
            .map(|e| match self.chose.contains(&e.name) {
                true => format!("{} {:.2} (chose the reply)", e.name, e.value),
                false => format!("{} {:.2}", e.name, e.value),
            });
        words.chain(evidence).collect::<Vec<_>>().join("; ")
    }
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
        sentence: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        candidate: Option<String>,
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
    Reload {
        reason: &'a str,
        kept: u32,
        fallbacks: &'a [String],
    },
    Rejected {
        reason: &'a str,
    },
    Action {
        action: &'a str,
        target: Option<&'a str>,
    },
    Fact {
        script: &'a str,
        fact: &'a str,
    },
    Role {
        script: &'a str,
        role: &'a str,
    },
    Input {
        speaker: &'a str,
        emote: &'a str,
        text: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        understood: Option<&'a Understood>,
    },
    Output {
        emote: &'a str,
        text: &'a str,
        action: &'a str,
        belief: f64,
    },
    Path {
        to: &'a str,
        found: bool,
        cost: Option<f64>,
        length: f64,
        nodes: u32,
        expanded: u64,
        via: Vec<&'a str>,
        reroute: bool,
    },
    Door {
        door: &'a str,
        open: bool,
        tables: u32,
    },
    Plan {
        problem: &'a str,
        planner: &'static str,
        actions: Vec<&'a str>,
        nodes: u64,
    },
    Replan {
        problem: &'a str,
        actions: Vec<&'a str>,
        reason: &'a str,
        nodes: u64,
    },
    WorldFact {
        fact: &'a str,
        world: &'a str,
    },
}

/// Metres in the trace: rounded to the micrometre, so traces compare across platforms.
fn metres(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

impl TraceEvent {
    fn fields(&self) -> Fields<'_> {
        match &self.kind {
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
                machine,
                state,
                depth: *depth,
            },
            EventKind::Message {
                from,
                to,
                name,
                handled,
                up,
            } => Fields::Message {
                from,
                to,
                name,
                handled: *handled,
                scope: if *up { "up" } else { "agent" },
            },
            EventKind::Say {
                text,
                sentence,
                candidate,
            } => Fields::Say {
                text,
                sentence: sentence.as_deref(),
                candidate: candidate.map(|c| format!("{c:08x}")),
            },
            EventKind::Fail { machine, state } => Fields::Fail {
                action: machine,
                target: None,
                machine,
                state,
            },
            EventKind::Error { message } => Fields::Error { message },
            EventKind::Reload {
                reason,
                kept,
                fallbacks,
            } => Fields::Reload {
                reason,
                kept: *kept,
                fallbacks,
            },
            EventKind::ReloadRejected { reason } => Fields::Rejected { reason },
            EventKind::Act { action, target }
            | EventKind::Done { action, target }
            | EventKind::ActionFailed { action, target } => Fields::Action {
                action,
                target: target.as_deref(),
            },
            EventKind::Add { script, fact } | EventKind::Del { script, fact } => {
                Fields::Fact { script, fact }
            }
            EventKind::Join { script, role } | EventKind::Leave { script, role } => {
                Fields::Role { script, role }
            }
            EventKind::Input {
                speaker,
                emote,
                text,
                understood,
            } => Fields::Input {
                speaker,
                emote,
                text,
                understood: understood.as_deref(),
            },
            EventKind::Output {
                emote,
                text,
                action,
                belief,
            } => Fields::Output {
                emote,
                text,
                action,
                belief: (belief * 1e6).round() / 1e6,
            },
            EventKind::Path {
                to,
                nodes,
                cost,
                length,
                expanded,
                via,
                reroute,
            } => Fields::Path {
                to,
                found: cost.is_some(),
                cost: cost.map(metres),
                length: metres(*length),
                nodes: *nodes,
                expanded: *expanded,
                via: via.iter().map(|v| &**v).collect(),
                reroute: *reroute,
            },
            EventKind::Door { door, open, tables } => Fields::Door {
                door,
                open: *open,
                tables: *tables,
            },
            EventKind::Plan {
                problem,
                planner,
                actions,
                nodes,
            } => Fields::Plan {
                problem,
                planner,
                actions: actions.iter().map(|a| &**a).collect(),
                nodes: *nodes,
            },
            EventKind::Replan {
                problem,
                actions,
                reason,
                nodes,
            } => Fields::Replan {
                problem,
                actions: actions.iter().map(|a| &**a).collect(),
                reason,
                nodes: *nodes,
            },
            EventKind::WorldFact { world, fact, .. } => Fields::WorldFact { fact, world },
        }
    }

    /// One JSON object, no trailing newline.
    pub fn to_json(&self) -> String {
        // Microseconds, where they are exact (under 2^53 µs, 285 years); a larger time read
        // from a file is written as it is, so that writing it again writes the same.
        let micros = self.time * 1e6;
        let line = Line {
            tick: self.tick,
            time: if micros.abs() < 9_007_199_254_740_992.0 {
                micros.round() / 1e6
            } else {
                self.time
            },
            agent: self.agent.as_deref(),
            event: self.kind.name(),
            fields: self.fields(),
        };
        serde_json::to_string(&line).expect("trace lines always serialise")
    }

    /// One human-readable line.
    pub fn to_text(&self) -> String {
        let who = self.agent.as_deref().unwrap_or("-");
        let indent = |depth: &u32| " ".repeat(*depth as usize * 2);
        let what = match &self.kind {
            EventKind::Enter {
                machine,
                state,
                depth,
            } => format!("{}enter {machine}/{state}", indent(depth)),
            EventKind::Exit {
                machine,
                state,
                depth,
            } => format!("{}exit  {machine}/{state}", indent(depth)),
            EventKind::Message {
                from,
                to,
                name,
                handled,
                up,
            } => format!(
                "message {name} {from} -> {to}{}{}",
                if *up { " (up)" } else { "" },
                if *handled { "" } else { " [unhandled]" }
            ),
            EventKind::Say {
                text,
                sentence,
                candidate,
            } => match (sentence, candidate) {
                (Some(s), Some(c)) => format!("says \"{text}\" ({s} #{c:08x})"),
                _ => format!("says \"{text}\""),
            },
            EventKind::Fail { machine, state } => format!("FAIL {machine} at {state}"),
            EventKind::Error { message } => format!("ERROR {message}"),
            EventKind::Reload {
                reason,
                kept,
                fallbacks,
            } => {
                let mut s = format!("RELOAD ({reason}): {kept} active states kept");
                for f in fallbacks {
                    s.push_str("; ");
                    s.push_str(f);
                }
                s
            }
            EventKind::ReloadRejected { reason } => format!("RELOAD REJECTED: {reason}"),
            EventKind::Act { action, target } => action_text("act", action, target),
            EventKind::Done { action, target } => action_text("done", action, target),
            EventKind::ActionFailed { action, target } => action_text("FAILED", action, target),
            EventKind::Add { script, fact } => format!("[{script}] + {fact}"),
            EventKind::Del { script, fact } => format!("[{script}] - {fact}"),
            EventKind::Join { script, role } => format!("joins {script} as {role}"),
            EventKind::Leave { script, role } => format!("leaves {script} ({role})"),
            EventKind::Input {
                speaker,
                emote,
                text,
                ..
            } if text.is_empty() => format!("{speaker} {emote}"),
            EventKind::Input {
                speaker,
                emote,
                text,
                understood: Some(u),
            } if !u.words.is_empty() || !u.evidence.is_empty() => {
                format!("{speaker} {emote}: {text}   [{}]", u.summary())
            }
            EventKind::Input {
                speaker,
                emote,
                text,
                ..
            } => format!("{speaker} {emote}: {text}"),
            EventKind::Output { emote, text, .. } if text.is_empty() => format!("{who} {emote}"),
            EventKind::Output { emote, text, .. } => format!("{who} {emote}: {text}"),
            EventKind::Path { to, cost: None, .. } => format!("no path to {to}: waiting"),
            EventKind::Path {
                to,
                length,
                via,
                reroute,
                ..
            } => {
                let via = if via.is_empty() {
                    String::new()
                } else {
                    format!(" via {}", via.join(", "))
                };
                let again = if *reroute { "re-routes" } else { "walks" };
                format!("{again} to {to}{via} ({length:.1} m)")
            }
            EventKind::Door { door, open, .. } => {
                format!("door {door} {}", if *open { "opens" } else { "closes" })
            }
            EventKind::Plan {
                problem, actions, ..
            } => format!("plans {problem}: {}", actions.join(", ")),
            EventKind::Replan {
                problem,
                actions,
                reason,
                ..
            } if actions.is_empty() => format!("REPLANS {problem} ({reason}): nothing left to do"),
            EventKind::Replan {
                problem,
                actions,
                reason,
                ..
            } => format!("REPLANS {problem} ({reason}): {}", actions.join(", ")),
            EventKind::WorldFact {
                world,
                fact,
                added: true,
            } => format!("[{world}] + {fact}"),
            EventKind::WorldFact {
                world,
                fact,
                added: false,
            } => format!("[{world}] - {fact}"),
        };
        let line = format!("{:>6} {:>8.3}s {:<10} {}", self.tick, self.time, who, what);
        // Text from outside (a value a tool `set`, a player's line) can hold a newline or an
        // escape sequence: escaped, so no value can forge a line of the trace or drive the
        // terminal it is printed on.
        printable(&line).into_owned()
    }
}

/// `act sit seat1`: an action line of the text trace.
fn action_text(verb: &str, action: &str, target: &Option<Arc<str>>) -> String {
    match target {
        Some(t) => format!("{verb} {action} {t}"),
        None => format!("{verb} {action}"),
    }
}

/// The planners a `plan` line can name (the event keeps the name as a `&'static str`).
const PLANNERS: [&str; 5] = ["graph", "astar", "gbfs", "minmin", "pop"];

/// Reads one JSON line as [`TraceEvent::to_json`] writes it: a recorded trace (`ensemble run
/// --trace json`) or the trace stream of the inspection protocol, read back.
struct Reader<'a>(&'a serde_json::Map<String, serde_json::Value>);

impl Reader<'_> {
    fn field(&self, key: &str) -> Result<&serde_json::Value, String> {
        self.0.get(key).ok_or_else(|| format!("no `{key}`"))
    }
    fn text(&self, key: &str) -> Result<String, String> {
        self.field(key)?
            .as_str()
            .map(str::to_string)
            .ok_or_else(|| format!("`{key}` is not a string"))
    }
    fn name(&self, key: &str) -> Result<Arc<str>, String> {
        self.text(key).map(Arc::from)
    }
    fn optional_name(&self, key: &str) -> Result<Option<Arc<str>>, String> {
        match self.0.get(key) {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(_) => self.name(key).map(Some),
        }
    }
    fn number(&self, key: &str) -> Result<f64, String> {
        self.field(key)?
            .as_f64()
            .ok_or_else(|| format!("`{key}` is not a number"))
    }
    fn count(&self, key: &str) -> Result<u64, String> {
        self.field(key)?
            .as_u64()
            .ok_or_else(|| format!("`{key}` is not a whole number"))
    }
    fn small(&self, key: &str) -> Result<u32, String> {
        u32::try_from(self.count(key)?).map_err(|_| format!("`{key}` is too large"))
    }
    fn flag(&self, key: &str) -> Result<bool, String> {
        self.field(key)?
            .as_bool()
            .ok_or_else(|| format!("`{key}` is not true or false"))
    }
    fn texts(&self, key: &str) -> Result<Vec<String>, String> {
        self.field(key)?
            .as_array()
            .ok_or_else(|| format!("`{key}` is not a list"))?
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("`{key}` holds something other than strings"))
            })
            .collect()
    }
    fn names(&self, key: &str) -> Result<Vec<Arc<str>>, String> {
        Ok(self.texts(key)?.into_iter().map(Arc::from).collect())
    }
}

/// Reads a whole JSON trace (one event per line, docs/formats/trace.md; blank lines skipped):
/// the events in order, or the first line that is not an event, or that goes back in time,
/// named by its number.
pub fn read_events(text: &str) -> Result<Vec<TraceEvent>, String> {
    let mut events: Vec<TraceEvent> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let e = TraceEvent::from_json(line).map_err(|why| format!("line {}: {why}", n + 1))?;
        if let Some(last) = events.last().map(|e| e.tick)
            && e.tick < last
        {
            return Err(format!(
                "line {}: tick {} comes after tick {last} (a trace is in tick order)",
                n + 1,
                e.tick
            ));
        }
        events.push(e);
    }
    Ok(events)
}

impl TraceEvent {
    /// Reads one line of a JSON trace (docs/formats/trace.md) back: the inverse of
    /// [`TraceEvent::to_json`]. The error says what is wrong with the line, in words.
    pub fn from_json(line: &str) -> Result<TraceEvent, String> {
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let object = value.as_object().ok_or("not a JSON object")?;
        let r = Reader(object);
        let event = r.text("event")?;
        let state = |r: &Reader| -> Result<(Arc<str>, Arc<str>, u32), String> {
            // A machine stack is at most MAX_DEPTH deep; a deeper one is no trace Ensemble
            // wrote (and its text line would indent by gigabytes).
            let depth = r.small("depth")?;
            if depth as usize > crate::program::MAX_DEPTH {
                return Err(format!(
                    "`depth` {depth} is deeper than a machine stack can be ({})",
                    crate::program::MAX_DEPTH
                ));
            }
            Ok((r.name("machine")?, r.name("state")?, depth))
        };
        let kind = match event.as_str() {
            "enter" => {
                let (machine, state, depth) = state(&r)?;
                EventKind::Enter {
                    machine,
                    state,
                    depth,
                }
            }
            "exit" => {
                let (machine, state, depth) = state(&r)?;
                EventKind::Exit {
                    machine,
                    state,
                    depth,
                }
            }
            "message" => EventKind::Message {
                from: r.name("from")?,
                to: r.name("to")?,
                name: r.name("name")?,
                handled: r.flag("handled")?,
                up: r.text("scope")? == "up",
            },
            "say" => EventKind::Say {
                text: r.text("text")?,
                sentence: r.optional_name("sentence")?,
                candidate: match r.optional_name("candidate")? {
                    None => None,
                    Some(hex) => Some(
                        u32::from_str_radix(&hex, 16)
                            .map_err(|_| format!("`candidate` `{hex}` is not hexadecimal"))?,
                    ),
                },
            },
            // A machine's failure names its machine; an action's does not.
            "fail" if object.contains_key("machine") => EventKind::Fail {
                machine: r.name("machine")?,
                state: r.name("state")?,
            },
            "fail" => EventKind::ActionFailed {
                action: r.name("action")?,
                target: r.optional_name("target")?,
            },
            "error" => EventKind::Error {
                message: r.text("message")?,
            },
            "reload" => EventKind::Reload {
                reason: r.text("reason")?,
                kept: r.small("kept")?,
                fallbacks: r.texts("fallbacks")?,
            },
            "reload-rejected" => EventKind::ReloadRejected {
                reason: r.text("reason")?,
            },
            "act" => EventKind::Act {
                action: r.name("action")?,
                target: r.optional_name("target")?,
            },
            "done" => EventKind::Done {
                action: r.name("action")?,
                target: r.optional_name("target")?,
            },
            // A script's fact names its script; a world event's fact names its world.
            "add" | "del" if object.contains_key("world") => EventKind::WorldFact {
                world: r.name("world")?,
                fact: r.name("fact")?,
                added: event == "add",
            },
            "add" => EventKind::Add {
                script: r.name("script")?,
                fact: r.text("fact")?,
            },
            "del" => EventKind::Del {
                script: r.name("script")?,
                fact: r.text("fact")?,
            },
            "join" => EventKind::Join {
                script: r.name("script")?,
                role: r.name("role")?,
            },
            "leave" => EventKind::Leave {
                script: r.name("script")?,
                role: r.name("role")?,
            },
            "input" => EventKind::Input {
                speaker: r.name("speaker")?,
                emote: r.name("emote")?,
                text: r.text("text")?,
                understood: match r.0.get("understood") {
                    None | Some(serde_json::Value::Null) => None,
                    Some(v) => Some(Box::new(
                        serde_json::from_value(v.clone())
                            .map_err(|e| format!("field `understood`: {e}"))?,
                    )),
                },
            },
            "output" => EventKind::Output {
                emote: r.name("emote")?,
                text: r.text("text")?,
                action: r.text("action")?,
                belief: r.number("belief")?,
            },
            "path" => EventKind::Path {
                to: r.name("to")?,
                nodes: r.small("nodes")?,
                cost: match r.field("cost")? {
                    serde_json::Value::Null => None,
                    _ => Some(r.number("cost")?),
                },
                length: r.number("length")?,
                expanded: r.count("expanded")?,
                via: r.names("via")?,
                reroute: r.flag("reroute")?,
            },
            "door" => EventKind::Door {
                door: r.name("door")?,
                open: r.flag("open")?,
                tables: r.small("tables")?,
            },
            "plan" => {
                let planner = r.text("planner")?;
                EventKind::Plan {
                    problem: r.name("problem")?,
                    planner: PLANNERS
                        .into_iter()
                        .find(|p| *p == planner)
                        .ok_or_else(|| format!("unknown planner `{planner}`"))?,
                    actions: r.names("actions")?,
                    nodes: r.count("nodes")?,
                }
            }
            "replan" => EventKind::Replan {
                problem: r.name("problem")?,
                actions: r.names("actions")?,
                reason: r.text("reason")?,
                nodes: r.count("nodes")?,
            },
            other => return Err(format!("unknown event `{other}`")),
        };
        Ok(TraceEvent {
            tick: r.count("tick")?,
            time: r.number("time")?,
            agent: r.optional_name("agent")?,
            kind,
        })
    }
}

/// `text` with every control character (newlines, escapes, C1 controls) and every invisible
/// formatting character (bidirectional overrides) written as Rust writes it in a string
/// (`\n`, `\u{1b}`, `\u{202e}`): safe to print as one line of a human-readable output. Text
/// without any is returned as it is.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    fn escaped(c: char) -> bool {
        !(c.is_ascii_graphic() || c == ' ' || matches!(c, '"' | '\'' | '\\'))
            && c.escape_debug().nth(1).is_some()
    }
    if !text.chars().any(escaped) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod reading {
    use super::*;

    /// Every golden trace reads back to the same lines, byte for byte.
    #[test]
    fn every_golden_trace_reads_back_to_itself() {
        let golden = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden");
        let mut lines = 0;
        for entry in std::fs::read_dir(golden).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                for (n, line) in std::fs::read_to_string(&path).unwrap().lines().enumerate() {
                    let event = TraceEvent::from_json(line)
                        .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), n + 1));
                    assert_eq!(event.to_json(), line, "{}:{}", path.display(), n + 1);
                    lines += 1;
                }
            }
        }
        assert!(lines > 1000, "only {lines} golden lines");
    }

    #[test]
    fn a_value_with_a_newline_or_an_escape_cannot_forge_a_text_trace_line() {
        // As a value a tool `set` comes back in a line the agent says.
        let forged = "Boston\n     9    0.300s seller     enter SellTicket/Refund\u{1b}[2J\u{202e}";
        let e = TraceEvent {
            tick: 3,
            time: 0.1,
            agent: Some(Arc::from("seller")),
            kind: EventKind::Say {
                text: forged.to_string(),
                sentence: None,
                candidate: None,
            },
        };
        let text = e.to_text();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(!text.chars().any(char::is_control), "{text}");
        assert!(
            text.ends_with(
                r#"says "Boston\n     9    0.300s seller     enter SellTicket/Refund\u{1b}[2J\u{202e}""#
            ),
            "{text}"
        );
        // Ordinary text, accents and quotes included, is left alone.
        assert_eq!(
            printable("Très bien, \"Boston\" n'est pas loin."),
            "Très bien, \"Boston\" n'est pas loin."
        );
    }

    #[test]
    fn a_bad_line_says_what_is_wrong() {
        let no_state =
            r#"{"tick":1,"time":0.1,"agent":"a","event":"enter","machine":"M","depth":0}"#;
        assert_eq!(TraceEvent::from_json(no_state).unwrap_err(), "no `state`");
        let unknown = r#"{"tick":1,"time":0.1,"agent":"a","event":"dance"}"#;
        assert_eq!(
            TraceEvent::from_json(unknown).unwrap_err(),
            "unknown event `dance`"
        );
        assert!(TraceEvent::from_json("{\"tick\":").is_err());
        assert!(TraceEvent::from_json("[1]").is_err());
    }

    /// Found by the `trace` fuzz target: a depth of 2^32 - 1 read, then indented its text line
    /// by 8 GB; a time near f64's range was written as `null`; a huge time written twice
    /// changed in its last digits (regressions/trace/crash-*).
    #[test]
    fn a_depth_no_stack_reaches_is_refused_and_huge_times_write_back() {
        let deep = r#"{"tick":1,"time":0.1,"agent":"a","event":"enter","machine":"M","state":"S","depth":4294967295}"#;
        assert!(TraceEvent::from_json(deep).unwrap_err().contains("deeper"));
        for time in ["1e308", "3.0303e88", "2.2e48"] {
            let late = format!(
                r#"{{"tick":1,"time":{time},"agent":"a","event":"enter","machine":"M","state":"S","depth":1}}"#
            );
            let e = TraceEvent::from_json(&late).unwrap();
            assert_eq!(
                TraceEvent::from_json(&e.to_json()).unwrap().to_json(),
                e.to_json()
            );
        }
    }
}
