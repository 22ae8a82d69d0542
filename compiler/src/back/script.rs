//! Lowering interaction scripts to the runtime's `ScriptDef`: intern names, number each rule's
//! variables, and lay out rules contiguously per state (rules written without a state are
//! copied into every state, at their precedence position).

use super::program::Interner;
use crate::ir::Module;
use crate::ir::script::{AtomAst, LiteralAst, SceneEventKind, Script, SmartLocation, Term};
use ensemble_runtime::program::{
    LocationId, NotificationDef, PlayerEmitterDef, ProxyDef, SceneEvent, SceneEventDef, SceneId,
    SmartLocationDef, SpawnDef,
};
use ensemble_runtime::script::*;
use std::collections::HashMap;

struct Vars {
    index: HashMap<String, u16>,
    next: u16,
}

impl Vars {
    fn get(&mut self, name: &str) -> u16 {
        // `_` is anonymous: every occurrence is its own variable.
        if name == "_" {
            self.next += 1;
            return self.next - 1;
        }
        if let Some(&i) = self.index.get(name) {
            return i;
        }
        self.index.insert(name.to_string(), self.next);
        self.next += 1;
        self.next - 1
    }
}

fn expr(t: &Term, vars: &mut Vars, names: &mut Interner) -> Result<Expr, String> {
    Ok(match t {
        Term::Var(v, _) => Expr::Var(vars.get(v)),
        Term::Sym(s, _) => Expr::Sym(names.intern(s)),
        Term::Num(x, _) => Expr::Num(*x),
        Term::Me(_) => Expr::Me,
        Term::Now(_) => Expr::Now,
        Term::Call(f, args, _) => Expr::Call(
            Function::by_name(f).ok_or_else(|| format!("unknown function `{f}`"))?,
            args.iter()
                .map(|a| expr(a, vars, names))
                .collect::<Result<_, _>>()?,
        ),
        Term::Bin(op, l, r, _) => Expr::Bin(
            *op,
            Box::new(expr(l, vars, names)?),
            Box::new(expr(r, vars, names)?),
        ),
    })
}

fn atom(a: &AtomAst, vars: &mut Vars, names: &mut Interner) -> Result<Atom, String> {
    Ok(Atom {
        predicate: names.intern(&a.predicate),
        args: a
            .args
            .iter()
            .map(|t| expr(t, vars, names))
            .collect::<Result<_, _>>()?,
    })
}

fn atoms(list: &[AtomAst], vars: &mut Vars, names: &mut Interner) -> Result<Vec<Atom>, String> {
    list.iter().map(|a| atom(a, vars, names)).collect()
}

pub(crate) fn emit(s: &Script, names: &mut Interner) -> Result<ScriptDef, String> {
    let roles = s
        .roles
        .iter()
        .map(|r| RoleDef {
            name: names.intern(&r.name),
            min: r.min,
            max: r.max,
            dynamic_join: r.dynamic_join,
            leave_command: r.leave_command.as_deref().map(|c| names.intern(c)),
        })
        .collect();
    let mut rules = Vec::new();
    let mut states = Vec::new();
    for (si, state) in s.states.iter().enumerate() {
        let first_rule = rules.len() as u32;
        for r in s.rules.iter().filter(|r| r.state.is_none_or(|x| x == si)) {
            let mut vars = Vars {
                index: HashMap::new(),
                next: 0,
            };
            let precondition = r
                .precondition
                .iter()
                .map(|l| {
                    Ok(match l {
                        LiteralAst::Pos(a) => Literal::Pos(atom(a, &mut vars, names)?),
                        LiteralAst::Neg(a, _) => Literal::Neg(atom(a, &mut vars, names)?),
                        LiteralAst::Any(t, _) => Literal::Any(expr(t, &mut vars, names)?),
                        LiteralAst::Cmp(l, op, rt, _) => Literal::Cmp(
                            expr(l, &mut vars, names)?,
                            *op,
                            expr(rt, &mut vars, names)?,
                        ),
                    })
                })
                .collect::<Result<Vec<_>, String>>()?;
            let action = match &r.action {
                Some((name, _)) => Some(ActionDef {
                    name: names.intern(name),
                    target: r
                        .target
                        .as_ref()
                        .map(|(t, _)| expr(t, &mut vars, names))
                        .transpose()?,
                    parameters: r
                        .parameters
                        .iter()
                        .map(|(k, v)| Ok((names.intern(k), expr(v, &mut vars, names)?)))
                        .collect::<Result<_, String>>()?,
                }),
                None => None,
            };
            let add = atoms(&r.add.atoms, &mut vars, names)?;
            let delete = atoms(&r.delete.atoms, &mut vars, names)?;
            let deferred_add = atoms(&r.deferred_add.atoms, &mut vars, names)?;
            let deferred_delete = atoms(&r.deferred_delete.atoms, &mut vars, names)?;
            let on_error = atoms(&r.on_error.atoms, &mut vars, names)?;
            rules.push(RuleDef {
                name: names.intern(&r.label),
                role: r.role.map(|x| x as u16),
                precondition,
                action,
                add,
                delete,
                deferred_add,
                deferred_delete,
                on_error,
                next_state: r.next_state.as_ref().map(|(n, _)| *n as u16),
                terminate: r.terminate,
                variables: vars.next,
            });
        }
        states.push(ScriptStateDef {
            name: names.intern(&state.name),
            first_rule,
            rule_count: rules.len() as u32 - first_rule,
        });
    }
    Ok(ScriptDef {
        name: names.intern(&s.name),
        roles,
        states,
        initial_state: s.initial as u16,
        rules,
    })
}

fn bug(what: &str) -> String {
    format!("internal compiler error: {what} survived validation")
}

/// A ground fact (a notification's, a scene event's): validation ruled out variables.
fn ground(a: &AtomAst, names: &mut Interner) -> Result<Atom, String> {
    let mut vars = Vars {
        index: HashMap::new(),
        next: 0,
    };
    let atom = atom(a, &mut vars, names)?;
    if vars.next > 0 {
        return Err(bug("a variable in a ground fact"));
    }
    Ok(atom)
}

pub(crate) fn emit_location(
    l: &SmartLocation,
    names: &mut Interner,
) -> Result<SmartLocationDef, String> {
    let location = |h: crate::ir::Handle<crate::ir::Location>| LocationId(h.index() as u32);
    Ok(SmartLocationDef {
        name: names.intern(&l.name.text),
        at: location(l.at.ok_or_else(|| bug("an unknown smart location position"))?),
        radius: l.radius,
        props: l
            .props
            .iter()
            .map(|(n, k)| (names.intern(n), names.intern(k)))
            .collect(),
        scripts: l
            .scripts
            .iter()
            .map(|(s, w)| (s.index() as u32, *w))
            .collect(),
        proxies: l
            .proxies
            .iter()
            .map(|p| ProxyDef {
                name: names.intern(&p.name.text),
                role: names.intern(&p.role.text),
                actions: p.actions.iter().map(|a| names.intern(&a.text)).collect(),
            })
            .collect(),
        notifications: l
            .notifications
            .iter()
            .map(|n| {
                Ok(NotificationDef {
                    name: names.intern(&n.name.text),
                    at: n.at,
                    every: n.every,
                    radius: n.radius,
                    lasts: n.lasts,
                    facts: n
                        .facts
                        .iter()
                        .map(|a| ground(a, names))
                        .collect::<Result<_, String>>()?,
                })
            })
            .collect::<Result<_, String>>()?,
        spawns: l
            .spawns
            .iter()
            .map(|s| {
                Ok(SpawnDef {
                    name: names.intern(&s.name.text),
                    point: location(s.point.ok_or_else(|| bug("an unknown spawn point"))?),
                    roles: s.roles.iter().map(|r| names.intern(&r.text)).collect(),
                    route: s.route.iter().map(|h| location(*h)).collect(),
                    size: s.size,
                    at: s.at,
                    every: s.every,
                    waves: s.waves,
                })
            })
            .collect::<Result<_, String>>()?,
        player: l.player.as_ref().map(|p| PlayerEmitterDef {
            role: names.intern(&p.role.text),
            icon: names.intern(&p.icon),
        }),
    })
}

/// Scene events, per scene in the order written (the runtime orders them by time, stably).
pub(crate) fn emit_scene_events(
    module: &Module,
    names: &mut Interner,
) -> Result<Vec<SceneEventDef>, String> {
    module
        .scene_events
        .iter()
        .map(|e| {
            let what = match &e.what {
                SceneEventKind::Interact { location } => SceneEvent::Interact {
                    location: location.index() as u32,
                },
                SceneEventKind::Input { fact, .. } => SceneEvent::Input {
                    fact: ground(fact, names)?,
                },
                SceneEventKind::Leave => SceneEvent::Leave,
                SceneEventKind::Push {
                    location,
                    proxy,
                    fact,
                    ..
                } => SceneEvent::Push {
                    location: location.index() as u32,
                    proxy: *proxy as u32,
                    fact: ground(fact, names)?,
                },
                SceneEventKind::Notify {
                    location,
                    notification,
                } => SceneEvent::Notify {
                    location: location.index() as u32,
                    notification: *notification as u32,
                },
            };
            Ok(SceneEventDef {
                scene: SceneId(e.scene.index() as u32),
                at: e.at,
                what,
            })
        })
        .collect()
}
