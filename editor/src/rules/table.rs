//! The rule table's state, apart from how it is drawn (`grid`, `roles`) and what it does
//! (the parent module), so the drawing names the table without naming its parent.

use super::check::CheckCache;
use super::excel::{FilePicker, FileRequest, Message};
use super::locate::Markers;
use crate::workbook::columns::Column;
use ensemble_compiler::diag::Severity;

/// What [`RuleTable::reveal`] scrolls to and selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuleTarget {
    /// A cell of rule `row` (0-based, precedence order).
    Cell(usize, Column),
    /// A whole rule.
    Rule(usize),
    /// A role (opens the script and roles section).
    Role(usize),
    /// The script keys.
    Script,
}

/// What is selected: a rule (row), and the cell being edited if any.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub row: Option<usize>,
    pub column: Option<Column>,
}

/// A change to the rule list, applied after the grid is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RowOp {
    /// A new rule at this index, in the state and role of the rule it follows.
    Insert(usize),
    Duplicate(usize),
    Delete(usize),
    /// Move the rule at `from` so that it ends up at `to`.
    Move {
        from: usize,
        to: usize,
    },
    /// "How do I get here?" on this rule: no change, a request for the host.
    Reach(usize),
}

/// A report shown under the toolbar (an import, an export).
pub(super) struct Status {
    pub(super) severity: Severity,
    pub(super) text: String,
    pub(super) details: Vec<Message>,
}

/// The rule table panel: view state only.
pub struct RuleTable {
    pub(super) widths: [f32; 14],
    pub(super) selection: Selection,
    /// A target to scroll to on the next frame.
    pub(super) reveal: Option<RuleTarget>,
    /// A cell to give the keyboard focus on the next frame.
    pub(super) focus: Option<(usize, Column)>,
    pub(super) open_script: Option<bool>,
    /// Whether a cell had the keyboard focus in the last frame.
    pub(super) grid_focus: bool,
    /// A role whose name gets the keyboard on the next frame.
    pub(super) focus_role: Option<usize>,
    pub(super) markers: Markers,
    pub(super) checks: CheckCache,
    pub(super) row_heights: Vec<f32>,
    pub(super) picker: FilePicker,
    /// A request the system could not ask with a dialog, asked by a typed path.
    pub(super) typed: Option<(crate::file_dialog::Typed, FileRequest)>,
    pub(super) status: Option<Status>,
    /// `(state, rule)` of the rules no content test run fired (the Tests panel's coverage):
    /// their rows are marked. Empty until tests have run.
    pub unreached: std::collections::BTreeSet<(String, String)>,
}
