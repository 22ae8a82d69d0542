//! Hewlett's airport action list (Figs. 2.1–2.3) in the native form: the eleven actions, the
//! seed "at the main terminal, nothing known", the goal Traveled = 1, and the second seed the
//! traveller replans from after learning at the gate that the gate changed.

use super::action_list::{Action, ActionDomain, ActionProblem, Condition, Effect, Value, Variable};

/// Fig. 2.3's nine-step plan, in order.
pub const FIG_2_3: [&str; 9] = [
    "Go_To_Ticket_Counter",
    "Ask_For_Gate",
    "Ask_For_Ticket",
    "Go_To_Main_Terminal",
    "Go_To_Security",
    "Pass_Through_Security",
    "Go_To_Gate",
    "Wait_At_Gate",
    "Get_On_Plane",
];

fn n(s: &str) -> Value {
    Value::Name(s.into())
}

fn eq(var: &str, v: Value) -> Condition {
    Condition::Eq(var.into(), v)
}

fn act(name: &str, constraints: Vec<Condition>, effect: Effect) -> Action {
    Action {
        name: name.into(),
        constraints,
        effects: vec![effect],
        machine: None,
    }
}

/// Location values follow Fig. 2.3's numbering (0 = gate, ..., 4 = past security); the wrong
/// gate is value 5.
pub fn airport() -> (ActionDomain, ActionProblem) {
    let at = |l: &str| eq("Location", n(l));
    let go = |l: &str| Effect::Set("Location".into(), n(l));
    let yes = || Value::Int(1);
    let set = |v: &str| Effect::Set(v.into(), Value::Int(1));
    let domain = ActionDomain {
        variables: vec![
            Variable {
                name: "Has_Ticket".into(),
                values: Some(vec!["0".into(), "1".into()]),
            },
            Variable {
                name: "Location".into(),
                values: Some(
                    [
                        "Gate",
                        "Security",
                        "TicketCounter",
                        "MainTerminal",
                        "PastSecurity",
                        "WrongGate",
                    ]
                    .map(String::from)
                    .to_vec(),
                ),
            },
            Variable {
                name: "Time".into(),
                values: Some(vec!["0".into(), "1".into()]),
            },
            Variable {
                name: "Traveled".into(),
                values: Some(vec!["0".into(), "1".into()]),
            },
            Variable {
                name: "Know".into(),
                values: Some(vec!["0".into(), "1".into()]),
            },
        ],
        actions: vec![
            act(
                "Get_On_Plane",
                vec![eq("Has_Ticket", yes()), at("Gate"), eq("Time", yes())],
                set("Traveled"),
            ),
            act(
                "Go_To_Gate",
                vec![at("PastSecurity"), eq("Know", yes())],
                go("Gate"),
            ),
            act(
                "Wait_At_Gate",
                vec![at("Gate"), eq("Time", Value::Int(0))],
                set("Time"),
            ),
            act("Ask_For_Gate", vec![at("TicketCounter")], set("Know")),
            act(
                "Go_To_Ticket_Counter",
                vec![at("MainTerminal")],
                go("TicketCounter"),
            ),
            act(
                "Ask_For_Ticket",
                vec![at("TicketCounter")],
                set("Has_Ticket"),
            ),
            act("Go_To_Security", vec![at("MainTerminal")], go("Security")),
            act(
                "Pass_Through_Security",
                vec![at("Security"), eq("Has_Ticket", yes())],
                go("PastSecurity"),
            ),
            act(
                "Go_To_Main_Terminal",
                vec![at("TicketCounter")],
                go("MainTerminal"),
            ),
            act("Check_Gate", vec![at("WrongGate")], set("Know")),
            act(
                "Go_To_Correct_Gate",
                vec![at("WrongGate"), eq("Know", yes())],
                go("Gate"),
            ),
        ],
    };
    let problem = ActionProblem {
        seeds: vec![vec![("Location".into(), n("MainTerminal"))]],
        goal: vec![eq("Traveled", yes())],
    };
    (domain, problem)
}

/// The belief state after scene 2's discovery: at the wrong gate, gate unknown, ticket in hand.
pub fn airport_wrong_gate_seed() -> Vec<(String, Value)> {
    vec![
        ("Location".into(), n("WrongGate")),
        ("Has_Ticket".into(), Value::Int(1)),
    ]
}
