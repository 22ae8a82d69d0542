//! `ensemble nav build` / `ensemble nav query`, in-process: outputs, JSON shape, and exit codes
//! for bad input (1) and unreadable paths (2).

use ensemble_cli::{Io, run};
use std::path::{Path, PathBuf};

/// The MovingAI map den312d and its scenarios, vendored in `compiler/tests/data/movingai`.
fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../compiler/tests/data/movingai")
        .join(name)
}

fn ensemble(args: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = {
        let mut io = Io {
            out: &mut out,
            err: &mut err,
            color: false,
        };
        let mut all = vec!["ensemble"];
        all.extend_from_slice(args);
        run(all, &mut io)
    };
    (
        code,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn build_then_query_a_built_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("den312d.ensnav");
    let map = data("den312d.map");
    let (code, _, err) = ensemble(&["nav", "build", s(&map), "-o", s(&out), "--leaf-size", "32"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("time:") && err.contains("memory:"), "{err}");
    let scen = data("den312d.map.scen");
    let (code, stdout, err) = ensemble(&[
        "nav",
        "query",
        s(&out),
        "--scen",
        s(&scen),
        "--limit",
        "7",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 7);
    for l in &lines {
        for key in ["start", "goal", "cost", "expanded", "micros"] {
            assert!(l.get(key).is_some(), "{key} missing in {l}");
        }
        assert!((l["cost"].as_f64().unwrap() - l["optimal"].as_f64().unwrap()).abs() < 1e-6);
    }
    assert!(
        err.contains("every cost equals the listed optimum"),
        "{err}"
    );
}

#[test]
fn query_precomputes_a_map_in_memory_and_runs_astar() {
    let map = data("den312d.map");
    let scen = data("den312d.map.scen");
    for algorithm in ["ppa", "astar"] {
        let (code, stdout, err) = ensemble(&[
            "nav",
            "query",
            s(&map),
            "--scen",
            s(&scen),
            "--algorithm",
            algorithm,
        ]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(stdout.lines().count(), 290);
    }
}

#[test]
fn bad_input_exits_1_with_a_location() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("bad.map");
    std::fs::write(&map, "type octile\nheight 2\nwidth 3\nmap\n...\n.?.\n").unwrap();
    let (code, _, err) = ensemble(&["nav", "build", s(&map), "-o", s(&dir.path().join("x"))]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.map:6:2:"), "{err}");

    let scen = dir.path().join("bad.scen");
    std::fs::write(&scen, "version 1\n0\tden312d.map\t65\t81\t1\t2\n").unwrap();
    let (code, _, err) = ensemble(&["nav", "query", s(&data("den312d.map")), "--scen", s(&scen)]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.scen:2:"), "{err}");

    let gr = dir.path().join("bad.gr");
    std::fs::write(&gr, "p sp 2 1\na 1 2 5\n").unwrap();
    let (code, _, err) = ensemble(&["nav", "build", s(&gr), "-o", s(&dir.path().join("y"))]);
    assert_eq!(code, 1);
    assert!(err.contains("bad.gr:2:"), "{err}");
}

#[test]
fn corrupt_built_file_exits_1_and_missing_paths_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g.ensnav");
    let gr = dir.path().join("g.gr");
    std::fs::write(
        &gr,
        "c ring\np sp 3 6\na 1 2 1\na 2 1 1\na 2 3 2\na 3 2 2\na 3 1 4\na 1 3 4\n",
    )
    .unwrap();
    let (code, _, err) = ensemble(&["nav", "build", s(&gr), "-o", s(&out), "--leaf-size", "1"]);
    assert_eq!(code, 0, "{err}");
    let mut bytes = std::fs::read(&out).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&out, &bytes).unwrap();
    let scen = data("den312d.map.scen");
    let (code, _, err) = ensemble(&["nav", "query", s(&out), "--scen", s(&scen)]);
    assert_eq!(code, 1);
    assert!(err.contains("checksum"), "{err}");

    let missing = dir.path().join("missing.map");
    let (code, _, err) = ensemble(&["nav", "build", s(&missing), "-o", s(&out)]);
    assert_eq!(code, 2, "{err}");
    let (code, _, _) = ensemble(&[
        "nav",
        "query",
        s(&data("den312d.map")),
        "--scen",
        s(&missing),
    ]);
    assert_eq!(code, 2);
}
