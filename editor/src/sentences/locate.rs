//! Which sentence state (and which of its lines) a compiler diagnostic is about: the document's
//! RON text is re-read with the compiler's locator and the diagnostic's span is looked up in
//! `states[i]`; anything else concerns the file's ranking settings.

use crate::marks::{Marker, ron_field as field, span_within};
use ensemble_compiler::diag::{Diagnostic, Severity};
use ensemble_compiler::formats::locate::Node;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    Name,
    Verbs,
    Nouns,
    /// The state as a whole (or a part with no field of its own).
    Whole,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    State(usize, Field),
    /// The file's settings (`ngrams`, `keep`, ...), or the file as a whole.
    Settings,
}

pub fn place_of(d: &Diagnostic, tree: Option<&Node>) -> Place {
    let (Some(tree), Some(label)) = (tree, &d.primary) else {
        return Place::Settings;
    };
    let span = label.span;
    let Some(Node::Seq { items, .. }) = field(tree, "states") else {
        return Place::Settings;
    };
    for (i, state) in items.iter().enumerate() {
        if !span_within(span, state.span()) {
            continue;
        }
        let f = [
            ("name", Field::Name),
            ("verbs", Field::Verbs),
            ("nouns", Field::Nouns),
        ]
        .into_iter()
        .find(|(n, _)| field(state, n).is_some_and(|f| span_within(span, f.span())))
        .map_or(Field::Whole, |(_, f)| f);
        return Place::State(i, f);
    }
    Place::Settings
}

/// The markers of the last compile, by place.
pub type Markers = crate::marks::Markers<Place>;

/// Every marker of state `i`, whatever its field.
pub fn of_state(markers: &Markers, i: usize) -> impl Iterator<Item = &Marker> {
    markers
        .all()
        .filter(move |(p, _)| matches!(p, Place::State(s, _) if *s == i))
        .map(|(_, m)| m)
}

/// The worst severity on state `i` (errors first).
pub fn worst_of_state(markers: &Markers, i: usize) -> Option<Severity> {
    of_state(markers, i).map(|m| m.severity).min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::diag::Code;
    use ensemble_compiler::formats::locate;
    use ensemble_compiler::source::{FileId, Span};

    #[test]
    fn spans_find_their_state_and_line() {
        let text = r#"Sentences(keep: 0, states: [
    (name: "A", verbs: "be", nouns: "you"),
    (name: "B", verbs: "PAST", nouns: "I"),
])"#;
        let tree = locate::parse(text).unwrap();
        let at = |needle: &str| {
            let s = text.find(needle).unwrap();
            Diagnostic::error(Code::Syntax, "x").at(Span::new(FileId(0), s..s + needle.len()), "")
        };
        assert_eq!(
            place_of(&at("PAST"), Some(&tree)),
            Place::State(1, Field::Verbs)
        );
        assert_eq!(
            place_of(&at("\"A\""), Some(&tree)),
            Place::State(0, Field::Name)
        );
        assert_eq!(place_of(&at("keep: 0"), Some(&tree)), Place::Settings);
    }
}
