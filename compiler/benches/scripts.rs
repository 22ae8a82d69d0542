//! Cost per tick of many concurrent interaction scripts: the bench script of Skubch's chapter
//! (compiled from samples/bench) with three participants per instance, actions completed by a
//! simple timer as the simulator does.
//!
//! Anchor: the goal, 10,000 concurrent scripts under 5 ms per tick on one core.
//! Reproduce: `cargo bench -p ensemble-compiler --bench scripts`.

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

    fn rule_skips(&self) -> u64 {
        self.instances.iter().map(|i| i.rule_skips).sum()
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Nanoseconds this thread has spent on a CPU (Linux: `/proc/thread-self/schedstat`). Unlike
/// wall-clock time it does not count time the thread waited while other processes ran, so the
/// mean over many ticks stays meaningful on a loaded machine; `None` elsewhere.
fn cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

/// A fixed workload, not criterion's open-ended iteration: the simulation is stateful, and
/// running it for arbitrarily many ticks would end every script (timers run out after 2–5
/// minutes of scene time) and then time empty updates. So: 10 s of warm-up, then 600 ticks
/// (20 s of scene time, everyone seated and talking) timed one by one in wall-clock time, and
/// as a whole in on-CPU time.
fn main() {
    println!("interaction scripts, bench script with three participants each, 30 ticks/s:");
    // `SCRIPTS=1000` runs one population only (for profilers such as callgrind).
    let counts: Vec<usize> = match std::env::var("SCRIPTS") {
        Ok(v) => v.split(',').filter_map(|c| c.trim().parse().ok()).collect(),
        Err(_) => vec![1_000, 10_000],
    };
    for count in counts {
        let mut pop = Population::new(count);
        for _ in 0..300 {
            pop.tick();
        }
        let (before, skips_before) = (pop.rule_evaluations(), pop.rule_skips());
        let mut wall = Vec::with_capacity(600);
        let cpu_before = cpu_ns();
        for _ in 0..600 {
            let t = Instant::now();
            pop.tick();
            wall.push(t.elapsed().as_secs_f64() * 1e3);
        }
        let cpu = cpu_before.zip(cpu_ns()).map(|(a, b)| (b - a) as f64 / 1e9);
        let evaluated = pop.rule_evaluations() - before;
        let skipped = pop.rule_skips() - skips_before;
        let running = pop.instances.iter().filter(|i| !i.ended()).count();
        let wall_total: f64 = wall.iter().sum::<f64>() / 1e3;
        wall.sort_by(f64::total_cmp);
        println!(
            "  {count:>6} scripts ({running} still running): wall tick median {:.3} ms, p99 {:.3} ms, worst {:.3} ms; {:.2} M rule evaluations per wall second",
            percentile(&wall, 0.5),
            percentile(&wall, 0.99),
            wall[wall.len() - 1],
            evaluated as f64 / wall_total / 1e6,
        );
        // The scheduler accounts on-CPU time at its own tick, so only the total is exact enough.
        if let Some(cpu) = cpu {
            println!(
                "          on-CPU mean {:.3} ms per tick; {:.2} M rule evaluations per CPU second",
                cpu / 600.0 * 1e3,
                evaluated as f64 / cpu / 1e6,
            );
        }
        println!(
            "          per tick {:.0} rules evaluated, {:.0} skipped as known to fail",
            evaluated as f64 / 600.0,
            skipped as f64 / 600.0,
        );
    }
}
