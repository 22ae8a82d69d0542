//! Surface pattern matching (Zubek §5.3.3): one pass of bitmask and stem tests over the word
//! list, no backtracking. A pattern is segments of consecutive word tests separated by gaps;
//! placing every segment at its leftmost possible position is complete for that shape (an
//! earlier placement never blocks a later segment), so each segment is searched once.

use super::model::{Pattern, WordTest};
use super::text::Word;

impl WordTest {
    /// Whether `word` passes this test.
    pub fn test(&self, word: &Word) -> bool {
        match self {
            WordTest::Any => true,
            WordTest::Is { stems, any, all } => {
                word.stem.is_some_and(|s| stems.contains(&s))
                    || word.tags & any != 0
                    || (*all != 0 && word.tags & all == *all)
            }
        }
    }
}

fn segment_at(segment: &[WordTest], words: &[Word], at: usize) -> bool {
    at + segment.len() <= words.len()
        && segment
            .iter()
            .zip(&words[at..])
            .all(|(test, word)| test.test(word))
}

impl Pattern {
    /// Whether the pattern matches the utterance's words (one left-to-right pass).
    pub fn matches(&self, words: &[Word]) -> bool {
        let n = words.len();
        if self.segments.is_empty() {
            return !(self.from_start && self.to_end) || n == 0;
        }
        let last = self.segments.len() - 1;
        let mut pos = 0;
        for (k, segment) in self.segments.iter().enumerate() {
            let len = segment.len();
            if len > n || pos > n - len {
                return false;
            }
            let at = if k == last && self.to_end {
                let at = n - len;
                if (k == 0 && self.from_start && at != 0) || !segment_at(segment, words, at) {
                    return false;
                }
                at
            } else if k == 0 && self.from_start {
                if !segment_at(segment, words, 0) {
                    return false;
                }
                0
            } else {
                match (pos..=n - len).find(|&i| segment_at(segment, words, i)) {
                    Some(i) => i,
                    None => return false,
                }
            };
            pos = at + len;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hpmm::model::StemId;

    fn w(stem: u32, tags: u128) -> Word {
        Word {
            text: String::new(),
            stem: Some(StemId(stem)),
            tags,
            read_as: None,
            pause: false,
        }
    }

    fn is(stem: u32) -> WordTest {
        WordTest::Is {
            stems: vec![StemId(stem)],
            any: 0,
            all: 0,
        }
    }

    fn pat(from_start: bool, to_end: bool, segments: Vec<Vec<WordTest>>) -> Pattern {
        Pattern {
            from_start,
            to_end,
            segments,
        }
    }

    #[test]
    fn tag_masks_follow_or_and_and() {
        let word = w(0, 0b0110);
        let or = WordTest::Is {
            stems: vec![],
            any: 0b1100,
            all: 0,
        };
        let and_ok = WordTest::Is {
            stems: vec![],
            any: 0,
            all: 0b0110,
        };
        let and_no = WordTest::Is {
            stems: vec![],
            any: 0,
            all: 0b0111,
        };
        assert!(or.test(&word));
        assert!(and_ok.test(&word));
        assert!(!and_no.test(&word));
    }

    #[test]
    fn anchors_and_gaps() {
        // "can you give me a beer" = 1 2 3 4 5 6
        let words: Vec<Word> = (1..=6).map(|i| w(i, 0)).collect();
        assert!(pat(true, false, vec![vec![is(1), is(2)]]).matches(&words));
        assert!(!pat(true, false, vec![vec![is(2), is(1)]]).matches(&words));
        assert!(pat(false, false, vec![vec![is(3), is(4)]]).matches(&words));
        assert!(pat(false, true, vec![vec![is(6)]]).matches(&words));
        assert!(!pat(false, true, vec![vec![is(5)]]).matches(&words));
        assert!(pat(true, true, vec![vec![is(1)], vec![is(6)]]).matches(&words));
        assert!(pat(false, false, vec![vec![is(2)], vec![is(5)]]).matches(&words));
        assert!(!pat(false, false, vec![vec![is(5)], vec![is(2)]]).matches(&words));
        assert!(pat(true, true, vec![vec![WordTest::Any; 6]]).matches(&words));
        assert!(!pat(true, true, vec![vec![WordTest::Any; 5]]).matches(&words));
        assert!(!pat(false, false, vec![vec![WordTest::Any; 7]]).matches(&words));
        assert!(pat(true, true, vec![]).matches(&[]));
    }

    #[test]
    fn leftmost_placement_is_complete() {
        // a b a b c : pattern `a * b c` needs the second b.
        let words = vec![w(1, 0), w(2, 0), w(1, 0), w(2, 0), w(3, 0)];
        assert!(pat(false, false, vec![vec![is(1)], vec![is(2), is(3)]]).matches(&words));
        assert!(pat(false, true, vec![vec![is(1)], vec![is(2), is(3)]]).matches(&words));
    }
}
