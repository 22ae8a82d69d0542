//! Role allocation (35.4.1) as a Monte-Carlo greedy algorithm: randomise the candidates, fill
//! every role up to its minimum (failing fast when one cannot be met), then fill up to the
//! maximums. Groups (a family) are placed whole or not at all. Joining late (35.4.2) adds one
//! candidate (or group) to a running script's roles that allow it.

use super::def::ScriptDef;
use crate::program::NameId;
use crate::rng::Rng;

/// An actor that could take part: the roles it can take and its group, if any.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The game's handle of the actor.
    pub actor: u32,
    /// Its name, the value `.me` takes in the script.
    pub name: NameId,
    /// Roles it can take, by name.
    pub roles: Vec<NameId>,
    /// Its group: members of one group join together or not at all.
    pub group: Option<NameId>,
}

/// Candidates that join together: a group, or a single actor.
fn units(candidates: &[Candidate]) -> Vec<Vec<&Candidate>> {
    let mut units: Vec<Vec<&Candidate>> = Vec::new();
    for c in candidates {
        match c
            .group
            .and_then(|g| units.iter().position(|u| u[0].group == Some(g)))
        {
            Some(i) => units[i].push(c),
            None => units.push(vec![c]),
        }
    }
    units
}

/// Places every member of `unit`, preferring `first` for the first member able to take it, then
/// roles still under their minimum, then any role with room. All or nothing.
fn place(
    def: &ScriptDef,
    unit: &[&Candidate],
    counts: &mut [usize],
    first: Option<u16>,
    dynamic_only: bool,
) -> Option<Vec<(u32, u16)>> {
    let mut trial = counts.to_vec();
    let mut out = Vec::new();
    let mut want_first = first;
    for c in unit {
        let can = |r: usize| {
            c.roles.contains(&def.roles[r].name)
                && trial[r] < def.roles[r].max as usize
                && (!dynamic_only || def.roles[r].dynamic_join)
        };
        let pick = want_first
            .filter(|r| can(*r as usize))
            .map(|r| r as usize)
            .or_else(|| {
                (0..def.roles.len()).find(|&r| can(r) && trial[r] < def.roles[r].min as usize)
            })
            .or_else(|| (0..def.roles.len()).find(|&r| can(r)))?;
        if Some(pick as u16) == want_first {
            want_first = None;
        }
        trial[pick] += 1;
        out.push((c.actor, pick as u16));
    }
    counts.copy_from_slice(&trial);
    Some(out)
}

/// Allocates roles for a new script instance; `None` if the minimums cannot be met (or nobody
/// at all can take part).
pub fn allocate(
    def: &ScriptDef,
    candidates: &[Candidate],
    rng: &mut Rng,
) -> Option<Vec<(u32, u16)>> {
    allocate_with(def, &[], candidates, rng)
}

/// [`allocate`] around actors whose roles are already fixed (the player who reacted to an icon,
/// a location's proxy objects): they count toward the cardinalities and are part of the result.
pub fn allocate_with(
    def: &ScriptDef,
    fixed: &[(u32, u16)],
    candidates: &[Candidate],
    rng: &mut Rng,
) -> Option<Vec<(u32, u16)>> {
    let mut units = units(candidates);
    for i in (1..units.len()).rev() {
        let j = rng.index(i + 1);
        units.swap(i, j);
    }
    let mut used = vec![false; units.len()];
    let mut counts = vec![0usize; def.roles.len()];
    for (_, role) in fixed {
        counts[*role as usize] += 1;
    }
    let mut assignment = fixed.to_vec();
    for (r, role) in def.roles.iter().enumerate() {
        while counts[r] < role.min as usize {
            let placed = (0..units.len()).find_map(|u| {
                if used[u] || !units[u].iter().any(|c| c.roles.contains(&role.name)) {
                    return None;
                }
                place(def, &units[u], &mut counts, Some(r as u16), false).map(|a| (u, a))
            });
            let (u, a) = placed?; // fail fast
            used[u] = true;
            assignment.extend(a);
        }
    }
    for u in 0..units.len() {
        if !used[u]
            && let Some(a) = place(def, &units[u], &mut counts, None, false)
        {
            used[u] = true;
            assignment.extend(a);
        }
    }
    (!assignment.is_empty()).then_some(assignment)
}

/// Roles for someone the location lets into its running script whenever there is room,
/// whatever the roles' `dynamicJoin` flags say (the player, a proxy object).
pub fn admit(def: &ScriptDef, unit: &[&Candidate], counts: &[usize]) -> Option<Vec<(u32, u16)>> {
    let mut counts = counts.to_vec();
    place(def, unit, &mut counts, None, false)
}

/// Roles for a candidate (or its whole group) joining a running script, if the script lets
/// them in.
pub fn join_late(
    def: &ScriptDef,
    unit: &[&Candidate],
    counts: &[usize],
) -> Option<Vec<(u32, u16)>> {
    let mut counts = counts.to_vec();
    place(def, unit, &mut counts, None, true)
}

#[cfg(test)]
mod tests {
    use super::super::def::{RoleDef, ScriptStateDef};
    use super::*;

    fn role(name: u32, min: u16, max: u16, dynamic_join: bool) -> RoleDef {
        RoleDef {
            name: NameId(name),
            min,
            max,
            dynamic_join,
            leave_command: None,
        }
    }

    fn script(roles: Vec<RoleDef>) -> ScriptDef {
        ScriptDef {
            name: NameId(0),
            roles,
            states: vec![ScriptStateDef {
                name: NameId(0),
                first_rule: 0,
                rule_count: 0,
            }],
            initial_state: 0,
            rules: vec![],
        }
    }

    fn cand(actor: u32, roles: &[u32], group: Option<u32>) -> Candidate {
        Candidate {
            actor,
            name: NameId(100 + actor),
            roles: roles.iter().map(|r| NameId(*r)).collect(),
            group: group.map(NameId),
        }
    }

    #[test]
    fn minimums_first_then_maximums_and_fail_fast() {
        // waiter 1..1, guest 1..2
        let def = script(vec![role(1, 1, 1, false), role(2, 1, 2, true)]);
        let cands = [
            cand(0, &[2], None),
            cand(1, &[1, 2], None),
            cand(2, &[2], None),
            cand(3, &[2], None),
        ];
        for seed in 0..50 {
            let a = allocate(&def, &cands, &mut Rng::new(seed, 0)).unwrap();
            let waiters: Vec<_> = a.iter().filter(|(_, r)| *r == 0).collect();
            assert_eq!(waiters, [&(1, 0)], "only actor 1 can wait tables");
            assert_eq!(
                a.iter().filter(|(_, r)| *r == 1).count(),
                2,
                "guests filled to max"
            );
        }
        // Nobody can be the waiter: allocation fails.
        assert!(allocate(&def, &[cand(0, &[2], None)], &mut Rng::new(0, 0)).is_none());
    }

    #[test]
    fn groups_join_whole_or_not_at_all() {
        let def = script(vec![role(2, 0, 2, true)]);
        // A family of three cannot fit into two places; a single can.
        let cands = [
            cand(0, &[2], Some(9)),
            cand(1, &[2], Some(9)),
            cand(2, &[2], Some(9)),
            cand(3, &[2], None),
        ];
        for seed in 0..20 {
            let a = allocate(&def, &cands, &mut Rng::new(seed, 0)).unwrap();
            assert_eq!(a, [(3, 0)]);
        }
        let pair = [cand(0, &[2], Some(9)), cand(1, &[2], Some(9))];
        assert_eq!(allocate(&def, &pair, &mut Rng::new(1, 0)).unwrap().len(), 2);
    }

    #[test]
    fn fixed_actors_count_toward_cardinalities() {
        // shop 1..1 (a proxy, fixed), keeper 1..1, customer 0..2
        let def = script(vec![
            role(1, 1, 1, false),
            role(2, 1, 1, false),
            role(3, 0, 2, true),
        ]);
        let cands = [
            cand(0, &[2], None),
            cand(1, &[1, 3], None),
            cand(2, &[3], None),
        ];
        for seed in 0..30 {
            let a = allocate_with(&def, &[(9, 0)], &cands, &mut Rng::new(seed, 0)).unwrap();
            assert!(a.contains(&(9, 0)), "the fixed actor stays");
            assert_eq!(
                a.iter().filter(|(_, r)| *r == 0).count(),
                1,
                "no room for actor 1 as shop"
            );
            assert!(a.contains(&(0, 1)));
        }
        // Without the fixed shop the minimum of role 0 can only be met by actor 1.
        let a = allocate(&def, &cands, &mut Rng::new(3, 0)).unwrap();
        assert!(a.contains(&(1, 0)));
        // The player is let in without dynamicJoin, but not beyond the maximum.
        let def = script(vec![role(1, 0, 1, false)]);
        let p = cand(7, &[1], None);
        assert_eq!(admit(&def, &[&p], &[0]), Some(vec![(7, 0)]));
        assert_eq!(join_late(&def, &[&p], &[0]), None);
        assert_eq!(admit(&def, &[&p], &[1]), None);
    }

    #[test]
    fn joining_late_needs_dynamic_join_and_room() {
        let def = script(vec![role(1, 0, 1, false), role(2, 0, 2, true)]);
        let c = cand(5, &[1, 2], None);
        assert_eq!(
            join_late(&def, &[&c], &[0, 0]),
            Some(vec![(5, 1)]),
            "role 0 is not dynamicJoin"
        );
        assert_eq!(join_late(&def, &[&c], &[0, 2]), None);
    }
}
