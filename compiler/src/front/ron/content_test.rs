//! The `*.test.ron` asset as written (docs/formats/test.md): tests, each a scene, seeds, a
//! tick limit, what the test changes before the run and what the trace must show.

use serde::{Deserialize, Serialize};

/// A file of content tests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "Tests")]
pub struct TestsAsset {
    pub tests: Vec<TestAsset>,
}

impl TestsAsset {
    /// Every event pattern of every test.
    fn patterns_mut(&mut self) -> impl Iterator<Item = &mut EventPattern> {
        let expectations = self.tests.iter_mut().flat_map(|t| &mut t.expect);
        expectations.flat_map(|e| match e {
            Expectation::Happens { what } | Expectation::Never { what } => vec![what],
            Expectation::Before { first, then } => vec![first, then],
            Expectation::Within { what, after, .. } => {
                std::iter::once(what).chain(after.as_mut()).collect()
            }
            Expectation::Count { what, .. } => vec![what],
        })
    }

    /// Renames the machine `old` to `new` wherever a test names it exactly (patterns,
    /// `Disable`), as the editor's rename does across a project; whether anything changed.
    pub fn rename_machine(&mut self, old: &str, new: &str) -> bool {
        let mut changed = false;
        for t in &mut self.tests {
            for s in &mut t.setup {
                if let SetupAsset::Disable { machine, .. } = s {
                    changed |= rename_exact(machine, old, new);
                }
            }
        }
        for p in self.patterns_mut() {
            changed |= p
                .machine
                .as_mut()
                .is_some_and(|m| rename_exact(m, old, new));
        }
        changed
    }

    /// Renames the action `old` to `new` where a test mocks or expects it (`sit`, and the name
    /// of a ground action such as `Buy(npc, sword)`); whether anything changed.
    pub fn rename_action(&mut self, old: &str, new: &str) -> bool {
        let rename = |a: &mut String| {
            let rest = a
                .strip_prefix(old)
                .filter(|r| r.is_empty() || r.starts_with('('));
            let renamed = rest.map(|r| format!("{new}{r}"));
            renamed.map(|r| *a = r).is_some()
        };
        let mut changed = false;
        for t in &mut self.tests {
            for s in &mut t.setup {
                if let SetupAsset::Action { action, .. } = s {
                    changed |= rename(action);
                }
            }
        }
        for p in self.patterns_mut() {
            changed |= p.action.as_mut().is_some_and(rename);
        }
        changed
    }

    /// Renames the interaction script `old` to `new` where a pattern names it; whether
    /// anything changed.
    pub fn rename_script(&mut self, old: &str, new: &str) -> bool {
        let mut changed = false;
        for p in self.patterns_mut() {
            changed |= p.script.as_mut().is_some_and(|s| rename_exact(s, old, new));
        }
        changed
    }
}

/// Replaces `name` by `new` when it is exactly `old`; whether it did.
fn rename_exact(name: &mut String, old: &str, new: &str) -> bool {
    let hit = name == old;
    if hit {
        *name = new.to_string();
    }
    hit
}

/// One test: run `scene` with every seed for `ticks` ticks and check `expect` on each trace.
/// Written `Test(...)`, one field per line (the canonical printer's `EXPANDED`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "Test")]
pub struct TestAsset {
    /// What the test says the content does, in words: it names the test in every report.
    pub name: String,
    pub scene: String,
    pub seeds: Seeds,
    /// Ticks each run lasts (conversations: iterations).
    pub ticks: u64,
    /// Player lines for a conversation scene, in order: each is said when the agent waits for
    /// the player (`/nods` is an emote, an empty line a silent turn).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chat: Vec<String>,
    /// Scene events the test adds.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<TestEvent>,
    /// Mocks and setup, applied when the scene starts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub setup: Vec<SetupAsset>,
    pub expect: Vec<Expectation>,
}

/// The seeds a test runs with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Seeds {
    /// These seeds.
    List(Vec<u64>),
    /// Every seed from the first to the last, both included.
    Range(u64, u64),
}

impl Seeds {
    pub fn to_vec(&self) -> Vec<u64> {
        match self {
            Seeds::List(seeds) => seeds.clone(),
            Seeds::Range(first, last) => (*first..=*last).collect(),
        }
    }

    pub fn count(&self) -> u64 {
        match self {
            Seeds::List(seeds) => seeds.len() as u64,
            Seeds::Range(first, last) => last.saturating_sub(*first) + u64::from(first <= last),
        }
    }
}

/// Something the test makes happen during the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum TestEvent {
    /// At `tick`, the message `message` reaches `to` (from `from`, default `to` itself), as if
    /// the game sent it.
    Send {
        tick: u64,
        to: String,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
    },
    /// At `tick`, the player reacts to the interaction icon of smart location `location` (its
    /// player emitter), as the scene's `Interact` event does.
    Interact { tick: u64, location: String },
    /// At `tick`, the player's input `fact` (cell syntax, `.me`: the player) goes on the
    /// blackboard of the script the player takes part in.
    Input { tick: u64, fact: String },
    /// At `tick`, proxy object `proxy` reports `fact` (`.me`: the proxy) into its location's
    /// running script (what the player buys through the till).
    Push {
        tick: u64,
        proxy: String,
        fact: String,
    },
    /// At `tick`, the player walks away from the script it takes part in.
    Leave { tick: u64 },
}

impl TestEvent {
    /// The tick it happens at.
    pub fn tick(&self) -> u64 {
        match self {
            TestEvent::Send { tick, .. }
            | TestEvent::Interact { tick, .. }
            | TestEvent::Input { tick, .. }
            | TestEvent::Push { tick, .. }
            | TestEvent::Leave { tick } => *tick,
        }
    }
}

/// A mock or a setting applied when the scene starts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum SetupAsset {
    /// Every action named `action` (`*` wildcards), on `target` if given, ends with `outcome`
    /// — always, or with `probability`.
    Action {
        action: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<String>,
        outcome: Outcome,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        probability: Option<f64>,
    },
    /// The agent's variable starts with this value.
    Variable {
        agent: String,
        name: String,
        value: String,
    },
    /// The agent starts in this state of its root machine.
    StartIn { agent: String, state: String },
    /// No transition or message enters this state.
    Disable { machine: String, state: String },
    /// The scene's world event `name` may happen from `at` seconds (its conditions must still
    /// hold) instead of the scene's time; without `at` it never happens.
    World {
        name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<f64>,
    },
    /// The `n`-th random draw of kind `kind` in the run (counted from 0, over the whole scene)
    /// comes out as `value` instead of what the seed draws: a branch forced without searching
    /// seeds.
    Draw { kind: DrawKind, n: u64, value: u32 },
}

/// The kinds of random draw a test (and `ensemble reach`) can force.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum DrawKind {
    /// Which candidate line a sentence state says, or which of a `OneOff`'s lines: `value`
    /// is its index (from 0) in the state's list.
    Line,
    /// A chance an action is given (a mock's `probability`, the failure rate): `value` 1
    /// makes it come true (the mocked outcome happens, the action fails), 0 not.
    Chance,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Outcome {
    Succeeds,
    Fails,
}

/// What every run's trace must show.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Expectation {
    /// An event like `what` happens.
    Happens { what: EventPattern },
    /// No event like `what` happens.
    Never { what: EventPattern },
    /// An event like `first` happens before the first event like `then` (which must happen).
    Before {
        first: EventPattern,
        then: EventPattern,
    },
    /// An event like `what` happens within `ticks` ticks of the start, or of every event like
    /// `after`.
    Within {
        ticks: u64,
        what: EventPattern,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<EventPattern>,
    },
    /// Events like `what` happen exactly / at least / at most so many times.
    Count {
        what: EventPattern,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exactly: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at_least: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at_most: Option<u64>,
    },
}

/// A trace event to look for: its kind and any of its fields, each matched with `*`
/// wildcards against the field as `--trace json` writes it.
/// Written bare, `(event: "enter", ...)` (the printer writes `...Asset` shapes bare).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename = "EventPatternAsset")]
pub struct EventPattern {
    /// `enter`, `exit`, `say`, `add`, … (`*`: any).
    pub event: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub machine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fact: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sentence: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// A message's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// A world event's name (`add`/`del` of a planning agent's world).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<String>,
    /// An `output`'s emote, an `input`'s too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub emote: Option<String>,
    /// A `door` event's door.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub door: Option<String>,
}

/// The event kinds of the trace (docs/formats/trace.md).
pub const EVENT_KINDS: &[&str] = &[
    "enter",
    "exit",
    "message",
    "say",
    "act",
    "done",
    "fail",
    "add",
    "del",
    "join",
    "leave",
    "plan",
    "replan",
    "input",
    "output",
    "path",
    "door",
    "error",
    "reload",
    "reload-rejected",
];

impl EventPattern {
    /// The fields it constrains besides the kind, by their trace names, in a fixed order.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        let all = [
            ("agent", &self.agent),
            ("machine", &self.machine),
            ("state", &self.state),
            ("fact", &self.fact),
            ("text", &self.text),
            ("sentence", &self.sentence),
            ("action", &self.action),
            ("target", &self.target),
            ("script", &self.script),
            ("role", &self.role),
            ("name", &self.name),
            ("from", &self.from),
            ("to", &self.to),
            ("problem", &self.problem),
            ("world", &self.world),
            ("emote", &self.emote),
            ("door", &self.door),
        ];
        all.into_iter()
            .filter_map(|(k, v)| v.as_deref().map(|v| (k, v)))
            .collect()
    }
}

impl std::fmt::Display for EventPattern {
    /// `enter agent=buyer1 state=Goto2`: how reports name what was looked for.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.event)?;
        for (k, v) in self.fields() {
            write!(f, " {k}={v}")?;
        }
        Ok(())
    }
}
