//! Frame time of the real editor window (eframe, glow) with a 500-state machine on screen,
//! rendered in software — run it under Xvfb, where OpenGL is Mesa's llvmpipe:
//!
//! ```sh
//! Xvfb :99 -screen 0 1600x1000x24 & DISPLAY=:99 cargo bench -p ensemble-editor --bench frame_xvfb
//! ```
//!
//! The editor repaints continuously; the wall time between the starts of consecutive frames
//! (input, UI, tessellation, llvmpipe rasterising, buffer swap) is recorded for 300 frames
//! after a 60-frame warm-up (Xvfb has no vertical sync to wait for). Without a display it says
//! so and does nothing.

#[path = "support/mod.rs"]
mod support;

use eframe::egui;
use ensemble_editor::EditorApp;
use std::time::{Duration, Instant};

const WARM_UP: usize = 60;
const FRAMES: usize = 300;

struct Timed {
    app: EditorApp,
    last: Option<Instant>,
    frames: Vec<Duration>,
    /// eframe's own measure of each frame: UI, tessellation and painting, without waiting.
    cpu: Vec<Duration>,
    label: &'static str,
    zoom: bool,
}

impl eframe::App for Timed {
    fn ui(&mut self, ui: &mut egui::Ui, frame: &mut eframe::Frame) {
        let now = Instant::now();
        if let Some(last) = self.last {
            self.frames.push(now - last);
        }
        self.last = Some(now);
        if self.zoom && self.frames.len() == 10 {
            ui.ctx()
                .input_mut(|i| i.events.push(egui::Event::Zoom(2.0)));
        }
        self.app.show(ui);
        if let Some(cpu) = frame.info().cpu_usage {
            self.cpu.push(Duration::from_secs_f32(cpu));
        }
        if self.frames.len() == WARM_UP + FRAMES {
            report(
                &format!("{} (frame to frame)", self.label),
                &self.frames[WARM_UP..],
            );
            let skip = self.cpu.len().saturating_sub(FRAMES);
            report(
                &format!("{} (eframe frame time)", self.label),
                &self.cpu[skip..],
            );
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
        ui.ctx().request_repaint();
    }
}

fn report(label: &str, frames: &[Duration]) {
    if frames.is_empty() {
        return;
    }
    let mut ms: Vec<f64> = frames.iter().map(|d| d.as_secs_f64() * 1e3).collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "{label}: {} frames, median {:.2} ms, p95 {:.2} ms, max {:.2} ms",
        ms.len(),
        at(0.5),
        at(0.95),
        ms[ms.len() - 1]
    );
}

fn main() {
    if std::env::var_os("DISPLAY").is_none() {
        println!("frame_xvfb: no DISPLAY; run it under Xvfb (see the file's header)");
        return;
    }
    // `cargo bench` passes `--bench`; nothing to parse.
    let dir = tempfile::tempdir().unwrap();
    support::big_project(dir.path(), 500);
    // The peer: the same window with a 6-state machine, to separate what the graph costs from
    // what drawing any window costs in software.
    let small = tempfile::tempdir().unwrap();
    support::big_project(small.path(), 6);
    for (label, zoom, root) in [
        ("6 states (peer)", false, small.path()),
        ("500 states, fitted", false, dir.path()),
        ("500 states, zoom 1:1", true, dir.path()),
    ] {
        let app = EditorApp::open(root);
        let mut options = eframe::NativeOptions {
            viewport: egui::ViewportBuilder::default().with_inner_size([1600.0, 1000.0]),
            ..Default::default()
        };
        // Measure the work, not a swap interval.
        options.glow_options.vsync = false;
        let timed = Timed {
            app,
            last: None,
            frames: Vec::new(),
            cpu: Vec::new(),
            label,
            zoom,
        };
        eframe::run_native("frame_xvfb", options, Box::new(|_| Ok(Box::new(timed)))).unwrap();
    }
}
