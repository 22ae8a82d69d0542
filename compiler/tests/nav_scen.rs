//! PPA* against the MovingAI reference data: every query's cost equals the listed optimal length
//! and every path is valid step by step (octile moves, no corner cutting). den312d, vendored in
//! `tests/data/movingai`, runs in the normal suite; the 512×512 maps are `#[ignore]`d and read
//! from `$ENSEMBLE_DATA` or `shared/data` beside the repository — run them in release:
//! `cargo test --release -p ensemble-compiler --test nav_scen -- --ignored`.

use ensemble_compiler::nav::movingai::{GridMap, read_map, read_scen, scenario_nodes};
use ensemble_compiler::nav::{BuildOptions, build};
use ensemble_runtime::nav::astar::astar;
use ensemble_runtime::nav::{NavData, Workspace};
use std::path::{Path, PathBuf};

/// Where `name`'s map and scenarios are: den312d is vendored in `tests/data/movingai`; the
/// 512×512 maps (for the ignored release tests) are read from `$ENSEMBLE_DATA/movingai`, else
/// `shared/data/movingai` beside the repository.
fn data_dir(name: &str) -> PathBuf {
    let vendored = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/movingai");
    if vendored.join(format!("{name}.map")).is_file() {
        return vendored;
    }
    let dir = std::env::var_os("ENSEMBLE_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/data"))
        .join("movingai");
    assert!(
        dir.join(format!("{name}.map")).is_file(),
        "the MovingAI map {name} is missing: expected it in {} (shared/data beside the \
         repository, or set ENSEMBLE_DATA to a shared/data folder)",
        dir.display()
    );
    dir
}

/// Checks one path cell by cell against the map itself (not the graph built from it).
fn check_steps(map: &GridMap, nav: &NavData, path: &[u32], start: (u32, u32), goal: (u32, u32)) {
    let grid = nav.graph.grid.as_ref().unwrap();
    let cells: Vec<(u32, u32)> = path.iter().map(|&v| grid.cell(v)).collect();
    assert_eq!(cells.first(), Some(&start));
    assert_eq!(cells.last(), Some(&goal));
    let open = |x: i64, y: i64| map.passable[(y * map.width as i64 + x) as usize];
    for w in cells.windows(2) {
        let (ax, ay) = (w[0].0 as i64, w[0].1 as i64);
        let (bx, by) = (w[1].0 as i64, w[1].1 as i64);
        let (dx, dy) = (bx - ax, by - ay);
        assert!(
            dx.abs() <= 1 && dy.abs() <= 1 && (dx, dy) != (0, 0),
            "jump {w:?}"
        );
        assert!(open(ax, ay) && open(bx, by), "blocked cell in {w:?}");
        if dx != 0 && dy != 0 {
            assert!(
                open(ax + dx, ay) && open(ax, ay + dy),
                "corner cut at {w:?}"
            );
        }
    }
}

/// Runs every scenario of `name`; returns (queries, total PPA* expansions, total A* expansions).
fn run_map(name: &str, leaf_size: u32, compare_astar: bool) -> (usize, u64, u64) {
    let dir = data_dir(name);
    let map_path = dir.join(format!("{name}.map"));
    let scen_path = dir.join(format!("{name}.map.scen"));
    let map = read_map(&map_path).unwrap();
    let scens = read_scen(&scen_path).unwrap();
    let options = BuildOptions {
        leaf_size,
        progress: false,
    };
    let (nav, _) = build(map.graph(), &options).unwrap();
    let mut ws = Workspace::new(nav.graph.node_count());
    let mut ws2 = Workspace::new(nav.graph.node_count());
    let (mut ppa, mut plain) = (0, 0);
    for s in &scens {
        let (a, b) = scenario_nodes(&scen_path, &nav.graph, s).unwrap();
        let r = nav
            .find_path(a, b, &mut ws)
            .unwrap()
            .unwrap_or_else(|| panic!("{name} line {}: no path", s.line));
        assert!(
            (r.cost - s.optimal).abs() < 1e-6,
            "{name} line {}: cost {} but optimal {}",
            s.line,
            r.cost,
            s.optimal
        );
        check_steps(&map, &nav, &r.path, s.start, s.goal);
        ppa += r.expanded;
        if compare_astar {
            let o = astar(&nav.graph, a, b, &mut ws2).unwrap().unwrap();
            assert!((o.cost - r.cost).abs() < 1e-9, "line {}", s.line);
            plain += o.expanded;
        }
    }
    (scens.len(), ppa, plain)
}

#[test]
fn den312d_every_scenario_is_optimal() {
    for leaf in [16, 64] {
        let (n, ppa, plain) = run_map("den312d", leaf, true);
        assert_eq!(n, 290);
        assert!(ppa < plain, "leaf {leaf}: PPA* expanded {ppa}, A* {plain}");
    }
}

#[test]
#[ignore = "512x512 maps: run in release"]
fn room_map_every_scenario_is_optimal() {
    for leaf in [1000, BuildOptions::default().leaf_size] {
        let (n, ppa, _) = run_map("64room_005", leaf, false);
        eprintln!("64room_005, leaf {leaf}: {n} scenarios, {ppa} expansions");
    }
}

#[test]
#[ignore = "512x512 maps: run in release"]
fn maze_every_scenario_is_optimal() {
    for leaf in [1000, BuildOptions::default().leaf_size] {
        let (n, ppa, _) = run_map("maze512-32-9", leaf, false);
        eprintln!("maze512-32-9, leaf {leaf}: {n} scenarios, {ppa} expansions");
    }
}

#[test]
#[ignore = "512x512 maps: run in release"]
fn boston_every_scenario_is_optimal() {
    for leaf in [1000, BuildOptions::default().leaf_size] {
        let (n, ppa, _) = run_map("Boston_0_512", leaf, false);
        eprintln!("Boston_0_512, leaf {leaf}: {n} scenarios, {ppa} expansions");
    }
}
