//! What state code sees while it runs: the game, its agent, its modifier, and ways to raise
//! events, send messages and say lines. Effects are collected in an outbox and applied by the
//! interpreter after the call returns, so code never re-enters the interpreter.

use super::library::{EventKey, ParamKey};
use super::scene::{AgentId, Symbols};
use crate::program::{
    LocationDef, MachineId, Modifier, NameId, Param, ParamValue, Program, StateId,
};
use crate::rng::Rng;

/// A message: a name and the agent that sent it.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    /// The message's name, interned in the scene's symbols (see [`StateCx::message_name`]).
    pub name: NameId,
    /// The agent that sent it (for a message from the game, the sender the game named in
    /// [`Scene::send`](crate::hsm::Scene::send)).
    pub from: AgentId,
}

/// A line said: plain text, or a candidate of a sentence state.
#[derive(Debug)]
pub(crate) struct Said {
    pub text: String,
    pub sentence: Option<NameId>,
    pub candidate: Option<u32>,
}

/// A change to the child machine a state code asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ChildRequest {
    Start(MachineId),
    Stop,
}

/// Effects of one call into state code.
#[derive(Default, Debug)]
pub(crate) struct Outbox {
    pub raised: Vec<NameId>,
    pub child: Option<ChildRequest>,
    pub up: Vec<NameId>,
    pub to_agents: Vec<(AgentId, NameId)>,
    pub said: Vec<Said>,
    pub errors: Vec<String>,
    pub events: Vec<crate::trace::EventKind>,
    /// Facts added (`true`) or deleted by the state, with the machine that did it.
    pub facts: Vec<(bool, MachineId, String)>,
}

impl Outbox {
    pub fn is_empty(&self) -> bool {
        self.raised.is_empty()
            && self.up.is_empty()
            && self.to_agents.is_empty()
            && self.said.is_empty()
            && self.errors.is_empty()
            && self.events.is_empty()
            && self.child.is_none()
            && self.facts.is_empty()
    }
}

/// What one call into state code sees: the game world, the agent, its random stream and the
/// scene's clock, plus the calls that raise events, send messages and say lines. Effects are
/// applied by the interpreter after the call returns.
pub struct StateCx<'a, G> {
    /// The game world: whatever the game gave the scene.
    pub game: &'a mut G,
    /// The agent running this state.
    pub agent: AgentId,
    /// This agent's random stream (seeded; same seed, same run).
    pub rng: &'a mut Rng,
    /// Seconds since the scene started.
    pub now: f64,
    pub(crate) program: &'a Program,
    pub(crate) agent_names: &'a [NameId],
    pub(crate) symbols: &'a mut Symbols,
    pub(crate) state: StateId,
    /// The state running below this one, if any (its machine is looked up only when asked:
    /// this is on every call's path).
    pub(crate) child: Option<StateId>,
    pub(crate) out: &'a mut Outbox,
    pub(crate) locale: crate::locale::Locale,
}

impl<G> StateCx<'_, G> {
    /// The program the scene runs.
    pub fn program(&self) -> &Program {
        self.program
    }

    /// The locale the scene speaks in ([`Scene::set_locale`](crate::hsm::Scene::set_locale)).
    pub fn locale(&self) -> crate::locale::Locale {
        self.locale
    }

    /// The state instance this code runs for.
    pub fn state(&self) -> StateId {
        self.state
    }

    /// The name of the state this code runs for, as written in the source.
    pub fn state_name(&self) -> &str {
        self.program.name(self.program.state(self.state).name)
    }

    /// The state's modifier as compiled (for a state with typed parameters, its only one or none).
    pub fn modifier(&self) -> Modifier {
        self.program.state(self.state).modifier
    }

    /// The location modifier, if the state has one (or its only parameter is a location).
    pub fn location(&self) -> Option<&LocationDef> {
        match self.modifier() {
            Modifier::Location(l) => self.program.locations.get(l.index()),
            _ => match self.program.sole_param(self.state)? {
                ParamValue::Location(l) => self.program.locations.get(l.index()),
                _ => None,
            },
        }
    }

    /// The value of the parameter `name` (the state's, else the declared default); `None` when
    /// the library state declares no such parameter. A single modifier is the one parameter
    /// named after its kind (`location`, `machine`, `agent`, `text`, `number`). Every reader
    /// takes the name as a string (looked up on each read) or as a [`ParamName`](super::ParamName) resolved when
    /// the scene linked ([`StateLibrary::register_linked`](super::StateLibrary::register_linked)).
    pub fn param(&self, name: impl ParamKey) -> Option<Param> {
        name.value(self.program, self.state)
            .map(std::borrow::Cow::into_owned)
    }

    /// A single-valued parameter (not a list).
    fn one_param(&self, name: impl ParamKey) -> Option<ParamValue> {
        name.value(self.program, self.state)?.one()
    }

    /// A text parameter, or the chosen word of a one-of parameter, or the name a sentence
    /// parameter gives.
    pub fn text_param(&self, name: impl ParamKey) -> Option<&str> {
        match self.one_param(name)? {
            ParamValue::Text(n) | ParamValue::Choice(n) | ParamValue::Sentence(n) => {
                Some(self.program.name(n))
            }
            _ => None,
        }
    }

    /// A number parameter.
    pub fn number_param(&self, name: impl ParamKey) -> Option<f64> {
        match self.one_param(name)? {
            ParamValue::Number(x) => Some(x),
            _ => None,
        }
    }

    /// A bool parameter.
    pub fn bool_param(&self, name: impl ParamKey) -> Option<bool> {
        match self.one_param(name)? {
            ParamValue::Bool(b) => Some(b),
            _ => None,
        }
    }

    /// A location parameter.
    pub fn location_param(&self, name: impl ParamKey) -> Option<&LocationDef> {
        match self.one_param(name)? {
            ParamValue::Location(l) => self.program.locations.get(l.index()),
            _ => None,
        }
    }

    /// The agent an agent parameter names, if it is in the scene.
    pub fn agent_param(&self, name: impl ParamKey) -> Option<AgentId> {
        match self.one_param(name)? {
            ParamValue::Agent(n) => self.agent_by_name_id(n),
            _ => None,
        }
    }

    /// A machine parameter (to run with [`StateCx::start_machine`]).
    pub fn machine_param(&self, name: impl ParamKey) -> Option<MachineId> {
        match self.one_param(name)? {
            ParamValue::Machine(m) => Some(m),
            _ => None,
        }
    }

    /// The items of a list parameter.
    pub fn list_param(&self, name: impl ParamKey) -> Option<Vec<ParamValue>> {
        match name.value(self.program, self.state)?.into_owned() {
            Param::List(items) => Some(items),
            Param::One(_) => None,
        }
    }

    /// The child machine this state hosts, if any.
    pub fn child_machine(&self) -> Option<MachineId> {
        match self.modifier() {
            Modifier::Machine(m) => Some(m),
            _ => None,
        }
    }

    /// The machine running below this state (its modifier's, or one its code started).
    pub fn child(&self) -> Option<MachineId> {
        self.child.map(|s| self.program.state(s).machine)
    }

    /// Runs `machine` below this state, replacing the child it runs: the machine's initial
    /// state is entered once this call returns. Its end reaches this state's code through
    /// [`StateCode::on_child_ended`](super::StateCode::on_child_ended). This is how a state
    /// decides at run time what to host (a `Plan` state runs the machine of each action).
    pub fn start_machine(&mut self, machine: MachineId) {
        self.out.child = Some(ChildRequest::Start(machine));
    }

    /// Leaves the child machine this state runs, if any.
    pub fn stop_machine(&mut self) {
        self.out.child = Some(ChildRequest::Stop);
    }

    /// The text modifier, if the state has one (or its only parameter is text).
    pub fn text(&self) -> Option<&str> {
        match self.modifier() {
            Modifier::Text(t) => Some(self.program.name(t)),
            _ => match self.program.sole_param(self.state)? {
                ParamValue::Text(t) | ParamValue::Choice(t) => Some(self.program.name(t)),
                _ => None,
            },
        }
    }

    /// The number modifier, if the state has one (or its only parameter is a number).
    pub fn number(&self) -> Option<f64> {
        match self.modifier() {
            Modifier::Number(x) => Some(x),
            _ => match self.program.sole_param(self.state)? {
                ParamValue::Number(x) => Some(x),
                _ => None,
            },
        }
    }

    /// The agent named by the state's agent modifier (or its only parameter, an agent), if it
    /// is in the scene.
    pub fn modifier_agent(&self) -> Option<AgentId> {
        match self.modifier() {
            Modifier::Agent(n) => self.agent_by_name_id(n),
            _ => match self.program.sole_param(self.state)? {
                ParamValue::Agent(n) => self.agent_by_name_id(n),
                _ => None,
            },
        }
    }

    /// The scene's agent called `name`, or `None` if no agent has that name.
    pub fn agent_by_name(&self, name: &str) -> Option<AgentId> {
        self.agent_by_name_id(self.program.name_id(name)?)
    }

    fn agent_by_name_id(&self, name: NameId) -> Option<AgentId> {
        self.agent_names
            .iter()
            .position(|n| *n == name)
            .map(|i| AgentId(i as u32))
    }

    /// The name of `agent`; `"?"` for an id that is not one of the scene's agents.
    pub fn agent_name(&self, agent: AgentId) -> &str {
        self.agent_names
            .get(agent.index())
            .map(|n| self.program.name(*n))
            .unwrap_or("?")
    }

    /// The name of `msg`, as sent.
    pub fn message_name(&self, msg: &Message) -> &str {
        self.symbols.name(self.program, msg.name)
    }

    /// Whether `msg` is called `name`.
    pub fn message_is(&self, msg: &Message, name: &str) -> bool {
        self.message_name(msg) == name
    }

    /// Whether the current state has a transition on `event`.
    pub fn has_transition(&self, event: &str) -> bool {
        match self.program.name_id(event) {
            Some(e) => self
                .program
                .transitions_of(self.state)
                .iter()
                .any(|t| t.event == e),
            None => false,
        }
    }

    /// Raises an event in this state's machine: by name (an event the program never mentions
    /// cannot match a transition, so it is dropped here), or as an [`EventName`](super::EventName) resolved when
    /// the scene linked, which looks nothing up.
    pub fn raise(&mut self, event: impl EventKey) {
        if let Some(e) = event.id(self.program) {
            self.out.raised.push(e);
        }
    }

    /// Sends a message up this agent's hierarchy (to the host state, then its host, ...).
    pub fn send_up(&mut self, name: &str) {
        let n = self.symbols.intern(self.program, name);
        self.out.up.push(n);
    }

    /// Sends a message to another agent; it is delivered at the start of the next tick.
    pub fn send_to(&mut self, agent: AgentId, name: &str) {
        let n = self.symbols.intern(self.program, name);
        self.out.to_agents.push((agent, n));
    }

    /// Records a fact that became true (an `add` trace event), such as a ticket changing hands
    /// inside a conversation machine.
    pub fn add_fact(&mut self, fact: String) {
        let machine = self.program.state(self.state).machine;
        self.out.facts.push((true, machine, fact));
    }

    /// Records a fact that stopped being true (a `del` trace event).
    pub fn del_fact(&mut self, fact: String) {
        let machine = self.program.state(self.state).machine;
        self.out.facts.push((false, machine, fact));
    }

    /// Says a line (a `say` trace event).
    pub fn say(&mut self, text: &str) {
        self.out.said.push(Said {
            text: text.to_string(),
            sentence: None,
            candidate: None,
        });
    }

    /// Says a candidate line of a sentence state (a `say` event with `sentence` and
    /// `candidate`).
    pub fn say_sentence(&mut self, text: &str, sentence: NameId, candidate: u32) {
        self.out.said.push(Said {
            text: text.to_string(),
            sentence: Some(sentence),
            candidate: Some(candidate),
        });
    }

    /// Records a trace event for this agent (a library state's own kinds of events, such as
    /// `plan` and `replan`, or the `path` a walk takes).
    pub fn trace(&mut self, kind: crate::trace::EventKind) {
        self.out.events.push(kind);
    }

    /// Reports a problem in the trace without stopping the agent.
    pub fn error(&mut self, message: String) {
        self.out.errors.push(message);
    }
}
