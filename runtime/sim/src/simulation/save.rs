//! Savegames of a simulation: a game's session's sections (`Session::save_into`: the scene,
//! the standard library's state, the smart locations, the session's identity), restored by
//! `Session::restore_with` as a game's are, and beside them the simulated world's
//! ([`WORLD_SECTION`]: bodies,
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
use ensemble_runtime::hsm::RestoreReport;
use ensemble_runtime::program::Program;
use ensemble_runtime::session::{Session, SessionError};
use ensemble_runtime::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
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
        let session = match &self.running {
            Running::Chat(_) => return None,
            Running::Machines(session) => session,
        };
        if let Some(why) = session.unsaved_parts() {
            return Some(why);
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
        let session = match &self.running {
            Running::Chat(chat) => {
                chat.save(snapshot);
                snapshot.put(SIMULATION_SECTION, &saved);
                return Ok(());
            }
            Running::Machines(session) => session,
        };
        // The session's sections, and the simulated world's beside them.
        let world = |world: &SimWorld, snapshot: &mut SnapshotWriter| {
            snapshot.put(WORLD_SECTION, &world.to_saved());
            world.draws.save(snapshot);
            snapshot.put(SIMULATION_SECTION, &saved);
        };
        session
            .save_into(snapshot, world)
            .map_err(|e| SnapshotError::Unsupported(e.to_string()))
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
        let saved_world: SavedWorld = snapshot.get(WORLD_SECTION)?;
        // The game's states are stood in as when the scene started (a stand-in saves the
        // time it has left).
        let (library, stand_ins) = crate::stand_in::library_for(&program, &options.stand_ins)
            .map_err(SnapshotError::Unsupported)?;
        // The simulated world's own sections, read as the session asks for the world; their
        // errors kept as they are.
        let mut unreadable = None;
        let world = |snapshot: &SnapshotReader| {
            // A content test's forced outcomes are options of the run, like the failure rate:
            // a restored run keeps them (the search of `ensemble reach` branches by restoring).
            let mut game = SimWorld::of_scene(&program, id)
                .with_failure_rate(options.fail_rate)
                .with_forced_outcomes(options.setup.outcomes.clone())
                .with_forced_draws(options.setup.draws.clone());
            let restored = game.draws.restore(snapshot).and_then(|()| {
                game.restore_saved(&program, saved_world)
                    .map_err(|message| SnapshotError::BadSection {
                        section: WORLD_SECTION.to_string(),
                        message,
                    })
            });
            match restored {
                Ok(()) => Ok(game),
                Err(e) => {
                    let message = e.to_string();
                    unreadable = Some(e);
                    Err(message)
                }
            }
        };
        // A test's world events move again once the standard library's state is back.
        let prepare = |game: &mut SimWorld| options.setup.move_world_events(&program, game);
        // A savegame of a simulation from before sessions saved their identity has the
        // simulation's own, the same scene and seed.
        let restored = if snapshot.has(ensemble_runtime::session::SESSION_SECTION) {
            Session::restore_with(program.clone(), library, snapshot, world, prepare)
        } else {
            let identity = (saved.scene.clone(), saved.seed);
            Session::restore_as(program.clone(), library, snapshot, identity, world, prepare)
        };
        let (session, report) = restored.map_err(|e| match e {
            SessionError::Restore(e) => e,
            SessionError::World(_) if unreadable.is_some() => unreadable.take().unwrap(),
            other => SnapshotError::Unsupported(other.to_string()),
        })?;
        let mut sim = Simulation {
            running: Running::Machines(Box::new(session)),
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
