//! The manifest's migrations: each new name is one the project has (a typo there would carry a
//! savegame's agent or state nowhere), each old name one it no longer has (a restore reads old
//! names first, so an old name still in use would take its namesake's place), and no old name
//! is migrated twice.

use crate::diag::{Code, Diagnostic, Diagnostics, suggest_note};
use crate::ir::{Module, Name};
use std::collections::BTreeSet;

pub fn check(module: &Module, diags: &mut Diagnostics) {
    let agents: BTreeSet<&str> = (module.scenes.iter())
        .flat_map(|(_, s)| s.agents.iter().map(|a| a.name.text.as_str()))
        .collect();
    let states: BTreeSet<String> = (module.states.iter())
        .map(|(_, s)| format!("{}/{}", module.machines[s.machine].name.text, s.name.text))
        .collect();
    let states_ref: BTreeSet<&str> = states.iter().map(String::as_str).collect();
    check_pairs("agent", &module.migrations.agents, &agents, diags);
    for (old, new) in &module.migrations.states {
        for name in [old, new] {
            if !name.text.contains('/') {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("`{}` is not a state as `Machine/State`", name.text),
                    )
                    .at(name.span, "write the machine, a `/`, then the state"),
                );
            }
        }
    }
    check_pairs("state", &module.migrations.states, &states_ref, diags);
}

fn check_pairs(kind: &str, pairs: &[(Name, Name)], now: &BTreeSet<&str>, diags: &mut Diagnostics) {
    let mut seen = BTreeSet::new();
    for (old, new) in pairs {
        if !seen.insert(old.text.as_str()) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("the {kind} `{}` is migrated twice", old.text),
                )
                .at(old.span, "a second migration of it"),
            );
        }
        if now.contains(old.text.as_str()) {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "the project still has the {kind} `{}`, which this migration renames",
                        old.text
                    ),
                )
                .at(old.span, "still in use")
                .note(format!(
                    "a savegame's `{}` would become `{}` and the project's own `{}` would start \
                     afresh: take the migration out, or rename the {kind} in the project",
                    old.text, new.text, old.text
                )),
            );
        }
        // A state written without its machine was reported as such above.
        let shaped = kind != "state" || new.text.contains('/');
        if shaped && !now.contains(new.text.as_str()) {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "the migration renames to `{}`, which the project has no {kind} of",
                    new.text
                ),
            )
            .at(new.span, format!("no such {kind}"));
            diags.push(suggest_note(d, &new.text, now.iter().copied()));
        }
    }
}
