//! Planning agents: the `Plan` library state, each agent's world (what is
//! true and what the agent believes), and the world events a scene scripts.
//!
//! - **The world of an agent.** For every (agent, problem) the world keeps the *truth* — the
//!   problem's facts as they really are — and the agent's *belief*. Both start as the problem's
//!   initial state. The agent's own actions change the truth when they complete (if their
//!   preconditions really hold then; otherwise the action fails); world events change it at any
//!   time.
//! - **Observation.** The agent sees the truth whenever one of its actions ends, and at once
//!   when a world event is `seen`. Between those moments it acts on its belief, which may be
//!   wrong: the traveller walks to a gate that has changed.
//! - **`Plan`** (modifier: the problem's name) runs [`crate::plan::agent::Executive`]: it plans
//!   from the belief (`plan` trace event), runs each action through the machine the action names
//!   as its child (`act`, then `done` or `fail`), replans when that machine fails or the world
//!   is not as expected (`replan`), and raises `PlanSucceeded` when the goal holds or
//!   `PlanFailed` when no plan reaches it.
//! - **Hot reload.** A `Plan` state that survives a reload carries its plan across by action
//!   and fact names; when it cannot, it plans again from the belief and the reload report says
//!   why. [`PlanningWorld::reload`] carries truths and beliefs across by problem and fact names.

use crate::hsm::{AgentId, Scene, StateCode, StateCx};
use crate::plan::OpId;
use crate::plan::agent::{Decision, Executive, Next, Note};
use crate::plan::section::ProblemDef;
use crate::program::{Modifier, Program};
use crate::trace::EventKind;
use crate::world::World;
pub use crate::world::{AgentWorld, PlanningWorld};
use std::sync::Arc;

type Cx<'a, W> = StateCx<'a, W>;

/// Raised by `Plan` when the goal holds.
pub const PLAN_SUCCEEDED: &str = "PlanSucceeded";
/// Raised by `Plan` when no plan reaches the goal any more.
pub const PLAN_FAILED: &str = "PlanFailed";

/// Fires the scene's due world events and records what they change in its trace: what a game
/// (or `ensemble run`) does once per tick, after `Scene::tick`.
pub fn fire_world_events<W: World + 'static>(scene: &mut Scene<W>) {
    let program = scene.program().clone();
    let now = scene.now();
    // An event names its agent by place in the program's scene; the running scene keeps the
    // agents it started with across reloads (added ones appear on restart), so match by name.
    let agents: Vec<Option<AgentId>> = program
        .planning
        .events
        .iter()
        .map(|e| {
            let def = &program.scenes[e.scene.index()].agents[e.agent as usize];
            let name = program.name(def.name);
            scene.agents().find(|&a| scene.agent_name(a) == name)
        })
        .collect();
    let mut out = Vec::new();
    scene
        .game
        .standard_mut()
        .planning
        .tick(&program, now, &agents, &mut out);
    for (agent, kind) in out {
        scene.record_external(agent, kind);
    }
}

/// The `Plan` library state.
pub(super) struct Plan {
    problem: Option<u32>,
    exec: Option<Executive>,
    done: bool,
}

impl Plan {
    pub(super) fn new() -> Self {
        Plan {
            problem: None,
            exec: None,
            done: false,
        }
    }

    /// The problem the state's modifier names.
    fn resolve<W: World>(cx: &mut Cx<'_, W>) -> Option<u32> {
        let program = cx.program;
        let found = match cx.modifier() {
            Modifier::Text(n) => program.planning.problem_by_name(n),
            _ => None,
        };
        if found.is_none() {
            let state = cx.state_name().to_string();
            cx.error(format!(
                "{state}: a Plan state needs the name of a planning problem"
            ));
            cx.raise(PLAN_FAILED);
        }
        found
    }

    fn def(program: &Program, problem: u32) -> &ProblemDef {
        &program.planning.problems[problem as usize]
    }

    fn action_name(program: &Program, problem: u32, op: OpId) -> Arc<str> {
        Arc::from(Self::def(program, problem).task.op(op).name.as_str())
    }

    /// Records the decision's notes and carries out what comes next. Actions that no machine
    /// performs complete at once, so this loops until an action takes time or the plan ends.
    fn follow<W: World>(&mut self, cx: &mut Cx<'_, W>, mut d: Decision) {
        let Some(problem) = self.problem else { return };
        let program = cx.program;
        let def = Self::def(program, problem);
        let me = cx.agent;
        // Bounded by the plan's length: each loop completes one action or stops.
        for _ in 0..=def.task.operators.len() * 4 + 8 {
            let exec = self.exec.as_mut().expect("an executive while planning");
            cx.game
                .standard_mut()
                .planning
                .world(program, me, problem)
                .belief = exec.belief().clone();
            let problem_name = program.shared_name(def.name);
            let names = |v: &[OpId]| -> Vec<Arc<str>> {
                v.iter()
                    .map(|&o| Self::action_name(program, problem, o))
                    .collect()
            };
            for note in d.notes.drain(..) {
                cx.trace(match note {
                    Note::Plan { actions, nodes } => EventKind::Plan {
                        problem: problem_name.clone(),
                        planner: def.planner.name(),
                        actions: names(&actions),
                        nodes,
                    },
                    Note::Replan {
                        actions,
                        reason,
                        nodes,
                    } => EventKind::Replan {
                        problem: problem_name.clone(),
                        actions: names(&actions),
                        reason,
                        nodes,
                    },
                });
            }
            match std::mem::replace(&mut d.next, Next::Continue) {
                Next::Continue => return,
                Next::Succeeded => {
                    self.done = true;
                    cx.raise(PLAN_SUCCEEDED);
                    return;
                }
                Next::Failed(reason) => {
                    self.done = true;
                    if cx.child().is_some() {
                        cx.stop_machine();
                    }
                    cx.trace(EventKind::Replan {
                        problem: problem_name,
                        actions: Vec::new(),
                        reason: format!("no plan: {reason}"),
                        nodes: 0,
                    });
                    cx.raise(PLAN_FAILED);
                    return;
                }
                Next::Perform(op) => {
                    cx.trace(EventKind::Act {
                        action: Self::action_name(program, problem, op),
                        target: None,
                    });
                    match def.actions[op as usize].machine {
                        Some(m) => {
                            cx.start_machine(m);
                            return;
                        }
                        None => d = self.complete(cx, true),
                    }
                }
            }
        }
        cx.error("Plan: too many actions completed in one tick".into());
    }

    /// The current action ended (`machine_ok`: its machine did not fail, or it has none).
    fn complete<W: World>(&mut self, cx: &mut Cx<'_, W>, machine_ok: bool) -> Decision {
        let problem = self.problem.expect("a problem while planning");
        let program = cx.program;
        let def = Self::def(program, problem);
        let exec = self.exec.as_mut().expect("an executive while planning");
        let me = cx.agent;
        let op = exec.current().map(|o| (o, def.task.op(o)));
        // A test's mock decides before the world does: forced success makes the effects
        // happen even where the preconditions do not hold.
        let forced = op.and_then(|(o, _)| {
            let action = Self::action_name(program, problem, o);
            cx.game.planning_outcome(me, &action, cx.rng)
        });
        let world = cx.game.standard_mut().planning.world(program, me, problem);
        let ok = forced.unwrap_or_else(|| {
            machine_ok && op.is_some_and(|(_, o)| o.is_applicable(&world.truth))
        });
        if let Some((o, operator)) = op {
            if ok {
                operator.apply_in_place(&mut world.truth);
            }
            let action = Self::action_name(program, problem, o);
            cx.trace(if ok {
                EventKind::Done {
                    action,
                    target: None,
                }
            } else {
                EventKind::ActionFailed {
                    action,
                    target: None,
                }
            });
        }
        let world = cx.game.standard_mut().planning.world(program, me, problem);
        world.seen.clear(); // seeing the world now covers what was seen before
        let truth = world.truth.clone();
        exec.action_ended(def, ok, &truth)
    }

    /// Reacts to world changes the agent saw happen.
    fn notice<W: World>(&mut self, cx: &mut Cx<'_, W>) {
        let Some(problem) = self.problem else { return };
        let program = cx.program;
        let me = cx.agent;
        let world = cx.game.standard_mut().planning.world(program, me, problem);
        if world.seen.is_empty() {
            return;
        }
        let seen = std::mem::take(&mut world.seen);
        let truth = world.truth.clone();
        let def = Self::def(program, problem);
        for change in seen {
            if self.done {
                return;
            }
            let exec = self.exec.as_mut().expect("an executive while planning");
            let before = exec.current();
            let d = exec.noticed(def, &change, &truth);
            if d.interrupted
                && let Some(o) = before
            {
                cx.stop_machine();
                cx.trace(EventKind::ActionFailed {
                    action: Self::action_name(program, problem, o),
                    target: None,
                });
            }
            self.follow(cx, d);
        }
    }
}

impl<W: World + 'static> StateCode<W> for Plan {
    fn init(&mut self, cx: &mut Cx<'_, W>) {
        let Some(problem) = Self::resolve(cx) else {
            self.done = true;
            return;
        };
        self.problem = Some(problem);
        let program = cx.program;
        let me = cx.agent;
        let world = cx.game.standard_mut().planning.world(program, me, problem);
        if !world.seen.is_empty() {
            // Seen while doing something else: the agent knows.
            world.seen.clear();
            world.belief = world.truth.clone();
        }
        let mut exec = Executive::new(world.belief.clone());
        let d = exec.start(Self::def(program, problem));
        self.exec = Some(exec);
        self.follow(cx, d);
    }

    fn update(&mut self, cx: &mut Cx<'_, W>, _dt: f64) {
        if !self.done {
            self.notice(cx);
        }
    }

    fn on_child_ended(&mut self, cx: &mut Cx<'_, W>, failed: bool) -> bool {
        if self.done || self.exec.is_none() {
            return false;
        }
        let d = self.complete(cx, !failed);
        self.follow(cx, d);
        true
    }

    fn save(&self, program: &Program) -> Vec<u8> {
        self.to_saved(program)
    }
    fn restore(&mut self, program: &Program, data: &[u8]) -> Result<(), String> {
        self.take_saved(program, data)
    }
    fn on_reload(&mut self, cx: &mut Cx<'_, W>, old: &Program) -> Option<String> {
        let (Some(old_problem), Some(exec)) = (self.problem, self.exec.as_mut()) else {
            return None;
        };
        if self.done {
            return None;
        }
        let program = cx.program;
        let old_def = &old.planning.problems[old_problem as usize];
        let state = cx.state_name().to_string();
        let Some(problem) = program
            .name_id(old.name(old_def.name))
            .and_then(|n| program.planning.problem_by_name(n))
        else {
            self.done = true;
            if cx.child().is_some() {
                cx.stop_machine();
            }
            cx.raise(PLAN_FAILED);
            return Some(format!(
                "{state}: problem {} no longer exists; the plan failed",
                old.name(old_def.name)
            ));
        };
        self.problem = Some(problem);
        let def = Self::def(program, problem);
        let old_machine = exec
            .current()
            .and_then(|o| old_def.actions[o as usize].machine)
            .map(|m| old.name(old.machine(m).name).to_string());
        let why = exec.remap(old_def, def).err();
        // The action under way goes on only if it still exists and its machine carried over.
        let running = exec.current();
        let child = cx
            .child()
            .map(|m| program.name(program.machine(m).name).to_string());
        let machine_kept = running.is_some() && child == old_machine;
        let abandoned = old_machine.is_some() && !machine_kept;
        if abandoned {
            if cx.child().is_some() {
                cx.stop_machine();
            }
            exec.reset();
        }
        let why = match (why, abandoned) {
            (None, false) => return None,
            (Some(w), _) => w,
            (None, true) => "the machine of the action under way changed".to_string(),
        };
        let d = exec.replan_after_reload(def, &why);
        if d.interrupted && cx.child().is_some() {
            cx.stop_machine();
        }
        self.follow(cx, d);
        Some(format!("{state}: {why}; planned again"))
    }
}

mod save;

#[cfg(test)]
mod tests;
