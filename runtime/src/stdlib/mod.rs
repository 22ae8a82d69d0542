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

/// The per-scene bookkeeping of the standard library's states lives with the world seam, which
/// hands it out ([`World::standard`]); here for the paths games use.
pub use crate::world::{PLANNING_SECTION, STANDARD_SECTION, StandardState};
pub use planning::{PLAN_FAILED, PLAN_SUCCEEDED, PlanningWorld, fire_world_events};

use crate::hsm::{LibraryDecl, StateLibrary, StateSpec};
use crate::program::{ModifierKind, Terminal};
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

#[cfg(test)]
pub(crate) mod tests;
