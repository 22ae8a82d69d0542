//! Property tests: PPA* returns the cost plain A* returns — on random octile grids and random
//! weighted graphs, for random leaf sizes, after random edge deletions and after putting the
//! deleted edges back (dynamic update), and with several goals — and every path it returns is
//! a real path from start to goal.

use ensemble_compiler::nav::movingai::GridMap;
use ensemble_compiler::nav::{BuildOptions, build};
use ensemble_runtime::nav::astar::{astar, astar_multi};
use ensemble_runtime::nav::cost::Metric;
use ensemble_runtime::nav::{Graph, NavData, Workspace};
use proptest::prelude::*;

fn check_path(nav: &NavData, start: u32, goal: u32, path: &[u32], cost: f64) {
    assert_eq!(path.first(), Some(&start));
    assert_eq!(path.last(), Some(&goal));
    let walked = nav
        .graph
        .path_cost(path)
        .expect("every step is a live edge");
    assert!((walked - cost).abs() < 1e-9);
}

/// Builds, answers `queries`, deletes `deletions` edges one by one (updating the tables),
/// answering the queries again after each, then restores them in another order; compares with
/// A* every time.
fn compare(graph: Graph, leaf: u32, queries: &[(u32, u32)], deletions: &[(u32, usize)]) {
    let n = graph.node_count();
    if n == 0 {
        return;
    }
    let options = BuildOptions {
        leaf_size: leaf,
        progress: false,
    };
    let (mut nav, _) = build(graph, &options).unwrap();
    let mut ws = Workspace::new(n);
    let mut ws2 = Workspace::new(n);
    let mut round = |nav: &NavData| {
        for &(a, b) in queries {
            let (a, b) = (a % n, b % n);
            let p = nav.find_path(a, b, &mut ws).unwrap();
            let o = astar(&nav.graph, a, b, &mut ws2).unwrap();
            match (p, o) {
                (None, None) => {}
                (Some(p), Some(o)) => {
                    assert!(
                        (p.cost - o.cost).abs() < 1e-9,
                        "{a}->{b}: PPA* {} vs A* {}",
                        p.cost,
                        o.cost
                    );
                    check_path(nav, a, b, &p.path, p.cost);
                }
                (p, o) => panic!("{a}->{b}: PPA* {p:?} vs A* {o:?}"),
            }
        }
    };
    round(&nav);
    let mut removed = Vec::new();
    for &(u, k) in deletions {
        let u = u % n;
        let neighbours: Vec<(u32, u32)> = nav.graph.neighbors(u).collect();
        if neighbours.is_empty() {
            continue;
        }
        let (v, cost) = neighbours[k % neighbours.len()];
        let cost = nav.graph.edge_cost(u, v).unwrap_or(cost);
        let report = nav.remove_edge(u, v).unwrap();
        assert!(report.removed);
        removed.push((u, v, cost));
        round(&nav);
    }
    // Put them back, every other one first (a door that reopens).
    removed.sort_by_key(|&(u, v, _)| (u ^ v) & 1);
    for (u, v, cost) in removed {
        let report = nav.restore_edge(u, v, cost).unwrap();
        assert!(report.removed, "{u}-{v} was removed, so it can be restored");
        round(&nav);
    }
    let fresh = build(nav.graph.clone(), &options).unwrap().0;
    for &(a, b) in queries {
        let (a, b) = (a % n, b % n);
        let p = nav.find_path(a, b, &mut ws).unwrap().map(|r| r.cost);
        let f = fresh.find_path(a, b, &mut ws).unwrap().map(|r| r.cost);
        let same = match (p, f) {
            (Some(p), Some(f)) => (p - f).abs() < 1e-9,
            (p, f) => p == f,
        };
        assert!(
            same,
            "after restoring every edge, {a}->{b} costs {p:?}, on the original graph {f:?}"
        );
    }
}

fn grid_strategy() -> impl Strategy<Value = GridMap> {
    (2u32..22, 2u32..22, 0.0f64..0.45).prop_flat_map(|(w, h, density)| {
        proptest::collection::vec(proptest::bool::weighted(1.0 - density), (w * h) as usize)
            .prop_map(move |passable| GridMap {
                width: w,
                height: h,
                passable,
            })
    })
}

fn graph_strategy() -> impl Strategy<Value = Graph> {
    (2u32..80).prop_flat_map(|n| {
        proptest::collection::vec((0..n, 0..n, 1u32..50), 0..(3 * n as usize))
            .prop_map(move |edges| Graph::from_edges(n, Metric::Integer, &edges).unwrap())
    })
}

/// A weighted graph whose nodes have positions (costs independent of them, so the estimate's
/// scale has to absorb edges cheaper than their length).
fn positioned_strategy() -> impl Strategy<Value = Graph> {
    (2u32..60).prop_flat_map(|n| {
        (
            proptest::collection::vec((0..n, 0..n, 1u32..50), 0..(3 * n as usize)),
            proptest::collection::vec((-40i32..40, -40i32..40), n as usize),
        )
            .prop_map(move |(edges, xy)| {
                Graph::from_edges(n, Metric::Integer, &edges)
                    .unwrap()
                    .with_points(xy.into_iter().map(|(x, y)| [x, y]).collect())
                    .unwrap()
            })
    })
}

fn queries() -> impl Strategy<Value = Vec<(u32, u32)>> {
    proptest::collection::vec((any::<u32>(), any::<u32>()), 1..12)
}

fn deletions() -> impl Strategy<Value = Vec<(u32, usize)>> {
    proptest::collection::vec((any::<u32>(), any::<usize>()), 0..5)
}

proptest! {
    // 96 cases keep the debug suite fast; `PROPTEST_CASES=5000` for a longer hunt.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(96),
        ..ProptestConfig::default()
    })]

    #[test]
    fn ppa_matches_astar_on_grids(map in grid_strategy(), leaf in 1u32..24, q in queries(), d in deletions()) {
        compare(map.graph(), leaf, &q, &d);
    }

    #[test]
    fn ppa_matches_astar_on_weighted_graphs(g in graph_strategy(), leaf in 1u32..24, q in queries(), d in deletions()) {
        compare(g, leaf, &q, &d);
    }

    #[test]
    fn positions_keep_both_searches_optimal(g in positioned_strategy(), leaf in 1u32..16, q in queries(), d in deletions()) {
        // Against a search with no estimate at all (Dijkstra): the straight-line estimate
        // must never make A* or PPA* miss the cheapest path.
        let mut blind = g.clone();
        blind.points = None;
        let n = g.node_count();
        let mut ws = Workspace::new(n);
        for &(a, b) in &q {
            let (a, b) = (a % n, b % n);
            let with = astar(&g, a, b, &mut ws).unwrap().map(|r| r.cost);
            let without = astar(&blind, a, b, &mut ws).unwrap().map(|r| r.cost);
            prop_assert_eq!(with, without);
        }
        compare(g, leaf, &q, &d);
    }

    #[test]
    fn several_goals_reach_the_nearest(map in grid_strategy(), leaf in 1u32..16, start in any::<u32>(), goals in proptest::collection::vec(any::<u32>(), 1..5)) {
        let graph = map.graph();
        let n = graph.node_count();
        prop_assume!(n > 0);
        let (nav, _) = build(graph, &BuildOptions { leaf_size: leaf, progress: false }).unwrap();
        let start = start % n;
        let goals: Vec<u32> = goals.iter().map(|g| g % n).collect();
        let mut ws = Workspace::new(n);
        let p = nav.find_path_multi(start, &goals, &mut ws).unwrap();
        let o = astar_multi(&nav.graph, start, &goals, &mut ws).unwrap();
        match (p, o) {
            (None, None) => {}
            (Some(p), Some(o)) => {
                prop_assert!((p.cost - o.cost).abs() < 1e-9);
                prop_assert!(goals.contains(&p.goal));
                check_path(&nav, start, p.goal, &p.path, p.cost);
            }
            (p, o) => panic!("PPA* {p:?} vs A* {o:?}"),
        }
    }
}
