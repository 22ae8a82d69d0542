//! Checks on interaction scripts (35.5.1 and beyond): unreachable states, unexecutable rules,
//! uninstantiated variables, unsafe negation, arity mismatches, predicates never produced,
//! deletions that can never match anything added.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::Module;
use crate::ir::script::{
    AtomAst, Cell, CmpOp, LiteralAst, Script, ScriptRule, SmartLocation, Term,
};
use ensemble_runtime::script::Function;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;

pub fn check(module: &Module, diags: &mut Diagnostics) {
    for (h, script) in module.scripts.iter() {
        // What the smart locations that run this script put on its blackboard: props
        // (`kind(prop)`), proxies' reports, player input, notifications.
        let mut supplied: Vec<(String, usize)> = script
            .supplies
            .iter()
            .map(|(p, a, _)| (p.clone(), *a))
            .collect();
        let mut places = Vec::new();
        for (_, loc) in module.smart_locations.iter() {
            if loc.scripts.iter().any(|(s, _)| *s == h) {
                supplied.extend(loc.supplied());
                places.push(loc);
            }
        }
        let mut found = Diagnostics::default();
        reachability(script, &mut found);
        arities(script, &mut found);
        for rule in script.rules.iter().filter(|r| !r.unreadable) {
            variables(rule, &mut found);
        }
        unexecutable(script, &mut found);
        // What the script adds and reads is only known when every rule could be read.
        if !script.rules.iter().any(|r| r.unreadable) {
            never_produced(script, &supplied, &mut found);
            deletions_of_nothing(script, &supplied, &mut found);
            deletions(script, supplied_sorts(script, &places), &mut found);
        }
        // A problem found in a derived script may sit in a rule of its base (templating): say
        // which script it is about, since the base's own file is where it points.
        for d in found.iter() {
            let mut d = d.clone();
            if d.file_id().is_some_and(|f| f != script.file) {
                d = d.note(format!(
                    "in script `{}`, which takes this from the script it extends",
                    script.name
                ));
            }
            diags.push(d);
        }
    }
}

fn at(
    cell: &Option<Cell>,
    row: &Cell,
    d: Diagnostic,
    range: Option<Range<usize>>,
    label: &str,
) -> Diagnostic {
    match cell {
        Some(c) => c.locate(d, range, label),
        None => row.locate(d, None, label),
    }
}

fn related(d: Diagnostic, cell: &Cell, range: Option<Range<usize>>, label: &str) -> Diagnostic {
    cell.relate(d, range, label)
}

/// `unreachable-state`: no rule leads there and it is not initial.
fn reachability(s: &Script, diags: &mut Diagnostics) {
    let mut reached = vec![false; s.states.len()];
    reached[s.initial] = true;
    let mut changed = true;
    while changed {
        changed = false;
        for r in &s.rules {
            let from_reached = match r.state {
                Some(st) => reached[st],
                None => true,
            };
            if let (true, Some((next, _))) = (from_reached, &r.next_state)
                && !reached[*next]
            {
                reached[*next] = true;
                changed = true;
            }
        }
    }
    for (i, st) in s.states.iter().enumerate() {
        if !reached[i] {
            let d = Diagnostic::warning(
                Code::UnreachableState,
                format!(
                    "state `{}` of script `{}` can never be entered",
                    st.name, s.name
                ),
            )
            .note(format!(
                "no rule leads there (no Next State is `{}`) and it is not the initial state `{}`",
                st.name, s.states[s.initial].name
            ));
            diags.push(match &st.cell {
                Some(c) => c.locate(d, None, "unreachable"),
                None => s.name_cell.locate(d, None, "unreachable"),
            });
        }
    }
}

fn term_vars<'a>(t: &'a Term, out: &mut Vec<(&'a str, Range<usize>)>) {
    t.vars(out);
    out.retain(|(v, _)| *v != "_");
}

fn atom_vars(a: &AtomAst) -> Vec<(&str, Range<usize>)> {
    let mut out = Vec::new();
    for t in &a.args {
        term_vars(t, &mut out);
    }
    out
}

/// Variables inside function terms or arithmetic (which are evaluated, so must be bound).
fn evaluated_vars<'a>(t: &'a Term, out: &mut Vec<(&'a str, Range<usize>)>) {
    match t {
        Term::Var(..) => {}
        other => term_vars(other, out),
    }
}

/// Variables inside an atom's function terms that are not bound yet (function terms are
/// evaluated when reached, so their variables must already have values).
fn unbound_in_function_terms<'a>(
    a: &'a AtomAst,
    bound: &HashSet<&str>,
) -> Vec<(&'a str, Range<usize>)> {
    let mut ev = Vec::new();
    for t in &a.args {
        evaluated_vars(t, &mut ev);
    }
    ev.retain(|(v, _)| !bound.contains(v));
    ev
}

/// `uninstantiated-variable` and `unsafe-negation`, left to right through the rule.
/// Distinct variables one rule may use. The runtime's solver keeps a binding slot per variable
/// for every literal (to backtrack without undo logs), so a rule's memory is literals times
/// variables: these two limits keep it to a few megabytes.
pub const MAX_RULE_VARIABLES: usize = 256;
/// Literals one rule's precondition may have.
pub const MAX_RULE_LITERALS: usize = 1_000;

/// A variable's name, where it is in its cell, and the cell.
type VariableUse<'r> = (&'r str, Range<usize>, &'r Option<Cell>);

/// `limit-exceeded` for a rule past [`MAX_RULE_LITERALS`] or [`MAX_RULE_VARIABLES`]; `uses`
/// lists every variable use from the given precondition literal on. The other variable
/// checks are skipped for such a rule: they are quadratic in its size.
fn within_limits<'r>(
    r: &'r ScriptRule,
    uses: &dyn Fn(usize) -> Vec<VariableUse<'r>>,
    diags: &mut Diagnostics,
) -> bool {
    let errors = diags.len();
    if r.precondition.len() > MAX_RULE_LITERALS {
        let d = Diagnostic::error(
            Code::LimitExceeded,
            format!(
                "rule {}: the precondition has {} literals; at most {MAX_RULE_LITERALS} are allowed",
                r.label,
                r.precondition.len()
            ),
        )
        .note("split the rule, or keep the facts it tests in fewer predicates");
        diags.push(at(
            &r.precondition_cell,
            &r.row,
            d,
            None,
            "too many literals",
        ));
    } else {
        let mut names: HashSet<&str> = HashSet::new();
        for (v, range, cell) in uses(0) {
            if names.insert(v) && names.len() > MAX_RULE_VARIABLES {
                let d = Diagnostic::error(
                    Code::LimitExceeded,
                    format!(
                        "rule {}: more than {MAX_RULE_VARIABLES} distinct variables; `{v}` is one too many",
                        r.label
                    ),
                )
                .note("split the rule: each variable costs memory for every literal when it runs");
                diags.push(at(cell, &r.row, d, Some(range), "one variable too many"));
                break;
            }
        }
    }
    diags.len() == errors
}

fn variables(r: &ScriptRule, diags: &mut Diagnostics) {
    let mut bound: HashSet<&str> = HashSet::new();
    let uninstantiated = |cell: &Option<Cell>, v: &str, range: Range<usize>, what: &str| {
        let d = Diagnostic::error(
            Code::UninstantiatedVariable,
            format!(
                "rule {}: variable `{v}` is used in {what} but nothing binds it before",
                r.label
            ),
        )
        .note(
            "bind it with a positive literal earlier in the precondition, `.any(X)`, or `X = ...`",
        );
        let in_precondition = cell.is_some() && *cell == r.precondition_cell;
        let d = match binder(r, v, in_precondition.then_some(range.start)) {
            Some((found, true)) => related(
                d,
                r.precondition_cell
                    .as_ref()
                    .expect("a literal was found in it"),
                Some(found),
                "bound only here, after its use: move this literal before it",
            ),
            Some((found, false)) => related(
                d,
                r.precondition_cell
                    .as_ref()
                    .expect("a literal was found in it"),
                Some(found),
                "only a negation mentions it, and a negation does not bind",
            ),
            None => d,
        };
        at(cell, &r.row, d, Some(range), "not bound here")
    };
    // Uses after each literal, to tell a harmless existential in a negation from an unsafe one.
    let later_uses = |from: usize| -> Vec<(&str, Range<usize>, &Option<Cell>)> {
        let mut v = Vec::new();
        for lit in &r.precondition[from..] {
            let mut out = Vec::new();
            match lit {
                LiteralAst::Pos(a) | LiteralAst::Neg(a, _) => out = atom_vars(a),
                LiteralAst::Cmp(l, _, rt, _) => {
                    term_vars(l, &mut out);
                    term_vars(rt, &mut out);
                }
                LiteralAst::Any(t, _) => term_vars(t, &mut out),
            }
            v.extend(out.into_iter().map(|(n, rg)| (n, rg, &r.precondition_cell)));
        }
        let mut out = Vec::new();
        if let Some((t, _)) = &r.target {
            term_vars(t, &mut out);
        }
        for (_, t) in &r.parameters {
            term_vars(t, &mut out);
        }
        v.extend(out.into_iter().map(|(n, rg)| (n, rg, &r.precondition_cell)));
        for e in [
            &r.add,
            &r.delete,
            &r.deferred_add,
            &r.deferred_delete,
            &r.on_error,
        ] {
            for a in &e.atoms {
                v.extend(atom_vars(a).into_iter().map(|(n, rg)| (n, rg, &e.cell)));
            }
        }
        v
    };
    if !within_limits(r, &later_uses, diags) {
        return;
    }
    for (i, lit) in r.precondition.iter().enumerate() {
        match lit {
            LiteralAst::Pos(a) => {
                for (v, rg) in unbound_in_function_terms(a, &bound) {
                    diags.push(uninstantiated(
                        &r.precondition_cell,
                        v,
                        rg,
                        "a function term",
                    ));
                }
                bound.extend(atom_vars(a).into_iter().map(|(v, _)| v));
            }
            LiteralAst::Neg(a, range) => {
                for (v, rg) in unbound_in_function_terms(a, &bound) {
                    diags.push(uninstantiated(
                        &r.precondition_cell,
                        v,
                        rg,
                        "a function term",
                    ));
                }
                for (v, _) in atom_vars(a) {
                    if bound.contains(v) {
                        continue;
                    }
                    // Existential inside the negation is fine, unless the variable is used again.
                    if let Some((_, later, cell)) =
                        later_uses(i + 1).into_iter().find(|(n, _, _)| *n == v)
                    {
                        let d = Diagnostic::error(Code::UnsafeNegation, format!("rule {}: variable `{v}` first appears in a negated literal, which cannot bind it, and is used again later", r.label))
                            .note("negation as failure only tests; bind the variable with a positive literal before the `not`");
                        let d = at(
                            &r.precondition_cell,
                            &r.row,
                            d,
                            Some(range.clone()),
                            "negation does not bind it",
                        );
                        diags.push(match cell {
                            Some(c) => related(d, c, Some(later), "used here"),
                            None => d,
                        });
                    }
                }
            }
            LiteralAst::Cmp(l, op, rt, _) => {
                if *op == CmpOp::Eq
                    && let Term::Var(v, _) = l
                    && !bound.contains(v.as_str())
                {
                    let mut ev = Vec::new();
                    term_vars(rt, &mut ev);
                    for (w, rg) in ev {
                        if !bound.contains(w) {
                            diags.push(uninstantiated(&r.precondition_cell, w, rg, "a comparison"));
                        }
                    }
                    bound.insert(v);
                    continue;
                }
                let mut ev = Vec::new();
                term_vars(l, &mut ev);
                term_vars(rt, &mut ev);
                for (v, rg) in ev {
                    if !bound.contains(v) {
                        diags.push(uninstantiated(&r.precondition_cell, v, rg, "a comparison"));
                    }
                }
            }
            LiteralAst::Any(t, _) => match t {
                Term::Var(v, _) => {
                    bound.insert(v);
                }
                other => {
                    let mut ev = Vec::new();
                    term_vars(other, &mut ev);
                    for (v, rg) in ev {
                        if !bound.contains(v) {
                            diags.push(uninstantiated(&r.precondition_cell, v, rg, "`.any`"));
                        }
                    }
                }
            },
        }
    }
    // `_` is never bound, so an anonymous variable in an added fact, a target or a parameter
    // is reported too (the fact could never be added).
    let mut check_term = |t: &Term, cell: &Option<Cell>, what: &str| {
        let mut ev = Vec::new();
        t.vars(&mut ev);
        for (v, rg) in ev {
            if !bound.contains(v) {
                diags.push(uninstantiated(cell, v, rg, what));
            }
        }
    };
    if let Some((t, c)) = &r.target {
        check_term(t, &Some(c.clone()), "the action target");
    }
    for (_, t) in &r.parameters {
        check_term(t, &r.parameters_cell, "an action parameter");
    }
    for e in [&r.add, &r.deferred_add, &r.on_error] {
        for a in &e.atoms {
            for t in &a.args {
                check_term(t, &e.cell, "an added fact");
            }
        }
    }
    // Deletions may use free variables (they delete every match), but not inside evaluated terms.
    for e in [&r.delete, &r.deferred_delete] {
        for a in &e.atoms {
            for t in &a.args {
                let mut ev = Vec::new();
                evaluated_vars(t, &mut ev);
                for (v, rg) in ev {
                    if !bound.contains(v) {
                        diags.push(uninstantiated(
                            &e.cell,
                            v,
                            rg,
                            "a function term of a deletion",
                        ));
                    }
                }
            }
        }
    }
}

/// The literal that mentions `v` where a reader would look for its binding: the first positive
/// literal (`.any`, assignment) binding it after `after` (a use inside the precondition), as
/// `(range, true)`; else the first negation mentioning it, as `(range, false)`.
fn binder(r: &ScriptRule, v: &str, after: Option<usize>) -> Option<(Range<usize>, bool)> {
    let mentions = |terms: &[&Term]| {
        terms.iter().any(|t| {
            let mut out = Vec::new();
            t.vars(&mut out);
            out.iter().any(|(n, _)| *n == v)
        })
    };
    let mut negation = None;
    for lit in &r.precondition {
        match lit {
            LiteralAst::Pos(a)
                if mentions(&a.args.iter().collect::<Vec<_>>())
                    && after.is_some_and(|start| a.range.start > start) =>
            {
                return Some((a.range.clone(), true));
            }
            LiteralAst::Any(Term::Var(x, _), range)
            | LiteralAst::Cmp(Term::Var(x, _), CmpOp::Eq, _, range)
                if x == v && after.is_some_and(|start| range.start > start) =>
            {
                return Some((range.clone(), true));
            }
            LiteralAst::Neg(a, range)
                if negation.is_none() && mentions(&a.args.iter().collect::<Vec<_>>()) =>
            {
                negation = Some((range.clone(), false));
            }
            _ => {}
        }
    }
    negation
}

/// Every atom of the script with where it was written.
fn all_atoms(s: &Script) -> Vec<(&AtomAst, &Option<Cell>, &Cell)> {
    let mut out = Vec::new();
    for r in &s.rules {
        for lit in &r.precondition {
            if let LiteralAst::Pos(a) | LiteralAst::Neg(a, _) = lit {
                out.push((a, &r.precondition_cell, &r.row));
            }
        }
        for e in [
            &r.add,
            &r.delete,
            &r.deferred_add,
            &r.deferred_delete,
            &r.on_error,
        ] {
            for a in &e.atoms {
                out.push((a, &e.cell, &r.row));
            }
        }
    }
    out
}

fn calls<'a>(t: &'a Term, out: &mut Vec<(&'a str, usize, Range<usize>)>) {
    match t {
        Term::Call(f, args, r) => {
            out.push((f, args.len(), r.clone()));
            args.iter().for_each(|a| calls(a, out));
        }
        Term::Bin(_, l, r, _) => {
            calls(l, out);
            calls(r, out);
        }
        _ => {}
    }
}

/// `arity-mismatch` for predicates used with different arities and functions called wrongly.
fn arities(s: &Script, diags: &mut Diagnostics) {
    let mut first: HashMap<&str, (usize, &AtomAst, &Option<Cell>)> = HashMap::new();
    for (a, cell, row) in all_atoms(s) {
        match first.get(a.predicate.as_str()) {
            Some((n, prev, prev_cell)) if *n != a.args.len() => {
                let d = Diagnostic::error(Code::ArityMismatch, format!("`{}` is used with {} arguments here but with {n} elsewhere", a.predicate, a.args.len()))
                    .note("a predicate is keyed by name and arity: these are two unrelated predicates, which is almost always a mistake");
                let d = at(cell, row, d, Some(a.range.clone()), "different arity");
                diags.push(match prev_cell {
                    Some(c) => related(d, c, Some(prev.range.clone()), "first used here"),
                    None => d,
                });
            }
            Some(_) => {}
            None => {
                first.insert(&a.predicate, (a.args.len(), a, cell));
            }
        }
        let mut cs = Vec::new();
        for t in &a.args {
            calls(t, &mut cs);
        }
        check_calls(cs, cell, row, diags);
    }
    for r in &s.rules {
        let mut cs = Vec::new();
        for lit in &r.precondition {
            if let LiteralAst::Cmp(l, _, rt, _) = lit {
                calls(l, &mut cs);
                calls(rt, &mut cs);
            }
        }
        check_calls(cs, &r.precondition_cell, &r.row, diags);
        let mut cs = Vec::new();
        if let Some((t, _)) = &r.target {
            calls(t, &mut cs);
        }
        for (_, t) in &r.parameters {
            calls(t, &mut cs);
        }
        check_calls(cs, &r.parameters_cell, &r.row, diags);
    }
}

fn check_calls(
    cs: Vec<(&str, usize, Range<usize>)>,
    cell: &Option<Cell>,
    row: &Cell,
    diags: &mut Diagnostics,
) {
    for (f, n, range) in cs {
        match Function::by_name(f) {
            None => {
                let names = Function::ALL.map(Function::name);
                let d =
                    Diagnostic::error(Code::UnknownReference, format!("unknown function `{f}`"))
                        .note(format!("functions: {}", names.join(", ")));
                diags.push(at(
                    cell,
                    row,
                    crate::diag::suggest_note(d, f, names),
                    Some(range),
                    "unknown function",
                ));
            }
            Some(func) if func.arity() != n => {
                let d = Diagnostic::error(
                    Code::ArityMismatch,
                    format!("`{f}` takes {} arguments, not {n}", func.arity()),
                );
                diags.push(at(cell, row, d, Some(range), "wrong number of arguments"));
            }
            _ => {}
        }
    }
}

/// Every predicate/arity some rule adds or the smart location or a proxy supplies.
fn produced<'a>(s: &'a Script, supplied: &'a [(String, usize)]) -> HashSet<(&'a str, usize)> {
    s.rules
        .iter()
        .flat_map(|r| {
            r.additions()
                .map(|(a, _)| (a.predicate.as_str(), a.args.len()))
        })
        .chain(supplied.iter().map(|(p, a)| (p.as_str(), *a)))
        .collect()
}

/// `never-produced`: read positively in a precondition, never added by a rule nor supplied.
fn never_produced(s: &Script, supplied: &[(String, usize)], diags: &mut Diagnostics) {
    let produced = produced(s, supplied);
    let mut reported = HashSet::new();
    for r in &s.rules {
        for lit in &r.precondition {
            let LiteralAst::Pos(a) = lit else { continue };
            let key = (a.predicate.as_str(), a.args.len());
            if produced.contains(&key) || !reported.insert(key) {
                continue;
            }
            let d = Diagnostic::error(
                Code::NeverProduced,
                format!(
                    "rule {}: `{}/{}` is read here but no rule adds it and nothing supplies it",
                    r.label, key.0, key.1
                ),
            );
            let d = suggest_predicate(d, key, &produced)
                .note("the rule can never fire; add the fact in some rule, or declare it supplied by the smart location or a proxy (`supplies`)");
            diags.push(at(
                &r.precondition_cell,
                &r.row,
                d,
                Some(a.range.clone()),
                "never produced",
            ));
        }
        // A negation of something nothing ever produces always holds: most likely a typo.
        for lit in &r.precondition {
            let LiteralAst::Neg(a, range) = lit else {
                continue;
            };
            let key = (a.predicate.as_str(), a.args.len());
            if produced.contains(&key) || !reported.insert(key) {
                continue;
            }
            let d = Diagnostic::warning(
                Code::NeverProduced,
                format!(
                    "rule {}: `not {}/{}` always holds: no rule adds `{}/{}` and nothing supplies it",
                    r.label, key.0, key.1, key.0, key.1
                ),
            )
            .note("check the predicate's name and arity against the rules that add it");
            let d = suggest_predicate(d, key, &produced);
            diags.push(at(
                &r.precondition_cell,
                &r.row,
                d,
                Some(range.clone()),
                "always true",
            ));
        }
    }
}

/// Deletions of a predicate nothing adds or supplies can never delete anything: most likely a
/// misspelt name, leaving the fact that was meant in place forever.
fn deletions_of_nothing(s: &Script, supplied: &[(String, usize)], diags: &mut Diagnostics) {
    let produced = produced(s, supplied);
    for r in &s.rules {
        for (a, e) in r.deletions() {
            let key = (a.predicate.as_str(), a.args.len());
            // Produced with another arity: `arity-mismatch` points at it already.
            if produced.iter().any(|(p, _)| *p == key.0) {
                continue;
            }
            let d = Diagnostic::error(
                Code::NeverProduced,
                format!(
                    "rule {}: deletes `{}/{}`, which no rule adds and nothing supplies",
                    r.label, key.0, key.1
                ),
            );
            let d = suggest_predicate(d, key, &produced)
                .note("the deletion can never remove anything; check the predicate's name and arity against the rules that add it");
            diags.push(at(
                &e.cell,
                &r.row,
                d,
                Some(a.range.clone()),
                "never produced",
            ));
        }
    }
}

/// "did you mean" a predicate that is produced, by name (with its arity when that differs).
fn suggest_predicate(
    d: Diagnostic,
    key: (&str, usize),
    produced: &HashSet<(&str, usize)>,
) -> Diagnostic {
    let mut names: Vec<&str> = produced.iter().map(|(p, _)| *p).collect();
    names.sort_unstable();
    names.dedup();
    match crate::diag::suggest(key.0, names) {
        Some(m) => {
            let mut arities: Vec<usize> = produced
                .iter()
                .filter(|(p, _)| *p == m)
                .map(|(_, n)| *n)
                .collect();
            arities.sort_unstable();
            let list: Vec<String> = arities.iter().map(|n| format!("`{m}/{n}`")).collect();
            d.note(format!("did you mean {}?", list.join(" or ")))
        }
        None => d,
    }
}

/// A literal with its variables renamed by first appearance in the rule, for comparing rules.
fn canonical(rule: &ScriptRule) -> Vec<String> {
    let mut names: HashMap<String, usize> = HashMap::new();
    fn term(t: &Term, names: &mut HashMap<String, usize>) -> String {
        match t {
            Term::Var(v, _) if v == "_" => "_".into(),
            Term::Var(v, _) => {
                let n = names.len();
                format!("V{}", names.entry(v.clone()).or_insert(n))
            }
            Term::Sym(s, _) => format!("'{s}'"),
            Term::Num(x, _) => format!("{x}"),
            Term::Me(_) => ".me".into(),
            Term::Now(_) => ".now".into(),
            Term::Call(f, args, _) => format!(
                "{f}({})",
                args.iter()
                    .map(|a| term(a, names))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            Term::Bin(op, l, r, _) => format!("({}{op}{})", term(l, names), term(r, names)),
        }
    }
    let atom = |a: &AtomAst, names: &mut HashMap<String, usize>| {
        format!(
            "{}({})",
            a.predicate,
            a.args
                .iter()
                .map(|t| term(t, names))
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    rule.precondition
        .iter()
        .map(|l| match l {
            LiteralAst::Pos(a) => atom(a, &mut names),
            LiteralAst::Neg(a, _) => format!("not {}", atom(a, &mut names)),
            LiteralAst::Cmp(l, op, r, _) => {
                format!("{}{op}{}", term(l, &mut names), term(r, &mut names))
            }
            LiteralAst::Any(t, _) => format!(".any({})", term(t, &mut names)),
        })
        .collect()
}

/// `unexecutable-rule`: shadowed by an earlier rule of the same state and role whose
/// precondition holds whenever its own does (it is a specialisation, [`super::subsume`]), or
/// contradicting itself.
fn unexecutable(s: &Script, diags: &mut Diagnostics) {
    let canon: Vec<Vec<String>> = s.rules.iter().map(canonical).collect();
    for (j, r) in s.rules.iter().enumerate() {
        if r.unreadable {
            continue;
        }
        // Contradictions.
        let c = &canon[j];
        if let Some((k, lit)) = r.precondition.iter().enumerate().find(|(k, _)| {
            let text = &c[*k];
            text.strip_prefix("not ").is_some_and(|pos| c.contains(&pos.to_string()))
                || matches!(&r.precondition[*k], LiteralAst::Cmp(Term::Var(a, _), CmpOp::Ne, Term::Var(b, _), _) if a == b)
                || matches!(&r.precondition[*k], LiteralAst::Cmp(Term::Num(a, _), op, Term::Num(b, _), _) if !num_holds(*a, *op, *b))
        }) {
            let _ = k;
            let d = Diagnostic::error(Code::UnexecutableRule, format!("rule {} can never fire: its precondition contradicts itself", r.label));
            diags.push(at(&r.precondition_cell, &r.row, d, Some(lit.range()), "always false"));
            continue;
        }
        if let Some(range) = conflicting_comparison(r) {
            let d = Diagnostic::error(
                Code::UnexecutableRule,
                format!(
                    "rule {} can never fire: no value satisfies its comparisons together",
                    r.label
                ),
            );
            diags.push(at(
                &r.precondition_cell,
                &r.row,
                d,
                Some(range),
                "contradicts the comparisons before it",
            ));
            continue;
        }
        for (i, earlier) in s.rules[..j].iter().enumerate() {
            if earlier.unreadable {
                continue;
            }
            let same_state = earlier.state.is_none() || earlier.state == r.state;
            let same_role = earlier.role.is_none() || earlier.role == r.role;
            // A precondition that draws random numbers may fail where a later one holds.
            let random = canon[i]
                .iter()
                .any(|l| l.contains("randf(") || l.contains("randi("));
            if same_state
                && same_role
                && !random
                && super::subsume::subsumes(&earlier.precondition, &r.precondition)
            {
                let d = Diagnostic::error(Code::UnexecutableRule, format!("rule {} can never fire: rule {} comes first and matches whenever it does", r.label, earlier.label))
                    .note("rules of a state are tried in order and the first match wins; move the more specific rule up");
                let d = at(&r.precondition_cell, &r.row, d, None, "shadowed");
                diags.push(related_row(d, earlier, "the rule that shadows it"));
                break;
            }
        }
    }
}

/// The first comparison that leaves a variable no value together with the ones before it:
/// bounds against numbers with an empty range between them (`T < 5, T > 7`, `N = 1, N >= 2`),
/// or equal to two different constants (`X = a, X = b`).
fn conflicting_comparison(r: &ScriptRule) -> Option<Range<usize>> {
    struct Bounds {
        lo: (f64, bool),
        hi: (f64, bool),
        constant: Option<String>,
    }
    let mut bounds: HashMap<&str, Bounds> = HashMap::new();
    for lit in &r.precondition {
        let LiteralAst::Cmp(l, op, rt, range) = lit else {
            continue;
        };
        // The same comparison with its sides swapped.
        let flip = |op: CmpOp| match op {
            CmpOp::Lt => CmpOp::Gt,
            CmpOp::Le => CmpOp::Ge,
            CmpOp::Gt => CmpOp::Lt,
            CmpOp::Ge => CmpOp::Le,
            other => other,
        };
        let (v, op, c) = match (l, rt) {
            (Term::Var(v, _), c @ (Term::Num(..) | Term::Sym(..))) => (v.as_str(), *op, c),
            (c @ (Term::Num(..) | Term::Sym(..)), Term::Var(v, _)) => (v.as_str(), flip(*op), c),
            _ => continue,
        };
        let b = bounds.entry(v).or_insert(Bounds {
            lo: (f64::NEG_INFINITY, false),
            hi: (f64::INFINITY, false),
            constant: None,
        });
        match c {
            Term::Sym(s, _) if op == CmpOp::Eq => {
                if b.constant.as_ref().is_some_and(|prev| prev != s) {
                    return Some(range.clone());
                }
                b.constant = Some(s.clone());
            }
            Term::Num(x, _) => {
                let x = *x;
                // Tighten the range: (value, strict).
                let below = |b: &mut Bounds, strict: bool| {
                    if x < b.hi.0 || (x == b.hi.0 && strict) {
                        b.hi = (x, strict);
                    }
                };
                let above = |b: &mut Bounds, strict: bool| {
                    if x > b.lo.0 || (x == b.lo.0 && strict) {
                        b.lo = (x, strict);
                    }
                };
                match op {
                    CmpOp::Lt => below(b, true),
                    CmpOp::Le => below(b, false),
                    CmpOp::Gt => above(b, true),
                    CmpOp::Ge => above(b, false),
                    CmpOp::Eq => {
                        below(b, false);
                        above(b, false);
                    }
                    CmpOp::Ne => {}
                }
                if b.lo.0 > b.hi.0 || (b.lo.0 == b.hi.0 && (b.lo.1 || b.hi.1)) {
                    return Some(range.clone());
                }
            }
            _ => {}
        }
    }
    None
}

fn num_holds(a: f64, op: CmpOp, b: f64) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ne => a != b,
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
    }
}

fn related_row(d: Diagnostic, r: &ScriptRule, label: &str) -> Diagnostic {
    related(
        d,
        r.precondition_cell.as_ref().unwrap_or(&r.row),
        None,
        label,
    )
}

/// The sort of a value, for telling whether a deletion can ever meet an addition.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Sort {
    Participant,
    Num,
    /// A prop or other object supplied from outside.
    Object,
    Sym(String),
    Any,
}

fn overlap(a: &BTreeSet<Sort>, b: &BTreeSet<Sort>) -> bool {
    a.iter().any(|x| {
        b.iter().any(|y| match (x, y) {
            (Sort::Any, _) | (_, Sort::Any) => true,
            (Sort::Sym(_), Sort::Object) | (Sort::Object, Sort::Sym(_)) => true,
            (x, y) => x == y,
        })
    })
}

type SortMap = HashMap<(String, usize, usize), BTreeSet<Sort>>;

/// The sorts of a rule's variables, given what is known about predicate positions.
fn var_sorts(r: &ScriptRule, map: &SortMap) -> HashMap<String, BTreeSet<Sort>> {
    let mut vars: HashMap<String, BTreeSet<Sort>> = HashMap::new();
    for lit in &r.precondition {
        match lit {
            LiteralAst::Pos(a) => {
                for (i, t) in a.args.iter().enumerate() {
                    if let Term::Var(v, _) = t {
                        let s = map
                            .get(&(a.predicate.clone(), a.args.len(), i))
                            .cloned()
                            .unwrap_or_default();
                        vars.entry(v.clone()).or_default().extend(s);
                    }
                }
            }
            LiteralAst::Any(Term::Var(v, _), _) => {
                vars.entry(v.clone()).or_default().insert(Sort::Participant);
            }
            LiteralAst::Cmp(Term::Var(v, _), CmpOp::Eq, rt, _) => {
                let s = term_sort(rt, &vars);
                vars.entry(v.clone()).or_default().extend(s);
            }
            _ => {}
        }
    }
    vars
}

fn term_sort(t: &Term, vars: &HashMap<String, BTreeSet<Sort>>) -> BTreeSet<Sort> {
    match t {
        Term::Var(v, _) => vars
            .get(v)
            .cloned()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| [Sort::Any].into()),
        Term::Me(_) => [Sort::Participant].into(),
        Term::Sym(s, _) => [Sort::Sym(s.clone())].into(),
        Term::Num(..) | Term::Now(_) | Term::Call(..) | Term::Bin(..) => [Sort::Num].into(),
    }
}

/// What comes from outside the rules, position by position. A prop's kind holds the prop (an
/// object); a notification's ground facts hold what is written; the script's own `supplies`
/// stand for objects such as the chapter's `seat/1` (so a workbook checked on its own still
/// catches printed rule 5). What a location, its proxies or its player emitter declare by
/// predicate and arity alone is written by the game at run time — the player's or the proxy's
/// own name, numbers — so any value may sit in any of its positions.
fn supplied_sorts(script: &Script, places: &[&SmartLocation]) -> SortMap {
    let mut map: SortMap = HashMap::new();
    let mut put = |p: &str, n: usize, i: usize, sort: Sort| {
        map.entry((p.to_string(), n, i)).or_default().insert(sort);
    };
    for (p, n, _) in &script.supplies {
        (0..*n).for_each(|i| put(p, *n, i, Sort::Object));
    }
    for loc in places {
        for (_, kind) in &loc.props {
            put(kind, 1, 0, Sort::Object);
        }
        for a in loc.notifications.iter().flat_map(|n| &n.facts) {
            for (i, t) in a.args.iter().enumerate() {
                // Ground (checked with the location); `.me` would be the location itself.
                let sort = match t {
                    Term::Sym(s, _) => Sort::Sym(s.clone()),
                    Term::Me(_) => Sort::Object,
                    Term::Var(..) => Sort::Any,
                    Term::Num(..) | Term::Now(_) | Term::Call(..) | Term::Bin(..) => Sort::Num,
                };
                put(&a.predicate, a.args.len(), i, sort);
            }
        }
        let declared = loc
            .supplies
            .iter()
            .chain(loc.proxies.iter().flat_map(|x| &x.supplies))
            .chain(loc.player.iter().flat_map(|x| &x.supplies));
        for (p, n) in declared {
            (0..*n).for_each(|i| put(p, *n, i, Sort::Any));
        }
    }
    map
}

/// `deletion-never-matches`: a deletion whose arguments can never meet what is added in the same
/// positions (argument order or type mismatch, as printed rule 5 of the chapter).
fn deletions(s: &Script, supplied: SortMap, diags: &mut Diagnostics) {
    let mut map = supplied;
    // Fixpoint: what each rule adds depends on the sorts its precondition binds. Sets only grow,
    // within the finite sorts the script names, so this ends; stopping early would miss sorts
    // and report deletions that do match.
    loop {
        let mut changed = false;
        for r in &s.rules {
            let vars = var_sorts(r, &map);
            for (a, _) in r.additions() {
                for (i, t) in a.args.iter().enumerate() {
                    let entry = map
                        .entry((a.predicate.clone(), a.args.len(), i))
                        .or_default();
                    for sort in term_sort(t, &vars) {
                        changed |= entry.insert(sort);
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let added_anywhere: HashSet<(String, usize)> =
        map.keys().map(|(p, n, _)| (p.clone(), *n)).collect();
    for r in &s.rules {
        let vars = var_sorts(r, &map);
        for (a, e) in r.deletions() {
            let key = (a.predicate.clone(), a.args.len());
            if !added_anywhere.contains(&key) {
                continue; // never-produced territory; reads report it
            }
            for (i, t) in a.args.iter().enumerate() {
                let here = match t {
                    Term::Var(v, _) if !vars.contains_key(v) => continue, // free: matches anything
                    t => term_sort(t, &vars),
                };
                let added = map
                    .get(&(a.predicate.clone(), a.args.len(), i))
                    .cloned()
                    .unwrap_or_default();
                if overlap(&here, &added) {
                    continue;
                }
                let describe = |s: &BTreeSet<Sort>| {
                    s.iter()
                        .map(|x| match x {
                            Sort::Participant => "a participant".to_string(),
                            Sort::Num => "a number".to_string(),
                            Sort::Object => "a supplied object (a prop)".to_string(),
                            Sort::Sym(c) => format!("the constant `{c}`"),
                            Sort::Any => "anything".to_string(),
                        })
                        .collect::<Vec<_>>()
                        .join(" or ")
                };
                let d = Diagnostic::error(
                    Code::DeletionNeverMatches,
                    format!(
                        "rule {}: this deletion of `{}` can never match anything: argument {} is {} here, but every `{}` added has {} there",
                        r.label,
                        a.predicate,
                        i + 1,
                        describe(&here),
                        a.predicate,
                        describe(&added)
                    ),
                )
                .note("check the argument order against the rule that adds the fact; as written, the facts are never removed");
                let mut d = at(&e.cell, &r.row, d, Some(a.range.clone()), "never matches");
                if let Some((adder, (atom, eff))) = s.rules.iter().find_map(|o| {
                    o.additions()
                        .find(|(x, _)| x.predicate == a.predicate && x.args.len() == a.args.len())
                        .map(|x| (o, x))
                }) && let Some(c) = &eff.cell
                {
                    d = related(
                        d,
                        c,
                        Some(atom.range.clone()),
                        &format!("rule {} adds it like this", adder.label),
                    );
                }
                diags.push(d);
                break;
            }
        }
    }
}
