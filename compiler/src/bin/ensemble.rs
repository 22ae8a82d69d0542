//! The `ensemble` command. All logic lives in `ensemble_compiler::cli`.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut err = std::io::stderr();
    let color = err.is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut io = ensemble_compiler::cli::Io {
        out: &mut out,
        err: &mut err,
        color,
    };
    let code = ensemble_compiler::cli::run(std::env::args_os(), &mut io);
    let _ = out.flush();
    ExitCode::from(code as u8)
}
