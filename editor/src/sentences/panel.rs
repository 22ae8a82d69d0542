//! The sentence-state editor as a panel of `*.sentences.ron` documents ([`AssetPanel`]): a
//! reveal (a clicked diagnostic, a find) becomes the editor's own target the next time it is
//! drawn, when the value is at hand.

use super::{SentenceEditor, SentenceTarget};
use crate::panel::{AssetPanel, PanelCx, Reveal};
use eframe::egui;
use ensemble_compiler::formats::locate::PathSeg;
use ensemble_compiler::formats::ron::SentencesAsset;

/// The sentence-state editor, as a panel of `*.sentences.ron` documents.
#[derive(Default)]
pub struct SentencesPanel {
    editor: SentenceEditor,
    pending: Option<Reveal>,
}

/// Where `target` is in `sentences`: a sentence state, or the ranking settings.
pub fn sentence_target(sentences: &SentencesAsset, target: &Reveal) -> Option<SentenceTarget> {
    match target {
        Reveal::Item { name, .. } => SentenceTarget::find(sentences, name),
        Reveal::Path(path) => Some(match path.as_slice() {
            [PathSeg::Field(list), PathSeg::Index(i), ..] if list == "states" => {
                SentenceTarget::State(*i)
            }
            _ => SentenceTarget::Settings,
        }),
    }
}

impl AssetPanel<SentencesAsset> for SentencesPanel {
    fn ui(&mut self, ui: &mut egui::Ui, value: &mut SentencesAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take().and_then(|r| sentence_target(value, &r)) {
            self.editor.reveal(t);
        }
        self.editor.ui(ui, value, cx)
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}
