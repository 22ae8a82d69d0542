//! Latency from saving a source file to the reloaded program running, as `ensemble run --watch`
//! does it: the file watcher sees the save (after its debounce window), the project is
//! recompiled, the scene hot-reloads, and one tick runs under the new program. Three edits: a
//! location of the airport, a sentence state of the airport (re-ranked on save), and a line of
//! the innkeeper's chat (an HMM-space conversation scene).
//!
//! Anchor: the live-preview issue's goal, under 100 ms on the samples.
//! Reproduce: `cargo bench -p ensemble-compiler --bench reload`.

use ensemble_runtime::hpmm::ChatScene;
use ensemble_runtime::hsm::Scene;
use ensemble_runtime::watch::FileWatcher;
use ensemble_sim::{self as sim, SimWorld};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const SAVES: usize = 40;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if entry.file_name() == "build" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Times `SAVES` saves of one file of a project: `edit(i)` gives the file's text for save `i`
/// (each different, so nothing is served from the compiler's memo unless the edit allows it),
/// `reload` hot-reloads the running scene and runs one iteration.
fn measure(
    label: &str,
    project: &Path,
    file: &str,
    edit: impl Fn(&str, usize) -> String,
    mut reload: impl FnMut(Arc<ensemble_runtime::Program>),
) {
    let mut watcher = FileWatcher::new(project).unwrap();
    let file = project.join(file);
    let original = std::fs::read_to_string(&file).unwrap();
    let (mut total, mut detect, mut compile, mut swap) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..SAVES {
        let edited = edit(&original, i);
        assert_ne!(edited, original, "the edit changes the file");
        let t0 = Instant::now();
        std::fs::write(&file, &edited).unwrap();
        watcher
            .wait_until(t0 + Duration::from_secs(5))
            .expect("the save is seen");
        let t1 = Instant::now();
        let program = Arc::new(
            ensemble_compiler::compile_path(project)
                .unwrap()
                .output
                .expect("compiles")
                .0,
        );
        let t2 = Instant::now();
        reload(program);
        let t3 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        total.push(ms(t0, t3));
        detect.push(ms(t0, t1));
        compile.push(ms(t1, t2));
        swap.push(ms(t2, t3));
    }
    println!("save -> reloaded program running, {SAVES} saves, {label} (ms):");
    for (name, v) in [
        ("total", &mut total),
        ("watch (incl. 25 ms debounce)", &mut detect),
        ("compile", &mut compile),
        ("reload + 1 tick", &mut swap),
    ] {
        v.sort_by(f64::total_cmp);
        println!(
            "  {name:<30} median {:>7.2}  p90 {:>7.2}  worst {:>7.2}",
            percentile(v, 0.5),
            percentile(v, 0.9),
            v[v.len() - 1]
        );
    }
}

fn sample(tmp: &Path, name: &str) -> std::path::PathBuf {
    let project = tmp.join(name);
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../samples")
            .join(name),
        &project,
    );
    project
}

fn compile(project: &Path) -> Arc<ensemble_runtime::Program> {
    Arc::new(
        ensemble_compiler::compile_path(project)
            .unwrap()
            .output
            .unwrap()
            .0,
    )
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();

    // samples/airport, scene ticket-counter: move the gate a little (a real edit that changes
    // the program; every sentence state's ranking is memoised).
    let project = sample(tmp.path(), "airport");
    let program = compile(&project);
    let scene_id = program.scene_by_name("ticket-counter").unwrap();
    let world = SimWorld::for_scene(&program, scene_id);
    let mut scene =
        Scene::new(program.clone(), sim::library(), "ticket-counter", world, 7).unwrap();
    scene.set_tracing(false);
    for _ in 0..100 {
        scene.tick();
    }
    measure(
        "samples/airport, a location moved",
        &project,
        "airport.locations.ron",
        |text, i| text.replace("x: 30.0, y: -10.0", &format!("x: {}.5, y: -10.0", 30 + i)),
        |p| {
            scene.reload(p, "bench").expect("reloads");
            scene.tick();
        },
    );
    // The same scene, a sentence state edited: one new sentence state (GoToGateX's size, 7,980
    // variations) is over-generated, realised and ranked on every save.
    measure(
        "samples/airport, a sentence state edited",
        &project,
        "airport.sentences.ron",
        |text, i| {
            text.replace(
                "    ],\n)",
                &format!(
                    "        (name: \"Edited{i}\", verbs: \"need, go\", nouns: \"you, gate, VARIABLE GateNumber\"),\n    ],\n)"
                ),
            )
        },
        |p| {
            scene.reload(p, "bench").expect("reloads");
            scene.tick();
        },
    );

    // samples/innkeeper, the chat: an action's line edited; beliefs carry across by name.
    let project = sample(tmp.path(), "innkeeper");
    let mut chat = ChatScene::new(compile(&project), "chat", 7).unwrap();
    chat.set_tracing(false);
    for _ in 0..10 {
        chat.step();
    }
    measure(
        "samples/innkeeper chat, an action's line edited",
        &project,
        "innkeeper.actions.ron",
        |text, i| {
            text.replace(
                "me fix that right away",
                &format!("me fix that in {i} minutes"),
            )
        },
        |p| {
            chat.reload(p, "bench").expect("reloads");
            chat.step();
        },
    );
}
