//! Diagnostics on every edit, off the UI thread. Each edit bumps a generation; ~150 ms after the
//! last one the printed text of the dirty documents goes, as an overlay, to a worker thread
//! that compiles the project with the real compiler. A result is shown only if it is for the
//! latest generation; stale ones are dropped.
//!
//! Spans in a diagnostic are in the text that was compiled, so each is located there once —
//! line and column, and the RON path of the value it points at (`states[3].on[0][1]`), read
//! back as the *name* of the item it is about, which survives later edits.

use crate::document::Project;
use ensemble_compiler::Compilation;
use ensemble_compiler::diag::{Diagnostic, Severity};
use ensemble_compiler::formats::locate::{self, PathSeg};
use ensemble_compiler::formats::scripts::ScriptAsset;
use ensemble_compiler::project::Overlay;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// How long typing must pause before the project is compiled again.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// The program a compile made, or why there is none (the preview's `program_of`: what the
/// preview runs is what the reach search and the tests run).
pub type ProgramOf = fn(&Report) -> Result<std::sync::Arc<ensemble_runtime::Program>, String>;

/// A diagnostic and where it points, resolved against the text it was reported in.
#[derive(Clone, Debug, PartialEq)]
pub struct Located {
    pub diagnostic: Diagnostic,
    /// The file, relative to the project root.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub sheet: Option<String>,
    pub cell: Option<String>,
    /// The RON path of the value the primary span points at (empty: the whole asset).
    pub path: Vec<PathSeg>,
    /// The `name` of the list item the path enters (`states[3]` -> that state's name).
    pub item: Option<String>,
}

impl Located {
    pub fn severity(&self) -> Severity {
        self.diagnostic.severity
    }

    /// The list field the path enters (`states`), if it enters one.
    pub fn list(&self) -> Option<&str> {
        match self.path.first() {
            Some(PathSeg::Field(f)) if matches!(self.path.get(1), Some(PathSeg::Index(_))) => {
                Some(f)
            }
            _ => None,
        }
    }

    /// The path below the item (`on[0][1]` for `states[3].on[0][1]`).
    pub fn below_item(&self) -> &[PathSeg] {
        if self.list().is_some() {
            &self.path[2..]
        } else {
            &[]
        }
    }

    /// `file:line:column`, or `file · Sheet!D7` for workbook cells.
    pub fn location(&self) -> String {
        let file = self.file.as_deref().unwrap_or("");
        match (&self.sheet, &self.cell, self.line, self.column) {
            (Some(sheet), Some(cell), _, _) => format!("{file} · {sheet}!{cell}"),
            (_, _, Some(l), Some(c)) => format!("{file}:{l}:{c}"),
            _ => file.to_string(),
        }
    }
}

/// The `name` (or first) field of the item at `path[..2]` in `tree`.
fn item_name(text: &str, tree: &locate::Node, path: &[PathSeg]) -> Option<String> {
    let (PathSeg::Field(list), PathSeg::Index(i)) = (path.first()?, path.get(1)?) else {
        return None;
    };
    let seg = [locate::Seg::Field(list), locate::Seg::Index(*i)];
    let item_span = tree.find(&seg);
    let item = locate::parse(&text[item_span])?;
    let name = match &item {
        locate::Node::Struct { fields, .. } => fields
            .iter()
            .find(|(k, _)| k == "name")
            .or(fields.first())
            .map(|(_, v)| v.span()),
        locate::Node::Seq { items, .. } => items.first().map(|v| v.span()),
        locate::Node::Scalar { span } => Some(span.clone()),
    }?;
    let start = tree.find(&seg).start;
    let literal = &text[start + name.start..start + name.end];
    Some(literal.trim_matches('"').to_string())
}

/// Every diagnostic of `c`, in the compiler's stable order, located.
pub fn locate_all(c: &Compilation) -> Vec<Located> {
    let trees: Vec<Option<locate::Node>> = c
        .sources
        .iter()
        .map(|(_, f)| locate::parse(&f.text))
        .collect();
    c.diagnostics
        .sorted(&c.sources)
        .into_iter()
        .map(|d| {
            let file = d.file_id().map(|f| c.sources.get(f));
            let (mut line, mut column, mut path, mut item) = (None, None, Vec::new(), None);
            if let Some(l) = &d.primary {
                let f = c.sources.get(l.span.file);
                let (ln, col) = f.line_col(l.span.start as usize);
                (line, column) = (Some(ln), Some(col));
                if let Some(tree) = &trees[l.span.file.0 as usize] {
                    path = tree.path_at(l.span.range());
                    item = item_name(&f.text, tree, &path);
                }
            }
            // A workbook cell has no span: its place in the script is the sheet and cell.
            if let (Some(sheet), Some(cell)) = (&d.sheet, &d.cell)
                && path.is_empty()
            {
                path = crate::workbook::path_of_cell(sheet, cell);
            }
            Located {
                diagnostic: d.clone(),
                file: file.map(|f| f.name.clone()),
                line,
                column,
                sheet: d.sheet.clone(),
                cell: d.cell.clone(),
                path,
                item,
            }
        })
        .collect()
}

/// One finished compilation.
pub struct Report {
    pub generation: u64,
    pub compilation: Result<Compilation, String>,
    pub located: Vec<Located>,
    /// Every diagnostic as reported (for panels that locate spans themselves).
    pub all: Vec<Diagnostic>,
    /// Time from the edit that asked for it to the result (the keystroke-to-diagnostics figure).
    pub latency: Duration,
}

impl Report {
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, s: Severity) -> usize {
        self.located.iter().filter(|l| l.severity() == s).count()
    }

    /// Diagnostics located in the file `path`.
    pub fn in_file<'a>(&'a self, path: &'a str) -> impl Iterator<Item = &'a Located> + 'a {
        self.located
            .iter()
            .filter(move |l| l.file.as_deref() == Some(path))
    }
}

struct Job {
    generation: u64,
    root: PathBuf,
    overlay: Overlay,
    /// Changed workbooks by project path: compiled as the bytes saving them would write.
    workbooks: Vec<(String, ScriptAsset)>,
    /// Open documents the manifest excludes, checked on their own (see [`outside_build`]).
    outside: Vec<(String, Outside)>,
    asked: Instant,
}

/// An excluded document as the editor holds it.
enum Outside {
    /// Unchanged since opened: the file on disk is checked.
    OnDisk,
    Workbook(ScriptAsset),
    Text(String),
}

/// The documents open in the editor that the manifest keeps out of the build (a workbook
/// beside its RON import). The project's compile never reads them, yet a designer editing one
/// expects its mistakes in Problems and in the counts, like any other file's.
fn outside_build(project: &Project) -> Vec<(String, Outside)> {
    project
        .live()
        .filter(|(_, d)| project.excluded(&d.state.path))
        .map(|(_, d)| {
            let held = if !d.is_dirty() {
                Outside::OnDisk
            } else if let Some(w) = d.state.workbook() {
                Outside::Workbook(w.clone())
            } else {
                d.state.text().map_or(Outside::OnDisk, Outside::Text)
            };
            (d.state.path.clone(), held)
        })
        .collect()
}

/// Checks `name` on its own, as `ensemble check` does a single file, and locates what it
/// finds in that file of the project. The diagnostics keep no spans: theirs index another
/// compilation's sources, and the place is already resolved.
fn check_outside(root: &Path, name: &str, held: &Outside) -> Vec<Located> {
    let on_disk = root.join(name);
    let base = on_disk
        .file_name()
        .map(|b| b.to_string_lossy().into_owned())
        .unwrap_or_default();
    let compiled = match held {
        Outside::OnDisk => ensemble_compiler::compile_path(&on_disk),
        Outside::Text(text) => {
            let mut overlay = Overlay::default();
            overlay.set(base.clone(), text.clone());
            ensemble_compiler::compile_path_with(&on_disk, &overlay)
        }
        Outside::Workbook(script) => {
            // The bytes its save would write; the single-file check names it by its base name.
            let Some(bytes) = saved_bytes(script, &on_disk) else {
                return Vec::new();
            };
            let mut overlay = Overlay::default();
            overlay.set_bytes(base.clone(), bytes);
            ensemble_compiler::compile_path_with(&on_disk, &overlay)
        }
    };
    let Ok(c) = compiled else {
        return Vec::new();
    };
    let note = format!(
        "{name} is not part of the build ({} excludes it): checked on its own",
        ensemble_compiler::project::MANIFEST
    );
    locate_all(&c)
        .into_iter()
        .map(|mut l| {
            l.file = Some(name.to_string());
            l.diagnostic.file = None;
            l.diagnostic.primary = None;
            l.diagnostic.related.clear();
            l.diagnostic.notes.push(note.clone());
            l
        })
        .collect()
}

/// The bytes saving `script` over the workbook at `path` would write (the one writer: the
/// cell patcher, or the whole workbook where it cannot patch); `None` when saving would fail
/// (a value no cell holds: Save says which), and the workbook is then compiled as last saved.
fn saved_bytes(script: &ScriptAsset, path: &Path) -> Option<Vec<u8>> {
    ensemble_compiler::formats::scripts::to_save(script, path)
        .ok()
        .map(|(bytes, _)| bytes)
}

fn run(mut job: Job) -> Report {
    for (name, script) in &job.workbooks {
        if let Some(bytes) = saved_bytes(script, &job.root.join(name)) {
            job.overlay.set_bytes(name.clone(), bytes);
        }
    }
    let compilation =
        ensemble_compiler::compile_path_with(&job.root, &job.overlay).map_err(|e| e.to_string());
    let mut located = compilation.as_ref().map(locate_all).unwrap_or_default();
    for (name, held) in &job.outside {
        located.extend(check_outside(&job.root, name, held));
    }
    let all = compilation
        .as_ref()
        .map(|c| c.diagnostics.iter().cloned().collect())
        .unwrap_or_default();
    Report {
        generation: job.generation,
        compilation,
        located,
        all,
        latency: job.asked.elapsed(),
    }
}

pub struct Analysis {
    jobs: Sender<Job>,
    results: Receiver<Report>,
    /// The generation of the latest edit, and when it happened.
    wanted: u64,
    edited_at: Instant,
    sent: u64,
    /// Send the next compile without waiting for the debounce.
    hurried: bool,
    pub current: Option<Report>,
}

impl Analysis {
    /// Starts the worker thread (it ends when this is dropped).
    pub fn new() -> Analysis {
        let (jobs, job_rx) = channel::<Job>();
        let (result_tx, results) = channel();
        std::thread::Builder::new()
            .name("ensemble-diagnostics".into())
            .spawn(move || {
                while let Ok(mut job) = job_rx.recv() {
                    // Only the latest request matters.
                    while let Ok(newer) = job_rx.try_recv() {
                        job = newer;
                    }
                    let report = run(job);
                    if result_tx.send(report).is_err() {
                        break;
                    }
                }
            })
            .expect("the diagnostics thread starts");
        Analysis {
            jobs,
            results,
            wanted: 0,
            edited_at: Instant::now(),
            sent: 0,
            hurried: false,
            current: None,
        }
    }

    /// Compiles `project` on this thread (when it opens: the first picture has its problems).
    pub fn compile_now(&mut self, root: &Path, project: &Project) {
        self.current = Some(run(Job {
            generation: self.wanted,
            root: root.to_path_buf(),
            overlay: project.overlay(),
            workbooks: project.unsaved_workbooks(),
            outside: outside_build(project),
            asked: Instant::now(),
        }));
        self.sent = self.wanted;
    }

    /// Notes an edit; the project is compiled again once edits pause for [`DEBOUNCE`].
    pub fn edited(&mut self) {
        self.wanted += 1;
        self.edited_at = Instant::now();
    }

    /// Sends the compile when due and takes a finished result; true when `current` changed.
    /// `project` is only read when a compile is sent.
    pub fn poll(&mut self, project: &Project) -> bool {
        if self.sent < self.wanted && (self.hurried || self.edited_at.elapsed() >= DEBOUNCE) {
            self.hurried = false;
            let job = Job {
                generation: self.wanted,
                root: project.root.clone(),
                overlay: project.overlay(),
                workbooks: project.unsaved_workbooks(),
                outside: outside_build(project),
                asked: self.edited_at,
            };
            self.sent = self.wanted;
            if self.jobs.send(job).is_err() {
                return false;
            }
        }
        let mut changed = false;
        while let Ok(report) = self.results.try_recv() {
            if report.generation == self.wanted {
                self.current = Some(report);
                changed = true;
            }
        }
        changed
    }

    /// The generation of the latest edit (a compile of it, or a later one, answers it).
    pub fn generation(&self) -> u64 {
        self.wanted
    }

    /// Compiles the latest edit at the next poll, without waiting for typing to pause (a save
    /// wants its program now).
    pub fn hurry(&mut self) {
        self.hurried = true;
    }

    /// Whether the shown diagnostics are behind the latest edit.
    pub fn is_stale(&self) -> bool {
        self.current
            .as_ref()
            .is_none_or(|r| r.generation != self.wanted)
    }

    /// How long until a due compile should be sent (for repaint scheduling).
    pub fn wake_in(&self) -> Option<Duration> {
        if self.is_stale() {
            Some(
                DEBOUNCE
                    .saturating_sub(self.edited_at.elapsed())
                    .max(Duration::from_millis(16)),
            )
        } else {
            None
        }
    }
}

impl Default for Analysis {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::tests::airport_copy;

    fn wait(a: &mut Analysis, p: &Project) {
        let start = Instant::now();
        while a.is_stale() {
            a.poll(p);
            std::thread::sleep(Duration::from_millis(5));
            assert!(start.elapsed() < Duration::from_secs(30), "no result");
        }
    }

    #[test]
    fn unsaved_edits_are_compiled_and_located_by_name() {
        let dir = airport_copy();
        let mut p = Project::open(dir.path()).unwrap();
        let mut a = Analysis::new();
        a.compile_now(dir.path(), &p);
        assert_eq!(a.current.as_ref().unwrap().errors(), 0);
        // Cut Goto1 off from Start: it becomes unreachable.
        let id = p.machine_doc("BuyTicketAtCounter").unwrap();
        p.docs[id].state.machine_mut().unwrap().states[0].on[0].1 = "Finish".into();
        a.edited();
        wait(&mut a, &p);
        let r = a.current.as_ref().unwrap();
        let path = p.docs[id].state.path.clone();
        let found: Vec<_> = r
            .in_file(&path)
            .filter(|l| l.diagnostic.code.as_str() == "unreachable-state")
            .collect();
        assert!(!found.is_empty(), "{:?}", r.located);
        assert_eq!(found[0].list(), Some("states"));
        assert_eq!(found[0].item.as_deref(), Some("Goto1"));
    }

    #[test]
    fn only_the_latest_edit_is_shown() {
        let dir = airport_copy();
        let p = Project::open(dir.path()).unwrap();
        let mut a = Analysis::new();
        a.edited();
        a.edited();
        a.edited();
        wait(&mut a, &p);
        assert_eq!(a.current.as_ref().unwrap().generation, 3);
    }
}
