//! The editor's layout sidecars (`BuyTicket.machine.layout.ron` beside
//! `BuyTicket.machine.ron`): node positions keyed by state name (docs/formats/layout.md). Read
//! here, beside the other RON readers, so the fuzz targets reach it; the editor owns where the
//! files live (editor/src/sidecar.rs).

use super::print;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where each node of one graph sits, in graph coordinates (whole points: stable diffs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    pub nodes: BTreeMap<String, [f32; 2]>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename = "Layout", deny_unknown_fields)]
struct LayoutFile {
    #[serde(default)]
    nodes: Vec<NodeAsset>,
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
        let file: Option<LayoutFile> = ron::Options::default().from_str(text).ok();
        let nodes = file
            .map(|f| {
                f.nodes
                    .into_iter()
                    .filter(|n| n.x.is_finite() && n.y.is_finite())
                    .map(|n| (n.name, [n.x, n.y]))
                    .collect()
            })
            .unwrap_or_default();
        Layout { nodes }
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

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<[f32; 2]> {
        self.nodes.get(name).copied()
    }

    /// Positions are kept in whole points, as saved, so a saved layout compares equal.
    pub fn set(&mut self, name: &str, pos: [f32; 2]) {
        self.nodes
            .insert(name.to_string(), [pos[0].round(), pos[1].round()]);
    }

    pub fn rename(&mut self, old: &str, new: &str) {
        if let Some(p) = self.nodes.remove(old) {
            self.nodes.insert(new.to_string(), p);
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
