//! Lowering to the runtime's program format: intern names to 32-bit ids, flatten machines into
//! contiguous state and transition tables, keep only the library states in use, and record
//! source locations in the debug symbols.

use crate::ir::{self, Handle, Module};
use crate::source::{SourceMap, Span};
use ensemble_runtime::program::debug::{DebugInfo, SourceLoc};
use ensemble_runtime::program::*;
use std::collections::HashMap;
use std::path::Path;

#[derive(Default)]
pub(crate) struct Interner {
    names: Vec<String>,
    index: HashMap<String, NameId>,
}

impl Interner {
    pub(crate) fn intern(&mut self, s: &str) -> NameId {
        if let Some(&id) = self.index.get(s) {
            return id;
        }
        let id = NameId(self.names.len() as u32);
        self.names.push(s.to_string());
        self.index.insert(s.to_string(), id);
        id
    }
}

fn loc(sources: &SourceMap, span: Span) -> Option<SourceLoc> {
    let (line, column) = sources.line_col(span);
    Some(SourceLoc {
        file: span.file.0,
        line: line as u32,
        column: column as u32,
    })
}

/// Emits the program and its debug symbols. Errors here are compiler bugs (validation should
/// have refused the module), reported as such rather than as a panic.
pub fn emit(
    project: &str,
    module: &Module,
    sources: &SourceMap,
) -> Result<(Program, DebugInfo), String> {
    let nav = module.nav.as_ref().and_then(|n| n.data.clone());
    emit_with_nav(project, module, sources, nav)
}

/// [`emit`] with the navigation graph's precomputed data given (moved in rather than copied:
/// it can be the largest part of a program).
pub fn emit_with_nav(
    project: &str,
    module: &Module,
    sources: &SourceMap,
    nav_data: Option<ensemble_runtime::nav::NavData>,
) -> Result<(Program, DebugInfo), String> {
    let mut names = Interner::default();
    let mut library = Vec::new();
    let mut library_ids: HashMap<Handle<ir::LibraryState>, LibraryId> = HashMap::new();
    let mut machines = Vec::new();
    let mut states = Vec::new();
    let mut transitions = Vec::new();
    let mut debug = DebugInfo {
        files: sources.iter().map(|(_, f)| f.name.clone()).collect(),
        ..DebugInfo::default()
    };
    let bug = |what: &str| format!("internal compiler error: {what} survived validation");
    // State ids follow machine order, so each machine's states are contiguous.
    let mut state_ids: HashMap<Handle<ir::State>, StateId> = HashMap::new();
    let mut params = ParamSection::default();
    let mut next = 0u32;
    for (_, machine) in module.machines.iter() {
        for &s in &machine.states {
            state_ids.insert(s, StateId(next));
            next += 1;
        }
    }
    for (mi, (_, machine)) in module.machines.iter().enumerate() {
        let first_state = states.len() as u32;
        let initial = machine
            .initial
            .ok_or_else(|| bug("a machine without initial state"))?;
        machines.push(MachineDef {
            name: names.intern(&machine.name.text),
            initial: state_ids[&initial],
            first_state,
            state_count: machine.states.len() as u32,
        });
        debug.machines.push(loc(sources, machine.name.span));
        for &s in &machine.states {
            let state = &module.states[s];
            let lib = state.code.ok_or_else(|| bug("an unknown library state"))?;
            let next_lib = LibraryId(library.len() as u32);
            let code = *library_ids.entry(lib).or_insert_with(|| {
                let l = &module.library[lib];
                library.push(LibraryState {
                    name: names.intern(&l.name),
                    modifier: l.modifier,
                    terminal: l.terminal,
                });
                next_lib
            });
            let lib = &module.library[lib];
            if !lib.params.is_empty() {
                if code == next_lib {
                    let decls = lib
                        .params
                        .iter()
                        .map(|p| ParamDecl {
                            name: names.intern(&p.name),
                            ty: p.ty.clone(),
                            default: p.default.as_ref().map(|a| param(a, &mut names)),
                        })
                        .collect();
                    params.library.push((code, decls));
                }
                let values = state
                    .params
                    .iter()
                    .map(|a| a.value.as_ref().map(|a| param(a, &mut names)))
                    .collect();
                params.states.push((state_ids[&s], values));
            }
            let modifier = match &state.modifier {
                ir::Modifier::None => Modifier::None,
                ir::Modifier::Location(l) => Modifier::Location(LocationId(l.index() as u32)),
                ir::Modifier::Machine(m) => Modifier::Machine(MachineId(m.index() as u32)),
                ir::Modifier::Agent(a) => Modifier::Agent(names.intern(a)),
                // Pinned line ids (`{#greet} Welcome!`) are the string table's, not words.
                ir::Modifier::Text(t) => {
                    Modifier::Text(names.intern(&crate::l10n::without_pins(t)))
                }
                ir::Modifier::Number(x) => Modifier::Number(*x),
                ir::Modifier::Unresolved => return Err(bug("an unresolved modifier")),
            };
            let first_transition = transitions.len() as u32;
            for t in &state.transitions {
                let target = t
                    .target
                    .ok_or_else(|| bug("an unknown transition target"))?;
                transitions.push(TransitionDef {
                    event: names.intern(&t.event.text),
                    target: state_ids[&target],
                });
                debug.transitions.push(loc(sources, t.event.span));
            }
            states.push(StateDef {
                name: names.intern(&state.name.text),
                machine: MachineId(mi as u32),
                code,
                modifier,
                first_transition,
                transition_count: state.transitions.len() as u32,
            });
            debug.states.push(loc(sources, state.name.span));
        }
    }
    let locations = module
        .locations
        .iter()
        .map(|(_, l)| LocationDef {
            name: names.intern(&l.name.text),
            x: l.x,
            y: l.y,
        })
        .collect();
    let mut scenes = Vec::new();
    for (_, scene) in module.scenes.iter() {
        let mut agents = Vec::new();
        let mut ambient = Vec::new();
        for a in scene.agents.iter().filter(|a| !a.runs_machine()) {
            ambient.push(AmbientAgentDef {
                name: names.intern(&a.name.text),
                start: LocationId(
                    a.at.ok_or_else(|| bug("an unknown agent location"))?
                        .index() as u32,
                ),
                roles: a.roles.iter().map(|r| names.intern(r)).collect(),
                route: a
                    .route
                    .iter()
                    .map(|l| LocationId(l.index() as u32))
                    .collect(),
                group: a.group.as_deref().map(|g| names.intern(g)),
                delay: a.delay,
                player: a.player,
            });
        }
        for a in scene.agents.iter().filter(|a| a.runs_machine()) {
            agents.push(AgentDef {
                name: names.intern(&a.name.text),
                machine: MachineId(
                    a.machine
                        .ok_or_else(|| bug("an unknown agent machine"))?
                        .index() as u32,
                ),
                start: LocationId(
                    a.at.ok_or_else(|| bug("an unknown agent location"))?
                        .index() as u32,
                ),
            });
        }
        scenes.push(SceneDef {
            name: names.intern(&scene.name.text),
            tick_rate: scene.tick_rate,
            agents,
            ambient,
        });
    }
    let scripts = module
        .scripts
        .iter()
        .map(|(_, s)| super::script::emit(s, &mut names))
        .collect::<Result<Vec<_>, _>>()?;
    let smart_locations = module
        .smart_locations
        .iter()
        .map(|(_, l)| super::script::emit_location(l, &mut names))
        .collect::<Result<Vec<_>, String>>()?;
    let scene_events = super::script::emit_scene_events(module, &mut names)?;
    let verify =
        |e: LoadError| format!("internal compiler error: the emitted program does not verify: {e}");
    let speech = super::speech::lower(module, &mut |s| names.intern(s));
    let mut hpmm = crate::hpmm::back::emit(module, &mut |s| names.intern(s))?;
    let mut tallies = crate::hpmm::back::emit_tallies(module)?;
    let planning = super::plan::lower(module, &mut |s| names.intern(s));
    let nav = super::nav::emit(module, nav_data, &mut |s| names.intern(s))?;
    let (strings, slot_values) =
        crate::l10n::lower(module, &state_ids, &mut hpmm, &mut tallies, &mut |s| {
            names.intern(s)
        });
    let game_states = game_states(module, &library_ids, &mut names);
    let declared_in = declared_in(module, sources, &library_ids, &mut names);
    // Every section assembled, then verified once: the only way to a `Program`.
    let program = ProgramParts {
        names: names.names,
        library,
        machines,
        states,
        transitions,
        locations,
        scenes,
        scripts,
        smart_locations,
        scene_events,
        speech,
        hpmm,
        planning,
        nav,
        params,
        strings,
        game_states,
        project: project.to_string(),
        migrations: migrations(&module.migrations),
        declared_in,
        slot_values,
        tallies,
    }
    .verify()
    .map_err(verify)?;
    debug.program_checksum = program.checksum();
    Ok((program, debug))
}

/// The game's own library states the program uses (not the standard ones), in library order:
/// their declared events and stand-ins, for a simulated world without the game's code.
fn game_states(
    module: &Module,
    library_ids: &HashMap<Handle<ir::LibraryState>, LibraryId>,
    names: &mut Interner,
) -> GameStates {
    let mut used: Vec<(LibraryId, Handle<ir::LibraryState>)> = library_ids
        .iter()
        .filter(|(h, _)| !module.library[**h].standard)
        .map(|(h, id)| (*id, *h))
        .collect();
    used.sort_by_key(|(id, _)| *id);
    let states = used
        .into_iter()
        .map(|(library, h)| {
            let l = &module.library[h];
            GameStateDef {
                library,
                raises: l
                    .raises
                    .as_ref()
                    .map(|r| r.iter().map(|e| names.intern(e)).collect()),
                stand_in: l.stand_in.as_ref().map(|s| StandInDef {
                    seconds: s.seconds,
                    raises: s.raises.as_deref().map(|e| names.intern(e)),
                }),
            }
        })
        .collect();
    GameStates { states }
}

/// The `*.statelib.ron` file each game state the program uses is declared in (its name in
/// the project), in library order, for the runtime's link errors.
fn declared_in(
    module: &Module,
    sources: &SourceMap,
    library_ids: &HashMap<Handle<ir::LibraryState>, LibraryId>,
    names: &mut Interner,
) -> DeclaredIn {
    let mut files: Vec<(LibraryId, NameId)> = library_ids
        .iter()
        .filter(|(h, _)| !module.library[**h].standard)
        .filter_map(|(h, id)| {
            let span = module.library[*h].span?;
            Some((*id, names.intern(&sources.get(span.file).name)))
        })
        .collect();
    files.sort_by_key(|(id, _)| *id);
    DeclaredIn { files }
}

/// A resolved parameter value in the program's terms.
fn param(arg: &ir::Arg, names: &mut Interner) -> Param {
    let mut value = |v: &ir::ArgValue| match v {
        ir::ArgValue::Text(t) => ParamValue::Text(names.intern(t)),
        ir::ArgValue::Number(x) => ParamValue::Number(*x),
        ir::ArgValue::Bool(b) => ParamValue::Bool(*b),
        ir::ArgValue::Location(l) => ParamValue::Location(LocationId(l.index() as u32)),
        ir::ArgValue::Agent(a) => ParamValue::Agent(names.intern(a)),
        ir::ArgValue::Machine(m) => ParamValue::Machine(MachineId(m.index() as u32)),
        ir::ArgValue::Sentence(n) => ParamValue::Sentence(names.intern(n)),
        ir::ArgValue::Choice(c) => ParamValue::Choice(names.intern(c)),
    };
    match arg {
        ir::Arg::One(v) => Param::One(value(v)),
        ir::Arg::List(vs) => Param::List(vs.iter().map(value).collect()),
    }
}

/// The paths [`write`] writes: `NAME.ensb` and `NAME.ensdbg` in `dir`.
pub fn paths(dir: &Path, name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    (
        dir.join(format!("{name}.ensb")),
        dir.join(format!("{name}.ensdbg")),
    )
}

/// Writes `NAME.ensb` and `NAME.ensdbg` into `dir` atomically; returns their paths.
pub fn write(
    dir: &Path,
    name: &str,
    program: &Program,
    debug: &DebugInfo,
) -> std::io::Result<(std::path::PathBuf, std::path::PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let (ensb, ensdbg) = paths(dir, name);
    program.save(&ensb)?;
    ensemble_runtime::fs::write_atomic(&ensdbg, &debug.to_bytes())?;
    Ok((ensb, ensdbg))
}

/// The manifest's migrations as the program carries them (checked: the new names exist).
fn migrations(m: &ir::Migrations) -> ensemble_runtime::program::Migrations {
    let text = |pairs: &[(ir::Name, ir::Name)]| -> Vec<(String, String)> {
        (pairs.iter())
            .map(|(old, new)| (old.text.clone(), new.text.clone()))
            .collect()
    };
    ensemble_runtime::program::Migrations {
        agents: text(&m.agents),
        states: text(&m.states),
    }
}
