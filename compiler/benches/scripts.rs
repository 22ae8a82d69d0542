//! Cost per tick of many concurrent interaction scripts: the bench script of Skubch's chapter
//! (compiled from samples/bench) with three participants per instance, actions completed by a
//! simple timer as the simulator does.
//!
//! Anchor: the goal, 10,000 concurrent scripts under 5 ms per tick on one core.
//! Reproduce: `cargo bench -p ensemble-compiler --bench scripts`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ensemble_runtime::Program;
use ensemble_runtime::rng::Rng;
use ensemble_runtime::script::instance::World;
use ensemble_runtime::script::{ActionOutcome, Fact, ScriptInstance, Value};
use std::path::Path;
use std::time::Instant;

const DT: f64 = 1.0 / 30.0;

struct Population {
    program: Program,
    instances: Vec<ScriptInstance>,
    /// (instance, action id, ends at)
    actions: Vec<(usize, u64, f64)>,
    now: f64,
    rng: Rng,
    events: Vec<ensemble_runtime::script::ScriptEvent>,
    requests: Vec<ensemble_runtime::script::ActionRequest>,
    finished: Vec<Vec<(u64, ActionOutcome)>>,
}

impl Population {
    fn new(count: usize) -> Self {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/bench");
        let c = ensemble_compiler::compile_path(&root).expect("sample loads");
        let (program, _) = c.output.expect("sample compiles");
        let def = &program.scripts[0];
        let name = |n: &str| program.name_id(n).expect("name in program");
        let (elder, tourist) = (
            def.role_by_name(name("elder")).unwrap(),
            def.role_by_name(name("tourist")).unwrap(),
        );
        let seat = name("seat");
        let supplied = [
            Fact {
                predicate: seat,
                args: vec![Value::Sym(name("seat1"))],
            },
            Fact {
                predicate: seat,
                args: vec![Value::Sym(name("seat2"))],
            },
        ];
        let mut events = Vec::new();
        let instances = (0..count)
            .map(|i| {
                let mut inst = ScriptInstance::new(0, &supplied, 7, i as u64);
                inst.join(def, 0, name("elder"), elder, &mut events);
                inst.join(def, 1, name("tourist1"), tourist, &mut events);
                inst.join(def, 2, name("tourist2"), tourist, &mut events);
                inst
            })
            .collect();
        Population {
            program,
            instances,
            actions: Vec::new(),
            now: 0.0,
            rng: Rng::new(1, 1),
            events,
            requests: Vec::new(),
            finished: vec![Vec::new(); count],
        }
    }

    fn tick(&mut self) {
        self.now += DT;
        let now = self.now;
        self.actions.retain(|(i, id, end)| {
            if *end <= now {
                self.finished[*i].push((*id, ActionOutcome::Succeeded));
                false
            } else {
                true
            }
        });
        let def = &self.program.scripts[0];
        let world = World {
            now,
            distance: &|_, _| None,
        };
        for (i, inst) in self.instances.iter_mut().enumerate() {
            self.events.clear();
            self.requests.clear();
            inst.update(
                def,
                &world,
                &self.finished[i],
                &mut self.events,
                &mut self.requests,
            );
            self.finished[i].clear();
            for r in &self.requests {
                self.actions
                    .push((i, r.id, now + self.rng.range_f64(1.5, 3.0)));
            }
        }
    }

    fn rule_evaluations(&self) -> u64 {
        self.instances.iter().map(|i| i.rule_evaluations).sum()
    }
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("scripts");
    for count in [1_000usize, 10_000] {
        let mut pop = Population::new(count);
        // Warm up into the steady state: everyone seated and talking.
        for _ in 0..300 {
            pop.tick();
        }
        // Rule evaluations per second, measured over a stretch of steady-state ticks.
        let (before, t0) = (pop.rule_evaluations(), Instant::now());
        for _ in 0..60 {
            pop.tick();
        }
        let rate = (pop.rule_evaluations() - before) as f64 / t0.elapsed().as_secs_f64();
        eprintln!(
            "scripts/{count}: {:.1} M rule evaluations per second",
            rate / 1e6
        );
        group.bench_with_input(
            BenchmarkId::new("tick_three_participants", count),
            &count,
            |b, _| b.iter(|| pop.tick()),
        );
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
