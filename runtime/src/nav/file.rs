//! The precomputed navigation file (`.ensnav`), written by `ensemble nav build`.
//!
//! Same container discipline as programs (runtime/src/program/container.rs), little-endian:
//! ```text
//! 0..8    magic: 0x89 'E' 'N' 'S' 'N' '\r' '\n' 0x1a
//! 8..10   format version (u16)
//! 10..12  reserved, zero
//! 12..20  payload length (u64)
//! 20..24  CRC-32 of the payload
//! 24..    payload: postcard-encoded `NavData`
//! ```
//! The loader checks every step, then verifies every index the search follows, so no byte
//! sequence makes it (or a later query) panic.

use super::{NavData, NavError};
use std::path::Path;

/// Bumped whenever the payload layout changes; the loader refuses every other version.
pub const NAV_FORMAT_VERSION: u16 = 2;
/// The first eight bytes of every `.ensnav` file (the same PNG-style trick as `.ensb`).
pub const MAGIC: [u8; 8] = [0x89, b'E', b'N', b'S', b'N', b'\r', b'\n', 0x1a];
const HEADER_LEN: usize = 24;

/// Whether `bytes` start like a navigation file (used to tell one from a map).
pub fn looks_like_nav(bytes: &[u8]) -> bool {
    bytes.starts_with(&MAGIC)
}

fn header(len: u64, crc: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN);
    out.extend_from_slice(&MAGIC);
    out.extend_from_slice(&NAV_FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

impl NavData {
    /// The whole `.ensnav` file in memory: header, checksum, payload.
    pub fn to_bytes(&self) -> Result<Vec<u8>, NavError> {
        let payload = postcard::to_stdvec(self).map_err(|e| NavError::Decode(e.to_string()))?;
        let mut out = header(payload.len() as u64, crc32fast::hash(&payload));
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Parses and verifies an `.ensnav` file's bytes. Never panics: every refusal is a
    /// [`NavError`] that says what is wrong.
    ///
    /// ```
    /// use ensemble_runtime::nav::cost::Metric;
    /// use ensemble_runtime::nav::hierarchy::NO_CLUSTER;
    /// use ensemble_runtime::nav::{Cluster, Graph, Hierarchy, NavData, NavError, Workspace};
    ///
    /// // Two rooms joined by a corridor of cost 3, small enough for one leaf cluster.
    /// let graph = Graph::from_edges(2, Metric::Integer, &[(0, 1, 3)])?;
    /// let leaf = Cluster {
    ///     parent: NO_CLUSTER,
    ///     depth: 0,
    ///     children: vec![],
    ///     members: vec![0, 1],
    ///     child_start: vec![],
    ///     border: vec![],
    ///     table: Default::default(),
    /// };
    /// let hierarchy = Hierarchy::from_parts(2, vec![leaf], vec![0, 0], &[vec![0], vec![1]])?;
    /// let bytes = NavData::new(graph, hierarchy)?.to_bytes()?;
    ///
    /// let nav = NavData::from_bytes(&bytes)?;
    /// let path = nav.find_path(1, 0, &mut Workspace::new(2))?.unwrap();
    /// assert_eq!((path.path, path.cost), (vec![1, 0], 3.0));
    ///
    /// assert_eq!(NavData::from_bytes(b""), Err(NavError::Empty));
    /// assert_eq!(NavData::from_bytes(b"type octile\nheight 1"), Err(NavError::BadMagic));
    /// let cut = NavData::from_bytes(&bytes[..bytes.len() - 2]);
    /// assert!(matches!(cut, Err(NavError::Truncated { .. })));
    /// let mut flipped = bytes.clone();
    /// *flipped.last_mut().unwrap() ^= 0x80;
    /// assert!(matches!(NavData::from_bytes(&flipped), Err(NavError::ChecksumMismatch { .. })));
    /// # Ok::<(), NavError>(())
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> Result<NavData, NavError> {
        if bytes.is_empty() {
            return Err(NavError::Empty);
        }
        if !looks_like_nav(bytes) {
            return Err(NavError::BadMagic);
        }
        if bytes.len() < HEADER_LEN {
            return Err(NavError::Truncated {
                expected: HEADER_LEN as u64,
                actual: bytes.len() as u64,
            });
        }
        let version = u16::from_le_bytes([bytes[8], bytes[9]]);
        if version != NAV_FORMAT_VERSION {
            return Err(NavError::UnsupportedVersion(version));
        }
        if bytes[10..12] != [0, 0] {
            return Err(NavError::Invalid(
                "the reserved header bytes are not zero".into(),
            ));
        }
        let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
        let actual = (bytes.len() - HEADER_LEN) as u64;
        if actual < len {
            return Err(NavError::Truncated {
                expected: len,
                actual,
            });
        }
        if actual > len {
            return Err(NavError::TrailingBytes(actual - len));
        }
        let payload = &bytes[HEADER_LEN..];
        let stored = u32::from_le_bytes(bytes[20..24].try_into().expect("4 bytes"));
        let computed = crc32fast::hash(payload);
        if stored != computed {
            return Err(NavError::ChecksumMismatch { stored, computed });
        }
        let mut data: NavData =
            postcard::from_bytes(payload).map_err(|e| NavError::Decode(e.to_string()))?;
        data.verify()?;
        Ok(data)
    }

    /// Reads and verifies a navigation file.
    pub fn load(path: &Path) -> Result<NavData, NavError> {
        let bytes = std::fs::read(path).map_err(|e| NavError::Io(e.to_string()))?;
        NavData::from_bytes(&bytes)
    }

    /// Writes the file atomically, streaming the payload (no copy of the data in memory).
    /// Returns the file's size.
    pub fn save(&self, path: &Path) -> Result<u64, NavError> {
        crate::fs::write_atomic_framed(path, HEADER_LEN, header, |w| {
            postcard::to_io(self, w)
                .map(|_| ())
                .map_err(std::io::Error::other)
        })
        .map_err(|e| NavError::Io(e.to_string()))?;
        std::fs::metadata(path)
            .map(|m| m.len())
            .map_err(|e| NavError::Io(e.to_string()))
    }
}
