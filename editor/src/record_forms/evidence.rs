//! The evidence form (`*.evidence.ron`): the estimators of evidence e(y) (Zubek §3.2) as a
//! list; the selected one's expression is typed as RON — a tree of `Match`, `And`, `Max`,
//! `Inspect`, ... reads better as text than as nested boxes — checked as it is typed
//! ([`form::ron_value`]), read back as a sentence, with the space states that expect it.
//! Renaming an estimator renames it in the spaces that expect it and the estimators that use
//! it ([`crate::rename`]).

use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::rename::Named;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::spaces::{
    EstimatorAsset, EvidenceAsset, ExprAsset, ShapeAsset, SpeakerAsset, VarTestAsset,
};

#[derive(Default)]
pub struct EvidencePanel {
    list: ItemList,
    pending: Option<Reveal>,
}

fn shape(s: &ShapeAsset) -> String {
    match s {
        ShapeAsset::Identity => String::new(),
        ShapeAsset::Threshold(t) => format!(", 1 from {t}"),
        ShapeAsset::Ramp(a, b) => format!(", ramped {a}–{b}"),
        ShapeAsset::Scale(k) => format!(", × {k} (at most 1)"),
    }
}

fn list(xs: &[ExprAsset]) -> String {
    xs.iter().map(describe).collect::<Vec<_>>().join("; ")
}

/// A surface pattern read out word by word, so what `|` and `*` do is visible: `|` offers
/// alternatives for one word ("your name|who are you" is "your", then "name" or "who", then
/// "are you"), not for phrases.
fn read_pattern(p: &str) -> String {
    // One word of the pattern (compiler/src/hpmm/pattern.rs): a category, all of several, any
    // word, or the word itself.
    let word = |w: &str| match w.strip_prefix('@') {
        Some(cats) if cats.contains('&') => format!("a word of {}", cats.replace('&', " and ")),
        Some(cat) => format!("a word of {cat}"),
        None if w == "_" => "any one word".into(),
        None => format!("“{w}”"),
    };
    let mut parts: Vec<String> = Vec::new();
    for tok in p.split_whitespace() {
        parts.push(match tok {
            "^" => "(at the start)".into(),
            "$" => "(at the end)".into(),
            "*" => "…".into(),
            t if t.contains('|') => {
                let words: Vec<String> = t.split('|').map(word).collect();
                format!("one of {}", words.join(" or "))
            }
            t => word(t),
        });
    }
    parts.join(" ")
}

/// An estimator's expression read as a sentence.
pub fn describe(e: &ExprAsset) -> String {
    match e {
        ExprAsset::Always => "always 1".into(),
        ExprAsset::Match(p, c) => format!("the line has {} ({c})", read_pattern(p)),
        ExprAsset::Speaker(SpeakerAsset::Player) => "the player speaks".into(),
        ExprAsset::Speaker(SpeakerAsset::Agent) => "the agent speaks".into(),
        ExprAsset::Emote(x) => format!("the emote is “{x}”"),
        ExprAsset::Did(a) => format!("the agent did {a}"),
        ExprAsset::DidAny => "the agent did anything".into(),
        ExprAsset::Mentions(c) => format!("it mentions a {c}"),
        ExprAsset::Inspect { of, shape: s } => format!("belief in {}{}", of.join(" + "), shape(s)),
        ExprAsset::Var(v, VarTestAsset::Bound) => format!("{v} is bound"),
        ExprAsset::Var(v, VarTestAsset::IsA(c)) => format!("{v} is a {c}"),
        ExprAsset::Var(v, VarTestAsset::Holds(c)) => format!("{v} holds a {c}"),
        ExprAsset::Var(v, VarTestAsset::Related(r, c)) => format!("{v}'s {r} is {c}"),
        ExprAsset::Ev(n) => n.clone(),
        ExprAsset::And(xs) => format!("all of [{}]", list(xs)),
        ExprAsset::Or(xs) => format!("any of [{}]", list(xs)),
        ExprAsset::Max(xs) => format!("the strongest of [{}]", list(xs)),
        ExprAsset::Not(x) => format!("not ({})", describe(x)),
        ExprAsset::Scale(k, x) => format!("{k} × ({})", describe(x)),
    }
}

/// Expressions to start from, with what each is for.
fn starters() -> Vec<(&'static str, ExprAsset)> {
    vec![
        (
            "a surface pattern",
            ExprAsset::Match("^ hello|hi".into(), 0.9),
        ),
        (
            "the player saying something",
            ExprAsset::And(vec![
                ExprAsset::Ev("player".into()),
                ExprAsset::Match("please".into(), 0.8),
            ]),
        ),
        (
            "the agent's own action (feedback)",
            ExprAsset::Did("greet".into()),
        ),
        ("a mention of a concept", ExprAsset::Mentions("item".into())),
        (
            "another space's belief",
            ExprAsset::Inspect {
                of: vec!["space.state".into()],
                shape: ShapeAsset::Threshold(0.5),
            },
        ),
        (
            "the strongest of several",
            ExprAsset::Max(vec![ExprAsset::Ev("a".into()), ExprAsset::Ev("b".into())]),
        ),
    ]
}

impl AssetPanel<EvidenceAsset> for EvidencePanel {
    fn ui(&mut self, ui: &mut Ui, ev: &mut EvidenceAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take()
            && let Some(i) = reveal_index(
                &t,
                "estimators",
                ev.estimators.iter().map(|e| e.name.as_str()),
            )
        {
            self.list.select(i);
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.label(RichText::new("Evidence").heading().color(theme::TEXT));
        form::help(
            ui,
            "Estimators of the evidence e(y), between 0 and 1, from each input (Zubek §3.2); spaces' states expect them.",
        );
        form::problems(ui, d.outside(&["estimators"]));
        crate::marks::docked(
            egui::Panel::left(ui.id().with("evidence-list")),
            270.0,
            180.0,
        )
        .show(ui, |ui| {
            changed |= self.list.show(
                ui,
                "evidence",
                "Estimators",
                "estimator",
                &mut ev.estimators,
                |i, _| ItemRow {
                    detail: String::new(),
                    severity: d.worst(&[P::F("estimators"), P::I(i)]),
                },
                |name| EstimatorAsset {
                    name,
                    is: ExprAsset::Always,
                },
            );
        });
        form::detail(ui, |ui| {
            let Some(i) = self.list.current(ev.estimators.len()) else {
                form::help(ui, "No estimators yet: add one with “+ estimator”.");
                return;
            };
            let e = &mut ev.estimators[i];
            form::grid(ui, ("estimator", i), |ui| {
                form::label(
                    ui,
                    "Name",
                    "Spaces expect it by this name; renaming updates them.",
                );
                let notes = d.notes(&[P::F("estimators"), P::I(i), P::F("name")]);
                if let Some(new) = form::name_field(
                    ui,
                    ("estimator-name", i),
                    &e.name,
                    260.0,
                    "estimator name",
                    &notes,
                ) {
                    cx.request(Request::Rename {
                        what: Named::Estimator,
                        old: e.name.clone(),
                        new,
                    });
                }
                ui.end_row();
            });
            form::section(ui, "Is");
            changed |= form::ron_value(ui, ("estimator-expr", i), &mut e.is, 4, "expression");
            ui.horizontal_wrapped(|ui| {
                ui.label(RichText::new("reads:").color(theme::TEXT_WEAK));
                ui.label(RichText::new(describe(&e.is)).italics().color(theme::TEXT));
            });
            let r = ui.menu_button("Start from…", |ui| {
                for (what, expr) in starters() {
                    if ui.button(what).on_hover_text(form_text(&expr)).clicked() {
                        e.is = expr;
                        changed = true;
                        ui.close();
                    }
                }
            });
            crate::marks::name_widget(ui, &r.response, "start from");
            form::help(
                ui,
                "Match(pattern, confidence): words in order; a|b is one word or the other (a phrase of its own is a Match of its own, inside Max([...])); _ is any one word, * any words; ^ and $ are the start and end; @category a word of a lexicon category (@a&b of both) · Speaker(Player|Agent) · Emote(\"nods\") · Did(\"action\") · DidAny · Mentions(\"concept\") · Inspect(of: [\"space.state\"], shape: Threshold(0.5)) · Var(\"the-topic\", IsA(\"quest\")) · Var(\"the-tab\", Holds(\"room\")) · Ev(\"other\") · And/Or/Max([...]) · Not(...) · Scale(k, ...)",
            );
            let by: Vec<&str> = cx
                .names
                .more
                .expected_by
                .iter()
                .filter(|(y, _)| *y == e.name)
                .map(|(_, s)| s.as_str())
                .collect();
            form::section(ui, "Expected by");
            if by.is_empty() {
                form::help(ui, "no space state (it may still feed other estimators)");
            } else {
                ui.label(RichText::new(by.join(", ")).color(theme::TEXT));
            }
            let mine: Vec<_> = d.under(&[P::F("estimators"), P::I(i)]).collect();
            if !mine.is_empty() {
                form::section(ui, "Problems");
                form::problems(ui, mine);
            }
        });
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

fn form_text(e: &ExprAsset) -> String {
    crate::form_widgets::ron_value_text(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Xvfb designer wrote "your name|who are you" for two phrases; the reading shows it
    /// is one word or another between "your" and "are you".
    #[test]
    fn a_pattern_reads_word_by_word() {
        assert_eq!(
            read_pattern("your name|who are you"),
            "“your” one of “name” or “who” “are” “you”"
        );
        assert_eq!(
            read_pattern("^ @greeting-word * friend $"),
            "(at the start) a word of greeting-word … “friend” (at the end)"
        );
        assert_eq!(
            read_pattern("can|@modal _ @copula&negative"),
            "one of “can” or a word of modal any one word a word of copula and negative"
        );
    }

    #[test]
    fn expressions_read_as_sentences() {
        let e = ExprAsset::And(vec![
            ExprAsset::Ev("player".into()),
            ExprAsset::Not(Box::new(ExprAsset::Did("greet".into()))),
        ]);
        assert_eq!(describe(&e), "all of [player; not (the agent did greet)]");
        for (_, s) in starters() {
            assert!(!describe(&s).is_empty());
        }
    }
}
