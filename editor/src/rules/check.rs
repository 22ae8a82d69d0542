//! Checks that run on every keystroke, before any compile: each cell against its column's
//! syntax with the compiler's own cell parser (`script::cell`), role rows, and the script keys.
//! Anything that needs the whole script (bindings, reachability, shadowing) is the compiler's,
//! and arrives as diagnostics through the panel context.

use crate::workbook::columns::{Column, Syntax};
use ensemble_compiler::diag::{Severity, suggest};
use ensemble_compiler::formats::cell;
use ensemble_compiler::formats::scripts::{RoleAsset, ScriptAsset};
use ensemble_compiler::formats::scripts::{placeholders, substitute};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;

/// Something wrong (or worth knowing) about one cell.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    pub severity: Severity,
    pub message: String,
    /// Bytes of the cell's text the message is about, when known.
    pub range: Option<Range<usize>>,
}

impl Problem {
    /// The message with where it points in `text` (1-based characters), when it points.
    pub fn located(&self, text: &str) -> String {
        match &self.range {
            Some(r) => {
                let upto = r.start.min(text.len());
                let at = text.get(..upto).map_or(upto, |t| t.chars().count()) + 1;
                format!("{} (at character {at})", self.message)
            }
            None => self.message.clone(),
        }
    }

    fn error(message: impl Into<String>, range: Option<Range<usize>>) -> Self {
        Problem {
            severity: Severity::Error,
            message: message.into(),
            range,
        }
    }

    fn warning(message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Warning,
            message: message.into(),
            range: None,
        }
    }

    fn info(message: impl Into<String>) -> Self {
        Problem {
            severity: Severity::Info,
            message: message.into(),
            range: None,
        }
    }
}

/// The parts of the script a cell check needs.
pub struct CheckCx<'a> {
    pub roles: Vec<&'a str>,
    pub params: &'a [(String, String)],
}

impl<'a> CheckCx<'a> {
    pub fn of(script: &'a ScriptAsset) -> Self {
        CheckCx {
            roles: script.roles.iter().map(|r| r.name.trim()).collect(),
            params: &script.params,
        }
    }
}

/// Substitutes the script's meta-parameters as the compiler does before parsing. `Err` names
/// a parameter this script does not set (it is a template for scripts that extend it).
fn substituted(text: &str, params: &[(String, String)]) -> Result<(String, bool), String> {
    let mut out = text.to_string();
    let mut changed = false;
    for p in placeholders(text) {
        match params.iter().find(|(k, _)| *k == p) {
            Some((_, v)) => {
                out = substitute(&out, &p, v);
                changed = true;
            }
            None => return Err(p),
        }
    }
    Ok((out, changed))
}

fn parsed<T>(r: Result<T, cell::ParseError>, exact: bool) -> Option<Problem> {
    r.err()
        .map(|e| Problem::error(e.message, exact.then_some(e.range)))
}

/// Checks one cell of `column`. Empty cells are always fine ("none").
pub fn check_cell(column: Column, text: &str, cx: &CheckCx<'_>) -> Option<Problem> {
    if text.trim().is_empty() {
        return None;
    }
    let (text, was_substituted) = match substituted(text, cx.params) {
        Ok(t) => t,
        Err(p) => {
            return Some(Problem::info(format!(
                "uses meta-parameter `{p}`, which this script does not set: it is checked in the scripts that extend it"
            )));
        }
    };
    // Positions are exact only in the text as written.
    let exact = !was_substituted;
    let name = text.trim();
    match column.syntax() {
        Syntax::Label => None,
        Syntax::Role => (!cx.roles.contains(&name)).then(|| {
            let mut m = format!("the script has no role `{name}`");
            match suggest(name, cx.roles.iter().copied()) {
                Some(s) => m.push_str(&format!("; did you mean `{s}`?")),
                None if cx.roles.is_empty() => m.push_str(" (add roles in the Roles list)"),
                None => m.push_str(&format!(" (roles: {})", cx.roles.join(", "))),
            }
            Problem::error(m, None)
        }),
        Syntax::State => name
            .contains(',')
            .then(|| Problem::error("one state per cell (no commas)", None)),
        Syntax::Literals => parsed(cell::literals(&text), exact),
        Syntax::Atoms => parsed(cell::atoms(&text), exact),
        Syntax::Term => parsed(cell::term(&text), exact),
        Syntax::Parameters => parsed(cell::parameters(&text), exact),
        Syntax::Action => {
            let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (!ok).then(|| {
                Problem::error(
                    format!("`{name}` is not an action name: a lower-case name such as `sit`; its target goes in Target"),
                    None,
                )
            })
        }
        Syntax::Terminate => {
            let t = name.to_lowercase();
            (!["actor", "true", "script"].contains(&t.as_str()))
                .then(|| Problem::error("Terminate is empty, `actor` or `script`", None))
        }
    }
}

/// A role's flags, split into what the editor offers as controls and the rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Flags {
    pub dynamic_join: bool,
    pub leave_command: Option<String>,
    /// Flags the compiler does not know, as written.
    pub unknown: Vec<String>,
}

impl Flags {
    pub fn parse(text: &str) -> Flags {
        let mut f = Flags::default();
        for flag in text.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            let (key, value) = match flag.split_once('=') {
                Some((k, v)) => (k.trim(), Some(v.trim())),
                None => (flag, None),
            };
            match (key, value) {
                ("dynamicJoin", None | Some("true")) => f.dynamic_join = true,
                ("dynamicJoin", Some("false")) => {}
                ("leaveCommand", Some(a)) if !a.is_empty() => f.leave_command = Some(a.to_string()),
                _ => f.unknown.push(flag.to_string()),
            }
        }
        f
    }

    /// The flags cell: known flags first, unknown ones kept as written.
    pub fn write(&self) -> String {
        let mut parts = Vec::new();
        if self.dynamic_join {
            parts.push("dynamicJoin".to_string());
        }
        if let Some(a) = self
            .leave_command
            .as_deref()
            .filter(|a| !a.trim().is_empty())
        {
            parts.push(format!("leaveCommand={}", a.trim()));
        }
        parts.extend(self.unknown.iter().cloned());
        parts.join(", ")
    }
}

/// Problems of one role row, by field.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RoleProblems {
    pub name: Option<Problem>,
    pub min: Option<Problem>,
    pub max: Option<Problem>,
    pub flags: Option<Problem>,
}

fn bound(text: &str, params: &[(String, String)]) -> Result<Option<u32>, Problem> {
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let value = match substituted(text, params) {
        Ok((v, _)) => v,
        Err(_) => return Ok(None),
    };
    match value.trim().parse::<u32>() {
        Ok(n) if n <= u16::MAX as u32 => Ok(Some(n)),
        _ => Err(Problem::error(
            format!("`{}` is not a whole number of actors", value.trim()),
            None,
        )),
    }
}

pub fn check_role(i: usize, roles: &[RoleAsset], params: &[(String, String)]) -> RoleProblems {
    let r = &roles[i];
    let mut out = RoleProblems::default();
    let name = r.name.trim();
    if name.is_empty() {
        out.name = Some(Problem::error("a role needs a name", None));
    } else if roles[..i].iter().any(|o| o.name.trim() == name) {
        out.name = Some(Problem::error(
            format!("role `{name}` is defined twice"),
            None,
        ));
    }
    let min = bound(&r.min, params)
        .map_err(|p| out.min = Some(p))
        .ok()
        .flatten();
    let max = bound(&r.max, params)
        .map_err(|p| out.max = Some(p))
        .ok()
        .flatten();
    match (min, max) {
        (_, Some(0)) => {
            out.max = Some(Problem::error(
                "Max is 0: nobody can ever take this role",
                None,
            ))
        }
        (Some(lo), Some(hi)) if lo > hi => {
            out.max = Some(Problem::error(
                format!("Min {lo} is larger than Max {hi}"),
                None,
            ))
        }
        _ => {}
    }
    let flags = Flags::parse(&r.flags);
    if let Some(u) = flags.unknown.first() {
        out.flags = Some(Problem::error(
            format!("unknown flag `{u}` (flags: dynamicJoin, leaveCommand=ACTION)"),
            None,
        ));
    }
    out
}

/// Problems of the script keys, by key.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeyProblems {
    pub name: Option<Problem>,
    pub initial_state: Option<Problem>,
    pub supplies: Option<Problem>,
    /// By index into `params`.
    pub params: Vec<(usize, Problem)>,
}

pub fn check_keys(s: &ScriptAsset) -> KeyProblems {
    let mut out = KeyProblems::default();
    if s.name.trim().is_empty() {
        out.name = Some(Problem::error("a script needs a name", None));
    }
    if let Some(init) = s
        .initial_state
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        && !s.rules.iter().any(|r| r.state.trim() == init)
    {
        out.initial_state = Some(Problem::warning(format!(
            "no rule is in state `{init}`, so actors starting there do nothing"
        )));
    }
    if let Some(sup) = s.supplies.as_deref() {
        let bad = sup
            .split(',')
            .map(str::trim)
            .filter(|i| !i.is_empty())
            .find(|item| {
                item.split_once('/')
                    .is_none_or(|(_, a)| a.trim().parse::<usize>().is_err())
            });
        if let Some(item) = bad {
            out.supplies = Some(Problem::error(
                format!("`{item}` is not `predicate/arity` (write `seat/1, sale/2`)"),
                None,
            ));
        }
    }
    for (i, (k, _)) in s.params.iter().enumerate() {
        let ident = k.len() > 1
            && k.starts_with('$')
            && k[1..]
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !ident {
            out.params.push((
                i,
                Problem::error(
                    format!("`{k}` is not a meta-parameter name: write `$name`"),
                    None,
                ),
            ));
        } else if s.params[..i].iter().any(|(o, _)| o == k) {
            out.params
                .push((i, Problem::error(format!("`{k}` is set twice"), None)));
        }
    }
    out
}

/// Cell checks of the current roles and parameters, by column and text (keyed by the text's
/// hash, the text kept to confirm, so a lookup allocates nothing).
#[derive(Default)]
pub(super) struct CheckCache {
    epoch: u64,
    cells: HashMap<(Column, u64), (String, Option<Problem>)>,
}

impl CheckCache {
    /// Forgets every result when the roles or parameters (what checks depend on) changed.
    pub(super) fn sync(&mut self, roles: &[RoleAsset], params: &[(String, String)]) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        for r in roles {
            r.name.hash(&mut h);
        }
        params.hash(&mut h);
        let epoch = h.finish();
        if epoch != self.epoch || self.cells.len() > 50_000 {
            self.epoch = epoch;
            self.cells.clear();
        }
    }

    pub(super) fn get(&mut self, column: Column, text: &str, cx: &CheckCx<'_>) -> Option<Problem> {
        if text.trim().is_empty() {
            return None;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        let key = (column, h.finish());
        if let Some((t, p)) = self.cells.get(&key)
            && t == text
        {
            return p.clone();
        }
        let p = check_cell(column, text, cx);
        self.cells.insert(key, (text.to_string(), p.clone()));
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cx() -> (Vec<(String, String)>, Vec<&'static str>) {
        (
            vec![("$seat".to_string(), "bench".to_string())],
            vec!["elder", "tourist"],
        )
    }

    #[test]
    fn cells_use_the_compilers_parser_with_positions() {
        let (params, roles) = cx();
        let cx = CheckCx {
            roles,
            params: &params,
        };
        assert_eq!(
            check_cell(Column::Precondition, "seat(X), not reserved(X, Y)", &cx),
            None
        );
        let p = check_cell(Column::Precondition, "seat(X) reserved(X)", &cx).unwrap();
        assert_eq!(p.severity, Severity::Error);
        assert_eq!(p.range, Some(8..16));
        assert!(p.message.contains("expected `,`"), "{p:?}");
        assert_eq!(
            p.located("seat(X) reserved(X)"),
            "expected `,` (at character 9)"
        );
        // Characters, not bytes: the quoted `é` is two bytes.
        let text = "p('é') q(Y)";
        let p = check_cell(Column::Precondition, text, &cx).unwrap();
        assert!(p.located(text).ends_with("(at character 8)"), "{p:?}");
        let p = check_cell(Column::Add, "Seat(X)", &cx).unwrap();
        assert!(p.message.contains("variable"));
        assert!(check_cell(Column::Target, "X Y", &cx).is_some());
        assert!(check_cell(Column::Parameters, "speed=1.5, anim='wave'", &cx).is_none());
        assert!(check_cell(Column::Parameters, "speed", &cx).is_some());
        assert!(check_cell(Column::Action, "Sit", &cx).is_some());
        assert!(check_cell(Column::Terminate, "Script", &cx).is_none());
        assert!(check_cell(Column::Terminate, "later", &cx).is_some());
        assert!(check_cell(Column::Precondition, "   ", &cx).is_none());
    }

    #[test]
    fn roles_are_known_or_suggested() {
        let (params, roles) = cx();
        let cx = CheckCx {
            roles,
            params: &params,
        };
        assert!(check_cell(Column::Role, "elder", &cx).is_none());
        let p = check_cell(Column::Role, "tourst", &cx).unwrap();
        assert!(p.message.contains("did you mean `tourist`"), "{p:?}");
    }

    #[test]
    fn meta_parameters_are_substituted_or_left_to_derived_scripts() {
        let (params, roles) = cx();
        let cx = CheckCx {
            roles,
            params: &params,
        };
        assert!(check_cell(Column::Precondition, "free($seat)", &cx).is_none());
        // An error after substitution has no position in the text as written.
        let p = check_cell(Column::Precondition, "free($seat) x", &cx).unwrap();
        assert_eq!(p.range, None);
        let p = check_cell(Column::Precondition, "free($other", &cx).unwrap();
        assert_eq!(p.severity, Severity::Info);
    }

    #[test]
    fn flags_round_trip_and_keep_what_they_do_not_know() {
        let f = Flags::parse("leaveCommand=wave, dynamicJoin, sparkle");
        assert!(f.dynamic_join);
        assert_eq!(f.leave_command.as_deref(), Some("wave"));
        assert_eq!(f.unknown, vec!["sparkle"]);
        assert_eq!(f.write(), "dynamicJoin, leaveCommand=wave, sparkle");
        assert_eq!(Flags::parse("dynamicJoin").write(), "dynamicJoin");
        assert_eq!(Flags::parse("").write(), "");
    }

    #[test]
    fn role_rows_and_keys_are_checked() {
        let role = |n: &str, lo: &str, hi: &str| RoleAsset {
            name: n.into(),
            min: lo.into(),
            max: hi.into(),
            flags: String::new(),
        };
        let roles = vec![
            role("a", "2", "1"),
            role("a", "x", "0"),
            role("b", "$n", ""),
        ];
        let params = vec![("$n".to_string(), "1".to_string())];
        assert!(check_role(0, &roles, &params).max.is_some());
        let p = check_role(1, &roles, &params);
        assert!(p.name.unwrap().message.contains("twice"));
        assert!(p.min.is_some() && p.max.is_some());
        assert_eq!(check_role(2, &roles, &params), RoleProblems::default());
        let s = ScriptAsset {
            name: " ".into(),
            initial_state: Some("nowhere".into()),
            supplies: Some("seat/1, sale".into()),
            params: vec![("n".into(), "1".into()), ("$m".into(), "".into())],
            ..Default::default()
        };
        let k = check_keys(&s);
        assert!(k.name.is_some());
        assert_eq!(k.initial_state.unwrap().severity, Severity::Warning);
        assert!(k.supplies.unwrap().message.contains("`sale`"));
        assert_eq!(k.params.len(), 1);
    }
}
