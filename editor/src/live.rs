//! What the graph editor highlights while a scene runs: for the machine on the canvas, which
//! of its states are active and for which agents (at every depth: an agent whose stack passes
//! through this machine counts, whatever it runs below it); and the colour each agent is drawn
//! in everywhere (map, timeline, graph). The preview computes it, the machine graph draws it:
//! it stands among the shared widgets so that neither panel reaches into the other.

use crate::preview::snapshot::Snapshot;
use eframe::egui::Color32;
use std::collections::HashMap;

/// The colour an agent is drawn in everywhere (map, timeline, graph), by its index.
pub fn agent_color(index: usize) -> Color32 {
    const PALETTE: [Color32; 10] = [
        Color32::from_rgb(108, 182, 217),
        Color32::from_rgb(236, 170, 96),
        Color32::from_rgb(140, 206, 132),
        Color32::from_rgb(200, 160, 240),
        Color32::from_rgb(236, 128, 150),
        Color32::from_rgb(220, 200, 110),
        Color32::from_rgb(110, 206, 196),
        Color32::from_rgb(170, 150, 120),
        Color32::from_rgb(150, 170, 240),
        Color32::from_rgb(200, 220, 150),
    ];
    PALETTE[index % PALETTE.len()]
}

/// The glow of an active state.
pub const LIVE: Color32 = Color32::from_rgb(150, 224, 120);

/// An agent in a state.
#[derive(Clone, Debug, PartialEq)]
pub struct LiveAgent {
    pub name: String,
    pub color: Color32,
    /// The agent the preview has selected.
    pub selected: bool,
}

/// The active states of one machine: state name -> the agents in it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveMachine {
    pub states: HashMap<String, Vec<LiveAgent>>,
    /// The tick shown (live or scrubbed back).
    pub tick: u64,
    pub scrubbed: bool,
}

impl LiveMachine {
    /// The states of `machine` active in `snapshot`; with `only`, for that agent alone.
    pub fn of(
        snapshot: &Snapshot,
        machine: &str,
        only: Option<&str>,
        selected: Option<&str>,
    ) -> LiveMachine {
        let mut states: HashMap<String, Vec<LiveAgent>> = HashMap::new();
        for a in snapshot.agents.iter() {
            if only.is_some_and(|o| o != &*a.name) {
                continue;
            }
            for s in a.states.iter().filter(|s| &*s.machine == machine) {
                states
                    .entry(s.state.to_string())
                    .or_default()
                    .push(LiveAgent {
                        name: a.name.to_string(),
                        color: agent_color(a.id.index()),
                        selected: selected == Some(&*a.name),
                    });
            }
        }
        LiveMachine {
            states,
            tick: snapshot.tick,
            scrubbed: false,
        }
    }

    pub fn agents_in(&self, state: &str) -> &[LiveAgent] {
        self.states.get(state).map_or(&[], Vec::as_slice)
    }
}
