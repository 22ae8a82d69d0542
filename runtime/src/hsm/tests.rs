//! Interpreter semantics, on programs built by hand (the runtime's tests never need the compiler).

use super::*;
use crate::program::*;
use crate::trace::EventKind;
use std::sync::Arc;

/// Test world: a log of what state code did.
#[derive(Default)]
struct Log(Vec<String>);

/// Records init/update/cleanup, raises the event named by its text modifier after `after`
/// updates, and forwards messages named `Fwd*` up.
struct Probe {
    updates: u32,
    after: u32,
}

impl StateCode<Log> for Probe {
    fn init(&mut self, cx: &mut StateCx<'_, Log>) {
        let s = format!("init {}", cx.state_name());
        cx.game.0.push(s);
        if self.after == 0
            && let Some(e) = cx.text().map(str::to_string)
        {
            cx.raise(&e);
        }
    }
    fn update(&mut self, cx: &mut StateCx<'_, Log>, dt: f64) {
        self.updates += 1;
        let s = format!("update {} {dt}", cx.state_name());
        cx.game.0.push(s);
        if self.updates == self.after
            && let Some(e) = cx.text().map(str::to_string)
        {
            if let Some(message) = e.strip_prefix("Send") {
                let to = cx.agent_by_name("b").unwrap();
                cx.send_to(to, message);
            } else if let Some(message) = e.strip_prefix("Up") {
                cx.send_up(message);
            } else {
                cx.raise(&e);
            }
        }
    }
    fn cleanup(&mut self, cx: &mut StateCx<'_, Log>) {
        let s = format!("cleanup {}", cx.state_name());
        cx.game.0.push(s);
    }
    fn save(&self, _program: &Program) -> Vec<u8> {
        crate::snapshot::encode(&self.updates)
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        self.updates = crate::snapshot::decode(data)?;
        Ok(())
    }
}

/// A state: (name, library code, modifier, transitions as (event, target name)).
type StateRow<'a> = (&'a str, &'a str, &'a str, &'a [(&'a str, &'a str)]);

/// Builds programs from a compact description. Library: `Start` (raises Empty at init),
/// `Finish`, `Fail`, `Host` (machine modifier), `Probe0` (text modifier, raises it at init),
/// `Probe1`/`Probe2` (raise it after 1 or 2 updates).
#[derive(Default)]
struct Builder {
    names: Vec<String>,
    machines: Vec<MachineDef>,
    states: Vec<StateDef>,
    transitions: Vec<TransitionDef>,
    pending: Vec<(usize, String)>, // (state index, host target machine name)
}

const LIB: [(&str, ModifierKind, Terminal); 8] = [
    ("Start", ModifierKind::None, Terminal::No),
    ("Finish", ModifierKind::None, Terminal::End),
    ("Fail", ModifierKind::None, Terminal::Failure),
    ("Host", ModifierKind::Machine, Terminal::No),
    ("Probe0", ModifierKind::Text, Terminal::No),
    ("Probe1", ModifierKind::Text, Terminal::No),
    ("Probe2", ModifierKind::Text, Terminal::No),
    ("Dyn", ModifierKind::Text, Terminal::No),
];

impl Builder {
    fn intern(&mut self, s: &str) -> NameId {
        match self.names.iter().position(|n| n == s) {
            Some(i) => NameId(i as u32),
            None => {
                self.names.push(s.to_string());
                NameId(self.names.len() as u32 - 1)
            }
        }
    }

    /// states: (name, code, modifier, transitions as (event, target name)).
    fn machine(mut self, name: &str, states: &[StateRow<'_>]) -> Self {
        let mi = self.machines.len() as u32;
        let first = self.states.len() as u32;
        let name = self.intern(name);
        for (sname, code, modifier, trans) in states {
            let code_ix = LIB.iter().position(|l| l.0 == *code).unwrap() as u32;
            let sname_id = self.intern(sname);
            let modifier = match LIB[code_ix as usize].1 {
                ModifierKind::Text => Modifier::Text(self.intern(modifier)),
                ModifierKind::Machine => {
                    self.pending.push((self.states.len(), modifier.to_string()));
                    Modifier::Machine(MachineId(0))
                }
                _ => Modifier::None,
            };
            let first_transition = self.transitions.len() as u32;
            for (event, target) in trans.iter() {
                let event = self.intern(event);
                let t = states.iter().position(|s| s.0 == *target).unwrap() as u32;
                self.transitions.push(TransitionDef {
                    event,
                    target: StateId(first + t),
                });
            }
            self.states.push(StateDef {
                name: sname_id,
                machine: MachineId(mi),
                code: LibraryId(code_ix),
                modifier,
                first_transition,
                transition_count: trans.len() as u32,
            });
        }
        self.machines.push(MachineDef {
            name,
            initial: StateId(first),
            first_state: first,
            state_count: states.len() as u32,
        });
        self
    }

    fn build(mut self, agents: &[(&str, &str)]) -> Arc<Program> {
        for (state, machine) in std::mem::take(&mut self.pending) {
            let id = self.names.iter().position(|n| *n == machine).unwrap() as u32;
            let m = self
                .machines
                .iter()
                .position(|m| m.name == NameId(id))
                .unwrap();
            self.states[state].modifier = Modifier::Machine(MachineId(m as u32));
        }
        let library = LIB
            .iter()
            .map(|(n, m, t)| LibraryState {
                name: self.intern(n),
                modifier: *m,
                terminal: *t,
            })
            .collect();
        let here = self.intern("here");
        let scene_name = self.intern("scene");
        let agents = agents
            .iter()
            .map(|(a, m)| {
                let mname = self.intern(m);
                let machine =
                    MachineId(self.machines.iter().position(|x| x.name == mname).unwrap() as u32);
                AgentDef {
                    name: self.intern(a),
                    machine,
                    start: LocationId(0),
                }
            })
            .collect();
        let p = Program::new(
            self.names,
            library,
            self.machines,
            self.states,
            self.transitions,
            vec![LocationDef {
                name: here,
                x: 0.0,
                y: 0.0,
            }],
            vec![SceneDef {
                name: scene_name,
                tick_rate: 10,
                agents,
                ambient: vec![],
            }],
        )
        .unwrap();
        Arc::new(p)
    }
}

fn library() -> StateLibrary<Log> {
    let mut lib = StateLibrary::new();
    for (name, modifier, terminal) in LIB {
        let after = match name {
            "Probe1" => 1,
            "Probe2" => 2,
            _ => 0,
        };
        let spec = StateSpec::new(modifier).terminal(terminal);
        if name == "Start" {
            lib.register(name, spec, || Box::new(Starter));
        } else if name == "Dyn" {
            lib.register(name, spec, || Box::new(Dyn { next: 0 }));
        } else {
            lib.register(name, spec, move || Box::new(Probe { updates: 0, after }));
        }
    }
    lib
}

struct Starter;
impl StateCode<Log> for Starter {
    fn init(&mut self, cx: &mut StateCx<'_, Log>) {
        cx.raise("Empty");
    }
}

fn scene(p: Arc<Program>) -> Scene<Log> {
    Scene::new_traced(p, library(), "scene", Log::default(), 1).unwrap()
}

/// The trace as compact strings: `agent:enter Machine/State@depth`.
fn trace(s: &mut Scene<Log>) -> Vec<String> {
    s.take_events()
        .iter()
        .map(|e| {
            let who = e.agent.as_deref().unwrap_or_default();
            match &e.kind {
                EventKind::Enter {
                    machine,
                    state,
                    depth,
                } => format!("{who}:enter {machine}/{state}@{depth}"),
                EventKind::Exit {
                    machine,
                    state,
                    depth,
                } => format!("{who}:exit {machine}/{state}@{depth}"),
                EventKind::Message {
                    from,
                    to,
                    name,
                    handled,
                    ..
                } => format!("{who}:message {name} {from}->{to} {handled}"),
                EventKind::Fail { machine, .. } => format!("{who}:fail {machine}"),
                EventKind::Say { text, .. } => format!("{who}:say {text}"),
                EventKind::Error { message } => format!("{who}:error {message}"),
                EventKind::Reload {
                    kept, fallbacks, ..
                } => format!("reload kept={kept} {fallbacks:?}"),
                EventKind::ReloadRejected { reason } => format!("rejected {reason}"),
                other => format!("{who}:{}", other.name()),
            }
        })
        .collect()
}

#[test]
fn start_raises_empty_and_machine_finishes() {
    let p = Builder::default()
        .machine(
            "M",
            &[
                ("Start", "Start", "", &[("Empty", "A")]),
                ("A", "Probe2", "Go", &[("Go", "Finish")]),
                ("Finish", "Finish", "", &[]),
            ],
        )
        .build(&[("a", "M")]);
    let mut s = scene(p);
    assert_eq!(
        trace(&mut s),
        ["a:enter M/Start@0", "a:exit M/Start@0", "a:enter M/A@0"]
    );
    s.tick();
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Running);
    s.tick();
    assert_eq!(trace(&mut s), ["a:exit M/A@0", "a:enter M/Finish@0"]);
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Finished);
}

#[test]
fn host_runs_child_and_receives_end_state_machine() {
    let p = Builder::default()
        .machine(
            "Child",
            &[
                ("Start", "Start", "", &[("Empty", "Talk")]),
                ("Talk", "Probe1", "Done", &[("Done", "Finish")]),
                ("Finish", "Finish", "", &[]),
            ],
        )
        .machine(
            "Top",
            &[
                ("Start", "Start", "", &[("Empty", "H")]),
                ("H", "Host", "Child", &[("EndStateMachine", "After")]),
                ("After", "Probe0", "", &[]),
            ],
        )
        .build(&[("a", "Top")]);
    let mut s = scene(p);
    s.tick();
    assert_eq!(
        trace(&mut s),
        [
            "a:enter Top/Start@0",
            "a:exit Top/Start@0",
            "a:enter Top/H@0",
            "a:enter Child/Start@1",
            "a:exit Child/Start@1",
            "a:enter Child/Talk@1",
            "a:exit Child/Talk@1",
            "a:enter Child/Finish@1",
            "a:exit Child/Finish@1",
            "a:exit Top/H@0",
            "a:enter Top/After@0",
        ]
    );
    // Every active state is updated each tick, root first; cleanup runs child first.
    let log = &s.game.0;
    let h_update = log.iter().position(|l| l.starts_with("update H")).unwrap();
    let talk_update = log
        .iter()
        .position(|l| l.starts_with("update Talk"))
        .unwrap();
    assert!(h_update < talk_update, "{log:?}");
    let talk_cleanup = log.iter().position(|l| l == "cleanup Talk").unwrap();
    let h_cleanup = log.iter().position(|l| l == "cleanup H").unwrap();
    assert!(talk_cleanup < h_cleanup, "{log:?}");
}

#[test]
fn unhandled_child_failure_fails_the_root() {
    let p = Builder::default()
        .machine(
            "Child",
            &[
                ("Start", "Start", "", &[("Empty", "Fail")]),
                ("Fail", "Fail", "", &[]),
            ],
        )
        .machine(
            "Mid",
            &[("H", "Host", "Child", &[("EndStateMachine", "H")])],
        )
        .machine("Top", &[("H", "Host", "Mid", &[])])
        .build(&[("a", "Top")]);
    let mut s = scene(p);
    let t = trace(&mut s);
    assert_eq!(t.last().unwrap(), "a:fail Top", "{t:?}");
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Failed);
}

#[test]
fn handled_child_failure_takes_the_hosts_transition() {
    let p = Builder::default()
        .machine(
            "Child",
            &[
                ("Start", "Start", "", &[("Empty", "Fail")]),
                ("Fail", "Fail", "", &[]),
            ],
        )
        .machine(
            "Top",
            &[
                ("H", "Host", "Child", &[("StateMachineFailed", "Recover")]),
                ("Recover", "Probe0", "", &[]),
            ],
        )
        .build(&[("a", "Top")]);
    let mut s = scene(p);
    let t = trace(&mut s);
    assert_eq!(t.last().unwrap(), "a:enter Top/Recover@0", "{t:?}");
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Running);
}

#[test]
fn messages_between_agents_arrive_next_tick_top_down() {
    let p = Builder::default()
        .machine(
            "Child",
            &[
                ("Wait", "Probe0", "", &[("Ping", "Got")]),
                ("Got", "Probe0", "", &[]),
            ],
        )
        .machine("B", &[("H", "Host", "Child", &[])])
        .machine("A", &[("S", "Probe1", "SendPing", &[])])
        .build(&[("a", "A"), ("b", "B")]);
    let mut s = scene(p);
    trace(&mut s);
    s.tick(); // a sends
    assert!(!trace(&mut s).iter().any(|l| l.contains("Ping")));
    s.tick(); // b receives: its host does not handle Ping, the child's state does
    assert_eq!(
        trace(&mut s),
        [
            "b:message Ping a->b true",
            "b:exit Child/Wait@1",
            "b:enter Child/Got@1"
        ]
    );
}

#[test]
fn up_messages_reach_the_host() {
    let p = Builder::default()
        .machine("Child", &[("C", "Probe1", "UpHelp", &[])])
        .machine(
            "Top",
            &[
                ("H", "Host", "Child", &[("Help", "Done")]),
                ("Done", "Probe0", "", &[]),
            ],
        )
        .build(&[("a", "Top")]);
    let mut s = scene(p);
    trace(&mut s);
    s.tick();
    assert_eq!(
        trace(&mut s),
        [
            "a:message Help a->a true",
            "a:exit Child/C@1",
            "a:exit Top/H@0",
            "a:enter Top/Done@0"
        ]
    );
}

#[test]
fn transition_loops_halt_the_agent_with_an_error() {
    let p = Builder::default()
        .machine(
            "M",
            &[
                ("A", "Probe0", "Go", &[("Go", "B")]),
                ("B", "Probe0", "Go", &[("Go", "A")]),
            ],
        )
        .build(&[("a", "M")]);
    let mut s = scene(p);
    assert!(matches!(s.status(AgentId(0)), AgentStatus::Halted(_)));
    let t = trace(&mut s);
    assert!(
        t.last().unwrap().contains("more than 64 transitions"),
        "{t:?}"
    );
    s.tick(); // a halted agent stays quiet
    assert!(trace(&mut s).is_empty());
}

#[test]
fn states_entered_this_tick_are_updated_from_the_next() {
    let p = Builder::default()
        .machine(
            "M",
            &[
                ("A", "Probe1", "Go", &[("Go", "B")]),
                ("B", "Probe2", "", &[]),
            ],
        )
        .build(&[("a", "M")]);
    let mut s = scene(p);
    s.tick();
    assert_eq!(s.game.0, ["init A", "update A 0.1", "cleanup A", "init B"]);
    s.tick();
    assert_eq!(s.game.0.last().unwrap(), "update B 0.1");
}

#[test]
fn linking_reports_missing_and_mismatched_library_states() {
    let p = Builder::default()
        .machine("M", &[("A", "Probe0", "", &[])])
        .build(&[("a", "M")]);
    let mut lib = library();
    lib.register("Probe0", StateSpec::new(ModifierKind::None), || {
        Box::new(Starter)
    });
    let err = Scene::new(p.clone(), lib, "scene", Log::default(), 0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("takes a none modifier"), "{err}");
    let err = Scene::new(p.clone(), StateLibrary::new(), "scene", Log::default(), 0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("did not register"), "{err}");
    let err = Scene::new(p, library(), "nope", Log::default(), 0)
        .err()
        .unwrap();
    assert!(err.to_string().contains("scenes: scene"), "{err}");
}

// ---- hot reload ----

fn two_level(child_states: &[StateRow<'_>], top_extra: bool) -> Arc<Program> {
    let mut top: Vec<StateRow<'_>> = vec![
        ("Start", "Start", "", &[("Empty", "H")]),
        ("H", "Host", "Child", &[("EndStateMachine", "Done")]),
        ("Done", "Probe0", "", &[]),
    ];
    if top_extra {
        top.push(("Extra", "Probe0", "", &[]));
    }
    Builder::default()
        .machine("Child", child_states)
        .machine("Top", &top)
        .build(&[("a", "Top")])
}

const CHILD: [StateRow<'static>; 3] = [
    ("Start", "Start", "", &[("Empty", "Work")]),
    ("Work", "Probe2", "Go", &[("Go", "Finish")]),
    ("Finish", "Finish", "", &[]),
];

fn active(s: &Scene<Log>) -> Vec<String> {
    let p = s.program().clone();
    s.active_states(AgentId(0))
        .iter()
        .map(|id| p.name(p.state(*id).name).to_string())
        .collect()
}

#[test]
fn reload_keeps_active_states_and_their_code() {
    let mut s = scene(two_level(&CHILD, false));
    s.tick();
    assert_eq!(active(&s), ["H", "Work"]);
    trace(&mut s);
    let report = s.reload(two_level(&CHILD, true), "test").unwrap();
    assert_eq!(report.kept, 2);
    assert!(report.fallbacks.is_empty());
    // No state was left or entered: the reload is invisible except for its own event.
    assert_eq!(trace(&mut s), ["reload kept=2 []"]);
    // The Work instance kept its update count: one more tick reaches its second update.
    s.game.0.clear();
    s.tick();
    assert!(
        s.game.0.iter().any(|l| l == "update Work 0.1"),
        "{:?}",
        s.game.0
    );
}

#[test]
fn reload_restarts_a_machine_whose_active_state_was_deleted() {
    let mut s = scene(two_level(&CHILD, false));
    s.tick();
    trace(&mut s);
    let renamed: [StateRow<'static>; 3] = [
        ("Start", "Start", "", &[("Empty", "Toil")]),
        ("Toil", "Probe2", "", &[("Go", "Finish")]),
        ("Finish", "Finish", "", &[]),
    ];
    let report = s.reload(two_level(&renamed, false), "test").unwrap();
    assert_eq!(report.kept, 1);
    assert_eq!(report.fallbacks.len(), 1);
    assert!(
        report.fallbacks[0].contains("Child/Work no longer exists"),
        "{report:?}"
    );
    let t = trace(&mut s);
    // The old child state is cleaned up; the child restarts at Start and moves on to Toil.
    assert_eq!(t[0], "a:exit Child/Work@1");
    assert!(t.contains(&"a:enter Child/Toil@1".to_string()), "{t:?}");
    assert_eq!(active(&s), ["H", "Toil"]);
}

#[test]
fn reload_reenters_a_state_whose_code_changed() {
    let mut s = scene(two_level(&CHILD, false));
    s.tick();
    trace(&mut s);
    let recoded: [StateRow<'static>; 3] = [
        ("Start", "Start", "", &[("Empty", "Work")]),
        ("Work", "Probe1", "", &[("Go", "Finish")]),
        ("Finish", "Finish", "", &[]),
    ];
    let report = s.reload(two_level(&recoded, false), "test").unwrap();
    assert!(
        report.fallbacks[0].contains("now runs Probe1 instead of Probe2"),
        "{report:?}"
    );
    assert_eq!(
        trace(&mut s)[..2],
        [
            "a:exit Child/Work@1".to_string(),
            "a:enter Child/Work@1".to_string()
        ]
    );
}

#[test]
fn a_program_the_library_cannot_run_is_rejected_and_the_old_one_goes_on() {
    let mut s = scene(two_level(&CHILD, false));
    s.tick();
    trace(&mut s);
    let mut lib_names = (*two_level(&CHILD, false)).clone().into_parts();
    // Pretend the new program needs a library state the game does not have.
    let i = lib_names.names.iter().position(|n| n == "Probe2").unwrap();
    lib_names.names[i] = "Teleport".into();
    let bytes = lib_names.verify().unwrap().to_bytes();
    let new = Arc::new(Program::from_bytes(&bytes).unwrap());
    assert!(s.reload(new, "test").is_err());
    let said = trace(&mut s);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with(
            "rejected the program needs library state `Teleport`, which the game did not register"
        ),
        "{said:?}"
    );
    s.tick();
    assert_eq!(active(&s), ["Done"], "the old program finished its work");
}

#[test]
fn messages_in_flight_survive_a_reload() {
    let p = Builder::default()
        .machine(
            "Child",
            &[
                ("Wait", "Probe0", "", &[("Ping", "Got")]),
                ("Got", "Probe0", "", &[]),
            ],
        )
        .machine("B", &[("H", "Host", "Child", &[])])
        .machine("A", &[("S", "Probe1", "SendPing", &[])])
        .build(&[("a", "A"), ("b", "B")]);
    let mut s = scene(p.clone());
    s.tick(); // a sends Ping, delivered next tick
    // A message only the game knows, interned at run time, also in flight.
    s.send(AgentId(1), AgentId(0), "Wave");
    // A program with more names shifts every runtime-interned id; messages must be remapped.
    let bigger = Builder::default()
        .machine("Extra", &[("X", "Probe0", "", &[("Wave", "X")])])
        .machine(
            "Child",
            &[
                ("Wait", "Probe0", "", &[("Ping", "Got")]),
                ("Got", "Probe0", "", &[]),
            ],
        )
        .machine("B", &[("H", "Host", "Child", &[])])
        .machine("A", &[("S", "Probe1", "SendPing", &[])])
        .build(&[("a", "A"), ("b", "B")]);
    s.reload(bigger, "test").unwrap();
    trace(&mut s);
    s.tick();
    let t = trace(&mut s);
    assert!(t.contains(&"b:message Ping a->b true".to_string()), "{t:?}");
    assert!(
        t.contains(&"b:message Wave a->b false".to_string()),
        "{t:?}"
    );
}

#[test]
fn reload_leaves_a_host_whose_child_ended_childless() {
    // H hosts Child, which ends at once; H has no EndStateMachine transition, so it stays,
    // childless. Reloading the same program must not start the child again.
    let build = || {
        Builder::default()
            .machine(
                "Child",
                &[
                    ("Start", "Start", "", &[("Empty", "Finish")]),
                    ("Finish", "Finish", "", &[]),
                ],
            )
            .machine("Top", &[("H", "Host", "Child", &[])])
            .build(&[("a", "Top")])
    };
    let mut s = scene(build());
    s.tick();
    assert_eq!(active(&s), ["H"]);
    trace(&mut s);
    s.reload(build(), "same").unwrap();
    assert_eq!(trace(&mut s), ["reload kept=1 []"]);
    assert_eq!(active(&s), ["H"]);
}

/// Runs the machines its text modifier lists (`A,B`), one after the other, as children started
/// at run time; raises `AllDone` after the last, `Broke` when one fails.
struct Dyn {
    next: usize,
}

impl Dyn {
    fn start_next(&mut self, cx: &mut StateCx<'_, Log>) {
        let list: Vec<String> = cx
            .text()
            .unwrap_or("")
            .split(',')
            .map(str::to_string)
            .collect();
        match list.get(self.next) {
            Some(m) => {
                self.next += 1;
                let id = cx.program().machine_by_name(m).unwrap();
                cx.start_machine(id);
            }
            None => cx.raise("AllDone"),
        }
    }
}

impl StateCode<Log> for Dyn {
    fn init(&mut self, cx: &mut StateCx<'_, Log>) {
        self.start_next(cx);
    }
    fn save(&self, _program: &Program) -> Vec<u8> {
        crate::snapshot::encode(&(self.next as u64))
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        self.next = crate::snapshot::decode::<u64>(data)? as usize;
        Ok(())
    }
    fn on_child_ended(&mut self, cx: &mut StateCx<'_, Log>, failed: bool) -> bool {
        let s = format!("child ended failed={failed} child={:?}", cx.child());
        cx.game.0.push(s);
        if failed {
            cx.raise("Broke");
        } else {
            self.start_next(cx);
        }
        true
    }
    fn on_reload(&mut self, cx: &mut StateCx<'_, Log>, old: &Program) -> Option<String> {
        let child = cx
            .child()
            .map(|m| cx.program().name(cx.program().machine(m).name).to_string());
        let s = format!(
            "reloaded from {} machines, child {child:?}",
            old.machines.len()
        );
        cx.game.0.push(s);
        Some("Dyn kept its list".into())
    }
}

fn dynamic_program(second: &[StateRow<'_>]) -> Arc<Program> {
    dynamic_program_after(Builder::default(), second)
}

/// [`dynamic_program`] after the machines `b` already has.
fn dynamic_program_after(b: Builder, second: &[StateRow<'_>]) -> Arc<Program> {
    b.machine(
        "Top",
        &[
            ("Start", "Start", "", &[("Empty", "Run")]),
            (
                "Run",
                "Dyn",
                "One,Two",
                &[("AllDone", "Finish"), ("Broke", "Failed")],
            ),
            ("Finish", "Finish", "", &[]),
            ("Failed", "Fail", "", &[]),
        ],
    )
    .machine(
        "One",
        &[
            ("Start", "Start", "", &[("Empty", "W")]),
            ("W", "Probe1", "Go", &[("Go", "Finish")]),
            ("Finish", "Finish", "", &[]),
        ],
    )
    .machine("Two", second)
    .build(&[("a", "Top")])
}

const TWO_ENDS: &[StateRow<'static>] = &[
    ("Start", "Start", "", &[("Empty", "W")]),
    ("W", "Probe2", "Go", &[("Go", "Finish")]),
    ("Finish", "Finish", "", &[]),
];

#[test]
fn state_code_starts_children_and_hears_them_end() {
    let mut s = scene(dynamic_program(TWO_ENDS));
    for _ in 0..5 {
        s.tick();
    }
    let t = trace(&mut s);
    let enters: Vec<&String> = t.iter().filter(|x| x.contains("enter")).collect();
    assert!(enters.iter().any(|e| e.ends_with("enter One/W@1")), "{t:?}");
    assert!(enters.iter().any(|e| e.ends_with("enter Two/W@1")), "{t:?}");
    assert!(
        enters.last().unwrap().ends_with("enter Top/Finish@0"),
        "{t:?}"
    );
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Finished);
    let log = &s.game.0;
    // The host hears each end after the child's frames are gone.
    assert_eq!(
        log.iter()
            .filter(|l| l.starts_with("child ended"))
            .collect::<Vec<_>>(),
        [
            "child ended failed=false child=None",
            "child ended failed=false child=None"
        ]
    );
}

#[test]
fn a_failing_child_reaches_the_host_code_not_the_machine() {
    let p = dynamic_program(&[
        ("Start", "Start", "", &[("Empty", "Oops")]),
        ("Oops", "Fail", "", &[]),
    ]);
    let mut s = scene(p);
    for _ in 0..4 {
        s.tick();
    }
    let t = trace(&mut s);
    // The failure went to Dyn, which raised Broke: the machine failed on purpose, once.
    assert!(t.iter().any(|x| x.ends_with("enter Top/Failed@0")), "{t:?}");
    assert!(
        s.game
            .0
            .contains(&"child ended failed=true child=None".to_string())
    );
}

#[test]
fn machines_that_start_themselves_are_stopped_at_the_depth_limit() {
    let p = Builder::default()
        .machine(
            "Loop",
            &[
                ("Start", "Start", "", &[("Empty", "Again")]),
                ("Again", "Dyn", "Loop", &[]),
            ],
        )
        .build(&[("a", "Loop")]);
    let mut s = scene(p);
    s.tick();
    let t = trace(&mut s);
    assert!(
        t.iter()
            .any(|x| x.contains("error machines nested more than 32 deep")),
        "{t:?}"
    );
    assert!(matches!(s.status(AgentId(0)), AgentStatus::Halted(_)));
}

#[test]
fn reload_carries_a_started_child_by_name_and_tells_its_host() {
    let mut s = scene(dynamic_program(TWO_ENDS));
    s.tick();
    assert_eq!(active(&s), ["Run", "W"]);
    // The same program with a new, unused machine: everything maps by name.
    let p2 = dynamic_program_after(
        Builder::default().machine("Extra", &[("Start", "Start", "", &[])]),
        TWO_ENDS,
    );
    let r = s.reload(p2, "test").unwrap();
    assert_eq!(r.kept, 2);
    assert_eq!(r.fallbacks, ["a: Dyn kept its list"]);
    assert_eq!(active(&s), ["Run", "W"]);
    assert!(
        s.game
            .0
            .contains(&"reloaded from 3 machines, child Some(\"Two\")".to_string()),
        "{:?}",
        s.game.0
    );
    for _ in 0..5 {
        s.tick();
    }
    assert_eq!(s.status(AgentId(0)), &AgentStatus::Finished);
}

/// `agents` agents, each hosting a machine that cycles between two states, one transition every
/// update (`Probe1`) or every other update (`Probe2`): a scene that never goes quiet.
fn cycling(agents: usize, probe: &str) -> Arc<Program> {
    let names: Vec<String> = (0..agents).map(|i| format!("a{i}")).collect();
    let rows: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "Top")).collect();
    Builder::default()
        .machine(
            "M",
            &[
                ("A", probe, "Go", &[("Go", "B")]),
                ("B", probe, "Go", &[("Go", "A")]),
            ],
        )
        .machine("Top", &[("H", "Host", "M", &[])])
        .build(&rows)
}

#[test]
fn scenes_tick_on_threads_as_they_do_one_after_another() {
    let programs = [
        (cycling(3, "Probe1"), 1),
        (cycling(5, "Probe2"), 2),
        (cycling(2, "Probe1"), 3),
        (cycling(4, "Probe2"), 4),
    ];
    let start = |(p, seed): &(Arc<Program>, u64)| {
        Scene::new_traced(p.clone(), library(), "scene", Log::default(), *seed).unwrap()
    };
    // The trace and the world's log of 200 ticks.
    let run = |mut s: Scene<Log>| {
        let mut lines = trace(&mut s);
        for _ in 0..200 {
            s.tick();
            lines.extend(trace(&mut s));
        }
        (lines, std::mem::take(&mut s.game.0))
    };
    let one_after_another: Vec<_> = programs.iter().map(|p| run(start(p))).collect();
    // Started here, ticked on other threads: each scene moves with its library and world.
    let scenes: Vec<Scene<Log>> = programs.iter().map(start).collect();
    let in_parallel: Vec<_> = std::thread::scope(|threads| {
        let handles: Vec<_> = scenes
            .into_iter()
            .map(|s| threads.spawn(move || run(s)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (i, (seq, par)) in one_after_another.iter().zip(&in_parallel).enumerate() {
        assert!(seq.0.len() > 200, "scene {i} records its transitions");
        assert_eq!(seq, par, "scene {i}");
    }
    // The scenes differ, so equal traces are not the same trace four times.
    assert_ne!(one_after_another[0].0, one_after_another[1].0);
}

#[test]
fn a_scene_that_is_only_ticked_holds_no_trace() {
    let p = cycling(3, "Probe1");
    // The same scene records events when asked to: the bound below is not for want of them.
    let mut traced = scene(p.clone());
    traced.tick();
    assert!(traced.is_tracing());
    assert!(traced.events_waiting() >= 6, "{}", traced.events_waiting());

    let mut s = Scene::new(p, library(), "scene", Log::default(), 1).unwrap();
    assert!(!s.is_tracing());
    for _ in 0..100_000 {
        s.tick();
        // The test world's own log (not the trace) would grow otherwise.
        s.game.0.clear();
        assert_eq!(s.trace_capacity(), 0);
    }
    s.record_external(
        None,
        EventKind::Error {
            message: "from the game".into(),
        },
    );
    assert_eq!((s.events_waiting(), s.trace_capacity()), (0, 0));
    assert_eq!(s.tick_count(), 100_000);
    assert!(s.take_events().is_empty());

    // Switched on, it records (it is still cycling); switched off, what was not taken is
    // dropped and freed.
    let before = active(&s);
    s.set_tracing(true);
    s.tick();
    assert_ne!(active(&s), before);
    assert!(s.events_waiting() > 0);
    s.set_tracing(false);
    assert_eq!((s.events_waiting(), s.trace_capacity()), (0, 0));
}

// --- Savegames: the scene's part (`Scene::save`, `Scene::restore`) ---

/// A scene with hosting, a machine started at run time, a loop, and a message between agents:
/// `a` loops through Child (hosted), then Child twice (started by Dyn); `c` pings `b` once,
/// and `b` answers itself.
fn busy() -> Arc<Program> {
    Builder::default()
        .machine("Child", &CHILD)
        .machine(
            "Top",
            &[
                ("Start", "Start", "", &[("Empty", "H")]),
                ("H", "Host", "Child", &[("EndStateMachine", "D")]),
                ("D", "Dyn", "Child,Child", &[("AllDone", "Again")]),
                ("Again", "Probe2", "Loop", &[("Loop", "H")]),
            ],
        )
        .machine("Pinger", &[("S", "Probe1", "SendPing", &[])])
        .machine(
            "B",
            &[
                ("W", "Probe0", "", &[("Ping", "G")]),
                ("G", "Probe1", "Back", &[("Back", "W")]),
            ],
        )
        .build(&[("a", "Top"), ("c", "Pinger"), ("b", "B")])
}

fn json(s: &mut Scene<Log>) -> Vec<String> {
    s.take_events().iter().map(|e| e.to_json()).collect()
}

fn save(s: &Scene<Log>) -> crate::snapshot::SnapshotReader {
    let mut w = crate::snapshot::SnapshotWriter::new(s.program(), "busy");
    s.save(&mut w);
    crate::snapshot::SnapshotReader::from_bytes(&w.to_bytes()).unwrap()
}

/// Runs `n` ticks, saves, restores onto `onto`, runs `m` more: the restored run's events, and
/// the uninterrupted run's events after tick `n`.
fn interrupted(
    p: Arc<Program>,
    onto: Arc<Program>,
    n: u64,
    m: u64,
) -> (Vec<String>, Vec<String>, RestoreReport) {
    let mut whole = scene(p.clone());
    for _ in 0..n {
        whole.tick();
    }
    json(&mut whole);
    let snapshot = save(&whole);
    for _ in 0..m {
        whole.tick();
    }
    let (mut restored, report) =
        Scene::restore_traced(onto, library(), Log::default(), &snapshot).unwrap();
    for _ in 0..m {
        restored.tick();
    }
    (json(&mut restored), json(&mut whole), report)
}

#[test]
fn a_restored_scene_goes_on_as_the_uninterrupted_one() {
    // Saved with a message pending (tick 1), mid-child, and at a run-time started child.
    for n in [0, 1, 2, 3, 5, 8, 13] {
        let (restored, whole, report) = interrupted(busy(), busy(), n, 40);
        assert_eq!(restored, whole, "saved after tick {n}");
        assert!(report.fallbacks.is_empty(), "{report:?}");
        assert!(whole.len() > 40, "the scene does something: {whole:?}");
    }
}

#[test]
fn restoring_onto_an_edited_program_maps_by_name_and_reports_what_fell_back() {
    let renamed: [StateRow<'static>; 3] = [
        ("Start", "Start", "", &[("Empty", "Toil")]),
        ("Toil", "Probe2", "", &[("Go", "Finish")]),
        ("Finish", "Finish", "", &[]),
    ];
    let mut s = scene(two_level(&CHILD, false));
    s.tick();
    let snapshot = save(&s);
    let (mut r, report) = Scene::restore_traced(
        two_level(&renamed, false),
        library(),
        Log::default(),
        &snapshot,
    )
    .unwrap();
    assert_eq!(report.kept, 1);
    assert_eq!(
        report.fallbacks,
        ["a: state Child/Work no longer exists; Child restarts at its initial state"]
    );
    // The host kept its place; its child restarted, and the clock goes on from tick 1.
    assert_eq!(active(&r), ["H", "Toil"]);
    assert_eq!(r.tick_count(), 1);
    r.tick();
    assert_eq!(r.tick_count(), 2);
}

#[test]
fn a_root_machine_gone_from_the_program_halts_its_agent_and_says_so() {
    let mut s = scene(two_level(&CHILD, false));
    s.tick();
    let snapshot = save(&s);
    let other = Builder::default()
        .machine("Other", &[("S", "Probe0", "", &[])])
        .build(&[("a", "Other")]);
    let (r, report) = Scene::restore(other, library(), Log::default(), &snapshot).unwrap();
    assert_eq!(
        report.fallbacks,
        ["a: machine Top no longer exists; the agent stops"]
    );
    assert!(matches!(r.status(AgentId(0)), AgentStatus::Halted(_)));
}

/// State code whose saved data does not fit (another version of the game's code).
struct Picky;
impl StateCode<Log> for Picky {
    fn restore(&mut self, _program: &Program, _data: &[u8]) -> Result<(), String> {
        Err("saved by another version".into())
    }
}

#[test]
fn state_data_that_cannot_be_taken_back_enters_the_state_afresh() {
    let mut s = scene(two_level(&CHILD, false));
    s.tick();
    let snapshot = save(&s);
    let mut lib = library();
    lib.register("Probe2", StateSpec::new(ModifierKind::Text), || {
        Box::new(Picky)
    });
    let (mut r, report) =
        Scene::restore_traced(two_level(&CHILD, false), lib, Log::default(), &snapshot).unwrap();
    assert_eq!(
        report.fallbacks,
        [
            "a: state Child/Work could not take back its data (saved by another version); entered it afresh"
        ]
    );
    assert_eq!(trace(&mut r), ["a:enter Child/Work@1"]);
    assert_eq!(active(&r), ["H", "Work"]);
}

#[test]
fn default_hooks_refuse_data_they_cannot_restore() {
    let mut code: Box<dyn StateCode<Log>> = Box::new(Inert);
    let p = two_level(&CHILD, false);
    assert!(code.save(&p).is_empty());
    assert!(code.restore(&p, &[]).is_ok());
    assert!(code.restore(&p, &[1]).is_err());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
    /// Run N ticks, save, restore, run M more: the events equal the uninterrupted N+M run's
    /// events after tick N, line for line (the JSON lines `ensemble run` prints).
    #[test]
    fn save_restore_equals_the_uninterrupted_run(n in 0u64..60, m in 0u64..60) {
        let (restored, whole, report) = interrupted(busy(), busy(), n, m);
        proptest::prop_assert!(report.fallbacks.is_empty());
        proptest::prop_assert_eq!(restored, whole);
    }
}
