//! The inspector of a state whose library state declares named, typed parameters
//! (docs/formats/statelib.md, "Parameters"), driven headless with egui_kittest on a copy of the
//! fixture `tests/fixtures/params-game`: a field per parameter with its type's widget and its
//! default, edits that land in the document, and a save that writes `params` canonically while
//! a one-parameter state keeps its `modifier`.

mod support;

use egui::accesskit::Role;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use ensemble_compiler::front::ron::{MachineAsset, ModifierValue, ParamValueAsset as V};
use ensemble_editor::EditorApp;
use std::path::Path;
use support::app::*;

fn machine<'a>(h: &'a Harness<'static, EditorApp>, name: &str) -> &'a MachineAsset {
    let p = h.state().project().unwrap();
    p.docs[p.machine_doc(name).unwrap()]
        .state
        .machine()
        .unwrap()
}

fn state_params(h: &Harness<'static, EditorApp>, state: &str) -> Vec<(String, V)> {
    let m = machine(h, "Guard");
    m.states
        .iter()
        .find(|s| s.name == state)
        .unwrap()
        .params
        .0
        .clone()
}

/// Replaces the text of the text field named `label` and presses Enter.
fn retype_labelled(h: &mut Harness<'static, EditorApp>, label: &str, text: &str) {
    h.get_all_by_role_and_label(Role::TextInput, label)
        .next()
        .unwrap_or_else(|| panic!("no text field {label}"))
        .focus();
    h.run_steps(2);
    h.key_press_modifiers(Modifiers::COMMAND, Key::A);
    h.run_steps(1);
    h.get_all_by_role(Role::TextInput)
        .find(|n| n.is_focused())
        .unwrap()
        .type_text(text);
    h.run_steps(1);
    h.key_press(Key::Enter);
    settle(h);
}

#[test]
fn a_multi_parameter_state_is_edited_field_by_field_and_saved_canonically() {
    let dir =
        project_copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/params-game"));
    let mut h = harness(EditorApp::open(dir.path()));
    open(&mut h, "Guard");
    // The parameters come from the compiled library declarations.
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
    select(&mut h, "Wave");

    // One field per declared parameter, each with its type and its default.
    h.get_by_label("Parameters".to_uppercase().as_str());
    for (name, ty, default) in [
        ("clip", "text", "required"),
        ("loop", "bool", "default false"),
        ("blend", "number", "default 0.2"),
        ("layer", "one of \"upper\", \"full\"", "default full"),
    ] {
        h.get_all_by_label(name)
            .next()
            .unwrap_or_else(|| panic!("no field {name}"));
        h.get_all_by_label(ty)
            .next()
            .unwrap_or_else(|| panic!("no type {ty}"));
        h.get_all_by_label(default)
            .next()
            .unwrap_or_else(|| panic!("no {default}"));
    }
    // An unset one-of shows its default in the combo; a number its default in the drag.
    h.get_all_by_role(Role::ComboBox)
        .find(|n| n.value().as_deref() == Some("full"))
        .expect("layer shows its default");

    // Edit: the listed word, the checkbox, the text.
    choose_showing(&mut h, "full", "upper");
    h.get_all_by_role_and_label(Role::CheckBox, "loop")
        .next()
        .expect("loop is a checkbox")
        .click();
    settle(&mut h);
    retype_labelled(&mut h, "clip", "Bow");
    assert_eq!(
        state_params(&h, "Wave"),
        [
            ("clip".to_string(), V::Text("Bow".into())),
            ("loop".to_string(), V::Bool(false)),
            ("layer".to_string(), V::Text("upper".into())),
        ],
        "in declaration order, the default left unset"
    );

    // A list: add a location to the cover.
    select(&mut h, "Strike");
    click(&mut h, "+ Add to cover");
    settle(&mut h);
    assert_eq!(
        state_params(&h, "Strike")[1],
        (
            "cover".to_string(),
            V::List(vec![
                V::Text("Gate".into()),
                V::Text("Bar".into()),
                V::Text("Gate".into())
            ])
        )
    );

    // A one-parameter state written with `modifier:` keeps it.
    select(&mut h, "Nod");
    retype_labelled(&mut h, "clip", "Shrug");
    let nod = machine(&h, "Guard")
        .states
        .iter()
        .find(|s| s.name == "Nod")
        .unwrap()
        .clone();
    assert_eq!(nod.modifier, Some(ModifierValue::Name("Shrug".into())));
    assert!(nod.params.is_empty());

    // A single modifier written as a parameter (`params: {"location": ...}`) stays one.
    select(&mut h, "Goto1");
    choose_showing(&mut h, "Gate", "Bar");
    let goto = machine(&h, "Guard")
        .states
        .iter()
        .find(|s| s.name == "Goto1")
        .unwrap()
        .clone();
    assert_eq!(goto.modifier, None);
    assert_eq!(
        goto.params.0,
        [("location".to_string(), V::Text("Bar".into()))]
    );

    // Save, and the file says it canonically; the project still checks clean.
    press(&mut h, Modifiers::COMMAND, Key::S);
    assert!(!h.state().is_dirty());
    let text = std::fs::read_to_string(dir.path().join("Guard.machine.ron")).unwrap();
    for line in [
        r#"        (name: "Wave", code: "PlayAnimation", params: {"clip": "Bow", "loop": false, "layer": "upper"}, on: [("AnimationDone", "Strike")]),"#,
        r#"        (name: "Strike", code: "Attack", params: {"target": "thief", "cover": ["Gate", "Bar", "Gate"]}, on: [("Hit", "Nod"), ("Missed", "Nod")]),"#,
        r#"        (name: "Nod", code: "Emote", modifier: "Shrug", on: [("Done", "Shout")]),"#,
        r#"        (name: "Goto1", params: {"location": "Bar"}, on: [("ReachedLocation", "Finish")]),"#,
    ] {
        assert!(text.contains(line), "{line}\nnot in\n{text}");
    }
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
}

#[test]
fn the_state_library_form_edits_declared_parameters() {
    let dir =
        project_copy(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/params-game"));
    let mut h = harness(EditorApp::open(dir.path()));
    open(&mut h, "game");
    click(&mut h, "state PlayAnimation");
    let field = |h: &Harness<'static, EditorApp>, label: &str| {
        h.get_all_by_role_and_label(Role::TextInput, label)
            .next()
            .unwrap_or_else(|| panic!("no field {label}"))
            .value()
    };
    // Each parameter's name, type and default as written; no modifier chooser beside them.
    assert_eq!(field(&h, "parameter 2 name").as_deref(), Some("loop"));
    assert_eq!(field(&h, "parameter 1 default").as_deref(), Some(""));
    assert_eq!(field(&h, "parameter 3 default").as_deref(), Some("0.2"));
    assert_eq!(
        field(&h, "parameter 4 default").as_deref(),
        Some("\"full\"")
    );
    assert_eq!(h.query_all_by_label("modifier kind").count(), 0);

    // Change a default, add a parameter with a default.
    retype_field(&mut h, "parameter 3 default", "0.5");
    click(&mut h, "+ parameter");
    retype_field(&mut h, "parameter 5 name", "speed");
    choose(&mut h, "parameter 5 type", "number");
    retype_field(&mut h, "parameter 5 default", "1");

    // A single-modifier state turns into one named parameter, named after its kind.
    click(&mut h, "state Shout");
    assert_eq!(h.query_all_by_label("modifier kind").count(), 1);
    click(&mut h, "Use named parameters");

    press(&mut h, Modifiers::COMMAND, Key::S);
    let text = std::fs::read_to_string(dir.path().join("game.statelib.ron")).unwrap();
    for written in [
        r#"(name: "blend", type: Number, default: 0.5)"#,
        r#"(name: "speed", type: Number, default: 1.0)"#,
        r#"(name: "Shout", params: [(name: "text", type: Text)], terminal: No, raises: ["Done"])"#,
    ] {
        assert!(text.contains(written), "{written}\nnot in\n{text}");
    }
    // The machines still check: Shout's `modifier:` sets its one parameter.
    wait_for_diagnostics(&mut h);
    assert!(problems(&h).is_empty(), "{:?}", problems(&h));
}
