//! Atomic file writes: a reader never sees a half-written file and a failed write never
//! destroys the previous version.

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` by writing a temporary file in the same directory, syncing it and
/// renaming it over the destination. Rename within one directory is atomic on the platforms we
/// ship on, so `path` holds either the old or the new content, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".ensemble-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_content_and_leaves_no_temp_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write_atomic(&path, b"first").unwrap();
        write_atomic(&path, b"second").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"second");
        let entries: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(entries.len(), 1, "temporary files must not be left behind");
    }

    #[test]
    fn failing_write_keeps_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write_atomic(&path, b"keep me").unwrap();
        // Writing into a missing directory fails before anything touches `path`.
        let bad = dir.path().join("missing").join("out.bin");
        assert!(write_atomic(&bad, b"x").is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"keep me");
    }
}
