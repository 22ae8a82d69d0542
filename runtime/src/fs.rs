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
fn temporary_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".ensemble-").suffix(".tmp");
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
