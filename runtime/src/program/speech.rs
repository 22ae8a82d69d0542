//! The speech section: every sentence state's ranked candidate lines and the variables agents
//! of scenes start with, and its verification. `crate::speech` fills slots and chooses.
//!
//! Invariant: in a verified program every sentence state's candidates are contiguous and in
//! range, `choose_among` is at least 1, scores are finite and every slot index is below its
//! state's slot count.

use super::{NameId, ProgramParts, SceneId};
use serde::{Deserialize, Serialize};

/// A sentence state: index into [`SpeechTable::sentences`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SentenceId(pub u32);

impl SentenceId {
    /// The id as a table index.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A piece of a candidate line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Part {
    /// Literal text.
    Text(String),
    /// The value of the sentence state's slot with this index.
    Slot(u32),
}

/// One ranked realisation of a sentence state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CandidateDef {
    /// Stable id: a hash of the sentence state's name and the line's template.
    pub id: u32,
    /// Text and slots, in speaking order.
    pub parts: Vec<Part>,
    /// The n-gram score the compiler ranked it by (log2 of a geometric-mean probability).
    pub score: f32,
}

/// A sentence state of the program: its slots and where its ranked candidates are.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SentenceDef {
    /// The state's name, as the program's machines use it.
    pub name: NameId,
    /// The `VARIABLE` names, in the order `Part::Slot` indexes them.
    pub slots: Vec<NameId>,
    /// Candidates `first_candidate .. first_candidate + candidate_count`, best first.
    pub first_candidate: u32,
    /// How many candidates it has.
    pub candidate_count: u32,
    /// How many of the best candidates the runtime chooses among (at least 1).
    pub choose_among: u32,
}

/// A variable an agent of a scene starts with (`CityName = "Boston"`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AgentBinding {
    /// The scene whose agent starts with the variable.
    pub scene: SceneId,
    /// The agent's index in the scene.
    pub agent: u32,
    /// The variable's name.
    pub variable: NameId,
    /// Its value, as spoken.
    pub value: String,
}

/// The program's speech section.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpeechTable {
    /// Sentence states, by [`SentenceId`].
    pub sentences: Vec<SentenceDef>,
    /// Candidates of every sentence state, each state's run contiguous and best first.
    pub candidates: Vec<CandidateDef>,
    /// Variables agents of scenes start with.
    pub bindings: Vec<AgentBinding>,
}

impl SpeechTable {
    /// Whether the program has no speech content.
    pub fn is_empty(&self) -> bool {
        self.sentences.is_empty() && self.bindings.is_empty()
    }

    /// Sentence state `id`.
    pub fn sentence(&self, id: SentenceId) -> &SentenceDef {
        &self.sentences[id.index()]
    }

    /// The sentence state called `name`.
    pub fn sentence_by_name(&self, name: NameId) -> Option<SentenceId> {
        self.sentences
            .iter()
            .position(|s| s.name == name)
            .map(|i| SentenceId(i as u32))
    }

    /// The candidates of a sentence state, best first.
    pub fn candidates_of(&self, id: SentenceId) -> &[CandidateDef] {
        let s = self.sentence(id);
        let start = s.first_candidate as usize;
        &self.candidates[start..start + s.candidate_count as usize]
    }
}

/// Checks the speech section of a program (called by the program verifier).
pub(crate) fn verify(p: &ProgramParts) -> Result<(), String> {
    let s = &p.speech;
    let names = p.names.len();
    let mut next = 0u64;
    for (i, sentence) in s.sentences.iter().enumerate() {
        if sentence.name.index() >= names || sentence.slots.iter().any(|n| n.index() >= names) {
            return Err(format!(
                "sentence state #{i} refers to a name that does not exist"
            ));
        }
        if sentence.first_candidate as u64 != next {
            return Err(format!(
                "sentence state #{i}'s candidates are not contiguous"
            ));
        }
        next += sentence.candidate_count as u64;
        if next > s.candidates.len() as u64 {
            return Err(format!(
                "sentence state #{i}'s candidates run past the candidate table"
            ));
        }
        if sentence.choose_among == 0 {
            return Err(format!("sentence state #{i} chooses among no candidates"));
        }
        let range = sentence.first_candidate as usize..next as usize;
        for c in &s.candidates[range] {
            if !c.score.is_finite() {
                return Err(format!(
                    "a candidate of sentence state #{i} has a non-finite score"
                ));
            }
            for part in &c.parts {
                if let Part::Slot(k) = part
                    && *k as usize >= sentence.slots.len()
                {
                    return Err(format!(
                        "a candidate of sentence state #{i} uses slot #{k} of {}",
                        sentence.slots.len()
                    ));
                }
            }
        }
    }
    if next != s.candidates.len() as u64 {
        return Err("some candidates belong to no sentence state".into());
    }
    for b in &s.bindings {
        let Some(scene) = p.scenes.get(b.scene.index()) else {
            return Err("a variable binding names a scene that does not exist".into());
        };
        if b.agent as usize >= scene.agents.len() || b.variable.index() >= names {
            return Err("a variable binding names an agent or variable that does not exist".into());
        }
    }
    Ok(())
}
