//! Localisation end to end (docs/formats/strings.md): the airport in French, string tables out
//! to translators and back in every format, `check` on stale and slot-mismatched translations,
//! the pseudo-locale, pinned ids, and a locale switched while a scene runs.

use ensemble_runtime::trace::EventKind;
use ensemble_sim::Simulation;
use ensemble_sim::simulation::Options;
use ensemble_tests::{copy_dir, ensemble, json_lines, repo_path, root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A copy of the airport to edit.
fn airport_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("airport");
    copy_dir(&root().join("samples/airport"), &project);
    (dir, project)
}

/// The `say` texts of a run of `scene`.
fn says(project: &str, scene: &str, extra: &[&str]) -> Vec<String> {
    let mut args = vec![
        "run", project, "--scene", scene, "--seed", "7", "--trace", "json",
    ];
    args.extend_from_slice(extra);
    let out = ensemble(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["event"] == "say")
        .map(|e| e["text"].as_str().unwrap().to_string())
        .collect()
}

/// `check --format json`: the exit code and the diagnostics.
fn check(project: &str) -> (i32, Vec<Value>) {
    let out = ensemble(&["check", project, "--format", "json"]);
    let doc: Value = serde_json::from_str(&out.stdout).expect("JSON");
    (out.code, doc["diagnostics"].as_array().unwrap().clone())
}

fn with_code<'a>(ds: &'a [Value], code: &str) -> Vec<&'a Value> {
    ds.iter().filter(|d| d["code"] == code).collect()
}

/// The 1-based line of the first occurrence of `needle` in `file`.
fn line_of(file: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in {}", file.display()));
    text[..at].matches('\n').count() as u64 + 1
}

#[test]
fn the_airport_speaks_french_and_its_translation_is_complete() {
    let airport = repo_path("samples/airport");
    let english = says(&airport, "ticket-counter", &[]);
    let french = says(&airport, "ticket-counter", &["--locale", "fr"]);
    assert!(english.contains(&"I would like to buy a ticket in Boston.".to_string()));
    assert!(
        french.contains(&"Je voudrais acheter un billet pour Boston.".to_string()),
        "{french:?}"
    );
    assert!(french.contains(&"Quand souhaitez-vous voyager ?".to_string()));
    // Every line is French: none is a line of the English run.
    assert!(!french.is_empty());
    for line in &french {
        assert!(!english.contains(line), "untranslated: {line}");
    }
    // The traveller's `Say` lines.
    let traveller = says(&airport, "traveller", &["--locale", "fr"]);
    assert!(
        traveller.contains(&"Un billet pour Boston, s'il vous plaît.".to_string()),
        "{traveller:?}"
    );
    // A sentence state translated as one line: all its candidates speak that line.
    let c = ensemble_compiler::compile_path(&root().join("samples/airport")).unwrap();
    let (program, _) = c.output.expect("the airport compiles");
    let gate = program
        .speech
        .sentence_by_name(program.name_id("GateChanged").unwrap())
        .unwrap();
    let def = program.speech.sentence(gate);
    let first = def.first_candidate as usize;
    let lines: Vec<_> =
        program.strings.candidate_lines[first..first + def.candidate_count as usize].to_vec();
    assert!(
        lines.len() > 1 && lines.iter().all(|l| *l == lines[0]),
        "{lines:?}"
    );
    assert_eq!(program.strings.line(lines[0]).id, "GateChanged");
    let (code, ds) = check(&airport);
    assert_eq!(code, 0);
    for c in [
        "missing-translation",
        "stale-translation",
        "slot-mismatch",
        "unknown-line",
    ] {
        assert!(with_code(&ds, c).is_empty(), "{c}: {ds:?}");
    }
}

#[test]
fn export_edit_import_and_run_speaks_the_translation() {
    let (_dir, project) = airport_copy();
    std::fs::remove_dir_all(project.join("strings")).unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!(code, 0);
    let missing = with_code(&ds, "missing-translation");
    assert_eq!(missing.len(), 1, "{ds:?}");
    assert!(
        missing[0]["message"]
            .as_str()
            .unwrap()
            .contains("does not translate 32 of 32")
    );

    let csv = project.join("../fr.csv");
    let out = ensemble(&[
        "strings",
        "export",
        s(&project),
        "-o",
        s(&csv),
        "--locale",
        "fr",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(lines[0].starts_with("id,source,translation,context,status"));
    // The translator fills the translation column of the seller's one-off lines.
    for (id, translation) in [
        ("SellTicket/Okay1/1,", "Entendu."),
        ("SellTicket/Okay1/2,", "Parfait."),
    ] {
        let row = lines.iter_mut().find(|l| l.starts_with(id)).unwrap();
        assert!(row.contains(",missing,"), "{row}");
        let mut cells: Vec<&str> = row.splitn(4, ',').collect();
        cells[2] = translation;
        *row = cells.join(",");
    }
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let out = ensemble(&["strings", "import", s(&project), s(&csv), "--locale", "fr"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.contains("2 added"), "{}", out.stderr);
    let table = std::fs::read_to_string(project.join("strings/fr.strings.ron")).unwrap();
    assert!(
        table.contains(r#"(id: "SellTicket/Okay1/1", source: "OK.", text: "Entendu."),"#),
        "{table}"
    );

    let french = says(s(&project), "ticket-counter", &["--locale", "fr"]);
    assert!(
        french.iter().any(|l| l == "Entendu." || l == "Parfait."),
        "{french:?}"
    );
    // Lines without a translation fall back to the source.
    assert!(
        french.iter().any(|l| l.starts_with("I would like")),
        "{french:?}"
    );
}

#[test]
fn a_changed_source_line_makes_its_translation_stale() {
    let (_dir, project) = airport_copy();
    let machine = project.join("machines/SellTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    std::fs::write(
        &machine,
        text.replace(r#""OK.|Sure.""#, r#""OK.|Sure thing.""#),
    )
    .unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!(code, 0, "stale is a warning: {ds:?}");
    let stale = with_code(&ds, "stale-translation");
    assert_eq!(stale.len(), 1, "{ds:?}");
    let table = project.join("strings/fr.strings.ron");
    assert!(
        stale[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("strings/fr.strings.ron")
    );
    assert_eq!(stale[0]["line"], line_of(&table, "SellTicket/Okay1/2"));
    assert!(
        stale[0]["message"]
            .as_str()
            .unwrap()
            .contains("Sure thing.")
    );
    // The PO export marks it fuzzy; the CSV says stale.
    let po = project.join("../fr.po");
    let out = ensemble(&["strings", "export", s(&project), "-o", s(&po)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let text = std::fs::read_to_string(&po).unwrap();
    let entry = text
        .split("\n\n")
        .find(|e| e.contains("msgctxt \"SellTicket/Okay1/2\""))
        .unwrap();
    assert!(entry.contains("#, fuzzy"), "{entry}");
    assert!(entry.contains("msgid \"Sure thing.\""), "{entry}");
    // Re-importing it unreviewed keeps it stale; reviewed (fuzzy removed), it is current.
    let out = ensemble(&["strings", "import", s(&project), s(&po), "--locale", "fr"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        with_code(&check(s(&project)).1, "stale-translation").len(),
        1
    );
    std::fs::write(
        &po,
        text.replace(
            "#, fuzzy\nmsgctxt \"SellTicket/Okay1/2\"",
            "msgctxt \"SellTicket/Okay1/2\"",
        ),
    )
    .unwrap();
    let out = ensemble(&["strings", "import", s(&project), s(&po), "--locale", "fr"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(with_code(&check(s(&project)).1, "stale-translation").is_empty());
}

#[test]
fn a_translation_that_drops_or_invents_a_slot_fails_check() {
    let (_dir, project) = airport_copy();
    let table = project.join("strings/fr.strings.ron");
    let text = std::fs::read_to_string(&table).unwrap();
    let text = text
        .replace(
            "text: \"Je voudrais partir à {Time}.\"",
            "text: \"Je voudrais partir.\"",
        )
        .replace(
            "text: \"J'aimerais partir à {Time}.\"",
            "text: \"J'aimerais partir à {Heure}.\"",
        );
    std::fs::write(&table, text).unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!(code, 1, "{ds:?}");
    let bad = with_code(&ds, "slot-mismatch");
    assert_eq!(bad.len(), 2, "{ds:?}");
    assert_eq!(bad[0]["severity"], "error");
    assert_eq!(bad[0]["line"], line_of(&table, "Je voudrais partir."));
    assert!(bad[0]["message"].as_str().unwrap().contains("drops {Time}"));
    assert!(
        bad[1]["message"]
            .as_str()
            .unwrap()
            .contains("invents {Heure}")
    );
    let out = ensemble(&[
        "run",
        s(&project),
        "--scene",
        "ticket-counter",
        "--locale",
        "fr",
    ]);
    assert_eq!(out.code, 1, "a project with errors does not run");
}

#[test]
fn exports_are_deterministic_and_import_back_to_the_same_table() {
    let airport = repo_path("samples/airport");
    let committed = std::fs::read(root().join("samples/airport/strings/fr.strings.ron")).unwrap();
    for ext in ["csv", "po", "xlsx"] {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join(format!("a.{ext}"));
        let b = dir.path().join(format!("b.{ext}"));
        for f in [&a, &b] {
            let out = ensemble(&["strings", "export", &airport, "-o", s(f), "--locale", "fr"]);
            assert_eq!(out.code, 0, "{}", out.stderr);
        }
        assert_eq!(
            std::fs::read(&a).unwrap(),
            std::fs::read(&b).unwrap(),
            "{ext}"
        );
        // Into a copy without translations: the import writes the committed table back.
        let (_copy, project) = airport_copy();
        std::fs::remove_dir_all(project.join("strings")).unwrap();
        let out = ensemble(&["strings", "import", s(&project), s(&a), "--locale", "fr"]);
        assert_eq!(out.code, 0, "{ext}: {}", out.stderr);
        let written = std::fs::read(project.join("strings/fr.strings.ron")).unwrap();
        assert!(
            written == committed,
            "{ext}: {}",
            String::from_utf8_lossy(&written)
        );
    }
}

#[test]
fn the_pseudo_locale_marks_and_lengthens_every_line_and_keeps_slots() {
    let airport = repo_path("samples/airport");
    let english = says(&airport, "ticket-counter", &[]);
    let pseudo = says(&airport, "ticket-counter", &["--locale", "qps"]);
    assert!(!pseudo.is_empty());
    for line in &pseudo {
        assert!(line.starts_with("[!! ") && line.ends_with(" !!]"), "{line}");
    }
    // Slots are still filled: the cities appear as the scene binds them.
    assert!(pseudo.iter().any(|l| l.contains("Boston")), "{pseudo:?}");
    let longest = |v: &[String]| v.iter().map(|l| l.chars().count()).max().unwrap();
    assert!(longest(&pseudo) * 3 > longest(&english) * 4);
}

#[test]
fn an_unknown_locale_is_refused_with_the_known_ones() {
    let out = ensemble(&[
        "run",
        &repo_path("samples/airport"),
        "--scene",
        "ticket-counter",
        "--locale",
        "de",
    ]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("no locale `de` (locales: fr, qps)"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_pinned_id_taken_twice_is_an_error_at_the_line() {
    let (_dir, project) = airport_copy();
    let machine = project.join("machines/SellTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    let text = text
        .replace(r#""OK.|Sure.""#, r#""{#ok} OK.|Sure.""#)
        .replace(r#"modifier: "OK.", "#, r#"modifier: "{#ok} Fine.", "#);
    std::fs::write(&machine, text).unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!(code, 1);
    let dup = with_code(&ds, "duplicate-line-id");
    assert_eq!(dup.len(), 1, "{ds:?}");
    assert_eq!(dup[0]["line"], line_of(&machine, "{#ok} Fine."));
    // A pin is not spoken, and the pinned line keeps its translation under the new id.
    let text = std::fs::read_to_string(&machine).unwrap();
    std::fs::write(&machine, text.replace("{#ok} Fine.", "Fine.")).unwrap();
    let english = says(s(&project), "ticket-counter", &[]);
    assert!(english.iter().all(|l| !l.contains("{#")), "{english:?}");
    assert!(english.contains(&"OK.".to_string()) || english.contains(&"Sure.".to_string()));
}

#[test]
fn the_locale_switches_while_the_scene_runs() {
    let c = ensemble_compiler::compile_path(&root().join("samples/airport")).unwrap();
    let (program, _) = c.output.expect("the airport compiles");
    let mut sim =
        Simulation::start(Arc::new(program), "ticket-counter", 7, &Options::default()).unwrap();
    let mut said = Vec::new();
    let mut switched_at = None;
    for _ in 0..2000 {
        sim.tick();
        for e in sim.take_events() {
            if let EventKind::Say { text, .. } = e.kind {
                said.push(text);
            }
        }
        if switched_at.is_none() && said.len() >= 3 {
            sim.set_locale(Some("fr")).unwrap();
            switched_at = Some(said.len());
        }
    }
    let at = switched_at.expect("three lines were said");
    assert_eq!(said[0], "Hi.", "{said:?}");
    assert!(
        said[at..].iter().any(|l| l.starts_with("Je voudrais")),
        "{said:?}"
    );
    assert!(
        said[..at].iter().all(|l| !l.contains("voudrais")),
        "{said:?}"
    );
    assert!(sim.set_locale(Some("xx")).is_err());
    sim.set_locale(None).unwrap();
}

#[test]
fn check_warns_about_missing_voice_over_per_language() {
    let (_dir, project) = airport_copy();
    let manifest = project.join("Ensemble.ron");
    let text = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        text.replace(
            "locales: [\"fr\"],",
            "locales: [\"fr\"],\n    audio: \"audio\",",
        ),
    )
    .unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!(code, 0, "missing audio is a warning: {ds:?}");
    let missing = with_code(&ds, "missing-audio");
    assert_eq!(missing.len(), 2, "one per language: {ds:?}");
    // Record one English line (any accepted format), and every French one.
    let en = project.join("audio/en/SellTicket/Okay1");
    std::fs::create_dir_all(&en).unwrap();
    std::fs::write(en.join("1.wav"), b"RIFF").unwrap();
    let csv = project.join("../ids.csv");
    let out = ensemble(&["strings", "export", s(&project), "-o", s(&csv)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let ids: Vec<String> = std::fs::read_to_string(&csv)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    for id in &ids {
        let file = project.join("audio/fr").join(format!("{id}.ogg"));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, b"OggS").unwrap();
    }
    let (_, ds) = check(s(&project));
    let missing = with_code(&ds, "missing-audio");
    assert_eq!(missing.len(), 1, "{ds:?}");
    let message = missing[0]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "{} of {} lines have no `en` voice-over",
            ids.len() - 1,
            ids.len()
        )),
        "{message}"
    );
    assert_eq!(missing[0]["line"], line_of(&manifest, "audio:"));
}
