//! Status codes, the thread's last error message, and the memory the library hands out.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a call came to. Every function of the API returns one; anything but `ENS_STATUS_OK`
/// leaves a message for [`ens_last_error_message`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EnsStatus {
    /// The call did what it says.
    Ok = 0,
    /// A required pointer argument was NULL.
    NullArgument = 1,
    /// A string argument was not UTF-8.
    InvalidUtf8 = 2,
    /// A handle with id 0 (never given out: a zero-initialised handle).
    NullHandle = 3,
    /// A number that is not a handle this library gave out (a foreign or corrupted value).
    InvalidHandle = 4,
    /// A handle whose object was freed.
    StaleHandle = 5,
    /// A handle of another kind (a library where a scene was expected).
    WrongHandleKind = 6,
    /// The scene is in use by a call still running (a callback called back into its own scene).
    Busy = 7,
    /// The program could not be loaded (corrupt, truncated, another format version, unreadable).
    Load = 8,
    /// The scene could not start: no such scene, or its states do not link against the library.
    Scene = 9,
    /// A new program was refused for a hot reload (the old one goes on).
    Reload = 10,
    /// A snapshot could not be written or restored (corrupt, another program, unsupported part).
    Snapshot = 11,
    /// An argument has a wrong value (an agent the scene does not have, a bad declaration).
    InvalidArgument = 12,
    /// What was asked does not apply to this scene (messages to a conversation scene).
    Unsupported = 13,
    /// An internal error (a bug in Ensemble), caught before it reached the host.
    Panic = 14,
    /// An inspector could not listen on its address (in use, or not allowed).
    Network = 15,
}

/// Why a call failed: the code and the message [`ens_last_error_message`] gives.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: EnsStatus,
    pub message: String,
}

impl Failure {
    pub fn new(status: EnsStatus, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }
}

pub(crate) type Outcome<T = ()> = Result<T, Failure>;

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = c_string(message);
    LAST_ERROR.with(|last| *last.borrow_mut() = text);
}

/// The text of a panic's payload.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Runs the body of exported function `function`, turning a failure into its status and
/// message and catching any panic (none may unwind into C).
pub(crate) fn run(function: &str, body: impl FnOnce() -> Outcome) -> EnsStatus {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => EnsStatus::Ok,
        Ok(Err(failure)) => {
            set_last_error(&format!("{function}: {}", failure.message));
            failure.status
        }
        Err(payload) => {
            set_last_error(&format!(
                "{function}: internal error: {}",
                panic_text(payload.as_ref())
            ));
            EnsStatus::Panic
        }
    }
}

/// A C string of `text`; a NUL inside (which C cannot carry) is dropped.
pub(crate) fn c_string(text: &str) -> CString {
    CString::new(text.replace('\0', "")).unwrap_or_default()
}

/// The UTF-8 text of argument `name`.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn text_arg<'a>(p: *const c_char, name: &str) -> Outcome<&'a str> {
    if p.is_null() {
        return Err(Failure::new(
            EnsStatus::NullArgument,
            format!("`{name}` is NULL"),
        ));
    }
    // SAFETY: non-null, and the caller promises a NUL-terminated string.
    unsafe { CStr::from_ptr(p) }.to_str().map_err(|e| {
        Failure::new(
            EnsStatus::InvalidUtf8,
            format!("`{name}` is not UTF-8 ({e})"),
        )
    })
}

/// The optional UTF-8 text of argument `name` (NULL: `None`).
///
/// # Safety
/// As [`text_arg`].
pub(crate) unsafe fn optional_text_arg<'a>(
    p: *const c_char,
    name: &str,
) -> Outcome<Option<&'a str>> {
    if p.is_null() {
        Ok(None)
    } else {
        // SAFETY: as the caller promises.
        unsafe { text_arg(p, name) }.map(Some)
    }
}

/// The place an out-parameter `name` points to.
///
/// # Safety
/// `p` is NULL or valid for writes of `T`.
pub(crate) unsafe fn out_arg<'a, T>(p: *mut T, name: &str) -> Outcome<&'a mut T> {
    // SAFETY: as the caller promises.
    unsafe { p.as_mut() }.ok_or_else(|| {
        Failure::new(
            EnsStatus::NullArgument,
            format!("`{name}` (where the result goes) is NULL"),
        )
    })
}

/// The bytes of argument `name`.
///
/// # Safety
/// `p` is NULL or valid for reads of `len` bytes.
pub(crate) unsafe fn bytes_arg<'a>(p: *const u8, len: usize, name: &str) -> Outcome<&'a [u8]> {
    if p.is_null() {
        return Err(Failure::new(
            EnsStatus::NullArgument,
            format!("`{name}` is NULL"),
        ));
    }
    // SAFETY: non-null, and the caller promises `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(p, len) })
}

/// Hands `text` to the host as a string it frees with [`ens_string_free`].
pub(crate) fn give_string(text: &str) -> *mut c_char {
    c_string(text).into_raw()
}

/// Hands `bytes` to the host as a buffer it frees with [`ens_bytes_free`].
pub(crate) fn give_bytes(bytes: Vec<u8>, out: &mut *mut u8, len: &mut usize) {
    let boxed = bytes.into_boxed_slice();
    *len = boxed.len();
    *out = Box::into_raw(boxed).cast::<u8>();
}

/// The message of the last call on this thread that failed, in words: the function's name,
/// then what went wrong and where (`ens_program_load_file: cannot load airport.ensb: …`).
///
/// Never NULL (an empty string before any failure). The string is owned by the library and
/// stays valid until the next call on this thread fails; copy it to keep it. A successful call
/// leaves it unchanged.
#[unsafe(no_mangle)]
pub extern "C" fn ens_last_error_message() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// The library's version (`"0.1.0"`): a static string, never freed.
#[unsafe(no_mangle)]
pub extern "C" fn ens_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// Frees a string the library handed out (trace lines, names). NULL is ignored.
///
/// # Safety
/// `text` is NULL or a string from this library not freed before; it is invalid afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_string_free(text: *mut c_char) {
    if !text.is_null() {
        // SAFETY: the caller promises it came from `CString::into_raw` here, once.
        drop(unsafe { CString::from_raw(text) });
    }
}

/// Frees a byte buffer the library handed out (a saved scene) with the length it came with.
/// NULL is ignored.
///
/// # Safety
/// `bytes`/`len` are NULL or exactly a buffer and its length from this library, not freed
/// before; the buffer is invalid afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ens_bytes_free(bytes: *mut u8, len: usize) {
    if !bytes.is_null() {
        // SAFETY: the caller promises it came from `give_bytes` with this length, once.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(bytes, len)) });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last_message() -> String {
        // SAFETY: never NULL, valid until the next failure on this thread.
        unsafe { CStr::from_ptr(ens_last_error_message()) }
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn a_panic_becomes_a_status_and_a_message_not_an_unwind() {
        let status = run("ens_example", || panic!("index 7 out of range"));
        assert_eq!(status, EnsStatus::Panic);
        assert_eq!(
            last_message(),
            "ens_example: internal error: index 7 out of range"
        );
    }

    #[test]
    fn a_failure_names_the_function_and_success_keeps_the_last_message() {
        let status = run("ens_example", || {
            Err(Failure::new(
                EnsStatus::InvalidArgument,
                "agent 9 is not in the scene",
            ))
        });
        assert_eq!(status, EnsStatus::InvalidArgument);
        assert_eq!(run("ens_other", || Ok(())), EnsStatus::Ok);
        assert_eq!(last_message(), "ens_example: agent 9 is not in the scene");
    }

    #[test]
    fn a_nul_inside_text_is_dropped_not_truncating_or_failing() {
        assert_eq!(c_string("a\0b").as_bytes(), b"ab");
    }
}
