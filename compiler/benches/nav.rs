//! PPA* against plain A* and contraction hierarchies (`fast_paths`) on the same MovingAI
//! queries, in one run: median and 99th-percentile query time and expansions, precomputation
//! time and memory, and the cost of a dynamic update after an edge deletion.
//!
//! Anchors (Hewlett 2013, Table 4.1, 205k-node room map): PPA* 1.4 ms, 53 expansions, 176 MB,
//! 213 s precompute; Sturtevant 54 ms; 0.197 s per edge-deletion update. Goal (issue 7): at
//! least 20× faster than our plain A*, precompute under 60 s, memory under 176 MB.
//!
//! Reproduce: `cargo bench -p ensemble-compiler --bench nav` (maps from shared/data/movingai;
//! `NAV_MAPS=64room_005,Boston_0_512`, `NAV_LEAF=128` override the defaults). Not a criterion
//! benchmark: percentiles over a fixed query set are the figures wanted, so it times each query.

use ensemble_compiler::nav::movingai::{read_map, read_scen, scenario_nodes};
use ensemble_compiler::nav::{BuildOptions, build};
use ensemble_runtime::nav::Workspace;
use ensemble_runtime::nav::astar::astar;
use ensemble_runtime::nav::cost::Metric;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn data_dir() -> PathBuf {
    std::env::var_os("ENSEMBLE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"))
        .join("movingai")
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

fn peak_rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing: run a tiny smoke test.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let maps = std::env::var("NAV_MAPS").unwrap_or_else(|_| {
        if smoke {
            "den312d"
        } else {
            "64room_005,Boston_0_512"
        }
        .to_string()
    });
    let leaves: Vec<u32> = std::env::var("NAV_LEAF")
        .unwrap_or_else(|_| format!("1000,{}", BuildOptions::default().leaf_size))
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    println!(
        "| map | method | query median | query p99 | expansions median | expansions p99 | precompute | memory |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- |");
    for name in maps.split(',') {
        run_map(name.trim(), &leaves, smoke);
    }
    println!("\npeak RSS of the whole run: {:.0} MiB", peak_rss_mib());
}

struct Timings {
    micros: Vec<f64>,
    expanded: Vec<f64>,
}

impl Timings {
    fn new() -> Timings {
        Timings {
            micros: Vec::new(),
            expanded: Vec::new(),
        }
    }
}

fn run_map(name: &str, leaves: &[u32], smoke: bool) {
    let dir = data_dir();
    let scen_path = dir.join(format!("{name}.map.scen"));
    let map = read_map(&dir.join(format!("{name}.map"))).expect("map");
    let scens = read_scen(&scen_path).expect("scen");
    let graph = map.graph();
    let n = graph.node_count();

    // Contraction hierarchies: integer weights, straight 1e6, diagonal round(√2·1e6).
    let t = Instant::now();
    let mut input = fast_paths::InputGraph::new();
    for v in 0..n {
        for (w, c) in graph.neighbors(v) {
            let weight = if c == Metric::STRAIGHT {
                1_000_000
            } else {
                1_414_214
            };
            input.add_edge(v as usize, w as usize, weight);
        }
    }
    input.freeze();
    let ch = fast_paths::prepare(&input);
    let ch_secs = t.elapsed().as_secs_f64();
    // FastGraphEdge: five usize fields (not exported, so spelled out); plus per-node arrays.
    let ch_bytes = (ch.get_num_out_edges() + ch.get_num_in_edges()) * 40 + 3 * 8 * n as usize;
    let mut calc = fast_paths::create_calculator(&ch);

    let mut navs = Vec::new();
    for &leaf in leaves {
        let rss = peak_rss_mib();
        let (nav, report) = build(
            graph.clone(),
            &BuildOptions {
                leaf_size: leaf,
                progress: false,
            },
        )
        .expect("build");
        navs.push((leaf, nav, report, peak_rss_mib() - rss));
    }
    let queries: Vec<(u32, u32, f64)> = scens
        .iter()
        .take(if smoke { 20 } else { usize::MAX })
        .map(|s| {
            let (a, b) = scenario_nodes(&scen_path, &graph, s).expect("scenario");
            (a, b, s.optimal)
        })
        .collect();
    let mut ws = Workspace::new(n);
    // Warm up caches and the allocator on every method.
    for &(a, b, _) in &queries {
        for (_, nav, ..) in &navs {
            black_box(nav.find_path(a, b, &mut ws).unwrap());
        }
        black_box(calc.calc_path(&ch, a as usize, b as usize));
    }
    let mut ppa: Vec<Timings> = navs.iter().map(|_| Timings::new()).collect();
    let (mut plain, mut ch_t) = (Timings::new(), Vec::new());
    // One query at a time through every method, so that load on the machine hits all alike.
    for &(a, b, optimal) in &queries {
        for (i, (_, nav, ..)) in navs.iter().enumerate() {
            let t = Instant::now();
            let r = black_box(nav.find_path(a, b, &mut ws).unwrap().unwrap());
            ppa[i].micros.push(t.elapsed().as_secs_f64() * 1e6);
            ppa[i].expanded.push(r.expanded as f64);
            assert!((r.cost - optimal).abs() < 1e-6, "PPA* not optimal");
        }
        let t = Instant::now();
        let o = black_box(astar(&graph, a, b, &mut ws).unwrap().unwrap());
        plain.micros.push(t.elapsed().as_secs_f64() * 1e6);
        plain.expanded.push(o.expanded as f64);
        assert!((o.cost - optimal).abs() < 1e-6, "A* not optimal");

        let t = Instant::now();
        let p = black_box(calc.calc_path(&ch, a as usize, b as usize));
        ch_t.push(t.elapsed().as_secs_f64() * 1e6);
        assert!(p.is_some());
    }
    let ms = |us: f64| format!("{:.3} ms", us / 1000.0);
    let mib = |b: usize| format!("{:.1} MiB", b as f64 / (1024.0 * 1024.0));
    let (am, ap) = (pct(&mut plain.micros, 0.5), pct(&mut plain.micros, 0.99));
    let (aem, aep) = (
        pct(&mut plain.expanded, 0.5),
        pct(&mut plain.expanded, 0.99),
    );
    println!(
        "| {name} ({} queries) | plain A* | {} | {} | {aem:.0} | {aep:.0} | — | {} (graph) |",
        queries.len(),
        ms(am),
        ms(ap),
        mib(graph.heap_bytes()),
    );
    println!(
        "| | fast_paths (CH) | {} | {} | n/a | n/a | {ch_secs:.1} s | {} (edges, est.) |",
        ms(pct(&mut ch_t, 0.5)),
        ms(pct(&mut ch_t, 0.99)),
        mib(ch_bytes),
    );
    for (i, (leaf, nav, report, rss)) in navs.iter_mut().enumerate() {
        let t = &mut ppa[i];
        let (pm, pp) = (pct(&mut t.micros, 0.5), pct(&mut t.micros, 0.99));
        let (em, ep) = (pct(&mut t.expanded, 0.5), pct(&mut t.expanded, 0.99));
        println!(
            "| | PPA*, leaf ≤ {leaf} ({} leaves, {} levels) | {} | {} | {em:.0} | {ep:.0} | {:.1} s (METIS {:.1} s + tables {:.1} s) | {} (peak RSS +{rss:.0} MiB) |",
            report.leaves,
            report.levels,
            ms(pm),
            ms(pp),
            report.partition_secs + report.tables_secs,
            report.partition_secs,
            report.tables_secs,
            mib(report.data_bytes),
        );
        println!(
            "| | → PPA* vs A* | {:.1}× faster | {:.1}× faster | {:.0}× fewer | | | |",
            am / pm,
            ap / pp,
            aem / em.max(1.0),
        );
        // Dynamic update: delete random edges (deterministic LCG), time each table refresh.
        let deletions = if smoke { 3 } else { 100 };
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut times = Vec::new();
        let mut recomputed = 0u32;
        while times.len() < deletions {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = ((x >> 33) % n as u64) as u32;
            let Some((v, _)) = nav.graph.neighbors(u).next() else {
                continue;
            };
            let t = Instant::now();
            let r = nav.remove_edge(u, v).unwrap();
            times.push(t.elapsed().as_secs_f64());
            recomputed += r.recomputed;
        }
        let mean = times.iter().sum::<f64>() / times.len() as f64;
        println!(
            "| | → edge deletion ({deletions} random) | mean {:.1} ms | p99 {:.1} ms | {:.1} tables recomputed per deletion | | | |",
            mean * 1000.0,
            pct(&mut times, 0.99) * 1000.0,
            recomputed as f64 / deletions as f64
        );
    }
}
