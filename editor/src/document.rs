//! The project as the editor holds it: the manifest and every asset as a document with its
//! parsed value, its comments, its layout and the state it was last saved in. The editor edits
//! these values — never the IR, which is derived from their printed text for diagnostics only.
//!
//! **Invariants.** A document is dirty exactly when its state differs from its saved state, so
//! undoing back to the saved state makes it clean again, and saving writes only dirty
//! documents. Documents are never removed from the list during a session (a deleted asset is a
//! tombstone), so a [`DocId`] stays valid for undo. Every write is atomic.

use crate::sidecar::{self, Layout};
use ensemble_compiler::formats::print::Comments;
use ensemble_compiler::formats::ron::{AnyAsset, FileKind, ParseError};
use ensemble_compiler::formats::ron::{AssetKind, MachineAsset, Manifest, StateAsset};
use ensemble_compiler::formats::scripts::ScriptAsset;
use ensemble_compiler::project::{self, MANIFEST, Overlay};
use ensemble_runtime::fs::write_atomic;
use std::path::{Path, PathBuf};

pub type DocId = usize;

/// What a document holds.
// A project has tens of documents, each held once (plus undo snapshots): the size of the
// parsed variant does not matter, and boxing it would only add a pointer chase to every edit.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum Content {
    Asset(AnyAsset),
    /// Text that does not read as its kind: kept exactly as written, shown with its error.
    Unparsed {
        text: String,
        error: ParseError,
    },
    /// A text source with no RON shape (a PDDL domain or problem): edited as text, saved as
    /// typed.
    Text(String),
    /// An Excel workbook, read as the interaction script it holds: edited in the rule table
    /// and saved back as a workbook (in the contract's layout).
    Workbook(ScriptAsset),
    /// A binary source that does not read (a broken workbook): listed with its problems, not
    /// edited.
    Binary,
}

/// Everything about a document that an edit can change (and undo restores).
#[derive(Clone, Debug, PartialEq)]
pub struct DocState {
    /// Relative to the project root, `/`-separated.
    pub path: String,
    pub content: Content,
    pub comments: Comments,
    /// Node positions (machines), saved in the sidecar beside the asset.
    pub layout: Layout,
    /// Deleted (or, as a saved state, not on disk yet).
    pub deleted: bool,
}

impl DocState {
    /// The state of a file that is not there.
    fn absent(path: &str) -> DocState {
        DocState {
            path: path.to_string(),
            content: Content::Binary,
            comments: Comments::default(),
            layout: Layout::default(),
            deleted: true,
        }
    }

    /// The printed text (the file's bytes when saved); `None` for binary sources.
    pub fn text(&self) -> Option<String> {
        match &self.content {
            Content::Asset(a) => Some(a.print(&self.comments)),
            Content::Unparsed { text, .. } | Content::Text(text) => Some(text.clone()),
            Content::Workbook(_) | Content::Binary => None,
        }
    }

    /// What an autosave keeps of the content: the text, or a workbook's script as RON.
    pub fn autosave_text(&self) -> Option<String> {
        match &self.content {
            Content::Workbook(s) => Some(ensemble_compiler::formats::ron::to_canonical_string(s)),
            _ => self.text(),
        }
    }

    pub fn workbook(&self) -> Option<&ScriptAsset> {
        match &self.content {
            Content::Workbook(s) => Some(s),
            _ => None,
        }
    }

    pub fn asset(&self) -> Option<&AnyAsset> {
        match &self.content {
            Content::Asset(a) => Some(a),
            _ => None,
        }
    }

    pub fn asset_mut(&mut self) -> Option<&mut AnyAsset> {
        match &mut self.content {
            Content::Asset(a) => Some(a),
            _ => None,
        }
    }

    pub fn machine(&self) -> Option<&MachineAsset> {
        match self.asset()? {
            AnyAsset::Machine(m) => Some(m),
            _ => None,
        }
    }

    pub fn machine_mut(&mut self) -> Option<&mut MachineAsset> {
        match self.asset_mut()? {
            AnyAsset::Machine(m) => Some(m),
            _ => None,
        }
    }

    /// Reads `text` as the file at `path`: parsed when it reads, kept as text when not. For
    /// a workbook, `text` is its script as RON (an autosave).
    pub fn from_text(path: &str, kind: FileKind, text: String, layout: Layout) -> DocState {
        let content = match AnyAsset::parse(kind, &text) {
            None if kind == FileKind::Asset(AssetKind::Pddl) => Content::Text(text.clone()),
            None => match AnyAsset::parse(FileKind::Asset(AssetKind::Script), &text) {
                Some(Ok(AnyAsset::Script(s))) => Content::Workbook(s),
                _ => Content::Binary,
            },
            Some(Ok(a)) => Content::Asset(a),
            Some(Err(error)) => Content::Unparsed {
                text: text.clone(),
                error,
            },
        };
        let comments = match content {
            Content::Asset(_) => Comments::of(&text),
            _ => Comments::default(),
        };
        DocState {
            path: path.to_string(),
            content,
            comments,
            layout,
            deleted: false,
        }
    }
}

pub struct Document {
    pub kind: FileKind,
    pub state: DocState,
    /// As on disk after the last open or save (deleted: not on disk).
    pub saved: DocState,
}

impl Document {
    pub fn is_dirty(&self) -> bool {
        self.state != self.saved
    }

    /// The file name without folders and kind suffix (`machines/BuyTicket.machine.ron` ->
    /// `BuyTicket`).
    pub fn title(&self) -> String {
        title_of(&self.state.path, self.kind)
    }

    fn content_differs(&self) -> bool {
        self.state.content != self.saved.content || self.state.comments != self.saved.comments
    }
}

pub fn title_of(path: &str, kind: FileKind) -> String {
    let base = path.rsplit('/').next().unwrap_or(path);
    let suffix = match kind {
        FileKind::Manifest => return base.to_string(),
        FileKind::Asset(k) => k.suffix(),
    };
    base.strip_suffix(suffix).unwrap_or(base).to_string()
}

/// The project a path belongs to: a folder is its own project; a file belongs to the nearest
/// folder above it that holds a manifest, and is returned relative to it (`/`-separated).
pub fn project_of(path: &Path) -> (PathBuf, Option<String>) {
    if !path.is_file() {
        return (path.to_path_buf(), None);
    }
    let found = path
        .ancestors()
        .skip(1)
        .find(|dir| dir.join(MANIFEST).is_file());
    match found {
        Some(root) => {
            let rel = path
                .strip_prefix(root)
                .unwrap_or(path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            (root.to_path_buf(), Some(rel))
        }
        None => (path.to_path_buf(), None),
    }
}

/// What saving did.
#[derive(Debug, Default, PartialEq)]
pub struct Saved {
    /// Files written or removed (assets and sidecars), relative.
    pub written: Vec<String>,
    pub removed: Vec<String>,
    /// What the user should know about how a file was written.
    pub notes: Vec<String>,
}

pub struct Project {
    pub root: PathBuf,
    pub docs: Vec<Document>,
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> String {
    format!("{}: {e}", path.display())
}

impl Project {
    /// Reads the project at `root` as the compiler finds it (same discovery, same exclusions).
    pub fn open(root: &Path) -> Result<Project, String> {
        let loaded = project::load(root).map_err(|e| e.to_string())?;
        if !root.is_dir() {
            return Err(format!("{}: not a project folder", root.display()));
        }
        let mut docs = Vec::new();
        for (_, file) in loaded.sources.iter() {
            let Some(kind) = FileKind::of(&file.name) else {
                continue;
            };
            let layout = if matches!(kind, FileKind::Asset(k) if sidecar::has_sidecar(k)) {
                std::fs::read_to_string(root.join(sidecar::path_for(&file.name)))
                    .map(|t| Layout::parse(&t))
                    .unwrap_or_default()
            } else {
                Layout::default()
            };
            let mut state = DocState::from_text(&file.name, kind, file.text.clone(), layout);
            if kind == FileKind::Asset(AssetKind::Workbook)
                && let Ok((script, _)) = crate::workbook::import(&root.join(&file.name))
            {
                // A workbook that does not read stays binary; the compiler says why.
                state.content = Content::Workbook(script);
            }
            docs.push(Document {
                kind,
                saved: state.clone(),
                state,
            });
        }
        Ok(Project {
            root: root.to_path_buf(),
            docs,
        })
    }

    /// Creates a project in `root` (made if missing; must not hold a project already): a
    /// manifest linking the standard library and a starter machine, written to disk at once.
    pub fn create(root: &Path, name: &str) -> Result<Project, String> {
        if root.join(MANIFEST).exists() {
            return Err(format!(
                "{}: there is a project here already",
                root.display()
            ));
        }
        std::fs::create_dir_all(root).map_err(|e| io_error(root, e))?;
        let manifest = Manifest {
            name: name.to_string(),
            libraries: vec!["sim".to_string()],
            exclude: Vec::new(),
            locales: Vec::new(),
            language: "en".to_string(),
            audio: None,
            migrations: Default::default(),
        };
        let machine = starter_machine("Main");
        let files = [
            (MANIFEST.to_string(), AnyAsset::Manifest(manifest)),
            (
                "machines/Main.machine.ron".to_string(),
                AnyAsset::Machine(machine),
            ),
        ];
        for (path, asset) in files {
            let full = root.join(&path);
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
            }
            write_atomic(&full, asset.print(&Comments::default()).as_bytes())
                .map_err(|e| io_error(&full, e))?;
        }
        Project::open(root)
    }

    pub fn name(&self) -> String {
        self.docs
            .iter()
            .find_map(|d| match d.state.asset() {
                Some(AnyAsset::Manifest(m)) if !d.state.deleted => Some(m.name.clone()),
                _ => None,
            })
            .unwrap_or_else(|| {
                self.root
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "project".into())
            })
    }

    /// Documents that exist (not deleted), in path order.
    pub fn live(&self) -> impl Iterator<Item = (DocId, &Document)> {
        self.docs
            .iter()
            .enumerate()
            .filter(|(_, d)| !d.state.deleted)
    }

    /// Opens `path` (relative) though the project does not compile it — a file the manifest
    /// excludes, such as a workbook kept beside its RON import — so the designer edits the file
    /// they asked for. `None` when it is not an asset file of this project.
    pub fn open_outside_build(&mut self, path: &str) -> Option<DocId> {
        if let Some(id) = self.by_path(path) {
            return Some(id);
        }
        let kind = FileKind::of(path)?;
        let full = self.root.join(path);
        let state = match kind {
            FileKind::Asset(AssetKind::Workbook) => {
                let (script, _) = crate::workbook::import(&full).ok()?;
                DocState {
                    content: Content::Workbook(script),
                    deleted: false,
                    ..DocState::absent(path)
                }
            }
            _ => {
                let text = std::fs::read_to_string(&full).ok()?;
                DocState::from_text(path, kind, text, Layout::default())
            }
        };
        self.docs.push(Document {
            kind,
            saved: state.clone(),
            state,
        });
        Some(self.docs.len() - 1)
    }

    /// Whether the manifest keeps `path` out of the build (the compiler does not read it).
    pub fn excluded(&self, path: &str) -> bool {
        self.live().any(|(_, d)| match d.state.asset() {
            Some(AnyAsset::Manifest(m)) => m.exclude.iter().any(|e| e == path),
            _ => false,
        })
    }

    pub fn by_path(&self, path: &str) -> Option<DocId> {
        self.live()
            .find(|(_, d)| d.state.path == path)
            .map(|(i, _)| i)
    }

    /// The document holding the machine named `name`.
    pub fn machine_doc(&self, name: &str) -> Option<DocId> {
        self.live()
            .find(|(_, d)| d.state.machine().is_some_and(|m| m.name == name))
            .map(|(i, _)| i)
    }

    pub fn machine_names(&self) -> Vec<String> {
        self.live()
            .filter_map(|(_, d)| d.state.machine().map(|m| m.name.clone()))
            .collect()
    }

    pub fn is_dirty(&self) -> bool {
        self.docs.iter().any(Document::is_dirty)
    }

    pub fn dirty_count(&self) -> usize {
        self.docs.iter().filter(|d| d.is_dirty()).count()
    }

    /// Adds a document that is not on disk yet.
    pub fn add(&mut self, kind: FileKind, state: DocState) -> DocId {
        let saved = DocState::absent(&state.path);
        self.docs.push(Document { kind, state, saved });
        self.docs.len() - 1
    }

    /// Whether `name` is taken for a new asset of `kind`, in the compiler's namespaces: machines;
    /// scenes and chat scenes together; spaces and accumulators together.
    pub fn name_taken(&self, kind: AssetKind, name: &str) -> bool {
        self.live().any(|(_, d)| match d.state.asset() {
            Some(AnyAsset::Machine(m)) => kind == AssetKind::Machine && m.name == name,
            Some(AnyAsset::Scene(x)) => {
                matches!(kind, AssetKind::Scene | AssetKind::Chat) && x.name == name
            }
            Some(AnyAsset::Chat(x)) => {
                matches!(kind, AssetKind::Scene | AssetKind::Chat) && x.name == name
            }
            Some(AnyAsset::Space(x)) => kind == AssetKind::Space && x.name == name,
            Some(AnyAsset::Actions(a)) => {
                kind == AssetKind::Space && a.accumulators.iter().any(|x| x.name == name)
            }
            _ => false,
        })
    }

    /// A path for a new file `stem` + the kind's suffix in `folder`, unused by any document.
    pub fn free_path(&self, folder: &str, stem: &str, kind: AssetKind) -> String {
        let prefix = if folder.is_empty() {
            String::new()
        } else {
            format!("{folder}/")
        };
        let mut n = 1;
        loop {
            let stem = if n == 1 {
                stem.to_string()
            } else {
                format!("{stem}{n}")
            };
            let path = format!("{prefix}{stem}{}", kind.suffix());
            let taken = self.docs.iter().any(|d| {
                (d.state.path == path && !d.state.deleted)
                    || (d.saved.path == path && !d.saved.deleted)
            }) || self.root.join(&path).exists();
            if !taken {
                return path;
            }
            n += 1;
        }
    }

    /// Changed workbooks, by the path they will be saved at: the compiler reads them once they
    /// are written somewhere ([`crate::analysis`] does, off the UI thread).
    pub fn unsaved_workbooks(&self) -> Vec<(String, ScriptAsset)> {
        self.docs
            .iter()
            .filter(|d| d.is_dirty() && !d.state.deleted)
            .filter_map(|d| Some((d.state.path.clone(), d.state.workbook()?.clone())))
            .collect()
    }

    /// The unsaved documents as the compiler should see them: printed text for changed files,
    /// removals for deleted or moved ones.
    pub fn overlay(&self) -> Overlay {
        let mut overlay = Overlay::default();
        for d in self.docs.iter().filter(|d| d.is_dirty()) {
            if !d.saved.deleted && (d.state.deleted || d.saved.path != d.state.path) {
                overlay.remove(d.saved.path.clone());
            }
            if !d.state.deleted
                && let Some(text) = d.state.text()
            {
                overlay.set(d.state.path.clone(), text);
            }
        }
        overlay
    }

    /// Writes every dirty document (atomically), moves renamed files, removes deleted ones.
    /// A document that fails stays dirty; the others are saved.
    pub fn save(&mut self) -> Result<Saved, (Saved, Vec<String>)> {
        let mut report = Saved::default();
        let mut errors = Vec::new();
        for d in self.docs.iter_mut().filter(|d| d.is_dirty()) {
            match save_one(&self.root, d, &mut report) {
                Ok(()) => d.saved = d.state.clone(),
                Err(e) => errors.push(e),
            }
        }
        if errors.is_empty() {
            Ok(report)
        } else {
            Err((report, errors))
        }
    }
}

fn remove_file(root: &Path, path: &str, report: &mut Saved) -> Result<(), String> {
    let full = root.join(path);
    match std::fs::remove_file(&full) {
        Ok(()) => {
            report.removed.push(path.to_string());
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(&full, e)),
    }
}

fn write_file(root: &Path, path: &str, text: &str, report: &mut Saved) -> Result<(), String> {
    let full = root.join(path);
    if let Some(dir) = full.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    }
    write_atomic(&full, text.as_bytes()).map_err(|e| io_error(&full, e))?;
    report.written.push(path.to_string());
    Ok(())
}

fn save_one(root: &Path, d: &Document, report: &mut Saved) -> Result<(), String> {
    let (now, was) = (&d.state, &d.saved);
    let has_sidecar = matches!(d.kind, FileKind::Asset(k) if sidecar::has_sidecar(k));
    let moved = !was.deleted && (now.deleted || now.path != was.path);
    let mut wrote_workbook = false;
    if !now.deleted {
        let fresh = was.deleted || now.path != was.path;
        if (fresh || d.content_differs())
            && let Some(text) = now.text()
        {
            write_file(root, &now.path, &text, report)?;
        }
        // A changed (or new) workbook is written whole; an unchanged one moves as it is.
        if let Some(script) = now.workbook()
            && (was.deleted || d.content_differs())
        {
            let full = root.join(&now.path);
            if let Some(dir) = full.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
            }
            // Only the changed cells are written, keeping the designer's formatting; a file
            // that cannot be patched is written whole, and the report says so.
            let saved = ensemble_compiler::formats::scripts::save(script, &full)
                .map_err(|e| io_error(&full, e))?;
            if let ensemble_compiler::formats::scripts::Saved::Rewritten { why } = saved {
                report.notes.push(format!(
                    "{} was written whole, its formatting not kept ({why})",
                    now.path
                ));
            }
            report.written.push(now.path.clone());
            wrote_workbook = true;
        }
        if has_sidecar && (fresh || now.layout != was.layout) {
            let side = sidecar::path_for(&now.path);
            if now.layout.is_empty() {
                remove_file(root, &side, report)?;
            } else {
                write_file(root, &side, &now.layout.print(), report)?;
            }
        }
    }
    if moved {
        if d.kind == FileKind::Asset(AssetKind::Workbook) && !now.deleted && !wrote_workbook {
            // A binary file moves as it is.
            std::fs::rename(root.join(&was.path), root.join(&now.path))
                .map_err(|e| io_error(&root.join(&was.path), e))?;
            report.written.push(now.path.clone());
        } else {
            remove_file(root, &was.path, report)?;
        }
        if has_sidecar {
            remove_file(root, &sidecar::path_for(&was.path), report)?;
        }
    }
    Ok(())
}

/// A new machine as the editor creates it: `Start` leading to `Finish`.
pub fn starter_machine(name: &str) -> MachineAsset {
    MachineAsset {
        name: name.to_string(),
        initial: None,
        states: vec![
            StateAsset {
                name: "Start".into(),
                code: None,
                modifier: None,
                params: Default::default(),
                on: vec![("Empty".into(), "Finish".into())],
            },
            StateAsset {
                name: "Finish".into(),
                code: None,
                modifier: None,
                params: Default::default(),
                on: vec![],
            },
        ],
    }
}

/// What to show after a click on a diagnostic or a search result.
#[derive(Clone, Debug, PartialEq)]
pub enum Reveal {
    /// The value at this RON path (from a diagnostic).
    Path(Vec<ensemble_compiler::formats::locate::PathSeg>),
    /// The item named so (from Find), in the list field `list`.
    Item { list: String, name: String },
}

/// Documents an edit changed, each with its state before (one undo step).
pub type Changes = Vec<(DocId, DocState)>;

/// A name an asset can have: letters, digits, `-` and `_`, starting with a letter.
pub fn check_asset_name(name: &str) -> Result<(), String> {
    let ok = name.chars().next().is_some_and(|c| c.is_alphabetic())
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(())
    } else {
        Err("use letters, digits, - and _, starting with a letter".into())
    }
}

/// What a kind is called in menus (`New machine`).
pub fn noun(kind: AssetKind) -> &'static str {
    match kind {
        AssetKind::Machine => "machine",
        AssetKind::StateLibrary => "state library",
        AssetKind::Locations => "locations file",
        AssetKind::Scene => "scene",
        AssetKind::Script => "interaction script",
        AssetKind::SmartLocation => "smart location",
        AssetKind::Workbook => "workbook",
        AssetKind::Sentences => "sentences file",
        AssetKind::Space => "HMM space",
        AssetKind::Lexicon => "lexicon",
        AssetKind::Evidence => "evidence file",
        AssetKind::Concepts => "concepts file",
        AssetKind::Actions => "actions file",
        AssetKind::Chat => "chat scene",
        AssetKind::ActionList => "action list",
        AssetKind::Domain => "planning domain",
        AssetKind::Problem => "planning problem",
        AssetKind::Pddl => "PDDL file",
        AssetKind::Navigation => "navigation graph",
        AssetKind::Test => "test file",
        AssetKind::Strings => "string table",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn copy_dir(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            let target = to.join(e.file_name());
            if e.file_type().unwrap().is_dir() {
                copy_dir(&e.path(), &target);
            } else {
                std::fs::copy(e.path(), target).unwrap();
            }
        }
    }

    pub(crate) fn airport_copy() -> tempfile::TempDir {
        sample_copy("airport")
    }

    /// A copy of `samples/NAME` in a temporary folder.
    pub(crate) fn sample_copy(name: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../samples")
                .join(name),
            dir.path(),
        );
        // Whatever an editor session left in the sample is not part of it.
        let _ = std::fs::remove_dir_all(dir.path().join(".ensemble"));
        dir
    }

    #[test]
    fn opening_a_sample_is_clean_and_saving_writes_nothing() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        assert!(!p.is_dirty());
        assert!(p.overlay().is_empty());
        assert_eq!(p.save().unwrap(), Saved::default());
        // Every document prints back to its bytes on disk.
        for (_, d) in p.live() {
            if let Some(text) = d.state.text() {
                let disk = std::fs::read_to_string(dir.path().join(&d.state.path)).unwrap();
                assert_eq!(text, disk, "{}", d.state.path);
            }
        }
    }

    #[test]
    fn a_one_state_edit_writes_one_file_with_a_small_diff() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        let id = p.machine_doc("SellTicket").unwrap();
        let path = p.docs[id].state.path.clone();
        let before = std::fs::read_to_string(dir.path().join(&path)).unwrap();
        p.docs[id].state.machine_mut().unwrap().states[2].modifier = Some(
            ensemble_compiler::formats::ron::ModifierValue::Name("Right.|Sure.".into()),
        );
        assert!(p.is_dirty());
        assert!(!p.overlay().is_empty());
        let report = p.save().unwrap();
        assert_eq!(report.written, vec![path.clone()]);
        assert!(!p.is_dirty());
        let after = std::fs::read_to_string(dir.path().join(&path)).unwrap();
        let changed: Vec<_> = before
            .lines()
            .zip(after.lines())
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert_eq!(before.lines().count(), after.lines().count());
    }

    #[test]
    fn moving_a_node_writes_only_the_sidecar() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        let id = p.machine_doc("BuyTicket").unwrap();
        p.docs[id].state.layout.set("Start", [10.0, 20.0]);
        let report = p.save().unwrap();
        assert_eq!(
            report.written,
            vec!["machines/BuyTicket.machine.layout.ron"]
        );
        let again = Project::open(dir.path()).unwrap();
        assert_eq!(
            again.docs[again.machine_doc("BuyTicket").unwrap()]
                .state
                .layout
                .get("Start"),
            Some([10.0, 20.0])
        );
    }

    #[test]
    fn new_renamed_and_deleted_documents_reach_the_disk() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        let kind = FileKind::Asset(AssetKind::Machine);
        let path = p.free_path("machines", "Patrol", AssetKind::Machine);
        assert_eq!(path, "machines/Patrol.machine.ron");
        let new = p.add(
            kind,
            DocState {
                path: path.clone(),
                content: Content::Asset(AnyAsset::Machine(starter_machine("Patrol"))),
                comments: Comments::default(),
                layout: Layout::default(),
                deleted: false,
            },
        );
        let buy = p.machine_doc("BuyTicket").unwrap();
        p.docs[buy].state.path = "machines/Purchase.machine.ron".into();
        let sell = p.machine_doc("SellTicket").unwrap();
        p.docs[sell].state.deleted = true;
        // The compiler sees it all before it is saved.
        let overlay = p.overlay();
        let c = ensemble_compiler::compile_path_with(dir.path(), &overlay).unwrap();
        let names: Vec<_> = c.sources.iter().map(|(_, f)| f.name.clone()).collect();
        assert!(names.contains(&path));
        assert!(names.contains(&"machines/Purchase.machine.ron".to_string()));
        assert!(!names.iter().any(|n| n.ends_with("/SellTicket.machine.ron")));
        p.save().unwrap();
        assert!(dir.path().join(&path).exists());
        assert!(dir.path().join("machines/Purchase.machine.ron").exists());
        assert!(!dir.path().join("machines/BuyTicket.machine.ron").exists());
        assert!(!dir.path().join("machines/SellTicket.machine.ron").exists());
        assert!(!p.docs[new].is_dirty());
    }

    #[test]
    fn a_file_that_does_not_parse_is_kept_as_written() {
        let dir = airport_copy();
        let broken = "Machine(name: \"Broken\", states: [\n";
        std::fs::write(dir.path().join("machines/Broken.machine.ron"), broken).unwrap();
        let p = Project::open(dir.path()).unwrap();
        let d = &p.docs[p.by_path("machines/Broken.machine.ron").unwrap()];
        assert!(matches!(d.state.content, Content::Unparsed { .. }));
        assert_eq!(d.state.text().unwrap(), broken);
    }

    #[test]
    fn create_makes_a_project_that_compiles() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("quest");
        let p = Project::create(&root, "quest").unwrap();
        assert_eq!(p.name(), "quest");
        let c = ensemble_compiler::compile_path(&root).unwrap();
        assert!(
            !c.diagnostics.has_errors(),
            "{}",
            c.diagnostics.render(&c.sources, false)
        );
        assert!(Project::create(&root, "again").is_err());
    }
}
