//! The timeline's filter, below the timeline's drawing: kinds of trace events as the filter
//! groups them, what an event says, and which events of the run the filter lets through (by
//! agent, kind and text), kept up to date as events arrive.

use super::snapshot::History;
use ensemble_runtime::trace::{EventKind, TraceEvent};

/// Kinds of events, as the filter groups them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Group {
    States,
    Messages,
    Speech,
    Actions,
    Facts,
    Roles,
    Plans,
    Walks,
    Reloads,
    Errors,
}

pub const GROUPS: [(Group, &str); 10] = [
    (Group::States, "states"),
    (Group::Messages, "messages"),
    (Group::Speech, "speech"),
    (Group::Actions, "actions"),
    (Group::Facts, "facts"),
    (Group::Roles, "roles"),
    (Group::Plans, "plans"),
    (Group::Walks, "walks"),
    (Group::Reloads, "reloads"),
    (Group::Errors, "errors"),
];

pub fn group(kind: &EventKind) -> Group {
    match kind {
        EventKind::Enter { .. } | EventKind::Exit { .. } => Group::States,
        EventKind::Message { .. } => Group::Messages,
        EventKind::Say { .. } | EventKind::Input { .. } | EventKind::Output { .. } => Group::Speech,
        EventKind::Act { .. } | EventKind::Done { .. } | EventKind::ActionFailed { .. } => {
            Group::Actions
        }
        EventKind::Add { .. } | EventKind::Del { .. } | EventKind::WorldFact { .. } => Group::Facts,
        EventKind::Plan { .. } | EventKind::Replan { .. } => Group::Plans,
        EventKind::Join { .. } | EventKind::Leave { .. } => Group::Roles,
        EventKind::Path { .. } | EventKind::Door { .. } => Group::Walks,
        EventKind::Reload { .. } | EventKind::ReloadRejected { .. } => Group::Reloads,
        EventKind::Error { .. } | EventKind::Fail { .. } => Group::Errors,
    }
}

/// What an event says, after its kind.
pub fn detail(e: &TraceEvent) -> String {
    let action = |a: &str, t: &Option<std::sync::Arc<str>>| match t {
        Some(t) => format!("{a} {t}"),
        None => a.to_string(),
    };
    match &e.kind {
        EventKind::Enter { machine, state, .. } | EventKind::Exit { machine, state, .. } => {
            format!("{machine}/{state}")
        }
        EventKind::Message {
            from,
            to,
            name,
            handled,
            up,
        } => format!(
            "{name}  {from} to {to}{}{}",
            if *up { " (up)" } else { "" },
            if *handled { "" } else { "  [unhandled]" }
        ),
        EventKind::Say { text, sentence, .. } => match sentence {
            Some(s) => format!("“{text}”  ({s})"),
            None => format!("“{text}”"),
        },
        EventKind::Fail { machine, state } => format!("{machine} failed at {state}"),
        EventKind::Error { message } => message.clone(),
        EventKind::Reload {
            reason,
            kept,
            fallbacks,
        } => {
            let mut s = format!("{reason}: {kept} states kept");
            for f in fallbacks {
                s.push_str("; ");
                s.push_str(f);
            }
            s
        }
        EventKind::ReloadRejected { reason } => reason.clone(),
        EventKind::Act { action: a, target }
        | EventKind::Done { action: a, target }
        | EventKind::ActionFailed { action: a, target } => action(a, target),
        EventKind::Add { script, fact } | EventKind::Del { script, fact } => {
            format!("{fact}  [{script}]")
        }
        EventKind::Join { script, role } | EventKind::Leave { script, role } => {
            format!("{script} as {role}")
        }
        EventKind::Input {
            speaker,
            emote,
            text,
            ..
        } => format!("{speaker} {emote}: {text}"),
        EventKind::Output { emote, text, .. } => format!("{emote}: {text}"),
        EventKind::Plan {
            problem,
            planner,
            actions,
            nodes,
        } => format!(
            "{problem} ({planner}, {nodes} nodes): {}",
            actions.join(", ")
        ),
        EventKind::Replan {
            problem,
            actions,
            reason,
            ..
        } => format!("{problem} ({reason}): {}", actions.join(", ")),
        EventKind::WorldFact { world, fact, .. } => format!("{fact}  [{world}]"),
        EventKind::Path { to, cost: None, .. } => format!("no path to {to}: waits"),
        EventKind::Path {
            to,
            length,
            via,
            reroute,
            ..
        } => format!(
            "{}{to}  {length:.1} m{}{}",
            if *reroute { "re-routed to " } else { "" },
            if via.is_empty() { "" } else { "  via " },
            via.join(", ")
        ),
        EventKind::Door { door, open, .. } => {
            format!("{door} {}", if *open { "opens" } else { "closes" })
        }
    }
}

/// The filter, and the events it lets through (indices in the run, kept up to date as events
/// arrive).
#[derive(Default)]
pub struct Filter {
    pub agent: Option<String>,
    pub hidden: Vec<Group>,
    pub search: String,
    shown: Vec<usize>,
    /// Run index of the next event to look at, and the filter `shown` was made with.
    scanned: usize,
    made_with: Option<(Option<String>, Vec<Group>, String)>,
}

impl Filter {
    fn admits(&self, e: &TraceEvent, search: &str) -> bool {
        if let Some(a) = &self.agent
            && e.agent.as_deref() != Some(a.as_str())
        {
            return false;
        }
        if self.hidden.contains(&group(&e.kind)) {
            return false;
        }
        search.is_empty() || {
            let text = format!(
                "{} {} {}",
                e.agent.as_deref().unwrap_or(""),
                e.kind.name(),
                detail(e)
            )
            .to_lowercase();
            search.split_whitespace().all(|w| text.contains(w))
        }
    }

    /// Brings `shown` up to date with the history and the filter.
    pub fn refresh(&mut self, history: &History) {
        let key = (self.agent.clone(), self.hidden.clone(), self.search.clone());
        if self.made_with.as_ref() != Some(&key) || self.scanned > history.event_total() {
            self.shown.clear();
            self.scanned = 0;
            self.made_with = Some(key);
        }
        let dropped = history.events_dropped();
        if self.shown.first().is_some_and(|&i| i < dropped) {
            let keep = self.shown.partition_point(|&i| i < dropped);
            self.shown.drain(..keep);
        }
        let search = self.search.trim().to_lowercase();
        let from = self.scanned.max(dropped);
        for (i, e) in history.events().skip(from - dropped) {
            if self.admits(e, &search) {
                self.shown.push(i);
            }
        }
        self.scanned = history.event_total();
    }

    /// Run indices of the events the filter lets through.
    pub fn shown(&self) -> &[usize] {
        &self.shown
    }
}
