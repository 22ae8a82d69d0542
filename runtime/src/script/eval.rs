//! Rule evaluation (35.4.3): unification restricted to the three Datalog cases, and
//! backtracking that asks each literal for its n-th solution from scratch, saving only the
//! variable bindings of the states it passed through.

use super::def::{BinOp, CmpOp, Expr, Function, Literal};
use super::space::{TupleSpace, Value};
use crate::rng::Rng;
use smallvec::SmallVec;

/// Rules rarely have more than eight variables; bindings that fit stay inline, so the clone
/// made at each backtracking point is a copy, not an allocation.
const INLINE_VARS: usize = 8;

/// Variable bindings. Variables unified with each other point at the lowest index among them
/// (their representative), which holds the value, as the chapter recommends.
#[derive(Clone, Debug, PartialEq)]
pub struct Bindings {
    repr: SmallVec<[u16; INLINE_VARS]>,
    value: SmallVec<[Option<Value>; INLINE_VARS]>,
}

impl Bindings {
    pub fn new(variables: u16) -> Self {
        Bindings {
            repr: (0..variables).collect(),
            value: smallvec::smallvec![None; variables as usize],
        }
    }

    fn find(&self, mut v: u16) -> u16 {
        while self.repr[v as usize] != v {
            v = self.repr[v as usize];
        }
        v
    }

    pub fn get(&self, v: u16) -> Option<Value> {
        self.value[self.find(v) as usize]
    }

    /// Variable to constant: an assignment, or an equality check if already bound.
    fn bind(&mut self, v: u16, val: Value) -> bool {
        let r = self.find(v) as usize;
        match self.value[r] {
            Some(x) => x.same(&val),
            None => {
                self.value[r] = Some(val);
                true
            }
        }
    }

    /// Variable to variable: merge the two classes under the lower index.
    fn join(&mut self, a: u16, b: u16) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return true;
        }
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        match (self.value[lo as usize], self.value[hi as usize]) {
            (Some(x), Some(y)) if !x.same(&y) => return false,
            (None, Some(y)) => self.value[lo as usize] = Some(y),
            _ => {}
        }
        self.repr[hi as usize] = lo;
        true
    }
}

/// What evaluation reads besides the tuple space.
pub struct Env<'a> {
    pub space: &'a TupleSpace,
    /// `.me`.
    pub me: Value,
    /// `.now`, seconds.
    pub now: f64,
    /// The participants, in this update's shuffled order (what `.any` enumerates).
    pub participants: &'a [Value],
    pub rng: &'a mut Rng,
    /// `distance(a, b)`, supplied by the game; `None` if either has no position.
    pub distance: &'a dyn Fn(Value, Value) -> Option<f64>,
    /// Literal solutions tried, for the benchmark's evaluations-per-second figure.
    pub steps: u64,
}

/// Why an expression has no value (the validator rules these out statically).
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    Unbound(u16),
    NotANumber,
    NoPosition,
}

pub fn eval(e: &Expr, b: &Bindings, env: &mut Env<'_>) -> Result<Value, EvalError> {
    Ok(match e {
        Expr::Var(v) => b.get(*v).ok_or(EvalError::Unbound(*v))?,
        Expr::Sym(s) => Value::Sym(*s),
        Expr::Num(x) => Value::Num(*x),
        Expr::Me => env.me,
        Expr::Now => Value::Num(env.now),
        Expr::Call(f, args) => {
            let vals = args
                .iter()
                .map(|a| eval(a, b, env))
                .collect::<Result<Vec<_>, _>>()?;
            if *f == Function::Distance {
                return (env.distance)(vals[0], vals[1])
                    .map(Value::Num)
                    .ok_or(EvalError::NoPosition);
            }
            let n = |v: &Value| match v {
                Value::Num(x) => Ok(*x),
                Value::Sym(_) => Err(EvalError::NotANumber),
            };
            Value::Num(match f {
                Function::RandF => env.rng.range_f64(n(&vals[0])?, n(&vals[1])?),
                Function::RandI => {
                    // i128 so that any pair of f64-rounded bounds has a representable span.
                    let (lo, hi) = (n(&vals[0])?.round() as i128, n(&vals[1])?.round() as i128);
                    if hi <= lo {
                        lo as f64
                    } else {
                        let span = (hi - lo + 1).min(u32::MAX as i128) as usize;
                        (lo + env.rng.index(span) as i128) as f64
                    }
                }
                Function::Min => n(&vals[0])?.min(n(&vals[1])?),
                Function::Max => n(&vals[0])?.max(n(&vals[1])?),
                Function::Abs => n(&vals[0])?.abs(),
                Function::Distance => unreachable!("handled above"),
            })
        }
        Expr::Bin(op, l, r) => {
            let (Value::Num(x), Value::Num(y)) = (eval(l, b, env)?, eval(r, b, env)?) else {
                return Err(EvalError::NotANumber);
            };
            Value::Num(match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
            })
        }
    })
}

/// Unifies a term with a ground value. Function terms are evaluated first (immediately).
fn unify(term: &Expr, val: Value, b: &mut Bindings, env: &mut Env<'_>) -> bool {
    match term {
        Expr::Var(v) => b.bind(*v, val),
        other => eval(other, b, env).is_ok_and(|x| x.same(&val)),
    }
}

fn compare(op: CmpOp, l: Value, r: Value) -> bool {
    match (l, r) {
        (Value::Num(x), Value::Num(y)) => match op {
            CmpOp::Eq => x == y,
            CmpOp::Ne => x != y,
            CmpOp::Lt => x < y,
            CmpOp::Le => x <= y,
            CmpOp::Gt => x > y,
            CmpOp::Ge => x >= y,
        },
        (a, b) => match op {
            CmpOp::Eq => a.same(&b),
            CmpOp::Ne => !a.same(&b),
            _ => false,
        },
    }
}

/// The n-th solution of one literal under `b`, computed from scratch.
fn nth_solution(lit: &Literal, b: &Bindings, n: usize, env: &mut Env<'_>) -> Option<Bindings> {
    env.steps += 1;
    match lit {
        Literal::Pos(atom) => {
            let mut found = 0;
            for fact in env.space.facts(atom.predicate, atom.args.len()) {
                let mut c = b.clone();
                if atom
                    .args
                    .iter()
                    .zip(fact)
                    .all(|(t, v)| unify(t, *v, &mut c, env))
                {
                    if found == n {
                        return Some(c);
                    }
                    found += 1;
                }
            }
            None
        }
        Literal::Neg(atom) => {
            if n > 0 {
                return None;
            }
            let any = env
                .space
                .facts(atom.predicate, atom.args.len())
                .iter()
                .any(|fact| {
                    let mut c = b.clone();
                    atom.args
                        .iter()
                        .zip(fact)
                        .all(|(t, v)| unify(t, *v, &mut c, env))
                });
            (!any).then(|| b.clone())
        }
        Literal::Cmp(l, op, r) => {
            if n > 0 {
                return None;
            }
            let mut c = b.clone();
            // `X = expr` with X unbound assigns.
            if *op == CmpOp::Eq {
                if let (Expr::Var(v), Err(EvalError::Unbound(_))) = (l, eval(l, b, env)) {
                    let val = eval(r, b, env).ok()?;
                    return c.bind(*v, val).then_some(c);
                }
                if let (Expr::Var(v), Expr::Var(w)) = (l, r) {
                    return c.join(*v, *w).then_some(c);
                }
            }
            let (x, y) = (eval(l, b, env).ok()?, eval(r, b, env).ok()?);
            compare(*op, x, y).then_some(c)
        }
        Literal::Any(term) => {
            let mut found = 0;
            for p in env.participants {
                let mut c = b.clone();
                if unify(term, *p, &mut c, env) {
                    if found == n {
                        return Some(c);
                    }
                    found += 1;
                }
            }
            None
        }
    }
}

/// The first solution of a conjunction, by backtracking; `None` if it does not hold.
pub fn solve(literals: &[Literal], variables: u16, env: &mut Env<'_>) -> Option<Bindings> {
    let mut stack: Vec<(usize, Bindings)> = Vec::with_capacity(literals.len());
    let mut bindings = Bindings::new(variables);
    let mut i = 0;
    let mut n = 0;
    loop {
        if i == literals.len() {
            return Some(bindings);
        }
        match nth_solution(&literals[i], &bindings, n, env) {
            Some(next) => {
                stack.push((n, std::mem::replace(&mut bindings, next)));
                i += 1;
                n = 0;
            }
            None => {
                // Back to the previous literal's saved bindings, asking it for its next solution.
                let (prev_n, prev) = stack.pop()?;
                bindings = prev;
                i -= 1;
                n = prev_n + 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::def::Atom;
    use super::*;
    use crate::program::NameId;

    const SEAT: NameId = NameId(0);
    const RESERVED: NameId = NameId(1);
    const SITTING: NameId = NameId(2);
    fn s(i: u32) -> Value {
        Value::Sym(NameId(100 + i))
    }
    fn atom(p: NameId, args: Vec<Expr>) -> Atom {
        Atom { predicate: p, args }
    }
    fn env<'a>(space: &'a TupleSpace, parts: &'a [Value], rng: &'a mut Rng) -> Env<'a> {
        Env {
            space,
            me: parts[0],
            now: 100.0,
            participants: parts,
            rng,
            distance: &|_, _| None,
            steps: 0,
        }
    }

    #[test]
    fn rule_1_picks_a_free_seat_by_backtracking() {
        // seat(X), not reserved(X, Y)
        let mut space = TupleSpace::default();
        space.add(SEAT, vec![s(1)]);
        space.add(SEAT, vec![s(2)]);
        space.add(RESERVED, vec![s(1), s(9)]);
        let pre = vec![
            Literal::Pos(atom(SEAT, vec![Expr::Var(0)])),
            Literal::Neg(atom(RESERVED, vec![Expr::Var(0), Expr::Var(1)])),
        ];
        let parts = [s(9)];
        let mut rng = Rng::new(1, 1);
        let mut e = env(&space, &parts, &mut rng);
        let b = solve(&pre, 2, &mut e).unwrap();
        assert_eq!(
            b.get(0),
            Some(s(2)),
            "seat 1 is reserved, so backtracking moves on to seat 2"
        );
        space.add(RESERVED, vec![s(2), s(8)]);
        let mut e = env(&space, &parts, &mut rng);
        assert!(solve(&pre, 2, &mut e).is_none());
    }

    #[test]
    fn any_ranges_over_participants_and_backtracks() {
        // .any(Y), sitting(Y), Y != .me
        let mut space = TupleSpace::default();
        space.add(SITTING, vec![s(3)]);
        let parts = [s(1), s(2), s(3)];
        let pre = vec![
            Literal::Any(Expr::Var(0)),
            Literal::Pos(atom(SITTING, vec![Expr::Var(0)])),
            Literal::Cmp(Expr::Var(0), CmpOp::Ne, Expr::Me),
        ];
        let mut rng = Rng::new(1, 1);
        let mut e = env(&space, &parts, &mut rng);
        assert_eq!(solve(&pre, 1, &mut e).unwrap().get(0), Some(s(3)));
        assert!(e.steps > 3);
    }

    #[test]
    fn variables_unified_with_each_other_share_a_value() {
        let mut b = Bindings::new(3);
        assert!(b.join(2, 1));
        assert!(b.bind(1, s(5)));
        assert_eq!(b.get(2), Some(s(5)));
        assert!(!b.bind(2, s(6)));
        assert!(b.join(0, 2));
        assert_eq!(b.get(0), Some(s(5)));
    }

    #[test]
    fn function_terms_and_comparisons() {
        // timer(.me, T), T < .now  with timer(.me, .now - 1) in the space
        const TIMER: NameId = NameId(3);
        let mut space = TupleSpace::default();
        space.add(TIMER, vec![s(1), Value::Num(99.0)]);
        let parts = [s(1)];
        let pre = vec![
            Literal::Pos(atom(TIMER, vec![Expr::Me, Expr::Var(0)])),
            Literal::Cmp(Expr::Var(0), CmpOp::Lt, Expr::Now),
        ];
        let mut rng = Rng::new(1, 1);
        assert!(solve(&pre, 1, &mut env(&space, &parts, &mut rng)).is_some());
        let later = vec![Literal::Cmp(
            Expr::Bin(
                BinOp::Add,
                Box::new(Expr::Now),
                Box::new(Expr::Call(
                    Function::RandF,
                    vec![Expr::Num(2.0), Expr::Num(5.0)],
                )),
            ),
            CmpOp::Gt,
            Expr::Num(101.9),
        )];
        assert!(solve(&later, 0, &mut env(&space, &parts, &mut rng)).is_some());
    }
}
