//! The binary container shared by `.ensb` and `.ensdbg` files and savegame snapshots.
//!
//! Layout (little-endian):
//! ```text
//! 0..8    magic: 0x89 'E' 'N' 'S' <kind> '\r' '\n' 0x1a
//! 8..10   format version (u16) of the kind: programs and debug symbols share one, snapshots
//!         have their own ([`SNAPSHOT_VERSION`]); the container owns every kind's version
//! 10..12  reserved, zero
//! 12..20  payload length (u64)
//! 20..24  CRC-32 of the payload
//! 24..    payload (postcard)
//! ```
//! The high byte and the CR LF / ^Z in the magic catch files mangled by text-mode transfers,
//! the same trick PNG uses. The checksum catches truncation and flipped bits before the payload
//! decoder ever sees the bytes.

use thiserror::Error;

/// Bumped whenever the payload layout changes; the loader refuses every other version.
/// 4: the planning section; 5: the navigation section; 6: the parameter section
/// (docs/formats/program.md); 7: the string section (line ids and translations); 8: lines of
/// conversation output (HMM actions, templates and concept values) and translated templates;
/// 9: the game-state section (declared events and stand-ins of the game's own states); 10: the
/// project's name (a hot reload from another project is refused); 11: the project's migrations
/// (the last field: version 10 is still read, with none, so `check --against` and a game's
/// restore take the build that shipped before them); 12: the file each game state is declared
/// in and the slot values translators translate (the two last fields: versions 10 and 11 are
/// still read, without them); 13: conversation tallies (the last field: versions 10 to 12 are
/// still read, with none); 14: the tracker rule `MentionThirdLast` (a new last variant:
/// versions 10 to 13 are read as they are, since none of them holds it); 16: the tracker rule
/// `MentionAfter` (likewise a new last variant: versions 10 to 14 are read as they are). 15 was
/// never written: one flipped bit turns 15 into 14, whose payload reads the same, so the
/// corruption would go unnoticed; no bit of 16 flips into a version still read.
pub const FORMAT_VERSION: u16 = 16;
/// A program version no build ever wrote (see [`FORMAT_VERSION`]): refused like an unknown one.
const NEVER_WRITTEN: u16 = 15;
/// The earliest program (and debug-symbol) version still read: each later version only added
/// a last field, read from an earlier one as empty.
pub(crate) const EARLIEST_PROGRAM_VERSION: u16 = 10;
/// The savegame snapshot format's version (`crate::snapshot` re-exports it): bumped whenever the
/// snapshot layout changes (the payload's or a runtime section's); any other version is refused.
/// 1: the first.
pub const SNAPSHOT_VERSION: u16 = 1;
pub(crate) const HEADER_LEN: usize = 24;

/// Which kind of file a container holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `.ensb`: a program.
    Program,
    /// `.ensdbg`: debug symbols for a program.
    Debug,
    /// A savegame: a running scene's snapshot (`crate::snapshot`).
    Snapshot,
}

impl Kind {
    fn tag(self) -> u8 {
        match self {
            Kind::Program => b'B',
            Kind::Debug => b'D',
            Kind::Snapshot => b'S',
        }
    }

    /// The format version this runtime writes and reads for the kind.
    pub(crate) fn version(self) -> u16 {
        match self {
            Kind::Program | Kind::Debug => FORMAT_VERSION,
            Kind::Snapshot => SNAPSHOT_VERSION,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Kind::Program => "an Ensemble program (.ensb)",
            Kind::Debug => "Ensemble debug symbols (.ensdbg)",
            Kind::Snapshot => "an Ensemble snapshot (a savegame)",
        }
    }
}

/// Why a program or debug file was refused. Every variant says what is wrong in words a build
/// engineer can act on.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LoadError {
    /// The file could not be read (the operating system's message).
    #[error("cannot read the file: {0}")]
    Io(String),
    /// The file has no bytes at all.
    #[error("the file is empty")]
    Empty,
    /// The file does not start with the Ensemble magic bytes: it is something else, or was
    /// mangled by a text-mode transfer. `expected` describes the kind of file asked for.
    #[error("the file is not {expected}: it does not start with the Ensemble magic bytes")]
    BadMagic {
        /// The kind of file asked for, in words.
        expected: &'static str,
    },
    /// The file is an Ensemble file of the other kind (debug symbols where a program was
    /// expected, or the reverse).
    #[error("the file is {found} but {expected} was expected")]
    WrongKind {
        /// What the caller asked for.
        expected: &'static str,
        /// What the file is.
        found: &'static str,
    },
    /// The file was written for another format version: `found` in the header, `supported`
    /// ([`FORMAT_VERSION`]) by this runtime.
    #[error(
        "format version {found} is not supported (this runtime reads version {supported}); rebuild the project with a matching `ensemble build`"
    )]
    UnsupportedVersion {
        /// The version in the header.
        found: u16,
        /// The version this runtime reads.
        supported: u16,
    },
    /// The file is shorter than its header says (cut off in transfer or while being written):
    /// `expected` payload bytes promised, `actual` present.
    #[error(
        "the file is truncated: the header promises {expected} bytes of payload but {actual} are present"
    )]
    Truncated {
        /// Payload bytes the header promises.
        expected: u64,
        /// Payload bytes present.
        actual: u64,
    },
    /// The file is longer than its header says, by `extra` bytes.
    #[error("the file has {extra} unexpected bytes after its payload")]
    TrailingBytes {
        /// How many bytes follow the payload.
        extra: u64,
    },
    /// The payload's CRC-32 does not match the header's: the file is corrupt. `stored` is the
    /// header's checksum, `computed` the payload's.
    #[error(
        "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the file is corrupt"
    )]
    ChecksumMismatch {
        /// The header's CRC-32.
        stored: u32,
        /// The payload's CRC-32 as read.
        computed: u32,
    },
    /// A header byte that is reserved (and written zero) is not zero: the file was written by
    /// something else, or corrupted where the checksum does not reach.
    #[error(
        "header byte {offset} is reserved and must be zero, but is {value:#04x}: the file was not written by Ensemble or is corrupt"
    )]
    ReservedNotZero {
        /// The byte's offset in the file.
        offset: usize,
        /// What it holds.
        value: u8,
    },
    /// Debug symbols that describe another build of the program than the one loaded beside
    /// them (a build interrupted between writing the `.ensb` and the `.ensdbg`, or files
    /// copied from different builds).
    #[error(
        "the debug symbols are stale: they describe the program with checksum {symbols:#010x}, but the program's is {program:#010x}; rebuild to refresh them"
    )]
    StaleDebugSymbols {
        /// The checksum recorded in the symbols.
        symbols: u32,
        /// The loaded program's.
        program: u32,
    },
    /// The payload passed the checksum but is not a valid encoding (written by a mismatched
    /// build).
    #[error("the payload cannot be decoded: {0}")]
    Decode(String),
    /// The payload decoded but its tables do not fit together (the message says where).
    #[error("the program is inconsistent: {0}")]
    Invalid(String),
}

pub(crate) fn wrap(kind: Kind, payload: &[u8]) -> Vec<u8> {
    let mut out = header(kind, payload.len() as u64, crc32fast::hash(payload));
    out.extend_from_slice(payload);
    out
}

/// The header of a container whose payload has `len` bytes and checksum `crc`.
pub(crate) fn header(kind: Kind, len: u64, crc: u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN);
    out.extend_from_slice(&[0x89, b'E', b'N', b'S', kind.tag(), b'\r', b'\n', 0x1a]);
    out.extend_from_slice(&kind.version().to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// The stored payload checksum of a container produced by [`wrap`].
pub(crate) fn payload_checksum(container: &[u8]) -> u32 {
    u32::from_le_bytes(container[20..24].try_into().expect("4 bytes"))
}

pub(crate) fn unwrap(kind: Kind, bytes: &[u8]) -> Result<&[u8], LoadError> {
    let (version, payload) = unwrap_versioned(kind, bytes)?;
    // Debug symbols did not change with version 11: read as they are.
    if version != kind.version() && kind != Kind::Debug {
        return Err(LoadError::UnsupportedVersion {
            found: version,
            supported: kind.version(),
        });
    }
    Ok(payload)
}

/// [`unwrap`], also taking a program or debug symbols of an earlier version still read
/// (from [`EARLIEST_PROGRAM_VERSION`]); returns the version with the payload.
pub(crate) fn unwrap_versioned(kind: Kind, bytes: &[u8]) -> Result<(u16, &[u8]), LoadError> {
    if bytes.is_empty() {
        return Err(LoadError::Empty);
    }
    // The kind byte (4) is checked separately so a program/debug mix-up gets its own message.
    let magic_ok = bytes.len() >= 8
        && bytes[0] == 0x89
        && &bytes[1..4] == b"ENS"
        && &bytes[5..8] == b"\r\n\x1a";
    if !magic_ok {
        return Err(LoadError::BadMagic {
            expected: kind.describe(),
        });
    }
    if bytes[4] != kind.tag() {
        let found = match bytes[4] {
            b'B' => Kind::Program.describe(),
            b'D' => Kind::Debug.describe(),
            b'S' => Kind::Snapshot.describe(),
            _ => "an unknown kind of Ensemble file",
        };
        return Err(LoadError::WrongKind {
            expected: kind.describe(),
            found,
        });
    }
    if bytes.len() < HEADER_LEN {
        return Err(LoadError::Truncated {
            expected: HEADER_LEN as u64,
            actual: bytes.len() as u64,
        });
    }
    let version = u16::from_le_bytes([bytes[8], bytes[9]]);
    let earlier = kind != Kind::Snapshot
        && (EARLIEST_PROGRAM_VERSION..FORMAT_VERSION).contains(&version)
        && version != NEVER_WRITTEN;
    if version != kind.version() && !earlier {
        return Err(LoadError::UnsupportedVersion {
            found: version,
            supported: kind.version(),
        });
    }
    if let Some(offset) = (10..12).find(|&i| bytes[i] != 0) {
        return Err(LoadError::ReservedNotZero {
            offset,
            value: bytes[offset],
        });
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().expect("8 bytes"));
    let actual = (bytes.len() - HEADER_LEN) as u64;
    if actual < len {
        return Err(LoadError::Truncated {
            expected: len,
            actual,
        });
    }
    if actual > len {
        return Err(LoadError::TrailingBytes {
            extra: actual - len,
        });
    }
    let payload = &bytes[HEADER_LEN..];
    let stored = payload_checksum(bytes);
    let computed = crc32fast::hash(payload);
    if stored != computed {
        return Err(LoadError::ChecksumMismatch { stored, computed });
    }
    Ok((version, payload))
}
