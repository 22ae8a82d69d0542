//! The inspector's fields for a state whose library state declares named parameters
//! (docs/formats/statelib.md, "Parameters"): one field per parameter, with a widget for its
//! type — a text field, a number drag, a checkbox, a picker of the project's locations,
//! agents, machines or sentence states, a combo of the listed words, or a list of those — and
//! the default shown where the state leaves it unset.
//!
//! Every change becomes one [`Edit::SetParams`] holding the state's values afterwards: in
//! declaration order (the canonical `params` map), or, for a library state with one parameter
//! whose state writes it as `modifier:`, still as the modifier (files do not churn).

use super::edit::{Edit, InspectorCx, InspectorOutput};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::ron::{ModifierValue, ParamValueAsset, ParamValues, StateAsset};
use ensemble_runtime::program::{ParamKind, ParamLiteral, ParamSpec};

/// The value a state gives parameter `i` of `specs`, as written.
pub fn current(s: &StateAsset, specs: &[ParamSpec], i: usize) -> Option<ParamValueAsset> {
    if let Some(v) = s.params.get(&specs[i].name) {
        return Some(v.clone());
    }
    match (&s.modifier, specs.len()) {
        (Some(ModifierValue::Name(n)), 1) => Some(ParamValueAsset::Text(n.clone())),
        (Some(ModifierValue::Number(x)), 1) => Some(ParamValueAsset::Number(*x)),
        _ => None,
    }
}

/// The edit that sets parameter `name` of state `s` to `value` (`None`: back to its default).
pub fn set(
    s: &StateAsset,
    specs: &[ParamSpec],
    name: &str,
    value: Option<ParamValueAsset>,
) -> Edit {
    let undeclared: Vec<&(String, ParamValueAsset)> = s
        .params
        .0
        .iter()
        .filter(|(k, _)| !specs.iter().any(|p| &p.name == k))
        .collect();
    // A one-parameter state written with `modifier:` (or not yet written) stays so while the
    // value is one a modifier can hold.
    let as_modifier = specs.len() == 1
        && undeclared.is_empty()
        && (s.modifier.is_some() || s.params.is_empty())
        && matches!(
            value,
            None | Some(ParamValueAsset::Text(_) | ParamValueAsset::Number(_))
        );
    if as_modifier {
        let modifier = value.map(|v| match v {
            ParamValueAsset::Number(x) => ModifierValue::Number(x),
            ParamValueAsset::Text(t) => ModifierValue::Name(t),
            // Excluded above.
            other => ModifierValue::Name(format!("{other:?}")),
        });
        return Edit::SetParams {
            state: s.name.clone(),
            param: name.to_string(),
            modifier,
            params: ParamValues::default(),
        };
    }
    let mut params = ParamValues::default();
    for (i, spec) in specs.iter().enumerate() {
        let v = if spec.name == name {
            value.clone()
        } else {
            current(s, specs, i)
        };
        if let Some(v) = v {
            params.0.push((spec.name.clone(), v));
        }
    }
    // Values for names the library state does not declare stay (the diagnostic names them).
    params.0.extend(undeclared.into_iter().cloned());
    Edit::SetParams {
        state: s.name.clone(),
        param: name.to_string(),
        modifier: None,
        params,
    }
}

/// The values a state sets, as its node shows them (`clip Wave, loop true`).
pub fn summary(s: &StateAsset) -> Option<String> {
    fn text(v: &ParamValueAsset) -> String {
        match v {
            ParamValueAsset::Text(t) => t.clone(),
            ParamValueAsset::Number(x) => format!("{x}"),
            ParamValueAsset::Bool(b) => format!("{b}"),
            ParamValueAsset::List(items) => {
                let items: Vec<String> = items.iter().map(text).collect();
                format!("[{}]", items.join(", "))
            }
        }
    }
    let parts: Vec<String> = s
        .params
        .0
        .iter()
        .map(|(k, v)| format!("{k} {}", text(v)))
        .collect();
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// A default or value in words (`0.2`, `"full"`, `[Gate, Bar]`).
pub fn literal_text(l: &ParamLiteral) -> String {
    match l {
        ParamLiteral::Text(t) => t.clone(),
        ParamLiteral::Number(x) => format!("{x}"),
        ParamLiteral::Bool(b) => format!("{b}"),
        ParamLiteral::List(items) => {
            let items: Vec<String> = items.iter().map(literal_text).collect();
            format!("[{}]", items.join(", "))
        }
    }
}

/// Draws the fields of state `s`'s parameters.
pub fn show(
    ui: &mut Ui,
    s: &StateAsset,
    specs: &[ParamSpec],
    cx: &InspectorCx,
    out: &mut InspectorOutput,
) {
    for (i, spec) in specs.iter().enumerate() {
        let value = current(s, specs, i);
        let default = spec
            .default
            .as_ref()
            .map(ensemble_compiler::formats::ron::literal_asset);
        ui.horizontal_wrapped(|ui| {
            ui.label(RichText::new(&spec.name).strong().color(theme::TEXT));
            ui.label(
                RichText::new(spec.ty.describe())
                    .small()
                    .color(theme::TEXT_WEAK),
            );
            match &spec.default {
                Some(d) => {
                    ui.label(
                        RichText::new(format!("default {}", literal_text(d)))
                            .small()
                            .color(theme::TEXT_WEAK),
                    );
                }
                None => {
                    let color = if value.is_some() {
                        theme::TEXT_WEAK
                    } else {
                        theme::ERROR
                    };
                    ui.label(RichText::new("required").small().color(color));
                }
            }
            if value.is_some()
                && spec.default.is_some()
                && ui
                    .small_button("↺")
                    .on_hover_text("Back to the default")
                    .clicked()
            {
                out.edits.push(set(s, specs, &spec.name, None));
            }
        });
        let salt = (s.name.as_str(), spec.name.as_str());
        let changed = if spec.ty.list {
            list(
                ui,
                &spec.ty.kind,
                value.as_ref(),
                default.as_ref(),
                salt,
                &spec.name,
                cx,
            )
        } else {
            one(
                ui,
                &spec.ty.kind,
                value.as_ref(),
                default.as_ref(),
                salt,
                &spec.name,
                cx,
            )
        };
        if let Some(new) = changed {
            out.edits.push(set(s, specs, &spec.name, new));
        }
        ui.add_space(4.0);
    }
}

/// The names a picker offers for `kind`, and what it calls one.
fn options<'a>(kind: &'a ParamKind, cx: &'a InspectorCx) -> Option<(&'static str, &'a [String])> {
    Some(match kind {
        ParamKind::Location => ("location", &cx.names.locations),
        ParamKind::Agent => ("agent", &cx.names.agents),
        ParamKind::Machine => ("machine", &cx.names.machines),
        ParamKind::Sentence => ("sentence state", &cx.names.sentences),
        ParamKind::OneOf(words) => ("value", words),
        _ => return None,
    })
}

/// One value's widget. Returns the new value when the designer changed it (`Some(None)`:
/// cleared, back to the default).
fn one(
    ui: &mut Ui,
    kind: &ParamKind,
    value: Option<&ParamValueAsset>,
    default: Option<&ParamValueAsset>,
    salt: (&str, &str),
    name: &str,
    cx: &InspectorCx,
) -> Option<Option<ParamValueAsset>> {
    let shown = value.or(default);
    if let Some((what, names)) = options(kind, cx) {
        let current = match value {
            Some(ParamValueAsset::Text(t)) => Some(t.as_str()),
            _ => None,
        };
        let text = match (current, shown) {
            (Some(c), _) if names.iter().any(|n| n == c) => RichText::new(c),
            (Some(c), _) => RichText::new(format!("{c}  (unknown)")).color(theme::ERROR),
            (None, Some(ParamValueAsset::Text(d))) => {
                RichText::new(d.as_str()).color(theme::TEXT_WEAK)
            }
            _ => RichText::new(choose_prompt(what)).color(theme::TEXT_WEAK),
        };
        let mut picked = None;
        egui::ComboBox::from_id_salt(("param", salt.0, salt.1))
            .selected_text(text)
            .width(ui.available_width() - 8.0)
            .show_ui(ui, |ui| {
                for n in names {
                    if ui
                        .selectable_label(current == Some(n.as_str()), n)
                        .clicked()
                        && current != Some(n.as_str())
                    {
                        picked = Some(Some(ParamValueAsset::Text(n.clone())));
                    }
                }
            })
            .response
            .on_hover_text("Pick a value for this parameter");
        return picked;
    }
    match kind {
        ParamKind::Number => {
            let mut x = match shown {
                Some(ParamValueAsset::Number(x)) => *x,
                _ => 0.0,
            };
            let r = ui.add(egui::DragValue::new(&mut x).speed(0.05));
            // Named after the parameter, for screen readers and tests.
            r.widget_info(|| egui::WidgetInfo {
                label: Some(name.to_string()),
                ..egui::WidgetInfo::drag_value(true, x)
            });
            (r.changed() || (value.is_none() && r.clicked()))
                .then_some(Some(ParamValueAsset::Number(x)))
        }
        ParamKind::Bool => {
            let mut b = matches!(shown, Some(ParamValueAsset::Bool(true)));
            let r = ui.add(egui::Checkbox::without_text(&mut b));
            r.widget_info(|| egui::WidgetInfo::selected(egui::WidgetType::Checkbox, true, b, name));
            r.changed().then_some(Some(ParamValueAsset::Bool(b)))
        }
        // Text, and anything a picker does not offer.
        _ => {
            let mut text = match value {
                Some(ParamValueAsset::Text(t)) => t.clone(),
                _ => String::new(),
            };
            let hint = match default {
                Some(ParamValueAsset::Text(d)) => d.clone(),
                _ => "required".to_string(),
            };
            let r = ui.add(
                egui::TextEdit::singleline(&mut text)
                    .id(egui::Id::new(("param-text", salt.0, salt.1)))
                    .desired_width(f32::INFINITY)
                    .hint_text(hint.as_str()),
            );
            r.widget_info(|| egui::WidgetInfo {
                label: Some(name.to_string()),
                ..egui::WidgetInfo::text_edit(true, &text, &text, &hint)
            });
            r.changed()
                .then(|| (!text.is_empty()).then_some(ParamValueAsset::Text(text)))
        }
    }
}

/// A list's editor: each item's widget with a remove button, then an add button. Returns the
/// new list when it changed.
fn list(
    ui: &mut Ui,
    kind: &ParamKind,
    value: Option<&ParamValueAsset>,
    default: Option<&ParamValueAsset>,
    salt: (&str, &str),
    name: &str,
    cx: &InspectorCx,
) -> Option<Option<ParamValueAsset>> {
    let mut items = match value.or(default) {
        Some(ParamValueAsset::List(items)) => items.clone(),
        _ => Vec::new(),
    };
    let mut changed = false;
    let mut remove = None;
    for (k, item) in items.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            let item_salt = format!("{}[{k}]", salt.1);
            ui.scope(|ui| {
                ui.set_max_width(ui.available_width() - 30.0);
                if let Some(new) = one(ui, kind, Some(&*item), None, (salt.0, &item_salt), name, cx)
                {
                    match new {
                        Some(v) => *item = v,
                        None => remove = Some(k),
                    }
                    changed = true;
                }
            });
            if ui
                .small_button("×")
                .on_hover_text("Remove this item")
                .clicked()
            {
                remove = Some(k);
                changed = true;
            }
        });
    }
    if let Some(k) = remove {
        items.remove(k);
    }
    if ui.small_button(format!("+ Add to {}", salt.1)).clicked() {
        let first = |names: &[String]| names.first().cloned().unwrap_or_default();
        items.push(match kind {
            ParamKind::Number => ParamValueAsset::Number(0.0),
            ParamKind::Bool => ParamValueAsset::Bool(false),
            ParamKind::Text => ParamValueAsset::Text(String::new()),
            other => {
                ParamValueAsset::Text(options(other, cx).map_or(String::new(), |(_, n)| first(n)))
            }
        });
        changed = true;
    }
    changed.then_some(Some(ParamValueAsset::List(items)))
}

/// "choose a machine", "choose an agent": what an empty picker says.
pub(crate) fn choose_prompt(what: &str) -> String {
    let article = ensemble_compiler::nlg::indefinite_article(what);
    format!("choose {article} {what}")
}
