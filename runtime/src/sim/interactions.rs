//! Smart locations in the simulated world: ambient NPCs walk their routes; each smart location
//! looks for NPCs in its radius, allocates roles and starts one script instance at a time
//! (35.4), lets NPCs join late (35.4.2), and executes script actions as timed actions with
//! optional seeded failures. Everything that happens is reported as trace events.

use super::{ARRIVAL_RADIUS, SimWorld, WALK_SPEED};
use crate::hsm::AgentId;
use crate::program::{LocationId, NameId, Program, SceneId};
use crate::rng::Rng;
use crate::script::allocate::{Candidate, allocate, join_late};
use crate::script::instance::World;
use crate::script::{ActionOutcome, Fact, ScriptEvent, ScriptInstance, Value};
use crate::trace::EventKind;
use std::collections::HashMap;
use std::sync::Arc;

/// How often a smart location looks for NPCs, seconds.
const QUERY_PERIOD: f64 = 0.5;

struct Ambient {
    agent: AgentId,
    name: NameId,
    roles: Vec<NameId>,
    group: Option<NameId>,
    route: Vec<LocationId>,
    next_stop: usize,
    delay: f64,
    /// The smart location whose script it takes part in.
    busy_at: Option<usize>,
    /// Smart locations it has already used (it walks on afterwards).
    visited: Vec<usize>,
}

struct RunningAction {
    id: u64,
    ends_at: f64,
    fails: bool,
}

struct Place {
    instance: Option<ScriptInstance>,
    next_query: f64,
    actions: Vec<RunningAction>,
    /// Instances started so far (each gets its own random stream).
    started: u64,
    /// The script of the current or most recent instance (names events after it ends).
    last_script: Option<u32>,
}

/// The smart locations of a scene and the ambient NPCs they use.
pub struct Interactions {
    ambient: Vec<Ambient>,
    places: Vec<Place>,
    rng: Rng,
    seed: u64,
    failure_rate: f64,
    /// Rules evaluated so far, over all instances (benchmarks).
    pub rule_evaluations: u64,
}

fn render(program: &Program, v: &Value) -> String {
    match v {
        Value::Sym(s) => program.name(*s).to_string(),
        Value::Num(x) if x.fract() == 0.0 => format!("{x:.0}"),
        Value::Num(x) => format!("{:.3}", x),
    }
}

fn render_fact(program: &Program, f: &Fact) -> String {
    let args: Vec<String> = f.args.iter().map(|a| render(program, a)).collect();
    format!("{}({})", program.name(f.predicate), args.join(","))
}

impl Interactions {
    pub fn new(program: &Program, scene: SceneId, seed: u64) -> Self {
        let def = &program.scenes[scene.index()];
        let first = def.agents.len() as u32;
        let ambient = def
            .ambient
            .iter()
            .enumerate()
            .map(|(i, a)| Ambient {
                agent: AgentId(first + i as u32),
                name: a.name,
                roles: a.roles.clone(),
                group: a.group,
                route: a.route.clone(),
                next_stop: 0,
                delay: a.delay,
                busy_at: None,
                visited: Vec::new(),
            })
            .collect();
        let places = program
            .smart_locations
            .iter()
            .map(|_| Place {
                instance: None,
                next_query: 0.0,
                actions: Vec::new(),
                started: 0,
                last_script: None,
            })
            .collect();
        Interactions {
            ambient,
            places,
            // Stream far from the agents' streams (which use their index).
            rng: Rng::new(seed, 1 << 40),
            seed,
            failure_rate: 0.0,
            rule_evaluations: 0,
        }
    }

    /// Makes each simulated action fail with probability `p` (seeded), to exercise on-error
    /// paths.
    pub fn with_failure_rate(mut self, p: f64) -> Self {
        self.failure_rate = p.clamp(0.0, 1.0);
        self
    }

    /// Scripts running now: (smart location, script, participants).
    pub fn running(&self) -> impl Iterator<Item = (usize, &ScriptInstance)> {
        self.places
            .iter()
            .enumerate()
            .filter_map(|(i, p)| p.instance.as_ref().map(|s| (i, s)))
    }

    fn duration(&mut self, action: &str) -> f64 {
        match action {
            "sit" | "getup" => self.rng.range_f64(1.2, 1.8),
            "talk" => self.rng.range_f64(2.0, 4.0),
            "listen" => self.rng.range_f64(1.5, 3.0),
            _ => self.rng.range_f64(1.5, 2.5),
        }
    }

    /// Advances walking, script starts, joins and script updates by one tick.
    pub fn tick(
        &mut self,
        program: &Program,
        world: &mut SimWorld,
        now: f64,
        dt: f64,
        out: &mut Vec<(Option<AgentId>, EventKind)>,
    ) {
        self.walk(program, world, now, dt);
        for p in 0..self.places.len() {
            self.place_tick(program, world, p, now, out);
        }
    }

    fn walk(&mut self, program: &Program, world: &mut SimWorld, now: f64, dt: f64) {
        for a in &mut self.ambient {
            if a.busy_at.is_some() || now < a.delay {
                continue;
            }
            let Some(stop) = a.route.get(a.next_stop) else {
                continue;
            };
            let l = &program.locations[stop.index()];
            let body = world.body(a.agent);
            let (dx, dy) = (l.x - body.x, l.y - body.y);
            let dist = (dx * dx + dy * dy).sqrt();
            let stride = WALK_SPEED * dt;
            if dist <= ARRIVAL_RADIUS.max(stride) {
                body.x = l.x;
                body.y = l.y;
                a.next_stop += 1;
            } else {
                body.x += dx / dist * stride;
                body.y += dy / dist * stride;
            }
        }
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
        let at = &program.locations[loc.at.index()];
        self.ambient
            .iter()
            .filter(|a| a.busy_at.is_none() && now >= a.delay && !a.visited.contains(&p))
            .filter(|a| {
                let b = &world.bodies[a.agent.index()];
                ((b.x - at.x).powi(2) + (b.y - at.y).powi(2)).sqrt() <= loc.radius
            })
            .map(|a| Candidate {
                actor: a.agent.0,
                name: a.name,
                roles: a.roles.clone(),
                group: a.group,
            })
            .collect()
    }

    fn place_tick(
        &mut self,
        program: &Program,
        world: &mut SimWorld,
        p: usize,
        now: f64,
        out: &mut Vec<(Option<AgentId>, EventKind)>,
    ) {
        let loc = &program.smart_locations[p];
        let mut events = Vec::new();
        if now >= self.places[p].next_query {
            self.places[p].next_query = now + QUERY_PERIOD;
            let candidates = self.candidates(program, world, p, now);
            if !candidates.is_empty() {
                match &self.places[p].instance {
                    None => self.start(program, p, &candidates, &mut events),
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
        if let Some(mut inst) = self.places[p].instance.take() {
            let def = &program.scripts[inst.script as usize];
            let place = &mut self.places[p];
            let mut finished = Vec::new();
            place.actions.retain(|a| {
                if a.ends_at <= now {
                    finished.push((
                        a.id,
                        if a.fails {
                            ActionOutcome::Failed
                        } else {
                            ActionOutcome::Succeeded
                        },
                    ));
                    false
                } else {
                    true
                }
            });
            // Positions for `distance`: participants' bodies and the location's props.
            let mut positions: HashMap<NameId, (f64, f64)> = HashMap::new();
            let at = &program.locations[loc.at.index()];
            for (prop, _) in &loc.props {
                positions.insert(*prop, (at.x, at.y));
            }
            for a in &self.ambient {
                let b = &world.bodies[a.agent.index()];
                positions.insert(a.name, (b.x, b.y));
            }
            let distance = |a: Value, b: Value| match (a, b) {
                (Value::Sym(x), Value::Sym(y)) => {
                    let (p, q) = (positions.get(&x)?, positions.get(&y)?);
                    Some(((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2)).sqrt())
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
                &mut events,
                &mut requests,
            );
            self.rule_evaluations += inst.rule_evaluations - before;
            for r in requests {
                let name = program.name(r.action).to_string();
                let d = self.duration(&name);
                let fails = self.failure_rate > 0.0 && self.rng.unit() < self.failure_rate;
                self.places[p].actions.push(RunningAction {
                    id: r.id,
                    ends_at: now + d,
                    fails,
                });
            }
            if inst.ended() {
                self.places[p].actions.clear();
                self.places[p].next_query = now + 2.0 * QUERY_PERIOD;
            } else {
                self.places[p].instance = Some(inst);
            }
        }
        self.report(program, p, events, out);
    }

    fn start(
        &mut self,
        program: &Program,
        p: usize,
        candidates: &[Candidate],
        events: &mut Vec<ScriptEvent>,
    ) {
        let loc = &program.smart_locations[p];
        // Higher preference first; equal preferences keep the authored order.
        let mut choices = loc.scripts.clone();
        choices.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (script, _) in choices {
            let def = &program.scripts[script as usize];
            let Some(assignment) = allocate(def, candidates, &mut self.rng) else {
                continue;
            };
            let supplied: Vec<Fact> = loc
                .props
                .iter()
                .map(|(name, kind)| Fact {
                    predicate: *kind,
                    args: vec![Value::Sym(*name)],
                })
                .collect();
            let place = &mut self.places[p];
            let stream = ((p as u64) << 32) | place.started;
            place.started += 1;
            let mut inst = ScriptInstance::new(script, &supplied, self.seed, stream);
            for (actor, role) in assignment {
                let name = candidates
                    .iter()
                    .find(|c| c.actor == actor)
                    .map(|c| c.name)
                    .expect("allocated from candidates");
                inst.join(def, actor, name, role, events);
            }
            place.instance = Some(inst);
            place.last_script = Some(script);
            return;
        }
    }

    /// Turns script events into trace events and keeps the NPCs' bookkeeping.
    fn report(
        &mut self,
        program: &Program,
        p: usize,
        events: Vec<ScriptEvent>,
        out: &mut Vec<(Option<AgentId>, EventKind)>,
    ) {
        // An instance that ended during this update is gone; `last_script` still names it.
        let script_name: Arc<str> = Arc::from(self.last_script_name(program, p));
        let role_name = |s: Option<u32>, role: u16| -> Arc<str> {
            match s {
                Some(s) => {
                    program.shared_name(program.scripts[s as usize].roles[role as usize].name)
                }
                None => Arc::from("?"),
            }
        };
        let value = |v: &Option<Value>| v.as_ref().map(|v| Arc::from(render(program, v).as_str()));
        for e in events {
            match e {
                ScriptEvent::Act {
                    actor,
                    action,
                    target,
                } => out.push((
                    Some(AgentId(actor)),
                    EventKind::Act {
                        action: program.shared_name(action),
                        target: value(&target),
                    },
                )),
                ScriptEvent::Done {
                    actor,
                    action,
                    target,
                } => out.push((
                    Some(AgentId(actor)),
                    EventKind::Done {
                        action: program.shared_name(action),
                        target: value(&target),
                    },
                )),
                ScriptEvent::Fail {
                    actor,
                    action,
                    target,
                } => out.push((
                    Some(AgentId(actor)),
                    EventKind::ActionFailed {
                        action: program.shared_name(action),
                        target: value(&target),
                    },
                )),
                ScriptEvent::Add { actor, fact } => out.push((
                    actor.map(AgentId),
                    EventKind::Add {
                        script: script_name.clone(),
                        fact: render_fact(program, &fact),
                    },
                )),
                ScriptEvent::Del { actor, fact } => out.push((
                    actor.map(AgentId),
                    EventKind::Del {
                        script: script_name.clone(),
                        fact: render_fact(program, &fact),
                    },
                )),
                ScriptEvent::Join { actor, role } => {
                    if let Some(a) = self.ambient.iter_mut().find(|a| a.agent.0 == actor) {
                        a.busy_at = Some(p);
                    }
                    let sid = self.script_of(p);
                    out.push((
                        Some(AgentId(actor)),
                        EventKind::Join {
                            script: script_name.clone(),
                            role: role_name(sid, role),
                        },
                    ));
                }
                ScriptEvent::Leave { actor, role } => {
                    if let Some(a) = self.ambient.iter_mut().find(|a| a.agent.0 == actor) {
                        a.busy_at = None;
                        a.visited.push(p);
                    }
                    let sid = self.script_of(p);
                    out.push((
                        Some(AgentId(actor)),
                        EventKind::Leave {
                            script: script_name.clone(),
                            role: role_name(sid, role),
                        },
                    ));
                }
                ScriptEvent::End { .. } => {}
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

    fn last_script_name(&self, program: &Program, p: usize) -> String {
        match self.places[p].last_script {
            Some(s) => program.name(program.scripts[s as usize].name).to_string(),
            None => "?".into(),
        }
    }
}
