//! Id conflicts, as Rally's bulk `conflicts` simulates them: every document gets an id, and
//! with some probability a document is written over an id already used instead of a new one
//! (`index` again, or `update` with the document as its `doc`). A load of updates and
//! overwrites costs the engine a version lookup per document that an append-only load never
//! pays; this is how a track measures it.
//!
//! As in Rally, new ids come in order (`sequential`) or in a random order of the load's ids
//! (`random`), written `%010d`, and the id written over is drawn uniformly from those used
//! before, or biased toward the most recent by `recency`.
//!
//! Rally gives each client its own range of ids, whose earlier bulks have all been answered,
//! so no two requests in flight touch one id. Here one batcher feeds every client, so the same
//! is kept another way. An id is only written over once the engine has answered for it, or
//! within the same request (whose items run in order): else an `update` could reach the
//! engine before the document it updates (a 404). And the ids answered for are dealt into
//! lanes, one per request that can be outstanding at once; a request holds a lane from the
//! moment the batcher begins it until its last answer, and writes over ids of its lane only:
//! else two updates of one id in flight together race (a 409 version conflict).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use super::batch::Batch;
use crate::rng::Rng;

/// Rally's `recency` slope: the rate of the exponential draw is this times `recency`.
const RECENCY_SLOPE: f64 = 30.0;

/// How the documents' ids conflict (Rally's `conflicts`, `conflict-probability`,
/// `on-conflict`, `recency`).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Conflicts {
    pub order: IdOrder,
    /// The chance, from 0 to 1, that a document is written over an id already used.
    pub probability: f64,
    pub on_conflict: OnConflict,
    /// From 0 (any id already used, alike) to 1 (the most recent, strongly).
    pub recency: f64,
}

/// The order new ids come in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IdOrder {
    Sequential,
    Random,
}

/// What a document written over an id already used is sent as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OnConflict {
    /// `index`: the document replaces the one there.
    Index,
    /// `update`: the document is merged into the one there (`{"doc": ...}`).
    Update,
}

/// One document's id, as the batcher writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    pub id: u64,
    /// Sent as `update`, its source wrapped as `{"doc": ...}`.
    pub update: bool,
    /// Written over an id already used.
    pub conflict: bool,
}

/// The ids of one load's documents, in the order the batcher reads them. Positions count the
/// new ids handed out (0, 1, 2, ...); a position's id is its place in the load's order, after
/// the load's first ordinal (a part's share starts there).
#[derive(Debug)]
pub struct ConflictIds {
    spec: Conflicts,
    rng: Rng,
    order: Option<Permutation>,
    first: u64,
    /// New ids handed out so far.
    up_to: u64,
    /// Where the batch being filled began: ids from here on are in its own request.
    batch_from: u64,
    /// The lanes the answered ids are dealt into, and the one the batch being filled holds
    /// (`None`: it writes over its own ids only).
    lanes: u64,
    lane: Option<u64>,
}

impl ConflictIds {
    /// The ids of a load of `docs` documents (what the source says it holds) whose first
    /// document is ordinal `first`. A random order needs the count.
    pub fn new(
        spec: Conflicts,
        docs: Option<u64>,
        first: u64,
        lanes: usize,
    ) -> Result<Self, String> {
        let order = match spec.order {
            IdOrder::Sequential => None,
            IdOrder::Random => Some(Permutation::new(docs.ok_or(
                "random id conflicts need the number of documents, and the source does not say it",
            )?)),
        };
        Ok(ConflictIds {
            spec,
            rng: Rng::new(0x001d_c0f1, first),
            order,
            first,
            up_to: 0,
            batch_from: 0,
            lanes: lanes.max(1) as u64,
            lane: None,
        })
    }

    /// A new batch begins, holding `lane`: ids from here on are in the same request as what
    /// follows.
    pub fn batch_begins(&mut self, lane: Option<usize>) {
        self.batch_from = self.up_to;
        self.lane = lane.map(|l| l as u64 % self.lanes);
    }

    /// New ids handed out so far: the positions `0..n`.
    pub fn handed_out(&self) -> u64 {
        self.up_to
    }

    /// The next document's id. `answered` is how many positions from 0 on the engine has
    /// answered for; a conflict is drawn among those of the batch's lane and the ones of this
    /// batch before it, in the order they were handed out. Nothing is taken until
    /// [`Self::keep`]: a line that turns out not to be a document uses no id.
    pub fn next(&mut self, answered: u64) -> Choice {
        let answered = answered.min(self.batch_from);
        // Positions `lane, lane + lanes, ...` below `answered`.
        let in_lane = self
            .lane
            .map_or(0, |l| (answered + self.lanes - 1 - l) / self.lanes);
        let in_batch = self.up_to - self.batch_from;
        let used = in_lane + in_batch;
        if used > 0 && self.spec.probability > 0.0 && self.rng.unit() < self.spec.probability {
            let k = self.pick(used);
            let position = match self.lane {
                Some(l) if k < in_lane => l + k * self.lanes,
                _ => self.batch_from + (k - in_lane),
            };
            return Choice {
                id: self.id(position),
                update: self.spec.on_conflict == OnConflict::Update,
                conflict: true,
            };
        }
        Choice {
            id: self.id(self.up_to),
            update: false,
            conflict: false,
        }
    }

    /// The document chosen for was read: a new id is now used.
    pub fn keep(&mut self, c: Choice) {
        if !c.conflict {
            self.up_to += 1;
        }
    }

    /// One of `used` ids in the order they were handed out: uniform, or (Rally's `recency`)
    /// from an exponential draw that favours the last.
    fn pick(&mut self, used: u64) -> u64 {
        if self.spec.recency == 0.0 {
            return self.rng.below(used);
        }
        let rate = RECENCY_SLOPE * self.spec.recency;
        let draw = -(1.0 - self.rng.unit()).ln() / rate;
        let back = draw.min(1.0);
        (((used - 1) as f64) * (1.0 - back)).round() as u64
    }

    fn id(&self, position: u64) -> u64 {
        let place = match &self.order {
            Some(p) => p.at(position),
            None => position,
        };
        self.first + place
    }
}

/// A random order of `0..n` computed on demand (a Feistel network over the smallest square of
/// a power of two that holds `n`, walking out of range values back in): no table of `n` ids,
/// however big the load.
#[derive(Debug)]
struct Permutation {
    n: u64,
    half_bits: u32,
    keys: [u64; 4],
}

impl Permutation {
    fn new(n: u64) -> Self {
        let bits = 64 - n.saturating_sub(1).leading_zeros();
        let half_bits = bits.div_ceil(2).max(1);
        let mut rng = Rng::new(0x05ee_d1d5, n);
        Permutation {
            n,
            half_bits,
            keys: [
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
                rng.next_u64(),
            ],
        }
    }

    /// The place of position `i`; positions past `n` (a source longer than it said) keep
    /// their own, which no position below `n` maps to.
    fn at(&self, i: u64) -> u64 {
        if i >= self.n {
            return i;
        }
        let mut x = i;
        loop {
            x = self.round_trip(x);
            if x < self.n {
                return x;
            }
        }
    }

    fn round_trip(&self, x: u64) -> u64 {
        let mask = (1u64 << self.half_bits) - 1;
        let (mut left, mut right) = (x >> self.half_bits, x & mask);
        for key in self.keys {
            let mut mix = right ^ key;
            let f = crate::rng::splitmix64(&mut mix) & mask;
            (left, right) = (right, left ^ f);
        }
        (left << self.half_bits) | right
    }
}

/// Which new ids the engine has answered for, as the senders finish batches out of order,
/// and which lanes the outstanding batches hold (see the module's words). Also counts the
/// documents written over an id already used, for the counts to reconcile with the index's.
#[derive(Debug)]
pub struct Answered {
    /// Positions `0..mark` are answered for.
    mark: AtomicU64,
    /// Finished ranges past the mark, by their start.
    ahead: Mutex<BTreeMap<u64, u64>>,
    /// Whether each lane is held by an outstanding batch.
    held: Mutex<Vec<bool>>,
    /// Documents sent over an id already used (in batches sent).
    pub overwrites: AtomicU64,
}

impl Answered {
    /// For a load of `clients` senders: a batch in flight per client, as many queued, and one
    /// being filled are all the batches ever outstanding, one lane each.
    pub fn for_clients(clients: usize) -> Self {
        Answered {
            mark: AtomicU64::new(0),
            ahead: Mutex::default(),
            held: Mutex::new(vec![false; Self::lanes(clients)]),
            overwrites: AtomicU64::new(0),
        }
    }

    pub fn lanes(clients: usize) -> usize {
        2 * clients.max(1) + 1
    }

    pub fn mark(&self) -> u64 {
        self.mark.load(Relaxed)
    }

    /// A free lane for a batch beginning, held until [`Self::finished`]; `None` if every lane
    /// is held (the batch then writes over its own ids only).
    pub fn hold(&self) -> Option<usize> {
        let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
        let free = held.iter().position(|h| !h)?;
        held[free] = true;
        Some(free)
    }

    /// `batch` is done with, and its lane free again. Sent (answered, refused or given up
    /// on), its new ids count as answered for and its overwrites as sent; handed back unsent
    /// (the load's time is up, a cancel, nothing in it), it wrote nothing.
    pub fn done_with(&self, batch: &mut Batch, sent: bool) {
        let range = if sent {
            self.overwrites.fetch_add(batch.overwrites, Relaxed);
            batch.fresh.clone()
        } else {
            0..0
        };
        self.finished(range, batch.lane.take());
    }

    /// A batch holding new ids `range` and lane `lane` is done with.
    fn finished(&self, range: Range<u64>, lane: Option<usize>) {
        if let Some(l) = lane {
            let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(h) = held.get_mut(l) {
                *h = false;
            }
        }
        if range.is_empty() {
            return;
        }
        let mut ahead = self.ahead.lock().unwrap_or_else(|p| p.into_inner());
        ahead.insert(range.start, range.end);
        let mut mark = self.mark.load(Relaxed);
        while let Some(end) = ahead.remove(&mark) {
            mark = end;
        }
        self.mark.store(mark, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn spec(order: IdOrder, probability: f64, recency: f64) -> Conflicts {
        Conflicts {
            order,
            probability,
            on_conflict: OnConflict::Index,
            recency,
        }
    }

    #[test]
    fn a_random_order_is_a_permutation_of_every_size() {
        for n in [1u64, 2, 3, 5, 16, 17, 1000, 4097] {
            let p = Permutation::new(n);
            let seen: HashSet<u64> = (0..n).map(|i| p.at(i)).collect();
            assert_eq!(seen.len() as u64, n, "n = {n}");
            assert!(seen.iter().all(|x| *x < n), "n = {n}");
        }
        // Not the identity: the point of `random` is ids out of order.
        let p = Permutation::new(1000);
        let in_place = (0..1000).filter(|i| p.at(*i) == *i).count();
        assert!(in_place < 20, "{in_place} of 1000 in place");
        assert_eq!(p.at(1000), 1000, "past the count, a position keeps its own");
    }

    /// Draws the ids of `n` documents as the batcher does, every earlier id answered.
    fn draw(ids: &mut ConflictIds, n: usize) -> Vec<Choice> {
        (0..n)
            .map(|_| {
                let c = ids.next(u64::MAX);
                ids.keep(c);
                c
            })
            .collect()
    }

    #[test]
    fn new_ids_follow_on_and_conflicts_name_ids_already_used_at_about_the_probability() {
        let mut ids = ConflictIds::new(spec(IdOrder::Sequential, 0.25, 0.0), None, 100, 1).unwrap();
        let drawn = draw(&mut ids, 20_000);
        let mut used = HashSet::new();
        let mut next = 100;
        for c in &drawn {
            if c.conflict {
                assert!(used.contains(&c.id), "{} was not used yet", c.id);
                assert!(!c.update);
            } else {
                assert_eq!(c.id, next);
                next += 1;
                used.insert(c.id);
            }
        }
        let share = drawn.iter().filter(|c| c.conflict).count() as f64 / 20_000.0;
        assert!((0.23..0.27).contains(&share), "{share}");
        assert_eq!(ids.handed_out(), used.len() as u64);
        // The first document has nothing to conflict with.
        assert!(!drawn[0].conflict);
    }

    #[test]
    fn random_new_ids_are_the_loads_ids_each_once() {
        let mut ids = ConflictIds::new(spec(IdOrder::Random, 0.5, 0.0), Some(500), 0, 1).unwrap();
        let fresh: Vec<u64> = draw(&mut ids, 2000)
            .into_iter()
            .filter(|c| !c.conflict)
            .map(|c| c.id)
            .take(500)
            .collect();
        let distinct: HashSet<_> = fresh.iter().collect();
        assert_eq!(distinct.len(), 500);
        assert!(fresh.iter().all(|id| *id < 500));
        assert_ne!(fresh, (0..500).collect::<Vec<_>>());
        assert!(
            ConflictIds::new(spec(IdOrder::Random, 0.5, 0.0), None, 0, 1)
                .unwrap_err()
                .contains("number of documents")
        );
    }

    #[test]
    fn recency_favours_the_ids_used_last() {
        let mean_age = |recency: f64| {
            let mut ids =
                ConflictIds::new(spec(IdOrder::Sequential, 0.5, recency), None, 0, 1).unwrap();
            let mut ages = Vec::new();
            for _ in 0..20_000 {
                let c = ids.next(u64::MAX);
                if c.conflict {
                    ages.push((ids.handed_out() - 1 - c.id) as f64 / ids.handed_out() as f64);
                }
                ids.keep(c);
            }
            ages.iter().sum::<f64>() / ages.len() as f64
        };
        let (uniform, recent) = (mean_age(0.0), mean_age(0.5));
        // Uniform over the ids used: half way back on average; recency 0.5 draws from an
        // exponential of mean 1/15 of the way back.
        assert!((0.45..0.55).contains(&uniform), "{uniform}");
        assert!(recent < 0.1, "{recent}");
    }

    #[test]
    fn a_conflict_is_never_over_an_id_the_engine_has_not_answered_for_outside_its_batch() {
        let mut ids = ConflictIds::new(
            Conflicts {
                on_conflict: OnConflict::Update,
                ..spec(IdOrder::Sequential, 0.9, 0.0)
            },
            None,
            0,
            3,
        )
        .unwrap();
        // Ids 0..10 in flight, unanswered; a new batch begins at 10.
        draw(&mut ids, 10);
        let before = ids.handed_out();
        ids.batch_begins(Some(1));
        for _ in 0..200 {
            let c = ids.next(0);
            if c.conflict {
                assert!(c.id >= before, "{} is in flight in another request", c.id);
                assert!(c.update);
            }
            ids.keep(c);
        }
        // Once 0..10 are answered, those of the batch's lane (1 of 3) may be written over
        // too; those of the other lanes belong to other requests.
        ids.batch_begins(Some(1));
        let over: HashSet<u64> = (0..2000)
            .map(|_| ids.next(10))
            .filter(|c| c.conflict)
            .map(|c| c.id)
            .collect();
        assert_eq!(over, HashSet::from([1, 4, 7]));
        // Without a lane, a batch writes over its own ids only.
        ids.batch_begins(None);
        assert!((0..200).all(|_| !ids.next(10).conflict));
    }

    #[test]
    fn the_mark_passes_batches_finished_out_of_order_and_lanes_are_held_until_then() {
        let a = Answered::for_clients(1);
        let lanes: Vec<_> = (0..4).map(|_| a.hold()).collect();
        assert_eq!(lanes, [Some(0), Some(1), Some(2), None]);
        a.finished(10..20, Some(1));
        assert_eq!(a.mark(), 0);
        assert_eq!(a.hold(), Some(1));
        a.finished(0..10, None);
        assert_eq!(a.mark(), 20);
        a.finished(20..20, None);
        a.finished(30..40, None);
        a.finished(20..30, None);
        assert_eq!(a.mark(), 40);
    }
}
