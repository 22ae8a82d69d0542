//! Validation: checks on a resolved [`Module`] that need the whole picture (graphs, scenes).
//! Every check runs and reports; none stops at the first problem. Name resolution problems were
//! already reported by the frontend, and unresolved references are skipped here.

mod location;
mod machine;
mod migrations;
mod scene;
pub(crate) use scene::hosted_closure;
mod script;
mod subsume;

use crate::diag::Diagnostics;
use crate::ir::Module;

pub fn validate(module: &Module, diags: &mut Diagnostics) {
    machine::check_reachability(module, diags);
    machine::check_dead_ends(module, diags);
    machine::check_events(module, diags);
    machine::check_recursion(module, diags);
    scene::check_agent_modifiers(module, diags);
    script::check(module, diags);
    location::check(module, diags);
    migrations::check(module, diags);
}
