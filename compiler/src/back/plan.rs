//! Lowering planning problems and world events into the program's planning section
//! (`ensemble_runtime::plan::section`): names interned, machines and scenes by id, the achiever
//! index built once for partial-order planners.

use crate::ir::Module;
use ensemble_runtime::plan::pop::AchieverIndex;
use ensemble_runtime::plan::section::{ActionDef, Planner, Planning, ProblemDef, WorldEventDef};
use ensemble_runtime::program::{MachineId, NameId, SceneId};

pub fn lower(module: &Module, intern: &mut dyn FnMut(&str) -> NameId) -> Planning {
    let problems = module
        .problems
        .iter()
        .map(|(_, p)| ProblemDef {
            name: intern(&p.name.text),
            actions: p
                .machines
                .iter()
                .map(|m| ActionDef {
                    machine: m.map(|m| MachineId(m.index() as u32)),
                })
                .collect(),
            external: p.external.clone(),
            planner: p.planner,
            max_nodes: p.max_nodes,
            graph: p.graph.clone(),
            achievers: matches!(p.planner, Planner::Pop).then(|| AchieverIndex::build(&p.task)),
            task: p.task.clone(),
        })
        .collect();
    let events = module
        .world_events
        .iter()
        .map(|(_, e)| WorldEventDef {
            name: intern(&e.name.text),
            scene: SceneId(e.scene.index() as u32),
            problem: e.problem.index() as u32,
            agent: e.agent,
            after: e.after,
            when: e.when.clone(),
            change: e.change.clone(),
            seen: e.seen,
        })
        .collect();
    Planning { problems, events }
}
