//! The PDDL STRIPS subset as read: domain and problem, every name with its span.

use crate::source::Span;

#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

/// `name - type` (the type is `object` when omitted).
#[derive(Clone, Debug, PartialEq)]
pub struct Typed {
    pub name: Name,
    pub ty: Name,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Var(Name),
    Const(Name),
}

impl Term {
    pub fn name(&self) -> &Name {
        match self {
            Term::Var(n) | Term::Const(n) => n,
        }
    }
}

/// `(pred t1 ... tn)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Atom {
    pub pred: Name,
    pub args: Vec<Term>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Pos(Atom),
    Neg(Atom),
    /// `(= a b)`, or its negation when `equal` is false.
    Eq {
        a: Term,
        b: Term,
        equal: bool,
        span: Span,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct PredicateDecl {
    pub name: Name,
    pub params: Vec<Typed>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Action {
    pub name: Name,
    pub params: Vec<Typed>,
    pub pre: Vec<Literal>,
    /// Only `Pos` (add) and `Neg` (delete).
    pub eff: Vec<Literal>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Domain {
    pub name: Option<Name>,
    pub requirements: Vec<Name>,
    /// `type - parent`.
    pub types: Vec<Typed>,
    pub constants: Vec<Typed>,
    pub predicates: Vec<PredicateDecl>,
    pub actions: Vec<Action>,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Problem {
    pub name: Option<Name>,
    pub domain: Option<Name>,
    pub objects: Vec<Typed>,
    pub init: Vec<Atom>,
    pub goal: Vec<Literal>,
    pub goal_span: Option<Span>,
}
