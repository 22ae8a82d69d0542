//! Judging a run's trace against a test's expectations: each expectation passes, or fails at
//! the first tick where the trace shows it cannot hold.

use super::asset::{EventPattern, Expectation};
use ensemble_sim::wildcard;
use serde_json::Value;

/// One event of a run as its `--trace json` line: what patterns match against.
pub struct Recorded {
    pub tick: u64,
    pub json: serde_json::Map<String, Value>,
}

impl Recorded {
    pub fn of(event: &ensemble_runtime::trace::TraceEvent) -> Recorded {
        let json = match serde_json::from_str(&event.to_json()) {
            Ok(Value::Object(map)) => map,
            _ => serde_json::Map::new(),
        };
        Recorded {
            tick: event.tick,
            json,
        }
    }

    fn field(&self, name: &str) -> Option<String> {
        match self.json.get(name)? {
            Value::String(s) => Some(s.clone()),
            Value::Null => None,
            other => Some(other.to_string()),
        }
    }

    pub fn matches(&self, p: &EventPattern) -> bool {
        self.field("event").is_some_and(|k| wildcard(&p.event, &k))
            && p.fields()
                .into_iter()
                .all(|(name, want)| self.field(name).is_some_and(|got| wildcard(want, &got)))
    }
}

/// Why an expectation failed, and the first tick at which it was known to.
#[derive(Clone, Debug, PartialEq)]
pub struct Broken {
    pub tick: u64,
    pub message: String,
}

/// Judges `expectation` on a run's `events` that lasted `last_tick` ticks.
pub fn judge(expectation: &Expectation, events: &[Recorded], last_tick: u64) -> Option<Broken> {
    let first_match = |p: &EventPattern| events.iter().find(|e| e.matches(p));
    match expectation {
        Expectation::Happens { what } => match first_match(what) {
            Some(_) => None,
            None => Some(Broken {
                tick: last_tick,
                message: format!("`{what}` never happened in {last_tick} ticks"),
            }),
        },
        Expectation::Never { what } => first_match(what).map(|e| Broken {
            tick: e.tick,
            message: format!("`{what}` happened at tick {}", e.tick),
        }),
        Expectation::Before { first, then } => {
            for e in events {
                // The same event cannot come before itself.
                if e.matches(then) {
                    return Some(Broken {
                        tick: e.tick,
                        message: format!(
                            "`{then}` happened at tick {} before any `{first}`",
                            e.tick
                        ),
                    });
                }
                if e.matches(first) {
                    return None;
                }
            }
            Some(Broken {
                tick: last_tick,
                message: format!("`{then}` never happened in {last_tick} ticks"),
            })
        }
        Expectation::Within {
            ticks,
            what,
            after: None,
        } => match first_match(what) {
            Some(e) if e.tick <= *ticks => None,
            Some(e) => Some(Broken {
                tick: *ticks,
                message: format!(
                    "`{what}` did not happen by tick {ticks} (first at tick {})",
                    e.tick
                ),
            }),
            None => Some(Broken {
                tick: (*ticks).min(last_tick),
                message: format!("`{what}` did not happen within {ticks} ticks"),
            }),
        },
        Expectation::Within {
            ticks,
            what,
            after: Some(after),
        } => {
            // The oldest `after` not answered yet: every later one is answered with it.
            let mut waiting: Option<u64> = None;
            for e in events {
                if let Some(since) = waiting
                    && e.tick > since + ticks
                {
                    break;
                }
                if e.matches(what) {
                    waiting = None;
                }
                if waiting.is_none() && e.matches(after) {
                    waiting = Some(e.tick);
                }
            }
            waiting.map(|since| Broken {
                tick: (since + ticks).min(last_tick),
                message: if since + ticks <= last_tick {
                    format!(
                        "`{what}` did not happen within {ticks} ticks of `{after}` at tick {since}"
                    )
                } else {
                    format!(
                        "`{what}` had not happened when the run ended, {} ticks after `{after}` at tick {since}",
                        last_tick - since
                    )
                },
            })
        }
        Expectation::Count {
            what,
            exactly,
            at_least,
            at_most,
        } => {
            let most = exactly.or(*at_most);
            let mut count = 0u64;
            for e in events.iter().filter(|e| e.matches(what)) {
                count += 1;
                if most.is_some_and(|m| count > m) {
                    return Some(Broken {
                        tick: e.tick,
                        message: format!(
                            "`{what}` happened a {}th time at tick {} (expected {})",
                            count,
                            e.tick,
                            expected(*exactly, *at_least, *at_most)
                        ),
                    });
                }
            }
            let least = exactly.or(*at_least).unwrap_or(0);
            (count < least).then(|| Broken {
                tick: last_tick,
                message: format!(
                    "`{what}` happened {count} times in {last_tick} ticks (expected {})",
                    expected(*exactly, *at_least, *at_most)
                ),
            })
        }
    }
}

fn expected(exactly: Option<u64>, at_least: Option<u64>, at_most: Option<u64>) -> String {
    match (exactly, at_least, at_most) {
        (Some(n), _, _) => format!("exactly {n}"),
        (None, Some(lo), Some(hi)) => format!("{lo} to {hi}"),
        (None, Some(lo), None) => format!("at least {lo}"),
        (None, None, Some(hi)) => format!("at most {hi}"),
        (None, None, None) => "any number".into(),
    }
}

/// The expectation's kind, as written (`Happens`, `Before`…).
pub fn kind(e: &Expectation) -> &'static str {
    match e {
        Expectation::Happens { .. } => "Happens",
        Expectation::Never { .. } => "Never",
        Expectation::Before { .. } => "Before",
        Expectation::Within { .. } => "Within",
        Expectation::Count { .. } => "Count",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(tick: u64, json: &str) -> Recorded {
        let Value::Object(json) = serde_json::from_str(json).unwrap() else {
            panic!("not an object")
        };
        Recorded { tick, json }
    }

    fn enter(tick: u64, agent: &str, state: &str) -> Recorded {
        event(
            tick,
            &format!(
                r#"{{"tick":{tick},"agent":"{agent}","event":"enter","machine":"M","state":"{state}","depth":0}}"#
            ),
        )
    }

    fn pattern(agent: &str, state: &str) -> EventPattern {
        EventPattern {
            event: "enter".into(),
            agent: Some(agent.into()),
            state: Some(state.into()),
            ..Default::default()
        }
    }

    #[test]
    fn fields_match_with_wildcards_and_missing_fields_never_match() {
        let e = enter(3, "buyer1", "Goto2");
        assert!(e.matches(&pattern("buyer*", "Goto2")));
        assert!(!e.matches(&pattern("seller", "Goto2")));
        let needs_fact = EventPattern {
            event: "*".into(),
            fact: Some("*".into()),
            ..Default::default()
        };
        assert!(!e.matches(&needs_fact));
    }

    #[test]
    fn each_expectation_fails_at_the_first_tick_it_cannot_hold() {
        let run = [enter(0, "a", "S"), enter(5, "a", "T"), enter(9, "a", "T")];
        let s = pattern("a", "S");
        let t = pattern("a", "T");
        let judge = |e: Expectation| judge(&e, &run, 20).map(|b| b.tick);
        assert_eq!(judge(Expectation::Happens { what: t.clone() }), None);
        assert_eq!(
            judge(Expectation::Happens {
                what: pattern("b", "T")
            }),
            Some(20)
        );
        assert_eq!(judge(Expectation::Never { what: t.clone() }), Some(5));
        let before = |first: &EventPattern, then: &EventPattern| Expectation::Before {
            first: first.clone(),
            then: then.clone(),
        };
        assert_eq!(judge(before(&s, &t)), None);
        assert_eq!(judge(before(&t, &s)), Some(0));
        let within = |ticks, after: Option<&EventPattern>| Expectation::Within {
            ticks,
            what: t.clone(),
            after: after.cloned(),
        };
        assert_eq!(judge(within(5, None)), None);
        assert_eq!(judge(within(4, None)), Some(4));
        assert_eq!(judge(within(5, Some(&s))), None);
        assert_eq!(judge(within(3, Some(&s))), Some(3));
        let count = |exactly, at_least, at_most| Expectation::Count {
            what: t.clone(),
            exactly,
            at_least,
            at_most,
        };
        assert_eq!(judge(count(Some(2), None, None)), None);
        assert_eq!(judge(count(Some(1), None, None)), Some(9));
        assert_eq!(judge(count(None, Some(3), None)), Some(20));
        assert_eq!(judge(count(None, None, Some(1))), Some(9));
    }
}
