//! The example games' compiled programs are their projects as the compiler builds them today:
//! rebuilt here, byte for byte the same. runtime/examples/tavern/tavern.ensb is what the core's
//! own test runs without a compiler or simulator; runtime/bevy/assets/airport.ensb and
//! bench.ensb are what the Bevy plugin's tests and its example game load;
//! runtime/examples/programs/ what the runtime's examples (runtime/examples/*.rs) load.

use ensemble_tests::{ensemble, repo_path, root};

/// Builds `project` and compares the program with the one committed at `committed`.
fn assert_committed_build_is_current(project: &str, committed: &str) {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_string_lossy().into_owned();
    let built = ensemble(&["build", &repo_path(project), "-o", &dir]);
    assert_eq!(built.code, 0, "{}{}", built.stdout, built.stderr);
    assert!(
        built.stderr.contains("0 errors, 0 warnings")
            || built.stdout.contains("0 errors, 0 warnings"),
        "{}{}",
        built.stdout,
        built.stderr
    );
    let committed_path = std::path::Path::new(committed);
    let file = committed_path.file_name().unwrap();
    let fresh = std::fs::read(out.path().join(file)).unwrap();
    let kept = std::fs::read(root().join(committed)).unwrap();
    let folder = committed_path.parent().unwrap().display();
    assert!(
        fresh == kept,
        "{committed} is stale: rebuild it with `ensemble build {project} -o {folder}` (and \
         delete the .ensdbg it writes beside it)"
    );
}

#[test]
fn the_example_games_program_is_its_project_built() {
    assert_committed_build_is_current(
        "runtime/examples/tavern/project",
        "runtime/examples/tavern/tavern.ensb",
    );
}

#[test]
fn the_bevy_plugins_programs_are_the_samples_built() {
    assert_committed_build_is_current("samples/airport", "runtime/bevy/assets/airport.ensb");
    assert_committed_build_is_current("samples/bench", "runtime/bevy/assets/bench.ensb");
}

#[test]
fn the_runtime_examples_programs_are_their_projects_built() {
    for (project, built) in [
        ("samples/airport", "airport.ensb"),
        ("samples/bench", "bench.ensb"),
        ("tests/fixtures/params-game", "params-game.ensb"),
    ] {
        assert_committed_build_is_current(project, &format!("runtime/examples/programs/{built}"));
    }
}
