//! The readers' fuzz targets: "read these bytes as kind K and run what a user's command would
//! run on them". The cargo-fuzz crate (`compiler/fuzz/`, nightly) and the corpus replay test
//! (`compiler/tests/fuzz_corpus.rs`, stable) both call [`run`], so every input the fuzzer ever
//! kept is checked by an ordinary `cargo test` with exactly the code the fuzzer ran.
//!
//! A target never panics and never allocates without bound on any input; what it finds wrong
//! is reported the way the command would report it (diagnostics rendered, errors formatted) and
//! then dropped. Binary containers (`.ensb`, `.ensdbg`, snapshots, `.ensnav`, `.ngr`) get their
//! checksum recomputed before reading, as a file corrupted and re-checksummed would: without
//! that, nearly every mutation would stop at the checksum and the decoders behind it would go
//! untested. The original bytes are read first, so the header checks are fuzzed too.
//!
//! Inputs made of two files (a domain and its problem, a map and its scenarios, a road graph
//! and its coordinates) hold both, split at the first [`PART_BREAK`] line.

use crate::diag::Diagnostics;
use crate::front::ron::{AssetKind, MANIFEST};
use crate::project::{self, Project};
use crate::source::{SourceFile, SourceMap};
use ensemble_runtime::Program;
use ensemble_runtime::nav::{NavData, Workspace};
use ensemble_runtime::program::debug::DebugInfo;
use ensemble_runtime::snapshot::SnapshotReader;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The line that separates the two files of a two-file input.
pub const PART_BREAK: &str = "\n=====\n";

/// One reader to fuzz. [`Target::name`] is the cargo-fuzz target's name and its corpus
/// folder's (`compiler/fuzz/corpus/<name>/`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// A RON asset checked on its own, as `ensemble check FILE` does.
    Asset(AssetKind),
    /// A RON domain and problem (`.domain.ron`, [`PART_BREAK`], `.problem.ron`), checked
    /// together as a project would.
    RonPlanning,
    /// `Ensemble.ron`, as the manifest of an otherwise empty project.
    Manifest,
    /// An editor layout sidecar (`*.layout.ron`), read and written back.
    Layout,
    /// A PDDL domain, [`PART_BREAK`], a PDDL problem: grounded and planned on as
    /// `ensemble plan` does (with small limits).
    PddlPlan,
    /// A PDDL domain, [`PART_BREAK`], a PDDL problem, [`PART_BREAK`], a plan file: the plan
    /// checked as `ensemble plan DOMAIN PROBLEM --validate PLAN` checks it.
    PddlValidate,
    /// A MovingAI `.map`: parsed, built into navigation data and queried, as `nav build` and
    /// `nav query` do.
    MovingAiMap,
    /// A MovingAI `.map`, [`PART_BREAK`], a `.scen` for it: every scenario run, as `nav scen`.
    MovingAiScen,
    /// A DIMACS `.gr`, [`PART_BREAK`], its `.co`: read as a navigation graph with coordinates.
    Dimacs,
    /// A compiled program (`.ensb`).
    Program,
    /// A program's debug symbols (`.ensdbg`).
    DebugSymbols,
    /// A savegame snapshot, restored onto a sample program and ticked, as `run --resume`.
    Snapshot,
    /// An n-gram table (`.ngr`), verified, summarised and used to score a sentence.
    Ngram,
    /// Precomputed navigation (`.ensnav`), verified and queried.
    Ensnav,
    /// One line of the inspection protocol (docs/formats/inspect.md), read both as a game
    /// reads a tool's line and as a tool reads a game's; whatever reads is written back and
    /// must read back the same.
    Inspect,
    /// A translators' CSV (`ensemble strings import`), read as the import reads it.
    StringsCsv,
    /// A translators' PO file, read as the import reads it.
    StringsPo,
    /// A translators' workbook (`.xlsx`), read as the import reads its `fr` sheet.
    StringsXlsx,
    /// A JSON trace (`run --trace json`, the editor's File › Open trace…), read as both read
    /// it; every event that reads is written again and must write the same line.
    Trace,
    /// A Web1T-style count file (`w1 w2 w3<TAB>count` lines) named as a sentence asset's
    /// n-gram source: built into a table in memory, then used to score a sentence.
    Web1t,
}

impl Target {
    /// Every target, in the order the fuzz script runs them.
    pub fn all() -> Vec<Target> {
        let assets = AssetKind::ALL
            .into_iter()
            .filter(|k| !matches!(k, AssetKind::Workbook | AssetKind::Pddl))
            .map(Target::Asset);
        assets
            .chain([
                Target::Asset(AssetKind::Workbook),
                Target::RonPlanning,
                Target::Manifest,
                Target::Layout,
                Target::PddlPlan,
                Target::PddlValidate,
                Target::MovingAiMap,
                Target::MovingAiScen,
                Target::Dimacs,
                Target::Program,
                Target::DebugSymbols,
                Target::Snapshot,
                Target::Ngram,
                Target::Ensnav,
                Target::Inspect,
                Target::StringsCsv,
                Target::StringsPo,
                Target::StringsXlsx,
                Target::Trace,
                Target::Web1t,
            ])
            .collect()
    }

    /// The target's name: the asset suffix for a single asset (`machine`, `nav`, `xlsx`, …).
    pub fn name(self) -> &'static str {
        match self {
            Target::Asset(kind) => kind
                .suffix()
                .trim_start_matches('.')
                .trim_end_matches(".ron"),
            Target::RonPlanning => "planning",
            Target::Manifest => "manifest",
            Target::Layout => "layout",
            Target::PddlPlan => "pddl",
            Target::PddlValidate => "pddl-validate",
            Target::MovingAiMap => "map",
            Target::MovingAiScen => "scen",
            Target::Dimacs => "dimacs",
            Target::Program => "ensb",
            Target::DebugSymbols => "ensdbg",
            Target::Snapshot => "snapshot",
            Target::Ngram => "ngr",
            Target::Ensnav => "ensnav",
            Target::Inspect => "inspect",
            Target::StringsCsv => "strings-csv",
            Target::StringsPo => "strings-po",
            Target::StringsXlsx => "strings-xlsx",
            Target::Trace => "trace",
            Target::Web1t => "web1t",
        }
    }

    pub fn from_name(name: &str) -> Option<Target> {
        Target::all().into_iter().find(|t| t.name() == name)
    }
}

/// Reads `bytes` as `target` and runs everything the commands that read it would run.
pub fn run(target: Target, bytes: &[u8]) {
    match target {
        Target::Asset(AssetKind::Workbook) => workbook(bytes),
        Target::Asset(AssetKind::Pddl) => pddl(bytes),
        Target::Asset(kind) => {
            let name = format!("fuzz{}", kind.suffix());
            check(&[(name, bytes)]);
        }
        Target::RonPlanning => {
            let (domain, problem) = split(bytes);
            check(&[
                ("fuzz.domain.ron".to_string(), domain),
                ("fuzz.problem.ron".to_string(), problem),
            ]);
        }
        Target::Manifest => check(&[(MANIFEST.to_string(), bytes)]),
        Target::Layout => layout(bytes),
        Target::PddlPlan => pddl(bytes),
        Target::PddlValidate => pddl_validate(bytes),
        Target::MovingAiMap => movingai_map(bytes),
        Target::MovingAiScen => movingai_scen(bytes),
        Target::Dimacs => dimacs(bytes),
        Target::Program => program(bytes),
        Target::DebugSymbols => {
            let _ = DebugInfo::from_bytes(bytes).map_err(|e| e.to_string());
            let _ = DebugInfo::from_bytes(&container_checksummed(bytes)).map_err(|e| e.to_string());
        }
        Target::Snapshot => snapshot(bytes),
        Target::Ngram => ngram(bytes),
        Target::Ensnav => ensnav(bytes),
        Target::Inspect => inspect(bytes),
        Target::StringsCsv => {
            let _ = crate::l10n::exchange::read_csv(&lossy(bytes));
        }
        Target::StringsPo => {
            let _ = crate::l10n::exchange::read_po(&lossy(bytes));
        }
        Target::StringsXlsx => {
            let _ = crate::l10n::exchange::read_xlsx(bytes.to_vec(), "fr");
        }
        Target::Trace => trace(bytes),
        Target::Web1t => web1t(bytes),
    }
}

/// A JSON trace read as a whole; every event written again reads back to the same line (what
/// `run --trace json` writes is what the editor reads). The editor builds its history from
/// the same events: `editor/tests/trace_corpus.rs` replays this corpus through it.
fn trace(bytes: &[u8]) {
    let Ok(events) = ensemble_runtime::trace::read_events(&lossy(bytes)) else {
        return;
    };
    for e in events {
        let line = e.to_json();
        let again = ensemble_runtime::trace::TraceEvent::from_json(&line)
            .unwrap_or_else(|why| panic!("a written event does not read back ({why}): {line}"));
        assert_eq!(again.to_json(), line, "an event written twice differs");
        let _ = e.to_text();
    }
}

/// A count file as a sentence asset names it: read, built in memory, scored against.
fn web1t(bytes: &[u8]) {
    use crate::nlg::ngram::{Method, open_source, score};
    let Ok(dir) = tempfile::tempdir() else { return };
    let path = dir.path().join("fuzz.counts.tsv");
    if std::fs::write(&path, bytes).is_err() {
        return;
    }
    if let Ok(db) = open_source(&path) {
        for method in [Method::StupidBackoff, Method::Eq31] {
            let _ = score(&db, "The flight to Paris leaves at noon.", method);
        }
    }
}

/// The two files of a two-file input (the second is empty when there is no break).
fn split(bytes: &[u8]) -> (&[u8], &[u8]) {
    let brk = PART_BREAK.as_bytes();
    match bytes.windows(brk.len()).position(|w| w == brk) {
        Some(at) => (&bytes[..at + 1], &bytes[at + brk.len()..]),
        None => (bytes, &[]),
    }
}

fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Compiles the given files as `ensemble check` and `build` would (a manifest among them
/// makes it a project, otherwise they are checked on their own), and renders the diagnostics
/// both ways.
fn check(files: &[(String, &[u8])]) {
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    for (name, bytes) in files {
        project::add_text_source(
            &mut sources,
            &mut diagnostics,
            name.clone(),
            Path::new(name),
            bytes.to_vec(),
        );
    }
    compile_and_report(Project {
        name: "fuzz".to_string(),
        sources,
        libraries: vec!["sim".to_string()],
        diagnostics,
    });
}

fn compile_and_report(project: Project) {
    let compilation = crate::compile(project);
    let _ = compilation.diagnostics.render(&compilation.sources, false);
    let _ = compilation.diagnostics.to_json(&compilation.sources);
    // What `build` writes must read back as the same program.
    if let Some((program, debug)) = &compilation.output {
        let read = Program::from_bytes(&program.to_bytes());
        assert!(read.is_ok(), "a built program does not load: {read:?}");
        let read = DebugInfo::from_bytes(&debug.to_bytes());
        assert!(read.is_ok(), "built debug symbols do not load: {read:?}");
    }
}

/// The editor reads a sidecar when it opens a graph and writes it back when a node moves:
/// what it writes must read back as what it held.
fn layout(bytes: &[u8]) {
    use crate::front::ron::layout::Layout;
    let read = Layout::parse(&lossy(bytes));
    let mut held = Layout::default();
    for (name, position) in &read.nodes {
        held.set(name, *position);
    }
    assert_eq!(
        Layout::parse(&held.print()),
        held,
        "a printed layout reads back differently"
    );
}

/// A workbook is read from disk by its frontend, so the bytes go to a file of this process's
/// own scratch folder first.
fn workbook(bytes: &[u8]) {
    static SCRATCH: OnceLock<tempfile::TempDir> = OnceLock::new();
    let dir = SCRATCH.get_or_init(|| tempfile::tempdir().expect("a scratch folder"));
    let path = dir.path().join("fuzz.xlsx");
    std::fs::write(&path, bytes).expect("the scratch folder is writable");
    let mut sources = SourceMap::default();
    let file = sources.add(SourceFile::new(
        "fuzz.xlsx".to_string(),
        path.clone(),
        String::new(),
    ));
    // `ensemble import`: read, then print as RON.
    let mut diagnostics = Diagnostics::default();
    if let Some(script) = crate::script::xlsx::read(&sources, file, &mut diagnostics) {
        let _ = crate::front::ron::to_canonical_string(&crate::script::lower::to_asset(&script));
    }
    let _ = diagnostics.render(&sources, false);
    // `ensemble check`/`build`.
    compile_and_report(Project {
        name: "fuzz".to_string(),
        sources,
        libraries: vec!["sim".to_string()],
        diagnostics: Diagnostics::default(),
    });
}

/// A PDDL domain and problem grounded as `ensemble plan` grounds them (within 2 s), the
/// diagnostics rendered.
fn ground_pddl(
    domain: &str,
    problem: &str,
    relevance: bool,
) -> Option<crate::front::pddl::Grounded> {
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let options = crate::front::pddl::GroundOptions {
        deadline: Some(Instant::now() + Duration::from_secs(2)),
        relevance,
        ..Default::default()
    };
    let grounded = crate::front::pddl::ground_texts_with(
        &mut sources,
        ("domain.pddl", domain),
        ("problem.pddl", problem),
        &options,
        &mut diagnostics,
    );
    let _ = diagnostics.render(&sources, false);
    grounded
}

/// `ensemble plan DOMAIN PROBLEM` with small limits, then `check` on each file.
fn pddl(bytes: &[u8]) {
    let (domain, problem) = split(bytes);
    let (domain, problem) = (lossy(domain), lossy(problem));
    if let Some(grounded) = ground_pddl(&domain, &problem, true) {
        use ensemble_runtime::plan::{Heuristic, Limits, Outcome, search, validate};
        let limits = Limits {
            max_expansions: Some(2_000),
            max_time: Some(Duration::from_secs(2)),
            max_memory: Some(256 << 20),
        };
        let task = &grounded.task;
        for h in [Heuristic::LmCut, Heuristic::Ff] {
            let result = search::astar(task, h, limits);
            if let Outcome::Plan(plan) = &result.outcome {
                let checked = validate::validate(task, &task.initial_state(), plan);
                assert!(checked.is_ok(), "A* found an invalid plan: {checked:?}");
            }
        }
    }
    check(&[
        ("domain.pddl".to_string(), domain.as_bytes()),
        ("problem.pddl".to_string(), problem.as_bytes()),
    ]);
}

/// `ensemble plan DOMAIN PROBLEM --validate PLAN`: grounded without the relevance analysis,
/// as the command does, and the plan file replayed on it.
fn pddl_validate(bytes: &[u8]) {
    let (domain, rest) = split(bytes);
    let (problem, plan) = split(rest);
    if let Some(grounded) = ground_pddl(&lossy(domain), &lossy(problem), false) {
        let _ = crate::plan::plan_file::check(&grounded.task, "plan.txt", &lossy(plan));
    }
}

/// The largest navigation graph a target precomputes: the fuzzer's inputs are small, but a
/// short `.map` header can promise a large grid.
const MAX_BUILD_NODES: u32 = 1 << 16;

/// Builds navigation data for `graph` and runs a few queries on it, as `nav build` and
/// `nav query` do.
fn build_and_query(graph: ensemble_runtime::nav::Graph, queries: &[(u32, u32)]) {
    if graph.node_count() > MAX_BUILD_NODES {
        return;
    }
    let Ok((nav, _report)) = crate::nav::build(graph, &crate::nav::BuildOptions::default()) else {
        return;
    };
    query(&nav, queries);
    let bytes = nav.to_bytes().expect("built navigation data serialises");
    let read = NavData::from_bytes(&bytes);
    assert!(
        read.is_ok(),
        "built navigation data does not load: {read:?}"
    );
}

fn query(nav: &NavData, queries: &[(u32, u32)]) {
    let n = nav.graph.node_count();
    let mut ws = Workspace::new(n);
    for &(a, b) in queries {
        let _ = nav.find_path(a, b, &mut ws);
    }
}

/// A few node pairs spread over a graph of `n` nodes (and one past its end).
fn spread_pairs(n: u32) -> Vec<(u32, u32)> {
    if n == 0 {
        return vec![(0, 0)];
    }
    vec![(0, n - 1), (n / 2, 0), (n - 1, n / 3), (0, n)]
}

fn movingai_map(bytes: &[u8]) {
    let path = PathBuf::from("fuzz.map");
    let Ok(map) = crate::nav::movingai::parse_map(&path, &lossy(bytes)) else {
        return;
    };
    let graph = map.graph();
    let pairs = spread_pairs(graph.node_count());
    build_and_query(graph, &pairs);
}

fn movingai_scen(bytes: &[u8]) {
    use crate::nav::movingai::{parse_map, parse_scen, scenario_nodes};
    let (map, scen) = split(bytes);
    let (map_path, scen_path) = (PathBuf::from("fuzz.map"), PathBuf::from("fuzz.scen"));
    let scenarios = parse_scen(&scen_path, &lossy(scen));
    let Ok(map) = parse_map(&map_path, &lossy(map)) else {
        return;
    };
    let Ok(scenarios) = scenarios else {
        return;
    };
    let graph = map.graph();
    let pairs: Vec<(u32, u32)> = scenarios
        .iter()
        .take(64)
        .filter_map(|s| scenario_nodes(&scen_path, &graph, s).ok())
        .collect();
    build_and_query(graph, &pairs);
}

fn dimacs(bytes: &[u8]) {
    use crate::nav::dimacs::{parse_co, parse_gr};
    let (gr, co) = split(bytes);
    let Ok(graph) = parse_gr(Path::new("fuzz.gr"), &lossy(gr)) else {
        return;
    };
    let _ = parse_co(Path::new("fuzz.co"), &lossy(co), graph.node_count());
    let pairs = spread_pairs(graph.node_count());
    build_and_query(graph, &pairs);
}

/// A line of the inspection protocol, both ways. A message that reads is encoded again and
/// the encoding must read back to the same message (what a tool sends is what the game gets).
fn inspect(bytes: &[u8]) {
    use ensemble_runtime::inspect::protocol::{FromGame, decode, decode_from_game, encode};
    if let Ok(message) = decode(bytes) {
        let line = encode(&message);
        let again = decode(line.trim_end_matches('\n').as_bytes());
        assert_eq!(
            again.as_ref(),
            Ok(&message),
            "a tool's message re-encoded: {line}"
        );
    }
    if let Ok(from_game) = decode_from_game(bytes) {
        let line = match &from_game {
            FromGame::Message(m) => encode(m),
            FromGame::Trace(v) => encode(v),
        };
        let again = decode_from_game(line.trim_end_matches('\n').as_bytes());
        assert_eq!(
            again.as_ref(),
            Ok(&from_game),
            "a game's line re-encoded: {line}"
        );
    }
}

/// The container's layout (runtime/src/program/container.rs and runtime/src/nav/file.rs):
/// 24 header bytes, the payload length at 12..20 and its CRC-32 at 20..24.
fn container_checksummed(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.len() >= 24 {
        let len = (out.len() - 24) as u64;
        let crc = crc32fast::hash(&out[24..]);
        out[12..20].copy_from_slice(&len.to_le_bytes());
        out[20..24].copy_from_slice(&crc.to_le_bytes());
    }
    out
}

fn program(bytes: &[u8]) {
    for bytes in [bytes.to_vec(), container_checksummed(bytes)] {
        if let Ok(program) = Program::from_bytes(&bytes) {
            // What a host does first with a loaded program: start its scenes.
            start_scenes(Arc::new(program));
        }
    }
}

/// Starts every scene of `program` and ticks it a few times, as `ensemble run` does.
fn start_scenes(program: Arc<Program>) {
    use ensemble_sim::simulation::{Options, Simulation, scene_names};
    for scene in scene_names(&program) {
        if let Ok(mut sim) = Simulation::start(program.clone(), &scene, 7, &Options::default()) {
            for _ in 0..3 {
                sim.tick();
            }
        }
    }
}

/// Sample programs a snapshot may belong to, compiled once per process: machine scenes,
/// a conversation, and scripted interactions.
fn sample_programs() -> &'static [(String, Arc<Program>)] {
    static PROGRAMS: OnceLock<Vec<(String, Arc<Program>)>> = OnceLock::new();
    PROGRAMS.get_or_init(|| {
        let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
        ["airport", "innkeeper", "shops"]
            .iter()
            .map(|name| {
                let compiled = crate::compile_path(&samples.join(name))
                    .unwrap_or_else(|e| panic!("sample {name} does not load: {e}"));
                let (program, _) = compiled
                    .output
                    .unwrap_or_else(|| panic!("sample {name} does not compile"));
                (compiled.name, Arc::new(program))
            })
            .collect()
    })
}

fn snapshot(bytes: &[u8]) {
    use ensemble_sim::simulation::{Options, Simulation};
    for bytes in [bytes.to_vec(), container_checksummed(bytes)] {
        let Ok(snapshot) = SnapshotReader::from_bytes(&bytes) else {
            continue;
        };
        for (name, program) in sample_programs() {
            if snapshot.check_program(program, name).is_err() {
                continue;
            }
            if let Ok((mut sim, _report)) =
                Simulation::restore(program.clone(), &snapshot, &Options::default())
            {
                let _ = crate::run::consumed_lines(&snapshot);
                for _ in 0..3 {
                    sim.tick();
                }
            }
        }
    }
}

/// The `.ngr` header (compiler/src/nlg/ngram/format.rs): the CRC-32 at 48..52 covers bytes
/// 8..48 and everything after the 64-byte header.
fn ngram_checksummed(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.len() >= 64 {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&out[8..48]);
        hasher.update(&out[64..]);
        let crc = hasher.finalize();
        out[48..52].copy_from_slice(&crc.to_le_bytes());
    }
    out
}

fn ngram(bytes: &[u8]) {
    use crate::nlg::ngram::{Method, NgramDb, score};
    for bytes in [bytes.to_vec(), ngram_checksummed(bytes)] {
        let Ok(db) = NgramDb::from_bytes(bytes, "fuzz.ngr") else {
            continue;
        };
        let _ = db.stats();
        for order in 1..=3 {
            db.for_each(order, |_, _| {});
        }
        for method in [Method::StupidBackoff, Method::Eq31] {
            let _ = score(
                &db,
                "The innkeeper pours a drink for the traveller.",
                method,
            );
        }
    }
}

fn ensnav(bytes: &[u8]) {
    for bytes in [bytes.to_vec(), container_checksummed(bytes)] {
        if let Ok(nav) = NavData::from_bytes(&bytes) {
            query(&nav, &spread_pairs(nav.graph.node_count()));
        }
    }
}
