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
