//! Lowering sentence states into the program's speech section: each sentence state's kept
//! candidates as text and slots, best first, and the variables scenes bind.

use crate::ir::Module;
use crate::nlg::realise::{Token, capitalise};
use ensemble_runtime::program::{NameId, SceneId};
use ensemble_runtime::speech::{AgentBinding, CandidateDef, Part, SentenceDef, SpeechTable};

/// Scores the runtime never sees as infinite (Eq. 3.1 gives `-inf` for unseen n-grams).
const FLOOR: f32 = -1.0e6;

pub fn lower(module: &Module, intern: &mut dyn FnMut(&str) -> NameId) -> SpeechTable {
    let mut table = SpeechTable::default();
    for (_, s) in module.sentences.iter() {
        let first_candidate = table.candidates.len() as u32;
        for c in &s.candidates {
            let mut parts = Vec::new();
            let mut text = String::new();
            for (i, t) in c.sentence.tokens.iter().enumerate() {
                if i > 0 && !t.attaches() {
                    text.push(' ');
                }
                match t {
                    Token::Word(w) if i == 0 => text.push_str(&capitalise(w)),
                    Token::Word(w) => text.push_str(w),
                    Token::Slot(name) => {
                        if !text.is_empty() {
                            parts.push(Part::Text(std::mem::take(&mut text)));
                        }
                        let index = s.variables.iter().position(|v| &v.text == name);
                        parts.push(Part::Slot(index.unwrap_or(0) as u32));
                    }
                }
            }
            text.push(if c.sentence.question { '?' } else { '.' });
            parts.push(Part::Text(text));
            let score = c.score as f32;
            table.candidates.push(CandidateDef {
                id: c.id,
                parts,
                score: if score.is_finite() { score } else { FLOOR },
            });
        }
        let file = &module.sentence_files[s.file];
        table.sentences.push(SentenceDef {
            name: intern(&s.name.text),
            slots: s.variables.iter().map(|v| intern(&v.text)).collect(),
            first_candidate,
            candidate_count: s.candidates.len() as u32,
            // The score-gap rule's set: the runtime draws among these only.
            choose_among: (s.spoken.max(1) as u32).min(file.choose_among.max(1)),
        });
    }
    for (si, (_, scene)) in module.scenes.iter().enumerate() {
        for (ai, agent) in scene.agents.iter().enumerate() {
            for (name, value) in &agent.variables {
                table.bindings.push(AgentBinding {
                    scene: SceneId(si as u32),
                    agent: ai as u32,
                    variable: intern(&name.text),
                    value: value.clone(),
                });
            }
        }
    }
    table
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The string table for localisation and voice recording: one row per kept candidate line,
/// `id,sentence,rank,score,text,slots`, slots written `{Name}` in the text.
pub fn string_table(module: &Module) -> String {
    let mut out = String::from("id,sentence,rank,score,text,slots\n");
    for (_, s) in module.sentences.iter() {
        let slots: Vec<&str> = s.variables.iter().map(|v| v.text.as_str()).collect();
        for (rank, c) in s.candidates.iter().enumerate() {
            let score = if c.score.is_finite() {
                format!("{:.6}", c.score)
            } else {
                "-inf".to_string()
            };
            out.push_str(&format!(
                "{:08x},{},{},{},{},{}\n",
                c.id,
                csv_field(&s.name.text),
                rank + 1,
                score,
                csv_field(&c.template),
                csv_field(&slots.join(" "))
            ));
        }
    }
    out
}
