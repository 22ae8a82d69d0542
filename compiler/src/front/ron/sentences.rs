//! Lowering `*.sentences.ron` files: settings into [`SentenceFile`]s, each sentence state's two
//! Fig. 3.2 lines parsed into an over-generation input, with every mistake located inside the
//! string that contains it.

use super::assets::{ScoringAsset, SentencesAsset};
use super::locate::Seg;
use super::lower::Locator;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Module, Name, SentenceFile, SentenceState};
use crate::nlg::input::{self, LineError, Parsed};
use crate::nlg::ngram::Method;
use crate::nlg::overgen::Input;
use crate::source::{SourceMap, Span};

/// The span of bytes `range` inside the string literal at `literal` (after its opening quote).
fn inside(literal: Span, range: std::ops::Range<usize>) -> Span {
    let (lo, hi) = (literal.start as usize, literal.end as usize);
    let start = (lo + 1 + range.start).min(hi);
    let end = (lo + 1 + range.end).min(hi).max(start);
    Span::new(literal.file, start..end)
}

/// `unknown-reference` for each key of a map keyed by slot name (`examples`, `slots`) that no
/// sentence state it applies to has as a `VARIABLE`: a misspelt key would silently do nothing.
fn report_unknown_slots<'k>(
    text: &str,
    map: Span,
    keys: impl Iterator<Item = &'k String>,
    slots: &[&str],
    diags: &mut Diagnostics,
) {
    for key in keys {
        if slots.contains(&key.as_str()) {
            continue;
        }
        // The key as written inside the map (the locator finds values, not keys).
        let (lo, hi) = (map.start as usize, (map.end as usize).min(text.len()));
        let quoted = format!("\"{key}\"");
        let at = text
            .get(lo..hi)
            .and_then(|m| m.find(&quoted))
            .map_or(map, |k| Span::new(map.file, lo + k..lo + k + quoted.len()));
        let d = Diagnostic::error(
            Code::UnknownReference,
            format!("no sentence state here has a slot `{key}` (`VARIABLE {key}`)"),
        )
        .at(at, "no such slot");
        let d = crate::diag::suggest_note(d, key, slots.iter().copied());
        diags.push(
            d.note("the key must name a `VARIABLE` in the nouns of a sentence state it applies to"),
        );
    }
}

pub(super) fn lower_sentences(
    module: &mut Module,
    sources: &SourceMap,
    files: &[(SentencesAsset, Locator)],
    diags: &mut Diagnostics,
) {
    for (asset, loc) in files {
        let dir = sources
            .get(loc.file)
            .path
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        let ngrams = asset
            .ngrams
            .as_ref()
            .map(|p| (dir.join(p), loc.span(&[Seg::Field("ngrams")])));
        for (field, value) in [("keep", asset.keep), ("choose_among", asset.choose_among)] {
            if value == 0 {
                diags.push(
                    Diagnostic::error(Code::InvalidValue, format!("`{field}` must be at least 1"))
                        .at(loc.span(&[Seg::Field(field)]), "here"),
                );
            }
        }
        check_margin(
            asset.score_margin,
            loc.span(&[Seg::Field("score_margin")]),
            diags,
        );
        let file = module.sentence_files.append(SentenceFile {
            span: loc.span(&[]),
            ngrams,
            scoring: match asset.scoring {
                ScoringAsset::StupidBackoff => Method::StupidBackoff,
                ScoringAsset::Eq31 => Method::Eq31,
                ScoringAsset::Interpolated => Method::Interpolated,
                ScoringAsset::KneserNey => Method::KneserNey,
            },
            keep: asset.keep.max(1),
            choose_among: asset.choose_among.max(1),
            score_margin: asset
                .score_margin
                .unwrap_or(crate::nlg::rank::DEFAULT_SCORE_MARGIN),
            examples: asset
                .examples
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
            min_score: asset.min_score,
        });
        // Every VARIABLE slot of the file's states, for the maps keyed by slot name.
        let mut file_slots: Vec<String> = Vec::new();
        for (i, s) in asset.states.iter().enumerate() {
            let path = |f: &'static str| [Seg::Field("states"), Seg::Index(i), Seg::Field(f)];
            let name = loc.name(&s.name, &path("name"));
            let verbs_span = loc.span(&path("verbs"));
            let nouns_span = loc.span(&path("nouns"));
            check_margin(s.score_margin, loc.span(&path("score_margin")), diags);
            let mut parsed = Parsed::default();
            let mut errors: Vec<LineError> = Vec::new();
            input::parse_verbs(&s.verbs, &mut parsed, &mut errors);
            let verb_errors = errors.len();
            input::parse_nouns(&s.nouns, &mut parsed, &mut errors);
            for (k, e) in errors.into_iter().enumerate() {
                let literal = if k < verb_errors {
                    verbs_span
                } else {
                    nouns_span
                };
                diags.push(
                    Diagnostic::error(
                        Code::Syntax,
                        format!("sentence state `{}`: {}", s.name, e.message),
                    )
                    .at(inside(literal, e.range), "here")
                    .note("Fig. 3.2 syntax: verbs `be, PAST book`; nouns `you, flight, VARIABLE CityName` or `you QUESTION when`"),
                );
            }
            if parsed.verbs.is_empty() && parsed.nouns.is_empty() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("sentence state `{}` has neither verbs nor nouns", s.name),
                    )
                    .at(name.span, "nothing to say"),
                );
            }
            if let Some(prev) = module.sentence_by_name(&s.name) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("sentence state `{}` is defined twice", s.name),
                    )
                    .at(name.span, "defined again here")
                    .related(module.sentences[prev].name.span, "first defined here"),
                );
                continue;
            }
            let variables = parsed
                .variables
                .iter()
                .map(|(v, r)| Name {
                    text: v.clone(),
                    span: inside(nouns_span, r.clone()),
                })
                .collect::<Vec<Name>>();
            let state_slots: Vec<&str> = variables.iter().map(|v| v.text.as_str()).collect();
            let text = &sources.get(loc.file).text;
            report_unknown_slots(
                text,
                loc.span(&path("slots")),
                s.slots.keys(),
                &state_slots,
                diags,
            );
            file_slots.extend(state_slots.iter().map(|v| v.to_string()));
            module.sentences.append(SentenceState {
                span: loc.span(&[Seg::Field("states"), Seg::Index(i)]),
                name,
                file,
                input: Input {
                    slot_kinds: crate::nlg::slot_kinds(&asset.slots, &s.slots),
                    ..parsed.into_input()
                },
                variables,
                candidates: Vec::new(),
                report: Default::default(),
                translate_one: s.translate == super::assets::TranslateAsset::One,
                ban: (s.ban.iter().enumerate())
                    .map(|(k, b)| {
                        loc.name(
                            b,
                            &[
                                Seg::Field("states"),
                                Seg::Index(i),
                                Seg::Field("ban"),
                                Seg::Index(k),
                            ],
                        )
                    })
                    .collect(),
                pin: (s.pin.iter().enumerate())
                    .map(|(k, p)| {
                        loc.name(
                            p,
                            &[
                                Seg::Field("states"),
                                Seg::Index(i),
                                Seg::Field("pin"),
                                Seg::Index(k),
                            ],
                        )
                    })
                    .collect(),
                accept: (s.accept.iter().enumerate())
                    .map(|(k, a)| {
                        loc.name(
                            a,
                            &[
                                Seg::Field("states"),
                                Seg::Index(i),
                                Seg::Field("accept"),
                                Seg::Index(k),
                            ],
                        )
                    })
                    .collect(),
                score_margin: s.score_margin,
                spoken: 0,
            });
        }
        let slots: Vec<&str> = file_slots.iter().map(String::as_str).collect();
        let text = &sources.get(loc.file).text;
        for field in ["examples", "slots"] {
            let keys = match field {
                "examples" => asset.examples.keys().collect::<Vec<_>>(),
                _ => asset.slots.keys().collect(),
            };
            let map = loc.span(&[Seg::Field(field)]);
            report_unknown_slots(text, map, keys.into_iter(), &slots, diags);
        }
    }
}

/// `score_margin` is a distance below the best score: 0 (only the best and its ties) or more;
/// `inf` speaks the first `choose_among` whatever they score.
fn check_margin(margin: Option<f64>, span: Span, diags: &mut Diagnostics) {
    if let Some(m) = margin.filter(|m| m.is_nan() || *m < 0.0) {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("`score_margin` must be 0 or more, not {m}"),
            )
            .at(span, "here")
            .note("a distance below the best candidate's score (log2 per word): 0.25 keeps lines about as likely as the best"),
        );
    }
}
