//! The preview's model, at the bottom of its folder: what the dock shows and runs
//! ([`Preview`], its tabs and panes, the scene on its worker, the save waiting for its
//! compile), and each view's own state (the map's zoom, the boards' search, the beliefs'
//! input line; the timeline's filter is [`super::filter`]). The views draw from it, the
//! dock's `impl` in `mod.rs` drives it; nothing here draws or names a view.

use super::filter::Filter;
use super::snapshot::{History, Snapshot, WorldInfo};
use super::worker::{Command, Worker};
use eframe::egui::Vec2;
use ensemble_runtime::inspect::protocol::AgentSnapshot;
use ensemble_sim::simulation::SceneKind;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Speeds offered, scene seconds per wall-clock second.
pub const SPEEDS: [f64; 6] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0];

/// Which tab the bottom dock shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum DockTab {
    #[default]
    Problems,
    Preview,
    /// Lines × locales (`crate::localisation`).
    Localisation,
    /// The project's content tests ([`crate::tests_panel`]).
    Tests,
}

/// What the middle pane shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pane {
    #[default]
    Blackboards,
    Transcript,
    Agent,
    Breakpoints,
}

/// A scene running on its worker.
pub(super) struct Run {
    pub(super) worker: Worker,
    pub(super) scene: String,
    pub(super) seed: u64,
    pub(super) world: Option<Arc<WorldInfo>>,
    pub(super) playing: bool,
    pub(super) behind: bool,
    pub(super) failed: Option<String>,
    /// A game attached over the inspection protocol, not the editor's own scene.
    pub(super) attached: bool,
}

/// A save waiting for the compile of its generation.
pub(super) struct Pending {
    pub(super) generation: u64,
    pub(super) asked: Instant,
    pub(super) reason: String,
}

/// The last reload, as the toolbar reports it.
pub struct ReloadNote {
    pub ok: bool,
    pub latency: Duration,
    pub at: Instant,
    /// Kept states and fallbacks, or why it was refused.
    pub summary: String,
}

pub struct Preview {
    pub tab: DockTab,
    pub pane: Pane,
    /// The scene picked to run.
    pub scene: Option<String>,
    pub seed: u64,
    pub speed: f64,
    pub(super) run: Option<Run>,
    pub history: History,
    /// `None`: live (the latest tick); else the tick scrubbed back to.
    pub viewing: Option<u64>,
    /// The agent the views single out (by name: names survive reloads).
    pub selected: Option<Arc<str>>,
    /// Open the machine the selected agent runs, whenever it changes.
    pub follow: bool,
    /// Highlight every agent's states in the graph, or only the selected agent's.
    pub highlight_all: bool,
    /// The machine stack last followed.
    pub(super) followed: Vec<String>,
    /// A machine stack to open (asked from the agent pane).
    pub(super) open_trail: Option<Vec<String>>,
    pub(super) pending: Option<Pending>,
    /// Save-to-running latencies of this session's reloads.
    pub latencies: Vec<Duration>,
    pub last_reload: Option<ReloadNote>,
    /// Why the preview could not start.
    pub error: Option<String>,
    /// Scenes of the last compile that produced a program.
    pub(super) scenes: Vec<(String, SceneKind)>,
    /// The locale lines are spoken in (`None`: the language they are written in).
    pub locale: Option<String>,
    /// Locales of the last compile that produced a program (the pseudo-locale last).
    pub(super) locales: Vec<String>,
    pub(super) scenes_of: Option<u64>,
    pub timeline: Filter,
    /// The scrubber moved: the timeline scrolls to the tick shown.
    pub(super) timeline_scroll: bool,
    pub world_view: MapState,
    pub boards: BoardsState,
    pub beliefs: BeliefsState,
    /// The recorded trace the history was read from, while no scene runs.
    pub trace_file: Option<String>,
    /// The game address to attach to (host:port), as last typed.
    pub attach_address: String,
    /// The token the game was started with (`--inspect-token-file`, `ENSEMBLE_TOKEN`); empty: none.
    pub attach_token: String,
    /// The attached game's last `snapshot`: the tick it was taken after, and every agent's
    /// variables, beliefs and scripts.
    pub game_agents: Option<(u64, Arc<[AgentSnapshot]>)>,
    /// Variable values being typed in the agent pane, (agent, variable) -> text; sent as
    /// `set` on Enter.
    pub(super) variable_edits: std::collections::HashMap<(String, String), String>,
    /// The last thing the attached game said that was not a reply.
    pub game_note: Option<String>,
    /// The editor's config folder, where the game address is remembered (tests leave it unset).
    pub config: Option<std::path::PathBuf>,
    /// Breakpoints on states, (machine, state): sent to a game when attaching and when toggled.
    pub breakpoints: Vec<(String, String)>,
}

impl Default for Preview {
    fn default() -> Self {
        Preview {
            tab: DockTab::default(),
            pane: Pane::default(),
            scene: None,
            seed: 7,
            speed: 1.0,
            run: None,
            history: History::default(),
            viewing: None,
            selected: None,
            follow: false,
            highlight_all: true,
            followed: Vec::new(),
            open_trail: None,
            pending: None,
            latencies: Vec::new(),
            last_reload: None,
            error: None,
            scenes: Vec::new(),
            locale: None,
            locales: Vec::new(),
            scenes_of: None,
            timeline: Filter::default(),
            timeline_scroll: false,
            world_view: MapState::default(),
            boards: BoardsState::default(),
            beliefs: BeliefsState::default(),
            trace_file: None,
            attach_address: "127.0.0.1:7878".into(),
            attach_token: String::new(),
            game_agents: None,
            variable_edits: Default::default(),
            game_note: None,
            config: None,
            breakpoints: Vec::new(),
        }
    }
}

/// The map's own state: the user's zoom and pan on top of the fit.
pub struct MapState {
    pub(super) zoom: f32,
    pub(super) pan: Vec2,
}

impl Default for MapState {
    fn default() -> Self {
        MapState {
            zoom: 1.0,
            pan: Vec2::ZERO,
        }
    }
}

/// The blackboards' search.
#[derive(Default)]
pub struct BoardsState {
    pub search: String,
}

/// The beliefs view's player line and chart filter.
pub struct BeliefsState {
    pub line: String,
    /// Only spaces whose belief has left their start state.
    pub engaged_only: bool,
}

impl Default for BeliefsState {
    fn default() -> Self {
        BeliefsState {
            line: String::new(),
            engaged_only: true,
        }
    }
}

impl Preview {
    pub fn is_running(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.failed.is_none())
    }

    pub fn is_playing(&self) -> bool {
        self.run.as_ref().is_some_and(|r| r.playing)
    }

    /// The snapshot the views show: the one scrubbed to, else the latest.
    pub fn shown(&self) -> Option<&Snapshot> {
        match self.viewing {
            Some(t) => self.history.at(t),
            None => self.history.latest(),
        }
    }

    /// Selects an agent (or none) in every view.
    pub fn select(&mut self, agent: Option<Arc<str>>) {
        if self.selected != agent {
            self.followed.clear();
        }
        self.selected = agent;
    }

    pub(super) fn send(&mut self, command: Command) {
        if let Some(r) = &self.run
            && !r.worker.send(command)
            && let Some(r) = self.run.as_mut()
        {
            r.failed.get_or_insert_with(|| "the scene stopped".into());
        }
    }

    /// A player line for the running conversation.
    pub fn say(&mut self, line: String) {
        self.send(Command::Say(line));
    }
}
