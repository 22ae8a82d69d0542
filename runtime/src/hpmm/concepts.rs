//! Topic retention (Zubek §3.2.2, §5.2.4): situational variables such as `the-topic` or
//! `the-item`, bound to concepts and kept across iterations. Trackers, the binding routines,
//! run once per iteration after surface evidence and before the evidence that tests variables,
//! so a variable read in an iteration is always the freshly re-evaluated one.

use super::evidence::{Observation, is_a};
use super::model::{ConceptId, Model, TrackerRule};
use super::text::stem;

/// What trackers write, one entry per variable in each.
pub struct Bound<'a> {
    /// The concept each variable is bound to.
    pub bindings: &'a mut [Option<ConceptId>],
    /// The word an `Unheard` tracker bound it by (`None` for a binding to a concept by its own
    /// words).
    pub heard: &'a mut [Option<String>],
    /// The number heard with the word that named it ("two ales").
    pub quantities: &'a mut [Option<u32>],
}

/// Runs every tracker in order; later trackers see earlier trackers' bindings. A binding by a
/// mention keeps the number heard before that mention, and so does a `Bind` that overrides it
/// on the same line ("two stalls": two beasts); any other binding has none.
pub fn track(model: &Model, obs: &Observation<'_>, e: &[f64], to: Bound<'_>) {
    let Bound {
        bindings,
        heard,
        quantities,
    } = to;
    let counted = |k: usize| obs.counted.get(k).copied().flatten();
    // Variables a mention bound on this line.
    let mut mentioned = vec![false; bindings.len()];
    let yields = |k: usize| obs.mention_yields(k);
    // A mention that yields gives way to one of its kind that does not ("wine, not water": the
    // wine), and only to that: "no ale?" still asks about the ale.
    let takes = |k: usize, of_kind: &dyn Fn(ConceptId) -> bool| {
        of_kind(obs.mentions[k])
            && (!yields(k)
                || (0..obs.mentions.len()).all(|j| !of_kind(obs.mentions[j]) || yields(j)))
    };
    for t in &model.trackers {
        if t.speaker.is_some_and(|s| obs.speaker != Some(s)) {
            continue;
        }
        if let Some((y, threshold)) = t.when
            && e[y.index()] < threshold
        {
            continue;
        }
        let v = t.variable.index();
        match &t.rule {
            TrackerRule::Mention { types } => {
                let of_kind =
                    |m: ConceptId| types.is_empty() || types.iter().any(|&ty| is_a(model, m, ty));
                let last = (0..obs.mentions.len()).rposition(|k| takes(k, &of_kind));
                if let Some(k) = last {
                    let last = obs.mentions[k];
                    // "something strong to drink": the drink named last is the strong one
                    // named before it; a kind does not undo the thing it is the kind of. The
                    // thing bound is the last thing named (as `MentionEarlier` counts them), so
                    // "bread, cheese and a beer, i'm starving" binds the beer, not the cheese
                    // that `MentionEarlier` binds as well.
                    let specific = things_named(model, obs, &|j| takes(j, &of_kind))
                        .first()
                        .copied()
                        .filter(|&j| j != k);
                    bindings[v] = Some(specific.map_or(last, |j| obs.mentions[j]));
                    heard[v] = None;
                    // "two strong drinks, brandy": counted where either was named.
                    quantities[v] = counted(k).or_else(|| specific.and_then(counted));
                    mentioned[v] = true;
                }
            }
            TrackerRule::MentionEarlier { types } | TrackerRule::MentionThirdLast { types } => {
                let of_kind =
                    |m: ConceptId| types.is_empty() || types.iter().any(|&ty| is_a(model, m, ty));
                let back = match t.rule {
                    TrackerRule::MentionEarlier { .. } => 1,
                    _ => 2,
                };
                let things = things_named(model, obs, &|k| takes(k, &of_kind));
                // Nothing of the kinds named: the binding is kept ("thanks").
                if !things.is_empty() {
                    let earlier = things.get(back).copied();
                    bindings[v] = earlier.map(|k| obs.mentions[k]);
                    heard[v] = None;
                    quantities[v] = earlier.and_then(counted);
                }
            }
            TrackerRule::MentionAfter { types, after } => {
                let of_kind =
                    |m: ConceptId| types.is_empty() || types.iter().any(|&ty| is_a(model, m, ty));
                if let Some(k) = mention_after(obs, *after, &of_kind) {
                    bindings[v] = Some(obs.mentions[k]);
                    heard[v] = None;
                    quantities[v] = counted(k);
                    mentioned[v] = true;
                }
            }
            TrackerRule::Bind(c) => {
                bindings[v] = Some(*c);
                heard[v] = None;
                if !mentioned[v] {
                    quantities[v] = None;
                }
            }
            TrackerRule::Copy(from) => {
                bindings[v] = bindings[from.index()];
                heard[v] = heard[from.index()].clone();
                quantities[v] = quantities[from.index()];
            }
            TrackerRule::Clear => {
                bindings[v] = None;
                heard[v] = None;
                quantities[v] = None;
            }
            TrackerRule::Unheard {
                concept,
                after,
                nouns,
            } => {
                if let Some(word) = unheard(obs, *after, nouns) {
                    bindings[v] = Some(*concept);
                    heard[v] = Some(word);
                    quantities[v] = None;
                }
            }
        }
    }
}

/// The things a line names, last first, as indexes into its mentions: each mention `takes`
/// accepts that no other thing named is a kind of (a kind named beside a thing of it is no
/// thing of its own: in "stew and bread, i'm starving" the food is the bread's kind; in "a
/// plate of sausages" the plate is), and that is neither a kind of nor a thing of a kind of
/// one named after it ("some food, the roast" is one thing, named twice).
fn things_named(model: &Model, obs: &Observation<'_>, takes: &dyn Fn(usize) -> bool) -> Vec<usize> {
    let mentions = obs.mentions;
    let specific = |k: usize| {
        let m = mentions[k];
        takes(k)
            && !(mentions.iter().enumerate()).any(|(j, &n)| n != m && takes(j) && is_a(model, n, m))
    };
    let mut things: Vec<usize> = Vec::new();
    for k in (0..mentions.len()).rev() {
        let m = mentions[k];
        let other = |&j: &usize| {
            let n = mentions[j];
            n != m && !is_a(model, m, n) && !is_a(model, n, m)
        };
        if specific(k) && things.iter().all(other) {
            things.push(k);
        }
    }
    things
}

/// Words a noun phrase may hold before its noun and still be read past ("the old cracked bell").
const MODIFIERS: usize = 2;

/// The first mention of a kind `of_kind` accepts named right after a word of the `after`
/// categories, past at most [`MODIFIERS`] words that name nothing and no pause (see
/// [`TrackerRule::MentionAfter`]), as an index into the mentions. A phrase whose first concept
/// word names nothing of the kind plays no role: "to the smith's horse" is the smith's. A word
/// that gives way to a noun of the kind right after it is read past ("writing paper": the paper).
fn mention_after(
    obs: &Observation<'_>,
    after: u128,
    of_kind: &dyn Fn(ConceptId) -> bool,
) -> Option<usize> {
    let words = obs.words;
    // The mentions word `j` named: mentions are in word order, so they are one run.
    let named_by = |j: usize| {
        let at = &obs.mention_words;
        at.partition_point(|&w| w < j)..at.partition_point(|&w| w <= j)
    };
    let names_of_kind = |j: usize| named_by(j).any(|k| of_kind(obs.mentions[k]));
    for (i, w) in words.iter().enumerate() {
        if w.tags & after == 0 || w.pause {
            continue;
        }
        for j in (i + 1..words.len()).take(1 + MODIFIERS) {
            let mut named = named_by(j);
            if !named.is_empty() {
                match named.find(|&k| of_kind(obs.mentions[k])) {
                    // "do you have writing paper?": a word that gives way to the noun right
                    // after it ("writing") plays no role; the noun does.
                    Some(k) if obs.mention_yields(k) && !words[j].pause && names_of_kind(j + 1) => {
                    }
                    Some(k) => return Some(k),
                    None => break,
                }
            }
            if words[j].pause {
                break;
            }
        }
    }
    None
}

/// The first noun the agent knows nothing of that the input names after a word of the `after`
/// categories (see [`TrackerRule::Unheard`]).
fn unheard(obs: &Observation<'_>, after: u128, nouns: &[String]) -> Option<String> {
    let words = obs.words;
    // A word some pattern, concept or category mentions is one the designer wrote about.
    let known = |i: usize| {
        obs.named.get(i).copied().unwrap_or(false) || words[i].tags != 0 || words[i].stem.is_some()
    };
    // "frost tonight? the bees hate the cold": what follows the last question is no part of it.
    let end = match words.iter().rposition(|w| w.text == "?") {
        Some(q) => q,
        None => words.len(),
    };
    let words = &words[..end];
    for (i, w) in words.iter().enumerate() {
        if w.tags & after == 0 {
            continue;
        }
        let phrase = words.iter().enumerate().skip(i + 1).take(1 + MODIFIERS);
        for (j, next) in phrase {
            if known(j) {
                break;
            }
            let text = &next.text;
            if !text.chars().all(|c| c.is_ascii_lowercase()) {
                break;
            }
            // A noun before a concept's word only says which one ("writing paper", "a fishing
            // rod"): the phrase names the concept. Not across a comma: "a sundial, friend?".
            if !next.pause && obs.named.get(j + 1).copied().unwrap_or(false) {
                break;
            }
            if nouns.binary_search(&stem(text)).is_ok() {
                return Some(text.clone());
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpmm::model::{Concept, Tracker, Variable, VariableId};
    use crate::hpmm::text::Word;
    use crate::program::NameId;

    /// food (0) ← stew (1), roast (2); drink (3) ← ale (4). Variable 0 is the dish named last,
    /// variable 1 the one named before it.
    fn model() -> Model {
        let concept = |i: u32, is_a: Vec<u32>| Concept {
            name: NameId(i),
            is_a: is_a.into_iter().map(ConceptId).collect(),
            words: Vec::new(),
            properties: Vec::new(),
            relations: Vec::new(),
            lines: Vec::new(),
        };
        let kinds = vec![ConceptId(0), ConceptId(3)];
        let tracker = |v: u32, rule: TrackerRule| Tracker {
            variable: VariableId(v),
            rule,
            when: None,
            speaker: None,
        };
        Model {
            concepts: vec![
                concept(0, vec![0]),
                concept(1, vec![0, 1]),
                concept(2, vec![0, 2]),
                concept(3, vec![3]),
                concept(4, vec![3, 4]),
            ],
            variables: vec![Variable { name: NameId(0) }, Variable { name: NameId(1) }],
            trackers: vec![
                tracker(
                    0,
                    TrackerRule::Mention {
                        types: kinds.clone(),
                    },
                ),
                tracker(1, TrackerRule::MentionEarlier { types: kinds }),
            ],
            ..Model::default()
        }
    }

    fn after(model: &Model, bindings: &mut [Option<ConceptId>], mentions: &[u32]) {
        after_yielding(model, bindings, mentions, &[]);
    }

    fn after_yielding(
        model: &Model,
        bindings: &mut [Option<ConceptId>],
        mentions: &[u32],
        yields: &[bool],
    ) {
        let counted = vec![None; mentions.len()];
        let mut quantities = vec![None; bindings.len()];
        let line = Line {
            mentions,
            counted: &counted,
            yields,
        };
        after_line(model, bindings, &mut quantities, line);
    }

    fn after_counted(
        model: &Model,
        bindings: &mut [Option<ConceptId>],
        quantities: &mut [Option<u32>],
        mentions: &[u32],
        counted: &[Option<u32>],
    ) {
        let line = Line {
            mentions,
            counted,
            yields: &[],
        };
        after_line(model, bindings, quantities, line);
    }

    /// What a line named, for the trackers.
    struct Line<'a> {
        mentions: &'a [u32],
        counted: &'a [Option<u32>],
        yields: &'a [bool],
    }

    fn after_line(
        model: &Model,
        bindings: &mut [Option<ConceptId>],
        quantities: &mut [Option<u32>],
        line: Line<'_>,
    ) {
        let mentions: Vec<ConceptId> = line.mentions.iter().map(|&m| ConceptId(m)).collect();
        let obs = Observation {
            speaker: None,
            emote: None,
            words: &[],
            did: &[],
            mentions: &mentions,
            counted: line.counted,
            named: &[],
            yields: line.yields,
            mention_words: &[],
        };
        let mut heard = vec![None; bindings.len()];
        let to = Bound {
            bindings,
            heard: &mut heard,
            quantities,
        };
        track(model, &obs, &[], to);
    }

    /// Words of a line: `the` is a determiner (tag 1), `mountains` names a concept.
    fn unheard_in(line: &str) -> Option<String> {
        let words: Vec<Word> = crate::hpmm::text::tokenize_marked(line)
            .into_iter()
            .map(|(t, pause)| Word {
                tags: u128::from(["the", "his", "of"].contains(&t.as_str())),
                text: t,
                stem: None,
                read_as: None,
                pause,
            })
            .collect();
        let named: Vec<bool> = words.iter().map(|w| w.text == "mountains").collect();
        let obs = Observation {
            speaker: None,
            emote: None,
            words: &words,
            did: &[],
            mentions: &[],
            counted: &[],
            named: &named,
            yields: &[],
            mention_words: &[],
        };
        let mut nouns: Vec<String> = ["bell", "tide", "tax", "mountain", "point"]
            .iter()
            .map(|w| stem(w))
            .collect();
        nouns.sort();
        unheard(&obs, 1, &nouns)
    }

    #[test]
    fn the_unheard_word_is_the_first_unknown_noun_of_a_phrase() {
        assert_eq!(
            unheard_in("when does the tide turn").as_deref(),
            Some("tide")
        );
        // Modifiers before the noun are read past; a concept word ends the phrase.
        assert_eq!(
            unheard_in("what note did the old bell ring").as_deref(),
            Some("bell")
        );
        assert_eq!(unheard_in("how high are the western mountains"), None);
        // A noun that only says which concept it is names nothing unheard, after modifiers
        // too; before a word that names nothing, or across a comma, it is the noun.
        assert_eq!(unheard_in("how high are the bell mountains"), None);
        assert_eq!(unheard_in("how high are the old bell mountains"), None);
        assert_eq!(
            unheard_in("when does the bell ring").as_deref(),
            Some("bell")
        );
        assert_eq!(
            unheard_in("do you have the bell, mountains?").as_deref(),
            Some("bell")
        );
        // Inflected as said; a noun not after a phrase's start is not taken.
        assert_eq!(
            unheard_in("has he paid his taxes").as_deref(),
            Some("taxes")
        );
        assert_eq!(unheard_in("tide bell point"), None);
        // Only two modifiers: "the very big old bell" is too far to be sure.
        assert_eq!(unheard_in("the very big old bell"), None);
        // What follows the last question mark is not asked.
        assert_eq!(unheard_in("frost tonight ? the tide turns"), None);
        assert_eq!(unheard_in("the tide ? when"), Some("tide".to_string()));
    }

    #[test]
    fn a_line_naming_two_things_keeps_both_and_one_naming_one_unbinds_the_earlier() {
        let m = model();
        let c = |i| Some(ConceptId(i));
        let mut b = vec![None, None];
        // "the stew and a mug of ale"
        after(&m, &mut b, &[1, 4]);
        assert_eq!(b, [c(4), c(1)]);
        // "thanks": nothing named, both kept.
        after(&m, &mut b, &[]);
        assert_eq!(b, [c(4), c(1)]);
        // "just the roast": one thing.
        after(&m, &mut b, &[2]);
        assert_eq!(b, [c(2), None]);
        // "a pint and a plate of sausages": the plate (food) is the sausages' (roast's) kind.
        after(&m, &mut b, &[4, 0, 2]);
        assert_eq!(b, [c(2), c(4)]);
        // "some food, the roast": one thing named twice, at two levels.
        after(&m, &mut b, &[0, 2]);
        assert_eq!(b, [c(2), None]);
        // "a stew, and some food with it": the kind named last does not undo the stew.
        after(&m, &mut b, &[1, 0]);
        assert_eq!(b, [c(1), None]);
        // "stew and roast, i'm starving (food)": a kind named after two things of it keeps both.
        after(&m, &mut b, &[1, 2, 0]);
        assert_eq!(b, [c(2), c(1)]);
    }

    #[test]
    fn a_line_naming_three_things_keeps_all_three() {
        let mut m = model();
        m.variables.push(Variable { name: NameId(2) });
        m.trackers.push(Tracker {
            variable: VariableId(2),
            rule: TrackerRule::MentionThirdLast {
                types: vec![ConceptId(0), ConceptId(3)],
            },
            when: None,
            speaker: None,
        });
        let c = |i| Some(ConceptId(i));
        let mut b = vec![None, None, None];
        // "stew, roast and a mug of ale"
        after(&m, &mut b, &[1, 2, 4]);
        assert_eq!(b, [c(4), c(2), c(1)]);
        // "thanks": nothing named, all kept.
        after(&m, &mut b, &[]);
        assert_eq!(b, [c(4), c(2), c(1)]);
        // "stew and ale": two things, the third unbound.
        after(&m, &mut b, &[1, 4]);
        assert_eq!(b, [c(4), c(1), None]);
        // "stew, some food, the roast and ale, i'm thirsty (drink)": kinds beside things of
        // them are no things of their own.
        after(&m, &mut b, &[1, 0, 2, 4, 3]);
        assert_eq!(b, [c(4), c(2), c(1)]);
        // "the stew, the stew and ale": one thing named twice is one thing.
        after(&m, &mut b, &[1, 1, 4]);
        assert_eq!(b, [c(4), c(1), None]);
        // "stew, roast and an ale, i'm starving (food)": the kind named last leaves the ale
        // the last thing; it bound the roast, the last food, so the roast was said twice.
        after(&m, &mut b, &[1, 2, 4, 0]);
        assert_eq!(b, [c(4), c(2), c(1)]);
    }

    #[test]
    fn a_mention_that_yields_gives_way_to_one_of_its_kind_that_does_not() {
        let m = model();
        let c = |i| Some(ConceptId(i));
        let mut b = vec![None, None];
        // "the stew, not the roast": the stew alone.
        after_yielding(&m, &mut b, &[1, 2], &[false, true]);
        assert_eq!(b, [c(1), None]);
        // "no roast, the stew and an ale": the stew and the ale.
        after_yielding(&m, &mut b, &[2, 1, 4], &[true, false, false]);
        assert_eq!(b, [c(4), c(1)]);
        // "no roast?": nothing else named, so it is still about the roast.
        after_yielding(&m, &mut b, &[2], &[true]);
        assert_eq!(b, [c(2), None]);
        // "an ale? the stew was cold": the stew said aside of the question gives way to the ale.
        after_yielding(&m, &mut b, &[4, 1], &[false, true]);
        assert_eq!(b, [c(4), None]);
    }

    #[test]
    fn a_binding_keeps_the_number_heard_with_the_word_that_named_it() {
        let m = model();
        let c = |i| Some(ConceptId(i));
        let (mut b, mut q) = (vec![None, None], vec![None, None]);
        // "the stew and two ales": the ale is counted, the stew is not.
        after_counted(&m, &mut b, &mut q, &[1, 4], &[None, Some(2)]);
        assert_eq!(
            (b.clone(), q.clone()),
            (vec![c(4), c(1)], vec![Some(2), None])
        );
        // "three stews, and an ale": the earlier dish keeps its own number.
        after_counted(&m, &mut b, &mut q, &[1, 4], &[Some(3), None]);
        assert_eq!(q, [None, Some(3)]);
        // "thanks": nothing named, the numbers stay with their bindings.
        after_counted(&m, &mut b, &mut q, &[], &[]);
        assert_eq!(q, [None, Some(3)]);
        // "just the roast": one thing, no number; the earlier variable is unbound.
        after_counted(&m, &mut b, &mut q, &[2], &[None]);
        assert_eq!((b, q), (vec![c(2), None], vec![None, None]));
    }

    #[test]
    fn a_bind_over_a_mention_of_the_same_line_keeps_its_number_and_any_other_has_none() {
        // After variable 0's mention rule, a `Bind` of the stew on every line: on "two ales" the
        // stew it binds keeps the two; on a line naming nothing it has no number.
        let mut m = model();
        m.trackers.insert(
            1,
            Tracker {
                variable: VariableId(0),
                rule: TrackerRule::Bind(ConceptId(1)),
                when: None,
                speaker: None,
            },
        );
        let c = |i| Some(ConceptId(i));
        let (mut b, mut q) = (vec![None, None], vec![None, None]);
        after_counted(&m, &mut b, &mut q, &[4], &[Some(2)]);
        assert_eq!((b[0], q[0]), (c(1), Some(2)));
        // A line naming nothing: the bind alone, with no number.
        after_counted(&m, &mut b, &mut q, &[], &[]);
        assert_eq!((b[0], q[0]), (c(1), None));
    }

    /// The role of `line` (words tagged role words by `to`, concepts named as the model's:
    /// "stew", "roast", "ale"): what a `MentionAfter` of the drinks and one of the dishes bind.
    fn roles_in(line: &str) -> (Option<ConceptId>, Option<ConceptId>) {
        roles_in_yielding(line, &[])
    }

    /// [`roles_in`], where the words `yielding` give way (as a word placed before another
    /// concept word does in a line the agent hears).
    fn roles_in_yielding(line: &str, yielding: &[&str]) -> (Option<ConceptId>, Option<ConceptId>) {
        let names = [("stew", 1), ("roast", 2), ("ale", 4)];
        let words: Vec<Word> = crate::hpmm::text::tokenize_marked(line)
            .into_iter()
            .map(|(t, pause)| Word {
                tags: u128::from(["to", "towards"].contains(&t.as_str())),
                text: t,
                stem: None,
                read_as: None,
                pause,
            })
            .collect();
        let (mut mentions, mut mention_words) = (Vec::new(), Vec::new());
        for (i, w) in words.iter().enumerate() {
            if let Some(&(_, c)) = names.iter().find(|(n, _)| *n == w.text) {
                mentions.push(ConceptId(c));
                mention_words.push(i);
            }
        }
        let named: Vec<bool> = (0..words.len())
            .map(|i| mention_words.contains(&i))
            .collect();
        let yields: Vec<bool> = mention_words
            .iter()
            .map(|&i| yielding.contains(&words[i].text.as_str()))
            .collect();
        let obs = Observation {
            speaker: None,
            emote: None,
            words: &words,
            did: &[],
            mentions: &mentions,
            counted: &[],
            named: &named,
            yields: &yields,
            mention_words: &mention_words,
        };
        let mut m = model();
        let rule = |v: u32, kind: u32| Tracker {
            variable: VariableId(v),
            rule: TrackerRule::MentionAfter {
                types: vec![ConceptId(kind)],
                after: 1,
            },
            when: None,
            speaker: None,
        };
        m.trackers = vec![rule(0, 3), rule(1, 0)];
        let mut b = vec![None, None];
        let (mut heard, mut q) = (vec![None, None], vec![None, None]);
        let to = Bound {
            bindings: &mut b,
            heard: &mut heard,
            quantities: &mut q,
        };
        track(&m, &obs, &[], to);
        (b[0], b[1])
    }

    #[test]
    fn a_mention_after_a_role_word_binds_the_thing_in_that_role() {
        let c = |i| Some(ConceptId(i));
        // The first thing after a role word, though another is named later.
        assert_eq!(
            roles_in("how far to the ale , and is the roast cold"),
            (c(4), None)
        );
        assert_eq!(roles_in("from the roast to the stew"), (None, c(1)));
        // Past at most two words that name nothing: "to go to the old stew".
        assert_eq!(roles_in("i want to go to the old stew"), (None, c(1)));
        assert_eq!(roles_in("to one two three stew"), (None, None));
        // Not across a pause, and not past a thing of another kind ("to the ale stew").
        assert_eq!(roles_in("to , the stew"), (None, None));
        assert_eq!(roles_in("towards the ale stew"), (c(4), None));
        // No role word: nothing is bound (a binding is kept).
        assert_eq!(roles_in("the stew and the ale"), (None, None));
        // A word that gives way to the noun after it is read past, and only to that noun.
        assert_eq!(roles_in("to the roast stew"), (None, c(2)));
        assert_eq!(
            roles_in_yielding("to the roast stew", &["roast"]),
            (None, c(1))
        );
        assert_eq!(
            roles_in_yielding("to the roast , stew", &["roast"]),
            (None, c(2))
        );
        assert_eq!(roles_in_yielding("to the roast", &["roast"]), (None, c(2)));
    }
}
