//! Finding a project's sources: the `Ensemble.ron` manifest and every asset below it, or a
//! single source file.
//!
//! Discovery is deterministic (sorted paths) and skips hidden folders, `build/` and `target/`
//! output folders, nested folders that are projects of their own (they hold their own
//! `Ensemble.ron`, like `samples/airport/broken/`), and the editor's layout sidecars
//! (`*.layout.ron`: node positions, not behaviour).
//!
//! An [`Overlay`] lets a tool compile what it holds in memory (the editor's unsaved documents)
//! over what is on disk, like rust-analyzer's virtual file system.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::front::ron::{self as ron_front, AssetKind};
use crate::source::{FileId, SourceFile, SourceMap, Span};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Defined with the manifest's reader, so the frontend needs nothing from the project loader.
pub use crate::front::ron::MANIFEST;

/// The suffix of the editor's layout sidecars (`BuyTicket.machine.layout.ron`), which discovery
/// skips: they hold node positions, never behaviour.
pub const LAYOUT_SUFFIX: &str = ".layout.ron";

/// File contents held in memory, by project-relative `/`-separated name: a text replaces (or
/// adds) a file, a removal hides one that is on disk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overlay {
    files: BTreeMap<String, Option<String>>,
    /// Binary files (workbooks) held in memory: an editor's unsaved workbook, as its save
    /// would write it, so what is checked is what is saved.
    binary: BTreeMap<String, std::sync::Arc<[u8]>>,
}

impl Overlay {
    /// Compiles `text` as the file `name`, whether or not it exists on disk.
    pub fn set(&mut self, name: impl Into<String>, text: impl Into<String>) {
        self.files.insert(name.into(), Some(text.into()));
    }

    /// Compiles as if the file `name` did not exist.
    pub fn remove(&mut self, name: impl Into<String>) {
        self.files.insert(name.into(), None);
    }

    /// Compiles the binary file `name` (a workbook) as `bytes`, whether or not `name` exists
    /// on disk.
    pub fn set_bytes(&mut self, name: impl Into<String>, bytes: Vec<u8>) {
        self.binary.insert(name.into(), bytes.into());
    }

    /// Whether the overlay holds `name`'s contents (text or bytes; a removal holds none).
    pub fn holds(&self, name: &str) -> bool {
        matches!(self.files.get(name), Some(Some(_))) || self.binary.contains_key(name)
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.binary.is_empty()
    }

    fn get(&self, name: &str) -> Option<Option<&str>> {
        self.files.get(name).map(|t| t.as_deref())
    }
}

/// Sources ready to compile, and what loading them already found wrong.
pub struct Project {
    pub name: String,
    pub sources: SourceMap,
    /// Built-in libraries the manifest asks for (`sim`).
    pub libraries: Vec<String>,
    pub diagnostics: Diagnostics,
}

impl Project {
    /// A single file checked on its own, not a project (it has no manifest): references it
    /// makes to things that would be elsewhere in a project are not all errors.
    pub fn is_single_file(&self) -> bool {
        !self.sources.iter().any(|(_, f)| f.name == MANIFEST)
    }
}

/// Why a path could not be compiled at all (exit code 2).
#[derive(Debug, Error)]
pub enum ProjectError {
    #[error("{}: no such file or directory", .0.display())]
    NotFound(PathBuf),
    #[error("{}: {message}", path.display())]
    Io { path: PathBuf, message: String },
    #[error("{}: not an Ensemble project (no {MANIFEST} in this directory)", .0.display())]
    NotAProject(PathBuf),
    #[error("{}: not an Ensemble source file (expected one of: {})", .0.display(), AssetKind::suffix_list())]
    UnsupportedFile(PathBuf),
}

/// Loads the project directory or single source file at `path`.
pub fn load(path: &Path) -> Result<Project, ProjectError> {
    load_with(path, &Overlay::default())
}

/// [`load`], with the files of `overlay` read from memory instead of disk. For a project
/// directory the overlay's names are project-relative paths; for a single file, its base name
/// (text or bytes), which also checks a file never saved: `path` need not exist then.
pub fn load_with(path: &Path, overlay: &Overlay) -> Result<Project, ProjectError> {
    // A file never saved yet (an editor's new document) is checked as the overlay holds it.
    let held = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .is_some_and(|n| overlay.holds(&n));
    if held && !path.exists() {
        return load_file(path, overlay);
    }
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ProjectError::NotFound(path.to_path_buf()),
        _ => ProjectError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        },
    })?;
    if meta.is_dir() {
        load_dir(path, overlay)
    } else {
        load_file(path, overlay)
    }
}

fn read_source(
    sources: &mut SourceMap,
    diagnostics: &mut Diagnostics,
    name: String,
    path: &Path,
    overlay: &Overlay,
) -> Result<FileId, ProjectError> {
    if let Some(Some(text)) = overlay.get(&name) {
        return Ok(sources.add(SourceFile::new(name, path.to_path_buf(), text.to_string())));
    }
    if let Some(bytes) = overlay.binary.get(&name) {
        return Ok(sources.add(SourceFile::binary(name, path.to_path_buf(), bytes.clone())));
    }
    if AssetKind::of(&name).is_some_and(AssetKind::is_binary) {
        // Binary sources are read by their frontend; the map only names them.
        if let Err(e) = std::fs::metadata(path) {
            return Err(ProjectError::Io {
                path: path.to_path_buf(),
                message: e.to_string(),
            });
        }
        return Ok(sources.add(SourceFile::new(name, path.to_path_buf(), String::new())));
    }
    let bytes = std::fs::read(path).map_err(|e| ProjectError::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    Ok(add_text_source(sources, diagnostics, name, path, bytes))
}

/// Adds a text source read as `bytes`; bytes that are not UTF-8 are an error at the file's
/// start (the text keeps what can be read). The fuzz targets add their input this way too.
pub fn add_text_source(
    sources: &mut SourceMap,
    diagnostics: &mut Diagnostics,
    name: String,
    path: &Path,
    bytes: Vec<u8>,
) -> FileId {
    let (text, valid) = match String::from_utf8(bytes) {
        Ok(t) => (t, true),
        Err(e) => (String::from_utf8_lossy(e.as_bytes()).into_owned(), false),
    };
    let id = sources.add(SourceFile::new(name, path.to_path_buf(), text));
    if !valid {
        diagnostics.push(
            Diagnostic::error(Code::Syntax, "the file is not valid UTF-8")
                .at(Span::file_start(id), "here"),
        );
    }
    id
}

fn load_dir(root: &Path, overlay: &Overlay) -> Result<Project, ProjectError> {
    let manifest_path = root.join(MANIFEST);
    if !manifest_path.is_file() && !matches!(overlay.get(MANIFEST), Some(Some(_))) {
        return Err(ProjectError::NotAProject(root.to_path_buf()));
    }
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let manifest_id = read_source(
        &mut sources,
        &mut diagnostics,
        MANIFEST.to_string(),
        &manifest_path,
        overlay,
    )?;
    let fallback_name = root
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "project".to_string());
    let manifest = ron_front::parse_manifest(&sources, manifest_id, &mut diagnostics);
    let (name, libraries, exclude) = match manifest {
        Some(m) => (m.name, m.libraries, m.exclude),
        None => (fallback_name, vec!["sim".to_string()], Vec::new()),
    };
    let mut files = Vec::new();
    collect(root, root, &mut files)?;
    let mut names: Vec<String> = files
        .iter()
        .map(|rel| {
            rel.components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        })
        .collect();
    for (name, text) in &overlay.files {
        match text {
            Some(_) if name != MANIFEST && !name.ends_with(LAYOUT_SUFFIX) => {
                names.push(name.clone())
            }
            _ => {}
        }
    }
    names.extend(overlay.binary.keys().cloned());
    names.sort();
    names.dedup();
    names.retain(|n| !matches!(overlay.get(n), Some(None)));
    for name in names {
        let full = root.join(&name);
        if exclude.contains(&name) {
            continue;
        }
        let id = read_source(&mut sources, &mut diagnostics, name.clone(), &full, overlay)?;
        if AssetKind::of(&name).is_none() {
            diagnostics.push(
                Diagnostic::warning(
                    Code::UnknownAsset,
                    format!("`{name}` is not a known asset kind and is ignored"),
                )
                .at(Span::file_start(id), "this file")
                .note(format!(
                    "asset files end in one of: {}",
                    AssetKind::suffix_list()
                )),
            );
        }
    }
    Ok(Project {
        name,
        sources,
        libraries,
        diagnostics,
    })
}

/// Collects `.ron`, `.xlsx` and `.pddl` files below `dir` (relative to `root`), except the
/// manifest.
fn collect(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ProjectError> {
    let io = |e: std::io::Error| ProjectError::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    };
    for entry in std::fs::read_dir(dir).map_err(io)? {
        let entry = entry.map_err(io)?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let file_type = entry.file_type().map_err(io)?;
        if file_type.is_dir() {
            if name == "build" || name == "target" || path.join(MANIFEST).exists() {
                continue;
            }
            collect(root, &path, out)?;
        } else if (name.ends_with(".ron") || name.ends_with(".xlsx") || name.ends_with(".pddl"))
            && !name.starts_with("~$")
            && !name.ends_with(LAYOUT_SUFFIX)
            && !(dir == root && name == MANIFEST)
        {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

fn load_file(path: &Path, overlay: &Overlay) -> Result<Project, ProjectError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(kind) = AssetKind::of(&file_name) else {
        return Err(ProjectError::UnsupportedFile(path.to_path_buf()));
    };
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let id = read_source(
        &mut sources,
        &mut diagnostics,
        file_name.clone(),
        path,
        overlay,
    )?;
    if matches!(kind, AssetKind::Pddl | AssetKind::Problem) {
        add_domain_beside(&mut sources, &mut diagnostics, id, path)?;
    }
    let name = file_name
        .strip_suffix(kind.suffix())
        .unwrap_or(&file_name)
        .to_string();
    Ok(Project {
        name,
        sources,
        libraries: vec!["sim".to_string()],
        diagnostics,
    })
}

/// A problem checked on its own is checked against its domain when the domain is beside it:
/// `domain.pddl` in the same folder if it defines the domain the problem names, else the first
/// other `.pddl` or `*.domain.ron` file there (in name order) that does.
fn add_domain_beside(
    sources: &mut SourceMap,
    diagnostics: &mut Diagnostics,
    problem: FileId,
    path: &Path,
) -> Result<(), ProjectError> {
    let text = &sources.get(problem).text;
    let native = path.extension().is_none_or(|e| e != "pddl");
    let wanted = if native {
        ron_front::problem_domain(text)
    } else {
        match crate::front::pddl::header(text) {
            Some((false, _)) => crate::front::pddl::problem_domain(text),
            _ => None, // a domain, or unreadable: checked as it is
        }
    };
    let Some(wanted) = wanted else {
        return Ok(());
    };
    // Either kind of problem may use either kind of domain.
    let defines = |p: &Path, t: &str| match AssetKind::of(&p.to_string_lossy()) {
        Some(AssetKind::Domain) => ron_front::domain_name(t).as_deref() == Some(wanted.as_str()),
        Some(AssetKind::Pddl) => crate::front::pddl::header(t) == Some((true, wanted.clone())),
        _ => false,
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.as_path() != path)
                .collect()
        })
        .unwrap_or_default();
    candidates.sort_by_key(|p| (p.file_name().is_none_or(|n| n != "domain.pddl"), p.clone()));
    for c in candidates {
        let Ok(t) = std::fs::read_to_string(&c) else {
            continue;
        };
        if defines(&c, &t) {
            let name = c
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            read_source(sources, diagnostics, name, &c, &Overlay::default())?;
            return Ok(());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn airport() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport")
    }

    fn names(p: &Project) -> Vec<String> {
        p.sources.iter().map(|(_, f)| f.name.clone()).collect()
    }

    #[test]
    fn an_overlay_replaces_adds_and_hides_files() {
        let mut overlay = Overlay::default();
        overlay.set(
            "machines/BuyTicket.machine.ron",
            "Machine(name: \"BuyTicket\", states: [(name: \"Start\")])",
        );
        overlay.set(
            "machines/New.machine.ron",
            "Machine(name: \"New\", states: [])",
        );
        overlay.remove("machines/SellTicket.machine.ron");
        overlay.set("machines/New.machine.layout.ron", "Layout()");
        let p = load_with(&airport(), &overlay).unwrap();
        let names = names(&p);
        assert!(names.contains(&"machines/New.machine.ron".to_string()));
        assert!(!names.iter().any(|n| n.ends_with("/SellTicket.machine.ron")));
        assert!(
            names
                .iter()
                .any(|n| n.ends_with("/StandSellTicket.machine.ron"))
        );
        assert!(!names.iter().any(|n| n.contains("layout")));
        let (_, buy) = p
            .sources
            .iter()
            .find(|(_, f)| f.name == "machines/BuyTicket.machine.ron")
            .unwrap();
        assert!(buy.text.contains("states: [(name: \"Start\")]"));
        // Discovery order stays sorted with added files.
        let mut sorted = names.clone();
        sorted[1..].sort();
        assert_eq!(names, sorted);
    }

    #[test]
    fn a_workbook_can_be_held_in_memory_under_its_project_name() {
        let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/bench");
        let mut overlay = Overlay::default();
        overlay.remove("bench.script.ron");
        let bytes = std::fs::read(bench.join("bench.xlsx")).unwrap();
        overlay.set_bytes("scripts/bench.xlsx", bytes.clone());
        assert!(!overlay.is_empty());
        let p = load_with(&bench, &overlay).unwrap();
        let (_, book) = p
            .sources
            .iter()
            .find(|(_, f)| f.name == "scripts/bench.xlsx")
            .expect("the workbook is a source under the name it was given");
        assert_eq!(book.path, bench.join("scripts/bench.xlsx"));
        assert_eq!(book.bytes.as_deref(), Some(&bytes[..]));
        let c = crate::compile(p);
        assert!(
            !c.diagnostics.has_errors(),
            "{}",
            c.diagnostics.render(&c.sources, false)
        );
    }

    /// An editor's new document, never saved: the single-file check reads it from the overlay
    /// (before, "not found" until its first save).
    #[test]
    fn a_file_never_saved_is_checked_as_held() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("New.machine.ron");
        let mut overlay = Overlay::default();
        assert!(matches!(
            load_with(&path, &overlay),
            Err(ProjectError::NotFound(_))
        ));
        overlay.set(
            "New.machine.ron",
            "Machine(name: \"New\", states: [(name: \"Start\")])",
        );
        let p = load_with(&path, &overlay).unwrap();
        assert_eq!(names(&p), vec!["New.machine.ron"]);
        let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/bench");
        let mut overlay = Overlay::default();
        let book = dir.path().join("fresh.xlsx");
        overlay.set_bytes(
            "fresh.xlsx",
            std::fs::read(bench.join("bench.xlsx")).unwrap(),
        );
        let c = crate::compile_path_with(&book, &overlay).unwrap();
        assert_eq!(c.sources.iter().count(), 1);
        assert!(
            !c.diagnostics.has_errors(),
            "{}",
            c.diagnostics.render(&c.sources, false)
        );
    }

    #[test]
    fn layout_sidecars_are_not_sources() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MANIFEST), "Project(name: \"p\")").unwrap();
        std::fs::write(
            dir.path().join("A.machine.ron"),
            "Machine(name: \"A\", states: [(name: \"Start\")])",
        )
        .unwrap();
        std::fs::write(dir.path().join("A.machine.layout.ron"), "not even RON").unwrap();
        let p = load(dir.path()).unwrap();
        assert_eq!(names(&p), vec![MANIFEST, "A.machine.ron"]);
        assert!(p.diagnostics.is_empty());
    }

    #[test]
    fn a_manifest_in_memory_makes_a_project() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            load(dir.path()),
            Err(ProjectError::NotAProject(_))
        ));
        let mut overlay = Overlay::default();
        overlay.set(MANIFEST, "Project(name: \"fresh\")");
        assert_eq!(load_with(dir.path(), &overlay).unwrap().name, "fresh");
    }
}
