//! State libraries: the standard states plus the host's own, whose code is C callbacks.

use crate::cx::EnsStateCx;
use crate::handles::{self, EnsLibrary, Object};
use crate::status::{EnsStatus, Failure, Outcome, optional_text_arg, out_arg, run, text_arg};
use crate::world::HostWorld;
use ensemble_runtime::hsm::{Message, StateCode, StateCx, StateLibrary, StateSpec};
use ensemble_runtime::program::{
    ModifierKind, ParamKind, ParamLiteral, ParamSpec, ParamType, Terminal,
};
use std::ffi::{c_char, c_void};

/// The single modifier a state takes (the older form of declaring its one parameter, named
/// after the kind: `location`, `machine`, `agent`, `text`, `number`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnsModifierKind {
    /// No modifier (a state with named parameters, or none).
    None = 0,
    /// A named location.
    Location = 1,
    /// A child machine the state hosts.
    Machine = 2,
    /// Another agent of the scene.
    Agent = 3,
    /// Free text.
    Text = 4,
    /// A number.
    Number = 5,
}

/// Whether entering the state ends its machine.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnsTerminal {
    /// An ordinary state.
    No = 0,
    /// Ends its machine successfully (like `Finish`).
    End = 1,
    /// Fails its machine (like `Fail`).
    Failure = 2,
}

/// The type of a named parameter (docs/formats/statelib.md).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnsParamKind {
    /// Free text.
    Text = 0,
    /// A finite number.
    Number = 1,
    /// `true` or `false`.
    Bool = 2,
    /// A location of the project, by name.
    Location = 3,
    /// An agent of the scene, by name.
    Agent = 4,
    /// A machine of the project, by name.
    Machine = 5,
    /// A sentence state, by name.
    Sentence = 6,
    /// One of the declaration's `words`.
    OneOf = 7,
}

/// One named, typed parameter of a state declaration, as a `*.statelib.ron` file writes it.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnsParamDecl {
    /// The name states set it by.
    pub name: *const c_char,
    /// Its type: an `EnsParamKind` value.
    pub kind: i32,
    /// A list of values of `kind` rather than one.
    pub list: bool,
    /// For `ENS_PARAM_KIND_ONE_OF`: the `word_count` words it may be (else NULL).
    pub words: *const *const c_char,
    /// How many `words`.
    pub word_count: usize,
    /// Its default as JSON (`0.2`, `true`, `"full"`, `["Gate", "Bar"]`), or NULL when every
    /// state must set it.
    pub default_json: *const c_char,
}

/// A library state's declaration: what the compiler checked the program's machines against
/// (the project's `*.statelib.ron`). Linking checks it agrees with the program.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnsStateDecl {
    /// The name machines use.
    pub name: *const c_char,
    /// Its single modifier: an `EnsModifierKind` value (`ENS_MODIFIER_KIND_NONE` with `params`).
    pub modifier: i32,
    /// Its named parameters (`param_count` of them; NULL when none).
    pub params: *const EnsParamDecl,
    /// How many `params`.
    pub param_count: usize,
    /// Whether it ends its machine: an `EnsTerminal` value.
    pub terminal: i32,
    /// The events its code raises (`raise_count`), or NULL: not declared (any event).
    pub raises: *const *const c_char,
    /// How many `raises`.
    pub raise_count: usize,
    /// One or two lines for designers, or NULL.
    pub doc: *const c_char,
}

/// The code of a library state, as C callbacks. Each is optional (NULL: nothing to do). A new
/// visit of the state begins with `init` and ends with `cleanup`; `cx` is valid only during
/// the call. `user_data` is the host's (the same for every visit); per-visit data goes through
/// `ens_cx_visit_data` / `ens_cx_set_visit_data`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EnsStateCallbacks {
    /// The host's, handed to every callback. It must stay valid while a scene uses the state.
    pub user_data: *mut c_void,
    /// The state is entered.
    pub init: Option<unsafe extern "C" fn(cx: *mut EnsStateCx, user_data: *mut c_void)>,
    /// Every tick while the state is active, with the tick's length in seconds.
    pub update: Option<unsafe extern "C" fn(cx: *mut EnsStateCx, dt: f64, user_data: *mut c_void)>,
    /// The state is left (after its children). Free per-visit data here.
    pub cleanup: Option<unsafe extern "C" fn(cx: *mut EnsStateCx, user_data: *mut c_void)>,
    /// A message `name` from agent `from` reached the state: return true to consume it
    /// (otherwise it may still take a transition of the same name).
    pub on_message: Option<
        unsafe extern "C" fn(
            cx: *mut EnsStateCx,
            name: *const c_char,
            from: u32,
            user_data: *mut c_void,
        ) -> bool,
    >,
    /// A savegame is taken (`ens_scene_save`): write the visit's data (`visit`, what
    /// `ens_cx_set_visit_data` set) into `buffer` if its `capacity` suffices, and return how
    /// many bytes it takes — the runtime asks with capacity 0 first, then with enough. NULL:
    /// the visit saves nothing.
    pub save: Option<
        unsafe extern "C" fn(
            visit: *mut c_void,
            buffer: *mut u8,
            capacity: usize,
            user_data: *mut c_void,
        ) -> usize,
    >,
    /// A savegame is restored: a fresh visit (`init` does not run) takes back the `len` bytes
    /// `save` wrote, setting `*visit` to its new data. Return false when the data cannot be
    /// used: the state is then entered afresh and the restore says so. NULL: only an empty
    /// save is accepted.
    pub restore: Option<
        unsafe extern "C" fn(
            visit: *mut *mut c_void,
            data: *const u8,
            len: usize,
            user_data: *mut c_void,
        ) -> bool,
    >,
}

/// A host state registered in a library.
#[derive(Clone)]
struct HostState {
    name: String,
    /// `None`: registered with `ens_library_register_declared` (the program's declaration).
    spec: Option<StateSpec>,
    callbacks: StateCallbacks,
}

/// The host's callbacks, shareable with the scene's factories.
#[derive(Clone, Copy)]
struct StateCallbacks(EnsStateCallbacks);

// SAFETY: the host promises (ens_library_register's documentation) that its callbacks and user
// data may be used from whichever thread calls the API for a scene using them.
unsafe impl Send for StateCallbacks {}
unsafe impl Sync for StateCallbacks {}

/// A library handle's object: the host's registrations (the standard states are added to
/// every scene's library).
#[derive(Clone, Default)]
pub(crate) struct HostLibrary {
    states: Vec<HostState>,
}

impl HostLibrary {
    /// The scene library: every standard state, then the host's (replacing a standard one of
    /// the same name).
    /// Registers `state`, replacing one of the same name.
    fn put(&mut self, state: HostState) -> Outcome<()> {
        match self.states.iter_mut().find(|s| s.name == state.name) {
            Some(old) => *old = state,
            None => self.states.push(state),
        }
        Ok(())
    }

    pub(crate) fn state_library(&self) -> StateLibrary<HostWorld> {
        let mut library = ensemble_runtime::stdlib::library::<HostWorld>();
        for state in &self.states {
            let callbacks = state.callbacks;
            let code = move || -> Box<dyn StateCode<HostWorld>> {
                Box::new(HostCode {
                    callbacks,
                    visit: std::ptr::null_mut(),
                })
            };
            match &state.spec {
                Some(spec) => library.register(&state.name, spec.clone(), code),
                None => library.register_declared(&state.name, code),
            };
        }
        library
    }
}

/// One visit of a host state.
struct HostCode {
    callbacks: StateCallbacks,
    visit: *mut c_void,
}

// SAFETY: as `StateCallbacks`; the visit data is the host's, used only through the callbacks.
unsafe impl Send for HostCode {}

impl HostCode {
    fn call<R>(
        &mut self,
        cx: &mut StateCx<'_, HostWorld>,
        f: impl FnOnce(*mut EnsStateCx, *mut c_void) -> R,
    ) -> R {
        let mut c = EnsStateCx::new(cx, &mut self.visit);
        let user = self.callbacks.0.user_data;
        f(&mut c, user)
    }
}

impl StateCode<HostWorld> for HostCode {
    fn init(&mut self, cx: &mut StateCx<'_, HostWorld>) {
        if let Some(init) = self.callbacks.0.init {
            // SAFETY: the host's callback, with a context valid for the call.
            self.call(cx, |c, user| unsafe { init(c, user) });
        }
    }

    fn update(&mut self, cx: &mut StateCx<'_, HostWorld>, dt: f64) {
        if let Some(update) = self.callbacks.0.update {
            // SAFETY: as `init`.
            self.call(cx, |c, user| unsafe { update(c, dt, user) });
        }
    }

    fn cleanup(&mut self, cx: &mut StateCx<'_, HostWorld>) {
        if let Some(cleanup) = self.callbacks.0.cleanup {
            // SAFETY: as `init`.
            self.call(cx, |c, user| unsafe { cleanup(c, user) });
        }
    }

    fn on_message(&mut self, cx: &mut StateCx<'_, HostWorld>, msg: &Message) -> bool {
        let Some(on_message) = self.callbacks.0.on_message else {
            return false;
        };
        let name = crate::status::c_string(cx.message_name(msg));
        let from = msg.from.0;
        // SAFETY: as `init`; the name outlives the call.
        self.call(cx, |c, user| unsafe {
            on_message(c, name.as_ptr(), from, user)
        })
    }

    fn save(&self, _program: &ensemble_runtime::Program) -> Vec<u8> {
        let Some(save) = self.callbacks.0.save else {
            return Vec::new();
        };
        let user = self.callbacks.0.user_data;
        // SAFETY: the host's callback, asked for the size with no buffer.
        let len = unsafe { save(self.visit, std::ptr::null_mut(), 0, user) };
        let mut bytes = vec![0u8; len];
        // SAFETY: the host's callback, with a buffer of the size it asked for; it writes at
        // most `capacity` bytes.
        let written = unsafe { save(self.visit, bytes.as_mut_ptr(), bytes.len(), user) };
        bytes.truncate(written.min(len));
        bytes
    }

    fn restore(&mut self, _program: &ensemble_runtime::Program, data: &[u8]) -> Result<(), String> {
        let user = self.callbacks.0.user_data;
        match self.callbacks.0.restore {
            // SAFETY: the host's callback, with the visit's slot and the saved bytes.
            Some(restore) => unsafe { restore(&mut self.visit, data.as_ptr(), data.len(), user) }
                .then_some(())
                .ok_or_else(|| {
                    "the host state's restore callback refused its saved data".to_string()
                }),
            None if data.is_empty() => Ok(()),
            None => Err(format!(
                "{} bytes of saved data, but the host state has no restore callback",
                data.len()
            )),
        }
    }
}

/// Creates a library holding every standard state (`Goto`, `Say`, `Dialog`, `Plan`, …); add
/// the host's own with `ens_library_register`. `*out` is a new handle the host frees with
/// `ens_library_free`.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_library_new(out: *mut EnsLibrary) -> EnsStatus {
    run("ens_library_new", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        *out = EnsLibrary {
            id: handles::insert(Object::Library(HostLibrary::default())),
        };
        Ok(())
    })
}

/// Registers (or replaces) a library state whose code is `callbacks`, declared as `decl`
/// says. The declaration must agree with the program's (the project's `*.statelib.ron`): a
/// scene whose program needs the state with another modifier, parameters or terminal kind
/// refuses to start (`ENS_STATUS_SCENE`, naming the state). Scenes already started keep the
/// registrations they started with.
///
/// Everything `decl` points to is copied; `callbacks.user_data` is kept and handed to every
/// callback, from whichever thread the host ticks the scene on.
///
/// # Safety
/// `decl` and `callbacks` are NULL or valid, and every string and array `decl` points to is
/// valid for the lengths it gives.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_library_register(
    library: EnsLibrary,
    decl: *const EnsStateDecl,
    callbacks: *const EnsStateCallbacks,
) -> EnsStatus {
    run("ens_library_register", || {
        // SAFETY: as the caller promises.
        let (decl, callbacks) = unsafe {
            (
                decl.as_ref().ok_or_else(|| null("decl"))?,
                callbacks.as_ref().ok_or_else(|| null("callbacks"))?,
            )
        };
        // SAFETY: as the caller promises for `decl`'s pointers.
        let (name, spec) = unsafe { spec_of(decl)? };
        let state = HostState {
            name,
            spec: Some(spec),
            callbacks: StateCallbacks(*callbacks),
        };
        handles::with_library(library.id, |l| l.put(state))
    })
}

/// Registers (or replaces) a game state declared only in the project's `*.statelib.ron`, whose
/// code is `callbacks`: the program carries the declaration (modifier, parameters with their
/// defaults, terminal kind, events) and the scene takes it as the state's, so the host never
/// writes it again and the two cannot disagree. `name` is copied; `callbacks.user_data` is kept
/// as with `ens_library_register`.
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `callbacks` is NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_library_register_declared(
    library: EnsLibrary,
    name: *const c_char,
    callbacks: *const EnsStateCallbacks,
) -> EnsStatus {
    run("ens_library_register_declared", || {
        // SAFETY: as the caller promises.
        let (name, callbacks) = unsafe {
            (
                text_arg(name, "name")?.to_string(),
                callbacks.as_ref().ok_or_else(|| null("callbacks"))?,
            )
        };
        let state = HostState {
            name,
            spec: None,
            callbacks: StateCallbacks(*callbacks),
        };
        handles::with_library(library.id, |l| l.put(state))
    })
}

/// Frees a library handle. Scenes started with it keep their own copy of its registrations.
#[unsafe(no_mangle)]
pub extern "C" fn ens_library_free(library: EnsLibrary) -> EnsStatus {
    run("ens_library_free", || {
        handles::remove(library.id, "library").map(drop)
    })
}

fn null(name: &str) -> Failure {
    Failure::new(EnsStatus::NullArgument, format!("`{name}` is NULL"))
}

fn invalid(message: String) -> Failure {
    Failure::new(EnsStatus::InvalidArgument, message)
}

/// The `count` strings at `p` (`what` names them in errors).
///
/// # Safety
/// `p` is NULL (then `count` is 0) or valid for `count` string pointers.
unsafe fn strings(p: *const *const c_char, count: usize, what: &str) -> Outcome<Vec<String>> {
    if count == 0 {
        return Ok(Vec::new());
    }
    if p.is_null() {
        return Err(null(what));
    }
    // SAFETY: as the caller promises.
    let pointers = unsafe { std::slice::from_raw_parts(p, count) };
    pointers
        .iter()
        .enumerate()
        // SAFETY: each is a string pointer, as the caller promises.
        .map(|(i, &s)| unsafe { text_arg(s, &format!("{what}[{i}]")) }.map(str::to_string))
        .collect()
}

/// The name and spec `decl` declares.
///
/// # Safety
/// Every pointer of `decl` is NULL or valid for what it describes.
unsafe fn spec_of(decl: &EnsStateDecl) -> Outcome<(String, StateSpec)> {
    // SAFETY: as the caller promises.
    let name = unsafe { text_arg(decl.name, "decl.name")? }.to_string();
    let modifier = match decl.modifier {
        0 => ModifierKind::None,
        1 => ModifierKind::Location,
        2 => ModifierKind::Machine,
        3 => ModifierKind::Agent,
        4 => ModifierKind::Text,
        5 => ModifierKind::Number,
        other => {
            return Err(invalid(format!(
                "state `{name}`: modifier {other} is no EnsModifierKind"
            )));
        }
    };
    let terminal = match decl.terminal {
        0 => Terminal::No,
        1 => Terminal::End,
        2 => Terminal::Failure,
        other => {
            return Err(invalid(format!(
                "state `{name}`: terminal {other} is no EnsTerminal"
            )));
        }
    };
    let mut spec = StateSpec::new(modifier).terminal(terminal);
    if decl.param_count > 0 {
        if modifier != ModifierKind::None {
            return Err(invalid(format!(
                "state `{name}` declares both a modifier and parameters (declare one or the other)"
            )));
        }
        if decl.params.is_null() {
            return Err(null("decl.params"));
        }
        // SAFETY: as the caller promises.
        let params = unsafe { std::slice::from_raw_parts(decl.params, decl.param_count) };
        let params = params
            .iter()
            .enumerate()
            // SAFETY: as the caller promises.
            .map(|(i, p)| unsafe { param_of(&name, i, p) })
            .collect::<Outcome<Vec<_>>>()?;
        spec = spec.params(params);
    }
    if !decl.raises.is_null() || decl.raise_count > 0 {
        // SAFETY: as the caller promises.
        spec = spec.raises(unsafe { strings(decl.raises, decl.raise_count, "decl.raises")? });
    }
    // SAFETY: as the caller promises.
    if let Some(doc) = unsafe { optional_text_arg(decl.doc, "decl.doc")? } {
        spec = spec.doc(doc);
    }
    Ok((name, spec))
}

/// Parameter `i` of state `state`.
///
/// # Safety
/// Every pointer of `p` is NULL or valid for what it describes.
unsafe fn param_of(state: &str, i: usize, p: &EnsParamDecl) -> Outcome<ParamSpec> {
    // SAFETY: as the caller promises.
    let name = unsafe { text_arg(p.name, &format!("decl.params[{i}].name"))? };
    let kind = match p.kind {
        0 => ParamKind::Text,
        1 => ParamKind::Number,
        2 => ParamKind::Bool,
        3 => ParamKind::Location,
        4 => ParamKind::Agent,
        5 => ParamKind::Machine,
        6 => ParamKind::Sentence,
        // SAFETY: as the caller promises.
        7 => ParamKind::OneOf(unsafe {
            strings(p.words, p.word_count, &format!("decl.params[{i}].words"))?
        }),
        other => {
            return Err(invalid(format!(
                "state `{state}`, parameter `{name}`: kind {other} is no EnsParamKind"
            )));
        }
    };
    let ty = ParamType { kind, list: p.list };
    // SAFETY: as the caller promises.
    match unsafe { optional_text_arg(p.default_json, &format!("decl.params[{i}].default_json"))? } {
        None => Ok(ParamSpec::required(name, ty)),
        Some(json) => {
            let value: serde_json::Value = serde_json::from_str(json).map_err(|e| {
                invalid(format!(
                    "state `{state}`, parameter `{name}`: default {json:?} is not JSON ({e})"
                ))
            })?;
            let literal = literal_of(&value).ok_or_else(|| {
                invalid(format!(
                    "state `{state}`, parameter `{name}`: default {json} is not text, a number, true/false or a list of them"
                ))
            })?;
            Ok(ParamSpec::optional(name, ty, literal))
        }
    }
}

/// A default written as JSON, as the statelib format writes it.
fn literal_of(value: &serde_json::Value) -> Option<ParamLiteral> {
    use serde_json::Value;
    Some(match value {
        Value::String(s) => ParamLiteral::Text(s.clone()),
        Value::Number(n) => ParamLiteral::Number(n.as_f64()?),
        Value::Bool(b) => ParamLiteral::Bool(*b),
        Value::Array(items) => {
            ParamLiteral::List(items.iter().map(literal_of).collect::<Option<_>>()?)
        }
        Value::Null | Value::Object(_) => return None,
    })
}
