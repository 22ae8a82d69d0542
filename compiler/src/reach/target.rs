//! Targets by name: `MACHINE/STATE`, a sentence state or a candidate line's id, `SCRIPT/RULE`,
//! a reply or planning action, a trace-event pattern — resolved against a program into a
//! [`Target`], and the scenes that can show each. The CLI (`ensemble reach`) and the editor
//! ("How do I get here?") both name targets this way, so both refuse the same typos with the
//! same did-you-mean.
//!
//! Errors are one sentence without a leading "error:" (each front end adds its own frame).

use super::Target;
use crate::content_test::asset::EventPattern;
use crate::diag::suggest;
use ensemble_runtime::Program;
use ensemble_runtime::program::{MachineId, Modifier, StateId};

/// An unknown name, with a did-you-mean (or the names known, when nothing is close).
pub fn unknown<'a>(
    what: &str,
    name: &str,
    known: impl IntoIterator<Item = &'a str> + Clone,
) -> String {
    let hint = match suggest(name, known.clone()) {
        Some(s) => format!("; did you mean `{s}`?"),
        None => {
            let list: Vec<&str> = known.into_iter().take(12).collect();
            format!(" (known: {})", list.join(", "))
        }
    };
    // `what` may name where it was looked for after the kind: "state in machine `M`".
    let text = match what.split_once(" in ") {
        Some((kind, place)) => format!("no {kind} `{name}` in {place}"),
        None => format!("no {what} `{name}`"),
    };
    format!("{text}{hint}")
}

/// State `spec` (`MACHINE/STATE`) entered, by `agent` of `scene` only if given.
pub fn state(
    program: &Program,
    spec: &str,
    agent: Option<&str>,
    scene: Option<&str>,
) -> Result<Target, String> {
    let (m, s) = state_of(program, spec)?;
    let machine = program.name(program.machine(m).name);
    let state = program.name(program.state(s).name);
    if let (Some(agent), Some(scene)) = (agent, scene) {
        let agents = agents_of(program, scene);
        if !agents.iter().any(|a| a == agent) {
            return Err(unknown(
                &format!("agent in scene `{scene}`"),
                agent,
                agents.iter().map(String::as_str),
            ));
        }
    }
    let mut t = Target::new(
        match agent {
            Some(a) => format!("state {machine}/{state} of {a}"),
            None => format!("state {machine}/{state}"),
        },
        EventPattern {
            event: "enter".into(),
            agent: agent.map(str::to_string),
            machine: Some(machine.to_string()),
            state: Some(state.to_string()),
            ..Default::default()
        },
    );
    t.states = vec![s];
    t.agent = agent.map(str::to_string);
    Ok(t)
}

/// `MACHINE/STATE`, resolved (did-you-mean on either half).
pub fn state_of(program: &Program, spec: &str) -> Result<(MachineId, StateId), String> {
    let Some((m, s)) = spec.split_once('/') else {
        return Err(format!("--state `{spec}`: write MACHINE/STATE"));
    };
    let machines: Vec<&str> = program
        .machines
        .iter()
        .map(|d| program.name(d.name))
        .collect();
    let Some(mid) = program.machine_by_name(m) else {
        return Err(unknown("machine", m, machines.iter().copied()));
    };
    let Some(sid) = program.state_by_name(mid, s) else {
        let states: Vec<&str> = program
            .states_of(mid)
            .map(|s| program.name(program.state(s).name))
            .collect();
        return Err(unknown(
            &format!("state in machine `{m}`"),
            s,
            states.iter().copied(),
        ));
    };
    Ok((mid, sid))
}

/// A line said: a sentence state's name (any of its lines), or a candidate line's 8-hex id.
pub fn line(program: &Program, id: &str) -> Result<Target, String> {
    let speech = &program.speech;
    if id.len() == 8
        && let Ok(hex) = u32::from_str_radix(id, 16)
    {
        for sentence in &speech.sentences {
            let first = sentence.first_candidate as usize;
            let count = sentence.candidate_count as usize;
            for c in speech.candidates.iter().skip(first).take(count) {
                if c.id == hex {
                    let text: String = c
                        .parts
                        .iter()
                        .map(|p| match p {
                            ensemble_runtime::speech::Part::Text(t) => t.clone(),
                            ensemble_runtime::speech::Part::Slot(_) => "*".into(),
                        })
                        .collect();
                    let name = program.name(sentence.name).to_string();
                    return Ok(Target::new(
                        format!("line {id} of {name} ({:?})", text.trim()),
                        EventPattern {
                            event: "say".into(),
                            sentence: Some(name),
                            text: Some(text.trim().to_string()),
                            ..Default::default()
                        },
                    ));
                }
            }
        }
        return Err(format!(
            "no candidate line `{id}` (ids: `ensemble build --strings`)"
        ));
    }
    let names: Vec<&str> = speech
        .sentences
        .iter()
        .map(|s| program.name(s.name))
        .collect();
    if !names.contains(&id) {
        return Err(unknown("sentence state", id, names.iter().copied()));
    }
    Ok(Target::new(
        format!("a line of {id}"),
        EventPattern {
            event: "say".into(),
            sentence: Some(id.to_string()),
            ..Default::default()
        },
    ))
}

/// A rule firing: `SCRIPT/RULE` or `SCRIPT/STATE/RULE`.
pub fn rule(program: &Program, spec: &str) -> Result<Target, String> {
    let (script, rule, label) = rule_of(program, spec)?;
    let mut t = Target::new(
        format!("rule {label}"),
        EventPattern {
            event: "*".into(),
            script: Some(program.name(program.scripts[script as usize].name).into()),
            ..Default::default()
        },
    );
    t.rule = Some((script, rule));
    Ok(t)
}

/// `SCRIPT/RULE` or `SCRIPT/STATE/RULE`: (script index, rule index, its coverage name).
fn rule_of(program: &Program, spec: &str) -> Result<(u32, u32, String), String> {
    let parts: Vec<&str> = spec.split('/').collect();
    let (script, state, rule) = match parts.as_slice() {
        [s, r] => (*s, None, *r),
        [s, st, r] => (*s, Some(*st), *r),
        _ => {
            return Err(format!(
                "--rule `{spec}`: write SCRIPT/RULE or SCRIPT/STATE/RULE"
            ));
        }
    };
    let scripts: Vec<&str> = program
        .scripts
        .iter()
        .map(|s| program.name(s.name))
        .collect();
    let Some(si) = scripts.iter().position(|s| *s == script) else {
        return Err(unknown("script", script, scripts.iter().copied()));
    };
    let def = &program.scripts[si];
    let mut names = Vec::new();
    for st in &def.states {
        let first = st.first_rule as usize;
        for r in first..first + st.rule_count as usize {
            let Some(rd) = def.rules.get(r) else { continue };
            let rn = program.name(rd.name);
            let sn = program.name(st.name);
            names.push(rn);
            if rn == rule && state.is_none_or(|s| s == sn) {
                return Ok((si as u32, r as u32, format!("{script}/{sn}/{rn}")));
            }
        }
    }
    Err(unknown(
        &format!("rule in script `{script}`"),
        rule,
        names.iter().copied(),
    ))
}

/// An action: in a conversation (`chat`), a reply action the HMM's states propose; in a machine
/// scene, an action started (`act`: a planning step, a script's action).
pub fn action(program: &Program, name: &str, chat: bool) -> Result<Target, String> {
    if chat {
        let known: Vec<&str> = program
            .hpmm
            .actions
            .iter()
            .map(|a| program.name(a.name))
            .collect();
        if !known.contains(&name) {
            return Err(unknown("reply action", name, known.iter().copied()));
        }
        let mut t = Target::new(
            format!("reply {name}"),
            EventPattern {
                event: "output".into(),
                action: Some(name.to_string()),
                ..Default::default()
            },
        );
        t.hmm_action = Some(name.to_string());
        return Ok(t);
    }
    Ok(Target::new(
        format!("action {name}"),
        EventPattern {
            event: "act".into(),
            action: Some(name.to_string()),
            ..Default::default()
        },
    ))
}

/// An HMM state most believed in its space: `SPACE/STATE`.
pub fn hmm_state(program: &Program, spec: &str) -> Result<Target, String> {
    let Some((space, state)) = spec.split_once('/') else {
        return Err(format!("HMM state `{spec}`: write SPACE/STATE"));
    };
    let m = &program.hpmm;
    let spaces: Vec<&str> = m.spaces.iter().map(|s| program.name(s.name)).collect();
    let Some(si) = spaces.iter().position(|s| *s == space) else {
        return Err(unknown("space", space, spaces.iter().copied()));
    };
    let def = &m.spaces[si];
    let states: Vec<&str> = m
        .states
        .iter()
        .skip(def.first_state as usize)
        .take(def.state_count as usize)
        .map(|s| program.name(s.name))
        .collect();
    if !states.contains(&state) {
        return Err(unknown(
            &format!("state in space `{space}`"),
            state,
            states.iter().copied(),
        ));
    }
    let mut t = Target::new(
        format!("HMM state {space}/{state}"),
        EventPattern {
            event: "*".into(),
            ..Default::default()
        },
    );
    t.hmm_state = Some((space.to_string(), state.to_string()));
    Ok(t)
}

/// Any trace event, written as a content test's pattern: `(event: "enter", state: "Finish")`.
pub fn event(program: &Program, text: &str) -> Result<Target, String> {
    let options =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    let pattern: EventPattern = options.from_str(text).map_err(|e| {
        format!(
            "--event `{text}` is not a pattern like `(event: \"enter\", state: \"Finish\")`: {e}"
        )
    })?;
    let mut t = Target::new(format!("event {pattern}"), pattern.clone());
    // An exact state entered guides the search like a state target.
    if let (Some(m), Some(s)) = (&pattern.machine, &pattern.state)
        && pattern.event == "enter"
        && let Some(mid) = program.machine_by_name(m)
        && let Some(sid) = program.state_by_name(mid, s)
    {
        t.states = vec![sid];
        t.agent = pattern.agent.clone().filter(|a| !a.contains('*'));
    }
    Ok(t)
}

/// The agents of a machine scene (machine-driven and ambient).
pub fn agents_of(program: &Program, scene: &str) -> Vec<String> {
    if let Some(id) = program.scene_by_name(scene) {
        let def = &program.scenes[id.index()];
        let own = def.agents.iter().map(|a| a.name);
        let ambient = def.ambient.iter().map(|a| a.name);
        return own
            .chain(ambient)
            .map(|n| program.name(n).to_string())
            .collect();
    }
    Vec::new()
}

/// The scenes that can show `target`, most likely first: for an HMM state or reply, the
/// conversations; for a state, the scenes whose agents run its machine (as their root or hosted
/// below it) — every machine scene when none does (a planning action's machine may still run);
/// for anything else every machine scene.
pub fn scenes_for(program: &Program, target: &Target) -> Vec<String> {
    if target.hmm_state.is_some() || target.hmm_action.is_some() {
        return program
            .hpmm
            .chats
            .iter()
            .map(|c| program.name(c.name).to_string())
            .collect();
    }
    let every = || {
        program
            .scenes
            .iter()
            .map(|s| program.name(s.name).to_string())
            .collect::<Vec<_>>()
    };
    let Some(&state) = target.states.first() else {
        return every();
    };
    let machine = program.state(state).machine;
    let running = scenes_running(program, machine);
    if running.is_empty() { every() } else { running }
}

/// Machine scenes whose agents run `machine` (as their root or hosted below it).
pub fn scenes_running(program: &Program, machine: MachineId) -> Vec<String> {
    let mut out = Vec::new();
    for scene in &program.scenes {
        let runs = scene.agents.iter().any(|a| {
            let mut stack = vec![a.machine];
            let mut seen = vec![a.machine];
            while let Some(m) = stack.pop() {
                if m == machine {
                    return true;
                }
                for s in program.states_of(m) {
                    if let Modifier::Machine(c) = program.state(s).modifier
                        && !seen.contains(&c)
                    {
                        seen.push(c);
                        stack.push(c);
                    }
                }
            }
            false
        });
        if runs {
            out.push(program.name(scene.name).to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_names_the_place_and_the_nearest_name() {
        let m = unknown("state in machine `Buy`", "Finsh", ["Start", "Finish"]);
        assert_eq!(
            m,
            "no state `Finsh` in machine `Buy`; did you mean `Finish`?"
        );
        let m = unknown("scene", "zzz", ["a", "b"]);
        assert_eq!(m, "no scene `zzz` (known: a, b)");
    }
}
