//! Smart locations (Skubch 35.2–35.6), run against the game's [`World`]. Ambient NPCs walk
//! their routes (the world moves them); each smart location runs its emitters — the script
//! emitter (allocate roles among the NPCs in its radius and start one script instance at a
//! time, let NPCs join late), notification, spawn and player emitters — and its proxy objects
//! take part in its scripts as if they were NPCs. Script actions are requests to the world,
//! which reports when each is done or failed. Everything that happens becomes trace events of
//! the scene.
//!
//! - `emitters`: notification, spawn and player emitters, proxies' reports, scene events.
//! - `carry`: hot reload — running instances and emitter state carried across by name.
//!
//! Agents the locations create at run time (proxies, spawned NPCs) are added to the scene as
//! agents without a machine, so they have ids, names and trace lines like everyone else.
//! Names that are not the program's (a spawned `passerby7`) live in [`Symbols`] past the
//! program's names, so script values stay plain [`NameId`]s.

mod carry;
mod emitters;
mod save;

pub use save::{CARRIED_ACTION, INTERACTIONS_SECTION, SavedInteractions};

use crate::hsm::{AgentId, LinkError, ReloadReport, Scene, Symbols};
use crate::program::{LocationId, NameId, Program, SceneEventDef, SceneId};
use crate::rng::Rng;
use crate::script::allocate::{Candidate, allocate_with, join_late};
use crate::script::instance::World as ScriptWorld;
use crate::script::{ActionOutcome, Fact, ScriptEvent, ScriptInstance, Value};
use crate::trace::EventKind;
use crate::world::World;
use crate::world::{self, ActionId, Destination, MoveEvent, WorldCx};
use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
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
    /// Where the move it asked the world for goes, while one is open.
    moving: Option<LocationId>,
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
            moving: None,
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

/// Which kind of agent smart locations drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DrivenKind {
    /// An NPC of the scene without a machine.
    Ambient,
    /// Brought in by a spawn emitter.
    Spawned,
    /// A smart location's proxy object (stands at its location).
    Proxy,
    /// The player.
    Player,
}

/// Who an agent driven by smart locations is, and where it stands (`None`: not in the world
/// yet, or gone).
pub struct Presence {
    /// Which kind of driven agent it is.
    pub kind: DrivenKind,
    /// Where it stands, in the program's location coordinates.
    pub at: Option<[f64; 2]>,
}

/// An action a script asked for, open in the world.
#[derive(serde::Serialize, serde::Deserialize)]
struct OpenAction {
    /// The world's handle.
    id: ActionId,
    /// The script instance's id of the request.
    request: u64,
    agent: AgentId,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Place {
    instance: Option<ScriptInstance>,
    next_query: f64,
    actions: Vec<OpenAction>,
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
    /// The scene's own agents that run machines (a reload never adds any; a restore onto a
    /// patched program may: `crate::session::roster`).
    machine_agents: Vec<AgentId>,
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
    /// Action requests made so far (the next request's id).
    requested: u64,
    /// Actions nothing waits for any more, to cancel in the world.
    cancelled: Vec<ActionId>,
    /// Proxies have been added to the scene.
    set_up: bool,
    /// Trace events and messages to machine-driven agents, handed to the scene at the end of
    /// each step.
    out: Vec<(Option<AgentId>, EventKind)>,
    sends: Vec<(AgentId, String)>,
    /// Rules evaluated so far, over all instances (benchmarks).
    pub rule_evaluations: u64,
    /// (script, rule) pairs that have fired in any instance so far (coverage).
    fired: BTreeSet<(u32, u32)>,
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
    /// The smart locations of the program's scene `scene`, with their random streams derived
    /// from `seed` (use the scene's seed for a reproducible run).
    pub fn new(program: &Program, scene: SceneId, seed: u64) -> Self {
        let def = &program.scenes[scene.index()];
        let roster: Vec<AgentId> = (0..def.agents.len() + def.ambient.len())
            .map(|i| AgentId(i as u32))
            .collect();
        Self::with_roster(program, scene, seed, &roster)
    }

    /// [`Interactions::new`] for a scene whose own agents have the ids of `roster`, in the
    /// program's order (machine agents, then ambient NPCs; `crate::hsm::Scene::roster`).
    pub fn with_roster(program: &Program, scene: SceneId, seed: u64, roster: &[AgentId]) -> Self {
        let def = &program.scenes[scene.index()];
        let first = def.agents.len().min(roster.len());
        let ambient: Vec<Ambient> = def
            .ambient
            .iter()
            .zip(&roster[first..])
            .map(|(a, &agent)| Ambient {
                roles: a.roles.clone(),
                group: a.group,
                route: a.route.clone(),
                delay: a.delay,
                player: a.player,
                ..Ambient::new(agent, a.name, Origin::Scene)
            })
            .collect();
        let places = (0..program.smart_locations.len())
            .map(|p| Place::new(program, p))
            .collect();
        Interactions {
            scene: program.name(def.name).to_string(),
            machine_agents: roster[..first].to_vec(),
            player: ambient.iter().position(|a| a.player),
            ambient,
            places,
            pending: scene_events(program, scene, -1.0),
            symbols: Symbols::default(),
            // Stream far from the agents' streams (which use their index).
            rng: Rng::new(seed, 1 << 40),
            seed,
            requested: 0,
            cancelled: Vec::new(),
            set_up: false,
            out: Vec::new(),
            sends: Vec::new(),
            rule_evaluations: 0,
            fired: BTreeSet::new(),
        }
    }

    /// Every (script, rule index in the script) that has fired so far, in ended instances and
    /// running ones: what a content test's coverage reports as reached.
    pub fn fired_rules(&self) -> BTreeSet<(u32, u32)> {
        let mut fired = self.fired.clone();
        for (_, inst) in self.running() {
            fired.extend(inst.fired_rules().map(|r| (inst.script, r as u32)));
        }
        fired
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

    /// The scene's player, if it has one.
    pub fn player_agent(&self) -> Option<AgentId> {
        self.player.map(|i| self.ambient[i].agent)
    }

    /// Who an agent these smart locations drive is, and where it stands now (`None` for
    /// agents that run a machine).
    pub fn presence<W: World>(
        &self,
        program: &Program,
        world: &W,
        agent: AgentId,
        now: f64,
    ) -> Option<Presence> {
        let a = self.ambient.iter().find(|a| a.agent == agent)?;
        let kind = match a.origin {
            _ if a.player => DrivenKind::Player,
            Origin::Scene => DrivenKind::Ambient,
            Origin::Spawned => DrivenKind::Spawned,
            Origin::Proxy(_) => DrivenKind::Proxy,
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
    pub fn advance<W: World + 'static>(&mut self, scene: &mut Scene<W>) {
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
            self.place_tick(&program, &mut scene.game, p, now, dt);
        }
        self.flush(scene);
    }

    /// Hands recorded trace events to the scene and delivers notification messages.
    fn flush<W: World + 'static>(&mut self, scene: &mut Scene<W>) {
        for id in self.cancelled.drain(..) {
            scene.game.cancel_action(id);
        }
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
    /// states, `carry` every location's running instance and emitters, by name, and both
    /// report in one `reload` event; planning agents' worlds (`StandardState::planning`) carry
    /// across by name too. A refused program changes nothing here.
    pub fn reload<W: World + 'static>(
        &mut self,
        scene: &mut Scene<W>,
        program: Arc<Program>,
        reason: &str,
    ) -> Result<ReloadReport, LinkError> {
        let now = scene.now();
        // The scene's own agents as they run (never the ones it spawned): what the new list is
        // compared with, at every reload for as long as the difference lasts.
        let own = (self.machine_agents.iter().copied()).chain(
            (self.ambient.iter())
                .filter(|a| a.origin == Origin::Scene)
                .map(|a| a.agent),
        );
        let running: Vec<String> = own.map(|a| scene.agent_name(a).to_string()).collect();
        let result = scene.reload_with(program, reason, |old, new, world| {
            // Planning agents' worlds carry across by problem and fact names, whether or not
            // the scene (and so its world events) still exists.
            world
                .standard_mut()
                .planning
                .reload(old, new, new.scene_by_name(&self.scene));
            let mut report = self.carry(old, new, now);
            report
                .fallbacks
                .extend(cast_changes(&running, new, &self.scene));
            report
        });
        self.flush(scene);
        result
    }

    /// Moves the NPCs that are free to walk towards their next stop (or the location that
    /// drew them): the world moves them; arriving moves them on.
    fn walk<W: World>(&mut self, program: &Program, world: &mut W, now: f64, dt: f64) {
        for a in &mut self.ambient {
            let target = if a.busy_at.is_some() || now < a.delay || a.gone || now < a.linger {
                None
            } else {
                match a.drawn_to {
                    Some(p) => Some(program.smart_locations[p].at),
                    None => match a.route.get(a.next_stop) {
                        Some(stop) => Some(*stop),
                        None => {
                            // Spawned NPCs leave the scene at the end of their route.
                            if a.origin == Origin::Spawned && !a.route.is_empty() {
                                a.gone = true;
                            }
                            None
                        }
                    },
                }
            };
            let Some(target) = target else {
                // Taken into a script, lingering, gone: it stands still.
                if a.moving.take().is_some() {
                    world.stop_move(a.agent);
                }
                continue;
            };
            let mut trace = Vec::new();
            let mut cx = WorldCx {
                program,
                now,
                dt,
                rng: &mut self.rng,
                trace: &mut trace,
            };
            if a.moving != Some(target) {
                cx.dt = 0.0;
                world.move_to(a.agent, Destination::Location(target), &mut cx);
                cx.dt = dt;
                a.moving = Some(target);
            }
            let event = world.follow_move(a.agent, &mut cx);
            self.out
                .extend(trace.into_iter().map(|kind| (Some(a.agent), kind)));
            match event {
                Some(MoveEvent::Arrived) => {
                    world.stop_move(a.agent);
                    a.moving = None;
                    if a.drawn_to.take().is_some() {
                        a.linger = now + 2.0 * QUERY_PERIOD;
                    } else {
                        a.next_stop += 1;
                    }
                }
                Some(MoveEvent::Failed(why)) => {
                    // The world gave up on this stop: the NPC goes on to the next.
                    world.stop_move(a.agent);
                    a.moving = None;
                    let to = program.name(program.locations[target.index()].name);
                    self.out.push((
                        Some(a.agent),
                        EventKind::Error {
                            message: format!("cannot walk to `{to}`: {why}"),
                        },
                    ));
                    if a.drawn_to.take().is_none() {
                        a.next_stop += 1;
                    }
                }
                // No way there yet: the move stays open (a door may open).
                Some(MoveEvent::NoPath) | None => {}
            }
        }
    }

    fn position<W: World>(&self, program: &Program, world: &W, a: &Ambient) -> (f64, f64) {
        match a.origin {
            // A proxy has no body: it is where its location is.
            Origin::Proxy(Some((p, _))) => {
                let at = &program.locations[program.smart_locations[p].at.index()];
                (at.x, at.y)
            }
            _ => {
                let [x, y] = world.position(a.agent).unwrap_or([0.0, 0.0]);
                (x, y)
            }
        }
    }

    fn location_position(program: &Program, p: usize) -> (f64, f64) {
        let at = &program.locations[program.smart_locations[p].at.index()];
        (at.x, at.y)
    }

    /// Ambient NPCs free to take part at place `p` now, as allocation candidates.
    fn candidates<W: World>(
        &self,
        program: &Program,
        world: &W,
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

    fn place_tick<W: World>(
        &mut self,
        program: &Program,
        world: &mut W,
        p: usize,
        now: f64,
        dt: f64,
    ) {
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
        let said = self.update(program, world, p, now, dt, &mut events);
        self.report(program, p, events);
        // Lines come right after the `act` that says them.
        self.out.extend(said);
    }

    /// One update of place `p`'s instance, if it runs one; starts the actions it asks for, and
    /// returns the lines said by actions that carry a `line`.
    fn update<W: World>(
        &mut self,
        program: &Program,
        world: &mut W,
        p: usize,
        now: f64,
        dt: f64,
        events: &mut Vec<ScriptEvent>,
    ) -> Vec<(Option<AgentId>, EventKind)> {
        let mut said = Vec::new();
        let Some(mut inst) = self.places[p].instance.take() else {
            return said;
        };
        let def = &program.scripts[inst.script as usize];
        let mut finished: Vec<(u64, ActionOutcome)> = Vec::new();
        let mut trace = Vec::new();
        let rng = &mut self.rng;
        self.places[p].actions.retain(|a| {
            let mut cx = WorldCx {
                program,
                now,
                dt,
                rng: &mut *rng,
                trace: &mut trace,
            };
            let outcome = world.action_outcome(a.id, &mut cx);
            said.extend(trace.drain(..).map(|kind| (Some(a.agent), kind)));
            match outcome {
                Some(outcome) => {
                    finished.push((a.request, outcome));
                    false
                }
                None => true,
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
            &ScriptWorld {
                now,
                distance: &distance,
            },
            &finished,
            events,
            &mut requests,
        );
        self.rule_evaluations += inst.rule_evaluations - before;
        if inst.ended() {
            self.fired
                .extend(inst.fired_rules().map(|r| (inst.script, r as u32)));
        }
        for r in requests {
            // Actions carried across a reload may be names the new program no longer has.
            let name = self.symbols.name(program, r.action).to_string();
            let parameters: Vec<(String, String)> = r
                .parameters
                .iter()
                .map(|(k, v)| {
                    (
                        self.symbols.name(program, *k).to_string(),
                        render(program, &self.symbols, v),
                    )
                })
                .collect();
            // An action with a `line` parameter is something said: the trace shows the line.
            let line = parameters
                .iter()
                .find_map(|(k, v)| (k == "line").then(|| v.clone()));
            let target = r.target.as_ref().map(|v| render(program, &self.symbols, v));
            let proxy = self
                .ambient_of(r.actor)
                .is_some_and(|a| matches!(a.origin, Origin::Proxy(_)));
            self.requested += 1;
            let id = ActionId(self.requested);
            let agent = AgentId(r.actor);
            let mut cx = WorldCx {
                program,
                now,
                dt,
                rng: &mut self.rng,
                trace: &mut trace,
            };
            world.start_action(
                &world::ActionRequest {
                    id,
                    agent,
                    action: &name,
                    target: target.as_deref(),
                    parameters: &parameters,
                    line: line.as_deref(),
                    proxy,
                },
                &mut cx,
            );
            said.extend(trace.drain(..).map(|kind| (Some(agent), kind)));
            self.places[p].actions.push(OpenAction {
                id,
                request: r.id,
                agent,
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
            for a in self.places[p].actions.drain(..) {
                world.cancel_action(a.id);
            }
            self.places[p].next_query = now + 2.0 * QUERY_PERIOD;
        } else {
            self.places[p].instance = Some(inst);
        }
        said
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

/// What a hot reload leaves of the scene's cast, said in its `reload` event: a hot reload does
/// not patch the cast (a restore onto the new program does: `crate::session::roster`), so an
/// agent of the scene's own that the new program's scene no longer lists goes on, and one it
/// adds is not there, until the scene starts again. Without a word, a designer who deleted an
/// agent saw it still walking. `running` is the scene's own agents' names (spawned ones are in
/// no list); a program without the scene says nothing of its cast.
fn cast_changes(running: &[String], new: &Program, scene: &str) -> Vec<String> {
    let Some(id) = new.scene_by_name(scene) else {
        return Vec::new();
    };
    let def = &new.scenes[id.index()];
    let listed: Vec<&str> = (def.agents.iter().map(|a| a.name))
        .chain(def.ambient.iter().map(|a| a.name))
        .map(|n| new.name(n))
        .collect();
    let (now, before): (HashSet<&str>, HashSet<&str>) = (
        listed.iter().copied().collect(),
        running.iter().map(String::as_str).collect(),
    );
    let gone = (running.iter().filter(|n| !now.contains(n.as_str())))
        .map(|n| format!("{n}: no longer in scene `{scene}`; it goes on until the scene restarts"));
    let added = (listed.iter().filter(|n| !before.contains(*n)))
        .map(|n| format!("{n}: new in scene `{scene}`; it joins when the scene restarts"));
    gone.chain(added).collect()
}
