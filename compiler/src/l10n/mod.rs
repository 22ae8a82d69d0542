//! Localisation (docs/formats/strings.md): every line a player can see or hear gets a stable
//! id; the project's `*.strings.ron` tables translate them per locale; `check` reports missing,
//! stale and slot-mismatched translations; the back end carries the lines and translations into
//! the program's string section; `ensemble strings` exchanges them with translators.
//!
//! Ids (stable = unchanged by any edit that leaves the line alone):
//! - a `Say` text: `Machine/State`; each line of a `OneOff` (and each canned greeting of a
//!   `Salutation`): `Machine/State/N`, N counting from 1 in the order written. A designer pins
//!   an id by starting the line with `{#id}` (`"{#greet} Welcome!|Hello."`), which the line then
//!   keeps wherever its state moves;
//! - a sentence candidate: `Sentence/xxxxxxxx`, the hash of the sentence state's name and the
//!   candidate's text (`speech::candidate_id`): a candidate keeps its id as long as it is
//!   generated at all, whatever else the sentence file changes; a sentence state translated as
//!   one line (`translate: One`) is the line `Sentence`.

mod check;
pub mod exchange;
mod hmm;
pub mod round_trip;
mod table;

use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::{Handle, Modifier, Module, SentenceState, State};
use crate::source::{SourceMap, Span};
use ensemble_runtime::hpmm::Model;
use ensemble_runtime::hpmm::model::{Tallies, VariableId};
use ensemble_runtime::locale::{
    LineDef, LineIndex, LocaleDef, SlotValueDef, StringTable, Translation, WrittenDef,
};
use ensemble_runtime::program::{NameId, StateId};
use ensemble_runtime::speech::Part;
use ensemble_runtime::stdlib;
use std::collections::{BTreeMap, HashMap};

pub use table::write_table;

/// What kind of line it is (the export's `kind` column).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    /// A `Say` state's text.
    Say,
    /// One of a `OneOff` state's lines.
    OneOff,
    /// One of a `Salutation` state's canned greetings.
    Salutation,
    /// One kept candidate of a sentence state.
    Candidate,
    /// A sentence state translated as one line, whichever candidate is spoken.
    Sentence,
    /// One utterance variant of an HMM action.
    Reply,
    /// One variant of a named HMM output template.
    Template,
    /// A property value of an HMM concept, said where a template reads it.
    Value,
    /// A value a scene binds to a variable that sentence slots read (`Time = "noon"`).
    SlotValue,
}

impl LineKind {
    pub fn as_str(self) -> &'static str {
        match self {
            LineKind::Say => "say",
            LineKind::OneOff => "one-off",
            LineKind::Salutation => "salutation",
            LineKind::Candidate => "candidate",
            LineKind::Sentence => "sentence",
            LineKind::Reply => "reply",
            LineKind::Template => "template",
            LineKind::Value => "value",
            LineKind::SlotValue => "slot-value",
        }
    }

    /// Whether the line's translation is spoken as a sentence candidate (slots filled).
    fn is_generated(self) -> bool {
        matches!(self, LineKind::Candidate | LineKind::Sentence)
    }
}

/// Where a line is spoken from, for lowering.
#[derive(Clone, Debug)]
enum Owner {
    State(Handle<State>),
    /// Candidates (indices into the sentence state's) that speak this line.
    Sentence(Handle<SentenceState>, Vec<usize>),
    /// One of an action's utterance variants (its lines come in variant order).
    Action(Handle<crate::ir::hpmm::Action>),
    /// One of a named template's variants (in variant order).
    Template(Handle<crate::ir::hpmm::Template>),
    /// One of a concept's properties (in property order).
    Concept(Handle<crate::ir::hpmm::Concept>),
    /// A tally's `and`, then its units' words.
    Tally(Handle<crate::ir::hpmm::Variable>),
    /// A value bound to the variable (by name) that sentence slots read.
    SlotValue(String),
}

/// A line a player can see or hear, with what a translator needs to know about it.
#[derive(Clone, Debug)]
pub struct Line {
    pub id: String,
    /// The text as written; a candidate's with its slots as `{Name}`.
    pub source: String,
    pub kind: LineKind,
    /// The machine and state that say it (`SellTicket`, `Okay1`); for a sentence line, the
    /// sentence state's name as the state.
    pub machine: String,
    pub state: String,
    /// Agents of the project's scenes that may say it.
    pub speakers: Vec<String>,
    /// Its `{Slot}` names, sorted.
    pub slots: Vec<String>,
    /// A note for translators (which candidate, how many alternatives).
    pub note: String,
    /// Where the line is written (a state's modifier, a sentence state).
    pub span: Span,
    /// Whether the designer pinned its id.
    pub pinned: bool,
    owner: Owner,
}

impl Line {
    /// The slots a text (this line's translation) uses, as [`Line::slots`] names them; an
    /// HMM template's translation that does not parse is an error.
    pub fn slots_in(&self, text: &str) -> Result<Vec<String>, String> {
        match self.kind {
            LineKind::Reply | LineKind::Template => hmm::slots(text, self.span),
            _ => Ok(slots_of(text)),
        }
    }
}

/// What a rename renames, for [`rekeyed`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Renamed<'a> {
    /// A machine: its states' lines are `Machine/State[/N]`.
    Machine,
    /// A state of `machine`: its lines are `machine/State[/N]`.
    State { machine: &'a str },
    /// An HMM action: `action/N`.
    Action,
    /// An HMM template: `@template/N`.
    Template,
    /// An HMM concept: `concept.property`.
    Concept,
    /// An HMM tally's words: `variable.and`, `variable.unit`.
    Tally,
}

/// The id a translation keyed `id` moves to when `old` is renamed `new` (its line's path-based
/// id follows the name), or `None` when the rename does not move it. A table rewritten this way
/// keeps every translation with its line; pinned ids never move.
pub fn rekeyed(id: &str, what: Renamed<'_>, old: &str, new: &str) -> Option<String> {
    let numbered = |rest: &str| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit());
    match what {
        Renamed::Machine => {
            let rest = id.strip_prefix(old)?.strip_prefix('/')?;
            // `State` or `State/N`.
            let ok = match rest.split_once('/') {
                None => !rest.is_empty(),
                Some((state, n)) => !state.is_empty() && numbered(n),
            };
            ok.then(|| format!("{new}/{rest}"))
        }
        Renamed::State { machine } => {
            let rest = id
                .strip_prefix(machine)?
                .strip_prefix('/')?
                .strip_prefix(old)?;
            let ok = rest.is_empty() || rest.strip_prefix('/').is_some_and(numbered);
            ok.then(|| format!("{machine}/{new}{rest}"))
        }
        Renamed::Action => {
            let n = id.strip_prefix(old)?.strip_prefix('/')?;
            numbered(n).then(|| format!("{new}/{n}"))
        }
        Renamed::Template => {
            let n = id.strip_prefix('@')?.strip_prefix(old)?.strip_prefix('/')?;
            numbered(n).then(|| format!("@{new}/{n}"))
        }
        Renamed::Concept | Renamed::Tally => {
            let property = id.strip_prefix(old)?.strip_prefix('.')?;
            (!property.is_empty()).then(|| format!("{new}.{property}"))
        }
    }
}

// Defined with the runtime's line ids so that every stage (HMM templates too) strips pins
// without importing this module.
pub use ensemble_runtime::locale::split_pin;

/// The text of a `Say`/`OneOff` modifier without its pinned ids, as the runtime speaks it.
pub fn without_pins(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("{#") {
        return std::borrow::Cow::Borrowed(text);
    }
    let parts: Vec<&str> = text.split('|').map(|l| split_pin(l).1).collect();
    std::borrow::Cow::Owned(parts.join("|"))
}

/// The `{Slot}` names a line uses, sorted, each once.
pub fn slots_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        let Some(close) = after.find('}') else { break };
        let name = after[..close].trim();
        if !name.is_empty() && !name.starts_with('#') {
            out.push(name.to_string());
        }
        rest = &after[close + 1..];
    }
    out.sort();
    out.dedup();
    out
}

/// Which library state a state runs, by name.
fn code_name<'m>(module: &'m Module, state: &State) -> Option<&'m str> {
    state.code.map(|c| module.library[c].name.as_str())
}

/// The agents that may run each machine: the scene agents whose machine is it or hosts it,
/// directly or through child machines.
fn speakers(module: &Module) -> HashMap<String, Vec<String>> {
    let mut hosts: HashMap<String, Vec<String>> = HashMap::new();
    for (_, machine) in module.machines.iter() {
        for &s in &machine.states {
            if let Modifier::Machine(child) = module.states[s].modifier {
                hosts
                    .entry(machine.name.text.clone())
                    .or_default()
                    .push(module.machines[child].name.text.clone());
            }
        }
    }
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    for (_, scene) in module.scenes.iter() {
        for agent in &scene.agents {
            let Some(m) = agent.machine else { continue };
            let mut stack = vec![module.machines[m].name.text.clone()];
            let mut seen = Vec::new();
            while let Some(name) = stack.pop() {
                if seen.contains(&name) {
                    continue;
                }
                if let Some(children) = hosts.get(&name) {
                    stack.extend(children.iter().cloned());
                }
                seen.push(name);
            }
            for name in seen {
                let list = out.entry(name).or_default();
                if !list.contains(&agent.name.text) {
                    list.push(agent.name.text.clone());
                }
            }
        }
    }
    for list in out.values_mut() {
        list.sort();
    }
    out
}

/// Every line of the module, in a stable order (machines and their states as written, then
/// sentence states and their candidates best first); duplicate ids are reported.
pub fn lines(module: &Module, diags: &mut Diagnostics) -> Vec<Line> {
    let speakers = speakers(module);
    let mut out = Vec::new();
    // Which dialog states speak each sentence state (context for its candidates).
    let mut spoken_by: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (_, machine) in module.machines.iter() {
        let who = speakers
            .get(&machine.name.text)
            .cloned()
            .unwrap_or_default();
        for &h in &machine.states {
            let state = &module.states[h];
            let code = code_name(module, state);
            let text = match &state.modifier {
                Modifier::Text(t) => t.as_str(),
                _ => "",
            };
            let (kind, alternatives): (LineKind, Vec<&str>) = match code {
                Some(stdlib::SAY) if !text.is_empty() => (LineKind::Say, vec![text]),
                Some(stdlib::ONE_OFF) => (
                    LineKind::OneOff,
                    text.split('|')
                        .map(str::trim)
                        .filter(|l| !l.is_empty())
                        .collect(),
                ),
                Some(stdlib::SALUTATION) => {
                    (LineKind::Salutation, stdlib::SALUTATION_LINES.to_vec())
                }
                Some(stdlib::DIALOG) => {
                    spoken_by
                        .entry(text.to_string())
                        .or_default()
                        .push((machine.name.text.clone(), state.name.text.clone()));
                    continue;
                }
                _ => continue,
            };
            let owner = format!("{}/{}", machine.name.text, state.name.text);
            let count = alternatives.len();
            for (n, alternative) in alternatives.into_iter().enumerate() {
                let (pin, source) = split_pin(alternative);
                let id = match (pin, kind) {
                    (Some(pin), _) => pin.to_string(),
                    (None, LineKind::Say) => owner.clone(),
                    (None, _) => format!("{owner}/{}", n + 1),
                };
                let note = match kind {
                    LineKind::Say => "said as written".to_string(),
                    _ if count == 1 => "said as written".to_string(),
                    LineKind::Salutation => {
                        format!("a greeting, one of {count} (standard library)")
                    }
                    _ => format!("one of {count} lines, chosen at random"),
                };
                out.push(Line {
                    id,
                    source: source.to_string(),
                    kind,
                    machine: machine.name.text.clone(),
                    state: state.name.text.clone(),
                    speakers: who.clone(),
                    slots: slots_of(source),
                    note,
                    span: state.modifier_span.unwrap_or(state.name.span),
                    pinned: pin.is_some(),
                    owner: Owner::State(h),
                });
            }
        }
    }
    for (h, s) in module.sentences.iter() {
        let dialog = spoken_by.get(&s.name.text).cloned().unwrap_or_default();
        let mut who: Vec<String> = dialog
            .iter()
            .flat_map(|(m, _)| speakers.get(m).cloned().unwrap_or_default())
            .collect();
        who.sort();
        who.dedup();
        let (machine, state) = dialog
            .first()
            .cloned()
            .unwrap_or_else(|| (String::new(), s.name.text.clone()));
        let slots: Vec<String> = {
            let mut v: Vec<String> = s.variables.iter().map(|v| v.text.clone()).collect();
            v.sort();
            v.dedup();
            v
        };
        let count = s.candidates.len();
        if s.translate_one {
            let Some(best) = s.candidates.first() else {
                continue;
            };
            out.push(Line {
                id: s.name.text.clone(),
                source: best.template.clone(),
                kind: LineKind::Sentence,
                machine,
                state,
                speakers: who,
                slots,
                note: format!(
                    "sentence state {}: one line for its {count} generated candidates (the best shown)",
                    s.name.text
                ),
                span: s.span,
                pinned: false,
                owner: Owner::Sentence(h, (0..count).collect()),
            });
            continue;
        }
        for (k, c) in s.candidates.iter().enumerate() {
            out.push(Line {
                id: format!("{}/{:08x}", s.name.text, c.id),
                source: c.template.clone(),
                kind: LineKind::Candidate,
                machine: machine.clone(),
                state: state.clone(),
                speakers: who.clone(),
                slots: slots.clone(),
                note: candidate_note(&s.name.text, k, count, s.spoken),
                span: s.span,
                pinned: false,
                owner: Owner::Sentence(h, vec![k]),
            });
        }
    }
    hmm::lines(module, &mut out);
    slot_values(module, &mut out);
    report_duplicates(&out, diags);
    out
}

/// The values scenes bind to variables that sentence slots read, each distinct value of a
/// variable once (`Time=noon`), in scene and agent order.
fn slot_values(module: &Module, out: &mut Vec<Line>) {
    let read: std::collections::BTreeSet<&str> = (module.sentences.iter())
        .flat_map(|(_, s)| s.variables.iter().map(|v| v.text.as_str()))
        .collect();
    let mut values: Vec<Line> = Vec::new();
    for (_, scene) in module.scenes.iter() {
        for agent in &scene.agents {
            for (variable, value) in &agent.variables {
                if !read.contains(variable.text.as_str()) || value.trim().is_empty() {
                    continue;
                }
                let id = format!("{}={value}", variable.text);
                if let Some(line) = values.iter_mut().find(|l| l.id == id) {
                    if !line.speakers.contains(&agent.name.text) {
                        line.speakers.push(agent.name.text.clone());
                    }
                    continue;
                }
                values.push(Line {
                    id,
                    source: value.clone(),
                    kind: LineKind::SlotValue,
                    machine: scene.name.text.clone(),
                    state: variable.text.clone(),
                    speakers: vec![agent.name.text.clone()],
                    slots: Vec::new(),
                    note: format!(
                        "a value of {{{}}}, said inside generated lines where that slot is \
                         (a name, a time, a price: translate it as the slot's words need)",
                        variable.text
                    ),
                    span: variable.span,
                    pinned: false,
                    owner: Owner::SlotValue(variable.text.clone()),
                });
            }
        }
    }
    out.extend(values);
}

/// The translator's note on candidate `k` (from 0) of `count`, of which the first `spoken` are
/// what the runtime says (the score-gap rule's set, at most `choose_among`): the rest are kept
/// for the designer to pin, so a translator may give them less care.
fn candidate_note(state: &str, k: usize, count: usize, spoken: usize) -> String {
    let said = match (k < spoken, spoken) {
        (true, 1) => "the only one the runtime says".to_string(),
        (true, n) => format!("one of the {n} the runtime chooses among"),
        (false, 0 | 1) => "not said: the runtime says candidate 1 only".to_string(),
        (false, n) => format!("not said: the runtime chooses among candidates 1 to {n}"),
    };
    format!(
        "sentence state {state}: generated candidate {} of {count}; {said}",
        k + 1
    )
}

fn report_duplicates(lines: &[Line], diags: &mut Diagnostics) {
    let mut first: HashMap<&str, &Line> = HashMap::new();
    for line in lines {
        match first.get(line.id.as_str()) {
            None => {
                first.insert(&line.id, line);
            }
            Some(prev) => {
                // Point at the pinned one: that is the id the designer chose.
                let (here, there) = if line.pinned || !prev.pinned {
                    (line, *prev)
                } else {
                    (*prev, line)
                };
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateLineId,
                        format!("line id `{}` is given to two lines", line.id),
                    )
                    .at(here.span, format!("\"{}\" takes it again", here.source))
                    .related(there.span, format!("\"{}\" has it", there.source))
                    .note("a translation is found by its line's id: pin another `{#id}`"),
                );
            }
        }
    }
}

/// The frontend: reads the project's localisation settings and string tables into the module.
pub fn read_tables(sources: &SourceMap, module: &mut Module, diags: &mut Diagnostics) {
    module.strings = table::read(sources, diags);
}

/// Checks the tables against the project's lines. A line is a ranked sentence candidate, so
/// this runs after `nlg::rank`; it reads the IR (and the audio folder the manifest names).
pub fn check(sources: &SourceMap, module: &Module, diags: &mut Diagnostics) {
    let lines = lines(module, diags);
    check::check(sources, module, &lines, diags);
}

/// A candidate translation's text as parts: `{Slot}`s become the sentence state's slot
/// indices (a slot it does not have was reported by `check`; it is kept as text).
fn parts(text: &str, slots: &[String]) -> Vec<Part> {
    let mut parts = Vec::new();
    let mut rest = text;
    let mut literal = String::new();
    while let Some(open) = rest.find('{') {
        literal.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let slot = after.find('}').and_then(|close| {
            Some((
                close,
                slots.iter().position(|s| s == after[..close].trim())?,
            ))
        });
        match slot {
            Some((close, index)) => {
                if !literal.is_empty() {
                    parts.push(Part::Text(std::mem::take(&mut literal)));
                }
                parts.push(Part::Slot(index as u32));
                rest = &after[close + 1..];
            }
            None => {
                literal.push('{');
                rest = after;
            }
        }
    }
    literal.push_str(rest);
    if !literal.is_empty() {
        parts.push(Part::Text(literal));
    }
    parts
}

/// The program's string section: every line, the lines of each speaking state, the line of
/// each sentence candidate, and each table's translations (a slot-mismatched one is an error
/// and never gets here). Gives the HMM model's actions, templates and concepts their lines.
pub fn lower(
    module: &Module,
    state_ids: &HashMap<Handle<State>, StateId>,
    hpmm: &mut Model,
    tallies: &mut Tallies,
    intern: &mut dyn FnMut(&str) -> NameId,
) -> (StringTable, Vec<SlotValueDef>) {
    let lines = lines(module, &mut Diagnostics::default());
    let mut table = StringTable {
        lines: lines
            .iter()
            .map(|l| LineDef {
                id: l.id.clone(),
                source: l.source.clone(),
            })
            .collect(),
        ..StringTable::default()
    };
    let mut written: BTreeMap<StateId, Vec<LineIndex>> = BTreeMap::new();
    let mut by_candidate: HashMap<(usize, usize), LineIndex> = HashMap::new();
    let mut slot_values = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let index = LineIndex(i as u32);
        match &line.owner {
            Owner::State(h) => {
                if let Some(id) = state_ids.get(h) {
                    written.entry(*id).or_default().push(index);
                }
            }
            Owner::Sentence(h, candidates) => {
                for k in candidates {
                    by_candidate.insert((h.index(), *k), index);
                }
            }
            // Lines come in variant order, so pushing keeps them parallel to the variants.
            Owner::Action(h) => hpmm.actions[h.index()].lines.push(index),
            Owner::Template(h) => hpmm.templates[h.index()].lines.push(index),
            Owner::Concept(h) => hpmm.concepts[h.index()].lines.push(index),
            // `and`, then each unit's word.
            Owner::Tally(h) => {
                let v = VariableId(h.index() as u32);
                if let Some(t) = tallies.of(v) {
                    tallies.tallies[t].lines.push(index);
                }
            }
            Owner::SlotValue(variable) => slot_values.push(SlotValueDef {
                variable: intern(variable),
                line: index,
            }),
        }
    }
    table.written = written
        .into_iter()
        .map(|(state, lines)| WrittenDef { state, lines })
        .collect();
    for (h, s) in module.sentences.iter() {
        for k in 0..s.candidates.len() {
            // Every kept candidate has a line (each its own, or its state's one line).
            let line = by_candidate.get(&(h.index(), k)).copied();
            table.candidate_lines.push(line.unwrap_or(LineIndex(0)));
        }
    }
    if lines.is_empty() {
        table.candidate_lines.clear();
    }
    let position: HashMap<&str, usize> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (l.id.as_str(), i))
        .collect();
    for t in &module.strings.tables {
        if table.locales.iter().any(|l| l.name == t.locale.text) {
            continue;
        }
        let mut translated = vec![Translation::Missing; lines.len()];
        for entry in &t.entries {
            let Some(&i) = position.get(entry.id.text.as_str()) else {
                continue;
            };
            if entry.text.trim().is_empty() {
                continue;
            }
            let line = &lines[i];
            translated[i] = if matches!(line.kind, LineKind::Reply | LineKind::Template) {
                match hmm::translation(module, &entry.text, intern) {
                    Some(chunks) => Translation::Chunks(chunks),
                    None => continue,
                }
            } else if line.kind.is_generated() {
                let Owner::Sentence(h, _) = &line.owner else {
                    continue;
                };
                let slots: Vec<String> = module.sentences[*h]
                    .variables
                    .iter()
                    .map(|v| v.text.clone())
                    .collect();
                Translation::Parts(parts(&entry.text, &slots))
            } else {
                Translation::Text(entry.text.clone())
            };
        }
        table.locales.push(LocaleDef {
            name: t.locale.text.clone(),
            lines: translated,
        });
    }
    (table, slot_values)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The note says whether the runtime says the candidate: the spoken set, not `choose_among`.
    #[test]
    fn candidate_notes_say_which_lines_are_spoken() {
        let note = |k, spoken| candidate_note("S", k, 5, spoken);
        assert_eq!(
            note(0, 1),
            "sentence state S: generated candidate 1 of 5; the only one the runtime says"
        );
        assert_eq!(
            note(1, 2),
            "sentence state S: generated candidate 2 of 5; one of the 2 the runtime chooses among"
        );
        assert_eq!(
            note(1, 1),
            "sentence state S: generated candidate 2 of 5; not said: the runtime says candidate 1 only"
        );
        assert!(note(4, 3).ends_with("not said: the runtime chooses among candidates 1 to 3"));
    }

    #[test]
    fn pins_are_split_off() {
        assert_eq!(split_pin("{#greet} Welcome!"), (Some("greet"), "Welcome!"));
        assert_eq!(split_pin("Welcome!"), (None, "Welcome!"));
        assert_eq!(without_pins("{#a} OK.|Sure.|{#b}Fine."), "OK.|Sure.|Fine.");
        assert_eq!(without_pins("OK.|Sure."), "OK.|Sure.");
    }

    #[test]
    fn renames_move_exactly_the_ids_that_follow_the_name() {
        let m = Renamed::Machine;
        assert_eq!(
            rekeyed("SellTicket/Okay1/2", m, "SellTicket", "Sell").as_deref(),
            Some("Sell/Okay1/2")
        );
        assert_eq!(
            rekeyed("SellTicket/Ask", m, "SellTicket", "Sell").as_deref(),
            Some("Sell/Ask")
        );
        assert_eq!(rekeyed("SellTickets/Ask", m, "SellTicket", "Sell"), None);
        assert_eq!(rekeyed("SellTicket/a/b", m, "SellTicket", "Sell"), None);
        let s = Renamed::State {
            machine: "SellTicket",
        };
        assert_eq!(
            rekeyed("SellTicket/Okay1/2", s, "Okay1", "Fine").as_deref(),
            Some("SellTicket/Fine/2")
        );
        assert_eq!(
            rekeyed("SellTicket/Okay1", s, "Okay1", "Fine").as_deref(),
            Some("SellTicket/Fine")
        );
        assert_eq!(rekeyed("SellTicket/Okay10", s, "Okay1", "Fine"), None);
        assert_eq!(
            rekeyed("greet/1", Renamed::Action, "greet", "hail").as_deref(),
            Some("hail/1")
        );
        assert_eq!(
            rekeyed("greeting/1", Renamed::Action, "greet", "hail"),
            None
        );
        assert_eq!(
            rekeyed("@hedge/3", Renamed::Template, "hedge", "um").as_deref(),
            Some("@um/3")
        );
        assert_eq!(
            rekeyed("sword.price", Renamed::Concept, "sword", "blade").as_deref(),
            Some("blade.price")
        );
        assert_eq!(
            rekeyed("swords.price", Renamed::Concept, "sword", "blade"),
            None
        );
    }

    #[test]
    fn slots_are_found_once_and_sorted() {
        assert_eq!(slots_of("{B} to {A} and {B}"), vec!["A", "B"]);
        assert!(slots_of("no slots, {#pin} only").is_empty());
    }

    #[test]
    fn translated_slots_become_parts() {
        let slots = vec!["City".to_string()];
        assert_eq!(
            parts("Un billet pour {City}, merci.", &slots),
            vec![
                Part::Text("Un billet pour ".into()),
                Part::Slot(0),
                Part::Text(", merci.".into())
            ]
        );
        assert_eq!(
            parts("{Nope} x", &slots),
            vec![Part::Text("{Nope} x".into())]
        );
    }
}
