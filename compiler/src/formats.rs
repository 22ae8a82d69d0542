//! The source formats: every kind of file a project holds, as a tool reads, edits and writes it
//! — the documents' types (serde-shaped, one per file kind), their readers and writers, and what
//! an editor needs to point into them.
//!
//! Part of the library's surface (lib.rs): tools reach the frontends (`front`, `hpmm`, `script`,
//! `plan`, `nav`, `content_test`) only through here, so those can be reorganised without the
//! editor noticing. Each module re-exports; none defines anything. **Invariant:** a type is
//! named here under one path only.

/// The RON documents: the manifest, machines, state libraries, locations, scenes, smart
/// locations, sentences, string tables, canvas layouts; the canonical printer's entry point and
/// the code a state type implies.
pub mod ron {
    pub use crate::front::ron::any::{AnyAsset, FileKind, ParseError};
    pub use crate::front::ron::assets::*;
    pub use crate::front::ron::layout::{CanvasComment, Layout, NodeGroup};
    pub use crate::front::ron::params::literal_asset;
    pub use crate::front::ron::{AssetKind, implied_code, to_canonical_string};
}

/// Where a value stands in a RON document's text, and the path to it: what diagnostics, the
/// Problems list and the forms use to go from a field to its text and back.
pub mod locate {
    pub use crate::front::ron::locate::*;
}

/// The canonical printer with the comments a designer wrote kept in place.
pub mod print {
    pub use crate::front::ron::print::*;
}

/// HMM spaces and their companions: concepts, evidence, lexicon, actions, chat scenes.
pub mod spaces {
    pub use crate::front::ron::hpmm::*;
}

/// Interaction scripts: the workbook's document, read and written (the one writer, which the
/// editor also compiles from), the column contract, and the placeholders of a rule's cells.
pub mod scripts {
    pub use crate::front::ron::script::{RoleAsset, RuleAsset, ScriptAsset};
    pub use crate::script::contract::{Column, rules::COLUMNS as RULE_COLUMNS};
    pub use crate::script::lower::{placeholders, substitute, to_asset};
    pub use crate::script::xlsx::read as read_workbook;
    pub use crate::script::xlsx_patch::{Saved, save, to_save};
    pub use crate::script::xlsx_write::write as write_workbook;
}

/// The syntax of a workbook's cells (preconditions, effects, terms, parameters).
pub mod cell {
    pub use crate::script::cell::{ParseError, atoms, literals, parameters, term};
}

/// Planning files: domains, problems, action lists, and the literals of their conditions.
pub mod planning {
    pub use crate::front::ron::planning::*;
    pub use crate::plan::action_list::{
        Action, ActionDomain, Compiled, Condition, Effect, Value, VarState, Variable,
    };
    pub use crate::plan::literal::{atoms, literals};
}

/// PDDL files, read as the planner reads them.
pub mod pddl {
    pub use crate::front::pddl::{PddlFile, header, read};
}

/// Navigation: the `.nav.ron` document, the map formats it points at (MovingAI grids and
/// scenarios, DIMACS road graphs), and the build of the navigation data.
pub mod nav {
    pub use crate::nav::asset::*;
    pub use crate::nav::dimacs::{read_co, read_gr};
    pub use crate::nav::movingai::{GridMap, Scenario, parse_map, read_map, read_scen};
    pub use crate::nav::{
        BuildOptions, BuildReport, InputError, NavData, Stage, build, build_observed,
    };
}

/// Content tests (`*.test.ron`).
pub mod tests {
    pub use crate::front::ron::content_test::*;
}
