//! From sources to IR scripts: read `*.script.ron` assets and workbooks into the row/cell
//! model, resolve templating (a script extends a base and sets meta-parameters, substituted as
//! text before parsing, 35.6), then parse every cell and resolve roles and states.

use super::cell::{self, ParseError};
use super::source::{Cell, Origin, RoleRow, RuleRow, ScriptAsset, ScriptSource};
use crate::diag::{Code, Diagnostic, Diagnostics, Severity};
use crate::front::ron::locate::{self, Seg};
use crate::ir::script::{Effects, Script, ScriptRole, ScriptRule, ScriptState, Termination};
use crate::ir::{Arena, Module};
use crate::source::{FileId, SourceMap, Span};
use std::collections::HashMap;

/// Reads a `*.script.ron` asset into rows and cells, locating every string.
pub fn from_ron(
    sources: &SourceMap,
    file: FileId,
    diags: &mut Diagnostics,
) -> Option<ScriptSource> {
    let asset: ScriptAsset = crate::front::ron::parse(sources, file, diags)?;
    let tree = locate::parse(&sources.get(file).text);
    let cell = |text: &str, path: &[Seg<'_>]| Cell {
        text: text.to_string(),
        origin: Origin::Ron(match &tree {
            Some(t) => Span::new(file, t.find(path)),
            None => Span::file_start(file),
        }),
    };
    let opt = |text: &str, path: &[Seg<'_>]| (!text.trim().is_empty()).then(|| cell(text, path));
    let roles = asset
        .roles
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let p = |f| [Seg::Field("roles"), Seg::Index(i), Seg::Field(f)];
            RoleRow {
                name: cell(&r.name, &p("name")),
                min: opt(&r.min, &p("min")),
                max: opt(&r.max, &p("max")),
                flags: opt(&r.flags, &p("flags")),
            }
        })
        .collect();
    let rules = asset
        .rules
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let p = |f| [Seg::Field("rules"), Seg::Index(i), Seg::Field(f)];
            RuleRow {
                origin: cell("", &[Seg::Field("rules"), Seg::Index(i)]),
                rule: opt(&r.rule, &p("rule")),
                role: opt(&r.role, &p("role")),
                state: opt(&r.state, &p("state")),
                precondition: opt(&r.precondition, &p("precondition")),
                action: opt(&r.action, &p("action")),
                target: opt(&r.target, &p("target")),
                parameters: opt(&r.parameters, &p("parameters")),
                add: opt(&r.add, &p("add")),
                delete: opt(&r.delete, &p("delete")),
                deferred_add: opt(&r.deferred_add, &p("deferred_add")),
                deferred_delete: opt(&r.deferred_delete, &p("deferred_delete")),
                on_error: opt(&r.on_error, &p("on_error")),
                next_state: opt(&r.next_state, &p("next_state")),
                terminate: opt(&r.terminate, &p("terminate")),
            }
        })
        .collect();
    Some(ScriptSource {
        file,
        name: cell(&asset.name, &[Seg::Field("name")]),
        initial_state: asset
            .initial_state
            .as_deref()
            .and_then(|s| opt(s, &[Seg::Field("initial_state")])),
        base: asset
            .base
            .as_deref()
            .and_then(|s| opt(s, &[Seg::Field("base")])),
        params: asset
            .params
            .iter()
            .enumerate()
            .map(|(i, (k, v))| {
                (
                    k.clone(),
                    cell(v, &[Seg::Field("params"), Seg::Index(i), Seg::Index(1)]),
                )
            })
            .collect(),
        supplies: asset
            .supplies
            .as_deref()
            .and_then(|s| opt(s, &[Seg::Field("supplies")])),
        roles,
        rules,
    })
}

/// Converts a workbook's script into the native asset (`ensemble import`).
pub fn to_asset(s: &ScriptSource) -> ScriptAsset {
    let t = |c: &Option<Cell>| c.as_ref().map(|c| c.text.clone()).unwrap_or_default();
    ScriptAsset {
        name: s.name.text.clone(),
        initial_state: s.initial_state.as_ref().map(|c| c.text.clone()),
        base: s.base.as_ref().map(|c| c.text.clone()),
        params: s
            .params
            .iter()
            .map(|(k, v)| (k.clone(), v.text.clone()))
            .collect(),
        supplies: s.supplies.as_ref().map(|c| c.text.clone()),
        roles: s
            .roles
            .iter()
            .map(|r| super::source::RoleAsset {
                name: r.name.text.clone(),
                min: t(&r.min),
                max: t(&r.max),
                flags: t(&r.flags),
            })
            .collect(),
        rules: s
            .rules
            .iter()
            .map(|r| super::source::RuleAsset {
                rule: t(&r.rule),
                role: t(&r.role),
                state: t(&r.state),
                precondition: t(&r.precondition),
                action: t(&r.action),
                target: t(&r.target),
                parameters: t(&r.parameters),
                add: t(&r.add),
                delete: t(&r.delete),
                deferred_add: t(&r.deferred_add),
                deferred_delete: t(&r.deferred_delete),
                on_error: t(&r.on_error),
                next_state: t(&r.next_state),
                terminate: t(&r.terminate),
            })
            .collect(),
    }
}

/// Meta-parameters used in a cell (`$name`).
pub fn placeholders(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'$' {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            if i > start + 1 {
                out.push(text[start..i].to_string());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Replaces the meta-parameter `name` (`$seats`) where it stands as a whole word, so `$n`
/// does not eat the start of `$name`.
pub fn substitute(text: &str, name: &str, value: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(name) {
        let after = &rest[i + name.len()..];
        let whole = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        out.push_str(&rest[..i]);
        out.push_str(if whole { value } else { name });
        rest = after;
    }
    out.push_str(rest);
    out
}

fn all_cells(s: &mut ScriptSource) -> Vec<&mut Cell> {
    let mut cells: Vec<&mut Cell> = Vec::new();
    for r in &mut s.roles {
        cells.push(&mut r.name);
        cells.extend([&mut r.min, &mut r.max, &mut r.flags].into_iter().flatten());
    }
    for r in &mut s.rules {
        cells.extend(r.cells_mut());
    }
    cells.extend(s.initial_state.as_mut());
    cells.extend(s.supplies.as_mut());
    cells
}

/// Resolves `base` chains: the derived script's rules come first (they take precedence), then
/// the base's; roles of the same name are overridden; parameters of the derived script win.
/// Returns the scripts to compile (templates with unset parameters are not compiled alone).
fn resolve_templates(scripts: Vec<ScriptSource>, diags: &mut Diagnostics) -> Vec<ScriptSource> {
    let names: Vec<String> = scripts.iter().map(|s| s.name.text.clone()).collect();
    let mut used_as_base = vec![false; scripts.len()];
    let mut out = Vec::new();
    // Each script's chain: itself, its base, the base's base, ...
    let mut chains: Vec<Vec<usize>> = Vec::new();
    for i in 0..scripts.len() {
        let mut merged = scripts[i].clone();
        let mut seen = vec![i];
        let mut cursor = i;
        while let Some(base) = scripts[cursor].base.clone() {
            let Some(b) = names.iter().position(|n| *n == base.text) else {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "script `{}` extends `{}`, which is not defined",
                        merged.name.text, base.text
                    ),
                );
                diags.push(base.locate(
                    crate::diag::suggest_note(d, &base.text, names.iter().map(String::as_str)),
                    None,
                    "no such script",
                ));
                break;
            };
            if seen.contains(&b) {
                let d = Diagnostic::error(
                    Code::RecursiveMachine,
                    format!(
                        "script `{}` extends itself through its bases",
                        merged.name.text
                    ),
                );
                diags.push(base.locate(d, None, "this base leads back"));
                break;
            }
            seen.push(b);
            used_as_base[b] = true;
            let base_src = &scripts[b];
            merged.rules.extend(base_src.rules.iter().cloned());
            for role in &base_src.roles {
                if !merged.roles.iter().any(|r| r.name.text == role.name.text) {
                    merged.roles.push(role.clone());
                }
            }
            for (k, v) in &base_src.params {
                if !merged.params.iter().any(|(k2, _)| k2 == k) {
                    merged.params.push((k.clone(), v.clone()));
                }
            }
            if merged.initial_state.is_none() {
                merged.initial_state = base_src.initial_state.clone();
            }
            if merged.supplies.is_none() {
                merged.supplies = base_src.supplies.clone();
            }
            cursor = b;
        }
        merged.base = None;
        out.push(merged);
        chains.push(seen);
    }
    // Substitute parameters; a script still holding unset ones is a template. A parameter set
    // to nothing counts as unset.
    let mut compiled = Vec::new();
    // Meta-parameters used by each merged script, to find the ones set but used nowhere.
    let mut used: Vec<Vec<String>> = Vec::new();
    for (i, mut s) in out.into_iter().enumerate() {
        let params = s.params.clone();
        let mut unset: Vec<(String, Cell)> = Vec::new();
        let mut uses = Vec::new();
        for c in all_cells(&mut s) {
            for p in placeholders(&c.text) {
                uses.push(p.clone());
                match params.iter().find(|(k, v)| *k == p && !v.is_blank()) {
                    Some((_, v)) => c.text = substitute(&c.text, &p, &v.text),
                    None => {
                        if !unset.iter().any(|(u, _)| *u == p) {
                            unset.push((p, c.clone()));
                        }
                    }
                }
            }
        }
        used.push(uses);
        if unset.is_empty() {
            compiled.push(s);
            continue;
        }
        if used_as_base[i] {
            continue; // a template: compiled through the scripts that extend it
        }
        // Nothing extends this script, so it is either a template nobody uses yet (a
        // warning) or a script meant to run that would silently be left out of the program:
        // one that sets the parameter to nothing, or extends a base.
        let (p, use_cell) = &unset[0];
        let blank = params.iter().find(|(k, v)| k == p && v.is_blank());
        let declared: Vec<&str> = params.iter().map(|(k, _)| k.as_str()).collect();
        let name = s.name.text.trim();
        let d = match blank {
            Some((_, empty)) => {
                let d = Diagnostic::error(
                    Code::UninstantiatedVariable,
                    format!("meta-parameter `{p}` of script `{name}` is used but its value is empty, and no script extends it"),
                )
                .note("type its value; as it is, the script would be left out of the program");
                let d = use_cell.relate(d, None, &format!("`{p}` is used here"));
                empty.locate(d, None, "empty value")
            }
            None if scripts[i].base.is_some() => {
                let d = Diagnostic::error(
                    Code::UninstantiatedVariable,
                    format!("script `{name}` extends a template but does not set its meta-parameter `{p}`"),
                )
                .note(format!("set it in the Script sheet (`{p} | value`) or the script's `params`; as it is, the script would be left out of the program"));
                let d = crate::diag::suggest_note(d, p, declared.iter().copied());
                let d = s.name.relate(d, None, &format!("script `{name}`"));
                use_cell.locate(d, None, "unset meta-parameter")
            }
            None => {
                let d = Diagnostic::warning(Code::UninstantiatedVariable, format!("script `{name}` uses meta-parameter `{p}` without a value, and no script extends it"))
                    .note("set it in the Script sheet (`$name | value`), or extend this template from another script");
                use_cell.locate(
                    crate::diag::suggest_note(d, p, declared.iter().copied()),
                    None,
                    "unset meta-parameter",
                )
            }
        };
        diags.push(d);
    }
    // A parameter a script sets that no cell of it, its bases or the scripts extending it uses:
    // most likely a misspelt name (an error when it is one edit from a parameter in use).
    for (x, script) in scripts.iter().enumerate() {
        let in_use: Vec<&str> = chains
            .iter()
            .zip(&used)
            .filter(|(chain, _)| chain.contains(&x))
            .flat_map(|(_, u)| u.iter().map(String::as_str))
            .collect();
        for (k, v) in &script.params {
            if in_use.contains(&k.as_str()) {
                continue;
            }
            let name = script.name.text.trim();
            let d = match crate::diag::suggest(k, in_use.iter().copied()) {
                Some(m) => Diagnostic::error(
                    Code::UnknownReference,
                    format!("script `{name}` sets meta-parameter `{k}`, which no cell uses"),
                )
                .note(format!("did you mean `{m}`?")),
                None => Diagnostic::warning(
                    Code::UnknownReference,
                    format!("script `{name}` sets meta-parameter `{k}`, which no cell uses"),
                )
                .note("remove it, or use it in a cell as `{k}`".replace("{k}", k)),
            };
            diags.push(v.locate(d, None, "set but never used"));
        }
    }
    compiled
}

fn parse_or_report<T>(
    cell: &Cell,
    result: Result<T, ParseError>,
    what: &str,
    diags: &mut Diagnostics,
) -> Option<T> {
    match result {
        Ok(v) => Some(v),
        Err(e) => {
            let d = Diagnostic::error(Code::Syntax, format!("cannot read {what}: {}", e.message));
            diags.push(cell.locate(d, Some(e.range), &e.message));
            None
        }
    }
}

fn effects(cell: &Option<Cell>, what: &str, diags: &mut Diagnostics) -> Effects {
    match cell {
        Some(c) => Effects {
            atoms: parse_or_report(c, cell::atoms(&c.text), what, diags).unwrap_or_default(),
            cell: Some(c.clone()),
        },
        None => Effects::default(),
    }
}

fn cardinality(
    cell: &Option<Cell>,
    role: &str,
    bound: &str,
    default: u16,
    diags: &mut Diagnostics,
) -> Option<u16> {
    let Some(c) = cell else { return Some(default) };
    let text = c.text.trim();
    match text.parse::<f64>() {
        Ok(x) if x >= 0.0 && x.fract() == 0.0 && x <= u16::MAX as f64 => Some(x as u16),
        _ => {
            let d = Diagnostic::error(
                Code::BadCardinality,
                format!("role `{role}`: {bound} `{text}` is not a whole number of actors"),
            );
            diags.push(c.locate(d, None, "expected 0, 1, 2, ..."));
            None
        }
    }
}

/// A cell that leads to a state: a Next State with its rule, or the initial state (no rule).
type Lead<'a> = (&'a Cell, Option<&'a RuleRow>);

/// Names of states that do not match: a Next State or initial state no rule is written for,
/// and a State nothing leads to that is one edit from a state something leads to. Each is
/// `unknown-reference` at the cell that holds it; returns the misspelt names with the states
/// they were meant to name.
fn state_typos(s: &ScriptSource, diags: &mut Diagnostics) -> HashMap<String, String> {
    let mut meant = HashMap::new();
    if s.rules.is_empty() {
        return meant;
    }
    let name = |c: &Cell| c.text.trim().to_string();
    // The States written for rules, in order, with their cells.
    let mut written: Vec<(String, Vec<&Cell>)> = Vec::new();
    for c in s.rules.iter().filter_map(|r| r.state.as_ref()) {
        match written.iter_mut().find(|(n, _)| *n == name(c)) {
            Some((_, cells)) => cells.push(c),
            None => written.push((name(c), vec![c])),
        }
    }
    let is_written = |n: &str| written.iter().any(|(w, _)| w == n);
    // What leads somewhere: the initial state (named, else the first rule's) and Next States.
    let mut references: Vec<(String, Vec<Lead<'_>>)> = Vec::new();
    let initial = s.initial_state.as_ref().map(|c| (c, None)).or_else(|| {
        s.rules
            .iter()
            .find_map(|r| r.state.as_ref())
            .map(|c| (c, None))
    });
    let nexts = s
        .rules
        .iter()
        .filter_map(|r| r.next_state.as_ref().map(|c| (c, Some(r))));
    for (c, r) in initial.into_iter().chain(nexts) {
        match references.iter_mut().find(|(n, _)| *n == name(c)) {
            Some((_, cells)) => cells.push((c, r)),
            None => references.push((name(c), vec![(c, r)])),
        }
    }
    let mut led_to: Vec<String> = references.iter().map(|(n, _)| n.clone()).collect();
    let written_names: Vec<&str> = written.iter().map(|(n, _)| n.as_str()).collect();
    // A rule with an empty State applies in every state: a state without rules of its own
    // still does something for the roles such rules are for.
    let any_state_rule = |role: Option<&Cell>| {
        s.rules.iter().any(|r| {
            r.state.is_none()
                && match (&r.role, role) {
                    (None, _) | (_, None) => true,
                    (Some(a), Some(b)) => a.text.trim() == b.text.trim(),
                }
        })
    };
    for (n, cells) in &references {
        if is_written(n) {
            continue;
        }
        let suggestion = crate::diag::suggest(n, written_names.iter().copied());
        if let Some(m) = suggestion {
            let state_cells = &written.iter().find(|(w, _)| w == m).expect("written").1;
            // The state's own cells are the odd ones out (nothing leads to it, and it is written
            // fewer times than this name is led to): the typo is there, reported below.
            if !led_to.iter().any(|l| l == m) && state_cells.len() < cells.len() {
                continue;
            }
        } else if cells
            .iter()
            .all(|(_, r)| r.is_some_and(|r| any_state_rule(r.role.as_ref())))
        {
            continue;
        }
        for (c, rule) in cells {
            let what = match rule {
                Some(r) => format!("rule {}: Next State `{n}`", label(s, r)),
                None => format!("the initial state `{n}`"),
            };
            let mut d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "{what} is not a state of script `{}`: no rule is written for it",
                    s.name.text.trim()
                ),
            );
            d = match suggestion {
                Some(m) => {
                    let d = d.note(format!("did you mean `{m}`?"));
                    let first = written.iter().find(|(w, _)| w == m).expect("written").1[0];
                    first.relate(d, None, &format!("the rules for `{m}` start here"))
                }
                None => d
                    .note("a participant sent there would do nothing until the script ends")
                    .note(format!("states with rules: {}", written_names.join(", "))),
            };
            diags.push(c.locate(d, None, "no such state"));
        }
        if let Some(m) = suggestion {
            meant.insert(n.clone(), m.to_string());
            led_to.push(m.to_string());
        }
    }
    let occurrences = |x: &str| {
        let state_cells = written
            .iter()
            .find(|(w, _)| w == x)
            .map_or(0, |(_, c)| c.len());
        // The implicit initial state is a State cell, already counted.
        let leads = references.iter().find(|(r, _)| r == x).map_or(0, |(_, c)| {
            c.iter().filter(|(c, _)| !is_state_cell(s, c)).count()
        });
        state_cells + leads
    };
    for (n, _) in &written {
        if led_to.contains(n) || meant.contains_key(n) {
            continue;
        }
        let others = led_to
            .iter()
            .map(String::as_str)
            .chain(written_names.iter().copied())
            .filter(|o| o != n && !meant.contains_key(*o));
        let Some(m) = crate::diag::suggest(n, others) else {
            continue; // a state nothing leads to: `unreachable-state` says so
        };
        // The name written fewer times is the misspelt one: when `m` is (the first rule's
        // State, say, taken as the initial state), its cells are reported and it means `n`.
        let (wrong, right) = if occurrences(m) < occurrences(n) {
            (m, n.as_str())
        } else {
            (n.as_str(), m)
        };
        let state_cells = written
            .iter()
            .find(|(w, _)| w == wrong)
            .map(|(_, c)| c.clone());
        for c in state_cells.unwrap_or_default() {
            let rule = s
                .rules
                .iter()
                .find(|r| r.state.as_ref().is_some_and(|x| std::ptr::eq(x, c)))
                .expect("a State cell belongs to a rule");
            let why = if wrong == n {
                "which no rule leads to and which is not the initial state".to_string()
            } else {
                format!(
                    "named {} in the script, while `{right}` is named {}",
                    times(occurrences(wrong)),
                    times(occurrences(right))
                )
            };
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!("rule {} is for state `{wrong}`, {why}", label(s, rule)),
            )
            .note(format!("did you mean `{right}`?"));
            let d = match references.iter().find(|(r, _)| r == right) {
                Some((_, leads)) => {
                    leads[0]
                        .0
                        .relate(d, None, &format!("`{right}` is led to here"))
                }
                None => {
                    let first = written.iter().find(|(w, _)| w == right).expect("written").1[0];
                    first.relate(d, None, &format!("the rules for `{right}` start here"))
                }
            };
            diags.push(c.locate(d, None, "misspelt state"));
        }
        if let Some((_, leads)) = references.iter().find(|(r, _)| r == wrong) {
            for (c, rule) in leads.iter().filter(|(c, _)| !is_state_cell(s, c)) {
                let what = match rule {
                    Some(r) => format!("rule {}: Next State `{wrong}`", label(s, r)),
                    None => format!("the initial state `{wrong}`"),
                };
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "{what} is named {} in the script, while `{right}` is named {}",
                        times(occurrences(wrong)),
                        times(occurrences(right))
                    ),
                )
                .note(format!("did you mean `{right}`?"));
                diags.push(c.locate(d, None, "misspelt state"));
            }
        }
        meant.insert(wrong.to_string(), right.to_string());
        led_to.push(right.to_string());
    }
    meant
}

fn times(n: usize) -> String {
    match n {
        1 => "once".to_string(),
        2 => "twice".to_string(),
        n => format!("{n} times"),
    }
}

/// Whether `c` is the State cell of one of the script's rules.
fn is_state_cell(s: &ScriptSource, c: &Cell) -> bool {
    s.rules
        .iter()
        .any(|r| r.state.as_ref().is_some_and(|x| std::ptr::eq(x, c)))
}

/// How diagnostics name a rule: its Rule cell, else its position.
fn label(s: &ScriptSource, r: &RuleRow) -> String {
    match &r.rule {
        Some(c) => c.text.clone(),
        None => {
            let i = s.rules.iter().position(|x| std::ptr::eq(x, r)).unwrap_or(0);
            format!("{}", i + 1)
        }
    }
}

fn lower_script(s: &ScriptSource, diags: &mut Diagnostics) -> Script {
    let mut roles: Vec<ScriptRole> = Vec::new();
    for r in &s.roles {
        let name = r.name.text.trim().to_string();
        if name.is_empty() {
            let d = Diagnostic::error(Code::Syntax, "this role has no name")
                .note("every role needs a name for the rules and scenes to refer to");
            diags.push(r.name.locate(d, None, "empty role name"));
            continue;
        }
        if let Some(prev) = roles.iter().find(|p| p.name == name) {
            let d = Diagnostic::error(
                Code::DuplicateName,
                format!("role `{name}` is defined twice"),
            );
            let d = r.name.locate(d, None, "defined again");
            diags.push(prev.cell.relate(d, None, "first defined here"));
            continue;
        }
        let min = cardinality(&r.min, &name, "Min", 0, diags);
        let max = cardinality(&r.max, &name, "Max", u16::MAX, diags);
        if let (Some(min), Some(max)) = (min, max) {
            let at = r.max.as_ref().unwrap_or(&r.name);
            if min > max {
                diags.push(at.locate(
                    Diagnostic::error(
                        Code::BadCardinality,
                        format!("role `{name}`: Min {min} is larger than Max {max}"),
                    ),
                    None,
                    "can never be satisfied",
                ));
            } else if max == 0 {
                diags.push(at.locate(
                    Diagnostic::error(
                        Code::BadCardinality,
                        format!("role `{name}`: Max is 0, so nobody can ever take it"),
                    ),
                    None,
                    "no room",
                ));
            }
        }
        let mut dynamic_join = false;
        let mut leave_command = None;
        if let Some(flags) = &r.flags {
            for flag in flags
                .text
                .split(',')
                .map(str::trim)
                .filter(|f| !f.is_empty())
            {
                let (key, value) = flag
                    .split_once('=')
                    .map(|(k, v)| (k.trim(), Some(v.trim())))
                    .unwrap_or((flag, None));
                match (key, value) {
                    ("dynamicJoin", None | Some("true")) => dynamic_join = true,
                    ("dynamicJoin", Some("false")) => {}
                    ("leaveCommand", Some(action)) if !action.is_empty() => {
                        leave_command = Some(action.to_string())
                    }
                    _ => {
                        let d = Diagnostic::error(
                            Code::Syntax,
                            format!("role `{name}`: unknown flag `{flag}`"),
                        );
                        let d = crate::diag::suggest_note(d, key, ["dynamicJoin", "leaveCommand"])
                            .note("flags: dynamicJoin, leaveCommand=ACTION");
                        diags.push(flags.locate(d, None, "unknown flag"));
                    }
                }
            }
        }
        roles.push(ScriptRole {
            name,
            min: min.unwrap_or(0),
            max: max.unwrap_or(u16::MAX),
            dynamic_join,
            leave_command,
            cell: r.name.clone(),
        });
    }
    let meant = state_typos(s, diags);
    let mut states: Vec<ScriptState> = Vec::new();
    let state_of = |c: &Cell, states: &mut Vec<ScriptState>| -> usize {
        // A misspelt name (reported) stands for the state it was meant to name, so the typo
        // creates no empty state and no follow-up warnings.
        let name = c.text.trim();
        let name = meant.get(name).map(String::as_str).unwrap_or(name);
        match states.iter().position(|s| s.name == name) {
            Some(i) => i,
            None => {
                states.push(ScriptState {
                    name: name.to_string(),
                    cell: Some(c.clone()),
                });
                states.len() - 1
            }
        }
    };
    // The initial state is state 0: named in the Script sheet, else the first rule's state.
    let initial_cell = s
        .initial_state
        .clone()
        .or_else(|| s.rules.iter().find_map(|r| r.state.clone()));
    match &initial_cell {
        Some(c) => {
            state_of(c, &mut states);
        }
        None => states.push(ScriptState {
            name: "default".into(),
            cell: None,
        }),
    }
    let mut rules = Vec::new();
    for (i, row) in s.rules.iter().enumerate() {
        // A cell that cannot be read (or names no role) is reported while the rule is lowered.
        let errors_before = diags.count(Severity::Error);
        let label = row
            .rule
            .as_ref()
            .map(|c| c.text.clone())
            .unwrap_or_else(|| format!("{}", i + 1));
        let role = row.role.as_ref().and_then(|c| {
            let found = roles.iter().position(|r| r.name == c.text.trim());
            if found.is_none() {
                let d = Diagnostic::error(
                    Code::UnknownRole,
                    format!(
                        "rule {label} is for role `{}`, which the script does not define",
                        c.text.trim()
                    ),
                );
                let d = crate::diag::suggest_note(
                    d,
                    c.text.trim(),
                    roles.iter().map(|r| r.name.as_str()),
                );
                diags.push(c.locate(d, None, "unknown role"));
            }
            found
        });
        let state = row.state.as_ref().map(|c| state_of(c, &mut states));
        let next_state = row
            .next_state
            .as_ref()
            .map(|c| (state_of(c, &mut states), c.clone()));
        let precondition = row
            .precondition
            .as_ref()
            .and_then(|c| parse_or_report(c, cell::literals(&c.text), "the precondition", diags))
            .unwrap_or_default();
        let action = row.action.as_ref().and_then(|c| {
            let name = c.text.trim();
            let ok = name.chars().next().is_some_and(|ch| ch.is_ascii_lowercase()) && name.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_');
            if ok {
                Some((name.to_string(), c.clone()))
            } else {
                let d = Diagnostic::error(Code::Syntax, format!("`{name}` is not an action name")).note("an action is a lower-case name such as `sit`; its target goes in the Target column");
                diags.push(c.locate(d, None, "not an action name"));
                None
            }
        });
        let target = row.target.as_ref().and_then(|c| {
            parse_or_report(c, cell::term(&c.text), "the target", diags).map(|t| (t, c.clone()))
        });
        let parameters = row
            .parameters
            .as_ref()
            .and_then(|c| parse_or_report(c, cell::parameters(&c.text), "the parameters", diags))
            .unwrap_or_default()
            .into_iter()
            .map(|(k, _, v)| (k, v))
            .collect();
        let terminate = match row
            .terminate
            .as_ref()
            .map(|c| (c, c.text.trim().to_lowercase()))
        {
            None => Termination::None,
            Some((_, t)) if t.is_empty() => Termination::None,
            Some((_, t)) if t == "actor" || t == "true" => Termination::Actor,
            Some((_, t)) if t == "script" => Termination::Script,
            Some((c, t)) => {
                let d = Diagnostic::error(Code::Syntax, format!("Terminate is `{t}`"));
                let d = crate::diag::suggest_note(d, &t, ["actor", "script"])
                    .note("Terminate is empty, `actor` or `script`");
                diags.push(c.locate(d, None, "expected actor or script"));
                Termination::None
            }
        };
        rules.push(ScriptRule {
            label,
            row: row.origin.clone(),
            role,
            role_cell: row.role.clone(),
            state,
            precondition,
            precondition_cell: row.precondition.clone(),
            action,
            target,
            parameters,
            parameters_cell: row.parameters.clone(),
            add: effects(&row.add, "the additions", diags),
            delete: effects(&row.delete, "the deletions", diags),
            deferred_add: effects(&row.deferred_add, "the deferred additions", diags),
            deferred_delete: effects(&row.deferred_delete, "the deferred deletions", diags),
            on_error: effects(&row.on_error, "the on-error facts", diags),
            next_state,
            terminate,
            unreadable: diags.count(Severity::Error) > errors_before,
        });
    }
    let mut supplies = Vec::new();
    if let Some(c) = &s.supplies {
        match super::location::predicate_list(&c.text) {
            Ok(list) => supplies.extend(list.into_iter().map(|(p, a)| (p, a, c.clone()))),
            Err(item) => {
                let d =
                    Diagnostic::error(Code::Syntax, format!("`{item}` is not `predicate/arity`"))
                        .note("write supplied predicates as `seat/1, sale/2`");
                diags.push(c.locate(d, None, "expected predicate/arity"));
            }
        }
    }
    Script {
        name: s.name.text.trim().to_string(),
        name_cell: s.name.clone(),
        file: s.file,
        roles,
        states,
        initial: 0,
        rules,
        supplies,
    }
}

/// Lowers every script of the project into `module.scripts`.
pub fn lower(sources: &SourceMap, module: &mut Module, diags: &mut Diagnostics) {
    let mut found = Vec::new();
    for (id, file) in sources.iter() {
        let source = if file.name.ends_with(".script.ron") {
            from_ron(sources, id, diags)
        } else if file.name.ends_with(".xlsx") {
            super::xlsx::read(sources, id, diags)
        } else {
            None
        };
        found.extend(source);
    }
    let mut scripts: Arena<Script> = Arena::default();
    for s in resolve_templates(found, diags) {
        if s.name.is_blank() {
            let d = Diagnostic::error(Code::Syntax, "the script's name is empty")
                .note("smart locations run a script by its name");
            diags.push(s.name.locate(d, None, "empty name"));
            continue;
        }
        let script = lower_script(&s, diags);
        if let Some((_, prev)) = scripts.iter().find(|(_, p)| p.name == script.name) {
            let d = Diagnostic::error(
                Code::DuplicateName,
                format!("script `{}` is defined twice", script.name),
            );
            let d = script.name_cell.locate(d, None, "defined again");
            diags.push(prev.name_cell.relate(d, None, "first defined here"));
            continue;
        }
        scripts.append(script);
    }
    module.scripts = scripts;
}

#[cfg(test)]
mod tests {
    #[test]
    fn substitution_respects_word_boundaries() {
        assert_eq!(super::substitute("f($n, $name)", "$n", "2"), "f(2, $name)");
        assert_eq!(
            super::substitute("f($n, $name)", "$name", "bob"),
            "f($n, bob)"
        );
        assert_eq!(super::substitute("$n$n", "$n", "1"), "11");
    }
}
