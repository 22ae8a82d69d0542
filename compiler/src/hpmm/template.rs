//! Output templates (docs/formats/actions.md): text with `{...}` chunks.
//!
//! - `{hello|greetings|well met}` — one alternative at random (alternatives may nest chunks);
//! - `{@hedge}` — a named template;
//! - `{the-item}` / `{the-item.price}` — the concept bound to a situational variable: its `name`
//!   property (or its name), or another property.

use crate::ir::hpmm::{Chunk, Ref, Template, Variable};
use crate::ir::{Handle, Name};
use crate::source::Span;

pub struct Resolver<'a> {
    pub span: Span,
    pub variable: &'a dyn Fn(&str) -> Option<Handle<Variable>>,
    pub template: &'a dyn Fn(&str) -> Option<Handle<Template>>,
}

impl Resolver<'_> {
    fn name(&self, text: &str) -> Name {
        Name {
            text: text.to_string(),
            span: self.span,
        }
    }
}

/// How deeply `{...}` may nest. Parsing (and every later walk of the chunks) recurses once per
/// level; real templates nest two or three.
pub const MAX_NESTING: usize = 32;

pub fn parse(source: &str, r: &Resolver<'_>) -> Result<Vec<Chunk>, String> {
    let chars: Vec<char> = source.chars().collect();
    let mut pos = 0;
    let chunks = sequence(&chars, &mut pos, r, 0)?;
    if pos < chars.len() {
        return Err("`}` without a matching `{`".into());
    }
    Ok(chunks)
}

/// Parses chunks up to the end, or (inside braces, `depth` > 0) up to an unmatched `|` or `}`.
fn sequence(
    chars: &[char],
    pos: &mut usize,
    r: &Resolver<'_>,
    depth: usize,
) -> Result<Vec<Chunk>, String> {
    let inside = depth > 0;
    let mut out = Vec::new();
    let mut text = String::new();
    while *pos < chars.len() {
        match chars[*pos] {
            '{' => {
                if !text.is_empty() {
                    out.push(Chunk::Text(std::mem::take(&mut text)));
                }
                if depth >= MAX_NESTING {
                    return Err(format!(
                        "`{{...}}` nests more than {MAX_NESTING} levels deep (at character {})",
                        *pos + 1
                    ));
                }
                *pos += 1;
                out.push(braced(chars, pos, r, depth + 1)?);
            }
            '|' | '}' if inside => break,
            '}' => return Err("`}` without a matching `{`".into()),
            c => {
                text.push(c);
                *pos += 1;
            }
        }
    }
    if !text.is_empty() {
        out.push(Chunk::Text(text));
    }
    Ok(out)
}

/// After `{`: a reference or a choice, through the matching `}`.
fn braced(
    chars: &[char],
    pos: &mut usize,
    r: &Resolver<'_>,
    depth: usize,
) -> Result<Chunk, String> {
    let mut alternatives = vec![sequence(chars, pos, r, depth)?];
    while *pos < chars.len() && chars[*pos] == '|' {
        *pos += 1;
        alternatives.push(sequence(chars, pos, r, depth)?);
    }
    if *pos >= chars.len() {
        return Err("`{` without a matching `}`".into());
    }
    *pos += 1; // `}`
    if alternatives.len() > 1 {
        return Ok(Chunk::Choice(alternatives));
    }
    // A single alternative is a reference: `{@template}` or `{variable[.property]}`.
    let inner = match alternatives.pop().expect("one alternative").as_slice() {
        [Chunk::Text(t)] => t.trim().to_string(),
        [] => return Err("`{}` is empty".into()),
        _ => return Err("a `{...}` without `|` names a variable or `@template`".into()),
    };
    if let Some(name) = inner.strip_prefix('@') {
        return Ok(Chunk::Template(Ref {
            name: r.name(name),
            target: (r.template)(name),
        }));
    }
    let (variable, property) = match inner.split_once('.') {
        Some((v, p)) => (v, Some(p.to_string())),
        None => (inner.as_str(), None),
    };
    Ok(Chunk::Var {
        variable: Ref {
            name: r.name(variable),
            target: (r.variable)(variable),
        },
        property,
    })
}

/// References a parsed template makes, for reporting the unresolved ones.
pub fn references(chunks: &[Chunk], out: &mut Vec<(String, &'static str, bool)>) {
    for c in chunks {
        match c {
            Chunk::Text(_) => {}
            Chunk::Choice(alts) => alts.iter().for_each(|a| references(a, out)),
            Chunk::Var { variable, .. } => out.push((
                variable.name.text.clone(),
                "variable",
                variable.target.is_some(),
            )),
            Chunk::Template(t) => out.push((t.name.text.clone(), "template", t.target.is_some())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::FileId;

    fn show(chunks: &[Chunk]) -> String {
        chunks
            .iter()
            .map(|c| match c {
                Chunk::Text(t) => t.clone(),
                Chunk::Choice(a) => {
                    format!(
                        "<{}>",
                        a.iter().map(|x| show(x)).collect::<Vec<_>>().join("/")
                    )
                }
                Chunk::Var { variable, property } => {
                    format!(
                        "[{}.{}]",
                        variable.name.text,
                        property.as_deref().unwrap_or("-")
                    )
                }
                Chunk::Template(t) => format!("[@{}]", t.name.text),
            })
            .collect()
    }

    fn parse_str(s: &str) -> Result<String, String> {
        let r = Resolver {
            span: Span::file_start(FileId(0)),
            variable: &|_| None,
            template: &|_| None,
        };
        parse(s, &r).map(|c| show(&c))
    }

    #[test]
    fn chunks() {
        assert_eq!(
            parse_str("{hi|well met}, i have for you {the-item}").unwrap(),
            "<hi/well met>, i have for you [the-item.-]"
        );
        assert_eq!(
            parse_str("{@hedge} {a|{b|c} d} {the-item.price}").unwrap(),
            "[@hedge] <a/<b/c> d> [the-item.price]"
        );
        assert_eq!(parse_str("plain").unwrap(), "plain");
        assert!(parse_str("{").unwrap_err().contains("matching `}`"));
        assert!(parse_str("}").unwrap_err().contains("matching `{`"));
        assert!(parse_str("{}").unwrap_err().contains("empty"));
    }

    /// Issue 23: 100,000 nested braces are an error, not a stack overflow.
    #[test]
    fn deep_nesting_is_refused() {
        let deep = "{a|".repeat(100_000) + &"}".repeat(100_000);
        let e = parse_str(&deep).unwrap_err();
        assert!(e.contains("nests more than 32 levels"), "{e}");
        let ok = "{a|".repeat(MAX_NESTING) + &"}".repeat(MAX_NESTING);
        assert!(parse_str(&ok).is_ok());
    }
}
