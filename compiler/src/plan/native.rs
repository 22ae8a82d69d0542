//! Native STRIPS domains and problems (`*.domain.ron`, `*.problem.ron`) read into the PDDL
//! frontend's AST, so that name resolution, grounding and every check are shared with PDDL.
//! Literals are written in the cell syntax of interaction scripts (`atShop(Who)`,
//! `not doorOpen`, `Who != npc`) and every name keeps its exact location inside its string.

use super::assets::{DomainAsset, ProblemAsset};
use super::literal::{self as lit, Word};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::front::pddl::ast::{self, Atom, Literal, Name, PredicateDecl, Term, Typed};
use crate::front::ron::locate::Seg;
use crate::source::Span;
use std::ops::Range;

/// Finds the span of a value by path, and of a range inside a string value.
pub trait Where {
    fn span(&self, path: &[Seg<'_>]) -> Span;

    /// `range` inside the string at `path` (exact unless the string has escapes).
    fn inside(&self, path: &[Seg<'_>], range: Range<usize>) -> Span {
        let s = self.span(path);
        let inner = s.start + 1;
        Span {
            file: s.file,
            start: (inner + range.start as u32).min(s.end),
            end: (inner + range.end as u32).min(s.end),
        }
    }
}

impl Where for crate::front::ron::Locator {
    fn span(&self, path: &[Seg<'_>]) -> Span {
        crate::front::ron::Locator::span(self, path)
    }
}

/// What a native action says beyond PDDL: who performs it and which machine.
#[derive(Clone, Debug, Default)]
pub struct ActionMeta {
    /// Index of the actor parameter.
    pub actor: Option<usize>,
    pub machine: Option<Name>,
}

pub struct NativeDomain {
    pub ast: ast::Domain,
    /// One per action of `ast.actions`.
    pub meta: Vec<ActionMeta>,
}

fn name(text: &str, span: Span) -> Name {
    Name {
        text: text.to_string(),
        span,
    }
}

fn typed(text: &str, ty: &str, span: Span, ty_span: Span) -> Typed {
    Typed {
        name: name(text, span),
        ty: name(ty, ty_span),
    }
}

/// Parses one string of literals and turns each into the AST; errors are located inside it.
fn literals(
    text: &str,
    path: &[Seg<'_>],
    loc: &dyn Where,
    diags: &mut Diagnostics,
) -> Vec<Literal> {
    let at = |r: Range<usize>| loc.inside(path, r);
    let parsed = match lit::literals(text) {
        Ok(l) => l,
        Err(e) => {
            diags.push(Diagnostic::error(e.code, e.message).at(at(e.range), "here"));
            return Vec::new();
        }
    };
    parsed
        .into_iter()
        .map(|l| match l {
            lit::Literal::Pos(a) => Literal::Pos(atom(&a, &at)),
            lit::Literal::Neg(a, _) => Literal::Neg(atom(&a, &at)),
            lit::Literal::Eq(a, b, equal, range) => Literal::Eq {
                a: term(&a, &at),
                b: term(&b, &at),
                equal,
                span: at(range),
            },
        })
        .collect()
}

fn atom(a: &lit::Atom, at: &dyn Fn(Range<usize>) -> Span) -> Atom {
    Atom {
        pred: name(&a.pred, at(a.pred_range.clone())),
        args: a.args.iter().map(|w| term(w, at)).collect(),
        span: at(a.range.clone()),
    }
}

fn term(w: &Word, at: &dyn Fn(Range<usize>) -> Span) -> Term {
    match w {
        Word::Var(v, r) => Term::Var(name(v, at(r.clone()))),
        Word::Name(n, r) => Term::Const(name(n, at(r.clone()))),
    }
}

/// `{name: type}` maps (types, constants, objects) as typed names, located at their keys.
fn typed_map(
    map: &std::collections::BTreeMap<String, String>,
    field: &'static str,
    loc: &dyn Where,
) -> Vec<Typed> {
    map.iter()
        .map(|(k, v)| {
            let span = loc.span(&[Seg::Field(field), Seg::Field(k)]);
            typed(k, v, span, span)
        })
        .collect()
}

/// Reads a native domain into the AST.
pub fn domain(asset: &DomainAsset, loc: &dyn Where, diags: &mut Diagnostics) -> NativeDomain {
    let mut d = ast::Domain {
        name: Some(name(&asset.name, loc.span(&[Seg::Field("name")]))),
        types: typed_map(&asset.types, "types", loc),
        constants: typed_map(&asset.constants, "constants", loc),
        ..ast::Domain::default()
    };
    for (i, text) in asset.predicates.iter().enumerate() {
        let path = [Seg::Field("predicates"), Seg::Index(i)];
        let at = |r: Range<usize>| loc.inside(&path, r);
        match lit::atoms(text) {
            Ok(atoms) => {
                for a in atoms {
                    let mut params = Vec::new();
                    for (k, t) in a.args.iter().enumerate() {
                        let span = at(t.range());
                        match t {
                            Word::Name(ty, _) => params.push(typed(&format!("?{k}"), ty, span, span)),
                            Word::Var(..) => diags.push(
                                Diagnostic::error(
                                    Code::Syntax,
                                    "a predicate declares the types of its arguments: `inside(agent)`",
                                )
                                .at(span, "expected a type name"),
                            ),
                        }
                    }
                    d.predicates.push(PredicateDecl {
                        name: name(&a.pred, at(a.pred_range.clone())),
                        params,
                    });
                }
            }
            Err(e) => diags.push(Diagnostic::error(e.code, e.message).at(at(e.range), "here")),
        }
    }
    let mut meta = Vec::new();
    for (i, a) in asset.actions.iter().enumerate() {
        let field = |f: &'static str| [Seg::Field("actions"), Seg::Index(i), Seg::Field(f)];
        let mut params = Vec::new();
        for (k, (p, ty)) in a.parameters.iter().enumerate() {
            let path = [
                Seg::Field("actions"),
                Seg::Index(i),
                Seg::Field("parameters"),
                Seg::Index(k),
            ];
            let span = loc.span(&path);
            if !p.starts_with(|c: char| c.is_ascii_uppercase() || c == '_') {
                diags.push(
                    Diagnostic::error(
                        Code::Syntax,
                        format!("parameter `{p}` must start upper-case: it is a variable"),
                    )
                    .at(span, "here"),
                );
            }
            params.push(typed(p, ty, span, span));
        }
        let actor = match &a.actor {
            None => None,
            Some(who) => {
                let found = a.parameters.iter().position(|(p, _)| p == who);
                if found.is_none() {
                    diags.push(
                        Diagnostic::error(
                            Code::UnknownReference,
                            format!(
                                "the actor `{who}` of `{}` is not one of its parameters",
                                a.name
                            ),
                        )
                        .at(loc.span(&field("actor")), "not a parameter"),
                    );
                }
                found
            }
        };
        let list = |f: &'static str, items: &[String], diags: &mut Diagnostics| {
            let mut out = Vec::new();
            for (k, text) in items.iter().enumerate() {
                let path = [
                    Seg::Field("actions"),
                    Seg::Index(i),
                    Seg::Field(f),
                    Seg::Index(k),
                ];
                out.extend(literals(text, &path, loc, diags));
            }
            out
        };
        let pre = list("pre", &a.pre, diags);
        let mut eff: Vec<Literal> = Vec::new();
        for l in list("add", &a.add, diags) {
            match l {
                Literal::Pos(x) => eff.push(Literal::Pos(x)),
                other => bad_effect(&other, diags),
            }
        }
        for l in list("del", &a.del, diags) {
            match l {
                Literal::Pos(x) => eff.push(Literal::Neg(x)),
                other => bad_effect(&other, diags),
            }
        }
        d.actions.push(ast::Action {
            name: name(&a.name, loc.span(&field("name"))),
            params,
            pre,
            eff,
        });
        meta.push(ActionMeta {
            actor,
            machine: a
                .machine
                .as_ref()
                .map(|m| name(m, loc.span(&field("machine")))),
        });
    }
    NativeDomain { ast: d, meta }
}

fn bad_effect(l: &Literal, diags: &mut Diagnostics) {
    let span = match l {
        Literal::Pos(a) | Literal::Neg(a) => a.span,
        Literal::Eq { span, .. } => *span,
    };
    diags.push(
        Diagnostic::error(
            Code::Syntax,
            "`add` and `del` list facts (`doorOpen`, `inside(Who)`), not negations or comparisons",
        )
        .at(span, "here"),
    );
}

/// Reads a native problem into the AST (objects, initial state, goal).
pub fn problem(asset: &ProblemAsset, loc: &dyn Where, diags: &mut Diagnostics) -> ast::Problem {
    let mut p = ast::Problem {
        name: Some(name(&asset.name, loc.span(&[Seg::Field("name")]))),
        domain: Some(name(&asset.domain, loc.span(&[Seg::Field("domain")]))),
        objects: typed_map(&asset.objects, "objects", loc),
        goal_span: Some(loc.span(&[Seg::Field("goal")])),
        ..ast::Problem::default()
    };
    for (k, text) in asset.init.iter().enumerate() {
        let path = [Seg::Field("init"), Seg::Index(k)];
        for l in literals(text, &path, loc, diags) {
            match l {
                Literal::Pos(a) => p.init.push(a),
                other => {
                    let span = match &other {
                        Literal::Neg(a) => a.span,
                        Literal::Pos(a) => a.span,
                        Literal::Eq { span, .. } => *span,
                    };
                    diags.push(
                        Diagnostic::error(
                            Code::Syntax,
                            "the initial state lists the facts that hold (every other fact is false)",
                        )
                        .at(span, "not a fact"),
                    );
                }
            }
        }
    }
    for (k, text) in asset.goal.iter().enumerate() {
        let path = [Seg::Field("goal"), Seg::Index(k)];
        p.goal.extend(literals(text, &path, loc, diags));
    }
    p
}

/// Parses a literal list written in a world event (`set`, `when`) against nothing yet: the
/// caller resolves it against its problem.
pub fn event_literals(text: &str, span: Span, diags: &mut Diagnostics) -> Vec<Literal> {
    struct At(Span);
    impl Where for At {
        fn span(&self, _: &[Seg<'_>]) -> Span {
            self.0
        }
    }
    literals(text, &[], &At(span), diags)
}
