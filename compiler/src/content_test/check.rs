//! Reading `*.test.ron` files and checking them against the project: every scene, agent,
//! machine, state and event kind a test names must exist (`unknown-reference` with
//! did-you-mean, at the line that names it), and every number must make sense
//! (`invalid-value`).

use super::asset::*;
use crate::diag::{Code, Diagnostic, Diagnostics, suggest_note};
use crate::front::ron::locate::Seg;
use crate::front::ron::{AssetKind, Locator, parse};
use crate::ir::Module;
use crate::source::SourceMap;

/// The most seeds one test runs with (a range such as `Range(0, 18446744073709551615)` is a
/// slip, not a plan).
pub const MAX_SEEDS: u64 = 100_000;

/// The most ticks a test (and a `Within`) lasts: an hour of scene time at 250 ticks a second,
/// 9 hours at 30. `ticks: 18446744073709551615` is a slip that would never end.
pub const MAX_TEST_TICKS: u64 = 1_000_000;

/// The largest draw number a `Draw` setup may force (draws are counted from 0 in a run).
pub const MAX_DRAW: u64 = 1_000_000;

/// A test that passed its checks, with where it is written.
#[derive(Clone, Debug)]
pub struct ContentTest {
    /// The file, relative to the project.
    pub file: String,
    /// The line its entry starts on.
    pub line: usize,
    pub test: TestAsset,
}

/// What the project offers a test to name.
pub(super) struct Names<'a> {
    pub(super) module: &'a Module,
    /// [`Names::actions`], gathered once: every pattern naming an action reads it.
    actions: std::cell::OnceCell<Option<Vec<&'a str>>>,
}

impl<'a> Names<'a> {
    fn scenes(&self) -> Vec<&'a str> {
        let machines = self.module.scenes.iter().map(|(_, s)| s.name.text.as_str());
        let chats = self.module.chats.iter().map(|(_, c)| c.name.text.as_str());
        machines.chain(chats).collect()
    }

    fn is_chat(&self, scene: &str) -> bool {
        self.module.chats.iter().any(|(_, c)| c.name.text == scene)
    }

    /// Agents that can appear in the scene's trace: its agents (a conversation's social agent
    /// and player) and smart locations' proxies; spawned agents are [`Names::spawned`].
    fn agents(&self, scene: &str) -> Vec<&'a str> {
        let mut out: Vec<&str> = Vec::new();
        if let Some((_, s)) = self
            .module
            .scenes
            .iter()
            .find(|(_, s)| s.name.text == scene)
        {
            out.extend(s.agents.iter().map(|a| a.name.text.as_str()));
        }
        if let Some((_, c)) = self.module.chats.iter().find(|(_, c)| c.name.text == scene) {
            out.push(c.agent.as_str());
            out.push(c.player.as_str());
        }
        for (_, l) in self.module.smart_locations.iter() {
            out.extend(l.proxies.iter().map(|p| p.name.text.as_str()));
        }
        out
    }

    /// Whether `agent` is a spawn emitter's agent: its name (one agent), or its name and a
    /// number (`east3`).
    pub(super) fn spawned(&self, agent: &str) -> bool {
        self.module.smart_locations.iter().any(|(_, l)| {
            l.spawns.iter().any(|s| {
                agent
                    .strip_prefix(s.name.text.as_str())
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()))
            })
        })
    }

    /// The root machine an agent of a scene runs.
    fn root_machine(&self, scene: &str, agent: &str) -> Option<&'a str> {
        let (_, s) = self
            .module
            .scenes
            .iter()
            .find(|(_, s)| s.name.text == scene)?;
        let a = s.agents.iter().find(|a| a.name.text == agent)?;
        a.machine
            .map(|m| self.module.machines[m].name.text.as_str())
    }

    fn machines(&self) -> Vec<&'a str> {
        self.module
            .machines
            .iter()
            .map(|(_, m)| m.name.text.as_str())
            .collect()
    }

    /// Every problem written, lowered or not (one that did not lower has its errors already).
    fn problems(&self) -> Vec<&'a str> {
        let problems = self.module.problems.iter();
        let lowered = problems.map(|(_, p)| p.name.text.as_str());
        let unlowered = self.module.unlowered_problems.iter().map(String::as_str);
        lowered.chain(unlowered).collect()
    }

    /// The world events `scene` scripts, as written (one with an error is still named).
    fn world_events(&self, scene: &str) -> Vec<&'a str> {
        let scenes = self.module.scenes.iter().map(|(_, s)| s);
        let scene = scenes.filter(|s| s.name.text == scene);
        let events = scene.flat_map(|s| &s.events);
        events.map(|e| e.asset.name.as_str()).collect()
    }

    fn scripts(&self) -> Vec<&'a str> {
        let scripts = self.module.scripts.iter();
        scripts.map(|(_, s)| s.name.as_str()).collect()
    }

    /// What an `add`/`del` event's `script` names: an interaction script, or the (conversation)
    /// machine whose state recorded the fact.
    fn fact_sources(&self) -> Vec<&'a str> {
        let mut out = self.scripts();
        out.extend(self.machines());
        out
    }

    /// Roles of `script`, or of every script.
    fn roles(&self, script: Option<&str>) -> Vec<&'a str> {
        let scripts = self.module.scripts.iter().map(|(_, s)| s);
        let mut out: Vec<&str> = scripts
            .filter(|s| script.is_none_or(|n| s.name == n))
            .flat_map(|s| s.roles.iter().map(|r| r.name.as_str()))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    fn sentences(&self) -> Vec<&'a str> {
        let sentences = self.module.sentences.iter();
        sentences.map(|(_, s)| s.name.text.as_str()).collect()
    }

    /// What an `act` event's action can be called (the name before any arguments): planning
    /// actions (the agent's own and others'), script rules' and proxies' actions, and a
    /// conversation's actions.
    fn actions(&self) -> Option<&[&'a str]> {
        self.actions
            .get_or_init(|| self.gather_actions())
            .as_deref()
    }

    fn gather_actions(&self) -> Option<Vec<&'a str>> {
        // A problem that did not lower hides its actions: say nothing rather than a second
        // error for its mistake.
        if !self.module.unlowered_problems.is_empty() {
            return None;
        }
        let m = self.module;
        let planned = m.problems.iter().flat_map(|(_, p)| {
            let ops = p.task.operators.iter().chain(&p.external);
            ops.map(|o| action_base(&o.name))
        });
        let scripted = m.scripts.iter().flat_map(|(_, s)| {
            let rules = s.rules.iter();
            rules.filter_map(|r| r.action.as_ref().map(|(a, _)| a.as_str()))
        });
        let proxies = m.smart_locations.iter().flat_map(|(_, l)| {
            let actions = l.proxies.iter().flat_map(|p| &p.actions);
            actions.map(|a| a.text.as_str())
        });
        let spoken = m.actions.iter().map(|(_, a)| a.name.text.as_str());
        let mut out: Vec<&str> = planned
            .chain(scripted)
            .chain(proxies)
            .chain(spoken)
            .collect();
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    fn doors(&self) -> Vec<&'a str> {
        let doors = self.module.nav.iter().flat_map(|n| &n.doors);
        doors.map(|d| d.name.text.as_str()).collect()
    }

    /// States of `machine`, or of every machine.
    fn states(&self, machine: Option<&str>) -> Vec<&'a str> {
        let mut out: Vec<&str> = self
            .module
            .states
            .iter()
            .filter(|(_, s)| machine.is_none_or(|m| self.module.machines[s.machine].name.text == m))
            .map(|(_, s)| s.name.text.as_str())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Reads and checks every `*.test.ron` of the project; returns the tests of files without
/// errors (a file with one is not run at all: its diagnostics say why).
pub fn lower(sources: &SourceMap, module: &Module, diags: &mut Diagnostics) -> Vec<ContentTest> {
    let names = Names {
        module,
        actions: Default::default(),
    };
    let mut tests = Vec::new();
    let mut seen: Vec<(String, crate::source::Span)> = Vec::new();
    for (id, file) in sources.iter() {
        if AssetKind::of(&file.name) != Some(AssetKind::Test) {
            continue;
        }
        let Some(asset) = parse::<TestsAsset>(sources, id, diags) else {
            continue;
        };
        let loc = Locator::new(sources, id);
        let before = diags.count(crate::diag::Severity::Error);
        for (i, test) in asset.tests.iter().enumerate() {
            let mut check = Check {
                names: &names,
                loc: &loc,
                diags,
                test: i,
                scene: &test.scene,
            };
            check.test(test);
            let span = loc.span(&[Seg::Field("tests"), Seg::Index(i), Seg::Field("name")]);
            match seen.iter().find(|(n, _)| *n == test.name) {
                Some((_, first)) => diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("two tests are named `{}`", test.name),
                    )
                    .at(span, "the second")
                    .related(*first, "the first"),
                ),
                None => seen.push((test.name.clone(), span)),
            }
        }
        if diags.count(crate::diag::Severity::Error) > before {
            continue;
        }
        for (i, test) in asset.tests.into_iter().enumerate() {
            let span = loc.span(&[Seg::Field("tests"), Seg::Index(i)]);
            tests.push(ContentTest {
                file: file.name.clone(),
                line: sources.line_col(span).0,
                test,
            });
        }
    }
    tests
}

pub(super) struct Check<'a, 'm, 'd> {
    pub(super) names: &'a Names<'m>,
    loc: &'a Locator,
    pub(super) diags: &'d mut Diagnostics,
    test: usize,
    pub(super) scene: &'a str,
}

/// An action's name without its arguments: `Buy` of `Buy(npc, sword)`, `stack` of PDDL's
/// `(stack a b)`.
fn action_base(action: &str) -> &str {
    let action = action.trim().trim_start_matches('(');
    let end = action.find(|c: char| c == '(' || c.is_whitespace());
    &action[..end.unwrap_or(action.len())]
}

fn exact(pattern: &str) -> bool {
    !pattern.contains('*')
}

impl Check<'_, '_, '_> {
    pub(super) fn at(&self, path: &[Seg<'_>]) -> crate::source::Span {
        let mut full = vec![Seg::Field("tests"), Seg::Index(self.test)];
        full.extend_from_slice(path);
        self.loc.span(&full)
    }

    pub(super) fn invalid(&mut self, path: &[Seg<'_>], message: String, label: &str) {
        let span = self.at(path);
        self.diags
            .push(Diagnostic::error(Code::InvalidValue, message).at(span, label));
    }

    /// `limit-exceeded` at `path`: `ticks` is past [`MAX_TEST_TICKS`].
    fn limit(&mut self, path: &[Seg<'_>], ticks: u64) {
        let span = self.at(path);
        self.diags.push(
            Diagnostic::error(
                Code::LimitExceeded,
                format!("{ticks} ticks: a test runs for at most {MAX_TEST_TICKS}"),
            )
            .at(span, "too many ticks"),
        );
    }

    /// `unknown-reference` at `path` unless `name` is one of `known` (did-you-mean from them).
    pub(super) fn known(
        &mut self,
        path: &[Seg<'_>],
        what: &str,
        name: &str,
        known: &[&str],
        context: &str,
    ) {
        if known.contains(&name) {
            return;
        }
        let span = self.at(path);
        let d = Diagnostic::error(
            Code::UnknownReference,
            format!("unknown {what} `{name}`{context}"),
        )
        .at(span, format!("no such {what}"));
        self.diags
            .push(suggest_note(d, name, known.iter().copied()));
    }

    fn test(&mut self, test: &TestAsset) {
        let scenes = self.names.scenes();
        if !scenes.contains(&self.scene) {
            self.known(&[Seg::Field("scene")], "scene", self.scene, &scenes, "");
            return; // nothing else can be checked against a scene that is not there
        }
        if test.name.trim().is_empty() {
            self.invalid(&[Seg::Field("name")], "a test needs a name".into(), "empty");
        }
        if test.ticks == 0 {
            self.invalid(
                &[Seg::Field("ticks")],
                "a test runs for at least one tick".into(),
                "0 ticks",
            );
        } else if test.ticks > MAX_TEST_TICKS {
            self.limit(&[Seg::Field("ticks")], test.ticks);
        }
        let seeds = test.seeds.count();
        if seeds == 0 {
            self.invalid(
                &[Seg::Field("seeds")],
                "a test runs with at least one seed".into(),
                "no seeds",
            );
        } else if seeds > MAX_SEEDS {
            self.invalid(
                &[Seg::Field("seeds")],
                format!("{seeds} seeds: a test runs with at most {MAX_SEEDS}"),
                "too many seeds",
            );
        }
        let chat = self.names.is_chat(self.scene);
        if !test.chat.is_empty() && !chat {
            self.invalid(
                &[Seg::Field("chat")],
                format!(
                    "`{}` is not a conversation: player lines are for conversation scenes",
                    self.scene
                ),
                "player lines",
            );
        }
        if chat && !test.setup.is_empty() {
            self.invalid(
                &[Seg::Field("setup")],
                format!(
                    "`{}` is a conversation: it has no machines or actions to set up",
                    self.scene
                ),
                "setup",
            );
        }
        for (i, e) in test.events.iter().enumerate() {
            let TestEvent::Send { to, from, .. } = e else {
                self.player_event(i, e);
                continue;
            };
            let path = |f| [Seg::Field("events"), Seg::Index(i), Seg::Field(f)];
            self.agent(&path("to"), to);
            if let Some(from) = from {
                self.agent(&path("from"), from);
            }
        }
        for (i, s) in test.setup.iter().enumerate() {
            self.setup(i, s);
        }
        if test.expect.is_empty() {
            self.invalid(
                &[Seg::Field("expect")],
                "a test expects something of the trace".into(),
                "nothing expected",
            );
        }
        for (i, e) in test.expect.iter().enumerate() {
            self.expectation(i, e);
        }
    }

    fn agent(&mut self, path: &[Seg<'_>], agent: &str) {
        if !exact(agent) || self.names.spawned(agent) {
            return;
        }
        let agents = self.names.agents(self.scene);
        let context = format!(" in scene `{}`", self.scene);
        self.known(path, "agent", agent, &agents, &context);
    }

    fn setup(&mut self, i: usize, setup: &SetupAsset) {
        let path = |f| [Seg::Field("setup"), Seg::Index(i), Seg::Field(f)];
        match setup {
            SetupAsset::Action {
                action,
                probability,
                ..
            } => {
                // A mock of an action nobody performs would never apply.
                let base = action_base(action);
                if let Some(actions) = self.names.actions().filter(|_| exact(base)) {
                    self.known(&path("action"), "action", base, actions, "");
                }
                if let Some(p) = probability
                    && !(0.0..=1.0).contains(p)
                {
                    self.invalid(
                        &path("probability"),
                        format!("`{p}` is not a probability from 0 to 1"),
                        "probability",
                    );
                }
            }
            SetupAsset::Variable { agent, .. } => self.agent(&path("agent"), agent),
            SetupAsset::StartIn { agent, state } => {
                self.agent(&path("agent"), agent);
                let Some(machine) = self.names.root_machine(self.scene, agent) else {
                    if self.names.agents(self.scene).contains(&agent.as_str()) {
                        self.invalid(
                            &path("agent"),
                            format!("`{agent}` runs no machine to start in a state of"),
                            "no machine",
                        );
                    }
                    return;
                };
                let states = self.names.states(Some(machine));
                let context = format!(" in `{machine}`, the machine `{agent}` runs");
                self.known(&path("state"), "state", state, &states, &context);
            }
            SetupAsset::World { name, at } => {
                let events = self.names.world_events(self.scene);
                let context = format!(" in scene `{}`", self.scene);
                self.known(&path("name"), "world event", name, &events, &context);
                if let Some(at) = at
                    && !(at.is_finite() && *at >= 0.0)
                {
                    self.invalid(
                        &path("at"),
                        format!("`{at}` is not a time in seconds from 0"),
                        "seconds",
                    );
                }
            }
            SetupAsset::Draw { kind, n, value } => {
                if *n > MAX_DRAW {
                    self.invalid(
                        &path("n"),
                        format!("draw {n}: a test forces draws 0 to {MAX_DRAW} of a kind"),
                        "draw out of range",
                    );
                }
                if *kind == DrawKind::Chance && *value > 1 {
                    self.invalid(
                        &path("value"),
                        format!("`{value}`: a chance comes true (1) or not (0)"),
                        "0 or 1",
                    );
                }
            }
            SetupAsset::Disable { machine, state } => {
                let machines = self.names.machines();
                if !machines.contains(&machine.as_str()) {
                    self.known(&path("machine"), "machine", machine, &machines, "");
                    return;
                }
                let states = self.names.states(Some(machine));
                let context = format!(" in machine `{machine}`");
                self.known(&path("state"), "state", state, &states, &context);
            }
        }
    }

    fn expectation(&mut self, i: usize, e: &Expectation) {
        let base = [Seg::Field("expect"), Seg::Index(i)];
        let pattern = |this: &mut Self, field: &'static str, p: &EventPattern| {
            let mut path = base.to_vec();
            path.push(Seg::Field(field));
            this.pattern(&path, p);
        };
        match e {
            Expectation::Happens { what } | Expectation::Never { what } => {
                pattern(self, "what", what)
            }
            Expectation::Before { first, then } => {
                pattern(self, "first", first);
                pattern(self, "then", then);
            }
            Expectation::Within {
                ticks, what, after, ..
            } => {
                pattern(self, "what", what);
                if let Some(after) = after {
                    pattern(self, "after", after);
                }
                let mut path = base.to_vec();
                path.push(Seg::Field("ticks"));
                if *ticks == 0 {
                    self.invalid(&path, "`Within` needs at least one tick".into(), "0 ticks");
                } else if *ticks > MAX_TEST_TICKS {
                    self.limit(&path, *ticks);
                }
            }
            Expectation::Count {
                what,
                exactly,
                at_least,
                at_most,
            } => {
                pattern(self, "what", what);
                let contradicts = match (exactly, at_least, at_most) {
                    (None, None, None) => Some("`Count` needs `exactly`, `at_least` or `at_most`"),
                    (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                        Some("`exactly` cannot be combined with `at_least` or `at_most`")
                    }
                    (None, Some(lo), Some(hi)) if lo > hi => {
                        Some("`at_least` is more than `at_most`: no count can pass")
                    }
                    _ => None,
                };
                if let Some(message) = contradicts {
                    self.invalid(&base, message.into(), "this count");
                }
            }
        }
    }

    fn pattern(&mut self, path: &[Seg<'_>], p: &EventPattern) {
        let with = |f: &'static str| {
            let mut v = path.to_vec();
            v.push(Seg::Field(f));
            v
        };
        if exact(&p.event) {
            self.known(&with("event"), "event kind", &p.event, EVENT_KINDS, "");
        }
        if let Some(agent) = &p.agent {
            self.agent(&with("agent"), agent);
        }
        for (field, agent) in [("from", &p.from), ("to", &p.to)] {
            if let Some(agent) = agent {
                self.agent(&with(field), agent);
            }
        }
        if let Some(problem) = p.problem.as_deref().filter(|p| exact(p)) {
            let problems = self.names.problems();
            self.known(&with("problem"), "planning problem", problem, &problems, "");
        }
        if let Some(world) = p.world.as_deref().filter(|w| exact(w)) {
            let events = self.names.world_events(self.scene);
            let context = format!(" in scene `{}`", self.scene);
            self.known(&with("world"), "world event", world, &events, &context);
        }
        if let Some(sentence) = p.sentence.as_deref().filter(|s| exact(s)) {
            let sentences = self.names.sentences();
            self.known(
                &with("sentence"),
                "sentence state",
                sentence,
                &sentences,
                "",
            );
        }
        if let Some(action) = p.action.as_deref().map(action_base).filter(|a| exact(a))
            && let Some(actions) = self.names.actions()
        {
            // A conversation's turn of several actions is traced as their names joined by `+`
            // ("greet+offer-room"): each is one of the program's.
            for one in action.split('+') {
                self.known(&with("action"), "action", one, actions, "");
            }
        }
        if let Some(door) = p.door.as_deref().filter(|d| exact(d)) {
            let doors = self.names.doors();
            self.known(&with("door"), "door", door, &doors, "");
        }
        let script = p.script.as_deref().filter(|s| exact(s));
        if let Some(s) = script {
            let scripts = self.names.fact_sources();
            self.known(&with("script"), "script or machine", s, &scripts, "");
        }
        if let Some(role) = p.role.as_deref().filter(|r| exact(r)) {
            let script = script.filter(|s| self.names.scripts().contains(s));
            let roles = self.names.roles(script);
            let context = script.map_or(String::new(), |s| format!(" in script `{s}`"));
            self.known(&with("role"), "role", role, &roles, &context);
        }
        let machine = p.machine.as_deref().filter(|m| exact(m));
        if let Some(m) = machine {
            let machines = self.names.machines();
            if !machines.contains(&m) {
                self.known(&with("machine"), "machine", m, &machines, "");
                return;
            }
        }
        if let Some(state) = p.state.as_deref().filter(|s| exact(s)) {
            let states = self.names.states(machine);
            let context = match machine {
                Some(m) => format!(" in machine `{m}`"),
                None => " in any machine".to_string(),
            };
            self.known(&with("state"), "state", state, &states, &context);
        }
    }
}
