//! `ensemble export`: a native script back to an Excel workbook. Round trips with `import` and
//! `check` on the seed's bench (clean and as printed), and every way an export can fail: a clear
//! message, a non-zero exit, and no file left behind.

use ensemble_tests::{ensemble, repo_path};
use serde_json::Value;
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn import(xlsx: &str, out: &Path) {
    let r = ensemble(&["import", xlsx, "-o", s(out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

fn export(ron: &str, out: &Path) {
    let r = ensemble(&["export", ron, "-o", s(out)]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("exported"), "{}", r.stderr);
}

/// The JSON diagnostics of `check`, with the file name taken out (the two workbooks differ in
/// name only).
fn diagnostics(path: &str) -> (i32, Vec<Value>) {
    let out = ensemble(&["check", path, "--format", "json"]);
    let doc: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let mut ds = doc["diagnostics"].as_array().unwrap().clone();
    for d in &mut ds {
        d.as_object_mut().unwrap().remove("file");
        let text = d.to_string();
        let file = Path::new(path).file_name().unwrap().to_str().unwrap();
        *d = serde_json::from_str(&text.replace(file, "WORKBOOK")).unwrap();
    }
    (out.code, ds)
}

#[test]
fn bench_round_trips_through_import_and_export() {
    let dir = tempfile::tempdir().unwrap();
    let ron = dir.path().join("bench.script.ron");
    let xlsx = dir.path().join("bench.xlsx");
    let again = dir.path().join("again.script.ron");
    import(&repo_path("samples/bench/bench.xlsx"), &ron);
    export(s(&ron), &xlsx);
    import(s(&xlsx), &again);
    assert_eq!(
        std::fs::read_to_string(&ron).unwrap(),
        std::fs::read_to_string(&again).unwrap()
    );
    // The committed native asset exports to a workbook that imports back to it, byte for byte.
    let committed = repo_path("samples/bench/bench.script.ron");
    let xlsx2 = dir.path().join("committed.xlsx");
    export(&committed, &xlsx2);
    import(s(&xlsx2), &again);
    assert_eq!(
        std::fs::read_to_string(&committed).unwrap(),
        std::fs::read_to_string(&again).unwrap()
    );
    assert_eq!(
        diagnostics(&repo_path("samples/bench/bench.xlsx")),
        diagnostics(s(&xlsx))
    );
}

#[test]
fn the_printed_bench_keeps_its_error_at_the_same_cells() {
    let dir = tempfile::tempdir().unwrap();
    let ron = dir.path().join("printed.script.ron");
    let xlsx = dir.path().join("printed.xlsx");
    let original = repo_path("samples/bench/printed/bench-printed.xlsx");
    import(&original, &ron);
    export(s(&ron), &xlsx);
    let (code, ds) = diagnostics(s(&xlsx));
    assert_eq!((code, ds.clone()), diagnostics(&original));
    assert_eq!(code, 1);
    let d = ds
        .iter()
        .find(|d| d["code"] == "deletion-never-matches")
        .expect("rule 5's deletion");
    assert_eq!(
        (d["sheet"].as_str(), d["cell"].as_str()),
        (Some("Rules"), Some("K6"))
    );
}

#[test]
fn broken_input_is_refused_with_a_location_and_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.xlsx");
    // Malformed RON: exit 1, the position of the mistake.
    let broken = dir.path().join("broken.script.ron");
    std::fs::write(
        &broken,
        "Script(\n    name: \"x\",\n    roles: [Role(name: )],\n)\n",
    )
    .unwrap();
    let r = ensemble(&["export", s(&broken), "-o", s(&out)]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("broken.script.ron:3:"), "{}", r.stderr);
    assert!(!out.exists());
    // Another asset kind: not a script.
    let r = ensemble(&[
        "export",
        &repo_path("samples/airport/machines/SellTicket.machine.ron"),
        "-o",
        s(&out),
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(!out.exists());
    // A missing file, a workbook as input, an output that is not .xlsx: cannot run.
    let r = ensemble(&[
        "export",
        s(&dir.path().join("nope.script.ron")),
        "-o",
        s(&out),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no such file"), "{}", r.stderr);
    let r = ensemble(&[
        "export",
        &repo_path("samples/bench/bench.xlsx"),
        "-o",
        s(&out),
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("already Excel"), "{}", r.stderr);
    let committed = repo_path("samples/bench/bench.script.ron");
    let r = ensemble(&[
        "export",
        &committed,
        "-o",
        s(&dir.path().join("b.script.ron")),
    ]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("must be an Excel workbook"),
        "{}",
        r.stderr
    );
    assert!(!dir.path().join("b.script.ron").exists());
}

#[test]
fn an_unwritable_output_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let committed = repo_path("samples/bench/bench.script.ron");
    // A folder that does not exist.
    let out = dir.path().join("missing/out.xlsx");
    let r = ensemble(&["export", &committed, "-o", s(&out)]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot write"), "{}", r.stderr);
    assert!(!out.exists());
    // A folder where the file should go.
    let out = dir.path().join("taken.xlsx");
    std::fs::create_dir(&out).unwrap();
    let r = ensemble(&["export", &committed, "-o", s(&out)]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(out.is_dir());
    // An existing workbook survives a failed export untouched.
    let good = dir.path().join("good.xlsx");
    export(&committed, &good);
    let before = std::fs::read(&good).unwrap();
    let huge = dir.path().join("huge.script.ron");
    let long = "p(X), ".repeat(6000);
    std::fs::write(
        &huge,
        format!("Script(name: \"h\", rules: [Rule(state: \"s\", precondition: \"{long}\")])\n"),
    )
    .unwrap();
    let r = ensemble(&["export", s(&huge), "-o", s(&good)]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("sheet `Rules`, cell D2"), "{}", r.stderr);
    assert_eq!(std::fs::read(&good).unwrap(), before);
    // Nothing but the good workbook and the inputs remain (no temporary files).
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["good.xlsx", "huge.script.ron", "taken.xlsx"]);
}

#[test]
fn import_refuses_broken_workbooks_without_writing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.script.ron");
    // Not a workbook at all.
    let fake = dir.path().join("fake.xlsx");
    std::fs::write(&fake, "Key,Value\nname,x\n").unwrap();
    let r = ensemble(&["import", s(&fake), "-o", s(&out)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("not a readable Excel workbook"),
        "{}",
        r.stderr
    );
    assert!(!out.exists());
    // A workbook without its Rules sheet.
    let partial = dir.path().join("partial.xlsx");
    let mut wb = rust_xlsxwriter::Workbook::new();
    let ws = wb.add_worksheet().set_name("Script").unwrap();
    ws.write(0, 0, "Key").unwrap();
    ws.write(0, 1, "Value").unwrap();
    ws.write(1, 0, "name").unwrap();
    ws.write(1, 1, "x").unwrap();
    let ws = wb.add_worksheet().set_name("Roles").unwrap();
    for (c, h) in ["Role", "Min", "Max"].iter().enumerate() {
        ws.write(0, c as u16, *h).unwrap();
    }
    wb.save(&partial).unwrap();
    let r = ensemble(&["import", s(&partial), "-o", s(&out)]);
    assert_eq!(r.code, 1);
    assert!(
        r.stderr.contains("the workbook has no `Rules` sheet"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("sheet `Rules`, cell A1"), "{}", r.stderr);
    assert!(!out.exists());
    // An output that cannot be written.
    let bench = repo_path("samples/bench/bench.xlsx");
    let unwritable = dir.path().join("no/such/dir/b.script.ron");
    let r = ensemble(&["import", &bench, "-o", s(&unwritable)]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot write"), "{}", r.stderr);
    assert!(!dir.path().join("no").exists());
}
