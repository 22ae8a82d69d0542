//! The navigation frontend: reads a project's `*.nav.ron`, builds its graph from whichever
//! source it names (nodes and edges, a MovingAI grid map, a DIMACS road graph), resolves node
//! names, doors and the scenes' door events, and places every location on the graph.
//!
//! Everything is reported at its file, line and column and lowering goes on: an unknown node
//! (`unknown-reference`), a name given twice (`duplicate-name`), a cost that is negative, zero
//! or not a number (`invalid-value`), a map file that cannot be read or is malformed
//! (`nav-source`, with the map's own line and column), a location off the graph or on a
//! blocked cell (`location-off-graph`), locations no walk can join (`disconnected-location`,
//! a warning).

use super::asset::{DoorAsset, EdgeAsset, NavAsset, NodeRef};
use super::{InputError, dimacs, movingai};
use crate::diag::{Code, Diagnostic, Diagnostics, suggest_note};
use crate::front::ron::locate::{self, Seg};
use crate::front::ron::{AssetKind, parse};
use crate::ir::nav::{Door, Navigation};
use crate::ir::{Module, Name};
use crate::source::{FileId, SourceMap, Span};
use ensemble_runtime::nav::cost::{Metric, Packed};
use ensemble_runtime::nav::{Graph, NodeId};
use ensemble_runtime::program::nav::Placement;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Default largest leaf cluster (the compiler's [`super::BuildOptions`] default).
fn default_leaf_size() -> u32 {
    super::BuildOptions::default().leaf_size
}

/// Default distance, in metres, between a location and its node on a node or road graph.
const DEFAULT_SNAP: f64 = 2.0;

/// Authored positions and costs are stored in millimetres: whole numbers keep sums exact.
const MM: f64 = 1000.0;

/// Finds spans in the asset.
struct Loc {
    file: FileId,
    tree: Option<locate::Node>,
}

impl Loc {
    fn span(&self, path: &[Seg<'_>]) -> Span {
        match &self.tree {
            Some(t) => Span::new(self.file, t.find(path)),
            None => Span::file_start(self.file),
        }
    }

    fn name(&self, text: &str, path: &[Seg<'_>]) -> Name {
        Name {
            text: text.to_string(),
            span: self.span(path),
        }
    }

    /// Where an edge's `from` (0), `to` (1) or `cost` (2) is written.
    fn edge_part(&self, base: &[Seg<'_>], edge: &EdgeAsset, part: usize) -> Span {
        let mut path = base.to_vec();
        if edge.tuple {
            path.push(Seg::Index(part));
        } else {
            path.push(Seg::Field(["from", "to", "cost"][part]));
        }
        self.span(&path)
    }
}

/// Lowers the project's navigation graph (if any) into `module.nav`, and the scenes' door
/// events against it. Runs after locations and scenes are lowered.
pub fn lower(sources: &SourceMap, module: &mut Module, diags: &mut Diagnostics) {
    let files: Vec<FileId> = sources
        .iter()
        .filter(|(_, f)| AssetKind::of(&f.name) == Some(AssetKind::Navigation))
        .map(|(id, _)| id)
        .collect();
    let mut nav = None;
    for (k, &file) in files.iter().enumerate() {
        if k > 0 {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!(
                        "a project has one navigation graph, and `{}` already defines it",
                        sources.get(files[0]).name
                    ),
                )
                .at(Span::file_start(file), "a second navigation graph")
                .related(Span::file_start(files[0]), "the first"),
            );
            continue;
        }
        if let Some(asset) = parse::<NavAsset>(sources, file, diags) {
            nav = build(sources, file, &asset, module, diags);
        }
    }
    let have_file = !files.is_empty();
    if let Some(nav) = &mut nav {
        nav.events = resolve_events(module, Some(nav), diags);
    } else if !have_file {
        resolve_events(module, None, diags);
    }
    module.nav = nav;
}

/// The door index of every scene event (reporting doors that do not exist).
fn resolve_events(
    module: &Module,
    nav: Option<&Navigation>,
    diags: &mut Diagnostics,
) -> Vec<(crate::ir::Handle<crate::ir::Scene>, f64, usize, bool)> {
    let mut out = Vec::new();
    for (h, scene) in module.scenes.iter() {
        for e in &scene.doors {
            let found = nav.and_then(|n| n.doors.iter().position(|d| d.name.text == e.door.text));
            match (nav, found) {
                (_, Some(i)) => out.push((h, e.at, i, e.open)),
                (None, _) => diags.push(
                    Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "scene `{}` {} door `{}`, but the project has no navigation graph",
                            scene.name.text,
                            if e.open { "opens" } else { "closes" },
                            e.door.text
                        ),
                    )
                    .at(e.door.span, "no such door")
                    .note("doors are declared in the project's `*.nav.ron`"),
                ),
                (Some(n), None) => {
                    let d = Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "scene `{}` {} door `{}`, which the navigation graph does not declare",
                            scene.name.text,
                            if e.open { "opens" } else { "closes" },
                            e.door.text
                        ),
                    )
                    .at(e.door.span, "no such door")
                    .related(n.span, "the navigation graph");
                    diags.push(suggest_note(
                        d,
                        &e.door.text,
                        n.doors.iter().map(|d| d.name.text.as_str()),
                    ));
                }
            }
        }
    }
    // Each scene's events in time order (stable, so equal times keep their written order).
    out.sort_by(|a, b| a.0.index().cmp(&b.0.index()).then(a.1.total_cmp(&b.1)));
    out
}

/// A graph built from the asset's source, with what resolving node references needs.
struct Built {
    /// Nothing was wrong (otherwise the graph holds what could be read, so that doors,
    /// locations and scene events are still checked).
    clean: bool,
    graph: Graph,
    placement: Placement,
    names: Vec<(Name, NodeId)>,
    by_name: HashMap<String, NodeId>,
    /// `NodeRef::Index(i)` means node `i - index_base`.
    index_base: u64,
}

fn build(
    sources: &SourceMap,
    file: FileId,
    asset: &NavAsset,
    module: &Module,
    diags: &mut Diagnostics,
) -> Option<Navigation> {
    let text = &sources.get(file).text;
    let loc = Loc {
        file,
        tree: locate::parse(text),
    };
    let whole = loc.span(&[]);
    let dir = sources
        .get(file)
        .path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let mut fingerprint = crc32fast::Hasher::new();
    fingerprint.update(text.as_bytes());
    let native = !asset.nodes.is_empty() || !asset.edges.is_empty();
    let kinds = [native, asset.grid.is_some(), asset.roads.is_some()];
    let count = kinds.iter().filter(|k| **k).count();
    if count != 1 {
        let message = if count == 0 {
            "a navigation graph needs a source: `nodes` and `edges`, a `grid` map, or `roads`"
        } else {
            "a navigation graph has one source: `nodes` and `edges`, a `grid` map, or `roads`, not several"
        };
        diags.push(Diagnostic::error(Code::InvalidValue, message).at(whole, "this graph"));
        return None;
    }
    let leaf_size = asset.leaf_size.unwrap_or_else(default_leaf_size);
    if leaf_size == 0 {
        diags.push(
            Diagnostic::error(Code::InvalidValue, "`leaf_size` must be at least 1")
                .at(loc.span(&[Seg::Field("leaf_size")]), "here"),
        );
    }
    let snap = asset.snap.unwrap_or(DEFAULT_SNAP);
    if !(snap.is_finite() && snap >= 0.0) {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                "`snap` must be a distance in metres, 0 or more",
            )
            .at(loc.span(&[Seg::Field("snap")]), "here"),
        );
    }
    let built = if native {
        build_native(asset, &loc, diags)
    } else if let Some(grid) = &asset.grid {
        build_grid(grid, &dir, &loc, &mut fingerprint, diags)
    } else {
        let roads = asset.roads.as_ref().expect("one source is set");
        build_roads(roads, &dir, &loc, &mut fingerprint, diags)
    }?;
    let doors = lower_doors(asset, &built, &loc, diags);
    let location_nodes = place_locations(module, &built, snap, diags);
    if built.clean {
        // With edges missing the warning would only repeat those errors.
        warn_disconnected(module, &built.graph, &location_nodes, diags);
    }
    fingerprint.update(&leaf_size.to_le_bytes());
    Some(Navigation {
        span: whole,
        graph: built.graph,
        placement: built.placement,
        names: built.names,
        doors,
        location_nodes,
        events: Vec::new(),
        leaf_size: leaf_size.max(1),
        fingerprint: fingerprint.finalize(),
        data: None,
    })
}

fn build_native(asset: &NavAsset, loc: &Loc, diags: &mut Diagnostics) -> Option<Built> {
    let mut ok = true;
    let mut names: Vec<(Name, NodeId)> = Vec::new();
    let mut by_name: HashMap<String, NodeId> = HashMap::new();
    let mut xy = Vec::with_capacity(asset.nodes.len());
    // Authored metres become whole millimetres; beyond ±2,000 km they would not fit.
    let limit = i32::MAX as f64 / MM;
    for (i, n) in asset.nodes.iter().enumerate() {
        let path = |f: &'static str| [Seg::Field("nodes"), Seg::Index(i), Seg::Field(f)];
        for (c, field) in [(n.x, "x"), (n.y, "y")] {
            if !(c.is_finite() && c.abs() <= limit) {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("a node's `{field}` must be a finite number of metres (within ±2,000 km), not {c}"),
                    )
                    .at(loc.span(&path(field)), "here"),
                );
            }
        }
        xy.push([(n.x * MM).round() as i32, (n.y * MM).round() as i32]);
        if let Some(name) = &n.name {
            let nm = loc.name(name, &path("name"));
            if let Some(prev) = names.iter().find(|(p, _)| p.text == *name) {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("navigation node `{name}` is declared twice"),
                    )
                    .at(nm.span, "declared again here")
                    .related(prev.0.span, "first declared here"),
                );
                continue;
            }
            by_name.insert(name.clone(), i as NodeId);
            names.push((nm, i as NodeId));
        }
    }
    let nodes = asset.nodes.len() as u32;
    let placeholder = Built {
        clean: true,
        graph: Graph::from_edges(0, Metric::Integer, &[]).ok()?,
        placement: Placement::default(),
        names: Vec::new(),
        by_name,
        index_base: 0,
    };
    let mut edges: Vec<(NodeId, NodeId, Packed)> = Vec::new();
    for (i, e) in asset.edges.iter().enumerate() {
        let base = [Seg::Field("edges"), Seg::Index(i)];
        let a = resolve(
            &placeholder,
            nodes,
            &e.from,
            loc.edge_part(&base, e, 0),
            diags,
        );
        let b = resolve(
            &placeholder,
            nodes,
            &e.to,
            loc.edge_part(&base, e, 1),
            diags,
        );
        let (Some(a), Some(b)) = (a, b) else {
            ok = false;
            continue;
        };
        if a == b {
            ok = false;
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!("edge {} joins node {} to itself", i, e.from),
                )
                .at(loc.span(&base), "this edge"),
            );
            continue;
        }
        let cost = match e.cost {
            Some(c) => {
                if !(c.is_finite() && c > 0.0 && c * MM < u32::MAX as f64 / 4.0) {
                    ok = false;
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("an edge's cost must be a positive number of metres, not {c}"),
                        )
                        .at(loc.edge_part(&base, e, 2), "this cost"),
                    );
                    continue;
                }
                ((c * MM).round() as Packed).max(1)
            }
            None => {
                let (p, q) = (xy[a as usize], xy[b as usize]);
                let len = (p[0] as f64 - q[0] as f64).hypot(p[1] as f64 - q[1] as f64);
                // Rounded up: never shorter than the straight line the estimate measures.
                (len.ceil() as Packed).clamp(1, u32::MAX / 4)
            }
        };
        edges.push((a, b, cost));
    }
    if nodes == 0 {
        diags.push(
            Diagnostic::error(Code::InvalidValue, "the navigation graph has no nodes")
                .at(loc.span(&[Seg::Field("edges")]), "edges, but no `nodes`"),
        );
        return None;
    }
    let graph = Graph::from_edges(nodes, Metric::Integer, &edges)
        .and_then(|g| g.with_points(xy))
        .ok()?;
    Some(Built {
        clean: ok,
        graph,
        placement: Placement::Points {
            origin: [0.0, 0.0],
            unit: 1.0 / MM,
            cost_unit: 1.0 / MM,
        },
        names,
        by_name: placeholder.by_name,
        index_base: 0,
    })
}

/// Reads a file a navigation graph names: `nav-source` at the field naming it when it cannot
/// be read or is malformed (with the file's own line and column in the message).
fn source_error(e: InputError, span: Span, diags: &mut Diagnostics) {
    diags.push(Diagnostic::error(Code::NavSource, e.to_string()).at(span, "named here"));
}

fn hash_file(path: &Path, fingerprint: &mut crc32fast::Hasher) {
    if let Ok(bytes) = std::fs::read(path) {
        fingerprint.update(&bytes);
    }
}

fn finite_positive(v: f64, field: &str, span: Span, diags: &mut Diagnostics) -> bool {
    let ok = v.is_finite() && v > 0.0;
    if !ok {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("`{field}` must be a positive number of metres, not {v}"),
            )
            .at(span, "here"),
        );
    }
    ok
}

fn finite_origin(o: (f64, f64), span: Span, diags: &mut Diagnostics) -> bool {
    let ok = o.0.is_finite() && o.1.is_finite();
    if !ok {
        diags.push(
            Diagnostic::error(Code::InvalidValue, "`origin` must be two finite numbers")
                .at(span, "here"),
        );
    }
    ok
}

fn build_grid(
    grid: &super::asset::GridAsset,
    dir: &Path,
    loc: &Loc,
    fingerprint: &mut crc32fast::Hasher,
    diags: &mut Diagnostics,
) -> Option<Built> {
    let at = |f: &'static str| loc.span(&[Seg::Field("grid"), Seg::Field(f)]);
    let size_ok = finite_positive(grid.cell_size, "cell_size", at("cell_size"), diags);
    let origin_ok = finite_origin(grid.origin, at("origin"), diags);
    let path: PathBuf = dir.join(&grid.map);
    hash_file(&path, fingerprint);
    let map = match movingai::read_map(&path) {
        Ok(m) => m,
        Err(e) => {
            source_error(e, at("map"), diags);
            return None;
        }
    };
    if !(size_ok && origin_ok) {
        return None;
    }
    Some(Built {
        clean: true,
        graph: map.graph(),
        placement: Placement::Grid {
            origin: [grid.origin.0, grid.origin.1],
            cell: grid.cell_size,
        },
        names: Vec::new(),
        by_name: HashMap::new(),
        index_base: 0,
    })
}

fn build_roads(
    roads: &super::asset::RoadsAsset,
    dir: &Path,
    loc: &Loc,
    fingerprint: &mut crc32fast::Hasher,
    diags: &mut Diagnostics,
) -> Option<Built> {
    let at = |f: &'static str| loc.span(&[Seg::Field("roads"), Seg::Field(f)]);
    let unit_ok = finite_positive(roads.unit, "unit", at("unit"), diags);
    let cost_ok = finite_positive(roads.cost_unit, "cost_unit", at("cost_unit"), diags);
    let origin_ok = finite_origin(roads.origin, at("origin"), diags);
    let gr = dir.join(&roads.graph);
    let co = dir.join(&roads.coordinates);
    hash_file(&gr, fingerprint);
    hash_file(&co, fingerprint);
    let graph = match dimacs::read_gr(&gr) {
        Ok(g) => g,
        Err(e) => {
            source_error(e, at("graph"), diags);
            return None;
        }
    };
    let xy = match dimacs::read_co(&co, graph.node_count()) {
        Ok(xy) => xy,
        Err(e) => {
            source_error(e, at("coordinates"), diags);
            return None;
        }
    };
    if !(unit_ok && cost_ok && origin_ok) {
        return None;
    }
    let graph = graph.with_points(xy).ok()?;
    Some(Built {
        clean: true,
        graph,
        placement: Placement::Points {
            origin: [roads.origin.0, roads.origin.1],
            unit: roads.unit,
            cost_unit: roads.cost_unit,
        },
        names: Vec::new(),
        by_name: HashMap::new(),
        // DIMACS ids are 1-based.
        index_base: 1,
    })
}

/// The node `r` names, or a reported `unknown-reference`.
fn resolve(
    built: &Built,
    nodes: u32,
    r: &NodeRef,
    span: Span,
    diags: &mut Diagnostics,
) -> Option<NodeId> {
    match r {
        NodeRef::Name(name) => {
            let found = built.by_name.get(name).copied();
            if found.is_none() {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!("there is no navigation node named `{name}`"),
                )
                .at(span, "no such node");
                diags.push(suggest_note(
                    d,
                    name,
                    built.by_name.keys().map(String::as_str),
                ));
            }
            found
        }
        NodeRef::Index(i) => {
            let first = built.index_base;
            let v = i.checked_sub(first).filter(|v| *v < nodes as u64);
            if v.is_none() {
                diags.push(
                    Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "there is no navigation node #{i} (nodes are numbered {first} to {})",
                            nodes as u64 + first - 1
                        ),
                    )
                    .at(span, "no such node"),
                );
            }
            v.map(|v| v as NodeId)
        }
    }
}

fn lower_doors(asset: &NavAsset, built: &Built, loc: &Loc, diags: &mut Diagnostics) -> Vec<Door> {
    let mut doors: Vec<Door> = Vec::new();
    for (i, d) in asset.doors.iter().enumerate() {
        let path = |f: &'static str| [Seg::Field("doors"), Seg::Index(i), Seg::Field(f)];
        let name = loc.name(&d.name, &path("name"));
        if let Some(prev) = doors.iter().find(|p| p.name.text == d.name) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("door `{}` is declared twice", d.name),
                )
                .at(name.span, "declared again here")
                .related(prev.name.span, "first declared here"),
            );
            continue;
        }
        let Some(edges) = door_edges(d, i, built, loc, diags) else {
            // Reported; the door still exists, so that scene events naming it resolve.
            doors.push(Door {
                name,
                edges: Vec::new(),
                closed: d.closed,
            });
            continue;
        };
        if edges.is_empty() {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "door `{}` blocks nothing: give it `edges` (or `cells` on a grid map)",
                        d.name
                    ),
                )
                .at(name.span, "this door"),
            );
            continue;
        }
        doors.push(Door {
            name,
            edges,
            closed: d.closed,
        });
    }
    doors
}

/// The edges door `d` blocks, or `None` after reporting what is wrong.
fn door_edges(
    d: &DoorAsset,
    i: usize,
    built: &Built,
    loc: &Loc,
    diags: &mut Diagnostics,
) -> Option<Vec<(NodeId, NodeId, Packed)>> {
    let graph = &built.graph;
    let nodes = graph.node_count();
    let mut out: Vec<(NodeId, NodeId, Packed)> = Vec::new();
    let mut ok = true;
    for (j, e) in d.edges.iter().enumerate() {
        let base = [
            Seg::Field("doors"),
            Seg::Index(i),
            Seg::Field("edges"),
            Seg::Index(j),
        ];
        let a = resolve(built, nodes, &e.from, loc.edge_part(&base, e, 0), diags);
        let b = resolve(built, nodes, &e.to, loc.edge_part(&base, e, 1), diags);
        let (Some(a), Some(b)) = (a, b) else {
            ok = false;
            continue;
        };
        match graph.edge_cost(a, b) {
            Some(c) => out.push((a.min(b), a.max(b), c)),
            None => {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "door `{}` blocks an edge between {} and {}, but the graph has no such edge",
                            d.name, e.from, e.to
                        ),
                    )
                    .at(loc.span(&base), "no such edge"),
                );
            }
        }
    }
    if !d.cells.is_empty() {
        match &graph.grid {
            None => {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "door `{}` names cells, but the navigation graph is not a grid map",
                            d.name
                        ),
                    )
                    .at(
                        loc.span(&[Seg::Field("doors"), Seg::Index(i), Seg::Field("cells")]),
                        "cells",
                    ),
                );
            }
            Some(grid) => {
                for (j, &(x, y)) in d.cells.iter().enumerate() {
                    let span = loc.span(&[
                        Seg::Field("doors"),
                        Seg::Index(i),
                        Seg::Field("cells"),
                        Seg::Index(j),
                    ]);
                    match grid.node_at(x, y) {
                        Some(v) => {
                            for (w, c) in graph.neighbors(v) {
                                out.push((v.min(w), v.max(w), c));
                            }
                        }
                        None => {
                            ok = false;
                            diags.push(
                                Diagnostic::error(
                                    Code::InvalidValue,
                                    format!(
                                        "door `{}` names cell ({x}, {y}), which is {} the {}x{} map",
                                        d.name,
                                        if x < grid.width && y < grid.height {
                                            "a blocked cell of"
                                        } else {
                                            "outside"
                                        },
                                        grid.width,
                                        grid.height
                                    ),
                                )
                                .at(span, "this cell"),
                            );
                        }
                    }
                }
            }
        }
    }
    out.sort_unstable();
    out.dedup_by_key(|e| (e.0, e.1));
    ok.then_some(out)
}

/// The node each location stands on (reporting those off the graph).
fn place_locations(
    module: &Module,
    built: &Built,
    snap: f64,
    diags: &mut Diagnostics,
) -> Vec<Option<NodeId>> {
    let graph = &built.graph;
    let world = |v: NodeId| -> [f64; 2] {
        let [x, y] = graph.position(v).unwrap_or([0.0, 0.0]);
        match built.placement {
            Placement::Grid { origin, cell } => {
                [origin[0] + (x + 0.5) * cell, origin[1] + (y + 0.5) * cell]
            }
            Placement::Points { origin, unit, .. } => [origin[0] + x * unit, origin[1] + y * unit],
        }
    };
    module
        .locations
        .iter()
        .map(|(_, l)| match (built.placement, &graph.grid) {
            (Placement::Grid { origin, cell }, Some(grid)) => {
                let cx = ((l.x - origin[0]) / cell).floor();
                let cy = ((l.y - origin[1]) / cell).floor();
                let inside = cx >= 0.0
                    && cy >= 0.0
                    && cx < grid.width as f64
                    && cy < grid.height as f64;
                let node = inside.then(|| grid.node_at(cx as u32, cy as u32)).flatten();
                if node.is_none() {
                    let why = if inside {
                        format!("stands on cell ({cx}, {cy}), which the map blocks")
                    } else {
                        format!(
                            "lies outside the navigation map (cell ({cx}, {cy}) of a {}x{} map)",
                            grid.width, grid.height
                        )
                    };
                    diags.push(
                        Diagnostic::error(
                            Code::LocationOffGraph,
                            format!("location `{}` at ({}, {}) {why}", l.name.text, l.x, l.y),
                        )
                        .at(l.name.span, "not on a walkable cell"),
                    );
                }
                node
            }
            _ => {
                let nearest = (0..graph.node_count())
                    .map(|v| {
                        let [x, y] = world(v);
                        ((x - l.x).hypot(y - l.y), v)
                    })
                    .min_by(|a, b| a.0.total_cmp(&b.0));
                match nearest {
                    Some((d, v)) if d <= snap => Some(v),
                    Some((d, v)) => {
                        let name = built
                            .names
                            .iter()
                            .find(|(_, n)| *n == v)
                            .map_or_else(|| format!("#{v}"), |(n, _)| format!("`{}`", n.text));
                        diags.push(
                            Diagnostic::error(
                                Code::LocationOffGraph,
                                format!(
                                    "location `{}` at ({}, {}) is {d:.2} m from the nearest navigation node ({name}); a location may be at most {snap} m from its node",
                                    l.name.text, l.x, l.y
                                ),
                            )
                            .at(l.name.span, "off the navigation graph")
                            .note("add a node where the location is, move the location, or raise `snap`"),
                        );
                        None
                    }
                    None => None,
                }
            }
        })
        .collect()
}

/// Warns about locations on a different part of the graph than most locations.
fn warn_disconnected(
    module: &Module,
    graph: &Graph,
    location_nodes: &[Option<NodeId>],
    diags: &mut Diagnostics,
) {
    // Union-find over every edge.
    let n = graph.node_count() as usize;
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut v: u32) -> u32 {
        while parent[v as usize] != v {
            parent[v as usize] = parent[parent[v as usize] as usize];
            v = parent[v as usize];
        }
        v
    }
    for u in 0..n as u32 {
        for (v, _) in graph.neighbors(u) {
            let (a, b) = (root(&mut parent, u), root(&mut parent, v));
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    let locations: Vec<_> = module.locations.iter().map(|(_, l)| l).collect();
    let mut groups: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, v) in location_nodes.iter().enumerate() {
        if let Some(v) = v {
            groups.entry(root(&mut parent, *v)).or_default().push(i);
        }
    }
    if groups.len() < 2 {
        return;
    }
    // The part holding the most locations (ties: the one holding the first location).
    let main = groups
        .values()
        .max_by(|a, b| a.len().cmp(&b.len()).then(b[0].cmp(&a[0])))
        .map(|g| g[0])
        .unwrap_or(0);
    let main_root = location_nodes[main].map(|v| root(&mut parent, v));
    for (i, v) in location_nodes.iter().enumerate() {
        let Some(v) = v else { continue };
        if Some(root(&mut parent, *v)) == main_root {
            continue;
        }
        let (l, m) = (locations[i], locations[main]);
        diags.push(
            Diagnostic::warning(
                Code::DisconnectedLocation,
                format!(
                    "location `{}` cannot be reached from `{}`: they are on separate parts of the navigation graph",
                    l.name.text, m.name.text
                ),
            )
            .at(l.name.span, "on a separate part of the graph")
            .related(m.name.span, "where most locations are"),
        );
    }
}
