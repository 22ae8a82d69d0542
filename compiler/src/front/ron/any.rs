//! Any native text asset as one value: what a tool that edits assets (the editor) holds for a
//! file, read with the same options the compiler uses and written with the canonical printer.

use super::MANIFEST;
use super::hpmm::{
    ActionsAsset, ChatAsset, ConceptsAsset, EvidenceAsset, LexiconAsset, SpaceAsset,
};
use super::planning::{ActionListAsset, DomainAsset, ProblemAsset};
use super::print::{self, Comments};
use super::script::ScriptAsset;
use super::{AssetKind, assets::*, options};

/// The kind of a text asset file, the manifest included.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileKind {
    Manifest,
    Asset(AssetKind),
}

impl FileKind {
    /// The kind of the file at `path` (relative, `/`-separated), if it is one.
    pub fn of(path: &str) -> Option<FileKind> {
        if path == MANIFEST {
            return Some(FileKind::Manifest);
        }
        AssetKind::of(path).map(FileKind::Asset)
    }
}

/// A parsed text asset.
#[derive(Clone, Debug, PartialEq)]
pub enum AnyAsset {
    Manifest(Manifest),
    Machine(MachineAsset),
    StateLibrary(StateLibraryAsset),
    Locations(LocationsAsset),
    Scene(SceneAsset),
    Script(ScriptAsset),
    SmartLocation(SmartLocationAsset),
    Sentences(SentencesAsset),
    Space(SpaceAsset),
    Lexicon(LexiconAsset),
    Evidence(EvidenceAsset),
    Concepts(ConceptsAsset),
    Actions(ActionsAsset),
    Chat(ChatAsset),
    /// Planning (compiler/src/plan/assets.rs).
    ActionList(ActionListAsset),
    Domain(DomainAsset),
    Problem(ProblemAsset),
    Navigation(super::nav::NavAsset),
    /// Content tests (compiler/src/content_test).
    Test(super::content_test::TestsAsset),
    /// One locale's translations (compiler/src/l10n).
    Strings(StringsAsset),
}

/// Why a text did not parse: ron's message and its 1-based line and column.
#[derive(Clone, Debug, PartialEq)]
pub struct ParseError {
    pub message: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

fn read<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, ParseError> {
    options().from_str::<T>(text).map_err(|e| ParseError {
        message: match super::misspelt(&e.code) {
            Some((_, suggestion)) => format!("{}; did you mean `{suggestion}`?", e.code),
            None => e.code.to_string(),
        },
        line: e.span.start.line,
        column: e.span.start.col,
    })
}

impl AnyAsset {
    /// Parses `text` as an asset of `kind`; `None` for binary kinds (workbooks).
    pub fn parse(kind: FileKind, text: &str) -> Option<Result<AnyAsset, ParseError>> {
        use AnyAsset as A;
        let kind = match kind {
            FileKind::Manifest => return Some(read(text).map(A::Manifest)),
            FileKind::Asset(k) => k,
        };
        Some(match kind {
            AssetKind::Machine => read(text).map(A::Machine),
            AssetKind::StateLibrary => read(text).map(A::StateLibrary),
            AssetKind::Locations => read(text).map(A::Locations),
            AssetKind::Scene => read(text).map(A::Scene),
            AssetKind::Script => read(text).map(A::Script),
            AssetKind::SmartLocation => read(text).map(A::SmartLocation),
            AssetKind::Sentences => read(text).map(A::Sentences),
            AssetKind::Space => read(text).map(A::Space),
            AssetKind::Lexicon => read(text).map(A::Lexicon),
            AssetKind::Evidence => read(text).map(A::Evidence),
            AssetKind::Concepts => read(text).map(A::Concepts),
            AssetKind::Actions => read(text).map(A::Actions),
            AssetKind::Chat => read(text).map(A::Chat),
            AssetKind::ActionList => read(text).map(A::ActionList),
            AssetKind::Domain => read(text).map(A::Domain),
            AssetKind::Problem => read(text).map(A::Problem),
            AssetKind::Navigation => read(text).map(A::Navigation),
            AssetKind::Test => read(text).map(A::Test),
            AssetKind::Strings => read(text).map(A::Strings),
            // Not RON: a workbook is binary, a PDDL file is Lisp.
            AssetKind::Workbook | AssetKind::Pddl => return None,
        })
    }

    /// The canonical text of this asset with `comments` in place.
    pub fn print(&self, comments: &Comments) -> String {
        use AnyAsset as A;
        match self {
            A::Manifest(v) => print::print(v, comments),
            A::Machine(v) => print::print(v, comments),
            A::StateLibrary(v) => print::print(v, comments),
            A::Locations(v) => print::print(v, comments),
            A::Scene(v) => print::print(v, comments),
            A::Script(v) => print::print(v, comments),
            A::SmartLocation(v) => print::print(v, comments),
            A::Sentences(v) => print::print(v, comments),
            A::Space(v) => print::print(v, comments),
            A::Lexicon(v) => print::print(v, comments),
            A::Evidence(v) => print::print(v, comments),
            A::Concepts(v) => print::print(v, comments),
            A::Actions(v) => print::print(v, comments),
            A::Chat(v) => print::print(v, comments),
            A::ActionList(v) => print::print(v, comments),
            A::Domain(v) => print::print(v, comments),
            A::Problem(v) => print::print(v, comments),
            A::Navigation(v) => print::print(v, comments),
            A::Test(v) => print::print(v, comments),
            A::Strings(v) => print::print(v, comments),
        }
    }

    pub fn kind(&self) -> FileKind {
        use AnyAsset as A;
        let k = match self {
            A::Manifest(_) => return FileKind::Manifest,
            A::Machine(_) => AssetKind::Machine,
            A::StateLibrary(_) => AssetKind::StateLibrary,
            A::Locations(_) => AssetKind::Locations,
            A::Scene(_) => AssetKind::Scene,
            A::Script(_) => AssetKind::Script,
            A::SmartLocation(_) => AssetKind::SmartLocation,
            A::Sentences(_) => AssetKind::Sentences,
            A::Space(_) => AssetKind::Space,
            A::Lexicon(_) => AssetKind::Lexicon,
            A::Evidence(_) => AssetKind::Evidence,
            A::Concepts(_) => AssetKind::Concepts,
            A::Actions(_) => AssetKind::Actions,
            A::Chat(_) => AssetKind::Chat,
            A::ActionList(_) => AssetKind::ActionList,
            A::Domain(_) => AssetKind::Domain,
            A::Problem(_) => AssetKind::Problem,
            A::Navigation(_) => AssetKind::Navigation,
            A::Test(_) => AssetKind::Test,
            A::Strings(_) => AssetKind::Strings,
        };
        FileKind::Asset(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    fn samples() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples")
    }

    fn ron_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                ron_files(&p, out);
            } else if p.extension().is_some_and(|e| e == "ron") {
                out.push(p);
            }
        }
    }

    /// Every `.ron` file of every sample prints back byte for byte from its parsed value.
    #[test]
    fn every_sample_prints_back_byte_for_byte() {
        let mut files = Vec::new();
        ron_files(&samples(), &mut files);
        assert!(files.len() >= 30, "samples not found: {files:?}");
        let mut kinds = std::collections::HashSet::new();
        for path in files {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let kind = FileKind::of(&name).unwrap_or_else(|| panic!("{name}: no kind"));
            kinds.insert(kind);
            let text = std::fs::read_to_string(&path).unwrap();
            let value = AnyAsset::parse(kind, &text)
                .unwrap()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let printed = value.print(&Comments::of(&text));
            if printed != text && std::env::var_os("ENSEMBLE_REPRINT_SAMPLES").is_some() {
                // Re-formats a hand-written sample into the canonical layout (review the diff).
                std::fs::write(&path, &printed).unwrap();
                continue;
            }
            if printed != text {
                let diff: Vec<String> = text
                    .lines()
                    .zip(printed.lines())
                    .enumerate()
                    .filter(|(_, (a, b))| a != b)
                    .take(3)
                    .map(|(i, (a, b))| format!("line {}:\n  file:    {a}\n  printed: {b}", i + 1))
                    .collect();
                panic!(
                    "{} does not print back ({} vs {} lines):\n{}\n--- printed ---\n{printed}",
                    path.display(),
                    text.lines().count(),
                    printed.lines().count(),
                    diff.join("\n")
                );
            }
        }
        // The samples cover most kinds; the rest are covered by the round-trip test below.
        assert!(kinds.len() >= 12, "{kinds:?}");
    }
}
