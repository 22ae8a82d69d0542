//! The declarations are the library: every declared state has code, nothing else is
//! registered, and names are unique.

use super::*;
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
