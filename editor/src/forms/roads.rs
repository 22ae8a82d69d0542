//! A road graph's files (DIMACS `.gr` and `.co`) as the navigation form draws them: read on a
//! thread with the compiler's own readers (so a file the build refuses is refused here with the
//! same message), cached until a path or a file on disk changes, and thinned to at most
//! [`MAX_DRAWN`] edges so a city-sized graph does not stall frames.
//!
//! **Invariant:** positions are kept in the file's coordinate units; the form maps them to
//! metres each frame with the asset's `origin` and `unit`, exactly as the compiler places road
//! nodes (`origin + coordinates · unit`), so editing those fields moves the drawing at once.

use ensemble_compiler::nav::dimacs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::SystemTime;

/// Most edges drawn: beyond it every k-th edge is drawn (and the form says so).
pub const MAX_DRAWN: usize = 20_000;
/// Most nodes drawn as labelled points (by DIMACS id); larger graphs show their edges only.
pub const MAX_POINTS: usize = 400;

/// A road graph as read from its files.
#[derive(Debug)]
pub struct Roads {
    /// Each node's coordinates, by 0-based index (DIMACS id − 1).
    pub xy: Vec<[i32; 2]>,
    /// The edges drawn (0-based ends): all of them, or every `stride`-th.
    pub drawn: Vec<(u32, u32)>,
    /// Undirected edges in the graph.
    pub edges: usize,
    pub stride: usize,
}

impl Roads {
    /// Node `id` (1-based, as doors name it) in metres.
    pub fn world(&self, id: u64, origin: (f64, f64), unit: f64) -> Option<[f64; 2]> {
        let [x, y] = *self.xy.get((id as usize).checked_sub(1)?)?;
        Some([origin.0 + x as f64 * unit, origin.1 + y as f64 * unit])
    }
}

/// Reads `gr` and `co` (`shown_gr`, `shown_co`: as the asset writes them, for messages).
fn read(gr: &Path, co: &Path, shown_gr: &str, shown_co: &str) -> Result<Roads, String> {
    let at = |shown: &str, e: ensemble_compiler::nav::InputError| {
        let mut s = shown.to_string();
        if let Some(line) = e.line {
            s += &format!(":{line}");
            if let Some(col) = e.column {
                s += &format!(":{col}");
            }
        }
        format!("{s}: {}", e.message)
    };
    let graph = dimacs::read_gr(gr).map_err(|e| at(shown_gr, e))?;
    let xy = dimacs::read_co(co, graph.node_count()).map_err(|e| at(shown_co, e))?;
    let all: Vec<(u32, u32)> = (0..graph.node_count())
        .flat_map(|u| graph.neighbors(u).map(move |(v, _)| (u, v)))
        .filter(|&(u, v)| u < v)
        .collect();
    let stride = all.len().div_ceil(MAX_DRAWN).max(1);
    let drawn = all.iter().copied().step_by(stride).collect();
    Ok(Roads {
        xy,
        drawn,
        edges: all.len(),
        stride,
    })
}

/// What the files are: their paths and when they last changed (a missing file has none).
#[derive(Clone, Debug, PartialEq)]
struct Key {
    gr: PathBuf,
    co: PathBuf,
    stamps: [Option<(SystemTime, u64)>; 2],
}

fn stamp(p: &Path) -> Option<(SystemTime, u64)> {
    let m = std::fs::metadata(p).ok()?;
    Some((m.modified().ok()?, m.len()))
}

/// The state of the drawing.
pub enum Loaded<'a> {
    /// The asset names no graph file yet.
    Unset,
    Reading,
    Read(&'a Roads),
    Failed(&'a str),
}

/// The road graph last asked for, read or being read.
#[derive(Default)]
pub struct RoadCache {
    key: Option<Key>,
    result: Option<Result<Roads, String>>,
    pending: Option<Receiver<Result<Roads, String>>>,
}

impl RoadCache {
    /// The graph of files `graph` and `coordinates`, written relative to folder `dir`; starts
    /// reading them (and calls `wake` when done) when they are new or changed on disk.
    /// Returns whether a read finished this call.
    pub fn poll(
        &mut self,
        dir: &Path,
        graph: &str,
        coordinates: &str,
        wake: impl Fn() + Send + 'static,
    ) -> bool {
        if graph.trim().is_empty() || coordinates.trim().is_empty() {
            self.key = None;
            self.result = None;
            self.pending = None;
            return false;
        }
        let (gr, co) = (dir.join(graph), dir.join(coordinates));
        let key = Key {
            stamps: [stamp(&gr), stamp(&co)],
            gr: gr.clone(),
            co: co.clone(),
        };
        if self.key.as_ref() != Some(&key) {
            self.key = Some(key);
            let (tx, rx) = channel();
            let (shown_gr, shown_co) = (graph.to_string(), coordinates.to_string());
            std::thread::Builder::new()
                .name("road-graph".into())
                .spawn(move || {
                    let _ = tx.send(read(&gr, &co, &shown_gr, &shown_co));
                    wake();
                })
                .expect("a thread can be spawned");
            self.pending = Some(rx);
        }
        if let Some(r) = self.pending.as_ref().and_then(|rx| rx.try_recv().ok()) {
            self.result = Some(r);
            self.pending = None;
            return true;
        }
        false
    }

    pub fn state(&self) -> Loaded<'_> {
        match (&self.key, &self.pending, &self.result) {
            (None, _, _) => Loaded::Unset,
            (_, Some(_), _) | (_, None, None) => Loaded::Reading,
            (_, None, Some(Ok(r))) => Loaded::Read(r),
            (_, None, Some(Err(e))) => Loaded::Failed(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/nav-roads")
            .join(name)
    }

    #[test]
    fn the_fixture_reads_as_four_nodes_and_five_roads_placed_as_the_compiler_places_them() {
        let r = read(
            &fixture("streets.gr"),
            &fixture("streets.co"),
            "streets.gr",
            "streets.co",
        )
        .unwrap();
        assert_eq!((r.xy.len(), r.edges, r.stride), (4, 5, 1));
        assert_eq!(r.drawn, vec![(0, 1), (0, 2), (0, 3), (1, 2), (2, 3)]);
        assert_eq!(r.world(3, (5.0, -2.0), 0.5), Some([55.0, 48.0]));
        assert_eq!(r.world(0, (0.0, 0.0), 1.0), None);
        assert_eq!(r.world(5, (0.0, 0.0), 1.0), None);
    }

    #[test]
    fn a_missing_or_malformed_file_is_a_message_with_its_name_and_line() {
        let missing = read(
            &fixture("streets.gr"),
            &fixture("nowhere.co"),
            "streets.gr",
            "nowhere.co",
        )
        .unwrap_err();
        assert!(
            missing.starts_with("nowhere.co: cannot read the file"),
            "{missing}"
        );
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.gr");
        std::fs::write(&bad, "p sp 2 2\na 1 2 5\na 2 1 x\n").unwrap();
        let e = read(&bad, &fixture("streets.co"), "bad.gr", "streets.co").unwrap_err();
        assert!(e.starts_with("bad.gr:3"), "{e}");
    }

    #[test]
    fn a_large_graph_is_thinned_to_at_most_the_edges_drawn() {
        // A 200 × 200 street grid: 79,600 roads.
        let n = 200u32;
        let id = |x: u32, y: u32| y * n + x + 1;
        let mut gr = String::new();
        let mut arcs = 0;
        for y in 0..n {
            for x in 0..n {
                for (a, b) in [(x + 1, y), (x, y + 1)] {
                    if a < n && b < n {
                        gr += &format!(
                            "a {} {} 1\na {} {} 1\n",
                            id(x, y),
                            id(a, b),
                            id(a, b),
                            id(x, y)
                        );
                        arcs += 2;
                    }
                }
            }
        }
        let mut co = format!("p aux sp co {}\n", n * n);
        for y in 0..n {
            for x in 0..n {
                co += &format!("v {} {x} {y}\n", id(x, y));
            }
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("g.gr"),
            format!("p sp {} {arcs}\n{gr}", n * n),
        )
        .unwrap();
        std::fs::write(dir.path().join("g.co"), co).unwrap();
        let r = read(
            &dir.path().join("g.gr"),
            &dir.path().join("g.co"),
            "g.gr",
            "g.co",
        )
        .unwrap();
        assert_eq!(r.edges, 2 * 200 * 199);
        assert!(r.drawn.len() <= MAX_DRAWN, "{}", r.drawn.len());
        assert_eq!(r.drawn.len(), r.edges.div_ceil(r.stride));
        assert_eq!(r.stride, 4);
    }
}
