//! Raw measurements that add up (counts, HDR histograms, counts per wall-clock second, values
//! timed on the wall clock): what a phase of a run returns, and what several processes' parts
//! of one run merge into.

use std::collections::BTreeMap;

use hdrhistogram::Histogram;

use super::SerializedHistogram;

/// Raw measurements that add up: two processes' (or two phases') measurements of one run
/// merge into the figures one process would have made. Nothing here is a rate or a
/// percentile; those are derived from it, after any merge.
#[derive(Debug, Clone, Default)]
pub struct Measurements {
    /// Counts by name (`docs`, `requests`, `failed`).
    pub counts: BTreeMap<String, u64>,
    /// HDR histograms by name, with their unit.
    pub histograms: BTreeMap<String, (String, Histogram<u64>)>,
    /// Counts per wall-clock second (Unix time), so processes on one clock line up.
    pub seconds: BTreeMap<u64, BTreeMap<String, u64>>,
    /// Values that merge by the least or the most of the parts: when a phase began, when it
    /// ended.
    pub bounds: Bounds,
    /// Lists of values timed on the wall clock, by name (when each index was made, with its
    /// documents): they merge by union, so a group's list is the one one process would have
    /// kept of every part's moments.
    pub timed: BTreeMap<String, Timed>,
}

/// A list of moments, each a Unix time in µs with one value per field, in order (by time,
/// then by values: the order is the list's own, whatever order its rows were added in, so two
/// processes' lists joined are the list one process keeping every row would hold).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Timed {
    pub fields: Vec<String>,
    pub rows: Vec<(u64, Vec<f64>)>,
}

impl Timed {
    /// The list's values of `field`, with their times (none when it has no such field).
    pub fn of<'a>(&'a self, field: &str) -> impl Iterator<Item = (u64, f64)> + 'a {
        let i = self.fields.iter().position(|f| f == field);
        let rows = i.map(|i| {
            self.rows
                .iter()
                .filter_map(move |(at, v)| Some((*at, *v.get(i)?)))
        });
        rows.into_iter().flatten()
    }

    /// Adds a row in its place in the order.
    fn add(&mut self, at_us: u64, values: Vec<f64>) {
        let row = (at_us, values);
        let place = self.rows.partition_point(|r| order(r, &row).is_le());
        self.rows.insert(place, row);
    }

    /// Why the list cannot be read as one: a row with more or fewer values than fields, or a
    /// value that is not a number.
    pub fn check(&self, name: &str) -> Result<(), String> {
        let bad = self
            .rows
            .iter()
            .find(|(_, v)| v.len() != self.fields.len() || v.iter().any(|x| !x.is_finite()));
        match bad {
            None => Ok(()),
            Some((at, v)) => Err(format!(
                "timed list {name}: its row at {at} µs holds {v:?} for the fields {:?}",
                self.fields
            )),
        }
    }
}

/// The order of a list's rows: by time, then by values.
fn order(a: &(u64, Vec<f64>), b: &(u64, Vec<f64>)) -> std::cmp::Ordering {
    let values = a.1.iter().zip(&b.1).map(|(x, y)| x.total_cmp(y));
    let first = values.into_iter().find(|o| o.is_ne());
    a.0.cmp(&b.0)
        .then(first.unwrap_or(std::cmp::Ordering::Equal))
}

/// Values that merge by the least or the most of the parts (when a load began: the earliest
/// part's start; when it ended: the latest part's end), by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Bounds {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub least: BTreeMap<String, u64>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub most: BTreeMap<String, u64>,
}

impl Bounds {
    pub fn is_empty(&self) -> bool {
        self.least.is_empty() && self.most.is_empty()
    }
}

impl Measurements {
    /// Adds `n` to the count `name`. A count stops at the most a `u64` holds rather than wrap:
    /// no run counts near it (a group's merge refuses a part holding a number past 2^53), so
    /// only a made-up part could get there, and it must not panic the views.
    pub fn count(&mut self, name: &str, n: u64) {
        let c = self.counts.entry(name.to_string()).or_default();
        *c = c.saturating_add(n);
    }

    /// Adds `n` to the count `name` of the wall-clock second `unix_second` (stopping as
    /// [`Self::count`] does).
    pub fn count_at(&mut self, unix_second: u64, name: &str, n: u64) {
        let second = self.seconds.entry(unix_second).or_default();
        let c = second.entry(name.to_string()).or_default();
        *c = c.saturating_add(n);
    }

    /// Keeps `v` as `name`, merged by the least of the parts.
    pub fn least(&mut self, name: &str, v: u64) {
        let at = self.bounds.least.entry(name.to_string()).or_insert(v);
        *at = (*at).min(v);
    }

    /// Keeps `v` as `name`, merged by the most of the parts.
    pub fn most(&mut self, name: &str, v: u64) {
        let at = self.bounds.most.entry(name.to_string()).or_insert(v);
        *at = (*at).max(v);
    }

    /// Adds the moment `at_unix_us` with its `values` (one per field of `fields`) to the list
    /// `name`. A list keeps the fields it was first given: a row for other fields is refused.
    pub fn at(
        &mut self,
        name: &str,
        fields: &[&str],
        at_unix_us: u64,
        values: &[f64],
    ) -> Result<(), String> {
        let held = self.timed.get(name).map(|l| l.fields.as_slice());
        if values.len() != fields.len() || held.is_some_and(|held| held != fields) {
            return Err(format!(
                "timed list {name}: {values:?} for the fields {fields:?}, where it holds {:?}",
                held.unwrap_or_default()
            ));
        }
        let list = self.timed.entry(name.to_string()).or_insert_with(|| Timed {
            fields: fields.iter().map(|f| f.to_string()).collect(),
            rows: Vec::new(),
        });
        list.add(at_unix_us, values.to_vec());
        Ok(())
    }

    /// Adds `rows` (moments in Unix µs, each with one value per field of `fields`) to the
    /// list `name` at once: joined, then put in order once, however they came (a list
    /// rebuilt from what a result said may come in any order).
    pub fn at_all(
        &mut self,
        name: &str,
        fields: &[&str],
        rows: Vec<(u64, Vec<f64>)>,
    ) -> Result<(), String> {
        let mut list = Measurements::default();
        list.timed.insert(
            name.to_string(),
            Timed {
                fields: fields.iter().map(|f| f.to_string()).collect(),
                rows,
            },
        );
        list.timed[name].check(name)?;
        self.merge(&list)
    }

    /// Adds a stored histogram (as runs keep them) under its name.
    pub fn histogram(&mut self, h: &SerializedHistogram) -> Result<(), String> {
        let decoded = h.decode()?;
        self.add_histogram(&h.name, &h.unit, &decoded)
    }

    /// Records `value` (in `unit`; µs for times, 1 µs to 1 hour, beyond clamped) into the
    /// histogram `name`.
    pub fn record(&mut self, name: &str, unit: &str, value: u64) {
        let (_, h) = self
            .histograms
            .entry(name.to_string())
            .or_insert_with(|| (unit.to_string(), super::recorder::histogram()));
        h.saturating_record(value.max(1));
    }

    /// Adds `h` (in `unit`) to the histogram `name`.
    pub fn add_histogram(
        &mut self,
        name: &str,
        unit: &str,
        h: &Histogram<u64>,
    ) -> Result<(), String> {
        match self.histograms.get_mut(name) {
            Some((have, mine)) if have == unit => {
                mine.add(h).map_err(|e| format!("histogram {name}: {e:?}"))
            }
            Some((have, _)) => Err(format!(
                "histogram {name}: in {have} here and in {unit} there; not merged"
            )),
            None => {
                self.histograms
                    .insert(name.to_string(), (unit.to_string(), h.clone()));
                Ok(())
            }
        }
    }

    /// Adds `other` into `self`: counts and per-second counts add, histograms add (they must
    /// agree on their unit), bounds keep the least or the most, timed lists join (they must
    /// agree on their fields).
    pub fn merge(&mut self, other: &Measurements) -> Result<(), String> {
        for (name, list) in &other.timed {
            let mine = self.timed.entry(name.clone()).or_insert_with(|| Timed {
                fields: list.fields.clone(),
                rows: Vec::new(),
            });
            if mine.fields != list.fields {
                return Err(format!(
                    "timed list {name}: of the fields {:?} here and {:?} there; not merged",
                    mine.fields, list.fields
                ));
            }
            mine.rows.extend(list.rows.iter().cloned());
            mine.rows.sort_by(order);
        }
        for (name, n) in &other.counts {
            self.count(name, *n);
        }
        for (name, v) in &other.bounds.least {
            self.least(name, *v);
        }
        for (name, v) in &other.bounds.most {
            self.most(name, *v);
        }
        for (second, counts) in &other.seconds {
            for (name, n) in counts {
                self.count_at(*second, name, *n);
            }
        }
        for (name, (unit, h)) in &other.histograms {
            self.add_histogram(name, unit, h)?;
        }
        Ok(())
    }

    /// The count `name` per second over the seconds that have any count: `None` without
    /// seconds. Derived here, after any merge, never stored.
    pub fn rate(&self, name: &str) -> Option<f64> {
        let first = *self.seconds.keys().next()?;
        let last = *self.seconds.keys().next_back()?;
        let total: f64 = self
            .seconds
            .values()
            .filter_map(|c| c.get(name))
            .map(|n| *n as f64)
            .sum();
        Some(total / (last - first + 1) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn histogram(values: &[u64]) -> Histogram<u64> {
        let mut h = Histogram::<u64>::new(3).unwrap();
        for v in values {
            h.record(*v).unwrap();
        }
        h
    }

    #[test]
    fn measurements_of_two_processes_merge_into_one_processes_figures() {
        // One process's load, split in two halves as two processes would measure it.
        let mut whole = Measurements::default();
        let mut a = Measurements::default();
        let mut b = Measurements::default();
        for (second, docs, part) in [(100, 500, 0), (101, 700, 1), (101, 300, 0), (102, 200, 1)] {
            whole.count("docs", docs);
            whole.count_at(second, "docs", docs);
            let half = if part == 0 { &mut a } else { &mut b };
            half.count("docs", docs);
            half.count_at(second, "docs", docs);
        }
        whole
            .add_histogram("service", "us", &histogram(&[10, 20, 30, 40]))
            .unwrap();
        a.add_histogram("service", "us", &histogram(&[10, 30]))
            .unwrap();
        b.add_histogram("service", "us", &histogram(&[20, 40]))
            .unwrap();
        a.merge(&b).unwrap();
        assert_eq!(a.counts, whole.counts);
        assert_eq!(a.seconds, whole.seconds);
        assert_eq!(a.rate("docs"), whole.rate("docs"));
        assert_eq!(whole.rate("docs"), Some(1700.0 / 3.0));
        let (merged, wanted) = (&a.histograms["service"].1, &whole.histograms["service"].1);
        assert_eq!(merged.len(), wanted.len());
        assert_eq!(merged.value_at_quantile(0.5), wanted.value_at_quantile(0.5));
        // Units must agree.
        let mut ms = Measurements::default();
        ms.add_histogram("service", "ms", &histogram(&[1])).unwrap();
        assert!(a.merge(&ms).unwrap_err().contains("not merged"));
        assert_eq!(Measurements::default().rate("docs"), None);
    }

    /// A timed list keeps its fields: a row for others, or with a value too many, is refused,
    /// and so is a merge of lists of other fields; one whose stored row is short is named.
    #[test]
    fn a_timed_list_keeps_its_fields() {
        let mut m = Measurements::default();
        m.at("done", &["docs"], 2, &[10.0]).unwrap();
        m.at("done", &["docs"], 1, &[20.0]).unwrap();
        assert_eq!(m.timed["done"].rows, vec![(1, vec![20.0]), (2, vec![10.0])]);
        assert!(m.at("done", &["bytes"], 3, &[1.0]).is_err());
        assert!(m.at("done", &["docs"], 3, &[1.0, 2.0]).is_err());
        // A row refused leaves no list behind.
        assert!(m.at("new", &["docs"], 3, &[1.0, 2.0]).is_err());
        assert!(!m.timed.contains_key("new"));
        let mut other = Measurements::default();
        other.at("done", &["bytes"], 3, &[1.0]).unwrap();
        let refused = m.clone().merge(&other).unwrap_err();
        assert!(refused.contains("not merged"), "{refused}");
        assert_eq!(
            m.timed["done"].of("docs").collect::<Vec<_>>(),
            [(1, 20.0), (2, 10.0)]
        );
        assert_eq!(m.timed["done"].of("bytes").count(), 0);
        m.timed.get_mut("done").unwrap().rows.push((4, Vec::new()));
        let named = m.timed["done"].check("done").unwrap_err();
        assert!(named.contains("at 4 µs"), "{named}");
    }

    /// Property (issue 59): however a run's requests fall into parts, and in whatever order
    /// the parts are merged, the merged histograms, counts and seconds are those of one
    /// process that recorded every request. 200 random cases: 1 to 16 parts, latencies over
    /// six orders of magnitude, uneven shares.
    #[test]
    fn merging_parts_equals_recording_every_request_in_one() {
        let mut rng = crate::rng::Rng::new(59, 1);
        for case in 0..200 {
            let parts = 1 + rng.below(16) as usize;
            let mut whole = Measurements::default();
            let mut each: Vec<Measurements> = (0..parts).map(|_| Measurements::default()).collect();
            for _ in 0..rng.range(1, 2_000) {
                let value = 1 + (rng.unit().powi(4) * 3.6e9) as u64;
                let second = 1_700_000_000 + rng.below(60);
                // Moments often tie (one second, one value): the order is the list's own.
                let at = second * 1_000_000 + rng.below(3);
                // Uneven shares: part 0 takes more than the others.
                let p = if rng.chance(0.3) {
                    0
                } else {
                    rng.below(parts as u64) as usize
                };
                for m in [&mut whole, &mut each[p]] {
                    m.record("service", "us", value);
                    m.count("requests", 1);
                    m.count_at(second, "docs", value % 7);
                    m.least("began", second);
                    m.most("ended", second);
                    m.at("done", &["docs", "ms"], at, &[(value % 5) as f64, 0.5])
                        .unwrap();
                }
            }
            rng.shuffle(&mut each);
            let mut merged = Measurements::default();
            for m in &each {
                merged.merge(m).unwrap();
            }
            assert_eq!(merged.counts, whole.counts, "case {case}");
            assert_eq!(merged.seconds, whole.seconds, "case {case}");
            assert_eq!(merged.bounds, whole.bounds, "case {case}");
            assert_eq!(merged.timed, whole.timed, "case {case}");
            let (a, b) = (
                &merged.histograms["service"].1,
                &whole.histograms["service"].1,
            );
            assert_eq!(a.len(), b.len(), "case {case}");
            for q in [0.0, 0.5, 0.9, 0.99, 0.999, 1.0] {
                assert_eq!(
                    a.value_at_quantile(q),
                    b.value_at_quantile(q),
                    "case {case} q {q}"
                );
            }
            assert_eq!(a, b, "case {case}: every bucket");
        }
    }
}
