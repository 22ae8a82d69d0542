//! Atomic file writes: a reader never sees a half-written file and a failed write never
//! destroys the previous version.

use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

/// Writes `bytes` to `path` by writing a temporary file in the same directory, syncing it and
/// renaming it over the destination. Rename within one directory is atomic on the platforms we
/// ship on, so `path` holds either the old or the new content, never a mix.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut tmp = temporary_beside(path)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes a file made of a fixed-size header and a payload, atomically, without holding the
/// payload in memory: `payload` writes it through a writer that counts and checksums
/// (CRC-32) what passes, then the header made by `header(length, crc)` is written in front.
/// Large programs and navigation data are streamed this way, so writing them costs no second
/// copy of the data.
pub fn write_atomic_framed(
    path: &Path,
    header_len: usize,
    header: impl FnOnce(u64, u32) -> Vec<u8>,
    payload: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut tmp = temporary_beside(path)?;
    let file = tmp.as_file_mut();
    file.write_all(&vec![0; header_len])?;
    let mut sink = Checksummed::new(std::io::BufWriter::with_capacity(1 << 16, &mut *file));
    payload(&mut sink)?;
    let (len, crc) = (sink.len, sink.crc.clone().finalize());
    sink.inner.flush()?;
    drop(sink);
    let head = header(len, crc);
    if head.len() != header_len {
        return Err(std::io::Error::other("the header has the wrong length"));
    }
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&head)?;
    file.sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A temporary file in `path`'s directory (rename is atomic only within one file system). It
/// gets the permissions a plain `File::create` would give (0666 less the umask), or those of
/// the file it replaces: tempfile's private 0600 would otherwise survive the rename and leave
/// build outputs unreadable to everyone else.
///
/// Its name, `.ensemble-PID-XXXXXX.tmp`, carries the writer's process id. A writer killed
/// before the rename (`kill -9`, power loss) cannot remove its own temporary file, so every
/// write first removes the ones in its directory whose writer is gone ([`remove_stale_temporaries`]).
pub fn temporary_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    remove_stale_temporaries(dir);
    let mut builder = tempfile::Builder::new();
    let prefix = format!("{TEMPORARY_PREFIX}{}-", std::process::id());
    builder.prefix(&prefix).suffix(TEMPORARY_SUFFIX);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let tmp = builder.tempfile_in(dir)?;
    if let Ok(old) = std::fs::metadata(path) {
        tmp.as_file().set_permissions(old.permissions())?;
    }
    Ok(tmp)
}

const TEMPORARY_PREFIX: &str = ".ensemble-";
const TEMPORARY_SUFFIX: &str = ".tmp";

/// How old a temporary file without a readable process id (or on a system where liveness
/// cannot be told) must be before it counts as abandoned: no write takes a day.
const ABANDONED_AFTER: std::time::Duration = std::time::Duration::from_secs(24 * 60 * 60);

/// Removes the temporary files of our own naming in `dir` whose writer has died. A file is
/// stale when the process named in it no longer runs (Linux: no `/proc/PID`); a running
/// writer's file, ours or another process's, is never touched, so concurrent builds into one
/// folder stay safe. Failures are ignored: cleaning up is a courtesy, not part of the write.
pub fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let proc_available = Path::new("/proc/self").exists();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(middle) = name
            .strip_prefix(TEMPORARY_PREFIX)
            .and_then(|n| n.strip_suffix(TEMPORARY_SUFFIX))
        else {
            continue;
        };
        let pid = middle
            .split_once('-')
            .and_then(|(pid, _)| pid.parse::<u32>().ok());
        let abandoned = match pid {
            Some(pid) if pid == std::process::id() => false,
            Some(pid) if proc_available => !Path::new("/proc").join(pid.to_string()).exists(),
            // An older naming without a process id, or no /proc: judge by age.
            _ => entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > ABANDONED_AFTER),
        };
        if abandoned {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A writer that counts and checksums the bytes passing through it.
pub struct Checksummed<W> {
    /// The writer the bytes go on to.
    pub inner: W,
    /// Bytes written so far.
    pub len: u64,
    /// CRC-32 of the bytes written so far (clone it to finalise mid-stream).
    pub crc: crc32fast::Hasher,
}

impl<W> Checksummed<W> {
    /// Starts counting at zero bytes and the empty checksum.
    pub fn new(inner: W) -> Self {
        Checksummed {
            inner,
            len: 0,
            crc: crc32fast::Hasher::new(),
        }
    }
}

impl<W: Write> Write for Checksummed<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.crc.update(&buf[..n]);
        self.len += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
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
    fn framed_writes_put_length_and_checksum_in_front() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("framed.bin");
        write_atomic_framed(
            &path,
            12,
            |len, crc| [&len.to_le_bytes()[..], &crc.to_le_bytes()].concat(),
            |w| w.write_all(b"payload"),
        )
        .unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(&bytes[12..], b"payload");
        assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), 7);
        assert_eq!(
            u32::from_le_bytes(bytes[8..12].try_into().unwrap()),
            crc32fast::hash(b"payload")
        );
        // A failing payload leaves the old file and no temporary behind.
        let err = write_atomic_framed(
            &path,
            12,
            |_, _| vec![0; 12],
            |_| Err(std::io::Error::other("boom")),
        );
        assert!(err.is_err());
        assert_eq!(std::fs::read(&path).unwrap(), bytes);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
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

    #[test]
    fn temporaries_of_dead_writers_are_removed_by_the_next_write() {
        let dir = tempfile::tempdir().unwrap();
        // A writer killed before its rename: no process has this id (beyond Linux's pid_max).
        let dead = dir.path().join(".ensemble-4294967294-abc123.tmp");
        std::fs::write(&dead, b"half").unwrap();
        // A live writer's file (this process) and files of other naming are left alone.
        let live = dir
            .path()
            .join(format!(".ensemble-{}-xyz789.tmp", std::process::id()));
        std::fs::write(&live, b"busy").unwrap();
        let other = dir.path().join(".other-1-a.tmp");
        std::fs::write(&other, b"not ours").unwrap();
        write_atomic(&dir.path().join("out.bin"), b"x").unwrap();
        if Path::new("/proc/self").exists() {
            assert!(
                !dead.exists(),
                "the dead writer's temporary file is removed"
            );
        }
        assert!(live.exists());
        assert!(other.exists());
    }

    #[cfg(unix)]
    #[test]
    fn outputs_get_ordinary_permissions_or_keep_the_replaced_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        // What `File::create` gives under the same umask, not tempfile's private 0600.
        let plain = dir.path().join("plain.bin");
        std::fs::write(&plain, b"x").unwrap();
        let new = dir.path().join("new.bin");
        write_atomic(&new, b"x").unwrap();
        assert_eq!(mode(&new), mode(&plain));
        let framed = dir.path().join("framed.bin");
        write_atomic_framed(&framed, 0, |_, _| Vec::new(), |w| w.write_all(b"x")).unwrap();
        assert_eq!(mode(&framed), mode(&plain));
        // Overwriting keeps the old file's permissions.
        std::fs::set_permissions(&new, std::fs::Permissions::from_mode(0o640)).unwrap();
        write_atomic(&new, b"y").unwrap();
        assert_eq!(mode(&new), 0o640);
    }
}
