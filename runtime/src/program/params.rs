//! Typed, named parameters of library states (docs/formats/statelib.md, "Parameters").
//!
//! A library state declared with `params` takes any number of named values, each of a declared
//! type, with an optional default. The program keeps those declarations and every state's values
//! in the parameter section, [`ParamSection`]; library states declared the older way, with one
//! `modifier` kind, keep their value in [`super::StateDef::modifier`] and have no entry here.
//!
//! Types and values are deliberately flat (a list holds single values, never lists), so a
//! hostile program file cannot nest them deep enough to exhaust the decoder's stack.

use super::{LibraryId, LocationId, MachineId, ModifierKind, NameId, StateId};
use serde::{Deserialize, Serialize};

/// The type of one value: what a parameter (or each item of a list parameter) holds.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ParamKind {
    /// Free text.
    Text,
    /// A finite number.
    Number,
    /// `true` or `false`.
    Bool,
    /// A named location of the project.
    Location,
    /// An agent of the scenes that run the state, by name.
    Agent,
    /// A machine of the project (a value the code reads; only a single `Machine` modifier
    /// hosts its machine).
    Machine,
    /// A sentence state of the project ([sentence.md](../../../docs/formats/sentence.md)).
    Sentence,
    /// One of the listed words.
    OneOf(Vec<String>),
}

impl ParamKind {
    /// The kind in the words diagnostics and the editor use (`text`, `one of "a", "b"`).
    pub fn describe(&self) -> String {
        match self {
            ParamKind::Text => "text".into(),
            ParamKind::Number => "number".into(),
            ParamKind::Bool => "bool".into(),
            ParamKind::Location => "location".into(),
            ParamKind::Agent => "agent".into(),
            ParamKind::Machine => "machine".into(),
            ParamKind::Sentence => "sentence state".into(),
            ParamKind::OneOf(words) => {
                let words: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
                format!("one of {}", words.join(", "))
            }
        }
    }
}

/// The declared type of a parameter: one value of a kind, or a list of them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ParamType {
    /// The kind of each value.
    pub kind: ParamKind,
    /// A list of values of `kind` rather than one.
    pub list: bool,
}

impl ParamType {
    /// One value of `kind`.
    pub fn one(kind: ParamKind) -> Self {
        ParamType { kind, list: false }
    }

    /// A list of values of `kind`.
    pub fn list_of(kind: ParamKind) -> Self {
        ParamType { kind, list: true }
    }

    /// The type of the one parameter a single `modifier` kind declares (`None` for
    /// [`ModifierKind::None`]).
    pub fn of_modifier(kind: ModifierKind) -> Option<Self> {
        let kind = match kind {
            ModifierKind::None => return None,
            ModifierKind::Location => ParamKind::Location,
            ModifierKind::Machine => ParamKind::Machine,
            ModifierKind::Agent => ParamKind::Agent,
            ModifierKind::Text => ParamKind::Text,
            ModifierKind::Number => ParamKind::Number,
        };
        Some(ParamType::one(kind))
    }

    /// The type in words (`number`, `list of location`).
    pub fn describe(&self) -> String {
        if self.list {
            format!("list of {}", self.kind.describe())
        } else {
            self.kind.describe()
        }
    }
}

/// A default as a game or a `*.statelib.ron` writes it, before names are resolved: locations,
/// agents, machines, sentence states and listed words are given as text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamLiteral {
    /// Text, or the name of a location, agent, machine, sentence state or listed word.
    Text(String),
    /// A number.
    Number(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A list, for a list parameter.
    List(Vec<ParamLiteral>),
}

/// One parameter a library state declares: its name, type and default (`None`: required).
#[derive(Clone, Debug, PartialEq)]
pub struct ParamSpec {
    /// The name a state sets it by.
    pub name: String,
    /// Its type.
    pub ty: ParamType,
    /// The value a state that does not set it gets; `None`: every state must set it.
    pub default: Option<ParamLiteral>,
}

impl ParamSpec {
    /// A parameter every state using the library state must set.
    pub fn required(name: &str, ty: ParamType) -> Self {
        ParamSpec {
            name: name.to_string(),
            ty,
            default: None,
        }
    }

    /// A parameter that falls back to `default` when a state does not set it.
    pub fn optional(name: &str, ty: ParamType, default: ParamLiteral) -> Self {
        ParamSpec {
            name: name.to_string(),
            ty,
            default: Some(default),
        }
    }

    /// The one parameter a single `modifier` kind stands for: named after the kind
    /// (`location`, `machine`, `agent`, `text`, `number`), required.
    pub fn of_modifier(kind: ModifierKind) -> Option<Self> {
        ParamType::of_modifier(kind).map(|ty| ParamSpec::required(kind.as_str(), ty))
    }
}

/// One resolved value in a program.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum ParamValue {
    /// Text, interned in the program's names.
    Text(NameId),
    /// A finite number.
    Number(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A location of the program.
    Location(LocationId),
    /// An agent, by name (resolved to the scene's agent when the state runs).
    Agent(NameId),
    /// A machine of the program.
    Machine(MachineId),
    /// A sentence state, by name.
    Sentence(NameId),
    /// The chosen word of a `OneOf` parameter.
    Choice(NameId),
}

impl ParamValue {
    /// Whether the value is of `kind` (a choice: one of its words, looked up in `names`).
    pub fn fits(&self, kind: &ParamKind, names: &[String]) -> bool {
        match (self, kind) {
            (ParamValue::Text(_), ParamKind::Text)
            | (ParamValue::Bool(_), ParamKind::Bool)
            | (ParamValue::Location(_), ParamKind::Location)
            | (ParamValue::Agent(_), ParamKind::Agent)
            | (ParamValue::Machine(_), ParamKind::Machine)
            | (ParamValue::Sentence(_), ParamKind::Sentence) => true,
            (ParamValue::Number(x), ParamKind::Number) => x.is_finite(),
            (ParamValue::Choice(n), ParamKind::OneOf(words)) => names
                .get(n.index())
                .is_some_and(|w| words.iter().any(|x| x == w)),
            _ => false,
        }
    }
}

/// A parameter's value: one value, or a list for a list parameter.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Param {
    /// The value of a parameter of one value.
    One(ParamValue),
    /// The values of a list parameter, in the order written.
    List(Vec<ParamValue>),
}

impl Param {
    /// Whether the value is of type `ty`.
    pub fn fits(&self, ty: &ParamType, names: &[String]) -> bool {
        match self {
            Param::One(v) => !ty.list && v.fits(&ty.kind, names),
            Param::List(items) => ty.list && items.iter().all(|v| v.fits(&ty.kind, names)),
        }
    }

    /// The single value (`None` for a list).
    pub fn one(&self) -> Option<ParamValue> {
        match self {
            Param::One(v) => Some(*v),
            Param::List(_) => None,
        }
    }
}

/// A declared parameter in a program.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamDecl {
    /// Its name.
    pub name: NameId,
    /// Its type.
    pub ty: ParamType,
    /// `None`: every state must set it.
    pub default: Option<Param>,
}

/// The parameter section (since version 6): the declarations of the library states declared
/// with `params`, and the values of every state running one of them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ParamSection {
    /// By library id, ascending, each library state at most once.
    pub library: Vec<(LibraryId, Vec<ParamDecl>)>,
    /// By state id, ascending: one slot per declared parameter of the state's library state,
    /// in declaration order; `None` takes the default.
    pub states: Vec<(StateId, Vec<Option<Param>>)>,
}

impl ParamSection {
    /// The parameters `library` declares, if it was declared with `params`.
    pub fn decls(&self, library: LibraryId) -> Option<&[ParamDecl]> {
        self.library
            .binary_search_by_key(&library, |(l, _)| *l)
            .ok()
            .map(|i| self.library[i].1.as_slice())
    }

    /// The values `state` sets, one slot per declared parameter.
    pub fn values(&self, state: StateId) -> Option<&[Option<Param>]> {
        self.states
            .binary_search_by_key(&state, |(s, _)| *s)
            .ok()
            .map(|i| self.states[i].1.as_slice())
    }

    /// Whether the section declares and sets nothing (a program without `params` states).
    pub fn is_empty(&self) -> bool {
        self.library.is_empty() && self.states.is_empty()
    }
}
