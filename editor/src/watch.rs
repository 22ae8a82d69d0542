//! Noticing edits made outside the editor. Polling modification times once a second is cheap
//! for a project's handful of files and needs no platform watcher thread. Folders are watched
//! too, because adding, removing or renaming a file changes its folder's time.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

pub struct SourceWatch {
    stamps: Vec<(PathBuf, Option<SystemTime>)>,
    last_poll: Instant,
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl SourceWatch {
    /// Remembers the current times of `paths` (files or folders; missing ones too, so their
    /// appearance counts as a change).
    pub fn new(paths: impl IntoIterator<Item = PathBuf>) -> Self {
        let mut paths: Vec<PathBuf> = paths.into_iter().collect();
        paths.sort();
        paths.dedup();
        let stamps = paths.into_iter().map(|p| {
            let stamp = modified(&p);
            (p, stamp)
        });
        let stamps = stamps.collect();
        SourceWatch {
            stamps,
            last_poll: Instant::now(),
        }
    }

    /// Whether anything changed since the last look; looks at most once per [`POLL_INTERVAL`].
    pub fn poll(&mut self) -> bool {
        if self.last_poll.elapsed() < POLL_INTERVAL {
            return false;
        }
        self.last_poll = Instant::now();
        self.stamps
            .iter()
            .any(|(path, stamp)| modified(path) != *stamp)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_is_noticed_after_the_interval() {
        let dir =
            std::env::temp_dir().join(format!("ensemble-editor-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.machine.ron");
        std::fs::write(&file, "1").unwrap();
        let mut watch = SourceWatch::new([file.clone(), dir.clone()]);
        assert!(!watch.poll(), "too early to look");
        watch.last_poll -= POLL_INTERVAL;
        assert!(!watch.poll(), "nothing changed");
        let later = SystemTime::now() + Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(later)
            .unwrap();
        watch.last_poll -= POLL_INTERVAL;
        assert!(watch.poll());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
