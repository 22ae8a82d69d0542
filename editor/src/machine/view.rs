//! The graph of one machine on egui-snarl. The snarl is a *view*: it is rebuilt from the asset
//! whenever the asset changes, its node positions are set from the layout every frame, and
//! whatever the user does in it (drag, connect, drop a wire, use a menu) comes back as
//! [`Op`]s. So undo, saving and diagnostics never depend on snarl's own state.
//!
//! Nodes: the initial-state marker (drag its wire to make another state initial), one node per
//! state, and a red node for each target that names no state (a typo stays visible where it
//! happened). Pins: one input per state; one output per transition, labelled with its event,
//! and a last `+` output that adds a transition when dragged to a state or dropped on empty
//! space (then a menu creates the new state there).

use super::auto_layout;
use super::ops::{self, Clip};
use super::{From, Op};
use crate::analysis::Located;
use crate::asset_panel::ProjectNames;
use crate::graph::edges::{self, Edge, Wires};
use crate::graph::{Camera, clickable};
use crate::preview::live::LiveMachine;
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::{
    Color32, CornerRadius, Margin, Pos2, Rect, RichText, Sense, Stroke, Ui, Vec2, pos2, vec2,
};
use egui_snarl::ui::{
    AnyPins, BackgroundPattern, PinInfo, PinShape, SnarlStyle, SnarlViewer, SnarlWidget,
};
use egui_snarl::{InPin, InPinId, NodeId, OutPin, OutPinId, Snarl};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::front::ron::locate::PathSeg;
use ensemble_compiler::front::ron::{MachineAsset, ModifierValue, StateAsset};
use ensemble_runtime::program::{ModifierKind, Terminal};
use std::collections::{BTreeSet, HashMap};

/// A node of the graph.
#[derive(Clone, Debug, PartialEq)]
pub enum GNode {
    /// The initial-state marker.
    Entry,
    /// The state at this index of the machine.
    State(usize),
    /// A transition target that names no state.
    Missing(String),
}

/// How a state is drawn, from its library state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    Plain,
    /// Hosts a child machine (double-click opens it).
    Host,
    /// Speaks a sentence state (`Dialog`).
    Dialog,
    /// Says a canned line or one of several (`OneOff`, `Salutation`).
    OneOff,
    /// Says its modifier (`Say`).
    Line,
    /// Conversation plumbing (`Set`, `Listen`, `WaitForConversation`, `RequestConversation`).
    Special,
    End,
    Failure,
    /// A library state the project does not link.
    Unknown,
}

impl Look {
    pub fn of(code: &str, names: &ProjectNames) -> Look {
        let Some(lib) = names.library(code) else {
            return Look::Unknown;
        };
        use ensemble_runtime::stdlib as std_states;
        // Only the standard states look like themselves: a game's own `Dialog` is the game's.
        match (lib.standard_name(), lib.terminal, lib.modifier) {
            (_, Terminal::End, _) => Look::End,
            (_, Terminal::Failure, _) => Look::Failure,
            (_, _, ModifierKind::Machine) => Look::Host,
            (Some(std_states::DIALOG), ..) => Look::Dialog,
            (Some(std_states::ONE_OFF | std_states::SALUTATION), ..) => Look::OneOff,
            (Some(std_states::SAY), ..) => Look::Line,
            (
                Some(
                    std_states::SET
                    | std_states::LISTEN
                    | std_states::WAIT_FOR_CONVERSATION
                    | std_states::REQUEST_CONVERSATION,
                ),
                ..,
            ) => Look::Special,
            _ => Look::Plain,
        }
    }

    fn fill(self) -> Color32 {
        match self {
            Look::Dialog | Look::OneOff | Look::Line => theme::SPEECH_FILL,
            Look::Special => theme::SPECIAL_FILL,
            Look::Host => theme::HOST_FILL,
            Look::End | Look::Failure => theme::TERMINAL_FILL,
            Look::Plain | Look::Unknown => theme::BOX_FILL,
        }
    }

    fn badge(self) -> Option<(&'static str, Color32)> {
        Some(match self {
            Look::Dialog => ("DIALOG", theme::SPEECH),
            Look::OneOff => ("ONE-OFF", theme::SPEECH),
            Look::Line => ("SAY", theme::SPEECH),
            Look::Special => ("SPECIAL", theme::SPECIAL),
            Look::Host => ("⏵ CHILD", theme::ACCENT),
            Look::End => ("END", theme::OK),
            Look::Failure => ("FAIL", theme::ERROR),
            Look::Plain | Look::Unknown => return None,
        })
    }
}

/// What the graph needs besides the machine.
pub struct GraphCx<'a> {
    pub names: &'a ProjectNames,
    /// Diagnostics located in this machine's file.
    pub diagnostics: &'a [&'a Located],
    /// Best line of each sentence state, for dialog states.
    pub lines: &'a HashMap<String, String>,
    /// The preview's agents in this machine's states (drawn glowing, with their names).
    pub live: Option<&'a LiveMachine>,
    /// States of this machine with a breakpoint (drawn with a red dot).
    pub breakpoints: &'a [String],
    /// States no content test run entered (the Tests panel's coverage): drawn dimmed and
    /// hatched. Empty until tests have run.
    pub unreached: &'a [String],
}

/// What happened in the graph this frame.
#[derive(Default)]
pub struct GraphOutput {
    pub ops: Vec<Op>,
    /// A host state was double-clicked: open this machine.
    pub open_child: Option<String>,
    /// Rename was asked from a node's menu: focus the inspector's name field.
    pub rename: bool,
    /// Copy the selection (from the menu; Ctrl+C is handled by the host).
    pub copy: bool,
    /// Toggle the breakpoint on this state (from its menu).
    pub breakpoint: Option<String>,
    /// Delete these states (from a node's menu), asking first when transitions go too.
    delete: Option<BTreeSet<String>>,
}

/// A delete waiting for the designer's yes: the states, and the transitions into them from
/// states that stay (which go with them), as "State on Event".
struct PendingDelete {
    states: BTreeSet<String>,
    incoming: Vec<String>,
}

/// The graph editor's own state; one per editor, following the open machine.
pub struct GraphView {
    snarl: Snarl<GNode>,
    built: Option<(usize, MachineAsset)>,
    /// Positions for states the layout does not place (content without a layout).
    auto: HashMap<String, [f32; 2]>,
    /// The sizes `auto` was laid out with, of the states the layout does not place. When a
    /// state is drawn at another size (measured for the first time, or its dialog line arrived
    /// with the compile — wider than any estimate knows), `auto` is laid out again.
    auto_sizes: HashMap<String, Vec2>,
    /// The machine was just opened: fit the view again to the measured layout.
    fit_on_layout: bool,
    pub selection: BTreeSet<String>,
    snarl_selection: Vec<NodeId>,
    camera: Camera,
    /// Node rectangles last frame, in graph coordinates.
    rects: HashMap<NodeId, Rect>,
    /// Pin rows last frame: (node, output or `None` for the input) -> y, graph coordinates.
    pins: HashMap<(NodeId, Option<usize>), f32>,
    /// The size each state was last drawn at.
    drawn: HashMap<String, Vec2>,
    /// Which states the snarl holds (the others are out of view).
    built_visible: Vec<bool>,
    /// Transitions with an end out of view: (state, transition, target), drawn by us.
    culled: Vec<(usize, usize, usize)>,
    wires: Wires,
    pending_delete: Option<PendingDelete>,
    id: egui::Id,
}

impl Default for GraphView {
    fn default() -> Self {
        GraphView {
            snarl: Snarl::new(),
            built: None,
            auto: HashMap::new(),
            auto_sizes: HashMap::new(),
            fit_on_layout: false,
            selection: BTreeSet::new(),
            snarl_selection: Vec::new(),
            camera: Camera::default(),
            rects: HashMap::new(),
            pins: HashMap::new(),
            drawn: HashMap::new(),
            built_visible: Vec::new(),
            culled: Vec::new(),
            wires: Wires::default(),
            pending_delete: None,
            id: egui::Id::new("machine-graph"),
        }
    }
}

const NODE_MAX_WIDTH: f32 = 240.0;

/// How far beyond the view (screen points) states are still drawn, so panning shows no gap.
const CULL_MARGIN: f32 = 250.0;

/// Severity and messages per state name and per (state, transition index).
#[derive(Default)]
struct Marks {
    states: HashMap<String, (Severity, Vec<String>)>,
    transitions: HashMap<(String, usize), Severity>,
}

fn worse(a: Severity, b: Severity) -> Severity {
    // `Severity` orders Error first.
    a.min(b)
}

impl Marks {
    fn of(diagnostics: &[&Located]) -> Marks {
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
            e.0 = worse(e.0, sev);
            e.1.push(format!(
                "{}: {}",
                l.diagnostic.code.as_str(),
                l.diagnostic.message
            ));
            if let [PathSeg::Field(f), PathSeg::Index(t), ..] = l.below_item()
                && f == "on"
            {
                let t = marks.transitions.entry((name.clone(), *t)).or_insert(sev);
                *t = worse(*t, sev);
            }
        }
        marks
    }
}

impl GraphView {
    /// Centres the view on the state `name` and selects it.
    pub fn reveal(&mut self, name: &str) {
        self.selection = [name.to_string()].into();
        self.camera.reveal(name);
    }

    pub fn fit(&mut self) {
        self.camera.fit();
    }

    /// The canvas on screen, as last drawn.
    pub fn canvas(&self) -> Rect {
        self.camera.viewport
    }

    /// The zoom the graph was last drawn at (1 = its own size).
    pub fn zoom(&self) -> f32 {
        self.camera.scale()
    }

    /// The position a state is drawn at: its layout, else the auto-layout.
    pub fn position(&self, layout: &Layout, name: &str) -> [f32; 2] {
        layout
            .get(name)
            .or_else(|| self.auto.get(name).copied())
            .unwrap_or([0.0, 0.0])
    }

    /// Screen rectangles of the states last frame (for tests driving the canvas).
    pub fn state_rect(&self, name: &str) -> Option<Rect> {
        let (_, m) = self.built.as_ref()?;
        let i = ops::index_of(m, name)?;
        let id = self
            .snarl
            .nodes_ids_data()
            .find(|(_, n)| n.value == GNode::State(i))
            .map(|(id, _)| id)?;
        self.rects.get(&id).map(|r| self.camera.to_screen * *r)
    }

    fn node_of(&self, name: &str) -> Option<NodeId> {
        let (_, m) = self.built.as_ref()?;
        let i = ops::index_of(m, name)?;
        self.snarl
            .nodes_ids_data()
            .find(|(_, n)| n.value == GNode::State(i))
            .map(|(id, _)| id)
    }

    /// Where the output pin `output` of `state` was last drawn, on screen (the last output is
    /// the `+` pin).
    pub fn output_pin(&self, state: &str, output: usize) -> Option<Pos2> {
        let id = self.node_of(state)?;
        let (rect, y) = (self.rects.get(&id)?, self.pins.get(&(id, Some(output)))?);
        Some(self.camera.to_screen * pos2(rect.right(), *y))
    }

    /// The transition `index` of `state` as last drawn, on screen: the points its edge runs
    /// through, ending at the target's input pin.
    pub fn edge_route(&self, state: &str, index: usize) -> Option<Vec<Pos2>> {
        let node = self.node_of(state)?;
        let route = self.wires.route(OutPinId {
            node,
            output: index,
        })?;
        Some(route.iter().map(|p| self.camera.to_screen * *p).collect())
    }

    /// Where the input pin of `state` was last drawn, on screen.
    pub fn input_pin(&self, state: &str) -> Option<Pos2> {
        let id = self.node_of(state)?;
        let (rect, y) = (self.rects.get(&id)?, self.pins.get(&(id, None))?);
        Some(self.camera.to_screen * pos2(rect.left(), *y))
    }

    /// Auto-layout positions of every state of `m`, from the states' estimated sizes.
    pub fn arrange(m: &MachineAsset) -> Vec<(String, [f32; 2])> {
        arranged(m, &HashMap::new())
    }

    /// [`GraphView::arrange`] with the sizes states were last drawn at where known: a dialog
    /// state's line, which the estimate cannot see, makes its column wider. What the
    /// Auto-layout buttons ask for.
    pub fn arrange_measured(&self, m: &MachineAsset) -> Vec<(String, [f32; 2])> {
        arranged(m, &self.drawn)
    }

    /// [`GraphView::arrange`] with the targets that name no state laid out too, after the
    /// states (they get a place in the flow instead of landing on a state).
    fn arrange_with_missing(
        m: &MachineAsset,
        drawn: &HashMap<String, Vec2>,
    ) -> Vec<(String, [f32; 2])> {
        let mut names: Vec<&str> = m.states.iter().map(|s| s.name.as_str()).collect();
        let mut index: HashMap<&str, usize> =
            names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let mut edges = Vec::new();
        for (i, s) in m.states.iter().enumerate() {
            for (_, t) in &s.on {
                let j = *index.entry(t.as_str()).or_insert_with(|| {
                    names.push(t.as_str());
                    names.len() - 1
                });
                edges.push((i, j));
            }
        }
        let root = index.get(ops::initial(m)).copied();
        let sizes: Vec<[f32; 2]> = (0..names.len())
            .map(|i| {
                m.states
                    .get(i)
                    .map_or([NODE_SIZE.x * 0.6, NODE_SIZE.y * 0.6], |s| {
                        drawn
                            .get(&s.name)
                            .map_or_else(|| estimated_size(s), |d| [d.x, d.y])
                    })
            })
            .collect();
        let p = auto_layout::positions(names.len(), root, &edges, &sizes);
        names
            .into_iter()
            .zip(p)
            .map(|(n, p)| (n.to_string(), p))
            .collect()
    }

    /// The graph-space rectangle a state occupies: as last drawn, else estimated.
    fn state_box(&self, m: &MachineAsset, layout: &Layout, i: usize) -> Rect {
        let [x, y] = self.position(layout, &m.states[i].name);
        let size = self
            .drawn
            .get(&m.states[i].name)
            .copied()
            .unwrap_or_else(|| {
                let [w, h] = estimated_size(&m.states[i]);
                vec2(w, h)
            });
        Rect::from_min_size(pos2(x, y), size)
    }

    /// The transitions not in the snarl because an end is out of view, as edges in graph
    /// coordinates: from the output pin's row, to the input pin.
    fn stubs(&self, m: &MachineAsset, layout: &Layout, marks: &Marks) -> Vec<Edge> {
        let node = |i: usize| -> Option<NodeId> {
            self.snarl
                .nodes_ids_data()
                .find(|(_, n)| n.value == GNode::State(i))
                .map(|(id, _)| id)
        };
        self.culled
            .iter()
            .map(|&(i, j, k)| {
                let from_box = self.state_box(m, layout, i);
                let from_y = node(i)
                    .and_then(|id| self.pins.get(&(id, Some(j))))
                    .copied()
                    .unwrap_or(from_box.top() + 56.0 + 20.0 * j as f32);
                let to_box = self.state_box(m, layout, k);
                let to_y = node(k)
                    .and_then(|id| self.pins.get(&(id, None)))
                    .copied()
                    .unwrap_or(to_box.top() + 40.0);
                Edge {
                    from: pos2(from_box.right(), from_y),
                    to: pos2(to_box.left(), to_y),
                    source: from_box,
                    target: to_box,
                    color: transition_color(m, marks, i, j),
                }
            })
            .collect()
    }

    /// Which states to put in the snarl this frame: those near the view (with a margin, so
    /// panning never shows a gap). Before the first frame, all.
    fn visible(&self, m: &MachineAsset, layout: &Layout) -> Vec<bool> {
        if !self.camera.viewport.is_positive() || self.camera.moving() {
            return vec![true; m.states.len()];
        }
        let scale = self.camera.to_screen.scaling.max(0.05);
        let view =
            (self.camera.to_screen.inverse() * self.camera.viewport).expand(CULL_MARGIN / scale);
        (0..m.states.len())
            .map(|i| view.intersects(self.state_box(m, layout, i)))
            .collect()
    }

    fn rebuild(&mut self, doc: usize, m: &MachineAsset, visible: Vec<bool>) {
        let same_doc = self.built.as_ref().is_some_and(|(d, _)| *d == doc);
        if !same_doc && !self.camera.moving() {
            self.fit();
        }
        let changed = self
            .built
            .as_ref()
            .is_none_or(|(d, built)| *d != doc || built != m);
        if changed {
            self.drawn
                .retain(|name, _| ops::index_of(m, name).is_some());
            self.auto = GraphView::arrange_with_missing(m, &self.drawn)
                .into_iter()
                .collect();
            self.auto_sizes.clear();
            if !same_doc {
                self.fit_on_layout = true;
            }
            // Node ids follow state indices, which an edit may shift.
            self.rects.clear();
            self.pins.clear();
        }
        // Every node is inserted, then the ones out of view removed: node ids stay the state's
        // index whatever is visible, so snarl's per-node memory (sizes) stays with its node.
        let mut snarl = Snarl::new();
        let entry = snarl.insert_node(Pos2::ZERO, GNode::Entry);
        let ids: Vec<NodeId> = (0..m.states.len())
            .map(|i| snarl.insert_node(Pos2::ZERO, GNode::State(i)))
            .collect();
        let index: HashMap<&str, usize> = m
            .states
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect();
        let mut missing: HashMap<String, NodeId> = HashMap::new();
        let mut culled = Vec::new();
        for (i, s) in m.states.iter().enumerate() {
            for (j, (_, target)) in s.on.iter().enumerate() {
                let to = match index.get(target.as_str()) {
                    Some(&k) if visible[i] && visible[k] => ids[k],
                    Some(&k) => {
                        culled.push((i, j, k));
                        continue;
                    }
                    None if !visible[i] => continue,
                    None => *missing.entry(target.clone()).or_insert_with(|| {
                        snarl.insert_node(Pos2::ZERO, GNode::Missing(target.clone()))
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
        match index.get(ops::initial(m)) {
            Some(&k) if visible[k] => {
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
            _ => {
                snarl.remove_node(entry);
            }
        }
        for (i, id) in ids.iter().enumerate() {
            if !visible[i] {
                snarl.remove_node(*id);
            }
        }
        self.snarl = snarl;
        self.culled = culled;
        self.built_visible = visible;
        self.built = Some((doc, m.clone()));
        self.selection.retain(|n| index.contains_key(n.as_str()));
    }

    /// Where each node should be this frame.
    fn expected(&self, m: &MachineAsset, layout: &Layout) -> HashMap<NodeId, Pos2> {
        let mut out = HashMap::new();
        let mut missing_row = 0.0;
        for (id, node) in self.snarl.nodes_ids_data() {
            let p = match &node.value {
                GNode::State(i) => self.position(layout, &m.states[*i].name),
                GNode::Entry => {
                    let [x, y] = self.position(layout, ops::initial(m));
                    [x - 110.0, y + 8.0]
                }
                GNode::Missing(name) => {
                    let from = m
                        .states
                        .iter()
                        .position(|s| s.on.iter().any(|(_, t)| t == name));
                    let laid_out = from.is_none_or(|i| layout.get(&m.states[i].name).is_none());
                    match (laid_out, self.auto.get(name), from) {
                        // Content without a layout: its place in the flow.
                        (true, Some(p), _) => *p,
                        // Beside the first state that points at it, below its other targets.
                        (_, _, Some(i)) => {
                            let b = self.state_box(m, layout, i);
                            missing_row += 1.0;
                            [b.right() + 80.0, b.top() + 90.0 * (missing_row - 1.0)]
                        }
                        _ => [0.0, 0.0],
                    }
                }
            };
            out.insert(id, pos2(p[0], p[1]));
        }
        out
    }

    /// Draws the graph of the machine document `doc` and returns what the user did.
    pub fn show(
        &mut self,
        ui: &mut Ui,
        doc: usize,
        m: &MachineAsset,
        layout: &Layout,
        cx: &GraphCx,
    ) -> GraphOutput {
        let visible = self.visible(m, layout);
        if self
            .built
            .as_ref()
            .is_none_or(|(d, built)| *d != doc || built != m)
            || visible != self.built_visible
        {
            self.rebuild(doc, m, visible);
        }
        let expected = self.expected(m, layout);
        for (id, pos) in &expected {
            if let Some(info) = self.snarl.get_node_info_mut(*id) {
                info.pos = *pos;
            }
        }

        // When the view moves this frame, it draws again at once with the states now in view.
        self.camera.begin(ui);
        let marks = Marks::of(cx.diagnostics);
        let stubs = self.stubs(m, layout, &marks);
        let mut out = GraphOutput::default();
        let mut clicked: Option<String> = None;
        let pointer = ui
            .input(|i| i.pointer.latest_pos())
            .map(|p| self.camera.to_screen.inverse() * p);
        let mut viewer = Viewer {
            m,
            cx,
            marks: &marks,
            selection: &self.selection,
            out: &mut out,
            clicked: &mut clicked,
            rects: &mut self.rects,
            pins: &mut self.pins,
            camera: &mut self.camera,
            layout,
            auto: &self.auto,
            drawn: &self.drawn,
            wires: &mut self.wires,
            pointer,
        };
        let widget = SnarlWidget::new().id(self.id).style(crate::graph::style());
        widget.show(&mut self.snarl, &mut viewer, ui);
        let color = |pin: OutPinId| match self.snarl.get_node(pin.node) {
            Some(GNode::State(i)) => transition_color(m, &marks, *i, pin.output),
            _ => theme::ACCENT,
        };
        self.wires.paint(
            ui,
            &self.snarl,
            &self.rects,
            &self.pins,
            self.camera.to_screen,
            color,
            stubs,
        );
        let canvas = crate::graph::comments::show(
            ui,
            &self.camera,
            layout,
            &|n| ops::index_of(m, n).map(|i| self.state_box(m, layout, i)),
            &|n| self.position(layout, n),
        );
        out.ops.extend(canvas.edits.into_iter().map(Op::Canvas));
        if !canvas.moves.is_empty() {
            let all = m
                .states
                .iter()
                .map(|s| (s.name.clone(), self.position(layout, &s.name)));
            let moves = crate::graph::complete_move(canvas.moves, layout, all);
            out.ops.push(Op::Move(moves));
        }
        let boxes: Vec<Rect> = (0..m.states.len())
            .map(|i| self.state_box(m, layout, i))
            .collect();
        crate::graph::minimap::show(ui, &mut self.camera, &boxes);

        for (id, node) in self.snarl.nodes_ids_data() {
            if let (GNode::State(i), Some(r)) = (&node.value, self.rects.get(&id)) {
                self.drawn.insert(m.states[*i].name.clone(), r.size());
            }
        }
        let unplaced = || m.states.iter().filter(|s| layout.get(&s.name).is_none());
        let measured = unplaced().all(|s| self.drawn.contains_key(&s.name));
        let resized =
            unplaced().any(
                |s| match (self.drawn.get(&s.name), self.auto_sizes.get(&s.name)) {
                    (Some(now), Some(was)) => (*now - *was).length() > 0.5,
                    (Some(_), None) => true,
                    (None, _) => false,
                },
            );
        if measured && resized {
            self.auto_sizes = unplaced()
                .map(|s| (s.name.clone(), self.drawn[&s.name]))
                .collect();
            let auto: HashMap<_, _> = GraphView::arrange_with_missing(m, &self.drawn)
                .into_iter()
                .collect();
            if auto != self.auto {
                self.auto = auto;
                if self.fit_on_layout {
                    // Fit over the next frames, once the states are drawn where they now
                    // stand. Sizes settle, so the layout stops changing and this ends.
                    self.camera.fit();
                }
                ui.ctx().request_repaint();
            }
        } else if !self.camera.fitting() {
            // Settled: later size changes move states but leave the user's view alone.
            self.fit_on_layout = false;
        }
        // Moves: read back where nodes ended up.
        let state_name = |n: &GNode| match n {
            GNode::State(i) => Some(m.states[*i].name.clone()),
            _ => None,
        };
        let moved = crate::graph::moved(&self.snarl, &expected, state_name);
        if !moved.is_empty() {
            let all = m
                .states
                .iter()
                .map(|s| (s.name.clone(), self.position(layout, &s.name)));
            out.ops
                .push(Op::Move(crate::graph::complete_move(moved, layout, all)));
        }

        // Selection: box select (Shift+drag) is snarl's; clicks are ours.
        crate::graph::Select {
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
        out.rename |= crate::graph::rename_key(ui, &self.selection);
        if let Some(states) = out.delete.take() {
            out.ops.extend(self.request_delete(m, states));
        }
        out.ops.extend(self.confirm_delete(ui));
        out
    }

    /// Deletes `states`: at once when no transition from a state that stays leads into them,
    /// else after asking (the dialog lists those transitions, which go with them). Either way
    /// one undoable op.
    pub fn request_delete(&mut self, m: &MachineAsset, states: BTreeSet<String>) -> Option<Op> {
        let incoming: Vec<String> = m
            .states
            .iter()
            .filter(|s| !states.contains(&s.name))
            .flat_map(|s| {
                s.on.iter()
                    .filter(|(_, to)| states.contains(to))
                    .map(move |(event, to)| format!("{} on {event} → {to}", s.name))
            })
            .collect();
        if incoming.is_empty() {
            return Some(Op::Delete(states));
        }
        self.pending_delete = Some(PendingDelete { states, incoming });
        None
    }

    /// The dialog of a delete that takes transitions with it.
    fn confirm_delete(&mut self, ui: &Ui) -> Option<Op> {
        let pending = self.pending_delete.as_ref()?;
        let mut answer = None;
        let names: Vec<&str> = pending.states.iter().map(String::as_str).collect();
        let modal = egui::Modal::new(self.id.with("confirm-delete")).show(ui.ctx(), |ui| {
            ui.set_max_width(420.0);
            ui.heading(format!("Delete {}?", names.join(", ")));
            let n = pending.incoming.len();
            ui.label(format!(
                "{n} transition{} into {} go{} too:",
                if n == 1 { "" } else { "s" },
                if names.len() == 1 { "it" } else { "them" },
                if n == 1 { "es" } else { "" },
            ));
            for t in &pending.incoming {
                ui.label(RichText::new(format!("  {t}")).color(theme::WARNING));
            }
            ui.label(RichText::new("Ctrl+Z brings them all back.").color(theme::TEXT_WEAK));
            ui.horizontal(|ui| {
                if ui
                    .button(RichText::new("Delete").color(theme::ERROR))
                    .clicked()
                {
                    answer = Some(true);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(false);
                }
            });
        });
        if modal.should_close() && answer.is_none() {
            answer = Some(false);
        }
        let yes = answer?;
        let pending = self.pending_delete.take()?;
        yes.then_some(Op::Delete(pending.states))
    }

    /// States of `m` whose nodes are selected.
    pub fn selected_states(&self, m: &MachineAsset) -> BTreeSet<String> {
        self.selection
            .iter()
            .filter(|n| ops::index_of(m, n).is_some())
            .cloned()
            .collect()
    }

    /// A free spot near the middle of the view, in graph coordinates, for a new state.
    pub fn free_spot(&self, m: &MachineAsset, layout: &Layout) -> [f32; 2] {
        let taken: Vec<Rect> = (0..m.states.len())
            .map(|i| self.state_box(m, layout, i))
            .collect();
        let at = crate::graph::free_spot(self.camera.centre() - NODE_SIZE / 2.0, NODE_SIZE, &taken);
        [at.x, at.y]
    }

    /// The toolbar above the graph: add a state, arrange, fit.
    pub fn toolbar(
        &mut self,
        ui: &mut Ui,
        m: &MachineAsset,
        layout: &Layout,
        names: &ProjectNames,
    ) -> Vec<Op> {
        let mut ops = Vec::new();
        let at = self.free_spot(m, layout);
        ui.menu_button("+ State", |ui| {
            let mut out = GraphOutput::default();
            let mut clicked = None;
            let mut rects = self.rects.clone();
            let mut pins = HashMap::new();
            let mut camera = Camera::default();
            let cx = GraphCx {
                names,
                diagnostics: &[],
                lines: &HashMap::new(),
                live: None,
                breakpoints: &[],
                unreached: &[],
            };
            let selection = BTreeSet::new();
            let marks = Marks::default();
            let mut viewer = Viewer {
                m,
                cx: &cx,
                marks: &marks,
                selection: &selection,
                out: &mut out,
                clicked: &mut clicked,
                rects: &mut rects,
                pins: &mut pins,
                camera: &mut camera,
                layout,
                auto: &self.auto,
                drawn: &self.drawn,
                wires: &mut Wires::default(),
                pointer: None,
            };
            viewer.add_menu(ui, pos2(at[0], at[1]), None);
            ops.extend(out.ops);
        })
        .response
        .on_hover_text("Add a state (or right-click the canvas)");
        if ui
            .button("Arrange (layered)")
            .on_hover_text("Arrange every state in layers that follow the flow (undoable)")
            .clicked()
        {
            ops.push(Op::Arrange(self.arrange_measured(m)));
        }
        let canvas = crate::graph::comments::toolbar(ui, &self.camera, &self.selection);
        ops.extend(canvas.into_iter().map(Op::Canvas));
        self.camera.controls(ui, &self.selection, "machine");
        ops
    }
}

struct Viewer<'a> {
    m: &'a MachineAsset,
    cx: &'a GraphCx<'a>,
    marks: &'a Marks,
    selection: &'a BTreeSet<String>,
    out: &'a mut GraphOutput,
    clicked: &'a mut Option<String>,
    rects: &'a mut HashMap<NodeId, Rect>,
    pins: &'a mut HashMap<(NodeId, Option<usize>), f32>,
    camera: &'a mut Camera,
    layout: &'a Layout,
    auto: &'a HashMap<String, [f32; 2]>,
    /// The size each state was last drawn at (for Auto-layout).
    drawn: &'a HashMap<String, Vec2>,
    wires: &'a mut Wires,
    /// The pointer in graph coordinates.
    pointer: Option<Pos2>,
}

/// Auto-layout positions of the states of `m`, from their drawn sizes where known.
fn arranged(m: &MachineAsset, drawn: &HashMap<String, Vec2>) -> Vec<(String, [f32; 2])> {
    let mut all = GraphView::arrange_with_missing(m, drawn);
    all.truncate(m.states.len());
    all
}

/// The colour of transition `j` of state `i` (see [`edges::color`]).
fn transition_color(m: &MachineAsset, marks: &Marks, i: usize, j: usize) -> Color32 {
    m.states
        .get(i)
        .and_then(|s| Some((s, s.on.get(j)?)))
        .map_or(theme::EDGE, |(s, (_, to))| {
            let marked = marks.transitions.get(&(s.name.clone(), j));
            edges::color(ops::index_of(m, to).is_some(), marked, theme::EDGE)
        })
}

/// The glow of active states: green live, amber when the preview shows the past.
fn live_color(live: &LiveMachine) -> Color32 {
    if live.scrubbed {
        theme::WARNING
    } else {
        crate::preview::live::LIVE
    }
}

/// The badge of a state no content test reached.
pub const NEVER_REACHED: &str = "NEVER REACHED";

/// How much of its fill a state no test reached keeps (the hatching shows through the rest).
const UNREACHED_FILL: f32 = 0.45;

impl Viewer<'_> {
    /// Behind each state no content test reached: diagonal hatching, seen through its dimmed
    /// fill.
    fn hatch_unreached(&self, painter: &egui::Painter, snarl: &Snarl<GNode>) {
        if self.cx.unreached.is_empty() {
            return;
        }
        let stroke = Stroke::new(1.0, theme::TEXT_WEAK.gamma_multiply(0.6));
        for (id, node) in snarl.nodes_ids_data() {
            let GNode::State(i) = node.value else {
                continue;
            };
            let (Some(s), Some(rect)) = (self.m.states.get(i), self.rects.get(&id)) else {
                continue;
            };
            if !self.cx.unreached.contains(&s.name) {
                continue;
            }
            theme::hatch(painter, *rect, stroke, 8.0);
        }
    }

    /// Behind each active state: a glow, and above it the agents in it (the preview's).
    fn draw_live(&self, live: &LiveMachine, painter: &egui::Painter, snarl: &Snarl<GNode>) {
        let color = live_color(live);
        for (id, node) in snarl.nodes_ids_data() {
            let GNode::State(i) = node.value else {
                continue;
            };
            let Some(s) = self.m.states.get(i) else {
                continue;
            };
            let agents = live.agents_in(&s.name);
            let Some(rect) = self.rects.get(&id).copied() else {
                continue;
            };
            if agents.is_empty() {
                continue;
            }
            for (k, alpha) in [(1.0, 70u8), (4.0, 38), (8.0, 20), (13.0, 9)] {
                painter.rect_filled(
                    rect.expand(k),
                    CornerRadius::same((7.0 + k) as u8),
                    Color32::from_rgba_unmultiplied(color.r(), color.g(), color.b(), alpha),
                );
            }
            // The agents' names in pills above the node, left to right.
            let mut x = rect.left() + 4.0;
            for a in agents {
                let font = egui::FontId::proportional(11.0);
                let galley = painter.layout_no_wrap(a.name.clone(), font, theme::CANVAS);
                let pill = Rect::from_min_size(
                    pos2(x, rect.top() - galley.size().y - 9.0),
                    galley.size() + vec2(14.0, 4.0),
                );
                painter.rect_filled(pill, CornerRadius::same(8), a.color);
                if a.selected {
                    painter.rect_stroke(
                        pill.expand(1.5),
                        CornerRadius::same(9),
                        Stroke::new(1.5, theme::TEXT),
                        egui::StrokeKind::Outside,
                    );
                }
                painter.galley(pill.min + vec2(7.0, 2.0), galley, theme::CANVAS);
                x = pill.right() + 4.0;
            }
        }
    }

    fn state(&self, node: &GNode) -> Option<&StateAsset> {
        match node {
            GNode::State(i) => self.m.states.get(*i),
            _ => None,
        }
    }

    fn pos(&self, name: &str) -> [f32; 2] {
        self.layout
            .get(name)
            .or_else(|| self.auto.get(name).copied())
            .unwrap_or([0.0, 0.0])
    }

    /// The states the layout does not place, where the auto-layout draws them.
    fn unplaced(&self) -> Vec<(String, [f32; 2])> {
        self.m
            .states
            .iter()
            .filter(|s| self.layout.get(&s.name).is_none())
            .map(|s| (s.name.clone(), self.pos(&s.name)))
            .collect()
    }

    fn name_of(&self, snarl: &Snarl<GNode>, node: NodeId) -> Option<String> {
        match snarl.get_node(node)? {
            GNode::State(i) => self.m.states.get(*i).map(|s| s.name.clone()),
            GNode::Missing(n) => Some(n.clone()),
            GNode::Entry => None,
        }
    }

    /// The library states a designer adds most, then the rest by name.
    fn add_menu(&mut self, ui: &mut Ui, at: Pos2, from: Option<From>) {
        use ensemble_runtime::stdlib as std_states;
        let common = [
            std_states::GOTO,
            std_states::WAIT,
            std_states::SAY,
            std_states::DIALOG,
            std_states::ONE_OFF,
            std_states::TALK_STATE_MACHINE,
            std_states::REQUEST_CONVERSATION,
            std_states::WAIT_FOR_CONVERSATION,
            std_states::SET,
            std_states::FINISH,
            std_states::FAIL,
        ];
        let library = &self.cx.names.library;
        let mut entries: Vec<&str> = common
            .iter()
            .copied()
            .filter(|c| library.iter().any(|l| l.standard_name() == Some(*c)))
            .collect();
        let mut rest: Vec<&str> = library
            .iter()
            .map(|l| l.name.as_str())
            .filter(|n| !entries.contains(n))
            .collect();
        rest.sort();
        entries.extend(rest);
        ui.label(RichText::new("New state").small().color(theme::TEXT_WEAK));
        // Search: by name or by what the state does (its doc), kept while the menu is open.
        let id = ui.id().with("add-state-search");
        let mut search: String = ui.data_mut(|d| d.get_temp(id)).unwrap_or_default();
        // Enter in the field takes the first match (read before the field gives up its focus).
        let field_id = id.with("field");
        let enter =
            ui.memory(|m| m.has_focus(field_id)) && ui.input(|i| i.key_pressed(egui::Key::Enter));
        let field = ui.add(
            egui::TextEdit::singleline(&mut search)
                .id(field_id)
                .hint_text("Search states")
                .desired_width(200.0),
        );
        if ui.memory(|m| m.focused().is_none()) {
            field.request_focus();
        }
        ui.data_mut(|d| d.insert_temp(id, search.clone()));
        let doc = |code: &str| {
            self.cx
                .names
                .library(code)
                .map(|l| l.doc.clone())
                .unwrap_or_default()
        };
        let wanted = search.trim().to_lowercase();
        entries.retain(|c| {
            wanted.is_empty()
                || c.to_lowercase().contains(&wanted)
                || doc(c).to_lowercase().contains(&wanted)
        });
        // Names that match first, then states whose doc does.
        entries.sort_by_key(|c| !c.to_lowercase().contains(&wanted));
        if entries.is_empty() {
            ui.label(RichText::new("No library state matches").color(theme::TEXT_WEAK));
        }
        let mut chosen = enter.then(|| entries.first().copied()).flatten();
        egui::ScrollArea::vertical()
            .max_height(320.0)
            .show(ui, |ui| {
                for code in &entries {
                    if ui.button(*code).on_hover_text(doc(code)).clicked() {
                        chosen = Some(code);
                    }
                }
            });
        if let Some(code) = chosen {
            let taken: Vec<Rect> = self.rects.values().copied().collect();
            let at = crate::graph::free_spot(at, NODE_SIZE, &taken);
            self.out.ops.push(Op::AddState {
                code: code.to_string(),
                modifier: default_modifier(code, self.cx.names),
                at: [at.x, at.y],
                from,
                keep: self.unplaced(),
            });
            ui.data_mut(|d| d.remove::<String>(id));
            ui.close();
        }
    }

    /// A click on a state's text selects it; a double-click on a host state opens its child.
    fn on_state_label(&mut self, r: &egui::Response, s: &StateAsset, look: Look) {
        if r.clicked() {
            *self.clicked = Some(s.name.clone());
        }
        // Any state whose modifier names a machine opens it, whatever its library state says.
        if r.double_clicked()
            && let Some(ModifierValue::Name(child)) = &s.modifier
            && (look == Look::Host || self.cx.names.machines.contains(child))
        {
            self.out.open_child = Some(child.clone());
        }
    }

    fn subtitle(&self, s: &StateAsset, look: Look) -> Vec<RichText> {
        let code = ops::code(s);
        let mut lines = Vec::new();
        let modifier = s.modifier.as_ref().map(|m| match m {
            ModifierValue::Name(n) => n.clone(),
            ModifierValue::Number(x) => format!("{x}"),
        });
        let code_line = if code == s.name {
            None
        } else if look == Look::Unknown {
            Some(
                RichText::new(format!("{code}?"))
                    .color(theme::ERROR)
                    .small(),
            )
        } else {
            Some(RichText::new(code).color(theme::TEXT_WEAK).small())
        };
        lines.extend(code_line);
        match (look, modifier) {
            (Look::Dialog, Some(sentence)) => {
                lines.push(
                    RichText::new(format!("says {sentence}"))
                        .color(theme::SPEECH)
                        .size(13.0),
                );
                if let Some(line) = self.cx.lines.get(&sentence) {
                    lines.push(
                        RichText::new(format!("“{line}”"))
                            .italics()
                            .color(theme::TEXT)
                            .size(13.0),
                    );
                }
            }
            (Look::OneOff | Look::Line, Some(text)) => {
                let shown = text.split('|').collect::<Vec<_>>().join("” / “");
                lines.push(
                    RichText::new(format!("“{shown}”"))
                        .italics()
                        .color(theme::TEXT)
                        .size(13.0),
                );
            }
            (Look::Host, Some(child)) => {
                lines.push(
                    RichText::new(format!("⏵ {child}"))
                        .color(theme::ACCENT)
                        .size(13.0),
                );
            }
            (_, Some(m)) => {
                let kind = self.cx.names.library(code).map(|l| l.modifier);
                // Read as a sentence: "Goto at Gate", "Wait 1.5 s", "RequestConversation with seller".
                let text = match kind {
                    Some(ModifierKind::Location) => format!("at {m}"),
                    Some(ModifierKind::Agent) => format!("with {m}"),
                    Some(ModifierKind::Number) => format!("{m} s"),
                    _ => m,
                };
                lines.push(RichText::new(text).color(theme::TEXT).size(13.0));
            }
            _ => {}
        }
        if let Some(values) = super::param_fields::summary(s) {
            lines.push(RichText::new(values).color(theme::TEXT).size(13.0));
        }
        lines
    }
}

/// What a new state starts with, so it is valid at once where a sensible value exists: a
/// second for a timer, the first location for a walk. Others (a child machine, a line) are the
/// designer's to choose, and the diagnostic says so.
fn default_modifier(code: &str, names: &ProjectNames) -> Option<ModifierValue> {
    match names.library(code)?.modifier {
        ModifierKind::Number => Some(ModifierValue::Number(1.0)),
        ModifierKind::Location => names.locations.first().cloned().map(ModifierValue::Name),
        _ => None,
    }
}

impl SnarlViewer<GNode> for Viewer<'_> {
    fn title(&mut self, node: &GNode) -> String {
        match node {
            GNode::Entry => "initial".into(),
            GNode::State(i) => self
                .m
                .states
                .get(*i)
                .map(|s| s.name.clone())
                .unwrap_or_default(),
            GNode::Missing(n) => n.clone(),
        }
    }

    fn node_frame(
        &mut self,
        default: egui::Frame,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<GNode>,
    ) -> egui::Frame {
        let mut frame = default;
        match &snarl[node] {
            GNode::Entry => {
                frame.fill = Color32::TRANSPARENT;
                frame.stroke = Stroke::NONE;
                frame.inner_margin = Margin::same(2);
            }
            GNode::Missing(_) => {
                frame.fill = theme::MISSING_FILL;
                frame.stroke = Stroke::new(1.5, theme::ERROR);
            }
            GNode::State(i) => {
                let s = &self.m.states[*i];
                let look = Look::of(ops::code(s), self.cx.names);
                frame.fill = look.fill();
                if matches!(look, Look::End | Look::Failure) {
                    frame.corner_radius = CornerRadius::same(14);
                }
                if let Some((sev, _)) = self.marks.states.get(&s.name) {
                    frame.stroke = Stroke::new(1.8, theme::severity_color(*sev));
                }
                if self.cx.unreached.contains(&s.name) {
                    frame.fill = frame.fill.gamma_multiply(UNREACHED_FILL);
                    frame.stroke = Stroke::new(1.2, theme::TEXT_WEAK);
                }
                if let Some(live) = self.cx.live
                    && !live.agents_in(&s.name).is_empty()
                {
                    frame.stroke = Stroke::new(2.4, live_color(live));
                }
                if self.selection.contains(&s.name) {
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
        snarl: &mut Snarl<GNode>,
    ) {
        ui.set_max_width(NODE_MAX_WIDTH);
        match snarl[node].clone() {
            GNode::Entry => {
                ui.label(RichText::new("▶ initial").small().color(theme::ACCENT))
                    .on_hover_text("The machine starts here. Drag this wire to another state to make it initial.");
            }
            GNode::Missing(name) => {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(&name).strong().color(theme::ERROR));
                });
            }
            GNode::State(i) => {
                let s = &self.m.states[i];
                let look = Look::of(ops::code(s), self.cx.names);
                ui.horizontal(|ui| {
                    if self.cx.breakpoints.contains(&s.name) {
                        crate::preview::breakpoint_dot(ui).on_hover_text("Breakpoint: an attached game pauses when an agent enters or leaves this state");
                    }
                    let r = clickable(
                        ui,
                        RichText::new(&s.name)
                            .strong()
                            .color(theme::TEXT)
                            .size(14.0),
                    );
                    self.on_state_label(&r, s, look);
                    if let Some((badge, color)) = look.badge() {
                        ui.label(RichText::new(badge).size(9.5).strong().color(color));
                    }
                    if self.cx.unreached.contains(&s.name) {
                        ui.label(
                            RichText::new(NEVER_REACHED)
                                .size(9.5)
                                .color(theme::TEXT_WEAK),
                        )
                        .on_hover_text("No content test run entered this state (Tests tab)");
                    }
                });
            }
        }
    }

    fn has_body(&mut self, node: &GNode) -> bool {
        match node {
            GNode::Entry => false,
            GNode::Missing(_) => true,
            GNode::State(i) => self.m.states.get(*i).is_some_and(|s| {
                !self
                    .subtitle(s, Look::of(ops::code(s), self.cx.names))
                    .is_empty()
            }),
        }
    }

    fn show_body(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<GNode>,
    ) {
        ui.set_max_width(NODE_MAX_WIDTH);
        ui.vertical(|ui| {
            ui.spacing_mut().item_spacing.y = 2.0;
            match snarl[node].clone() {
                GNode::Missing(_) => {
                    ui.label(RichText::new("no such state").small().color(theme::ERROR));
                }
                GNode::State(i) => {
                    let s = &self.m.states[i];
                    let look = Look::of(ops::code(s), self.cx.names);
                    for line in self.subtitle(s, look) {
                        let r = ui.add(
                            egui::Label::new(line)
                                .wrap()
                                .sense(Sense::click())
                                .selectable(false),
                        );
                        self.on_state_label(&r, s, look);
                    }
                }
                GNode::Entry => {}
            }
        });
    }

    fn inputs(&mut self, node: &GNode) -> usize {
        match node {
            GNode::Entry => 0,
            _ => 1,
        }
    }

    fn show_input(
        &mut self,
        pin: &InPin,
        ui: &mut Ui,
        snarl: &mut Snarl<GNode>,
    ) -> impl egui_snarl::ui::SnarlPin + 'static {
        self.pins
            .insert((pin.id.node, None), ui.max_rect().center().y);
        let fill = match &snarl[pin.id.node] {
            GNode::Missing(_) => theme::ERROR,
            _ => theme::EDGE,
        };
        PinInfo::circle()
            .with_fill(fill)
            .with_wire_color(Color32::TRANSPARENT)
    }

    fn outputs(&mut self, node: &GNode) -> usize {
        match node {
            GNode::Entry => 1,
            GNode::State(i) => self.m.states.get(*i).map_or(0, |s| s.on.len() + 1),
            GNode::Missing(_) => 0,
        }
    }

    fn show_output(
        &mut self,
        pin: &OutPin,
        ui: &mut Ui,
        snarl: &mut Snarl<GNode>,
    ) -> impl egui_snarl::ui::SnarlPin + 'static {
        self.pins
            .insert((pin.id.node, Some(pin.id.output)), ui.max_rect().center().y);
        let node = snarl[pin.id.node].clone();
        match node {
            GNode::Entry => PinInfo::circle()
                .with_fill(theme::ACCENT)
                .with_wire_color(Color32::TRANSPARENT),
            GNode::State(i) => {
                let s = &self.m.states[i];
                match s.on.get(pin.id.output) {
                    Some((event, target)) => {
                        let color = transition_color(self.m, self.marks, i, pin.id.output);
                        ui.label(
                            RichText::new(event)
                                .size(12.0)
                                .color(if color == theme::EDGE {
                                    theme::TEXT
                                } else {
                                    color
                                }),
                        )
                        .on_hover_text(format!("on {event} go to {target}"));
                        PinInfo::circle()
                            .with_fill(color)
                            .with_wire_color(Color32::TRANSPARENT)
                    }
                    None => {
                        ui.label(RichText::new("+").color(theme::TEXT_WEAK))
                            .on_hover_text("Drag to a state to add a transition, or to empty space to add a state");
                        PinInfo::default()
                            .with_shape(PinShape::Square)
                            .with_fill(theme::BOX_STROKE)
                            .with_wire_color(Color32::TRANSPARENT)
                    }
                }
            }
            GNode::Missing(_) => PinInfo::circle(),
        }
    }

    fn final_node_rect(
        &mut self,
        node: NodeId,
        rect: Rect,
        _ui: &mut Ui,
        _snarl: &mut Snarl<GNode>,
    ) {
        self.rects.insert(node, rect);
    }

    fn has_on_hover_popup(&mut self, node: &GNode) -> bool {
        matches!(node, GNode::State(_) | GNode::Missing(_))
    }

    fn show_on_hover_popup(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<GNode>,
    ) {
        match snarl[node].clone() {
            GNode::Missing(name) => {
                ui.label(format!("`{name}` is not a state of {}.", self.m.name));
                ui.label(
                    RichText::new(
                        "Connect the transition to an existing state, or add one with this name.",
                    )
                    .color(theme::TEXT_WEAK),
                );
            }
            GNode::State(i) => {
                let s = &self.m.states[i];
                let code = ops::code(s);
                match self.cx.names.library(code) {
                    Some(l) if !l.doc.is_empty() => {
                        ui.label(RichText::new(format!("{code}: {}", l.doc)).color(theme::TEXT));
                    }
                    Some(_) => {}
                    None => {
                        ui.label(
                            RichText::new(format!("{code}: not a library state of this project"))
                                .color(theme::ERROR),
                        );
                    }
                }
                if let Some((_, messages)) = self.marks.states.get(&s.name) {
                    for m in messages {
                        ui.label(RichText::new(m).color(theme::WARNING));
                    }
                }
                if Look::of(code, self.cx.names) == Look::Host {
                    ui.label(
                        RichText::new("Double-click to open its machine.").color(theme::TEXT_WEAK),
                    );
                }
            }
            GNode::Entry => {}
        }
    }

    fn has_graph_menu(&mut self, _pos: Pos2, _snarl: &mut Snarl<GNode>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: Pos2, ui: &mut Ui, _snarl: &mut Snarl<GNode>) {
        ui.menu_button("Add state", |ui| self.add_menu(ui, pos, None));
        if ui.button("Arrange (layered)").clicked() {
            self.out.ops.push(Op::Arrange(arranged(self.m, self.drawn)));
            ui.close();
        }
    }

    fn has_dropped_wire_menu(&mut self, src_pins: AnyPins, _snarl: &mut Snarl<GNode>) -> bool {
        matches!(src_pins, AnyPins::Out(_))
    }

    fn show_dropped_wire_menu(
        &mut self,
        pos: Pos2,
        ui: &mut Ui,
        src_pins: AnyPins,
        snarl: &mut Snarl<GNode>,
    ) {
        let AnyPins::Out(pins) = src_pins else { return };
        let Some(pin) = pins.first() else { return };
        let from = match snarl.get_node(pin.node) {
            Some(GNode::Entry) => From::Entry,
            Some(GNode::State(i)) => {
                let s = &self.m.states[*i];
                if pin.output < s.on.len() {
                    From::Transition(s.name.clone(), pin.output)
                } else {
                    From::NewTransition(s.name.clone())
                }
            }
            _ => return,
        };
        self.add_menu(ui, pos, Some(from));
    }

    fn has_node_menu(&mut self, node: &GNode) -> bool {
        matches!(node, GNode::State(_))
    }

    fn show_node_menu(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<GNode>,
    ) {
        let Some(s) = self.state(&snarl[node]).cloned() else {
            return;
        };
        *self.clicked = Some(s.name.clone());
        if ui.button("Rename…").clicked() {
            self.out.rename = true;
            ui.close();
        }
        if ops::initial(self.m) != s.name && ui.button("Make initial").clicked() {
            self.out.ops.push(Op::SetInitial(s.name.clone()));
            ui.close();
        }
        if let (Look::Host, Some(ModifierValue::Name(child))) =
            (Look::of(ops::code(&s), self.cx.names), &s.modifier)
            && ui.button(format!("Open {child}")).clicked()
        {
            self.out.open_child = Some(child.clone());
            ui.close();
        }
        if ui.button("Toggle breakpoint").clicked() {
            self.out.breakpoint = Some(s.name.clone());
            ui.close();
        }
        if ui.button("Copy").clicked() {
            self.out.copy = true;
            ui.close();
        }
        if ui.button("Duplicate").clicked() {
            let names: BTreeSet<String> = [s.name.clone()].into();
            let mut layout = Layout::default();
            let [x, y] = self.pos(&s.name);
            layout.set(&s.name, [x, y]);
            self.out.ops.push(Op::Paste {
                clip: Clip::of(self.m, &layout, &names),
                offset: [30.0, 30.0],
            });
            ui.close();
        }
        ui.separator();
        if ui
            .button(RichText::new("Delete").color(theme::ERROR))
            .clicked()
        {
            self.out.delete = Some([s.name.clone()].into());
            ui.close();
        }
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<GNode>) {
        let Some(target) = self.name_of(snarl, to.id.node) else {
            return;
        };
        match snarl.get_node(from.id.node) {
            Some(GNode::Entry) if ops::index_of(self.m, &target).is_some() => {
                self.out.ops.push(Op::SetInitial(target));
            }
            Some(GNode::State(i)) => {
                let s = &self.m.states[*i];
                if from.id.output < s.on.len() {
                    self.out.ops.push(Op::SetTarget {
                        state: s.name.clone(),
                        index: from.id.output,
                        target,
                    });
                } else {
                    self.out.ops.push(Op::AddTransition {
                        state: s.name.clone(),
                        target,
                    });
                }
            }
            _ => {}
        }
    }

    fn disconnect(&mut self, from: &OutPin, _to: &InPin, snarl: &mut Snarl<GNode>) {
        // Snarl hit its own straight wire; only a right-click on the edge as drawn removes it.
        if self.wires.hit(from.id, self.pointer, self.camera.scale()) {
            self.drop_outputs(from, snarl);
        }
    }

    fn drop_outputs(&mut self, pin: &OutPin, snarl: &mut Snarl<GNode>) {
        if let Some(GNode::State(i)) = snarl.get_node(pin.id.node) {
            let s = &self.m.states[*i];
            if pin.id.output < s.on.len() {
                self.out.ops.push(Op::RemoveTransition {
                    state: s.name.clone(),
                    index: pin.id.output,
                });
            }
        }
    }

    fn drop_inputs(&mut self, _pin: &InPin, _snarl: &mut Snarl<GNode>) {
        // Removing every transition into a state at once is too easy to do by accident.
    }

    fn draw_background(
        &mut self,
        background: Option<&BackgroundPattern>,
        viewport: &Rect,
        snarl_style: &SnarlStyle,
        style: &egui::Style,
        painter: &egui::Painter,
        _snarl: &Snarl<GNode>,
    ) {
        if let Some(background) = background {
            background.draw(viewport, snarl_style, style, painter);
        }
        if let Some(live) = self.cx.live {
            self.draw_live(live, painter, _snarl);
        }
        self.hatch_unreached(painter, _snarl);
        self.wires.reserve(painter);
    }

    fn current_transform(
        &mut self,
        to_global: &mut egui::emath::TSTransform,
        snarl: &mut Snarl<GNode>,
    ) {
        let m = self.m;
        let describe = |node: &GNode| match node {
            GNode::State(i) => {
                let [w, h] = estimated_size(&m.states[*i]);
                (Some(m.states[*i].name.clone()), vec2(w, h))
            }
            _ => (None, NODE_SIZE),
        };
        self.camera.follow(
            to_global,
            snarl,
            self.rects,
            describe,
            Some(ops::initial(m)),
        );
    }
}

/// Node size used where a node's own is not known yet.
pub const NODE_SIZE: Vec2 = vec2(200.0, 90.0);

/// About how big a state's node is drawn, from its texts (for the auto-layout, before the
/// node has ever been drawn).
pub fn estimated_size(s: &StateAsset) -> [f32; 2] {
    let chars = |t: &str| t.chars().count() as f32;
    let modifier = match &s.modifier {
        Some(ModifierValue::Name(n)) => chars(n) + 4.0,
        Some(ModifierValue::Number(_)) => 8.0,
        None => super::param_fields::summary(s).map_or(0.0, |v| chars(&v) + 4.0),
    };
    let body = (chars(ops::code(s)) * 6.0)
        .max(modifier * 6.8)
        .min(NODE_MAX_WIDTH);
    let events = s.on.iter().map(|(e, _)| chars(e)).fold(1.0, f32::max) * 6.6;
    let width = (chars(&s.name) * 8.0 + 50.0).max(body).max(events) + 24.0;
    let body_lines = 1.0 + (modifier * 6.8 / NODE_MAX_WIDTH).ceil();
    let height = 30.0 + 20.0 + body_lines * 17.0 + (s.on.len() as f32 + 1.0) * 20.0 + 10.0;
    [width.round(), height.round()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::locate_all;

    /// A standard state is drawn as what it is; a game's own state of the same name is the
    /// game's, drawn plain.
    #[test]
    fn only_the_standard_dialog_state_looks_like_a_dialog_state() {
        let entry = |standard| crate::asset_panel::LibraryEntry {
            name: ensemble_runtime::stdlib::DIALOG.into(),
            modifier: ModifierKind::Text,
            terminal: Terminal::No,
            raises: None,
            doc: String::new(),
            standard,
            params: Vec::new(),
        };
        let names = |standard| ProjectNames {
            library: vec![entry(standard)],
            ..Default::default()
        };
        assert_eq!(Look::of("Dialog", &names(true)), Look::Dialog);
        assert_eq!(Look::of("Dialog", &names(false)), Look::Plain);
        assert_eq!(Look::of("Dance", &names(true)), Look::Unknown);
    }

    #[test]
    fn diagnostics_mark_their_state_and_transition() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport/broken");
        let c = ensemble_compiler::compile_path(&root).unwrap();
        let located = locate_all(&c);
        let refs: Vec<&Located> = located
            .iter()
            .filter(|l| l.file.as_deref() == Some("BuyTicket.machine.ron"))
            .collect();
        let marks = Marks::of(&refs);
        assert_eq!(marks.states["WantTicketToX"].0, Severity::Error);
        assert_eq!(
            marks.transitions[&("WantTicketToX".to_string(), 0)],
            Severity::Error
        );
        // LeaveAtY is unreachable (a warning), and Salutation is fine.
        assert_eq!(marks.states["LeaveAtY"].0, Severity::Warning);
        assert!(!marks.states.contains_key("Salutation"));
    }

    #[test]
    fn layout_estimates_grow_with_content() {
        let small = StateAsset {
            name: "A".into(),
            code: None,
            modifier: None,
            params: Default::default(),
            on: vec![],
        };
        let big = StateAsset {
            name: "AVeryLongStateName".into(),
            code: Some("Say".into()),
            modifier: Some(ModifierValue::Name(
                "A long line that wraps over more than one row of the node".into(),
            )),
            params: Default::default(),
            on: vec![
                ("FinishStatement".into(), "A".into()),
                ("WaitForResponse".into(), "A".into()),
            ],
        };
        let (s, b) = (estimated_size(&small), estimated_size(&big));
        assert!(b[0] > s[0] && b[1] > s[1]);
        assert!(b[0] <= NODE_MAX_WIDTH + 24.0 + 1.0);
    }
}
