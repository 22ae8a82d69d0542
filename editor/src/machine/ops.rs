//! Edits of one machine, as plain functions on its asset, layout and comments: what the graph
//! editor and the inspector do, testable without a window.
//!
//! **Invariants.** An edit keeps every reference inside the machine true: renaming a state
//! renames the transitions into it and `initial`, and keeps the library state it had (a state
//! whose code was implied by its name gets it written out when the new name would imply
//! another); deleting states deletes the transitions into them; pasted and added states get
//! names no other state has.

use crate::sidecar::Layout;
use ensemble_compiler::formats::print::{self, Comments, Seg};
use ensemble_compiler::formats::ron::implied_code;
use ensemble_compiler::formats::ron::{MachineAsset, ModifierValue, StateAsset};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// The state a machine starts in: `initial`, or the one named `Start`.
pub fn initial(m: &MachineAsset) -> &str {
    m.initial.as_deref().unwrap_or("Start")
}

/// The library state a state runs: written, or implied by its name.
pub fn code(s: &StateAsset) -> &str {
    s.code.as_deref().unwrap_or_else(|| implied_code(&s.name))
}

pub fn index_of(m: &MachineAsset, name: &str) -> Option<usize> {
    m.states.iter().position(|s| s.name == name)
}

/// `base` if no state has it, else `base` with the next free number (`Goto1` -> `Goto2`).
pub fn unique_name(base: &str, taken: &dyn Fn(&str) -> bool) -> String {
    let base = if base.trim().is_empty() {
        "State"
    } else {
        base.trim()
    };
    if !taken(base) {
        return base.to_string();
    }
    let stem = base.trim_end_matches(|c: char| c.is_ascii_digit());
    let stem = if stem.is_empty() { base } else { stem };
    let start: u64 = base[stem.len()..].parse().map_or(2, |n: u64| n + 1);
    (start..)
        .map(|n| format!("{stem}{n}"))
        .find(|n| !taken(n))
        .expect("some number is free")
}

fn states_list() -> Vec<Seg> {
    vec![Seg::Field("states".into())]
}

/// Why a rename was refused.
pub fn check_name(m: &MachineAsset, old: &str, new: &str) -> Result<(), String> {
    let new = new.trim();
    if new.is_empty() {
        return Err("a state needs a name".into());
    }
    if new != old && index_of(m, new).is_some() {
        return Err(format!("`{new}` is already a state of {}", m.name));
    }
    Ok(())
}

/// Renames a state and every reference to it in the machine.
pub fn rename_state(
    m: &mut MachineAsset,
    layout: &mut Layout,
    comments: &mut Comments,
    old: &str,
    new: &str,
) -> Result<(), String> {
    let new = new.trim();
    if old == new {
        return Ok(());
    }
    check_name(m, old, new)?;
    let i = index_of(m, old).ok_or_else(|| format!("no state `{old}`"))?;
    let s = &mut m.states[i];
    if s.code.is_none() && implied_code(new) != implied_code(old) {
        s.code = Some(implied_code(old).to_string());
    }
    s.name = new.to_string();
    for s in &mut m.states {
        for (_, target) in &mut s.on {
            if target == old {
                *target = new.to_string();
            }
        }
    }
    match m.initial.as_deref() {
        Some(i) if i == old => m.initial = Some(new.to_string()),
        None if old == "Start" => m.initial = Some(new.to_string()),
        _ => {}
    }
    if m.initial.as_deref() == Some("Start") && new == "Start" {
        m.initial = None;
    }
    layout.rename(old, new);
    comments.rename(
        &states_list(),
        &print::item_literal(old),
        &print::item_literal(new),
    );
    Ok(())
}

/// Deletes states and the transitions into them.
pub fn delete_states(m: &mut MachineAsset, layout: &mut Layout, names: &BTreeSet<String>) {
    m.states.retain(|s| !names.contains(&s.name));
    for s in &mut m.states {
        s.on.retain(|(_, target)| !names.contains(target));
    }
    for n in names {
        layout.remove(n);
    }
}

/// Adds a state running `code` (named after it, numbered if taken) at `at`; returns its name.
pub fn add_state(
    m: &mut MachineAsset,
    layout: &mut Layout,
    code: &str,
    modifier: Option<ModifierValue>,
    at: [f32; 2],
) -> String {
    let name = unique_name(code, &|n| index_of(m, n).is_some());
    let state = StateAsset {
        code: (implied_code(&name) != code).then(|| code.to_string()),
        name: name.clone(),
        modifier,
        params: Default::default(),
        on: Vec::new(),
    };
    m.states.push(state);
    layout.set(&name, at);
    name
}

/// Where a new transition of `state` goes until the designer picks: the first state after it
/// that it has no transition to yet, else the next state, and the initial state only when
/// nothing else is there (a transition back to the start is seldom what is meant).
pub fn next_target(m: &MachineAsset, state: &str) -> String {
    let Some(i) = index_of(m, state) else {
        return initial(m).to_string();
    };
    let s = &m.states[i];
    let n = m.states.len();
    // The states after it, then those before it, never itself nor the initial state.
    let order = || {
        (1..n)
            .map(move |k| &m.states[(i + k) % n])
            .filter(|t| t.name != initial(m))
    };
    order()
        .find(|t| !s.on.iter().any(|(_, to)| *to == t.name))
        .or_else(|| order().next())
        .or_else(|| m.states.get((i + 1) % n).filter(|_| n > 1))
        .map_or_else(|| s.name.clone(), |t| t.name.clone())
}

/// Makes `name` the initial state (written only when it is not `Start`).
pub fn set_initial(m: &mut MachineAsset, name: &str) {
    m.initial = if name == "Start" && index_of(m, "Start").is_some() {
        None
    } else {
        Some(name.to_string())
    };
}

/// An event for a new transition of `state`: the first event its library state raises that it
/// does not handle yet, else `Event`, numbered to be unique within the state.
pub fn new_event(state: &StateAsset, raises: Option<&[String]>) -> String {
    let used: BTreeSet<&str> = state.on.iter().map(|(e, _)| e.as_str()).collect();
    if let Some(e) = raises
        .into_iter()
        .flatten()
        .find(|e| !used.contains(e.as_str()))
    {
        return e.clone();
    }
    unique_name("Event", &|n| used.contains(n))
}

/// What copy puts on the clipboard: states and where they were drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "EnsembleStates", deny_unknown_fields)]
pub struct Clip {
    pub states: Vec<StateAsset>,
    #[serde(default)]
    pub at: Vec<(String, f32, f32)>,
}

impl Clip {
    pub fn of(m: &MachineAsset, layout: &Layout, names: &BTreeSet<String>) -> Clip {
        let states: Vec<StateAsset> = m
            .states
            .iter()
            .filter(|s| names.contains(&s.name))
            .cloned()
            .collect();
        let at = states
            .iter()
            .filter_map(|s| layout.get(&s.name).map(|[x, y]| (s.name.clone(), x, y)))
            .collect();
        Clip { states, at }
    }

    pub fn to_text(&self) -> String {
        print::print_plain(self)
    }

    pub fn from_text(text: &str) -> Option<Clip> {
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .ok()
    }
}

/// Pastes `clip` into `m`, `offset` away from where the states were: names made unique,
/// transitions among the pasted states following the new names, transitions to states that
/// this machine does not have dropped. Returns the new names.
pub fn paste(
    m: &mut MachineAsset,
    layout: &mut Layout,
    clip: &Clip,
    offset: [f32; 2],
) -> Vec<String> {
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut added = Vec::new();
    for s in &clip.states {
        let name = unique_name(&s.name, &|n| {
            index_of(m, n).is_some() || renamed.values().any(|v| v == n)
        });
        renamed.insert(s.name.clone(), name);
    }
    let existing: BTreeSet<String> = m.states.iter().map(|s| s.name.clone()).collect();
    for s in &clip.states {
        let name = renamed[&s.name].clone();
        let mut state = s.clone();
        if state.code.is_none() && implied_code(&name) != implied_code(&s.name) {
            state.code = Some(implied_code(&s.name).to_string());
        }
        state.name = name.clone();
        state.on =
            s.on.iter()
                .filter_map(|(e, t)| match renamed.get(t) {
                    Some(new) => Some((e.clone(), new.clone())),
                    None => existing.contains(t).then(|| (e.clone(), t.clone())),
                })
                .collect();
        m.states.push(state);
        let at = clip
            .at
            .iter()
            .find(|(n, _, _)| *n == s.name)
            .map_or([0.0, 0.0], |(_, x, y)| [*x, *y]);
        layout.set(&name, [at[0] + offset[0], at[1] + offset[1]]);
        added.push(name);
    }
    added
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A machine from its RON text (the tests of the machine editor write them so).
    pub(crate) fn machine(text: &str) -> MachineAsset {
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(text)
            .unwrap()
    }

    const BUY: &str = r#"// The buyer.
Machine(
    name: "BuyTicketAtCounter",
    states: [
        (name: "Start", on: [("Empty", "Goto1")]),
        // Walk up.
        (name: "Goto1", modifier: "CounterFront", on: [("ReachedLocation", "Talk")]),
        (name: "Talk", code: "TalkStateMachine", modifier: "BuyTicket", on: [("EndStateMachine", "Goto1"), ("StateMachineFailed", "Finish")]),
        (name: "Finish"),
    ],
)
"#;

    #[test]
    fn renaming_a_state_renames_every_reference_and_keeps_its_code_and_comment() {
        let mut m = machine(BUY);
        let mut layout = Layout::default();
        layout.set("Goto1", [5.0, 5.0]);
        let mut comments = Comments::of(BUY);
        rename_state(&mut m, &mut layout, &mut comments, "Goto1", "WalkUp").unwrap();
        assert_eq!(m.states[1].name, "WalkUp");
        assert_eq!(
            m.states[1].code.as_deref(),
            Some("Goto"),
            "the code was implied"
        );
        assert_eq!(m.states[0].on[0].1, "WalkUp");
        assert_eq!(m.states[2].on[0].1, "WalkUp");
        assert_eq!(layout.get("WalkUp"), Some([5.0, 5.0]));
        let text = print::print(&m, &comments);
        assert!(text.contains("        // Walk up.\n        (name: \"WalkUp\", code: \"Goto\""));
        // Renaming to a name that implies the same code writes nothing extra.
        rename_state(&mut m, &mut layout, &mut comments, "Finish", "Finish2").unwrap();
        assert_eq!(m.states[3].code, None);
        assert_eq!(m.states[2].on[1].1, "Finish2");
    }

    #[test]
    fn renaming_start_keeps_it_initial() {
        let mut m = machine(BUY);
        let (mut l, mut c) = (Layout::default(), Comments::default());
        rename_state(&mut m, &mut l, &mut c, "Start", "Begin").unwrap();
        assert_eq!(initial(&m), "Begin");
        assert_eq!(m.states[0].code.as_deref(), Some("Start"));
        rename_state(&mut m, &mut l, &mut c, "Begin", "Start").unwrap();
        assert_eq!(m.initial, None, "back to the implicit initial state");
    }

    #[test]
    fn renames_that_would_merge_states_are_refused() {
        let mut m = machine(BUY);
        let (mut l, mut c) = (Layout::default(), Comments::default());
        assert!(rename_state(&mut m, &mut l, &mut c, "Goto1", "Talk").is_err());
        assert!(rename_state(&mut m, &mut l, &mut c, "Goto1", "  ").is_err());
        assert_eq!(m, machine(BUY));
    }

    #[test]
    fn deleting_states_deletes_the_transitions_into_them() {
        let mut m = machine(BUY);
        let mut l = Layout::default();
        delete_states(&mut m, &mut l, &["Goto1".to_string()].into());
        assert_eq!(m.states.len(), 3);
        assert!(m.states[0].on.is_empty());
        assert_eq!(
            m.states[1].on,
            vec![("StateMachineFailed".into(), "Finish".into())]
        );
    }

    #[test]
    fn added_states_are_named_after_their_code() {
        let mut m = machine(BUY);
        let mut l = Layout::default();
        assert_eq!(add_state(&mut m, &mut l, "Goto", None, [0.0, 0.0]), "Goto");
        assert_eq!(add_state(&mut m, &mut l, "Goto", None, [0.0, 0.0]), "Goto2");
        assert_eq!(
            add_state(&mut m, &mut l, "Finish", None, [0.0, 0.0]),
            "Finish2"
        );
        for s in &m.states[4..] {
            assert_eq!(code(s), implied_code(&s.name));
        }
        assert_eq!(
            unique_name("Goto1", &|n| n == "Goto1" || n == "Goto2"),
            "Goto3"
        );
    }

    #[test]
    fn copy_paste_makes_names_unique_and_keeps_internal_transitions() {
        let mut m = machine(BUY);
        let mut l = Layout::default();
        l.set("Goto1", [100.0, 0.0]);
        let names: BTreeSet<String> = ["Goto1".to_string(), "Talk".to_string()].into();
        let clip = Clip::from_text(&Clip::of(&m, &l, &names).to_text()).unwrap();
        let added = paste(&mut m, &mut l, &clip, [40.0, 40.0]);
        assert_eq!(added, vec!["Goto2", "Talk2"]);
        let goto2 = &m.states[index_of(&m, "Goto2").unwrap()];
        assert_eq!(goto2.on, vec![("ReachedLocation".into(), "Talk2".into())]);
        let talk2 = &m.states[index_of(&m, "Talk2").unwrap()];
        // To the pasted copy, and to Finish which this machine has.
        assert_eq!(
            talk2.on,
            vec![
                ("EndStateMachine".into(), "Goto2".into()),
                ("StateMachineFailed".into(), "Finish".into())
            ]
        );
        assert_eq!(l.get("Goto2"), Some([140.0, 40.0]));
        // Into another machine, transitions to states it lacks are dropped.
        let mut other = machine("Machine(name: \"O\", states: [(name: \"Start\")])");
        paste(&mut other, &mut Layout::default(), &clip, [0.0, 0.0]);
        assert_eq!(other.states[1].name, "Goto1");
        assert_eq!(
            other.states[2].on,
            vec![("EndStateMachine".into(), "Goto1".into())]
        );
    }

    #[test]
    fn new_events_follow_what_the_library_state_raises() {
        let m = machine(BUY);
        let raises = vec![
            "EndStateMachine".to_string(),
            "StateMachineFailed".to_string(),
        ];
        assert_eq!(new_event(&m.states[2], Some(&raises)), "Event");
        assert_eq!(new_event(&m.states[3], Some(&raises)), "EndStateMachine");
    }
}
