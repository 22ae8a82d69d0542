//! Smart locations (`*.smartloc.ron`, Skubch 35.2 and 35.6): props, the scripts their script
//! emitter runs, their other emitters (notification, spawn, player) and proxy objects; and the
//! events scenes make happen to them (`Scene(events: [...])`). Runs after the scripts are
//! lowered, since locations name scripts, and after the scenes, since events belong to one.
//!
//! Everything here only resolves names and reads cells; what needs the whole module (roles a
//! proxy or an emitter names, facts against what is declared) is checked in `valid::location`.

use super::cell;
use super::source::{Cell, Origin};
use crate::diag::{Code, Diagnostic, Diagnostics, suggest_note};
use crate::front::ron::Locator;
use crate::front::ron::locate::Seg;
use crate::front::ron::{SceneAsset, SceneEventAsset, SmartLocationAsset};
use crate::ir::script::{
    Notification, PlayerEmitter, Proxy, SceneEvent, SceneEventKind, SmartLocation, Spawn,
};
use crate::ir::{Handle, Location, Module, Name};
use crate::source::{FileId, SourceMap, Span};

/// A string value as a cell, so cell-syntax errors point inside it.
fn cell(at: &Locator, text: &str, path: &[Seg<'_>]) -> Cell {
    Cell {
        text: text.to_string(),
        origin: Origin::Ron(at.span(path)),
    }
}

/// The names of a list inside item `i` of another (`proxies[i].actions[k]`), located.
fn names(spans: &Locator, list: &[String], [outer, inner]: [&str; 2], i: usize) -> Vec<Name> {
    list.iter()
        .enumerate()
        .map(|(k, text)| {
            let path = [
                Seg::Field(outer),
                Seg::Index(i),
                Seg::Field(inner),
                Seg::Index(k),
            ];
            spans.name(text, &path)
        })
        .collect()
}

/// The largest arity a `supplies` entry may declare: checks enumerate every position of a
/// supplied predicate, so `asks/18446744073709551615` must be refused, not counted to.
pub(crate) const MAX_ARITY: usize = 64;

/// `seat/1, sale/2` (arities up to [`MAX_ARITY`]).
pub(crate) fn predicate_list(text: &str) -> Result<Vec<(String, usize)>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|i| !i.is_empty())
        .map(|item| {
            item.split_once('/')
                .and_then(|(p, a)| {
                    let p = p.trim();
                    let ok = p.chars().next().is_some_and(|c| c.is_ascii_lowercase());
                    ok.then_some(())?;
                    a.trim()
                        .parse::<usize>()
                        .ok()
                        .filter(|a| *a <= MAX_ARITY)
                        .map(|a| (p.to_string(), a))
                })
                .ok_or_else(|| item.to_string())
        })
        .collect()
}

fn supplies(text: &str, span: Span, diags: &mut Diagnostics) -> Vec<(String, usize)> {
    match predicate_list(text) {
        Ok(list) => list,
        Err(item) => {
            diags.push(
                Diagnostic::error(Code::Syntax, format!("`{item}` is not `predicate/arity`"))
                    .at(span, "expected predicate/arity")
                    .note("write supplied predicates as `seat/1, sale/2`, with arities up to 64"),
            );
            Vec::new()
        }
    }
}

/// A number of seconds or metres that must be finite and not negative.
fn non_negative(x: f64, what: &str, span: Span, diags: &mut Diagnostics) -> f64 {
    if x.is_finite() && x >= 0.0 {
        x
    } else {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("{what} must be a finite number, 0 or more (not {x})"),
            )
            .at(span, "here"),
        );
        0.0
    }
}

fn location(
    module: &Module,
    name: &str,
    span: Span,
    what: impl FnOnce() -> String,
    diags: &mut Diagnostics,
) -> Option<Handle<Location>> {
    let found = module.location_by_name(name);
    if found.is_none() {
        let d = Diagnostic::error(
            Code::UnknownReference,
            format!("{}, which is not a location", what()),
        )
        .at(span, "no such location");
        diags.push(suggest_note(
            d,
            name,
            module.locations.iter().map(|(_, l)| l.name.text.as_str()),
        ));
    }
    found
}

/// Ground facts in cell syntax (a notification's, a scene event's).
fn facts(cell: &Cell, what: &str, diags: &mut Diagnostics) -> Option<Vec<cell::AtomAst>> {
    match cell::atoms(&cell.text) {
        Ok(atoms) => Some(atoms),
        Err(e) => {
            let d = Diagnostic::error(Code::Syntax, format!("cannot read {what}: {}", e.message));
            diags.push(cell.locate(d, Some(e.range), &e.message));
            None
        }
    }
}

/// Lowers every `*.smartloc.ron`, then the scenes' events.
pub fn lower(sources: &SourceMap, module: &mut Module, diags: &mut Diagnostics) {
    for (id, file) in sources.iter() {
        if !file.name.ends_with(".smartloc.ron") {
            continue;
        }
        let Some(asset) = crate::front::ron::parse::<SmartLocationAsset>(sources, id, diags) else {
            continue;
        };
        let spans = Locator::new(sources, id);
        if let Some(loc) = smart_location(&asset, &spans, module, diags) {
            module.smart_locations.append(loc);
        }
    }
    for (id, file) in sources.iter() {
        if file.name.ends_with(".scene.ron") {
            scene_events(sources, id, module, diags);
        }
    }
}

fn smart_location(
    asset: &SmartLocationAsset,
    spans: &Locator,
    module: &Module,
    diags: &mut Diagnostics,
) -> Option<SmartLocation> {
    let f = |name| [Seg::Field(name)];
    let name = spans.name(&asset.name, &f("name"));
    if let Some((_, prev)) = module
        .smart_locations
        .iter()
        .find(|(_, l)| l.name.text == asset.name)
    {
        diags.push(
            Diagnostic::error(
                Code::DuplicateName,
                format!("smart location `{}` is defined twice", asset.name),
            )
            .at(name.span, "defined again")
            .related(prev.name.span, "first defined here"),
        );
        return None;
    }
    let at = location(
        module,
        &asset.at,
        spans.span(&f("at")),
        || format!("smart location `{}` stands at `{}`", asset.name, asset.at),
        diags,
    );
    let radius = non_negative(asset.radius, "radius", spans.span(&f("radius")), diags);
    let mut scripts = Vec::new();
    for (i, choice) in asset.scripts.iter().enumerate() {
        match module.scripts.iter().find(|(_, s)| s.name == choice.script) {
            Some((h, _)) => scripts.push((h, choice.preference)),
            None => {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "smart location `{}` runs script `{}`, which is not defined",
                        asset.name, choice.script
                    ),
                )
                .at(
                    spans.span(&[Seg::Field("scripts"), Seg::Index(i), Seg::Field("script")]),
                    "no such script",
                );
                diags.push(suggest_note(
                    d,
                    &choice.script,
                    module.scripts.iter().map(|(_, s)| s.name.as_str()),
                ));
            }
        }
    }
    let proxies = asset
        .proxies
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let path = |field| [Seg::Field("proxies"), Seg::Index(i), Seg::Field(field)];
            Proxy {
                name: spans.name(&p.name, &path("name")),
                role: spans.name(&p.role, &path("role")),
                actions: names(spans, &p.actions, ["proxies", "actions"], i),
                supplies: supplies(&p.supplies, spans.span(&path("supplies")), diags),
            }
        })
        .collect();
    let notifications = asset
        .notifications
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let path = |field| {
                [
                    Seg::Field("notifications"),
                    Seg::Index(i),
                    Seg::Field(field),
                ]
            };
            let facts_cell =
                (!n.facts.trim().is_empty()).then(|| cell(spans, &n.facts, &path("facts")));
            Notification {
                name: spans.name(&n.name, &path("name")),
                at: non_negative(
                    n.at,
                    "a notification's `at`",
                    spans.span(&path("at")),
                    diags,
                ),
                every: non_negative(
                    n.every,
                    "a notification's `every`",
                    spans.span(&path("every")),
                    diags,
                ),
                radius: match n.radius {
                    Some(r) => non_negative(
                        r,
                        "a notification's radius",
                        spans.span(&path("radius")),
                        diags,
                    ),
                    None => radius,
                },
                lasts: n.lasts.map(|x| {
                    non_negative(
                        x,
                        "a notification's `lasts`",
                        spans.span(&path("lasts")),
                        diags,
                    )
                }),
                facts: facts_cell
                    .as_ref()
                    .and_then(|c| facts(c, "the notification's facts", diags))
                    .unwrap_or_default(),
                facts_cell,
            }
        })
        .collect();
    let spawns = asset
        .spawns
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let path = |field| [Seg::Field("spawns"), Seg::Index(i), Seg::Field(field)];
            let point = location(
                module,
                &s.point,
                spans.span(&path("point")),
                || format!("spawn emitter `{}` places NPCs at `{}`", s.name, s.point),
                diags,
            );
            let route = s
                .route
                .iter()
                .enumerate()
                .filter_map(|(k, stop)| {
                    location(
                        module,
                        stop,
                        spans.span(&[
                            Seg::Field("spawns"),
                            Seg::Index(i),
                            Seg::Field("route"),
                            Seg::Index(k),
                        ]),
                        || format!("NPCs of spawn emitter `{}` walk to `{stop}`", s.name),
                        diags,
                    )
                })
                .collect();
            if !(1..=1000).contains(&s.size) {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "spawn emitter `{}`: size must be between 1 and 1000 NPCs, not {}",
                            s.name, s.size
                        ),
                    )
                    .at(spans.span(&path("size")), "here"),
                );
            }
            let every = non_negative(
                s.every,
                "a spawn's `every`",
                spans.span(&path("every")),
                diags,
            );
            Spawn {
                name: spans.name(&s.name, &path("name")),
                point,
                roles: names(spans, &s.roles, ["spawns", "roles"], i),
                route,
                size: s.size.clamp(1, 1000),
                at: non_negative(s.at, "a spawn's `at`", spans.span(&path("at")), diags),
                every,
                waves: s.waves.unwrap_or(if every > 0.0 { 0 } else { 1 }),
            }
        })
        .collect();
    let player = asset.player.as_ref().map(|p| {
        let path = |field| [Seg::Field("player"), Seg::Field(field)];
        PlayerEmitter {
            role: spans.name(&p.role, &path("role")),
            icon: p.icon.clone(),
            supplies: supplies(&p.supplies, spans.span(&path("supplies")), diags),
            span: spans.span(&f("player")),
        }
    });
    Some(SmartLocation {
        name,
        at,
        radius,
        props: asset
            .props
            .iter()
            .map(|p| (p.name.clone(), p.kind.clone()))
            .collect(),
        supplies: supplies(&asset.supplies, spans.span(&f("supplies")), diags),
        scripts,
        proxies,
        notifications,
        spawns,
        player,
    })
}

/// The events of one scene file, resolved against the smart locations.
fn scene_events(sources: &SourceMap, file: FileId, module: &mut Module, diags: &mut Diagnostics) {
    // The front end has reported this file's syntax errors already.
    let mut quiet = Diagnostics::default();
    let Some(asset) = crate::front::ron::parse::<SceneAsset>(sources, file, &mut quiet) else {
        return;
    };
    let Some(scene) = module
        .scenes
        .iter()
        .find(|(_, s)| s.name.span.file == file && s.name.text == asset.name)
        .map(|(h, _)| h)
    else {
        return;
    };
    let spans = Locator::new(sources, file);
    let mut events = Vec::new();
    for (i, e) in asset.events.iter().enumerate() {
        let path = |field| [Seg::Field("events"), Seg::Index(i), Seg::Field(field)];
        let span = spans.span(&[Seg::Field("events"), Seg::Index(i)]);
        let at = non_negative(e.at(), "an event's `at`", spans.span(&path("at")), diags);
        let find_location = |name: &str, diags: &mut Diagnostics| {
            let found = module
                .smart_locations
                .iter()
                .find(|(_, l)| l.name.text == name)
                .map(|(h, _)| h);
            if found.is_none() {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!("scene `{}`: `{name}` is not a smart location", asset.name),
                )
                .at(spans.span(&path("location")), "no such smart location");
                diags.push(suggest_note(
                    d,
                    name,
                    module
                        .smart_locations
                        .iter()
                        .map(|(_, l)| l.name.text.as_str()),
                ));
            }
            found
        };
        let fact = |text: &str, diags: &mut Diagnostics| {
            let cell = cell(&spans, text, &path("fact"));
            let atoms = facts(&cell, "the event's fact", diags)?;
            if atoms.len() != 1 {
                let d = Diagnostic::error(
                    Code::Syntax,
                    format!("an event carries one fact, not {}", atoms.len()),
                );
                diags.push(cell.locate(d, None, "one fact, such as `sale(player, bread)`"));
                return None;
            }
            atoms.into_iter().next().map(|a| (a, cell))
        };
        let what = match e {
            SceneEventAsset::Interact { location, .. } => {
                find_location(location, diags).map(|location| SceneEventKind::Interact { location })
            }
            SceneEventAsset::Input { fact: text, .. } => {
                fact(text, diags).map(|(fact, cell)| SceneEventKind::Input { fact, cell })
            }
            SceneEventAsset::Leave { .. } => Some(SceneEventKind::Leave),
            // Doors of the navigation graph: compiler/src/nav.
            SceneEventAsset::Open { .. } | SceneEventAsset::Close { .. } => None,
            SceneEventAsset::Push {
                proxy, fact: text, ..
            } => {
                let found = module.smart_locations.iter().find_map(|(h, l)| {
                    l.proxies
                        .iter()
                        .position(|p| p.name.text == *proxy)
                        .map(|k| (h, k))
                });
                if found.is_none() {
                    let d = Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "scene `{}`: `{proxy}` is not a proxy of any smart location",
                            asset.name
                        ),
                    )
                    .at(spans.span(&path("proxy")), "no such proxy");
                    diags.push(suggest_note(
                        d,
                        proxy,
                        module
                            .smart_locations
                            .iter()
                            .flat_map(|(_, l)| l.proxies.iter().map(|p| p.name.text.as_str())),
                    ));
                }
                match (found, fact(text, diags)) {
                    (Some((location, proxy)), Some((fact, cell))) => Some(SceneEventKind::Push {
                        location,
                        proxy,
                        fact,
                        cell,
                    }),
                    _ => None,
                }
            }
            SceneEventAsset::Notify {
                location,
                notification,
                ..
            } => find_location(location, diags).and_then(|h| {
                let l = &module.smart_locations[h];
                let found = l
                    .notifications
                    .iter()
                    .position(|n| n.name.text == *notification);
                if found.is_none() {
                    let d = Diagnostic::error(
                        Code::UnknownReference,
                        format!("smart location `{location}` has no notification `{notification}`"),
                    )
                    .at(spans.span(&path("notification")), "no such notification");
                    diags.push(suggest_note(
                        d,
                        notification,
                        l.notifications.iter().map(|n| n.name.text.as_str()),
                    ));
                }
                found.map(|notification| SceneEventKind::Notify {
                    location: h,
                    notification,
                })
            }),
            // Planning agents' world events: compiler/src/plan/project.rs.
            SceneEventAsset::World { .. } => None,
        };
        if let Some(what) = what {
            events.push(SceneEvent {
                scene,
                at,
                span,
                what,
            });
        }
    }
    module.scene_events.extend(events);
}
