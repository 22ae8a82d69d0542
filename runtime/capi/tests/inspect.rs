//! Tools attached to scenes through the C ABI's inspector (`ens_inspector_*`), as a host calls
//! it: the game loop runs on its own thread (frame, tick when told, take the trace), a tool
//! speaks the protocol on the test's. On the simulated world: a breakpoint pauses the scene at
//! the tick the CLI's trace predicts, a snapshot, a step, programs pushed (one refused), and
//! the host's own trace unchanged. On a world of C callbacks: the snapshot reads variables
//! through the world's `variable` callback and `set` goes through its `set_variable`, an
//! unknown agent or variable refused. And the inspector's bad arguments are error codes.

mod support;

use ensemble_capi::handles::{EnsInspector, EnsLibrary, EnsProgram, EnsScene};
use ensemble_capi::inspect::*;
use ensemble_capi::library::*;
use ensemble_capi::program::*;
use ensemble_capi::scene::*;
use ensemble_capi::world::*;
use ensemble_capi::*;
use ensemble_runtime::inspect::protocol::{
    Breakpoint, GameMessage, PauseReason, ToolMessage, base64,
};
use std::collections::BTreeMap;
use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::ptr::{null, null_mut};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;
use support::Tool;

fn message() -> String {
    // SAFETY: never NULL, valid until the next failing call on this thread.
    unsafe { CStr::from_ptr(ens_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

fn ok(status: EnsStatus) {
    assert_eq!(status, EnsStatus::Ok, "{}", message());
}

fn c(text: &str) -> CString {
    CString::new(text).expect("no NUL")
}

fn load(path: &Path) -> EnsProgram {
    let mut program = EnsProgram::default();
    let path = c(path.to_str().expect("UTF-8 path"));
    // SAFETY: valid string and out-pointer.
    ok(unsafe { ens_program_load_file(path.as_ptr(), &mut program) });
    program
}

fn take_trace(scene: EnsScene) -> String {
    let mut text: *mut c_char = null_mut();
    // SAFETY: valid out-pointer; the string is freed below.
    unsafe {
        ok(ens_scene_take_trace_json(scene, &mut text));
        let copy = CStr::from_ptr(text).to_string_lossy().into_owned();
        ens_string_free(text);
        copy
    }
}

/// Binds an inspector on a free loopback port; returns it and its address.
fn bind(wait: bool) -> (EnsInspector, String) {
    let mut inspector = EnsInspector::default();
    let address = c("127.0.0.1:0");
    let mut text: *mut c_char = null_mut();
    // SAFETY: valid pointers; the string is freed below.
    unsafe {
        ok(ens_inspector_bind(
            address.as_ptr(),
            null(),
            wait,
            &mut inspector,
        ));
        ok(ens_inspector_address(inspector, &mut text));
        let address = CStr::from_ptr(text).to_string_lossy().into_owned();
        ens_string_free(text);
        (inspector, address)
    }
}

/// A host's game loop on its own thread: a frame of the inspector, a tick when it says so,
/// the trace taken — until told to stop. Returns the trace the host read.
struct Game {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<String>,
}

impl Game {
    fn run(inspector: EnsInspector, scene: EnsScene, max_ticks: u64) -> Game {
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut trace = take_trace(scene);
            let mut ticks = 0;
            while !stopping.load(Ordering::SeqCst) {
                let mut flow = EnsFlow::Hold;
                // SAFETY: valid out-pointer.
                ok(unsafe { ens_inspector_frame(inspector, scene, &mut flow) });
                if flow == EnsFlow::Tick && ticks < max_ticks {
                    ok(ens_scene_tick(scene));
                    ticks += 1;
                } else {
                    std::thread::sleep(Duration::from_millis(1));
                }
                trace += &take_trace(scene);
            }
            trace
        });
        Game { stop, thread }
    }

    fn stop(self) -> String {
        self.stop.store(true, Ordering::SeqCst);
        self.thread.join().expect("the game loop")
    }
}

/// The trace's events before tick `tick`, as lines.
fn before(trace: &str, tick: u64) -> Vec<&str> {
    trace
        .lines()
        .filter(|l| {
            let e: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            e["tick"].as_u64().expect("a tick") < tick
        })
        .collect()
}

#[test]
fn a_tool_breaks_steps_snapshots_and_pushes_on_a_simulated_scene() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = support::build("samples/airport", dir.path(), "airport");
    let cli = support::airport_cli_trace("ticket-counter", "7", "600");
    let predicted = cli
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("a JSON line"))
        .find(|e| e["event"] == "enter" && e["state"] == "TalkStateMachine")
        .expect("someone talks")["tick"]
        .as_u64()
        .expect("a tick");
    assert!(predicted > 0, "a breakpoint can catch it after the start");

    let program = load(&path);
    let mut scene = EnsScene::default();
    let name = c("ticket-counter");
    // SAFETY: valid pointers.
    ok(unsafe { ens_scene_start_simulated(program, name.as_ptr(), 7, &mut scene) });
    let (inspector, address) = bind(true);
    let game = Game::run(inspector, scene, 600);

    let (mut tool, hello) = Tool::connect(&address);
    assert!(hello.paused && hello.tick == 0, "{hello:?}");
    assert_eq!(hello.program, "airport");
    assert!(hello.agents.iter().any(|a| a == "seller"), "{hello:?}");
    let any_talk = |machine: &str| Breakpoint::State {
        machine: machine.into(),
        state: "TalkStateMachine".into(),
        when: Default::default(),
        agent: None,
    };
    for b in [any_talk("BuyTicketAtCounter"), any_talk("StandSellTicket")] {
        assert!(matches!(
            tool.ask(&ToolMessage::Break { breakpoint: b }),
            GameMessage::Ok { .. }
        ));
    }
    assert!(matches!(
        tool.ask(&ToolMessage::Resume),
        GameMessage::Resumed { .. }
    ));
    let GameMessage::Paused {
        tick,
        reason: PauseReason::Breakpoint,
        ..
    } = tool.message()
    else {
        panic!("expected the breakpoint's pause");
    };
    assert_eq!(tick, predicted, "paused where the CLI's trace says");

    let GameMessage::Snapshot { tick: at, agents } = tool.ask(&ToolMessage::Snapshot) else {
        panic!("expected a snapshot");
    };
    assert_eq!(at, predicted, "no tick while paused");
    assert!(
        agents
            .iter()
            .any(|a| a.states.iter().any(|s| s.state == "TalkStateMachine")),
        "{agents:?}"
    );
    assert!(agents.iter().all(|a| a.position.is_some()), "{agents:?}");

    // A variable of no agent, an agent of no scene: refused, the game goes on.
    let set = |agent: &str, variable: &str| ToolMessage::Set {
        agent: agent.into(),
        variable: variable.into(),
        value: "x".into(),
    };
    let GameMessage::Error { message } = tool.ask(&set("seller", "NoSuchVariable")) else {
        panic!("an unknown variable is refused");
    };
    assert!(message.contains("not a variable of this game"), "{message}");
    let GameMessage::Error { message } = tool.ask(&set("nobody", "Ticket")) else {
        panic!("an unknown agent is refused");
    };
    assert!(message.contains("no agent `nobody`"), "{message}");

    // Pushed: the program's own bytes reload, keeping every agent's states; garbage does not.
    let bytes = std::fs::read(&path).expect("the program's bytes");
    let push = ToolMessage::Reload {
        program: base64::encode(&bytes),
    };
    let GameMessage::Reload { kept, .. } = tool.ask(&push) else {
        panic!("the program reloads");
    };
    assert!(kept > 0);
    let garbage = ToolMessage::Reload {
        program: base64::encode(b"not a program"),
    };
    let GameMessage::ReloadRejected { reason } = tool.ask(&garbage) else {
        panic!("garbage is refused");
    };
    assert!(reason.contains("does not load"), "{reason}");

    // Three ticks, then paused again.
    assert!(matches!(
        tool.ask(&ToolMessage::Clear { breakpoint: None }),
        GameMessage::Ok { .. }
    ));
    tool.send(&ToolMessage::Step { ticks: 3 });
    let GameMessage::Paused {
        tick,
        reason: PauseReason::Step,
        ..
    } = tool.message()
    else {
        panic!("expected the step's pause");
    };
    assert_eq!(tick, predicted + 3);
    tool.send(&ToolMessage::Resume);
    let trace = game.stop();

    // The host read the trace it always reads, the reloads' events added.
    assert_eq!(
        before(&trace, predicted),
        before(&cli, predicted),
        "the host's trace up to the pause is the CLI's"
    );
    assert!(trace.contains("\"event\":\"reload\""), "the push is traced");
    assert!(trace.contains("\"event\":\"reload-rejected\""));
    ok(ens_inspector_free(inspector));
    ok(ens_scene_free(scene));
    ok(ens_program_free(program));
}

#[test]
fn a_tool_reads_and_sets_variables_through_the_c_worlds_callbacks() {
    let program = load(&support::root().join("runtime/examples/tavern/tavern.ensb"));
    let mut library = EnsLibrary::default();
    let (sip, done, evening) = (c("Sip"), c("Done"), c("evening"));
    let raises = [done.as_ptr()];
    let decl = EnsStateDecl {
        name: sip.as_ptr(),
        modifier: EnsModifierKind::Number as i32,
        params: null(),
        param_count: 0,
        terminal: EnsTerminal::No as i32,
        raises: raises.as_ptr(),
        raise_count: 1,
        doc: null(),
    };
    let code = support::no_code();
    let variables: &'static Variables = Box::leak(Box::default());
    let mut scene = EnsScene::default();
    // SAFETY: valid pointers; the variables live for the test.
    unsafe {
        ok(ens_library_new(&mut library));
        ok(ens_library_register(library, &decl, &code));
        ok(ens_scene_start(
            program,
            library,
            evening.as_ptr(),
            1,
            &world(variables),
            &mut scene,
        ));
    }
    let (inspector, address) = bind(false);
    let game = Game::run(inspector, scene, 1000);
    let (mut tool, hello) = Tool::connect(&address);
    assert_eq!(hello.scene, "evening");
    assert_eq!(hello.agents[..2], ["keeper", "mara"]);

    let GameMessage::Snapshot { agents, .. } = tool.ask(&ToolMessage::Snapshot) else {
        panic!("expected a snapshot");
    };
    assert_eq!(
        agents[0].variables.get("Drink").map(String::as_str),
        Some("cider"),
        "read through the world's `variable` callback: {agents:?}"
    );
    assert!(!agents[0].states.is_empty(), "{agents:?}");
    assert_eq!(agents[0].position, None, "this world reports no positions");

    let set = |agent: &str, variable: &str, value: &str| ToolMessage::Set {
        agent: agent.into(),
        variable: variable.into(),
        value: value.into(),
    };
    assert!(matches!(
        tool.ask(&set("keeper", "Drink", "ale")),
        GameMessage::Ok { .. }
    ));
    assert_eq!(
        variables.get(0, "Drink").as_deref(),
        Some("ale"),
        "set through the world's `set_variable` callback"
    );
    let GameMessage::Error { message } = tool.ask(&set("keeper", "Drnk", "ale")) else {
        panic!("a misspelt variable is refused");
    };
    assert!(
        message.contains("`Drnk` is not a variable") && message.contains("Drink"),
        "{message}"
    );
    let GameMessage::Error { message } = tool.ask(&set("innkeeper", "Drink", "ale")) else {
        panic!("an unknown agent is refused");
    };
    assert!(message.contains("no agent `innkeeper`"), "{message}");
    let GameMessage::Error { message } = tool.ask(&set("keeper", " ", "ale")) else {
        panic!("a variable without a name is refused");
    };
    assert!(message.contains("no name"), "{message}");

    // The world's own program pushed: it reloads into the host's scene.
    let bytes = std::fs::read(support::root().join("runtime/examples/tavern/tavern.ensb"))
        .expect("the program's bytes");
    let push = ToolMessage::Reload {
        program: base64::encode(&bytes),
    };
    assert!(
        matches!(tool.ask(&push), GameMessage::Reload { .. }),
        "the program reloads"
    );
    let trace = game.stop();
    assert!(trace.contains("\"event\":\"reload\""), "the push is traced");
    ok(ens_inspector_free(inspector));
    ok(ens_scene_free(scene));
    ok(ens_library_free(library));
    ok(ens_program_free(program));
}

#[test]
fn bad_inspector_arguments_are_error_codes() {
    let assert_fails = |got: EnsStatus, status: EnsStatus, part: &str| {
        let text = message();
        assert_eq!(got, status, "{text}");
        assert!(text.contains(part), "`{part}` is not in: {text}");
    };
    let mut inspector = EnsInspector::default();
    let (any, lan, not_address) = (c("127.0.0.1:0"), c("0.0.0.0:0"), c("no address"));
    // SAFETY: valid pointers, or NULL where the test says.
    unsafe {
        assert_fails(
            ens_inspector_bind(lan.as_ptr(), null(), false, &mut inspector),
            EnsStatus::InvalidArgument,
            "needs a token",
        );
        assert_fails(
            ens_inspector_bind(not_address.as_ptr(), null(), false, &mut inspector),
            EnsStatus::InvalidArgument,
            "`no address`",
        );
        assert_fails(
            ens_inspector_bind(null(), null(), false, &mut inspector),
            EnsStatus::NullArgument,
            "`address`",
        );
        assert_fails(
            ens_inspector_bind(any.as_ptr(), null(), false, null_mut()),
            EnsStatus::NullArgument,
            "`out`",
        );
    }
    let (live, address) = bind(false);
    let taken = c(&address);
    // SAFETY: valid pointers.
    assert_fails(
        unsafe { ens_inspector_bind(taken.as_ptr(), null(), false, &mut inspector) },
        EnsStatus::Network,
        "cannot listen on",
    );
    let program = load(&support::root().join("runtime/examples/tavern/tavern.ensb"));
    let mut flow = EnsFlow::Tick;
    // SAFETY: valid pointers, or NULL where the test says.
    unsafe {
        assert_fails(
            ens_inspector_frame(live, EnsScene { id: program.id }, &mut flow),
            EnsStatus::WrongHandleKind,
            "a program handle",
        );
        assert_fails(
            ens_inspector_frame(
                EnsInspector { id: program.id },
                EnsScene::default(),
                &mut flow,
            ),
            EnsStatus::WrongHandleKind,
            "inspector was expected",
        );
        assert_fails(
            ens_inspector_frame(live, EnsScene::default(), null_mut()),
            EnsStatus::NullArgument,
            "`out`",
        );
    }
    ok(ens_inspector_free(live));
    assert_fails(
        ens_inspector_free(live),
        EnsStatus::StaleHandle,
        "inspector handle was freed",
    );
    ok(ens_program_free(program));
}

// ---- a world of callbacks that keeps variables and does nothing else ----

/// Each agent's variables, as C strings the `variable` callback hands out.
#[derive(Default)]
struct Variables(std::sync::Mutex<BTreeMap<(u32, String), CString>>);

impl Variables {
    fn get(&self, agent: u32, name: &str) -> Option<String> {
        let map = self.0.lock().expect("lock");
        map.get(&(agent, name.to_string()))
            .map(|v| v.to_string_lossy().into_owned())
    }
}

/// # Safety
/// `user_data` is the `Variables` given to `world`.
unsafe fn variables_of<'a>(user_data: *mut c_void) -> &'a Variables {
    // SAFETY: as the caller promises.
    unsafe { &*user_data.cast::<Variables>() }
}

/// # Safety
/// `p` is a NUL-terminated string.
unsafe fn text(p: *const c_char) -> String {
    // SAFETY: as the caller promises.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

unsafe extern "C" fn variable(data: *mut c_void, agent: u32, name: *const c_char) -> *const c_char {
    // SAFETY: the world's user data and the runtime's string.
    let (variables, name) = unsafe { (variables_of(data), text(name)) };
    let map = variables.0.lock().expect("lock");
    // The CString's buffer stays where it is until the variable is set again.
    map.get(&(agent, name)).map_or(null(), |v| v.as_ptr())
}
unsafe extern "C" fn set_variable(
    data: *mut c_void,
    agent: u32,
    name: *const c_char,
    value: *const c_char,
) {
    // SAFETY: the world's user data and the runtime's strings.
    let (variables, name, value) = unsafe { (variables_of(data), text(name), text(value)) };
    let mut map = variables.0.lock().expect("lock");
    map.insert((agent, name), c(&value));
}
fn world(variables: &'static Variables) -> EnsWorldCallbacks {
    EnsWorldCallbacks {
        user_data: std::ptr::from_ref(variables).cast_mut().cast(),
        variable: Some(variable),
        set_variable: Some(set_variable),
        ..support::quiet_world()
    }
}

#[test]
fn the_host_reads_every_event_once_before_during_and_after_an_inspector() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = load(&support::build("samples/airport", dir.path(), "airport"));
    let cli = support::airport_cli_trace("ticket-counter", "7", "60");
    let mut scene = EnsScene::default();
    let name = c("ticket-counter");
    // SAFETY: valid pointers.
    ok(unsafe { ens_scene_start_simulated(program, name.as_ptr(), 7, &mut scene) });
    let mut trace = String::new();
    let mut inspector = None;
    for tick in 0..=60 {
        if tick == 20 {
            inspector = Some(bind(false).0);
        }
        if tick == 40 {
            ok(ens_inspector_free(inspector.take().expect("bound")));
        }
        if let Some(inspector) = inspector {
            let mut flow = EnsFlow::Hold;
            // SAFETY: valid out-pointer.
            ok(unsafe { ens_inspector_frame(inspector, scene, &mut flow) });
            assert_eq!(flow, EnsFlow::Tick, "no tool holds it");
        }
        if tick > 0 {
            ok(ens_scene_tick(scene));
        }
        // Taken every other tick, so that the inspector reads some events first.
        if tick % 2 == 0 {
            trace += &take_trace(scene);
        }
    }
    trace += &take_trace(scene);
    assert!(
        trace == cli,
        "the host's trace differs from `ensemble run`'s at {}",
        support::first_difference(&cli, &trace)
    );
    ok(ens_scene_free(scene));
    ok(ens_program_free(program));
}
