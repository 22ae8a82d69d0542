//! What the standard library keeps per scene besides the game's world — who talks with whom,
//! the planning agents' worlds — and its part of a savegame. It lives with the world seam because
//! [`super::World`] hands it out; the standard library states (`crate::stdlib`) read and change it.

use super::planning::{PlanningWorld, SavedPlanningWorld};
use crate::hsm::AgentId;
use crate::program::{Program, SceneId};
use crate::snapshot::{SnapshotError, SnapshotReader, SnapshotWriter};

/// What the standard library keeps per scene besides the game's world: who talks with whom,
/// and each planning agent's world. A game keeps one in its [`World`](super::World) and hands it
/// out through [`World::standard`](super::World::standard).
#[derive(Clone, Debug, Default)]
pub struct StandardState {
    partners: Vec<Option<AgentId>>,
    /// Agents whose `TalkStateMachine` host is active. Talking without a partner means the
    /// partner has left: the conversation is over and its remaining states stay silent.
    talking: Vec<bool>,
    /// Planning agents' worlds and the scene's world events (the `Plan` state).
    pub planning: PlanningWorld,
}

impl StandardState {
    /// The state of a scene as it starts: nobody talking, the scene's world events to come.
    pub fn for_scene(program: &Program, scene: SceneId) -> Self {
        StandardState {
            planning: PlanningWorld::for_scene(program, scene),
            ..StandardState::default()
        }
    }

    /// Each agent's conversation partner, by agent index (agents past the end have none).
    pub fn partners(&self) -> &[Option<AgentId>] {
        &self.partners
    }

    /// Whether each agent's conversation host is active, by agent index.
    pub fn talking(&self) -> &[bool] {
        &self.talking
    }

    /// Whom `agent` is in a conversation with.
    pub fn partner(&self, agent: AgentId) -> Option<AgentId> {
        self.partners.get(agent.index()).copied().flatten()
    }

    /// Couples `agent` with `partner` (or uncouples it).
    pub fn set_partner(&mut self, agent: AgentId, partner: Option<AgentId>) {
        let i = agent.index();
        if i >= self.partners.len() {
            self.partners.resize(i + 1, None);
        }
        self.partners[i] = partner;
    }

    /// Marks `agent`'s conversation host active or not.
    pub fn set_talking(&mut self, agent: AgentId, on: bool) {
        let i = agent.index();
        if i >= self.talking.len() {
            self.talking.resize(i + 1, false);
        }
        self.talking[i] = on;
    }

    /// True when the agent runs a conversation whose partner has left (or never came): what is
    /// left of its conversation machine does not speak or trade, and its host ends it.
    pub fn conversation_over(&self, agent: AgentId) -> bool {
        self.talking.get(agent.index()).copied().unwrap_or(false) && self.partner(agent).is_none()
    }
}

/// The section the standard library's conversations save into (who talks with whom).
pub const STANDARD_SECTION: &str = "stdlib";
/// The section of the planning agents' worlds and the scene's world events: restored onto the
/// very build it was taken from; a rebuilt program starts them afresh (reported).
pub const PLANNING_SECTION: &str = "stdlib.planning";

#[derive(serde::Serialize, serde::Deserialize)]
struct SavedConversations {
    partners: Vec<Option<AgentId>>,
    talking: Vec<bool>,
}

impl StandardState {
    /// Saves who talks with whom ([`STANDARD_SECTION`]) and the planning worlds
    /// ([`PLANNING_SECTION`]). A game saves its [`World::standard`](super::World::standard) with
    /// its own sections.
    pub fn save(&self, snapshot: &mut SnapshotWriter) {
        snapshot.put(
            STANDARD_SECTION,
            &SavedConversations {
                partners: self.partners.clone(),
                talking: self.talking.clone(),
            },
        );
        snapshot.put(PLANNING_SECTION, &self.planning.to_saved());
    }

    /// The state [`StandardState::save`] left in `snapshot`, for `scene` under `program`.
    /// Restore it into the world before the scene (`Scene::restore`): a `Plan` state entered
    /// afresh there plans in it. Onto a rebuilt program the planning worlds start afresh and the
    /// note returned says so. Once the scene is restored, [`StandardState::check_agents`] checks
    /// the conversations against its agents.
    pub fn restore(
        program: &Program,
        scene: SceneId,
        snapshot: &SnapshotReader,
    ) -> Result<(StandardState, Option<String>), SnapshotError> {
        let saved: SavedConversations = snapshot.get(STANDARD_SECTION)?;
        let mut state = StandardState {
            partners: saved.partners,
            talking: saved.talking,
            planning: PlanningWorld::for_scene(program, scene),
        };
        let planning: SavedPlanningWorld = snapshot.get(PLANNING_SECTION)?;
        if program.checksum() != snapshot.program().checksum {
            let note = (!program.planning.problems.is_empty()).then(|| {
                "the planning agents' worlds start afresh: the program was rebuilt since the snapshot"
                    .to_string()
            });
            return Ok((state, note));
        }
        state.planning = PlanningWorld::from_saved(program, planning).map_err(|message| {
            SnapshotError::BadSection {
                section: PLANNING_SECTION.to_string(),
                message,
            }
        })?;
        Ok((state, None))
    }

    /// Refuses a restored state that pairs an agent with one of more than the scene's `agents`.
    pub fn check_agents(&self, agents: usize) -> Result<(), SnapshotError> {
        match self.partners.iter().flatten().find(|p| p.index() >= agents) {
            Some(p) => Err(SnapshotError::BadSection {
                section: STANDARD_SECTION.to_string(),
                message: format!("an agent is paired with agent #{}, of {agents}", p.0),
            }),
            None => Ok(()),
        }
    }
}
