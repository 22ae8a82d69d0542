//! A conversation scene: the conversation so far with a line to speak as the player, and the
//! belief of every HMM space over the last iterations, as stacked bars (one bar per iteration,
//! one colour per state; a bar sums to 1).

use super::model::Preview;
use super::snapshot::{Snapshot, SpaceInfo};
use super::transcript;
use crate::live::agent_color;
use crate::theme;
use eframe::egui;
use egui::{Color32, Panel, RichText, Ui};
use egui_plot::{Bar, BarChart, Plot};

/// Iterations shown in each chart.
const WINDOW: u64 = 40;
const CHART_WIDTH: f32 = 250.0;
const CHART_HEIGHT: f32 = 92.0;

/// A state's colour: the first (a space's rest state) grey, the others the agents' palette.
fn state_color(i: usize) -> Color32 {
    match i {
        0 => Color32::from_rgb(90, 100, 120),
        i => agent_color(i - 1),
    }
}

/// The slice of a snapshot's beliefs that belongs to space `k`.
fn space_slice(s: &Snapshot, k: usize) -> &[f32] {
    let start: usize = s.world.spaces[..k].iter().map(|x| x.states.len()).sum();
    let n = s.world.spaces[k].states.len();
    s.beliefs.get(start..start + n).unwrap_or(&[])
}

/// Whether a space's belief has moved away from where it starts.
pub fn engaged(space: &SpaceInfo, belief: &[f32]) -> bool {
    belief.get(space.start).is_some_and(|b| *b < 0.9)
}

pub fn show(p: &mut Preview, ui: &mut Ui) {
    let Some(now) = p.shown().cloned() else {
        return;
    };
    Panel::left("chat-conversation")
        .resizable(true)
        .default_size(ui.available_width() * 0.42)
        .min_size(240.0)
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(8, 6)))
        .show(ui, |ui| conversation(p, ui, &now));
    egui::CentralPanel::default()
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(8, 6)))
        .show(ui, |ui| charts(p, ui, &now));
}

fn conversation(p: &mut Preview, ui: &mut Ui, now: &Snapshot) {
    let running = p.is_running();
    Panel::bottom("chat-input")
        .frame(egui::Frame::new().inner_margin(egui::Margin::symmetric(0, 6)))
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let waiting = now.awaits_player;
                let r = ui.add_enabled(
                    running,
                    egui::TextEdit::singleline(&mut p.beliefs.line)
                        .id(egui::Id::new("chat-line"))
                        .hint_text(if waiting {
                            "your turn: say something (/nods for an emote)"
                        } else {
                            "say something (/nods for an emote)"
                        })
                        .desired_width(ui.available_width() - 60.0),
                );
                let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if (ui.add_enabled(running, egui::Button::new("Say")).clicked() || enter)
                    && !p.beliefs.line.trim().is_empty()
                {
                    let line = std::mem::take(&mut p.beliefs.line);
                    p.say(line);
                    r.request_focus();
                }
            });
        });
    transcript::show(p, ui);
}

fn charts(p: &mut Preview, ui: &mut Ui, now: &Snapshot) {
    let spaces = &now.world.spaces;
    let shown: Vec<usize> = (0..spaces.len())
        .filter(|&k| !p.beliefs.engaged_only || engaged(&spaces[k], space_slice(now, k)))
        .collect();
    ui.horizontal(|ui| {
        ui.label(RichText::new("Beliefs").strong().color(theme::TEXT));
        ui.label(
            RichText::new(format!(
                "{} of {} spaces{}",
                shown.len(),
                spaces.len(),
                if p.beliefs.engaged_only {
                    " engaged"
                } else {
                    ""
                }
            ))
            .color(theme::TEXT_WEAK),
        );
        ui.checkbox(&mut p.beliefs.engaged_only, "engaged only")
            .on_hover_text("Only spaces whose belief has moved away from where it starts");
    });
    situation(ui, now);
    if shown.is_empty() {
        ui.label(
            RichText::new("Every space is at rest. Say something to the agent.")
                .color(theme::TEXT_WEAK),
        );
        return;
    }
    let from = now.tick.saturating_sub(WINDOW - 1);
    let past: Vec<Snapshot> = p.history.range(from, now.tick).cloned().collect();
    let columns = ((ui.available_width() / (CHART_WIDTH + 12.0)).floor() as usize).max(1);
    // The charts share the width out, up to half as wide again as their least.
    let width = ((ui.available_width() - 12.0 * columns as f32) / columns as f32)
        .clamp(CHART_WIDTH, CHART_WIDTH * 1.5);
    egui::ScrollArea::vertical()
        .id_salt("belief-charts")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Grid::new("belief-grid")
                .num_columns(columns)
                .spacing([12.0, 10.0])
                .show(ui, |ui| {
                    for (n, &k) in shown.iter().enumerate() {
                        chart(ui, &spaces[k], k, &past, now, width);
                        if (n + 1) % columns == 0 {
                            ui.end_row();
                        }
                    }
                });
        });
}

/// What the situational variables hold now: the topic, the dish, a tally and its total —
/// what the agent's templates will read.
fn situation(ui: &mut Ui, now: &Snapshot) {
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("Holds").strong().color(theme::TEXT));
        if now.situation.is_empty() {
            ui.label(RichText::new("no variable is bound").color(theme::TEXT_WEAK));
        }
        for (variable, held) in now.situation.iter() {
            ui.label(RichText::new(variable).monospace().color(theme::INFO))
                .on_hover_text(
                    "a situational variable (a number heard with it first: 2 ale); a tally shows its total in the smallest unit",
                );
            ui.label(RichText::new(held).color(theme::TEXT));
        }
    });
}

fn chart(ui: &mut Ui, space: &SpaceInfo, k: usize, past: &[Snapshot], now: &Snapshot, width: f32) {
    ui.vertical(|ui| {
        ui.set_width(width);
        let b = space_slice(now, k);
        let best = b
            .iter()
            .enumerate()
            .max_by(|x, y| x.1.total_cmp(y.1))
            .map(|(i, p)| (i, *p));
        ui.horizontal(|ui| {
            ui.label(RichText::new(&*space.name).strong().color(theme::TEXT));
            if let Some((i, pb)) = best {
                ui.label(
                    RichText::new(format!("{} {:.2}", space.states[i], pb))
                        .small()
                        .color(state_color(i)),
                );
            }
        });
        // One chart per state, each stacked on the ones before.
        let mut charts: Vec<BarChart> = Vec::new();
        for (i, name) in space.states.iter().enumerate() {
            let bars: Vec<Bar> = past
                .iter()
                // Across a reload, only where this space was the same.
                .filter(|s| {
                    s.world
                        .spaces
                        .get(k)
                        .is_some_and(|o| o.name == space.name && o.states == space.states)
                })
                .map(|s| {
                    let v = space_slice(s, k).get(i).copied().unwrap_or(0.0);
                    Bar::new(s.tick as f64, v as f64)
                        // Touching bars: gaps would stripe a narrow chart.
                        .width(1.0)
                        .fill(state_color(i))
                        .stroke(egui::Stroke::NONE)
                })
                .collect();
            let below: Vec<&BarChart> = charts.iter().collect();
            let chart = BarChart::new(name.to_string(), bars)
                .color(state_color(i))
                .stack_on(&below);
            charts.push(chart);
        }
        Plot::new(("belief", k))
            .width(width)
            .height(CHART_HEIGHT)
            .show_axes([false, true])
            .show_grid(false)
            .allow_drag(false)
            .allow_zoom(false)
            .allow_scroll(false)
            .allow_boxed_zoom(false)
            .allow_double_click_reset(false)
            .include_y(0.0)
            .include_y(1.0)
            .include_x(now.tick.saturating_sub(WINDOW - 1) as f64 - 0.5)
            .include_x(now.tick as f64 + 0.5)
            .y_axis_min_width(18.0)
            .show(ui, |plot| {
                for c in charts {
                    plot.bar_chart(c);
                }
            });
        // The states, in their colours.
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 6.0;
            for (i, name) in space.states.iter().enumerate() {
                let v = b.get(i).copied().unwrap_or(0.0);
                ui.label(
                    RichText::new(format!("■ {name}"))
                        .small()
                        .color(if v > 0.05 {
                            state_color(i)
                        } else {
                            state_color(i).gamma_multiply(0.5)
                        }),
                )
                .on_hover_text(format!("b({name}) = {v:.3}"));
            }
        });
    });
}
