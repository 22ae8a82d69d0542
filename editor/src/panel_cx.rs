//! The contract between the editor's host and its content panels (rule table, sentence states,
//! navigation view).
//!
//! A panel is a struct holding only view state (scroll, selection, caches, worker threads) with
//!
//! ```text
//! fn ui(&mut self, ui: &mut egui::Ui, value: &mut T, cx: &PanelCx) -> bool
//! fn reveal(&mut self, target)
//! ```
//!
//! `ui` edits the document `value` in place and returns whether it changed it. The host owns
//! undo/redo, dirty tracking and saving by comparing values, so a panel never saves, never keeps
//! its own copy of the document, and makes every edit as a plain change of `value`. `reveal`
//! scrolls to and selects an item, for a clicked diagnostic or a find by name.

use eframe::egui;
use ensemble_compiler::diag::{Diagnostic, Severity};
use ensemble_compiler::source::{FileId, SourceMap, Span};
use std::path::{Path, PathBuf};

/// What a panel is told besides its document.
#[derive(Clone, Copy)]
pub struct PanelCx<'a> {
    /// The diagnostics of the last compile. A panel shows those of its own document (see
    /// [`PanelCx::own_diagnostics`]).
    pub diagnostics: &'a [Diagnostic],
    /// The sources that compile read, for the spans of `diagnostics`.
    pub sources: &'a SourceMap,
    /// This document in `sources`, when it was compiled from a file.
    pub file: Option<FileId>,
    /// The project root.
    pub root: &'a Path,
}

impl<'a> PanelCx<'a> {
    /// No diagnostics and no file: a document that has not been compiled (yet).
    pub fn detached(sources: &'a SourceMap, root: &'a Path) -> Self {
        PanelCx {
            diagnostics: &[],
            sources,
            file: None,
            root,
        }
    }

    /// The diagnostics about this document.
    pub fn own_diagnostics(&self) -> impl Iterator<Item = &'a Diagnostic> + 'a {
        let file = self.file;
        self.diagnostics
            .iter()
            .filter(move |d| file.is_some() && d.file_id() == file)
    }

    /// Identifies this document's diagnostics (and the text they point into), so a panel can
    /// keep what it derives from them until they change.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.file.map(|f| f.0).hash(&mut h);
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

    /// The text this document was compiled from (empty for binary sources such as workbooks).
    pub fn text(&self) -> &'a str {
        match self.file {
            Some(f) if (f.0 as usize) < self.sources.len() => &self.sources.get(f).text,
            _ => "",
        }
    }

    /// The folder relative paths inside the document resolve against: the document's own, else
    /// the project root.
    pub fn document_dir(&self) -> PathBuf {
        self.file
            .filter(|f| (f.0 as usize) < self.sources.len())
            .and_then(|f| self.sources.get(f).path.parent().map(Path::to_path_buf))
            .unwrap_or_else(|| self.root.to_path_buf())
    }
}

/// Whether `inner` lies within `outer` (same file).
pub fn span_within(inner: Span, outer: std::ops::Range<usize>) -> bool {
    outer.start <= inner.start as usize
        && inner.end as usize <= outer.end
        && outer.start < outer.end
}

/// The glyph shown for a severity, next to its message (told apart by shape, not only colour).
pub fn severity_glyph(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "✖",
        Severity::Warning => "⚠",
        Severity::Info => "ℹ",
    }
}

/// The word for a severity, for accessible names and messages.
pub fn severity_word(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// Outlines a widget in the colour of the worst severity among `notes` and adds them to its
/// hover text. Returns the response (with the hover text) for chaining.
pub fn mark(
    ui: &egui::Ui,
    response: egui::Response,
    notes: &[(Severity, String)],
) -> egui::Response {
    let Some(worst) = notes.iter().map(|(s, _)| *s).min() else {
        return response;
    };
    let color = crate::theme::severity_color(worst);
    let width = if worst == Severity::Info { 1.0 } else { 1.5 };
    ui.painter().rect_stroke(
        response.rect.expand(1.0),
        3.0,
        egui::Stroke::new(width, color),
        egui::StrokeKind::Inside,
    );
    response.on_hover_ui(|ui| {
        for (s, text) in notes {
            ui.label(
                egui::RichText::new(format!("{} {text}", severity_glyph(*s)))
                    .color(crate::theme::severity_color(*s)),
            );
        }
    })
}

/// Gives a widget an accessible name (screen readers; what tests find it by), for widgets
/// such as text fields whose visible label is a column header elsewhere.
pub fn name_widget(ui: &egui::Ui, response: &egui::Response, name: impl Into<String>) {
    let name = name.into();
    ui.ctx()
        .accesskit_node_builder(response.id, |node| node.set_label(name));
}

/// One diagnostic as a panel shows it on the item it names.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    pub notes: Vec<String>,
}

/// A document's diagnostics by the place (`P`: a cell, a state...) each names; rebuilt only
/// when the diagnostics change.
pub struct Markers<P> {
    fingerprint: Option<u64>,
    by_place: std::collections::HashMap<P, Vec<Marker>>,
}

impl<P> Default for Markers<P> {
    fn default() -> Self {
        Markers {
            fingerprint: None,
            by_place: Default::default(),
        }
    }
}

impl<P: Copy + Eq + std::hash::Hash> Markers<P> {
    /// Sorts `cx`'s diagnostics by place; `place_of` gets the document's RON structure (when
    /// it is RON) to look spans up in.
    pub fn update(
        &mut self,
        cx: &PanelCx<'_>,
        place_of: impl Fn(&Diagnostic, Option<&ensemble_compiler::front::ron::locate::Node>) -> P,
    ) {
        let f = Some(cx.fingerprint());
        if f == self.fingerprint {
            return;
        }
        self.fingerprint = f;
        self.by_place.clear();
        let tree = ensemble_compiler::front::ron::locate::parse(cx.text());
        for d in cx.own_diagnostics() {
            self.by_place
                .entry(place_of(d, tree.as_ref()))
                .or_default()
                .push(Marker {
                    severity: d.severity,
                    code: d.code.as_str(),
                    message: d.message.clone(),
                    notes: d.notes.clone(),
                });
        }
    }

    pub fn at(&self, place: P) -> &[Marker] {
        self.by_place.get(&place).map_or(&[], Vec::as_slice)
    }

    /// The worst severity at `place` (errors first).
    pub fn worst(&self, place: P) -> Option<Severity> {
        self.at(place).iter().map(|m| m.severity).min()
    }

    pub fn all(&self) -> impl Iterator<Item = (P, &Marker)> {
        self.by_place
            .iter()
            .flat_map(|(p, ms)| ms.iter().map(move |m| (*p, m)))
    }
}

/// A panel docked inside another panel's area, in the panels' look: resizable, framed.
pub fn docked(panel: egui::Panel, default_size: f32, min_size: f32) -> egui::Panel {
    panel
        .resizable(true)
        .default_size(default_size)
        .min_size(min_size)
        .frame(
            egui::Frame::new()
                .fill(crate::theme::PANEL)
                .inner_margin(egui::Margin::symmetric(10, 8)),
        )
}

/// A one-line text field of a form: a set width, a visible background, an accessible name.
pub fn text_field(
    ui: &mut egui::Ui,
    text: &mut String,
    width: f32,
    hint: &str,
    name: impl Into<String>,
) -> egui::Response {
    let r = ui.add_sized(
        [width, 22.0],
        egui::TextEdit::singleline(text)
            .hint_text(hint)
            .background_color(crate::theme::BOX_FILL),
    );
    name_widget(ui, &r, name);
    r
}

/// The newest of `first` and whatever else is waiting on `rx`: a worker answers only the
/// latest request. `None` when the sender is gone.
pub fn newest<T>(rx: &std::sync::mpsc::Receiver<T>, mut first: T) -> Option<T> {
    loop {
        match rx.try_recv() {
            Ok(newer) => first = newer,
            Err(std::sync::mpsc::TryRecvError::Empty) => return Some(first),
            Err(std::sync::mpsc::TryRecvError::Disconnected) => return None,
        }
    }
}

/// The value of field `name` of a RON struct (as the compiler's locator read it).
pub fn ron_field<'a>(
    node: &'a ensemble_compiler::front::ron::locate::Node,
    name: &str,
) -> Option<&'a ensemble_compiler::front::ron::locate::Node> {
    match node {
        ensemble_compiler::front::ron::locate::Node::Struct { fields, .. } => {
            fields.iter().find(|(k, _)| k == name).map(|(_, n)| n)
        }
        _ => None,
    }
}
