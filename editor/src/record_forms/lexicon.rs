//! The lexicon form (`*.lexicon.ron`): word categories for the preprocessor (Zubek §5.2.2) —
//! each one's words, and the categories it is built from by union, intersection and
//! difference. Patterns name categories as `@name`; renaming one renames it inside every
//! estimator's patterns ([`crate::rename`]).

use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::rename::Named;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::spaces::{CategoryAsset, LexiconAsset};

#[derive(Default)]
pub struct LexiconPanel {
    list: ItemList,
    pending: Option<Reveal>,
}

impl AssetPanel<LexiconAsset> for LexiconPanel {
    fn ui(&mut self, ui: &mut Ui, lex: &mut LexiconAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take()
            && let Some(i) = reveal_index(
                &t,
                "categories",
                lex.categories.iter().map(|c| c.name.as_str()),
            )
        {
            self.list.select(i);
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.label(RichText::new("Lexicon").heading().color(theme::TEXT));
        form::help(
            ui,
            "Word categories patterns test with @name (Zubek §5.2.2). Words are stemmed as the input is.",
        );
        form::problems(ui, d.outside(&["categories"]));
        crate::marks::docked(
            egui::Panel::left(ui.id().with("lexicon-list")),
            250.0,
            180.0,
        )
        .show(ui, |ui| {
            changed |= self.list.show(
                ui,
                "lexicon",
                "Categories",
                "category",
                &mut lex.categories,
                |i, c| ItemRow {
                    detail: if c.words.is_empty() {
                        String::new()
                    } else {
                        format!("{} words", c.words.len())
                    },
                    severity: d.worst(&[P::F("categories"), P::I(i)]),
                },
                |name| CategoryAsset {
                    name,
                    words: Vec::new(),
                    union: Vec::new(),
                    intersect: Vec::new(),
                    minus: Vec::new(),
                },
            );
        });
        let others: Vec<String> = lex.categories.iter().map(|c| c.name.clone()).collect();
        form::detail(ui, |ui| {
            let Some(i) = self.list.current(lex.categories.len()) else {
                form::help(ui, "No categories yet: add one with “+ category”.");
                return;
            };
            let c = &mut lex.categories[i];
            let others: Vec<String> = others.iter().filter(|n| **n != c.name).cloned().collect();
            let at = |f: &'static str| [P::F("categories"), P::I(i), P::F(f)];
            form::grid(ui, ("category", i), |ui| {
                form::label(
                    ui,
                    "Name",
                    "Patterns write it @name; renaming updates them.",
                );
                if let Some(new) = form::name_field(
                    ui,
                    ("category-name", i),
                    &c.name,
                    220.0,
                    "category name",
                    &d.notes(&at("name")),
                ) {
                    cx.request(Request::Rename {
                        what: Named::Category,
                        old: c.name.clone(),
                        new,
                    });
                }
                ui.end_row();
                form::label(ui, "Words", "Comma-separated.");
                ui.vertical(|ui| {
                    ui.set_width(420.0);
                    changed |= form::comma_area(
                        ui,
                        &mut c.words,
                        3,
                        "hi, hello, hey",
                        "words",
                        &d.notes(&at("words")),
                    );
                });
                ui.end_row();
                form::label(
                    ui,
                    "Union",
                    "Every word of these categories is in this one too.",
                );
                changed |= form::chips(
                    ui,
                    ("category-union", i),
                    &mut c.union,
                    &others,
                    false,
                    false,
                    "union",
                );
                ui.end_row();
                form::label(
                    ui,
                    "Intersect",
                    "Keep only words that are also in all of these.",
                );
                changed |= form::chips(
                    ui,
                    ("category-intersect", i),
                    &mut c.intersect,
                    &others,
                    false,
                    false,
                    "intersect",
                );
                ui.end_row();
                form::label(ui, "Minus", "Leave out the words of these.");
                changed |= form::chips(
                    ui,
                    ("category-minus", i),
                    &mut c.minus,
                    &others,
                    false,
                    false,
                    "minus",
                );
                ui.end_row();
            });
            form::problems(ui, d.under(&[P::F("categories"), P::I(i)]));
        });
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}
