//! The n-gram database: building it (from text corpora or Web1T-style count files, with an
//! external sort), its compact memory-mapped format, and scoring sentences against it.

pub mod build;
pub mod format;
pub mod kneser_ney;
pub mod packed;
pub mod score;
pub mod sort;
pub mod tokenise;

pub use build::{BuildOptions, BuildReport, Builder};
pub use format::{NgramDb, NgramError, Stats};
pub use score::{Method, Score, score};

use std::path::Path;

/// Opens what a sentence asset names as its n-gram source: a built database (`.ngr`, memory
/// mapped) or a Web1T-style count file (`w1 w2 w3<TAB>count` lines), built in memory on the
/// spot. Errors are complete sentences for a diagnostic.
pub fn open_source(path: &Path) -> Result<NgramDb, String> {
    let is_db = std::fs::File::open(path)
        .and_then(|mut f| {
            use std::io::Read;
            let mut magic = [0u8; 8];
            let n = f.read(&mut magic)?;
            Ok(n == 8 && magic == format::MAGIC)
        })
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if is_db {
        return NgramDb::open(path).map_err(|e| e.to_string());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let dir = tempfile::tempdir().map_err(|e| format!("cannot create a temporary folder: {e}"))?;
    let mut b = Builder::new(BuildOptions {
        temp_dir: Some(dir.path().to_path_buf()),
        ..BuildOptions::default()
    });
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (words, count) = build::parse_count_line(line)
            .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
        b.add_counted(&words, count)
            .map_err(|e| format!("{}:{}: {e}", path.display(), i + 1))?;
    }
    let out = dir.path().join("counts.ngr");
    b.finish(&out)
        .map_err(|e| format!("cannot build n-grams from {}: {e}", path.display()))?;
    let bytes =
        std::fs::read(&out).map_err(|e| format!("cannot read back {}: {e}", out.display()))?;
    NgramDb::from_bytes(bytes, &path.display().to_string()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
