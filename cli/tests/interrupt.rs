//! Ctrl-C on `ensemble run` (issue 23): the buffered trace is flushed before the process
//! stops, so an interrupted run loses no line it produced.

#[cfg(unix)]
#[test]
fn ctrl_c_flushes_the_buffered_trace() {
    use std::io::Read;
    use std::process::{Command, Stdio};
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ensemble"))
        .args([
            "run",
            "samples/bench",
            "--scene",
            "bench",
            "--ticks",
            "100000000",
        ])
        .current_dir(&root)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ensemble");
    // Let it run long enough to print the scene's lines, which stay in the output buffer
    // (they are fewer than the buffer holds), then interrupt it as Ctrl-C would.
    std::thread::sleep(std::time::Duration::from_secs(2));
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
    let mut trace = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut trace)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "stopped as interrupted: {status:?}"
    );
    assert!(!trace.is_empty(), "the buffered trace was lost");
    assert!(trace.ends_with('\n'), "the last line is whole: {trace:?}");
    // Everything printed is what an uninterrupted run prints first.
    let full = Command::new(env!("CARGO_BIN_EXE_ensemble"))
        .args([
            "run",
            "samples/bench",
            "--scene",
            "bench",
            "--ticks",
            "2000",
        ])
        .current_dir(&root)
        .output()
        .unwrap();
    let full = String::from_utf8(full.stdout).unwrap();
    let common = trace.len().min(full.len());
    assert_eq!(trace[..common], full[..common]);
}
