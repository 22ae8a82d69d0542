//! The list-and-detail layout of a form: the items of one list field (a scene's agents, a
//! lexicon's categories, ...) on the left, filtered by name, each with its problem marker;
//! `+`, duplicate, delete and move buttons; the selected item's form on the right.

use crate::marks::{name_widget, severity_glyph, severity_word};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::diag::Severity;

/// An item of a list field that has a name.
pub trait Item: Clone {
    fn name(&self) -> &str;
    fn set_name(&mut self, name: String);
}

/// `base`, or `base2`, `base3`... whichever no name in `taken` is.
pub fn unique_name<'a>(taken: impl Iterator<Item = &'a str> + Clone, base: &str) -> String {
    let free = |n: &str| !taken.clone().any(|t| t == n);
    if free(base) {
        return base.to_string();
    }
    (2..)
        .map(|i| format!("{base}{i}"))
        .find(|n| free(n))
        .unwrap_or_else(|| base.to_string())
}

/// How an item is listed.
pub struct ItemRow {
    /// A second, weaker part (`StandSellTicket at Entrance`).
    pub detail: String,
    pub severity: Option<Severity>,
}

/// The list's view state: which item is selected, the filter, a pending scroll.
#[derive(Default)]
pub struct ItemList {
    pub selected: Option<usize>,
    filter: String,
    scroll_to: Option<usize>,
}

impl ItemList {
    /// Selects item `i` and scrolls to it.
    pub fn select(&mut self, i: usize) {
        self.selected = Some(i);
        self.scroll_to = Some(i);
        self.filter.clear();
    }

    /// The selected index, if it is one of `len` items.
    pub fn current(&self, len: usize) -> Option<usize> {
        self.selected.filter(|&i| i < len)
    }

    /// Draws the list of `items` (titled `title`; `noun` names one item in buttons) and edits
    /// it: `new` makes an item with the given unused name. Returns whether `items` changed.
    #[allow(clippy::too_many_arguments)]
    pub fn show<T: Item>(
        &mut self,
        ui: &mut Ui,
        id: &str,
        title: &str,
        noun: &str,
        items: &mut Vec<T>,
        row: impl Fn(usize, &T) -> ItemRow,
        new: impl Fn(String) -> T,
    ) -> bool {
        let mut changed = false;
        if self.selected.is_none_or(|i| i >= items.len()) {
            self.selected = (!items.is_empty()).then_some(0);
        }
        ui.horizontal(|ui| {
            ui.label(RichText::new(title).strong().color(theme::TEXT));
            ui.label(RichText::new(items.len().to_string()).color(theme::TEXT_WEAK));
        });
        if items.len() > 8 {
            let r = ui.add(
                egui::TextEdit::singleline(&mut self.filter)
                    .hint_text("Filter by name…")
                    .desired_width(f32::INFINITY)
                    .background_color(theme::BOX_FILL),
            );
            name_widget(ui, &r, format!("filter {title}"));
        }
        let selected = self.current(items.len());
        ui.horizontal_wrapped(|ui| {
            let add = ui
                .button(format!("+ {noun}"))
                .on_hover_text(format!("Add a {noun} after the selected one"));
            name_widget(ui, &add, format!("add {noun}"));
            if add.clicked() {
                let at = selected.map_or(items.len(), |i| i + 1);
                let name = unique_name(items.iter().map(Item::name), noun);
                items.insert(at, new(name));
                self.select(at);
                changed = true;
            }
            let enabled = selected.is_some();
            let dup = ui
                .add_enabled(enabled, egui::Button::new("Duplicate"))
                .on_hover_text(format!("Copy the selected {noun} below it"));
            name_widget(ui, &dup, format!("duplicate {noun}"));
            if dup.clicked()
                && let Some(i) = selected
            {
                let mut copy = items[i].clone();
                let base = format!("{}-copy", items[i].name());
                copy.set_name(unique_name(items.iter().map(Item::name), &base));
                items.insert(i + 1, copy);
                self.select(i + 1);
                changed = true;
            }
            let del = ui
                .add_enabled(enabled, egui::Button::new("Delete"))
                .on_hover_text(format!("Delete the selected {noun}"));
            name_widget(ui, &del, format!("delete {noun}"));
            if del.clicked()
                && let Some(i) = selected
            {
                items.remove(i);
                self.selected = (!items.is_empty()).then(|| i.min(items.len() - 1));
                changed = true;
            }
            let up = ui
                .add_enabled(selected.is_some_and(|i| i > 0), egui::Button::new("⏶"))
                .on_hover_text("Move up");
            name_widget(ui, &up, format!("move {noun} up"));
            if up.clicked()
                && let Some(i) = selected
            {
                items.swap(i - 1, i);
                self.select(i - 1);
                changed = true;
            }
            let down = ui
                .add_enabled(
                    selected.is_some_and(|i| i + 1 < items.len()),
                    egui::Button::new("⏷"),
                )
                .on_hover_text("Move down");
            name_widget(ui, &down, format!("move {noun} down"));
            if down.clicked()
                && let Some(i) = selected
            {
                items.swap(i, i + 1);
                self.select(i + 1);
                changed = true;
            }
        });
        ui.add_space(4.0);
        let filter = self.filter.trim().to_lowercase();
        let scroll_to = self.scroll_to.take();
        egui::ScrollArea::vertical()
            .id_salt((id, "items"))
            .auto_shrink([false, false])
            .show(ui, |ui| {
                for (i, item) in items.iter().enumerate() {
                    if !filter.is_empty() && !item.name().to_lowercase().contains(&filter) {
                        continue;
                    }
                    let ItemRow { detail, severity } = row(i, item);
                    let name = if item.name().trim().is_empty() {
                        "(unnamed)"
                    } else {
                        item.name()
                    };
                    let mut job = egui::text::LayoutJob::default();
                    let color = severity.map_or(theme::TEXT, theme::severity_color);
                    let head = match severity {
                        Some(s) => format!("{} {name}", severity_glyph(s)),
                        None => name.to_string(),
                    };
                    job.append(
                        &head,
                        0.0,
                        egui::TextFormat {
                            color,
                            font_id: egui::FontId::proportional(14.0),
                            ..Default::default()
                        },
                    );
                    if !detail.is_empty() {
                        job.append(
                            &detail,
                            8.0,
                            egui::TextFormat {
                                color: theme::TEXT_WEAK,
                                font_id: egui::FontId::proportional(12.0),
                                ..Default::default()
                            },
                        );
                    }
                    let r = ui
                        .with_layout(egui::Layout::top_down_justified(egui::Align::LEFT), |ui| {
                            ui.selectable_label(self.selected == Some(i), job)
                        })
                        .inner;
                    let flag =
                        severity.map_or(String::new(), |w| format!(" ({})", severity_word(w)));
                    name_widget(ui, &r, format!("{noun} {}{flag}", item.name()));
                    if r.clicked() {
                        self.selected = Some(i);
                    }
                    if scroll_to == Some(i) {
                        r.scroll_to_me(Some(egui::Align::Center));
                    }
                }
                if items.is_empty() {
                    ui.label(
                        RichText::new(format!("No {noun} yet."))
                            .italics()
                            .color(theme::TEXT_WEAK),
                    );
                }
            });
        changed
    }
}

macro_rules! named_items {
    ($($t:ty),* $(,)?) => {
        $(impl Item for $t {
            fn name(&self) -> &str {
                &self.name
            }
            fn set_name(&mut self, name: String) {
                self.name = name;
            }
        })*
    };
}

use ensemble_compiler::formats::ron;
use ensemble_compiler::formats::spaces;

named_items!(
    ron::AgentAsset,
    ron::LocationAsset,
    ron::LibraryStateAsset,
    ron::PropAsset,
    ron::ProxyAsset,
    ron::NotificationAsset,
    ron::SpawnAsset,
    spaces::CategoryAsset,
    spaces::EstimatorAsset,
    spaces::ConceptAsset,
    spaces::VariableAsset,
    spaces::TemplateAsset,
    spaces::ActionAsset,
    spaces::AccumulatorAsset,
    ensemble_compiler::formats::planning::Action,
    ensemble_compiler::formats::planning::OperatorAsset,
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unique_names_count_up() {
        let taken = ["agent", "agent2"];
        assert_eq!(unique_name(taken.iter().copied(), "agent"), "agent3");
        assert_eq!(unique_name(taken.iter().copied(), "elder"), "elder");
    }
}
