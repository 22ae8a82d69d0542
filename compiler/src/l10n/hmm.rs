//! The lines of HMM conversations (docs/formats/actions.md): each utterance variant of an
//! action (`greet/1`), each variant of a named template (`@hedge/1`) and each property value
//! of a concept (`sword.price`), which templates read (`{the-item.price}`).
//!
//! A template line's slots are its references, spelled as the template spells them:
//! `the-item`, `the-item.price`, `@hedge`. A translation keeps every one and invents none;
//! its `{a|b}` choices are its own (a language may need more or fewer alternatives).

use super::{Line, LineKind, Owner, split_pin};
use crate::hpmm::template::{self, Resolver};
use crate::ir::hpmm::{Chunk, Written};
use crate::ir::{Handle, Module};
use crate::source::Span;
use ensemble_runtime::hpmm::model::Chunk as RuntimeChunk;
use ensemble_runtime::program::NameId;

/// The `{...}` references of a template's text (sorted, each once), or why it does not parse.
pub(super) fn slots(text: &str, span: Span) -> Result<Vec<String>, String> {
    let r = Resolver {
        span,
        variable: &|_| None,
        template: &|_| None,
    };
    let chunks = template::parse(text, &r)?;
    let mut out = Vec::new();
    references(&chunks, &mut out);
    out.sort();
    out.dedup();
    Ok(out)
}

fn references(chunks: &[Chunk], out: &mut Vec<String>) {
    for c in chunks {
        match c {
            Chunk::Text(_) => {}
            Chunk::Choice(alternatives) => alternatives.iter().for_each(|a| references(a, out)),
            Chunk::Var {
                variable,
                property: None,
            } => out.push(variable.name.text.clone()),
            Chunk::Var {
                variable,
                property: Some(p),
            } => out.push(format!("{}.{p}", variable.name.text)),
            Chunk::Template(t) => out.push(format!("@{}", t.name.text)),
        }
    }
}

/// Every line of the module's conversations: actions, then templates, then concepts, each in
/// the order written.
pub(super) fn lines(module: &Module, out: &mut Vec<Line>) {
    if module.chats.is_empty() {
        return;
    }
    // Context for translators: which conversation(s), and who speaks in them.
    let mut chats: Vec<String> = module
        .chats
        .iter()
        .map(|(_, c)| c.name.text.clone())
        .collect();
    chats.sort();
    let chat = chats.join(", ");
    let mut speakers: Vec<String> = module.chats.iter().map(|(_, c)| c.agent.clone()).collect();
    speakers.sort();
    speakers.dedup();
    let written = |owner: String,
                   written: &[Written],
                   kind: LineKind,
                   what: &str,
                   owner_of: Owner,
                   out: &mut Vec<Line>| {
        let count = written.len();
        for (k, w) in written.iter().enumerate() {
            let (pin, source) = split_pin(&w.text);
            let slots = slots(source, w.span).unwrap_or_default();
            let mut note = if count == 1 {
                what.to_string()
            } else {
                format!("{what}, one of {count} variants chosen at random")
            };
            if !slots.is_empty() {
                note.push_str("; keep every {...} that names something");
            }
            if source.contains('|') {
                note.push_str("; {a|b} says one of its alternatives: write your own");
            }
            out.push(Line {
                id: pin.map_or_else(|| format!("{owner}/{}", k + 1), str::to_string),
                source: source.to_string(),
                kind,
                machine: chat.clone(),
                state: owner.clone(),
                speakers: speakers.clone(),
                slots,
                note,
                span: w.span,
                pinned: pin.is_some(),
                owner: owner_of.clone(),
            });
        }
    };
    for (h, a) in module.actions.iter() {
        written(
            a.name.text.clone(),
            &a.written,
            LineKind::Reply,
            &format!("what action `{}` says", a.name.text),
            Owner::Action(h),
            out,
        );
    }
    for (h, t) in module.templates.iter() {
        written(
            format!("@{}", t.name.text),
            &t.written,
            LineKind::Template,
            &format!(
                "template `{}`, said inside other lines as {{@{}}}",
                t.name.text, t.name.text
            ),
            Owner::Template(h),
            out,
        );
    }
    for (h, c) in module.concepts.iter() {
        for (property, value) in &c.properties {
            out.push(Line {
                id: format!("{}.{property}", c.name.text),
                source: value.clone(),
                kind: LineKind::Value,
                machine: chat.clone(),
                state: format!("{}.{property}", c.name.text),
                speakers: speakers.clone(),
                slots: Vec::new(),
                note: format!(
                    "the {property} of {}: said where a line reads it ({{the-variable.{property}}}{})",
                    c.name.text,
                    if property == "name" { ", or just {the-variable}" } else { "" }
                ),
                span: c.name.span,
                pinned: false,
                owner: Owner::Concept(h),
            });
        }
    }
    for (h, v) in module.variables.iter() {
        let Some(tally) = &v.tally else {
            continue;
        };
        let name = &v.name.text;
        let and = (
            &tally.and,
            "and",
            format!(
                "the word before the last thing on tally {name} (\"room, stew and ale\") and before the last unit of its total"
            ),
        );
        let units = tally.units.iter().map(|(word, value)| {
            let note = format!("a unit tally {name}'s totals are said in, worth {value} of its smallest: said after a number (\"7 {}\")", word.text);
            (word, word.text.as_str(), note)
        });
        for (word, key, note) in std::iter::once(and).chain(units) {
            out.push(Line {
                id: format!("{name}.{key}"),
                source: word.text.clone(),
                kind: LineKind::Value,
                machine: chat.clone(),
                state: format!("{name}.{key}"),
                speakers: speakers.clone(),
                slots: Vec::new(),
                note,
                span: word.span,
                pinned: false,
                owner: Owner::Tally(h),
            });
        }
    }
}

/// A translation of a template line in the runtime's terms (`None` if it does not resolve,
/// which `check` has reported as a slot mismatch).
pub(super) fn translation(
    module: &Module,
    text: &str,
    intern: &mut dyn FnMut(&str) -> NameId,
) -> Option<Vec<RuntimeChunk>> {
    let variable = |name: &str| {
        find(
            module.variables.iter().map(|(h, v)| (h, &v.name.text)),
            name,
        )
    };
    let template = |name: &str| {
        find(
            module.templates.iter().map(|(h, t)| (h, &t.name.text)),
            name,
        )
    };
    let r = Resolver {
        span: Span::file_start(crate::source::FileId(0)),
        variable: &variable,
        template: &template,
    };
    let chunks = template::parse(text, &r).ok()?;
    crate::hpmm::back::lower_chunks(&chunks, intern).ok()
}

fn find<'a, T: 'a>(
    mut items: impl Iterator<Item = (Handle<T>, &'a String)>,
    name: &str,
) -> Option<Handle<T>> {
    items.find(|(_, n)| n.as_str() == name).map(|(h, _)| h)
}
