//! Savegames: a running scene saved to bytes and restored from them.
//!
//! A snapshot is a container like a program's (`program::container`: magic, format version,
//! length, CRC-32), kind `S`, whose payload names the program it was taken from and holds
//! named **sections**. Each part of a running game saves its own section, so the parts stay
//! independent of each other:
//! - the scene ([`crate::hsm::Scene::save`], section [`SCENE_SECTION`]): every agent's machine
//!   stack with each state's own data ([`crate::hsm::StateCode::save`]), pending messages,
//!   random streams, the clock and tick count, run-time names;
//! - the world the state code acts on (the game's, or the simulated world), the smart
//!   locations' orchestration, a game's own systems: sections they name themselves, written
//!   with [`SnapshotWriter::put`] and read with [`SnapshotReader::get`].
//!
//! Everything in a snapshot refers to the program by name, never by id, so a snapshot restores
//! onto a rebuilt program the way hot reload carries state: by name, reporting what it could
//! not carry ([`crate::hsm::RestoreReport`]).
//!
//! Reading never panics: a corrupt, truncated, foreign (a program, random bytes) or
//! future-version snapshot is a [`SnapshotError`] that says what is wrong.
//!
//! A game's own section beside the scene's (`Scene::save` puts [`SCENE_SECTION`] the same way):
//!
//! ```
//! use ensemble_runtime::Program;
//! use ensemble_runtime::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
//!
//! let program = Program::new(vec![], vec![], vec![], vec![], vec![], vec![], vec![])?;
//! let mut w = SnapshotWriter::new(&program, "my-game");
//! w.put("game.inventory", &vec![("gold".to_string(), 3u32)]);
//! let bytes = w.to_bytes();
//!
//! let r = SnapshotReader::from_bytes(&bytes)?;
//! assert!(r.check_program(&program, "my-game")?); // the very build it was taken from
//! let inventory: Vec<(String, u32)> = r.get("game.inventory")?;
//! assert_eq!(inventory, [("gold".to_string(), 3)]);
//! // Truncated, it is refused with a message, never a panic.
//! let e = SnapshotReader::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
//! assert!(e.to_string().starts_with("the snapshot is truncated"));
//! # Ok::<(), SnapshotError>(())
//! ```
//!
//! Layout of the payload (postcard): the program's stamp (name and checksum), then the
//! sections as `(name, bytes)` pairs, each section's bytes encoded by whoever wrote it
//! (postcard through [`encode`] for the runtime's own). Documented in
//! docs/formats/snapshot.md.

use crate::program::container::{self, Kind};
use crate::program::{LoadError, Program};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::Path;
use thiserror::Error;

/// The snapshot format's version, which the container owns with every kind's.
pub use crate::program::container::SNAPSHOT_VERSION;

/// The section the scene of state machines saves into.
pub const SCENE_SECTION: &str = "scene";
/// The scene's roster: the ids of its own agents in the order the program lists them
/// (`crate::hsm::Scene::roster`), which a restore onto a patched program matches by name.
/// Absent from snapshots written before it.
pub const ROSTER_SECTION: &str = "scene.roster";

/// Which program a snapshot was taken from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramStamp {
    /// The program's name as its host knows it (the project's name).
    pub name: String,
    /// [`Program::checksum`] of the program: equal means the very same build.
    pub checksum: u32,
}

impl ProgramStamp {
    /// The stamp of `program`, known to its host as `name`.
    pub fn of(program: &Program, name: &str) -> Self {
        ProgramStamp {
            name: name.to_string(),
            checksum: program.checksum(),
        }
    }
}

/// Why a snapshot was refused. Every variant says what is wrong in words a player's bug
/// report or a developer can act on.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum SnapshotError {
    /// The file could not be read (the I/O error's message).
    #[error("cannot read the snapshot: {0}")]
    Io(String),
    /// The file has no bytes.
    #[error("the snapshot is empty")]
    Empty,
    /// The bytes do not start with the container's magic.
    #[error("this is not an Ensemble snapshot: it does not start with the Ensemble magic bytes")]
    NotASnapshot,
    #[error("this is {found}, not a snapshot")]
    /// An Ensemble container of another kind (a program, say).
    WrongKind {
        /// What the container holds, in words.
        found: &'static str,
    },
    /// Written in another snapshot format version, older or newer.
    #[error(
        "snapshot format version {found} is not supported (this runtime reads version {supported}){}",
        if found > supported { "; it was written by a newer runtime" } else { "; it was written by an older runtime" }
    )]
    UnsupportedVersion {
        /// The version the snapshot was written in.
        found: u16,
        /// The version this runtime reads.
        supported: u16,
    },
    /// Shorter than its header says (an interrupted write).
    #[error(
        "the snapshot is truncated: the header promises {expected} bytes of payload but {actual} are present"
    )]
    Truncated {
        /// Payload bytes the header promises.
        expected: u64,
        /// Payload bytes present.
        actual: u64,
    },
    #[error("the snapshot has {extra} unexpected bytes after its payload")]
    /// Bytes follow the payload.
    TrailingBytes {
        /// How many.
        extra: u64,
    },
    /// The payload's checksum differs from the header's: the file is corrupt.
    #[error(
        "checksum mismatch (stored {stored:#010x}, computed {computed:#010x}): the snapshot is corrupt"
    )]
    ChecksumMismatch {
        /// The CRC-32 in the header.
        stored: u32,
        /// The CRC-32 of the payload as read.
        computed: u32,
    },
    /// The payload's list of sections cannot be decoded.
    #[error("the snapshot cannot be decoded: {0}")]
    Decode(String),
    #[error("section `{section}` of the snapshot cannot be decoded: {message}")]
    /// One section cannot be decoded.
    BadSection {
        /// The section's name.
        section: String,
        /// The decoder's message.
        message: String,
    },
    /// A section the reader needs (named here) is absent.
    #[error("the snapshot has no `{0}` section")]
    MissingSection(String),
    /// A section name (given here) appears twice.
    #[error("the snapshot has two `{0}` sections")]
    DuplicateSection(String),
    #[error("the snapshot was taken from program `{snapshot}`, not `{running}`")]
    /// Taken from another program than the one running.
    WrongProgram {
        /// The program the snapshot names.
        snapshot: String,
        /// The program running.
        running: String,
    },
    #[error("the snapshot was taken in scene `{snapshot}`, not `{asked}`")]
    /// Taken in another scene than the one asked for.
    WrongScene {
        /// The scene the snapshot names.
        snapshot: String,
        /// The scene asked for.
        asked: String,
    },
    /// The snapshot holds something this runtime cannot restore (said why).
    #[error("the snapshot cannot be restored: {0}")]
    Unsupported(String),
    /// The sections decode but contradict each other or the program (said how).
    #[error("the snapshot is inconsistent: {0}")]
    Invalid(String),
    /// The program does not link against the game's state library (the link error).
    #[error("the program cannot run: {0}")]
    Link(String),
}

impl From<LoadError> for SnapshotError {
    fn from(e: LoadError) -> Self {
        match e {
            LoadError::Io(m) => SnapshotError::Io(m),
            LoadError::Empty => SnapshotError::Empty,
            LoadError::BadMagic { .. } => SnapshotError::NotASnapshot,
            LoadError::WrongKind { found, .. } => SnapshotError::WrongKind { found },
            LoadError::UnsupportedVersion { found, supported } => {
                SnapshotError::UnsupportedVersion { found, supported }
            }
            LoadError::Truncated { expected, actual } => {
                SnapshotError::Truncated { expected, actual }
            }
            LoadError::TrailingBytes { extra } => SnapshotError::TrailingBytes { extra },
            LoadError::ChecksumMismatch { stored, computed } => {
                SnapshotError::ChecksumMismatch { stored, computed }
            }
            LoadError::Decode(m) => SnapshotError::Decode(m),
            e @ (LoadError::ReservedNotZero { .. } | LoadError::StaleDebugSymbols { .. }) => {
                SnapshotError::Invalid(e.to_string())
            }
            LoadError::Invalid(m) => SnapshotError::Invalid(m),
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Section {
    name: String,
    #[serde(with = "byte_buf")]
    bytes: Vec<u8>,
}

/// A `Vec<u8>` as one byte string rather than a sequence of bytes: the same bytes in postcard
/// (length, then the bytes), copied at once instead of one serde call per byte.
pub(crate) mod byte_buf {
    use serde::de::{Error, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(bytes)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        struct Bytes;
        impl<'de> Visitor<'de> for Bytes {
            type Value = Vec<u8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("bytes")
            }
            fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
                Ok(v.to_vec())
            }
            fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
                Ok(v)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
                let mut out = Vec::new();
                while let Some(b) = seq.next_element()? {
                    out.push(b);
                }
                Ok(out)
            }
        }
        d.deserialize_byte_buf(Bytes)
    }
}

#[derive(Serialize, Deserialize)]
struct Payload {
    program: ProgramStamp,
    sections: Vec<Section>,
}

/// Encodes a section's (or a state's) value with the runtime's encoding (postcard).
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Vec<u8> {
    postcard::to_allocvec(value).expect("serialising into memory cannot fail")
}

/// Decodes what [`encode`] wrote; bytes left over are an error (a value of another shape).
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    match postcard::take_from_bytes(bytes) {
        Ok((value, [])) => Ok(value),
        Ok((_, rest)) => Err(format!("{} bytes left over after the value", rest.len())),
        Err(e) => Err(e.to_string()),
    }
}

/// Assembles a snapshot: each part of the game puts its section, then [`SnapshotWriter::to_bytes`]
/// or [`SnapshotWriter::save`] writes it.
pub struct SnapshotWriter {
    payload: Payload,
}

impl SnapshotWriter {
    /// A snapshot of a scene running `program`, which its host calls `name`.
    pub fn new(program: &Program, name: &str) -> Self {
        SnapshotWriter {
            payload: Payload {
                program: ProgramStamp::of(program, name),
                sections: Vec::new(),
            },
        }
    }

    /// Puts a section encoded by [`encode`] (replacing one of the same name).
    pub fn put<T: Serialize + ?Sized>(&mut self, section: &str, value: &T) {
        self.put_bytes(section, encode(value));
    }

    /// Puts every section of `other` in, in its order (replacing those of the same names):
    /// a part that may refuse writes into a writer of its own, put in only when it did not.
    pub fn extend(&mut self, other: SnapshotWriter) {
        for section in other.payload.sections {
            self.put_bytes(&section.name, section.bytes);
        }
    }

    /// Puts a section in the writer's own encoding (replacing one of the same name).
    pub fn put_bytes(&mut self, section: &str, bytes: Vec<u8>) {
        let sections = &mut self.payload.sections;
        match sections.iter_mut().find(|s| s.name == section) {
            Some(s) => s.bytes = bytes,
            None => sections.push(Section {
                name: section.to_string(),
                bytes,
            }),
        }
    }

    /// The snapshot's bytes: header, checksum, payload.
    pub fn to_bytes(&self) -> Vec<u8> {
        container::wrap(Kind::Snapshot, &encode(&self.payload))
    }

    /// Writes the snapshot atomically (temporary file and rename, as `.ensb` files are):
    /// `path` holds the old snapshot or the new one, never half of one. Returns its size.
    pub fn save(&self, path: &Path) -> std::io::Result<u64> {
        let bytes = self.to_bytes();
        crate::fs::write_atomic(path, &bytes)?;
        Ok(bytes.len() as u64)
    }
}

/// A snapshot read and checked (header, version, checksum, sections), ready for each part to
/// restore its section.
#[derive(Debug)]
pub struct SnapshotReader {
    program: ProgramStamp,
    sections: Vec<(String, Vec<u8>)>,
}

impl SnapshotReader {
    /// Parses a snapshot's bytes. Never panics on any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, SnapshotError> {
        let payload = container::unwrap(Kind::Snapshot, bytes)?;
        let payload: Payload = decode(payload).map_err(SnapshotError::Decode)?;
        let mut sections: Vec<(String, Vec<u8>)> = Vec::with_capacity(payload.sections.len());
        for s in payload.sections {
            if sections.iter().any(|(n, _)| *n == s.name) {
                return Err(SnapshotError::DuplicateSection(s.name));
            }
            sections.push((s.name, s.bytes));
        }
        Ok(SnapshotReader {
            program: payload.program,
            sections,
        })
    }

    /// Reads a snapshot file.
    pub fn load(path: &Path) -> Result<Self, SnapshotError> {
        let bytes = std::fs::read(path).map_err(|e| SnapshotError::Io(e.to_string()))?;
        Self::from_bytes(&bytes)
    }

    /// The program the snapshot was taken from.
    pub fn program(&self) -> &ProgramStamp {
        &self.program
    }

    /// Checks that the snapshot belongs to the program its host calls `name`: `Ok(true)` when
    /// it is the very build it was taken from, `Ok(false)` when it was rebuilt since (restoring
    /// maps by name), an error when it is another program.
    pub fn check_program(&self, program: &Program, name: &str) -> Result<bool, SnapshotError> {
        if self.program.name != name {
            return Err(SnapshotError::WrongProgram {
                snapshot: self.program.name.clone(),
                running: name.to_string(),
            });
        }
        Ok(program.checksum() == self.program.checksum)
    }

    /// The names of the sections, in the order they were written.
    pub fn sections(&self) -> impl Iterator<Item = &str> + '_ {
        self.sections.iter().map(|(n, _)| n.as_str())
    }

    /// Whether the snapshot has a section called `section`.
    pub fn has(&self, section: &str) -> bool {
        self.bytes(section).is_some()
    }

    /// A section's bytes, as its writer encoded them.
    pub fn bytes(&self, section: &str) -> Option<&[u8]> {
        self.sections
            .iter()
            .find(|(n, _)| n == section)
            .map(|(_, b)| b.as_slice())
    }

    /// Decodes a section written by [`SnapshotWriter::put`].
    pub fn get<T: DeserializeOwned>(&self, section: &str) -> Result<T, SnapshotError> {
        let bytes = self
            .bytes(section)
            .ok_or_else(|| SnapshotError::MissingSection(section.to_string()))?;
        decode(bytes).map_err(|message| SnapshotError::BadSection {
            section: section.to_string(),
            message,
        })
    }
}

#[cfg(test)]
mod tests;
