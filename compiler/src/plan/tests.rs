use super::action_list::*;
use super::check::check;
use super::fixtures::{FIG_2_3, airport, airport_wrong_gate_seed};
use super::graph::PlanningGraph;
use crate::diag::Code;
use ensemble_runtime::plan::{Heuristic, search, validate};

#[test]
fn airport_planning_graph_gives_the_nine_step_plan_of_fig_2_3() {
    let (d, p) = airport();
    let c = d.compile().unwrap();
    let seed = d.state(&p.seeds[0]).unwrap();
    let goal = d.goal(&p.goal).unwrap();
    let g = PlanningGraph::build(&c, std::slice::from_ref(&seed), 10_000).unwrap();
    let start = g.find(&seed).unwrap();
    let plan = g.plan(start, |s| satisfies(s, &goal)).unwrap();
    let names: Vec<&str> = plan
        .iter()
        .map(|&a| c.actions[a as usize].name.as_str())
        .collect();
    assert_eq!(names, FIG_2_3);
}

#[test]
fn airport_as_strips_gives_an_optimal_nine_step_plan() {
    let (d, p) = airport();
    let c = d.compile().unwrap();
    let seed = d.state(&p.seeds[0]).unwrap();
    let t = c.to_task(&seed, &d.goal(&p.goal).unwrap()).unwrap();
    let r = search::astar(&t, Heuristic::Max, Default::default());
    let plan = r.plan().unwrap();
    assert_eq!(plan.len(), 9);
    validate(&t, &t.initial_state(), plan).unwrap();
    let names: Vec<&str> = FIG_2_3.to_vec();
    validate::validate_names(&t, &t.initial_state(), &names).unwrap();
}

#[test]
fn at_wrong_gate_is_never_produced_and_replanning_needs_a_second_seed() {
    let (d, p) = airport();
    let c = d.compile().unwrap();
    let seed = d.state(&p.seeds[0]).unwrap();
    let goal = d.goal(&p.goal).unwrap();
    let diags = check(&c, std::slice::from_ref(&seed), &goal, &[]);
    let never: Vec<_> = diags
        .iter()
        .filter(|(x, _)| x.code == Code::NeverProduced)
        .collect();
    assert_eq!(never.len(), 1);
    assert!(never[0].0.message.contains("Location=WrongGate"));
    let unexec: Vec<_> = diags
        .iter()
        .filter(|(x, _)| x.code == Code::UnexecutableRule)
        .map(|(_, a)| a.clone().unwrap())
        .collect();
    assert_eq!(unexec, ["Check_Gate", "Go_To_Correct_Gate"]);
    // The graph built from the normal seed has no wrong-gate node to replan from...
    let wrong = d.state(&airport_wrong_gate_seed()).unwrap();
    let g = PlanningGraph::build(&c, std::slice::from_ref(&seed), 10_000).unwrap();
    assert!(g.find(&wrong).is_none());
    // ...with it as a second seed, one shared graph serves both starts.
    let g = PlanningGraph::build(&c, &[seed.clone(), wrong.clone()], 10_000).unwrap();
    let plan = g
        .plan(g.find(&wrong).unwrap(), |s| satisfies(s, &goal))
        .unwrap();
    let names: Vec<&str> = plan
        .iter()
        .map(|&a| c.actions[a as usize].name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Check_Gate",
            "Go_To_Correct_Gate",
            "Wait_At_Gate",
            "Get_On_Plane"
        ]
    );
    assert!(
        g.plan(g.find(&seed).unwrap(), |s| satisfies(s, &goal))
            .is_some()
    );
}

#[test]
fn polarity_example_blames_the_unbounded_variable_not_the_busiest_action() {
    // §2.5: an (X, Y) grid plus a polarity flag; only X is unbounded (Travel_North).
    let d = ActionDomain {
        variables: vec![
            Variable {
                name: "X".into(),
                values: None,
            },
            Variable {
                name: "Y".into(),
                values: None,
            },
            Variable {
                name: "Polarity".into(),
                values: Some(vec!["minus".into(), "plus".into()]),
            },
        ],
        actions: vec![
            Action {
                name: "Switch_Polarity_Up".into(),
                constraints: vec![Condition::Eq(
                    "Polarity".into(),
                    Value::Name("minus".into()),
                )],
                effects: vec![Effect::Set("Polarity".into(), Value::Name("plus".into()))],
                machine: None,
            },
            Action {
                name: "Switch_Polarity_Down".into(),
                constraints: vec![Condition::Eq("Polarity".into(), Value::Name("plus".into()))],
                effects: vec![Effect::Set("Polarity".into(), Value::Name("minus".into()))],
                machine: None,
            },
            Action {
                name: "Travel_North".into(),
                constraints: vec![],
                effects: vec![Effect::Add("X".into(), 1)],
                machine: None,
            },
            Action {
                name: "Travel_East".into(),
                constraints: vec![Condition::Ne("Y".into(), Value::Int(3))],
                effects: vec![Effect::Add("Y".into(), 1)],
                machine: None,
            },
        ],
    };
    let c = d.compile().unwrap();
    let err = PlanningGraph::build(&c, &[vec![0, 0, 0]], 500).unwrap_err();
    assert_eq!(err.unbounded, ["X"]);
    assert_eq!(err.causes[0].1[0].0, "Travel_North");
    // The per-action counts alone do not tell: switching is expanded as often as travelling.
    let count = |n: &str| err.expansions.iter().find(|(a, _)| a == n).unwrap().1;
    let switch = count("Switch_Polarity_Up") + count("Switch_Polarity_Down");
    assert!(switch >= count("Travel_North"), "{:?}", err.expansions);
    let text = super::check::explosion(&err).message;
    assert!(
        text.contains("`X` is unbounded") && text.contains("Travel_North"),
        "{text}"
    );
}

#[test]
fn mutually_exclusive_goals_and_bad_names_are_reported() {
    let (d, _) = airport();
    let c = d.compile().unwrap();
    let seed = vec![0, 3, 0, 0, 0];
    let goal = d
        .goal(&[
            Condition::Eq("Location".into(), Value::Name("Gate".into())),
            Condition::Eq("Location".into(), Value::Name("Security".into())),
        ])
        .unwrap();
    let diags = check(&c, &[seed], &goal, &[]);
    assert!(
        diags
            .iter()
            .any(|(x, _)| x.code == Code::UnreachableGoal
                && x.message.contains("mutually exclusive"))
    );
    let mut bad = d.clone();
    bad.actions[0]
        .constraints
        .push(Condition::Eq("Nope".into(), Value::Int(1)));
    bad.actions[1]
        .effects
        .push(Effect::Set("Location".into(), Value::Name("Moon".into())));
    let errs = bad.compile().unwrap_err();
    assert_eq!(errs.len(), 2);
    assert!(errs[0].message.contains("unknown variable `Nope`"));
    assert!(
        errs[1]
            .message
            .contains("`Moon` is not a value of `Location`")
    );
}

#[test]
fn action_lists_round_trip_through_ron() {
    let (d, p) = airport();
    let text = ron::ser::to_string_pretty(&d, Default::default()).unwrap();
    let back: ActionDomain = ron::from_str(&text).unwrap();
    assert_eq!(back, d);
    let text = ron::ser::to_string_pretty(&p, Default::default()).unwrap();
    let back: ActionProblem = ron::from_str(&text).unwrap();
    assert_eq!(back, p);
}

/// Runs the planning stage on in-memory files, as `ensemble plan` does.
fn stage(files: &[(&str, &str)]) -> (crate::ir::Module, crate::diag::Diagnostics) {
    let mut sources = crate::source::SourceMap::default();
    for (name, text) in files {
        sources.add(crate::source::SourceFile::new(
            name.to_string(),
            name.into(),
            text.to_string(),
        ));
    }
    let mut module = crate::ir::Module::default();
    let mut diags = crate::diag::Diagnostics::default();
    super::project::compile_with(
        &sources,
        &mut module,
        &mut diags,
        super::project::Options::PLAN_COMMAND,
    );
    (module, diags)
}

/// A walker with an integer position; `step` and `run` add constraints to Step and Run, `extra`
/// adds fields.
fn walk(step: &str, run: &str, extra: &str) -> String {
    format!(
        r#"ActionList(
            name: "Walk",
            variables: [(name: "X"), (name: "Tired", values: ["no", "yes"])],
            actions: [
                (name: "Step", constraints: [Eq("Tired", "no"){step}], effects: [Add("X", 1)]),
                (name: "Rest", effects: [Set("Tired", "no")]),
                (name: "Run", constraints: [{run}], effects: [Add("X", 2), Set("Tired", "yes")]),
            ],
            seeds: [[("X", 0)]],
            goal: [Eq("X", 3)],
            {extra}
        )"#
    )
}

#[test]
fn integer_variables_become_one_fact_per_reached_value() {
    let (m, d) = stage(&[("walk.actionlist.ron", &walk("", "", "state_limit: 100,"))]);
    // X keeps growing: the graph stops at the limit with the explosion report.
    assert!(
        d.iter().any(|x| x.code == Code::StateLimitExceeded),
        "{d:?}"
    );
    assert!(m.problems.is_empty());
    let bounded = walk(r#", Ne("X", 3)"#, r#"Eq("X", 0)"#, "");
    let (m, d) = stage(&[("walk.actionlist.ron", &bounded)]);
    assert!(!d.has_errors(), "{d:?}");
    let p = &m.problems.iter().next().unwrap().1;
    let t = &p.task;
    let xs: Vec<&String> = t.facts.iter().filter(|f| f.starts_with("X=")).collect();
    assert_eq!(xs, ["X=0", "X=1", "X=2", "X=3"]);
    // Step is one operator per starting value it can leave the known values from.
    assert_eq!(t.operators.iter().filter(|o| o.name == "Step").count(), 3);
    let graph = p.graph.as_ref().expect("search: Graph by default");
    graph.verify(t).unwrap();
    let (plan, _) = graph.plan(t, &t.initial_state(), &[]).unwrap();
    let plan = plan.unwrap();
    // Three steps either way: Step, Step, Step, or Run, Rest, Step.
    assert_eq!(plan.len(), 3, "{:?}", t.plan_names(&plan));
    validate::validate(t, &t.initial_state(), &plan).unwrap();
    // Planning on the task and on the graph agree.
    let r = search::astar(t, Heuristic::Max, Default::default());
    assert_eq!(r.plan().unwrap().len(), 3);
}

#[test]
fn a_native_domain_and_a_pddl_domain_ground_to_the_same_task() {
    let pddl = include_str!("../../tests/data/plan/dinner-date-domain.pddl");
    let native = r#"Domain(
        name: "dinner-date",
        predicates: ["garbage", "clean-hands", "quiet", "dinner", "present", "garb-out"],
        actions: [
            (name: "cook", pre: ["clean-hands"], add: ["dinner"]),
            (name: "wrap", pre: ["quiet"], add: ["present"]),
            (name: "carry", add: ["garb-out"], del: ["garbage", "clean-hands"]),
            (name: "dolly", add: ["garb-out"], del: ["garbage", "quiet"]),
        ],
    )"#;
    let problem = r#"Problem(name: "P", domain: "dinner-date",
        init: ["garbage", "clean-hands", "quiet"], goal: ["dinner, present, garb-out"])"#;
    let (a, da) = stage(&[("d.domain.ron", native), ("p.problem.ron", problem)]);
    let (b, db) = stage(&[("d.pddl", pddl), ("p.problem.ron", problem)]);
    assert!(!da.has_errors() && !db.has_errors(), "{da:?} {db:?}");
    let (ta, tb) = (
        &a.problems.iter().next().unwrap().1.task,
        &b.problems.iter().next().unwrap().1.task,
    );
    assert_eq!(ta.operators.len(), tb.operators.len());
    let strip = |s: &str| s.trim_matches(|c| c == '(' || c == ')').to_string();
    let fa: Vec<String> = ta.facts.iter().map(|f| strip(f)).collect();
    let fb: Vec<String> = tb.facts.iter().map(|f| strip(f)).collect();
    assert_eq!(fa, fb);
    for t in [ta, tb] {
        let r = search::astar(t, Heuristic::Max, Default::default());
        assert_eq!(r.plan().unwrap().len(), 3);
    }
}

#[test]
fn the_actor_keeps_only_its_own_actions_and_the_rest_are_others() {
    let domain = r#"Domain(
        name: "shop",
        types: {"agent": "object"},
        predicates: ["open", "inside(agent)"],
        actions: [
            (name: "Open", parameters: [("Who", "agent")], actor: "Who", pre: ["not open"], add: ["open"]),
            (name: "WalkIn", parameters: [("Who", "agent")], actor: "Who", pre: ["open, not inside(Who)"], add: ["inside(Who)"]),
        ],
    )"#;
    let problem = r#"Problem(name: "In", domain: "shop", objects: {"npc": "agent", "player": "agent"},
        goal: ["inside(npc)"], actor: "npc", planner: (search: Pop))"#;
    let (m, d) = stage(&[("s.domain.ron", domain), ("p.problem.ron", problem)]);
    assert!(!d.has_errors(), "{d:?}");
    let p = &m.problems.iter().next().unwrap().1;
    let own: Vec<&str> = p.task.operators.iter().map(|o| o.name.as_str()).collect();
    let others: Vec<&str> = p.external.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(own, ["Open(npc)", "WalkIn(npc)"]);
    assert_eq!(others, ["Open(player)", "WalkIn(player)"]);
    assert!(matches!(
        p.planner,
        ensemble_runtime::plan::section::Planner::Pop
    ));
}

#[test]
fn an_actor_over_actions_that_name_no_performer_is_reported() {
    // Without `actor` on the actions, the NPC would plan with the player's actions too.
    let domain = r#"Domain(
        name: "shop",
        types: {"agent": "object"},
        predicates: ["open", "inside(agent)"],
        actions: [
            (name: "Open", parameters: [("Who", "agent")], pre: ["not open"], add: ["open"]),
        ],
    )"#;
    let problem = r#"Problem(name: "In", domain: "shop", objects: {"npc": "agent", "player": "agent"},
        goal: ["open"], actor: "npc")"#;
    let (m, d) = stage(&[("s.domain.ron", domain), ("p.problem.ron", problem)]);
    assert!(!d.has_errors(), "{d:?}");
    let w: Vec<_> = d.iter().filter(|x| x.code == Code::InvalidValue).collect();
    assert_eq!(w.len(), 1, "{d:?}");
    assert!(
        w[0].message.contains("`npc` plans with every action"),
        "{}",
        w[0].message
    );
    let p = &m.problems.iter().next().unwrap().1;
    assert_eq!(p.task.operators.len(), 2);
    // With an actor on the action, no warning and only the NPC's own.
    let domain = domain.replace(
        r#"("Who", "agent")], pre"#,
        r#"("Who", "agent")], actor: "Who", pre"#,
    );
    let (m, d) = stage(&[("s.domain.ron", &domain), ("p.problem.ron", problem)]);
    assert!(d.iter().all(|x| x.code != Code::InvalidValue), "{d:?}");
    assert_eq!(m.problems.iter().next().unwrap().1.task.operators.len(), 1);
}

#[test]
fn a_name_defined_three_times_points_each_repeat_at_the_first() {
    let problem = |n: u32| {
        (
            format!("p{n}.problem.ron"),
            r#"Problem(name: "Same", domain: "d", goal: ["g"])"#.to_string(),
        )
    };
    let domain = r#"Domain(name: "d", predicates: ["g"], actions: [(name: "a", add: ["g"])])"#;
    let files: Vec<(String, String)> = (1..=3).map(problem).collect();
    let mut all: Vec<(&str, &str)> = vec![("d.domain.ron", domain)];
    all.extend(files.iter().map(|(a, b)| (a.as_str(), b.as_str())));
    let (_, d) = stage(&all);
    let twice: Vec<_> = d.iter().filter(|x| x.code == Code::DuplicateName).collect();
    assert_eq!(twice.len(), 2, "{d:?}");
    for x in twice {
        // The related location is in p1, the first definition.
        assert_eq!(x.related.len(), 1);
        assert_eq!(x.related[0].span.file, crate::source::FileId(1), "{x:?}");
    }
}
