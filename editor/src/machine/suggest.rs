//! Events a transition can be named after, offered while the designer types one: the events
//! the state's library state raises, and the messages a conversation partner's side sends
//! (a `Listen` state in the seller's conversation waits for `YourTurn`, which arrives when the
//! buyer's machine yields the turn; nothing in the UI said so).
//!
//! Conversations are read off the project's machines: a machine run by a `TalkStateMachine`
//! state is a conversation machine; its side is the one that waited for the conversation
//! (`WaitForConversation`) or asked for it (`RequestConversation`) in the machine hosting it,
//! and its partners are the conversation machines of the other side (all others when a side
//! cannot be told).

use super::ops;
use crate::asset_panel::ProjectNames;
use crate::theme;
use eframe::egui::{self, RichText, Ui};
use ensemble_compiler::front::ron::{MachineAsset, ModifierValue, StateAsset};
use ensemble_runtime::stdlib;
use std::collections::BTreeMap;

/// An event to offer, and why it is offered (the completion list shows it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suggestion {
    pub event: String,
    pub why: String,
}

/// The event a waiting partner receives when the other side yields the turn (its conversation
/// host passes `AwaitingResponse` on as this).
const YOUR_TURN: &str = "YourTurn";
/// The event each side receives when the other side's conversation ends.
const CONVERSATION_ENDED: &str = "ConversationEnded";
/// The event a state that yields the turn raises when the answer comes.
const WAIT_FOR_RESPONSE: &str = "WaitForResponse";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Waited,
    Requested,
    Unknown,
}

/// The project's conversation machines, by name: their side and whether they ever yield the
/// turn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversations {
    machines: BTreeMap<String, (Side, bool)>,
}

impl Conversations {
    /// Reads the conversations of `machines`.
    pub fn of<'a>(machines: impl IntoIterator<Item = &'a MachineAsset>) -> Conversations {
        let machines: Vec<&MachineAsset> = machines.into_iter().collect();
        let mut out = BTreeMap::new();
        for host in &machines {
            let runs = |code: &str| host.states.iter().any(|s| ops::code(s) == code);
            let side = match (
                runs(stdlib::WAIT_FOR_CONVERSATION),
                runs(stdlib::REQUEST_CONVERSATION),
            ) {
                (true, false) => Side::Waited,
                (false, true) => Side::Requested,
                _ => Side::Unknown,
            };
            for s in &host.states {
                if ops::code(s) != stdlib::TALK_STATE_MACHINE {
                    continue;
                }
                let Some(ModifierValue::Name(child)) = &s.modifier else {
                    continue;
                };
                let yields = machines.iter().find(|m| m.name == *child).is_some_and(|m| {
                    m.states
                        .iter()
                        .any(|s| s.on.iter().any(|(e, _)| e == WAIT_FOR_RESPONSE))
                });
                out.insert(child.clone(), (side, yields));
            }
        }
        Conversations { machines: out }
    }

    /// The conversation machines `machine` talks with, and whether each yields the turn.
    fn partners(&self, machine: &str) -> Vec<(&str, bool)> {
        let Some(&(side, _)) = self.machines.get(machine) else {
            return Vec::new();
        };
        self.machines
            .iter()
            .filter(|(name, (other, _))| {
                name.as_str() != machine
                    && (side == Side::Unknown || *other == Side::Unknown || *other != side)
            })
            .map(|(name, (_, yields))| (name.as_str(), *yields))
            .collect()
    }
}

/// The events to offer for a transition of `state` in `machine`: what its library state
/// raises, then what a conversation partner sends.
pub fn events(
    machine: &MachineAsset,
    state: &StateAsset,
    names: &ProjectNames,
    conversations: &Conversations,
) -> Vec<Suggestion> {
    let code = ops::code(state);
    let mut out: Vec<Suggestion> = names
        .library(code)
        .and_then(|l| l.raises.as_ref())
        .into_iter()
        .flatten()
        .map(|e| Suggestion {
            event: e.clone(),
            why: format!("raised by {code}"),
        })
        .collect();
    let partners = conversations.partners(&machine.name);
    let yielding: Vec<&str> = partners
        .iter()
        .filter(|(_, yields)| *yields)
        .map(|(n, _)| *n)
        .collect();
    let mut offer = |event: &str, why: String| {
        if !out.iter().any(|s| s.event == event) {
            out.push(Suggestion {
                event: event.to_string(),
                why,
            });
        }
    };
    if !yielding.is_empty() {
        offer(
            YOUR_TURN,
            format!("sent when {} yields the turn", yielding.join(" or ")),
        );
    }
    if !partners.is_empty() {
        let all: Vec<&str> = partners.iter().map(|(n, _)| *n).collect();
        offer(
            CONVERSATION_ENDED,
            format!("sent when {}'s conversation ends", all.join(" or ")),
        );
    }
    out
}

/// The suggestions that complete `typed` (case-insensitive, anywhere in the name), without
/// the one already typed in full.
pub fn matching<'a>(suggestions: &'a [Suggestion], typed: &str) -> Vec<&'a Suggestion> {
    let typed = typed.trim().to_lowercase();
    suggestions
        .iter()
        .filter(|s| {
            let event = s.event.to_lowercase();
            event != typed && event.contains(&typed)
        })
        .collect()
}

/// Under a transition's event field: the suggestions matching what is typed, while the field
/// has the keyboard (or the pointer is on the list, so a click on it lands after the field lets
/// the keyboard go). Returns the event picked.
pub fn completion_list(
    ui: &mut Ui,
    field: &egui::Response,
    typed: &str,
    suggestions: &[Suggestion],
) -> Option<String> {
    let list = field.id.with("completions");
    let pointer_on_list = ui.ctx().data(|d| d.get_temp::<bool>(list)).unwrap_or(false);
    let found = matching(suggestions, typed);
    if !(field.has_focus() || pointer_on_list) || found.is_empty() {
        ui.ctx().data_mut(|d| d.remove::<bool>(list));
        return None;
    }
    let mut picked = None;
    let shown = ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("suggested:").small().color(theme::TEXT_WEAK));
        for s in found {
            if ui.small_button(&s.event).on_hover_text(&s.why).clicked() {
                picked = Some(s.event.clone());
            }
        }
    });
    let keep = picked.is_none() && ui.rect_contains_pointer(shown.response.rect);
    ui.ctx().data_mut(|d| d.insert_temp(list, keep));
    picked
}

/// The menu beside the event field: every suggestion, under why it is offered.
pub fn menu(ui: &mut Ui, suggestions: &[Suggestion]) -> Option<String> {
    let mut picked = None;
    let mut last_why = None;
    for s in suggestions {
        if last_why != Some(&s.why) {
            ui.label(RichText::new(&s.why).small().color(theme::TEXT_WEAK));
            last_why = Some(&s.why);
        }
        if ui.button(&s.event).on_hover_text(&s.why).clicked() {
            picked = Some(s.event.clone());
            ui.close();
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::ops::tests::machine;

    #[test]
    fn the_seller_listening_is_offered_the_buyers_turn() {
        let seller = machine(
            r#"Machine(name: "Sell", states: [(name: "Start", on: [("Empty", "Listen")]), (name: "Listen", on: [])])"#,
        );
        let buyer = machine(
            r#"Machine(name: "Buy", states: [(name: "Start", on: [("Empty", "Ask")]), (name: "Ask", code: "Dialog", modifier: "Ask", on: [("WaitForResponse", "Finish")]), (name: "Finish")])"#,
        );
        let stand = machine(
            r#"Machine(name: "Stand", states: [(name: "Start", on: [("Empty", "WaitForConversation")]), (name: "WaitForConversation", on: [("ConversationCoupled", "TalkStateMachine")]), (name: "TalkStateMachine", modifier: "Sell")])"#,
        );
        let go = machine(
            r#"Machine(name: "Go", states: [(name: "Start", on: [("Empty", "RequestConversation")]), (name: "RequestConversation", modifier: "seller", on: [("ConversationCoupled", "TalkStateMachine")]), (name: "TalkStateMachine", modifier: "Buy")])"#,
        );
        let c = Conversations::of([&seller, &buyer, &stand, &go]);
        let names = ProjectNames::default();
        let offered = events(&seller, &seller.states[1], &names, &c);
        let events_offered: Vec<&str> = offered.iter().map(|s| s.event.as_str()).collect();
        assert_eq!(events_offered, vec![YOUR_TURN, CONVERSATION_ENDED]);
        assert!(offered[0].why.contains("Buy"), "{offered:?}");
        // The seller never yields, so the buyer is not offered YourTurn.
        let offered = events(&buyer, &buyer.states[1], &names, &c);
        let events_offered: Vec<&str> = offered.iter().map(|s| s.event.as_str()).collect();
        assert_eq!(events_offered, vec![CONVERSATION_ENDED]);
        // A machine no one talks in gets nothing from partners.
        assert!(events(&stand, &stand.states[0], &names, &c).is_empty());
    }

    #[test]
    fn completion_matches_anywhere_ignoring_case() {
        let s = |e: &str| Suggestion {
            event: e.into(),
            why: String::new(),
        };
        let all = [s("YourTurn"), s("ConversationEnded")];
        let m: Vec<&str> = matching(&all, "turn")
            .iter()
            .map(|s| s.event.as_str())
            .collect();
        assert_eq!(m, vec!["YourTurn"]);
        assert_eq!(matching(&all, "").len(), 2);
    }
}
