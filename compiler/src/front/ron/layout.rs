//! The editor's layout sidecars (`BuyTicket.machine.layout.ron` beside
//! `BuyTicket.machine.ron`): node positions keyed by state name, and the canvas's comments and
//! groups (docs/formats/layout.md). Read
//! here, beside the other RON readers, so the fuzz targets reach it; the editor owns where the
//! files live (editor/src/sidecar.rs).

use super::print;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where each node of one graph sits, in graph coordinates (whole points: stable diffs), and
/// what the designer wrote on the canvas beside them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub nodes: BTreeMap<String, [f32; 2]>,
    pub comments: Vec<CanvasComment>,
    pub groups: Vec<NodeGroup>,
}

/// A text box on the canvas, its top-left corner at `x`, `y`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Comment", deny_unknown_fields)]
pub struct CanvasComment {
    pub text: String,
    pub x: f32,
    pub y: f32,
}

/// A titled rectangle drawn around `nodes` (by name); dragging its title moves them together.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename = "Group", deny_unknown_fields)]
pub struct NodeGroup {
    pub title: String,
    pub nodes: Vec<String>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename = "Layout", deny_unknown_fields)]
struct LayoutFile {
    #[serde(default)]
    nodes: Vec<NodeAsset>,
    // Absent from sidecars written before the canvas had them (and from those without any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    comments: Vec<CanvasComment>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    groups: Vec<NodeGroup>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeAsset {
    name: String,
    x: f32,
    y: f32,
}

impl Layout {
    /// Reads a sidecar; anything unreadable is no layout.
    pub fn parse(text: &str) -> Layout {
        let Some(file) = ron::Options::default().from_str::<LayoutFile>(text).ok() else {
            return Layout::default();
        };
        let nodes = file
            .nodes
            .into_iter()
            .filter(|n| n.x.is_finite() && n.y.is_finite())
            .map(|n| (n.name, [n.x, n.y]))
            .collect();
        let comments = file
            .comments
            .into_iter()
            .filter(|c| c.x.is_finite() && c.y.is_finite())
            .collect();
        Layout {
            nodes,
            comments,
            groups: file.groups,
        }
    }

    /// The sidecar's text: sorted by name, positions rounded to whole points.
    pub fn print(&self) -> String {
        let file = LayoutFile {
            nodes: self
                .nodes
                .iter()
                .map(|(name, [x, y])| NodeAsset {
                    name: name.clone(),
                    x: x.round(),
                    y: y.round(),
                })
                .collect(),
            comments: self
                .comments
                .iter()
                .map(|c| CanvasComment {
                    x: c.x.round(),
                    y: c.y.round(),
                    ..c.clone()
                })
                .collect(),
            groups: self.groups.clone(),
        };
        let mut comments = print::Comments::default();
        comments.set(
            print::Anchor::Header,
            print::Block {
                blank_before: false,
                lines: vec![
                    "// Where the editor draws each state (not behaviour; safe to delete)."
                        .to_string(),
                ],
            },
        );
        print::print(&file, &comments)
    }

    /// Nothing placed and nothing written on the canvas (the sidecar is not needed).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty() && self.comments.is_empty() && self.groups.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<[f32; 2]> {
        self.nodes.get(name).copied()
    }

    /// Positions are kept in whole points, as saved, so a saved layout compares equal.
    pub fn set(&mut self, name: &str, pos: [f32; 2]) {
        self.nodes
            .insert(name.to_string(), [pos[0].round(), pos[1].round()]);
    }

    /// Renames a node, in the groups too.
    pub fn rename(&mut self, old: &str, new: &str) {
        if let Some(p) = self.nodes.remove(old) {
            self.nodes.insert(new.to_string(), p);
        }
        for n in self.groups.iter_mut().flat_map(|g| g.nodes.iter_mut()) {
            if n == old {
                *n = new.to_string();
            }
        }
    }

    /// Forgets a deleted node: its position and its place in groups.
    pub fn remove(&mut self, name: &str) {
        self.nodes.remove(name);
        for g in &mut self.groups {
            g.nodes.retain(|n| n != name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_and_reads_back() {
        let mut l = Layout::default();
        l.set("Start", [10.4, -20.6]);
        l.set("Goto1", [300.0, 0.0]);
        let text = l.print();
        assert_eq!(
            text,
            "// Where the editor draws each state (not behaviour; safe to delete).\nLayout(\n    nodes: [\n        (name: \"Goto1\", x: 300.0, y: 0.0),\n        (name: \"Start\", x: 10.0, y: -21.0),\n    ],\n)\n"
        );
        assert_eq!(Layout::parse(&text), l);
    }

    #[test]
    fn comments_and_groups_print_and_read_back_and_old_sidecars_still_read() {
        let mut l = Layout::default();
        l.set("Start", [0.0, 0.0]);
        l.comments.push(CanvasComment {
            text: "waits for \"the buyer\"\nthen talks".into(),
            x: 10.4,
            y: -3.0,
        });
        l.groups.push(NodeGroup {
            title: "Serving".into(),
            nodes: vec!["Start".into(), "Goto1".into()],
        });
        let read = Layout::parse(&l.print());
        assert_eq!(read.comments[0].x, 10.0);
        assert_eq!(read.comments[0].text, l.comments[0].text);
        assert_eq!(read.groups, l.groups);
        // A sidecar from before comments and groups.
        let old = Layout::parse("Layout(nodes: [(name: \"Start\", x: 1.0, y: 2.0)])");
        assert_eq!(old.get("Start"), Some([1.0, 2.0]));
        assert!(old.comments.is_empty() && old.groups.is_empty());
        // Renaming and removing a node reach its groups.
        let mut l = read;
        l.rename("Goto1", "Walk");
        assert_eq!(l.groups[0].nodes, vec!["Start", "Walk"]);
        l.remove("Start");
        assert_eq!(l.groups[0].nodes, vec!["Walk"]);
        assert!(l.get("Start").is_none());
    }

    #[test]
    fn unreadable_sidecars_are_no_layout() {
        for text in [
            "",
            "Layout(",
            "garbage",
            "Layout(nodes: [(name: \"A\", x: NaN, y: 0.0)])",
        ] {
            assert!(Layout::parse(text).is_empty(), "{text}");
        }
    }
}
