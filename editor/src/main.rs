//! `ensemble-editor [PATH]`: opens the project at PATH (default: the airport sample) in a window,
//! or, where there is no display to open one on, runs the project's first scene headless so the
//! command still shows something useful (on CI, over ssh).

use eframe::egui;
use ensemble_compiler::cli;
use ensemble_editor::EditorApp;
use std::ffi::OsString;
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

/// Runs the first scene for 2000 ticks with the `ensemble` CLI, printing its trace.
fn headless_demo(path: &Path) -> i32 {
    let compilation = match ensemble_compiler::compile_path(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return cli::EXIT_CANNOT_RUN;
        }
    };
    let scene = compilation
        .module
        .scenes
        .iter()
        .next()
        .map(|(_, s)| s.name.text.clone());
    let path = OsString::from(path);
    let args: Vec<OsString> = match scene {
        Some(scene) => vec![
            "ensemble".into(),
            "run".into(),
            path,
            "--scene".into(),
            scene.into(),
            "--ticks".into(),
            "2000".into(),
        ],
        None => {
            eprintln!(
                "{}: no scene to run; checking the project instead",
                compilation.name
            );
            vec!["ensemble".into(), "check".into(), path]
        }
    };
    let (mut stdout, mut stderr) = (std::io::stdout(), std::io::stderr());
    let mut io = cli::Io {
        out: &mut stdout,
        err: &mut stderr,
        color: false,
    };
    cli::run(args, &mut io)
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
            return exit(cli::EXIT_CANNOT_RUN);
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
            exit(cli::EXIT_CANNOT_RUN)
        }
    }
}
