//! The seeds' own planning examples, as tasks: tests, benchmarks and samples share them.
//!
//! - [`dinner_date`]: Weld's classical dinner date in HSP's positive encoding (digest T1).
//! - [`funny_dinner_date`]: the ten-operator stand-in for Lozano et al.'s Fig. 1 (digest T4).
//! - [`shop`]: Inampudi's shop scene (digest T8), with the player's actions kept apart from the
//!   NPC's action space.

use super::task::{Operator, Task};

/// T1: init {garbage, cleanHands, quiet}, goal {dinner, present, garbOut}; optimal length 3 with
/// six optimal plans.
pub fn dinner_date() -> Task {
    Task::builder()
        .op("cook", &["cleanHands"], &["dinner"], &[])
        .op("wrap", &["quiet"], &["present"], &[])
        .op("carry", &[], &["garbOut"], &["garbage", "cleanHands"])
        .op("dolly", &[], &["garbOut"], &["garbage", "quiet"])
        .init(&["garbage", "cleanHands", "quiet"])
        .goal(&["dinner", "present", "garbOut"])
        .build()
}

/// T4: the synthetic "funny dinner date"; optimal length 6 (30 optimal plans, 8 start with wrap).
pub fn funny_dinner_date() -> Task {
    Task::builder()
        .op("cook", &["cleanHands", "fun"], &["dinner"], &["cleanHands"])
        .op("wrap", &["quiet"], &["present"], &[])
        .op(
            "carry",
            &["garbage"],
            &["garbOut"],
            &["garbage", "cleanHands"],
        )
        .op("dolly", &["garbage"], &["garbOut"], &["garbage", "quiet"])
        .op("washHands", &[], &["cleanHands"], &[])
        .op("playMusic", &[], &["fun", "musicOn"], &["quiet"])
        .op("stopMusic", &["musicOn"], &["quiet"], &["musicOn"])
        .op("relax", &["workDone"], &["fun"], &[])
        .op("switchOnComputer", &[], &["computerOn"], &[])
        .op(
            "computerWork",
            &["computerOn", "quiet"],
            &["workDone"],
            &["workPending"],
        )
        .init(&["garbage", "cleanHands", "quiet", "workPending"])
        .goal(&["dinner", "present", "garbOut", "workDone"])
        .build()
}

/// T8: the shop scene. Returns the NPC's task (its action space: Open, Close, WalkIn, Buy by the
/// NPC) and the player's actions over the same facts, in the same order.
pub fn shop() -> (Task, Vec<Operator>) {
    let mut b = Task::builder();
    for who in ["NPC", "Player"] {
        b = b
            .op(
                &format!("Open({who}, Door)"),
                &["!doorOpen"],
                &["doorOpen"],
                &[],
            )
            .op(
                &format!("Close({who}, Door)"),
                &["doorOpen"],
                &[],
                &["doorOpen"],
            )
            .op(
                &format!("WalkIn({who}, Door)"),
                &["doorOpen", &format!("!inside({who})")],
                &[&format!("inside({who})")],
                &[],
            )
            .op(
                &format!("Buy({who}, Weapon)"),
                &[&format!("inside({who})"), "inStock"],
                &[&format!("has({who})")],
                &["inStock"],
            );
    }
    let mut task = b.init(&["inStock"]).goal(&["has(NPC)"]).build();
    let player = task.operators.split_off(4);
    (task, player)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shop_splits_npc_and_player_actions() {
        let (t, p) = shop();
        assert_eq!(t.operators.len(), 4);
        assert!(t.operators.iter().all(|o| o.name.contains("NPC")));
        assert!(p.iter().all(|o| o.name.contains("Player")));
    }
}
