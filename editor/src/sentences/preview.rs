//! Ranking a sentence state while the designer types: over-generation, realisation and n-gram
//! ranking (the compiler's `nlg::rank_state`) on a worker thread, debounced, with stale results
//! dropped. The UI thread never waits for it.
//!
//! **Invariant:** a result is shown only if it answers the latest request sent; the worker
//! always skips to the newest request waiting for it.

use ensemble_compiler::formats::ron::ScoringAsset;
use ensemble_compiler::nlg::Method;
use ensemble_compiler::nlg::{Candidate, GenerationReport};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::{Duration, Instant};

/// How long typing must pause before a request goes out.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Everything a ranking depends on.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub name: String,
    pub verbs: String,
    pub nouns: String,
    /// Resolved path of the n-gram source, if the asset names one.
    pub ngrams: Option<PathBuf>,
    pub scoring: Method,
    pub examples: BTreeMap<String, String>,
    /// What slots stand for (the file's `slots` with the state's over them).
    pub slot_kinds: Vec<(String, ensemble_compiler::nlg::SlotKind)>,
    /// The state's `ban`, `pin` and `accept` lists, applied as the compiler applies them.
    pub ban: Vec<String>,
    pub pin: Vec<String>,
    pub accept: Vec<String>,
    /// `choose_among` and the score margin, for the compiler's spoken-set rule.
    pub speaking: ensemble_compiler::nlg::Speaking,
}

impl Request {
    /// What ranking state `i` of `value` depends on; `dir` is the folder the file's relative
    /// paths resolve against (the file's own).
    pub fn of(
        value: &ensemble_compiler::formats::ron::SentencesAsset,
        i: usize,
        dir: &std::path::Path,
    ) -> Request {
        let state = &value.states[i];
        Request {
            name: state.name.trim().to_string(),
            verbs: state.verbs.clone(),
            nouns: state.nouns.clone(),
            ngrams: value
                .ngrams
                .as_ref()
                .filter(|p| !p.trim().is_empty())
                .map(|p| dir.join(p.trim())),
            scoring: scoring_method(value.scoring),
            examples: value.examples.clone(),
            slot_kinds: ensemble_compiler::nlg::slot_kinds(&value.slots, &state.slots),
            ban: state.ban.clone(),
            pin: state.pin.clone(),
            accept: state.accept.clone(),
            speaking: ensemble_compiler::nlg::Speaking {
                choose_among: value.choose_among,
                score_margin: (state.score_margin.or(value.score_margin))
                    .unwrap_or(ensemble_compiler::nlg::DEFAULT_SCORE_MARGIN),
            },
        }
    }
}

/// A finished ranking.
#[derive(Clone, Debug)]
pub struct Ranked {
    pub request: Request,
    /// Every distinct candidate but the banned, in the compiler's order (pinned, then
    /// accepted, then the rest by rank).
    pub candidates: Vec<Candidate>,
    /// How many of the first the runtime would choose among.
    pub spoken: usize,
    /// The candidates the state bans, best first (shown apart, so a ban can be taken back).
    pub banned: Vec<Candidate>,
    pub report: GenerationReport,
    /// Why the n-gram source could not be used (then every score is 0).
    pub ngram_error: Option<String>,
    /// Whether the lines have mistakes (the candidates are of what parses).
    pub has_errors: bool,
    pub elapsed: Duration,
}

/// Ranks a sentence state as the compiler does: over-generation, n-gram ranking, the lines
/// that say what the state says first, then the designer's judgements
/// (`nlg::apply_judgements`) and the spoken-set rule (`Speaking::count`, with the
/// pinned and accepted lines as the judged ones). Slow (tens of milliseconds and more): run it
/// off the UI thread.
pub fn rank(request: Request) -> Ranked {
    let start = Instant::now();
    let (mut input, verb_errors, noun_errors) =
        ensemble_compiler::nlg::parse_lines(&request.verbs, &request.nouns);
    input.slot_kinds = request.slot_kinds.clone();
    let (db, ngram_error) = match &request.ngrams {
        Some(p) => match ensemble_compiler::nlg::open_ngrams(p) {
            Ok(db) => (Some(db), None),
            Err(e) => (None, Some(e)),
        },
        None => (None, None),
    };
    let slot = |name: &str| {
        request
            .examples
            .get(name)
            .cloned()
            .unwrap_or_else(|| "<unk>".to_string())
    };
    let (mut candidates, report) = ensemble_compiler::nlg::rank_state(
        &request.name,
        &input,
        db.as_deref(),
        request.scoring,
        slot,
    );
    let (ban, pin, accept) = (
        strs(&request.ban),
        strs(&request.pin),
        strs(&request.accept),
    );
    let banned: Vec<Candidate> = candidates
        .iter()
        .filter(|c| {
            ban.iter()
                .any(|e| ensemble_compiler::nlg::names_candidate(e, c.id, &c.template))
        })
        .cloned()
        .collect();
    ensemble_compiler::nlg::apply_judgements(&mut candidates, &ban, &pin, &accept);
    let judged: Vec<&str> = pin.iter().chain(&accept).copied().collect();
    let spoken = request.speaking.count(&candidates, &input, &judged);
    Ranked {
        spoken,
        banned,
        has_errors: !verb_errors.is_empty() || !noun_errors.is_empty(),
        request,
        candidates,
        report,
        ngram_error,
        elapsed: start.elapsed(),
    }
}

fn strs(list: &[String]) -> Vec<&str> {
    list.iter().map(String::as_str).collect()
}

/// The worker and what the UI knows about it.
pub struct Preview {
    to_worker: Sender<Request>,
    from_worker: Receiver<Ranked>,
    /// The request waiting out the debounce, and since when.
    waiting: Option<(Request, Instant)>,
    /// The last request sent to the worker.
    sent: Option<Request>,
    /// The result for `sent`, or the previous one while the worker is busy.
    pub shown: Option<Ranked>,
}

impl Preview {
    /// Starts the worker. `wake` is called when a result is ready (the UI repaints).
    pub fn start(wake: impl Fn() + Send + 'static) -> Self {
        let (to_worker, requests) = channel::<Request>();
        let (results, from_worker) = channel::<Ranked>();
        std::thread::Builder::new()
            .name("sentence-preview".into())
            .spawn(move || {
                while let Ok(request) = requests.recv() {
                    // Only the newest request matters.
                    let Some(request) = crate::marks::newest(&requests, request) else {
                        return;
                    };
                    if results.send(rank(request)).is_err() {
                        return;
                    }
                    wake();
                }
            })
            .expect("a thread can be spawned");
        Preview {
            to_worker,
            from_worker,
            waiting: None,
            sent: None,
            shown: None,
        }
    }

    /// Says what should be ranked now; returns when the UI should look again (a pending
    /// debounce or a busy worker), or `None` when it is up to date.
    pub fn want(&mut self, request: Request) -> Option<Duration> {
        while let Ok(r) = self.from_worker.try_recv() {
            if Some(&r.request) == self.sent.as_ref() {
                self.shown = Some(r);
            }
        }
        let now = Instant::now();
        if self.sent.as_ref() != Some(&request) {
            match &self.waiting {
                Some((w, since)) if *w == request => {
                    if now.duration_since(*since) >= DEBOUNCE {
                        let _ = self.to_worker.send(request.clone());
                        self.sent = Some(request);
                        self.waiting = None;
                    }
                }
                // The very first request need not wait: nothing is being typed yet.
                _ if self.sent.is_none() => {
                    let _ = self.to_worker.send(request.clone());
                    self.sent = Some(request);
                }
                _ => self.waiting = Some((request, now)),
            }
        } else {
            self.waiting = None;
        }
        if self.waiting.is_some() {
            return Some(DEBOUNCE / 3);
        }
        self.busy().then_some(Duration::from_millis(30))
    }

    /// Whether what is shown is not (yet) the answer to what was asked.
    pub fn busy(&self) -> bool {
        self.waiting.is_some() || self.shown.as_ref().map(|s| &s.request) != self.sent.as_ref()
    }
}

fn scoring_method(s: ScoringAsset) -> Method {
    match s {
        ScoringAsset::Interpolated => Method::Interpolated,
        ScoringAsset::StupidBackoff => Method::StupidBackoff,
        ScoringAsset::Eq31 => Method::Eq31,
        ScoringAsset::KneserNey => Method::KneserNey,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(verbs: &str) -> Request {
        Request {
            name: "S".into(),
            verbs: verbs.into(),
            nouns: "you, flight".into(),
            ngrams: None,
            scoring: Method::Interpolated,
            examples: BTreeMap::new(),
            slot_kinds: Vec::new(),
            ban: Vec::new(),
            pin: Vec::new(),
            accept: Vec::new(),
            speaking: ensemble_compiler::nlg::Speaking {
                choose_among: 2,
                score_margin: ensemble_compiler::nlg::DEFAULT_SCORE_MARGIN,
            },
        }
    }

    fn settle(p: &mut Preview, r: &Request) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while p.want(r.clone()).is_some() {
            assert!(Instant::now() < deadline, "the preview never settled");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn the_latest_request_wins_and_stale_results_are_dropped() {
        let mut p = Preview::start(|| {});
        let first = request("book");
        settle(&mut p, &first);
        let shown = p.shown.as_ref().unwrap();
        assert_eq!(shown.request, first);
        assert!(shown.candidates.iter().any(|c| c.template.contains("book")));
        // Typing: each keystroke replaces the waiting request; only the last is ranked.
        for v in ["c", "ca", "can", "canc", "cancel"] {
            assert!(p.want(request(v)).is_some());
        }
        assert_eq!(
            p.shown.as_ref().unwrap().request,
            first,
            "old result kept meanwhile"
        );
        let last = request("cancel");
        settle(&mut p, &last);
        let shown = p.shown.as_ref().unwrap();
        assert_eq!(shown.request, last);
        assert!(
            shown
                .candidates
                .iter()
                .all(|c| !c.template.contains("book"))
        );
        assert!(
            shown
                .candidates
                .iter()
                .any(|c| c.template.contains("cancel"))
        );
    }

    #[test]
    fn a_missing_ngram_source_is_reported_not_fatal() {
        let mut p = Preview::start(|| {});
        let mut r = request("book");
        r.ngrams = Some(PathBuf::from("/no/such/file.ngr"));
        settle(&mut p, &r);
        let shown = p.shown.as_ref().unwrap();
        assert!(shown.ngram_error.is_some());
        assert!(!shown.candidates.is_empty());
        assert!(shown.candidates.iter().all(|c| c.score == 0.0));
    }
}
