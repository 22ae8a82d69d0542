//! A STRIPS problem in a project (a `*.problem.ron`, or a PDDL problem) over a native or PDDL
//! domain: resolve, ground every reachable fact (world events keep the facts they change
//! fluent), split the agent's own actions from others' (the `actor`), check for mutually
//! exclusive goals, and bind each action to the machine that performs it.

use super::mutex;
use super::native::{ActionMeta, event_literals};
use super::project::{Settings, planner_of};
use crate::diag::{Code, Diagnostic, Diagnostics, Severity, suggest_note};
use crate::front::pddl::ast::{self, Literal, Term};
use crate::front::pddl::resolve::{self, Lifted, ObjId, PredId};
use crate::front::pddl::{GroundOptions, Naming, sexpr};
use crate::ir::plan::{Problem, ProblemSource};
use crate::ir::{Handle, Machine, Module, Name};
use crate::source::Span;
use ensemble_runtime::plan::{FactId, Lit, Operator, Task};
use std::collections::BTreeMap;

/// A domain ready for its problems.
pub struct StripsDomain {
    pub ast: ast::Domain,
    /// Per action: actor and machine (native domains); empty for PDDL.
    pub meta: Vec<ActionMeta>,
    pub naming: Naming,
    /// Whether resolving the domain on its own found errors (its problems are then skipped).
    pub broken: bool,
}

impl StripsDomain {
    pub fn new(
        ast: ast::Domain,
        meta: Vec<ActionMeta>,
        naming: Naming,
        diags: &mut Diagnostics,
    ) -> Self {
        // Domain errors are reported once here, not once per problem.
        let before = diags.count(Severity::Error);
        resolve::resolve(&ast, &ast::Problem::default(), diags);
        let broken = diags.count(Severity::Error) > before;
        StripsDomain {
            ast,
            meta,
            naming,
            broken,
        }
    }

    pub fn name(&self) -> &str {
        self.ast.name.as_ref().map_or("", |n| n.text.as_str())
    }
}

/// What a problem asks for beyond PDDL (a native problem's settings; defaults for PDDL).
pub struct Extras<'a> {
    pub settings: Settings,
    /// The object that plans, and where it is named.
    pub actor: Option<(&'a str, Span)>,
    /// Machines by action name, and where each is named.
    pub machines: Vec<(&'a str, &'a str, Span)>,
}

/// A literal of a world event, parsed in the problem's syntax: `(pred, args, positive, span)`.
pub type EventLit = (String, Vec<String>, bool, Span);

/// Parses a world event's literal string in the syntax of the domain (`(door-open)` for PDDL,
/// `doorOpen` / `not inside(npc)` for native); errors are reported at `span`.
pub fn parse_event_literals(
    text: &str,
    naming: Naming,
    span: Span,
    diags: &mut Diagnostics,
) -> Vec<EventLit> {
    let sexpr_form = text.trim_start().starts_with('(');
    let lits: Vec<Literal> = match naming {
        // PDDL names are case-insensitive: `clean-hands`, `at(p1, a)` as well as `(at p1 a)`.
        Naming::Pddl if !sexpr_form => event_literals(&text.to_ascii_lowercase(), span, diags),
        Naming::Native => event_literals(text, span, diags),
        Naming::Pddl => {
            let mut local = Diagnostics::default();
            let top = sexpr::parse(span.file, text, &mut local);
            let mut out = Vec::new();
            for s in &top {
                let (neg, s) = match s.head() {
                    Some("not") => (true, s.list().and_then(|l| l.get(1)).unwrap_or(s)),
                    _ => (false, s),
                };
                let Some([head, args @ ..]) = s.list() else {
                    continue;
                };
                let name = |t: &str| ast::Name {
                    text: t.to_string(),
                    span,
                };
                let atom = ast::Atom {
                    pred: name(head.atom().unwrap_or("")),
                    args: args
                        .iter()
                        .map(|a| Term::Const(name(a.atom().unwrap_or(""))))
                        .collect(),
                    span,
                };
                out.push(if neg {
                    Literal::Neg(atom)
                } else {
                    Literal::Pos(atom)
                });
            }
            if out.is_empty() || !local.is_empty() {
                diags.push(
                    Diagnostic::error(
                        Code::Syntax,
                        format!("`{text}` is not a PDDL literal such as `(door-open)` or `(not (at a b))`"),
                    )
                    .at(span, "here"),
                );
            }
            out
        }
    };
    lits.into_iter()
        .filter_map(|l| {
            let (a, positive) = match l {
                Literal::Pos(a) => (a, true),
                Literal::Neg(a) => (a, false),
                Literal::Eq { span, .. } => {
                    diags.push(
                        Diagnostic::error(
                            Code::Syntax,
                            "a world event changes facts; (in)equalities never change",
                        )
                        .at(span, "here"),
                    );
                    return None;
                }
            };
            let args = a.args.iter().map(|t| t.name().text.clone()).collect();
            Some((a.pred.text.clone(), args, positive, span))
        })
        .collect()
}

/// `(predicate id, object ids)` of an event literal, or a located error.
fn lift(l: &Lifted, lit: &EventLit, diags: &mut Diagnostics) -> Option<(PredId, Vec<ObjId>)> {
    let (pred, args, _, span) = lit;
    let Some(p) = l.predicates.iter().position(|x| &x.0 == pred) else {
        let d = Diagnostic::error(
            Code::UnknownReference,
            format!("unknown predicate `{pred}`"),
        )
        .at(*span, "not a predicate of the problem's domain");
        diags.push(suggest_note(
            d,
            pred,
            l.predicates.iter().map(|x| x.0.as_str()),
        ));
        return None;
    };
    if l.predicates[p].1 != args.len() {
        diags.push(
            Diagnostic::error(
                Code::ArityMismatch,
                format!(
                    "`{pred}` takes {} argument(s), but {} are given",
                    l.predicates[p].1,
                    args.len()
                ),
            )
            .at(*span, "here")
            .related(l.predicates[p].2, "declared here"),
        );
        return None;
    }
    let mut objs = Vec::new();
    for a in args {
        match l.objects.iter().position(|o| o == a) {
            Some(o) => objs.push(o as ObjId),
            None => {
                let d = Diagnostic::error(Code::UnknownReference, format!("unknown object `{a}`"))
                    .at(*span, "not an object of the problem");
                diags.push(suggest_note(d, a, l.objects.iter().map(String::as_str)));
                return None;
            }
        }
    }
    Some((p as PredId, objs))
}

/// A problem, lowered. `events` are the literals world events will set, `tested` those their
/// `when` conditions test: the predicates of both stay fluent (never compiled away as static),
/// so that their facts exist; what events set may also become true.
#[allow(clippy::too_many_arguments)]
pub fn lower(
    domain: &StripsDomain,
    problem: &ast::Problem,
    source: ProblemSource,
    extras: &Extras<'_>,
    events: &[EventLit],
    tested: &[EventLit],
    span: Span,
    module: &Module,
    stage: super::project::Options,
    diags: &mut Diagnostics,
) -> Option<Problem> {
    let before = diags.count(Severity::Error);
    let lifted = resolve::resolve(&domain.ast, problem, diags);
    if diags.count(Severity::Error) > before {
        return None;
    }
    // Mistakes in world events are the events' (reported here, dropped when resolving them),
    // not the problem's: they do not stop it.
    let mut events_diags = Diagnostics::default();
    let mut may_change = Vec::new();
    let mut may_become_true = Vec::new();
    for e in events {
        if let Some((p, objs)) = lift(&lifted, e, &mut events_diags) {
            may_change.push(p);
            if e.2 {
                may_become_true.push((p, objs));
            }
        }
    }
    for d in events_diags.iter() {
        diags.push(d.clone());
    }
    // Mistakes in conditions are reported when the events are resolved.
    let mut quiet = Diagnostics::default();
    for e in tested {
        if let Some((p, _)) = lift(&lifted, e, &mut quiet) {
            may_change.push(p);
        }
    }
    let before = diags.count(Severity::Error);
    let actor = match extras.actor {
        None => None,
        Some((who, at)) => match lifted.objects.iter().position(|o| o == who) {
            Some(o) => Some(o as ObjId),
            None => {
                let d =
                    Diagnostic::error(Code::UnknownReference, format!("unknown object `{who}`"))
                        .at(at, "the actor must be an object of the problem");
                diags.push(suggest_note(
                    d,
                    who,
                    lifted.objects.iter().map(String::as_str),
                ));
                None
            }
        },
    };
    let opts = GroundOptions {
        relevance: false,
        naming: domain.naming,
        may_become_true,
        may_change,
        goal_severity: stage.goal_severity,
        ..GroundOptions::default()
    };
    // What grounding finds depends on the problem: say which one.
    let mut local = Diagnostics::default();
    let grounded = crate::front::pddl::ground::ground_with(&lifted, &opts, &mut local);
    let problem_name = problem.name.as_ref().map_or("", |n| n.text.as_str());
    for d in local.iter() {
        diags.push(d.clone().note(format!("in problem `{problem_name}`")));
    }
    if diags.count(Severity::Error) > before {
        return None;
    }
    let full = grounded.task;
    // Mutually exclusive goals (others' actions included: they change the world too).
    if let Some(pairs) = mutex::goal_mutexes(&full) {
        for (a, b) in pairs {
            let at = |f: FactId| {
                problem
                    .goal
                    .iter()
                    .find_map(|g| match g {
                        Literal::Pos(x) => {
                            let args: Vec<&str> =
                                x.args.iter().map(|t| t.name().text.as_str()).collect();
                            (domain.naming.render(&x.pred.text, &args) == full.facts[f as usize])
                                .then_some(x.span)
                        }
                        _ => None,
                    })
                    .unwrap_or(span)
            };
            diags.push(
                Diagnostic::new(
                    stage.goal_severity,
                    Code::UnreachableGoal,
                    format!(
                        "the goals `{}` and `{}` are mutually exclusive: no reachable state has both",
                        full.facts[a as usize], full.facts[b as usize]
                    ),
                )
                .at(at(a), "this goal")
                .related(at(b), "cannot hold together with this one"),
            );
        }
    }
    if diags.count(Severity::Error) > before {
        return None;
    }
    // The agent's own actions, and everyone else's.
    let meta = |ai: u32| domain.meta.get(ai as usize).cloned().unwrap_or_default();
    let mut own = Vec::new();
    let mut own_actions = Vec::new();
    let mut external = Vec::new();
    for (op, (ai, binding)) in full.operators.iter().zip(&grounded.origins) {
        let mine = match (meta(*ai).actor, actor) {
            (Some(k), Some(me)) => binding.get(k) == Some(&me),
            _ => true,
        };
        if mine {
            own.push(op.clone());
            own_actions.push(*ai);
        } else {
            external.push(op.clone());
        }
    }
    if diags.count(Severity::Error) > before {
        return None;
    }
    // Machines: the problem's, else the domain's. A machine that is not defined is reported;
    // the problem is still lowered (so later checks see it), and the build stops anyway.
    let mut by_action: BTreeMap<usize, Option<Handle<Machine>>> = BTreeMap::new();
    for (ai, a) in lifted.actions.iter().enumerate() {
        let named = extras
            .machines
            .iter()
            .find(|(n, _, _)| *n == a.name)
            .map(|&(_, m, at)| (m.to_string(), at))
            .or_else(|| meta(ai as u32).machine.map(|m| (m.text, m.span)));
        let handle =
            named.and_then(|(m, at)| super::project::machine(module, stage, &m, at, diags));
        by_action.insert(ai, handle);
    }
    for &(n, _, at) in &extras.machines {
        if !lifted.actions.iter().any(|a| a.name == n) {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!("`{n}` is not an action of domain `{}`", domain.name()),
            )
            .at(at, "no such action");
            diags.push(suggest_note(
                d,
                n,
                lifted.actions.iter().map(|a| a.name.as_str()),
            ));
        }
    }
    let machines = own_actions
        .iter()
        .map(|&ai| by_action.get(&(ai as usize)).copied().flatten())
        .collect();
    let task = Task::new(
        full.facts.clone(),
        own,
        full.init.clone(),
        full.goal.clone(),
        full.goal_neg.clone(),
    )
    .expect("the same facts");
    // An actor only tells actions apart through the actions' own `actor` parameters.
    if let (Some((who, at)), Some(_)) = (extras.actor, actor)
        && !domain.meta.iter().any(|m| m.actor.is_some())
    {
        diags.push(
            Diagnostic::warning(
                Code::InvalidValue,
                format!(
                    "`{who}` plans with every action: no action of domain `{}` says which parameter performs it",
                    domain.name()
                ),
            )
            .at(at, "the actor changes nothing here")
            .note("give the domain's actions an `actor` (native domains), so that the agent plans only with its own"),
        );
    }
    if task.operators.is_empty() {
        diags.push(
            Diagnostic::warning(
                Code::UnexecutableRule,
                "no action of this problem is the agent's own: the agent cannot do anything",
            )
            .at(
                extras.actor.map_or(span, |a| a.1),
                "check the actor and the actions' `actor`",
            ),
        );
    }
    let planner = planner_of(&extras.settings, &task);
    let name = problem.name.clone().map_or(
        Name {
            text: String::new(),
            span,
        },
        |n| Name {
            text: n.text,
            span: n.span,
        },
    );
    Some(Problem {
        name,
        source,
        task,
        machines,
        external,
        planner,
        max_nodes: extras.settings.max_nodes,
        graph: None,
        span,
    })
}

/// The literal of a fact of `task` named in `naming`, or `None`.
pub fn find_fact(task: &Task, naming: Naming, lit: &EventLit) -> Option<Lit> {
    let args: Vec<&str> = lit.1.iter().map(String::as_str).collect();
    let name = naming.render(&lit.0, &args);
    task.fact_id(&name).map(|f| Lit {
        fact: f,
        positive: lit.2,
    })
}

/// `Open(player)` / `(open player)` as a name and arguments.
fn parse_call(text: &str, naming: Naming) -> Option<(String, Vec<String>)> {
    let t = text.trim();
    match naming {
        Naming::Pddl if t.starts_with('(') => {
            let inner = t.strip_prefix('(')?.strip_suffix(')')?;
            let mut words = inner.split_whitespace().map(|w| w.to_ascii_lowercase());
            Some((words.next()?, words.collect()))
        }
        Naming::Pddl => parse_call(&t.to_ascii_lowercase(), Naming::Native),
        Naming::Native => match t.split_once('(') {
            None if !t.is_empty() => Some((t.to_string(), Vec::new())),
            None => None,
            Some((name, rest)) => {
                let inner = rest.strip_suffix(')')?;
                let args = inner
                    .split(',')
                    .map(|a| a.trim().to_string())
                    .filter(|a| !a.is_empty())
                    .collect();
                Some((name.trim().to_string(), args))
            }
        },
    }
}

/// The operator of `ops` that `text` names (`Open(player)`, `(open player)`).
pub fn find_action<'o>(
    ops: &'o [Operator],
    naming: Naming,
    text: &str,
) -> Option<(usize, &'o Operator)> {
    let (name, args) = parse_call(text, naming)?;
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let name = naming.render(&name, &args);
    ops.iter().enumerate().find(|(_, o)| o.name == name)
}
