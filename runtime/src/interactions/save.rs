//! The smart locations' part of a savegame: ambient agents, each location's emitters and its
//! running script instance with its tuple space, the scene events still to come.
//!
//! Saved with the program's ids, so it restores onto the very build it was taken from only
//! ([`Interactions::restore`] starts the smart locations afresh on a rebuilt program and says
//! so). The world's side of the actions they opened (when each ends) is the game's to save.
//! Everything read is checked against that program before it runs: no snapshot makes the
//! smart locations index out of range.

use super::{Ambient, Interactions, Origin, Place, scene_events};
use crate::hsm::AgentId;
use crate::program::{Program, SceneId};
use crate::rng::Rng;
use crate::script::Value;
use crate::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
use crate::world::ActionId;
use serde::{Deserialize, Serialize};

/// Why a save is refused while an action carried across a hot reload runs.
pub const CARRIED_ACTION: &str =
    "a script action carried across a hot reload is still running (save once it has ended)";

/// The section the smart locations save into.
pub const INTERACTIONS_SECTION: &str = "interactions";

/// What [`Interactions::to_saved`] writes: the same layout as [`SavedInteractions`], borrowed.
#[derive(Serialize)]
struct SavingInteractions<'a> {
    machine_driven: usize,
    ambient: &'a [Ambient],
    places: &'a [Place],
    player: Option<usize>,
    events_done: usize,
    symbols: Vec<&'a str>,
    rng: &'a Rng,
    requested: u64,
    cancelled: &'a [ActionId],
    set_up: bool,
    rule_evaluations: u64,
}

/// The smart locations' section of a snapshot, as read back: ambient NPCs, running scripts with
/// their tuple spaces, emitters and open actions. Restore it with the `restore` calls of
/// [`Interactions`](super::Interactions).
#[derive(Deserialize)]
pub struct SavedInteractions {
    machine_driven: usize,
    ambient: Vec<Ambient>,
    places: Vec<Place>,
    player: Option<usize>,
    /// How many of the scene's events (in time order) have happened.
    events_done: usize,
    symbols: Vec<String>,
    rng: Rng,
    /// Action requests made so far: the ids the world knows them by go on from here.
    requested: u64,
    cancelled: Vec<ActionId>,
    set_up: bool,
    rule_evaluations: u64,
}

impl Interactions {
    /// Whether an action in flight was carried across a hot reload (a savegame refuses it).
    pub fn has_carried_actions(&self) -> bool {
        self.places
            .iter()
            .filter_map(|p| p.instance.as_ref())
            .any(|i| i.has_carried_actions())
    }

    /// Saves the smart locations into [`INTERACTIONS_SECTION`] (between ticks). Refused while
    /// a script action carried across a hot reload still runs
    /// ([`Interactions::has_carried_actions`]): its rule belongs to the program before the
    /// reload, so the savegame could not be restored; save once it has ended. A save never
    /// writes what cannot be restored.
    pub fn save(
        &self,
        program: &Program,
        scene: SceneId,
        snapshot: &mut SnapshotWriter,
    ) -> Result<(), SnapshotError> {
        if self.has_carried_actions() {
            return Err(SnapshotError::Unsupported(CARRIED_ACTION.into()));
        }
        snapshot.put(INTERACTIONS_SECTION, &self.to_saved(program, scene));
        Ok(())
    }

    /// The smart locations of `scene` as [`Interactions::save`] left them in `snapshot`, onto
    /// `program` with `agents` agents in the scene, its own agents having the ids of `roster`
    /// (`crate::hsm::Scene::roster`). Onto a rebuilt program (another checksum than the
    /// snapshot's) they start afresh, and the note returned says so; a section that does not
    /// fit the program is an error.
    pub fn restore(
        program: &Program,
        scene: SceneId,
        seed: u64,
        snapshot: &SnapshotReader,
        agents: usize,
        roster: &[AgentId],
    ) -> Result<(Interactions, Option<String>), SnapshotError> {
        let saved: SavedInteractions = snapshot.get(INTERACTIONS_SECTION)?;
        if program.checksum() != snapshot.program().checksum {
            let def = &program.scenes[scene.index()];
            let note =
                (!program.smart_locations.is_empty() || !def.ambient.is_empty()).then(|| {
                    "the smart locations start afresh: the program was rebuilt since the snapshot"
                        .to_string()
                });
            return Ok((
                Interactions::with_roster(program, scene, seed, roster),
                note,
            ));
        }
        let interactions = Interactions::from_saved(program, scene, seed, saved, agents, roster)
            .map_err(|message| SnapshotError::BadSection {
                section: INTERACTIONS_SECTION.to_string(),
                message,
            })?;
        Ok((interactions, None))
    }

    /// Its state for a savegame (between ticks: nothing is waiting to be flushed).
    fn to_saved(&self, program: &Program, scene: SceneId) -> SavingInteractions<'_> {
        let total = scene_events(program, scene, -1.0).len();
        SavingInteractions {
            machine_driven: self.machine_agents.len(),
            ambient: &self.ambient,
            places: &self.places,
            player: self.player,
            events_done: total.saturating_sub(self.pending.len()),
            symbols: self.symbols.run_time_names().collect(),
            rng: &self.rng,
            requested: self.requested,
            cancelled: &self.cancelled,
            set_up: self.set_up,
            rule_evaluations: self.rule_evaluations,
        }
    }

    /// The smart locations of `scene` as saved, checked against `program` (the build they were
    /// saved under) and the scene's `agents`.
    fn from_saved(
        program: &Program,
        scene: SceneId,
        seed: u64,
        mut saved: SavedInteractions,
        agents: usize,
        roster: &[AgentId],
    ) -> Result<Interactions, String> {
        let mut fresh = Interactions::with_roster(program, scene, seed, roster);
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
                && a.moving.is_none_or(|l| l.index() < program.locations.len())
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
                && place.actions.iter().all(|a| a.agent.index() < agents)
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
        // The machine agents are the roster's (the saved count is theirs too: the very build).
        if saved.machine_driven != fresh.machine_agents.len() {
            return Err("its machine agents are not the scene's".into());
        }
        Ok(Interactions {
            ambient: saved.ambient,
            places: saved.places,
            player: saved.player,
            rng: saved.rng,
            requested: saved.requested,
            cancelled: saved.cancelled,
            set_up: saved.set_up,
            rule_evaluations: saved.rule_evaluations,
            ..fresh
        })
    }
}
