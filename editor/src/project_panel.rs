//! The project browser: every asset grouped by kind, with its unsaved and problem markers; a
//! click opens it, the `+` of a group creates one of that kind, a right-click renames or
//! deletes it.

use crate::analysis::Report;
use crate::document::{DocId, Project, noun};
use crate::panel::Request;
use crate::project_ops::Starter;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::ron::AssetKind;
use ensemble_compiler::formats::ron::FileKind;

/// The groups, in the order a designer meets them.
pub const GROUPS: [(&str, AssetKind); 20] = [
    ("Machines", AssetKind::Machine),
    ("Scenes", AssetKind::Scene),
    ("Locations", AssetKind::Locations),
    ("Sentences", AssetKind::Sentences),
    ("Scripts", AssetKind::Script),
    ("Smart locations", AssetKind::SmartLocation),
    ("Spaces", AssetKind::Space),
    ("Evidence", AssetKind::Evidence),
    ("Lexicons", AssetKind::Lexicon),
    ("Concepts", AssetKind::Concepts),
    ("Actions", AssetKind::Actions),
    ("Chats", AssetKind::Chat),
    ("State libraries", AssetKind::StateLibrary),
    ("Action lists", AssetKind::ActionList),
    ("Planning domains", AssetKind::Domain),
    ("Planning problems", AssetKind::Problem),
    ("PDDL files", AssetKind::Pddl),
    ("Navigation", AssetKind::Navigation),
    ("Tests", AssetKind::Test),
    ("Translations", AssetKind::Strings),
];

fn worst(report: Option<&Report>, path: &str) -> Option<Severity> {
    report?
        .in_file(path)
        .map(|l| l.severity())
        .filter(|s| *s != Severity::Info)
        .min()
}

fn group_header(
    ui: &mut Ui,
    title: &str,
    count: usize,
    kind: AssetKind,
    requests: &mut Vec<Request>,
) {
    ui.add_space(8.0);
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
        // A PDDL file is written in a text editor (or beside the project); it is not started
        // here.
        if kind == AssetKind::Pddl {
            return;
        }
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            // Clear of the panel's resize handle, which would take the pointer.
            ui.add_space(8.0);
            let add = egui::Button::new(RichText::new("+").color(theme::TEXT_WEAK)).frame(false);
            if ui
                .add(add)
                .on_hover_text(format!("New {}", noun(kind)))
                .clicked()
            {
                requests.push(Request::NewAsset(Starter::Kind(kind)));
            }
        });
    });
}

fn entry(
    ui: &mut Ui,
    project: &Project,
    id: DocId,
    open: Option<DocId>,
    report: Option<&Report>,
    requests: &mut Vec<Request>,
) {
    let d = &project.docs[id];
    let mut text = d.title();
    if d.is_dirty() {
        text.push_str(" •");
    }
    let (color, hover) = if project.excluded(&d.state.path) {
        text.push_str(" (not built)");
        let why = "excluded in Ensemble.ron: edited and saved, not compiled";
        (theme::TEXT_WEAK, format!("{}: {why}", d.state.path))
    } else {
        (theme::TEXT, d.state.path.clone())
    };
    let response = ui
        .selectable_label(open == Some(id), RichText::new(&text).color(color))
        .on_hover_text(hover);
    if let Some(sev) = worst(report, &d.state.path) {
        let at = egui::pos2(response.rect.right() + 8.0, response.rect.center().y);
        ui.painter()
            .circle_filled(at, 3.5, theme::severity_color(sev));
    }
    if response.clicked() {
        requests.push(Request::OpenDoc(id));
    }
    response.context_menu(|ui| {
        if ui.button("Rename…").clicked() {
            requests.push(Request::AskRename(id));
            ui.close();
        }
        let copyable = match d.kind {
            FileKind::Asset(k) if crate::project_ops::can_copy(k) => Some(k),
            _ => None,
        };
        if let Some(kind) = copyable
            && ui
                .button("Duplicate…")
                .on_hover_text("A copy under a new name, to change apart from this one")
                .clicked()
        {
            requests.push(Request::NewAsset(Starter::CopyOf(id, kind)));
            ui.close();
        }
        if ui
            .button(RichText::new("Delete…").color(theme::ERROR))
            .clicked()
        {
            requests.push(Request::AskDelete(id));
            ui.close();
        }
    });
}

/// The Maps section: the project's MovingAI maps; a click shows one in the navigation
/// view. (Drawn below the assets; a project without maps shows nothing.)
fn maps(ui: &mut Ui, maps: &[String], shown: Option<&str>, requests: &mut Vec<Request>) {
    if maps.is_empty() {
        return;
    }
    ui.add_space(8.0);
    ui.label(
        RichText::new("MAPS")
            .font(theme::section_font())
            .color(theme::TEXT_WEAK)
            .strong(),
    );
    for m in maps {
        let title = m.rsplit('/').next().unwrap_or(m);
        let r = ui
            .selectable_label(
                shown == Some(m.as_str()),
                RichText::new(title).color(theme::TEXT),
            )
            .on_hover_text(format!("{m}: PPA* clusters and paths"));
        if r.clicked() {
            requests.push(Request::ShowMap(m.clone()));
        }
    }
}

/// The way into the judging pass, below the sentence files: every sentence state of the
/// project in one list, to accept or ban its lines.
fn judge_entry(ui: &mut Ui, judging: bool, requests: &mut Vec<Request>) {
    let r = ui
        .selectable_label(judging, RichText::new("✔ Judge lines").color(theme::ACCENT))
        .on_hover_text(
            "Every sentence state of the project with the lines it speaks: accept or ban them",
        );
    crate::marks::name_widget(ui, &r, "Judge lines");
    if r.clicked() {
        requests.push(Request::JudgeLines);
    }
}

/// The browser. `maps` are the project's navigation maps and the one shown; `judging`, whether
/// the judging view is.
pub fn show(
    ui: &mut Ui,
    project: &Project,
    open: Option<DocId>,
    report: Option<&Report>,
    maps_found: (&[String], Option<&str>),
    judging: bool,
    requests: &mut Vec<Request>,
) {
    ui.set_min_width(ui.available_width());
    ui.horizontal(|ui| {
        ui.label(RichText::new("Project").heading().color(theme::TEXT));
    });
    egui::ScrollArea::vertical()
        .auto_shrink([false, false])
        .show(ui, |ui| {
            if let Some(id) = project
                .live()
                .find(|(_, d)| d.kind == FileKind::Manifest)
                .map(|(i, _)| i)
            {
                entry(ui, project, id, open, report, requests);
            }
            for (title, kind) in GROUPS {
                let docs: Vec<DocId> = project
                    .live()
                    .filter(|(_, d)| d.kind == FileKind::Asset(kind))
                    .map(|(i, _)| i)
                    .collect();
                // Rare kinds appear once the project has one.
                let always = matches!(
                    kind,
                    AssetKind::Machine | AssetKind::Scene | AssetKind::Locations
                );
                if docs.is_empty() && !always {
                    continue;
                }
                group_header(ui, title, docs.len(), kind, requests);
                if docs.is_empty() {
                    ui.label(RichText::new("none").italics().color(theme::TEXT_WEAK));
                }
                for id in docs {
                    entry(ui, project, id, open, report, requests);
                }
                if kind == AssetKind::Sentences {
                    judge_entry(ui, judging, requests);
                }
            }
            let books: Vec<DocId> = project
                .live()
                .filter(|(_, d)| d.kind == FileKind::Asset(AssetKind::Workbook))
                .map(|(i, _)| i)
                .collect();
            if !books.is_empty() {
                ui.add_space(8.0);
                ui.label(
                    RichText::new("WORKBOOKS")
                        .font(theme::section_font())
                        .color(theme::TEXT_WEAK)
                        .strong(),
                );
                for id in books {
                    entry(ui, project, id, open, report, requests);
                }
            }
            maps(ui, maps_found.0, maps_found.1, requests);
            ui.add_space(12.0);
            ui.menu_button(RichText::new("+ New asset…").color(theme::ACCENT), |ui| {
                if ui
                    .button("Import Excel workbook…")
                    .on_hover_text("An interaction script workbook: edited in the rule table, saved as a workbook")
                    .clicked()
                {
                    requests.push(Request::ImportWorkbook);
                    ui.close();
                }
                ui.separator();
                templates_menu(ui, requests);
                ui.separator();
                for (_, kind) in GROUPS.into_iter().filter(|(_, k)| *k != AssetKind::Pddl) {
                    if ui
                        .button(format!("New {}", noun(kind)))
                        .on_hover_text(format!("Start an empty {}", noun(kind)))
                        .clicked()
                    {
                        requests.push(Request::NewAsset(Starter::Kind(kind)));
                        ui.close();
                    }
                    if kind == AssetKind::Machine
                        && ui
                            .button("New conversation machine")
                            .on_hover_text("A machine that speaks: a greeting, then a line that waits for the answer")
                            .clicked()
                    {
                        requests.push(Request::NewAsset(Starter::Conversation));
                        ui.close();
                    }
                }
            });
        });
}

/// The starter templates, as menu items (the project panel's `+ New asset…` and File ▸ New
/// from template).
pub fn templates_menu(ui: &mut Ui, requests: &mut Vec<Request>) {
    ui.label(
        RichText::new("FROM A TEMPLATE")
            .font(theme::section_font())
            .color(theme::TEXT_WEAK),
    );
    for t in crate::templates::Template::ALL {
        if ui.button(t.title()).on_hover_text(t.hint()).clicked() {
            requests.push(Request::NewAsset(Starter::Template(t)));
            ui.close();
        }
    }
}
