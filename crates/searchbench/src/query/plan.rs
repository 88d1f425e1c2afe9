//! What is measured: the query variants of the time-attribution study, the two transports, and the
//! request bodies (built once, before any clock starts).

use serde::{Deserialize, Serialize};

/// The three value fields every variant aggregates, in answer order.
pub const FIELDS: [&str; 3] = ["cpu", "mem", "net"];
/// The percents the percentile variants ask for.
pub const PERCENTS: [f64; 4] = [0.0, 50.0, 90.0, 100.0];

/// The percentile algorithm a variant uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Algo {
    /// t-digest, the engines' default.
    #[serde(rename = "t-digest")]
    TDigest,
    /// HDR histogram with 3 significant digits.
    #[serde(rename = "hdr")]
    Hdr,
}

/// One decomposition of the production query (`bool.filter` on node + epoch, `size: 0`), a
/// `logs` search, or a query of the user's queries file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Variant {
    /// Filter only.
    A,
    /// Filter + 3× sum.
    B,
    /// Filter + 3× percentiles (t-digest).
    CTd,
    /// Filter + 3× percentiles (HDR).
    CHdr,
    /// The production query: 3× sum + 3× percentiles (t-digest).
    DTd,
    /// 3× sum + 3× percentiles (HDR).
    DHdr,
    /// logs: time range on `@timestamp` + `terms` on `process.name`, `size: 0`.
    RangeTerms0,
    /// logs: the same, `size: 10` sorted by `@timestamp` descending.
    RangeTerms10,
    /// logs: `date_histogram` per minute over a time range, `size: 0`.
    Histogram0,
    /// logs: the same, `size: 10` sorted by `@timestamp` descending.
    Histogram10,
    /// logs: `match` on `message` within a time range, `size: 0`.
    Match0,
    /// logs: the same, `size: 10` sorted by `@timestamp` descending.
    Match10,
    /// logs: top 10 hosts by count (`terms` on `host.name`) over a time range, `size: 0`.
    TopHosts0,
    /// logs: the same, `size: 10` sorted by `@timestamp` descending.
    TopHosts10,
    /// A named query of the user's (its name is [`Variant::name`]; see [`Variant::named`]).
    Named(u16),
}

/// The names of the user's queries met in this process, leaked once each: a variant is
/// `Copy` and names itself as `&'static str`, and a process sees a handful of them.
static NAMED: std::sync::Mutex<Vec<&'static str>> = std::sync::Mutex::new(Vec::new());

impl Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Variant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Ok(Variant::ALL
            .iter()
            .chain(&Variant::LOGS)
            .copied()
            .find(|v| v.name() == name)
            .unwrap_or_else(|| Variant::named(&name)))
    }
}

/// The shape of a `logs` query variant (each runs with `size: 0` and `size: 10`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogsQuery {
    /// `bool.filter`: range on `@timestamp` + `terms` on `process.name`.
    RangeTerms,
    /// range + `date_histogram` on `@timestamp`, one bucket per minute.
    Histogram,
    /// `match` on `message` + range filter.
    Match,
    /// range + `terms` aggregation on `host.name`, top 10 by count.
    TopHosts,
}

impl Variant {
    pub const ALL: [Variant; 6] = [
        Variant::A,
        Variant::B,
        Variant::CTd,
        Variant::CHdr,
        Variant::DTd,
        Variant::DHdr,
    ];
    /// The variant the production code runs.
    pub const PRODUCTION: Variant = Variant::DTd;
    /// The `logs` workload's variants.
    pub const LOGS: [Variant; 8] = [
        Variant::RangeTerms0,
        Variant::RangeTerms10,
        Variant::Histogram0,
        Variant::Histogram10,
        Variant::Match0,
        Variant::Match10,
        Variant::TopHosts0,
        Variant::TopHosts10,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Variant::A => "A",
            Variant::B => "B",
            Variant::CTd => "C_td",
            Variant::CHdr => "C_hdr",
            Variant::DTd => "D_td",
            Variant::DHdr => "D_hdr",
            Variant::RangeTerms0 => "range_terms_s0",
            Variant::RangeTerms10 => "range_terms_s10",
            Variant::Histogram0 => "histogram_s0",
            Variant::Histogram10 => "histogram_s10",
            Variant::Match0 => "match_s0",
            Variant::Match10 => "match_s10",
            Variant::TopHosts0 => "top_hosts_s0",
            Variant::TopHosts10 => "top_hosts_s10",
            Variant::Named(i) => NAMED
                .lock()
                .ok()
                .and_then(|names| names.get(usize::from(i)).copied())
                .unwrap_or("?"),
        }
    }

    /// The variant of the user's query called `name` (the same name, the same variant).
    pub fn named(name: &str) -> Variant {
        let mut names = NAMED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = names.iter().position(|n| *n == name) {
            return Variant::Named(i as u16);
        }
        let i = u16::try_from(names.len()).unwrap_or(u16::MAX);
        if usize::from(i) == names.len() {
            names.push(Box::leak(name.to_string().into_boxed_str()));
        }
        Variant::Named(i)
    }

    /// A cluster-metrics variant by name (case-insensitive).
    pub fn parse(s: &str) -> Option<Variant> {
        Variant::parse_in(&Variant::ALL, s)
    }

    /// A variant of `among` by name (case-insensitive).
    pub fn parse_in(among: &[Variant], s: &str) -> Option<Variant> {
        among
            .iter()
            .copied()
            .find(|v| v.name().eq_ignore_ascii_case(s.trim()))
    }

    /// For a `logs` variant: its query shape and `size`.
    pub fn logs(self) -> Option<(LogsQuery, u32)> {
        Some(match self {
            Variant::RangeTerms0 => (LogsQuery::RangeTerms, 0),
            Variant::RangeTerms10 => (LogsQuery::RangeTerms, 10),
            Variant::Histogram0 => (LogsQuery::Histogram, 0),
            Variant::Histogram10 => (LogsQuery::Histogram, 10),
            Variant::Match0 => (LogsQuery::Match, 0),
            Variant::Match10 => (LogsQuery::Match, 10),
            Variant::TopHosts0 => (LogsQuery::TopHosts, 0),
            Variant::TopHosts10 => (LogsQuery::TopHosts, 10),
            _ => return None,
        })
    }

    pub fn has_sums(self) -> bool {
        matches!(self, Variant::B | Variant::DTd | Variant::DHdr)
    }

    pub fn percentiles(self) -> Option<Algo> {
        match self {
            Variant::CTd | Variant::DTd => Some(Algo::TDigest),
            Variant::CHdr | Variant::DHdr => Some(Algo::Hdr),
            _ => None,
        }
    }
}

/// How the requests of one coverage (all nodes of one epoch) travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// One `_search` per node, one after the other (`?request_cache=false`).
    Serial,
    /// One `_msearch` per coverage (`"request_cache": false` in every header line).
    Msearch,
}

impl Transport {
    pub const ALL: [Transport; 2] = [Transport::Serial, Transport::Msearch];

    pub fn name(self) -> &'static str {
        match self {
            Transport::Serial => "serial",
            Transport::Msearch => "msearch",
        }
    }

    pub fn parse(s: &str) -> Option<Transport> {
        Transport::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
    }
}

/// The `_search` body of `variant` for one (node, epoch), compact, on one line.
///
/// `track_total_hits: true` makes the hit count exact (the default stops counting at 10,000),
/// so it can be checked against the ground truth; it costs nothing for the variants with
/// aggregations, which visit every matching document anyway, and it makes variant A count
/// every match, which is what the subtraction `B − A` needs.
pub fn search_body(variant: Variant, node: &str, epoch: u64, profile: bool) -> Vec<u8> {
    let node = serde_json::Value::String(node.to_string()).to_string();
    let mut s = format!(
        "{{\"size\":0,\"track_total_hits\":true,\"query\":{{\"bool\":{{\"filter\":[\
         {{\"term\":{{\"node\":{node}}}}},{{\"term\":{{\"epoch\":{epoch}}}}}]}}}}"
    );
    let mut aggs = Vec::new();
    if variant.has_sums() {
        for f in FIELDS {
            aggs.push(format!("\"{f}_sum\":{{\"sum\":{{\"field\":\"{f}\"}}}}"));
        }
    }
    if let Some(algo) = variant.percentiles() {
        let hdr = match algo {
            Algo::TDigest => "",
            Algo::Hdr => ",\"hdr\":{\"number_of_significant_value_digits\":3}",
        };
        for f in FIELDS {
            aggs.push(format!(
                "\"{f}_pct\":{{\"percentiles\":{{\"field\":\"{f}\",\"percents\":[0,50,90,100]{hdr}}}}}"
            ));
        }
    }
    if !aggs.is_empty() {
        s.push_str(",\"aggs\":{");
        s.push_str(&aggs.join(","));
        s.push('}');
    }
    if profile {
        s.push_str(",\"profile\":true");
    }
    s.push('}');
    s.into_bytes()
}

/// The `_msearch` body for all `nodes` of one epoch.
pub fn msearch_body(variant: Variant, nodes: &[String], epoch: u64, profile: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for node in nodes {
        out.extend_from_slice(b"{\"request_cache\":false}\n");
        out.extend_from_slice(&search_body(variant, node, epoch, profile));
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_json() {
        for v in Variant::ALL {
            let b = search_body(v, "N001", 3, true);
            let j: serde_json::Value = serde_json::from_slice(&b).expect("json");
            assert_eq!(j["query"]["bool"]["filter"][1]["term"]["epoch"], 3);
            assert_eq!(j["aggs"]["cpu_sum"].is_object(), v.has_sums());
            assert_eq!(
                j["aggs"]["net_pct"]["percentiles"]["hdr"].is_object(),
                v.percentiles() == Some(Algo::Hdr)
            );
        }
        let m = msearch_body(Variant::A, &["N001".into(), "N002".into()], 1, false);
        assert_eq!(m.iter().filter(|&&c| c == b'\n').count(), 4);
        assert_eq!(Variant::parse("c_HDR"), Some(Variant::CHdr));
    }
}
