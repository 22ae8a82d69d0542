//! The literal syntax of native planning assets: `atShop(Who)`, `not open(D)`, `Who != npc`,
//! several separated by commas. It is the cell syntax of interaction scripts without arithmetic
//! and built-ins, and names may contain `-` (`clean-hands`), so PDDL domains' predicates and
//! objects can be written as they are. Variables start upper-case (or `_`). Every node keeps its
//! byte range in the string, so diagnostics point inside it.

use crate::diag::Code;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq)]
pub enum Word {
    Var(String, Range<usize>),
    Name(String, Range<usize>),
}

impl Word {
    pub fn text(&self) -> &str {
        match self {
            Word::Var(t, _) | Word::Name(t, _) => t,
        }
    }

    pub fn range(&self) -> Range<usize> {
        match self {
            Word::Var(_, r) | Word::Name(_, r) => r.clone(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    pub pred: String,
    pub pred_range: Range<usize>,
    pub args: Vec<Word>,
    pub range: Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Pos(Atom),
    Neg(Atom, Range<usize>),
    /// `a = b` (true) or `a != b` (false).
    Eq(Word, Word, bool, Range<usize>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub code: Code,
    pub message: String,
    pub range: Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// A quoted name: always a constant (`"Bob"`), never a keyword.
    Quoted(String),
    Punct(&'static str),
}

fn lex(text: &str) -> Result<Vec<(Tok, Range<usize>)>, ParseError> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |code, message: &str, range| ParseError {
        code,
        message: message.to_string(),
        range,
    };
    while i < b.len() {
        let c = b[i];
        let start = i;
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-') {
                i += 1;
            }
            out.push((Tok::Ident(text[start..i].to_string()), start..i));
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
            if i == b.len() {
                return Err(err(Code::Syntax, "unterminated quoted name", start..i));
            }
            i += 1;
            out.push((Tok::Quoted(text[start + 1..i - 1].to_string()), start..i));
        } else if text[i..].starts_with("!=") {
            i += 2;
            out.push((Tok::Punct("!="), start..i));
        } else if let Some(p) = ["(", ")", ",", "="]
            .into_iter()
            .find(|p| text[i..].starts_with(p))
        {
            i += 1;
            out.push((Tok::Punct(p), start..i));
        } else if c.is_ascii_digit() || c == b'<' || c == b'>' || c == b'+' || c == b'*' {
            return Err(err(
                Code::UnsupportedFeature,
                "numbers and numeric comparisons (numeric fluents) are not supported in planning; use object names",
                start..start + 1,
            ));
        } else {
            let ch = text[i..].chars().next().unwrap_or('?');
            return Err(err(
                Code::Syntax,
                &format!("unexpected `{ch}`"),
                start..start + ch.len_utf8(),
            ));
        }
    }
    Ok(out)
}

struct Parser {
    toks: Vec<(Tok, Range<usize>)>,
    pos: usize,
    len: usize,
}

impl Parser {
    fn new(text: &str) -> Result<Self, ParseError> {
        let toks = lex(text)?;
        let parens = toks.iter().map(|(t, r)| match t {
            Tok::Punct(p) => (*p, r.clone()),
            _ => ("", r.clone()),
        });
        // The cell syntax's check: one message for one mistake wherever literals are typed.
        if let Some((message, range)) = crate::script::cell::unbalanced(text, parens) {
            return Err(ParseError {
                code: Code::Syntax,
                message,
                range,
            });
        }
        Ok(Parser {
            toks,
            pos: 0,
            len: text.len(),
        })
    }

    fn here(&self) -> Range<usize> {
        self.toks
            .get(self.pos)
            .map_or(self.len..self.len, |t| t.1.clone())
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError {
            code: Code::Syntax,
            message: message.into(),
            range: self.here(),
        })
    }

    fn eat(&mut self, p: &str) -> bool {
        if matches!(self.toks.get(self.pos), Some((Tok::Punct(q), _)) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A name and whether it was quoted.
    fn ident(&mut self, what: &str) -> Result<(String, Range<usize>, bool), ParseError> {
        match self.toks.get(self.pos).cloned() {
            Some((Tok::Ident(s), r)) => {
                self.pos += 1;
                Ok((s, r, false))
            }
            Some((Tok::Quoted(s), r)) => {
                self.pos += 1;
                Ok((s, r, true))
            }
            _ => self.err(format!("expected {what}")),
        }
    }

    fn word(&mut self) -> Result<Word, ParseError> {
        let (s, r, quoted) = self.ident("an object or a variable")?;
        Ok(
            if !quoted && s.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
                Word::Var(s, r)
            } else {
                Word::Name(s, r)
            },
        )
    }

    fn atom(&mut self) -> Result<Atom, ParseError> {
        let (pred, pred_range, _) = self.ident("a predicate such as `open(D)`")?;
        let mut args = Vec::new();
        let mut end = pred_range.end;
        if self.eat("(") {
            if !self.eat(")") {
                loop {
                    args.push(self.word()?);
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(",") {
                        return self.err("expected `,` or `)`");
                    }
                }
            }
            end = self.toks[self.pos - 1].1.end;
        }
        Ok(Atom {
            range: pred_range.start..end,
            pred,
            pred_range,
            args,
        })
    }

    fn literal(&mut self) -> Result<Literal, ParseError> {
        let start = self.here().start;
        if matches!(self.toks.get(self.pos), Some((Tok::Ident(n), _)) if n == "not") {
            self.pos += 1;
            let a = self.atom()?;
            let end = a.range.end;
            return Ok(Literal::Neg(a, start..end));
        }
        // `a = b` / `a != b`, or an atom.
        if matches!(
            self.toks.get(self.pos + 1),
            Some((Tok::Punct("=" | "!="), _))
        ) {
            let a = self.word()?;
            let equal = self.eat("=");
            if !equal {
                self.eat("!=");
            }
            let b = self.word()?;
            let end = b.range().end;
            return Ok(Literal::Eq(a, b, equal, start..end));
        }
        Ok(Literal::Pos(self.atom()?))
    }

    fn list<T>(
        &mut self,
        mut item: impl FnMut(&mut Self) -> Result<T, ParseError>,
    ) -> Result<Vec<T>, ParseError> {
        let mut out = Vec::new();
        while self.pos < self.toks.len() {
            out.push(item(self)?);
            if self.pos < self.toks.len() && !self.eat(",") {
                return self.err("expected `,` between literals");
            }
        }
        Ok(out)
    }
}

/// Literals separated by commas.
pub fn literals(text: &str) -> Result<Vec<Literal>, ParseError> {
    Parser::new(text)?.list(Parser::literal)
}

/// Atoms separated by commas (predicate declarations: `inside(agent)`).
pub fn atoms(text: &str) -> Result<Vec<Atom>, ParseError> {
    Parser::new(text)?.list(Parser::atom)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_with_ranges() {
        let l = literals("atShop(Who), not open(D), Who != npc, clean-hands").unwrap();
        assert_eq!(l.len(), 4);
        let Literal::Neg(a, r) = &l[1] else { panic!() };
        assert_eq!((a.pred.as_str(), r.clone()), ("open", 13..24));
        assert!(matches!(&a.args[0], Word::Var(v, _) if v == "D"));
        assert!(
            matches!(&l[2], Literal::Eq(Word::Var(..), Word::Name(n, _), false, _) if n == "npc")
        );
        assert!(matches!(&l[3], Literal::Pos(a) if a.pred == "clean-hands" && a.args.is_empty()));
        assert_eq!(literals("").unwrap(), vec![]);
    }

    #[test]
    fn quoted_names_are_constants() {
        // As in interaction scripts: constants are lower-case or quoted.
        let l = literals(r#"at("Bob", "not"), "Bob" != X"#).unwrap();
        let Literal::Pos(a) = &l[0] else { panic!() };
        assert!(matches!(&a.args[0], Word::Name(n, r) if n == "Bob" && *r == (3..8)));
        assert!(matches!(&a.args[1], Word::Name(n, _) if n == "not"));
        assert!(matches!(
            &l[1],
            Literal::Eq(Word::Name(..), Word::Var(..), false, _)
        ));
    }

    #[test]
    fn mistakes_are_located() {
        let e = literals("at(X,").unwrap_err();
        assert_eq!((e.code, e.range), (Code::Syntax, 2..3));
        assert!(e.message.contains("never closed"), "{}", e.message);
        let e = literals("at(X,)").unwrap_err();
        assert_eq!((e.code, e.range), (Code::Syntax, 5..6));
        let e = literals("fuel(T) > 3").unwrap_err();
        assert_eq!(e.code, Code::UnsupportedFeature);
        assert_eq!(e.range, 8..9);
        let e = literals("a b").unwrap_err();
        assert!(e.message.contains("between literals"), "{}", e.message);
    }
}
