//! The `Plan` state in a world of the tests, on programs built by hand: a plan carried out
//! through action machines, a world event seen or discovered later, an action machine that
//! fails, and a hot reload in the middle of a plan.

use super::*;
use crate::hsm::{AgentStatus, Scene};
use crate::plan::pop::AchieverIndex;
use crate::plan::section::{ActionDef, Planner, Planning, WorldChange, WorldEventDef};
use crate::plan::{Heuristic, Operator, Task, fixtures};
use crate::program::*;
use crate::stdlib;
use crate::stdlib::tests::Stagehand;

/// Names, interned in order.
#[derive(Default)]
struct Names(Vec<String>);

impl Names {
    fn id(&mut self, s: &str) -> NameId {
        match self.0.iter().position(|n| n == s) {
            Some(i) => NameId(i as u32),
            None => {
                self.0.push(s.into());
                NameId(self.0.len() as u32 - 1)
            }
        }
    }
}

/// `Top`: Start -> Plan(problem) -> Finish on PlanSucceeded, Fail on PlanFailed.
/// `Act`: Start -> Wait(1 s) -> Finish. `Broken`: Start -> Fail.
/// Every action is performed by `Act`, except those named in `broken`.
fn program(
    task: Task,
    planner: Planner,
    broken: &[&str],
    events: Vec<(f64, Vec<&str>, bool)>,
) -> Arc<Program> {
    let mut n = Names::default();
    let lib_names = ["Start", "Finish", "Fail", "Plan", "Wait"];
    let decls = stdlib::declarations();
    let library: Vec<LibraryState> = lib_names
        .iter()
        .map(|name| {
            let d = decls.iter().find(|d| d.name == *name).unwrap();
            LibraryState {
                name: n.id(name),
                modifier: d.spec.modifier,
                terminal: d.spec.terminal,
            }
        })
        .collect();
    let lib = |s: &str| LibraryId(lib_names.iter().position(|x| *x == s).unwrap() as u32);
    let problem_name = n.id("Evening");
    // (machine, [(state, library code, modifier, transitions to state ids)]); ids are global.
    type Row<'a> = (&'a str, &'a str, Modifier, &'a [(&'a str, u32)]);
    let table: [(&str, &[Row<'_>]); 3] = [
        (
            "Top",
            &[
                ("Start", "Start", Modifier::None, &[("Empty", 1)]),
                (
                    "Plan",
                    "Plan",
                    Modifier::Text(problem_name),
                    &[("PlanSucceeded", 2), ("PlanFailed", 3)],
                ),
                ("Finish", "Finish", Modifier::None, &[]),
                ("Fail", "Fail", Modifier::None, &[]),
            ],
        ),
        (
            "Act",
            &[
                ("Start", "Start", Modifier::None, &[("Empty", 5)]),
                ("Wait", "Wait", Modifier::Number(1.0), &[("Done", 6)]),
                ("Finish", "Finish", Modifier::None, &[]),
            ],
        ),
        (
            "Broken",
            &[
                ("Start", "Start", Modifier::None, &[("Empty", 8)]),
                ("Fail", "Fail", Modifier::None, &[]),
            ],
        ),
    ];
    let (mut states, mut transitions, mut machines) = (Vec::new(), Vec::new(), Vec::new());
    for (m, (machine, rows)) in table.iter().enumerate() {
        let first_state = states.len() as u32;
        for (name, code, modifier, on) in rows.iter() {
            let first = transitions.len() as u32;
            for (e, t) in on.iter() {
                transitions.push(TransitionDef {
                    event: n.id(e),
                    target: StateId(*t),
                });
            }
            states.push(StateDef {
                name: n.id(name),
                machine: MachineId(m as u32),
                code: lib(code),
                modifier: *modifier,
                first_transition: first,
                transition_count: on.len() as u32,
            });
        }
        machines.push(MachineDef {
            name: n.id(machine),
            initial: StateId(first_state),
            first_state,
            state_count: rows.len() as u32,
        });
    }
    let here = n.id("here");
    let scene = n.id("evening");
    let agent = n.id("host");
    let actions = task
        .operators
        .iter()
        .map(|o| ActionDef {
            machine: Some(MachineId(if broken.contains(&o.name.as_str()) {
                2
            } else {
                1
            })),
        })
        .collect();
    let events = events
        .into_iter()
        .enumerate()
        .map(|(i, (after, del, seen))| {
            let mut op = Operator::new("x");
            op.del = del.iter().map(|f| task.fact_id(f).unwrap()).collect();
            WorldEventDef {
                name: n.id(&format!("event{i}")),
                scene: SceneId(0),
                problem: 0,
                agent: 0,
                after,
                when: Vec::new(),
                change: WorldChange::Set(op),
                seen,
            }
        })
        .collect();
    let planning = Planning {
        problems: vec![ProblemDef {
            name: problem_name,
            actions,
            external: Vec::new(),
            planner,
            max_nodes: 100_000,
            graph: None,
            achievers: Some(AchieverIndex::build(&task)),
            task,
        }],
        events,
    };
    let p = Program::new(
        n.0,
        library,
        machines,
        states,
        transitions,
        vec![LocationDef {
            name: here,
            x: 0.0,
            y: 0.0,
        }],
        vec![SceneDef {
            name: scene,
            tick_rate: 10,
            agents: vec![AgentDef {
                name: agent,
                machine: MachineId(0),
                start: LocationId(0),
            }],
            ambient: vec![],
        }],
    )
    .unwrap()
    .into_parts();
    Arc::new(ProgramParts { planning, ..p }.verify().unwrap())
}

/// The program's scene, started.
fn scene(p: &Arc<Program>) -> Scene<Stagehand> {
    let world = Stagehand::for_scene(p, SceneId(0));
    Scene::new_traced(p.clone(), stdlib::library(), "evening", world, 7).unwrap()
}

/// Runs the scene like `ensemble run` does; returns its trace as compact lines.
fn run(p: &Arc<Program>, ticks: u32) -> (Scene<Stagehand>, Vec<String>) {
    let mut s = scene(p);
    let mut lines = Vec::new();
    for t in 0..=ticks {
        if t > 0 {
            s.tick();
            fire_world_events(&mut s);
        }
        lines.extend(s.take_events().iter().filter_map(compact));
    }
    (s, lines)
}

fn compact(e: &crate::trace::TraceEvent) -> Option<String> {
    Some(match &e.kind {
        EventKind::Plan { actions, .. } => format!("plan {}", actions.join(",")),
        EventKind::Replan {
            actions, reason, ..
        } => format!("replan {} ({reason})", actions.join(",")),
        EventKind::Act { action, .. } => format!("act {action}"),
        EventKind::Done { action, .. } => format!("done {action}"),
        EventKind::ActionFailed { action, .. } => format!("fail {action}"),
        EventKind::WorldFact { fact, added, .. } => {
            format!("{} {fact}", if *added { "add" } else { "del" })
        }
        EventKind::Enter {
            machine,
            state,
            depth: 0,
        } => format!("enter {machine}/{state}"),
        EventKind::Error { message } => format!("error {message}"),
        _ => return None,
    })
}

#[test]
fn the_plan_is_carried_out_through_action_machines() {
    let p = program(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        &[],
        vec![],
    );
    let (s, t) = run(&p, 60);
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Finished, "{t:#?}");
    assert_eq!(t[2], "plan cook,carry,wrap", "{t:#?}");
    let acts: Vec<&String> = t
        .iter()
        .filter(|l| l.starts_with("act ") || l.starts_with("done "))
        .collect();
    assert_eq!(
        acts,
        [
            "act cook",
            "done cook",
            "act carry",
            "done carry",
            "act wrap",
            "done wrap"
        ]
    );
    assert_eq!(t.last().unwrap(), "enter Top/Finish");
}

#[test]
fn an_unseen_world_event_is_discovered_when_the_action_ends() {
    // Someone eats the dinner while the host wraps the present: only noticed afterwards.
    let p = program(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        &[],
        vec![(1.5, vec!["dinner"], false)],
    );
    let (s, t) = run(&p, 80);
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Failed, "{t:#?}");
    let i = t
        .iter()
        .position(|l| l == "del dinner")
        .expect("the event happened");
    // cleanHands is gone after cooking once, so no plan is left: the plan fails, with a reason.
    let r = t[i..].iter().find(|l| l.starts_with("replan")).unwrap();
    assert!(r.contains("dinner no longer holds"), "{r}");
    assert!(
        t.iter().any(|l| l.starts_with("replan  (no plan:")),
        "{t:#?}"
    );
}

#[test]
fn a_failing_action_machine_makes_the_agent_replan() {
    let p = program(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        &["carry"],
        vec![],
    );
    let (s, t) = run(&p, 80);
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Finished, "{t:#?}");
    assert!(t.contains(&"fail carry".to_string()), "{t:#?}");
    assert!(
        t.iter()
            .any(|l| l.starts_with("replan wrap,dolly (carry failed")),
        "{t:#?}"
    );
    assert!(t.contains(&"done dolly".to_string()));
}

#[test]
fn minmin_plans_again_after_every_action() {
    let planner = Planner::MinMin {
        horizon: 3,
        depth_bound: Some(10),
        second_bound: true,
        heuristic: Heuristic::Add,
    };
    let p = program(fixtures::funny_dinner_date(), planner, &[], vec![]);
    let (s, t) = run(&p, 120);
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Finished, "{t:#?}");
    assert_eq!(t.iter().filter(|l| l.starts_with("done ")).count(), 6);
    assert_eq!(
        t.iter().filter(|l| l.starts_with("replan")).count(),
        5,
        "{t:#?}"
    );
}

/// The dinner date planned with A*, `ticks` into the scene.
fn dinner_after(ticks: u32) -> (Arc<Program>, Scene<Stagehand>) {
    let p = program(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        &[],
        vec![],
    );
    let mut s = scene(&p);
    for _ in 0..ticks {
        s.tick();
    }
    (p, s)
}

#[test]
fn a_reload_mid_plan_carries_the_plan_by_name() {
    let (p, mut s) = dinner_after(15);
    // The same program again: nothing to report, the plan goes on.
    let r = s.reload(p.clone(), "same").unwrap();
    assert!(r.fallbacks.is_empty(), "{:?}", r.fallbacks);
    // Without wrap: the remaining plan cannot be carried; the agent plans again.
    let mut t = fixtures::dinner_date();
    t.operators.retain(|o| o.name != "wrap");
    let mut t2 = t.clone();
    // keep the goal reachable: a second way to wrap
    t2.operators.push(Operator {
        name: "giftwrap".into(),
        ..fixtures::dinner_date().op(1).clone()
    });
    let p2 = program(t2, Planner::AStar(Heuristic::Max), &[], vec![]);
    let r = s.reload(p2.clone(), "no wrap").unwrap();
    assert!(
        r.fallbacks
            .iter()
            .any(|f| f.contains("action wrap no longer exists; planned again")),
        "{:?}",
        r.fallbacks
    );
    s.game.standard.planning.reload(&p, &p2, Some(SceneId(0)));
    let ev: Vec<String> = s.take_events().iter().filter_map(compact).collect();
    assert!(
        ev.iter().any(|l| l.starts_with("replan")
            && l.contains("giftwrap")
            && l.contains("reloaded: action wrap no longer exists")),
        "{ev:#?}"
    );
    for _ in 0..60 {
        s.tick();
    }
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Finished);
}

#[test]
fn a_reload_that_removes_the_problem_mid_action_fails_the_plan_without_panicking() {
    // Mid-action: `Act` runs below the Plan state.
    let (p, mut s) = dinner_after(5);
    // The same program, but its problem is called something else now, and the state
    // PlanFailed leads to waits instead of ending the machine (like the samples' `Say`).
    let here = p.name_id("here").unwrap();
    let mut renamed = (*p).clone().into_parts();
    renamed.planning.problems[0].name = here;
    let wait = renamed
        .library
        .iter()
        .position(|l| renamed.names[l.name.index()] == "Wait");
    renamed.states[3].code = LibraryId(wait.unwrap() as u32);
    renamed.states[3].modifier = Modifier::Number(100.0);
    let r = s
        .reload(Arc::new(renamed.verify().unwrap()), "renamed")
        .unwrap();
    assert!(
        r.fallbacks
            .iter()
            .any(|f| f.contains("problem Evening no longer exists")),
        "{:?}",
        r.fallbacks
    );
    let ev: Vec<String> = s.take_events().iter().filter_map(compact).collect();
    assert!(ev.contains(&"enter Top/Fail".to_string()), "{ev:#?}");
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Running);
}
