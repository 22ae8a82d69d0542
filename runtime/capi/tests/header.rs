//! The committed header `include/ensemble.h` is what cbindgen generates from the crate now:
//! changing an exported function without regenerating it fails here. cbindgen runs as a
//! library in this test (a dev-dependency), so ordinary builds do not pay for it.

use std::path::Path;

#[test]
fn committed_header_is_up_to_date() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config =
        cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml reads");
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).expect("the header is UTF-8");
    let path = dir.join("include/ensemble.h");
    if std::env::var_os("ENSEMBLE_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/ensemble.h");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(committed.lines().count().min(generated.lines().count()));
        panic!(
            "runtime/capi/include/ensemble.h is out of date with the crate's exported API \
             (first difference at line {}:\n  committed: {}\n  generated: {}).\n\
             Regenerate it with `ENSEMBLE_BLESS=1 cargo test -p ensemble-capi --test header` and commit it.",
            line + 1,
            committed.lines().nth(line).unwrap_or("<end>"),
            generated.lines().nth(line).unwrap_or("<end>"),
        );
    }
}

/// Every exported function is documented in the header (cbindgen carries the rustdoc over):
/// each prototype is preceded by a comment.
#[test]
fn every_function_is_documented() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = std::fs::read_to_string(dir.join("include/ensemble.h")).expect("header reads");
    let lines: Vec<&str> = header.lines().collect();
    let mut functions = 0;
    for (i, line) in lines.iter().enumerate() {
        let is_prototype =
            line.contains(" ens_") && line.contains('(') && !line.trim_start().starts_with("//");
        if is_prototype && !lines[i.saturating_sub(1)].starts_with("  ") {
            functions += 1;
            assert!(
                i > 0 && lines[i - 1].trim_start().starts_with("//"),
                "`{line}` has no documentation in the header"
            );
        }
    }
    assert!(
        functions > 30,
        "found only {functions} functions in the header"
    );
}
