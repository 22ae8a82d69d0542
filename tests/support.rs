//! Shared helpers for the end-to-end tests: run the real `ensemble` command line in-process
//! (to the end, or on a thread of its own while a raw tool speaks the inspection protocol to
//! it) and find the repository's samples.

use ensemble_runtime::inspect::protocol::{
    FromGame, GameMessage, PROTOCOL_VERSION, ToolMessage, decode_from_game, encode,
};
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// What one invocation printed and returned.
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `ensemble ARGS...` exactly as the binary would, capturing its output.
pub fn ensemble(args: &[&str]) -> Output {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = {
        let mut io = ensemble_cli::Io {
            out: &mut out,
            err: &mut err,
            color: false,
        };
        let argv = std::iter::once("ensemble").chain(args.iter().copied());
        ensemble_cli::run(argv, &mut io)
    };
    Output {
        code,
        stdout: String::from_utf8(out).expect("stdout is UTF-8"),
        stderr: String::from_utf8(err).expect("stderr is UTF-8"),
    }
}

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A path below the repository root, as a string for argument lists.
pub fn repo_path(rel: &str) -> String {
    root().join(rel).to_string_lossy().into_owned()
}

/// Compares `actual` with the golden file `tests/golden/NAME`; with `UPDATE_GOLDEN=1` rewrites it.
pub fn assert_golden(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden file");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}); run with UPDATE_GOLDEN=1 to create it",
            path.display()
        )
    });
    if expected != actual {
        panic!(
            "{name} differs from the golden file at {}\n(run with UPDATE_GOLDEN=1 if the change is intended)",
            first_difference(&expected, actual)
        );
    }
}

/// Where two traces first differ: the line number and both lines.
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

/// Parses a JSON-lines trace (`ensemble run --trace json`), one event per line.
pub fn json_lines(trace: &str) -> Vec<serde_json::Value> {
    trace
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line ({e}): {l}")))
        .collect()
}

/// `ensemble run SAMPLE --scene SCENE` with a tick count, a seed and a failure rate, as a JSON
/// trace: the raw lines and the parsed events.
pub fn run_trace(
    sample: &str,
    scene: &str,
    ticks: u64,
    seed: u64,
    fail_rate: &str,
) -> (String, Vec<serde_json::Value>) {
    let out = ensemble(&[
        "run",
        &repo_path(sample),
        "--scene",
        scene,
        "--ticks",
        &ticks.to_string(),
        "--seed",
        &seed.to_string(),
        "--trace",
        "json",
        "--fail-rate",
        fail_rate,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let events = json_lines(&out.stdout);
    (out.stdout, events)
}

/// The arguments of an `add`/`del` event's fact if it is of `predicate`: `reserved(seat1,elder)`
/// gives `["seat1", "elder"]`.
pub fn fact_args(e: &serde_json::Value, predicate: &str) -> Option<Vec<String>> {
    let fact = e["fact"].as_str()?;
    let inner = fact
        .strip_prefix(predicate)?
        .strip_prefix('(')?
        .strip_suffix(')')?;
    Some(inner.split(',').map(str::to_string).collect())
}

/// The 1-based line and column where `at` first occurs in `text` (what diagnostics report).
pub fn line_col(text: &str, at: &str) -> (u64, u64) {
    let offset = text
        .find(at)
        .unwrap_or_else(|| panic!("`{at}` is not in the text"));
    let line = text[..offset].matches('\n').count() + 1;
    let column = offset - text[..offset].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line as u64, column as u64)
}

/// `ensemble import` of a sample's workbook gives exactly the committed native asset.
pub fn assert_import_reproduces(workbook: &str, asset: &str) {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = dir.path().join("imported.script.ron");
    let r = ensemble(&["import", &repo_path(workbook), "-o", out.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(repo_path(asset)).unwrap(),
        "re-import {workbook} after changing it"
    );
}

/// Builds a project with `ensemble build` and loads the program it wrote.
pub fn build_program(project: &std::path::Path, name: &str) -> ensemble_runtime::Program {
    let dir = tempfile::tempdir().expect("temporary folder");
    let out = ensemble(&[
        "build",
        project.to_str().unwrap(),
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    ensemble_runtime::Program::load(&dir.path().join(format!("{name}.ensb"))).unwrap()
}

/// Copies the folder `from` and everything in it to `to` (a sample to edit in a test).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// Replaces `from` by `to` in `file` of `project` (which must have it).
pub fn edit(project: &std::path::Path, file: &str, from: &str, to: &str) {
    let path = project.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} has {from}");
    std::fs::write(&path, text.replace(from, to)).unwrap();
}

/// A writer that sends each line it is given down a channel, so a test reads a running
/// command's output as it comes.
struct Lines {
    partial: Vec<u8>,
    to: Sender<String>,
}

impl Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.partial.extend_from_slice(buf);
        while let Some(end) = self.partial.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let text = String::from_utf8_lossy(&line[..end]).into_owned();
            let _ = self.to.send(text);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `ensemble ARGS` on a thread of its own: its exit code, and its output line by line.
pub struct Running {
    pub done: JoinHandle<i32>,
    pub out: Receiver<String>,
    pub err: Receiver<String>,
}

/// Runs `ensemble ARGS` on a thread of its own (a game serving tools, a tool attached to it).
pub fn spawn(args: Vec<String>) -> Running {
    let (out_tx, out) = channel();
    let (err_tx, err) = channel();
    let done = std::thread::spawn(move || {
        let mut o = Lines {
            partial: Vec::new(),
            to: out_tx,
        };
        let mut e = Lines {
            partial: Vec::new(),
            to: err_tx,
        };
        let mut io = ensemble_cli::Io {
            out: &mut o,
            err: &mut e,
            color: false,
        };
        ensemble_cli::run(std::iter::once("ensemble".to_string()).chain(args), &mut io)
    });
    Running { done, out, err }
}

/// Runs `ensemble ARGS` (a `run … --inspect ADDR`) on a thread of its own: the running command,
/// and the address it serves as its first stderr line says.
pub fn serve(args: Vec<String>) -> (Running, String) {
    let game = spawn(args);
    let announced = next(&game.err, "address on stderr");
    let address = announced
        .strip_prefix("inspecting on ")
        .unwrap_or_else(|| panic!("stderr says where: {announced}"))
        .to_string();
    (game, address)
}

/// The next line of a running command's output; fails the test after a minute without one.
pub fn next(lines: &Receiver<String>, what: &str) -> String {
    lines
        .recv_timeout(Duration::from_secs(60))
        .unwrap_or_else(|_| panic!("no {what} within a minute"))
}

/// A raw tool: the protocol by hand.
pub struct Tool {
    pub stream: TcpStream,
    pub reader: BufReader<TcpStream>,
}

impl Tool {
    pub fn connect(address: &str) -> Tool {
        Tool::connect_with(address, false)
    }

    /// A tool that asks for the trace (`trace`) or not.
    pub fn connect_with(address: &str, trace: bool) -> Tool {
        let stream = TcpStream::connect(address).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        let mut tool = Tool { stream, reader };
        tool.send(&ToolMessage::Hello {
            version: PROTOCOL_VERSION,
            token: None,
            trace,
        });
        assert!(matches!(tool.message(), GameMessage::Hello(_)));
        tool
    }

    pub fn send(&mut self, m: &ToolMessage) {
        self.stream.write_all(encode(m).as_bytes()).unwrap();
    }

    /// The next message with a `type` (a tool without the trace gets no other).
    pub fn message(&mut self) -> GameMessage {
        match self.line() {
            Some(FromGame::Message(m)) => m,
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// The next line, message or trace event; `None` when the game closed the connection.
    pub fn line(&mut self) -> Option<FromGame> {
        let mut line = Vec::new();
        if self.reader.read_until(b'\n', &mut line).unwrap() == 0 {
            return None;
        }
        Some(decode_from_game(line.trim_ascii_end()).unwrap())
    }
}
