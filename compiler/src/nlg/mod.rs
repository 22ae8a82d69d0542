//! Natural language generation (Hewlett 2013, ch. 3): sentence states are over-generated into
//! realiser inputs, realised into English by our own realiser, de-duplicated, and ranked with
//! n-gram counts, all at compile time. The program carries each sentence state's best
//! candidates with their slots; the runtime only fills the slots and chooses.
//!
//! ```text
//! sentence state ─► overgen ─► realise ─► de-duplicate ─► score (ngram) ─► ranked candidates
//!  (verbs, nouns,    (trees)    (English)                  (Eq. 3.1 or
//!   modifiers)                                               stupid back-off)
//! ```

pub mod bind;
pub mod check;
pub mod eval;
pub mod input;
pub mod lexicon;
mod memo;
pub mod morph;
pub mod ngram;
pub mod overgen;
pub mod rank;
pub mod realise;
pub mod tree;

pub use rank::{Candidate, GenerationReport};
// The rest of the surface tools rank with (lib.rs): how a state speaks and a designer's
// judgements applied, the line syntax, the n-gram method, the kinds of slots.
pub use input::{LineError, WH_WORDS};
pub use morph::indefinite_article;
pub use ngram::Method;
pub use overgen::SlotKind;
pub use rank::{DEFAULT_SCORE_MARGIN, Speaking, apply_judgements, names_candidate};

use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::ir::Module;
use ngram::NgramDb;
use std::collections::HashMap;
use std::path::PathBuf;

/// The NLG checks of the pipeline, on the IR alone: dialog states and their modifiers,
/// transactions inside conversations, sentence variables bound on every path.
pub fn check(module: &Module, diags: &mut Diagnostics) {
    check::check_dialog_states(module, diags);
    check::check_transaction_placement(module, diags);
    bind::check_bindings(module, diags);
}

/// The NLG precomputation of the pipeline: generates and ranks every sentence state's
/// candidates into the module (`SentenceState::candidates`), with `no-candidate`,
/// `swapped-arguments` and `out-of-vocabulary` reports.
pub fn rank(module: &mut Module, diags: &mut Diagnostics) {
    if module.sentences.is_empty() {
        return;
    }
    // Open each n-gram source once.
    let mut dbs: HashMap<PathBuf, Option<std::sync::Arc<NgramDb>>> = HashMap::new();
    for (_, file) in module.sentence_files.iter() {
        match &file.ngrams {
            Some((path, span)) => {
                if dbs.contains_key(path) {
                    continue;
                }
                let db = match memo::open_source(path) {
                    Ok(db) => Some(db),
                    Err(e) => {
                        diags.push(
                            Diagnostic::error(Code::NgramDatabase, e)
                                .at(*span, "n-gram source named here")
                                .note("build one with `ensemble ngram build CORPUS -o FILE.ngr`, or name a `w1 w2 w3<TAB>count` file"),
                        );
                        None
                    }
                };
                dbs.insert(path.clone(), db);
            }
            None => diags.push(
                Diagnostic::warning(
                    Code::NgramDatabase,
                    "no n-gram source: candidates cannot be ranked and are kept in alphabetical order",
                )
                .at(file.span, "these sentence states")
                .note("add `ngrams: \"FILE.ngr\"` (built with `ensemble ngram build`)"),
            ),
        }
    }
    let handles: Vec<_> = module.sentences.handles().collect();
    for h in handles {
        let s = &module.sentences[h];
        let file = &module.sentence_files[s.file];
        let count = overgen::variation_count(&s.input);
        if count > overgen::MAX_VARIATIONS {
            diags.push(
                Diagnostic::warning(
                    Code::NoCandidate,
                    format!(
                        "sentence state `{}` yields no candidate: its verbs and nouns make {count} variations, more than the {} generated",
                        s.name.text,
                        overgen::MAX_VARIATIONS
                    ),
                )
                .at(s.name.span, "too many variations")
                .note("every noun multiplies the variations by its relations and articles (about 36); split the sentence state, or give it fewer nouns"),
            );
            continue;
        }
        let db = file
            .ngrams
            .as_ref()
            .and_then(|(p, _)| dbs.get(p))
            .and_then(Option::as_ref)
            .map(|db| &**db);
        let values = slot_values(module, file);
        let slot = |name: &str| -> String {
            values
                .get(name)
                .cloned()
                .unwrap_or_else(|| "<unk>".to_string())
        };
        let mut slots: Vec<_> = values.iter().collect();
        slots.sort();
        let source = file.ngrams.as_ref().and_then(|(p, _)| memo::fingerprint(p));
        let ban: Vec<&str> = s.ban.iter().map(|n| n.text.as_str()).collect();
        let pin: Vec<&str> = s.pin.iter().map(|n| n.text.as_str()).collect();
        let accept: Vec<&str> = s.accept.iter().map(|n| n.text.as_str()).collect();
        let key = format!(
            "{}|{:?}|{:?}|{:?}|{}|{:?}|{ban:?}|{pin:?}|{accept:?}",
            s.name.text, s.input, source, file.scoring, file.keep, slots
        );
        let (ranked, report) = memo::ranked_or(key, || {
            let (mut ranked, report) = rank_state(&s.name.text, &s.input, db, file.scoring, slot);
            rank::apply_judgements(&mut ranked, &ban, &pin, &accept);
            ranked.truncate(file.keep as usize);
            (ranked, report)
        });
        let speaking = rank::Speaking {
            choose_among: file.choose_among,
            score_margin: s.score_margin.unwrap_or(file.score_margin),
        };
        let judged: Vec<&str> = pin.iter().chain(&accept).copied().collect();
        let spoken = speaking.count(&ranked, &s.input, &judged);
        report_unknown_choices(module, h, diags);
        report_unjudged(module, h, &ranked[..spoken], &judged, diags);
        report_candidates(module, h, &ranked, spoken, db.is_some(), diags);
        let s = &mut module.sentences[h];
        s.candidates = ranked;
        s.spoken = spoken;
        s.report = report;
    }
}

/// Over-generates, realises, de-duplicates and ranks one sentence state: every distinct
/// candidate, best first (the caller keeps as many as it wants), and what generation did.
/// `slot` gives the stand-in value of a `VARIABLE` slot while scoring.
pub fn rank_state(
    name: &str,
    input: &overgen::Input,
    db: Option<&NgramDb>,
    method: ngram::Method,
    slot: impl Fn(&str) -> String,
) -> (Vec<Candidate>, GenerationReport) {
    let (unique, variations) = rank::generate(input);
    let report = GenerationReport {
        variations,
        unique: unique.len(),
    };
    let mut ranked = rank::rank(name, unique, db, method, &input.slot_kinds, slot);
    rank::put_fitting_first(&mut ranked, input);
    (ranked, report)
}

/// The two Fig. 3.2 lines of a sentence state, parsed into the over-generation input, with the
/// mistakes of each line (byte ranges inside that line), as the editor checks them per keystroke.
pub fn parse_lines(
    verbs: &str,
    nouns: &str,
) -> (overgen::Input, Vec<input::LineError>, Vec<input::LineError>) {
    let mut parsed = input::Parsed::default();
    let (mut verb_errors, mut noun_errors) = (Vec::new(), Vec::new());
    input::parse_verbs(verbs, &mut parsed, &mut verb_errors);
    input::parse_nouns(nouns, &mut parsed, &mut noun_errors);
    (parsed.into_input(), verb_errors, noun_errors)
}

/// A state's slot kinds: the file's `slots`, overridden by the state's own, sorted by name.
pub fn slot_kinds(
    file: &std::collections::BTreeMap<String, overgen::SlotKind>,
    state: &std::collections::BTreeMap<String, overgen::SlotKind>,
) -> Vec<(String, overgen::SlotKind)> {
    let mut merged = file.clone();
    merged.extend(state.iter().map(|(k, v)| (k.clone(), *v)));
    merged.into_iter().collect()
}

/// Opens an n-gram source (`.ngr` or a count file), sharing one open copy per process with the
/// compiler, so a preview and the next compile do not read it twice.
pub fn open_ngrams(path: &std::path::Path) -> Result<std::sync::Arc<NgramDb>, String> {
    memo::open_source(path)
}

/// The values slots are ranked with: the file's `examples`, else the first value any scene
/// binds to the variable (slots without either are scored as the unknown word).
pub fn slot_values(module: &Module, file: &crate::ir::SentenceFile) -> HashMap<String, String> {
    let mut values: HashMap<String, String> = file.examples.iter().cloned().collect();
    for (_, scene) in module.scenes.iter() {
        for a in &scene.agents {
            for (n, v) in &a.variables {
                values.entry(n.text.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    values
}

/// `unjudged-spoken-set`: the designer judged this state's lines (pinned or accepted some),
/// yet none of the lines it now speaks is among them — its words changed, or the corpus did, so
/// the game says lines nobody looked at. The judging pass (the editor's Judge lines, or `accept`
/// in the file) settles it.
fn report_unjudged(
    module: &Module,
    h: crate::ir::Handle<crate::ir::SentenceState>,
    spoken: &[Candidate],
    judged: &[&str],
    diags: &mut Diagnostics,
) {
    let s = &module.sentences[h];
    if judged.is_empty()
        || spoken.iter().any(|c| {
            judged
                .iter()
                .any(|e| rank::names_candidate(e, c.id, &c.template))
        })
    {
        return;
    }
    let lines: Vec<String> = spoken
        .iter()
        .map(|c| format!("\"{}\"", c.template))
        .collect();
    diags.push(
        Diagnostic::warning(
            Code::UnjudgedSpokenSet,
            format!(
                "sentence state `{}` speaks {} that nobody judged: {}",
                s.name.text,
                if spoken.len() == 1 { "a line" } else { "lines" },
                lines.join(", ")
            ),
        )
        .at(s.name.span, "judged before, unjudged now")
        .note("its pinned and accepted lines are no longer among its candidates; accept or ban the lines it speaks now (the editor's Judge lines, or `accept:` in the file)"),
    );
}

/// `unknown-candidate`: a `ban` or `pin` entry that names no candidate of its sentence state
/// (the state's words changed, or the line was mistyped): it does nothing.
fn report_unknown_choices(
    module: &Module,
    h: crate::ir::Handle<crate::ir::SentenceState>,
    diags: &mut Diagnostics,
) {
    let s = &module.sentences[h];
    if s.ban.is_empty() && s.pin.is_empty() && s.accept.is_empty() {
        return;
    }
    let (unique, _) = rank::generate(&s.input);
    let ids: Vec<(u32, String)> = unique
        .iter()
        .map(|r| {
            let t = r.sentence.template();
            (ensemble_runtime::speech::candidate_id(&s.name.text, &t), t)
        })
        .collect();
    for (what, list) in [
        ("banned", &s.ban),
        ("pinned", &s.pin),
        ("accepted", &s.accept),
    ] {
        for entry in list {
            if ids
                .iter()
                .any(|(id, t)| rank::names_candidate(&entry.text, *id, t))
            {
                continue;
            }
            diags.push(
                Diagnostic::warning(
                    Code::UnknownCandidate,
                    format!(
                        "sentence state `{}`: the {what} line \"{}\" is not among its candidates",
                        s.name.text, entry.text
                    ),
                )
                .at(entry.span, "no such candidate")
                .note("the verbs or nouns changed, or the line is mistyped: copy it from `ensemble ngram rank PROJECT --sentence NAME` (a line with `{Slot}`s, or its 8-digit id)"),
            );
        }
    }
}

fn report_candidates(
    module: &Module,
    h: crate::ir::Handle<crate::ir::SentenceState>,
    ranked: &[Candidate],
    spoken: usize,
    scored: bool,
    diags: &mut Diagnostics,
) {
    let s = &module.sentences[h];
    let file = &module.sentence_files[s.file];
    let name = &s.name.text;
    match ranked.first() {
        None => diags.push(
            Diagnostic::warning(
                Code::NoCandidate,
                format!("sentence state `{name}` yields no candidate sentence"),
            )
            .at(s.name.span, "nothing to say")
            .note("give it at least one verb or noun that realises to words"),
        ),
        Some(best)
            if scored
                && (!best.score.is_finite() || file.min_score.is_some_and(|m| best.score < m)) =>
        {
            let threshold = match file.min_score {
                Some(m) => format!("the threshold {m}"),
                None => "any finite score".to_string(),
            };
            diags.push(
                Diagnostic::warning(
                    Code::NoCandidate,
                    format!(
                        "sentence state `{name}`: every candidate scores below {threshold} (best: \"{}\", {:.3})",
                        best.template, best.score
                    ),
                )
                .at(s.name.span, "no candidate the n-grams support")
                .note("the n-gram counts do not support any realisation; check its words, or use a larger corpus"),
            );
        }
        _ => {}
    }
    // Among the candidates the runtime chooses from (the spoken set), the first pair whose
    // subjects differ.
    let among = &ranked[..spoken.min(ranked.len())];
    let swapped = among.iter().enumerate().find_map(|(i, a)| {
        among[i + 1..]
            .iter()
            .find(|b| matches!((a.subject, b.subject), (Some(x), Some(y)) if x != y))
            .map(|b| (a, b))
    });
    if let Some((a, b)) = swapped {
        diags.push(
            Diagnostic::warning(
                Code::SwappedArguments,
                format!(
                    "sentence state `{name}`: two of the best candidates differ in who does what: \"{}\" / \"{}\"",
                    a.template, b.template
                ),
            )
            .at(s.name.span, "arguments swapped among the candidates the runtime chooses from")
            .note("the n-gram ranking cannot tell meanings apart (Hewlett §3.4.3, \"Bob hit Sam\"); reorder the nouns or keep fewer candidates"),
        );
    }
    let mut oov: Vec<&str> = ranked
        .iter()
        .flat_map(|c| c.oov.iter().map(String::as_str))
        .filter(|w| *w != "<unk>")
        .collect();
    oov.sort_unstable();
    oov.dedup();
    if scored && !oov.is_empty() {
        diags.push(
            Diagnostic::new(
                Severity::Info,
                Code::OutOfVocabulary,
                format!(
                    "sentence state `{name}`: the n-gram database does not know {}",
                    oov.iter()
                        .map(|w| format!("`{w}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .at(s.name.span, "scored with back-off for these words"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::front::ron::SentencesAsset;

    /// The editor previews one sentence state at a time with [`parse_lines`] and [`rank_state`];
    /// it must show what the compiler puts in the program.
    #[test]
    fn a_state_ranked_alone_matches_the_compiled_project() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport");
        let c = crate::compile_path(&root).expect("the airport sample loads");
        let text = std::fs::read_to_string(root.join("airport.sentences.ron")).unwrap();
        let asset: SentencesAsset = ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(&text)
            .unwrap();
        let db = open_ngrams(&root.join(asset.ngrams.as_deref().unwrap())).unwrap();
        assert!(!asset.states.is_empty());
        for state in &asset.states {
            let (mut input, verb_errors, noun_errors) = parse_lines(&state.verbs, &state.nouns);
            // The editor previews with the file's declarations too.
            input.slot_kinds = slot_kinds(&asset.slots, &state.slots);
            assert!(verb_errors.is_empty() && noun_errors.is_empty());
            let h = c.module.sentence_by_name(&state.name).unwrap();
            let compiled = &c.module.sentences[h];
            assert_eq!(input, compiled.input);
            let slot = |n: &str| {
                asset
                    .examples
                    .get(n)
                    .cloned()
                    .unwrap_or_else(|| "<unk>".into())
            };
            let (mut ranked, report) = rank_state(
                &state.name,
                &input,
                Some(&db),
                ngram::Method::Interpolated,
                slot,
            );
            assert_eq!(report, compiled.report);
            assert_eq!(ranked.len(), report.unique);
            ranked.truncate(asset.keep as usize);
            assert_eq!(ranked, compiled.candidates, "{}", state.name);
        }
    }

    /// `ban` and `pin` in the sentence file: the compiled candidates never hold a banned line,
    /// start with the pinned ones in pin order (by line or by id), and a line that is not a
    /// candidate is an `unknown-candidate` warning at that string.
    #[test]
    fn banned_lines_are_never_kept_and_pinned_lines_come_first() {
        let dir = airport_copy();
        let before = crate::compile_path(dir.path()).unwrap();
        let h = before.module.sentence_by_name("WantTicketToX").unwrap();
        let old = before.module.sentences[h].candidates.clone();
        let (top, third) = (old[0].template.clone(), old[2].clone());
        let file = dir.path().join("airport.sentences.ron");
        let text = std::fs::read_to_string(&file).unwrap().replace(
            r#"nouns: "I, ticket, VARIABLE CityName"),"#,
            &format!(
                r#"nouns: "I, ticket, VARIABLE CityName", ban: ["{top}"], pin: ["{:08x}", "You sold nothing."]),"#,
                third.id
            ),
        );
        std::fs::write(&file, text).unwrap();
        let after = crate::compile_path(dir.path()).unwrap();
        let now = &after.module.sentences[h].candidates;
        assert_eq!(now[0].template, third.template, "pinned by id, first");
        assert!(now.iter().all(|c| c.template != top), "banned");
        assert_eq!(now.len(), old.len(), "the rest fill up to `keep`");
        let warnings: Vec<_> = after
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::UnknownCandidate)
            .collect();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].message.contains("You sold nothing."));
    }

    /// The score-gap rule in a build: each state speaks the candidates within its margin of the
    /// best (at most `choose_among`), a state's own `score_margin` overrides the file's, and a
    /// negative margin is an `invalid-value` error at that field.
    #[test]
    fn the_spoken_set_is_the_candidates_within_the_margin() {
        let dir = airport_copy();
        let file = dir.path().join("airport.sentences.ron");
        let original = std::fs::read_to_string(&file).unwrap();
        let wide = original.replace("choose_among: 2,", "choose_among: 3, score_margin: 100.0,");
        let state = r#"nouns: "I, ticket, VARIABLE CityName""#;
        let one = wide.replace(state, &format!("{state}, score_margin: 0.0"));
        assert!(wide != original && one != wide);
        std::fs::write(&file, &one).unwrap();
        let c = crate::compile_path(dir.path()).unwrap();
        for (_, s) in c.module.sentences.iter() {
            let margin = if s.name.text == "WantTicketToX" {
                0.0
            } else {
                100.0
            };
            let best = s.candidates[0].score;
            let within = (s.candidates.iter().take(3))
                .take_while(|c| c.score >= best - margin)
                .count();
            // Lines that misplace a slot or swap the subject stop the set early.
            assert!(
                s.spoken >= 1 && s.spoken <= within,
                "{}: {}",
                s.name.text,
                s.spoken
            );
        }
        let h = c.module.sentence_by_name("WantTicketToX").unwrap();
        let s = &c.module.sentences[h];
        let ties = s
            .candidates
            .iter()
            .filter(|c| c.score == s.candidates[0].score)
            .count();
        assert_eq!(
            s.spoken,
            ties.min(3),
            "margin 0 speaks the best and its ties"
        );
        assert!(
            c.module.sentences.iter().any(|(_, s)| s.spoken > 1),
            "a margin of 100 lets more than one line be spoken somewhere"
        );

        std::fs::write(
            &file,
            wide.replace("score_margin: 100.0", "score_margin: -1.0"),
        )
        .unwrap();
        let bad = crate::compile_path(dir.path()).unwrap();
        assert!(
            bad.diagnostics
                .iter()
                .any(|d| d.code == Code::InvalidValue && d.message.contains("score_margin")),
            "{:?}",
            bad.diagnostics
        );
    }

    /// A copy of the airport sample to edit.
    fn airport_copy() -> tempfile::TempDir {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples/airport");
        let dir = tempfile::tempdir().unwrap();
        for entry in walk(&root) {
            let to = dir.path().join(entry.strip_prefix(&root).unwrap());
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(&entry, &to).unwrap();
        }
        dir
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
        out
    }

    #[test]
    fn each_line_keeps_its_own_mistakes() {
        let (input, verbs, nouns) = parse_lines("be, PAST", "you, VARIABLE");
        assert_eq!(input.verbs.len(), 1);
        assert_eq!(verbs[0].range, 4..8);
        assert!(nouns[0].message.contains("followed by a name"));
    }
}
