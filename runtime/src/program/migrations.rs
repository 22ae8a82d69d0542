//! The project's migrations: names a patch changed, which a savegame made on an earlier build is
//! read through. Written by the designer in the manifest (`migrations:`, docs/formats/project.md)
//! and carried in the program (since version 11), so the game's restore applies them with no
//! tool beside it; `ensemble check --against` counts a migrated name as carried, not lost.
//!
//! Old names are strings: they are the shipped build's, which the program's name table no
//! longer has.

use serde::{Deserialize, Serialize};

/// Renames from an earlier build's names to this program's, each list in the manifest's order
/// with no old name twice (the compiler's checks).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Migrations {
    /// Agents of a scene: old name, new name.
    pub agents: Vec<(String, String)>,
    /// Machine states, as `Machine/State`: old, new (the machine may be renamed too).
    pub states: Vec<(String, String)>,
}

impl Migrations {
    /// Whether the project declares none.
    pub fn is_empty(&self) -> bool {
        self.agents.is_empty() && self.states.is_empty()
    }

    /// The name an agent saved as `name` has in this program.
    pub fn agent<'a>(&'a self, name: &'a str) -> &'a str {
        renamed(&self.agents, name)
    }

    /// The `Machine/State` a state saved as `machine`/`state` has in this program, when a
    /// migration renames it.
    pub fn state(&self, machine: &str, state: &str) -> Option<(&str, &str)> {
        let old = format!("{machine}/{state}");
        let new = self.states.iter().find(|(o, _)| *o == old)?;
        new.1.split_once('/')
    }
}

fn renamed<'a>(map: &'a [(String, String)], name: &'a str) -> &'a str {
    map.iter()
        .find(|(old, _)| old == name)
        .map_or(name, |(_, new)| new.as_str())
}
