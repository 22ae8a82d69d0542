//! `.ensdbg`: debug symbols beside a program. They map program items back to where they were
//! authored, so the runtime, the trace viewer and the editor can point at source lines. A program
//! runs without them.

use super::container::{self, Kind, LoadError};
use serde::{Deserialize, Serialize};

/// Where an item was authored: a file of [`DebugInfo::files`] and a 1-based line and column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SourceLoc {
    /// Index into [`DebugInfo::files`].
    pub file: u32,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
}

/// The contents of a `.ensdbg` file: source locations of a program's items.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DebugInfo {
    /// Payload checksum of the program these symbols describe.
    pub program_checksum: u32,
    /// Source files, relative to the project root, with `/` separators.
    pub files: Vec<String>,
    /// Parallel to `Program::machines`, `states`, `transitions`.
    pub machines: Vec<Option<SourceLoc>>,
    /// Where each state was authored, parallel to `Program::states`.
    pub states: Vec<Option<SourceLoc>>,
    /// Where each transition was authored, parallel to `Program::transitions`.
    pub transitions: Vec<Option<SourceLoc>>,
}

impl DebugInfo {
    /// Serialises into the `.ensdbg` container.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload = postcard::to_allocvec(self).expect("serialising into memory cannot fail");
        container::wrap(Kind::Debug, &payload)
    }

    /// Parses and checks a `.ensdbg` file's bytes; like
    /// [`Program::from_bytes`](super::Program::from_bytes), never panics on any input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, LoadError> {
        let payload = container::unwrap(Kind::Debug, bytes)?;
        let info: DebugInfo =
            postcard::from_bytes(payload).map_err(|e| LoadError::Decode(e.to_string()))?;
        let files = info.files.len();
        let all = info
            .machines
            .iter()
            .chain(&info.states)
            .chain(&info.transitions);
        if all.flatten().any(|loc| loc.file as usize >= files) {
            return Err(LoadError::Invalid(
                "a source location names a file that is not listed".into(),
            ));
        }
        Ok(info)
    }

    /// Parses a `.ensdbg` file's bytes as [`DebugInfo::from_bytes`] does, and checks that they
    /// describe `program` (its [`checksum`](super::Program::checksum)): `build` writes the
    /// `.ensb` and the `.ensdbg` with two renames, so a build killed between them leaves a new
    /// program beside old symbols, which would point at the wrong lines.
    pub fn from_bytes_for(bytes: &[u8], program: &super::Program) -> Result<Self, LoadError> {
        let info = Self::from_bytes(bytes)?;
        let checksum = program.checksum();
        if info.program_checksum != checksum {
            return Err(LoadError::StaleDebugSymbols {
                symbols: info.program_checksum,
                program: checksum,
            });
        }
        Ok(info)
    }

    /// The symbols beside a program file (`NAME.ensdbg` beside `NAME.ensb`), checked against
    /// `program`: `None` when there are none, an error when they cannot be read or are stale.
    pub fn beside(
        ensb: &std::path::Path,
        program: &super::Program,
    ) -> Option<Result<Self, LoadError>> {
        let bytes = std::fs::read(ensb.with_extension("ensdbg")).ok()?;
        Some(Self::from_bytes_for(&bytes, program))
    }

    /// Formats a location as `file:line:column`.
    pub fn describe(&self, loc: Option<SourceLoc>) -> Option<String> {
        let loc = loc?;
        let file = self.files.get(loc.file as usize)?;
        Some(format!("{file}:{}:{}", loc.line, loc.column))
    }
}
