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
fn resolve_templates(mut scripts: Vec<ScriptSource>, diags: &mut Diagnostics) -> Vec<ScriptSource> {
    let names: Vec<String> = scripts.iter().map(|s| s.name.text.clone()).collect();
    let mut used_as_base = vec![false; scripts.len()];
    let mut out = Vec::new();
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
    }
    // Substitute parameters; a script still holding unset ones is a template.
    let mut compiled = Vec::new();
    for (i, mut s) in out.into_iter().enumerate() {
        let params = s.params.clone();
        let mut unset: Vec<(String, Cell)> = Vec::new();
        for c in all_cells(&mut s) {
            for p in placeholders(&c.text) {
                match params.iter().find(|(k, _)| *k == p) {
                    Some((_, v)) => c.text = substitute(&c.text, &p, &v.text),
                    None => {
                        if !unset.iter().any(|(u, _)| *u == p) {
                            unset.push((p, c.clone()));
                        }
                    }
                }
            }
        }
        if unset.is_empty() {
            compiled.push(s);
        } else if !used_as_base[i] {
            let (p, cell) = &unset[0];
            let d = Diagnostic::warning(Code::UninstantiatedVariable, format!("script `{}` uses meta-parameter `{p}` without a value, and no script extends it", s.name.text))
                .note("set it in the Script sheet (`$name | value`), or extend this template from another script");
            diags.push(cell.locate(d, None, "unset meta-parameter"));
            scripts[i].rules.clear();
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

fn lower_script(s: &ScriptSource, diags: &mut Diagnostics) -> Script {
    let mut roles: Vec<ScriptRole> = Vec::new();
    for r in &s.roles {
        let name = r.name.text.trim().to_string();
        if let Some(prev) = roles.iter().find(|p| p.name == name) {
            let d = Diagnostic::error(
                Code::DuplicateName,
                format!("role `{name}` is defined twice"),
            );
            let d = r.name.locate(d, None, "defined again");
            diags.push(match &prev.cell.origin {
                Origin::Ron(span) => d.related(*span, "first defined here"),
                Origin::Sheet { cell, .. } => d.note(format!("first defined at {cell}")),
            });
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
                        )
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
    let mut states: Vec<ScriptState> = Vec::new();
    let state_of = |c: &Cell, states: &mut Vec<ScriptState>| -> usize {
        let name = c.text.trim();
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
                let d = Diagnostic::error(Code::Syntax, format!("Terminate is `{t}`"))
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
                        .note(
                            "write supplied predicates as `seat/1, sale/2`, with arities up to 64",
                        );
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
        let script = lower_script(&s, diags);
        if let Some((_, prev)) = scripts.iter().find(|(_, p)| p.name == script.name) {
            let d = Diagnostic::error(
                Code::DuplicateName,
                format!("script `{}` is defined twice", script.name),
            );
            let d = script.name_cell.locate(d, None, "defined again");
            diags.push(match &prev.name_cell.origin {
                Origin::Ron(span) => d.related(*span, "first defined here"),
                Origin::Sheet { .. } => {
                    d.note(format!("first defined in {}", sources.get(prev.file).name))
                }
            });
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
