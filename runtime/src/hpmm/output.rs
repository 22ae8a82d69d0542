//! Output production (Zubek §5.2.6): the winning action's template is rendered into text.
//! Templates read properties of the concepts bound to situational variables, and every choice
//! is drawn from the agent's seeded generator, so the same seed gives the same words.
//!
//! In a translated locale the same variant is chosen as in the source language and rendered
//! from its translation (nested templates and concept properties from theirs), drawing from a
//! copy of the generator: the agent's own stream, and so every later choice, is the same in
//! every locale.

use super::model::{Chunk, ConceptId, Model};
use crate::locale::{LineIndex, Locale, Translation, pseudo};
use crate::program::Program;
use crate::rng::Rng;

/// Nested templates deeper than this render nothing more (the compiler refuses cycles; this
/// only guards hand-made programs).
const MAX_DEPTH: usize = 16;

/// An utterance as rendered.
#[derive(Clone, Debug, PartialEq)]
pub struct Rendered {
    /// The words in the locale asked for.
    pub text: String,
    /// The words in the source language (what the agent hears itself say: its patterns are
    /// written in it).
    pub source: String,
    /// The line of the variant chosen (`None` for a program without a string section).
    pub line: Option<LineIndex>,
}

/// What a render reads besides the chunks.
struct Cx<'a> {
    program: &'a Program,
    bindings: &'a [Option<ConceptId>],
    /// `Locale::Source` or a table; the pseudo-locale is applied to the source's words.
    locale: Locale,
}

impl Cx<'_> {
    /// The chunks line `line` is rendered from: its translation, else `own`.
    fn translated<'c>(&'c self, line: Option<&LineIndex>, own: &'c [Chunk]) -> &'c [Chunk] {
        match line.map(|l| self.program.strings.translation(*l, self.locale)) {
            Some(Translation::Chunks(chunks)) => chunks,
            _ => own,
        }
    }

    fn chunks(&self, chunks: &[Chunk], rng: &mut Rng, out: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let model = &self.program.hpmm;
        for chunk in chunks {
            match chunk {
                Chunk::Text(t) => out.push_str(t),
                Chunk::Choice(alternatives) => {
                    if !alternatives.is_empty() {
                        let pick = &alternatives[rng.index(alternatives.len())];
                        self.chunks(pick, rng, out, depth + 1);
                    }
                }
                Chunk::Var { variable, property } => {
                    if let Some(c) = self.bindings[variable.index()] {
                        out.push_str(&self.concept_text(model, c, *property));
                    }
                }
                Chunk::Template(t) => {
                    let template = &model.templates[t.index()];
                    if !template.variants.is_empty() {
                        let k = rng.index(template.variants.len());
                        let pick = self.translated(template.lines.get(k), &template.variants[k]);
                        self.chunks(pick, rng, out, depth + 1);
                    }
                }
            }
        }
    }

    /// A concept's property, or its `name` property (its name when it has none), translated
    /// when the locale translates the property's value.
    fn concept_text(
        &self,
        model: &Model,
        c: ConceptId,
        property: Option<crate::program::NameId>,
    ) -> String {
        let concept = &model.concepts[c.index()];
        let wanted = property.or_else(|| self.program.name_id("name"));
        let found = wanted.and_then(|p| concept.properties.iter().position(|(n, _)| *n == p));
        match found {
            Some(i) => match concept
                .lines
                .get(i)
                .map(|l| self.program.strings.translation(*l, self.locale))
            {
                Some(Translation::Text(t)) => t.clone(),
                _ => concept.properties[i].1.clone(),
            },
            None if property.is_some() => String::new(),
            None => self.program.name(concept.name).to_string(),
        }
    }
}

/// Collapses runs of whitespace into single spaces.
fn tidy(raw: &str) -> String {
    raw.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Renders one of `variants` (chosen at random; `lines` are their lines, or empty) in `locale`
/// with single spaces between words.
pub fn render(
    program: &Program,
    variants: &[Vec<Chunk>],
    lines: &[LineIndex],
    bindings: &[Option<ConceptId>],
    rng: &mut Rng,
    locale: Locale,
) -> Rendered {
    if variants.is_empty() {
        return Rendered {
            text: String::new(),
            source: String::new(),
            line: None,
        };
    }
    // The translation draws from a copy taken before the source draws: it picks the same
    // variant, and the agent's stream moves on as in the source language.
    let mut fork = rng.clone();
    let source_cx = Cx {
        program,
        bindings,
        locale: Locale::Source,
    };
    let k = rng.index(variants.len());
    let mut raw = String::new();
    source_cx.chunks(&variants[k], rng, &mut raw, 0);
    let source = tidy(&raw);
    let text = match locale {
        Locale::Source => source.clone(),
        Locale::Pseudo => pseudo(&source),
        Locale::Table(_) => {
            let cx = Cx {
                locale,
                ..source_cx
            };
            let k = fork.index(variants.len());
            let mut raw = String::new();
            cx.chunks(
                cx.translated(lines.get(k), &variants[k]),
                &mut fork,
                &mut raw,
                0,
            );
            tidy(&raw)
        }
    };
    Rendered {
        text,
        source,
        line: lines.get(k).copied(),
    }
}
