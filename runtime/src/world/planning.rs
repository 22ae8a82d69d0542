//! Planning agents' worlds in a scene — what is true and what each agent believes, per
//! problem — and the world events the scene scripts: part of the per-scene bookkeeping
//! ([`super::StandardState`]) a game keeps in its world. The `Plan` library state
//! (`crate::stdlib`) plans and acts in them; [`PlanningWorld::reload`] carries truths and
//! beliefs across a hot reload by problem and fact names.

use crate::hsm::AgentId;
use crate::plan::agent::remap_state;
use crate::plan::section::{ProblemDef, WorldChange};
use crate::plan::{Operator, State};
use crate::program::{Program, SceneId};
use crate::trace::EventKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// One agent's world on one problem.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentWorld {
    /// What really holds.
    pub truth: State,
    /// What the agent believes holds.
    pub belief: State,
    /// Changes the agent saw happen and has not reacted to yet.
    pub seen: Vec<Operator>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Scheduled {
    /// Index into `Program::planning.events`.
    event: usize,
    fired: bool,
}

/// Every planning agent's world in a scene, and the scene's world events.
#[derive(Clone, Debug, Default)]
pub struct PlanningWorld {
    worlds: BTreeMap<(u32, u32), AgentWorld>,
    events: Vec<Scheduled>,
    /// World events moved by name (a content test's `World` setup): the time they may happen
    /// instead of the scene's, or never (`None`). Not saved: whoever set them sets them again on
    /// restore, as the simulated world does its forced outcomes.
    moved: BTreeMap<String, Option<f64>>,
}

impl PlanningWorld {
    /// The world events of `scene`, none fired yet.
    pub fn for_scene(program: &Program, scene: SceneId) -> Self {
        PlanningWorld {
            worlds: BTreeMap::new(),
            moved: BTreeMap::new(),
            events: program
                .planning
                .events
                .iter()
                .enumerate()
                .filter(|(_, e)| e.scene == scene)
                .map(|(event, _)| Scheduled {
                    event,
                    fired: false,
                })
                .collect(),
        }
    }

    /// Moves world event `name` of the scene to `at` seconds (its conditions must still hold),
    /// or takes it out (`None`); false if the scene has no world event of that name.
    pub fn reschedule(&mut self, program: &Program, name: &str, at: Option<f64>) -> bool {
        let known = self
            .events
            .iter()
            .any(|s| program.name(program.planning.events[s.event].name) == name);
        if known {
            self.moved.insert(name.to_string(), at);
        }
        known
    }

    /// The world of `agent` on problem `problem` (created from the problem's initial state on
    /// first use).
    pub fn world(&mut self, program: &Program, agent: AgentId, problem: u32) -> &mut AgentWorld {
        self.worlds.entry((agent.0, problem)).or_insert_with(|| {
            let init = program.planning.problems[problem as usize]
                .task
                .initial_state();
            AgentWorld {
                truth: init.clone(),
                belief: init,
                seen: Vec::new(),
            }
        })
    }

    /// Fires every world event whose time has come and whose conditions hold; reports each
    /// fact it changes (`add`/`del` trace events) into `out`. `agents` has, per world event of
    /// `program`, the running agent it happens to (`None`: nobody in this run has that name —
    /// an agent a reload added, who appears on restart).
    pub fn tick(
        &mut self,
        program: &Program,
        now: f64,
        agents: &[Option<AgentId>],
        out: &mut Vec<(Option<AgentId>, EventKind)>,
    ) {
        for i in 0..self.events.len() {
            if self.events[i].fired {
                continue;
            }
            let def = &program.planning.events[self.events[i].event];
            let after = match self.moved.get(program.name(def.name)) {
                Some(Some(at)) => *at,
                Some(None) => continue,
                None => def.after,
            };
            if after > now {
                continue;
            }
            let Some(agent) = agents.get(self.events[i].event).copied().flatten() else {
                continue;
            };
            let problem = &program.planning.problems[def.problem as usize];
            let world = self.world(program, agent, def.problem);
            if !def.when.iter().all(|l| l.holds(&world.truth)) {
                continue;
            }
            let op = def.operator(problem);
            let before = world.truth.clone();
            op.apply_in_place(&mut world.truth);
            let name = program.shared_name(def.name);
            for f in world.truth.facts().filter(|&f| !before.contains(f)) {
                out.push((Some(agent), fact_event(&name, problem, f, true)));
            }
            for f in before.facts().filter(|&f| !world.truth.contains(f)) {
                out.push((Some(agent), fact_event(&name, problem, f, false)));
            }
            if def.seen {
                let mut seen = op.clone();
                if let WorldChange::Set(_) = def.change {
                    seen.name = program.name(def.name).to_string();
                }
                world.seen.push(seen);
            }
            self.events[i].fired = true;
        }
    }

    /// Carries every world across to a new program by problem name and fact names; events
    /// that already happened stay happened (by scene and event name). `scene` is the running
    /// scene in `new`; `None` when it no longer exists there, and then it has no world events.
    pub fn reload(&mut self, old: &Program, new: &Program, scene: Option<SceneId>) {
        let fired: Vec<(String, String)> = self
            .events
            .iter()
            .filter(|s| s.fired)
            .map(|s| {
                let e = &old.planning.events[s.event];
                (
                    old.name(old.scenes[e.scene.index()].name).to_string(),
                    old.name(e.name).to_string(),
                )
            })
            .collect();
        let mut worlds = BTreeMap::new();
        for (&(agent, p), w) in &self.worlds {
            let op = &old.planning.problems[p as usize];
            let Some(np) = new
                .name_id(old.name(op.name))
                .and_then(|n| new.planning.problem_by_name(n))
            else {
                continue;
            };
            let nt = &new.planning.problems[np as usize].task;
            worlds.insert(
                (agent, np),
                AgentWorld {
                    truth: remap_state(&op.task, nt, &w.truth),
                    belief: remap_state(&op.task, nt, &w.belief),
                    // What was seen but not reacted to is already in the truth.
                    seen: Vec::new(),
                },
            );
        }
        self.worlds = worlds;
        let mut events = match scene {
            Some(scene) => PlanningWorld::for_scene(new, scene).events,
            None => Vec::new(),
        };
        for s in &mut events {
            let e = &new.planning.events[s.event];
            let key = (
                new.name(new.scenes[e.scene.index()].name).to_string(),
                new.name(e.name).to_string(),
            );
            s.fired = fired.contains(&key);
        }
        self.events = events;
    }
}

fn fact_event(world: &Arc<str>, problem: &ProblemDef, f: u32, added: bool) -> EventKind {
    EventKind::WorldFact {
        world: world.clone(),
        fact: Arc::from(problem.task.facts[f as usize].as_str()),
        added,
    }
}

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
