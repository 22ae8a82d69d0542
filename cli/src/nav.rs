//! `ensemble nav build` and `ensemble nav query`: PPA* precomputation and MovingAI scenario
//! queries (DESIGN.md). Exit codes: 0 success, 1 bad input (malformed map, scenario, graph or
//! navigation file; a query whose cost is not the listed optimum), 2 unreadable path.

use crate::io::{EXIT_CANNOT_RUN, EXIT_ERRORS, EXIT_OK, Format, Io};
use clap::{Subcommand, ValueEnum};
use ensemble_compiler::nav::movingai::{read_scen, scenario_nodes};
use ensemble_compiler::nav::{
    BuildOptions, BuildReport, InputError, NavData, build, dimacs, movingai,
};
use ensemble_runtime::nav::astar::astar;
use ensemble_runtime::nav::file::looks_like_nav;
use ensemble_runtime::nav::{NavError, Workspace};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Subcommand, Debug)]
pub(crate) enum NavCommand {
    /// Precompute PPA* data for a MovingAI `.map` or DIMACS `.gr` graph and write it to FILE.
    Build {
        map: PathBuf,
        #[arg(short = 'o', long = "out")]
        out: PathBuf,
        /// Largest leaf cluster, in nodes.
        #[arg(long, default_value_t = BuildOptions::default().leaf_size)]
        leaf_size: u32,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Answer the queries of a MovingAI `.scen` file on MAP (a map, or a built `.ensnav`).
    Query {
        map: PathBuf,
        #[arg(long)]
        scen: PathBuf,
        /// Answer only the first N queries.
        #[arg(long)]
        limit: Option<usize>,
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Search with PPA* (default) or plain A* on the full graph.
        #[arg(long, value_enum, default_value = "ppa")]
        algorithm: Algorithm,
        /// Leaf size when MAP is precomputed in memory.
        #[arg(long, default_value_t = BuildOptions::default().leaf_size)]
        leaf_size: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Algorithm {
    Ppa,
    Astar,
}

pub(crate) fn run(command: NavCommand, io: &mut Io<'_>) -> i32 {
    match command {
        NavCommand::Build {
            map,
            out,
            leaf_size,
            format,
        } => build_cmd(&map, &out, leaf_size, format, io),
        NavCommand::Query {
            map,
            scen,
            limit,
            format,
            algorithm,
            leaf_size,
        } => query_cmd(&map, &scen, limit, format, algorithm, leaf_size, io),
    }
}

/// Why a navigation input could not be used: 2 if it cannot be read, 1 if it is malformed.
enum Failure {
    Unreadable(String),
    Bad(String),
}

impl Failure {
    fn report(self, io: &mut Io<'_>) -> i32 {
        match self {
            Failure::Unreadable(m) => {
                let _ = writeln!(io.err, "error: {m}");
                EXIT_CANNOT_RUN
            }
            Failure::Bad(m) => {
                let _ = writeln!(io.err, "error: {m}");
                EXIT_ERRORS
            }
        }
    }
}

fn read_bytes(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path)
        .map_err(|e| Failure::Unreadable(format!("cannot read {}: {e}", path.display())))
}

fn bad_input(e: InputError) -> Failure {
    Failure::Bad(e.to_string())
}

/// Reads a map or road graph (not a built file).
fn read_graph(path: &Path) -> Result<ensemble_runtime::nav::Graph, Failure> {
    read_bytes(path)?;
    if path.extension().is_some_and(|e| e == "gr") {
        dimacs::read_gr(path).map_err(bad_input)
    } else {
        Ok(movingai::read_map(path).map_err(bad_input)?.graph())
    }
}

fn precompute(
    path: &Path,
    leaf_size: u32,
    io: &mut Io<'_>,
) -> Result<(NavData, BuildReport), Failure> {
    let graph = read_graph(path)?;
    let options = BuildOptions {
        leaf_size: leaf_size.max(1),
        progress: io.color,
    };
    build(graph, &options).map_err(|m| Failure::Bad(format!("{}: {m}", path.display())))
}

/// Peak resident memory of this process so far, if the platform tells.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

fn report_build(r: &BuildReport, io: &mut Io<'_>) {
    let peak = peak_rss_bytes()
        .map(|b| format!(", peak RSS {:.1} MiB", mb(b)))
        .unwrap_or_default();
    let _ = writeln!(
        io.err,
        "precomputed {} nodes, {} edges: {} clusters ({} leaves of at most {} nodes, {} levels), {} distance-table entries\n\
         time: partition {:.2} s + distance tables {:.2} s = {:.2} s; memory: {:.1} MiB of navigation data{peak}",
        r.nodes,
        r.edges,
        r.clusters,
        r.leaves,
        r.leaf_size,
        r.levels,
        r.table_entries,
        r.partition_secs,
        r.tables_secs,
        r.partition_secs + r.tables_secs,
        mb(r.data_bytes as u64),
    );
}

fn build_cmd(map: &Path, out: &Path, leaf_size: u32, format: Format, io: &mut Io<'_>) -> i32 {
    if let Err(code) = crate::io::refuse_overwriting_inputs(&[map], &[out], io) {
        return code;
    }
    let (data, report) = match precompute(map, leaf_size, io) {
        Ok(x) => x,
        Err(f) => return f.report(io),
    };
    // Streamed to the file: the build's peak memory is the data, not the data plus its bytes.
    let file_bytes = match data.save(out) {
        Ok(n) => n,
        Err(NavError::Write(e) | NavError::Io(e)) => {
            let _ = writeln!(io.err, "error: cannot write {}: {e}", out.display());
            return EXIT_CANNOT_RUN;
        }
        Err(e) => {
            let _ = writeln!(io.err, "error: cannot write {}: {e}", out.display());
            return EXIT_CANNOT_RUN;
        }
    };
    report_build(&report, io);
    let _ = writeln!(io.err, "wrote {} ({file_bytes} bytes)", out.display());
    if let Format::Json = format {
        let json = serde_json::json!({
            "nodes": report.nodes,
            "edges": report.edges,
            "clusters": report.clusters,
            "leaves": report.leaves,
            "levels": report.levels,
            "leaf_size": report.leaf_size,
            "table_entries": report.table_entries,
            "partition_seconds": report.partition_secs,
            "table_seconds": report.tables_secs,
            "seconds": report.partition_secs + report.tables_secs,
            "data_bytes": report.data_bytes,
            "peak_rss_bytes": peak_rss_bytes(),
            "file_bytes": file_bytes,
        });
        let _ = writeln!(io.out, "{json}");
    }
    EXIT_OK
}

fn load_or_precompute(map: &Path, leaf_size: u32, io: &mut Io<'_>) -> Result<NavData, Failure> {
    let bytes = read_bytes(map)?;
    if looks_like_nav(&bytes) {
        return NavData::from_bytes(&bytes)
            .map_err(|e: NavError| Failure::Bad(format!("cannot load {}: {e}", map.display())));
    }
    let (data, report) = precompute(map, leaf_size, io)?;
    report_build(&report, io);
    Ok(data)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn query_cmd(
    map: &Path,
    scen: &Path,
    limit: Option<usize>,
    format: Format,
    algorithm: Algorithm,
    leaf_size: u32,
    io: &mut Io<'_>,
) -> i32 {
    if let Err(f) = read_bytes(scen) {
        return f.report(io);
    }
    let data = match load_or_precompute(map, leaf_size, io) {
        Ok(d) => d,
        Err(f) => return f.report(io),
    };
    let scenarios = match read_scen(scen) {
        Ok(s) => s,
        Err(e) => return bad_input(e).report(io),
    };
    let take = limit.unwrap_or(usize::MAX).min(scenarios.len());
    let mut ws = Workspace::new(data.graph.node_count());
    let mut micros = Vec::with_capacity(take);
    let mut expansions = Vec::with_capacity(take);
    let mut wrong = 0usize;
    for s in &scenarios[..take] {
        let (a, b) = match scenario_nodes(scen, &data.graph, s) {
            Ok(x) => x,
            Err(e) => return bad_input(e).report(io),
        };
        let t = Instant::now();
        let found = match algorithm {
            Algorithm::Ppa => data.find_path(a, b, &mut ws),
            Algorithm::Astar => astar(&data.graph, a, b, &mut ws),
        };
        let us = t.elapsed().as_secs_f64() * 1e6;
        let found = match found {
            Ok(f) => f,
            Err(e) => return Failure::Bad(format!("line {}: {e}", s.line)).report(io),
        };
        let (cost, expanded) = found
            .as_ref()
            .map_or((None, 0), |r| (Some(r.cost), r.expanded));
        let ok = cost.is_some_and(|c| (c - s.optimal).abs() < 1e-6);
        if !ok {
            wrong += 1;
        }
        micros.push(us);
        expansions.push(expanded as f64);
        match format {
            Format::Json => {
                let json = serde_json::json!({
                    "line": s.line,
                    "start": [s.start.0, s.start.1],
                    "goal": [s.goal.0, s.goal.1],
                    "cost": cost,
                    "optimal": s.optimal,
                    "expanded": expanded,
                    "micros": (us * 10.0).round() / 10.0,
                    "path_nodes": found.as_ref().map(|r| r.path.len()),
                });
                let _ = writeln!(io.out, "{json}");
            }
            Format::Human => {
                let cost = cost.map_or("no path".to_string(), |c| format!("{c:.6}"));
                let mark = if ok { "" } else { "  <-- not optimal" };
                let _ = writeln!(
                    io.out,
                    "line {}: ({}, {}) -> ({}, {}) cost {cost} (optimal {:.6}), {expanded} expanded, {us:.0} µs{mark}",
                    s.line, s.start.0, s.start.1, s.goal.0, s.goal.1, s.optimal
                );
            }
        }
    }
    micros.sort_by(f64::total_cmp);
    expansions.sort_by(f64::total_cmp);
    let _ = writeln!(
        io.err,
        "{take} queries ({algorithm:?}): median {:.1} µs, p99 {:.1} µs; median {} expansions, p99 {}; {}",
        percentile(&micros, 0.5),
        percentile(&micros, 0.99),
        percentile(&expansions, 0.5),
        percentile(&expansions, 0.99),
        if wrong == 0 {
            "every cost equals the listed optimum".to_string()
        } else {
            format!("{wrong} costs differ from the listed optimum")
        }
    );
    if wrong == 0 { EXIT_OK } else { EXIT_ERRORS }
}
