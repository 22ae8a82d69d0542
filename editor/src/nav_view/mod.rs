//! The navigation view (Hewlett ch. 4): a MovingAI map drawn as one texture with its PPA*
//! clusters coloured, built on a worker thread with progress; click two cells (or pick a
//! scenario) to see the PPA* path with its cost, expansions and time beside plain A*'s, and the
//! scenario's optimal length.
//!
//! It is a view, not an asset editor: its "document" is [`NavSettings`] (which map, how it is
//! clustered and shown, which cells are picked), so it keeps the panels' shape (`ui` edits the
//! value and says whether it changed, `reveal` selects).

pub mod paint;
pub mod worker;

use crate::marks::name_widget;
use crate::panel::PanelCx;
use crate::theme;
use eframe::egui;
use egui::{Color32, Pos2, Rect, RichText, Sense, Stroke, Ui, Vec2, pos2, vec2};
use ensemble_compiler::formats::nav::{BuildReport, NavData, Stage};
use ensemble_compiler::formats::nav::{GridMap, Scenario};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use worker::{Answer, Msg, Worker};

/// The view's value: what is shown. Saved by a host as it likes (it is plain data).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NavSettings {
    pub map: Option<PathBuf>,
    /// The scenario file; `None`: `MAP.map.scen` beside the map, if it exists.
    pub scen: Option<PathBuf>,
    /// Largest leaf cluster; `None`: about 64 leaves ([`worker::auto_leaf_size`]).
    pub leaf_size: Option<u32>,
    /// The depth whose clusters are coloured; `None`: the leaves.
    pub level: Option<u32>,
    pub start: Option<(u32, u32)>,
    pub goal: Option<(u32, u32)>,
    /// The scenario picked (index into the `.scen` file's queries).
    pub scenario: Option<usize>,
    /// Also draw plain A*'s path.
    pub show_astar: bool,
}

impl NavSettings {
    pub fn open(map: PathBuf) -> Self {
        NavSettings {
            map: Some(map),
            show_astar: true,
            ..Default::default()
        }
    }

    fn scen_path(&self) -> Option<PathBuf> {
        self.scen.clone().or_else(|| {
            let map = self.map.as_ref()?;
            let beside = PathBuf::from(format!("{}.scen", map.display()));
            beside.is_file().then_some(beside)
        })
    }
}

/// What [`NavView::reveal`] shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NavTarget {
    /// A map cell: centred and marked.
    Cell(u32, u32),
    /// A scenario of the `.scen` list: selected, its path shown.
    Scenario(usize),
}

/// Answers a request for a map file.
pub type MapPicker = Box<dyn FnMut() -> crate::file_dialog::Answer>;

/// What "Open map…" asks.
pub fn map_ask() -> crate::file_dialog::Ask {
    crate::file_dialog::Ask::new("Open a MovingAI map", crate::file_dialog::Pick::File)
        .filter("MovingAI map", &["map"])
}

/// What the worker has told about the map being shown.
struct Loaded {
    key: (PathBuf, Option<PathBuf>, Option<u32>),
    worker: Worker,
    grid: Option<Arc<GridMap>>,
    scenarios: Option<Result<Vec<Scenario>, String>>,
    stage: Option<Stage>,
    data: Option<Arc<NavData>>,
    report: Option<(BuildReport, Duration)>,
    error: Option<String>,
    asked: Option<(worker::Cell, worker::Cell)>,
    answer: Option<Answer>,
}

/// The navigation view: view state only (the map's texture, pan and zoom, the worker).
pub struct NavView {
    loaded: Option<Loaded>,
    texture: Option<(egui::TextureHandle, (usize, Option<u32>))>,
    /// Screen offset of cell (0, 0) from the canvas' corner, and points per cell.
    offset: Vec2,
    zoom: f32,
    fit: bool,
    canvas: Rect,
    hover: Option<(u32, u32)>,
    marked: Option<(u32, u32)>,
    center_on: Option<(u32, u32)>,
    pending_scenario: Option<usize>,
    /// A scenario to bring into the list's view, and the list's height last frame.
    scroll_to_scenario: Option<usize>,
    list_height: f32,
    /// The leaf size being typed or dragged, applied when the designer lets go.
    leaf_edit: Option<u32>,
    picker: MapPicker,
    /// "Open map…" asked by a typed path (there is no system dialog).
    typed: Option<crate::file_dialog::Typed>,
}

impl Default for NavView {
    fn default() -> Self {
        Self::new()
    }
}

fn native_picker() -> MapPicker {
    let mut dialogs = crate::file_dialog::native();
    Box::new(move || dialogs(&map_ask()))
}

fn fmt_duration(d: Duration) -> String {
    let us = d.as_secs_f64() * 1e6;
    if us < 1000.0 {
        format!("{us:.0} µs")
    } else if us < 1e6 {
        format!("{:.2} ms", us / 1000.0)
    } else {
        format!("{:.2} s", us / 1e6)
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

impl NavView {
    pub fn new() -> Self {
        Self::with_picker(native_picker())
    }

    /// A view that asks `picker` for map files (tests; a host with its own dialogs).
    pub fn with_picker(picker: MapPicker) -> Self {
        NavView {
            loaded: None,
            texture: None,
            offset: Vec2::ZERO,
            zoom: 1.0,
            fit: true,
            canvas: Rect::NOTHING,
            hover: None,
            marked: None,
            center_on: None,
            pending_scenario: None,
            scroll_to_scenario: None,
            list_height: 300.0,
            leaf_edit: None,
            picker,
            typed: None,
        }
    }

    pub fn reveal(&mut self, target: NavTarget) {
        match target {
            NavTarget::Cell(x, y) => {
                self.marked = Some((x, y));
                self.center_on = Some((x, y));
            }
            NavTarget::Scenario(i) => {
                self.pending_scenario = Some(i);
                self.scroll_to_scenario = Some(i);
            }
        }
    }

    /// Whether the hierarchy of the shown map is built.
    pub fn ready(&self) -> bool {
        self.loaded.as_ref().is_some_and(|l| l.data.is_some())
    }

    /// Why the map could not be shown, if it could not.
    pub fn error(&self) -> Option<&str> {
        self.loaded.as_ref().and_then(|l| l.error.as_deref())
    }

    /// The latest answer for the picked cells.
    pub fn answer(&self) -> Option<&Answer> {
        self.loaded.as_ref().and_then(|l| l.answer.as_ref())
    }

    /// The scenarios of the `.scen` file, once read.
    pub fn scenarios(&self) -> &[Scenario] {
        match self.loaded.as_ref().and_then(|l| l.scenarios.as_ref()) {
            Some(Ok(s)) => s,
            _ => &[],
        }
    }

    /// Where cell `(x, y)`'s centre was drawn in the last frame.
    pub fn cell_center(&self, x: u32, y: u32) -> Option<Pos2> {
        self.canvas.is_positive().then(|| {
            self.canvas.min + self.offset + vec2(x as f32 + 0.5, y as f32 + 0.5) * self.zoom
        })
    }

    fn cell_at(&self, grid: &GridMap, p: Pos2) -> Option<(u32, u32)> {
        let c = (p - self.canvas.min - self.offset) / self.zoom;
        (c.x >= 0.0 && c.y >= 0.0 && (c.x as u32) < grid.width && (c.y as u32) < grid.height)
            .then_some((c.x as u32, c.y as u32))
    }

    /// Draws the view; returns whether it changed `value`.
    pub fn ui(&mut self, ui: &mut Ui, value: &mut NavSettings, _cx: &PanelCx<'_>) -> bool {
        let before = value.clone();
        self.sync(ui.ctx(), value);
        // A scenario asked for before the `.scen` file was read waits for it.
        if !self.scenarios().is_empty()
            && let Some(i) = self.pending_scenario.take()
        {
            self.pick_scenario(value, i);
        }
        self.ask(value);
        if self
            .loaded
            .as_ref()
            .is_some_and(|l| l.data.is_none() && l.error.is_none())
        {
            ui.ctx().request_repaint_after(Duration::from_millis(100));
        }
        crate::marks::docked(egui::Panel::right(ui.id().with("nav-side")), 330.0, 260.0)
            .show(ui, |ui| self.side(ui, value));
        self.canvas_ui(ui, value);
        *value != before
    }

    /// Starts (or restarts) the worker when the map or the clustering changed; takes its news.
    fn sync(&mut self, ctx: &egui::Context, value: &NavSettings) {
        let key = value
            .map
            .clone()
            .map(|m| (m, value.scen_path(), value.leaf_size));
        let current = self.loaded.as_ref().map(|l| Some(&l.key) == key.as_ref());
        if current != Some(true) {
            self.texture = None;
            self.loaded = key.map(|key| {
                let wake = ctx.clone();
                let same_map = self.loaded.as_ref().is_some_and(|l| l.key.0 == key.0);
                if !same_map {
                    self.fit = true;
                }
                Loaded {
                    worker: Worker::start(key.0.clone(), key.1.clone(), key.2, move || {
                        wake.request_repaint()
                    }),
                    key,
                    grid: None,
                    scenarios: None,
                    stage: None,
                    data: None,
                    report: None,
                    error: None,
                    asked: None,
                    answer: None,
                }
            });
        }
        let Some(l) = &mut self.loaded else { return };
        for m in l.worker.poll() {
            match m {
                Msg::Map(g) => l.grid = Some(g),
                Msg::Scenarios(s) => l.scenarios = Some(s),
                Msg::Stage(s) => l.stage = Some(s),
                Msg::Built(d, r, t) => {
                    l.data = Some(d);
                    l.report = Some((r, t));
                    self.texture = None;
                }
                Msg::Failed(e) => l.error = Some(e),
                Msg::Answer(a) => {
                    if l.asked == Some((a.start, a.goal)) {
                        l.answer = Some(a);
                    }
                }
            }
        }
    }

    fn ask(&mut self, value: &NavSettings) {
        let Some(l) = &mut self.loaded else { return };
        let pair = value.start.zip(value.goal);
        if l.data.is_none() || pair == l.asked {
            return;
        }
        l.asked = pair;
        l.answer = None;
        if let Some((s, g)) = pair {
            l.worker.query(s, g);
        }
    }

    fn pick_scenario(&mut self, value: &mut NavSettings, i: usize) {
        if let Some(s) = self.scenarios().get(i).cloned() {
            value.scenario = Some(i);
            value.start = Some(s.start);
            value.goal = Some(s.goal);
            self.center_on = None;
        }
    }

    fn side(&mut self, ui: &mut Ui, value: &mut NavSettings) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Navigation").strong().color(theme::TEXT));
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.button("Open map…").clicked() {
                    match (self.picker)() {
                        crate::file_dialog::Answer::Path(p) => {
                            *value = NavSettings {
                                show_astar: value.show_astar,
                                ..NavSettings::open(p)
                            };
                        }
                        crate::file_dialog::Answer::Cancelled => {}
                        crate::file_dialog::Answer::NoDialog => {
                            self.typed = Some(crate::file_dialog::Typed::new(map_ask(), None));
                        }
                    }
                }
            });
        });
        if let Some(typed) = self.typed.as_mut()
            && let Some(answer) = typed.show(ui.ctx())
        {
            self.typed = None;
            if let Some(p) = answer {
                *value = NavSettings {
                    show_astar: value.show_astar,
                    ..NavSettings::open(p)
                };
            }
        }
        let Some(map) = value.map.clone() else {
            ui.label(
                RichText::new(
                    "No map open. Open a MovingAI .map file (its .map.scen beside it is read too).",
                )
                .color(theme::TEXT_WEAK),
            );
            return;
        };
        ui.label(
            RichText::new(map.file_name().map_or_else(
                || map.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            ))
            .color(theme::ACCENT),
        )
        .on_hover_text(map.display().to_string());
        let Some(l) = &self.loaded else { return };
        if let Some(e) = &l.error {
            ui.label(RichText::new(format!("✖ {e}")).color(theme::ERROR));
            return;
        }
        if let Some(g) = &l.grid {
            let open = g.passable.iter().filter(|p| **p).count() as u64;
            ui.label(
                RichText::new(format!(
                    "{} × {} cells, {} passable",
                    g.width,
                    g.height,
                    thousands(open)
                ))
                .color(theme::TEXT_WEAK),
            );
        }
        ui.separator();
        // The hierarchy: progress while building, its shape once built.
        match (&l.data, &l.report) {
            (Some(data), Some((r, took))) => {
                let h = &data.hierarchy;
                ui.label(RichText::new("PPA* hierarchy").strong().color(theme::TEXT));
                ui.label(RichText::new(format!(
                    "{} clusters ({} leaves of ≤ {} nodes) on {} levels\n{} border nodes · {} table entries · {:.1} MiB\nbuilt in {} (METIS {:.2} s, tables {:.2} s)",
                    r.clusters, r.leaves, r.leaf_size, r.levels,
                    thousands(r.border_nodes as u64), thousands(r.table_entries as u64),
                    r.data_bytes as f64 / (1024.0 * 1024.0),
                    fmt_duration(*took), r.partition_secs, r.tables_secs
                )).color(theme::TEXT_WEAK));
                let mut level = value.level;
                let label = |l: Option<u32>| match l {
                    None => format!("Leaf clusters ({})", h.leaf_count()),
                    Some(d) => format!(
                        "Level {d} ({} clusters)",
                        paint::shown_clusters(h, Some(d)).len()
                    ),
                };
                ui.horizontal(|ui| {
                    ui.label(RichText::new("Colour by").color(theme::TEXT_WEAK));
                    let r = egui::ComboBox::from_id_salt("nav-level")
                        .selected_text(label(level))
                        .show_ui(ui, |ui| {
                            ui.selectable_value(&mut level, None, label(None));
                            for d in 0..h.levels() {
                                ui.selectable_value(&mut level, Some(d), label(Some(d)));
                            }
                        });
                    name_widget(ui, &r.response, "cluster level");
                });
                if level != value.level {
                    value.level = level;
                    self.texture = None;
                }
            }
            _ => {
                ui.horizontal(|ui| {
                    ui.add(egui::Spinner::new().size(14.0));
                    match l.stage {
                        Some(Stage::Tables { done, total }) => {
                            ui.label(RichText::new("Distance tables…").color(theme::TEXT));
                            ui.add(
                                egui::ProgressBar::new(done as f32 / total.max(1) as f32)
                                    .show_percentage()
                                    .desired_width(150.0),
                            );
                        }
                        Some(Stage::Clustering) => {
                            ui.label(RichText::new("Clustering with METIS…").color(theme::TEXT));
                        }
                        None => {
                            ui.label(RichText::new("Reading the map…").color(theme::TEXT));
                        }
                    }
                });
            }
        }
        ui.horizontal(|ui| {
            ui.label(RichText::new("Leaf size").color(theme::TEXT_WEAK))
                .on_hover_text("Largest leaf cluster, in nodes. Auto: about 64 leaves.");
            let mut auto = value.leaf_size.is_none();
            if ui.checkbox(&mut auto, "auto").changed() {
                value.leaf_size = if auto {
                    None
                } else {
                    Some(l.report.as_ref().map_or(1000, |r| r.0.leaf_size))
                };
            }
            if let Some(n) = &mut value.leaf_size {
                // Rebuild once the value is set, not on every step of a drag or keystroke.
                let mut v = self.leaf_edit.unwrap_or(*n);
                let r = ui.add(egui::DragValue::new(&mut v).range(16..=100_000).speed(16));
                name_widget(ui, &r, "leaf size");
                if r.dragged() || r.has_focus() {
                    self.leaf_edit = Some(v);
                } else {
                    *n = v;
                    self.leaf_edit = None;
                }
            }
        });
        ui.separator();
        self.path_section(ui, value);
        ui.separator();
        self.scenario_list(ui, value);
    }

    fn path_section(&mut self, ui: &mut Ui, value: &mut NavSettings) {
        ui.horizontal(|ui| {
            ui.label(RichText::new("Path").strong().color(theme::TEXT));
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.small_button("Clear").clicked() {
                    value.start = None;
                    value.goal = None;
                    value.scenario = None;
                }
                ui.checkbox(&mut value.show_astar, "show A*");
            });
        });
        let cell =
            |c: Option<(u32, u32)>| c.map_or("—".to_string(), |(x, y)| format!("({x}, {y})"));
        ui.label(
            RichText::new(format!(
                "start {}   goal {}",
                cell(value.start),
                cell(value.goal)
            ))
            .color(theme::TEXT),
        );
        if value.start.is_none() || value.goal.is_none() {
            ui.label(
                RichText::new(
                    "Click a cell for the start, another for the goal; or pick a scenario below.",
                )
                .color(theme::TEXT_WEAK),
            );
            return;
        }
        let Some(l) = &self.loaded else { return };
        let Some(a) = &l.answer else {
            let waiting = if l.data.is_some() {
                "searching…"
            } else {
                "waiting for the hierarchy…"
            };
            ui.horizontal(|ui| {
                ui.add(egui::Spinner::new().size(12.0));
                ui.label(RichText::new(waiting).color(theme::TEXT_WEAK));
            });
            return;
        };
        let line = |ui: &mut Ui,
                    name: &str,
                    r: &Result<Option<ensemble_runtime::nav::PathResult>, String>,
                    t: Duration,
                    color: Color32| {
            let text = match r {
                Ok(Some(p)) => format!(
                    "{name}: cost {:.4} · {} steps · {} expanded · {}",
                    p.cost,
                    p.path.len().saturating_sub(1),
                    thousands(p.expanded),
                    fmt_duration(t)
                ),
                Ok(None) => format!(
                    "{name}: no path (the cells are not connected) · {}",
                    fmt_duration(t)
                ),
                Err(e) => format!("{name}: {e}"),
            };
            ui.label(RichText::new(text).color(color));
        };
        line(ui, "PPA*", &a.ppa, a.ppa_time, theme::ACCENT);
        line(ui, "A*", &a.astar, a.astar_time, theme::WARNING);
        if let (Ok(Some(p)), Ok(Some(q))) = (&a.ppa, &a.astar) {
            if (p.cost - q.cost).abs() < 1e-9 {
                let speed = q.expanded as f64 / p.expanded.max(1) as f64;
                ui.label(
                    RichText::new(format!(
                        "✔ same cost; PPA* expanded {speed:.1}× fewer nodes"
                    ))
                    .color(theme::OK),
                );
            } else {
                ui.label(
                    RichText::new(format!("✖ the costs differ by {:.6}", p.cost - q.cost))
                        .color(theme::ERROR),
                );
            }
        }
        if let Some(s) = value.scenario.and_then(|i| self.scenarios().get(i))
            && (Some(s.start), Some(s.goal)) == (value.start, value.goal)
            && let Ok(Some(p)) = &a.ppa
        {
            let ok = (p.cost - s.optimal).abs() < 1e-4;
            ui.label(
                RichText::new(format!(
                    "{} scenario optimum {:.4} (line {} of the .scen)",
                    if ok { "✔" } else { "✖" },
                    s.optimal,
                    s.line
                ))
                .color(if ok { theme::OK } else { theme::ERROR }),
            );
        }
    }

    fn scenario_list(&mut self, ui: &mut Ui, value: &mut NavSettings) {
        let scenarios = match self.loaded.as_ref().and_then(|l| l.scenarios.as_ref()) {
            None => {
                ui.label(
                    RichText::new("No scenario file beside the map (MAP.map.scen).")
                        .color(theme::TEXT_WEAK),
                );
                return;
            }
            Some(Err(e)) => {
                ui.label(RichText::new(format!("✖ {e}")).color(theme::ERROR));
                return;
            }
            Some(Ok(s)) => s.clone(),
        };
        ui.label(
            RichText::new(format!("Scenarios ({})", scenarios.len()))
                .strong()
                .color(theme::TEXT),
        );
        let row_height = 20.0;
        let mut pick = None;
        ui.spacing_mut().item_spacing.y = 0.0;
        let mut area = egui::ScrollArea::vertical()
            .id_salt("nav-scenarios")
            .auto_shrink([false, false]);
        // Asked again each frame until the row is in view once the panel above has its final
        // height (the hierarchy built, the path shown).
        let settled = self
            .loaded
            .as_ref()
            .is_some_and(|l| l.answer.is_some() || l.error.is_some());
        if let Some(i) = self.scroll_to_scenario {
            let step = row_height + ui.spacing().item_spacing.y;
            // Centred in the list.
            let top = i as f32 * step - (self.list_height - step) * 0.5;
            area = area.vertical_scroll_offset(top.max(0.0));
        }
        let out = area.show_rows(ui, row_height, scenarios.len(), |ui, rows| {
            for i in rows {
                let s = &scenarios[i];
                let text = format!(
                    "{:>4}  b{:<3} ({},{}) -> ({},{})  {:.2}",
                    i + 1,
                    s.bucket,
                    s.start.0,
                    s.start.1,
                    s.goal.0,
                    s.goal.1,
                    s.optimal
                );
                // Drawn at exactly `row_height`, so the virtual list's arithmetic holds and
                // every row can be scrolled to.
                let selected = value.scenario == Some(i);
                let (rect, r) =
                    ui.allocate_exact_size(vec2(ui.available_width(), row_height), Sense::click());
                r.widget_info(|| {
                    egui::WidgetInfo::selected(
                        egui::WidgetType::SelectableLabel,
                        true,
                        selected,
                        &text,
                    )
                });
                let fill = if selected {
                    ui.visuals().selection.bg_fill
                } else if r.hovered() {
                    theme::BOX_FILL_HOVER
                } else {
                    Color32::TRANSPARENT
                };
                if self.scroll_to_scenario == Some(i) {
                    ui.scroll_to_rect(rect, Some(egui::Align::Center));
                    if settled && ui.clip_rect().contains_rect(rect) {
                        self.scroll_to_scenario = None;
                    }
                }
                ui.painter().rect_filled(rect, 3.0, fill);
                ui.painter().text(
                    rect.left_center() + vec2(4.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    &text,
                    egui::FontId::monospace(12.0),
                    if selected {
                        Color32::WHITE
                    } else {
                        theme::TEXT
                    },
                );
                name_widget(ui, &r, format!("scenario {}", i + 1));
                if r.clicked() {
                    pick = Some(i);
                }
            }
        });
        self.list_height = out.inner_rect.height();
        if let Some(i) = pick {
            self.pick_scenario(value, i);
        }
    }

    fn canvas_ui(&mut self, ui: &mut Ui, value: &mut NavSettings) {
        let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
        self.canvas = rect;
        let painter = ui.painter_at(rect);
        painter.rect_filled(rect, 0.0, theme::CANVAS);
        name_widget(ui, &response, "map");
        let Some(grid) = self.loaded.as_ref().and_then(|l| l.grid.clone()) else {
            let text = if self.loaded.as_ref().is_some_and(|l| l.error.is_some()) {
                "The map could not be read."
            } else if value.map.is_some() {
                "Reading the map…"
            } else {
                "Open a map to see it here."
            };
            painter.text(
                rect.center(),
                egui::Align2::CENTER_CENTER,
                text,
                egui::FontId::proportional(15.0),
                theme::TEXT_WEAK,
            );
            return;
        };
        let size = vec2(grid.width as f32, grid.height as f32);
        if self.fit {
            self.zoom = (rect.width() / size.x).min(rect.height() / size.y) * 0.96;
            self.offset = (rect.size() - size * self.zoom) * 0.5;
            self.fit = false;
        }
        if let Some((x, y)) = self.center_on.take() {
            self.zoom = self.zoom.max(6.0);
            self.offset = rect.size() * 0.5 - vec2(x as f32 + 0.5, y as f32 + 0.5) * self.zoom;
        }
        // Zoom around the pointer; pan by dragging.
        if response.hovered() {
            let (scroll, pinch) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
            let factor = pinch * (scroll * 0.0025).exp();
            if factor != 1.0
                && let Some(p) = response.hover_pos()
            {
                let new_zoom = (self.zoom * factor).clamp(0.2, 80.0);
                let anchor = (p - rect.min - self.offset) / self.zoom;
                self.zoom = new_zoom;
                self.offset = p - rect.min - anchor * self.zoom;
            }
        }
        if response.dragged() {
            self.offset += response.drag_delta();
        }
        // A click (not a drag) picks a cell: start, then goal, then a new start.
        if response.clicked()
            && let Some(p) = response.interact_pointer_pos()
            && let Some(c) = self.cell_at(&grid, p)
            && grid.passable[(c.1 * grid.width + c.0) as usize]
        {
            if value.start.is_none() || value.goal.is_some() {
                value.start = Some(c);
                value.goal = None;
            } else {
                value.goal = Some(c);
            }
            value.scenario = None;
        }
        if response.double_clicked() {
            self.fit = true;
        }
        self.hover = response.hover_pos().and_then(|p| self.cell_at(&grid, p));

        // The map texture, rebuilt only when the hierarchy or the level changes.
        let data = self.loaded.as_ref().and_then(|l| l.data.clone());
        let key = (
            data.as_ref().map_or(0, |d| Arc::as_ptr(d) as usize),
            value.level,
        );
        if self.texture.as_ref().is_none_or(|(_, k)| *k != key) {
            let image = paint::image(&grid, data.as_deref(), value.level);
            let tex = ui
                .ctx()
                .load_texture("nav-map", image, egui::TextureOptions::NEAREST);
            self.texture = Some((tex, key));
        }
        let map_rect = Rect::from_min_size(rect.min + self.offset, size * self.zoom);
        if let Some((tex, _)) = &self.texture {
            painter.image(
                tex.id(),
                map_rect,
                Rect::from_min_max(pos2(0.0, 0.0), pos2(1.0, 1.0)),
                Color32::WHITE,
            );
        }
        let center = |c: (u32, u32)| {
            rect.min + self.offset + vec2(c.0 as f32 + 0.5, c.1 as f32 + 0.5) * self.zoom
        };
        let line_width = (self.zoom * 0.35).clamp(1.5, 4.0);
        if let (Some(a), Some(data)) = (self.loaded.as_ref().and_then(|l| l.answer.as_ref()), &data)
            && let Some(g) = &data.graph.grid
        {
            let points = |p: &ensemble_runtime::nav::PathResult| -> Vec<Pos2> {
                p.path.iter().map(|&v| center(g.cell(v))).collect()
            };
            if value.show_astar
                && let Ok(Some(p)) = &a.astar
            {
                painter.add(egui::Shape::line(
                    points(p),
                    Stroke::new(line_width + 2.5, theme::WARNING.gamma_multiply(0.8)),
                ));
            }
            if let Ok(Some(p)) = &a.ppa {
                painter.add(egui::Shape::line(
                    points(p),
                    Stroke::new(line_width, Color32::WHITE),
                ));
            }
        }
        let marker = |c: (u32, u32), color: Color32, label: &str| {
            let p = center(c);
            let r = (self.zoom * 0.6).clamp(4.0, 12.0);
            painter.circle(p, r, color, Stroke::new(1.5, Color32::BLACK));
            painter.text(
                p + vec2(r + 3.0, -r - 3.0),
                egui::Align2::LEFT_BOTTOM,
                label,
                egui::FontId::proportional(13.0),
                color,
            );
        };
        if let Some(s) = value.start {
            marker(s, theme::OK, "start");
        }
        if let Some(g) = value.goal {
            marker(g, theme::ERROR, "goal");
        }
        if let Some(m) = self.marked {
            let p = center(m);
            let r = (self.zoom * 1.5).max(10.0);
            painter.circle_stroke(p, r, Stroke::new(2.0, theme::ACCENT));
        }
        // Where the pointer is, and what is there.
        if let Some((x, y)) = self.hover {
            let mut text = format!("({x}, {y})");
            let open = grid.passable[(y * grid.width + x) as usize];
            if !open {
                text.push_str(" blocked");
            } else if let Some(d) = &data
                && let Some(v) = d.graph.grid.as_ref().and_then(|g| g.node_at(x, y))
            {
                let h = &d.hierarchy;
                let c = paint::cluster_at(h, v, value.level);
                let cl = &h.clusters[c as usize];
                let border = cl.border.iter().any(|&b| cl.members[b as usize] == v);
                text.push_str(&format!(
                    " · node {v} · cluster {c} (depth {}){}",
                    cl.depth,
                    if border { " · border node" } else { "" }
                ));
            }
            let cell = Rect::from_min_size(
                rect.min + self.offset + vec2(x as f32, y as f32) * self.zoom,
                Vec2::splat(self.zoom),
            );
            if self.zoom >= 4.0 {
                painter.rect_stroke(
                    cell,
                    0.0,
                    Stroke::new(1.0, Color32::WHITE),
                    egui::StrokeKind::Outside,
                );
            }
            painter.text(
                rect.left_bottom() + vec2(8.0, -8.0),
                egui::Align2::LEFT_BOTTOM,
                text,
                egui::FontId::monospace(12.5),
                theme::TEXT,
            );
        }
        painter.text(
            rect.right_bottom() + vec2(-8.0, -8.0),
            egui::Align2::RIGHT_BOTTOM,
            "scroll: zoom · drag: pan · double-click: fit",
            egui::FontId::proportional(12.0),
            theme::TEXT_WEAK,
        );
    }
}
