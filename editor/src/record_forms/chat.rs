//! The chat form (`*.chat.ron`): a conversation scene that runs the project's spaces as one
//! social agent — who speaks, how often it iterates, and which accumulator (or space) of the
//! arbitration network gives its output.

use crate::form_widgets::{self as form, Diags, P};
use crate::panel::{AssetPanel, PanelCx, Reveal};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::spaces::ChatAsset;

#[derive(Default)]
pub struct ChatPanel;

impl AssetPanel<ChatAsset> for ChatPanel {
    fn ui(&mut self, ui: &mut Ui, c: &mut ChatAsset, cx: &PanelCx) -> bool {
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        ui.label(RichText::new("Chat").heading().color(theme::TEXT));
        form::help(ui, "A conversation with the project's spaces as one agent.");
        ui.add_space(6.0);
        form::grid(ui, "chat", |ui| {
            form::label(ui, "Name", "ensemble run PROJECT --scene NAME runs it.");
            changed |= form::text(
                ui,
                &mut c.name,
                220.0,
                "chat",
                "chat name",
                &d.notes(&[P::F("name")]),
            );
            ui.end_row();
            form::label(ui, "Agent", "The social agent's name in the transcript.");
            changed |= form::text(
                ui,
                &mut c.agent,
                220.0,
                "Xenos",
                "agent",
                &d.notes(&[P::F("agent")]),
            );
            ui.end_row();
            form::label(ui, "Player", "Who the agent talks with.");
            changed |= form::text(
                ui,
                &mut c.player,
                220.0,
                "Player",
                "player",
                &d.notes(&[P::F("player")]),
            );
            ui.end_row();
            form::label(ui, "Iterations", "Per second (Zubek's ran about one).");
            changed |= form::count(ui, &mut c.tick_rate, 1..=1000, " /s", "tick rate");
            ui.end_row();
            form::label(
                ui,
                "Output",
                "The sink of the arbitration network: what the agent does.",
            );
            let inputs = cx.names.more.arbitration_inputs();
            changed |= form::pick(
                ui,
                "chat-output",
                &mut c.output,
                &inputs,
                220.0,
                "output",
                "choose an accumulator",
            );
            ui.end_row();
        });
        form::problems(ui, d.list.iter());
        ui.add_space(8.0);
        form::help(
            ui,
            &format!(
                "Try it: in the Preview, pick {} and press ▶, then type as the player; or ensemble run PROJECT --scene {} --input -",
                c.name, c.name
            ),
        );
        changed
    }

    fn reveal(&mut self, _target: &Reveal) {}
}
