//! Driving the whole editor (`EditorApp`) as a designer does, on copies of the samples.

use eframe::egui;
use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use ensemble_editor::EditorApp;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples")
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

/// A copy of a sample project in a temporary folder (tests never write into the repository,
/// nor see what an editor session left in it).
pub fn sample_copy(name: &str) -> tempfile::TempDir {
    project_copy(&samples().join(name))
}

/// A copy of the project at `from` in a temporary folder.
pub fn project_copy(from: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(from, dir.path());
    let _ = std::fs::remove_dir_all(dir.path().join(".ensemble"));
    dir
}

pub fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    harness_of_size(app, egui::vec2(1440.0, 900.0))
}

/// The editor in a window of `size` (wide enough, say, to show a whole machine).
pub fn harness_of_size(app: EditorApp, size: egui::Vec2) -> Harness<'static, EditorApp> {
    let mut harness = Harness::builder()
        .with_size(size)
        .with_step_dt(0.02)
        .with_max_steps(400)
        .build_ui_state(|ui, app: &mut EditorApp| app.show(ui), app);
    harness.run_steps(3);
    harness
}

/// The machine named `name` as the editor holds it.
pub fn machine<'a>(
    h: &'a Harness<'static, EditorApp>,
    name: &str,
) -> &'a ensemble_compiler::front::ron::MachineAsset {
    let p = h.state().project().unwrap();
    p.docs[p.machine_doc(name).unwrap()]
        .state
        .machine()
        .unwrap()
}

/// Where the open graph last drew the node of `state`, on screen.
pub fn node_rect(h: &Harness<'static, EditorApp>, state: &str) -> egui::Rect {
    h.state()
        .session()
        .unwrap()
        .graph
        .state_rect(state)
        .unwrap_or_else(|| panic!("no node {state}"))
}

/// Where the graph draws `state` of `machine` (graph coordinates; the auto-layout's place
/// until it is moved).
pub fn drawn_at(h: &Harness<'static, EditorApp>, machine: &str, state: &str) -> [f32; 2] {
    let p = h.state().project().unwrap();
    let layout = &p.docs[p.machine_doc(machine).unwrap()].state.layout;
    h.state().session().unwrap().graph.position(layout, state)
}

pub fn settle(h: &mut Harness<'static, EditorApp>) {
    h.run_steps(4);
}

/// Steps (in real time) until the background compile has caught up with the last edit.
pub fn wait_for_diagnostics(h: &mut Harness<'static, EditorApp>) {
    let start = Instant::now();
    h.step();
    while h.state().is_checking() {
        assert!(start.elapsed() < Duration::from_secs(60), "no diagnostics");
        std::thread::sleep(Duration::from_millis(20));
        h.step();
    }
    settle(h);
}

/// The codes of the diagnostics shown, each with the item it is about.
pub fn problems(h: &Harness<'static, EditorApp>) -> Vec<(String, Option<String>)> {
    h.state()
        .report()
        .map(|r| {
            r.located
                .iter()
                .map(|l| (l.diagnostic.code.as_str().to_string(), l.item.clone()))
                .collect()
        })
        .unwrap_or_default()
}

pub fn press(h: &mut Harness<'static, EditorApp>, modifiers: Modifiers, key: Key) {
    h.key_press_modifiers(modifiers, key);
    settle(h);
}

/// Focuses the text field named `label`, replaces its text by typing `text`, and presses
/// Enter (which commits names).
pub fn retype_field(h: &mut Harness<'static, EditorApp>, label: &str, text: &str) {
    h.get_by_label(label).focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    h.get_by_label(label).type_text(text);
    h.run_steps(1);
    h.key_press(Key::Enter);
    settle(h);
}

/// Clicks the widget named `label` (the last one, when several have that name) as a mouse
/// does: the pointer arrives, then the button goes down and up in later frames.
pub fn click(h: &mut Harness<'static, EditorApp>, label: &str) {
    let pos = h
        .get_all_by_label(label)
        .last()
        .unwrap_or_else(|| panic!("nothing named {label}"))
        .rect()
        .center();
    click_at(h, pos);
}

pub fn click_at<S>(h: &mut Harness<'static, S>, pos: egui::Pos2) {
    click_with(h, pos, egui::PointerButton::Primary);
}

/// Clicks `button` at `pos` (the secondary button opens context menus).
pub fn click_with<S>(h: &mut Harness<'static, S>, pos: egui::Pos2, button: egui::PointerButton) {
    h.hover_at(pos);
    h.run_steps(2);
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos,
            button,
            pressed,
            modifiers: Modifiers::NONE,
        });
        h.run_steps(1);
    }
    h.run_steps(3);
}

/// Opens the browser entry named `title` (a button).
pub fn open(h: &mut Harness<'static, EditorApp>, title: &str) {
    h.get_all_by_role_and_label(Role::Button, title)
        .next()
        .unwrap_or_else(|| panic!("no browser entry {title}"))
        .click();
    settle(h);
}

/// Picks `option` in the combo box named `label`.
pub fn choose(h: &mut Harness<'static, EditorApp>, label: &str, option: &str) {
    h.get_by_label(label).click();
    settle(h);
    pick(h, option);
}

/// Clicks `option` in the open combo box's list.
fn pick(h: &mut Harness<'static, EditorApp>, option: &str) {
    h.get_all_by_label(option)
        .last()
        .unwrap_or_else(|| panic!("no option {option}"))
        .click();
    settle(h);
}

/// Presses the pointer at `from`, moves to `to` in steps, releases.
pub fn drag<S>(h: &mut Harness<'static, S>, from: egui::Pos2, to: egui::Pos2) {
    h.hover_at(from);
    h.run_steps(1);
    h.event(egui::Event::PointerButton {
        pos: from,
        button: egui::PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(1);
    for i in 1..=8 {
        let p = from + (to - from) * (i as f32 / 8.0);
        h.hover_at(p);
        h.run_steps(1);
    }
    h.event(egui::Event::PointerButton {
        pos: to,
        button: egui::PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    h.run_steps(3);
}

/// Clears the keyboard focus by clicking empty space (so the gesture, and its undo step, ends).
pub fn unfocus<S>(h: &mut Harness<'static, S>, at: egui::Pos2) {
    for pressed in [true, false] {
        h.event(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
        h.run_steps(1);
    }
    h.run_steps(2);
}

/// Picks `option` in the combo box currently showing `shown`.
pub fn choose_showing(h: &mut Harness<'static, EditorApp>, shown: &str, option: &str) {
    h.get_all_by_role(Role::ComboBox)
        .find(|n| n.value().as_deref() == Some(shown))
        .unwrap_or_else(|| panic!("no combo box showing {shown}"))
        .click();
    settle(h);
    pick(h, option);
}

/// Replaces the text of the text field showing `current` by typing `new`, and presses Enter
/// (the caller runs the frame that commits it).
pub fn type_over<S>(h: &mut Harness<'static, S>, current: &str, new: &str) {
    type_over_keeping_focus(h, current, new);
    h.key_press(Key::Enter);
}

/// Replaces the text of the text field showing `current` by typing `new`; the field keeps the
/// keyboard (what it offers while typing stays shown).
pub fn type_over_keeping_focus<S>(h: &mut Harness<'static, S>, current: &str, new: &str) {
    let fields = || {
        h.query_all_by_role(Role::TextInput)
            .chain(h.query_all_by_role(Role::MultilineTextInput))
    };
    fields()
        .find(|n| n.value().as_deref() == Some(current))
        .unwrap_or_else(|| panic!("no text field holding {current}"))
        .focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    let fields = || {
        h.query_all_by_role(Role::TextInput)
            .chain(h.query_all_by_role(Role::MultilineTextInput))
    };
    fields().find(|n| n.is_focused()).unwrap().type_text(new);
    h.run_steps(1);
}

/// Every text field shown (one line or several): its text and where it is.
pub fn text_fields<S>(h: &Harness<'static, S>) -> Vec<(String, egui::Rect)> {
    h.query_all_by_role(Role::TextInput)
        .chain(h.query_all_by_role(Role::MultilineTextInput))
        .map(|n| (n.value().unwrap_or_default(), n.rect()))
        .collect()
}

/// Finds `name` with Ctrl+F and presses Enter on the first match (the caller runs the frames
/// that reveal it).
pub fn find(h: &mut Harness<'static, EditorApp>, name: &str) {
    h.key_press_modifiers(Modifiers::COMMAND, Key::F);
    settle(h);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text(name);
    settle(h);
    h.key_press(Key::Enter);
}

/// Where the title of the node of `state` is on screen.
pub fn title_of(h: &Harness<'static, EditorApp>, state: &str) -> egui::Pos2 {
    let rect = h
        .state()
        .session()
        .unwrap()
        .graph
        .state_rect(state)
        .unwrap_or_else(|| panic!("no node {state}"));
    rect.left_top() + egui::vec2(22.0, 14.0)
}

/// Clicks the title of the node of `state` on the canvas (selects it).
pub fn select(h: &mut Harness<'static, EditorApp>, state: &str) {
    let at = title_of(h, state);
    click_at(h, at);
    settle(h);
    assert!(
        h.state().selection().contains(state),
        "{state} not selected (selected: {:?})",
        h.state().selection()
    );
}

/// Types `text` into the empty text field whose hint is `hint`.
pub fn type_into(h: &mut Harness<'static, EditorApp>, hint: &str, text: &str) {
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.accesskit_node().placeholder() == Some(hint))
        .unwrap_or_else(|| panic!("no text field `{hint}`"))
        .focus();
    h.run_steps(2);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text(text);
    settle(h);
}

/// How long a test waits for a preview running in real time.
pub const TIMEOUT: Duration = Duration::from_secs(90);

/// Steps the UI in real time until `done` holds.
pub fn until(
    h: &mut Harness<'static, EditorApp>,
    what: &str,
    done: impl Fn(&Harness<'static, EditorApp>) -> bool,
) {
    let start = Instant::now();
    while !done(h) {
        let preview = &h.state().session().unwrap().preview;
        assert!(
            start.elapsed() < TIMEOUT,
            "timed out waiting for {what}; {}",
            preview.failure().unwrap_or("the scene is still running")
        );
        std::thread::sleep(Duration::from_millis(10));
        h.step();
    }
}

/// The characters of the text shown (every widget's name and value) that the UI font has no
/// glyph for, each with the text it is in: they are drawn as empty boxes.
pub fn glyphs_the_font_lacks<S>(h: &Harness<'static, S>) -> Vec<(char, String)> {
    let texts: Vec<String> = h
        .query_all(egui_kittest::kittest::by().predicate(|_| true))
        .flat_map(|n| {
            let node = n.accesskit_node();
            [node.label(), node.value()]
        })
        .flatten()
        .collect();
    h.ctx.fonts_mut(|f| {
        // `has_glyph` says no for what the replacement glyph's face has: ask the faces.
        let mut font = f.fonts.font(&egui::FontFamily::Proportional);
        let has = font.characters();
        texts
            .iter()
            .flat_map(|t| {
                t.chars()
                    .filter(|c| !c.is_control() && !has.contains_key(c))
                    .map(move |c| (c, t.clone()))
            })
            .collect()
    })
}
