//! The judging pass (issue 30): every sentence state of every `*.sentences.ron` file of the
//! project in one list, each with the lines it speaks now (marked) and the next candidates (up
//! to its file's `keep`), to `accept` or `ban` line by line. States whose spoken set has no
//! judged line are marked "unjudged"; a filter shows only those, and a count says how far the
//! pass has come.
//!
//! The view edits nothing itself: a click becomes a [`JudgeOut::Edit`] of the file's value,
//! which the host applies as every panel's edit (undo, dirty marker, saving). The lists are
//! ranked as the sentence editor's preview ranks ([`super::preview::rank`], the compiler's
//! order and spoken-set rule) on a worker thread of the view's own, one state after another,
//! the visible order first; a state is ranked again only when what its ranking depends on
//! changed, and its last list stays on screen (marked) meanwhile.

use super::preview::{Ranked, Request, rank};
use super::{Choice, judge, judge_buttons, judgement};
use crate::marks::name_widget;
use crate::theme;
use eframe::egui;
use egui::{Color32, RichText, Ui};
use ensemble_compiler::formats::ron::SentencesAsset;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

/// A state of the project: its document and its index in the file's `states`.
pub type Key = (usize, usize);

/// A `*.sentences.ron` file as the view reads it.
pub struct JudgeFile<'a> {
    /// The host's document id (given back in [`JudgeOut`]).
    pub doc: usize,
    /// Relative to the project root.
    pub path: &'a str,
    pub value: &'a SentencesAsset,
    /// The folder the file's relative paths (its `ngrams`) resolve against.
    pub dir: PathBuf,
}

/// What the user asked for in a frame.
#[derive(Clone, Debug, PartialEq)]
pub enum JudgeOut {
    /// The file `doc` judged anew: its whole new value, and what changed in words.
    Edit {
        doc: usize,
        value: SentencesAsset,
        label: String,
    },
    /// Open state `state` of file `doc` in the sentence editor.
    Open { doc: usize, state: String },
}

/// One line of a state as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    pub text: String,
    pub id: u32,
    pub spoken: bool,
    pub judgement: Option<Choice>,
}

/// One state as shown: its lines in the compiler's order, the spoken ones first.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub key: Key,
    pub file: String,
    pub state: String,
    /// `None` until its first ranking arrives.
    pub lines: Option<Vec<Line>>,
    /// The lines it bans (listed apart, so a ban can be taken back).
    pub banned: Vec<Line>,
    /// Whether the state speaks judged lines only (pinned or accepted).
    pub judged: bool,
    /// Whether the lines answer the state as it is now (not a ranking still running).
    pub current: bool,
}

struct Worker {
    to_worker: Sender<Vec<(Key, Request)>>,
    from_worker: Receiver<(Key, Ranked)>,
}

impl Worker {
    /// Ranks batches of states, one state at a time; a newer batch replaces what is left of
    /// the one being ranked.
    fn start(wake: impl Fn() + Send + 'static) -> Worker {
        let (to_worker, batches) = channel::<Vec<(Key, Request)>>();
        let (results, from_worker) = channel::<(Key, Ranked)>();
        std::thread::Builder::new()
            .name("judge-lines".into())
            .spawn(move || {
                let mut next: Option<Vec<(Key, Request)>> = None;
                loop {
                    let batch = match next.take() {
                        Some(b) => b,
                        None => match batches.recv() {
                            Ok(b) => b,
                            Err(_) => return,
                        },
                    };
                    let Some(batch) = crate::marks::newest(&batches, batch) else {
                        return;
                    };
                    for (key, request) in batch {
                        match batches.try_recv() {
                            Ok(newer) => {
                                next = Some(newer);
                                break;
                            }
                            Err(TryRecvError::Disconnected) => return,
                            Err(TryRecvError::Empty) => {}
                        }
                        if results.send((key, rank(request))).is_err() {
                            return;
                        }
                        wake();
                    }
                }
            })
            .expect("a thread can be spawned");
        Worker {
            to_worker,
            from_worker,
        }
    }
}

/// The view's state: whether it is shown, its filter, and the rankings it has.
#[derive(Default)]
pub struct JudgeView {
    shown: bool,
    pub unjudged_only: bool,
    worker: Option<Worker>,
    /// The last ranking of each state (perhaps of what it was before an edit).
    results: HashMap<Key, Ranked>,
    /// The last batch sent to the worker.
    sent: Vec<(Key, Request)>,
    rows: Vec<Row>,
}

impl JudgeView {
    pub fn show(&mut self) {
        self.shown = true;
    }

    pub fn hide(&mut self) {
        self.shown = false;
    }

    pub fn is_shown(&self) -> bool {
        self.shown
    }

    /// The states as last drawn (all of them, whatever the filter).
    pub fn rows(&self) -> &[Row] {
        &self.rows
    }

    /// How many states speak judged lines only, of how many.
    pub fn judged_count(&self) -> (usize, usize) {
        (
            self.rows.iter().filter(|r| r.judged).count(),
            self.rows.len(),
        )
    }

    /// Whether every state's lines answer it as it is now.
    pub fn settled(&self) -> bool {
        self.rows.iter().all(|r| r.current && r.lines.is_some())
    }

    /// Takes the worker's results and asks for the states whose ranking is missing or stale.
    fn update(&mut self, ctx: &egui::Context, requests: Vec<(Key, Request)>) {
        let worker = self.worker.get_or_insert_with(|| {
            let ctx = ctx.clone();
            Worker::start(move || ctx.request_repaint())
        });
        while let Ok((key, ranked)) = worker.from_worker.try_recv() {
            self.results.insert(key, ranked);
        }
        let wanted: Vec<(Key, Request)> = requests
            .into_iter()
            .filter(|(k, r)| self.results.get(k).is_none_or(|done| done.request != *r))
            .collect();
        // The worker is already on whatever the last batch holds; it is told again only when
        // something new is wanted.
        if wanted.iter().any(|w| !self.sent.contains(w)) {
            let _ = worker.to_worker.send(wanted.clone());
            self.sent = wanted;
        }
    }

    /// Draws the view over `files` (the project's sentence files as they are now).
    pub fn ui(&mut self, ui: &mut Ui, files: &[JudgeFile<'_>]) -> Option<JudgeOut> {
        let mut requests = Vec::new();
        for f in files {
            for i in 0..f.value.states.len() {
                requests.push(((f.doc, i), Request::of(f.value, i, &f.dir)));
            }
        }
        let current: HashMap<Key, Request> = requests.iter().cloned().collect();
        self.update(ui.ctx(), requests);
        self.rows = files
            .iter()
            .flat_map(|f| {
                f.value
                    .states
                    .iter()
                    .enumerate()
                    .map(|(i, s)| self.row(f, i, s, &current))
            })
            .collect();
        let mut out = None;
        let (judged, total) = self.judged_count();
        let ranking = self.rows.iter().filter(|r| !r.current).count();
        ui.horizontal(|ui| {
            ui.label(RichText::new("Judge lines").heading().color(theme::TEXT));
            ui.add_space(12.0);
            let color = if judged == total && total > 0 {
                theme::OK
            } else {
                theme::TEXT
            };
            ui.label(
                RichText::new(format!("{judged} of {total} states judged"))
                    .color(color)
                    .strong(),
            )
            .on_hover_text(
                "A state is judged when the game speaks only lines you accepted or pinned",
            );
            ui.add_space(12.0);
            ui.checkbox(&mut self.unjudged_only, "unjudged only")
                .on_hover_text("Show only the states whose spoken lines nobody judged yet");
            if ranking > 0 {
                ui.add_space(12.0);
                ui.add(egui::Spinner::new().size(14.0));
                ui.label(
                    RichText::new(format!("ranking {ranking} of {total}…")).color(theme::TEXT_WEAK),
                );
            }
        });
        ui.label(
            RichText::new(
                "Accept the lines that are right: a judged state speaks judged lines only. Ban \
                 the wrong ones: the next candidate takes their place. Ctrl+S saves; Ctrl+Z \
                 takes a judgement back.",
            )
            .color(theme::TEXT_WEAK),
        );
        ui.add_space(6.0);
        if files.is_empty() {
            ui.label(
                RichText::new("This project has no sentence states (*.sentences.ron).")
                    .color(theme::TEXT_WEAK),
            );
            return None;
        }
        let by_doc: HashMap<usize, &JudgeFile<'_>> = files.iter().map(|f| (f.doc, f)).collect();
        egui::ScrollArea::vertical()
            .id_salt("judge-lines-scroll")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                let shown: Vec<&Row> = self
                    .rows
                    .iter()
                    .filter(|r| !self.unjudged_only || !r.judged)
                    .collect();
                if shown.is_empty() {
                    ui.label(
                        RichText::new("Every state is judged.")
                            .color(theme::OK)
                            .italics(),
                    );
                }
                for row in shown {
                    let Some(f) = by_doc.get(&row.key.0).copied() else {
                        continue;
                    };
                    if let Some(o) = state_card(ui, row, f) {
                        out = Some(o);
                    }
                }
            });
        out
    }

    fn row(
        &self,
        f: &JudgeFile<'_>,
        i: usize,
        state: &ensemble_compiler::formats::ron::SentenceStateAsset,
        current: &HashMap<Key, Request>,
    ) -> Row {
        let key = (f.doc, i);
        let ranked = self.results.get(&key);
        let lines = ranked.map(|r| {
            let keep = f.value.keep.max(1) as usize;
            let spoken = r.spoken.min(r.candidates.len());
            r.candidates
                .iter()
                .take(keep.max(spoken))
                .enumerate()
                .map(|(n, c)| Line {
                    text: c.template.clone(),
                    id: c.id,
                    spoken: n < spoken,
                    judgement: judgement(state, c.id, &c.template),
                })
                .collect::<Vec<_>>()
        });
        let banned = ranked.map_or_else(Vec::new, |r| {
            r.banned
                .iter()
                .map(|c| Line {
                    text: c.template.clone(),
                    id: c.id,
                    spoken: false,
                    judgement: judgement(state, c.id, &c.template),
                })
                .collect()
        });
        let judged = lines.as_ref().is_some_and(|ls| {
            let spoken: Vec<&Line> = ls.iter().filter(|l| l.spoken).collect();
            !spoken.is_empty()
                && spoken
                    .iter()
                    .all(|l| matches!(l.judgement, Some(Choice::Accept | Choice::Pin)))
        });
        Row {
            key,
            file: f.path.to_string(),
            state: state.name.clone(),
            lines,
            banned,
            judged,
            current: ranked.is_some_and(|r| current.get(&key) == Some(&r.request)),
        }
    }
}

/// One state: its name, file and status, and its lines with their buttons.
fn state_card(ui: &mut Ui, row: &Row, f: &JudgeFile<'_>) -> Option<JudgeOut> {
    let mut out = None;
    let stroke = if row.judged {
        theme::TEXT_WEAK.gamma_multiply(0.4)
    } else {
        theme::WARNING.gamma_multiply(0.7)
    };
    egui::Frame::new()
        .fill(theme::PANEL)
        .stroke(egui::Stroke::new(1.0, stroke))
        .corner_radius(4.0)
        .inner_margin(egui::Margin::symmetric(10, 6))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            ui.horizontal(|ui| {
                let status = if row.judged { "judged" } else { "unjudged" };
                // The name opens the state in the sentence editor.
                let name = egui::Button::new(RichText::new(&row.state).strong().color(theme::TEXT))
                    .frame(false);
                let r = ui
                    .add(name)
                    .on_hover_text("Open this state in the sentence editor");
                name_widget(ui, &r, format!("judge state {} ({status})", row.state));
                if r.clicked() {
                    out = Some(JudgeOut::Open {
                        doc: f.doc,
                        state: row.state.clone(),
                    });
                }
                ui.label(RichText::new(&row.file).color(theme::TEXT_WEAK).small());
                let (fill, text) = if row.judged {
                    (theme::OK, Color32::BLACK)
                } else {
                    (theme::WARNING, Color32::BLACK)
                };
                ui.label(
                    RichText::new(status)
                        .small()
                        .color(text)
                        .background_color(fill),
                )
                .on_hover_text(if row.judged {
                    "The game speaks only lines you accepted or pinned"
                } else {
                    "The game speaks lines nobody judged: accept the right ones"
                });
                if !row.current {
                    ui.add(egui::Spinner::new().size(12.0));
                }
            });
            let Some(lines) = &row.lines else {
                ui.label(RichText::new("ranking…").color(theme::TEXT_WEAK).italics());
                return;
            };
            if lines.is_empty() {
                ui.label(
                    RichText::new("No candidate: give it a verb or a noun that makes words.")
                        .color(theme::WARNING),
                );
                return;
            }
            egui::Grid::new(("judge-lines", row.key))
                .num_columns(3)
                .min_col_width(14.0)
                .spacing([10.0, 3.0])
                .show(ui, |ui| {
                    for (n, line) in lines.iter().enumerate() {
                        ui.label(
                            RichText::new(format!("{}", n + 1))
                                .color(theme::TEXT_WEAK)
                                .monospace(),
                        );
                        ui.horizontal(|ui| {
                            let name = format!("{}: {}", row.state, line.text);
                            let choices = [Choice::Accept, Choice::Ban];
                            if let Some(choice) =
                                judge_buttons(ui, line.judgement, &choices, Some(&name))
                                && let Some(o) = edit(f, row, line, choice)
                            {
                                out = Some(o);
                            }
                        });
                        ui.horizontal(|ui| {
                            let color = if line.spoken { theme::OK } else { theme::TEXT };
                            let mut text = RichText::new(&line.text).color(color).size(14.5);
                            if line.spoken {
                                text = text.strong();
                            }
                            let r = ui.label(text);
                            let marks = [
                                (line.spoken, "spoken"),
                                (line.judgement == Some(Choice::Pin), "pinned"),
                                (line.judgement == Some(Choice::Accept), "accepted"),
                            ];
                            let said: Vec<&str> = marks
                                .iter()
                                .filter(|(on, _)| *on)
                                .map(|(_, w)| *w)
                                .collect();
                            name_widget(
                                ui,
                                &r,
                                format!(
                                    "line {} of {} ({})",
                                    line.text,
                                    row.state,
                                    said.join(", ")
                                ),
                            );
                            if line.spoken {
                                ui.label(
                                    RichText::new("spoken")
                                        .small()
                                        .color(Color32::BLACK)
                                        .background_color(theme::OK),
                                )
                                .on_hover_text("The game says this line (or one of these)");
                            }
                            if line.judgement == Some(Choice::Pin) {
                                ui.label(RichText::new("pinned").small().color(theme::ACCENT));
                            }
                        });
                        ui.end_row();
                    }
                    for line in &row.banned {
                        ui.label("");
                        let name = format!("{}: {}", row.state, line.text);
                        if let Some(choice) =
                            judge_buttons(ui, line.judgement, &[Choice::Ban], Some(&name))
                            && let Some(o) = edit(f, row, line, choice)
                        {
                            out = Some(o);
                        }
                        ui.label(
                            RichText::new(&line.text)
                                .color(theme::TEXT_WEAK)
                                .strikethrough(),
                        )
                        .on_hover_text("Banned: never said. Click the lit `ban` to take it back");
                        ui.end_row();
                    }
                });
        });
    ui.add_space(6.0);
    out
}

/// The file's new value after `choice` on `line` of the row's state.
fn edit(f: &JudgeFile<'_>, row: &Row, line: &Line, choice: Choice) -> Option<JudgeOut> {
    let mut value = f.value.clone();
    let state = value.states.get_mut(row.key.1)?;
    let taken_back = judgement(state, line.id, &line.text) == Some(choice);
    if !judge(state, choice, line.id, &line.text) {
        return None;
    }
    let label = if taken_back {
        format!("take back {} of {}", choice.word(), row.state)
    } else {
        format!("{} a line of {}", choice.word(), row.state)
    };
    Some(JudgeOut::Edit {
        doc: f.doc,
        value,
        label,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::formats::ron::SentenceStateAsset;
    use std::time::{Duration, Instant};

    fn state() -> SentenceStateAsset {
        SentenceStateAsset {
            verbs: "like, buy".into(),
            nouns: "I, ticket".into(),
            ..crate::sentences::empty_state("S")
        }
    }

    #[test]
    fn a_line_is_at_most_one_of_accept_pin_and_ban_and_a_second_click_clears_it() {
        let line = "I would like to buy a ticket.";
        let id = ensemble_runtime::speech::candidate_id("S", line);
        let mut s = state();
        // Written by id before (the sentence editor's old way): still recognised, and replaced.
        s.pin.push(format!("{id:08x}"));
        assert_eq!(judgement(&s, id, line), Some(Choice::Pin));
        assert!(judge(&mut s, Choice::Accept, id, line));
        assert!(s.pin.is_empty());
        assert_eq!(s.accept, vec![line.to_string()]);
        assert!(judge(&mut s, Choice::Ban, id, line));
        assert!(s.accept.is_empty());
        assert_eq!(s.ban, vec![line.to_string()]);
        // The lit button again: no judgement.
        assert!(judge(&mut s, Choice::Ban, id, line));
        assert_eq!(judgement(&s, id, line), None);
        assert!(s.ban.is_empty() && s.pin.is_empty() && s.accept.is_empty());
    }

    fn request(verbs: &str) -> Request {
        use ensemble_compiler::formats::ron::AssetKind;
        use ensemble_compiler::formats::ron::{AnyAsset, FileKind};
        let kind = FileKind::Asset(AssetKind::Sentences);
        let Some(Ok(AnyAsset::Sentences(mut value))) =
            AnyAsset::parse(kind, "Sentences(states: [])")
        else {
            panic!("an empty sentences file reads");
        };
        value.states = vec![SentenceStateAsset {
            verbs: verbs.into(),
            ..state()
        }];
        Request::of(&value, 0, std::path::Path::new("."))
    }

    /// The worker answers every state of a batch, and a newer batch replaces what is left.
    #[test]
    fn the_worker_ranks_each_state_of_the_newest_batch() {
        let worker = Worker::start(|| {});
        let first: Vec<(Key, Request)> = (0..3).map(|i| ((0, i), request("buy"))).collect();
        worker.to_worker.send(first).unwrap();
        let newer = vec![((0, 0), request("sell")), ((1, 0), request("book"))];
        worker.to_worker.send(newer.clone()).unwrap();
        let mut got: HashMap<Key, Ranked> = HashMap::new();
        let deadline = Instant::now() + Duration::from_secs(30);
        while newer
            .iter()
            .any(|(k, r)| got.get(k).is_none_or(|g| g.request != *r))
        {
            assert!(Instant::now() < deadline, "the worker never answered");
            if let Ok((k, r)) = worker.from_worker.recv_timeout(Duration::from_millis(50)) {
                got.insert(k, r);
            }
        }
        assert!(
            got[&(0, 0)]
                .candidates
                .iter()
                .any(|c| c.template.contains("sell"))
        );
        assert!(
            got[&(1, 0)]
                .candidates
                .iter()
                .any(|c| c.template.contains("book"))
        );
    }
}
