//! The state-machine graph editor: states as nodes (egui-snarl), transitions as one output pin
//! each, labelled with its event, plus a pin to add one; the inspector beside it edits the
//! selected state. Conversation machines use the same editor: dialog, one-off and other speech
//! states are drawn as such, with the line or sentence state they speak.
//!
//! The editor never changes a document itself: it reads the document and returns [`Edit`]s,
//! which the host applies with [`apply`] and records for undo. So what a gesture does is a
//! plain function of the asset, tested in [`ops`] without a window.

pub mod auto_layout;
pub mod edit;
pub mod inspector;
pub mod ops;
pub mod param_fields;
pub mod suggest;
pub mod view;

use crate::document::DocState;
use crate::panel::{LibraryEntry, ProjectNames};
use std::collections::BTreeSet;

pub use edit::Edit;
pub use view::GraphView;

pub use crate::graph::viewer::From;

/// What applying an edit leaves selected.
pub type Selection = Option<BTreeSet<String>>;

/// Applies `edit` to the machine document `doc`; returns the new selection, if it changes, or
/// why the edit was refused (the document is then unchanged).
pub fn apply(doc: &mut DocState, edit: Edit, names: &ProjectNames) -> Result<Selection, String> {
    let DocState {
        content,
        layout,
        comments,
        ..
    } = doc;
    let m = match content {
        crate::document::Content::Asset(ensemble_compiler::formats::ron::AnyAsset::Machine(m)) => m,
        _ => return Err("not a machine".into()),
    };
    let state_mut = |m: &mut ensemble_compiler::formats::ron::MachineAsset, name: &str| {
        ops::index_of(m, name).ok_or_else(|| format!("no state `{name}`"))
    };
    match edit {
        Edit::AddState {
            code,
            modifier,
            at,
            from,
            keep,
        } => {
            for (state, p) in keep {
                if layout.get(&state).is_none() {
                    layout.set(&state, p);
                }
            }
            let name = ops::add_state(m, layout, &code, modifier, at);
            match from {
                Some(From::Entry) => ops::set_initial(m, &name),
                Some(From::NewTransition(s)) => {
                    let i = state_mut(m, &s)?;
                    wire_from_plus(m, names, i, name.clone())?;
                }
                Some(From::Transition(s, t)) => {
                    let i = state_mut(m, &s)?;
                    if let Some(tr) = m.states[i].on.get_mut(t) {
                        tr.1 = name.clone();
                    }
                }
                None => {}
            }
            Ok(Some([name].into()))
        }
        Edit::Delete(names) => {
            ops::delete_states(m, layout, &names);
            Ok(Some(BTreeSet::new()))
        }
        Edit::RenameState { old, new } => {
            ops::rename_state(m, layout, comments, &old, &new)?;
            Ok(Some([new.trim().to_string()].into()))
        }
        Edit::SetCode { state, code } => {
            let i = state_mut(m, &state)?;
            let s = &mut m.states[i];
            s.code = code.filter(|c| c != ensemble_compiler::formats::ron::implied_code(&s.name));
            Ok(None)
        }
        Edit::SetModifier { state, modifier } => {
            let i = state_mut(m, &state)?;
            m.states[i].modifier = modifier;
            Ok(None)
        }
        Edit::SetParams {
            state,
            modifier,
            params,
            ..
        } => {
            let i = state_mut(m, &state)?;
            m.states[i].modifier = modifier;
            m.states[i].params = params;
            Ok(None)
        }
        Edit::SetEvent {
            state,
            index,
            event,
        } => {
            transition_mut(m, &state, index)?.0 = event;
            Ok(None)
        }
        Edit::SetTarget {
            state,
            index,
            target,
        } => {
            transition_mut(m, &state, index)?.1 = target;
            Ok(None)
        }
        Edit::AddTransition { state, target } => {
            let i = state_mut(m, &state)?;
            let raises = raises_of(names, &m.states[i]);
            let event = ops::new_event(&m.states[i], raises.as_deref());
            m.states[i].on.push((event, target));
            Ok(None)
        }
        Edit::Connect { state, target } => {
            let i = state_mut(m, &state)?;
            wire_from_plus(m, names, i, target)?;
            Ok(None)
        }
        Edit::RemoveTransition { state, index } => {
            let i = state_mut(m, &state)?;
            if index < m.states[i].on.len() {
                m.states[i].on.remove(index);
            }
            Ok(None)
        }
        Edit::SetInitial(state) => {
            state_mut(m, &state)?;
            ops::set_initial(m, &state);
            Ok(None)
        }
        Edit::Move(positions) => {
            for (name, at) in positions {
                layout.set(&name, at);
            }
            Ok(None)
        }
        Edit::Arrange(positions) => {
            layout.nodes.clear();
            for (name, at) in positions {
                layout.set(&name, at);
            }
            Ok(None)
        }
        Edit::Paste { clip, offset } => {
            let added = ops::paste(m, layout, &clip, offset);
            Ok(Some(added.into_iter().collect()))
        }
        Edit::Canvas(edit) => {
            edit.apply(layout)?;
            Ok(None)
        }
    }
}

fn transition_mut<'m>(
    m: &'m mut ensemble_compiler::formats::ron::MachineAsset,
    state: &str,
    index: usize,
) -> Result<&'m mut (String, String), String> {
    let i = ops::index_of(m, state).ok_or_else(|| format!("no state `{state}`"))?;
    m.states[i]
        .on
        .get_mut(index)
        .ok_or_else(|| format!("`{state}` has no transition {index}"))
}

/// A wire from the `+` pin of state `i` to `target`: a transition on the first outcome its
/// library state raises that has none yet. When it raises one outcome, wired already, that
/// transition is re-targeted (a second on the same outcome would never fire); when it raises
/// several, all wired, the wire is refused with what to do instead — never a transition on a
/// made-up event the state does not raise. A state whose library declares no outcomes (a
/// `Listen` waits for messages) gets a new event to name.
fn wire_from_plus(
    m: &mut ensemble_compiler::formats::ron::MachineAsset,
    names: &ProjectNames,
    i: usize,
    target: String,
) -> Result<(), String> {
    let s = &mut m.states[i];
    let raises = raises_of(names, s).filter(|r| !r.is_empty());
    let event = ops::new_event(s, raises.as_deref());
    let Some(raises) = raises.filter(|r| !r.contains(&event)) else {
        s.on.push((event, target));
        return Ok(());
    };
    if let [only] = raises.as_slice()
        && let Some(t) = s.on.iter_mut().find(|(e, _)| e == only)
    {
        t.1 = target;
        return Ok(());
    }
    Err(format!(
        "every outcome of `{}` ({}) has its transition already: drag one's pin to re-target it",
        s.name,
        raises.join(", ")
    ))
}

fn raises_of(
    names: &ProjectNames,
    s: &ensemble_compiler::formats::ron::StateAsset,
) -> Option<Vec<String>> {
    names
        .library(ops::code(s))
        .and_then(|l: &LibraryEntry| l.raises.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Content;
    use crate::sidecar::Layout;
    use ensemble_compiler::formats::ron::AssetKind;
    use ensemble_compiler::formats::ron::{AnyAsset, FileKind};

    fn doc() -> DocState {
        DocState::from_text(
            "M.machine.ron",
            FileKind::Asset(AssetKind::Machine),
            "Machine(name: \"M\", states: [(name: \"Start\", on: [(\"Empty\", \"Finish\")]), (name: \"Finish\")])".into(),
            Layout::default(),
        )
    }

    fn names() -> ProjectNames {
        ProjectNames {
            library: vec![LibraryEntry {
                name: "Start".into(),
                modifier: ensemble_runtime::program::ModifierKind::None,
                terminal: ensemble_runtime::program::Terminal::No,
                raises: Some(vec!["Empty".into()]),
                doc: String::new(),
                standard: true,
                params: Vec::new(),
            }],
            ..Default::default()
        }
    }

    fn machine(d: &DocState) -> &ensemble_compiler::formats::ron::MachineAsset {
        match &d.content {
            Content::Asset(AnyAsset::Machine(m)) => m,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_state_dropped_from_a_pin_is_connected() {
        let mut d = doc();
        let sel = apply(
            &mut d,
            Edit::AddState {
                code: "Goto".into(),
                modifier: None,
                at: [10.0, 10.0],
                from: Some(From::Transition("Start".into(), 0)),
                keep: vec![("Start".into(), [-200.0, 0.0])],
            },
            &names(),
        )
        .unwrap();
        assert_eq!(sel, Some(["Goto".to_string()].into()));
        assert_eq!(machine(&d).states[0].on[0].1, "Goto");
        // The states the auto-layout placed stay where they were drawn.
        assert_eq!(d.layout.get("Start"), Some([-200.0, 0.0]));
        // A new transition from Start takes the next event its library state raises.
        apply(
            &mut d,
            Edit::AddTransition {
                state: "Start".into(),
                target: "Finish".into(),
            },
            &names(),
        )
        .unwrap();
        assert_eq!(machine(&d).states[0].on[1].0, "Event");
    }

    #[test]
    fn a_refused_op_changes_nothing() {
        let mut d = doc();
        let before = d.clone();
        let r = apply(
            &mut d,
            Edit::RenameState {
                old: "Start".into(),
                new: "Finish".into(),
            },
            &names(),
        );
        assert!(r.is_err());
        assert_eq!(d, before);
    }
}
