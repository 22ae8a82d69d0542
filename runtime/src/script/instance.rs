//! A running script instance and its update, exactly as 35.4 lists it.
//!
//! The instance owns no world: the caller says what time it is and how far apart things are
//! ([`World`]), starts the actions it requests ([`ActionRequest`]) and reports back how they
//! ended. Participants are identified by the caller's actor handles (`u32`); the instance
//! never interprets them.

use super::def::{Atom, Expr, RuleDef, ScriptDef, Termination};
use super::eval::{Bindings, Env, Scratch, eval, solve};
use super::space::{Fact, TupleSpace, Value};
use crate::program::NameId;
use crate::rng::Rng;
use smallvec::SmallVec;

/// An action the game (or the simulator) should start for an actor.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ActionRequest {
    /// Names this request in the outcome the game reports back ([`ScriptInstance::update`]'s
    /// `finished`); unique within the instance.
    pub id: u64,
    /// The game's handle of the actor.
    pub actor: u32,
    /// The action's name (`sit`, `talk`).
    pub action: NameId,
    /// What it is aimed at, if the rule names a target that evaluated.
    pub target: Option<Value>,
    /// Named parameters that evaluated, in rule order.
    pub parameters: Vec<(NameId, Value)>,
}

/// How an action the game performed ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionOutcome {
    /// It completed: the rule's deferred effects apply.
    Succeeded,
    /// It failed: the rule's on-error facts apply and its termination does not take effect.
    Failed,
}

/// What an update did, for the trace.
#[derive(Clone, Debug, PartialEq)]
pub enum ScriptEvent {
    /// An actor started an action.
    Act {
        /// The actor.
        actor: u32,
        /// The action.
        action: NameId,
        /// Its target.
        target: Option<Value>,
    },
    /// An actor's action succeeded.
    Done {
        /// The actor.
        actor: u32,
        /// The action.
        action: NameId,
        /// Its target.
        target: Option<Value>,
    },
    /// An actor's action failed.
    Fail {
        /// The actor.
        actor: u32,
        /// The action.
        action: NameId,
        /// Its target.
        target: Option<Value>,
    },
    /// A fact was added to the tuple space.
    Add {
        /// Who caused it: the acting participant, or `None` for the location or the game.
        actor: Option<u32>,
        /// The fact.
        fact: Fact,
    },
    /// A fact was removed from the tuple space.
    Del {
        /// Who caused it: the acting participant, or `None` for the location or the game.
        actor: Option<u32>,
        /// The fact.
        fact: Fact,
    },
    /// An actor joined the script.
    Join {
        /// The actor.
        actor: u32,
        /// Its role.
        role: u16,
    },
    /// An actor left the script.
    Leave {
        /// The actor.
        actor: u32,
        /// The role it had.
        role: u16,
    },
    /// The script ended; every remaining participant has left.
    End {
        /// Why, in words (`every participant left`, `a rule terminated the script`).
        reason: String,
    },
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Busy {
    action_id: u64,
    rule: usize,
    bindings: Bindings,
    action: NameId,
    target: Option<Value>,
    /// Set by a hot reload: the ending of the rule that started the action, so that it
    /// finishes as it began whatever the new program's rules say.
    carried: Option<Ending>,
}

/// What an action's end applies: deferred effects on success, on-error facts on failure.
#[derive(serde::Serialize, serde::Deserialize)]
struct Ending {
    deferred_add: Vec<Atom>,
    deferred_delete: Vec<Atom>,
    on_error: Vec<Atom>,
    terminate: Termination,
}

impl Ending {
    fn of(rule: &RuleDef, rename: &mut dyn FnMut(NameId) -> NameId) -> Ending {
        let mut atoms = |list: &[Atom]| list.iter().map(|a| a.renamed(rename)).collect();
        Ending {
            deferred_add: atoms(&rule.deferred_add),
            deferred_delete: atoms(&rule.deferred_delete),
            on_error: atoms(&rule.on_error),
            terminate: rule.terminate,
        }
    }
}

/// What became of an instance carried across a hot reload ([`ScriptInstance::carry`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Carried {
    /// Participants kept, with their states.
    pub kept: u32,
    /// What could not be mapped and what was done instead, one line each.
    pub notes: Vec<String>,
    /// Participants that left: actor and the name of the role they had.
    pub left: Vec<(u32, String)>,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Participant {
    actor: u32,
    /// The participant as a value (`.me`, what `.any` returns): its name.
    value: Value,
    role: u16,
    state: u16,
    /// Boxed: participants are shuffled every update, and a small struct moves cheaply.
    busy: Option<Box<Busy>>,
    leaving: bool,
    /// Rules of its state (bit k: the state's k-th rule) known to fail while the tuple space
    /// and the participants are as `known_at` says. Only rules that are not volatile are
    /// recorded, so skipping them cannot change what fires.
    known_false: u64,
    known_at: (u64, u64),
}

/// A running interaction script at a smart location: its participants (actor, role, script
/// state, action in flight), its own tuple space and its own random stream. The smart location
/// (or a game's equivalent) owns it, calls [`ScriptInstance::update`] every tick, starts the
/// [`ActionRequest`]s it returns and reports back how they ended.
///
/// Invariant: an instance is always updated with the [`ScriptDef`] it was created for (the one
/// at index [`ScriptInstance::script`]); after a hot reload, [`ScriptInstance::carry`] moves it
/// onto the new definition first.
///
/// # Example
///
/// A bench: an actor of role `sitter` who is not sitting walks to a seat and sits; sitting
/// holds only once the game reports the action done.
///
/// ```
/// use ensemble_runtime::program::NameId;
/// use ensemble_runtime::script::instance::World;
/// use ensemble_runtime::script::*;
///
/// let names = ["bench-script", "sitter", "approach", "sit-down", "sit", "seat", "sitting",
///              "bench", "ann"];
/// let n = |s: &str| NameId(names.iter().position(|x| *x == s).unwrap() as u32);
/// let me = |p: &str| Atom { predicate: n(p), args: vec![Expr::Me] };
/// // approach: seat(X), not sitting(.me) -> sit X; deferred add sitting(.me); terminate actor
/// let def = ScriptDef {
///     name: n("bench-script"),
///     roles: vec![RoleDef {
///         name: n("sitter"),
///         min: 1,
///         max: 2,
///         dynamic_join: true,
///         leave_command: None,
///     }],
///     states: vec![ScriptStateDef { name: n("approach"), first_rule: 0, rule_count: 1 }],
///     initial_state: 0,
///     rules: vec![RuleDef {
///         name: n("sit-down"),
///         role: None,
///         precondition: vec![
///             Literal::Pos(Atom { predicate: n("seat"), args: vec![Expr::Var(0)] }),
///             Literal::Neg(me("sitting")),
///         ],
///         action: Some(ActionDef {
///             name: n("sit"),
///             target: Some(Expr::Var(0)),
///             parameters: vec![],
///         }),
///         add: vec![],
///         delete: vec![],
///         deferred_add: vec![me("sitting")],
///         deferred_delete: vec![],
///         on_error: vec![],
///         next_state: None,
///         terminate: Termination::Actor,
///         variables: 1,
///     }],
/// };
///
/// // The smart location supplies its props as facts; the seed and stream fix the shuffles.
/// let seat = Fact { predicate: n("seat"), args: vec![Value::Sym(n("bench"))] };
/// let mut bench = ScriptInstance::new(0, &[seat], 42, 0);
/// let (mut events, mut requests) = (Vec::new(), Vec::new());
/// bench.join(&def, 7, n("ann"), 0, &mut events);
///
/// let world = World { now: 0.0, distance: &|_, _| None };
/// bench.update(&def, &world, &[], &mut events, &mut requests);
/// let sit = requests.pop().expect("ann sits down");
/// assert_eq!((sit.actor, sit.action, sit.target), (7, n("sit"), Some(Value::Sym(n("bench")))));
/// let ann = [Value::Sym(n("ann"))];
/// assert!(!bench.space.contains(n("sitting"), &ann), "deferred until the action ends");
///
/// // The game played the animation; the next update applies the deferred effects, ann
/// // leaves, and with no sitter left (minimum 1) the script ends.
/// let world = World { now: 1.5, distance: &|_, _| None };
/// bench.update(&def, &world, &[(sit.id, ActionOutcome::Succeeded)], &mut events, &mut requests);
/// assert!(bench.space.contains(n("sitting"), &ann));
/// assert!(bench.ended());
/// assert!(matches!(events.last(), Some(ScriptEvent::End { .. })));
/// ```
///
/// Saved and restored whole by savegames (serde), checked on the way in
/// ([`ScriptInstance::check`]).
#[derive(serde::Serialize, serde::Deserialize)]
pub struct ScriptInstance {
    /// Index of the script in the program.
    pub script: u32,
    /// Participants as values, in this update's order (reused between updates).
    values: SmallVec<[Value; 4]>,
    /// Leave commands not yet handed out.
    leave_requests: Vec<ActionRequest>,
    /// The script's own facts: the props supplied at the start plus everything its rules and
    /// the game added since.
    pub space: TupleSpace,
    /// Inline: an update touches few cache lines, which matters with thousands of instances.
    participants: SmallVec<[Participant; 4]>,
    rng: Rng,
    next_action: u64,
    ended: bool,
    /// Literal solutions tried so far (benchmarks).
    pub steps: u64,
    /// Rules evaluated so far (benchmarks).
    pub rule_evaluations: u64,
    /// Rules not evaluated because they were known to fail (benchmarks).
    pub rule_skips: u64,
    /// Bumped whenever a participant joins or leaves (what `.any` ranges over changed).
    membership: u64,
    /// Per state of the script, bit k set if the state's k-th rule is volatile
    /// ([`RuleDef::volatile`]); computed on the first update.
    volatile: SmallVec<[u64; 4]>,
    /// Bit r set once rule r of the script has fired: what coverage reports (a content test's
    /// `--coverage`). Bounded by the script's rule count.
    fired: SmallVec<[u64; 2]>,
}

thread_local! {
    /// Backtracking memory shared by every instance updated on this thread: one buffer that
    /// stays in cache, rather than one per instance.
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

/// Game services an update needs.
pub struct World<'a> {
    /// Scene time in seconds (`.now`).
    pub now: f64,
    /// The distance between two participants or props, in metres (`distance(a, b)`); `None` if
    /// either has no position.
    pub distance: &'a dyn Fn(Value, Value) -> Option<f64>,
}

impl ScriptInstance {
    /// A new instance whose tuple space starts with the facts the smart location supplies.
    pub fn new(script: u32, supplied: &[Fact], seed: u64, stream: u64) -> Self {
        let mut space = TupleSpace::default();
        for f in supplied {
            space.add(f.predicate, f.args.clone());
        }
        ScriptInstance {
            script,
            values: SmallVec::new(),
            leave_requests: Vec::new(),
            space,
            participants: SmallVec::new(),
            rng: Rng::new(seed, stream),
            next_action: 0,
            ended: false,
            steps: 0,
            rule_evaluations: 0,
            rule_skips: 0,
            membership: 0,
            volatile: SmallVec::new(),
            fired: SmallVec::new(),
        }
    }

    /// The script's rules (by index in the script) that have fired in this instance.
    pub fn fired_rules(&self) -> impl Iterator<Item = usize> + '_ {
        self.fired.iter().enumerate().flat_map(|(w, bits)| {
            (0..64)
                .filter(move |b| bits & (1u64 << b) != 0)
                .map(move |b| w * 64 + b)
        })
    }

    /// Whether the script has ended (an ended instance ignores updates).
    pub fn ended(&self) -> bool {
        self.ended
    }

    /// Whether an action in flight was carried across a hot reload (it ends with the effects
    /// of the old program's rule, which a savegame does not carry).
    pub fn has_carried_actions(&self) -> bool {
        self.participants
            .iter()
            .any(|p| p.busy.as_ref().is_some_and(|b| b.carried.is_some()))
    }

    /// Checks an instance read from a savegame against the program it runs under: its script,
    /// every role, state and rule in range, actors among `actors`, symbols among `names`
    /// (the program's and the run-time names), the tuple space well formed. What is only a
    /// cache is dropped, to be computed again.
    pub fn check(
        &mut self,
        scripts: &[ScriptDef],
        names: usize,
        actors: usize,
    ) -> Result<(), String> {
        let def = scripts
            .get(self.script as usize)
            .ok_or_else(|| format!("script #{} does not exist", self.script))?;
        let named = |v: &Value| !matches!(v, Value::Sym(s) if s.index() >= names);
        let requests_ok = self.leave_requests.iter().all(|r| {
            (r.actor as usize) < actors
                && r.action.index() < names
                && r.target.as_ref().is_none_or(named)
                && r.parameters
                    .iter()
                    .all(|(n, v)| n.index() < names && named(v))
        });
        if !self.values.iter().all(named) || !requests_ok {
            return Err("a value names nothing known".into());
        }
        self.space.check(names)?;
        for p in &self.participants {
            if (p.actor as usize) >= actors
                || !named(&p.value)
                || p.role as usize >= def.roles.len()
                || p.state as usize >= def.states.len()
            {
                return Err(format!("participant #{} does not fit the script", p.actor));
            }
            if let Some(b) = &p.busy {
                let rule = def
                    .rules
                    .get(b.rule)
                    .ok_or_else(|| format!("rule #{} does not exist", b.rule))?;
                b.bindings.check(rule.variables, names)?;
                if b.action.index() >= names
                    || !b.target.as_ref().is_none_or(named)
                    || b.carried.is_some()
                {
                    return Err("an action in flight does not fit its rule".into());
                }
            }
        }
        self.volatile.clear();
        Ok(())
    }

    /// Actors taking part, with their roles.
    pub fn participants(&self) -> impl Iterator<Item = (u32, u16)> + '_ {
        self.participants.iter().map(|p| (p.actor, p.role))
    }

    /// Actors taking part with their roles and script states (for blackboard views and tests).
    pub fn states(&self) -> impl Iterator<Item = (u32, u16, u16)> + '_ {
        self.participants.iter().map(|p| (p.actor, p.role, p.state))
    }

    /// How many participants hold `role`.
    pub fn count(&self, role: u16) -> usize {
        self.participants.iter().filter(|p| p.role == role).count()
    }

    /// Adds a participant (at the start, or joining late).
    pub fn join(
        &mut self,
        def: &ScriptDef,
        actor: u32,
        name: NameId,
        role: u16,
        out: &mut Vec<ScriptEvent>,
    ) {
        self.participants.push(Participant {
            actor,
            value: Value::Sym(name),
            role,
            state: def.initial_state,
            busy: None,
            leaving: false,
            known_false: 0,
            known_at: (u64::MAX, u64::MAX),
        });
        self.membership += 1;
        out.push(ScriptEvent::Join { actor, role });
    }

    /// Facts pushed in from outside: by `actor` (the player, a proxy object) or by nobody (the
    /// location itself, a notification).
    pub fn push_fact(&mut self, fact: Fact, actor: Option<u32>, out: &mut Vec<ScriptEvent>) {
        if self.space.add(fact.predicate, fact.args.clone()) {
            out.push(ScriptEvent::Add { actor, fact });
        }
    }

    /// Takes a fact back that was pushed from outside (a notification's facts that stop lasting).
    pub fn retract_fact(&mut self, fact: &Fact, out: &mut Vec<ScriptEvent>) {
        let pattern: Vec<Option<Value>> = fact.args.iter().copied().map(Some).collect();
        for args in self.space.remove_matching(fact.predicate, &pattern) {
            out.push(ScriptEvent::Del {
                actor: None,
                fact: Fact {
                    predicate: fact.predicate,
                    args,
                },
            });
        }
    }

    /// Whether `actor` takes part.
    pub fn has(&self, actor: u32) -> bool {
        self.participants.iter().any(|p| p.actor == actor)
    }

    /// Carries the instance across a hot reload onto `new`, the same script (by name) in the
    /// new program, at index `index`. Participants keep their roles and states by name, their
    /// actions in flight and the tuple space are kept. What cannot be mapped follows fixed
    /// rules, each reported in [`Carried::notes`]:
    /// - a role that no longer exists: its participants leave the script;
    /// - more participants in a role than its new maximum: the extra ones leave;
    /// - a state that no longer exists: the participant restarts at the initial state;
    /// - an action in flight finishes with the effects of the rule that started it.
    ///
    /// `rename` maps the old program's name ids to the new one's; `name` spells an old name id,
    /// `new_name` a new one and `label` an actor, for the notes.
    #[allow(clippy::too_many_arguments)]
    pub fn carry(
        &mut self,
        old: &ScriptDef,
        new: &ScriptDef,
        index: u32,
        rename: &mut dyn FnMut(NameId) -> NameId,
        name: &dyn Fn(NameId) -> String,
        new_name: &dyn Fn(NameId) -> String,
        label: &dyn Fn(u32) -> String,
    ) -> Carried {
        let mut carried = Carried::default();
        let script = name(old.name);
        self.space.rename(rename);
        let mut counts = vec![0u16; new.roles.len()];
        let mut kept: SmallVec<[Participant; 4]> = SmallVec::new();
        for mut p in std::mem::take(&mut self.participants) {
            let who = label(p.actor);
            let old_role = &old.roles[p.role as usize];
            let Some(role) = new.role_by_name(rename(old_role.name)) else {
                carried.notes.push(format!(
                    "{who}: role `{}` of script `{script}` no longer exists; it left the script",
                    name(old_role.name)
                ));
                carried.left.push((p.actor, name(old_role.name)));
                continue;
            };
            if counts[role as usize] >= new.roles[role as usize].max {
                carried.notes.push(format!(
                    "{who}: role `{}` of script `{script}` now takes at most {}; it left the script",
                    name(old_role.name),
                    new.roles[role as usize].max
                ));
                carried.left.push((p.actor, name(old_role.name)));
                continue;
            }
            counts[role as usize] += 1;
            p.role = role;
            let old_state = old.states[p.state as usize].name;
            let state_name = rename(old_state);
            p.state = match new.states.iter().position(|s| s.name == state_name) {
                Some(s) => s as u16,
                None => {
                    carried.notes.push(format!(
                        "{who}: state `{}` of script `{script}` no longer exists; it restarts at `{}`",
                        name(old_state),
                        new_name(new.states[new.initial_state as usize].name)
                    ));
                    new.initial_state
                }
            };
            p.value = p.value.renamed(rename);
            if let Some(busy) = &mut p.busy {
                if busy.carried.is_none() {
                    busy.carried = Some(Ending::of(&old.rules[busy.rule], rename));
                } else if let Some(e) = &mut busy.carried {
                    // Carried before: its atoms already use the old program's ids.
                    *e = Ending {
                        deferred_add: e.deferred_add.iter().map(|a| a.renamed(rename)).collect(),
                        deferred_delete: e
                            .deferred_delete
                            .iter()
                            .map(|a| a.renamed(rename))
                            .collect(),
                        on_error: e.on_error.iter().map(|a| a.renamed(rename)).collect(),
                        terminate: e.terminate,
                    };
                }
                busy.bindings.rename(rename);
                busy.action = rename(busy.action);
                busy.target = busy.target.map(|t| t.renamed(rename));
            }
            p.known_false = 0;
            p.known_at = (u64::MAX, u64::MAX);
            kept.push(p);
        }
        carried.kept = kept.len() as u32;
        self.participants = kept;
        for r in &mut self.leave_requests {
            r.action = rename(r.action);
            r.target = r.target.map(|t| t.renamed(rename));
            for (k, v) in &mut r.parameters {
                *k = rename(*k);
                *v = v.renamed(rename);
            }
        }
        self.script = index;
        self.volatile.clear();
        self.membership += 1;
        carried
    }

    /// One update (35.4). `finished` lists actions that ended since the last update.
    pub fn update(
        &mut self,
        def: &ScriptDef,
        world: &World<'_>,
        finished: &[(u64, ActionOutcome)],
        out: &mut Vec<ScriptEvent>,
        requests: &mut Vec<ActionRequest>,
    ) {
        if self.ended {
            return;
        }
        if self.volatile.len() != def.states.len() {
            self.volatile = (0..def.states.len() as u16)
                .map(|s| {
                    def.rules_of(s)
                        .iter()
                        .enumerate()
                        .filter(|(k, r)| *k < 64 && r.volatile())
                        .fold(0, |mask, (k, _)| mask | 1 << k)
                })
                .collect();
        }
        // 1. Shuffle the participants (counters bias toward the first or last).
        for i in (1..self.participants.len()).rev() {
            let j = self.rng.index(i + 1);
            self.participants.swap(i, j);
        }
        let mut values = std::mem::take(&mut self.values);
        values.clear();
        values.extend(self.participants.iter().map(|p| p.value));
        // A rule's termination takes effect when its action succeeds (at once when it has none):
        // a participant whose getup failed is still there, and its On Error facts can retry.
        let mut end_script = false;
        // 2. Deferred effects of finished actions; on-error facts of failed ones.
        for i in 0..self.participants.len() {
            let Some(busy) = &self.participants[i].busy else {
                continue;
            };
            let Some((_, outcome)) = finished.iter().find(|(id, _)| *id == busy.action_id) else {
                continue;
            };
            let busy = self.participants[i].busy.take().expect("checked above");
            let actor = self.participants[i].actor;
            let me = self.participants[i].value;
            let (deferred_delete, deferred_add, on_error, terminate) = match &busy.carried {
                Some(e) => (
                    &e.deferred_delete,
                    &e.deferred_add,
                    &e.on_error,
                    e.terminate,
                ),
                None => {
                    let rule = &def.rules[busy.rule];
                    (
                        &rule.deferred_delete,
                        &rule.deferred_add,
                        &rule.on_error,
                        rule.terminate,
                    )
                }
            };
            match outcome {
                ActionOutcome::Succeeded => {
                    out.push(ScriptEvent::Done {
                        actor,
                        action: busy.action,
                        target: busy.target,
                    });
                    match terminate {
                        Termination::None => {}
                        Termination::Actor => self.participants[i].leaving = true,
                        Termination::Script => end_script = true,
                    }
                    self.apply(
                        deferred_delete,
                        deferred_add,
                        &busy.bindings,
                        actor,
                        me,
                        &values,
                        world,
                        out,
                    );
                }
                ActionOutcome::Failed => {
                    out.push(ScriptEvent::Fail {
                        actor,
                        action: busy.action,
                        target: busy.target,
                    });
                    self.apply(
                        &[],
                        on_error,
                        &busy.bindings,
                        actor,
                        me,
                        &values,
                        world,
                        out,
                    );
                }
            }
        }
        // 3. Each idle participant fires the first matching rule of its state.
        for i in 0..self.participants.len() {
            if end_script {
                break; // the script is ending: nobody starts anything new
            }
            let p = &self.participants[i];
            if p.busy.is_some() || p.leaving {
                continue;
            }
            let (actor, me, role, state) = (p.actor, p.value, p.role, p.state);
            let now_at = (self.space.version(), self.membership);
            let mut known_false = if p.known_at == now_at {
                p.known_false
            } else {
                0
            };
            let first = def.states[state as usize].first_rule as usize;
            let volatile = self.volatile[state as usize];
            let mut fired = None;
            for (k, rule) in def.rules_of(state).iter().enumerate() {
                if rule.role.is_some_and(|r| r != role) {
                    continue;
                }
                if k < 64 && known_false & (1 << k) != 0 {
                    self.rule_skips += 1;
                    continue;
                }
                self.rule_evaluations += 1;
                let mut env = Env {
                    space: &self.space,
                    me,
                    now: world.now,
                    participants: &values,
                    rng: &mut self.rng,
                    distance: world.distance,
                    steps: 0,
                };
                let solution = SCRATCH.with_borrow_mut(|scratch| {
                    solve(&rule.precondition, rule.variables, &mut env, scratch)
                });
                self.steps += env.steps;
                match solution {
                    Some(b) => {
                        fired = Some((first + k, b));
                        break;
                    }
                    None if k < 64 && volatile & (1 << k) == 0 => known_false |= 1 << k,
                    None => {}
                }
            }
            let p = &mut self.participants[i];
            p.known_false = known_false;
            p.known_at = now_at;
            let Some((index, bindings)) = fired else {
                continue;
            };
            let rule = &def.rules[index];
            if self.fired.len() <= index / 64 {
                self.fired.resize(index / 64 + 1, 0);
            }
            self.fired[index / 64] |= 1 << (index % 64);
            self.apply(
                &rule.delete,
                &rule.add,
                &bindings,
                actor,
                me,
                &values,
                world,
                out,
            );
            match &rule.action {
                Some(action) => {
                    let mut env = self.env(me, &values, world);
                    let target = action
                        .target
                        .as_ref()
                        .and_then(|t| eval(t, &bindings, &mut env).ok());
                    let parameters = action
                        .parameters
                        .iter()
                        .filter_map(|(k, v)| eval(v, &bindings, &mut env).ok().map(|v| (*k, v)))
                        .collect();
                    let id = self.next_action;
                    self.next_action += 1;
                    requests.push(ActionRequest {
                        id,
                        actor,
                        action: action.name,
                        target,
                        parameters,
                    });
                    out.push(ScriptEvent::Act {
                        actor,
                        action: action.name,
                        target,
                    });
                    self.participants[i].busy = Some(Box::new(Busy {
                        action_id: id,
                        rule: index,
                        bindings,
                        action: action.name,
                        target,
                        carried: None,
                    }));
                }
                // Without an action, deferred effects apply at once.
                None => self.apply(
                    &rule.deferred_delete,
                    &rule.deferred_add,
                    &bindings,
                    actor,
                    me,
                    &values,
                    world,
                    out,
                ),
            }
            let p = &mut self.participants[i];
            if let Some(next) = rule.next_state
                && next != p.state
            {
                p.state = next;
                p.known_false = 0;
            }
            if rule.action.is_none() {
                match rule.terminate {
                    Termination::None => {}
                    Termination::Actor => p.leaving = true,
                    Termination::Script => end_script = true,
                }
            }
        }
        // 4. Participants that terminated leave once their action is done.
        let mut i = 0;
        while i < self.participants.len() {
            let p = &self.participants[i];
            if p.leaving && p.busy.is_none() {
                let p = self.participants.remove(i);
                self.leave(def, p, out);
            } else {
                i += 1;
            }
        }
        // 5. End when asked to, when a minimum can no longer be met, or when nobody is left.
        let short = def
            .roles
            .iter()
            .enumerate()
            .find(|(r, role)| self.count(*r as u16) < role.min as usize);
        let reason = if end_script {
            Some("a rule terminated the script".to_string())
        } else if let Some((_, role)) = short {
            Some(format!(
                "role #{} is below its minimum of {}",
                role.name.0, role.min
            ))
        } else if self.participants.is_empty() {
            Some("every participant left".to_string())
        } else {
            None
        };
        if let Some(reason) = reason {
            self.end(def, reason, out);
        }
        requests.append(&mut self.leave_requests);
        self.values = values;
    }

    /// A participant leaves; a role with a leave command sends it to the actor (35.3.3 flags).
    fn leave(&mut self, def: &ScriptDef, p: Participant, out: &mut Vec<ScriptEvent>) {
        self.membership += 1;
        out.push(ScriptEvent::Leave {
            actor: p.actor,
            role: p.role,
        });
        if let Some(action) = def.roles.get(p.role as usize).and_then(|r| r.leave_command) {
            let id = self.next_action;
            self.next_action += 1;
            out.push(ScriptEvent::Act {
                actor: p.actor,
                action,
                target: None,
            });
            self.leave_requests.push(ActionRequest {
                id,
                actor: p.actor,
                action,
                target: None,
                parameters: Vec::new(),
            });
        }
    }

    /// Ends the script: everyone remaining leaves.
    pub fn end(&mut self, def: &ScriptDef, reason: String, out: &mut Vec<ScriptEvent>) {
        for p in std::mem::take(&mut self.participants) {
            self.leave(def, p, out);
        }
        self.ended = true;
        out.push(ScriptEvent::End { reason });
    }

    /// Removes one participant from outside (it was called away); the next update checks
    /// cardinalities and hands out its leave command.
    pub fn remove(&mut self, def: &ScriptDef, actor: u32, out: &mut Vec<ScriptEvent>) {
        if let Some(i) = self.participants.iter().position(|p| p.actor == actor) {
            let p = self.participants.remove(i);
            self.leave(def, p, out);
        }
    }

    /// Leave commands issued by `end` or `remove` outside an update (an update returns them in
    /// its `requests`).
    pub fn take_leave_requests(&mut self) -> Vec<ActionRequest> {
        std::mem::take(&mut self.leave_requests)
    }

    fn env<'a>(&'a mut self, me: Value, values: &'a [Value], world: &'a World<'_>) -> Env<'a> {
        Env {
            space: &self.space,
            me,
            now: world.now,
            participants: values,
            rng: &mut self.rng,
            distance: world.distance,
            steps: 0,
        }
    }

    /// Applies deletions, then additions, evaluated under `b`. A free variable in a deletion
    /// matches anything, so every matching fact is removed.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &mut self,
        delete: &[Atom],
        add: &[Atom],
        b: &Bindings,
        actor: u32,
        me: Value,
        values: &[Value],
        world: &World<'_>,
        out: &mut Vec<ScriptEvent>,
    ) {
        for atom in delete {
            let mut env = self.env(me, values, world);
            // Only an unbound variable matches anything; a term that cannot be evaluated
            // (ruled out by validation) must not turn into a wildcard and delete everything.
            let pattern: Option<Vec<Option<Value>>> = atom
                .args
                .iter()
                .map(|t| match t {
                    Expr::Var(v) => Some(b.get(*v)),
                    other => eval(other, b, &mut env).ok().map(Some),
                })
                .collect();
            let Some(pattern) = pattern else { continue };
            for args in self.space.remove_matching(atom.predicate, &pattern) {
                out.push(ScriptEvent::Del {
                    actor: Some(actor),
                    fact: Fact {
                        predicate: atom.predicate,
                        args,
                    },
                });
            }
        }
        for atom in add {
            let mut env = self.env(me, values, world);
            let Ok(args) = atom
                .args
                .iter()
                .map(|t| eval(t, b, &mut env))
                .collect::<Result<Vec<_>, _>>()
            else {
                // Ruled out by validation (`uninstantiated-variable`); never add a half-bound fact.
                continue;
            };
            if self.space.add(atom.predicate, args.clone()) {
                out.push(ScriptEvent::Add {
                    actor: Some(actor),
                    fact: Fact {
                        predicate: atom.predicate,
                        args,
                    },
                });
            }
        }
    }
}

/// Whether `rule` can fire for `role` (used by joining late and by tools).
pub fn rule_applies_to(rule: &RuleDef, role: u16) -> bool {
    rule.role.is_none_or(|r| r == role)
}

#[cfg(test)]
mod tests {
    use super::super::def::*;
    use super::*;

    const SIT: NameId = NameId(1);
    const SITTING: NameId = NameId(2);
    const OOPS: NameId = NameId(3);
    const BUSY: NameId = NameId(4);
    const A: NameId = NameId(10);
    const B: NameId = NameId(11);

    /// One state: `not sitting(.me) -> sit; add busy(.me); deferred add sitting(.me);
    /// on error oops(.me); terminate actor`. Role 0 needs at least one actor.
    fn def(min: u16) -> ScriptDef {
        let me = |p| Atom {
            predicate: p,
            args: vec![Expr::Me],
        };
        ScriptDef {
            name: NameId(0),
            roles: vec![RoleDef {
                name: NameId(5),
                min,
                max: 2,
                dynamic_join: true,
                leave_command: None,
            }],
            states: vec![ScriptStateDef {
                name: NameId(6),
                first_rule: 0,
                rule_count: 1,
            }],
            initial_state: 0,
            rules: vec![RuleDef {
                name: NameId(7),
                role: None,
                precondition: vec![Literal::Neg(me(SITTING))],
                action: Some(ActionDef {
                    name: SIT,
                    target: None,
                    parameters: vec![],
                }),
                add: vec![me(BUSY)],
                delete: vec![],
                deferred_add: vec![me(SITTING)],
                deferred_delete: vec![],
                on_error: vec![me(OOPS)],
                next_state: None,
                terminate: Termination::Actor,
                variables: 0,
            }],
        }
    }

    fn world() -> World<'static> {
        World {
            now: 0.0,
            distance: &|_, _| None,
        }
    }

    #[test]
    fn deferred_effects_wait_for_success_and_errors_add_on_error_facts() {
        let d = def(0);
        let mut inst = ScriptInstance::new(0, &[], 1, 1);
        let mut ev = Vec::new();
        inst.join(&d, 0, A, 0, &mut ev);
        inst.join(&d, 1, B, 0, &mut ev);
        let mut req = Vec::new();
        inst.update(&d, &world(), &[], &mut ev, &mut req);
        assert_eq!(req.len(), 2, "both idle participants fire the rule");
        assert!(
            inst.space.contains(BUSY, &[Value::Sym(A)]),
            "immediate effects apply at once"
        );
        assert!(
            !inst.space.contains(SITTING, &[Value::Sym(A)]),
            "deferred effects wait for the action"
        );
        let a = req.iter().find(|r| r.actor == 0).unwrap().id;
        let b = req.iter().find(|r| r.actor == 1).unwrap().id;
        ev.clear();
        req.clear();
        inst.update(
            &d,
            &world(),
            &[(a, ActionOutcome::Succeeded), (b, ActionOutcome::Failed)],
            &mut ev,
            &mut req,
        );
        assert!(inst.space.contains(SITTING, &[Value::Sym(A)]));
        assert!(!inst.space.contains(SITTING, &[Value::Sym(B)]));
        assert!(inst.space.contains(OOPS, &[Value::Sym(B)]));
        // A's rule succeeded, so A leaves. B's action failed: its termination does not take
        // effect, it stays, and (its precondition still holding) tries again at once.
        let leaves: Vec<u32> = ev
            .iter()
            .filter_map(|e| match e {
                ScriptEvent::Leave { actor, .. } => Some(*actor),
                _ => None,
            })
            .collect();
        assert_eq!(leaves, [0]);
        assert!(!inst.ended());
        assert_eq!(req.len(), 1);
        assert_eq!(req[0].actor, 1);
    }

    #[test]
    fn a_role_below_its_minimum_ends_the_script() {
        let d = def(2);
        let mut inst = ScriptInstance::new(0, &[], 1, 1);
        let mut ev = Vec::new();
        inst.join(&d, 0, A, 0, &mut ev);
        inst.update(&d, &world(), &[], &mut ev, &mut Vec::new());
        assert!(inst.ended());
        assert!(
            matches!(ev.last(), Some(ScriptEvent::End { reason }) if reason.contains("below its minimum"))
        );
    }
}
