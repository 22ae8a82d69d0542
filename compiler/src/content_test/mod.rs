//! Designers' own tests of their content (docs/formats/test.md): `*.test.ron` files name a
//! scene, seeds, a tick limit, mocks and setup, and expectations over the trace; `ensemble
//! test` runs every test with every seed and reports failures with the tick and the trace
//! around it, and with `--coverage` what no run reached.
//!
//! ```text
//! *.test.ron ─► check::lower ─► ContentTest ─► run::run_all ─► RunResult ─► report (cli/src/test.rs)
//!  (parse)       (names checked     (per file)   (tests × seeds,   (judged by
//!                 against the IR)                 across cores)     expect::judge)
//! ```

/// The test file's shapes live in the RON frontend, which reads them (front must not import
/// the stages above it).
pub use crate::front::ron::content_test as asset;
pub mod check;
pub mod coverage;
pub mod expect;
pub mod player;
mod player_check;
pub mod run;

pub use check::{ContentTest, lower};
// The surface tools run tests and read coverage with (lib.rs).
pub use coverage::{Reached, Section, report as coverage_report};
pub use run::{RunResult, drive, run_all};
