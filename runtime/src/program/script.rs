//! The compiled form of interaction scripts, as stored in the program.
//!
//! Invariants (checked by the program verifier): every name id is in range; variable indices
//! are below the rule's `variables`; the rules of one state are contiguous (`states[i]` spans
//! `first_rule .. first_rule + rule_count`) so an actor's update scans only its state's rules.

use super::NameId;
use serde::{Deserialize, Serialize};

/// Comparison operators of preconditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    /// `=` (or `==`): numbers by value, symbols by identity.
    Eq,
    /// `!=`.
    Ne,
    /// `<` (numbers only; false for symbols).
    Lt,
    /// `<=` (numbers only).
    Le,
    /// `>` (numbers only).
    Gt,
    /// `>=` (numbers only).
    Ge,
}

impl CmpOp {
    /// Every comparison, in declaration order.
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];

    /// How a script cell writes it (`==` is read as `=`).
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }

    /// The operator a cell writes `symbol`, if there is one.
    pub fn by_symbol(symbol: &str) -> Option<CmpOp> {
        CmpOp::ALL.into_iter().find(|op| op.symbol() == symbol)
    }
}

impl std::fmt::Display for CmpOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.symbol())
    }
}

/// Arithmetic operators of expressions (IEEE: dividing by zero gives an infinity, not an
/// error).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum BinOp {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
}

impl BinOp {
    /// How a script cell writes it.
    pub fn symbol(self) -> char {
        match self {
            BinOp::Add => '+',
            BinOp::Sub => '-',
            BinOp::Mul => '*',
            BinOp::Div => '/',
        }
    }
}

impl std::fmt::Display for BinOp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.symbol())
    }
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
    /// `min(a, b)`.
    Min,
    /// `max(a, b)`.
    Max,
    /// `abs(x)`.
    Abs,
}

impl Function {
    /// How many arguments it takes.
    pub fn arity(self) -> usize {
        match self {
            Function::Abs => 1,
            _ => 2,
        }
    }

    /// Every function, in the order the docs and diagnostics list them.
    pub const ALL: [Function; 6] = [
        Function::RandF,
        Function::RandI,
        Function::Distance,
        Function::Min,
        Function::Max,
        Function::Abs,
    ];

    /// The name a script calls it by: the one definition the compiler's checks read.
    pub fn name(self) -> &'static str {
        match self {
            Function::RandF => "randf",
            Function::RandI => "randi",
            Function::Distance => "distance",
            Function::Min => "min",
            Function::Max => "max",
            Function::Abs => "abs",
        }
    }

    /// The function a script calls `name`, if there is one.
    pub fn by_name(name: &str) -> Option<Function> {
        Function::ALL.into_iter().find(|f| f.name() == name)
    }
}

/// A term or arithmetic expression.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A rule variable: index below the rule's [`RuleDef::variables`].
    Var(u16),
    /// A symbol: a prop, a participant or a constant.
    Sym(NameId),
    /// A number.
    Num(f64),
    /// `.me`: the acting participant.
    Me,
    /// `.now`: seconds since the scene started.
    Now,
    /// A function call, evaluated when reached.
    Call(Function, Vec<Expr>),
    /// Arithmetic on two numbers.
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

/// A predicate applied to terms: `sitting(.me)`, `seat(X)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Atom {
    /// The predicate's name.
    pub predicate: NameId,
    /// Its arguments; the arity is part of the predicate's identity.
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

/// One condition of a rule's precondition, tried left to right.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Literal {
    /// The atom holds (unifies with a fact of the tuple space).
    Pos(Atom),
    /// Negation as failure; variables not bound before it are existential inside it.
    Neg(Atom),
    /// A comparison of two expressions.
    Cmp(Expr, CmpOp, Expr),
    /// `.any(X)`: X ranges over the participants, in the update's shuffled order.
    Any(Expr),
}

/// Whom a rule's firing takes out of the script.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Termination {
    /// Nobody: the actor goes on in its next state.
    None,
    /// The actor leaves the script (after its action, if any, has finished).
    Actor,
    /// The whole script ends.
    Script,
}

/// The action a rule starts for its actor; the game performs it and reports the outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ActionDef {
    /// The action's name (`sit`, `talk`), as the game knows it.
    pub name: NameId,
    /// What it is aimed at (a prop or participant), if anything.
    pub target: Option<Expr>,
    /// Named parameters, evaluated when the rule fires.
    pub parameters: Vec<(NameId, Expr)>,
}

/// A rule. It fires for an idle actor whose state it belongs to when its precondition holds:
/// the immediate effects apply, the actor moves to the next state and the action starts. The
/// deferred effects and the termination wait for the action to succeed; if it fails, the
/// on-error facts apply instead. A rule without an action completes at once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RuleDef {
    /// The rule's label (`1`, `sit-down`), for traces and the debugger.
    pub name: NameId,
    /// Only actors of this role may fire it.
    pub role: Option<u16>,
    /// Literals that must all hold, solved by backtracking; they bind the rule's variables.
    pub precondition: Vec<Literal>,
    /// The action started when the rule fires, if any.
    pub action: Option<ActionDef>,
    /// Facts added at once when it fires.
    pub add: Vec<Atom>,
    /// Facts deleted at once when it fires (a free variable matches anything).
    pub delete: Vec<Atom>,
    /// Facts added when the action succeeds (at once without an action).
    pub deferred_add: Vec<Atom>,
    /// Facts deleted when the action succeeds (at once without an action).
    pub deferred_delete: Vec<Atom>,
    /// Facts added when the action fails.
    pub on_error: Vec<Atom>,
    /// Index into the script's states.
    pub next_state: Option<u16>,
    /// Who leaves when the rule has fired (after its action succeeded).
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

/// A role of a script: how many actors take it and whether late arrivals may.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RoleDef {
    /// The role's name (`customer`, `waiter`).
    pub name: NameId,
    /// Fewest actors; the script ends when the role drops below it.
    pub min: u16,
    /// Most actors.
    pub max: u16,
    /// Whether an actor may join while the script runs (35.4.2).
    pub dynamic_join: bool,
    /// Action sent to an actor of this role when it leaves (`leaveCommand=ACTION`).
    pub leave_command: Option<NameId>,
}

/// A named state of a script's participants; its rules are contiguous in [`ScriptDef::rules`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptStateDef {
    /// The state's name.
    pub name: NameId,
    /// Index of its first rule.
    pub first_rule: u32,
    /// How many rules it has.
    pub rule_count: u32,
}

/// A compiled interaction script: roles, participant states and their rules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptDef {
    /// The script's name.
    pub name: NameId,
    /// Its roles; a participant's role is an index into this.
    pub roles: Vec<RoleDef>,
    /// Participant states; a participant's state is an index into this.
    pub states: Vec<ScriptStateDef>,
    /// The state every participant starts in.
    pub initial_state: u16,
    /// All rules, grouped by state.
    pub rules: Vec<RuleDef>,
}

impl ScriptDef {
    /// The rules of `state`, in author order (the first that applies fires).
    pub fn rules_of(&self, state: u16) -> &[RuleDef] {
        let s = &self.states[state as usize];
        &self.rules[s.first_rule as usize..(s.first_rule + s.rule_count) as usize]
    }

    /// The index of the role called `name`.
    pub fn role_by_name(&self, name: NameId) -> Option<u16> {
        self.roles
            .iter()
            .position(|r| r.name == name)
            .map(|i| i as u16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` lists every variant once, and names and symbols read back: the compiler's checks
    /// and the docs check list what these say.
    #[test]
    fn every_function_and_comparison_is_listed_once_and_reads_back() {
        // Adding a variant breaks this match until it is counted here, and then `ALL` is checked.
        let function_variants = |f: Function| match f {
            Function::RandF
            | Function::RandI
            | Function::Distance
            | Function::Min
            | Function::Max
            | Function::Abs => 6,
        };
        assert_eq!(Function::ALL.len(), function_variants(Function::Abs));
        for (i, f) in Function::ALL.iter().enumerate() {
            assert!(!Function::ALL[..i].contains(f));
            assert_eq!(Function::by_name(f.name()), Some(*f));
        }
        assert_eq!(Function::by_name("rand"), None);
        let cmp_variants = |op: CmpOp| match op {
            CmpOp::Eq | CmpOp::Ne | CmpOp::Lt | CmpOp::Le | CmpOp::Gt | CmpOp::Ge => 6,
        };
        assert_eq!(CmpOp::ALL.len(), cmp_variants(CmpOp::Eq));
        for (i, op) in CmpOp::ALL.iter().enumerate() {
            assert!(!CmpOp::ALL[..i].contains(op));
            assert_eq!(CmpOp::by_symbol(op.symbol()), Some(*op));
        }
        assert_eq!(CmpOp::by_symbol("=="), None);
        assert_eq!(BinOp::Div.to_string(), "/");
    }
}
