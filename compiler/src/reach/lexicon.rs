//! Player lines drawn from the spaces' own evidence: for each surface pattern an estimator
//! matches (`Match("^ @greeting-word", …)`), one line that makes it match — each word test
//! given the first stem it accepts or the first word of its category, `*` left out. A
//! conversation is searchable with no transcript at all, and a reply action gets the lines
//! aimed at the states that propose it ([`aimed_at`]) before any other.

use crate::ir::hpmm::{Category, Estimator, Expr, Pattern, PatternWord, SpaceState};
use crate::ir::{Handle, Module};
use std::collections::HashMap;

/// The most lines aimed at one reply action.
pub const MAX_AIMED: usize = 48;

/// A line for every surface pattern of every estimator, in the order written.
pub fn every_pattern(module: &Module) -> Vec<String> {
    let mut out = Vec::new();
    let mut walk = Walk::new(module);
    for (h, _) in module.estimators.iter() {
        walk.estimator(h, &mut out);
    }
    out
}

/// Lines that raise the evidence the states proposing reply action `action` expect (with a
/// positive weight), and the states that lead into them: what a player says to get that reply.
pub fn aimed_at(module: &Module, action: &str) -> Vec<String> {
    let proposing: Vec<_> = module
        .space_states
        .iter()
        .filter(|(_, s)| s.action.as_ref().is_some_and(|a| a.name.text == action))
        .map(|(h, _)| h)
        .collect();
    aimed(module, proposing)
}

/// Lines that raise the evidence HMM state `state` of `space` expects, and the states leading
/// into it.
pub fn aimed_at_state(module: &Module, space: &str, state: &str) -> Vec<String> {
    let states = module
        .space_states
        .iter()
        .filter(|(_, s)| s.name.text == state && module.spaces[s.space].name.text == space)
        .map(|(h, _)| h)
        .collect();
    aimed(module, states)
}

fn aimed(module: &Module, proposing: Vec<Handle<SpaceState>>) -> Vec<String> {
    // One step back: a state whose edges lead into a proposing one.
    let leading: Vec<_> = module
        .space_states
        .iter()
        .filter(|(h, s)| {
            !proposing.contains(h)
                && s.to
                    .iter()
                    .any(|e| e.target.target.is_some_and(|t| proposing.contains(&t)))
        })
        .map(|(h, _)| h)
        .collect();
    let mut out = Vec::new();
    let mut walk = Walk::new(module);
    for h in proposing.iter().chain(&leading) {
        for e in &module.space_states[*h].expects {
            if e.weight > 0.0
                && let Some(est) = e.evidence.target
            {
                walk.estimator(est, &mut out);
            }
        }
    }
    out.truncate(MAX_AIMED);
    out
}

/// A walk over estimators, each visited once, writing the lines that make them match.
struct Walk<'a> {
    module: &'a Module,
    words: Words<'a>,
    seen: Vec<Handle<Estimator>>,
}

impl<'a> Walk<'a> {
    fn new(module: &'a Module) -> Self {
        Walk {
            module,
            words: Words::of(module),
            seen: Vec::new(),
        }
    }

    /// The lines of estimator `h` (once a walk) added to `out`, each line once.
    fn estimator(&mut self, h: Handle<Estimator>, out: &mut Vec<String>) {
        let mut lines = Vec::new();
        self.ev(h, &mut lines);
        for l in lines {
            if !out.contains(&l) {
                out.push(l);
            }
        }
    }

    fn ev(&mut self, h: Handle<Estimator>, out: &mut Vec<String>) {
        if !self.seen.contains(&h) {
            self.seen.push(h);
            let module = self.module;
            self.expr(&module.estimators[h].expr, out);
        }
    }

    /// Lines making `expr` above 0: a `Match` gives its line; `Or`/`Max` each child's; `And`
    /// one line joining a line of each child that has one; `Not` none (a line it must not hear).
    fn expr(&mut self, expr: &Expr, out: &mut Vec<String>) {
        match expr {
            Expr::Match { pattern, .. } => {
                out.extend(pattern_line(self.module, &self.words, pattern))
            }
            Expr::Ev(r) => {
                if let Some(h) = r.target {
                    self.ev(h, out);
                }
            }
            Expr::Or(list) | Expr::Max(list) => {
                for e in list {
                    self.expr(e, out);
                }
            }
            Expr::And(list) => {
                let parts: Vec<String> = list
                    .iter()
                    .filter_map(|e| {
                        let mut one = Vec::new();
                        self.expr(e, &mut one);
                        one.into_iter().next()
                    })
                    .collect();
                if !parts.is_empty() {
                    out.push(parts.join(" "));
                }
            }
            Expr::Scale(_, e) => self.expr(e, out),
            Expr::Not(_)
            | Expr::Always
            | Expr::Speaker(_)
            | Expr::Emote(_)
            | Expr::Did(_)
            | Expr::Mentions(_)
            | Expr::Inspect(_)
            | Expr::Var { .. }
            | Expr::Invalid => {}
        }
    }
}

/// The words the designer wrote (categories', then concepts'), by stem: the first of each, so
/// that a line reads "i'm hungry", not "i'm hungri". Stemmed once, not once a pattern word.
struct Words<'a>(HashMap<String, &'a str>);

impl<'a> Words<'a> {
    fn of(module: &'a Module) -> Self {
        let categories = module.categories.iter().flat_map(|(_, c)| &c.words);
        let concepts = module.concepts.iter().flat_map(|(_, c)| &c.words);
        let mut by_stem = HashMap::new();
        for w in categories.chain(concepts).filter(|w| !w.contains(' ')) {
            by_stem
                .entry(ensemble_runtime::hpmm::text::stem(w))
                .or_insert(w.as_str());
        }
        Words(by_stem)
    }

    /// The word written for `stem`, or the stem itself when none is.
    fn of_stem(&self, stem: &str) -> String {
        self.0
            .get(stem)
            .map_or_else(|| stem.to_string(), |w| w.to_string())
    }
}

/// One line the pattern matches, or `None` when a word test has nothing to offer.
fn pattern_line(module: &Module, words_of: &Words<'_>, pattern: &Pattern) -> Option<String> {
    let mut words = Vec::new();
    for segment in &pattern.segments {
        for w in segment {
            match w {
                PatternWord::Any => {}
                PatternWord::Is { stems, any, all } => {
                    let word = stems.first().map(|s| words_of.of_stem(s)).or_else(|| {
                        any.iter()
                            .chain(all)
                            .find_map(|c| c.target.and_then(|h| category_word(module, h, 0)))
                    })?;
                    words.push(word);
                }
            }
        }
    }
    (!words.is_empty()).then(|| words.join(" "))
}

/// A word of category `h`: its first own word not taken out by `minus`, else one of a union's.
fn category_word(module: &Module, h: Handle<Category>, depth: usize) -> Option<String> {
    if depth > 8 {
        return None;
    }
    let c = &module.categories[h];
    let removed = |w: &str| {
        c.minus.iter().any(|m| {
            m.target
                .is_some_and(|m| module.categories[m].words.iter().any(|x| x == w))
        })
    };
    c.words.iter().find(|w| !removed(w)).cloned().or_else(|| {
        c.union
            .iter()
            .chain(&c.intersect)
            .find_map(|u| u.target.and_then(|u| category_word(module, u, depth + 1)))
    })
}
