//! Planning's part of a savegame: the planning agents' worlds and the scene's world events
//! (section `stdlib.planning`, restored onto the very build it was taken from), and each `Plan`
//! state's own data — its problem by name with a fingerprint, what the agent believes and the
//! linear plan it follows. A `Plan` state restored onto a program whose problem changed is
//! entered afresh (it plans again), and the restore report says so. Linear and partial-order
//! (D-POP) plans are both carried.

use super::{AgentWorld, Plan, PlanningWorld, Scheduled};
use crate::plan::agent::{Executive, SavedExecutive};
use crate::plan::section::ProblemDef;
use crate::program::Program;
use crate::snapshot::{decode, encode};
use serde::{Deserialize, Serialize};

/// What [`PlanningWorld::to_saved`] writes: the layout of [`SavedPlanningWorld`], borrowed.
#[derive(Serialize)]
pub(crate) struct SavingPlanningWorld<'a> {
    worlds: Vec<((u32, u32), &'a AgentWorld)>,
    events: &'a [Scheduled],
}

#[derive(Deserialize)]
pub(crate) struct SavedPlanningWorld {
    worlds: Vec<((u32, u32), AgentWorld)>,
    events: Vec<Scheduled>,
}

impl PlanningWorld {
    pub(crate) fn to_saved(&self) -> SavingPlanningWorld<'_> {
        SavingPlanningWorld {
            worlds: self.worlds.iter().map(|(k, w)| (*k, w)).collect(),
            events: &self.events,
        }
    }

    /// The planning worlds as saved, checked against `program` (the build they were saved
    /// under): every problem and world event in range, every state and change over its
    /// problem's facts.
    pub(crate) fn from_saved(
        program: &Program,
        saved: SavedPlanningWorld,
    ) -> Result<PlanningWorld, String> {
        let problems = &program.planning.problems;
        for ((_, problem), w) in &saved.worlds {
            let Some(def) = problems.get(*problem as usize) else {
                return Err(format!("planning problem #{problem} does not exist"));
            };
            let n = def.task.facts.len();
            let fact = |f: &u32| (*f as usize) < n;
            let changes_ok = w.seen.iter().all(|o| {
                o.pre.iter().all(fact)
                    && o.pre_neg.iter().all(fact)
                    && o.add.iter().all(fact)
                    && o.del.iter().all(fact)
            });
            if !(w.truth.fits(n) && w.belief.fits(n) && changes_ok) {
                return Err(format!(
                    "a world of problem {} does not fit its facts",
                    program.name(def.name)
                ));
            }
        }
        if let Some(e) = saved
            .events
            .iter()
            .find(|e| e.event >= program.planning.events.len())
        {
            return Err(format!("world event #{} does not exist", e.event));
        }
        Ok(PlanningWorld {
            worlds: saved.worlds.into_iter().collect(),
            events: saved.events,
            moved: Default::default(),
        })
    }
}

/// A `Plan` state's data.
#[derive(Serialize, Deserialize)]
struct SavedPlan {
    /// The problem by name, and its fingerprint when saved.
    problem: Option<(String, u32)>,
    exec: Option<SavedExecutive>,
    done: bool,
}

/// Changes whenever anything of the problem does (its task, its actions' machines, its planner).
fn fingerprint(def: &ProblemDef) -> u32 {
    crc32fast::hash(&encode(def))
}

impl Plan {
    pub(super) fn to_saved(&self, program: &Program) -> Vec<u8> {
        let problem = self.problem.map(|p| {
            let def = &program.planning.problems[p as usize];
            (program.name(def.name).to_string(), fingerprint(def))
        });
        let exec = self.exec.as_ref().map(Executive::to_saved);
        encode(&SavedPlan {
            problem,
            exec,
            done: self.done,
        })
    }

    pub(super) fn take_saved(&mut self, program: &Program, data: &[u8]) -> Result<(), String> {
        let saved: SavedPlan = decode(data)?;
        let problem = match &saved.problem {
            None => None,
            Some((name, print)) => {
                let id = program
                    .name_id(name)
                    .and_then(|n| program.planning.problem_by_name(n))
                    .ok_or_else(|| format!("planning problem `{name}` no longer exists"))?;
                if fingerprint(&program.planning.problems[id as usize]) != *print {
                    return Err(format!("planning problem `{name}` changed since the save"));
                }
                Some(id)
            }
        };
        let exec = match (problem, saved.exec) {
            (Some(p), Some(e)) => Some(Executive::from_saved(
                e,
                &program.planning.problems[p as usize].task,
            )?),
            (None, Some(_)) => return Err("a plan without a problem".into()),
            (_, None) => None,
        };
        self.problem = problem;
        self.exec = exec;
        self.done = saved.done;
        Ok(())
    }
}
