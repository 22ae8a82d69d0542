//! The 2D view of a running scene: named locations, smart locations with their radius and
//! props, agents as labelled dots (who talks with whom, who takes part in which script and in
//! what role, what they just said), the selected agent's recent path and the routes agents are
//! walking. Click an agent to select
//! it; scroll to zoom, drag to pan, double-click to fit.

use super::model::{MapState, Preview};
use super::snapshot::Snapshot;
use crate::live::{self, agent_color};
use crate::theme;
use eframe::egui;
use egui::{Align2, FontId, Pos2, Rect, Sense, Shape, Stroke, Ui, Vec2, pos2, vec2};
use ensemble_runtime::hsm::AgentStatus;
use ensemble_sim::simulation::{AgentKind, LineKind};
use std::sync::Arc;

/// Seconds of scene time a line stays in its bubble.
const BUBBLE_SECONDS: f64 = 3.0;
/// Seconds of the selected agent's path drawn behind it.
const TRAIL_SECONDS: f64 = 12.0;

/// World metres to screen points: y grows upwards on the map.
#[derive(Clone, Copy)]
struct Map {
    center: [f64; 2],
    scale: f32,
    screen: Pos2,
}

impl Map {
    fn to_screen(self, p: [f64; 2]) -> Pos2 {
        self.screen
            + vec2(
                ((p[0] - self.center[0]) as f32) * self.scale,
                -((p[1] - self.center[1]) as f32) * self.scale,
            )
    }
}

/// The box around everything the scene places, metres.
fn bounds(s: &Snapshot) -> ([f64; 2], [f64; 2]) {
    let mut lo = [f64::INFINITY; 2];
    let mut hi = [f64::NEG_INFINITY; 2];
    let mut add = |p: [f64; 2], r: f64| {
        for k in 0..2 {
            lo[k] = lo[k].min(p[k] - r);
            hi[k] = hi[k].max(p[k] + r);
        }
    };
    for (_, p) in &s.world.locations {
        add(*p, 0.0);
    }
    for p in &s.world.places {
        add(p.at, p.radius);
    }
    for a in s.agents.iter() {
        if let Some(p) = a.at {
            add(p, 0.0);
        }
    }
    let nav = &s.world.nav;
    for line in nav.edges.iter().chain(nav.doors.iter().flat_map(|d| &d.1)) {
        add(line[0], 0.0);
        add(line[1], 0.0);
    }
    if !lo[0].is_finite() {
        return ([-5.0, -5.0], [5.0, 5.0]);
    }
    (lo, hi)
}

pub fn show(p: &mut Preview, ui: &mut Ui) {
    let Some(snapshot) = p.shown().cloned() else {
        return;
    };
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, theme::CANVAS);

    // Fit, then the user's zoom and pan.
    if response.double_clicked() {
        p.world_view = MapState::default();
    }
    if response.dragged() {
        p.world_view.pan += response.drag_delta();
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            p.world_view.zoom = (p.world_view.zoom * (1.0 + scroll * 0.002)).clamp(0.2, 20.0);
        }
    }
    let (lo, hi) = bounds(&snapshot);
    let size = [(hi[0] - lo[0]).max(4.0), (hi[1] - lo[1]).max(4.0)];
    let margin = 48.0;
    let fit = ((rect.width() - 2.0 * margin) / size[0] as f32)
        .min((rect.height() - 2.0 * margin) / size[1] as f32)
        .max(0.5);
    let map = Map {
        center: [(lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0],
        scale: fit * p.world_view.zoom,
        screen: rect.center() + p.world_view.pan,
    };

    grid(&painter, rect, map);
    let shut = nav_graph(&painter, &snapshot, map);
    places(&painter, &snapshot, map);

    // Who talks with whom, who takes part where.
    for a in snapshot.agents.iter() {
        let Some(at) = a.at else { continue };
        if let Some(b) = a.partner.and_then(|b| snapshot.agents.get(b.index()))
            && let Some(bt) = b.at
            && a.id < b.id
        {
            dashed(
                &painter,
                map.to_screen(at),
                map.to_screen(bt),
                Stroke::new(1.5, theme::SPEECH),
            );
        }
        if let Some((board, _)) = snapshot.board_of(&a.name)
            && let Some(place) = snapshot
                .world
                .places
                .iter()
                .find(|pl| pl.name == board.location)
        {
            painter.line_segment(
                [map.to_screen(at), map.to_screen(place.at)],
                Stroke::new(1.0, theme::SPECIAL.gamma_multiply(0.45)),
            );
        }
    }

    routes(&painter, &snapshot, map, p.selected.as_deref());

    // The selected agent's recent path.
    if let Some(sel) = &p.selected {
        let from = snapshot.time - TRAIL_SECONDS;
        let dt = snapshot.world.dt.max(1e-6);
        let first = (from / dt).max(0.0) as u64;
        let points: Vec<Pos2> = p
            .history
            .range(first, snapshot.tick)
            .filter_map(|s| s.agent(sel).and_then(|a| a.at))
            .map(|at| map.to_screen(at))
            .collect();
        if points.len() > 1 {
            let color = snapshot
                .agent(sel)
                .map_or(theme::ACCENT, |a| agent_color(a.id.index()));
            painter.add(Shape::line(
                points,
                Stroke::new(2.0, color.gamma_multiply(0.35)),
            ));
        }
    }

    // Agents: their marks first (labels keep clear of them), then their labels.
    let mut labels = Labels {
        view: rect.shrink(2.0),
        taken: Vec::new(),
    };
    let pointer = response.hover_pos();
    let mut hovered = None;
    let mut nearest: Option<(f32, Arc<str>)> = None;
    let mut shown = Vec::new();
    for a in snapshot.agents.iter() {
        let Some(at) = a.at else { continue };
        let c = map.to_screen(at);
        if !rect.expand(20.0).contains(c) {
            continue;
        }
        let selected = p.selected.as_deref() == Some(&*a.name);
        let r = if selected { 8.0 } else { 6.5 };
        mark(&painter, a, c, r, selected);
        labels
            .taken
            .push(Rect::from_center_size(c, Vec2::splat(2.0 * r + 4.0)));
        shown.push((a, c, r, selected));
        if let Some(ptr) = pointer {
            let d = ptr.distance(c);
            if d < 14.0 && nearest.as_ref().is_none_or(|(best, _)| d < *best) {
                nearest = Some((d, a.name.clone()));
                hovered = Some(a);
            }
        }
    }
    // The selected agent's label is placed first: it gets the best spot.
    shown.sort_by_key(|(a, c, _, selected)| (!*selected, (c.y * 10.0) as i64, a.id));
    for &(a, c, r, selected) in &shown {
        let color = agent_color(a.id.index());
        // Name, and what it does: its deepest state, or its role in a script.
        let doing = match snapshot.board_of(&a.name) {
            Some((b, part)) => format!("{} · {}", part.role, b.script),
            None => a
                .states
                .last()
                .map(|s| s.state.to_string())
                .unwrap_or_default(),
        };
        let name = painter.layout_no_wrap(
            a.name.to_string(),
            FontId::proportional(13.0),
            if selected { theme::TEXT } else { color },
        );
        let doing_color = if a.states.is_empty() {
            theme::SPECIAL
        } else {
            live::LIVE.gamma_multiply(0.85)
        };
        let doing = (!doing.is_empty())
            .then(|| painter.layout_no_wrap(doing, FontId::proportional(11.0), doing_color));
        let size = vec2(
            name.size()
                .x
                .max(doing.as_ref().map_or(0.0, |d| d.size().x)),
            name.size().y + doing.as_ref().map_or(0.0, |d| d.size().y),
        );
        let at = labels.place(c, r, size);
        painter.galley(at, name.clone(), theme::TEXT);
        if let Some(d) = doing {
            painter.galley(at + vec2(0.0, name.size().y), d, theme::TEXT);
        }
    }
    // Closed doors are named where the agents' labels leave room.
    for (mid, name) in shut {
        let galley = painter.layout_no_wrap(
            format!("{name} closed"),
            FontId::proportional(10.5),
            theme::ERROR,
        );
        let at = labels.place(mid, 6.0, galley.size());
        painter.galley(at, galley, theme::ERROR);
    }
    locations(&painter, &snapshot, map, &mut labels);

    // What was just said, in bubbles above the speakers.
    let bubbles: Vec<(Arc<str>, String)> = p
        .history
        .transcript_until(snapshot.tick)
        .rev()
        .take_while(|l| l.time >= snapshot.time - BUBBLE_SECONDS)
        .filter(|l| matches!(l.kind, LineKind::Said))
        .map(|l| (l.speaker.clone(), l.text.clone()))
        .collect();
    let mut said: Vec<Rect> = Vec::new();
    for &(a, c, r, _) in &shown {
        if let Some((_, text)) = bubbles.iter().find(|(who, _)| *who == a.name) {
            // Clear of every mark and label, unless that would lift it out of view.
            let avoid: Vec<Rect> = labels.taken.iter().chain(&said).copied().collect();
            said.push(bubble(
                &painter,
                c + vec2(0.0, -r - 6.0),
                text,
                &avoid,
                &said,
            ));
        }
    }

    if let Some(a) = hovered {
        let stack: Vec<String> = a
            .states
            .iter()
            .map(|s| format!("{}/{}", s.machine, s.state))
            .collect();
        let text = if stack.is_empty() {
            format!("{} ({:?})", a.name, a.kind)
        } else {
            format!("{}\n{}", a.name, stack.join("\n› "))
        };
        response.clone().on_hover_text_at_pointer(text);
    }
    if response.clicked() {
        p.select(nearest.map(|(_, n)| n));
    }

    // The selected agent, and what the graph does with it.
    let bar = Rect::from_min_size(rect.min + vec2(8.0, 6.0), vec2(rect.width() - 16.0, 24.0));
    ui.scope_builder(egui::UiBuilder::new().max_rect(bar), |ui| {
        ui.horizontal(|ui| follow_controls(p, ui, &snapshot));
    });

    // Scale and hints.
    let metres = nice_length(80.0 / map.scale);
    let bar = metres as f32 * map.scale;
    let base = rect.left_bottom() + vec2(12.0, -12.0);
    painter.line_segment(
        [base, base + vec2(bar, 0.0)],
        Stroke::new(1.5, theme::TEXT_WEAK),
    );
    painter.text(
        base + vec2(bar + 6.0, 0.0),
        Align2::LEFT_CENTER,
        format!("{metres} m"),
        FontId::proportional(11.0),
        theme::TEXT_WEAK,
    );
    if response.hovered() {
        painter.text(
            rect.right_bottom() + vec2(-10.0, -10.0),
            Align2::RIGHT_BOTTOM,
            "click an agent · scroll to zoom · drag to pan · double-click to fit",
            FontId::proportional(10.5),
            theme::TEXT_WEAK.gamma_multiply(0.7),
        );
    }
}

/// The selected agent's name, and the graph's options for it: follow it (open the machine it
/// runs), highlight only its states.
pub fn follow_controls(p: &mut Preview, ui: &mut Ui, snapshot: &Snapshot) {
    let Some(name) = p.selected.clone() else {
        return;
    };
    let color = snapshot
        .agent(&name)
        .map_or(theme::TEXT, |a| agent_color(a.id.index()));
    ui.label(egui::RichText::new(&*name).color(color).strong());
    ui.toggle_value(&mut p.follow, "Follow")
        .on_hover_text("Open the machine it runs in the graph, whenever that changes");
    let mut only = !p.highlight_all;
    if ui
        .toggle_value(&mut only, "Only its states")
        .on_hover_text("Highlight only this agent's states in the graph (else every agent's)")
        .changed()
    {
        p.highlight_all = !only;
    }
    if ui
        .small_button("×")
        .on_hover_text("Select no agent")
        .clicked()
    {
        p.select(None);
        p.follow = false;
        p.highlight_all = true;
    }
}

/// 1, 2 or 5 times a power of ten, near `x`.
fn nice_length(x: f32) -> f64 {
    let x = x.max(0.01) as f64;
    let p = 10f64.powf(x.log10().floor());
    let m = x / p;
    let k = if m < 1.5 {
        1.0
    } else if m < 3.5 {
        2.0
    } else if m < 7.5 {
        5.0
    } else {
        10.0
    };
    k * p
}

fn grid(painter: &egui::Painter, rect: Rect, map: Map) {
    let step = nice_length(60.0 / map.scale);
    let s = step as f32 * map.scale;
    if s < 8.0 {
        return;
    }
    let origin = map.to_screen([0.0, 0.0]);
    let stroke = Stroke::new(1.0, theme::GRID);
    let mut x = origin.x - ((origin.x - rect.left()) / s).floor() * s;
    while x < rect.right() {
        painter.line_segment([pos2(x, rect.top()), pos2(x, rect.bottom())], stroke);
        x += s;
    }
    let mut y = origin.y - ((origin.y - rect.top()) / s).floor() * s;
    while y < rect.bottom() {
        painter.line_segment([pos2(rect.left(), y), pos2(rect.right(), y)], stroke);
        y += s;
    }
}

fn places(painter: &egui::Painter, s: &Snapshot, map: Map) {
    for place in &s.world.places {
        let c = map.to_screen(place.at);
        let r = (place.radius as f32 * map.scale).max(10.0);
        let busy = s.boards.iter().any(|b| b.location == place.name);
        let color = theme::SPECIAL;
        painter.circle_filled(c, r, color.gamma_multiply(if busy { 0.14 } else { 0.07 }));
        dashed_circle(painter, c, r, Stroke::new(1.2, color.gamma_multiply(0.7)));
        painter.text(
            c + vec2(0.0, -r - 4.0),
            Align2::CENTER_BOTTOM,
            &*place.name,
            FontId::proportional(12.5),
            color,
        );
        // Props around the centre.
        let n = place.props.len().max(1) as f32;
        for (i, (name, _)) in place.props.iter().enumerate() {
            let angle = std::f32::consts::TAU * i as f32 / n - std::f32::consts::FRAC_PI_2;
            let at = c + Vec2::angled(angle) * (r * 0.55).min(40.0);
            painter.rect_stroke(
                Rect::from_center_size(at, Vec2::splat(7.0)),
                1.5,
                Stroke::new(1.0, color),
                egui::StrokeKind::Middle,
            );
            painter.text(
                at + vec2(0.0, 6.0),
                Align2::CENTER_TOP,
                &**name,
                FontId::proportional(10.0),
                color.gamma_multiply(0.8),
            );
        }
    }
}

/// The navigation graph under everything: its walkable edges faint, its doors green when open,
/// red and barred when closed. Returns where the closed doors are, to name them.
fn nav_graph(painter: &egui::Painter, s: &Snapshot, map: Map) -> Vec<(Pos2, Arc<str>)> {
    let mut shut = Vec::new();
    let nav = &s.world.nav;
    let edge = Stroke::new(1.0, theme::EDGE.gamma_multiply(0.3));
    for [a, b] in &nav.edges {
        painter.line_segment([map.to_screen(*a), map.to_screen(*b)], edge);
    }
    for (i, (name, lines)) in nav.doors.iter().enumerate() {
        let closed = s.doors.get(i).copied().unwrap_or(false);
        let color = if closed { theme::ERROR } else { theme::OK };
        for [a, b] in lines {
            let (a, b) = (map.to_screen(*a), map.to_screen(*b));
            painter.line_segment([a, b], Stroke::new(2.5, color.gamma_multiply(0.8)));
            if closed {
                // A bar across the middle: this way is shut.
                let mid = a + (b - a) * 0.5;
                let across = (b - a).normalized().rot90() * 7.0;
                painter.line_segment([mid - across, mid + across], Stroke::new(3.0, color));
                shut.push((mid, name.clone()));
            }
        }
    }
    shut
}

/// Where agents are going: the route each walking agent still has ahead (the planned path's
/// nodes, re-planned when a door shuts), dashed in its colour from where it stands to its
/// destination, which is ringed. With an agent selected only its route is drawn, brighter:
/// several walkers share the corridors, and their routes drawn together hide which is whose.
/// A walk without a navigation graph goes straight, and so does its line.
fn routes(painter: &egui::Painter, s: &Snapshot, map: Map, selected: Option<&str>) {
    for (a, route) in s.agents.iter().zip(s.routes.iter()) {
        let (Some(at), Some(route)) = (a.at, route) else {
            continue;
        };
        if selected.is_some_and(|sel| sel != &*a.name) {
            continue;
        }
        let ahead = route.ahead();
        let Some(&end) = ahead.last() else { continue };
        let points: Vec<Pos2> = std::iter::once(at)
            .chain(ahead.iter().copied())
            .map(|p| map.to_screen(p))
            .collect();
        let alpha = if selected.is_some() { 0.85 } else { 0.5 };
        let color = agent_color(a.id.index()).gamma_multiply(alpha);
        painter.extend(Shape::dashed_line(
            &points,
            Stroke::new(2.0, color),
            7.0,
            5.0,
        ));
        painter.circle_stroke(map.to_screen(end), 5.5, Stroke::new(1.5, color));
    }
}

/// Named locations: a small diamond each, and the name where it does not cover an agent's.
fn locations(painter: &egui::Painter, s: &Snapshot, map: Map, labels: &mut Labels) {
    for (name, at) in &s.world.locations {
        let c = map.to_screen(*at);
        diamond(painter, c, 4.0, theme::BOX_STROKE);
        let galley = painter.layout_no_wrap(
            name.to_string(),
            FontId::proportional(10.5),
            theme::TEXT_WEAK,
        );
        let rect =
            Rect::from_center_size(c + vec2(0.0, 7.0 + galley.size().y / 2.0), galley.size());
        if labels.free(rect) {
            labels.taken.push(rect);
            painter.galley(rect.min, galley, theme::TEXT_WEAK);
        }
    }
}

/// Places labels inside the view where they cover no mark and no other label.
struct Labels {
    view: Rect,
    taken: Vec<Rect>,
}

impl Labels {
    fn free(&self, r: Rect) -> bool {
        self.view.contains_rect(r) && !self.taken.iter().any(|t| t.intersects(r))
    }

    /// The top-left corner for a label of `size` beside a mark of radius `r` at `c`: right,
    /// left, below, above, then further down on the right until one is free.
    fn place(&mut self, c: Pos2, r: f32, size: Vec2) -> Pos2 {
        let gap = r + 5.0;
        let candidates = [
            pos2(c.x + gap, c.y - size.y / 2.0),
            pos2(c.x - gap - size.x, c.y - size.y / 2.0),
            pos2(c.x - size.x / 2.0, c.y + gap),
            pos2(c.x - size.x / 2.0, c.y - gap - size.y),
        ];
        let mut at = candidates
            .iter()
            .copied()
            .find(|p| self.free(Rect::from_min_size(*p, size)));
        let mut down = candidates[0];
        while at.is_none() && down.y < c.y + 200.0 {
            down.y += size.y / 2.0;
            if self.free(Rect::from_min_size(down, size)) {
                at = Some(down);
            }
        }
        let at = at.unwrap_or(candidates[0]);
        self.taken.push(Rect::from_min_size(at, size));
        at
    }
}

fn dashed(painter: &egui::Painter, a: Pos2, b: Pos2, stroke: Stroke) {
    painter.extend(Shape::dashed_line(&[a, b], stroke, 5.0, 4.0));
}

fn dashed_circle(painter: &egui::Painter, c: Pos2, r: f32, stroke: Stroke) {
    let n = ((r * 0.6) as usize).clamp(16, 96);
    let points: Vec<Pos2> = (0..=n)
        .map(|i| c + Vec2::angled(std::f32::consts::TAU * i as f32 / n as f32) * r)
        .collect();
    painter.extend(Shape::dashed_line(&points, stroke, 4.0, 4.0));
}

/// A speech bubble whose tail points down at `tip`, lifted above `avoid` (agents, labels and
/// the bubbles already drawn), or, where that would leave the view, above `bubbles` only;
/// returns where it went.
fn bubble(
    painter: &egui::Painter,
    tip: Pos2,
    text: &str,
    avoid: &[Rect],
    bubbles: &[Rect],
) -> Rect {
    let shown: String = if text.chars().count() > 48 {
        text.chars().take(46).chain("…".chars()).collect()
    } else {
        text.to_string()
    };
    let galley = painter.layout_no_wrap(shown, FontId::proportional(12.0), theme::TEXT);
    let size = galley.size() + vec2(12.0, 6.0);
    let start = Rect::from_center_size(tip + vec2(0.0, -size.y / 2.0 - 6.0), size);
    let lift = |others: &[Rect]| {
        let mut rect = start;
        while let Some(o) = others.iter().find(|o| o.intersects(rect)) {
            rect = rect.translate(vec2(0.0, o.top() - rect.bottom() - 3.0));
        }
        rect
    };
    let mut rect = lift(avoid);
    if rect.top() < painter.clip_rect().top() {
        rect = lift(bubbles);
    }
    painter.line_segment(
        [tip, pos2(tip.x, rect.bottom())],
        Stroke::new(1.0, theme::SPEECH.gamma_multiply(0.6)),
    );
    painter.rect_filled(rect, 6.0, theme::SPEECH_FILL);
    painter.rect_stroke(
        rect,
        6.0,
        Stroke::new(1.0, theme::SPEECH),
        egui::StrokeKind::Inside,
    );
    painter.galley(rect.min + vec2(6.0, 3.0), galley, theme::TEXT);
    rect
}

/// An agent's mark: a dot (machine agents solid, smart-location NPCs ringed), a square for a
/// proxy, a diamond for the player; a ring around the selected one.
fn mark(
    painter: &egui::Painter,
    a: &ensemble_sim::simulation::AgentView,
    c: Pos2,
    r: f32,
    selected: bool,
) {
    let color = agent_color(a.id.index());
    let active = matches!(a.status, AgentStatus::Running);
    let fill = if active {
        color
    } else {
        color.gamma_multiply(0.4)
    };
    if selected {
        painter.circle_stroke(c, r + 4.0, Stroke::new(2.0, theme::TEXT));
    }
    match a.kind {
        AgentKind::Proxy => {
            painter.rect_filled(Rect::from_center_size(c, Vec2::splat(r * 1.6)), 2.0, fill);
        }
        AgentKind::Player => {
            diamond(painter, c, r * 1.25, fill);
        }
        AgentKind::Ambient | AgentKind::Spawned => {
            painter.circle_filled(c, r, fill);
            painter.circle_stroke(c, r, Stroke::new(1.5, theme::CANVAS));
        }
        AgentKind::Machine | AgentKind::Social => {
            painter.circle_filled(c, r, fill);
        }
    }
}

/// A filled diamond centred on `c`, `d` from centre to corner.
fn diamond(painter: &egui::Painter, c: Pos2, d: f32, fill: egui::Color32) {
    painter.add(Shape::convex_polygon(
        vec![
            c + vec2(0.0, -d),
            c + vec2(d, 0.0),
            c + vec2(0.0, d),
            c + vec2(-d, 0.0),
        ],
        fill,
        Stroke::NONE,
    ));
}
