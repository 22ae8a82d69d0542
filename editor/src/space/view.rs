//! The graph of one HMM space, drawn by the shared graph viewer ([`crate::graph::viewer`]);
//! what is the space's own is the [`GraphModel`] here.
//!
//! Nodes: the initial-state marker, one node per state, and a red node for each transition
//! target that names no state. Each state lists its row p(s' | s) as output pins — the
//! probability (drag it, or double-click to type) and where it goes; a transition to itself is
//! drawn as `↺ stays` rather than as a wire through its own node — then a `+` pin that adds a
//! transition when dragged to a state or a new state when dropped on empty space. The footer
//! shows the row's sum: green at 1, in the warning colour otherwise, with a button that
//! normalises it. The disable state of a model dependency is marked and says what engages the
//! space. Each wire carries its probability at its middle, editable there too.

use super::ops;
use super::ops::Edit;
use crate::graph::edges;
use crate::graph::viewer::{
    From, GraphAsset, GraphEditor, GraphModel, GraphState, Marks, NODE_MAX_WIDTH, Placement,
};
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::{Color32, CornerRadius, Pos2, Rect, RichText, Stroke, Ui, Vec2, vec2};
use egui_snarl::OutPinId;
use ensemble_compiler::formats::spaces::{ExpectAsset, ShapeAsset, SpaceAsset, SpaceStateAsset};
use std::collections::HashMap;

/// About the size of a new state's node.
const NEW_NODE: Vec2 = vec2(180.0, 120.0);

/// The space graph editor.
pub type SpaceView = GraphEditor<SpaceOwn>;

/// What the space graph editor keeps besides the shared view state: the space it last drew.
#[derive(Default)]
pub struct SpaceOwn {
    built: Option<SpaceAsset>,
}

impl Default for SpaceView {
    fn default() -> Self {
        GraphEditor::new("space-graph")
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
    let p = crate::graph::layered::positions(sp.states.len(), root, &edges, &sizes);
    sp.states
        .iter()
        .zip(p)
        .map(|(s, p)| (s.name.clone(), p))
        .collect()
}

impl GraphState for SpaceStateAsset {
    fn name(&self) -> &str {
        &self.name
    }
    fn targets(&self) -> impl ExactSizeIterator<Item = &str> {
        self.to.iter().map(|(to, _)| to.as_str())
    }
    fn estimated_size(&self) -> Vec2 {
        Vec2::from(estimated_size(self))
    }
}

impl GraphAsset for SpaceAsset {
    type State = SpaceStateAsset;
    fn name(&self) -> &str {
        &self.name
    }
    fn state_list(&self) -> &[SpaceStateAsset] {
        &self.states
    }
    fn initial(&self) -> Option<&str> {
        self.initial.as_deref()
    }
    /// A transition to itself is the row's `↺ stays`, not a wire through its own node.
    fn wires_self_loops(&self) -> bool {
        false
    }
    fn new_state_size(&self) -> Vec2 {
        NEW_NODE
    }
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
    /// A new state at a free spot near the middle of the view, moving no other state.
    pub fn add_state(&self, sp: &SpaceAsset, layout: &Layout) -> Edit {
        Edit::AddState {
            at: self.free_spot(sp, layout),
            from: None,
            keep: self.placement.unplaced(sp, layout),
        }
    }

    fn rebuild(&mut self, sp: &SpaceAsset) {
        if self.own.built.as_ref().is_none_or(|b| b.name != sp.name) && !self.canvas.camera.moving()
        {
            self.fit_readable();
        }
        self.placement.auto = arrange(sp).into_iter().collect();
        self.placement
            .drawn
            .retain(|name, _| ops::index_of(sp, name).is_some());
        // Node ids follow state indices, which an edit may shift.
        self.canvas.rects.clear();
        self.canvas.pins.clear();
        self.canvas.rebuild(sp, &[]);
        self.own.built = Some(sp.clone());
        self.selection
            .retain(|n| sp.states.iter().any(|s| s.name == *n));
    }

    /// Draws the graph; returns the edits the user made.
    pub fn show(&mut self, ui: &mut Ui, sp: &SpaceAsset, cx: &ViewCx) -> ViewOutput {
        if self.own.built.as_ref() != Some(sp) {
            self.rebuild(sp);
        }
        let expected = self.canvas.place(sp, &self.placement, cx.layout);
        self.canvas.camera.begin(ui);
        let mut out = ViewOutput::default();
        let mut model = SpaceGraph {
            sp,
            marks: cx.marks,
            out: &mut out,
            layout: cx.layout,
            placement: &self.placement,
        };
        let gesture = self
            .canvas
            .draw(ui, &mut model, &self.selection, Vec::new());
        self.canvas.measure(&mut self.placement);
        self.minimap(ui, sp, cx.layout);
        self.wire_labels(ui, sp, &mut out);
        if let Some(moves) = self.canvas.finish(
            ui,
            &self.placement,
            cx.layout,
            &expected,
            gesture,
            &mut self.selection,
        ) {
            out.edits.push(Edit::Move(moves));
        }
        // Comments and groups over the states; a group's drag moves its states.
        let canvas = self.canvas_notes(ui, sp, cx.layout);
        out.edits.extend(canvas.edits.into_iter().map(Edit::Canvas));
        if !canvas.moves.is_empty() {
            out.edits.push(Edit::Move(canvas.moves));
        }
        out.rename |= crate::graph::rename_key(ui, &self.selection);
        out
    }

    /// Each wire's probability at the middle of the edge as drawn, editable in place.
    fn wire_labels(&self, ui: &mut Ui, sp: &SpaceAsset, out: &mut ViewOutput) {
        let camera = &self.canvas.camera;
        let clip = camera.viewport;
        for (i, st) in sp.states.iter().enumerate() {
            let Some(from_id) = self.canvas.node_of_index(i) else {
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
                let Some(mid) = self.canvas.wires.middle(pin).map(|p| camera.to_screen * p) else {
                    continue;
                };
                if !clip.contains(mid) {
                    continue;
                }
                let scale = camera.to_screen.scaling.clamp(0.6, 1.0);
                let rect = Rect::from_center_size(mid, vec2(40.0, 16.0) * scale);
                let mut value = *p;
                let mut child = ui.new_child(egui::UiBuilder::new().max_rect(rect));
                child.style_mut().override_font_id = Some(egui::FontId::proportional(11.5 * scale));
                child.spacing_mut().interact_size.y = 14.0 * scale;
                let r = child.put(rect, probability(&mut value));
                crate::marks::name_widget(&child, &r, format!("p({t} | {}) on the wire", st.name));
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
    /// "How do I get here?" on this state (from its menu).
    pub reach: Option<String>,
}

/// The space's part of the graph viewer, for one frame.
struct SpaceGraph<'a> {
    sp: &'a SpaceAsset,
    marks: &'a Marks,
    out: &'a mut ViewOutput,
    layout: &'a Layout,
    placement: &'a Placement,
}

impl SpaceGraph<'_> {
    fn is_disable(&self, st: &SpaceStateAsset) -> bool {
        self.sp.disable.as_deref() == Some(st.name.as_str())
    }

    fn lines(&self, st: &SpaceStateAsset) -> Vec<RichText> {
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
}

impl GraphModel for SpaceGraph<'_> {
    type Asset = SpaceAsset;

    fn asset(&self) -> &SpaceAsset {
        self.sp
    }

    fn transition_color(&self, i: usize, j: usize) -> Color32 {
        transition_color(self.sp, self.marks, i, j)
    }

    fn entry_hint(&self) -> &'static str {
        "Belief starts here (s0). Drag this wire to another state to make it initial."
    }

    fn plus_hint(&self) -> &'static str {
        "Drag the ■ beside it to a state to add a transition (the row stays a distribution), or to empty space to add a state"
    }

    fn frame(&self, i: usize, frame: &mut egui::Frame) {
        let st = &self.sp.states[i];
        if self.is_disable(st) {
            frame.fill = theme::SPECIAL_FILL;
            frame.corner_radius = CornerRadius::same(14);
        } else if st.action.is_some() {
            frame.fill = theme::SPEECH_FILL;
        }
        if let Some((sev, _)) = self.marks.states.get(&st.name) {
            frame.stroke = Stroke::new(1.8, theme::severity_color(*sev));
        }
    }

    fn after_name(&mut self, ui: &mut Ui, i: usize) {
        if self.is_disable(&self.sp.states[i]) {
            ui.label(RichText::new("DISABLE").size(9.5).strong().color(theme::SPECIAL))
                .on_hover_text("The disable state s_D of the space's model dependency: the space is disengaged while belief is here.");
        }
    }

    fn body(&self, i: usize) -> Vec<RichText> {
        self.lines(&self.sp.states[i])
    }

    fn has_footer(&self) -> bool {
        true
    }

    /// The row's sum, with a button that normalises it when it is off.
    fn footer(&mut self, ui: &mut Ui, i: usize) {
        let st = &self.sp.states[i];
        let sum = ops::row_sum(st);
        let ok = ops::is_normalised(st);
        let compiled = self.marks.rows.get(&st.name);
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
            crate::marks::name_widget(ui, &r, format!("row sum of {}", st.name));
            if !ok {
                r.on_hover_text("The transitions of a state must sum to 1.");
                let b = ui
                    .small_button("normalise")
                    .on_hover_text("Scale this row to sum to 1");
                crate::marks::name_widget(ui, &b, format!("normalise {}", st.name));
                if b.clicked() {
                    self.out.edits.push(Edit::Normalise(st.name.clone()));
                }
            }
        });
    }

    fn transition_label(&mut self, ui: &mut Ui, i: usize, j: usize) -> Color32 {
        let st = &self.sp.states[i];
        let (target, p) = &st.to[j];
        let own = *target == st.name;
        let color = transition_color(self.sp, self.marks, i, j);
        let mut value = *p;
        let r = ui.add(probability(&mut value));
        crate::marks::name_widget(ui, &r, format!("p({target} | {})", st.name));
        if r.changed() {
            self.out.edits.push(Edit::SetP {
                state: st.name.clone(),
                index: j,
                p: value,
            });
        }
        let text = if own {
            "↺ stays".to_string()
        } else {
            format!("⏵ {target}")
        };
        ui.label(
            RichText::new(text)
                .size(12.0)
                .color(if color == wire_color(*p) {
                    theme::TEXT
                } else {
                    color
                }),
        )
        .on_hover_text(format!("p({target} | {}) = {p}", st.name));
        if own { theme::BOX_STROKE } else { color }
    }

    fn has_hover(&self, i: usize) -> bool {
        self.marks.states.contains_key(&self.sp.states[i].name)
    }

    fn hover(&mut self, ui: &mut Ui, i: usize) {
        if let Some((_, messages)) = self.marks.states.get(&self.sp.states[i].name) {
            for m in messages {
                ui.label(RichText::new(m).color(theme::WARNING));
            }
        } else {
            ui.label(RichText::new("Click to edit it in the inspector.").color(theme::TEXT_WEAK));
        }
    }

    fn graph_menu(&mut self, ui: &mut Ui, at: Pos2) {
        self.add_menu(ui, at, None);
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

    fn add_menu(&mut self, ui: &mut Ui, at: Pos2, from: Option<From>) {
        if ui.button("New state here").clicked() {
            self.out.edits.push(Edit::AddState {
                at: [at.x, at.y],
                from,
                keep: self.placement.unplaced(self.sp, self.layout),
            });
            ui.close();
        }
    }

    fn node_menu(&mut self, ui: &mut Ui, i: usize) {
        let st = &self.sp.states[i];
        if self.is_disable(st) {
            if ui.button("Not the disable state").clicked() {
                self.out.edits.push(Edit::SetDisable(None));
                ui.close();
            }
        } else if ui.button("Make the disable state").clicked() {
            self.out.edits.push(Edit::SetDisable(Some(st.name.clone())));
            ui.close();
        }
        if !ops::is_normalised(st) && ui.button("Normalise row").clicked() {
            self.out.edits.push(Edit::Normalise(st.name.clone()));
            ui.close();
        }
        if ui
            .button("How do I get here?")
            .on_hover_text("Search for the player lines that make this state the most believed")
            .clicked()
        {
            self.out.reach = Some(st.name.clone());
            ui.close();
        }
    }

    fn rename(&mut self) {
        self.out.rename = true;
    }

    fn set_initial(&mut self, state: String) {
        self.out.edits.push(Edit::SetInitial(state));
    }

    fn duplicate(&mut self, i: usize) {
        let name = self.sp.states[i].name.clone();
        self.out.edits.push(Edit::Duplicate([name].into()));
    }

    fn delete(&mut self, i: usize) {
        let name = self.sp.states[i].name.clone();
        self.out.edits.push(Edit::Delete([name].into()));
    }

    fn retarget(&mut self, i: usize, j: usize, target: String) {
        self.out.edits.push(Edit::Retarget {
            state: self.sp.states[i].name.clone(),
            index: j,
            to: target,
        });
    }

    fn add_transition(&mut self, i: usize, target: String) {
        self.out.edits.push(Edit::AddTransition {
            from: self.sp.states[i].name.clone(),
            to: target,
        });
    }

    fn remove_transition(&mut self, i: usize, j: usize) {
        self.out.edits.push(Edit::RemoveTransition {
            state: self.sp.states[i].name.clone(),
            index: j,
        });
    }
}
