//! One part of a run split over several driver processes or hosts (`--part I/N`): part I takes
//! a deterministic, disjoint share of the corpus, so that the parts together load each document
//! exactly once, with no coordinator. A generator's documents are split by position: part I
//! makes (and drops) the documents before its share, then yields its share, so its bytes are
//! exactly those the whole run would have sent at those positions, under the same ids.

use super::{CorpusError, DocSource, Item};

/// Part `index` of `of` (1-based). A run without `--part` is part 1 of 1. Kept as `"I/N"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Part {
    pub index: u32,
    pub of: u32,
}

/// The most parts a run is split into.
pub const MAX_PARTS: u32 = 1024;

impl Part {
    pub const WHOLE: Part = Part { index: 1, of: 1 };

    /// `I/N`, 1 ≤ I ≤ N ≤ [`MAX_PARTS`].
    pub fn parse(text: &str) -> Result<Part, String> {
        let bad = || {
            format!(
                "{text:?} is not a part: write I/N, e.g. 2/4 for the second of four \
                 (1 <= I <= N <= {MAX_PARTS})"
            )
        };
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, of) = (
            i.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || of == 0 || index > of || of > MAX_PARTS {
            return Err(bad());
        }
        Ok(Part { index, of })
    }

    pub fn is_whole(&self) -> bool {
        self.of == 1
    }

    /// This part's share of `total` positions: `[from, to)`. The shares of parts 1..=N are
    /// disjoint, in order, and cover `[0, total)`; their sizes differ by at most one.
    pub fn share(&self, total: u64) -> (u64, u64) {
        let at = |k: u32| (u128::from(total) * u128::from(k) / u128::from(self.of)) as u64;
        (at(self.index - 1), at(self.index))
    }
}

impl Part {
    /// This part's share of `total` clients (or search clients), when every part gets at
    /// least one. Judged from the whole, not from this part's share, so that every part of a
    /// group reaches the same decision: with 2 clients in 3 parts, each refuses (part 1 alone
    /// would get none, and the others would load a run that can never be whole).
    pub fn clients(&self, total: u64, flag: &str) -> Result<u64, String> {
        if total < u64::from(self.of) {
            return Err(format!(
                "--part {self}: {flag} {total} is fewer than the {} parts: every part needs at \
                 least one (each part of the group refuses alike)",
                self.of
            ));
        }
        let (from, to) = self.share(total);
        Ok(to - from)
    }
}

impl From<Part> for String {
    fn from(p: Part) -> String {
        p.to_string()
    }
}

impl TryFrom<String> for Part {
    type Error = String;
    fn try_from(s: String) -> Result<Part, String> {
        Part::parse(&s)
    }
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.of)
    }
}

/// Whether `group` names a group of parts (`--group`): 1 to 64 letters, digits, `.`, `_`,
/// `-` (it goes in ids, index names and URL paths as it is).
pub fn check_group(group: &str) -> Result<(), String> {
    let ok = (1..=64).contains(&group.len())
        && group
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{group:?}: a group is 1 to 64 letters, digits, `.`, `_` or `-`"
        ))
    }
}

/// The documents at positions `[from, to)` of `inner`: those before are made and dropped.
pub struct PartSource {
    inner: Box<dyn DocSource>,
    part: Part,
    from: u64,
    /// Documents of the share still to yield.
    left: u64,
    skipped: bool,
}

impl PartSource {
    /// Part `part` of a generator of `total` documents.
    pub fn new(inner: Box<dyn DocSource>, part: Part, total: u64) -> PartSource {
        let (from, to) = part.share(total);
        PartSource {
            inner,
            part,
            from,
            left: to - from,
            skipped: false,
        }
    }

    /// The position (and so the sequential id) of this part's first document.
    pub fn first_ordinal(&self) -> u64 {
        self.from
    }

    fn skip(&mut self) -> Result<(), CorpusError> {
        let mut scratch = Vec::with_capacity(4096);
        for _ in 0..self.from {
            scratch.clear();
            if self.inner.next_into(&mut scratch)?.is_none() {
                return Err(CorpusError::Invalid(format!(
                    "part {}: the corpus ended before this part's share began",
                    self.part
                )));
            }
        }
        self.skipped = true;
        Ok(())
    }
}

impl DocSource for PartSource {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        if !self.skipped {
            self.skip()?;
        }
        super::next_within(self.inner.as_mut(), &mut self.left, out)
    }

    fn len_hint(&self) -> Option<u64> {
        Some(self.left)
    }

    fn describe(&self) -> String {
        format!("{}, part {}", self.inner.describe(), self.part)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{Logs, LogsSpec};

    #[test]
    fn parts_are_parsed_or_refused_with_the_form() {
        assert_eq!(Part::parse("2/4"), Ok(Part { index: 2, of: 4 }));
        for bad in ["0/4", "5/4", "1/0", "x/2", "3", "1/2000"] {
            let e = Part::parse(bad).unwrap_err();
            assert!(e.contains("write I/N"), "{bad}: {e}");
        }
    }

    #[test]
    fn every_part_reaches_the_same_decision_on_too_few_clients() {
        for index in 1..=3 {
            let part = Part { index, of: 3 };
            let e = part.clients(2, "--clients").unwrap_err();
            assert!(e.contains("--clients 2 is fewer than the 3 parts"), "{e}");
        }
        let shares: Vec<u64> = (1..=3)
            .map(|index| Part { index, of: 3 }.clients(5, "--clients").unwrap())
            .collect();
        assert_eq!(shares, [1, 2, 2]);
    }

    #[test]
    fn shares_are_disjoint_in_order_and_cover_the_whole() {
        for total in [0u64, 1, 7, 600_000, u64::MAX / 3] {
            for of in [1u32, 2, 3, 7, 16] {
                let mut next = 0;
                for index in 1..=of {
                    let (from, to) = Part { index, of }.share(total);
                    assert_eq!(from, next, "{index}/{of} of {total}");
                    assert!(to - from <= total / u64::from(of) + 1);
                    next = to;
                }
                assert_eq!(next, total);
            }
        }
    }

    /// Differential: the parts' documents, in part order, are byte for byte the whole run's.
    #[test]
    fn the_parts_of_a_generator_are_the_whole_cut_in_pieces() {
        let docs = 1000;
        let whole = |part: Part| {
            let logs = Logs::new(LogsSpec::new(7, docs)).unwrap();
            let mut source = PartSource::new(Box::new(logs), part, docs);
            let mut out = Vec::new();
            let mut n = 0;
            while let Some(Item::Doc) = source.next_into(&mut out).unwrap() {
                out.push(b'\n');
                n += 1;
            }
            (out, n, source.first_ordinal())
        };
        let (all, n, _) = whole(Part::WHOLE);
        assert_eq!(n, docs);
        let mut joined = Vec::new();
        let mut firsts = Vec::new();
        for index in 1..=3 {
            let (bytes, _, first) = whole(Part { index, of: 3 });
            joined.extend_from_slice(&bytes);
            firsts.push(first);
        }
        assert_eq!(joined, all);
        assert_eq!(firsts, [0, 333, 666]);
    }
}
