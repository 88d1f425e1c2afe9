//! What each phase of a run measured, kept as the phase ends: its [`Measurements`] (counts,
//! counts per wall-clock second, HDR histograms), the raw figures that add up, and what the
//! instruments kept around its step ([`Kept`]). A group's merge adds its parts' phase by
//! phase ([`merge_phases`]), whatever the kind of run, so the merged run holds what one
//! process measuring every part would have.

use std::collections::BTreeMap;

use rusqlite::params;

use super::{Result, RunId, Store, StoreError, HISTOGRAM_ENCODING};
use crate::measure::{Bounds, Kept, Measurements, SerializedHistogram, Timed};

/// The name of a load's phase (`session::ingest::LOAD`): a merge of loads reads it.
pub const LOAD: &str = "ingest";

/// The name of a query phase (`session::query::QUERY`): a merge of query phases reads it.
pub const QUERY: &str = "query";

/// One phase's measurements, in the order the phases ended.
#[derive(Debug, Clone, Default)]
pub struct PhaseMeasurements {
    /// The phase's name (`ingest`, `query`, a track's task).
    pub phase: String,
    pub measurements: Measurements,
    /// What each instrument kept around the phase's step, by instrument name (on the step's
    /// first phase only).
    pub kept: BTreeMap<String, Kept>,
}

/// Counts per wall-clock second as stored: JSON keys are strings.
type StoredSeconds = BTreeMap<String, BTreeMap<String, u64>>;

impl Store {
    /// Keeps what the run's phase number `seq` (0 for the first to end) measured. The same
    /// `seq` again replaces it.
    pub fn put_phase(&self, id: &RunId, seq: u32, phase: &PhaseMeasurements) -> Result<()> {
        let tx = self.write_transaction()?;
        insert_phase(&tx, &id.0, seq, phase)?;
        tx.commit()?;
        Ok(())
    }

    /// What each phase of the run measured, in the order they ended (none for a run kept
    /// before phases were, or one whose first phase never ended).
    pub fn phases(&self, id: &RunId) -> Result<Vec<PhaseMeasurements>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT seq, phase, counts, seconds, kept, bounds, timed FROM phase_measurements
             WHERE run_id = ?1 ORDER BY seq",
        )?;
        let rows = stmt.query_map([&id.0], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, String>(5)?,
                r.get::<_, String>(6)?,
            ))
        })?;
        let mut phases = Vec::new();
        for (seq, phase, counts, seconds, kept, bounds, timed) in
            super::rows_of(id, "a phase's measurements", rows)?
        {
            let bad = |what: &str, e: String| {
                StoreError::Corrupt(format!(
                    "run {id}: the {what} of its phase {seq} ({phase}): {e}"
                ))
            };
            let counts: BTreeMap<String, u64> =
                serde_json::from_str(&counts).map_err(|e| bad("counts", e.to_string()))?;
            let counts = masked_names(&counts);
            let mut kept: serde_json::Value = serde_json::from_str(&kept)
                .map_err(|e| bad("instruments' kept values", e.to_string()))?;
            super::secrets::redact(&mut kept);
            let kept: BTreeMap<String, Kept> = serde_json::from_value(kept)
                .map_err(|e| bad("instruments' kept values", e.to_string()))?;
            let bounds: Bounds =
                serde_json::from_str(&bounds).map_err(|e| bad("bounds", e.to_string()))?;
            let timed = serde_json::from_str(&timed).map_err(|e| bad("timed lists", e.to_string()));
            let timed = masked_lists(&timed?).map_err(|e| bad("timed lists", e))?;
            let stored: StoredSeconds =
                serde_json::from_str(&seconds).map_err(|e| bad("seconds", e.to_string()))?;
            let mut seconds = BTreeMap::new();
            for (second, row) in stored {
                let second: u64 = second
                    .parse()
                    .map_err(|_| bad("seconds", format!("{second:?} is no second")))?;
                seconds.insert(second, masked_names(&row));
            }
            let mut measurements = Measurements {
                counts,
                seconds,
                histograms: BTreeMap::new(),
                bounds,
                timed,
            };
            for h in self.phase_histograms(id, seq)? {
                measurements
                    .histogram(&h)
                    .map_err(|e| bad("histograms", e))?;
            }
            phases.push(PhaseMeasurements {
                phase,
                measurements,
                kept,
            });
        }
        Ok(phases)
    }

    fn phase_histograms(&self, id: &RunId, seq: i64) -> Result<Vec<SerializedHistogram>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT name, unit, data FROM phase_histograms
             WHERE run_id = ?1 AND seq = ?2 AND encoding = ?3 ORDER BY name",
        )?;
        let rows = stmt.query_map(params![id.0, seq, HISTOGRAM_ENCODING], super::histogram_row)?;
        super::rows_of(id, "a phase's histogram", rows)
    }
}

/// Counts by name, the password of every URL in a name masked (a reason of failure counted
/// by name can quote one: see `store::secrets`); two names masked alike add up.
fn masked_names(counts: &BTreeMap<String, u64>) -> BTreeMap<String, u64> {
    let mut masked = BTreeMap::new();
    for (name, n) in counts {
        let c = masked
            .entry(super::secrets::redacted_text(name))
            .or_insert(0u64);
        *c = c.saturating_add(*n);
    }
    masked
}

/// Timed lists as kept and as read: each checked ([`Timed::check`]: a value JSON cannot hold
/// would leave the phase unreadable), its name and fields masked as a count's name is; two
/// names masked alike are refused rather than one dropped.
fn masked_lists(
    lists: &BTreeMap<String, Timed>,
) -> std::result::Result<BTreeMap<String, Timed>, String> {
    let mut masked = BTreeMap::new();
    for (name, list) in lists {
        list.check(name)?;
        let name = super::secrets::redacted_text(name);
        let list = Timed {
            fields: list
                .fields
                .iter()
                .map(|f| super::secrets::redacted_text(f))
                .collect(),
            rows: list.rows.clone(),
        };
        if masked.insert(name.clone(), list).is_some() {
            return Err(format!("two timed lists are named {name}"));
        }
    }
    Ok(masked)
}

/// Writes one phase's measurements inside `tx`.
pub(super) fn insert_phase(
    tx: &rusqlite::Transaction<'_>,
    id: &str,
    seq: u32,
    phase: &PhaseMeasurements,
) -> Result<()> {
    let m = &phase.measurements;
    let timed = masked_lists(&m.timed)
        .map_err(|e| StoreError::Corrupt(format!("run {id}: phase {}: {e}", phase.phase)))?;
    // A figure that is no finite number (a sum of parts past f64's range) is no figure: every
    // view leaves it out (`Metric::of_figure`), and JSON would keep it as `null`, which no
    // longer reads back as a figure, so neither would the run.
    let mut kept = phase.kept.clone();
    for k in kept.values_mut() {
        k.figures.retain(|_, f| f.value.is_finite());
    }
    let seconds: StoredSeconds = m
        .seconds
        .iter()
        .map(|(s, row)| (s.to_string(), masked_names(row)))
        .collect();
    tx.execute(
        "INSERT OR REPLACE INTO phase_measurements
             (run_id, seq, phase, counts, seconds, kept, bounds, timed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            id,
            seq,
            phase.phase,
            serde_json::to_string(&masked_names(&m.counts))?,
            serde_json::to_string(&seconds)?,
            serde_json::to_string(&super::secrets::redacted(&serde_json::to_value(&kept)?))?,
            serde_json::to_string(&m.bounds)?,
            serde_json::to_string(&timed)?
        ],
    )?;
    tx.execute(
        "DELETE FROM phase_histograms WHERE run_id = ?1 AND seq = ?2",
        params![id, seq],
    )?;
    let mut stmt = tx.prepare_cached(
        "INSERT INTO phase_histograms (run_id, seq, name, unit, encoding, data)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for (name, (unit, h)) in &m.histograms {
        let Some(encoded) = SerializedHistogram::encode(name, unit, h) else {
            return Err(StoreError::Corrupt(format!(
                "run {id}: phase {} histogram {name} cannot be encoded",
                phase.phase
            )));
        };
        stmt.execute(params![
            id,
            seq,
            encoded.name,
            encoded.unit,
            HISTOGRAM_ENCODING,
            encoded.v2_deflate
        ])?;
    }
    Ok(())
}

/// The phases of several processes' parts of one run added up, phase by phase: the n-th
/// phase of a name in one part is added to the n-th of that name in the others (a phase one
/// part has and another has not is kept with what the parts that have it measured), and what
/// each instrument kept around it merged as its figures say ([`Kept::merge`]). The order is
/// the first part's, then any phase only later parts have.
pub fn merge_phases(
    parts: &[&[PhaseMeasurements]],
) -> std::result::Result<Vec<PhaseMeasurements>, String> {
    let mut merged: Vec<PhaseMeasurements> = Vec::new();
    // What each part kept around each merged phase, by instrument.
    let mut kept: Vec<BTreeMap<String, Vec<&Kept>>> = Vec::new();
    // Where each name's merged phases are, in order: found at once however many there are.
    let mut places: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, phases) in parts.iter().enumerate() {
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        for p in phases.iter() {
            let nth = seen.entry(p.phase.as_str()).or_default();
            let at = places.get(&p.phase).and_then(|at| at.get(*nth)).copied();
            *nth += 1;
            let at = match at {
                Some(at) => {
                    merged[at]
                        .measurements
                        .merge(&p.measurements)
                        .map_err(|e| format!("part {}: phase {}: {e}", i + 1, p.phase))?;
                    at
                }
                None => {
                    merged.push(PhaseMeasurements {
                        kept: BTreeMap::new(),
                        ..p.clone()
                    });
                    kept.push(BTreeMap::new());
                    let at = merged.len() - 1;
                    places.entry(p.phase.clone()).or_default().push(at);
                    at
                }
            };
            for (instrument, k) in &p.kept {
                kept[at].entry(instrument.clone()).or_default().push(k);
            }
        }
    }
    for (phase, by_instrument) in merged.iter_mut().zip(kept) {
        phase.kept = by_instrument
            .into_iter()
            .map(|(instrument, parts)| (instrument, Kept::merge(&parts)))
            .collect();
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Kind, NewRun};

    fn phase(name: &str, docs: u64, second: u64, latency: &[u64]) -> PhaseMeasurements {
        let mut m = Measurements::default();
        m.count("indexed", docs);
        m.count_at(second, "docs", docs);
        for v in latency {
            m.record("service", "us", *v);
        }
        PhaseMeasurements {
            phase: name.into(),
            measurements: m,
            kept: BTreeMap::new(),
        }
    }

    /// A count named by what it counts (a reason of failure) can quote a URL: its password
    /// is masked as it is kept and as it is read, and two names masked alike add up.
    #[test]
    fn a_password_in_a_counts_name_is_masked_at_the_stores_door() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("p.db");
        let store = Store::open(&path).unwrap();
        let id = store
            .begin_run(&NewRun::new(Kind::Run, "logs", serde_json::json!({})))
            .unwrap();
        let mut searches = phase("searches", 0, 1_700_000_000, &[]);
        let m = &mut searches.measurements;
        for (password, n) in [("s3cret", 2), ("other", 3)] {
            let reason = format!("error:refused by https://elastic:{password}@es.example:9200");
            m.count(&reason, n);
            m.count_at(1_700_000_000, &reason, n);
        }
        store.put_phase(&id, 0, &searches).unwrap();
        let back = store.phases(&id).unwrap();
        let reasons: Vec<(&String, &u64)> = back[0]
            .measurements
            .counts
            .iter()
            .filter(|(k, _)| k.starts_with("error:"))
            .collect();
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert!(reasons[0].0.contains("es.example") && *reasons[0].1 == 5);
        let second = &back[0].measurements.seconds[&1_700_000_000];
        assert_eq!(second.values().sum::<u64>(), 5);
        drop(store);
        for file in [path.clone(), dir.path().join("p.db-wal")] {
            let bytes = std::fs::read(&file).unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes);
            assert!(
                !text.contains("s3cret") && !text.contains("other@"),
                "{}",
                file.display()
            );
        }
    }

    #[test]
    fn a_runs_phases_round_trip_in_the_order_they_ended() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("p.db")).unwrap();
        let id = store
            .begin_run(&NewRun::new(Kind::Run, "logs", serde_json::json!({})))
            .unwrap();
        assert!(store.phases(&id).unwrap().is_empty());
        let (ingest, query) = (
            phase("ingest", 1000, 1_700_000_000, &[10, 20, 3_000_000]),
            phase("query", 0, 1_700_000_005, &[]),
        );
        store.put_phase(&id, 0, &ingest).unwrap();
        store.put_phase(&id, 1, &query).unwrap();
        // The same phase kept again replaces what it held.
        store.put_phase(&id, 1, &query).unwrap();
        let back = store.phases(&id).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(
            (back[0].phase.as_str(), back[1].phase.as_str()),
            ("ingest", "query")
        );
        let (m, want) = (&back[0].measurements, &ingest.measurements);
        assert_eq!(m.counts, want.counts);
        assert_eq!(m.seconds, want.seconds);
        assert_eq!(m.histograms["service"].0, "us");
        assert_eq!(m.histograms["service"].1, want.histograms["service"].1);
        assert!(back[1].measurements.histograms.is_empty());
        // Deleting the run deletes its phases.
        store.discard_run(&id).unwrap();
        assert!(store.phases(&id).unwrap().is_empty());
    }

    /// A figure an instrument kept that is no finite number (two parts' sums past f64's
    /// range, merged) is left out as it is kept: the run reads back, with its other figures.
    #[test]
    fn a_kept_figure_that_is_no_number_is_left_out_and_the_run_reads_back() {
        use crate::measure::{Better, Figure, Kept};
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path().join("p.db")).unwrap();
        let id = store
            .begin_run(&NewRun::new(Kind::Run, "logs", serde_json::json!({})))
            .unwrap();
        let big = Figure::new("big", "", Better::Lower, 1.7e308);
        let part = Kept {
            figures: [("x".to_string(), big.clone()), ("y".to_string(), big)].into(),
            detail: None,
        };
        let mut merged = Kept::merge(&[&part, &part]);
        merged.figures.get_mut("y").unwrap().value = 2.0;
        assert!(merged.figures["x"].value.is_infinite());
        let mut ingest = phase("ingest", 10, 1_700_000_000, &[10]);
        ingest.kept.insert("gauge".into(), merged);
        store.put_phase(&id, 0, &ingest).unwrap();
        let back = store.phases(&id).expect("the run reads back");
        let figures = &back[0].kept["gauge"].figures;
        assert!(!figures.contains_key("x"), "{figures:?}");
        assert_eq!(figures["y"].value, 2.0);
    }

    #[test]
    fn what_the_instruments_kept_round_trips_and_older_stores_are_migrated() {
        use crate::measure::{Better, Figure};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        {
            // A store as schema 7 left it: a run with a phase and no `kept` column.
            let conn = rusqlite::Connection::open(&path).unwrap();
            for m in &crate::store::MIGRATIONS[..7] {
                conn.execute_batch(m).unwrap();
            }
            conn.execute_batch(
                "PRAGMA user_version = 7;
                 INSERT INTO runs (id, kind, workload, status, started_unix, tool_version,
                                   machine, config, result)
                 VALUES ('0123abcd', 'ingest', 'logs', 'complete', 1700000000, '0.0.1', '{}',
                         '{}', '{\"docs_per_sec\": 5}');
                 INSERT INTO phase_measurements (run_id, seq, phase, counts, seconds)
                 VALUES ('0123abcd', 0, 'ingest', '{\"docs\": 7}', '{}');",
            )
            .unwrap();
        }
        let store = Store::open(&path).unwrap();
        let old = RunId("0123abcd".into());
        let back = store.phases(&old).unwrap();
        assert_eq!(
            back[0].measurements.counts["docs"], 7,
            "kept through the migration"
        );
        assert!(back[0].kept.is_empty());
        // A phase kept now keeps each instrument's figures and detail.
        let mut p = phase("ingest", 10, 100, &[5]);
        let kept = Kept {
            figures: [(
                "wait".to_string(),
                Figure::new("time waited", "ms", Better::Lower, 1.5),
            )]
            .into(),
            detail: Some(serde_json::json!({"note": "x"})),
        };
        p.kept.insert("gauge".into(), kept.clone());
        // And what merges by the least or the most of the parts (schema 9).
        p.measurements.least("began_unix_us", 3);
        p.measurements.most("ended_unix_us", 9);
        // And what is timed on the wall clock (schema 12).
        p.measurements.at("done", &["docs"], 5, &[2.5]).unwrap();
        store.put_phase(&old, 1, &p).unwrap();
        let back = store.phases(&old).unwrap();
        assert_eq!(back[1].kept["gauge"], kept);
        assert_eq!(back[1].measurements.bounds, p.measurements.bounds);
        assert_eq!(back[1].measurements.timed, p.measurements.timed);
        assert!(back[0].measurements.bounds.is_empty());
        assert!(back[0].measurements.timed.is_empty());
        // A value JSON cannot hold is refused as the phase is kept, not kept unreadable.
        let mut nan = p.clone();
        nan.measurements
            .at("done", &["docs"], 6, &[f64::NAN])
            .unwrap();
        let refused = store.put_phase(&old, 2, &nan).unwrap_err().to_string();
        assert!(refused.contains("timed list done"), "{refused}");
        // A stored row shorter than its fields is named as the phase is read.
        store
            .conn
            .execute(
                "UPDATE phase_measurements SET timed = '{\"done\": {\"fields\": [\"docs\"], \"rows\": [[7, []]]}}' WHERE seq = 1",
                [],
            )
            .unwrap();
        let err = store.phases(&old).unwrap_err().to_string();
        assert!(
            err.contains("phase 1 (ingest)") && err.contains("at 7 µs"),
            "{err}"
        );
        store.put_phase(&old, 1, &p).unwrap();
        // A kept value that does not read is an error naming the run and the phase.
        store
            .conn
            .execute(
                "UPDATE phase_measurements SET kept = '{\"gauge\": 3}' WHERE seq = 1",
                [],
            )
            .unwrap();
        let err = store.phases(&old).unwrap_err().to_string();
        assert!(
            err.contains("0123abcd") && err.contains("phase 1 (ingest)"),
            "{err}"
        );
    }

    #[test]
    fn parts_add_up_phase_by_phase_whatever_their_order() {
        let a = vec![
            phase("ingest", 600, 100, &[10, 30]),
            phase("task", 1, 101, &[5]),
            phase("task", 2, 102, &[6]),
        ];
        let b = vec![
            phase("ingest", 400, 100, &[20]),
            phase("task", 10, 101, &[7]),
            phase("only-here", 3, 103, &[]),
        ];
        let merged = merge_phases(&[&a, &b]).unwrap();
        let names: Vec<&str> = merged.iter().map(|p| p.phase.as_str()).collect();
        assert_eq!(names, ["ingest", "task", "task", "only-here"]);
        let m = &merged[0].measurements;
        assert_eq!(m.counts["indexed"], 1000);
        assert_eq!(m.seconds[&100]["docs"], 1000);
        assert_eq!(m.histograms["service"].1.len(), 3);
        // The n-th task of one part with the n-th of the other.
        assert_eq!(merged[1].measurements.counts["indexed"], 11);
        assert_eq!(merged[2].measurements.counts["indexed"], 2);
        let swapped = merge_phases(&[&b, &a]).unwrap();
        let ingest = swapped.iter().find(|p| p.phase == "ingest").unwrap();
        assert_eq!(ingest.measurements.counts, m.counts);
        assert_eq!(ingest.measurements.seconds, m.seconds);
        // What the instruments kept is merged as each figure says.
        let with = |v: f64| {
            let mut p = phase("ingest", 1, 100, &[]);
            let f = crate::measure::Figure::new("peak", "MB", crate::measure::Better::Lower, v)
                .merged_by(crate::measure::Merge::Max);
            p.kept.insert(
                "gauge".into(),
                Kept {
                    figures: [("peak".to_string(), f)].into(),
                    detail: None,
                },
            );
            p
        };
        let merged =
            merge_phases(&[&[with(3.0)], &[with(8.0)], &[phase("ingest", 1, 100, &[])]]).unwrap();
        assert_eq!(merged[0].kept["gauge"].figures["peak"].value, 8.0);
        assert_eq!(merged[0].measurements.counts["indexed"], 3);
        // Histograms that disagree on their unit are refused, naming the part and phase.
        let mut ms = phase("ingest", 1, 100, &[]);
        ms.measurements.record("service", "ms", 1);
        let err = merge_phases(&[&a, &[ms]]).unwrap_err();
        assert!(err.contains("part 2: phase ingest"), "{err}");
    }
}
