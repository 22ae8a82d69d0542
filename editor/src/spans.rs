//! Tying diagnostics to what the editor shows: which machine and state a source span belongs
//! to. Every IR item keeps the span it came from, so a diagnostic's primary span is enough to
//! find the box to outline or the machine to open when its row is clicked.

use ensemble_compiler::Compilation;
use ensemble_compiler::diag::Severity;
use ensemble_compiler::ir::{Handle, Machine, Module, State};
use ensemble_compiler::source::Span;
use std::collections::HashMap;

fn contains(outer: Span, inner: Span) -> bool {
    outer.file == inner.file && outer.start <= inner.start && inner.end <= outer.end
}

/// The spans written for one state: its name, code, modifier and transitions.
fn state_spans(state: &State) -> impl Iterator<Item = Span> + '_ {
    [
        Some(state.name.span),
        Some(state.code_name.span),
        state.modifier_span,
    ]
    .into_iter()
    .flatten()
    .chain(
        state
            .transitions
            .iter()
            .flat_map(|t| [t.event.span, t.target_name.span]),
    )
}

/// The state whose own text holds `span`.
pub fn state_at(module: &Module, span: Span) -> Option<Handle<State>> {
    module
        .states
        .iter()
        .find(|(_, s)| state_spans(s).any(|own| contains(own, span)))
        .map(|(h, _)| h)
}

/// The machine, and state if any, that `span` points into.
pub fn locate(module: &Module, span: Span) -> Option<(Handle<Machine>, Option<Handle<State>>)> {
    if let Some(s) = state_at(module, span) {
        return Some((module.states[s].machine, Some(s)));
    }
    module
        .machines
        .iter()
        .find(|(_, m)| contains(m.span, span) || contains(m.name.span, span))
        .map(|(h, _)| (h, None))
}

/// The worst severity reported on each state and each machine, for outlines and list markers.
#[derive(Default)]
pub struct Severities {
    pub states: HashMap<Handle<State>, Severity>,
    pub machines: HashMap<Handle<Machine>, Severity>,
}

impl Severities {
    pub fn of(c: &Compilation) -> Self {
        let mut out = Severities::default();
        for d in c.diagnostics.iter() {
            if d.severity == Severity::Info {
                continue;
            }
            let Some((machine, state)) = d.primary.as_ref().and_then(|l| locate(&c.module, l.span))
            else {
                continue;
            };
            // `Severity` orders Error first, so the worst is the minimum.
            let worst = |slot: Option<&Severity>| slot.map_or(d.severity, |s| (*s).min(d.severity));
            out.machines
                .insert(machine, worst(out.machines.get(&machine)));
            if let Some(s) = state {
                out.states.insert(s, worst(out.states.get(&s)));
            }
        }
        out
    }
}
