//! The navigation maps of a project: the MovingAI `.map` files below its folder, listed in the
//! browser's Maps section and shown, one at a time, in the navigation view
//! ([`crate::nav_view`]: PPA* clusters, paths between two clicked cells, the `.scen`
//! scenarios beside the map). A map is not a document — the view edits nothing of the project
//! — so what it shows (clustering, picked cells) lives here, per map, for the session.

use crate::nav_view::{NavSettings, NavView};
use crate::panel::{PanelCx, ProjectNames};
use eframe::egui;
use ensemble_compiler::project::MANIFEST;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The `.map` files below `root` (relative, `/`-separated, sorted), where discovery of
/// sources looks: not in hidden folders, `build/`, `target/` or nested projects.
pub fn find(root: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') {
                continue;
            }
            if path.is_dir() {
                if name != "build" && name != "target" && !path.join(MANIFEST).exists() {
                    walk(root, &path, out);
                }
            } else if name.ends_with(".map") {
                let rel = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// The maps of the open project and the one shown, if any.
pub struct Maps {
    pub found: Vec<String>,
    shown: Option<String>,
    settings: HashMap<String, NavSettings>,
    view: NavView,
}

impl Maps {
    pub fn new(root: &Path) -> Maps {
        Maps::with_view(root, NavView::new())
    }

    /// Maps shown with `view` (tests give one with their own file picker).
    pub fn with_view(root: &Path, view: NavView) -> Maps {
        Maps {
            found: find(root),
            shown: None,
            settings: HashMap::new(),
            view,
        }
    }

    /// Shows the map at `path` (relative to `root`, or absolute for a map outside the project).
    pub fn show(&mut self, root: &Path, path: &str) {
        let full = if Path::new(path).is_absolute() {
            PathBuf::from(path)
        } else {
            root.join(path)
        };
        self.settings
            .entry(path.to_string())
            .or_insert_with(|| NavSettings::open(full));
        self.shown = Some(path.to_string());
    }

    pub fn hide(&mut self) {
        self.shown = None;
    }

    pub fn shown(&self) -> Option<&str> {
        self.shown.as_deref()
    }

    pub fn view(&self) -> &NavView {
        &self.view
    }

    /// Draws the shown map's view.
    pub fn ui(&mut self, ui: &mut egui::Ui, root: &Path) {
        let Some(path) = &self.shown else { return };
        let Some(settings) = self.settings.get_mut(path) else {
            return;
        };
        let (names, requests) = (ProjectNames::default(), Default::default());
        let cx = PanelCx::detached(root, &names, &requests);
        self.view.ui(ui, settings, &cx);
        // "Open map…" in the view may have picked another map: follow it by its path.
        if let Some(m) = &settings.map {
            let shown = m.strip_prefix(root).map_or_else(
                |_| m.display().to_string(),
                |r| {
                    r.components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/")
                },
            );
            if shown != *path {
                let s = settings.clone();
                self.settings.insert(shown.clone(), s);
                self.shown = Some(shown);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_are_found_where_sources_are() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(MANIFEST), "Project(name: \"p\")").unwrap();
        for d in ["maps", ".hidden", "build", "nested"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        std::fs::write(root.join("nested").join(MANIFEST), "Project(name: \"n\")").unwrap();
        for f in [
            "maps/yard.map",
            ".hidden/a.map",
            "build/b.map",
            "nested/c.map",
            "town.map",
            "town.map.scen",
        ] {
            std::fs::write(root.join(f), "type octile\n").unwrap();
        }
        assert_eq!(find(root), ["maps/yard.map", "town.map"]);
        let mut maps = Maps::new(root);
        assert_eq!(maps.shown(), None);
        maps.show(root, "town.map");
        assert_eq!(maps.shown(), Some("town.map"));
        maps.hide();
        assert_eq!(maps.shown(), None);
    }
}
