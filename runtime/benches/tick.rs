//! Cost of one frame for many agents, each running a three-level hierarchical machine: with
//! the trace off (what a game that only ticks gets), with the trace recorded and taken every
//! frame (what `ensemble run` and the editor pay), and the same 10,000 agents split into
//! independent scenes ticked one after another or on threads; and of saving and restoring that
//! scene (a savegame), with the snapshot's size.
//!
//! Anchor: the spine issue's goal of under 1 ms per frame for 10,000 agents on one core.
//! Reproduce: `cargo bench -p ensemble-runtime --bench tick` (`-- frame`, `-- scenes` or
//! `-- snapshot` for one group).

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

criterion_group!(benches, bench_tick, bench_scenes, bench_snapshot);
criterion_main!(benches);
