//! Cost of one frame for many agents, each running a three-level hierarchical machine: with
//! the trace off (what a game that only ticks gets), with the trace recorded and taken every
//! frame (what `ensemble run` and the editor pay), and the same 10,000 agents split into
//! independent scenes ticked one after another or on threads; and of saving and restoring that
//! scene (a savegame), with the snapshot's size.
//!
//! Anchor: the spine issue's goal of under 1 ms per frame for 10,000 agents on one core.
//! Reproduce: `cargo bench -p ensemble-runtime --bench tick` (`-- frame`, `-- scenes` or
//! `-- snapshot` for one group); the inspection protocol's cost:
//! `cargo bench -p ensemble-runtime --features inspect --bench tick -- inspect`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ensemble_runtime::hsm::{Scene, StateCode, StateCx, StateLibrary, StateSpec};
use ensemble_runtime::program::*;
use ensemble_runtime::snapshot::{SnapshotReader, SnapshotWriter, decode, encode};
use std::hint::black_box;
use std::sync::Arc;

/// Counts time and raises `Next` every `period` seconds: typical "wait, then move on" state.
struct Timer {
    t: f64,
    period: f64,
}

impl StateCode<()> for Timer {
    fn update(&mut self, cx: &mut StateCx<'_, ()>, dt: f64) {
        self.t += dt;
        if self.t >= self.period {
            self.t = 0.0;
            cx.raise("Next");
        }
    }
    fn save(&self, _program: &Program) -> Vec<u8> {
        encode(&self.t)
    }
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        self.t = decode(data)?;
        Ok(())
    }
}

/// Three levels: Top hosts Mid, Mid hosts Leaf; each level cycles between two states on its own
/// timer (leaf fastest), so transitions, child entry and cleanup all happen during the run.
fn program(agents: usize) -> Arc<Program> {
    let names: Vec<String> = [
        "Top",
        "Mid",
        "Leaf",
        "HostSlow",
        "HostMid",
        "TimerFast",
        "Next",
        "A",
        "B",
        "here",
        "s",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain((0..agents).map(|i| format!("agent{i}")))
    .collect();
    let n = |s: &str| NameId(names.iter().position(|x| x == s).unwrap() as u32);
    let library = vec![
        LibraryState {
            name: n("HostSlow"),
            modifier: ModifierKind::Machine,
            terminal: Terminal::No,
        },
        LibraryState {
            name: n("HostMid"),
            modifier: ModifierKind::Machine,
            terminal: Terminal::No,
        },
        LibraryState {
            name: n("TimerFast"),
            modifier: ModifierKind::None,
            terminal: Terminal::No,
        },
    ];
    let machines = vec![
        MachineDef {
            name: n("Top"),
            initial: StateId(0),
            first_state: 0,
            state_count: 2,
        },
        MachineDef {
            name: n("Mid"),
            initial: StateId(2),
            first_state: 2,
            state_count: 2,
        },
        MachineDef {
            name: n("Leaf"),
            initial: StateId(4),
            first_state: 4,
            state_count: 2,
        },
    ];
    let st = |name, machine, code, modifier, t| StateDef {
        name: n(name),
        machine: MachineId(machine),
        code: LibraryId(code),
        modifier,
        first_transition: t,
        transition_count: 1,
    };
    let states = vec![
        st("A", 0, 0, Modifier::Machine(MachineId(1)), 0),
        st("B", 0, 0, Modifier::Machine(MachineId(1)), 1),
        st("A", 1, 1, Modifier::Machine(MachineId(2)), 2),
        st("B", 1, 1, Modifier::Machine(MachineId(2)), 3),
        st("A", 2, 2, Modifier::None, 4),
        st("B", 2, 2, Modifier::None, 5),
    ];
    let tr = |target| TransitionDef {
        event: n("Next"),
        target: StateId(target),
    };
    let transitions = vec![tr(1), tr(0), tr(3), tr(2), tr(5), tr(4)];
    let agents = (0..agents)
        .map(|i| AgentDef {
            name: n(&format!("agent{i}")),
            machine: MachineId(0),
            start: LocationId(0),
        })
        .collect();
    let locations = vec![LocationDef {
        name: n("here"),
        x: 0.0,
        y: 0.0,
    }];
    let scenes = vec![SceneDef {
        name: n("s"),
        tick_rate: 60,
        agents,
        ambient: vec![],
    }];
    Arc::new(
        Program::new(
            names,
            library,
            machines,
            states,
            transitions,
            locations,
            scenes,
        )
        .unwrap(),
    )
}

fn library() -> StateLibrary<()> {
    let mut lib = StateLibrary::new();
    lib.register("HostSlow", StateSpec::new(ModifierKind::Machine), || {
        Box::new(Timer {
            t: 0.0,
            period: 10.0,
        })
    });
    lib.register("HostMid", StateSpec::new(ModifierKind::Machine), || {
        Box::new(Timer {
            t: 0.0,
            period: 3.0,
        })
    });
    lib.register("TimerFast", StateSpec::new(ModifierKind::None), || {
        Box::new(Timer {
            t: 0.0,
            period: 0.5,
        })
    });
    lib
}

/// A scene of `agents` agents in steady state (past the first 2 s), recording its trace or not.
fn steady_scene(agents: usize, tracing: bool) -> Scene<()> {
    let mut scene = Scene::new(program(agents), library(), "s", (), 1).unwrap();
    scene.set_tracing(tracing);
    for _ in 0..120 {
        scene.tick();
        scene.take_events();
    }
    scene
}

fn bench_tick(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame");
    for agents in [1_000usize, 10_000] {
        let mut scene = steady_scene(agents, false);
        group.bench_with_input(
            BenchmarkId::new("three_level_agents", agents),
            &agents,
            |b, _| {
                b.iter(|| {
                    scene.tick();
                    black_box(scene.tick_count());
                })
            },
        );
    }
    // A host that shows the trace: every event recorded, taken and dropped each frame.
    let agents = 10_000;
    let mut scene = steady_scene(agents, true);
    let frames = 600;
    let events: usize = (0..frames)
        .map(|_| {
            scene.tick();
            scene.take_events().len()
        })
        .sum();
    eprintln!(
        "tracing on, {agents} agents: {:.0} events per frame ({} bytes each, without their text)",
        events as f64 / frames as f64,
        std::mem::size_of::<ensemble_runtime::trace::TraceEvent>()
    );
    group.bench_with_input(
        BenchmarkId::new("three_level_agents_traced", agents),
        &agents,
        |b, _| {
            b.iter(|| {
                scene.tick();
                black_box(scene.take_events());
            })
        },
    );
    group.finish();
}

/// Saving (scene section and container, the program's checksum included) and restoring (reading,
/// checking, mapping every stack by name, state data back) a steady-state scene.
fn bench_snapshot(c: &mut Criterion) {
    let mut group = c.benchmark_group("snapshot");
    for agents in [1_000usize, 10_000] {
        let program = program(agents);
        let mut scene = Scene::new(program.clone(), library(), "s", (), 1).unwrap();
        scene.set_tracing(false);
        for _ in 0..120 {
            scene.tick();
        }
        let save = || {
            let mut w = SnapshotWriter::new(&program, "bench");
            scene.save(&mut w);
            w.to_bytes()
        };
        let bytes = save();
        println!(
            "snapshot of {agents} agents: {} bytes ({:.1} per agent)",
            bytes.len(),
            bytes.len() as f64 / agents as f64
        );
        group.bench_with_input(BenchmarkId::new("save", agents), &agents, |b, _| {
            b.iter(|| black_box(save().len()))
        });
        group.bench_with_input(BenchmarkId::new("restore", agents), &agents, |b, _| {
            b.iter(|| {
                let r = SnapshotReader::from_bytes(&bytes).unwrap();
                let (s, _) = Scene::restore(program.clone(), library(), (), &r).unwrap();
                black_box(s.tick_count())
            })
        });
    }
    group.finish();
}

/// 10,000 agents split into `n` independent scenes, ticked one after another on this thread or
/// spread over the machine's cores (one scoped thread per core each frame, this thread taking
/// one share itself), so the parallel figure includes starting the threads.
fn bench_scenes(c: &mut Criterion) {
    let mut group = c.benchmark_group("scenes");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    eprintln!("scenes ticked on {cores} threads");
    for n in [2usize, 4] {
        let mut scenes: Vec<Scene<()>> = (0..n).map(|_| steady_scene(10_000 / n, false)).collect();
        group.bench_with_input(BenchmarkId::new("sequential", n), &n, |b, _| {
            b.iter(|| {
                for scene in &mut scenes {
                    scene.tick();
                }
                black_box(scenes[0].tick_count());
            })
        });
        group.bench_with_input(BenchmarkId::new("parallel", n), &n, |b, _| {
            b.iter(|| {
                let share = scenes.len().div_ceil(cores);
                std::thread::scope(|threads| {
                    let mut shares = scenes.chunks_mut(share);
                    let own = shares.next();
                    for rest in shares {
                        threads.spawn(move || rest.iter_mut().for_each(Scene::tick));
                    }
                    own.into_iter().flatten().for_each(Scene::tick);
                });
                black_box(scenes[0].tick_count());
            })
        });
    }
    group.finish();
}

/// What the inspection protocol costs a frame of 10,000 traced agents: the frame alone (tick
/// and take the events: what a game with the feature off pays, as the feature adds no code to
/// the tick), with an inspector and no tool attached, and with one tool streaming the trace
/// (a thread reading and discarding it, as `ensemble attach --trace json` does).
#[cfg(feature = "inspect")]
fn bench_inspect(c: &mut Criterion) {
    use ensemble_runtime::hsm::ReloadReport;
    use ensemble_runtime::inspect::protocol::{ActiveState, AgentSnapshot};
    use ensemble_runtime::inspect::{Inspected, Inspector, InspectorOptions};
    use std::io::{Read, Write};

    /// A bare scene as the protocol sees it.
    struct Game<'a>(&'a mut Scene<()>);
    impl Inspected for Game<'_> {
        fn program_name(&self) -> &str {
            "bench"
        }
        fn program(&self) -> &Program {
            self.0.program()
        }
        fn scene_name(&self) -> &str {
            "s"
        }
        fn tick_count(&self) -> u64 {
            self.0.tick_count()
        }
        fn agent_names(&self) -> Vec<String> {
            self.0
                .agents()
                .map(|a| self.0.agent_name(a).to_string())
                .collect()
        }
        fn snapshot(&self) -> Vec<AgentSnapshot> {
            let program = self.0.program();
            self.0
                .agents()
                .map(|a| AgentSnapshot {
                    name: self.0.agent_name(a).to_string(),
                    states: self
                        .0
                        .active_states(a)
                        .into_iter()
                        .map(|s| {
                            let def = program.state(s);
                            ActiveState {
                                machine: program.name(program.machine(def.machine).name).into(),
                                state: program.name(def.name).into(),
                            }
                        })
                        .collect(),
                    ..AgentSnapshot::default()
                })
                .collect()
        }
        fn reload(&mut self, program: Program) -> Result<ReloadReport, String> {
            self.0
                .reload(Arc::new(program), "pushed")
                .map_err(|e| e.to_string())
        }
        fn reject_reload(&mut self, reason: String) {
            self.0.reject_reload(reason);
        }
        fn set_variable(&mut self, _: &str, _: &str, _: &str) -> Result<(), String> {
            Err("the bench's world has no variables".into())
        }
    }

    let agents = 10_000;
    let mut group = c.benchmark_group("inspect");
    let mut scene = steady_scene(agents, true);
    group.bench_with_input(BenchmarkId::new("frame", agents), &agents, |b, _| {
        b.iter(|| {
            scene.tick();
            black_box(scene.take_events());
        })
    });
    let mut inspector = Inspector::bind("127.0.0.1:0", InspectorOptions::default()).unwrap();
    let frame = |scene: &mut Scene<()>, inspector: &mut Inspector| {
        scene.tick();
        let events = scene.take_events();
        black_box(inspector.frame(&mut Game(scene), &events));
    };
    group.bench_with_input(BenchmarkId::new("no_tool", agents), &agents, |b, _| {
        b.iter(|| frame(&mut scene, &mut inspector))
    });
    let address = inspector.address();
    let tool = std::thread::spawn(move || {
        let mut stream = std::net::TcpStream::connect(address).unwrap();
        stream
            .write_all(b"{\"type\":\"hello\",\"version\":1,\"trace\":true}\n")
            .unwrap();
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0u64;
        while let Ok(n) = stream.read(&mut buf) {
            if n == 0 {
                break;
            }
            total += n as u64;
        }
        total
    });
    while inspector.clients() == 0 {
        frame(&mut scene, &mut inspector);
    }
    let mut frames = 0u64;
    group.bench_with_input(
        BenchmarkId::new("one_tool_streaming", agents),
        &agents,
        |b, _| {
            b.iter(|| {
                frames += 1;
                frame(&mut scene, &mut inspector)
            })
        },
    );
    group.finish();
    let dropped = inspector.dropped();
    drop(inspector);
    let bytes = tool.join().unwrap();
    eprintln!(
        "one tool streaming: {bytes} bytes over {frames} frames ({:.0} per frame), tools dropped: {dropped}",
        bytes as f64 / frames.max(1) as f64
    );
}

#[cfg(not(feature = "inspect"))]
fn bench_inspect(_: &mut Criterion) {}

criterion_group!(
    benches,
    bench_tick,
    bench_scenes,
    bench_snapshot,
    bench_inspect
);
criterion_main!(benches);
