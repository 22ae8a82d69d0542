//! The planning editors (Hewlett's action lists, STRIPS domains and problems, PDDL files) and
//! their previews: the planning graph and a plan from each seed, or the state-explosion report,
//! for action lists; the plan an agent would make for problems. Planning runs on a worker
//! thread ([`preview`]); the editors are [`crate::panel::AssetPanel`]s.

pub mod action_list;
pub mod pddl;
pub mod picture;
pub mod preview;
pub mod strips;

use crate::panel::{KindPanel, for_kind};
use ensemble_compiler::formats::ron::AnyAsset;
use ensemble_compiler::formats::ron::AssetKind;

/// The planning panels, by kind (PDDL text is the host's: it has no RON shape).
pub fn panels() -> Vec<(AssetKind, Box<dyn KindPanel>)> {
    vec![
        (
            AssetKind::ActionList,
            for_kind(action_list::ActionListPanel::default(), |a| match a {
                AnyAsset::ActionList(l) => Some(l),
                _ => None,
            }),
        ),
        (
            AssetKind::Domain,
            for_kind(strips::DomainPanel::default(), |a| match a {
                AnyAsset::Domain(d) => Some(d),
                _ => None,
            }),
        ),
        (
            AssetKind::Problem,
            for_kind(strips::ProblemPanel::default(), |a| match a {
                AnyAsset::Problem(p) => Some(p),
                _ => None,
            }),
        ),
    ]
}
