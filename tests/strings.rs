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
    assert!(english.contains(&"I would like to buy a ticket to San Francisco.".to_string()));
    assert!(
        french.contains(&"J'aimerais acheter un billet pour San Francisco.".to_string()),
        "{french:?}"
    );
    assert!(french.contains(&"Quand souhaitez-vous voyager ?".to_string()));
    // Slot values the scene binds are translated too (`Time=seven` is `sept heures`), and only
    // in the locale that translates them.
    assert!(
        french.contains(&"Je voudrais partir à sept heures.".to_string()),
        "{french:?}"
    );
    assert!(
        english.iter().any(|l| l.ends_with("at seven.")),
        "{english:?}"
    );
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
            .contains("does not translate 34 of 34")
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
            "text: \"Je partirais volontiers à {Time}.\"",
            "text: \"Je partirais volontiers à {Heure}.\"",
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
    // Line for line (longer lines take longer to say, so the pseudo run says fewer of them in
    // the scene's time): each is at least a third longer.
    for (p, e) in pseudo.iter().zip(&english) {
        assert!(p.chars().count() * 3 > e.chars().count() * 4, "{p} / {e}");
    }
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

/// A copy of the innkeeper to edit.
fn innkeeper_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("innkeeper");
    copy_dir(&root().join("samples/innkeeper"), &project);
    (dir, project)
}

/// The innkeeper's scripted conversation as `(tick, action, emote, text)` of every output.
fn innkeeper_outputs(project: &str, extra: &[&str]) -> Vec<(u64, String, String, String)> {
    let transcript = repo_path("samples/innkeeper/transcripts/xenos.txt");
    let mut args = vec![
        "run",
        project,
        "--scene",
        "chat",
        "--input",
        &transcript,
        "--seed",
        "7",
        "--trace",
        "json",
    ];
    args.extend_from_slice(extra);
    let out = ensemble(&args);
    assert_eq!(out.code, 0, "{}", out.stderr);
    json_lines(&out.stdout)
        .into_iter()
        .filter(|e| e["event"] == "output")
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap().to_string();
            (
                e["tick"].as_u64().unwrap(),
                text("action"),
                text("emote"),
                text("text"),
            )
        })
        .collect()
}

#[test]
fn the_innkeeper_answers_in_french_exactly_when_and_how_he_does_in_english() {
    let innkeeper = repo_path("samples/innkeeper");
    let (code, ds) = check(&innkeeper);
    assert_eq!(
        (code, ds.len()),
        (0, 0),
        "the French table is complete: {ds:?}"
    );
    let en = innkeeper_outputs(&innkeeper, &[]);
    let fr = innkeeper_outputs(&innkeeper, &["--locale", "fr"]);
    assert_eq!(en.len(), fr.len());
    for (e, f) in en.iter().zip(&fr) {
        // The same iteration, action and emote: only the words change.
        assert_eq!((e.0, &e.1, &e.2), (f.0, &f.1, &f.2), "{e:?} / {f:?}");
    }
    let said: Vec<&str> = fr.iter().map(|o| o.3.as_str()).collect();
    // A reply, a concept's name and property filled in, a nested template, all in French.
    for line in [
        "moi avoir pour toi épée",
        "moi échanger contre une potion de soin",
        "maire est à la mairie, près de la fontaine",
        "moi rester loin des ennuis, tu sais",
    ] {
        assert!(said.contains(&line), "{line:?} not in {said:?}");
    }
    assert!(!said.iter().any(|l| l.contains("sword")), "{said:?}");
    // The pseudo-locale marks every reply, lengthened, the same way.
    let qps = innkeeper_outputs(&innkeeper, &["--locale", "qps"]);
    assert_eq!(qps.len(), en.len());
    for ((_, _, _, e), (_, _, _, q)) in en.iter().zip(&qps) {
        if e.is_empty() {
            assert!(q.is_empty(), "a bare emote stays one: {q:?}");
        } else {
            assert!(q.starts_with("[!! ") && q.ends_with(" !!]"), "{q:?}");
            assert!(q.chars().count() > e.chars().count(), "{q:?} / {e:?}");
        }
    }
}

#[test]
fn innkeeper_translations_are_checked_like_every_other_line() {
    let (_dir, project) = innkeeper_copy();
    let table = project.join("strings/fr.strings.ron");
    let text = std::fs::read_to_string(&table).unwrap();
    let edited = text
        // A dropped slot, an invented one, and a template that does not parse.
        .replace(
            "text: \"moi échanger contre {the-item.price}\"",
            "text: \"moi échanger contre de l'or\"",
        )
        .replace(
            "text: \"moi avoir pour toi {the-item}\"",
            "text: \"moi avoir pour toi {the-item} et {@nope}\"",
        )
        .replace(
            "text: \"{adieu|bon voyage}, ami\"",
            "text: \"{adieu|bon voyage, ami\"",
        );
    assert_ne!(edited, text);
    std::fs::write(&table, edited).unwrap();
    // The action's English changes after translation: its translation is stale.
    let actions = project.join("innkeeper.actions.ron");
    let source = std::fs::read_to_string(&actions).unwrap();
    std::fs::write(
        &actions,
        source.replace("\"it's a deal\"", "\"it's a deal, friend\""),
    )
    .unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!(code, 1, "{ds:?}");
    let mismatched = with_code(&ds, "slot-mismatch");
    let messages: Vec<&str> = mismatched
        .iter()
        .map(|d| d["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages.len(), 2, "{ds:?}");
    assert!(
        messages.contains(&"the `fr` translation of line `offer-price/1` drops {the-item.price}"),
        "{messages:?}"
    );
    assert!(
        messages.contains(&"the `fr` translation of line `present-item/1` invents {@nope}"),
        "{messages:?}"
    );
    let bad = with_code(&ds, "syntax");
    assert_eq!(bad.len(), 1, "{ds:?}");
    assert!(
        bad[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("the `fr` translation of line `farewell/1` is not a template"),
        "{bad:?}"
    );
    assert_eq!(bad[0]["line"], line_of(&table, "{adieu|bon voyage, ami"));
    let stale = with_code(&ds, "stale-translation");
    assert_eq!(stale.len(), 1, "{ds:?}");
    assert!(
        stale[0]["message"].as_str().unwrap().contains("`deal/1`"),
        "{stale:?}"
    );
}

#[test]
fn a_pinned_reply_keeps_its_id_and_is_not_said() {
    let (_dir, project) = innkeeper_copy();
    let actions = project.join("innkeeper.actions.ron");
    let source = std::fs::read_to_string(&actions).unwrap();
    std::fs::write(
        &actions,
        source.replace(
            "say: [\"i have for you {the-item}\",",
            "say: [\"{#offer-item} i have for you {the-item}\",",
        ),
    )
    .unwrap();
    assert_ne!(
        std::fs::read_to_string(&actions).unwrap(),
        source,
        "the reply is pinned"
    );
    let table = project.join("strings/fr.strings.ron");
    let text = std::fs::read_to_string(&table).unwrap();
    std::fs::write(
        &table,
        text.replace("id: \"present-item/1\"", "id: \"offer-item\""),
    )
    .unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!((code, ds.len()), (0, 0), "{ds:?}");
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
    let exported = std::fs::read_to_string(&csv).unwrap();
    assert!(
        exported.contains("offer-item,i have for you {the-item},moi avoir pour toi {the-item},"),
        "{exported}"
    );
    let en = innkeeper_outputs(s(&project), &[]);
    assert!(en.iter().any(|o| o.3 == "i have for you sword"), "{en:?}");
    let fr = innkeeper_outputs(s(&project), &["--locale", "fr"]);
    assert!(
        fr.iter().any(|o| o.3 == "moi avoir pour toi épée"),
        "{fr:?}"
    );
}

#[test]
fn a_conversation_switches_locale_while_running_and_names_its_lines() {
    use ensemble_runtime::hpmm::ChatScene;
    use ensemble_runtime::hpmm::chat::parse_player_line;
    let c = ensemble_compiler::compile_path(&root().join("samples/innkeeper")).unwrap();
    let program = Arc::new(c.output.expect("the innkeeper compiles").0);
    let mut chat = ChatScene::new(program.clone(), "chat", 7).unwrap();
    let heard = |chat: &mut ChatScene, line: &str| {
        chat.hear(parse_player_line(line));
        chat.step();
        let out = chat.last_output().expect("Xenos answers").clone();
        let ids: Vec<String> = out.line_ids(&program).map(str::to_string).collect();
        // He hears himself say it, in English whatever the locale.
        chat.step();
        (out.text, out.source, ids)
    };
    let (text, source, ids) = heard(&mut chat, "i need a new sword");
    assert_eq!(
        (text.as_str(), ids.as_slice()),
        ("i have for you sword", &["present-item/1".to_string()][..])
    );
    assert_eq!(text, source);
    chat.set_locale(Some("fr")).unwrap();
    let (text, source, ids) = heard(&mut chat, "how much is it");
    assert_eq!(text, "moi échanger contre une potion de soin");
    assert_eq!(source, "i'll trade for a health potion");
    assert_eq!(ids, ["offer-price/1"]);
    let err = chat.set_locale(Some("de")).unwrap_err().to_string();
    assert!(err.contains("locales: fr, qps"), "{err}");
    chat.set_locale(None).unwrap();
    assert_eq!(chat.agent().locale(), None);
}

#[test]
fn a_renamed_state_keeps_the_translations_of_its_pinned_lines_only() {
    let (_dir, project) = airport_copy();
    let machine = project.join("machines/SellTicket.machine.ron");
    let text = std::fs::read_to_string(&machine).unwrap();
    // Pin the first line, then rename the state (its name and the transition into it).
    let text = text
        .replace("modifier: \"OK.|Sure.\"", "modifier: \"{#ok} OK.|Sure.\"")
        .replace("\"Okay1\"", "\"Agree\"");
    std::fs::write(&machine, text).unwrap();
    let table = project.join("strings/fr.strings.ron");
    let t = std::fs::read_to_string(&table).unwrap();
    std::fs::write(
        &table,
        t.replace("id: \"SellTicket/Okay1/1\"", "id: \"ok\""),
    )
    .unwrap();
    let (code, ds) = check(s(&project));
    assert_eq!(code, 0, "{ds:?}");
    // The pinned line kept its id and its text: its translation is neither stale nor missing.
    assert!(with_code(&ds, "stale-translation").is_empty(), "{ds:?}");
    // The unpinned one moved to `SellTicket/Agree/2`: its entry is orphaned, the line missing.
    let unknown = with_code(&ds, "unknown-line");
    assert_eq!(unknown.len(), 1, "{ds:?}");
    assert!(
        unknown[0]["message"]
            .as_str()
            .unwrap()
            .contains("`SellTicket/Okay1/2`"),
        "{unknown:?}"
    );
    let missing = with_code(&ds, "missing-translation");
    assert_eq!(missing.len(), 1, "{ds:?}");
    let message = missing[0]["message"].as_str().unwrap();
    assert!(
        message.contains("`SellTicket/Agree/2`") && !message.contains("`ok`"),
        "{message}"
    );
    let fr = says(s(&project), "ticket-counter", &["--locale", "fr"]);
    assert!(fr.iter().any(|l| l == "D'accord."), "{fr:?}");
}
