//! "How do I get here?": a search over a scene's choice points for a play that reaches a
//! target — a state entered, a line said, a rule fired, a reply chosen, any trace event — and
//! that play written as a content test (docs/formats/reach.md).
//!
//! ```text
//! Target ─► search::search ─► Play ─► verified by content_test::run (from tick 0) ─► *.test.ron
//!            (best-first over snapshots: seeds, mocked failures, messages at ticks,
//!             player lines, player events at smart locations (player.rs), draws forced;
//!             guided by graph::Distances and HMM beliefs)
//! ```
//!
//! Branching is by savegame: a node is a snapshot of the scene between ticks; an edge restores
//! it and applies one choice. Nothing found is claimed before the play, written as a test, has
//! passed from tick 0 as `ensemble test` runs it.

pub mod choices;
pub mod graph;
pub mod lexicon;
pub mod player;
pub mod search;
pub mod story;
pub mod target;

use crate::content_test::asset::{
    EventPattern, Expectation, Seeds, SetupAsset, TestAsset, TestEvent, TestsAsset,
};

pub use choices::Choices;
pub use search::{Budget, Outcome, Progress, Stats, random_play, search, search_watched};
// The rest of the surface a tool reaches with (lib.rs): the graph's "cannot get there" distance
// and a found play told as a story.
pub use graph::FAR;
pub use story::story_of;

use ensemble_runtime::Program;
use std::sync::Arc;
use std::time::Duration;

/// The wall time a search is given unless told otherwise, in seconds.
pub const TIME_LIMIT: f64 = 60.0;
/// Ticks a run lasts by default in a machine scene none of the project's tests runs.
pub const TICKS: u64 = 3000;
/// Iterations a conversation lasts by default.
pub const CHAT_TICKS: u64 = 60;

impl Budget {
    /// The budget a search of `scene` gets unless told otherwise: runs as long as the longest
    /// of the project's `tests` of the scene (else [`TICKS`], a conversation [`CHAT_TICKS`]),
    /// 3 inputs, seeds 0-7, a choice every 30 ticks, [`TIME_LIMIT`] seconds.
    pub fn for_scene(tests: &[TestAsset], scene: &str, chat: bool) -> Budget {
        let longest = tests
            .iter()
            .filter(|t| t.scene == scene)
            .map(|t| t.ticks)
            .max();
        Budget {
            ticks: longest.unwrap_or(if chat { CHAT_TICKS } else { TICKS }),
            inputs: 3,
            seeds: 8,
            time: Duration::from_secs_f64(TIME_LIMIT),
            step: 30,
        }
    }
}

/// Whether `scene` is a conversation (a chat) rather than a machine scene.
pub fn is_chat(program: &Program, scene: &str) -> bool {
    program
        .hpmm
        .chats
        .iter()
        .any(|c| program.name(c.name) == scene)
}

/// One scene a target is tried in: its choices and its budget.
pub struct Attempt {
    pub scene: String,
    pub choices: Choices,
    pub budget: Budget,
}

/// How [`across`] ended: the scene that reached the target or proved it unreachable (`None`
/// when none did), the outcome there (else the last scene's), and the figures summed.
pub struct Across {
    pub scene: Option<String>,
    pub outcome: Outcome,
    pub stats: Stats,
}

/// Tries `target` in each attempt's scene in turn until one reaches it or proves it
/// unreachable (a proof holds in every scene: it is about the machine graph).
pub fn across(
    program: &Arc<Program>,
    target: &Target,
    attempts: &[Attempt],
    progress: &Progress,
) -> Across {
    let mut stats = Stats {
        best: graph::FAR,
        ..Stats::default()
    };
    // Every play tried only if so in every scene searched; a scene that cannot start does not
    // stop the others, but is the answer when none could.
    let (mut searched, mut all_tried, mut cannot) = (false, true, None);
    for a in attempts {
        if progress.stopped() {
            all_tried = false;
            break;
        }
        let (outcome, s) =
            search_watched(program, &a.scene, target, &a.choices, &a.budget, progress);
        stats.nodes += s.nodes;
        stats.restores += s.restores;
        stats.ticks += s.ticks;
        stats.duplicates += s.duplicates;
        stats.unverified += s.unverified;
        stats.seconds += s.seconds;
        stats.best = stats.best.min(s.best);
        match outcome {
            Outcome::Reached { .. } | Outcome::Unreachable { .. } => {
                return Across {
                    scene: Some(a.scene.clone()),
                    outcome,
                    stats,
                };
            }
            Outcome::CannotRun(why) => cannot = Some(format!("scene `{}`: {why}", a.scene)),
            Outcome::NotReached { every_play_tried } => {
                searched = true;
                all_tried &= every_play_tried;
            }
        }
    }
    let outcome = match (searched, cannot) {
        (false, Some(why)) => Outcome::CannotRun(why),
        (false, None) if attempts.is_empty() => {
            Outcome::CannotRun(format!("no scene can show {}", target.label))
        }
        _ => Outcome::NotReached {
            every_play_tried: all_tried,
        },
    };
    Across {
        scene: None,
        outcome,
        stats,
    }
}

/// What a search looks for.
#[derive(Clone, Debug)]
pub struct Target {
    /// How reports name it: `state BuyTicketAtCounter/Finish of buyer1`.
    pub label: String,
    /// The trace event that shows it (what the written test expects).
    pub pattern: EventPattern,
    /// A rule firing (script index, rule index): reached when the smart locations say it fired
    /// (a rule without an action has no trace event of its own); the written test then expects
    /// the first event the script recorded at that tick.
    pub rule: Option<(u32, u32)>,
    /// Target states in the machine graph (for the distance heuristic).
    pub states: Vec<ensemble_runtime::program::StateId>,
    /// Only these agents' distances count (`--agent`).
    pub agent: Option<String>,
    /// An HMM reply action: the beliefs of the states proposing it guide a conversation.
    pub hmm_action: Option<String>,
    /// An HMM state, (space, state): reached when it is the most believed of its space after
    /// an iteration (as coverage counts it); the written test then expects the first event the
    /// conversation recorded at that iteration.
    pub hmm_state: Option<(String, String)>,
}

impl Target {
    /// A target shown by `pattern`, with nothing to guide the search yet.
    pub fn new(label: String, pattern: EventPattern) -> Target {
        Target {
            label,
            pattern,
            rule: None,
            states: Vec::new(),
            agent: None,
            hmm_action: None,
            hmm_state: None,
        }
    }
}

/// The inputs of one play: everything a content test can say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Play {
    pub seed: u64,
    pub setup: Vec<SetupAsset>,
    pub events: Vec<TestEvent>,
    pub chat: Vec<String>,
    /// The tick the target happened at (the test's `ticks`).
    pub ticks: u64,
}

impl Play {
    /// Inputs beyond the seed.
    pub fn inputs(&self) -> usize {
        self.setup.len() + self.events.len() + self.chat.len()
    }

    /// The play as a content test that expects `what`.
    pub fn test(&self, name: &str, scene: &str, what: &EventPattern) -> TestAsset {
        TestAsset {
            name: name.to_string(),
            scene: scene.to_string(),
            seeds: Seeds::List(vec![self.seed]),
            ticks: self.ticks.max(1),
            chat: self.chat.clone(),
            events: self.events.clone(),
            setup: self.setup.clone(),
            expect: vec![Expectation::Happens { what: what.clone() }],
        }
    }
}

/// The first line of every file `reach` writes: a file without it is never replaced unasked.
pub const WRITTEN_MARK: &str = "// Written by `ensemble reach`";

/// The text of a test file holding `tests`, marked as written by `reach`.
pub fn test_file(tests: Vec<TestAsset>, what: &str) -> String {
    let body = crate::front::ron::to_canonical_string(&TestsAsset { tests });
    let newline = if body.ends_with('\n') { "" } else { "\n" };
    format!("{WRITTEN_MARK}: {what}\n{body}{newline}")
}

/// Whether the file at `path` was written by `reach` (so `reach` may replace it): its first
/// line starts with [`WRITTEN_MARK`]. Reads the first KiB at most.
pub fn written_by_reach(path: &std::path::Path) -> bool {
    use std::io::Read;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(1024).read_to_end(&mut head).is_err() {
        return false;
    }
    head.starts_with(WRITTEN_MARK.as_bytes())
}

/// Writes the play that reached `target` in `scene` as a content test file at `file` (its
/// folder made if need be), atomically: a failed write leaves the old file whole.
pub fn write_test(
    file: &std::path::Path,
    scene: &str,
    play: &Play,
    pattern: &EventPattern,
    target: &Target,
) -> Result<(), String> {
    if let Some(parent) = file.parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        return Err(format!("cannot create {}: {e}", parent.display()));
    }
    let test = play.test(&format!("reaches {}", target.label), scene, pattern);
    let text = test_file(
        vec![test],
        &format!("the play that reaches {}", target.label),
    );
    ensemble_runtime::fs::write_atomic(file, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", file.display()))
}
