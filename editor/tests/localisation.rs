//! The Localisation view (lines × locales, status, filters) and the preview's locale picker,
//! driven like a designer drives them (egui_kittest), on a copy of the airport, which ships
//! French.

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
    assert!(shown(&h, "fr: 27/29 translated, 1 stale"));
    // Lines × locales: the id, the source and the French.
    assert!(shown(&h, "SellTicket/Okay1/1"));
    assert!(shown(&h, "D'accord."));
    assert!(shown(&h, "Quand souhaitez-vous voyager ?"));

    h.get_by_label("Stale").click();
    settle(&mut h);
    assert_eq!(
        h.state().session().unwrap().preview.localisation.filter,
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
