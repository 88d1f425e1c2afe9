//! "Did you mean …?" for names a user types: workloads, metrics, engines. One place, so every
//! "unknown NAME" error reads the same way.

/// The known name closest to `given`, when it is close enough to be a likely typo: within
/// a third of its length in edits (at least 1, at most 3), or `given` is a prefix of it, or
/// they differ only in case or `-`/`_`.
pub fn closest<'a, I>(given: &str, known: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let norm = |s: &str| s.to_ascii_lowercase().replace('_', "-");
    let wanted = norm(given);
    if wanted.is_empty() {
        return None;
    }
    let budget = (wanted.chars().count() / 3).clamp(1, 3);
    known
        .into_iter()
        .filter_map(|name| {
            let candidate = norm(name);
            let distance = if candidate == wanted {
                0
            } else if candidate.starts_with(&wanted) && wanted.chars().count() >= 3 {
                1
            } else {
                strsim::damerau_levenshtein(&wanted, &candidate)
            };
            (distance <= budget).then_some((distance, name))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// `unknown WHAT "given"; did you mean "x"? known: a, b, c` (the hint only when one is close).
pub fn unknown<'a, I>(what: &str, given: &str, known: I) -> String
where
    I: IntoIterator<Item = &'a str>,
{
    let known: Vec<&str> = known.into_iter().collect();
    let hint = closest(given, known.iter().copied())
        .map(|name| format!("did you mean {name:?}? "))
        .unwrap_or_default();
    format!(
        "unknown {what} {given:?}; {hint}known: {}",
        known.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORKLOADS: [&str; 3] = ["logs", "cluster-metrics", "transactions"];

    #[test]
    fn typos_find_their_name() {
        assert_eq!(closest("lgos", WORKLOADS), Some("logs"));
        assert_eq!(
            closest("cluster_metrics", WORKLOADS),
            Some("cluster-metrics")
        );
        assert_eq!(
            closest("clustermetrics", WORKLOADS),
            Some("cluster-metrics")
        );
        assert_eq!(closest("transaction", WORKLOADS), Some("transactions"));
        assert_eq!(closest("trans", WORKLOADS), Some("transactions"));
        assert_eq!(closest("LOGS", WORKLOADS), Some("logs"));
    }

    #[test]
    fn strangers_get_no_guess() {
        assert_eq!(closest("banana", WORKLOADS), None);
        assert_eq!(closest("", WORKLOADS), None);
        assert_eq!(closest("x", WORKLOADS), None);
    }

    #[test]
    fn the_message_names_the_guess_and_the_list() {
        assert_eq!(
            unknown("workload", "lgos", WORKLOADS),
            "unknown workload \"lgos\"; did you mean \"logs\"? known: logs, cluster-metrics, \
             transactions"
        );
        assert_eq!(
            unknown("workload", "zzz", WORKLOADS),
            "unknown workload \"zzz\"; known: logs, cluster-metrics, transactions"
        );
    }
}
