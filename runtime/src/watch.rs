//! Watching sources or a built program for changes, for hot reload (feature `watch`).
//!
//! Editors save in many ways: in place, by writing a temporary file and renaming it over the
//! original, by deleting and re-creating. Watching the *directory* rather than the file covers
//! all of them, including a file that vanishes and comes back. Changes are debounced: after the
//! first relevant event the watcher waits until the directory has been quiet for a short while,
//! so one save (often several events, sometimes a partial write followed by the rest) gives one
//! reload. Temporary and hidden files (ours are `.ensemble-*.tmp`), `build/` and `target/` are
//! ignored.

use notify::{EventKind, RecursiveMode, Watcher as _};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// How long the watched files must stay quiet before a change is reported.
pub const DEFAULT_QUIET: Duration = Duration::from_millis(25);

/// The watch could not be set up: the path does not exist or the platform's notification
/// service refused it.
#[derive(Debug, thiserror::Error)]
#[error("cannot watch {}: {message}", path.display())]
pub struct WatchError {
    /// The path the caller asked to watch.
    pub path: PathBuf,
    /// What the file system or the notification service said.
    pub message: String,
}

/// What changed, after debouncing.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The relevant paths that changed, sorted, without duplicates.
    pub paths: Vec<PathBuf>,
}

/// Reports settled changes below a directory, or to one file, for hot reload. Dropping it stops
/// the watch.
pub struct FileWatcher {
    _watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
    /// When watching one file: its name. Otherwise every file below the root counts.
    only: Option<std::ffi::OsString>,
    root: PathBuf,
    quiet: Duration,
}

impl FileWatcher {
    /// Watches a project directory (recursively) or a single file (through its directory).
    pub fn new(path: &Path) -> Result<Self, WatchError> {
        let err = |message: String| WatchError {
            path: path.to_path_buf(),
            message,
        };
        let path = path.canonicalize().map_err(|e| err(e.to_string()))?;
        let (root, only, mode) = if path.is_dir() {
            (path.clone(), None, RecursiveMode::Recursive)
        } else {
            let parent = path
                .parent()
                .ok_or_else(|| err("it has no parent directory".into()))?;
            (
                parent.to_path_buf(),
                path.file_name().map(|n| n.to_os_string()),
                RecursiveMode::NonRecursive,
            )
        };
        let (tx, rx) = channel();
        let mut watcher = notify::recommended_watcher(move |event| {
            // The receiver may be gone while the watcher shuts down; nothing to do then.
            let _ = tx.send(event);
        })
        .map_err(|e| err(e.to_string()))?;
        watcher.watch(&root, mode).map_err(|e| err(e.to_string()))?;
        Ok(FileWatcher {
            _watcher: watcher,
            events: rx,
            only,
            root,
            quiet: DEFAULT_QUIET,
        })
    }

    /// Sets the debounce window.
    pub fn with_quiet(mut self, quiet: Duration) -> Self {
        self.quiet = quiet;
        self
    }

    fn relevant(&self, path: &Path) -> bool {
        if let Some(only) = &self.only {
            return path.file_name() == Some(only.as_os_str());
        }
        let rel = path.strip_prefix(&self.root).unwrap_or(path);
        // Sources always have an extension; tools' scratch files often have none (`sed -i`
        // writes `sedXXXXXX`, vim probes with `4913`). Folders have none either, so keep them.
        if path.extension().is_none() && !path.is_dir() {
            return false;
        }
        !rel.components().any(|c| {
            let s = c.as_os_str().to_string_lossy();
            s.starts_with('.')
                || s == "build"
                || s == "target"
                || s.ends_with('~')
                || s.ends_with(".tmp")
                || s.ends_with(".swp")
        })
    }

    fn relevant_paths(&self, event: notify::Result<notify::Event>) -> Vec<PathBuf> {
        match event {
            Ok(e)
                if matches!(
                    e.kind,
                    EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_)
                ) =>
            {
                e.paths.into_iter().filter(|p| self.relevant(p)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Waits until a relevant change has settled, or until `deadline` passes with none.
    pub fn wait_until(&mut self, deadline: Instant) -> Option<Change> {
        let mut paths = Vec::new();
        // Wait for the first relevant event.
        while paths.is_empty() {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(event) => paths = self.relevant_paths(event),
                Err(RecvTimeoutError::Timeout) | Err(RecvTimeoutError::Disconnected) => {
                    return None;
                }
            }
        }
        // Then until the files have been quiet for a while.
        while let Ok(event) = self.events.recv_timeout(self.quiet) {
            paths.extend(self.relevant_paths(event));
        }
        paths.sort();
        paths.dedup();
        Some(Change { paths })
    }

    /// Returns a settled change if one is pending, without blocking.
    pub fn poll(&mut self) -> Option<Change> {
        self.wait_until(Instant::now())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn sees_in_place_writes_renames_and_files_that_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.machine.ron");
        std::fs::write(&file, "one").unwrap();
        let mut w = FileWatcher::new(dir.path()).unwrap();
        std::fs::write(&file, "two").unwrap();
        let c = w.wait_until(soon()).expect("in-place write seen");
        assert!(
            c.paths.iter().any(|p| p.ends_with("a.machine.ron")),
            "{c:?}"
        );
        // Save by rename-and-replace, as many editors do (and as our own atomic writes do).
        crate::fs::write_atomic(&file, b"three").unwrap();
        let c = w.wait_until(soon()).expect("rename seen");
        assert!(
            c.paths.iter().any(|p| p.ends_with("a.machine.ron")),
            "{c:?}"
        );
        assert!(
            !c.paths
                .iter()
                .any(|p| p.to_string_lossy().contains(".ensemble-")),
            "temp files are ignored: {c:?}"
        );
        // Vanish and come back.
        std::fs::remove_file(&file).unwrap();
        let _ = w.wait_until(soon());
        std::fs::write(&file, "four").unwrap();
        assert!(w.wait_until(soon()).is_some());
    }

    #[test]
    fn a_burst_of_writes_is_one_change() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.scene.ron");
        std::fs::write(&file, "").unwrap();
        let mut w = FileWatcher::new(dir.path())
            .unwrap()
            .with_quiet(Duration::from_millis(100));
        for i in 0..5 {
            std::fs::write(&file, format!("part {i}")).unwrap();
        }
        assert!(w.wait_until(soon()).is_some());
        assert!(
            w.wait_until(Instant::now() + Duration::from_millis(200))
                .is_none()
        );
    }

    #[test]
    fn build_output_and_other_files_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("build")).unwrap();
        let mut w = FileWatcher::new(dir.path()).unwrap();
        std::fs::write(dir.path().join("build/x.ensb"), "x").unwrap();
        std::fs::write(dir.path().join(".hidden"), "x").unwrap();
        // Scratch files without an extension (`sed -i`, vim's write probe).
        std::fs::write(dir.path().join("sedAb12Cd"), "x").unwrap();
        std::fs::write(dir.path().join("4913"), "x").unwrap();
        assert!(
            w.wait_until(Instant::now() + Duration::from_millis(300))
                .is_none()
        );
        // Watching one file ignores its neighbours.
        let target = dir.path().join("p.ensb");
        std::fs::write(&target, "x").unwrap();
        let mut one = FileWatcher::new(&target).unwrap();
        std::fs::write(dir.path().join("other.ensb"), "y").unwrap();
        assert!(
            one.wait_until(Instant::now() + Duration::from_millis(300))
                .is_none()
        );
        std::fs::write(&target, "z").unwrap();
        assert!(one.wait_until(soon()).is_some());
    }
}
