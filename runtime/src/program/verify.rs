//! Structural verification of a decoded program. Everything the interpreter indexes without a
//! check is checked here once, so a corrupt or hand-crafted file is refused instead of panicking
//! later.

use super::*;

pub(crate) fn verify(p: &ProgramParts) -> Result<(), String> {
    let names = p.names.len();
    let name = |id: NameId, what: &str| -> Result<(), String> {
        if id.index() < names {
            Ok(())
        } else {
            Err(format!("{what} refers to name #{} of {names}", id.0))
        }
    };
    for (i, lib) in p.library.iter().enumerate() {
        name(lib.name, &format!("library state #{i}"))?;
    }
    for (i, loc) in p.locations.iter().enumerate() {
        name(loc.name, &format!("location #{i}"))?;
        if !loc.x.is_finite() || !loc.y.is_finite() {
            return Err(format!("location #{i} has a non-finite position"));
        }
    }
    let mut next_state = 0u64;
    for (mi, m) in p.machines.iter().enumerate() {
        name(m.name, &format!("machine #{mi}"))?;
        if m.state_count == 0 {
            return Err(format!("machine #{mi} has no states"));
        }
        // Machines own consecutive, non-overlapping runs of states, in order.
        if m.first_state as u64 != next_state {
            return Err(format!("machine #{mi}'s states are not contiguous"));
        }
        next_state = m.first_state as u64 + m.state_count as u64;
        if next_state > p.states.len() as u64 {
            return Err(format!("machine #{mi}'s states run past the state table"));
        }
        let range = m.first_state..m.first_state + m.state_count;
        if !range.contains(&m.initial.0) {
            return Err(format!(
                "machine #{mi}'s initial state is not one of its states"
            ));
        }
        for s in range.clone() {
            if p.states[s as usize].machine.index() != mi {
                return Err(format!(
                    "state #{s} claims another machine than the one owning it"
                ));
            }
        }
    }
    if next_state != p.states.len() as u64 {
        return Err("some states belong to no machine".into());
    }
    let mut next_transition = 0u64;
    for (si, s) in p.states.iter().enumerate() {
        name(s.name, &format!("state #{si}"))?;
        let lib = p.library.get(s.code.index()).ok_or_else(|| {
            format!(
                "state #{si} uses library state #{} which does not exist",
                s.code.0
            )
        })?;
        match s.modifier {
            Modifier::Location(l) if l.index() >= p.locations.len() => {
                return Err(format!(
                    "state #{si} names location #{} which does not exist",
                    l.0
                ));
            }
            Modifier::Machine(m) if m.index() >= p.machines.len() => {
                return Err(format!(
                    "state #{si} hosts machine #{} which does not exist",
                    m.0
                ));
            }
            Modifier::Agent(n) | Modifier::Text(n) => name(n, &format!("state #{si}'s modifier"))?,
            Modifier::Number(x) if !x.is_finite() => {
                return Err(format!("state #{si} has a non-finite number modifier"));
            }
            _ => {}
        }
        if s.modifier.kind() != lib.modifier {
            return Err(format!(
                "state #{si} has a {} modifier but its library state takes {}",
                s.modifier.kind().as_str(),
                lib.modifier.as_str()
            ));
        }
        if s.first_transition as u64 != next_transition {
            return Err(format!("state #{si}'s transitions are not contiguous"));
        }
        next_transition = s.first_transition as u64 + s.transition_count as u64;
        if next_transition > p.transitions.len() as u64 {
            return Err(format!(
                "state #{si}'s transitions run past the transition table"
            ));
        }
        let m = &p.machines[s.machine.index()];
        for t in &p.transitions[s.first_transition as usize..next_transition as usize] {
            name(t.event, &format!("a transition of state #{si}"))?;
            if !(m.first_state..m.first_state + m.state_count).contains(&t.target.0) {
                return Err(format!("a transition of state #{si} leaves its machine"));
            }
        }
    }
    if next_transition != p.transitions.len() as u64 {
        return Err("some transitions belong to no state".into());
    }
    for (ci, scene) in p.scenes.iter().enumerate() {
        name(scene.name, &format!("scene #{ci}"))?;
        if !(super::MIN_TICK_RATE..=super::MAX_TICK_RATE).contains(&scene.tick_rate) {
            return Err(format!("scene #{ci} has tick rate {}", scene.tick_rate));
        }
        for a in &scene.agents {
            name(a.name, &format!("an agent of scene #{ci}"))?;
            if a.machine.index() >= p.machines.len() {
                return Err(format!(
                    "an agent of scene #{ci} runs a machine that does not exist"
                ));
            }
            if a.start.index() >= p.locations.len() {
                return Err(format!(
                    "an agent of scene #{ci} starts at a location that does not exist"
                ));
            }
        }
    }
    for (ci, scene) in p.scenes.iter().enumerate() {
        for a in &scene.ambient {
            name(a.name, &format!("an ambient agent of scene #{ci}"))?;
            for r in &a.roles {
                name(*r, &format!("a role of an ambient agent of scene #{ci}"))?;
            }
            if let Some(g) = a.group {
                name(g, &format!("a group of scene #{ci}"))?;
            }
            if a.start.index() >= p.locations.len()
                || a.route.iter().any(|l| l.index() >= p.locations.len())
            {
                return Err(format!(
                    "an ambient agent of scene #{ci} names a location that does not exist"
                ));
            }
            if !(a.delay.is_finite() && a.delay >= 0.0) {
                return Err(format!(
                    "an ambient agent of scene #{ci} has an invalid delay"
                ));
            }
        }
    }
    verify_scripts(p)?;
    // Hosting must be acyclic, or entering a state would recurse forever.
    let mut colour = vec![0u8; p.machines.len()];
    fn visit(p: &ProgramParts, m: usize, colour: &mut [u8]) -> Result<(), String> {
        match colour[m] {
            1 => return Err(format!("machine #{m} hosts itself through its children")),
            2 => return Ok(()),
            _ => {}
        }
        colour[m] = 1;
        for s in p.states_of(MachineId(m as u32)) {
            if let Modifier::Machine(child) = p.state(s).modifier {
                visit(p, child.index(), colour)?;
            }
        }
        colour[m] = 2;
        Ok(())
    }
    for m in 0..p.machines.len() {
        visit(p, m, &mut colour)?;
    }
    verify_speech(p)?;
    verify_params(p)?;
    super::game_states::verify(p)?;
    verify_hpmm(p)?;
    verify_tallies(p)?;
    planning::verify(p)?;
    super::nav::verify(p)
}

/// The parameter section: declarations only for library states without a single modifier,
/// every index in range, every value of its declared type, and every state of such a library
/// state with one slot per parameter, a required one set.
fn verify_params(p: &ProgramParts) -> Result<(), String> {
    let section = &p.params;
    let value_ok = |v: &ParamValue, what: &dyn Fn() -> String| -> Result<(), String> {
        let ok = match *v {
            ParamValue::Text(n) | ParamValue::Agent(n) | ParamValue::Choice(n) => {
                n.index() < p.names.len()
            }
            ParamValue::Sentence(n) => {
                n.index() < p.names.len() && p.speech.sentence_by_name(n).is_some()
            }
            ParamValue::Location(l) => l.index() < p.locations.len(),
            ParamValue::Machine(m) => m.index() < p.machines.len(),
            ParamValue::Number(x) => x.is_finite(),
            ParamValue::Bool(_) => true,
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "{} refers to something that does not exist",
                what()
            ))
        }
    };
    let param_ok = |v: &Param, ty: &ParamType, what: &dyn Fn() -> String| {
        match v {
            Param::One(x) => value_ok(x, what)?,
            Param::List(xs) => xs.iter().try_for_each(|x| value_ok(x, what))?,
        }
        if v.fits(ty, &p.names) {
            Ok(())
        } else {
            Err(format!("{} is not a {}", what(), ty.describe()))
        }
    };
    let mut previous: Option<LibraryId> = None;
    for (lib, decls) in &section.library {
        if previous.is_some_and(|prev| prev >= *lib) {
            return Err("the parameter declarations are not in library order".into());
        }
        previous = Some(*lib);
        let l = p.library.get(lib.index()).ok_or_else(|| {
            format!(
                "parameters are declared for library state #{} which does not exist",
                lib.0
            )
        })?;
        if l.modifier != ModifierKind::None {
            return Err(format!(
                "library state #{} declares parameters and a single modifier",
                lib.0
            ));
        }
        for (i, d) in decls.iter().enumerate() {
            let what = || format!("parameter #{i} of library state #{}", lib.0);
            if d.name.index() >= p.names.len() {
                return Err(format!("{} refers to a name that does not exist", what()));
            }
            if decls[..i].iter().any(|e| e.name == d.name) {
                return Err(format!("{} is declared twice", what()));
            }
            if let ParamKind::OneOf(words) = &d.ty.kind
                && words.is_empty()
            {
                return Err(format!("{} lists no values", what()));
            }
            if let Some(default) = &d.default {
                param_ok(default, &d.ty, &|| format!("the default of {}", what()))?;
            }
        }
    }
    let mut previous: Option<StateId> = None;
    let mut set = 0usize;
    for (state, values) in &section.states {
        if previous.is_some_and(|prev| prev >= *state) {
            return Err("the parameter values are not in state order".into());
        }
        previous = Some(*state);
        let s = p.states.get(state.index()).ok_or_else(|| {
            format!(
                "parameter values are given for state #{} which does not exist",
                state.0
            )
        })?;
        let decls = section.decls(s.code).ok_or_else(|| {
            format!(
                "state #{} has parameter values but its library state declares none",
                state.0
            )
        })?;
        if values.len() != decls.len() {
            return Err(format!(
                "state #{} has {} parameter values for {} parameters",
                state.0,
                values.len(),
                decls.len()
            ));
        }
        for (i, (v, d)) in values.iter().zip(decls).enumerate() {
            let what = || format!("parameter #{i} of state #{}", state.0);
            match v {
                Some(v) => param_ok(v, &d.ty, &what)?,
                None if d.default.is_none() => {
                    return Err(format!("{} is required but not set", what()));
                }
                None => {}
            }
        }
        set += 1;
    }
    let expected = p
        .states
        .iter()
        .filter(|s| section.decls(s.code).is_some())
        .count();
    if set != expected {
        return Err("a state whose library state declares parameters has no values".into());
    }
    Ok(())
}

/// The speech section: sentence states, their candidates and scene variable bindings.
fn verify_speech(p: &ProgramParts) -> Result<(), String> {
    speech::verify(p)?;
    strings::verify(p)
}

fn verify_scripts(p: &ProgramParts) -> Result<(), String> {
    use super::script::{Atom, Expr, Literal};
    let names = p.names.len();
    let name_ok = |id: NameId| id.index() < names;
    fn expr_ok(e: &Expr, vars: u16, name_ok: &dyn Fn(NameId) -> bool) -> bool {
        match e {
            Expr::Var(v) => *v < vars,
            Expr::Sym(s) => name_ok(*s),
            Expr::Num(x) => x.is_finite(),
            Expr::Me | Expr::Now => true,
            Expr::Call(f, args) => {
                args.len() == f.arity() && args.iter().all(|a| expr_ok(a, vars, name_ok))
            }
            Expr::Bin(_, l, r) => expr_ok(l, vars, name_ok) && expr_ok(r, vars, name_ok),
        }
    }
    let atom_ok = |a: &Atom, vars: u16| {
        name_ok(a.predicate) && a.args.iter().all(|e| expr_ok(e, vars, &name_ok))
    };
    for (si, s) in p.scripts.iter().enumerate() {
        let bad = |what: &str| Err(format!("script #{si}: {what}"));
        if !name_ok(s.name)
            || s.roles.iter().any(|r| {
                !name_ok(r.name) || r.leave_command.is_some_and(|c| !name_ok(c)) || r.min > r.max
            })
        {
            return bad("a role is inconsistent");
        }
        if s.states.is_empty() || s.initial_state as usize >= s.states.len() {
            return bad("its initial state does not exist");
        }
        let mut next = 0u64;
        for st in &s.states {
            if !name_ok(st.name) || st.first_rule as u64 != next {
                return bad("its states' rules are not contiguous");
            }
            next += st.rule_count as u64;
        }
        if next != s.rules.len() as u64 {
            return bad("some rules belong to no state");
        }
        for r in &s.rules {
            let v = r.variables;
            let lits = r.precondition.iter().all(|l| match l {
                Literal::Pos(a) | Literal::Neg(a) => atom_ok(a, v),
                Literal::Cmp(a, _, b) => expr_ok(a, v, &name_ok) && expr_ok(b, v, &name_ok),
                Literal::Any(e) => expr_ok(e, v, &name_ok),
            });
            let effects = [
                &r.add,
                &r.delete,
                &r.deferred_add,
                &r.deferred_delete,
                &r.on_error,
            ]
            .iter()
            .all(|e| e.iter().all(|a| atom_ok(a, v)));
            let action = r.action.as_ref().is_none_or(|a| {
                name_ok(a.name)
                    && a.target.as_ref().is_none_or(|t| expr_ok(t, v, &name_ok))
                    && a.parameters
                        .iter()
                        .all(|(k, e)| name_ok(*k) && expr_ok(e, v, &name_ok))
            });
            let refs = name_ok(r.name)
                && r.role.is_none_or(|x| (x as usize) < s.roles.len())
                && r.next_state.is_none_or(|x| (x as usize) < s.states.len());
            if !(lits && effects && action && refs) {
                return bad("a rule refers to something that does not exist");
            }
        }
    }
    // Times and distances: finite and not negative.
    let span = |x: f64| x.is_finite() && x >= 0.0;
    let location_ok = |l: &LocationId| l.index() < p.locations.len();
    for (li, l) in p.smart_locations.iter().enumerate() {
        if !name_ok(l.name)
            || !location_ok(&l.at)
            || !span(l.radius)
            || l.props.iter().any(|(a, b)| !name_ok(*a) || !name_ok(*b))
            || l.scripts
                .iter()
                .any(|(s, w)| *s as usize >= p.scripts.len() || !w.is_finite())
        {
            return Err(format!(
                "smart location #{li} refers to something that does not exist"
            ));
        }
        let emitters_ok =
            l.proxies.iter().all(|x| {
                name_ok(x.name) && name_ok(x.role) && x.actions.iter().all(|a| name_ok(*a))
            }) && l.notifications.iter().all(|n| {
                name_ok(n.name)
                    && span(n.at)
                    && span(n.every)
                    && span(n.radius)
                    && n.lasts.is_none_or(span)
                    // Ground facts: no variables.
                    && n.facts.iter().all(|a| atom_ok(a, 0))
            }) && l.spawns.iter().all(|x| {
                name_ok(x.name)
                    && location_ok(&x.point)
                    && x.route.iter().all(location_ok)
                    && x.roles.iter().all(|r| name_ok(*r))
                    && (1..=1000).contains(&x.size)
                    && span(x.at)
                    && span(x.every)
            }) && l
                .player
                .as_ref()
                .is_none_or(|x| name_ok(x.role) && name_ok(x.icon));
        if !emitters_ok {
            return Err(format!(
                "smart location #{li} has an emitter or proxy that refers to something that does not exist"
            ));
        }
    }
    for (i, e) in p.scene_events.iter().enumerate() {
        use super::SceneEvent;
        let location = |l: u32| p.smart_locations.get(l as usize);
        let ok = e.scene.index() < p.scenes.len()
            && span(e.at)
            && match &e.what {
                SceneEvent::Interact { location: l } => {
                    location(*l).is_some_and(|l| l.player.is_some())
                }
                SceneEvent::Input { fact } => atom_ok(fact, 0),
                SceneEvent::Leave => true,
                SceneEvent::Push {
                    location: l,
                    proxy,
                    fact,
                } => {
                    location(*l).is_some_and(|l| (*proxy as usize) < l.proxies.len())
                        && atom_ok(fact, 0)
                }
                SceneEvent::Notify {
                    location: l,
                    notification,
                } => location(*l).is_some_and(|l| (*notification as usize) < l.notifications.len()),
            };
        if !ok {
            return Err(format!(
                "scene event #{i} refers to something that does not exist"
            ));
        }
    }
    for (ci, scene) in p.scenes.iter().enumerate() {
        if scene.ambient.iter().filter(|a| a.player).count() > 1 {
            return Err(format!("scene #{ci} has more than one player"));
        }
    }
    Ok(())
}

/// The HPMM section (`Program::hpmm`): every id in range, every space's p a row-stochastic
/// square matrix, evidence and accumulators in evaluation order (operands before users),
/// numbers finite. The runtime relies on all of it without further checks.
fn verify_hpmm(p: &ProgramParts) -> Result<(), String> {
    use super::hpmm::*;
    let m = &p.hpmm;
    let names = p.names.len();
    let name = |id: NameId, what: &dyn Fn() -> String| -> Result<(), String> {
        if id.index() < names {
            Ok(())
        } else {
            Err(format!("{} refers to name #{} of {names}", what(), id.0))
        }
    };
    let finite = |x: f64, what: &dyn Fn() -> String| -> Result<(), String> {
        if x.is_finite() {
            Ok(())
        } else {
            Err(format!("{} is not a finite number", what()))
        }
    };
    let check = |ok: bool, what: &dyn Fn() -> String| -> Result<(), String> {
        if ok { Ok(()) } else { Err(what()) }
    };
    if m.categories.len() > MAX_CATEGORIES {
        return Err(format!(
            "the lexicon has more than {MAX_CATEGORIES} categories"
        ));
    }
    for (i, c) in m.categories.iter().enumerate() {
        name(*c, &|| format!("lexicon category #{i}"))?;
    }
    let stems = m.stems.len();
    for (i, pat) in m.patterns.iter().enumerate() {
        for test in pat.segments.iter().flatten() {
            if let WordTest::Is { stems: s, .. } = test {
                check(s.iter().all(|x| x.index() < stems), &|| {
                    format!("pattern #{i} tests a stem that does not exist")
                })?;
            }
        }
    }
    let (evidence, concepts, variables, actions) = (
        m.evidence.len(),
        m.concepts.len(),
        m.variables.len(),
        m.actions.len(),
    );
    check(m.late_evidence as usize <= evidence, &|| {
        "the late evidence starts past the evidence table".into()
    })?;
    let concept = |c: ConceptId, what: &dyn Fn() -> String| check(c.index() < concepts, what);
    let variable = |v: VariableId, what: &dyn Fn() -> String| check(v.index() < variables, what);
    let state_count = m.states.len();
    for (i, ev) in m.evidence.iter().enumerate() {
        let what = || format!("evidence #{i}");
        if let Some(n) = ev.name {
            name(n, &what)?;
        }
        // Operands strictly before their user: evaluation in table order is then correct.
        let before = |x: &EvidenceId| x.index() < i;
        match &ev.estimator {
            Estimator::Always | Estimator::Speaker(_) | Estimator::Did(None) => {}
            Estimator::Match {
                pattern,
                confidence,
            } => {
                check(pattern.index() < m.patterns.len(), &what)?;
                finite(*confidence, &what)?;
            }
            Estimator::Emote(n) => name(*n, &what)?,
            Estimator::Did(Some(a)) => check(a.index() < actions, &what)?,
            Estimator::Mentions(c) => concept(*c, &what)?,
            Estimator::Inspect { of, shape, .. } => {
                for t in of {
                    match t {
                        Inspected::State(s) => check(s.index() < state_count, &what)?,
                        Inspected::Active(s) => check(s.index() < m.spaces.len(), &what)?,
                    }
                }
                match *shape {
                    Shape::Identity => {}
                    Shape::Threshold(x) | Shape::Scale(x) => finite(x, &what)?,
                    Shape::Ramp(lo, hi) => {
                        finite(lo, &what)?;
                        finite(hi, &what)?;
                        check(lo < hi, &what)?;
                    }
                }
            }
            Estimator::Var { variable: v, test } => {
                variable(*v, &what)?;
                match test {
                    VarTest::Bound => {}
                    VarTest::IsA(c) | VarTest::Holds(c) => concept(*c, &what)?,
                    VarTest::Related { relation, to } => {
                        name(*relation, &what)?;
                        concept(*to, &what)?;
                    }
                }
            }
            Estimator::And(xs) | Estimator::Or(xs) | Estimator::Max(xs) => {
                check(xs.iter().all(before), &|| {
                    format!("evidence #{i} reads evidence not computed before it")
                })?
            }
            Estimator::Not(x) => check(before(x), &what)?,
            Estimator::Scale(k, x) => {
                finite(*k, &what)?;
                check(before(x), &what)?;
            }
        }
    }
    for (i, c) in m.concepts.iter().enumerate() {
        let what = || format!("concept #{i}");
        name(c.name, &what)?;
        check(c.is_a.iter().all(|x| x.index() < concepts), &what)?;
        check(c.is_a.windows(2).all(|w| w[0] < w[1]), &|| {
            format!("concept #{i}'s kinds are not sorted")
        })?;
        check(c.words.iter().all(|x| x.index() < stems), &what)?;
        for (n, _) in &c.properties {
            name(*n, &what)?;
        }
        for (n, to) in &c.relations {
            name(*n, &what)?;
            concept(*to, &what)?;
        }
    }
    for (i, v) in m.variables.iter().enumerate() {
        name(v.name, &|| format!("variable #{i}"))?;
    }
    for (i, t) in m.trackers.iter().enumerate() {
        let what = || format!("tracker #{i}");
        variable(t.variable, &what)?;
        match &t.rule {
            TrackerRule::Mention { types }
            | TrackerRule::MentionEarlier { types }
            | TrackerRule::MentionThirdLast { types }
            | TrackerRule::MentionAfter { types, .. } => {
                check(types.iter().all(|c| c.index() < concepts), &what)?
            }
            TrackerRule::Bind(c) => concept(*c, &what)?,
            TrackerRule::Copy(v) => variable(*v, &what)?,
            TrackerRule::Clear => {}
            TrackerRule::Unheard {
                concept: c, nouns, ..
            } => {
                concept(*c, &what)?;
                // Looked up by binary search.
                check(nouns.windows(2).all(|w| w[0] < w[1]), &|| {
                    format!("tracker #{i}'s nouns are not sorted")
                })?
            }
        }
        if let Some((y, threshold)) = t.when {
            check(y.index() < m.late_evidence as usize, &|| {
                format!("tracker #{i} waits for evidence computed after the trackers")
            })?;
            finite(threshold, &what)?;
        }
    }
    let mut next_state = 0u64;
    for (si, s) in m.spaces.iter().enumerate() {
        let what = || format!("space #{si}");
        name(s.name, &what)?;
        check(s.state_count > 0, &|| format!("space #{si} has no states"))?;
        check(s.first_state as u64 == next_state, &|| {
            format!("space #{si}'s states are not contiguous")
        })?;
        next_state = s.first_state as u64 + s.state_count as u64;
        check(next_state <= state_count as u64, &|| {
            format!("space #{si}'s states run past the state table")
        })?;
        let range = s.first_state..s.first_state + s.state_count;
        check(range.contains(&s.initial.0), &|| {
            format!("space #{si}'s initial state is not one of its states")
        })?;
        if let Some(d) = s.disable {
            check(range.contains(&d.0), &|| {
                format!("space #{si}'s disable state is not one of its states")
            })?;
        }
        let n = s.state_count as usize;
        check(s.p.len() == n * n, &|| {
            format!("space #{si}'s transition matrix is not {n}×{n}")
        })?;
        for (row, chunk) in s.p.chunks(n.max(1)).enumerate() {
            check(chunk.iter().all(|x| x.is_finite() && *x >= 0.0), &|| {
                format!("space #{si}'s transition row {row} has a negative or non-finite entry")
            })?;
            let sum: f64 = chunk.iter().sum();
            check((sum - 1.0).abs() < 1e-3, &|| {
                format!("space #{si}'s transition row {row} sums to {sum}, not 1")
            })?;
        }
        for t in &s.transition_expects {
            check(
                (t.from as usize) < n
                    && (t.to as usize) < n
                    && t.expects
                        .iter()
                        .all(|(y, g)| y.index() < evidence && g.is_finite()),
                &|| format!("space #{si} has a transition expectation out of range"),
            )?;
        }
        for st in range {
            check(m.states[st as usize].space.index() == si, &|| {
                format!("state #{st} claims another space than the one owning it")
            })?;
        }
    }
    check(next_state == state_count as u64, &|| {
        "some space states belong to no space".into()
    })?;
    for (i, s) in m.states.iter().enumerate() {
        let what = || format!("space state #{i}");
        name(s.name, &what)?;
        for (y, g) in &s.expects {
            check(y.index() < evidence, &what)?;
            finite(*g, &what)?;
        }
        if let Some(a) = s.action {
            check(a.index() < actions, &what)?;
        }
    }
    let templates = m.templates.len();
    for (i, t) in m.templates.iter().enumerate() {
        name(t.name, &|| format!("template #{i}"))?;
        check(
            t.variants
                .iter()
                .all(|v| chunks_ok(v, variables, templates, names)),
            &|| format!("template #{i} refers to something that does not exist"),
        )?;
    }
    for (i, a) in m.actions.iter().enumerate() {
        let what = || format!("action #{i}");
        name(a.name, &what)?;
        name(a.emote, &what)?;
        check(
            a.say
                .iter()
                .all(|v| chunks_ok(v, variables, templates, names)),
            &what,
        )?;
        for (v, c) in &a.bind {
            variable(*v, &what)?;
            if let Some(c) = c {
                concept(*c, &what)?;
            }
        }
        for c in &a.copy_belief {
            check(
                c.target.index() < state_count && c.source.index() < state_count,
                &what,
            )?;
        }
    }
    for (i, acc) in m.accumulators.iter().enumerate() {
        let what = || format!("accumulator #{i}");
        name(acc.name, &what)?;
        for s in &acc.inputs {
            match s {
                Source::Space(x) => check(x.index() < m.spaces.len(), &what)?,
                // Inputs strictly before: the network is evaluated in table order, and a
                // cycle cannot be written down.
                Source::Accumulator(x) => check(x.index() < i, &|| {
                    format!("accumulator #{i} reads an accumulator not evaluated before it")
                })?,
            }
        }
    }
    for (i, c) in m.chats.iter().enumerate() {
        let what = || format!("conversation #{i}");
        name(c.name, &what)?;
        name(c.agent, &what)?;
        name(c.player, &what)?;
        check(
            (super::MIN_TICK_RATE..=super::MAX_TICK_RATE).contains(&c.tick_rate),
            &what,
        )?;
        check(c.output.index() < m.accumulators.len(), &what)?;
    }
    Ok(())
}

/// The tallies (`ProgramParts::tallies`): each a distinct variable, units largest first down
/// to a unit of 1, lines in the string section, costs sorted by concept, adds naming actions,
/// tallies and concepts that exist. The agent indexes all of them unchecked.
fn verify_tallies(p: &ProgramParts) -> Result<(), String> {
    let (m, t) = (&p.hpmm, &p.tallies);
    let variables = m.variables.len();
    let lines = p.strings.lines.len();
    for (i, tally) in t.tallies.iter().enumerate() {
        let fail = |why: &str| Err(format!("tally #{i} {why}"));
        if tally.variable.index() >= variables {
            return fail("is a variable that does not exist");
        }
        if t.tallies[..i].iter().any(|o| o.variable == tally.variable) {
            return fail("keeps a variable another tally keeps");
        }
        let decreasing = tally.units.windows(2).all(|w| w[0].1 > w[1].1);
        if tally.units.last().map(|u| u.1) != Some(1) || !decreasing {
            return fail("does not count its units down to 1");
        }
        if !tally.lines.is_empty() && tally.lines.len() != tally.units.len() + 1 {
            return fail("does not give its words a line each");
        }
        if tally.lines.iter().any(|l| l.index() >= lines) {
            return fail("names a line that does not exist");
        }
    }
    if t.costs.iter().any(|(c, _)| c.index() >= m.concepts.len())
        || !t.costs.windows(2).all(|w| w[0].0 < w[1].0)
    {
        return Err("tally costs name concepts that do not exist, or are not sorted".into());
    }
    for (i, add) in t.adds.iter().enumerate() {
        let item_ok = match add.item {
            super::hpmm::TallyItem::Bound(v) => v.index() < variables,
            super::hpmm::TallyItem::Concept(c) => c.index() < m.concepts.len(),
        };
        if add.action.index() >= m.actions.len() || t.of(add.tally).is_none() || !item_ok {
            return Err(format!(
                "tally addition #{i} refers to something that does not exist"
            ));
        }
    }
    Ok(())
}

/// Whether template chunks refer only to variables, templates and names that exist.
pub(crate) fn chunks_ok(
    chunks: &[super::hpmm::Chunk],
    variables: usize,
    templates: usize,
    names: usize,
) -> bool {
    use super::hpmm::Chunk;
    chunks.iter().all(|c| match c {
        Chunk::Text(_) => true,
        Chunk::Choice(alts) => alts
            .iter()
            .all(|a| chunks_ok(a, variables, templates, names)),
        Chunk::Var { variable, property } => {
            variable.index() < variables && property.is_none_or(|p| p.index() < names)
        }
        Chunk::Template(t) => t.index() < templates,
    })
}
