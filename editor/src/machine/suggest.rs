//! Events a transition can be named after, offered while the designer types one: the events
//! the state's library state raises, the messages a conversation partner's side sends (a
//! `Listen` state in the seller's conversation waits for `YourTurn`, which arrives when the
//! buyer's machine yields the turn; nothing in the UI said so), and the messages the project
//! sends otherwise: a `RequestConversation` state's request to the agent it names (a patrolling
//! guard that stops to talk takes it), and the smart locations' notifications.
//!
//! Conversations are read off the project's machines: a machine run by a `TalkStateMachine`
//! state is a conversation machine; its side is the one that waited for the conversation
//! (`WaitForConversation`) or asked for it (`RequestConversation`) in the machine hosting it,
//! and its partners are the conversation machines of the other side (all others when a side
//! cannot be told).

use super::ops;
use crate::panel::ProjectNames;
use crate::theme;
use eframe::egui::{self, RichText, Ui};
use ensemble_compiler::formats::ron::SceneAsset;
use ensemble_compiler::formats::ron::{MachineAsset, ModifierValue, StateAsset};
use ensemble_runtime::stdlib;
use std::collections::{BTreeMap, BTreeSet};

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
/// The message a `RequestConversation` state sends the agent it asks (a
/// `WaitForConversation` state accepts it; any state takes a transition of that name).
const REQUEST: &str = stdlib::REQUEST_CONVERSATION;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Waited,
    Requested,
    Unknown,
}

/// The project's conversation machines, by name: their side and whether they ever yield the
/// turn; and who is asked for a conversation.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Conversations {
    machines: BTreeMap<String, (Side, bool)>,
    /// Per machine an asked agent runs (as its root, or hosted below it): the asked agents and
    /// the machines asking them.
    asked: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)>,
    /// The machines with a `RequestConversation` state.
    requesters: BTreeSet<String>,
}

impl Conversations {
    /// Reads the conversations of `machines`, and of the agents `scenes` run them on.
    pub fn of<'a>(
        machines: impl IntoIterator<Item = &'a MachineAsset>,
        scenes: impl IntoIterator<Item = &'a SceneAsset>,
    ) -> Conversations {
        let machines: Vec<&MachineAsset> = machines.into_iter().collect();
        let mut requesters = BTreeSet::new();
        // Agent asked -> machines asking.
        let mut asking: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for m in &machines {
            for s in &m.states {
                if ops::code(s) != stdlib::REQUEST_CONVERSATION {
                    continue;
                }
                requesters.insert(m.name.clone());
                if let Some(ModifierValue::Name(agent)) = &s.modifier {
                    asking
                        .entry(agent.as_str())
                        .or_default()
                        .insert(m.name.clone());
                }
            }
        }
        let mut asked: BTreeMap<String, (BTreeSet<String>, BTreeSet<String>)> = BTreeMap::new();
        for scene in scenes {
            for agent in &scene.agents {
                let (Some(root), Some(by)) = (&agent.machine, asking.get(agent.name.as_str()))
                else {
                    continue;
                };
                // A message goes down the agent's running machines until one takes it: the
                // root's and every machine it hosts hear it.
                let mut todo = vec![root.as_str()];
                let mut seen = BTreeSet::new();
                while let Some(name) = todo.pop() {
                    if !seen.insert(name) {
                        continue;
                    }
                    let entry = asked.entry(name.to_string()).or_default();
                    entry.0.insert(agent.name.clone());
                    entry.1.extend(by.iter().cloned());
                    let Some(m) = machines.iter().find(|m| m.name == name) else {
                        continue;
                    };
                    for s in &m.states {
                        if let Some(ModifierValue::Name(child)) = &s.modifier
                            && machines.iter().any(|m| m.name == *child)
                        {
                            todo.push(child.as_str());
                        }
                    }
                }
            }
        }
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
        Conversations {
            machines: out,
            asked,
            requesters,
        }
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
/// raises, then what a conversation partner sends, then the other messages that reach it.
pub fn events(
    machine: &MachineAsset,
    state: &StateAsset,
    names: &ProjectNames,
    conversations: &Conversations,
) -> Vec<Suggestion> {
    let code = ops::code(state);
    let raises = names.library(code).and_then(|l| l.raises.as_ref());
    let mut out: Vec<Suggestion> = raises
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
    // The request for a conversation: where an agent running this machine is asked for one,
    // and, outside conversations, in a state that takes messages only (`Listen`) wherever
    // anyone asks (the scene that runs this machine may not name its agent yet).
    if let Some((agents, by)) = conversations.asked.get(&machine.name) {
        offer(
            REQUEST,
            format!(
                "sent by {}'s RequestConversation to {} (this machine's agent{}); a \
                 WaitForConversation state accepts it",
                join(by),
                join(agents),
                if agents.len() == 1 { "" } else { "s" }
            ),
        );
    } else if raises.is_none()
        && !conversations.requesters.is_empty()
        && !conversations.machines.contains_key(&machine.name)
    {
        offer(
            REQUEST,
            format!(
                "sent by {}'s RequestConversation to the agent it names; a \
                 WaitForConversation state accepts it",
                join(&conversations.requesters)
            ),
        );
    }
    // Notifications reach every machine-driven agent in reach of their smart location.
    for l in &names.more.smart_locations {
        for n in &l.notifications {
            offer(
                n,
                format!(
                    "notified by smart location {} (to agents within {} m of {})",
                    l.name, l.radius, l.at
                ),
            );
        }
    }
    out
}

/// `a`, `a or b`, `a, b or c`.
fn join(names: &BTreeSet<String>) -> String {
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    match names.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
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
        let c = Conversations::of([&seller, &buyer, &stand, &go], []);
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
        let offered = events(&stand, &stand.states[0], &names, &c);
        assert!(offered.iter().all(|s| s.event == REQUEST), "{offered:?}");
    }

    #[test]
    fn a_guard_listening_is_offered_the_request_and_the_notifications() {
        let guard = machine(
            r#"Machine(name: "Guard", states: [(name: "Start", on: [("Empty", "Listen")]), (name: "Listen", on: []), (name: "Patrol", code: "Goto", modifier: "Gate", on: [("ReachedLocation", "Listen")])])"#,
        );
        let ask = machine(
            r#"Machine(name: "AskGuard", states: [(name: "Start", on: [("Empty", "Ask")]), (name: "Ask", code: "RequestConversation", modifier: "guard", on: [])])"#,
        );
        let scene: SceneAsset = ron::from_str(
            r#"(name: "s", agents: [(name: "guard", machine: Some("Guard"), at: "Gate"), (name: "visitor", machine: Some("AskGuard"), at: "Gate")])"#,
        )
        .unwrap();
        let mut names = ProjectNames::default();
        names.library.push(crate::panel::LibraryEntry {
            name: "Goto".into(),
            modifier: ensemble_runtime::program::ModifierKind::Location,
            terminal: ensemble_runtime::program::Terminal::No,
            raises: Some(vec!["ReachedLocation".into(), "NoPath".into()]),
            doc: String::new(),
            standard: true,
            params: Vec::new(),
        });
        names
            .more
            .smart_locations
            .push(crate::names::SmartLocationNames {
                name: "stall".into(),
                at: "StallFront".into(),
                radius: 8.0,
                notifications: vec!["FreshBatch".into()],
                ..Default::default()
            });
        let c = Conversations::of([&guard, &ask], [&scene]);
        let offered = events(&guard, &guard.states[1], &names, &c);
        let got: Vec<&str> = offered.iter().map(|s| s.event.as_str()).collect();
        assert_eq!(got, vec![REQUEST, "FreshBatch"]);
        assert!(
            offered[0].why.contains("AskGuard") && offered[0].why.contains("guard"),
            "{offered:?}"
        );
        assert!(offered[1].why.contains("stall"), "{offered:?}");
        // Its Goto is asked too (the message reaches whatever state the guard is in).
        let offered = events(&guard, &guard.states[2], &names, &c);
        let got: Vec<&str> = offered.iter().map(|s| s.event.as_str()).collect();
        assert_eq!(
            got,
            vec!["ReachedLocation", "NoPath", REQUEST, "FreshBatch"]
        );
        // Without a scene naming the guard, its Listen is still offered the request; a Goto of
        // a machine no one asks is not.
        let c = Conversations::of([&guard, &ask], []);
        let got: Vec<String> = events(&guard, &guard.states[1], &names, &c)
            .into_iter()
            .map(|s| s.event)
            .collect();
        assert_eq!(got, vec![REQUEST, "FreshBatch"]);
        let got: Vec<String> = events(&guard, &guard.states[2], &names, &c)
            .into_iter()
            .map(|s| s.event)
            .collect();
        assert_eq!(got, vec!["ReachedLocation", "NoPath", "FreshBatch"]);
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
