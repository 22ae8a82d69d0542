//! Lowering the HMM-space assets into the IR: parse every file, declare every named item (so
//! references may point anywhere in the project), then resolve bodies, reporting every name
//! that does not resolve.

use super::assets::*;
use super::{pattern, template};
use crate::diag::{Code, Diagnostic, Diagnostics, suggest};
use crate::front::ron::locate::{self, Node, Seg};
use crate::front::ron::{AssetKind, parse};
use crate::ir::hpmm::*;
use crate::ir::{Handle, Module, Name};
use crate::source::{FileId, SourceMap, Span};
use ensemble_runtime::hpmm::model::{MAX_CATEGORIES, Rule, Shape, Speaker};
use std::collections::HashMap;

/// Finds spans in one file; falls back to the file start when the structure is unreadable.
struct Locator {
    file: FileId,
    tree: Option<Node>,
}

impl Locator {
    fn new(sources: &SourceMap, file: FileId) -> Self {
        Locator {
            file,
            tree: locate::parse(&sources.get(file).text),
        }
    }

    fn span(&self, path: &[Seg<'_>]) -> Span {
        match &self.tree {
            Some(t) => Span::new(self.file, t.find(path)),
            None => Span::file_start(self.file),
        }
    }

    fn name(&self, text: &str, path: &[Seg<'_>]) -> Name {
        Name {
            text: text.to_string(),
            span: self.span(path),
        }
    }
}

/// The parsed assets of one project, by kind.
#[derive(Default)]
struct Files {
    spaces: Vec<(SpaceAsset, Locator)>,
    lexicons: Vec<(LexiconAsset, Locator)>,
    evidence: Vec<(EvidenceAsset, Locator)>,
    concepts: Vec<(ConceptsAsset, Locator)>,
    actions: Vec<(ActionsAsset, Locator)>,
    chats: Vec<(ChatAsset, Locator)>,
}

/// Name tables of everything declared.
#[derive(Default)]
struct Names {
    spaces: HashMap<String, Handle<Space>>,
    states: HashMap<(Handle<Space>, String), Handle<SpaceState>>,
    estimators: HashMap<String, Handle<Estimator>>,
    categories: HashMap<String, Handle<Category>>,
    concepts: HashMap<String, Handle<Concept>>,
    variables: HashMap<String, Handle<Variable>>,
    actions: HashMap<String, Handle<Action>>,
    templates: HashMap<String, Handle<Template>>,
    accumulators: HashMap<String, Handle<Accumulator>>,
}

fn candidates<T>(map: &HashMap<String, T>) -> Vec<&str> {
    let mut v: Vec<&str> = map.keys().map(String::as_str).collect();
    v.sort_unstable();
    v
}

/// Reports an unresolved reference with a suggestion.
fn unknown(diags: &mut Diagnostics, what: &str, name: &Name, context: &str, known: Vec<&str>) {
    let mut d = Diagnostic::error(
        Code::UnknownReference,
        format!(
            "{context} refers to {what} `{}`, which is not defined",
            name.text
        ),
    )
    .at(name.span, format!("no such {what}"));
    if let Some(s) = suggest(&name.text, known) {
        d = d.did_you_mean(&name.text, s);
    }
    diags.push(d);
}

fn resolve<T>(
    diags: &mut Diagnostics,
    map: &HashMap<String, Handle<T>>,
    what: &str,
    name: Name,
    context: &str,
) -> Ref<T> {
    let target = map.get(&name.text).copied();
    if target.is_none() {
        unknown(diags, what, &name, context, candidates(map));
    }
    Ref { name, target }
}

fn duplicate(diags: &mut Diagnostics, what: &str, name: &Name, first: Span) {
    diags.push(
        Diagnostic::error(
            Code::DuplicateName,
            format!("{what} `{}` is defined twice", name.text),
        )
        .at(name.span, "defined again here")
        .related(first, "first defined here"),
    );
}

fn shape(s: ShapeAsset) -> Shape {
    match s {
        ShapeAsset::Identity => Shape::Identity,
        ShapeAsset::Threshold(x) => Shape::Threshold(x),
        ShapeAsset::Ramp(a, b) => Shape::Ramp(a, b),
        ShapeAsset::Scale(k) => Shape::Scale(k),
    }
}

fn speaker(s: &SpeakerAsset) -> Speaker {
    match s {
        SpeakerAsset::Player => Speaker::Player,
        SpeakerAsset::Agent => Speaker::Agent,
    }
}

fn check_shape(diags: &mut Diagnostics, s: Shape, span: Span) {
    let ok = match s {
        Shape::Identity => true,
        Shape::Threshold(x) => x.is_finite(),
        Shape::Scale(k) => k.is_finite() && k >= 0.0,
        Shape::Ramp(lo, hi) => lo.is_finite() && hi.is_finite() && lo < hi,
    };
    if !ok {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("invalid shaping function {s:?}"),
            )
            .at(span, "here")
            .note("Threshold(θ) and Scale(k ≥ 0) take finite numbers; Ramp(lo, hi) needs lo < hi"),
        );
    }
}

fn check_unit(diags: &mut Diagnostics, what: &str, x: f64, span: Span) {
    if !(0.0..=1.0).contains(&x) {
        diags.push(
            Diagnostic::error(
                Code::InvalidValue,
                format!("{what} must be between 0 and 1, not {x}"),
            )
            .at(span, "here"),
        );
    }
}

pub fn lower(module: &mut Module, sources: &SourceMap, diags: &mut Diagnostics) {
    let mut f = Files::default();
    for (id, file) in sources.iter() {
        let Some(kind) = AssetKind::of(&file.name) else {
            continue;
        };
        let loc = || Locator::new(sources, id);
        match kind {
            AssetKind::Space => f
                .spaces
                .extend(parse(sources, id, diags).map(|a| (a, loc()))),
            AssetKind::Lexicon => f
                .lexicons
                .extend(parse(sources, id, diags).map(|a| (a, loc()))),
            AssetKind::Evidence => f
                .evidence
                .extend(parse(sources, id, diags).map(|a| (a, loc()))),
            AssetKind::Concepts => f
                .concepts
                .extend(parse(sources, id, diags).map(|a| (a, loc()))),
            AssetKind::Actions => f
                .actions
                .extend(parse(sources, id, diags).map(|a| (a, loc()))),
            AssetKind::Chat => f
                .chats
                .extend(parse(sources, id, diags).map(|a| (a, loc()))),
            _ => {}
        }
    }
    let mut n = Names::default();
    let bodies = declare(module, &f, &mut n, diags);
    lower_categories(module, &f, &n, diags);
    lower_concepts(module, &f, &n, diags);
    lower_estimators(module, &f, &n, diags);
    lower_actions(module, &f, &n, diags);
    lower_spaces(module, &bodies, &n, diags);
    lower_accumulators(module, &f, &n, diags);
    lower_chats(module, &f, &n, diags);
}

/// Declares every named item with an empty body; returns the spaces to fill.
fn declare<'a>(
    module: &mut Module,
    f: &'a Files,
    n: &mut Names,
    diags: &mut Diagnostics,
) -> Vec<(Handle<Space>, &'a SpaceAsset, &'a Locator)> {
    let mut bodies = Vec::new();
    for (asset, loc) in &f.spaces {
        let name = loc.name(&asset.name, &[Seg::Field("name")]);
        if let Some(&prev) = n.spaces.get(&asset.name) {
            duplicate(diags, "space", &name, module.spaces[prev].name.span);
            continue;
        }
        let space = module.spaces.append(Space {
            name,
            span: loc.span(&[]),
            initial: None,
            disable: None,
            enabled_by: None,
            states: Vec::new(),
        });
        n.spaces.insert(asset.name.clone(), space);
        for (i, s) in asset.states.iter().enumerate() {
            let name = loc.name(
                &s.name,
                &[Seg::Field("states"), Seg::Index(i), Seg::Field("name")],
            );
            if let Some(&prev) = n.states.get(&(space, s.name.clone())) {
                diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        format!("space `{}` has two states named `{}`", asset.name, s.name),
                    )
                    .at(name.span, "second state with this name")
                    .related(module.space_states[prev].name.span, "first one"),
                );
            }
            let to_span = if s.to.is_empty() {
                name.span
            } else {
                loc.span(&[Seg::Field("states"), Seg::Index(i), Seg::Field("to")])
            };
            let h = module.space_states.append(SpaceState {
                name,
                space,
                expects: Vec::new(),
                action: None,
                to: Vec::new(),
                to_span,
            });
            module.spaces[space].states.push(h);
            n.states.entry((space, s.name.clone())).or_insert(h);
        }
        bodies.push((space, asset, loc));
    }
    for (asset, loc) in &f.evidence {
        for (i, e) in asset.estimators.iter().enumerate() {
            let base = [Seg::Field("estimators"), Seg::Index(i)];
            let name = loc.name(&e.name, &[base[0], base[1], Seg::Field("name")]);
            if let Some(&prev) = n.estimators.get(&e.name) {
                duplicate(diags, "estimator", &name, module.estimators[prev].name.span);
                continue;
            }
            let span = loc.span(&[base[0], base[1], Seg::Field("is")]);
            let h = module.estimators.append(Estimator {
                name,
                expr: Expr::Invalid,
                span,
            });
            n.estimators.insert(e.name.clone(), h);
        }
    }
    for (asset, loc) in &f.lexicons {
        for (i, c) in asset.categories.iter().enumerate() {
            let name = loc.name(
                &c.name,
                &[Seg::Field("categories"), Seg::Index(i), Seg::Field("name")],
            );
            if let Some(&prev) = n.categories.get(&c.name) {
                duplicate(
                    diags,
                    "lexicon category",
                    &name,
                    module.categories[prev].name.span,
                );
                continue;
            }
            if module.categories.len() == MAX_CATEGORIES {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("the lexicon may define at most {MAX_CATEGORIES} categories"),
                    )
                    .at(name.span, "one too many"),
                );
            }
            let h = module.categories.append(Category {
                name,
                words: Vec::new(),
                union: Vec::new(),
                intersect: Vec::new(),
                minus: Vec::new(),
            });
            n.categories.insert(c.name.clone(), h);
        }
    }
    for (asset, loc) in &f.concepts {
        for (i, c) in asset.concepts.iter().enumerate() {
            let name = loc.name(
                &c.name,
                &[Seg::Field("concepts"), Seg::Index(i), Seg::Field("name")],
            );
            if let Some(&prev) = n.concepts.get(&c.name) {
                duplicate(diags, "concept", &name, module.concepts[prev].name.span);
                continue;
            }
            let h = module.concepts.append(Concept {
                name,
                is: Vec::new(),
                words: Vec::new(),
                kinds: Vec::new(),
                properties: Vec::new(),
                relations: Vec::new(),
                cost: None,
            });
            n.concepts.insert(c.name.clone(), h);
        }
        for (i, v) in asset.variables.iter().enumerate() {
            let name = loc.name(
                &v.name,
                &[Seg::Field("variables"), Seg::Index(i), Seg::Field("name")],
            );
            if let Some(&prev) = n.variables.get(&v.name) {
                duplicate(diags, "variable", &name, module.variables[prev].name.span);
                continue;
            }
            let h = module.variables.append(Variable {
                name,
                trackers: Vec::new(),
                tally: None,
            });
            n.variables.insert(v.name.clone(), h);
        }
    }
    for (asset, loc) in &f.actions {
        for (i, t) in asset.templates.iter().enumerate() {
            let name = loc.name(
                &t.name,
                &[Seg::Field("templates"), Seg::Index(i), Seg::Field("name")],
            );
            if let Some(&prev) = n.templates.get(&t.name) {
                duplicate(diags, "template", &name, module.templates[prev].name.span);
                continue;
            }
            let h = module.templates.append(Template {
                name,
                variants: Vec::new(),
                written: Vec::new(),
            });
            n.templates.insert(t.name.clone(), h);
        }
        for (i, a) in asset.actions.iter().enumerate() {
            let name = loc.name(
                &a.name,
                &[Seg::Field("actions"), Seg::Index(i), Seg::Field("name")],
            );
            if let Some(&prev) = n.actions.get(&a.name) {
                duplicate(diags, "action", &name, module.actions[prev].name.span);
                continue;
            }
            let h = module.actions.append(Action {
                name,
                emote: a.emote.clone(),
                say: Vec::new(),
                written: Vec::new(),
                bind: Vec::new(),
                copy_belief: Vec::new(),
                tally: Vec::new(),
            });
            n.actions.insert(a.name.clone(), h);
        }
        for (i, acc) in asset.accumulators.iter().enumerate() {
            let name = loc.name(
                &acc.name,
                &[
                    Seg::Field("accumulators"),
                    Seg::Index(i),
                    Seg::Field("name"),
                ],
            );
            // Spaces and accumulators share one namespace: both are arbitration inputs.
            let prev = n
                .accumulators
                .get(&acc.name)
                .map(|&h| module.accumulators[h].name.span)
                .or_else(|| n.spaces.get(&acc.name).map(|&h| module.spaces[h].name.span));
            if let Some(prev) = prev {
                duplicate(diags, "arbitration input", &name, prev);
                continue;
            }
            let h = module.accumulators.append(Accumulator {
                name,
                rule: match acc.rule {
                    RuleAsset::First => Rule::First,
                    RuleAsset::Max => Rule::Max,
                    RuleAsset::All => Rule::All,
                },
                inputs: Vec::new(),
            });
            n.accumulators.insert(acc.name.clone(), h);
        }
    }
    bodies
}

fn lower_categories(module: &mut Module, f: &Files, n: &Names, diags: &mut Diagnostics) {
    for (asset, loc) in &f.lexicons {
        for (i, c) in asset.categories.iter().enumerate() {
            let Some(&h) = n.categories.get(&c.name) else {
                continue;
            };
            if !is_declared(
                loc.span(&[Seg::Field("categories"), Seg::Index(i), Seg::Field("name")]),
                module.categories[h].name.span,
            ) {
                continue; // a duplicate, reported
            }
            let context = format!("category `{}`", c.name);
            let refs = |list: &[String], field: &'static str, diags: &mut Diagnostics| {
                list.iter()
                    .enumerate()
                    .map(|(k, name)| {
                        let name = loc.name(
                            name,
                            &[
                                Seg::Field("categories"),
                                Seg::Index(i),
                                Seg::Field(field),
                                Seg::Index(k),
                            ],
                        );
                        resolve(diags, &n.categories, "lexicon category", name, &context)
                    })
                    .collect::<Vec<_>>()
            };
            let union = refs(&c.union, "union", diags);
            let intersect = refs(&c.intersect, "intersect", diags);
            let minus = refs(&c.minus, "minus", diags);
            let words = c.words.iter().map(|w| w.to_lowercase()).collect();
            let cat = &mut module.categories[h];
            cat.words = words;
            cat.union = union;
            cat.intersect = intersect;
            cat.minus = minus;
        }
    }
}

/// Whether the item declared at `span` is the one the name table holds (not a duplicate).
fn is_declared(span: Span, declared: Span) -> bool {
    span == declared
}

fn lower_concepts(module: &mut Module, f: &Files, n: &Names, diags: &mut Diagnostics) {
    for (asset, loc) in &f.concepts {
        for (i, c) in asset.concepts.iter().enumerate() {
            let base = [Seg::Field("concepts"), Seg::Index(i)];
            let Some(&h) = n.concepts.get(&c.name) else {
                continue;
            };
            if !is_declared(
                loc.span(&[base[0], base[1], Seg::Field("name")]),
                module.concepts[h].name.span,
            ) {
                continue;
            }
            let context = format!("concept `{}`", c.name);
            let is = c
                .is
                .iter()
                .enumerate()
                .map(|(k, name)| {
                    let name = loc.name(name, &[base[0], base[1], Seg::Field("is"), Seg::Index(k)]);
                    resolve(diags, &n.concepts, "concept", name, &context)
                })
                .collect();
            let relations = c
                .relations
                .iter()
                .enumerate()
                .map(|(k, (rel, to))| {
                    let name = loc.name(
                        to,
                        &[
                            base[0],
                            base[1],
                            Seg::Field("relations"),
                            Seg::Index(k),
                            Seg::Index(1),
                        ],
                    );
                    (
                        rel.clone(),
                        resolve(diags, &n.concepts, "concept", name, &context),
                    )
                })
                .collect();
            let concept = &mut module.concepts[h];
            concept.is = is;
            concept.relations = relations;
            concept.words = c.words.iter().map(|w| w.to_lowercase()).collect();
            concept.kinds = (c.kinds.iter().enumerate())
                .map(|(k, w)| {
                    let name = loc.name(
                        &w.to_lowercase(),
                        &[
                            Seg::Field("concepts"),
                            Seg::Index(i),
                            Seg::Field("kinds"),
                            Seg::Index(k),
                        ],
                    );
                    if !crate::related::is_known(&name.text) {
                        diags.push(
                            Diagnostic::error(
                                Code::UnknownReference,
                                format!(
                                    "concept `{}`: `kinds` names `{}`, a word the related-words table does not know",
                                    c.name, w
                                ),
                            )
                            .at(name.span, "unknown word")
                            .note("name a common English noun (`person`, `place`, `food`); docs/formats/concepts.md"),
                        );
                    } else if crate::related::kinds(&name.text).is_empty() {
                        diags.push(
                            Diagnostic::warning(
                                Code::InvalidValue,
                                format!(
                                    "concept `{}`: `kinds` names `{}`, which has no common kinds: it adds no word",
                                    c.name, w
                                ),
                            )
                            .at(name.span, "no kinds")
                            .note("list its words in `words`, or name a broader word; docs/formats/concepts.md"),
                        );
                    }
                    name
                })
                .collect();
            if c.properties
                .contains_key(ensemble_runtime::hpmm::output::QUANTITY)
            {
                // `{the-dish.quantity}` says the number heard with a binding ("two ales").
                let span = loc.span(&[base[0], base[1], Seg::Field("properties")]);
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!(
                            "concept `{}`: a property cannot be called `quantity`",
                            c.name
                        ),
                    )
                    .at(span, "reserved")
                    .note("`{variable.quantity}` says the number heard with a variable's concept (\"two ales\"); call the property otherwise; docs/formats/concepts.md"),
                );
            }
            concept.properties = c
                .properties
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            concept.cost = c.cost;
        }
        for (i, v) in asset.variables.iter().enumerate() {
            let base = [Seg::Field("variables"), Seg::Index(i)];
            let Some(&h) = n.variables.get(&v.name) else {
                continue;
            };
            if !is_declared(
                loc.span(&[base[0], base[1], Seg::Field("name")]),
                module.variables[h].name.span,
            ) {
                continue;
            }
            let context = format!("a tracker of variable `{}`", v.name);
            let mut trackers = Vec::new();
            for (k, t) in v.track.iter().enumerate() {
                let path = [base[0], base[1], Seg::Field("track"), Seg::Index(k)];
                let span = loc.span(&path);
                let rule_span = loc.span(&[path[0], path[1], path[2], path[3], Seg::Field("rule")]);
                let named = |text: &str| Name {
                    text: text.to_string(),
                    span: rule_span,
                };
                // The kinds a `Mention` rule names, each resolved to its concept.
                let concepts = |diags: &mut Diagnostics, kinds: &[String]| {
                    (kinds.iter())
                        .map(|c| resolve(diags, &n.concepts, "concept", named(c), &context))
                        .collect()
                };
                // The lexicon category a role word or a phrase start is of.
                let category = |diags: &mut Diagnostics, after: &str| {
                    resolve(
                        diags,
                        &n.categories,
                        "lexicon category",
                        named(after),
                        &context,
                    )
                };
                let rule = match &t.rule {
                    TrackerRuleAsset::Mention(kinds) => {
                        TrackerRule::Mention(concepts(diags, kinds))
                    }
                    TrackerRuleAsset::MentionEarlier(kinds) => {
                        TrackerRule::MentionEarlier(concepts(diags, kinds))
                    }
                    TrackerRuleAsset::MentionThirdLast(kinds) => {
                        TrackerRule::MentionThirdLast(concepts(diags, kinds))
                    }
                    TrackerRuleAsset::Bind(c) => TrackerRule::Bind(resolve(
                        diags,
                        &n.concepts,
                        "concept",
                        named(c),
                        &context,
                    )),
                    TrackerRuleAsset::Copy(v) => TrackerRule::Copy(resolve(
                        diags,
                        &n.variables,
                        "variable",
                        named(v),
                        &context,
                    )),
                    TrackerRuleAsset::Clear => TrackerRule::Clear,
                    TrackerRuleAsset::MentionAfter { kinds, after } => TrackerRule::MentionAfter {
                        kinds: concepts(diags, kinds),
                        after: category(diags, after),
                    },
                    TrackerRuleAsset::Unheard { concept, after } => TrackerRule::Unheard {
                        concept: resolve(diags, &n.concepts, "concept", named(concept), &context),
                        after: category(diags, after),
                    },
                };
                let when = t.when.as_ref().map(|w| {
                    let name =
                        loc.name(w, &[path[0], path[1], path[2], path[3], Seg::Field("when")]);
                    (
                        resolve(diags, &n.estimators, "estimator", name, &context),
                        t.above,
                    )
                });
                check_unit(diags, "a tracker threshold (`above`)", t.above, span);
                trackers.push(Tracker {
                    rule,
                    when,
                    speaker: t.speaker.as_ref().map(speaker),
                    span,
                });
            }
            if let Some(tally) = &v.tally {
                if let Some(first) = trackers.first() {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("variable `{}` is a tally: trackers cannot bind it", v.name),
                        )
                        .at(first.span, "a tracker of a tally")
                        .note("actions put concepts on a tally with `tally: [(\"the-tab\", ...)]` and empty it with `unbind`; docs/formats/concepts.md"),
                    );
                }
                module.variables[h].tally = Some(lower_tally(tally, loc, base, &v.name, diags));
            }
            module.variables[h].trackers = trackers;
        }
    }
}

/// A tally's units, checked: at least one, each worth more than the next, the last worth 1
/// (so every total can be said), each with a word.
fn lower_tally(
    tally: &TallyAsset,
    loc: &Locator,
    base: [Seg<'_>; 2],
    variable: &str,
    diags: &mut Diagnostics,
) -> Tally {
    let field = [base[0], base[1], Seg::Field("tally")];
    let units: Vec<(Name, u32)> = (tally.units.iter().enumerate())
        .map(|(k, (word, value))| {
            let path = [
                field[0],
                field[1],
                field[2],
                Seg::Field("units"),
                Seg::Index(k),
            ];
            (loc.name(word, &path), *value)
        })
        .collect();
    let bad = |span: Span, message: String, label: &str| {
        Diagnostic::error(Code::InvalidValue, format!("tally `{variable}`: {message}"))
            .at(span, label)
            .note("units go from the largest to the smallest, which is worth 1: `units: [(\"silver\", 10), (\"copper\", 1)]`; docs/formats/concepts.md")
    };
    match units.last() {
        None => diags.push(bad(
            loc.span(&[field[0], field[1], field[2], Seg::Field("units")]),
            "has no units".into(),
            "no units",
        )),
        Some((word, value)) if *value != 1 => diags.push(bad(
            word.span,
            format!(
                "its smallest unit `{}` is worth {value}, not 1: some totals could not be said",
                word.text
            ),
            "the smallest unit",
        )),
        Some(_) => {}
    }
    for w in units.windows(2) {
        if w[0].1 <= w[1].1 {
            diags.push(bad(
                w[1].0.span,
                format!(
                    "unit `{}` ({}) is not worth less than `{}` ({}) before it",
                    w[1].0.text, w[1].1, w[0].0.text, w[0].1
                ),
                "out of order",
            ));
        }
    }
    for (k, (word, _)) in units.iter().enumerate() {
        if word.text.trim().is_empty() {
            diags.push(bad(word.span, "a unit has no word".into(), "empty"));
        } else if word.text == "and" {
            // Its line would be the tally's `and` (`the-tab.and`).
            diags.push(bad(
                word.span,
                "a unit cannot be called `and`".into(),
                "reserved",
            ));
        } else if units[..k].iter().any(|(w, _)| w.text == word.text) {
            diags.push(bad(
                word.span,
                format!("unit `{}` is written twice", word.text),
                "again",
            ));
        }
    }
    let and_path = [field[0], field[1], field[2], Seg::Field("and")];
    // `and` may be left out (it defaults): then it points at the tally.
    let and_span = if tally.and == "and" {
        loc.span(&field)
    } else {
        loc.span(&and_path)
    };
    Tally {
        units,
        and: Name {
            text: tally.and.clone(),
            span: and_span,
        },
    }
}

/// Resolves `space.state` (a state) or `space` (its activation).
fn inspect_target(
    module: &Module,
    n: &Names,
    diags: &mut Diagnostics,
    name: Name,
    context: &str,
    states_only: bool,
) -> InspectTarget {
    let (space_name, state_name) = match name.text.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (name.text.as_str(), None),
    };
    let target = match n.spaces.get(space_name) {
        None => {
            unknown(
                diags,
                "space",
                &Name {
                    text: space_name.to_string(),
                    span: name.span,
                },
                context,
                candidates(&n.spaces),
            );
            None
        }
        Some(&space) => match state_name {
            None if states_only => {
                diags.push(
                    Diagnostic::error(
                        Code::UnknownReference,
                        format!(
                            "{context} needs a state (`{space_name}.STATE`), not a whole space"
                        ),
                    )
                    .at(name.span, "a space"),
                );
                None
            }
            None => Some(Inspected::Active(space)),
            Some(state) => match n.states.get(&(space, state.to_string())) {
                Some(&s) => Some(Inspected::State(s)),
                None => {
                    let names: Vec<&str> = module.spaces[space]
                        .states
                        .iter()
                        .map(|&s| module.space_states[s].name.text.as_str())
                        .collect();
                    let mut d = Diagnostic::error(
                        Code::UnknownReference,
                        format!("{context} refers to `{}`, but space `{space_name}` has no state `{state}`", name.text),
                    )
                    .at(name.span, "no such state");
                    if let Some(s) = suggest(state, names) {
                        d = d.note(format!("did you mean `{space_name}.{s}`?"));
                    }
                    diags.push(d);
                    None
                }
            },
        },
    };
    InspectTarget { name, target }
}

fn lower_inspection(
    module: &Module,
    n: &Names,
    diags: &mut Diagnostics,
    of: &[String],
    s: ShapeAsset,
    span: Span,
    context: &str,
) -> Inspection {
    let shape = shape(s);
    check_shape(diags, shape, span);
    Inspection {
        of: of
            .iter()
            .map(|t| {
                let name = Name {
                    text: t.clone(),
                    span,
                };
                inspect_target(module, n, diags, name, context, false)
            })
            .collect(),
        shape,
        span,
    }
}

/// `Max([Match("a", 1.0), Not(Match("b", 1.0))])` (or `Or`) holds for every line without "b":
/// a negated match is a condition, not an alternative, and belongs beside the `Max` in an
/// `And`. A negated estimator (`Not(Ev("asking"))`) stays allowed: "either this, or not that"
/// is written so.
fn negated_alternatives(diags: &mut Diagnostics, xs: &[ExprAsset], span: Span) {
    for x in xs {
        if let ExprAsset::Not(inner) = x
            && let ExprAsset::Match(text, _) = &**inner
        {
            diags.push(
                Diagnostic::warning(
                    Code::NegatedAlternative,
                    format!(
                        "`Not(Match(\"{text}\"))` is one of the alternatives of a `Max([...])` \
                         or `Or([...])`: it holds for every line without those words, and so \
                         does the whole"
                    ),
                )
                .at(span, "in this estimator")
                .note(
                    "a negated match is a condition: put it beside the `Max`, in the `And` \
                     around it (`And([Max([...]), Not(Match(...))])`)",
                ),
            );
        }
    }
}

/// In `And([Match("a|fair * coming"), Not(Match("unfair|fairly"))])` the negated `fairly` has
/// the stem of the matched `fair` (words compare by stem), so the `Not` rejects every line the
/// match finds by that word; so does a negated word whose synonyms hold the matched word's stem
/// (`Not(Match("tired"))` rejects "weary"; the other way round, negating one synonym of a
/// matched word, is a narrower condition). Only one-word negations are read: a negated phrase
/// (`Not(Match("fair price"))`) is narrower on purpose. Matched words are those of the `And`'s
/// own matches and of the matches in a `Max`/`Or` directly inside it. A negation with a
/// confidence below 1 does not reject but discounts, and says so.
fn negated_stems(diags: &mut Diagnostics, xs: &[ExprAsset], span: Span) {
    let mut matched: Vec<(String, String)> = Vec::new();
    for x in xs {
        match x {
            ExprAsset::Match(text, _) => matched.extend(pattern::words_and_stems(text)),
            ExprAsset::Max(ys) | ExprAsset::Or(ys) => {
                for y in ys {
                    if let ExprAsset::Match(text, _) = y {
                        matched.extend(pattern::words_and_stems(text));
                    }
                }
            }
            _ => {}
        }
    }
    for x in xs {
        let ExprAsset::Not(inner) = x else { continue };
        let ExprAsset::Match(text, confidence) = &**inner else {
            continue;
        };
        for (word, stems) in pattern::one_word_stems(text) {
            let Some((kept, stem)) = matched.iter().find(|(_, s)| stems.contains(s)) else {
                continue;
            };
            let how = if stems.first() == Some(stem) {
                format!("which has the stem of `{kept}`")
            } else {
                format!("which is understood as `{kept}` too (a synonym)")
            };
            let (verb, effect) = if *confidence >= 1.0 {
                ("rejects", "rejects".to_string())
            } else {
                ("discounts", format!("discounts to {:.2}", 1.0 - confidence))
            };
            diags.push(
                Diagnostic::warning(
                    Code::NegatedStem,
                    format!(
                        "`Not(Match(\"{text}\"))` {verb} `{word}`, {how}, a word this estimator \
                         matches (`{stem}`): words compare by stem, so it {effect} every line \
                         found by `{kept}`"
                    ),
                )
                .at(span, "in this estimator")
                .note(
                    "drop the word from the negation, or negate a phrase that tells the \
                     lines apart (`Not(Match(\"fair price\"))`)",
                ),
            );
            break;
        }
    }
}

fn lower_expr(
    module: &Module,
    n: &Names,
    diags: &mut Diagnostics,
    e: &ExprAsset,
    span: Span,
    context: &str,
) -> Expr {
    let named = |text: &str| Name {
        text: text.to_string(),
        span,
    };
    let list = |xs: &[ExprAsset], diags: &mut Diagnostics| {
        xs.iter()
            .map(|x| lower_expr(module, n, diags, x, span, context))
            .collect::<Vec<_>>()
    };
    match e {
        ExprAsset::Always => Expr::Always,
        ExprAsset::Match(text, confidence) => {
            check_unit(diags, "a match confidence", *confidence, span);
            let category = |c: &str| n.categories.get(c).copied();
            match pattern::parse(text, span, &category) {
                Ok(p) => {
                    let phrases = pattern::phrase_alternatives(text);
                    if let Some((token, why)) = phrases.first() {
                        let tokens: Vec<String> =
                            phrases.iter().map(|(t, _)| format!("`{t}`")).collect();
                        diags.push(
                            Diagnostic::warning(
                                Code::PhraseAlternative,
                                format!(
                                    "`{text}` reads {} as single-word alternatives, but `{token}` \
                                     {why}: it looks like alternatives between phrases",
                                    tokens.join(", ")
                                ),
                            )
                            .at(span, "in this estimator")
                            .note(
                                "alternatives are single words, so this pattern matches words in \
                                 a row that nobody types; write each phrase as its own `Match` \
                                 inside `Max([...])`, or keep the shared word outside \
                                 (`light the|a`)",
                            ),
                        );
                    }
                    for w in p.segments.iter().flatten() {
                        if let PatternWord::Is { any, all, .. } = w {
                            for r in any.iter().chain(all) {
                                if r.target.is_none() {
                                    unknown(
                                        diags,
                                        "lexicon category",
                                        &r.name,
                                        context,
                                        candidates(&n.categories),
                                    );
                                }
                            }
                        }
                    }
                    Expr::Match {
                        pattern: p,
                        confidence: *confidence,
                    }
                }
                Err(message) => {
                    diags.push(
                        Diagnostic::error(Code::Syntax, format!("bad pattern `{text}`: {message}"))
                            .at(span, "in this estimator")
                            .note("see docs/formats/evidence.md for the pattern language"),
                    );
                    Expr::Invalid
                }
            }
        }
        ExprAsset::Speaker(s) => Expr::Speaker(speaker(s)),
        ExprAsset::Emote(e) => Expr::Emote(e.to_lowercase()),
        ExprAsset::Did(a) => Expr::Did(Some(resolve(
            diags,
            &n.actions,
            "action",
            named(a),
            context,
        ))),
        ExprAsset::DidAny => Expr::Did(None),
        ExprAsset::Mentions(c) => {
            Expr::Mentions(resolve(diags, &n.concepts, "concept", named(c), context))
        }
        ExprAsset::Inspect { of, shape } => {
            if of.is_empty() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        "an inspection must name something to inspect",
                    )
                    .at(span, "empty `of`"),
                );
            }
            Expr::Inspect(lower_inspection(
                module, n, diags, of, *shape, span, context,
            ))
        }
        ExprAsset::Var(v, test) => {
            let variable = resolve(diags, &n.variables, "variable", named(v), context);
            let test = match test {
                VarTestAsset::Bound => VarTest::Bound,
                VarTestAsset::IsA(c) => {
                    VarTest::IsA(resolve(diags, &n.concepts, "concept", named(c), context))
                }
                VarTestAsset::Related(r, c) => VarTest::Related(
                    r.clone(),
                    resolve(diags, &n.concepts, "concept", named(c), context),
                ),
                VarTestAsset::Holds(c) => {
                    VarTest::Holds(resolve(diags, &n.concepts, "concept", named(c), context))
                }
            };
            Expr::Var { variable, test }
        }
        ExprAsset::Ev(name) => Expr::Ev(resolve(
            diags,
            &n.estimators,
            "estimator",
            named(name),
            context,
        )),
        ExprAsset::And(xs) => {
            negated_stems(diags, xs, span);
            Expr::And(list(xs, diags))
        }
        ExprAsset::Or(xs) => {
            negated_alternatives(diags, xs, span);
            Expr::Or(list(xs, diags))
        }
        ExprAsset::Max(xs) => {
            negated_alternatives(diags, xs, span);
            Expr::Max(list(xs, diags))
        }
        ExprAsset::Not(x) => Expr::Not(Box::new(lower_expr(module, n, diags, x, span, context))),
        ExprAsset::Scale(k, x) => {
            if !k.is_finite() || *k < 0.0 {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("Scale takes a finite factor ≥ 0, not {k}"),
                    )
                    .at(span, "here"),
                );
            }
            Expr::Scale(*k, Box::new(lower_expr(module, n, diags, x, span, context)))
        }
    }
}

fn lower_estimators(module: &mut Module, f: &Files, n: &Names, diags: &mut Diagnostics) {
    for (asset, loc) in &f.evidence {
        for (i, e) in asset.estimators.iter().enumerate() {
            let Some(&h) = n.estimators.get(&e.name) else {
                continue;
            };
            let name_span =
                loc.span(&[Seg::Field("estimators"), Seg::Index(i), Seg::Field("name")]);
            if !is_declared(name_span, module.estimators[h].name.span) {
                continue;
            }
            let span = module.estimators[h].span;
            let context = format!("estimator `{}`", e.name);
            let expr = lower_expr(module, n, diags, &e.is, span, &context);
            module.estimators[h].expr = expr;
        }
    }
}

fn lower_actions(module: &mut Module, f: &Files, n: &Names, diags: &mut Diagnostics) {
    for (asset, loc) in &f.actions {
        let variable = |v: &str| n.variables.get(v).copied();
        let templ = |t: &str| n.templates.get(t).copied();
        let parse_template = |text: &str, span: Span, context: &str, diags: &mut Diagnostics| {
            let r = template::Resolver {
                span,
                variable: &variable,
                template: &templ,
            };
            match template::parse(text, &r) {
                Ok(chunks) => {
                    let mut refs = Vec::new();
                    template::references(&chunks, &mut refs);
                    for (name, what, ok) in refs {
                        if !ok {
                            let known = if what == "variable" {
                                candidates(&n.variables)
                            } else {
                                candidates(&n.templates)
                            };
                            unknown(diags, what, &Name { text: name, span }, context, known);
                        }
                    }
                    chunks
                }
                Err(message) => {
                    diags.push(
                        Diagnostic::error(
                            Code::Syntax,
                            format!("bad template `{text}`: {message}"),
                        )
                        .at(span, "here")
                        .note("see docs/formats/actions.md for the template syntax"),
                    );
                    Vec::new()
                }
            }
        };
        // Each variant of a template or an action's `say`, parsed, and as written.
        let parse_all = |texts: &[String],
                         base: [Seg<'_>; 2],
                         field: &'static str,
                         context: &str,
                         diags: &mut Diagnostics| {
            let mut chunks = Vec::new();
            let mut written = Vec::new();
            for (k, v) in texts.iter().enumerate() {
                let span = loc.span(&[base[0], base[1], Seg::Field(field), Seg::Index(k)]);
                // A pinned line id (`{#id} ...`) names the line; it is not said.
                chunks.push(parse_template(
                    ensemble_runtime::locale::split_pin(v).1,
                    span,
                    context,
                    diags,
                ));
                written.push(Written {
                    text: v.clone(),
                    span,
                });
            }
            (chunks, written)
        };
        for (i, t) in asset.templates.iter().enumerate() {
            let base = [Seg::Field("templates"), Seg::Index(i)];
            let Some(&h) = n.templates.get(&t.name) else {
                continue;
            };
            if !is_declared(
                loc.span(&[base[0], base[1], Seg::Field("name")]),
                module.templates[h].name.span,
            ) {
                continue;
            }
            let context = format!("template `{}`", t.name);
            let (variants, written) = parse_all(&t.variants, base, "variants", &context, diags);
            module.templates[h].variants = variants;
            module.templates[h].written = written;
        }
        for (i, a) in asset.actions.iter().enumerate() {
            let base = [Seg::Field("actions"), Seg::Index(i)];
            let Some(&h) = n.actions.get(&a.name) else {
                continue;
            };
            if !is_declared(
                loc.span(&[base[0], base[1], Seg::Field("name")]),
                module.actions[h].name.span,
            ) {
                continue;
            }
            let context = format!("action `{}`", a.name);
            let (say, written) = parse_all(&a.say, base, "say", &context, diags);
            module.actions[h].written = written;
            let mut bind = Vec::new();
            for (k, (v, c)) in a.bind.iter().enumerate() {
                let path = [base[0], base[1], Seg::Field("bind"), Seg::Index(k)];
                let vname = loc.name(v, &[path[0], path[1], path[2], path[3], Seg::Index(0)]);
                let cname = loc.name(c, &[path[0], path[1], path[2], path[3], Seg::Index(1)]);
                bind.push((
                    resolve(diags, &n.variables, "variable", vname, &context),
                    Some(resolve(diags, &n.concepts, "concept", cname, &context)),
                ));
            }
            for (k, v) in a.unbind.iter().enumerate() {
                let vname = loc.name(v, &[base[0], base[1], Seg::Field("unbind"), Seg::Index(k)]);
                bind.push((
                    resolve(diags, &n.variables, "variable", vname, &context),
                    None,
                ));
            }
            let mut copy_belief = Vec::new();
            for (k, (t, s)) in a.copy_belief.iter().enumerate() {
                let path = [base[0], base[1], Seg::Field("copy_belief"), Seg::Index(k)];
                let tname = loc.name(t, &[path[0], path[1], path[2], path[3], Seg::Index(0)]);
                let sname = loc.name(s, &[path[0], path[1], path[2], path[3], Seg::Index(1)]);
                copy_belief.push((
                    inspect_target(module, n, diags, tname, &context, true),
                    inspect_target(module, n, diags, sname, &context, true),
                ));
            }
            for ((v, c), (k, _)) in bind.iter().zip(a.bind.iter().enumerate()) {
                if c.is_some()
                    && v.target
                        .is_some_and(|v| module.variables[v].tally.is_some())
                {
                    let span = loc.span(&[base[0], base[1], Seg::Field("bind"), Seg::Index(k)]);
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("{context} binds `{}`, a tally", v.name.text),
                        )
                        .at(span, "a tally is not bound")
                        .note(format!("put the concept on it: `tally: [(\"{}\", ...)]`; docs/formats/actions.md", v.name.text)),
                    );
                }
            }
            let mut tally = Vec::new();
            let written = (a
                .tally
                .iter()
                .enumerate()
                .map(|(k, x)| ("tally", k, x, false)))
            .chain((a.tally_once.iter().enumerate()).map(|(k, x)| ("tally_once", k, x, true)));
            for (field, k, (t, item), once) in written {
                let path = [base[0], base[1], Seg::Field(field), Seg::Index(k)];
                let tname = loc.name(t, &[path[0], path[1], path[2], path[3], Seg::Index(0)]);
                let iname = loc.name(item, &[path[0], path[1], path[2], path[3], Seg::Index(1)]);
                let target = resolve(diags, &n.variables, "variable", tname, &context);
                if let Some(v) = target.target
                    && module.variables[v].tally.is_none()
                {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("{context} puts something on `{t}`, which is no tally"),
                        )
                        .at(target.name.span, "not a tally")
                        .note("declare it with `tally: (units: [...])`; docs/formats/concepts.md"),
                    );
                }
                let item = match (n.variables.get(item), n.concepts.get(item)) {
                    (Some(_), Some(_)) => {
                        diags.push(
                            Diagnostic::error(
                                Code::DuplicateName,
                                format!("{context}: `{item}` names both a variable and a concept"),
                            )
                            .at(iname.span, "which one?")
                            .note("rename one of them"),
                        );
                        TallyItem::Invalid
                    }
                    (Some(&v), None) => TallyItem::Bound(v),
                    (None, Some(&c)) => TallyItem::Concept(c),
                    (None, None) => {
                        let mut known = candidates(&n.variables);
                        known.extend(candidates(&n.concepts));
                        unknown(diags, "variable or concept", &iname, &context, known);
                        TallyItem::Invalid
                    }
                };
                tally.push((target, item, once));
            }
            let action = &mut module.actions[h];
            action.say = say;
            action.bind = bind;
            action.copy_belief = copy_belief;
            action.tally = tally;
        }
    }
}

fn lower_spaces(
    module: &mut Module,
    bodies: &[(Handle<Space>, &SpaceAsset, &Locator)],
    n: &Names,
    diags: &mut Diagnostics,
) {
    for &(space, asset, loc) in bodies {
        let space_name = asset.name.as_str();
        let state_names: Vec<&str> = asset.states.iter().map(|s| s.name.as_str()).collect();
        let local = |name: &str| n.states.get(&(space, name.to_string())).copied();
        let unknown_state = |diags: &mut Diagnostics, name: &Name, what: &str| {
            let mut d = Diagnostic::error(
                Code::UnknownReference,
                format!(
                    "{what} `{}` is not a state of space `{space_name}`",
                    name.text
                ),
            )
            .at(name.span, "no such state");
            if let Some(s) = suggest(&name.text, state_names.iter().copied()) {
                d = d.did_you_mean(&name.text, s);
            }
            diags.push(d);
        };
        let handles = module.spaces[space].states.clone();
        for ((i, s), &h) in asset.states.iter().enumerate().zip(&handles) {
            let base = [Seg::Field("states"), Seg::Index(i)];
            let context = format!("state `{}` of space `{space_name}`", s.name);
            let mut expects = Vec::new();
            for (k, e) in s.expects.iter().enumerate() {
                let span = loc.span(&[base[0], base[1], Seg::Field("expects"), Seg::Index(k)]);
                let (name, weight) = match e {
                    ExpectAsset::Evidence(name) => (name, 1.0),
                    ExpectAsset::Weighted(name, w) => (name, *w),
                };
                if !weight.is_finite() || weight < 0.0 {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!(
                                "an expectation weight must be a finite number ≥ 0, not {weight}"
                            ),
                        )
                        .at(span, "here"),
                    );
                }
                let name = Name {
                    text: name.clone(),
                    span,
                };
                expects.push(Expectation {
                    evidence: resolve(diags, &n.estimators, "estimator", name, &context),
                    weight,
                });
            }
            let action = s.action.as_ref().map(|a| {
                let name = loc.name(a, &[base[0], base[1], Seg::Field("action")]);
                resolve(diags, &n.actions, "action", name, &context)
            });
            let mut to = Vec::new();
            let mut seen: HashMap<&str, Span> = HashMap::new();
            for (k, (target, p)) in s.to.iter().enumerate() {
                let path = [base[0], base[1], Seg::Field("to"), Seg::Index(k)];
                let span = loc.span(&path);
                let name = loc.name(target, &[path[0], path[1], path[2], path[3], Seg::Index(0)]);
                let resolved = local(target);
                if resolved.is_none() {
                    unknown_state(diags, &name, &format!("transition target of {context}"));
                }
                if let Some(prev) = seen.insert(target, span) {
                    diags.push(
                        Diagnostic::error(
                            Code::DuplicateName,
                            format!("{context} has two transitions to `{target}`"),
                        )
                        .at(span, "second transition")
                        .related(prev, "first one")
                        .note("add their probabilities into one transition"),
                    );
                }
                if !(0.0..=1.0).contains(p) {
                    diags.push(
                        Diagnostic::error(
                            Code::InvalidValue,
                            format!("a transition probability must be between 0 and 1, not {p}"),
                        )
                        .at(span, "here"),
                    );
                }
                to.push(Edge {
                    target: Ref {
                        name,
                        target: resolved,
                    },
                    p: *p,
                    span,
                });
            }
            let st = &mut module.space_states[h];
            st.expects = expects;
            st.action = action;
            st.to = to;
        }
        let named = |field: &'static str, text: &str| loc.name(text, &[Seg::Field(field)]);
        let initial = match &asset.initial {
            Some(i) => {
                let name = named("initial", i);
                let found = local(i);
                if found.is_none() {
                    unknown_state(diags, &name, "the initial state");
                }
                found
            }
            None => {
                diags.push(
                    Diagnostic::error(
                        Code::NoInitialState,
                        format!("space `{space_name}` has no initial state"),
                    )
                    .at(module.spaces[space].name.span, "this space")
                    .note("name its initial state s0 with `initial: \"...\"`"),
                );
                None
            }
        };
        let disable = asset.disable.as_ref().and_then(|d| {
            let name = named("disable", d);
            let found = local(d);
            if found.is_none() {
                unknown_state(diags, &name, "the disable state");
            }
            found
        });
        let enabled_by = asset.enabled_by.as_ref().map(|e| {
            let span = loc.span(&[Seg::Field("enabled_by")]);
            let context = format!("the model dependency of space `{space_name}`");
            if asset.disable.is_none() {
                diags.push(
                    Diagnostic::error(
                        Code::InvalidValue,
                        format!("space `{space_name}` is `enabled_by` a controller but has no `disable` state"),
                    )
                    .at(span, "model dependency")
                    .note("a model dependency moves belief into the disable state when the controller is off; add `disable: \"...\"`"),
                );
            }
            if e.of.is_empty() {
                diags.push(
                    Diagnostic::error(Code::InvalidValue, "`enabled_by` must name a controller")
                        .at(span, "empty `of`"),
                );
            }
            lower_inspection(module, n, diags, &e.of, e.shape, span, &context)
        });
        let sp = &mut module.spaces[space];
        sp.initial = initial;
        sp.disable = disable;
        sp.enabled_by = enabled_by;
    }
}

fn lower_accumulators(module: &mut Module, f: &Files, n: &Names, diags: &mut Diagnostics) {
    let mut all: Vec<&str> = n
        .spaces
        .keys()
        .chain(n.accumulators.keys())
        .map(String::as_str)
        .collect();
    all.sort_unstable();
    for (asset, loc) in &f.actions {
        for (i, acc) in asset.accumulators.iter().enumerate() {
            let base = [Seg::Field("accumulators"), Seg::Index(i)];
            let Some(&h) = n.accumulators.get(&acc.name) else {
                continue;
            };
            if !is_declared(
                loc.span(&[base[0], base[1], Seg::Field("name")]),
                module.accumulators[h].name.span,
            ) {
                continue;
            }
            let inputs = acc
                .inputs
                .iter()
                .enumerate()
                .map(|(k, input)| {
                    let name = loc.name(
                        input,
                        &[base[0], base[1], Seg::Field("inputs"), Seg::Index(k)],
                    );
                    let target = n
                        .spaces
                        .get(input)
                        .map(|&s| ArbitrationInput::Space(s))
                        .or_else(|| {
                            n.accumulators
                                .get(input)
                                .map(|&a| ArbitrationInput::Accumulator(a))
                        });
                    if target.is_none() {
                        unknown(
                            diags,
                            "space or accumulator",
                            &name,
                            &format!("accumulator `{}`", acc.name),
                            all.clone(),
                        );
                    }
                    (name, target)
                })
                .collect();
            module.accumulators[h].inputs = inputs;
        }
    }
}

/// The accumulators no other accumulator takes in, by name: what a conversation may speak from.
fn sinks(module: &Module) -> Vec<String> {
    let taken_in = |name: &str| {
        module
            .accumulators
            .iter()
            .any(|(_, a)| a.inputs.iter().any(|(i, _)| i.text == name))
    };
    let mut out: Vec<String> = module
        .accumulators
        .iter()
        .map(|(_, a)| a.name.text.clone())
        .filter(|name| !taken_in(name))
        .collect();
    out.sort();
    out
}

fn lower_chats(module: &mut Module, f: &Files, n: &Names, diags: &mut Diagnostics) {
    for (asset, loc) in &f.chats {
        let name = loc.name(&asset.name, &[Seg::Field("name")]);
        // Conversations are scenes to `ensemble run --scene`: one namespace with the scenes.
        let prev = module
            .chats
            .iter()
            .find(|(_, c)| c.name.text == asset.name)
            .map(|(_, c)| c.name.span)
            .or_else(|| {
                module
                    .scenes
                    .iter()
                    .find(|(_, s)| s.name.text == asset.name)
                    .map(|(_, s)| s.name.span)
            });
        if let Some(prev) = prev {
            duplicate(diags, "scene", &name, prev);
            continue;
        }
        if !(1..=10_000).contains(&asset.tick_rate) {
            diags.push(
                Diagnostic::error(
                    Code::InvalidValue,
                    format!(
                        "tick_rate must be between 1 and 10000 iterations per second, not {}",
                        asset.tick_rate
                    ),
                )
                .at(loc.span(&[Seg::Field("tick_rate")]), "here"),
            );
        }
        let named = loc.name(&asset.output, &[Seg::Field("output")]);
        let output = if named.text.trim().is_empty() {
            // A new chat scene: say what the field is for, not that "``" is undefined.
            let mut d = Diagnostic::error(
                Code::UnknownReference,
                format!("conversation `{}` names no sink accumulator", asset.name),
            )
            .at(named.span, "choose the sink")
            .note(
                "the agent says what the sink decides: the accumulator of an `*.actions.ron` \
                 that the spaces' proposed actions flow into and no other accumulator takes in",
            );
            d = if n.accumulators.is_empty() {
                d.note(
                    "this project defines no accumulator yet: add an actions file (its actions \
                     and accumulators) and the spaces that propose them",
                )
            } else {
                d.note(format!(
                    "this project's sinks: {}",
                    sinks(module).join(", ")
                ))
            };
            diags.push(d);
            Ref {
                name: named,
                target: None,
            }
        } else {
            resolve(
                diags,
                &n.accumulators,
                "accumulator",
                named,
                &format!("conversation `{}`", asset.name),
            )
        };
        module.chats.append(Chat {
            name,
            agent: asset.agent.clone(),
            player: asset.player.clone(),
            tick_rate: asset.tick_rate,
            output,
        });
    }
}
