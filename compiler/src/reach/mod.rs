//! "How do I get here?": a search over a scene's choice points for a play that reaches a
//! target — a state entered, a line said, a rule fired, a reply chosen, any trace event — and
//! that play written as a content test (docs/formats/reach.md).
//!
//! ```text
//! Target ─► search::search ─► Play ─► verified by content_test::run (from tick 0) ─► *.test.ron
//!            (best-first over snapshots: seeds, mocked failures, messages at ticks,
//!             player lines; guided by graph::Distances and HMM beliefs)
//! ```
//!
//! Branching is by savegame: a node is a snapshot of the scene between ticks; an edge restores
//! it and applies one choice. Nothing found is claimed before the play, written as a test, has
//! passed from tick 0 as `ensemble test` runs it.

pub mod choices;
pub mod graph;
pub mod search;
pub mod story;

use crate::content_test::asset::{
    EventPattern, Expectation, Seeds, SetupAsset, TestAsset, TestEvent, TestsAsset,
};

pub use choices::Choices;
pub use search::{Budget, Outcome, Stats, random_play, search};

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
