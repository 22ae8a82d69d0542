//! The manifest form (`Ensemble.ron`): the project's name (it names the build output), the
//! built-in state libraries it links, and the files it leaves out of the build (a workbook
//! whose imported `.script.ron` the project compiles instead, say).

use crate::form_widgets::{self as form, Diags, P};
use crate::panel::{AssetPanel, PanelCx, Reveal};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::ron::Manifest;

/// The built-in state libraries a project can link.
pub const LIBRARIES: [&str; 1] = ["sim"];

#[derive(Default)]
pub struct ManifestPanel;

impl AssetPanel<Manifest> for ManifestPanel {
    fn ui(&mut self, ui: &mut Ui, m: &mut Manifest, cx: &PanelCx) -> bool {
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.label(RichText::new("Project").heading().color(theme::TEXT));
        form::help(
            ui,
            "Ensemble.ron: what the project is called, what it links, what it leaves out.",
        );
        ui.add_space(6.0);
        form::grid(ui, "manifest", |ui| {
            form::label(
                ui,
                "Name",
                "Names the build output: build/NAME.ensb and NAME.ensdbg.",
            );
            changed |= form::text(
                ui,
                &mut m.name,
                260.0,
                "project name",
                "project name",
                &d.notes(&[P::F("name")]),
            );
            ui.end_row();
            form::label(
                ui,
                "Libraries",
                "Built-in state libraries to link against: sim is the simulator's standard library.",
            );
            let libraries: Vec<String> = LIBRARIES.iter().map(|l| l.to_string()).collect();
            changed |= form::chips(
                ui,
                "manifest-libraries",
                &mut m.libraries,
                &libraries,
                false,
                false,
                "libraries",
            );
            ui.end_row();
            form::label(
                ui,
                "Excluded",
                "Files that are not part of the project (relative, / separated).",
            );
            let mut files = cx.names.more.files.clone();
            files.retain(|f| f != "Ensemble.ron");
            changed |= form::chips(
                ui,
                "manifest-exclude",
                &mut m.exclude,
                &files,
                true,
                false,
                "excluded files",
            );
            ui.end_row();
        });
        if m.libraries.is_empty() {
            ui.label(
                RichText::new(
                    "⚠ no library: machines can use only the states of *.statelib.ron files",
                )
                .color(theme::WARNING),
            );
        }
        form::problems(ui, d.list.iter());
        changed
    }

    fn reveal(&mut self, _target: &Reveal) {}
}
