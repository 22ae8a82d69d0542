//! The graph of one machine, drawn by the shared graph viewer ([`crate::graph::viewer`]):
//! what is the machine's own — how a state looks from its library state, its line, the
//! preview's agents in it, its breakpoint and test coverage, the add-state menu — is the
//! [`GraphModel`] here. Whatever the user does in the graph comes back as [`Edit`]s, so undo,
//! saving and diagnostics never depend on snarl's own state.
//!
//! Nodes: the initial-state marker (drag its wire to make another state initial), one node per
//! state, and a red node for each target that names no state (a typo stays visible where it
//! happened). Pins: one input per state; one output per transition, labelled with its event,
//! and a last `+` output that adds a transition when dragged to a state or dropped on empty
//! space (then a menu creates the new state there).

use super::auto_layout;
use super::edit::Edit;
use super::ops::{self, Clip};
use crate::analysis::Located;
use crate::graph::edges::{self, Edge};
use crate::graph::viewer::From;
use crate::graph::viewer::{
    GraphAsset, GraphEditor, GraphModel, GraphState, Marks, NODE_MAX_WIDTH, Node, Placement,
};
use crate::live::LiveMachine;
use crate::panel::ProjectNames;
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::{Color32, CornerRadius, Pos2, Rect, RichText, Stroke, Ui, Vec2, pos2, vec2};
use egui_snarl::{NodeId, Snarl};
use ensemble_compiler::formats::ron::{MachineAsset, ModifierValue, StateAsset};
use ensemble_runtime::program::{ModifierKind, Terminal};
use std::collections::{BTreeSet, HashMap};

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
    pub edits: Vec<Edit>,
    /// A host state was double-clicked: open this machine.
    pub open_child: Option<String>,
    /// Rename was asked from a node's menu: focus the inspector's name field.
    pub rename: bool,
    /// Copy the selection (from the menu; Ctrl+C is handled by the host).
    pub copy: bool,
    /// Toggle the breakpoint on this state (from its menu).
    pub breakpoint: Option<String>,
    /// "How do I get here?" on this state (from its menu).
    pub reach: Option<String>,
    /// Delete these states (from a node's menu), asking first when transitions go too.
    delete: Option<BTreeSet<String>>,
}

/// A delete waiting for the designer's yes: the states, and the transitions into them from
/// states that stay (which go with them), as "State on Event".
struct PendingDelete {
    states: BTreeSet<String>,
    incoming: Vec<String>,
}

/// The machine graph editor; one per editor, following the open machine.
pub type GraphView = GraphEditor<MachineOwn>;

/// What the machine graph editor keeps besides the shared view state.
#[derive(Default)]
pub struct MachineOwn {
    built: Option<(usize, MachineAsset)>,
    /// The sizes `auto` was laid out with, of the states the layout does not place. When a
    /// state is drawn at another size (measured for the first time, or its dialog line arrived
    /// with the compile — wider than any estimate knows), `auto` is laid out again.
    auto_sizes: HashMap<String, Vec2>,
    /// The machine was just opened: fit the view again to the measured layout.
    fit_on_layout: bool,
    /// Which states the snarl holds (the others are out of view).
    built_visible: Vec<bool>,
    /// Transitions with an end out of view: (state, transition, target), drawn by us.
    culled: Vec<(usize, usize, usize)>,
    pending_delete: Option<PendingDelete>,
}

impl Default for GraphView {
    fn default() -> Self {
        GraphEditor::new("machine-graph")
    }
}

/// How far beyond the view (screen points) states are still drawn, so panning shows no gap.
const CULL_MARGIN: f32 = 250.0;

impl GraphState for StateAsset {
    fn name(&self) -> &str {
        &self.name
    }
    fn targets(&self) -> impl ExactSizeIterator<Item = &str> {
        self.on.iter().map(|(_, to)| to.as_str())
    }
    fn estimated_size(&self) -> Vec2 {
        Vec2::from(estimated_size(self))
    }
}

impl GraphAsset for MachineAsset {
    type State = StateAsset;
    fn name(&self) -> &str {
        &self.name
    }
    fn state_list(&self) -> &[StateAsset] {
        &self.states
    }
    fn initial(&self) -> Option<&str> {
        Some(ops::initial(self))
    }
    fn new_state_size(&self) -> Vec2 {
        NEW_STATE_ROOM
    }
    fn marker_size(&self) -> Vec2 {
        NODE_SIZE
    }
}

impl GraphView {
    /// Auto-layout positions of every state of `m`, from the states' estimated sizes.
    pub fn arrange(m: &MachineAsset) -> Vec<(String, [f32; 2])> {
        arranged(m, &HashMap::new())
    }

    /// [`GraphView::arrange`] with the sizes states were last drawn at where known: a dialog
    /// state's line, which the estimate cannot see, makes its column wider. What the
    /// Auto-layout buttons ask for.
    pub fn arrange_measured(&self, m: &MachineAsset) -> Vec<(String, [f32; 2])> {
        arranged(m, &self.placement.drawn)
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

    /// The transitions not in the snarl because an end is out of view, as edges in graph
    /// coordinates: from the output pin's row, to the input pin.
    fn stubs(&self, m: &MachineAsset, layout: &Layout, marks: &Marks) -> Vec<Edge> {
        let pin = |i: usize, row: Option<usize>| {
            let id = self.canvas.node_of_index(i)?;
            self.canvas.pins.get(&(id, row)).copied()
        };
        self.own
            .culled
            .iter()
            .map(|&(i, j, k)| {
                let from_box = self.placement.state_box(m, layout, i);
                let from_y = pin(i, Some(j)).unwrap_or(from_box.top() + 56.0 + 20.0 * j as f32);
                let to_box = self.placement.state_box(m, layout, k);
                let to_y = pin(k, None).unwrap_or(to_box.top() + 40.0);
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
        let camera = &self.canvas.camera;
        if !camera.viewport.is_positive() || camera.moving() {
            return vec![true; m.states.len()];
        }
        let scale = camera.to_screen.scaling.max(0.05);
        let view = (camera.to_screen.inverse() * camera.viewport).expand(CULL_MARGIN / scale);
        (0..m.states.len())
            .map(|i| view.intersects(self.placement.state_box(m, layout, i)))
            .collect()
    }

    fn rebuild(&mut self, doc: usize, m: &MachineAsset, visible: Vec<bool>) {
        let same_doc = self.own.built.as_ref().is_some_and(|(d, _)| *d == doc);
        if !same_doc && !self.canvas.camera.moving() {
            self.fit_readable();
        }
        let changed = self
            .own
            .built
            .as_ref()
            .is_none_or(|(d, built)| *d != doc || built != m);
        if changed {
            let placement = &mut self.placement;
            placement
                .drawn
                .retain(|name, _| ops::index_of(m, name).is_some());
            placement.auto = GraphView::arrange_with_missing(m, &placement.drawn)
                .into_iter()
                .collect();
            self.own.auto_sizes.clear();
            if !same_doc {
                self.own.fit_on_layout = true;
            }
            // Node ids follow state indices, which an edit may shift.
            self.canvas.rects.clear();
            self.canvas.pins.clear();
        }
        self.own.culled = self.canvas.rebuild(m, &visible);
        self.own.built_visible = visible;
        self.own.built = Some((doc, m.clone()));
        self.selection.retain(|n| ops::index_of(m, n).is_some());
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
            .own
            .built
            .as_ref()
            .is_none_or(|(d, built)| *d != doc || built != m)
            || visible != self.own.built_visible
        {
            self.rebuild(doc, m, visible);
        }
        let expected = self.canvas.place(m, &self.placement, layout);

        // When the view moves this frame, it draws again at once with the states now in view.
        self.canvas.camera.begin(ui);
        let marks = Marks::of(cx.diagnostics.iter().copied(), "on");
        let stubs = self.stubs(m, layout, &marks);
        let mut out = GraphOutput::default();
        let mut model = MachineGraph {
            m,
            cx,
            marks: &marks,
            out: &mut out,
            layout,
            placement: &self.placement,
        };
        let gesture = self.canvas.draw(ui, &mut model, &self.selection, stubs);
        self.canvas.measure(&mut self.placement);
        self.relayout_resized(ui, m, layout);
        if let Some(moves) = self.canvas.finish(
            ui,
            &self.placement,
            layout,
            &expected,
            gesture,
            &mut self.selection,
        ) {
            out.edits.push(Edit::Move(moves));
        }
        // Comments and groups over the states; a group's drag moves its states.
        let canvas = self.canvas_notes(ui, m, layout);
        out.edits.extend(canvas.edits.into_iter().map(Edit::Canvas));
        if !canvas.moves.is_empty() {
            out.edits.push(Edit::Move(canvas.moves));
        }
        self.minimap(ui, m, layout);
        out.rename |= crate::graph::rename_key(ui, &self.selection);
        if let Some(states) = out.delete.take() {
            out.edits.extend(self.request_delete(m, states));
        }
        out.edits.extend(self.confirm_delete(ui));
        out
    }

    /// Lays the states the layout does not place out again when they were drawn at other
    /// sizes than laid out with (so they never overlap), fitting the view while the machine
    /// was just opened.
    fn relayout_resized(&mut self, ui: &Ui, m: &MachineAsset, layout: &Layout) {
        let drawn = &self.placement.drawn;
        let unplaced = || m.states.iter().filter(|s| layout.get(&s.name).is_none());
        let measured = unplaced().all(|s| drawn.contains_key(&s.name));
        let resized =
            unplaced().any(
                |s| match (drawn.get(&s.name), self.own.auto_sizes.get(&s.name)) {
                    (Some(now), Some(was)) => (*now - *was).length() > 0.5,
                    (Some(_), None) => true,
                    (None, _) => false,
                },
            );
        if measured && resized {
            self.own.auto_sizes = unplaced()
                .map(|s| (s.name.clone(), drawn[&s.name]))
                .collect();
            let auto: HashMap<_, _> = GraphView::arrange_with_missing(m, drawn)
                .into_iter()
                .collect();
            if auto != self.placement.auto {
                self.placement.auto = auto;
                if self.own.fit_on_layout {
                    // Fit over the next frames, once the states are drawn where they now
                    // stand. Sizes settle, so the layout stops changing and this ends.
                    self.canvas.camera.fit_readable();
                }
                ui.ctx().request_repaint();
            }
        } else if !self.canvas.camera.fitting() {
            // Settled: later size changes move states but leave the user's view alone.
            self.own.fit_on_layout = false;
        }
    }

    /// Deletes `states`: at once when no transition from a state that stays leads into them,
    /// else after asking (the dialog lists those transitions, which go with them). Either way
    /// one undoable edit.
    pub fn request_delete(&mut self, m: &MachineAsset, states: BTreeSet<String>) -> Option<Edit> {
        let incoming: Vec<String> = m
            .states
            .iter()
            .filter(|s| !states.contains(&s.name))
            .flat_map(|s| {
                s.on.iter()
                    .filter(|(_, to)| states.contains(to))
                    .map(move |(event, to)| format!("{} on {event} goes to {to}", s.name))
            })
            .collect();
        if incoming.is_empty() {
            return Some(Edit::Delete(states));
        }
        self.own.pending_delete = Some(PendingDelete { states, incoming });
        None
    }

    /// The dialog of a delete that takes transitions with it.
    fn confirm_delete(&mut self, ui: &Ui) -> Option<Edit> {
        let pending = self.own.pending_delete.as_ref()?;
        let mut answer = None;
        let names: Vec<&str> = pending.states.iter().map(String::as_str).collect();
        let modal = egui::Modal::new(self.canvas.id.with("confirm-delete")).show(ui.ctx(), |ui| {
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
        let pending = self.own.pending_delete.take()?;
        yes.then_some(Edit::Delete(pending.states))
    }

    /// States of `m` whose nodes are selected.
    pub fn selected_states(&self, m: &MachineAsset) -> BTreeSet<String> {
        self.selection
            .iter()
            .filter(|n| ops::index_of(m, n).is_some())
            .cloned()
            .collect()
    }

    /// The toolbar above the graph: add a state, arrange, fit.
    pub fn toolbar(
        &mut self,
        ui: &mut Ui,
        m: &MachineAsset,
        layout: &Layout,
        names: &ProjectNames,
    ) -> Vec<Edit> {
        let mut edits = Vec::new();
        let at = self.free_spot(m, layout);
        ui.menu_button("+ State", |ui| {
            let mut out = GraphOutput::default();
            let cx = GraphCx {
                names,
                diagnostics: &[],
                lines: &HashMap::new(),
                live: None,
                breakpoints: &[],
                unreached: &[],
            };
            let mut model = MachineGraph {
                m,
                cx: &cx,
                marks: &Marks::default(),
                out: &mut out,
                layout,
                placement: &self.placement,
            };
            model.add_menu(ui, pos2(at[0], at[1]), None);
            edits.extend(out.edits);
        })
        .response
        .on_hover_text("Add a state (or right-click the canvas)");
        if ui
            .button("Arrange (layered)")
            .on_hover_text("Arrange every state in layers that follow the flow (undoable)")
            .clicked()
        {
            edits.push(Edit::Arrange(self.arrange_measured(m)));
        }
        edits.extend(self.canvas_toolbar(ui).into_iter().map(Edit::Canvas));
        self.canvas.camera.controls(ui, &self.selection, "machine");
        edits
    }
}

/// The machine's part of the graph viewer, for one frame.
struct MachineGraph<'a> {
    m: &'a MachineAsset,
    cx: &'a GraphCx<'a>,
    marks: &'a Marks,
    out: &'a mut GraphOutput,
    layout: &'a Layout,
    placement: &'a Placement,
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
        crate::live::LIVE
    }
}

/// The badge of a state no content test reached.
pub const NEVER_REACHED: &str = "NEVER REACHED";

/// How much of its fill a state no test reached keeps (the hatching shows through the rest).
const UNREACHED_FILL: f32 = 0.45;

impl MachineGraph<'_> {
    /// Behind each state no content test reached: diagonal hatching, seen through its dimmed
    /// fill.
    fn hatch_unreached(
        &self,
        painter: &egui::Painter,
        snarl: &Snarl<Node>,
        rects: &HashMap<NodeId, Rect>,
    ) {
        if self.cx.unreached.is_empty() {
            return;
        }
        let stroke = Stroke::new(1.0, theme::TEXT_WEAK.gamma_multiply(0.6));
        for (id, node) in snarl.nodes_ids_data() {
            let Node::State(i) = node.value else {
                continue;
            };
            let (Some(s), Some(rect)) = (self.m.states.get(i), rects.get(&id)) else {
                continue;
            };
            if !self.cx.unreached.contains(&s.name) {
                continue;
            }
            theme::hatch(painter, *rect, stroke, 8.0);
        }
    }

    /// Behind each active state: a glow, and above it the agents in it (the preview's).
    fn draw_live(
        &self,
        live: &LiveMachine,
        painter: &egui::Painter,
        snarl: &Snarl<Node>,
        rects: &HashMap<NodeId, Rect>,
    ) {
        let color = live_color(live);
        for (id, node) in snarl.nodes_ids_data() {
            let Node::State(i) = node.value else {
                continue;
            };
            let Some(s) = self.m.states.get(i) else {
                continue;
            };
            let agents = live.agents_in(&s.name);
            let Some(rect) = rects.get(&id).copied() else {
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

    /// The library states a designer adds most, then the rest by name.
    fn library_menu(&mut self, ui: &mut Ui, at: Pos2, from: Option<From>) {
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
            self.out.edits.push(Edit::AddState {
                code: code.to_string(),
                modifier: default_modifier(code, self.cx.names),
                at: [at.x, at.y],
                from,
                keep: self.placement.unplaced(self.m, self.layout),
            });
            ui.data_mut(|d| d.remove::<String>(id));
            ui.close();
        }
    }

    fn look(&self, s: &StateAsset) -> Look {
        Look::of(ops::code(s), self.cx.names)
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

impl GraphModel for MachineGraph<'_> {
    type Asset = MachineAsset;

    fn asset(&self) -> &MachineAsset {
        self.m
    }

    fn transition_color(&self, i: usize, j: usize) -> Color32 {
        transition_color(self.m, self.marks, i, j)
    }

    fn entry_hint(&self) -> &'static str {
        "The machine starts here. Drag this wire to another state to make it initial."
    }

    fn frame(&self, i: usize, frame: &mut egui::Frame) {
        let s = &self.m.states[i];
        let look = self.look(s);
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
    }

    fn before_name(&mut self, ui: &mut Ui, i: usize) {
        if self.cx.breakpoints.contains(&self.m.states[i].name) {
            crate::marks::breakpoint_dot(ui).on_hover_text(
                "Breakpoint: an attached game pauses when an agent enters or leaves this state",
            );
        }
    }

    fn after_name(&mut self, ui: &mut Ui, i: usize) {
        let s = &self.m.states[i];
        if let Some((badge, color)) = self.look(s).badge() {
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
    }

    fn body(&self, i: usize) -> Vec<RichText> {
        let s = &self.m.states[i];
        self.subtitle(s, self.look(s))
    }

    /// A double-click on a host state opens its child.
    fn on_text(&mut self, r: &egui::Response, i: usize) {
        let s = &self.m.states[i];
        // Any state whose modifier names a machine opens it, whatever its library state says.
        if r.double_clicked()
            && let Some(ModifierValue::Name(child)) = &s.modifier
            && (self.look(s) == Look::Host || self.cx.names.machines.contains(child))
        {
            self.out.open_child = Some(child.clone());
        }
    }

    fn transition_label(&mut self, ui: &mut Ui, i: usize, j: usize) -> Color32 {
        let (event, target) = &self.m.states[i].on[j];
        let color = transition_color(self.m, self.marks, i, j);
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
        color
    }

    fn has_hover(&self, _i: usize) -> bool {
        true
    }

    fn hover(&mut self, ui: &mut Ui, i: usize) {
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
        if self.look(s) == Look::Host {
            ui.label(RichText::new("Double-click to open its machine.").color(theme::TEXT_WEAK));
        }
    }

    fn graph_menu(&mut self, ui: &mut Ui, at: Pos2) {
        ui.menu_button("Add state", |ui| self.add_menu(ui, at, None));
        if ui.button("Arrange (layered)").clicked() {
            self.out
                .edits
                .push(Edit::Arrange(arranged(self.m, &self.placement.drawn)));
            ui.close();
        }
    }

    fn add_menu(&mut self, ui: &mut Ui, at: Pos2, from: Option<From>) {
        self.library_menu(ui, at, from);
    }

    fn node_menu(&mut self, ui: &mut Ui, i: usize) {
        let s = &self.m.states[i];
        if let (Look::Host, Some(ModifierValue::Name(child))) = (self.look(s), &s.modifier)
            && ui.button(format!("Open {child}")).clicked()
        {
            self.out.open_child = Some(child.clone());
            ui.close();
        }
        if ui.button("Toggle breakpoint").clicked() {
            self.out.breakpoint = Some(s.name.clone());
            ui.close();
        }
        if ui
            .button("How do I get here?")
            .on_hover_text("Search for a play that enters this state, show it in the preview, and save it as a test")
            .clicked()
        {
            self.out.reach = Some(s.name.clone());
            ui.close();
        }
        if ui.button("Copy").clicked() {
            self.out.copy = true;
            ui.close();
        }
    }

    fn paint_behind(
        &self,
        painter: &egui::Painter,
        snarl: &Snarl<Node>,
        rects: &HashMap<NodeId, Rect>,
    ) {
        if let Some(live) = self.cx.live {
            self.draw_live(live, painter, snarl, rects);
        }
        self.hatch_unreached(painter, snarl, rects);
    }

    fn rename(&mut self) {
        self.out.rename = true;
    }

    fn set_initial(&mut self, state: String) {
        self.out.edits.push(Edit::SetInitial(state));
    }

    fn duplicate(&mut self, i: usize) {
        let name = &self.m.states[i].name;
        let names: BTreeSet<String> = [name.clone()].into();
        let mut layout = Layout::default();
        layout.set(name, self.placement.position(self.layout, name));
        self.out.edits.push(Edit::Paste {
            clip: Clip::of(self.m, &layout, &names),
            offset: [30.0, 30.0],
        });
    }

    fn delete(&mut self, i: usize) {
        self.out.delete = Some([self.m.states[i].name.clone()].into());
    }

    fn retarget(&mut self, i: usize, j: usize, target: String) {
        self.out.edits.push(Edit::SetTarget {
            state: self.m.states[i].name.clone(),
            index: j,
            target,
        });
    }

    fn add_transition(&mut self, i: usize, target: String) {
        self.out.edits.push(Edit::Connect {
            state: self.m.states[i].name.clone(),
            target,
        });
    }

    fn remove_transition(&mut self, i: usize, j: usize) {
        self.out.edits.push(Edit::RemoveTransition {
            state: self.m.states[i].name.clone(),
            index: j,
        });
    }
}

/// Node size used where a node's own is not known yet.
pub const NODE_SIZE: Vec2 = vec2(200.0, 90.0);

/// The room a new state is given: as wide as a node's text wraps (its frame's margins
/// besides) and two lines taller than [`NODE_SIZE`], so it stays clear of its neighbours
/// when a rename (or its first modifier) widens it.
pub const NEW_STATE_ROOM: Vec2 = vec2(NODE_MAX_WIDTH + 20.0, NODE_SIZE.y + 36.0);

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
    use ensemble_compiler::diag::Severity;

    /// A standard state is drawn as what it is; a game's own state of the same name is the
    /// game's, drawn plain.
    #[test]
    fn only_the_standard_dialog_state_looks_like_a_dialog_state() {
        let entry = |standard| crate::panel::LibraryEntry {
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
        let marks = Marks::of(refs, "on");
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
