//! What a player can do at the smart locations of a scene, as a search's choices: react to
//! each location's icon (`Interact`), the inputs its player emitter supplies and the reports
//! its proxies supply, with facts the location's scripts wait for (`Input`, `Push`), and walk
//! away (`Leave`).
//!
//! A supplied fact's arguments are drawn from the rules: within a rule, every place a variable
//! stands (`sale(C, I)`, `wants(C, I)`, `ware(I, P)`) is one slot class with the next, and a
//! class holds the names written in any of its places (`ware(bread, 3)`: `bread` for `I`). A
//! place `.me` stands in (or a class without names) is the player's.

use crate::content_test::asset::TestEvent;
use crate::ir::script::{AtomAst, LiteralAst, Script, Term};
use crate::ir::{Handle, Module};
use std::collections::{BTreeMap, BTreeSet};

/// The most facts offered for one supplied predicate.
pub const MAX_FACTS: usize = 12;
/// The most names one argument is drawn from.
const MAX_NAMES: usize = 6;

/// A predicate's argument: (predicate, position).
type Slot = (String, usize);

/// Slot classes of a set of scripts, with the names and whether `.me` stand in each.
#[derive(Default)]
struct Slots {
    parent: BTreeMap<Slot, Slot>,
    names: BTreeMap<Slot, BTreeSet<String>>,
    me: BTreeSet<Slot>,
}

impl Slots {
    fn find(&mut self, s: &Slot) -> Slot {
        let mut at = s.clone();
        while let Some(p) = self.parent.get(&at).filter(|p| **p != at) {
            at = p.clone();
        }
        self.parent.entry(s.clone()).or_insert_with(|| at.clone());
        at
    }

    fn union(&mut self, a: &Slot, b: &Slot) {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra != rb {
            self.parent.insert(rb, ra);
        }
    }

    /// Adds one rule's atoms: names and `.me` to their slots, shared variables joined.
    fn rule<'a>(&mut self, atoms: impl Iterator<Item = &'a AtomAst>) {
        let mut vars: BTreeMap<&str, Slot> = BTreeMap::new();
        for a in atoms {
            for (i, t) in a.args.iter().enumerate() {
                let slot = (a.predicate.clone(), i);
                self.find(&slot);
                match t {
                    Term::Sym(s, _) if is_name(s) => {
                        self.names.entry(slot).or_default().insert(s.clone());
                    }
                    Term::Me(_) => {
                        self.me.insert(slot);
                    }
                    Term::Var(v, _) if v != "_" => match vars.get(v.as_str()) {
                        Some(first) => {
                            let first = first.clone();
                            self.union(&first, &slot);
                        }
                        None => {
                            vars.insert(v, slot);
                        }
                    },
                    _ => {}
                }
            }
        }
    }

    /// The names of `slot`'s class, and whether `.me` stands in it.
    fn of(&mut self, slot: &Slot) -> (BTreeSet<String>, bool) {
        let root = self.find(slot);
        let members: Vec<Slot> = self.parent.keys().cloned().collect();
        let (mut names, mut me) = (BTreeSet::new(), false);
        for m in members {
            if self.find(&m) == root {
                names.extend(self.names.get(&m).into_iter().flatten().cloned());
                me |= self.me.contains(&m);
            }
        }
        (names, me)
    }
}

/// A name a fact can hold as written: a lower-case identifier (not a quoted line).
fn is_name(s: &str) -> bool {
    s.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn slots_of(module: &Module, scripts: &[Handle<Script>]) -> Slots {
    let mut slots = Slots::default();
    for &h in scripts {
        for r in &module.scripts[h].rules {
            let pre = r.precondition.iter().filter_map(|l| match l {
                LiteralAst::Pos(a) | LiteralAst::Neg(a, _) => Some(a),
                _ => None,
            });
            let effects = r.additions().chain(r.deletions()).map(|(a, _)| a);
            slots.rule(pre.chain(effects));
        }
    }
    slots
}

/// Facts of `predicate/arity` the scripts could read, with `player` for the player's places.
fn facts(slots: &mut Slots, predicate: &str, arity: usize, player: &str) -> Vec<String> {
    let mut args: Vec<Vec<String>> = Vec::new();
    for i in 0..arity {
        let (names, me) = slots.of(&(predicate.to_string(), i));
        let mut these: Vec<String> = names.into_iter().take(MAX_NAMES).collect();
        if me || these.is_empty() {
            these.insert(0, player.to_string());
        }
        args.push(these);
    }
    let mut out = vec![Vec::new()];
    for these in &args {
        out = out
            .iter()
            .flat_map(|done: &Vec<String>| {
                these.iter().map(move |a| {
                    let mut next = done.clone();
                    next.push(a.clone());
                    next
                })
            })
            .take(MAX_FACTS)
            .collect();
    }
    out.into_iter()
        .map(|a| format!("{predicate}({})", a.join(", ")))
        .collect()
}

/// What the player of scene `scene` can do, and what the proxies can report, at tick 0 (the
/// search sets the tick).
pub fn choices(module: &Module, scene: &str) -> Vec<TestEvent> {
    let Some((_, s)) = module.scenes.iter().find(|(_, s)| s.name.text == scene) else {
        return Vec::new();
    };
    let player = s
        .agents
        .iter()
        .find(|a| a.player)
        .map(|a| a.name.text.clone());
    let mut out = Vec::new();
    for (_, l) in module.smart_locations.iter() {
        let scripts: Vec<Handle<Script>> = l.scripts.iter().map(|(h, _)| *h).collect();
        let mut slots = slots_of(module, &scripts);
        let someone = player.as_deref().unwrap_or("player");
        for p in &l.proxies {
            for (predicate, arity) in &p.supplies {
                for fact in facts(&mut slots, predicate, *arity, someone) {
                    out.push(TestEvent::Push {
                        tick: 0,
                        proxy: p.name.text.clone(),
                        fact,
                    });
                }
            }
        }
        let (Some(emitter), Some(player)) = (&l.player, &player) else {
            continue;
        };
        out.push(TestEvent::Interact {
            tick: 0,
            location: l.name.text.clone(),
        });
        for (predicate, arity) in &emitter.supplies {
            for fact in facts(&mut slots, predicate, *arity, player) {
                out.push(TestEvent::Input { tick: 0, fact });
            }
        }
    }
    if player.is_some() {
        out.push(TestEvent::Leave { tick: 0 });
    }
    out.dedup();
    out
}

/// `event` at `tick`.
pub fn at(event: &TestEvent, tick: u64) -> TestEvent {
    let mut e = event.clone();
    match &mut e {
        TestEvent::Send { tick: t, .. }
        | TestEvent::Interact { tick: t, .. }
        | TestEvent::Input { tick: t, .. }
        | TestEvent::Push { tick: t, .. }
        | TestEvent::Leave { tick: t } => *t = tick,
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shops_player_and_tills_get_the_facts_the_scripts_wait_for() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/shops");
        let c = crate::compile_path(&root).unwrap();
        let events = choices(&c.module, "market");
        let has = |e: TestEvent| events.contains(&e);
        assert!(has(TestEvent::Interact {
            tick: 0,
            location: "bakery".into()
        }));
        assert!(has(TestEvent::Input {
            tick: 0,
            fact: "asks(player, weather)".into()
        }));
        assert!(has(TestEvent::Push {
            tick: 0,
            proxy: "bakery_till".into(),
            fact: "sale(player, cake)".into()
        }));
        assert!(has(TestEvent::Leave { tick: 0 }));
    }
}
