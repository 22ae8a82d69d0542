//! Latency from saving a source file to the reloaded program running, as `ensemble run --watch`
//! does it: the file watcher sees the save (after its debounce window), the project is
//! recompiled, the scene hot-reloads, and one tick runs under the new program.
//!
//! Anchor: the live-preview issue's goal, under 100 ms on the samples.
//! Reproduce: `cargo bench -p ensemble-compiler --bench reload`.

use ensemble_runtime::hsm::Scene;
use ensemble_runtime::sim::{self, SimWorld};
use ensemble_runtime::watch::FileWatcher;
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

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("airport");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport"),
        &project,
    );
    let program = Arc::new(
        ensemble_compiler::compile_path(&project)
            .unwrap()
            .output
            .unwrap()
            .0,
    );
    let scene_id = program.scene_by_name("ticket-counter").unwrap();
    let world = SimWorld::for_scene(&program, scene_id);
    let mut scene =
        Scene::new(program.clone(), sim::library(), "ticket-counter", world, 7).unwrap();
    scene.set_tracing(false);
    for _ in 0..100 {
        scene.tick();
    }
    let mut watcher = FileWatcher::new(&project).unwrap();
    let file = project.join("airport.locations.ron");
    let original = std::fs::read_to_string(&file).unwrap();
    let (mut total, mut detect, mut compile, mut reload) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..SAVES {
        // Move the gate a little: a real edit that changes the program.
        let edited = original.replace(
            "x: 30.0, y: -10.0",
            &format!("x: {}.0, y: -10.0", 30 + (i % 5)),
        );
        let t0 = Instant::now();
        std::fs::write(&file, &edited).unwrap();
        watcher
            .wait_until(t0 + Duration::from_secs(5))
            .expect("the save is seen");
        let t1 = Instant::now();
        let program = Arc::new(
            ensemble_compiler::compile_path(&project)
                .unwrap()
                .output
                .expect("compiles")
                .0,
        );
        let t2 = Instant::now();
        scene.reload(program, "bench").expect("reloads");
        scene.tick();
        let t3 = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        total.push(ms(t0, t3));
        detect.push(ms(t0, t1));
        compile.push(ms(t1, t2));
        reload.push(ms(t2, t3));
    }
    println!("save -> reloaded program running, {SAVES} saves of samples/airport (ms):");
    for (name, v) in [
        ("total", &mut total),
        ("watch (incl. 25 ms debounce)", &mut detect),
        ("compile", &mut compile),
        ("reload + 1 tick", &mut reload),
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
