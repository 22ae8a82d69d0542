//! What planning costs an agent in a scene, on the samples as compiled (docs/benchmarks/planning.md,
//! "Planning agents in scenes"):
//! - Hewlett's traveller (Fig. 2.3): the first plan and the replan from the wrong gate, on the
//!   shared precomputed planning graph versus A* (h_max, and blind) on the grounded task;
//! - Inampudi's shop (T9): the NPC's D-POP repair when the player opens the door, versus
//!   planning again from scratch from the same state;
//! - compiling the traveller's action list (planning graph included) as part of the project.
//!
//! `cargo bench -p ensemble-compiler --bench plan_agents`

use criterion::{Criterion, criterion_group, criterion_main};
use ensemble_runtime::plan::agent::Executive;
use ensemble_runtime::plan::section::{Planner, ProblemDef};
use ensemble_runtime::plan::{Heuristic, State};
use ensemble_runtime::program::Program;
use std::hint::black_box;
use std::path::Path;

fn sample(name: &str) -> Program {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../samples")
        .join(name);
    ensemble_compiler::compile_path(&path)
        .unwrap()
        .output
        .expect("the sample compiles")
        .0
}

fn problem(p: &Program, name: &str) -> ProblemDef {
    let id = p.name_id(name).unwrap();
    p.planning.problems[p.planning.problem_by_name(id).unwrap() as usize].clone()
}

/// The traveller's belief after she finds the gate changed (the second seed).
fn wrong_gate(def: &ProblemDef) -> State {
    let t = &def.task;
    t.state_of(
        [
            "Has_Ticket=1",
            "Location=WrongGate",
            "Time=0",
            "Traveled=0",
            "Know=0",
        ]
        .iter()
        .map(|f| t.fact_id(f).unwrap()),
    )
}

fn bench_traveller(c: &mut Criterion) {
    let graph = problem(&sample("airport"), "CatchFlight");
    let mut g = c.benchmark_group("traveller");
    let planners = [
        ("graph", Planner::Graph),
        ("astar-hmax", Planner::AStar(Heuristic::Max)),
        ("astar-blind", Planner::AStar(Heuristic::Blind)),
    ];
    for (label, planner) in planners {
        let def = ProblemDef {
            planner,
            ..graph.clone()
        };
        for (from, state) in [
            ("start", def.task.initial_state()),
            ("wrong-gate", wrong_gate(&def)),
        ] {
            let mut ex = Executive::new(state.clone());
            let d = ex.start(&def);
            eprintln!("traveller {label} from {from}: {:?}", d.notes);
            g.bench_function(format!("{label}/{from}"), |b| {
                b.iter(|| {
                    let mut ex = Executive::new(state.clone());
                    black_box(ex.start(&def))
                })
            });
        }
    }
    g.finish();
}

fn bench_shop(c: &mut Criterion) {
    let def = problem(&sample("weapon-shop"), "BuySword");
    let t = &def.task;
    let open = def
        .external
        .iter()
        .find(|o| o.name == "Open(player, shopdoor)")
        .unwrap()
        .clone();
    let mut planned = Executive::new(t.initial_state());
    planned.start(&def);
    let mut after = t.initial_state();
    open.apply_in_place(&mut after);
    let mut g = c.benchmark_group("shop");
    g.bench_function("dpop-repair", |b| {
        b.iter(|| {
            let mut ex = planned.clone();
            black_box(ex.noticed(&def, &open, &after))
        })
    });
    g.bench_function("pop-from-scratch", |b| {
        b.iter(|| {
            let mut ex = Executive::new(after.clone());
            black_box(ex.start(&def))
        })
    });
    g.finish();
}

fn bench_compile(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/weapon-shop");
    let mut g = c.benchmark_group("compile");
    g.sample_size(20);
    g.bench_function("weapon-shop-project", |b| {
        b.iter(|| {
            black_box(
                ensemble_compiler::compile_path(&path)
                    .unwrap()
                    .output
                    .is_some(),
            )
        })
    });
    let dd = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/dinner-date");
    g.bench_function("dinner-date-project", |b| {
        b.iter(|| {
            black_box(
                ensemble_compiler::compile_path(&dd)
                    .unwrap()
                    .output
                    .is_some(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench_traveller, bench_shop, bench_compile);
criterion_main!(benches);
