//! The timeline: the run's trace events, newest at the bottom, filtered by agent, by kind and
//! by text. Clicking an event shows the scene as it was at its tick (every view follows);
//! events after the tick shown are dimmed.

use super::filter::{GROUPS, Group, detail, group};
use super::model::Preview;
use crate::live::agent_color;
use crate::theme;
use eframe::egui;
use egui::{Color32, RichText, Ui};

const ROW: f32 = 19.0;

fn group_color(g: Group) -> Color32 {
    match g {
        Group::States => crate::live::LIVE,
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
