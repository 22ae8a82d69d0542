//! The planning stage of `compile()`: every planning asset of a project — action lists, native
//! STRIPS domains and problems, PDDL domains and problems — becomes a grounded, checked
//! `ir::plan::Problem`; world events of scenes are resolved against their problem; `Plan`
//! states are checked to name a problem; a machine that could run itself again through a
//! plan's actions is reported.
//!
//! Problems are named: an action list by its `name`, a native problem by its `name`, a PDDL
//! problem by `(define (problem NAME))`. A problem finds its domain by the domain's name (a
//! native `name`, or PDDL's `(define (domain NAME))`). Names are unique across the project.

use super::action_list::{ActionDomain, Value};
use super::assets::{
    ActionListAsset, DomainAsset, HeuristicAsset, PlannerAsset, ProblemAsset, SearchAsset,
};
use super::from_action_list::{self, EventValue};
use super::from_strips::{self, EventLit, Extras, StripsDomain};
use super::native;
use crate::diag::{Code, Diagnostic, Diagnostics, Severity, suggest_note};
use crate::front::pddl::{self, Naming, PddlFile};
use crate::front::ron::locate::Seg;
use crate::front::ron::{AssetKind, Locator, parse};
use crate::ir::plan::{EventSource, Problem, ProblemSource, WorldEvent};
use crate::ir::{Handle, Machine, Modifier, Module, Name, Scene};
use crate::source::{FileId, SourceMap, Span};
use ensemble_runtime::plan::section::{Planner, WorldChange};
use ensemble_runtime::plan::{Heuristic, Lit, Operator, Task};
use std::collections::{BTreeSet, HashMap};

/// The library state that plans (declared by the core's standard library).
pub use ensemble_runtime::stdlib::PLAN;
/// Default most nodes one planning call may visit.
pub const MAX_NODES: u64 = 100_000;

/// What the stage is run for.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Resolve the machines actions name (a project; `ensemble plan` has no machines).
    pub bind_machines: bool,
    /// `unreachable-goal` is an error in a project (the agent could never succeed) and a
    /// warning for `ensemble plan` (which proves the task unsolvable and exits 3).
    pub goal_severity: Severity,
    /// One file checked on its own: a problem whose domain is not there is checked alone
    /// (a warning), not an error.
    pub standalone: bool,
}

impl Options {
    pub const PROJECT: Options = Options {
        bind_machines: true,
        goal_severity: Severity::Error,
        standalone: false,
    };
    pub const PLAN_COMMAND: Options = Options {
        bind_machines: false,
        goal_severity: Severity::Warning,
        standalone: false,
    };
}

/// A problem's planner settings, checked.
#[derive(Clone, Debug)]
pub struct Settings {
    pub search: SearchAsset,
    pub heuristic: Heuristic,
    pub horizon: u32,
    pub depth_bound: Option<u32>,
    pub second_bound: bool,
    pub max_nodes: u64,
}

impl Settings {
    pub fn defaults(search: SearchAsset) -> Settings {
        Settings {
            search,
            heuristic: match search {
                SearchAsset::Gbfs => Heuristic::Ff,
                SearchAsset::MinMin => Heuristic::Add,
                _ => Heuristic::Max,
            },
            horizon: 3,
            depth_bound: None,
            second_bound: true,
            max_nodes: MAX_NODES,
        }
    }

    /// Reads `planner: (...)`; bad values are reported at their field.
    pub fn read(
        asset: &PlannerAsset,
        default: SearchAsset,
        loc: &Locator,
        diags: &mut Diagnostics,
    ) -> Settings {
        let mut s = Settings::defaults(asset.search.unwrap_or(default));
        let at = |f: &'static str| loc.span(&[Seg::Field("planner"), Seg::Field(f)]);
        if let Some(h) = asset.heuristic {
            s.heuristic = match h {
                HeuristicAsset::HMax => Heuristic::Max,
                HeuristicAsset::HAdd => Heuristic::Add,
                HeuristicAsset::HFf => Heuristic::Ff,
                HeuristicAsset::Blind => Heuristic::Blind,
            };
        }
        if let Some(h) = asset.horizon {
            if (1..=16).contains(&h) {
                s.horizon = h;
            } else {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("the MinMin horizon must be between 1 and 16, not {h}"),
                    )
                    .at(at("horizon"), "here"),
                );
            }
        }
        s.depth_bound = asset.depth_bound;
        if let Some(b) = asset.second_bound {
            s.second_bound = b;
        }
        match asset.max_nodes {
            Some(0) => diags.push(
                Diagnostic::error(Code::InvalidValue, "`max_nodes` must be at least 1")
                    .at(at("max_nodes"), "here"),
            ),
            Some(n) => s.max_nodes = n,
            None => {}
        }
        s
    }
}

/// The runtime planner the settings ask for.
pub fn planner_of(s: &Settings, _task: &Task) -> Planner {
    match s.search {
        SearchAsset::Graph => Planner::Graph,
        SearchAsset::AStar => Planner::AStar(s.heuristic),
        SearchAsset::Gbfs => Planner::Gbfs(s.heuristic),
        SearchAsset::MinMin => Planner::MinMin {
            horizon: s.horizon,
            depth_bound: s.depth_bound,
            second_bound: s.second_bound,
            heuristic: s.heuristic,
        },
        SearchAsset::Pop => Planner::Pop,
    }
}

/// A machine by name, or `unknown-reference` at `at` (nothing when machines are not bound).
pub fn machine(
    module: &Module,
    opts: Options,
    name: &str,
    at: Span,
    diags: &mut Diagnostics,
) -> Option<Handle<Machine>> {
    if !opts.bind_machines {
        return None;
    }
    let found = module.machine_by_name(name);
    if found.is_none() {
        let d = Diagnostic::error(
            Code::UnknownReference,
            format!("the machine `{name}` that performs this action is not defined"),
        )
        .at(at, "no such machine");
        let names = module.machines.iter().map(|(_, m)| m.name.text.as_str());
        diags.push(suggest_note(d, name, names));
    }
    found
}

enum Source {
    ActionList(ActionListAsset, Locator),
    Native(ProblemAsset, Locator),
    Pddl(pddl::ast::Problem),
}

struct Entry {
    name: String,
    name_span: Span,
    file: FileId,
    source: Source,
}

impl Entry {
    /// A native asset named by its `name` field.
    fn new(
        name: String,
        file: FileId,
        sources: &SourceMap,
        source: impl FnOnce(Locator) -> Source,
    ) -> Entry {
        let loc = Locator::new(sources, file);
        Entry {
            name,
            name_span: loc.span(&[Seg::Field("name")]),
            file,
            source: source(loc),
        }
    }

    /// The domain a STRIPS problem is for, and where it says so.
    fn domain(&self) -> Option<(&str, Span)> {
        match &self.source {
            Source::ActionList(..) => None,
            Source::Native(a, loc) => Some((a.domain.as_str(), loc.span(&[Seg::Field("domain")]))),
            Source::Pddl(p) => p.domain.as_ref().map(|d| (d.text.as_str(), d.span)),
        }
    }
}

/// The planning frontend and its checks on a project's files (`ensemble plan` runs them on its
/// files alone; a project build runs [`lower`] with the frontends and [`check`] with the checks).
pub fn compile_with(
    sources: &SourceMap,
    module: &mut Module,
    diags: &mut Diagnostics,
    opts: Options,
) {
    lower(sources, module, diags, opts);
    check(module, diags);
}

/// The planning frontend: parses action lists, native domains and problems and PDDL, grounds
/// each problem into the IR, resolves world events and the problem of every `Plan` state into
/// handles (see the module documentation).
pub fn lower(sources: &SourceMap, module: &mut Module, diags: &mut Diagnostics, opts: Options) {
    let mut domains: Vec<StripsDomain> = Vec::new();
    let mut entries: Vec<Entry> = Vec::new();
    for (id, file) in sources.iter() {
        match AssetKind::of(&file.name) {
            Some(AssetKind::ActionList) => {
                if let Some(a) = parse::<ActionListAsset>(sources, id, diags) {
                    let name = a.name.clone();
                    entries.push(Entry::new(name, id, sources, |l| Source::ActionList(a, l)));
                }
            }
            Some(AssetKind::Domain) => {
                if let Some(a) = parse::<DomainAsset>(sources, id, diags) {
                    let loc = Locator::new(sources, id);
                    let d = native::domain(&a, &loc, diags);
                    domains.push(StripsDomain::new(d.ast, d.meta, Naming::Native, diags));
                }
            }
            Some(AssetKind::Problem) => {
                if let Some(a) = parse::<ProblemAsset>(sources, id, diags) {
                    let name = a.name.clone();
                    entries.push(Entry::new(name, id, sources, |l| Source::Native(a, l)));
                }
            }
            Some(AssetKind::Pddl) => match pddl::read(sources, id, diags) {
                Some(PddlFile::Domain(d)) => {
                    domains.push(StripsDomain::new(d, Vec::new(), Naming::Pddl, diags))
                }
                Some(PddlFile::Problem(p)) => {
                    let Some(n) = p.name.clone() else { continue };
                    entries.push(Entry {
                        name: n.text,
                        name_span: n.span,
                        file: id,
                        source: Source::Pddl(p),
                    });
                }
                None => {}
            },
            _ => {}
        }
    }
    // Names are unique.
    let mut seen: HashMap<String, Span> = HashMap::new();
    for d in &domains {
        if let Some(n) = &d.ast.name
            && let Some(prev) = first_seen(&mut seen, format!("domain {}", n.text), n.span)
        {
            diags.push(defined_twice("domain", &n.text, n.span, prev));
        }
    }
    let mut unique = vec![true; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        if let Some(prev) = first_seen(&mut seen, format!("problem {}", e.name), e.name_span) {
            unique[i] = false;
            diags.push(defined_twice(
                "planning problem",
                &e.name,
                e.name_span,
                prev,
            ));
        }
    }
    // World events, by the problem they change.
    let mut events: Vec<Vec<(Handle<Scene>, EventSource)>> = vec![Vec::new(); entries.len()];
    let problem_names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    for (h, scene) in module.scenes.iter() {
        // Events are told apart by name (hot reload keeps what already happened by name).
        let mut names: HashMap<&str, Span> = HashMap::new();
        for ev in &scene.events {
            if let Some(prev) = first_seen(&mut names, ev.asset.name.as_str(), ev.span) {
                diags.push(defined_twice("world event", &ev.asset.name, ev.span, prev));
                continue;
            }
            match entries.iter().position(|e| e.name == ev.asset.problem) {
                Some(i) => events[i].push((h, ev.clone())),
                None => {
                    let d = Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "world event `{}` changes problem `{}`, which is not defined",
                            ev.asset.name, ev.asset.problem
                        ),
                    )
                    .at(ev.problem_span, "no such planning problem");
                    diags.push(suggest_note(
                        d,
                        &ev.asset.problem,
                        problem_names.iter().copied(),
                    ));
                }
            }
        }
    }
    // Lower every problem.
    let mut lowered: Vec<Option<Handle<Problem>>> = vec![None; entries.len()];
    let mut namings: Vec<Naming> = vec![Naming::Native; entries.len()];
    for (i, e) in entries.iter().enumerate() {
        if !unique[i] {
            continue;
        }
        let span = Span::file_start(e.file);
        let problem = match &e.source {
            Source::ActionList(asset, loc) => {
                let world = action_list_event_values(&events[i], diags);
                from_action_list::lower(asset, loc, span, module, opts, &world, diags)
            }
            Source::Native(_, _) | Source::Pddl(_) => {
                let (dname, dspan) = e.domain().unwrap_or(("", e.name_span));
                let Some(domain) = domains.iter().find(|d| d.name() == dname) else {
                    let d = if opts.standalone {
                        Diagnostic::warning(
                            Code::UnknownReference,
                            format!("problem `{}` was checked on its own: its domain `{dname}` is not beside it", e.name),
                        )
                        .at(dspan, "not found")
                        .note("put the domain in the same folder (a .pddl file, ideally domain.pddl, or a *.domain.ron that defines it), or check the whole project")
                    } else {
                        Diagnostic::error(
                            Code::UnknownReference,
                            format!("problem `{}` is for domain `{dname}`, which is not defined", e.name),
                        )
                        .at(dspan, "no such domain")
                        .note("domains are *.domain.ron files and PDDL files that `(define (domain NAME))`")
                    };
                    diags.push(suggest_note(d, dname, domains.iter().map(|d| d.name())));
                    continue;
                };
                if domain.broken {
                    continue;
                }
                namings[i] = domain.naming;
                lower_strips(e, domain, &events[i], span, module, opts, diags)
            }
        };
        if let Some(p) = problem {
            lowered[i] = Some(module.problems.append(p));
        }
    }
    let unlowered = entries.iter().zip(&lowered).filter(|(_, l)| l.is_none());
    module.unlowered_problems = unlowered.map(|(e, _)| e.name.clone()).collect();
    resolve_plan_states(module, &problem_names, diags);
    resolve_events(module, &entries, &events, &lowered, &namings, diags);
}

/// The planning checks, on the IR alone: a machine must not run itself again through a plan.
pub fn check(module: &Module, diags: &mut Diagnostics) {
    check_recursion(module, diags);
}

/// Records where `key` is defined, unless it was before: then returns where it was first
/// defined (every repeat points at the first definition, not at the previous repeat).
fn first_seen<K: std::hash::Hash + Eq>(
    seen: &mut HashMap<K, Span>,
    key: K,
    at: Span,
) -> Option<Span> {
    match seen.entry(key) {
        std::collections::hash_map::Entry::Occupied(first) => Some(*first.get()),
        std::collections::hash_map::Entry::Vacant(v) => {
            v.insert(at);
            None
        }
    }
}

fn defined_twice(what: &str, name: &str, at: Span, prev: Span) -> Diagnostic {
    Diagnostic::error(
        Code::DuplicateName,
        format!("{what} `{name}` is defined twice"),
    )
    .at(at, "defined again here")
    .related(prev, "first defined here")
}

/// `Var = value` assignments world events make on an action list (parsed; resolved later).
fn action_list_event_values(
    events: &[(Handle<Scene>, EventSource)],
    diags: &mut Diagnostics,
) -> Vec<EventValue> {
    let mut out = Vec::new();
    for (_, ev) in events {
        for (text, &at) in ev.asset.set.iter().zip(&ev.set_spans) {
            match from_action_list::assignment(text) {
                Some((var, value, true)) => out.push((var, value, at)),
                _ => diags.push(
                    Diagnostic::error(
                        Code::Syntax,
                        format!("`{text}` is not an assignment such as `Location = WrongGate`"),
                    )
                    .at(at, "here"),
                ),
            }
        }
    }
    out
}

fn lower_strips(
    e: &Entry,
    domain: &StripsDomain,
    events: &[(Handle<Scene>, EventSource)],
    span: Span,
    module: &Module,
    opts: Options,
    diags: &mut Diagnostics,
) -> Option<Problem> {
    let mut lits: Vec<EventLit> = Vec::new();
    let mut tested: Vec<EventLit> = Vec::new();
    // Mistakes in `when` are reported once, when the events are resolved.
    let mut quiet = Diagnostics::default();
    for (_, ev) in events {
        for (text, &at) in ev.asset.set.iter().zip(&ev.set_spans) {
            lits.extend(from_strips::parse_event_literals(
                text,
                domain.naming,
                at,
                diags,
            ));
        }
        for (text, &at) in ev.asset.when.iter().zip(&ev.when_spans) {
            tested.extend(from_strips::parse_event_literals(
                text,
                domain.naming,
                at,
                &mut quiet,
            ));
        }
    }
    let (ast, kind, extras) = match &e.source {
        Source::Native(asset, loc) => {
            let ast = native::problem(asset, loc, diags);
            let settings = Settings::read(&asset.planner, SearchAsset::AStar, loc, diags);
            if settings.search == SearchAsset::Graph {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        "`search: Graph` plans on an action list's planning graph; STRIPS problems use AStar, Gbfs, MinMin or Pop",
                    )
                    .at(loc.span(&[Seg::Field("planner"), Seg::Field("search")]), "here"),
                );
                return None;
            }
            let machines = asset
                .machines
                .iter()
                .map(|(a, m)| {
                    (
                        a.as_str(),
                        m.as_str(),
                        loc.span(&[Seg::Field("machines"), Seg::Field(a)]),
                    )
                })
                .collect();
            let extras = Extras {
                settings,
                actor: asset
                    .actor
                    .as_deref()
                    .map(|a| (a, loc.span(&[Seg::Field("actor")]))),
                machines,
            };
            (ast, ProblemSource::Native, extras)
        }
        Source::Pddl(ast) => {
            let extras = Extras {
                settings: Settings::defaults(SearchAsset::AStar),
                actor: None,
                machines: Vec::new(),
            };
            (ast.clone(), ProblemSource::Pddl, extras)
        }
        Source::ActionList(..) => return None,
    };
    from_strips::lower(
        domain, &ast, kind, &extras, &lits, &tested, span, module, opts, diags,
    )
}

/// The problems each machine can plan on, through the machines it hosts and the machines its
/// plans' actions run.
fn problems_of(module: &Module, root: Handle<Machine>) -> BTreeSet<Handle<Problem>> {
    let mut out = BTreeSet::new();
    let mut seen = BTreeSet::new();
    let mut stack = vec![root];
    while let Some(m) = stack.pop() {
        if !seen.insert(m) {
            continue;
        }
        for &s in &module.machines[m].states {
            let state = &module.states[s];
            match &state.modifier {
                Modifier::Machine(child) => stack.push(*child),
                _ => {
                    if let Some(&p) = module.plan_problems.get(&s) {
                        out.insert(p);
                        stack.extend(module.problems[p].machines.iter().flatten().copied());
                    }
                }
            }
        }
    }
    out
}

fn is_plan(module: &Module, s: Handle<crate::ir::State>) -> bool {
    module.states[s]
        .code
        .is_some_and(|c| module.library[c].standard && module.library[c].name == PLAN)
}

/// Turns each world event into facts of its problem.
fn resolve_events(
    module: &mut Module,
    entries: &[Entry],
    events: &[Vec<(Handle<Scene>, EventSource)>],
    lowered: &[Option<Handle<Problem>>],
    namings: &[Naming],
    diags: &mut Diagnostics,
) {
    let mut out = Vec::new();
    for (i, list) in events.iter().enumerate() {
        let Some(ph) = lowered[i] else { continue };
        let problem = &module.problems[ph];
        for (sh, ev) in list {
            let a = &ev.asset;
            let scene = &module.scenes[*sh];
            let agents: Vec<&crate::ir::SceneAgent> =
                scene.agents.iter().filter(|x| x.runs_machine()).collect();
            let agent = match &a.agent {
                Some(name) => match agents.iter().position(|x| x.name.text == *name) {
                    Some(k) => Some(k as u32),
                    None => {
                        let d = Diagnostic::error(
                            Code::UnknownReference,
                            format!("world event `{}` names agent `{name}`, which is not a machine-driven agent of scene `{}`", a.name, scene.name.text),
                        )
                        .at(ev.agent_span, "no such agent");
                        diags.push(suggest_note(
                            d,
                            name,
                            agents.iter().map(|x| x.name.text.as_str()),
                        ));
                        None
                    }
                },
                None => {
                    let planners: Vec<u32> = agents
                        .iter()
                        .enumerate()
                        .filter(|(_, x)| {
                            x.machine
                                .is_some_and(|m| problems_of(module, m).contains(&ph))
                        })
                        .map(|(k, _)| k as u32)
                        .collect();
                    match planners.as_slice() {
                        [k] => Some(*k),
                        _ => {
                            diags.push(
                                Diagnostic::error(
                                    Code::InvalidValue,
                                    format!(
                                        "world event `{}` needs `agent`: {} agents of scene `{}` plan on `{}`",
                                        a.name,
                                        planners.len(),
                                        scene.name.text,
                                        a.problem
                                    ),
                                )
                                .at(ev.span, "say whose world changes"),
                            );
                            None
                        }
                    }
                }
            };
            if !(a.at.is_finite() && a.at >= 0.0) {
                continue; // reported with the scene's other events (script/location.rs)
            }
            let task = &problem.task;
            let mut when = Vec::new();
            let mut change = Operator::new(a.name.clone());
            let mut perform: Option<u32> = None;
            let mut ok = true;
            if let Source::ActionList(asset, _) = &entries[i].source {
                let domain = ActionDomain {
                    variables: asset.variables.clone(),
                    actions: Vec::new(),
                };
                // `Var = value` as the action list names values; the fact, if the task has it.
                let fact = |var: &str, value: &Value, at: Span, diags: &mut Diagnostics| {
                    let (v, x) = from_action_list::resolve_value(&domain, var, value, at, diags)?;
                    let name = from_action_list::fact_name(&domain, v, x);
                    let found = task.fact_id(&name);
                    if found.is_none() {
                        // An integer value that no state of the planning graph has.
                        diags.push(unknown_fact(&name, at, task));
                    }
                    found
                };
                for (text, &at) in a.when.iter().zip(&ev.when_spans) {
                    match from_action_list::assignment(text) {
                        Some((var, value, eq)) => match fact(&var, &value, at, diags) {
                            Some(f) => when.push(Lit {
                                fact: f,
                                positive: eq,
                            }),
                            None => ok = false,
                        },
                        None => {
                            ok = false;
                            diags.push(
                                Diagnostic::error(
                                    Code::Syntax,
                                    format!(
                                        "`{text}` is not a condition such as `Location = Gate`"
                                    ),
                                )
                                .at(at, "here"),
                            );
                        }
                    }
                }
                for (text, &at) in a.set.iter().zip(&ev.set_spans) {
                    let Some((var, value, true)) = from_action_list::assignment(text) else {
                        ok = false; // reported while lowering the action list
                        continue;
                    };
                    // A wrong name or value was reported while lowering the action list.
                    match fact(&var, &value, at, &mut Diagnostics::default()) {
                        Some(f) => {
                            change.add.push(f);
                            let prefix = format!("{var}=");
                            change.del.extend((0..task.facts.len() as u32).filter(|&g| {
                                g != f && task.facts[g as usize].starts_with(&prefix)
                            }));
                        }
                        None => ok = false,
                    }
                }
                if a.perform.is_some() {
                    ok = false;
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            "an action list has no actions of others to `perform`; `set` the variables instead",
                        )
                        .at(ev.perform_span, "here"),
                    );
                }
            } else {
                let naming = namings[i];
                let mut local = Diagnostics::default();
                for (text, &at) in a.when.iter().zip(&ev.when_spans) {
                    for lit in from_strips::parse_event_literals(text, naming, at, diags) {
                        match from_strips::find_fact(task, naming, &lit) {
                            Some(l) => when.push(l),
                            None => {
                                ok = false;
                                diags.push(unknown_fact(text, at, task));
                            }
                        }
                    }
                }
                for (text, &at) in a.set.iter().zip(&ev.set_spans) {
                    for lit in from_strips::parse_event_literals(text, naming, at, &mut local) {
                        match from_strips::find_fact(task, naming, &lit) {
                            Some(l) if l.positive => change.add.push(l.fact),
                            Some(l) => change.del.push(l.fact),
                            None => ok = false, // reported while grounding
                        }
                    }
                }
                // Errors in `set` were reported while grounding.
                ok &= !local.has_errors();
                if let Some(text) = &a.perform {
                    if let Some((k, op)) = from_strips::find_action(&problem.external, naming, text)
                    {
                        when.extend(op.preconditions());
                        perform = Some(k as u32);
                    } else if let Some((_, op)) =
                        from_strips::find_action(&task.operators, naming, text)
                    {
                        // One of the agent's own kinds of action, done by someone else.
                        when.extend(op.preconditions());
                        change = op.clone();
                    } else {
                        ok = false;
                        let names = problem
                            .external
                            .iter()
                            .chain(&task.operators)
                            .map(|o| o.name.as_str());
                        let d = Diagnostic::error(
                            Code::UnknownReference,
                            format!("`{text}` is not an action of problem `{}`", a.problem),
                        )
                        .at(ev.perform_span, "no such action");
                        diags.push(suggest_note(d, text, names));
                    }
                }
            }
            let shape = match (a.set.is_empty(), a.perform.is_some()) {
                (true, false) => Some(("changes nothing", ev.span, "give it `set` or `perform`")),
                (false, true) => Some((
                    "has both `set` and `perform`",
                    ev.perform_span,
                    "one or the other",
                )),
                _ => None,
            };
            if let Some((what, at, label)) = shape {
                ok = false;
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("world event `{}` {what}", a.name),
                    )
                    .at(at, label),
                );
            }
            let (Some(agent), true) = (agent, ok) else {
                continue;
            };
            let change = match perform {
                Some(k) => WorldChange::Perform(k),
                None => WorldChange::Set(change),
            };
            out.push(WorldEvent {
                name: Name {
                    text: a.name.clone(),
                    span: ev.span,
                },
                scene: *sh,
                problem: ph,
                agent,
                after: a.at,
                when,
                change,
                seen: a.seen,
            });
        }
    }
    for e in out {
        module.world_events.append(e);
    }
}

fn unknown_fact(text: &str, at: Span, task: &Task) -> Diagnostic {
    let d = Diagnostic::error(
        Code::UnknownReference,
        format!("`{text}` is not a fact of the problem"),
    )
    .at(at, "no such fact");
    suggest_note(d, text, task.facts.iter().map(String::as_str))
}

/// Every `Plan` state names a problem the project defines (`names`: lowered or not — a
/// problem with errors has its own diagnostics, and is not also undefined).
/// Resolves the problem each `Plan` state names (`unknown-reference` at its modifier when no
/// problem has that name; a problem that is named but did not lower was reported already).
fn resolve_plan_states(module: &mut Module, names: &[&str], diags: &mut Diagnostics) {
    let mut resolved = Vec::new();
    for (h, state) in module.states.iter() {
        if !is_plan(module, h) {
            continue;
        }
        let Modifier::Text(t) = &state.modifier else {
            continue;
        };
        if let Some((p, _)) = module.problems.iter().find(|(_, p)| p.name.text == *t) {
            resolved.push((h, p));
        } else if !names.contains(&t.as_str()) {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "Plan state `{}` plans for `{t}`, which is not a planning problem",
                    state.name.text
                ),
            )
            .at(
                state.modifier_span.unwrap_or(state.name.span),
                "no such problem",
            )
            .note(
                "planning problems are *.actionlist.ron and *.problem.ron files and PDDL problems",
            );
            diags.push(suggest_note(d, t, names.iter().copied()));
        }
    }
    module.plan_problems.extend(resolved);
}

/// A machine must not run itself again through the actions of a plan it makes (statically
/// hosted cycles are reported by `valid`).
fn check_recursion(module: &Module, diags: &mut Diagnostics) {
    // Edges: machine -> machines it can run, static children and plan actions alike.
    let runs = |m: Handle<Machine>| -> Vec<Handle<Machine>> {
        let mut out = Vec::new();
        for &s in &module.machines[m].states {
            if let Modifier::Machine(c) = &module.states[s].modifier {
                out.push(*c);
            }
            if let Some(&p) = module.plan_problems.get(&s) {
                out.extend(module.problems[p].machines.iter().flatten().copied());
            }
        }
        out
    };
    for (mh, machine) in module.machines.iter() {
        for &s in &machine.states {
            let state = &module.states[s];
            let Some(&ph) = module.plan_problems.get(&s) else {
                continue;
            };
            let p = &module.problems[ph];
            let t = &p.name.text;
            let mut seen = BTreeSet::new();
            let mut stack: Vec<Handle<Machine>> = p.machines.iter().flatten().copied().collect();
            while let Some(m) = stack.pop() {
                if m == mh {
                    diags.push(
                        Diagnostic::error(
                            Code::RecursiveMachine,
                            format!(
                                "machine `{}` can run itself again: its Plan state `{}` runs the machines of `{t}`'s actions, which lead back to it",
                                machine.name.text, state.name.text
                            ),
                        )
                        .at(state.modifier_span.unwrap_or(state.name.span), "plans here"),
                    );
                    break;
                }
                if seen.insert(m) {
                    stack.extend(runs(m));
                }
            }
        }
    }
}
