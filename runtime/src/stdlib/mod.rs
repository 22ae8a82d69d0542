//! The standard library: the states every project may use (`Goto`, `Say`, `Dialog`, `Plan`, …),
//! declared once here as data ([`DECLARATIONS`]) and implemented against the game-side seam
//! ([`crate::world::World`]), so they run in any world a game supplies.
//!
//! The compiler's built-in library `sim` reads [`DECLARATIONS`], and its checks and the editor's
//! pickers take the standard states' names from the constants here, so what the compiler
//! checks, what the editor offers and what the runtime links cannot drift apart.
//!
//! ```
//! use ensemble_runtime::stdlib::{self, DECLARATIONS};
//! let goto = stdlib::declaration(stdlib::GOTO).unwrap();
//! assert!(goto.raises.unwrap().contains(&"ReachedLocation"));
//! assert_eq!(DECLARATIONS.len(), stdlib::declarations().len());
//! ```

pub mod planning;
mod states;

pub use planning::{PLAN_FAILED, PLAN_SUCCEEDED, PlanningWorld, fire_world_events};

use crate::hsm::{AgentId, LibraryDecl, StateLibrary, StateSpec};
use crate::program::{ModifierKind, Program, SceneId, Terminal};
use crate::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
use crate::world::World;

/// `Start`: the entry state.
pub const START: &str = "Start";
/// `Finish`: ends its machine.
pub const FINISH: &str = "Finish";
/// `Fail`: ends its machine in failure.
pub const FAIL: &str = "Fail";
/// `Goto`: walks to a location.
pub const GOTO: &str = "Goto";
/// `Wait`: waits some seconds.
pub const WAIT: &str = "Wait";
/// `WaitForConversation`: accepts a conversation request.
pub const WAIT_FOR_CONVERSATION: &str = "WaitForConversation";
/// `RequestConversation`: asks an agent for a conversation.
pub const REQUEST_CONVERSATION: &str = "RequestConversation";
/// `TalkStateMachine`: hosts a conversation machine.
pub const TALK_STATE_MACHINE: &str = "TalkStateMachine";
/// `Say`: says its text.
pub const SAY: &str = "Say";
/// `Salutation`: says a canned greeting.
pub const SALUTATION: &str = "Salutation";
/// What a `Salutation` state says: one of these, drawn from the agent's stream (the compiler
/// gives each a line id, per state, so a locale can translate them).
pub const SALUTATION_LINES: &[&str] = &["Hi.", "Hello."];
/// `OneOff`: says one of its canned lines.
pub const ONE_OFF: &str = "OneOff";
/// `Dialog`: speaks a sentence state.
pub const DIALOG: &str = "Dialog";
/// `Set`: binds a variable.
pub const SET: &str = "Set";
/// `Transaction`: gives or takes a variable inside a conversation.
pub const TRANSACTION: &str = "Transaction";
/// `Has`: branches on a variable.
pub const HAS: &str = "Has";
/// `Listen`: waits for a message.
pub const LISTEN: &str = "Listen";
/// `Plan`: plans for a planning problem and carries the plan out.
pub const PLAN: &str = "Plan";
/// `FinishTalkState`: post-conversation wrap-up.
pub const FINISH_TALK_STATE: &str = "FinishTalkState";

/// One standard state as the compiler and the editor see it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Declaration {
    /// Its name, as states in sources use it.
    pub name: &'static str,
    /// The kind of its modifier.
    pub modifier: ModifierKind,
    /// Whether entering it ends its machine.
    pub terminal: Terminal,
    /// The events its code raises; `None`: not declared (its transitions are named after the
    /// messages it takes, as `Listen`'s are).
    pub raises: Option<&'static [&'static str]>,
    /// One paragraph for the editor's picker and the reference.
    pub doc: &'static str,
}

impl Declaration {
    /// The declaration as a library entry ([`StateLibrary::register`] takes it).
    pub fn spec(&self) -> StateSpec {
        let spec = StateSpec::new(self.modifier)
            .terminal(self.terminal)
            .doc(self.doc);
        match self.raises {
            Some(events) => spec.raises(events.iter().copied()),
            None => spec,
        }
    }
}

const fn decl(
    name: &'static str,
    modifier: ModifierKind,
    terminal: Terminal,
    raises: Option<&'static [&'static str]>,
    doc: &'static str,
) -> Declaration {
    Declaration {
        name,
        modifier,
        terminal,
        raises,
        doc,
    }
}

/// Every standard state, in the order the library registers them.
pub const DECLARATIONS: &[Declaration] = {
    use ModifierKind as M;
    use Terminal::{End, Failure, No};
    const SPEAKS: Option<&[&str]> = Some(&["FinishStatement", "WaitForResponse"]);
    &[
        decl(
            START,
            M::None,
            No,
            Some(&["Empty"]),
            "Entry state: raises Empty at once.",
        ),
        decl(
            FINISH,
            M::None,
            End,
            Some(&[]),
            "Ends the machine; its host receives EndStateMachine.",
        ),
        decl(
            FAIL,
            M::None,
            Failure,
            Some(&[]),
            "Ends the machine in failure; its host receives StateMachineFailed.",
        ),
        decl(
            GOTO,
            M::Location,
            No,
            Some(&["ReachedLocation", "NoPath"]),
            "Walks to the location (along the navigation graph's PPA* path when the project has one, else straight); raises ReachedLocation on arrival, NoPath when the graph has no way there (it waits, and walks on if a door opens).",
        ),
        decl(
            WAIT,
            M::Number,
            No,
            Some(&["Done"]),
            "Waits the given number of seconds; raises Done.",
        ),
        decl(
            WAIT_FOR_CONVERSATION,
            M::None,
            No,
            Some(&["ConversationCoupled"]),
            "Accepts the first RequestConversation message; raises ConversationCoupled.",
        ),
        decl(
            REQUEST_CONVERSATION,
            M::Agent,
            No,
            Some(&["ConversationCoupled"]),
            "Asks the agent for a conversation every second until it accepts; raises ConversationCoupled.",
        ),
        decl(
            TALK_STATE_MACHINE,
            M::Machine,
            No,
            Some(&["EndStateMachine", "StateMachineFailed"]),
            "Hosts a conversation machine: passes turns to the partner and ends when either side finishes.",
        ),
        decl(
            SAY,
            M::Text,
            No,
            SPEAKS,
            "Says the text. Then raises FinishStatement if the state has that transition; otherwise yields the turn and raises WaitForResponse when the partner has answered.",
        ),
        decl(
            SALUTATION,
            M::None,
            No,
            SPEAKS,
            "One-off state: says a canned greeting (\"Hi.\" or \"Hello.\"), then behaves like Say.",
        ),
        decl(
            ONE_OFF,
            M::Text,
            No,
            SPEAKS,
            "One-off state: says one of the canned lines of its modifier, separated by `|` (\"OK.|Sure.\"), chosen by the seeded stream; then behaves like Say.",
        ),
        decl(
            DIALOG,
            M::Text,
            No,
            SPEAKS,
            "Dialog state: speaks the sentence state its modifier names, choosing among its best candidates by weight and filling its VARIABLE slots from the agent's variables (then the partner's); then behaves like Say.",
        ),
        decl(
            SET,
            M::Text,
            No,
            Some(&["Done"]),
            "Binds one of the agent's variables, written `Name = value` (\"CityName = Boston\"); raises Done.",
        ),
        decl(
            TRANSACTION,
            M::Text,
            No,
            Some(&["Done", "Failed"]),
            "Special state: a side effect inside the conversation. `give Name = value` gives the partner a variable (`{Slot}`s filled like a dialog state's), `give Name` moves the agent's own to the partner, `take Name` moves the partner's to the agent; each change is an add/del trace event. Raises Done, or Failed when the value to move is missing; does nothing once the partner has left.",
        ),
        decl(
            HAS,
            M::Text,
            No,
            Some(&["Yes", "No"]),
            "Raises Yes if the agent has the variable its modifier names (from the scene, a Set or a transaction), else No.",
        ),
        decl(
            LISTEN,
            M::None,
            No,
            None,
            "Waits for a message; its transitions are named after the messages it listens for.",
        ),
        decl(
            PLAN,
            M::Text,
            No,
            Some(&[PLAN_SUCCEEDED, PLAN_FAILED]),
            "Plans for the planning problem its modifier names, from what the agent believes; runs each action through the machine the action names; replans when that machine fails or the world is not as expected. Raises PlanSucceeded when the goal holds, PlanFailed when no plan reaches it.",
        ),
        decl(
            FINISH_TALK_STATE,
            M::None,
            No,
            Some(&["FinishTalk"]),
            "Post-conversation wrap-up for 1.5 to 2.5 s; raises FinishTalk.",
        ),
    ]
};

/// The declaration of standard state `name`, if there is one.
pub fn declaration(name: &str) -> Option<&'static Declaration> {
    DECLARATIONS.iter().find(|d| d.name == name)
}

/// The declarations as library entries (what the compiler checks machines against).
pub fn declarations() -> Vec<LibraryDecl> {
    DECLARATIONS
        .iter()
        .map(|d| LibraryDecl {
            name: d.name.to_string(),
            spec: d.spec(),
        })
        .collect()
}

/// The standard library for world `W`, ready to link. A game registers its own states into the
/// same library (or replaces standard ones by registering under their names).
pub fn library<W: World + 'static>() -> StateLibrary<W> {
    let mut lib = StateLibrary::new();
    states::register(&mut lib);
    lib
}

/// What the standard library keeps per scene besides the game's world: who talks with whom,
/// and each planning agent's world. A game keeps one in its [`World`] and hands it out through
/// [`World::standard`].
#[derive(Clone, Debug, Default)]
pub struct StandardState {
    partners: Vec<Option<AgentId>>,
    /// Agents whose `TalkStateMachine` host is active. Talking without a partner means the
    /// partner has left: the conversation is over and its remaining states stay silent.
    talking: Vec<bool>,
    /// Planning agents' worlds and the scene's world events (the `Plan` state).
    pub planning: PlanningWorld,
}

impl StandardState {
    /// The state of a scene as it starts: nobody talking, the scene's world events to come.
    pub fn for_scene(program: &Program, scene: SceneId) -> Self {
        StandardState {
            planning: PlanningWorld::for_scene(program, scene),
            ..StandardState::default()
        }
    }

    /// Each agent's conversation partner, by agent index (agents past the end have none).
    pub fn partners(&self) -> &[Option<AgentId>] {
        &self.partners
    }

    /// Whether each agent's conversation host is active, by agent index.
    pub fn talking(&self) -> &[bool] {
        &self.talking
    }

    /// Whom `agent` is in a conversation with.
    pub fn partner(&self, agent: AgentId) -> Option<AgentId> {
        self.partners.get(agent.index()).copied().flatten()
    }

    /// Couples `agent` with `partner` (or uncouples it).
    pub fn set_partner(&mut self, agent: AgentId, partner: Option<AgentId>) {
        let i = agent.index();
        if i >= self.partners.len() {
            self.partners.resize(i + 1, None);
        }
        self.partners[i] = partner;
    }

    /// Marks `agent`'s conversation host active or not.
    pub fn set_talking(&mut self, agent: AgentId, on: bool) {
        let i = agent.index();
        if i >= self.talking.len() {
            self.talking.resize(i + 1, false);
        }
        self.talking[i] = on;
    }

    /// True when the agent runs a conversation whose partner has left (or never came): what is
    /// left of its conversation machine does not speak or trade, and its host ends it.
    pub fn conversation_over(&self, agent: AgentId) -> bool {
        self.talking.get(agent.index()).copied().unwrap_or(false) && self.partner(agent).is_none()
    }
}

/// The section the standard library's conversations save into (who talks with whom).
pub const STANDARD_SECTION: &str = "stdlib";
/// The section of the planning agents' worlds and the scene's world events: restored onto the
/// very build it was taken from; a rebuilt program starts them afresh (reported).
pub const PLANNING_SECTION: &str = "stdlib.planning";

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedConversations {
    partners: Vec<Option<AgentId>>,
    talking: Vec<bool>,
}

impl StandardState {
    /// Saves who talks with whom ([`STANDARD_SECTION`]) and the planning worlds
    /// ([`PLANNING_SECTION`]). A game saves its [`World::standard`] with its own sections.
    pub fn save(&self, snapshot: &mut SnapshotWriter) {
        snapshot.put(
            STANDARD_SECTION,
            &SavedConversations {
                partners: self.partners.clone(),
                talking: self.talking.clone(),
            },
        );
        snapshot.put(PLANNING_SECTION, &self.planning.to_saved());
    }

    /// The state [`StandardState::save`] left in `snapshot`, for `scene` under `program`.
    /// Restore it into the world before the scene (`Scene::restore`): a `Plan` state entered
    /// afresh there plans in it. Onto a rebuilt program the planning worlds start afresh and the
    /// note returned says so. Once the scene is restored, [`StandardState::check_agents`] checks
    /// the conversations against its agents.
    pub fn restore(
        program: &Program,
        scene: SceneId,
        snapshot: &SnapshotReader,
    ) -> Result<(StandardState, Option<String>), SnapshotError> {
        let saved: SavedConversations = snapshot.get(STANDARD_SECTION)?;
        let mut state = StandardState {
            partners: saved.partners,
            talking: saved.talking,
            planning: PlanningWorld::for_scene(program, scene),
        };
        let planning: planning::SavedPlanningWorld = snapshot.get(PLANNING_SECTION)?;
        if program.checksum() != snapshot.program().checksum {
            let note = (!program.planning.problems.is_empty()).then(|| {
                "the planning agents' worlds start afresh: the program was rebuilt since the snapshot"
                    .to_string()
            });
            return Ok((state, note));
        }
        state.planning = PlanningWorld::from_saved(program, planning).map_err(|message| {
            SnapshotError::BadSection {
                section: PLANNING_SECTION.to_string(),
                message,
            }
        })?;
        Ok((state, None))
    }

    /// Refuses a restored state that pairs an agent with one of more than the scene's `agents`.
    pub fn check_agents(&self, agents: usize) -> Result<(), SnapshotError> {
        match self.partners.iter().flatten().find(|p| p.index() >= agents) {
            Some(p) => Err(SnapshotError::BadSection {
                section: STANDARD_SECTION.to_string(),
                message: format!("an agent is paired with agent #{}, of {agents}", p.0),
            }),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
