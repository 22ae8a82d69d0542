//! The digest's POP / A-POP / D-POP cases (T3, T8–T11) and the pseudo-code defects as negative
//! tests.

use super::partial::{GOAL, START};
use super::*;
use crate::plan::fixtures;
use crate::plan::task::{Lit, Task};
use crate::plan::validate::validate;

fn names(task: &Task, p: &PartialPlan) -> Vec<String> {
    task.plan_names(&p.linear_plan())
}

fn step_of(task: &Task, p: &PartialPlan, name: &str) -> StepId {
    p.live()
        .find(|&s| p.step_name(task, s) == name)
        .unwrap_or_else(|| panic!("no step {name}"))
}

fn pop(task: &Task) -> PartialPlan {
    let idx = AchieverIndex::build(task);
    let r = plan(
        task,
        Achievers::Index(&idx),
        &task.initial_state(),
        PopConfig::default(),
    );
    assert_eq!(r.outcome, PopOutcome::Found);
    r.plan.unwrap()
}

/// Someone else makes `fact` true; the plan is repaired.
fn user_adds(task: &Task, idx: &AchieverIndex, p: &mut PartialPlan, fact: &str) -> RepairReport {
    let mut user = crate::plan::task::Operator::new("User");
    user.add.push(task.fact_id(fact).unwrap());
    player_action(task, Achievers::Index(idx), p, user, PopConfig::default())
}

#[test]
fn t3_carry_is_promoted_after_cook_and_wrap_stays_unordered() {
    let t = fixtures::dinner_date();
    let p = pop(&t);
    assert!(p.is_complete(&t));
    let (cook, wrap, carry) = (
        step_of(&t, &p, "cook"),
        step_of(&t, &p, "wrap"),
        step_of(&t, &p, "carry"),
    );
    assert!(p.precedes(cook, carry));
    assert!(!p.precedes(wrap, carry) && !p.precedes(carry, wrap));
    assert!(!p.precedes(wrap, cook) && !p.precedes(cook, wrap));
    assert_eq!(p.count_linearizations(), 3);
    assert_eq!(p.links.len(), 5);
    validate(&t, &t.initial_state(), &p.linear_plan()).unwrap();
}

#[test]
fn t3_dolly_is_ordered_after_wrap() {
    // Declare dolly first so the planner chooses it for garbOut.
    let t = Task::builder()
        .op("cook", &["cleanHands"], &["dinner"], &[])
        .op("wrap", &["quiet"], &["present"], &[])
        .op("dolly", &[], &["garbOut"], &["garbage", "quiet"])
        .op("carry", &[], &["garbOut"], &["garbage", "cleanHands"])
        .init(&["garbage", "cleanHands", "quiet"])
        .goal(&["dinner", "present", "garbOut"])
        .build();
    let p = pop(&t);
    let (wrap, dolly) = (step_of(&t, &p, "wrap"), step_of(&t, &p, "dolly"));
    assert!(p.precedes(wrap, dolly));
    assert_eq!(p.count_linearizations(), 3);
}

#[test]
fn plain_pop_and_a_pop_find_the_same_plan() {
    for t in [fixtures::dinner_date(), fixtures::funny_dinner_date()] {
        let idx = AchieverIndex::build(&t);
        let s0 = t.initial_state();
        let a = plan(&t, Achievers::Scan(&t), &s0, PopConfig::default());
        let b = plan(&t, Achievers::Index(&idx), &s0, PopConfig::default());
        assert_eq!(a.nodes, b.nodes);
        let (a, b) = (a.plan.unwrap(), b.plan.unwrap());
        assert_eq!(a.linear_plan(), b.linear_plan());
        validate(&t, &s0, &a.linear_plan()).unwrap();
    }
}

#[test]
fn deepening_from_lm_cut_finds_the_plan_deepening_from_zero_finds_with_fewer_nodes() {
    for t in [
        fixtures::dinner_date(),
        fixtures::funny_dinner_date(),
        fixtures::shop().0,
    ] {
        let idx = AchieverIndex::build(&t);
        let s0 = t.initial_state();
        let cfg = PopConfig::default();
        let fresh = PartialPlan::new(&t, s0.clone());
        let from_zero = complete(&t, Achievers::Index(&idx), fresh, cfg);
        let from_bound = plan(&t, Achievers::Index(&idx), &s0, cfg);
        let (a, b) = (from_zero.plan.unwrap(), from_bound.plan.unwrap());
        assert_eq!(a.linear_plan(), b.linear_plan());
        assert!(
            from_bound.nodes < from_zero.nodes,
            "{} vs {}",
            from_bound.nodes,
            from_zero.nodes
        );
    }
}

#[test]
fn t8_shop_initial_plan() {
    let (t, _) = fixtures::shop();
    let p = pop(&t);
    assert_eq!(
        names(&t, &p),
        ["Open(NPC, Door)", "WalkIn(NPC, Door)", "Buy(NPC, Weapon)"]
    );
    assert_eq!(p.count_linearizations(), 1);
    assert_eq!(p.links.len(), 6);
}

fn shop_op(player: &[crate::plan::task::Operator], name: &str) -> crate::plan::task::Operator {
    player.iter().find(|o| o.name == name).unwrap().clone()
}

#[test]
fn t9_player_opens_the_door_first() {
    let (t, player) = fixtures::shop();
    let idx = AchieverIndex::build(&t);
    let mut p = pop(&t);
    let open_npc = step_of(&t, &p, "Open(NPC, Door)");
    let r = player_action(
        &t,
        Achievers::Index(&idx),
        &mut p,
        shop_op(&player, "Open(Player, Door)"),
        PopConfig::default(),
    );
    assert_eq!(r.outcome, RepairOutcome::Repaired);
    assert_eq!(r.over_consistent, 1);
    assert_eq!(r.removed, vec![open_npc]);
    // Over-consistency runs first: Close(NPC) is not added to restore ¬doorOpen.
    assert_eq!(names(&t, &p), ["WalkIn(NPC, Door)", "Buy(NPC, Weapon)"]);
    let walk = step_of(&t, &p, "WalkIn(NPC, Door)");
    let door_open = Lit::pos(t.fact_id("doorOpen").unwrap());
    assert!(p.links.contains(&CausalLink {
        producer: r.action_step,
        cond: door_open,
        consumer: walk
    }));
    validate(&t, &p.now, &p.linear_plan()).unwrap();
}

#[test]
fn t10_player_buys_the_last_weapon_and_repair_fails() {
    let (t, player) = fixtures::shop();
    let idx = AchieverIndex::build(&t);
    let a = Achievers::Index(&idx);
    let mut p = pop(&t);
    let cfg = PopConfig::default();
    for name in ["Open(Player, Door)", "WalkIn(Player, Door)"] {
        let r = player_action(&t, a, &mut p, shop_op(&player, name), cfg);
        assert_eq!(r.outcome, RepairOutcome::Repaired, "{name}");
    }
    let in_stock = Lit::pos(t.fact_id("inStock").unwrap());
    // The initial state had inStock: a naive Alg. 3 would re-link it to a_start (defect D1).
    assert!(in_stock.holds(&t.initial_state()));
    let r = player_action(&t, a, &mut p, shop_op(&player, "Buy(Player, Weapon)"), cfg);
    assert_eq!(r.under_consistent, 1);
    assert_eq!(r.outcome, RepairOutcome::Failed(PopOutcome::Unsolvable));
    assert!(!p.supplies(&t, START, in_stock));
}

#[test]
fn t11_consistency_propagation_removes_the_chain_and_terminates() {
    let t = Task::builder()
        .op("A1", &[], &["p1"], &[])
        .op("A2", &["p1"], &["p2"], &[])
        .op("A3", &["p2"], &["p3"], &[])
        .init(&[])
        .goal(&["p3"])
        .build();
    let idx = AchieverIndex::build(&t);
    let mut p = pop(&t);
    assert_eq!(names(&t, &p), ["A1", "A2", "A3"]);
    let (a1, a2) = (step_of(&t, &p, "A1"), step_of(&t, &p, "A2"));
    let r = user_adds(&t, &idx, &mut p, "p2");
    assert_eq!(r.outcome, RepairOutcome::Repaired);
    assert_eq!(r.removed, vec![a2, a1]);
    assert_eq!(names(&t, &p), ["A3"]);
    assert!(!p.step(START).removed && !p.step(GOAL).removed);
    let a3 = step_of(&t, &p, "A3");
    assert!(
        p.links
            .iter()
            .any(|l| l.producer == r.action_step && l.consumer == a3)
    );
}

#[test]
fn under_consistency_covers_links_from_done_producers_d6() {
    // A done producer's link is as vulnerable as a running one's.
    let (t, player) = fixtures::shop();
    let idx = AchieverIndex::build(&t);
    let mut p = pop(&t);
    let first = p.execute_next(&t).unwrap(); // Open(NPC) done
    assert_eq!(p.step_name(&t, first), "Open(NPC, Door)");
    let r = player_action(
        &t,
        Achievers::Index(&idx),
        &mut p,
        shop_op(&player, "Close(Player, Door)"),
        PopConfig::default(),
    );
    assert_eq!(r.under_consistent, 1);
    assert_eq!(r.outcome, RepairOutcome::Repaired);
    assert_eq!(
        names(&t, &p),
        ["Open(NPC, Door)", "WalkIn(NPC, Door)", "Buy(NPC, Weapon)"]
    );
    validate(&t, &p.now, &p.linear_plan()).unwrap();
}

#[test]
fn greedy_first_choice_fails_and_backtracking_recovers_d2() {
    // The first achiever of g (bad) needs something unreachable; Alg. 4 alone would fail.
    let t = Task::builder()
        .op("bad", &["never"], &["g"], &[])
        .op("good", &[], &["g"], &[])
        .init(&[])
        .goal(&["g"])
        .build();
    let p = pop(&t);
    assert_eq!(names(&t, &p), ["good"]);
}

#[test]
fn unreachable_goal_is_proven_unsolvable() {
    let t = Task::builder()
        .op("a", &["x"], &["g"], &[])
        .init(&[])
        .goal(&["g"])
        .build();
    let r = plan(
        &t,
        Achievers::Scan(&t),
        &t.initial_state(),
        PopConfig::default(),
    );
    assert_eq!(r.outcome, PopOutcome::Unsolvable);
}

#[test]
fn a_running_step_that_deletes_a_condition_threatens_links_from_the_past() {
    // R deletes `a` and runs while the player hands over `a`: C may not use the player's `a`
    // (or a_now's), because R takes it away again when it finishes, before C starts.
    let t = Task::builder()
        .op("R", &[], &["g1"], &["a"])
        .op("A", &[], &["a"], &[])
        .op("C", &["a"], &["g2"], &[])
        .init(&[])
        .goal(&["g1", "g2"])
        .build();
    let idx = AchieverIndex::build(&t);
    let mut p = pop(&t);
    assert_eq!(names(&t, &p), ["R", "A", "C"]);
    let r_step = step_of(&t, &p, "R");
    p.begin(r_step);
    let r = user_adds(&t, &idx, &mut p, "a");
    assert_eq!(r.outcome, RepairOutcome::Repaired);
    assert_eq!(names(&t, &p), ["A", "C"]);
    // Whatever the repair did, the rest must be executable once R has finished.
    let after_r = t.op(t.op_id("R").unwrap()).apply(&p.now);
    validate(&t, &after_r, &p.linear_plan()).unwrap();
}
