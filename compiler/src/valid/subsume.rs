//! Whether one precondition holds whenever another does (θ-subsumption for Datalog with
//! negation as failure), for `unexecutable-rule`: a later rule is a specialisation of an
//! earlier one of the same state and role (35.5.1) when the earlier rule's literals map into
//! the later rule's under a substitution of its variables.
//!
//! Sound, not complete: it only claims what holds. Positive literals, `.any` and comparisons
//! of the earlier rule must appear in the later one under the substitution; a negation
//! `not a` of the earlier rule needs a negation `not b` in the later one whose atom is at least
//! as general (`¬∃ b` implies `¬ a`), where only variables local to the negations may be
//! generalised. Literals are matched in any order, so a precondition is only taken in when its
//! written order binds every variable before it is read: rules with unsafe negations or late
//! bindings, or whose earlier rule draws random numbers, are never claimed.

use crate::ir::script::{AtomAst, BinOp, CmpOp, LiteralAst, Term};
use std::collections::{HashMap, HashSet};

/// A term with variables renamed into one namespace per rule.
#[derive(Clone, Debug, PartialEq)]
enum T {
    /// A variable bound by a positive literal, `.any` or an assignment.
    Bound(String),
    /// A variable that occurs only inside negations: existential there.
    Local(String),
    Sym(String),
    Num(u64),
    Me,
    Now,
    Call(String, Vec<T>),
    Bin(BinOp, Box<T>, Box<T>),
}

/// A literal over [`T`].
#[derive(Clone, Debug, PartialEq)]
enum L {
    Pos(String, Vec<T>),
    Neg(String, Vec<T>),
    Cmp(T, CmpOp, T),
    Any(T),
}

fn term(t: &Term, bound: &HashSet<&str>) -> T {
    match t {
        Term::Var(v, _) if bound.contains(v.as_str()) => T::Bound(v.clone()),
        Term::Var(v, _) => T::Local(v.clone()),
        Term::Sym(s, _) => T::Sym(s.clone()),
        Term::Num(x, _) => T::Num(x.to_bits()),
        Term::Me(_) => T::Me,
        Term::Now(_) => T::Now,
        Term::Call(f, args, _) => T::Call(f.clone(), args.iter().map(|a| term(a, bound)).collect()),
        Term::Bin(op, l, r, _) => T::Bin(*op, Box::new(term(l, bound)), Box::new(term(r, bound))),
    }
}

fn vars<'a>(t: &'a Term, out: &mut Vec<&'a str>) {
    let mut v = Vec::new();
    t.vars(&mut v);
    out.extend(v.into_iter().map(|(n, _)| n).filter(|n| *n != "_"));
}

fn atom_vars(a: &AtomAst) -> Vec<&str> {
    let mut out = Vec::new();
    for t in &a.args {
        vars(t, &mut out);
    }
    out
}

/// Whether every variable of `t` (`_` included, which nothing binds) is in `bound`.
fn all_bound(t: &Term, bound: &HashSet<&str>) -> bool {
    let mut v = Vec::new();
    t.vars(&mut v);
    v.iter().all(|(n, _)| bound.contains(n))
}

/// A precondition in the form the check works on, or `None` when it is out of scope: an unsafe
/// negation (a variable first seen in a negation and bound after it, by a positive literal,
/// `.any` or an assignment); `_` inside a positive literal, which is its own variable each time;
/// a variable read before anything binds it (a comparison, a function term, the right side of an
/// assignment), which makes that literal fail (or, in a negation, hold) whatever the tuple
/// space — claims about such a rule, made as if the literals were in another order, are false.
fn normalise(pre: &[LiteralAst]) -> Option<Vec<L>> {
    let mut bound: HashSet<&str> = HashSet::new();
    let mut seen_in_negation: HashSet<&str> = HashSet::new();
    for lit in pre {
        match lit {
            LiteralAst::Pos(a) | LiteralAst::Neg(a, _) => {
                // Function terms are evaluated when reached, before the atom binds anything.
                if a.args
                    .iter()
                    .any(|t| !matches!(t, Term::Var(..)) && !all_bound(t, &bound))
                {
                    return None;
                }
                let fresh = atom_vars(a).into_iter().filter(|v| !bound.contains(v));
                if matches!(lit, LiteralAst::Neg(..)) {
                    seen_in_negation.extend(fresh);
                    continue;
                }
                for v in fresh.collect::<Vec<_>>() {
                    if seen_in_negation.contains(v) {
                        return None;
                    }
                    bound.insert(v);
                }
            }
            LiteralAst::Any(Term::Var(v, _), _) if v != "_" => {
                if seen_in_negation.contains(v.as_str()) {
                    return None;
                }
                bound.insert(v);
            }
            LiteralAst::Any(t, _) => {
                if !all_bound(t, &bound) {
                    return None;
                }
            }
            LiteralAst::Cmp(Term::Var(v, _), CmpOp::Eq, r, _) if !bound.contains(v.as_str()) => {
                if seen_in_negation.contains(v.as_str()) || !all_bound(r, &bound) {
                    return None;
                }
                bound.insert(v);
            }
            LiteralAst::Cmp(l, _, r, _) => {
                if !all_bound(l, &bound) || !all_bound(r, &bound) {
                    return None;
                }
            }
        }
    }
    // Anonymous variables are distinct each time: give each its own name.
    let mut anon = 0;
    let mut fresh = |t: &Term| -> Term {
        fn go(t: &Term, anon: &mut usize) -> Term {
            match t {
                Term::Var(v, r) if v == "_" => {
                    *anon += 1;
                    Term::Var(format!("_{anon}"), r.clone())
                }
                Term::Call(f, args, r) => Term::Call(
                    f.clone(),
                    args.iter().map(|a| go(a, anon)).collect(),
                    r.clone(),
                ),
                Term::Bin(op, l, rt, r) => Term::Bin(
                    *op,
                    Box::new(go(l, anon)),
                    Box::new(go(rt, anon)),
                    r.clone(),
                ),
                other => other.clone(),
            }
        }
        go(t, &mut anon)
    };
    let mut out = Vec::new();
    for lit in pre {
        out.push(match lit {
            LiteralAst::Pos(a) => {
                if a.args
                    .iter()
                    .any(|t| matches!(t, Term::Var(v, _) if v == "_"))
                {
                    // `_` in a positive literal binds nothing; keep it out of the check.
                    return None;
                }
                L::Pos(
                    a.predicate.clone(),
                    a.args.iter().map(|t| term(t, &bound)).collect(),
                )
            }
            LiteralAst::Neg(a, _) => L::Neg(
                a.predicate.clone(),
                a.args.iter().map(|t| term(&fresh(t), &bound)).collect(),
            ),
            LiteralAst::Cmp(l, op, r, _) => L::Cmp(term(l, &bound), *op, term(r, &bound)),
            LiteralAst::Any(t, _) => L::Any(term(t, &bound)),
        });
    }
    Some(out)
}

/// θ: the earlier rule's bound variables to the later rule's terms.
type Theta = HashMap<String, T>;

/// Matches `pattern` (earlier rule) against `target` (later rule), extending θ.
fn match_term(pattern: &T, target: &T, theta: &mut Theta) -> bool {
    match (pattern, target) {
        (T::Bound(v), t) => match theta.get(v) {
            Some(prev) => prev == t,
            None => {
                theta.insert(v.clone(), t.clone());
                true
            }
        },
        (T::Call(f, a), T::Call(g, b)) => {
            f == g && a.len() == b.len() && a.iter().zip(b).all(|(x, y)| match_term(x, y, theta))
        }
        (T::Bin(o, a, b), T::Bin(p, c, d)) => {
            o == p && match_term(a, c, theta) && match_term(b, d, theta)
        }
        // Locals of the earlier rule are handled by the negation check, never here.
        (T::Local(_), _) => false,
        (a, b) => a == b,
    }
}

/// `b` (a negated atom of the later rule) is at least as general as `a` (one of the earlier
/// rule's, under θ): its local variables may stand for anything, consistently; everything
/// else must be equal. The earlier rule's own locals must meet the later rule's locals.
fn generalises(b: &[T], a: &[T], theta: &Theta) -> bool {
    let mut sigma: HashMap<&str, T> = HashMap::new();
    fn apply(t: &T, theta: &Theta) -> Option<T> {
        Some(match t {
            T::Bound(v) => theta.get(v)?.clone(),
            T::Call(f, args) => T::Call(
                f.clone(),
                args.iter()
                    .map(|x| apply(x, theta))
                    .collect::<Option<_>>()?,
            ),
            T::Bin(o, l, r) => T::Bin(*o, Box::new(apply(l, theta)?), Box::new(apply(r, theta)?)),
            other => other.clone(),
        })
    }
    b.len() == a.len()
        && b.iter().zip(a).all(|(bt, at)| {
            let Some(at) = apply(at, theta) else {
                return false;
            };
            match bt {
                T::Local(v) => match sigma.get(v.as_str()) {
                    Some(prev) => *prev == at,
                    None => {
                        sigma.insert(v, at);
                        true
                    }
                },
                // An earlier rule's local is universally quantified in `¬∃`: only a local of
                // the later rule can stand for it.
                _ if matches!(at, T::Local(_)) => false,
                other => *other == at,
            }
        })
}

/// Whether `earlier` holds whenever `later` does.
pub fn subsumes(earlier: &[LiteralAst], later: &[LiteralAst]) -> bool {
    let (Some(e), Some(l)) = (normalise(earlier), normalise(later)) else {
        return false;
    };
    // Comparisons and `.any` only constrain: match the positive literals first, then check
    // the rest under the substitution they fix.
    fn search(e: &[L], l: &[L], i: usize, theta: &mut Theta, rest: &[&L]) -> bool {
        if i == e.len() {
            return rest.iter().all(|lit| holds_in(lit, l, theta));
        }
        match &e[i] {
            L::Pos(p, args) => l.iter().any(|cand| {
                let L::Pos(q, cargs) = cand else {
                    return false;
                };
                if p != q || args.len() != cargs.len() {
                    return false;
                }
                let mut t = theta.clone();
                args.iter()
                    .zip(cargs)
                    .all(|(a, b)| match_term(a, b, &mut t))
                    && search(e, l, i + 1, &mut t, rest)
            }),
            L::Any(x) => l.iter().any(|cand| {
                let L::Any(y) = cand else { return false };
                let mut t = theta.clone();
                match_term(x, y, &mut t) && search(e, l, i + 1, &mut t, rest)
            }),
            // Assignments bind: like a positive literal.
            L::Cmp(x @ T::Bound(v), CmpOp::Eq, y) if !theta.contains_key(v) => {
                l.iter().any(|cand| {
                    let L::Cmp(a, CmpOp::Eq, b) = cand else {
                        return false;
                    };
                    let mut t = theta.clone();
                    match_term(x, a, &mut t)
                        && match_term(y, b, &mut t)
                        && search(e, l, i + 1, &mut t, rest)
                })
            }
            _ => search(e, l, i + 1, theta, rest),
        }
    }
    fn holds_in(lit: &L, l: &[L], theta: &Theta) -> bool {
        match lit {
            L::Cmp(x, op, y) => l.iter().any(|cand| {
                let L::Cmp(a, o, b) = cand else { return false };
                let mut t = theta.clone();
                (o == op && match_term(x, a, &mut t) && match_term(y, b, &mut t))
                    || (matches!(op, CmpOp::Eq | CmpOp::Ne) && o == op && {
                        let mut t = theta.clone();
                        match_term(x, b, &mut t) && match_term(y, a, &mut t)
                    })
            }),
            L::Neg(p, args) => l.iter().any(|cand| {
                let L::Neg(q, cargs) = cand else { return false };
                p == q && generalises(cargs, args, theta)
            }),
            _ => true,
        }
    }
    let rest: Vec<&L> = e
        .iter()
        .filter(|x| matches!(x, L::Neg(..) | L::Cmp(..)))
        .collect();
    search(&e, &l, 0, &mut Theta::new(), &rest)
}

#[cfg(test)]
mod tests {
    use super::subsumes;
    use crate::script::cell::literals;

    fn s(earlier: &str, later: &str) -> bool {
        subsumes(&literals(earlier).unwrap(), &literals(later).unwrap())
    }

    #[test]
    fn specialisations_are_caught_whatever_the_order_and_names() {
        assert!(s("seat(X)", "seat(X), free(X)"));
        assert!(
            s("seat(X)", "free(Y), seat(Y)"),
            "order and names do not matter"
        );
        assert!(s(
            "seat(X), not reserved(X, Y)",
            "seat(S), sunny, not reserved(S, Z)"
        ));
        assert!(s("talker(X), X != .me", "talker(Y), .me != Y, sitting(Y)"));
        assert!(s("timer(.me, T), T < .now", "timer(.me, T), T < .now"));
        assert!(s(".any(X), sitting(X)", "sitting(Y), .any(Y), Y != .me"));
        assert!(s("p(X, X)", "p(a, a)"));
        // A more general negation in the later rule implies the earlier one's.
        assert!(s("not reserved(seat1, X)", "not reserved(Y, Z)"));
        assert!(s("", "anything(X)"), "an empty precondition always holds");
    }

    #[test]
    fn what_does_not_follow_is_not_claimed() {
        assert!(!s("seat(X), free(X)", "seat(X)"));
        assert!(!s("p(X, X)", "p(X, Y)"));
        assert!(!s("p(a)", "p(X)"));
        // `¬∃Y reserved(X, Y)` is stronger than `¬ reserved(X, b)`.
        assert!(!s(
            "seat(X), not reserved(X, Y)",
            "seat(X), not reserved(X, b)"
        ));
        assert!(!s(
            "not reserved(X, Y)",
            "seat(X), not reserved(X, Z), seat(Z)"
        ));
        assert!(!s("T < 5", "T < 6"));
        // Bound too late, the earlier rule never holds: it shadows nothing.
        assert!(!s("T < 5, q(T)", "q(T), T < 5"));
        assert!(!s("p(X + 1), q(X)", "q(X), p(X + 1)"));
        assert!(!s("X = Y, q(Y)", "q(Y), X = Y"));
        // `.any` after a negation: the negation saw the variable unbound (¬∃).
        assert!(!s("not p(X), .any(X)", ".any(X), not p(X)"));
        assert!(!s("q(X), X = 1", "q(X), X = 2"));
    }

    /// A brute-force oracle: preconditions over two predicates and three constants, evaluated
    /// in every tuple space over them; whenever `subsumes` says yes, the earlier precondition
    /// must hold in every space where the later one does.
    mod oracle {
        use super::super::subsumes;
        use crate::script::cell::{LiteralAst, Term, literals};
        use proptest::prelude::*;
        use std::collections::HashMap;

        const CONSTS: [&str; 3] = ["a", "b", "c"];

        fn value<'a>(t: &'a Term, env: &HashMap<String, &'a str>) -> Option<&'a str> {
            match t {
                Term::Sym(s, _) => Some(s.as_str()),
                Term::Var(v, _) => env.get(v).copied(),
                _ => None,
            }
        }

        fn fact_holds(space: &[(bool, [&str; 2])], p: &str, args: &[&str]) -> bool {
            space
                .iter()
                .any(|(q, xs)| (p == "p") == *q && xs[..args.len()] == *args && args.len() == 2)
        }

        /// Whether the precondition has a solution in `space`, trying every assignment of its
        /// variables; variables local to a negation are existential inside it.
        fn holds(pre: &[LiteralAst], space: &[(bool, [&str; 2])]) -> bool {
            let mut bound: Vec<String> = Vec::new();
            for lit in pre {
                if let LiteralAst::Pos(a) = lit {
                    for t in &a.args {
                        if let Term::Var(v, _) = t
                            && !bound.contains(v)
                        {
                            bound.push(v.clone());
                        }
                    }
                }
            }
            let n = bound.len();
            (0..3usize.pow(n as u32)).any(|code| {
                let mut env = HashMap::new();
                let mut c = code;
                for v in &bound {
                    env.insert(v.clone(), CONSTS[c % 3]);
                    c /= 3;
                }
                pre.iter().all(|lit| match lit {
                    LiteralAst::Pos(a) => {
                        let args: Vec<&str> =
                            a.args.iter().map(|t| value(t, &env).unwrap()).collect();
                        fact_holds(space, &a.predicate, &args)
                    }
                    LiteralAst::Neg(a, _) => {
                        // ¬∃ locals.
                        let locals: Vec<&String> = a
                            .args
                            .iter()
                            .filter_map(|t| match t {
                                Term::Var(v, _) if !env.contains_key(v) => Some(v),
                                _ => None,
                            })
                            .collect();
                        !(0..3usize.pow(locals.len() as u32)).any(|code| {
                            let mut env = env.clone();
                            let mut c = code;
                            for v in &locals {
                                env.insert((*v).clone(), CONSTS[c % 3]);
                                c /= 3;
                            }
                            let args: Vec<&str> =
                                a.args.iter().map(|t| value(t, &env).unwrap()).collect();
                            fact_holds(space, &a.predicate, &args)
                        })
                    }
                    LiteralAst::Cmp(l, op, r, _) => {
                        let (x, y) = (value(l, &env), value(r, &env));
                        match *op {
                            crate::ir::script::CmpOp::Eq => x == y,
                            _ => x != y,
                        }
                    }
                    LiteralAst::Any(..) => true,
                })
            })
        }

        fn arg() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("X".to_string()),
                Just("Y".to_string()),
                Just("Z".to_string()),
                Just("a".to_string()),
                Just("b".to_string()),
            ]
        }

        fn literal() -> impl Strategy<Value = String> {
            (0..4u8, proptest::bool::ANY, arg(), arg()).prop_map(|(kind, p, x, y)| {
                let pred = if p { "p" } else { "q" };
                match kind {
                    0 | 1 => format!("{pred}({x}, {y})"),
                    2 => format!("not {pred}({x}, {y})"),
                    _ => format!("{x} != {y}"),
                }
            })
        }

        fn precondition() -> impl Strategy<Value = String> {
            proptest::collection::vec(literal(), 0..4).prop_map(|l| l.join(", "))
        }

        /// Every variable of a comparison is bound by a positive literal before it, as the
        /// validator's other checks require; anything else is out of scope here.
        fn safe(pre: &[LiteralAst]) -> bool {
            let mut bound: Vec<&str> = Vec::new();
            pre.iter().all(|lit| match lit {
                LiteralAst::Pos(a) => {
                    for t in &a.args {
                        if let Term::Var(v, _) = t {
                            bound.push(v);
                        }
                    }
                    true
                }
                LiteralAst::Cmp(l, _, r, _) => [l, r]
                    .iter()
                    .all(|t| !matches!(t, Term::Var(v, _) if !bound.contains(&v.as_str()))),
                _ => true,
            })
        }

        /// Every pair of a fixed corpus, in every space of up to two facts: claims are sound,
        /// and there are claims to check (the property is not vacuous).
        #[test]
        fn every_pair_of_a_corpus() {
            let corpus = [
                "",
                "p(X, Y)",
                "p(X, X)",
                "p(X, a)",
                "p(a, X)",
                "q(X, Y)",
                "p(X, Y), q(Y, Z)",
                "q(Y, Z), p(X, Y)",
                "p(X, Y), not q(Y, Z)",
                "p(X, Y), not q(Y, b)",
                "p(X, Y), not q(X, Y)",
                "not p(a, X)",
                "not p(X, Y)",
                "p(X, Y), X != Y",
                "p(X, Y), Y != X",
                "p(X, Y), q(X, Y), X != Y",
                "p(a, b)",
                "p(X, Y), not p(Y, X)",
                "q(X, a), not p(X, Z), not q(Z, X)",
            ];
            let parsed: Vec<_> = corpus.iter().map(|c| literals(c).unwrap()).collect();
            let mut spaces: Vec<Vec<(bool, [&str; 2])>> = vec![vec![]];
            let facts: Vec<(bool, [&str; 2])> = [true, false]
                .iter()
                .flat_map(|p| {
                    CONSTS
                        .iter()
                        .flat_map(move |x| CONSTS.iter().map(move |y| (*p, [*x, *y])))
                })
                .collect();
            for f in &facts {
                spaces.push(vec![*f]);
                for g in &facts {
                    spaces.push(vec![*f, *g]);
                }
            }
            let mut claims = 0;
            for (i, e) in parsed.iter().enumerate() {
                for (j, l) in parsed.iter().enumerate() {
                    if subsumes(e, l) {
                        claims += 1;
                        for space in &spaces {
                            assert!(
                                !holds(l, space) || holds(e, space),
                                "`{}` claimed to subsume `{}`, but not in {space:?}",
                                corpus[i],
                                corpus[j]
                            );
                        }
                    }
                }
            }
            assert!(claims > 40, "only {claims} claims");
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]
            #[test]
            fn claimed_subsumption_holds_in_every_space(e in precondition(), l in precondition(), spaces in proptest::collection::vec(proptest::collection::vec((proptest::bool::ANY, 0..3usize, 0..3usize), 0..6), 16)) {
                let (ep, lp) = (literals(&e).unwrap(), literals(&l).unwrap());
                prop_assume!(safe(&ep) && safe(&lp));
                if subsumes(&ep, &lp) {
                    for facts in spaces {
                        let space: Vec<(bool, [&str; 2])> = facts.iter().map(|(p, x, y)| (*p, [CONSTS[*x], CONSTS[*y]])).collect();
                        prop_assert!(!holds(&lp, &space) || holds(&ep, &space), "`{}` claimed to subsume `{}`, but not in {:?}", e, l, space);
                    }
                }
            }
        }
    }
}
