//! A date field's format, both ways: the values of a sample read as instants, and instants
//! written as the mapping says. The first of the mapping's `||` formats that can be written is
//! the one written; every one of them is tried when reading. Formats: `epoch_millis`,
//! `epoch_second`, the ISO ones (`strict_date_optional_time`, `date_optional_time`,
//! `strict_date_time`, the default), and patterns of `yyyy`/`uuuu`, `MM`, `dd`, `HH`, `mm`,
//! `ss`, `SSS` with literal separators and quoted text (`yyyy-MM-dd HH:mm:ss`,
//! `yyyy-MM-dd'T'HH:mm:ss`).

use std::fmt::Write as _;

use crate::corpus::text::{civil_from_days as civil, days_from_civil as days};

/// One format.
#[derive(Debug, Clone, PartialEq)]
pub enum One {
    EpochMillis,
    EpochSecond,
    /// `2024-01-02T03:04:05.678Z`.
    Iso,
    Pattern(Vec<Token>),
}

/// A piece of a pattern.
#[derive(Debug, Clone, PartialEq)]
pub enum Token {
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    Millis,
    Literal(String),
}

/// A date field's formats: the first is written, all are read.
#[derive(Debug, Clone, PartialEq)]
pub struct DateFormat(pub Vec<One>);

impl DateFormat {
    /// The formats of a mapping's `format` (the default when none).
    pub fn of(format: Option<&str>) -> Result<DateFormat, String> {
        let text = format.unwrap_or("strict_date_optional_time||epoch_millis");
        let mut all = Vec::new();
        for name in text.split("||") {
            all.push(one(name.trim())?);
        }
        Ok(DateFormat(all))
    }

    /// `millis` (since the epoch, UTC) as the first format writes it: JSON, quoted or not.
    pub fn write(&self, millis: i64, out: &mut Vec<u8>) {
        self.write_as(0, millis, out)
    }

    /// `millis` as the format at `at` of the list writes it (the first when out of range).
    pub fn write_as(&self, at: usize, millis: i64, out: &mut Vec<u8>) {
        match self.0.get(at).or(self.0.first()) {
            Some(One::EpochMillis) => {
                out.extend_from_slice(itoa::Buffer::new().format(millis).as_bytes())
            }
            Some(One::EpochSecond) => out.extend_from_slice(
                itoa::Buffer::new()
                    .format(millis.div_euclid(1000))
                    .as_bytes(),
            ),
            Some(One::Pattern(tokens)) => {
                out.push(b'"');
                out.extend_from_slice(pattern(tokens, millis).as_bytes());
                out.push(b'"');
            }
            Some(One::Iso) | None => {
                out.push(b'"');
                out.extend_from_slice(iso(millis).as_bytes());
                out.push(b'"');
            }
        }
    }

    /// A sample's value as millis: a number for the epoch formats, text for the others, each
    /// format tried in turn.
    pub fn read(&self, value: &serde_json::Value) -> Option<i64> {
        self.read_which(value).map(|(millis, _)| millis)
    }

    /// [`DateFormat::read`], with the position in the list of the format that read it.
    pub fn read_which(&self, value: &serde_json::Value) -> Option<(i64, usize)> {
        self.0.iter().enumerate().find_map(|(at, f)| {
            match (f, value) {
                (One::EpochMillis, v) => number(v),
                (One::EpochSecond, v) => number(v).and_then(|s| s.checked_mul(1000)),
                (One::Iso, serde_json::Value::String(s)) => {
                    isodate::parse_strict_date_optional_time(s.as_bytes())
                        .ok()
                        .and_then(|i| i.to_epoch_millis())
                }
                (One::Pattern(t), serde_json::Value::String(s)) => parse_pattern(t, s),
                _ => None,
            }
            .map(|millis| (millis, at))
        })
    }
}

/// A number, or a string of digits (epoch formats take both).
fn number(v: &serde_json::Value) -> Option<i64> {
    match v {
        serde_json::Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
        serde_json::Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

fn one(name: &str) -> Result<One, String> {
    Ok(match name {
        "epoch_millis" => One::EpochMillis,
        "epoch_second" => One::EpochSecond,
        "strict_date_optional_time"
        | "date_optional_time"
        | "strict_date_time"
        | "date_time"
        | "strict_date_optional_time_nanos" => One::Iso,
        pattern if pattern.chars().any(|c| c.is_ascii_alphabetic()) => {
            One::Pattern(tokens(pattern)?)
        }
        other => {
            return Err(format!(
                "date format {other:?} is not one searchbench writes"
            ))
        }
    })
}

/// A Java date pattern's pieces, or why not (a letter this reader does not know).
fn tokens(pattern: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    let mut literal = String::new();
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            let end = chars[i + 1..]
                .iter()
                .position(|&q| q == '\'')
                .ok_or_else(|| format!("date format {pattern:?}: a quote is not closed"))?;
            literal.extend(&chars[i + 1..i + 1 + end]);
            i += end + 2;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            literal.push(c);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&d| d == c).count();
        let token = match (c, run) {
            ('y' | 'u', 4) => Token::Year,
            ('M', 2) => Token::Month,
            ('d', 2) => Token::Day,
            ('H', 2) => Token::Hour,
            ('m', 2) => Token::Minute,
            ('s', 2) => Token::Second,
            ('S', 3) => Token::Millis,
            _ => {
                return Err(format!(
                    "date format {pattern:?}: {} is not a field searchbench writes (yyyy, MM, \
                     dd, HH, mm, ss, SSS)",
                    c.to_string().repeat(run)
                ))
            }
        };
        if !literal.is_empty() {
            out.push(Token::Literal(std::mem::take(&mut literal)));
        }
        out.push(token);
        i += run;
    }
    if !literal.is_empty() {
        out.push(Token::Literal(literal));
    }
    Ok(out)
}

/// The calendar fields of `millis`.
fn fields(millis: i64) -> (i64, u32, u32, i64, i64, i64, i64) {
    let day = millis.div_euclid(86_400_000);
    let in_day = millis.rem_euclid(86_400_000);
    let (y, m, d) = civil(day);
    (
        y,
        m,
        d,
        in_day / 3_600_000,
        in_day / 60_000 % 60,
        in_day / 1000 % 60,
        in_day % 1000,
    )
}

fn iso(millis: i64) -> String {
    let (y, mo, d, h, mi, s, ms) = fields(millis);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{ms:03}Z")
}

fn pattern(tokens: &[Token], millis: i64) -> String {
    let (y, mo, d, h, mi, s, ms) = fields(millis);
    let mut out = String::with_capacity(24);
    for t in tokens {
        let _ = match t {
            Token::Year => write!(out, "{y:04}"),
            Token::Month => write!(out, "{mo:02}"),
            Token::Day => write!(out, "{d:02}"),
            Token::Hour => write!(out, "{h:02}"),
            Token::Minute => write!(out, "{mi:02}"),
            Token::Second => write!(out, "{s:02}"),
            Token::Millis => write!(out, "{ms:03}"),
            Token::Literal(l) => {
                out.push_str(l);
                Ok(())
            }
        };
    }
    out
}

fn parse_pattern(tokens: &[Token], text: &str) -> Option<i64> {
    let (mut y, mut mo, mut d, mut h, mut mi, mut s, mut ms) = (1970, 1, 1, 0, 0, 0, 0);
    let mut rest = text;
    for t in tokens {
        let width = match t {
            Token::Literal(l) => {
                rest = rest.strip_prefix(l.as_str())?;
                continue;
            }
            Token::Year => 4,
            Token::Millis => 3,
            _ => 2,
        };
        let digits = rest.get(..width)?;
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n: i64 = digits.parse().ok()?;
        rest = &rest[width..];
        match t {
            Token::Year => y = n,
            Token::Month => mo = n,
            Token::Day => d = n,
            Token::Hour => h = n,
            Token::Minute => mi = n,
            Token::Second => s = n,
            Token::Millis => ms = n,
            Token::Literal(_) => {}
        }
    }
    if !rest.is_empty()
        || !(1..=12).contains(&mo)
        || !(1..=31).contains(&d)
        || h > 23
        || mi > 59
        || s > 59
    {
        return None;
    }
    let day = days(y, mo as u32, d as u32);
    Some(day * 86_400_000 + h * 3_600_000 + mi * 60_000 + s * 1000 + ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn written(f: &DateFormat, millis: i64) -> String {
        let mut out = Vec::new();
        f.write(millis, &mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    #[test]
    fn each_format_writes_what_it_reads_back() {
        // 2024-02-29T13:45:07.089Z, a leap day.
        let t = 1_709_214_307_089;
        let cases = [
            (None, "\"2024-02-29T13:45:07.089Z\""),
            (Some("epoch_millis"), "1709214307089"),
            (Some("epoch_second"), "1709214307"),
            (Some("yyyy-MM-dd HH:mm:ss"), "\"2024-02-29 13:45:07\""),
            (
                Some("yyyy-MM-dd'T'HH:mm:ss.SSS"),
                "\"2024-02-29T13:45:07.089\"",
            ),
            (
                Some("yyyy-MM-dd HH:mm:ss||strict_date_optional_time||epoch_millis"),
                "\"2024-02-29 13:45:07\"",
            ),
            (Some("uuuu/MM/dd"), "\"2024/02/29\""),
        ];
        for (format, want) in cases {
            let f = DateFormat::of(format).unwrap_or_else(|e| panic!("{e}"));
            let got = written(&f, t);
            assert_eq!(got, want, "{format:?}");
            let back = f.read(&serde_json::from_str(&got).unwrap_or_default());
            // Read back to the format's own precision.
            let precision = match format {
                Some("epoch_second") | Some("yyyy-MM-dd HH:mm:ss") => 1000,
                Some(f) if f.starts_with("yyyy-MM-dd HH") => 1000,
                Some("uuuu/MM/dd") => 86_400_000,
                _ => 1,
            };
            assert_eq!(back, Some(t - t.rem_euclid(precision)), "{format:?}");
        }
        // Before the epoch, and every format of a list is read.
        let f = DateFormat::of(Some("yyyy-MM-dd||epoch_millis")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(written(&f, -86_400_000), "\"1969-12-31\"");
        assert_eq!(f.read(&json!(5)), Some(5));
        assert_eq!(f.read(&json!("1969-12-31")), Some(-86_400_000));
        assert_eq!(f.read(&json!("31/12/1969")), None);
        assert_eq!(f.read(&json!("1969-13-31")), None);
    }

    #[test]
    fn a_format_that_cannot_be_written_is_refused() {
        for format in ["week_date", "yyyy-MM-dd EEE", "yyyy-MM-dd 'T", "MMM dd"] {
            assert!(DateFormat::of(Some(format)).is_err(), "{format}");
        }
    }
}
