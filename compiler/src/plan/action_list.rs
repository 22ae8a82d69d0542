//! Hewlett's action lists (§2.2, Figs. 2.1–2.3): a state of named variables (`Location`,
//! `Has_Ticket`, ...), actions with constraints on those variables and effects that assign them,
//! seed states, and goals as sets of states (every state that satisfies the goal conditions).
//!
//! Variables are integers; an enumerated variable names its values (`Location: [Gate,
//! Security, ...]`), and a variable without `values` is an unbounded integer (the (X, Y) grid
//! of §2.5). The serde shape is the native RON format.

use ensemble_runtime::plan::{Operator, Task};
use serde::{Deserialize, Serialize};

// The written shapes (variables, values, conditions, effects, actions) are the RON frontend's.
pub use crate::front::ron::planning::{Action, Condition, Effect, Value, Variable};

/// An action-list domain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionDomain {
    pub variables: Vec<Variable>,
    pub actions: Vec<Action>,
}

/// Seed states (every variable not given is 0) and the goal conditions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionProblem {
    pub seeds: Vec<Vec<(String, Value)>>,
    pub goal: Vec<Condition>,
}

/// A state: one value per variable, in declaration order.
pub type VarState = Vec<i64>;

/// Constraints and effects with variables and values resolved to indices.
#[derive(Clone, Debug, PartialEq)]
pub struct Compiled {
    pub names: Vec<String>,
    pub domains: Vec<Option<Vec<String>>>,
    pub actions: Vec<CompiledAction>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct CompiledAction {
    pub name: String,
    /// (variable, value, equal?)
    pub constraints: Vec<(usize, i64, bool)>,
    pub effects: Vec<CompiledEffect>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CompiledEffect {
    Set(usize, i64),
    Add(usize, i64),
}

/// A name that does not resolve, for diagnostics.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolveError {
    pub action: Option<String>,
    pub message: String,
}

impl ActionDomain {
    pub fn var(&self, name: &str) -> Option<usize> {
        self.variables.iter().position(|v| v.name == name)
    }

    pub fn value(&self, var: usize, v: &Value) -> Result<i64, String> {
        let var_def = &self.variables[var];
        match (v, &var_def.values) {
            (Value::Int(i), None) => Ok(*i),
            (Value::Int(i), Some(vals)) if (*i as usize) < vals.len() && *i >= 0 => Ok(*i),
            (Value::Int(i), Some(_)) => Err(format!("`{}` has no value {i}", var_def.name)),
            (Value::Name(n), Some(vals)) => vals
                .iter()
                .position(|x| x == n)
                .map(|i| i as i64)
                .ok_or_else(|| format!("`{n}` is not a value of `{}`", var_def.name)),
            (Value::Name(n), None) => Err(format!(
                "`{}` is an integer variable; `{n}` is not a number",
                var_def.name
            )),
        }
    }

    fn cond(&self, c: &Condition) -> Result<(usize, i64, bool), String> {
        let (name, v, eq) = match c {
            Condition::Eq(n, v) => (n, v, true),
            Condition::Ne(n, v) => (n, v, false),
        };
        let var = self
            .var(name)
            .ok_or_else(|| format!("unknown variable `{name}`"))?;
        Ok((var, self.value(var, v)?, eq))
    }

    /// Resolves every name; returns all errors.
    pub fn compile(&self) -> Result<Compiled, Vec<ResolveError>> {
        let mut errors = Vec::new();
        let mut actions = Vec::new();
        for a in &self.actions {
            let mut ca = CompiledAction {
                name: a.name.clone(),
                constraints: Vec::new(),
                effects: Vec::new(),
            };
            let mut err = |m: String| {
                errors.push(ResolveError {
                    action: Some(a.name.clone()),
                    message: m,
                })
            };
            for c in &a.constraints {
                match self.cond(c) {
                    Ok(x) => ca.constraints.push(x),
                    Err(m) => err(m),
                }
            }
            for e in &a.effects {
                match e {
                    Effect::Set(n, v) => match self.var(n) {
                        Some(var) => match self.value(var, v) {
                            Ok(x) => ca.effects.push(CompiledEffect::Set(var, x)),
                            Err(m) => err(m),
                        },
                        None => err(format!("unknown variable `{n}`")),
                    },
                    Effect::Add(n, d) => match self.var(n) {
                        Some(var) if self.variables[var].values.is_none() => {
                            ca.effects.push(CompiledEffect::Add(var, *d))
                        }
                        Some(_) => err(format!(
                            "`{n}` is enumerated; only integers can be added to"
                        )),
                        None => err(format!("unknown variable `{n}`")),
                    },
                }
            }
            actions.push(ca);
        }
        if errors.is_empty() {
            Ok(Compiled {
                names: self.variables.iter().map(|v| v.name.clone()).collect(),
                domains: self.variables.iter().map(|v| v.values.clone()).collect(),
                actions,
            })
        } else {
            Err(errors)
        }
    }

    /// A seed as a state (unmentioned variables are 0).
    pub fn state(&self, assignments: &[(String, Value)]) -> Result<VarState, String> {
        let mut s = vec![0; self.variables.len()];
        for (n, v) in assignments {
            let var = self
                .var(n)
                .ok_or_else(|| format!("unknown variable `{n}`"))?;
            s[var] = self.value(var, v)?;
        }
        Ok(s)
    }

    pub fn goal(&self, goal: &[Condition]) -> Result<Vec<(usize, i64, bool)>, String> {
        goal.iter().map(|c| self.cond(c)).collect()
    }
}

impl CompiledAction {
    pub fn enabled(&self, s: &[i64]) -> bool {
        self.constraints.iter().all(|&(v, x, eq)| (s[v] == x) == eq)
    }

    pub fn apply(&self, s: &[i64]) -> VarState {
        let mut n = s.to_vec();
        for e in &self.effects {
            match *e {
                CompiledEffect::Set(v, x) => n[v] = x,
                CompiledEffect::Add(v, d) => n[v] = n[v].saturating_add(d),
            }
        }
        n
    }
}

pub fn satisfies(s: &[i64], goal: &[(usize, i64, bool)]) -> bool {
    goal.iter().all(|&(v, x, eq)| (s[v] == x) == eq)
}

impl Compiled {
    /// `Var=value` as text.
    pub fn fact_name(&self, var: usize, value: i64) -> String {
        match &self.domains[var] {
            Some(vals) => format!("{}={}", self.names[var], vals[value as usize]),
            None => format!("{}={value}", self.names[var]),
        }
    }

    /// The equivalent grounded STRIPS task (one fact per variable value), for the runtime's
    /// planners. Only for enumerated variables: `None` if some variable is an integer.
    pub fn to_task(&self, seed: &[i64], goal: &[(usize, i64, bool)]) -> Option<Task> {
        let mut offset = Vec::new();
        let mut facts = Vec::new();
        for (v, d) in self.domains.iter().enumerate() {
            offset.push(facts.len() as u32);
            for x in 0..d.as_ref()?.len() {
                facts.push(self.fact_name(v, x as i64));
            }
        }
        let fact = |v: usize, x: i64| offset[v] + x as u32;
        let size = |v: usize| self.domains[v].as_ref().map_or(0, Vec::len) as i64;
        let mut ops = Vec::new();
        for a in &self.actions {
            let mut o = Operator::new(a.name.clone());
            for &(v, x, eq) in &a.constraints {
                if eq {
                    o.pre.push(fact(v, x));
                } else {
                    o.pre_neg.push(fact(v, x));
                }
            }
            for e in &a.effects {
                let CompiledEffect::Set(v, x) = *e else {
                    return None;
                };
                o.add.push(fact(v, x));
                o.del
                    .extend((0..size(v)).filter(|&y| y != x).map(|y| fact(v, y)));
            }
            ops.push(o);
        }
        let init = seed.iter().enumerate().map(|(v, &x)| fact(v, x)).collect();
        let (mut g, mut gn) = (Vec::new(), Vec::new());
        for &(v, x, eq) in goal {
            if eq {
                g.push(fact(v, x))
            } else {
                gn.push(fact(v, x))
            }
        }
        Task::new(facts, ops, init, g, gn).ok()
    }
}
