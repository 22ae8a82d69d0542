//! Unit tests on a hand-built hierarchy (the compiler's METIS builder is tested in
//! compiler/tests/nav_*.rs): search, ResolvePath, update, and the file loader's refusals.

use super::astar::astar;
use super::cost::Metric;
use super::hierarchy::{Cluster, NO_CLUSTER};
use super::*;

/// The path 0 - 1 - 2 - 3 (costs 1, 5, 1) plus a detour 1 - 4 - 2 (costs 1, 1), clustered as
/// root { leaf A = {0, 1, 4}, leaf B = {2, 3} }; nodes on a line, 4 off it.
pub(crate) fn sample() -> NavData {
    let graph = Graph::from_edges(
        5,
        Metric::Integer,
        &[(0, 1, 1), (1, 2, 5), (2, 3, 1), (1, 4, 1), (4, 2, 1)],
    )
    .unwrap()
    .with_points(vec![[0, 0], [1, 0], [2, 0], [3, 0], [1, 1]])
    .unwrap();
    let leaf = |parent, members: Vec<u32>, border: u32| Cluster {
        parent,
        depth: 1,
        children: vec![],
        members,
        child_start: vec![],
        border: (0..border).collect(),
        table: Default::default(),
    };
    let clusters = vec![
        Cluster {
            parent: NO_CLUSTER,
            depth: 0,
            children: vec![1, 2],
            members: vec![1, 4, 2],
            child_start: vec![0, 2, 3],
            border: vec![],
            table: Default::default(),
        },
        leaf(0, vec![1, 4, 0], 2),
        leaf(0, vec![2, 3], 1),
    ];
    let chains = vec![vec![2], vec![0, 0], vec![0, 2], vec![1], vec![1, 1]];
    let mut h = Hierarchy::from_parts(4, clusters, vec![1, 1, 2, 2, 1], &chains).unwrap();
    for c in (0..3).rev() {
        h.clusters[c].table = h.compute_table(&graph, c as u32).unwrap();
    }
    NavData::new(graph, h).unwrap()
}

#[test]
fn finds_the_detour_through_the_abstract_graph() {
    let nav = sample();
    let mut ws = Workspace::new(5);
    let r = nav.find_path(0, 3, &mut ws).unwrap().unwrap();
    assert_eq!(r.cost, 4.0);
    assert_eq!(r.path, vec![0, 1, 4, 2, 3]);
    let back = nav.find_path(3, 0, &mut ws).unwrap().unwrap();
    assert_eq!(back.path, vec![3, 2, 4, 1, 0]);
    assert_eq!(nav.find_path(2, 2, &mut ws).unwrap().unwrap().path, vec![2]);
    let multi = nav.find_path_multi(3, &[0, 4], &mut ws).unwrap().unwrap();
    assert_eq!((multi.goal, multi.cost), (4, 2.0));
    assert!(nav.find_path(0, 9, &mut ws).is_err());
}

#[test]
fn update_after_deletion_matches_astar() {
    let mut nav = sample();
    let mut ws = Workspace::new(5);
    let report = nav.remove_edge(4, 2).unwrap();
    assert!(report.removed && report.recomputed >= 1);
    let r = nav.find_path(0, 3, &mut ws).unwrap().unwrap();
    let o = astar(&nav.graph, 0, 3, &mut ws).unwrap().unwrap();
    assert_eq!((r.cost, o.cost), (7.0, 7.0));
    assert_eq!(r.path, vec![0, 1, 2, 3]);
    nav.remove_edge(1, 2).unwrap();
    assert!(nav.find_path(0, 3, &mut ws).unwrap().is_none());
    assert!(!nav.remove_edge(1, 2).unwrap().removed);
}

#[test]
fn file_round_trips() {
    let nav = sample();
    let bytes = nav.to_bytes().unwrap();
    assert!(file::looks_like_nav(&bytes));
    assert_eq!(NavData::from_bytes(&bytes).unwrap(), nav);
}

#[test]
fn loader_refuses_every_truncation_and_bit_flip() {
    let bytes = sample().to_bytes().unwrap();
    for len in 0..bytes.len() {
        assert!(NavData::from_bytes(&bytes[..len]).is_err(), "length {len}");
    }
    for bit in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        assert!(NavData::from_bytes(&b).is_err(), "bit {bit}");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(
        NavData::from_bytes(&long).unwrap_err(),
        NavError::TrailingBytes(1)
    );
}

/// Payloads with a correct header and checksum but arbitrary content must be refused cleanly.
#[test]
fn loader_never_panics_on_valid_checksums() {
    use proptest::prelude::*;
    let good = sample().to_bytes().unwrap();
    let rewrap = |payload: &[u8]| {
        let mut out = good[..12].to_vec();
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
        out.extend_from_slice(payload);
        out
    };
    let payload = good[24..].to_vec();
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    runner
        .run(
            &(0..payload.len(), any::<u8>(), 0..payload.len()),
            |(at, byte, cut)| {
                let mut p = payload.clone();
                p[at] = byte;
                let _ = NavData::from_bytes(&rewrap(&p));
                let _ = NavData::from_bytes(&rewrap(&p[..cut]));
                Ok(())
            },
        )
        .unwrap();
}

/// Fig. 4.10: start and goal share a leaf, but the shortest path leaves it and comes back.
#[test]
fn same_leaf_path_through_another_cluster() {
    // Leaf A = {0, 1, 3} with the inner edge 0 - 3 - 1 (cost 10 + 10); leaf B = {2} with the
    // outside way 0 - 2 - 1 (cost 1 + 1).
    let graph = Graph::from_edges(
        4,
        Metric::Integer,
        &[(0, 3, 10), (3, 1, 10), (0, 2, 1), (2, 1, 1)],
    )
    .unwrap();
    let clusters = vec![
        Cluster {
            parent: NO_CLUSTER,
            depth: 0,
            children: vec![1, 2],
            members: vec![0, 1, 2],
            child_start: vec![0, 2, 3],
            border: vec![],
            table: Default::default(),
        },
        Cluster {
            parent: 0,
            depth: 1,
            children: vec![],
            members: vec![0, 1, 3],
            child_start: vec![],
            border: vec![0, 1],
            table: Default::default(),
        },
        Cluster {
            parent: 0,
            depth: 1,
            children: vec![],
            members: vec![2],
            child_start: vec![],
            border: vec![0],
            table: Default::default(),
        },
    ];
    let chains = vec![vec![0, 0], vec![1, 1], vec![0, 2], vec![2]];
    let mut h = Hierarchy::from_parts(3, clusters, vec![1, 1, 2, 1], &chains).unwrap();
    for c in (0..3).rev() {
        h.clusters[c].table = h.compute_table(&graph, c as u32).unwrap();
    }
    let nav = NavData::new(graph, h).unwrap();
    let mut ws = Workspace::new(4);
    let r = nav.find_path(3, 1, &mut ws).unwrap().unwrap();
    assert_eq!((r.cost, r.path.clone()), (10.0, vec![3, 1]));
    let r = nav.find_path(0, 1, &mut ws).unwrap().unwrap();
    assert_eq!((r.cost, r.path), (2.0, vec![0, 2, 1]));
    let r = nav.find_path(3, 2, &mut ws).unwrap().unwrap();
    assert_eq!((r.cost, r.path), (11.0, vec![3, 0, 2]));
}

/// Issue 23: a file whose distance table was changed (and its checksum recomputed) loaded and
/// then failed as "internal error in PPA*" at query time. The verifier checks every entry
/// against the graph, so each such change is refused at load.
#[test]
fn a_changed_table_entry_is_refused_at_load() {
    use super::cost::UNREACHABLE;
    use super::distances::Entries;
    let good = sample();
    assert!(NavData::from_bytes(&good.to_bytes().unwrap()).is_ok());
    let mut tried = 0;
    for c in 0..good.hierarchy.clusters.len() {
        let table = &good.hierarchy.clusters[c].table;
        let n = good.hierarchy.clusters[c].table_len();
        for i in 0..n {
            let d = table.get(i);
            for changed in [d.wrapping_add(1), d.wrapping_sub(1), UNREACHABLE, 0] {
                if changed == d {
                    continue;
                }
                let mut bad = good.clone();
                let mut entries: Vec<_> = (0..n).map(|j| table.get(j)).collect();
                entries[i] = changed;
                bad.hierarchy.clusters[c].table.entries =
                    Entries::from_wide(bad.graph.metric, entries);
                let e = NavData::from_bytes(&bad.to_bytes().unwrap())
                    .expect_err(&format!("cluster {c} entry {i}: {d} -> {changed}"));
                assert!(
                    matches!(&e, NavError::Invalid(m) if m.contains("disagrees with the graph")),
                    "{e}"
                );
                tried += 1;
            }
        }
    }
    assert!(tried > 20, "{tried}");
}
