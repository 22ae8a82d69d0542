//! A road graph's files (DIMACS `.gr` and `.co`) as the navigation form draws them: read on a
//! thread with the compiler's own readers (so a file the build refuses is refused here with the
//! same message), cached until a path or a file on disk changes. Up to [`MAX_DRAWN`] edges are
//! drawn as lines; a larger graph (a city) is drawn whole into an image on the same thread,
//! which the plot stretches over the graph's extent, so frames cost the same at any size.
//!
//! **Invariant:** positions are kept in the file's coordinate units; the form maps them to
//! metres each frame with the asset's `origin` and `unit`, exactly as the compiler places road
//! nodes (`origin + coordinates · unit`), so editing those fields moves the drawing at once.

use eframe::egui;
use ensemble_compiler::formats::nav::{read_co, read_gr};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, channel};
use std::time::SystemTime;

/// Most edges drawn as lines; beyond it the graph is an image (and the form says so).
pub const MAX_DRAWN: usize = 20_000;
/// The longer side of that image, in pixels.
const IMAGE_SIDE: usize = 2048;
/// Most nodes drawn as labelled points (by DIMACS id); larger graphs show their edges only.
pub const MAX_POINTS: usize = 400;

/// A road graph as read from its files.
#[derive(Debug)]
pub struct Roads {
    /// Each node's coordinates, by 0-based index (DIMACS id − 1).
    pub xy: Vec<[i32; 2]>,
    /// The edges drawn as lines (0-based ends): all of them, or none when there is an image.
    pub drawn: Vec<(u32, u32)>,
    /// Undirected edges in the graph.
    pub edges: usize,
    /// Every edge drawn into an image, when there are more than [`MAX_DRAWN`] (until the form
    /// takes it for a texture).
    pub image: Option<Overview>,
    /// Whether the graph is drawn as an image.
    pub as_image: bool,
}

/// A large graph drawn whole: `image` covers coordinates `min..=max` (file units), its first
/// row at `max[1]` (north up, as on the plot).
#[derive(Debug)]
pub struct Overview {
    pub image: egui::ColorImage,
    pub min: [i32; 2],
    pub max: [i32; 2],
}

/// Draws every edge into an image of at most [`IMAGE_SIDE`] pixels a side.
fn overview(xy: &[[i32; 2]], edges: &[(u32, u32)]) -> Overview {
    let mut min = [i32::MAX; 2];
    let mut max = [i32::MIN; 2];
    for p in xy {
        for k in 0..2 {
            min[k] = min[k].min(p[k]);
            max[k] = max[k].max(p[k]);
        }
    }
    let span = [
        (max[0] as f64 - min[0] as f64).max(1.0),
        (max[1] as f64 - min[1] as f64).max(1.0),
    ];
    let px = (IMAGE_SIDE as f64 - 1.0) / span[0].max(span[1]);
    let (w, h) = ((span[0] * px) as usize + 1, (span[1] * px) as usize + 1);
    let mut pixels = vec![egui::Color32::TRANSPARENT; w * h];
    let ink = crate::theme::EDGE;
    let at = |v: u32| {
        let [x, y] = xy[v as usize];
        (
            (x as f64 - min[0] as f64) * px,
            (max[1] as f64 - y as f64) * px,
        )
    };
    for &(a, b) in edges {
        let ((x0, y0), (x1, y1)) = (at(a), at(b));
        let steps = (x1 - x0).abs().max((y1 - y0).abs()).ceil().max(1.0) as usize;
        for i in 0..=steps {
            let t = i as f64 / steps as f64;
            let (x, y) = (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t);
            pixels[(y.round() as usize).min(h - 1) * w + (x.round() as usize).min(w - 1)] = ink;
        }
    }
    Overview {
        image: egui::ColorImage::new([w, h], pixels),
        min,
        max,
    }
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
    let at = |shown: &str, e: ensemble_compiler::formats::nav::InputError| {
        let mut s = shown.to_string();
        if let Some(line) = e.line {
            s += &format!(":{line}");
            if let Some(col) = e.column {
                s += &format!(":{col}");
            }
        }
        format!("{s}: {}", e.message)
    };
    let graph = read_gr(gr).map_err(|e| at(shown_gr, e))?;
    let xy = read_co(co, graph.node_count()).map_err(|e| at(shown_co, e))?;
    let all: Vec<(u32, u32)> = (0..graph.node_count())
        .flat_map(|u| graph.neighbors(u).map(move |(v, _)| (u, v)))
        .filter(|&(u, v)| u < v)
        .collect();
    let edges = all.len();
    let (drawn, image) = if edges > MAX_DRAWN {
        (Vec::new(), Some(overview(&xy, &all)))
    } else {
        (all, None)
    };
    Ok(Roads {
        xy,
        drawn,
        edges,
        as_image: image.is_some(),
        image,
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

    /// The image of the graph last read, taken out (it is copied into a texture once).
    pub fn take_image(&mut self) -> Option<Overview> {
        match &mut self.result {
            Some(Ok(r)) => r.image.take(),
            _ => None,
        }
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
        assert_eq!((r.xy.len(), r.edges, r.image.is_none()), (4, 5, true));
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
    fn a_large_graph_is_drawn_whole_into_an_image_north_up() {
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
        assert!(r.drawn.is_empty());
        let o = r.image.unwrap();
        assert_eq!((o.min, o.max), ([0, 0], [199, 199]));
        assert_eq!(o.image.size, [IMAGE_SIDE, IMAGE_SIDE]);
        // A street grid: every pixel of a row on a street is inked, halfway between two
        // streets nothing is.
        let px = (IMAGE_SIDE - 1) as f64 / 199.0;
        let row = |y: f64| (y * px).round() as usize * IMAGE_SIDE;
        let street = row(7.0);
        assert!(
            o.image.pixels[street..street + IMAGE_SIDE]
                .iter()
                .all(|p| p.a() > 0)
        );
        let between = row(7.5) + (3.5 * px).round() as usize;
        assert_eq!(o.image.pixels[between].a(), 0);
        // North up: a road along the south edge is the image's last row.
        let o = overview(&[[0, 0], [10, 0], [0, 10]], &[(0, 1)]);
        let side = IMAGE_SIDE;
        assert!(
            o.image.pixels[(side - 1) * side..]
                .iter()
                .all(|p| p.a() > 0)
        );
        assert!(o.image.pixels[..side].iter().all(|p| p.a() == 0));
    }
}
