//! Hardened inputs, part two (issue 33): the readers added since issue 23 attacked from outside.
//! Every finding ends in a clear error with its location, a bounded wait or a refusal — never a
//! panic, a hang or a lost file. One test per finding, named after it.

use ensemble_runtime::Program;
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
use ensemble_tests::{copy_dir, ensemble, repo_path, root};
use std::path::Path;
use std::time::{Duration, Instant};

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temporary path")
}

/// A copy of `sample` in `dir`.
fn copy_of(sample: &str, dir: &Path) -> std::path::PathBuf {
    let project = dir.join(sample);
    copy_dir(&root().join("samples").join(sample), &project);
    project
}

// 1. Panics

#[test]
fn restoring_a_snapshot_after_an_agent_was_added_to_the_scene_is_refused_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let bench = copy_of("bench", dir.path());
    let snap = dir.path().join("s.snap");
    let saved = ensemble(&[
        "run",
        s(&bench),
        "--scene",
        "bench",
        "--ticks",
        "100",
        "--save",
        s(&snap),
    ]);
    assert_eq!(saved.code, 0, "{}", saved.stderr);
    // A third tourist after the second: the smart locations numbered the agents they spawn
    // after the scene's, so every number after it shifted (index out of bounds in the scene).
    let scene = bench.join("bench.scene.ron");
    let text = std::fs::read_to_string(&scene).unwrap();
    let second = r#"        (name: "tourist2", at: "EastGate", roles: ["tourist"], route: ["WestGate"], delay: 25.0),"#;
    assert!(text.contains(second));
    let third = second.replace("tourist2", "tourist3");
    std::fs::write(&scene, text.replace(second, &format!("{second}\n{third}"))).unwrap();
    let out = ensemble(&[
        "run",
        s(&bench),
        "--scene",
        "bench",
        "--ticks",
        "1000",
        "--restore",
        s(&snap),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.is_empty(), "{}", out.stdout);
    assert!(
        out.stderr.contains(&format!(
            "error: cannot restore {}: the snapshot cannot be restored: agent #4 of scene \
             `bench` is `tourist3` in the program, but",
            snap.display()
        )),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("agents were added, removed or reordered since the save"),
        "{}",
        out.stderr
    );
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

#[test]
fn speed_1e_300_with_inspect_or_watch_is_refused_at_parse_time_with_the_accepted_range() {
    let airport = repo_path("samples/airport");
    for serve in [&["--inspect", "127.0.0.1:0"][..], &["--watch"][..]] {
        for speed in ["1e-300", "0", "-1", "1e300", "NaN", "inf"] {
            let mut args = vec!["run", &airport, "--scene", "ticket-counter", "--ticks", "3"];
            args.extend_from_slice(serve);
            let speed_arg = format!("--speed={speed}");
            args.push(&speed_arg);
            let out = ensemble(&args);
            assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
            assert!(
                out.stderr.contains(&format!(
                    "`{speed}` is not a speed from 0.01 to 1000 (scene seconds per second)"
                )),
                "{args:?}: {}",
                out.stderr
            );
            assert!(out.stdout.is_empty(), "{}", out.stdout);
        }
    }
    // Both ends of the range run.
    for speed in ["0.01", "1000"] {
        let out = ensemble(&[
            "run",
            &airport,
            "--scene",
            "ticket-counter",
            "--ticks",
            "0",
            "--speed",
            speed,
        ]);
        assert_eq!(out.code, 0, "{speed}: {}", out.stderr);
    }
}

/// The airport built into `dir`, and a snapshot of its ticket counter after 30 ticks.
fn airport_snapshot(dir: &Path) -> (String, Vec<u8>) {
    let out = ensemble(&["build", &repo_path("samples/airport"), "-o", s(dir)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let program = dir.join("airport.ensb");
    let snap = dir.join("s.snap");
    let out = ensemble(&[
        "run",
        s(&program),
        "--scene",
        "ticket-counter",
        "--ticks",
        "30",
        "--save",
        s(&snap),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    (
        program.to_string_lossy().into_owned(),
        std::fs::read(&snap).unwrap(),
    )
}

/// `bytes` with the scene's tick length (1/30 s) replaced by `dt`, written again with a valid
/// checksum, as a hand-edited savegame would be.
fn with_tick_length(program: &str, bytes: &[u8], dt: f64) -> Vec<u8> {
    let program = Program::load(Path::new(program)).unwrap();
    let reader = SnapshotReader::from_bytes(bytes).unwrap();
    let mut writer = SnapshotWriter::new(&program, &reader.program().name);
    let mut patched = 0;
    for name in reader.sections() {
        let mut section = reader.bytes(name).unwrap().to_vec();
        if name == "scene" {
            let old = (1.0f64 / 30.0).to_le_bytes();
            let at = section
                .windows(8)
                .position(|w| w == old)
                .expect("the tick length in the scene's section");
            section[at..at + 8].copy_from_slice(&dt.to_le_bytes());
            patched += 1;
        }
        writer.put_bytes(name, section);
    }
    assert_eq!(patched, 1);
    writer.to_bytes()
}

#[test]
fn a_snapshot_whose_tick_length_is_1e300_or_1e9_is_refused_when_read_with_the_accepted_range() {
    let dir = tempfile::tempdir().unwrap();
    let (program, bytes) = airport_snapshot(dir.path());
    let bad = dir.path().join("bad.snap");
    for dt in [1e300, 1e9, 2.0, 1e-5] {
        std::fs::write(&bad, with_tick_length(&program, &bytes, dt)).unwrap();
        // Served (a tick was `Duration::from_secs_f64(dt / speed)`, a panic at 1e300 and a
        // sleep of 1e9 s at 1e9) and headless alike.
        for serve in [&[][..], &["--inspect", "127.0.0.1:0"][..]] {
            let mut args = vec![
                "run",
                &program,
                "--scene",
                "ticket-counter",
                "--ticks",
                "3",
                "--restore",
                s(&bad),
            ];
            args.extend_from_slice(serve);
            let started = Instant::now();
            let out = ensemble(&args);
            assert_eq!(out.code, 1, "{dt} {serve:?}: {}", out.stderr);
            assert!(
                out.stderr.contains(&format!(
                    "the snapshot is inconsistent: the tick length {dt} s is out of range: a scene \
                     ticks 1 to 10000 times a second, so a tick lasts 0.0001 to 1 s"
                )),
                "{dt}: {}",
                out.stderr
            );
            assert!(started.elapsed() < Duration::from_secs(30));
        }
    }
}
