//! The one egui-snarl viewer of every graph editor. A graph is states joined by transitions,
//! with an initial-state marker and a red node for each target that names no state; what a
//! state and a transition look like, and what a gesture on them edits, is the graph's own
//! ([`GraphModel`]). Everything else — nodes, pins, wires, selection, moves, menus' shared
//! items, the camera — is here, once.

use super::comments::{self, CanvasEdit, CanvasOutput};
use super::edges::{self, Edge, PinKey, PinRows, Wires};
use super::{Camera, clickable};
use crate::analysis::Located;
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::emath::TSTransform;
use egui::{Color32, Margin, Pos2, Rect, RichText, Sense, Stroke, Ui, Vec2, pos2, vec2};
use egui_snarl::ui::{
    AnyPins, BackgroundPattern, PinInfo, PinShape, PinWireInfo, SnarlPin, SnarlStyle, SnarlViewer,
    SnarlWidget,
};
use egui_snarl::{InPin, InPinId, NodeId, OutPin, OutPinId, Snarl};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::locate::PathSeg;
use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};

/// A node of a graph.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// The initial-state marker.
    Entry,
    /// The state at this index of the asset.
    State(usize),
    /// A transition target that names no state (a typo stays visible where it happened).
    Missing(String),
}

/// Where a wire dropped on empty canvas came from: what the new state is joined to.
#[derive(Clone, Debug, PartialEq)]
pub enum From {
    /// The initial-state marker: the new state becomes initial.
    Entry,
    /// A new transition of this state.
    NewTransition(String),
    /// This transition of this state is pointed at the new state.
    Transition(String, usize),
}

/// Problems per state, per row (a state's transitions as a whole) and per transition, from
/// the diagnostics located in the graph's file.
#[derive(Default)]
pub struct Marks {
    pub states: HashMap<String, (Severity, Vec<String>)>,
    /// `transition-not-normalized` and other problems with the row as a whole.
    pub rows: HashMap<String, Severity>,
    pub transitions: HashMap<(String, usize), Severity>,
}

impl Marks {
    /// `transitions` is the field of a state that lists its transitions (`on`, `to`).
    pub fn of<'a>(diagnostics: impl IntoIterator<Item = &'a Located>, transitions: &str) -> Marks {
        // `Severity` orders Error first: the worse of two is the smaller.
        fn worsen(at: &mut Severity, sev: Severity) {
            *at = (*at).min(sev);
        }
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
            worsen(&mut e.0, sev);
            e.1.push(format!(
                "{}: {}",
                l.diagnostic.code.as_str(),
                l.diagnostic.message
            ));
            let row = match l.below_item() {
                [PathSeg::Field(f), PathSeg::Index(t), ..] if f == transitions => {
                    let t = marks.transitions.entry((name.clone(), *t)).or_insert(sev);
                    worsen(t, sev);
                    false
                }
                [PathSeg::Field(f)] => f == transitions,
                _ => false,
            };
            if row || l.diagnostic.code.as_str() == "transition-not-normalized" {
                worsen(marks.rows.entry(name.clone()).or_insert(sev), sev);
            }
        }
        marks
    }
}

/// A state as a node: its name and where its transitions go.
pub trait GraphState {
    fn name(&self) -> &str;
    fn targets(&self) -> impl ExactSizeIterator<Item = &str>;
    /// About how big the state is drawn, before it has been.
    fn estimated_size(&self) -> Vec2;
}

/// A graph's structure: its states, their transitions, where it starts (implemented by
/// each asset that is drawn as a graph).
pub trait GraphAsset {
    type State: GraphState;
    /// The graph's name (in "not a state of …").
    fn name(&self) -> &str;
    fn state_list(&self) -> &[Self::State];
    /// The state the graph starts in, when it names one.
    fn initial(&self) -> Option<&str>;
    fn states(&self) -> usize {
        self.state_list().len()
    }
    fn state_name(&self, i: usize) -> &str {
        self.state_list()[i].name()
    }
    fn transitions(&self, i: usize) -> usize {
        self.state_list()[i].targets().len()
    }
    /// The state transition `j` of state `i` goes to.
    fn target(&self, i: usize, j: usize) -> &str {
        self.state_list()[i].targets().nth(j).unwrap_or_default()
    }
    fn index_of(&self, name: &str) -> Option<usize> {
        self.state_list().iter().position(|s| s.name() == name)
    }
    fn estimated_size(&self, i: usize) -> Vec2 {
        self.state_list()[i].estimated_size()
    }
    /// Whether a transition from a state to itself is a wire (else the state's row says it).
    fn wires_self_loops(&self) -> bool {
        true
    }
    /// The size of a new state's node, for finding it a free place.
    fn new_state_size(&self) -> Vec2;
    /// The size of the marker and missing nodes, for fitting before they are drawn.
    fn marker_size(&self) -> Vec2 {
        vec2(120.0, 60.0)
    }
}

/// What differs between graph editors: how states and transitions are drawn, and the edits
/// a gesture on them makes (the model collects them, applied after the frame).
pub trait GraphModel {
    type Asset: GraphAsset;
    fn asset(&self) -> &Self::Asset;
    /// The colour of transition `j` of state `i`'s wire (see [`super::edges::color`]).
    fn transition_color(&self, i: usize, j: usize) -> Color32;

    /// The initial marker's tooltip.
    fn entry_hint(&self) -> &'static str;
    /// The `+` pin's tooltip.
    fn plus_hint(&self) -> &'static str {
        "Drag the ■ beside it to a state to add a transition, or to empty space to add a state"
    }
    /// State `i`'s frame: fill, corners, the stroke of its problems (selection is drawn on
    /// top by the viewer).
    fn frame(&self, i: usize, frame: &mut egui::Frame);
    /// Drawn before and after the state's name in its header.
    fn before_name(&mut self, _ui: &mut Ui, _i: usize) {}
    fn after_name(&mut self, _ui: &mut Ui, _i: usize) {}
    /// The lines below the name.
    fn body(&self, i: usize) -> Vec<RichText>;
    /// A click on the state's text (it is selected by the viewer): a double-click may open it.
    fn on_text(&mut self, _r: &egui::Response, _i: usize) {}
    fn has_footer(&self) -> bool {
        false
    }
    fn footer(&mut self, _ui: &mut Ui, _i: usize) {}
    /// The label of transition `j` of state `i`, beside its output pin; returns the pin's fill.
    fn transition_label(&mut self, ui: &mut Ui, i: usize, j: usize) -> Color32;
    fn has_hover(&self, i: usize) -> bool;
    fn hover(&mut self, ui: &mut Ui, i: usize);
    /// What the canvas's context menu offers; `at` is a free place for a new state.
    fn graph_menu(&mut self, ui: &mut Ui, at: Pos2);
    /// The ways to add a state at `at`, joined as `from` says.
    fn add_menu(&mut self, ui: &mut Ui, at: Pos2, from: Option<From>);
    /// A state's menu items between "Make initial" and "Duplicate".
    fn node_menu(&mut self, _ui: &mut Ui, _i: usize) {}
    /// Painted behind the nodes (glows, hatching), with the nodes' last rectangles.
    fn paint_behind(
        &self,
        _painter: &egui::Painter,
        _snarl: &Snarl<Node>,
        _rects: &HashMap<NodeId, Rect>,
    ) {
    }

    fn rename(&mut self);
    fn set_initial(&mut self, state: String);
    fn duplicate(&mut self, i: usize);
    fn delete(&mut self, i: usize);
    fn retarget(&mut self, i: usize, j: usize, target: String);
    fn add_transition(&mut self, i: usize, target: String);
    fn remove_transition(&mut self, i: usize, j: usize);
}

/// Where states are drawn: the layout's positions, else the auto-layout's, and the sizes they
/// were last drawn at. Apart from [`Canvas`] so a model can read it while the canvas draws.
#[derive(Default)]
pub struct Placement {
    /// Positions for states the layout does not place (content without a layout).
    pub auto: HashMap<String, [f32; 2]>,
    /// The size each state was last drawn at.
    pub drawn: HashMap<String, Vec2>,
}

impl Placement {
    /// The position a state is drawn at: its layout, else the auto-layout.
    pub fn position(&self, layout: &Layout, name: &str) -> [f32; 2] {
        layout
            .get(name)
            .or_else(|| self.auto.get(name).copied())
            .unwrap_or([0.0, 0.0])
    }

    /// The graph-space rectangle state `i` occupies: as last drawn, else estimated.
    pub fn state_box(&self, model: &impl GraphAsset, layout: &Layout, i: usize) -> Rect {
        let name = model.state_name(i);
        let [x, y] = self.position(layout, name);
        let size = self
            .drawn
            .get(name)
            .copied()
            .unwrap_or_else(|| model.estimated_size(i));
        Rect::from_min_size(pos2(x, y), size)
    }

    /// The states the layout does not place, where the auto-layout draws them: kept there
    /// when a state is added, so no state the designer did not move moves.
    pub fn unplaced(&self, model: &impl GraphAsset, layout: &Layout) -> Vec<(String, [f32; 2])> {
        (0..model.states())
            .map(|i| model.state_name(i))
            .filter(|n| layout.get(n).is_none())
            .map(|n| (n.to_string(), self.position(layout, n)))
            .collect()
    }

    /// A free place near `centre` for a new state, off every state.
    pub fn free_spot(&self, model: &impl GraphAsset, layout: &Layout, centre: Pos2) -> [f32; 2] {
        let taken: Vec<Rect> = (0..model.states())
            .map(|i| self.state_box(model, layout, i))
            .collect();
        let size = model.new_state_size();
        let at = super::free_spot(centre - size / 2.0, size, &taken);
        [at.x, at.y]
    }
}

/// The snarl of one graph and what was drawn of it last frame. The snarl is a *view*:
/// rebuilt from the asset when it changes, its nodes put where the layout says every frame,
/// and whatever the user does in it comes back as the model's edits.
pub struct Canvas {
    pub snarl: Snarl<Node>,
    /// Snarl's selection last frame (a box selection is noticed when it changes it).
    snarl_selection: Vec<NodeId>,
    pub camera: Camera,
    /// Node rectangles last frame, in graph coordinates.
    pub rects: HashMap<NodeId, Rect>,
    /// Pin rows last frame: (node, output or `None` for the input) -> y, graph coordinates.
    pub pins: PinRows,
    pub wires: Wires,
    /// The state names the snarl was built from, by index.
    names: Vec<String>,
    pub id: egui::Id,
    /// The pin a wire is being dragged from (while the button is held, and the frame it is
    /// released).
    wiring: Option<PinKey>,
    /// Where the pointer was last released on the canvas (not on a menu), graph coordinates: where a
    /// wire was dropped or the canvas right-clicked, so a new state goes there and not where
    /// its menu happens to be drawn (a menu near the bottom of the window opens upward).
    anchor: Option<Pos2>,
}

/// What the designer did in the viewer this frame that is not an edit.
#[derive(Default)]
pub struct Gesture {
    /// The state clicked (its text or its menu), by name.
    pub clicked: Option<String>,
}

impl Canvas {
    pub fn new(id: &str) -> Canvas {
        Canvas {
            snarl: Snarl::new(),
            snarl_selection: Vec::new(),
            camera: Camera::default(),
            rects: HashMap::new(),
            pins: HashMap::new(),
            wires: Wires::default(),
            names: Vec::new(),
            id: egui::Id::new(id),
            wiring: None,
            anchor: None,
        }
    }

    /// The node of state `i`, when the snarl holds it.
    pub fn node_of_index(&self, i: usize) -> Option<NodeId> {
        self.snarl
            .nodes_ids_data()
            .find(|(_, n)| n.value == Node::State(i))
            .map(|(id, _)| id)
    }

    fn node_of(&self, name: &str) -> Option<NodeId> {
        self.node_of_index(self.names.iter().position(|n| n == name)?)
    }

    /// Where the node of state `name` was drawn last frame, on screen (tests drive it).
    pub fn state_rect(&self, name: &str) -> Option<Rect> {
        let id = self.node_of(name)?;
        self.rects.get(&id).map(|r| self.camera.to_screen * *r)
    }

    /// Where output pin `output` of `state` was drawn last frame, on screen (the last output
    /// is the `+` pin).
    pub fn output_pin(&self, state: &str, output: usize) -> Option<Pos2> {
        let id = self.node_of(state)?;
        let (rect, y) = (self.rects.get(&id)?, self.pins.get(&(id, Some(output)))?);
        Some(self.camera.to_screen * pos2(rect.right(), *y))
    }

    /// Where the input pin of `state` was drawn last frame, on screen.
    pub fn input_pin(&self, state: &str) -> Option<Pos2> {
        let id = self.node_of(state)?;
        let (rect, y) = (self.rects.get(&id)?, self.pins.get(&(id, None))?);
        Some(self.camera.to_screen * pos2(rect.left(), *y))
    }

    /// Transition `index` of `state` as last drawn, on screen: the points its edge runs
    /// through, ending at the target's input pin.
    pub fn edge_route(&self, state: &str, index: usize) -> Option<Vec<Pos2>> {
        let node = self.node_of(state)?;
        let route = self.wires.route(OutPinId {
            node,
            output: index,
        })?;
        Some(route.iter().map(|p| self.camera.to_screen * *p).collect())
    }

    /// Builds the snarl of `model` with the states `visible` says (all when it is empty);
    /// returns the transitions left out because an end is out of view, as (state,
    /// transition, target).
    pub fn rebuild(
        &mut self,
        model: &impl GraphAsset,
        visible: &[bool],
    ) -> Vec<(usize, usize, usize)> {
        let shown = |i: usize| visible.get(i).copied().unwrap_or(true);
        // Every node is inserted, then the ones out of view removed: node ids stay the state's
        // index whatever is visible, so snarl's per-node memory (sizes) stays with its node.
        let mut snarl = Snarl::new();
        let entry = snarl.insert_node(Pos2::ZERO, Node::Entry);
        let ids: Vec<NodeId> = (0..model.states())
            .map(|i| snarl.insert_node(Pos2::ZERO, Node::State(i)))
            .collect();
        let names: Vec<String> = (0..model.states())
            .map(|i| model.state_name(i).to_string())
            .collect();
        let index: HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let mut missing: HashMap<String, NodeId> = HashMap::new();
        let mut culled = Vec::new();
        for (i, from) in ids.iter().enumerate() {
            for j in 0..model.transitions(i) {
                let target = model.target(i, j);
                let to = match index.get(target) {
                    Some(&k) if k == i && !model.wires_self_loops() => continue,
                    Some(&k) if shown(i) && shown(k) => ids[k],
                    Some(&k) => {
                        culled.push((i, j, k));
                        continue;
                    }
                    None if !shown(i) => continue,
                    None => *missing.entry(target.to_string()).or_insert_with(|| {
                        snarl.insert_node(Pos2::ZERO, Node::Missing(target.to_string()))
                    }),
                };
                snarl.connect(
                    OutPinId {
                        node: *from,
                        output: j,
                    },
                    InPinId { node: to, input: 0 },
                );
            }
        }
        match model.initial().and_then(|n| index.get(n)) {
            Some(&k) if shown(k) => {
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
            if !shown(i) {
                snarl.remove_node(*id);
            }
        }
        self.snarl = snarl;
        self.names = names;
        culled
    }

    /// Where each node should be this frame, and puts it there: states where the layout (or
    /// the auto-layout) says, the marker left of the initial state, a missing target beside
    /// the first state that points at it.
    pub fn place(
        &mut self,
        model: &impl GraphAsset,
        placement: &Placement,
        layout: &Layout,
    ) -> HashMap<NodeId, Pos2> {
        let mut out = HashMap::new();
        let mut missing_row = 0.0;
        for (id, node) in self.snarl.nodes_ids_data() {
            let p = match &node.value {
                Node::State(i) => placement.position(layout, model.state_name(*i)),
                Node::Entry => {
                    let [x, y] = model
                        .initial()
                        .map_or([0.0, 0.0], |n| placement.position(layout, n));
                    [x - 110.0, y + 8.0]
                }
                Node::Missing(name) => {
                    let from = (0..model.states())
                        .find(|&i| (0..model.transitions(i)).any(|j| model.target(i, j) == name));
                    let laid_out = from.is_none_or(|i| layout.get(model.state_name(i)).is_none());
                    match (laid_out, placement.auto.get(name), from) {
                        // Content without a layout: its place in the flow.
                        (true, Some(p), _) => *p,
                        // Beside the first state that points at it, below its other targets.
                        (_, _, Some(i)) => {
                            let b = placement.state_box(model, layout, i);
                            missing_row += 1.0;
                            [b.right() + 80.0, b.top() + 90.0 * (missing_row - 1.0)]
                        }
                        _ => [0.0, 0.0],
                    }
                }
            };
            out.insert(id, pos2(p[0], p[1]));
        }
        for (id, pos) in &out {
            if let Some(info) = self.snarl.get_node_info_mut(*id) {
                info.pos = *pos;
            }
        }
        out
    }

    /// Draws the graph (nodes by snarl, then the edges as routed here, with `stubs` for
    /// edges whose end is out of view).
    pub fn draw(
        &mut self,
        ui: &mut Ui,
        model: &mut impl GraphModel,
        selection: &BTreeSet<String>,
        stubs: Vec<Edge>,
    ) -> Gesture {
        let mut gesture = Gesture::default();
        let from_screen = self.camera.to_screen.inverse();
        let pointer = ui
            .input(|i| i.pointer.latest_pos())
            .map(|p| from_screen * p);
        let (down, released, origin) = ui.input(|i| {
            (
                i.pointer.primary_down(),
                i.pointer.any_released(),
                i.pointer.press_origin(),
            )
        });
        if down && self.wiring.is_none() {
            self.wiring =
                origin.and_then(|o| edges::pin_under(from_screen * o, &self.rects, &self.pins));
        } else if !down && !released {
            self.wiring = None;
        }
        // Not a release on a menu above the canvas (a click on its item).
        let on_canvas = ui.input(|i| i.pointer.latest_pos()).is_some_and(|p| {
            self.camera.viewport.contains(p)
                && ui
                    .ctx()
                    .layer_id_at(p)
                    .is_none_or(|l| l.order == ui.layer_id().order)
        });
        if released && on_canvas {
            self.anchor = pointer;
        }
        let wiring = self.wiring;
        let mut viewer = Viewer {
            model: &mut *model,
            selection,
            gesture: &mut gesture,
            rects: &mut self.rects,
            pins: &mut self.pins,
            camera: &mut self.camera,
            wires: &mut self.wires,
            pointer,
            wiring,
            anchor: self.anchor,
        };
        let widget = SnarlWidget::new().id(self.id).style(super::style());
        widget.show(&mut self.snarl, &mut viewer, ui);
        let color = |pin: OutPinId| match self.snarl.get_node(pin.node) {
            Some(Node::State(i)) => model.transition_color(*i, pin.output),
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
            wiring,
        );
        gesture
    }

    /// Records the size each state was drawn at.
    pub fn measure(&self, placement: &mut Placement) {
        for (id, node) in self.snarl.nodes_ids_data() {
            if let (Node::State(i), Some(r)) = (&node.value, self.rects.get(&id))
                && let Some(name) = self.names.get(*i)
            {
                placement.drawn.insert(name.clone(), r.size());
            }
        }
    }

    /// After drawing: the states the designer dragged, as their new positions (every state
    /// on the first move of an auto-laid-out graph), and the selection by click, box and
    /// Ctrl/Shift-click. Returns the moves, when any.
    pub fn finish(
        &mut self,
        ui: &Ui,
        placement: &Placement,
        layout: &Layout,
        expected: &HashMap<NodeId, Pos2>,
        gesture: Gesture,
        selection: &mut BTreeSet<String>,
    ) -> Option<Vec<(String, [f32; 2])>> {
        let names = &self.names;
        let state_name = |n: &Node| match n {
            Node::State(i) => names.get(*i).cloned(),
            _ => None,
        };
        let moved = super::moved(&self.snarl, expected, state_name);
        let moves = (!moved.is_empty()).then(|| {
            let all = names
                .iter()
                .map(|name| (name.clone(), placement.position(layout, name)));
            super::complete_move(moved, layout, all)
        });
        super::Select {
            id: self.id,
            last: &mut self.snarl_selection,
            clicked: gesture.clicked,
            canvas: self.camera.viewport,
            node_rects: self
                .rects
                .iter()
                .map(|(id, r)| (*id, self.camera.to_screen * *r))
                .collect(),
        }
        .apply(ui, &self.snarl, selection, state_name);
        moves
    }
}

/// One graph editor's view state: the canvas, where states are drawn, the selection, and
/// what the particular editor keeps besides (`Own`: the machine editor's culling and pending
/// delete, the space editor's last-built asset). One per editor, following the open graph.
pub struct GraphEditor<Own> {
    pub canvas: Canvas,
    pub placement: Placement,
    pub selection: BTreeSet<String>,
    pub own: Own,
}

impl<Own: Default> GraphEditor<Own> {
    /// An editor whose snarl keeps its memory under `id`.
    pub fn new(id: &str) -> Self {
        GraphEditor {
            canvas: Canvas::new(id),
            placement: Placement::default(),
            selection: BTreeSet::new(),
            own: Own::default(),
        }
    }
}

impl<Own> GraphEditor<Own> {
    /// Centres the view on the state `name` and selects it.
    pub fn reveal(&mut self, name: &str) {
        self.selection = [name.to_string()].into();
        self.canvas.camera.reveal(name);
    }

    /// Shows the whole graph.
    pub fn fit(&mut self) {
        self.canvas.camera.fit();
    }

    /// Shows the whole graph if it reads so, else from its start (a graph just opened).
    pub fn fit_readable(&mut self) {
        self.canvas.camera.fit_readable();
    }

    /// The canvas on screen, as last drawn.
    pub fn canvas(&self) -> Rect {
        self.canvas.camera.viewport
    }

    /// The zoom the graph was last drawn at (1 = its own size).
    pub fn zoom(&self) -> f32 {
        self.canvas.camera.scale()
    }

    /// The position a state is drawn at: its layout, else the auto-layout.
    pub fn position(&self, layout: &Layout, name: &str) -> [f32; 2] {
        self.placement.position(layout, name)
    }

    /// Where the node of state `name` was drawn last frame, on screen (tests drive it).
    pub fn state_rect(&self, name: &str) -> Option<Rect> {
        self.canvas.state_rect(name)
    }

    /// Where output pin `output` of `state` was drawn last frame, on screen (the last output
    /// is the `+` pin).
    pub fn output_pin(&self, state: &str, output: usize) -> Option<Pos2> {
        self.canvas.output_pin(state, output)
    }

    /// Where the input pin of `state` was drawn last frame, on screen.
    pub fn input_pin(&self, state: &str) -> Option<Pos2> {
        self.canvas.input_pin(state)
    }

    /// Transition `index` of `state` as last drawn, on screen.
    pub fn edge_route(&self, state: &str, index: usize) -> Option<Vec<Pos2>> {
        self.canvas.edge_route(state, index)
    }

    /// A free place near the middle of the view, in graph coordinates, for a new state.
    pub fn free_spot(&self, graph: &impl GraphAsset, layout: &Layout) -> [f32; 2] {
        self.placement
            .free_spot(graph, layout, self.canvas.camera.centre())
    }

    /// Fit, Zoom to selection and the zoom percentage, for the toolbar; `what` names the
    /// graph in their tooltips.
    pub fn zoom_controls(&mut self, ui: &mut Ui, what: &str) {
        self.canvas.camera.controls(ui, &self.selection, what);
    }

    /// The minimap of `graph` in the canvas's corner (shown only when it is bigger than the
    /// view); a click there moves the camera.
    pub fn minimap(&mut self, ui: &Ui, graph: &impl GraphAsset, layout: &Layout) {
        let boxes: Vec<Rect> = (0..graph.states())
            .map(|i| self.placement.state_box(graph, layout, i))
            .collect();
        super::minimap::show(ui, &mut self.canvas.camera, &boxes);
    }

    /// The toolbar's + Comment and Group buttons (a group around the selection).
    pub fn canvas_toolbar(&self, ui: &mut Ui) -> Vec<CanvasEdit> {
        comments::toolbar(ui, &self.canvas.camera, &self.selection)
    }

    /// Draws the comments and groups of `layout` over the states of `graph`; returns their
    /// edits, and the node positions a group's drag moved them to (every state's, while some
    /// have no layout position yet, so the rest stay where they are drawn).
    pub fn canvas_notes(&self, ui: &Ui, graph: &impl GraphAsset, layout: &Layout) -> CanvasOutput {
        let placement = &self.placement;
        let index_of = |n: &str| graph.state_list().iter().position(|s| s.name() == n);
        let mut out = comments::show(
            ui,
            &self.canvas.camera,
            layout,
            &|n| index_of(n).map(|i| placement.state_box(graph, layout, i)),
            &|n| placement.position(layout, n),
        );
        if !out.moves.is_empty() {
            let all = graph.state_list().iter().map(|s| {
                let n = s.name().to_string();
                let p = placement.position(layout, &n);
                (n, p)
            });
            out.moves = super::complete_move(std::mem::take(&mut out.moves), layout, all);
        }
        out
    }
}

/// The snarl viewer of every graph: the shared parts of each node, pin and menu, and the
/// model for the rest.
struct Viewer<'a, M: GraphModel> {
    model: &'a mut M,
    selection: &'a BTreeSet<String>,
    gesture: &'a mut Gesture,
    rects: &'a mut HashMap<NodeId, Rect>,
    pins: &'a mut PinRows,
    camera: &'a mut Camera,
    wires: &'a mut Wires,
    /// The pointer in graph coordinates.
    pointer: Option<Pos2>,
    /// The pin a wire is being dragged from.
    wiring: Option<PinKey>,
    /// Where the pointer was released to open the menu shown (see [`Canvas`]).
    anchor: Option<Pos2>,
}

impl<M: GraphModel> Viewer<'_, M> {
    fn click(&mut self, r: &egui::Response, i: usize) {
        if r.clicked() {
            self.gesture.clicked = Some(self.model.asset().state_name(i).to_string());
        }
        self.model.on_text(r, i);
    }

    /// A free place for a new state asked for at `at`.
    fn free(&self, at: Pos2) -> Pos2 {
        let taken: Vec<Rect> = self.rects.values().copied().collect();
        super::free_spot(at, self.model.asset().new_state_size(), &taken)
    }

    /// Where a new state goes when its menu was opened by a release at the anchor (else at
    /// `menu`, the menu's corner): its input pin where the wire was dropped, or its corner
    /// where the canvas was clicked, moved off any state.
    fn new_state_at(&self, menu: Pos2, wired: bool) -> Pos2 {
        let Some(at) = self.anchor else {
            return self.free(menu);
        };
        if !wired {
            return self.free(at);
        }
        // The input pin's height in a state's node, as drawn.
        let pin = self
            .pins
            .iter()
            .filter(|((_, output), _)| output.is_none())
            .find_map(|((node, _), y)| Some(*y - self.rects.get(node)?.top()))
            .unwrap_or(INPUT_PIN_Y);
        self.free(at - vec2(0.0, pin))
    }

    /// A pin drawn as `info` says, taking the pointer over more than its dot: an output pin
    /// its row of the node's edge, the input pin the whole left edge — and, while a wire is
    /// dragged from another node, that node entire, so a wire dropped anywhere on a state
    /// connects to it.
    fn pin(&self, info: PinInfo, node: NodeId, output: Option<usize>) -> Pin {
        let grab = match (self.wiring, output) {
            (Some((from, Some(_))), None) if from != node => self
                .rects
                .get(&node)
                .map_or(Grab::Edge(None), |r| Grab::Node(r.expand(edges::GRAB))),
            // Another output pin takes no wire from an output: the node under it does.
            (Some((from, Some(_))), Some(_)) if from != node => Grab::Dot,
            (_, None) => Grab::Edge(self.rects.get(&node).map(|r| r.y_range())),
            (_, Some(_)) => Grab::Row,
        };
        Pin {
            info,
            grab,
            dot: Cell::new(None),
        }
    }
}

/// About where a node's input pin is below its top, before one has been drawn.
const INPUT_PIN_Y: f32 = 40.0;

/// What of a node a pin takes the pointer over.
enum Grab {
    /// Its dot only.
    Dot,
    /// Its row of the node's edge.
    Row,
    /// The node's edge, outside it, over these heights (as last drawn; else its row).
    Edge(Option<egui::Rangef>),
    /// This whole rectangle (the node, while a wire is dragged from another).
    Node(Rect),
}

/// A pin that takes the pointer over its [`Grab`] and is drawn as its dot.
struct Pin {
    info: PinInfo,
    grab: Grab,
    /// The dot's centre and the size of the target, found in `pin_rect`, for `draw`.
    dot: Cell<Option<(Pos2, Vec2)>>,
}

impl SnarlPin for Pin {
    fn pin_rect(&self, x: f32, y0: f32, y1: f32, size: f32) -> Rect {
        let centre = pos2(x, (y0 + y1) / 2.0);
        let dot = Rect::from_center_size(centre, vec2(size, size));
        let row = (centre.y - edges::ROW_GRAB)..=(centre.y + edges::ROW_GRAB);
        let target = match &self.grab {
            Grab::Dot => dot,
            Grab::Row => Rect::from_x_y_ranges((x - edges::GRAB)..=(x + edges::GRAB), row),
            // Outside the node: inside, its frame keeps its menu and its drag.
            Grab::Edge(heights) => Rect::from_x_y_ranges(
                (x - edges::GRAB)..=(x + edges::INSIDE),
                heights.map_or(row.into(), |h| h),
            ),
            Grab::Node(r) => r.union(dot),
        };
        self.dot.set(Some((centre, target.size())));
        target
    }

    fn draw(
        self,
        snarl_style: &SnarlStyle,
        style: &egui::Style,
        rect: Rect,
        painter: &egui::Painter,
    ) -> PinWireInfo {
        // Snarl passes the target, grown a fifth when the pointer is over it.
        let (centre, target) = self.dot.get().unwrap_or((rect.center(), rect.size()));
        let hovered = rect.width() > target.x + 0.5;
        let size = edges::PIN_SIZE * if hovered { 1.2 } else { 1.0 };
        let dot = Rect::from_center_size(centre, vec2(size, size));
        self.info.draw(snarl_style, style, dot, painter)
    }
}

/// The width a node's text wraps at.
pub const NODE_MAX_WIDTH: f32 = 240.0;

impl<M: GraphModel> SnarlViewer<Node> for Viewer<'_, M> {
    fn title(&mut self, node: &Node) -> String {
        match node {
            Node::Entry => "initial".into(),
            Node::State(i) if *i < self.model.asset().states() => {
                self.model.asset().state_name(*i).to_string()
            }
            Node::State(_) => String::new(),
            Node::Missing(n) => n.clone(),
        }
    }

    fn node_frame(
        &mut self,
        default: egui::Frame,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        snarl: &Snarl<Node>,
    ) -> egui::Frame {
        let mut frame = default;
        match &snarl[node] {
            Node::Entry => {
                frame.fill = Color32::TRANSPARENT;
                frame.stroke = Stroke::NONE;
                frame.inner_margin = Margin::same(2);
            }
            Node::Missing(_) => {
                frame.fill = theme::MISSING_FILL;
                frame.stroke = Stroke::new(1.5, theme::ERROR);
            }
            Node::State(i) => {
                self.model.frame(*i, &mut frame);
                if self.selection.contains(self.model.asset().state_name(*i)) {
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
        snarl: &mut Snarl<Node>,
    ) {
        ui.set_max_width(NODE_MAX_WIDTH);
        match snarl[node].clone() {
            Node::Entry => {
                ui.label(RichText::new("▶ initial").small().color(theme::ACCENT))
                    .on_hover_text(self.model.entry_hint());
            }
            Node::Missing(name) => {
                ui.horizontal(|ui| {
                    ui.label(RichText::new(&name).strong().color(theme::ERROR));
                });
            }
            Node::State(i) => {
                ui.horizontal(|ui| {
                    self.model.before_name(ui, i);
                    let name = self.model.asset().state_name(i).to_string();
                    let r = clickable(
                        ui,
                        RichText::new(name).strong().color(theme::TEXT).size(14.0),
                    );
                    self.click(&r, i);
                    self.model.after_name(ui, i);
                });
            }
        }
    }

    fn has_body(&mut self, node: &Node) -> bool {
        match node {
            Node::Entry => false,
            Node::Missing(_) => true,
            Node::State(i) => *i < self.model.asset().states() && !self.model.body(*i).is_empty(),
        }
    }

    fn show_body(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<Node>,
    ) {
        ui.set_max_width(NODE_MAX_WIDTH);
        ui.vertical(|ui| {
            ui.spacing_mut().item_spacing.y = 2.0;
            match snarl[node].clone() {
                Node::Missing(_) => {
                    ui.label(RichText::new("no such state").small().color(theme::ERROR));
                }
                Node::State(i) => {
                    for line in self.model.body(i) {
                        let r = ui.add(
                            egui::Label::new(line)
                                .wrap()
                                .sense(Sense::click())
                                .selectable(false),
                        );
                        self.click(&r, i);
                    }
                }
                Node::Entry => {}
            }
        });
    }

    fn has_footer(&mut self, node: &Node) -> bool {
        matches!(node, Node::State(_)) && self.model.has_footer()
    }

    fn show_footer(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<Node>,
    ) {
        if let Node::State(i) = snarl[node] {
            self.model.footer(ui, i);
        }
    }

    fn inputs(&mut self, node: &Node) -> usize {
        match node {
            Node::Entry => 0,
            _ => 1,
        }
    }

    fn show_input(
        &mut self,
        pin: &InPin,
        ui: &mut Ui,
        snarl: &mut Snarl<Node>,
    ) -> impl egui_snarl::ui::SnarlPin + 'static {
        self.pins
            .insert((pin.id.node, None), ui.max_rect().center().y);
        let fill = match &snarl[pin.id.node] {
            Node::Missing(_) => theme::ERROR,
            _ => theme::EDGE,
        };
        let info = PinInfo::circle()
            .with_fill(fill)
            .with_wire_color(Color32::TRANSPARENT);
        self.pin(info, pin.id.node, None)
    }

    fn outputs(&mut self, node: &Node) -> usize {
        match node {
            Node::Entry => 1,
            Node::State(i) if *i < self.model.asset().states() => {
                self.model.asset().transitions(*i) + 1
            }
            _ => 0,
        }
    }

    fn show_output(
        &mut self,
        pin: &OutPin,
        ui: &mut Ui,
        snarl: &mut Snarl<Node>,
    ) -> impl egui_snarl::ui::SnarlPin + 'static {
        self.pins
            .insert((pin.id.node, Some(pin.id.output)), ui.max_rect().center().y);
        let info = match snarl[pin.id.node].clone() {
            Node::Entry => PinInfo::circle()
                .with_fill(theme::ACCENT)
                .with_wire_color(Color32::TRANSPARENT),
            Node::State(i) if pin.id.output < self.model.asset().transitions(i) => {
                let fill = self.model.transition_label(ui, i, pin.id.output);
                PinInfo::circle()
                    .with_fill(fill)
                    .with_wire_color(Color32::TRANSPARENT)
            }
            Node::State(_) => {
                ui.label(RichText::new("+").color(theme::TEXT_WEAK))
                    .on_hover_text(self.model.plus_hint());
                PinInfo::default()
                    .with_shape(PinShape::Square)
                    .with_fill(theme::BOX_STROKE)
                    .with_wire_color(Color32::TRANSPARENT)
            }
            Node::Missing(_) => PinInfo::circle(),
        };
        self.pin(info, pin.id.node, Some(pin.id.output))
    }

    fn final_node_rect(
        &mut self,
        node: NodeId,
        rect: Rect,
        _ui: &mut Ui,
        _snarl: &mut Snarl<Node>,
    ) {
        self.rects.insert(node, rect);
    }

    fn has_on_hover_popup(&mut self, node: &Node) -> bool {
        match node {
            Node::Missing(_) => true,
            Node::State(i) => *i < self.model.asset().states() && self.model.has_hover(*i),
            Node::Entry => false,
        }
    }

    fn show_on_hover_popup(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<Node>,
    ) {
        match snarl[node].clone() {
            Node::Missing(name) => {
                ui.label(format!(
                    "`{name}` is not a state of {}.",
                    self.model.asset().name()
                ));
                ui.label(
                    RichText::new(
                        "Connect the transition to an existing state, or add one with this name.",
                    )
                    .color(theme::TEXT_WEAK),
                );
            }
            Node::State(i) => self.model.hover(ui, i),
            Node::Entry => {}
        }
    }

    fn has_graph_menu(&mut self, _pos: Pos2, _snarl: &mut Snarl<Node>) -> bool {
        true
    }

    fn show_graph_menu(&mut self, pos: Pos2, ui: &mut Ui, _snarl: &mut Snarl<Node>) {
        let at = self.new_state_at(pos, false);
        self.model.graph_menu(ui, at);
    }

    fn has_dropped_wire_menu(&mut self, src_pins: AnyPins, _snarl: &mut Snarl<Node>) -> bool {
        matches!(src_pins, AnyPins::Out(_))
    }

    fn show_dropped_wire_menu(
        &mut self,
        pos: Pos2,
        ui: &mut Ui,
        src_pins: AnyPins,
        snarl: &mut Snarl<Node>,
    ) {
        let AnyPins::Out(pins) = src_pins else { return };
        let Some(pin) = pins.first() else { return };
        let from = match snarl.get_node(pin.node) {
            Some(Node::Entry) => From::Entry,
            Some(Node::State(i)) => {
                let name = self.model.asset().state_name(*i).to_string();
                if pin.output < self.model.asset().transitions(*i) {
                    From::Transition(name, pin.output)
                } else {
                    From::NewTransition(name)
                }
            }
            _ => return,
        };
        let at = self.new_state_at(pos, true);
        self.model.add_menu(ui, at, Some(from));
    }

    fn has_node_menu(&mut self, node: &Node) -> bool {
        matches!(node, Node::State(_))
    }

    fn show_node_menu(
        &mut self,
        node: NodeId,
        _inputs: &[InPin],
        _outputs: &[OutPin],
        ui: &mut Ui,
        snarl: &mut Snarl<Node>,
    ) {
        let Node::State(i) = snarl[node] else { return };
        if i >= self.model.asset().states() {
            return;
        }
        let name = self.model.asset().state_name(i).to_string();
        self.gesture.clicked = Some(name.clone());
        if ui.button("Rename…").clicked() {
            self.model.rename();
            ui.close();
        }
        if self.model.asset().initial() != Some(name.as_str())
            && ui.button("Make initial").clicked()
        {
            self.model.set_initial(name);
            ui.close();
        }
        self.model.node_menu(ui, i);
        if ui.button("Duplicate").clicked() {
            self.model.duplicate(i);
            ui.close();
        }
        ui.separator();
        if ui
            .button(RichText::new("Delete").color(theme::ERROR))
            .clicked()
        {
            self.model.delete(i);
            ui.close();
        }
    }

    fn connect(&mut self, from: &OutPin, to: &InPin, snarl: &mut Snarl<Node>) {
        let target = match snarl.get_node(to.id.node) {
            Some(Node::State(k)) => self.model.asset().state_name(*k).to_string(),
            Some(Node::Missing(n)) => n.clone(),
            _ => return,
        };
        match snarl.get_node(from.id.node) {
            Some(Node::Entry) if self.model.asset().index_of(&target).is_some() => {
                self.model.set_initial(target);
            }
            Some(Node::State(i)) if from.id.output < self.model.asset().transitions(*i) => {
                self.model.retarget(*i, from.id.output, target);
            }
            Some(Node::State(i)) => self.model.add_transition(*i, target),
            _ => {}
        }
    }

    fn disconnect(&mut self, from: &OutPin, _to: &InPin, snarl: &mut Snarl<Node>) {
        // Snarl hit its own straight wire; only a right-click on the edge as drawn removes it.
        if self.wires.hit(from.id, self.pointer, self.camera.scale()) {
            self.drop_outputs(from, snarl);
        }
    }

    fn drop_outputs(&mut self, pin: &OutPin, snarl: &mut Snarl<Node>) {
        // A right-click on the dot removes its transition; one beside it, in the larger
        // target a drag starts from, does not.
        let on_dot = match (
            self.rects.get(&pin.id.node),
            self.pins.get(&(pin.id.node, Some(pin.id.output))),
            self.pointer,
        ) {
            (Some(r), Some(y), Some(p)) => {
                (p - pos2(r.right(), *y)).length() <= edges::PIN_SIZE / 2.0 + 2.0
            }
            _ => false,
        };
        if on_dot
            && let Some(Node::State(i)) = snarl.get_node(pin.id.node)
            && pin.id.output < self.model.asset().transitions(*i)
        {
            self.model.remove_transition(*i, pin.id.output);
        }
    }

    fn drop_inputs(&mut self, _pin: &InPin, _snarl: &mut Snarl<Node>) {
        // Removing every transition into a state at once is too easy to do by accident.
    }

    fn draw_background(
        &mut self,
        background: Option<&BackgroundPattern>,
        viewport: &Rect,
        snarl_style: &SnarlStyle,
        style: &egui::Style,
        painter: &egui::Painter,
        snarl: &Snarl<Node>,
    ) {
        if let Some(background) = background {
            background.draw(viewport, snarl_style, style, painter);
        }
        self.model.paint_behind(painter, snarl, self.rects);
        self.wires.reserve(painter);
    }

    fn current_transform(&mut self, to_global: &mut TSTransform, snarl: &mut Snarl<Node>) {
        let model = self.model.asset();
        let describe = |node: &Node| match node {
            Node::State(i) if *i < model.states() => (
                Some(model.state_name(*i).to_string()),
                model.estimated_size(*i),
            ),
            _ => (None, model.marker_size()),
        };
        self.camera
            .follow(to_global, snarl, self.rects, describe, model.initial());
    }
}
