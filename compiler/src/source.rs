//! Source files and spans. A [`Span`] is a byte range in one file; line and column are computed
//! on demand (1-based, columns counted in characters).

use std::path::PathBuf;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A byte range in a source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(file: FileId, range: std::ops::Range<usize>) -> Self {
        Span {
            file,
            start: range.start as u32,
            end: range.end as u32,
        }
    }

    /// The start of a file, for problems that concern it as a whole.
    pub fn file_start(file: FileId) -> Self {
        Span {
            file,
            start: 0,
            end: 0,
        }
    }

    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

pub struct SourceFile {
    /// Path relative to the project root, `/`-separated: what diagnostics print.
    pub name: String,
    /// Where it was read from.
    pub path: PathBuf,
    pub text: String,
    /// A binary source's contents held in memory (an editor's unsaved workbook, as saving would
    /// write it); `None`: its frontend reads `path`.
    pub bytes: Option<std::sync::Arc<[u8]>>,
    line_starts: Vec<usize>,
}

impl SourceFile {
    pub fn new(name: String, path: PathBuf, text: String) -> Self {
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        SourceFile {
            name,
            path,
            text,
            bytes: None,
            line_starts,
        }
    }

    /// A binary source whose contents are `bytes` (its frontend reads them, not `path`).
    pub fn binary(name: String, path: PathBuf, bytes: std::sync::Arc<[u8]>) -> Self {
        SourceFile {
            bytes: Some(bytes),
            ..SourceFile::new(name, path, String::new())
        }
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line];
        let column = self.text[start..offset].chars().count() + 1;
        (line + 1, column)
    }
}

#[derive(Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    pub fn get(&self, id: FileId) -> &SourceFile {
        &self.files[id.0 as usize]
    }

    pub fn iter(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files
            .iter()
            .enumerate()
            .map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// 1-based line and column of a span's start.
    pub fn line_col(&self, span: Span) -> (usize, usize) {
        self.get(span.file).line_col(span.start as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_columns_are_one_based_and_count_characters() {
        let f = SourceFile::new("a".into(), "a".into(), "ab\nçd\n".into());
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(5), (2, 2)); // after the two-byte ç
        assert_eq!(f.line_col(100), (3, 1));
    }
}
