//! The Localisation view (lines × locales, status, filters) and the preview's locale picker,
//! driven like a designer drives them (egui_kittest), on a copy of the airport, which ships
//! French.

use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_editor::EditorApp;
use ensemble_editor::localisation::Filter;
use ensemble_runtime::trace::EventKind;
use std::time::{Duration, Instant};

mod support;
use support::app::{choose_showing, harness, sample_copy, settle, wait_for_diagnostics};

/// The airport with one French translation made stale (its source changed since) and one
/// removed.
fn airport_with_stale_and_missing() -> tempfile::TempDir {
    let dir = sample_copy("airport");
    let table = dir.path().join("strings/fr.strings.ron");
    let text = std::fs::read_to_string(&table).unwrap();
    let text = text.replace(
        r#"(id: "SellTicket/Okay1/2", source: "Sure.","#,
        r#"(id: "SellTicket/Okay1/2", source: "Sure thing.","#,
    );
    let text: String = text
        .lines()
        .filter(|l| !l.contains(r#"id: "SellTicket/Okay2/1""#))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&table, text).unwrap();
    dir
}

fn shown(h: &Harness<'static, EditorApp>, text: &str) -> bool {
    h.query_by_label(text).is_some()
}

#[test]
fn the_view_lists_lines_by_locale_and_filters_the_missing_and_the_stale() {
    let dir = airport_with_stale_and_missing();
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    h.get_by_label("Localisation").click();
    settle(&mut h);
    assert!(shown(&h, "fr: 32/34 translated, 1 stale"));
    // Lines × locales: the id, the source and the French.
    assert!(shown(&h, "SellTicket/Okay1/1"));
    assert!(shown(&h, "D'accord."));
    assert!(shown(&h, "Quand souhaitez-vous voyager ?"));

    h.get_by_label("Stale").click();
    settle(&mut h);
    assert_eq!(
        h.state().session().unwrap().localisation.filter,
        Filter::Stale
    );
    assert!(shown(&h, "Bien sûr."), "the stale translation");
    assert!(shown(&h, "stale"));
    assert!(
        !shown(&h, "D'accord."),
        "an up-to-date translation is filtered out"
    );

    h.get_by_label("Missing").click();
    settle(&mut h);
    assert!(shown(&h, "SellTicket/Okay2/1"));
    assert!(shown(&h, "missing"));
    assert!(!shown(&h, "Bien sûr."));

    h.get_by_label("All").click();
    settle(&mut h);
    assert!(shown(&h, "D'accord.") && shown(&h, "Bien sûr."));
}

#[test]
fn the_preview_speaks_the_locale_picked_while_it_runs() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    wait_for_diagnostics(&mut h);
    h.get_by_label("Preview").click();
    settle(&mut h);
    choose_showing(&mut h, "1×", "8×");
    choose_showing(&mut h, "source", "fr");
    assert_eq!(
        h.state().session().unwrap().preview.locale.as_deref(),
        Some("fr")
    );
    h.get_by_label("▶ Play").click();
    let start = Instant::now();
    let said = |h: &Harness<'static, EditorApp>| -> Vec<String> {
        h.state()
            .session()
            .unwrap()
            .preview
            .history
            .events()
            .filter_map(|(_, e)| match &e.kind {
                EventKind::Say { text, .. } => Some(text.clone()),
                _ => None,
            })
            .collect()
    };
    while said(&h).len() < 2 {
        assert!(start.elapsed() < Duration::from_secs(90), "nothing said");
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
    let lines = said(&h);
    assert!(
        lines.iter().any(|l| l == "Salut." || l == "Bonjour."),
        "{lines:?}"
    );
    assert!(
        !lines.iter().any(|l| l == "Hi." || l == "Hello."),
        "{lines:?}"
    );
}

/// A file dialog that always answers `path` (as a system dialog would).
fn answering(path: std::path::PathBuf) -> ensemble_editor::file_dialog::Dialogs {
    Box::new(move |_| ensemble_editor::file_dialog::Answer::Path(path.clone()))
}

/// Issue 32, finding 5: the translators' round trip from the editor — Export… writes the lines
/// for the chosen locale, Import… reads a translated file back into the locale's table (Save
/// writes it), and a translation is edited in place.
#[test]
fn export_import_and_an_edit_in_place_round_trip_the_translations() {
    let dir = airport_with_stale_and_missing();
    let out = tempfile::tempdir().unwrap();
    let csv = out.path().join("fr.csv");
    let mut h = harness(EditorApp::open(dir.path()).with_dialogs(answering(csv.clone())));
    wait_for_diagnostics(&mut h);
    h.get_by_label("Localisation").click();
    support::app::until(&mut h, "the lines", |h| shown(h, "Export…"));
    h.get_by_label("Export…").click();
    settle(&mut h);
    let exported = std::fs::read_to_string(&csv).expect("Export… wrote the file");
    assert!(exported.starts_with("id,source,translation"), "{exported}");
    let missing = (exported.lines())
        .find(|l| l.starts_with("SellTicket/Okay2/1,"))
        .expect("the missing line is exported");
    assert!(missing.starts_with("SellTicket/Okay2/1,OK.,,"), "{missing}");
    assert!(
        h.state()
            .status()
            .is_some_and(|s| s.starts_with("Exported 34 lines")),
        "{:?}",
        h.state().status()
    );
    // An export never replaces a file it did not write.
    std::fs::write(&csv, "the designers' own notes\n").unwrap();
    h.get_by_label("Export…").click();
    settle(&mut h);
    assert!(
        h.state()
            .status()
            .is_some_and(|s| s.contains("was not written by an export"))
    );
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        "the designers' own notes\n"
    );

    // The translator's file comes back with the missing line translated.
    let translated = exported.replace(
        "SellTicket/Okay2/1,OK.,,",
        "SellTicket/Okay2/1,OK.,Très bien.,",
    );
    std::fs::write(&csv, translated).unwrap();
    h.get_by_label("Import…").click();
    settle(&mut h);
    assert!(
        h.state()
            .status()
            .is_some_and(|s| s.starts_with("Imported fr into strings/fr.strings.ron: 1 added")),
        "{:?}",
        h.state().status()
    );
    wait_for_diagnostics(&mut h);
    settle(&mut h);
    assert!(
        shown(&h, "fr: 33/34 translated, 1 stale"),
        "the missing line is translated"
    );

    // In place: the stale line's translation, clicked, retyped, Enter.
    let at = h.get_by_label("Bien sûr.").rect().center();
    support::app::click_at(&mut h, at);
    settle(&mut h);
    support::app::type_over_keeping_focus(&mut h, "Bien sûr.", "Bien sûr !");
    h.key_press(egui::Key::Enter);
    settle(&mut h);
    wait_for_diagnostics(&mut h);
    settle(&mut h);
    assert!(shown(&h, "Bien sûr !"));
    assert!(
        shown(&h, "fr: 34/34 translated"),
        "the edited translation is made from the current source"
    );
    support::app::press(&mut h, egui::Modifiers::COMMAND, egui::Key::S);
    settle(&mut h);
    let table = std::fs::read_to_string(dir.path().join("strings/fr.strings.ron")).unwrap();
    assert!(table.contains(r#"text: "Très bien.""#), "{table}");
    assert!(table.contains(r#"text: "Bien sûr !""#), "{table}");
}
