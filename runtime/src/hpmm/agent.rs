//! A social agent: the whole model run on one stream of input events (Zubek §5.1). One call of
//! [`SocialAgent::iterate`] is one iteration (time slice):
//!
//! 1. preprocess the input (words, stems, categories, mentioned concepts);
//! 2. estimate the evidence that does not depend on variables, inspections reading b_{t-1};
//! 3. run the trackers (situational variables);
//! 4. estimate the evidence that tests variables;
//! 5. update every space's belief (all from b_{t-1}: update order does not matter);
//! 6. local policies and arbitration; apply the winner's self-modifications; render its text.
//!
//! The caller feeds the returned output back as the next iteration's input ([`Output::as_input`]),
//! as the report's engine does.

use super::arbitration::{self, Proposal};
use super::belief;
use super::concepts;
use super::evidence::{self, Observation};
use super::model::{
    ActionId, ChatId, ConceptId, Model, SpaceId, Speaker, Tallies, TallyAdd, TallyItem, VariableId,
};
use super::output;
use super::text::{Preprocessor, QUANTITY_REACH, Word, numeral};
use crate::hsm::UnknownLocale;
use crate::locale::LineIndex;
use crate::program::Program;
use crate::rng::Rng;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use thiserror::Error;

/// Why a conversation could not be started or reloaded.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum ChatError {
    /// The program has no conversation scene of that name.
    #[error("the program has no conversation scene `{name}` (conversations: {available})")]
    UnknownChat {
        /// The conversation asked for.
        name: String,
        /// The program's conversations, comma-separated (`none` when it has none).
        available: String,
    },
}

/// One input event ⟨speaker, emote, utterance⟩ (Zubek §5.2.1).
#[derive(Clone, Debug, PartialEq)]
pub struct Input {
    /// Who produced it: the player, or the agent hearing its own output.
    pub speaker: Speaker,
    /// `says`, `nods`, `waves`...
    pub emote: String,
    /// The utterance, as typed or rendered; empty for a bare emote.
    pub text: String,
    /// When the agent's own output is fed back: the actions it performed.
    pub did: Vec<ActionId>,
}

impl Input {
    /// The player saying `text` (emote `says`).
    pub fn player(text: &str) -> Self {
        Input {
            speaker: Speaker::Player,
            emote: "says".to_string(),
            text: text.to_string(),
            did: Vec::new(),
        }
    }
}

/// What the agent produced in one iteration: ⟨agent, emote, utterance⟩ and the actions behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// The emote of the first action that has one (`says`, `nods`).
    pub emote: Arc<str>,
    /// The rendered utterances of every action, joined by spaces, in the agent's locale;
    /// empty for a pure emote.
    pub text: String,
    /// The same utterances in the source language: what the agent hears itself say (its
    /// patterns and lexicon are written in it). Equal to `text` in the source locale.
    pub source: String,
    /// The line of each utterance, in order (what a game finds voice-over under:
    /// [`Output::line_ids`]); empty for a program without a string section.
    pub lines: Vec<LineIndex>,
    /// The actions performed, in arbitration order (several after an `all` accumulator).
    pub actions: Vec<ActionId>,
    /// The belief the arbitration network carried the winner with.
    pub belief: f64,
}

impl Output {
    /// The output as the next iteration's input: the agent hears itself.
    pub fn as_input(&self) -> Input {
        Input {
            speaker: Speaker::Agent,
            emote: self.emote.to_string(),
            text: self.source.clone(),
            did: self.actions.clone(),
        }
    }

    /// The stable ids of the lines said (`greet/1`, or ids the designer pinned), in order.
    pub fn line_ids<'a>(&'a self, program: &'a Program) -> impl Iterator<Item = &'a str> + 'a {
        self.lines
            .iter()
            .map(move |l| program.strings.line(*l).id.as_str())
    }
}

/// Why a line was understood as it was (the chat preview's and the trace's "understood"): what
/// each word counted for, and the evidence the line gave.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Understanding {
    /// Each word that counted: the concepts it names and the lexicon categories it is in.
    pub words: Vec<WordReading>,
    /// The named evidence the line gave: every estimator at or above
    /// [`Understanding::THRESHOLD`], those in `chose` first, then the strongest of the rest (at
    /// most [`Understanding::MAX_EVIDENCE`] of them).
    pub evidence: Vec<(String, f64)>,
    /// The evidence that chose the reply: what the states behind it expected, of the evidence
    /// listed ("player-asks-bath" for `offer-bath`). Empty when nothing the line gave did.
    pub chose: Vec<String>,
}

/// What one word of a line counted for.
#[derive(Clone, Debug, PartialEq)]
pub struct WordReading {
    /// The word as typed (lower case).
    pub word: String,
    /// The known word it was read as, when it was typed with a slip ("helo": "hello").
    pub read_as: Option<String>,
    /// Concepts it names (`room` for "room", "chamber", "bed").
    pub concepts: Vec<String>,
    /// Lexicon categories it is in (`greeting-word`, `pleasant`).
    pub categories: Vec<String>,
    /// Whether what it names gives way to another thing of its kind the line names: refused
    /// ("not water"), said aside of the question, placing a thing named before it, or only
    /// saying which of the next word's things is meant ("meat pie") (docs/formats/concepts.md).
    pub gives_way: bool,
}

impl Understanding {
    /// Evidence below this is not listed: it did not count.
    pub const THRESHOLD: f64 = 0.5;
    /// The most evidence entries listed.
    pub const MAX_EVIDENCE: usize = 8;

    /// Nothing counted: no word named a concept or a category, no evidence.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.evidence.is_empty()
    }
}

/// What a hot reload carried across.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CarryReport {
    /// Spaces whose belief carried across by space and state name.
    pub kept: u32,
    /// What could not be mapped and what was done instead.
    pub fallbacks: Vec<String>,
}

/// One social agent running the whole HPMM model of a program on one input stream: the belief
/// of every space, the situational variables' bindings and the seeded key of its wording.
/// Deterministic: the same program, seed and inputs give the same outputs.
///
/// Invariant: its belief vectors and bindings are sized for the program it holds; a new
/// program comes in only through [`SocialAgent::reload`], which re-sizes and carries them.
pub struct SocialAgent {
    program: Arc<Program>,
    chat: ChatId,
    pre: Preprocessor,
    /// b_{t-1} before an update, b_t after; one entry per state of every space.
    belief: Vec<f64>,
    next: Vec<f64>,
    q: Vec<f64>,
    evidence: Vec<f64>,
    bindings: Vec<Option<ConceptId>>,
    /// The word each variable was bound by, when an `Unheard` tracker bound it (parallel to
    /// `bindings`).
    heard: Vec<Option<String>>,
    /// How many of its concept each variable was bound with, when a number was heard before
    /// the word that named it ("two ales"; parallel to `bindings`).
    quantities: Vec<Option<u32>>,
    /// What is on each tally (parallel to the program's `tallies.tallies`): every concept put
    /// on it, in the order first put, with how many times.
    tallies: Vec<Vec<(ConceptId, u32)>>,
    words: Vec<Word>,
    /// Whether each word names a concept (parallel to `words`).
    named: Vec<bool>,
    mentions: Vec<ConceptId>,
    /// The number heard before each mention (parallel to `mentions`; see [`quantity_before`]).
    counted: Vec<Option<u32>>,
    /// Whether each mention yields to another of its kind, parallel to `mentions`.
    yields: Vec<bool>,
    /// The word each mention was named by, parallel to `mentions`.
    mention_words: Vec<usize>,
    /// Whether the concepts a word names yield, parallel to `words` (what the understanding
    /// shows).
    gives_way: Vec<bool>,
    space_proposals: Vec<Option<Proposal>>,
    accumulator_outputs: Vec<Option<Proposal>>,
    /// The states behind the last reply (the argmax of every space whose proposal was said),
    /// taken before the reply's self-modifications moved any belief.
    replied_from: Vec<usize>,
    /// The key of its wording: never drawn from, only forked per (action, player line) so
    /// that one reply's wording does not move when another reply changes (a reading mended,
    /// a variant added), which would re-roll every later line of every transcript.
    rng: Rng,
    /// Player lines heard so far: with the action, what a reply's wording is drawn by.
    lines_heard: u64,
    /// How often each action (by name) was said since the last player line: an action said
    /// again before the player speaks (a prompt on silence) draws its wording anew.
    said_since_line: Vec<(String, u32)>,
    /// The locale it speaks in, by name (kept across reloads); `None`: the source language.
    locale: Option<String>,
}

/// Initial beliefs: each space's start state (its disable state, else its initial state) at 1.
fn initial_belief(model: &Model) -> Vec<f64> {
    let mut b = vec![0.0; model.states.len()];
    for s in &model.spaces {
        b[s.start().index()] = 1.0;
    }
    b
}

impl SocialAgent {
    /// The agent of conversation `chat`. `seed` drives its template choices.
    pub fn new(program: Arc<Program>, chat: &str, seed: u64) -> Result<Self, ChatError> {
        let model = &program.hpmm;
        let id = find_chat(&program, chat)?;
        Ok(SocialAgent {
            pre: Preprocessor::new(model),
            belief: initial_belief(model),
            next: vec![0.0; model.states.len()],
            q: vec![0.0; model.states.len()],
            evidence: vec![0.0; model.evidence.len()],
            bindings: vec![None; model.variables.len()],
            heard: vec![None; model.variables.len()],
            quantities: vec![None; model.variables.len()],
            tallies: vec![Vec::new(); program.tallies.tallies.len()],
            words: Vec::new(),
            named: Vec::new(),
            mentions: Vec::new(),
            counted: Vec::new(),
            yields: Vec::new(),
            mention_words: Vec::new(),
            gives_way: Vec::new(),
            space_proposals: Vec::new(),
            accumulator_outputs: Vec::new(),
            replied_from: Vec::new(),
            rng: Rng::new(seed, id.0 as u64),
            lines_heard: 0,
            said_since_line: Vec::new(),
            locale: None,
            chat: id,
            program,
        })
    }

    /// The program it runs (the one of its last successful reload).
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// Its conversation scene in [`SocialAgent::program`].
    pub fn chat(&self) -> ChatId {
        self.chat
    }

    /// Speaks from now on in `locale` (a locale the program translates into, or
    /// [`crate::locale::PSEUDO`]); `None` returns to the source language. Only the words
    /// change: the agent understands, reasons and chooses exactly as in the source language,
    /// and hears itself in it. A reload keeps the locale by name (a program that no longer
    /// has it speaks the source language). Refuses a locale the program does not know.
    pub fn set_locale(&mut self, locale: Option<&str>) -> Result<(), UnknownLocale> {
        self.program.strings.check_locale(locale)?;
        self.locale = locale.map(str::to_string);
        Ok(())
    }

    /// The locale it speaks in (`None`: the source language).
    pub fn locale(&self) -> Option<&str> {
        self.locale.as_deref()
    }

    /// Runs one iteration on `input` (`None`: time passes without input).
    pub fn iterate(&mut self, input: Option<&Input>) -> Option<Output> {
        let program = self.program.clone();
        let model = &program.hpmm;
        if input.is_some_and(|i| i.speaker == Speaker::Player) {
            // Wrapping: a count restored from a hand-edited snapshot never panics here.
            self.lines_heard = self.lines_heard.wrapping_add(1);
            self.said_since_line.clear();
        }
        // 1. Preprocessing.
        match input {
            Some(i) => self.pre.words(&i.text, &mut self.words),
            None => self.words.clear(),
        }
        self.mentions.clear();
        self.counted.clear();
        self.yields.clear();
        self.mention_words.clear();
        self.gives_way.clear();
        self.named.clear();
        let question = question_clause(&self.words);
        for (i, w) in self.words.iter().enumerate() {
            let concepts = self.pre.concepts_of(w);
            self.mentions.extend_from_slice(concepts);
            self.mention_words.extend(concepts.iter().map(|_| i));
            self.named.push(!concepts.is_empty());
            let mut gives_way = false;
            if !concepts.is_empty() {
                let n = quantity_before(model, &self.pre, &self.words, i)
                    .or_else(|| quantity_after(&self.words, i));
                self.counted.extend(concepts.iter().map(|_| n));
                let aside = question.as_ref().is_some_and(|q| !q.contains(&i));
                gives_way = aside
                    || refused_before(&self.pre, &self.words, i)
                    || placed_after_another(&self.pre, &self.words, i)
                    || says_which(model, &self.pre, &self.words, i);
                self.yields.extend(concepts.iter().map(|_| gives_way));
            }
            self.gives_way.push(gives_way);
        }
        let obs = Observation {
            speaker: input.map(|i| i.speaker),
            emote: input.and_then(|i| program.name_id(&i.emote)),
            words: &self.words,
            did: input.map(|i| i.did.as_slice()).unwrap_or(&[]),
            mentions: &self.mentions,
            counted: &self.counted,
            named: &self.named,
            yields: &self.yields,
            mention_words: &self.mention_words,
        };
        // A number counts for the line it was said in: "two ales", then "same again" is one.
        if input.is_some_and(|i| i.speaker == Speaker::Player) {
            self.quantities.iter_mut().for_each(|q| *q = None);
        }
        // 2–4. Evidence, trackers, variable evidence.
        let late = model.late_evidence as usize;
        evidence::estimate(
            model,
            0..late,
            &obs,
            &self.belief,
            evidence::Held {
                bindings: &self.bindings,
                tallies: &program.tallies,
                on: &self.tallies,
            },
            &mut self.evidence,
        );
        concepts::track(
            model,
            &obs,
            &self.evidence,
            concepts::Bound {
                bindings: &mut self.bindings,
                heard: &mut self.heard,
                quantities: &mut self.quantities,
            },
        );
        evidence::estimate(
            model,
            late..model.evidence.len(),
            &obs,
            &self.belief,
            evidence::Held {
                bindings: &self.bindings,
                tallies: &program.tallies,
                on: &self.tallies,
            },
            &mut self.evidence,
        );
        // 5. Belief update of every space, from b_{t-1} into b_t.
        for space in &model.spaces {
            let r = space.states();
            belief::evidence_for(
                &model.states[r.clone()],
                &self.evidence,
                &mut self.q[r.clone()],
            );
            belief::forward(
                space,
                &self.belief[r.clone()],
                &self.q[r.clone()],
                &self.evidence,
                &mut self.next[r],
            );
        }
        std::mem::swap(&mut self.belief, &mut self.next);
        // 6. Action selection.
        arbitration::arbitrate(
            model,
            &self.belief,
            &mut self.space_proposals,
            &mut self.accumulator_outputs,
        );
        let sink = model.chats[self.chat.index()].output;
        self.replied_from.clear();
        let winner = self.accumulator_outputs[sink.index()].clone()?;
        let said: Vec<ActionId> = winner.actions().collect();
        for (i, p) in self.space_proposals.iter().enumerate() {
            if p.as_ref().is_some_and(|p| said.contains(&p.action)) {
                let space = SpaceId(i as u32);
                let state = arbitration::acting_state(model, space, &self.belief);
                self.replied_from.push(state);
            }
        }
        Some(self.perform(&program, winner))
    }

    /// Why the last input was understood as it was: the words that named a concept or were in
    /// a lexicon category, and the named evidence it gave (see [`Understanding`]).
    pub fn understanding(&self) -> Understanding {
        let program = &self.program;
        let model = &program.hpmm;
        let words = self
            .words
            .iter()
            .enumerate()
            .filter_map(|(i, w)| {
                let mut concepts: Vec<String> = Vec::new();
                // A word an `Unheard` tracker took names the concept it bound.
                let took = (self.heard.iter().zip(&self.bindings))
                    .filter(|(h, _)| h.as_deref() == Some(w.text.as_str()))
                    .filter_map(|(_, c)| *c);
                for c in self.pre.concepts_of(w).iter().copied().chain(took) {
                    let name = program.name(model.concepts[c.index()].name).to_string();
                    if !concepts.contains(&name) {
                        concepts.push(name);
                    }
                }
                let categories: Vec<String> = (0..model.categories.len().min(128))
                    .filter(|&bit| w.tags & (1u128 << bit) != 0)
                    .map(|bit| program.name(model.categories[bit]).to_string())
                    .collect();
                (!concepts.is_empty() || !categories.is_empty()).then(|| WordReading {
                    word: w.text.clone(),
                    read_as: w.read_as.clone(),
                    concepts,
                    categories,
                    gives_way: self.gives_way.get(i).copied().unwrap_or(false),
                })
            })
            .collect();
        let mut expected = vec![false; model.evidence.len()];
        for &state in &self.replied_from {
            for &(e, _) in &model.states[state].expects {
                expected[e.index()] = true;
            }
        }
        let mut evidence: Vec<(String, f64, bool)> = model
            .evidence
            .iter()
            .zip(&self.evidence)
            .zip(&expected)
            .filter_map(|((y, &e), &chose)| {
                let name = y.name?;
                (e >= Understanding::THRESHOLD).then(|| (program.name(name).to_string(), e, chose))
            })
            .collect();
        evidence.sort_by(|a, b| {
            (b.2.cmp(&a.2))
                .then_with(|| b.1.total_cmp(&a.1))
                .then_with(|| a.0.cmp(&b.0))
        });
        let chose: Vec<String> = (evidence.iter())
            .filter(|e| e.2)
            .map(|e| e.0.clone())
            .collect();
        evidence.truncate(chose.len() + Understanding::MAX_EVIDENCE);
        let evidence = evidence.into_iter().map(|(n, v, _)| (n, v)).collect();
        Understanding {
            words,
            evidence,
            chose,
        }
    }

    /// Applies the winner's self-modifications right away and renders its text.
    fn perform(&mut self, program: &Program, winner: Proposal) -> Output {
        let model = &program.hpmm;
        let mut texts = Vec::new();
        let mut sources = Vec::new();
        let mut lines = Vec::new();
        let mut emote = None;
        let locale = self
            .locale
            .as_deref()
            .and_then(|l| program.strings.locale(l))
            .unwrap_or_default();
        let actions: Vec<ActionId> = winner.actions().collect();
        for &a in &actions {
            let action = &model.actions[a.index()];
            // What goes on a tally is read before this action's own bindings change.
            for add in program.tallies.adds.iter().filter(|add| add.action == a) {
                self.put_on_tally(program, add);
            }
            let mut settled = Vec::new();
            for &(v, c) in &action.bind {
                if c.is_none() && program.tallies.of(v).is_some() {
                    // Settled after the line is said: "paid, {the-tab.total}" says the sum.
                    settled.push(v);
                    continue;
                }
                self.bindings[v.index()] = c;
                self.heard[v.index()] = None;
                self.quantities[v.index()] = None;
            }
            for copy in &action.copy_belief {
                self.set_belief(model, copy.target, self.belief[copy.source.index()]);
            }
            let again = self.said_again(program.name(action.name));
            let mut wording = (self.rng).fork(wording_stream(
                program.name(action.name),
                self.lines_heard,
                again,
            ));
            let said = output::render(
                program,
                &action.say,
                &action.lines,
                output::Situation {
                    bindings: &self.bindings,
                    heard: &self.heard,
                    quantities: &self.quantities,
                    tallies: &self.tallies,
                },
                &mut wording,
                locale,
            );
            for v in settled {
                let t = program.tallies.of(v).expect("a tally");
                self.tallies[t].clear();
                self.bindings[v.index()] = None;
            }
            if !said.source.is_empty() {
                texts.push(said.text);
                sources.push(said.source);
                lines.extend(said.line);
            }
            // A turn of several actions ("hail, friend. thank you ...") wears the emote of its
            // last, the answer.
            emote = Some(action.emote);
        }
        Output {
            emote: program.shared_name(emote.expect("a proposal has at least one action")),
            text: sentences(&texts),
            source: sentences(&sources),
            lines,
            actions,
            belief: winner.belief,
        }
    }

    /// Puts an action's item on its tally (as many as were heard with a variable's binding:
    /// "two ales"), which stays bound to the concept put on it last; an unbound variable puts
    /// nothing, and a `once` item nothing when a kind of it is on already (but raises its count
    /// to a larger number heard; and, when it is a kind of something on, takes that one's place).
    fn put_on_tally(&mut self, program: &Program, add: &TallyAdd) {
        let (concept, many) = match add.item {
            TallyItem::Bound(v) => (self.bindings[v.index()], self.quantities[v.index()]),
            TallyItem::Concept(c) => (Some(c), None),
        };
        let tally = add.tally;
        let (Some(c), Some(t)) = (concept, program.tallies.of(tally)) else {
            return;
        };
        let model = &program.hpmm;
        let items = &mut self.tallies[t];
        if add.once && (items.iter()).any(|&(had, _)| super::evidence::is_a(model, had, c)) {
            // Said again with a larger number ("three horses, not two"), the count is raised to
            // it; said again without one, nothing is added: talk of a beast is not another beast.
            if let (Some(many), Some((_, n))) = (many, items.iter_mut().find(|(had, _)| *had == c))
            {
                *n = (*n).max(many);
            }
            return;
        }
        // A `once` kind of what is on refines one of it: the room offered, then the loft taken,
        // is one loft on the tab, not a room and a loft; of six rooms, one becomes the best.
        let general = (add.once)
            .then(|| (items.iter()).position(|&(had, _)| super::evidence::is_a(model, c, had)))
            .flatten();
        match general {
            Some(g) if items[g].1 > 1 => {
                items[g].1 -= 1;
                items.push((c, 1));
            }
            Some(g) => items[g].0 = c,
            None => {
                let many = many.unwrap_or(1);
                match items.iter_mut().find(|(had, _)| *had == c) {
                    Some((_, n)) => *n = n.saturating_add(many),
                    None => items.push((c, many)),
                }
            }
        }
        self.bindings[tally.index()] = Some(c);
        self.heard[tally.index()] = None;
        self.quantities[tally.index()] = None;
    }

    /// What is on the tally kept in `variable`, by concept name with counts, in the order first
    /// put (`None` when the variable is no tally).
    pub fn tally(&self, variable: &str) -> Option<Vec<(&str, u32)>> {
        let program = &self.program;
        let v = program
            .hpmm
            .variables
            .iter()
            .position(|v| program.name(v.name) == variable)?;
        let t = program.tallies.of(VariableId(v as u32))?;
        Some(
            self.tallies[t]
                .iter()
                .map(|&(c, n)| (program.name(program.hpmm.concepts[c.index()].name), n))
                .collect(),
        )
    }

    /// Sets b(target) := value and rescales the rest of its space so it still sums to 1.
    fn set_belief(&mut self, model: &Model, target: super::model::SpaceStateId, value: f64) {
        let value = value.clamp(0.0, 1.0);
        let space = model.space(model.state(target).space);
        let range = space.states();
        let t = target.index();
        let rest: f64 = range
            .clone()
            .filter(|&i| i != t)
            .map(|i| self.belief[i])
            .sum();
        if rest > 0.0 {
            let k = (1.0 - value) / rest;
            for i in range.filter(|&i| i != t) {
                self.belief[i] *= k;
            }
            self.belief[t] = value;
        } else {
            // Nothing else holds belief: the target keeps all of it.
            self.belief[t] = 1.0;
        }
    }

    /// The current belief of every state of a space.
    pub fn space_belief(&self, space: SpaceId) -> &[f64] {
        &self.belief[self.program.hpmm.space(space).states()]
    }

    /// b(state) by names.
    pub fn belief(&self, space: &str, state: &str) -> Option<f64> {
        let (sp, st) = find_state(&self.program, space, state)?;
        let _ = sp;
        Some(self.belief[st])
    }

    /// The argmax state's name of a space.
    pub fn argmax(&self, space: &str) -> Option<&str> {
        let program = &self.program;
        let model = &program.hpmm;
        let id = find_space(program, space)?;
        let state = arbitration::acting_state(model, id, &self.belief);
        Some(program.name(model.states[state].name))
    }

    /// The last e(y) of a named evidence type.
    pub fn evidence(&self, name: &str) -> Option<f64> {
        let n = self.program.name_id(name)?;
        let i = self
            .program
            .hpmm
            .evidence
            .iter()
            .position(|e| e.name == Some(n))?;
        Some(self.evidence[i])
    }

    /// The concept a situational variable is bound to, by name.
    pub fn binding(&self, variable: &str) -> Option<&str> {
        let program = &self.program;
        let n = program.name_id(variable)?;
        let v = program.hpmm.variables.iter().position(|v| v.name == n)?;
        let c = self.bindings[v]?;
        Some(program.name(program.hpmm.concepts[c.index()].name))
    }

    /// What every situational variable that holds something holds, by name, for a designer's
    /// view: a bound concept (with the player's word when an `Unheard` tracker bound it: `tide
    /// (unheard-of)`; with the number heard with it: `2 ale`), or what is on a tally and its
    /// total in the smallest unit (`room, stew, 2 ale (57)`). Variables in declaration order.
    pub fn situation(&self) -> Vec<(&str, String)> {
        let program = &self.program;
        let concept = |c: ConceptId| program.name(program.hpmm.concepts[c.index()].name);
        (program.hpmm.variables.iter().enumerate())
            .filter_map(|(v, var)| {
                let name = program.name(var.name);
                if let Some(t) = program.tallies.of(VariableId(v as u32)) {
                    let items = &self.tallies[t];
                    if items.is_empty() {
                        return None;
                    }
                    let listed = Tallies::listed(items, |c| concept(c).to_string());
                    let total = program.tallies.total(items);
                    return Some((name, format!("{} ({total})", listed.join(", "))));
                }
                let c = self.bindings[v]?;
                Some(match (&self.heard[v], self.quantities[v]) {
                    (Some(word), _) => (name, format!("{word} ({})", concept(c))),
                    (None, Some(n)) => (name, format!("{n} {}", concept(c))),
                    (None, None) => (name, concept(c).to_string()),
                })
            })
            .collect()
    }

    /// Name of an action id of the current program.
    pub fn action_name(&self, a: ActionId) -> &str {
        self.program.name(self.program.hpmm.actions[a.index()].name)
    }

    /// Swaps in a new program, carrying beliefs across by space and state name and variable
    /// bindings by variable and concept name. A space that is new, or whose carried states hold
    /// no belief, starts afresh; carried beliefs are renormalised within their space (a state
    /// that disappeared takes its mass with it). Fails, keeping the old program, when the new
    /// one lacks this agent's conversation scene.
    pub fn reload(&mut self, program: Arc<Program>) -> Result<CarryReport, ChatError> {
        let chat_name = self
            .program
            .name(self.program.hpmm.chats[self.chat.index()].name)
            .to_string();
        let chat = find_chat(&program, &chat_name)?;
        let old = std::mem::replace(&mut self.program, program.clone());
        let (old_model, model) = (&old.hpmm, &program.hpmm);
        let mut report = CarryReport::default();
        let mut belief = initial_belief(model);
        for space in &model.spaces {
            let name = program.name(space.name);
            let Some(old_id) = find_space(&old, name) else {
                report
                    .fallbacks
                    .push(format!("space `{name}` is new: it starts afresh"));
                continue;
            };
            let old_range = old_model.space(old_id).states();
            let mut carried = vec![0.0; space.len()];
            for (k, s) in space.states().enumerate() {
                let state_name = program.name(model.states[s].name);
                if let Some(j) = old_range
                    .clone()
                    .find(|&j| old.name(old_model.states[j].name) == state_name)
                {
                    carried[k] = self.belief[j];
                }
            }
            let sum: f64 = carried.iter().sum();
            if sum > 0.0 && sum.is_finite() {
                for (k, s) in space.states().enumerate() {
                    belief[s] = carried[k] / sum;
                }
                report.kept += 1;
                if sum < 1.0 - 1e-9 {
                    report.fallbacks.push(format!(
                        "space `{name}`: {:.0}% of its belief was in states that are gone; the rest was renormalised",
                        (1.0 - sum) * 100.0
                    ));
                }
            } else {
                report.fallbacks.push(format!(
                    "space `{name}`: its believed states are gone: it starts afresh"
                ));
            }
        }
        let mut bindings = vec![None; model.variables.len()];
        let mut heard = vec![None; model.variables.len()];
        let mut quantities = vec![None; model.variables.len()];
        for (i, v) in model.variables.iter().enumerate() {
            let vname = program.name(v.name);
            let old_variable = old_model
                .variables
                .iter()
                .position(|ov| old.name(ov.name) == vname);
            let old_binding = old_variable.and_then(|ov| self.bindings[ov]);
            if let Some(c) = old_binding {
                heard[i] = old_variable.and_then(|ov| self.heard[ov].clone());
                quantities[i] = old_variable.and_then(|ov| self.quantities[ov]);
                let cname = old.name(old_model.concepts[c.index()].name);
                match model
                    .concepts
                    .iter()
                    .position(|nc| program.name(nc.name) == cname)
                {
                    Some(nc) => bindings[i] = Some(ConceptId(nc as u32)),
                    None => report.fallbacks.push(format!(
                        "variable `{vname}`: concept `{cname}` is gone; unbound"
                    )),
                }
            }
        }
        self.chat = chat;
        self.pre = Preprocessor::new(model);
        // What the last line was understood as belongs to the old program's ids.
        self.words.clear();
        self.named.clear();
        self.mentions.clear();
        self.space_proposals.clear();
        self.accumulator_outputs.clear();
        self.replied_from.clear();
        self.next = vec![0.0; model.states.len()];
        self.q = vec![0.0; model.states.len()];
        self.evidence = vec![0.0; model.evidence.len()];
        self.belief = belief;
        // A word and a number stay only with their binding (a variable whose concept is gone
        // is unbound).
        for ((h, q), b) in heard.iter_mut().zip(&mut quantities).zip(&bindings) {
            if b.is_none() {
                (*h, *q) = (None, None);
            }
        }
        self.bindings = bindings;
        self.heard = heard;
        self.quantities = quantities;
        let saved = tallies_by_name(&old, &self.tallies);
        self.tallies = self.tallies_from_names(&saved, &mut report);
        Ok(report)
    }

    /// What is on the tallies of [`tallies_by_name`], put back on the program's tallies of
    /// those names; a tally or a concept that is gone is dropped, and said. A tally's variable
    /// stays bound only while something is on it.
    fn tallies_from_names(
        &mut self,
        saved: &[SavedTally],
        report: &mut CarryReport,
    ) -> Vec<Vec<(ConceptId, u32)>> {
        let program = self.program.clone();
        let model = &program.hpmm;
        let mut tallies = vec![Vec::new(); program.tallies.tallies.len()];
        for (vname, items) in saved {
            let t = (program.tallies.tallies.iter())
                .position(|t| program.name(model.variables[t.variable.index()].name) == vname);
            let Some(t) = t else {
                report.fallbacks.push(format!(
                    "tally `{vname}` is gone: what was on it is dropped"
                ));
                continue;
            };
            for (cname, n) in items {
                match (model.concepts.iter()).position(|c| program.name(c.name) == cname) {
                    Some(c) if *n > 0 => tallies[t].push((ConceptId(c as u32), *n)),
                    Some(_) => {}
                    None => report.fallbacks.push(format!(
                        "tally `{vname}`: concept `{cname}` is gone; taken off it"
                    )),
                }
            }
        }
        for (tally, items) in program.tallies.tallies.iter().zip(&tallies) {
            let v = tally.variable.index();
            if items.is_empty() {
                self.bindings[v] = None;
            } else if !self.bindings[v].is_some_and(|c| items.iter().any(|&(i, _)| i == c)) {
                self.bindings[v] = items.last().map(|&(c, _)| c);
            }
            self.heard[v] = None;
            self.quantities[v] = None;
        }
        tallies
    }
}

/// A tally as a snapshot holds it: (variable, [(concept, count)]).
pub(crate) type SavedTally = (String, Vec<(String, u32)>);

/// What is on every tally of `program` that has something on it, by name.
fn tallies_by_name(program: &Program, tallies: &[Vec<(ConceptId, u32)>]) -> Vec<SavedTally> {
    let model = &program.hpmm;
    (program.tallies.tallies.iter().zip(tallies))
        .filter(|(_, items)| !items.is_empty())
        .map(|(t, items)| {
            let name = |c: ConceptId| program.name(model.concepts[c.index()].name).to_string();
            (
                program
                    .name(model.variables[t.variable.index()].name)
                    .to_string(),
                items.iter().map(|&(c, n)| (name(c), n)).collect(),
            )
        })
        .collect()
}

/// An agent as a snapshot holds it: everything by name, so it restores onto a rebuilt program
/// the way [`SocialAgent::reload`] carries state. Only what the next iteration reads is kept:
/// the evidence, words and proposals are rewritten by every iteration before they are read.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SavedAgent {
    /// Every space's belief: (space, [(state, b(state))]).
    spaces: Vec<(String, Vec<(String, f64)>)>,
    /// Bound situational variables: (variable, concept).
    bindings: Vec<(String, String)>,
    /// The key the wording is forked from (never drawn from itself).
    rng: Rng,
}

impl SocialAgent {
    /// How often `action` was said since the last player line, counting this time: 0 the
    /// first time.
    fn said_again(&mut self, action: &str) -> u32 {
        match self.said_since_line.iter_mut().find(|(a, _)| a == action) {
            Some((_, n)) => {
                *n = n.saturating_add(1);
                *n
            }
            None => {
                self.said_since_line.push((action.to_string(), 0));
                0
            }
        }
    }

    /// Player lines heard so far and what was said since the last (the wording's other keys):
    /// saved in a section of their own, so snapshots from before it still restore (counting
    /// from 0 again).
    pub(crate) fn lines_heard(&self) -> (u64, Vec<(String, u32)>) {
        (self.lines_heard, self.said_since_line.clone())
    }

    pub(crate) fn restore_lines_heard(&mut self, (lines, said): (u64, Vec<(String, u32)>)) {
        self.lines_heard = lines;
        self.said_since_line = said;
    }

    /// The words variables were bound by (`Unheard` trackers), by variable name: saved in a
    /// section of their own, so snapshots from before it still restore.
    pub(crate) fn heard_by_name(&self) -> Vec<(String, String)> {
        let program = &self.program;
        (program.hpmm.variables.iter().zip(&self.heard))
            .filter_map(|(v, h)| Some((program.name(v.name).to_string(), h.clone()?)))
            .collect()
    }

    /// Gives back the words of [`SocialAgent::heard_by_name`] to the variables of those names
    /// that are bound; the others are dropped.
    pub(crate) fn restore_heard(&mut self, saved: &[(String, String)]) {
        let program = self.program.clone();
        for (vname, word) in saved {
            let v = program
                .hpmm
                .variables
                .iter()
                .position(|v| program.name(v.name) == vname);
            if let Some(v) = v.filter(|&v| self.bindings[v].is_some()) {
                self.heard[v] = Some(word.clone());
            }
        }
    }

    /// The numbers variables were bound with ("two ales"), by variable name: saved in a
    /// section of their own, so snapshots from before it still restore.
    pub(crate) fn quantities_by_name(&self) -> Vec<(String, u32)> {
        let program = &self.program;
        (program.hpmm.variables.iter().zip(&self.quantities))
            .filter_map(|(v, q)| Some((program.name(v.name).to_string(), (*q)?)))
            .collect()
    }

    /// Gives back the numbers of [`SocialAgent::quantities_by_name`] to the bound variables of
    /// those names; the others, and a number no line could say (below two, above 999), are
    /// dropped.
    pub(crate) fn restore_quantities(&mut self, saved: &[(String, u32)]) {
        let program = self.program.clone();
        for (vname, n) in saved {
            let v = (program.hpmm.variables.iter()).position(|v| program.name(v.name) == vname);
            let tally = |v: usize| program.tallies.of(VariableId(v as u32)).is_some();
            if let Some(v) = v.filter(|&v| self.bindings[v].is_some() && !tally(v))
                && (2..=999).contains(n)
            {
                self.quantities[v] = Some(*n);
            }
        }
    }

    /// What is on the tallies, by name: saved in a section of its own, so snapshots from
    /// before tallies still restore.
    pub(crate) fn tallies_by_name(&self) -> Vec<SavedTally> {
        tallies_by_name(&self.program, &self.tallies)
    }

    /// Puts back what [`SocialAgent::tallies_by_name`] saved, onto this program's tallies of
    /// those names (after the bindings came back); what is gone is reported.
    pub(crate) fn restore_tallies(&mut self, saved: &[SavedTally], report: &mut CarryReport) {
        self.tallies = self.tallies_from_names(saved, report);
    }

    pub(crate) fn to_saved(&self) -> SavedAgent {
        let program = &self.program;
        let model = &program.hpmm;
        SavedAgent {
            spaces: model
                .spaces
                .iter()
                .map(|space| {
                    let states = space
                        .states()
                        .map(|s| {
                            (
                                program.name(model.states[s].name).to_string(),
                                self.belief[s],
                            )
                        })
                        .collect();
                    (program.name(space.name).to_string(), states)
                })
                .collect(),
            bindings: model
                .variables
                .iter()
                .zip(&self.bindings)
                .filter_map(|(v, c)| {
                    let c = (*c)?;
                    Some((
                        program.name(v.name).to_string(),
                        program.name(model.concepts[c.index()].name).to_string(),
                    ))
                })
                .collect(),
            rng: self.rng.clone(),
        }
    }

    /// The agent of conversation `chat` of `program` with a saved agent's beliefs, bindings and
    /// random stream, mapped by name. A space the snapshot lacks, or whose saved states are all
    /// gone, starts afresh; a space that lost some of its believed states is renormalised;
    /// both are reported. Onto the very program it was saved from, every value comes back
    /// bit for bit. `Err`: a belief that is not a probability (the snapshot is inconsistent).
    pub(crate) fn from_saved(
        program: Arc<Program>,
        chat: &str,
        saved: SavedAgent,
    ) -> Result<(Self, CarryReport), String> {
        let mut agent = SocialAgent::new(program.clone(), chat, 0).map_err(|e| e.to_string())?;
        let model = &program.hpmm;
        let mut report = CarryReport::default();
        for (space_name, states) in &saved.spaces {
            if let Some((state, b)) = states
                .iter()
                .find(|(_, b)| !(b.is_finite() && (0.0..=1.0).contains(b)))
            {
                return Err(format!(
                    "space `{space_name}`: belief {b} of state `{state}` is not a probability"
                ));
            }
            if find_space(&program, space_name).is_none() {
                report.fallbacks.push(format!(
                    "space `{space_name}` is gone: its belief is dropped"
                ));
            }
        }
        for space in &model.spaces {
            let name = program.name(space.name);
            let Some((_, states)) = saved.spaces.iter().find(|(n, _)| n == name) else {
                report
                    .fallbacks
                    .push(format!("space `{name}` is new: it starts afresh"));
                continue;
            };
            let mut carried = vec![0.0; space.len()];
            let mut lost = 0.0;
            for (state_name, b) in states {
                match space
                    .states()
                    .position(|s| program.name(model.states[s].name) == state_name)
                {
                    Some(k) => carried[k] = *b,
                    None => lost += b,
                }
            }
            let sum: f64 = carried.iter().sum();
            if !(sum > 0.0 && sum.is_finite()) {
                report.fallbacks.push(format!(
                    "space `{name}`: its believed states are gone: it starts afresh"
                ));
                continue;
            }
            // Renormalised only when mass was lost, so that a restore onto the same program
            // gives back the very bits it saved.
            if lost > 0.0 {
                report.fallbacks.push(format!(
                    "space `{name}`: {:.0}% of its belief was in states that are gone; the rest was renormalised",
                    lost / (lost + sum) * 100.0
                ));
                carried.iter_mut().for_each(|b| *b /= sum);
            }
            for (k, s) in space.states().enumerate() {
                agent.belief[s] = carried[k];
            }
            report.kept += 1;
        }
        for (vname, cname) in &saved.bindings {
            let Some(v) = model
                .variables
                .iter()
                .position(|v| program.name(v.name) == vname)
            else {
                report.fallbacks.push(format!(
                    "variable `{vname}` is gone: its binding is dropped"
                ));
                continue;
            };
            match model
                .concepts
                .iter()
                .position(|c| program.name(c.name) == cname)
            {
                Some(c) => agent.bindings[v] = Some(ConceptId(c as u32)),
                None => report.fallbacks.push(format!(
                    "variable `{vname}`: concept `{cname}` is gone; unbound"
                )),
            }
        }
        agent.rng = saved.rng;
        Ok((agent, report))
    }
}

/// The stream a reply's wording is drawn from: the action's name (FNV-1a, so a patch that
/// adds or reorders actions keeps it) mixed with the player lines heard and how often the
/// action was said again since the last (0 the first time, which leaves the stream as it was).
fn wording_stream(action: &str, lines_heard: u64, again: u32) -> u64 {
    let name = (action.bytes()).fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    });
    name ^ lines_heard.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ u64::from(again).wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// Words that end the reach of a number: "two, no, one ale", "stew for two, and an ale", "we're
/// two, a room" — the number counts something said before them.
const ENDS_A_COUNT: [&str; 8] = ["a", "an", "one", "1", "and", "or", "for", "no"];

/// The number said before word `i` (a concept's word) that counts it: within
/// [`QUANTITY_REACH`] words before it, past words that name nothing or name the same concept or
/// a kind of it ("two mugs of ale", "two bowls of stew"), or a word right before it that only
/// says which ("two cart horses" are two horses), never past a word naming something
/// else ("two ales and stew": the stew is not counted) nor past [`ENDS_A_COUNT`].
fn quantity_before(model: &Model, pre: &Preprocessor, words: &[Word], i: usize) -> Option<u32> {
    let named = pre.concepts_of(&words[i]);
    let related = |o: ConceptId| {
        (named.iter())
            .any(|&c| c == o || evidence::is_a(model, c, o) || evidence::is_a(model, o, c))
    };
    let from = i.saturating_sub(QUANTITY_REACH);
    for (j, w) in words[from..i].iter().enumerate().rev() {
        if let Some(n) = numeral(&w.text) {
            return Some(n);
        }
        let other = pre.concepts_of(w);
        let says_which = from + j + 1 == i && !w.pause;
        if ENDS_A_COUNT.contains(&w.text.as_str())
            || (!says_which && !other.iter().all(|&o| related(o)))
        {
            return None;
        }
    }
    None
}

/// Words that may follow a count written after its thing ("ale 2 pls").
const AFTER_A_COUNT: [&str; 5] = ["please", "pls", "plz", "?", "!"];

/// The count written right after word `i` in chat shorthand ("ale 2", "stew x2"): a number
/// (digits, or `x` and digits) that ends its clause, or comes before a "please". Never a word
/// that goes on ("room 1 nite" is one room for one night, said after the room).
fn quantity_after(words: &[Word], i: usize) -> Option<u32> {
    let w = words.get(i + 1).filter(|_| !words[i].pause)?;
    let digits = w.text.strip_prefix('x').unwrap_or(&w.text);
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n = numeral(digits)?;
    let ends = w.pause
        || (words.get(i + 2)).is_none_or(|next| AFTER_A_COUNT.contains(&next.text.as_str()));
    ends.then_some(n)
}

/// Words a question opens with, when no `?` says where it is.
const QUESTION_OPENERS: [&str; 25] = [
    "what", "whats", "what's", "who", "whos", "who's", "where", "wheres", "where's", "when", "why",
    "how", "hows", "how's", "which", "is", "are", "was", "were", "do", "does", "did", "can",
    "could", "will",
];

/// Words that open a tail which goes on with the question before it.
const CONTINUATIONS: [&str; 3] = ["and", "plus", "also"];

/// The words of the clause that asks: the one that ends in the last `?`, from the pause or
/// `?`/`!` before it ("any rooms? we are five": the rooms); without a `?`, the first clause
/// when it opens like a question ("is it cold tonight, my coat is in the river": the cold is
/// asked about, the river said aside). A tail after the last `?` that opens with one of
/// [`CONTINUATIONS`] goes on asking ("broth for her? and water": both asked for); `or` does not
/// ("tea? or only ale" offers choices). A clause that opens with one goes on with the clause
/// before it when that one opens like a question ("how far is the temple, and is it steep?").
fn question_clause(words: &[Word]) -> Option<std::ops::Range<usize>> {
    let ends = |w: &Word| w.pause || w.text == "?" || w.text == "!";
    // Where the clause that ends before word `end` starts.
    let clause_start = |end: usize| words[..end].iter().rposition(ends).map_or(0, |b| b + 1);
    match words.iter().rposition(|w| w.text == "?") {
        Some(q) => {
            let mut start = clause_start(q);
            while start > 0 && CONTINUATIONS.contains(&words[start].text.as_str()) {
                let before = clause_start(start - 1);
                if !QUESTION_OPENERS.contains(&words[before].text.as_str()) {
                    break;
                }
                start = before;
            }
            let goes_on = words
                .get(q + 1)
                .is_some_and(|w| CONTINUATIONS.contains(&w.text.as_str()));
            if goes_on {
                let end = words[q + 1..]
                    .iter()
                    .position(ends)
                    .map_or(words.len(), |e| q + 1 + e + 1);
                return Some(start..end);
            }
            Some(start..q)
        }
        None => {
            let first = words.first()?;
            if !QUESTION_OPENERS.contains(&first.text.as_str()) {
                return None;
            }
            let end = words.iter().position(ends).map_or(words.len(), |e| e + 1);
            Some(0..end)
        }
    }
}

/// Words that refuse what follows them: "wine, not water", "soup, no onions", "without meat",
/// "i don't want ale", "tea instead of ale", "anything except fish".
const REFUSALS: [&str; 11] = [
    "no", "not", "without", "nor", "never", "don't", "dont", "can't", "cant", "instead", "except",
];

/// Words after which "nothing" keeps what follows ("nothing but ale", "nothing like a hot bath").
const NOTHING_KEEPS: [&str; 6] = ["but", "like", "beats", "better", "compares", "else"];

/// Whether word `j` refuses what follows it: one of [`REFUSALS`], or "nothing" ("soup, nothing
/// with meat") unless a word of [`NOTHING_KEEPS`] comes next.
fn refuses(words: &[Word], j: usize) -> bool {
    match words[j].text.as_str() {
        "nothing" => words
            .get(j + 1)
            .is_none_or(|next| !NOTHING_KEEPS.contains(&next.text.as_str())),
        w => REFUSALS.contains(&w),
    }
}

/// Words that refuse reach no further: "not ale, but wine" refuses the ale only.
const REFUSAL_REACH: usize = 2;

/// Whether word `i` (a concept's word) is refused: a refusal within [`REFUSAL_REACH`] words
/// before it, past words that name nothing, with no pause after it ("no, the ale" answers, it
/// does not refuse), or right after a refused thing and `or` ("no wine or ale" refuses both;
/// "no onions, and ale" wants the ale).
fn refused_before(pre: &Preprocessor, words: &[Word], i: usize) -> bool {
    for j in (i.saturating_sub(REFUSAL_REACH)..i).rev() {
        let w = &words[j];
        if w.pause {
            return false;
        }
        if refuses(words, j) {
            return true;
        }
        if !pre.concepts_of(w).is_empty() {
            let or_between = j + 1 < i && words[j + 1..i].iter().all(|x| x.text == "or");
            return or_between && refused_before(pre, words, j);
        }
    }
    false
}

/// Words that put what follows them as the place of a thing named before ("the temple in
/// town", "a bath in my room", "a window onto the road"): the thing, not its place, is what
/// the line is about. They reach as far back as a refusal does ([`REFUSAL_REACH`]).
const PLACE_WORDS: [&str; 9] = [
    "in",
    "around",
    "near",
    "inside",
    "over",
    "onto",
    "overlooking",
    "facing",
    "across",
];

/// Words that make a place another one than here: its things are that place's.
const OTHER_PLACE: [&str; 5] = ["next", "nearest", "other", "another", "that"];

/// Whether word `i` (a concept's word) only places a thing named earlier in the clause: a
/// [`PLACE_WORDS`] word within [`REFUSAL_REACH`] words before it, and a concept named before that.
fn placed_after_another(pre: &Preprocessor, words: &[Word], i: usize) -> bool {
    let Some(p) = (i.saturating_sub(REFUSAL_REACH)..i)
        .rev()
        .find(|&j| PLACE_WORDS.contains(&words[j].text.as_str()))
    else {
        return false;
    };
    let between = &words[p + 1..i];
    if words[p..i].iter().any(|w| w.pause)
        || between.iter().any(|w| !pre.concepts_of(w).is_empty())
        // "the market in the next town" asks about the other town's market.
        || between.iter().any(|w| OTHER_PLACE.contains(&w.text.as_str()))
    {
        return false;
    }
    // A pause after a word ends the phrase before the place word.
    (words[..p].iter().rev())
        .take_while(|w| !w.pause)
        .any(|w| !pre.concepts_of(w).is_empty())
}

/// Whether word `i` (a concept's word) only says which of the next word's things is meant: a
/// concept's word right before another's, with no pause between ("a meat pie", "your strongest
/// wine", "hot water": the pie, the wine, the water). English puts the head of a phrase last.
/// Not when it names a kind of what the next word names: "mulled wine" is the mulled wine and
/// "a strong drink" the strong one, as `Mention` reads them.
fn says_which(model: &Model, pre: &Preprocessor, words: &[Word], i: usize) -> bool {
    let Some(next) = words.get(i + 1).map(|w| pre.concepts_of(w)) else {
        return false;
    };
    let this = pre.concepts_of(&words[i]);
    !words[i].pause
        && !next.is_empty()
        && !(this.iter()).any(|&c| next.iter().any(|&n| c == n || evidence::is_a(model, c, n)))
}

fn find_chat(program: &Program, name: &str) -> Result<ChatId, ChatError> {
    let model = &program.hpmm;
    program
        .name_id(name)
        .and_then(|n| model.chats.iter().position(|c| c.name == n))
        .map(|i| ChatId(i as u32))
        .ok_or_else(|| ChatError::UnknownChat {
            name: name.to_string(),
            available: {
                let names: Vec<&str> = model.chats.iter().map(|c| program.name(c.name)).collect();
                if names.is_empty() {
                    "none".to_string()
                } else {
                    names.join(", ")
                }
            },
        })
}

/// A space by name.
pub fn find_space(program: &Program, name: &str) -> Option<SpaceId> {
    let n = program.name_id(name)?;
    program
        .hpmm
        .spaces
        .iter()
        .position(|s| s.name == n)
        .map(|i| SpaceId(i as u32))
}

/// A state by space and state name: (space, model-wide state index).
pub fn find_state(program: &Program, space: &str, state: &str) -> Option<(SpaceId, usize)> {
    let sp = find_space(program, space)?;
    let n = program.name_id(state)?;
    let model = &program.hpmm;
    model
        .space(sp)
        .states()
        .find(|&i| model.states[i].name == n)
        .map(|i| (sp, i))
}

/// The utterances of one turn's actions as one text: each a sentence of its own ("hail, friend.
/// xenos? me xenos ..."), so a greeting before the answer does not run into it.
fn sentences(utterances: &[String]) -> String {
    let mut text = String::new();
    for u in utterances {
        if !text.is_empty() {
            if !text.ends_with(['.', '!', '?', ',', ';', ':']) {
                text.push('.');
            }
            text.push(' ');
        }
        text.push_str(u);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpmm::text::tokenize_marked;

    #[test]
    fn each_action_line_and_repeat_has_a_wording_stream_of_its_own() {
        let streams = [
            wording_stream("greet", 3, 0),
            wording_stream("greet", 4, 0),
            wording_stream("farewell", 3, 0),
            wording_stream("greet", 3, 1),
            wording_stream("greet", 3, 2),
        ];
        for (i, a) in streams.iter().enumerate() {
            for b in &streams[i + 1..] {
                assert_ne!(a, b, "{streams:x?}");
            }
        }
        assert_eq!(wording_stream("greet", 3, 0), streams[0], "reproducible");
        // Counted past what a hand-edited snapshot could make wrap, still no panic.
        wording_stream("greet", u64::MAX, u32::MAX);
    }

    fn words(line: &str) -> Vec<Word> {
        (tokenize_marked(line).into_iter())
            .map(|(text, pause)| Word {
                text,
                stem: None,
                tags: 0,
                read_as: None,
                pause,
            })
            .collect()
    }

    fn asked(line: &str) -> Option<Vec<String>> {
        let w = words(line);
        question_clause(&w).map(|r| w[r].iter().map(|w| w.text.clone()).collect())
    }

    #[test]
    fn a_count_after_its_thing_is_chat_shorthand_at_the_end_of_a_clause() {
        let after = |line: &str, i: usize| quantity_after(&words(line), i);
        assert_eq!(after("ale 2", 0), Some(2));
        assert_eq!(after("stew x3 pls", 0), Some(3));
        assert_eq!(after("ale 2, and bread", 0), Some(2));
        // A number that goes on counts something else; a word is not shorthand.
        assert_eq!(after("room 1 nite", 0), None);
        assert_eq!(after("ale two", 0), None);
        assert_eq!(after("ale, 2 bread", 0), None);
        assert_eq!(after("ale", 0), None);
    }

    #[test]
    fn nothing_refuses_what_follows_unless_it_keeps_it() {
        let refused = |line: &str, j: usize| refuses(&words(line), j);
        assert!(refused("soup, nothing with meat", 1));
        assert!(refused("no meat", 0));
        assert!(!refused("nothing but ale", 0));
        assert!(!refused("nothing like a hot bath", 0));
        // Last in the line, with no word after it to look at: still a refusal, and no panic.
        assert!(refused("nothing", 0));
        assert!(!refused("soup with meat", 1));
    }

    #[test]
    fn the_clause_that_asks_is_the_one_the_question_mark_ends_or_a_first_that_opens_like_one() {
        let said = |s: &str| Some(s.split(' ').map(String::from).collect::<Vec<_>>());
        assert_eq!(asked("any rooms? we are five"), said("any rooms"));
        assert_eq!(asked("we are five. any rooms?"), said("any rooms"));
        assert_eq!(
            asked("is it cold tonight, my coat is in the river"),
            said("is it cold tonight")
        );
        assert_eq!(asked("where is the smith"), said("where is the smith"));
        assert_eq!(
            asked("some broth for her? and water"),
            said("some broth for her ? and water")
        );
        assert_eq!(
            asked("any stew? and bread, we are starving"),
            said("any stew ? and bread")
        );
        assert_eq!(asked("any stew? bread is fine"), said("any stew"));
        // A question that goes on after a pause keeps its first part; a statement does not.
        assert_eq!(
            asked("how far is the temple, and is the way steep? my knees hate hills"),
            said("how far is the temple and is the way steep")
        );
        assert_eq!(
            asked("we came from the capital, and any rooms?"),
            said("and any rooms")
        );
        // A statement asks nothing: every mention counts alike.
        assert_eq!(asked("my coat is in the river, it is cold"), None);
        assert_eq!(asked(""), None);
    }

    #[test]
    fn several_utterances_are_said_as_sentences() {
        let turn = |u: &[&str]| sentences(&u.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(turn(&["hail, friend", "a room?"]), "hail, friend. a room?");
        assert_eq!(turn(&["welcome!", "a room?"]), "welcome! a room?");
        assert_eq!(turn(&["one"]), "one");
        assert_eq!(turn(&[]), "");
    }
}
