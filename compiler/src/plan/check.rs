//! Static checks on an action list and its problem, before any search:
//! `never-produced` (a constraint value no action sets and no seed holds — the thesis's
//! At_Wrong_Gate), `unexecutable-rule` (never enabled even with values accumulating, the
//! relaxation of deletes), `unreachable-goal` (likewise, or mutually exclusive conditions) and,
//! when the graph is built, `state-limit-exceeded` with the explosion report.

use super::action_list::{Compiled, CompiledEffect, VarState};
use crate::diag::{Code, Diagnostic};
use std::collections::BTreeSet;

/// Values each variable can take when values only accumulate (`None` = any integer); `world`
/// are values world events may set.
pub fn relaxed_values(
    domain: &Compiled,
    seeds: &[VarState],
    world: &[(usize, i64)],
) -> (Vec<Option<BTreeSet<i64>>>, Vec<bool>) {
    let n = domain.names.len();
    let mut reach: Vec<Option<BTreeSet<i64>>> = vec![Some(BTreeSet::new()); n];
    for s in seeds {
        for (v, &x) in s.iter().enumerate() {
            if let Some(r) = &mut reach[v] {
                r.insert(x);
            }
        }
    }
    for &(v, x) in world {
        if let Some(r) = &mut reach[v] {
            r.insert(x);
        }
    }
    let mut enabled = vec![false; domain.actions.len()];
    loop {
        let mut changed = false;
        for (ai, a) in domain.actions.iter().enumerate() {
            let ok = a.constraints.iter().all(|&(v, x, eq)| match &reach[v] {
                None => true,
                Some(r) if eq => r.contains(&x),
                Some(r) => r.iter().any(|&y| y != x),
            });
            if !ok {
                continue;
            }
            if !enabled[ai] {
                enabled[ai] = true;
                changed = true;
            }
            for e in &a.effects {
                match *e {
                    CompiledEffect::Set(v, x) => {
                        if let Some(r) = &mut reach[v] {
                            changed |= r.insert(x);
                        }
                    }
                    CompiledEffect::Add(v, _) => {
                        if reach[v].is_some() {
                            reach[v] = None;
                            changed = true;
                        }
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    (reach, enabled)
}

/// Every check that needs no search; diagnostics carry no location (the caller attaches it:
/// the action named, or the goal). `world` are values world events may set.
pub fn check(
    domain: &Compiled,
    seeds: &[VarState],
    goal: &[(usize, i64, bool)],
    world: &[(usize, i64)],
) -> Vec<(Diagnostic, Option<String>)> {
    let mut out = Vec::new();
    // never-produced
    let mut reported = BTreeSet::new();
    for a in &domain.actions {
        for &(v, x, eq) in &a.constraints {
            if !eq || reported.contains(&(v, x)) {
                continue;
            }
            let produced = domain.actions.iter().any(|b| {
                b.effects.iter().any(|e| match *e {
                    CompiledEffect::Set(w, y) => w == v && y == x,
                    CompiledEffect::Add(w, _) => w == v,
                })
            }) || seeds.iter().any(|s| s[v] == x)
                || world.contains(&(v, x));
            if !produced {
                reported.insert((v, x));
                out.push((
                    Diagnostic::warning(
                        Code::NeverProduced,
                        format!(
                            "`{}` is required by `{}` but no action produces it and no seed state holds it",
                            domain.fact_name(v, x),
                            a.name
                        ),
                    )
                    .note("it can only become true through a belief update; add a seed state that holds it so the planning graph contains it, or a world event that sets it"),
                    Some(a.name.clone()),
                ));
            }
        }
    }
    let (reach, enabled) = relaxed_values(domain, seeds, world);
    for (a, &on) in domain.actions.iter().zip(&enabled) {
        if !on {
            out.push((
                Diagnostic::warning(
                    Code::UnexecutableRule,
                    format!(
                        "action `{}` can never be applied from the seed states",
                        a.name
                    ),
                ),
                Some(a.name.clone()),
            ));
        }
    }
    // Goals: reachable values, and no two conditions that exclude each other.
    for (i, &(v, x, eq)) in goal.iter().enumerate() {
        for &(w, y, eq2) in &goal[i + 1..] {
            if v == w && ((eq && eq2 && x != y) || (eq != eq2 && x == y)) {
                out.push((
                    Diagnostic::error(
                        Code::UnreachableGoal,
                        format!(
                            "the goal conditions on `{}` are mutually exclusive",
                            domain.names[v]
                        ),
                    ),
                    None,
                ));
            }
        }
        let ok = match &reach[v] {
            None => true,
            Some(r) if eq => r.contains(&x),
            Some(r) => r.iter().any(|&y| y != x),
        };
        if !ok {
            out.push((
                Diagnostic::error(
                    Code::UnreachableGoal,
                    format!(
                        "the goal `{}{}` cannot be reached from the seed states",
                        if eq { "" } else { "not " },
                        domain.fact_name(v, x)
                    ),
                ),
                None,
            ));
        }
    }
    out
}

/// `state-limit-exceeded` with the report.
pub fn explosion(report: &super::graph::ExplosionReport) -> Diagnostic {
    Diagnostic::error(Code::StateLimitExceeded, report.describe())
}
