//! What `check` says about translations: missing (per declared locale), stale (the source
//! changed after translation), slot-mismatched (a `{Slot}` dropped or invented), translations
//! of lines the project no longer has, tables of undeclared locales, and missing voice-over.

use super::{Line, table};
use crate::diag::{Code, Diagnostic, Diagnostics, NO_SUCH_LINE};
use crate::ir::Module;
use crate::source::{SourceMap, Span};
use std::collections::HashMap;

/// How many ids a summary names before "and N more".
const LISTED: usize = 5;

fn listed(ids: &[&str]) -> String {
    let mut s = ids
        .iter()
        .take(LISTED)
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > LISTED {
        s.push_str(&format!(" and {} more", ids.len() - LISTED));
    }
    s
}

pub(super) fn check(sources: &SourceMap, module: &Module, lines: &[Line], diags: &mut Diagnostics) {
    let strings = &module.strings;
    let by_id: HashMap<&str, &Line> = lines.iter().map(|l| (l.id.as_str(), l)).collect();
    for t in &strings.tables {
        if table::declared(strings, &t.locale.text).is_none() {
            diags.push(
                Diagnostic::warning(
                    Code::UnknownLine,
                    format!(
                        "locale `{}` is not declared in Ensemble.ron: its missing translations are not reported",
                        t.locale.text
                    ),
                )
                .at(t.locale.span, "this locale")
                .note(format!("add it to the manifest: `locales: [\"{}\"]`", t.locale.text)),
            );
        }
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for entry in &t.entries {
            if let Some(first) = seen.insert(&entry.id.text, entry.id.span) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateLineId,
                        format!(
                            "locale `{}` translates line `{}` twice",
                            t.locale.text, entry.id.text
                        ),
                    )
                    .at(entry.id.span, "again here")
                    .related(first, "first here"),
                );
                continue;
            }
            let Some(line) = by_id.get(entry.id.text.as_str()) else {
                diags.push(
                    Diagnostic::warning(
                        Code::UnknownLine,
                        format!(
                            "locale `{}` translates line `{}`{NO_SUCH_LINE}",
                            t.locale.text, entry.id.text
                        ),
                    )
                    .at(entry.id.span, "no such line")
                    .note("its line was removed or its id changed; delete the entry or re-import"),
                );
                continue;
            };
            if entry.text.trim().is_empty() {
                continue;
            }
            let theirs = match line.slots_in(&entry.text) {
                Ok(slots) => slots,
                Err(message) => {
                    diags.push(
                        Diagnostic::error(
                            Code::Syntax,
                            format!(
                                "the `{}` translation of line `{}` is not a template: {message}",
                                t.locale.text, entry.id.text
                            ),
                        )
                        .at(entry.text_span, "this translation")
                        .related(line.span, format!("the line: \"{}\"", line.source))
                        .note("see docs/formats/actions.md for the template syntax"),
                    );
                    continue;
                }
            };
            if theirs != line.slots {
                let dropped: Vec<&str> = line
                    .slots
                    .iter()
                    .filter(|s| !theirs.contains(s))
                    .map(String::as_str)
                    .collect();
                let invented: Vec<&str> = theirs
                    .iter()
                    .filter(|s| !line.slots.contains(s))
                    .map(String::as_str)
                    .collect();
                let mut what = Vec::new();
                if !dropped.is_empty() {
                    what.push(format!("drops {}", braces(&dropped)));
                }
                if !invented.is_empty() {
                    what.push(format!("invents {}", braces(&invented)));
                }
                diags.push(
                    Diagnostic::error(
                        Code::SlotMismatch,
                        format!(
                            "the `{}` translation of line `{}` {}",
                            t.locale.text,
                            entry.id.text,
                            what.join(" and ")
                        ),
                    )
                    .at(entry.text_span, "this translation")
                    .related(line.span, format!("the line: \"{}\"", line.source))
                    .note("a translation keeps every `{Slot}` of its line, and only those"),
                );
            }
            if entry.source != line.source {
                diags.push(
                    Diagnostic::warning(
                        Code::StaleTranslation,
                        format!(
                            "the `{}` translation of line `{}` was made from \"{}\"; the line now says \"{}\"",
                            t.locale.text, entry.id.text, entry.source, line.source
                        ),
                    )
                    .at(entry.source_span, "translated from this")
                    .related(line.span, "the line now")
                    .note("review the translation, then set `source` to the new text (or re-import)"),
                );
            }
        }
    }
    for locale in &strings.declared {
        let table = strings.tables.iter().find(|t| t.locale.text == locale.text);
        let translated: Vec<&str> = table
            .map(|t| {
                t.entries
                    .iter()
                    .filter(|e| !e.text.trim().is_empty())
                    .map(|e| e.id.text.as_str())
                    .collect()
            })
            .unwrap_or_default();
        let missing: Vec<&str> = lines
            .iter()
            .map(|l| l.id.as_str())
            .filter(|id| !translated.contains(id))
            .collect();
        if missing.is_empty() {
            continue;
        }
        let at = table.map(|t| t.locale.span).unwrap_or(locale.span);
        diags.push(
            Diagnostic::warning(
                Code::MissingTranslation,
                format!(
                    "locale `{}` does not translate {} of {} lines: {}",
                    locale.text,
                    missing.len(),
                    lines.len(),
                    listed(&missing)
                ),
            )
            .at(at, "this locale")
            .note(format!(
                "they are spoken in the source language; `ensemble strings export . -o {}.csv --locale {}` lists them",
                locale.text, locale.text
            )),
        );
    }
    if let Some((folder, span)) = &strings.audio {
        let root = strings
            .manifest
            .and_then(|m| {
                sources
                    .get(m)
                    .path
                    .parent()
                    .map(std::path::Path::to_path_buf)
            })
            .unwrap_or_default();
        let mut locales = vec![strings.language.clone()];
        locales.extend(strings.declared.iter().map(|d| d.text.clone()));
        for locale in locales {
            let dir = root.join(folder).join(&locale);
            let missing: Vec<&str> = lines
                .iter()
                .filter(|l| !super::exchange::audio_exists(&dir, &l.id))
                .map(|l| l.id.as_str())
                .collect();
            if missing.is_empty() {
                continue;
            }
            diags.push(
                Diagnostic::warning(
                    Code::MissingAudio,
                    format!(
                        "{} of {} lines have no `{locale}` voice-over in {}: {}",
                        missing.len(),
                        lines.len(),
                        dir.strip_prefix(&root).unwrap_or(&dir).display(),
                        listed(&missing)
                    ),
                )
                .at(*span, "the audio folder")
                .note(format!(
                    "a line's file is `{folder}/{locale}/` + its audio column (`{}`)",
                    super::exchange::audio_file(lines.first().map_or("Machine/State", |l| &l.id))
                )),
            );
        }
    }
}

fn braces(slots: &[&str]) -> String {
    slots
        .iter()
        .map(|s| format!("{{{s}}}"))
        .collect::<Vec<_>>()
        .join(", ")
}
