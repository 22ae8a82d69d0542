//! What the graph editor highlights while a scene runs: for the machine on the canvas, which
//! of its states are active and for which agents (at every depth: an agent whose stack passes
//! through this machine counts, whatever it runs below it).

use super::agent_color;
use super::snapshot::Snapshot;
use eframe::egui::Color32;
use std::collections::HashMap;

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
