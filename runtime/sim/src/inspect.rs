//! A [`Simulation`] as tools attached through the inspection protocol see it
//! (`ensemble_runtime::inspect`): `ensemble run --inspect` serves it.

use crate::Simulation;
use ensemble_runtime::hsm::ReloadReport;
use ensemble_runtime::inspect::protocol::{ActiveState, AgentSnapshot, ScriptFacts, SpaceBelief};
use ensemble_runtime::inspect::{Inspected, check_variable, program_variables};
use ensemble_runtime::program::Program;
use std::sync::Arc;

/// A simulation and its program's name (which a simulation does not keep: `hello` says it).
pub struct InspectedSimulation<'a> {
    pub sim: &'a mut Simulation,
    pub program_name: &'a str,
}

impl Inspected for InspectedSimulation<'_> {
    fn program_name(&self) -> &str {
        self.program_name
    }

    fn program(&self) -> &Program {
        self.sim.program()
    }

    fn scene_name(&self) -> &str {
        self.sim.name()
    }

    fn tick_count(&self) -> u64 {
        self.sim.tick_count()
    }

    fn agent_names(&self) -> Vec<String> {
        self.sim
            .agents()
            .into_iter()
            .map(|a| a.name.to_string())
            .collect()
    }

    fn snapshot(&self) -> Vec<AgentSnapshot> {
        let blackboards = self.sim.blackboards();
        let beliefs: Vec<SpaceBelief> = self
            .sim
            .beliefs()
            .into_iter()
            .map(|b| SpaceBelief {
                space: b.space.to_string(),
                states: b.states.iter().map(|(s, p)| (s.to_string(), *p)).collect(),
            })
            .collect();
        let scene = self.sim.scene();
        self.sim
            .agents()
            .into_iter()
            .map(|a| AgentSnapshot {
                name: a.name.to_string(),
                states: a
                    .states
                    .iter()
                    .map(|s| ActiveState {
                        machine: s.machine.to_string(),
                        state: s.state.to_string(),
                    })
                    .collect(),
                variables: scene
                    .and_then(|s| s.game.variables.get(a.id.index()).cloned())
                    .unwrap_or_default(),
                scripts: blackboards
                    .iter()
                    .flat_map(|b| {
                        b.participants
                            .iter()
                            .filter(|p| p.agent == a.id)
                            .map(|p| ScriptFacts {
                                script: b.script.to_string(),
                                location: b.location.to_string(),
                                role: p.role.to_string(),
                                facts: b.facts(),
                            })
                    })
                    .collect(),
                // Only a conversation's social agent (the one agent) has HMM beliefs.
                beliefs: beliefs.clone(),
                plan: None,
                position: a.at,
            })
            .collect()
    }

    fn reload(&mut self, program: Program) -> Result<ReloadReport, String> {
        self.sim
            .reload(Arc::new(program), "pushed by a tool")
            .map_err(|e| e.to_string())
    }

    fn reject_reload(&mut self, reason: String) {
        self.sim.reject_reload(reason);
    }

    /// Variables are text, as a scene file writes them (`CityName = "Boston"`): none has a type,
    /// so every value is taken as written. A name the game has never heard of is refused rather
    /// than invented: a misspelt name would otherwise be set, silently, and change nothing.
    fn set_variable(&mut self, agent: &str, variable: &str, value: &str) -> Result<(), String> {
        let known = known_variables(self.sim);
        let Some((scene, _)) = self.sim.scene_mut() else {
            return Err("a conversation scene has no agent variables".into());
        };
        let Some(id) = scene.agents().find(|&a| scene.agent_name(a) == agent) else {
            return Err(format!("set: no agent `{agent}` in the scene"));
        };
        check_variable(&known, variable, false)?;
        ensemble_runtime::world::World::set_variable(&mut scene.game, id, variable, value);
        Ok(())
    }
}

/// The variables a game knows, sorted: those its program names and those an agent has now.
fn known_variables(sim: &Simulation) -> Vec<String> {
    let mut known = program_variables(sim.program());
    if let Some(scene) = sim.scene() {
        known.extend(scene.game.variables.iter().flat_map(|v| v.keys().cloned()));
    }
    known.sort();
    known.dedup();
    known
}
