//! The cell syntax of interaction scripts (DESIGN.md, "Excel interaction scripts"), shared by
//! workbooks and native assets: literals separated by commas; `pred(A, b, .me)`; `not pred(..)`;
//! comparisons with `= != < <= > >=`; variables start upper-case (or `_`), constants are
//! lower-case, quoted or numeric; built-ins start with `.` (`.me`, `.now`, `.any(X)`,
//! `.second`, `.minute`, `.hour`); function terms such as `.now + randf(2,5) * .minute`.
//!
//! Every node keeps its byte range within the cell, so diagnostics can point inside a cell.

use std::ops::Range;

pub use crate::ir::script::{AtomAst, BinOp, CmpOp, LiteralAst, Term};

#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub message: String,
    pub range: Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Builtin(String),
    Num(f64),
    Str(String),
    Punct(&'static str),
}

fn lex(text: &str) -> Result<Vec<(Tok, Range<usize>)>, ParseError> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let tok = if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Tok::Ident(text[start..i].to_string())
        } else if c == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_alphabetic() {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            Tok::Builtin(text[start + 1..i].to_string())
        } else if c.is_ascii_digit() || (c == b'.' && i + 1 < b.len() && b[i + 1].is_ascii_digit())
        {
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            let s = &text[start..i];
            Tok::Num(s.parse().map_err(|_| ParseError {
                message: format!("`{s}` is not a number"),
                range: start..i,
            })?)
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += 1;
            }
            if i >= b.len() {
                return Err(ParseError {
                    message: "unterminated quoted constant".into(),
                    range: start..b.len(),
                });
            }
            i += 1;
            Tok::Str(text[start + 1..i - 1].to_string())
        } else {
            let two = text.get(i..i + 2).unwrap_or("");
            let p: &'static str = match two {
                "!=" => "!=",
                "<=" => "<=",
                ">=" => ">=",
                "==" => "=",
                _ => match c {
                    b'(' => "(",
                    b')' => ")",
                    b',' => ",",
                    b'=' => "=",
                    b'<' => "<",
                    b'>' => ">",
                    b'+' => "+",
                    b'-' => "-",
                    b'*' => "*",
                    b'/' => "/",
                    _ => {
                        let ch = text[i..].chars().next().unwrap_or('?');
                        return Err(ParseError {
                            message: format!("unexpected character `{ch}`"),
                            range: i..i + ch.len_utf8(),
                        });
                    }
                },
            };
            i += if two == p || two == "==" { 2 } else { 1 };
            Tok::Punct(p)
        };
        out.push((tok, start..i));
    }
    Ok(out)
}

/// The first parenthesis without its partner in `tokens` (punctuation as written, anything
/// else as ""), located at that parenthesis. Checked before parsing: a parser that meets the
/// end (or the next argument) inside an open call says "expected `,`", which points away
/// from the mistake.
pub fn unbalanced(
    text: &str,
    tokens: impl Iterator<Item = (&'static str, Range<usize>)>,
) -> Option<(String, Range<usize>)> {
    let column = |at: usize| text.get(..at).map_or(at, |t| t.chars().count()) + 1;
    let mut open: Vec<Range<usize>> = Vec::new();
    for (p, r) in tokens {
        match p {
            "(" => open.push(r),
            ")" if open.pop().is_none() => {
                let message = format!(
                    "unbalanced parenthesis: `)` at column {} closes nothing",
                    column(r.start)
                );
                return Some((message, r));
            }
            _ => {}
        }
    }
    let r = open.into_iter().next()?;
    let message = format!(
        "unbalanced parenthesis: `(` at column {} is never closed",
        column(r.start)
    );
    Some((message, r))
}

/// The most operators, calls, parentheses and signs one cell may hold. Terms are trees walked
/// recursively (here, by every check, by the runtime's evaluation, when dropped): a cell of
/// 30,000 nested parentheses or a sum of 30,000 terms overflowed the stack. No rule needs more
/// than a few.
const MAX_OPERATORS: usize = 256;

struct Parser {
    toks: Vec<(Tok, Range<usize>)>,
    pos: usize,
    end: usize,
    /// Operators, calls, parentheses and signs read so far (see [`MAX_OPERATORS`]).
    operators: usize,
}

impl Parser {
    fn new(text: &str) -> Result<Self, ParseError> {
        let toks = lex(text)?;
        let parens = toks.iter().map(|(t, r)| match t {
            Tok::Punct(p) => (*p, r.clone()),
            _ => ("", r.clone()),
        });
        if let Some((message, range)) = unbalanced(text, parens) {
            return Err(ParseError { message, range });
        }
        Ok(Parser {
            toks,
            pos: 0,
            end: text.len(),
            operators: 0,
        })
    }

    /// Counts one more operator (call, parenthesis, sign) at the token just read.
    fn operator(&mut self) -> Result<(), ParseError> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            return Err(ParseError {
                message: format!(
                    "too complex: more than {MAX_OPERATORS} operators, calls and parentheses in one cell"
                ),
                range: self.toks[self.pos - 1].1.clone(),
            });
        }
        Ok(())
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn here(&self) -> Range<usize> {
        self.toks
            .get(self.pos)
            .map(|t| t.1.clone())
            .unwrap_or(self.end..self.end)
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            message: message.into(),
            range: self.here(),
        })
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Punct(q)) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, p: &str) -> Result<(), ParseError> {
        if self.eat(p) {
            Ok(())
        } else {
            self.err(format!("expected `{p}`"))
        }
    }

    fn start(&self) -> usize {
        self.here().start
    }

    fn last_end(&self) -> usize {
        self.toks
            .get(self.pos.wrapping_sub(1))
            .map(|t| t.1.end)
            .unwrap_or(0)
    }

    fn done(&self) -> bool {
        self.pos >= self.toks.len()
    }

    /// expr := product (('+'|'-') product)*
    fn expr(&mut self) -> Result<Term, ParseError> {
        let start = self.start();
        let mut left = self.product()?;
        loop {
            let op = if self.eat("+") {
                BinOp::Add
            } else if self.eat("-") {
                BinOp::Sub
            } else {
                return Ok(left);
            };
            self.operator()?;
            let right = self.product()?;
            left = Term::Bin(op, Box::new(left), Box::new(right), start..self.last_end());
        }
    }

    fn product(&mut self) -> Result<Term, ParseError> {
        let start = self.start();
        let mut left = self.primary()?;
        loop {
            let op = if self.eat("*") {
                BinOp::Mul
            } else if self.eat("/") {
                BinOp::Div
            } else {
                return Ok(left);
            };
            self.operator()?;
            let right = self.primary()?;
            left = Term::Bin(op, Box::new(left), Box::new(right), start..self.last_end());
        }
    }

    fn args(&mut self) -> Result<Vec<Term>, ParseError> {
        let mut args = Vec::new();
        if self.eat(")") {
            return Ok(args);
        }
        loop {
            args.push(self.expr()?);
            if self.eat(")") {
                return Ok(args);
            }
            self.expect(",")?;
        }
    }

    fn primary(&mut self) -> Result<Term, ParseError> {
        let r = self.here();
        let Some(tok) = self.peek().cloned() else {
            return self.err("expected a term");
        };
        self.pos += 1;
        if matches!(tok, Tok::Punct("-" | "("))
            || matches!(tok, Tok::Ident(_)) && matches!(self.peek(), Some(Tok::Punct("(")))
        {
            self.operator()?;
        }
        Ok(match tok {
            Tok::Num(x) => Term::Num(x, r),
            Tok::Str(s) => Term::Sym(s, r),
            Tok::Punct("-") => match self.primary()? {
                Term::Num(x, r2) => Term::Num(-x, r.start..r2.end),
                other => Term::Bin(
                    BinOp::Sub,
                    Box::new(Term::Num(0.0, r.clone())),
                    Box::new(other.clone()),
                    r.start..other.range().end,
                ),
            },
            Tok::Punct("(") => {
                let e = self.expr()?;
                self.expect(")")?;
                e
            }
            Tok::Builtin(name) => match name.as_str() {
                "me" => Term::Me(r),
                "now" => Term::Now(r),
                "second" => Term::Num(1.0, r),
                "minute" => Term::Num(60.0, r),
                "hour" => Term::Num(3600.0, r),
                "any" => {
                    return Err(ParseError {
                        message: "`.any(X)` is a literal of its own, not a term".into(),
                        range: r,
                    });
                }
                other => {
                    return Err(ParseError {
                        message: format!(
                            "unknown built-in `.{other}` (built-ins: .me, .now, .any, .second, .minute, .hour)"
                        ),
                        range: r,
                    });
                }
            },
            Tok::Ident(name) => {
                if self.eat("(") {
                    let args = self.args()?;
                    Term::Call(name, args, r.start..self.last_end())
                } else if name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
                    Term::Var(name, r)
                } else {
                    Term::Sym(name, r)
                }
            }
            Tok::Punct(p) => {
                self.pos -= 1;
                return self.err(format!("unexpected `{p}`"));
            }
        })
    }

    fn atom(&mut self) -> Result<AtomAst, ParseError> {
        let r = self.here();
        let Some(Tok::Ident(name)) = self.peek().cloned() else {
            return self.err("expected a predicate such as `seat(X)`");
        };
        if name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
            return self.err(format!(
                "`{name}` is a variable; a predicate name starts lower-case"
            ));
        }
        self.pos += 1;
        let args = if self.eat("(") {
            self.args()?
        } else {
            Vec::new()
        };
        Ok(AtomAst {
            predicate: name,
            predicate_range: r.clone(),
            args,
            range: r.start..self.last_end(),
        })
    }

    fn literal(&mut self) -> Result<LiteralAst, ParseError> {
        let start = self.start();
        if matches!(self.peek(), Some(Tok::Ident(n)) if n == "not") {
            self.pos += 1;
            let a = self.atom()?;
            return Ok(LiteralAst::Neg(a, start..self.last_end()));
        }
        if matches!(self.peek(), Some(Tok::Builtin(n)) if n == "any") {
            self.pos += 1;
            self.expect("(")?;
            let t = self.expr()?;
            self.expect(")")?;
            return Ok(LiteralAst::Any(t, start..self.last_end()));
        }
        // A predicate, unless a comparison operator follows the first expression.
        let save = self.pos;
        let is_atom = matches!(self.peek(), Some(Tok::Ident(n)) if n.starts_with(|c: char| c.is_ascii_lowercase()));
        if is_atom {
            let a = self.atom()?;
            if !matches!(self.peek(), Some(Tok::Punct(p)) if ["=", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/"].contains(p))
            {
                return Ok(LiteralAst::Pos(a));
            }
            self.pos = save;
        }
        let left = self.expr()?;
        let op = match self.peek() {
            Some(Tok::Punct(p)) if let Some(op) = CmpOp::by_symbol(p) => op,
            _ => return self.err("expected a comparison operator (= != < <= > >=)"),
        };
        self.pos += 1;
        let right = self.expr()?;
        Ok(LiteralAst::Cmp(left, op, right, start..self.last_end()))
    }

    fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        let mut out = Vec::new();
        if self.done() {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.done() {
                return Ok(out);
            }
            self.expect(",")?;
        }
    }
}

/// A precondition: literals separated by commas.
pub fn literals(text: &str) -> Result<Vec<LiteralAst>, ParseError> {
    Parser::new(text)?.list(Parser::literal)
}

/// An effect list: atoms separated by commas.
pub fn atoms(text: &str) -> Result<Vec<AtomAst>, ParseError> {
    Parser::new(text)?.list(Parser::atom)
}

/// A single term (a rule's target).
pub fn term(text: &str) -> Result<Term, ParseError> {
    let mut p = Parser::new(text)?;
    let t = p.expr()?;
    if !p.done() {
        return p.err("unexpected text after the term");
    }
    Ok(t)
}

/// `key=value` pairs separated by commas.
pub fn parameters(text: &str) -> Result<Vec<(String, Range<usize>, Term)>, ParseError> {
    Parser::new(text)?.list(|p| {
        let r = p.here();
        let Some(Tok::Ident(key)) = p.peek().cloned() else {
            return p.err("expected `key=value`");
        };
        p.pos += 1;
        p.expect("=")?;
        Ok((key, r, p.expr()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chapters_rules_parse() {
        let pre = literals("seat(X), not reserved(X, Y)").unwrap();
        assert!(
            matches!(&pre[1], LiteralAst::Neg(a, _) if a.predicate == "reserved" && a.args.len() == 2)
        );
        let pre = literals("not talker(X), .any(Y), sitting(Y)").unwrap();
        assert!(matches!(&pre[1], LiteralAst::Any(Term::Var(v, _), _) if v == "Y"));
        let pre = literals("talker(.me), .any(X), X != .me, sitting(X)").unwrap();
        assert!(matches!(
            &pre[2],
            LiteralAst::Cmp(Term::Var(..), CmpOp::Ne, Term::Me(_), _)
        ));
        let pre = literals("timer(.me, T), T < .now").unwrap();
        assert!(matches!(
            &pre[1],
            LiteralAst::Cmp(_, CmpOp::Lt, Term::Now(_), _)
        ));
        let eff = atoms("sitting(.me), timer(.me, .now + randf(2,5) * .minute)").unwrap();
        let Term::Bin(BinOp::Add, _, right, _) = &eff[1].args[1] else {
            panic!("{eff:?}")
        };
        assert!(
            matches!(&**right, Term::Bin(BinOp::Mul, l, r, _) if matches!(&**l, Term::Call(f, a, _) if f == "randf" && a.len() == 2) && matches!(&**r, Term::Num(x, _) if *x == 60.0))
        );
        assert_eq!(atoms("").unwrap(), vec![]);
        let params = parameters("speed=1.5, anim='wave'").unwrap();
        assert_eq!(params[1].0, "anim");
        assert!(matches!(term("X").unwrap(), Term::Var(..)));
    }

    /// Deeply nested or very long expressions are refused with a message instead of
    /// overflowing the stack (here, or later when the tree is walked or dropped).
    #[test]
    fn expressions_too_complex_to_walk_are_refused() {
        let deep = format!("X = {}1{}", "(".repeat(30_000), ")".repeat(30_000));
        let long = format!("T = {}", vec!["1"; 30_000].join(" + "));
        let calls = format!("T = {}1{}", "abs(".repeat(30_000), ")".repeat(30_000));
        let signs = format!("T = {}1", "-".repeat(30_000));
        for text in [deep, long, calls, signs] {
            let e = literals(&text).unwrap_err();
            assert!(e.message.contains("too complex"), "{}", e.message);
        }
        // What rules write is far below the limit.
        let fine = format!("T = {}", vec!["randf(2, 5) * .minute"; 60].join(" + "));
        assert!(literals(&fine).is_ok());
    }

    #[test]
    fn an_unbalanced_parenthesis_is_named_at_the_parenthesis() {
        let e = literals("seat(X, not reserved(X, Y)").unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.range),
            (
                "unbalanced parenthesis: `(` at column 5 is never closed",
                4..5
            )
        );
        let e = atoms("sitting(.me))").unwrap_err();
        assert_eq!(
            e.message,
            "unbalanced parenthesis: `)` at column 13 closes nothing"
        );
    }

    #[test]
    fn errors_point_inside_the_cell() {
        let e = literals("seat(X) reserved(X)").unwrap_err();
        assert_eq!(e.range, 8..16);
        let e = literals("seat(X), .anyx(Y)").unwrap_err();
        assert!(e.message.contains("unknown built-in"), "{e:?}");
        let e = atoms("Seat(X)").unwrap_err();
        assert!(e.message.contains("variable"), "{e:?}");
        let e = literals("X ~ 3").unwrap_err();
        assert!(e.message.contains("unexpected character"));
        assert!(literals("seat(X").is_err());
        assert!(literals("'open").is_err());
    }
}
