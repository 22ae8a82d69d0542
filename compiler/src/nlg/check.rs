//! Checks on the states that speak and trade: a `Dialog` state must name a sentence state, a
//! `Set` state's modifier must read `Name = value`, a `Transaction`'s must parse (the runtime's
//! own parser, `speech::transaction`), and a `Has` state's must be a variable name.

use crate::diag::{Code, Diagnostic, Diagnostics, suggest};
use crate::ir::{Handle, Machine, Modifier, Module, State};
use crate::valid::hosted_closure;
use ensemble_runtime::speech::transaction;
use std::collections::HashSet;

/// The library state that speaks sentence states.
pub const DIALOG: &str = "Dialog";
/// The library state that binds a variable.
pub const SET: &str = "Set";
/// The special state that moves a variable between conversation partners.
pub const TRANSACTION: &str = "Transaction";
/// The library state that branches on whether a variable is bound.
pub const HAS: &str = "Has";
/// The library state that hosts a conversation machine.
pub const TALK: &str = "TalkStateMachine";

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

/// The library name of a state's code, if it resolved.
pub fn code_name<'m>(module: &'m Module, state: &State) -> Option<&'m str> {
    state.code.map(|c| module.library[c].name.as_str())
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
                    d = d.note(format!("did you mean `{s}`?"));
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
