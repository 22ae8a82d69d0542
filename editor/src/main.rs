//! `ensemble-editor [PATH]`: opens the project at PATH (default: the airport sample) in a window,
//! or, where there is no display to open one on, runs the project's first scene headless so the
//! command still shows something useful (on CI, over ssh).

use eframe::egui;
use ensemble_compiler::run;
use ensemble_editor::EditorApp;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: ensemble-editor [PATH]\n\nOpens the Ensemble project at PATH (a folder with Ensemble.ron; default: samples/airport), or the project of the file at PATH with that file shown.";

/// The airport sample, from the current folder or else from this source tree.
fn default_project() -> PathBuf {
    let here = PathBuf::from("samples/airport");
    if here.is_dir() {
        return here;
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport");
    built.canonicalize().unwrap_or(built)
}

fn has_display() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

fn exit(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}

/// Exit statuses, as the `ensemble` command's: 0 success, 1 errors in the project, 2 could not
/// run (bad arguments, unreadable path, no window).
const EXIT_OK: i32 = 0;
const EXIT_ERRORS: i32 = 1;
const EXIT_CANNOT_RUN: i32 = 2;

/// Runs the first scene for 2000 ticks, printing its trace as `ensemble run` does (the trace on
/// stdout; the problems and what each agent came to on stderr); a project without a scene is
/// only checked.
fn headless_demo(path: &Path) -> i32 {
    let compilation = match ensemble_compiler::compile_path(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_CANNOT_RUN;
        }
    };
    let diagnostics = &compilation.diagnostics;
    if !diagnostics.is_empty() {
        eprint!("{}", diagnostics.render(&compilation.sources, false));
        eprintln!("{}: {}", compilation.name, diagnostics.summary());
    }
    let scene = compilation
        .module
        .scenes
        .iter()
        .next()
        .map(|(_, s)| s.name.text.clone());
    let Some(scene) = scene else {
        eprintln!("{}: no scene to run; checked the project", compilation.name);
        return if diagnostics.has_errors() {
            EXIT_ERRORS
        } else {
            EXIT_OK
        };
    };
    let Some((program, _)) = compilation.output else {
        eprintln!("error: {}", run::error_summary(&compilation));
        return EXIT_ERRORS;
    };
    let scene = run::Scene::new(scene, 2000);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let ran = run::scene(program.into(), &scene, |event| {
        writeln!(out, "{}", event.to_text()).is_ok()
    });
    let _ = out.flush();
    match ran {
        Ok(sim) => {
            for line in run::summary(&sim, scene.ticks) {
                eprintln!("{line}");
            }
            EXIT_OK
        }
        Err(e) => {
            eprintln!("error: cannot start scene `{}`: {e}", scene.name);
            EXIT_ERRORS
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let path = match args.as_slice() {
        [] => default_project(),
        [path] => PathBuf::from(path),
        _ => {
            eprintln!("{USAGE}");
            return exit(EXIT_CANNOT_RUN);
        }
    };
    if !has_display() {
        eprintln!(
            "ensemble-editor: no display found (DISPLAY and WAYLAND_DISPLAY are unset); running the headless demo instead"
        );
        return exit(headless_demo(
            &ensemble_editor::document::project_of(&path).0,
        ));
    }

    let app = EditorApp::open(path).with_config_dir(ensemble_editor::recent::config_dir());
    let viewport = egui::ViewportBuilder::default()
        .with_title(app.title())
        .with_inner_size([1440.0, 900.0])
        .with_min_inner_size([800.0, 520.0]);
    let options = eframe::NativeOptions {
        viewport,
        ..Default::default()
    };
    match eframe::run_native(
        "ensemble-editor",
        options,
        Box::new(|_cc| Ok(Box::new(app))),
    ) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ensemble-editor: cannot open a window: {e}");
            exit(EXIT_CANNOT_RUN)
        }
    }
}
