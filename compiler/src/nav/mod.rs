//! Navigation precomputation for PPA* (Hewlett ch. 4): read navigation graphs, cluster them
//! recursively with METIS, find border nodes, and compute every cluster's distance table
//! bottom-up. The result is the runtime's [`NavData`], which `ensemble nav build` writes as a
//! checksummed `.ensnav` file.
//!
//! - [`asset`], [`lower`]: a project's `*.nav.ron` (nodes and edges, a grid map or a road
//!   graph; doors), its validation, and where every location stands on it.
//! - [`precompute`]: the project graph's PPA* data, between validation and the back end.
//! - [`movingai`]: MovingAI `.map` grids and `.scen` scenario files.
//! - [`dimacs`]: DIMACS `.gr` road graphs.
//! - [`partition`]: the cluster tree (METIS, four parts per level, configurable leaf size).
//! - [`build`]: border nodes, abstract graphs, chains and distance tables, with a progress bar.

pub mod asset;
pub mod build;
pub mod dimacs;
pub mod lower;
pub mod movingai;
pub mod partition;
pub mod precompute;

pub use build::{BuildOptions, BuildReport, Stage, build, build_observed, build_with};
pub use ensemble_runtime::nav::NavData;
pub use partition::Partitioning;

use std::fmt;
use std::path::{Path, PathBuf};

/// A problem in a navigation input file, with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct InputError {
    pub file: PathBuf,
    /// 1-based; `None` for problems of the whole file.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl InputError {
    pub(crate) fn at(file: &Path, line: usize, column: Option<usize>, message: String) -> Self {
        InputError {
            file: file.to_path_buf(),
            line: Some(line),
            column,
            message,
        }
    }

    pub(crate) fn whole(file: &Path, message: String) -> Self {
        InputError {
            file: file.to_path_buf(),
            line: None,
            column: None,
            message,
        }
    }
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(col) = self.column {
                write!(f, ":{col}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}
