//! Hardened inputs (issue 23): every reproducer the fuzzer found, as a test. Writers never
//! replace their own input; input that controls a size meets a limit with a located diagnostic
//! instead of an abort; checks stay near-linear; the same input gives the same bytes.

use ensemble_tests::{ensemble, repo_path};
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temporary path")
}

/// A command told to write over its input is refused with exit 2, and the input is intact.
fn assert_refused(args: &[&str], input: &Path) {
    let before = std::fs::read(input).unwrap();
    let r = ensemble(args);
    assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
    assert!(
        r.stderr.contains("is also an input") && r.stderr.contains("refusing to overwrite"),
        "{args:?}: {}",
        r.stderr
    );
    assert_eq!(
        std::fs::read(input).unwrap(),
        before,
        "{args:?} changed its input"
    );
}

#[test]
fn import_refuses_to_overwrite_its_workbook_by_any_name() {
    let dir = tempfile::tempdir().unwrap();
    let xlsx = dir.path().join("bench.xlsx");
    std::fs::copy(repo_path("samples/bench/bench.xlsx"), &xlsx).unwrap();
    assert_refused(&["import", s(&xlsx), "-o", s(&xlsx)], &xlsx);
    // Another spelling of the same path, and a hard link to the same file.
    let dotted = dir.path().join(".").join("bench.xlsx");
    assert_refused(&["import", s(&xlsx), "-o", s(&dotted)], &xlsx);
    let linked = dir.path().join("linked.xlsx");
    std::fs::hard_link(&xlsx, &linked).unwrap();
    assert_refused(&["import", s(&xlsx), "-o", s(&linked)], &xlsx);
}

#[test]
fn export_refuses_to_overwrite_its_script() {
    let dir = tempfile::tempdir().unwrap();
    let ron = dir.path().join("bench.script.ron");
    std::fs::copy(repo_path("samples/bench/bench.script.ron"), &ron).unwrap();
    // A workbook name that is a hard link to the script itself.
    let xlsx = dir.path().join("bench.xlsx");
    std::fs::hard_link(&ron, &xlsx).unwrap();
    assert_refused(&["export", s(&ron), "-o", s(&xlsx)], &ron);
}

#[test]
fn nav_build_refuses_its_map_and_says_cannot_write_when_writing_fails() {
    let dir = tempfile::tempdir().unwrap();
    let map = dir.path().join("yard.map");
    std::fs::copy(repo_path("tests/fixtures/nav-grid/yard.map"), &map).unwrap();
    assert_refused(&["nav", "build", s(&map), "-o", s(&map)], &map);
    let missing = dir.path().join("no-such-folder").join("yard.ensnav");
    let r = ensemble(&["nav", "build", s(&map), "-o", s(&missing)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("cannot write"), "{}", r.stderr);
    assert!(!r.stderr.contains("cannot read"), "{}", r.stderr);
}

#[test]
fn ngram_build_refuses_its_corpus_and_writes_ordinary_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus.txt");
    std::fs::write(&corpus, "The cat sat on the mat. The dog sat on the log.\n").unwrap();
    assert_refused(&["ngram", "build", s(&corpus), "-o", s(&corpus)], &corpus);
    let db = dir.path().join("corpus.ngr");
    let r = ensemble(&["ngram", "build", s(&corpus), "-o", s(&db)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // The mode a plain `File::create` gets under this process's umask (0644 under 022).
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        assert_eq!(mode(&db), mode(&plain));
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.ends_with(".tmp")),
        "no temporary left behind: {names:?}"
    );
}

#[test]
fn build_refuses_a_string_table_over_a_source_file() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("bench");
    std::fs::create_dir(&project).unwrap();
    for entry in std::fs::read_dir(repo_path("samples/bench")).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), project.join(entry.file_name())).unwrap();
        }
    }
    let script = project.join("bench.script.ron");
    assert_refused(&["build", s(&project), "--strings", s(&script)], &script);
}

#[test]
fn a_killed_writers_temporary_file_is_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let xlsx = dir.path().join("bench.xlsx");
    std::fs::copy(repo_path("samples/bench/bench.xlsx"), &xlsx).unwrap();
    // What `kill -9` during a write leaves: a temporary of ours whose process is gone.
    let leftover = dir.path().join(".ensemble-4294967294-Ab12Cd.tmp");
    std::fs::write(&leftover, "half a file").unwrap();
    let out = dir.path().join("bench.script.ron");
    let r = ensemble(&["import", s(&xlsx), "-o", s(&out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    if Path::new("/proc/self").exists() {
        assert!(!leftover.exists(), "the stale temporary file is cleaned");
    }
}
