//! `ensemble build`: output files, running a built program, and refusing damaged programs.

use ensemble_tests::{ensemble, repo_path};

fn build_airport(dir: &std::path::Path) -> std::path::PathBuf {
    let out = ensemble(&[
        "build",
        &repo_path("samples/airport"),
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ensb = dir.join("airport.ensb");
    assert!(ensb.is_file());
    assert!(dir.join("airport.ensdbg").is_file());
    ensb
}

fn run(program: &str) -> ensemble_tests::Output {
    ensemble(&[
        "run",
        program,
        "--scene",
        "ticket-counter",
        "--ticks",
        "2000",
        "--seed",
        "7",
        "--trace",
        "json",
    ])
}

#[test]
fn a_built_program_runs_exactly_like_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let ensb = build_airport(dir.path());
    let from_binary = run(ensb.to_str().unwrap());
    assert_eq!(from_binary.code, 0, "{}", from_binary.stderr);
    let from_source = run(&repo_path("samples/airport"));
    assert_eq!(from_binary.stdout, from_source.stdout);
}

#[test]
fn builds_are_reproducible_and_leave_no_temporary_files() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let x = std::fs::read(build_airport(a.path())).unwrap();
    let y = std::fs::read(build_airport(b.path())).unwrap();
    assert_eq!(x, y);
    // Building again over existing output replaces it atomically.
    build_airport(a.path());
    let names: Vec<_> = std::fs::read_dir(a.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn debug_symbols_point_at_the_sources() {
    let dir = tempfile::tempdir().unwrap();
    let ensb = build_airport(dir.path());
    let program = ensemble_runtime::Program::load(&ensb).unwrap();
    let bytes = std::fs::read(dir.path().join("airport.ensdbg")).unwrap();
    let debug = ensemble_runtime::program::debug::DebugInfo::from_bytes(&bytes).unwrap();
    assert_eq!(debug.program_checksum, program.checksum());
    let machine = program.machine_by_name("StandSellTicket").unwrap();
    let goto = program.state_by_name(machine, "Goto1").unwrap();
    let at = debug.describe(debug.states[goto.index()]).unwrap();
    assert_eq!(at, "machines/StandSellTicket.machine.ron:7:16");
}

#[test]
fn damaged_programs_are_refused_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let ensb = build_airport(dir.path());
    let good = std::fs::read(&ensb).unwrap();
    let bad = dir.path().join("bad.ensb");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..good.len() / 2].to_vec(), "truncated"),
        ("empty", Vec::new(), "empty"),
        (
            "flipped",
            {
                let mut b = good.clone();
                let i = b.len() - 10;
                b[i] ^= 0x40;
                b
            },
            "checksum",
        ),
        (
            "wrong version",
            {
                let mut b = good.clone();
                b[8] = 42;
                b
            },
            "version 42",
        ),
        ("not a program", b"Machine(name: \"x\")".to_vec(), "magic"),
    ];
    for (what, bytes, needle) in cases {
        std::fs::write(&bad, bytes).unwrap();
        let out = run(bad.to_str().unwrap());
        assert!(out.code == 1 || out.code == 2, "{what}: exit {}", out.code);
        assert!(out.stderr.contains(needle), "{what}: {}", out.stderr);
        assert!(out.stdout.is_empty(), "{what}: printed a trace");
    }
    let out = run(dir.path().join("missing.ensb").to_str().unwrap());
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("cannot read"), "{}", out.stderr);
}

#[test]
fn a_failed_build_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = ensemble(&[
        "build",
        &repo_path("samples/airport/broken"),
        "-o",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
