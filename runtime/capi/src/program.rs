//! Loading programs: a built `.ensb` from a path or from bytes.

use crate::handles::{self, EnsProgram, Object};
use crate::status::{EnsStatus, Failure, bytes_arg, optional_text_arg, out_arg, run, text_arg};
use ensemble_runtime::Program;
use std::ffi::c_char;
use std::path::Path;
use std::sync::Arc;

/// A program and the name snapshots record it under (what `ensemble run` calls it: the file
/// name without `.ensb`).
pub(crate) struct LoadedProgram {
    pub program: Arc<Program>,
    pub name: String,
}

/// Loads a built program (`ensemble build PROJECT -o DIR` writes `DIR/NAME.ensb`) from
/// `path`, a NUL-terminated UTF-8 path. Its name for savegames is the file name without
/// `.ensb`, as `ensemble run` names it.
///
/// On success `*out` is a new handle the host frees with `ens_program_free`. A corrupt,
/// truncated or foreign file, or one that cannot be read, is `ENS_STATUS_LOAD` with the reason.
///
/// # Safety
/// `path` is NULL or a NUL-terminated string; `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_program_load_file(
    path: *const c_char,
    out: *mut EnsProgram,
) -> EnsStatus {
    run("ens_program_load_file", || {
        // SAFETY: as the caller promises.
        let (path, out) = unsafe { (text_arg(path, "path")?, out_arg(out, "out")?) };
        let path = Path::new(path);
        let program = Program::load(path).map_err(|e| {
            Failure::new(
                EnsStatus::Load,
                format!("cannot load {}: {e}", path.display()),
            )
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        *out = new_handle(program, name);
        Ok(())
    })
}

/// Loads a built program from the `len` bytes at `bytes` (the contents of a `.ensb`, e.g.
/// from the engine's asset system). `name` is what savegames record the program as
/// (NUL-terminated; NULL: `"program"`): give the name `ensemble run` would use — the file
/// name without `.ensb` — for its snapshots to be interchangeable.
///
/// The bytes are copied; the host keeps ownership of them. On success `*out` is a new handle
/// the host frees with `ens_program_free`; bad bytes are `ENS_STATUS_LOAD` with the reason.
///
/// # Safety
/// `bytes` is NULL or valid for reads of `len` bytes; `name` is NULL or a NUL-terminated
/// string; `out` is NULL or valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_program_load_bytes(
    bytes: *const u8,
    len: usize,
    name: *const c_char,
    out: *mut EnsProgram,
) -> EnsStatus {
    run("ens_program_load_bytes", || {
        // SAFETY: as the caller promises.
        let (bytes, name, out) = unsafe {
            (
                bytes_arg(bytes, len, "bytes")?,
                optional_text_arg(name, "name")?,
                out_arg(out, "out")?,
            )
        };
        let program = Program::from_bytes(bytes)
            .map_err(|e| Failure::new(EnsStatus::Load, format!("cannot load the program: {e}")))?;
        *out = new_handle(program, name.unwrap_or("program").to_string());
        Ok(())
    })
}

fn new_handle(program: Program, name: String) -> EnsProgram {
    let loaded = LoadedProgram {
        program: Arc::new(program),
        name,
    };
    EnsProgram {
        id: handles::insert(Object::Program(Arc::new(loaded))),
    }
}

/// Frees a program handle. Scenes started from it, or reloaded to it, go on: they hold the
/// program themselves. The handle is stale afterwards (using it is `ENS_STATUS_STALE_HANDLE`).
#[unsafe(no_mangle)]
pub extern "C" fn ens_program_free(program: EnsProgram) -> EnsStatus {
    run("ens_program_free", || {
        handles::remove(program.id, "program").map(drop)
    })
}
