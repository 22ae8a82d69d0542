//! Random draws that pick a branch of the run (which line a state says, whether a chance comes
//! true), counted kind by kind over the whole scene, and the ones a content test forces
//! (`Draw(kind: Line, n: 2, value: 1)`, docs/formats/test.md): the simulated world answers
//! [`World::decide`](ensemble_runtime::world::World::decide) from here.
//!
//! The stream draws either way, so forcing one draw changes that outcome and what follows from
//! it, not the numbers drawn after it. The counts are saved (section [`DRAWS_SECTION`]) so a
//! restored run numbers its draws as the uninterrupted one does; the forced draws are options
//! of the run, like mocks.

use ensemble_runtime::rng::DrawKind;
use serde::{Deserialize, Serialize};

/// The section the draw counts are saved in.
pub const DRAWS_SECTION: &str = "sim.draws";

/// One draw made: the `n`-th of its kind (from 0), among `outcomes`; `natural` is what the
/// stream drew, `happened` what the run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drawn {
    pub kind: DrawKind,
    pub n: u64,
    pub outcomes: usize,
    pub natural: usize,
    pub happened: usize,
}

/// A forced draw: the `n`-th draw of `kind` comes out as `value`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ForcedDraw {
    pub kind: DrawKind,
    pub n: u64,
    pub value: u32,
}

#[derive(Serialize, Deserialize)]
struct SavedDraws {
    /// Draws made so far, per kind in [`DrawKind::ALL`]'s order.
    counts: Vec<u64>,
}

/// The draws of one run.
#[derive(Clone, Debug, Default)]
pub struct Draws {
    forced: Vec<ForcedDraw>,
    counts: [u64; DrawKind::ALL.len()],
    /// Draws made since [`Draws::take_log`].
    log: Vec<Drawn>,
    /// Forced values that did not fit their draw.
    misfits: Vec<String>,
}

fn slot(kind: DrawKind) -> usize {
    DrawKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

impl Draws {
    pub fn new(forced: Vec<ForcedDraw>) -> Draws {
        Draws {
            forced,
            ..Draws::default()
        }
    }

    /// The outcome of the next draw of `kind`: the forced value if a test forces this one and
    /// it is one of the `outcomes`, else `natural`.
    pub fn decide(&mut self, kind: DrawKind, outcomes: usize, natural: usize) -> usize {
        let n = self.counts[slot(kind)];
        self.counts[slot(kind)] += 1;
        let forced = self.forced.iter().find(|f| f.kind == kind && f.n == n);
        let happened = match forced {
            Some(f) if (f.value as usize) < outcomes => f.value as usize,
            Some(f) => {
                self.misfits.push(format!(
                    "`Draw(kind: {}, n: {n}, value: {})`: that draw has {outcomes} outcomes \
                     (values 0 to {})",
                    kind.name(),
                    f.value,
                    outcomes.saturating_sub(1)
                ));
                natural
            }
            None => natural,
        };
        self.log.push(Drawn {
            kind,
            n,
            outcomes,
            natural,
            happened,
        });
        happened
    }

    /// The draws made since the last call.
    pub fn take_log(&mut self) -> Vec<Drawn> {
        std::mem::take(&mut self.log)
    }

    /// Draws of `kind` made so far.
    pub fn count(&self, kind: DrawKind) -> u64 {
        self.counts[slot(kind)]
    }

    /// What went wrong with the forced draws so far: a value that did not fit its draw, a
    /// draw the run has not (yet) made.
    pub fn problems(&self) -> Vec<String> {
        let mut out = self.misfits.clone();
        for f in &self.forced {
            let made = self.count(f.kind);
            if f.n >= made {
                out.push(format!(
                    "`Draw(kind: {}, n: {}, value: {})`: the run made {made} draws of that kind \
                     (n from 0 to {}), so it was never forced",
                    f.kind.name(),
                    f.n,
                    f.value,
                    if made == 0 {
                        "none".to_string()
                    } else {
                        (made - 1).to_string()
                    }
                ));
            }
        }
        out
    }

    pub(crate) fn save(&self, snapshot: &mut ensemble_runtime::snapshot::SnapshotWriter) {
        let saved = SavedDraws {
            counts: self.counts.to_vec(),
        };
        snapshot.put(DRAWS_SECTION, &saved);
    }

    /// Takes back the counts of a snapshot (none saved: no draw made yet).
    pub(crate) fn restore(
        &mut self,
        snapshot: &ensemble_runtime::snapshot::SnapshotReader,
    ) -> Result<(), ensemble_runtime::snapshot::SnapshotError> {
        if !snapshot.has(DRAWS_SECTION) {
            return Ok(());
        }
        let saved: SavedDraws = snapshot.get(DRAWS_SECTION)?;
        if saved.counts.len() != self.counts.len() {
            return Err(ensemble_runtime::snapshot::SnapshotError::BadSection {
                section: DRAWS_SECTION.to_string(),
                message: format!(
                    "{} draw counts, not {}",
                    saved.counts.len(),
                    self.counts.len()
                ),
            });
        }
        self.counts.copy_from_slice(&saved.counts);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_forced_draw_changes_only_its_own_outcome() {
        let mut d = Draws::new(vec![ForcedDraw {
            kind: DrawKind::Line,
            n: 1,
            value: 2,
        }]);
        assert_eq!(d.decide(DrawKind::Line, 3, 0), 0);
        assert_eq!(d.decide(DrawKind::Chance, 2, 0), 0);
        assert_eq!(d.decide(DrawKind::Line, 3, 0), 2);
        assert_eq!(d.decide(DrawKind::Line, 3, 1), 1);
        let log = d.take_log();
        assert_eq!(log.len(), 4);
        assert_eq!((log[2].n, log[2].natural, log[2].happened), (1, 0, 2));
        assert!(d.problems().is_empty());
    }

    #[test]
    fn a_value_that_does_not_fit_and_a_draw_never_made_are_problems() {
        let mut d = Draws::new(vec![
            ForcedDraw {
                kind: DrawKind::Chance,
                n: 0,
                value: 5,
            },
            ForcedDraw {
                kind: DrawKind::Line,
                n: 7,
                value: 0,
            },
        ]);
        assert_eq!(d.decide(DrawKind::Chance, 2, 1), 1);
        let p = d.problems();
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p[0].contains("2 outcomes"), "{p:?}");
        assert!(p[1].contains("made 0 draws"), "{p:?}");
    }
}
