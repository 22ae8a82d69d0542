//! Walking on the navigation graph in the simulated world.
//!
//! When the program has navigation data, a machine agent's move (`Goto`) plans with PPA* from
//! the node nearest the agent to the node of its destination, then walks the resolved path
//! node by node and finally steps onto the destination itself. Without navigation data it
//! walks in a straight line, as it always did; so do the agents smart locations drive.
//!
//! The world keeps its own view of the graph ([`NavWorld`]): the program's data until a door
//! changes it, then a copy that the incremental update keeps current. Every change (a door, a
//! reloaded program with another graph) bumps [`NavWorld::generation`]; a walk planned under
//! an older generation plans again from where the agent stands, and its `path` event says it
//! re-routed.

use super::{ARRIVAL_RADIUS, SimWorld, WALK_SPEED};
use ensemble_runtime::hsm::AgentId;
use ensemble_runtime::nav::{NavData, NodeId, Workspace};
use ensemble_runtime::program::nav::NavSection;
use ensemble_runtime::program::{Program, SceneId};
use ensemble_runtime::trace::EventKind;
use ensemble_runtime::world::{Destination, MoveEvent, WorldCx};
use std::cell::RefCell;
use std::sync::Arc;

/// The world's view of the navigation graph.
#[derive(Clone, Debug)]
pub struct NavWorld {
    /// The program section this view follows.
    fingerprint: u32,
    /// A copy of the program's data once a door has changed it; until then the program's.
    changed: Option<NavData>,
    /// Door names and states, by the section's door index.
    doors: Vec<(String, bool)>,
    /// Bumped by every change of the graph.
    pub generation: u64,
    /// The scene whose door events apply, and how many of them have.
    scene: SceneId,
    events_done: usize,
}

impl NavWorld {
    /// The navigation view of `program`'s scene as it starts (doors marked closed are
    /// closed); `None` when the program has no navigation graph. Door events due by `now`
    /// count as done.
    pub fn new(program: &Program, scene: SceneId, now: f64) -> Option<NavWorld> {
        NavWorld::with_doors(program, scene, now, &[], 0)
    }

    /// Like [`NavWorld::new`], with doors already known (by name) keeping their state.
    fn with_doors(
        program: &Program,
        scene: SceneId,
        now: f64,
        known: &[(String, bool)],
        generation: u64,
    ) -> Option<NavWorld> {
        let section = &program.nav;
        section.data.as_ref()?;
        let mut world = NavWorld {
            fingerprint: section.fingerprint,
            changed: None,
            doors: section
                .doors
                .iter()
                .map(|d| (program.name(d.name).to_string(), false))
                .collect(),
            generation,
            scene,
            events_done: section
                .events_of(scene)
                .take_while(|e| e.at < now - 1e-9)
                .count(),
        };
        for (i, door) in section.doors.iter().enumerate() {
            let name = program.name(door.name);
            let closed = known
                .iter()
                .find(|(n, _)| n == name)
                .map_or(door.closed, |(_, c)| *c);
            if closed {
                world.set_door(section, i, false);
            }
        }
        Some(world)
    }

    /// The graph as it stands now.
    pub fn data<'a>(&'a self, section: &'a NavSection) -> Option<&'a NavData> {
        self.changed.as_ref().or(section.data.as_ref())
    }

    /// Whether door `i` (by the section's index) is closed.
    pub fn is_closed(&self, i: usize) -> bool {
        self.doors.get(i).is_some_and(|d| d.1)
    }

    /// Opens or closes door `i`; returns the distance tables recomputed.
    fn set_door(&mut self, section: &NavSection, i: usize, open: bool) -> u32 {
        let (Some(door), Some(base)) = (section.doors.get(i), section.data.as_ref()) else {
            return 0;
        };
        if self.doors[i].1 != open {
            return 0;
        }
        let data = self.changed.get_or_insert_with(|| base.clone());
        let mut tables = 0;
        for &(u, v, cost) in &door.edges {
            // Verified on load: the nodes exist and the costs are valid.
            let report = if open {
                data.restore_edge(u, v, cost)
            } else {
                data.remove_edge(u, v)
            };
            tables += report.map_or(0, |r| r.recomputed);
        }
        self.doors[i].1 = !open;
        self.generation += 1;
        tables
    }

    /// Applies the scene's door events due by `now`, reporting each.
    fn advance(&mut self, program: &Program, now: f64, out: &mut Vec<EventKind>) {
        let section = &program.nav;
        let due: Vec<(usize, bool)> = section
            .events_of(self.scene)
            .skip(self.events_done)
            .take_while(|e| e.at <= now + 1e-9)
            .map(|e| (e.door as usize, e.open))
            .collect();
        for (door, open) in due {
            self.events_done += 1;
            let tables = self.set_door(section, door, open);
            if let Some(d) = section.doors.get(door) {
                out.push(EventKind::Door {
                    door: program.shared_name(d.name),
                    open,
                    tables,
                });
            }
        }
    }
}

impl SimWorld {
    /// Follows the running program's navigation section: after a reload that brought a
    /// different graph (or none), the world's view is rebuilt, doors keeping their state by
    /// name, and walks in progress plan again.
    fn sync_nav(&mut self, program: &Program, now: f64) {
        let Some(scene) = self.scene else {
            return;
        };
        match &self.nav {
            Some(nav) if nav.fingerprint == program.nav.fingerprint => {}
            None if program.nav.data.is_none() => {}
            old => {
                let (known, generation) = old
                    .as_ref()
                    .map_or((Vec::new(), 0), |n| (n.doors.clone(), n.generation + 1));
                self.nav = NavWorld::with_doors(program, scene, now, &known, generation);
            }
        }
    }

    /// Advances the world to `now`: applies the scene's door events that are due, reporting
    /// each as a `door` trace event in `out`. Whoever drives a scene calls this once per tick
    /// (as `ensemble run` does).
    pub fn advance(
        &mut self,
        program: &Program,
        now: f64,
        out: &mut Vec<(Option<AgentId>, EventKind)>,
    ) {
        self.sync_nav(program, now);
        if let Some(nav) = &mut self.nav {
            let mut events = Vec::new();
            nav.advance(program, now, &mut events);
            out.extend(events.into_iter().map(|e| (None, e)));
        }
    }
}

/// The route an agent is walking, as a host shows it: the points of the walk in world metres
/// (the last one the location itself), and the next one to reach. On a graph they are the
/// planned path's nodes, replaced when the walk re-routes; without one, the location alone.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteAhead {
    pub points: Arc<[[f64; 2]]>,
    pub next: usize,
}

impl RouteAhead {
    /// The points still ahead of the agent, the destination last.
    pub fn ahead(&self) -> &[[f64; 2]] {
        &self.points[self.next.min(self.points.len())..]
    }
}

/// A planned walk: points to pass, in world metres, the last one the location itself.
#[derive(Clone, Debug, Default)]
pub(crate) struct Route {
    /// Shared with the world's [`RouteAhead`] of the agent, so showing it copies nothing.
    points: Arc<[[f64; 2]]>,
    /// The node of each point (the last point, the location itself, has none).
    nodes: Vec<NodeId>,
    next: usize,
    /// The graph generation it was planned under.
    generation: u64,
    /// No path existed: the agent waits for the graph to change.
    blocked: bool,
}

impl Route {
    /// Where a walk in progress can start again: the node it was heading for and the one it
    /// came from, or only the latter when the edge between them is gone (a door closed on it).
    fn ends_of_leg(&self, nav: &NavWorld, program: &Program) -> Vec<NodeId> {
        let ahead = self.nodes.get(self.next).copied();
        let behind = self
            .next
            .checked_sub(1)
            .and_then(|i| self.nodes.get(i))
            .copied();
        match (behind, ahead) {
            (Some(b), Some(a)) => {
                let open = nav
                    .data(&program.nav)
                    .is_some_and(|d| d.graph.edge_cost(b, a).is_some());
                if open { vec![a, b] } else { vec![b] }
            }
            (b, a) => b.or(a).into_iter().collect(),
        }
    }
}

/// A move under way.
#[derive(Clone, Debug)]
pub(crate) struct Move {
    to: Destination,
    /// Walks on the navigation graph (when there is one) and shows its route; else straight.
    on_graph: bool,
    /// The walk planned on the graph, once planned.
    route: Option<Route>,
}

impl Move {
    pub(crate) fn new(to: Destination, on_graph: bool) -> Self {
        Move {
            to,
            on_graph,
            route: None,
        }
    }
}

impl SimWorld {
    /// One step of `agent`'s move, `cx.dt` seconds long: plan if needed, then walk. Reports
    /// arrival (each step it stands there) and a plan that found no path.
    pub(super) fn step(
        &mut self,
        agent: AgentId,
        m: &mut Move,
        cx: &mut WorldCx<'_>,
    ) -> Option<MoveEvent> {
        let program = cx.program;
        let target = m.to.point(program)?;
        let mut stride = WALK_SPEED * cx.dt;
        if !m.on_graph {
            // Driven by smart locations: straight there, nothing to show.
            let body = self.body(agent);
            let there = step_towards(&mut body.x, &mut body.y, target, &mut stride);
            return there.then_some(MoveEvent::Arrived);
        }
        self.sync_nav(program, cx.now);
        let goal = match m.to {
            Destination::Location(l) => program.nav.location_node(l),
            Destination::Point([x, y]) => program.nav.node_near(x, y),
        };
        let mut no_path = false;
        let planned = match (&self.nav, goal) {
            (Some(nav), Some(goal)) => {
                let body = self.body_at(agent);
                let there = (body[0] - target[0]).hypot(body[1] - target[1]) <= ARRIVAL_RADIUS;
                let route = &mut m.route;
                if route.is_none() && there {
                    // Already standing on the destination: nothing to plan.
                    *route = Some(Route {
                        generation: nav.generation,
                        ..Route::default()
                    });
                } else if route
                    .as_ref()
                    .is_none_or(|r| r.generation != nav.generation)
                {
                    let reroute = route.is_some();
                    let starts = route
                        .as_ref()
                        .map_or_else(Vec::new, |r| r.ends_of_leg(nav, program));
                    let to = destination_name(program, m.to);
                    let (new_route, event) =
                        plan(program, nav, body, &starts, goal, target, to, reroute);
                    no_path = new_route.blocked;
                    *route = Some(new_route);
                    cx.trace.push(event);
                }
                true
            }
            _ => false,
        };
        let body = self.body(agent);
        if !planned {
            // No navigation graph: straight to the destination.
            let there = step_towards(&mut body.x, &mut body.y, target, &mut stride);
            let straight = match self.walk(agent) {
                Some(w) if *w.points == [target] => w.points.clone(),
                _ => Arc::from([target]),
            };
            let ahead = (!there).then_some(RouteAhead {
                points: straight,
                next: 0,
            });
            self.set_walk(agent, ahead);
            return there.then_some(MoveEvent::Arrived);
        }
        let r = m.route.as_mut()?;
        let mut there = !r.blocked;
        while there && r.next < r.points.len() {
            if !step_towards(&mut body.x, &mut body.y, r.points[r.next], &mut stride) {
                there = false;
            } else {
                r.next += 1;
            }
        }
        // A blocked walk has nothing ahead to show; neither has one that arrived.
        let ahead = (!r.blocked && r.next < r.points.len()).then(|| RouteAhead {
            points: r.points.clone(),
            next: r.next,
        });
        self.set_walk(agent, ahead);
        if no_path {
            Some(MoveEvent::NoPath)
        } else {
            there.then_some(MoveEvent::Arrived)
        }
    }
}

/// How a `path` event names a destination: the location's name, or the point.
fn destination_name(program: &Program, to: Destination) -> Arc<str> {
    match to {
        Destination::Location(l) => program.shared_name(program.locations[l.index()].name),
        Destination::Point([x, y]) => Arc::from(format!("({x:.2}, {y:.2})").as_str()),
    }
}

/// Moves up to `stride` metres towards `to`; true when there (the rest of the stride is left
/// for the next point).
fn step_towards(x: &mut f64, y: &mut f64, to: [f64; 2], stride: &mut f64) -> bool {
    let (dx, dy) = (to[0] - *x, to[1] - *y);
    let dist = dx.hypot(dy);
    if dist <= ARRIVAL_RADIUS.max(*stride) {
        *x = to[0];
        *y = to[1];
        *stride = (*stride - dist).max(0.0);
        return true;
    }
    *x += dx / dist * *stride;
    *y += dy / dist * *stride;
    *stride = 0.0;
    false
}

/// Plans a walk from `from` (world metres) to `goal`/`target`, starting at whichever of
/// `starts` gives the shortest walk (the nearest node when there are none).
#[allow(clippy::too_many_arguments)]
fn plan(
    program: &Program,
    nav: &NavWorld,
    from: [f64; 2],
    starts: &[NodeId],
    goal: NodeId,
    target: [f64; 2],
    to: Arc<str>,
    reroute: bool,
) -> (Route, EventKind) {
    let section = &program.nav;
    let blocked = |reroute| {
        (
            Route {
                generation: nav.generation,
                blocked: true,
                ..Route::default()
            },
            EventKind::Path {
                to: to.clone(),
                nodes: 0,
                cost: None,
                length: 0.0,
                expanded: 0,
                via: Vec::new(),
                reroute,
            },
        )
    };
    let Some(data) = nav.data(section) else {
        return blocked(reroute);
    };
    let nearest;
    let starts = if starts.is_empty() {
        nearest = section.node_near(from[0], from[1]);
        nearest.as_slice()
    } else {
        starts
    };
    // Each candidate start: the straight walk to it plus the path from it, in metres.
    let mut best: Option<(f64, ensemble_runtime::nav::PathResult)> = None;
    for &start in starts {
        let found = WORKSPACE.with_borrow_mut(|ws| data.find_path(start, goal, ws));
        if let (Ok(Some(path)), Some(at)) = (found, section.world(start)) {
            let total =
                (at[0] - from[0]).hypot(at[1] - from[1]) + path.cost * section.metres_per_cost();
            if best.as_ref().is_none_or(|(b, _)| total < *b) {
                best = Some((total, path));
            }
        }
    }
    let Some((_, path)) = best else {
        return blocked(reroute);
    };
    let mut points: Vec<[f64; 2]> = path.path.iter().filter_map(|&v| section.world(v)).collect();
    points.push(target);
    let mut length = 0.0;
    let mut at = from;
    for p in &points {
        length += (p[0] - at[0]).hypot(p[1] - at[1]);
        at = *p;
    }
    // The named nodes passed between where the agent starts and where it arrives.
    let inner = match path.path.as_slice() {
        [_, inner @ .., _] => inner,
        _ => &[],
    };
    let via: Vec<Arc<str>> = inner
        .iter()
        .filter_map(|&v| section.node_name(v))
        .map(|n| program.shared_name(n))
        .collect();
    (
        Route {
            points: points.into(),
            nodes: path.path.clone(),
            next: 0,
            generation: nav.generation,
            blocked: false,
        },
        EventKind::Path {
            to,
            nodes: path.path.len() as u32,
            cost: Some(path.cost * section.metres_per_cost()),
            length,
            expanded: path.expanded,
            via,
            reroute,
        },
    )
}

thread_local! {
    /// Search memory reused by every walk planned on this thread.
    static WORKSPACE: RefCell<Workspace> = RefCell::new(Workspace::new(0));
}

/// A walk in progress as a savegame holds it (`Goto`'s data).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct SavedRoute {
    points: Vec<[f64; 2]>,
    nodes: Vec<NodeId>,
    next: usize,
    generation: u64,
    blocked: bool,
}

impl Route {
    pub(crate) fn to_saved(&self) -> SavedRoute {
        SavedRoute {
            points: self.points.to_vec(),
            nodes: self.nodes.clone(),
            next: self.next,
            generation: self.generation,
            blocked: self.blocked,
        }
    }

    /// The route saved, if it fits the running program's graph (its nodes exist).
    pub(crate) fn from_saved(saved: SavedRoute, program: &Program) -> Result<Route, String> {
        let count = program
            .nav
            .data
            .as_ref()
            .map_or(0, |d| d.graph.node_count() as u64);
        if let Some(n) = saved.nodes.iter().find(|&&n| n as u64 >= count) {
            return Err(format!(
                "the walk passes node {n}, which the graph does not have"
            ));
        }
        Ok(Route {
            points: Arc::from(saved.points),
            nodes: saved.nodes,
            next: saved.next,
            generation: saved.generation,
            blocked: saved.blocked,
        })
    }
}

/// The world's view of the graph as a savegame holds it: doors by name, the generation walks
/// were planned under, and how many of the scene's door events have happened.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct SavedNav {
    /// The program section the view followed.
    fingerprint: u32,
    doors: Vec<(String, bool)>,
    generation: u64,
    events_done: usize,
}

impl NavWorld {
    pub(crate) fn to_saved(&self) -> SavedNav {
        SavedNav {
            fingerprint: self.fingerprint,
            doors: self.doors.clone(),
            generation: self.generation,
            events_done: self.events_done,
        }
    }

    /// The view of `program`'s graph with the saved doors closed (by name), the walks'
    /// generation and the door events already done; `None` without a graph. Restored onto a
    /// program with another graph, the generation moves on so walks plan again from where the
    /// agents stand, as after a reload that brought another graph.
    pub(crate) fn from_saved(program: &Program, scene: SceneId, saved: &SavedNav) -> Option<Self> {
        let mut nav = NavWorld::with_doors(program, scene, 0.0, &saved.doors, saved.generation)?;
        nav.generation = if program.nav.fingerprint == saved.fingerprint {
            saved.generation
        } else {
            saved.generation.wrapping_add(1)
        };
        nav.events_done = saved.events_done.min(program.nav.events_of(scene).count());
        Some(nav)
    }
}

/// A move under way as a savegame holds it.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct SavedMove {
    to: Destination,
    on_graph: bool,
    route: Option<SavedRoute>,
}

impl Move {
    pub(crate) fn to_saved(&self) -> SavedMove {
        SavedMove {
            to: self.to,
            on_graph: self.on_graph,
            route: self.route.as_ref().map(Route::to_saved),
        }
    }

    /// The move saved, if its destination and route fit the running program.
    pub(crate) fn from_saved(saved: SavedMove, program: &Program) -> Result<Move, String> {
        if let Destination::Location(l) = saved.to
            && l.index() >= program.locations.len()
        {
            return Err(format!(
                "a move goes to location #{}, which does not exist",
                l.0
            ));
        }
        Ok(Move {
            to: saved.to,
            on_graph: saved.on_graph,
            route: saved
                .route
                .map(|r| Route::from_saved(r, program))
                .transpose()?,
        })
    }
}
