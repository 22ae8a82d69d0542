//! Interaction scripts in the IR: parsed rules with the cells they came from. The cell syntax
//! (`script::cell`) parses into the terms, atoms and literals defined here; every node keeps its
//! byte range within its cell, and every cell where it was written, so any check can point
//! inside a cell of a workbook or a string of a RON asset.

use crate::diag::Diagnostic;
use crate::source::{FileId, Span};
pub use ensemble_runtime::script::{BinOp, CmpOp, Termination};
use std::ops::Range;

/// Where a cell's text came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// A string in a RON asset: the span covers the literal including its quotes.
    Ron(Span),
    /// A workbook cell.
    Sheet {
        file: FileId,
        sheet: String,
        cell: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub text: String,
    pub origin: Origin,
}

impl Cell {
    /// Points a diagnostic at this cell, or at `range` inside it when the origin allows.
    pub fn locate(&self, d: Diagnostic, range: Option<Range<usize>>, label: &str) -> Diagnostic {
        match &self.origin {
            Origin::Ron(span) => {
                let inner = span.start + 1;
                let span = match range {
                    // Offsets inside the string are exact unless it contains escapes; clamp to
                    // the literal either way.
                    Some(r) => Span {
                        file: span.file,
                        start: (inner + r.start as u32).min(span.end),
                        end: (inner + r.end as u32).min(span.end),
                    },
                    None => *span,
                };
                d.at(span, label)
            }
            Origin::Sheet { file, sheet, cell } => {
                d.in_cell(*file, sheet, cell).note(label.to_string())
            }
        }
    }

    /// Adds this cell (or `range` inside it) as a related location: a span in a RON asset, a
    /// sheet and cell in a workbook.
    pub fn relate(&self, d: Diagnostic, range: Option<Range<usize>>, label: &str) -> Diagnostic {
        match &self.origin {
            Origin::Ron(span) => {
                let inner = span.start + 1;
                let span = match range {
                    Some(r) => Span {
                        file: span.file,
                        start: (inner + r.start as u32).min(span.end),
                        end: (inner + r.end as u32).min(span.end),
                    },
                    None => *span,
                };
                d.related(span, label)
            }
            Origin::Sheet { file, sheet, cell } => d.related_cell(*file, sheet, cell, label),
        }
    }

    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Var(String, Range<usize>),
    Sym(String, Range<usize>),
    Num(f64, Range<usize>),
    Me(Range<usize>),
    Now(Range<usize>),
    Call(String, Vec<Term>, Range<usize>),
    Bin(BinOp, Box<Term>, Box<Term>, Range<usize>),
}

impl Term {
    pub fn range(&self) -> Range<usize> {
        match self {
            Term::Var(_, r)
            | Term::Sym(_, r)
            | Term::Num(_, r)
            | Term::Me(r)
            | Term::Now(r)
            | Term::Call(_, _, r)
            | Term::Bin(_, _, _, r) => r.clone(),
        }
    }

    /// Variables in order of appearance.
    pub fn vars<'a>(&'a self, out: &mut Vec<(&'a str, Range<usize>)>) {
        match self {
            Term::Var(v, r) => out.push((v, r.clone())),
            Term::Call(_, args, _) => args.iter().for_each(|a| a.vars(out)),
            Term::Bin(_, l, r, _) => {
                l.vars(out);
                r.vars(out);
            }
            _ => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct AtomAst {
    pub predicate: String,
    pub predicate_range: Range<usize>,
    pub args: Vec<Term>,
    pub range: Range<usize>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LiteralAst {
    Pos(AtomAst),
    Neg(AtomAst, Range<usize>),
    Cmp(Term, CmpOp, Term, Range<usize>),
    Any(Term, Range<usize>),
}

impl LiteralAst {
    pub fn range(&self) -> Range<usize> {
        match self {
            LiteralAst::Pos(a) => a.range.clone(),
            LiteralAst::Neg(_, r) | LiteralAst::Cmp(_, _, _, r) | LiteralAst::Any(_, r) => {
                r.clone()
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct ScriptRole {
    pub name: String,
    pub min: u16,
    pub max: u16,
    pub dynamic_join: bool,
    pub leave_command: Option<String>,
    pub cell: Cell,
}

/// An effect list and the cell it was written in.
#[derive(Clone, Debug, Default)]
pub struct Effects {
    pub atoms: Vec<AtomAst>,
    pub cell: Option<Cell>,
}

#[derive(Clone, Debug)]
pub struct ScriptRule {
    /// `Rule` column, or the row number.
    pub label: String,
    /// The row, for diagnostics about the rule as a whole.
    pub row: Cell,
    pub role: Option<usize>,
    pub role_cell: Option<Cell>,
    /// `None`: the rule applies in every state.
    pub state: Option<usize>,
    pub precondition: Vec<LiteralAst>,
    pub precondition_cell: Option<Cell>,
    pub action: Option<(String, Cell)>,
    pub target: Option<(Term, Cell)>,
    pub parameters: Vec<(String, Term)>,
    pub parameters_cell: Option<Cell>,
    pub add: Effects,
    pub delete: Effects,
    pub deferred_add: Effects,
    pub deferred_delete: Effects,
    pub on_error: Effects,
    pub next_state: Option<(usize, Cell)>,
    pub terminate: Termination,
    /// A cell of it could not be read, or names a role that does not exist (both reported): what
    /// it says is unknown, so the checks that would take the cell for empty (or the rule for one
    /// of every role) leave the rule, or the script, alone.
    pub unreadable: bool,
}

impl ScriptRule {
    /// Effects that put facts into the tuple space.
    pub fn additions(&self) -> impl Iterator<Item = (&AtomAst, &Effects)> {
        [&self.add, &self.deferred_add, &self.on_error]
            .into_iter()
            .flat_map(|e| e.atoms.iter().map(move |a| (a, e)))
    }

    pub fn deletions(&self) -> impl Iterator<Item = (&AtomAst, &Effects)> {
        [&self.delete, &self.deferred_delete]
            .into_iter()
            .flat_map(|e| e.atoms.iter().map(move |a| (a, e)))
    }
}

#[derive(Clone, Debug)]
pub struct ScriptState {
    pub name: String,
    /// Where the state is first named.
    pub cell: Option<Cell>,
}

#[derive(Clone, Debug)]
pub struct Script {
    pub name: String,
    pub name_cell: Cell,
    pub file: FileId,
    pub roles: Vec<ScriptRole>,
    pub states: Vec<ScriptState>,
    pub initial: usize,
    pub rules: Vec<ScriptRule>,
    /// `(predicate, arity)` supplied from outside, and where that was declared.
    pub supplies: Vec<(String, usize, Cell)>,
}

/// A smart location (35.2): a place with props that runs one script instance at a time.
#[derive(Clone, Debug)]
pub struct SmartLocation {
    pub name: crate::ir::Name,
    pub at: Option<crate::ir::Handle<crate::ir::Location>>,
    pub radius: f64,
    /// Props `(name, kind)`: each supplies the fact `kind(name)` to its scripts.
    pub props: Vec<(String, String)>,
    /// Other predicates supplied from outside, `(predicate, arity)`.
    pub supplies: Vec<(String, usize)>,
    /// Scripts it can run, with their preference (higher is tried first).
    pub scripts: Vec<(crate::ir::Handle<Script>, f64)>,
    pub proxies: Vec<Proxy>,
    pub notifications: Vec<Notification>,
    pub spawns: Vec<Spawn>,
    pub player: Option<PlayerEmitter>,
}

impl SmartLocation {
    /// Every `(predicate, arity)` something outside the rules puts on this location's
    /// blackboard: props, declared supplies, proxies, the player, notifications.
    pub fn supplied(&self) -> Vec<(String, usize)> {
        let mut out: Vec<(String, usize)> = self
            .props
            .iter()
            .map(|(_, kind)| (kind.clone(), 1))
            .collect();
        out.extend(self.supplies.iter().cloned());
        for p in &self.proxies {
            out.extend(p.supplies.iter().cloned());
        }
        if let Some(p) = &self.player {
            out.extend(p.supplies.iter().cloned());
        }
        for n in &self.notifications {
            out.extend(n.facts.iter().map(|a| (a.predicate.clone(), a.args.len())));
        }
        out
    }
}

/// A proxy object (35.6) as written.
#[derive(Clone, Debug)]
pub struct Proxy {
    pub name: crate::ir::Name,
    pub role: crate::ir::Name,
    pub actions: Vec<crate::ir::Name>,
    pub supplies: Vec<(String, usize)>,
}

/// A notification emitter as written.
#[derive(Clone, Debug)]
pub struct Notification {
    pub name: crate::ir::Name,
    pub at: f64,
    pub every: f64,
    pub radius: f64,
    pub lasts: Option<f64>,
    pub facts: Vec<AtomAst>,
    pub facts_cell: Option<Cell>,
}

/// A spawn emitter as written.
#[derive(Clone, Debug)]
pub struct Spawn {
    pub name: crate::ir::Name,
    pub point: Option<crate::ir::Handle<crate::ir::Location>>,
    pub roles: Vec<crate::ir::Name>,
    pub route: Vec<crate::ir::Handle<crate::ir::Location>>,
    pub size: u32,
    pub at: f64,
    pub every: f64,
    /// 0: no limit.
    pub waves: u32,
}

impl Spawn {
    /// The names it gives the NPCs it spawns, or `None` when there is no limit (then every
    /// `name` followed by a number).
    pub fn names(&self) -> Option<Vec<String>> {
        if self.waves == 0 {
            return None;
        }
        let total = self.waves as u64 * self.size as u64;
        Some(if total == 1 {
            vec![self.name.text.clone()]
        } else {
            (1..=total.min(100_000))
                .map(|i| format!("{}{i}", self.name.text))
                .collect()
        })
    }
}

/// A player emitter as written.
#[derive(Clone, Debug)]
pub struct PlayerEmitter {
    pub role: crate::ir::Name,
    pub icon: String,
    pub supplies: Vec<(String, usize)>,
    pub span: crate::source::Span,
}

/// A scene event as written (`Scene(events: [...])`).
#[derive(Clone, Debug)]
pub struct SceneEvent {
    pub scene: crate::ir::Handle<crate::ir::Scene>,
    pub at: f64,
    /// The whole event.
    pub span: crate::source::Span,
    pub what: SceneEventKind,
}

#[derive(Clone, Debug)]
pub enum SceneEventKind {
    Interact {
        location: crate::ir::Handle<SmartLocation>,
    },
    Input {
        fact: AtomAst,
        cell: Cell,
    },
    Leave,
    Push {
        location: crate::ir::Handle<SmartLocation>,
        proxy: usize,
        fact: AtomAst,
        cell: Cell,
    },
    Notify {
        location: crate::ir::Handle<SmartLocation>,
        notification: usize,
    },
}
