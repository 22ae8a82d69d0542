//! Shared by the tests that build C hosts: the `ensemble` command line in-process (the same
//! code as the binary), and the system C compiler.
//!
//! The hosts are compiled by running `cc` (or `$CC`) directly: the `cc` crate's compiler
//! detection needs a build script's environment (TARGET, HOST, OPT_LEVEL), and a test that
//! runs the command a reader would type also proves the link line docs/embedding.md gives.

#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one run printed and returned.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `ensemble ARGS...` in-process, exactly as the binary would.
pub fn ensemble(args: &[&str]) -> Output {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = {
        let mut io = ensemble_cli::Io {
            out: &mut out,
            err: &mut err,
            color: false,
        };
        ensemble_cli::run(
            std::iter::once("ensemble").chain(args.iter().copied()),
            &mut io,
        )
    };
    Output {
        code,
        stdout: String::from_utf8(out).expect("stdout is UTF-8"),
        stderr: String::from_utf8(err).expect("stderr is UTF-8"),
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Builds the project at `project` (relative to the root) into `dir` with `ensemble build`,
/// returning the program's path.
pub fn build(project: &str, dir: &Path, name: &str) -> PathBuf {
    let project = root().join(project);
    let out = ensemble(&[
        "build",
        project.to_str().expect("UTF-8 path"),
        "-o",
        dir.to_str().expect("UTF-8 path"),
    ]);
    assert_eq!(
        out.code,
        0,
        "ensemble build {}: {}{}",
        project.display(),
        out.stdout,
        out.stderr
    );
    let program = dir.join(format!("{name}.ensb"));
    assert!(
        program.exists(),
        "ensemble build wrote no {}",
        program.display()
    );
    program
}

/// Where cargo put this crate's static library for the tests: beside the test binary, in
/// `target/PROFILE/deps` (`cargo test` does not copy it up to `target/PROFILE` as `cargo
/// build` does).
pub fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    exe.parent()
        .expect("the test binary is in a directory")
        .to_path_buf()
}

/// A C host (`examples/NAME.c`) or a C++ one (`examples/NAME.cpp`).
#[derive(Clone, Copy)]
pub enum Language {
    C,
    Cpp,
}

/// How a host links the library.
#[derive(Clone, Copy)]
pub enum Link {
    /// `libensemble_capi.a` and the system libraries the Rust standard library needs.
    Static,
    /// `-lensemble_capi` from the shared library, found at run time through the rpath.
    Shared,
}

/// Compiles the host `examples/NAME.c` (or `.cpp`) into `dir/NAME`, with every warning an
/// error, using the system compiler (`$CC` else `cc`; `$CXX` else `c++`) and the link lines
/// docs/embedding.md gives; returns the executable.
pub fn compile_host(name: &str, language: Language, link: Link, dir: &Path) -> PathBuf {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (variable, default, standard, extension) = match language {
        Language::C => ("CC", "cc", "-std=c11", "c"),
        Language::Cpp => ("CXX", "c++", "-std=c++17", "cpp"),
    };
    let compiler = std::env::var(variable).unwrap_or_else(|_| default.to_string());
    std::fs::create_dir_all(dir).expect("the output directory");
    let exe = dir.join(name);
    let source = crate_dir
        .join("examples")
        .join(format!("{name}.{extension}"));
    let mut command = Command::new(&compiler);
    command
        .args([standard, "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(crate_dir.join("include"))
        .arg(&source);
    let libraries = library_dir();
    match link {
        Link::Static => {
            command
                .arg(libraries.join("libensemble_capi.a"))
                .args(["-lpthread", "-ldl", "-lm"])
        }
        Link::Shared => command
            .arg(format!("-L{}", libraries.display()))
            .arg("-lensemble_capi")
            .arg(format!("-Wl,-rpath,{}", libraries.display())),
    };
    let status = command.arg("-o").arg(&exe).status().unwrap_or_else(|e| {
        panic!("cannot run the compiler `{compiler}` ({e}); set {variable} to choose one")
    });
    assert!(status.success(), "compiling {} failed", source.display());
    exe
}

/// Runs a compiled host.
pub fn run_host(exe: &Path, args: &[&str]) -> Output {
    // cargo puts target/PROFILE on LD_LIBRARY_PATH, which outranks the host's rpath: a
    // `libensemble_capi.so` left there by an earlier `cargo build` (of an older program
    // format) would be loaded instead of the one this test built.
    let out = Command::new(exe)
        .args(args)
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .expect("the host runs");
    Output {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8(out.stdout).expect("the host prints UTF-8"),
        stderr: String::from_utf8(out.stderr).expect("the host prints UTF-8"),
    }
}

/// Where two texts first differ: the line number and both lines.
pub fn first_difference(expected: &str, actual: &str) -> String {
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(expected.lines().count().min(actual.lines().count()));
    format!(
        "line {}:\n  expected: {}\n  actual:   {}",
        line + 1,
        expected.lines().nth(line).unwrap_or("<end>"),
        actual.lines().nth(line).unwrap_or("<end>")
    )
}

/// A tool attached to a game over the inspection protocol, written by hand as a test drives
/// it: blocking reads with a timeout, one message at a time.
pub struct Tool {
    stream: std::net::TcpStream,
    reader: std::io::BufReader<std::net::TcpStream>,
}

impl Tool {
    /// Connects to `address` and says hello (without the trace); returns the game's hello.
    pub fn connect(address: &str) -> (Tool, ensemble_runtime::inspect::protocol::Hello) {
        use ensemble_runtime::inspect::protocol::{GameMessage, PROTOCOL_VERSION, ToolMessage};
        let stream = std::net::TcpStream::connect(address).expect("the game listens");
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .expect("a read timeout");
        let reader = std::io::BufReader::new(stream.try_clone().expect("a second handle"));
        let mut tool = Tool { stream, reader };
        tool.send(&ToolMessage::Hello {
            version: PROTOCOL_VERSION,
            token: None,
            trace: false,
        });
        match tool.message() {
            GameMessage::Hello(hello) => (tool, hello),
            other => panic!("expected hello, got {other:?}"),
        }
    }

    pub fn send(&mut self, message: &ensemble_runtime::inspect::protocol::ToolMessage) {
        use std::io::Write;
        let line = ensemble_runtime::inspect::protocol::encode(message);
        self.stream
            .write_all(line.as_bytes())
            .expect("the game reads");
    }

    /// The next message from the game (a tool without the trace gets nothing else).
    pub fn message(&mut self) -> ensemble_runtime::inspect::protocol::GameMessage {
        use ensemble_runtime::inspect::protocol::{FromGame, decode_from_game};
        use std::io::BufRead;
        let mut line = Vec::new();
        let read = self
            .reader
            .read_until(b'\n', &mut line)
            .expect("the game answers");
        assert!(read > 0, "the game closed the connection");
        match decode_from_game(line.trim_ascii_end()).expect("a line of the protocol") {
            FromGame::Message(m) => m,
            FromGame::Trace(event) => panic!("a trace event to a tool that did not ask: {event}"),
        }
    }

    /// Sends `request` and returns the answer.
    pub fn ask(
        &mut self,
        request: &ensemble_runtime::inspect::protocol::ToolMessage,
    ) -> ensemble_runtime::inspect::protocol::GameMessage {
        self.send(request);
        self.message()
    }
}

/// What `ensemble run samples/airport --scene SCENE --trace json --seed SEED --ticks TICKS`
/// prints.
pub fn airport_cli_trace(scene: &str, seed: &str, ticks: &str) -> String {
    let airport = root().join("samples/airport");
    let cli = ensemble(&[
        "run",
        airport.to_str().expect("UTF-8 path"),
        "--scene",
        scene,
        "--trace",
        "json",
        "--seed",
        seed,
        "--ticks",
        ticks,
    ]);
    assert_eq!(cli.code, 0, "ensemble run: {}", cli.stderr);
    cli.stdout
}

// ---- a world of callbacks that does nothing (a test replaces the callbacks it watches) ----

use ensemble_capi::world::{
    EnsActionOutcome, EnsActionRequest, EnsDestination, EnsLine, EnsMoveEvent, EnsWorldCallbacks,
};
use std::ffi::{c_char, c_void};
use std::ptr::{null, null_mut};

unsafe extern "C" fn position(_: *mut c_void, _: u32, _: *mut f64) -> bool {
    false
}
unsafe extern "C" fn place(_: *mut c_void, _: u32, _: f64, _: f64) {}
unsafe extern "C" fn move_to(_: *mut c_void, _: u32, _: *const EnsDestination, _: f64, _: f64) {}
unsafe extern "C" fn follow_move(
    _: *mut c_void,
    _: u32,
    _: f64,
    _: f64,
    _: *mut *const c_char,
) -> i32 {
    EnsMoveEvent::Moving as i32
}
unsafe extern "C" fn stop_move(_: *mut c_void, _: u32) {}
unsafe extern "C" fn start_action(_: *mut c_void, _: *const EnsActionRequest, _: f64, _: f64) {}
unsafe extern "C" fn action_outcome(_: *mut c_void, _: u64, _: f64, _: f64) -> i32 {
    EnsActionOutcome::Running as i32
}
unsafe extern "C" fn cancel_action(_: *mut c_void, _: u64) {}
unsafe extern "C" fn variable(_: *mut c_void, _: u32, _: *const c_char) -> *const c_char {
    null()
}
unsafe extern "C" fn set_variable(_: *mut c_void, _: u32, _: *const c_char, _: *const c_char) {}
unsafe extern "C" fn remove_variable(_: *mut c_void, _: u32, _: *const c_char) -> *const c_char {
    null()
}
unsafe extern "C" fn say(_: *mut c_void, _: u32, _: *const EnsLine, _: f64, _: f64) {}
unsafe extern "C" fn still_speaking(_: *mut c_void, _: u32, _: f64, _: f64) -> bool {
    false
}

/// A world where nobody has a body, a move never arrives, an action never ends and nobody has
/// a variable.
pub fn quiet_world() -> EnsWorldCallbacks {
    EnsWorldCallbacks {
        user_data: null_mut(),
        position: Some(position),
        place: Some(place),
        move_to: Some(move_to),
        follow_move: Some(follow_move),
        stop_move: Some(stop_move),
        start_action: Some(start_action),
        action_outcome: Some(action_outcome),
        cancel_action: Some(cancel_action),
        variable: Some(variable),
        set_variable: Some(set_variable),
        remove_variable: Some(remove_variable),
        say: Some(say),
        still_speaking: Some(still_speaking),
    }
}

/// A library state whose code does nothing (its declaration is what a test is about).
pub fn no_code() -> ensemble_capi::library::EnsStateCallbacks {
    ensemble_capi::library::EnsStateCallbacks {
        user_data: null_mut(),
        init: None,
        update: None,
        cleanup: None,
        on_message: None,
        save: None,
        restore: None,
    }
}
