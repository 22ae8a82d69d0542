//! Typed, named parameters (docs/formats/statelib.md, "Parameters"): library declarations from
//! `*.statelib.ron` and built-in libraries, and the values machines give them, each checked at
//! the place it is written.

use super::assets::{
    LibraryStateAsset, ModifierValue, ParamTypeAsset, ParamValueAsset, StateAsset,
};
use super::locate::Seg;
use super::lower::{Locator, with_suggestion};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::ir::*;
use crate::source::Span;
use ensemble_runtime::program::{ParamKind, ParamLiteral, ParamSpec, ParamType};

/// A built-in library's declared parameters (names and defaults as the game registered them).
pub(super) fn builtin_params(specs: &[ParamSpec]) -> Vec<LibraryParam> {
    specs
        .iter()
        .map(|p| LibraryParam {
            name: p.name.clone(),
            ty: p.ty.clone(),
            default_written: p.default.clone(),
            default: None,
            span: None,
            default_span: None,
        })
        .collect()
}

/// A literal as it is written in a source.
pub fn literal_asset(l: &ParamLiteral) -> ParamValueAsset {
    match l {
        ParamLiteral::Text(t) => ParamValueAsset::Text(t.clone()),
        ParamLiteral::Number(x) => ParamValueAsset::Number(*x),
        ParamLiteral::Bool(b) => ParamValueAsset::Bool(*b),
        ParamLiteral::List(items) => {
            ParamValueAsset::List(items.iter().map(literal_asset).collect())
        }
    }
}

/// The literal a default is written as (what `StateSpec`s and the editor carry).
pub fn asset_literal(v: &ParamValueAsset) -> ParamLiteral {
    match v {
        ParamValueAsset::Text(t) => ParamLiteral::Text(t.clone()),
        ParamValueAsset::Number(x) => ParamLiteral::Number(*x),
        ParamValueAsset::Bool(b) => ParamLiteral::Bool(*b),
        ParamValueAsset::List(items) => {
            ParamLiteral::List(items.iter().map(asset_literal).collect())
        }
    }
}

/// The runtime type of a declared type; `None` for a list of lists or a `OneOf` listing
/// nothing (the reason is returned).
pub fn param_type(ty: &ParamTypeAsset) -> Result<ParamType, &'static str> {
    fn kind(ty: &ParamTypeAsset) -> Result<ParamKind, &'static str> {
        Ok(match ty {
            ParamTypeAsset::Text => ParamKind::Text,
            ParamTypeAsset::Number => ParamKind::Number,
            ParamTypeAsset::Bool => ParamKind::Bool,
            ParamTypeAsset::Location => ParamKind::Location,
            ParamTypeAsset::Agent => ParamKind::Agent,
            ParamTypeAsset::Machine => ParamKind::Machine,
            ParamTypeAsset::Sentence => ParamKind::Sentence,
            ParamTypeAsset::OneOf(words) if words.is_empty() => {
                return Err("`OneOf` must list at least one value");
            }
            ParamTypeAsset::OneOf(words) => ParamKind::OneOf(words.clone()),
            ParamTypeAsset::List(_) => return Err("a list holds single values, not lists"),
        })
    }
    match ty {
        ParamTypeAsset::List(item) => kind(item).map(ParamType::list_of),
        other => kind(other).map(ParamType::one),
    }
}

/// The declared parameters of one `*.statelib.ron` state (its index `i` in the file): a
/// declaration with both `modifier` and `params` is refused at the one written second.
pub(super) fn declared_params(
    s: &LibraryStateAsset,
    i: usize,
    loc: &Locator,
    diags: &mut Diagnostics,
) -> Vec<LibraryParam> {
    let at = |f: &'static str| loc.written(&[Seg::Field("states"), Seg::Index(i), Seg::Field(f)]);
    if let (Some(m), Some(p)) = (at("modifier"), at("params")) {
        let (second, first) = if m.start > p.start { (m, p) } else { (p, m) };
        diags.push(
            Diagnostic::error(
                Code::ModifierMismatch,
                format!(
                    "library state `{}` declares both a single `modifier` and `params`",
                    s.name
                ),
            )
            .at(second, "declared again here")
            .related(first, "first declared here")
            .note("declare its one value as a parameter in `params`, or keep the `modifier` alone"),
        );
        return Vec::new();
    }
    let mut out: Vec<LibraryParam> = Vec::new();
    for (j, p) in s.params.iter().enumerate() {
        let path = |f: &'static str| {
            [
                Seg::Field("states"),
                Seg::Index(i),
                Seg::Field("params"),
                Seg::Index(j),
                Seg::Field(f),
            ]
        };
        let span = loc.span(&path("name"));
        if let Some(prev) = out.iter().find(|q| q.name == p.name) {
            let mut d = Diagnostic::error(
                Code::DuplicateName,
                format!(
                    "library state `{}` declares parameter `{}` twice",
                    s.name, p.name
                ),
            )
            .at(span, "declared again here");
            if let Some(first) = prev.span {
                d = d.related(first, "first declared here");
            }
            diags.push(d);
            continue;
        }
        let ty = match param_type(&p.ty) {
            Ok(ty) => ty,
            Err(why) => {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "parameter `{}` of library state `{}`: {why}",
                            p.name, s.name
                        ),
                    )
                    .at(loc.span(&path("type")), "this type"),
                );
                continue;
            }
        };
        let default_span = p.default.as_ref().map(|_| loc.span(&path("default")));
        out.push(LibraryParam {
            name: p.name.clone(),
            ty,
            default_written: p.default.as_ref().map(asset_literal),
            default: None,
            span: Some(span),
            default_span,
        });
    }
    out
}

/// Why a written value does not fit its parameter.
enum Problem {
    /// Not of the declared type (`expected`), e.g. a text where a number goes.
    WrongType {
        expected: String,
        found: &'static str,
    },
    /// A location or machine that is not defined.
    Unknown {
        what: &'static str,
        name: String,
        candidates: Vec<String>,
    },
    /// A word that is not one of the listed values.
    NotListed {
        word: String,
        words: Vec<String>,
    },
    NotFinite,
}

/// A name that names nothing of its kind, with the names that do (for "did you mean").
fn unknown<'a>(what: &'static str, name: &str, names: impl Iterator<Item = &'a String>) -> Problem {
    Problem::Unknown {
        what,
        name: name.to_string(),
        candidates: names.cloned().collect(),
    }
}

fn found(v: &ParamValueAsset) -> &'static str {
    match v {
        ParamValueAsset::Bool(_) => "a bool",
        ParamValueAsset::Number(_) => "a number",
        ParamValueAsset::Text(_) => "a text",
        ParamValueAsset::List(_) => "a list",
    }
}

fn resolve_value(
    module: &Module,
    kind: &ParamKind,
    list: bool,
    v: &ParamValueAsset,
) -> Result<ArgValue, Problem> {
    let wrong = || Problem::WrongType {
        expected: if list {
            format!("a list of {}", kind.describe())
        } else {
            with_article(&kind.describe())
        },
        found: found(v),
    };
    match (kind, v) {
        (ParamKind::Text, ParamValueAsset::Text(t)) => Ok(ArgValue::Text(t.clone())),
        (ParamKind::Number, ParamValueAsset::Number(x)) if x.is_finite() => {
            Ok(ArgValue::Number(*x))
        }
        (ParamKind::Number, ParamValueAsset::Number(_)) => Err(Problem::NotFinite),
        (ParamKind::Bool, ParamValueAsset::Bool(b)) => Ok(ArgValue::Bool(*b)),
        (ParamKind::Agent, ParamValueAsset::Text(t)) => Ok(ArgValue::Agent(t.clone())),
        (ParamKind::Sentence, ParamValueAsset::Text(t)) => Ok(ArgValue::Sentence(t.clone())),
        (ParamKind::Location, ParamValueAsset::Text(t)) => module
            .location_by_name(t)
            .map(ArgValue::Location)
            .ok_or_else(|| {
                unknown(
                    "location",
                    t,
                    module.locations.iter().map(|(_, l)| &l.name.text),
                )
            }),
        (ParamKind::Machine, ParamValueAsset::Text(t)) => module
            .machine_by_name(t)
            .map(ArgValue::Machine)
            .ok_or_else(|| {
                unknown(
                    "machine",
                    t,
                    module.machines.iter().map(|(_, m)| &m.name.text),
                )
            }),
        (ParamKind::OneOf(words), ParamValueAsset::Text(t)) => {
            if words.contains(t) {
                Ok(ArgValue::Choice(t.clone()))
            } else {
                Err(Problem::NotListed {
                    word: t.clone(),
                    words: words.clone(),
                })
            }
        }
        _ => Err(wrong()),
    }
}

/// Resolves a written value against its declared type. A problem with one item of a list
/// comes with the item's index.
fn resolve(
    module: &Module,
    ty: &ParamType,
    v: &ParamValueAsset,
) -> Result<Arg, (Option<usize>, Problem)> {
    match (ty.list, v) {
        (true, ParamValueAsset::List(items)) => items
            .iter()
            .enumerate()
            .map(|(k, item)| resolve_value(module, &ty.kind, true, item).map_err(|p| (Some(k), p)))
            .collect::<Result<Vec<_>, _>>()
            .map(Arg::List),
        (true, other) => Err((
            None,
            Problem::WrongType {
                expected: with_article(&ty.describe()),
                found: found(other),
            },
        )),
        (false, other) => resolve_value(module, &ty.kind, false, other)
            .map(Arg::One)
            .map_err(|p| (None, p)),
    }
}

/// `a number`, `an agent`, `a list of text`; `one of "a", "b"` as it is.
fn with_article(desc: &str) -> String {
    if desc.starts_with("one of") {
        desc.to_string()
    } else if desc.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {desc}")
    } else {
        format!("a {desc}")
    }
}

/// The diagnostic for a value of parameter `param` (of library state `lib`) that does not fit.
fn report(problem: Problem, who: &str, param: &str, span: Span) -> Diagnostic {
    match problem {
        Problem::WrongType { expected, found } => Diagnostic::error(
            Code::ModifierMismatch,
            format!("{who}: parameter `{param}` takes {expected}, not {found}"),
        )
        .at(span, found),
        Problem::NotFinite => Diagnostic::error(
            Code::InvalidValue,
            format!("{who}: parameter `{param}` must be a finite number"),
        )
        .at(span, "here"),
        Problem::NotListed { word, words } => {
            let listed: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
            let d = Diagnostic::error(
                Code::ModifierMismatch,
                format!(
                    "{who}: parameter `{param}` is one of {}, not \"{word}\"",
                    listed.join(", ")
                ),
            )
            .at(span, "not a listed value");
            with_suggestion(d, &word, words.iter().map(String::as_str))
        }
        Problem::Unknown {
            what,
            name,
            candidates,
        } => {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!("{who}: parameter `{param}` names {what} `{name}`, which is not defined"),
            )
            .at(span, format!("no such {what}"));
            with_suggestion(d, &name, candidates.iter().map(String::as_str))
        }
    }
}

/// Resolves every library state's defaults once locations and machines are known; a default
/// that does not fit is reported at its declaration.
pub(super) fn resolve_defaults(module: &mut Module, diags: &mut Diagnostics) {
    let mut resolved = Vec::new();
    for (h, lib) in module.library.iter() {
        for (i, p) in lib.params.iter().enumerate() {
            let Some(written) = &p.default_written else {
                continue;
            };
            match resolve(module, &p.ty, &literal_asset(written)) {
                Ok(arg) => resolved.push((h, i, arg)),
                Err((_, problem)) => {
                    let who = format!("library state `{}`", lib.name);
                    match p.default_span.or(p.span) {
                        Some(span) => diags.push(
                            report(problem, &who, &p.name, span)
                                .note("the default does not fit the parameter's type"),
                        ),
                        // A built-in library's own default: the game's declaration is wrong.
                        None => diags.push(Diagnostic::error(
                            Code::Internal,
                            format!(
                                "{who}: the default of parameter `{}` does not fit its type",
                                p.name
                            ),
                        )),
                    }
                }
            }
        }
    }
    for (h, i, arg) in resolved {
        module.library[h].params[i].default = Some(arg);
    }
}

/// What a state sets, for a library state declared with `params`: one slot per declared
/// parameter. A single `modifier:` sets the only parameter of a one-parameter library state.
pub(super) fn state_args(
    module: &Module,
    s: &StateAsset,
    lib: &LibraryState,
    loc: &Locator,
    base: [Seg<'_>; 2],
    state_span: Span,
    diags: &mut Diagnostics,
) -> Vec<StateArg> {
    let who = format!("state `{}`", s.name);
    let mut args = vec![StateArg::default(); lib.params.len()];
    let field = |f: &'static str| loc.span(&[base[0], base[1], Seg::Field(f)]);
    // (parameter, value, its entry in `params`, or `None` for the modifier)
    let mut written: Vec<(usize, ParamValueAsset, Option<usize>)> = Vec::new();
    let value_span = |entry: Option<usize>, item: Option<usize>| {
        let mut path = vec![base[0], base[1]];
        match entry {
            Some(j) => path.extend([Seg::Field("params"), Seg::Entry(j)]),
            None => path.push(Seg::Field("modifier")),
        }
        path.extend(item.map(Seg::Index));
        loc.span(&path)
    };
    if let Some(m) = &s.modifier {
        let span = field("modifier");
        if !s.params.is_empty() {
            diags.push(
                Diagnostic::error(
                    Code::ModifierMismatch,
                    format!("{who} sets both `modifier` and `params`"),
                )
                .at(field("params"), "set again here")
                .related(span, "first set here")
                .note("give every value in `params`"),
            );
        } else if lib.params.len() == 1 {
            let v = match m {
                ModifierValue::Name(n) => ParamValueAsset::Text(n.clone()),
                ModifierValue::Number(x) => ParamValueAsset::Number(*x),
            };
            written.push((0, v, None));
        } else {
            let names: Vec<String> = lib.params.iter().map(|p| format!("`{}`", p.name)).collect();
            diags.push(
                Diagnostic::error(
                    Code::ModifierMismatch,
                    format!(
                        "{who}: library state `{}` takes {} named parameters ({}), not a single modifier",
                        lib.name,
                        lib.params.len(),
                        names.join(", ")
                    ),
                )
                .at(span, "here")
                .note("set them by name: `params: {\"name\": value, ...}`"),
            );
            return args;
        }
    }
    let mut seen: Vec<(&str, Span)> = Vec::new();
    for (j, (key, value)) in s.params.0.iter().enumerate() {
        let span = loc.span(&[base[0], base[1], Seg::Field("params"), Seg::Entry(j)]);
        if let Some((_, first)) = seen.iter().find(|(k, _)| k == key) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("{who} sets parameter `{key}` twice"),
                )
                .at(span, "set again here")
                .related(*first, "first set here"),
            );
            continue;
        }
        seen.push((key, span));
        match lib.params.iter().position(|p| &p.name == key) {
            Some(i) => written.push((i, value.clone(), Some(j))),
            None => {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "{who}: library state `{}` has no parameter `{key}`",
                        lib.name
                    ),
                )
                .at(span, "unknown parameter");
                let d = with_suggestion(d, key, lib.params.iter().map(|p| p.name.as_str()));
                let names: Vec<&str> = lib.params.iter().map(|p| p.name.as_str()).collect();
                diags.push(d.note(if names.is_empty() {
                    "it takes no parameters".to_string()
                } else {
                    format!("its parameters: {}", names.join(", "))
                }));
            }
        }
    }
    let mut failed = vec![false; lib.params.len()];
    for (i, value, entry) in written {
        let p = &lib.params[i];
        args[i].span = Some(value_span(entry, None));
        match resolve(module, &p.ty, &value) {
            Ok(arg) => args[i].value = Some(arg),
            Err((item, problem)) => {
                failed[i] = true;
                diags.push(report(problem, &who, &p.name, value_span(entry, item)));
            }
        }
    }
    for (i, p) in lib.params.iter().enumerate() {
        if args[i].value.is_none() && !failed[i] && p.default_written.is_none() {
            let mut d = Diagnostic::error(
                Code::ModifierMismatch,
                format!(
                    "{who} does not set `{}`, which library state `{}` requires ({})",
                    p.name,
                    lib.name,
                    with_article(&p.ty.describe())
                ),
            )
            .at(state_span, "missing a required parameter");
            if let Some(decl) = p.span {
                d = d.related(decl, "declared here, without a default");
            }
            diags.push(d);
        }
    }
    args
}

/// For a library state with a single modifier, `params: {"location": "Gate"}` sets that
/// modifier (the parameter is named after its kind). Returns the value as a modifier, or
/// reports what does not fit.
pub(super) fn params_as_modifier(
    s: &StateAsset,
    lib: &LibraryState,
    loc: &Locator,
    base: [Seg<'_>; 2],
    diags: &mut Diagnostics,
) -> Option<Option<ModifierValue>> {
    if s.params.is_empty() {
        return None;
    }
    let who = format!("state `{}`", s.name);
    let field = |f: &'static str| loc.span(&[base[0], base[1], Seg::Field(f)]);
    if s.modifier.is_some() {
        diags.push(
            Diagnostic::error(
                Code::ModifierMismatch,
                format!("{who} sets both `modifier` and `params`"),
            )
            .at(field("params"), "set again here")
            .related(field("modifier"), "first set here"),
        );
        return Some(None);
    }
    let name = ParamSpec::of_modifier(lib.modifier).map(|p| p.name);
    let mut value = None;
    for (j, (key, v)) in s.params.0.iter().enumerate() {
        let span = loc.span(&[base[0], base[1], Seg::Field("params"), Seg::Entry(j)]);
        if Some(key) != name.as_ref() {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "{who}: library state `{}` has no parameter `{key}`",
                    lib.name
                ),
            )
            .at(span, "unknown parameter");
            let d = with_suggestion(d, key, name.iter().map(String::as_str));
            diags.push(d.note(match &name {
                Some(n) => format!("its one parameter: {n}"),
                None => "it takes no parameters".to_string(),
            }));
            return Some(None);
        }
        if value.is_some() {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("{who} sets parameter `{key}` twice"),
                )
                .at(span, "set again here"),
            );
            return Some(None);
        }
        value = Some(match v {
            ParamValueAsset::Text(t) => ModifierValue::Name(t.clone()),
            ParamValueAsset::Number(x) => ModifierValue::Number(*x),
            other => {
                diags.push(
                    Diagnostic::error(
                        Code::ModifierMismatch,
                        format!(
                            "{who}: parameter `{key}` takes {}, not {}",
                            with_article(lib.modifier.as_str()),
                            found(other)
                        ),
                    )
                    .at(span, found(other)),
                );
                return Some(None);
            }
        });
    }
    Some(value)
}

/// Sentence-state values and defaults name sentence states, known only once sentence files
/// are lowered: each must name one.
pub(super) fn check_sentences(module: &Module, diags: &mut Diagnostics) {
    let names = || module.sentences.iter().map(|(_, s)| s.name.text.as_str());
    let check = |arg: &Arg, who: &str, param: &str, span: Option<Span>, diags: &mut Diagnostics| {
        for v in arg.values() {
            if let ArgValue::Sentence(n) = v
                && module.sentence_by_name(n).is_none()
            {
                let mut d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "{who}: parameter `{param}` names sentence state `{n}`, which is not defined"
                    ),
                );
                if let Some(span) = span {
                    d = d.at(span, "no such sentence state");
                }
                diags.push(
                    with_suggestion(d, n, names())
                        .note("sentence states are defined in *.sentences.ron files"),
                );
            }
        }
    };
    for (_, lib) in module.library.iter() {
        for p in &lib.params {
            if let Some(arg) = &p.default {
                check(
                    arg,
                    &format!("library state `{}`", lib.name),
                    &p.name,
                    p.span,
                    diags,
                );
            }
        }
    }
    for (_, s) in module.states.iter() {
        let Some(lib) = s.code.map(|c| &module.library[c]) else {
            continue;
        };
        for (arg, p) in s.params.iter().zip(&lib.params) {
            if let Some(value) = &arg.value {
                check(
                    value,
                    &format!("state `{}`", s.name.text),
                    &p.name,
                    arg.span,
                    diags,
                );
            }
        }
    }
}
