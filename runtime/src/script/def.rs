//! The compiled form of interaction scripts, as stored in the program.
//!
//! Invariants (checked by the program verifier): every name id is in range; variable indices
//! are below the rule's `variables`; the rules of one state are contiguous (`states[i]` spans
//! `first_rule .. first_rule + rule_count`) so an actor's update scans only its state's rules.

use crate::program::NameId;
use serde::{Deserialize, Serialize};

/// Comparison operators of preconditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

/// Functions evaluated immediately when reached (the Datalog restriction of 35.3.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Function {
    /// `randf(lo, hi)`: uniform real.
    RandF,
    /// `randi(lo, hi)`: uniform integer, inclusive.
    RandI,
    /// `distance(a, b)`: between two participants or props, supplied by the game.
    Distance,
    Min,
    Max,
    Abs,
}

impl Function {
    pub fn arity(self) -> usize {
        match self {
            Function::Abs => 1,
            _ => 2,
        }
    }

    pub fn by_name(name: &str) -> Option<Function> {
        Some(match name {
            "randf" => Function::RandF,
            "randi" => Function::RandI,
            "distance" => Function::Distance,
            "min" => Function::Min,
            "max" => Function::Max,
            "abs" => Function::Abs,
            _ => return None,
        })
    }
}

/// A term or arithmetic expression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    Var(u16),
    Sym(NameId),
    Num(f64),
    /// `.me`: the acting participant.
    Me,
    /// `.now`: seconds since the scene started.
    Now,
    Call(Function, Vec<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// The same expression with every symbol renamed (hot reload re-interns names).
    pub fn renamed(&self, rename: &mut dyn FnMut(NameId) -> NameId) -> Expr {
        match self {
            Expr::Sym(s) => Expr::Sym(rename(*s)),
            Expr::Call(f, args) => Expr::Call(*f, args.iter().map(|a| a.renamed(rename)).collect()),
            Expr::Bin(op, l, r) => Expr::Bin(
                *op,
                Box::new(l.renamed(rename)),
                Box::new(r.renamed(rename)),
            ),
            other => other.clone(),
        }
    }

    /// Whether its value can change while the tuple space and the participants stay the same:
    /// it reads the clock, draws a random number or measures a distance.
    pub fn volatile(&self) -> bool {
        match self {
            Expr::Now => true,
            Expr::Call(Function::RandF | Function::RandI | Function::Distance, _) => true,
            Expr::Call(_, args) => args.iter().any(Expr::volatile),
            Expr::Bin(_, l, r) => l.volatile() || r.volatile(),
            Expr::Var(_) | Expr::Sym(_) | Expr::Num(_) | Expr::Me => false,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Atom {
    pub predicate: NameId,
    pub args: Vec<Expr>,
}

impl Atom {
    /// The same atom with its predicate and symbols renamed.
    pub fn renamed(&self, rename: &mut dyn FnMut(NameId) -> NameId) -> Atom {
        Atom {
            predicate: rename(self.predicate),
            args: self.args.iter().map(|a| a.renamed(rename)).collect(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Literal {
    Pos(Atom),
    /// Negation as failure; variables not bound before it are existential inside it.
    Neg(Atom),
    Cmp(Expr, CmpOp, Expr),
    /// `.any(X)`: X ranges over the participants, in the update's shuffled order.
    Any(Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Termination {
    None,
    /// The actor leaves the script (after its action, if any, has finished).
    Actor,
    /// The whole script ends.
    Script,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionDef {
    pub name: NameId,
    pub target: Option<Expr>,
    pub parameters: Vec<(NameId, Expr)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleDef {
    /// The rule's label (`1`, `sit-down`), for traces and the debugger.
    pub name: NameId,
    /// Only actors of this role may fire it.
    pub role: Option<u16>,
    pub precondition: Vec<Literal>,
    pub action: Option<ActionDef>,
    pub add: Vec<Atom>,
    pub delete: Vec<Atom>,
    pub deferred_add: Vec<Atom>,
    pub deferred_delete: Vec<Atom>,
    pub on_error: Vec<Atom>,
    /// Index into the script's states.
    pub next_state: Option<u16>,
    pub terminate: Termination,
    /// Number of distinct variables (indices `0..variables`).
    pub variables: u16,
}

impl RuleDef {
    /// Whether its precondition can change from false to true with nothing in the tuple space
    /// or the participants changing (see [`Expr::volatile`]). A rule that is not volatile and
    /// failed stays failed until the space or the participants change, so an update may skip it.
    pub fn volatile(&self) -> bool {
        self.precondition.iter().any(|l| match l {
            Literal::Pos(a) | Literal::Neg(a) => a.args.iter().any(Expr::volatile),
            Literal::Cmp(l, _, r) => l.volatile() || r.volatile(),
            Literal::Any(e) => e.volatile(),
        })
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleDef {
    pub name: NameId,
    pub min: u16,
    pub max: u16,
    pub dynamic_join: bool,
    /// Action sent to an actor of this role when it leaves (`leaveCommand=ACTION`).
    pub leave_command: Option<NameId>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptStateDef {
    pub name: NameId,
    pub first_rule: u32,
    pub rule_count: u32,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptDef {
    pub name: NameId,
    pub roles: Vec<RoleDef>,
    pub states: Vec<ScriptStateDef>,
    pub initial_state: u16,
    /// All rules, grouped by state.
    pub rules: Vec<RuleDef>,
}

impl ScriptDef {
    pub fn rules_of(&self, state: u16) -> &[RuleDef] {
        let s = &self.states[state as usize];
        &self.rules[s.first_rule as usize..(s.first_rule + s.rule_count) as usize]
    }

    pub fn role_by_name(&self, name: NameId) -> Option<u16> {
        self.roles
            .iter()
            .position(|r| r.name == name)
            .map(|i| i as u16)
    }
}
