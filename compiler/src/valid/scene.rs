//! Checks that need a scene: agent modifiers must name agents of every scene that runs them.

use crate::diag::{Code, Diagnostic, Diagnostics, suggest};
use crate::ir::{ArgValue, Handle, Machine, Modifier, Module};

/// Machines an agent running `root` can reach through hosting, `root` included.
pub(crate) fn hosted_closure(module: &Module, root: Handle<Machine>) -> Vec<Handle<Machine>> {
    let mut seen = vec![root];
    let mut i = 0;
    while i < seen.len() {
        for &s in &module.machines[seen[i]].states {
            if let Modifier::Machine(child) = module.states[s].modifier
                && !seen.contains(&child)
            {
                seen.push(child);
            }
        }
        i += 1;
    }
    seen
}

/// `unknown-reference` for agent modifiers that name no agent of a scene running them.
pub fn check_agent_modifiers(module: &Module, diags: &mut Diagnostics) {
    for (_, scene) in module.scenes.iter() {
        let agent_names: Vec<&str> = scene.agents.iter().map(|a| a.name.text.as_str()).collect();
        for agent in &scene.agents {
            let Some(root) = agent.machine else { continue };
            for m in hosted_closure(module, root) {
                for &s in &module.machines[m].states {
                    let state = &module.states[s];
                    // The agent modifier, and the agents typed parameters name.
                    let mut named: Vec<(&str, Option<crate::source::Span>)> = Vec::new();
                    if let Modifier::Agent(name) = &state.modifier {
                        named.push((name, state.modifier_span));
                    }
                    for arg in &state.params {
                        for v in arg.value.iter().flat_map(|a| a.values()) {
                            if let ArgValue::Agent(name) = v {
                                named.push((name, arg.span));
                            }
                        }
                    }
                    for (name, span) in named {
                        if agent_names.contains(&name) {
                            continue;
                        }
                        let mut d = Diagnostic::error(
                            Code::UnknownReference,
                            format!(
                                "state `{}` names agent `{name}`, but scene `{}` has no such agent",
                                state.name.text, scene.name.text
                            ),
                        )
                        .at(
                            span.unwrap_or(state.name.span),
                            "no such agent in this scene",
                        )
                        .related(
                            agent.machine_name.span,
                            format!("agent `{}` runs this machine here", agent.name.text),
                        );
                        if let Some(s) = suggest(name, agent_names.iter().copied()) {
                            d = d.did_you_mean(name, s);
                        }
                        diags.push(d);
                    }
                }
            }
        }
    }
}
