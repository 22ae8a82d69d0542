//! The example game's compiled program (runtime/examples/tavern/tavern.ensb, which the core's
//! own test runs without a compiler or simulator) is its project as the compiler builds it
//! today: rebuilt here, byte for byte the same.

use ensemble_tests::{ensemble, repo_path, root};

#[test]
fn the_example_games_program_is_its_project_built() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().to_string_lossy().into_owned();
    let built = ensemble(&[
        "build",
        &repo_path("runtime/examples/tavern/project"),
        "-o",
        &dir,
    ]);
    assert_eq!(built.code, 0, "{}{}", built.stdout, built.stderr);
    assert!(
        built.stderr.contains("0 errors, 0 warnings")
            || built.stdout.contains("0 errors, 0 warnings"),
        "{}{}",
        built.stdout,
        built.stderr
    );
    let fresh = std::fs::read(out.path().join("tavern.ensb")).unwrap();
    let committed = std::fs::read(root().join("runtime/examples/tavern/tavern.ensb")).unwrap();
    assert!(
        fresh == committed,
        "runtime/examples/tavern/tavern.ensb is stale: rebuild it with \
         `ensemble build runtime/examples/tavern/project -o runtime/examples/tavern` \
         (and delete the .ensdbg it writes beside it)"
    );
}
