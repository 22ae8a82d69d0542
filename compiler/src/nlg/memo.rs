//! Memoised ranking. `ensemble watch`, `ensemble run --watch` and the editor recompile on every
//! save, and over-generating and ranking sentence states is by far the costliest step of a
//! compile. Its result depends only on the sentence state, the n-gram source, the ranking
//! settings and the slot values, so it is kept per process under a key made of exactly those.
//! N-gram sources are kept by path, size and modification time, so an edited source is reopened.

use super::ngram::{self, NgramDb};
use super::rank::{Candidate, GenerationReport};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::SystemTime;

/// Ranked results kept at most; past this the cache starts over (a project has far fewer).
const MAX_RANKED: usize = 4096;

type DbKey = (PathBuf, u64, Option<SystemTime>);
type RankedMap = HashMap<String, (Vec<Candidate>, GenerationReport)>;

fn dbs() -> &'static Mutex<HashMap<DbKey, Arc<NgramDb>>> {
    static DBS: OnceLock<Mutex<HashMap<DbKey, Arc<NgramDb>>>> = OnceLock::new();
    DBS.get_or_init(Default::default)
}

fn ranked() -> &'static Mutex<RankedMap> {
    static RANKED: OnceLock<Mutex<RankedMap>> = OnceLock::new();
    RANKED.get_or_init(Default::default)
}

/// Identifies the current contents of an n-gram source.
pub fn fingerprint(path: &Path) -> Option<DbKey> {
    let meta = std::fs::metadata(path).ok()?;
    Some((path.to_path_buf(), meta.len(), meta.modified().ok()))
}

/// Opens an n-gram source, or returns the one already open for the same contents.
pub fn open_source(path: &Path) -> Result<Arc<NgramDb>, String> {
    let key = fingerprint(path);
    if let Some(k) = &key
        && let Some(db) = dbs().lock().map_err(|e| e.to_string())?.get(k)
    {
        return Ok(db.clone());
    }
    let db = Arc::new(ngram::open_source(path)?);
    if let (Some(k), Ok(mut map)) = (key, dbs().lock()) {
        map.insert(k, db.clone());
    }
    Ok(db)
}

/// The ranked candidates under `key`, computing them with `compute` on a miss.
pub fn ranked_or(
    key: String,
    compute: impl FnOnce() -> (Vec<Candidate>, GenerationReport),
) -> (Vec<Candidate>, GenerationReport) {
    if let Some(hit) = ranked().lock().ok().and_then(|m| m.get(&key).cloned()) {
        return hit;
    }
    let value = compute();
    if let Ok(mut map) = ranked().lock() {
        if map.len() >= MAX_RANKED {
            map.clear();
        }
        map.insert(key, value.clone());
    }
    value
}
