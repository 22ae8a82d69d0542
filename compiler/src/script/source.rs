//! The row/cell model of a script, independent of where it was written.

use crate::diag::Diagnostic;
use crate::source::{FileId, Span};
use serde::{Deserialize, Serialize};
use std::ops::Range;

/// Where a cell's text came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A string in a RON asset: the span covers the literal including its quotes.
    Ron(Span),
    /// A workbook cell.
    Sheet {
        file: FileId,
        sheet: String,
        cell: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    pub origin: Origin,
}

impl Cell {
    /// Points a diagnostic at this cell, or at `range` inside it when the origin allows.
    pub fn locate(&self, d: Diagnostic, range: Option<Range<usize>>, label: &str) -> Diagnostic {
        match &self.origin {
            Origin::Ron(span) => {
                let inner = span.start + 1;
                let span = match range {
                    // Offsets inside the string are exact unless it contains escapes; clamp to
                    // the literal either way.
                    Some(r) => Span {
                        file: span.file,
                        start: (inner + r.start as u32).min(span.end),
                        end: (inner + r.end as u32).min(span.end),
                    },
                    None => *span,
                };
                d.at(span, label)
            }
            Origin::Sheet { file, sheet, cell } => {
                d.in_cell(*file, sheet, cell).note(label.to_string())
            }
        }
    }

    /// Adds this cell (or `range` inside it) as a related location: a span in a RON asset, a
    /// sheet and cell in a workbook.
    pub fn relate(&self, d: Diagnostic, range: Option<Range<usize>>, label: &str) -> Diagnostic {
        match &self.origin {
            Origin::Ron(span) => {
                let inner = span.start + 1;
                let span = match range {
                    Some(r) => Span {
                        file: span.file,
                        start: (inner + r.start as u32).min(span.end),
                        end: (inner + r.end as u32).min(span.end),
                    },
                    None => *span,
                };
                d.related(span, label)
            }
            Origin::Sheet { file, sheet, cell } => d.related_cell(*file, sheet, cell, label),
        }
    }

    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

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

/// `*.script.ron`: the native form, with the columns of the Excel contract as fields (cell
/// syntax inside strings). `ensemble import` writes this from a workbook.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Script", deny_unknown_fields)]
pub struct ScriptAsset {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial_state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// Meta-parameters, `("$name", "value")`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<(String, String)>,
    /// Predicates supplied from outside (the smart location, a proxy): `"seat/1, sale/2"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supplies: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<RoleAsset>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<RuleAsset>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Role", deny_unknown_fields)]
pub struct RoleAsset {
    pub name: String,
    /// Kept as text so templated values (`$max`) work as in the workbook.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub min: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub max: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub flags: String,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Rule", deny_unknown_fields)]
pub struct RuleAsset {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub rule: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub role: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub state: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub precondition: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub action: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parameters: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub add: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub delete: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deferred_add: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub deferred_delete: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub on_error: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub next_state: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub terminate: String,
}
