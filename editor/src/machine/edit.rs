//! What the machine editor's graph and inspector return: the [`Edit`]s the host applies (with
//! [`super::apply`]) and records for undo, and what the inspector is told and gives back.

use super::ops;
use crate::analysis::Located;
use crate::graph::viewer::From;
use crate::panel::ProjectNames;
use ensemble_compiler::formats::ron::ModifierValue;
use std::collections::{BTreeSet, HashMap};

/// One edit of the open machine.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    AddState {
        code: String,
        modifier: Option<ModifierValue>,
        at: [f32; 2],
        from: Option<From>,
        /// Where the states without a layout position are drawn (by the auto-layout): kept
        /// there, so adding a state moves none the designer has not moved.
        keep: Vec<(String, [f32; 2])>,
    },
    Delete(BTreeSet<String>),
    RenameState {
        old: String,
        new: String,
    },
    SetCode {
        state: String,
        code: Option<String>,
    },
    SetModifier {
        state: String,
        modifier: Option<ModifierValue>,
    },
    /// A state's values after one of its parameters (`param`) changed: the single modifier of
    /// a one-parameter state written so, or the `params` map in declaration order.
    SetParams {
        state: String,
        param: String,
        modifier: Option<ModifierValue>,
        params: ensemble_compiler::formats::ron::ParamValues,
    },
    SetEvent {
        state: String,
        index: usize,
        event: String,
    },
    SetTarget {
        state: String,
        index: usize,
        target: String,
    },
    AddTransition {
        state: String,
        target: String,
    },
    /// A wire from `state`'s `+` pin dropped on `target`: a transition on the next outcome
    /// its library state raises (see [`wire_from_plus`]).
    Connect {
        state: String,
        target: String,
    },
    RemoveTransition {
        state: String,
        index: usize,
    },
    SetInitial(String),
    /// Node positions after a drag (or all of them, the first time a laid-out machine moves).
    Move(Vec<(String, [f32; 2])>),
    /// Positions from the auto-layout, replacing the layout.
    Arrange(Vec<(String, [f32; 2])>),
    Paste {
        clip: ops::Clip,
        offset: [f32; 2],
    },
    /// A comment or group on the canvas (kept in the layout sidecar).
    Canvas(crate::graph::comments::CanvasEdit),
}

impl Edit {
    /// What Undo says it undoes.
    pub fn label(&self) -> String {
        match self {
            Edit::AddState { code, .. } => format!("add {code} state"),
            Edit::Delete(names) if names.len() == 1 => {
                format!("delete {}", names.iter().next().map_or("", |n| n.as_str()))
            }
            Edit::Delete(names) => format!("delete {} states", names.len()),
            Edit::RenameState { old, new } => format!("rename {old} to {new}"),
            Edit::SetCode { state, .. } => format!("change the library state of {state}"),
            Edit::SetModifier { state, .. } => format!("change the modifier of {state}"),
            Edit::SetParams { state, param, .. } => format!("change {param} of {state}"),
            Edit::SetEvent { state, .. } => format!("rename an event of {state}"),
            Edit::SetTarget { state, .. } => format!("retarget a transition of {state}"),
            Edit::AddTransition { state, .. } => format!("add a transition to {state}"),
            Edit::Connect { state, target } => format!("connect {state} to {target}"),
            Edit::RemoveTransition { state, .. } => format!("remove a transition of {state}"),
            Edit::SetInitial(s) => format!("make {s} initial"),
            Edit::Move(_) => "move".into(),
            Edit::Arrange(_) => "arrange".into(),
            Edit::Paste { clip, .. } => format!("paste {} states", clip.states.len()),
            Edit::Canvas(edit) => edit.label().into(),
        }
    }

    /// Edits with the same key merge into one undo step while a gesture lasts (typing in one
    /// field, one drag).
    pub fn coalesce(&self) -> Option<String> {
        match self {
            Edit::SetModifier { state, .. } => Some(format!("modifier {state}")),
            Edit::SetParams { state, param, .. } => Some(format!("param {state} {param}")),
            Edit::SetEvent { state, index, .. } => Some(format!("event {state} {index}")),
            Edit::Move(_) => Some("move".into()),
            Edit::Canvas(edit) => edit.coalesce(),
            _ => None,
        }
    }
}

#[derive(Default)]
pub struct InspectorOutput {
    pub edits: Vec<Edit>,
    pub rename_machine: Option<String>,
    pub open_machine: Option<String>,
}

pub struct InspectorCx<'a> {
    pub names: &'a ProjectNames,
    pub diagnostics: &'a [&'a Located],
    pub lines: &'a HashMap<String, String>,
    /// The project's conversations, for the messages a partner sends.
    pub conversations: &'a super::suggest::Conversations,
}
