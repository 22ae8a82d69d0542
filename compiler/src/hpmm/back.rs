//! Lowering valid HMM-space IR into the runtime's tables (`ensemble_runtime::hpmm::model`):
//! lexicon categories become bitmasks, estimators are flattened into one evidence table with
//! shared sub-expressions computed once (Zubek §5.3.3) and ordered so that every operand comes
//! first and variable-dependent evidence comes last, model dependencies become their two
//! inspection evidences, and accumulators are put in evaluation order.

use crate::ir::hpmm as ir;
use crate::ir::{Handle, Module};
use ensemble_runtime::hpmm::model::*;
use ensemble_runtime::hpmm::text;
use ensemble_runtime::program::NameId;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

fn bug(what: &str) -> String {
    format!("internal compiler error: {what} survived validation")
}

#[derive(Default)]
struct Stems {
    list: Vec<String>,
    index: HashMap<String, StemId>,
}

impl Stems {
    fn intern(&mut self, stem: &str) -> StemId {
        if let Some(&id) = self.index.get(stem) {
            return id;
        }
        let id = StemId(self.list.len() as u32);
        self.list.push(stem.to_string());
        self.index.insert(stem.to_string(), id);
        id
    }
}

/// The runtime reads a word it does not know as the known word it is one slip of the keys from
/// (`ensemble_runtime::hpmm::text`): "helo" as "hello". A real word one slip from a known one is
/// no typo ("cart" is not "chart", "most" not "moist", "bee" not "be"): its stem is added, tested
/// by no pattern, which the runtime takes for "read as typed, naming nothing" (an `Unheard`
/// tracker can still take it for the thing a line is about). Real words are
/// `related::real_words`.
///
/// The runtime takes a spelling for known when its *stem* is, so the spellings a slip can land
/// on are more than the words anyone wrote: every inflection of a known stem, real or not
/// ("scarly" for the stem "scar", which "scary" is one letter from). Those are enumerated by
/// the endings the stemmer removes (one, or a common two), after a final `e` or a doubled
/// letter too. On the innkeeper 55 of the 25,074 real words are still read as a slip (80
/// before the final `e` and the doubled letter), through derivational endings ("academia" as
/// "academial"). Enumerating those too guards all but 18, but a guard is a stem, and theirs
/// are short: "delicate" guarded as "delic" kept the typo "delicous" (stem "delic") from
/// being read as "delicious". A typo is commoner than a rare real word: they are left out.
fn guard_real_words(lexicon: &[LexWord], stems: &mut Stems) {
    if lexicon.is_empty() && stems.list.is_empty() {
        return;
    }
    let is_known = |w: &str, stems: &Stems| {
        let s = text::stem(w);
        stems.index.contains_key(&s) || is_lexicon_key(lexicon, w) || is_lexicon_key(lexicon, &s)
    };
    // The spellings a slip can be read as are every spelling whose stem is a known stem or a
    // lexicon key (the runtime looks both up by stem); the real words one slip from them are
    // worked out once a process for each key (`near`).
    let keys: BTreeSet<&String> = stems
        .list
        .iter()
        .chain(lexicon.iter().map(|l| &l.word))
        .collect();
    let mut sources: BTreeSet<String> = BTreeSet::new();
    for key in keys {
        sources.extend(near(key).iter().cloned());
    }
    let guards: BTreeSet<String> = (sources.iter())
        .filter(|s| !is_known(s, stems))
        .map(|s| text::stem(s))
        .collect();
    for stem in guards {
        stems.intern(&stem);
    }
}

/// Endings the stemmer takes off a word that a slip of one letter most often makes of a real
/// word's own ending ("scary" → "scarly", "needles" → "needlies", "difficulty" →
/// "difficultly", "swore" → "sworde"): a stem with one of them is a spelling the runtime reads
/// as that stem. Not every ending: a rarer one can still let a real word be read as a slip.
const INFLECTIONS: &[&str] = &[
    "", "s", "es", "e", "ed", "ing", "ly", "ely", "y", "ies", "er", "li", "lies", "ness", "ment",
    "d", "ied",
    // Two endings the stemmer takes off one after the other ("kindled" as "kindlied").
    "lied", "liing", "fully",
];

/// Endings after a doubled last letter, which the stemmer undoubles ("supped" was read as
/// "soupped", "wagged" as "waged").
const AFTER_DOUBLED: &[&str] = &["ed", "ing", "er", "y"];

/// The real words (`related::real_words`), and by stem, computed once a process.
struct RealWords {
    words: HashSet<&'static str>,
    by_stem: HashMap<String, Vec<&'static str>>,
}

fn real_words() -> &'static RealWords {
    static REAL: std::sync::OnceLock<RealWords> = std::sync::OnceLock::new();
    REAL.get_or_init(|| {
        let words: HashSet<&'static str> = crate::related::real_words().collect();
        let mut by_stem: HashMap<String, Vec<&'static str>> = HashMap::new();
        for w in &words {
            by_stem.entry(text::stem(w)).or_default().push(w);
        }
        RealWords { words, by_stem }
    })
}

/// The real words one slip of the keys (or a letter held down) from a spelling the runtime
/// reads as `key` (a stem or a lexicon word): `key` itself, the real words whose stem it is,
/// and `key` with an ending the stemmer removes again. Memoised for the process: the editor
/// rebuilds on every save with nearly the same keys.
fn near(key: &str) -> std::sync::Arc<Vec<String>> {
    type Memo = std::sync::Mutex<HashMap<String, std::sync::Arc<Vec<String>>>>;
    static MEMO: std::sync::OnceLock<Memo> = std::sync::OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    if let Some(found) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(key) {
        return found.clone();
    }
    let real = real_words();
    let mut spellings: BTreeSet<String> = BTreeSet::from([key.to_string()]);
    let stem = text::stem(key);
    for s in [key, stem.as_str()] {
        spellings.extend(
            real.by_stem
                .get(s)
                .into_iter()
                .flatten()
                .map(|w| w.to_string()),
        );
    }
    let mut bases = vec![key.to_string()];
    // The stemmer ends a stem in `i` where the word ended in `y` ("happi"), and an ending
    // takes the place of a final `e` ("aling" is "ale": "align" was read so).
    if let Some(b) = key.strip_suffix('i') {
        bases.push(format!("{b}y"));
    }
    if let Some(b) = key.strip_suffix('e') {
        bases.push(b.to_string());
    }
    let reads_as_key = |spelled: &str| text::stem(spelled) == key;
    for base in &bases {
        for ending in INFLECTIONS {
            let spelled = format!("{base}{ending}");
            if reads_as_key(&spelled) {
                spellings.insert(spelled);
            }
        }
        if let Some(last) = base.chars().last() {
            for ending in AFTER_DOUBLED {
                let spelled = format!("{base}{last}{ending}");
                if reads_as_key(&spelled) {
                    spellings.insert(spelled);
                }
            }
        }
    }
    let mut found = BTreeSet::new();
    for spelling in &spellings {
        text::slip_sources(spelling, true, &mut |source| {
            if real.words.contains(source) && !found.contains(source) {
                found.insert(source.to_string());
            }
        });
    }
    let found = std::sync::Arc::new(found.into_iter().collect::<Vec<_>>());
    (memo.lock().unwrap_or_else(|e| e.into_inner())).insert(key.to_string(), found.clone());
    found
}

fn is_lexicon_key(lexicon: &[LexWord], key: &str) -> bool {
    lexicon
        .binary_search_by(|l| l.word.as_str().cmp(key))
        .is_ok()
}

/// A template's chunks in the runtime's terms (a template's own, or a translation's: `l10n`).
pub fn lower_chunks(
    chunks: &[ir::Chunk],
    intern: &mut dyn FnMut(&str) -> NameId,
) -> Result<Vec<Chunk>, String> {
    chunks
        .iter()
        .map(|c| {
            Ok(match c {
                ir::Chunk::Text(t) => Chunk::Text(t.clone()),
                ir::Chunk::Choice(alts) => Chunk::Choice(
                    alts.iter()
                        .map(|a| lower_chunks(a, intern))
                        .collect::<Result<_, String>>()?,
                ),
                ir::Chunk::Var { variable, property } => Chunk::Var {
                    variable: VariableId(id(variable)?),
                    property: property.as_deref().map(&mut *intern),
                },
                ir::Chunk::Template(t) => Chunk::Template(TemplateId(id(t)?)),
            })
        })
        .collect()
}

/// The evidence table under construction, in emission (post-)order.
#[derive(Default)]
struct Flat {
    entries: Vec<(Evidence, bool)>,
    shared: HashMap<String, EvidenceId>,
    named: HashMap<Handle<ir::Estimator>, EvidenceId>,
}

struct Cx<'a> {
    module: &'a Module,
    intern: &'a mut dyn FnMut(&str) -> NameId,
    stems: Stems,
    flat: Flat,
    state_ids: HashMap<Handle<ir::SpaceState>, SpaceStateId>,
    patterns: Vec<Pattern>,
}

fn target<T>(r: &ir::Ref<T>) -> Result<Handle<T>, String> {
    r.target
        .ok_or_else(|| bug(&format!("an unknown reference `{}`", r.name.text)))
}

/// The noun table's stems, sorted: stemmed once per process, not on every build (the editor
/// compiles on each edit).
fn noun_stems() -> &'static [String] {
    static STEMS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    STEMS.get_or_init(|| {
        let stems: BTreeSet<String> = crate::related::nouns().map(text::stem).collect();
        stems.into_iter().collect()
    })
}

fn id<T>(r: &ir::Ref<T>) -> Result<u32, String> {
    Ok(target(r)?.index() as u32)
}

impl Cx<'_> {
    fn inspected(&self, t: &ir::InspectTarget) -> Result<Inspected, String> {
        match t
            .target
            .ok_or_else(|| bug("an unknown inspection target"))?
        {
            ir::Inspected::State(s) => Ok(Inspected::State(self.state_ids[&s])),
            ir::Inspected::Active(s) => Ok(Inspected::Active(SpaceId(s.index() as u32))),
        }
    }

    fn push(&mut self, name: Option<NameId>, estimator: Estimator, late: bool) -> EvidenceId {
        if name.is_none() {
            let key = format!("{estimator:?}");
            if let Some(&id) = self.flat.shared.get(&key) {
                return id;
            }
            let id = EvidenceId(self.flat.entries.len() as u32);
            self.flat.shared.insert(key, id);
            self.flat.entries.push((Evidence { name, estimator }, late));
            return id;
        }
        self.flat.entries.push((Evidence { name, estimator }, late));
        EvidenceId(self.flat.entries.len() as u32 - 1)
    }

    fn late(&self, y: EvidenceId) -> bool {
        self.flat.entries[y.index()].1
    }

    fn named(&mut self, h: Handle<ir::Estimator>) -> Result<EvidenceId, String> {
        if let Some(&y) = self.flat.named.get(&h) {
            return Ok(y);
        }
        let module = self.module;
        let e = &module.estimators[h];
        let name = (self.intern)(&e.name.text);
        let y = self.expr(&e.expr, Some(name))?;
        self.flat.named.insert(h, y);
        Ok(y)
    }

    fn pattern(&mut self, p: &ir::Pattern) -> Result<Pattern, String> {
        let mut segments = Vec::new();
        for seg in &p.segments {
            let mut tests = Vec::new();
            for w in seg {
                tests.push(match w {
                    ir::PatternWord::Any => WordTest::Any,
                    ir::PatternWord::Is { stems, any, all } => {
                        let mask = |refs: &[ir::Ref<ir::Category>]| -> Result<Tags, String> {
                            refs.iter()
                                .try_fold(0, |m, r| Ok(m | 1u128 << target(r)?.index()))
                        };
                        WordTest::Is {
                            any: mask(any)?,
                            all: mask(all)?,
                            stems: stems.iter().map(|s| self.stems.intern(s)).collect(),
                        }
                    }
                });
            }
            segments.push(tests);
        }
        Ok(Pattern {
            from_start: p.from_start,
            to_end: p.to_end,
            segments,
        })
    }

    fn inspection(
        &mut self,
        i: &ir::Inspection,
        complement: bool,
        name: Option<NameId>,
    ) -> Result<EvidenceId, String> {
        let of =
            i.of.iter()
                .map(|t| self.inspected(t))
                .collect::<Result<Vec<_>, _>>()?;
        Ok(self.push(
            name,
            Estimator::Inspect {
                of,
                shape: i.shape,
                complement,
            },
            false,
        ))
    }

    /// Emits an expression (operands first); `name` for a named estimator's own entry.
    fn expr(&mut self, e: &ir::Expr, name: Option<NameId>) -> Result<EvidenceId, String> {
        let operands =
            |cx: &mut Self, xs: &[ir::Expr]| -> Result<(Vec<EvidenceId>, bool), String> {
                let ids = xs
                    .iter()
                    .map(|x| cx.expr(x, None))
                    .collect::<Result<Vec<_>, _>>()?;
                let late = ids.iter().any(|&y| cx.late(y));
                Ok((ids, late))
            };
        let (estimator, late) = match e {
            ir::Expr::Always => (Estimator::Always, false),
            ir::Expr::Match {
                pattern,
                confidence,
            } => {
                let p = self.pattern(pattern)?;
                let id = PatternId(self.patterns.len() as u32);
                self.patterns.push(p);
                (
                    Estimator::Match {
                        pattern: id,
                        confidence: *confidence,
                    },
                    false,
                )
            }
            ir::Expr::Speaker(s) => (Estimator::Speaker(*s), false),
            ir::Expr::Emote(e) => (Estimator::Emote((self.intern)(e)), false),
            ir::Expr::Did(a) => (
                Estimator::Did(a.as_ref().map(id).transpose()?.map(ActionId)),
                false,
            ),
            ir::Expr::Mentions(c) => (Estimator::Mentions(ConceptId(id(c)?)), false),
            ir::Expr::Inspect(i) => return self.inspection(i, false, name),
            ir::Expr::Var { variable, test } => {
                let test = match test {
                    ir::VarTest::Bound => VarTest::Bound,
                    ir::VarTest::IsA(c) => VarTest::IsA(ConceptId(id(c)?)),
                    ir::VarTest::Holds(c) => VarTest::Holds(ConceptId(id(c)?)),
                    ir::VarTest::Related(r, c) => VarTest::Related {
                        relation: (self.intern)(r),
                        to: ConceptId(id(c)?),
                    },
                };
                (
                    Estimator::Var {
                        variable: VariableId(id(variable)?),
                        test,
                    },
                    true,
                )
            }
            ir::Expr::Ev(r) => {
                let y = self.named(target(r)?)?;
                if name.is_none() {
                    return Ok(y);
                }
                // A named alias of another estimator: its own entry, same value.
                (Estimator::Max(vec![y]), self.late(y))
            }
            ir::Expr::And(xs) => {
                let (ids, late) = operands(self, xs)?;
                (Estimator::And(ids), late)
            }
            ir::Expr::Or(xs) => {
                let (ids, late) = operands(self, xs)?;
                (Estimator::Or(ids), late)
            }
            ir::Expr::Max(xs) => {
                let (ids, late) = operands(self, xs)?;
                (Estimator::Max(ids), late)
            }
            ir::Expr::Not(x) => {
                let y = self.expr(x, None)?;
                (Estimator::Not(y), self.late(y))
            }
            ir::Expr::Scale(k, x) => {
                let y = self.expr(x, None)?;
                (Estimator::Scale(*k, y), self.late(y))
            }
            ir::Expr::Invalid => return Err(bug("an invalid estimator")),
        };
        Ok(self.push(name, estimator, late))
    }

    fn chunks(&mut self, chunks: &[ir::Chunk]) -> Result<Vec<Chunk>, String> {
        lower_chunks(chunks, self.intern)
    }

    /// Members of a category after its set operations (categories are acyclic by now).
    fn members(
        &self,
        h: Handle<ir::Category>,
        memo: &mut HashMap<Handle<ir::Category>, BTreeSet<String>>,
    ) -> BTreeSet<String> {
        if let Some(m) = memo.get(&h) {
            return m.clone();
        }
        let c = &self.module.categories[h];
        let mut set: BTreeSet<String> = c.words.iter().cloned().collect();
        for r in c.union.iter().filter_map(|r| r.target) {
            set.extend(self.members(r, memo));
        }
        for r in c.intersect.iter().filter_map(|r| r.target) {
            let other = self.members(r, memo);
            set.retain(|w| other.contains(w));
        }
        for r in c.minus.iter().filter_map(|r| r.target) {
            let other = self.members(r, memo);
            set.retain(|w| !other.contains(w));
        }
        memo.insert(h, set.clone());
        set
    }
}

/// Emits the HPMM section of a valid module. Errors are compiler bugs.
pub fn emit(module: &Module, intern: &mut dyn FnMut(&str) -> NameId) -> Result<Model, String> {
    let mut model = Model::default();
    let mut state_ids = HashMap::new();
    for (_, sp) in module.spaces.iter() {
        for &s in &sp.states {
            let next = SpaceStateId(state_ids.len() as u32);
            state_ids.insert(s, next);
        }
    }
    let mut cx = Cx {
        module,
        intern,
        stems: Stems::default(),
        flat: Flat::default(),
        state_ids,
        patterns: Vec::new(),
    };
    // Lexicon: one bit per category, words and their stems tagged with every category they
    // are in.
    let mut lexicon: BTreeMap<String, Tags> = BTreeMap::new();
    let mut memo = HashMap::new();
    for (bit, (h, c)) in module.categories.iter().enumerate() {
        model.categories.push((cx.intern)(&c.name.text));
        let members = cx.members(h, &mut memo);
        let siblings: Vec<&str> = members.iter().map(String::as_str).collect();
        for w in &members {
            // A member's synonyms are in the category too ("awful" where "bad" is written), in
            // the sense the other members share.
            for s in crate::related::synonyms_among(w, &siblings) {
                *lexicon.entry(text::stem(s)).or_default() |= 1u128 << bit;
                *lexicon.entry(s.to_string()).or_default() |= 1u128 << bit;
            }
            *lexicon.entry(text::stem(w)).or_default() |= 1u128 << bit;
            *lexicon.entry(w.clone()).or_default() |= 1u128 << bit;
        }
    }
    model.lexicon = lexicon
        .into_iter()
        .map(|(word, tags)| LexWord { word, tags })
        .collect();
    // Concepts. A concept is named by its words, their synonyms and every kind of its `kinds`;
    // a word some concept was written with names only the concepts written with it.
    let written: BTreeSet<String> = module
        .concepts
        .iter()
        .flat_map(|(_, c)| c.words.iter().map(|w| text::stem(w)))
        .collect();
    for (me, c) in module.concepts.iter() {
        let mut is_a = BTreeSet::new();
        let mut stack = vec![me];
        while let Some(h) = stack.pop() {
            if is_a.insert(ConceptId(h.index() as u32)) {
                stack.extend(module.concepts[h].is.iter().filter_map(|r| r.target));
            }
        }
        let mut stems: Vec<String> = c.words.iter().map(|w| text::stem(w)).collect();
        let siblings: Vec<&str> = c.words.iter().map(String::as_str).collect();
        let related = c
            .words
            .iter()
            .flat_map(|w| crate::related::synonyms_among(w, &siblings))
            .chain(
                c.kinds
                    .iter()
                    .flat_map(|k| crate::related::kinds(&k.text).iter().copied()),
            );
        for w in related {
            let s = text::stem(w);
            if !written.contains(&s) && !stems.contains(&s) {
                stems.push(s);
            }
        }
        let words = stems.iter().map(|s| cx.stems.intern(s)).collect();
        let properties = c
            .properties
            .iter()
            .map(|(k, v)| ((cx.intern)(k), v.clone()))
            .collect();
        let relations = c
            .relations
            .iter()
            .map(|(r, to)| Ok(((cx.intern)(r), ConceptId(id(to)?))))
            .collect::<Result<_, String>>()?;
        model.concepts.push(Concept {
            name: (cx.intern)(&c.name.text),
            is_a: is_a.into_iter().collect(),
            words,
            properties,
            relations,
            lines: Vec::new(),
        });
    }
    // Evidence: every named estimator (operands first), then the model dependencies'.
    for (h, _) in module.estimators.iter() {
        cx.named(h)?;
    }
    let mut dependency = HashMap::new();
    for (h, sp) in module.spaces.iter() {
        if let Some(i) = &sp.enabled_by {
            let y_e = cx.inspection(i, false, None)?;
            let y_d = cx.inspection(i, true, None)?;
            dependency.insert(h, (y_e, y_d));
        }
    }
    // Early evidence first, then late; operands keep preceding their users.
    let mut order: Vec<usize> = (0..cx.flat.entries.len())
        .filter(|&i| !cx.flat.entries[i].1)
        .collect();
    model.late_evidence = order.len() as u32;
    order.extend((0..cx.flat.entries.len()).filter(|&i| cx.flat.entries[i].1));
    let mut new_id = vec![EvidenceId(0); order.len()];
    for (new, &old) in order.iter().enumerate() {
        new_id[old] = EvidenceId(new as u32);
    }
    let map = |y: EvidenceId| new_id[y.index()];
    model.evidence = order
        .iter()
        .map(|&old| {
            let mut e = cx.flat.entries[old].0.clone();
            e.estimator = match e.estimator {
                Estimator::And(xs) => Estimator::And(xs.into_iter().map(map).collect()),
                Estimator::Or(xs) => Estimator::Or(xs.into_iter().map(map).collect()),
                Estimator::Max(xs) => Estimator::Max(xs.into_iter().map(map).collect()),
                Estimator::Not(x) => Estimator::Not(map(x)),
                Estimator::Scale(k, x) => Estimator::Scale(k, map(x)),
                other => other,
            };
            e
        })
        .collect();
    let evidence_of = |cx: &Cx<'_>, r: &ir::Ref<ir::Estimator>| -> Result<EvidenceId, String> {
        Ok(map(cx.flat.named[&target(r)?]))
    };
    // Variables and trackers (variable order, then tracker order).
    for (vh, v) in module.variables.iter() {
        model.variables.push(Variable {
            name: (cx.intern)(&v.name.text),
        });
        for t in &v.trackers {
            let concepts = |kinds: &[ir::Ref<ir::Concept>]| -> Result<Vec<ConceptId>, String> {
                kinds.iter().map(|k| Ok(ConceptId(id(k)?))).collect()
            };
            let rule = match &t.rule {
                ir::TrackerRule::Mention(kinds) => TrackerRule::Mention {
                    types: concepts(kinds)?,
                },
                ir::TrackerRule::MentionEarlier(kinds) => TrackerRule::MentionEarlier {
                    types: concepts(kinds)?,
                },
                ir::TrackerRule::MentionThirdLast(kinds) => TrackerRule::MentionThirdLast {
                    types: concepts(kinds)?,
                },
                ir::TrackerRule::Bind(c) => TrackerRule::Bind(ConceptId(id(c)?)),
                ir::TrackerRule::Copy(v) => TrackerRule::Copy(VariableId(id(v)?)),
                ir::TrackerRule::Clear => TrackerRule::Clear,
                ir::TrackerRule::MentionAfter { kinds, after } => TrackerRule::MentionAfter {
                    types: concepts(kinds)?,
                    after: 1u128 << id(after)?,
                },
                ir::TrackerRule::Unheard { concept, after } => TrackerRule::Unheard {
                    concept: ConceptId(id(concept)?),
                    after: 1u128 << id(after)?,
                    nouns: noun_stems().to_vec(),
                },
            };
            let when = match &t.when {
                Some((r, x)) => Some((evidence_of(&cx, r)?, *x)),
                None => None,
            };
            model.trackers.push(Tracker {
                variable: VariableId(vh.index() as u32),
                rule,
                when,
                speaker: t.speaker,
            });
        }
    }
    // Templates and actions.
    for (_, t) in module.templates.iter() {
        let variants = t
            .variants
            .iter()
            .map(|v| cx.chunks(v))
            .collect::<Result<_, String>>()?;
        model.templates.push(Template {
            name: (cx.intern)(&t.name.text),
            variants,
            lines: Vec::new(),
        });
    }
    for (_, a) in module.actions.iter() {
        let say = a
            .say
            .iter()
            .map(|v| cx.chunks(v))
            .collect::<Result<_, String>>()?;
        let bind = a
            .bind
            .iter()
            .map(|(v, c)| {
                Ok((
                    VariableId(id(v)?),
                    c.as_ref().map(id).transpose()?.map(ConceptId),
                ))
            })
            .collect::<Result<_, String>>()?;
        let copy_belief = a
            .copy_belief
            .iter()
            .map(|(t, s)| match (cx.inspected(t)?, cx.inspected(s)?) {
                (Inspected::State(target), Inspected::State(source)) => {
                    Ok(BeliefCopy { target, source })
                }
                _ => Err(bug("a belief copy between whole spaces")),
            })
            .collect::<Result<_, String>>()?;
        model.actions.push(Action {
            name: (cx.intern)(&a.name.text),
            emote: (cx.intern)(&a.emote),
            say,
            bind,
            copy_belief,
            lines: Vec::new(),
        });
    }
    // Spaces.
    for (h, sp) in module.spaces.iter() {
        let first = model.states.len() as u32;
        let n = sp.states.len();
        let local: HashMap<Handle<ir::SpaceState>, usize> =
            sp.states.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        let mut p = vec![0.0; n * n];
        for (i, &s) in sp.states.iter().enumerate() {
            let st = &module.space_states[s];
            for (t, prob) in crate::hpmm::valid::successors(module, s) {
                p[i * n + local[&t]] += prob;
            }
            let mut expects = st
                .expects
                .iter()
                .map(|e| Ok((evidence_of(&cx, &e.evidence)?, e.weight)))
                .collect::<Result<Vec<_>, String>>()?;
            if let (Some(&(_, y_d)), Some(d)) = (dependency.get(&h), sp.disable)
                && d == s
            {
                expects.push((map(y_d), 1.0));
            }
            model.states.push(SpaceState {
                name: (cx.intern)(&st.name.text),
                space: SpaceId(h.index() as u32),
                expects,
                action: st.action.as_ref().map(id).transpose()?.map(ActionId),
            });
        }
        let initial = sp
            .initial
            .ok_or_else(|| bug("a space without initial state"))?;
        let mut transition_expects = Vec::new();
        if let (Some(&(y_e, _)), Some(d)) = (dependency.get(&h), sp.disable) {
            transition_expects.push(TransitionExpectation {
                from: local[&d] as u32,
                to: local[&initial] as u32,
                expects: vec![(map(y_e), 1.0)],
            });
        }
        model.spaces.push(Space {
            name: (cx.intern)(&sp.name.text),
            first_state: first,
            state_count: n as u32,
            initial: cx.state_ids[&initial],
            disable: sp.disable.map(|d| cx.state_ids[&d]),
            p,
            transition_expects,
        });
    }
    // Accumulators, inputs first.
    let mut acc_ids: HashMap<Handle<ir::Accumulator>, AccumulatorId> = HashMap::new();
    fn place(
        module: &Module,
        h: Handle<ir::Accumulator>,
        order: &mut Vec<Handle<ir::Accumulator>>,
        ids: &mut HashMap<Handle<ir::Accumulator>, AccumulatorId>,
    ) {
        if ids.contains_key(&h) {
            return;
        }
        // Marked before the inputs: a cycle (refused by validation) cannot recurse forever.
        ids.insert(h, AccumulatorId(u32::MAX));
        for (_, input) in &module.accumulators[h].inputs {
            if let Some(ir::ArbitrationInput::Accumulator(a)) = input {
                place(module, *a, order, ids);
            }
        }
        ids.insert(h, AccumulatorId(order.len() as u32));
        order.push(h);
    }
    let mut order = Vec::new();
    for (h, _) in module.accumulators.iter() {
        place(module, h, &mut order, &mut acc_ids);
    }
    for h in order {
        let a = &module.accumulators[h];
        let inputs = a
            .inputs
            .iter()
            .map(|(_, i)| match i {
                Some(ir::ArbitrationInput::Space(s)) => {
                    Ok(Source::Space(SpaceId(s.index() as u32)))
                }
                Some(ir::ArbitrationInput::Accumulator(x)) => Ok(Source::Accumulator(acc_ids[x])),
                None => Err(bug("an unknown arbitration input")),
            })
            .collect::<Result<_, String>>()?;
        model.accumulators.push(Accumulator {
            name: (cx.intern)(&a.name.text),
            rule: a.rule,
            inputs,
        });
    }
    for (_, c) in module.chats.iter() {
        model.chats.push(Chat {
            name: (cx.intern)(&c.name.text),
            agent: (cx.intern)(&c.agent),
            player: (cx.intern)(&c.player),
            tick_rate: c.tick_rate,
            output: acc_ids[&target(&c.output)?],
        });
    }
    guard_real_words(&model.lexicon, &mut cx.stems);
    model.stems = std::mem::take(&mut cx.stems.list);
    model.patterns = std::mem::take(&mut cx.patterns);
    Ok(model)
}

/// The program's tallies (its last field, `ProgramParts::tallies`): each tally variable with its
/// units in variable order (the string section fills their lines), every concept's cost, and
/// what each action puts on a tally. Words are left as written: `l10n` gives them lines.
pub fn emit_tallies(module: &Module) -> Result<Tallies, String> {
    let tallies = (module.variables.iter())
        .filter_map(|(h, v)| Some((h, v.tally.as_ref()?)))
        .map(|(h, t)| Tally {
            variable: VariableId(h.index() as u32),
            units: t.units.iter().map(|(w, v)| (w.text.clone(), *v)).collect(),
            and: t.and.text.clone(),
            lines: Vec::new(),
        })
        .collect();
    let costs = (module.concepts.iter())
        .filter_map(|(h, c)| Some((ConceptId(h.index() as u32), c.cost?)))
        .collect();
    let mut adds = Vec::new();
    for (h, a) in module.actions.iter() {
        for (tally, item, once) in &a.tally {
            adds.push(TallyAdd {
                action: ActionId(h.index() as u32),
                tally: VariableId(id(tally)?),
                item: match item {
                    ir::TallyItem::Bound(v) => TallyItem::Bound(VariableId(v.index() as u32)),
                    ir::TallyItem::Concept(c) => TallyItem::Concept(ConceptId(c.index() as u32)),
                    ir::TallyItem::Invalid => return Err(bug("an unresolved tally item")),
                },
                once: *once,
            });
        }
    }
    Ok(Tallies {
        tallies,
        costs,
        adds,
    })
}
