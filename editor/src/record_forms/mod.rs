//! The form editors of the kinds that are records rather than graphs or tables: scenes,
//! locations (with a plot to drag them on), smart locations, the manifest, state libraries,
//! the HMM companions (lexicons, evidence, concepts, actions, chats) and navigation graphs.
//! Each is an [`crate::panel::AssetPanel`] of its asset's own shape, built from
//! [`crate::form_widgets`]'s widgets; each finds its items for Ctrl+F and diagnostics through
//! [`crate::panel::reveal_index`].

pub mod actions;
pub mod chat;
pub mod concepts;
pub mod evidence;
pub mod lexicon;
pub mod locations;
pub mod manifest;
pub mod navigation;
pub mod plot;
pub mod roads;
pub mod scene;
pub mod smartloc;
pub mod statelib;

use crate::panel::{KindPanel, for_kind};
use ensemble_compiler::formats::ron::AnyAsset;
use ensemble_compiler::formats::ron::AssetKind;

/// The form panels, by kind (the manifest's is [`manifest::ManifestPanel`], which the host
/// keeps on its own since the manifest is not an asset kind).
pub fn panels() -> Vec<(AssetKind, Box<dyn KindPanel>)> {
    vec![
        (
            AssetKind::Scene,
            for_kind(scene::ScenePanel::default(), |a| match a {
                AnyAsset::Scene(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Locations,
            for_kind(locations::LocationsPanel::default(), |a| match a {
                AnyAsset::Locations(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::SmartLocation,
            for_kind(smartloc::SmartLocationPanel::default(), |a| match a {
                AnyAsset::SmartLocation(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::StateLibrary,
            for_kind(statelib::StateLibraryPanel::default(), |a| match a {
                AnyAsset::StateLibrary(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Lexicon,
            for_kind(lexicon::LexiconPanel::default(), |a| match a {
                AnyAsset::Lexicon(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Evidence,
            for_kind(evidence::EvidencePanel::default(), |a| match a {
                AnyAsset::Evidence(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Concepts,
            for_kind(concepts::ConceptsPanel::default(), |a| match a {
                AnyAsset::Concepts(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Actions,
            for_kind(actions::ActionsPanel::default(), |a| match a {
                AnyAsset::Actions(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Chat,
            for_kind(chat::ChatPanel, |a| match a {
                AnyAsset::Chat(s) => Some(s),
                _ => None,
            }),
        ),
        (
            AssetKind::Navigation,
            for_kind(navigation::NavigationPanel::default(), |a| match a {
                AnyAsset::Navigation(n) => Some(n),
                _ => None,
            }),
        ),
    ]
}

/// The manifest's panel, over [`AnyAsset`].
pub fn manifest_panel() -> Box<dyn KindPanel> {
    for_kind(manifest::ManifestPanel, |a| match a {
        AnyAsset::Manifest(m) => Some(m),
        _ => None,
    })
}
