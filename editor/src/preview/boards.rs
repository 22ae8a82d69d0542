//! Blackboards: the tuple space of every running script instance, with its participants (their
//! roles and script states), searchable; facts added since the previous recorded tick are
//! marked, and facts removed since are listed struck through.

use super::model::Preview;
use super::snapshot::{Board, Snapshot};
use crate::live::agent_color;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use std::collections::BTreeSet;
use std::sync::Arc;

/// What changed on a blackboard since the snapshot before.
pub struct Changes {
    pub added: BTreeSet<String>,
    pub removed: Vec<String>,
}

/// `board` against the same instance in `before` (all of it is new if it was not there).
pub fn changes(board: &Board, before: Option<&Snapshot>) -> Changes {
    let old = before.and_then(|s| {
        s.boards
            .iter()
            .find(|b| b.location == board.location && b.instance == board.instance)
    });
    match old {
        Some(old) if Arc::ptr_eq(&old.facts, &board.facts) => Changes {
            added: BTreeSet::new(),
            removed: Vec::new(),
        },
        Some(old) => {
            let now: BTreeSet<&String> = board.facts.iter().collect();
            let then: BTreeSet<&String> = old.facts.iter().collect();
            Changes {
                added: now.difference(&then).map(|f| (*f).clone()).collect(),
                removed: then.difference(&now).map(|f| (*f).clone()).collect(),
            }
        }
        None => Changes {
            added: board.facts.iter().cloned().collect(),
            removed: Vec::new(),
        },
    }
}

/// Whether a fact matches a search: every word of it, case-insensitively.
pub fn matches(fact: &str, search: &str) -> bool {
    let fact = fact.to_lowercase();
    search
        .split_whitespace()
        .all(|w| fact.contains(&w.to_lowercase()))
}

pub fn show(p: &mut Preview, ui: &mut Ui) {
    let Some(snapshot) = p.shown().cloned() else {
        return;
    };
    let before = p.history.before(&snapshot).cloned();
    ui.horizontal(|ui| {
        ui.label(RichText::new("🔍").color(theme::TEXT_WEAK));
        ui.add(
            egui::TextEdit::singleline(&mut p.boards.search)
                .id(egui::Id::new("preview-board-search"))
                .hint_text("search facts")
                .desired_width(f32::INFINITY),
        );
    });
    if snapshot.boards.is_empty() {
        ui.add_space(8.0);
        let idle = if snapshot.world.places.is_empty() {
            "This scene has no smart locations.".to_string()
        } else {
            format!(
                "No script runs at this tick ({} waiting for participants).",
                snapshot
                    .world
                    .places
                    .iter()
                    .map(|p| p.name.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        ui.label(RichText::new(idle).color(theme::TEXT_WEAK));
        return;
    }
    let search = p.boards.search.trim().to_string();
    let mut select = None;
    egui::ScrollArea::vertical()
        .id_salt("preview-boards")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for board in snapshot.boards.iter() {
                let c = changes(board, before.as_ref());
                let title = format!("{} · {}", board.location, board.script);
                egui::CollapsingHeader::new(RichText::new(title).strong().color(theme::SPECIAL))
                    .id_salt(("board", &*board.location))
                    .default_open(true)
                    .show(ui, |ui| {
                        egui::Grid::new(("participants", &*board.location))
                            .num_columns(3)
                            .spacing([12.0, 2.0])
                            .show(ui, |ui| {
                                for part in &board.participants {
                                    let color = agent_color(part.agent.index());
                                    let selected = p.selected.as_deref() == Some(&*part.name);
                                    let name = RichText::new(&*part.name).color(color);
                                    if ui
                                        .selectable_label(
                                            selected,
                                            if selected { name.strong() } else { name },
                                        )
                                        .clicked()
                                    {
                                        select = Some(part.name.clone());
                                    }
                                    ui.label(RichText::new(&*part.role).color(theme::TEXT));
                                    ui.label(RichText::new(&*part.state).color(crate::live::LIVE));
                                    ui.end_row();
                                }
                            });
                        ui.add_space(2.0);
                        let shown: Vec<&String> =
                            board.facts.iter().filter(|f| matches(f, &search)).collect();
                        ui.label(
                            RichText::new(format!(
                                "{} fact{}{}",
                                board.facts.len(),
                                if board.facts.len() == 1 { "" } else { "s" },
                                if search.is_empty() {
                                    String::new()
                                } else {
                                    format!(", {} matching", shown.len())
                                }
                            ))
                            .small()
                            .color(theme::TEXT_WEAK),
                        );
                        for f in shown {
                            let new = c.added.contains(f);
                            ui.horizontal(|ui| {
                                ui.label(
                                    RichText::new(if new { "+" } else { " " })
                                        .monospace()
                                        .color(theme::OK),
                                );
                                let text = RichText::new(f).monospace();
                                ui.label(if new {
                                    text.color(theme::OK).strong()
                                } else {
                                    text.color(theme::TEXT)
                                })
                                .on_hover_text(if new {
                                    "added in the last tick"
                                } else {
                                    "on the blackboard"
                                });
                            });
                        }
                        for f in c.removed.iter().filter(|f| matches(f, &search)) {
                            ui.horizontal(|ui| {
                                ui.label(RichText::new("−").monospace().color(theme::ERROR));
                                ui.label(
                                    RichText::new(f)
                                        .monospace()
                                        .strikethrough()
                                        .color(theme::ERROR),
                                )
                                .on_hover_text("removed in the last tick");
                            });
                        }
                    });
            }
        });
    if let Some(name) = select {
        p.select(Some(name));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_matches_every_word() {
        assert!(matches("reserved(seat1,tourist1)", "seat1"));
        assert!(matches("reserved(seat1,tourist1)", "RESERVED tourist"));
        assert!(!matches("reserved(seat1,tourist1)", "seat2"));
        assert!(matches("anything", "  "));
    }
}
