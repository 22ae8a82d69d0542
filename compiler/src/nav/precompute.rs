//! PPA* precomputation for a project's navigation graph, between validation and the back end:
//! clusters the graph and computes its tables (with a progress bar on a terminal), keeping the
//! last result per process so that `watch` and `run --watch` do not redo it on every save
//! that leaves the graph alone.

use super::{BuildOptions, NavData, build};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::Module;
use std::sync::Mutex;

/// The last graph precomputed in this process: its fingerprint, leaf size and data.
static LAST: Mutex<Option<(u32, u32, NavData)>> = Mutex::new(None);

/// Data larger than this is not kept (a copy of a large map's tables would double the
/// memory of every build for the sake of the next one).
const KEEP_AT_MOST: usize = 64 << 20;

/// Precomputes `module.nav`'s PPA* data (when there is a graph and none yet). A graph too
/// large for the table encoding is reported on the navigation asset.
pub fn precompute(module: &mut Module, progress: bool, diags: &mut Diagnostics) {
    let Some(nav) = &mut module.nav else {
        return;
    };
    if nav.data.is_some() {
        return;
    }
    let key = (nav.fingerprint, nav.leaf_size);
    if let Ok(last) = LAST.lock()
        && let Some((f, l, data)) = last.as_ref()
        && (*f, *l) == key
    {
        nav.data = Some(data.clone());
        return;
    }
    let options = BuildOptions {
        leaf_size: nav.leaf_size,
        progress,
    };
    match build(nav.graph.clone(), &options) {
        Ok((data, _)) => {
            if let Ok(mut last) = LAST.lock() {
                *last = (data.heap_bytes() <= KEEP_AT_MOST).then(|| (key.0, key.1, data.clone()));
            }
            nav.data = Some(data);
        }
        Err(message) => diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("the navigation graph cannot be precomputed: {message}"),
            )
            .at(nav.span, "this graph"),
        ),
    }
}
