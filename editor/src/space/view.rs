//! The graph of one HMM space on egui-snarl, rebuilt from the asset whenever it changes (the
//! snarl is a view, as in the machine editor; see [`crate::graph`]).
//!
//! Nodes: the initial-state marker, one node per state, and a red node for each transition
//! target that names no state. Each state lists its row p(s' | s) as output pins — the
//! probability (drag it, or double-click to type) and where it goes; a transition to itself is
//! drawn as `↺ stays` rather than as a wire through its own node — then a `+` pin that adds a
//! transition when dragged to a state or a new state when dropped on empty space. The footer
//! shows the row's sum: green at 1, in the warning colour otherwise, with a button that
//! normalises it. The disable state of a model dependency is marked and says what engages the
//! space. Each wire carries its probability at its middle, editable there too.

use super::Edit;
use super::ops::{self, From};
use crate::analysis::Located;
use crate::graph::edges::{self, Wires};
use crate::graph::{self, Camera, clickable};
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::emath::TSTransform;
use egui::{Color32, CornerRadius, Margin, Pos2, Rect, RichText, Stroke, Ui, pos2, vec2};
use egui_snarl::ui::{AnyPins, PinInfo, PinShape, SnarlViewer, SnarlWidget};
use egui_snarl::{InPin, InPinId, NodeId, OutPin, OutPinId, Snarl};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::front::ron::locate::PathSeg;
use ensemble_compiler::hpmm::assets::{ExpectAsset, ShapeAsset, SpaceAsset, SpaceStateAsset};
use std::collections::{BTreeSet, HashMap};

#[derive(Clone, Debug, PartialEq)]
pub enum SNode {
    Entry,
    State(usize),
    Missing(String),
}

const NODE_MAX_WIDTH: f32 = 250.0;

/// About the size of a new state's node.
const NEW_NODE: egui::Vec2 = vec2(180.0, 120.0);

/// Problems per state, per row and per transition.
#[derive(Default)]
pub struct Marks {
    pub states: HashMap<String, (Severity, Vec<String>)>,
    /// `transition-not-normalized` and other problems with the row as a whole.
    pub rows: HashMap<String, Severity>,
    pub transitions: HashMap<(String, usize), Severity>,
}

impl Marks {
    pub fn of(diagnostics: &[Located]) -> Marks {
        let mut marks = Marks::default();
        for l in diagnostics {
            let sev = l.severity();
            if sev == Severity::Info || l.list() != Some("states") {
                continue;
            }
            let Some(name) = &l.item else { continue };
            let e = marks
                .states
                .entry(name.clone())
                .or_insert((sev, Vec::new()));
            e.0 = e.0.min(sev);
            e.1.push(format!(
                "{}: {}",
                l.diagnostic.code.as_str(),
                l.diagnostic.message
            ));
            match l.below_item() {
                [PathSeg::Field(f), PathSeg::Index(t), ..] if f == "to" => {
                    let t = marks.transitions.entry((name.clone(), *t)).or_insert(sev);
                    *t = (*t).min(sev);
                }
                [PathSeg::Field(f)] if f == "to" => {
                    let r = marks.rows.entry(name.clone()).or_insert(sev);
                    *r = (*r).min(sev);
                }
                _ => {}
            }
            if l.diagnostic.code.as_str() == "transition-not-normalized" {
                let r = marks.rows.entry(name.clone()).or_insert(sev);
                *r = (*r).min(sev);
            }
        }
        marks
    }
}

/// The space graph's own state.
pub struct SpaceView {
    snarl: Snarl<SNode>,
    built: Option<SpaceAsset>,
    auto: HashMap<String, [f32; 2]>,
    pub selection: BTreeSet<String>,
    snarl_selection: Vec<NodeId>,
    camera: Camera,
    rects: HashMap<NodeId, Rect>,
    pins: HashMap<(NodeId, Option<usize>), f32>,
    wires: Wires,
    id: egui::Id,
}

impl Default for SpaceView {
    fn default() -> Self {
        SpaceView {
            snarl: Snarl::new(),
            built: None,
            auto: HashMap::new(),
            selection: BTreeSet::new(),
            snarl_selection: Vec::new(),
            camera: Camera::default(),
            rects: HashMap::new(),
            pins: HashMap::new(),
            wires: Wires::default(),
            id: egui::Id::new("space-graph"),
        }
    }
}

/// What the view needs besides the space.
pub struct ViewCx<'a> {
    pub marks: &'a Marks,
    pub layout: &'a Layout,
}

/// About how big a state's node is drawn (for the auto-layout and fitting before it is drawn).
pub fn estimated_size(st: &SpaceStateAsset) -> [f32; 2] {
    let chars = |t: &str| t.chars().count() as f32;
    let expects: f32 = st
        .expects
        .iter()
        .map(|e| match e {
            ExpectAsset::Evidence(n) => chars(n) + 2.0,
            ExpectAsset::Weighted(n, _) => chars(n) + 8.0,
        })
        .sum::<f32>()
        + 6.0;
    let rows = st
        .to
        .iter()
        .map(|(t, _)| chars(t) * 7.0 + 90.0)
        .fold(90.0, f32::max);
    let width = (chars(&st.name) * 8.5 + 70.0)
        .max((expects * 6.5).min(NODE_MAX_WIDTH))
        .max(rows)
        + 24.0;
    let body_lines =
        1.0 + (expects * 6.5 / NODE_MAX_WIDTH).ceil() + f32::from(u8::from(st.action.is_some()));
    let height = 34.0 + body_lines * 18.0 + (st.to.len() as f32 + 1.0) * 24.0 + 44.0;
    [width.round(), height.round()]
}

/// Auto-layout positions of every state: columns by breadth-first depth from the initial
/// state, as machines are laid out.
pub fn arrange(sp: &SpaceAsset) -> Vec<(String, [f32; 2])> {
    let index: HashMap<&str, usize> = sp
        .states
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.as_str(), i))
        .collect();
    let edges: Vec<(usize, usize)> = sp
        .states
        .iter()
        .enumerate()
        .flat_map(|(i, s)| {
            let index = &index;
            s.to.iter()
                .filter_map(move |(t, _)| index.get(t.as_str()).map(|&j| (i, j)))
                .filter(|(i, j)| i != j)
        })
        .collect();
    let root = sp
        .initial
        .as_deref()
        .and_then(|n| index.get(n).copied())
        .or((!sp.states.is_empty()).then_some(0));
    let sizes: Vec<[f32; 2]> = sp.states.iter().map(estimated_size).collect();
    let p = crate::machine::auto_layout::positions(sp.states.len(), root, &edges, &sizes);
    sp.states
        .iter()
        .zip(p)
        .map(|(s, p)| (s.name.clone(), p))
        .collect()
}

fn shape_text(shape: &ShapeAsset) -> String {
    match shape {
        ShapeAsset::Identity => String::new(),
        ShapeAsset::Threshold(t) => format!(" ≥ {t}"),
        ShapeAsset::Ramp(a, b) => format!(" ramp {a}–{b}"),
        ShapeAsset::Scale(k) => format!(" × {k}"),
    }
}

/// A probability as a field: dragged in steps of 0.005, typed to four decimals.
fn probability(value: &mut f64) -> egui::DragValue<'_> {
    egui::DragValue::new(value)
        .range(0.0..=1.0)
        .speed(0.01)
        .min_decimals(2)
        .max_decimals(4)
}

/// The colour of transition `j` of state `i` (see [`edges::color`]), faint when unlikely.
fn transition_color(sp: &SpaceAsset, marks: &Marks, i: usize, j: usize) -> Color32 {
    sp.states
        .get(i)
        .and_then(|s| Some((s, s.to.get(j)?)))
        .map_or(theme::EDGE, |(st, (to, p))| {
            let marked = marks.transitions.get(&(st.name.clone(), j));
            edges::color(ops::index_of(sp, to).is_some(), marked, wire_color(*p))
        })
}

/// The wire colour of a transition of probability `p`: faint when unlikely.
fn wire_color(p: f64) -> Color32 {
    theme::EDGE.gamma_multiply(0.3 + 0.7 * p.clamp(0.0, 1.0) as f32)
}

impl SpaceView {
    pub fn reveal(&mut self, name: &str) {
        self.selection = [name.to_string()].into();
        self.camera.reveal(name);
    }

    pub fn fit(&mut self) {
        self.camera.fit();
    }

    pub fn position(&self, layout: &Layout, name: &str) -> [f32; 2] {
        layout
            .get(name)
            .or_else(|| self.auto.get(name).copied())
            .unwrap_or([0.0, 0.0])
    }

    /// Fit, Zoom to selection and the zoom, for the toolbar.
    pub fn zoom_controls(&mut self, ui: &mut Ui) {
        self.camera.controls(ui, &self.selection, "space");
    }

    /// A free spot near the middle of the view, for a new state.
    pub fn free_spot(&self, sp: &SpaceAsset, layout: &Layout) -> [f32; 2] {
        let taken: Vec<Rect> = sp
            .states
            .iter()
            .map(|s| {
                let [x, y] = self.position(layout, &s.name);
                let [w, h] = estimated_size(s);
                Rect::from_min_size(pos2(x, y), vec2(w, h))
            })
            .collect();
        let at = graph::free_spot(self.camera.centre() - NEW_NODE / 2.0, NEW_NODE, &taken);
        [at.x, at.y]
    }

    fn node_of(&self, i: usize) -> Option<NodeId> {
        self.snarl
            .nodes_ids_data()
            .find(|(_, n)| n.value == SNode::State(i))
            .map(|(id, _)| id)
    }

    /// Where the node of state `name` was drawn last frame, on screen (tests drive it).
    pub fn state_rect(&self, name: &str) -> Option<Rect> {
        let sp = self.built.as_ref()?;
        let id = self.node_of(ops::index_of(sp, name)?)?;
        self.rects.get(&id).map(|r| self.camera.to_screen * *r)
    }

    /// Where output pin `output` of `state` was drawn last frame (the last one is `+`).
    pub fn output_pin(&self, state: &str, output: usize) -> Option<Pos2> {
        let sp = self.built.as_ref()?;
        let id = self.node_of(ops::index_of(sp, state)?)?;
        let (rect, y) = (self.rects.get(&id)?, self.pins.get(&(id, Some(output)))?);
        Some(self.camera.to_screen * pos2(rect.right(), *y))
    }

    /// Where the input pin of `state` was drawn last frame.
    pub fn input_pin(&self, state: &str) -> Option<Pos2> {
        let sp = self.built.as_ref()?;
        let id = self.node_of(ops::index_of(sp, state)?)?;
        let (rect, y) = (self.rects.get(&id)?, self.pins.get(&(id, None))?);
        Some(self.camera.to_screen * pos2(rect.left(), *y))
    }

    fn rebuild(&mut self, sp: &SpaceAsset) {
        if self.built.as_ref().is_none_or(|b| b.name != sp.name) && !self.camera.moving() {
            self.fit();
        }
        self.auto = arrange(sp).into_iter().collect();
        self.rects.clear();
        self.pins.clear();
        let mut snarl = Snarl::new();
        let entry = snarl.insert_node(Pos2::ZERO, SNode::Entry);
        let ids: Vec<NodeId> = (0..sp.states.len())
            .map(|i| snarl.insert_node(Pos2::ZERO, SNode::State(i)))
            .collect();
        let mut missing: HashMap<String, NodeId> = HashMap::new();
        for (i, st) in sp.states.iter().enumerate() {
            for (j, (t, _)) in st.to.iter().enumerate() {
                let to = match ops::index_of(sp, t) {
                    Some(k) if k == i => continue,
                    Some(k) => ids[k],
                    None => *missing.entry(t.clone()).or_insert_with(|| {
                        snarl.insert_node(Pos2::ZERO, SNode::Missing(t.clone()))
                    }),
                };
                snarl.connect(
                    OutPinId {
                        node: ids[i],
                        output: j,
                    },
                    InPinId { node: to, input: 0 },
                );
            }
        }
        match sp.initial.as_deref().and_then(|n| ops::index_of(sp, n)) {
            Some(k) => {
                snarl.connect(
                    OutPinId {
                        node: entry,
                        output: 0,
                    },
                    InPinId {
                        node: ids[k],
                        input: 0,
                    },
                );
            }
            None => {
                snarl.remove_node(entry);
            }
        }
        self.snarl = snarl;
        self.built = Some(sp.clone());
        self.selection
            .retain(|n| sp.states.iter().any(|s| s.name == *n));
    }

    fn expected(&self, sp: &SpaceAsset, layout: &Layout) -> HashMap<NodeId, Pos2> {
        let mut out = HashMap::new();
        let mut missing_row = 0.0;
        for (id, node) in self.snarl.nodes_ids_data() {
            let p = match &node.value {
                SNode::State(i) => self.position(layout, &sp.states[*i].name),
                SNode::Entry => {
                    let [x, y] = sp
                        .initial
                        .as_deref()
                        .map_or([0.0, 0.0], |n| self.position(layout, n));
                    [x - 110.0, y + 8.0]
                }
                SNode::Missing(name) => {
                    let from = sp
                        .states
                        .iter()
                        .position(|s| s.to.iter().any(|(t, _)| t == name));
                    missing_row += 1.0;
                    match from {
                        Some(i) => {
                            let [x, y] = self.position(layout, &sp.states[i].name);
                            let [w, _] = estimated_size(&sp.states[i]);
                            [x + w + 80.0, y + 90.0 * (missing_row - 1.0)]
                        }
                        None => [0.0, 0.0],
                    }
                }
            };
            out.insert(id, pos2(p[0], p[1]));
        }
        out
    }

    /// Draws the graph; returns the edits the user made.
    pub fn show(&mut self, ui: &mut Ui, sp: &SpaceAsset, cx: &ViewCx) -> ViewOutput {
        if self.built.as_ref() != Some(sp) {
            self.rebuild(sp);
        }
        let expected = self.expected(sp, cx.layout);
        for (id, pos) in &expected {
            if let Some(info) = self.snarl.get_node_info_mut(*id) {
                info.pos = *pos;
            }
        }
        self.camera.begin(ui);
        let mut out = ViewOutput::default();
        let mut clicked = None;
        let pointer = ui
            .input(|i| i.pointer.latest_pos())
            .map(|p| self.camera.to_screen.inverse() * p);
        let mut viewer = Viewer {
            sp,
            cx,
            selection: &self.selection,
            out: &mut out,
            clicked: &mut clicked,
            rects: &mut self.rects,
            pins: &mut self.pins,
            camera: &mut self.camera,
            wires: &mut self.wires,
            pointer,
        };
        let widget = SnarlWidget::new().id(self.id).style(graph::style());
        widget.show(&mut self.snarl, &mut viewer, ui);
        let color = |pin: OutPinId| match self.snarl.get_node(pin.node) {
            Some(SNode::State(i)) => transition_color(sp, cx.marks, *i, pin.output),
            _ => theme::ACCENT,
        };
        self.wires.paint(
            ui,
            &self.snarl,
            &self.rects,
            &self.pins,
            self.camera.to_screen,
            color,
            Vec::new(),
        );
        let boxes: Vec<Rect> = self.rects.values().copied().collect();
        graph::minimap::show(ui, &mut self.camera, &boxes);
        self.wire_labels(ui, sp, &mut out);

        let state_name = |n: &SNode| match n {
            SNode::State(i) => Some(sp.states[*i].name.clone()),
            _ => None,
        };
        let moved = graph::moved(&self.snarl, &expected, state_name);
        if !moved.is_empty() {
            let all = sp
                .states
                .iter()
                .map(|s| (s.name.clone(), self.position(cx.layout, &s.name)));
            out.edits
                .push(Edit::Move(graph::complete_move(moved, cx.layout, all)));
        }
        graph::Select {
            id: self.id,
            last: &mut self.snarl_selection,
            clicked,
            canvas: self.camera.viewport,
            node_rects: self
                .rects
                .iter()
                .map(|(id, r)| (*id, self.camera.to_screen * *r))
                .collect(),
        }
        .apply(ui, &self.snarl, &mut self.selection, state_name);
        out.rename |= graph::rename_key(ui, &self.selection);
        out
    }

    /// Each wire's probability at the middle of the edge as drawn, editable in place.
    fn wire_labels(&self, ui: &mut Ui, sp: &SpaceAsset, out: &mut ViewOutput) {
        let clip = self.camera.viewport;
        for (i, st) in sp.states.iter().enumerate() {
            let Some(from_id) = self.node_of(i) else {
                continue;
            };
            for (j, (t, p)) in st.to.iter().enumerate() {
                if ops::index_of(sp, t).is_none_or(|k| k == i) {
                    continue;
                }
                let pin = OutPinId {
                    node: from_id,
                    output: j,
                };
                // Back edges are routed apart from forward ones, so the middles never meet.
                let Some(mid) = self.wires.middle(pin).map(|p| self.camera.to_screen * p) else {
                    continue;
                };
                if !clip.contains(mid) {
                    continue;
                }
                let scale = self.camera.to_screen.scaling.clamp(0.6, 1.0);
                let rect = Rect::from_center_size(mid, vec2(40.0, 16.0) * scale);
                let mut value = *p;
                let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
                child.style_mut().override_font_id = Some(egui::FontId::proportional(11.5 * scale));
                child.spacing_mut().interact_size.y = 14.0 * scale;
                let r = child.put(rect, probability(&mut value));
                crate::panel_cx::name_widget(
                    &child,
                    &r,
                    format!("p({t} | {}) on the wire", st.name),
                );
                if r.changed() {
                    out.edits.push(Edit::SetP {
                        state: st.name.clone(),
                        index: j,
                        p: value,
                    });
                }
                if r.clicked() {
                    out.select = Some(st.name.clone());
                }
            }
        }
    }
}

/// What happened in the graph this frame.
#[derive(Default)]
pub struct ViewOutput {
    pub edits: Vec<Edit>,
    /// Focus the inspector's name field (a node's Rename… menu).
    pub rename: bool,
    /// Select this state (a wire label was clicked).
    pub select: Option<String>,
}

struct Viewer<'a> {
    sp: &'a SpaceAsset,
    cx: &'a ViewCx<'a>,
    selection: &'a BTreeSet<String>,
    out: &'a mut ViewOutput,
    clicked: &'a mut Option<String>,
    rects: &'a mut HashMap<NodeId, Rect>,
    pins: &'a mut HashMap<(NodeId, Option<usize>), f32>,
    camera: &'a mut Camera,
    wires: &'a mut Wires,
    /// The pointer in graph coordinates.
    pointer: Option<Pos2>,
}

impl Viewer<'_> {
    fn is_disable(&self, st: &SpaceStateAsset) -> bool {
        self.sp.disable.as_deref() == Some(st.name.as_str())
    }

    fn body(&self, st: &SpaceStateAsset) -> Vec<RichText> {
        let mut lines = Vec::new();
        if self.is_disable(st) {
            let text = match &self.sp.enabled_by {
                Some(dep) => format!("off until {}{}", dep.of.join(" + "), shape_text(&dep.shape)),
                None => "off (no `enabled by`)".into(),
            };
            lines.push(RichText::new(text).color(theme::SPECIAL).size(12.5));
        }
        if !st.expects.is_empty() {
            let heard: Vec<String> = st
                .expects
                .iter()
                .map(|e| match e {
                    ExpectAsset::Evidence(n) => n.clone(),
                    ExpectAsset::Weighted(n, w) => format!("{n} ×{w}"),
                })
                .collect();
            lines.push(
                RichText::new(format!("hears {}", heard.join(", ")))
                    .color(theme::TEXT)
                    .size(12.5),
            );
        }
        if let Some(a) = &st.action {
            lines.push(
                RichText::new(format!("⏵ does {a}"))
                    .color(theme::SPEECH)
                    .size(12.5),
            );
        }
        if st.to.is_empty() {
            lines.push(
                RichText::new("stays here (p = 1)")
                    .color(theme::TEXT_WEAK)
                    .italics()
                    .size(12.0),
            );
        }
        lines
    }

    fn new_state_menu(&mut self, ui: &mut Ui, at: Pos2, from: Option<From>) {
        if ui.button("New state here").clicked() {
            let taken: Vec<Rect> = self.rects.values().copied().collect();
            let at = graph::free_spot(at, NEW_NODE, &taken);
            self.out.edits.push(Edit::AddState {
                at: [at.x, at.y],
                from,
            });
            ui.close();
        }
    }
}

impl SnarlViewer<SNode> for Viewer<'_> {
    fn title(&mut self, node: &SNode) -> String {
        match node {
            SNode::Entry => "initial".into(),
            SNode::State(i) => self
                .sp
                .states
                .get(*i)
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            SNode::Missing(n) => n.clone(),
        }
    }

    fn node_frame(
        &mut self,
        default: egui::Frame,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<SNode>,
    ) -> egui::Frame {
        let mut frame = default;
        match &snarl[node] {
            SNode::Entry => {
                frame.fill = Color32::TRANSPARENT;
                frame.stroke = Stroke::NONE;
                frame.inner_margin = Margin::same(2);
            }
            SNode::Missing(_) => {
                frame.fill = theme::MISSING_FILL;
                frame.stroke = Stroke::new(1.5, theme::ERROR);
            }
            SNode::State(i) => {
                let st = &self.sp.states[*i];
                if self.is_disable(st) {
                    frame.fill = theme::SPECIAL_FILL;
                    frame.corner_radius = CornerRadius::same(14);
                } else if st.action.is_some() {
                    frame.fill = theme::SPEECH_FILL;
                }
                if let Some((sev, _)) = self.cx.marks.states.get(&st.name) {
                    frame.stroke = Stroke::new(1.8, theme::severity_color(*sev));
                }
                if self.selection.contains(&st.name) {
                    frame.stroke = Stroke::new(2.2, theme::ACCENT);
                }
            }
        }
        frame
    }

    fn show_header(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<SNode>,
    ) {
        ui.set_max_width(NODE_MAX_WIDTH);
        match snarl[node].clone() {
            SNode::Entry => {
                ui.label(RichText::new("▶ initial").small().color(theme::ACCENT))
                    .on_hover_text("Belief starts here (s0). Drag this wire to another state to make it initial.");
            }
            SNode::Missing(name) => {
                ui.label(RichText::new(name).strong().color(theme::ERROR));
            }
            SNode::State(i) => {
                let st = &self.sp.states[i];
                ui.horizontal(|ui| {
                    let r = clickable(ui, RichText::new(&st.name).strong().color(theme::TEXT).size(14.0));
                    if r.clicked() {
                        *self.clicked = Some(st.name.clone());
                    }
                    if self.is_disable(st) {
                        ui.label(RichText::new("DISABLE").size(9.5).strong().color(theme::SPECIAL))
                            .on_hover_text("The disable state s_D of the space's model dependency: the space is disengaged while belief is here.");
                    }
                });
            }
        }
    }

    fn has_body(&mut self, node: &SNode) -> bool {
        match node {
            SNode::Entry => false,
            SNode::Missing(_) => true,
            SNode::State(i) => self
                .sp
                .states
                .get(*i)
                .is_some_and(|st| !self.body(st).is_empty()),
        }
    }

    fn show_body(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<SNode>,
    ) {
        ui.set_max_width(NODE_MAX_WIDTH);
        ui.vertical(|ui| {
            ui.spacing_mut().item_spacing.y = 2.0;
            match snarl[node].clone() {
                SNode::Missing(_) => {
                    ui.label(RichText::new("no such state").small().color(theme::ERROR));
                }
                SNode::State(i) => {
                    let st = &self.sp.states[i];
                    for line in self.body(st) {
                        let r = ui.add(
                            egui::Label::new(line)
                                .wrap()
                                .sense(egui::Sense::click())
                                .selectable(false),
                        );
                        if r.clicked() {
                            *self.clicked = Some(st.name.clone());
                        }
                    }
                }
                SNode::Entry => {}
            }
        });
    }

    fn has_footer(&mut self, node: &SNode) -> bool {
        matches!(node, SNode::State(_))
    }

    fn show_footer(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<SNode>,
    ) {
        let SNode::State(i) = snarl[node] else { return };
        let st = &self.sp.states[i];
        let sum = ops::row_sum(st);
        let ok = ops::is_normalised(st);
        let compiled = self.cx.marks.rows.get(&st.name);
        ui.horizontal(|ui| {
            let color = match (ok, compiled) {
                (_, Some(sev)) => theme::severity_color(*sev),
                (true, None) => theme::OK,
                (false, None) => theme::WARNING,
            };
            let text = if ok {
                format!("Σ {sum:.2} ✔")
            } else {
                format!("Σ {sum:.4} ⚠")
            };
            let r = ui.label(RichText::new(text).size(12.0).color(color));
            crate::panel_cx::name_widget(ui, &r, format!("row sum of {}", st.name));
            if !ok {
                r.on_hover_text("The transitions of a state must sum to 1.");
                let b = ui
                    .small_button("normalise")
                    .on_hover_text("Scale this row to sum to 1");
                crate::panel_cx::name_widget(ui, &b, format!("normalise {}", st.name));
                if b.clicked() {
                    self.out.edits.push(Edit::Normalise(st.name.clone()));
                }
            }
        });
    }

    fn inputs(&mut self, node: &SNode) -> usize {
        match node {
            SNode::Entry => 0,
            _ => 1,
        }
    }

    fn show_input(
        &mut self,
        pin: &InPin,
        ui: &mut Ui,
        snarl: &mut Snarl<SNode>,
    ) -> impl egui_snarl::ui::SnarlPin + 'static {
        self.pins
            .insert((pin.id.node, None), ui.max_rect().center().y);
        let fill = match &snarl[pin.id.node] {
            SNode::Missing(_) => theme::ERROR,
            _ => theme::EDGE,
        };
        PinInfo::circle()
            .with_fill(fill)
            .with_wire_color(Color32::TRANSPARENT)
    }

    fn outputs(&mut self, node: &SNode) -> usize {
        match node {
            SNode::Entry => 1,
            SNode::State(i) => self.sp.states.get(*i).map_or(0, |s| s.to.len() + 1),
            SNode::Missing(_) => 0,
        }
    }

    fn show_output(
        &mut self,
        pin: &OutPin,
        ui: &mut Ui,
        snarl: &mut Snarl<SNode>,
    ) -> impl egui_snarl::ui::SnarlPin + 'static {
        self.pins
            .insert((pin.id.node, Some(pin.id.output)), ui.max_rect().center().y);
        match snarl[pin.id.node].clone() {
            SNode::Entry => PinInfo::circle()
                .with_fill(theme::ACCENT)
                .with_wire_color(Color32::TRANSPARENT),
            SNode::State(i) => {
                let st = &self.sp.states[i];
                match st.to.get(pin.id.output) {
                    Some((target, p)) => {
                        let own = *target == st.name;
                        let color = transition_color(self.sp, self.cx.marks, i, pin.id.output);
                        let mut value = *p;
                        let r = ui.add(probability(&mut value));
                        crate::panel_cx::name_widget(ui, &r, format!("p({target} | {})", st.name));
                        if r.changed() {
                            self.out.edits.push(Edit::SetP {
                                state: st.name.clone(),
                                index: pin.id.output,
                                p: value,
                            });
                        }
                        let text = if own {
                            "↺ stays".to_string()
                        } else {
                            format!("⏵ {target}")
                        };
                        ui.label(RichText::new(text).size(12.0).color(
                            if color == wire_color(*p) {
                                theme::TEXT
                            } else {
                                color
                            },
                        ))
                        .on_hover_text(format!("p({target} | {}) = {p}", st.name));
                        let fill = if own { theme::BOX_STROKE } else { color };
                        PinInfo::circle()
                            .with_fill(fill)
                            .with_wire_color(Color32::TRANSPARENT)
                    }
                    None => {
                        ui.label(RichText::new("+").color(theme::TEXT_WEAK)).on_hover_text(
                            "Drag to a state to add a transition (the row stays a distribution), or to empty space to add a state",
                        );
                        PinInfo::default()
                            .with_shape(PinShape::Square)
                            .with_fill(theme::BOX_STROKE)
                            .with_wire_color(Color32::TRANSPARENT)
                    }
                }
            }
            SNode::Missing(_) => PinInfo::circle(),
        }
    }

    fn final_node_rect(
        &mut self,
        node: NodeId,
        rect: Rect,
        _ui: &mut Ui,
        _snarl: &mut Snarl<SNode>,
    ) {
        self.rects.insert(node, rect);
    }

    fn has_on_hover_popup(&mut self, node: &SNode) -> bool {
        match node {
            SNode::Missing(_) => true,
            SNode::State(i) => self
                .sp
                .states
                .get(*i)
                .is_some_and(|st| self.cx.marks.states.contains_key(&st.name)),
            SNode::Entry => false,
        }
    }

    fn show_on_hover_popup(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<SNode>,
    ) {
        match snarl[node].clone() {
            SNode::Missing(name) => {
                ui.label(format!("`{name}` is not a state of {}.", self.sp.name));
                ui.label(
                    RichText::new(
                        "Point the transition at an existing state, or add one with this name.",
                    )
                    .color(theme::TEXT_WEAK),
                );
            }
            SNode::State(i) => {
                let st = &self.sp.states[i];
                if let Some((_, messages)) = self.cx.marks.states.get(&st.name) {
                    for m in messages {
                        ui.label(RichText::new(m).color(theme::WARNING));
                    }
                } else {
                    ui.label(
                        RichText::new("Click to edit it in the inspector.").color(theme::TEXT_WEAK),
                    );
                }
            }
            SNode::Entry => {}
        }
    }

    fn has_graph_menu(&mut self, _pos: Pos2, _snarl: &mut Snarl<SNode>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: Pos2, ui: &mut Ui, _snarl: &mut Snarl<SNode>) {
        self.new_state_menu(ui, pos, None);
        if ui.button("Arrange (layered)").clicked() {
            self.out.edits.push(Edit::Arrange);
            ui.close();
        }
        if self.sp.states.iter().any(|s| !ops::is_normalised(s))
            && ui.button("Normalise every row").clicked()
        {
            self.out.edits.push(Edit::NormaliseAll);
            ui.close();
        }
    }

    fn has_dropped_wire_menu(&mut self, src_pins: AnyPins, _snarl: &mut Snarl<SNode>) -> bool {
        matches!(src_pins, AnyPins::Out(_))
    }

    fn show_dropped_wire_menu(
        &mut self,
        pos: Pos2,
        ui: &mut Ui,
        src_pins: AnyPins,
        snarl: &mut Snarl<SNode>,
    ) {
        let AnyPins::Out(pins) = src_pins else { return };
        let Some(pin) = pins.first() else { return };
        let from = match snarl.get_node(pin.node) {
            Some(SNode::Entry) => From::Entry,
            Some(SNode::State(i)) => {
                let st = &self.sp.states[*i];
                if pin.output < st.to.len() {
                    From::Transition(st.name.clone(), pin.output)
                } else {
                    From::State(st.name.clone())
                }
            }
            _ => return,
        };
        self.new_state_menu(ui, pos, Some(from));
    }

    fn has_node_menu(&mut self, node: &SNode) -> bool {
        matches!(node, SNode::State(_))
    }

    fn show_node_menu(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<SNode>,
    ) {
        let SNode::State(i) = snarl[node] else { return };
        let st = self.sp.states[i].clone();
        *self.clicked = Some(st.name.clone());
        if ui.button("Rename…").clicked() {
            self.out.rename = true;
            ui.close();
        }
        if self.sp.initial.as_deref() != Some(st.name.as_str())
            && ui.button("Make initial").clicked()
        {
            self.out.edits.push(Edit::SetInitial(st.name.clone()));
            ui.close();
        }
        if self.is_disable(&st) {
            if ui.button("Not the disable state").clicked() {
                self.out.edits.push(Edit::SetDisable(None));
                ui.close();
            }
        } else if ui.button("Make the disable state").clicked() {
            self.out.edits.push(Edit::SetDisable(Some(st.name.clone())));
            ui.close();
        }
        if !ops::is_normalised(&st) && ui.button("Normalise row").clicked() {
            self.out.edits.push(Edit::Normalise(st.name.clone()));
            ui.close();
        }
        if ui.button("Duplicate").clicked() {
            self.out
                .edits
                .push(Edit::Duplicate([st.name.clone()].into()));
            ui.close();
        }
        ui.separator();
        if ui
            .button(RichText::new("Delete").color(theme::ERROR))
            .clicked()
        {
            self.out.edits.push(Edit::Delete([st.name.clone()].into()));
            ui.close();
        }
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<SNode>) {
        let target = match snarl.get_node(to.id.node) {
            Some(SNode::State(k)) => self.sp.states[*k].name.clone(),
            Some(SNode::Missing(n)) => n.clone(),
            _ => return,
        };
        match snarl.get_node(from.id.node) {
            Some(SNode::Entry) if ops::index_of(self.sp, &target).is_some() => {
                self.out.edits.push(Edit::SetInitial(target));
            }
            Some(SNode::State(i)) => {
                let st = &self.sp.states[*i];
                if from.id.output < st.to.len() {
                    self.out.edits.push(Edit::Retarget {
                        state: st.name.clone(),
                        index: from.id.output,
                        to: target,
                    });
                } else {
                    self.out.edits.push(Edit::AddTransition {
                        from: st.name.clone(),
                        to: target,
                    });
                }
            }
            _ => {}
        }
    }

    fn disconnect(&mut self, from: &OutPin, _to: &InPin, snarl: &mut Snarl<SNode>) {
        // Snarl hit its own straight wire; only a right-click on the edge as drawn removes it.
        if self.wires.hit(from.id, self.pointer, self.camera.scale()) {
            self.drop_outputs(from, snarl);
        }
    }

    fn draw_background(
        &mut self,
        background: Option<&egui_snarl::ui::BackgroundPattern>,
        viewport: &Rect,
        snarl_style: &egui_snarl::ui::SnarlStyle,
        style: &egui::Style,
        painter: &egui::Painter,
        _snarl: &Snarl<SNode>,
    ) {
        if let Some(background) = background {
            background.draw(viewport, snarl_style, style, painter);
        }
        self.wires.reserve(painter);
    }

    fn drop_outputs(&mut self, pin: &OutPin, snarl: &mut Snarl<SNode>) {
        if let Some(SNode::State(i)) = snarl.get_node(pin.id.node) {
            let st = &self.sp.states[*i];
            if pin.id.output < st.to.len() {
                self.out.edits.push(Edit::RemoveTransition {
                    state: st.name.clone(),
                    index: pin.id.output,
                });
            }
        }
    }

    fn drop_inputs(&mut self, _pin: &InPin, _snarl: &mut Snarl<SNode>) {
        // Removing every transition into a state at once is too easy to do by accident.
    }

    fn current_transform(&mut self, to_global: &mut TSTransform, snarl: &mut Snarl<SNode>) {
        let sp = self.sp;
        let describe = |node: &SNode| match node {
            SNode::State(i) => {
                let [w, h] = estimated_size(&sp.states[*i]);
                (Some(sp.states[*i].name.clone()), vec2(w, h))
            }
            _ => (None, vec2(120.0, 60.0)),
        };
        self.camera.follow(
            to_global,
            snarl,
            self.rects,
            describe,
            sp.initial.as_deref(),
        );
    }
}
