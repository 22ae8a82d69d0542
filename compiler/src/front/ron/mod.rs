//! The native format: RON assets, one kind per file extension (docs/formats/).
//!
//! Parsing uses the `ron` crate, which is authoritative for syntax and shape errors. The
//! [`locate`] module re-reads the same text to find where each value was written, so that
//! validation can point at the exact state, transition or modifier.

pub mod any;
pub mod assets;
pub mod content_test;
pub mod hpmm;
pub mod layout;
pub mod locate;
mod lower;
pub mod nav;
pub mod params;
pub mod planning;
pub mod print;
pub mod script;
mod sentences;

pub use assets::*;
pub use lower::{Locator, implied_code, lower};

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::source::{FileId, SourceMap, Span};
use serde::de::DeserializeOwned;

/// The asset kinds, by file suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AssetKind {
    Machine,
    StateLibrary,
    Locations,
    Scene,
    /// `*.script.ron`: an interaction script (compiler/src/script).
    Script,
    /// `*.smartloc.ron`: a smart location.
    SmartLocation,
    /// `*.xlsx`: an interaction script as an Excel workbook.
    Workbook,
    /// `*.sentences.ron`: sentence states (compiler/src/nlg).
    Sentences,
    /// HMM spaces and their companions (compiler/src/hpmm/).
    Space,
    Lexicon,
    Evidence,
    Concepts,
    Actions,
    Chat,
    /// Planning (compiler/src/plan/): Hewlett's action lists, STRIPS domains and problems,
    /// and PDDL files (a domain or a problem).
    ActionList,
    Domain,
    Problem,
    Pddl,
    /// `*.nav.ron`: the navigation graph (compiler/src/nav).
    Navigation,
    /// `*.test.ron`: designers' content tests (compiler/src/content_test).
    Test,
    /// `*.strings.ron`: one locale's translations (compiler/src/l10n).
    Strings,
}

impl AssetKind {
    pub const ALL: [AssetKind; 21] = [
        AssetKind::Machine,
        AssetKind::StateLibrary,
        AssetKind::Locations,
        AssetKind::Scene,
        AssetKind::Script,
        AssetKind::SmartLocation,
        AssetKind::Workbook,
        AssetKind::Sentences,
        AssetKind::Space,
        AssetKind::Lexicon,
        AssetKind::Evidence,
        AssetKind::Concepts,
        AssetKind::Actions,
        AssetKind::Chat,
        AssetKind::ActionList,
        AssetKind::Domain,
        AssetKind::Problem,
        AssetKind::Pddl,
        AssetKind::Navigation,
        AssetKind::Test,
        AssetKind::Strings,
    ];

    pub fn suffix(self) -> &'static str {
        match self {
            AssetKind::Machine => ".machine.ron",
            AssetKind::StateLibrary => ".statelib.ron",
            AssetKind::Locations => ".locations.ron",
            AssetKind::Scene => ".scene.ron",
            AssetKind::Script => ".script.ron",
            AssetKind::SmartLocation => ".smartloc.ron",
            AssetKind::Workbook => ".xlsx",
            AssetKind::Sentences => ".sentences.ron",
            AssetKind::Space => ".space.ron",
            AssetKind::Lexicon => ".lexicon.ron",
            AssetKind::Evidence => ".evidence.ron",
            AssetKind::Concepts => ".concepts.ron",
            AssetKind::Actions => ".actions.ron",
            AssetKind::Chat => ".chat.ron",
            AssetKind::ActionList => ".actionlist.ron",
            AssetKind::Domain => ".domain.ron",
            AssetKind::Problem => ".problem.ron",
            AssetKind::Pddl => ".pddl",
            AssetKind::Navigation => ".nav.ron",
            AssetKind::Test => ".test.ron",
            AssetKind::Strings => ".strings.ron",
        }
    }

    pub fn of(file_name: &str) -> Option<AssetKind> {
        // `~$name.xlsx` is Excel's lock file for an open workbook, not a workbook.
        let base = file_name.rsplit('/').next().unwrap_or(file_name);
        if base.starts_with("~$") {
            return None;
        }
        Self::ALL
            .into_iter()
            .find(|k| file_name.ends_with(k.suffix()))
    }

    /// Whether files of this kind are binary (read by their frontend, not as text).
    pub fn is_binary(self) -> bool {
        self == AssetKind::Workbook
    }

    pub fn suffix_list() -> String {
        Self::ALL.map(|k| k.suffix()).join(", ")
    }
}

fn options() -> ron::Options {
    // `implicit_some` lets authors write `initial: "Start"` instead of `initial: Some("Start")`.
    ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

/// Byte offset of a ron (1-based line, 1-based column) position.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_text = &text[start..];
    start
        + line_text
            .char_indices()
            .nth(column.saturating_sub(1))
            .map(|(i, _)| i)
            .unwrap_or(line_text.len())
}

/// Parses one asset file; reports a `syntax` diagnostic at the error position on failure.
pub fn parse<T: DeserializeOwned>(
    sources: &SourceMap,
    file: FileId,
    diagnostics: &mut Diagnostics,
) -> Option<T> {
    let text = &sources.get(file).text;
    match options().from_str::<T>(text) {
        Ok(v) => Some(v),
        Err(e) => {
            let start = offset_of(text, e.span.start.line, e.span.start.col);
            let end = offset_of(text, e.span.end.line, e.span.end.col).max(start);
            let mut d = Diagnostic::error(
                Code::Syntax,
                format!(
                    "{}{}: {}",
                    crate::diag::UNREADABLE,
                    sources.get(file).name,
                    e.code
                ),
            )
            .at(Span::new(file, start..end), e.code.to_string());
            if let Some((found, suggestion)) = misspelt(&e.code) {
                d = d.did_you_mean(found, suggestion);
            }
            diagnostics.push(d);
            None
        }
    }
}

/// For an unknown field or variant (every asset kind denies unknown fields, so a misspelt
/// `agnet:` is an error rather than a field silently ignored): what was written and the
/// expected name closest to it, if one is close enough to be a typo.
pub fn misspelt(e: &ron::Error) -> Option<(&str, &'static str)> {
    let (ron::Error::NoSuchStructField {
        expected, found, ..
    }
    | ron::Error::NoSuchEnumVariant {
        expected, found, ..
    }) = e
    else {
        return None;
    };
    crate::diag::suggest(found, expected.iter().copied()).map(|s| (found.as_str(), s))
}

/// The `domain` a `*.problem.ron` names, read quietly (to find the domain beside it).
pub fn problem_domain(text: &str) -> Option<String> {
    options()
        .from_str::<planning::ProblemAsset>(text)
        .ok()
        .map(|p| p.domain)
}

/// The `name` of a `*.domain.ron`, read quietly.
pub fn domain_name(text: &str) -> Option<String> {
    options()
        .from_str::<planning::DomainAsset>(text)
        .ok()
        .map(|d| d.name)
}

/// The file that makes a folder a project: the project manifest this module reads.
pub const MANIFEST: &str = "Ensemble.ron";

pub fn parse_manifest(
    sources: &SourceMap,
    file: FileId,
    diagnostics: &mut Diagnostics,
) -> Option<Manifest> {
    parse(sources, file, diagnostics)
}

/// Writes an asset in the canonical layout the editor saves ([`print`]), without comments: the
/// same content always produces the same bytes.
pub fn to_canonical_string<T: serde::Serialize>(value: &T) -> String {
    print::print_plain(value)
}
