//! `ensemble check PROJECT --against SHIPPED.ensb`: what a savegame made on the shipped program
//! would lose under the program the project builds now, each change with what a restore does. A restore maps a savegame by name
//! (scenes, agents, machines and their states, spaces and their states, situational variables,
//! scripts and their roles and states, planning problems and their steps); whatever the
//! shipped program names that the new one does not is a loss, listed here before a patch
//! ships. Additions lose nothing and are not listed.

use ensemble_runtime::Program;
use ensemble_runtime::hpmm::model::Space;
use ensemble_runtime::program::MachineDef;
use std::collections::BTreeSet;

/// One thing a savegame would lose: what it is, and what a restore does about it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Loss {
    pub what: String,
    pub then: &'static str,
}

/// Names of `items` in `program`.
fn names<'a, T>(
    program: &'a Program,
    items: impl IntoIterator<Item = &'a T>,
    name: impl Fn(&T) -> ensemble_runtime::program::NameId,
) -> BTreeSet<&'a str>
where
    T: 'a,
{
    items.into_iter().map(|i| program.name(name(i))).collect()
}

fn machine_states<'a>(p: &'a Program, m: &MachineDef) -> BTreeSet<&'a str> {
    let range = m.first_state as usize..(m.first_state + m.state_count) as usize;
    names(p, &p.states[range], |s| s.name)
}

fn space_states<'a>(p: &'a Program, s: &Space) -> BTreeSet<&'a str> {
    names(p, &p.hpmm.states[s.states()], |x| x.name)
}

/// What a savegame made on the shipped program meets under the new one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Patch {
    /// Everything `shipped` names that `new` does not and no migration carries, in a fixed order.
    pub losses: Vec<Loss>,
    /// Changes a restore carries a savegame through: renames the project's migrations declare,
    /// agents added to a scene.
    pub carried: Vec<Loss>,
}

/// What a savegame made on `shipped` would lose under `new`, and what it is carried through.
pub fn losses(shipped: &Program, new: &Program) -> Patch {
    let mut patch = Patch::default();
    let mut carried_out = Vec::new();
    let mut carried = |what: String, then: &'static str| carried_out.push(Loss { what, then });
    let out = &mut patch.losses;
    let mut lost = |what: String, then: &'static str| out.push(Loss { what, then });

    for scene in &shipped.scenes {
        let name = shipped.name(scene.name);
        let Some(now) = new.scenes.iter().find(|s| new.name(s.name) == name) else {
            lost(
                format!("scene `{name}` removed"),
                "its savegames do not restore",
            );
            continue;
        };
        // A restore matches the scene's agents by name (through the migrations): an added one
        // starts, a removed one is retired, a reordered list changes nothing.
        let listed = |p: &'_ Program, s: &ensemble_runtime::program::SceneDef| -> Vec<String> {
            (s.agents.iter().map(|a| p.name(a.name).to_string()))
                .chain(s.ambient.iter().map(|a| p.name(a.name).to_string()))
                .collect()
        };
        let (before, after) = (listed(shipped, scene), listed(new, now));
        for agent in &before {
            let renamed = new.migrations.agent(agent);
            if after.iter().any(|a| a == renamed) {
                if renamed != agent {
                    carried(
                        format!("agent `{agent}` of scene `{name}` renamed `{renamed}`"),
                        "carried on by the project's migration",
                    );
                }
                continue;
            }
            lost(
                format!("agent `{agent}` removed from scene `{name}`"),
                "retired on restore: its states are left and it stops (despawn it in the game)",
            );
        }
        for agent in &after {
            let migrated_from = before.iter().any(|b| new.migrations.agent(b) == agent);
            if !migrated_from {
                carried(
                    format!("agent `{agent}` added to scene `{name}`"),
                    "started on restore, as the scene starts it",
                );
            }
        }
    }
    for machine in &shipped.machines {
        let name = shipped.name(machine.name);
        let Some(now) = new.machines.iter().find(|m| new.name(m.name) == name) else {
            lost(
                format!("machine `{name}` removed"),
                "an agent running it starts afresh",
            );
            continue;
        };
        let states_now = machine_states(new, now);
        for state in machine_states(shipped, machine).difference(&states_now) {
            if let Some((m, s)) = new.migrations.state(name, state) {
                let exists = (new.machines.iter().find(|x| new.name(x.name) == m))
                    .is_some_and(|x| machine_states(new, x).contains(s));
                if exists {
                    carried(
                        format!("state `{name}/{state}` renamed `{m}/{s}`"),
                        "carried on by the project's migration",
                    );
                    continue;
                }
            }
            lost(
                format!("state `{name}/{state}` removed"),
                "an agent in it starts its machine again",
            );
        }
    }
    let (hs, hn) = (&shipped.hpmm, &new.hpmm);
    for space in &hs.spaces {
        let name = shipped.name(space.name);
        let Some(now) = hn.spaces.iter().find(|s| new.name(s.name) == name) else {
            lost(format!("space `{name}` removed"), "it starts afresh");
            continue;
        };
        let states_now = space_states(new, now);
        for state in space_states(shipped, space).difference(&states_now) {
            lost(
                format!("space state `{name}/{state}` removed"),
                "its belief is dropped and the rest renormalised",
            );
        }
    }
    let variables_now = names(new, &hn.variables, |v| v.name);
    for variable in names(shipped, &hs.variables, |v| v.name).difference(&variables_now) {
        lost(
            format!("variable `{variable}` removed"),
            "its binding is dropped",
        );
    }
    // The smart locations and the planning agents are carried onto the very build only
    // (docs/formats/snapshot.md): any rebuild restarts them, whatever it renamed.
    let rebuilt = shipped != new;
    if rebuilt && !shipped.smart_locations.is_empty() {
        lost(
            "rebuilt, with smart locations".to_string(),
            "they start afresh (carried onto the very build only)",
        );
    }
    if rebuilt && !shipped.planning.problems.is_empty() {
        lost(
            "rebuilt, with planning agents".to_string(),
            "planning agents plan again (carried onto the very build only)",
        );
    }
    for script in &shipped.scripts {
        let name = shipped.name(script.name);
        let Some(now) = new.scripts.iter().find(|s| new.name(s.name) == name) else {
            lost(
                format!("script `{name}` removed"),
                "its running instances start afresh",
            );
            continue;
        };
        let roles_now = names(new, &now.roles, |r| r.name);
        for role in names(shipped, &script.roles, |r| r.name).difference(&roles_now) {
            lost(
                format!("role `{name}/{role}` removed"),
                "the smart locations start afresh",
            );
        }
        let states_now = names(new, &now.states, |s| s.name);
        for state in names(shipped, &script.states, |s| s.name).difference(&states_now) {
            lost(
                format!("script state `{name}/{state}` removed"),
                "the smart locations start afresh",
            );
        }
    }
    for problem in &shipped.planning.problems {
        let name = shipped.name(problem.name);
        let Some(now) = (new.planning.problems.iter()).find(|p| new.name(p.name) == name) else {
            lost(
                format!("planning problem `{name}` removed"),
                "its agents plan again",
            );
            continue;
        };
        let steps_now: BTreeSet<&str> =
            now.task.operators.iter().map(|o| o.name.as_str()).collect();
        let steps: BTreeSet<&str> = (problem.task.operators.iter())
            .map(|o| o.name.as_str())
            .collect();
        for step in steps.difference(&steps_now) {
            lost(
                format!("plan step `{step}` of `{name}` removed"),
                "a plan holding it is dropped and the agent plans again",
            );
        }
    }
    patch.carried = carried_out;
    patch
}
