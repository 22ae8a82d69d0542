//! The executive against the seeds' examples: replanning after a changed world and after a
//! failed action (Hewlett), MinMin interleaving with an external change (digest T6), D-POP
//! repair and repair failure in the shop (T9, T10), hot-reload carry-over.

use super::*;
use crate::plan::pop::{AchieverIndex, PopConfig};
use crate::plan::section::ActionDef;
use crate::plan::{Heuristic, fixtures};
use crate::program::NameId;

fn problem(task: Task, planner: Planner, external: Vec<Operator>) -> ProblemDef {
    ProblemDef {
        name: NameId(0),
        actions: vec![ActionDef { machine: None }; task.operators.len()],
        achievers: Some(AchieverIndex::build(&task)),
        task,
        external,
        planner,
        max_nodes: 200_000,
        graph: None,
    }
}

/// Runs the agent to the end in a world that applies each action's effects (when its
/// preconditions hold there) and then `meddle(step, world)`. Returns the actions performed, the
/// notes, and whether the goal was reached.
fn run(
    def: &ProblemDef,
    mut fail: impl FnMut(usize, OpId) -> bool,
    mut meddle: impl FnMut(usize, &mut State),
) -> (Vec<String>, Vec<Note>, Next) {
    let t = &def.task;
    let mut world = t.initial_state();
    let mut ex = Executive::new(world.clone());
    let mut d = ex.start(def);
    let mut done = Vec::new();
    let mut notes = std::mem::take(&mut d.notes);
    for step in 0..100 {
        let op = match d.next {
            Next::Perform(op) => op,
            ref other => return (done, notes, other.clone()),
        };
        let ok = !fail(step, op) && t.op(op).is_applicable(&world);
        if ok {
            t.op(op).apply_in_place(&mut world);
            done.push(t.op(op).name.clone());
        }
        meddle(step, &mut world);
        d = ex.action_ended(def, ok, &world);
        notes.append(&mut d.notes);
    }
    panic!("the agent did not finish: {done:?}");
}

fn replans(notes: &[Note]) -> Vec<&str> {
    notes
        .iter()
        .filter_map(|n| match n {
            Note::Replan { reason, .. } => Some(reason.as_str()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_plan_is_made_and_carried_out() {
    let def = problem(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        vec![],
    );
    let (done, notes, end) = run(&def, |_, _| false, |_, _| {});
    assert_eq!(end, Next::Succeeded);
    assert_eq!(done.len(), 3);
    assert!(matches!(&notes[..], [Note::Plan { actions, .. }] if actions.len() == 3));
}

#[test]
fn a_world_changed_behind_the_agents_back_makes_it_replan_from_what_it_sees() {
    let def = problem(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        vec![],
    );
    let t = &def.task;
    let dinner = t.fact_id("dinner").unwrap();
    let mut spoiled = false;
    let (done, notes, end) = run(
        &def,
        |_, _| false,
        |_, w| {
            // The dinner burns once, right after it is cooked.
            if w.contains(dinner) && !spoiled {
                spoiled = true;
                w.remove(dinner);
            }
        },
    );
    assert_eq!(end, Next::Succeeded);
    let r = replans(&notes);
    assert_eq!(r.len(), 1, "{notes:?}");
    assert!(
        r[0].contains("after cook the world is not as expected: dinner no longer holds"),
        "{}",
        r[0]
    );
    assert_eq!(done.iter().filter(|n| *n == "cook").count(), 2, "{done:?}");
}

#[test]
fn an_action_that_keeps_failing_is_given_up_for_another() {
    // carry's machine always fails; the agent learns nothing from it and takes dolly instead.
    let def = problem(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        vec![],
    );
    let carry = def.task.op_id("carry").unwrap();
    let (done, notes, end) = run(&def, |_, op| op == carry, |_, _| {});
    assert_eq!(end, Next::Succeeded);
    assert!(done.contains(&"dolly".to_string()), "{done:?}");
    assert!(!done.contains(&"carry".to_string()));
    assert!(
        replans(&notes)
            .iter()
            .any(|r| r.contains("carry failed; nothing new was learned")),
        "{notes:?}"
    );
}

#[test]
fn when_every_way_fails_the_agent_gives_up_with_a_reason() {
    let def = problem(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        vec![],
    );
    let cook = def.task.op_id("cook").unwrap();
    let (_, _, end) = run(&def, |_, op| op == cook, |_, _| {});
    match end {
        Next::Failed(why) => assert!(why.contains("cook failed"), "{why}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn t6_minmin_interleaves_and_replans_when_the_present_disappears() {
    let planner = Planner::MinMin {
        horizon: 3,
        depth_bound: Some(10),
        second_bound: true,
        heuristic: Heuristic::Add,
    };
    let def = problem(fixtures::funny_dinner_date(), planner, vec![]);
    let t = &def.task;
    let present = t.fact_id("present").unwrap();
    let (done, notes, end) = run(
        &def,
        |_, _| false,
        |step, w| {
            if step == 0 {
                w.remove(present);
            }
        },
    );
    assert_eq!(end, Next::Succeeded);
    // The first action is wrap (004 §3); after the present is taken the agent wraps again.
    assert_eq!(done[0], "wrap");
    assert!(done[1..].contains(&"wrap".to_string()), "{done:?}");
    let r = replans(&notes);
    assert!(r[0].contains("present no longer holds"), "{r:?}");
    // Planning again after every other action is what MinMin does.
    assert!(r[1..].iter().all(|x| x.contains("(MinMin)")), "{r:?}");
}

/// The shop of T8 with a first step before the door (the NPC walks to the shop), so the player
/// can act before `Open(NPC, Door)` starts (T9).
fn shop_with_approach() -> ProblemDef {
    let mut b = Task::builder();
    for who in ["NPC", "Player"] {
        let at = format!("atShop({who})");
        let inside = format!("inside({who})");
        b = b
            .op(
                &format!("Approach({who})"),
                &[&format!("!{at}")],
                &[&at],
                &[],
            )
            .op(
                &format!("Open({who}, Door)"),
                &[&at, "!doorOpen"],
                &["doorOpen"],
                &[],
            )
            .op(
                &format!("WalkIn({who}, Door)"),
                &[&at, "doorOpen", &format!("!{inside}")],
                &[&inside],
                &[],
            )
            .op(
                &format!("Buy({who}, Weapon)"),
                &[&inside, "inStock"],
                &[&format!("has({who})")],
                &["inStock"],
            );
    }
    let mut task = b
        .init(&["inStock", "atShop(Player)"])
        .goal(&["has(NPC)"])
        .build();
    let player = task.operators.split_off(4);
    problem(task, Planner::Pop, player)
}

fn perform(def: &ProblemDef, world: &mut State, name: &str) -> Operator {
    let op = def
        .external
        .iter()
        .find(|o| o.name == name)
        .unwrap()
        .clone();
    assert!(op.is_applicable(world), "{name}");
    op.apply_in_place(world);
    op
}

#[test]
fn t9_the_player_opens_the_door_first_and_the_plan_is_repaired() {
    let def = shop_with_approach();
    let t = &def.task;
    let mut world = t.initial_state();
    let mut ex = Executive::new(world.clone());
    let d = ex.start(&def);
    let approach = t.op_id("Approach(NPC)").unwrap();
    assert_eq!(d.next, Next::Perform(approach));
    assert!(matches!(&d.notes[..], [Note::Plan { actions, .. }]
        if t.plan_names(actions) == ["Approach(NPC)", "Open(NPC, Door)", "WalkIn(NPC, Door)", "Buy(NPC, Weapon)"]));
    // While the NPC walks to the shop, the player opens the door.
    let open = perform(&def, &mut world, "Open(Player, Door)");
    let d = ex.noticed(&def, &open, &world);
    assert_eq!(d.next, Next::Continue);
    assert!(!d.interrupted);
    let Note::Replan {
        actions, reason, ..
    } = &d.notes[0]
    else {
        panic!("{d:?}")
    };
    assert_eq!(
        t.plan_names(actions),
        ["Approach(NPC)", "WalkIn(NPC, Door)", "Buy(NPC, Weapon)"]
    );
    assert!(
        reason.contains("Open(Player, Door) happened; the plan was repaired (D-POP): Open(NPC, Door) no longer needed"),
        "{reason}"
    );
    // The NPC carries on and buys.
    for expect in ["WalkIn(NPC, Door)", "Buy(NPC, Weapon)"] {
        t.op(ex.current().unwrap()).apply_in_place(&mut world);
        let d = ex.action_ended(&def, true, &world);
        assert_eq!(d.next, Next::Perform(t.op_id(expect).unwrap()), "{d:?}");
    }
    t.op(ex.current().unwrap()).apply_in_place(&mut world);
    assert_eq!(ex.action_ended(&def, true, &world).next, Next::Succeeded);
}

#[test]
fn t10_the_player_buys_the_last_weapon_and_the_repair_fails() {
    let def = shop_with_approach();
    let t = &def.task;
    let mut world = t.initial_state();
    let mut ex = Executive::new(world.clone());
    ex.start(&def);
    for name in ["Open(Player, Door)", "WalkIn(Player, Door)"] {
        let op = perform(&def, &mut world, name);
        let d = ex.noticed(&def, &op, &world);
        assert_eq!(d.next, Next::Continue, "{name}: {d:?}");
    }
    let buy = perform(&def, &mut world, "Buy(Player, Weapon)");
    let d = ex.noticed(&def, &buy, &world);
    assert!(d.interrupted);
    match d.next {
        Next::Failed(why) => assert!(
            why.contains("Buy(Player, Weapon) happened; the plan cannot be repaired"),
            "{why}"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unseen_change_is_repaired_when_the_pop_agent_next_looks() {
    // The player opens the door while the NPC approaches, but the NPC only sees it on arrival.
    let def = shop_with_approach();
    let t = &def.task;
    let open_npc = t.op_id("Open(NPC, Door)").unwrap();
    let mut opened = false;
    let (done, notes, end) = run(
        &def,
        |_, _| false,
        |_, w| {
            if !opened {
                opened = true;
                w.insert(t.fact_id("doorOpen").unwrap());
            }
        },
    );
    assert_eq!(end, Next::Succeeded);
    assert!(!done.iter().any(|n| *n == t.op(open_npc).name), "{done:?}");
    let r = replans(&notes);
    assert!(
        r[0].contains("doorOpen now holds; the plan was repaired (D-POP)"),
        "{r:?}"
    );
}

#[test]
fn a_noticed_change_that_makes_the_current_action_impossible_interrupts_it() {
    let mut def = shop_with_approach();
    def.planner = Planner::AStar(Heuristic::Max);
    let t = &def.task;
    let mut world = t.initial_state();
    let mut ex = Executive::new(world.clone());
    let d = ex.start(&def);
    assert_eq!(d.next, Next::Perform(t.op_id("Approach(NPC)").unwrap()));
    // A friend drives the NPC to the shop while it starts walking there.
    let mut change = Operator::new("a lift");
    change.add.push(t.fact_id("atShop(NPC)").unwrap());
    change.apply_in_place(&mut world);
    let d = ex.noticed(&def, &change, &world);
    assert!(d.interrupted, "{d:?}");
    assert_eq!(d.next, Next::Perform(t.op_id("Open(NPC, Door)").unwrap()));
    assert!(matches!(&d.notes[..], [Note::Replan { reason, .. }]
        if reason == "a lift happened: Approach(NPC) is no longer possible, so it was interrupted"));
}

#[test]
fn a_noticed_change_replans_the_rest_and_the_current_action_goes_on() {
    let def = problem(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        vec![],
    );
    let t = &def.task;
    let mut world = t.initial_state();
    let mut ex = Executive::new(world.clone());
    let d = ex.start(&def);
    let Next::Perform(first) = d.next else {
        panic!()
    };
    let mut change = Operator::new("a gift arrives");
    change.add.push(t.fact_id("present").unwrap());
    change.apply_in_place(&mut world);
    let d = ex.noticed(&def, &change, &world);
    assert!(!d.interrupted);
    assert_eq!(d.next, Next::Continue);
    assert_eq!(ex.current(), Some(first));
    let Note::Replan { actions, .. } = &d.notes[0] else {
        panic!()
    };
    assert_eq!(actions[0], first);
    assert!(
        !t.plan_names(&actions[1..]).contains(&"wrap".to_string()) || t.op(first).name == "wrap"
    );
}

#[test]
fn remap_carries_a_plan_by_action_names_or_says_why_not() {
    let def = problem(
        fixtures::dinner_date(),
        Planner::AStar(Heuristic::Max),
        vec![],
    );
    let mut ex = Executive::new(def.task.initial_state());
    ex.start(&def);
    let before: Vec<String> = def.task.plan_names(&ex.remaining());
    // The same problem with its operators in another order: carried by name.
    let mut reordered = def.clone();
    reordered.task.operators.reverse();
    let mut moved = ex.clone();
    moved.remap(&def, &reordered).unwrap();
    assert_eq!(reordered.task.plan_names(&moved.remaining()), before);
    // Without the action under way: refused, with the reason.
    let current = def.task.op(ex.current().unwrap()).name.clone();
    let mut gone = def.clone();
    gone.task.operators.retain(|o| o.name != current);
    gone.actions.pop();
    let e = ex.clone().remap(&def, &gone).unwrap_err();
    assert!(e.contains(&current), "{e}");
}

#[test]
fn the_graph_planner_follows_declaration_order_and_falls_back_off_the_graph() {
    let t = fixtures::dinner_date();
    let mut def = problem(t.clone(), Planner::Graph, vec![]);
    // The graph of every reachable state.
    let mut nodes = vec![t.initial_state()];
    let mut edges: Vec<Vec<(OpId, u32)>> = vec![vec![]];
    let mut i = 0;
    while i < nodes.len() {
        let s = nodes[i].clone();
        for o in t.applicable(&s).collect::<Vec<_>>() {
            let n = t.op(o).apply(&s);
            let j = nodes.iter().position(|x| *x == n).unwrap_or_else(|| {
                nodes.push(n);
                edges.push(vec![]);
                nodes.len() - 1
            });
            edges[i].push((o, j as u32));
        }
        i += 1;
    }
    def.graph = Some(crate::plan::graph::PlanGraph::from_parts(
        nodes.iter().map(|s| s.facts().collect()).collect(),
        edges,
    ));
    let mut ex = Executive::new(t.initial_state());
    let d = ex.start(&def);
    let Note::Plan { actions, .. } = &d.notes[0] else {
        panic!()
    };
    assert_eq!(t.plan_names(actions), ["cook", "wrap", "carry"]);
    // A belief the graph does not contain (only a world event leads there): A* takes over.
    let odd = t.state_of([t.fact_id("dinner").unwrap(), t.fact_id("quiet").unwrap()]);
    let mut ex = Executive::new(odd);
    let d = ex.start(&def);
    assert!(matches!(d.next, Next::Perform(_)), "{d:?}");
}

/// `p0 -> p1 -> ... -> pn`, one action per step.
fn corridor(n: usize) -> Task {
    let mut b = Task::builder();
    for i in 0..n {
        let (from, to) = (format!("p{i}"), format!("p{}", i + 1));
        b = b.op(&format!("step{i}"), &[&from], &[&to], &[&from]);
    }
    b.init(&["p0"]).goal(&[&format!("p{n}")]).build()
}

#[test]
fn minmin_plans_again_after_every_action_however_long_the_plan() {
    // Planning again after each action is how MinMin works, not a sign of trouble: a plan
    // longer than MAX_REPLANS actions must still be carried out.
    let n = MAX_REPLANS as usize + 10;
    let planner = Planner::MinMin {
        horizon: 2,
        depth_bound: None,
        second_bound: true,
        heuristic: Heuristic::Add,
    };
    let def = problem(corridor(n), planner, vec![]);
    let (done, _, end) = run(&def, |_, _| false, |_, _| {});
    assert_eq!(end, Next::Succeeded, "after {} actions", done.len());
    assert_eq!(done.len(), n);
}

#[test]
fn a_partial_order_plan_too_long_for_the_step_bound_says_so() {
    let n = PopConfig::default().max_steps as usize + 5;
    let def = problem(corridor(n), Planner::Pop, vec![]);
    let mut ex = Executive::new(def.task.initial_state());
    let Next::Failed(why) = ex.start(&def).next else {
        panic!("a plan longer than the step bound")
    };
    assert!(why.contains("of at most 40 steps"), "{why}");
}
