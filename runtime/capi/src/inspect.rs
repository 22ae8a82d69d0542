//! Attaching tools to the running game: an inspector serves the inspection protocol
//! (docs/formats/inspect.md) for a scene, so that `ensemble attach`, `ensemble push` and the
//! editor's Attach see and steer it — the trace streamed, breakpoints, pause and step,
//! snapshots of the agents, variables set, programs pushed and hot-reloaded.
//!
//! The host binds one, then calls `ens_inspector_frame` once per frame (from the thread that
//! ticks the scene) and ticks only when it answers `ENS_FLOW_TICK`:
//!
//! ```c
//! EnsInspector inspector;
//! check(ens_inspector_bind("127.0.0.1:7878", NULL, false, &inspector), "bind");
//! for (;;) {
//!     EnsFlow flow;
//!     check(ens_inspector_frame(inspector, scene, &flow), "frame");
//!     if (flow == ENS_FLOW_TICK) check(ens_scene_tick(scene), "tick");
//!     /* render, poll input… */
//! }
//! ```
//!
//! Everything is non-blocking and polled from that call: no thread. The library's `inspect`
//! feature (on by default) carries it.

use crate::handles::{self, EnsInspector, EnsScene, Object};
use crate::status::{
    EnsStatus, Failure, Outcome, give_string, optional_text_arg, out_arg, run, text_arg,
};
use ensemble_runtime::inspect::{Flow, Inspector, InspectorOptions};
use std::ffi::c_char;
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

/// What the game does after an inspector's frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnsFlow {
    /// Tick the scene.
    Tick = 0,
    /// Paused by a tool (a breakpoint, `pause`, the end of a `step`): do not tick; render,
    /// poll input and call `ens_inspector_frame` again next frame.
    Hold = 1,
}

impl From<Flow> for EnsFlow {
    fn from(flow: Flow) -> Self {
        match flow {
            Flow::Tick => EnsFlow::Tick,
            Flow::Hold => EnsFlow::Hold,
        }
    }
}

/// Listens for tools on `address` (`"127.0.0.1:7878"`; port 0 lets the system choose: see
/// `ens_inspector_address`). `token` (NULL: none) is what a tool must say in its `hello`; a
/// non-loopback address is refused without one. With `wait`, the game starts paused until a
/// tool says `resume` or `step`, so it can set breakpoints before the first tick.
///
/// `*out` is a new handle the host frees with `ens_inspector_free`. An address that is not
/// one, a non-loopback address without a token, or a weak token (fewer than 16 bytes, one
/// character repeated, whitespace) is `ENS_STATUS_INVALID_ARGUMENT`; one that cannot be
/// listened on (in use, not permitted) is `ENS_STATUS_NETWORK`.
///
/// # Safety
/// `address` is NULL or a NUL-terminated string; `token` is NULL or one; `out` is NULL or
/// valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_inspector_bind(
    address: *const c_char,
    token: *const c_char,
    wait: bool,
    out: *mut EnsInspector,
) -> EnsStatus {
    run("ens_inspector_bind", || {
        // SAFETY: as the caller promises.
        let (address, token, out) = unsafe {
            (
                text_arg(address, "address")?,
                optional_text_arg(token, "token")?,
                out_arg(out, "out")?,
            )
        };
        let options = InspectorOptions {
            token: token.map(str::to_string),
            start_paused: wait,
            ..InspectorOptions::default()
        };
        let inspector = Inspector::bind(address, options).map_err(|e| {
            let status = match e.kind() {
                std::io::ErrorKind::InvalidInput => EnsStatus::InvalidArgument,
                _ => EnsStatus::Network,
            };
            Failure::new(status, format!("cannot listen on `{address}`: {e}"))
        })?;
        *out = EnsInspector {
            id: handles::insert(Object::Inspector(Arc::new(Mutex::new(inspector)))),
        };
        Ok(())
    })
}

/// The address the inspector listens on (`"127.0.0.1:40123"`: the port the system chose for
/// port 0) into `*out`, a string the host frees with `ens_string_free`.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_inspector_address(
    inspector: EnsInspector,
    out: *mut *mut c_char,
) -> EnsStatus {
    run("ens_inspector_address", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        let inspector = handles::inspector(inspector.id)?;
        let address = lock(&inspector)?.address();
        *out = give_string(&address.to_string());
        Ok(())
    })
}

/// Once per frame, before deciding to tick `scene`: streams the trace events the scene
/// recorded since the last frame to the tools, pauses on a breakpoint they fire, accepts
/// tools and answers them (a pushed program hot-reloads into the scene here; a variable is
/// set through the world's `set_variable`), and says in `*out` whether to tick
/// (`ENS_FLOW_TICK`) or hold (`ENS_FLOW_HOLD`).
///
/// The host's `ens_scene_take_trace_json` still gets every event: the inspector reads the
/// trace beside it. A scene with no tool attached ticks exactly as without an inspector.
/// Serve one scene per inspector.
///
/// # Safety
/// `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_inspector_frame(
    inspector: EnsInspector,
    scene: EnsScene,
    out: *mut EnsFlow,
) -> EnsStatus {
    run("ens_inspector_frame", || {
        // SAFETY: as the caller promises.
        let out = unsafe { out_arg(out, "out")? };
        let by = inspector.id;
        let inspector = handles::inspector(by)?;
        let flow = handles::with_scene(scene.id, |s| Ok(s.inspect(by, &mut *lock(&inspector)?)))?;
        *out = flow.into();
        Ok(())
    })
}

/// Stops serving: closes the tools' connections and the listening socket. The handle is
/// stale afterwards.
#[unsafe(no_mangle)]
pub extern "C" fn ens_inspector_free(inspector: EnsInspector) -> EnsStatus {
    run("ens_inspector_free", || {
        handles::remove(inspector.id, "inspector").map(drop)
    })
}

/// The inspector, locked; a call into it from one of its own frame's callbacks is busy.
fn lock(inspector: &Mutex<Inspector>) -> Outcome<MutexGuard<'_, Inspector>> {
    inspector.try_lock().map_err(|e| match e {
        TryLockError::WouldBlock => Failure::new(
            EnsStatus::Busy,
            "the inspector is in use by a call still running (a callback called back into it)",
        ),
        TryLockError::Poisoned(_) => Failure::new(
            EnsStatus::Busy,
            "the inspector was lost to an earlier internal error; free it",
        ),
    })
}
