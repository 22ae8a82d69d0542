//! Ensemble in Bevy.
//!
//! [`EnsemblePlugin`] makes compiled programs (`.ensb`) Bevy assets, runs scenes of them on
//! entities ([`EnsembleScene`]), implements the game-side seam over the ECS ([`EcsWorld`])
//! and delivers the trace as messages ([`EnsembleTrace`]):
//!
//! - **Programs** load through the asset server (`asset_server.load("airport.ensb")`). When
//!   the asset changes — Bevy's file watching (the game enables Bevy's `file_watcher`
//!   feature) or `AssetServer::reload` — every scene running it hot-reloads: live state
//!   carries across by name; a program that does not load or link is refused and the scene
//!   goes on. Both surface as messages ([`ProgramReloaded`], [`ReloadRejected`]) and as
//!   `reload` / `reload-rejected` trace events.
//! - **Agents** are entities: each agent of a running scene is a child of the scene's entity
//!   with an [`Agent`] component (name, active states) and a `Transform` — the runtime reads
//!   positions from it.
//! - **The seam** is components the game's own systems carry out: [`Walking`] (walk there;
//!   report arrival), [`Actions`] (perform these script actions; report each outcome),
//!   [`Speaking`] (show or voice this line; report when it is over) and [`Variables`] (the
//!   agent's variables, which the game may change too).
//! - **Time**: each frame ticks each scene by the frame's `Time` at the scene's own tick rate
//!   (the machines, the smart locations, the planning world events, in the order `ensemble
//!   run` uses), so the same program, seed and reports give the same trace.
//!
//! - **Tools attach** ([`InspectPlugin`], the `inspect` feature, on by default): `ensemble
//!   attach`, `ensemble push` and the editor see the running scene, pause it at breakpoints
//!   and push programs into it (docs/embedding.md, "Attaching tools to the running game").
//!
//! The plugin needs Bevy's `bevy_asset` and nothing that renders: add it to an app that has
//! the `AssetPlugin` (`DefaultPlugins` have it; a headless app adds `MinimalPlugins` and
//! `AssetPlugin`). The game's state code registers through [`EnsemblePlugin::with_library`].

mod asset;
#[cfg(feature = "inspect")]
mod inspect;
mod scene;
mod world;

pub use asset::{EnsembleProgram, EnsembleProgramLoader, ProgramAssetError};
#[cfg(feature = "inspect")]
pub use inspect::{EnsembleInspector, Inspect, InspectPlugin};
pub use scene::{
    EnsembleLibrary, EnsembleScene, EnsembleTrace, ProgramReloaded, ReloadRejected, SceneFailed,
};
pub use world::{Action, Actions, Agent, EcsWorld, MoveReport, Speaking, Variables, Walking};

use bevy::app::{App, Plugin, Update};
use bevy::asset::AssetApp;
use bevy::ecs::schedule::{IntoScheduleConfigs, SystemSet};
use ensemble_runtime::hsm::StateLibrary;
use std::sync::Arc;

/// The plugin: the asset type and its loader, the messages, and the systems that start, tick
/// and hot-reload scenes (in [`EnsembleSystems`], in `Update`).
#[derive(Default)]
pub struct EnsemblePlugin {
    library: EnsembleLibrary,
}

impl EnsemblePlugin {
    /// The plugin with the game's own state library (the standard states and the game's,
    /// registered as in docs/embedding.md) instead of the standard one alone.
    pub fn with_library(
        library: impl Fn() -> StateLibrary<EcsWorld> + Send + Sync + 'static,
    ) -> Self {
        EnsemblePlugin {
            library: EnsembleLibrary(Arc::new(library)),
        }
    }
}

/// The plugin's systems, in `Update`: order the game's systems that carry out moves, actions
/// and lines before or after them (either works; before answers a frame sooner).
#[derive(SystemSet, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnsembleSystems;

impl Plugin for EnsemblePlugin {
    fn build(&self, app: &mut App) {
        app.init_asset::<EnsembleProgram>()
            .init_asset_loader::<EnsembleProgramLoader>()
            .insert_resource(self.library.clone())
            .add_message::<EnsembleTrace>()
            .add_message::<ProgramReloaded>()
            .add_message::<ReloadRejected>()
            .add_message::<SceneFailed>()
            .add_systems(
                Update,
                (
                    scene::reload_scenes,
                    scene::start_scenes,
                    scene::tick_scenes,
                )
                    .chain()
                    .in_set(EnsembleSystems),
            );
    }
}
