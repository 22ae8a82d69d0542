//! The scene form (`*.scene.ron`): its name and tick rate; its agents as a list with the
//! selected agent's form — name, root machine (picked from the project's machines), where it
//! starts (picked from the locations), roles, route, group, delay, the player flag, and its
//! variables as a key/value table offering the `VARIABLE` slots sentence states speak — and
//! its events as a table (`Interact`, `Input`, `Push`, `Leave`, `Notify`) whose fields follow
//! the kind and pick from the smart locations, proxies and notifications the project has.

use crate::form_widgets::{self as form, Diags, ItemList, ItemRow, P};
use crate::panel::reveal_index;
use crate::panel::{AssetPanel, PanelCx, Request, Reveal};
use crate::theme;
use eframe::egui;
use egui::{RichText, Ui};
use ensemble_compiler::formats::ron::{AgentAsset, SceneAsset, SceneEventAsset};

#[derive(Default)]
pub struct ScenePanel {
    agents: ItemList,
    /// An event row to scroll to.
    event: Option<usize>,
    pending: Option<Reveal>,
}

const WIDE: f32 = 260.0;

/// The kinds of event, in the order the menu offers them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Interact,
    Input,
    Push,
    Leave,
    Notify,
    World,
    Open,
    Close,
}

const KINDS: [(Kind, &str); 8] = [
    (Kind::Interact, "Interact"),
    (Kind::Input, "Input"),
    (Kind::Push, "Push"),
    (Kind::Leave, "Leave"),
    (Kind::Notify, "Notify"),
    (Kind::World, "World"),
    (Kind::Open, "Open"),
    (Kind::Close, "Close"),
];

fn kind_of(e: &SceneEventAsset) -> Kind {
    match e {
        SceneEventAsset::Interact { .. } => Kind::Interact,
        SceneEventAsset::Input { .. } => Kind::Input,
        SceneEventAsset::Push { .. } => Kind::Push,
        SceneEventAsset::Leave { .. } => Kind::Leave,
        SceneEventAsset::Notify { .. } => Kind::Notify,
        SceneEventAsset::World { .. } => Kind::World,
        SceneEventAsset::Open { .. } => Kind::Open,
        SceneEventAsset::Close { .. } => Kind::Close,
    }
}

/// What each kind means, for its tooltip.
fn kind_help(k: Kind) -> &'static str {
    match k {
        Kind::Interact => {
            "The player reacts to a smart location's interaction icon (its player emitter)."
        }
        Kind::Input => {
            "Player input: a ground fact for the blackboard of the player's script (.me: the player)."
        }
        Kind::Push => "A proxy object reports a fact (.me: the proxy).",
        Kind::Leave => "The player walks away from its script.",
        Kind::Notify => "A smart location emits one of its notifications now.",
        Kind::World => {
            "The world of a planning agent changes: facts set, or an action someone else performs."
        }
        Kind::Open => "A door of the navigation graph opens.",
        Kind::Close => "A door of the navigation graph closes: walks replan around it.",
    }
}

/// What a new event of each kind names first: the project's first smart location, planning
/// problem, door.
#[derive(Clone, Copy, Default)]
struct Firsts<'a> {
    location: &'a str,
    problem: &'a str,
    door: &'a str,
}

/// An event of kind `k` at `at`, keeping what the old event had that the new one takes.
fn convert(e: &SceneEventAsset, k: Kind, first: Firsts) -> SceneEventAsset {
    let at = e.at();
    let first_location = first.location;
    let (location, fact) = match e {
        SceneEventAsset::World { .. }
        | SceneEventAsset::Open { .. }
        | SceneEventAsset::Close { .. } => (first_location.to_string(), String::new()),
        SceneEventAsset::Interact { location, .. } | SceneEventAsset::Notify { location, .. } => {
            (location.clone(), String::new())
        }
        SceneEventAsset::Input { fact, .. } | SceneEventAsset::Push { fact, .. } => {
            (first_location.to_string(), fact.clone())
        }
        SceneEventAsset::Leave { .. } => (first_location.to_string(), String::new()),
    };
    match k {
        Kind::Interact => SceneEventAsset::Interact { at, location },
        Kind::Input => SceneEventAsset::Input { at, fact },
        Kind::Push => SceneEventAsset::Push {
            at,
            proxy: String::new(),
            fact,
        },
        Kind::Leave => SceneEventAsset::Leave { at },
        Kind::Notify => SceneEventAsset::Notify {
            at,
            location,
            notification: String::new(),
        },
        Kind::World => SceneEventAsset::World {
            name: "event".into(),
            problem: first.problem.to_string(),
            agent: None,
            at,
            when: Vec::new(),
            set: Vec::new(),
            perform: None,
            seen: false,
        },
        Kind::Open | Kind::Close => {
            let door = match e {
                SceneEventAsset::Open { door, .. } | SceneEventAsset::Close { door, .. } => {
                    door.clone()
                }
                _ => first.door.to_string(),
            };
            if k == Kind::Open {
                SceneEventAsset::Open { at, door }
            } else {
                SceneEventAsset::Close { at, door }
            }
        }
    }
}

fn at_mut(e: &mut SceneEventAsset) -> &mut f64 {
    match e {
        SceneEventAsset::Interact { at, .. }
        | SceneEventAsset::Input { at, .. }
        | SceneEventAsset::Leave { at }
        | SceneEventAsset::Push { at, .. }
        | SceneEventAsset::Notify { at, .. }
        | SceneEventAsset::World { at, .. }
        | SceneEventAsset::Open { at, .. }
        | SceneEventAsset::Close { at, .. } => at,
    }
}

impl ScenePanel {
    fn take_reveal(&mut self, scene: &SceneAsset) {
        let Some(t) = self.pending.take() else { return };
        if let Some(i) = reveal_index(&t, "agents", scene.agents.iter().map(|a| a.name.as_str())) {
            self.agents.select(i);
        }
        if let Reveal::Path(p) = &t
            && let [
                ensemble_compiler::formats::locate::PathSeg::Field(f),
                ensemble_compiler::formats::locate::PathSeg::Index(i),
                ..,
            ] = p.as_slice()
            && f == "events"
        {
            self.event = Some(*i);
        }
    }

    fn header(&mut self, ui: &mut Ui, scene: &mut SceneAsset, d: Diags) -> bool {
        let mut changed = false;
        ui.horizontal(|ui| {
            ui.label(RichText::new("Scene").heading().color(theme::TEXT));
            changed |= form::text(
                ui,
                &mut scene.name,
                200.0,
                "scene name",
                "scene name",
                &d.notes(&[P::F("name")]),
            );
            ui.add_space(16.0);
            form::label(
                ui,
                "Tick rate",
                "Ticks per second the scene runs at (1 to 10000).",
            );
            let mut rate = scene.tick_rate;
            if form::count(ui, &mut rate, 1..=10_000, " ticks/s", "tick rate") {
                scene.tick_rate = rate;
                changed = true;
            }
            ui.label(
                RichText::new(format!(
                    "run it: ensemble run PROJECT --scene {}",
                    scene.name
                ))
                .small()
                .color(theme::TEXT_WEAK),
            );
        });
        form::problems(ui, d.outside(&["agents", "events", "name"]));
        changed
    }

    fn agent(&mut self, ui: &mut Ui, i: usize, a: &mut AgentAsset, cx: &PanelCx, d: Diags) -> bool {
        let mut changed = false;
        let at = |f: &'static str| [P::F("agents"), P::I(i), P::F(f)];
        ui.horizontal(|ui| {
            ui.label(RichText::new("Agent").heading().color(theme::TEXT));
            if a.player {
                ui.label(
                    RichText::new("PLAYER")
                        .small()
                        .strong()
                        .color(theme::ACCENT),
                );
            } else if a.machine.is_none() {
                ui.label(
                    RichText::new("AMBIENT NPC")
                        .small()
                        .strong()
                        .color(theme::SPECIAL),
                );
            }
        });
        form::grid(ui, ("agent", i), |ui| {
            form::label(
                ui,
                "Name",
                "Machines address agents by this name (RequestConversation, seller).",
            );
            if let Some(new) = form::name_field(
                ui,
                ("agent-name", i),
                &a.name,
                WIDE,
                "agent name",
                &d.notes(&at("name")),
            ) {
                a.name = new;
                changed = true;
            }
            ui.end_row();

            form::label(
                ui,
                "Machine",
                "The root machine it runs. None: an ambient NPC, driven by smart locations.",
            );
            ui.horizontal(|ui| {
                changed |= form::pick_opt(
                    ui,
                    ("agent-machine", i),
                    &mut a.machine,
                    &cx.names.machines,
                    WIDE - 20.0,
                    "machine",
                    "none (ambient NPC)",
                );
                if let Some(m) = &a.machine
                    && cx.names.machines.contains(m)
                {
                    let open = ui.small_button("⏵ Open").on_hover_text(format!("Open {m}"));
                    crate::marks::name_widget(ui, &open, format!("open {m}"));
                    if open.clicked() {
                        cx.request(Request::OpenMachine(m.clone()));
                    }
                }
            });
            ui.end_row();

            form::label(ui, "Starts at", "The location it appears at.");
            changed |= form::pick(
                ui,
                ("agent-at", i),
                &mut a.at,
                &cx.names.locations,
                WIDE - 20.0,
                "starts at",
                "choose a location",
            );
            ui.end_row();

            form::label(
                ui,
                "Player",
                "The player joins scripts only through player emitters; the scene's events say what it does.",
            );
            let r = ui.checkbox(&mut a.player, "this agent is the player");
            crate::marks::name_widget(ui, &r, "player");
            // The player runs no machine (the scene's events act for it): ticking the box
            // drops the machine instead of leaving an error to clear by hand.
            if r.changed() && a.player {
                a.machine = None;
            }
            changed |= r.changed();
            ui.end_row();

            // Roles, route, group and delay are the smart locations' business: the build
            // drops them for an agent that runs a machine, so the form does not offer them
            // there (a value already written stays editable, marked as ignored).
            let machine = a.machine.clone();
            form::label(
                ui,
                "Roles",
                "Roles it can take in interaction scripts (ambient NPCs).",
            );
            changed |= ambient_only(ui, &machine, a.roles.is_empty(), "roles", |ui| {
                form::chips(
                    ui,
                    ("agent-roles", i),
                    &mut a.roles,
                    &cx.names.more.roles,
                    true,
                    false,
                    "roles",
                )
            });
            ui.end_row();

            form::label(
                ui,
                "Route",
                "Locations it walks through, in order, when not in a script (ambient NPCs).",
            );
            changed |= ambient_only(ui, &machine, a.route.is_empty(), "route", |ui| {
                form::chips(
                    ui,
                    ("agent-route", i),
                    &mut a.route,
                    &cx.names.locations,
                    false,
                    true,
                    "route",
                )
            });
            ui.end_row();

            form::label(
                ui,
                "Group",
                "Agents of one group join scripts together (a family; ambient NPCs).",
            );
            changed |= ambient_only(ui, &machine, a.group.is_none(), "group", |ui| {
                form::opt_text(
                    ui,
                    &mut a.group,
                    WIDE,
                    "none",
                    "group",
                    &d.notes(&at("group")),
                )
            });
            ui.end_row();

            form::label(
                ui,
                "Delay",
                "Seconds after the scene starts before it appears (ambient NPCs; an agent that \
                 runs a machine starts with the scene).",
            );
            changed |= ambient_only(ui, &machine, a.delay == 0.0, "delay", |ui| {
                form::number(ui, &mut a.delay, 0.0..=1e6, 0.1, " s", "delay")
            });
            ui.end_row();
        });
        if a.player && a.machine.is_some() {
            ui.label(
                RichText::new("⚠ the player has no machine: its events drive it")
                    .color(theme::WARNING),
            );
        }
        form::section(ui, "Variables");
        form::help(
            ui,
            "Values for the VARIABLE slots of the sentence states it speaks (CityName = Boston).",
        );
        changed |= form::key_values(
            ui,
            ("agent-vars", i),
            &mut a.variables,
            &cx.names.more.slots,
            "variable",
            "variable",
        );
        let mine: Vec<_> = d.under(&[P::F("agents"), P::I(i)]).collect();
        if !mine.is_empty() {
            form::section(ui, "Problems");
            form::problems(ui, mine);
        }
        changed
    }

    fn events(&mut self, ui: &mut Ui, scene: &mut SceneAsset, cx: &PanelCx, d: Diags) -> bool {
        let mut changed = false;
        let more = &cx.names.more;
        let smart: Vec<String> = more
            .smart_locations
            .iter()
            .map(|s| s.name.clone())
            .collect();
        let proxies = more.proxies();
        let first = smart.first().cloned().unwrap_or_default();
        let problems = &more.problems;
        let first_problem = problems.first().cloned().unwrap_or_default();
        let first_door = more.doors.first().cloned().unwrap_or_default();
        let firsts = Firsts {
            location: &first,
            problem: &first_problem,
            door: &first_door,
        };
        let agents: Vec<String> = scene.agents.iter().map(|a| a.name.clone()).collect();
        ui.horizontal(|ui| {
            ui.label(RichText::new("Events").strong().color(theme::TEXT));
            ui.label(RichText::new(scene.events.len().to_string()).color(theme::TEXT_WEAK));
            let r = ui.menu_button("+ Event", |ui| {
                for (k, label) in KINDS {
                    if ui.button(label).on_hover_text(kind_help(k)).clicked() {
                        let at = scene.events.last().map_or(0.0, |e| e.at() + 1.0);
                        scene.events.push(convert(&SceneEventAsset::Leave { at }, k, firsts));
                        self.event = Some(scene.events.len() - 1);
                        changed = true;
                        ui.close();
                    }
                }
            });
            crate::marks::name_widget(ui, &r.response, "add event");
            let sorted = scene.events.windows(2).all(|w| w[0].at() <= w[1].at());
            if ui
                .add_enabled(!sorted, egui::Button::new("Sort by time"))
                .on_hover_text("Events of one time keep their order")
                .clicked()
            {
                scene.events.sort_by(|a, b| a.at().total_cmp(&b.at()));
                changed = true;
            }
            form::help(ui, "what the player does and what proxied game systems report, at seconds into the scene");
        });
        let mut remove = None;
        let mut swap = None;
        let scroll_to = self.event.take();
        egui::ScrollArea::vertical()
            .id_salt("scene-events")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                egui::Grid::new("scene-events-grid")
                    .num_columns(4)
                    .spacing([10.0, 5.0])
                    .striped(true)
                    .show(ui, |ui| {
                        let len = scene.events.len();
                        for (i, e) in scene.events.iter_mut().enumerate() {
                            let notes = d.notes(&[P::F("events"), P::I(i)]);
                            let r = ui.horizontal(|ui| {
                                changed |= form::number(
                                    ui,
                                    at_mut(e),
                                    0.0..=1e7,
                                    0.1,
                                    " s",
                                    format!("event {} time", i + 1),
                                );
                                let mut k = kind_of(e);
                                if form::choose(
                                    ui,
                                    ("event-kind", i),
                                    &mut k,
                                    &KINDS,
                                    90.0,
                                    format!("event {} kind", i + 1),
                                ) {
                                    *e = convert(e, k, firsts);
                                    changed = true;
                                }
                            });
                            if scroll_to == Some(i) {
                                r.response.scroll_to_me(Some(egui::Align::Center));
                            }
                            ui.horizontal(|ui| match e {
                                SceneEventAsset::Interact { location, .. } => {
                                    ui.label(RichText::new("at").color(theme::TEXT_WEAK));
                                    changed |= form::pick(
                                        ui,
                                        ("event-loc", i),
                                        location,
                                        &smart,
                                        180.0,
                                        format!("event {} location", i + 1),
                                        "smart location…",
                                    );
                                }
                                SceneEventAsset::Input { fact, .. } => {
                                    ui.label(RichText::new("fact").color(theme::TEXT_WEAK));
                                    ui.vertical(|ui| {
                                        changed |= form::facts(
                                            ui,
                                            fact,
                                            300.0,
                                            true,
                                            format!("event {} fact", i + 1),
                                            &[],
                                        )
                                    });
                                }
                                SceneEventAsset::Push { proxy, fact, .. } => {
                                    changed |= form::pick(
                                        ui,
                                        ("event-proxy", i),
                                        proxy,
                                        &proxies,
                                        140.0,
                                        format!("event {} proxy", i + 1),
                                        "proxy…",
                                    );
                                    ui.label(RichText::new("reports").color(theme::TEXT_WEAK));
                                    ui.vertical(|ui| {
                                        changed |= form::facts(
                                            ui,
                                            fact,
                                            240.0,
                                            true,
                                            format!("event {} fact", i + 1),
                                            &[],
                                        )
                                    });
                                }
                                SceneEventAsset::Leave { .. } => {
                                    ui.label(
                                        RichText::new("the player walks away from its script")
                                            .italics()
                                            .color(theme::TEXT_WEAK),
                                    );
                                }
                                SceneEventAsset::World {
                                    name,
                                    problem,
                                    agent,
                                    when,
                                    set,
                                    perform,
                                    seen,
                                    ..
                                } => {
                                    ui.vertical(|ui| {
                                        ui.horizontal(|ui| {
                                            changed |= form::text(
                                                ui,
                                                name,
                                                190.0,
                                                "name",
                                                format!("event {} name", i + 1),
                                                &[],
                                            );
                                            ui.label(RichText::new("in").color(theme::TEXT_WEAK));
                                            changed |= form::pick(
                                                ui,
                                                ("event-problem", i),
                                                problem,
                                                problems,
                                                140.0,
                                                format!("event {} problem", i + 1),
                                                "problem…",
                                            );
                                            ui.label(RichText::new("of").color(theme::TEXT_WEAK));
                                            changed |= form::pick_opt(
                                                ui,
                                                ("event-agent", i),
                                                agent,
                                                &agents,
                                                110.0,
                                                format!("event {} agent", i + 1),
                                                "its planner",
                                            );
                                            let r = ui.checkbox(seen, "seen");
                                            crate::marks::name_widget(
                                                ui,
                                                &r,
                                                format!("event {} seen", i + 1),
                                            );
                                            changed |= r.changed();
                                        });
                                        ui.horizontal(|ui| {
                                            ui.label(RichText::new("when").color(theme::TEXT_WEAK));
                                            changed |= form::line_list(
                                                ui,
                                                when,
                                                150.0,
                                                1,
                                                "facts that hold",
                                                format!("event {} when", i + 1),
                                                &[],
                                            );
                                            ui.label(RichText::new("set").color(theme::TEXT_WEAK));
                                            changed |= form::line_list(
                                                ui,
                                                set,
                                                150.0,
                                                1,
                                                "doorOpen",
                                                format!("event {} set", i + 1),
                                                &[],
                                            );
                                            ui.label(
                                                RichText::new("or someone does")
                                                    .color(theme::TEXT_WEAK),
                                            );
                                            changed |= form::opt_text(
                                                ui,
                                                perform,
                                                240.0,
                                                "Open(player, door)",
                                                format!("event {} perform", i + 1),
                                                &[],
                                            );
                                        });
                                    });
                                }
                                SceneEventAsset::Open { door, .. }
                                | SceneEventAsset::Close { door, .. } => {
                                    ui.label(RichText::new("door").color(theme::TEXT_WEAK));
                                    changed |= form::pick(
                                        ui,
                                        ("event-door", i),
                                        door,
                                        &more.doors,
                                        150.0,
                                        format!("event {} door", i + 1),
                                        "door…",
                                    );
                                }
                                SceneEventAsset::Notify {
                                    location,
                                    notification,
                                    ..
                                } => {
                                    ui.label(RichText::new("at").color(theme::TEXT_WEAK));
                                    changed |= form::pick(
                                        ui,
                                        ("event-loc", i),
                                        location,
                                        &smart,
                                        150.0,
                                        format!("event {} location", i + 1),
                                        "smart location…",
                                    );
                                    let notes: Vec<String> = more
                                        .smart_location(location)
                                        .map(|s| s.notifications.clone())
                                        .unwrap_or_default();
                                    ui.label(RichText::new("emits").color(theme::TEXT_WEAK));
                                    changed |= form::pick(
                                        ui,
                                        ("event-note", i),
                                        notification,
                                        &notes,
                                        150.0,
                                        format!("event {} notification", i + 1),
                                        "notification…",
                                    );
                                }
                            });
                            ui.horizontal(|ui| {
                                if !notes.is_empty() {
                                    let r = ui.label(RichText::new("✖").color(theme::ERROR));
                                    crate::marks::mark(ui, r, &notes);
                                }
                            });
                            ui.horizontal(|ui| {
                                let up = ui.add_enabled(i > 0, egui::Button::new("⏶").small());
                                crate::marks::name_widget(
                                    ui,
                                    &up,
                                    format!("move event {} up", i + 1),
                                );
                                if up.clicked() {
                                    swap = Some((i - 1, i));
                                }
                                let down =
                                    ui.add_enabled(i + 1 < len, egui::Button::new("⏷").small());
                                crate::marks::name_widget(
                                    ui,
                                    &down,
                                    format!("move event {} down", i + 1),
                                );
                                if down.clicked() {
                                    swap = Some((i, i + 1));
                                }
                                let x = ui.small_button("×").on_hover_text("Remove this event");
                                crate::marks::name_widget(
                                    ui,
                                    &x,
                                    format!("remove event {}", i + 1),
                                );
                                if x.clicked() {
                                    remove = Some(i);
                                }
                            });
                            ui.end_row();
                        }
                    });
                if scene.events.is_empty() {
                    form::help(ui, "No events: the scene runs on its own.");
                }
            });
        if let Some(i) = remove {
            scene.events.remove(i);
            changed = true;
        }
        if let Some((a, b)) = swap {
            scene.events.swap(a, b);
            changed = true;
        }
        changed
    }
}

impl AssetPanel<SceneAsset> for ScenePanel {
    fn ui(&mut self, ui: &mut Ui, scene: &mut SceneAsset, cx: &PanelCx) -> bool {
        self.take_reveal(scene);
        let d = Diags {
            list: cx.diagnostics,
        };
        let mut changed = self.header(ui, scene, d);
        ui.separator();
        crate::marks::docked(
            egui::Panel::bottom(ui.id().with("scene-events")),
            190.0,
            90.0,
        )
        .show(ui, |ui| changed |= self.events(ui, scene, cx, d));
        crate::marks::docked(
            egui::Panel::left(ui.id().with("scene-agents")),
            250.0,
            180.0,
        )
        .show(ui, |ui| {
            let first_location = cx.names.locations.first().cloned().unwrap_or_default();
            // A designer adding an agent means one that runs a machine: an ambient NPC without
            // roles is an error at once. Another like the last machine-driven agent of the scene
            // (its machine and the variables its sentences fill), else the project's first
            // machine; ambient only in a project without machines.
            let like = scene.agents.iter().rev().find(|a| a.machine.is_some());
            let machine = like
                .and_then(|a| a.machine.clone())
                .or_else(|| cx.names.machines.first().cloned());
            let variables = like.map(|a| a.variables.clone()).unwrap_or_default();
            changed |= self.agents.show(
                ui,
                "scene-agents",
                "Agents",
                "agent",
                &mut scene.agents,
                |i, a| ItemRow {
                    detail: match (&a.machine, a.player) {
                        (_, true) => "player".into(),
                        (Some(m), _) => m.clone(),
                        (None, _) => "ambient".into(),
                    },
                    severity: d.worst(&[P::F("agents"), P::I(i)]),
                },
                |name| AgentAsset {
                    name,
                    machine: machine.clone(),
                    at: first_location.clone(),
                    roles: Vec::new(),
                    route: Vec::new(),
                    group: None,
                    delay: 0.0,
                    variables: variables.clone(),
                    player: false,
                },
            );
        });
        egui::ScrollArea::vertical()
            .id_salt("scene-agent-form")
            .auto_shrink([false, false])
            .show(ui, |ui| {
                ui.add_space(4.0);
                match self.agents.current(scene.agents.len()) {
                    Some(i) => changed |= self.agent(ui, i, &mut scene.agents[i], cx, d),
                    None => form::help(ui, "No agents yet: add one with “+ agent”."),
                }
            });
        changed
    }

    fn reveal(&mut self, target: &Reveal) {
        self.pending = Some(target.clone());
    }
}

/// A field only ambient NPCs use. For an agent that runs `machine` (its machine decides where
/// it goes and when; the build drops the field) a note stands in its place, or, when a value is
/// already written, the field stays to clear it, marked as ignored. Whether `field` changed it.
fn ambient_only(
    ui: &mut Ui,
    machine: &Option<String>,
    unset: bool,
    name: &str,
    field: impl FnOnce(&mut Ui) -> bool,
) -> bool {
    let Some(m) = machine else {
        return field(ui);
    };
    let why = format!(
        "Only for ambient NPCs (agents without a machine): this agent runs {m}, which decides \
         where it goes and when; the build ignores its {name}."
    );
    if unset {
        ui.label(RichText::new("ambient NPCs only").color(theme::TEXT_WEAK))
            .on_hover_text(why);
        return false;
    }
    ui.horizontal(|ui| {
        let changed = field(ui);
        ui.label(RichText::new("⚠ ignored: it runs a machine").color(theme::WARNING))
            .on_hover_text(why);
        changed
    })
    .inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changing_an_events_kind_keeps_its_time_and_what_carries_over() {
        let bakery = Firsts {
            location: "bakery",
            door: "SouthGate",
            ..Default::default()
        };
        let push = SceneEventAsset::Push {
            at: 30.0,
            proxy: "till".into(),
            fact: "sale(player, cake)".into(),
        };
        assert_eq!(
            convert(&push, Kind::Input, bakery),
            SceneEventAsset::Input {
                at: 30.0,
                fact: "sale(player, cake)".into()
            }
        );
        assert_eq!(
            convert(&push, Kind::Interact, bakery),
            SceneEventAsset::Interact {
                at: 30.0,
                location: "bakery".into()
            }
        );
        let note = convert(
            &SceneEventAsset::Interact {
                at: 5.0,
                location: "stall".into(),
            },
            Kind::Notify,
            bakery,
        );
        assert_eq!(kind_of(&note), Kind::Notify);
        assert_eq!(note.at(), 5.0);
        // A door event starts on the first door, and keeps its door between open and close.
        let open = convert(&note, Kind::Open, bakery);
        assert_eq!(
            open,
            SceneEventAsset::Open {
                at: 5.0,
                door: "SouthGate".into()
            }
        );
        let mut shut = open.clone();
        if let SceneEventAsset::Open { door, .. } = &mut shut {
            *door = "NorthGate".into();
        }
        assert_eq!(
            convert(&shut, Kind::Close, bakery),
            SceneEventAsset::Close {
                at: 5.0,
                door: "NorthGate".into()
            }
        );
    }
}
