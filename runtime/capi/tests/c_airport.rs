//! Host 1 (`examples/airport.c`), built with the system C compiler: the airport's
//! ticket-counter scene run through the C ABI on the standard world prints the very trace
//! `ensemble run` prints.

mod support;

#[test]
fn c_host_trace_equals_the_cli_trace_byte_for_byte() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = support::build("samples/airport", dir.path(), "airport");
    let host = support::compile_host("airport", dir.path());
    let (seed, ticks) = ("7", "600");

    let airport = support::root().join("samples/airport");
    let cli = support::ensemble(&[
        "run",
        airport.to_str().expect("UTF-8 path"),
        "--scene",
        "ticket-counter",
        "--trace",
        "json",
        "--seed",
        seed,
        "--ticks",
        ticks,
    ]);
    assert_eq!(cli.code, 0, "ensemble run: {}", cli.stderr);

    let c = support::run_host(
        &host,
        &[
            program.to_str().expect("UTF-8 path"),
            "ticket-counter",
            seed,
            ticks,
        ],
    );
    assert_eq!(c.code, 0, "the C host failed: {}", c.stderr);
    assert!(
        cli.stdout.lines().count() > 50 && cli.stdout.contains("\"say\""),
        "the scene says something in {ticks} ticks"
    );
    assert!(
        c.stdout == cli.stdout,
        "the C host's trace differs from `ensemble run`'s at {}",
        support::first_difference(&cli.stdout, &c.stdout)
    );
}

#[test]
fn c_host_reports_an_unknown_scene_with_the_scenes_there_are() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let program = support::build("samples/airport", dir.path(), "airport");
    let host = support::compile_host("airport", dir.path());
    let c = support::run_host(
        &host,
        &[
            program.to_str().expect("UTF-8 path"),
            "no-such-scene",
            "7",
            "1",
        ],
    );
    assert_eq!(c.code, 1);
    assert!(
        c.stderr.contains("ens_scene_start_simulated failed (9)")
            && c.stderr.contains("no scene `no-such-scene`")
            && c.stderr.contains("ticket-counter"),
        "{}",
        c.stderr
    );
}
