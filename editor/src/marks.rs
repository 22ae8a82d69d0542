//! What every panel draws with: diagnostics marked on the widget they are about
//! ([`mark`], [`Markers`]), severity glyphs and words, names for widgets (for tests and
//! screen readers), docked side panels. The panel contract itself —
//! [`crate::panel::PanelCx`], what a panel is told besides its document — is in
//! [`crate::panel`].

use eframe::egui;
use ensemble_compiler::diag::{Diagnostic, Severity};
use ensemble_compiler::source::Span;

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
        cx: &crate::panel::PanelCx<'_>,
        place_of: impl Fn(&Diagnostic, Option<&ensemble_compiler::formats::locate::Node>) -> P,
    ) {
        let f = Some(cx.fingerprint());
        if f == self.fingerprint {
            return;
        }
        self.fingerprint = f;
        self.by_place.clear();
        let tree = ensemble_compiler::formats::locate::parse(cx.text());
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
    node: &'a ensemble_compiler::formats::locate::Node,
    name: &str,
) -> Option<&'a ensemble_compiler::formats::locate::Node> {
    match node {
        ensemble_compiler::formats::locate::Node::Struct { fields, .. } => {
            fields.iter().find(|(k, _)| k == name).map(|(_, n)| n)
        }
        _ => None,
    }
}

/// The red dot that marks a breakpoint (drawn: the UI font has no filled circle).
pub fn breakpoint_dot(ui: &mut egui::Ui) -> egui::Response {
    let (rect, response) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
    ui.painter()
        .circle_filled(rect.center(), 4.5, crate::theme::ERROR);
    response
}
