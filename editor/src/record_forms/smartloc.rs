//! The smart location form (`*.smartloc.ron`, Skubch 35.2): where it stands and how far it
//! reaches; the scripts it runs with their preference; its props; proxies (game systems that
//! take part as NPCs); notification, spawn and player emitters. Names are picked from the
//! project (locations, scripts, roles); facts are checked with the compiler's cell parser as
//! they are typed; renaming the location, a proxy or a notification renames the scene events
//! that name it.

use crate::form_widgets::{self as form, Diags, P};
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::rename::Named;
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::diag::Severity;
use ensemble_compiler::formats::locate::PathSeg;
use ensemble_compiler::formats::ron::*;

#[derive(Default)]
pub struct SmartLocationPanel {
    /// A section to open and scroll to (its field name).
    open: Option<String>,
    pending: Option<Reveal>,
}

/// Why a `supplies` text (`seat/1, sale/2`) does not read, if it does not.
pub fn supplies_problem(text: &str) -> Option<String> {
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some((name, arity)) = item.split_once('/') else {
            return Some(format!("`{item}`: write predicate/arity, like sale/2"));
        };
        if name.trim().is_empty() || arity.trim().parse::<u32>().is_err() {
            return Some(format!("`{item}`: write predicate/arity, like sale/2"));
        }
    }
    None
}

fn supplies(ui: &mut Ui, value: &mut String, width: f32, name: &str) -> bool {
    let notes: Vec<(Severity, String)> = supplies_problem(value)
        .map(|p| vec![(Severity::Error, p)])
        .unwrap_or_default();
    form::text(ui, value, width, "pred/arity, …", name, &notes)
}

impl SmartLocationPanel {
    fn section(
        &mut self,
        ui: &mut Ui,
        field: &str,
        title: &str,
        count: usize,
        add: impl FnOnce(&mut Ui),
    ) {
        let open = self.open.as_deref() == Some(field);
        let r = egui::CollapsingHeader::new(RichText::new(format!("{title}  {count}")).strong())
            .id_salt(("smartloc", field))
            .default_open(true)
            .open(open.then_some(true))
            .show(ui, add);
        if open {
            r.header_response.scroll_to_me(Some(egui::Align::TOP));
            self.open = None;
        }
    }
}

impl AssetPanel<SmartLocationAsset> for SmartLocationPanel {
    fn ui(&mut self, ui: &mut Ui, s: &mut SmartLocationAsset, cx: &PanelCx) -> bool {
        if let Some(t) = self.pending.take() {
            self.open = match t {
                Reveal::Path(p) => match p.first() {
                    Some(PathSeg::Field(f)) => Some(f.clone()),
                    _ => None,
                },
                Reveal::Item { list, .. } => Some(list),
            };
        }
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = false;
        let names = cx.names;
        let roles = &names.more.roles;
        egui::ScrollArea::vertical().auto_shrink([false, false]).show(ui, |ui| {
            ui.horizontal(|ui| {
                ui.label(RichText::new("Smart location").heading().color(theme::TEXT));
                form::help(ui, "a place that runs interaction scripts with the NPCs around it");
            });
            form::grid(ui, "smartloc", |ui| {
                form::label(ui, "Name", "Scene events name it; renaming updates them.");
                if let Some(new) = form::name_field(ui, "smartloc-name", &s.name, 220.0, "smart location name", &d.notes(&[P::F("name")])) {
                    cx.request(Request::Rename { what: Named::SmartLocation, old: s.name.clone(), new });
                }
                ui.end_row();
                form::label(ui, "Stands at", "The named location it stands at.");
                changed |= form::pick(ui, "smartloc-at", &mut s.at, &names.locations, 200.0, "stands at", "choose a location");
                ui.end_row();
                form::label(ui, "Reach", "How far it looks for NPCs.");
                changed |= form::number(ui, &mut s.radius, 0.0..=1e4, 0.1, " m", "radius");
                ui.end_row();
                form::label(ui, "Supplies", "Predicates a proxy object supplies to its scripts (sale/2).");
                changed |= supplies(ui, &mut s.supplies, 220.0, "supplies");
                ui.end_row();
            });
            form::problems(ui, d.outside(&["scripts", "props", "proxies", "notifications", "spawns", "player", "name"]));

            let n = s.scripts.len();
            self.section(ui, "scripts", "Scripts", n, |ui| {
                form::help(ui, "What it runs (its script emitter); the preference weighs the choice among them.");
                let mut remove = None;
                for (i, c) in s.scripts.iter_mut().enumerate() {
                    ui.horizontal(|ui| {
                        changed |= form::pick(ui, ("smartloc-script", i), &mut c.script, &names.more.scripts, 200.0, format!("script {}", i + 1), "choose a script");
                        ui.label(RichText::new("preference").color(theme::TEXT_WEAK));
                        changed |= form::number(ui, &mut c.preference, 0.0..=1e3, 0.05, "", format!("script {} preference", i + 1));
                        if form::remove_button(ui, format!("remove script {}", i + 1)) {
                            remove = Some(i);
                        }
                    });
                    form::problems(ui, d.under(&[P::F("scripts"), P::I(i)]));
                }
                if let Some(i) = remove {
                    s.scripts.remove(i);
                    changed = true;
                }
                if ui.small_button("+ script").clicked() {
                    let script = names.more.scripts.iter().find(|n| !s.scripts.iter().any(|c| c.script == **n)).cloned().unwrap_or_default();
                    s.scripts.push(ScriptChoiceAsset { script, preference: 1.0 });
                    changed = true;
                }
            });

            let n = s.props.len();
            self.section(ui, "props", "Props", n, |ui| {
                form::help(ui, "Objects it owns; each supplies kind(name) to its scripts (seat(seat1)).");
                let mut remove = None;
                for (i, p) in s.props.iter_mut().enumerate() {
                    ui.horizontal(|ui| {
                        changed |= form::text(ui, &mut p.name, 140.0, "name", format!("prop {} name", i + 1), &d.notes(&[P::F("props"), P::I(i), P::F("name")]));
                        ui.label(RichText::new("is a").color(theme::TEXT_WEAK));
                        changed |= form::text(ui, &mut p.kind, 140.0, "kind", format!("prop {} kind", i + 1), &d.notes(&[P::F("props"), P::I(i), P::F("kind")]));
                        if form::remove_button(ui, format!("remove prop {}", i + 1)) {
                            remove = Some(i);
                        }
                    });
                }
                if let Some(i) = remove {
                    s.props.remove(i);
                    changed = true;
                }
                if ui.small_button("+ prop").clicked() {
                    let name = form::unique_name(s.props.iter().map(|p| p.name.as_str()), "prop");
                    let kind = s.props.last().map(|p| p.kind.clone()).unwrap_or_else(|| "seat".into());
                    s.props.push(PropAsset { name, kind });
                    changed = true;
                }
            });

            let n = s.proxies.len();
            let location = s.name.clone();
            self.section(ui, "proxies", "Proxies", n, |ui| {
                form::help(ui, "Game systems that take part in its scripts as if they were NPCs (35.6).");
                let mut remove = None;
                for (i, p) in s.proxies.iter_mut().enumerate() {
                    form::card(ui, |ui| {
                        ui.horizontal_wrapped(|ui| {
                            ui.label(RichText::new("proxy").color(theme::TEXT_WEAK));
                            if let Some(new) = form::name_field(ui, ("proxy-name", i), &p.name, 120.0, format!("proxy {} name", i + 1), &d.notes(&[P::F("proxies"), P::I(i), P::F("name")])) {
                                cx.request(Request::Rename { what: Named::Proxy, old: p.name.clone(), new });
                            }
                            ui.label(RichText::new("as").color(theme::TEXT_WEAK));
                            changed |= form::pick(ui, ("proxy-role", i), &mut p.role, roles, 120.0, format!("proxy {} role", i + 1), "role…");
                            ui.label(RichText::new("does").color(theme::TEXT_WEAK));
                            changed |= form::comma_list(ui, &mut p.actions, 230.0, "actions", format!("proxy {} actions", i + 1), &[]);
                            ui.label(RichText::new("supplies").color(theme::TEXT_WEAK));
                            changed |= supplies(ui, &mut p.supplies, 110.0, &format!("proxy {} supplies", i + 1));
                            if form::remove_button(ui, format!("remove proxy {}", i + 1)) {
                                remove = Some(i);
                            }
                        });
                        form::problems(ui, d.under(&[P::F("proxies"), P::I(i)]));
                    });
                }
                if let Some(i) = remove {
                    s.proxies.remove(i);
                    changed = true;
                }
                if ui.small_button("+ proxy").clicked() {
                    let name = form::unique_name(s.proxies.iter().map(|p| p.name.as_str()), &format!("{location}_proxy"));
                    s.proxies.push(ProxyAsset { name, role: String::new(), actions: Vec::new(), supplies: String::new() });
                    changed = true;
                }
            });

            let n = s.notifications.len();
            self.section(ui, "notifications", "Notifications", n, |ui| {
                form::help(ui, "Events at the location that nearby agents react to: facts on the blackboard for a while.");
                let mut remove = None;
                for (i, x) in s.notifications.iter_mut().enumerate() {
                    form::card(ui, |ui| {
                        ui.horizontal_wrapped(|ui| {
                            if let Some(new) = form::name_field(ui, ("note-name", i), &x.name, 120.0, format!("notification {} name", i + 1), &d.notes(&[P::F("notifications"), P::I(i), P::F("name")])) {
                                cx.request(Request::Rename { what: Named::Notification { location: location.clone() }, old: x.name.clone(), new });
                            }
                            ui.label(RichText::new("first at").color(theme::TEXT_WEAK));
                            changed |= form::number(ui, &mut x.at, 0.0..=1e7, 0.5, " s", format!("notification {} at", i + 1));
                            ui.label(RichText::new("every").color(theme::TEXT_WEAK));
                            changed |= form::number(ui, &mut x.every, 0.0..=1e7, 0.5, " s", format!("notification {} every", i + 1));
                            ui.label(RichText::new("reach").color(theme::TEXT_WEAK));
                            changed |= form::opt_number(ui, &mut x.radius, 5.0, 0.0..=1e4, 0.1, " m", "the location's", &format!("notification {} radius", i + 1));
                            ui.label(RichText::new("lasts").color(theme::TEXT_WEAK));
                            changed |= form::opt_number(ui, &mut x.lasts, 10.0, 0.0..=1e7, 0.5, " s", "until taken", &format!("notification {} lasts", i + 1));
                            if form::remove_button(ui, format!("remove notification {}", i + 1)) {
                                remove = Some(i);
                            }
                        });
                        ui.horizontal(|ui| {
                            ui.label(RichText::new("facts").color(theme::TEXT_WEAK));
                            ui.vertical(|ui| {
                                changed |= form::facts(ui, &mut x.facts, 360.0, false, format!("notification {} facts", i + 1), &d.notes(&[P::F("notifications"), P::I(i), P::F("facts")]));
                            });
                        });
                        form::problems(ui, d.under(&[P::F("notifications"), P::I(i)]));
                    });
                }
                if let Some(i) = remove {
                    s.notifications.remove(i);
                    changed = true;
                }
                if ui.small_button("+ notification").clicked() {
                    let name = form::unique_name(s.notifications.iter().map(|p| p.name.as_str()), "Notification");
                    s.notifications.push(NotificationAsset { name, at: 0.0, every: 0.0, radius: None, lasts: None, facts: String::new() });
                    changed = true;
                }
            });

            let n = s.spawns.len();
            self.section(ui, "spawns", "Spawns", n, |ui| {
                form::help(ui, "NPCs placed at a point, once or in waves, who then walk a route.");
                let mut remove = None;
                for (i, x) in s.spawns.iter_mut().enumerate() {
                    form::card(ui, |ui| {
                        ui.horizontal_wrapped(|ui| {
                            changed |= form::text(ui, &mut x.name, 120.0, "name", format!("spawn {} name", i + 1), &d.notes(&[P::F("spawns"), P::I(i), P::F("name")]));
                            ui.label(RichText::new("at").color(theme::TEXT_WEAK));
                            changed |= form::pick(ui, ("spawn-point", i), &mut x.point, &names.locations, 130.0, format!("spawn {} point", i + 1), "location…");
                            ui.label(RichText::new("×").color(theme::TEXT_WEAK));
                            changed |= form::count(ui, &mut x.size, 1..=1000, "", format!("spawn {} size", i + 1));
                            ui.label(RichText::new("first at").color(theme::TEXT_WEAK));
                            changed |= form::number(ui, &mut x.at, 0.0..=1e7, 0.5, " s", format!("spawn {} at", i + 1));
                            ui.label(RichText::new("every").color(theme::TEXT_WEAK));
                            changed |= form::number(ui, &mut x.every, 0.0..=1e7, 0.5, " s", format!("spawn {} every", i + 1));
                            ui.label(RichText::new("waves").color(theme::TEXT_WEAK));
                            let mut waves = x.waves.map(f64::from);
                            let default_waves = if x.every > 0.0 { "no limit" } else { "one" };
                            if form::opt_number(ui, &mut waves, 3.0, 1.0..=1e6, 1.0, "", default_waves, &format!("spawn {} waves", i + 1)) {
                                x.waves = waves.map(|w| w.round() as u32);
                                changed = true;
                            }
                            if form::remove_button(ui, format!("remove spawn {}", i + 1)) {
                                remove = Some(i);
                            }
                        });
                        ui.horizontal(|ui| {
                            ui.label(RichText::new("roles").color(theme::TEXT_WEAK));
                            changed |= form::chips(ui, ("spawn-roles", i), &mut x.roles, roles, true, false, &format!("spawn {} roles", i + 1));
                        });
                        ui.horizontal(|ui| {
                            ui.label(RichText::new("route").color(theme::TEXT_WEAK));
                            changed |= form::chips(ui, ("spawn-route", i), &mut x.route, &names.locations, false, true, &format!("spawn {} route", i + 1));
                        });
                        form::problems(ui, d.under(&[P::F("spawns"), P::I(i)]));
                    });
                }
                if let Some(i) = remove {
                    s.spawns.remove(i);
                    changed = true;
                }
                if ui.small_button("+ spawn").clicked() {
                    let name = form::unique_name(s.spawns.iter().map(|p| p.name.as_str()), "spawn");
                    s.spawns.push(SpawnAsset { name, point: s.at.clone(), roles: Vec::new(), route: Vec::new(), size: 1, at: 0.0, every: 0.0, waves: None });
                    changed = true;
                }
            });

            let open = self.open.as_deref() == Some("player");
            egui::CollapsingHeader::new(RichText::new("Player emitter").strong())
                .id_salt("smartloc-player")
                .default_open(true)
                .open(open.then_some(true))
                .show(ui, |ui| {
                    let mut on = s.player.is_some();
                    let r = ui.checkbox(&mut on, "the player can join its scripts here (an interaction icon)");
                    crate::marks::name_widget(ui, &r, "player emitter");
                    if r.changed() {
                        s.player = on.then(|| PlayerEmitterAsset { role: roles.first().cloned().unwrap_or_default(), icon: "interact".into(), supplies: String::new() });
                        changed = true;
                    }
                    if let Some(p) = &mut s.player {
                        form::grid(ui, "smartloc-player-grid", |ui| {
                            form::label(ui, "Role", "The role the player takes.");
                            changed |= form::pick(ui, "player-role", &mut p.role, roles, 160.0, "player role", "role…");
                            ui.end_row();
                            form::label(ui, "Icon", "What the game shows.");
                            changed |= form::text(ui, &mut p.icon, 160.0, "interact", "player icon", &[]);
                            ui.end_row();
                            form::label(ui, "Supplies", "What player input writes into the blackboard (asks/2).");
                            changed |= supplies(ui, &mut p.supplies, 160.0, "player supplies");
                            ui.end_row();
                        });
                    }
                    form::problems(ui, d.under(&[P::F("player")]));
                });
        });
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn supplies_read_as_predicate_and_arity() {
        assert_eq!(supplies_problem("seat/1, sale/2"), None);
        assert_eq!(supplies_problem(""), None);
        assert!(supplies_problem("sale").is_some());
        assert!(supplies_problem("sale/x").is_some());
    }
}
