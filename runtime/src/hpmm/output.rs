//! Output production (Zubek §5.2.6): the winning action's template is rendered into text.
//! Templates read properties of the concepts bound to situational variables, and every choice
//! is drawn from the agent's seeded generator, so the same seed gives the same words.

use super::model::{Chunk, ConceptId, Model};
use crate::program::Program;
use crate::rng::Rng;

/// Nested templates deeper than this render nothing more (the compiler refuses cycles; this
/// only guards hand-made programs).
const MAX_DEPTH: usize = 16;

/// Renders `chunks` into `out`; `false` when a slot came out empty (its variable unbound, or its
/// concept without the property), so the caller can try another wording instead of saying a
/// line with a hole in it.
fn render_chunks(
    program: &Program,
    chunks: &[Chunk],
    bindings: &[Option<ConceptId>],
    rng: &mut Rng,
    out: &mut String,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let model = &program.hpmm;
    for chunk in chunks {
        let whole = match chunk {
            Chunk::Text(t) => {
                out.push_str(t);
                true
            }
            Chunk::Choice(alternatives) => {
                render_one_of(program, alternatives, bindings, rng, out, depth + 1)
            }
            Chunk::Var { variable, property } => match bindings[variable.index()] {
                Some(c) => {
                    let text = concept_text(program, model, c, *property);
                    out.push_str(&text);
                    !text.trim().is_empty()
                }
                None => false,
            },
            Chunk::Template(t) => {
                let variants = &model.templates[t.index()].variants;
                render_one_of(program, variants, bindings, rng, out, depth + 1)
            }
        };
        if !whole {
            return false;
        }
    }
    true
}

/// Renders one of `variants`, drawn at random; when the drawn one has a hole, the next ones in
/// turn (wrapping around) until one renders whole. `false` (and `out` unchanged) when none does
/// or there are none.
fn render_one_of<V: AsRef<[Chunk]>>(
    program: &Program,
    variants: &[V],
    bindings: &[Option<ConceptId>],
    rng: &mut Rng,
    out: &mut String,
    depth: usize,
) -> bool {
    if variants.is_empty() {
        return false;
    }
    let first = rng.index(variants.len());
    let start = out.len();
    for k in 0..variants.len() {
        let pick = variants[(first + k) % variants.len()].as_ref();
        if render_chunks(program, pick, bindings, rng, out, depth) {
            return true;
        }
        out.truncate(start);
    }
    false
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

/// Whether `chunks` read a situational variable anywhere (through choices and templates).
fn reads_variables(model: &super::model::Model, chunks: &[Chunk], depth: usize) -> bool {
    depth <= MAX_DEPTH
        && chunks.iter().any(|c| match c {
            Chunk::Text(_) => false,
            Chunk::Var { .. } => true,
            Chunk::Choice(alternatives) => alternatives
                .iter()
                .any(|a| reads_variables(model, a, depth + 1)),
            Chunk::Template(t) => model.templates[t.index()]
                .variants
                .iter()
                .any(|v| reads_variables(model, v, depth + 1)),
        })
}

/// Renders an action's utterance with single spaces between words, never with a hole
/// (docs/formats/actions.md, "No holes"): the wordings that read situational variables are
/// drawn from first, skipping any whose slot would come out empty ("what about ?"); the
/// wordings without slots are the fallback. Empty only when every wording has a hole, which
/// the compiler refuses for actions that speak (`template-hole`).
pub fn render(
    program: &Program,
    variants: &[Vec<Chunk>],
    bindings: &[Option<ConceptId>],
    rng: &mut Rng,
) -> String {
    let model = &program.hpmm;
    let (slotted, plain): (Vec<&Vec<Chunk>>, Vec<&Vec<Chunk>>) =
        variants.iter().partition(|v| reads_variables(model, v, 0));
    let mut raw = String::new();
    let whole = render_one_of(program, &slotted, bindings, rng, &mut raw, 0)
        || render_one_of(program, &plain, bindings, rng, &mut raw, 0);
    if !whole {
        return String::new();
    }
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}
