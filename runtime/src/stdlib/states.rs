//! The standard library states. Each is small on purpose: behaviour lives in the machines that
//! designers author; these are the verbs those machines are built from.

use crate::hsm::{Inert, Message, StateCode, StateCx, StateLibrary};
use crate::locale::{LineIndex, Locale};
use crate::program::{Modifier, NameId, Program};
use crate::rng::DrawKind;
use crate::snapshot::{decode, encode};
use crate::speech::transaction::{self, Direction};
use crate::world::{self, Destination, LineId, MoveEvent, World, WorldCx};

type Cx<'a, W> = StateCx<'a, W>;

/// How often an unanswered conversation request is repeated, seconds.
const REQUEST_RETRY: f64 = 1.0;

pub(super) fn register<W: World + 'static>(lib: &mut StateLibrary<W>) {
    for d in super::DECLARATIONS {
        let make: fn() -> Box<dyn StateCode<W>> = match d.name {
            super::START => || Box::new(Start),
            super::FINISH | super::FAIL | super::LISTEN => || Box::new(Inert),
            super::GOTO => || {
                Box::new(Goto {
                    arrived: false,
                    moving: false,
                })
            },
            super::WAIT => || Box::new(Wait { left: 0.0 }),
            super::WAIT_FOR_CONVERSATION => || Box::new(WaitForConversation),
            super::REQUEST_CONVERSATION => || Box::new(RequestConversation { since_sent: 0.0 }),
            super::TALK_STATE_MACHINE => || {
                Box::new(Talk {
                    partner_left: false,
                })
            },
            super::SAY => || Box::new(Say::new(Line::Modifier)),
            super::SALUTATION => || Box::new(Say::new(Line::Canned(super::SALUTATION_LINES))),
            super::ONE_OFF => || Box::new(Say::new(Line::OneOff)),
            super::DIALOG => || Box::new(Say::new(Line::Sentence)),
            super::SET => || Box::new(Set),
            super::TRANSACTION => || Box::new(Transaction),
            super::HAS => || Box::new(Has),
            super::PLAN => || Box::new(super::planning::Plan::new()),
            super::FINISH_TALK_STATE => || Box::new(Wait { left: f64::NAN }),
            other => unreachable!("standard state `{other}` is declared but has no code"),
        };
        lib.register(d.name, d.spec(), make);
    }
}

/// The world's side of a call into state code: the game's world and what it is handed with a
/// request (`dt` 0 as a state is entered).
fn seam<'c, W>(cx: &'c mut Cx<'_, W>, dt: f64) -> (&'c mut W, WorldCx<'c>) {
    (
        &mut *cx.game,
        WorldCx {
            program: cx.program,
            now: cx.now,
            dt,
            rng: &mut *cx.rng,
            trace: &mut cx.out.events,
        },
    )
}

struct Start;
impl<W: World + 'static> StateCode<W> for Start {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        cx.raise("Empty");
    }
}

/// `Goto`: asks the world to move the agent to the location and follows the move.
struct Goto {
    arrived: bool,
    /// A move is open in the world (stopped when the state is left).
    moving: bool,
}

impl Goto {
    fn step<W: World>(&mut self, cx: &mut Cx<'_, W>, dt: f64) {
        if !self.moving {
            return;
        }
        let agent = cx.agent;
        let (world, mut wcx) = seam(cx, dt);
        match world.follow_move(agent, &mut wcx) {
            Some(MoveEvent::Arrived) if !self.arrived => {
                self.arrived = true;
                cx.raise("ReachedLocation");
            }
            Some(MoveEvent::NoPath) => cx.raise("NoPath"),
            Some(MoveEvent::Failed(why)) => {
                // The world gave up: as far as the machine can tell, there is no way there.
                let state = cx.state_name().to_string();
                cx.error(format!("{state}: the move failed: {why}"));
                cx.raise("NoPath");
            }
            _ => {}
        }
    }
}

impl<W: World + 'static> StateCode<W> for Goto {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        let Modifier::Location(location) = cx.modifier() else {
            return;
        };
        let agent = cx.agent;
        let (world, mut wcx) = seam(cx, 0.0);
        world.move_to(agent, Destination::Location(location), &mut wcx);
        self.moving = true;
        self.step(cx, 0.0);
    }
    fn update(&mut self, cx: &mut Cx<'_, W>, dt: f64) {
        self.step(cx, dt);
    }
    fn cleanup(&mut self, cx: &mut Cx<'_, W>) {
        // The walk is over (arrived, or interrupted).
        if self.moving {
            let agent = cx.agent;
            cx.game.stop_move(agent);
        }
    }
    // The move itself (its route, where the body is) is the world's to save.
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&(self.arrived, self.moving))
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        (self.arrived, self.moving) = decode(data)?;
        Ok(())
    }
}

/// `Wait` (modifier seconds, raises Done) and `FinishTalkState` (random 1.5–2.5 s, raises
/// FinishTalk): a timer that raises one event.
struct Wait {
    left: f64,
}

impl<W: World + 'static> StateCode<W> for Wait {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        self.left = match cx.number() {
            Some(seconds) => seconds,
            None => cx.rng.range_f64(1.5, 2.5),
        };
    }
    fn update(&mut self, cx: &mut Cx<'_, W>, dt: f64) {
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
impl<W: World + 'static> StateCode<W> for WaitForConversation {
    fn on_message(&mut self, cx: &mut Cx<'_, W>, msg: &Message) -> bool {
        if !cx.message_is(msg, "RequestConversation")
            || cx.game.standard().partner(cx.agent).is_some()
        {
            return false;
        }
        let me = cx.agent;
        cx.game.standard_mut().set_partner(me, Some(msg.from));
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
    fn request<W: World>(&mut self, cx: &mut Cx<'_, W>) -> bool {
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

impl<W: World + 'static> StateCode<W> for RequestConversation {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        // At tick 0 the agent asked for may not have been created yet (agents start in scene
        // order): ask again on the first update instead of reporting it.
        if !self.request(cx) {
            self.since_sent = REQUEST_RETRY;
        }
    }
    fn update(&mut self, cx: &mut Cx<'_, W>, dt: f64) {
        self.since_sent += dt;
        if self.since_sent >= REQUEST_RETRY && !self.request(cx) {
            let state = cx.state_name().to_string();
            cx.error(format!(
                "{state}: the agent it asks for is not in this scene"
            ));
        }
    }
    fn on_message(&mut self, cx: &mut Cx<'_, W>, msg: &Message) -> bool {
        if !cx.message_is(msg, "ConversationCoupled") {
            return false;
        }
        let me = cx.agent;
        cx.game.standard_mut().set_partner(me, Some(msg.from));
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
/// nothing in it speaks or trades any more (`StandardState::conversation_over`), a state waiting for a
/// response takes the message as one (so a last line followed by `Finish` ends normally), and the
/// host ends the machine with `EndStateMachine` on its next update.
struct Talk {
    partner_left: bool,
}

impl<W: World + 'static> StateCode<W> for Talk {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        let me = cx.agent;
        cx.game.standard_mut().set_talking(me, true);
        if cx.game.standard().partner(me).is_none() {
            // Nobody to talk with: say so, and end the conversation rather than stall in it.
            let state = cx.state_name().to_string();
            cx.error(format!(
                "{state}: no conversation partner (enter it after RequestConversation or WaitForConversation)"
            ));
            self.partner_left = true;
        }
    }
    fn update(&mut self, cx: &mut Cx<'_, W>, _dt: f64) {
        if self.partner_left {
            cx.raise("EndStateMachine");
        }
    }
    fn cleanup(&mut self, cx: &mut Cx<'_, W>) {
        let me = cx.agent;
        if let Some(partner) = cx.game.standard().partner(me)
            && !self.partner_left
        {
            cx.send_to(partner, "ConversationEnded");
            // The world is shared: the partner's conversation is over from now on, not only
            // once the message arrives (next tick). Otherwise a partner the scene updates later
            // in this tick would still trade with us — a hand-over after we were called away.
            if cx.game.standard().partner(partner) == Some(me) {
                cx.game.standard_mut().set_partner(partner, None);
            }
        }
        cx.game.standard_mut().set_partner(me, None);
        cx.game.standard_mut().set_talking(me, false);
    }
    fn on_message(&mut self, cx: &mut Cx<'_, W>, msg: &Message) -> bool {
        if cx.message_is(msg, "AwaitingResponse") {
            // Without a partner (it has left) the waiting state is woken by ConversationEnded.
            if let Some(partner) = cx.game.standard().partner(cx.agent) {
                cx.send_to(partner, "YourTurn");
            }
            true
        } else if cx.message_is(msg, "ConversationEnded") {
            self.partner_left = true;
            let me = cx.agent;
            cx.game.standard_mut().set_partner(me, None);
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
    /// The world is saying the line.
    speaking: bool,
    waiting: bool,
}

impl Say {
    fn new(line: Line) -> Self {
        Say {
            line,
            speaking: false,
            waiting: false,
        }
    }
}

/// A line spoken: its text in the scene's locale, the sentence state and candidate id when it
/// is a candidate, and its line in the program's string section.
struct Spoken {
    text: String,
    candidate: Option<(NameId, u32)>,
    line: Option<LineIndex>,
}

/// Speaks a candidate of the state's sentence state, in the scene's locale.
fn speak_sentence<W: World>(cx: &mut Cx<'_, W>) -> Spoken {
    let silent = Spoken {
        text: String::new(),
        candidate: None,
        line: None,
    };
    let state = cx.state_name().to_string();
    let Modifier::Text(name) = cx.modifier() else {
        cx.error(format!(
            "{state}: a Dialog state needs a sentence state name"
        ));
        return silent;
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
        return silent;
    };
    let among =
        (speech.sentence(sentence).choose_among as usize).min(speech.candidates_of(sentence).len());
    let chosen = speech.choose(sentence, u);
    let Some(i) = chosen.map(|i| cx.game.decide(DrawKind::Line, among, i)) else {
        cx.error(format!(
            "{state}: sentence state `{}` has no candidates",
            program.name(name)
        ));
        return silent;
    };
    let candidate = &speech.candidates_of(sentence)[i];
    let index = speech.sentence(sentence).first_candidate as usize + i;
    let (parts, english) = program
        .strings
        .candidate_parts(index, &candidate.parts, cx.locale());
    let game: &W = cx.game;
    let partner = game.standard().partner(me);
    let locale = cx.locale();
    let (text, missing) = speech.fill_parts(program, sentence, &parts, english, |v| {
        let value = game
            .variable(me, v)
            .or_else(|| partner.and_then(|p| game.variable(p, v)))?;
        Some(program.slot_value(v, value, locale))
    });
    for m in missing {
        cx.error(format!("{state}: variable `{}` is not bound", m.0));
    }
    cx.say_sentence(&text, name, candidate.id);
    Spoken {
        text,
        candidate: Some((name, candidate.id)),
        line: program.strings.candidate_lines.get(index).copied(),
    }
}

/// Which of `n` lines (n > 0) to say: drawn from the agent's stream, as the world decides.
fn one_line<W: World>(cx: &mut Cx<'_, W>, n: usize) -> usize {
    let natural = cx.rng.index(n);
    cx.game.decide(DrawKind::Line, n, natural)
}

/// Speaks one of the lines written in the state's modifier (`Say`: the one; `OneOff`: one of
/// its `|`-separated lines, drawn from the agent's stream), in the scene's locale. A program
/// with a string section lists the lines (pinned ids removed); one without speaks the text.
fn speak_written<W: World>(cx: &mut Cx<'_, W>, one_of: bool) -> Spoken {
    let program = cx.program;
    let lines = program.strings.written(cx.state());
    if !lines.is_empty() {
        let line = if one_of {
            lines[one_line(cx, lines.len())]
        } else {
            lines[0]
        };
        return Spoken {
            text: program.strings.text(line, cx.locale()),
            candidate: None,
            line: Some(line),
        };
    }
    let written = cx.text().unwrap_or("").to_string();
    let text = if one_of {
        let lines: Vec<&str> = written
            .split('|')
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        if lines.is_empty() {
            String::new()
        } else {
            lines[one_line(cx, lines.len())].to_string()
        }
    } else {
        written
    };
    let text = if cx.locale() == Locale::Pseudo {
        crate::locale::pseudo(&text)
    } else {
        text
    };
    Spoken {
        text,
        candidate: None,
        line: None,
    }
}

impl<W: World + 'static> StateCode<W> for Say {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        if cx.game.standard().conversation_over(cx.agent) {
            // Nobody to talk to: stay silent; the host ends the conversation.
            self.waiting = true;
            return;
        }
        let spoken = match self.line {
            Line::Canned(lines) => {
                if cx.program.strings.written(cx.state()).is_empty() {
                    Spoken {
                        text: lines[one_line(cx, lines.len())].to_string(),
                        candidate: None,
                        line: None,
                    }
                } else {
                    speak_written(cx, true)
                }
            }
            Line::Modifier => speak_written(cx, false),
            Line::OneOff => speak_written(cx, true),
            Line::Sentence => speak_sentence(cx),
        };
        let program = cx.program;
        let id = match spoken.candidate {
            Some((sentence, candidate)) => LineId::Candidate {
                sentence: program.name(sentence),
                candidate,
            },
            // A dialog state whose sentence could not be spoken (reported as an error) still
            // takes its turn, with an empty line.
            None => LineId::Written,
        };
        let key = spoken.line.map(|l| program.strings.line(l).id.as_str());
        let agent = cx.agent;
        let (world, mut wcx) = seam(cx, 0.0);
        let line = world::Line {
            text: &spoken.text,
            id,
            key,
        };
        world.say(agent, &line, &mut wcx);
        self.speaking = true;
        if !matches!(self.line, Line::Sentence) {
            cx.say(&spoken.text);
        }
    }
    fn update(&mut self, cx: &mut Cx<'_, W>, dt: f64) {
        if self.waiting || !self.speaking {
            return;
        }
        let agent = cx.agent;
        let (world, mut wcx) = seam(cx, dt);
        if world.still_speaking(agent, &mut wcx) {
            return;
        }
        self.speaking = false;
        if cx.has_transition("WaitForResponse") && !cx.has_transition("FinishStatement") {
            self.waiting = true;
            cx.send_up("AwaitingResponse");
        } else {
            cx.raise("FinishStatement");
        }
    }
    fn on_message(&mut self, cx: &mut Cx<'_, W>, msg: &Message) -> bool {
        // The partner leaving counts as the response we were waiting for.
        if self.waiting
            && (cx.message_is(msg, "YourTurn") || cx.message_is(msg, "ConversationEnded"))
        {
            cx.raise("WaitForResponse");
            return true;
        }
        false
    }
    // What it says is chosen on entry and the line is the world's (its speaking timer): only
    // whether it is speaking and its turn are the state's data.
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&(self.speaking, self.waiting))
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        (self.speaking, self.waiting) = decode(data)?;
        Ok(())
    }
}

/// `Set`: binds one of the agent's variables (`CityName = Boston`).
struct Set;
impl<W: World + 'static> StateCode<W> for Set {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
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
impl<W: World + 'static> StateCode<W> for Transaction {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        let me = cx.agent;
        if cx.game.standard().conversation_over(me) {
            return; // interrupted before the exchange: it does not happen
        }
        let state = cx.state_name().to_string();
        let Some(partner) = cx.game.standard().partner(me) else {
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
                let game: &W = cx.game;
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
impl<W: World + 'static> StateCode<W> for Has {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        let name = cx.text().unwrap_or("").trim().to_string();
        let me = cx.agent;
        let has = cx.game.variable(me, &name).is_some();
        cx.raise(if has { "Yes" } else { "No" });
    }
}
