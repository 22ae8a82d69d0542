//! `.ensb` programs as Bevy assets.

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext};
use bevy::reflect::TypePath;
use ensemble_runtime::{LoadError, Program};
use std::sync::Arc;

/// A compiled Ensemble program (`NAME.ensb`), loaded by the asset server:
/// `asset_server.load("airport.ensb")`. Scenes share it; a hot reload replaces it.
#[derive(Asset, TypePath, Clone, Debug)]
pub struct EnsembleProgram {
    /// The program, verified on load (header, checksum, every cross-reference).
    pub program: Arc<Program>,
}

/// Loads `.ensb` files into [`EnsembleProgram`]s.
#[derive(Default, TypePath)]
pub struct EnsembleProgramLoader;

/// Why a `.ensb` asset was refused.
#[derive(Debug, thiserror::Error)]
pub enum ProgramAssetError {
    /// The asset source could not deliver the bytes.
    #[error("cannot read the program: {0}")]
    Read(#[from] std::io::Error),
    /// The bytes are not a program this runtime can run (corrupt, truncated, another format
    /// version).
    #[error(transparent)]
    Load(#[from] LoadError),
}

impl AssetLoader for EnsembleProgramLoader {
    type Asset = EnsembleProgram;
    type Settings = ();
    type Error = ProgramAssetError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        _load_context: &mut LoadContext<'_>,
    ) -> Result<EnsembleProgram, ProgramAssetError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).await?;
        Ok(EnsembleProgram {
            program: Arc::new(Program::from_bytes(&bytes)?),
        })
    }

    fn extensions(&self) -> &[&str] {
        &["ensb"]
    }
}
