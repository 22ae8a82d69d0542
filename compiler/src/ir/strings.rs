//! Localisation as the IR holds it: the locales `Ensemble.ron` declares, its audio folder, and
//! every `*.strings.ron` table with where each translation is written (compiler/src/l10n reads
//! them, checks them against the project's lines and lowers them into the program).

use super::Name;
use crate::source::{FileId, Span};

/// The project's localisation settings and translations.
#[derive(Clone, Debug, Default)]
pub struct Strings {
    /// The language lines are written in (`en` unless the manifest says otherwise).
    pub language: String,
    /// Locales the project ships (`Ensemble.ron` `locales`), each where it is declared.
    pub declared: Vec<Name>,
    /// The voice-over folder, relative to the project, and where the manifest names it.
    pub audio: Option<(String, Span)>,
    /// The manifest, when the project has one (where project-wide findings point).
    pub manifest: Option<FileId>,
    /// Every locale table, in file order.
    pub tables: Vec<LocaleTable>,
}

/// One `*.strings.ron` file.
#[derive(Clone, Debug)]
pub struct LocaleTable {
    /// Its locale, where the file names it.
    pub locale: Name,
    pub file: FileId,
    pub entries: Vec<Translation>,
}

/// One translated line of a table.
#[derive(Clone, Debug)]
pub struct Translation {
    /// The line's id, where it is written.
    pub id: Name,
    /// The source text the translation was made from, and where it is written.
    pub source: String,
    pub source_span: Span,
    /// The translation, and where it is written.
    pub text: String,
    pub text_span: Span,
}
