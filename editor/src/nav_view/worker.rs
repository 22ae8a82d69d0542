//! The navigation view's worker thread: read the map (and its scenarios), build the PPA*
//! hierarchy with progress (the compiler's `nav::build_observed`), then answer path queries
//! with PPA* and plain A*, timed, until the view lets it go. The UI thread only paints.
//!
//! **Invariant:** dropping a [`Worker`] cancels its build at the next cluster and ends the
//! thread; a worker never sends after that.

use ensemble_compiler::formats::nav::{BuildOptions, BuildReport, NavData, Stage};
use ensemble_compiler::formats::nav::{GridMap, Scenario, read_map, read_scen};
use ensemble_runtime::nav::astar::astar;
use ensemble_runtime::nav::{NodeId, PathResult, Workspace};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// The leaf size the view builds with when none is set: about 64 leaves, so a small map still
/// shows its clustering and a 512×512 one gets the CLI's default (4000).
pub fn auto_leaf_size(nodes: u32) -> u32 {
    (nodes / 64).clamp(64, 4000)
}

/// A map cell, `(x, y)`.
pub type Cell = (u32, u32);

/// A path query and both answers.
#[derive(Clone, Debug)]
pub struct Answer {
    pub start: (u32, u32),
    pub goal: (u32, u32),
    /// PPA* (the runtime's `find_path`), or why it failed.
    pub ppa: Result<Option<PathResult>, String>,
    pub ppa_time: Duration,
    /// Plain A*, the baseline.
    pub astar: Result<Option<PathResult>, String>,
    pub astar_time: Duration,
}

/// What the worker reports, in order.
pub enum Msg {
    Map(Arc<GridMap>),
    Scenarios(Result<Vec<Scenario>, String>),
    Stage(Stage),
    Built(Arc<NavData>, BuildReport, Duration),
    Failed(String),
    Answer(Answer),
}

pub struct Worker {
    cancel: Arc<AtomicBool>,
    queries: Sender<(Cell, Cell)>,
    msgs: Receiver<Msg>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

impl Worker {
    /// Starts reading and building `map` (scenarios from `scen`, if given); `wake` is called
    /// whenever there is news.
    pub fn start(
        map: PathBuf,
        scen: Option<PathBuf>,
        leaf_size: Option<u32>,
        wake: impl Fn() + Send + 'static,
    ) -> Worker {
        let cancel = Arc::new(AtomicBool::new(false));
        let (queries, query_rx) = channel();
        let (tx, msgs) = channel();
        let stop = cancel.clone();
        std::thread::Builder::new()
            .name("nav-view".into())
            .spawn(move || {
                run(
                    &map,
                    scen.as_deref(),
                    leaf_size,
                    &stop,
                    &tx,
                    &query_rx,
                    &wake,
                )
            })
            .expect("a thread can be spawned");
        Worker {
            cancel,
            queries,
            msgs,
        }
    }

    /// Asks for the paths between two cells (answered once the hierarchy is built).
    pub fn query(&self, start: (u32, u32), goal: (u32, u32)) {
        let _ = self.queries.send((start, goal));
    }

    /// Everything reported since the last call.
    pub fn poll(&self) -> Vec<Msg> {
        let mut out = Vec::new();
        while let Ok(m) = self.msgs.try_recv() {
            out.push(m);
        }
        out
    }
}

fn run(
    map: &Path,
    scen: Option<&Path>,
    leaf_size: Option<u32>,
    stop: &AtomicBool,
    tx: &Sender<Msg>,
    queries: &Receiver<(Cell, Cell)>,
    wake: &dyn Fn(),
) {
    let send = |m: Msg| {
        if !stop.load(Ordering::Relaxed) {
            let _ = tx.send(m);
            wake();
        }
    };
    let grid = match read_map(map) {
        Ok(g) => Arc::new(g),
        Err(e) => return send(Msg::Failed(e.to_string())),
    };
    send(Msg::Map(grid.clone()));
    if let Some(scen) = scen {
        send(Msg::Scenarios(read_scen(scen).map_err(|e| e.to_string())));
    }
    let graph = grid.graph();
    if graph.node_count() == 0 {
        return send(Msg::Failed("the map has no passable cell".into()));
    }
    let options = BuildOptions {
        leaf_size: leaf_size.unwrap_or_else(|| auto_leaf_size(graph.node_count())),
        progress: false,
    };
    let started = Instant::now();
    let mut last = Instant::now() - Duration::from_secs(1);
    let built = ensemble_compiler::formats::nav::build_observed(graph, &options, |stage| {
        // A few progress reports per second are plenty for a bar.
        if last.elapsed() > Duration::from_millis(40) || stage == Stage::Clustering {
            last = Instant::now();
            send(Msg::Stage(stage));
        }
        !stop.load(Ordering::Relaxed)
    });
    let data = match built {
        Ok(Some((data, report))) => {
            let data = Arc::new(data);
            send(Msg::Built(data.clone(), report, started.elapsed()));
            data
        }
        Ok(None) => return,
        Err(e) => return send(Msg::Failed(e)),
    };
    let n = data.graph.node_count();
    let (mut ws_ppa, mut ws_astar) = (Workspace::new(n), Workspace::new(n));
    while let Ok(q) = queries.recv() {
        let Some(q) = crate::marks::newest(queries, q) else {
            return;
        };
        if stop.load(Ordering::Relaxed) {
            return;
        }
        send(Msg::Answer(answer(&data, q, &mut ws_ppa, &mut ws_astar)));
    }
}

/// Runs both searches between two cells.
pub fn answer(
    data: &NavData,
    (start, goal): (Cell, Cell),
    ws_ppa: &mut Workspace,
    ws_astar: &mut Workspace,
) -> Answer {
    let node = |(x, y): (u32, u32)| -> Result<NodeId, String> {
        data.graph
            .grid
            .as_ref()
            .and_then(|g| g.node_at(x, y))
            .ok_or_else(|| format!("({x}, {y}) is not a passable cell"))
    };
    let nodes = node(start).and_then(|s| Ok((s, node(goal)?)));
    let (ppa, ppa_time, astar_result, astar_time) = match nodes {
        Ok((s, g)) => {
            let t = Instant::now();
            let ppa = data.find_path(s, g, ws_ppa).map_err(|e| e.to_string());
            let ppa_time = t.elapsed();
            let t = Instant::now();
            let a = astar(&data.graph, s, g, ws_astar).map_err(|e| e.to_string());
            (ppa, ppa_time, a, t.elapsed())
        }
        Err(e) => (Err(e.clone()), Duration::ZERO, Err(e), Duration::ZERO),
    };
    Answer {
        start,
        goal,
        ppa,
        ppa_time,
        astar: astar_result,
        astar_time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leaf_sizes_give_about_64_leaves_within_bounds() {
        assert_eq!(auto_leaf_size(2_445), 64);
        assert_eq!(auto_leaf_size(250_148), 3_908);
        assert_eq!(auto_leaf_size(10_000_000), 4_000);
    }

    #[test]
    fn a_bad_map_is_reported_and_a_dropped_worker_stops() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.map");
        std::fs::write(&bad, "type octile\nheight 2\nwidth 2\nmap\n.x\n..\n").unwrap();
        let w = Worker::start(bad, None, None, || {});
        let deadline = Instant::now() + Duration::from_secs(10);
        let message = loop {
            if let Some(Msg::Failed(m)) = w.poll().into_iter().next() {
                break m;
            }
            assert!(Instant::now() < deadline);
            std::thread::sleep(Duration::from_millis(5));
        };
        assert!(message.contains("bad.map:5:2"), "{message}");
    }
}
