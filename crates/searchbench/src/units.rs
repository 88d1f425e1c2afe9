//! Values the user writes as text in flags and files: durations.

/// `10s`, `500ms`, `2m`, `0`.
pub fn parse_duration(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim().to_ascii_lowercase();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: f64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a duration; use e.g. 10s, 500ms, 1m or 0"))?;
    let secs = match unit.trim() {
        "" if n == 0.0 => 0.0,
        "s" | "sec" | "secs" => n,
        "ms" => n / 1000.0,
        "m" | "min" => n * 60.0,
        _ => {
            return Err(format!(
                "{s:?} is not a duration; use e.g. 10s, 500ms, 1m or 0"
            ))
        }
    };
    std::time::Duration::try_from_secs_f64(secs).map_err(|e| format!("{s:?}: {e}"))
}
