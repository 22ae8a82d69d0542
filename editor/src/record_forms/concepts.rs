//! The concepts form (`*.concepts.ron`): the knowledge representation (Zubek §5.2.4) — concepts
//! with what they are a kind of, the words that name them, their properties (templates read
//! them) and relations — and situational variables with the trackers that bind them.

use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P, Side};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::rename::Named;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::spaces::{
    ConceptAsset, ConceptsAsset, SpeakerAsset, TallyAsset, TrackerAsset, TrackerRuleAsset,
    VariableAsset,
};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Tab {
    #[default]
    Concepts,
    Variables,
}

#[derive(Default)]
pub struct ConceptsPanel {
    tab: Tab,
    concepts: ItemList,
    variables: ItemList,
    pending: Option<Reveal>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    Mention,
    MentionEarlier,
    MentionThirdLast,
    Bind,
    Copy,
    Clear,
    Unheard,
    MentionAfter,
}

const RULES: [(Rule, &str); 8] = [
    (Rule::Mention, "the last mentioned"),
    (Rule::MentionEarlier, "the one mentioned before it"),
    (Rule::MentionThirdLast, "the third from the last"),
    (Rule::Bind, "bind to"),
    (Rule::Copy, "copy variable"),
    (Rule::Clear, "clear"),
    (Rule::Unheard, "a thing it knows nothing of"),
    (Rule::MentionAfter, "the one named after a word of"),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Who {
    Anyone,
    Player,
    Agent,
}

const WHO: [(Who, &str); 3] = [
    (Who::Anyone, "anyone speaks"),
    (Who::Player, "the player speaks"),
    (Who::Agent, "the agent speaks"),
];

/// The lexicon category of the words a rule reads what follows (a phrase start, a role word).
fn tracker_after(
    ui: &mut Ui,
    v: usize,
    k: usize,
    after: &mut String,
    categories: &[String],
) -> bool {
    form::pick(
        ui,
        ("tracker-after", v, k),
        after,
        categories,
        140.0,
        format!("tracker {} after", k + 1),
        "category…",
    )
}

/// The kinds a mention rule binds (any concept when none is chosen), as chips.
fn tracker_kinds(
    ui: &mut Ui,
    v: usize,
    k: usize,
    kinds: &mut Vec<String>,
    concepts: &[String],
) -> bool {
    ui.label(
        RichText::new(if kinds.is_empty() {
            "concept (any kind)"
        } else {
            "of kind"
        })
        .color(theme::TEXT_WEAK),
    );
    form::chips(
        ui,
        ("tracker-kinds", v, k),
        kinds,
        concepts,
        false,
        false,
        &format!("tracker {} kinds", k + 1),
    )
}

fn tracker(ui: &mut Ui, v: usize, k: usize, t: &mut TrackerAsset, cx: &PanelCx) -> bool {
    let mut changed = false;
    let names = &cx.names.more;
    ui.horizontal_wrapped(|ui| {
        let mut rule = match t.rule {
            TrackerRuleAsset::Mention(_) => Rule::Mention,
            TrackerRuleAsset::MentionEarlier(_) => Rule::MentionEarlier,
            TrackerRuleAsset::MentionThirdLast(_) => Rule::MentionThirdLast,
            TrackerRuleAsset::Bind(_) => Rule::Bind,
            TrackerRuleAsset::Copy(_) => Rule::Copy,
            TrackerRuleAsset::Clear => Rule::Clear,
            TrackerRuleAsset::Unheard { .. } => Rule::Unheard,
            TrackerRuleAsset::MentionAfter { .. } => Rule::MentionAfter,
        };
        if form::choose(
            ui,
            ("tracker-rule", v, k),
            &mut rule,
            &RULES,
            150.0,
            format!("tracker {} rule", k + 1),
        ) {
            t.rule = match rule {
                Rule::Mention => TrackerRuleAsset::Mention(Vec::new()),
                Rule::MentionEarlier => TrackerRuleAsset::MentionEarlier(Vec::new()),
                Rule::MentionThirdLast => TrackerRuleAsset::MentionThirdLast(Vec::new()),
                Rule::Bind => {
                    TrackerRuleAsset::Bind(names.concepts.first().cloned().unwrap_or_default())
                }
                Rule::Copy => TrackerRuleAsset::Copy(String::new()),
                Rule::Clear => TrackerRuleAsset::Clear,
                Rule::Unheard => TrackerRuleAsset::Unheard {
                    concept: names.concepts.first().cloned().unwrap_or_default(),
                    after: names.categories.first().cloned().unwrap_or_default(),
                },
                Rule::MentionAfter => TrackerRuleAsset::MentionAfter {
                    kinds: Vec::new(),
                    after: names.categories.first().cloned().unwrap_or_default(),
                },
            };
            changed = true;
        }
        match &mut t.rule {
            TrackerRuleAsset::Mention(kinds)
            | TrackerRuleAsset::MentionEarlier(kinds)
            | TrackerRuleAsset::MentionThirdLast(kinds) => {
                changed |= tracker_kinds(ui, v, k, kinds, &names.concepts);
            }
            TrackerRuleAsset::Bind(c) => {
                changed |= form::pick(
                    ui,
                    ("tracker-bind", v, k),
                    c,
                    &names.concepts,
                    140.0,
                    format!("tracker {} concept", k + 1),
                    "concept…",
                );
            }
            TrackerRuleAsset::Copy(x) => {
                changed |= form::pick(
                    ui,
                    ("tracker-copy", v, k),
                    x,
                    &names.variables,
                    140.0,
                    format!("tracker {} variable", k + 1),
                    "variable…",
                );
            }
            TrackerRuleAsset::Clear => {}
            TrackerRuleAsset::Unheard { concept, after } => {
                ui.label(RichText::new("as").color(theme::TEXT_WEAK));
                changed |= form::pick(
                    ui,
                    ("tracker-unheard", v, k),
                    concept,
                    &names.concepts,
                    140.0,
                    format!("tracker {} concept", k + 1),
                    "concept…",
                );
                ui.label(RichText::new("named after a word of").color(theme::TEXT_WEAK));
                changed |= tracker_after(ui, v, k, after, &names.categories);
            }
            TrackerRuleAsset::MentionAfter { kinds, after } => {
                changed |= tracker_after(ui, v, k, after, &names.categories);
                changed |= tracker_kinds(ui, v, k, kinds, &names.concepts);
            }
        }
    });
    ui.horizontal_wrapped(|ui| {
        ui.label(RichText::new("when").color(theme::TEXT_WEAK));
        changed |= form::pick_opt(
            ui,
            ("tracker-when", v, k),
            &mut t.when,
            &names.estimators,
            160.0,
            format!("tracker {} when", k + 1),
            "always",
        );
        if t.when.is_some() {
            ui.label(RichText::new("is at least").color(theme::TEXT_WEAK));
            changed |= form::number(
                ui,
                &mut t.above,
                0.0..=1.0,
                0.01,
                "",
                format!("tracker {} above", k + 1),
            );
        }
        ui.label(RichText::new("and").color(theme::TEXT_WEAK));
        let mut who = match t.speaker {
            None => Who::Anyone,
            Some(SpeakerAsset::Player) => Who::Player,
            Some(SpeakerAsset::Agent) => Who::Agent,
        };
        if form::choose(
            ui,
            ("tracker-who", v, k),
            &mut who,
            &WHO,
            140.0,
            format!("tracker {} speaker", k + 1),
        ) {
            t.speaker = match who {
                Who::Anyone => None,
                Who::Player => Some(SpeakerAsset::Player),
                Who::Agent => Some(SpeakerAsset::Agent),
            };
            changed = true;
        }
    });
    changed
}

impl ConceptsPanel {
    fn concept(
        &mut self,
        ui: &mut Ui,
        i: usize,
        c: &mut ConceptAsset,
        others: &[String],
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        let at = |f: &'static str| [P::F("concepts"), P::I(i), P::F(f)];
        form::grid(ui, ("concept", i), |ui| {
            form::label(
                ui,
                "Name",
                "Renaming updates kinds, relations, mentions, bindings and trackers.",
            );
            if let Some(new) = form::name_field(
                ui,
                ("concept-name", i),
                &c.name,
                220.0,
                "concept name",
                &d.notes(&at("name")),
            ) {
                cx.request(Request::Rename {
                    what: Named::Concept,
                    old: c.name.clone(),
                    new,
                });
            }
            ui.end_row();
            form::label(
                ui,
                "Is a",
                "Kinds it belongs to (a sword is a weapon); transitive.",
            );
            changed |= form::chips(
                ui,
                ("concept-is", i),
                &mut c.is,
                others,
                false,
                false,
                "is a",
            );
            ui.end_row();
            form::label(
                ui,
                "Words",
                "Words that name it in an utterance (stemmed), comma-separated; their synonyms name it too.",
            );
            changed |= form::comma_list(
                ui,
                &mut c.words,
                320.0,
                "sword, blade",
                "words",
                &d.notes(&at("words")),
            );
            ui.end_row();
            form::label(
                ui,
                "Kinds",
                "Words every kind of which names it too (person: a lord, a smith, a thief), comma-separated.",
            );
            changed |= form::comma_list(
                ui,
                &mut c.kinds,
                320.0,
                "person, place",
                "kinds",
                &d.notes(&at("kinds")),
            );
            ui.end_row();
            form::label(
                ui,
                "Cost",
                "What it adds to a tally, in the tallies' smallest unit (the-tab: copper).",
            );
            let mut cost = c.cost.map(f64::from);
            let most = f64::from(u32::MAX);
            if form::opt_number(ui, &mut cost, 1.0, 0.0..=most, 1.0, "", "not sold", "cost") {
                c.cost = cost.map(|x| x.round() as u32);
                changed = true;
            }
            ui.end_row();
        });
        form::section(ui, "Properties");
        form::help(
            ui,
            "What templates read: {the-item.price}; `name` is what {the-item} says; `quantity` is taken (the number heard: {the-dish.quantity}).",
        );
        let keys = vec!["name".to_string()];
        changed |= form::key_values(
            ui,
            ("concept-props", i),
            &mut c.properties,
            &keys,
            "property",
            "property",
        );
        form::section(ui, "Relations");
        changed |= form::pairs(
            ui,
            ("concept-relations", i),
            &mut c.relations,
            Side::Free {
                hint: "relation",
                width: 120.0,
            },
            "⏵",
            Side::Pick {
                options: others,
                width: 150.0,
            },
            "relation",
        );
        form::problems(ui, d.under(&[P::F("concepts"), P::I(i)]));
        changed
    }

    fn variable(
        &mut self,
        ui: &mut Ui,
        i: usize,
        v: &mut VariableAsset,
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        form::grid(ui, ("variable", i), |ui| {
            form::label(
                ui,
                "Name",
                "Templates read it as {name}; renaming updates them.",
            );
            let notes = d.notes(&[P::F("variables"), P::I(i), P::F("name")]);
            if let Some(new) = form::name_field(
                ui,
                ("variable-name", i),
                &v.name,
                220.0,
                "variable name",
                &notes,
            ) {
                cx.request(Request::Rename {
                    what: Named::Variable,
                    old: v.name.clone(),
                    new,
                });
            }
            ui.end_row();
        });
        changed |= tally(ui, i, v);
        form::problems(ui, d.under(&[P::F("variables"), P::I(i), P::F("tally")]));
        form::section(ui, "Trackers");
        form::help(
            ui,
            "Each iteration, the first tracker that fires rebinds the variable.",
        );
        let mut remove = None;
        for (k, t) in v.track.iter_mut().enumerate() {
            form::card(ui, |ui| {
                changed |= tracker(ui, i, k, t, cx);
                let x = ui.small_button("remove");
                crate::marks::name_widget(ui, &x, format!("remove tracker {}", k + 1));
                if x.clicked() {
                    remove = Some(k);
                }
                form::problems(
                    ui,
                    d.under(&[P::F("variables"), P::I(i), P::F("track"), P::I(k)]),
                );
            });
        }
        if let Some(k) = remove {
            v.track.remove(k);
            changed = true;
        }
        let add = ui.small_button("+ tracker");
        crate::marks::name_widget(ui, &add, "add tracker");
        if add.clicked() {
            v.track.push(TrackerAsset {
                rule: TrackerRuleAsset::Mention(Vec::new()),
                when: None,
                above: 0.5,
                speaker: Some(SpeakerAsset::Player),
            });
            changed = true;
        }
        form::problems(ui, d.under(&[P::F("variables"), P::I(i), P::F("name")]));
        changed
    }
}

/// Whether a variable is kept as a tally, and its units (largest first, the last worth 1).
fn tally(ui: &mut Ui, i: usize, v: &mut VariableAsset) -> bool {
    let mut changed = false;
    form::section(ui, "Tally");
    let mut on = v.tally.is_some();
    let r = ui.checkbox(
        &mut on,
        "Kept as a tally: actions put concepts on it, templates say {it} and {it.total}",
    );
    let r = r.on_hover_text(
        "Unticking drops its units (Undo brings them back). A tally has no trackers: only actions change it.",
    );
    crate::marks::name_widget(ui, &r, format!("variable {} is a tally", i + 1));
    if r.changed() {
        v.tally = on.then(|| TallyAsset {
            units: vec![("silver".into(), 10), ("copper".into(), 1)],
            and: "and".into(),
        });
        changed = true;
    }
    let Some(t) = &mut v.tally else {
        return changed;
    };
    form::help(
        ui,
        "Units from the largest to the smallest, which is worth 1.",
    );
    let mut remove = None;
    for (k, (word, value)) in t.units.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            changed |= form::text(ui, word, 120.0, "unit", format!("unit {}", k + 1), &[]);
            changed |= form::count(ui, value, 0..=u32::MAX, "", format!("unit {} value", k + 1));
            if form::remove_button(ui, format!("remove unit {}", k + 1)) {
                remove = Some(k);
            }
        });
    }
    if let Some(k) = remove {
        t.units.remove(k);
        changed = true;
    }
    if form::add_button(ui, "+ unit", "add unit") {
        t.units.push(("unit".into(), 1));
        changed = true;
    }
    ui.horizontal(|ui| {
        ui.label("Joined with");
        changed |= form::text(ui, &mut t.and, 80.0, "and", "tally and", &[]);
    });
    changed
}

impl AssetPanel<ConceptsAsset> for ConceptsPanel {
    fn ui(&mut self, ui: &mut Ui, c: &mut ConceptsAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take() {
            if let Some(i) =
                reveal_index(&t, "concepts", c.concepts.iter().map(|x| x.name.as_str()))
            {
                self.tab = Tab::Concepts;
                self.concepts.select(i);
            } else if let Some(i) =
                reveal_index(&t, "variables", c.variables.iter().map(|x| x.name.as_str()))
            {
                self.tab = Tab::Variables;
                self.variables.select(i);
            }
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new("Concepts").heading().color(theme::TEXT));
            ui.add_space(12.0);
            for (tab, label, n) in [
                (Tab::Concepts, "Concepts", c.concepts.len()),
                (Tab::Variables, "Situational variables", c.variables.len()),
            ] {
                let r = ui.selectable_label(self.tab == tab, format!("{label} ({n})"));
                if r.clicked() {
                    self.tab = tab;
                }
            }
        });
        form::problems(ui, d.outside(&["concepts", "variables"]));
        ui.separator();
        let others: Vec<String> = c.concepts.iter().map(|x| x.name.clone()).collect();
        let list = ui.id().with("concepts-list");
        match self.tab {
            Tab::Concepts => {
                crate::marks::docked(egui::Panel::left(list), 250.0, 180.0).show(ui, |ui| {
                    changed |= self.concepts.show(
                        ui,
                        "concepts",
                        "Concepts",
                        "concept",
                        &mut c.concepts,
                        |i, x| ItemRow {
                            detail: x.is.join(", "),
                            severity: d.worst(&[P::F("concepts"), P::I(i)]),
                        },
                        |name| ConceptAsset {
                            name,
                            is: Vec::new(),
                            words: Vec::new(),
                            kinds: Vec::new(),
                            properties: Default::default(),
                            relations: Vec::new(),
                            cost: None,
                        },
                    );
                });
                form::detail(ui, |ui| {
                    if let Some(i) = self.concepts.current(c.concepts.len()) {
                        let others: Vec<String> = others
                            .iter()
                            .filter(|n| **n != c.concepts[i].name)
                            .cloned()
                            .collect();
                        changed |= self.concept(ui, i, &mut c.concepts[i], &others, cx, d);
                    } else {
                        form::help(ui, "No concepts yet: add one with “+ concept”.");
                    }
                });
            }
            Tab::Variables => {
                crate::marks::docked(egui::Panel::left(list), 250.0, 180.0).show(ui, |ui| {
                    changed |= self.variables.show(
                        ui,
                        "variables",
                        "Variables",
                        "variable",
                        &mut c.variables,
                        |i, x| ItemRow {
                            detail: match (&x.tally, x.track.len()) {
                                (Some(_), _) => "tally".to_string(),
                                (None, 1) => "1 tracker".to_string(),
                                (None, n) => format!("{n} trackers"),
                            },
                            severity: d.worst(&[P::F("variables"), P::I(i)]),
                        },
                        |name| VariableAsset {
                            name,
                            track: Vec::new(),
                            tally: None,
                        },
                    );
                });
                form::detail(ui, |ui| {
                    if let Some(i) = self.variables.current(c.variables.len()) {
                        changed |= self.variable(ui, i, &mut c.variables[i], cx, d);
                    } else {
                        form::help(ui, "No variables yet: add one with “+ variable”.");
                    }
                });
            }
        }
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}
