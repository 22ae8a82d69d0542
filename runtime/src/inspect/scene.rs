//! A scene of machine agents in any game's world as tools see it: what a game that runs a
//! [`Scene`] and its smart locations ([`Interactions`]) hands to [`Inspector::frame`]
//! (the C ABI's host scenes and the Bevy plugin do).
//!
//! [`Inspector::frame`]: super::Inspector::frame

use super::Inspected;
use super::protocol::{ActiveState, AgentSnapshot, ScriptFacts};
use crate::hsm::{AgentId, ReloadReport, Scene};
use crate::interactions::Interactions;
use crate::program::{Modifier, Program};
use crate::speech::transaction;
use crate::stdlib;
use crate::world::World;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A running scene, its smart locations and the names `hello` says.
pub struct InspectedScene<'a, W: World + 'static> {
    /// The program's name (a scene does not keep it).
    pub program_name: &'a str,
    /// The scene's name.
    pub scene_name: &'a str,
    /// The scene.
    pub scene: &'a mut Scene<W>,
    /// Its smart locations.
    pub interactions: &'a mut Interactions,
}

impl<W: World + 'static> Inspected for InspectedScene<'_, W> {
    fn program_name(&self) -> &str {
        self.program_name
    }

    fn program(&self) -> &Program {
        self.scene.program()
    }

    fn scene_name(&self) -> &str {
        self.scene_name
    }

    fn tick_count(&self) -> u64 {
        self.scene.tick_count()
    }

    fn agent_names(&self) -> Vec<String> {
        let scene = &*self.scene;
        scene
            .agents()
            .map(|a| scene.agent_name(a).to_string())
            .collect()
    }

    fn snapshot(&self) -> Vec<AgentSnapshot> {
        let scene = &*self.scene;
        let program = scene.program();
        let known = program_variables(program);
        let scripts = script_facts(program, self.interactions);
        scene
            .agents()
            .map(|a| AgentSnapshot {
                name: scene.agent_name(a).to_string(),
                states: scene
                    .active_states(a)
                    .into_iter()
                    .map(|s| {
                        let def = program.state(s);
                        ActiveState {
                            machine: program.name(program.machine(def.machine).name).to_string(),
                            state: program.name(def.name).to_string(),
                        }
                    })
                    .collect(),
                // A world answers variables by name only: those the program names.
                variables: known
                    .iter()
                    .filter_map(|name| {
                        let value = scene.game.variable(a, name)?;
                        Some((name.clone(), value.to_string()))
                    })
                    .collect::<BTreeMap<_, _>>(),
                scripts: scripts
                    .iter()
                    .filter(|(agent, _)| *agent == a)
                    .map(|(_, facts)| facts.clone())
                    .collect(),
                beliefs: Vec::new(),
                plan: None,
                position: scene.game.position(a),
            })
            .collect()
    }

    fn reload(&mut self, program: Program) -> Result<ReloadReport, String> {
        self.interactions
            .reload(self.scene, Arc::new(program), "pushed by a tool")
            .map_err(|e| e.to_string())
    }

    fn reject_reload(&mut self, reason: String) {
        self.scene.reject_reload(reason);
    }

    /// As the simulated world's: a variable the program never names and the agent does not
    /// have is refused (a misspelt name would otherwise be set, silently, and change nothing).
    fn set_variable(&mut self, agent: &str, variable: &str, value: &str) -> Result<(), String> {
        let scene = &mut *self.scene;
        let id = find_agent(scene, agent)?;
        let has = scene.game.variable(id, variable).is_some();
        check_variable(&program_variables(scene.program()), variable, has)?;
        scene.game.set_variable(id, variable, value);
        Ok(())
    }
}

/// The agent named `agent` in `scene`; `Err` says there is none.
fn find_agent<W: 'static>(scene: &Scene<W>, agent: &str) -> Result<AgentId, String> {
    scene
        .agents()
        .find(|&a| scene.agent_name(a) == agent)
        .ok_or_else(|| format!("set: no agent `{agent}` in the scene"))
}

/// Whether a tool may set `variable`: it has a name, and the game knows it (`known`, or the
/// agent has it now: `has`). `Err` says why not, listing what the game knows.
pub fn check_variable(known: &[String], variable: &str, has: bool) -> Result<(), String> {
    if variable.trim().is_empty() {
        return Err("set: the variable has no name".into());
    }
    if has || known.iter().any(|k| k == variable) {
        return Ok(());
    }
    let list = if known.is_empty() {
        "it knows none".to_string()
    } else {
        format!("it knows {}", known.join(", "))
    };
    Err(format!(
        "set: `{variable}` is not a variable of this game ({list})"
    ))
}

/// The variables `program` names, sorted: those its scenes bind, those its sentence states
/// fill a slot from, and those its `Set`, `Transaction` and `Has` states name.
pub fn program_variables(program: &Program) -> Vec<String> {
    let speech = &program.speech;
    let mut known: Vec<String> = speech
        .bindings
        .iter()
        .map(|b| b.variable)
        .chain(
            speech
                .sentences
                .iter()
                .flat_map(|s| s.slots.iter().copied()),
        )
        .map(|n| program.name(n).to_string())
        .collect();
    for state in &program.states {
        let Modifier::Text(text) = state.modifier else {
            continue;
        };
        let text = program.name(text);
        let named = match program.name(program.library[state.code.index()].name) {
            stdlib::SET => text.split_once('=').map(|(name, _)| name.trim()),
            stdlib::TRANSACTION => transaction::parse(text).ok().map(|t| t.variable),
            stdlib::HAS => Some(text.trim()),
            _ => None,
        };
        known.extend(named.filter(|n| !n.is_empty()).map(str::to_string));
    }
    known.sort();
    known.dedup();
    known
}

/// Every participant of a running script instance and the instance's facts, as a snapshot
/// shows them.
fn script_facts(program: &Program, interactions: &Interactions) -> Vec<(AgentId, ScriptFacts)> {
    let mut all = Vec::new();
    for (location, _, instance) in interactions.instances() {
        let def = &program.scripts[instance.script as usize];
        let mut facts: Vec<String> = instance
            .space
            .all()
            .iter()
            .map(|f| interactions.spell_fact(program, f))
            .collect();
        facts.sort();
        for (actor, role, _) in instance.states() {
            all.push((
                AgentId(actor),
                ScriptFacts {
                    script: program.name(def.name).to_string(),
                    location: program
                        .name(program.smart_locations[location].name)
                        .to_string(),
                    role: program.name(def.roles[role as usize].name).to_string(),
                    facts: facts.clone(),
                },
            ));
        }
    }
    all
}
