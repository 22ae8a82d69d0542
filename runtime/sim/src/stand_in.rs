//! Stand-ins for the game's own states, so a project whose game adds states runs in the
//! simulated world without the game (docs/formats/statelib.md, "Stand-ins").
//!
//! Where the simulated world's library is built ([`library_for`]), every library state the
//! program needs that the standard library does not provide gets a stand-in: code that accepts
//! the state's declared parameters and ignores them, waits a time (the designer's `stand_in:`
//! in the statelib, a host's [`Choice`], else [`DEFAULT_SECONDS`]) and then raises one of the
//! state's declared events. What is stood in is said once, as a [`StandIn`] per state.
//!
//! A game registering its own states never gets stand-ins: `Scene::new` still refuses a
//! program needing a state the game did not register. Stand-ins are the simulated world's
//! choice.
//!
//! **Determinism:** a stand-in counts scene time (the `dt` of each tick), never wall time, and
//! draws no random numbers, so traces stay reproducible.

use crate::SimWorld;
use ensemble_runtime::hsm::{StateCode, StateCx, StateLibrary, StateSpec};
use ensemble_runtime::program::{LibraryId, Program, Terminal};
use ensemble_runtime::snapshot::{decode, encode};
use std::fmt;

/// How long a stand-in lasts when nobody says, in seconds of scene time.
pub const DEFAULT_SECONDS: f64 = 1.0;

/// A host's choice for one game state (`ensemble run --stand-in Hammer=2s,Done`), over what
/// the statelib says; a field left `None` keeps the statelib's (or the default).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Choice {
    /// The library state, as machines name it.
    pub state: String,
    /// Seconds of scene time.
    pub seconds: Option<f64>,
    /// The event it raises then: one the state declares.
    pub raises: Option<String>,
}

impl Choice {
    /// Reads `STATE=PART[,PART]`, each part a number of seconds (`2`, `2s`, `0.5s`) or an event
    /// (`Done`): `Hammer=2s,Done`, `Attack=Missed`, `Hammer=0.5`.
    pub fn parse(text: &str) -> Result<Choice, String> {
        let (state, parts) = text.split_once('=').ok_or_else(|| {
            format!("`{text}` is not STATE=SECONDS,EVENT (for instance `Hammer=2s,Done`)")
        })?;
        let state = state.trim();
        if state.is_empty() {
            return Err(format!("`{text}` names no state before `=`"));
        }
        let mut choice = Choice {
            state: state.to_string(),
            ..Choice::default()
        };
        for part in parts.split(',').map(str::trim) {
            let number = part.strip_suffix('s').unwrap_or(part);
            // Events are names: a letter or `_` first (`inf` and `nan` are names, not times).
            let is_name = part.starts_with(|c: char| c.is_alphabetic() || c == '_');
            match number.parse::<f64>() {
                Ok(x) if !is_name && choice.seconds.is_none() => {
                    if !(x.is_finite() && x >= 0.0) {
                        return Err(format!("`{part}` is not a number of seconds from 0"));
                    }
                    choice.seconds = Some(x);
                }
                _ if is_name && choice.raises.is_none() => {
                    choice.raises = Some(part.to_string());
                }
                _ => {
                    return Err(format!(
                        "`{text}`: `{part}` is neither a time nor an event, or says one twice"
                    ));
                }
            }
        }
        Ok(choice)
    }
}

/// Which event a stand-in raises when its time is up.
#[derive(Clone, Debug, PartialEq)]
pub enum Raises {
    /// This one (the designer's or a host's choice, or the state's only declared event).
    Event(String),
    /// The first of these declared events that the running state has a transition on.
    FirstOf(Vec<String>),
    /// The event of the running state's first transition (the state declares no events).
    FirstTransition,
}

/// A game state stood in, as said once when the scene starts: "`Hammer` is the game's;
/// standing it in: 2 s, then raises `Done`".
#[derive(Clone, Debug, PartialEq)]
pub struct StandIn {
    /// The library state.
    pub state: String,
    /// Seconds of scene time from entering it to raising.
    pub seconds: f64,
    /// What it raises then.
    pub raises: Raises,
    /// A terminal state ends its machine as it is entered, whatever stands in for it.
    pub terminal: Terminal,
}

impl fmt::Display for StandIn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is the game's; standing it in: ", self.state)?;
        match self.terminal {
            Terminal::End => return write!(f, "it ends its machine, as declared"),
            Terminal::Failure => return write!(f, "it fails its machine, as declared"),
            Terminal::No => {}
        }
        write!(f, "{} s, then raises ", self.seconds)?;
        match &self.raises {
            Raises::Event(e) => write!(f, "`{e}`"),
            Raises::FirstOf(events) => write!(
                f,
                "the first of {} the state has a transition on",
                quoted(events)
            ),
            Raises::FirstTransition => write!(
                f,
                "its first transition's event (it declares no events it raises)"
            ),
        }
    }
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The simulated world's library for `program`: the standard states, and a stand-in for every
/// library state the program needs that they do not provide, with what is stood in (in the
/// program's library order). `Err` says why a choice cannot apply.
pub fn library_for(
    program: &Program,
    choices: &[Choice],
) -> Result<(StateLibrary<SimWorld>, Vec<StandIn>), String> {
    let mut library = crate::library();
    let stood_in = complete(&mut library, program, choices, &[])?;
    Ok((library, stood_in))
}

/// Registers a stand-in in `library` for every library state `program` needs that `library`
/// lacks, and again for those named in `already` (stood in for an earlier program, whose
/// declaration may have changed since); returns them. Every choice must name one of them.
pub(crate) fn complete(
    library: &mut StateLibrary<SimWorld>,
    program: &Program,
    choices: &[Choice],
    already: &[StandIn],
) -> Result<Vec<StandIn>, String> {
    let missing: Vec<LibraryId> = (0..program.library.len())
        .map(|i| LibraryId(i as u32))
        .filter(|id| {
            let name = program.name(program.library[id.index()].name);
            !library.contains(name) || already.iter().any(|s| s.state == name)
        })
        .collect();
    for c in choices {
        let named = |id: &LibraryId| program.name(program.library[id.index()].name) == c.state;
        if !missing.iter().any(named) {
            let standard = ensemble_runtime::stdlib::declaration(&c.state).is_some();
            let why = if standard {
                "is a standard state: the simulated world runs it".to_string()
            } else {
                let names: Vec<String> = missing
                    .iter()
                    .map(|id| program.name(program.library[id.index()].name).to_string())
                    .collect();
                match names.len() {
                    0 => "is not a game state of the program, which uses none".to_string(),
                    _ => format!(
                        "is not a game state of the program (it uses {})",
                        quoted(&names)
                    ),
                }
            };
            return Err(format!("--stand-in: `{}` {why}", c.state));
        }
    }
    let mut stood_in = Vec::new();
    for id in missing {
        let name = program.name(program.library[id.index()].name).to_string();
        let choice = choices.iter().rev().find(|c| c.state == name);
        let stand_in = resolve(program, id, &name, choice)?;
        let (seconds, raises) = (stand_in.seconds, stand_in.raises.clone());
        library.register(&name, StateSpec::compiled(program, id), move || {
            Box::new(StandInCode {
                seconds,
                raises: raises.clone(),
                left: seconds,
                raised: false,
            })
        });
        stood_in.push(stand_in);
    }
    Ok(stood_in)
}

/// The stand-in of game state `id`: a host's choice over the designer's over the default.
fn resolve(
    program: &Program,
    id: LibraryId,
    name: &str,
    choice: Option<&Choice>,
) -> Result<StandIn, String> {
    let game = program.game_states.get(id);
    let designed = game.and_then(|g| g.stand_in);
    let declared: Option<Vec<String>> = game.and_then(|g| {
        g.raises
            .as_ref()
            .map(|r| r.iter().map(|e| program.name(*e).to_string()).collect())
    });
    let seconds = choice
        .and_then(|c| c.seconds)
        .or(designed.and_then(|d| d.seconds))
        .unwrap_or(DEFAULT_SECONDS);
    let chosen = match choice.and_then(|c| c.raises.as_deref()) {
        Some(event) => {
            // The same rule as the statelib's field: one of the declared events, or, when
            // none are declared, one the states using it have a transition on.
            let allowed = declared.clone().unwrap_or_else(|| transitions(program, id));
            if !allowed.iter().any(|e| e == event) {
                return Err(format!(
                    "--stand-in: `{name}` does not raise `{event}` (it raises {})",
                    if allowed.is_empty() {
                        "nothing".to_string()
                    } else {
                        quoted(&allowed)
                    }
                ));
            }
            Some(event.to_string())
        }
        None => designed
            .and_then(|d| d.raises)
            .map(|e| program.name(e).to_string()),
    };
    let raises = match (chosen, declared) {
        (Some(e), _) => Raises::Event(e),
        (None, Some(mut events)) if events.len() == 1 => Raises::Event(events.remove(0)),
        (None, Some(events)) if !events.is_empty() => Raises::FirstOf(events),
        (None, _) => Raises::FirstTransition,
    };
    Ok(StandIn {
        state: name.to_string(),
        seconds,
        raises,
        terminal: program.library[id.index()].terminal,
    })
}

/// The events of the transitions of every state running library state `id`, in program order,
/// each once.
fn transitions(program: &Program, id: LibraryId) -> Vec<String> {
    let mut events: Vec<String> = Vec::new();
    for (i, s) in program.states.iter().enumerate() {
        if s.code != id {
            continue;
        }
        let state = ensemble_runtime::program::StateId(i as u32);
        for t in program.transitions_of(state) {
            let e = program.name(t.event);
            if !events.iter().any(|x| x == e) {
                events.push(e.to_string());
            }
        }
    }
    events
}

/// Time left below this counts as none: ten ticks of 0.1 s leave 1e-16 of a second, which
/// must not cost an eleventh tick.
const EPSILON: f64 = 1e-9;

/// One visit of a stood-in state: waits its time in scene time, then raises once.
struct StandInCode {
    seconds: f64,
    raises: Raises,
    /// Seconds of scene time left.
    left: f64,
    raised: bool,
}

impl StateCode<SimWorld> for StandInCode {
    fn update(&mut self, cx: &mut StateCx<'_, SimWorld>, dt: f64) {
        if self.raised {
            return;
        }
        self.left -= dt;
        if self.left > EPSILON {
            return;
        }
        self.raised = true;
        let event = match &self.raises {
            Raises::Event(e) => Some(e.clone()),
            Raises::FirstOf(events) => events.iter().find(|e| cx.has_transition(e)).cloned(),
            Raises::FirstTransition => {
                let program = cx.program();
                program
                    .transitions_of(cx.state())
                    .first()
                    .map(|t| program.name(t.event).to_string())
            }
        };
        match event {
            Some(e) => cx.raise(&e),
            None => {
                let state = cx.state_name().to_string();
                cx.error(format!(
                    "{state}: the stand-in's time is up, but the state has no transition on an event it could raise"
                ));
            }
        }
    }

    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&(self.left, self.raised))
    }

    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        (self.left, self.raised) = decode(data)?;
        // The time asked for may have changed since the save (a rebuilt program): what was
        // left is kept, but never more than the whole.
        self.left = self.left.min(self.seconds);
        Ok(())
    }
}
