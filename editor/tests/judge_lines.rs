//! The judging pass over the airport sample, driven as a designer drives the whole editor:
//! open "Judge lines" from the browser, accept a line of one state, ban another state's spoken
//! line, take both back with undo, filter to the unjudged states, save.

use eframe::egui::{Key, Modifiers};

mod support;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::front::ron::AssetKind;
use ensemble_compiler::front::ron::SentencesAsset;
use ensemble_compiler::front::ron::any::{AnyAsset, FileKind};
use ensemble_editor::EditorApp;
use ensemble_editor::sentences::Choice;
use ensemble_editor::sentences::judge::Row;
use support::app::{TIMEOUT, harness_of_size, sample_copy, settle};

const FILE: &str = "airport.sentences.ron";

/// The editor in a window tall enough to show every state of the airport.
fn tall(app: EditorApp) -> Harness<'static, EditorApp> {
    harness_of_size(app, eframe::egui::vec2(1440.0, 1800.0))
}

/// The sentence file as the editor holds it now.
fn sentences(h: &Harness<'static, EditorApp>) -> SentencesAsset {
    let p = h.state().project().unwrap();
    match p.docs[p.by_path(FILE).unwrap()].state.asset() {
        Some(AnyAsset::Sentences(s)) => s.clone(),
        _ => panic!("{FILE} is not a sentences file"),
    }
}

fn state<'a>(
    s: &'a SentencesAsset,
    name: &str,
) -> &'a ensemble_compiler::front::ron::SentenceStateAsset {
    s.states.iter().find(|st| st.name == name).unwrap()
}

/// Steps in real time until every state's lines answer it as it is now; its row then.
fn ranked(h: &mut Harness<'static, EditorApp>, name: &str) -> Row {
    let start = std::time::Instant::now();
    loop {
        h.step();
        let judge = &h.state().session().unwrap().judge;
        if judge.settled() && !judge.rows().is_empty() {
            break;
        }
        assert!(start.elapsed() < TIMEOUT, "the lines were never ranked");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    settle(h);
    let judge = &h.state().session().unwrap().judge;
    judge
        .rows()
        .iter()
        .find(|r| r.state == name)
        .cloned()
        .unwrap_or_else(|| panic!("no state {name}"))
}

fn texts(row: &Row) -> Vec<(String, bool)> {
    row.lines
        .as_ref()
        .unwrap()
        .iter()
        .map(|l| (l.text.clone(), l.spoken))
        .collect()
}

#[test]
fn accepting_and_banning_edit_the_file_and_undo_takes_them_back() {
    let dir = sample_copy("airport");
    let mut h = tall(EditorApp::open(dir.path()));
    // From the sentences part of the browser.
    h.get_by_label("Judge lines").click();
    settle(&mut h);
    assert!(h.state().session().unwrap().judge.is_shown());
    let want = ranked(&mut h, "WantTicketToX");
    assert_eq!(h.state().session().unwrap().judge.judged_count(), (0, 7));
    h.get_by_label("0 of 7 states judged");
    h.get_by_label("judge state WantTicketToX (unjudged)");
    let lines = texts(&want);
    // The airport speaks one line per state (the score margin), and shows `keep` (5).
    assert_eq!(lines.len(), 5, "{lines:?}");
    assert!(lines[0].1 && !lines[1].1, "{lines:?}");

    // Accept the second line: the state now speaks it, and only it.
    let second = lines[1].0.clone();
    h.get_by_label(&format!("accept WantTicketToX: {second}"))
        .click();
    settle(&mut h);
    assert_eq!(
        state(&sentences(&h), "WantTicketToX").accept,
        vec![second.clone()]
    );
    assert!(h.state().is_dirty());
    let want = ranked(&mut h, "WantTicketToX");
    assert!(want.judged);
    let now = texts(&want);
    assert_eq!(now[0], (second.clone(), true), "{now:?}");
    assert!(now[1..].iter().all(|(_, spoken)| !spoken), "{now:?}");
    assert_eq!(h.state().session().unwrap().judge.judged_count(), (1, 7));
    h.get_by_label("1 of 7 states judged");
    h.get_by_label("judge state WantTicketToX (judged)");
    let line = &want.lines.as_ref().unwrap()[0];
    assert_eq!(line.judgement, Some(Choice::Accept));

    // Ban another state's spoken line: it leaves the list, the next one is spoken.
    let confirm = texts(&ranked(&mut h, "ConfirmFlightX"));
    let (spoken, next) = (confirm[0].0.clone(), confirm[1].0.clone());
    assert!(confirm[0].1);
    h.get_by_label(&format!("ban ConfirmFlightX: {spoken}"))
        .click();
    settle(&mut h);
    assert_eq!(
        state(&sentences(&h), "ConfirmFlightX").ban,
        vec![spoken.clone()]
    );
    let row = ranked(&mut h, "ConfirmFlightX");
    let after = texts(&row);
    assert!(after.iter().all(|(t, _)| *t != spoken), "{after:?}");
    assert_eq!(after[0], (next.clone(), true), "{after:?}");
    // It is listed apart as banned.
    assert_eq!(row.banned.len(), 1);
    assert_eq!(row.banned[0].text, spoken);

    // Undo takes the ban back, then the accept; the view stays.
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert!(state(&sentences(&h), "ConfirmFlightX").ban.is_empty());
    let back = texts(&ranked(&mut h, "ConfirmFlightX"));
    assert_eq!(back[0], (spoken.clone(), true), "{back:?}");
    h.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    settle(&mut h);
    assert!(h.state().session().unwrap().judge.is_shown());
    assert!(state(&sentences(&h), "WantTicketToX").accept.is_empty());
    let want = ranked(&mut h, "WantTicketToX");
    assert!(!want.judged);
    assert_eq!(texts(&want), lines);
    assert!(!h.state().is_dirty(), "undone back to the saved file");

    // Accept again; "unjudged only" hides the judged state.
    h.get_by_label(&format!("accept WantTicketToX: {second}"))
        .click();
    settle(&mut h);
    ranked(&mut h, "WantTicketToX");
    h.get_by_label("judge state WantTicketToX (judged)");
    h.get_by_label("unjudged only").click();
    settle(&mut h);
    assert!(
        h.query_by_label("judge state WantTicketToX (judged)")
            .is_none()
    );
    h.get_by_label("judge state ConfirmFlightX (unjudged)");
    h.get_by_label("1 of 7 states judged");

    // Ctrl+S writes the judgement into the file, in canonical RON.
    h.key_press_modifiers(Modifiers::COMMAND, Key::S);
    settle(&mut h);
    assert!(!h.state().is_dirty());
    let text = std::fs::read_to_string(dir.path().join(FILE)).unwrap();
    assert!(text.contains(&format!("accept: [\"{second}\"]")), "{text}");
    let kind = FileKind::Asset(AssetKind::Sentences);
    let Some(Ok(AnyAsset::Sentences(reread))) = AnyAsset::parse(kind, &text) else {
        panic!("{text}");
    };
    assert_eq!(state(&reread, "WantTicketToX").accept, vec![second]);
}

/// The Edit menu opens the view too, and opening a document leaves it.
#[test]
fn the_edit_menu_opens_the_view_and_a_document_closes_it() {
    let dir = sample_copy("airport");
    let mut h = tall(EditorApp::open(dir.path()));
    h.get_by_label("Edit").click();
    settle(&mut h);
    h.get_by_label("Judge lines…").click();
    settle(&mut h);
    assert!(h.state().session().unwrap().judge.is_shown());
    ranked(&mut h, "GoToGateX");
    // A state's name opens it in the sentence editor.
    h.get_by_label("judge state GoToGateX (unjudged)").click();
    settle(&mut h);
    assert!(!h.state().session().unwrap().judge.is_shown());
    let p = h.state().project().unwrap();
    assert_eq!(h.state().current_doc(), p.by_path(FILE));
    h.get_by_label("sentence state GoToGateX");
}
