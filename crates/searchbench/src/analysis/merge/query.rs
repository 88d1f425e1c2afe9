//! The query result of a group, from its parts' query results: each part measured its share
//! of every variant's coverages, so a cell of the group is the cell of every part together
//! (coverage samples joined, service, latency and overhead histograms added, errors and wrong
//! answers summed), and every figure (the cells' statistics, the transports' savings, the
//! profile's overhead) is derived again from them, as one process derives its own.

use serde_json::json;

use super::{KindMerge, PartRun};
use crate::measure::Measurements;
use crate::query::accuracy::VariantAccuracy;
use crate::query::cells::{add_error_kinds, cell_result, CellResult, ErrorKind};
use crate::query::report::{attributed_took, derived, QueryResult};
use crate::query::{Transport, Variant};
use crate::store::{Parts, QUERY};

/// The most wrong answers a result lists (as one run keeps them).
const FAILURES_LISTED: usize = 50;
/// The most error examples a cell keeps (as one run keeps them).
const EXAMPLES: usize = 5;

/// The name a cell's histogram (`service`, `latency`, `overhead`) is kept under.
fn histogram_name(variant: &Variant, transport: Transport, h: &str) -> String {
    format!("query:{}:{}:{h}", variant.name(), transport.name())
}

/// The cells' histograms of every part, added (none when a part measured none).
fn added_histograms(parts: &[(&PartRun, QueryResult)]) -> Result<Measurements, String> {
    let every = super::phase_of_every_part(parts.iter().map(|(p, _)| *p), QUERY)?;
    Ok(every.unwrap_or_default())
}

/// The cells of all parts joined, cell by cell, in the order the first part lists them.
/// `added`: the parts' histograms of the cells, added (none for the profile pass's cells,
/// whose histograms are not kept).
fn join_cells(
    parts: &[(&PartRun, QueryResult)],
    cells_of: fn(&QueryResult) -> &[CellResult],
    added: &Measurements,
) -> Result<Vec<CellResult>, String> {
    let cells = parts.iter().flat_map(|(_, r)| cells_of(r));
    let order = super::first_seen(cells.map(|c| (c.variant.clone(), c.transport)));
    let mut joined = Vec::new();
    for (variant, transport) in order {
        let mut samples = Vec::new();
        let (mut errors, mut examples) = (0, Vec::new());
        let mut kinds: Vec<ErrorKind> = Vec::new();
        let mut paced = false;
        for (_, r) in parts {
            let Some(c) = cells_of(r)
                .iter()
                .find(|c| c.variant == variant && c.transport == transport)
            else {
                continue;
            };
            samples.extend(c.samples.iter().cloned());
            errors += c.errors;
            examples.extend(c.error_examples.iter().cloned());
            add_error_kinds(&mut kinds, &c.error_kinds);
            paced |= c.latency_ms.is_some();
        }
        examples.truncate(EXAMPLES);
        samples.sort_by_key(|s| (s.pass, s.epoch));
        let empty = crate::measure::recorder::histogram();
        let [service, latency, overhead] = ["service", "latency", "overhead"].map(|name| {
            added
                .histograms
                .get(&histogram_name(&variant, transport, name))
                .map_or(&empty, |(_, h)| h)
        });
        joined.push(cell_result(
            variant, transport, samples, errors, examples, kinds, service, latency, overhead, paced,
        ));
    }
    Ok(joined)
}

/// One variant's accuracy over every part's answers (each part's list of variants).
fn join_accuracy<'a>(parts: impl Iterator<Item = &'a [VariantAccuracy]>) -> Vec<VariantAccuracy> {
    let mut joined: Vec<VariantAccuracy> = Vec::new();
    for listed in parts {
        // A part checks a variant once: one it lists twice is counted once.
        for v in super::first_seen(listed.iter().map(|a| &a.variant)) {
            let Some(a) = listed.iter().find(|a| &a.variant == v) else {
                continue;
            };
            match joined.iter_mut().find(|x| x.variant == a.variant) {
                Some(have) => have.add(a),
                None => joined.push(a.clone()),
            }
        }
    }
    joined
}

/// Merges the chosen parts (one per part index, sorted) of a group of `of` parts.
pub fn merge(chosen: &[&PartRun]) -> Result<KindMerge, String> {
    let parts: Vec<(&PartRun, QueryResult)> = super::results_as(chosen, "a query result")?;
    let Some((_, first)) = parts.first() else {
        return Err("no part has a result (each was killed before it ended)".into());
    };
    let cells = join_cells(&parts, |r| &r.cells, &added_histograms(&parts)?)?;
    // The profile pass's histograms are not stored: its cells join on their samples.
    let none = Measurements::default();
    let profile_cells = join_cells(&parts, |r| &r.profile_cells, &none)?;
    let variants = super::first_seen(cells.iter().map(|c| c.variant.clone()));
    let (savings, profile_overhead) = derived(&variants, &cells, &profile_cells);
    let attribution = crate::workload::find(&first.workload)
        .map_or_else(Vec::new, |w| w.attribution(&attributed_took(&cells)));
    let mut failures: Vec<String> = parts
        .iter()
        .flat_map(|(p, r)| {
            r.failures
                .iter()
                .map(move |f| format!("part {}: {f}", p.part))
        })
        .collect();
    failures.truncate(FAILURES_LISTED);
    let rates: Vec<f64> = parts.iter().filter_map(|(_, r)| r.rate).collect();
    let merged = QueryResult {
        workload: first.workload.clone(),
        engine: parts.iter().find_map(|(_, r)| r.engine.clone()),
        index: first.index.clone(),
        passes: first.passes,
        warmup_coverages: parts.iter().map(|(_, r)| r.warmup_coverages).sum(),
        coverages: first.coverages,
        partitions: first.partitions,
        shuffle_seed: first.shuffle_seed,
        rate: (rates.len() == parts.len()).then(|| rates.iter().sum()),
        clients: parts.iter().map(|(_, r)| r.clients).sum(),
        rtt: first.rtt,
        // The parts measure side by side (`--start-at`): the longest part's.
        measured_secs: parts
            .iter()
            .map(|(_, r)| r.measured_secs)
            .fold(0.0, f64::max),
        cells,
        savings,
        attribution,
        profile_cells,
        profile_overhead,
        // `--cold` is refused with `--part`: closing the index would fail the other parts.
        cold_cells: Vec::new(),
        cold: None,
        // So is `--beside-idle`: the writes would pause for one part's idle halves only.
        write_cells: Vec::new(),
        // So is `--shards`: the parts would each make the copies.
        shards: Vec::new(),
        accuracy: join_accuracy(parts.iter().map(|(_, r)| r.accuracy.as_slice())),
        accuracy_checked: parts.iter().all(|(_, r)| r.accuracy_checked),
        failures_total: parts.iter().map(|(_, r)| r.failures_total).sum(),
        failures,
        drift: None,
        described: first.described.clone(),
        telemetry: None,
        profile: None,
        // Each part ran on its own machine: its background is its own run's.
        background: None,
        measured_from: None,
        interrupted: parts.iter().any(|(_, r)| r.interrupted),
        rewrites: crate::query::rewrites::merged(parts.iter().map(|(_, r)| r.rewrites.as_ref())),
    };
    let failed = (!merged.passed() && !merged.interrupted).then(|| {
        format!(
            "{} wrong answer(s), {} failed request(s)",
            merged.failures_total,
            merged.request_errors()
        )
    });
    let histograms = merged.histograms();
    let each = super::each_of(
        chosen,
        parts.iter().map(|(p, r)| (*p, r)),
        |r: Option<&QueryResult>| {
            json!({
                "coverages_measured": r.map(|r| (r.cells.iter().map(|c| c.coverages)).fold(0usize, usize::saturating_add)),
                "search_clients": r.map(|r| r.clients),
                "measured_secs": r.map(|r| r.measured_secs),
                "failures_total": r.map(|r| r.failures_total),
            })
        },
    );
    let result = serde_json::to_value(&merged).map_err(|e| e.to_string())?;
    Ok(KindMerge {
        result,
        histograms,
        timeline: Vec::new(),
        failed,
        parts: Parts {
            each,
            ..Parts::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A variant is counted once per part, however often a part lists it: a made-up part
    /// listing it again and again neither counts its answers twice nor overflows the sum.
    #[test]
    fn a_variant_a_part_lists_twice_is_counted_once() {
        let row = |answers: u64| {
            let mut a = VariantAccuracy::new(Variant::new("C_td"), Vec::new());
            a.answers = answers;
            a.count_wrong = 1;
            a
        };
        let most = super::super::exact::MOST;
        let one = vec![row(most); 4_000];
        let other = vec![row(most), row(7)];
        let joined = join_accuracy([one.as_slice(), other.as_slice()].into_iter());
        assert_eq!(joined.len(), 1);
        assert_eq!((joined[0].answers, joined[0].count_wrong), (2 * most, 2));
    }
}
