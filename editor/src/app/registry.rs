//! The registry: which panel opens each asset kind. The one place that names the panels, so
//! the contract ([`crate::panel`]) names none of them.

use crate::panel::{KindPanel, for_kind, for_kind_laid_out};
use ensemble_compiler::formats::ron::AnyAsset;
use ensemble_compiler::formats::ron::AssetKind;

/// The panels the editor opens assets with, by kind. Kinds without one open in the read-only
/// text view. Editors of other kinds are added here.
pub fn plugged() -> Vec<(AssetKind, Box<dyn KindPanel>)> {
    use crate::rules::panel::RulesPanel;
    use crate::sentences::panel::SentencesPanel;
    let mut panels = crate::record_forms::panels();
    panels.extend(crate::planning::panels());
    panels.extend([
        (
            AssetKind::Script,
            for_kind(RulesPanel::default(), |a| match a {
                AnyAsset::Script(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Sentences,
            for_kind(SentencesPanel::default(), |a| match a {
                AnyAsset::Sentences(s) => Some(s),
                _ => None,
            }),
        ),
        // A workbook opens as the script it holds and is saved back as a workbook.
        (
            AssetKind::Workbook,
            for_kind(RulesPanel::default(), |a| match a {
                AnyAsset::Script(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Space,
            for_kind_laid_out(crate::space::SpacePanel::default(), |a| match a {
                AnyAsset::Space(s) => Some(s),
                _ => None,
            }),
        ),
    ]);
    panels
}
