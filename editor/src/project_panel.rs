//! The "Project" panel: the project's assets grouped by kind. Machines come from the IR (they
//! are what can be opened); the other kinds are listed by file, as designers name them on disk.

use crate::app::{Action, Loaded};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::ir::{Handle, Machine};

/// File-listed asset kinds: section title and file suffix.
const FILE_KINDS: [(&str, &str); 3] = [
    ("Scenes", ".scene.ron"),
    ("Locations", ".locations.ron"),
    ("State libraries", ".statelib.ron"),
];

fn section(ui: &mut Ui, title: &str, count: usize) {
    ui.add_space(10.0);
    ui.horizontal(|ui| {
        ui.label(
            RichText::new(title.to_uppercase())
                .font(theme::section_font())
                .color(theme::TEXT_WEAK)
                .strong(),
        );
        ui.label(
            RichText::new(count.to_string())
                .font(theme::section_font())
                .color(theme::TEXT_WEAK),
        );
    });
    ui.add_space(2.0);
}

/// A plain entry, indented like the selectable machine entries so the lists line up.
fn entry(ui: &mut Ui, text: RichText) {
    ui.horizontal(|ui| {
        ui.add_space(ui.spacing().button_padding.x);
        ui.label(text);
    });
}

fn none(ui: &mut Ui) {
    entry(ui, RichText::new("none").italics().color(theme::TEXT_WEAK));
}

pub fn show(
    ui: &mut Ui,
    project: Option<&Loaded>,
    current: Option<Handle<Machine>>,
    actions: &mut Vec<Action>,
) {
    // Keep the panel's width whatever it lists, so it does not jump when a reload fails.
    ui.set_min_width(ui.available_width());
    ui.label(RichText::new("Project").heading().color(theme::TEXT));
    let Some(p) = project else {
        ui.label(
            RichText::new("not loaded")
                .italics()
                .color(theme::TEXT_WEAK),
        );
        return;
    };
    let c = &p.compilation;
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            section(ui, "Machines", c.module.machines.len());
            if c.module.machines.is_empty() {
                none(ui);
            }
            for (h, m) in c.module.machines.iter() {
                let response = ui.selectable_label(current == Some(h), &m.name.text);
                if let Some(&severity) = p.severities.machines.get(&h) {
                    let at = egui::pos2(response.rect.right() + 8.0, response.rect.center().y);
                    ui.painter()
                        .circle_filled(at, 3.5, theme::severity_color(severity));
                }
                if response.clicked() {
                    actions.push(Action::SelectMachine(h));
                }
            }
            for (title, suffix) in FILE_KINDS {
                let files: Vec<&str> = c
                    .sources
                    .iter()
                    .map(|(_, f)| f.name.as_str())
                    .filter(|n| n.ends_with(suffix))
                    .collect();
                section(ui, title, files.len());
                if files.is_empty() {
                    none(ui);
                }
                for name in files {
                    entry(ui, RichText::new(name).color(theme::TEXT));
                }
            }
        });
}
