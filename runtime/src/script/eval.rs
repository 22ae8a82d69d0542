//! Rule evaluation (35.4.3): unification restricted to the three Datalog cases, and
//! backtracking that asks each literal for its n-th solution from scratch, saving only the
//! variable bindings of the states it passed through.
//!
//! The saved bindings live in one flat scratch buffer, one level per literal (level `i` holds
//! the bindings before literal `i`), reused from rule to rule: a backtracking point costs a copy
//! of a few slots, never an allocation.

use super::def::{BinOp, CmpOp, Expr, Function, Literal};
use super::space::{TupleSpace, Value};
use crate::program::NameId;
use crate::rng::Rng;
use smallvec::SmallVec;

/// One variable: the lowest-index variable it has been unified with (its representative) and,
/// on the representative, its value — the bookkeeping the chapter recommends.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Slot {
    repr: u16,
    value: Option<Value>,
}

fn find(slots: &[Slot], mut v: u16) -> u16 {
    while slots[v as usize].repr != v {
        v = slots[v as usize].repr;
    }
    v
}

fn get(slots: &[Slot], v: u16) -> Option<Value> {
    slots[find(slots, v) as usize].value
}

/// Variable to constant: an assignment, or an equality check if already bound.
fn bind(slots: &mut [Slot], v: u16, val: Value) -> bool {
    let r = find(slots, v) as usize;
    match slots[r].value {
        Some(x) => x.same(&val),
        None => {
            slots[r].value = Some(val);
            true
        }
    }
}

/// Variable to variable: merge the two classes under the lower index.
fn join(slots: &mut [Slot], a: u16, b: u16) -> bool {
    let (ra, rb) = (find(slots, a), find(slots, b));
    if ra == rb {
        return true;
    }
    let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
    match (slots[lo as usize].value, slots[hi as usize].value) {
        (Some(x), Some(y)) if !x.same(&y) => return false,
        (None, Some(y)) => slots[lo as usize].value = Some(y),
        _ => {}
    }
    slots[hi as usize].repr = lo;
    true
}

/// The bindings of a rule that fired, kept while its action runs (deferred effects and on-error
/// facts are evaluated under them). Rules rarely have more than four variables; those stay inline.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bindings {
    slots: SmallVec<[Slot; 4]>,
}

impl Bindings {
    /// Checks bindings read from a savegame for a rule of `variables` variables: one slot each,
    /// every representative at or below its slot (so lookups end), symbols among `names`.
    pub(crate) fn check(&self, variables: u16, names: usize) -> Result<(), String> {
        let ok = self.slots.len() == variables as usize
            && self.slots.iter().enumerate().all(|(i, s)| {
                s.repr as usize <= i
                    && !matches!(s.value, Some(Value::Sym(n)) if n.index() >= names)
            });
        if ok {
            Ok(())
        } else {
            Err("the bindings of an action in flight do not fit its rule".into())
        }
    }

    /// Every variable unbound.
    pub fn new(variables: u16) -> Self {
        Bindings {
            slots: (0..variables)
                .map(|repr| Slot { repr, value: None })
                .collect(),
        }
    }

    /// The value of variable `v`, if bound.
    pub fn get(&self, v: u16) -> Option<Value> {
        get(&self.slots, v)
    }

    /// Renames every bound symbol (hot reload re-interns names).
    pub fn rename(&mut self, rename: &mut dyn FnMut(NameId) -> NameId) {
        for s in &mut self.slots {
            s.value = s.value.map(|v| v.renamed(rename));
        }
    }

    #[cfg(test)]
    fn bind(&mut self, v: u16, val: Value) -> bool {
        bind(&mut self.slots, v, val)
    }

    #[cfg(test)]
    fn join(&mut self, a: u16, b: u16) -> bool {
        join(&mut self.slots, a, b)
    }
}

/// Reusable memory for [`solve`]: the saved bindings of every backtracking level and which
/// solution each level is on. Keep one per instance (or per thread) and pass it to every call.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    slots: Vec<Slot>,
    solution: Vec<u32>,
}

/// What evaluation reads besides the tuple space.
pub struct Env<'a> {
    /// The tuple space the literals are solved against.
    pub space: &'a TupleSpace,
    /// `.me`.
    pub me: Value,
    /// `.now`, seconds.
    pub now: f64,
    /// The participants, in this update's shuffled order (what `.any` enumerates).
    pub participants: &'a [Value],
    /// The instance's random stream (`randf`, `randi`).
    pub rng: &'a mut Rng,
    /// `distance(a, b)`, supplied by the game; `None` if either has no position.
    pub distance: &'a dyn Fn(Value, Value) -> Option<f64>,
    /// Literal solutions tried, for the benchmark's evaluations-per-second figure.
    pub steps: u64,
}

/// Why an expression has no value (the validator rules these out statically).
#[derive(Debug, Clone, PartialEq)]
pub enum EvalError {
    /// The variable (by index) was used before anything bound it.
    Unbound(u16),
    /// Arithmetic or a numeric function met a symbol.
    NotANumber,
    /// `distance` named something without a position.
    NoPosition,
}

/// Evaluates a term under the bindings of a rule that fired.
pub fn eval(e: &Expr, b: &Bindings, env: &mut Env<'_>) -> Result<Value, EvalError> {
    eval_in(e, &b.slots, env)
}

fn number(v: Value) -> Result<f64, EvalError> {
    match v {
        Value::Num(x) => Ok(x),
        Value::Sym(_) => Err(EvalError::NotANumber),
    }
}

fn eval_in(e: &Expr, b: &[Slot], env: &mut Env<'_>) -> Result<Value, EvalError> {
    Ok(match e {
        Expr::Var(v) => get(b, *v).ok_or(EvalError::Unbound(*v))?,
        Expr::Sym(s) => Value::Sym(*s),
        Expr::Num(x) => Value::Num(*x),
        Expr::Me => env.me,
        Expr::Now => Value::Num(env.now),
        Expr::Call(f, args) => {
            // Arities are verified on load: one argument for `abs`, two for the rest.
            let first = eval_in(&args[0], b, env)?;
            let second = match args.get(1) {
                Some(a) => Some(eval_in(a, b, env)?),
                None => None,
            };
            let second = || second.ok_or(EvalError::NotANumber);
            if *f == Function::Distance {
                return (env.distance)(first, second()?)
                    .map(Value::Num)
                    .ok_or(EvalError::NoPosition);
            }
            Value::Num(match f {
                Function::RandF => env.rng.range_f64(number(first)?, number(second()?)?),
                Function::RandI => {
                    // i128 so that any pair of f64-rounded bounds has a representable span.
                    let lo = number(first)?.round() as i128;
                    let hi = number(second()?)?.round() as i128;
                    if hi <= lo {
                        lo as f64
                    } else {
                        let span = (hi - lo + 1).min(u32::MAX as i128) as usize;
                        (lo + env.rng.index(span) as i128) as f64
                    }
                }
                Function::Min => number(first)?.min(number(second()?)?),
                Function::Max => number(first)?.max(number(second()?)?),
                Function::Abs => number(first)?.abs(),
                Function::Distance => unreachable!("handled above"),
            })
        }
        Expr::Bin(op, l, r) => {
            let (x, y) = (number(eval_in(l, b, env)?)?, number(eval_in(r, b, env)?)?);
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
fn unify(term: &Expr, val: Value, b: &mut [Slot], env: &mut Env<'_>) -> bool {
    match term {
        Expr::Var(v) => bind(b, *v, val),
        other => eval_in(other, b, env).is_ok_and(|x| x.same(&val)),
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

/// The n-th solution of one literal under the bindings `before`, computed from scratch into
/// `after` (same length). `false` if it has fewer than n + 1 solutions.
fn nth_solution(
    lit: &Literal,
    before: &[Slot],
    after: &mut [Slot],
    n: u32,
    env: &mut Env<'_>,
) -> bool {
    env.steps += 1;
    match lit {
        Literal::Pos(atom) => {
            let mut found = 0;
            for fact in env.space.facts(atom.predicate, atom.args.len()) {
                after.copy_from_slice(before);
                if atom
                    .args
                    .iter()
                    .zip(fact)
                    .all(|(t, v)| unify(t, *v, after, env))
                {
                    if found == n {
                        return true;
                    }
                    found += 1;
                }
            }
            false
        }
        Literal::Neg(atom) => {
            if n > 0 {
                return false;
            }
            let mut any = false;
            for fact in env.space.facts(atom.predicate, atom.args.len()) {
                after.copy_from_slice(before);
                if atom
                    .args
                    .iter()
                    .zip(fact)
                    .all(|(t, v)| unify(t, *v, after, env))
                {
                    any = true;
                    break;
                }
            }
            // A negation tests; it never binds.
            after.copy_from_slice(before);
            !any
        }
        Literal::Cmp(l, op, r) => {
            if n > 0 {
                return false;
            }
            after.copy_from_slice(before);
            // `X = expr` with X unbound assigns.
            if *op == CmpOp::Eq {
                if let (Expr::Var(v), Err(EvalError::Unbound(_))) = (l, eval_in(l, before, env)) {
                    return match eval_in(r, before, env) {
                        Ok(val) => bind(after, *v, val),
                        Err(_) => false,
                    };
                }
                if let (Expr::Var(v), Expr::Var(w)) = (l, r) {
                    return join(after, *v, *w);
                }
            }
            match (eval_in(l, before, env), eval_in(r, before, env)) {
                (Ok(x), Ok(y)) => compare(*op, x, y),
                _ => false,
            }
        }
        Literal::Any(term) => {
            let mut found = 0;
            for p in env.participants {
                after.copy_from_slice(before);
                if unify(term, *p, after, env) {
                    if found == n {
                        return true;
                    }
                    found += 1;
                }
            }
            false
        }
    }
}

/// The first solution of a conjunction, by backtracking; `None` if it does not hold.
pub fn solve(
    literals: &[Literal],
    variables: u16,
    env: &mut Env<'_>,
    scratch: &mut Scratch,
) -> Option<Bindings> {
    let n = variables as usize;
    let slots = &mut scratch.slots;
    slots.clear();
    slots.resize(
        (literals.len() + 1) * n,
        Slot {
            repr: 0,
            value: None,
        },
    );
    for (v, slot) in slots[..n].iter_mut().enumerate() {
        slot.repr = v as u16;
    }
    let solution = &mut scratch.solution;
    solution.clear();
    solution.resize(literals.len(), 0);
    let mut i = 0;
    let mut want = 0;
    loop {
        if i == literals.len() {
            return Some(Bindings {
                slots: SmallVec::from_slice(&slots[i * n..(i + 1) * n]),
            });
        }
        let (before, after) = slots.split_at_mut((i + 1) * n);
        if nth_solution(&literals[i], &before[i * n..], &mut after[..n], want, env) {
            solution[i] = want;
            i += 1;
            want = 0;
        } else {
            // Back to the previous literal's saved bindings, asking it for its next solution.
            if i == 0 {
                return None;
            }
            i -= 1;
            want = solution[i] + 1;
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
        let b = solve(&pre, 2, &mut e, &mut Scratch::default()).unwrap();
        assert_eq!(
            b.get(0),
            Some(s(2)),
            "seat 1 is reserved, so backtracking moves on to seat 2"
        );
        space.add(RESERVED, vec![s(2), s(8)]);
        let mut e = env(&space, &parts, &mut rng);
        assert!(solve(&pre, 2, &mut e, &mut Scratch::default()).is_none());
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
        assert_eq!(
            solve(&pre, 1, &mut e, &mut Scratch::default())
                .unwrap()
                .get(0),
            Some(s(3))
        );
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
        assert!(
            solve(
                &pre,
                1,
                &mut env(&space, &parts, &mut rng),
                &mut Scratch::default()
            )
            .is_some()
        );
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
        assert!(
            solve(
                &later,
                0,
                &mut env(&space, &parts, &mut rng),
                &mut Scratch::default()
            )
            .is_some()
        );
    }
}
