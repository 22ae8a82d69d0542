//! The sentence state panel driven headless with egui_kittest on the airport's sentence states
//! (Hewlett's Fig. 3.2): type in a line, see the ranked candidates change; mistakes shown at
//! once; modifiers through chips and buttons.

use eframe::egui;

mod support;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::diag::Diagnostic;
use ensemble_compiler::front::ron::SentencesAsset;
use ensemble_compiler::source::{FileId, SourceMap};
use ensemble_editor::sentences::{SentenceEditor, SentenceTarget};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn airport() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport/airport.sentences.ron")
}

struct Host {
    editor: SentenceEditor,
    value: SentencesAsset,
    edits: usize,
    diagnostics: Vec<Diagnostic>,
    sources: SourceMap,
    file: Option<FileId>,
    told: support::Told,
}

impl Host {
    fn airport() -> Self {
        let text = std::fs::read_to_string(airport()).unwrap();
        let value: SentencesAsset = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(&text)
            .unwrap();
        let mut h = Host {
            editor: SentenceEditor::new(),
            value,
            edits: 0,
            diagnostics: Vec::new(),
            sources: SourceMap::default(),
            file: None,
            told: Default::default(),
        };
        h.compile();
        h
    }

    /// Compiles the document as the file it is saved as (so `ngrams` resolves beside it).
    fn compile(&mut self) {
        let (diagnostics, sources, file) = support::compile_document(&self.value, airport());
        (self.diagnostics, self.sources, self.file) = (diagnostics, sources, Some(file));
    }
}

fn harness(host: Host) -> Harness<'static, Host> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1400.0, 900.0))
        .build_ui_state(
            |ui, host: &mut Host| {
                let cx = support::panel_cx(&host.diagnostics, &host.sources, host.file, &host.told);
                if host.editor.ui(ui, &mut host.value, &cx) {
                    host.edits += 1;
                }
            },
            host,
        );
    frame(&mut h);
    h
}

/// Steps frames until the preview shows the ranking of the state as it is now.
fn settle(h: &mut Harness<'static, Host>) -> Vec<(String, f64, u32)> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        h.step();
        let (list, current) = h.state().editor.shown_candidates();
        if current && !list.is_empty() {
            frame(h);
            return list;
        }
        assert!(Instant::now() < deadline, "the ranking never arrived");
        std::thread::sleep(Duration::from_millis(10));
    }
}

use support::{frame, retype};

#[test]
fn typing_a_verb_changes_the_ranked_candidates() {
    let mut h = harness(Host::airport());
    h.get_by_label("sentence state WantTicketToX").click();
    frame(&mut h);
    assert_eq!(h.state().editor.selected(), Some(2));
    let before = settle(&mut h);
    assert!(before[0].0.contains("buy"), "{before:?}");
    // What is on screen is the ranking: the best candidate, its score and its stable id.
    h.get_by_label(&before[0].0);
    h.get_by_label(&format!("{:08x}", before[0].2));
    // The compiler's score-gap rule marks the spoken lines: "for {CityName}" scores more than
    // the default margin below "to {CityName}", so only the best is spoken (`choose_among: 2` is
    // a bound).
    let margin = ensemble_compiler::nlg::rank::DEFAULT_SCORE_MARGIN;
    assert!(before[1].1 < before[0].1 - margin, "{before:?}");
    assert_eq!(h.query_all_by_label("spoken").count(), 1);

    retype(&mut h, "verbs", "like, book");
    assert_eq!(h.state().value.states[2].verbs, "like, book");
    let after = settle(&mut h);
    assert!(after.iter().all(|c| !c.0.contains("buy")), "{after:?}");
    assert!(after[0].0.contains("book"), "{after:?}");
    h.get_by_label(&after[0].0);
    // The scores come from the sample's n-gram counts, not a placeholder.
    assert!(after.iter().any(|c| c.1 != 0.0));
    // `CityName` is declared a Destination and "I" is written first: the lines that say where
    // the ticket goes ("to" or "for" right before the slot), keep "I" the subject and "ticket"
    // the object of "book" come first, as the compiler ranks (not "I would like the ticket
    // booking to {CityName}": a ticket does not book).
    assert_eq!(
        after[0].0, "I would like to book a ticket to {CityName}.",
        "{after:?}"
    );
    for (line, _, _) in &after[..4] {
        assert!(line.starts_with("I would like to book "), "{after:?}");
        assert!(
            line.ends_with(" to {CityName}.") || line.ends_with(" for {CityName}."),
            "{after:?}"
        );
    }
    assert!(
        after.iter().all(|c| !c.0.contains("ticket booking")),
        "{after:?}"
    );
}

#[test]
fn mistakes_show_at_once_and_modifiers_come_from_buttons() {
    let mut h = harness(Host::airport());
    h.get_by_label("sentence state ConfirmFlightX").click();
    frame(&mut h);
    retype(&mut h, "verbs", "be, PAST");
    h.get_by_label_contains("✖ verbs, at character 5: `PAST` must be followed by a verb");
    retype(&mut h, "verbs", "be, book");
    assert!(h.query_by_label_contains("must be followed").is_none());

    // The chip of a verb toggles PAST.
    h.get_by_label("verb book").click();
    frame(&mut h);
    assert_eq!(h.state().value.states[0].verbs, "be, PAST book");

    // The question drop-down rewrites the nouns line.
    h.get_by_label("question").click();
    frame(&mut h);
    h.get_by_label("QUESTION when").click();
    frame(&mut h);
    assert_eq!(
        h.state().value.states[0].nouns,
        "you, flight, VARIABLE CityName, QUESTION when"
    );
    let with_question = settle(&mut h);
    assert!(with_question[0].0.starts_with("When"), "{with_question:?}");

    // A new slot, by name.
    h.get_by_label("new variable name").click();
    frame(&mut h);
    h.get_by_label("new variable name").type_text("Gate");
    frame(&mut h);
    h.get_by_label("+ VARIABLE").click();
    frame(&mut h);
    assert!(h.state().value.states[0].nouns.ends_with(", VARIABLE Gate"));
    // It has no example value yet: said so, and one click adds the example.
    h.get_by_label_contains("VARIABLE Gate has no example value");
    h.get_by_label("Add example").click();
    frame(&mut h);
    assert!(h.state().value.examples.contains_key("Gate"));
    assert!(h.state().edits >= 6);
}

#[test]
fn states_are_added_found_and_marked_with_the_compilers_diagnostics() {
    let mut host = Host::airport();
    // A state with no words: the compiler reports it; the list marks it.
    host.value.states[4].verbs.clear();
    host.value.states[4].nouns.clear();
    host.compile();
    let d = host
        .diagnostics
        .iter()
        .find(|d| d.message.contains("neither verbs nor nouns"))
        .cloned()
        .unwrap();
    let cx = support::panel_cx(&host.diagnostics, &host.sources, host.file, &host.told);
    assert_eq!(
        SentenceTarget::of_diagnostic(&d, &cx),
        SentenceTarget::State(4)
    );
    assert_eq!(
        SentenceTarget::find(&host.value, "gatechanged"),
        Some(SentenceTarget::State(5))
    );
    let mut h = harness(host);
    h.get_by_label("sentence state WhatHappenedToFlight (error)");
    h.state_mut().editor.reveal(SentenceTarget::State(4));
    frame(&mut h);
    h.get_by_label_contains(
        "invalid-value: sentence state `WhatHappenedToFlight` has neither verbs nor nouns",
    );

    h.get_by_label("+ State").click();
    frame(&mut h);
    assert_eq!(h.state().value.states.len(), 8);
    assert_eq!(h.state().value.states[5].name, "NewSentence1");
    assert_eq!(h.state().editor.selected(), Some(5));
    h.get_by_label("Delete").click();
    frame(&mut h);
    assert_eq!(h.state().value.states.len(), 7);
}

/// The ranked list's buttons write the designer's choice into the state (by id), and the
/// preview ranks as the compiler will: a pinned line first, a banned one gone.
#[test]
fn pin_and_ban_buttons_write_the_state_and_rerank() {
    let mut h = harness(Host::airport());
    h.get_by_label("sentence state WantTicketToX").click();
    frame(&mut h);
    let before = settle(&mut h);
    let third = before[2].clone();
    h.query_all_by_label("pin")
        .nth(2)
        .expect("a pin button per line")
        .click();
    frame(&mut h);
    // Written as the line (readable in the file; an id would not survive renaming the state).
    let line = third.0.clone();
    assert_eq!(h.state().value.states[2].pin, vec![line.clone()]);
    assert!(h.state().edits > 0, "the edit marks the document changed");
    let pinned = settle(&mut h);
    assert_eq!(pinned[0], third, "the pinned line comes first");
    // Banning it moves it from `pin` to `ban`, and it leaves the list.
    h.query_all_by_label("ban").next().unwrap().click();
    frame(&mut h);
    let state = &h.state().value.states[2];
    assert!(state.pin.is_empty());
    assert_eq!(state.ban, vec![line.clone()]);
    let banned = settle(&mut h);
    assert!(banned.iter().all(|c| c.2 != third.2), "{banned:?}");
    assert_eq!(banned[0], before[0]);
    // The banned line is listed apart; its lit `ban` takes the ban back.
    h.get_by_label(&line);
    h.query_all_by_label("ban").last().unwrap().click();
    frame(&mut h);
    assert!(h.state().value.states[2].ban.is_empty());
    assert_eq!(settle(&mut h), before);
}

/// `accept` judges a line acceptable: the state speaks it (and only judged lines), as the
/// compiler does; a line is at most one of accept, pin and ban, and a second click on the lit
/// button takes the judgement back.
#[test]
fn accept_makes_a_line_spoken_and_a_second_click_takes_it_back() {
    let mut h = harness(Host::airport());
    h.get_by_label("sentence state WantTicketToX").click();
    frame(&mut h);
    let before = settle(&mut h);
    assert_eq!(h.query_all_by_label("spoken").count(), 1);
    let second = before[1].clone();
    h.query_all_by_label("accept").nth(1).unwrap().click();
    frame(&mut h);
    assert_eq!(h.state().value.states[2].accept, vec![second.0.clone()]);
    let accepted = settle(&mut h);
    assert_eq!(accepted[0], second, "the accepted line comes first");
    // Only the judged line is spoken now, though the best scores higher.
    assert_eq!(h.query_all_by_label("spoken").count(), 1);
    // Pinning it moves it from `accept` to `pin`.
    h.query_all_by_label("pin").next().unwrap().click();
    frame(&mut h);
    let state = &h.state().value.states[2];
    assert!(state.accept.is_empty());
    assert_eq!(state.pin, vec![second.0.clone()]);
    // The lit `pin` clicked again: no judgement left, the compiler's order back.
    settle(&mut h);
    h.query_all_by_label("pin").next().unwrap().click();
    frame(&mut h);
    let state = &h.state().value.states[2];
    assert!(state.pin.is_empty() && state.accept.is_empty() && state.ban.is_empty());
    assert_eq!(settle(&mut h), before);
}
