//! A savegame's agents onto a patched program's roster: the scene's own agents are matched by
//! name (through the project's agent migrations), an agent the program added starts as the
//! scene would start it, one it removed is retired.
//!
//! **Invariant**: ids never move. A matched agent keeps the id it was saved with, an added one
//! takes the next free id, a removed one keeps its id, halted. Everything keyed by id — the
//! game's own per-agent state, conversation partners, state code's saved data — therefore keeps
//! its meaning across a patch; the scene's roster ([`Scene::roster`]) maps the program's order
//! onto ids from then on.

use crate::hsm::{AgentId, RosterChange, Scene};
use crate::program::{Program, SceneId};
use crate::snapshot::SnapshotError;
use crate::world::World;

/// The scene's own agents in `program`'s order: name, the machine it runs (`None`: an ambient
/// NPC), where it starts.
fn listed(program: &Program, id: SceneId) -> Vec<(&str, Option<crate::program::MachineId>, usize)> {
    let def = &program.scenes[id.index()];
    (def.agents.iter())
        .map(|a| (program.name(a.name), Some(a.machine), a.start.index()))
        .chain((def.ambient.iter()).map(|a| (program.name(a.name), None, a.start.index())))
        .collect()
}

/// Matches the agents of `scene` (just restored from a savegame) to the roster of `program`'s
/// scene `id` and applies the difference: added agents are placed, given their variables and
/// started; removed ones are retired (their conversations end, their moves stop); renamed ones
/// take their new name. Returns the changes, in the program's order (added and renamed), then
/// the removed ones in the savegame's.
///
/// A scene restored from a snapshot without a roster (written before it was saved) must list
/// exactly the program's agents in order; otherwise it is refused, as before.
pub fn patch<W: World + 'static>(
    program: &Program,
    id: SceneId,
    scene: &mut Scene<W>,
) -> Result<Vec<RosterChange>, SnapshotError> {
    let listed = listed(program, id);
    let Some(saved) = scene.roster().map(<[AgentId]>::to_vec) else {
        return positional(program, id, scene, &listed);
    };
    let mut taken = vec![false; saved.len()];
    let mut roster: Vec<Option<AgentId>> = Vec::with_capacity(listed.len());
    let mut changes = Vec::new();
    // By name first; then through the migrations, for the agents no name matched (a
    // migration never takes an agent whose saved name the program still has).
    let mut matched: Vec<Option<usize>> = vec![None; listed.len()];
    for migrated in [false, true] {
        for (j, (name, machine, _)) in listed.iter().enumerate() {
            if matched[j].is_some() {
                continue;
            }
            let found = saved.iter().enumerate().position(|(k, &agent)| {
                let saved_name = scene.agent_name(agent);
                let saved_name = if migrated {
                    program.migrations.agent(saved_name)
                } else {
                    saved_name
                };
                !taken[k] && saved_name == *name && scene.runs_machine(agent) == machine.is_some()
            });
            if let Some(k) = found {
                taken[k] = true;
                matched[j] = Some(k);
            }
        }
    }
    for (j, (name, _, _)) in listed.iter().enumerate() {
        let Some(k) = matched[j] else {
            roster.push(None);
            continue;
        };
        let agent = saved[k];
        let from = scene.agent_name(agent).to_string();
        if from != *name {
            scene.rename_agent(agent, name);
            changes.push(RosterChange::Renamed {
                from,
                to: name.to_string(),
                agent,
            });
        }
        roster.push(Some(agent));
    }
    let scene_name = program.name(program.scenes[id.index()].name);
    for (k, &agent) in saved.iter().enumerate() {
        if taken[k] {
            continue;
        }
        let name = scene.agent_name(agent).to_string();
        scene.retire(
            agent,
            format!("`{name}` is no longer in scene `{scene_name}` (removed by the patch)"),
        );
        let standard = scene.game.standard_mut();
        standard.set_partner(agent, None);
        let paired: Vec<AgentId> = (standard.partners().iter().enumerate())
            .filter(|(_, p)| **p == Some(agent))
            .map(|(i, _)| AgentId(i as u32))
            .collect();
        for other in paired {
            standard.set_partner(other, None);
        }
        scene.game.stop_move(agent);
        changes.push(RosterChange::Removed { name, agent });
    }
    let mut ids = Vec::with_capacity(listed.len());
    for (j, (slot, (name, machine, start))) in roster.into_iter().zip(&listed).enumerate() {
        if let Some(agent) = slot {
            ids.push(agent);
            continue;
        }
        // Set up through the seam as a starting scene sets its agents up, before its first
        // state is entered (the state may read its variables).
        let agent = AgentId(scene.agents().count() as u32);
        if let Some(l) = program.locations.get(*start) {
            scene.game.place(agent, [l.x, l.y]);
        }
        let bindings =
            (program.speech.bindings.iter()).filter(|b| b.scene == id && b.agent as usize == j);
        for b in bindings {
            scene
                .game
                .set_variable(agent, program.name(b.variable), &b.value);
        }
        let spawned = match machine {
            Some(m) => scene.spawn(name, *m),
            None => scene.spawn_idle(name),
        };
        debug_assert_eq!(spawned, agent);
        changes.push(RosterChange::Added {
            name: name.to_string(),
            agent,
        });
        ids.push(agent);
    }
    // Added and renamed first, in the program's order; then the removed.
    changes.sort_by_key(|c| matches!(c, RosterChange::Removed { .. }));
    scene.set_roster(ids);
    Ok(changes)
}

/// A snapshot without a roster: its first agents must be the program's, in order.
fn positional<W: 'static>(
    program: &Program,
    id: SceneId,
    scene: &mut Scene<W>,
    listed: &[(&str, Option<crate::program::MachineId>, usize)],
) -> Result<Vec<RosterChange>, SnapshotError> {
    let saved: Vec<&str> = scene.agents().map(|a| scene.agent_name(a)).collect();
    for (i, (name, _, _)) in listed.iter().enumerate() {
        let differs = match saved.get(i) {
            Some(&s) if s == *name => continue,
            Some(&s) => format!("the savegame has `{s}` there"),
            None => format!("the savegame has {} agents", saved.len()),
        };
        return Err(SnapshotError::Unsupported(format!(
            "agent #{} of scene `{}` is `{name}` in the program, but {differs}, and the savegame \
             predates saved rosters, so its agents cannot be matched by name: restore it onto \
             the build it was taken from, or start the scene afresh",
            i + 1,
            program.name(program.scenes[id.index()].name),
        )));
    }
    scene.set_roster((0..listed.len()).map(|i| AgentId(i as u32)).collect());
    Ok(Vec::new())
}
