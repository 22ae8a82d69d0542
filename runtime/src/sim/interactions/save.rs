//! The smart locations' part of a savegame: ambient agents, each location's emitters and its
//! running script instance with its tuple space, the scene events still to come.
//!
//! Saved with the program's ids, so it restores onto the very build it was taken from only
//! (`Simulation::restore` starts the smart locations afresh on a rebuilt program and says so).
//! Everything read is checked against that program before it runs: no snapshot makes the
//! smart locations index out of range.

use super::{Ambient, Interactions, Origin, Place, scene_events};
use crate::program::{Program, SceneId};
use crate::rng::Rng;
use crate::script::Value;
use serde::{Deserialize, Serialize};

/// What [`Interactions::to_saved`] writes: the same layout as [`SavedInteractions`], borrowed.
#[derive(Serialize)]
pub(crate) struct SavingInteractions<'a> {
    machine_driven: usize,
    ambient: &'a [Ambient],
    places: &'a [Place],
    player: Option<usize>,
    events_done: usize,
    symbols: Vec<&'a str>,
    rng: &'a Rng,
    failure_rate: f64,
    set_up: bool,
    rule_evaluations: u64,
}

#[derive(Deserialize)]
pub(crate) struct SavedInteractions {
    machine_driven: usize,
    ambient: Vec<Ambient>,
    places: Vec<Place>,
    player: Option<usize>,
    /// How many of the scene's events (in time order) have happened.
    events_done: usize,
    symbols: Vec<String>,
    rng: Rng,
    failure_rate: f64,
    set_up: bool,
    rule_evaluations: u64,
}

impl Interactions {
    /// Whether an action in flight was carried across a hot reload (a savegame refuses it).
    pub(crate) fn has_carried_actions(&self) -> bool {
        self.places
            .iter()
            .filter_map(|p| p.instance.as_ref())
            .any(|i| i.has_carried_actions())
    }

    /// Its state for a savegame (between ticks: nothing is waiting to be flushed).
    pub(crate) fn to_saved(&self, program: &Program, scene: SceneId) -> SavingInteractions<'_> {
        let total = scene_events(program, scene, -1.0).len();
        SavingInteractions {
            machine_driven: self.machine_driven,
            ambient: &self.ambient,
            places: &self.places,
            player: self.player,
            events_done: total.saturating_sub(self.pending.len()),
            symbols: self.symbols.run_time_names().collect(),
            rng: &self.rng,
            failure_rate: self.failure_rate,
            set_up: self.set_up,
            rule_evaluations: self.rule_evaluations,
        }
    }

    /// The smart locations of `scene` as saved, checked against `program` (the build they were
    /// saved under) and the scene's `agents`.
    pub(crate) fn from_saved(
        program: &Program,
        scene: SceneId,
        seed: u64,
        mut saved: SavedInteractions,
        agents: usize,
    ) -> Result<Interactions, String> {
        let mut fresh = Interactions::new(program, scene, seed);
        for name in &saved.symbols {
            fresh.symbols.intern(program, name);
        }
        if fresh.symbols.run_time_names().len() != saved.symbols.len() {
            return Err("its run-time names repeat the program's".into());
        }
        let names = program.names.len() + saved.symbols.len();
        let places = program.smart_locations.len();
        if saved.places.len() != places {
            return Err(format!(
                "{} smart locations saved, the program has {places}",
                saved.places.len()
            ));
        }
        if saved.machine_driven > agents || saved.player.is_some_and(|p| p >= saved.ambient.len()) {
            return Err("its agents do not fit the scene".into());
        }
        let named = |n: crate::program::NameId| n.index() < names;
        for a in &saved.ambient {
            let proxy_ok = match a.origin {
                Origin::Proxy(Some((p, i))) => {
                    p < places && i < program.smart_locations[p].proxies.len()
                }
                _ => true,
            };
            let ok = a.agent.index() < agents
                && named(a.name)
                && a.roles.iter().all(|r| named(*r))
                && a.group.is_none_or(named)
                && a.route.iter().all(|l| l.index() < program.locations.len())
                && a.next_stop <= a.route.len()
                && a.busy_at.is_none_or(|p| p < places)
                && a.drawn_to.is_none_or(|p| p < places)
                && a.visited.iter().all(|p| *p < places)
                && proxy_ok;
            if !ok {
                return Err(format!(
                    "ambient agent #{} does not fit the scene",
                    a.agent.0
                ));
            }
        }
        for (p, place) in saved.places.iter_mut().enumerate() {
            let def = &program.smart_locations[p];
            let fact_ok = |f: &crate::script::Fact| {
                named(f.predicate)
                    && f.args
                        .iter()
                        .all(|v| !matches!(v, Value::Sym(s) if !named(*s)))
            };
            let ok = place
                .last_script
                .is_none_or(|s| (s as usize) < program.scripts.len())
                && place.next_notice.len() == def.notifications.len()
                && place.next_wave.len() == def.spawns.len()
                && place.proxies.len() == def.proxies.len()
                && place.proxies.iter().flatten().all(|a| a.index() < agents)
                && place.standing.iter().all(|(f, _)| fact_ok(f));
            if !ok {
                return Err(format!(
                    "smart location {} does not fit the program",
                    program.name(def.name)
                ));
            }
            if let Some(instance) = &mut place.instance {
                instance
                    .check(&program.scripts, names, agents)
                    .map_err(|e| format!("the script at {}: {e}", program.name(def.name)))?;
            }
        }
        let skip = saved.events_done.min(fresh.pending.len());
        fresh.pending.drain(..skip);
        Ok(Interactions {
            machine_driven: saved.machine_driven,
            ambient: saved.ambient,
            places: saved.places,
            player: saved.player,
            rng: saved.rng,
            failure_rate: saved.failure_rate,
            set_up: saved.set_up,
            rule_evaluations: saved.rule_evaluations,
            ..fresh
        })
    }
}
