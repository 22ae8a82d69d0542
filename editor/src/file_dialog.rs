//! Every file dialog of the editor goes through here: the system's (rfd), and where there is
//! none — no desktop portal and no zenity, when rfd answers "cancelled" at once — a small modal
//! where the path is typed, checked with a clear message. Without it those menu items and
//! buttons did nothing at all.

use crate::theme;
use eframe::egui;
use egui::{Key, RichText, Ui};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What is asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    /// An existing file.
    File,
    /// An existing folder.
    Folder,
    /// A folder that is created if missing (its parent must exist).
    NewFolder,
    /// A file to write (its folder must exist).
    Save,
}

/// One question to the user.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    pub title: String,
    pub pick: Pick,
    /// The filter's name and extensions (without dots); empty: any file.
    pub filter: Option<(String, Vec<String>)>,
    /// A file name to start from (saving).
    pub suggested: Option<String>,
}

impl Ask {
    pub fn new(title: impl Into<String>, pick: Pick) -> Self {
        Ask {
            title: title.into(),
            pick,
            filter: None,
            suggested: None,
        }
    }

    pub fn filter(mut self, name: &str, extensions: &[&str]) -> Self {
        self.filter = Some((
            name.to_string(),
            extensions.iter().map(|e| e.to_string()).collect(),
        ));
        self
    }

    pub fn suggested(mut self, name: impl Into<String>) -> Self {
        self.suggested = Some(name.into());
        self
    }
}

/// What a dialog answered.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    Path(PathBuf),
    Cancelled,
    /// There is no system dialog: ask for a typed path instead.
    NoDialog,
}

impl From<Option<PathBuf>> for Answer {
    /// A dialog that answers a path or nothing (tests; hosts with their own dialogs).
    fn from(p: Option<PathBuf>) -> Self {
        p.map_or(Answer::Cancelled, Answer::Path)
    }
}

/// Asks the user (the system's dialogs; tests answer themselves).
pub type Dialogs = Box<dyn FnMut(&Ask) -> Answer>;

/// rfd reports a missing portal as a cancel, returned at once; nobody cancels a dialog faster.
const NO_DIALOG_WITHIN: Duration = Duration::from_millis(250);

/// The system's file dialogs, or [`Answer::NoDialog`] where there are none (no display, or
/// `ENSEMBLE_TYPED_PATHS` set: a remote session where the portal's window would be elsewhere).
pub fn native() -> Dialogs {
    Box::new(|ask: &Ask| {
        let headless = cfg!(target_os = "linux")
            && std::env::var_os("DISPLAY").is_none()
            && std::env::var_os("WAYLAND_DISPLAY").is_none();
        if headless || std::env::var_os("ENSEMBLE_TYPED_PATHS").is_some() {
            return Answer::NoDialog;
        }
        let mut dialog = rfd::FileDialog::new().set_title(&ask.title);
        if let Some((name, extensions)) = &ask.filter {
            dialog = dialog.add_filter(name, extensions);
        }
        if let Some(s) = &ask.suggested {
            dialog = dialog.set_file_name(s);
        }
        let asked = Instant::now();
        let picked = match ask.pick {
            Pick::File => dialog.pick_file(),
            Pick::Folder | Pick::NewFolder => dialog.pick_folder(),
            Pick::Save => dialog.save_file(),
        };
        match picked {
            Some(p) => Answer::Path(p),
            None if asked.elapsed() < NO_DIALOG_WITHIN => Answer::NoDialog,
            None => Answer::Cancelled,
        }
    })
}

/// The typed `text` as the path `ask` wants (relative paths are in `base`), or why not.
pub fn check(ask: &Ask, text: &str, base: Option<&Path>) -> Result<PathBuf, String> {
    let text = text.trim();
    if text.is_empty() {
        return Err("type a path".into());
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut path = match (text.strip_prefix("~/"), &home) {
        (Some(rest), Some(h)) => h.join(rest),
        _ => PathBuf::from(text),
    };
    if path.is_relative()
        && let Some(b) = base
    {
        path = b.join(path);
    }
    let shown = path.display().to_string();
    let extensions = ask
        .filter
        .as_ref()
        .map(|(_, e)| e.as_slice())
        .unwrap_or(&[]);
    let wanted = || {
        let (name, e) = ask.filter.as_ref().unwrap();
        format!("{shown}: wanted a .{} file ({name})", e.join(" or ."))
    };
    let ext_ok = |p: &Path| {
        extensions.is_empty()
            || p.extension().is_some_and(|x| {
                extensions
                    .iter()
                    .any(|e| x.eq_ignore_ascii_case(e.as_str()))
            })
    };
    match ask.pick {
        Pick::File if !path.exists() => Err(format!("{shown}: no such file")),
        Pick::File if path.is_dir() => Err(format!("{shown} is a folder; pick a file in it")),
        Pick::File if !ext_ok(&path) => Err(wanted()),
        Pick::Folder if !path.is_dir() => Err(format!("{shown}: no such folder")),
        Pick::NewFolder | Pick::Save
            if !path
                .parent()
                .is_some_and(|p| p.as_os_str().is_empty() || p.is_dir()) =>
        {
            Err(format!("{shown}: its folder does not exist"))
        }
        Pick::NewFolder if path.is_file() => Err(format!("{shown} is a file, not a folder")),
        Pick::Save if path.is_dir() => Err(format!("{shown} is a folder; add a file name")),
        Pick::Save if !ext_ok(&path) => {
            // Saving adds the extension the filter wants, as the system dialogs do.
            let mut p = path.into_os_string();
            p.push(format!(".{}", extensions[0]));
            Ok(PathBuf::from(p))
        }
        _ => Ok(path),
    }
}

/// The typed-path modal: the fallback of every dialog.
pub struct Typed {
    pub ask: Ask,
    pub text: String,
    pub error: Option<String>,
    base: Option<PathBuf>,
}

impl Typed {
    /// Asks `ask` by a typed path; relative paths are in `base` (the project's folder).
    pub fn new(ask: Ask, base: Option<PathBuf>) -> Self {
        Typed {
            text: ask.suggested.clone().unwrap_or_default(),
            ask,
            error: None,
            base,
        }
    }

    /// Draws the modal; `Some(Some(path))` when a path that fits was given, `Some(None)` when
    /// cancelled, `None` while it is open.
    pub fn show(&mut self, ctx: &egui::Context) -> Option<Option<PathBuf>> {
        let frame = egui::Frame::popup(&ctx.global_style()).inner_margin(egui::Margin::same(16));
        egui::Modal::new(egui::Id::new("typed-path"))
            .frame(frame)
            .show(ctx, |ui| self.ui(ui))
            .inner
    }

    fn ui(&mut self, ui: &mut Ui) -> Option<Option<PathBuf>> {
        ui.set_width(440.0);
        ui.label(RichText::new(&self.ask.title).heading());
        let what = match self.ask.pick {
            Pick::File | Pick::Save => "file",
            Pick::Folder | Pick::NewFolder => "folder",
        };
        let relative = match &self.base {
            Some(b) => format!(", or relative to {}", b.display()),
            None => String::new(),
        };
        ui.label(
            RichText::new(format!(
                "No file dialog is available here: type the {what}'s path (absolute{relative})."
            ))
            .color(theme::TEXT_WEAK),
        );
        let r = ui.add(
            egui::TextEdit::singleline(&mut self.text)
                .desired_width(f32::INFINITY)
                .hint_text(format!("path of the {what}")),
        );
        r.request_focus();
        if let Some(e) = &self.error {
            ui.label(RichText::new(e.as_str()).color(theme::ERROR));
        }
        let mut answer = None;
        ui.horizontal(|ui| {
            if ui.button("OK").clicked() || ui.input(|i| i.key_pressed(Key::Enter)) {
                match check(&self.ask, &self.text, self.base.as_deref()) {
                    Ok(p) => answer = Some(Some(p)),
                    Err(e) => self.error = Some(e),
                }
            }
            if ui.button("Cancel").clicked() || ui.input(|i| i.key_pressed(Key::Escape)) {
                answer = Some(None);
            }
        });
        answer
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_paths_are_checked_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("run.jsonl"), "").unwrap();
        let trace =
            Ask::new("Open a recorded trace", Pick::File).filter("JSON trace", &["jsonl", "json"]);
        let base = Some(dir.path());
        assert_eq!(
            check(&trace, " run.jsonl ", base),
            Ok(dir.path().join("run.jsonl"))
        );
        assert!(
            check(&trace, "nope.jsonl", base)
                .unwrap_err()
                .ends_with("no such file")
        );
        assert!(check(&trace, "", base).is_err());
        std::fs::write(dir.path().join("run.txt"), "").unwrap();
        let e = check(&trace, "run.txt", base).unwrap_err();
        assert!(
            e.ends_with("run.txt: wanted a .jsonl or .json file (JSON trace)"),
            "{e}"
        );
        let save = Ask::new("Export", Pick::Save).filter("Excel workbook", &["xlsx"]);
        assert_eq!(check(&save, "out", base), Ok(dir.path().join("out.xlsx")));
        assert!(check(&save, "missing/out.xlsx", base).is_err());
    }
}
