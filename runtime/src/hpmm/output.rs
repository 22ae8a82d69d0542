//! Output production (Zubek §5.2.6): the winning action's template is rendered into text.
//! Templates read properties of the concepts bound to situational variables, and every choice
//! is drawn from the agent's seeded generator, so the same seed gives the same words.
//!
//! In a translated locale the same variant is chosen as in the source language and rendered
//! from its translation (nested templates and concept properties from theirs), drawing from a
//! copy of the generator: the agent's own stream, and so every later choice, is the same in
//! every locale.

use super::model::{Chunk, ConceptId, Model, Tallies};
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

/// One wording to choose among: its line (when it has one) and its own chunks.
type Wording<'a> = (Option<&'a LineIndex>, &'a [Chunk]);

/// What the situational variables hold when an utterance is rendered: their bindings, the
/// words `Unheard` trackers bound some by, the numbers heard with them, and what is on each
/// tally.
#[derive(Clone, Copy)]
pub struct Situation<'a> {
    /// Each variable's concept.
    pub bindings: &'a [Option<ConceptId>],
    /// The word a variable was bound by, parallel to `bindings` (`Unheard` trackers).
    pub heard: &'a [Option<String>],
    /// The number a variable was bound with ("two ales"), parallel to `bindings` (may be
    /// shorter: no number).
    pub quantities: &'a [Option<u32>],
    /// What is on each tally (parallel to the program's tallies).
    pub tallies: &'a [Vec<(ConceptId, u32)>],
}

/// What a render reads besides the chunks.
struct Cx<'a> {
    program: &'a Program,
    bindings: &'a [Option<ConceptId>],
    /// The word a variable was bound by, parallel to `bindings` (`Unheard` trackers).
    heard: &'a [Option<String>],
    /// The number a variable was bound with, parallel to `bindings`.
    quantities: &'a [Option<u32>],
    /// What is on each tally (parallel to the program's tallies).
    tallies: &'a [Vec<(ConceptId, u32)>],
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

    /// Renders `chunks` into `out`; `false` when a slot came out empty (its variable unbound,
    /// or its concept without the property), so the caller can try another wording instead of
    /// saying a line with a hole in it.
    fn chunks(&self, chunks: &[Chunk], rng: &mut Rng, out: &mut String, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let model = &self.program.hpmm;
        for chunk in chunks {
            let whole = match chunk {
                Chunk::Text(t) => {
                    out.push_str(t);
                    true
                }
                Chunk::Choice(alternatives) => {
                    let wordings: Vec<Wording> =
                        alternatives.iter().map(|a| (None, a.as_slice())).collect();
                    self.one_of(&wordings, rng, out, depth + 1).is_some()
                }
                Chunk::Var { variable, property } => match self.bindings[variable.index()] {
                    _ if let Some(t) = self.program.tallies.of(*variable) => {
                        let text = self.tally_text(t, *property);
                        out.push_str(&text);
                        !text.is_empty()
                    }
                    Some(_) if self.is_quantity(*property) => {
                        // "{the-dish.quantity}": a hole when no number was heard, so that a
                        // wording which says how many is only said when it is known.
                        match self.quantities.get(variable.index()).copied().flatten() {
                            Some(n) => {
                                out.push_str(&n.to_string());
                                true
                            }
                            None => false,
                        }
                    }
                    Some(c) => {
                        let heard = self.heard.get(variable.index()).and_then(Option::as_ref);
                        let text = match heard {
                            Some(word) => self.word_text(model, c, word, *property),
                            None => self.concept_text(model, c, *property),
                        };
                        out.push_str(&text);
                        !text.trim().is_empty()
                    }
                    None => false,
                },
                Chunk::Template(t) => {
                    let template = &model.templates[t.index()];
                    let wordings: Vec<Wording> = (template.variants.iter().enumerate())
                        .map(|(k, v)| (template.lines.get(k), v.as_slice()))
                        .collect();
                    self.one_of(&wordings, rng, out, depth + 1).is_some()
                }
            };
            if !whole {
                return false;
            }
        }
        true
    }

    /// Renders one of `wordings` (each from its translation), drawn at random; when the drawn
    /// one has a hole, the next ones in turn (wrapping around) until one renders whole. The
    /// index of the one rendered; `None` (and `out` unchanged) when none renders whole.
    fn one_of(
        &self,
        wordings: &[Wording],
        rng: &mut Rng,
        out: &mut String,
        depth: usize,
    ) -> Option<usize> {
        if wordings.is_empty() {
            return None;
        }
        let first = rng.index(wordings.len());
        let start = out.len();
        for k in 0..wordings.len() {
            let i = (first + k) % wordings.len();
            let (line, own) = wordings[i];
            if self.chunks(self.translated(line, own), rng, out, depth) {
                return Some(i);
            }
            out.truncate(start);
        }
        None
    }

    /// Whether a slot reads the number heard with a binding (`{the-dish.quantity}`).
    fn is_quantity(&self, property: Option<crate::program::NameId>) -> bool {
        property.is_some_and(|p| self.program.name_id(QUANTITY) == Some(p))
    }

    /// An action's wordings, group by group (see [`render`]): the index (into `variants`) of
    /// the one rendered whole into `out`.
    fn action(
        &self,
        groups: &[Group],
        variants: &[Vec<Chunk>],
        lines: &[LineIndex],
        rng: &mut Rng,
        out: &mut String,
    ) -> Option<usize> {
        groups.iter().find_map(|group| {
            let wordings: Vec<Wording> = (group.wordings.iter())
                .map(|&i| (lines.get(i), variants[i].as_slice()))
                .collect();
            if !group.tentative {
                return self
                    .one_of(&wordings, rng, out, 0)
                    .map(|k| group.wordings[k]);
            }
            // Drawn from a copy, kept only when a wording rendered: without a number heard the
            // reply's stream moves on exactly as if the wordings that say one were not there.
            let mut tried = rng.clone();
            let k = self.one_of(&wordings, &mut tried, out, 0)?;
            *rng = tried;
            Some(group.wordings[k])
        })
    }

    /// What a tally says: `{tally}` what is on it ("room, stew and 2 ale"), `{tally.total}`
    /// what that comes to in its units ("7 silver and 3 copper"); empty (a hole) when nothing
    /// is on it, or for any other property.
    fn tally_text(&self, t: usize, property: Option<crate::program::NameId>) -> String {
        let (program, model) = (self.program, &self.program.hpmm);
        let tally = &program.tallies.tallies[t];
        // A caller that holds no tallies (a hand-made render) says the slot empty.
        let items = self.tallies.get(t).map_or(&[][..], Vec::as_slice);
        if items.is_empty() {
            return String::new();
        }
        // Word k of the tally: `and`, then each unit's, translated when the locale does.
        let word = |k: usize, source: &str| match tally
            .lines
            .get(k)
            .map(|l| program.strings.translation(*l, self.locale))
        {
            Some(Translation::Text(t)) => t.clone(),
            _ => source.to_string(),
        };
        let named = |p: &str| property.is_some_and(|id| program.name_id(p) == Some(id));
        let parts: Vec<String> = if property.is_none() || named("name") {
            Tallies::listed(items, |c| self.concept_text(model, c, None))
        } else if named("total") {
            let mut left = program.tallies.total(items);
            let mut parts = Vec::new();
            for (k, (unit, value)) in tally.units.iter().enumerate() {
                let count = left / u64::from(*value);
                left %= u64::from(*value);
                if count > 0 || (k + 1 == tally.units.len() && parts.is_empty()) {
                    parts.push(format!("{count} {}", word(k + 1, unit)));
                }
            }
            parts
        } else {
            return String::new();
        };
        match parts.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} {} {last}", rest.join(", "), word(0, &tally.and)),
            None => String::new(),
        }
    }

    /// A variable bound by the player's word: the word itself for `{v}` and `{v.name}`, the
    /// concept's property otherwise (`{v.plural}`: what the concept says for any such thing).
    /// The word is the player's, in whatever language they typed: it is never translated.
    fn word_text(
        &self,
        model: &Model,
        c: ConceptId,
        word: &str,
        property: Option<crate::program::NameId>,
    ) -> String {
        let named = |p: &str| property.is_some_and(|id| self.program.name_id(p) == Some(id));
        if property.is_none() || named("name") {
            word.to_string()
        } else {
            self.concept_text(model, c, property)
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

/// Wordings of an action drawn from together, before the next group (see [`render`]).
struct Group {
    /// Indices into the action's variants.
    wordings: Vec<usize>,
    /// Whether a try that renders none of them leaves the random stream as it was: wordings
    /// that say a number heard, which most iterations have none of.
    tentative: bool,
}

/// The property a slot reads for the number heard with a binding: `{the-dish.quantity}`.
pub const QUANTITY: &str = "quantity";

/// How many `{variable.quantity}` slots `chunks` always read (through choices and templates,
/// the fewest of any alternative: a choice that can say no number renders without one).
fn quantity_slots(program: &Program, chunks: &[Chunk], depth: usize) -> usize {
    let quantity = program.name_id(QUANTITY);
    if depth > MAX_DEPTH || quantity.is_none() {
        return 0;
    }
    let model = &program.hpmm;
    chunks
        .iter()
        .map(|c| match c {
            Chunk::Text(_) => 0,
            Chunk::Var { property, .. } => usize::from(*property == quantity),
            Chunk::Choice(alternatives) => (alternatives.iter())
                .map(|a| quantity_slots(program, a, depth + 1))
                .min()
                .unwrap_or(0),
            Chunk::Template(t) => (model.templates[t.index()].variants.iter())
                .map(|v| quantity_slots(program, v, depth + 1))
                .min()
                .unwrap_or(0),
        })
        .sum()
}

/// Whether `chunks` read a situational variable anywhere (through choices and templates).
fn reads_variables(model: &Model, chunks: &[Chunk], depth: usize) -> bool {
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

/// Renders an action's utterance (`lines` are its variants' lines, or empty) in `locale` with
/// single spaces between words, never with a hole (docs/formats/actions.md, "No holes"): the
/// wordings that read situational variables are drawn from first — those that say the most
/// numbers heard (`{the-dish.quantity}`) before the others — skipping any whose slot would
/// come out empty ("what about ?"); the wordings without slots are the fallback. Empty
/// only when every wording has a hole, which the compiler refuses for actions that speak
/// (`template-hole`).
pub fn render(
    program: &Program,
    variants: &[Vec<Chunk>],
    lines: &[LineIndex],
    held: Situation<'_>,
    rng: &mut Rng,
    locale: Locale,
) -> Rendered {
    let Situation {
        bindings,
        heard,
        quantities,
        tallies,
    } = held;
    let nothing = Rendered {
        text: String::new(),
        source: String::new(),
        line: None,
    };
    let (slotted, plain): (Vec<usize>, Vec<usize>) =
        (0..variants.len()).partition(|&i| reads_variables(&program.hpmm, &variants[i], 0));
    // Wordings that say more of the numbers heard come first ("2 mugs of ale" before "a mug
    // of ale"); without a number they have holes and the next group is drawn from.
    let counts: Vec<usize> = (slotted.iter())
        .map(|&i| quantity_slots(program, &variants[i], 0))
        .collect();
    let most = counts.iter().copied().max().unwrap_or(0);
    let mut groups: Vec<Group> = (0..=most)
        .rev()
        .map(|n| Group {
            wordings: (slotted.iter().zip(&counts))
                .filter(|&(_, &c)| c == n)
                .map(|(&i, _)| i)
                .collect(),
            tentative: n > 0,
        })
        .filter(|g| !g.wordings.is_empty())
        .collect();
    groups.push(Group {
        wordings: plain,
        tentative: false,
    });
    // The translation draws from a copy taken before the source draws: it picks the same
    // variant, and the reply's stream moves on as in the source language.
    let mut fork = rng.clone();
    let source_cx = Cx {
        program,
        bindings,
        heard,
        quantities,
        tallies,
        locale: Locale::Source,
    };
    let mut raw = String::new();
    let Some(k) = source_cx.action(&groups, variants, lines, rng, &mut raw) else {
        return nothing;
    };
    let source = tidy(&raw);
    let text = match locale {
        Locale::Source => source.clone(),
        Locale::Pseudo => pseudo(&source),
        Locale::Table(_) => {
            let cx = Cx {
                locale,
                ..source_cx
            };
            let mut raw = String::new();
            // A translation whose holes differ from the source's could settle on another
            // variant: then variant `k`'s own translation is said, so words and line agree.
            if cx.action(&groups, variants, lines, &mut fork, &mut raw) != Some(k) {
                raw.clear();
                cx.chunks(
                    cx.translated(lines.get(k), &variants[k]),
                    &mut fork,
                    &mut raw,
                    0,
                );
            }
            tidy(&raw)
        }
    };
    Rendered {
        text,
        source,
        line: lines.get(k).copied(),
    }
}
