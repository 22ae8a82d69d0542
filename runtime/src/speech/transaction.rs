//! Transactions: the side effects a conversation machine performs while it runs (Hewlett
//! §3.5.2: the seller hands over the ticket *inside* the Buy Ticket machine, so an interruption
//! after it cannot undo it and one before it cannot fake it).
//!
//! A `Transaction` state's modifier is one of
//! - `give NAME = VALUE` — the partner now has variable `NAME` with `VALUE`, whose `{Slot}`s are
//!   filled like a dialog state's (the agent's own variables first, then the partner's);
//! - `give NAME` — the agent's own `NAME` moves to the partner (the agent no longer has it);
//! - `take NAME` — the partner's `NAME` moves to the agent.
//!
//! The compiler parses modifiers with the same function, so what it checks is what runs.

/// Which way the variable moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// From the agent to its partner.
    Give,
    /// From the partner to the agent.
    Take,
}

/// A parsed `Transaction` modifier.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transaction<'a> {
    /// Which way the variable moves.
    pub direction: Direction,
    /// The variable's name.
    pub variable: &'a str,
    /// `give NAME = VALUE`: the value (with `{Slot}`s); `None` moves an existing value.
    pub value: Option<&'a str>,
}

impl Transaction<'_> {
    /// Whether an existing value moves (the giving side loses it), rather than the partner
    /// being given a new value.
    pub fn moves(&self) -> bool {
        self.value.is_none()
    }

    /// The slots of the value (`{CityName}` -> `CityName`), in order.
    pub fn slots(&self) -> Vec<&str> {
        self.value.map(slots).unwrap_or_default()
    }
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Parses a `Transaction` modifier; the error says what is wrong, for a diagnostic.
pub fn parse(text: &str) -> Result<Transaction<'_>, String> {
    let text = text.trim();
    let (verb, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
    let direction = match verb {
        "give" => Direction::Give,
        "take" => Direction::Take,
        _ => {
            return Err(format!(
                "a transaction starts with `give` or `take`, not `{verb}`"
            ));
        }
    };
    let (variable, value) = match rest.split_once('=') {
        Some((n, v)) => (n.trim(), Some(v.trim())),
        None => (rest.trim(), None),
    };
    if !is_name(variable) {
        return Err(format!(
            "`{verb}` must be followed by a variable name (letters, digits, `_`), not `{variable}`"
        ));
    }
    match (direction, value) {
        (_, Some("")) => Err(format!("`{variable} =` needs a value")),
        (Direction::Take, Some(_)) => Err(format!(
            "`take {variable}` moves the partner's value and takes no `= value`"
        )),
        (_, Some(v)) => {
            check_slots(v)?;
            Ok(Transaction {
                direction,
                variable,
                value: Some(v),
            })
        }
        (_, None) => Ok(Transaction {
            direction,
            variable,
            value: None,
        }),
    }
}

fn check_slots(value: &str) -> Result<(), String> {
    let mut rest = value;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(format!("`}}` without `{{` in `{value}`"));
        }
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("`{{` without `}}` in `{value}`"));
        };
        let name = &rest[open + 1..open + close];
        if !is_name(name) {
            return Err(format!("`{{{name}}}` is not a variable name"));
        }
        rest = &rest[open + close + 1..];
    }
    Ok(())
}

/// The `{Slot}` names of a value (assumes it passed [`parse`]).
pub fn slots(value: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(&rest[open + 1..open + close]);
        rest = &rest[open + close + 1..];
    }
    out
}

/// Fills a value's `{Slot}`s; returns the text and the slots that had no value (left as
/// written).
pub fn fill<'v>(value: &str, lookup: impl Fn(&str) -> Option<&'v str>) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut missing = Vec::new();
    let mut rest = value;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let name = &rest[open + 1..open + close];
        match lookup(name) {
            Some(v) => out.push_str(v),
            None => {
                missing.push(name.to_string());
                out.push_str(&rest[open..open + close + 1]);
            }
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    (out, missing)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_forms() {
        let t = parse("give Ticket = ticket to {CityName}").unwrap();
        assert_eq!(
            (t.direction, t.variable, t.value),
            (Direction::Give, "Ticket", Some("ticket to {CityName}"))
        );
        assert_eq!(t.slots(), ["CityName"]);
        assert!(!t.moves());
        let t = parse("  give   Money ").unwrap();
        assert_eq!(
            (t.direction, t.variable, t.value),
            (Direction::Give, "Money", None)
        );
        assert!(t.moves());
        let t = parse("take Payment").unwrap();
        assert_eq!(t.direction, Direction::Take);
    }

    #[test]
    fn mistakes_say_what_is_wrong() {
        for (text, needle) in [
            ("hand Ticket", "starts with `give` or `take`"),
            ("give", "followed by a variable name"),
            ("give Two Words", "followed by a variable name"),
            ("give Ticket =", "needs a value"),
            ("take Ticket = x", "takes no `= value`"),
            ("give Ticket = to {City", "without `}`"),
            ("give Ticket = to {Ci ty}", "not a variable name"),
            ("give Ticket = to City}", "without `{`"),
        ] {
            let e = parse(text).unwrap_err();
            assert!(e.contains(needle), "{text}: {e}");
        }
    }

    proptest::proptest! {
        /// Any modifier a designer may type parses or is refused with a message, never a
        /// panic; what parses fills without panicking, and a value whose slots are all bound
        /// leaves no brace behind.
        #[test]
        fn any_text_parses_or_is_refused(text in "(give|take|hand)? ?[A-Za-zé_ ]{0,8}(= ?[a-z{}é ]{0,12})?") {
            if let Ok(t) = parse(&text) {
                let value = t.value.unwrap_or("");
                let (filled, missing) = fill(value, |_| Some("x"));
                proptest::prop_assert!(missing.is_empty());
                let braces = filled.contains(['{', '}']);
                proptest::prop_assert!(!braces, "left braces in {:?}", filled);
                proptest::prop_assert_eq!(t.slots().len(), slots(value).len());
            }
        }
    }

    #[test]
    fn fill_uses_the_lookup_and_keeps_unbound_slots() {
        let (text, missing) = fill("ticket to {CityName} at {Time}", |n| {
            (n == "CityName").then_some("Boston")
        });
        assert_eq!(text, "ticket to Boston at {Time}");
        assert_eq!(missing, ["Time"]);
    }
}
