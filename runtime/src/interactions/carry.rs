//! Hot reload of smart locations (issue #9: "tuple spaces and script instances" carry over).
//!
//! Everything is matched by name between the old and the new program: smart locations, the
//! scripts they run, roles, states, notifications, spawn emitters, proxies, locations on
//! routes. Every name id a location holds (facts, participants, bindings of actions in flight)
//! is re-interned under the new program. What cannot be mapped follows fixed rules, each
//! reported in the `reload` event's `fallbacks`:
//! - a smart location that no longer exists, a script that no longer exists or that its
//!   location no longer runs: the instance ends (its participants leave and walk on);
//! - inside a carried instance, see [`ScriptInstance::carry`]: a deleted role makes its
//!   participants leave, a deleted state restarts its participants at the initial state, an
//!   action in flight finishes with the effects of the rule that started it;
//! - emitters and proxies added by the new program start afresh (a new notification whose
//!   time has passed fires at once); removed ones stop.
//!
//! [`ScriptInstance::carry`]: crate::script::ScriptInstance::carry

use super::{Interactions, Origin, Place, render_events, scene_events};
use crate::hsm::{ReloadReport, Symbols};
use crate::program::{LocationId, NameId, Program};
use crate::script::{Fact, ScriptEvent};
use crate::trace::EventKind;
use std::collections::HashMap;
use std::sync::Arc;

impl Interactions {
    pub(super) fn carry(&mut self, old: &Program, new: &Program, now: f64) -> ReloadReport {
        let mut report = ReloadReport::default();
        let old_symbols = std::mem::take(&mut self.symbols);
        let place_map: Vec<Option<usize>> = old
            .smart_locations
            .iter()
            .map(|l| {
                new.smart_locations
                    .iter()
                    .position(|m| new.name(m.name) == old.name(l.name))
            })
            .collect();
        let script_in_new = |name: &str| {
            new.scripts
                .iter()
                .position(|s| new.name(s.name) == name)
                .map(|s| s as u32)
        };
        let labels: HashMap<u32, String> = self
            .ambient
            .iter()
            .map(|a| (a.agent.0, old_symbols.name(old, a.name).to_string()))
            .collect();
        let label = |actor: u32| {
            labels
                .get(&actor)
                .cloned()
                .unwrap_or_else(|| format!("#{actor}"))
        };

        // End, under the old program, the instances that do not carry over.
        let mut out = Vec::new();
        for (p, target) in place_map.iter().enumerate() {
            let Some(script) = self.places[p].instance.as_ref().map(|i| i.script) else {
                continue;
            };
            let def = &old.scripts[script as usize];
            let (here, name) = (old.name(old.smart_locations[p].name), old.name(def.name));
            let found = script_in_new(name);
            let why = match (*target, found) {
                (None, _) => format!("smart location `{here}` no longer exists"),
                (Some(_), None) => format!("script `{name}` no longer exists"),
                (Some(q), Some(s))
                    if !new.smart_locations[q].scripts.iter().any(|(x, _)| *x == s) =>
                {
                    format!("`{here}` no longer runs script `{name}`")
                }
                _ => continue,
            };
            report.fallbacks.push(format!(
                "{why}: its running instance at `{here}` ended and its participants walk on"
            ));
            let mut inst = self.places[p].instance.take().expect("checked");
            let mut events = Vec::new();
            inst.end(def, why, &mut events);
            self.cancelled
                .extend(self.places[p].actions.drain(..).map(|a| a.id));
            for e in &events {
                if let ScriptEvent::Leave { actor, .. } = e
                    && let Some(a) = self.ambient.iter_mut().find(|a| a.agent.0 == *actor)
                {
                    a.busy_at = None;
                }
            }
            render_events(old, &old_symbols, Some(script), events, &mut out);
        }

        // Everything else is renamed into the new program.
        let mut symbols = Symbols::default();
        let mut rename = |id: NameId| symbols.intern(new, old_symbols.name(old, id));
        let old_name = |id: NameId| old_symbols.name(old, id).to_string();
        let new_name = |id: NameId| new.name(id).to_string();
        let location = |l: LocationId| {
            let name = old.name(old.locations[l.index()].name);
            new.locations
                .iter()
                .position(|m| new.name(m.name) == name)
                .map(|i| LocationId(i as u32))
        };
        let scene = new.scene_by_name(&self.scene);
        for a in &mut self.ambient {
            a.name = rename(a.name);
            a.roles = a.roles.iter().map(|r| rename(*r)).collect();
            a.group = a.group.map(&mut rename);
            a.route = a.route.iter().filter_map(|l| location(*l)).collect();
            a.busy_at = a.busy_at.and_then(|p| place_map[p]);
            a.drawn_to = a.drawn_to.and_then(|p| place_map[p]);
            a.visited = a.visited.iter().filter_map(|p| place_map[*p]).collect();
            // Its open move, if any, goes by the new program's location ids.
            a.moving = a.moving.and_then(location);
            // Agents of the scene take what the new scene says about them.
            if a.origin == Origin::Scene
                && let Some(def) = scene.and_then(|s| {
                    new.scenes[s.index()]
                        .ambient
                        .iter()
                        .find(|d| d.name == a.name)
                })
            {
                a.roles = def.roles.clone();
                a.group = def.group;
                if a.route != def.route {
                    a.route = def.route.clone();
                    a.next_stop = 0;
                }
                a.delay = def.delay;
            }
            a.next_stop = a.next_stop.min(a.route.len());
            if let Origin::Proxy(Some((p, k))) = a.origin {
                let proxy = old.name(old.smart_locations[p].proxies[k].name);
                a.origin = Origin::Proxy(place_map[p].and_then(|q| {
                    new.smart_locations[q]
                        .proxies
                        .iter()
                        .position(|x| new.name(x.name) == proxy)
                        .map(|k| (q, k))
                }));
            }
        }

        let mut places: Vec<Place> = (0..new.smart_locations.len())
            .map(|q| Place::new(new, q))
            .collect();
        for (p, mut place) in std::mem::take(&mut self.places).into_iter().enumerate() {
            let Some(q) = place_map[p] else { continue };
            let (was, is) = (&old.smart_locations[p], &new.smart_locations[q]);
            let target = &mut places[q];
            // Emitters and proxies by name; new ones keep their fresh start.
            carry_by_name(
                &spelled(old, was.notifications.iter().map(|n| n.name)),
                &spelled(new, is.notifications.iter().map(|n| n.name)),
                &place.next_notice,
                &mut target.next_notice,
            );
            carry_by_name(
                &spelled(old, was.spawns.iter().map(|s| s.name)),
                &spelled(new, is.spawns.iter().map(|s| s.name)),
                &place.next_wave,
                &mut target.next_wave,
            );
            carry_by_name(
                &spelled(old, was.proxies.iter().map(|x| x.name)),
                &spelled(new, is.proxies.iter().map(|x| x.name)),
                &place.proxies,
                &mut target.proxies,
            );
            target.standing = place
                .standing
                .iter()
                .map(|(f, until)| {
                    let f = Fact {
                        predicate: rename(f.predicate),
                        args: f.args.iter().map(|v| v.renamed(&mut rename)).collect(),
                    };
                    (f, *until)
                })
                .collect();
            target.next_query = place.next_query;
            target.started = place.started;
            target.icon_shown = place.icon_shown;
            target.last_script = place
                .last_script
                .and_then(|s| script_in_new(old.name(old.scripts[s as usize].name)));
            if let Some(mut inst) = place.instance.take() {
                let old_def = &old.scripts[inst.script as usize];
                let s = script_in_new(old.name(old_def.name)).expect("ended above if missing");
                let carried = inst.carry(
                    old_def,
                    &new.scripts[s as usize],
                    s,
                    &mut rename,
                    &old_name,
                    &new_name,
                    &label,
                );
                report.kept += carried.kept;
                report.fallbacks.extend(carried.notes);
                let script: Arc<str> = Arc::from(new.name(new.scripts[s as usize].name));
                for (actor, role) in carried.left {
                    if let Some(a) = self.ambient.iter_mut().find(|a| a.agent.0 == actor) {
                        a.busy_at = None;
                        a.visited.push(q);
                    }
                    out.push((
                        Some(crate::hsm::AgentId(actor)),
                        EventKind::Leave {
                            script: script.clone(),
                            role: Arc::from(role.as_str()),
                        },
                    ));
                }
                target.actions = std::mem::take(&mut place.actions);
                target.instance = Some(inst);
                target.last_script = Some(s);
            }
        }
        self.places = places;
        // Scene events still to come come from the new program.
        self.pending = match scene {
            Some(s) => scene_events(new, s, now),
            None => Default::default(),
        };
        self.symbols = symbols;
        // Proxies the new program adds are created on the next step.
        self.set_up = false;
        self.out.extend(out);
        report
    }
}

fn spelled(program: &Program, ids: impl Iterator<Item = NameId>) -> Vec<String> {
    ids.map(|id| program.name(id).to_string()).collect()
}

/// `to[k] = from[j]` wherever new item `k` has the name of old item `j`; other items keep what
/// they have (a fresh start).
fn carry_by_name<T: Clone>(old: &[String], new: &[String], from: &[T], to: &mut [T]) {
    for (k, name) in new.iter().enumerate() {
        if let Some(j) = old.iter().position(|o| o == name) {
            to[k] = from[j].clone();
        }
    }
}
