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

/// How long a document may take to become searchable: at least a second (the probe looks
/// every 50 ms), at most a day.
pub fn parse_bound(s: &str) -> Result<std::time::Duration, String> {
    let d = parse_duration(s)?;
    if d < std::time::Duration::from_secs(1) || d > std::time::Duration::from_secs(86_400) {
        return Err(format!(
            "{s:?}: the bound on time to searchable is 1s to 24h"
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

/// A count of things (documents, rows): `200000`, `200_000`, or with a decimal SI suffix,
/// `200k`, `1.5m`, `2g` (thousands, millions, billions; a fraction must come out whole).
pub fn parse_count(s: &str) -> Result<u64, String> {
    let bad = || format!("{s:?} is not a count; give e.g. 200000, 200k or 1.5m");
    let text = s.trim().to_ascii_lowercase().replace('_', "");
    let (number, mult) = match text.char_indices().last() {
        Some((i, 'k')) => (&text[..i], 1e3),
        Some((i, 'm')) => (&text[..i], 1e6),
        Some((i, 'g' | 'b')) => (&text[..i], 1e9),
        Some(_) => (text.as_str(), 1.0),
        None => return Err(bad()),
    };
    if mult == 1.0 {
        return number.parse::<u64>().map_err(|_| bad());
    }
    let value: f64 = number.parse().map_err(|_| bad())?;
    let n = value * mult;
    if !(n.is_finite() && n >= 0.0 && n <= u64::MAX as f64) {
        return Err(bad());
    }
    if n.fract() != 0.0 {
        return Err(format!("{s:?} is not a whole count"));
    }
    Ok(n as u64)
}

/// A count of at least one (see [`parse_count`]).
pub fn parse_positive_count(s: &str) -> Result<u64, String> {
    match parse_count(s)? {
        0 => Err(format!("{s:?}: give at least 1")),
        n => Ok(n),
    }
}

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

/// A percentage as given to --threshold: `5%` or `2.5` → 5.0 or 2.5 (percent points).
pub fn parse_percent(s: &str) -> Result<f64, String> {
    let t = s.trim().trim_end_matches('%').trim();
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{s:?} is not a percentage; use e.g. 5% or 2.5")),
    }
}

/// The chance of a false verdict, as given to --alpha: `5%` or `5` → 0.05; more than 0 % and
/// at most 50 %.
pub fn parse_alpha(s: &str) -> Result<f64, String> {
    let pct = parse_percent(s)?;
    if pct > 0.0 && pct <= 50.0 {
        Ok(pct / 100.0)
    } else {
        Err(format!(
            "{s:?}: the chance of a false verdict is more than 0 % and at most 50 %, e.g. 5%"
        ))
    }
}

/// A file to read, as a flag's value: one that does not exist, or is a folder, is bad usage
/// (exit 2) naming the flag and the path, before anything starts.
pub fn input_file(s: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(s);
    match std::fs::metadata(&path) {
        Ok(m) if m.is_dir() => Err(format!("{s} is a folder, not a file")),
        Ok(_) => Ok(path),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!("{s}: No such file")),
        Err(e) => Err(format!("{s}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_take_si_suffixes_and_separators() {
        assert_eq!(parse_count("200000"), Ok(200_000));
        assert_eq!(parse_count("200_000"), Ok(200_000));
        assert_eq!(parse_count("200k"), Ok(200_000));
        assert_eq!(parse_count("10K"), Ok(10_000));
        assert_eq!(parse_count("1.5m"), Ok(1_500_000));
        assert_eq!(parse_count("2g"), Ok(2_000_000_000));
        assert_eq!(parse_count("0"), Ok(0));
        assert!(parse_count("1.5").is_err());
        assert!(parse_count("1.0005k").is_err(), "not whole");
        assert!(parse_count("-3k").is_err());
        assert!(parse_count("ten").is_err());
        assert!(parse_count("").is_err());
        assert!(parse_positive_count("0").is_err());
    }

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
        assert_eq!(
            parse_duration("24h"),
            Ok(std::time::Duration::from_secs(86_400))
        );
        assert_eq!(
            parse_duration("90d"),
            Ok(std::time::Duration::from_secs(90 * 86_400))
        );
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("5").is_err());
        assert!(parse_interval("500ms")
            .unwrap_err()
            .contains("at most once a second"));
        assert_eq!(parse_interval("2s"), Ok(std::time::Duration::from_secs(2)));
    }
}
