//! The game-state section (since version 9): what a project's `*.statelib.ron` says about the
//! game's own library states beyond what linking needs — the events each raises and the
//! designer's stand-in — so that a simulated world without the game's code can stand in for
//! them (docs/formats/statelib.md, "Stand-ins").

use super::{LibraryId, NameId, ProgramParts};
use serde::{Deserialize, Serialize};

/// The game's own library states the program uses, ascending by library id. The standard
/// states are not here: every world runs them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameStates {
    /// One entry per game state the program uses.
    pub states: Vec<GameStateDef>,
}

impl GameStates {
    /// The entry of library state `library`, if it is the game's.
    pub fn get(&self, library: LibraryId) -> Option<&GameStateDef> {
        self.states
            .binary_search_by_key(&library, |s| s.library)
            .ok()
            .map(|i| &self.states[i])
    }

    /// Whether the program uses no game state.
    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }
}

/// The `*.statelib.ron` file each game state is declared in (its path in the project), in
/// library order, for the link errors that name it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DeclaredIn {
    /// `(library state, file)`, ascending by library state.
    pub files: Vec<(LibraryId, NameId)>,
}

impl DeclaredIn {
    /// The file library state `library` is declared in, if the program says.
    pub fn file(&self, library: LibraryId) -> Option<NameId> {
        let i = (self.files)
            .binary_search_by_key(&library, |(l, _)| *l)
            .ok()?;
        Some(self.files[i].1)
    }
}

/// One game state as the statelib declares it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameStateDef {
    /// The library state.
    pub library: LibraryId,
    /// The events its code raises, as declared; `None`: not declared.
    pub raises: Option<Vec<NameId>>,
    /// How a simulated world stands in for it, when the designer says (`stand_in:`).
    pub stand_in: Option<StandInDef>,
}

/// A designer's stand-in: how long it lasts and which event it raises then. Either may be
/// left to the simulated world's default.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StandInDef {
    /// Seconds of scene time (finite, not negative).
    pub seconds: Option<f64>,
    /// One of the state's declared events.
    pub raises: Option<NameId>,
}

/// Every id in range, entries ascending and only for library states that exist, times finite
/// and not negative, and a stand-in raising only an event its state declares.
pub(super) fn verify(p: &ProgramParts) -> Result<(), String> {
    let mut previous: Option<LibraryId> = None;
    for &(library, file) in &p.declared_in.files {
        if previous.is_some_and(|prev| prev >= library) {
            return Err("the game states' files are not in library order".into());
        }
        previous = Some(library);
        if library.index() >= p.library.len() || file.index() >= p.names.len() {
            return Err(format!(
                "game state #{}'s file is not a library state's or not a name",
                library.0
            ));
        }
    }
    let mut previous: Option<LibraryId> = None;
    for s in &p.game_states.states {
        if previous.is_some_and(|prev| prev >= s.library) {
            return Err("the game states are not in library order".into());
        }
        previous = Some(s.library);
        let what = || format!("game state #{}", s.library.0);
        if s.library.index() >= p.library.len() {
            return Err(format!("{} is not a library state", what()));
        }
        let name_ok = |n: &NameId| n.index() < p.names.len();
        if let Some(raises) = &s.raises
            && !raises.iter().all(name_ok)
        {
            return Err(format!("{} raises a name that does not exist", what()));
        }
        let Some(stand_in) = &s.stand_in else {
            continue;
        };
        if stand_in.seconds.is_some_and(|x| !x.is_finite() || x < 0.0) {
            return Err(format!(
                "{}'s stand-in lasts a time that is not a finite number of seconds from 0",
                what()
            ));
        }
        if let Some(event) = stand_in.raises {
            let declared = s.raises.as_ref().is_some_and(|r| r.contains(&event));
            if !name_ok(&event) || !declared {
                return Err(format!(
                    "{}'s stand-in raises an event the state does not declare",
                    what()
                ));
            }
        }
    }
    Ok(())
}
