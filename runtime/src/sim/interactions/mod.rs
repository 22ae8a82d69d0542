//! Smart locations in the simulated world (Skubch 35.2–35.6). Ambient NPCs walk their routes;
//! each smart location runs its emitters — the script emitter (allocate roles among the NPCs
//! in its radius and start one script instance at a time, let NPCs join late), notification,
//! spawn and player emitters — and its proxy objects take part in its scripts as if they were
//! NPCs. Script actions run as timed actions with optional seeded failures. Everything that
//! happens becomes trace events of the scene.
//!
//! - [`emitters`]: notification, spawn and player emitters, proxies' reports, scene events.
//! - [`carry`]: hot reload — running instances and emitter state carried across by name.
//!
//! Agents the locations create at run time (proxies, spawned NPCs) are added to the scene as
//! agents without a machine, so they have ids, names and trace lines like everyone else.
//! Names that are not the program's (a spawned `passerby7`) live in [`Symbols`] past the
//! program's names, so script values stay plain [`NameId`]s.

mod carry;
mod emitters;
mod save;

pub(crate) use save::SavedInteractions;

use super::{ARRIVAL_RADIUS, SimWorld, WALK_SPEED};
use crate::hsm::{AgentId, LinkError, ReloadReport, Scene, Symbols};
use crate::program::{LocationId, NameId, Program, SceneEventDef, SceneId};
use crate::rng::Rng;
use crate::script::allocate::{Candidate, allocate_with, join_late};
use crate::script::instance::World;
use crate::script::{ActionOutcome, Fact, ScriptEvent, ScriptInstance, Value};
use crate::trace::EventKind;
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// How often a smart location looks for NPCs, seconds.
const QUERY_PERIOD: f64 = 0.5;

/// Where an agent driven by smart locations comes from (what a reload updates it from).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
enum Origin {
    /// An agent of the scene without a machine.
    Scene,
    /// Spawned by a spawn emitter.
    Spawned,
    /// Proxy `proxy` of smart location `place` (`None` once a reload removed it).
    Proxy(Option<(usize, usize)>),
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Ambient {
    agent: AgentId,
    /// Its name as a script value (`.me`); a program name or one of [`Interactions::symbols`].
    name: NameId,
    roles: Vec<NameId>,
    group: Option<NameId>,
    route: Vec<LocationId>,
    next_stop: usize,
    /// Seconds before it appears.
    delay: f64,
    /// The smart location whose script it takes part in.
    busy_at: Option<usize>,
    /// Smart locations it has already used (it walks on afterwards).
    visited: Vec<usize>,
    /// A notification drew it to this smart location: it walks there first, and lingers until
    /// `linger` so the location can take it in.
    drawn_to: Option<usize>,
    linger: f64,
    origin: Origin,
    player: bool,
    /// Spawned NPCs leave the scene at the end of their route.
    gone: bool,
}

impl Ambient {
    fn new(agent: AgentId, name: NameId, origin: Origin) -> Self {
        Ambient {
            agent,
            name,
            roles: Vec::new(),
            group: None,
            route: Vec::new(),
            next_stop: 0,
            delay: 0.0,
            busy_at: None,
            visited: Vec::new(),
            drawn_to: None,
            linger: 0.0,
            origin,
            player: false,
            gone: false,
        }
    }

    /// Whether script emitters may recruit it now.
    fn free(&self, now: f64) -> bool {
        self.busy_at.is_none()
            && now >= self.delay
            && !self.gone
            && !self.player
            && matches!(self.origin, Origin::Scene | Origin::Spawned)
    }
}

/// Who an agent driven by smart locations is, and where it stands (`None`: not in the world
/// yet, or gone).
pub struct Presence {
    pub kind: super::simulation::AgentKind,
    pub at: Option<[f64; 2]>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct RunningAction {
    id: u64,
    ends_at: f64,
    fails: bool,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Place {
    instance: Option<ScriptInstance>,
    next_query: f64,
    actions: Vec<RunningAction>,
    /// Instances started so far (each gets its own random stream).
    started: u64,
    /// The script of the current or most recent instance (names events after it ends).
    last_script: Option<u32>,
    /// Per notification emitter: when it next fires (infinity: never again).
    next_notice: Vec<f64>,
    /// Facts notifications put on this location's blackboard, and until when they last.
    standing: Vec<(Fact, f64)>,
    /// Per spawn emitter: when its next wave comes, and how many came so far.
    next_wave: Vec<(f64, u32)>,
    /// The agents of its proxies, created on the first tick.
    proxies: Vec<Option<AgentId>>,
    /// The player is within reach and has been shown the icon.
    icon_shown: bool,
}

impl Place {
    fn new(program: &Program, p: usize) -> Self {
        let def = &program.smart_locations[p];
        Place {
            instance: None,
            next_query: 0.0,
            actions: Vec::new(),
            started: 0,
            last_script: None,
            next_notice: def.notifications.iter().map(|n| n.at).collect(),
            standing: Vec::new(),
            next_wave: def.spawns.iter().map(|s| (s.at, 0)).collect(),
            proxies: vec![None; def.proxies.len()],
            icon_shown: false,
        }
    }
}

/// The smart locations of a scene and the agents they drive.
pub struct Interactions {
    /// The scene's name: what a reload finds it by (its id may change or go away).
    scene: String,
    /// Agents `0..machine_driven` of the scene run machines (a reload never adds any).
    machine_driven: usize,
    ambient: Vec<Ambient>,
    places: Vec<Place>,
    /// Index of the player in `ambient`.
    player: Option<usize>,
    /// The scene's events still to come, in time order.
    pending: VecDeque<SceneEventDef>,
    /// Names that are not the program's.
    symbols: Symbols,
    rng: Rng,
    seed: u64,
    failure_rate: f64,
    /// Proxies have been added to the scene.
    set_up: bool,
    /// Trace events and messages to machine-driven agents, handed to the scene at the end of
    /// each step.
    out: Vec<(Option<AgentId>, EventKind)>,
    sends: Vec<(AgentId, String)>,
    /// Rules evaluated so far, over all instances (benchmarks).
    pub rule_evaluations: u64,
}

/// Spells a script value: names as written, whole numbers without decimals.
fn render(program: &Program, symbols: &Symbols, v: &Value) -> String {
    match v {
        Value::Sym(s) => symbols.name(program, *s).to_string(),
        Value::Num(x) if x.fract() == 0.0 => format!("{x:.0}"),
        Value::Num(x) => format!("{:.3}", x),
    }
}

/// A fact as written in a cell: `reserved(seat1,tourist1)`, `stocked`; constants that are not
/// plain names are quoted (`topic(weather,'Good wind, good catch.')`).
fn render_fact(program: &Program, symbols: &Symbols, f: &Fact) -> String {
    let name = symbols.name(program, f.predicate);
    if f.args.is_empty() {
        return name.to_string();
    }
    let args: Vec<String> = f
        .args
        .iter()
        .map(|a| {
            let text = render(program, symbols, a);
            let plain = matches!(a, Value::Num(_))
                || text
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '-' || c == '#');
            if plain { text } else { format!("'{text}'") }
        })
        .collect();
    format!("{name}({})", args.join(","))
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// The scene's events in time order (equal times keep the order written).
fn scene_events(program: &Program, scene: SceneId, after: f64) -> VecDeque<SceneEventDef> {
    let mut events: Vec<SceneEventDef> = program
        .scene_events
        .iter()
        .filter(|e| e.scene == scene && e.at > after)
        .cloned()
        .collect();
    events.sort_by(|a, b| a.at.total_cmp(&b.at));
    events.into()
}

impl Interactions {
    pub fn new(program: &Program, scene: SceneId, seed: u64) -> Self {
        let def = &program.scenes[scene.index()];
        let first = def.agents.len() as u32;
        let ambient: Vec<Ambient> = def
            .ambient
            .iter()
            .enumerate()
            .map(|(i, a)| Ambient {
                roles: a.roles.clone(),
                group: a.group,
                route: a.route.clone(),
                delay: a.delay,
                player: a.player,
                ..Ambient::new(AgentId(first + i as u32), a.name, Origin::Scene)
            })
            .collect();
        let places = (0..program.smart_locations.len())
            .map(|p| Place::new(program, p))
            .collect();
        Interactions {
            scene: program.name(def.name).to_string(),
            machine_driven: first as usize,
            player: ambient.iter().position(|a| a.player),
            ambient,
            places,
            pending: scene_events(program, scene, -1.0),
            symbols: Symbols::default(),
            // Stream far from the agents' streams (which use their index).
            rng: Rng::new(seed, 1 << 40),
            seed,
            failure_rate: 0.0,
            set_up: false,
            out: Vec::new(),
            sends: Vec::new(),
            rule_evaluations: 0,
        }
    }

    /// Makes each simulated action fail with probability `p` (seeded), to exercise on-error
    /// paths.
    pub fn with_failure_rate(mut self, p: f64) -> Self {
        self.failure_rate = p.clamp(0.0, 1.0);
        self
    }

    /// Scripts running now: (smart location, instance).
    pub fn running(&self) -> impl Iterator<Item = (usize, &ScriptInstance)> {
        self.places
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.instance.as_ref().map(|s| (i, s)))
    }

    /// The name of a script value (participants, props, constants), for blackboard views.
    pub fn spell(&self, program: &Program, v: &Value) -> String {
        render(program, &self.symbols, v)
    }

    /// A fact as the trace writes it (`reserved(seat1,tourist1)`), for blackboard views.
    pub fn spell_fact(&self, program: &Program, f: &Fact) -> String {
        render_fact(program, &self.symbols, f)
    }

    /// Running instances: (smart location, how many instances it has started, instance).
    pub fn instances(&self) -> impl Iterator<Item = (usize, u64, &ScriptInstance)> {
        self.places
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.instance.as_ref().map(|s| (i, p.started, s)))
    }

    /// Who an agent these smart locations drive is, and where it stands now (`None` for
    /// agents that run a machine).
    pub fn presence(
        &self,
        program: &Program,
        world: &SimWorld,
        agent: AgentId,
        now: f64,
    ) -> Option<Presence> {
        use super::simulation::AgentKind;
        let a = self.ambient.iter().find(|a| a.agent == agent)?;
        let kind = match a.origin {
            _ if a.player => AgentKind::Player,
            Origin::Scene => AgentKind::Ambient,
            Origin::Spawned => AgentKind::Spawned,
            Origin::Proxy(_) => AgentKind::Proxy,
        };
        let away = a.gone || now < a.delay || matches!(a.origin, Origin::Proxy(None));
        Some(Presence {
            kind,
            at: (!away).then(|| {
                let (x, y) = self.position(program, world, a);
                [x, y]
            }),
        })
    }

    /// Advances the smart locations by one tick of the scene, after [`Scene::tick`]: creates
    /// proxies and spawned NPCs, replays the scene's events that are due, emits notifications,
    /// walks the NPCs, starts, joins and updates script instances, and records what happened
    /// in the scene's trace.
    pub fn advance(&mut self, scene: &mut Scene<SimWorld>) {
        let program = scene.program().clone();
        let (now, dt) = (scene.now(), scene.dt());
        if !self.set_up {
            self.set_up = true;
            self.create_proxies(&program, scene);
        }
        self.spawn_due(&program, scene, now);
        self.scene_events_due(&program, &scene.game, now);
        self.notifications_due(&program, &scene.game, now);
        self.expire_standing(&program, now);
        self.walk(&program, &mut scene.game, now, dt);
        self.show_icons(&program, &scene.game, now);
        for p in 0..self.places.len() {
            self.place_tick(&program, &scene.game, p, now);
        }
        self.flush(scene);
    }

    /// Hands recorded trace events to the scene and delivers notification messages.
    fn flush(&mut self, scene: &mut Scene<SimWorld>) {
        for (agent, kind) in self.out.drain(..) {
            scene.record_external(agent, kind);
        }
        // The environment is not an agent: a notification arrives as a message the agent
        // sent itself, dispatched like any other (a transition of that name takes it).
        for (to, name) in self.sends.drain(..) {
            scene.send(to, to, &name);
        }
    }

    /// Hot reload of the scene and its smart locations: [`Scene::reload`] carries the agents'
    /// states, [`carry`] every location's running instance and emitters, by name, and both
    /// report in one `reload` event; planning agents' worlds (`SimWorld::planning`) carry
    /// across by name too. A refused program changes nothing here.
    pub fn reload(
        &mut self,
        scene: &mut Scene<SimWorld>,
        program: Arc<Program>,
        reason: &str,
    ) -> Result<ReloadReport, LinkError> {
        let now = scene.now();
        let result = scene.reload_with(program, reason, |old, new, world| {
            // Planning agents' worlds carry across by problem and fact names, whether or not
            // the scene (and so its world events) still exists.
            world
                .planning
                .reload(old, new, new.scene_by_name(&self.scene));
            self.carry(old, new, now)
        });
        self.flush(scene);
        result
    }

    fn walk(&mut self, program: &Program, world: &mut SimWorld, now: f64, dt: f64) {
        for a in &mut self.ambient {
            if a.busy_at.is_some() || now < a.delay || a.gone || now < a.linger {
                continue;
            }
            let target = match a.drawn_to {
                Some(p) => program.smart_locations[p].at,
                None => match a.route.get(a.next_stop) {
                    Some(stop) => *stop,
                    None => {
                        // Spawned NPCs leave the scene at the end of their route.
                        if a.origin == Origin::Spawned && !a.route.is_empty() {
                            a.gone = true;
                        }
                        continue;
                    }
                },
            };
            let l = &program.locations[target.index()];
            let body = world.body(a.agent);
            let (dx, dy) = (l.x - body.x, l.y - body.y);
            let dist = (dx * dx + dy * dy).sqrt();
            let stride = WALK_SPEED * dt;
            if dist <= ARRIVAL_RADIUS.max(stride) {
                body.x = l.x;
                body.y = l.y;
                if a.drawn_to.take().is_some() {
                    a.linger = now + 2.0 * QUERY_PERIOD;
                } else {
                    a.next_stop += 1;
                }
            } else {
                body.x += dx / dist * stride;
                body.y += dy / dist * stride;
            }
        }
    }

    fn position(&self, program: &Program, world: &SimWorld, a: &Ambient) -> (f64, f64) {
        match a.origin {
            // A proxy has no body: it is where its location is.
            Origin::Proxy(Some((p, _))) => {
                let at = &program.locations[program.smart_locations[p].at.index()];
                (at.x, at.y)
            }
            _ => {
                let b = world
                    .bodies
                    .get(a.agent.index())
                    .cloned()
                    .unwrap_or_default();
                (b.x, b.y)
            }
        }
    }

    fn location_position(program: &Program, p: usize) -> (f64, f64) {
        let at = &program.locations[program.smart_locations[p].at.index()];
        (at.x, at.y)
    }

    /// Ambient NPCs free to take part at place `p` now, as allocation candidates.
    fn candidates(
        &self,
        program: &Program,
        world: &SimWorld,
        p: usize,
        now: f64,
    ) -> Vec<Candidate> {
        let loc = &program.smart_locations[p];
        let at = Self::location_position(program, p);
        self.ambient
            .iter()
            .filter(|a| a.free(now) && !a.visited.contains(&p))
            .filter(|a| distance(self.position(program, world, a), at) <= loc.radius)
            .map(|a| Candidate {
                actor: a.agent.0,
                name: a.name,
                roles: a.roles.clone(),
                group: a.group,
            })
            .collect()
    }

    fn ambient_of(&self, actor: u32) -> Option<&Ambient> {
        self.ambient.iter().find(|a| a.agent.0 == actor)
    }

    fn place_tick(&mut self, program: &Program, world: &SimWorld, p: usize, now: f64) {
        let mut events = Vec::new();
        if now >= self.places[p].next_query {
            self.places[p].next_query = now + QUERY_PERIOD;
            let candidates = self.candidates(program, world, p, now);
            if !candidates.is_empty() {
                match &self.places[p].instance {
                    None => {
                        self.start(program, p, &candidates, None, &mut events);
                    }
                    Some(inst) => {
                        let def = &program.scripts[inst.script as usize];
                        let mut counts: Vec<usize> =
                            (0..def.roles.len()).map(|r| inst.count(r as u16)).collect();
                        // Whole groups join together, or not at all.
                        let mut done: Vec<u32> = Vec::new();
                        for c in &candidates {
                            if done.contains(&c.actor) {
                                continue;
                            }
                            let unit: Vec<&Candidate> = candidates
                                .iter()
                                .filter(|o| {
                                    o.actor == c.actor || (c.group.is_some() && o.group == c.group)
                                })
                                .collect();
                            done.extend(unit.iter().map(|u| u.actor));
                            if let Some(assign) = join_late(def, &unit, &counts) {
                                let inst = self.places[p].instance.as_mut().expect("running");
                                for (actor, role) in assign {
                                    counts[role as usize] += 1;
                                    let name = unit
                                        .iter()
                                        .find(|u| u.actor == actor)
                                        .map(|u| u.name)
                                        .expect("member");
                                    inst.join(def, actor, name, role, &mut events);
                                }
                            }
                        }
                    }
                }
            }
        }
        let said = self.update(program, world, p, now, &mut events);
        self.report(program, p, events);
        // Lines come right after the `act` that says them.
        self.out.extend(said);
    }

    /// One update of place `p`'s instance, if it runs one; starts the actions it asks for, and
    /// returns the lines said by actions that carry a `line`.
    fn update(
        &mut self,
        program: &Program,
        world: &SimWorld,
        p: usize,
        now: f64,
        events: &mut Vec<ScriptEvent>,
    ) -> Vec<(Option<AgentId>, EventKind)> {
        let mut said = Vec::new();
        let Some(mut inst) = self.places[p].instance.take() else {
            return said;
        };
        let def = &program.scripts[inst.script as usize];
        let mut finished = Vec::new();
        self.places[p].actions.retain(|a| {
            if a.ends_at <= now {
                let outcome = if a.fails {
                    ActionOutcome::Failed
                } else {
                    ActionOutcome::Succeeded
                };
                finished.push((a.id, outcome));
                false
            } else {
                true
            }
        });
        // Positions for `distance`: participants and the location's props (at the location).
        let mut positions: HashMap<NameId, (f64, f64)> = HashMap::new();
        let at = Self::location_position(program, p);
        for (prop, _) in &program.smart_locations[p].props {
            positions.insert(*prop, at);
        }
        for (actor, _) in inst.participants() {
            if let Some(a) = self.ambient_of(actor) {
                positions.insert(a.name, self.position(program, world, a));
            }
        }
        let distance = |a: Value, b: Value| match (a, b) {
            (Value::Sym(x), Value::Sym(y)) => {
                Some(distance(*positions.get(&x)?, *positions.get(&y)?))
            }
            _ => None,
        };
        let mut requests = Vec::new();
        let before = inst.rule_evaluations;
        inst.update(
            def,
            &World {
                now,
                distance: &distance,
            },
            &finished,
            events,
            &mut requests,
        );
        self.rule_evaluations += inst.rule_evaluations - before;
        for r in requests {
            // Actions carried across a reload may be names the new program no longer has.
            let name = self.symbols.name(program, r.action).to_string();
            // An action with a `line` parameter is something said: the trace shows the line.
            let line = r.parameters.iter().find_map(|(k, v)| {
                (self.symbols.name(program, *k) == "line")
                    .then(|| render(program, &self.symbols, v))
            });
            let proxy = self
                .ambient_of(r.actor)
                .is_some_and(|a| matches!(a.origin, Origin::Proxy(_)));
            let d = self.duration(&name, line.as_deref(), proxy);
            let fails = self.failure_rate > 0.0 && self.rng.unit() < self.failure_rate;
            self.places[p].actions.push(RunningAction {
                id: r.id,
                ends_at: now + d,
                fails,
            });
            if let Some(text) = line {
                said.push((
                    Some(AgentId(r.actor)),
                    EventKind::Say {
                        text,
                        sentence: None,
                        candidate: None,
                    },
                ));
            }
        }
        if inst.ended() {
            self.places[p].actions.clear();
            self.places[p].next_query = now + 2.0 * QUERY_PERIOD;
        } else {
            self.places[p].instance = Some(inst);
        }
        said
    }

    /// How long a simulated action takes, seconds.
    fn duration(&mut self, action: &str, line: Option<&str>, proxy: bool) -> f64 {
        if proxy {
            // A game system (a shop page opening) answers quickly.
            return self.rng.range_f64(0.3, 0.6);
        }
        if let Some(line) = line {
            let words = line.split_whitespace().count() as f64;
            return (0.4 * words).max(1.0) + self.rng.range_f64(0.0, 0.5);
        }
        match action {
            "sit" | "getup" => self.rng.range_f64(1.2, 1.8),
            "talk" => self.rng.range_f64(2.0, 4.0),
            "listen" => self.rng.range_f64(1.5, 3.0),
            _ => self.rng.range_f64(1.5, 2.5),
        }
    }

    /// Starts place `p`'s first script (by preference) whose roles can be allocated among
    /// `candidates`, around the location's proxies and, when the player reacted to the icon,
    /// the player in the emitter's role. Returns whether one started.
    fn start(
        &mut self,
        program: &Program,
        p: usize,
        candidates: &[Candidate],
        player: Option<(u32, NameId)>,
        events: &mut Vec<ScriptEvent>,
    ) -> bool {
        let loc = &program.smart_locations[p];
        // Higher preference first; equal preferences keep the authored order.
        let mut choices = loc.scripts.clone();
        choices.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (script, _) in choices {
            let def = &program.scripts[script as usize];
            let mut fixed: Vec<(u32, u16)> = Vec::new();
            let mut names: Vec<(u32, NameId)> = Vec::new();
            if let Some((actor, role_name)) = player {
                let Some(role) = def.role_by_name(role_name) else {
                    continue;
                };
                fixed.push((actor, role));
                names.extend(self.ambient_of(actor).map(|a| (actor, a.name)));
            }
            for (k, proxy) in loc.proxies.iter().enumerate() {
                let (Some(role), Some(agent)) =
                    (def.role_by_name(proxy.role), self.places[p].proxies[k])
                else {
                    continue;
                };
                let taken = fixed.iter().filter(|(_, r)| *r == role).count();
                if taken < def.roles[role as usize].max as usize {
                    fixed.push((agent.0, role));
                    names.push((agent.0, proxy.name));
                }
            }
            let Some(assignment) = allocate_with(def, &fixed, candidates, &mut self.rng) else {
                continue;
            };
            let mut supplied: Vec<Fact> = loc
                .props
                .iter()
                .map(|(name, kind)| Fact {
                    predicate: *kind,
                    args: vec![Value::Sym(*name)],
                })
                .collect();
            supplied.extend(self.places[p].standing.iter().map(|(f, _)| f.clone()));
            let place = &mut self.places[p];
            let stream = ((p as u64) << 32) | place.started;
            place.started += 1;
            let mut inst = ScriptInstance::new(script, &supplied, self.seed, stream);
            for (actor, role) in assignment {
                let name = names
                    .iter()
                    .find(|(a, _)| *a == actor)
                    .map(|(_, n)| *n)
                    .or_else(|| candidates.iter().find(|c| c.actor == actor).map(|c| c.name))
                    .expect("allocated from candidates or fixed");
                inst.join(def, actor, name, role, events);
            }
            place.instance = Some(inst);
            place.last_script = Some(script);
            return true;
        }
        false
    }

    /// Turns script events into trace events and keeps the agents' bookkeeping.
    fn report(&mut self, program: &Program, p: usize, events: Vec<ScriptEvent>) {
        if events.is_empty() {
            return;
        }
        for e in &events {
            self.bookkeep(p, e);
        }
        let script = self.script_of(p);
        render_events(program, &self.symbols, script, events, &mut self.out);
    }

    /// Who is busy where, after a join or a leave.
    fn bookkeep(&mut self, p: usize, e: &ScriptEvent) {
        match e {
            ScriptEvent::Join { actor, .. } => {
                if let Some(a) = self.ambient.iter_mut().find(|a| a.agent.0 == *actor) {
                    a.busy_at = Some(p);
                    a.drawn_to = None;
                }
            }
            ScriptEvent::Leave { actor, .. } => self.left(p, *actor),
            _ => {}
        }
    }

    /// `actor` left the script at place `p`: it walks on (NPCs do not use the place again).
    fn left(&mut self, p: usize, actor: u32) {
        if let Some(a) = self.ambient.iter_mut().find(|a| a.agent.0 == actor) {
            a.busy_at = None;
            // NPCs do not use the same place twice; the player and proxies may come back.
            if !a.player && !matches!(a.origin, Origin::Proxy(_)) {
                a.visited.push(p);
            }
        }
    }

    fn script_of(&self, p: usize) -> Option<u32> {
        self.places[p]
            .instance
            .as_ref()
            .map(|i| i.script)
            .or(self.places[p].last_script)
    }
}

/// Script events as trace events.
fn render_events(
    program: &Program,
    symbols: &Symbols,
    script: Option<u32>,
    events: Vec<ScriptEvent>,
    out: &mut Vec<(Option<AgentId>, EventKind)>,
) {
    // An instance that ended during this update is gone; `script` still names it.
    let script_name: Arc<str> = match script {
        Some(s) => program.shared_name(program.scripts[s as usize].name),
        None => Arc::from("?"),
    };
    let role_name = |role: u16| -> Arc<str> {
        script
            .and_then(|s| program.scripts[s as usize].roles.get(role as usize))
            .map(|r| program.shared_name(r.name))
            .unwrap_or_else(|| Arc::from("?"))
    };
    let value = |v: &Option<Value>| {
        v.as_ref()
            .map(|v| Arc::from(render(program, symbols, v).as_str()))
    };
    for e in events {
        let (agent, kind) = match e {
            ScriptEvent::Act {
                actor,
                action,
                target,
            } => (
                Some(actor),
                EventKind::Act {
                    action: symbols.shared(program, action),
                    target: value(&target),
                },
            ),
            ScriptEvent::Done {
                actor,
                action,
                target,
            } => (
                Some(actor),
                EventKind::Done {
                    action: symbols.shared(program, action),
                    target: value(&target),
                },
            ),
            ScriptEvent::Fail {
                actor,
                action,
                target,
            } => (
                Some(actor),
                EventKind::ActionFailed {
                    action: symbols.shared(program, action),
                    target: value(&target),
                },
            ),
            ScriptEvent::Add { actor, fact } => (
                actor,
                EventKind::Add {
                    script: script_name.clone(),
                    fact: render_fact(program, symbols, &fact),
                },
            ),
            ScriptEvent::Del { actor, fact } => (
                actor,
                EventKind::Del {
                    script: script_name.clone(),
                    fact: render_fact(program, symbols, &fact),
                },
            ),
            ScriptEvent::Join { actor, role } => (
                Some(actor),
                EventKind::Join {
                    script: script_name.clone(),
                    role: role_name(role),
                },
            ),
            ScriptEvent::Leave { actor, role } => (
                Some(actor),
                EventKind::Leave {
                    script: script_name.clone(),
                    role: role_name(role),
                },
            ),
            ScriptEvent::End { .. } => continue,
        };
        out.push((agent.map(AgentId), kind));
    }
}
