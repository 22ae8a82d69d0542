//! The emitters besides the script emitter (35.2), proxy objects (35.6), and the scene's
//! events: what a game would call when the player acts or a proxied system reports.
//!
//! Signals from a smart location to an agent are `message` trace events from the location
//! (`from` is its name): a notification (`handled` says whether the agent reacted), the
//! interaction icon shown to the player, the `spawned` signal to a new NPC. Machine-driven
//! agents receive notifications as real messages, which their machines can take.

use super::{Ambient, Interactions, Origin, distance};
use crate::hsm::Scene;
use crate::program::{NameId, Program};
use crate::script::allocate::{Candidate, admit};
use crate::script::eval::{Bindings, Env, eval};
use crate::script::{Atom, Fact, TupleSpace, Value};
use crate::trace::EventKind;
use crate::world::World;
use std::sync::Arc;

/// When a periodic emitter that was due at `next` fires again: the first time of its series
/// `next + k * every` after `now` (never, for `every` 0). An emitter fires at most once per step:
/// the times a long step skipped would all happen now, and a period below a step (or below what
/// a float can add to the clock) must neither flood nor hang the scene.
fn next_after(next: f64, every: f64, now: f64) -> f64 {
    if every <= 0.0 {
        return f64::INFINITY;
    }
    let t = next + (((now - next) / every).floor() + 1.0) * every;
    if t > now { t } else { now.next_up() }
}

impl Interactions {
    /// Adds every proxy object to the scene as an agent without a machine.
    pub(super) fn create_proxies<W: World + 'static>(
        &mut self,
        program: &Program,
        scene: &mut Scene<W>,
    ) {
        for (p, loc) in program.smart_locations.iter().enumerate() {
            for (k, proxy) in loc.proxies.iter().enumerate() {
                if self.places[p].proxies[k].is_some() {
                    continue;
                }
                let agent = scene.spawn_idle(program.name(proxy.name));
                let (x, y) = Self::location_position(program, p);
                scene.game.place(agent, [x, y]);
                self.places[p].proxies[k] = Some(agent);
                self.ambient
                    .push(Ambient::new(agent, proxy.name, Origin::Proxy(Some((p, k)))));
            }
        }
    }

    /// Spawn emitters whose next wave is due place their NPCs.
    pub(super) fn spawn_due<W: World + 'static>(
        &mut self,
        program: &Program,
        scene: &mut Scene<W>,
        now: f64,
    ) {
        for p in 0..self.places.len() {
            let loc = &program.smart_locations[p];
            for (k, spawn) in loc.spawns.iter().enumerate() {
                let (next, done) = self.places[p].next_wave[k];
                if next <= now && (spawn.waves == 0 || done < spawn.waves) {
                    self.places[p].next_wave[k] = (next_after(next, spawn.every, now), done + 1);
                    let base = program.name(spawn.name);
                    // A wave of several is a group: it joins scripts together.
                    let group = (spawn.size > 1).then(|| {
                        self.symbols
                            .intern(program, &format!("{base}#{}", done + 1))
                    });
                    let point = &program.locations[spawn.point.index()];
                    for i in 0..spawn.size {
                        let name = if spawn.numbered() {
                            format!("{base}{}", done as u64 * spawn.size as u64 + i as u64 + 1)
                        } else {
                            base.to_string()
                        };
                        let agent = scene.spawn_idle(&name);
                        scene.game.place(agent, [point.x, point.y]);
                        let id = self.symbols.intern(program, &name);
                        self.ambient.push(Ambient {
                            roles: spawn.roles.clone(),
                            route: spawn.route.clone(),
                            group,
                            ..Ambient::new(agent, id, Origin::Spawned)
                        });
                        self.out.push((
                            Some(agent),
                            EventKind::Message {
                                from: program.shared_name(loc.name),
                                to: Arc::from(name.as_str()),
                                name: Arc::from("spawned"),
                                handled: true,
                                up: false,
                            },
                        ));
                    }
                }
            }
        }
    }

    /// Replays the scene's events that are due. What cannot happen (the player is out of
    /// reach, nobody listens to a proxy) is an `error` trace event; the scene goes on.
    pub(super) fn scene_events_due<W: World>(&mut self, program: &Program, world: &W, now: f64) {
        use crate::program::SceneEvent;
        while self.pending.front().is_some_and(|e| e.at <= now) {
            let e = self.pending.pop_front().expect("checked");
            let player = self.player.map(|i| self.ambient[i].agent);
            let (who, result) = match &e.what {
                SceneEvent::Interact { location } => (
                    player,
                    self.interact_at(program, world, *location as usize, now),
                ),
                SceneEvent::Input { fact } => {
                    let me = self.player.map(|i| Value::Sym(self.ambient[i].name));
                    let result = match me.and_then(|me| self.ground(fact, me, now)) {
                        Some(f) => self.input_at(program, f),
                        None => Err("the scene has no player".to_string()),
                    };
                    (player, result)
                }
                SceneEvent::Leave => (player, self.leave_at(program)),
                SceneEvent::Push {
                    location,
                    proxy,
                    fact,
                } => {
                    let (p, k) = (*location as usize, *proxy as usize);
                    let who = self.places[p].proxies[k];
                    let me = Value::Sym(program.smart_locations[p].proxies[k].name);
                    let result = match self.ground(fact, me, now) {
                        Some(f) => self.push_at(program, p, k, f),
                        None => Err("the proxy's report cannot be evaluated".to_string()),
                    };
                    (who, result)
                }
                SceneEvent::Notify {
                    location,
                    notification,
                } => {
                    self.emit(
                        program,
                        world,
                        *location as usize,
                        *notification as usize,
                        now,
                    );
                    (None, Ok(()))
                }
            };
            if let Err(message) = result {
                self.out.push((who, EventKind::Error { message }));
            }
        }
    }

    /// A ground fact's value now (`.me` is `me`).
    fn ground(&mut self, atom: &Atom, me: Value, now: f64) -> Option<Fact> {
        let space = TupleSpace::default();
        let mut env = Env {
            space: &space,
            me,
            now,
            participants: &[],
            rng: &mut self.rng,
            distance: &|_, _| None,
            steps: 0,
        };
        let b = Bindings::new(0);
        let args = atom
            .args
            .iter()
            .map(|e| eval(e, &b, &mut env))
            .collect::<Result<Vec<_>, _>>()
            .ok()?;
        Some(Fact {
            predicate: atom.predicate,
            args,
        })
    }

    /// Notification emitters that are due fire.
    pub(super) fn notifications_due<W: World>(&mut self, program: &Program, world: &W, now: f64) {
        for p in 0..self.places.len() {
            let loc = &program.smart_locations[p];
            for (k, n) in loc.notifications.iter().enumerate() {
                let next = self.places[p].next_notice[k];
                if next <= now {
                    self.places[p].next_notice[k] = next_after(next, n.every, now);
                    self.emit(program, world, p, k, now);
                }
            }
        }
    }

    /// Notification `k` of place `p`: its facts go on the blackboard (and stay for instances
    /// started while they last); agents in reach hear of it, and free NPCs that could take
    /// part in the location's scripts come over.
    fn emit<W: World>(&mut self, program: &Program, world: &W, p: usize, k: usize, now: f64) {
        let loc = &program.smart_locations[p];
        let n = &loc.notifications[k];
        let here = Value::Sym(loc.name);
        let facts: Vec<Fact> = n
            .facts
            .iter()
            .filter_map(|a| self.ground(a, here, now))
            .collect();
        let until = n.lasts.map_or(f64::INFINITY, |l| now + l);
        let mut events = Vec::new();
        for f in facts {
            let place = &mut self.places[p];
            place.standing.retain(|(g, _)| *g != f);
            place.standing.push((f.clone(), until));
            if let Some(inst) = &mut place.instance {
                inst.push_fact(f, None, &mut events);
            }
        }
        self.report(program, p, events);
        let at = Self::location_position(program, p);
        for &agent in &self.machine_agents {
            if let Some([x, y]) = world.position(agent)
                && distance((x, y), at) <= n.radius
            {
                self.sends.push((agent, program.name(n.name).to_string()));
            }
        }
        let roles: Vec<NameId> = loc
            .scripts
            .iter()
            .flat_map(|(s, _)| program.scripts[*s as usize].roles.iter().map(|r| r.name))
            .collect();
        for i in 0..self.ambient.len() {
            let a = &self.ambient[i];
            if a.gone || now < a.delay || matches!(a.origin, Origin::Proxy(_)) {
                continue;
            }
            if distance(self.position(program, world, a), at) > n.radius {
                continue;
            }
            let reacts =
                a.free(now) && !a.visited.contains(&p) && a.roles.iter().any(|r| roles.contains(r));
            let to = Arc::from(self.symbols.name(program, a.name));
            let agent = a.agent;
            if reacts {
                self.ambient[i].drawn_to = Some(p);
            }
            self.out.push((
                Some(agent),
                EventKind::Message {
                    from: program.shared_name(loc.name),
                    to,
                    name: program.shared_name(n.name),
                    handled: reacts,
                    up: false,
                },
            ));
        }
    }

    /// Notification facts whose time is up leave the blackboard.
    pub(super) fn expire_standing(&mut self, program: &Program, now: f64) {
        for p in 0..self.places.len() {
            if self.places[p]
                .standing
                .iter()
                .all(|(_, until)| *until > now)
            {
                continue;
            }
            let place = &mut self.places[p];
            let (gone, kept): (Vec<_>, Vec<_>) = std::mem::take(&mut place.standing)
                .into_iter()
                .partition(|(_, until)| *until <= now);
            place.standing = kept;
            let mut events = Vec::new();
            if let Some(inst) = &mut place.instance {
                for (f, _) in &gone {
                    inst.retract_fact(f, &mut events);
                }
            }
            self.report(program, p, events);
        }
    }

    /// Shows the player the icon of every location with a player emitter it comes within reach
    /// of, once per approach.
    pub(super) fn show_icons<W: World>(&mut self, program: &Program, world: &W, now: f64) {
        let Some(i) = self.player else { return };
        let a = &self.ambient[i];
        let (pos, free, agent) = (
            self.position(program, world, a),
            a.busy_at.is_none() && now >= a.delay,
            a.agent,
        );
        let to = Arc::from(self.symbols.name(program, a.name));
        for (p, loc) in program.smart_locations.iter().enumerate() {
            let Some(emitter) = &loc.player else { continue };
            let in_reach = free && distance(pos, Self::location_position(program, p)) <= loc.radius;
            if in_reach && !self.places[p].icon_shown {
                self.out.push((
                    Some(agent),
                    EventKind::Message {
                        from: program.shared_name(loc.name),
                        to: Arc::clone(&to),
                        name: program.shared_name(emitter.icon),
                        handled: true,
                        up: false,
                    },
                ));
            }
            self.places[p].icon_shown = in_reach;
        }
    }

    /// The player reacts to place `p`'s icon: joins its running script in the emitter's role,
    /// or starts one with the NPCs around.
    fn interact_at<W: World>(
        &mut self,
        program: &Program,
        world: &W,
        p: usize,
        now: f64,
    ) -> Result<(), String> {
        let i = self.player.ok_or("the scene has no player")?;
        let loc = &program.smart_locations[p];
        let here = program.name(loc.name);
        let emitter = loc
            .player
            .as_ref()
            .ok_or_else(|| format!("`{here}` has no player emitter"))?;
        let a = &self.ambient[i];
        if let Some(q) = a.busy_at {
            return Err(format!(
                "the player already takes part in the script at `{}`",
                program.name(program.smart_locations[q].name)
            ));
        }
        let d = distance(
            self.position(program, world, a),
            Self::location_position(program, p),
        );
        if d > loc.radius || now < a.delay {
            return Err(format!(
                "the player is {d:.1} m from `{here}`, beyond its reach of {} m: there is no icon to react to",
                loc.radius
            ));
        }
        let (actor, name, role_name) = (a.agent.0, a.name, emitter.role);
        let mut events = Vec::new();
        match self.places[p].instance.take() {
            Some(mut inst) => {
                let def = &program.scripts[inst.script as usize];
                let outcome = match def.role_by_name(role_name) {
                    None => Err(format!(
                        "the script running at `{here}` has no role `{}` for the player",
                        program.name(role_name)
                    )),
                    Some(_) => {
                        let counts: Vec<usize> =
                            (0..def.roles.len()).map(|r| inst.count(r as u16)).collect();
                        let me = Candidate {
                            actor,
                            name,
                            roles: vec![role_name],
                            group: None,
                        };
                        match admit(def, &[&me], &counts) {
                            Some(assign) => {
                                for (actor, role) in assign {
                                    inst.join(def, actor, name, role, &mut events);
                                }
                                Ok(())
                            }
                            None => Err(format!(
                                "role `{}` of the script at `{here}` is full",
                                program.name(role_name)
                            )),
                        }
                    }
                };
                self.places[p].instance = Some(inst);
                outcome?;
            }
            None => {
                let candidates = self.candidates(program, world, p, now);
                if !self.start(
                    program,
                    p,
                    &candidates,
                    Some((actor, role_name)),
                    &mut events,
                ) {
                    return Err(format!(
                        "`{here}` cannot start a script with the player as `{}` and the NPCs around",
                        program.name(role_name)
                    ));
                }
            }
        }
        self.report(program, p, events);
        Ok(())
    }

    /// Player input goes on the blackboard of the player's script.
    fn input_at(&mut self, program: &Program, fact: Fact) -> Result<(), String> {
        let i = self.player.ok_or("the scene has no player")?;
        let (actor, busy) = (self.ambient[i].agent.0, self.ambient[i].busy_at);
        let Some(p) = busy else {
            return Err(format!(
                "the player takes part in no script: input `{}` is dropped",
                super::render_fact(program, &self.symbols, &fact)
            ));
        };
        let mut events = Vec::new();
        if let Some(inst) = &mut self.places[p].instance {
            inst.push_fact(fact, Some(actor), &mut events);
        }
        self.report(program, p, events);
        Ok(())
    }

    /// The player walks away from its script.
    fn leave_at(&mut self, program: &Program) -> Result<(), String> {
        let i = self.player.ok_or("the scene has no player")?;
        let (actor, busy) = (self.ambient[i].agent.0, self.ambient[i].busy_at);
        let p = busy.ok_or("the player takes part in no script")?;
        let mut events = Vec::new();
        if let Some(inst) = &mut self.places[p].instance {
            let def = &program.scripts[inst.script as usize];
            inst.remove(def, actor, &mut events);
            // A leave command is shown (`act`); nothing waits for it to finish.
            inst.take_leave_requests();
        }
        self.report(program, p, events);
        Ok(())
    }

    /// Proxy `k` of place `p` reports a fact into the location's running script.
    fn push_at(&mut self, program: &Program, p: usize, k: usize, fact: Fact) -> Result<(), String> {
        let actor = self.places[p].proxies[k].map(|a| a.0);
        let mut events = Vec::new();
        match &mut self.places[p].instance {
            Some(inst) => inst.push_fact(fact, actor, &mut events),
            None => {
                return Err(format!(
                    "proxy `{}` reported `{}`, but `{}` runs no script to hear it",
                    program.name(program.smart_locations[p].proxies[k].name),
                    super::render_fact(program, &self.symbols, &fact),
                    program.name(program.smart_locations[p].name)
                ));
            }
        }
        self.report(program, p, events);
        Ok(())
    }

    // ---- the game's API: the same, by name, recorded in the scene at once ----

    /// A fact from names (numbers where an argument reads as one), for [`Self::player_input`]
    /// and [`Self::proxy_push`]: `fact(&program, "sale", &["player", "bread"])`.
    pub fn fact(&mut self, program: &Program, predicate: &str, args: &[&str]) -> Fact {
        Fact {
            predicate: self.symbols.intern(program, predicate),
            args: args
                .iter()
                .map(|a| match a.parse::<f64>() {
                    Ok(x) if x.is_finite() => Value::Num(x),
                    _ => Value::Sym(self.symbols.intern(program, a)),
                })
                .collect(),
        }
    }

    fn place_by_name(program: &Program, location: &str) -> Result<usize, String> {
        program
            .smart_locations
            .iter()
            .position(|l| program.name(l.name) == location)
            .ok_or_else(|| format!("no smart location `{location}`"))
    }

    /// The player reacts to the interaction icon of smart location `location`.
    pub fn interact<W: World + 'static>(
        &mut self,
        scene: &mut Scene<W>,
        location: &str,
    ) -> Result<(), String> {
        let program = scene.program().clone();
        let p = Self::place_by_name(&program, location)?;
        let result = self.interact_at(&program, &scene.game, p, scene.now());
        self.flush(scene);
        result
    }

    /// Player input, written to the blackboard of the script the player takes part in.
    pub fn player_input<W: World + 'static>(
        &mut self,
        scene: &mut Scene<W>,
        fact: Fact,
    ) -> Result<(), String> {
        let program = scene.program().clone();
        let result = self.input_at(&program, fact);
        self.flush(scene);
        result
    }

    /// The player walks away from its script.
    pub fn player_leave<W: World + 'static>(&mut self, scene: &mut Scene<W>) -> Result<(), String> {
        let program = scene.program().clone();
        let result = self.leave_at(&program);
        self.flush(scene);
        result
    }

    /// Proxy object `proxy` reports a fact from its domain (what the player buys).
    pub fn proxy_push<W: World + 'static>(
        &mut self,
        scene: &mut Scene<W>,
        proxy: &str,
        fact: Fact,
    ) -> Result<(), String> {
        let program = scene.program().clone();
        let (p, k) = program
            .smart_locations
            .iter()
            .enumerate()
            .find_map(|(p, l)| {
                l.proxies
                    .iter()
                    .position(|x| program.name(x.name) == proxy)
                    .map(|k| (p, k))
            })
            .ok_or_else(|| format!("no proxy `{proxy}`"))?;
        let result = self.push_at(&program, p, k, fact);
        self.flush(scene);
        result
    }

    /// Smart location `location` emits its notification `notification` now.
    pub fn notify<W: World + 'static>(
        &mut self,
        scene: &mut Scene<W>,
        location: &str,
        notification: &str,
    ) -> Result<(), String> {
        let program = scene.program().clone();
        let p = Self::place_by_name(&program, location)?;
        let k = program.smart_locations[p]
            .notifications
            .iter()
            .position(|n| program.name(n.name) == notification)
            .ok_or_else(|| format!("`{location}` has no notification `{notification}`"))?;
        self.emit(&program, &scene.game, p, k, scene.now());
        self.flush(scene);
        Ok(())
    }
}
