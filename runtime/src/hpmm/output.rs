//! Output production (Zubek §5.2.6): the winning action's template is rendered into text.
//! Templates read properties of the concepts bound to situational variables, and every choice
//! is drawn from the agent's seeded generator, so the same seed gives the same words.

use super::model::{Chunk, ConceptId, Model};
use crate::program::Program;
use crate::rng::Rng;

/// Nested templates deeper than this render nothing more (the compiler refuses cycles; this
/// only guards hand-made programs).
const MAX_DEPTH: usize = 16;

fn render_chunks(
    program: &Program,
    chunks: &[Chunk],
    bindings: &[Option<ConceptId>],
    rng: &mut Rng,
    out: &mut String,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let model = &program.hpmm;
    for chunk in chunks {
        match chunk {
            Chunk::Text(t) => out.push_str(t),
            Chunk::Choice(alternatives) => {
                if !alternatives.is_empty() {
                    let pick = &alternatives[rng.index(alternatives.len())];
                    render_chunks(program, pick, bindings, rng, out, depth + 1);
                }
            }
            Chunk::Var { variable, property } => {
                if let Some(c) = bindings[variable.index()] {
                    out.push_str(&concept_text(program, model, c, *property));
                }
            }
            Chunk::Template(t) => {
                let variants = &model.templates[t.index()].variants;
                if !variants.is_empty() {
                    let pick = &variants[rng.index(variants.len())];
                    render_chunks(program, pick, bindings, rng, out, depth + 1);
                }
            }
        }
    }
}

/// A concept's property, or its `name` property (its name when it has none).
fn concept_text(
    program: &Program,
    model: &Model,
    c: ConceptId,
    property: Option<crate::program::NameId>,
) -> String {
    let concept = &model.concepts[c.index()];
    let wanted = property.or_else(|| program.name_id("name"));
    wanted
        .and_then(|p| concept.properties.iter().find(|(n, _)| *n == p))
        .map(|(_, v)| v.clone())
        .unwrap_or_else(|| {
            if property.is_some() {
                String::new()
            } else {
                program.name(concept.name).to_string()
            }
        })
}

/// Renders one of `variants` (chosen at random) with single spaces between words.
pub fn render(
    program: &Program,
    variants: &[Vec<Chunk>],
    bindings: &[Option<ConceptId>],
    rng: &mut Rng,
) -> String {
    if variants.is_empty() {
        return String::new();
    }
    let mut raw = String::new();
    let pick = &variants[rng.index(variants.len())];
    render_chunks(program, pick, bindings, rng, &mut raw, 0);
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}
