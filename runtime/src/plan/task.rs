//! The grounded STRIPS task every planner works on: facts, operators with positive and negative
//! preconditions, add and delete lists, an initial state and a goal. It is what the compiler
//! produces from PDDL or from action lists, and it serialises with serde.
//!
//! Effect semantics are PDDL's: deletes first, then adds (an operator that adds and deletes the
//! same fact leaves it true). [`Task::new`] normalises every operator so that `del` and `add`
//! are disjoint, sorted and free of duplicates.

pub use crate::program::planning::{FactId, Lit, OpId, Operator, Task};

use super::state::State;

impl Lit {
    /// The fact holds.
    pub fn pos(fact: FactId) -> Self {
        Lit {
            fact,
            positive: true,
        }
    }

    /// The fact does not hold.
    pub fn neg(fact: FactId) -> Self {
        Lit {
            fact,
            positive: false,
        }
    }

    /// `p` contradicts `¬p`.
    pub fn contradicts(self, other: Lit) -> bool {
        self.fact == other.fact && self.positive != other.positive
    }

    /// The opposite literal.
    pub fn negated(self) -> Lit {
        Lit {
            fact: self.fact,
            positive: !self.positive,
        }
    }

    /// Whether it is true in `s` (closed world: a fact not in `s` is false).
    pub fn holds(self, s: &State) -> bool {
        s.contains(self.fact) == self.positive
    }
}

impl Operator {
    /// An operator called `name` with no preconditions and no effects.
    pub fn new(name: impl Into<String>) -> Self {
        Operator {
            name: name.into(),
            pre: Vec::new(),
            pre_neg: Vec::new(),
            add: Vec::new(),
            del: Vec::new(),
        }
    }

    /// Preconditions as literals, positive first.
    pub fn preconditions(&self) -> impl Iterator<Item = Lit> + '_ {
        self.pre
            .iter()
            .map(|&f| Lit::pos(f))
            .chain(self.pre_neg.iter().map(|&f| Lit::neg(f)))
    }

    /// Effects as literals, adds first.
    pub fn effects(&self) -> impl Iterator<Item = Lit> + '_ {
        self.add
            .iter()
            .map(|&f| Lit::pos(f))
            .chain(self.del.iter().map(|&f| Lit::neg(f)))
    }

    /// Whether applying it makes `l` true.
    pub fn has_effect(&self, l: Lit) -> bool {
        if l.positive {
            self.add.contains(&l.fact)
        } else {
            self.del.contains(&l.fact)
        }
    }

    /// Whether every precondition, positive and negative, holds in `s`.
    pub fn is_applicable(&self, s: &State) -> bool {
        self.pre.iter().all(|&f| s.contains(f)) && self.pre_neg.iter().all(|&f| !s.contains(f))
    }

    /// The preconditions that do not hold in `s`.
    pub fn unmet(&self, s: &State) -> Vec<Lit> {
        self.preconditions().filter(|l| !l.holds(s)).collect()
    }

    /// Applies the effects (deletes, then adds) in place, ignoring preconditions.
    pub fn apply_in_place(&self, s: &mut State) {
        for &f in &self.del {
            s.remove(f);
        }
        for &f in &self.add {
            s.insert(f);
        }
    }

    /// The state after applying it to `s` (deletes, then adds), ignoring preconditions.
    pub fn apply(&self, s: &State) -> State {
        let mut next = s.clone();
        self.apply_in_place(&mut next);
        next
    }

    fn normalise(&mut self) {
        for v in [
            &mut self.pre,
            &mut self.pre_neg,
            &mut self.add,
            &mut self.del,
        ] {
            v.sort_unstable();
            v.dedup();
        }
        let add = &self.add;
        self.del.retain(|f| add.binary_search(f).is_err());
    }
}

/// A task that refers to facts that do not exist.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TaskError(pub String);

impl Task {
    /// Checks every fact reference and normalises operators.
    pub fn new(
        facts: Vec<String>,
        mut operators: Vec<Operator>,
        mut init: Vec<FactId>,
        mut goal: Vec<FactId>,
        mut goal_neg: Vec<FactId>,
    ) -> Result<Task, TaskError> {
        let n = facts.len() as FactId;
        let check = |what: &str, ids: &[FactId]| -> Result<(), TaskError> {
            match ids.iter().find(|&&f| f >= n) {
                Some(f) => Err(TaskError(format!(
                    "{what} refers to fact {f}, but there are only {n} facts"
                ))),
                None => Ok(()),
            }
        };
        for op in &mut operators {
            for v in [&op.pre, &op.pre_neg, &op.add, &op.del] {
                check(&format!("operator `{}`", op.name), v)?;
            }
            op.normalise();
        }
        check("the initial state", &init)?;
        check("the goal", &goal)?;
        check("the goal", &goal_neg)?;
        for v in [&mut init, &mut goal, &mut goal_neg] {
            v.sort_unstable();
            v.dedup();
        }
        Ok(Task {
            facts,
            operators,
            init,
            goal,
            goal_neg,
            mutex_groups: Vec::new(),
        })
    }

    /// Starts building a task by names (tests, fixtures, native authoring).
    pub fn builder() -> TaskBuilder {
        TaskBuilder::default()
    }

    /// Number of facts; states are bitsets of this width.
    pub fn num_facts(&self) -> usize {
        self.facts.len()
    }

    /// The initial state as a bitset.
    pub fn initial_state(&self) -> State {
        State::from_facts(self.facts.len(), self.init.iter().copied())
    }

    /// The state in which exactly `facts` hold.
    pub fn state_of(&self, facts: impl IntoIterator<Item = FactId>) -> State {
        State::from_facts(self.facts.len(), facts)
    }

    /// Goal conditions as literals.
    pub fn goal_lits(&self) -> impl Iterator<Item = Lit> + '_ {
        self.goal
            .iter()
            .map(|&f| Lit::pos(f))
            .chain(self.goal_neg.iter().map(|&f| Lit::neg(f)))
    }

    /// Whether `s` satisfies every goal condition, positive and negative.
    pub fn is_goal(&self, s: &State) -> bool {
        self.goal.iter().all(|&f| s.contains(f)) && self.goal_neg.iter().all(|&f| !s.contains(f))
    }

    /// Operator `id` (a valid id of this task).
    pub fn op(&self, id: OpId) -> &Operator {
        &self.operators[id as usize]
    }

    /// Operators applicable in `s`, in declaration order.
    pub fn applicable(&self, s: &State) -> impl Iterator<Item = OpId> + '_ {
        let s = s.clone();
        (0..self.operators.len() as OpId)
            .filter(move |&o| self.operators[o as usize].is_applicable(&s))
    }

    /// The id of the fact named `name`.
    pub fn fact_id(&self, name: &str) -> Option<FactId> {
        self.facts
            .iter()
            .position(|f| f == name)
            .map(|i| i as FactId)
    }

    /// The id of the first operator named `name`.
    pub fn op_id(&self, name: &str) -> Option<OpId> {
        self.operators
            .iter()
            .position(|o| o.name == name)
            .map(|i| i as OpId)
    }

    /// A literal as text: `(on a b)` or `(not (on a b))`.
    pub fn lit_name(&self, l: Lit) -> String {
        let name = &self.facts[l.fact as usize];
        if l.positive {
            name.clone()
        } else {
            format!("(not {name})")
        }
    }

    /// Operator names of a plan.
    pub fn plan_names(&self, plan: &[OpId]) -> Vec<String> {
        plan.iter().map(|&o| self.op(o).name.clone()).collect()
    }
}

/// Builds a [`Task`] by fact and operator names; facts are created on first mention.
#[derive(Default, Debug, Clone)]
pub struct TaskBuilder {
    facts: Vec<String>,
    operators: Vec<Operator>,
    init: Vec<FactId>,
    goal: Vec<FactId>,
    goal_neg: Vec<FactId>,
}

impl TaskBuilder {
    /// The id of a fact, creating it if needed.
    pub fn fact(&mut self, name: &str) -> FactId {
        match self.facts.iter().position(|f| f == name) {
            Some(i) => i as FactId,
            None => {
                self.facts.push(name.to_string());
                (self.facts.len() - 1) as FactId
            }
        }
    }

    fn ids(&mut self, names: &[&str]) -> Vec<FactId> {
        names.iter().map(|n| self.fact(n)).collect()
    }

    /// Adds an operator. Preconditions written `!name` are negative.
    pub fn op(mut self, name: &str, pre: &[&str], add: &[&str], del: &[&str]) -> Self {
        let mut o = Operator::new(name);
        for p in pre {
            match p.strip_prefix('!') {
                Some(n) => {
                    let f = self.fact(n);
                    o.pre_neg.push(f)
                }
                None => {
                    let f = self.fact(p);
                    o.pre.push(f)
                }
            }
        }
        o.add = self.ids(add);
        o.del = self.ids(del);
        self.operators.push(o);
        self
    }

    /// The facts true in the initial state (created if new); replaces earlier calls.
    pub fn init(mut self, facts: &[&str]) -> Self {
        self.init = self.ids(facts);
        self
    }

    /// Goal conditions; `!name` is a negative goal.
    pub fn goal(mut self, facts: &[&str]) -> Self {
        for g in facts {
            match g.strip_prefix('!') {
                Some(n) => {
                    let f = self.fact(n);
                    self.goal_neg.push(f)
                }
                None => {
                    let f = self.fact(g);
                    self.goal.push(f)
                }
            }
        }
        self
    }

    /// The task, checked and normalised as by [`Task::new`].
    pub fn build(self) -> Task {
        Task::new(
            self.facts,
            self.operators,
            self.init,
            self.goal,
            self.goal_neg,
        )
        .expect("a builder only creates facts it refers to")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_then_add_and_normalisation() {
        let t = Task::builder()
            .op("toggle", &["a"], &["a", "b"], &["a", "b", "b"])
            .init(&["a"])
            .goal(&["b"])
            .build();
        let o = t.op(0);
        assert_eq!(o.del, Vec::<FactId>::new());
        let s = o.apply(&t.initial_state());
        assert!(s.contains(0) && s.contains(1));
    }

    #[test]
    fn bad_reference_is_an_error_not_a_panic() {
        let mut o = Operator::new("x");
        o.add.push(7);
        assert!(Task::new(vec!["a".into()], vec![o], vec![], vec![], vec![]).is_err());
    }

    #[test]
    fn serde_round_trip() {
        let t = Task::builder()
            .op("o", &["a", "!c"], &["b"], &["a"])
            .init(&["a"])
            .goal(&["b", "!a"])
            .build();
        let json = serde_json::to_string(&t).unwrap();
        let back: Task = serde_json::from_str(&json).unwrap();
        assert_eq!(t, back);
        assert!(!t.is_goal(&t.initial_state()));
        let s = t.op(0).apply(&t.initial_state());
        assert!(t.is_goal(&s));
    }
}
