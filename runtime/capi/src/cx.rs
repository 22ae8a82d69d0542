//! What a host state's callbacks see and do: the `EnsStateCx` handed to them.

use crate::status::{EnsStatus, Failure, Outcome, c_string, out_arg, run, text_arg};
use crate::world::HostWorld;
use ensemble_runtime::hsm::{AgentId, StateCx};
use ensemble_runtime::program::{Param, ParamValue, Program};
use ensemble_runtime::world::World;
use std::ffi::{CString, c_char, c_void};

/// The context of one call into a host state's code: its agent, its parameters, the world, and
/// the ways to raise events, send messages and say lines. Valid only during the callback it is
/// handed to; strings it hands out are valid until that callback returns. Effects (events,
/// messages, lines) apply after the callback returns.
pub struct EnsStateCx {
    /// The runtime's context (`StateCx<'_, HostWorld>`), alive for the callback.
    cx: *mut c_void,
    /// The visit's own data slot.
    visit: *mut *mut c_void,
    /// Strings handed out during the callback.
    strings: Vec<CString>,
}

impl EnsStateCx {
    pub(crate) fn new(cx: &mut StateCx<'_, HostWorld>, visit: &mut *mut c_void) -> Self {
        EnsStateCx {
            cx: (cx as *mut StateCx<'_, HostWorld>).cast(),
            visit,
            strings: Vec::new(),
        }
    }

    /// Keeps `text` for the rest of the callback and returns it for C.
    fn hand_out(&mut self, text: &str) -> *const c_char {
        self.strings.push(c_string(text));
        self.strings.last().map_or(std::ptr::null(), |s| s.as_ptr())
    }
}

/// Runs `body` on the context behind `cx`.
///
/// # Safety
/// `cx` is NULL or the context handed to the callback now running.
unsafe fn with_cx(
    function: &str,
    cx: *mut EnsStateCx,
    body: impl FnOnce(&mut StateCx<'_, HostWorld>, &mut EnsStateCx) -> Outcome,
) -> EnsStatus {
    run(function, || {
        // SAFETY: as the caller promises.
        let c = unsafe { cx.as_mut() }
            .ok_or_else(|| Failure::new(EnsStatus::NullArgument, "`cx` is NULL"))?;
        // SAFETY: `c.cx` is the runtime's context of the callback now running.
        let inner = unsafe { &mut *c.cx.cast::<StateCx<'_, HostWorld>>() };
        body(inner, c)
    })
}

fn no_param(cx: &StateCx<'_, HostWorld>, name: &str, ty: &str) -> Failure {
    Failure::new(
        EnsStatus::InvalidArgument,
        format!("state `{}` has no {ty} parameter `{name}`", cx.state_name()),
    )
}

fn agent_in_scene(cx: &StateCx<'_, HostWorld>, agent: u32) -> Outcome<AgentId> {
    let id = AgentId(agent);
    if cx.agent_by_name(cx.agent_name(id)) == Some(id) {
        Ok(id)
    } else {
        Err(Failure::new(
            EnsStatus::InvalidArgument,
            format!("the scene has no agent {agent}"),
        ))
    }
}

/// The agent running the state.
///
/// # Safety
/// `cx` is the context of the running callback (or NULL); `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_agent(cx: *mut EnsStateCx, out: *mut u32) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_agent", cx, |cx, _| {
            *out_arg(out, "out")? = cx.agent.0;
            Ok(())
        })
    }
}

/// The name of `agent` (`ens_cx_agent`'s, or another of the scene's), valid until the
/// callback returns.
///
/// # Safety
/// As [`ens_cx_agent`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_agent_name(
    cx: *mut EnsStateCx,
    agent: u32,
    out: *mut *const c_char,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_agent_name", cx, |cx, c| {
            let id = agent_in_scene(cx, agent)?;
            *out_arg(out, "out")? = c.hand_out(cx.agent_name(id));
            Ok(())
        })
    }
}

/// The scene's agent called `name`.
///
/// # Safety
/// As [`ens_cx_agent`]; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_agent_by_name(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out: *mut u32,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_agent_by_name", cx, |cx, _| {
            let name = text_arg(name, "name")?;
            let id = cx.agent_by_name(name).ok_or_else(|| {
                Failure::new(
                    EnsStatus::InvalidArgument,
                    format!("the scene has no agent `{name}`"),
                )
            })?;
            *out_arg(out, "out")? = id.0;
            Ok(())
        })
    }
}

/// Seconds since the scene started.
///
/// # Safety
/// As [`ens_cx_agent`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_now(cx: *mut EnsStateCx, out: *mut f64) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_now", cx, |cx, _| {
            *out_arg(out, "out")? = cx.now;
            Ok(())
        })
    }
}

/// The name of the state (as the machine's source writes it), valid until the callback
/// returns.
///
/// # Safety
/// As [`ens_cx_agent`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_state_name(
    cx: *mut EnsStateCx,
    out: *mut *const c_char,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_state_name", cx, |cx, c| {
            *out_arg(out, "out")? = c.hand_out(cx.state_name());
            Ok(())
        })
    }
}

/// A text parameter (also a one-of parameter's word and a sentence parameter's name): the
/// state's value, else the declared default. Valid until the callback returns. A name the
/// state does not declare, or a parameter of another type, is `ENS_STATUS_INVALID_ARGUMENT`.
/// The single modifier is the parameter named after its kind (`text`, `number`, …).
///
/// # Safety
/// As [`ens_cx_agent`]; `name` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_text_param(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out: *mut *const c_char,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_text_param", cx, |cx, c| {
            let name = text_arg(name, "name")?;
            let value = cx
                .text_param(name)
                .ok_or_else(|| no_param(cx, name, "text"))?;
            *out_arg(out, "out")? = c.hand_out(value);
            Ok(())
        })
    }
}

/// A number parameter (see [`ens_cx_text_param`]).
///
/// # Safety
/// As [`ens_cx_text_param`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_number_param(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out: *mut f64,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_number_param", cx, |cx, _| {
            let name = text_arg(name, "name")?;
            *out_arg(out, "out")? = cx
                .number_param(name)
                .ok_or_else(|| no_param(cx, name, "number"))?;
            Ok(())
        })
    }
}

/// A bool parameter (see [`ens_cx_text_param`]).
///
/// # Safety
/// As [`ens_cx_text_param`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_bool_param(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out: *mut bool,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_bool_param", cx, |cx, _| {
            let name = text_arg(name, "name")?;
            *out_arg(out, "out")? = cx
                .bool_param(name)
                .ok_or_else(|| no_param(cx, name, "bool"))?;
            Ok(())
        })
    }
}

/// A location parameter: its name (valid until the callback returns) and point in world
/// metres. Any of the out-pointers may be NULL when not wanted.
///
/// # Safety
/// As [`ens_cx_text_param`]; each out-pointer is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_location_param(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out_name: *mut *const c_char,
    out_x: *mut f64,
    out_y: *mut f64,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_location_param", cx, |cx, c| {
            let name = text_arg(name, "name")?;
            let l = cx
                .location_param(name)
                .ok_or_else(|| no_param(cx, name, "location"))?;
            let (location, x, y) = (cx.program().name(l.name).to_string(), l.x, l.y);
            if let Some(o) = out_name.as_mut() {
                *o = c.hand_out(&location);
            }
            if let Some(o) = out_x.as_mut() {
                *o = x;
            }
            if let Some(o) = out_y.as_mut() {
                *o = y;
            }
            Ok(())
        })
    }
}

/// An agent parameter: the scene's agent it names (an agent the scene does not have is
/// `ENS_STATUS_INVALID_ARGUMENT`).
///
/// # Safety
/// As [`ens_cx_text_param`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_agent_param(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out: *mut u32,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_agent_param", cx, |cx, _| {
            let name = text_arg(name, "name")?;
            *out_arg(out, "out")? = cx
                .agent_param(name)
                .ok_or_else(|| no_param(cx, name, "agent"))?
                .0;
            Ok(())
        })
    }
}

/// Any parameter — lists included — as JSON: text, words and names as strings (locations,
/// agents, machines, sentence states by name), numbers, `true`/`false`, lists as arrays.
/// Valid until the callback returns.
///
/// # Safety
/// As [`ens_cx_text_param`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_param_json(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out: *mut *const c_char,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_param_json", cx, |cx, c| {
            let name = text_arg(name, "name")?;
            let param = cx.param(name).ok_or_else(|| no_param(cx, name, "such"))?;
            let program = cx.program();
            let json = match param {
                Param::One(v) => value_json(program, v),
                Param::List(items) => serde_json::Value::Array(
                    items.into_iter().map(|v| value_json(program, v)).collect(),
                ),
            };
            *out_arg(out, "out")? = c.hand_out(&json.to_string());
            Ok(())
        })
    }
}

fn value_json(program: &Program, value: ParamValue) -> serde_json::Value {
    use serde_json::Value;
    match value {
        ParamValue::Text(n)
        | ParamValue::Agent(n)
        | ParamValue::Sentence(n)
        | ParamValue::Choice(n) => Value::from(program.name(n)),
        ParamValue::Number(x) => Value::from(x),
        ParamValue::Bool(b) => Value::from(b),
        ParamValue::Location(l) => program
            .locations
            .get(l.index())
            .map_or(Value::Null, |l| Value::from(program.name(l.name))),
        ParamValue::Machine(m) => program
            .machines
            .get(m.index())
            .map_or(Value::Null, |m| Value::from(program.name(m.name))),
    }
}

/// Raises `event` in the state's machine (taken after the callback returns). An event the
/// program never mentions cannot match a transition and is dropped.
///
/// # Safety
/// As [`ens_cx_text_param`], with `event` for `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_raise(cx: *mut EnsStateCx, event: *const c_char) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_raise", cx, |cx, _| {
            cx.raise(text_arg(event, "event")?);
            Ok(())
        })
    }
}

/// Sends message `name` up the agent's hierarchy (to the state hosting this machine, …).
///
/// # Safety
/// As [`ens_cx_text_param`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_send_up(cx: *mut EnsStateCx, name: *const c_char) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_send_up", cx, |cx, _| {
            cx.send_up(text_arg(name, "name")?);
            Ok(())
        })
    }
}

/// Sends message `name` to `agent`; it arrives at the start of the next tick.
///
/// # Safety
/// As [`ens_cx_text_param`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_send_to(
    cx: *mut EnsStateCx,
    agent: u32,
    name: *const c_char,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_send_to", cx, |cx, _| {
            let name = text_arg(name, "name")?;
            let to = agent_in_scene(cx, agent)?;
            cx.send_to(to, name);
            Ok(())
        })
    }
}

/// The world of the scene running the state: the `user_data` its `EnsWorldCallbacks` were
/// given at `ens_scene_start`. A state's code reaches the game's world through it (the
/// registration's own `user_data` belongs to the library, which several scenes may share).
///
/// # Safety
/// As [`ens_cx_agent`], with `out` valid for writing a pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_world(cx: *mut EnsStateCx, out: *mut *mut c_void) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_world", cx, |cx, _| {
            *out_arg(out, "out")? = cx.game.user_data();
            Ok(())
        })
    }
}

/// The agent says `text` (a `say` trace event; the world's `say` shows it).
///
/// # Safety
/// As [`ens_cx_text_param`], with `text` for `name`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_say(cx: *mut EnsStateCx, text: *const c_char) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_say", cx, |cx, _| {
            cx.say(text_arg(text, "text")?);
            Ok(())
        })
    }
}

/// One of the agent's variables, asked of the world (its `variable` callback); `*out` is NULL
/// when it has none. Valid until the callback returns.
///
/// # Safety
/// As [`ens_cx_text_param`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_variable(
    cx: *mut EnsStateCx,
    name: *const c_char,
    out: *mut *const c_char,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_variable", cx, |cx, c| {
            let name = text_arg(name, "name")?;
            let value = cx.game.variable(cx.agent, name).map(str::to_string);
            *out_arg(out, "out")? = value.map_or(std::ptr::null(), |v| c.hand_out(&v));
            Ok(())
        })
    }
}

/// Sets one of the agent's variables through the world (its `set_variable` callback).
///
/// # Safety
/// As [`ens_cx_text_param`]; `value` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_set_variable(
    cx: *mut EnsStateCx,
    name: *const c_char,
    value: *const c_char,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_set_variable", cx, |cx, _| {
            let (name, value) = (text_arg(name, "name")?, text_arg(value, "value")?);
            let agent = cx.agent;
            cx.game.set_variable(agent, name, value);
            Ok(())
        })
    }
}

/// This visit's own data (NULL until `ens_cx_set_visit_data`): a timer, a target. The host
/// owns what it points to and frees it in `cleanup`; the state's `save` and `restore`
/// callbacks carry it through savegames.
///
/// # Safety
/// As [`ens_cx_agent`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_visit_data(
    cx: *mut EnsStateCx,
    out: *mut *mut c_void,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_visit_data", cx, |_, c| {
            *out_arg(out, "out")? = *c.visit;
            Ok(())
        })
    }
}

/// Sets this visit's own data (see [`ens_cx_visit_data`]).
///
/// # Safety
/// As [`ens_cx_agent`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_cx_set_visit_data(
    cx: *mut EnsStateCx,
    data: *mut c_void,
) -> EnsStatus {
    // SAFETY: as the caller promises.
    unsafe {
        with_cx("ens_cx_set_visit_data", cx, |_, c| {
            *c.visit = data;
            Ok(())
        })
    }
}
