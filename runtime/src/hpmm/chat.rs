//! A conversation scene: one social agent and a player, one iteration per tick, with trace
//! events. The agent's output is its next iteration's input (Zubek §5.1); the player speaks
//! when the agent has nothing of its own to hear, so each production gets an iteration of its
//! own (one production per time slice, the assumption of the report's Lemma 2).

use super::agent::{CarryReport, ChatError, Input, Output, SavedAgent, SocialAgent};
use super::model::{ActionId, Speaker};
use crate::hsm::UnknownLocale;
use crate::program::Program;
use crate::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};
use crate::trace::{EventKind, TraceEvent};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::sync::Arc;

/// One line of a transcript as player input: `hi there` says it; `/nods` or `/waves hi there`
/// is an emote (with optional words); an empty line is an iteration in which the player says
/// nothing. Returns `None` for the silent iteration.
pub fn parse_player_line(line: &str) -> Option<Input> {
    let line = line.trim();
    if line.is_empty() {
        return None;
    }
    let mut input = Input::player(line);
    if let Some(rest) = line.strip_prefix('/') {
        let (emote, text) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
        if !emote.is_empty() {
            input.emote = emote.to_lowercase();
            input.text = text.trim().to_string();
        }
    }
    Some(input)
}

/// A conversation scene: one [`SocialAgent`] and a player, stepped one iteration per tick,
/// recording what is said as trace events (`ensemble run --scene CHAT` drives one). Time is
/// `tick_count / tick_rate` seconds of scene time.
///
/// # Example
///
/// An innkeeper who answers a wave once: the player waves, the agent greets, then hears
/// itself having greeted and falls silent.
///
/// ```
/// use ensemble_runtime::hpmm::chat::{ChatScene, parse_player_line};
/// use ensemble_runtime::hpmm::model::*;
/// use ensemble_runtime::program::{NameId, ProgramParts};
/// use ensemble_runtime::trace::EventKind;
/// use std::sync::Arc;
///
/// let names = ["inn", "innkeeper", "player", "welcome", "idle", "greeted", "done",
///              "waves", "greet", "says", "output", "heard-self"];
/// let n = |s: &str| NameId(names.iter().position(|x| *x == s).unwrap() as u32);
/// let model = Model {
///     evidence: vec![
///         Evidence { name: Some(n("waves")), estimator: Estimator::Emote(n("waves")) },
///         Evidence { name: Some(n("heard-self")), estimator: Estimator::Did(Some(ActionId(0))) },
///     ],
///     late_evidence: 2,
///     // idle -> greeted (on a wave) -> done (once it has heard itself greet).
///     spaces: vec![Space {
///         name: n("welcome"),
///         first_state: 0,
///         state_count: 3,
///         initial: SpaceStateId(0),
///         disable: None,
///         p: vec![0.5, 0.5, 0.0, /**/ 0.0, 0.5, 0.5, /**/ 0.0, 0.0, 1.0],
///         transition_expects: vec![],
///     }],
///     states: vec![
///         SpaceState { name: n("idle"), space: SpaceId(0), expects: vec![], action: None },
///         SpaceState {
///             name: n("greeted"),
///             space: SpaceId(0),
///             expects: vec![(EvidenceId(0), 1.0)],
///             action: Some(ActionId(0)),
///         },
///         SpaceState {
///             name: n("done"),
///             space: SpaceId(0),
///             expects: vec![(EvidenceId(1), 1.0)],
///             action: None,
///         },
///     ],
///     actions: vec![Action {
///         name: n("greet"),
///         emote: n("says"),
///         say: vec![vec![Chunk::Text("Welcome, traveller!".into())]],
///         bind: vec![],
///         copy_belief: vec![],
///         lines: vec![],
///     }],
///     accumulators: vec![Accumulator {
///         name: n("output"),
///         rule: Rule::Max,
///         inputs: vec![Source::Space(SpaceId(0))],
///     }],
///     chats: vec![Chat {
///         name: n("inn"),
///         agent: n("innkeeper"),
///         player: n("player"),
///         tick_rate: 2,
///         output: AccumulatorId(0),
///     }],
///     ..Model::default()
/// };
/// let names = names.iter().map(|s| s.to_string()).collect();
/// let program = ProgramParts { names, hpmm: model, ..ProgramParts::default() }.verify()?;
/// let mut scene = ChatScene::new(Arc::new(program), "inn", 7).expect("the chat exists");
/// scene.set_tracing(true); // a game that shows the lines records them; off by default
///
/// assert!(scene.awaits_player());
/// scene.hear(parse_player_line("/waves"));
/// scene.step();
/// let said: Vec<String> = scene
///     .take_events()
///     .into_iter()
///     .filter_map(|e| match e.kind {
///         EventKind::Output { text, action, .. } => Some(format!("{action}: {text}")),
///         _ => None,
///     })
///     .collect();
/// assert_eq!(said, ["greet: Welcome, traveller!"]);
/// assert_eq!(scene.agent().argmax("welcome"), Some("greeted"));
///
/// // The next iteration hears the agent's own greeting, which moves it on, silently.
/// assert!(!scene.awaits_player());
/// scene.step();
/// assert_eq!(scene.agent().argmax("welcome"), Some("done"));
/// assert!(scene.take_events().is_empty());
/// assert_eq!(scene.now(), 1.0);
///
/// // Asking for a conversation the program does not have is an error, not a panic.
/// let program = scene.agent().program().clone();
/// assert!(ChatScene::new(program, "tavern", 7).is_err());
/// # Ok::<(), ensemble_runtime::LoadError>(())
/// ```
pub struct ChatScene {
    agent: SocialAgent,
    agent_label: Arc<str>,
    player_label: Arc<str>,
    tick: u64,
    dt: f64,
    /// The agent's last output, heard on the next iteration.
    feedback: Option<Input>,
    /// Player inputs not yet heard; `None` entries are silent iterations.
    player: VecDeque<Option<Input>>,
    tracing: bool,
    events: Vec<TraceEvent>,
    /// What the agent produced on the last iteration, if anything.
    said: Option<Output>,
}

impl ChatScene {
    /// The conversation scene `name` of `program`; `seed` drives the agent's template choices.
    /// Fails with [`ChatError::UnknownChat`] when the program has no such conversation.
    pub fn new(program: Arc<Program>, name: &str, seed: u64) -> Result<Self, ChatError> {
        let agent = SocialAgent::new(program.clone(), name, seed)?;
        let chat = &program.hpmm.chats[agent.chat().index()];
        Ok(ChatScene {
            agent_label: program.shared_name(chat.agent),
            player_label: program.shared_name(chat.player),
            dt: 1.0 / chat.tick_rate.max(1) as f64,
            agent,
            tick: 0,
            feedback: None,
            player: VecDeque::new(),
            tracing: false,
            events: Vec::new(),
            said: None,
        })
    }

    /// The agent, to read its beliefs and bindings.
    pub fn agent(&self) -> &SocialAgent {
        &self.agent
    }

    /// Turns trace recording on or off. Off by default, as for a
    /// [`Scene`](crate::hsm::Scene::set_tracing): a game that only steps the conversation never
    /// grows memory. On, events wait for [`ChatScene::take_events`]; turning it off drops them.
    pub fn set_tracing(&mut self, on: bool) {
        self.tracing = on;
        if !on {
            self.events = Vec::new();
        }
    }

    /// Speaks from now on in `locale` ([`SocialAgent::set_locale`]): only the words change.
    pub fn set_locale(&mut self, locale: Option<&str>) -> Result<(), UnknownLocale> {
        self.agent.set_locale(locale)
    }

    /// What the agent produced on the last iteration (`None`: it stayed silent): the words in
    /// its locale, and the ids of the lines said ([`Output::line_ids`]), which is what a game
    /// shows, and looks recorded voice-over up by.
    pub fn last_output(&self) -> Option<&Output> {
        self.said.as_ref()
    }

    /// Iterations run so far.
    pub fn tick_count(&self) -> u64 {
        self.tick
    }

    /// Scene time in seconds: iterations times the conversation's tick interval.
    pub fn now(&self) -> f64 {
        self.tick as f64 * self.dt
    }

    /// True when the next iteration would hear nothing: the agent did not just speak and no
    /// player input is queued. Drivers give the player a turn then.
    pub fn awaits_player(&self) -> bool {
        self.feedback.is_none() && self.player.is_empty()
    }

    /// Queues a player input (`None`: a silent iteration).
    pub fn hear(&mut self, input: Option<Input>) {
        self.player.push_back(input);
    }

    /// One iteration: the agent hears its own last output if it has one, else the next queued
    /// player input, else nothing.
    pub fn step(&mut self) {
        self.tick += 1;
        let input = match self.feedback.take() {
            Some(own) => Some(own),
            None => self.player.pop_front().flatten(),
        };
        self.said = self.agent.iterate(input.as_ref());
        if let Some(i) = &input
            && i.speaker == Speaker::Player
            && self.tracing
        {
            let u = self.agent.understanding();
            let understood = crate::trace::Understood {
                words: (u.words.into_iter())
                    .map(|w| crate::trace::UnderstoodWord {
                        word: w.word,
                        read_as: w.read_as,
                        concepts: w.concepts,
                        categories: w.categories,
                        gives_way: w.gives_way,
                    })
                    .collect(),
                evidence: (u.evidence.into_iter())
                    .map(|(name, value)| crate::trace::EvidenceValue {
                        name,
                        value: (value * 1000.0).round() / 1000.0,
                    })
                    .collect(),
                chose: u.chose,
            };
            self.record(EventKind::Input {
                speaker: self.player_label.clone(),
                emote: Arc::from(i.emote.as_str()),
                text: i.text.clone(),
                understood: Some(Box::new(understood)),
            });
        }
        if let Some(out) = &self.said {
            let action = out
                .actions
                .iter()
                .map(|&a| self.agent.action_name(a))
                .collect::<Vec<_>>()
                .join("+");
            let event = EventKind::Output {
                emote: out.emote.clone(),
                text: out.text.clone(),
                action,
                belief: out.belief,
            };
            self.feedback = Some(out.as_input());
            self.record(event);
        }
    }

    fn record(&mut self, kind: EventKind) {
        if self.tracing {
            self.events.push(TraceEvent {
                tick: self.tick,
                time: self.now(),
                agent: Some(self.agent_label.clone()),
                kind,
            });
        }
    }

    /// Takes the trace events recorded since the last call (none while tracing is off).
    pub fn take_events(&mut self) -> Vec<TraceEvent> {
        std::mem::take(&mut self.events)
    }

    /// How many events are recorded and not yet taken.
    pub fn events_waiting(&self) -> usize {
        self.events.len()
    }

    /// The memory the recorded events hold, in events: none while the scene does not record.
    #[cfg(test)]
    pub(crate) fn trace_capacity(&self) -> usize {
        self.events.capacity()
    }

    /// Records that a new program was refused (it failed to compile or load); the scene keeps
    /// running the one it has.
    pub fn reject_reload(&mut self, reason: impl Into<String>) {
        self.record(EventKind::ReloadRejected {
            reason: reason.into(),
        });
    }

    /// The time between iterations, seconds.
    pub fn dt(&self) -> f64 {
        self.dt
    }

    /// Hot reload: beliefs and bindings carry across by name ([`SocialAgent::reload`]); the
    /// pending feedback keeps only the actions that still exist. Recorded as `reload` or
    /// `reload-rejected`.
    pub fn reload(
        &mut self,
        program: Arc<Program>,
        reason: &str,
    ) -> Result<CarryReport, ChatError> {
        let old_names: Vec<String> = self
            .feedback
            .iter()
            .flat_map(|f| f.did.iter().map(|&a| self.agent.action_name(a).to_string()))
            .collect();
        match self.agent.reload(program.clone()) {
            Ok(report) => {
                if let Some(f) = &mut self.feedback {
                    f.did = old_names
                        .iter()
                        .filter_map(|n| {
                            let id = program.name_id(n)?;
                            program
                                .hpmm
                                .actions
                                .iter()
                                .position(|a| a.name == id)
                                .map(|i| super::model::ActionId(i as u32))
                        })
                        .collect();
                }
                let chat = &program.hpmm.chats[self.agent.chat().index()];
                self.agent_label = program.shared_name(chat.agent);
                self.player_label = program.shared_name(chat.player);
                self.dt = 1.0 / chat.tick_rate.max(1) as f64;
                self.record(EventKind::Reload {
                    reason: reason.to_string(),
                    kept: report.kept,
                    fallbacks: report.fallbacks.clone(),
                });
                Ok(report)
            }
            Err(e) => {
                self.record(EventKind::ReloadRejected {
                    reason: e.to_string(),
                });
                Err(e)
            }
        }
    }
}

/// The section a conversation scene saves into.
pub const CHAT_SECTION: &str = "hpmm.chat";

/// The section of the words variables were bound by (`Unheard` trackers): (variable, word).
/// A section of its own, so that snapshots taken before it restore unchanged.
pub const CHAT_HEARD_SECTION: &str = "hpmm.chat.heard";
/// The section of what is on the conversation's tallies: (variable, [(concept, count)]),
/// written only when something is.
pub const CHAT_TALLIES_SECTION: &str = "hpmm.chat.tallies";
/// The section of the numbers variables were bound with ("two ales"): (variable, number),
/// written only when one was heard.
pub const CHAT_QUANTITIES_SECTION: &str = "hpmm.chat.quantities";

/// The section of the player lines the agent has heard and of the actions said since the last
/// (`(u64, [(action, times again)])`), which with an action key the wording of a reply;
/// written only once a line was heard.
pub const CHAT_LINES_SECTION: &str = "hpmm.chat.lines";

/// A conversation scene as a snapshot holds it ([`ChatScene::save`]); names, not ids.
#[derive(Serialize, Deserialize)]
struct SavedChat {
    chat: String,
    tick: u64,
    agent: SavedAgent,
    feedback: Option<SavedInput>,
    player: Vec<Option<SavedInput>>,
}

#[derive(Serialize, Deserialize)]
struct SavedInput {
    speaker: Speaker,
    emote: String,
    text: String,
    /// The actions performed, by name.
    did: Vec<String>,
}

impl ChatScene {
    fn save_input(&self, input: &Input) -> SavedInput {
        SavedInput {
            speaker: input.speaker,
            emote: input.emote.clone(),
            text: input.text.clone(),
            did: input
                .did
                .iter()
                .map(|&a| self.agent.action_name(a).to_string())
                .collect(),
        }
    }

    /// Saves the scene (between iterations) as section [`CHAT_SECTION`]: the agent's belief in
    /// every state of every space, its variable bindings and random stream, the iteration
    /// count (the clock follows from it), the agent's output still to be heard and the queued
    /// player inputs. Recorded events are not saved: they belong to whoever took them.
    pub fn save(&self, snapshot: &mut SnapshotWriter) {
        let program = self.agent.program();
        let chat = &program.hpmm.chats[self.agent.chat().index()];
        snapshot.put(
            CHAT_SECTION,
            &SavedChat {
                chat: program.name(chat.name).to_string(),
                tick: self.tick,
                agent: self.agent.to_saved(),
                feedback: self.feedback.as_ref().map(|i| self.save_input(i)),
                player: self
                    .player
                    .iter()
                    .map(|i| i.as_ref().map(|i| self.save_input(i)))
                    .collect(),
            },
        );
        let lines = self.agent.lines_heard();
        if lines.0 > 0 || !lines.1.is_empty() {
            snapshot.put(CHAT_LINES_SECTION, &lines);
        }
        // Only when a word is held: a snapshot of a model without `Unheard` is as before.
        let heard = self.agent.heard_by_name();
        if !heard.is_empty() {
            snapshot.put(CHAT_HEARD_SECTION, &heard);
        }
        // Likewise only when a number was heard with a binding ("two ales").
        let quantities = self.agent.quantities_by_name();
        if !quantities.is_empty() {
            snapshot.put(CHAT_QUANTITIES_SECTION, &quantities);
        }
        // Likewise only when something is on a tally.
        let tallies = self.agent.tallies_by_name();
        if !tallies.is_empty() {
            snapshot.put(CHAT_TALLIES_SECTION, &tallies);
        }
    }

    /// The conversation saved by [`ChatScene::save`], restored onto `program` (the one it was
    /// taken from, or a rebuild: beliefs and bindings map by space, state, variable and concept
    /// name, as in [`ChatScene::reload`], and the report says what could not be carried). Its
    /// next iteration is the one after the save; tracing is off, as for [`ChatScene::new`].
    /// A missing, undecodable or inconsistent section is an error, never a panic.
    pub fn restore(
        program: Arc<Program>,
        snapshot: &SnapshotReader,
    ) -> Result<(Self, CarryReport), SnapshotError> {
        let saved: SavedChat = snapshot.get(CHAT_SECTION)?;
        let bad = |message: String| SnapshotError::BadSection {
            section: CHAT_SECTION.to_string(),
            message,
        };
        if !program
            .hpmm
            .chats
            .iter()
            .any(|c| program.name(c.name) == saved.chat)
        {
            return Err(SnapshotError::Unsupported(format!(
                "the program has no conversation scene `{}` any more",
                saved.chat
            )));
        }
        // Beyond 2^53 iterations the clock (iterations times dt, in f64) is no longer exact.
        if saved.tick > 1 << 53 {
            return Err(bad(format!(
                "iteration count {} is beyond what a conversation can reach",
                saved.tick
            )));
        }
        let mut scene = ChatScene::new(program.clone(), &saved.chat, 0)
            .map_err(|e| SnapshotError::Unsupported(e.to_string()))?;
        let (agent, mut report) =
            SocialAgent::from_saved(program.clone(), &saved.chat, saved.agent).map_err(bad)?;
        scene.agent = agent;
        if snapshot.has(CHAT_LINES_SECTION) {
            let (lines, said): (u64, Vec<(String, u32)>) = snapshot.get(CHAT_LINES_SECTION)?;
            // Each line heard and each reply takes an iteration of its own.
            let most = said.iter().map(|(_, n)| u64::from(*n)).max().unwrap_or(0);
            if lines > saved.tick || most > saved.tick {
                return Err(SnapshotError::BadSection {
                    section: CHAT_LINES_SECTION.to_string(),
                    message: format!(
                        "{lines} player lines heard (or an action said {most} times since) in {} iterations",
                        saved.tick
                    ),
                });
            }
            scene.agent.restore_lines_heard((lines, said));
        }
        if snapshot.has(CHAT_HEARD_SECTION) {
            let heard: Vec<(String, String)> = snapshot.get(CHAT_HEARD_SECTION)?;
            scene.agent.restore_heard(&heard);
        }
        if snapshot.has(CHAT_QUANTITIES_SECTION) {
            let quantities: Vec<(String, u32)> = snapshot.get(CHAT_QUANTITIES_SECTION)?;
            scene.agent.restore_quantities(&quantities);
        }
        // Always, so that a variable that became a tally is bound only with something on it.
        let tallies: Vec<super::agent::SavedTally> = if snapshot.has(CHAT_TALLIES_SECTION) {
            snapshot.get(CHAT_TALLIES_SECTION)?
        } else {
            Vec::new()
        };
        scene.agent.restore_tallies(&tallies, &mut report);
        scene.tick = saved.tick;
        let mut input = |saved: SavedInput| {
            let did = saved
                .did
                .iter()
                .filter_map(|name| {
                    let found = program
                        .name_id(name)
                        .and_then(|id| program.hpmm.actions.iter().position(|a| a.name == id));
                    if found.is_none() {
                        report.fallbacks.push(format!(
                            "action `{name}` the agent had just performed is gone: not heard"
                        ));
                    }
                    found.map(|i| ActionId(i as u32))
                })
                .collect();
            Input {
                speaker: saved.speaker,
                emote: saved.emote,
                text: saved.text,
                did,
            }
        };
        scene.feedback = saved.feedback.map(&mut input);
        scene.player = saved
            .player
            .into_iter()
            .map(|i| i.map(&mut input))
            .collect();
        Ok((scene, report))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_lines() {
        assert_eq!(parse_player_line("   "), None);
        let i = parse_player_line(" hi there ").unwrap();
        assert_eq!((i.emote.as_str(), i.text.as_str()), ("says", "hi there"));
        let i = parse_player_line("/Nods").unwrap();
        assert_eq!((i.emote.as_str(), i.text.as_str()), ("nods", ""));
        let i = parse_player_line("/waves hi there").unwrap();
        assert_eq!((i.emote.as_str(), i.text.as_str()), ("waves", "hi there"));
        assert_eq!(parse_player_line("/").unwrap().text, "/");
    }
}
