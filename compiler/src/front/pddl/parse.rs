//! From s-expressions to the PDDL AST. Anything outside the STRIPS subset (with `:typing`,
//! `:negative-preconditions`, `:equality`) is refused with `unsupported-feature`, naming the
//! construct at its location; malformed input is a `syntax` error. Parsing goes on after an
//! error so that one run reports every problem.

use super::ast::*;
use super::sexpr::Sexp;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::source::Span;

/// Requirements the reader accepts.
pub const SUPPORTED_REQUIREMENTS: &[&str] =
    &[":strips", ":typing", ":negative-preconditions", ":equality"];

/// Literals one action's precondition may have (docs/formats/pddl.md).
pub const MAX_PRECONDITION_LITERALS: usize = 1_000;

struct Reader<'a> {
    diags: &'a mut Diagnostics,
}

/// Requirements that name ADL constructs; each construct is checked where it is used.
const ADL_REQUIREMENTS: &[&str] = &[
    ":adl",
    ":disjunctive-preconditions",
    ":existential-preconditions",
    ":universal-preconditions",
    ":quantified-preconditions",
    ":conditional-effects",
];

fn unsupported(span: Span, what: &str) -> Diagnostic {
    Diagnostic::error(
        Code::UnsupportedFeature,
        format!(
            "{what} is not supported (only STRIPS with typing, negative preconditions and equality)"
        ),
    )
    .at(span, what.to_string())
}

impl Reader<'_> {
    fn syntax(&mut self, span: Span, msg: impl Into<String>, label: &str) {
        self.diags
            .push(Diagnostic::error(Code::Syntax, msg).at(span, label.to_string()));
    }

    fn name(&mut self, s: &Sexp, what: &str) -> Option<Name> {
        match s {
            Sexp::Atom { text, span } if !text.starts_with(':') => Some(Name {
                text: text.clone(),
                span: *span,
            }),
            _ => {
                self.syntax(s.span(), format!("expected {what}"), "here");
                None
            }
        }
    }

    /// `a b - t c - u d` (a trailing group has type `object`).
    fn typed_list(&mut self, items: &[Sexp], what: &str) -> Vec<Typed> {
        let mut out = Vec::new();
        let mut pending: Vec<Name> = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let it = &items[i];
            if it.atom() == Some("-") {
                let Some(ty) = items.get(i + 1) else {
                    self.syntax(it.span(), "`-` must be followed by a type", "here");
                    break;
                };
                let ty = match ty {
                    Sexp::List { .. } if ty.head() == Some("either") => {
                        self.diags.push(unsupported(ty.span(), "`either` type"));
                        None
                    }
                    _ => self.name(ty, "a type name"),
                };
                if pending.is_empty() {
                    self.syntax(it.span(), format!("`-` without {what} before it"), "here");
                }
                // A refused type still keeps its names (as objects), so the one error is the
                // type's and no arity errors follow.
                let ty = ty.unwrap_or_else(|| Name {
                    text: "object".into(),
                    span: items[i + 1].span(),
                });
                for n in pending.drain(..) {
                    out.push(Typed {
                        name: n,
                        ty: ty.clone(),
                    });
                }
                pending.clear();
                i += 2;
                continue;
            }
            if let Some(n) = self.name(it, what) {
                pending.push(n);
            }
            i += 1;
        }
        for n in pending {
            let span = n.span;
            out.push(Typed {
                name: n,
                ty: Name {
                    text: "object".into(),
                    span,
                },
            });
        }
        out
    }

    fn term(&mut self, s: &Sexp) -> Option<Term> {
        match s {
            Sexp::Atom { text, span } => {
                let n = Name {
                    text: text.clone(),
                    span: *span,
                };
                Some(if text.starts_with('?') {
                    Term::Var(n)
                } else {
                    Term::Const(n)
                })
            }
            Sexp::List { .. } => {
                self.diags
                    .push(unsupported(s.span(), "a function term (object fluents)"));
                None
            }
        }
    }

    fn atom(&mut self, s: &Sexp) -> Option<Atom> {
        let items = s.list()?;
        let pred = self.name(items.first()?, "a predicate name")?;
        let mut args = Vec::new();
        for a in &items[1..] {
            args.push(self.term(a)?);
        }
        Some(Atom {
            pred,
            args,
            span: s.span(),
        })
    }

    /// A precondition or goal: conjunctions of literals and (in)equalities.
    fn condition(&mut self, s: &Sexp, out: &mut Vec<Literal>) {
        let Some(items) = s.list() else {
            self.syntax(s.span(), "expected a condition in parentheses", "here");
            return;
        };
        let Some(head) = s.head() else {
            if !items.is_empty() {
                self.syntax(s.span(), "expected a condition", "here");
            }
            return; // `()` is the empty conjunction
        };
        match head {
            "and" => {
                for c in &items[1..] {
                    self.condition(c, out);
                }
            }
            "not" => {
                let Some(inner) = items.get(1).filter(|_| items.len() == 2) else {
                    self.syntax(s.span(), "`not` takes exactly one formula", "here");
                    return;
                };
                match inner.head() {
                    Some("=") => {
                        if let Some(Literal::Eq { a, b, span, .. }) = self.equality(inner) {
                            out.push(Literal::Eq {
                                a,
                                b,
                                equal: false,
                                span,
                            });
                        }
                    }
                    Some(h) if is_connective(h) => self
                        .diags
                        .push(unsupported(inner.span(), "negation of a compound formula")),
                    _ => {
                        if let Some(a) = self.atom(inner) {
                            out.push(Literal::Neg(a));
                        } else {
                            self.syntax(inner.span(), "expected an atom after `not`", "here");
                        }
                    }
                }
            }
            "=" => {
                if let Some(l) = self.equality(s) {
                    out.push(l);
                }
            }
            "or" => self
                .diags
                .push(unsupported(s.span(), "`or` (disjunctive preconditions)")),
            "imply" => self
                .diags
                .push(unsupported(s.span(), "`imply` (disjunctive preconditions)")),
            "exists" => self.diags.push(unsupported(
                s.span(),
                "`exists` (existential preconditions)",
            )),
            "forall" => self
                .diags
                .push(unsupported(s.span(), "`forall` (universal preconditions)")),
            "preference" => self
                .diags
                .push(unsupported(s.span(), "`preference` (preferences)")),
            "<" | ">" | "<=" | ">=" => self.diags.push(unsupported(
                s.span(),
                &format!("numeric comparison `{head}` (numeric fluents)"),
            )),
            _ => {
                if let Some(a) = self.atom(s) {
                    out.push(Literal::Pos(a));
                }
            }
        }
    }

    fn equality(&mut self, s: &Sexp) -> Option<Literal> {
        let items = s.list()?;
        if items.len() != 3 {
            self.syntax(s.span(), "`=` takes exactly two terms", "here");
            return None;
        }
        if items[1].list().is_some() || items[2].list().is_some() {
            self.diags.push(unsupported(
                s.span(),
                "`=` on function terms (numeric fluents)",
            ));
            return None;
        }
        Some(Literal::Eq {
            a: self.term(&items[1])?,
            b: self.term(&items[2])?,
            equal: true,
            span: s.span(),
        })
    }

    fn effect(&mut self, s: &Sexp, out: &mut Vec<Literal>) {
        let Some(items) = s.list() else {
            self.syntax(s.span(), "expected an effect in parentheses", "here");
            return;
        };
        let Some(head) = s.head() else {
            return;
        };
        match head {
            "and" => {
                for c in &items[1..] {
                    self.effect(c, out);
                }
            }
            "not" => match items.get(1).filter(|_| items.len() == 2) {
                Some(inner) if inner.head().is_some_and(|h| !is_connective(h)) => {
                    if let Some(a) = self.atom(inner) {
                        out.push(Literal::Neg(a));
                    }
                }
                _ => self.syntax(s.span(), "`not` in an effect takes one atom", "here"),
            },
            "when" => self
                .diags
                .push(unsupported(s.span(), "`when` (conditional effects)")),
            "forall" => self.diags.push(unsupported(
                s.span(),
                "`forall` in an effect (universal effects)",
            )),
            "increase" | "decrease" | "assign" | "scale-up" | "scale-down" => {
                let what = if items
                    .get(1)
                    .and_then(Sexp::head)
                    .is_some_and(|f| f == "total-cost")
                {
                    format!("`{head}` of total-cost (:action-costs)")
                } else {
                    format!("numeric effect `{head}` (numeric fluents)")
                };
                self.diags.push(unsupported(s.span(), &what));
            }
            "=" => self.syntax(s.span(), "`=` is not an effect", "here"),
            _ => {
                if let Some(a) = self.atom(s) {
                    out.push(Literal::Pos(a));
                }
            }
        }
    }

    fn requirements(&mut self, items: &[Sexp], out: &mut Vec<Name>) {
        for r in items {
            let Some(text) = r.atom() else {
                self.syntax(r.span(), "expected a requirement such as `:strips`", "here");
                continue;
            };
            if ADL_REQUIREMENTS.contains(&text) {
                // Each ADL construct is refused where it is used, so a STRIPS domain that
                // merely declares it still plans.
                self.diags.push(
                    Diagnostic::warning(
                        Code::UnsupportedFeature,
                        format!("requirement `{text}` is declared, but only its STRIPS part is supported; disjunctions, quantifiers and conditional effects are refused where they are used"),
                    )
                    .at(r.span(), "declared here"),
                );
            } else if !SUPPORTED_REQUIREMENTS.contains(&text) {
                self.diags
                    .push(unsupported(r.span(), &format!("requirement `{text}`")));
            }
            out.push(Name {
                text: text.to_string(),
                span: r.span(),
            });
        }
    }

    fn action(&mut self, s: &Sexp, items: &[Sexp]) -> Option<Action> {
        let name = self.name(items.get(1)?, "an action name")?;
        let mut action = Action {
            name,
            params: Vec::new(),
            pre: Vec::new(),
            eff: Vec::new(),
        };
        let mut i = 2;
        // Where each keyword was first given: a second `:precondition` would silently replace
        // or merge with the first, so it is an error naming both.
        let mut given: Vec<(&str, Span)> = Vec::new();
        while i < items.len() {
            let key = &items[i];
            let Some(value) = items.get(i + 1) else {
                self.syntax(key.span(), "a keyword without a value", "here");
                break;
            };
            if let Some(k @ (":parameters" | ":precondition" | ":effect")) = key.atom() {
                if let Some((_, first)) = given.iter().find(|(g, _)| *g == k) {
                    self.diags.push(
                        Diagnostic::error(
                            Code::Syntax,
                            format!("action `{}` gives `{k}` twice", action.name.text),
                        )
                        .at(key.span(), "given again here")
                        .related(*first, "first given here"),
                    );
                    i += 2;
                    continue;
                }
                given.push((k, key.span()));
            }
            match key.atom() {
                Some(":parameters") => match value.list() {
                    Some(l) => {
                        action.params = self.typed_list(l, "a parameter");
                        for p in &action.params {
                            if !p.name.text.starts_with('?') {
                                self.syntax(
                                    p.name.span,
                                    format!("parameter `{}` must start with `?`", p.name.text),
                                    "here",
                                );
                            }
                        }
                    }
                    None => self.syntax(value.span(), "expected a parameter list", "here"),
                },
                Some(":precondition") => {
                    self.condition(value, &mut action.pre);
                    // Grounding joins the literals one level of recursion each, and a rule
                    // this long is a generator's mistake, not a design.
                    if action.pre.len() > MAX_PRECONDITION_LITERALS {
                        self.diags.push(
                            Diagnostic::error(
                                Code::LimitExceeded,
                                format!(
                                    "action `{}` has {} precondition literals; at most {MAX_PRECONDITION_LITERALS} are allowed",
                                    action.name.text,
                                    action.pre.len()
                                ),
                            )
                            .at(value.span(), "this precondition"),
                        );
                        action.pre.truncate(MAX_PRECONDITION_LITERALS);
                    }
                }
                Some(":effect") => self.effect(value, &mut action.eff),
                Some(k) => self.syntax(
                    key.span(),
                    format!("unknown action keyword `{k}`"),
                    "expected :parameters, :precondition or :effect",
                ),
                None => self.syntax(key.span(), "expected an action keyword", "here"),
            }
            i += 2;
        }
        let _ = s;
        Some(action)
    }
}

fn is_connective(h: &str) -> bool {
    matches!(
        h,
        "and" | "or" | "not" | "imply" | "exists" | "forall" | "when" | "preference"
    )
}

/// The single `(define ...)` of a file.
fn define<'s>(top: &'s [Sexp], r: &mut Reader<'_>, file_span: Span) -> Option<&'s [Sexp]> {
    match top {
        [d] if d.head() == Some("define") => d.list(),
        [d] => {
            r.syntax(d.span(), "expected `(define ...)`", "here");
            None
        }
        [] => {
            r.syntax(file_span, "empty file: expected `(define ...)`", "here");
            None
        }
        [d, ..] if d.head() != Some("define") => {
            r.syntax(d.span(), "expected `(define ...)`", "here");
            None
        }
        [_, extra, ..] => {
            r.syntax(
                extra.span(),
                "only one `(define ...)` per file",
                "unexpected",
            );
            top[0].list()
        }
    }
}

pub fn domain(top: &[Sexp], file_span: Span, diags: &mut Diagnostics) -> Option<Domain> {
    let mut r = Reader { diags };
    let items = define(top, &mut r, file_span)?;
    let mut d = Domain::default();
    let Some(header) = items.get(1) else {
        r.syntax(file_span, "expected `(domain NAME)`", "here");
        return None;
    };
    match header.list() {
        Some([k, n]) if k.atom() == Some("domain") => d.name = r.name(n, "a domain name"),
        Some([k, ..]) if k.atom() == Some("problem") => {
            r.syntax(
                header.span(),
                "this is a problem file, not a domain",
                "here",
            );
            return None;
        }
        _ => r.syntax(header.span(), "expected `(domain NAME)`", "here"),
    }
    for sec in &items[2..] {
        let Some(l) = sec.list() else {
            r.syntax(sec.span(), "expected a section in parentheses", "here");
            continue;
        };
        match sec.head() {
            Some(":requirements") => r.requirements(&l[1..], &mut d.requirements),
            Some(":types") => d.types = r.typed_list(&l[1..], "a type"),
            Some(":constants") => d.constants = r.typed_list(&l[1..], "a constant"),
            Some(":predicates") => {
                for p in &l[1..] {
                    match p.list() {
                        Some([n, params @ ..]) => {
                            if let Some(name) = r.name(n, "a predicate name") {
                                let params = r.typed_list(params, "a parameter");
                                d.predicates.push(PredicateDecl { name, params });
                            }
                        }
                        _ => r.syntax(p.span(), "expected `(predicate ?x ...)`", "here"),
                    }
                }
            }
            Some(":action") => {
                if let Some(a) = r.action(sec, l) {
                    d.actions.push(a);
                }
            }
            Some(":functions") => r.diags.push(unsupported(
                sec.span(),
                "`:functions` (numeric fluents / action costs)",
            )),
            Some(":durative-action") => r.diags.push(unsupported(
                sec.span(),
                "`:durative-action` (durative actions)",
            )),
            Some(":derived") => r
                .diags
                .push(unsupported(sec.span(), "`:derived` (derived predicates)")),
            Some(":constraints") => r.diags.push(unsupported(
                sec.span(),
                "`:constraints` (state trajectory constraints)",
            )),
            Some(h @ (":process" | ":event")) => r
                .diags
                .push(unsupported(sec.span(), &format!("`{h}` (PDDL+)"))),
            Some(h) => r.syntax(sec.span(), format!("unknown domain section `{h}`"), "here"),
            None => r.syntax(sec.span(), "expected a section keyword", "here"),
        }
    }
    Some(d)
}

pub fn problem(top: &[Sexp], file_span: Span, diags: &mut Diagnostics) -> Option<Problem> {
    let mut r = Reader { diags };
    let items = define(top, &mut r, file_span)?;
    let mut p = Problem::default();
    let Some(header) = items.get(1) else {
        r.syntax(file_span, "expected `(problem NAME)`", "here");
        return None;
    };
    match header.list() {
        Some([k, n]) if k.atom() == Some("problem") => p.name = r.name(n, "a problem name"),
        Some([k, ..]) if k.atom() == Some("domain") => {
            r.syntax(
                header.span(),
                "this is a domain file, not a problem",
                "here",
            );
            return None;
        }
        _ => r.syntax(header.span(), "expected `(problem NAME)`", "here"),
    }
    for sec in &items[2..] {
        let Some(l) = sec.list() else {
            r.syntax(sec.span(), "expected a section in parentheses", "here");
            continue;
        };
        match sec.head() {
            Some(":domain") => match l.get(1) {
                Some(n) => p.domain = r.name(n, "a domain name"),
                None => r.syntax(sec.span(), "expected `(:domain NAME)`", "here"),
            },
            Some(":requirements") => {
                let mut ignored = Vec::new();
                r.requirements(&l[1..], &mut ignored)
            }
            Some(":objects") => p.objects = r.typed_list(&l[1..], "an object"),
            Some(":init") => {
                for a in &l[1..] {
                    match a.head() {
                        Some("=") => r.diags.push(unsupported(
                            a.span(),
                            "a numeric fluent in the initial state",
                        )),
                        Some("at")
                            if a.list()
                                .is_some_and(|x| x.len() == 3 && x[2].list().is_some()) =>
                        {
                            r.diags
                                .push(unsupported(a.span(), "a timed initial literal"))
                        }
                        Some("not") => {} // closed world: negative facts are implicit
                        Some(_) => {
                            if let Some(atom) = r.atom(a) {
                                p.init.push(atom);
                            }
                        }
                        None => r.syntax(a.span(), "expected an atom", "here"),
                    }
                }
            }
            Some(":goal") => {
                p.goal_span = Some(sec.span());
                match l.get(1) {
                    Some(g) => r.condition(g, &mut p.goal),
                    None => r.syntax(sec.span(), "expected a goal formula", "here"),
                }
            }
            Some(":metric") => r.diags.push(unsupported(
                sec.span(),
                "`:metric` (action costs / plan metrics)",
            )),
            Some(":constraints") => r.diags.push(unsupported(
                sec.span(),
                "`:constraints` (state trajectory constraints)",
            )),
            Some(h) => r.syntax(sec.span(), format!("unknown problem section `{h}`"), "here"),
            None => r.syntax(sec.span(), "expected a section keyword", "here"),
        }
    }
    if p.goal_span.is_none() {
        r.syntax(file_span, "the problem has no `(:goal ...)`", "here");
    }
    Some(p)
}
