//! Measuring the ranking against a judged set (`tests/fixtures/nlg-eval/eval.ron`): sentence
//! states with every realisation a person judged acceptable, split into a part the ranking may
//! be tuned on and a held-out part it may not. A state counts when the whole set the runtime
//! chooses among is acceptable — the compiler's [`Speaking`] rule decides that set, here as in
//! a build; the best candidate alone is reported beside it.

use super::ngram::{Method, NgramDb};
use super::overgen::SlotKind;
use super::rank::{Candidate, DEFAULT_SCORE_MARGIN, Speaking};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Which half of the set a state is in.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub enum Part {
    Tuning,
    HeldOut,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Tuning => "tuning",
            Part::HeldOut => "held-out",
        }
    }
}

/// The judged set, as written.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename = "NlgEval")]
pub struct EvalSet {
    /// Counts to rank with, relative to the set's file.
    pub ngrams: String,
    #[serde(default = "two")]
    pub choose_among: u32,
    /// As a sentence file's `score_margin`.
    #[serde(default = "default_margin")]
    pub score_margin: f64,
    /// Slot stand-ins while ranking, as a sentence file's `examples`.
    #[serde(default)]
    pub examples: BTreeMap<String, String>,
    /// What slots stand for, as a sentence file's `slots`.
    #[serde(default)]
    pub slots: BTreeMap<String, SlotKind>,
    pub states: Vec<EvalState>,
}

fn two() -> u32 {
    2
}

fn default_margin() -> f64 {
    DEFAULT_SCORE_MARGIN
}

#[derive(Clone, Debug, Deserialize)]
pub struct EvalState {
    pub name: String,
    pub verbs: String,
    pub nouns: String,
    pub part: Part,
    #[serde(default)]
    pub slots: BTreeMap<String, SlotKind>,
    /// Every realisation judged acceptable, as templates (`{Slot}` for slots).
    pub acceptable: Vec<String>,
}

/// Which ranking to measure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ranking {
    /// The ranking before this set existed: interpolated absolute discounting, slots scored
    /// with the `examples` value — kept so that "before" can be measured again at any time.
    Baseline,
    /// Modified Kneser-Ney, slots scored with the example values, nothing else.
    KneserNey,
    /// Absolute discounting with the slots' declared kinds (the default before the written
    /// subject rule).
    SlotKinds,
    /// Modified Kneser-Ney with the slots' declared kinds.
    KneserNeyWithKinds,
    /// Absolute discounting, slot kinds, and the subject as written first (the default before
    /// the direct-object rule).
    WrittenSubject,
    /// What the compiler does by default today: absolute discounting, slot kinds, the subject
    /// as written first and the noun after it as the verb's object.
    Current,
    /// `scoring: KneserNey` today: modified Kneser-Ney, slot kinds, the written subject, the
    /// direct object.
    KneserNeyCurrent,
}

impl Ranking {
    pub const ALL: [Ranking; 7] = [
        Ranking::Baseline,
        Ranking::KneserNey,
        Ranking::SlotKinds,
        Ranking::KneserNeyWithKinds,
        Ranking::WrittenSubject,
        Ranking::Current,
        Ranking::KneserNeyCurrent,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Ranking::Baseline => "baseline (absolute discounting, example values)",
            Ranking::KneserNey => "modified Kneser-Ney alone (example values)",
            Ranking::SlotKinds => "absolute discounting + slot kinds",
            Ranking::KneserNeyWithKinds => "modified Kneser-Ney + slot kinds",
            Ranking::WrittenSubject => "absolute discounting + slot kinds + subject as written",
            Ranking::Current => {
                "current default: absolute discounting + slot kinds + subject as written + direct object"
            }
            Ranking::KneserNeyCurrent => {
                "modified Kneser-Ney + slot kinds + subject as written + direct object"
            }
        }
    }
}

/// One state's outcome.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub name: String,
    pub part: Part,
    /// The candidates the runtime chooses among, best first.
    pub spoken: Vec<String>,
    pub spoken_ok: bool,
    pub best_ok: bool,
}

/// Shares per part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub states: usize,
    pub spoken_ok: usize,
    pub best_ok: usize,
    /// Lines in the spoken sets, summed (their mean says how much variety is left).
    pub spoken_lines: usize,
}

impl Tally {
    pub fn percent(n: usize, of: usize) -> f64 {
        if of == 0 {
            0.0
        } else {
            100.0 * n as f64 / of as f64
        }
    }
}

/// Reads a set; errors name the file and the line and column.
pub fn read(path: &Path) -> Result<(EvalSet, PathBuf), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let set: EvalSet = ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .from_str(&text)
        .map_err(|e| format!("{}:{}: {}", path.display(), e.span.start, e.code))?;
    for s in &set.states {
        let (_, verbs, nouns) = super::parse_lines(&s.verbs, &s.nouns);
        if let Some(e) = verbs.first().or(nouns.first()) {
            return Err(format!(
                "{}: state `{}`: {}",
                path.display(),
                s.name,
                e.message
            ));
        }
    }
    let ngrams = path.parent().unwrap_or(Path::new(".")).join(&set.ngrams);
    Ok((set, ngrams))
}

impl EvalSet {
    /// The spoken-set rule the set's own settings give, as a sentence file's would.
    pub fn speaking(&self) -> Speaking {
        Speaking {
            choose_among: self.choose_among,
            score_margin: self.score_margin,
        }
    }
}

/// Every state of a set ranked one way, to be judged under several spoken-set rules.
pub struct RankedSet<'a> {
    states: Vec<(&'a EvalState, Vec<Candidate>, super::overgen::Input)>,
}

/// Ranks every state of `set` with `ranking`.
pub fn rank_all<'a>(set: &'a EvalSet, db: &NgramDb, ranking: Ranking) -> RankedSet<'a> {
    RankedSet {
        states: (set.states.iter())
            .map(|s| {
                let (ranked, input) = rank_for_eval(set, s, db, ranking);
                (s, ranked, input)
            })
            .collect(),
    }
}

/// Ranks every state of `set` with `ranking` and judges the set `speaking` speaks of each
/// (`score_margin: f64::INFINITY` is the first `choose_among`, as before the score-gap rule).
pub fn evaluate(set: &EvalSet, db: &NgramDb, ranking: Ranking, speaking: Speaking) -> Vec<Outcome> {
    judge(&rank_all(set, db, ranking), speaking)
}

/// Judges the set `speaking` speaks of each ranked state.
pub fn judge(ranked: &RankedSet<'_>, speaking: Speaking) -> Vec<Outcome> {
    ranked
        .states
        .iter()
        .map(|(s, ranked, input)| {
            let among = speaking.count(ranked, input, &[]);
            let ok = |c: &Candidate| s.acceptable.contains(&c.template);
            let spoken: Vec<String> = ranked[..among].iter().map(|c| c.template.clone()).collect();
            Outcome {
                name: s.name.clone(),
                part: s.part,
                spoken_ok: among > 0 && ranked[..among].iter().all(ok),
                best_ok: ranked.first().is_some_and(ok),
                spoken,
            }
        })
        .collect()
}

/// The ranked candidates and the input they were ranked from (its slot kinds decide fit).
fn rank_for_eval(
    set: &EvalSet,
    s: &EvalState,
    db: &NgramDb,
    ranking: Ranking,
) -> (Vec<Candidate>, super::overgen::Input) {
    let (mut input, _, _) = super::parse_lines(&s.verbs, &s.nouns);
    use Ranking::*;
    let method = match ranking {
        Baseline | SlotKinds | WrittenSubject | Current => Method::Interpolated,
        KneserNey | KneserNeyWithKinds | KneserNeyCurrent => Method::KneserNey,
    };
    if !matches!(ranking, Baseline | KneserNey) {
        input.slot_kinds = super::slot_kinds(&set.slots, &s.slots);
    }
    input.subject_as_written = matches!(ranking, WrittenSubject | Current | KneserNeyCurrent);
    input.direct_object = matches!(ranking, Current | KneserNeyCurrent);
    let slot = |n: &str| {
        set.examples
            .get(n)
            .cloned()
            .unwrap_or_else(|| "<unk>".to_string())
    };
    let ranked = super::rank_state(&s.name, &input, Some(db), method, slot).0;
    (ranked, input)
}

/// Tallies per part (tuning, held-out).
pub fn tally(outcomes: &[Outcome]) -> BTreeMap<Part, Tally> {
    let mut t: BTreeMap<Part, Tally> = BTreeMap::new();
    for o in outcomes {
        let e = t.entry(o.part).or_default();
        e.states += 1;
        e.spoken_ok += usize::from(o.spoken_ok);
        e.best_ok += usize::from(o.best_ok);
        e.spoken_lines += o.spoken.len();
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> (EvalSet, NgramDb) {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/nlg-eval/eval.ron");
        let (set, ngrams) = read(&path).expect("the evaluation set reads");
        let db = super::super::ngram::open_source(&ngrams).expect("its counts open");
        (set, db)
    }

    /// The set is what its README promises: at least 40 states, about a third held out, and
    /// every listed acceptable line is one the over-generator can produce (a typo would make a
    /// state impossible to pass without anyone noticing).
    #[test]
    fn the_set_is_large_enough_and_its_lines_exist() {
        let (set, _) = fixture();
        assert!(set.states.len() >= 40, "{}", set.states.len());
        let held = set
            .states
            .iter()
            .filter(|s| s.part == Part::HeldOut)
            .count();
        assert!(held * 4 >= set.states.len() && held * 2 <= set.states.len());
        for s in &set.states {
            let (input, _, _) = crate::nlg::parse_lines(&s.verbs, &s.nouns);
            let (unique, _) = crate::nlg::rank::generate(&input);
            let templates: Vec<String> = unique.iter().map(|(t, _)| t.template()).collect();
            for a in &s.acceptable {
                assert!(
                    templates.contains(a),
                    "{}: `{a}` is never generated",
                    s.name
                );
            }
        }
    }
}
