//! Edits of an HMM space as plain functions of the asset (and its layout), so what a gesture
//! does is tested without a window: states added, deleted and connected, probabilities set,
//! rows normalised, the initial and disable states chosen.
//!
//! A state's row is its transitions p(s' | s). An empty row means "stays where it is" (p = 1
//! to itself), so the row of a state without transitions sums to 1; adding a transition to it
//! makes that self-loop explicit.

use crate::sidecar::Layout;
use ensemble_compiler::formats::spaces::{SpaceAsset, SpaceStateAsset};
use std::collections::BTreeSet;

/// How far a row may be from 1 and still count as normalised (the compiler's tolerance).
/// One edit made in the graph, applied after it is drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    AddState {
        at: [f32; 2],
        from: Option<From>,
        /// Where the states without a layout position are drawn (by the auto-layout): kept
        /// there, so adding a state moves none the designer has not moved.
        keep: Vec<(String, [f32; 2])>,
    },
    Delete(BTreeSet<String>),
    Duplicate(BTreeSet<String>),
    SetP {
        state: String,
        index: usize,
        p: f64,
    },
    AddTransition {
        from: String,
        to: String,
    },
    RemoveTransition {
        state: String,
        index: usize,
    },
    Retarget {
        state: String,
        index: usize,
        to: String,
    },
    Normalise(String),
    NormaliseAll,
    SetInitial(String),
    SetDisable(Option<String>),
    Move(Vec<(String, [f32; 2])>),
    /// Replace the layout with the auto-layout.
    Arrange,
    /// A comment or group on the canvas (kept in the layout sidecar).
    Canvas(crate::graph::comments::CanvasEdit),
}

pub const TOLERANCE: f64 = 1e-6;

/// Probabilities are kept to four decimals: enough for any design, and they print short.
pub fn round_p(p: f64) -> f64 {
    (p * 1e4).round() / 1e4
}

pub fn index_of(sp: &SpaceAsset, name: &str) -> Option<usize> {
    sp.states.iter().position(|s| s.name == name)
}

/// The sum of a state's row (1 for a state without transitions: it stays).
pub fn row_sum(st: &SpaceStateAsset) -> f64 {
    if st.to.is_empty() {
        1.0
    } else {
        st.to.iter().map(|(_, p)| *p).sum()
    }
}

pub fn is_normalised(st: &SpaceStateAsset) -> bool {
    let s = row_sum(st);
    s.is_finite() && (s - 1.0).abs() <= TOLERANCE
}

/// Rounds every probability of `st` to four decimals and puts what rounding lost on the
/// largest, so the row sums to 1 within [`TOLERANCE`].
fn settle(st: &mut SpaceStateAsset) {
    for (_, p) in &mut st.to {
        *p = round_p(*p);
    }
    let residual = 1.0 - st.to.iter().map(|(_, p)| *p).sum::<f64>();
    if let Some((_, p)) = st
        .to
        .iter_mut()
        .max_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(std::cmp::Ordering::Equal))
    {
        *p = round_p(*p + residual);
    }
}

/// Scales a state's row to sum to 1 (an all-zero row becomes uniform).
pub fn normalise(st: &mut SpaceStateAsset) {
    if st.to.is_empty() {
        return;
    }
    let sum: f64 = st
        .to
        .iter()
        .map(|(_, p)| if p.is_finite() { p.max(0.0) } else { 0.0 })
        .sum();
    let n = st.to.len() as f64;
    for (_, p) in &mut st.to {
        let clean = if p.is_finite() { p.max(0.0) } else { 0.0 };
        *p = if sum > 0.0 { clean / sum } else { 1.0 / n };
    }
    settle(st);
}

/// Normalises every row that is not; returns how many it changed.
pub fn normalise_all(sp: &mut SpaceAsset) -> usize {
    let mut n = 0;
    for st in &mut sp.states {
        if !is_normalised(st) {
            normalise(st);
            n += 1;
        }
    }
    n
}

/// A name for a new state, unused in `sp`.
pub fn fresh_name(sp: &SpaceAsset, base: &str) -> String {
    crate::form_widgets::unique_name(sp.states.iter().map(|s| s.name.as_str()), base)
}

/// Adds a transition `from -> to`, keeping the row a distribution: the new transition gets an
/// equal share, the others are scaled down (a row that stays implicitly keeps its self-loop).
/// Returns whether it added one (a transition that exists already is not added twice).
pub fn add_transition(sp: &mut SpaceAsset, from: &str, to: &str) -> bool {
    let Some(i) = index_of(sp, from) else {
        return false;
    };
    let st = &mut sp.states[i];
    if st.to.iter().any(|(t, _)| t == to) {
        return false;
    }
    if st.to.is_empty() {
        // An empty row stays where it is: its self-loop is written out first (and is all
        // there is when the self-loop is what was added).
        st.to.push((from.to_string(), 1.0));
        if from == to {
            return true;
        }
    }
    let n = st.to.len() as f64;
    let sum = row_sum(st);
    let share = if sum > 0.0 {
        sum / (n + 1.0)
    } else {
        1.0 / (n + 1.0)
    };
    for (_, p) in &mut st.to {
        *p *= n / (n + 1.0);
    }
    st.to.push((to.to_string(), share));
    if (sum - 1.0).abs() <= TOLERANCE {
        settle(st);
    } else {
        for (_, p) in &mut st.to {
            *p = round_p(*p);
        }
    }
    true
}

pub fn remove_transition(sp: &mut SpaceAsset, from: &str, index: usize) {
    if let Some(i) = index_of(sp, from)
        && index < sp.states[i].to.len()
    {
        sp.states[i].to.remove(index);
    }
}

/// Points transition `index` of `from` at `to` (merging into an existing one to `to`).
pub fn retarget(sp: &mut SpaceAsset, from: &str, index: usize, to: &str) {
    let Some(i) = index_of(sp, from) else { return };
    let st = &mut sp.states[i];
    if index >= st.to.len() {
        return;
    }
    if let Some(j) = st.to.iter().position(|(t, _)| t == to)
        && j != index
    {
        let p = st.to[index].1;
        st.to[j].1 = round_p(st.to[j].1 + p);
        st.to.remove(index);
    } else {
        st.to[index].0 = to.to_string();
    }
}

pub fn set_p(sp: &mut SpaceAsset, from: &str, index: usize, p: f64) {
    if let Some(i) = index_of(sp, from)
        && let Some(t) = sp.states[i].to.get_mut(index)
    {
        t.1 = round_p(p.clamp(0.0, 1.0));
    }
}

pub use crate::graph::viewer::From;

/// Adds a state at `at` (graph coordinates), connected as `from` says; returns its name. A new
/// state stays where it is (an empty row) until it is given transitions.
pub fn add_state(
    sp: &mut SpaceAsset,
    layout: &mut Layout,
    at: [f32; 2],
    from: Option<From>,
) -> String {
    let name = fresh_name(sp, "state");
    sp.states.push(SpaceStateAsset {
        name: name.clone(),
        expects: Vec::new(),
        action: None,
        to: Vec::new(),
    });
    layout.set(&name, at);
    match from {
        Some(From::Entry) => sp.initial = Some(name.clone()),
        Some(From::NewTransition(s)) => {
            add_transition(sp, &s, &name);
        }
        Some(From::Transition(s, j)) => retarget(sp, &s, j, &name),
        None => {}
    }
    if sp.initial.is_none() {
        sp.initial = Some(name.clone());
    }
    name
}

/// Deletes `names` and every transition into them; the initial or disable state, if deleted,
/// is unset. Rows that lose a transition keep their other probabilities (their sums show it).
pub fn delete_states(sp: &mut SpaceAsset, layout: &mut Layout, names: &BTreeSet<String>) {
    sp.states.retain(|s| !names.contains(&s.name));
    for st in &mut sp.states {
        st.to.retain(|(t, _)| !names.contains(t));
    }
    for s in [&mut sp.initial, &mut sp.disable] {
        if s.as_ref().is_some_and(|n| names.contains(n)) {
            *s = None;
        }
    }
    for n in names {
        layout.remove(n);
    }
}

/// Copies of `names` placed `offset` away, with fresh names; transitions among the copies
/// follow them, transitions out of them keep their targets. Returns the new names.
pub fn duplicate(
    sp: &mut SpaceAsset,
    layout: &mut Layout,
    names: &BTreeSet<String>,
    offset: [f32; 2],
) -> Vec<String> {
    let originals: Vec<SpaceStateAsset> = sp
        .states
        .iter()
        .filter(|s| names.contains(&s.name))
        .cloned()
        .collect();
    let mut renamed = Vec::new();
    for s in &originals {
        let new = fresh_name(sp, &s.name);
        // Reserve the name before the next one is chosen.
        sp.states.push(SpaceStateAsset {
            name: new.clone(),
            ..s.clone()
        });
        renamed.push((s.name.clone(), new));
    }
    let start = sp.states.len() - originals.len();
    for st in &mut sp.states[start..] {
        for (t, _) in &mut st.to {
            if let Some((_, new)) = renamed.iter().find(|(old, _)| old == t) {
                *t = new.clone();
            }
        }
    }
    for (old, new) in &renamed {
        let [x, y] = layout.get(old).unwrap_or([0.0, 0.0]);
        layout.set(new, [x + offset[0], y + offset[1]]);
    }
    renamed.into_iter().map(|(_, n)| n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ensemble_compiler::formats::spaces::SpaceAsset;

    fn space() -> SpaceAsset {
        ron::Options::default()
            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
            .from_str(
                r#"Space(name: "haggle", initial: "idle", disable: "off", states: [
                    (name: "idle", to: [("idle", 0.5), ("asked", 0.4), ("off", 0.1)]),
                    (name: "asked", to: [("asked", 0.3), ("off", 0.3)]),
                    (name: "off"),
                ])"#,
            )
            .unwrap()
    }

    #[test]
    fn rows_sum_and_normalise() {
        let mut sp = space();
        assert!(is_normalised(&sp.states[0]));
        assert!(!is_normalised(&sp.states[1]));
        assert_eq!(row_sum(&sp.states[2]), 1.0, "no transitions: it stays");
        normalise(&mut sp.states[1]);
        assert_eq!(
            sp.states[1].to,
            vec![("asked".into(), 0.5), ("off".into(), 0.5)]
        );
        // Thirds round to four decimals and still sum to one.
        sp.states[0].to = vec![
            ("idle".into(), 1.0),
            ("asked".into(), 1.0),
            ("off".into(), 1.0),
        ];
        normalise(&mut sp.states[0]);
        assert!(is_normalised(&sp.states[0]), "{:?}", sp.states[0].to);
        assert!(
            sp.states[0]
                .to
                .iter()
                .all(|(_, p)| (*p - 1.0 / 3.0).abs() < 1e-3)
        );
        // An all-zero row becomes uniform; nothing is negative or NaN afterwards.
        sp.states[1].to = vec![("asked".into(), 0.0), ("off".into(), f64::NAN)];
        normalise(&mut sp.states[1]);
        assert_eq!(
            sp.states[1].to,
            vec![("asked".into(), 0.5), ("off".into(), 0.5)]
        );
        assert_eq!(normalise_all(&mut sp), 0);
    }

    #[test]
    fn a_new_transition_takes_an_equal_share_and_keeps_the_row_a_distribution() {
        let mut sp = space();
        assert!(add_transition(&mut sp, "off", "idle"));
        // The implicit self-loop became explicit.
        assert_eq!(
            sp.states[2].to,
            vec![("off".into(), 0.5), ("idle".into(), 0.5)]
        );
        assert!(!add_transition(&mut sp, "idle", "idle"), "exists already");
        // A state with no row yet, given its own self-loop: one row, not two (Xvfb finding).
        sp.states.push(SpaceStateAsset {
            name: "replied".into(),
            expects: Vec::new(),
            action: None,
            to: Vec::new(),
        });
        assert!(add_transition(&mut sp, "replied", "replied"));
        assert_eq!(
            sp.states.last().unwrap().to,
            vec![("replied".to_string(), 1.0)]
        );
        let mut sp = space();
        sp.states[0].to.truncate(2);
        sp.states[0].to[0].1 = 0.6;
        assert!(add_transition(&mut sp, "idle", "off"));
        assert!(is_normalised(&sp.states[0]), "{:?}", sp.states[0].to);
        // A row that was off stays as off as it was, scaled: the designer sees it.
        assert!(add_transition(&mut sp, "asked", "idle"));
        assert!(!is_normalised(&sp.states[1]));
    }

    #[test]
    fn deleting_states_removes_their_transitions_and_roles() {
        let mut sp = space();
        let mut layout = Layout::default();
        layout.set("off", [1.0, 1.0]);
        delete_states(&mut sp, &mut layout, &["off".to_string()].into());
        assert_eq!(sp.disable, None);
        assert!(
            sp.states
                .iter()
                .all(|s| s.to.iter().all(|(t, _)| t != "off"))
        );
        assert!(layout.get("off").is_none());
    }

    #[test]
    fn added_and_duplicated_states_have_fresh_names() {
        let mut sp = space();
        let mut layout = Layout::default();
        let a = add_state(
            &mut sp,
            &mut layout,
            [10.0, 20.0],
            Some(From::Transition("idle".into(), 1)),
        );
        assert_eq!(a, "state");
        assert_eq!(sp.states[0].to[1].0, "state");
        assert_eq!(layout.get("state"), Some([10.0, 20.0]));
        let copies = duplicate(
            &mut sp,
            &mut layout,
            &["idle".to_string()].into(),
            [30.0, 30.0],
        );
        assert_eq!(copies, ["idle2"]);
        let copy = &sp.states[index_of(&sp, "idle2").unwrap()];
        // Its self-loop follows the copy; its other transitions keep their targets.
        assert_eq!(copy.to[0].0, "idle2");
        assert_eq!(copy.to[1].0, "state");
        // Retargeting onto an existing transition merges the two.
        retarget(&mut sp, "idle", 1, "idle");
        assert_eq!(sp.states[0].to[0], ("idle".into(), 0.9));
    }
}
