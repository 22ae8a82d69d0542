//! A designer's one-cell or one-word mistake is an error at the cell or line that holds it
//! (DESIGN.md, quality bars). One test per typo class of the Excel contract and the native
//! `*.script.ron`, each asserting the code and the sheet/cell or line/column, and the HMM
//! arbitration network's spaces and accumulators that cannot reach a conversation's output.
//! The table of answers is in docs/formats/script.md ("What a typo does").

use ensemble_compiler::script::contract::rules;
use ensemble_tests::{copy_dir, ensemble, line_col, repo_path};
use rust_xlsxwriter::{Formula, Workbook};
use serde_json::Value;

/// A workbook cell: text, a number, or a formula with the value the file stores for it.
#[derive(Clone)]
enum C {
    S(&'static str),
    N(f64),
    F(&'static str, &'static str),
}

type Rows = Vec<Vec<Option<C>>>;

fn s(t: &'static str) -> Option<C> {
    Some(C::S(t))
}

fn write(path: &std::path::Path, sheets: &[(&str, &Rows)]) {
    let mut wb = Workbook::new();
    for (name, rows) in sheets {
        let ws = wb.add_worksheet();
        ws.set_name(*name).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (r, c) = (r as u32, c as u16);
                match cell {
                    Some(C::S(t)) => {
                        ws.write_string(r, c, *t).unwrap();
                    }
                    Some(C::N(x)) => {
                        ws.write_number(r, c, *x).unwrap();
                    }
                    Some(C::F(f, v)) => {
                        // An empty result stores no value, as a generator that does not
                        // compute formulas writes them.
                        ws.set_formula_result_default("");
                        ws.write_formula(r, c, Formula::new(*f).set_result(*v))
                            .unwrap();
                    }
                    None => {}
                }
            }
        }
    }
    wb.save(path).unwrap();
}

/// A Rules row from the first column on (empty text: an empty cell).
fn rule_row(cells: &[&'static str]) -> Vec<Option<C>> {
    let mut row: Vec<Option<C>> = cells
        .iter()
        .map(|t| (!t.is_empty()).then_some(C::S(t)))
        .collect();
    row.resize_with(rules::COLUMNS.len(), || None);
    row
}

/// The sheets of a small clean script: guests sit (`idle` → `resting`), stretch, and leave.
/// Rules: row 2 `sit`, row 3 `stretch`, row 4 `leave`.
fn sheets() -> (Rows, Rows, Rows) {
    let meta = vec![
        vec![s("Key"), s("Value")],
        vec![s("name"), s("t")],
        vec![s("initial_state"), s("idle")],
        vec![s("supplies"), s("seat/1")],
    ];
    let roles = vec![
        vec![s("Role"), s("Min"), s("Max"), s("Flags")],
        vec![
            s("guest"),
            Some(C::N(1.0)),
            Some(C::N(2.0)),
            s("dynamicJoin"),
        ],
    ];
    let rules = vec![
        rules::COLUMNS.iter().map(|c| s(c.header)).collect(),
        rule_row(&[
            "sit",
            "guest",
            "idle",
            "seat(X), not taken(X)",
            "sit",
            "X",
            "",
            "taken(X)",
            "",
            "resting(.me)",
            "",
            "",
            "resting",
        ]),
        rule_row(&[
            "stretch",
            "guest",
            "resting",
            "resting(.me), not stretched(.me)",
            "stretch",
            "",
            "",
            "stretched(.me)",
        ]),
        rule_row(&[
            "leave",
            "guest",
            "resting",
            "resting(.me), taken(X)",
            "getup",
            "",
            "",
            "",
            "resting(.me), stretched(.me)",
            "",
            "taken(X)",
            "",
            "",
            "actor",
        ]),
    ];
    (meta, roles, rules)
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}):\n{stdout}"))
}

fn check_json(path: &str) -> (i32, Value) {
    let out = ensemble(&["check", path, "--format", "json"]);
    (out.code, json(&out.stdout))
}

fn all<'a>(doc: &'a Value, code: &str) -> Vec<&'a Value> {
    doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .collect()
}

/// Writes the small script edited by `edit` and checks it: the exit code and the document.
fn check_workbook(edit: impl FnOnce(&mut Rows, &mut Rows, &mut Rows)) -> (i32, Value) {
    let (mut meta, mut roles, mut rules) = sheets();
    edit(&mut meta, &mut roles, &mut rules);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.xlsx");
    write(
        &path,
        &[("Script", &meta), ("Roles", &roles), ("Rules", &rules)],
    );
    check_json(path.to_str().unwrap())
}

/// The one error `code` at `sheet`!`cell` of the edited script; `build` would refuse it.
fn workbook_typo(
    edit: impl FnOnce(&mut Rows, &mut Rows, &mut Rows),
    code: &str,
    sheet: &str,
    cell: &str,
) -> Value {
    let (exit, doc) = check_workbook(edit);
    let found = all(&doc, code);
    let d = found
        .iter()
        .find(|d| d["sheet"] == sheet && d["cell"] == cell)
        .unwrap_or_else(|| panic!("no `{code}` at {sheet}!{cell} in {doc:#}"));
    assert_eq!(d["severity"], "error", "{d:#}");
    assert_eq!(d["file"], "t.xlsx");
    assert!(d["line"].is_null() && d["column"].is_null(), "{d:#}");
    assert_eq!(exit, 1, "{doc:#}");
    (*d).clone()
}

fn assert_suggests(d: &Value, name: &str) {
    assert!(
        d["notes"]
            .to_string()
            .contains(&format!("did you mean `{name}")),
        "{d:#}"
    );
}

fn assert_related_cell(d: &Value, sheet: &str, cell: &str) {
    assert!(
        d["related"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["sheet"] == sheet && r["cell"] == cell && r["file"] == "t.xlsx"),
        "no related {sheet}!{cell} in {d:#}"
    );
}

#[test]
fn the_clean_workbook_is_clean() {
    let (exit, doc) = check_workbook(|_, _, _| {});
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
}

// ---- the Rules sheet ----

#[test]
fn a_misspelt_next_state_is_unknown_reference_at_its_cell() {
    let d = workbook_typo(
        |_, _, rules| rules[1][12] = s("restng"),
        "unknown-reference",
        "Rules",
        "M2",
    );
    assert_suggests(&d, "resting");
    // Where the rules of the state meant start.
    assert_related_cell(&d, "Rules", "C3");
    // The typo creates no empty state: nothing else is reported.
    let (_, doc) = check_workbook(|_, _, rules| rules[1][12] = s("restng"));
    assert_eq!(doc["diagnostics"].as_array().unwrap().len(), 1, "{doc:#}");
}

#[test]
fn a_next_state_without_rules_is_unknown_reference_unless_any_state_rules_apply() {
    // Nothing like a real state, and no rule applies there: the participant would sit forever.
    let d = workbook_typo(
        |_, _, rules| rules[1][12] = s("dancing"),
        "unknown-reference",
        "Rules",
        "M2",
    );
    assert!(
        d["notes"]
            .to_string()
            .contains("states with rules: idle, resting"),
        "{d:#}"
    );
    // A rule with an empty State applies in every state, so `dancing` is a state after all.
    let (exit, doc) = check_workbook(|_, _, rules| {
        rules[1][12] = s("dancing");
        rules.push(rule_row(&["any", "guest", "", "dizzy(.me)", "sit"]));
        rules[2][7] = s("stretched(.me), dizzy(.me)");
    });
    assert!(all(&doc, "unknown-reference").is_empty(), "{doc:#}");
    assert_eq!(exit, 0, "{doc:#}");
}

#[test]
fn a_misspelt_state_is_unknown_reference_at_its_cell() {
    // One of the two rules of `resting` is written for `restng`.
    let d = workbook_typo(
        |_, _, rules| rules[3][2] = s("restng"),
        "unknown-reference",
        "Rules",
        "C4",
    );
    assert_suggests(&d, "resting");
    assert_related_cell(&d, "Rules", "M2");
    // No follow-up: the rule counts as a rule of `resting`.
    let (_, doc) = check_workbook(|_, _, rules| rules[3][2] = s("restng"));
    assert!(all(&doc, "unreachable-state").is_empty(), "{doc:#}");
    // Both rules of the state misspelt the same way, led to once: the Next State is the odd one
    // out (written once, against two State cells).
    let d = workbook_typo(
        |_, _, rules| {
            rules[2][2] = s("restng");
            rules[3][2] = s("restng");
        },
        "unknown-reference",
        "Rules",
        "M2",
    );
    assert_suggests(&d, "restng");
    assert_related_cell(&d, "Rules", "C3");
}

#[test]
fn a_misspelt_first_state_taken_as_the_initial_state_is_reported_where_it_stands() {
    // Without `initial_state` the first rule's State is the initial state; misspelt there,
    // it is still the odd one out against the two rules written for `idle`.
    let edit = |meta: &mut Rows, _: &mut Rows, rules: &mut Rows| {
        meta.remove(2);
        rules[1][2] = s("idel");
        rules.insert(
            2,
            rule_row(&[
                "wave",
                "guest",
                "idle",
                "seat(X), taken(X), not waved(.me)",
                "wave",
                "",
                "",
                "waved(.me)",
            ]),
        );
        rules.insert(
            3,
            rule_row(&[
                "nod",
                "guest",
                "idle",
                "waved(.me), not nodded(.me)",
                "nod",
                "",
                "",
                "nodded(.me)",
            ]),
        );
    };
    let d = workbook_typo(edit, "unknown-reference", "Rules", "C2");
    assert_suggests(&d, "idle");
    let (_, doc) = check_workbook(edit);
    assert_eq!(doc["summary"]["errors"], 1, "{doc:#}");
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
}

#[test]
fn a_misspelt_role_is_unknown_role_at_its_cell() {
    let d = workbook_typo(
        |_, _, rules| rules[2][1] = s("gest"),
        "unknown-role",
        "Rules",
        "B3",
    );
    assert_suggests(&d, "guest");
}

#[test]
fn misspelt_predicates_are_never_produced_at_their_cells() {
    // Read but never added.
    let d = workbook_typo(
        |_, _, rules| rules[1][3] = s("sat(X), not taken(X)"),
        "never-produced",
        "Rules",
        "D2",
    );
    assert_suggests(&d, "seat/1");
    // Deleted but never added: `resting` would never be deleted.
    let d = workbook_typo(
        |_, _, rules| rules[3][8] = s("restng(.me), stretched(.me)"),
        "never-produced",
        "Rules",
        "I4",
    );
    assert_suggests(&d, "resting/1");
    // Deferred deletion and On Error alike.
    workbook_typo(
        |_, _, rules| rules[3][10] = s("takn(X)"),
        "never-produced",
        "Rules",
        "K4",
    );
    // Deferred Add under another name: the rules reading `resting` never fire.
    let d = workbook_typo(
        |_, _, rules| rules[1][9] = s("restng(.me)"),
        "never-produced",
        "Rules",
        "D3",
    );
    assert_suggests(&d, "restng/1");
    // A misspelt supplied predicate: the precondition reading the real one is reported.
    let d = workbook_typo(
        |meta, _, _| meta[3][1] = s("seet/1"),
        "never-produced",
        "Rules",
        "D2",
    );
    assert_suggests(&d, "seet/1");
    // Added under another name: what reads the real name is reported, and told the near one.
    let d = workbook_typo(
        |_, _, rules| rules[2][7] = s("strechted(.me)"),
        "never-produced",
        "Rules",
        "I4",
    );
    assert_suggests(&d, "strechted/1");
}

#[test]
fn a_misspelt_terminate_is_an_error_at_its_cell() {
    let d = workbook_typo(
        |_, _, rules| rules[3][13] = s("acter"),
        "syntax",
        "Rules",
        "N4",
    );
    assert_suggests(&d, "actor");
}

#[test]
fn misspelt_cell_syntax_is_an_error_at_its_cell() {
    // A variable written in lower case is a constant, so an unbound upper-case one shows.
    workbook_typo(
        |_, _, rules| rules[1][5] = s("Y"),
        "uninstantiated-variable",
        "Rules",
        "F2",
    );
    workbook_typo(
        |_, _, rules| rules[1][6] = s("line=L"),
        "uninstantiated-variable",
        "Rules",
        "G2",
    );
    workbook_typo(
        |_, _, rules| rules[1][6] = s("line"),
        "syntax",
        "Rules",
        "G2",
    );
    workbook_typo(
        |_, _, rules| rules[1][4] = s("Sit"),
        "syntax",
        "Rules",
        "E2",
    );
    let d = workbook_typo(
        |_, _, rules| rules[1][3] = s("seat(X), not taken(X), randff(0, 1) < 0.5"),
        "unknown-reference",
        "Rules",
        "D2",
    );
    assert_suggests(&d, "randf");
    workbook_typo(
        |_, _, rules| rules[1][11] = s("fell(.me"),
        "syntax",
        "Rules",
        "L2",
    );
    workbook_typo(
        |_, _, rules| rules[3][8] = s("resting(.me, .now), stretched(.me)"),
        "arity-mismatch",
        "Rules",
        "I4",
    );
}

#[test]
fn a_misspelt_column_header_is_an_error_at_its_cell() {
    // An optional column: all its cells would be ignored.
    let d = workbook_typo(
        |_, _, rules| rules[0][12] = s("Next Stat"),
        "unknown-column",
        "Rules",
        "M1",
    );
    assert_suggests(&d, "next state");
    // A column one edit from nothing known is only warned about (notes, comments).
    let (exit, doc) = check_workbook(|_, _, rules| rules[0].push(s("Comment")));
    let d = all(&doc, "unknown-column")[0];
    assert_eq!(
        (d["severity"].as_str(), d["cell"].as_str()),
        (Some("warning"), Some("O1"))
    );
    assert_eq!(exit, 0);
}

#[test]
fn a_formula_without_a_cached_value_is_an_error_at_its_cell() {
    let d = workbook_typo(
        |_, _, rules| rules[1][12] = Some(C::F("=LOWER(\"RESTING\")", "")),
        "syntax",
        "Rules",
        "M2",
    );
    let text = d.to_string();
    assert!(text.contains("stores no value"), "{d:#}");
    assert!(
        text.contains("open and save the workbook in Excel or LibreOffice"),
        "{d:#}"
    );
    // With its value stored, the same formula reads as that value.
    let (exit, doc) =
        check_workbook(|_, _, rules| rules[1][12] = Some(C::F("=LOWER(\"RESTING\")", "resting")));
    assert_eq!(exit, 0, "{doc:#}");
}

// ---- the Roles sheet ----

#[test]
fn an_empty_role_name_is_an_error_at_its_cell() {
    workbook_typo(
        |_, roles, _| roles.push(vec![None, Some(C::N(0.0)), Some(C::N(1.0))]),
        "syntax",
        "Roles",
        "A3",
    );
}

#[test]
fn misspelt_role_columns_are_errors_at_their_cells() {
    workbook_typo(
        |_, roles, _| roles[1][2] = s("2x"),
        "bad-cardinality",
        "Roles",
        "C2",
    );
    workbook_typo(
        |_, roles, _| roles[1][1] = s("one"),
        "bad-cardinality",
        "Roles",
        "B2",
    );
    let d = workbook_typo(
        |_, roles, _| roles[1][3] = s("dynamicjoin"),
        "syntax",
        "Roles",
        "D2",
    );
    assert_suggests(&d, "dynamicJoin");
    // A role defined twice: the first definition is a related cell.
    let d = workbook_typo(
        |_, roles, _| roles.push(vec![s("guest"), Some(C::N(0.0)), Some(C::N(1.0))]),
        "duplicate-name",
        "Roles",
        "A3",
    );
    assert_related_cell(&d, "Roles", "A2");
}

// ---- the Script sheet ----

#[test]
fn a_misspelt_initial_state_is_unknown_reference_at_its_cell() {
    let d = workbook_typo(
        |meta, _, _| meta[2][1] = s("idel"),
        "unknown-reference",
        "Script",
        "B3",
    );
    assert_suggests(&d, "idle");
    assert_related_cell(&d, "Rules", "C2");
}

#[test]
fn a_misspelt_key_is_an_error_at_its_cell() {
    let d = workbook_typo(
        |meta, _, _| meta[2][0] = s("inital_state"),
        "unknown-column",
        "Script",
        "A3",
    );
    assert_suggests(&d, "initial_state");
}

#[test]
fn empty_names_and_keys_are_errors_at_their_cells() {
    workbook_typo(|meta, _, _| meta[1][1] = None, "syntax", "Script", "B2");
    workbook_typo(|meta, _, _| meta[2][0] = None, "syntax", "Script", "A3");
}

#[test]
fn an_empty_meta_parameter_in_a_script_nothing_extends_is_an_error_at_its_cell() {
    let d = workbook_typo(
        |meta, roles, _| {
            meta.push(vec![s("$seats"), None]);
            roles[1][2] = s("$seats");
        },
        "uninstantiated-variable",
        "Script",
        "B5",
    );
    assert_related_cell(&d, "Roles", "C2");
    // `build` writes nothing rather than an empty program.
    let (mut meta, mut roles, rules) = sheets();
    meta.push(vec![s("$seats"), None]);
    roles[1][2] = s("$seats");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.xlsx");
    write(
        &path,
        &[("Script", &meta), ("Roles", &roles), ("Rules", &rules)],
    );
    let out_dir = tempfile::tempdir().unwrap();
    let out = ensemble(&[
        "build",
        path.to_str().unwrap(),
        "-o",
        out_dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(std::fs::read_dir(out_dir.path()).unwrap().count(), 0);
}

#[test]
fn a_misspelt_meta_parameter_is_an_error_at_its_cell() {
    let d = workbook_typo(
        |meta, roles, _| {
            meta.push(vec![s("$seets"), Some(C::N(2.0))]);
            roles[1][2] = s("$seats");
        },
        "unknown-reference",
        "Script",
        "B5",
    );
    assert_suggests(&d, "$seats");
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("Ensemble.ron"), "Project(name: \"shops\")").unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

const TEMPLATE: &str = r#"Script(
    name: "shopkeeper",
    roles: [Role(name: "keeper", min: "1", max: "1"), Role(name: "customer", min: "0", max: "$queue")],
    rules: [Rule(rule: "greet", role: "keeper", state: "open", precondition: "customer(C), not greeted(C)", action: "$greeting", target: "C", add: "greeted(C)")],
    supplies: "customer/1",
)"#;

/// A project of the template and a workbook `baker.xlsx` extending it with `meta`.
fn derived_workbook(meta: Rows) -> (i32, Value) {
    let dir = project(&[("shopkeeper.script.ron", TEMPLATE)]);
    let header: Rows = vec![vec![s("Role"), s("Min"), s("Max")]];
    let rules: Rows = vec![rules::COLUMNS.iter().map(|c| s(c.header)).collect()];
    write(
        &dir.path().join("baker.xlsx"),
        &[("Script", &meta), ("Roles", &header), ("Rules", &rules)],
    );
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    drop(dir);
    (exit, doc)
}

#[test]
fn a_misspelt_base_is_unknown_reference_at_its_cell() {
    let meta = |base: &'static str| {
        vec![
            vec![s("Key"), s("Value")],
            vec![s("name"), s("baker")],
            vec![s("base"), s(base)],
            vec![s("$queue"), Some(C::N(3.0))],
            vec![s("$greeting"), s("wave")],
        ]
    };
    let (exit, doc) = derived_workbook(meta("shopkeeper"));
    assert_eq!(exit, 0, "{doc:#}");
    let (exit, doc) = derived_workbook(meta("shopkeepr"));
    assert_eq!(exit, 1);
    let d = all(&doc, "unknown-reference")[0];
    assert_eq!(
        (d["file"].as_str(), d["sheet"].as_str(), d["cell"].as_str()),
        (Some("baker.xlsx"), Some("Script"), Some("B3")),
        "{d:#}"
    );
    assert_suggests(d, "shopkeeper");
}

#[test]
fn a_derived_script_that_leaves_a_meta_parameter_unset_is_an_error() {
    // `$greeting` is set as `$greting`: baker would silently be left out of the program.
    let (exit, doc) = derived_workbook(vec![
        vec![s("Key"), s("Value")],
        vec![s("name"), s("baker")],
        vec![s("base"), s("shopkeeper")],
        vec![s("$queue"), Some(C::N(3.0))],
        vec![s("$greting"), s("wave")],
    ]);
    assert_eq!(exit, 1, "{doc:#}");
    let unset = all(&doc, "uninstantiated-variable");
    let d = unset
        .iter()
        .find(|d| d["severity"] == "error")
        .expect("an error");
    assert_eq!(d["file"], "shopkeeper.script.ron", "{d:#}");
    let (line, column) = line_col(TEMPLATE, "\"$greeting\"");
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column))
    );
    assert_suggests(d, "$greting");
    let typo = all(&doc, "unknown-reference")[0];
    assert_eq!(
        (typo["sheet"].as_str(), typo["cell"].as_str()),
        (Some("Script"), Some("B5"))
    );
    assert_suggests(typo, "$greeting");
}

// ---- the native asset: the same answers at line and column ----

const RON_SCRIPT: &str = r#"Script(
    name: "t",
    initial_state: "idle",
    supplies: "seat/1",
    roles: [
        Role(name: "guest", min: "1", max: "2", flags: "dynamicJoin"),
    ],
    rules: [
        Rule(rule: "sit", role: "guest", state: "idle", precondition: "seat(X), not taken(X)", action: "sit", target: "X", add: "taken(X)", deferred_add: "resting(.me)", next_state: "resting"),
        Rule(rule: "leave", role: "guest", state: "resting", precondition: "resting(.me), taken(X)", action: "getup", delete: "resting(.me)", deferred_delete: "taken(X)", terminate: "actor"),
    ],
)"#;

/// Replaces `from` by `to` in the native script; expects the error `code` at `at` in the result.
fn ron_typo(from: &str, to: &str, code: &str, at: &str) -> Value {
    let script = RON_SCRIPT.replacen(from, to, 1);
    assert_ne!(script, RON_SCRIPT, "`{from}` is not in the script");
    let dir = project(&[("t.script.ron", &script)]);
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    let (line, column) = line_col(&script, at);
    let d = all(&doc, code)
        .into_iter()
        .find(|d| d["line"].as_u64() == Some(line) && d["column"].as_u64() == Some(column))
        .unwrap_or_else(|| panic!("no `{code}` at {line}:{column} in {doc:#}"))
        .clone();
    assert_eq!(d["file"], "t.script.ron");
    assert_eq!(d["severity"], "error", "{d:#}");
    assert_eq!(exit, 1);
    d
}

#[test]
fn the_clean_native_script_is_clean() {
    let dir = project(&[("t.script.ron", RON_SCRIPT)]);
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["summary"]["warnings"], 0, "{doc:#}");
}

#[test]
fn every_field_of_the_native_script_reports_its_typo_where_it_stands() {
    let d = ron_typo(
        r#"next_state: "resting""#,
        r#"next_state: "restng""#,
        "unknown-reference",
        r#""restng""#,
    );
    assert_suggests(&d, "resting");
    let (line, column) = line_col(RON_SCRIPT, r#""resting", precondition"#);
    assert_eq!(
        (
            d["related"][0]["line"].as_u64(),
            d["related"][0]["column"].as_u64()
        ),
        (Some(line), Some(column))
    );
    let d = ron_typo(
        r#"initial_state: "idle""#,
        r#"initial_state: "idel""#,
        "unknown-reference",
        r#""idel""#,
    );
    assert_suggests(&d, "idle");
    let d = ron_typo(
        r#"role: "guest", state: "resting""#,
        r#"role: "gest", state: "resting""#,
        "unknown-role",
        r#""gest""#,
    );
    assert_suggests(&d, "guest");
    let d = ron_typo(
        r#"delete: "resting(.me)""#,
        r#"delete: "restng(.me)""#,
        "never-produced",
        "restng(.me)",
    );
    assert_suggests(&d, "resting/1");
    let d = ron_typo(
        r#"terminate: "actor""#,
        r#"terminate: "acter""#,
        "syntax",
        r#""acter""#,
    );
    assert_suggests(&d, "actor");
    let d = ron_typo(
        r#"flags: "dynamicJoin""#,
        r#"flags: "dynamicjoin""#,
        "syntax",
        r#""dynamicjoin""#,
    );
    assert_suggests(&d, "dynamicJoin");
    ron_typo(r#"max: "2""#, r#"max: "2x""#, "bad-cardinality", r#""2x""#);
    let d = ron_typo(
        r#""seat(X), not"#,
        r#""seet(X), not"#,
        "never-produced",
        "seet(X)",
    );
    assert_suggests(&d, "seat/1");
    let d = ron_typo(
        r#"supplies: "seat/1""#,
        r#"supplies: "set/1""#,
        "never-produced",
        "seat(X)",
    );
    assert_suggests(&d, "set/1");
    // Empty names.
    ron_typo(
        r#"Role(name: "guest""#,
        r#"Role(name: """#,
        "syntax",
        r#""""#,
    );
    ron_typo(r#"name: "t""#, r#"name: """#, "syntax", r#""""#);
    // A misspelt field is refused where it stands.
    ron_typo("next_state:", "next_sate:", "syntax", "next_sate");
}

#[test]
fn a_misspelt_meta_parameter_in_a_native_script_is_an_error_at_what_it_sets() {
    let script = RON_SCRIPT
        .replacen(r#"max: "2""#, r#"max: "$seets""#, 1)
        .replacen(
            r#"supplies: "seat/1","#,
            r#"supplies: "seat/1", params: [("$seats", "2")],"#,
            1,
        );
    let dir = project(&[("t.script.ron", &script)]);
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(exit, 1);
    let d = all(&doc, "unknown-reference")[0];
    let (line, column) = line_col(&script, r#""2")]"#);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{d:#}"
    );
    assert_suggests(d, "$seets");
    // The use is pointed out too, told the name that is set.
    let d = all(&doc, "uninstantiated-variable")[0];
    let (line, column) = line_col(&script, r#""$seets""#);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{d:#}"
    );
    assert_suggests(d, "$seats");
}

#[test]
fn an_empty_meta_parameter_in_a_native_script_is_an_error_at_its_value() {
    let script = RON_SCRIPT
        .replacen(r#"max: "2""#, r#"max: "$seats""#, 1)
        .replacen(
            r#"supplies: "seat/1","#,
            r#"supplies: "seat/1", params: [("$seats", "")],"#,
            1,
        );
    let dir = project(&[("t.script.ron", &script)]);
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(exit, 1);
    let d = all(&doc, "uninstantiated-variable")[0];
    assert_eq!(d["severity"], "error");
    let (line, column) = line_col(&script, r#""")]"#);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{d:#}"
    );
    let (line, column) = line_col(&script, r#""$seats", flags"#);
    assert_eq!(
        (
            d["related"][0]["line"].as_u64(),
            d["related"][0]["column"].as_u64()
        ),
        (Some(line), Some(column))
    );
}

// ---- HMM conversations: what cannot reach the output never answers ----

/// A copy of `sample` with `from` replaced by `to` (once) in `file`, and the edited text.
fn edited_sample(sample: &str, file: &str, from: &str, to: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        std::path::Path::new(&repo_path(&format!("samples/{sample}"))),
        dir.path(),
    );
    let path = dir.path().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen(from, to, 1);
    assert_ne!(edited, text, "`{from}` is not in {file}");
    std::fs::write(&path, &edited).unwrap();
    (dir, edited)
}

/// The innkeeper with its actions file edited, checked.
fn innkeeper_with(from: &str, to: &str) -> (i32, Value) {
    let (dir, _) = edited_sample("innkeeper", "innkeeper.actions.ron", from, to);
    check_json(dir.path().to_str().unwrap())
}

#[test]
fn a_space_left_out_of_the_arbitration_network_is_reported_by_name() {
    let (exit, doc) = innkeeper_with(r#""rumours", "rush"]"#, r#""rumours"]"#);
    assert_eq!(exit, 1, "{doc:#}");
    let found = all(&doc, "never-arbitrated");
    assert_eq!(found.len(), 1, "{doc:#}");
    let d = found[0];
    assert!(
        d["message"].as_str().unwrap().contains("space `rush`"),
        "{d:#}"
    );
    assert!(
        d["message"].as_str().unwrap().contains("ends in `answer`"),
        "{d:#}"
    );
    assert_eq!(d["file"], "spaces/rush.space.ron");
    let text =
        std::fs::read_to_string(repo_path("samples/innkeeper/spaces/rush.space.ron")).unwrap();
    let (line, column) = line_col(&text, r#""rush""#);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column))
    );
    // The state whose action is never chosen.
    let (line, _) = line_col(&text, r#"(name: "rushing""#);
    assert_eq!(d["related"][0]["line"].as_u64(), Some(line), "{d:#}");
}

#[test]
fn an_accumulator_left_out_of_the_arbitration_network_is_reported_with_what_it_feeds() {
    let (exit, doc) = innkeeper_with(r#""general", "fallback"]"#, r#""general"]"#);
    assert_eq!(exit, 1, "{doc:#}");
    let messages: Vec<&str> = all(&doc, "never-arbitrated")
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    // The accumulator, and the two spaces only it listens to (`statement` and the catch-all).
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(
        messages
            .iter()
            .any(|m| m.contains("accumulator `fallback`")),
        "{messages:?}"
    );
    // The spaces only `fallback` listens to never answer either.
    for space in ["space `statement`", "space `unrecognised`"] {
        assert!(messages.iter().any(|m| m.contains(space)), "{messages:?}");
    }
}

// ---- roles named outside the script ----

#[test]
fn a_misspelt_role_of_a_scene_agent_is_an_error_at_the_agent() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        std::path::Path::new(&repo_path("samples/bench")),
        dir.path(),
    );
    let scene = dir.path().join("bench.scene.ron");
    let text = std::fs::read_to_string(&scene).unwrap();
    let edited = text.replacen(r#"roles: ["tourist"]"#, r#"roles: ["turist"]"#, 1);
    assert_ne!(edited, text);
    std::fs::write(&scene, &edited).unwrap();
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    assert_eq!(exit, 1, "{doc:#}");
    let d = all(&doc, "unknown-role")[0];
    assert_eq!(d["file"], "bench.scene.ron");
    let (line, column) = line_col(&edited, r#""tourist1""#);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{d:#}"
    );
    assert_suggests(d, "tourist");
}

// ---- Machines, scenes and planning: one slip in every name-bearing field ----

/// `sample` with `from` replaced by `to` (once) in `file`; expects the error `code` at `at` in
/// the edited file, and returns it.
fn sample_typo(sample: &str, file: &str, from: &str, to: &str, code: &str, at: &str) -> Value {
    let (dir, edited) = edited_sample(sample, file, from, to);
    let (exit, doc) = check_json(dir.path().to_str().unwrap());
    let (line, column) = line_col(&edited, at);
    let d = all(&doc, code)
        .into_iter()
        .find(|d| {
            d["file"] == file
                && d["line"].as_u64() == Some(line)
                && d["column"].as_u64() == Some(column)
        })
        .unwrap_or_else(|| {
            panic!("`{from}` -> `{to}`: no `{code}` at {file}:{line}:{column} in {doc:#}")
        })
        .clone();
    assert_eq!(d["severity"], "error", "`{from}` -> `{to}`: {d:#}");
    assert_eq!(exit, 1);
    d
}

#[test]
fn every_name_in_a_machine_reports_its_typo_where_it_stands() {
    let machine = "machines/Customer.machine.ron";
    let typo = |from, to, code, at| sample_typo("weapon-shop", machine, from, to, code, at);
    // A transition's target state.
    let d = typo(
        r#""Pleased")"#,
        r#""Pleasd")"#,
        "unknown-reference",
        r#""Pleasd")"#,
    );
    assert_suggests(&d, "Pleased");
    // A transition's event, one slip from what the state raises.
    let d = typo(
        r#""FinishStatement", "GoHome""#,
        r#""FinishStatment", "GoHome""#,
        "unknown-event",
        r#""FinishStatment""#,
    );
    assert_suggests(&d, "FinishStatement");
    // The library state a state runs.
    let d = typo(
        r#"code: "Goto""#,
        r#"code: "Gotoo""#,
        "unknown-reference",
        r#""Gotoo""#,
    );
    assert_suggests(&d, "Goto");
    // A location modifier.
    let d = typo(
        r#"modifier: "Street""#,
        r#"modifier: "Stret""#,
        "unknown-reference",
        r#""Stret""#,
    );
    assert_suggests(&d, "Street");
    // A `Plan` state's problem.
    let d = typo(
        r#"modifier: "BuySword""#,
        r#"modifier: "BuySwrd""#,
        "unknown-reference",
        r#""BuySwrd""#,
    );
    assert_suggests(&d, "BuySword");
}

#[test]
fn every_name_in_a_scene_reports_its_typo_where_it_stands() {
    let scene = "shop.scene.ron";
    let typo = |from, to, code, at| sample_typo("weapon-shop", scene, from, to, code, at);
    let d = typo(
        r#"machine: "Customer""#,
        r#"machine: "Custmer""#,
        "unknown-reference",
        r#""Custmer""#,
    );
    assert_suggests(&d, "Customer");
    let d = typo(
        r#"at: "Street""#,
        r#"at: "Stret""#,
        "unknown-reference",
        r#""Stret""#,
    );
    assert_suggests(&d, "Street");
    let d = typo(
        r#"problem: "BuySword""#,
        r#"problem: "BuySwrd""#,
        "unknown-reference",
        r#""BuySwrd""#,
    );
    assert_suggests(&d, "BuySword");
    typo(
        r#"perform: "Open(player"#,
        r#"perform: "Opn(player"#,
        "unknown-reference",
        r#""Opn(player, shopdoor)""#,
    );
}

#[test]
fn a_misspelt_slot_key_of_a_sentence_file_is_unknown_reference_at_its_key() {
    let file = "airport.sentences.ron";
    let typo = |from, to, at| sample_typo("airport", file, from, to, "unknown-reference", at);
    let d = typo(
        r#"examples: {"CityName""#,
        r#"examples: {"CityNme""#,
        r#""CityNme""#,
    );
    assert_suggests(&d, "CityName");
    let d = typo(
        r#"slots: {"CityName""#,
        r#"slots: {"CitName""#,
        r#""CitName""#,
    );
    assert_suggests(&d, "CityName");
}

#[test]
fn every_name_in_a_content_test_pattern_reports_its_typo_where_it_stands() {
    let d = sample_typo(
        "weapon-shop",
        "shop.test.ron",
        r#"action: "Buy(npc, sword)""#,
        r#"action: "Buyy(npc, sword)""#,
        "unknown-reference",
        r#""Buyy(npc, sword)""#,
    );
    assert_suggests(&d, "Buy");
    let d = sample_typo(
        "weapon-shop",
        "shop.test.ron",
        r#"problem: "BuySword""#,
        r#"problem: "BuySwrd""#,
        "unknown-reference",
        r#""BuySwrd""#,
    );
    assert_suggests(&d, "BuySword");
    let d = sample_typo(
        "airport",
        "lane-closed.test.ron",
        r#"door: "SecurityLaneA""#,
        r#"door: "SecurtyLaneA""#,
        "unknown-reference",
        r#""SecurtyLaneA""#,
    );
    assert_suggests(&d, "SecurityLaneA");
    // A mocked action (the first `sit` of the file) and an expected one.
    for occurrence in [
        "Action(action: ",
        "Happens(what: (event: \"fail\", agent: \"elder\", action: ",
    ] {
        let d = sample_typo(
            "bench",
            "bench.test.ron",
            &format!("{occurrence}\"sit\""),
            &format!("{occurrence}\"sti\""),
            "unknown-reference",
            r#""sti""#,
        );
        assert_suggests(&d, "sit");
    }
}
