//! Byte-level writers for the generators' hot path: digits without `fmt`, timestamps
//! formatted incrementally, JSON string escaping. Everything appends to a `Vec<u8>` the
//! caller owns, so producing a document allocates nothing once the buffer has grown.

use super::CorpusError;

/// Appends the decimal digits of `v` (no `fmt`, no allocation).
#[inline(always)]
pub fn push_u64(out: &mut Vec<u8>, v: u64) {
    let mut buf = itoa::Buffer::new();
    out.extend_from_slice(buf.format(v).as_bytes());
}

/// Appends `v` zero-padded to exactly `width` digits (`v` must fit).
#[inline(always)]
pub fn push_padded(out: &mut Vec<u8>, mut v: u64, width: usize) {
    let start = out.len();
    out.resize(start + width, b'0');
    let digits = &mut out[start..];
    for d in digits.iter_mut().rev() {
        *d = b'0' + (v % 10) as u8;
        v /= 10;
    }
}

/// Appends `scaled / 10^decimals` with exactly `decimals` decimals, e.g. (1234, 2) → `12.34`.
/// Writing fixed decimals from an integer is what keeps generated floats reproducible: the
/// text is exact, and its nearest `f32`/`f64` is well defined.
#[inline(always)]
pub fn push_fixed(out: &mut Vec<u8>, scaled: u64, decimals: u32) {
    let p = 10u64.pow(decimals);
    push_u64(out, scaled / p);
    out.push(b'.');
    push_padded(out, scaled % p, decimals as usize);
}

/// Same as [`push_fixed`] for a signed value.
#[inline(always)]
pub fn push_fixed_signed(out: &mut Vec<u8>, scaled: i64, decimals: u32) {
    if scaled < 0 {
        out.push(b'-');
    }
    push_fixed(out, scaled.unsigned_abs(), decimals);
}

/// Days since 1970-01-01 → (year, month 1..=12, day 1..=31), proleptic Gregorian
/// (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) → days since 1970-01-01 (inverse of [`civil_from_days`]).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = m as i64;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// Formats epoch milliseconds as `YYYY-MM-DDTHH:MM:SS` (and the syslog `Mon DD HH:MM:SS`),
/// recomputing the calendar only when the second changes: consecutive documents are mostly
/// in the same second, so the common case is a 19-byte copy plus three millisecond digits.
#[derive(Debug, Clone)]
pub struct TsCache {
    second: i64,
    iso: [u8; 19],
    syslog: [u8; 15],
}

impl Default for TsCache {
    fn default() -> Self {
        TsCache {
            second: i64::MIN,
            iso: [b'0'; 19],
            syslog: [b' '; 15],
        }
    }
}

impl TsCache {
    #[inline(always)]
    fn set(&mut self, second: i64) {
        if second == self.second {
            return;
        }
        self.second = second;
        let days = second.div_euclid(86_400);
        let sod = second.rem_euclid(86_400) as u64;
        let (y, m, d) = civil_from_days(days);
        let mut iso = [0u8; 19];
        let put2 = |dst: &mut [u8], v: u64| {
            dst[0] = b'0' + (v / 10) as u8;
            dst[1] = b'0' + (v % 10) as u8;
        };
        let y = y.clamp(0, 9999) as u64;
        iso[0] = b'0' + (y / 1000) as u8;
        iso[1] = b'0' + (y / 100 % 10) as u8;
        iso[2] = b'0' + (y / 10 % 10) as u8;
        iso[3] = b'0' + (y % 10) as u8;
        iso[4] = b'-';
        put2(&mut iso[5..7], m as u64);
        iso[7] = b'-';
        put2(&mut iso[8..10], d as u64);
        iso[10] = b'T';
        put2(&mut iso[11..13], sod / 3600);
        iso[13] = b':';
        put2(&mut iso[14..16], sod / 60 % 60);
        iso[16] = b':';
        put2(&mut iso[17..19], sod % 60);
        self.iso = iso;
        let mut sys = [b' '; 15];
        sys[0..3].copy_from_slice(MONTHS[(m - 1) as usize]);
        sys[4..6].copy_from_slice(&iso[8..10]);
        sys[7..15].copy_from_slice(&iso[11..19]);
        self.syslog = sys;
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    #[inline(always)]
    pub fn push_iso_ms(&mut self, out: &mut Vec<u8>, ms: i64) {
        self.set(ms.div_euclid(1000));
        out.extend_from_slice(&self.iso);
        out.push(b'.');
        push_padded(out, ms.rem_euclid(1000) as u64, 3);
        out.push(b'Z');
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` for `ms` plus `sub_ms_ns` nanoseconds.
    #[inline(always)]
    pub fn push_iso_ns(&mut self, out: &mut Vec<u8>, ms: i64, sub_ms_ns: u32) {
        self.set(ms.div_euclid(1000));
        out.extend_from_slice(&self.iso);
        out.push(b'.');
        push_padded(
            out,
            ms.rem_euclid(1000) as u64 * 1_000_000 + sub_ms_ns as u64 % 1_000_000,
            9,
        );
        out.push(b'Z');
    }

    /// Appends the syslog-style `Mon DD HH:MM:SS` of the second containing `ms`.
    #[inline(always)]
    pub fn push_syslog(&mut self, out: &mut Vec<u8>, ms: i64) {
        self.set(ms.div_euclid(1000));
        out.extend_from_slice(&self.syslog);
    }
}

/// Appends `s` as a JSON string (quotes included), escaping what JSON requires.
pub fn push_json_str(out: &mut Vec<u8>, s: &[u8]) {
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        let esc: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => b"",
            _ => continue,
        };
        out.extend_from_slice(&s[start..i]);
        if esc.is_empty() {
            out.extend_from_slice(b"\\u00");
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 15) as usize]);
        } else {
            out.extend_from_slice(esc);
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
    out.push(b'"');
}

/// Parses a start time: `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS[.fff]Z`, UTC, to epoch ms.
pub fn parse_start(s: &str) -> Result<i64, CorpusError> {
    let bad = || {
        CorpusError::Invalid(format!(
            "start time {s:?}: expected YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fff]Z (UTC)"
        ))
    };
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Result<i64, CorpusError> {
        let part = b.get(r).ok_or_else(bad)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return Err(bad());
        }
        Ok(part.iter().fold(0i64, |a, &d| a * 10 + (d - b'0') as i64))
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    let mut ms = days_from_civil(y, m as u32, d as u32) * 86_400_000;
    if b.len() == 10 {
        return Ok(ms);
    }
    if b.len() < 20 || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[b.len() - 1] != b'Z' {
        return Err(bad());
    }
    let (h, mi, se) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if h > 23 || mi > 59 || se > 59 {
        return Err(bad());
    }
    ms += (h * 3600 + mi * 60 + se) * 1000;
    if b.len() > 20 {
        if b[19] != b'.' || b.len() == 21 {
            return Err(bad());
        }
        let frac = &b[20..b.len() - 1];
        if !frac.iter().all(u8::is_ascii_digit) {
            return Err(bad());
        }
        let mut f = 0i64;
        for i in 0..3 {
            f = f * 10 + frac.get(i).map_or(0, |d| (d - b'0') as i64);
        }
        ms += f;
    }
    Ok(ms)
}

/// Parses a duration like `1d`, `12h`, `30m`, `45s`, `500ms` to milliseconds (> 0).
pub fn parse_duration_ms(s: &str) -> Result<u64, CorpusError> {
    let bad = || {
        CorpusError::Invalid(format!(
            "duration {s:?}: expected a positive number with a unit: ms, s, m, h, d (e.g. 1d, 6h)"
        ))
    };
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    let n: u64 = s[..digits].parse().map_err(|_| bad())?;
    let unit = match &s[digits..] {
        "ms" => 1,
        "s" => 1000,
        "m" => 60_000,
        "h" => 3_600_000,
        "d" => 86_400_000,
        _ => return Err(bad()),
    };
    match n.checked_mul(unit) {
        Some(v) if v > 0 => Ok(v),
        _ => Err(bad()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip_and_known_dates() {
        for days in [-1000i64, 0, 19_358, 60_000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(19_358), (2023, 1, 1));
    }

    #[test]
    fn timestamps() {
        let mut c = TsCache::default();
        let mut out = Vec::new();
        let ms = parse_start("2023-11-04T21:57:58.605Z").unwrap();
        c.push_iso_ms(&mut out, ms);
        out.push(b' ');
        c.push_syslog(&mut out, ms);
        out.push(b' ');
        c.push_iso_ns(&mut out, ms, 716_183);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "2023-11-04T21:57:58.605Z Nov 04 21:57:58 2023-11-04T21:57:58.605716183Z"
        );
        assert!(parse_start("2023-13-01").is_err());
        assert_eq!(parse_duration_ms("1d").unwrap(), 86_400_000);
        assert!(parse_duration_ms("0s").is_err());
        assert!(parse_duration_ms("5x").is_err());
    }

    #[test]
    fn fixed_and_escape() {
        let mut out = Vec::new();
        push_fixed(&mut out, 1205, 2);
        out.push(b' ');
        push_fixed_signed(&mut out, -5, 6);
        out.push(b' ');
        push_json_str(&mut out, b"a\"b\\c\x01");
        assert_eq!(out, b"12.05 -0.000005 \"a\\\"b\\\\c\\u0001\"");
    }
}
