//! The Excel contract of an interaction-script workbook, defined once: its sheets and, for each,
//! the columns in contract order with what they hold and whether the header must be there. The
//! workbook reader ([`super::xlsx`]), the writer ([`super::xlsx_write`]), the editor's rule grid
//! and the check of `docs/formats/script.md` all read these tables, so a column is renamed,
//! added or made optional here and nowhere else.

/// One column of a sheet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header as written (the reader matches it case-insensitively, spaces collapsed).
    pub header: &'static str,
    /// The field of the native `*.script.ron` asset that holds the same text, when there is one
    /// (the Script sheet's keys are fields of their own).
    pub field: Option<&'static str>,
    /// What a cell holds, in one line with an example: shown in the editor, kept beside the name.
    pub holds: &'static str,
    /// Whether the sheet must have this header (its cells may still be empty).
    pub required: bool,
}

/// One sheet: its name and its columns in contract order.
#[derive(Clone, Copy, Debug)]
pub struct Sheet {
    pub name: &'static str,
    pub columns: &'static [Column],
}

impl Sheet {
    /// The headers in contract order.
    pub fn headers(&self) -> impl Iterator<Item = &'static str> + use<> {
        self.columns.iter().map(|c| c.header)
    }

    /// The column a header names, matched as the reader matches it.
    pub fn column(&self, header: &str) -> Option<&'static Column> {
        let header = normalize(header);
        self.columns.iter().find(|c| normalize(c.header) == header)
    }
}

/// A header as the reader compares it: case-insensitive, runs of spaces as one.
pub fn normalize(header: &str) -> String {
    header
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

const fn column(
    header: &'static str,
    field: &'static str,
    required: bool,
    holds: &'static str,
) -> Column {
    Column {
        header,
        field: Some(field),
        holds,
        required,
    }
}

/// `Script`: Key | Value.
pub mod script {
    use super::{Column, Sheet};

    pub const KEY: Column = Column {
        header: "Key",
        field: None,
        holds: "`name`, `initial_state`, `base`, `supplies`, or a meta-parameter written `$name`.",
        required: true,
    };
    pub const VALUE: Column = Column {
        header: "Value",
        field: None,
        holds: "The key's value; a meta-parameter's value replaces `$name` in every cell.",
        required: true,
    };
    pub const COLUMNS: [Column; 2] = [KEY, VALUE];
    pub const SHEET: Sheet = Sheet {
        name: "Script",
        columns: &COLUMNS,
    };
}

/// `Roles`: Role | Min | Max | Flags.
pub mod roles {
    use super::{Column, Sheet, column};

    pub const ROLE: Column = column("Role", "name", true, "The role's name: `elder`.");
    pub const MIN: Column = column(
        "Min",
        "min",
        true,
        "How many actors it needs: `0`, `$seats`.",
    );
    pub const MAX: Column = column(
        "Max",
        "max",
        true,
        "How many actors it takes: `2`, `$seats`.",
    );
    pub const FLAGS: Column = column(
        "Flags",
        "flags",
        false,
        "Comma-separated: `dynamicJoin`, `leaveCommand=ACTION`.",
    );
    pub const COLUMNS: [Column; 4] = [ROLE, MIN, MAX, FLAGS];
    pub const SHEET: Sheet = Sheet {
        name: "Roles",
        columns: &COLUMNS,
    };
}

/// `Rules`: one rule per row, row order is precedence.
pub mod rules {
    use super::{Column, Sheet, column};

    pub const RULE: Column = column(
        "Rule",
        "rule",
        false,
        "A label for the rule, used in messages: `1`, `giveup`.",
    );
    pub const ROLE: Column = column(
        "Role",
        "role",
        true,
        "The role whose actors fire this rule; empty: every role.",
    );
    pub const STATE: Column = column(
        "State",
        "state",
        true,
        "The script state the rule belongs to; empty: every state.",
    );
    pub const PRECONDITION: Column = column(
        "Precondition",
        "precondition",
        true,
        "Literals separated by commas: `seat(X), not reserved(X, Y)`, `T < .now`, `.any(X)`.",
    );
    pub const ACTION: Column = column(
        "Action",
        "action",
        true,
        "A lower-case action name such as `sit`; empty: no action.",
    );
    pub const TARGET: Column = column(
        "Target",
        "target",
        false,
        "One term the action is aimed at: `X`, `.me`.",
    );
    pub const PARAMETERS: Column = column(
        "Parameters",
        "parameters",
        false,
        "`key=value` pairs separated by commas: `speed=1.5, anim='wave'`.",
    );
    pub const ADD: Column = column(
        "Add",
        "add",
        false,
        "Facts added at once: `reserved(X, .me)`.",
    );
    pub const DELETE: Column = column(
        "Delete",
        "delete",
        false,
        "Facts deleted at once; a free variable deletes every match: `timer(.me, T)`.",
    );
    pub const DEFERRED_ADD: Column = column(
        "Deferred Add",
        "deferred_add",
        false,
        "Facts added when the action succeeds: `timer(.me, .now + randf(2,5) * .minute)`.",
    );
    pub const DEFERRED_DELETE: Column = column(
        "Deferred Delete",
        "deferred_delete",
        false,
        "Facts deleted when the action succeeds: `talker(.me)`.",
    );
    pub const ON_ERROR: Column = column(
        "On Error",
        "on_error",
        false,
        "Facts added when the action fails: `sitfailed(.me)`.",
    );
    pub const NEXT_STATE: Column = column(
        "Next State",
        "next_state",
        false,
        "The state the actor moves to; empty: it stays.",
    );
    pub const TERMINATE: Column = column(
        "Terminate",
        "terminate",
        false,
        "Empty, `actor` (the actor leaves) or `script` (the script ends), once the action succeeds.",
    );
    pub const COLUMNS: [Column; 14] = [
        RULE,
        ROLE,
        STATE,
        PRECONDITION,
        ACTION,
        TARGET,
        PARAMETERS,
        ADD,
        DELETE,
        DEFERRED_ADD,
        DEFERRED_DELETE,
        ON_ERROR,
        NEXT_STATE,
        TERMINATE,
    ];
    pub const SHEET: Sheet = Sheet {
        name: "Rules",
        columns: &COLUMNS,
    };
}

/// The sheets of a workbook, in the order they are written.
pub const SHEETS: [Sheet; 3] = [script::SHEET, roles::SHEET, rules::SHEET];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::source::{RoleAsset, RuleAsset};

    /// Every column with a field names a field the native asset really has: a rule or role with
    /// every field set prints each of them.
    #[test]
    fn fields_are_the_native_assets_fields() {
        let rule = RuleAsset {
            rule: "x".into(),
            role: "x".into(),
            state: "x".into(),
            precondition: "x".into(),
            action: "x".into(),
            target: "x".into(),
            parameters: "x".into(),
            add: "x".into(),
            delete: "x".into(),
            deferred_add: "x".into(),
            deferred_delete: "x".into(),
            on_error: "x".into(),
            next_state: "x".into(),
            terminate: "x".into(),
        };
        let role = RoleAsset {
            name: "x".into(),
            min: "x".into(),
            max: "x".into(),
            flags: "x".into(),
        };
        for (sheet, printed) in [
            (rules::SHEET, ron::to_string(&rule).unwrap()),
            (roles::SHEET, ron::to_string(&role).unwrap()),
        ] {
            let fields: Vec<&str> = sheet.columns.iter().filter_map(|c| c.field).collect();
            assert_eq!(fields.len(), sheet.columns.len(), "{}", sheet.name);
            let printed_fields: Vec<&str> = printed
                .trim_start_matches(|c: char| c != '(')
                .trim_matches(|c| c == '(' || c == ')')
                .split(',')
                .map(|kv| kv.split(':').next().unwrap().trim())
                .collect();
            assert_eq!(fields, printed_fields, "{}", sheet.name);
        }
    }

    #[test]
    fn headers_are_unique_within_a_sheet() {
        for sheet in SHEETS {
            for (i, c) in sheet.columns.iter().enumerate() {
                assert_eq!(
                    sheet.column(c.header).map(|f| f.header),
                    Some(c.header),
                    "{}",
                    sheet.name
                );
                assert!(
                    sheet.columns[..i]
                        .iter()
                        .all(|d| normalize(d.header) != normalize(c.header)),
                    "{} repeats {}",
                    sheet.name,
                    c.header
                );
            }
        }
        assert_eq!(
            rules::SHEET.column("deferred  ADD"),
            Some(&rules::DEFERRED_ADD)
        );
    }
}
