//! The `ensemble` command. All logic lives in the `ensemble_cli` library (`run`).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

/// Standard output, buffered (a trace is many short lines), and shared with the Ctrl-C handler
/// so that an interrupted `run` still prints every line it produced before it stops.
struct SharedOut(Arc<Mutex<std::io::BufWriter<std::io::Stdout>>>);

impl Write for SharedOut {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.lock().write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.lock().write_all(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.lock().flush()
    }

    /// One lock per formatted line, not one per fragment (`writeln!` writes several).
    fn write_fmt(&mut self, args: std::fmt::Arguments<'_>) -> std::io::Result<()> {
        self.lock().write_fmt(args)
    }
}

impl SharedOut {
    fn lock(&self) -> std::sync::MutexGuard<'_, std::io::BufWriter<std::io::Stdout>> {
        // A panic while holding the lock leaves the buffer usable: keep writing.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The exit status of a process stopped by SIGINT, as shells report it (128 + 2).
const EXIT_INTERRUPTED: i32 = 130;

fn main() -> ExitCode {
    let shared = Arc::new(Mutex::new(std::io::BufWriter::new(std::io::stdout())));
    let for_handler = Arc::clone(&shared);
    // Ctrl-C (and SIGTERM): flush what is buffered, then stop as an interrupted process would.
    // Written files are safe either way (atomic renames); only the buffered trace was at risk.
    // The main thread may be blocked writing into a full pipe while it holds the buffer (a
    // pager that ignores Ctrl-C): wait a moment for it, but never let Ctrl-C hang.
    let _ = ctrlc::set_handler(move || {
        for _ in 0..100 {
            match for_handler.try_lock() {
                Ok(mut out) => {
                    let _ = out.flush();
                    break;
                }
                Err(std::sync::TryLockError::Poisoned(p)) => {
                    let _ = p.into_inner().flush();
                    break;
                }
                Err(std::sync::TryLockError::WouldBlock) => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            }
        }
        std::process::exit(EXIT_INTERRUPTED);
    });
    let mut out = SharedOut(shared);
    let mut err = std::io::stderr();
    let color = err.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut io = ensemble_cli::Io {
        out: &mut out,
        err: &mut err,
        color,
    };
    let code = ensemble_cli::run(std::env::args_os(), &mut io);
    let _ = out.flush();
    ExitCode::from(code as u8)
}
