//! Planning benchmarks (docs/benchmarks/planning.md):
//! - MinMin on the funny dinner date (d = 10, H = 3/4, with and without 2-B): nodes per second
//!   next to Lozano et al.'s ~62,000 nodes/s.
//! - POP (achievers by scanning) versus A-POP (achiever index) on a scene with many operators.
//! - D-POP repair after a player action versus planning again from scratch (Inampudi's 3.8×).
//!
//! `cargo bench -p ensemble-runtime --bench plan`

use criterion::{Criterion, criterion_group, criterion_main};
use ensemble_runtime::plan::fixtures;
use ensemble_runtime::plan::minmin::{MinMinConfig, minmin};
use ensemble_runtime::plan::pop::{self, AchieverIndex, Achievers, PopConfig};
use ensemble_runtime::plan::search::{Limits, astar};
use ensemble_runtime::plan::{Heuristic, Operator, Task};
use std::hint::black_box;
use std::time::Instant;

/// An NPC must collect `items` items, each in a closed container (open, then take); every item
/// also has `noise` irrelevant affordances, so the action space is `items * (2 + noise)`.
fn collect_scene(items: usize, noise: usize) -> (Task, Vec<Operator>) {
    let mut b = Task::builder();
    let mut goal = Vec::new();
    for i in 0..items {
        b = b
            .op(
                &format!("Open(NPC, Box{i})"),
                &[&format!("!open{i}")],
                &[&format!("open{i}")],
                &[],
            )
            .op(
                &format!("Take(NPC, Item{i})"),
                &[&format!("open{i}")],
                &[&format!("has{i}")],
                &[],
            );
        for k in 0..noise {
            b = b.op(
                &format!("Fiddle{k}(NPC, Box{i})"),
                &[&format!("open{i}")],
                &[&format!("fiddled{i}_{k}")],
                &[],
            );
        }
        goal.push(format!("has{i}"));
    }
    let goal_refs: Vec<&str> = goal.iter().map(String::as_str).collect();
    let task = b.init(&[]).goal(&goal_refs).build();
    let player: Vec<Operator> = (0..items)
        .map(|i| {
            let mut o = Operator::new(format!("Open(Player, Box{i})"));
            o.add.push(task.fact_id(&format!("open{i}")).unwrap());
            o
        })
        .collect();
    (task, player)
}

fn bench_minmin(c: &mut Criterion) {
    let t = fixtures::funny_dinner_date();
    let s0 = t.initial_state();
    let mut g = c.benchmark_group("minmin/funny-dinner-date");
    for (h, two_b) in [(3, true), (4, true), (3, false), (4, false)] {
        for transpositions in [false, true] {
            let cfg = MinMinConfig {
                horizon: h,
                depth_bound: Some(10),
                second_bound: two_b,
                transpositions,
                max_nodes: None,
                ..MinMinConfig::default()
            };
            let r = minmin(&t, &s0, cfg);
            let start = Instant::now();
            let reps = 5;
            for _ in 0..reps {
                black_box(minmin(&t, &s0, cfg));
            }
            let secs = start.elapsed().as_secs_f64() / reps as f64;
            let name = format!(
                "H{h}-{}-{}",
                if two_b { "2B" } else { "no2B" },
                if transpositions { "tt" } else { "paper" }
            );
            eprintln!(
                "minmin {name}: length {:?}, {} nodes, {} evaluations, {:.4} s, {:.0} nodes/s",
                r.plan.as_ref().map(Vec::len),
                r.nodes,
                r.evaluations,
                secs,
                r.nodes as f64 / secs
            );
            g.bench_function(name, |b| b.iter(|| black_box(minmin(&t, &s0, cfg))));
        }
    }
    g.finish();
}

fn bench_astar(c: &mut Criterion) {
    let t = fixtures::funny_dinner_date();
    c.bench_function("astar-hmax/funny-dinner-date", |b| {
        b.iter(|| black_box(astar(&t, Heuristic::Max, Limits::default())))
    });
}

fn bench_pop(c: &mut Criterion) {
    let mut g = c.benchmark_group("pop");
    for (items, noise) in [(2, 2), (5, 3), (10, 8)] {
        let (t, _) = collect_scene(items, noise);
        let idx = AchieverIndex::build(&t);
        let s0 = t.initial_state();
        let n = t.operators.len();
        g.bench_function(format!("scan/{n}-operators"), |b| {
            b.iter(|| {
                black_box(pop::plan(
                    &t,
                    Achievers::Scan(&t),
                    &s0,
                    PopConfig::default(),
                ))
            })
        });
        g.bench_function(format!("index/{n}-operators"), |b| {
            b.iter(|| {
                black_box(pop::plan(
                    &t,
                    Achievers::Index(&idx),
                    &s0,
                    PopConfig::default(),
                ))
            })
        });
    }
    g.finish();
}

fn bench_repair(c: &mut Criterion) {
    let mut g = c.benchmark_group("dpop");
    for (items, noise) in [(2, 2), (5, 3), (10, 8)] {
        let (t, player) = collect_scene(items, noise);
        let idx = AchieverIndex::build(&t);
        let a = Achievers::Index(&idx);
        let cfg = PopConfig::default();
        let planned = pop::plan(&t, a, &t.initial_state(), cfg).plan.unwrap();
        // The player opens the last box while the NPC has done nothing yet.
        let ui = player[items - 1].clone();
        let now = ui.apply(&t.initial_state());
        let n = t.operators.len();
        g.bench_function(format!("repair/{n}-operators"), |b| {
            b.iter(|| {
                let mut p = planned.clone();
                let r = pop::player_action(&t, a, &mut p, ui.clone(), cfg);
                black_box((r, p))
            })
        });
        g.bench_function(format!("replan/{n}-operators"), |b| {
            b.iter(|| black_box(pop::plan(&t, a, &now, cfg)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench_minmin, bench_astar, bench_pop, bench_repair);
criterion_main!(benches);
