//! Savegames of a simulation: the scene's own section (`Scene::save`), the standard library's
//! (`StandardState::save`: conversations, planning worlds), the smart locations'
//! (`Interactions::save`), and beside them the simulated world's ([`WORLD_SECTION`]: bodies,
//! variables, open moves, lines being said, actions under way, the navigation view) and the
//! simulation's own ([`SIMULATION_SECTION`]).
//!
//! A conversation scene saves its own section instead (`ChatScene::save`, `hpmm.chat`) beside
//! the simulation's.
//!
//! Not carried yet, so refused at save time rather than restored wrongly: an interaction-script
//! action carried across a hot reload while it runs.

use super::{Options, Running, Simulation};
use crate::walk::{SavedMove, SavedNav};
use crate::{Body, NavWorld, RouteAhead, SimWorld, walk};
use ensemble_runtime::hpmm::ChatScene;
use ensemble_runtime::hpmm::chat::CHAT_SECTION;
use ensemble_runtime::hsm::{RestoreReport, Scene};
use ensemble_runtime::interactions::Interactions;
use ensemble_runtime::program::Program;
use ensemble_runtime::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
use ensemble_runtime::stdlib::StandardState;
use ensemble_runtime::world::ActionId;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// The section the simulated world saves into.
pub const WORLD_SECTION: &str = "sim.world";
/// The section naming the scene a simulation runs.
pub const SIMULATION_SECTION: &str = "sim.simulation";

#[derive(Serialize, Deserialize)]
struct SavedSimulation {
    scene: String,
    seed: u64,
}

#[derive(Serialize, Deserialize)]
struct SavedWorld {
    bodies: Vec<[f64; 2]>,
    variables: Vec<BTreeMap<String, String>>,
    nav: Option<SavedNav>,
    walks: Vec<Option<(Vec<[f64; 2]>, usize)>>,
    moves: Vec<Option<SavedMove>>,
    /// Seconds each agent has left saying its line.
    speaking: Vec<f64>,
    /// Actions under way: when each ends and whether it fails (drawn when it started).
    actions: Vec<(ActionId, f64, bool)>,
}

impl SimWorld {
    fn to_saved(&self) -> SavedWorld {
        SavedWorld {
            bodies: self.bodies.iter().map(|b| [b.x, b.y]).collect(),
            variables: self.variables.clone(),
            nav: self.nav.as_ref().map(NavWorld::to_saved),
            walks: self
                .walks
                .iter()
                .map(|w| w.as_ref().map(|w| (w.points.to_vec(), w.next)))
                .collect(),
            moves: self
                .moves
                .iter()
                .map(|m| m.as_ref().map(walk::Move::to_saved))
                .collect(),
            speaking: self.speaking.clone(),
            actions: self
                .actions
                .iter()
                .map(|(id, &(ends_at, fails))| (*id, ends_at, fails))
                .collect(),
        }
    }

    /// Takes back a saved world over the world of the scene as it starts (its failure rate,
    /// an option of the run, stays).
    fn restore_saved(&mut self, program: &Program, saved: SavedWorld) -> Result<(), String> {
        self.bodies = saved.bodies.iter().map(|&[x, y]| Body { x, y }).collect();
        self.variables = saved.variables;
        self.walks = saved
            .walks
            .into_iter()
            .map(|w| {
                w.map(|(points, next)| RouteAhead {
                    points: Arc::from(points),
                    next,
                })
            })
            .collect();
        self.moves = saved
            .moves
            .into_iter()
            .map(|m| m.map(|m| walk::Move::from_saved(m, program)).transpose())
            .collect::<Result<_, _>>()?;
        self.speaking = saved.speaking;
        self.actions = saved
            .actions
            .into_iter()
            .map(|(id, ends_at, fails)| (id, (ends_at, fails)))
            .collect();
        if let (Some(scene), Some(nav)) = (self.scene, &saved.nav) {
            self.nav = NavWorld::from_saved(program, scene, nav);
        }
        Ok(())
    }
}

impl Simulation {
    /// What of this simulation a snapshot cannot carry yet, if anything (then
    /// [`Simulation::save`] refuses).
    pub fn unsaved_parts(&self) -> Option<String> {
        let interactions = match &self.running {
            Running::Chat(_) => return None,
            Running::Machines { interactions, .. } => interactions,
        };
        if interactions.has_carried_actions() {
            return Some(ensemble_runtime::interactions::CARRIED_ACTION.into());
        }
        if !self.acts.is_empty() {
            // Queued for the next tick, not yet done: save after that tick.
            return Some("a player's event queued for the next tick (save after it)".into());
        }
        None
    }

    /// Saves the running scene (between ticks): the scene's section, the standard library's,
    /// the smart locations', the simulated world's and the simulation's own. Refused, with
    /// what it cannot carry, when [`Simulation::unsaved_parts`] names something.
    pub fn save(&self, snapshot: &mut SnapshotWriter) -> Result<(), SnapshotError> {
        if let Some(what) = self.unsaved_parts() {
            return Err(SnapshotError::Unsupported(what));
        }
        let saved = SavedSimulation {
            scene: self.name.clone(),
            seed: self.seed,
        };
        let (scene, interactions) = match &self.running {
            Running::Chat(chat) => {
                chat.save(snapshot);
                snapshot.put(SIMULATION_SECTION, &saved);
                return Ok(());
            }
            Running::Machines {
                scene,
                interactions,
            } => (scene, interactions),
        };
        let program = scene.program();
        let id = program
            .scene_by_name(&self.name)
            .ok_or_else(|| SnapshotError::Unsupported(format!("no scene `{}`", self.name)))?;
        scene.save(snapshot);
        scene.game.standard.save(snapshot);
        interactions.save(program, id, snapshot)?;
        snapshot.put(WORLD_SECTION, &scene.game.to_saved());
        scene.game.draws.save(snapshot);
        snapshot.put(SIMULATION_SECTION, &saved);
        Ok(())
    }

    /// Restores a simulation saved by [`Simulation::save`] onto `program` (the one it was
    /// taken from, or a rebuild: states map by name as in a hot reload, and the report says
    /// what fell back). Its next tick is the one after the save; the transcript starts empty.
    pub fn restore(
        program: Arc<Program>,
        snapshot: &SnapshotReader,
        options: &Options,
    ) -> Result<(Simulation, RestoreReport), SnapshotError> {
        let saved: SavedSimulation = snapshot.get(SIMULATION_SECTION)?;
        if snapshot.has(CHAT_SECTION) {
            let (mut chat, carried) = ChatScene::restore(program, snapshot)?;
            chat.set_tracing(true);
            let report = RestoreReport {
                kept: carried.kept,
                fallbacks: carried.fallbacks,
                roster: Vec::new(),
            };
            let sim = Simulation {
                running: Running::Chat(Box::new(chat)),
                name: saved.scene,
                seed: saved.seed,
                stand_ins: Vec::new(),
                choices: options.stand_ins.clone(),
                events: Vec::new(),
                noted: 0,
                transcript: VecDeque::new(),
                acts: Vec::new(),
                refused: Vec::new(),
            };
            return Ok((sim, report));
        }
        let Some(id) = program.scene_by_name(&saved.scene) else {
            return Err(SnapshotError::Unsupported(format!(
                "the program has no scene `{}` any more",
                saved.scene
            )));
        };
        let world: SavedWorld = snapshot.get(WORLD_SECTION)?;
        // A content test's forced outcomes are options of the run, like the failure rate: a
        // restored run keeps them (the search of `ensemble reach` branches by restoring).
        let mut game = SimWorld::for_scene(&program, id)
            .with_failure_rate(options.fail_rate)
            .with_forced_outcomes(options.setup.outcomes.clone())
            .with_forced_draws(options.setup.draws.clone());
        game.draws.restore(snapshot)?;
        game.restore_saved(&program, world)
            .map_err(|message| SnapshotError::BadSection {
                section: WORLD_SECTION.to_string(),
                message,
            })?;
        // Before the scene: a `Plan` state entered afresh as it is restored plans in it.
        let (standard, planning_note) = StandardState::restore(&program, id, snapshot)?;
        game.standard = standard;
        options
            .setup
            .move_world_events(&program, &mut game)
            .map_err(SnapshotError::Unsupported)?;
        // The trace is what the CLI prints: recorded from the restore on (states entered
        // afresh included).
        // The game's states are stood in as when the scene started (a stand-in saves the
        // time it has left).
        let (library, stand_ins) = crate::stand_in::library_for(&program, &options.stand_ins)
            .map_err(SnapshotError::Unsupported)?;
        let (mut scene, mut report) =
            Scene::restore_traced(program.clone(), library, game, snapshot)?;
        report.fallbacks.extend(planning_note);
        // A patched program's tick rate holds from here on, the scene's time kept.
        report
            .fallbacks
            .extend(scene.set_tick_rate(program.scenes[id.index()].tick_rate));
        let agents = scene.agents().count();
        scene.game.standard.check_agents(agents)?;
        // A patched program's roster: added agents start, removed ones retire, by name.
        report.roster = ensemble_runtime::session::roster::patch(&program, id, &mut scene)?;
        let agents = scene.agents().count();
        let own = scene.roster().unwrap_or_default().to_vec();
        let (interactions, note) =
            Interactions::restore(&program, id, saved.seed, snapshot, agents, &own)?;
        report.fallbacks.extend(note);
        let mut sim = Simulation {
            running: Running::Machines {
                scene: Box::new(scene),
                interactions: Box::new(interactions),
            },
            name: saved.scene,
            seed: saved.seed,
            stand_ins,
            choices: options.stand_ins.clone(),
            events: Vec::new(),
            noted: 0,
            transcript: VecDeque::new(),
            acts: Vec::new(),
            refused: Vec::new(),
        };
        sim.collect();
        Ok((sim, report))
    }
}
