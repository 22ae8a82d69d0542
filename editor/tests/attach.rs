//! The preview showing a scene it does not run (egui_kittest): a recorded trace opened from
//! the File menu's "Open trace…", scrubbed through.

use eframe::egui;
use egui::Key;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use ensemble_editor::EditorApp;
use ensemble_editor::preview::Preview;
use std::path::{Path, PathBuf};

mod support;
use support::app::{harness, sample_copy, settle, type_into};

fn preview<'a>(h: &'a Harness<'static, EditorApp>) -> &'a Preview {
    &h.state().session().unwrap().preview
}

/// What "Open trace…" does once the file dialog has answered.
fn open_trace(h: &mut Harness<'static, EditorApp>, path: &Path) {
    h.state_mut()
        .session_mut()
        .unwrap()
        .preview
        .open_trace(path);
    settle(h);
}

fn golden(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/golden")
        .join(name)
}

#[test]
fn a_recorded_trace_opens_in_the_timeline_and_scrubs() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    let file = "airport-ticket-counter-seed7.jsonl";
    open_trace(&mut h, &golden(file));
    h.get_by_label(&format!("trace {file}"));
    assert!(!preview(&h).is_running(), "a trace runs nothing");
    // It opens at its start: the seller has just set off.
    assert_eq!(preview(&h).viewing, Some(0));
    let live = preview(&h).live("StandSellTicket").unwrap();
    assert!(live.scrubbed);
    assert!(live.agents_in("Goto1").iter().any(|a| a.name == "seller"));
    // Found in the timeline by its name, the seller's talk: clicking it shows the scene then
    // (the tick the protocol's example names for it).
    type_into(&mut h, "filter", "StandSellTicket/TalkStateMachine");
    h.get_all_by_label("StandSellTicket/TalkStateMachine")
        .next()
        .expect("the event in the timeline")
        .click();
    settle(&mut h);
    assert_eq!(preview(&h).viewing, Some(391));
    let live = preview(&h).live("StandSellTicket").unwrap();
    assert!(
        live.agents_in("TalkStateMachine")
            .iter()
            .any(|a| a.name == "seller"),
        "{live:?}"
    );
    assert!(live.agents_in("Goto1").is_empty());
    h.key_press(Key::Escape);
    settle(&mut h);
    // The transcript follows the scrubbed tick: nothing said yet at the start, lines later.
    let said_by =
        |h: &Harness<'static, EditorApp>, tick| preview(h).history.transcript_until(tick).count();
    assert_eq!(said_by(&h, 0), 0);
    assert!(said_by(&h, preview(&h).history.latest().unwrap().tick) > 0);
}

#[test]
fn a_malformed_trace_is_refused_with_its_line_number() {
    let dir = sample_copy("airport");
    let mut h = harness(EditorApp::open(dir.path()));
    h.get_by_label("Preview").click();
    settle(&mut h);
    let good = golden("airport-ticket-counter-seed7.jsonl");
    open_trace(&mut h, &good);
    let events = preview(&h).history.event_total();
    let text = std::fs::read_to_string(&good).unwrap();
    let mut lines: Vec<&str> = text.lines().take(5).collect();
    lines[3] = r#"{"tick":0,"time":0.0,"agent":"seller","event":"enter"#;
    let bad = dir.path().join("broken.jsonl");
    std::fs::write(&bad, lines.join("\n")).unwrap();
    open_trace(&mut h, &bad);
    let refusal = h.get_by_label_contains("Cannot open the trace");
    let node = refusal.accesskit_node();
    let shown = node.label().or_else(|| node.value()).unwrap_or_default();
    assert!(shown.contains("broken.jsonl: line 4: "), "{shown}");
    // The trace shown before stays.
    assert_eq!(preview(&h).history.event_total(), events);
}
