//! Lowering RON assets into the IR: parse every file, then resolve names in dependency order
//! (libraries, locations, machine names, states, scenes), reporting everything that does not
//! resolve.

use super::locate::{self, Node, Seg};
use super::{AssetKind, ModifierKindAsset, ModifierValue, TerminalAsset, assets::*, parse};
use crate::diag::{Code, Diagnostic, Diagnostics, suggest};
use crate::ir::*;
use crate::source::{FileId, SourceMap, Span};
use ensemble_runtime::program::{ModifierKind, Terminal};
use std::collections::HashMap;

/// Finds spans in one file; falls back to the file start when the structure is unreadable.
pub struct Locator {
    pub file: FileId,
    tree: Option<Node>,
}

impl Locator {
    pub fn new(sources: &SourceMap, file: FileId) -> Self {
        Locator {
            file,
            tree: locate::parse(&sources.get(file).text),
        }
    }

    pub fn span(&self, path: &[Seg<'_>]) -> Span {
        match &self.tree {
            Some(t) => Span::new(self.file, t.find(path)),
            None => Span::file_start(self.file),
        }
    }

    /// The span at `path`, only if the value is written there.
    pub fn written(&self, path: &[Seg<'_>]) -> Option<Span> {
        let range = self.tree.as_ref()?.get(path)?;
        Some(Span::new(self.file, range))
    }

    pub fn name(&self, text: &str, path: &[Seg<'_>]) -> Name {
        Name {
            text: text.to_string(),
            span: self.span(path),
        }
    }
}

pub(super) fn with_suggestion<'a>(
    d: Diagnostic,
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Diagnostic {
    match suggest(name, candidates) {
        Some(s) => d.did_you_mean(name, s),
        None => d,
    }
}

/// Names to suggest from when a machine reference does not resolve.
fn machine_names(module: &Module) -> Vec<&str> {
    module
        .machines
        .iter()
        .map(|(_, m)| m.name.text.as_str())
        .collect()
}

/// Names to suggest from when a location reference does not resolve.
fn location_names(module: &Module) -> Vec<&str> {
    module
        .locations
        .iter()
        .map(|(_, l)| l.name.text.as_str())
        .collect()
}

/// The library state a state name implies: the name without a numeric suffix (`Goto1` -> `Goto`).
pub fn implied_code(state_name: &str) -> &str {
    let trimmed = state_name.trim_end_matches(|c: char| c.is_ascii_digit());
    if trimmed.is_empty() {
        state_name
    } else {
        trimmed
    }
}

pub fn lower(sources: &SourceMap, libraries: &[String], diags: &mut Diagnostics) -> Module {
    let mut module = Module::default();
    let mut machines = Vec::new();
    let mut statelibs = Vec::new();
    let mut locations = Vec::new();
    let mut scenes = Vec::new();
    let mut sentences = Vec::new();
    let mut manifest = None;
    for (id, file) in sources.iter() {
        if file.name == super::MANIFEST {
            manifest = Some(id);
        }
        match AssetKind::of(&file.name) {
            Some(AssetKind::Machine) => machines.extend(
                parse::<MachineAsset>(sources, id, diags).map(|a| (a, Locator::new(sources, id))),
            ),
            Some(AssetKind::StateLibrary) => statelibs.extend(
                parse::<StateLibraryAsset>(sources, id, diags)
                    .map(|a| (a, Locator::new(sources, id))),
            ),
            Some(AssetKind::Locations) => locations.extend(
                parse::<LocationsAsset>(sources, id, diags).map(|a| (a, Locator::new(sources, id))),
            ),
            Some(AssetKind::Scene) => scenes.extend(
                parse::<SceneAsset>(sources, id, diags).map(|a| (a, Locator::new(sources, id))),
            ),
            // Interaction scripts, smart locations and workbooks: compiler/src/script;
            // navigation graphs: compiler/src/nav; translations: compiler/src/l10n.
            Some(
                AssetKind::Script
                | AssetKind::SmartLocation
                | AssetKind::Workbook
                | AssetKind::Navigation
                | AssetKind::Strings,
            ) => {}
            // Content tests: compiler/src/content_test.
            Some(AssetKind::Test) => {}
            // Planning assets: compiler/src/plan.
            Some(
                AssetKind::ActionList | AssetKind::Domain | AssetKind::Problem | AssetKind::Pddl,
            ) => {}
            Some(AssetKind::Sentences) => sentences.extend(
                parse::<SentencesAsset>(sources, id, diags).map(|a| (a, Locator::new(sources, id))),
            ),
            // HMM spaces and their companions: compiler/src/hpmm, a frontend of its own.
            Some(_) | None => {}
        }
    }
    lower_libraries(&mut module, libraries, manifest, &statelibs, diags);
    lower_locations(&mut module, &locations, diags);
    let bodies = declare_machines(&mut module, &machines, diags);
    super::params::resolve_defaults(&mut module, diags);
    for (machine, asset, loc) in bodies {
        lower_states(&mut module, machine, asset, loc, diags);
    }
    lower_scenes(&mut module, &scenes, diags);
    super::sentences::lower_sentences(&mut module, sources, &sentences, diags);
    super::params::check_sentences(&module, diags);
    if let Some(id) = manifest {
        module.migrations = lower_migrations(sources, id);
    }
    module
}

/// The manifest's `migrations`, with where each name is written. The manifest's own errors
/// were reported as the project was read, so they are not reported again here.
fn lower_migrations(sources: &SourceMap, id: FileId) -> crate::ir::Migrations {
    let Some(manifest) = parse::<Manifest>(sources, id, &mut Diagnostics::default()) else {
        return crate::ir::Migrations::default();
    };
    let loc = Locator::new(sources, id);
    let pairs = |field: &str, list: &[(String, String)]| -> Vec<(Name, Name)> {
        (list.iter().enumerate())
            .map(|(i, (old, new))| {
                let at = |k| {
                    [
                        Seg::Field("migrations"),
                        Seg::Field(field),
                        Seg::Index(i),
                        Seg::Index(k),
                    ]
                };
                (loc.name(old, &at(0)), loc.name(new, &at(1)))
            })
            .collect()
    };
    crate::ir::Migrations {
        agents: pairs("agents", &manifest.migrations.agents),
        states: pairs("states", &manifest.migrations.states),
    }
}

fn lower_libraries(
    module: &mut Module,
    libraries: &[String],
    manifest: Option<FileId>,
    statelibs: &[(StateLibraryAsset, Locator)],
    diags: &mut Diagnostics,
) {
    for lib in libraries {
        if lib == "sim" {
            for decl in ensemble_runtime::stdlib::declarations() {
                module.library.append(LibraryState {
                    name: decl.name,
                    span: None,
                    modifier: decl.spec.modifier,
                    terminal: decl.spec.terminal,
                    raises: decl.spec.raises,
                    doc: decl.spec.doc,
                    standard: true,
                    params: super::params::builtin_params(&decl.spec.params),
                    stand_in: None,
                });
            }
        } else {
            let mut d = Diagnostic::error(
                Code::UnknownReference,
                format!("no built-in state library `{lib}`"),
            )
            .note("built-in libraries: sim");
            if let Some(m) = manifest {
                let loc = Locator {
                    file: m,
                    tree: None,
                };
                d = d.at(loc.span(&[]), "listed in the manifest");
            }
            diags.push(d);
        }
    }
    for (asset, loc) in statelibs {
        for (i, s) in asset.states.iter().enumerate() {
            let span = loc.span(&[Seg::Field("states"), Seg::Index(i), Seg::Field("name")]);
            if let Some(prev) = module.library_by_name(&s.name) {
                let mut d = Diagnostic::error(
                    Code::DuplicateName,
                    format!("library state `{}` is declared twice", s.name),
                )
                .at(span, "declared again here");
                d = match module.library[prev].span {
                    Some(p) => d.related(p, "first declared here"),
                    None => d.note("it is already declared by a built-in library"),
                };
                diags.push(d);
                continue;
            }
            module.library.append(LibraryState {
                name: s.name.clone(),
                span: Some(span),
                modifier: match s.modifier {
                    ModifierKindAsset::None => ModifierKind::None,
                    ModifierKindAsset::Location => ModifierKind::Location,
                    ModifierKindAsset::Machine => ModifierKind::Machine,
                    ModifierKindAsset::Agent => ModifierKind::Agent,
                    ModifierKindAsset::Text => ModifierKind::Text,
                    ModifierKindAsset::Number => ModifierKind::Number,
                },
                terminal: match s.terminal {
                    TerminalAsset::No => Terminal::No,
                    TerminalAsset::End => Terminal::End,
                    TerminalAsset::Failure => Terminal::Failure,
                },
                raises: s.raises.clone(),
                doc: s.doc.clone(),
                standard: false,
                params: super::params::declared_params(s, i, loc, diags),
                stand_in: stand_in(s, i, loc, diags),
            });
        }
    }
}

/// A statelib state's `stand_in`, checked: a time that is a finite number of seconds from 0,
/// an event the state declares it raises (with a did-you-mean). `None` when absent or wrong
/// (reported).
fn stand_in(
    s: &LibraryStateAsset,
    i: usize,
    loc: &Locator,
    diags: &mut Diagnostics,
) -> Option<StandIn> {
    let asset = s.stand_in.as_ref()?;
    let at = |field: &'static str| {
        loc.span(&[
            Seg::Field("states"),
            Seg::Index(i),
            Seg::Field("stand_in"),
            Seg::Field(field),
        ])
    };
    let mut ok = true;
    if let Some(x) = asset.seconds
        && !(x.is_finite() && x >= 0.0)
    {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("the stand-in of `{}` lasts {x} seconds", s.name),
            )
            .at(at("seconds"), "not a number of seconds from 0"),
        );
        ok = false;
    }
    if let Some(event) = &asset.raises {
        let declared = s.raises.as_deref().unwrap_or_default();
        if !declared.contains(event) {
            let d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "the stand-in of `{}` raises `{event}`, which `{}` does not declare",
                    s.name, s.name
                ),
            )
            .at(at("raises"), "not one of its declared events");
            let d = match &s.raises {
                Some(r) if !r.is_empty() => {
                    crate::diag::suggest_note(d, event, r.iter().map(String::as_str))
                        .note(format!("`{}` raises: {}", s.name, r.join(", ")))
                }
                _ => d.note(format!(
                    "`{}` declares no events: list them (`raises: [\"{event}\"]`) so that machines and the stand-in agree",
                    s.name
                )),
            };
            diags.push(d);
            ok = false;
        }
    }
    ok.then(|| StandIn {
        seconds: asset.seconds,
        raises: asset.raises.clone(),
    })
}

fn lower_locations(
    module: &mut Module,
    files: &[(LocationsAsset, Locator)],
    diags: &mut Diagnostics,
) {
    for (asset, loc) in files {
        for (i, l) in asset.locations.iter().enumerate() {
            let name = loc.name(
                &l.name,
                &[Seg::Field("locations"), Seg::Index(i), Seg::Field("name")],
            );
            if let Some(prev) = module.location_by_name(&l.name) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("location `{}` is defined twice", l.name),
                    )
                    .at(name.span, "defined again here")
                    .related(module.locations[prev].name.span, "first defined here"),
                );
                continue;
            }
            if !l.x.is_finite() || !l.y.is_finite() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("location `{}` has a non-finite position", l.name),
                    )
                    .at(name.span, "here"),
                );
                continue;
            }
            module.locations.append(Location {
                name,
                x: l.x,
                y: l.y,
            });
        }
    }
}

/// Appends every machine (without states) so that states can refer to machines in any file.
fn declare_machines<'a>(
    module: &mut Module,
    files: &'a [(MachineAsset, Locator)],
    diags: &mut Diagnostics,
) -> Vec<(Handle<Machine>, &'a MachineAsset, &'a Locator)> {
    let mut bodies = Vec::new();
    for (asset, loc) in files {
        let name = loc.name(&asset.name, &[Seg::Field("name")]);
        if let Some(prev) = module.machine_by_name(&asset.name) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("machine `{}` is defined twice", asset.name),
                )
                .at(name.span, "defined again here")
                .related(module.machines[prev].name.span, "first defined here"),
            );
            continue;
        }
        let h = module.machines.append(Machine {
            name,
            initial: None,
            span: loc.span(&[]),
            states: Vec::new(),
        });
        bodies.push((h, asset, loc));
    }
    bodies
}

fn lower_states(
    module: &mut Module,
    machine: Handle<Machine>,
    asset: &MachineAsset,
    loc: &Locator,
    diags: &mut Diagnostics,
) {
    let machine_name = asset.name.as_str();
    let mut by_name: HashMap<&str, Handle<State>> = HashMap::new();
    // First pass: states, so transitions can target states written later.
    for (i, s) in asset.states.iter().enumerate() {
        let base = [Seg::Field("states"), Seg::Index(i)];
        let path = |f: &'static str| [base[0], base[1], Seg::Field(f)];
        let name = loc.name(&s.name, &path("name"));
        let code_text = s
            .code
            .clone()
            .unwrap_or_else(|| implied_code(&s.name).to_string());
        let code_name = Name {
            text: code_text.clone(),
            span: if s.code.is_some() {
                loc.span(&path("code"))
            } else {
                name.span
            },
        };
        let code = module.library_by_name(&code_text);
        if code.is_none() {
            let what = if s.code.is_some() {
                format!(
                    "state `{}` uses library state `{code_text}`, which does not exist",
                    s.name
                )
            } else {
                format!(
                    "state `{}` has no library state `{code_text}` to run (the name, minus any numeric suffix, names its code)",
                    s.name
                )
            };
            let d = Diagnostic::error(Code::UnknownReference, what)
                .at(code_name.span, "unknown library state");
            let names: Vec<&str> = module
                .library
                .iter()
                .map(|(_, l)| l.name.as_str())
                .collect();
            diags.push(
                with_suggestion(d, &code_text, names)
                    .note("set `code:` to name the library state explicitly"),
            );
        }
        let (modifier, modifier_span, params) =
            lower_values(module, s, code, loc, base, name.span, diags);
        let h = module.states.append(State {
            name,
            machine,
            code_name,
            code,
            modifier,
            modifier_span,
            params,
            transitions: Vec::new(),
        });
        module.machines[machine].states.push(h);
        if let Some(&prev) = by_name.get(s.name.as_str()) {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("machine `{machine_name}` has two states named `{}`", s.name),
                )
                .at(module.states[h].name.span, "second state with this name")
                .related(module.states[prev].name.span, "first one"),
            );
        } else {
            by_name.insert(&s.name, h);
        }
    }
    // Second pass: transitions.
    let state_names: Vec<&str> = asset.states.iter().map(|s| s.name.as_str()).collect();
    let handles = module.machines[machine].states.clone();
    for ((i, s), &h) in asset.states.iter().enumerate().zip(&handles) {
        let mut seen: HashMap<&str, Span> = HashMap::new();
        for (j, (event, target)) in s.on.iter().enumerate() {
            let tpath = [
                Seg::Field("states"),
                Seg::Index(i),
                Seg::Field("on"),
                Seg::Index(j),
            ];
            let event_name = loc.name(
                event,
                &[tpath[0], tpath[1], tpath[2], tpath[3], Seg::Index(0)],
            );
            let target_name = loc.name(
                target,
                &[tpath[0], tpath[1], tpath[2], tpath[3], Seg::Index(1)],
            );
            let resolved = by_name.get(target.as_str()).copied();
            if resolved.is_none() {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!("transition `{event}` of state `{}` goes to `{target}`, which is not a state of machine `{machine_name}`", s.name),
                )
                .at(target_name.span, "no such state");
                diags.push(with_suggestion(d, target, state_names.iter().copied()));
            }
            if let Some(prev) = seen.get(event.as_str()) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("state `{}` has two transitions on `{event}`", s.name),
                    )
                    .at(event_name.span, "second transition on this event")
                    .related(*prev, "first one"),
                );
            } else {
                seen.insert(event, event_name.span);
            }
            module.states[h].transitions.push(Transition {
                event: event_name,
                target_name,
                target: resolved,
            });
        }
    }
    // Initial state.
    let initial = match &asset.initial {
        Some(initial) => {
            let span = loc.span(&[Seg::Field("initial")]);
            let found = by_name.get(initial.as_str()).copied();
            if found.is_none() {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!("initial state `{initial}` is not a state of machine `{machine_name}`"),
                )
                .at(span, "no such state");
                diags.push(with_suggestion(d, initial, state_names.iter().copied()));
            }
            found
        }
        None => {
            let found = by_name.get("Start").copied();
            if found.is_none() {
                diags.push(
                    Diagnostic::error(
                        Code::NoInitialState,
                        format!("machine `{machine_name}` has no initial state"),
                    )
                    .at(module.machines[machine].name.span, "this machine")
                    .note("name one with `initial: \"...\"`, or add a state called `Start`"),
                );
            }
            found
        }
    };
    module.machines[machine].initial = initial;
}

/// A state's modifier or parameter values, by how its library state declares them.
fn lower_values(
    module: &Module,
    s: &StateAsset,
    code: Option<Handle<LibraryState>>,
    loc: &Locator,
    base: [Seg<'_>; 2],
    state_span: Span,
    diags: &mut Diagnostics,
) -> (Modifier, Option<Span>, Vec<StateArg>) {
    let field = |f: &'static str| loc.span(&[base[0], base[1], Seg::Field(f)]);
    let lib = code.map(|c| &module.library[c]);
    if let Some(lib) = lib.filter(|l| !l.params.is_empty()) {
        let span = s.modifier.as_ref().map(|_| field("modifier"));
        let args = super::params::state_args(module, s, lib, loc, base, state_span, diags);
        return (Modifier::None, span, args);
    }
    match lib.and_then(|l| super::params::params_as_modifier(s, l, loc, base, diags)) {
        // `params: {"location": ...}` on a library state with a single modifier.
        Some(value) => {
            let span = field("params");
            let as_modifier = StateAsset {
                modifier: value.clone(),
                ..s.clone()
            };
            let modifier = match value {
                Some(_) => resolve_modifier(module, &as_modifier, code, span, diags),
                None => Modifier::Unresolved,
            };
            (modifier, Some(span), Vec::new())
        }
        None => {
            let span = s.modifier.as_ref().map(|_| field("modifier"));
            let modifier = resolve_modifier(module, s, code, span.unwrap_or(state_span), diags);
            (modifier, span, Vec::new())
        }
    }
}

fn resolve_modifier(
    module: &Module,
    s: &StateAsset,
    code: Option<Handle<LibraryState>>,
    span: Span,
    diags: &mut Diagnostics,
) -> Modifier {
    let Some(code) = code else {
        return if s.modifier.is_some() {
            Modifier::Unresolved
        } else {
            Modifier::None
        };
    };
    let lib = &module.library[code];
    let mismatch = |msg: String| Diagnostic::error(Code::ModifierMismatch, msg).at(span, "here");
    match (lib.modifier, &s.modifier) {
        (ModifierKind::None, None) => Modifier::None,
        (ModifierKind::None, Some(_)) => {
            diags.push(
                mismatch(format!(
                    "state `{}`: library state `{}` takes no modifier",
                    s.name, lib.name
                ))
                .note("remove the `modifier:` field"),
            );
            Modifier::Unresolved
        }
        (kind, None) => {
            // "an agent", "a location": the article follows the kind's first sound.
            let article = if kind.as_str().starts_with(['a', 'e', 'i', 'o', 'u']) {
                "an"
            } else {
                "a"
            };
            diags.push(mismatch(format!(
                "state `{}`: library state `{}` needs {article} {} modifier",
                s.name,
                lib.name,
                kind.as_str()
            )));
            Modifier::Unresolved
        }
        (ModifierKind::Location, Some(ModifierValue::Name(n))) => {
            match module.location_by_name(n) {
                Some(l) => Modifier::Location(l),
                None => {
                    let d = Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "state `{}` goes to location `{n}`, which is not defined",
                            s.name
                        ),
                    )
                    .at(span, "no such location");
                    let names = location_names(module);
                    diags.push(
                        with_suggestion(d, n, names)
                            .note("locations are defined in *.locations.ron files"),
                    );
                    Modifier::Unresolved
                }
            }
        }
        (ModifierKind::Machine, Some(ModifierValue::Name(n))) => match module.machine_by_name(n) {
            Some(m) => Modifier::Machine(m),
            None => {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "state `{}` hosts machine `{n}`, which is not defined",
                        s.name
                    ),
                )
                .at(span, "no such machine");
                let names = machine_names(module);
                diags.push(with_suggestion(d, n, names));
                Modifier::Unresolved
            }
        },
        (ModifierKind::Agent, Some(ModifierValue::Name(n))) => Modifier::Agent(n.clone()),
        (ModifierKind::Text, Some(ModifierValue::Name(n))) => Modifier::Text(n.clone()),
        (ModifierKind::Text, Some(ModifierValue::Number(x))) => Modifier::Text(x.to_string()),
        (ModifierKind::Number, Some(ModifierValue::Number(x))) if x.is_finite() => {
            Modifier::Number(*x)
        }
        (kind, Some(_)) => {
            diags.push(mismatch(format!(
                "state `{}`: library state `{}` takes a {} modifier",
                s.name,
                lib.name,
                kind.as_str()
            )));
            Modifier::Unresolved
        }
    }
}

fn lower_scenes(module: &mut Module, files: &[(SceneAsset, Locator)], diags: &mut Diagnostics) {
    for (asset, loc) in files {
        let name = loc.name(&asset.name, &[Seg::Field("name")]);
        if let Some((_, prev)) = module
            .scenes
            .iter()
            .find(|(_, s)| s.name.text == asset.name)
        {
            diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    format!("scene `{}` is defined twice", asset.name),
                )
                .at(name.span, "defined again here")
                .related(prev.name.span, "first defined here"),
            );
            continue;
        }
        let tick_rate_span = loc.span(&[Seg::Field("tick_rate")]);
        if !(1..=10_000).contains(&asset.tick_rate) {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "tick_rate must be between 1 and 10000 ticks per second, not {}",
                        asset.tick_rate
                    ),
                )
                .at(tick_rate_span, "here"),
            );
        }
        let mut agents: Vec<SceneAgent> = Vec::new();
        // First agent of each name: a scan of `agents` per agent was quadratic (20,000: 38 s).
        let mut first_named: HashMap<&str, usize> = HashMap::new();
        for (i, a) in asset.agents.iter().enumerate() {
            let path = |f: &'static str| [Seg::Field("agents"), Seg::Index(i), Seg::Field(f)];
            let agent_name = loc.name(&a.name, &path("name"));
            let first = *first_named.entry(a.name.as_str()).or_insert(agents.len());
            if let Some(prev) = agents.get(first) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("scene `{}` has two agents named `{}`", asset.name, a.name),
                    )
                    .at(agent_name.span, "second agent with this name")
                    .related(prev.name.span, "first one"),
                );
            }
            let (machine_name, machine) = match &a.machine {
                Some(m) => {
                    let name = loc.name(m, &path("machine"));
                    let found = module.machine_by_name(m);
                    if found.is_none() {
                        let d = Diagnostic::error(
                            Code::UnknownReference,
                            format!(
                                "agent `{}` runs machine `{m}`, which is not defined",
                                a.name
                            ),
                        )
                        .at(name.span, "no such machine");
                        let names = machine_names(module);
                        diags.push(with_suggestion(d, m, names));
                    }
                    (name, found)
                }
                None => {
                    if a.roles.is_empty() && !a.player {
                        diags.push(
                            Diagnostic::error(Code::InvalidValue, format!("agent `{}` has neither a machine nor any roles, so nothing can drive it", a.name))
                                .at(agent_name.span, "idle forever")
                                .note("give it `machine:` (a state machine) or `roles:` (so smart locations can use it)"),
                        );
                    }
                    (
                        Name {
                            text: String::new(),
                            span: agent_name.span,
                        },
                        None,
                    )
                }
            };
            let mut route = Vec::new();
            for (j, stop) in a.route.iter().enumerate() {
                match module.location_by_name(stop) {
                    Some(l) => route.push(l),
                    None => {
                        let span = loc.span(&[
                            Seg::Field("agents"),
                            Seg::Index(i),
                            Seg::Field("route"),
                            Seg::Index(j),
                        ]);
                        let d = Diagnostic::error(
                            Code::UnknownReference,
                            format!(
                                "agent `{}` walks to location `{stop}`, which is not defined",
                                a.name
                            ),
                        )
                        .at(span, "no such location");
                        let names = location_names(module);
                        diags.push(with_suggestion(d, stop, names));
                    }
                }
            }
            if !(a.delay.is_finite() && a.delay >= 0.0) {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "agent `{}`: delay must be a number of seconds, 0 or more",
                            a.name
                        ),
                    )
                    .at(agent_name.span, "here"),
                );
            }
            let at_name = loc.name(&a.at, &path("at"));
            let at = module.location_by_name(&a.at);
            if at.is_none() {
                let d = Diagnostic::error(
                    Code::UnknownReference,
                    format!(
                        "agent `{}` starts at location `{}`, which is not defined",
                        a.name, a.at
                    ),
                )
                .at(at_name.span, "no such location");
                let names = location_names(module);
                diags.push(with_suggestion(d, &a.at, names));
            }
            let [f, n, v] = path("variables");
            let variables = a
                .variables
                .iter()
                .map(|(k, value)| (loc.name(k, &[f, n, v, Seg::Field(k)]), value.clone()))
                .collect();
            agents.push(SceneAgent {
                name: agent_name,
                machine_name,
                machine,
                at_name,
                at,
                roles: a.roles.clone(),
                route,
                group: a.group.clone(),
                delay: a.delay.max(0.0),
                variables,
                player: a.player,
            });
        }
        // Doors opening and closing (resolved by compiler/src/nav; the times are checked with
        // the other scene events in compiler/src/script/location.rs).
        let doors = asset
            .events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                let (at, door, open) = match e {
                    SceneEventAsset::Open { at, door } => (*at, door, true),
                    SceneEventAsset::Close { at, door } => (*at, door, false),
                    _ => return None,
                };
                let door = loc.name(
                    door,
                    &[Seg::Field("events"), Seg::Index(i), Seg::Field("door")],
                );
                Some(crate::ir::nav::SceneEvent { at, door, open })
            })
            .collect();
        // World events for planning agents, kept for the planning stage (compiler/src/plan).
        let events = asset
            .events
            .iter()
            .enumerate()
            .filter_map(|(i, e)| super::planning::WorldEventAsset::of(e).map(|w| (i, w)))
            .map(|(i, e)| {
                let at = |f: &'static str| {
                    loc.span(&[Seg::Field("events"), Seg::Index(i), Seg::Field(f)])
                };
                let each = |f: &'static str, n: usize| {
                    (0..n)
                        .map(|k| {
                            loc.span(&[
                                Seg::Field("events"),
                                Seg::Index(i),
                                Seg::Field(f),
                                Seg::Index(k),
                            ])
                        })
                        .collect()
                };
                crate::ir::plan::EventSource {
                    span: loc.span(&[Seg::Field("events"), Seg::Index(i)]),
                    problem_span: at("problem"),
                    agent_span: at("agent"),
                    perform_span: at("perform"),
                    when_spans: each("when", e.when.len()),
                    set_spans: each("set", e.set.len()),
                    asset: e,
                }
            })
            .collect();
        module.scenes.append(Scene {
            name,
            tick_rate: asset.tick_rate,
            tick_rate_span,
            agents,
            doors,
            events,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn implied_code_strips_numeric_suffix() {
        assert_eq!(implied_code("Goto1"), "Goto");
        assert_eq!(implied_code("Goto12"), "Goto");
        assert_eq!(implied_code("Start"), "Start");
        assert_eq!(implied_code("123"), "123");
    }

    #[test]
    fn suggestions_catch_typos_only() {
        assert_eq!(
            suggest("LeaveAtX", ["Start", "LeaveAtY", "Finish"]),
            Some("LeaveAtY")
        );
        assert_eq!(suggest("goto", ["Goto", "Wait"]), Some("Goto"));
        assert_eq!(suggest("Completely", ["Goto", "Wait"]), None);
    }
}
