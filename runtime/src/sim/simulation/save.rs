//! Savegames of a simulation: the scene's own section (`crate::hsm::Scene::save`), and the
//! simulated world's ([`WORLD_SECTION`]), the smart locations' ([`INTERACTIONS_SECTION`]) and
//! the simulation's ([`SIMULATION_SECTION`]) beside it.
//!
//! Not carried yet, so refused at save time rather than restored wrongly: a partial-order plan
//! (D-POP) being followed, conversation scenes, and an interaction-script action carried across
//! a hot reload while it runs. The planning agents' worlds are a section of their own
//! ([`PLANNING_SECTION`]); each `Plan` state saves its plan as its state data.

use super::{Options, Running, Simulation};
use crate::hsm::{AgentId, RestoreReport, Scene};
use crate::program::Program;
use crate::sim::interactions::{Interactions, SavedInteractions};
use crate::sim::planning::{PlanningWorld, SavedPlanningWorld};
use crate::sim::walk::SavedNav;
use crate::sim::{Body, SimWorld, library};
use crate::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;

/// The section the simulated world saves into.
pub const WORLD_SECTION: &str = "sim.world";
/// The section of the smart locations (`Interactions`): restored onto the very build it was
/// taken from; a rebuilt program starts them afresh (reported).
pub const INTERACTIONS_SECTION: &str = "sim.interactions";
/// The section of the planning agents' worlds and the scene's world events: restored onto the
/// very build it was taken from; a rebuilt program starts them afresh (reported).
pub const PLANNING_SECTION: &str = "sim.planning";
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
    partners: Vec<Option<u32>>,
    variables: Vec<BTreeMap<String, String>>,
    talking: Vec<bool>,
    nav: Option<SavedNav>,
    walks: Vec<Option<(Vec<[f64; 2]>, usize)>>,
}

impl SimWorld {
    fn to_saved(&self) -> SavedWorld {
        SavedWorld {
            bodies: self.bodies.iter().map(|b| [b.x, b.y]).collect(),
            partners: self.partners.iter().map(|p| p.map(|a| a.0)).collect(),
            variables: self.variables.clone(),
            talking: self.talking.clone(),
            nav: self.nav.as_ref().map(|n| n.to_saved()),
            walks: self
                .walks
                .iter()
                .map(|w| w.as_ref().map(|w| (w.points.to_vec(), w.next)))
                .collect(),
        }
    }

    /// Takes back a saved world over the world of the scene as it starts.
    fn restore_saved(&mut self, program: &Program, saved: SavedWorld) {
        self.bodies = saved.bodies.iter().map(|&[x, y]| Body { x, y }).collect();
        self.partners = saved.partners.iter().map(|p| p.map(AgentId)).collect();
        self.variables = saved.variables;
        self.talking = saved.talking;
        self.walks = saved
            .walks
            .into_iter()
            .map(|w| {
                w.map(|(points, next)| crate::sim::RouteAhead {
                    points: Arc::from(points),
                    next,
                })
            })
            .collect();
        if let (Some(scene), Some(nav)) = (self.scene, &saved.nav) {
            self.nav = crate::sim::NavWorld::from_saved(program, scene, nav);
        }
    }
}

impl Simulation {
    /// What of this simulation a snapshot cannot carry yet, if anything (then
    /// [`Simulation::save`] refuses).
    pub fn unsaved_parts(&self) -> Option<String> {
        let (scene, interactions) = match &self.running {
            Running::Chat(_) => {
                return Some("conversation scenes (HMM spaces) cannot be saved yet".into());
            }
            Running::Machines {
                scene,
                interactions,
            } => (scene, interactions),
        };
        if interactions.has_carried_actions() {
            return Some(
                "a script action carried across a hot reload is still running (save once it has ended)".into(),
            );
        }
        // A `Plan` state whose problem is planned partial-order (D-POP).
        let program = scene.program();
        let partial_order = scene.agents().any(|a| {
            scene.active_states(a).iter().any(|&s| {
                let def = program.state(s);
                let code = program.name(program.library[def.code.index()].name);
                let problem = match def.modifier {
                    crate::program::Modifier::Text(n) => program.planning.problem_by_name(n),
                    _ => None,
                };
                code == "Plan"
                    && problem.is_some_and(|p| {
                        program.planning.problems[p as usize].planner
                            == crate::plan::section::Planner::Pop
                    })
            })
        });
        if partial_order {
            return Some("planning with partial-order plans (D-POP) cannot be saved yet".into());
        }
        None
    }

    /// Saves the running scene (between ticks): the scene's section, the simulated world's
    /// and the simulation's own. Refused, with what it cannot carry, when
    /// [`Simulation::unsaved_parts`] names something.
    pub fn save(&self, snapshot: &mut SnapshotWriter) -> Result<(), SnapshotError> {
        if let Some(what) = self.unsaved_parts() {
            return Err(SnapshotError::Unsupported(what));
        }
        let Running::Machines {
            scene,
            interactions,
        } = &self.running
        else {
            unreachable!("unsaved_parts refuses conversations");
        };
        let program = scene.program();
        let id = program
            .scene_by_name(&self.name)
            .ok_or_else(|| SnapshotError::Unsupported(format!("no scene `{}`", self.name)))?;
        scene.save(snapshot);
        snapshot.put(WORLD_SECTION, &scene.game.to_saved());
        snapshot.put(INTERACTIONS_SECTION, &interactions.to_saved(program, id));
        snapshot.put(PLANNING_SECTION, &scene.game.planning.to_saved());
        snapshot.put(
            SIMULATION_SECTION,
            &SavedSimulation {
                scene: self.name.clone(),
                seed: self.seed,
            },
        );
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
        let Some(id) = program.scene_by_name(&saved.scene) else {
            return Err(SnapshotError::Unsupported(format!(
                "the program has no scene `{}` any more",
                saved.scene
            )));
        };
        let world: SavedWorld = snapshot.get(WORLD_SECTION)?;
        let planning: SavedPlanningWorld = snapshot.get(PLANNING_SECTION)?;
        let same_build = program.checksum() == snapshot.program().checksum;
        let mut game = SimWorld::for_scene(&program, id);
        game.restore_saved(&program, world);
        let mut notes = Vec::new();
        if same_build {
            game.planning = PlanningWorld::from_saved(&program, planning).map_err(|message| {
                SnapshotError::BadSection {
                    section: PLANNING_SECTION.to_string(),
                    message,
                }
            })?;
        } else if !program.planning.problems.is_empty() {
            notes.push(
                "the planning agents' worlds start afresh: the program was rebuilt since the snapshot"
                    .to_string(),
            );
        }
        let (scene, mut report) = Scene::restore(program.clone(), library(), game, snapshot)?;
        report.fallbacks.extend(notes);
        let agents = scene.agents().count();
        if let Some(p) = scene
            .game
            .partners
            .iter()
            .flatten()
            .find(|p| p.index() >= agents)
        {
            return Err(SnapshotError::Invalid(format!(
                "the world pairs an agent with agent #{}, of {agents}",
                p.0
            )));
        }
        let saved_interactions: SavedInteractions = snapshot.get(INTERACTIONS_SECTION)?;
        let interactions = if same_build {
            Interactions::from_saved(&program, id, saved.seed, saved_interactions, agents).map_err(
                |e| SnapshotError::BadSection {
                    section: INTERACTIONS_SECTION.to_string(),
                    message: e,
                },
            )?
        } else {
            let def = &program.scenes[id.index()];
            if !program.smart_locations.is_empty() || !def.ambient.is_empty() {
                report.fallbacks.push(
                    "the smart locations start afresh: the program was rebuilt since the snapshot"
                        .into(),
                );
            }
            Interactions::new(&program, id, saved.seed).with_failure_rate(options.fail_rate)
        };
        let mut sim = Simulation {
            running: Running::Machines {
                scene: Box::new(scene),
                interactions: Box::new(interactions),
            },
            name: saved.scene,
            seed: saved.seed,
            events: Vec::new(),
            noted: 0,
            transcript: VecDeque::new(),
        };
        sim.collect();
        Ok((sim, report))
    }
}
