//! Import circles among a crate's modules, measured as docs/ARCHITECTURE.md describes, for the
//! compiler (compiler/src) and the runtime core (runtime/src): every `crate::…`, `super::…` and
//! `self::…` path, and every path that starts with a child module's name, in every file under
//! `src` (in `use` items and inline; comments, strings and `#[cfg(test)]` modules left out) is an
//! edge from the file's module to the module that path names; the files are then grouped by
//! top-level module (`ir`, `nlg`, `valid`, … and the crate root, `lib.rs`), and a circle is a
//! strongly connected component of more than one group. There are none in either crate, and the
//! tests fail when one appears. The compiler: before issue 17's IR work 1 circle holding 9
//! modules; then 1 of 3 (front/hpmm/plan); none since the HMM-space and planning asset shapes
//! moved into the RON frontend. The runtime: 2 circles (9 modules around `program`, and
//! `stdlib`/`world`) until issue 31 moved the section types into `program` and the per-scene
//! bookkeeping into `world`; its modules also stand in layers ([`RUNTIME_LAYERS`]), and a test
//! fails on any import up a layer.
//!
//! The editor (editor/src) is measured file by file: each file a node (a folder's `mod.rs` is
//! the folder's module), a module a `use` names followed into its files, `main.rs` (the binary)
//! left out. Before issue 32's layering: one circle of 69 files and another of 3 (72 of 99, 7
//! floors) and 19 imports up the layers now in [`EDITOR_LAYERS`]; then none up and one circle of
//! 7 files (the preview's `impl` split across its folder) on 18 floors, with 3 imports from one
//! panel into another, all through the preview. Since the preview's model moved to the bottom of
//! its folder (`preview::model`, `preview::filter`) and the live states to the shared widgets
//! (`live`): no circle, no import up, none across panels, 108 files on 18 floors. The tests fail
//! on any circle, any import up a layer, any import from one panel into another.

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module as its path from the crate root (`[]` is `lib.rs`).
type ModPath = Vec<String>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `src/a/b.rs` is `a::b`, `src/a/mod.rs` is `a`, `src/lib.rs` the root.
fn module_of(src: &Path, file: &Path) -> ModPath {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: ModPath = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The text with comments, string and character literals blanked out (same length, so
/// positions stay), leaving only code to scan for paths.
fn code_only(text: &str) -> Vec<u8> {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                // Block comments nest in Rust.
                let (mut depth, mut j) = (1, i + 2);
                while j < b.len() && depth > 0 {
                    if b[j..].starts_with(b"/*") {
                        depth += 1;
                        j += 2;
                    } else if b[j..].starts_with(b"*/") {
                        depth -= 1;
                        j += 2;
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close: Vec<u8> = std::iter::once(b'"')
                    .chain(std::iter::repeat_n(b'#', hashes))
                    .collect();
                let start = i + 2 + hashes;
                let end = b[start..]
                    .windows(close.len())
                    .position(|w| w == close.as_slice())
                    .map_or(b.len(), |n| start + n + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            }
            b'\'' => {
                // A character literal (`'x'`, `'\n'`, `'\u{1F600}'`), not a lifetime (`'a`).
                let len = if b.get(i + 1) == Some(&b'\\') {
                    b[i + 2..].iter().position(|&c| c == b'\'').map(|n| n + 3)
                } else {
                    let ch_len = text[i + 1..].chars().next().map_or(1, char::len_utf8);
                    (b.get(i + 1 + ch_len) == Some(&b'\'')).then_some(ch_len + 2)
                };
                match len {
                    Some(n) => {
                        blank(&mut out, i, i + n);
                        i += n;
                    }
                    None => i += 1,
                }
            }
            _ => i += 1,
        }
    }
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Reads a use tree (or an inline path) at `i`: `a::b::{c, d::*}` gives `[a, b, c]`,
/// `[a, b, d]`; a path ends at the first thing that is not `ident ::`, `{` or `*`.
fn use_tree(code: &[u8], mut i: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    let skip_ws = |i: &mut usize| {
        while *i < code.len() && code[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    let mut path = prefix.to_vec();
    loop {
        skip_ws(&mut i);
        if i < code.len() && code[i] == b'{' {
            i += 1;
            loop {
                skip_ws(&mut i);
                if i >= code.len() || code[i] == b'}' {
                    return i + 1;
                }
                i = use_tree(code, i, &path, out);
                skip_ws(&mut i);
                if i < code.len() && code[i] == b',' {
                    i += 1;
                }
            }
        }
        let start = i;
        while i < code.len() && is_ident(code[i]) {
            i += 1;
        }
        if start == i {
            // `*` or the end of the path.
            if i < code.len() && code[i] == b'*' {
                i += 1;
            }
            out.push(path);
            return i;
        }
        let seg = String::from_utf8_lossy(&code[start..i]).into_owned();
        if code[i..].starts_with(b"::") && !code[i + 2..].starts_with(b"<") {
            path.push(seg);
            i += 2;
        } else {
            if seg != "self" {
                path.push(seg);
            }
            out.push(path);
            return i;
        }
    }
}

/// Whether the code before `at` ends in `#[cfg(test)]` (and a `pub` or `pub(…)`, if any).
fn test_only(text: &str, at: usize) -> bool {
    let mut before = text[..at].trim_end();
    if before.ends_with(')')
        && let Some(open) = before.rfind("pub(")
    {
        before = &before[..open];
    }
    let before = before.strip_suffix("pub").unwrap_or(before).trim_end();
    before.ends_with("#[cfg(test)]")
}

/// Inline `mod name { … }` blocks: (start, end, name, test-only), so `super::` inside one
/// resolves from it and unit tests can be left out.
fn inline_modules(code: &[u8]) -> Vec<(usize, usize, String, bool)> {
    let text = String::from_utf8_lossy(code);
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(n) = text[from..].find("mod ") {
        let at = from + n;
        from = at + 4;
        if at > 0 && is_ident(code[at - 1]) {
            continue;
        }
        let rest = &text[at + 4..];
        let name: String = rest
            .trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let after = rest.trim_start()[name.len()..].trim_start();
        if name.is_empty() || !after.starts_with('{') {
            continue;
        }
        let open = text.len() - after.len();
        let mut depth = 0;
        let mut end = code.len();
        for (j, &c) in code.iter().enumerate().skip(open) {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = j;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((open, end, name, test_only(&text, at)));
    }
    out
}

/// A crate's modules: every file under `src` but binaries (`src/bin`, `src/main.rs`) and unit
/// tests in files of their own (`#[cfg(test)] mod tests;`), which are left out like inline ones.
fn module_files(src: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.retain(|f| !f.starts_with(src.join("bin")) && *f != src.join("main.rs"));
    let mut modules: BTreeSet<ModPath> = files.iter().map(|f| module_of(src, f)).collect();
    for file in &files {
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let text = String::from_utf8_lossy(&code);
        for (at, _) in text.match_indices("mod ") {
            let name: String = text[at + 4..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if text[at + 4 + name.len()..].starts_with(';') && test_only(&text, at) {
                let mut m = module_of(src, file);
                m.push(name);
                modules.remove(&m);
            }
        }
    }
    files.retain(|f| modules.contains(&module_of(src, f)));
    files
}

/// Whether the path starting at `start` is the root of a `use` item's tree.
fn after_use(code: &[u8], start: usize) -> bool {
    let before = String::from_utf8_lossy(&code[..start]);
    let before = before.trim_end();
    before.ends_with("use")
        && !before[..before.len() - 3]
            .bytes()
            .next_back()
            .is_some_and(is_ident)
}

/// Every path one file's code names, resolved against the crate's modules, each with whether
/// it is a `use` item's. A name that a `use` binds to a module (`use crate::graph::edges;`)
/// starts a path from that module (`edges::Edge`), as the compiler resolves it.
fn file_paths(
    code: &[u8],
    here: &ModPath,
    modules: &BTreeSet<ModPath>,
    bound: &BTreeMap<String, ModPath>,
) -> Vec<(bool, Vec<String>)> {
    let blocks = inline_modules(code);
    let mut out = Vec::new();
    for start in 0..code.len() {
        // A path starts at an identifier that does not continue one (`a::b`), a macro's
        // `$crate`, or a field or method (`.x`).
        if !is_ident(code[start])
            || (start > 0 && (is_ident(code[start - 1]) || b":$.".contains(&code[start - 1])))
        {
            continue;
        }
        let len = code[start..].iter().take_while(|&&c| is_ident(c)).count();
        if !code[start + len..].starts_with(b"::") {
            continue;
        }
        let word = &code[start..start + len];
        // The module the code sits in: the file's, then any inline modules around it.
        let around: Vec<_> = blocks
            .iter()
            .filter(|b| b.0 < start && start < b.1)
            .collect();
        // Unit tests may run the whole pipeline; they are not part of its shape.
        if around.iter().any(|b| b.3) {
            continue;
        }
        let mut base = here.clone();
        base.extend(around.iter().map(|b| b.2.clone()));
        let mut i = start;
        match word {
            b"crate" => {
                base.clear();
                i += "crate::".len();
            }
            b"self" => i += "self::".len(),
            b"super" => {
                while code[i..].starts_with(b"super::") {
                    base.pop();
                    i += "super::".len();
                }
            }
            // A child module named without a prefix (`nlg::compile` in lib.rs), or a module a
            // `use` named (`edges::Edge` after `use crate::graph::edges;`).
            _ => {
                let name = String::from_utf8_lossy(word).into_owned();
                let mut child = base.clone();
                child.push(name.clone());
                if !modules.contains(&child) {
                    match bound.get(&name) {
                        Some(m) => base = m[..m.len() - 1].to_vec(),
                        None => continue,
                    }
                }
            }
        }
        let mut paths = Vec::new();
        use_tree(code, i, &base, &mut paths);
        let is_use = after_use(code, start);
        out.extend(paths.into_iter().map(|p| (is_use, p)));
    }
    out
}

/// Every module path each file's code names, resolved against the crate's modules.
fn imports(src: &Path) -> BTreeMap<ModPath, BTreeSet<ModPath>> {
    let files = module_files(src);
    let modules: BTreeSet<ModPath> = files.iter().map(|f| module_of(src, f)).collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let here = module_of(src, file);
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        // The modules this file's `use` items bind by name.
        let bound: BTreeMap<String, ModPath> = file_paths(&code, &here, &modules, &BTreeMap::new())
            .into_iter()
            .filter(|(is_use, p)| *is_use && !p.is_empty() && modules.contains(p))
            .map(|(_, p)| (p.last().unwrap().clone(), p))
            .collect();
        let mut targets = BTreeSet::new();
        for (_, path) in file_paths(&code, &here, &modules, &bound) {
            // The longest prefix that is a module file.
            let target = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains(p))
                .unwrap_or_default();
            targets.insert(target);
        }
        targets.remove(&here);
        graph.insert(here, targets);
    }
    graph
}

/// The graph with its modules grouped by `group` (an edge between two groups wherever a module
/// of one imports a module of the other).
fn grouped(
    graph: &BTreeMap<ModPath, BTreeSet<ModPath>>,
    group: impl Fn(&ModPath) -> String,
) -> DiGraph<String, ()> {
    let mut g = DiGraph::<String, ()>::new();
    let mut nodes: BTreeMap<String, NodeIndex> = BTreeMap::new();
    let mut node = |g: &mut DiGraph<String, ()>, name: String| {
        *nodes
            .entry(name.clone())
            .or_insert_with(|| g.add_node(name))
    };
    for (from, tos) in graph {
        let a = node(&mut g, group(from));
        for to in tos {
            let b = node(&mut g, group(to));
            if a != b {
                g.update_edge(a, b, ());
            }
        }
    }
    g
}

/// The circles of a graph grouped by `group`: strongly connected components of two or more.
fn circles(
    graph: &BTreeMap<ModPath, BTreeSet<ModPath>>,
    group: impl Fn(&ModPath) -> String,
) -> Vec<Vec<String>> {
    let g = grouped(graph, group);
    let mut out: Vec<Vec<String>> = tarjan_scc(&g)
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut names: Vec<String> = c.into_iter().map(|n| g[n].clone()).collect();
            names.sort();
            names
        })
        .collect();
    out.sort();
    out
}

fn top_level(m: &ModPath) -> String {
    m.first().cloned().unwrap_or_else(|| "lib.rs".into())
}

fn compiler_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The circles among a crate's top-level modules, printed with the imports that close each
/// (`--nocapture`) and with the file-level circles, for the failure message to point at.
fn top_level_circles(src: &Path) -> Vec<Vec<String>> {
    let graph = imports(src);
    let top = circles(&graph, top_level);
    let files = circles(&graph, |m| m.join("::"));
    println!("{}: top-level circles: {}", src.display(), top.len());
    for c in &top {
        println!("  {}", c.join(" <-> "));
        // The imports that hold it together, to see which to cut.
        for (from, tos) in &graph {
            for to in tos {
                let (a, b) = (top_level(from), top_level(to));
                if a != b && c.contains(&a) && c.contains(&b) {
                    println!("    {a} -> {b}: {} uses {}", from.join("::"), to.join("::"));
                }
            }
        }
    }
    println!(
        "file-level circles (a module file and its children count): {}",
        files.len()
    );
    for c in &files {
        println!("  {} files: {}", c.len(), c.join(", "));
    }
    top
}

#[test]
fn there_are_no_import_circles() {
    let top = top_level_circles(&compiler_src());
    assert!(
        top.is_empty(),
        "{} import circles among the compiler's top-level modules (there must be none; the \
         imports that close each are printed above with --nocapture): {top:?}",
        top.len()
    );
}

fn runtime_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src")
}

#[test]
fn the_runtime_has_no_import_circles() {
    let top = top_level_circles(&runtime_src());
    assert!(
        top.is_empty(),
        "{} import circles among the runtime's top-level modules (there must be none; the \
         imports that close each are printed above with --nocapture): {top:?}",
        top.len()
    );
}

#[test]
fn the_command_line_has_no_import_circles() {
    let cli = Path::new(env!("CARGO_MANIFEST_DIR")).join("../cli/src");
    let top = top_level_circles(&cli);
    assert!(
        top.is_empty(),
        "import circles among the command line's modules (cli/src; there must be none): {top:?}"
    );
}

/// The runtime's top-level modules in layers, bottom first: a module imports only modules of
/// its own layer or a lower one (and, by the test above, never in a circle). Every top-level
/// module is in exactly one layer, so a new one has to be placed; the crate root is above all.
const RUNTIME_LAYERS: &[&[&str]] = &[
    // Helpers that name nothing of the crate but each other; `nav` is the PPA* library whose
    // data the program's navigation section embeds.
    &["fs", "rng", "watch", "nav"],
    // The program format: every section's types and their verification, the container and
    // every kind's format version. A leaf but for the helpers.
    &["program"],
    // What runs or records one kind of section, each on the program alone (`locale` also fills
    // `speech`'s lines): trace events, savegames, speech, scripts, planners, strings.
    &["trace", "snapshot", "speech", "script", "plan", "locale"],
    // The state machine interpreter.
    &["hsm"],
    // On the interpreter: HMM agents and chat scenes; the world seam with the per-scene
    // bookkeeping the standard states keep in it.
    &["hpmm", "world"],
    // Against a world: the standard library states, smart locations.
    &["stdlib", "interactions"],
    // The game's entry points.
    &["session", "inspect"],
];

/// The layer of a module: that of the longest path in `layers` it is or is inside of (a layer
/// names top-level modules, or a file inside one that stands apart from its folder).
fn layer_of(layers: &[&[&str]], m: &ModPath) -> Option<(usize, String)> {
    (1..=m.len()).rev().find_map(|n| {
        let name = m[..n].join("::");
        layers
            .iter()
            .position(|l| l.contains(&name.as_str()))
            .map(|l| (l, name))
    })
}

/// Every import between modules that goes up a layer, as `from uses to (layer …)`; and every
/// module no layer holds.
fn imports_up(graph: &BTreeMap<ModPath, BTreeSet<ModPath>>, layers: &[&[&str]]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (from, tos) in graph {
        if from.is_empty() {
            continue;
        }
        let Some((la, _)) = layer_of(layers, from) else {
            out.insert(format!("`{}` is in no layer", top_level(from)));
            continue;
        };
        for to in tos.iter().filter(|to| !to.is_empty()) {
            match layer_of(layers, to) {
                None => {
                    out.insert(format!("`{}` is in no layer", top_level(to)));
                }
                Some((lb, _)) if lb > la => {
                    out.insert(format!(
                        "{} (layer {la}) uses {} (layer {lb})",
                        from.join("::"),
                        to.join("::")
                    ));
                }
                Some(_) => {}
            }
        }
    }
    out.into_iter().collect()
}

#[test]
fn the_runtime_imports_only_down_its_layers() {
    let up = imports_up(&imports(&runtime_src()), RUNTIME_LAYERS);
    assert!(
        up.is_empty(),
        "the runtime imports up its layers (RUNTIME_LAYERS in this file; move the shared type \
         down rather than the module up): {up:#?}"
    );
}

/// The IR is at the bottom: it names nothing of the compiler but diagnostics and source
/// locations, so every frontend, check and back end can depend on it and it on none of them.
#[test]
fn the_ir_depends_on_nothing_above_it() {
    let graph = imports(&compiler_src());
    let below_ir = ["diag", "source", "ir"];
    let mut above: Vec<String> = graph
        .iter()
        .filter(|(from, _)| top_level(from) == "ir")
        .flat_map(|(from, tos)| {
            tos.iter()
                .filter(|to| !below_ir.contains(&top_level(to).as_str()))
                .map(move |to| format!("{} uses {}", from.join("::"), to.join("::")))
        })
        .collect();
    above.sort();
    assert!(
        above.is_empty(),
        "the IR imports stages above it: {above:#?}"
    );
}

/// A crate's `src` of these files, for the measure's own tests.
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

/// `a::b` as a module path (`""` the root).
fn m(s: &str) -> ModPath {
    s.split("::")
        .filter(|p| !p.is_empty())
        .map(String::from)
        .collect()
}

fn set(v: &[&str]) -> BTreeSet<ModPath> {
    v.iter().map(|s| m(s)).collect()
}

/// The measure itself: paths in `use` trees, inline paths, `super::` from a file and from an
/// inline module, child modules named from the root; comments, strings and unit tests ignored.
#[test]
fn the_measure_sees_paths_and_ignores_comments_and_tests() {
    let dir = tree(&[
        (
            "lib.rs",
            "pub mod a; pub mod b; pub mod c;\nfn r() { c::Y; x.a::<()>(); }",
        ),
        (
            "a/mod.rs",
            "mod x;\nuse crate::{b::{self, X}, c::*};\n// crate::lost\nfn f() -> char { let s = \"crate::lost\"; '{' }\n",
        ),
        ("a/x.rs", "use super::super::c;"),
        (
            "b.rs",
            "fn g() { super::a::h(); }\n#[cfg(test)]\nmod tests { use crate::c::Y; }\n#[cfg(test)]\nmod t;",
        ),
        ("b/t.rs", "use crate::c::Y;"),
        ("c.rs", "pub struct Y;"),
        ("lost.rs", ""),
    ]);
    let graph = imports(dir.path());
    assert_eq!(graph[&m("a")], set(&["b", "c"]));
    assert_eq!(graph[&m("a::x")], set(&["c"]));
    assert_eq!(graph[&m("b")], set(&["a"]));
    assert_eq!(graph[&m("")], set(&["c"]));
    assert!(!graph.contains_key(&m("b::t")));
    assert_eq!(
        circles(&graph, top_level),
        vec![vec!["a".to_string(), "b".to_string()]]
    );
    // Layers: `c` below `a` and `b`, which import each other within their layer; the root is
    // above all; `a` above `b` makes `b -> a` an import up, and a module in no layer is named.
    assert!(imports_up(&graph, &[&["c", "lost"], &["a", "b"]]).is_empty());
    assert_eq!(
        imports_up(&graph, &[&["c", "lost"], &["b"], &["a"]]),
        vec!["b (layer 1) uses a (layer 2)".to_string()]
    );
    assert_eq!(
        imports_up(&graph, &[&["c"], &["a", "b"]]),
        vec!["`lost` is in no layer".to_string()]
    );
}

/// The floors of a graph grouped by `group`: the length of its longest chain of imports once
/// each circle is taken as one node (a graph where nothing imports anything has one floor).
fn floors(
    graph: &BTreeMap<ModPath, BTreeSet<ModPath>>,
    group: impl Fn(&ModPath) -> String,
) -> usize {
    let g = grouped(graph, group);
    let condensed = petgraph::algo::condensation(g, true);
    let order = petgraph::algo::toposort(&condensed, None).unwrap();
    // Importers come before what they import: from the last, each floor is one above the
    // highest it imports.
    let mut height = vec![0usize; condensed.node_count()];
    for &n in order.iter().rev() {
        height[n.index()] = 1 + condensed
            .neighbors(n)
            .map(|m| height[m.index()])
            .max()
            .unwrap_or(0);
    }
    height.into_iter().max().unwrap_or(0)
}

fn editor_src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../editor/src")
}

/// A file of the editor by its module path (`machine::view` is `machine/view.rs`, `machine`
/// is `machine/mod.rs`).
fn file_name(m: &ModPath) -> String {
    if m.is_empty() {
        "lib.rs".into()
    } else {
        m.join("::")
    }
}

/// The editor's modules in layers, bottom first (issue 32): a file imports only files of its
/// own layer or a lower one, and (by the test below) never in a circle. A layer names
/// top-level modules, or a file of a panel's folder that names nothing above its layer;
/// every file is in one, so a new module has to be placed. The crate root is above all.
const EDITOR_LAYERS: &[&[&str]] = &[
    // Helpers that name nothing of the editor: colours and fonts, the layout sidecar beside
    // an asset, recent projects, the file watcher.
    &["theme", "sidecar", "recent", "watch"],
    // The model: the project's documents as loaded and saved (workbooks and PDDL text read as
    // the compiler reads them), undo, autosave, the names the project defines.
    &[
        "document", "history", "recovery", "names", "workbook", "pddl",
    ],
    // Operations across documents: the background compile and its located diagnostics,
    // renames with every reference, templates, creating and deleting assets, quick fixes,
    // Find, the reach search; and two files that panels' folders hold but that name nothing
    // above this layer: a machine's edit operations and the snapshots a run records.
    &[
        "analysis",
        "rename",
        "templates",
        "project_ops",
        "quick_fix",
        "find",
        "reach",
        "machine::ops",
        "preview::snapshot",
    ],
    // The panel contract, one module: what a panel is (`AssetPanel`, `GraphPanel`,
    // `KindPanel`), what it may read (`PanelCx`), what it asks of the host (`Request`).
    &["panel"],
    // Widgets panels share: diagnostics marked on widgets, form widgets, the graph canvas,
    // file dialogs, the navigation view and its maps (the navigation form embeds them), the
    // live states a running scene highlights on the machine graph.
    &[
        "marks",
        "live",
        "form_widgets",
        "graph",
        "file_dialog",
        "nav_view",
        "maps",
    ],
    // The panels: each asset kind's editor and each dock tab.
    &[
        "machine",
        "space",
        "sentences",
        "planning",
        "rules",
        "record_forms",
        "text_view",
        "preview",
        "localisation",
        "tests_panel",
        "project_panel",
        "diagnostics_panel",
    ],
    // The host: the open documents, the actions it carries out, the registry of panels.
    &["app"],
];

/// The editor's file-level graph, printed (with `--nocapture`): each circle, the floor count,
/// every import up a layer.
fn editor_measure() -> (BTreeMap<ModPath, BTreeSet<ModPath>>, Vec<Vec<String>>) {
    let graph = imports(&editor_src());
    let files = circles(&graph, file_name);
    println!(
        "editor: {} files, {} in {} circles, {} floors",
        graph.len(),
        files.iter().map(Vec::len).sum::<usize>(),
        files.len(),
        floors(&graph, file_name)
    );
    for c in &files {
        println!("  {} files: {}", c.len(), c.join(", "));
        for (from, tos) in &graph {
            for to in tos {
                let (a, b) = (file_name(from), file_name(to));
                if c.contains(&a) && c.contains(&b) {
                    println!("    {a} uses {b}");
                }
            }
        }
    }
    (graph, files)
}

#[test]
fn the_editor_has_no_import_circles() {
    let (_, files) = editor_measure();
    assert!(
        files.is_empty(),
        "the editor's files import each other in a circle (the imports that close each are \
         printed above with --nocapture): {files:#?}"
    );
}

#[test]
fn the_editor_imports_only_down_its_layers() {
    let up = imports_up(&imports(&editor_src()), EDITOR_LAYERS);
    assert!(
        up.is_empty(),
        "the editor imports up its layers (EDITOR_LAYERS in this file; move the shared type \
         down rather than the module up): {up:#?}"
    );
}

/// A panel reaches into no other panel (nor, by the layers, the app): it reads what the
/// contract gives it and returns edits and requests.
#[test]
fn the_editor_panels_reach_into_no_other_panel() {
    let graph = imports(&editor_src());
    let panels = EDITOR_LAYERS
        .iter()
        .position(|l| l.contains(&"machine"))
        .unwrap();
    let mut across = Vec::new();
    for (from, tos) in &graph {
        for to in tos {
            let same_layer = [from, to]
                .iter()
                .all(|m| layer_of(EDITOR_LAYERS, m).map(|l| l.0) == Some(panels));
            if same_layer && top_level(from) != top_level(to) {
                across.push(format!("{} uses {}", file_name(from), file_name(to)));
            }
        }
    }
    assert!(
        across.is_empty(),
        "imports from one panel into another (move what they share down to the contract or \
         the widgets): {across:#?}"
    );
}

/// One place defines what a panel is: the panel traits are declared in `panel.rs` alone.
#[test]
fn the_editor_defines_a_panel_in_one_place() {
    let src = editor_src();
    let mut found = Vec::new();
    for file in module_files(&src) {
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        let text = String::from_utf8_lossy(&code);
        for (at, _) in text.match_indices("trait ") {
            let name: String = text[at + 6..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if name.ends_with("Panel") {
                found.push((file_name(&module_of(&src, &file)), name));
            }
        }
    }
    assert!(!found.is_empty());
    assert!(
        found.iter().all(|(f, _)| f == "panel"),
        "panel traits outside the panel contract (editor/src/panel.rs): {found:?}"
    );
}

/// The measure's additions for the editor: a module a `use` names starts paths
/// (`use crate::a; a::x::Z` reaches `a::x`); `main.rs` is a binary, not a module; a layer
/// may name a file inside a folder; floors count the longest chain of imports.
#[test]
fn the_measure_follows_used_modules_and_layers_files() {
    let dir = tree(&[
        ("lib.rs", "pub mod a; pub mod b; pub mod c;"),
        ("main.rs", "use crate::c::Y;"),
        ("a/mod.rs", "pub mod x; pub mod y; pub use x::Z;"),
        ("a/x.rs", "pub struct Z;"),
        ("a/y.rs", "use crate::b::W; pub struct Q;"),
        (
            "b.rs",
            "use crate::a;\npub struct W;\nfn f() { a::x::Z; a::y::Q; }",
        ),
        ("c.rs", "pub struct Y; fn g() { b::W; }"),
    ]);
    let graph = imports(dir.path());
    assert!(!graph.contains_key(&m("main")));
    assert_eq!(graph[&m("b")], set(&["a", "a::x", "a::y"]));
    // `b::W` in c.rs names no module: `b` is neither a child of `c` nor used there.
    assert_eq!(graph[&m("c")], set(&[]));
    assert_eq!(graph[&m("a")], set(&["a::x"]));
    assert_eq!(
        circles(&graph, file_name),
        vec![vec!["a::y".to_string(), "b".to_string()]]
    );
    // (a::y <-> b) -> a -> a::x: the circle is one floor.
    assert_eq!(floors(&graph, file_name), 3);
    // `a::x` stands below `b`, `a` (and so `a::y`) above it: `b`'s imports of them go up.
    let layers: &[&[&str]] = &[&["a::x", "c"], &["b"], &["a"]];
    assert_eq!(layer_of(layers, &m("a::y")), Some((2, "a".to_string())));
    assert_eq!(layer_of(layers, &m("a::x")), Some((0, "a::x".to_string())));
    assert_eq!(
        imports_up(&graph, layers),
        vec![
            "b (layer 1) uses a (layer 2)".to_string(),
            "b (layer 1) uses a::y (layer 2)".to_string()
        ]
    );
}

/// The compiler library's surface (lib.rs, "The library's surface"): the modules a tool may
/// name. Issue 32: before, 82 of the editor's files named 45 module paths of the compiler
/// (its frontends `front::ron`, `hpmm::assets`, `script::*`, `nav::*`, `plan::*`, …); since,
/// these only, the frontends through `formats`.
const COMPILER_SURFACE: &[&str] = &[
    "project",
    "diag",
    "source",
    "ir",
    "content_test",
    "l10n",
    "l10n::exchange",
    "l10n::round_trip",
    "nlg",
    "plan",
    "reach",
    "reach::target",
    "run",
    "back::program",
    "plan::project",
    "plan::plan_file",
    "formats::ron",
    "formats::locate",
    "formats::print",
    "formats::spaces",
    "formats::scripts",
    "formats::cell",
    "formats::planning",
    "formats::pddl",
    "formats::nav",
    "formats::tests",
];

/// Whether some surface module lies at `path` or below it (`formats` is above `formats::ron`);
/// `strictly`: below it only.
fn leads_to_surface(path: &[String], strictly: bool) -> bool {
    COMPILER_SURFACE.iter().any(|s| {
        let s: Vec<&str> = s.split("::").collect();
        (s.len() > path.len() || (!strictly && s.len() == path.len()))
            && s[..path.len()].iter().zip(path).all(|(a, b)| a == b)
    })
}

/// Why `path` (after `ensemble_compiler::`) is not on the surface, or `None` when it is: an
/// item of the crate root, a surface module, or one item of a surface module (a type and
/// what is inside it, a function, a constant) — never a module below one.
fn off_surface(path: &[String], modules: &BTreeSet<ModPath>) -> Option<String> {
    let is_module = |p: &[String]| modules.contains(&p.to_vec());
    let shown = path.join("::");
    let surface = COMPILER_SURFACE
        .iter()
        .map(|s| s.split("::").map(str::to_string).collect::<Vec<_>>())
        .filter(|s| path.starts_with(s))
        .max_by_key(Vec::len);
    let (base, rest) = match &surface {
        Some(s) => (s.clone(), &path[s.len()..]),
        // `use ensemble_compiler::formats;`: what goes through it is checked where it is used.
        None if path.is_empty() || leads_to_surface(path, true) => return None,
        None => (Vec::new(), path),
    };
    let first = rest.first()?;
    if first.starts_with(|c: char| c.is_ascii_uppercase()) {
        return None;
    }
    let mut named = base.clone();
    named.push(first.clone());
    if is_module(&named) || (base.is_empty() && rest.len() > 1) {
        return Some(format!(
            "`{shown}` reaches into `{}`, which is not on the surface",
            named.join("::")
        ));
    }
    (rest.len() > 1).then(|| format!("`{shown}` names something inside a function or value"))
}

/// Every path the editor names under `ensemble_compiler::` that is off the surface, by file:
/// written out (`ensemble_compiler::a::B`, `::ensemble_compiler::…`), or through a module a
/// `use` binds (`use ensemble_compiler::nlg [as n];` then `n::rank::X`).
fn off_surface_in(src: &Path, compiler: &Path) -> Vec<String> {
    let modules: BTreeSet<ModPath> = module_files(compiler)
        .iter()
        .map(|f| module_of(compiler, f))
        .collect();
    // A module of the compiler: a file of it, or a surface module or a folder above one.
    let names_module =
        |p: &[String]| !p.is_empty() && (modules.contains(p) || leads_to_surface(p, false));
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut found = Vec::new();
    for file in &files {
        let code = code_only(&std::fs::read_to_string(file).unwrap());
        let tests: Vec<_> = inline_modules(&code).into_iter().filter(|b| b.3).collect();
        let in_tests = |at: usize| tests.iter().any(|b| b.0 < at && at < b.1);
        let key = b"ensemble_compiler::";
        let mut named = Vec::new();
        let mut bound: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for start in 0..code.len() {
            if !code[start..].starts_with(key)
                || (start > 0 && is_ident(code[start - 1]))
                || in_tests(start)
            {
                continue;
            }
            let mut paths = Vec::new();
            let end = use_tree(&code, start + key.len(), &[], &mut paths);
            let root = if code[..start].ends_with(b"::") {
                start - 2
            } else {
                start
            };
            if after_use(&code, root) {
                // `use ensemble_compiler::a::b as c;` binds `c`; any other module a use names
                // binds its own name.
                let rest = String::from_utf8_lossy(&code[end..]);
                let alias = rest
                    .trim_start()
                    .strip_prefix("as ")
                    .map(|r| {
                        r.trim_start()
                            .split(|c: char| !c.is_alphanumeric() && c != '_')
                    })
                    .and_then(|mut words| words.next().map(str::to_string));
                let simple = !code[start..end].contains(&b'{');
                for p in &paths {
                    if names_module(p) {
                        let name = match (&alias, simple) {
                            (Some(a), true) => a.clone(),
                            _ => p.last().unwrap().clone(),
                        };
                        bound.insert(name, p.clone());
                    }
                }
            }
            named.extend(paths);
        }
        for start in 0..code.len() {
            if !is_ident(code[start])
                || (start > 0 && (is_ident(code[start - 1]) || b":.".contains(&code[start - 1])))
                || in_tests(start)
            {
                continue;
            }
            let len = code[start..].iter().take_while(|&&c| is_ident(c)).count();
            let word = String::from_utf8_lossy(&code[start..start + len]).into_owned();
            if let Some(base) = bound.get(&word)
                && code[start + len..].starts_with(b"::")
            {
                use_tree(&code, start + len + 2, base, &mut named);
            }
        }
        for p in named {
            if let Some(why) = off_surface(&p, &modules) {
                let rel = file.strip_prefix(src).unwrap_or(file);
                found.push(format!("{}: {why}", rel.display()));
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The editor uses only the compiler's documented surface (issue 32): a frontend can be
/// reorganised without touching the editor, and what the editor depends on is one list,
/// [`COMPILER_SURFACE`], that lib.rs documents. Unit tests are left out.
#[test]
fn the_editor_uses_only_the_compilers_surface() {
    let found = off_surface_in(&editor_src(), &compiler_src());
    assert!(
        found.is_empty(),
        "the editor names compiler internals; use (or add to) `ensemble_compiler::formats` or \
         another module of the surface (COMPILER_SURFACE here, documented in \
         compiler/src/lib.rs): {found:#?}"
    );
    let lib = std::fs::read_to_string(compiler_src().join("lib.rs")).unwrap();
    let section = &lib[lib.find("# The library's surface").unwrap()..];
    for module in COMPILER_SURFACE {
        assert!(
            section.contains(&format!("`{module}`")) || section.contains(&format!("[`{module}::")),
            "compiler/src/lib.rs's surface section does not name `{module}`"
        );
    }
}

/// What the surface measure allows and refuses.
#[test]
fn the_surface_measure_refuses_what_is_below_a_surface_module() {
    let dir = tree(&[
        ("lib.rs", "pub mod nlg; pub mod front; pub mod formats;"),
        ("nlg/mod.rs", "pub mod rank; pub use rank::Speaking;"),
        ("nlg/rank.rs", "pub struct Speaking;"),
        ("front/mod.rs", "pub struct X;"),
        ("formats.rs", "pub mod ron { pub use crate::front::X; }"),
    ]);
    let editor = tree(&[(
        "a.rs",
        "use ensemble_compiler::{compile, Compilation::new, nlg::{self, Speaking, rank_state}};\n\
         use ensemble_compiler::formats::ron::X;\n\
         use ensemble_compiler::nlg::rank::Speaking as S;\n\
         use ensemble_compiler::nlg as n;\n\
         use ensemble_compiler::formats;\n\
         fn g() { n::rank::Deep; formats::ron::X; ::ensemble_compiler::front::Y; }\n\
         fn f() { ensemble_compiler::front::X; ensemble_compiler::nlg::rank_state::inner(); }\n\
         // ensemble_compiler::front::commented\n\
         #[cfg(test)]\nmod tests { use ensemble_compiler::front::X; }\n",
    )]);
    assert_eq!(
        off_surface_in(editor.path(), dir.path()),
        vec![
            "a.rs: `front::X` reaches into `front`, which is not on the surface".to_string(),
            "a.rs: `front::Y` reaches into `front`, which is not on the surface".to_string(),
            "a.rs: `nlg::rank::Deep` reaches into `nlg::rank`, which is not on the surface"
                .to_string(),
            "a.rs: `nlg::rank::Speaking` reaches into `nlg::rank`, which is not on the surface"
                .to_string(),
            "a.rs: `nlg::rank_state::inner` names something inside a function or value".to_string(),
        ]
    );
}
