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
    /// What the compiler does by default: interpolated absolute discounting after the
    /// meaning rules (slot kinds, the subject as written, the direct object).
    Current,
    /// `scoring: KneserNey`: modified Kneser-Ney after the same rules.
    KneserNey,
}

impl Ranking {
    pub const ALL: [Ranking; 2] = [Ranking::Current, Ranking::KneserNey];

    pub fn as_str(self) -> &'static str {
        match self {
            Ranking::Current => {
                "current default: absolute discounting + slot kinds + subject as written + direct object"
            }
            Ranking::KneserNey => {
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
    let method = match ranking {
        Ranking::Current => Method::Interpolated,
        Ranking::KneserNey => Method::KneserNey,
    };
    input.slot_kinds = super::slot_kinds(&set.slots, &s.slots);
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
    /// every acceptable line a sentence (capitalised, punctuated, its slots the state's own): a
    /// typo would make a state impossible to pass without anyone noticing.
    #[test]
    fn the_sets_are_large_enough_and_their_lines_well_formed() {
        for file in ["nlg-eval/eval.ron", "nlg-eval-2/eval.ron"] {
            let path = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../tests/fixtures")
                .join(file);
            let (set, _) = read(&path).expect("the evaluation set reads");
            assert!(set.states.len() >= 40, "{file}: {}", set.states.len());
            let held = set
                .states
                .iter()
                .filter(|s| s.part == Part::HeldOut)
                .count();
            assert!(held * 4 >= set.states.len() && held * 2 <= set.states.len());
            for s in &set.states {
                let (input, _, _) = crate::nlg::parse_lines(&s.verbs, &s.nouns);
                let slots: Vec<&str> = input.nouns.iter().flat_map(|n| n.slots()).collect();
                for a in &s.acceptable {
                    assert!(
                        a.starts_with(|c: char| c.is_uppercase() || c == '{')
                            && (a.ends_with('.') || a.ends_with('?')),
                        "{file}: {}: `{a}`",
                        s.name
                    );
                    for slot in a.split('{').skip(1).filter_map(|x| x.split('}').next()) {
                        assert!(
                            slots.contains(&slot),
                            "{file}: {}: `{a}` names {slot}",
                            s.name
                        );
                    }
                }
            }
        }
    }

    /// The evaluator's figures on the first set: every state ranked, the parts apart, and the
    /// airport's own states spoken acceptably (BENCHMARKS.md has the full figures).
    #[test]
    fn the_evaluator_judges_the_first_set() {
        let (set, db) = fixture();
        let outcomes = evaluate(&set, &db, Ranking::Current, set.speaking());
        assert_eq!(outcomes.len(), set.states.len());
        let t = tally(&outcomes);
        assert_eq!(t.len(), 2);
        for airport in ["WantTicketToX", "ConfirmFlightX", "LeaveAtX", "WhenTravel"] {
            let o = outcomes.iter().find(|o| o.name == airport).expect(airport);
            assert!(o.spoken_ok, "{airport}: {:?}", o.spoken);
        }
    }
}
