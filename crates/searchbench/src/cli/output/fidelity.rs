//! `generate --mapping --fidelity`: how close the synthesized corpus is to the real one.

/// The fidelity report as a table: each field, real → synthesized.
pub fn table(rows: &[crate::corpus::synth::fidelity::Row], real: &std::path::Path) -> String {
    use crate::corpus::synth::fidelity::{CARDINALITY, QUANTILES};
    let mut t = super::table([
        "field",
        "missing",
        "cardinality",
        "top share",
        "p50",
        "error",
        "",
    ]);
    let pair = |a: f64, b: f64| format!("{a:.3} → {b:.3}");
    for r in rows {
        let p50 = match (r.real.quantiles, r.synthesized.quantiles) {
            (Some(a), Some(b)) => format!("{} {:.0} → {:.0}", r.of, a[1], b[1]),
            _ => "–".into(),
        };
        t.add_row(vec![
            r.field.clone(),
            pair(r.real.missing, r.synthesized.missing),
            format!(
                "{} → {} (×{:.2})",
                r.real.cardinality, r.synthesized.cardinality, r.cardinality_ratio
            ),
            pair(r.real.top_share, r.synthesized.top_share),
            p50,
            r.quantile_error
                .map_or("–".into(), |e| format!("{:.1} %", e * 100.0)),
            if r.within { "within" } else { "OUTSIDE" }.into(),
        ]);
    }
    let outside = rows.iter().filter(|r| !r.within).count();
    format!(
        "fidelity against {} ({} docs a side): {} of {} fields within cardinality ±{:.0} % and \
         quantiles ±{:.0} %\n{t}",
        real.display(),
        rows.first().map_or(0, |r| r.real.docs),
        rows.len() - outside,
        rows.len(),
        CARDINALITY * 100.0,
        QUANTILES * 100.0
    )
}
