//! The row/cell model of a script, independent of where it was written.

use crate::source::FileId;

pub use crate::ir::script::{Cell, Origin};

/// A row of the `Roles` sheet.
#[derive(Clone, Debug, PartialEq)]
pub struct RoleRow {
    pub name: Cell,
    pub min: Option<Cell>,
    pub max: Option<Cell>,
    pub flags: Option<Cell>,
}

/// A row of the `Rules` sheet: one rule. Empty cells are `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleRow {
    /// The row itself (its first cell), for problems that concern the whole rule.
    pub origin: Cell,
    pub rule: Option<Cell>,
    pub role: Option<Cell>,
    pub state: Option<Cell>,
    pub precondition: Option<Cell>,
    pub action: Option<Cell>,
    pub target: Option<Cell>,
    pub parameters: Option<Cell>,
    pub add: Option<Cell>,
    pub delete: Option<Cell>,
    pub deferred_add: Option<Cell>,
    pub deferred_delete: Option<Cell>,
    pub on_error: Option<Cell>,
    pub next_state: Option<Cell>,
    pub terminate: Option<Cell>,
}

impl RuleRow {
    pub fn cells_mut(&mut self) -> impl Iterator<Item = &mut Cell> {
        [
            &mut self.rule,
            &mut self.role,
            &mut self.state,
            &mut self.precondition,
            &mut self.action,
            &mut self.target,
            &mut self.parameters,
            &mut self.add,
            &mut self.delete,
            &mut self.deferred_add,
            &mut self.deferred_delete,
            &mut self.on_error,
            &mut self.next_state,
            &mut self.terminate,
        ]
        .into_iter()
        .flatten()
    }
}

/// One script as written: the `Script` sheet's keys, its roles and its rules.
#[derive(Clone, Debug, PartialEq)]
pub struct ScriptSource {
    pub file: FileId,
    pub name: Cell,
    pub initial_state: Option<Cell>,
    pub base: Option<Cell>,
    /// Meta-parameters `$name` and their values.
    pub params: Vec<(String, Cell)>,
    /// Predicates supplied from outside (the smart location, a proxy): `seat/1, sale/2`.
    pub supplies: Option<Cell>,
    pub roles: Vec<RoleRow>,
    pub rules: Vec<RuleRow>,
}

pub use crate::front::ron::script::{RoleAsset, RuleAsset, ScriptAsset};
