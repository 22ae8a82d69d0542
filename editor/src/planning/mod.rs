//! The planning editors (Hewlett's action lists, STRIPS domains and problems, PDDL files) and
//! their previews: the planning graph and a plan from each seed, or the state-explosion report,
//! for action lists; the plan an agent would make for problems. Planning runs on a worker
//! thread ([`preview`]); the editors are [`crate::asset_panel::AssetPanel`]s.

pub mod action_list;
pub mod pddl;
pub mod picture;
pub mod preview;
pub mod strips;

use crate::asset_panel::{KindPanel, PanelCx, Request, for_kind};
use crate::theme;
use eframe::egui;
use ensemble_compiler::front::ron::AssetKind;
use ensemble_compiler::front::ron::any::AnyAsset;

/// The planning panels, by kind (PDDL text is the host's: it has no RON shape).
pub fn panels() -> Vec<(AssetKind, Box<dyn KindPanel>)> {
    vec![
        (
            AssetKind::ActionList,
            for_kind(action_list::ActionListPanel::default(), |a| match a {
                AnyAsset::ActionList(l) => Some(l),
                _ => None,
            }),
        ),
        (
            AssetKind::Domain,
            for_kind(strips::DomainPanel::default(), |a| match a {
                AnyAsset::Domain(d) => Some(d),
                _ => None,
            }),
        ),
        (
            AssetKind::Problem,
            for_kind(strips::ProblemPanel::default(), |a| match a {
                AnyAsset::Problem(p) => Some(p),
                _ => None,
            }),
        ),
    ]
}

/// The machine that performs a plan step, as a link that opens it (empty: it takes no time).
pub fn machine_link(ui: &mut egui::Ui, cx: &PanelCx, machine: Option<&str>) {
    let Some(m) = machine else {
        ui.label("");
        return;
    };
    let r = ui
        .add(
            egui::Button::new(
                egui::RichText::new(format!("⏵ {m}"))
                    .small()
                    .color(theme::ACCENT),
            )
            .frame(false),
        )
        .on_hover_text("Open the machine that performs this step");
    crate::panel_cx::name_widget(ui, &r, format!("open machine {m}"));
    if r.clicked() {
        cx.request(Request::OpenMachine(m.to_string()));
    }
}

/// `n` steps, in words (`1 step`, `4 steps`).
pub fn steps(n: usize) -> String {
    if n == 1 {
        "1 step".to_string()
    } else {
        format!("{n} steps")
    }
}
