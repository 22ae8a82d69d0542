//! Checks on smart locations and scene events that need the scripts and the scenes: roles that
//! proxies, spawned NPCs and the player take; actions a proxy offers; names that would collide
//! once spawned NPCs and proxies are agents of a scene; facts that must be ground and declared.

use crate::diag::{Code, Diagnostic, Diagnostics, suggest_note};
use crate::ir::script::{SceneEventKind, Script, SmartLocation};
use crate::ir::{Module, Name};
use crate::script::cell::{AtomAst, Term};
use crate::script::source::Cell;
use crate::source::Span;

pub fn check(module: &Module, diags: &mut Diagnostics) {
    for (_, loc) in module.smart_locations.iter() {
        let scripts: Vec<&Script> = loc
            .scripts
            .iter()
            .map(|(h, _)| &module.scripts[*h])
            .collect();
        proxies(loc, &scripts, diags);
        emitters(loc, &scripts, diags);
        takers(module, loc, &scripts, diags);
    }
    names(module, diags);
    players(module, diags);
    events(module, diags);
    scene_roles(module, diags);
}

/// `unknown-role`: a scene agent's role that no script defines. One edit from a role that
/// exists it is a misspelling (an error: the agent would never join where it was meant to);
/// otherwise a warning. Located at the agent, whose entry holds the role.
fn scene_roles(module: &Module, diags: &mut Diagnostics) {
    if module.scripts.is_empty() {
        return; // no interaction scripts: roles are for scripts still to come
    }
    let known: Vec<&str> = module
        .scripts
        .iter()
        .flat_map(|(_, s)| s.roles.iter().map(|r| r.name.as_str()))
        .collect();
    for (_, scene) in module.scenes.iter() {
        for agent in &scene.agents {
            for role in agent.roles.iter().filter(|r| !known.contains(&r.as_str())) {
                let message = format!(
                    "agent `{}` of scene `{}` takes role `{role}`, which no script defines",
                    agent.name.text, scene.name.text
                );
                let d = match crate::diag::suggest(role, known.iter().copied()) {
                    Some(m) => Diagnostic::error(Code::UnknownRole, message)
                        .note(format!("did you mean `{m}`?")),
                    None => Diagnostic::warning(Code::UnknownRole, message).note(format!(
                        "roles of the project's scripts: {}",
                        known.join(", ")
                    )),
                };
                diags.push(d.at(agent.name.span, format!("takes role `{role}`")));
            }
        }
    }
}

fn has_role(scripts: &[&Script], role: &str) -> bool {
    scripts
        .iter()
        .any(|s| s.roles.iter().any(|r| r.name == role))
}

fn role_names<'a>(scripts: &'a [&'a Script]) -> impl Iterator<Item = &'a str> {
    scripts
        .iter()
        .flat_map(|s| s.roles.iter().map(|r| r.name.as_str()))
}

/// `duplicate-name` when `name` is among the `earlier` names of the location's `what`s.
fn twice<'a>(
    loc: &SmartLocation,
    what: &str,
    plural: &str,
    mut earlier: impl Iterator<Item = &'a Name>,
    name: &Name,
    diags: &mut Diagnostics,
) {
    if let Some(prev) = earlier.find(|e| e.text == name.text) {
        diags.push(
            Diagnostic::error(
                Code::DuplicateName,
                format!(
                    "smart location `{}` has two {plural} named `{}`",
                    loc.name.text, name.text
                ),
            )
            .at(name.span, format!("second {what} with this name"))
            .related(prev.span, "first one"),
        );
    }
}

/// A proxy takes a role of the location's scripts and can only do the actions it offers.
fn proxies(loc: &SmartLocation, scripts: &[&Script], diags: &mut Diagnostics) {
    for (i, p) in loc.proxies.iter().enumerate() {
        let earlier = loc.proxies[..i].iter().map(|q| &q.name);
        twice(loc, "proxy", "proxies", earlier, &p.name, diags);
        if !has_role(scripts, &p.role.text) {
            let d = Diagnostic::warning(
                Code::UnknownRole,
                format!(
                    "proxy `{}` takes role `{}`, which none of `{}`'s scripts has: it never takes part",
                    p.name.text, p.role.text, loc.name.text
                ),
            )
            .at(p.role.span, "no script has this role");
            diags.push(suggest_note(d, &p.role.text, role_names(scripts)));
            continue;
        }
        for s in scripts {
            let Some(role) = s.roles.iter().position(|r| r.name == p.role.text) else {
                continue;
            };
            for r in s.rules.iter().filter(|r| r.role == Some(role)) {
                let Some((action, cell)) = &r.action else {
                    continue;
                };
                if p.actions.iter().any(|a| a.text == *action) {
                    continue;
                }
                let offers = if p.actions.is_empty() {
                    "it offers no actions".to_string()
                } else {
                    format!(
                        "it offers {}",
                        p.actions
                            .iter()
                            .map(|a| format!("`{}`", a.text))
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                };
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "rule {} of script `{}` has role `{}` do `{action}`, but that role is proxy `{}`, and {offers}",
                        r.label, s.name, p.role.text, p.name.text
                    ),
                );
                let d = cell.locate(d, None, "not an action of the proxy");
                let d = suggest_note(d, action, p.actions.iter().map(|a| a.text.as_str()));
                diags.push(d.related(p.name.span, "the proxy"));
            }
        }
    }
}

/// `bad-cardinality` (a warning): a role a script needs at least one of, that nobody who could
/// come to this location can take — no agent of any scene, none of its spawn emitters or
/// proxies, not the player. The location then never starts that script.
fn takers(module: &Module, loc: &SmartLocation, scripts: &[&Script], diags: &mut Diagnostics) {
    for s in scripts {
        for role in s.roles.iter().filter(|r| r.min > 0) {
            let name = role.name.as_str();
            let can = module
                .scenes
                .iter()
                .any(|(_, sc)| sc.agents.iter().any(|a| a.roles.iter().any(|r| r == name)))
                || loc
                    .spawns
                    .iter()
                    .any(|sp| sp.roles.iter().any(|r| r.text == name))
                || loc.proxies.iter().any(|p| p.role.text == name)
                || loc.player.as_ref().is_some_and(|p| p.role.text == name);
            if can {
                continue;
            }
            let d = Diagnostic::warning(
                Code::BadCardinality,
                format!(
                    "script `{}` needs at least {} `{name}`, but nothing that comes to `{}` can take that role: it never starts there",
                    s.name, role.min, loc.name.text
                ),
            )
            .note("give the role to agents of a scene (`roles: [...]`), to a spawn emitter or a proxy of the location, or to the player emitter");
            diags.push(
                role.cell
                    .locate(d, None, "nobody can take it")
                    .related(loc.name.span, "the smart location"),
            );
        }
    }
}

/// Variables in a fact that must be ground.
fn ground(fact: &AtomAst, cell: &Cell, what: &str, diags: &mut Diagnostics) {
    let mut vars = Vec::new();
    for t in &fact.args {
        t.vars(&mut vars);
    }
    for (v, range) in vars {
        let d = Diagnostic::error(
            Code::UninstantiatedVariable,
            format!("{what} is a ground fact, but `{v}` is a variable that nothing binds"),
        )
        .note("write constants (`bread`), numbers, `.now` or `.me`");
        diags.push(cell.locate(d, Some(range), "a variable"));
    }
}

fn emitters(loc: &SmartLocation, scripts: &[&Script], diags: &mut Diagnostics) {
    for (i, n) in loc.notifications.iter().enumerate() {
        let earlier = loc.notifications[..i].iter().map(|m| &m.name);
        twice(
            loc,
            "notification",
            "notifications",
            earlier,
            &n.name,
            diags,
        );
        if let Some(cell) = &n.facts_cell {
            for f in &n.facts {
                // `.me` has no meaning for a location's own event.
                if f.args.iter().any(|t| matches!(t, Term::Me(_))) {
                    let d = Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "notification `{}`: `.me` means nobody in a notification's facts",
                            n.name.text
                        ),
                    );
                    diags.push(cell.locate(d, Some(f.range.clone()), "uses .me"));
                }
                ground(
                    f,
                    cell,
                    &format!("notification `{}`'s fact", n.name.text),
                    diags,
                );
            }
        }
    }
    for s in &loc.spawns {
        for r in &s.roles {
            if !has_role(scripts, &r.text) {
                let d = Diagnostic::warning(
                    Code::UnknownRole,
                    format!(
                        "spawn emitter `{}` gives role `{}`, which none of `{}`'s scripts has",
                        s.name.text, r.text, loc.name.text
                    ),
                )
                .at(r.span, "no script of this location has this role");
                diags.push(suggest_note(d, &r.text, role_names(scripts)));
            }
        }
    }
    if let Some(p) = &loc.player
        && !has_role(scripts, &p.role.text)
    {
        let d = Diagnostic::error(
            Code::UnknownRole,
            format!(
                "the player emitter of `{}` lets the player join as `{}`, which none of its scripts has",
                loc.name.text, p.role.text
            ),
        )
        .at(p.role.span, "no script has this role");
        diags.push(suggest_note(d, &p.role.text, role_names(scripts)));
    }
}

/// Proxies and spawned NPCs become agents of every scene: their names must not collide with
/// each other or with a scene's agents.
fn names(module: &Module, diags: &mut Diagnostics) {
    // (name, where, what) of everything that becomes an agent at run time.
    let mut made: Vec<(String, Span, String)> = Vec::new();
    let mut patterns: Vec<(String, Span)> = Vec::new();
    for (_, loc) in module.smart_locations.iter() {
        for p in &loc.proxies {
            made.push((
                p.name.text.clone(),
                p.name.span,
                format!("proxy `{}`", p.name.text),
            ));
        }
        for s in &loc.spawns {
            match s.names() {
                Some(list) => made.extend(list.into_iter().map(|n| {
                    (
                        n,
                        s.name.span,
                        format!("an NPC of spawn emitter `{}`", s.name.text),
                    )
                })),
                None => patterns.push((s.name.text.clone(), s.name.span)),
            }
        }
    }
    let numbered = |name: &str, prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    };
    let mut reported: Vec<&str> = Vec::new();
    for (i, (name, span, what)) in made.iter().enumerate() {
        let clash = made[..i]
            .iter()
            .find(|(n, _, _)| n == name)
            .map(|(_, s, w)| (*s, w.clone()))
            .or_else(|| {
                patterns
                    .iter()
                    .find(|(p, _)| numbered(name, p))
                    .map(|(p, s)| (*s, format!("spawn emitter `{p}` (numbered names)")))
            });
        if let Some((first, other)) = clash
            && !reported.contains(&name.as_str())
        {
            reported.push(name);
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("{what} would be named `{name}`, like {other}"),
                )
                .at(*span, "same name at run time")
                .related(first, "the other one"),
            );
        }
    }
    for (_, scene) in module.scenes.iter() {
        for a in &scene.agents {
            let clash = made
                .iter()
                .find(|(n, _, _)| *n == a.name.text)
                .map(|(_, s, w)| (*s, w.clone()))
                .or_else(|| {
                    patterns
                        .iter()
                        .find(|(p, _)| numbered(&a.name.text, p))
                        .map(|(p, s)| (*s, format!("an NPC of spawn emitter `{p}`")))
                });
            if let Some((span, what)) = clash {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!(
                            "agent `{}` of scene `{}` has the name {what} takes at run time",
                            a.name.text, scene.name.text
                        ),
                    )
                    .at(a.name.span, "same name as a spawned NPC or proxy")
                    .related(span, "named here"),
                );
            }
        }
    }
}

/// At most one player per scene, and it runs no machine.
fn players(module: &Module, diags: &mut Diagnostics) {
    for (_, scene) in module.scenes.iter() {
        let players: Vec<_> = scene.agents.iter().filter(|a| a.player).collect();
        for extra in players.iter().skip(1) {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!("scene `{}` has more than one player", scene.name.text),
                )
                .at(extra.name.span, "second player")
                .related(players[0].name.span, "first player"),
            );
        }
        for p in &players {
            if p.runs_machine() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "the player `{}` runs machine `{}`: the player is driven by the scene's events, not by a machine",
                            p.name.text, p.machine_name.text
                        ),
                    )
                    .at(p.machine_name.span, "remove this machine, or `player: true`"),
                );
            }
        }
    }
}

/// Scene events: a player where the player acts, an emitter or proxy that accepts the fact.
fn events(module: &Module, diags: &mut Diagnostics) {
    for e in &module.scene_events {
        let scene = &module.scenes[e.scene];
        let needs_player = matches!(
            e.what,
            SceneEventKind::Interact { .. } | SceneEventKind::Input { .. } | SceneEventKind::Leave
        );
        if needs_player && !scene.agents.iter().any(|a| a.player) {
            diags.push(
                Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "this event is something the player does, but scene `{}` has no player",
                        scene.name.text
                    ),
                )
                .at(e.span, "no player to do it")
                .note("mark one agent without a machine `player: true`"),
            );
        }
        match &e.what {
            SceneEventKind::Interact { location } => {
                let loc = &module.smart_locations[*location];
                if loc.player.is_none() {
                    diags.push(
                        Diagnostic::error(
                            Code::UnknownReference,
                            format!(
                                "the player reacts to `{}`, which has no player emitter (`player: Player(role: ...)`)",
                                loc.name.text
                            ),
                        )
                        .at(e.span, "nothing to react to")
                        .related(loc.name.span, "the smart location"),
                    );
                }
            }
            SceneEventKind::Input { fact, cell } => {
                ground(fact, cell, "player input", diags);
                let key = (fact.predicate.clone(), fact.args.len());
                let declared = module
                    .smart_locations
                    .iter()
                    .any(|(_, l)| l.player.as_ref().is_some_and(|p| p.supplies.contains(&key)));
                if !declared {
                    let d = Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "player input `{}/{}` is not declared by any player emitter",
                            key.0, key.1
                        ),
                    )
                    .note("declare it: `player: Player(role: ..., supplies: \"wants/2\")`, so the scripts' checks know it can appear");
                    diags.push(cell.locate(d, Some(fact.range.clone()), "undeclared input"));
                }
            }
            SceneEventKind::Push {
                location,
                proxy,
                fact,
                cell,
            } => {
                ground(fact, cell, "a proxy's report", diags);
                let p = &module.smart_locations[*location].proxies[*proxy];
                let key = (fact.predicate.clone(), fact.args.len());
                if !p.supplies.contains(&key) {
                    let d = Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "proxy `{}` reports `{}/{}`, which it does not declare in `supplies`",
                            p.name.text, key.0, key.1
                        ),
                    );
                    let d = cell.locate(d, Some(fact.range.clone()), "undeclared report");
                    diags.push(d.related(p.name.span, "the proxy"));
                }
            }
            SceneEventKind::Leave | SceneEventKind::Notify { .. } => {}
        }
    }
}
