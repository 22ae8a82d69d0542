//! The canonical printer: the bytes the editor saves (and `ensemble import` writes). The same
//! content always prints as the same bytes, and a one-item change is a one-line diff.
//!
//! Layout (docs/formats/README.md, "How the editor writes assets"):
//! - the asset is `Name(` with one field per line, indented four spaces;
//! - a field holding a list (or map) of compound items gets one item per line, the item itself
//!   written inline (`(name: "Start", on: [("Empty", "Goto1")])`) — one state per line;
//! - items of the kinds in [`EXPANDED`] (the rule-table rows of scripts) get one field per line
//!   instead, so a change to one cell is a one-line diff;
//! - everything else is inline; `Some(x)` is written `x`; floats always carry a decimal point;
//!   an inline struct carries its name only when its type names itself (`Proxy(...)`; the
//!   `...Asset` shapes are bare).
//!
//! Comments are content: [`Comments::of`] lifts the comments of a file off its text and attaches
//! each block to the item or field that follows it — items by *name* (the text of their first
//! field), fields by field name — so they survive reordering and edits, and [`Comments::rename`]
//! keeps them on a renamed item. A comment written inside an inline item moves to just before
//! the item; a comment at the end of a line moves to the line that follows.

use super::locate::{self, Node};
use serde::Serialize;
use serde::ser;
use std::collections::HashMap;
use std::fmt::Write;

/// Struct names written one field per line when they are items of a list: the rule-table rows
/// of scripts, and content tests (each with its list of expectations).
pub const EXPANDED: [&str; 3] = ["Role", "Rule", "Test"];

const INDENT: &str = "    ";

/// Prints `value` in the canonical layout with `comments` in place. Assets always serialise;
/// a value that does not (a map with non-string keys in a hand-made type) prints as `()`.
pub fn print<T: Serialize + ?Sized>(value: &T, comments: &Comments) -> String {
    let tree = value.serialize(Tree).unwrap_or(V::Unit);
    let mut p = Printer {
        out: String::new(),
        comments,
    };
    p.block(&Anchor::Header, 0);
    p.top(&tree);
    p.block(&Anchor::Footer, 0);
    p.out
}

/// [`print`] without comments: what `ensemble import` writes.
pub fn print_plain<T: Serialize + ?Sized>(value: &T) -> String {
    print(value, &Comments::default())
}

// ---------------------------------------------------------------------------------------------
// Comments

/// One step of an anchor's path: a field, or a list item by its name and occurrence.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seg {
    Field(String),
    /// The item's name as written (the literal of its first field, `"Start"`), and which
    /// occurrence of that name it is; items without a name use their index as the name.
    Item(String, usize),
}

/// Where a comment block sits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Anchor {
    /// Before the asset.
    Header,
    /// After the asset.
    Footer,
    /// Before the field or item at this path.
    Before(Vec<Seg>),
    /// Before the closing bracket of the list or struct at this path.
    End(Vec<Seg>),
}

/// A comment block: its lines as written (without indentation), and whether a blank line
/// separated it from what came before.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block {
    pub blank_before: bool,
    pub lines: Vec<String>,
}

/// Every comment of an asset, by anchor.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comments {
    blocks: HashMap<Anchor, Block>,
}

impl Comments {
    /// The comments of `text`. Text that does not read as RON keeps only its leading comments.
    pub fn of(text: &str) -> Comments {
        let mut c = Comments::default();
        let Some(tree) = locate::parse(text) else {
            c.put(Anchor::Header, gap_block(text, false));
            return c;
        };
        let top = tree.span();
        c.put(Anchor::Header, gap_block(&text[..top.start], false));
        c.put(Anchor::Footer, gap_block(&text[top.end..], false));
        if let Node::Struct { fields, span } = &tree {
            let open = text[span.clone()]
                .find('(')
                .map_or(span.start, |i| span.start + i + 1);
            c.fields(text, fields, open, span.end - 1, &[]);
        }
        c
    }

    fn put(&mut self, anchor: Anchor, block: Block) {
        if block.lines.is_empty() && !block.blank_before {
            return;
        }
        match self.blocks.get_mut(&anchor) {
            Some(b) => b.lines.extend(block.lines),
            None => {
                self.blocks.insert(anchor, block);
            }
        }
    }

    /// The fields of a struct printed one per line: `from` is just after its `(`, `close` at its `)`.
    fn fields(
        &mut self,
        text: &str,
        fields: &[(String, Node)],
        mut from: usize,
        close: usize,
        path: &[Seg],
    ) {
        for (name, value) in fields {
            let span = value.span();
            let mut here = path.to_vec();
            here.push(Seg::Field(name.clone()));
            let key = key_start(text, from, span.start);
            self.put(
                Anchor::Before(here.clone()),
                gap_block(&text[from..key], true),
            );
            self.value(text, value, &here);
            from = span.end;
        }
        self.put(
            Anchor::End(path.to_vec()),
            gap_block(&text[from.min(close)..close], true),
        );
    }

    /// A field's value: a list of compound items is one item per line; anything else is inline.
    fn value(&mut self, text: &str, value: &Node, path: &[Seg]) {
        let span = value.span();
        let is_map = matches!(value, Node::Struct { .. }) && text[span.clone()].starts_with('{');
        let items: Vec<&Node> = match value {
            Node::Seq { items, .. } if text[span.clone()].starts_with('[') => {
                items.iter().collect()
            }
            Node::Struct { fields, .. } if is_map => fields.iter().map(|(_, v)| v).collect(),
            _ => Vec::new(),
        };
        let block = !items.is_empty() && items.iter().any(|n| !matches!(n, Node::Scalar { .. }));
        if !block {
            self.inline(text, span, path);
            return;
        }
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut from = span.start + 1;
        for (i, item) in items.iter().enumerate() {
            // A map entry starts at its key, and is named by it.
            let item_span = if is_map {
                key_start(text, from, item.span().start)
            } else {
                item.span().start
            };
            let name = if is_map {
                let key = &text[item_span..item.span().start];
                Some(
                    key[..key.rfind(':').unwrap_or(key.len())]
                        .trim()
                        .to_string(),
                )
            } else {
                item_name(text, item)
            };
            let name = name.unwrap_or_else(|| i.to_string());
            let n = seen.entry(name.clone()).or_default();
            let mut here = path.to_vec();
            here.push(Seg::Item(name, *n));
            *n += 1;
            self.put(
                Anchor::Before(here.clone()),
                gap_block(&text[from..item_span], true),
            );
            let item_end = item.span().end;
            match item {
                Node::Struct {
                    fields,
                    span: item_full,
                } if is_expanded(&text[item_full.clone()]) => {
                    let open = text[item_full.clone()]
                        .find('(')
                        .map_or(item_full.start, |i| item_full.start + i + 1);
                    self.fields(text, fields, open, item_full.end - 1, &here);
                }
                _ => self.inline(text, item_span..item_end, &here),
            }
            from = item_end;
        }
        let close = span.end.saturating_sub(1).max(from);
        self.put(
            Anchor::End(path.to_vec()),
            gap_block(&text[from..close], true),
        );
    }

    /// Comments inside something printed on one line move to just before it.
    fn inline(&mut self, text: &str, span: std::ops::Range<usize>, path: &[Seg]) {
        let lines = comments_in(&text[span]);
        if !lines.is_empty() {
            self.put(
                Anchor::Before(path.to_vec()),
                Block {
                    blank_before: false,
                    lines,
                },
            );
        }
    }

    /// Keeps the comments of the item `old` of the list at `list` on it under its new name.
    /// Names are item-name literals as [`item_literal`] writes them.
    pub fn rename(&mut self, list: &[Seg], old: &str, new: &str) {
        let moved: Vec<(Anchor, Block)> = self
            .blocks
            .iter()
            .filter_map(|(a, b)| {
                let renamed = rename_anchor(a, list, old, new)?;
                Some((renamed, b.clone()))
            })
            .collect();
        if moved.is_empty() {
            return;
        }
        self.blocks
            .retain(|a, _| rename_anchor(a, list, old, new).is_none());
        for (a, b) in moved {
            self.blocks.insert(a, b);
        }
    }

    pub fn get(&self, anchor: &Anchor) -> Option<&Block> {
        self.blocks.get(anchor)
    }

    /// Sets (or with no lines, removes) the block at `anchor`.
    pub fn set(&mut self, anchor: Anchor, block: Block) {
        if block.lines.is_empty() {
            self.blocks.remove(&anchor);
        } else {
            self.blocks.insert(anchor, block);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

fn rename_anchor(a: &Anchor, list: &[Seg], old: &str, new: &str) -> Option<Anchor> {
    let path = match a {
        Anchor::Before(p) | Anchor::End(p) => p,
        _ => return None,
    };
    if path.len() <= list.len() || path[..list.len()] != *list {
        return None;
    }
    let Seg::Item(name, n) = &path[list.len()] else {
        return None;
    };
    if name != old {
        return None;
    }
    let mut p = path.clone();
    p[list.len()] = Seg::Item(new.to_string(), *n);
    Some(match a {
        Anchor::Before(_) => Anchor::Before(p),
        _ => Anchor::End(p),
    })
}

/// The literal naming an item: its first field (or element) when that is a string or number.
fn item_name(text: &str, item: &Node) -> Option<String> {
    let first = match item {
        Node::Struct { fields, .. } => &fields.first()?.1,
        Node::Seq { items, .. } => items.first()?,
        Node::Scalar { .. } => item,
    };
    match first {
        Node::Scalar { span } => Some(text[span.clone()].to_string()),
        _ => None,
    }
}

/// Whether an item's text starts with the name of an [`EXPANDED`] struct.
fn is_expanded(item: &str) -> bool {
    let name: String = item
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    EXPANDED.contains(&name.as_str())
}

/// Where a map entry's key starts, scanning back from its value over `key:`.
fn key_start(text: &str, from: usize, value_start: usize) -> usize {
    let gap = &text[from..value_start];
    let Some(colon) = gap.rfind(':') else {
        return value_start;
    };
    let before = gap[..colon].trim_end();
    let key_end = from + before.len();
    let bytes = text.as_bytes();
    if before.ends_with('"') {
        // A quoted key: back to its opening quote.
        let mut i = key_end - 1;
        while i > from {
            i -= 1;
            if bytes[i] == b'"' && (i == 0 || bytes[i - 1] != b'\\') {
                return i;
            }
        }
        return from;
    }
    let mut i = key_end;
    while i > from
        && (bytes[i - 1].is_ascii_alphanumeric() || matches!(bytes[i - 1], b'_' | b'.' | b'-'))
    {
        i -= 1;
    }
    i
}

/// The comment lines in `gap` (text between two values: punctuation, keys, comments), and
/// whether a blank line came before the first of them (only asked for where it can print).
fn gap_block(gap: &str, may_blank: bool) -> Block {
    let lines = comments_in(gap);
    let blank_before = may_blank && {
        // A blank line between the previous value's `,` and the first comment; one right after
        // an opening bracket is not kept.
        let head = &gap[..first_comment(gap).unwrap_or(gap.len())];
        let segments: Vec<&str> = head.split('\n').collect();
        segments.len() > 2
            && !segments[0].trim().is_empty()
            && segments[1..segments.len() - 1]
                .iter()
                .any(|l| l.trim().is_empty())
    };
    Block {
        blank_before: blank_before && !lines.is_empty(),
        lines,
    }
}

fn first_comment(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut quote = None;
    while i < b.len() {
        match (quote, b[i]) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), b'\\') => i += 1,
            (Some(_), _) => {}
            (None, b'"') => quote = Some(b'"'),
            (None, b'/') if matches!(b.get(i + 1), Some(b'/') | Some(b'*')) => return Some(i),
            _ => {}
        }
        i += 1;
    }
    None
}

/// Every comment in `text` (skipping strings), one entry per line, indentation removed.
fn comments_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = first_comment(rest) {
        let tail = &rest[at..];
        if tail.starts_with("//") {
            let end = tail.find('\n').unwrap_or(tail.len());
            out.push(tail[..end].trim_end().to_string());
            rest = &tail[end..];
        } else {
            let end = block_comment_end(tail);
            out.extend(tail[..end].lines().map(|l| l.trim().to_string()));
            rest = &tail[end..];
        }
    }
    out
}

/// The length of the `/* ... */` comment (nested) at the start of `text`.
fn block_comment_end(text: &str) -> usize {
    let b = text.as_bytes();
    let (mut depth, mut i) = (0, 0);
    while i < b.len() {
        if b[i..].starts_with(b"/*") {
            depth += 1;
            i += 2;
        } else if b[i..].starts_with(b"*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

// ---------------------------------------------------------------------------------------------
// Printing

struct Printer<'a> {
    out: String,
    comments: &'a Comments,
}

impl Printer<'_> {
    fn block(&mut self, anchor: &Anchor, indent: usize) {
        let Some(b) = self.comments.get(anchor) else {
            return;
        };
        if b.blank_before {
            self.out.push('\n');
        }
        for line in &b.lines {
            self.pad(indent);
            self.out.push_str(line);
            self.out.push('\n');
        }
    }

    fn pad(&mut self, indent: usize) {
        for _ in 0..indent {
            self.out.push_str(INDENT);
        }
    }

    fn top(&mut self, v: &V) {
        match v {
            V::Struct { name, fields } => {
                self.expanded(name, fields, 0, &[]);
                self.out.push('\n');
            }
            other => {
                inline(&mut self.out, other);
                self.out.push('\n');
            }
        }
    }

    /// `Name(` + one field per line + `)`, the opening at the current position.
    fn expanded(&mut self, name: &str, fields: &[(&'static str, V)], indent: usize, path: &[Seg]) {
        self.out.push_str(name);
        self.out.push_str("(\n");
        for (field, value) in fields {
            let mut here = path.to_vec();
            here.push(Seg::Field(field.to_string()));
            self.block(&Anchor::Before(here.clone()), indent + 1);
            self.pad(indent + 1);
            self.out.push_str(field);
            self.out.push_str(": ");
            self.field_value(value, indent + 1, &here);
            self.out.push_str(",\n");
        }
        self.block(&Anchor::End(path.to_vec()), indent + 1);
        self.pad(indent);
        self.out.push(')');
    }

    fn field_value(&mut self, v: &V, indent: usize, path: &[Seg]) {
        let (open, close, items): (char, char, Vec<(Option<&V>, &V)>) = match v {
            V::Seq(items) => ('[', ']', items.iter().map(|i| (None, i)).collect()),
            V::Map(entries) => (
                '{',
                '}',
                entries.iter().map(|(k, v)| (Some(k), v)).collect(),
            ),
            _ => return inline(&mut self.out, v),
        };
        if items.is_empty() || items.iter().all(|(_, v)| v.is_scalar()) {
            return inline(&mut self.out, v);
        }
        self.out.push(open);
        self.out.push('\n');
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, (key, item)) in items.into_iter().enumerate() {
            let name = match key {
                Some(k) => literal(k),
                None => item.name().unwrap_or_else(|| i.to_string()),
            };
            let n = seen.entry(name.clone()).or_default();
            let mut here = path.to_vec();
            here.push(Seg::Item(name, *n));
            *n += 1;
            self.block(&Anchor::Before(here.clone()), indent + 1);
            self.pad(indent + 1);
            if let Some(k) = key {
                inline(&mut self.out, k);
                self.out.push_str(": ");
            }
            match item {
                V::Struct { name, fields } if key.is_none() && EXPANDED.contains(name) => {
                    self.expanded(name, fields, indent + 1, &here);
                }
                _ => inline(&mut self.out, item),
            }
            self.out.push_str(",\n");
        }
        self.block(&Anchor::End(path.to_vec()), indent + 1);
        self.pad(indent);
        self.out.push(close);
    }
}

/// The literal naming an item, as [`Comments::of`] reads it back: the first field's text.
pub fn item_literal(first_field: &str) -> String {
    literal(&V::Str(first_field.to_string()))
}

fn literal(v: &V) -> String {
    let mut s = String::new();
    inline(&mut s, v);
    s
}

fn inline(out: &mut String, v: &V) {
    match v {
        V::Unit => out.push_str("()"),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Num(n) => out.push_str(n),
        V::Str(s) => string(out, s),
        V::Char(c) => {
            out.push('\'');
            match c {
                '\'' => out.push_str("\\'"),
                '\\' => out.push_str("\\\\"),
                c => out.push(*c),
            }
            out.push('\'');
        }
        V::None => out.push_str("None"),
        V::Seq(items) => list(out, '[', ']', items),
        V::Tuple(items) => list(out, '(', ')', items),
        V::Map(entries) => {
            out.push('{');
            for (i, (k, v)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                inline(out, k);
                out.push_str(": ");
                inline(out, v);
            }
            out.push('}');
        }
        V::Struct { name, fields } => {
            // Types that name themselves (`Proxy`, `Player`) keep their name; the plain serde
            // shapes (`StateAsset`, ...) are written bare, as `(name: ..., ...)`.
            if !name.ends_with("Asset") {
                out.push_str(name);
            }
            struct_fields(out, fields)
        }
        V::Variant { name, body } => {
            out.push_str(name);
            match body {
                Body::Unit => {}
                Body::Newtype(v) => {
                    out.push('(');
                    inline(out, v);
                    out.push(')');
                }
                Body::Tuple(items) => list(out, '(', ')', items),
                Body::Struct(fields) => struct_fields(out, fields),
            }
        }
    }
}

fn list(out: &mut String, open: char, close: char, items: &[V]) {
    out.push(open);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        inline(out, item);
    }
    out.push(close);
}

fn struct_fields(out: &mut String, fields: &[(&'static str, V)]) {
    out.push('(');
    for (i, (name, v)) in fields.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
        out.push_str(": ");
        inline(out, v);
    }
    out.push(')');
}

fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn float(x: f64) -> String {
    if x.is_nan() {
        "NaN".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if x.fract() == 0.0 && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        // Shortest text that reads back as the same number.
        format!("{x}")
    }
}

// ---------------------------------------------------------------------------------------------
// The value tree, made by serde

/// A serialised value, before layout.
#[derive(Clone, Debug, PartialEq)]
enum V {
    Unit,
    Bool(bool),
    Num(String),
    Str(String),
    Char(char),
    None,
    Seq(Vec<V>),
    Tuple(Vec<V>),
    Map(Vec<(V, V)>),
    Struct {
        name: &'static str,
        fields: Vec<(&'static str, V)>,
    },
    Variant {
        name: &'static str,
        body: Body,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Body {
    Unit,
    Newtype(Box<V>),
    Tuple(Vec<V>),
    Struct(Vec<(&'static str, V)>),
}

impl V {
    fn is_scalar(&self) -> bool {
        matches!(
            self,
            V::Unit | V::Bool(_) | V::Num(_) | V::Str(_) | V::Char(_) | V::None
        ) || matches!(
            self,
            V::Variant {
                body: Body::Unit,
                ..
            }
        )
    }

    /// The literal of the first field or element, naming an item for comments.
    fn name(&self) -> Option<String> {
        let first = match self {
            V::Struct { fields, .. } => &fields.first()?.1,
            V::Tuple(items) | V::Seq(items) => items.first()?,
            V::Variant {
                body: Body::Struct(fields),
                ..
            } => &fields.first()?.1,
            V::Variant {
                body: Body::Tuple(items),
                ..
            } => items.first()?,
            V::Variant {
                body: Body::Newtype(v),
                ..
            } => v,
            v => v,
        };
        first.is_scalar().then(|| literal(first))
    }
}

#[derive(Debug)]
struct Error(String);

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl ser::Error for Error {
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error(msg.to_string())
    }
}

/// The serializer building a [`V`].
struct Tree;

/// Integers print as Rust writes them.
macro_rules! integers {
    ($($method:ident: $ty:ty),* $(,)?) => {
        $(
            fn $method(self, v: $ty) -> Result<V, Error> {
                Ok(V::Num(v.to_string()))
            }
        )*
    };
}

struct SeqB(Vec<V>, bool);
struct MapB(Vec<(V, V)>, Option<V>);
struct StructB(&'static str, Vec<(&'static str, V)>, Option<&'static str>);
struct VariantTupleB(&'static str, Vec<V>);

impl ser::Serializer for Tree {
    type Ok = V;
    type Error = Error;
    type SerializeSeq = SeqB;
    type SerializeTuple = SeqB;
    type SerializeTupleStruct = SeqB;
    type SerializeTupleVariant = VariantTupleB;
    type SerializeMap = MapB;
    type SerializeStruct = StructB;
    type SerializeStructVariant = StructB;

    fn serialize_bool(self, v: bool) -> Result<V, Error> {
        Ok(V::Bool(v))
    }
    integers!(
        serialize_i8: i8,
        serialize_i16: i16,
        serialize_i32: i32,
        serialize_i64: i64,
        serialize_u8: u8,
        serialize_u16: u16,
        serialize_u32: u32,
        serialize_u64: u64,
    );
    fn serialize_f32(self, v: f32) -> Result<V, Error> {
        Ok(V::Num(float(f64::from(v))))
    }
    fn serialize_f64(self, v: f64) -> Result<V, Error> {
        Ok(V::Num(float(v)))
    }
    fn serialize_char(self, v: char) -> Result<V, Error> {
        Ok(V::Char(v))
    }
    fn serialize_str(self, v: &str) -> Result<V, Error> {
        Ok(V::Str(v.to_string()))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<V, Error> {
        Ok(V::Seq(v.iter().map(|b| V::Num(b.to_string())).collect()))
    }
    fn serialize_none(self) -> Result<V, Error> {
        Ok(V::None)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<V, Error> {
        // Written without `Some(..)`: assets are read with `implicit_some`.
        value.serialize(Tree)
    }
    fn serialize_unit(self) -> Result<V, Error> {
        Ok(V::Unit)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<V, Error> {
        Ok(V::Unit)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<V, Error> {
        Ok(V::Variant {
            name: variant,
            body: Body::Unit,
        })
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<V, Error> {
        value.serialize(Tree)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<V, Error> {
        Ok(V::Variant {
            name: variant,
            body: Body::Newtype(Box::new(value.serialize(Tree)?)),
        })
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<SeqB, Error> {
        Ok(SeqB(Vec::with_capacity(len.unwrap_or(0)), false))
    }
    fn serialize_tuple(self, len: usize) -> Result<SeqB, Error> {
        Ok(SeqB(Vec::with_capacity(len), true))
    }
    fn serialize_tuple_struct(self, _name: &'static str, len: usize) -> Result<SeqB, Error> {
        Ok(SeqB(Vec::with_capacity(len), true))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<VariantTupleB, Error> {
        Ok(VariantTupleB(variant, Vec::with_capacity(len)))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<MapB, Error> {
        Ok(MapB(Vec::with_capacity(len.unwrap_or(0)), None))
    }
    fn serialize_struct(self, name: &'static str, len: usize) -> Result<StructB, Error> {
        Ok(StructB(name, Vec::with_capacity(len), None))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<StructB, Error> {
        Ok(StructB(variant, Vec::with_capacity(len), Some(variant)))
    }
}

impl ser::SerializeSeq for SeqB {
    type Ok = V;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.0.push(value.serialize(Tree)?);
        Ok(())
    }
    fn end(self) -> Result<V, Error> {
        Ok(if self.1 {
            V::Tuple(self.0)
        } else {
            V::Seq(self.0)
        })
    }
}

impl ser::SerializeTuple for SeqB {
    type Ok = V;
    type Error = Error;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<V, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleStruct for SeqB {
    type Ok = V;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        ser::SerializeSeq::serialize_element(self, value)
    }
    fn end(self) -> Result<V, Error> {
        ser::SerializeSeq::end(self)
    }
}

impl ser::SerializeTupleVariant for VariantTupleB {
    type Ok = V;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        self.1.push(value.serialize(Tree)?);
        Ok(())
    }
    fn end(self) -> Result<V, Error> {
        Ok(V::Variant {
            name: self.0,
            body: Body::Tuple(self.1),
        })
    }
}

impl ser::SerializeMap for MapB {
    type Ok = V;
    type Error = Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Error> {
        self.1 = Some(key.serialize(Tree)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Error> {
        let key = self
            .1
            .take()
            .ok_or_else(|| Error("map value without a key".to_string()))?;
        self.0.push((key, value.serialize(Tree)?));
        Ok(())
    }
    fn end(self) -> Result<V, Error> {
        Ok(V::Map(self.0))
    }
}

impl ser::SerializeStruct for StructB {
    type Ok = V;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        self.1.push((key, value.serialize(Tree)?));
        Ok(())
    }
    fn end(self) -> Result<V, Error> {
        Ok(match self.2 {
            Some(variant) => V::Variant {
                name: variant,
                body: Body::Struct(self.1),
            },
            None => V::Struct {
                name: self.0,
                fields: self.1,
            },
        })
    }
}

impl ser::SerializeStructVariant for StructB {
    type Ok = V;
    type Error = Error;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        ser::SerializeStruct::serialize_field(self, key, value)
    }
    fn end(self) -> Result<V, Error> {
        ser::SerializeStruct::end(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::ron::any::{AnyAsset, FileKind};
    use crate::front::ron::assets::{MachineAsset, StateAsset};

    const MACHINE: &str = r#"// A header.
Machine(
    name: "M",
    // The entry.
    initial: "Start",
    states: [
        // Begins.
        (name: "Start", on: [("Empty", "Walk")]),

        // Walks, then ends.
        (name: "Walk", code: "Goto", modifier: "Gate", on: [("ReachedLocation", "Finish")]),
        (name: "Finish"),
        // Trailing note.
    ],
)
// Footer.
"#;

    fn machine(text: &str) -> MachineAsset {
        match AnyAsset::parse(FileKind::Asset(crate::front::ron::AssetKind::Machine), text) {
            Some(Ok(AnyAsset::Machine(m))) => m,
            other => panic!("{other:?}"),
        }
    }

    fn lines_changed(a: &str, b: &str) -> usize {
        let (a, b): (Vec<_>, Vec<_>) = (a.lines().collect(), b.lines().collect());
        // Lines of each not in the other, in order (enough for these small edits).
        a.iter().filter(|l| !b.contains(l)).count() + b.iter().filter(|l| !a.contains(l)).count()
    }

    #[test]
    fn canonical_text_prints_back_exactly() {
        let m = machine(MACHINE);
        assert_eq!(print(&m, &Comments::of(MACHINE)), MACHINE);
    }

    #[test]
    fn comments_follow_their_item_when_reordered() {
        let mut m = machine(MACHINE);
        m.states.swap(0, 1);
        let out = print(&m, &Comments::of(MACHINE));
        let walk = out.find("// Walks").unwrap();
        assert!(walk < out.find("(name: \"Walk\"").unwrap());
        assert!(out.find("// Begins.").unwrap() > walk);
        assert!(out.find("// Begins.").unwrap() < out.find("(name: \"Start\"").unwrap());
        assert_eq!(machine(&out).states.len(), 3);
    }

    #[test]
    fn comments_follow_a_renamed_item() {
        let mut m = machine(MACHINE);
        let mut c = Comments::of(MACHINE);
        m.states[1].name = "Stroll".into();
        c.rename(
            &[Seg::Field("states".into())],
            &item_literal("Walk"),
            &item_literal("Stroll"),
        );
        let out = print(&m, &c);
        assert!(out.contains("\n\n        // Walks, then ends.\n        (name: \"Stroll\""));
    }

    #[test]
    fn a_one_state_change_is_a_one_line_diff() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../samples/airport/machines/BuyTicketAtCounter.machine.ron"),
        )
        .unwrap();
        let comments = Comments::of(&text);
        let mut m = machine(&text);
        m.states[1].modifier = Some(crate::front::ron::ModifierValue::Name("Gate".into()));
        assert_eq!(lines_changed(&text, &print(&m, &comments)), 2);
        // Adding a state adds one line.
        let mut m = machine(&text);
        m.states.push(StateAsset {
            name: "Wait1".into(),
            code: None,
            modifier: Some(crate::front::ron::ModifierValue::Number(2.5)),
            params: Default::default(),
            on: vec![],
        });
        let out = print(&m, &comments);
        assert_eq!(lines_changed(&text, &out), 1);
        assert!(out.contains("        (name: \"Wait1\", modifier: 2.5),\n"));
    }

    #[test]
    fn comments_inside_an_item_or_after_a_value_are_kept_nearby() {
        let text = "Machine(\n    name: \"M\", // the name\n    states: [\n        (name: \"Start\", /* inner */ on: [(\"Empty\", \"A\")]),\n        (name: \"A\"),\n    ],\n)\n";
        let out = print(&machine(text), &Comments::of(text));
        // Nothing is lost: every comment is still there, and the file still reads the same.
        for c in ["// the name", "/* inner */"] {
            assert!(out.contains(c), "{c} lost:\n{out}");
        }
        assert_eq!(machine(&out), machine(text));
        // And the result is canonical: printing it again changes nothing.
        assert_eq!(print(&machine(&out), &Comments::of(&out)), out);
    }

    #[test]
    fn strings_and_numbers_read_back_as_written() {
        let mut m = machine(MACHINE);
        m.states[1].modifier = Some(crate::front::ron::ModifierValue::Name(
            "quote \" back\\slash\nnew line\ttab é".into(),
        ));
        m.states[2].modifier = Some(crate::front::ron::ModifierValue::Number(0.1 + 0.2));
        let out = print(&m, &Comments::default());
        assert_eq!(machine(&out), m);
    }

    #[test]
    fn parameters_print_as_one_inline_map_in_the_order_given_and_read_back() {
        use crate::front::ron::{ParamValueAsset as V, ParamValues};
        let mut m = machine(MACHINE);
        m.states[1].params = ParamValues(vec![
            ("clip".into(), V::Text("Wave".into())),
            ("loop".into(), V::Bool(true)),
            ("blend".into(), V::Number(1.0)),
            ("cover".into(), V::List(vec![V::Text("Gate".into())])),
        ]);
        let out = print(&m, &Comments::default());
        assert!(
            out.contains(
                r#"params: {"clip": "Wave", "loop": true, "blend": 1.0, "cover": ["Gate"]}"#
            ),
            "{out}"
        );
        assert_eq!(machine(&out), m);
        assert_eq!(print(&machine(&out), &Comments::of(&out)), out);
    }

    #[test]
    fn unreadable_text_keeps_its_leading_comments() {
        let c = Comments::of("// keep me\nMachine(name: ");
        let m = machine(MACHINE);
        assert!(print(&m, &c).starts_with("// keep me\nMachine(\n"));
    }
}
