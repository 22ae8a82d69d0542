//! The navigation graph form (`*.nav.ron`, docs/formats/nav.md): its one source — nodes and
//! edges written here (drawn on the plot, where nodes are dragged and double-click adds one;
//! doors in the warning colour), a MovingAI grid map (picked among the project's `.map` files,
//! shown in the navigation view with its PPA* clusters) or a DIMACS road graph (drawn on the
//! plot from its files, [`super::roads`]) — and the doors scenes open and close, with the PPA*
//! leaf size and the snap distance. The project's locations are drawn on the plot for context.

use super::plot::{self, Plot};
use super::roads::{self, Loaded, RoadCache};
use crate::form_widgets::{self as form, Diags, P, Side};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::nav::{
    DoorAsset, EdgeAsset, GridAsset, NavAsset, NodeAsset, NodeRef, RoadsAsset,
};
use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Nodes,
    Grid,
    Roads,
}

const SOURCES: [(Source, &str); 3] = [
    (Source::Nodes, "nodes and edges"),
    (Source::Grid, "a grid map"),
    (Source::Roads, "a road graph"),
];

fn source(n: &NavAsset) -> Source {
    match (&n.grid, &n.roads) {
        (Some(_), _) => Source::Grid,
        (None, Some(_)) => Source::Roads,
        (None, None) => Source::Nodes,
    }
}

/// `path` (relative to the project root) as written in a file in folder `dir` (also relative
/// to the root, `""` for the root itself).
pub fn relative_to(dir: &str, path: &str) -> String {
    let dir: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    let path: Vec<&str> = path.split('/').collect();
    let common = dir.iter().zip(&path).take_while(|(a, b)| a == b).count();
    let mut out: Vec<&str> = vec![".."; dir.len() - common];
    out.extend(&path[common..]);
    out.join("/")
}

/// The reverse of [`relative_to`]: a path written in folder `dir`, from the project root.
pub fn from_root(dir: &str, written: &str) -> String {
    let mut out: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for part in written.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                out.pop();
            }
            p => out.push(p),
        }
    }
    out.join("/")
}

fn node_label(nodes: &[NodeAsset], i: usize) -> String {
    nodes
        .get(i)
        .and_then(|n| n.name.clone())
        .unwrap_or_else(|| format!("#{i}"))
}

fn node_ref_label(r: &NodeRef) -> String {
    match r {
        NodeRef::Name(n) => n.clone(),
        NodeRef::Index(i) => format!("#{i}"),
    }
}

fn node_ref(label: &str) -> NodeRef {
    match label.strip_prefix('#').and_then(|i| i.parse().ok()) {
        Some(i) => NodeRef::Index(i),
        None => NodeRef::Name(label.to_string()),
    }
}

/// The index in `nodes` of a node named or counted.
fn node_index(nodes: &[NodeAsset], r: &NodeRef) -> Option<usize> {
    match r {
        NodeRef::Name(n) => nodes.iter().position(|x| x.name.as_deref() == Some(n)),
        NodeRef::Index(i) => Some(*i as usize).filter(|&i| i < nodes.len()),
    }
}

/// How an edge's ends are given.
#[derive(Clone, Copy)]
enum Ends<'a> {
    /// Picked among a waypoint graph's nodes (by name, `#i` for an unnamed one).
    Named(&'a [String]),
    /// A road graph's DIMACS ids, typed (a city has too many for a list); the build checks
    /// them against the graph.
    Ids,
}

/// Edges as rows of their two ends and a cost.
fn edges(ui: &mut Ui, id: &str, list: &mut Vec<EdgeAsset>, ends: Ends, noun: &str) -> bool {
    let mut changed = false;
    let mut remove = None;
    egui::Grid::new(egui::Id::new(("nav-edges", id)))
        .num_columns(5)
        .spacing([6.0, 4.0])
        .show(ui, |ui| {
            for (k, e) in list.iter_mut().enumerate() {
                for (end, r) in [("from", &mut e.from), ("to", &mut e.to)] {
                    let name = format!("{noun} {} {end}", k + 1);
                    match ends {
                        Ends::Named(nodes) => {
                            let mut label = node_ref_label(r);
                            if form::pick(ui, (id, k, end), &mut label, nodes, 130.0, name, "node…")
                            {
                                *r = node_ref(&label);
                                changed = true;
                            }
                        }
                        Ends::Ids => {
                            // A name means nothing on a road graph (the build says so): 0.
                            // The range holds every value a file may have, so showing one
                            // never clamps it.
                            let mut v = match r {
                                NodeRef::Index(i) => (*i).min(u32::MAX as u64) as u32,
                                NodeRef::Name(_) => 0,
                            };
                            if form::count(ui, &mut v, 0..=u32::MAX, "", name) {
                                *r = NodeRef::Index(v as u64);
                                changed = true;
                            }
                        }
                    }
                }
                let name = format!("{noun} {} cost", k + 1);
                changed |= form::opt_number(
                    ui,
                    &mut e.cost,
                    1.0,
                    0.0..=1e9,
                    0.1,
                    "",
                    "its length",
                    &name,
                );
                if form::remove_button(ui, format!("remove {noun} {}", k + 1)) {
                    remove = Some(k);
                }
                ui.end_row();
            }
        });
    if let Some(k) = remove {
        list.remove(k);
        changed = true;
    }
    if form::add_button(ui, format!("+ {noun}"), format!("add {noun}")) {
        let (first, second) = match ends {
            Ends::Named(nodes) => {
                let first = nodes.first().cloned().unwrap_or_default();
                let second = nodes.get(1).cloned().unwrap_or_else(|| first.clone());
                (node_ref(&first), node_ref(&second))
            }
            Ends::Ids => (NodeRef::Index(1), NodeRef::Index(2)),
        };
        list.push(EdgeAsset {
            from: first,
            to: second,
            cost: None,
            tuple: true,
        });
        changed = true;
    }
    changed
}

/// Adds a node named uniquely at `at`; returns its index.
fn add_node(nodes: &mut Vec<NodeAsset>, at: [f64; 2]) -> usize {
    let name = form::unique_name(nodes.iter().filter_map(|x| x.name.as_deref()), "Node");
    nodes.push(NodeAsset {
        name: Some(name),
        x: at[0],
        y: at[1],
    });
    nodes.len() - 1
}

/// A world position `(x, y)` in metres.
fn origin(ui: &mut Ui, at: &mut (f64, f64)) -> bool {
    ui.horizontal(|ui| {
        let x = form::number(ui, &mut at.0, -1e7..=1e7, 0.1, " m", "origin x");
        x | form::number(ui, &mut at.1, -1e7..=1e7, 0.1, " m", "origin y")
    })
    .inner
}

#[derive(Default)]
pub struct NavigationPanel {
    plot: Plot,
    selected: Option<usize>,
    /// The project's `.map` files (from its root), found once per project.
    maps: Option<(PathBuf, Vec<String>)>,
    pending: Option<Reveal>,
    roads: RoadCache,
    /// A large road graph's image as a texture, and the corners it covers (file units).
    overview: Option<(egui::TextureHandle, [i32; 2], [i32; 2])>,
}

impl NavigationPanel {
    fn maps(&mut self, root: &std::path::Path) -> &[String] {
        if self.maps.as_ref().is_none_or(|(r, _)| r != root) {
            self.maps = Some((root.to_path_buf(), crate::maps::find(root)));
        }
        self.maps.as_ref().map_or(&[], |(_, m)| m)
    }

    fn nodes(&mut self, ui: &mut Ui, n: &mut NavAsset, d: Diags) -> bool {
        let mut changed = false;
        form::section(ui, "Nodes");
        let mut remove = None;
        egui::Grid::new("nav-nodes")
            .num_columns(4)
            .spacing([6.0, 4.0])
            .striped(true)
            .show(ui, |ui| {
                for (i, node) in n.nodes.iter_mut().enumerate() {
                    let notes = d.notes(&[P::F("nodes"), P::I(i)]);
                    let name = format!("node {} name", i + 1);
                    let hint = format!("#{i}");
                    changed |= form::opt_text(ui, &mut node.name, 150.0, &hint, name, &notes);
                    changed |= form::number(
                        ui,
                        &mut node.x,
                        -1e7..=1e7,
                        0.1,
                        " m",
                        format!("node {} x", i + 1),
                    );
                    changed |= form::number(
                        ui,
                        &mut node.y,
                        -1e7..=1e7,
                        0.1,
                        " m",
                        format!("node {} y", i + 1),
                    );
                    if form::remove_button(ui, format!("remove node {}", i + 1)) {
                        remove = Some(i);
                    }
                    ui.end_row();
                }
            });
        if let Some(i) = remove {
            n.nodes.remove(i);
            changed = true;
        }
        if form::add_button(ui, "+ node", "add node") {
            let at = n.nodes.last().map_or([0.0, 0.0], |l| [l.x + 2.0, l.y]);
            self.selected = Some(add_node(&mut n.nodes, at));
            changed = true;
        }
        let labels: Vec<String> = (0..n.nodes.len())
            .map(|i| node_label(&n.nodes, i))
            .collect();
        form::section(ui, "Edges");
        form::help(
            ui,
            "Walkable straight lines, both ways; without a cost an edge costs its length.",
        );
        changed |= edges(ui, "edges", &mut n.edges, Ends::Named(&labels), "edge");
        form::problems(ui, d.under(&[P::F("edges")]));
        changed
    }

    fn grid(&mut self, ui: &mut Ui, g: &mut GridAsset, cx: &PanelCx) -> bool {
        let mut changed = false;
        let dir = cx.file.rsplit_once('/').map_or("", |(d, _)| d).to_string();
        let maps: Vec<String> = self
            .maps(cx.root)
            .iter()
            .map(|m| relative_to(&dir, m))
            .collect();
        form::grid(ui, "nav-grid", |ui| {
            form::label(
                ui,
                "Map",
                "A MovingAI .map file of the project, relative to this file.",
            );
            ui.horizontal(|ui| {
                changed |= form::pick(ui, "nav-map", &mut g.map, &maps, 240.0, "map", "map…");
                let show = ui.button("Show clusters…").on_hover_text(
                    "Open the map in the navigation view: PPA* clusters, paths between two cells",
                );
                crate::marks::name_widget(ui, &show, "show map");
                if show.clicked() {
                    cx.request(Request::ShowMap(from_root(&dir, &g.map)));
                }
            });
            ui.end_row();
            form::label(ui, "Cell size", "Metres a cell is wide.");
            changed |= form::number(ui, &mut g.cell_size, 0.001..=1e4, 0.01, " m", "cell size");
            ui.end_row();
            form::label(
                ui,
                "Origin",
                "World position of cell (0, 0), the map's top-left corner; rows go towards +y.",
            );
            changed |= origin(ui, &mut g.origin);
            ui.end_row();
        });
        changed
    }

    fn roads(&self, ui: &mut Ui, r: &mut RoadsAsset) -> bool {
        let mut changed = false;
        form::grid(ui, "nav-roads", |ui| {
            form::label(ui, "Graph", "The DIMACS .gr file, relative to this file.");
            changed |= form::text(ui, &mut r.graph, 240.0, "streets.gr", "road graph", &[]);
            ui.end_row();
            form::label(
                ui,
                "Coordinates",
                "The DIMACS .co file giving each node's position.",
            );
            changed |= form::text(
                ui,
                &mut r.coordinates,
                240.0,
                "streets.co",
                "road coordinates",
                &[],
            );
            ui.end_row();
            form::label(ui, "Unit", "Metres per coordinate unit.");
            changed |= form::number(ui, &mut r.unit, 1e-9..=1e9, 0.01, " m", "coordinate unit");
            ui.end_row();
            form::label(ui, "Cost unit", "Metres per unit of arc weight.");
            changed |= form::number(ui, &mut r.cost_unit, 1e-9..=1e9, 0.01, " m", "cost unit");
            ui.end_row();
            form::label(ui, "Origin", "World position of coordinate (0, 0).");
            changed |= origin(ui, &mut r.origin);
            ui.end_row();
        });
        let (text, color) = match self.roads.state() {
            Loaded::Unset => (
                "Name the .gr and .co files to draw the graph.".to_string(),
                theme::TEXT_WEAK,
            ),
            Loaded::Reading => ("Reading the road graph…".to_string(), theme::TEXT_WEAK),
            Loaded::Read(g) if g.as_image => (
                format!(
                    "{} nodes, {} roads: more than {} roads are drawn as one image (no junction ids), \
                     so frames stay fast; zoomed in it is coarse.",
                    g.xy.len(),
                    g.edges,
                    roads::MAX_DRAWN
                ),
                theme::TEXT_WEAK,
            ),
            Loaded::Read(g) => (
                format!("{} nodes, {} roads drawn.", g.xy.len(), g.edges),
                theme::TEXT_WEAK,
            ),
            Loaded::Failed(e) => (format!("⚠ Not drawn: {e}"), theme::ERROR),
        };
        ui.add(egui::Label::new(RichText::new(text).color(color)).wrap());
        changed
    }

    fn doors(&mut self, ui: &mut Ui, n: &mut NavAsset, d: Diags) -> bool {
        let mut changed = false;
        form::section(ui, "Doors");
        form::help(
            ui,
            "Edges (or a grid's cells) that scene events Open and Close by name.",
        );
        let labels: Vec<String> = (0..n.nodes.len())
            .map(|i| node_label(&n.nodes, i))
            .collect();
        let on_grid = n.grid.is_some();
        let ends = match n.roads {
            Some(_) => Ends::Ids,
            None => Ends::Named(&labels),
        };
        let mut remove = None;
        for (k, door) in n.doors.iter_mut().enumerate() {
            form::card(ui, |ui| {
                ui.horizontal(|ui| {
                    let notes = d.notes(&[P::F("doors"), P::I(k), P::F("name")]);
                    changed |= form::text(
                        ui,
                        &mut door.name,
                        160.0,
                        "door",
                        format!("door {} name", k + 1),
                        &notes,
                    );
                    let r = ui.checkbox(&mut door.closed, "closed when a scene starts");
                    crate::marks::name_widget(ui, &r, format!("door {} closed", k + 1));
                    changed |= r.changed();
                    if form::remove_button(ui, format!("remove door {}", k + 1)) {
                        remove = Some(k);
                    }
                });
                if on_grid {
                    let mut cells: Vec<(String, String)> = door
                        .cells
                        .iter()
                        .map(|(x, y)| (x.to_string(), y.to_string()))
                        .collect();
                    let free = Side::Free {
                        hint: "column",
                        width: 60.0,
                    };
                    let row = Side::Free {
                        hint: "row",
                        width: 60.0,
                    };
                    if form::pairs(
                        ui,
                        ("door-cells", k),
                        &mut cells,
                        free,
                        ",",
                        row,
                        &format!("door {} cell", k + 1),
                    ) {
                        door.cells = cells
                            .iter()
                            .map(|(x, y)| {
                                (x.trim().parse().unwrap_or(0), y.trim().parse().unwrap_or(0))
                            })
                            .collect();
                        changed = true;
                    }
                } else {
                    changed |= edges(
                        ui,
                        &format!("door{k}"),
                        &mut door.edges,
                        ends,
                        &format!("door {} edge", k + 1),
                    );
                }
                form::problems(ui, d.under(&[P::F("doors"), P::I(k)]));
            });
        }
        if let Some(k) = remove {
            n.doors.remove(k);
            changed = true;
        }
        let add = ui.button("+ door");
        crate::marks::name_widget(ui, &add, "add door");
        if add.clicked() {
            n.doors.push(DoorAsset {
                name: form::unique_name(n.doors.iter().map(|x| x.name.as_str()), "Door"),
                edges: Vec::new(),
                cells: Vec::new(),
                closed: false,
            });
            changed = true;
        }
        changed
    }

    /// The nodes on the plot, edges as lines (doors' in the warning colour, red when closed),
    /// the project's locations for context; returns whether a node was moved or added.
    fn plot(&mut self, ui: &mut Ui, n: &mut NavAsset, d: Diags, cx: &PanelCx) -> bool {
        let labels: Vec<String> = (0..n.nodes.len())
            .map(|i| node_label(&n.nodes, i))
            .collect();
        let mut points: Vec<plot::Point> = n
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| plot::Point {
                name: &labels[i],
                at: [node.x, node.y],
                editable: true,
                selected: self.selected == Some(i),
                severity: d.worst(&[P::F("nodes"), P::I(i)]),
                below: false,
            })
            .collect();
        // A location a node of its name stands on is that node.
        let same = |p: &plot::Point| {
            n.nodes.iter().any(|x| {
                x.name.as_deref() == Some(p.name)
                    && (x.x - p.at[0]).abs() < 0.05
                    && (x.y - p.at[1]).abs() < 0.05
            })
        };
        points.extend(places(cx).filter(|p| !same(p)));
        let at = |r: &NodeRef| {
            let node = &n.nodes[node_index(&n.nodes, r)?];
            Some([node.x, node.y])
        };
        let mut lines: Vec<plot::Line> = n
            .edges
            .iter()
            .filter_map(|e| line(e, &at, egui::Stroke::new(1.5, theme::EDGE)))
            .collect();
        lines.extend(door_lines(&n.doors, &at));
        self.plot.set_backdrop(None);
        let events = self.plot.show(ui, &points, &[], &lines);
        let mut changed = false;
        for e in events {
            match e {
                plot::Event::Select(i) => self.selected = Some(i),
                plot::Event::Moved(i, at) => {
                    n.nodes[i].x = at[0];
                    n.nodes[i].y = at[1];
                    changed = true;
                }
                plot::Event::AddAt(at) => {
                    self.selected = Some(add_node(&mut n.nodes, at));
                    changed = true;
                }
            }
        }
        changed
    }

    /// A road graph on the plot, read from its files off the UI thread: its roads (thinned
    /// when there are many), its nodes by DIMACS id when there are few, its doors as on a
    /// waypoint graph, the project's locations. Nothing here edits the asset.
    fn road_plot(&mut self, ui: &mut Ui, n: &NavAsset, cx: &PanelCx) {
        let Some(r) = &n.roads else { return };
        let dir = cx.file.rsplit_once('/').map_or("", |(d, _)| d);
        let ctx = ui.ctx().clone();
        if self
            .roads
            .poll(&cx.root.join(dir), &r.graph, &r.coordinates, move || {
                ctx.request_repaint()
            })
        {
            self.overview = self.roads.take_image().map(|o| {
                // Mipmapped: zoomed out, thin roads blend instead of flickering.
                let options = egui::TextureOptions {
                    mipmap_mode: Some(egui::TextureFilter::Linear),
                    ..egui::TextureOptions::LINEAR
                };
                let texture = ui.ctx().load_texture("road-graph", o.image, options);
                (texture, o.min, o.max)
            });
            self.plot.fit();
        }
        let graph = match self.roads.state() {
            Loaded::Read(g) => Some(g),
            Loaded::Reading => {
                // The worker wakes the frame; this keeps polling should the wake be missed.
                ui.ctx()
                    .request_repaint_after(std::time::Duration::from_millis(100));
                None
            }
            Loaded::Unset | Loaded::Failed(_) => None,
        };
        let at = |id: &NodeRef| match (graph, id) {
            (Some(g), NodeRef::Index(i)) => g.world(*i, r.origin, r.unit),
            _ => None,
        };
        let ids: Vec<String> = match graph {
            Some(g) if g.xy.len() <= roads::MAX_POINTS => {
                (1..=g.xy.len()).map(|i| i.to_string()).collect()
            }
            _ => Vec::new(),
        };
        let mut points: Vec<plot::Point> = ids
            .iter()
            .enumerate()
            .filter_map(|(i, name)| {
                Some(plot::Point {
                    name,
                    at: at(&NodeRef::Index(i as u64 + 1))?,
                    editable: false,
                    selected: false,
                    severity: None,
                    below: false,
                })
            })
            .collect();
        points.extend(places(cx));
        let doors: Vec<(u64, u64)> = n
            .doors
            .iter()
            .flat_map(|d| &d.edges)
            .filter_map(|e| match (&e.from, &e.to) {
                (NodeRef::Index(a), NodeRef::Index(b)) => Some((*a.min(b), *a.max(b))),
                _ => None,
            })
            .collect();
        let stroke = egui::Stroke::new(if ids.is_empty() { 1.0 } else { 1.5 }, theme::EDGE);
        let mut lines: Vec<plot::Line> = graph
            .map(|g| &g.drawn[..])
            .unwrap_or_default()
            .iter()
            // DIMACS ids are 1-based; a door's edge is drawn as the door only.
            .map(|&(a, b)| (a as u64 + 1, b as u64 + 1))
            .filter(|e| !doors.contains(e))
            .filter_map(|(a, b)| {
                Some(plot::Line {
                    from: at(&NodeRef::Index(a))?,
                    to: at(&NodeRef::Index(b))?,
                    stroke,
                })
            })
            .collect();
        lines.extend(door_lines(&n.doors, &at));
        let corner = |c: [i32; 2]| {
            [
                r.origin.0 + c[0] as f64 * r.unit,
                r.origin.1 + c[1] as f64 * r.unit,
            ]
        };
        self.plot.set_backdrop(match (&self.overview, graph) {
            (Some((t, min, max)), Some(g)) if g.as_image => Some(plot::Backdrop {
                texture: t.id(),
                min: corner(*min),
                max: corner(*max),
            }),
            _ => None,
        });
        // Nothing to edit: selecting, dragging and adding are ignored.
        let _ = self.plot.show(ui, &points, &[], &lines);
    }
}

/// The project's named locations, as context points labelled under them (a node may stand on
/// one).
fn places<'a>(cx: &'a PanelCx) -> impl Iterator<Item = plot::Point<'a>> {
    cx.names.more.places.iter().map(|(name, at)| plot::Point {
        name,
        at: *at,
        editable: false,
        selected: false,
        severity: None,
        below: true,
    })
}

/// Edge `e` as a line, its ends placed by `at`.
fn line(
    e: &EdgeAsset,
    at: &impl Fn(&NodeRef) -> Option<[f64; 2]>,
    stroke: egui::Stroke,
) -> Option<plot::Line> {
    Some(plot::Line {
        from: at(&e.from)?,
        to: at(&e.to)?,
        stroke,
    })
}

/// The doors' edges, in the warning colour (red when closed at the start of a scene).
fn door_lines(
    doors: &[DoorAsset],
    at: &impl Fn(&NodeRef) -> Option<[f64; 2]>,
) -> impl Iterator<Item = plot::Line> {
    doors.iter().flat_map(move |door| {
        let color = if door.closed {
            theme::ERROR
        } else {
            theme::WARNING
        };
        door.edges
            .iter()
            .filter_map(move |e| line(e, at, egui::Stroke::new(3.0, color)))
    })
}

impl AssetPanel<NavAsset> for NavigationPanel {
    fn ui(&mut self, ui: &mut Ui, n: &mut NavAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take()
            && let Some(i) = reveal_index(
                &t,
                "nodes",
                n.nodes.iter().map(|x| x.name.as_deref().unwrap_or("")),
            )
        {
            self.selected = Some(i);
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        let mut src = source(n);
        ui.horizontal(|ui| {
            ui.label(
                RichText::new("Navigation graph")
                    .heading()
                    .color(theme::TEXT),
            );
            ui.label(RichText::new(cx.file).small().color(theme::TEXT_WEAK));
            ui.add_space(12.0);
            ui.label(RichText::new("from").color(theme::TEXT_WEAK));
            if form::choose(ui, "nav-source", &mut src, &SOURCES, 160.0, "source") {
                // Exactly one source: the others are dropped (undo brings them back).
                n.grid = None;
                n.roads = None;
                match src {
                    Source::Nodes => {}
                    Source::Grid => {
                        let map = self.maps(cx.root).first().cloned().unwrap_or_default();
                        let dir = cx.file.rsplit_once('/').map_or("", |(d, _)| d);
                        n.grid = Some(GridAsset {
                            map: relative_to(dir, &map),
                            cell_size: 1.0,
                            origin: (0.0, 0.0),
                        });
                        n.nodes.clear();
                        n.edges.clear();
                    }
                    Source::Roads => {
                        n.roads = Some(RoadsAsset {
                            graph: String::new(),
                            coordinates: String::new(),
                            unit: 1.0,
                            cost_unit: 1.0,
                            origin: (0.0, 0.0),
                        });
                        n.nodes.clear();
                        n.edges.clear();
                    }
                }
                changed = true;
            }
            if src != Source::Grid && ui.button("Fit").on_hover_text("Show every node").clicked() {
                self.plot.fit();
            }
        });
        form::problems(ui, d.outside(&["nodes", "edges", "doors"]));
        ui.horizontal(|ui| {
            let mut leaf = n.leaf_size.map(f64::from);
            ui.label(RichText::new("PPA* leaf size").color(theme::TEXT_WEAK));
            if form::opt_number(
                ui,
                &mut leaf,
                4000.0,
                2.0..=1e7,
                10.0,
                " nodes",
                "4000 nodes",
                "leaf size",
            ) {
                n.leaf_size = leaf.map(|x| x.round() as u32);
                changed = true;
            }
            if src != Source::Grid {
                ui.label(RichText::new("snap").color(theme::TEXT_WEAK));
                changed |=
                    form::opt_number(ui, &mut n.snap, 2.0, 0.0..=1e4, 0.1, " m", "2 m", "snap");
            }
        });
        ui.separator();
        // Nodes and edges or a road graph beside their plot; a map, which the navigation view
        // shows, across the panel.
        let form = |this: &mut Self, ui: &mut Ui, n: &mut NavAsset| {
            let mut changed = false;
            egui::ScrollArea::vertical()
                .id_salt("nav-form-scroll")
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    match (&mut n.grid, &mut n.roads) {
                        (Some(g), _) => changed |= this.grid(ui, g, cx),
                        (None, Some(r)) => changed |= this.roads(ui, r),
                        (None, None) => changed |= this.nodes(ui, n, d),
                    }
                    changed |= this.doors(ui, n, d);
                });
            changed
        };
        if src != Source::Grid {
            let left = egui::Panel::left(ui.id().with("nav-form"));
            crate::marks::docked(left, 400.0, 300.0).show(ui, |ui| changed |= form(self, ui, n));
            if src == Source::Nodes {
                changed |= self.plot(ui, n, d, cx);
            } else {
                self.road_plot(ui, n, cx);
            }
        } else {
            changed |= form(self, ui, n);
        }
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_written_relative_to_the_file_and_read_back_from_the_root() {
        assert_eq!(relative_to("", "maps/den.map"), "maps/den.map");
        assert_eq!(relative_to("nav", "maps/den.map"), "../maps/den.map");
        assert_eq!(relative_to("nav/yard", "nav/yard.map"), "../yard.map");
        assert_eq!(relative_to("nav", "nav/yard.map"), "yard.map");
        for (dir, path) in [
            ("", "maps/den.map"),
            ("nav", "maps/den.map"),
            ("nav/yard", "nav/yard.map"),
        ] {
            assert_eq!(from_root(dir, &relative_to(dir, path)), path);
        }
    }

    #[test]
    fn edges_name_nodes_by_name_or_by_count() {
        let nodes = vec![
            NodeAsset {
                name: Some("Hall".into()),
                x: 0.0,
                y: 0.0,
            },
            NodeAsset {
                name: None,
                x: 1.0,
                y: 0.0,
            },
        ];
        assert_eq!(node_label(&nodes, 1), "#1");
        assert_eq!(node_ref("#1"), NodeRef::Index(1));
        assert_eq!(node_ref("Hall"), NodeRef::Name("Hall".into()));
        assert_eq!(node_index(&nodes, &node_ref("#1")), Some(1));
        assert_eq!(node_index(&nodes, &node_ref("Hall")), Some(0));
        assert_eq!(node_index(&nodes, &node_ref("#7")), None);
        assert_eq!(source(&NavAsset::default()), Source::Nodes);
    }
}
