//! Renaming an item that other documents name, with every reference, as one edit: a location
//! (machines' walks, scenes, smart locations), an HMM space or one of its states (inspections,
//! dependencies, arbitration, self-modification), an estimator, an action, an accumulator, a
//! template, a lexicon category (inside patterns too), a concept, a situational variable
//! (inside templates too), a smart location, a proxy, a notification, or a script.
//!
//! Panels ask for it ([`crate::panel::Request::Rename`]) instead of changing the name
//! themselves, so the host records the item and its references as one undo step. Like every
//! project operation it returns the documents it changed with their states before.

use crate::document::{Changes, Content, DocState, Project};
use crate::names::ProjectNames;

use ensemble_compiler::formats::ron::AnyAsset;
use ensemble_compiler::formats::ron::SceneEventAsset;
use ensemble_compiler::formats::ron::{ModifierValue, ParamValueAsset};
use ensemble_compiler::formats::scripts::ScriptAsset;
use ensemble_compiler::formats::spaces::{ExprAsset, TrackerRuleAsset, VarTestAsset};
use ensemble_compiler::l10n::Renamed;
use ensemble_runtime::program::{ModifierKind, ParamKind};

/// What is renamed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    Location,
    SmartLocation,
    Proxy,
    /// A notification of the smart location named so.
    Notification {
        location: String,
    },
    Space,
    /// A state of the space named so.
    SpaceState {
        space: String,
    },
    Estimator,
    /// An action of `*.actions.ron` (what HMM states perform).
    Action,
    Accumulator,
    Template,
    Category,
    Concept,
    Variable,
    Script,
}

impl Named {
    /// What it is called in messages.
    pub fn noun(&self) -> &'static str {
        match self {
            Named::Location => "location",
            Named::SmartLocation => "smart location",
            Named::Proxy => "proxy",
            Named::Notification { .. } => "notification",
            Named::Space => "space",
            Named::SpaceState { .. } => "state",
            Named::Estimator => "estimator",
            Named::Action => "action",
            Named::Accumulator => "accumulator",
            Named::Template => "template",
            Named::Category => "category",
            Named::Concept => "concept",
            Named::Variable => "variable",
            Named::Script => "script",
        }
    }

    /// The names of this kind the project has now (the new name must not be one).
    fn taken(&self, project: &Project, names: &ProjectNames) -> Vec<String> {
        let more = crate::names::collect(project);
        match self {
            Named::Location => names.locations.clone(),
            Named::SmartLocation => more.smart_locations.into_iter().map(|s| s.name).collect(),
            Named::Proxy => more.proxies(),
            Named::Notification { location } => more
                .smart_location(location)
                .map(|s| s.notifications.clone())
                .unwrap_or_default(),
            // Spaces and accumulators are both arbitration inputs: one namespace.
            Named::Space | Named::Accumulator => more.arbitration_inputs(),
            Named::SpaceState { space } => more
                .space(space)
                .map(|s| s.states.clone())
                .unwrap_or_default(),
            Named::Estimator => more.estimators,
            Named::Action => more.actions,
            Named::Template => more.templates,
            Named::Category => more.categories,
            Named::Concept => more.concepts,
            Named::Variable => more.variables,
            Named::Script => more.scripts,
        }
    }
}

/// A name as the formats allow it: not empty, no surrounding blanks, and (for the names
/// written inside patterns, templates and `space.state` paths) no characters that would read
/// as syntax there.
pub fn check(what: &Named, new: &str) -> Result<(), String> {
    if new.trim().is_empty() {
        return Err(format!("a {} needs a name", what.noun()));
    }
    if new.trim() != new {
        return Err("a name cannot start or end with a space".into());
    }
    let reserved: &[char] = match what {
        Named::Space | Named::SpaceState { .. } => &['.', ' '],
        Named::Category => &[' ', '|', '&', '@', '*', '^', '$'],
        Named::Template | Named::Variable => &['{', '}', '|', '.', '@'],
        _ => &[],
    };
    if let Some(c) = new.chars().find(|c| reserved.contains(c)) {
        return Err(format!("a {} name cannot contain `{c}`", what.noun()));
    }
    Ok(())
}

/// Renames `old` to `new` and every reference to it; refuses (changing nothing) when `new` is
/// not a valid name or another item of the kind has it.
pub fn apply(
    project: &mut Project,
    names: &ProjectNames,
    what: &Named,
    old: &str,
    new: &str,
) -> Result<Changes, String> {
    if old == new {
        return Ok(Vec::new());
    }
    check(what, new)?;
    if what.taken(project, names).iter().any(|n| n == new) {
        return Err(format!("there is a {} called {new} already", what.noun()));
    }
    let ids: Vec<_> = project.live().map(|(i, _)| i).collect();
    let mut changes = Vec::new();
    for id in ids {
        let before = project.docs[id].state.clone();
        let state = &mut project.docs[id].state;
        rename_in(state, names, what, old, new);
        if *state != before {
            changes.push((id, before));
        }
    }
    if changes.is_empty() {
        return Err(format!("there is no {} called {old}", what.noun()));
    }
    Ok(changes)
}

/// Replaces `old` by `new` where `s` is exactly `old`.
fn swap(s: &mut String, old: &str, new: &str) {
    if s == old {
        *s = new.to_string();
    }
}

fn swap_all(v: &mut [String], old: &str, new: &str) {
    v.iter_mut().for_each(|s| swap(s, old, new));
}

/// `space` or `space.state` paths naming the space `old` (or its state `old` of `space`).
fn swap_path(p: &mut String, what: &Named, old: &str, new: &str) {
    let (space, state) = match p.split_once('.') {
        Some((a, b)) => (a.to_string(), Some(b.to_string())),
        None => (p.clone(), None),
    };
    match (what, state) {
        (Named::Space, state) if space == old => {
            *p = match state {
                Some(st) => format!("{new}.{st}"),
                None => new.to_string(),
            }
        }
        (Named::SpaceState { space: s }, Some(st)) if *s == space && st == old => {
            *p = format!("{space}.{new}")
        }
        _ => {}
    }
}

/// Renames the category `old` inside a pattern: `@old`, and `old` among `@a&old` conjunctions.
pub fn swap_in_pattern(pattern: &str, old: &str, new: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if let Some(cats) = word.strip_prefix('@') {
            let cats: Vec<&str> = cats
                .split('&')
                .map(|c| if c == old { new } else { c })
                .collect();
            out.push('@');
            out.push_str(&cats.join("&"));
        } else {
            out.push_str(word);
        }
        word.clear();
    };
    for c in pattern.chars() {
        if c.is_whitespace() || c == '|' {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Renames inside a template's `{...}` chunks: `{@old}` for a template, `{old}` and
/// `{old.property}` for a variable.
pub fn swap_in_template(text: &str, what: &Named, old: &str, new: &str) -> String {
    let (from, to): (Vec<String>, Vec<String>) = match what {
        Named::Template => (vec![format!("{{@{old}}}")], vec![format!("{{@{new}}}")]),
        Named::Variable => (
            vec![format!("{{{old}}}"), format!("{{{old}.")],
            vec![format!("{{{new}}}"), format!("{{{new}.")],
        ),
        _ => return text.to_string(),
    };
    let mut out = text.to_string();
    for (f, t) in from.iter().zip(&to) {
        out = out.replace(f, t);
    }
    out
}

fn walk_expr(e: &mut ExprAsset, f: &mut dyn FnMut(&mut ExprAsset)) {
    f(e);
    match e {
        ExprAsset::And(xs) | ExprAsset::Or(xs) | ExprAsset::Max(xs) => {
            xs.iter_mut().for_each(|x| walk_expr(x, f))
        }
        ExprAsset::Not(x) | ExprAsset::Scale(_, x) => walk_expr(x, f),
        _ => {}
    }
}

fn in_expr(e: &mut ExprAsset, what: &Named, old: &str, new: &str) {
    walk_expr(e, &mut |e| match (what, e) {
        (Named::Estimator, ExprAsset::Ev(n)) => swap(n, old, new),
        (Named::Action, ExprAsset::Did(n)) => swap(n, old, new),
        (Named::Concept, ExprAsset::Mentions(n)) => swap(n, old, new),
        (Named::Concept, ExprAsset::Var(_, VarTestAsset::IsA(c) | VarTestAsset::Holds(c))) => {
            swap(c, old, new)
        }
        (Named::Concept, ExprAsset::Var(_, VarTestAsset::Related(_, c))) => swap(c, old, new),
        (Named::Variable, ExprAsset::Var(v, _)) => swap(v, old, new),
        (Named::Category, ExprAsset::Match(p, _)) => *p = swap_in_pattern(p, old, new),
        (Named::Space | Named::SpaceState { .. }, ExprAsset::Inspect { of, .. }) => {
            of.iter_mut().for_each(|p| swap_path(p, what, old, new))
        }
        _ => {}
    });
}

fn in_script(s: &mut ScriptAsset, what: &Named, old: &str, new: &str) {
    if *what == Named::Script {
        swap(&mut s.name, old, new);
        if let Some(b) = &mut s.base {
            swap(b, old, new);
        }
    }
}

fn rename_in(state: &mut DocState, names: &ProjectNames, what: &Named, old: &str, new: &str) {
    let layout = &mut state.layout;
    let asset = match &mut state.content {
        Content::Asset(a) => a,
        Content::Workbook(s) => return in_script(s, what, old, new),
        _ => return,
    };
    match asset {
        // Actions', templates' and concepts' lines are keyed by their names: their
        // translations move with them.
        AnyAsset::Strings(table) => {
            let moved = match what {
                Named::Action => Some(Renamed::Action),
                Named::Template => Some(Renamed::Template),
                Named::Concept => Some(Renamed::Concept),
                Named::Variable => Some(Renamed::Tally),
                _ => None,
            };
            if let Some(moved) = moved {
                rekey(table, moved, old, new);
            }
            // Templates and variables are named inside lines and their translations.
            for entry in &mut table.lines {
                entry.source = swap_in_template(&entry.source, what, old, new);
                entry.text = swap_in_template(&entry.text, what, old, new);
            }
        }
        AnyAsset::Locations(l) if *what == Named::Location => l
            .locations
            .iter_mut()
            .for_each(|x| swap(&mut x.name, old, new)),
        AnyAsset::Machine(m) if *what == Named::Location => {
            for s in &mut m.states {
                let code = crate::machine::ops::code(s);
                let walks = names
                    .library(code)
                    .is_some_and(|l| l.modifier == ModifierKind::Location);
                // Location parameters (declared with `params`), single or listed; a
                // one-parameter state may write its value as `modifier:`.
                let declared = names.library(code).map_or(&[][..], |l| &l.params[..]);
                let located: Vec<String> = declared
                    .iter()
                    .filter(|p| p.ty.kind == ParamKind::Location)
                    .map(|p| p.name.clone())
                    .collect();
                let single = declared.len() == 1 && !located.is_empty();
                if let (true, Some(ModifierValue::Name(n))) = (walks || single, &mut s.modifier) {
                    swap(n, old, new);
                }
                for (key, value) in &mut s.params.0 {
                    if !located.contains(key) {
                        continue;
                    }
                    match value {
                        ParamValueAsset::Text(n) => swap(n, old, new),
                        ParamValueAsset::List(items) => {
                            for item in items {
                                if let ParamValueAsset::Text(n) = item {
                                    swap(n, old, new);
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        AnyAsset::Scene(scene) => {
            for a in &mut scene.agents {
                if *what == Named::Location {
                    swap(&mut a.at, old, new);
                    swap_all(&mut a.route, old, new);
                }
            }
            for e in &mut scene.events {
                match (what, e) {
                    (
                        Named::SmartLocation,
                        SceneEventAsset::Interact { location, .. }
                        | SceneEventAsset::Notify { location, .. },
                    ) => swap(location, old, new),
                    (Named::Proxy, SceneEventAsset::Push { proxy, .. }) => swap(proxy, old, new),
                    (
                        Named::Notification { location: at },
                        SceneEventAsset::Notify {
                            location,
                            notification,
                            ..
                        },
                    ) if location == at => swap(notification, old, new),
                    _ => {}
                }
            }
        }
        AnyAsset::SmartLocation(s) => match what {
            Named::Location => {
                swap(&mut s.at, old, new);
                for sp in &mut s.spawns {
                    swap(&mut sp.point, old, new);
                    swap_all(&mut sp.route, old, new);
                }
            }
            Named::SmartLocation => swap(&mut s.name, old, new),
            Named::Proxy => s
                .proxies
                .iter_mut()
                .for_each(|p| swap(&mut p.name, old, new)),
            Named::Notification { location } if *location == s.name => s
                .notifications
                .iter_mut()
                .for_each(|n| swap(&mut n.name, old, new)),
            Named::Script => s
                .scripts
                .iter_mut()
                .for_each(|c| swap(&mut c.script, old, new)),
            _ => {}
        },
        AnyAsset::Script(s) => in_script(s, what, old, new),
        AnyAsset::Space(sp) => {
            match what {
                Named::Space => swap(&mut sp.name, old, new),
                Named::SpaceState { space } if *space == sp.name => {
                    for st in &mut sp.states {
                        swap(&mut st.name, old, new);
                        st.to.iter_mut().for_each(|(t, _)| swap(t, old, new));
                    }
                    for s in [&mut sp.initial, &mut sp.disable].into_iter().flatten() {
                        swap(s, old, new);
                    }
                    layout.rename(old, new);
                }
                Named::Estimator => {
                    for st in &mut sp.states {
                        for e in &mut st.expects {
                            match e {
                                ensemble_compiler::formats::spaces::ExpectAsset::Evidence(n)
                                | ensemble_compiler::formats::spaces::ExpectAsset::Weighted(n, _) => {
                                    swap(n, old, new)
                                }
                            }
                        }
                    }
                }
                Named::Action => {
                    for st in &mut sp.states {
                        if let Some(a) = &mut st.action {
                            swap(a, old, new);
                        }
                    }
                }
                _ => {}
            }
            if let Some(dep) = &mut sp.enabled_by {
                dep.of.iter_mut().for_each(|p| swap_path(p, what, old, new));
            }
        }
        AnyAsset::Evidence(ev) => {
            for e in &mut ev.estimators {
                if *what == Named::Estimator {
                    swap(&mut e.name, old, new);
                }
                in_expr(&mut e.is, what, old, new);
            }
        }
        AnyAsset::Actions(a) => {
            for t in &mut a.templates {
                if *what == Named::Template {
                    swap(&mut t.name, old, new);
                }
                for v in &mut t.variants {
                    *v = swap_in_template(v, what, old, new);
                }
            }
            for act in &mut a.actions {
                match what {
                    Named::Action => swap(&mut act.name, old, new),
                    Named::Variable => {
                        act.bind.iter_mut().for_each(|(v, _)| swap(v, old, new));
                        swap_all(&mut act.unbind, old, new);
                        // The tally, and a variable whose concept goes on it.
                        for (t, item) in act.tally.iter_mut().chain(&mut act.tally_once) {
                            swap(t, old, new);
                            swap(item, old, new);
                        }
                    }
                    Named::Concept => {
                        act.bind.iter_mut().for_each(|(_, c)| swap(c, old, new));
                        (act.tally.iter_mut().chain(&mut act.tally_once))
                            .for_each(|(_, item)| swap(item, old, new));
                    }
                    Named::Space | Named::SpaceState { .. } => {
                        for (t, s) in &mut act.copy_belief {
                            swap_path(t, what, old, new);
                            swap_path(s, what, old, new);
                        }
                    }
                    _ => {}
                }
                for v in &mut act.say {
                    *v = swap_in_template(v, what, old, new);
                }
            }
            for acc in &mut a.accumulators {
                if matches!(what, Named::Accumulator | Named::Space) {
                    if *what == Named::Accumulator {
                        swap(&mut acc.name, old, new);
                    }
                    swap_all(&mut acc.inputs, old, new);
                }
            }
        }
        // Content tests name actions and scripts; a rename must not leave them testing nothing.
        AnyAsset::Test(t) => {
            match what {
                Named::Action => t.rename_action(old, new),
                Named::Script => t.rename_script(old, new),
                _ => false,
            };
        }
        AnyAsset::Chat(c) if matches!(what, Named::Accumulator | Named::Space) => {
            swap(&mut c.output, old, new)
        }
        AnyAsset::Lexicon(l) if *what == Named::Category => {
            for c in &mut l.categories {
                swap(&mut c.name, old, new);
                swap_all(&mut c.union, old, new);
                swap_all(&mut c.intersect, old, new);
                swap_all(&mut c.minus, old, new);
            }
        }
        AnyAsset::Concepts(c) => {
            for concept in &mut c.concepts {
                if *what == Named::Concept {
                    swap(&mut concept.name, old, new);
                    swap_all(&mut concept.is, old, new);
                    concept
                        .relations
                        .iter_mut()
                        .for_each(|(_, t)| swap(t, old, new));
                }
            }
            for v in &mut c.variables {
                if *what == Named::Variable {
                    swap(&mut v.name, old, new);
                }
                for t in &mut v.track {
                    if *what == Named::Estimator
                        && let Some(w) = &mut t.when
                    {
                        swap(w, old, new);
                    }
                    match (what, &mut t.rule) {
                        (
                            Named::Concept,
                            TrackerRuleAsset::Mention(kinds)
                            | TrackerRuleAsset::MentionEarlier(kinds)
                            | TrackerRuleAsset::MentionThirdLast(kinds)
                            | TrackerRuleAsset::MentionAfter { kinds, .. },
                        ) => swap_all(kinds, old, new),
                        (Named::Concept, TrackerRuleAsset::Bind(c))
                        | (Named::Concept, TrackerRuleAsset::Unheard { concept: c, .. }) => {
                            swap(c, old, new)
                        }
                        (Named::Variable, TrackerRuleAsset::Copy(v)) => swap(v, old, new),
                        _ => {}
                    }
                }
            }
        }
        _ => {}
    }
}

/// Moves a table's translations to their lines' new ids after `old` was renamed `new` (the
/// renames in `project_ops` and `rename` call it on every table); whether any moved.
pub fn rekey(
    table: &mut ensemble_compiler::formats::ron::StringsAsset,
    what: ensemble_compiler::l10n::Renamed<'_>,
    old: &str,
    new: &str,
) -> bool {
    let mut moved = false;
    for entry in &mut table.lines {
        if let Some(id) = ensemble_compiler::l10n::rekeyed(&entry.id, what, old, new) {
            entry.id = id;
            moved = true;
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn copy(sample: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fn copy_dir(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).unwrap();
            for e in std::fs::read_dir(from).unwrap() {
                let e = e.unwrap();
                if e.file_type().unwrap().is_dir() {
                    copy_dir(&e.path(), &to.join(e.file_name()));
                } else {
                    std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
                }
            }
        }
        copy_dir(
            &Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../samples")
                .join(sample),
            dir.path(),
        );
        let _ = std::fs::remove_dir_all(dir.path().join(".ensemble"));
        dir
    }

    fn clean(dir: &Path, p: &Project) {
        let c = ensemble_compiler::compile_path_with(dir, &p.overlay()).unwrap();
        assert!(
            !c.diagnostics.has_errors(),
            "{}",
            c.diagnostics.render(&c.sources, false)
        );
    }

    fn names(dir: &Path) -> ProjectNames {
        let c = ensemble_compiler::compile_path(dir).unwrap();
        crate::names::names_from(None, Some(&c))
    }

    #[test]
    fn patterns_and_templates_rename_only_whole_names() {
        assert_eq!(
            swap_in_pattern(
                "@pleasant * x|@pleasant-ish @copula&pleasant",
                "pleasant",
                "nice"
            ),
            "@nice * x|@pleasant-ish @copula&nice"
        );
        assert_eq!(
            swap_in_template(
                "{@hedge}, {the-item.price} {the-item} {the-items}",
                &Named::Variable,
                "the-item",
                "it"
            ),
            "{@hedge}, {it.price} {it} {the-items}"
        );
        assert_eq!(
            swap_in_template("{@hedge} {@hedges}", &Named::Template, "hedge", "um"),
            "{@um} {@hedges}"
        );
    }

    #[test]
    fn a_space_state_renamed_follows_into_inspections_dependencies_and_the_layout() {
        let dir = copy("innkeeper");
        let mut p = Project::open(dir.path()).unwrap();
        let n = names(dir.path());
        let doc = p
            .live()
            .find(
                |(_, d)| matches!(d.state.asset(), Some(AnyAsset::Space(s)) if s.name == "selling"),
            )
            .map(|(i, _)| i)
            .unwrap();
        p.docs[doc].state.layout.set("requested", [1.0, 2.0]);
        let changes = apply(
            &mut p,
            &n,
            &Named::SpaceState {
                space: "selling".into(),
            },
            "requested",
            "asked",
        )
        .unwrap();
        // The space itself, and the spaces and estimators that inspect it.
        assert!(changes.len() >= 2, "{changes:?}");
        assert_eq!(p.docs[doc].state.layout.get("asked"), Some([1.0, 2.0]));
        clean(dir.path(), &p);
        // Taken names and bad names are refused, and change nothing.
        let before: Vec<_> = p.docs.iter().map(|d| d.state.clone()).collect();
        assert!(apply(&mut p, &n, &Named::Space, "selling", "haggle").is_err());
        assert!(apply(&mut p, &n, &Named::Space, "selling", "sell.ing").is_err());
        assert!(apply(&mut p, &n, &Named::Estimator, "nope", "fine").is_err());
        let after: Vec<_> = p.docs.iter().map(|d| d.state.clone()).collect();
        assert_eq!(before, after);
    }

    #[test]
    fn estimators_actions_categories_and_concepts_rename_everywhere() {
        let dir = copy("innkeeper");
        let mut p = Project::open(dir.path()).unwrap();
        let n = names(dir.path());
        for (what, old, new) in [
            (Named::Estimator, "player-greeting", "player-hello"),
            (Named::Action, "glance", "look-over"),
            (Named::Category, "pleasant", "nice"),
            (Named::Concept, "weapon", "arms"),
            (Named::Accumulator, "respond", "reply"),
            (Named::Space, "haggle", "dicker"),
            (Named::Template, "hedge", "um"),
            (Named::Variable, "the-topic", "subject"),
            // A tally, a variable whose concept goes on it, a concept let once.
            (Named::Variable, "the-tab", "the-slate"),
            (Named::Variable, "the-dish", "the-plate"),
            (Named::Concept, "room", "chamber"),
        ] {
            apply(&mut p, &n, &what, old, new).unwrap_or_else(|e| panic!("{what:?}: {e}"));
            clean(dir.path(), &p);
        }
    }

    #[test]
    fn renamed_actions_templates_and_concepts_take_their_translations_along() {
        let dir = copy("innkeeper");
        let mut p = Project::open(dir.path()).unwrap();
        let n = names(dir.path());
        for (what, old, new) in [
            (Named::Action, "present-item", "offer-item"),
            (Named::Template, "hedge", "um"),
            (Named::Concept, "sword", "blade"),
        ] {
            apply(&mut p, &n, &what, old, new).unwrap_or_else(|e| panic!("{what:?}: {e}"));
        }
        let c = ensemble_compiler::compile_path_with(dir.path(), &p.overlay()).unwrap();
        let said: Vec<String> = c
            .diagnostics
            .iter()
            .map(|d| format!("{}: {}", d.code.as_str(), d.message))
            .collect();
        assert!(said.is_empty(), "nothing orphaned or missing: {said:?}");
        let table = p
            .live()
            .find_map(|(_, d)| match &d.state.content {
                Content::Asset(AnyAsset::Strings(t)) => Some(t.clone()),
                _ => None,
            })
            .unwrap();
        let text = |id: &str| {
            table
                .lines
                .iter()
                .find(|l| l.id == id)
                .map(|l| l.text.clone())
        };
        assert_eq!(
            text("offer-item/1").as_deref(),
            Some("moi avoir pour toi {the-item}")
        );
        assert_eq!(text("@um/3").as_deref(), Some("ben"));
        assert_eq!(text("blade.price").as_deref(), Some("une potion de soin"));
        assert_eq!(text("sword.price"), None);
    }

    #[test]
    fn a_location_renamed_follows_into_machines_scenes_and_smart_locations() {
        let dir = copy("airport");
        let mut p = Project::open(dir.path()).unwrap();
        let n = names(dir.path());
        let changes = apply(&mut p, &n, &Named::Location, "Entrance", "FrontDoor").unwrap();
        assert!(changes.len() >= 2);
        clean(dir.path(), &p);

        let dir = copy("shops");
        let mut p = Project::open(dir.path()).unwrap();
        let n = names(dir.path());
        let first = n.locations[0].clone();
        apply(&mut p, &n, &Named::Location, &first, "Renamed").unwrap();
        apply(&mut p, &n, &Named::SmartLocation, "bakery", "patisserie").unwrap();
        clean(dir.path(), &p);

        // Into location parameters, listed ones too.
        let dir = copy("../tests/fixtures/params-game");
        let mut p = Project::open(dir.path()).unwrap();
        let n = names(dir.path());
        apply(&mut p, &n, &Named::Location, "Bar", "Tavern").unwrap();
        clean(dir.path(), &p);
        let guard = p.docs[p.machine_doc("Guard").unwrap()]
            .state
            .machine()
            .unwrap();
        assert_eq!(
            guard.states[2].params.get("cover"),
            Some(&ParamValueAsset::List(vec![
                ParamValueAsset::Text("Gate".into()),
                ParamValueAsset::Text("Tavern".into())
            ]))
        );
    }
}
