//! Node positions beside the content: `BuyTicket.machine.layout.ron` next to
//! `BuyTicket.machine.ron`, keyed by state name (docs/formats/layout.md). Moving a node changes
//! only this file, so the behaviour's diff stays clean. A sidecar that is missing or does not
//! read is simply no layout: the editor lays the machine out itself and never blocks on it.

use ensemble_compiler::project::LAYOUT_SUFFIX;

pub use ensemble_compiler::formats::ron::Layout;

/// Whether assets of `kind` keep node positions in a sidecar: the graphs (machines, HMM
/// spaces).
pub fn has_sidecar(kind: ensemble_compiler::formats::ron::AssetKind) -> bool {
    use ensemble_compiler::formats::ron::AssetKind;
    matches!(kind, AssetKind::Machine | AssetKind::Space)
}

/// The sidecar's path for the asset at `path` (`a/B.machine.ron` -> `a/B.machine.layout.ron`).
pub fn path_for(asset: &str) -> String {
    let stem = asset.strip_suffix(".ron").unwrap_or(asset);
    format!("{stem}{LAYOUT_SUFFIX}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_sits_beside_its_asset() {
        assert_eq!(
            path_for("machines/BuyTicket.machine.ron"),
            "machines/BuyTicket.machine.layout.ron"
        );
    }
}
