//! The contract between the editor and the editor of one asset kind (a *panel*).
//!
//! A panel edits a plain value — the asset as the compiler's `front::ron` (or `script`, `hpmm`)
//! shapes it — and nothing else. The host owns everything around it: it hands
//! [`AssetPanel::ui`] a copy of the value, compares after, and applies a change after the frame
//! as an edit recorded in the one undo history with the graph's (typing in one field coalesces
//! into one step); it marks the document dirty, prints and saves it, and recompiles it.
//! So a panel has no save, undo or file code, and cannot corrupt a file.
//!
//! ```ignore
//! impl AssetPanel<ScriptAsset> for RulesPanel {
//!     fn ui(&mut self, ui: &mut egui::Ui, script: &mut ScriptAsset, cx: &PanelCx) -> bool {
//!         let mut changed = false;
//!         for rule in &mut script.rules {
//!             changed |= ui.text_edit_singleline(&mut rule.precondition).changed();
//!         }
//!         changed
//!     }
//!     fn reveal(&mut self, target: &Reveal) { self.scroll_to = Some(target.clone()); }
//! }
//! ```
//!
//! Diagnostics arrive located ([`Located`]): line and column in the file, sheet and cell for
//! workbooks, and the RON path of the value they are about (`rules[3].precondition`) with the
//! name of the item it enters, so a panel can outline the offending cell without parsing spans.
//! When the user clicks a diagnostic of this document, the host calls [`AssetPanel::reveal`].
//!
//! This is the one place that says what a panel is: it names no panel and not the host (the
//! host's registry plugs the panels in), and the panels of the dock and the project browser
//! ask the host through the same [`Request`]s, never naming its actions.

use crate::analysis::Located;
use crate::document::DocId;
pub use crate::document::Reveal;
pub use crate::names::{LibraryEntry, ProjectNames};
use crate::sidecar::Layout;
use eframe::egui;
use ensemble_compiler::diag::Diagnostic;
use ensemble_compiler::formats::ron::AnyAsset;
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// What a panel sees besides its value.
pub struct PanelCx<'a> {
    /// The project folder.
    pub root: &'a Path,
    /// The document's path, relative to `root`.
    pub file: &'a str,
    /// The diagnostics located in this document, in the compiler's order.
    pub diagnostics: &'a [Located],
    /// Names defined across the project, for pickers.
    pub names: &'a ProjectNames,
    /// Requests for the host (open another asset, ...), taken after the frame.
    pub requests: &'a RefCell<Vec<Request>>,
    /// The last compile as the compiler reported it — every diagnostic, the sources their
    /// spans point into, and this document among them — for panels that locate spans
    /// themselves (see [`PanelCx::compiled`]).
    pub compiled: Option<Compiled<'a>>,
}

/// The raw form of the last compile.
#[derive(Clone, Copy)]
pub struct Compiled<'a> {
    pub diagnostics: &'a [ensemble_compiler::diag::Diagnostic],
    pub sources: &'a ensemble_compiler::source::SourceMap,
    /// This document in `sources`, when it was compiled.
    pub file: Option<ensemble_compiler::source::FileId>,
    /// The resolved project (planning problems grounded, names resolved), for previews.
    pub module: Option<&'a ensemble_compiler::ir::Module>,
    /// The last content test run, for what it never reached (the rule table marks rules).
    pub tests: Option<&'a dyn Coverage>,
}

impl<'a> PanelCx<'a> {
    /// The context of a document that has not been compiled (yet): no diagnostics, no file.
    pub fn detached(
        root: &'a Path,
        names: &'a ProjectNames,
        requests: &'a RefCell<Vec<Request>>,
    ) -> Self {
        PanelCx {
            root,
            file: "",
            diagnostics: &[],
            names,
            requests,
            compiled: None,
        }
    }

    /// The last compile's diagnostics about this document, as the compiler reported them
    /// (for panels that locate spans themselves).
    pub fn own_diagnostics(&self) -> impl Iterator<Item = &'a Diagnostic> + 'a {
        self.compiled.into_iter().flat_map(|c| {
            let file = c.file;
            c.diagnostics
                .iter()
                .filter(move |d| file.is_some() && d.file_id() == file)
        })
    }

    /// Identifies this document's diagnostics (and the text they point into), so a panel can
    /// keep what it derives from them until they change.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.compiled.and_then(|c| c.file).map(|f| f.0).hash(&mut h);
        self.text().len().hash(&mut h);
        for d in self.own_diagnostics() {
            d.code.as_str().hash(&mut h);
            d.message.hash(&mut h);
            d.primary
                .as_ref()
                .map(|l| (l.span.start, l.span.end))
                .hash(&mut h);
            (&d.sheet, &d.cell).hash(&mut h);
        }
        h.finish()
    }

    /// This document's source as compiled, when it was compiled from a file.
    fn source(&self) -> Option<&'a ensemble_compiler::source::SourceFile> {
        let c = self.compiled?;
        let f = c.file?;
        ((f.0 as usize) < c.sources.len()).then(|| c.sources.get(f))
    }

    /// The text this document was compiled from (empty for binary sources such as workbooks).
    pub fn text(&self) -> &'a str {
        self.source().map_or("", |s| s.text.as_str())
    }

    /// The folder relative paths inside the document resolve against: the document's own, else
    /// the project root.
    pub fn document_dir(&self) -> PathBuf {
        self.source()
            .and_then(|s| s.path.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| self.root.to_path_buf())
    }
}

impl PanelCx<'_> {
    pub fn request(&self, r: Request) {
        self.requests.borrow_mut().push(r);
    }

    /// The diagnostics about the item named `name` of the list field `list`.
    pub fn about<'b>(&'b self, list: &'b str, name: &'b str) -> impl Iterator<Item = &'b Located> {
        self.diagnostics
            .iter()
            .filter(move |l| l.list() == Some(list) && l.item.as_deref() == Some(name))
    }
}

/// Which item of the list field `list` a reveal is about: a diagnostic's path into it
/// (`agents[2].at`) or a find by name.
pub fn reveal_index<'a>(
    target: &Reveal,
    list: &str,
    names: impl Iterator<Item = &'a str>,
) -> Option<usize> {
    match target {
        Reveal::Path(path) => match path.as_slice() {
            [
                ensemble_compiler::formats::locate::PathSeg::Field(f),
                ensemble_compiler::formats::locate::PathSeg::Index(i),
                ..,
            ] if f == list => Some(*i),
            _ => None,
        },
        Reveal::Item { list: l, name } if l == list => {
            let mut names = names;
            names.position(|n| n.eq_ignore_ascii_case(name))
        }
        Reveal::Item { .. } => None,
    }
}

/// Something a panel asks of the host, carried out after the frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// Open the machine named so.
    OpenMachine(String),
    /// Open the document at this path.
    Open(String),
    /// Show the MovingAI map at this path (from the project root) in the navigation view.
    ShowMap(String),
    /// Rename an item that other documents may name, with every reference, as one undo step
    /// ([`crate::rename`]); the panel does not change the name itself.
    Rename {
        what: crate::rename::Named,
        old: String,
        new: String,
    },
    /// "How do I get here?" on a line or a rule ([`crate::reach`]).
    Reach(crate::reach::Asked),
    /// Open this document (the project list).
    OpenDoc(DocId),
    /// Ask for a new name for this document, or whether to delete it.
    AskRename(DocId),
    AskDelete(DocId),
    /// Start a new asset, conversation or template.
    NewAsset(crate::project_ops::Starter),
    /// Add an Excel workbook to the project (asks which).
    ImportWorkbook,
    /// Show the judging pass over every sentence state ([`crate::sentences::judge`]).
    JudgeLines,
    /// Show where this diagnostic points (the Problems panel).
    ShowDiagnostic(Box<Located>),
    /// Apply a Problems panel quick fix on this diagnostic's source.
    QuickFix(Box<Located>, crate::quick_fix::QuickFix),
    /// Show this stack of machines (the preview follows an agent): root first.
    Follow(Vec<String>),
}

/// What the last content test run never reached, as a panel may read it (the host's tests
/// panel answers).
pub trait Coverage {
    /// `(state, rule)` names of the rules of script `script` no run fired (none before tests
    /// have run).
    fn unreached_rules(&self, script: &str) -> std::collections::BTreeSet<(String, String)>;
}

/// The editor of one asset kind.
pub trait AssetPanel<T> {
    /// Draws the editor of `value` and edits it in place; returns whether it changed it.
    fn ui(&mut self, ui: &mut egui::Ui, value: &mut T, cx: &PanelCx) -> bool;

    /// Scrolls to and selects `target` the next time it is drawn.
    fn reveal(&mut self, target: &Reveal);
}

/// The editor of an asset kind drawn as a graph: like [`AssetPanel`], and it also places the
/// nodes, in the document's layout (saved in a sidecar beside the asset, never in it).
pub trait GraphPanel<T> {
    fn ui(&mut self, ui: &mut egui::Ui, value: &mut T, layout: &mut Layout, cx: &PanelCx) -> bool;
    fn reveal(&mut self, target: &Reveal);
}

/// A panel as the host keeps it: one per asset kind, over [`AnyAsset`]. [`for_kind`] makes one
/// from an [`AssetPanel`] of the kind's own shape, [`for_kind_laid_out`] from a
/// [`GraphPanel`].
pub trait KindPanel {
    fn ui(&mut self, ui: &mut egui::Ui, asset: &mut AnyAsset, cx: &PanelCx) -> bool;
    fn reveal(&mut self, target: &Reveal);
    /// [`KindPanel::ui`] with the document's layout, for panels that place nodes.
    fn ui_laid_out(
        &mut self,
        ui: &mut egui::Ui,
        asset: &mut AnyAsset,
        _layout: &mut Layout,
        cx: &PanelCx,
    ) -> bool {
        self.ui(ui, asset, cx)
    }
}

struct LaidOut<P, F> {
    panel: P,
    shape: F,
}

impl<T, P, F> KindPanel for LaidOut<P, F>
where
    P: GraphPanel<T>,
    F: Fn(&mut AnyAsset) -> Option<&mut T>,
{
    fn ui(&mut self, ui: &mut egui::Ui, asset: &mut AnyAsset, cx: &PanelCx) -> bool {
        self.ui_laid_out(ui, asset, &mut Layout::default(), cx)
    }

    fn reveal(&mut self, target: &Reveal) {
        self.panel.reveal(target);
    }

    fn ui_laid_out(
        &mut self,
        ui: &mut egui::Ui,
        asset: &mut AnyAsset,
        layout: &mut Layout,
        cx: &PanelCx,
    ) -> bool {
        match (self.shape)(asset) {
            Some(value) => self.panel.ui(ui, value, layout, cx),
            None => false,
        }
    }
}

/// Wraps a [`GraphPanel`] of the `T` that `shape` finds in an asset of its kind.
pub fn for_kind_laid_out<T, P, F>(panel: P, shape: F) -> Box<dyn KindPanel>
where
    T: 'static,
    P: GraphPanel<T> + 'static,
    F: Fn(&mut AnyAsset) -> Option<&mut T> + 'static,
{
    Box::new(LaidOut { panel, shape })
}

struct ForKind<P, F> {
    panel: P,
    shape: F,
}

impl<T, P, F> KindPanel for ForKind<P, F>
where
    P: AssetPanel<T>,
    F: Fn(&mut AnyAsset) -> Option<&mut T>,
{
    fn ui(&mut self, ui: &mut egui::Ui, asset: &mut AnyAsset, cx: &PanelCx) -> bool {
        match (self.shape)(asset) {
            Some(value) => self.panel.ui(ui, value, cx),
            None => false,
        }
    }

    fn reveal(&mut self, target: &Reveal) {
        self.panel.reveal(target);
    }
}

/// Wraps `panel`, which edits the `T` that `shape` finds in an asset of its kind:
/// `for_kind(RulesPanel::default(), |a| match a { AnyAsset::Script(s) => Some(s), _ => None })`.
pub fn for_kind<T, P, F>(panel: P, shape: F) -> Box<dyn KindPanel>
where
    T: 'static,
    P: AssetPanel<T> + 'static,
    F: Fn(&mut AnyAsset) -> Option<&mut T> + 'static,
{
    Box::new(ForKind { panel, shape })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::formats::locate::PathSeg;

    #[test]
    fn reveals_find_items_by_path_or_name() {
        let names = ["elder", "tourist"];
        let path = Reveal::Path(vec![
            PathSeg::Field("agents".into()),
            PathSeg::Index(1),
            PathSeg::Field("at".into()),
        ]);
        assert_eq!(
            reveal_index(&path, "agents", names.iter().copied()),
            Some(1)
        );
        assert_eq!(reveal_index(&path, "events", names.iter().copied()), None);
        let find = Reveal::Item {
            list: "agents".into(),
            name: "Tourist".into(),
        };
        assert_eq!(
            reveal_index(&find, "agents", names.iter().copied()),
            Some(1)
        );
    }
}
