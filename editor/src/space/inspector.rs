//! The inspector beside the space graph: with nothing selected, the space (its name, initial
//! and disable states, the model dependency that engages it, a summary with "normalise every
//! row"); with a state selected, the state (name, expectations g(y, s) picked from the
//! project's estimators with their weights, its action, its row as a table with the sum).

use super::ops;
use crate::form_widgets::{self as form, Diags, P};
use crate::panel::{PanelCx, Request};
use crate::rename::Named;
use crate::sidecar::Layout;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::spaces::{ExpectAsset, InspectAsset, ShapeAsset, SpaceAsset};
use std::collections::BTreeSet;

/// What the inspector is told besides the space.
pub struct Cx<'a, 'b> {
    pub panel: &'a PanelCx<'b>,
    pub diags: Diags<'a>,
}

const WIDTH: f32 = 250.0;

fn shape_kind(s: &ShapeAsset) -> u8 {
    match s {
        ShapeAsset::Identity => 0,
        ShapeAsset::Threshold(_) => 1,
        ShapeAsset::Ramp(..) => 2,
        ShapeAsset::Scale(_) => 3,
    }
}

/// Edits a shaping function (`Identity`, `Threshold(θ)`, `Ramp(lo, hi)`, `Scale(k)`).
pub fn shape(ui: &mut Ui, id: &str, s: &mut ShapeAsset) -> bool {
    let mut kind = shape_kind(s);
    let mut changed = form::choose(
        ui,
        (id, "shape"),
        &mut kind,
        &[
            (0, "as is"),
            (1, "threshold (1 from θ)"),
            (2, "ramp (0 below lo, 1 above hi)"),
            (3, "scaled (min(1, k·x))"),
        ],
        WIDTH - 20.0,
        format!("{id} shape"),
    );
    if changed {
        *s = match kind {
            1 => ShapeAsset::Threshold(0.5),
            2 => ShapeAsset::Ramp(0.2, 0.8),
            3 => ShapeAsset::Scale(2.0),
            _ => ShapeAsset::Identity,
        };
    }
    ui.horizontal(|ui| match s {
        ShapeAsset::Identity => {}
        ShapeAsset::Threshold(t) => {
            ui.label(RichText::new("θ").color(theme::TEXT_WEAK));
            changed |= form::number(ui, t, 0.0..=1.0, 0.01, "", format!("{id} threshold"));
        }
        ShapeAsset::Ramp(a, b) => {
            ui.label(RichText::new("lo").color(theme::TEXT_WEAK));
            changed |= form::number(ui, a, 0.0..=1.0, 0.01, "", format!("{id} ramp low"));
            ui.label(RichText::new("hi").color(theme::TEXT_WEAK));
            changed |= form::number(ui, b, 0.0..=1.0, 0.01, "", format!("{id} ramp high"));
        }
        ShapeAsset::Scale(k) => {
            ui.label(RichText::new("k").color(theme::TEXT_WEAK));
            changed |= form::number(ui, k, 0.0..=100.0, 0.05, "", format!("{id} scale"));
        }
    });
    changed
}

/// The space's own fields.
pub fn space(ui: &mut Ui, sp: &mut SpaceAsset, cx: &Cx) -> bool {
    let mut changed = false;
    ui.label(RichText::new("HMM space").heading().color(theme::TEXT));
    form::section(ui, "Name");
    let notes = cx.diags.notes(&[P::F("name")]);
    if let Some(new) = form::name_field(ui, "space-name", &sp.name, WIDTH, "space name", &notes) {
        cx.panel.request(Request::Rename {
            what: Named::Space,
            old: sp.name.clone(),
            new,
        });
    }
    form::help(
        ui,
        "Renaming updates the inspections, dependencies and accumulators that name it.",
    );
    let states: Vec<String> = sp.states.iter().map(|s| s.name.clone()).collect();
    form::section(ui, "Initial state");
    changed |= form::pick_opt(
        ui,
        "space-initial",
        &mut sp.initial,
        &states,
        WIDTH - 20.0,
        "initial state",
        "none (required)",
    );
    form::problems(ui, cx.diags.under(&[P::F("initial")]));
    form::section(ui, "Disable state");
    changed |= form::pick_opt(
        ui,
        "space-disable",
        &mut sp.disable,
        &states,
        WIDTH - 20.0,
        "disable state",
        "none",
    );
    form::help(
        ui,
        "Where belief sits while the space is disengaged (a model dependency).",
    );
    form::problems(ui, cx.diags.under(&[P::F("disable")]));

    form::section(ui, "Engaged by");
    let mut on = sp.enabled_by.is_some();
    let r = ui.checkbox(&mut on, "depends on other spaces");
    crate::marks::name_widget(ui, &r, "depends on other spaces");
    if r.changed() {
        sp.enabled_by = on.then(|| InspectAsset {
            of: Vec::new(),
            shape: ShapeAsset::Threshold(0.5),
        });
        changed = true;
    }
    if let Some(dep) = &mut sp.enabled_by {
        let own = sp.name.clone();
        let targets: Vec<String> = cx
            .panel
            .names
            .more
            .inspection_targets()
            .into_iter()
            .filter(|t| t.split('.').next() != Some(own.as_str()))
            .collect();
        form::label(
            ui,
            "controllers",
            "The spaces (their activation) or states whose beliefs, summed and shaped, engage this space.",
        );
        changed |= form::chips(
            ui,
            "space-controllers",
            &mut dep.of,
            &targets,
            false,
            false,
            "controllers",
        );
        changed |= shape(ui, "engagement", &mut dep.shape);
        if sp.disable.is_none() {
            ui.label(RichText::new("⚠ a dependency needs a disable state").color(theme::WARNING));
        }
    }
    form::problems(ui, cx.diags.under(&[P::F("enabled_by")]));

    form::section(ui, "Contents");
    let transitions: usize = sp.states.iter().map(|s| s.to.len()).sum();
    let off = sp.states.iter().filter(|s| !ops::is_normalised(s)).count();
    ui.label(
        RichText::new(format!(
            "{} states, {transitions} transitions",
            sp.states.len()
        ))
        .color(theme::TEXT),
    );
    if off > 0 {
        ui.horizontal(|ui| {
            ui.label(
                RichText::new(format!(
                    "⚠ {off} row{} not summing to 1",
                    if off == 1 { "" } else { "s" }
                ))
                .color(theme::WARNING),
            );
            let b = ui.button("Normalise every row");
            crate::marks::name_widget(ui, &b, "normalise every row");
            if b.clicked() {
                changed |= ops::normalise_all(sp) > 0;
            }
        });
    } else {
        ui.label(RichText::new("✔ every row sums to 1").color(theme::OK));
    }
    form::problems(
        ui,
        cx.diags
            .outside(&["states", "initial", "disable", "enabled_by", "name"]),
    );
    ui.add_space(8.0);
    form::help(
        ui,
        "Select a state to edit it. Right-click the canvas to add one; drag from the ■ beside a + (or a dot) to connect.",
    );
    changed
}

/// The selected state's fields.
pub fn state(
    ui: &mut Ui,
    sp: &mut SpaceAsset,
    i: usize,
    layout: &mut Layout,
    selection: &mut BTreeSet<String>,
    cx: &Cx,
    focus_name: bool,
) -> bool {
    let mut changed = false;
    let name = sp.states[i].name.clone();
    ui.horizontal(|ui| {
        ui.label(RichText::new("State").heading().color(theme::TEXT));
        if sp.initial.as_deref() == Some(name.as_str()) {
            ui.label(RichText::new("▶ initial").small().color(theme::ACCENT));
        }
        if sp.disable.as_deref() == Some(name.as_str()) {
            ui.label(RichText::new("disable state").small().color(theme::SPECIAL));
        }
    });
    form::section(ui, "Name");
    let notes = cx.diags.notes(&[P::F("states"), P::I(i), P::F("name")]);
    // One field per state: one state's typing or selection never carries over to another.
    let id = ("space-state-name", sp.name.as_str(), name.as_str());
    if focus_name {
        // A state just added: its placeholder name is selected, so typing replaces it.
        let field = egui::Id::new(("name-field", id));
        let mut state = egui::text_edit::TextEditState::load(ui.ctx(), field).unwrap_or_default();
        state
            .cursor
            .set_char_range(Some(egui::text::CCursorRange::two(
                egui::text::CCursor::new(0),
                egui::text::CCursor::new(name.chars().count()),
            )));
        state.store(ui.ctx(), field);
        ui.memory_mut(|m| m.request_focus(field));
    }
    if let Some(new) = form::name_field(ui, id, &name, WIDTH, "state name", &notes) {
        cx.panel.request(Request::Rename {
            what: Named::SpaceState {
                space: sp.name.clone(),
            },
            old: name.clone(),
            new: new.clone(),
        });
        selection.remove(&name);
        selection.insert(new);
    }
    ui.horizontal(|ui| {
        if sp.initial.as_deref() != Some(name.as_str()) && ui.small_button("Make initial").clicked()
        {
            sp.initial = Some(name.clone());
            changed = true;
        }
        let mut disable = sp.disable.as_deref() == Some(name.as_str());
        let r = ui.checkbox(&mut disable, "disable state");
        crate::marks::name_widget(ui, &r, "disable state");
        if r.changed() {
            sp.disable = disable.then(|| name.clone());
            changed = true;
        }
    });

    form::section(ui, "Expects");
    form::help(
        ui,
        "Evidence this state hears, g(y, s): belief moves here when it is present.",
    );
    let estimators = &cx.panel.names.more.estimators;
    let mut remove = None;
    for (k, e) in sp.states[i].expects.iter_mut().enumerate() {
        let (mut n, mut w) = match e.clone() {
            ExpectAsset::Evidence(n) => (n, 1.0),
            ExpectAsset::Weighted(n, w) => (n, w),
        };
        let mut edited = false;
        ui.horizontal(|ui| {
            edited |= form::pick(
                ui,
                ("expects", i, k),
                &mut n,
                estimators,
                150.0,
                format!("expectation {}", k + 1),
                "evidence…",
            );
            ui.label(RichText::new("×").color(theme::TEXT_WEAK));
            edited |= form::number(
                ui,
                &mut w,
                0.0..=10.0,
                0.01,
                "",
                format!("weight of expectation {}", k + 1),
            );
            if form::remove_button(ui, format!("remove expectation {}", k + 1)) {
                remove = Some(k);
            }
        });
        form::problems(
            ui,
            cx.diags
                .under(&[P::F("states"), P::I(i), P::F("expects"), P::I(k)]),
        );
        if edited {
            *e = if w == 1.0 {
                ExpectAsset::Evidence(n)
            } else {
                ExpectAsset::Weighted(n, w)
            };
            changed = true;
        }
    }
    if let Some(k) = remove {
        sp.states[i].expects.remove(k);
        changed = true;
    }
    let add = ui.small_button("+ expectation");
    crate::marks::name_widget(ui, &add, "add expectation");
    if add.clicked() {
        sp.states[i]
            .expects
            .push(ExpectAsset::Evidence(String::new()));
        changed = true;
    }

    form::section(ui, "Action");
    changed |= form::pick_opt(
        ui,
        ("space-action", i),
        &mut sp.states[i].action,
        &cx.panel.names.more.actions,
        WIDTH - 20.0,
        "action",
        "none",
    );
    form::help(
        ui,
        "Proposed when this state has the most belief (arbitration picks among proposals).",
    );
    form::problems(
        ui,
        cx.diags.under(&[P::F("states"), P::I(i), P::F("action")]),
    );

    form::section(ui, "Transitions p(s' | s)");
    let states: Vec<String> = sp.states.iter().map(|s| s.name.clone()).collect();
    let mut remove = None;
    let mut retarget = None;
    egui::Grid::new(("space-row", i))
        .num_columns(3)
        .spacing([6.0, 4.0])
        .show(ui, |ui| {
            for (k, (t, p)) in sp.states[i].to.iter_mut().enumerate() {
                let mut target = t.clone();
                if form::pick(
                    ui,
                    ("to", i, k),
                    &mut target,
                    &states,
                    130.0,
                    format!("transition {} target", k + 1),
                    "state…",
                ) {
                    retarget = Some((k, target));
                }
                let mut v = *p;
                if form::number(
                    ui,
                    &mut v,
                    0.0..=1.0,
                    0.005,
                    "",
                    format!("transition {} probability", k + 1),
                ) {
                    *p = ops::round_p(v);
                    changed = true;
                }
                let x = ui.small_button("×").on_hover_text("Remove this transition");
                crate::marks::name_widget(ui, &x, format!("remove transition {}", k + 1));
                if x.clicked() {
                    remove = Some(k);
                }
                ui.end_row();
            }
        });
    if let Some((k, target)) = retarget {
        ops::retarget(sp, &name, k, &target);
        changed = true;
    }
    if let Some(k) = remove {
        ops::remove_transition(sp, &name, k);
        changed = true;
    }
    if sp.states[i].to.is_empty() {
        form::help(ui, "none: the state stays where it is (p = 1)");
    }
    ui.horizontal(|ui| {
        let free: Vec<String> = states
            .iter()
            .filter(|s| !sp.states[i].to.iter().any(|(t, _)| t == *s))
            .cloned()
            .collect();
        let r = ui.menu_button("+ transition", |ui| {
            for s in &free {
                if ui.button(s).clicked() {
                    changed |= ops::add_transition(sp, &name, s);
                    ui.close();
                }
            }
        });
        crate::marks::name_widget(ui, &r.response, "add transition");
        let st = &sp.states[i];
        let sum = ops::row_sum(st);
        if ops::is_normalised(st) {
            ui.label(RichText::new(format!("Σ {sum:.2} ✔")).color(theme::OK));
        } else {
            ui.label(RichText::new(format!("Σ {sum:.4} ⚠")).color(theme::WARNING));
            let b = ui.small_button("normalise");
            crate::marks::name_widget(ui, &b, "normalise this row");
            if b.clicked() {
                ops::normalise(&mut sp.states[i]);
                changed = true;
            }
        }
    });
    let mine: Vec<_> = cx.diags.under(&[P::F("states"), P::I(i)]).collect();
    if !mine.is_empty() {
        form::section(ui, "Problems");
        form::problems(ui, mine);
    }
    ui.add_space(8.0);
    ui.horizontal(|ui| {
        if ui.button("Duplicate").clicked() {
            let new = ops::duplicate(sp, layout, &[name.clone()].into(), [30.0, 30.0]);
            *selection = new.into_iter().collect();
            changed = true;
        }
        if ui
            .button(RichText::new("Delete").color(theme::ERROR))
            .clicked()
        {
            ops::delete_states(sp, layout, &[name.clone()].into());
            selection.clear();
            changed = true;
        }
    });
    changed
}
