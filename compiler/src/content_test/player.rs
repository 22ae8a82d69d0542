//! What a player does at smart locations, in a content test (`Interact`, `Input`, `Push`,
//! `Leave` events, docs/formats/test.md): their facts read and checked against the names the
//! project's scripts use (their names checked in `player_check.rs`), and queued on a running
//! simulation for its next tick ([`Simulation::act`]), which does them through the smart
//! locations' game API (`Interactions::interact`, `player_input`, `proxy_push`,
//! `player_leave`) where the scene's own events happen.
//!
//! A refusal while the run goes on (the player out of the icon's reach, no script to hear a
//! proxy) is an `error` trace event, as it is for the scene's own events; the run goes on.

use super::asset::TestEvent;
use crate::ir::script::Term;
use ensemble_sim::Simulation;
use ensemble_sim::simulation::{AgentKind, PlayerAct};
use std::ops::Range;

/// An argument of a test's fact.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    /// A name (`cake`, `player`), with where it is in the text.
    Name(String, Range<usize>),
    Num(f64),
    /// `.me`: the player (an input) or the proxy (a report).
    Me,
}

/// A ground fact as a test writes it: `sale(player, cake)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Fact {
    pub predicate: String,
    pub predicate_range: Range<usize>,
    pub args: Vec<Arg>,
}

/// Reads one ground fact (names, numbers and `.me`); `Err`: why, and where in the text.
pub fn read_fact(text: &str) -> Result<Fact, (String, Range<usize>)> {
    let atoms = crate::script::cell::atoms(text).map_err(|e| (e.message, e.range))?;
    let [atom] = atoms.as_slice() else {
        let why = format!(
            "a fact is one atom, such as `sale(player, cake)`, not {}",
            atoms.len()
        );
        return Err((why, 0..text.len()));
    };
    let mut args = Vec::new();
    for t in &atom.args {
        args.push(match t {
            Term::Sym(s, r) => Arg::Name(s.clone(), r.clone()),
            Term::Num(x, _) => Arg::Num(*x),
            Term::Me(_) => Arg::Me,
            Term::Var(v, r) => {
                return Err((
                    format!("`{v}` is a variable: a test's fact is ground (names and numbers)"),
                    r.clone(),
                ));
            }
            other => {
                return Err((
                    "a test's fact holds names, numbers and `.me` only".into(),
                    other.range(),
                ));
            }
        });
    }
    Ok(Fact {
        predicate: atom.predicate.clone(),
        predicate_range: atom.predicate_range.clone(),
        args,
    })
}

/// The simulation's fact for `fact`, `.me` being `me`.
fn ground(sim: &mut Simulation, fact: &Fact, me: &str) -> Option<ensemble_runtime::script::Fact> {
    let program = sim.program().clone();
    let args: Vec<String> = fact
        .args
        .iter()
        .map(|a| match a {
            Arg::Name(n, _) => n.clone(),
            Arg::Num(x) => x.to_string(),
            Arg::Me => me.to_string(),
        })
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (_, interactions) = sim.scene_mut()?;
    Some(interactions.fact(&program, &fact.predicate, &args))
}

/// Queues a player's event for `sim`'s next tick (where the scene's own events happen, so it
/// is recorded at that tick). `Err` only when it cannot be applied at all (a conversation, a
/// fact that does not read); what the smart locations refuse is an `error` event of the
/// player (or the proxy) at that tick ([`Simulation::refused`]), and the run goes on.
pub fn apply(sim: &mut Simulation, event: &TestEvent) -> Result<(), String> {
    let player = sim
        .agents()
        .into_iter()
        .find(|a| a.kind == AgentKind::Player);
    let player = player.map_or(String::new(), |p| p.name.to_string());
    let fact = |sim: &mut Simulation, text: &str, me: &str| {
        let f = read_fact(text).map_err(|(why, _)| format!("cannot read `{text}`: {why}"))?;
        ground(sim, &f, me).ok_or_else(|| NO_LOCATIONS.to_string())
    };
    let act = match event {
        TestEvent::Send { .. } => return Ok(()),
        TestEvent::Interact { location, .. } => PlayerAct::Interact {
            location: location.clone(),
        },
        TestEvent::Input { fact: text, .. } => PlayerAct::Input {
            fact: fact(sim, text, &player)?,
        },
        TestEvent::Push {
            proxy, fact: text, ..
        } => PlayerAct::Push {
            proxy: proxy.clone(),
            fact: fact(sim, text, proxy)?,
        },
        TestEvent::Leave { .. } => PlayerAct::Leave,
    };
    if sim.act(act) {
        Ok(())
    } else {
        Err(NO_LOCATIONS.to_string())
    }
}

const NO_LOCATIONS: &str = "a conversation has no smart locations";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fact_reads_names_numbers_and_me() {
        let f = read_fact("sale(.me, cake, 3)").unwrap();
        assert_eq!(f.predicate, "sale");
        assert_eq!(f.args.len(), 3);
        assert_eq!(f.args[0], Arg::Me);
        assert!(matches!(&f.args[1], Arg::Name(n, r) if n == "cake" && *r == (10..14)));
        assert_eq!(f.args[2], Arg::Num(3.0));
    }

    #[test]
    fn a_malformed_or_open_fact_is_refused_where_it_goes_wrong() {
        let (why, range) = read_fact("sale(Who, cake)").unwrap_err();
        assert!(why.contains("variable"), "{why}");
        assert_eq!(range, 5..8);
        assert!(read_fact("sale(player, cake").is_err());
        let (why, _) = read_fact("sale(player), asks(player, x)").unwrap_err();
        assert!(why.contains("one atom"), "{why}");
    }
}
