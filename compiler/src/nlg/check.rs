//! Checks on the states that speak and trade: a `Dialog` state must name a sentence state, a
//! `Set` state's modifier must read `Name = value`, a `Transaction`'s must parse (the runtime's
//! own parser, `speech::transaction`), and a `Has` state's must be a variable name.

use crate::diag::{Code, Diagnostic, Diagnostics, suggest};
use crate::ir::{Handle, Machine, Modifier, Module, State};
use crate::valid::hosted_closure;
use ensemble_runtime::speech::transaction;
use std::collections::HashSet;

// The standard states these checks know, by the names the core declares them under.
pub use ensemble_runtime::stdlib::{DIALOG, HAS, SET, TALK_STATE_MACHINE as TALK, TRANSACTION};

/// `transaction-outside-conversation`: a `Transaction` in a machine that no
/// `TalkStateMachine` runs, directly or through the machines it hosts, has no partner to trade
/// with; Hewlett §3.5.2 puts the hand-over inside the conversation machine, not after it.
pub fn check_transaction_placement(module: &Module, diags: &mut Diagnostics) {
    let mut in_conversation: HashSet<Handle<Machine>> = HashSet::new();
    for (_, st) in module.states.iter() {
        if let (Modifier::Machine(c), Some(TALK)) = (&st.modifier, code_name(module, st)) {
            in_conversation.extend(hosted_closure(module, *c));
        }
    }
    for (_, st) in module.states.iter() {
        if code_name(module, st) != Some(TRANSACTION) || in_conversation.contains(&st.machine) {
            continue;
        }
        diags.push(
            Diagnostic::error(
                Code::TransactionOutsideConversation,
                format!(
                    "transaction `{}` is in machine `{}`, which no `TalkStateMachine` runs: there is no partner to trade with",
                    st.name.text, module.machines[st.machine].name.text
                ),
            )
            .at(st.name.span, "outside any conversation")
            .note("put it in the conversation machine, before the states an interruption may skip (Hewlett §3.5.2)"),
        );
    }
}

/// The standard library state a state's code is, by name, if it resolved to one. A game's own
/// library state of the same name (declared in its `*.statelib.ron`) is not: its code is the
/// game's, so the checks of the standard state do not apply to it.
pub fn code_name<'m>(module: &'m Module, state: &State) -> Option<&'m str> {
    state
        .code
        .map(|c| &module.library[c])
        .filter(|l| l.standard)
        .map(|l| l.name.as_str())
}

/// The variable a `Set` state binds (`CityName = Boston` -> `CityName`).
pub fn set_variable(text: &str) -> Option<&str> {
    let (name, _) = text.split_once('=')?;
    let name = name.trim();
    is_variable_name(name).then_some(name)
}

pub fn is_variable_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

pub fn check_dialog_states(module: &Module, diags: &mut Diagnostics) {
    let names: Vec<&str> = module
        .sentences
        .iter()
        .map(|(_, s)| s.name.text.as_str())
        .collect();
    for (_, state) in module.states.iter() {
        let Modifier::Text(text) = &state.modifier else {
            continue;
        };
        let span = state.modifier_span.unwrap_or(state.name.span);
        match code_name(module, state) {
            Some(DIALOG) if module.sentence_by_name(text).is_none() => {
                let mut d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "dialog state `{}` speaks sentence state `{text}`, which is not defined",
                        state.name.text
                    ),
                )
                .at(span, "no such sentence state")
                .note("sentence states are defined in *.sentences.ron files");
                if let Some(s) = suggest(text, names.iter().copied()) {
                    d = d.did_you_mean(text, s);
                }
                diags.push(d);
            }
            Some(SET) if set_variable(text).is_none() => diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "state `{}` sets `{text}`, which is not `Name = value`",
                        state.name.text
                    ),
                )
                .at(span, "here")
                .note("write it like `CityName = Boston`"),
            ),
            Some(TRANSACTION) => {
                if let Err(e) = transaction::parse(text) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("transaction `{}`: {e}", state.name.text),
                        )
                        .at(span, "here")
                        .note("write `give Ticket = ticket to {CityName}`, `give Money` or `take Money`"),
                    );
                }
            }
            Some(HAS) if !is_variable_name(text) => diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "state `{}` asks whether the agent has `{text}`, which is not a variable name",
                        state.name.text
                    ),
                )
                .at(span, "here")
                .note("write the variable's name alone, like `Ticket`"),
            ),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::project;

    /// Compiles a project of one machine, `Talk` (Start -> Speak -> Bind -> Finish, where
    /// `Speak` is a `Dialog` state naming no sentence state and `Bind` a `Set` state whose text is
    /// no binding), with `libraries` in its manifest and `statelib` as its own library (if any);
    /// returns the diagnostics' messages.
    fn messages(libraries: &str, statelib: Option<&str>) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write(
            "Ensemble.ron",
            &format!("Project(name: \"game\", libraries: [{libraries}])"),
        );
        write(
            "Talk.machine.ron",
            r#"Machine(name: "Talk", states: [
                (name: "Start", on: [("Empty", "Speak")]),
                (name: "Speak", code: "Dialog", modifier: "Taunt", on: [("FinishStatement", "Bind")]),
                (name: "Bind", code: "Set", modifier: "strength plus one", on: [("Done", "Finish")]),
                (name: "Finish"),
            ])"#,
        );
        if let Some(lib) = statelib {
            write("game.statelib.ron", lib);
        }
        let project = project::load(dir.path()).unwrap();
        let c = crate::compile(project);
        c.diagnostics.iter().map(|d| d.message.clone()).collect()
    }

    const OWN_LIBRARY: &str = r#"StateLibrary(states: [
        (name: "Start", raises: ["Empty"]),
        (name: "Dialog", modifier: Text, raises: ["FinishStatement"], doc: "Plays a barked line by its id."),
        (name: "Set", modifier: Text, raises: ["Done"], doc: "Applies a stat change."),
        (name: "Finish", terminal: End),
    ])"#;

    #[test]
    fn a_games_own_dialog_state_is_not_checked_as_the_standard_one() {
        let own = messages("", Some(OWN_LIBRARY));
        assert!(own.is_empty(), "{own:?}");
        // The same machine against the standard library is checked as a dialog and a set state.
        let standard = messages("\"sim\"", None);
        assert!(
            standard
                .iter()
                .any(|m| m.contains("speaks sentence state `Taunt`, which is not defined")),
            "{standard:?}"
        );
        assert!(
            standard
                .iter()
                .any(|m| m.contains("sets `strength plus one`, which is not `Name = value`")),
            "{standard:?}"
        );
    }
}
