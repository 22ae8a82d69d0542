//! Undo and redo for every edit, across documents. An entry is a snapshot of each document it
//! changed, before and after (assets are small, so whole snapshots are simpler and safer than
//! inverse operations). Continuous gestures — typing in one field, dragging a node — coalesce
//! into one entry while the gesture lasts.

use crate::document::{DocId, DocState, Project};

struct Change {
    doc: DocId,
    before: DocState,
    after: DocState,
}

struct Entry {
    label: String,
    changes: Vec<Change>,
    /// Edits with the same key merge into this entry while it is open.
    coalesce: Option<String>,
    open: bool,
}

#[derive(Default)]
pub struct History {
    undo: Vec<Entry>,
    redo: Vec<Entry>,
}

/// Most entries kept; the oldest go first.
const LIMIT: usize = 500;

impl History {
    /// Records that `doc` went from `before` to its current state in `project`. With a
    /// `coalesce` key equal to the open top entry's, the edit extends that entry instead.
    pub fn record(
        &mut self,
        project: &Project,
        label: &str,
        changes: Vec<(DocId, DocState)>,
        coalesce: Option<&str>,
    ) {
        let changes: Vec<Change> = changes
            .into_iter()
            .filter(|(doc, before)| project.docs[*doc].state != *before)
            .map(|(doc, before)| Change {
                doc,
                before,
                after: project.docs[doc].state.clone(),
            })
            .collect();
        if changes.is_empty() {
            return;
        }
        self.redo.clear();
        if let (Some(key), Some(top)) = (coalesce, self.undo.last_mut())
            && top.open
            && top.coalesce.as_deref() == Some(key)
        {
            for c in changes {
                match top.changes.iter_mut().find(|t| t.doc == c.doc) {
                    Some(t) => t.after = c.after,
                    None => top.changes.push(c),
                }
            }
            return;
        }
        self.close();
        self.undo.push(Entry {
            label: label.to_string(),
            changes,
            coalesce: coalesce.map(str::to_string),
            open: coalesce.is_some(),
        });
        if self.undo.len() > LIMIT {
            self.undo.remove(0);
        }
    }

    /// Ends the current gesture: the next edit starts a new entry.
    pub fn close(&mut self) {
        if let Some(top) = self.undo.last_mut() {
            top.open = false;
        }
    }

    /// Undoes the last entry; returns the document to focus.
    pub fn undo(&mut self, project: &mut Project) -> Option<DocId> {
        let mut entry = self.undo.pop()?;
        entry.open = false;
        for c in entry.changes.iter().rev() {
            project.docs[c.doc].state = c.before.clone();
        }
        let focus = entry.changes.first().map(|c| c.doc);
        self.redo.push(entry);
        focus
    }

    pub fn redo(&mut self, project: &mut Project) -> Option<DocId> {
        let entry = self.redo.pop()?;
        for c in &entry.changes {
            project.docs[c.doc].state = c.after.clone();
        }
        let focus = entry.changes.first().map(|c| c.doc);
        self.undo.push(entry);
        focus
    }

    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|e| e.label.as_str())
    }

    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|e| e.label.as_str())
    }

    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
    }
}
