//! The columns of the rule table: exactly the Excel contract's `Rules` sheet, in its order,
//! each with the field of `RuleAsset` it edits and the syntax its cells are checked against.

use ensemble_compiler::formats::scripts::RuleAsset;
use ensemble_compiler::formats::scripts::{Column as ContractColumn, RULE_COLUMNS};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Column {
    Rule,
    Role,
    State,
    Precondition,
    Action,
    Target,
    Parameters,
    Add,
    Delete,
    DeferredAdd,
    DeferredDelete,
    OnError,
    NextState,
    Terminate,
}

/// What a cell holds, and so how it is checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// Free text (a rule's label).
    Label,
    /// A role of the script.
    Role,
    /// A state name.
    State,
    /// Literals separated by commas.
    Literals,
    /// A lower-case action name.
    Action,
    /// One term.
    Term,
    /// `key=value` pairs.
    Parameters,
    /// Atoms separated by commas.
    Atoms,
    /// Empty, `actor` or `script`.
    Terminate,
}

impl Column {
    pub const ALL: [Column; 14] = [
        Column::Rule,
        Column::Role,
        Column::State,
        Column::Precondition,
        Column::Action,
        Column::Target,
        Column::Parameters,
        Column::Add,
        Column::Delete,
        Column::DeferredAdd,
        Column::DeferredDelete,
        Column::OnError,
        Column::NextState,
        Column::Terminate,
    ];

    pub fn index(self) -> usize {
        self as usize
    }

    /// The contract's description of the column (header, field, what it holds).
    pub fn contract(self) -> &'static ContractColumn {
        &RULE_COLUMNS[self.index()]
    }

    /// The header, as the workbook writes it.
    pub fn header(self) -> &'static str {
        self.contract().header
    }

    /// The field's name in `*.script.ron`.
    pub fn ron_field(self) -> &'static str {
        // The contract's test checks every Rules column names a field of the rule asset.
        self.contract()
            .field
            .expect("every Rules column is a field of the rule asset")
    }

    pub fn syntax(self) -> Syntax {
        match self {
            Column::Rule => Syntax::Label,
            Column::Role => Syntax::Role,
            Column::State | Column::NextState => Syntax::State,
            Column::Precondition => Syntax::Literals,
            Column::Action => Syntax::Action,
            Column::Target => Syntax::Term,
            Column::Parameters => Syntax::Parameters,
            Column::Add
            | Column::Delete
            | Column::DeferredAdd
            | Column::DeferredDelete
            | Column::OnError => Syntax::Atoms,
            Column::Terminate => Syntax::Terminate,
        }
    }

    /// Whether the cell holds cell syntax (shown in a monospace font).
    pub fn is_code(self) -> bool {
        matches!(
            self.syntax(),
            Syntax::Literals | Syntax::Term | Syntax::Parameters | Syntax::Atoms
        )
    }

    /// A starting width in points.
    pub fn default_width(self) -> f32 {
        match self {
            Column::Rule => 64.0,
            Column::Role | Column::Action | Column::Target | Column::Terminate => 92.0,
            Column::State | Column::NextState => 100.0,
            Column::Precondition => 260.0,
            Column::Add | Column::Delete | Column::DeferredAdd => 190.0,
            Column::DeferredDelete | Column::OnError | Column::Parameters => 150.0,
        }
    }

    /// A one-line reminder of what goes in the cell, with an example from the seed's bench.
    pub fn help(self) -> &'static str {
        self.contract().holds
    }

    pub fn get(self, r: &RuleAsset) -> &String {
        match self {
            Column::Rule => &r.rule,
            Column::Role => &r.role,
            Column::State => &r.state,
            Column::Precondition => &r.precondition,
            Column::Action => &r.action,
            Column::Target => &r.target,
            Column::Parameters => &r.parameters,
            Column::Add => &r.add,
            Column::Delete => &r.delete,
            Column::DeferredAdd => &r.deferred_add,
            Column::DeferredDelete => &r.deferred_delete,
            Column::OnError => &r.on_error,
            Column::NextState => &r.next_state,
            Column::Terminate => &r.terminate,
        }
    }

    pub fn get_mut(self, r: &mut RuleAsset) -> &mut String {
        match self {
            Column::Rule => &mut r.rule,
            Column::Role => &mut r.role,
            Column::State => &mut r.state,
            Column::Precondition => &mut r.precondition,
            Column::Action => &mut r.action,
            Column::Target => &mut r.target,
            Column::Parameters => &mut r.parameters,
            Column::Add => &mut r.add,
            Column::Delete => &mut r.delete,
            Column::DeferredAdd => &mut r.deferred_add,
            Column::DeferredDelete => &mut r.deferred_delete,
            Column::OnError => &mut r.on_error,
            Column::NextState => &mut r.next_state,
            Column::Terminate => &mut r.terminate,
        }
    }

    /// The column of a workbook's `Rules` sheet laid out as the contract (and the export) does.
    pub fn of_letter(letters: &str) -> Option<Column> {
        let index = letters.bytes().try_fold(0usize, |acc, b| {
            b.is_ascii_alphabetic()
                .then(|| acc * 26 + (b.to_ascii_uppercase() - b'A' + 1) as usize)
        })?;
        Column::ALL.get(index.checked_sub(1)?).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_follow_the_contract() {
        assert_eq!(Column::ALL.len(), RULE_COLUMNS.len());
        for (i, c) in Column::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
        // Each variant is the contract column of its name (the grid's cells edit that field).
        let names: Vec<String> = Column::ALL
            .iter()
            .map(|c| format!("{c:?}").to_lowercase())
            .collect();
        let headers: Vec<String> = RULE_COLUMNS
            .iter()
            .map(|c| c.header.replace(' ', "").to_lowercase())
            .collect();
        assert_eq!(names, headers);
        let mut r = RuleAsset::default();
        for c in Column::ALL {
            *c.get_mut(&mut r) = c.ron_field().to_string();
        }
        let printed = ron::to_string(&r).unwrap();
        for c in Column::ALL {
            assert!(
                printed.contains(&format!("{}:\"{}\"", c.ron_field(), c.ron_field())),
                "{printed}"
            );
        }
        assert_eq!(Column::of_letter("D"), Some(Column::Precondition));
        assert_eq!(Column::of_letter("K"), Some(Column::DeferredDelete));
        assert_eq!(Column::of_letter("O"), None);
        assert_eq!(Column::of_letter("AA"), None);
    }

    #[test]
    fn get_and_get_mut_agree() {
        let mut r = RuleAsset::default();
        for (i, c) in Column::ALL.iter().enumerate() {
            *c.get_mut(&mut r) = format!("{i}");
        }
        for (i, c) in Column::ALL.iter().enumerate() {
            assert_eq!(c.get(&r), &format!("{i}"));
        }
    }
}
