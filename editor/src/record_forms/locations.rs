//! The locations form (`*.locations.ron`): the file's named places as a list with the
//! selected one's name and coordinates, beside a plot where they can be dragged (the project's
//! other locations and smart locations' reach drawn for context). Renaming a location renames
//! it in the machines that walk there, the scenes and the smart locations ([`crate::rename`]).

use super::plot::{self, Plot};
use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::rename::Named;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::ron::{LocationAsset, LocationsAsset};

#[derive(Default)]
pub struct LocationsPanel {
    list: ItemList,
    pub plot: Plot,
    pending: Option<Reveal>,
}

impl LocationsPanel {
    fn form(
        &mut self,
        ui: &mut Ui,
        i: usize,
        l: &mut LocationAsset,
        cx: &PanelCx,
        d: Diags,
    ) -> bool {
        let mut changed = false;
        form::section(ui, "Location");
        form::grid(ui, ("location", i), |ui| {
            form::label(
                ui,
                "Name",
                "Renaming updates the machines, scenes and smart locations that name it.",
            );
            let notes = d.notes(&[P::F("locations"), P::I(i), P::F("name")]);
            if let Some(new) = form::name_field(
                ui,
                ("location-name", i),
                &l.name,
                150.0,
                "location name",
                &notes,
            ) {
                cx.request(Request::Rename {
                    what: Named::Location,
                    old: l.name.clone(),
                    new,
                });
            }
            ui.end_row();
            form::label(ui, "x", "metres");
            changed |= form::number(ui, &mut l.x, -1e6..=1e6, 0.1, " m", "location x");
            ui.end_row();
            form::label(ui, "y", "metres (+y points north, up the plot)");
            changed |= form::number(ui, &mut l.y, -1e6..=1e6, 0.1, " m", "location y");
            ui.end_row();
        });
        form::problems(ui, d.under(&[P::F("locations"), P::I(i)]));
        changed
    }
}

impl AssetPanel<LocationsAsset> for LocationsPanel {
    fn ui(&mut self, ui: &mut Ui, value: &mut LocationsAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take()
            && let Some(i) = reveal_index(
                &t,
                "locations",
                value.locations.iter().map(|l| l.name.as_str()),
            )
        {
            self.list.select(i);
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new("Locations").heading().color(theme::TEXT));
            ui.label(RichText::new(cx.file).small().color(theme::TEXT_WEAK));
            if ui
                .button("Fit")
                .on_hover_text("Show every location")
                .clicked()
            {
                self.plot.fit();
            }
        });
        form::problems(ui, d.outside(&["locations"]));
        ui.separator();
        crate::marks::docked(
            egui::Panel::left(ui.id().with("locations-list")),
            260.0,
            200.0,
        )
        .show(ui, |ui| {
            let at = self
                .list
                .current(value.locations.len())
                .map(|i| &value.locations[i])
                .map_or([0.0, 0.0], |l| [l.x + 2.0, l.y]);
            let list_height = (ui.available_height() - 170.0).max(120.0);
            ui.allocate_ui(egui::vec2(ui.available_width(), list_height), |ui| {
                changed |= self.list.show(
                    ui,
                    "locations",
                    "Places",
                    "location",
                    &mut value.locations,
                    |i, l| ItemRow {
                        detail: format!("{:.1}, {:.1}", l.x, l.y),
                        severity: d.worst(&[P::F("locations"), P::I(i)]),
                    },
                    |name| LocationAsset {
                        name,
                        x: at[0],
                        y: at[1],
                    },
                );
            });
            ui.separator();
            if let Some(i) = self.list.current(value.locations.len()) {
                changed |= self.form(ui, i, &mut value.locations[i], cx, d);
            }
        });
        let selected = self.list.current(value.locations.len());
        let mine: Vec<&str> = value.locations.iter().map(|l| l.name.as_str()).collect();
        let mut points: Vec<plot::Point> = value
            .locations
            .iter()
            .enumerate()
            .map(|(i, l)| plot::Point {
                name: &l.name,
                at: [l.x, l.y],
                editable: true,
                selected: selected == Some(i),
                severity: d.worst(&[P::F("locations"), P::I(i)]),
                below: false,
            })
            .collect();
        let editable = points.len();
        points.extend(
            cx.names
                .more
                .places
                .iter()
                .filter(|(n, _)| !mine.contains(&n.as_str()))
                .map(|(n, at)| plot::Point {
                    name: n,
                    at: *at,
                    editable: false,
                    selected: false,
                    severity: None,
                    below: false,
                }),
        );
        let places = &cx.names.more.places;
        let reach: Vec<plot::Reach> = cx
            .names
            .more
            .smart_locations
            .iter()
            .filter_map(|s| {
                let at = value
                    .locations
                    .iter()
                    .find(|l| l.name == s.at)
                    .map(|l| [l.x, l.y])
                    .or_else(|| places.iter().find(|(n, _)| *n == s.at).map(|(_, p)| *p))?;
                Some(plot::Reach {
                    name: &s.name,
                    at,
                    radius: s.radius,
                })
            })
            .collect();
        let events = self.plot.show(ui, &points, &reach, &[]);
        for e in events {
            match e {
                plot::Event::Select(i) if i < editable => self.list.select(i),
                plot::Event::Moved(i, [x, y]) if i < editable => {
                    let l = &mut value.locations[i];
                    if (l.x, l.y) != (x, y) {
                        (l.x, l.y) = (x, y);
                        changed = true;
                    }
                    self.list.selected = Some(i);
                }
                plot::Event::AddAt([x, y]) => {
                    let name = form::unique_name(
                        value.locations.iter().map(|l| l.name.as_str()),
                        "location",
                    );
                    value.locations.push(LocationAsset { name, x, y });
                    self.list.select(value.locations.len() - 1);
                    changed = true;
                }
                _ => {}
            }
        }
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}
