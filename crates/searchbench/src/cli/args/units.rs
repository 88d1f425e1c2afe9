//! Parsers for the values flags take: rates, durations, sizes.

/// A telemetry interval: a duration of at least a second (samples are filed by second).
pub fn parse_interval(s: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(s)?;
    if d < std::time::Duration::from_secs(1) {
        return Err(format!(
            "{s:?} is too short: telemetry samples at most once a second (use 1s or more)"
        ));
    }
    Ok(d)
}

/// A positive rate, e.g. `5000` or `2.5`.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    let rate: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("{s:?} is not a rate; give a positive number, e.g. 5000"))?;
    crate::measure::schedule::check_rate(rate)
}

pub use crate::units::parse_duration;

pub fn parse_size(s: &str) -> Result<usize, String> {
    let lower = s.trim().to_ascii_lowercase();
    let split = lower
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (digits, unit) = lower.split_at(split);
    let mult: usize = match unit.trim() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("{s:?} is not a size; use e.g. 512kb or 5mb")),
    };
    match digits.parse::<usize>() {
        Ok(n) if n > 0 => n
            .checked_mul(mult)
            .ok_or_else(|| format!("{s:?} is too large")),
        _ => Err(format!("{s:?} is not a size; use e.g. 512kb or 5mb")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("5mb"), Ok(5 << 20));
        assert_eq!(parse_size("512KB"), Ok(512 << 10));
        assert_eq!(parse_size("100"), Ok(100));
        assert!(parse_size("0").is_err());
        assert!(parse_size("5 parsecs").is_err());
    }

    #[test]
    fn durations_parse() {
        assert_eq!(
            parse_duration("10s"),
            Ok(std::time::Duration::from_secs(10))
        );
        assert_eq!(
            parse_duration("500ms"),
            Ok(std::time::Duration::from_millis(500))
        );
        assert_eq!(parse_duration("0"), Ok(std::time::Duration::ZERO));
        assert_eq!(parse_duration("1m"), Ok(std::time::Duration::from_secs(60)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5").is_err());
        assert!(parse_interval("500ms")
            .unwrap_err()
            .contains("at most once a second"));
        assert_eq!(parse_interval("2s"), Ok(std::time::Duration::from_secs(2)));
    }
}
