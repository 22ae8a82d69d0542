//! The live preview's costs, in the editor:
//!
//! 1. **Save to running**: Ctrl+S in the editor to the reloaded program running in the
//!    preview (the scene hot-reloaded and one tick run under the new program), over many saves
//!    of a real edit (renaming a state in the inspector, references follow). Two cases: the
//!    save comes after the background compile has caught up with the edit (the designer
//!    paused), and the save comes in the frame right after the edit (the compile is hurried).
//!    The editor is driven headless (egui_kittest) at 60 frames a second, the rate it repaints
//!    at while a scene plays, so the frames the save waits for are counted.
//! 2. **Frame cost, headless**: one `EditorApp::show` frame plus tessellation with the airport
//!    ticket counter and the bench playing in the preview, against the same editor with the
//!    preview closed (the peer).
//! 3. **Frame cost, real window**: with `DISPLAY` set (Xvfb), eframe + glow in software, the
//!    same scenes playing; frame to frame and eframe's own frame time.
//!
//! ```sh
//! cargo bench -p ensemble-editor --bench preview
//! Xvfb :99 -screen 0 1600x1000x24 & DISPLAY=:99 cargo bench -p ensemble-editor --bench preview
//! ```

use eframe::egui;
use egui::{Key, Modifiers};
use egui_kittest::Harness;
use ensemble_editor::EditorApp;
use ensemble_editor::preview::DockTab;
use std::time::{Duration, Instant};

#[path = "../tests/support/mod.rs"]
mod support;
use support::app::{find, sample_copy as sample, type_over};

const SAVES: usize = 40;
const FRAME: Duration = Duration::from_micros(16_667);
const FRAMES: usize = 300;

fn stats(label: &str, v: &mut [f64]) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    println!(
        "  {label:<44} median {:>7.2}  p90 {:>7.2}  worst {:>7.2}  ({} samples)",
        at(0.5),
        at(0.9),
        v[v.len() - 1],
        v.len()
    );
}

/// One frame at the editor's repaint rate: steps, then sleeps out the rest of the frame.
fn frame(h: &mut Harness<'static, EditorApp>) {
    let start = Instant::now();
    h.step();
    if let Some(rest) = FRAME.checked_sub(start.elapsed()) {
        std::thread::sleep(rest);
    }
}

fn harness(app: EditorApp) -> Harness<'static, EditorApp> {
    let mut h = Harness::builder()
        .with_size(egui::vec2(1600.0, 1000.0))
        .with_step_dt(FRAME.as_secs_f32())
        .build_ui_state(|ui, app: &mut EditorApp| app.show(ui), app);
    h.run_steps(3);
    h
}

/// Opens the preview and plays `scene` at 1×.
fn open_and_play(app: &mut EditorApp, scene: &str) {
    if let Some(s) = app.session_mut() {
        s.preview.tab = DockTab::Preview;
        s.preview.scene = Some(scene.into());
        s.preview.play(&s.analysis);
    }
}

/// Plays `scene` and waits for its first 30 ticks.
fn play(h: &mut Harness<'static, EditorApp>, scene: &str) {
    open_and_play(h.state_mut(), scene);
    while h
        .state()
        .session()
        .unwrap()
        .preview
        .history
        .latest()
        .is_none_or(|s| s.tick < 30)
    {
        frame(h);
    }
}

fn preview_reloads(h: &Harness<'static, EditorApp>) -> usize {
    h.state().session().unwrap().preview.latencies.len()
}

/// Renames the state whose name field shows `from` to `to` in the inspector (Enter commits).
fn rename(h: &mut Harness<'static, EditorApp>, from: &str, to: &str) {
    type_over(h, from, to);
    // The frame that commits the rename.
    frame(h);
}

fn save_to_running() {
    println!(
        "save -> reloaded program running in the preview, samples/airport ticket-counter, {SAVES} saves (ms):"
    );
    for caught_up in [true, false] {
        let dir = sample("airport");
        let mut h = harness(EditorApp::open(dir.path()));
        play(&mut h, "ticket-counter");
        // Select FinishTalkState through Find: its name field appears in the inspector.
        find(&mut h, "FinishTalkState");
        h.run_steps(4);
        let (mut ui, mut worker, mut compile) = (Vec::new(), Vec::new(), Vec::new());
        let mut name = "FinishTalkState".to_string();
        for i in 0..SAVES {
            let next = format!("FinishTalkState{}", i % 2);
            let next = if next == name {
                "FinishTalkState".to_string()
            } else {
                next
            };
            rename(&mut h, &name, &next);
            name = next;
            if caught_up {
                // The designer paused: the background compile has caught up.
                while h.state().is_checking() {
                    frame(&mut h);
                }
                for _ in 0..6 {
                    frame(&mut h);
                }
            }
            let before = preview_reloads(&h);
            let t0 = Instant::now();
            h.key_press_modifiers(Modifiers::COMMAND, Key::S);
            while preview_reloads(&h) == before {
                frame(&mut h);
                assert!(t0.elapsed() < Duration::from_secs(30), "no reload");
            }
            ui.push(t0.elapsed().as_secs_f64() * 1e3);
            let p = &h.state().session().unwrap().preview;
            worker.push(p.latencies.last().unwrap().as_secs_f64() * 1e3);
            compile.push(
                h.state()
                    .report()
                    .map_or(0.0, |r| r.latency.as_secs_f64() * 1e3),
            );
        }
        let case = if caught_up {
            "saved after the compile caught up"
        } else {
            "saved in the frame after the edit"
        };
        println!(" {case}:");
        stats("save -> program running (worker)", &mut worker);
        stats("save -> reload shown (next UI frame)", &mut ui);
        if !caught_up {
            stats("compile of the saved edit", &mut compile);
        }
    }
}

/// Headless frame cost: `show` plus tessellation, over frames at 60 per second while the
/// scene plays (so every frame takes in the ticks of the last 16.7 ms).
fn headless_frames() {
    println!("editor frame (show + tessellate), headless, 1600x1000, {FRAMES} frames (ms):");
    for (project, scene, label) in [
        ("airport", None, "airport: graph, preview closed (peer)"),
        (
            "airport",
            Some("ticket-counter"),
            "airport: graph, ticket-counter playing",
        ),
        (
            "airport",
            Some("lane-closed"),
            "airport: graph, lane-closed playing",
        ),
        ("bench", None, "bench: rule table, preview closed (peer)"),
        ("bench", Some("bench"), "bench: rule table, bench playing"),
    ] {
        let dir = sample(project);
        let mut h = harness(EditorApp::open(dir.path()));
        if let Some(scene) = scene {
            play(&mut h, scene);
            // Let scripts start and agents spread out.
            for _ in 0..120 {
                frame(&mut h);
            }
        }
        let mut v = Vec::new();
        for _ in 0..FRAMES {
            let start = Instant::now();
            h.step();
            let shapes = h.output().shapes.clone();
            let ppp = h.ctx.pixels_per_point();
            std::hint::black_box(h.ctx.tessellate(shapes, ppp));
            let took = start.elapsed();
            v.push(took.as_secs_f64() * 1e3);
            if let Some(rest) = FRAME.checked_sub(took) {
                std::thread::sleep(rest);
            }
        }
        stats(label, &mut v);
    }
}

struct Timed {
    app: EditorApp,
    scene: Option<&'static str>,
    started: bool,
    last: Option<Instant>,
    frames: Vec<Duration>,
    cpu: Vec<Duration>,
    label: &'static str,
}

const WARM_UP: usize = 120;

impl eframe::App for Timed {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        if !self.started {
            self.started = true;
            if let Some(scene) = self.scene {
                open_and_play(&mut self.app, scene);
            }
        }
        let now = Instant::now();
        if let Some(last) = self.last {
            self.frames.push(now - last);
        }
        self.last = Some(now);
        self.app.show(ui);
        if let Some(cpu) = frame.info().cpu_usage {
            self.cpu.push(Duration::from_secs_f32(cpu));
        }
        if self.frames.len() == WARM_UP + FRAMES {
            let ms = |d: &[Duration]| d.iter().map(|d| d.as_secs_f64() * 1e3).collect::<Vec<_>>();
            stats(
                &format!("{} (frame to frame)", self.label),
                &mut ms(&self.frames[WARM_UP..]),
            );
            let skip = self.cpu.len().saturating_sub(FRAMES);
            stats(
                &format!("{} (eframe frame time)", self.label),
                &mut ms(&self.cpu[skip..]),
            );
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        ui.ctx().request_repaint();
    }
}

fn window_frames() {
    if std::env::var_os("DISPLAY").is_none() {
        println!("real window: no DISPLAY; run under Xvfb (see the file's header)");
        return;
    }
    println!("editor frame, real window (eframe + glow, software), continuous repaint (ms):");
    for (project, scene, label) in [
        ("airport", None, "airport, preview closed (peer)"),
        (
            "airport",
            Some("ticket-counter"),
            "airport, ticket-counter playing",
        ),
        (
            "airport",
            Some("lane-closed"),
            "airport, lane-closed playing",
        ),
        ("bench", Some("bench"), "bench, bench playing"),
    ] {
        let dir = sample(project);
        let mut options = eframe::NativeOptions {
            viewport: egui::ViewportBuilder::default().with_inner_size([1600.0, 1000.0]),
            ..Default::default()
        };
        options.glow_options.vsync = false;
        let timed = Timed {
            app: EditorApp::open(dir.path()),
            scene,
            started: false,
            last: None,
            frames: Vec::new(),
            cpu: Vec::new(),
            label,
        };
        eframe::run_native("preview_bench", options, Box::new(|_| Ok(Box::new(timed)))).unwrap();
    }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter picks one part.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let want = |part: &str| filter.as_deref().is_none_or(|f| part.contains(f));
    if want("save") {
        save_to_running();
    }
    if want("headless") {
        headless_frames();
    }
    if want("window") {
        window_frames();
    }
}
