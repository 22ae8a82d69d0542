//! The widgets every form panel is made of (scenes, locations, smart locations, the manifest,
//! state libraries, the HMM companions): labelled rows, text and number fields, pickers that
//! show an unknown name in red instead of hiding it, name chips, comma-separated and
//! one-per-line lists, key/value tables, a RON value typed and checked as you type, names that
//! commit on Enter, and the list-and-detail layout ([`ItemList`]).
//!
//! Every widget edits a plain value in place and returns whether it changed it (the host
//! records the change), and gives itself an accessible name (what screen readers say and what
//! tests find it by). Text typed into a list field is kept as typed while the field has the
//! keyboard, so typing `a, ` does not lose its comma to the parsed list.

mod items;
mod ron_value;

pub use items::{Item, ItemList, ItemRow, unique_name};
pub use ron_value::{print as ron_value_text, ron_value};

use crate::analysis::Located;
use crate::marks::{mark, name_widget, severity_glyph};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::locate::PathSeg;
use std::collections::BTreeMap;

/// One step of a RON path, as a form names a field: `&[F("agents"), I(2), F("at")]`.
#[derive(Clone, Copy, Debug)]
pub enum P<'a> {
    F(&'a str),
    I(usize),
}

fn owned(path: &[P]) -> Vec<PathSeg> {
    path.iter()
        .map(|p| match p {
            P::F(f) => PathSeg::Field(f.to_string()),
            P::I(i) => PathSeg::Index(*i),
        })
        .collect()
}

/// A document's diagnostics as a form looks them up: by the RON path of the field they name.
#[derive(Clone, Copy)]
pub struct Diags<'a> {
    pub list: &'a [Located],
}

impl<'a> Diags<'a> {
    /// The diagnostics whose path starts with `path`.
    pub fn under(&self, path: &[P]) -> impl Iterator<Item = &'a Located> + 'a {
        let path = owned(path);
        self.list.iter().filter(move |l| l.path.starts_with(&path))
    }

    /// Severity and message of each diagnostic under `path`, for [`mark`].
    pub fn notes(&self, path: &[P]) -> Vec<(Severity, String)> {
        self.under(path)
            .map(|l| {
                (
                    l.severity(),
                    format!("{}: {}", l.diagnostic.code.as_str(), l.diagnostic.message),
                )
            })
            .collect()
    }

    /// The worst severity under `path` (errors first), warnings and errors only.
    pub fn worst(&self, path: &[P]) -> Option<Severity> {
        self.under(path)
            .map(|l| l.severity())
            .filter(|s| *s != Severity::Info)
            .min()
    }

    /// Diagnostics that name no field of the form (the whole asset, or a path the form does
    /// not show), to list above it.
    pub fn outside(&self, shown: &[&str]) -> impl Iterator<Item = &'a Located> + 'a {
        let shown: Vec<String> = shown.iter().map(|s| s.to_string()).collect();
        self.list.iter().filter(move |l| match l.path.first() {
            Some(PathSeg::Field(f)) => !shown.contains(f),
            _ => true,
        })
    }
}

/// A list of problems, one line each, coloured by severity.
pub fn problems<'a>(ui: &mut Ui, list: impl IntoIterator<Item = &'a Located>) {
    for l in list {
        ui.horizontal_wrapped(|ui| {
            let color = theme::severity_color(l.severity());
            ui.label(
                RichText::new(format!(
                    "{} {}",
                    severity_glyph(l.severity()),
                    l.diagnostic.code.as_str()
                ))
                .monospace()
                .color(color),
            );
            ui.label(RichText::new(&l.diagnostic.message).color(theme::TEXT));
        });
    }
}

/// A section title in the forms' small caps style.
pub fn section(ui: &mut Ui, title: &str) {
    ui.add_space(10.0);
    ui.label(
        RichText::new(title.to_uppercase())
            .font(theme::section_font())
            .color(theme::TEXT_WEAK)
            .strong(),
    );
    ui.add_space(2.0);
}

/// A two-column grid of labelled rows.
pub fn grid<R>(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    add: impl FnOnce(&mut Ui) -> R,
) -> R {
    egui::Grid::new(id)
        .num_columns(2)
        .spacing([14.0, 7.0])
        .min_col_width(90.0)
        .show(ui, add)
        .inner
}

/// The label of a row, with its explanation on hover.
pub fn label(ui: &mut Ui, text: &str, help: &str) {
    let r = ui.label(RichText::new(text).color(theme::TEXT_WEAK));
    if !help.is_empty() {
        r.on_hover_text(help);
    }
}

/// A one-line text field, outlined when `notes` has problems for it.
pub fn text(
    ui: &mut Ui,
    value: &mut String,
    width: f32,
    hint: &str,
    name: impl Into<String>,
    notes: &[(Severity, String)],
) -> bool {
    let r = crate::marks::text_field(ui, value, width, hint, name);
    mark(ui, r, notes).changed()
}

/// An optional text: empty is `None`.
pub fn opt_text(
    ui: &mut Ui,
    value: &mut Option<String>,
    width: f32,
    hint: &str,
    name: impl Into<String>,
    notes: &[(Severity, String)],
) -> bool {
    let mut t = value.clone().unwrap_or_default();
    if text(ui, &mut t, width, hint, name, notes) {
        *value = (!t.trim().is_empty()).then_some(t);
        true
    } else {
        false
    }
}

/// A number dragged or typed, within `range`.
pub fn number(
    ui: &mut Ui,
    value: &mut f64,
    range: std::ops::RangeInclusive<f64>,
    speed: f64,
    suffix: &str,
    name: impl Into<String>,
) -> bool {
    let r = ui.add(
        egui::DragValue::new(value)
            .range(range)
            .speed(speed)
            .suffix(suffix)
            .max_decimals(3),
    );
    name_widget(ui, &r, name);
    r.changed()
}

/// A whole number dragged or typed, within `range`.
pub fn count(
    ui: &mut Ui,
    value: &mut u32,
    range: std::ops::RangeInclusive<u32>,
    suffix: &str,
    name: impl Into<String>,
) -> bool {
    let r = ui.add(egui::DragValue::new(value).range(range).suffix(suffix));
    name_widget(ui, &r, name);
    r.changed()
}

/// An optional number: a checkbox, and the value when it is on (`default` when turned on).
#[allow(clippy::too_many_arguments)]
pub fn opt_number(
    ui: &mut Ui,
    value: &mut Option<f64>,
    default: f64,
    range: std::ops::RangeInclusive<f64>,
    speed: f64,
    suffix: &str,
    off: &str,
    name: &str,
) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let mut on = value.is_some();
        let r = ui.checkbox(&mut on, "");
        name_widget(ui, &r, format!("{name} set"));
        if r.changed() {
            *value = on.then_some(default);
            changed = true;
        }
        match value {
            Some(v) => changed |= number(ui, v, range, speed, suffix, name),
            None => {
                ui.label(RichText::new(off).color(theme::TEXT_WEAK));
            }
        }
    });
    changed
}

/// The shown text of a picker: the value, a placeholder, or the value marked unknown.
fn shown(value: &str, options: &[String], placeholder: &str) -> RichText {
    if value.is_empty() {
        RichText::new(placeholder).color(theme::TEXT_WEAK)
    } else if options.iter().any(|o| o == value) {
        RichText::new(value)
    } else {
        RichText::new(format!("{value}  (unknown)")).color(theme::ERROR)
    }
}

/// The options of a popup, filtered by what is typed above them when there are many.
fn filtered<'o>(ui: &mut Ui, id: egui::Id, options: &'o [String]) -> Vec<&'o String> {
    if options.len() <= 12 {
        return options.iter().collect();
    }
    let mut filter: String = ui.data(|d| d.get_temp(id)).unwrap_or_default();
    let r = ui.add(
        egui::TextEdit::singleline(&mut filter)
            .hint_text("filter…")
            .desired_width(200.0),
    );
    name_widget(ui, &r, "filter");
    if !r.has_focus() && filter.is_empty() {
        r.request_focus();
    }
    ui.data_mut(|d| d.insert_temp(id, filter.clone()));
    let f = filter.to_lowercase();
    options
        .iter()
        .filter(|o| f.is_empty() || o.to_lowercase().contains(&f))
        .collect()
}

/// Picks `value` among `options` (an unknown value stays, shown in red); `name` is the
/// accessible name, `placeholder` what an empty value shows.
pub fn pick(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    value: &mut String,
    options: &[String],
    width: f32,
    name: impl Into<String>,
    placeholder: &str,
) -> bool {
    let id = egui::Id::new(("pick", id));
    let mut changed = false;
    let r = egui::ComboBox::from_id_salt(id)
        .selected_text(shown(value, options, placeholder))
        .width(width)
        .height(320.0)
        .show_ui(ui, |ui| {
            for o in filtered(ui, id.with("filter"), options) {
                if ui.selectable_label(o == value, o).clicked() && o != value {
                    *value = o.clone();
                    changed = true;
                }
            }
        });
    name_widget(ui, &r.response, name);
    changed
}

/// [`pick`] for an optional name: `none` is the choice of nothing.
pub fn pick_opt(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    value: &mut Option<String>,
    options: &[String],
    width: f32,
    name: impl Into<String>,
    none: &str,
) -> bool {
    let id = egui::Id::new(("pick", id));
    let mut changed = false;
    let current = value.clone().unwrap_or_default();
    let r = egui::ComboBox::from_id_salt(id)
        .selected_text(shown(&current, options, none))
        .width(width)
        .height(320.0)
        .show_ui(ui, |ui| {
            if ui
                .selectable_label(value.is_none(), RichText::new(none).italics())
                .clicked()
                && value.is_some()
            {
                *value = None;
                changed = true;
            }
            for o in filtered(ui, id.with("filter"), options) {
                if ui.selectable_label(*o == current, o).clicked() && *o != current {
                    *value = Some(o.clone());
                    changed = true;
                }
            }
        });
    name_widget(ui, &r.response, name);
    changed
}

/// Picks one of the values of an enum-like `choices` list by its label.
pub fn choose<T: PartialEq + Copy>(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    value: &mut T,
    choices: &[(T, &str)],
    width: f32,
    name: impl Into<String>,
) -> bool {
    let before = *value;
    let text = choices
        .iter()
        .find(|(c, _)| c == value)
        .map_or("", |(_, l)| *l);
    let r = egui::ComboBox::from_id_salt(egui::Id::new(("choose", id)))
        .selected_text(text)
        .width(width)
        .show_ui(ui, |ui| {
            for (c, l) in choices {
                ui.selectable_value(value, *c, *l);
            }
        });
    name_widget(ui, &r.response, name);
    *value != before
}

/// Names as chips with a remove button each, and a `+` menu offering the `options` not chosen
/// yet (and a typed name, when `free`). With `ordered`, a chip's menu moves it.
pub fn chips(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    list: &mut Vec<String>,
    options: &[String],
    free: bool,
    ordered: bool,
    name: &str,
) -> bool {
    let id = egui::Id::new(("chips", id));
    let mut changed = false;
    let mut remove = None;
    let mut swap = None;
    ui.horizontal_wrapped(|ui| {
        ui.spacing_mut().item_spacing.x = 4.0;
        let len = list.len();
        for (i, item) in list.iter().enumerate() {
            let known = options.is_empty() || options.contains(item) || free;
            let color = if known { theme::TEXT } else { theme::ERROR };
            egui::Frame::new()
                .fill(theme::BOX_FILL)
                .stroke(egui::Stroke::new(1.0, theme::BOX_STROKE))
                .corner_radius(9)
                .inner_margin(egui::Margin::symmetric(7, 1))
                .show(ui, |ui| {
                    ui.horizontal(|ui| {
                        ui.spacing_mut().item_spacing.x = 2.0;
                        let text = if ordered {
                            format!("{}. {item}", i + 1)
                        } else {
                            item.clone()
                        };
                        let r = ui.label(RichText::new(text).color(color));
                        if !known {
                            r.on_hover_text(format!("`{item}` is not defined in this project"));
                        }
                        let x = ui.add(egui::Button::new("×").small().frame(false));
                        name_widget(ui, &x, format!("remove {item} from {name}"));
                        if x.clicked() {
                            remove = Some(i);
                        }
                        if ordered {
                            let earlier =
                                ui.add_enabled(i > 0, egui::Button::new("⏴").small().frame(false));
                            name_widget(ui, &earlier, format!("move {item} earlier in {name}"));
                            if earlier.clicked() {
                                swap = Some((i - 1, i));
                            }
                            let later = ui.add_enabled(
                                i + 1 < len,
                                egui::Button::new("⏵").small().frame(false),
                            );
                            name_widget(ui, &later, format!("move {item} later in {name}"));
                            if later.clicked() {
                                swap = Some((i, i + 1));
                            }
                        }
                    });
                });
        }
        let r = ui.menu_button(RichText::new("+").color(theme::ACCENT), |ui| {
            let left: Vec<String> = options
                .iter()
                .filter(|o| !list.contains(o))
                .cloned()
                .collect();
            if free {
                let mut typed: String = ui
                    .data(|d| d.get_temp(id.with("typed")))
                    .unwrap_or_default();
                ui.horizontal(|ui| {
                    let r = ui.add(
                        egui::TextEdit::singleline(&mut typed)
                            .hint_text("a name…")
                            .desired_width(150.0),
                    );
                    name_widget(ui, &r, format!("new name for {name}"));
                    let enter = r.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                    if (ui.button("Add").clicked() || enter) && !typed.trim().is_empty() {
                        list.push(typed.trim().to_string());
                        typed.clear();
                        changed = true;
                        ui.close();
                    }
                });
                ui.data_mut(|d| d.insert_temp(id.with("typed"), typed));
            }
            if left.is_empty() && !free {
                ui.label(
                    RichText::new("nothing left to add")
                        .italics()
                        .color(theme::TEXT_WEAK),
                );
            }
            for o in filtered(ui, id.with("filter"), &left) {
                if ui.button(o).clicked() {
                    list.push(o.clone());
                    changed = true;
                    ui.close();
                }
            }
        });
        name_widget(ui, &r.response, format!("add to {name}"));
    });
    if let Some(i) = remove {
        list.remove(i);
        changed = true;
    }
    if let Some((a, b)) = swap {
        list.swap(a, b);
        changed = true;
    }
    changed
}

/// A text field whose text is kept as typed while it has the keyboard: `parse` turns it into
/// the value (set on every change), `print` the value into text when the field is not in use.
fn buffered<T: PartialEq>(
    ui: &mut Ui,
    id: egui::Id,
    value: &mut T,
    print: impl Fn(&T) -> String,
    parse: impl Fn(&str) -> T,
    edit: impl FnOnce(&mut String) -> egui::TextEdit<'_>,
    name: impl Into<String>,
) -> egui::Response {
    let focused = ui.memory(|m| m.has_focus(id));
    let kept: Option<String> = ui.data(|d| d.get_temp(id));
    let mut text = match kept {
        Some(t) if focused && parse(&t) == *value => t,
        _ => print(value),
    };
    let r = ui.add(edit(&mut text).id(id));
    name_widget(ui, &r, name);
    if r.changed() {
        *value = parse(&text);
    }
    ui.data_mut(|d| d.insert_temp(id, text));
    r
}

fn split_list(text: &str, sep: char) -> Vec<String> {
    text.split(sep)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// How a list is typed as text.
#[derive(Clone, Copy, PartialEq)]
enum ListText {
    /// One line, comma-separated.
    Comma,
    /// Comma-separated over several lines; a line break separates too.
    CommaLines,
    /// One item per line.
    Lines,
}

#[allow(clippy::too_many_arguments)]
fn list_field(
    ui: &mut Ui,
    list: &mut Vec<String>,
    typed: ListText,
    width: f32,
    rows: usize,
    hint: &str,
    name: String,
    notes: &[(Severity, String)],
) -> bool {
    let salt = match typed {
        ListText::Comma => "comma-list",
        ListText::CommaLines => "comma-area",
        ListText::Lines => "line-list",
    };
    let id = ui.id().with((salt, &name));
    let r = buffered(
        ui,
        id,
        list,
        |l| l.join(if typed == ListText::Lines { "\n" } else { ", " }),
        |t| match typed {
            ListText::Comma => split_list(t, ','),
            ListText::CommaLines => split_list(&t.replace('\n', ","), ','),
            ListText::Lines => split_list(t, '\n'),
        },
        |t| {
            let edit = if typed == ListText::Comma {
                egui::TextEdit::singleline(t)
            } else {
                egui::TextEdit::multiline(t).desired_rows(rows)
            };
            edit.hint_text(hint)
                .desired_width(width)
                .background_color(theme::BOX_FILL)
        },
        name,
    );
    mark(ui, r, notes).changed()
}

/// A list typed as one line, comma-separated.
pub fn comma_list(
    ui: &mut Ui,
    list: &mut Vec<String>,
    width: f32,
    hint: &str,
    name: impl Into<String>,
    notes: &[(Severity, String)],
) -> bool {
    let name = name.into();
    list_field(ui, list, ListText::Comma, width, 1, hint, name, notes)
}

/// A list typed as comma-separated text over several lines (a lexicon's words); a line break
/// separates items too.
pub fn comma_area(
    ui: &mut Ui,
    list: &mut Vec<String>,
    rows: usize,
    hint: &str,
    name: impl Into<String>,
    notes: &[(Severity, String)],
) -> bool {
    let (name, width) = (name.into(), f32::INFINITY);
    list_field(
        ui,
        list,
        ListText::CommaLines,
        width,
        rows,
        hint,
        name,
        notes,
    )
}

/// A list typed one item per line (utterance variants, words).
pub fn line_list(
    ui: &mut Ui,
    list: &mut Vec<String>,
    width: f32,
    rows: usize,
    hint: &str,
    name: impl Into<String>,
    notes: &[(Severity, String)],
) -> bool {
    let name = name.into();
    list_field(ui, list, ListText::Lines, width, rows, hint, name, notes)
}

/// A name that changes only when the edit is committed (Enter or leaving the field; Escape
/// gives the old name back), because renaming rewrites references and must not pass through
/// the names in between. Returns the new name once committed.
pub fn name_field(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    current: &str,
    width: f32,
    name: impl Into<String>,
    notes: &[(Severity, String)],
) -> Option<String> {
    let id = egui::Id::new(("name-field", id));
    // What is being typed is kept until it is committed: the frame that reports the focus lost
    // (after Enter, or a click elsewhere) is the one after the field gave the keyboard up.
    let focused = ui.memory(|m| m.has_focus(id));
    let pending: Option<String> = ui.data(|d| d.get_temp(id));
    let mut text = match pending {
        Some(t) => t,
        None => current.to_string(),
    };
    // Sized, not desired: in a grid cell the available width is last frame's column.
    let r = ui.add_sized(
        [width, 22.0],
        egui::TextEdit::singleline(&mut text)
            .id(id)
            .background_color(theme::BOX_FILL),
    );
    name_widget(ui, &r, name);
    let escape = ui.input(|i| i.key_pressed(egui::Key::Escape)) && (focused || r.has_focus());
    if escape {
        text = current.to_string();
        r.surrender_focus();
    }
    let r = mark(ui, r, notes);
    let enter = (focused || r.has_focus()) && ui.input(|i| i.key_pressed(egui::Key::Enter));
    let commit = !escape && (r.lost_focus() || enter) && text.trim() != current;
    if !commit && !escape && (focused || r.has_focus()) {
        ui.data_mut(|d| d.insert_temp(id, text.clone()));
    } else {
        ui.data_mut(|d| d.remove::<String>(id));
    }
    commit.then(|| text.trim().to_string())
}

/// A `×` button named `name` (tests and screen readers find it so); whether it was clicked.
pub fn remove_button(ui: &mut Ui, name: impl Into<String>) -> bool {
    let x = ui.small_button("×").on_hover_text("Remove");
    name_widget(ui, &x, name);
    x.clicked()
}

/// A small `+ …` button named `name`; whether it was clicked.
pub fn add_button(ui: &mut Ui, label: impl Into<String>, name: impl Into<String>) -> bool {
    let r = ui.small_button(label.into());
    name_widget(ui, &r, name);
    r.clicked()
}

/// One item of a list drawn as a card (a tracker, a seed state, a proxy), full width.
pub fn card<R>(ui: &mut Ui, add: impl FnOnce(&mut Ui) -> R) -> R {
    egui::Frame::new()
        .fill(theme::PANEL)
        .stroke(egui::Stroke::new(1.0, theme::BORDER))
        .corner_radius(5)
        .inner_margin(egui::Margin::symmetric(8, 6))
        .show(ui, |ui| {
            ui.set_width(ui.available_width());
            add(ui)
        })
        .inner
}

/// A table of `key = value` rows (an agent's variables, a concept's properties): keys rename on
/// commit, values change as typed; `keys` are offered for new rows.
pub fn key_values(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug + Copy,
    map: &mut BTreeMap<String, String>,
    keys: &[String],
    key_hint: &str,
    name: &str,
) -> bool {
    let value = Side::Free {
        hint: "value",
        width: 180.0,
    };
    key_values_as(ui, id, map, keys, key_hint, name, value)
}

/// [`key_values`] whose values are typed or picked as `value` says (a problem's objects pick
/// their type among the domain's).
pub fn key_values_as(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug + Copy,
    map: &mut BTreeMap<String, String>,
    keys: &[String],
    key_hint: &str,
    name: &str,
    value: Side,
) -> bool {
    let mut changed = false;
    let mut rename = None;
    let mut remove = None;
    egui::Grid::new(egui::Id::new(("key-values", id)))
        .num_columns(3)
        .spacing([6.0, 4.0])
        .show(ui, |ui| {
            for (k, v) in map.iter_mut() {
                if let Some(new) = name_field(
                    ui,
                    (id, "key", k.as_str()),
                    k,
                    120.0,
                    format!("{name} {k} name"),
                    &[],
                ) {
                    rename = Some((k.clone(), new));
                }
                changed |= side(
                    ui,
                    (id, "value", k.as_str()),
                    v,
                    &value,
                    format!("{name} {k}"),
                );
                if remove_button(ui, format!("remove {name} {k}")) {
                    remove = Some(k.clone());
                }
                ui.end_row();
            }
        });
    if let Some((old, new)) = rename
        && !new.is_empty()
        && !map.contains_key(&new)
        && let Some(v) = map.remove(&old)
    {
        map.insert(new, v);
        changed = true;
    }
    if let Some(k) = remove {
        map.remove(&k);
        changed = true;
    }
    let free: Vec<String> = keys
        .iter()
        .filter(|k| !map.contains_key(*k))
        .cloned()
        .collect();
    let r = ui.menu_button(
        RichText::new(format!("+ {key_hint}")).color(theme::ACCENT),
        |ui| {
            for k in &free {
                if ui.button(k).clicked() {
                    map.insert(k.clone(), String::new());
                    changed = true;
                    ui.close();
                }
            }
            if ui.button(RichText::new("a new one").italics()).clicked() {
                map.insert(
                    unique_name(map.keys().map(String::as_str), key_hint),
                    String::new(),
                );
                changed = true;
                ui.close();
            }
        },
    );
    name_widget(ui, &r.response, format!("add {name}"));
    changed
}

/// One side of a [`pairs`] table.
pub enum Side<'a> {
    /// Typed freely.
    Free { hint: &'a str, width: f32 },
    /// Picked among names.
    Pick { options: &'a [String], width: f32 },
}

fn side(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug,
    value: &mut String,
    s: &Side,
    name: String,
) -> bool {
    match s {
        Side::Free { hint, width } => text(ui, value, *width, hint, name, &[]),
        Side::Pick { options, width } => pick(ui, id, value, options, *width, name, "choose…"),
    }
}

/// A table of pairs (a concept's relations, an action's bindings): each side typed or picked,
/// `between` written between them; a row per pair, `+` adds one.
pub fn pairs(
    ui: &mut Ui,
    id: impl std::hash::Hash + std::fmt::Debug + Copy,
    list: &mut Vec<(String, String)>,
    left: Side,
    between: &str,
    right: Side,
    name: &str,
) -> bool {
    let mut changed = false;
    let mut remove = None;
    egui::Grid::new(egui::Id::new(("pairs", id)))
        .num_columns(4)
        .spacing([6.0, 4.0])
        .show(ui, |ui| {
            for (i, (a, b)) in list.iter_mut().enumerate() {
                changed |= side(ui, (id, i, 0), a, &left, format!("{name} {} first", i + 1));
                ui.label(RichText::new(between).color(theme::TEXT_WEAK));
                changed |= side(
                    ui,
                    (id, i, 1),
                    b,
                    &right,
                    format!("{name} {} second", i + 1),
                );
                if remove_button(ui, format!("remove {name} {}", i + 1)) {
                    remove = Some(i);
                }
                ui.end_row();
            }
        });
    if let Some(i) = remove {
        list.remove(i);
        changed = true;
    }
    let r = ui.small_button(format!("+ {name}"));
    name_widget(ui, &r, format!("add {name}"));
    if r.clicked() {
        list.push((String::new(), String::new()));
        changed = true;
    }
    changed
}

/// Facts in the cell syntax of interaction scripts (`sale(player, cake)`), checked with the
/// compiler's cell parser as they are typed; `one` wants exactly one fact. Empty is allowed
/// unless `one`.
pub fn facts(
    ui: &mut Ui,
    value: &mut String,
    width: f32,
    one: bool,
    name: impl Into<String>,
    notes: &[(Severity, String)],
) -> bool {
    let hint = if one {
        "pred(a, b)"
    } else {
        "pred(a), other(b, 2)"
    };
    let changed = text(ui, value, width, hint, name, notes);
    let problem = match ensemble_compiler::formats::cell::atoms(value) {
        _ if value.trim().is_empty() && !one => None,
        Err(e) => Some(format!(
            "{} (at {}..{})",
            e.message, e.range.start, e.range.end
        )),
        Ok(atoms) if one && atoms.len() != 1 => Some(format!("one fact, not {}", atoms.len())),
        Ok(_) => None,
    };
    if let Some(p) = problem {
        ui.label(RichText::new(format!("✖ {p}")).small().color(theme::ERROR));
    }
    changed
}

/// The detail side of a list-and-detail form: scrolls, and keeps a margin from the list.
pub fn detail(ui: &mut Ui, add: impl FnOnce(&mut Ui)) {
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            egui::Frame::new()
                .inner_margin(egui::Margin {
                    left: 14,
                    right: 8,
                    top: 4,
                    bottom: 8,
                })
                .show(ui, add);
        });
}

/// Help under a field, small and weak.
pub fn help(ui: &mut Ui, text: &str) {
    ui.label(RichText::new(text).small().color(theme::TEXT_WEAK));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_split_and_trim() {
        assert_eq!(split_list("a, b,, c ,", ','), ["a", "b", "c"]);
        assert_eq!(split_list("one\n\n two\n", '\n'), ["one", "two"]);
    }
}
