//! S-expressions with spans: the lexical layer of PDDL. Names are case-insensitive and are
//! lowercased here; comments run from `;` to the end of the line.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::source::{FileId, Span};

#[derive(Clone, Debug, PartialEq)]
pub enum Sexp {
    Atom { text: String, span: Span },
    List { items: Vec<Sexp>, span: Span },
}

impl Sexp {
    pub fn span(&self) -> Span {
        match self {
            Sexp::Atom { span, .. } | Sexp::List { span, .. } => *span,
        }
    }

    pub fn atom(&self) -> Option<&str> {
        match self {
            Sexp::Atom { text, .. } => Some(text),
            Sexp::List { .. } => None,
        }
    }

    pub fn list(&self) -> Option<&[Sexp]> {
        match self {
            Sexp::List { items, .. } => Some(items),
            Sexp::Atom { .. } => None,
        }
    }

    /// The head atom of a list: `and` in `(and ...)`.
    pub fn head(&self) -> Option<&str> {
        self.list().and_then(|l| l.first()).and_then(Sexp::atom)
    }
}

/// How deeply parentheses may nest. Real domains nest a dozen levels; the readers after this
/// one recurse on the tree (and dropping it recurses too), so a bound here keeps a hostile
/// `(and (and (and ...` from overflowing the stack.
pub const MAX_NESTING: usize = 256;

/// Reads every top-level expression of a file; reports unbalanced parentheses and stray
/// characters as `syntax` errors, and nesting deeper than [`MAX_NESTING`] as `limit-exceeded`
/// (the too-deep expression is skipped whole).
pub fn parse(file: FileId, text: &str, diags: &mut Diagnostics) -> Vec<Sexp> {
    let bytes = text.as_bytes();
    let mut i = 0;
    // Stack of (open paren offset, items).
    let mut stack: Vec<(usize, Vec<Sexp>)> = vec![(0, Vec::new())];
    while i < bytes.len() {
        let c = bytes[i];
        if c == b'(' && stack.len() > MAX_NESTING {
            diags.push(
                Diagnostic::error(
                    Code::LimitExceeded,
                    format!("expressions nest more than {MAX_NESTING} levels deep"),
                )
                .at(Span::new(file, i..i + 1), "this `(` is one level too deep"),
            );
            i = skip_expression(bytes, i);
            continue;
        }
        match c {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'(' => {
                stack.push((i, Vec::new()));
                i += 1;
            }
            b')' => {
                if stack.len() == 1 {
                    diags.push(
                        Diagnostic::error(Code::Syntax, "unbalanced `)`")
                            .at(Span::new(file, i..i + 1), "no `(` opens this"),
                    );
                } else {
                    let (start, items) = stack.pop().expect("checked");
                    let list = Sexp::List {
                        items,
                        span: Span::new(file, start..i + 1),
                    };
                    stack.last_mut().expect("root").1.push(list);
                }
                i += 1;
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'(' | b')' | b';')
                {
                    i += 1;
                }
                // Keep slicing on character boundaries for non-ASCII input.
                while !text.is_char_boundary(i) {
                    i += 1;
                }
                let text = text[start..i].to_lowercase();
                stack.last_mut().expect("root").1.push(Sexp::Atom {
                    text,
                    span: Span::new(file, start..i),
                });
            }
        }
    }
    while stack.len() > 1 {
        let (start, _) = stack.pop().expect("checked");
        diags.push(Diagnostic::error(Code::Syntax, "unclosed `(`").at(
            Span::new(file, start..start + 1),
            "this `(` is never closed",
        ));
    }
    stack.pop().map(|(_, items)| items).unwrap_or_default()
}

/// The offset after the expression opened at `open` (or the end of the text when it is never
/// closed), minding comments.
fn skip_expression(bytes: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_atoms_comments_and_case() {
        let mut d = Diagnostics::default();
        let v = parse(
            FileId(0),
            "; c\n(Define (Domain X) ; x\n (:Types a - b))",
            &mut d,
        );
        assert!(d.is_empty());
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].head(), Some("define"));
        let l = v[0].list().unwrap();
        assert_eq!(l[1].list().unwrap()[1].atom(), Some("x"));
    }

    #[test]
    fn nesting_past_the_limit_is_one_located_error_not_a_stack_overflow() {
        let depth = 30_000;
        let text = format!("(x {} y)", "(and ".repeat(depth) + &")".repeat(depth));
        let mut d = Diagnostics::default();
        let v = parse(FileId(0), &text, &mut d);
        assert_eq!(d.len(), 1, "{d:?}");
        let e = d.iter().next().unwrap();
        assert_eq!(e.code, Code::LimitExceeded);
        let span = e.primary.as_ref().unwrap().span;
        // The first `(` past the limit: the outer list is level 1, so the refused `(and` is
        // the MAX_NESTING-th one.
        assert_eq!(span.start as usize, 3 + (MAX_NESTING - 1) * 5);
        // What comes after the skipped expression is still read.
        assert_eq!(v[0].list().unwrap().last().unwrap().atom(), Some("y"));
    }

    #[test]
    fn unbalanced_is_located() {
        let mut d = Diagnostics::default();
        parse(FileId(0), "(a (b)", &mut d);
        parse(FileId(0), "a))", &mut d);
        assert_eq!(d.len(), 3);
        assert!(
            d.iter()
                .all(|x| x.code == Code::Syntax && x.primary.is_some())
        );
    }
}
