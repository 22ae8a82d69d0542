//! The state library: the code behind states, registered by the game under names.

use super::context::{Message, StateCx};
use crate::program::{
    LibraryId, ModifierKind, NameId, Param, ParamLiteral, ParamSpec, ParamValue, Program, StateId,
    Terminal,
};
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use thiserror::Error;

/// The code of one library state. One instance is created each time a state using it is
/// entered, so instances may keep per-visit data (a timer, a target).
///
/// State code is `Send` so that a [`Scene`](super::Scene) holding it can move to another
/// thread (a worker, an ECS system's thread pool) and independent scenes can tick in
/// parallel. Per-visit data that is not `Send` (an `Rc`, a `RefCell` shared with other
/// instances) belongs in the game world `G` or behind an `Arc<Mutex<_>>`.
pub trait StateCode<G>: Send + 'static {
    /// Runs when the state is entered.
    fn init(&mut self, _cx: &mut StateCx<'_, G>) {}
    /// Runs every tick while the state is active, with the elapsed time in seconds.
    fn update(&mut self, _cx: &mut StateCx<'_, G>, _dt: f64) {}
    /// Runs when the state is left, after its children have been cleaned up.
    fn cleanup(&mut self, _cx: &mut StateCx<'_, G>) {}
    /// A message reached this state. Return `true` to consume it; otherwise it continues (and
    /// may still take a transition of the same name).
    fn on_message(&mut self, _cx: &mut StateCx<'_, G>, _msg: &Message) -> bool {
        false
    }
    /// The child machine this state hosts ended (`failed` if it reached a failure state); its
    /// frames are already gone. Return `true` to take care of it here; otherwise the state's
    /// `EndStateMachine` / `StateMachineFailed` transition applies (an unhandled failure fails
    /// this state's machine too).
    fn on_child_ended(&mut self, _cx: &mut StateCx<'_, G>, _failed: bool) -> bool {
        false
    }
    /// A hot reload replaced the program while this state stayed active (`cx` already sees the
    /// new program; `old` is the one it replaced). Returns a line for the reload report when
    /// something could not be carried over.
    fn on_reload(&mut self, _cx: &mut StateCx<'_, G>, _old: &Program) -> Option<String> {
        None
    }
    /// A savegame is taken (`crate::snapshot`): returns this instance's own data — a timer's
    /// time left, a walk's route — in any encoding [`StateCode::restore`] reads back
    /// ([`crate::snapshot::encode`] writes a serde value). Ids of `program` mean nothing in a
    /// rebuilt one: save names where a snapshot may be restored onto an edited program. The
    /// default saves nothing, which is right for code whose instances keep no data between
    /// calls.
    fn save(&self, _program: &Program) -> Vec<u8> {
        Vec::new()
    }
    /// A savegame is restored: a fresh instance (from the library's factory; `init` does not
    /// run) takes back what [`StateCode::save`] returned, under `program` (the running one,
    /// perhaps rebuilt since). An error says why the data cannot be used; the state is then
    /// entered afresh and the restore report says so. The default accepts only no data.
    fn restore(&mut self, _program: &Program, data: &[u8]) -> Result<(), String> {
        if data.is_empty() {
            Ok(())
        } else {
            Err(format!(
                "{} bytes of saved data, but this state's code restores none",
                data.len()
            ))
        }
    }
}

/// Code that does nothing: `Start`, `Finish`, `Listen`-like states whose behaviour is all in
/// their transitions.
pub struct Inert;
impl<G> StateCode<G> for Inert {}

/// What a library state declares to the compiler: its modifier type (or its named parameters),
/// whether it ends its machine, and the events its code raises (`None`: not declared, any event
/// may be used).
#[derive(Clone, Debug, PartialEq)]
pub struct StateSpec {
    /// The kind of the single modifier the state takes (`ModifierKind::None` when it takes
    /// named parameters or nothing).
    pub modifier: ModifierKind,
    /// Named, typed parameters (docs/formats/statelib.md); empty when the state takes its single
    /// `modifier` (or nothing).
    pub params: Vec<ParamSpec>,
    /// Whether entering the state ends its machine, successfully or as a failure.
    pub terminal: Terminal,
    /// The events the state's code raises; `None` when not declared (any event may be used).
    pub raises: Option<Vec<String>>,
    /// One or two lines for the editor's picker and the compiler's hints.
    pub doc: String,
}

impl StateSpec {
    /// A declaration with the given single modifier, not terminal, raising undeclared events,
    /// without doc.
    pub fn new(modifier: ModifierKind) -> Self {
        StateSpec {
            modifier,
            params: Vec::new(),
            terminal: Terminal::No,
            raises: None,
            doc: String::new(),
        }
    }

    /// Declares the state's named parameters. They are its whole declaration: the single
    /// modifier becomes `None`.
    pub fn params<I: IntoIterator<Item = ParamSpec>>(mut self, params: I) -> Self {
        self.modifier = ModifierKind::None;
        self.params = params.into_iter().collect();
        self
    }

    /// The parameters the state takes: its declared ones, or its single modifier as one
    /// parameter named after its kind.
    pub fn parameters(&self) -> Vec<ParamSpec> {
        if self.params.is_empty() {
            ParamSpec::of_modifier(self.modifier).into_iter().collect()
        } else {
            self.params.clone()
        }
    }

    /// Declares whether the state ends its machine.
    pub fn terminal(mut self, terminal: Terminal) -> Self {
        self.terminal = terminal;
        self
    }

    /// Declares the events the state's code raises.
    pub fn raises<I: IntoIterator<Item = S>, S: Into<String>>(mut self, events: I) -> Self {
        self.raises = Some(events.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the doc line shown to designers.
    pub fn doc(mut self, doc: &str) -> Self {
        self.doc = doc.to_string();
        self
    }

    /// The declaration `program` was compiled against for its library state `id`: code
    /// registered with it links by construction (a simulated world's stand-in does). Without
    /// a doc; raising the events the program's game-state section declares, if any.
    pub fn compiled(program: &Program, id: LibraryId) -> StateSpec {
        let need = &program.library[id.index()];
        let mut spec = StateSpec::new(need.modifier).terminal(need.terminal);
        if let Some(decls) = program.params.decls(id) {
            spec = spec.params(decls.iter().map(|d| ParamSpec {
                name: program.name(d.name).to_string(),
                ty: d.ty.clone(),
                default: d.default.as_ref().map(|p| literal(program, p)),
            }));
        }
        match program.game_states.get(id).and_then(|g| g.raises.as_ref()) {
            Some(raises) => spec.raises(raises.iter().map(|e| program.name(*e))),
            None => spec,
        }
    }
}

/// A program's parameter value as written in a declaration.
fn literal(program: &Program, param: &Param) -> ParamLiteral {
    let one = |v: &ParamValue| match *v {
        ParamValue::Text(n)
        | ParamValue::Agent(n)
        | ParamValue::Sentence(n)
        | ParamValue::Choice(n) => ParamLiteral::Text(program.name(n).to_string()),
        ParamValue::Number(x) => ParamLiteral::Number(x),
        ParamValue::Bool(b) => ParamLiteral::Bool(b),
        ParamValue::Location(l) => {
            ParamLiteral::Text(program.name(program.locations[l.index()].name).to_string())
        }
        ParamValue::Machine(m) => {
            ParamLiteral::Text(program.name(program.machine(m).name).to_string())
        }
    };
    match param {
        Param::One(v) => one(v),
        Param::List(items) => ParamLiteral::List(items.iter().map(one).collect()),
    }
}

/// A named library declaration, as the compiler sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct LibraryDecl {
    /// The state's name, as states in sources refer to it.
    pub name: String,
    /// Its declaration.
    pub spec: StateSpec,
}

/// Makes a fresh instance of a state's code. `Send + Sync` so that a library moves with its
/// scene to another thread and can be read (its declarations) from any thread.
type Factory<G> = Box<dyn Fn() -> Box<dyn StateCode<G>> + Send + Sync>;

/// Makes a state's code factory for one program, resolving the names the code uses
/// ([`StateLibrary::register_linked`]); run each time a scene links a program.
type Linker<G> = Box<dyn Fn(&Names<'_>) -> Result<Arc<Factory<G>>, LinkError> + Send + Sync>;

/// How a registered state's code is made.
enum Make<G> {
    /// The same factory for every program.
    Code(Arc<Factory<G>>),
    /// A factory made for each program linked, with the names it uses resolved.
    Linked(Linker<G>),
}

struct Entry<G> {
    /// `None`: registered with [`StateLibrary::register_declared`] or
    /// [`StateLibrary::register_linked`], the program's declaration.
    spec: Option<StateSpec>,
    make: Make<G>,
}

/// An event a game state's code raises, resolved against the program as the scene links it
/// ([`Names::event`]): [`StateCx::raise`] with it looks nothing up, and a misspelt name stops
/// the program from linking instead of being dropped each frame. A state that was running when
/// a rebuild was hot-reloaded keeps the handles made for the program before: they are then
/// looked up by name in the new one (states entered afterwards get the new program's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventName {
    id: NameId,
    name: &'static str,
    program: u64,
}

/// A parameter of a game state, resolved against the program's declaration as the scene links
/// it ([`Names::param`]): reading it with [`StateCx::param`] (and the typed readers) looks
/// nothing up by name — in the program it was resolved against; in a hot-reloaded rebuild, by
/// name, as [`EventName`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamName {
    slot: ParamSlot,
    name: &'static str,
    program: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ParamSlot {
    /// The n-th declared parameter.
    Declared(u32),
    /// The state's single modifier (a state declared without named parameters).
    Modifier,
}

/// A parameter as state code names it: by its name (`"blend"`, looked up on each read) or as
/// resolved when the scene linked ([`ParamName`]).
pub trait ParamKey {
    /// The value the state `state` gives the parameter (or the declared default).
    fn value<'p>(&self, program: &'p Program, state: StateId) -> Option<Cow<'p, Param>>;
}

impl ParamKey for &str {
    fn value<'p>(&self, program: &'p Program, state: StateId) -> Option<Cow<'p, Param>> {
        program.param(state, self)
    }
}

impl ParamKey for &String {
    fn value<'p>(&self, program: &'p Program, state: StateId) -> Option<Cow<'p, Param>> {
        program.param(state, self)
    }
}

impl ParamKey for ParamName {
    fn value<'p>(&self, program: &'p Program, state: StateId) -> Option<Cow<'p, Param>> {
        if program.serial() != self.program {
            return program.param(state, self.name);
        }
        match self.slot {
            ParamSlot::Declared(i) => program.param_at(state, i as usize),
            ParamSlot::Modifier => {
                let kind = program.library[program.state(state).code.index()].modifier;
                program.param(state, kind.as_str())
            }
        }
    }
}

/// An event as state code names it: by its name (looked up on each raise; an event the
/// program never mentions is dropped) or as resolved when the scene linked ([`EventName`]).
pub trait EventKey {
    /// The event's name in `program`, if the program has it.
    fn id(&self, program: &Program) -> Option<NameId>;
}

impl EventKey for &str {
    fn id(&self, program: &Program) -> Option<NameId> {
        program.name_id(self)
    }
}

impl EventKey for &String {
    fn id(&self, program: &Program) -> Option<NameId> {
        program.name_id(self)
    }
}

impl EventKey for EventName {
    fn id(&self, program: &Program) -> Option<NameId> {
        if program.serial() == self.program {
            Some(self.id)
        } else {
            program.name_id(self.name)
        }
    }
}

/// One game state of the program being linked, as its declaration (the project's
/// `*.statelib.ron`) has it: the names its code uses are resolved here, once per program, and
/// a name the declaration lacks stops the program from linking with what to fix.
pub struct Names<'p> {
    program: &'p Program,
    library: LibraryId,
}

impl<'p> Names<'p> {
    /// The program being linked.
    pub fn program(&self) -> &'p Program {
        self.program
    }

    /// The state's name.
    pub fn state(&self) -> &'p str {
        self.program
            .name(self.program.library[self.library.index()].name)
    }

    /// The event `name`, which the state's code raises: one of the events its declaration
    /// lists under `raises`, or (a declaration without `raises`) one the program's transitions
    /// take.
    pub fn event(&self, name: &'static str) -> Result<EventName, LinkError> {
        let declared = (self.program.game_states.get(self.library))
            .and_then(|g| g.raises.as_ref())
            .map(|r| r.iter().map(|&e| self.program.name(e)).collect::<Vec<_>>());
        let id = self.program.name_id(name);
        let known = match &declared {
            Some(list) => list.contains(&name),
            None => id.is_some_and(|e| self.program.transitions.iter().any(|t| t.event == e)),
        };
        match (known, id) {
            (true, Some(id)) => Ok(EventName {
                id,
                name,
                program: self.program.serial(),
            }),
            _ => Err(LinkError::UnknownName {
                state: self.state().to_string(),
                declared: declared_in(self.program, self.library, " in "),
                what: "event",
                name: name.to_string(),
                known: match declared {
                    Some(list) => format!("it raises: {}", or_none(&list)),
                    None => "it lists no `raises`, and no transition takes it".to_string(),
                },
            }),
        }
    }

    /// The parameter `name` of the state: one its declaration lists under `params`, or the
    /// single modifier, named after its kind (`location`, `text`, …).
    pub fn param(&self, name: &'static str) -> Result<ParamName, LinkError> {
        let program = self.program;
        let declared: Vec<&str> = match program.params.decls(self.library) {
            Some(decls) => decls.iter().map(|d| program.name(d.name)).collect(),
            None => {
                let kind = program.library[self.library.index()].modifier;
                (kind != ModifierKind::None)
                    .then(|| kind.as_str())
                    .into_iter()
                    .collect()
            }
        };
        let slot = match declared.iter().position(|d| *d == name) {
            Some(i) if program.params.decls(self.library).is_some() => {
                Some(ParamSlot::Declared(i as u32))
            }
            Some(_) => Some(ParamSlot::Modifier),
            None => None,
        };
        let program_serial = program.serial();
        let handle = |slot| ParamName {
            slot,
            name,
            program: program_serial,
        };
        slot.map(handle).ok_or_else(|| LinkError::UnknownName {
            state: self.state().to_string(),
            declared: declared_in(self.program, self.library, " in "),
            what: "parameter",
            name: name.to_string(),
            known: format!("its parameters: {}", or_none(&declared)),
        })
    }
}

/// What to do about a name a state's code uses that its declaration lacks.
fn unknown_name_fix(what: &str) -> &'static str {
    if what == "event" {
        "list it under the state's `raises` in its `*.statelib.ron`, or correct the name in the code"
    } else {
        "declare it under the state's `params` in its `*.statelib.ron`, or correct the name in the \
         code"
    }
}

/// Where `program` says game state `library` is declared, after `lead` (` in `, ` (declared
/// in `, closed to match), or nothing for a standard state or an older program.
fn declared_in(program: &Program, library: LibraryId, lead: &str) -> String {
    let Some(file) = program.declared_in.file(library) else {
        return String::new();
    };
    let close = if lead.contains('(') { ")" } else { "" };
    format!("{lead}`{}`{close}", program.name(file))
}

/// `a, b, c`, or `none`.
fn or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "none".to_string()
    } else {
        names.join(", ")
    }
}

/// What each library state of one program runs, as linked: the factory registered then, or
/// one made for this program. Scenes keep it beside their library and make it anew with each
/// program they link, so a registration made since takes effect at the next link (a reload),
/// never halfway.
pub(crate) struct Links<G> {
    made: Vec<Arc<Factory<G>>>,
}

impl<G> Links<G> {
    /// A fresh instance of the code of library state `id`, for one visit of a state.
    pub(crate) fn instantiate(&self, id: LibraryId) -> Box<dyn StateCode<G>> {
        (self.made[id.index()])()
    }
}

/// The game's state library: name -> code factory and declaration. `Send` and `Sync` whatever
/// the world `G`: it moves with its scene to another thread.
pub struct StateLibrary<G> {
    entries: Vec<(String, Entry<G>)>,
    index: HashMap<String, usize>,
}

impl<G> Default for StateLibrary<G> {
    fn default() -> Self {
        StateLibrary {
            entries: Vec::new(),
            index: HashMap::new(),
        }
    }
}

/// What to do about a registration that disagrees with the program's declaration.
const FIX: &str = ". The declaration is the project's (its entry in a `*.statelib.ron`, by \
    name): register the state with \
    `StateLibrary::register_declared` (C: `ens_library_register_declared`), which takes the \
    program's declaration, or make the registration agree and rebuild the project";

/// Why a program cannot run against a state library.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum LinkError {
    /// The program uses a library state (named here) that the game did not register.
    #[error(
        "the program needs library state `{name}`{declared}, which the game did not register \
         (the standard states come with `stdlib::library()`; register the game's own with \
         `StateLibrary::register_declared`)"
    )]
    Missing {
        /// The library state.
        name: String,
        /// Where the project declares it (` (declared in `game.statelib.ron`)`), or empty.
        declared: String,
    },
    /// A hot reload offered a program built from another project than the running one.
    #[error(
        "the program was built from project `{offered}`, but the scene runs project `{running}`: \
         a hot reload takes only a rebuild of the running project (start the scene afresh to run \
         another)"
    )]
    OtherProject {
        /// The running program's project.
        running: String,
        /// The offered program's project.
        offered: String,
    },
    /// The state is registered with another single modifier kind than the program's.
    #[error(
        "library state `{name}` takes a {registered} modifier, but the program was compiled for a {expected} modifier{declared}{FIX}"
    )]
    ModifierMismatch {
        /// The library state.
        name: String,
        /// Where the project declares it (` (declared in `game.statelib.ron`)`), or empty.
        declared: String,
        /// The modifier kind the game registered.
        registered: &'static str,
        /// The modifier kind the program was compiled for.
        expected: &'static str,
    },
    /// The state is registered with other named parameters than the program's.
    #[error(
        "library state `{name}` is registered with other parameters than the program was compiled for{declared}: {difference}{FIX}"
    )]
    ParamsMismatch {
        /// The library state.
        name: String,
        /// Where the project declares it (` (declared in `game.statelib.ron`)`), or empty.
        declared: String,
        /// What differs, parameter by parameter.
        difference: String,
    },
    /// State code resolving its names as the scene links ([`StateLibrary::register_linked`])
    /// named an event or parameter the state's declaration does not have.
    #[error(
        "library state `{state}`'s code uses the {what} `{name}`, but its declaration{declared} \
         does not have it ({known}): {fix}",
        fix = unknown_name_fix(what)
    )]
    UnknownName {
        /// The library state.
        state: String,
        /// Where the project declares it (` in `game.statelib.ron``), or empty.
        declared: String,
        /// `event` or `parameter`.
        what: &'static str,
        /// The name the code used.
        name: String,
        /// What the declaration has.
        known: String,
    },
    /// The state is registered as ending its machine differently than the program expects.
    #[error(
        "library state `{name}` is registered as {registered:?} but the program expects {expected:?}{declared}{FIX}"
    )]
    TerminalMismatch {
        /// The library state.
        name: String,
        /// Where the project declares it (` (declared in `game.statelib.ron`)`), or empty.
        declared: String,
        /// How the game registered it.
        registered: Terminal,
        /// How the program was compiled to expect it.
        expected: Terminal,
    },
}

impl<G> StateLibrary<G> {
    /// An empty library; add the standard states with [`crate::stdlib`] and the game's own with
    /// [`StateLibrary::register`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers (or replaces) a library state: `make` creates the code of one visit of a
    /// state that uses it. `spec` must agree with the program's declaration (the project's
    /// `*.statelib.ron`), or the program does not link; a game state whose declaration is the
    /// statelib file's registers with [`StateLibrary::register_declared`] instead.
    pub fn register<F>(&mut self, name: &str, spec: StateSpec, make: F) -> &mut Self
    where
        F: Fn() -> Box<dyn StateCode<G>> + Send + Sync + 'static,
    {
        self.insert(name, Some(spec), Make::Code(Arc::new(Box::new(make))))
    }

    /// Registers (or replaces) a game state declared only in the project's `*.statelib.ron`:
    /// the program carries that declaration (modifier, parameters with their defaults,
    /// terminal kind, events), and linking takes it as the state's — the game writes the code
    /// and never the declaration again, so the two cannot disagree.
    ///
    /// ```
    /// # use ensemble_runtime::hsm::{Inert, StateLibrary};
    /// # let mut library: StateLibrary<()> = StateLibrary::new();
    /// library.register_declared("PlayAnimation", || Box::new(Inert));
    /// ```
    pub fn register_declared<F>(&mut self, name: &str, make: F) -> &mut Self
    where
        F: Fn() -> Box<dyn StateCode<G>> + Send + Sync + 'static,
    {
        self.insert(name, None, Make::Code(Arc::new(Box::new(make))))
    }

    /// Registers (or replaces) a game state declared in the project's `*.statelib.ron`, as
    /// [`StateLibrary::register_declared`] does, whose code names its events and parameters
    /// typed: `link` resolves them once for each program a scene links ([`Names`]) and
    /// returns the state's code as each visit starts (cloned for each), keeping them. A name
    /// the declaration
    /// lacks stops the program from linking ([`LinkError::UnknownName`], at start, restore
    /// or reload), where a misspelt string would be dropped or read as missing every frame.
    ///
    /// ```
    /// # use ensemble_runtime::hsm::{EventName, ParamName, StateCode, StateCx, StateLibrary};
    /// #[derive(Clone)]
    /// struct Hammer { done: EventName, strikes: ParamName, left: f64 }
    /// impl StateCode<()> for Hammer {
    ///     fn init(&mut self, cx: &mut StateCx<'_, ()>) {
    ///         self.left = cx.number_param(self.strikes).unwrap_or(3.0);
    ///     }
    ///     fn update(&mut self, cx: &mut StateCx<'_, ()>, dt: f64) {
    ///         self.left -= dt;
    ///         if self.left <= 0.0 {
    ///             cx.raise(self.done);
    ///         }
    ///     }
    /// }
    /// let mut library: StateLibrary<()> = StateLibrary::new();
    /// library.register_linked("Hammer", |names| {
    ///     let (done, strikes) = (names.event("Done")?, names.param("strikes")?);
    ///     Ok(Hammer { done, strikes, left: 0.0 })
    /// });
    /// ```
    pub fn register_linked<L, S>(&mut self, name: &str, link: L) -> &mut Self
    where
        L: Fn(&Names<'_>) -> Result<S, LinkError> + Send + Sync + 'static,
        S: StateCode<G> + Clone + Sync,
    {
        let linker: Linker<G> = Box::new(move |names| {
            let first = link(names)?;
            let make: Factory<G> = Box::new(move || Box::new(first.clone()));
            Ok(Arc::new(make))
        });
        self.insert(name, None, Make::Linked(linker))
    }

    fn insert(&mut self, name: &str, spec: Option<StateSpec>, make: Make<G>) -> &mut Self {
        let entry = Entry { spec, make };
        match self.index.get(name) {
            Some(&i) => self.entries[i].1 = entry,
            None => {
                self.index.insert(name.to_string(), self.entries.len());
                self.entries.push((name.to_string(), entry));
            }
        }
        self
    }

    /// Whether code is registered under `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// The declarations of every state registered with one, in registration order (a state
    /// registered with [`StateLibrary::register_declared`] has the program's).
    pub fn declarations(&self) -> Vec<LibraryDecl> {
        self.entries
            .iter()
            .filter_map(|(name, e)| {
                Some(LibraryDecl {
                    name: name.clone(),
                    spec: e.spec.clone()?,
                })
            })
            .collect()
    }

    /// Maps each library state the program needs to a registered entry, checking that the
    /// declarations agree with what the program was compiled against.
    pub(crate) fn link(&self, program: &Program) -> Result<Links<G>, LinkError> {
        let made = program
            .library
            .iter()
            .enumerate()
            .map(|(li, need)| {
                let name = program.name(need.name);
                let &i = self.index.get(name).ok_or_else(|| LinkError::Missing {
                    name: name.to_string(),
                    declared: declared_in(program, LibraryId(li as u32), " (declared in "),
                })?;
                let entry = &self.entries[i].1;
                let code = match &entry.make {
                    Make::Code(code) => code,
                    Make::Linked(link) => {
                        let library = LibraryId(li as u32);
                        return link(&Names { program, library });
                    }
                };
                let Some(spec) = &entry.spec else {
                    return Ok(code.clone()); // the program's declaration, by construction
                };
                if spec.modifier != need.modifier {
                    return Err(LinkError::ModifierMismatch {
                        name: name.to_string(),
                        declared: declared_in(program, LibraryId(li as u32), " (declared in "),
                        registered: spec.modifier.as_str(),
                        expected: need.modifier.as_str(),
                    });
                }
                if let Some(difference) = params_difference(program, LibraryId(li as u32), spec) {
                    return Err(LinkError::ParamsMismatch {
                        name: name.to_string(),
                        declared: declared_in(program, LibraryId(li as u32), " (declared in "),
                        difference,
                    });
                }
                if spec.terminal != need.terminal {
                    return Err(LinkError::TerminalMismatch {
                        name: name.to_string(),
                        declared: declared_in(program, LibraryId(li as u32), " (declared in "),
                        registered: spec.terminal,
                        expected: need.terminal,
                    });
                }
                Ok(code.clone())
            })
            .collect::<Result<_, _>>()?;
        Ok(Links { made })
    }
}

/// How the registered parameters differ from those the program declares for the same library
/// state (names, order, types and which are required must agree; the program's defaults are
/// the ones used), or `None` when they agree.
fn params_difference(program: &Program, id: LibraryId, spec: &StateSpec) -> Option<String> {
    let declared = program.params.decls(id).unwrap_or(&[]);
    if declared.len() != spec.params.len() {
        return Some(format!(
            "{} parameters registered, {} in the program",
            spec.params.len(),
            declared.len()
        ));
    }
    for (d, r) in declared.iter().zip(&spec.params) {
        let name = program.name(d.name);
        if name != r.name {
            return Some(format!(
                "parameter `{}` is registered where the program has `{name}`",
                r.name
            ));
        }
        if d.ty != r.ty {
            return Some(format!(
                "parameter `{name}` is registered as {} but the program has {}",
                r.ty.describe(),
                d.ty.describe()
            ));
        }
        if d.default.is_some() != r.default.is_some() {
            let required = |b: bool| if b { "optional" } else { "required" };
            return Some(format!(
                "parameter `{name}` is registered {} but the program has it {}",
                required(r.default.is_some()),
                required(d.default.is_some())
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A handle made for one program holds its id there; in a hot-reloaded rebuild (another
    /// program, its ids maybe moved) it is looked up by name, and misses what is gone.
    #[test]
    fn a_handle_holds_in_its_program_and_is_looked_up_by_name_in_another() {
        let bytes = include_bytes!("../../examples/programs/params-game.ensb");
        let first = Program::from_bytes(bytes).unwrap();
        let rebuilt = Program::from_bytes(bytes).unwrap();
        let other =
            Program::from_bytes(include_bytes!("../../examples/tavern/tavern.ensb")).unwrap();
        assert_ne!(first.serial(), rebuilt.serial());
        let play = (first.library.iter())
            .position(|l| first.name(l.name) == "PlayAnimation")
            .unwrap();
        let names = Names {
            program: &first,
            library: LibraryId(play as u32),
        };
        let done = names.event("AnimationDone").unwrap();
        assert_eq!(done.id(&first), first.name_id("AnimationDone"));
        assert_eq!(done.id(&rebuilt), rebuilt.name_id("AnimationDone"));
        assert_eq!(done.id(&other), None);
        let blend = names.param("blend").unwrap();
        assert_eq!(blend.program, first.serial());
    }
}
