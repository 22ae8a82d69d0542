//! Which cell a compiler diagnostic is about. Scripts compiled from `*.script.ron` carry byte
//! spans: the RON text is re-read with the compiler's forgiving locator to find which rule and
//! field (or role, or key) holds the span. Workbooks carry a sheet and cell, read in the
//! contract's layout (the one `export` writes): row 2 is the first rule, column A is Rule.

use crate::marks::{Marker, ron_field as field, span_within};
use crate::workbook::columns::Column;
use ensemble_compiler::diag::Diagnostic;
use ensemble_compiler::formats::locate::Node;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RoleField {
    Name,
    Min,
    Max,
    Flags,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Key {
    Name,
    InitialState,
    Base,
    Supplies,
    Param(usize),
}

/// Where in the script a diagnostic points.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Cell(usize, Column),
    /// A whole rule (its row).
    Row(usize),
    Role(usize, RoleField),
    Key(Key),
    /// The script as a whole, or somewhere the table has no place for.
    Script,
}

fn items(node: Option<&Node>) -> &[Node] {
    match node {
        Some(Node::Seq { items, .. }) => items,
        _ => &[],
    }
}

fn place_in_ron(tree: &Node, span: ensemble_compiler::source::Span) -> Place {
    let within = |n: &Node| span_within(span, n.span());
    for (i, rule) in items(field(tree, "rules")).iter().enumerate() {
        if !within(rule) {
            continue;
        }
        for c in Column::ALL {
            if field(rule, c.ron_field()).is_some_and(within) {
                return Place::Cell(i, c);
            }
        }
        return Place::Row(i);
    }
    for (i, role) in items(field(tree, "roles")).iter().enumerate() {
        if !within(role) {
            continue;
        }
        let f = [
            ("min", RoleField::Min),
            ("max", RoleField::Max),
            ("flags", RoleField::Flags),
        ]
        .into_iter()
        .find(|(name, _)| field(role, name).is_some_and(within))
        .map_or(RoleField::Name, |(_, f)| f);
        return Place::Role(i, f);
    }
    for (i, p) in items(field(tree, "params")).iter().enumerate() {
        if within(p) {
            return Place::Key(Key::Param(i));
        }
    }
    let keys = [
        ("name", Key::Name),
        ("initial_state", Key::InitialState),
        ("base", Key::Base),
        ("supplies", Key::Supplies),
    ];
    keys.into_iter()
        .find(|(name, _)| field(tree, name).is_some_and(within))
        .map_or(Place::Script, |(_, k)| Place::Key(k))
}

fn place_in_sheet(sheet: &str, cell: &str) -> Place {
    let Some((letters, row)) = crate::workbook::split_cell(cell) else {
        return Place::Script;
    };
    let Some(index) = row.checked_sub(2) else {
        return Place::Script;
    };
    match sheet {
        "Rules" => Column::of_letter(letters).map_or(Place::Row(index), |c| Place::Cell(index, c)),
        "Roles" => {
            let f = match letters {
                "B" => RoleField::Min,
                "C" => RoleField::Max,
                "D" => RoleField::Flags,
                _ => RoleField::Name,
            };
            Place::Role(index, f)
        }
        _ => Place::Script,
    }
}

/// Where `d` points, given the parsed RON text of the document (if it is RON).
pub fn place_of(d: &Diagnostic, tree: Option<&Node>) -> Place {
    if let (Some(sheet), Some(cell)) = (&d.sheet, &d.cell) {
        return place_in_sheet(sheet, cell);
    }
    match (tree, &d.primary) {
        (Some(tree), Some(label)) => place_in_ron(tree, label.span),
        _ => Place::Script,
    }
}

/// The markers of one compile, by place.
pub type Markers = crate::marks::Markers<Place>;

/// Every marker of rule `i`, on its row or any of its cells.
pub fn of_rule(markers: &Markers, i: usize) -> impl Iterator<Item = (Place, &Marker)> {
    markers
        .all()
        .filter(move |(p, _)| matches!(p, Place::Row(r) | Place::Cell(r, _) if *r == i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::diag::Code;
    use ensemble_compiler::formats::locate;
    use ensemble_compiler::source::{FileId, Span};

    const TEXT: &str = r#"Script(
    name: "t",
    params: [("$n", "2")],
    roles: [Role(name: "a", min: "1", max: "x")],
    rules: [
        Rule(rule: "1", state: "s", precondition: "p(X)"),
        Rule(state: "s", add: "q(Y)"),
    ],
)"#;

    fn at(needle: &str, nth: usize) -> Span {
        let start = TEXT.match_indices(needle).nth(nth).unwrap().0;
        Span::new(FileId(0), start..start + needle.len())
    }

    #[test]
    fn ron_spans_find_their_cell() {
        let tree = locate::parse(TEXT).unwrap();
        let d = |s: Span| Diagnostic::error(Code::Syntax, "x").at(s, "here");
        assert_eq!(
            place_of(&d(at("p(X)", 0)), Some(&tree)),
            Place::Cell(0, Column::Precondition)
        );
        assert_eq!(
            place_of(&d(at("Y", 0)), Some(&tree)),
            Place::Cell(1, Column::Add)
        );
        assert_eq!(
            place_of(&d(at("Rule(state", 0)), Some(&tree)),
            Place::Row(1)
        );
        assert_eq!(
            place_of(&d(at("\"x\"", 0)), Some(&tree)),
            Place::Role(0, RoleField::Max)
        );
        assert_eq!(
            place_of(&d(at("\"2\"", 0)), Some(&tree)),
            Place::Key(Key::Param(0))
        );
        assert_eq!(
            place_of(&d(at("\"t\"", 0)), Some(&tree)),
            Place::Key(Key::Name)
        );
    }

    #[test]
    fn workbook_cells_find_their_cell() {
        let d = |sheet: &str, cell: &str| {
            Diagnostic::error(Code::Syntax, "x").in_cell(FileId(0), sheet, cell)
        };
        assert_eq!(
            place_of(&d("Rules", "K6"), None),
            Place::Cell(4, Column::DeferredDelete)
        );
        assert_eq!(place_of(&d("Rules", "O1"), None), Place::Script);
        assert_eq!(
            place_of(&d("Roles", "C3"), None),
            Place::Role(1, RoleField::Max)
        );
        assert_eq!(place_of(&d("Script", "B2"), None), Place::Script);
    }
}
