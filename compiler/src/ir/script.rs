//! Interaction scripts in the IR: parsed rules with the cells they came from.

use crate::script::cell::{AtomAst, LiteralAst, Term};
use crate::script::source::Cell;
use crate::source::FileId;
pub use ensemble_runtime::script::Termination;

#[derive(Clone, Debug)]
pub struct ScriptRole {
    pub name: String,
    pub min: u16,
    pub max: u16,
    pub dynamic_join: bool,
    pub leave_command: Option<String>,
    pub cell: Cell,
}

/// An effect list and the cell it was written in.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    pub atoms: Vec<AtomAst>,
    pub cell: Option<Cell>,
}

#[derive(Clone, Debug)]
pub struct ScriptRule {
    /// `Rule` column, or the row number.
    pub label: String,
    /// The row, for diagnostics about the rule as a whole.
    pub row: Cell,
    pub role: Option<usize>,
    pub role_cell: Option<Cell>,
    /// `None`: the rule applies in every state.
    pub state: Option<usize>,
    pub precondition: Vec<LiteralAst>,
    pub precondition_cell: Option<Cell>,
    pub action: Option<(String, Cell)>,
    pub target: Option<(Term, Cell)>,
    pub parameters: Vec<(String, Term)>,
    pub parameters_cell: Option<Cell>,
    pub add: Effects,
    pub delete: Effects,
    pub deferred_add: Effects,
    pub deferred_delete: Effects,
    pub on_error: Effects,
    pub next_state: Option<(usize, Cell)>,
    pub terminate: Termination,
}

impl ScriptRule {
    /// Effects that put facts into the tuple space.
    pub fn additions(&self) -> impl Iterator<Item = (&AtomAst, &Effects)> {
        [&self.add, &self.deferred_add, &self.on_error]
            .into_iter()
            .flat_map(|e| e.atoms.iter().map(move |a| (a, e)))
    }

    pub fn deletions(&self) -> impl Iterator<Item = (&AtomAst, &Effects)> {
        [&self.delete, &self.deferred_delete]
            .into_iter()
            .flat_map(|e| e.atoms.iter().map(move |a| (a, e)))
    }
}

#[derive(Clone, Debug)]
pub struct ScriptState {
    pub name: String,
    /// Where the state is first named.
    pub cell: Option<Cell>,
}

#[derive(Clone, Debug)]
pub struct Script {
    pub name: String,
    pub name_cell: Cell,
    pub file: FileId,
    pub roles: Vec<ScriptRole>,
    pub states: Vec<ScriptState>,
    pub initial: usize,
    pub rules: Vec<ScriptRule>,
    /// `(predicate, arity)` supplied from outside, and where that was declared.
    pub supplies: Vec<(String, usize, Cell)>,
}

/// A smart location (35.2): a place with props that runs one script instance at a time.
#[derive(Clone, Debug)]
pub struct SmartLocation {
    pub name: crate::ir::Name,
    pub at: Option<crate::ir::Handle<crate::ir::Location>>,
    pub radius: f64,
    /// Props `(name, kind)`: each supplies the fact `kind(name)` to its scripts.
    pub props: Vec<(String, String)>,
    /// Other predicates supplied from outside (a proxy object), `(predicate, arity)`.
    pub supplies: Vec<(String, usize)>,
    /// Scripts it can run, with their preference (higher is tried first).
    pub scripts: Vec<(crate::ir::Handle<Script>, f64)>,
}
