//! Starter templates: small working designs a first-time designer starts from instead of a
//! blank machine — a patrol, a conversation pair, a seller and a buyer, a plan-driven agent, a
//! character the player talks to. Each is written as the
//! RON a designer would write, comments included, so the files read as examples; every name
//! is prefixed with the name the designer gives, so a template can be added twice.

use crate::document::{Changes, DocId, DocState, Project, check_asset_name};
use crate::sidecar::Layout;
use ensemble_compiler::formats::ron::AssetKind;
use ensemble_compiler::formats::ron::FileKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Template {
    Patrol,
    ConversationPair,
    SellerAndBuyer,
    PlanDriven,
    TalkingCharacter,
}

impl Template {
    pub const ALL: [Template; 5] = [
        Template::Patrol,
        Template::ConversationPair,
        Template::SellerAndBuyer,
        Template::PlanDriven,
        Template::TalkingCharacter,
    ];

    /// The menu's words.
    pub fn title(self) -> &'static str {
        match self {
            Template::Patrol => "Patrol",
            Template::ConversationPair => "Conversation pair",
            Template::SellerAndBuyer => "Seller and buyer",
            Template::PlanDriven => "Plan-driven agent",
            Template::TalkingCharacter => "Character the player talks to",
        }
    }

    /// The menu item's tooltip.
    pub fn hint(self) -> &'static str {
        match self {
            Template::Patrol => {
                "A guard walks between two points and looks around at each: a machine, its two locations and a scene to preview it"
            }
            Template::ConversationPair => {
                "The two halves of one conversation: one asks and yields the turn, the other listens for YourTurn and answers"
            }
            Template::SellerAndBuyer => {
                "A seller waits at a counter and serves each buyer in turn; buyers ask for a conversation: four machines, locations and a scene"
            }
            Template::PlanDriven => {
                "An agent plans how to reach a goal and carries the plan out: a domain of actions, each run by its own machine, a problem, the agent's machine, locations and a scene"
            }
            Template::TalkingCharacter => {
                "A character who answers what the player types (in the Preview, type a line as the player): a chat scene, HMM spaces for a greeting, a question, a farewell and anything else, their evidence and the lines they say"
            }
        }
    }

    /// The files, relative path stem and text, for the name `n`.
    fn files(self, n: &str) -> Vec<(AssetKind, String, String)> {
        let fill = |text: &str| text.replace("{N}", n);
        let machine = |stem: &str, text: &str| (AssetKind::Machine, fill(stem), fill(text));
        match self {
            Template::Patrol => vec![
                machine("{N}", PATROL),
                (AssetKind::Locations, fill("{N}"), fill(PATROL_PLACES)),
                (AssetKind::Scene, fill("{N}Demo"), fill(PATROL_SCENE)),
            ],
            Template::ConversationPair => {
                vec![machine("{N}Ask", ASK), machine("{N}Answer", ANSWER)]
            }
            Template::SellerAndBuyer => vec![
                machine("{N}Seller", SELLER),
                machine("{N}Sell", SELL),
                machine("{N}Buyer", BUYER),
                machine("{N}Buy", BUY),
                (AssetKind::Locations, fill("{N}"), fill(SHOP_PLACES)),
                (AssetKind::Scene, fill("{N}Demo"), fill(SHOP_SCENE)),
            ],
            Template::PlanDriven => vec![
                machine("{N}Agent", PLANNER),
                (AssetKind::Domain, fill("{N}"), fill(PLAN_DOMAIN)),
                (AssetKind::Problem, fill("{N}Goal"), fill(PLAN_PROBLEM)),
                machine("{N}WalkTo", PLAN_WALK),
                machine("{N}PickUp", PLAN_PICK_UP),
                (AssetKind::Locations, fill("{N}"), fill(PLAN_PLACES)),
                (AssetKind::Scene, fill("{N}Demo"), fill(PLAN_SCENE)),
            ],
            Template::TalkingCharacter => {
                // One reactive space per kind of line: (space, what it hears, its action).
                let spaces = [
                    ("Greeting", "greeting", "halt"),
                    ("Farewell", "farewell", "dismiss"),
                    ("Question", "question", "answer"),
                    ("Unrecognised", "anything", "pardon"),
                ];
                let mut files = vec![
                    (AssetKind::Chat, fill("{N}Chat"), fill(CHAT_SCENE)),
                    (AssetKind::Evidence, fill("{N}"), fill(CHAT_EVIDENCE)),
                    (AssetKind::Actions, fill("{N}"), fill(CHAT_ACTIONS)),
                ];
                files.extend(spaces.iter().map(|(space, hears, action)| {
                    let text = CHAT_SPACE
                        .replace("{S}", space)
                        .replace("{E}", hears)
                        .replace("{A}", action);
                    (
                        AssetKind::Space,
                        fill(&format!("{{N}}{space}")),
                        fill(&text),
                    )
                }));
                files
            }
        }
    }
}

/// Adds `template`'s files named after `name` as one undoable change; returns the first
/// file (a machine, or the talking character's chat scene: what to open) and the change.
pub fn start(
    project: &mut Project,
    template: Template,
    name: &str,
) -> Result<(DocId, Changes), String> {
    check_asset_name(name)?;
    let files = template.files(name);
    let folder = |kind: AssetKind| match kind {
        AssetKind::Machine => "machines",
        AssetKind::Space => "spaces",
        _ => "",
    };
    for (kind, stem, _) in &files {
        if *kind == AssetKind::Machine && project.machine_doc(stem).is_some() {
            return Err(format!("there is a machine called {stem} already"));
        }
        // The names inside the files are the files': a taken file or name means a clash.
        let wanted = format!("{stem}{}", kind.suffix());
        if !project
            .free_path(folder(*kind), stem, *kind)
            .ends_with(&wanted)
            || project.name_taken(*kind, stem)
        {
            return Err(format!(
                "there is a {wanted} (or something named {stem}) already"
            ));
        }
    }
    let mut changes = Vec::new();
    let mut first = None;
    for (kind, stem, text) in files {
        let path = project.free_path(folder(kind), &stem, kind);
        let state = DocState::from_text(&path, FileKind::Asset(kind), text, Layout::default());
        let mut before = state.clone();
        before.deleted = true;
        let id = project.add(FileKind::Asset(kind), state);
        first.get_or_insert(id);
        changes.push((id, before));
    }
    Ok((first.expect("every template has a file"), changes))
}

const PATROL: &str = r#"// A patrol: walk to {N}A, look around, walk to {N}B, look around, and again. The loop
// back to Goto1 is what keeps it going; add points by adding Goto/Wait pairs.
Machine(
    name: "{N}",
    states: [
        (name: "Start", on: [("Empty", "Goto1")]),
        (name: "Goto1", modifier: "{N}A", on: [("ReachedLocation", "Wait1")]),
        (name: "Wait1", modifier: 2.0, on: [("Done", "Goto2")]),
        (name: "Goto2", modifier: "{N}B", on: [("ReachedLocation", "Wait2")]),
        (name: "Wait2", modifier: 2.0, on: [("Done", "Goto1")]),
    ],
)
"#;

const PATROL_PLACES: &str = r#"// The two ends of the {N} patrol, in metres.
Locations(
    locations: [
        (name: "{N}A", x: 0.0, y: 0.0),
        (name: "{N}B", x: 10.0, y: 0.0),
    ],
)
"#;

const PATROL_SCENE: &str = r#"// One guard on the {N} patrol: run it in the Preview.
Scene(
    name: "{N}Demo",
    tick_rate: 30,
    agents: [
        (name: "guard", machine: "{N}", at: "{N}A"),
    ],
)
"#;

const ASK: &str = r#"// The side that speaks first: it asks, yields the turn (WaitForResponse), and thanks.
// Host it in a TalkStateMachine state (modifier: "{N}Ask") once a conversation is coupled.
Machine(
    name: "{N}Ask",
    states: [
        (name: "Start", on: [("Empty", "Ask")]),
        (name: "Ask", code: "Say", modifier: "Can I ask you something?", on: [("WaitForResponse", "Thanks")]),
        (name: "Thanks", code: "OneOff", modifier: "Thanks.|Thank you.", on: [("FinishStatement", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const ANSWER: &str = r#"// The side that listens: Listen waits for the partner's YourTurn message, then it answers and
// yields the turn back.
Machine(
    name: "{N}Answer",
    states: [
        (name: "Start", on: [("Empty", "Listen")]),
        (name: "Listen", on: [("YourTurn", "Answer")]),
        (name: "Answer", code: "Say", modifier: "Of course.", on: [("WaitForResponse", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const SELLER: &str = r#"// The seller walks to the counter, waits for a buyer, runs the {N}Sell conversation, wraps up,
// and goes back to serve the next buyer (the loop to Goto1).
Machine(
    name: "{N}Seller",
    states: [
        (name: "Start", on: [("Empty", "Goto1")]),
        (name: "Goto1", modifier: "{N}Counter", on: [("ReachedLocation", "WaitForConversation")]),
        (name: "WaitForConversation", on: [("ConversationCoupled", "TalkStateMachine")]),
        (name: "TalkStateMachine", modifier: "{N}Sell", on: [("EndStateMachine", "FinishTalkState")]),
        (name: "FinishTalkState", on: [("FinishTalk", "Goto1")]),
    ],
)
"#;

const SELL: &str = r#"// The seller's half of the sale: listen until the buyer yields the turn, offer, hand over.
Machine(
    name: "{N}Sell",
    states: [
        (name: "Start", on: [("Empty", "Listen")]),
        (name: "Listen", on: [("YourTurn", "Offer")]),
        (name: "Offer", code: "Say", modifier: "What can I get you?", on: [("WaitForResponse", "HandOver")]),
        (name: "HandOver", code: "OneOff", modifier: "Here you are.|There you go.", on: [("WaitForResponse", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const BUYER: &str = r#"// A buyer walks up to the counter, asks the seller for a conversation (again every second
// while the seller is busy), buys, and leaves.
Machine(
    name: "{N}Buyer",
    states: [
        (name: "Start", on: [("Empty", "Goto1")]),
        (name: "Goto1", modifier: "{N}CounterFront", on: [("ReachedLocation", "RequestConversation")]),
        (name: "RequestConversation", modifier: "seller", on: [("ConversationCoupled", "TalkStateMachine")]),
        (name: "TalkStateMachine", modifier: "{N}Buy", on: [("EndStateMachine", "Goto2")]),
        (name: "Goto2", modifier: "{N}Exit", on: [("ReachedLocation", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const BUY: &str = r#"// The buyer's half of the sale: greet, ask, and thank once served.
Machine(
    name: "{N}Buy",
    states: [
        (name: "Start", on: [("Empty", "Salutation")]),
        (name: "Salutation", on: [("FinishStatement", "Ask")]),
        (name: "Ask", code: "Say", modifier: "One, please.", on: [("WaitForResponse", "Order")]),
        (name: "Order", code: "Say", modifier: "The usual.", on: [("WaitForResponse", "Thanks")]),
        (name: "Thanks", code: "OneOff", modifier: "Thanks.", on: [("FinishStatement", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const SHOP_PLACES: &str = r#"// The {N} shop, in metres.
Locations(
    locations: [
        (name: "{N}Counter", x: 0.0, y: 1.0),
        (name: "{N}CounterFront", x: 0.0, y: -1.0),
        (name: "{N}SellerSpawn", x: 0.0, y: 5.0),
        (name: "{N}Entrance", x: -8.0, y: -6.0),
        (name: "{N}Exit", x: 8.0, y: -6.0),
    ],
)
"#;

const SHOP_SCENE: &str = r#"// One seller, two buyers served in turn: run it in the Preview.
Scene(
    name: "{N}Demo",
    tick_rate: 30,
    agents: [
        (name: "seller", machine: "{N}Seller", at: "{N}SellerSpawn"),
        (name: "buyer1", machine: "{N}Buyer", at: "{N}Entrance"),
        (name: "buyer2", machine: "{N}Buyer", at: "{N}Entrance"),
    ],
)
"#;

const PLANNER: &str = r#"// A plan-driven agent: the Plan state asks the planner how to reach {N}Goal's goal from what
// the agent knows, then runs each action of the plan with that action's machine. Add actions
// to the {N} domain and the plan changes without touching this machine.
Machine(
    name: "{N}Agent",
    states: [
        (name: "Start", on: [("Empty", "Plan")]),
        (name: "Plan", modifier: "{N}Goal", on: [("PlanSucceeded", "Pleased"), ("PlanFailed", "Puzzled")]),
        (name: "Pleased", code: "Say", modifier: "Got it.", on: [("FinishStatement", "Finish")]),
        (name: "Puzzled", code: "Say", modifier: "I cannot see how to get it.", on: [("FinishStatement", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const PLAN_DOMAIN: &str = r#"// What the {N} agent can do: each action's preconditions (pre) and effects (add, del), and the
// machine that performs it. The planner chains actions whose effects meet the next one's
// preconditions.
Domain(
    name: "{N}",
    types: {"agent": "object", "item": "object"},
    predicates: ["atShelf(agent)", "onShelf(item)", "has(agent, item)"],
    actions: [
        (name: "WalkTo", parameters: [("Who", "agent")], actor: "Who", pre: ["not atShelf(Who)"], add: ["atShelf(Who)"], machine: "{N}WalkTo"),
        (name: "PickUp", parameters: [("Who", "agent"), ("I", "item")], actor: "Who", pre: ["atShelf(Who), onShelf(I)"], add: ["has(Who, I)"], del: ["onShelf(I)"], machine: "{N}PickUp"),
    ],
)
"#;

const PLAN_PROBLEM: &str = r#"// The {N} agent wants the box: what is true at the start (init) and what must become true
// (goal). The planner finds WalkTo, then PickUp.
Problem(
    name: "{N}Goal",
    domain: "{N}",
    objects: {"me": "agent", "box": "item"},
    init: ["onShelf(box)"],
    goal: ["has(me, box)"],
    actor: "me",
)
"#;

const PLAN_WALK: &str = r#"// The WalkTo action of the {N} domain: walk to the shelf.
Machine(
    name: "{N}WalkTo",
    states: [
        (name: "Start", on: [("Empty", "Goto1")]),
        (name: "Goto1", modifier: "{N}Shelf", on: [("ReachedLocation", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const PLAN_PICK_UP: &str = r#"// The PickUp action of the {N} domain: reach for the box.
Machine(
    name: "{N}PickUp",
    states: [
        (name: "Start", on: [("Empty", "Reach")]),
        (name: "Reach", code: "Say", modifier: "This one.", on: [("FinishStatement", "Wait1")]),
        (name: "Wait1", modifier: 1.0, on: [("Done", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

const PLAN_PLACES: &str = r#"// Where the {N} agent starts and the shelf it walks to, in metres.
Locations(
    locations: [
        (name: "{N}Start", x: 0.0, y: 0.0),
        (name: "{N}Shelf", x: 6.0, y: 2.0),
    ],
)
"#;

const PLAN_SCENE: &str = r#"// The {N} agent plans and fetches the box: run it in the Preview.
Scene(
    name: "{N}Demo",
    tick_rate: 10,
    agents: [
        (name: "me", machine: "{N}Agent", at: "{N}Start"),
    ],
)
"#;

const CHAT_SCENE: &str = r#"// Talk to {N}: open the Preview and type a line as the player (or
// `ensemble run . --scene {N}Chat --input lines.txt`, a line per turn).
Chat(
    name: "{N}Chat",
    agent: "{N}",
    player: "Player",
    // Iterations a second: each one {N} hears a line (or silence) and may answer.
    tick_rate: 1,
    // The accumulator whose winner {N} says: the root of the arbitration in {N}.actions.ron.
    output: "{N}-respond",
)
"#;

const CHAT_EVIDENCE: &str = r#"// What {N} notices in what the player says (evidence estimators, Zubek §5.2.3): patterns over
// the words (`|` between alternatives, `*` skips words, `^` is the start of the line) and what
// {N} has just said. Add a pattern, and {N} understands a new way of saying it.
Evidence(
    estimators: [
        (name: "{N}-player", is: Speaker(Player)),
        (name: "{N}-spoke", is: Speaker(Agent)),
        (name: "{N}-hears-greeting", is: And([Ev("{N}-player"), Max([Match("^ hello|hi|hey|greetings|hail|evening|morning|ho", 1.0), Match("good evening|morning|day|afternoon", 1.0)])])),
        (name: "{N}-hears-farewell", is: And([Ev("{N}-player"), Match("bye|goodbye|farewell|later|goodnight", 1.0)])),
        (name: "{N}-hears-question", is: And([Ev("{N}-player"), Max([Match("?", 1.0), Match("^ where|what|who|how|why|when|can|may|is|are|do", 1.0)])])),
        (name: "{N}-hears-anything", is: Ev("{N}-player")),
        // {N} hearing itself: a handler rests once its line is said, and lets go when {N}
        // says something else.
        (name: "{N}-did-halt", is: Did("{N}-halt")),
        (name: "{N}-did-answer", is: Did("{N}-answer")),
        (name: "{N}-did-dismiss", is: Did("{N}-dismiss")),
        (name: "{N}-did-pardon", is: Did("{N}-pardon")),
        (name: "{N}-other-than-halt", is: And([Ev("{N}-spoke"), Not(Ev("{N}-did-halt"))])),
        (name: "{N}-other-than-answer", is: And([Ev("{N}-spoke"), Not(Ev("{N}-did-answer"))])),
        (name: "{N}-other-than-dismiss", is: And([Ev("{N}-spoke"), Not(Ev("{N}-did-dismiss"))])),
        (name: "{N}-other-than-pardon", is: And([Ev("{N}-spoke"), Not(Ev("{N}-did-pardon"))])),
    ],
)
"#;

const CHAT_ACTIONS: &str = r#"// What {N} can say (one of the wordings, chosen each time), and the arbitration that picks
// one handler's proposal a turn: the first input of `{N}-respond` that proposes wins.
Actions(
    templates: [],
    actions: [
        (name: "{N}-halt", say: ["Halt! Who goes there?", "Stop right there, traveller. State your business."]),
        (name: "{N}-answer", say: ["The town is through the gate. Keep to the road.", "Ask at the inn, I only keep the gate."]),
        (name: "{N}-dismiss", say: ["Move along, then.", "Safe travels."]),
        (name: "{N}-pardon", say: ["What's that? Speak up.", "Hm? Say that again."]),
    ],
    accumulators: [
        (name: "{N}-respond", rule: First, inputs: ["{N}Greeting", "{N}Farewell", "{N}Question", "{N}Unrecognised"]),
    ],
)
"#;

const CHAT_SPACE: &str = r#"// A handler (Zubek's reactive space): idle until the player's line is a {E}, then it
// proposes `{N}-{A}`; once {N} has said it, it rests, and lets go when {N} says something else.
Space(
    name: "{N}{S}",
    initial: "idle",
    states: [
        (name: "idle", expects: ["{N}-other-than-{A}"], to: [("idle", 0.5), ("heard", 0.5)]),
        (name: "heard", expects: ["{N}-hears-{E}"], action: "{N}-{A}", to: [("heard", 0.1), ("replied", 0.6), ("idle", 0.3)]),
        (name: "replied", expects: ["{N}-did-{A}"], to: [("replied", 0.5), ("heard", 0.5)]),
    ],
)
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every template, added to a new project and saved, compiles with no diagnostic at all.
    #[test]
    fn every_template_compiles_clean_in_a_new_project() {
        for template in Template::ALL {
            let dir = tempfile::tempdir().unwrap();
            let mut project = Project::create(dir.path(), "starter").unwrap();
            let (first, changes) = start(&mut project, template, "Demo").unwrap();
            let opens = &project.docs[first].state;
            assert!(
                opens.machine().is_some()
                    || (template == Template::TalkingCharacter
                        && opens.path.ends_with(".chat.ron")),
                "{template:?}"
            );
            assert!(changes.len() >= 2, "{template:?}");
            // Twice: every name is taken the second time.
            assert!(start(&mut project, template, "Demo").is_err());
            project.save().unwrap();
            let c = ensemble_compiler::compile_path(dir.path()).unwrap();
            let shown: Vec<String> = c
                .diagnostics
                .iter()
                .map(|d| format!("{}: {}", d.code.as_str(), d.message))
                .collect();
            assert!(shown.is_empty(), "{template:?}: {shown:#?}");
            assert!(c.output.is_some(), "{template:?}");
        }
    }

    /// `template` added as `name` to a new project, saved, and `ensemble run` on it with
    /// `args` after the project: the trace, or the test fails with what it printed.
    fn run_started(template: Template, name: &str, args: &[&str], lines: &str) -> String {
        let dir = tempfile::tempdir().unwrap();
        let mut project = Project::create(dir.path(), "starter").unwrap();
        start(&mut project, template, name).unwrap();
        project.save().unwrap();
        let input = dir.path().join("lines.txt");
        std::fs::write(&input, lines).unwrap();
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mut io = ensemble_cli::Io {
            out: &mut out,
            err: &mut err,
            color: false,
        };
        let path = dir.path().to_string_lossy().into_owned();
        let input = input.to_string_lossy().into_owned();
        let mut all = vec!["ensemble", "run", &path];
        all.extend(
            args.iter()
                .map(|a| if *a == "LINES" { input.as_str() } else { a }),
        );
        let code = ensemble_cli::run(all, &mut io);
        let trace = String::from_utf8_lossy(&out).into_owned();
        assert_eq!(code, 0, "{trace}{}", String::from_utf8_lossy(&err));
        trace
    }

    /// The plan-driven agent's demo scene plans, carries out both actions with their machines,
    /// and ends pleased.
    #[test]
    fn the_plan_driven_agent_plans_and_carries_the_plan_out() {
        let args = ["--scene", "FetchDemo", "--ticks", "300"];
        let trace = run_started(Template::PlanDriven, "Fetch", &args, "");
        for line in [
            "plans FetchGoal: WalkTo(me), PickUp(me, box)",
            "done WalkTo(me)",
            "done PickUp(me, box)",
            "enter FetchAgent/Pleased",
        ] {
            assert!(trace.contains(line), "{line} not in\n{trace}");
        }
    }

    /// The character answers a greeting, a question, anything else and a goodbye, each with
    /// its own handler, as the Preview's player would type them.
    #[test]
    fn the_talking_character_answers_the_player() {
        let args = ["--scene", "GuardChat", "--input", "LINES"];
        let lines = "hello there\nwhere is the town?\nblah blah\nbye\n";
        let trace = run_started(Template::TalkingCharacter, "Guard", &args, lines);
        let said: Vec<&str> = trace
            .lines()
            .filter_map(|l| l.split_once("Guard says: ").map(|(_, s)| s))
            .collect();
        assert_eq!(said.len(), 4, "{trace}");
        let begins = |line: &str, with: &[&str]| with.iter().any(|w| line.starts_with(w));
        assert!(begins(said[0], &["Halt!", "Stop right there"]), "{trace}");
        assert!(
            begins(said[1], &["The town is", "Ask at the inn"]),
            "{trace}"
        );
        assert!(begins(said[2], &["What's that?", "Hm?"]), "{trace}");
        assert!(begins(said[3], &["Move along", "Safe travels"]), "{trace}");
    }
}
