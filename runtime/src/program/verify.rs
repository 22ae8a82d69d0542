//! Structural verification of a decoded program. Everything the interpreter indexes without a
//! check is checked here once, so a corrupt or hand-crafted file is refused instead of panicking
//! later.

use super::*;

pub(crate) fn verify(p: &Program) -> Result<(), String> {
    let names = p.names.len();
    let name = |id: NameId, what: &str| -> Result<(), String> {
        if id.index() < names {
            Ok(())
        } else {
            Err(format!("{what} refers to name #{} of {names}", id.0))
        }
    };
    for (i, lib) in p.library.iter().enumerate() {
        name(lib.name, &format!("library state #{i}"))?;
    }
    for (i, loc) in p.locations.iter().enumerate() {
        name(loc.name, &format!("location #{i}"))?;
        if !loc.x.is_finite() || !loc.y.is_finite() {
            return Err(format!("location #{i} has a non-finite position"));
        }
    }
    let mut next_state = 0u64;
    for (mi, m) in p.machines.iter().enumerate() {
        name(m.name, &format!("machine #{mi}"))?;
        if m.state_count == 0 {
            return Err(format!("machine #{mi} has no states"));
        }
        // Machines own consecutive, non-overlapping runs of states, in order.
        if m.first_state as u64 != next_state {
            return Err(format!("machine #{mi}'s states are not contiguous"));
        }
        next_state = m.first_state as u64 + m.state_count as u64;
        if next_state > p.states.len() as u64 {
            return Err(format!("machine #{mi}'s states run past the state table"));
        }
        let range = m.first_state..m.first_state + m.state_count;
        if !range.contains(&m.initial.0) {
            return Err(format!(
                "machine #{mi}'s initial state is not one of its states"
            ));
        }
        for s in range.clone() {
            if p.states[s as usize].machine.index() != mi {
                return Err(format!(
                    "state #{s} claims another machine than the one owning it"
                ));
            }
        }
    }
    if next_state != p.states.len() as u64 {
        return Err("some states belong to no machine".into());
    }
    let mut next_transition = 0u64;
    for (si, s) in p.states.iter().enumerate() {
        name(s.name, &format!("state #{si}"))?;
        let lib = p.library.get(s.code.index()).ok_or_else(|| {
            format!(
                "state #{si} uses library state #{} which does not exist",
                s.code.0
            )
        })?;
        match s.modifier {
            Modifier::Location(l) if l.index() >= p.locations.len() => {
                return Err(format!(
                    "state #{si} names location #{} which does not exist",
                    l.0
                ));
            }
            Modifier::Machine(m) if m.index() >= p.machines.len() => {
                return Err(format!(
                    "state #{si} hosts machine #{} which does not exist",
                    m.0
                ));
            }
            Modifier::Agent(n) | Modifier::Text(n) => name(n, &format!("state #{si}'s modifier"))?,
            Modifier::Number(x) if !x.is_finite() => {
                return Err(format!("state #{si} has a non-finite number modifier"));
            }
            _ => {}
        }
        if s.modifier.kind() != lib.modifier {
            return Err(format!(
                "state #{si} has a {} modifier but its library state takes {}",
                s.modifier.kind().as_str(),
                lib.modifier.as_str()
            ));
        }
        if s.first_transition as u64 != next_transition {
            return Err(format!("state #{si}'s transitions are not contiguous"));
        }
        next_transition = s.first_transition as u64 + s.transition_count as u64;
        if next_transition > p.transitions.len() as u64 {
            return Err(format!(
                "state #{si}'s transitions run past the transition table"
            ));
        }
        let m = &p.machines[s.machine.index()];
        for t in &p.transitions[s.first_transition as usize..next_transition as usize] {
            name(t.event, &format!("a transition of state #{si}"))?;
            if !(m.first_state..m.first_state + m.state_count).contains(&t.target.0) {
                return Err(format!("a transition of state #{si} leaves its machine"));
            }
        }
    }
    if next_transition != p.transitions.len() as u64 {
        return Err("some transitions belong to no state".into());
    }
    for (ci, scene) in p.scenes.iter().enumerate() {
        name(scene.name, &format!("scene #{ci}"))?;
        if scene.tick_rate == 0 || scene.tick_rate > 10_000 {
            return Err(format!("scene #{ci} has tick rate {}", scene.tick_rate));
        }
        for a in &scene.agents {
            name(a.name, &format!("an agent of scene #{ci}"))?;
            if a.machine.index() >= p.machines.len() {
                return Err(format!(
                    "an agent of scene #{ci} runs a machine that does not exist"
                ));
            }
            if a.start.index() >= p.locations.len() {
                return Err(format!(
                    "an agent of scene #{ci} starts at a location that does not exist"
                ));
            }
        }
    }
    for (ci, scene) in p.scenes.iter().enumerate() {
        for a in &scene.ambient {
            name(a.name, &format!("an ambient agent of scene #{ci}"))?;
            for r in &a.roles {
                name(*r, &format!("a role of an ambient agent of scene #{ci}"))?;
            }
            if let Some(g) = a.group {
                name(g, &format!("a group of scene #{ci}"))?;
            }
            if a.start.index() >= p.locations.len()
                || a.route.iter().any(|l| l.index() >= p.locations.len())
            {
                return Err(format!(
                    "an ambient agent of scene #{ci} names a location that does not exist"
                ));
            }
            if !(a.delay.is_finite() && a.delay >= 0.0) {
                return Err(format!(
                    "an ambient agent of scene #{ci} has an invalid delay"
                ));
            }
        }
    }
    verify_scripts(p)?;
    // Hosting must be acyclic, or entering a state would recurse forever.
    let mut colour = vec![0u8; p.machines.len()];
    fn visit(p: &Program, m: usize, colour: &mut [u8]) -> Result<(), String> {
        match colour[m] {
            1 => return Err(format!("machine #{m} hosts itself through its children")),
            2 => return Ok(()),
            _ => {}
        }
        colour[m] = 1;
        for s in p.states_of(MachineId(m as u32)) {
            if let Modifier::Machine(child) = p.state(s).modifier {
                visit(p, child.index(), colour)?;
            }
        }
        colour[m] = 2;
        Ok(())
    }
    for m in 0..p.machines.len() {
        visit(p, m, &mut colour)?;
    }
    verify_speech(p)
}

/// The speech section: sentence states, their candidates and scene variable bindings.
fn verify_speech(p: &Program) -> Result<(), String> {
    crate::speech::verify(p)
}

fn verify_scripts(p: &Program) -> Result<(), String> {
    use crate::script::{Atom, Expr, Literal};
    let names = p.names.len();
    let name_ok = |id: NameId| id.index() < names;
    fn expr_ok(e: &Expr, vars: u16, name_ok: &dyn Fn(NameId) -> bool) -> bool {
        match e {
            Expr::Var(v) => *v < vars,
            Expr::Sym(s) => name_ok(*s),
            Expr::Num(x) => x.is_finite(),
            Expr::Me | Expr::Now => true,
            Expr::Call(f, args) => {
                args.len() == f.arity() && args.iter().all(|a| expr_ok(a, vars, name_ok))
            }
            Expr::Bin(_, l, r) => expr_ok(l, vars, name_ok) && expr_ok(r, vars, name_ok),
        }
    }
    let atom_ok = |a: &Atom, vars: u16| {
        name_ok(a.predicate) && a.args.iter().all(|e| expr_ok(e, vars, &name_ok))
    };
    for (si, s) in p.scripts.iter().enumerate() {
        let bad = |what: &str| Err(format!("script #{si}: {what}"));
        if !name_ok(s.name)
            || s.roles.iter().any(|r| {
                !name_ok(r.name) || r.leave_command.is_some_and(|c| !name_ok(c)) || r.min > r.max
            })
        {
            return bad("a role is inconsistent");
        }
        if s.states.is_empty() || s.initial_state as usize >= s.states.len() {
            return bad("its initial state does not exist");
        }
        let mut next = 0u64;
        for st in &s.states {
            if !name_ok(st.name) || st.first_rule as u64 != next {
                return bad("its states' rules are not contiguous");
            }
            next += st.rule_count as u64;
        }
        if next != s.rules.len() as u64 {
            return bad("some rules belong to no state");
        }
        for r in &s.rules {
            let v = r.variables;
            let lits = r.precondition.iter().all(|l| match l {
                Literal::Pos(a) | Literal::Neg(a) => atom_ok(a, v),
                Literal::Cmp(a, _, b) => expr_ok(a, v, &name_ok) && expr_ok(b, v, &name_ok),
                Literal::Any(e) => expr_ok(e, v, &name_ok),
            });
            let effects = [
                &r.add,
                &r.delete,
                &r.deferred_add,
                &r.deferred_delete,
                &r.on_error,
            ]
            .iter()
            .all(|e| e.iter().all(|a| atom_ok(a, v)));
            let action = r.action.as_ref().is_none_or(|a| {
                name_ok(a.name)
                    && a.target.as_ref().is_none_or(|t| expr_ok(t, v, &name_ok))
                    && a.parameters
                        .iter()
                        .all(|(k, e)| name_ok(*k) && expr_ok(e, v, &name_ok))
            });
            let refs = name_ok(r.name)
                && r.role.is_none_or(|x| (x as usize) < s.roles.len())
                && r.next_state.is_none_or(|x| (x as usize) < s.states.len());
            if !(lits && effects && action && refs) {
                return bad("a rule refers to something that does not exist");
            }
        }
    }
    for (li, l) in p.smart_locations.iter().enumerate() {
        if !name_ok(l.name)
            || l.at.index() >= p.locations.len()
            || !(l.radius.is_finite() && l.radius >= 0.0)
            || l.props.iter().any(|(a, b)| !name_ok(*a) || !name_ok(*b))
            || l.scripts
                .iter()
                .any(|(s, w)| *s as usize >= p.scripts.len() || !w.is_finite())
        {
            return Err(format!(
                "smart location #{li} refers to something that does not exist"
            ));
        }
    }
    Ok(())
}
