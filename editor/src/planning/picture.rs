//! The planning graph of an action list drawn as a picture: states as dots in columns by their
//! breadth-first depth from the seeds (the machines' auto-layout), actions as lines, seeds and
//! goal states marked, a plan highlighted. Hover a state for its variables; click one to see the
//! plan from there (what the agent does when it finds itself in that state).

use super::preview::GraphPreview;
use crate::panel::{PanelCx, Request};
use crate::theme;
use eframe::egui;
use egui::{Color32, Pos2, Rect, Sense, Stroke, Ui, pos2, vec2};

/// Graphs larger than this are summarised, not drawn.
pub const MAX_DRAWN: usize = 600;

/// The state's variables as `Var=value` pairs.
pub fn describe_state(g: &GraphPreview, state: u32) -> String {
    let s = &g.graph.states[state as usize];
    g.compiled
        .names
        .iter()
        .zip(&g.compiled.domains)
        .zip(s)
        .map(|((n, dom), &v)| match dom {
            Some(values) => format!("{n}={}", values.get(v as usize).map_or("?", |x| x.as_str())),
            None => format!("{n}={v}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Where each state is drawn, in a unit square: columns by depth, rows in discovery order.
fn positions(g: &GraphPreview) -> Vec<Pos2> {
    let n = g.graph.states.len();
    let mut depth: Vec<Option<usize>> = vec![None; n];
    let mut queue = std::collections::VecDeque::new();
    for &s in &g.seeds {
        if depth[s as usize].is_none() {
            depth[s as usize] = Some(0);
            queue.push_back(s);
        }
    }
    while let Some(s) = queue.pop_front() {
        let d = depth[s as usize].unwrap_or(0);
        for &(_, t) in &g.graph.edges[s as usize] {
            if depth[t as usize].is_none() {
                depth[t as usize] = Some(d + 1);
                queue.push_back(t);
            }
        }
    }
    let columns = depth.iter().flatten().max().map_or(1, |d| d + 1);
    let mut rows = vec![0usize; columns];
    let mut row_of = vec![0usize; n];
    for (i, d) in depth.iter().enumerate() {
        let d = d.unwrap_or(0);
        row_of[i] = rows[d];
        rows[d] += 1;
    }
    (0..n)
        .map(|i| {
            let d = depth[i].unwrap_or(0);
            let x = (d as f32 + 0.5) / columns as f32;
            let y = (row_of[i] as f32 + 0.5) / rows[d].max(1) as f32;
            pos2(x, y)
        })
        .collect()
}

/// What the picture was asked.
pub struct Clicked(pub u32);

/// Draws `g` in a canvas of `height` with `plan` (the states it passes) highlighted; returns
/// the state clicked, if one was.
pub fn show(
    ui: &mut Ui,
    g: &GraphPreview,
    plan: &[u32],
    start: Option<u32>,
    height: f32,
) -> Option<Clicked> {
    let n = g.graph.states.len();
    let (rect, response) =
        ui.allocate_exact_size(vec2(ui.available_width(), height), Sense::click());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 4.0, theme::CANVAS);
    if n > MAX_DRAWN {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            format!("{n} states: too many to draw; the plans are listed"),
            egui::FontId::proportional(13.0),
            theme::TEXT_WEAK,
        );
        return None;
    }
    let inner = rect.shrink(14.0);
    let at: Vec<Pos2> = positions(g)
        .into_iter()
        .map(|p| {
            pos2(
                inner.left() + p.x * inner.width(),
                inner.top() + p.y * inner.height(),
            )
        })
        .collect();
    let on_plan = |a: u32, b: u32| plan.windows(2).any(|w| w[0] == a && w[1] == b);
    for (s, edges) in g.graph.edges.iter().enumerate() {
        for &(_, t) in edges {
            if t as usize == s {
                continue;
            }
            let highlighted = on_plan(s as u32, t);
            let stroke = if highlighted {
                Stroke::new(2.5, theme::ACCENT)
            } else {
                Stroke::new(0.7, theme::EDGE.gamma_multiply(0.35))
            };
            painter.line_segment([at[s], at[t as usize]], stroke);
        }
    }
    let radius = (inner.height() / (n as f32).sqrt() / 3.0).clamp(2.5, 6.0);
    let pointer = ui.input(|i| i.pointer.hover_pos());
    let mut hovered = None;
    for (s, &p) in at.iter().enumerate() {
        let s32 = s as u32;
        let fill = if g.goal[s] {
            theme::OK
        } else if plan.contains(&s32) {
            theme::ACCENT
        } else {
            theme::TEXT_WEAK
        };
        let r = if Some(s32) == start {
            radius * 1.6
        } else {
            radius
        };
        painter.circle_filled(p, r, fill);
        if g.seeds.contains(&s32) {
            painter.circle_stroke(p, r + 2.5, Stroke::new(1.5, theme::SPECIAL));
        }
        if pointer.is_some_and(|q| q.distance(p) <= r + 3.0) {
            hovered = Some(s32);
        }
    }
    legend(&painter, rect);
    if let Some(s) = hovered {
        let text = describe_state(g, s);
        let r = response.on_hover_ui_at_pointer(|ui| {
            ui.label(egui::RichText::new(text).color(theme::TEXT));
            ui.label(
                egui::RichText::new("click: the plan from this state")
                    .small()
                    .color(theme::TEXT_WEAK),
            );
        });
        if r.clicked() {
            return Some(Clicked(s));
        }
    }
    None
}

fn legend(painter: &egui::Painter, rect: Rect) {
    let mut x = rect.left() + 10.0;
    let y = rect.bottom() - 10.0;
    for (color, ring, label) in [
        (theme::TEXT_WEAK, false, "state"),
        (theme::TEXT_WEAK, true, "seed"),
        (theme::OK, false, "goal"),
        (theme::ACCENT, false, "plan"),
    ] {
        let p = pos2(x + 4.0, y);
        painter.circle_filled(p, 3.5, color);
        if ring {
            painter.circle_stroke(p, 6.0, Stroke::new(1.5, theme::SPECIAL));
        }
        let galley = painter.layout_no_wrap(
            label.to_string(),
            egui::FontId::proportional(11.0),
            theme::TEXT_WEAK,
        );
        let w = galley.size().x;
        painter.galley(pos2(x + 12.0, y - 7.0), galley, Color32::WHITE);
        x += w + 26.0;
    }
}

/// The machine that performs a plan step, as a link that opens it (empty: it takes no time).
pub fn machine_link(ui: &mut egui::Ui, cx: &PanelCx, machine: Option<&str>) {
    let Some(m) = machine else {
        ui.label("");
        return;
    };
    let r = ui
        .add(
            egui::Button::new(
                egui::RichText::new(format!("⏵ {m}"))
                    .small()
                    .color(theme::ACCENT),
            )
            .frame(false),
        )
        .on_hover_text("Open the machine that performs this step");
    crate::marks::name_widget(ui, &r, format!("open machine {m}"));
    if r.clicked() {
        cx.request(Request::OpenMachine(m.to_string()));
    }
}

/// `n` steps, in words (`1 step`, `4 steps`).
pub fn steps(n: usize) -> String {
    if n == 1 {
        "1 step".to_string()
    } else {
        format!("{n} steps")
    }
}
