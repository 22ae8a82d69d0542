//! Recent projects, kept in a small file in the user's config folder
//! (`$XDG_CONFIG_HOME/ensemble/recent.ron`, else `~/.config/ensemble/recent.ron`), newest
//! first. A missing or unreadable file is an empty list; failing to write it is not an error
//! worth interrupting a designer for.

use ensemble_runtime::fs::write_atomic;
use std::path::{Path, PathBuf};

const FILE: &str = "recent.ron";
const KEEP: usize = 10;

/// The editor's config folder, from the environment.
pub fn config_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("XDG_CONFIG_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir).join("ensemble"));
    }
    std::env::var_os("HOME")
        .filter(|d| !d.is_empty())
        .map(|home| PathBuf::from(home).join(".config/ensemble"))
}

pub fn load(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_to_string(dir.join(FILE))
        .ok()
        .and_then(|t| ron::Options::default().from_str::<Vec<PathBuf>>(&t).ok())
        .unwrap_or_default()
}

/// Puts `project` first and saves the list.
pub fn remember(dir: &Path, list: &mut Vec<PathBuf>, project: &Path) {
    let project = project
        .canonicalize()
        .unwrap_or_else(|_| project.to_path_buf());
    list.retain(|p| *p != project);
    list.insert(0, project);
    list.truncate(KEEP);
    let text = ron::ser::to_string_pretty(list, ron::ser::PrettyConfig::default());
    if let Ok(text) = text {
        let _ = std::fs::create_dir_all(dir);
        let _ = write_atomic(&dir.join(FILE), text.as_bytes());
    }
}

const GAME: &str = "game-address.ron";
const TOKEN: &str = "game-token.ron";

/// The game address last attached to, if one was.
pub fn load_game_address(dir: &Path) -> Option<String> {
    load_text(&dir.join(GAME))
}

/// Keeps the game address attached to, for the next session.
pub fn remember_game_address(dir: &Path, address: &str) {
    remember_text(dir, GAME, address);
}

/// The token last attached with, if one was (a game on another machine needs one).
pub fn load_game_token(dir: &Path) -> Option<String> {
    load_text(&dir.join(TOKEN))
}

/// Keeps the token attached with (empty: none), for the next session.
pub fn remember_game_token(dir: &Path, token: &str) {
    remember_text(dir, TOKEN, token);
}

fn load_text(file: &Path) -> Option<String> {
    std::fs::read_to_string(file)
        .ok()
        .and_then(|t| ron::Options::default().from_str::<String>(&t).ok())
}

fn remember_text(dir: &Path, file: &str, text: &str) {
    if let Ok(text) = ron::ser::to_string(text) {
        let _ = std::fs::create_dir_all(dir);
        let _ = write_atomic(&dir.join(file), text.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_game_address_is_remembered() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load_game_address(dir.path()), None);
        remember_game_address(dir.path(), "10.0.0.2:7878");
        assert_eq!(
            load_game_address(dir.path()).as_deref(),
            Some("10.0.0.2:7878")
        );
        assert_eq!(load_game_token(dir.path()), None);
        remember_game_token(dir.path(), "sesame");
        assert_eq!(load_game_token(dir.path()).as_deref(), Some("sesame"));
        assert_eq!(
            load_game_address(dir.path()).as_deref(),
            Some("10.0.0.2:7878")
        );
    }

    #[test]
    fn newest_first_without_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let mut list = load(dir.path());
        assert!(list.is_empty());
        remember(dir.path(), &mut list, &a);
        remember(dir.path(), &mut list, &b);
        remember(dir.path(), &mut list, &a);
        let again = load(dir.path());
        assert_eq!(again, list);
        assert_eq!(again.len(), 2);
        assert!(again[0].ends_with("a"));
    }
}
