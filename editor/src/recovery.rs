//! Autosave to a recovery file, so a crash loses nothing. While the project has unsaved
//! changes, every few seconds the printed text of each dirty document goes to
//! `.ensemble/recovery/unsaved.ron` in the project (hidden, so discovery skips it); a clean
//! save removes it. On open, a recovery file newer than the files it concerns is offered back.

use crate::document::{DocId, DocState, Project};
use crate::sidecar::Layout;
use ensemble_compiler::formats::ron::FileKind;
use ensemble_runtime::fs::write_atomic;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

pub const DIR: &str = ".ensemble/recovery";
const FILE: &str = "unsaved.ron";

/// How often unsaved changes are written to the recovery file.
pub const INTERVAL: Duration = Duration::from_secs(3);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecoveredDoc {
    /// Where the document is now.
    pub path: String,
    /// Where it was on disk (`None`: a new document).
    pub was: Option<String>,
    pub deleted: bool,
    /// Its printed text (`None` for deleted or binary documents).
    pub text: Option<String>,
    /// Its layout sidecar's text (machines).
    pub layout: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recovery {
    /// Seconds since the Unix epoch when it was written.
    pub written: u64,
    pub docs: Vec<RecoveredDoc>,
}

pub fn path(root: &Path) -> PathBuf {
    root.join(DIR).join(FILE)
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// What the recovery file would hold for `project` now.
pub fn snapshot(project: &Project) -> Recovery {
    let docs = project
        .docs
        .iter()
        .filter(|d| d.is_dirty())
        .map(|d| RecoveredDoc {
            path: d.state.path.clone(),
            was: (!d.saved.deleted).then(|| d.saved.path.clone()),
            deleted: d.state.deleted,
            text: if d.state.deleted {
                None
            } else {
                d.state.autosave_text()
            },
            layout: (!d.state.layout.is_empty()).then(|| d.state.layout.print()),
        })
        .collect();
    Recovery {
        written: now_secs(),
        docs,
    }
}

/// Writes the recovery file for the dirty documents of `project` (removes it when clean).
pub fn write(project: &Project) -> std::io::Result<()> {
    let file = path(&project.root);
    if !project.is_dirty() {
        return clear(&project.root);
    }
    std::fs::create_dir_all(file.parent().unwrap_or(&project.root))?;
    let text = ron::ser::to_string_pretty(&snapshot(project), ron::ser::PrettyConfig::default())
        .map_err(std::io::Error::other)?;
    write_atomic(&file, text.as_bytes())
}

pub fn clear(root: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path(root)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// The recovery file of the project at `root`, when there is one that is newer than every file
/// it concerns (an older one was overtaken by saves made elsewhere, and is ignored).
pub fn find(root: &Path) -> Option<Recovery> {
    let file = path(root);
    let text = std::fs::read_to_string(&file).ok()?;
    let recovery: Recovery = ron::Options::default().from_str(&text).ok()?;
    if recovery.docs.is_empty() {
        return None;
    }
    let written = std::fs::metadata(&file).and_then(|m| m.modified()).ok()?;
    let newer = recovery.docs.iter().all(|d| {
        let on_disk = d.was.as_ref().unwrap_or(&d.path);
        std::fs::metadata(root.join(on_disk))
            .and_then(|m| m.modified())
            .map_or(true, |m| m <= written)
    });
    newer.then_some(recovery)
}

/// Puts the recovered documents into `project`; returns each changed document and its state
/// before, for one undo step.
pub fn apply(project: &mut Project, recovery: &Recovery) -> Vec<(DocId, DocState)> {
    let mut changes = Vec::new();
    for r in &recovery.docs {
        let Some(kind) = FileKind::of(&r.path) else {
            continue;
        };
        let existing = r.was.as_ref().and_then(|was| {
            project
                .docs
                .iter()
                .position(|d| d.saved.path == *was && !d.saved.deleted)
        });
        let layout = r.layout.as_deref().map(Layout::parse).unwrap_or_default();
        let mut state = match (&r.text, existing) {
            (Some(text), _) => DocState::from_text(&r.path, kind, text.clone(), layout),
            // A binary document was moved or deleted: its content is the one on disk.
            (None, Some(id)) => DocState {
                path: r.path.clone(),
                layout,
                ..project.docs[id].state.clone()
            },
            (None, None) => continue,
        };
        state.deleted = r.deleted;
        match existing {
            Some(id) => {
                changes.push((id, project.docs[id].state.clone()));
                project.docs[id].state = state;
            }
            None => {
                let mut absent = state.clone();
                absent.deleted = true;
                let id = project.add(kind, state);
                changes.push((id, absent));
            }
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::tests::airport_copy;
    use ensemble_compiler::formats::ron::ModifierValue;

    #[test]
    fn a_crash_loses_nothing() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        let id = p.machine_doc("SellTicket").unwrap();
        p.docs[id].state.machine_mut().unwrap().states[2].modifier =
            Some(ModifierValue::Name("Fine.".into()));
        p.docs[id].state.layout.set("Start", [1.0, 2.0]);
        write(&p).unwrap();
        let expected = p.docs[id].state.clone();
        drop(p); // the crash

        let mut p = Project::open(dir.path()).unwrap();
        assert!(!p.is_dirty(), "the files on disk are untouched");
        let r = find(dir.path()).expect("a newer recovery is offered");
        let changes = apply(&mut p, &r);
        assert_eq!(changes.len(), 1);
        assert_eq!(p.docs[id].state, expected);
        assert!(p.is_dirty());
        // A clean save removes the recovery file.
        p.save().unwrap();
        write(&p).unwrap();
        assert!(find(dir.path()).is_none());
        assert!(!path(dir.path()).exists());
    }

    #[test]
    fn a_recovery_older_than_the_files_is_not_offered() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        let id = p.machine_doc("SellTicket").unwrap();
        p.docs[id].state.machine_mut().unwrap().name = "Renamed".into();
        write(&p).unwrap();
        let later = SystemTime::now() + Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(dir.path().join(&p.docs[id].saved.path))
            .unwrap()
            .set_modified(later)
            .unwrap();
        assert!(find(dir.path()).is_none());
    }

    #[test]
    fn discovery_skips_the_recovery_folder() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        let id = p.machine_doc("SellTicket").unwrap();
        p.docs[id].state.deleted = true;
        write(&p).unwrap();
        assert!(path(dir.path()).exists());
        let c = ensemble_compiler::compile_path(dir.path()).unwrap();
        assert!(c.sources.iter().all(|(_, f)| !f.name.contains(".ensemble")));
    }
}
