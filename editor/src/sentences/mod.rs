//! The sentence state editor (Hewlett ch. 3): a file's sentence states, each edited as the two
//! lines of Fig. 3.2 with the modifiers (`PAST`, `QUESTION <wh>`, `VARIABLE <name>`) offered as
//! chips and buttons, mistakes shown as they are typed (the compiler's `nlg::input`), and the
//! ranked candidate sentences recomputed as you type on a worker thread ([`preview`]), in the
//! compiler's order, the ones the runtime chooses among highlighted, each line with `accept`,
//! `pin` and `ban` ([`judge`] is the same judging over every state of the project). The file's
//! ranking settings are edited above.
//!
//! The document is [`SentencesAsset`], exactly what `*.sentences.ron` holds.

pub mod judge;
pub mod line;
pub mod locate;
pub mod panel;
pub mod preview;

use crate::marks::{mark, name_widget, severity_glyph, severity_word, text_field};
use crate::panel::PanelCx;
use crate::theme;
use eframe::egui;
use egui::text::{LayoutJob, TextFormat};
use egui::{Color32, FontFamily, FontId, RichText, Stroke, TextEdit, Ui};
use ensemble_compiler::diag::{Diagnostic, Severity};
use ensemble_compiler::formats::ron::{ScoringAsset, SentenceStateAsset, SentencesAsset};
use ensemble_compiler::nlg::{LineError, WH_WORDS};
use locate::{Field, Markers, Place};
use preview::{Preview, Request};
use std::ops::Range;

/// What [`SentenceEditor::reveal`] selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SentenceTarget {
    /// The sentence state at this index.
    State(usize),
    /// The ranking settings.
    Settings,
}

impl SentenceTarget {
    /// Find by name (case-insensitive), as Ctrl+F does.
    pub fn find(asset: &SentencesAsset, name: &str) -> Option<SentenceTarget> {
        asset
            .states
            .iter()
            .position(|s| s.name.trim().eq_ignore_ascii_case(name.trim()))
            .map(SentenceTarget::State)
    }

    /// Where a compiler diagnostic about this document points.
    pub fn of_diagnostic(d: &Diagnostic, cx: &PanelCx<'_>) -> SentenceTarget {
        let tree = ensemble_compiler::formats::locate::parse(cx.text());
        match locate::place_of(d, tree.as_ref()) {
            Place::State(i, _) => SentenceTarget::State(i),
            Place::Settings => SentenceTarget::Settings,
        }
    }
}

/// The sentence state panel: view state only (selection, the preview worker).
pub struct SentenceEditor {
    selected: Option<usize>,
    reveal: Option<SentenceTarget>,
    open_settings: Option<bool>,
    filter: String,
    new_variable: String,
    show_all: bool,
    markers: Markers,
    preview: Option<Preview>,
}

impl Default for SentenceEditor {
    fn default() -> Self {
        Self::new()
    }
}

fn scoring_label(s: ScoringAsset) -> &'static str {
    match s {
        ScoringAsset::Interpolated => "Interpolated (absolute discounting)",
        ScoringAsset::StupidBackoff => "Stupid back-off",
        ScoringAsset::Eq31 => "Eq. 3.1 (as printed: unseen n-grams score −∞)",
        ScoringAsset::KneserNey => "Modified Kneser-Ney",
    }
}

/// Lays out a Fig. 3.2 line: modifiers and slot names coloured, mistakes underlined.
fn layout_line(text: &str, errors: &[Range<usize>], wrap: f32) -> LayoutJob {
    let font = FontId::new(14.0, FontFamily::Monospace);
    let mut job = LayoutJob::default();
    let mut at = 0;
    let mut after_variable = false;
    let push = |job: &mut LayoutJob, range: Range<usize>, color: Color32| {
        let mut f = TextFormat::simple(font.clone(), color);
        if errors
            .iter()
            .any(|e| e.start < range.end && range.start < e.end.max(e.start + 1))
        {
            f.underline = Stroke::new(1.5, theme::ERROR);
            f.background = theme::ERROR.gamma_multiply(0.22);
        }
        job.append(&text[range], 0.0, f);
    };
    for word in text.split_inclusive([' ', ',']) {
        let core = word.trim_end_matches([' ', ',']);
        let end = at + word.len();
        let core_end = at + core.len();
        let color = match core {
            "PAST" | "QUESTION" | "VARIABLE" => theme::ACCENT,
            w if after_variable && !w.is_empty() => Color32::from_rgb(229, 192, 123),
            w if WH_WORDS.contains(&w.to_lowercase().as_str()) => Color32::from_rgb(198, 160, 246),
            _ => theme::TEXT,
        };
        if !core.is_empty() {
            after_variable = core == "VARIABLE";
        }
        push(&mut job, at..core_end, color);
        if core_end < end {
            push(&mut job, core_end..end, theme::TEXT_WEAK);
        }
        at = end;
    }
    job.wrap.max_width = wrap;
    job
}

impl SentenceEditor {
    pub fn new() -> Self {
        SentenceEditor {
            selected: None,
            reveal: None,
            open_settings: None,
            filter: String::new(),
            new_variable: String::new(),
            show_all: false,
            markers: Markers::default(),
            preview: None,
        }
    }

    /// The selected sentence state.
    pub fn selected(&self) -> Option<usize> {
        self.selected
    }

    pub fn reveal(&mut self, target: SentenceTarget) {
        match target {
            SentenceTarget::State(i) => self.selected = Some(i),
            SentenceTarget::Settings => self.open_settings = Some(true),
        }
        self.reveal = Some(target);
    }

    /// The candidates shown for the selected state: `(template, score, id)`, best first, and
    /// whether they answer the state as it is now (not a ranking still running).
    pub fn shown_candidates(&self) -> (Vec<(String, f64, u32)>, bool) {
        let Some(p) = &self.preview else {
            return (Vec::new(), false);
        };
        let list = p
            .shown
            .iter()
            .flat_map(|r| &r.candidates)
            .map(|c| (c.template.clone(), c.score, c.id))
            .collect();
        (list, !p.busy())
    }

    /// Draws the panel; edits `value` in place and returns whether it changed it.
    pub fn ui(&mut self, ui: &mut Ui, value: &mut SentencesAsset, cx: &PanelCx<'_>) -> bool {
        self.markers.update(cx, locate::place_of);
        if self.preview.is_none() {
            let ctx = ui.ctx().clone();
            self.preview = Some(Preview::start(move || ctx.request_repaint()));
        }
        if self.selected.is_none_or(|i| i >= value.states.len()) {
            self.selected = (!value.states.is_empty()).then_some(0);
        }
        let mut changed = false;
        let open = self.open_settings.take();
        egui::CollapsingHeader::new(RichText::new("Ranking").strong())
            .id_salt("sentences-ranking")
            .default_open(true)
            .open(open)
            .show(ui, |ui| changed |= self.settings(ui, value));
        ui.add_space(4.0);
        crate::marks::docked(
            egui::Panel::left(ui.id().with("sentence-list")),
            230.0,
            170.0,
        )
        .show(ui, |ui| changed |= self.list(ui, value));
        egui::Frame::new()
            .inner_margin(egui::Margin {
                left: 14,
                right: 6,
                top: 4,
                bottom: 4,
            })
            .show(ui, |ui| {
                ui.set_width(ui.available_width());
                match self.selected {
                    Some(i) if i < value.states.len() => {
                        changed |= self.state_form(ui, value, i, cx);
                    }
                    _ => {
                        ui.label(RichText::new("No sentence states yet.").color(theme::TEXT));
                        ui.label(
                            RichText::new("Add one with “+ State”: a verbs line and a nouns line, as in Fig. 3.2.")
                                .color(theme::TEXT_WEAK),
                        );
                    }
                }
            });
        changed
    }

    fn settings(&mut self, ui: &mut Ui, value: &mut SentencesAsset) -> bool {
        let mut changed = false;
        let notes: Vec<(Severity, String)> = self
            .markers
            .at(Place::Settings)
            .iter()
            .map(|m| (m.severity, format!("{}: {}", m.code, m.message)))
            .collect();
        egui::Grid::new("sentence-settings")
            .num_columns(4)
            .spacing([12.0, 6.0])
            .show(ui, |ui| {
                ui.label(RichText::new("N-gram source").color(theme::TEXT_WEAK))
                    .on_hover_text("An .ngr database (`ensemble ngram build`) or a `w1 w2 w3<TAB>count` file, relative to this file.");
                let mut path = value.ngrams.clone().unwrap_or_default();
                let r = text_field(ui, &mut path, 260.0, "none: candidates stay unranked", "n-gram source");
                if mark(ui, r, &notes).changed() {
                    value.ngrams = (!path.trim().is_empty()).then_some(path);
                    changed = true;
                }
                ui.label(RichText::new("Scoring").color(theme::TEXT_WEAK));
                let before = value.scoring;
                egui::ComboBox::from_id_salt("sentence-scoring")
                    .selected_text(scoring_label(value.scoring))
                    .width(300.0)
                    .show_ui(ui, |ui| {
                        for s in [ScoringAsset::Interpolated, ScoringAsset::KneserNey, ScoringAsset::StupidBackoff, ScoringAsset::Eq31] {
                            ui.selectable_value(&mut value.scoring, s, scoring_label(s));
                        }
                    });
                changed |= value.scoring != before;
                ui.end_row();

                ui.label(RichText::new("Keep").color(theme::TEXT_WEAK))
                    .on_hover_text("Candidates kept per sentence state in the program.");
                ui.horizontal(|ui| {
                    let r = ui.add(egui::DragValue::new(&mut value.keep).range(1..=1000));
                    name_widget(ui, &r, "keep");
                    changed |= r.changed();
                    ui.label(RichText::new("Choose among").color(theme::TEXT_WEAK))
                        .on_hover_text("The runtime picks by weight among at most this many of the best: those within the score margin of the best.");
                    let r = ui.add(egui::DragValue::new(&mut value.choose_among).range(1..=1000));
                    name_widget(ui, &r, "choose among");
                    changed |= r.changed();
                    if value.choose_among > value.keep {
                        ui.label(RichText::new("⚠ more than are kept").color(theme::WARNING));
                    }
                });
                ui.label(RichText::new("Min score").color(theme::TEXT_WEAK))
                    .on_hover_text("Warn (`no-candidate`) when a state's best candidate scores below this.");
                ui.horizontal(|ui| {
                    let mut on = value.min_score.is_some();
                    if ui.checkbox(&mut on, "").changed() {
                        value.min_score = on.then_some(-20.0);
                        changed = true;
                    }
                    if let Some(m) = &mut value.min_score {
                        changed |= ui.add(egui::DragValue::new(m).speed(0.1)).changed();
                    } else {
                        ui.label(RichText::new("off").color(theme::TEXT_WEAK));
                    }
                });
                ui.end_row();

                ui.label(RichText::new("Score margin").color(theme::TEXT_WEAK)).on_hover_text(
                    "Only candidates scoring within this of the best are spoken (log2 per word).",
                );
                ui.horizontal(|ui| {
                    let default = ensemble_compiler::nlg::DEFAULT_SCORE_MARGIN;
                    let mut margin = value.score_margin.unwrap_or(default);
                    let r = ui.add(egui::DragValue::new(&mut margin).speed(0.01).range(0.0..=10.0));
                    name_widget(ui, &r, "score margin");
                    if r.changed() {
                        value.score_margin = (margin != default).then_some(margin);
                        changed = true;
                    }
                });
                ui.end_row();
            });
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new("Examples").color(theme::TEXT_WEAK))
                .on_hover_text("Values that stand in for VARIABLE slots while ranking.");
            ui.add_space(6.0);
            let mut remove = None;
            let mut renamed = None;
            for (k, v) in value.examples.iter_mut() {
                let mut key = k.clone();
                let r = text_field(ui, &mut key, 96.0, "Slot", format!("example {k} name"));
                if r.changed() {
                    renamed = Some((k.clone(), key));
                }
                ui.label("=");
                let r = text_field(ui, v, 96.0, "value", format!("example {k}"));
                changed |= r.changed();
                if ui
                    .small_button("×")
                    .on_hover_text("Remove this example")
                    .clicked()
                {
                    remove = Some(k.clone());
                }
                ui.add_space(14.0);
            }
            if let Some((old, new)) = renamed
                && !new.is_empty()
                && !value.examples.contains_key(&new)
                && let Some(v) = value.examples.remove(&old)
            {
                value.examples.insert(new, v);
                changed = true;
            }
            if let Some(k) = remove {
                value.examples.remove(&k);
                changed = true;
            }
            if ui.small_button("+ Example").clicked() {
                let mut n = value.examples.len() + 1;
                while value.examples.contains_key(&format!("Slot{n}")) {
                    n += 1;
                }
                value.examples.insert(format!("Slot{n}"), String::new());
                changed = true;
            }
        });
        changed
    }

    fn list(&mut self, ui: &mut Ui, value: &mut SentencesAsset) -> bool {
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new("Sentence states").strong().color(theme::TEXT));
            ui.label(RichText::new(format!("{}", value.states.len())).color(theme::TEXT_WEAK));
        });
        let r = ui.add(
            TextEdit::singleline(&mut self.filter)
                .hint_text("Filter by name…")
                .desired_width(f32::INFINITY)
                .background_color(theme::BOX_FILL),
        );
        name_widget(ui, &r, "filter sentence states");
        ui.horizontal(|ui| {
            if ui
                .button("+ State")
                .on_hover_text("Add a sentence state after the selected one")
                .clicked()
            {
                let at = self
                    .selected
                    .map_or(value.states.len(), |i| i + 1)
                    .min(value.states.len());
                let mut n = 1;
                while value
                    .states
                    .iter()
                    .any(|s| s.name == format!("NewSentence{n}"))
                {
                    n += 1;
                }
                value
                    .states
                    .insert(at, empty_state(&format!("NewSentence{n}")));
                self.reveal(SentenceTarget::State(at));
                changed = true;
            }
            let selected = self.selected.filter(|&i| i < value.states.len());
            if ui
                .add_enabled(selected.is_some(), egui::Button::new("Duplicate"))
                .clicked()
                && let Some(i) = selected
            {
                let mut copy = value.states[i].clone();
                copy.name = format!("{}Copy", copy.name);
                value.states.insert(i + 1, copy);
                self.reveal(SentenceTarget::State(i + 1));
                changed = true;
            }
            if ui
                .add_enabled(selected.is_some(), egui::Button::new("Delete"))
                .on_hover_text("Delete the selected sentence state")
                .clicked()
                && let Some(i) = selected
            {
                value.states.remove(i);
                self.selected = (!value.states.is_empty()).then(|| i.min(value.states.len() - 1));
                changed = true;
            }
        });
        ui.add_space(4.0);
        let filter = self.filter.trim().to_lowercase();
        egui::ScrollArea::vertical()
            .id_salt("sentence-list-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (i, s) in value.states.iter().enumerate() {
                    if !filter.is_empty() && !s.name.to_lowercase().contains(&filter) {
                        continue;
                    }
                    let worst = locate::worst_of_state(&self.markers, i);
                    let mut text = RichText::new(if s.name.trim().is_empty() {
                        "(unnamed)"
                    } else {
                        &s.name
                    });
                    if let Some(w) = worst {
                        text = RichText::new(format!("{} {}", severity_glyph(w), s.name))
                            .color(theme::severity_color(w));
                    }
                    let r = ui
                        .with_layout(egui::Layout::top_down_justified(egui::Align::LEFT), |ui| {
                            ui.selectable_label(self.selected == Some(i), text)
                        })
                        .inner;
                    let flag = worst.map_or(String::new(), |w| format!(" ({})", severity_word(w)));
                    name_widget(ui, &r, format!("sentence state {}{flag}", s.name));
                    if r.clicked() {
                        self.selected = Some(i);
                    }
                    if self.reveal == Some(SentenceTarget::State(i)) {
                        r.scroll_to_me(Some(egui::Align::Center));
                    }
                }
            });
        changed
    }

    fn state_form(
        &mut self,
        ui: &mut Ui,
        value: &mut SentencesAsset,
        i: usize,
        cx: &PanelCx<'_>,
    ) -> bool {
        let mut changed = false;
        let duplicate = value.states[..i]
            .iter()
            .chain(&value.states[i + 1..])
            .any(|s| s.name.trim() == value.states[i].name.trim());
        let state = &mut value.states[i];
        let (_, verb_errors, noun_errors) =
            ensemble_compiler::nlg::parse_lines(&state.verbs, &state.nouns);
        let notes_at = |field: Field| -> Vec<(Severity, String)> {
            self.markers
                .at(Place::State(i, field))
                .iter()
                .map(|m| (m.severity, format!("{}: {}", m.code, m.message)))
                .collect()
        };

        egui::Grid::new("sentence-form")
            .num_columns(2)
            .spacing([12.0, 8.0])
            .show(ui, |ui| {
                ui.label(RichText::new("Name").color(theme::TEXT_WEAK));
                let mut notes = notes_at(Field::Name);
                if state.name.trim().is_empty() {
                    notes.push((Severity::Error, "a sentence state needs a name".into()));
                } else if duplicate {
                    notes.push((Severity::Error, format!("`{}` is defined twice", state.name.trim())));
                }
                let r = text_field(ui, &mut state.name, 280.0, "SentenceName", "sentence name");
                if self.reveal == Some(SentenceTarget::State(i)) {
                    r.request_focus();
                    self.reveal = None;
                }
                changed |= mark(ui, r, &notes).changed();
                ui.end_row();

                ui.label(RichText::new("Verbs").color(theme::TEXT_WEAK))
                    .on_hover_text("Comma-separated verbs; `PAST <verb>` puts one in the past tense.");
                ui.vertical(|ui| {
                    changed |= line_edit(ui, &mut state.verbs, &verb_errors, "verbs", "be, PAST book", &notes_at(Field::Verbs));
                    changed |= verb_chips(ui, &mut state.verbs);
                });
                ui.end_row();

                ui.label(RichText::new("Nouns").color(theme::TEXT_WEAK)).on_hover_text(
                    "Comma-separated nouns; `VARIABLE <Name>` is a slot filled at run time; `QUESTION [<wh-word>]` makes it a question.",
                );
                ui.vertical(|ui| {
                    changed |= line_edit(ui, &mut state.nouns, &noun_errors, "nouns", "you, flight, VARIABLE CityName", &notes_at(Field::Nouns));
                    changed |= noun_chips(ui, &mut state.nouns);
                    changed |= modifier_buttons(ui, &mut state.nouns, &mut self.new_variable);
                });
                ui.end_row();
            });

        // Mistakes in the lines, in words, with where they are.
        for (what, line, errors) in [
            ("verbs", &state.verbs, &verb_errors),
            ("nouns", &state.nouns, &noun_errors),
        ] {
            for e in errors.iter() {
                let at = line[..e.range.start.min(line.len())].chars().count() + 1;
                ui.label(
                    RichText::new(format!("✖ {what}, at character {at}: {}", e.message))
                        .color(theme::ERROR),
                );
            }
        }
        for m in locate::of_state(&self.markers, i) {
            ui.label(
                RichText::new(format!(
                    "{} {}: {}",
                    severity_glyph(m.severity),
                    m.code,
                    m.message
                ))
                .color(theme::severity_color(m.severity)),
            );
        }
        // Slots ranked without a stand-in value.
        let missing: Vec<String> = line::variables(&state.nouns)
            .into_iter()
            .filter(|v| !value.examples.contains_key(v))
            .collect();
        for v in missing {
            ui.horizontal(|ui| {
                ui.label(
                    RichText::new(format!(
                        "ℹ VARIABLE {v} has no example value: ranked here as an unknown word (the build uses a value a scene binds, if any)"
                    ))
                    .color(theme::INFO),
                );
                if ui.small_button("Add example").clicked() {
                    value.examples.insert(v.clone(), String::new());
                    changed = true;
                }
            });
        }
        ui.add_space(8.0);
        if let Some((choice, id, line)) = self.candidates(ui, value, i, cx) {
            changed |= judge(&mut value.states[i], choice, id, &line);
        }
        changed
    }

    /// The ranked list, in the compiler's order, with `accept`, `pin` and `ban` buttons per
    /// line (the active one lit; clicking it again takes the judgement back), and the banned
    /// lines below; returns the button clicked, with the line's id and text.
    fn candidates(
        &mut self,
        ui: &mut Ui,
        value: &SentencesAsset,
        i: usize,
        cx: &PanelCx<'_>,
    ) -> Option<(Choice, u32, String)> {
        let mut clicked = None;
        let state = &value.states[i];
        let request = Request::of(value, i, &cx.document_dir());
        let Some(preview) = &mut self.preview else {
            return None;
        };
        if let Some(again) = preview.want(request) {
            ui.ctx().request_repaint_after(again);
        }
        let busy = preview.busy();
        ui.horizontal(|ui| {
            ui.label(RichText::new("Candidates").strong().color(theme::TEXT));
            if ui
                .small_button("How do I get here?")
                .on_hover_text("Search for a play in which this state speaks a line, show it in the preview, and save it as a test")
                .clicked()
            {
                cx.requests
                    .borrow_mut()
                    .push(crate::panel::Request::Reach(crate::reach::Asked::Line(state.name.clone())));
            }
            if busy {
                ui.add(egui::Spinner::new().size(14.0));
                ui.label(RichText::new("ranking…").color(theme::TEXT_WEAK));
            }
            if let Some(r) = &preview.shown {
                let source = match (&value.ngrams, &r.ngram_error) {
                    (_, Some(_)) => "n-grams unavailable".to_string(),
                    (Some(p), None) => format!("n-grams: {p}"),
                    (None, None) => "no n-gram source: unranked".to_string(),
                };
                ui.label(
                    RichText::new(format!(
                        "{} distinct of {} variations · ranked in {} ms · {source}",
                        r.report.unique,
                        r.report.variations,
                        r.elapsed.as_millis()
                    ))
                    .color(theme::TEXT_WEAK),
                );
            }
        });
        let Some(r) = &preview.shown else {
            return None;
        };
        if let Some(e) = &r.ngram_error {
            ui.label(
                RichText::new(format!("✖ cannot use the n-gram source: {e}")).color(theme::ERROR),
            );
        }
        if r.has_errors {
            ui.label(
                RichText::new("⚠ the lines have mistakes: these are the candidates of what parses")
                    .color(theme::WARNING),
            );
        }
        if r.candidates.is_empty() {
            ui.label(
                RichText::new("No candidate: give it a verb or a noun that makes words.")
                    .color(theme::WARNING),
            );
            return None;
        }
        let keep = value.keep.max(1) as usize;
        // The compiler's score-gap rule, as the preview computed it.
        let among = r.spoken.min(keep);
        let limit = if self.show_all {
            r.candidates.len()
        } else {
            (keep + 10).min(r.candidates.len())
        };
        egui::ScrollArea::vertical()
            .id_salt("sentence-candidates")
            .auto_shrink([false, true])
            .show(ui, |ui| {
                egui::Grid::new("candidate-table")
                    .num_columns(4)
                    .spacing([14.0, 4.0])
                    .striped(true)
                    .show(ui, |ui| {
                        for h in ["#", "score", "id", "sentence"] {
                            ui.label(RichText::new(h).color(theme::TEXT_WEAK).small());
                        }
                        ui.end_row();
                        for (rank, c) in r.candidates.iter().take(limit).enumerate() {
                            if rank == keep {
                                ui.label(RichText::new("—").color(theme::TEXT_WEAK));
                                ui.label("");
                                ui.label("");
                                ui.label(
                                    RichText::new(format!("not kept (keep = {keep})"))
                                        .color(theme::TEXT_WEAK)
                                        .italics(),
                                );
                                ui.end_row();
                            }
                            let (color, strong) = if rank < among {
                                (theme::OK, true)
                            } else if rank < keep {
                                (theme::TEXT, false)
                            } else {
                                (theme::TEXT_WEAK, false)
                            };
                            ui.label(
                                RichText::new(format!("{}", rank + 1))
                                    .color(color)
                                    .monospace(),
                            );
                            let score = if c.score.is_finite() {
                                format!("{:.3}", c.score)
                            } else {
                                "−∞".to_string()
                            };
                            ui.label(RichText::new(score).color(color).monospace());
                            let id = format!("{:08x}", c.id);
                            ui.add(
                                egui::Label::new(
                                    RichText::new(&id).color(theme::TEXT_WEAK).monospace(),
                                )
                                .sense(egui::Sense::click()),
                            )
                            .on_hover_text("Right-click: how do I get here?")
                            .context_menu(|ui| {
                                if ui.button("How do I get here?").clicked() {
                                    cx.requests.borrow_mut().push(
                                        crate::panel::Request::Reach(
                                            crate::reach::Asked::Line(id.clone()),
                                        ),
                                    );
                                    ui.close();
                                }
                            });
                            let mut text = RichText::new(&c.template).color(color).size(14.5);
                            if strong {
                                text = text.strong();
                            }
                            ui.horizontal(|ui| {
                                // The designer's judgement, written into the state by the line
                                // as printed (readable in the file, and it survives renaming
                                // the state, which an id does not).
                                let now = judgement(state, c.id, &c.template);
                                if let Some(choice) = judge_buttons(ui, now, Choice::ALL, None) {
                                    clicked = Some((choice, c.id, c.template.clone()));
                                }
                                ui.label(text);
                                if rank < among {
                                    ui.label(
                                        RichText::new("spoken")
                                            .small()
                                            .color(Color32::BLACK)
                                            .background_color(theme::OK),
                                    )
                                    .on_hover_text(format!(
                                        "The runtime chooses among these {among} by weight: at most `choose among`, within the score margin of the best"
                                    ));
                                }
                            });
                            ui.end_row();
                        }
                    });
                if !r.banned.is_empty() {
                    ui.add_space(6.0);
                    ui.label(
                        RichText::new(format!("Banned ({})", r.banned.len()))
                            .color(theme::TEXT_WEAK)
                            .small(),
                    );
                    for c in &r.banned {
                        ui.horizontal(|ui| {
                            let now = Some(Choice::Ban);
                            if let Some(choice) = judge_buttons(ui, now, &[Choice::Ban], None) {
                                clicked = Some((choice, c.id, c.template.clone()));
                            }
                            ui.label(
                                RichText::new(&c.template)
                                    .color(theme::TEXT_WEAK)
                                    .strikethrough(),
                            );
                        });
                    }
                }
                if r.candidates.len() > limit {
                    if ui
                        .small_button(format!("Show all {}", r.candidates.len()))
                        .clicked()
                    {
                        self.show_all = true;
                    }
                } else if self.show_all
                    && r.candidates.len() > keep + 10
                    && ui.small_button("Show fewer").clicked()
                {
                    self.show_all = false;
                }
            });
        clicked
    }
}

/// A line's text field, its mistakes underlined.
fn line_edit(
    ui: &mut Ui,
    text: &mut String,
    errors: &[LineError],
    name: &str,
    hint: &str,
    notes: &[(Severity, String)],
) -> bool {
    let ranges: Vec<Range<usize>> = errors.iter().map(|e| e.range.clone()).collect();
    let mut layouter = |ui: &Ui, buf: &dyn egui::TextBuffer, wrap: f32| {
        ui.fonts_mut(|f| f.layout_job(layout_line(buf.as_str(), &ranges, wrap)))
    };
    let r = ui.add(
        TextEdit::singleline(text)
            .desired_width(520.0)
            .hint_text(hint)
            .background_color(theme::BOX_FILL)
            .layouter(&mut layouter),
    );
    name_widget(ui, &r, name);
    let mut all: Vec<(Severity, String)> = errors
        .iter()
        .map(|e| (Severity::Error, e.message.clone()))
        .collect();
    all.extend(notes.iter().cloned());
    mark(ui, r, &all).changed()
}

fn chip(ui: &mut Ui, text: RichText, tip: &str) -> egui::Response {
    ui.add(egui::Button::new(text).small().corner_radius(9.0))
        .on_hover_text(tip)
}

/// The verbs as chips: click one to toggle `PAST`, 🗙 to remove it.
fn verb_chips(ui: &mut Ui, verbs: &mut String) -> bool {
    let mut edit = None;
    ui.horizontal_wrapped(|ui| {
        for (k, item) in line::items(verbs).iter().enumerate() {
            let v = line::verb(item.text);
            let text = if v.past {
                RichText::new(format!("PAST {}", v.lemma)).color(theme::ACCENT)
            } else {
                RichText::new(&v.lemma).color(theme::TEXT)
            };
            let r = chip(ui, text, "Click to toggle PAST (past tense)");
            name_widget(ui, &r, format!("verb {}", v.lemma));
            if r.clicked() {
                edit = Some(line::toggle_past(verbs, k));
            }
            if ui
                .small_button("×")
                .on_hover_text("Remove this verb")
                .clicked()
            {
                edit = Some(line::remove_item(verbs, k));
            }
            ui.add_space(6.0);
        }
    });
    match edit {
        Some(new) => {
            *verbs = new;
            true
        }
        None => false,
    }
}

/// The nouns as chips (`{Slot}` for variables), 🗙 to remove one.
fn noun_chips(ui: &mut Ui, nouns: &mut String) -> bool {
    let mut edit = None;
    ui.horizontal_wrapped(|ui| {
        for (k, item) in line::items(nouns).iter().enumerate() {
            let text = match line::noun(item.text) {
                line::Noun::Word(w) => RichText::new(w).color(theme::TEXT),
                line::Noun::Variable(v) => {
                    RichText::new(format!("{{{v}}}")).color(Color32::from_rgb(229, 192, 123))
                }
                line::Noun::None => continue,
            };
            chip(
                ui,
                text,
                "A noun of the sentence (its order guides the realisation)",
            );
            if ui
                .small_button("×")
                .on_hover_text("Remove this noun")
                .clicked()
            {
                edit = Some(line::remove_item(nouns, k));
            }
            ui.add_space(6.0);
        }
    });
    match edit {
        Some(new) => {
            *nouns = new;
            true
        }
        None => false,
    }
}

/// `+ VARIABLE` with a name, and the question as a drop-down.
fn modifier_buttons(ui: &mut Ui, nouns: &mut String, new_variable: &mut String) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let r = text_field(ui, new_variable, 110.0, "SlotName", "new variable name");
        let ok = line::is_variable_name(new_variable);
        let add = ui
            .add_enabled(ok, egui::Button::new("+ VARIABLE"))
            .on_hover_text("Add a slot the game fills at run time (e.g. a city name)")
            .on_disabled_hover_text("Type the slot's name first (letters, digits, _)");
        let entered = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if ok && (add.clicked() || entered) {
            *nouns = line::add_variable(nouns, new_variable);
            new_variable.clear();
            changed = true;
        }
        ui.add_space(16.0);
        ui.label(RichText::new("Question").color(theme::TEXT_WEAK));
        let current = line::question(nouns);
        let shown = match &current {
            None => "no (a statement)".to_string(),
            Some(None) => "yes/no question".to_string(),
            Some(Some(w)) => format!("QUESTION {w}"),
        };
        let combo = egui::ComboBox::from_id_salt("sentence-question")
            .selected_text(shown)
            .width(170.0)
            .show_ui(ui, |ui| {
                let mut pick = |ui: &mut Ui, label: &str, q: Option<Option<&str>>| {
                    let selected = current.as_ref().map(|c| c.as_deref()) == q;
                    if ui.selectable_label(selected, label).clicked() && !selected {
                        *nouns = line::set_question(nouns, q);
                        changed = true;
                    }
                };
                pick(ui, "no (a statement)", None);
                pick(ui, "yes/no question", Some(None));
                for w in WH_WORDS {
                    pick(ui, &format!("QUESTION {w}"), Some(Some(w)));
                }
            });
        name_widget(ui, &combo.response, "question");
    });
    changed
}

/// A designer's judgement of a line, from the ranked list's buttons (and the judging view's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Acceptable: spoken (after the pinned) instead of unjudged lines.
    Accept,
    /// Always said first.
    Pin,
    /// Never said.
    Ban,
}

impl Choice {
    pub const ALL: &'static [Choice] = &[Choice::Accept, Choice::Pin, Choice::Ban];

    pub fn word(self) -> &'static str {
        match self {
            Choice::Accept => "accept",
            Choice::Pin => "pin",
            Choice::Ban => "ban",
        }
    }

    fn hint(self) -> &'static str {
        match self {
            Choice::Accept => "Judge this line acceptable: the game says judged lines only",
            Choice::Pin => "Always say this line first",
            Choice::Ban => "Never say this line",
        }
    }

    fn list(self, state: &SentenceStateAsset) -> &Vec<String> {
        match self {
            Choice::Accept => &state.accept,
            Choice::Pin => &state.pin,
            Choice::Ban => &state.ban,
        }
    }

    fn list_mut(self, state: &mut SentenceStateAsset) -> &mut Vec<String> {
        match self {
            Choice::Accept => &mut state.accept,
            Choice::Pin => &mut state.pin,
            Choice::Ban => &mut state.ban,
        }
    }
}

/// A sentence state with a name and nothing else.
pub fn empty_state(name: &str) -> SentenceStateAsset {
    SentenceStateAsset {
        name: name.to_string(),
        verbs: String::new(),
        nouns: String::new(),
        translate: Default::default(),
        slots: Default::default(),
        ban: Vec::new(),
        pin: Vec::new(),
        accept: Vec::new(),
        score_margin: None,
    }
}

/// How the state judges the line `template` (id `id`): the first of its `pin`, `accept` and
/// `ban` lists that names it (by the line or by its id), as the compiler reads them.
pub fn judgement(state: &SentenceStateAsset, id: u32, template: &str) -> Option<Choice> {
    [Choice::Pin, Choice::Accept, Choice::Ban]
        .into_iter()
        .find(|c| {
            c.list(state)
                .iter()
                .any(|e| ensemble_compiler::nlg::names_candidate(e, id, template))
        })
}

/// Judges a line: a line is at most one of accept, pin and ban, so every entry naming it (by
/// the line or by its id) leaves the three lists; then, unless `choice` was already its
/// judgement (a second click takes it back), the line as printed goes into `choice`'s list.
/// `true` when the state changed.
pub fn judge(state: &mut SentenceStateAsset, choice: Choice, id: u32, template: &str) -> bool {
    let was = judgement(state, id, template);
    let mut changed = false;
    for c in Choice::ALL {
        let list = c.list_mut(state);
        let before = list.len();
        list.retain(|e| !ensemble_compiler::nlg::names_candidate(e, id, template));
        changed |= list.len() != before;
    }
    if was != Some(choice) {
        choice.list_mut(state).push(template.to_string());
        changed = true;
    }
    changed
}

/// The judging buttons of one line, `now` lit; returns the one clicked. `name` names them for
/// screen readers and tests (`"{word} {name}"`), when the plain words would be ambiguous.
pub fn judge_buttons(
    ui: &mut Ui,
    now: Option<Choice>,
    choices: &[Choice],
    name: Option<&str>,
) -> Option<Choice> {
    let mut clicked = None;
    for &c in choices {
        let active = now == Some(c);
        let hint = if active {
            format!("{} (click again to take it back)", c.hint())
        } else {
            c.hint().to_string()
        };
        let r = ui
            .add(egui::Button::new(RichText::new(c.word()).small()).selected(active))
            .on_hover_text(hint);
        if let Some(name) = name {
            name_widget(ui, &r, format!("{} {name}", c.word()));
        }
        if r.clicked() {
            clicked = Some(c);
        }
    }
    clicked
}
