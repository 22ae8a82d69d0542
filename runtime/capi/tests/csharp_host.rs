//! The C# host (`examples/Airport.cs` on the declarations of `include/Ensemble.cs`), compiled by
//! Mono's `mcs` and run by `mono` against the shared library: the airport's ticket-counter trace
//! equals `ensemble run`'s byte for byte, as the C hosts' does (tests/c_hosts.rs). The
//! declarations docs/embedding.md section 11 shows are the ones compiled here.
//!
//! Needs `mcs` and `mono` (Debian and Ubuntu: `apt-get install mono-mcs mono-runtime`); where
//! they are not installed the host test says so on stderr and checks nothing else.

mod support;

use std::path::Path;
use std::process::Command;

/// Whether `tool` runs at all.
fn installed(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok()
}

#[test]
fn csharp_host_trace_equals_the_cli_trace_byte_for_byte() {
    if !(installed("mcs") && installed("mono")) {
        eprintln!(
            "SKIPPED: the C# host needs Mono (`apt-get install mono-mcs mono-runtime`): mcs or \
             mono is not on PATH"
        );
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = support::build("samples/airport", dir.path(), "airport");
    let (seed, ticks) = ("7", "600");
    let cli = support::airport_cli_trace("ticket-counter", seed, ticks);
    assert!(cli.lines().count() > 50, "the scene does something");

    let capi = Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = dir.path().join("airport.exe");
    let built = Command::new("mcs")
        .arg("-warnaserror+")
        .arg(format!("-out:{}", exe.display()))
        .arg(capi.join("include/Ensemble.cs"))
        .arg(capi.join("examples/Airport.cs"))
        .output()
        .expect("mcs runs");
    assert!(
        built.status.success(),
        "mcs failed:\n{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    // The library this test was built with, not one an earlier `cargo build` left on the path.
    let run = Command::new("mono")
        .arg(&exe)
        .args([
            program.to_str().expect("UTF-8 path"),
            "ticket-counter",
            seed,
            ticks,
        ])
        .env("LD_LIBRARY_PATH", support::library_dir())
        .output()
        .expect("mono runs");
    let stdout = String::from_utf8(run.stdout).expect("the host prints UTF-8");
    assert!(
        run.status.success(),
        "the C# host failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout == cli,
        "the C# host's trace differs from the CLI's: {}",
        support::first_difference(&cli, &stdout)
    );
}

/// docs/embedding.md section 11's declarations are include/Ensemble.cs (after its header
/// comment), so what the guide tells a Unity programmer to paste is what the test compiles.
#[test]
fn the_documented_declarations_are_the_compiled_ones() {
    let guide = std::fs::read_to_string(support::root().join("docs/embedding.md")).unwrap();
    let section = &guide[guide.find("## 11. C#").expect("section 11")..];
    let start = section.find("```csharp\n").expect("a C# block") + "```csharp\n".len();
    let block = &section[start..start + section[start..].find("```\n").unwrap()];
    let file =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("include/Ensemble.cs"))
            .unwrap();
    let declarations = file
        .split_once("\nusing ")
        .map(|(_, rest)| format!("using {rest}"))
        .expect("the file's declarations start with `using`");
    assert_eq!(
        block, declarations,
        "docs/embedding.md section 11 and runtime/capi/include/Ensemble.cs differ: change both"
    );
}
