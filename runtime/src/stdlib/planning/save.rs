//! Planning's part of a savegame: the planning agents' worlds and the scene's world events
//! (section `stdlib.planning`, restored onto the very build it was taken from), and each `Plan`
//! state's own data — its problem by name with a fingerprint, what the agent believes and the
//! linear plan it follows. A `Plan` state restored onto a program whose problem changed is
//! entered afresh (it plans again), and the restore report says so. Linear and partial-order
//! (D-POP) plans are both carried.

use super::Plan;
use crate::plan::agent::{Executive, SavedExecutive};
use crate::plan::section::ProblemDef;
use crate::program::Program;
use crate::snapshot::{decode, encode};
use serde::{Deserialize, Serialize};

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
