use super::*;
use crate::diag::{Code, Diagnostics};
use crate::source::SourceMap;

const DOMAIN: &str = "(define (domain d)
  (:requirements :strips :typing :negative-preconditions :equality)
  (:types block - thing thing)
  (:constants table - thing)
  (:predicates (on ?x - block ?y - thing) (clear ?x - thing) (holding ?x - block) (handempty))
  (:action pick
    :parameters (?x - block ?y - thing)
    :precondition (and (on ?x ?y) (clear ?x) (handempty) (not (= ?x ?y)))
    :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty))))
  (:action put
    :parameters (?x - block ?y - thing)
    :precondition (and (holding ?x) (clear ?y) (not (holding ?y)))
    :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y)))))";

const PROBLEM: &str = "(define (problem p) (:domain d)
  (:objects a b - block)
  (:init (on a table) (on b a) (clear b) (clear table) (handempty))
  (:goal (and (on a b) (not (holding b)))))";

fn run(domain: &str, problem: &str) -> (Option<Grounded>, Diagnostics, SourceMap) {
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let g = ground_texts(
        &mut sources,
        ("domain.pddl", domain),
        ("problem.pddl", problem),
        &mut diags,
    );
    (g, diags, sources)
}

fn codes(d: &Diagnostics) -> Vec<&'static str> {
    d.iter().map(|x| x.code.as_str()).collect()
}

#[test]
fn grounds_a_typed_domain_with_constants_equality_and_negation() {
    let (g, d, _) = run(DOMAIN, PROBLEM);
    assert!(!d.has_errors(), "{:?}", codes(&d));
    let g = g.unwrap();
    let t = &g.task;
    assert!(t.op_id("(pick b a)").is_some());
    assert!(t.op_id("(pick a a)").is_none(), "equality pruned");
    let put = t.op(t.op_id("(put a b)").unwrap());
    assert_eq!(put.pre_neg.len(), 1);
    assert_eq!(t.goal_neg.len(), 1);
    let r = ensemble_runtime::plan::search::astar(
        t,
        ensemble_runtime::plan::Heuristic::Max,
        Default::default(),
    );
    let plan = r.plan().unwrap();
    assert_eq!(
        t.plan_names(plan),
        ["(pick b a)", "(put b table)", "(pick a table)", "(put a b)"]
    );
}

fn first_line(d: &Diagnostics, s: &SourceMap, code: Code) -> (usize, String) {
    let x = d
        .iter()
        .find(|x| x.code == code)
        .unwrap_or_else(|| panic!("no {code:?}"));
    let p = x.primary.as_ref().expect("located");
    (s.line_col(p.span).0, x.message.clone())
}

#[test]
fn refuses_unsupported_features_naming_construct_and_line() {
    let dom = "(define (domain d)\n(:requirements :strips :action-costs)\n(:predicates (p) (q))\n(:functions (total-cost))\n(:action a :parameters ()\n :precondition (or (p) (q))\n :effect (and (when (p) (q)) (increase (total-cost) 1))))";
    let (g, d, s) = run(
        dom,
        "(define (problem x) (:domain d) (:init) (:goal (p)) (:metric minimize (total-cost)))",
    );
    assert!(g.is_none());
    let msgs: Vec<(usize, String)> = d
        .iter()
        .filter(|x| x.code == Code::UnsupportedFeature)
        .map(|x| {
            (
                s.line_col(x.primary.as_ref().unwrap().span).0,
                x.message.clone(),
            )
        })
        .collect();
    let has = |line: usize, word: &str| msgs.iter().any(|(l, m)| *l == line && m.contains(word));
    assert!(has(2, ":action-costs"), "{msgs:?}");
    assert!(has(4, ":functions"), "{msgs:?}");
    assert!(has(6, "`or`"), "{msgs:?}");
    assert!(has(7, "`when`"), "{msgs:?}");
    assert!(has(7, "total-cost"), "{msgs:?}");
    assert!(has(1, ":metric"), "{msgs:?}");
}

#[test]
fn adl_declared_by_a_strips_domain_is_a_warning_and_it_plans() {
    let dom = "(define (domain d) (:requirements :adl :typing)\n(:predicates (p) (q))\n(:action a :parameters () :precondition (p) :effect (q)))";
    let (g, d, s) = run(
        dom,
        "(define (problem x) (:domain d) (:init (p)) (:goal (q)))",
    );
    assert!(g.is_some(), "{:?}", codes(&d));
    assert!(!d.has_errors());
    let (line, msg) = first_line(&d, &s, Code::UnsupportedFeature);
    assert_eq!(line, 1);
    assert!(msg.contains("`:adl`"), "{msg}");
    // Used, an ADL construct is still refused where it is written.
    let dom = "(define (domain d) (:requirements :adl)\n(:predicates (p) (q))\n(:action a :parameters ()\n :precondition (or (p) (q)) :effect (q)))";
    let (g, d, s) = run(
        dom,
        "(define (problem x) (:domain d) (:init (p)) (:goal (q)))",
    );
    assert!(g.is_none());
    assert!(d.has_errors());
    assert!(
        d.iter()
            .any(|x| x.message.contains("`or`")
                && s.line_col(x.primary.as_ref().unwrap().span).0 == 4)
    );
}

#[test]
fn an_either_type_is_one_error_without_follow_up_arity_errors() {
    let dom = "(define (domain d) (:requirements :typing) (:types a b)\n(:predicates (at ?x - (either a b) ?y - a))\n(:action go :parameters (?x - (either a b) ?y - a)\n :precondition (at ?x ?y) :effect (not (at ?x ?y))))";
    let (g, d, s) = run(
        dom,
        "(define (problem x) (:domain d) (:objects o - a) (:init (at o o)) (:goal (not (at o o))))",
    );
    assert!(g.is_none());
    let errors: Vec<&str> = d
        .iter()
        .filter(|x| x.severity == crate::diag::Severity::Error)
        .map(|x| x.code.as_str())
        .collect();
    assert_eq!(
        errors,
        ["unsupported-feature", "unsupported-feature"],
        "{errors:?}"
    );
    assert_eq!(first_line(&d, &s, Code::UnsupportedFeature).0, 2);
}

#[test]
fn bad_input_gets_located_diagnostics() {
    // Unknown predicate, arity mismatch, undeclared type, unbound variable, unknown object.
    let dom = "(define (domain d) (:requirements :typing) (:types t)\n(:predicates (p ?x - t) (q))\n(:action a :parameters (?x - t ?y - u)\n :precondition (and (p ?x ?x) (r))\n :effect (p ?z)))";
    let (g, d, s) = run(
        dom,
        "(define (problem x) (:domain d) (:objects o - t) (:init (p o2)) (:goal (q)))",
    );
    assert!(g.is_none());
    let c = codes(&d);
    for want in [
        "unknown-reference",
        "arity-mismatch",
        "uninstantiated-variable",
    ] {
        assert!(c.contains(&want), "{c:?}");
    }
    assert_eq!(first_line(&d, &s, Code::ArityMismatch).0, 4);
    let (line, msg) = first_line(&d, &s, Code::UninstantiatedVariable);
    assert_eq!(line, 5);
    assert!(msg.contains("?z"));
    assert!(d.iter().any(|x| x.message.contains("undeclared type `u`")));
    assert!(
        d.iter()
            .any(|x| x.message.contains("unknown predicate `r`"))
    );
    assert!(
        d.iter()
            .any(|x| x.message.contains("unknown object or constant `o2`"))
    );
}

#[test]
fn malformed_text_never_panics() {
    for text in [
        "",
        "(",
        ")",
        "(define",
        "(define (domain))",
        "(define (domain d) (:action))",
        "(define (domain d) (:action a :parameters))",
        "(define (domain d) (:predicates (p ?x -)))",
        "(define (domain d) (:types - ))",
        "((((",
        "(define (problem p) (:domain d))",
        "ü(é",
    ] {
        let (g, d, _) = run(text, text);
        assert!(g.is_none() || !d.has_errors(), "{text}");
        assert!(d.has_errors(), "{text:?} gave no error");
    }
}

#[test]
fn unreachable_goal_and_never_produced_are_reported() {
    let dom = "(define (domain d) (:predicates (p) (q) (w))\n(:action a :parameters () :precondition (w) :effect (q)))";
    let (g, d, _) = run(
        dom,
        "(define (problem x) (:domain d) (:init (p)) (:goal (q)))",
    );
    let g = g.unwrap();
    assert!(!d.has_errors());
    assert_eq!(g.unreachable_goals.len(), 1);
    let c = codes(&d);
    assert!(
        c.contains(&"unreachable-goal")
            && c.contains(&"never-produced")
            && c.contains(&"unexecutable-rule"),
        "{c:?}"
    );
}

#[test]
fn fixtures_from_the_ipc_tasks_parse() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/ipc");
    let mut domains = 0;
    for e in std::fs::read_dir(&root).unwrap().flatten() {
        let dir = e.path();
        if !dir.is_dir() {
            continue;
        }
        domains += 1;
        let mut sources = SourceMap::default();
        let mut diags = Diagnostics::default();
        let g = ground_files(
            &mut sources,
            &dir.join("domain.pddl"),
            &dir.join("task01.pddl"),
            &mut diags,
        )
        .unwrap();
        assert!(
            g.is_some() || diags.iter().any(|x| x.code == Code::UnsupportedFeature),
            "{}: {}",
            dir.display(),
            diags.render(&sources, false)
        );
    }
    assert_eq!(domains, 8, "the eight IPC domains in {}", root.display());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    /// Cutting and splicing real PDDL never panics the reader or the grounder.
    #[test]
    fn mutated_pddl_never_panics(
        cut in 0usize..DOMAIN.len(),
        at in 0usize..PROBLEM.len(),
        junk in "[()?: ;a-z=\\-\n]{0,8}",
    ) {
        let mut d = DOMAIN.to_string();
        let mut c = cut;
        while !d.is_char_boundary(c) { c -= 1; }
        d.insert_str(c, &junk);
        let mut p = PROBLEM.to_string();
        p.truncate(at);
        let _ = run(&d, PROBLEM);
        let _ = run(DOMAIN, &p);
        let _ = run(&d[..c], &p);
    }
}

#[test]
fn an_unclosed_bracket_is_the_only_error() {
    // The last `)` of the domain is missing: one error at the `(` that is never closed, not a
    // follow-up "empty file" as if nothing had been written.
    let unclosed = &DOMAIN[..DOMAIN.len() - 1];
    let (g, d, s) = run(unclosed, PROBLEM);
    assert!(g.is_none());
    assert_eq!(
        codes(&d),
        ["syntax"],
        "{:?}",
        d.iter().map(|x| &x.message).collect::<Vec<_>>()
    );
    let (line, msg) = first_line(&d, &s, Code::Syntax);
    assert_eq!((line, msg.as_str()), (1, "unclosed `(`"));

    let mut sources = SourceMap::default();
    let file = sources.add(crate::source::SourceFile::new(
        "d.pddl".into(),
        "d.pddl".into(),
        unclosed.to_string(),
    ));
    let mut diags = Diagnostics::default();
    assert!(read(&sources, file, &mut diags).is_none());
    assert_eq!(codes(&diags), ["syntax"]);
}

/// Issue 23: a goal nested 30,000 `(and` deep is one located error, not a stack overflow.
#[test]
fn a_deeply_nested_goal_is_a_located_limit_error() {
    let depth = 30_000;
    let goal = "(and ".repeat(depth) + "(p)" + &")".repeat(depth);
    let problem = format!("(define (problem x) (:domain d) (:init) (:goal {goal}))");
    let domain = "(define (domain d) (:predicates (p)) (:action a :parameters () :precondition () :effect (p)))";
    let (g, d, s) = run(domain, &problem);
    assert!(g.is_none());
    let (line, message) = first_line(&d, &s, Code::LimitExceeded);
    assert_eq!(line, 1);
    assert!(message.contains("nest more than"), "{message}");
}

/// Issue 23: a precondition of 200,000 literals is refused at the precondition (grounding
/// would recurse once per literal).
#[test]
fn a_huge_precondition_is_a_located_limit_error() {
    let literals = "(p) ".repeat(200_000);
    let domain = format!(
        "(define (domain d) (:predicates (p))\n(:action a :parameters ()\n :precondition (and {literals}) :effect (p)))"
    );
    let (g, d, s) = run(
        &domain,
        "(define (problem x) (:domain d) (:init (p)) (:goal (p)))",
    );
    assert!(g.is_none());
    let (line, message) = first_line(&d, &s, Code::LimitExceeded);
    assert_eq!(line, 3);
    assert!(
        message.contains("200000 precondition literals"),
        "{message}"
    );
}

/// Issue 23: a second `:precondition` is an error naming both, not silently merged.
#[test]
fn a_repeated_precondition_key_is_an_error() {
    let domain = "(define (domain d) (:predicates (p) (q))\n(:action a :parameters ()\n :precondition (p)\n :precondition (q) :effect (p)))";
    let (g, d, s) = run(
        domain,
        "(define (problem x) (:domain d) (:init (p)) (:goal (p)))",
    );
    assert!(g.is_none());
    let x = d
        .iter()
        .find(|x| x.message.contains("twice"))
        .expect("reported");
    assert_eq!(x.code, Code::Syntax);
    assert_eq!(s.line_col(x.primary.as_ref().unwrap().span).0, 4);
    assert_eq!(s.line_col(x.related[0].span).0, 3);
}

/// Grounds a domain whose grounding explodes: `n` objects and a three-parameter action with no
/// precondition give n^3 ground actions.
fn ground_exploding(n: usize, opts: &GroundOptions) -> (Option<Grounded>, Diagnostics, SourceMap) {
    let domain = "(define (domain d) (:predicates (p ?a ?b ?c))\n(:action a :parameters (?a ?b ?c) :precondition () :effect (p ?a ?b ?c)))";
    let objects: String = (0..n).map(|i| format!("o{i} ")).collect();
    let problem = format!(
        "(define (problem x) (:domain d) (:objects {objects}) (:init) (:goal (p o0 o0 o0)))"
    );
    let mut sources = SourceMap::default();
    let mut diags = Diagnostics::default();
    let g = ground_texts_with(
        &mut sources,
        ("d.pddl", domain),
        ("p.pddl", &problem),
        opts,
        &mut diags,
    );
    (g, diags, sources)
}

/// Issue 23: grounding past the ground-action limit stops with a clear, located error.
#[test]
fn grounding_stops_at_the_ground_action_limit() {
    let opts = GroundOptions {
        max_operators: 10_000,
        ..Default::default()
    };
    let (g, diags, sources) = ground_exploding(100, &opts);
    assert!(diags.has_errors());
    let (line, message) = first_line(&diags, &sources, Code::LimitExceeded);
    assert_eq!(line, 2);
    assert!(
        message.contains("more than 10000 ground actions"),
        "{message}"
    );
    // Nothing of the stopped grounding is built into a task.
    assert!(g.is_some_and(|g| g.task.operators.is_empty()));
}

/// Issue 21: grounding honours a memory limit, naming it and what it reached.
#[test]
fn grounding_stops_at_its_memory_limit() {
    let opts = GroundOptions {
        max_bytes: Some(1 << 20),
        max_operators: usize::MAX,
        ..Default::default()
    };
    let (g, diags, sources) = ground_exploding(200, &opts);
    let (line, message) = first_line(&diags, &sources, Code::LimitExceeded);
    assert_eq!(line, 2);
    assert!(
        message.contains("memory limit of 1.0 MiB (at action `a`)"),
        "{message}"
    );
    // What was reached: some ground actions, far fewer than the 8 million of the task.
    let reached: usize = message
        .split(": ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the count of ground actions reached");
    assert!((1000..20_000).contains(&reached), "{message}");
    assert!(g.is_some_and(|g| g.task.operators.is_empty()));
    // The same domain with 3 objects (27 ground actions) fits.
    let (g, diags, _) = ground_exploding(3, &opts);
    assert!(!diags.has_errors());
    assert_eq!(
        g.expect("grounded").stats.operators,
        1,
        "relevance keeps the goal's achiever"
    );
}

/// Issue 23: grounding honours a deadline (100,000 objects would otherwise never finish).
#[test]
fn grounding_stops_at_its_deadline() {
    let opts = GroundOptions {
        deadline: Some(std::time::Instant::now() + std::time::Duration::from_millis(200)),
        max_operators: usize::MAX,
        ..Default::default()
    };
    let (_, diags, sources) = ground_exploding(100_000, &opts);
    let (_, message) = first_line(&diags, &sources, Code::LimitExceeded);
    assert!(message.contains("time limit"), "{message}");
}

/// Issue 21: an operator that adds only what it requires changes no state (a satellite turning
/// to where it already points) and is not kept, as Fast Downward's translator drops it; the
/// real turns stay.
#[test]
fn an_operator_that_changes_nothing_is_dropped() {
    let domain = "(define (domain sat) (:requirements :strips)
      (:predicates (pointing ?d) (direction ?d))
      (:action turn :parameters (?to ?from)
        :precondition (and (pointing ?from) (direction ?to))
        :effect (and (pointing ?to) (not (pointing ?from)))))";
    let problem = "(define (problem p) (:domain sat) (:objects x y)
      (:init (pointing x) (direction x) (direction y))
      (:goal (pointing y)))";
    let (g, d, _) = run(domain, problem);
    assert!(!d.has_errors(), "{:?}", codes(&d));
    let t = &g.unwrap().task;
    let mut names: Vec<&str> = t.operators.iter().map(|o| o.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["(turn x y)", "(turn y x)"]);
}
