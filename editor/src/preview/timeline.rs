//! The timeline: the run's trace events, newest at the bottom, filtered by agent, by kind and
//! by text. Clicking an event shows the scene as it was at its tick (every view follows);
//! events after the tick shown are dimmed.

use super::{Preview, agent_color};
use crate::theme;
use eframe::egui;
use egui::{Color32, RichText, Ui};
use ensemble_runtime::trace::{EventKind, TraceEvent};

const ROW: f32 = 19.0;

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

fn group_color(g: Group) -> Color32 {
    match g {
        Group::States => super::live::LIVE,
        Group::Messages => theme::EDGE,
        Group::Speech => theme::SPEECH,
        Group::Actions | Group::Roles => theme::SPECIAL,
        Group::Plans => theme::INFO,
        Group::Walks => theme::EDGE,
        Group::Facts => theme::ACCENT,
        Group::Reloads => theme::OK,
        Group::Errors => theme::ERROR,
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
pub struct State {
    pub agent: Option<String>,
    pub hidden: Vec<Group>,
    pub search: String,
    shown: Vec<usize>,
    /// Run index of the next event to look at, and the filter `shown` was made with.
    scanned: usize,
    made_with: Option<(Option<String>, Vec<Group>, String)>,
}

impl State {
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
    pub fn refresh(&mut self, history: &super::snapshot::History) {
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

pub fn show(p: &mut Preview, ui: &mut Ui) {
    let agents: Vec<(String, Color32)> = p
        .history
        .latest()
        .map(|s| {
            s.agents
                .iter()
                .map(|a| (a.name.to_string(), agent_color(a.id.index())))
                .collect()
        })
        .unwrap_or_default();
    ui.horizontal(|ui| {
        ui.label(RichText::new("Timeline").strong().color(theme::TEXT));
        let shown = p
            .timeline
            .agent
            .clone()
            .unwrap_or_else(|| "all agents".into());
        egui::ComboBox::from_id_salt("timeline-agent")
            .selected_text(shown)
            .width(110.0)
            .show_ui(ui, |ui| {
                if ui
                    .selectable_label(p.timeline.agent.is_none(), "all agents")
                    .clicked()
                {
                    p.timeline.agent = None;
                }
                for (a, color) in &agents {
                    if ui
                        .selectable_label(
                            p.timeline.agent.as_deref() == Some(a),
                            RichText::new(a).color(*color),
                        )
                        .clicked()
                    {
                        p.timeline.agent = Some(a.clone());
                    }
                }
            });
        ui.add(
            egui::TextEdit::singleline(&mut p.timeline.search)
                .id(egui::Id::new("timeline-search"))
                .hint_text("filter")
                .desired_width(ui.available_width()),
        );
    });
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        for (g, label) in GROUPS {
            let on = !p.timeline.hidden.contains(&g);
            let text = RichText::new(label).small().color(if on {
                group_color(g)
            } else {
                theme::TEXT_WEAK.gamma_multiply(0.6)
            });
            if ui
                .add(egui::Button::new(text).selected(on).small())
                .on_hover_text(if on {
                    "Hide these events"
                } else {
                    "Show these events"
                })
                .clicked()
            {
                if on {
                    p.timeline.hidden.push(g);
                } else {
                    p.timeline.hidden.retain(|h| *h != g);
                }
            }
        }
    });
    p.timeline.refresh(&p.history);
    let now = p.shown().map_or(0, |s| s.tick);
    let live = p.viewing.is_none();
    let rows = p.timeline.shown().to_vec();
    if rows.is_empty() {
        ui.label(RichText::new("No events match.").color(theme::TEXT_WEAK));
        return;
    }
    let mut go_to = None;
    let mut pick = None;
    let mut scroll = egui::ScrollArea::vertical()
        .id_salt("timeline-rows")
        .auto_shrink([false, false])
        .stick_to_bottom(live);
    // Scrubbed back: keep the tick shown in view.
    if !live && p.timeline_scroll {
        let at = rows.partition_point(|&i| p.history.event(i).is_some_and(|e| e.tick <= now));
        let y = (at as f32 * (ROW + ui.spacing().item_spacing.y) - 120.0).max(0.0);
        scroll = scroll.vertical_scroll_offset(y);
    }
    p.timeline_scroll = false;
    scroll.show_rows(ui, ROW, rows.len(), |ui, range| {
        for &i in &rows[range] {
            let Some(e) = p.history.event(i) else {
                continue;
            };
            let future = e.tick > now;
            let current = e.tick == now && !live;
            let dim = |c: Color32| if future { c.gamma_multiply(0.35) } else { c };
            let mut agent_rect: Option<(egui::Rect, String)> = None;
            let r = ui
                .horizontal(|ui| {
                    ui.set_height(ROW);
                    // The row takes the click (it scrubs), not its texts.
                    ui.style_mut().interaction.selectable_labels = false;
                    if current {
                        ui.painter().rect_filled(
                            ui.max_rect().expand2(egui::vec2(2.0, 0.0)),
                            3.0,
                            theme::BOX_FILL,
                        );
                    }
                    ui.label(
                        RichText::new(format!("{:>6}", e.tick))
                            .monospace()
                            .small()
                            .color(dim(theme::TEXT_WEAK)),
                    );
                    let who = e.agent.as_deref().unwrap_or("—");
                    let color = agents
                        .iter()
                        .find(|(n, _)| n == who)
                        .map_or(theme::TEXT_WEAK, |(_, c)| *c);
                    let name = ui.label(RichText::new(who).color(dim(color)));
                    agent_rect = Some((name.rect, who.to_string()));
                    let g = group(&e.kind);
                    ui.label(
                        RichText::new(e.kind.name())
                            .small()
                            .strong()
                            .color(dim(group_color(g))),
                    );
                    ui.add(
                        egui::Label::new(RichText::new(detail(e)).color(dim(theme::TEXT)))
                            .truncate(),
                    );
                })
                .response
                .interact(egui::Sense::click());
            // A click on the agent's name selects the agent; anywhere else on the row, it
            // shows the scene at the event's tick.
            let over_agent = |p: Option<egui::Pos2>| {
                agent_rect
                    .as_ref()
                    .zip(p)
                    .is_some_and(|((rect, _), p)| rect.contains(p))
            };
            let (hovering, clicked_at) = (r.hover_pos(), r.interact_pointer_pos());
            let hint = if over_agent(hovering) {
                "select this agent".to_string()
            } else {
                format!(
                    "tick {} · {:.2} s: click to see the scene then",
                    e.tick, e.time
                )
            };
            if r.on_hover_text(hint).clicked() {
                if over_agent(clicked_at) {
                    pick = agent_rect.map(|(_, who)| who);
                } else {
                    go_to = Some(e.tick);
                }
            }
        }
    });
    if let Some(t) = go_to {
        p.viewing = Some(t);
    }
    if let Some(a) = pick {
        p.select(Some(a.into()));
    }
}
