//! Hardened inputs, part two (issue 33): the readers added since issue 23 attacked from outside.
//! Every finding ends in a clear error with its location, a bounded wait or a refusal — never a
//! panic, a hang or a lost file. One test per finding, named after it (the breakpoint cap is
//! tested against the inspector itself, runtime/src/inspect/tests.rs).

use ensemble_runtime::Program;
use ensemble_runtime::inspect::protocol::{GameMessage, ToolMessage};
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter};
use ensemble_tests::{copy_dir, ensemble, repo_path, root};
use std::net::TcpListener;
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
fn restoring_a_snapshot_after_an_agent_was_added_to_the_scene_starts_it_not_a_panic() {
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
    // Ids no longer move: the new tourist takes the next free one and starts (issue 31).
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
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "note: the scene's agents changed: tourist3: added by the patch, started as agent #"
        ),
        "{}",
        out.stderr
    );
    // It is one of the scene's agents from then on, listed with the others.
    assert!(
        out.stderr
            .contains("tourist3   (no machine: driven by smart locations)"),
        "{}",
        out.stderr
    );
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

// 2. Hangs

/// A server that accepts connections and never says a word (kept open until the test ends).
fn silent_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        let mut open = Vec::new();
        for stream in listener.incoming() {
            open.push(stream);
        }
    });
    address
}

#[test]
fn push_and_attach_to_a_server_that_never_answers_time_out_with_a_message() {
    let address = silent_server();
    let bench = repo_path("samples/bench");
    for args in [
        vec!["push", &address, &bench, "--timeout", "1"],
        vec!["attach", &address, "--timeout", "1"],
    ] {
        let started = Instant::now();
        let out = ensemble(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "error: {address} did not answer in 1 s; is it an Ensemble game serving the \
                 inspection protocol? (--timeout SECONDS waits longer)"
            )),
            "{args:?}: {}",
            out.stderr
        );
        assert!(started.elapsed() < Duration::from_secs(30), "{args:?}");
    }
    // The default wait is said in --help.
    for command in ["push", "attach"] {
        let help = ensemble(&[command, "--help"]);
        assert!(help.stdout.contains("[default: 30]"), "{}", help.stdout);
    }
}

// 3. Memory

/// A server that answers every connection with bytes and never a newline.
fn flooding_server() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            std::thread::spawn(move || {
                use std::io::Write;
                let chunk = vec![b'x'; 1 << 20];
                while stream.write_all(&chunk).is_ok() {}
            });
        }
    });
    address
}

#[test]
fn attach_and_push_refuse_a_server_line_longer_than_the_limit() {
    let address = flooding_server();
    let bench = repo_path("samples/bench");
    for args in [vec!["push", &address, &bench], vec!["attach", &address]] {
        let started = Instant::now();
        let out = ensemble(&args);
        assert_eq!(out.code, 2, "{args:?}: {}", out.stderr);
        assert!(
            out.stderr.contains(&format!(
                "error: {address} sent a line longer than 16777216 bytes \
                 (the protocol's limit); is it an Ensemble game?"
            )),
            "{args:?}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("memory allocation"), "{}", out.stderr);
        assert!(started.elapsed() < Duration::from_secs(60), "{args:?}");
    }
}

/// `bytes` (a workbook) with the central directory's uncompressed size of `name` set to `size`.
fn declaring(mut bytes: Vec<u8>, name: &str, size: u32) -> Vec<u8> {
    let mut patched = false;
    let mut i = 0;
    while i + 46 <= bytes.len() {
        if bytes[i..i + 4] == [0x50, 0x4b, 0x01, 0x02] {
            let len = u16::from_le_bytes([bytes[i + 28], bytes[i + 29]]) as usize;
            if &bytes[i + 46..i + 46 + len] == name.as_bytes() {
                bytes[i + 24..i + 28].copy_from_slice(&size.to_le_bytes());
                patched = true;
            }
        }
        i += 1;
    }
    assert!(patched, "{name} is in the workbook");
    bytes
}

#[test]
fn strings_import_of_a_far_cell_or_a_zip_bomb_is_refused_naming_the_file_sheet_and_limit() {
    let dir = tempfile::tempdir().unwrap();
    let airport = copy_of("airport", dir.path());
    // One cell at XFD100000: read as a dense grid it asked for 52 GB.
    let far = dir.path().join("far.xlsx");
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet().set_name("fr").unwrap();
    sheet.write_string(0, 0, "id").unwrap();
    sheet.write_string(0, 1, "translation").unwrap();
    sheet.write_string(99_999, 16_383, "far away").unwrap();
    book.save(&far).unwrap();
    let out = ensemble(&["strings", "import", s(&airport), s(&far), "--locale", "fr"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "error: {}: fr!row 100000: a row without an id",
            far.display()
        )),
        "{}",
        out.stderr
    );
    // A workbook whose sheet unpacks to 4 GB (declared; a real bomb is stopped while it
    // unpacks, at the same limit).
    let mut book = rust_xlsxwriter::Workbook::new();
    let sheet = book.add_worksheet().set_name("fr").unwrap();
    sheet.write_string(0, 0, "id").unwrap();
    book.save(dir.path().join("small.xlsx")).unwrap();
    let small = std::fs::read(dir.path().join("small.xlsx")).unwrap();
    let bomb = dir.path().join("bomb.xlsx");
    std::fs::write(
        &bomb,
        declaring(small, "xl/worksheets/sheet1.xml", 0xF000_0000),
    )
    .unwrap();
    let out = ensemble(&["strings", "import", s(&airport), s(&bomb), "--locale", "fr"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    let said = "`xl/worksheets/sheet1.xml` unpacks to 4026531840 bytes, more than the \
                268435456 a workbook may (256 MiB); not read";
    assert!(
        out.stderr.contains(&format!("error: {}: ", bomb.display())) && out.stderr.contains(said),
        "{}",
        out.stderr
    );
    // `ensemble import` reads workbooks the same way.
    let out = ensemble(&[
        "import",
        s(&bomb),
        "-o",
        s(&dir.path().join("b.script.ron")),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains(said), "{}", out.stderr);
}

/// The airport with one more test file, `long.test.ron`, of `ticks` ticks.
fn airport_with_test(dir: &Path, ticks: &str) -> std::path::PathBuf {
    let airport = copy_of("airport", dir);
    std::fs::write(
        airport.join("long.test.ron"),
        format!(
            r#"Tests(
    tests: [
        Test(
            name: "a long wait",
            scene: "ticket-counter",
            seeds: List([1]),
            ticks: {ticks},
            expect: [
                Happens(what: (event: "enter", agent: "buyer1", machine: "BuyTicketAtCounter", state: "Finish")),
            ],
        ),
    ],
)
"#
        ),
    )
    .unwrap();
    airport
}

#[test]
fn a_content_test_of_18446744073709551615_ticks_is_a_located_limit_and_test_has_a_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let airport = airport_with_test(dir.path(), "18446744073709551615");
    let out = ensemble(&["check", s(&airport), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    let d = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "limit-exceeded")
        .unwrap_or_else(|| panic!("no limit-exceeded in {}", out.stdout))
        .clone();
    assert_eq!(
        d["message"],
        "18446744073709551615 ticks: a test runs for at most 1000000"
    );
    assert!(
        d["file"].as_str().unwrap().ends_with("long.test.ron"),
        "{d}"
    );
    let text = std::fs::read_to_string(airport.join("long.test.ron")).unwrap();
    let (line, column) = ensemble_tests::line_col(&text, "18446744073709551615");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column))
    );
    // `ensemble test` reports it and runs nothing.
    let started = Instant::now();
    let out = ensemble(&["test", s(&airport), "--filter", "a long wait"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("limit-exceeded"), "{}", out.stderr);
    assert!(started.elapsed() < Duration::from_secs(60));

    // A run within the limit but past its deadline fails and says so (a million ticks take
    // about 0.35 s in a release build, several seconds in a debug one: 0.02 s is past either).
    let dir = tempfile::tempdir().unwrap();
    let airport = airport_with_test(dir.path(), "1000000");
    let started = Instant::now();
    let out = ensemble(&[
        "test",
        s(&airport),
        "--filter",
        "a long wait",
        "--deadline",
        "0.02",
    ]);
    assert_eq!(out.code, 1, "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("could not run: stopped after tick ")
            && out.stdout.contains(
                " of 1000000: past the deadline of 0.02 s a run (--deadline SECONDS allows more)"
            ),
        "{}",
        out.stdout
    );
    assert!(started.elapsed() < Duration::from_secs(60));
    let help = ensemble(&["test", "--help"]);
    assert!(
        help.stdout.contains("--deadline <SECONDS>") && help.stdout.contains("[default: 300]"),
        "{}",
        help.stdout
    );
}

// 4. Lost files

#[test]
fn run_save_refuses_to_overwrite_a_project_source_or_the_ensb_being_run() {
    let dir = tempfile::tempdir().unwrap();
    let airport = copy_of("airport", dir.path());
    let sources = [
        airport.join("ticket-counter.scene.ron"),
        airport.join("machines/SellTicket.machine.ron"),
        airport.join("Ensemble.ron"),
    ];
    let build = dir.path().join("build");
    let out = ensemble(&["build", s(&airport), "-o", s(&build)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ensb = build.join("airport.ensb");
    let cases = sources
        .iter()
        .map(|f| (airport.as_path(), f.as_path()))
        .chain([(ensb.as_path(), ensb.as_path())]);
    for (run, target) in cases {
        let before = std::fs::read(target).unwrap();
        let out = ensemble(&[
            "run",
            s(run),
            "--scene",
            "ticket-counter",
            "--ticks",
            "5",
            "--save",
            s(target),
        ]);
        assert_eq!(out.code, 2, "{}: {}", target.display(), out.stderr);
        assert!(
            out.stderr.contains("is also an input") && out.stderr.contains("refusing to overwrite"),
            "{}",
            out.stderr
        );
        assert!(out.stdout.is_empty(), "ran before refusing: {}", out.stdout);
        assert_eq!(
            std::fs::read(target).unwrap(),
            before,
            "{}",
            target.display()
        );
    }
    // Anywhere else it saves.
    let snap = airport.join("evening.snap");
    let out = ensemble(&[
        "run",
        s(&airport),
        "--scene",
        "ticket-counter",
        "--ticks",
        "5",
        "--save",
        s(&snap),
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(snap.is_file());
}

#[test]
fn strings_export_refuses_to_replace_a_workbook_it_did_not_write_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let airport = repo_path("samples/airport");
    // The designers' workbook under the name the export was told.
    let workbook = dir.path().join("bench.xlsx");
    std::fs::copy(repo_path("samples/bench/bench.xlsx"), &workbook).unwrap();
    let theirs = std::fs::read(&workbook).unwrap();
    let out = ensemble(&["strings", "export", &airport, "-o", s(&workbook)]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "error: {} exists and was not written by `ensemble strings export`; refusing to \
             replace it — choose another output path, or add --force to replace it",
            workbook.display()
        )),
        "{}",
        out.stderr
    );
    assert_eq!(std::fs::read(&workbook).unwrap(), theirs);
    // A CSV and a PO file of someone else's too.
    for name in ["notes.csv", "notes.po"] {
        let file = dir.path().join(name);
        std::fs::write(&file, "someone's own notes\n").unwrap();
        let out = ensemble(&["strings", "export", &airport, "-o", s(&file)]);
        assert_eq!(out.code, 2, "{name}: {}", out.stderr);
        assert_eq!(std::fs::read(&file).unwrap(), b"someone's own notes\n");
    }
    // An export replaces an earlier export of any format without being asked.
    for name in ["lines.xlsx", "lines.csv", "lines.po"] {
        let file = dir.path().join(name);
        for _ in 0..2 {
            let out = ensemble(&[
                "strings",
                "export",
                &airport,
                "-o",
                s(&file),
                "--locale",
                "fr",
            ]);
            assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        }
    }
    // --force replaces the workbook, atomically as every write.
    let out = ensemble(&["strings", "export", &airport, "-o", s(&workbook), "--force"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_ne!(std::fs::read(&workbook).unwrap(), theirs);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') || n.contains("tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

// 5. Silent wrongness

#[test]
fn unknown_fields_in_content_tests_and_string_tables_are_errors_with_did_you_mean_at_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let airport = airport_with_test(dir.path(), "100");
    let test = airport.join("long.test.ron");
    let text = std::fs::read_to_string(&test).unwrap();
    let cases = [
        // A misspelt `agent:` made the pattern match anything.
        (
            text.replace("agent: \"buyer1\"", "agnet: \"buyer1\""),
            "long.test.ron:9:",
            "agnet",
            "agent",
        ),
        // `setups:` dropped the mocks.
        (
            text.replace(
                "            expect: [",
                "            setups: [],\n            expect: [",
            ),
            "long.test.ron:8:",
            "setups",
            "setup",
        ),
    ];
    for (broken, at, found, meant) in cases {
        std::fs::write(&test, broken).unwrap();
        let out = ensemble(&["check", s(&airport)]);
        let all = format!("{}{}", out.stdout, out.stderr);
        assert_eq!(out.code, 1, "{all}");
        assert!(all.contains(at), "{at}: {all}");
        assert!(all.contains(&format!("`{found}`")), "{all}");
        assert!(all.contains(&format!("did you mean `{meant}`?")), "{all}");
    }
    std::fs::write(&test, text).unwrap();
    // A string table's line with `txet:`.
    let table = airport.join("strings/fr.strings.ron");
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(
        &table,
        text.replacen("text: \"Salut.\"", "txet: \"Salut.\"", 1),
    )
    .unwrap();
    let out = ensemble(&["check", s(&airport)]);
    let all = format!("{}{}", out.stdout, out.stderr);
    assert_eq!(out.code, 1, "{all}");
    assert!(all.contains("fr.strings.ron:4:"), "{all}");
    assert!(all.contains("did you mean `text`?"), "{all}");
}

/// `strings import` of a CSV file with `text` into a copy of the airport: (exit code, stderr,
/// the French table afterwards).
fn import_csv(text: &str) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let airport = copy_of("airport", dir.path());
    let csv = dir.path().join("fr.csv");
    std::fs::write(&csv, text).unwrap();
    let out = ensemble(&["strings", "import", s(&airport), s(&csv), "--locale", "fr"]);
    let table = std::fs::read_to_string(airport.join("strings/fr.strings.ron")).unwrap();
    (out.code, out.stderr, table)
}

#[test]
fn a_stray_quote_in_a_csv_is_an_error_with_line_and_column_not_merged_columns() {
    // The quote opening `"Entendu` is never closed on its line: read as RFC 4180 reads it, the
    // field ran on to the next quote and swallowed the next row.
    let (code, stderr, table) = import_csv(
        "id,source,translation\n\
         SellTicket/Okay1/1,OK.,\"Entendu\n\
         SellTicket/Okay1/2,Sure.,\"Parfait\"\n",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(
            "line 3, column 26: a quote closes the quoted field opened at line 2, column 24"
        ),
        "{stderr}"
    );
    assert!(!table.contains("Entendu"), "{table}");
    // A quote inside an unquoted field.
    let (code, stderr, _) = import_csv("id,source,translation\nSellTicket/Okay1/1,OK.,En\"tendu\n");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("line 2, column 26: a quote inside an unquoted field"),
        "{stderr}"
    );
}

#[test]
fn a_csv_with_cr_only_line_ends_reads_its_lines() {
    let (code, stderr, table) = import_csv(
        "id,source,translation\rSellTicket/Okay1/1,OK.,Entendu.\rSellTicket/Okay1/2,Sure.,Parfait.\r",
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("2 changed"), "{stderr}");
    assert!(
        table.contains("Entendu.") && table.contains("Parfait."),
        "{table}"
    );
}

#[test]
fn a_duplicate_id_in_a_csv_is_an_error_naming_both_lines() {
    let (code, stderr, table) = import_csv(
        "id,source,translation\n\
         SellTicket/Okay1/1,OK.,Entendu.\n\
         SellTicket/Okay1/2,Sure.,Parfait.\n\
         SellTicket/Okay1/1,OK.,Compris.\n",
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("line 4: the id `SellTicket/Okay1/1` is also on line 2"),
        "{stderr}"
    );
    assert!(
        !table.contains("Compris.") && !table.contains("Entendu."),
        "{table}"
    );
}

#[test]
fn a_new_ensb_beside_an_old_ensdbg_is_run_with_a_warning_that_the_symbols_are_stale() {
    let dir = tempfile::tempdir().unwrap();
    let bench = copy_of("bench", dir.path());
    let (old, new) = (dir.path().join("old"), dir.path().join("new"));
    let built = ensemble(&["build", s(&bench), "-o", s(&old)]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    let scene = bench.join("bench.scene.ron");
    let text = std::fs::read_to_string(&scene).unwrap();
    std::fs::write(&scene, text.replacen("delay: 25.0", "delay: 26.0", 1)).unwrap();
    let built = ensemble(&["build", s(&bench), "-o", s(&new)]);
    assert_eq!(built.code, 0, "{}", built.stderr);
    // `build` killed between its renames: the new `.ensb` beside the old `.ensdbg`.
    std::fs::copy(new.join("bench.ensb"), old.join("bench.ensb")).unwrap();
    let ensb = old.join("bench.ensb");
    let out = ensemble(&["run", s(&ensb), "--scene", "bench", "--ticks", "3"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(&format!(
            "warning: {}: the debug symbols are stale: they describe the program with checksum",
            old.join("bench.ensdbg").display()
        )) && out.stderr.contains("rebuild to refresh them; ignored"),
        "{}",
        out.stderr
    );
    // Matching symbols say nothing.
    let out = ensemble(&[
        "run",
        s(&new.join("bench.ensb")),
        "--scene",
        "bench",
        "--ticks",
        "3",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stderr.contains("stale"), "{}", out.stderr);
}

#[test]
fn a_snapshot_whose_tick_count_is_near_its_maximum_is_refused_not_left_to_wrap() {
    let dir = tempfile::tempdir().unwrap();
    let (program, bytes) = airport_snapshot(dir.path());
    // The tick count (30, one varint byte) comes right before the tick length.
    let loaded = Program::load(Path::new(&program)).unwrap();
    let reader = SnapshotReader::from_bytes(&bytes).unwrap();
    let mut writer = SnapshotWriter::new(&loaded, &reader.program().name);
    for name in reader.sections() {
        let mut section = reader.bytes(name).unwrap().to_vec();
        if name == "scene" {
            let dt = (1.0f64 / 30.0).to_le_bytes();
            let at = section.windows(8).position(|w| w == dt).unwrap();
            assert_eq!(section[at - 1], 30);
            // u64::MAX - 1 as a varint: nine 0xff-ish bytes and a final 0x01.
            let mut varint = vec![0xfe];
            varint.extend([0xff; 8]);
            varint.push(0x01);
            section.splice(at - 1..at, varint);
        }
        writer.put_bytes(name, section);
    }
    let bad = dir.path().join("late.snap");
    std::fs::write(&bad, writer.to_bytes()).unwrap();
    let out = ensemble(&[
        "run",
        &program,
        "--scene",
        "ticket-counter",
        "--ticks",
        "3",
        "--restore",
        s(&bad),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "the tick count 18446744073709551614 is past 4611686018427387904, the most a scene \
             counts to"
        ),
        "{}",
        out.stderr
    );
}

// 6. The protocol's security

/// A token strong enough to serve with, in a file of `dir`: (the token, its file).
fn token_file(dir: &Path) -> (String, String) {
    let token = "5d1e0b7a93c24f68a1b0".to_string();
    let file = dir.join("token");
    std::fs::write(&file, format!("{token}\n")).unwrap();
    (token, file.to_string_lossy().into_owned())
}

/// `ensemble run` of the airport's ticket sale serving the protocol, waiting for a tool, with
/// `extra` arguments: the running command and the address it serves.
fn serve_airport(extra: &[&str]) -> (ensemble_tests::Running, String) {
    let mut args: Vec<String> = [
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-sale",
        "--inspect-wait",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|a| a.to_string()));
    ensemble_tests::serve(args)
}

#[test]
fn a_weak_token_is_refused_with_how_to_make_one() {
    let dir = tempfile::tempdir().unwrap();
    for weak in [
        "sesame",
        " ",
        "aaaaaaaaaaaaaaaaaaaaaaaa",
        "correct horse battery staple",
    ] {
        let file = dir.path().join("weak");
        std::fs::write(&file, weak).unwrap();
        let out = ensemble(&[
            "run",
            &repo_path("samples/airport"),
            "--scene",
            "ticket-sale",
            "--inspect",
            "127.0.0.1:0",
            "--inspect-token-file",
            s(&file),
        ]);
        assert_eq!(out.code, 2, "{weak:?}: {}", out.stderr);
        assert!(
            out.stderr
                .contains("error: --inspect 127.0.0.1:0: the token is too weak: ")
                && out.stderr.contains("make one with `openssl rand -hex 16`"),
            "{weak:?}: {}",
            out.stderr
        );
        assert!(out.stdout.is_empty(), "ran: {}", out.stdout);
    }
}

#[test]
fn a_token_is_read_from_a_file_and_one_on_the_command_line_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    let (token, file) = token_file(dir.path());
    let (game, address) = serve_airport(&[
        "--ticks",
        "60",
        "--speed",
        "20",
        "--inspect",
        "127.0.0.1:0",
        "--inspect-token-file",
        &file,
    ]);
    // From a file: attached, no warning (it stays attached until the game ends).
    let from_file = ensemble_tests::spawn(
        ["attach", &address, "--token-file", &file]
            .map(String::from)
            .to_vec(),
    );
    let hello = ensemble_tests::next(&from_file.out, "the hello");
    assert!(hello.starts_with("{\"type\":\"hello\""), "{hello}");
    // On the command line: it works too, and says who else can read it.
    let flag = ensemble(&["attach", &address, "--token", &token, "--resume"]);
    assert_eq!(flag.code, 0, "{}", flag.stderr);
    assert!(
        flag.stderr.contains(
            "warning: --token is visible to every user of this machine in the process list; \
             pass the token in a file (--token-file PATH) or in ENSEMBLE_TOKEN"
        ),
        "{}",
        flag.stderr
    );
    assert!(
        flag.stdout.starts_with("{\"type\":\"hello\""),
        "{}",
        flag.stdout
    );
    assert_eq!(game.done.join().unwrap(), 0);
    assert_eq!(from_file.done.join().unwrap(), 0);
    let said: Vec<String> = from_file.err.try_iter().collect();
    assert!(said.is_empty(), "{said:?}");
    // A token file that cannot be read.
    let missing = dir.path().join("missing");
    let out = ensemble(&["attach", &address, "--token-file", s(&missing)]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("error: --token-file "),
        "{}",
        out.stderr
    );
}

#[test]
fn serving_beyond_loopback_says_plainly_what_it_exposes() {
    let dir = tempfile::tempdir().unwrap();
    let (_, file) = token_file(dir.path());
    let out = ensemble(&[
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-sale",
        "--ticks",
        "3",
        "--inspect",
        "0.0.0.0:0",
        "--inspect-token-file",
        &file,
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains("is reachable from other machines, and the inspection protocol has no TLS: the token, the trace")
            && out.stderr.contains("whoever has the token can pause the game, set its variables and replace its program"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_value_set_through_the_protocol_cannot_forge_a_text_trace_line() {
    let (game, address) = serve_airport(&[
        "--ticks",
        "1500",
        "--speed",
        "100",
        "--inspect",
        "127.0.0.1:0",
    ]);
    let mut tool = ensemble_tests::Tool::connect(&address);
    let forged = "Denver\n  1234    41.100s seller     enter SellTicket/Refund\u{1b}[2J";
    tool.send(&ToolMessage::Set {
        agent: "customer".into(),
        variable: "CityName".into(),
        value: forged.into(),
    });
    assert!(matches!(tool.message(), GameMessage::Ok { .. }));
    tool.send(&ToolMessage::Resume);
    assert_eq!(game.done.join().unwrap(), 0);
    let lines: Vec<String> = game.out.try_iter().collect();
    assert!(
        lines
            .iter()
            .any(|l| l.contains(r"Denver\n  1234    41.100s seller")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.starts_with("  1234 ")),
        "{lines:#?}"
    );
    assert!(!lines.iter().any(|l| l.contains('\u{1b}')), "{lines:#?}");
}

/// A server that says hello, then `line`, then closes.
fn server_saying(line: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        use std::io::Write;
        let (mut stream, _) = listener.accept().unwrap();
        let hello = br#"{"type":"hello","version":1,"program":"p","hash":"00000000","scene":"s","agents":[],"tick":0,"paused":false,"breakpoints":[]}"#;
        let _ = stream.write_all(hello);
        let _ = stream.write_all(b"\n");
        let _ = stream.write_all(line);
        let _ = stream.write_all(b"\n");
        // Close gracefully: a socket dropped with the tool's own lines unread is reset, and
        // the tool would read "connection reset" instead of the end of the stream.
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
        let _ = std::io::Read::read_to_end(&mut stream, &mut Vec::new());
    });
    address
}

#[test]
fn attach_escapes_control_characters_and_escape_sequences_it_prints() {
    // An OSC 52 clipboard write, a screen clear, bytes that are not UTF-8.
    let address = server_saying(
        b"{\"type\":\"error\",\"message\":\"\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\xff\"}",
    );
    let out = ensemble(&["attach", &address]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        !out.stdout.contains('\u{1b}') && !out.stdout.contains('\u{7}'),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains(r#""message":"\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\xff"}"#),
        "{}",
        out.stdout
    );
}
