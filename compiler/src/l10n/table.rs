//! Reading the manifest's localisation settings and the `*.strings.ron` locale tables, with
//! where each value is written; writing a table in the canonical layout.

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::front::ron::locate::Seg;
use crate::front::ron::{AssetKind, Locator, MANIFEST, Manifest, StringsAsset, parse};
use crate::ir::Name;
use crate::ir::strings::{LocaleTable, Strings, Translation};
use crate::source::SourceMap;

/// The manifest's settings and every table of the project.
pub(super) fn read(sources: &SourceMap, diags: &mut Diagnostics) -> Strings {
    let mut strings = Strings {
        language: "en".to_string(),
        ..Strings::default()
    };
    for (id, file) in sources.iter() {
        if file.name == MANIFEST {
            strings.manifest = Some(id);
            // Syntax errors in the manifest were reported as the project loaded.
            let Some(manifest) = parse::<Manifest>(sources, id, &mut Diagnostics::default()) else {
                continue;
            };
            let loc = Locator::new(sources, id);
            strings.language = manifest.language.clone();
            strings.declared = manifest
                .locales
                .iter()
                .enumerate()
                .map(|(i, l)| loc.name(l, &[Seg::Field("locales"), Seg::Index(i)]))
                .collect();
            strings.audio = manifest
                .audio
                .map(|a| (a, loc.span(&[Seg::Field("audio")])));
        } else if AssetKind::of(&file.name) == Some(AssetKind::Strings) {
            let Some(asset) = parse::<StringsAsset>(sources, id, diags) else {
                continue;
            };
            let loc = Locator::new(sources, id);
            let entries = asset
                .lines
                .into_iter()
                .enumerate()
                .map(|(i, t)| {
                    let at = |f| [Seg::Field("lines"), Seg::Index(i), Seg::Field(f)];
                    Translation {
                        id: loc.name(&t.id, &at("id")),
                        source_span: loc.span(&at("source")),
                        source: t.source,
                        text_span: loc.span(&at("text")),
                        text: t.text,
                    }
                })
                .collect();
            strings.tables.push(LocaleTable {
                locale: loc.name(&asset.locale, &[Seg::Field("locale")]),
                file: id,
                entries,
            });
        }
    }
    // Two tables of one locale: which one wins would depend on file order.
    for (i, t) in strings.tables.iter().enumerate() {
        if let Some(first) = strings.tables[..i]
            .iter()
            .find(|f| f.locale.text == t.locale.text)
        {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("two string tables for locale `{}`", t.locale.text),
                )
                .at(t.locale.span, "this table")
                .related(first.locale.span, "and this one")
                .note("keep one `*.strings.ron` per locale"),
            );
        }
    }
    strings
}

/// The canonical text of a locale table: one translation per line, in the order given, so that
/// a re-import changes only the lines that changed.
pub fn write_table(asset: &StringsAsset) -> String {
    crate::front::ron::to_canonical_string(asset)
}

/// A locale name as `Ensemble.ron` should list it (for messages).
pub(super) fn declared(strings: &Strings, locale: &str) -> Option<Name> {
    strings.declared.iter().find(|d| d.text == locale).cloned()
}
