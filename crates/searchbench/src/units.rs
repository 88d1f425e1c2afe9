//! Values the user writes as text in flags and files: durations.

/// `10s`, `500ms`, `2m`, `24h`, `90d`, `0`.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration; use e.g. 10s, 500ms, 1m, 24h, 90d or 0"))?;
    let secs = match unit.trim() {
        "" if n == 0.0 => 0.0,
        "s" | "sec" | "secs" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        "h" => n * 3600.0,
        "d" => n * 86_400.0,
        _ => {
            return Err(format!(
                "{s:?} is not a duration; use e.g. 10s, 500ms, 1m, 24h, 90d or 0"
            ))
        }
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}"))
}

/// A metric's value for a table: a count (of errors) as a whole number, a measure with
/// [`format_value`]. (A group's count is a mean over runs, so it may have a fraction.)
pub fn format_metric(count: bool, v: f64) -> String {
    if count && v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format_value(v)
    }
}

/// A number with sensible precision for tables.
pub fn format_value(v: f64) -> String {
    let a = v.abs();
    // Past any figure a run makes (a made-up result's 1e308): short, so a table still fits.
    if a >= 1e15 {
        format!("{v:.3e}")
    } else if a >= 1000.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_past_any_runs_figure_is_short_enough_for_a_table() {
        assert_eq!(format_value(1e308), "1.000e308");
        assert_eq!(format_value(-2.5e15), "-2.500e15");
        assert_eq!(format_value(999_999_999_999_999.0), "999999999999999");
        assert_eq!(format_value(12.34), "12.3");
    }
}
