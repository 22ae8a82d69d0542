//! The standard library states. Each is small on purpose: behaviour lives in the machines that
//! designers author; these are the verbs those machines are built from.

use super::SimWorld;
use crate::hsm::{Inert, Message, StateCode, StateCx, StateLibrary, StateSpec};
use crate::program::{Modifier, ModifierKind, Program, Terminal};
use crate::snapshot::{decode, encode};
use crate::speech::transaction::{self, Direction};

type Cx<'a> = StateCx<'a, SimWorld>;

/// How often an unanswered conversation request is repeated, seconds.
const REQUEST_RETRY: f64 = 1.0;

pub(super) fn register(lib: &mut StateLibrary<SimWorld>) {
    use ModifierKind as M;
    lib.register(
        "Start",
        StateSpec::new(M::None)
            .raises(["Empty"])
            .doc("Entry state: raises Empty at once."),
        || Box::new(Start),
    );
    lib.register(
        "Finish",
        StateSpec::new(M::None)
            .terminal(Terminal::End)
            .raises(Vec::<String>::new())
            .doc("Ends the machine; its host receives EndStateMachine."),
        || Box::new(Inert),
    );
    lib.register(
        "Fail",
        StateSpec::new(M::None)
            .terminal(Terminal::Failure)
            .raises(Vec::<String>::new())
            .doc("Ends the machine in failure; its host receives StateMachineFailed."),
        || Box::new(Inert),
    );
    lib.register(
        "Goto",
        StateSpec::new(M::Location)
            .raises(["ReachedLocation", "NoPath"])
            .doc("Walks to the location (along the navigation graph's PPA* path when the project has one, else straight); raises ReachedLocation on arrival, NoPath when the graph has no way there (it waits, and walks on if a door opens)."),
        || Box::new(Goto { arrived: false, route: None }),
    );
    lib.register(
        "Wait",
        StateSpec::new(M::Number)
            .raises(["Done"])
            .doc("Waits the given number of seconds; raises Done."),
        || Box::new(Wait { left: 0.0 }),
    );
    lib.register(
        "WaitForConversation",
        StateSpec::new(M::None)
            .raises(["ConversationCoupled"])
            .doc("Accepts the first RequestConversation message; raises ConversationCoupled."),
        || Box::new(WaitForConversation),
    );
    lib.register(
        "RequestConversation",
        StateSpec::new(M::Agent)
            .raises(["ConversationCoupled"])
            .doc("Asks the agent for a conversation every second until it accepts; raises ConversationCoupled."),
        || Box::new(RequestConversation { since_sent: 0.0 }),
    );
    lib.register(
        "TalkStateMachine",
        StateSpec::new(M::Machine)
            .raises(["EndStateMachine", "StateMachineFailed"])
            .doc("Hosts a conversation machine: passes turns to the partner and ends when either side finishes."),
        || Box::new(Talk { partner_left: false }),
    );
    lib.register(
        "Say",
        StateSpec::new(M::Text)
            .raises(["FinishStatement", "WaitForResponse"])
            .doc("Says the text. Then raises FinishStatement if the state has that transition; otherwise yields the turn and raises WaitForResponse when the partner has answered."),
        || Box::new(Say::new(Line::Modifier)),
    );
    lib.register(
        "Salutation",
        StateSpec::new(M::None)
            .raises(["FinishStatement", "WaitForResponse"])
            .doc("One-off state: says a canned greeting (\"Hi.\" or \"Hello.\"), then behaves like Say."),
        || Box::new(Say::new(Line::Canned(&["Hi.", "Hello."]))),
    );
    lib.register(
        "OneOff",
        StateSpec::new(M::Text)
            .raises(["FinishStatement", "WaitForResponse"])
            .doc("One-off state: says one of the canned lines of its modifier, separated by `|` (\"OK.|Sure.\"), chosen by the seeded stream; then behaves like Say."),
        || Box::new(Say::new(Line::OneOff)),
    );
    lib.register(
        "Dialog",
        StateSpec::new(M::Text)
            .raises(["FinishStatement", "WaitForResponse"])
            .doc("Dialog state: speaks the sentence state its modifier names, choosing among its best candidates by weight and filling its VARIABLE slots from the agent's variables (then the partner's); then behaves like Say."),
        || Box::new(Say::new(Line::Sentence)),
    );
    lib.register(
        "Set",
        StateSpec::new(M::Text)
            .raises(["Done"])
            .doc("Binds one of the agent's variables, written `Name = value` (\"CityName = Boston\"); raises Done."),
        || Box::new(Set),
    );
    lib.register(
        "Transaction",
        StateSpec::new(M::Text)
            .raises(["Done", "Failed"])
            .doc("Special state: a side effect inside the conversation. `give Name = value` gives the partner a variable (`{Slot}`s filled like a dialog state's), `give Name` moves the agent's own to the partner, `take Name` moves the partner's to the agent; each change is an add/del trace event. Raises Done, or Failed when the value to move is missing; does nothing once the partner has left."),
        || Box::new(Transaction),
    );
    lib.register(
        "Has",
        StateSpec::new(M::Text)
            .raises(["Yes", "No"])
            .doc("Raises Yes if the agent has the variable its modifier names (from the scene, a Set or a transaction), else No."),
        || Box::new(Has),
    );
    lib.register(
        "Listen",
        StateSpec::new(M::None).doc(
            "Waits for a message; its transitions are named after the messages it listens for.",
        ),
        || Box::new(Inert),
    );
    lib.register(
        "Plan",
        StateSpec::new(M::Text)
            .raises([super::planning::PLAN_SUCCEEDED, super::planning::PLAN_FAILED])
            .doc("Plans for the planning problem its modifier names, from what the agent believes; runs each action through the machine the action names; replans when that machine fails or the world is not as expected. Raises PlanSucceeded when the goal holds, PlanFailed when no plan reaches it."),
        || Box::new(super::planning::Plan::new()),
    );
    lib.register(
        "FinishTalkState",
        StateSpec::new(M::None)
            .raises(["FinishTalk"])
            .doc("Post-conversation wrap-up for 1.5 to 2.5 s; raises FinishTalk."),
        || Box::new(Wait { left: f64::NAN }),
    );
}

struct Start;
impl StateCode<SimWorld> for Start {
    fn init(&mut self, cx: &mut Cx<'_>) {
        cx.raise("Empty");
    }
}

struct Goto {
    arrived: bool,
    route: Option<super::walk::Route>,
}

impl Goto {
    fn step(&mut self, cx: &mut Cx<'_>, dt: f64) {
        let Modifier::Location(location) = cx.modifier() else {
            return;
        };
        if super::walk::walk_to(cx, location, &mut self.route, dt) && !self.arrived {
            self.arrived = true;
            cx.raise("ReachedLocation");
        }
    }
}

impl StateCode<SimWorld> for Goto {
    fn init(&mut self, cx: &mut Cx<'_>) {
        self.step(cx, 0.0);
    }
    fn update(&mut self, cx: &mut Cx<'_>, dt: f64) {
        self.step(cx, dt);
    }
    fn cleanup(&mut self, cx: &mut Cx<'_>) {
        // The walk is over (arrived, or interrupted): nothing is ahead any more.
        let agent = cx.agent;
        cx.game.set_walk(agent, None);
    }
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&(self.arrived, self.route.as_ref().map(|r| r.to_saved())))
    }
    fn restore(&mut self, program: &Program, data: &[u8]) -> Result<(), String> {
        let (arrived, route): (bool, Option<super::walk::SavedRoute>) = decode(data)?;
        self.arrived = arrived;
        self.route = route
            .map(|r| super::walk::Route::from_saved(r, program))
            .transpose()?;
        Ok(())
    }
}

/// `Wait` (modifier seconds, raises Done) and `FinishTalkState` (random 1.5–2.5 s, raises
/// FinishTalk): a timer that raises one event.
struct Wait {
    left: f64,
}

impl StateCode<SimWorld> for Wait {
    fn init(&mut self, cx: &mut Cx<'_>) {
        self.left = match cx.number() {
            Some(seconds) => seconds,
            None => cx.rng.range_f64(1.5, 2.5),
        };
    }
    fn update(&mut self, cx: &mut Cx<'_>, dt: f64) {
        if self.left > 0.0 {
            self.left -= dt;
            if self.left <= 0.0 {
                let event = if cx.number().is_some() {
                    "Done"
                } else {
                    "FinishTalk"
                };
                cx.raise(event);
            }
        }
    }
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&self.left)
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        self.left = decode(data)?;
        Ok(())
    }
}

struct WaitForConversation;
impl StateCode<SimWorld> for WaitForConversation {
    fn on_message(&mut self, cx: &mut Cx<'_>, msg: &Message) -> bool {
        if !cx.message_is(msg, "RequestConversation") || cx.game.partner(cx.agent).is_some() {
            return false;
        }
        let me = cx.agent;
        cx.game.set_partner(me, Some(msg.from));
        cx.send_to(msg.from, "ConversationCoupled");
        cx.raise("ConversationCoupled");
        true
    }
}

struct RequestConversation {
    since_sent: f64,
}

impl RequestConversation {
    /// Sends the request; `false` when the agent is not (yet) in the scene.
    fn request(&mut self, cx: &mut Cx<'_>) -> bool {
        self.since_sent = 0.0;
        match cx.modifier_agent() {
            Some(other) => {
                cx.send_to(other, "RequestConversation");
                true
            }
            None => false,
        }
    }
}

impl StateCode<SimWorld> for RequestConversation {
    fn init(&mut self, cx: &mut Cx<'_>) {
        // At tick 0 the agent asked for may not have been created yet (agents start in scene
        // order): ask again on the first update instead of reporting it.
        if !self.request(cx) {
            self.since_sent = REQUEST_RETRY;
        }
    }
    fn update(&mut self, cx: &mut Cx<'_>, dt: f64) {
        self.since_sent += dt;
        if self.since_sent >= REQUEST_RETRY && !self.request(cx) {
            let state = cx.state_name().to_string();
            cx.error(format!(
                "{state}: the agent it asks for is not in this scene"
            ));
        }
    }
    fn on_message(&mut self, cx: &mut Cx<'_>, msg: &Message) -> bool {
        if !cx.message_is(msg, "ConversationCoupled") {
            return false;
        }
        let me = cx.agent;
        cx.game.set_partner(me, Some(msg.from));
        cx.raise("ConversationCoupled");
        true
    }
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&self.since_sent)
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        self.since_sent = decode(data)?;
        Ok(())
    }
}

/// Hosts a conversation machine. Turn-taking: a child state that yields sends
/// `AwaitingResponse` up; the host passes `YourTurn` to the partner. When either side's host is
/// left — its machine finished, or something interrupted it (a message, a failure) — it uncouples
/// the partner at once and tells it `ConversationEnded`. The partner's conversation is then over:
/// nothing in it speaks or trades any more (`SimWorld::conversation_over`), a state waiting for a
/// response takes the message as one (so a last line followed by `Finish` ends normally), and the
/// host ends the machine with `EndStateMachine` on its next update.
struct Talk {
    partner_left: bool,
}

impl StateCode<SimWorld> for Talk {
    fn init(&mut self, cx: &mut Cx<'_>) {
        let me = cx.agent;
        cx.game.set_talking(me, true);
        if cx.game.partner(me).is_none() {
            // Nobody to talk with: say so, and end the conversation rather than stall in it.
            let state = cx.state_name().to_string();
            cx.error(format!(
                "{state}: no conversation partner (enter it after RequestConversation or WaitForConversation)"
            ));
            self.partner_left = true;
        }
    }
    fn update(&mut self, cx: &mut Cx<'_>, _dt: f64) {
        if self.partner_left {
            cx.raise("EndStateMachine");
        }
    }
    fn cleanup(&mut self, cx: &mut Cx<'_>) {
        let me = cx.agent;
        if let Some(partner) = cx.game.partner(me)
            && !self.partner_left
        {
            cx.send_to(partner, "ConversationEnded");
            // The world is shared: the partner's conversation is over from now on, not only
            // once the message arrives (next tick). Otherwise a partner the scene updates later
            // in this tick would still trade with us — a hand-over after we were called away.
            if cx.game.partner(partner) == Some(me) {
                cx.game.set_partner(partner, None);
            }
        }
        cx.game.set_partner(me, None);
        cx.game.set_talking(me, false);
    }
    fn on_message(&mut self, cx: &mut Cx<'_>, msg: &Message) -> bool {
        if cx.message_is(msg, "AwaitingResponse") {
            // Without a partner (it has left) the waiting state is woken by ConversationEnded.
            if let Some(partner) = cx.game.partner(cx.agent) {
                cx.send_to(partner, "YourTurn");
            }
            true
        } else if cx.message_is(msg, "ConversationEnded") {
            self.partner_left = true;
            let me = cx.agent;
            cx.game.set_partner(me, None);
            false // let the child take it as its response first
        } else {
            false
        }
    }
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&self.partner_left)
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        self.partner_left = decode(data)?;
        Ok(())
    }
}

/// What a speaking state says.
#[derive(Clone, Copy)]
enum Line {
    /// `Say`: the modifier's text.
    Modifier,
    /// `Salutation`: one of a fixed list.
    Canned(&'static [&'static str]),
    /// `OneOff`: one of the modifier's `|`-separated lines.
    OneOff,
    /// `Dialog`: a candidate of the sentence state the modifier names.
    Sentence,
}

/// `Say`, `Dialog` and one-off states such as `Salutation`: they speak, then take turns.
struct Say {
    line: Line,
    speaking_left: f64,
    waiting: bool,
}

impl Say {
    fn new(line: Line) -> Self {
        Say {
            line,
            speaking_left: 0.0,
            waiting: false,
        }
    }
}

/// Speaks a candidate of the state's sentence state; returns the text.
fn speak_sentence(cx: &mut Cx<'_>) -> String {
    let state = cx.state_name().to_string();
    let Modifier::Text(name) = cx.modifier() else {
        cx.error(format!(
            "{state}: a Dialog state needs a sentence state name"
        ));
        return String::new();
    };
    let u = cx.rng.range_f64(0.0, 1.0);
    let me = cx.agent;
    let program = cx.program;
    let speech = &program.speech;
    let Some(sentence) = speech.sentence_by_name(name) else {
        cx.error(format!(
            "{state}: there is no sentence state `{}`",
            program.name(name)
        ));
        return String::new();
    };
    let Some(i) = speech.choose(sentence, u) else {
        cx.error(format!(
            "{state}: sentence state `{}` has no candidates",
            program.name(name)
        ));
        return String::new();
    };
    let candidate = &speech.candidates_of(sentence)[i];
    let game: &SimWorld = cx.game;
    let partner = game.partner(me);
    let (text, missing) = speech.fill(program, sentence, candidate, |v| {
        game.variable(me, v)
            .or_else(|| partner.and_then(|p| game.variable(p, v)))
    });
    for m in missing {
        cx.error(format!("{state}: variable `{}` is not bound", m.0));
    }
    cx.say_sentence(&text, name, candidate.id);
    text
}

impl StateCode<SimWorld> for Say {
    fn init(&mut self, cx: &mut Cx<'_>) {
        if cx.game.conversation_over(cx.agent) {
            // Nobody to talk to: stay silent; the host ends the conversation.
            self.waiting = true;
            return;
        }
        let text = match self.line {
            Line::Canned(lines) => lines[cx.rng.index(lines.len())].to_string(),
            Line::Modifier => cx.text().unwrap_or("").to_string(),
            Line::OneOff => {
                let lines: Vec<String> = cx
                    .text()
                    .unwrap_or("")
                    .split('|')
                    .map(|l| l.trim().to_string())
                    .filter(|l| !l.is_empty())
                    .collect();
                if lines.is_empty() {
                    String::new()
                } else {
                    lines[cx.rng.index(lines.len())].clone()
                }
            }
            Line::Sentence => speak_sentence(cx),
        };
        let words = text.split_whitespace().count() as f64;
        self.speaking_left = (0.4 + 0.3 * words) * cx.rng.range_f64(0.9, 1.1);
        if !matches!(self.line, Line::Sentence) {
            cx.say(&text);
        }
    }
    fn update(&mut self, cx: &mut Cx<'_>, dt: f64) {
        if self.waiting || self.speaking_left <= 0.0 {
            return;
        }
        self.speaking_left -= dt;
        if self.speaking_left > 0.0 {
            return;
        }
        if cx.has_transition("WaitForResponse") && !cx.has_transition("FinishStatement") {
            self.waiting = true;
            cx.send_up("AwaitingResponse");
        } else {
            cx.raise("FinishStatement");
        }
    }
    fn on_message(&mut self, cx: &mut Cx<'_>, msg: &Message) -> bool {
        // The partner leaving counts as the response we were waiting for.
        if self.waiting
            && (cx.message_is(msg, "YourTurn") || cx.message_is(msg, "ConversationEnded"))
        {
            cx.raise("WaitForResponse");
            return true;
        }
        false
    }
    // What it says is chosen on entry; only the time left speaking and the turn are data.
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&(self.speaking_left, self.waiting))
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        (self.speaking_left, self.waiting) = decode(data)?;
        Ok(())
    }
}

/// `Set`: binds one of the agent's variables (`CityName = Boston`).
struct Set;
impl StateCode<SimWorld> for Set {
    fn init(&mut self, cx: &mut Cx<'_>) {
        let text = cx.text().unwrap_or("").to_string();
        match text.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                let me = cx.agent;
                cx.game.set_variable(me, name.trim(), value.trim());
                cx.raise("Done");
            }
            _ => {
                let state = cx.state_name().to_string();
                cx.error(format!("{state}: `{text}` is not `Name = value`"));
            }
        }
    }
}

/// `Transaction`: a side effect inside the conversation machine (`speech::transaction`).
struct Transaction;
impl StateCode<SimWorld> for Transaction {
    fn init(&mut self, cx: &mut Cx<'_>) {
        let me = cx.agent;
        if cx.game.conversation_over(me) {
            return; // interrupted before the exchange: it does not happen
        }
        let state = cx.state_name().to_string();
        let Some(partner) = cx.game.partner(me) else {
            cx.error(format!(
                "{state}: a transaction needs a conversation partner"
            ));
            return;
        };
        let text = cx.text().unwrap_or("").to_string();
        let t = match transaction::parse(&text) {
            Ok(t) => t,
            Err(e) => {
                cx.error(format!("{state}: {e}"));
                return;
            }
        };
        let (from, to) = match t.direction {
            Direction::Give => (me, partner),
            Direction::Take => (partner, me),
        };
        let value = match t.value {
            Some(v) => {
                let game: &SimWorld = cx.game;
                let (value, missing) = transaction::fill(v, |n| {
                    game.variable(me, n).or_else(|| game.variable(partner, n))
                });
                for m in missing {
                    cx.error(format!("{state}: variable `{m}` is not bound"));
                }
                value
            }
            None => match cx.game.remove_variable(from, t.variable) {
                Some(v) => {
                    let owner = cx.agent_name(from).to_string();
                    cx.del_fact(format!("{}({owner}) = {v}", t.variable));
                    v
                }
                None => {
                    // A designed branch when the state handles `Failed`; a mistake otherwise.
                    if !cx.has_transition("Failed") {
                        let owner = cx.agent_name(from).to_string();
                        cx.error(format!(
                            "{state}: {owner} has no `{}` to hand over",
                            t.variable
                        ));
                    }
                    cx.raise("Failed");
                    return;
                }
            },
        };
        let receiver = cx.agent_name(to).to_string();
        cx.add_fact(format!("{}({receiver}) = {value}", t.variable));
        cx.game.set_variable(to, t.variable, &value);
        cx.raise("Done");
    }
}

/// `Has`: branches on whether the agent has a variable.
struct Has;
impl StateCode<SimWorld> for Has {
    fn init(&mut self, cx: &mut Cx<'_>) {
        let name = cx.text().unwrap_or("").trim().to_string();
        let me = cx.agent;
        let has = cx.game.variable(me, &name).is_some();
        cx.raise(if has { "Yes" } else { "No" });
    }
}
