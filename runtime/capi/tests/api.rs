//! The C ABI called as C calls it (through the exported functions), for what the C hosts do
//! not show: every kind of bad input is an error code with a message, never a crash — a
//! corrupt program, a stale handle after free, a foreign or mistyped handle, NULL arguments,
//! a bad snapshot, a callback re-entering its own scene — and savegames and hot reload on the
//! simulated world.

mod support;

use ensemble_capi::cx::ens_cx_raise;
use ensemble_capi::handles::{EnsLibrary, EnsProgram, EnsScene};
use ensemble_capi::library::*;
use ensemble_capi::program::*;
use ensemble_capi::scene::*;
use ensemble_capi::world::*;
use ensemble_capi::*;
use std::ffi::{CStr, CString, c_char, c_void};
use std::path::Path;
use std::ptr::{null, null_mut};

fn message() -> String {
    // SAFETY: never NULL, valid until the next failing call on this thread.
    unsafe { CStr::from_ptr(ens_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

/// Asserts a call failed with `status` and a message containing each of `parts`.
fn assert_fails(got: EnsStatus, status: EnsStatus, parts: &[&str]) {
    let text = message();
    assert_eq!(got, status, "message: {text}");
    for part in parts {
        assert!(
            text.contains(part),
            "`{part}` is not in the message: {text}"
        );
    }
}

fn c(text: &str) -> CString {
    CString::new(text).expect("no NUL")
}

fn load(path: &Path) -> EnsProgram {
    let mut program = EnsProgram::default();
    let path = c(path.to_str().expect("UTF-8 path"));
    // SAFETY: valid string and out-pointer.
    let status = unsafe { ens_program_load_file(path.as_ptr(), &mut program) };
    assert_eq!(status, EnsStatus::Ok, "{}", message());
    program
}

/// The forge fixture (its `Hammer` is the host's state) built into `dir` and loaded.
fn forge(dir: &Path) -> EnsProgram {
    load(&support::build("runtime/capi/tests/forge", dir, "forge"))
}

fn tavern() -> std::path::PathBuf {
    support::root().join("runtime/examples/tavern/tavern.ensb")
}

fn start_simulated(program: EnsProgram, name: &str, seed: u64) -> EnsScene {
    let mut scene = EnsScene::default();
    let name = c(name);
    // SAFETY: valid string and out-pointer.
    let status = unsafe { ens_scene_start_simulated(program, name.as_ptr(), seed, &mut scene) };
    assert_eq!(status, EnsStatus::Ok, "{}", message());
    scene
}

/// The string a call hands out through its out-pointer, copied and freed.
fn string_out(call: impl FnOnce(*mut *mut c_char) -> EnsStatus) -> String {
    let mut text: *mut c_char = null_mut();
    assert_eq!(call(&mut text), EnsStatus::Ok, "{}", message());
    // SAFETY: the call succeeded, so `text` is its NUL-terminated string, freed here once.
    unsafe {
        let copy = CStr::from_ptr(text).to_string_lossy().into_owned();
        ens_string_free(text);
        copy
    }
}

fn take_trace(scene: EnsScene) -> String {
    // SAFETY: a valid out-pointer.
    string_out(|out| unsafe { ens_scene_take_trace_json(scene, out) })
}

fn ticks(scene: EnsScene, n: usize) -> String {
    let mut trace = String::new();
    for _ in 0..n {
        assert_eq!(ens_scene_tick(scene), EnsStatus::Ok, "{}", message());
        trace += &take_trace(scene);
    }
    trace
}

fn save(scene: EnsScene) -> Vec<u8> {
    let (mut bytes, mut len) = (null_mut(), 0usize);
    // SAFETY: valid out-pointers; the buffer is freed below.
    unsafe {
        assert_eq!(
            ens_scene_save(scene, &mut bytes, &mut len),
            EnsStatus::Ok,
            "{}",
            message()
        );
        let copy = std::slice::from_raw_parts(bytes, len).to_vec();
        ens_bytes_free(bytes, len);
        copy
    }
}

#[test]
fn corrupt_truncated_and_missing_programs_are_load_errors() {
    let mut out = EnsProgram::default();
    let garbage = b"this is not a program at all";
    let name = c("garbage");
    // SAFETY: valid pointers and lengths.
    let status =
        unsafe { ens_program_load_bytes(garbage.as_ptr(), garbage.len(), name.as_ptr(), &mut out) };
    assert_fails(
        status,
        EnsStatus::Load,
        &["ens_program_load_bytes", "cannot load the program"],
    );
    assert_eq!(out, EnsProgram::default(), "nothing is written on failure");

    let bytes = std::fs::read(tavern()).expect("the tavern's program");
    let half = &bytes[..bytes.len() / 2];
    // SAFETY: as above; NULL name is allowed.
    let status = unsafe { ens_program_load_bytes(half.as_ptr(), half.len(), null(), &mut out) };
    assert_fails(status, EnsStatus::Load, &["cannot load the program"]);
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x55;
    // SAFETY: as above.
    let status =
        unsafe { ens_program_load_bytes(flipped.as_ptr(), flipped.len(), null(), &mut out) };
    assert_fails(status, EnsStatus::Load, &["cannot load the program"]);

    let missing = c("/no/such/dir/missing.ensb");
    // SAFETY: valid pointers.
    let status = unsafe { ens_program_load_file(missing.as_ptr(), &mut out) };
    assert_fails(
        status,
        EnsStatus::Load,
        &["ens_program_load_file", "/no/such/dir/missing.ensb"],
    );

    // The whole, untouched bytes load.
    // SAFETY: as above.
    let status =
        unsafe { ens_program_load_bytes(bytes.as_ptr(), bytes.len(), name.as_ptr(), &mut out) };
    assert_eq!(status, EnsStatus::Ok, "{}", message());
    assert_eq!(ens_program_free(out), EnsStatus::Ok);
}

#[test]
fn stale_foreign_mistyped_and_null_handles_are_refused() {
    let program = load(&tavern());
    let mut library = EnsLibrary::default();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { ens_library_new(&mut library) }, EnsStatus::Ok);

    // A handle of another kind.
    let as_scene = EnsScene { id: program.id };
    assert_fails(
        ens_scene_tick(as_scene),
        EnsStatus::WrongHandleKind,
        &["a program handle", "scene was expected"],
    );
    let as_program = EnsProgram { id: library.id };
    assert_fails(
        ens_program_free(as_program),
        EnsStatus::WrongHandleKind,
        &["library handle"],
    );
    // Numbers never given out: small ones, pointer-like ones, one beside a live handle.
    for id in [
        1u64,
        0xdead_beef,
        0x0000_7ffd_1234_5678,
        program.id + 1000,
        program.id ^ (1 << 40),
    ] {
        assert_fails(
            ens_scene_tick(EnsScene { id }),
            EnsStatus::InvalidHandle,
            &["not a handle this library gave out"],
        );
    }
    // A zeroed handle.
    assert_fails(
        ens_scene_tick(EnsScene::default()),
        EnsStatus::NullHandle,
        &["null"],
    );

    // Freed: every later use is stale, a second free too, and the slot's next object does
    // not answer to the old handle.
    assert_eq!(ens_library_free(library), EnsStatus::Ok);
    assert_fails(
        ens_library_free(library),
        EnsStatus::StaleHandle,
        &["ens_library_free", "was freed"],
    );
    let mut again = EnsLibrary::default();
    // SAFETY: valid out-pointer.
    assert_eq!(unsafe { ens_library_new(&mut again) }, EnsStatus::Ok);
    assert_ne!(again, library);
    assert_fails(
        ens_library_free(library),
        EnsStatus::StaleHandle,
        &["was freed"],
    );
    assert_eq!(ens_library_free(again), EnsStatus::Ok);

    assert_eq!(ens_program_free(program), EnsStatus::Ok);
    let name = c("evening");
    let mut out = EnsScene::default();
    // SAFETY: valid pointers.
    let status = unsafe { ens_scene_start_simulated(program, name.as_ptr(), 1, &mut out) };
    assert_fails(
        status,
        EnsStatus::StaleHandle,
        &["ens_scene_start_simulated", "program handle was freed"],
    );
}

#[test]
fn null_arguments_are_refused_by_name() {
    let mut program = EnsProgram::default();
    // SAFETY: NULL where the API allows detecting it.
    unsafe {
        assert_fails(
            ens_program_load_file(null(), &mut program),
            EnsStatus::NullArgument,
            &["`path` is NULL"],
        );
        let path = c(tavern().to_str().expect("UTF-8 path"));
        assert_fails(
            ens_program_load_file(path.as_ptr(), null_mut()),
            EnsStatus::NullArgument,
            &["`out`"],
        );
        assert_fails(
            ens_program_load_bytes(null(), 10, null(), &mut program),
            EnsStatus::NullArgument,
            &["`bytes` is NULL"],
        );
        assert_fails(
            ens_library_new(null_mut()),
            EnsStatus::NullArgument,
            &["`out`"],
        );
    }
    let program = load(&tavern());
    let mut library = EnsLibrary::default();
    let mut scene = EnsScene::default();
    let evening = c("evening");
    // SAFETY: as above.
    unsafe {
        assert_eq!(ens_library_new(&mut library), EnsStatus::Ok);
        assert_fails(
            ens_scene_start_simulated(program, null(), 1, &mut scene),
            EnsStatus::NullArgument,
            &["`name` is NULL"],
        );
        assert_fails(
            ens_scene_start(program, library, evening.as_ptr(), 1, null(), &mut scene),
            EnsStatus::NullArgument,
            &["`world` is NULL"],
        );
        // Every callback of a world is required: the first missing one is named.
        let mut world = world();
        world.say = None;
        assert_fails(
            ens_scene_start(program, library, evening.as_ptr(), 1, &world, &mut scene),
            EnsStatus::NullArgument,
            &["world callback `say` is NULL"],
        );
        assert_fails(
            ens_library_register(library, null(), null()),
            EnsStatus::NullArgument,
            &["`decl` is NULL"],
        );
        let decl = EnsStateDecl {
            name: null(),
            modifier: EnsModifierKind::None as i32,
            params: null(),
            param_count: 0,
            terminal: EnsTerminal::No as i32,
            raises: null(),
            raise_count: 0,
            doc: null(),
        };
        assert_fails(
            ens_library_register(library, &decl, &support::no_code()),
            EnsStatus::NullArgument,
            &["`decl.name` is NULL"],
        );
        assert_fails(
            ens_cx_raise(null_mut(), null()),
            EnsStatus::NullArgument,
            &["`cx` is NULL"],
        );
        let invalid = [0xffu8, 0xfe, 0];
        assert_fails(
            ens_scene_start_simulated(program, invalid.as_ptr().cast(), 1, &mut scene),
            EnsStatus::InvalidUtf8,
            &["`name` is not UTF-8"],
        );
    }
    assert_eq!(ens_library_free(library), EnsStatus::Ok);
    assert_eq!(ens_program_free(program), EnsStatus::Ok);
}

fn stand_ins(scene: EnsScene) -> String {
    // SAFETY: a valid out-pointer.
    string_out(|out| unsafe { ens_scene_stand_ins(scene, out) })
}

#[test]
fn the_simulated_world_stands_in_for_the_games_own_states() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = forge(dir.path());
    // The forge's `Hammer` is the host's state (examples/forge.c): without the host, the
    // simulated world stands in for it, and says so.
    let scene = start_simulated(program, "morning", 7);
    assert_eq!(
        stand_ins(scene),
        "`Hammer` is the game's; standing it in: 1 s, then raises `Done`\n"
    );
    let trace = take_trace(scene) + &ticks(scene, 200);
    let at = |what: &str| {
        trace
            .lines()
            .find(|l| l.contains(what))
            .unwrap_or_else(|| panic!("no `{what}` in the trace:\n{trace}"))
    };
    let tick = |line: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        v["tick"].as_u64().unwrap()
    };
    let entered = tick(at(r#""event":"enter","machine":"Forge","state":"Hammer""#));
    let left = tick(at(r#""event":"exit","machine":"Forge","state":"Hammer""#));
    assert_eq!(left - entered, 10, "one second at 10 ticks a second");
    at(r#""event":"enter","machine":"Forge","state":"Hand""#);
    at(r#""event":"enter","machine":"Customer","state":"Finish""#);
    // A savegame restored on the simulated world stands in again.
    let bytes = save(scene);
    let mut restored = EnsScene::default();
    // SAFETY: valid pointers.
    let status =
        unsafe { ens_scene_restore_simulated(program, bytes.as_ptr(), bytes.len(), &mut restored) };
    assert_eq!(status, EnsStatus::Ok, "{}", message());
    assert!(stand_ins(restored).contains("`Hammer`"));
    // The tavern's `Sip` too; and a scene on the host's world gets none.
    let tavern = load(&tavern());
    let evening = start_simulated(tavern, "evening", 1);
    assert!(stand_ins(evening).starts_with("`Sip` is the game's"));
    for s in [scene, restored, evening] {
        assert_eq!(ens_scene_free(s), EnsStatus::Ok);
    }
    for p in [program, tavern] {
        assert_eq!(ens_program_free(p), EnsStatus::Ok);
    }
}

#[test]
fn a_scene_whose_states_do_not_link_says_which() {
    let program = load(&tavern());
    let evening = c("evening");
    let mut scene = EnsScene::default();
    // The tavern's own `Sip` is not in an empty library: a host's world gets no stand-in.
    let mut library = EnsLibrary::default();
    // SAFETY: valid pointers.
    unsafe {
        assert_eq!(ens_library_new(&mut library), EnsStatus::Ok);
        let status = ens_scene_start(program, library, evening.as_ptr(), 1, &world(), &mut scene);
        assert_fails(status, EnsStatus::Scene, &["Sip"]);
        // Declared with another modifier than the program's (`Number`): refused, named.
        let name = c("Sip");
        let decl = EnsStateDecl {
            name: name.as_ptr(),
            modifier: EnsModifierKind::Text as i32,
            params: null(),
            param_count: 0,
            terminal: EnsTerminal::No as i32,
            raises: null(),
            raise_count: 0,
            doc: null(),
        };
        assert_eq!(
            ens_library_register(library, &decl, &support::no_code()),
            EnsStatus::Ok
        );
        let status = ens_scene_start(program, library, evening.as_ptr(), 1, &world(), &mut scene);
        assert_fails(
            status,
            EnsStatus::Scene,
            &["Sip", "text", "number", "ens_library_register_declared"],
        );
        // Registered as the program declares it (its statelib's entry): it starts and runs.
        assert_eq!(
            ens_library_register_declared(library, name.as_ptr(), &support::no_code()),
            EnsStatus::Ok
        );
        let status = ens_scene_start(program, library, evening.as_ptr(), 1, &world(), &mut scene);
        assert_eq!(status, EnsStatus::Ok, "{}", message());
        assert_eq!(ens_scene_tick(scene), EnsStatus::Ok, "{}", message());
        assert_eq!(ens_scene_free(scene), EnsStatus::Ok);
        assert_fails(
            ens_library_register_declared(library, null(), &support::no_code()),
            EnsStatus::NullArgument,
            &["`name`"],
        );
        // A value that is no EnsModifierKind.
        let bad = EnsStateDecl {
            modifier: 42,
            ..decl
        };
        assert_fails(
            ens_library_register(library, &bad, &support::no_code()),
            EnsStatus::InvalidArgument,
            &["modifier 42 is no EnsModifierKind"],
        );
        let unknown = c("no-such-scene");
        let status = ens_scene_start(program, library, unknown.as_ptr(), 1, &world(), &mut scene);
        assert_fails(
            status,
            EnsStatus::Scene,
            &["no scene `no-such-scene`", "evening"],
        );
    }
    assert_eq!(ens_library_free(library), EnsStatus::Ok);
    assert_eq!(ens_program_free(program), EnsStatus::Ok);
}

#[test]
fn savegames_restore_exactly_and_bad_snapshots_are_refused() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = load(&support::build("samples/airport", dir.path(), "airport"));
    let scene = start_simulated(program, "ticket-counter", 7);
    take_trace(scene);
    ticks(scene, 150);
    let bytes = save(scene);
    let uninterrupted = ticks(scene, 300);
    assert!(
        uninterrupted.contains("\"say\""),
        "the scene goes on after the save"
    );

    let mut restored = EnsScene::default();
    // SAFETY: valid pointers.
    let status =
        unsafe { ens_scene_restore_simulated(program, bytes.as_ptr(), bytes.len(), &mut restored) };
    assert_eq!(status, EnsStatus::Ok, "{}", message());
    take_trace(restored);
    assert_eq!(
        ticks(restored, 300),
        uninterrupted,
        "the restored scene goes on as the saved one did"
    );
    let (mut t, mut now) = (0u64, 0f64);
    // SAFETY: valid out-pointers.
    assert_eq!(
        unsafe { ens_scene_clock(restored, &mut t, &mut now) },
        EnsStatus::Ok
    );
    assert_eq!(t, 450);

    // Bad snapshots: garbage, a truncated one, another program's, a simulated one for the
    // host's world.
    let mut out = EnsScene::default();
    // SAFETY: valid pointers and lengths.
    unsafe {
        let garbage = [7u8; 64];
        let status =
            ens_scene_restore_simulated(program, garbage.as_ptr(), garbage.len(), &mut out);
        assert_fails(
            status,
            EnsStatus::Snapshot,
            &["ens_scene_restore_simulated", "cannot restore"],
        );
        let status =
            ens_scene_restore_simulated(program, bytes.as_ptr(), bytes.len() - 9, &mut out);
        assert_fails(status, EnsStatus::Snapshot, &["cannot restore"]);
        let tavern = load(&tavern());
        let status = ens_scene_restore_simulated(tavern, bytes.as_ptr(), bytes.len(), &mut out);
        assert_fails(status, EnsStatus::Snapshot, &["airport", "tavern"]);
        let mut library = EnsLibrary::default();
        assert_eq!(ens_library_new(&mut library), EnsStatus::Ok);
        let status = ens_scene_restore(
            program,
            library,
            bytes.as_ptr(),
            bytes.len(),
            &world(),
            &mut out,
        );
        assert_fails(
            status,
            EnsStatus::Snapshot,
            &["not of a scene in the host's world"],
        );
        assert_fails(
            ens_scene_restore_simulated(program, null(), 5, &mut out),
            EnsStatus::NullArgument,
            &["`bytes` is NULL"],
        );
        assert_eq!(out, EnsScene::default(), "nothing is written on failure");
        assert_eq!(ens_library_free(library), EnsStatus::Ok);
        assert_eq!(ens_program_free(tavern), EnsStatus::Ok);
    }

    // Hot reload: the same build again is carried across; another project's is refused and
    // the old program goes on.
    let again = load(&dir.path().join("airport.ensb"));
    let reason = c("airport.ensb changed");
    // SAFETY: valid pointers.
    assert_eq!(
        unsafe { ens_scene_reload(restored, again, reason.as_ptr()) },
        EnsStatus::Ok,
        "{}",
        message()
    );
    assert!(
        take_trace(restored).contains("\"event\":\"reload\",\"reason\":\"airport.ensb changed\"")
    );
    let tavern = load(&tavern());
    // SAFETY: NULL reason is allowed.
    let status = unsafe { ens_scene_reload(restored, tavern, null()) };
    assert_fails(status, EnsStatus::Reload, &["ens_scene_reload", "refused"]);
    assert!(take_trace(restored).contains("reload-rejected"));
    assert_eq!(
        ens_scene_tick(restored),
        EnsStatus::Ok,
        "the old program goes on"
    );

    for handle in [scene, restored] {
        assert_eq!(ens_scene_free(handle), EnsStatus::Ok);
        assert_fails(
            ens_scene_tick(handle),
            EnsStatus::StaleHandle,
            &["scene handle was freed"],
        );
    }
    for p in [program, again, tavern] {
        assert_eq!(ens_program_free(p), EnsStatus::Ok);
    }
}

#[test]
fn a_callback_that_reenters_its_own_scene_is_told_busy() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = forge(dir.path());
    let mut library = EnsLibrary::default();
    let (hammer, strikes, metal, iron, bronze, done) = (
        c("Hammer"),
        c("strikes"),
        c("metal"),
        c("iron"),
        c("bronze"),
        c("Done"),
    );
    let words = [iron.as_ptr(), bronze.as_ptr()];
    let default = c("\"iron\"");
    let params = [
        EnsParamDecl {
            name: strikes.as_ptr(),
            kind: EnsParamKind::Number as i32,
            list: false,
            words: null(),
            word_count: 0,
            default_json: null(),
        },
        EnsParamDecl {
            name: metal.as_ptr(),
            kind: EnsParamKind::OneOf as i32,
            list: false,
            words: words.as_ptr(),
            word_count: 2,
            default_json: default.as_ptr(),
        },
    ];
    let raises = [done.as_ptr()];
    let decl = EnsStateDecl {
        name: hammer.as_ptr(),
        modifier: EnsModifierKind::None as i32,
        params: params.as_ptr(),
        param_count: 2,
        terminal: EnsTerminal::No as i32,
        raises: raises.as_ptr(),
        raise_count: 1,
        doc: null(),
    };
    let morning = c("morning");
    let mut scene = EnsScene::default();
    // SAFETY: valid pointers throughout.
    unsafe {
        assert_eq!(ens_library_new(&mut library), EnsStatus::Ok);
        // A default that is not JSON is refused, saying which parameter.
        let bad_default = c("iron");
        let mut bad = params;
        bad[1].default_json = bad_default.as_ptr();
        let bad_decl = EnsStateDecl {
            params: bad.as_ptr(),
            ..decl
        };
        assert_fails(
            ens_library_register(library, &bad_decl, &support::no_code()),
            EnsStatus::InvalidArgument,
            &["`Hammer`", "`metal`", "not JSON"],
        );
        assert_eq!(
            ens_library_register(library, &decl, &support::no_code()),
            EnsStatus::Ok,
            "{}",
            message()
        );
        let status = ens_scene_start(program, library, morning.as_ptr(), 1, &world(), &mut scene);
        assert_eq!(status, EnsStatus::Ok, "{}", message());
        SCENE.store(scene.id, Ordering::SeqCst);
        for _ in 0..5 {
            assert_eq!(ens_scene_tick(scene), EnsStatus::Ok, "{}", message());
        }
        // The apprentice set off in tick 1: its move_to called back into the scene.
        assert_eq!(REENTERED.load(Ordering::SeqCst), EnsStatus::Busy as i32);
        assert!(
            REENTRY_MESSAGE
                .lock()
                .expect("lock")
                .contains("in use by a call still running")
        );
        assert_eq!(ens_scene_free(scene), EnsStatus::Ok);
        assert_eq!(ens_library_free(library), EnsStatus::Ok);
        assert_eq!(ens_program_free(program), EnsStatus::Ok);
    }
}

// ---- a world of callbacks that does nothing, except re-enter its scene when asked to move ----

use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};

static SCENE: AtomicU64 = AtomicU64::new(0);
static REENTERED: AtomicI32 = AtomicI32::new(-1);
static REENTRY_MESSAGE: Mutex<String> = Mutex::new(String::new());

unsafe extern "C" fn move_to(_: *mut c_void, _: u32, _: *const EnsDestination, _: f64, _: f64) {
    let id = SCENE.load(Ordering::SeqCst);
    if id != 0 {
        REENTERED.store(ens_scene_tick(EnsScene { id }) as i32, Ordering::SeqCst);
        *REENTRY_MESSAGE.lock().expect("lock") = message();
    }
}

fn world() -> EnsWorldCallbacks {
    EnsWorldCallbacks {
        move_to: Some(move_to),
        ..support::quiet_world()
    }
}

#[test]
fn a_savegame_restored_onto_a_patched_roster_reports_the_agents_added_and_removed() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let shipped = load(&support::build("samples/airport", dir.path(), "airport"));
    let scene = start_simulated(shipped, "ticket-counter", 7);
    ticks(scene, 30);
    let bytes = save(scene);
    // The patch: buyer2 gone, buyer3 in its place.
    let patched = dir.path().join("patched");
    std::fs::create_dir_all(&patched).unwrap();
    for entry in walk(&support::root().join("samples/airport")) {
        let rel = entry
            .strip_prefix(support::root().join("samples/airport"))
            .unwrap();
        let to = patched.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&entry, &to).unwrap();
    }
    std::fs::remove_file(patched.join("ticket-counter.test.ron")).unwrap();
    let scene_file = patched.join("ticket-counter.scene.ron");
    let text = std::fs::read_to_string(&scene_file).unwrap();
    std::fs::write(&scene_file, text.replace("\"buyer2\"", "\"buyer3\"")).unwrap();
    let out = dir.path().join("patched-build");
    std::fs::create_dir_all(&out).unwrap();
    let new = load(&support::build(patched.to_str().unwrap(), &out, "airport"));
    let mut restored = EnsScene::default();
    // SAFETY: valid pointers.
    let status =
        unsafe { ens_scene_restore_simulated(new, bytes.as_ptr(), bytes.len(), &mut restored) };
    assert_eq!(status, EnsStatus::Ok, "{}", message());
    // SAFETY: a valid out-pointer.
    let report = string_out(|o| unsafe { ens_scene_restore_report(restored, o) });
    assert!(
        report.contains(r#"{"agent":3,"change":"added","name":"buyer3"}"#),
        "{report}"
    );
    assert!(
        report.contains(r#"{"agent":2,"change":"removed","name":"buyer2"}"#),
        "{report}"
    );
    ticks(restored, 30);
    // Started afresh, a scene has nothing to report.
    // SAFETY: a valid out-pointer.
    assert_eq!(
        string_out(|o| unsafe { ens_scene_restore_report(scene, o) }),
        ""
    );
    for s in [scene, restored] {
        assert_eq!(ens_scene_free(s), EnsStatus::Ok);
    }
    for p in [shipped, new] {
        assert_eq!(ens_program_free(p), EnsStatus::Ok);
    }
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}
