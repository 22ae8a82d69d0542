//! The choice points a search may take in a scene, as a content test can write them: messages
//! the scene's machines handle (sent to an agent at a tick), actions that can be mocked to
//! fail, player lines for a conversation, and what a player does at smart locations
//! ([`super::player`]). Draws are choices too, found as the search goes (`search.rs`).

use crate::content_test::asset::{Outcome, SetupAsset, TestAsset};
use crate::ir::{Handle, Machine, Modifier, Module};
use ensemble_runtime::hsm::{END_STATE_MACHINE, STATE_MACHINE_FAILED};
use std::collections::BTreeSet;
use std::path::Path;

/// The most player lines a conversation search draws from (the first, in the order found).
pub const MAX_LINES: usize = 400;
/// Below this many transcript and test lines, a conversation's lines are completed from the
/// spaces' evidence patterns.
pub const FEW_LINES: usize = 40;
/// The most actions a search mocks to fail, one a play.
pub const MAX_FAILURES: usize = 64;

/// What a search can choose, besides the seed.
#[derive(Clone, Debug, Default)]
pub struct Choices {
    /// `(agent, message)`: a message the agent's machines handle that their code never raises
    /// (what a game, a player or another agent sends).
    pub messages: Vec<(String, String)>,
    /// Setups a play may start with, one a play: an action mocked to fail
    /// (`Action(action: A, outcome: Fails)`), a world event the scene scripts taken out or
    /// moved to the start (`World(name: N)`, `World(name: N, at: 0.0)`), an agent's variable
    /// set to a value another agent of the scene starts with (`Variable(agent, name, value)`).
    pub setups: Vec<SetupAsset>,
    /// Player lines for a conversation: the project's transcripts, its tests' lines, then
    /// (when those are fewer than [`FEW_LINES`]) a line for each surface pattern of the spaces'
    /// evidence ([`super::lexicon`]).
    pub lines: Vec<String>,
    /// What the player does at smart locations and what their proxies report (at tick 0: a
    /// search sets the tick), [`super::player::choices`].
    pub player: Vec<crate::content_test::asset::TestEvent>,
}

impl Choices {
    /// The choices of scene `scene` of the project at `root` (its compiled `module` and its
    /// content `tests`).
    pub fn of(module: &Module, root: &Path, scene: &str, tests: &[TestAsset]) -> Choices {
        let mut out = Choices::default();
        if module.chats.iter().any(|(_, c)| c.name.text == scene) {
            out.lines = player_lines(root, scene, tests);
            // Lines made from the evidence read like no player: only where the project has
            // too few of its own to search with.
            if out.lines.len() >= FEW_LINES {
                return out;
            }
            for line in super::lexicon::every_pattern(module) {
                if out.lines.len() >= MAX_LINES {
                    break;
                }
                if !out.lines.contains(&line) {
                    out.lines.push(line);
                }
            }
            return out;
        }
        let Some((_, s)) = module.scenes.iter().find(|(_, s)| s.name.text == scene) else {
            return out;
        };
        out.player = super::player::choices(module, scene);
        for agent in &s.agents {
            let Some(root_machine) = agent.machine else {
                continue;
            };
            let mut seen = BTreeSet::new();
            for m in hosted(module, root_machine) {
                for &st in &module.machines[m].states {
                    let state = &module.states[st];
                    // A library state that declares nothing it raises (`Listen`) waits for
                    // messages: each of its events is one.
                    let raises = state.code.and_then(|c| module.library[c].raises.as_ref());
                    for t in &state.transitions {
                        let e = t.event.text.as_str();
                        if raises.is_some_and(|r| r.iter().any(|r| r == e))
                            || e == END_STATE_MACHINE
                            || e == STATE_MACHINE_FAILED
                        {
                            continue;
                        }
                        if seen.insert(e.to_string()) {
                            out.messages.push((agent.name.text.clone(), e.to_string()));
                        }
                    }
                }
            }
        }
        let mut failures = BTreeSet::new();
        for (_, p) in module.problems.iter() {
            for o in &p.task.operators {
                failures.insert(o.name.clone());
            }
        }
        for (_, script) in module.scripts.iter() {
            for r in &script.rules {
                if let Some((a, _)) = &r.action {
                    failures.insert(a.clone());
                }
            }
        }
        out.setups = failures
            .into_iter()
            .take(MAX_FAILURES)
            .map(|action| SetupAsset::Action {
                action,
                target: None,
                outcome: Outcome::Fails,
                probability: None,
            })
            .collect();
        // Each world event the scene scripts: never, or as soon as its conditions hold.
        for e in &s.events {
            for at in [None, Some(0.0)] {
                out.setups.push(SetupAsset::World {
                    name: e.asset.name.clone(),
                    at,
                });
            }
        }
        // Each agent's variables, set to the values the scene's other agents start with.
        for agent in &s.agents {
            for (name, value) in &agent.variables {
                let others = s.agents.iter().flat_map(|o| &o.variables);
                let values: BTreeSet<&String> = others
                    .filter(|(n, v)| n.text == name.text && v != value)
                    .map(|(_, v)| v)
                    .collect();
                for v in values {
                    out.setups.push(SetupAsset::Variable {
                        agent: agent.name.text.clone(),
                        name: name.text.clone(),
                        value: v.clone(),
                    });
                }
            }
        }
        out
    }
}

impl Choices {
    /// Puts first what `target` is most likely reached by: for a reply action or an HMM state,
    /// the lines aimed at the states proposing it or at the state (tried before any other, at
    /// equal distance).
    pub fn aim(&mut self, module: &Module, target: &super::Target) {
        let aimed = match (&target.hmm_action, &target.hmm_state) {
            (Some(action), _) => super::lexicon::aimed_at(module, action),
            (None, Some((space, state))) => super::lexicon::aimed_at_state(module, space, state),
            (None, None) => return,
        };
        self.lines.retain(|l| !aimed.contains(l));
        let rest = std::mem::take(&mut self.lines);
        self.lines = aimed;
        self.lines.extend(rest);
        self.lines.truncate(MAX_LINES);
    }
}

/// `machine` and every machine its states host, directly or not.
fn hosted(module: &Module, machine: Handle<Machine>) -> Vec<Handle<Machine>> {
    let mut out = vec![machine];
    let mut i = 0;
    while i < out.len() {
        for &s in &module.machines[out[i]].states {
            if let Modifier::Machine(child) = module.states[s].modifier
                && !out.contains(&child)
            {
                out.push(child);
            }
        }
        i += 1;
    }
    out
}

/// Player lines for conversation `scene`: every line of the project's transcripts
/// (`*.txt`: one line a line, `#` comments, `/emote`s kept), then the lines its content
/// tests say; each once, in the order found, at most [`MAX_LINES`].
fn player_lines(root: &Path, scene: &str, tests: &[TestAsset]) -> Vec<String> {
    let mut files = Vec::new();
    collect_txt(root, &mut files, 0);
    files.sort();
    let mut out: Vec<String> = Vec::new();
    let mut push = |line: &str| {
        let line = line.trim();
        if !line.is_empty() && !out.iter().any(|l| l == line) && out.len() < MAX_LINES {
            out.push(line.to_string());
        }
    };
    for f in files {
        let Ok(text) = std::fs::read_to_string(&f) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim_start().starts_with('#')) {
            push(line);
        }
    }
    for t in tests {
        if t.scene == scene {
            for line in &t.chat {
                push(line);
            }
        }
    }
    out
}

fn collect_txt(dir: &Path, out: &mut Vec<std::path::PathBuf>, depth: usize) {
    if depth > 4 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_txt(&p, out, depth + 1);
        } else if p.extension().is_some_and(|x| x == "txt") {
            out.push(p);
        }
    }
}
