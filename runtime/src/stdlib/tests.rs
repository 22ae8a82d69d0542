//! The declarations are the library: every declared state has code, nothing else is
//! registered, and names are unique.

use super::*;
use crate::hsm::AgentId;
use crate::program::{Program, SceneId};
use crate::script::ActionOutcome;
use crate::world::{ActionId, ActionRequest, Destination, Line, MoveEvent, WorldCx};
use std::collections::BTreeMap;

/// The core's tests' world: agents stand where they are put, a move arrives on its first
/// poll, an action succeeds on its first poll, a line is said at once. What it was asked to
/// do is kept in `log`.
#[derive(Default)]
pub(crate) struct Stagehand {
    pub at: BTreeMap<AgentId, [f64; 2]>,
    moving: BTreeMap<AgentId, [f64; 2]>,
    actions: Vec<ActionId>,
    variables: BTreeMap<(AgentId, String), String>,
    pub standard: StandardState,
    pub log: Vec<String>,
    /// Every move fails, for this reason.
    pub refuse_moves: Option<String>,
}

impl Stagehand {
    pub fn for_scene(program: &Program, scene: SceneId) -> Self {
        Stagehand {
            standard: StandardState::for_scene(program, scene),
            ..Stagehand::default()
        }
    }
}

impl World for Stagehand {
    fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
        self.at.get(&agent).copied()
    }
    fn place(&mut self, agent: AgentId, at: [f64; 2]) {
        self.at.insert(agent, at);
    }
    fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>) {
        if let Some(p) = to.point(cx.program) {
            self.moving.insert(agent, p);
        }
    }
    fn follow_move(&mut self, agent: AgentId, _cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
        if let Some(why) = &self.refuse_moves {
            return Some(MoveEvent::Failed(why.clone()));
        }
        let p = self.moving.remove(&agent)?;
        self.at.insert(agent, p);
        Some(MoveEvent::Arrived)
    }
    fn stop_move(&mut self, agent: AgentId) {
        self.moving.remove(&agent);
    }
    fn start_action(&mut self, request: &ActionRequest<'_>, _cx: &mut WorldCx<'_>) {
        self.log
            .push(format!("{:?} {}", request.agent, request.action));
        self.actions.push(request.id);
    }
    fn action_outcome(&mut self, id: ActionId, _cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
        let i = self.actions.iter().position(|a| *a == id)?;
        self.actions.remove(i);
        Some(ActionOutcome::Succeeded)
    }
    fn cancel_action(&mut self, id: ActionId) {
        self.actions.retain(|a| *a != id);
    }
    fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        self.variables
            .get(&(agent, name.to_string()))
            .map(String::as_str)
    }
    fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        self.variables
            .insert((agent, name.to_string()), value.to_string());
    }
    fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        self.variables.remove(&(agent, name.to_string()))
    }
    fn say(&mut self, agent: AgentId, line: &Line<'_>, _cx: &mut WorldCx<'_>) {
        self.log.push(format!("{agent:?} says {}", line.text));
    }
    fn still_speaking(&mut self, _agent: AgentId, _cx: &mut WorldCx<'_>) -> bool {
        false
    }
    fn standard(&self) -> &StandardState {
        &self.standard
    }
    fn standard_mut(&mut self) -> &mut StandardState {
        &mut self.standard
    }
}

#[test]
fn every_declared_state_is_registered_with_its_declaration() {
    let lib = library::<Stagehand>();
    let registered = lib.declarations();
    assert_eq!(registered.len(), DECLARATIONS.len());
    for (r, d) in registered.iter().zip(DECLARATIONS) {
        assert_eq!(r.name, d.name);
        assert_eq!(r.spec, d.spec(), "{}", d.name);
    }
}

#[test]
fn standard_state_names_are_unique_and_documented() {
    for (i, d) in DECLARATIONS.iter().enumerate() {
        assert!(
            DECLARATIONS[..i].iter().all(|e| e.name != d.name),
            "{} declared twice",
            d.name
        );
        assert!(!d.doc.is_empty(), "{} has no doc", d.name);
        assert_eq!(declaration(d.name), Some(d));
    }
    assert_eq!(declaration("Dance"), None);
}

#[test]
fn a_conversation_is_over_once_the_partner_has_left() {
    let mut s = StandardState::default();
    let (a, b) = (AgentId(0), AgentId(3));
    assert!(!s.conversation_over(a));
    s.set_talking(a, true);
    assert!(s.conversation_over(a), "talking with nobody");
    s.set_partner(a, Some(b));
    assert!(!s.conversation_over(a));
    assert_eq!(s.partner(a), Some(b));
    assert_eq!(s.partner(b), None);
    s.set_partner(a, None);
    assert!(s.conversation_over(a));
}

/// One agent at `home` whose machine walks to `far`: Start -Empty-> Goto(far), which goes to
/// Finish on ReachedLocation and to Fail on NoPath.
fn walker() -> std::sync::Arc<Program> {
    use crate::program::*;
    let names: Vec<String> = [
        START,
        GOTO,
        FINISH,
        FAIL,
        "Empty",
        "ReachedLocation",
        "NoPath",
        "Walk",
        "home",
        "far",
        "walk",
        "walker",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let id = |s: &str| NameId(names.iter().position(|n| n == s).unwrap() as u32);
    let library = [START, GOTO, FINISH, FAIL]
        .iter()
        .map(|name| {
            let d = declaration(name).unwrap();
            LibraryState {
                name: id(name),
                modifier: d.modifier,
                terminal: d.terminal,
            }
        })
        .collect();
    let state = |name: &str, code: u32, modifier, first, count| StateDef {
        name: id(name),
        machine: MachineId(0),
        code: LibraryId(code),
        modifier,
        first_transition: first,
        transition_count: count,
    };
    let states = vec![
        state(START, 0, Modifier::None, 0, 1),
        state(GOTO, 1, Modifier::Location(LocationId(1)), 1, 2),
        state(FINISH, 2, Modifier::None, 3, 0),
        state(FAIL, 3, Modifier::None, 3, 0),
    ];
    let on = |event: &str, target: u32| TransitionDef {
        event: id(event),
        target: StateId(target),
    };
    let transitions = vec![on("Empty", 1), on("ReachedLocation", 2), on("NoPath", 3)];
    let machines = vec![MachineDef {
        name: id("Walk"),
        initial: StateId(0),
        first_state: 0,
        state_count: 4,
    }];
    let at = |name: &str, x: f64| LocationDef {
        name: id(name),
        x,
        y: 0.0,
    };
    let scenes = vec![SceneDef {
        name: id("walk"),
        tick_rate: 10,
        agents: vec![AgentDef {
            name: id("walker"),
            machine: MachineId(0),
            start: LocationId(0),
        }],
        ambient: vec![],
    }];
    let locations = vec![at("home", 0.0), at("far", 9.0)];
    let program = Program::new(
        names,
        library,
        machines,
        states,
        transitions,
        locations,
        scenes,
    );
    std::sync::Arc::new(program.unwrap())
}

/// `Goto` asks the world and follows what it answers: an arrival finishes the walk; a move the
/// world gives up on is a `NoPath` to the machine, with the world's reason in the trace.
#[test]
fn goto_follows_what_the_world_answers() {
    use crate::hsm::{AgentStatus, Scene};
    use crate::trace::EventKind;
    let program = walker();
    let run = |refuse: Option<&str>| {
        let mut world = Stagehand::for_scene(&program, SceneId(0));
        world.refuse_moves = refuse.map(str::to_string);
        let mut scene = Scene::new_traced(program.clone(), library(), "walk", world, 7).unwrap();
        scene.tick();
        let errors: Vec<String> = scene
            .take_events()
            .into_iter()
            .filter_map(|e| match e.kind {
                EventKind::Error { message } => Some(message),
                _ => None,
            })
            .collect();
        let status = scene.status(AgentId(0)).clone();
        (status, scene.game.position(AgentId(0)), errors)
    };
    let (status, at, errors) = run(None);
    assert_eq!(status, AgentStatus::Finished);
    assert_eq!(at, Some([9.0, 0.0]));
    assert!(errors.is_empty(), "{errors:?}");
    let (status, _, errors) = run(Some("a cart blocks the door"));
    assert_eq!(status, AgentStatus::Failed);
    assert_eq!(errors, ["Goto: the move failed: a cart blocks the door"]);
}
