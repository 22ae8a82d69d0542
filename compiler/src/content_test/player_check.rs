//! Checks of a player's events in a content test (`Interact`, `Input`, `Push`, `Leave`):
//! the smart location, proxy and fact must exist; a fact's predicate must be supplied by the
//! player emitter or the proxy, and its names be ones the project uses (`unknown-reference`
//! with did-you-mean, at the name inside the string).

use super::asset::TestEvent;
use super::check::Check;
use super::player::{Arg, read_fact};
use crate::diag::{Code, Diagnostic, suggest_note};
use crate::front::ron::locate::Seg;
use crate::ir::Module;
use crate::ir::script::{Cell, LiteralAst, Origin, Term};
use std::collections::BTreeSet;

/// Every name a fact may hold: the symbols the scripts and smart locations use, the scene's
/// agents, proxies and spawned agents, props and locations.
pub fn object_names(module: &Module, scene: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    fn term(t: &Term, out: &mut BTreeSet<String>) {
        match t {
            Term::Sym(s, _) => {
                out.insert(s.clone());
            }
            Term::Call(_, args, _) => args.iter().for_each(|a| term(a, out)),
            Term::Bin(_, l, r, _) => {
                term(l, out);
                term(r, out);
            }
            _ => {}
        }
    }
    for (_, s) in module.scripts.iter() {
        for r in &s.rules {
            for l in &r.precondition {
                match l {
                    LiteralAst::Pos(a) | LiteralAst::Neg(a, _) => {
                        a.args.iter().for_each(|t| term(t, &mut out))
                    }
                    LiteralAst::Cmp(x, _, y, _) => {
                        [x, y].into_iter().for_each(|t| term(t, &mut out))
                    }
                    LiteralAst::Any(t, _) => term(t, &mut out),
                }
            }
            for (a, _) in r.additions().chain(r.deletions()) {
                a.args.iter().for_each(|t| term(t, &mut out));
            }
            r.target.iter().for_each(|(t, _)| term(t, &mut out));
            r.parameters.iter().for_each(|(_, t)| term(t, &mut out));
        }
    }
    for (_, l) in module.smart_locations.iter() {
        out.insert(l.name.text.clone());
        out.extend(l.props.iter().map(|(name, _)| name.clone()));
        out.extend(l.proxies.iter().map(|p| p.name.text.clone()));
        out.extend(l.spawns.iter().map(|s| s.name.text.clone()));
        for n in &l.notifications {
            n.facts
                .iter()
                .for_each(|a| a.args.iter().for_each(|t| term(t, &mut out)));
        }
    }
    out.extend(module.locations.iter().map(|(_, l)| l.name.text.clone()));
    for (_, s) in module.scenes.iter().filter(|(_, s)| s.name.text == scene) {
        out.extend(s.agents.iter().map(|a| a.name.text.clone()));
    }
    out
}

impl Check<'_, '_, '_> {
    /// A player's event at a smart location: the location, proxy and fact must exist, the
    /// scene must have a player for what the player does.
    pub(super) fn player_event(&mut self, i: usize, e: &TestEvent) {
        let path = |f| [Seg::Field("events"), Seg::Index(i), Seg::Field(f)];
        let module = self.names.module;
        let scene = module
            .scenes
            .iter()
            .map(|(_, s)| s)
            .find(|s| s.name.text == self.scene);
        let Some(scene) = scene else {
            let what =
                "a conversation has no smart locations: player events are for machine scenes";
            self.invalid(
                &[Seg::Field("events"), Seg::Index(i)],
                what.into(),
                "player event",
            );
            return;
        };
        if !matches!(e, TestEvent::Push { .. }) && !scene.agents.iter().any(|a| a.player) {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "this event is something the player does, but scene `{}` has no player",
                    self.scene
                ),
            )
            .at(
                self.at(&[Seg::Field("events"), Seg::Index(i)]),
                "no player to do it",
            )
            .note("mark one agent without a machine `player: true` in the scene");
            self.diags.push(d);
        }
        let locations = module.smart_locations.iter().map(|(_, l)| l);
        match e {
            TestEvent::Interact { location, .. } => {
                let with_player: Vec<&str> = locations
                    .filter(|l| l.player.is_some())
                    .map(|l| l.name.text.as_str())
                    .collect();
                let context = " with a player emitter (`player: Player(...)`)";
                self.known(
                    &path("location"),
                    "smart location",
                    location,
                    &with_player,
                    context,
                );
            }
            TestEvent::Input { fact, .. } => {
                let supplied =
                    locations.flat_map(|l| l.player.iter().flat_map(|p| p.supplies.iter()));
                let supplied: Vec<(String, usize)> = supplied.cloned().collect();
                self.fact(&path("fact"), fact, &supplied, "any player emitter");
            }
            TestEvent::Push { proxy, fact, .. } => {
                let proxies: Vec<_> = locations.flat_map(|l| l.proxies.iter()).collect();
                let names: Vec<&str> = proxies.iter().map(|p| p.name.text.as_str()).collect();
                match proxies.iter().find(|p| p.name.text == *proxy) {
                    None => self.known(&path("proxy"), "proxy", proxy, &names, ""),
                    Some(p) => {
                        let of = format!("proxy `{proxy}`");
                        self.fact(&path("fact"), fact, &p.supplies, &of);
                    }
                }
            }
            TestEvent::Leave { .. } | TestEvent::Send { .. } => {}
        }
    }

    /// `text` at `path` must read as a fact whose predicate `declared` supplies and whose
    /// names the project uses.
    fn fact(&mut self, path: &[Seg<'_>], text: &str, declared: &[(String, usize)], by: &str) {
        let cell = Cell {
            text: text.to_string(),
            origin: Origin::Ron(self.at(path)),
        };
        let fact = match read_fact(text) {
            Ok(f) => f,
            Err((why, range)) => {
                let d = Diagnostic::error(
                    Code::Syntax,
                    format!("cannot read the fact `{text}`: {why}"),
                );
                self.diags.push(cell.locate(
                    d,
                    Some(range),
                    "expected a fact such as `sale(player, cake)`",
                ));
                return;
            }
        };
        let key = (fact.predicate.clone(), fact.args.len());
        if !declared.contains(&key) {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!("unknown fact `{}/{}`: not supplied by {by}", key.0, key.1),
            );
            let d = cell.locate(d, Some(fact.predicate_range.clone()), "not supplied");
            let listed: Vec<String> = declared.iter().map(|(p, _)| p.clone()).collect();
            let d = suggest_note(d, &key.0, listed.iter().map(String::as_str));
            let all: BTreeSet<String> = declared.iter().map(|(p, n)| format!("{p}/{n}")).collect();
            let all: Vec<String> = all.into_iter().collect();
            self.diags.push(d.note(format!(
                "supplied: {}",
                if all.is_empty() {
                    "nothing".into()
                } else {
                    all.join(", ")
                }
            )));
        }
        let names = object_names(self.names.module, self.scene);
        for a in &fact.args {
            let Arg::Name(n, range) = a else { continue };
            if names.contains(n) || self.names.spawned(n) {
                continue;
            }
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "unknown name `{n}` in the fact `{text}`: no script, smart location or agent uses it"
                ),
            );
            let d = cell.locate(d, Some(range.clone()), "no such name");
            self.diags
                .push(suggest_note(d, n, names.iter().map(String::as_str)));
        }
    }
}
