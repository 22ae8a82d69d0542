//! Finding a project's sources: the `Ensemble.ron` manifest and every asset below it, or a
//! single source file.
//!
//! Discovery is deterministic (sorted paths) and skips hidden folders, `build/` and `target/`
//! output folders, and nested folders that are projects of their own (they hold their own
//! `Ensemble.ron`, like `samples/airport/broken/`).

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::front::ron::{self as ron_front, AssetKind};
use crate::source::{FileId, SourceFile, SourceMap, Span};
use std::path::{Path, PathBuf};
use thiserror::Error;

pub const MANIFEST: &str = "Ensemble.ron";

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
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ProjectError::NotFound(path.to_path_buf()),
        _ => ProjectError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        },
    })?;
    if meta.is_dir() {
        load_dir(path)
    } else {
        load_file(path)
    }
}

fn read_source(
    sources: &mut SourceMap,
    diagnostics: &mut Diagnostics,
    name: String,
    path: &Path,
) -> Result<FileId, ProjectError> {
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
    Ok(id)
}

fn load_dir(root: &Path) -> Result<Project, ProjectError> {
    let manifest_path = root.join(MANIFEST);
    if !manifest_path.is_file() {
        return Err(ProjectError::NotAProject(root.to_path_buf()));
    }
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let manifest_id = read_source(
        &mut sources,
        &mut diagnostics,
        MANIFEST.to_string(),
        &manifest_path,
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
    files.sort();
    for rel in files {
        let full = root.join(&rel);
        let name = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        if exclude.contains(&name) {
            continue;
        }
        let id = read_source(&mut sources, &mut diagnostics, name.clone(), &full)?;
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
            && !(dir == root && name == MANIFEST)
        {
            out.push(path.strip_prefix(root).unwrap_or(&path).to_path_buf());
        }
    }
    Ok(())
}

fn load_file(path: &Path) -> Result<Project, ProjectError> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let Some(kind) = AssetKind::of(&file_name) else {
        return Err(ProjectError::UnsupportedFile(path.to_path_buf()));
    };
    let mut sources = SourceMap::default();
    let mut diagnostics = Diagnostics::default();
    let id = read_source(&mut sources, &mut diagnostics, file_name.clone(), path)?;
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
            read_source(sources, diagnostics, name, &c)?;
            return Ok(());
        }
    }
    Ok(())
}
