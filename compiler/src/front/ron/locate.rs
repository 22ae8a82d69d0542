//! Where values were written. A small, forgiving reader of RON structure that records the byte
//! range of every value, so diagnostics can point at `states[3].on[0]` precisely.
//!
//! It runs only on text `ron` has already accepted, and it never fails loudly: anything it does
//! not understand ends the walk, and callers fall back to the nearest enclosing value.

use std::ops::Range;

#[derive(Debug)]
pub enum Node {
    /// `Name(field: value, ...)`, `(field: value)` or a `{ key: value }` map.
    Struct {
        fields: Vec<(String, Node)>,
        span: Range<usize>,
    },
    /// `[a, b]`, `(a, b)` or `Name(a, b)` (including `Some(x)`).
    Seq {
        items: Vec<Node>,
        span: Range<usize>,
    },
    Scalar {
        span: Range<usize>,
    },
}

impl Node {
    pub fn span(&self) -> Range<usize> {
        match self {
            Node::Struct { span, .. } | Node::Seq { span, .. } | Node::Scalar { span } => {
                span.clone()
            }
        }
    }

    fn child(&self, seg: &Seg<'_>) -> Option<&Node> {
        match (self, seg) {
            (Node::Struct { fields, .. }, Seg::Field(f)) => {
                fields.iter().find(|(k, _)| k == f).map(|(_, n)| n)
            }
            (Node::Seq { items, .. }, Seg::Index(i)) => items.get(*i),
            (Node::Struct { fields, .. }, Seg::Entry(i)) => fields.get(*i).map(|(_, n)| n),
            // `Some(x)` wraps the value: look through it.
            (Node::Seq { items, .. }, Seg::Field(_)) if items.len() == 1 => items[0].child(seg),
            _ => None,
        }
    }

    /// The span at `path`, if every step of it exists.
    pub fn get(&self, path: &[Seg<'_>]) -> Option<Range<usize>> {
        let mut node = self;
        for seg in path {
            node = node.child(seg)?;
        }
        Some(node.span())
    }

    /// The span at `path`, or of the deepest value on the way that exists.
    pub fn find(&self, path: &[Seg<'_>]) -> Range<usize> {
        let mut node = self;
        for seg in path {
            match node.child(seg) {
                Some(n) => node = n,
                None => break,
            }
        }
        // A `Some(x)` value points at `x`.
        match node {
            Node::Seq { items, span } if items.len() == 1 && !span.is_empty() => items[0].span(),
            n => n.span(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub enum Seg<'a> {
    Field(&'a str),
    Index(usize),
    /// The value of the n-th field of a struct or map, in the order written (a map key given
    /// twice is two entries).
    Entry(usize),
}

/// An owned [`Seg`]: where a value sits, as tools keep it (the editor maps a diagnostic's span
/// back to the item it is about).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PathSeg {
    Field(String),
    Index(usize),
}

impl std::fmt::Display for PathSeg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PathSeg::Field(name) => write!(f, ".{name}"),
            PathSeg::Index(i) => write!(f, "[{i}]"),
        }
    }
}

impl Node {
    /// The path of the deepest value whose span holds all of `range` (empty: the whole
    /// document, or nothing holds it). The inverse of [`Node::find`].
    pub fn path_at(&self, range: Range<usize>) -> Vec<PathSeg> {
        let mut path = Vec::new();
        let mut node = self;
        'down: loop {
            match node {
                Node::Struct { fields, .. } => {
                    for (name, child) in fields {
                        if holds(&child.span(), &range) {
                            path.push(PathSeg::Field(name.clone()));
                            node = child;
                            continue 'down;
                        }
                    }
                }
                Node::Seq { items, .. } => {
                    for (i, child) in items.iter().enumerate() {
                        if holds(&child.span(), &range) {
                            path.push(PathSeg::Index(i));
                            node = child;
                            continue 'down;
                        }
                    }
                }
                Node::Scalar { .. } => {}
            }
            return path;
        }
    }
}

fn holds(outer: &Range<usize>, inner: &Range<usize>) -> bool {
    outer.start <= inner.start && inner.end <= outer.end && outer.start < outer.end
}

/// Reads the structure of a RON document; `None` if it cannot make sense of it.
pub fn parse(text: &str) -> Option<Node> {
    let mut r = Reader {
        s: text.as_bytes(),
        i: 0,
    };
    r.skip_trivia();
    // Inner attributes such as `#![enable(implicit_some)]`.
    while r.peek() == Some(b'#') {
        while r.peek().is_some_and(|c| c != b']') {
            r.i += 1;
        }
        r.i += 1;
        r.skip_trivia();
    }
    r.value(0)
}

struct Reader<'a> {
    s: &'a [u8],
    i: usize,
}

const MAX_DEPTH: usize = 128;

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn skip_trivia(&mut self) {
        loop {
            match self.peek() {
                Some(c) if c.is_ascii_whitespace() => self.i += 1,
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'/') => {
                    while self.peek().is_some_and(|c| c != b'\n') {
                        self.i += 1;
                    }
                }
                Some(b'/') if self.s.get(self.i + 1) == Some(&b'*') => {
                    let mut depth = 0;
                    while self.i < self.s.len() {
                        if self.s[self.i..].starts_with(b"/*") {
                            depth += 1;
                            self.i += 2;
                        } else if self.s[self.i..].starts_with(b"*/") {
                            depth -= 1;
                            self.i += 2;
                            if depth == 0 {
                                break;
                            }
                        } else {
                            self.i += 1;
                        }
                    }
                }
                _ => return,
            }
        }
    }

    fn ident(&mut self) -> Option<Range<usize>> {
        let start = self.i;
        if self.s[self.i..].starts_with(b"r#") {
            self.i += 2;
        }
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.i += 1;
        }
        (self.i > start).then_some(start..self.i)
    }

    fn string(&mut self) -> Option<()> {
        if self.peek() == Some(b'r') {
            // r#"..."#
            self.i += 1;
            let mut hashes = 0;
            while self.peek() == Some(b'#') {
                hashes += 1;
                self.i += 1;
            }
            self.i += 1; // opening quote
            loop {
                let c = self.peek()?;
                self.i += 1;
                if c == b'"'
                    && self.s[self.i..]
                        .iter()
                        .take(hashes)
                        .filter(|&&h| h == b'#')
                        .count()
                        == hashes
                {
                    self.i += hashes;
                    return Some(());
                }
            }
        }
        let quote = self.peek()?;
        self.i += 1;
        loop {
            match self.peek()? {
                b'\\' => self.i += 2,
                c if c == quote => {
                    self.i += 1;
                    return Some(());
                }
                _ => self.i += 1,
            }
        }
    }

    fn value(&mut self, depth: usize) -> Option<Node> {
        if depth > MAX_DEPTH {
            return None;
        }
        self.skip_trivia();
        let start = self.i;
        match self.peek()? {
            b'"' | b'\'' => {
                self.string()?;
                Some(Node::Scalar {
                    span: start..self.i,
                })
            }
            b'r' if matches!(self.s.get(self.i + 1), Some(b'"') | Some(b'#'))
                && self.s.get(self.i + 2) != Some(&b'a') =>
            {
                self.string()?;
                Some(Node::Scalar {
                    span: start..self.i,
                })
            }
            b'(' => self.group(start, depth),
            b'[' => {
                self.i += 1;
                let items = self.items(b']', depth)?;
                Some(Node::Seq {
                    items,
                    span: start..self.i,
                })
            }
            b'{' => {
                self.i += 1;
                let mut fields = Vec::new();
                loop {
                    self.skip_trivia();
                    if self.peek()? == b'}' {
                        self.i += 1;
                        break;
                    }
                    let key = self.value(depth + 1)?;
                    let key_text = String::from_utf8_lossy(&self.s[key.span()])
                        .trim_matches('"')
                        .to_string();
                    self.skip_trivia();
                    if self.peek()? != b':' {
                        return None;
                    }
                    self.i += 1;
                    let v = self.value(depth + 1)?;
                    fields.push((key_text, v));
                    self.skip_trivia();
                    if self.peek() == Some(b',') {
                        self.i += 1;
                    }
                }
                Some(Node::Struct {
                    fields,
                    span: start..self.i,
                })
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                self.ident()?;
                let after = self.i;
                self.skip_trivia();
                if self.peek() == Some(b'(') {
                    self.group(start, depth)
                } else {
                    self.i = after;
                    Some(Node::Scalar { span: start..after })
                }
            }
            _ => {
                // numbers and anything else scalar-like
                while self.peek().is_some_and(|c| {
                    c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-' | b'_')
                }) {
                    self.i += 1;
                }
                (self.i > start).then_some(Node::Scalar {
                    span: start..self.i,
                })
            }
        }
    }

    /// After an optional name, at `(`: a struct if it starts with `ident:`, else a tuple.
    fn group(&mut self, start: usize, depth: usize) -> Option<Node> {
        self.i += 1; // (
        self.skip_trivia();
        let save = self.i;
        let is_struct = self.ident().is_some() && {
            self.skip_trivia();
            self.peek() == Some(b':') && self.s.get(self.i + 1) != Some(&b':')
        };
        self.i = save;
        if !is_struct {
            let items = self.items(b')', depth)?;
            return Some(Node::Seq {
                items,
                span: start..self.i,
            });
        }
        let mut fields = Vec::new();
        loop {
            self.skip_trivia();
            if self.peek()? == b')' {
                self.i += 1;
                break;
            }
            let key = self.ident()?;
            let key = String::from_utf8_lossy(&self.s[key])
                .trim_start_matches("r#")
                .to_string();
            self.skip_trivia();
            if self.peek()? != b':' {
                return None;
            }
            self.i += 1;
            let v = self.value(depth + 1)?;
            fields.push((key, v));
            self.skip_trivia();
            if self.peek() == Some(b',') {
                self.i += 1;
            }
        }
        Some(Node::Struct {
            fields,
            span: start..self.i,
        })
    }

    fn items(&mut self, close: u8, depth: usize) -> Option<Vec<Node>> {
        let mut items = Vec::new();
        loop {
            self.skip_trivia();
            if self.peek()? == close {
                self.i += 1;
                return Some(items);
            }
            items.push(self.value(depth + 1)?);
            self.skip_trivia();
            if self.peek() == Some(b',') {
                self.i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = r#"// a machine
Machine(
    name: "M", /* inline */
    initial: Some("Start"),
    states: [
        (name: "Start", on: [("Empty", "Goto1")]),
        (name: "Goto1", modifier: "Here", on: [("ReachedLocation", "Start")]),
    ],
)
"#;

    fn at(path: &[Seg<'_>]) -> &'static str {
        let n = parse(TEXT).unwrap();
        &TEXT[n.find(path)]
    }

    #[test]
    fn finds_fields_items_and_tuple_members() {
        use Seg::*;
        assert_eq!(at(&[Field("name")]), "\"M\"");
        assert_eq!(at(&[Field("initial")]), "\"Start\"");
        assert_eq!(
            at(&[Field("states"), Index(1), Field("modifier")]),
            "\"Here\""
        );
        assert_eq!(
            at(&[Field("states"), Index(1), Field("on"), Index(0), Index(1)]),
            "\"Start\""
        );
        assert_eq!(
            at(&[Field("states"), Index(0), Field("on"), Index(0), Index(0)]),
            "\"Empty\""
        );
    }

    #[test]
    fn missing_paths_fall_back_to_the_nearest_value() {
        use Seg::*;
        assert!(at(&[Field("states"), Index(1), Field("code")]).starts_with("(name: \"Goto1\""));
    }

    #[test]
    fn path_at_finds_the_deepest_value_holding_a_span() {
        let n = parse(TEXT).unwrap();
        let at = |needle: &str| {
            let start = TEXT.find(needle).unwrap();
            n.path_at(start..start + needle.len())
                .iter()
                .map(|s| s.to_string())
                .collect::<String>()
        };
        assert_eq!(at("\"Here\""), ".states[1].modifier");
        assert_eq!(at("\"ReachedLocation\""), ".states[1].on[0][0]");
        assert_eq!(at("\"M\""), ".name");
        assert_eq!(at("Machine("), "");
    }

    #[test]
    fn garbage_does_not_panic() {
        for text in [
            "",
            "(",
            "Machine(name: ",
            "[[[[",
            "\"unterminated",
            "r#\"x",
            "{a: }",
            "/* open",
        ] {
            let _ = parse(text);
        }
    }
}
