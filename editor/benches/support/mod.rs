//! A project with one big machine, for the editor's benches: `states` states in a layered
//! flow (walks, waits, speech and a hosted child), every one reachable, laid out by the editor.

use std::path::Path;

pub fn big_project(root: &Path, states: usize) {
    std::fs::create_dir_all(root.join("machines")).unwrap();
    std::fs::write(
        root.join("Ensemble.ron"),
        "Project(\n    name: \"big\",\n    libraries: [\"sim\"],\n)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("places.locations.ron"),
        "Locations(\n    locations: [\n        (name: \"Here\", x: 0.0, y: 0.0),\n        (name: \"There\", x: 10.0, y: 0.0),\n    ],\n)\n",
    )
    .unwrap();
    std::fs::write(
        root.join("machines/Child.machine.ron"),
        "Machine(\n    name: \"Child\",\n    states: [\n        (name: \"Start\", on: [(\"Empty\", \"Finish\")]),\n        (name: \"Finish\"),\n    ],\n)\n",
    )
    .unwrap();
    let mut lines = vec![format!(
        "        (name: \"Start\", on: [(\"Empty\", \"S1\")]),"
    )];
    for i in 1..states - 1 {
        let next = i + 1;
        // A second way forward every few states, so the graph has branches and joins.
        let skip = if i + 3 < states - 1 && i % 4 == 0 {
            format!(", (\"Done\", \"S{}\")", i + 3)
        } else {
            String::new()
        };
        let next = if next == states - 1 {
            "Finish".to_string()
        } else {
            format!("S{next}")
        };
        let line = match i % 4 {
            0 => format!(
                "        (name: \"S{i}\", code: \"Goto\", modifier: \"There\", on: [(\"ReachedLocation\", \"{next}\"){skip}]),"
            ),
            1 => format!(
                "        (name: \"S{i}\", code: \"Wait\", modifier: 1.5, on: [(\"Done\", \"{next}\")]),"
            ),
            2 => format!(
                "        (name: \"S{i}\", code: \"Say\", modifier: \"Line number {i}.\", on: [(\"FinishStatement\", \"{next}\")]),"
            ),
            _ => format!(
                "        (name: \"S{i}\", code: \"TalkStateMachine\", modifier: \"Child\", on: [(\"EndStateMachine\", \"{next}\")]),"
            ),
        };
        lines.push(line);
    }
    lines.push("        (name: \"Finish\"),".to_string());
    std::fs::write(
        root.join("machines/Big.machine.ron"),
        format!(
            "Machine(\n    name: \"Big\",\n    states: [\n{}\n    ],\n)\n",
            lines.join("\n")
        ),
    )
    .unwrap();
    std::fs::write(
        root.join("big.scene.ron"),
        "Scene(\n    name: \"big\",\n    tick_rate: 30,\n    agents: [\n        (name: \"npc\", machine: \"Big\", at: \"Here\"),\n    ],\n)\n",
    )
    .unwrap();
}
