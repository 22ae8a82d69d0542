//! Typed, named parameters of library states, end to end (docs/formats/statelib.md,
//! "Parameters"): `ensemble check` locates every kind of mistake in the fixture
//! `tests/fixtures/params-game`, a valid project builds into a program that carries each
//! state's typed values, and a game's own state code reads them while the scene runs.

use ensemble_runtime::hsm::{Scene, StateCode, StateCx, StateLibrary, StateSpec};
use ensemble_runtime::program::{
    ModifierKind, Param, ParamKind, ParamLiteral, ParamSpec, ParamType, ParamValue, Terminal,
};
use ensemble_tests::{build_program, copy_dir, ensemble, line_col, repo_path};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

const FIXTURE: &str = "tests/fixtures/params-game";

/// The fixture copied into a temporary folder with `file`'s text `from` replaced by `to`.
fn edited(file: &str, from: &str, to: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(Path::new(&repo_path(FIXTURE)), dir.path());
    let path = dir.path().join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "`{from}` is not in {file}");
    let text = text.replacen(from, to, 1);
    std::fs::write(&path, &text).unwrap();
    (dir, text)
}

/// The diagnostics of `ensemble check --format json` on `dir` (which must fail).
fn errors(dir: &Path) -> Vec<Value> {
    let out = ensemble(&["check", dir.to_str().unwrap(), "--format", "json"]);
    assert_eq!(out.code, 1, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    doc["diagnostics"].as_array().unwrap().clone()
}

/// Checks that the only error is `code` in `file` at the first occurrence of `at` in `text`,
/// with a message containing `says`; returns it.
fn only_error(dir: &Path, file: &str, text: &str, code: &str, at: &str, says: &str) -> Value {
    let ds = errors(dir);
    assert_eq!(ds.len(), 1, "{ds:#?}");
    let d = ds[0].clone();
    assert_eq!(d["code"], code, "{d}");
    assert_eq!(d["file"], file, "{d}");
    let (line, column) = line_col(text, at);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{d}"
    );
    assert!(d["message"].as_str().unwrap().contains(says), "{d}");
    d
}

fn notes(d: &Value) -> String {
    d["notes"].to_string()
}

#[test]
fn the_fixture_checks_clean() {
    let out = ensemble(&["check", &repo_path(FIXTURE), "--format", "json"]);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let doc: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["warnings"], 0, "{}", out.stdout);
}

#[test]
fn an_unknown_parameter_name_is_located_with_a_suggestion() {
    let (dir, text) = edited("Guard.machine.ron", r#""loop": true"#, r#""lop": true"#);
    // `lop` is unknown; nothing else is wrong (`loop` has a default).
    let d = only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "unknown-reference",
        "true}",
        "library state `PlayAnimation` has no parameter `lop`",
    );
    assert!(notes(&d).contains("did you mean `loop`?"), "{d}");
    assert!(
        notes(&d).contains("its parameters: clip, loop, blend, layer"),
        "{d}"
    );
}

#[test]
fn a_text_where_a_number_goes_is_a_modifier_mismatch() {
    let (dir, text) = edited(
        "Guard.machine.ron",
        r#""loop": true"#,
        r#""loop": true, "blend": "fast""#,
    );
    only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "modifier-mismatch",
        r#""fast""#,
        "parameter `blend` takes a number, not a text",
    );
}

#[test]
fn a_location_that_does_not_exist_is_an_unknown_reference_at_the_item() {
    let (dir, text) = edited(
        "Guard.machine.ron",
        r#"["Gate", "Bar"]"#,
        r#"["Gate", "Bsr"]"#,
    );
    let d = only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "unknown-reference",
        r#""Bsr""#,
        "parameter `cover` names location `Bsr`, which is not defined",
    );
    assert!(notes(&d).contains("did you mean `Bar`?"), "{d}");
}

#[test]
fn a_value_not_in_the_listed_values_is_refused() {
    let (dir, text) = edited(
        "Guard.machine.ron",
        r#""loop": true"#,
        r#""loop": true, "layer": "ful""#,
    );
    let d = only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "modifier-mismatch",
        r#""ful""#,
        r#"parameter `layer` is one of "upper", "full", not "ful""#,
    );
    assert!(notes(&d).contains("did you mean `full`?"), "{d}");
}

#[test]
fn a_missing_required_value_is_reported_at_the_state() {
    let (dir, text) = edited("Guard.machine.ron", r#""clip": "Wave", "#, "");
    let d = only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "modifier-mismatch",
        r#""Wave", code"#,
        "state `Wave` does not set `clip`, which library state `PlayAnimation` requires (a text)",
    );
    assert_eq!(d["related"][0]["file"], "game.statelib.ron", "{d}");
}

#[test]
fn a_parameter_set_twice_is_a_duplicate() {
    let (dir, text) = edited(
        "Guard.machine.ron",
        r#""loop": true"#,
        r#""loop": true, "loop": false"#,
    );
    only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "duplicate-name",
        "false}",
        "state `Wave` sets parameter `loop` twice",
    );
}

#[test]
fn a_wrong_type_of_a_bool_a_list_and_an_agent_is_refused() {
    // A text for a bool.
    let (dir, text) = edited("Guard.machine.ron", r#""loop": true"#, r#""loop": "yes""#);
    only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "modifier-mismatch",
        r#""yes""#,
        "parameter `loop` takes a bool, not a text",
    );
    // One location where a list goes.
    let (dir, text) = edited("Guard.machine.ron", r#"["Gate", "Bar"]"#, r#""Gate""#);
    only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "modifier-mismatch",
        r#""Gate"}"#,
        "parameter `cover` takes a list of location, not a text",
    );
    // An agent no scene running the machine has.
    let (dir, text) = edited("Guard.machine.ron", r#""thief""#, r#""thiev""#);
    let d = only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "unknown-reference",
        r#""thiev""#,
        "names agent `thiev`, but scene `gate` has no such agent",
    );
    assert!(notes(&d).contains("did you mean `thief`?"), "{d}");
}

#[test]
fn a_single_modifier_sets_a_multi_parameter_state_only_by_name() {
    let (dir, text) = edited(
        "Guard.machine.ron",
        r#"params: {"clip": "Wave", "loop": true}"#,
        r#"modifier: "Wave""#,
    );
    only_error(
        dir.path(),
        "Guard.machine.ron",
        &text,
        "modifier-mismatch",
        r#""Wave", on"#,
        "library state `PlayAnimation` takes 4 named parameters (`clip`, `loop`, `blend`, `layer`), not a single modifier",
    );
}

#[test]
fn a_declaration_with_both_a_modifier_and_params_is_refused_at_the_second() {
    let (dir, text) = edited(
        "game.statelib.ron",
        r#"(name: "Emote", params:"#,
        r#"(name: "Emote", modifier: Text, params:"#,
    );
    let d = errors(dir.path());
    let both = d
        .iter()
        .find(|d| d["file"] == "game.statelib.ron")
        .expect("the declaration is refused");
    assert_eq!(both["code"], "modifier-mismatch", "{both}");
    let (line, column) = line_col(&text, r#"params: [(name: "clip", type: Text)]"#);
    assert_eq!(both["line"].as_u64(), Some(line), "{both}");
    assert_eq!(
        both["column"].as_u64(),
        Some(column + "params: ".len() as u64),
        "{both}"
    );
    assert!(
        both["message"]
            .as_str()
            .unwrap()
            .contains("library state `Emote` declares both a single `modifier` and `params`"),
        "{both}"
    );
}

#[test]
fn a_default_that_does_not_fit_its_type_is_refused_at_the_declaration() {
    let (dir, text) = edited("game.statelib.ron", "default: 0.2", r#"default: "soft""#);
    only_error(
        dir.path(),
        "game.statelib.ron",
        &text,
        "modifier-mismatch",
        r#""soft""#,
        "parameter `blend` takes a number, not a text",
    );
}

#[test]
fn the_program_carries_each_states_typed_values() {
    let program = build_program(Path::new(&repo_path(FIXTURE)), "params-game");
    let guard = program.machine_by_name("Guard").unwrap();
    let state = |name: &str| program.state_by_name(guard, name).unwrap();
    let text = |s: &str| ParamValue::Text(program.name_id(s).unwrap());
    let param = |s: &str, p: &str| program.param(state(s), p).map(|v| v.into_owned());
    assert_eq!(param("Wave", "clip"), Some(Param::One(text("Wave"))));
    assert_eq!(
        param("Wave", "loop"),
        Some(Param::One(ParamValue::Bool(true)))
    );
    // Unset values are the declared defaults.
    assert_eq!(
        param("Wave", "blend"),
        Some(Param::One(ParamValue::Number(0.2)))
    );
    assert_eq!(
        param("Wave", "layer"),
        Some(Param::One(ParamValue::Choice(
            program.name_id("full").unwrap()
        )))
    );
    let location = |n: &str| {
        let i = program
            .locations
            .iter()
            .position(|l| program.name(l.name) == n)
            .unwrap();
        ParamValue::Location(ensemble_runtime::program::LocationId(i as u32))
    };
    assert_eq!(
        param("Strike", "cover"),
        Some(Param::List(vec![location("Gate"), location("Bar")]))
    );
    assert_eq!(
        param("Strike", "target"),
        Some(Param::One(ParamValue::Agent(
            program.name_id("thief").unwrap()
        )))
    );
    // A one-parameter state set with `modifier:`; the single-modifier states as before.
    assert_eq!(param("Nod", "clip"), Some(Param::One(text("Nod"))));
    assert_eq!(param("Shout", "text"), Some(Param::One(text("Halt!"))));
    assert_eq!(
        param("Goto1", "location"),
        Some(Param::One(location("Gate")))
    );
    // The declarations travel with the program.
    let anim = program
        .library
        .iter()
        .position(|l| program.name(l.name) == "PlayAnimation")
        .unwrap();
    let decls = program
        .params
        .decls(ensemble_runtime::program::LibraryId(anim as u32))
        .unwrap();
    let names: Vec<&str> = decls.iter().map(|d| program.name(d.name)).collect();
    assert_eq!(names, ["clip", "loop", "blend", "layer"]);
}

/// The game world of the run: what its states did, in order.
#[derive(Default)]
struct Log(Vec<String>);

/// `PlayAnimation`, `Attack`, `Emote`, `Shout`: write what they read, then raise their event.
struct Act(&'static str);
impl StateCode<Log> for Act {
    fn init(&mut self, cx: &mut StateCx<'_, Log>) {
        let line = match self.0 {
            "PlayAnimation" => format!(
                "play {} loop={} blend={} layer={}",
                cx.text_param("clip").unwrap(),
                cx.bool_param("loop").unwrap(),
                cx.number_param("blend").unwrap(),
                cx.text_param("layer").unwrap()
            ),
            "Attack" => {
                let target = cx.agent_param("target").unwrap();
                let cover: Vec<String> = cx
                    .list_param("cover")
                    .unwrap()
                    .iter()
                    .map(|v| match v {
                        ParamValue::Location(l) => cx
                            .program()
                            .name(cx.program().locations[l.index()].name)
                            .to_string(),
                        other => format!("{other:?}"),
                    })
                    .collect();
                format!(
                    "attack {} with {} from {}",
                    cx.agent_name(target),
                    cx.text_param("weapon").unwrap(),
                    cover.join(",")
                )
            }
            // One parameter: the single-modifier accessors read it too.
            _ => format!("{} {}", self.0.to_lowercase(), cx.text().unwrap()),
        };
        cx.game.0.push(line);
        let event = match self.0 {
            "PlayAnimation" => "AnimationDone",
            "Attack" => "Hit",
            _ => "Done",
        };
        cx.raise(event);
    }
}

/// `Goto`: arrives at once.
struct Arrive;
impl StateCode<Log> for Arrive {
    fn init(&mut self, cx: &mut StateCx<'_, Log>) {
        let at = cx.program().name(cx.location().unwrap().name).to_string();
        cx.game.0.push(format!("at {at}"));
        cx.raise("ReachedLocation");
    }
}

struct Begin;
impl StateCode<Log> for Begin {
    fn init(&mut self, cx: &mut StateCx<'_, Log>) {
        cx.raise("Empty");
    }
}

struct Stop;
impl StateCode<Log> for Stop {}

fn game_library() -> StateLibrary<Log> {
    let text = || ParamType::one(ParamKind::Text);
    let mut lib = StateLibrary::new();
    lib.register("Start", StateSpec::new(ModifierKind::None), || {
        Box::new(Begin)
    })
    .register(
        "Finish",
        StateSpec::new(ModifierKind::None).terminal(Terminal::End),
        || Box::new(Stop),
    )
    .register("Goto", StateSpec::new(ModifierKind::Location), || {
        Box::new(Arrive)
    })
    .register(
        "PlayAnimation",
        StateSpec::new(ModifierKind::None).params([
            ParamSpec::required("clip", text()),
            ParamSpec::optional(
                "loop",
                ParamType::one(ParamKind::Bool),
                ParamLiteral::Bool(false),
            ),
            ParamSpec::optional(
                "blend",
                ParamType::one(ParamKind::Number),
                ParamLiteral::Number(0.2),
            ),
            ParamSpec::optional(
                "layer",
                ParamType::one(ParamKind::OneOf(vec!["upper".into(), "full".into()])),
                ParamLiteral::Text("full".into()),
            ),
        ]),
        || Box::new(Act("PlayAnimation")),
    )
    .register(
        "Attack",
        StateSpec::new(ModifierKind::None).params([
            ParamSpec::required("target", ParamType::one(ParamKind::Agent)),
            ParamSpec::optional("weapon", text(), ParamLiteral::Text("fists".into())),
            ParamSpec::optional(
                "cover",
                ParamType::list_of(ParamKind::Location),
                ParamLiteral::List(vec![]),
            ),
        ]),
        || Box::new(Act("Attack")),
    )
    .register(
        "Emote",
        StateSpec::new(ModifierKind::None).params([ParamSpec::required("clip", text())]),
        || Box::new(Act("Emote")),
    )
    .register("Shout", StateSpec::new(ModifierKind::Text), || {
        Box::new(Act("Shout"))
    });
    lib
}

#[test]
fn state_code_reads_the_typed_values_while_the_scene_runs() {
    let program = Arc::new(build_program(Path::new(&repo_path(FIXTURE)), "params-game"));
    let mut scene = Scene::new(program, game_library(), "gate", Log::default(), 7).unwrap();
    for _ in 0..10 {
        scene.tick();
    }
    assert_eq!(
        scene.game.0,
        [
            "at Bar",
            "play Wave loop=true blend=0.2 layer=full",
            "attack thief with fists from Gate,Bar",
            "emote Nod",
            "shout Halt!",
            "at Gate",
        ]
    );
}

#[test]
fn a_game_that_registers_other_parameters_cannot_run_the_program() {
    let program = Arc::new(build_program(Path::new(&repo_path(FIXTURE)), "params-game"));
    let mut lib = game_library();
    lib.register(
        "Emote",
        StateSpec::new(ModifierKind::None).params([ParamSpec::required(
            "clip",
            ParamType::one(ParamKind::Number),
        )]),
        || Box::new(Stop),
    );
    let err = Scene::new(program, lib, "gate", Log::default(), 7)
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("parameter `clip` is registered as number but the program has text"),
        "{err}"
    );
}

/// The fixture with a sentence file and a `Bark` state whose parameter names a sentence state
/// (`line` as written in the machine).
fn with_sentences(line: &str) -> (tempfile::TempDir, String) {
    let (dir, _) = edited(
        "game.statelib.ron",
        r#"(name: "Shout", modifier: Text, raises: ["Done"]),"#,
        r#"(name: "Shout", modifier: Text, raises: ["Done"]),
        (name: "Bark", params: [(name: "line", type: Sentence)], raises: ["Done"]),"#,
    );
    std::fs::write(
        dir.path().join("lines.sentences.ron"),
        r#"Sentences(states: [(name: "Greet", verbs: "like, buy", nouns: "I, ticket")])"#,
    )
    .unwrap();
    let path = dir.path().join("Guard.machine.ron");
    let text = std::fs::read_to_string(&path).unwrap().replace(
        r#"(name: "Shout", modifier: "Halt!", on: [("Done", "Goto1")]),"#,
        &format!(
            r#"(name: "Shout", modifier: "Halt!", on: [("Done", "Bark")]),
        (name: "Bark", params: {{"line": "{line}"}}, on: [("Done", "Goto1")]),"#
        ),
    );
    std::fs::write(&path, &text).unwrap();
    (dir, text)
}

#[test]
fn a_sentence_parameter_names_a_sentence_state_of_the_project() {
    let (dir, _) = with_sentences("Greet");
    let program = build_program(dir.path(), "params-game");
    let guard = program.machine_by_name("Guard").unwrap();
    let bark = program.state_by_name(guard, "Bark").unwrap();
    assert_eq!(
        program.param(bark, "line").map(|v| v.into_owned()),
        Some(Param::One(ParamValue::Sentence(
            program.name_id("Greet").unwrap()
        )))
    );
    let (dir, text) = with_sentences("Gret");
    let ds: Vec<Value> = errors(dir.path())
        .into_iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(ds.len(), 1, "{ds:#?}");
    assert_eq!(ds[0]["code"], "unknown-reference");
    let (line, column) = line_col(&text, r#""Gret""#);
    assert_eq!(
        (ds[0]["line"].as_u64(), ds[0]["column"].as_u64()),
        (Some(line), Some(column))
    );
    assert!(notes(&ds[0]).contains("did you mean `Greet`?"), "{}", ds[0]);
}

#[test]
fn a_parameter_declared_twice_is_a_duplicate_at_the_second() {
    let (dir, text) = edited(
        "game.statelib.ron",
        r#"(name: "Emote", params: [(name: "clip", type: Text)]"#,
        r#"(name: "Emote", params: [(name: "clip", type: Text), (name: "clip", type: Number)]"#,
    );
    let ds = errors(dir.path());
    let d = ds
        .iter()
        .find(|d| d["code"] == "duplicate-name")
        .expect("the second `clip` is refused");
    let (line, column) = line_col(&text, r#""clip", type: Number"#);
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(line), Some(column)),
        "{d}"
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("library state `Emote` declares parameter `clip` twice"),
        "{d}"
    );
}

#[test]
fn a_list_of_lists_and_an_empty_one_of_are_refused_at_the_type() {
    // Each is located at what is wrong inside the type: the inner list, the empty list.
    for (bad, at, why) in [
        (
            "List(List(Text))",
            "List(Text)))]",
            "a list holds single values, not lists",
        ),
        ("OneOf([])", "[]))]", "`OneOf` must list at least one value"),
    ] {
        let (dir, text) = edited(
            "game.statelib.ron",
            r#"(name: "Emote", params: [(name: "clip", type: Text)]"#,
            &format!(r#"(name: "Emote", params: [(name: "clip", type: {bad})]"#),
        );
        let ds = errors(dir.path());
        let d = ds
            .iter()
            .find(|d| d["file"] == "game.statelib.ron")
            .unwrap_or_else(|| panic!("{bad} accepted: {ds:#?}"));
        assert_eq!(d["code"], "invalid-value", "{d}");
        let (line, column) = line_col(&text, at);
        assert_eq!(
            (d["line"].as_u64(), d["column"].as_u64()),
            (Some(line), Some(column)),
            "{d}"
        );
        assert!(d["message"].as_str().unwrap().contains(why), "{d}");
    }
}
