//! Name resolution for a PDDL domain and problem: types, constants and objects, predicates and
//! their arities, action parameters. Every reference that does not resolve is reported with its
//! location (`unknown-reference`, `arity-mismatch`, `uninstantiated-variable`,
//! `duplicate-name`); the result keeps only what resolved.

use super::ast::{self, Literal, Term};
use crate::diag::{Code, Diagnostic, Diagnostics, suggest};
use crate::source::Span;
use std::collections::HashMap;

pub type ObjId = u32;
pub type PredId = u32;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Arg {
    Param(u32),
    Obj(ObjId),
}

#[derive(Clone, Debug)]
pub struct LAtom {
    pub pred: PredId,
    pub args: Vec<Arg>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct LAction {
    pub name: String,
    pub span: Span,
    /// Parameter names and the objects each may take (by type).
    pub params: Vec<(String, Vec<ObjId>)>,
    pub pre_pos: Vec<LAtom>,
    pub pre_neg: Vec<LAtom>,
    /// `(= a b)` (true) and `(not (= a b))` (false).
    pub eq: Vec<(Arg, Arg, bool)>,
    pub add: Vec<LAtom>,
    pub del: Vec<LAtom>,
}

#[derive(Clone, Debug)]
pub struct GroundLit {
    pub pred: PredId,
    pub args: Vec<ObjId>,
    pub positive: bool,
    pub span: Span,
}

/// A resolved task, still lifted.
#[derive(Clone, Debug, Default)]
pub struct Lifted {
    pub domain_name: String,
    pub problem_name: String,
    pub objects: Vec<String>,
    pub predicates: Vec<(String, usize, Span)>,
    pub actions: Vec<LAction>,
    pub init: Vec<(PredId, Vec<ObjId>)>,
    pub goal: Vec<GroundLit>,
    /// Goal `(= a b)` between objects, already decided: false makes the task unsolvable.
    pub goal_equalities_hold: bool,
    pub goal_span: Option<Span>,
}

struct Types {
    /// type -> (parent, declaration span)
    parent: HashMap<String, (String, Span)>,
}

impl Types {
    fn new(domain: &ast::Domain, diags: &mut Diagnostics) -> Self {
        let mut parent = HashMap::new();
        for t in &domain.types {
            if t.name.text == "object" {
                continue;
            }
            if parent
                .insert(t.name.text.clone(), (t.ty.text.clone(), t.name.span))
                .is_some()
            {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("type `{}` is declared twice", t.name.text),
                    )
                    .at(t.name.span, "declared again here"),
                );
            }
        }
        let types = Types { parent };
        for t in &domain.types {
            types.check(&t.ty, diags);
        }
        types
    }

    fn known(&self, t: &str) -> bool {
        t == "object" || self.parent.contains_key(t)
    }

    fn check(&self, t: &ast::Name, diags: &mut Diagnostics) -> bool {
        if self.known(&t.text) {
            return true;
        }
        let mut d = Diagnostic::error(
            Code::UnknownReference,
            format!("undeclared type `{}`", t.text),
        )
        .at(t.span, "not declared in `:types`");
        if let Some(s) = suggest(&t.text, self.parent.keys().map(String::as_str)) {
            d = d.note(format!("did you mean `{s}`?"));
        }
        diags.push(d);
        false
    }

    /// `t` and all its ancestors (stops on cycles).
    fn ancestors(&self, t: &str) -> Vec<String> {
        let mut out = vec![t.to_string()];
        let mut cur = t.to_string();
        while let Some((p, _)) = self.parent.get(&cur) {
            if out.contains(p) {
                break;
            }
            out.push(p.clone());
            cur = p.clone();
        }
        if !out.iter().any(|x| x == "object") {
            out.push("object".into());
        }
        out
    }
}

struct Scope<'a> {
    objects: &'a HashMap<String, ObjId>,
    params: &'a [String],
    preds: &'a HashMap<String, PredId>,
    pred_decl: &'a [(String, usize, Span)],
}

impl Scope<'_> {
    fn arg(&self, t: &Term, diags: &mut Diagnostics, ctx: &str) -> Option<Arg> {
        match t {
            Term::Var(n) => match self.params.iter().position(|p| *p == n.text) {
                Some(i) => Some(Arg::Param(i as u32)),
                None => {
                    diags.push(
                        Diagnostic::error(
                            Code::UninstantiatedVariable,
                            format!("variable `{}` is not bound by {ctx}", n.text),
                        )
                        .at(n.span, "not a parameter"),
                    );
                    None
                }
            },
            Term::Const(n) => match self.objects.get(&n.text) {
                Some(&o) => Some(Arg::Obj(o)),
                None => {
                    let mut d = Diagnostic::error(
                        Code::UnknownReference,
                        format!("unknown object or constant `{}`", n.text),
                    )
                    .at(n.span, "not declared");
                    if let Some(s) = suggest(&n.text, self.objects.keys().map(String::as_str)) {
                        d = d.note(format!("did you mean `{s}`?"));
                    }
                    diags.push(d);
                    None
                }
            },
        }
    }

    fn atom(&self, a: &ast::Atom, diags: &mut Diagnostics, ctx: &str) -> Option<LAtom> {
        let Some(&pred) = self.preds.get(&a.pred.text) else {
            let mut d = Diagnostic::error(
                Code::UnknownReference,
                format!("unknown predicate `{}`", a.pred.text),
            )
            .at(a.pred.span, "not declared in `:predicates`");
            if let Some(s) = suggest(&a.pred.text, self.preds.keys().map(String::as_str)) {
                d = d.note(format!("did you mean `{s}`?"));
            }
            diags.push(d);
            return None;
        };
        let (_, arity, decl) = &self.pred_decl[pred as usize];
        if a.args.len() != *arity {
            diags.push(
                Diagnostic::error(
                    Code::ArityMismatch,
                    format!(
                        "`{}` takes {arity} argument{}, but {} {} given",
                        a.pred.text,
                        if *arity == 1 { "" } else { "s" },
                        a.args.len(),
                        if a.args.len() == 1 { "is" } else { "are" }
                    ),
                )
                .at(a.span, "wrong number of arguments")
                .related(*decl, "declared here"),
            );
            return None;
        }
        let mut args = Vec::with_capacity(a.args.len());
        let mut ok = true;
        for t in &a.args {
            match self.arg(t, diags, ctx) {
                Some(x) => args.push(x),
                None => ok = false,
            }
        }
        ok.then_some(LAtom {
            pred,
            args,
            span: a.span,
        })
    }
}

fn ground_args(args: &[Arg]) -> Option<Vec<ObjId>> {
    args.iter()
        .map(|a| match a {
            Arg::Obj(o) => Some(*o),
            Arg::Param(_) => None,
        })
        .collect()
}

/// Resolves `domain` and `problem` together.
pub fn resolve(domain: &ast::Domain, problem: &ast::Problem, diags: &mut Diagnostics) -> Lifted {
    let types = Types::new(domain, diags);
    let mut lifted = Lifted {
        domain_name: domain
            .name
            .as_ref()
            .map(|n| n.text.clone())
            .unwrap_or_default(),
        problem_name: problem
            .name
            .as_ref()
            .map(|n| n.text.clone())
            .unwrap_or_default(),
        goal_equalities_hold: true,
        goal_span: problem.goal_span,
        ..Lifted::default()
    };
    if let (Some(want), Some(dn)) = (&problem.domain, &domain.name)
        && want.text != dn.text
    {
        diags.push(
            Diagnostic::warning(
                Code::UnknownReference,
                format!(
                    "the problem is for domain `{}`, but the domain is `{}`",
                    want.text, dn.text
                ),
            )
            .at(want.span, "expected domain")
            .related(dn.span, "this domain"),
        );
    }
    // Objects: domain constants, then problem objects.
    let mut objects: HashMap<String, ObjId> = HashMap::new();
    let mut obj_types: Vec<Vec<String>> = Vec::new();
    for t in domain.constants.iter().chain(problem.objects.iter()) {
        let known = types.check(&t.ty, diags);
        if let Some(&o) = objects.get(&t.name.text) {
            // The same object listed twice (e.g. with two types) is merged, as planners do.
            if known {
                obj_types[o as usize].extend(types.ancestors(&t.ty.text));
            }
            continue;
        }
        objects.insert(t.name.text.clone(), lifted.objects.len() as ObjId);
        lifted.objects.push(t.name.text.clone());
        obj_types.push(if known {
            types.ancestors(&t.ty.text)
        } else {
            vec!["object".into()]
        });
    }
    let of_type = |ty: &str| -> Vec<ObjId> {
        (0..lifted.objects.len() as ObjId)
            .filter(|&o| obj_types[o as usize].iter().any(|t| t == ty))
            .collect()
    };
    // Predicates.
    let mut preds: HashMap<String, PredId> = HashMap::new();
    for p in &domain.predicates {
        for param in &p.params {
            types.check(&param.ty, diags);
        }
        if let Some(&prev) = preds.get(&p.name.text) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("predicate `{}` is declared twice", p.name.text),
                )
                .at(p.name.span, "declared again here")
                .related(lifted.predicates[prev as usize].2, "first declared here"),
            );
            continue;
        }
        preds.insert(p.name.text.clone(), lifted.predicates.len() as PredId);
        lifted
            .predicates
            .push((p.name.text.clone(), p.params.len(), p.name.span));
    }
    // Actions.
    let mut action_names: HashMap<String, Span> = HashMap::new();
    for a in &domain.actions {
        if let Some(prev) = action_names.insert(a.name.text.clone(), a.name.span) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("action `{}` is declared twice", a.name.text),
                )
                .at(a.name.span, "declared again here")
                .related(prev, "first declared here"),
            );
            continue;
        }
        let mut params = Vec::new();
        let mut names: Vec<String> = Vec::new();
        for p in &a.params {
            if names.contains(&p.name.text) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("parameter `{}` is declared twice", p.name.text),
                    )
                    .at(p.name.span, "declared again here"),
                );
            }
            let objs = if types.check(&p.ty, diags) {
                of_type(&p.ty.text)
            } else {
                Vec::new()
            };
            names.push(p.name.text.clone());
            params.push((p.name.text.clone(), objs));
        }
        let scope = Scope {
            objects: &objects,
            params: &names,
            preds: &preds,
            pred_decl: &lifted.predicates,
        };
        let ctx = format!("the parameters of `{}`", a.name.text);
        let mut la = LAction {
            name: a.name.text.clone(),
            span: a.name.span,
            params,
            pre_pos: Vec::new(),
            pre_neg: Vec::new(),
            eq: Vec::new(),
            add: Vec::new(),
            del: Vec::new(),
        };
        let mut ok = true;
        for l in &a.pre {
            match l {
                Literal::Pos(x) => match scope.atom(x, diags, &ctx) {
                    Some(x) => la.pre_pos.push(x),
                    None => ok = false,
                },
                Literal::Neg(x) => match scope.atom(x, diags, &ctx) {
                    Some(x) => la.pre_neg.push(x),
                    None => ok = false,
                },
                Literal::Eq { a, b, equal, .. } => {
                    match (scope.arg(a, diags, &ctx), scope.arg(b, diags, &ctx)) {
                        (Some(x), Some(y)) => la.eq.push((x, y, *equal)),
                        _ => ok = false,
                    }
                }
            }
        }
        for l in &a.eff {
            match l {
                Literal::Pos(x) => match scope.atom(x, diags, &ctx) {
                    Some(x) => la.add.push(x),
                    None => ok = false,
                },
                Literal::Neg(x) => match scope.atom(x, diags, &ctx) {
                    Some(x) => la.del.push(x),
                    None => ok = false,
                },
                Literal::Eq { .. } => ok = false,
            }
        }
        if ok {
            lifted.actions.push(la);
        }
    }
    // Initial state and goal.
    let ground_scope = Scope {
        objects: &objects,
        params: &[],
        preds: &preds,
        pred_decl: &lifted.predicates,
    };
    let mut init = Vec::new();
    for a in &problem.init {
        if let Some(x) = ground_scope.atom(a, diags, "anything (the initial state is ground)")
            && let Some(args) = ground_args(&x.args)
        {
            init.push((x.pred, args));
        }
    }
    let mut goal = Vec::new();
    for l in &problem.goal {
        match l {
            Literal::Pos(x) | Literal::Neg(x) => {
                if let Some(g) = ground_scope.atom(x, diags, "anything (the goal is ground)")
                    && let Some(args) = ground_args(&g.args)
                {
                    goal.push(GroundLit {
                        pred: g.pred,
                        args,
                        positive: matches!(l, Literal::Pos(_)),
                        span: x.span,
                    });
                }
            }
            Literal::Eq { a, b, equal, .. } => {
                let ctx = "anything (the goal is ground)";
                if let (Some(x), Some(y)) = (
                    ground_scope.arg(a, diags, ctx),
                    ground_scope.arg(b, diags, ctx),
                ) && (x == y) != *equal
                {
                    lifted.goal_equalities_hold = false;
                }
            }
        }
    }
    lifted.init = init;
    lifted.goal = goal;
    lifted
}
