//! The game-side seam as C callbacks: a host's world answers the calls the runtime makes
//! (`ensemble_runtime::world::World`). Strings handed to a callback are valid only during it;
//! copy what you keep.

use crate::status::{EnsStatus, Failure, Outcome, c_string};
use ensemble_runtime::hsm::AgentId;
use ensemble_runtime::script::ActionOutcome;
use ensemble_runtime::stdlib::StandardState;
use ensemble_runtime::world::{
    ActionId, ActionRequest, Destination, Line, LineId, MoveEvent, World, WorldCx,
};
use std::ffi::{CStr, CString, c_char, c_void};

/// Where a move goes: a location of the program (its name and point) or a bare point.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnsDestination {
    /// The location's name, or NULL when the move goes to a bare point.
    pub location: *const c_char,
    /// The point in world metres (the location's, for a location).
    pub x: f64,
    /// See `x`.
    pub y: f64,
}

/// What became of a move, answered by `follow_move`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnsMoveEvent {
    /// Nothing yet: still under way.
    Moving = 0,
    /// The agent stands at the destination.
    Arrived = 1,
    /// No way there now; the move stays open (a door may open).
    NoPath = 2,
    /// The world gave up on the move; `*reason` may say why.
    Failed = 3,
}

/// What became of an action, answered by `action_outcome`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnsActionOutcome {
    /// Still under way.
    Running = 0,
    /// Done: the script rule's effects apply.
    Succeeded = 1,
    /// It failed: the rule's on-error facts apply.
    Failed = 2,
}

/// An action an interaction script asks an agent (or a smart location's proxy) to perform.
/// Every pointer is valid only during the `start_action` call.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnsActionRequest {
    /// The action's id: answer `action_outcome` for it.
    pub id: u64,
    /// Who performs it.
    pub agent: u32,
    /// The action's name as the script spells it (`sit`, `sell`).
    pub action: *const c_char,
    /// Its target (a prop, another participant), or NULL.
    pub target: *const c_char,
    /// `parameter_count` parameter names.
    pub parameter_names: *const *const c_char,
    /// `parameter_count` parameter values, in the order of the names.
    pub parameter_values: *const *const c_char,
    /// How many parameters.
    pub parameter_count: usize,
    /// The line the action says (its `line` parameter), or NULL.
    pub line: *const c_char,
    /// The performer is a proxy object (a game system, not a body).
    pub proxy: bool,
}

/// A line to show or voice. Pointers are valid only during the `say` call.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnsLine {
    /// The text, variables filled in.
    pub text: *const c_char,
    /// The sentence state the line is a candidate of, or NULL for a line written in a state's
    /// modifier (then the text is its id).
    pub sentence: *const c_char,
    /// The candidate's stable id within `sentence` (0 when `sentence` is NULL).
    pub candidate: u32,
    /// The line's stable id in the project's string tables (`SellTicket/Okay1/2`): what a game
    /// finds its recorded voice-over under, in every locale. NULL for a line the program has no
    /// id for. Last, so hosts built against the fields above still read them where they were.
    pub key: *const c_char,
}

/// The world a host supplies: one callback per call of the seam, each given `user_data`
/// first. Every callback is required (a NULL one is refused when the scene starts). `now` is
/// the scene's time in seconds, `dt` the tick's length (0 when asked as a state is entered).
///
/// The callbacks run inside `ens_scene_tick` (and the other calls that advance a scene) on the
/// caller's thread. They may call the API, but not on the scene that is calling them (that is
/// `ENS_STATUS_BUSY`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnsWorldCallbacks {
    /// Handed to every callback; owned by the host, which must keep it valid while a scene
    /// uses these callbacks.
    pub user_data: *mut c_void,
    /// Where `agent` stands: write it to `at[0]`, `at[1]` and return true, or return false
    /// when it has no body.
    pub position:
        Option<unsafe extern "C" fn(user_data: *mut c_void, agent: u32, at: *mut f64) -> bool>,
    /// An agent appears at (`x`, `y`): the scene's own agents at their start locations when the
    /// scene starts, and agents the runtime creates (spawned NPCs, proxies) later.
    pub place: Option<unsafe extern "C" fn(user_data: *mut c_void, agent: u32, x: f64, y: f64)>,
    /// Start moving `agent` to `to`, replacing any move it has open; answer in `follow_move`.
    pub move_to: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            agent: u32,
            to: *const EnsDestination,
            now: f64,
            dt: f64,
        ),
    >,
    /// Polled once per tick while `agent`'s move is open: what happened since the last poll,
    /// as an `EnsMoveEvent` value (an int, so that a stray value is reported, not undefined).
    /// For `ENS_MOVE_EVENT_FAILED` the callback may set `*reason` to a string that stays valid
    /// until the callback returns (it is copied).
    pub follow_move: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            agent: u32,
            now: f64,
            dt: f64,
            reason: *mut *const c_char,
        ) -> i32,
    >,
    /// `agent`'s move is no longer wanted; it may stop.
    pub stop_move: Option<unsafe extern "C" fn(user_data: *mut c_void, agent: u32)>,
    /// Perform an action; answer in `action_outcome` under `request->id`.
    pub start_action: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            request: *const EnsActionRequest,
            now: f64,
            dt: f64,
        ),
    >,
    /// Polled once per tick for each open action until it answers succeeded or failed: an
    /// `EnsActionOutcome` value.
    pub action_outcome:
        Option<unsafe extern "C" fn(user_data: *mut c_void, id: u64, now: f64, dt: f64) -> i32>,
    /// Nobody waits for action `id` any more.
    pub cancel_action: Option<unsafe extern "C" fn(user_data: *mut c_void, id: u64)>,
    /// One of `agent`'s variables, or NULL when it has none of that name. The string is the
    /// host's: it must stay valid until the world's `set_variable` or `remove_variable` is
    /// next called for the same agent and name, or the call into the API returns.
    pub variable: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            agent: u32,
            name: *const c_char,
        ) -> *const c_char,
    >,
    /// Sets one of `agent`'s variables (copy both strings).
    pub set_variable: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            agent: u32,
            name: *const c_char,
            value: *const c_char,
        ),
    >,
    /// Takes one of `agent`'s variables away and returns its value (NULL: it had none). The
    /// returned string is the host's and must stay valid until the callback is next called
    /// (it is copied at once).
    pub remove_variable: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            agent: u32,
            name: *const c_char,
        ) -> *const c_char,
    >,
    /// `agent` says `line`: show or voice it.
    pub say: Option<
        unsafe extern "C" fn(
            user_data: *mut c_void,
            agent: u32,
            line: *const EnsLine,
            now: f64,
            dt: f64,
        ),
    >,
    /// Polled once per tick after `say`: whether `agent` is still saying its line.
    pub still_speaking:
        Option<unsafe extern "C" fn(user_data: *mut c_void, agent: u32, now: f64, dt: f64) -> bool>,
}

/// The callbacks, checked complete. They and their user data travel with the scene.
#[derive(Clone, Copy)]
pub(crate) struct Callbacks {
    user_data: *mut c_void,
    position: unsafe extern "C" fn(*mut c_void, u32, *mut f64) -> bool,
    place: unsafe extern "C" fn(*mut c_void, u32, f64, f64),
    move_to: unsafe extern "C" fn(*mut c_void, u32, *const EnsDestination, f64, f64),
    follow_move: unsafe extern "C" fn(*mut c_void, u32, f64, f64, *mut *const c_char) -> i32,
    stop_move: unsafe extern "C" fn(*mut c_void, u32),
    start_action: unsafe extern "C" fn(*mut c_void, *const EnsActionRequest, f64, f64),
    action_outcome: unsafe extern "C" fn(*mut c_void, u64, f64, f64) -> i32,
    cancel_action: unsafe extern "C" fn(*mut c_void, u64),
    variable: unsafe extern "C" fn(*mut c_void, u32, *const c_char) -> *const c_char,
    set_variable: unsafe extern "C" fn(*mut c_void, u32, *const c_char, *const c_char),
    remove_variable: unsafe extern "C" fn(*mut c_void, u32, *const c_char) -> *const c_char,
    say: unsafe extern "C" fn(*mut c_void, u32, *const EnsLine, f64, f64),
    still_speaking: unsafe extern "C" fn(*mut c_void, u32, f64, f64) -> bool,
}

impl Callbacks {
    /// The callbacks of `table`, or which one is missing.
    pub fn check(table: &EnsWorldCallbacks) -> Outcome<Callbacks> {
        fn need<T>(f: Option<T>, name: &str) -> Outcome<T> {
            f.ok_or_else(|| {
                Failure::new(
                    EnsStatus::NullArgument,
                    format!("world callback `{name}` is NULL (every callback is required)"),
                )
            })
        }
        Ok(Callbacks {
            user_data: table.user_data,
            position: need(table.position, "position")?,
            place: need(table.place, "place")?,
            move_to: need(table.move_to, "move_to")?,
            follow_move: need(table.follow_move, "follow_move")?,
            stop_move: need(table.stop_move, "stop_move")?,
            start_action: need(table.start_action, "start_action")?,
            action_outcome: need(table.action_outcome, "action_outcome")?,
            cancel_action: need(table.cancel_action, "cancel_action")?,
            variable: need(table.variable, "variable")?,
            set_variable: need(table.set_variable, "set_variable")?,
            remove_variable: need(table.remove_variable, "remove_variable")?,
            say: need(table.say, "say")?,
            still_speaking: need(table.still_speaking, "still_speaking")?,
        })
    }
}

/// A world whose seam is the host's callbacks.
pub struct HostWorld {
    callbacks: Callbacks,
    pub(crate) standard: StandardState,
}

// SAFETY: the host promises (ens_scene_start's documentation) that its callbacks and user data
// may be used from whichever thread calls the API for the scene; the runtime never calls them
// from two threads at once for one scene.
unsafe impl Send for HostWorld {}

/// A string the host returned, as `&str` for as long as the host keeps it (NULL or not
/// UTF-8: `None`).
///
/// # Safety
/// `p` is NULL or a NUL-terminated string valid for `'a`.
unsafe fn host_str<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        None
    } else {
        // SAFETY: as the caller promises.
        unsafe { CStr::from_ptr(p) }.to_str().ok()
    }
}

impl HostWorld {
    /// The `user_data` of the scene's world callbacks: the host's world.
    pub(crate) fn user_data(&self) -> *mut c_void {
        self.callbacks.user_data
    }

    pub(crate) fn new(callbacks: Callbacks, standard: StandardState) -> Self {
        HostWorld {
            callbacks,
            standard,
        }
    }
}

impl World for HostWorld {
    fn position(&self, agent: AgentId) -> Option<[f64; 2]> {
        let mut at = [0.0; 2];
        // SAFETY: the host's callback, given a buffer of two doubles.
        let has = unsafe {
            (self.callbacks.position)(self.callbacks.user_data, agent.0, at.as_mut_ptr())
        };
        has.then_some(at)
    }

    fn place(&mut self, agent: AgentId, at: [f64; 2]) {
        // SAFETY: the host's callback.
        unsafe { (self.callbacks.place)(self.callbacks.user_data, agent.0, at[0], at[1]) }
    }

    fn move_to(&mut self, agent: AgentId, to: Destination, cx: &mut WorldCx<'_>) {
        let name = match to {
            Destination::Location(l) => cx
                .program
                .locations
                .get(l.index())
                .map(|def| c_string(cx.program.name(def.name))),
            Destination::Point(_) => None,
        };
        let [x, y] = to.point(cx.program).unwrap_or([0.0, 0.0]);
        let destination = EnsDestination {
            location: name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
            x,
            y,
        };
        // SAFETY: the host's callback; `destination` and its name outlive the call.
        unsafe {
            (self.callbacks.move_to)(
                self.callbacks.user_data,
                agent.0,
                &destination,
                cx.now,
                cx.dt,
            )
        }
    }

    fn follow_move(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> Option<MoveEvent> {
        let mut reason: *const c_char = std::ptr::null();
        // SAFETY: the host's callback; `reason` is a valid place for a pointer.
        let event = unsafe {
            (self.callbacks.follow_move)(
                self.callbacks.user_data,
                agent.0,
                cx.now,
                cx.dt,
                &mut reason,
            )
        };
        match event {
            e if e == EnsMoveEvent::Moving as i32 => None,
            e if e == EnsMoveEvent::Arrived as i32 => Some(MoveEvent::Arrived),
            e if e == EnsMoveEvent::NoPath as i32 => Some(MoveEvent::NoPath),
            e if e != EnsMoveEvent::Failed as i32 => Some(MoveEvent::Failed(format!(
                "follow_move answered {e}, which is no EnsMoveEvent"
            ))),
            _ => {
                // SAFETY: the host keeps the reason valid until the callback has returned and
                // we copy it now.
                let why = unsafe { host_str(reason) }.unwrap_or("the game's world gave up");
                Some(MoveEvent::Failed(why.to_string()))
            }
        }
    }

    fn stop_move(&mut self, agent: AgentId) {
        // SAFETY: the host's callback.
        unsafe { (self.callbacks.stop_move)(self.callbacks.user_data, agent.0) }
    }

    fn start_action(&mut self, request: &ActionRequest<'_>, cx: &mut WorldCx<'_>) {
        let action = c_string(request.action);
        let target = request.target.map(c_string);
        let line = request.line.map(c_string);
        let names: Vec<CString> = request
            .parameters
            .iter()
            .map(|(n, _)| c_string(n))
            .collect();
        let values: Vec<CString> = request
            .parameters
            .iter()
            .map(|(_, v)| c_string(v))
            .collect();
        let name_ptrs: Vec<*const c_char> = names.iter().map(|n| n.as_ptr()).collect();
        let value_ptrs: Vec<*const c_char> = values.iter().map(|v| v.as_ptr()).collect();
        let optional = |s: &Option<CString>| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr());
        let c_request = EnsActionRequest {
            id: request.id.0,
            agent: request.agent.0,
            action: action.as_ptr(),
            target: optional(&target),
            parameter_names: name_ptrs.as_ptr(),
            parameter_values: value_ptrs.as_ptr(),
            parameter_count: names.len(),
            line: optional(&line),
            proxy: request.proxy,
        };
        // SAFETY: the host's callback; every string and array outlives the call.
        unsafe {
            (self.callbacks.start_action)(self.callbacks.user_data, &c_request, cx.now, cx.dt)
        }
    }

    fn action_outcome(&mut self, id: ActionId, cx: &mut WorldCx<'_>) -> Option<ActionOutcome> {
        // SAFETY: the host's callback.
        let answer = unsafe {
            (self.callbacks.action_outcome)(self.callbacks.user_data, id.0, cx.now, cx.dt)
        };
        match answer {
            a if a == EnsActionOutcome::Running as i32 => None,
            a if a == EnsActionOutcome::Succeeded as i32 => Some(ActionOutcome::Succeeded),
            // A stray answer fails the action rather than leaving it open for ever.
            _ => Some(ActionOutcome::Failed),
        }
    }

    fn cancel_action(&mut self, id: ActionId) {
        // SAFETY: the host's callback.
        unsafe { (self.callbacks.cancel_action)(self.callbacks.user_data, id.0) }
    }

    fn variable(&self, agent: AgentId, name: &str) -> Option<&str> {
        let name = c_string(name);
        // SAFETY: the host's callback; it keeps the string valid until the variable changes
        // through this world (which needs `&mut self`, so not while the `&str` is borrowed) or
        // the API call returns (the runtime keeps no borrow across calls).
        unsafe {
            host_str((self.callbacks.variable)(
                self.callbacks.user_data,
                agent.0,
                name.as_ptr(),
            ))
        }
    }

    fn set_variable(&mut self, agent: AgentId, name: &str, value: &str) {
        let (name, value) = (c_string(name), c_string(value));
        // SAFETY: the host's callback; both strings outlive the call.
        unsafe {
            (self.callbacks.set_variable)(
                self.callbacks.user_data,
                agent.0,
                name.as_ptr(),
                value.as_ptr(),
            )
        }
    }

    fn remove_variable(&mut self, agent: AgentId, name: &str) -> Option<String> {
        let name = c_string(name);
        // SAFETY: the host's callback; the value it returns is valid until its next callback,
        // and is copied at once.
        unsafe {
            host_str((self.callbacks.remove_variable)(
                self.callbacks.user_data,
                agent.0,
                name.as_ptr(),
            ))
            .map(str::to_string)
        }
    }

    fn say(&mut self, agent: AgentId, line: &Line<'_>, cx: &mut WorldCx<'_>) {
        let text = c_string(line.text);
        let (sentence, candidate) = match line.id {
            LineId::Candidate {
                sentence,
                candidate,
            } => (Some(c_string(sentence)), candidate),
            LineId::Written => (None, 0),
        };
        let key = line.key.map(c_string);
        let c_line = EnsLine {
            text: text.as_ptr(),
            sentence: sentence.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()),
            candidate,
            key: key.as_ref().map_or(std::ptr::null(), |k| k.as_ptr()),
        };
        // SAFETY: the host's callback; the line and its strings outlive the call.
        unsafe { (self.callbacks.say)(self.callbacks.user_data, agent.0, &c_line, cx.now, cx.dt) }
    }

    fn still_speaking(&mut self, agent: AgentId, cx: &mut WorldCx<'_>) -> bool {
        // SAFETY: the host's callback.
        unsafe { (self.callbacks.still_speaking)(self.callbacks.user_data, agent.0, cx.now, cx.dt) }
    }

    fn standard(&self) -> &StandardState {
        &self.standard
    }

    fn standard_mut(&mut self) -> &mut StandardState {
        &mut self.standard
    }
}
