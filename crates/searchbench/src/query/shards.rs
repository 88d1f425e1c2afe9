//! Shards as an axis of the query method (`query --shards 1,2,4`): the same documents at each
//! shard count, measured in the same shuffled passes, so that serial and `_msearch` can be
//! set side by side per shard count. The index as it is serves its own shard count; every
//! other count is a copy the engine makes from it (`_split` to a multiple of its shards,
//! `_shrink` to a divisor), with the source briefly closed to writes as both require. A
//! split copy holds every document in each shard, the others' marked deleted: its deletes
//! are expunged before it is measured, so each shard holds only its own. The copies are
//! named after the source and removed at the end.

use std::time::Duration;

use reqwest::Method;
use serde::{Deserialize, Serialize};

use crate::cluster::owed::Undo;
use crate::cluster::Target;

/// The most shards a count may ask for (the engines' own limit on a split is 1,024).
pub const MAX_SHARDS: u32 = 1024;

/// How long a copy may take to be made, expunged and searchable.
const COPY_TIMEOUT: Duration = Duration::from_secs(3600);

/// The index measured at one shard count.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AtShards {
    pub shards: u32,
    pub index: String,
    /// A copy made for the run (removed at its end), not the index itself.
    pub copy: bool,
    /// Segments over its primaries when it was measured, when the engine said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<u64>,
}

/// The shard counts of `--shards`, or why they cannot be: each 1 to [`MAX_SHARDS`], none
/// twice, at least two.
pub fn parse(given: &str) -> Result<Vec<u32>, String> {
    let mut counts = Vec::new();
    for part in given.split(',') {
        let n: u32 = part.trim().parse().map_err(|_| {
            format!("--shards: {part:?} is not a whole number of shards (e.g. --shards 1,2,4)")
        })?;
        if !(1..=MAX_SHARDS).contains(&n) {
            return Err(format!(
                "--shards: {n} is not a shard count from 1 to {MAX_SHARDS}"
            ));
        }
        if counts.contains(&n) {
            return Err(format!("--shards: {n} is given twice"));
        }
        counts.push(n);
    }
    if counts.len() < 2 {
        return Err("--shards needs two counts or more to compare (e.g. --shards 1,2,4)".into());
    }
    Ok(counts)
}

/// The name of the copy of `source` at `shards`.
pub fn copy_name(source: &str, shards: u32) -> String {
    format!("{source}-searchbench-{shards}-shards")
}

/// The source's concrete name, shard count and replica count.
async fn source_of(target: &Target, index: &str) -> Result<(String, u32, u32), String> {
    let settings: serde_json::Value = target
        .get_json(&format!(
            "/{index}/_settings/index.number_of_shards,index.number_of_replicas"
        ))
        .await
        .map_err(|e| format!("cannot read the settings of {index:?}: {e}"))?;
    source_in(&settings, index)
}

/// The source's name, shard count and replica count, as the server's `_settings` answer
/// (`settings`) for `index` gives them.
fn source_in(settings: &serde_json::Value, index: &str) -> Result<(String, u32, u32), String> {
    let found: Vec<(&String, &serde_json::Value)> =
        settings.as_object().into_iter().flatten().collect();
    let [(name, s)] = found[..] else {
        return Err(format!(
            "--shards copies one index, and {index:?} names {}",
            found.len()
        ));
    };
    let count = |key: &str| {
        s.pointer(&format!("/settings/index/{key}"))
            .and_then(|n| n.as_str())
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| format!("{name} does not say its {key}"))
    };
    let shards = count("number_of_shards")?;
    // No engine makes an index of no shards: a server saying so is not believed (the copies
    // are planned by dividing by it).
    if shards == 0 {
        return Err(format!("{name} says it has 0 shards"));
    }
    Ok((name.clone(), shards, count("number_of_replicas")?))
}

/// How an error of [`prepare`] says it was stopped by the caller's cancel.
pub const INTERRUPTED: &str = "interrupted";

/// The index of `index` at each of `counts`: itself at its own count, a copy made by the
/// engine at every other. Nothing is made when a count cannot be (neither a multiple nor a
/// divisor of the source's) or a copy's name is taken. On an error the copies made so far
/// are removed and the source opened to writes again.
pub async fn prepare(
    target: &Target,
    index: &str,
    counts: &[u32],
    say: &(dyn Fn(&str) + Sync),
    cancel: &crate::cancel::Cancel,
) -> Result<Vec<AtShards>, String> {
    let (source, has, replicas) = source_of(target, index).await?;
    // A write block (or a close) an ended run left on the source is lifted first.
    for said in crate::cluster::owed::settle(target, &source).await? {
        say(&said);
    }
    let mut planned = Vec::new();
    for &n in counts {
        if n == has {
            planned.push((n, source.clone(), None));
            continue;
        }
        let how = if n % has == 0 {
            "_split"
        } else if has % n == 0 {
            "_shrink"
        } else {
            return Err(format!(
                "--shards {n}: {source} has {has} shard(s), and a copy can only be split to a \
                 multiple of them or shrunk to a divisor"
            ));
        };
        let name = copy_name(&source, n);
        if target
            .send(Method::HEAD, &format!("/{name}"), None)
            .await
            .is_ok()
        {
            return Err(format!(
                "--shards {n}: {name} already exists (a copy left by a run that was stopped?); \
                 delete it first: DELETE /{name}"
            ));
        }
        planned.push((n, name, Some(how)));
    }
    let long = target.with_timeout(COPY_TIMEOUT);
    let block = |on: bool| {
        let body = serde_json::json!({ "index.blocks.write": if on { Some(true) } else { None } });
        let source = source.clone();
        let long = long.clone();
        async move {
            long.send_json::<serde_json::Value>(Method::PUT, &format!("/{source}/_settings"), &body)
                .await
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    };
    let mut made: Vec<AtShards> = Vec::new();
    let mut outcome = Ok(());
    if planned.iter().any(|(_, _, how)| how.is_some()) {
        // What the block was (a user's own block is put back as it was, not lifted).
        let path = format!("/{source}/_settings/index.blocks.write?flat_settings=true");
        let was: serde_json::Value = target.get_json(&path).await.unwrap_or_default();
        let was = was[&source]["settings"]["index.blocks.write"].clone();
        let mut lift = serde_json::Map::new();
        lift.insert("index.blocks.write".into(), was);
        let why = "a query's --shards (a write block while its copies were made)";
        let owed = crate::cluster::owed::owe(target, &source, None, Undo::Settings(lift), why)?;
        if let Err(e) = block(true).await {
            owed.paid();
            return Err(format!("cannot close {source} to writes: {e}"));
        }
        for (n, name, how) in &planned {
            let Some(how) = how else { continue };
            say(&format!(
                "--shards: making {name} ({n} shards) from {source} ({how})"
            ));
            // As many replicas as the source: a replica serves searches too.
            let body = serde_json::json!({ "settings": {
                "index.number_of_shards": n,
                "index.number_of_replicas": replicas,
                "index.blocks.write": null,
            }});
            let path = format!("/{source}/{how}/{name}?wait_for_active_shards=1");
            // A copy takes up to an hour: Ctrl-C stops the waiting (the source is opened to
            // writes again and what was made removed, below).
            let copied = tokio::select! {
                r = long.send_json::<serde_json::Value>(Method::POST, &path, &body) => r,
                () = cancel.cancelled() => {
                    outcome = Err(format!("{INTERRUPTED} while {name} was made"));
                    made.push(AtShards { shards: *n, index: name.clone(), copy: true, segments: None });
                    break;
                }
            };
            if let Err(e) = copied {
                outcome = Err(format!("cannot make {name} from {source}: {e}"));
                break;
            }
            made.push(AtShards {
                shards: *n,
                index: name.clone(),
                copy: true,
                segments: None,
            });
        }
        match block(false).await {
            Ok(()) => owed.paid(),
            Err(e) => {
                outcome = outcome.and(Err(format!(
                    "cannot open {source} to writes again ({e}): PUT /{source}/_settings \
                     {{\"index.blocks.write\": null}} (the next run on it does)"
                )))
            }
        }
    }
    if outcome.is_ok() {
        for copy in &made {
            let readied = tokio::select! {
                r = ready(&long, &copy.index) => r,
                () = cancel.cancelled() => Err(format!("{INTERRUPTED} while {} was readied", copy.index)),
            };
            if let Err(e) = readied {
                outcome = Err(e);
                break;
            }
        }
    }
    if let Err(e) = outcome {
        remove(target, &made).await;
        return Err(e);
    }
    let mut at = Vec::new();
    for (n, name, how) in planned {
        let mut a = AtShards {
            shards: n,
            index: name,
            copy: how.is_some(),
            segments: None,
        };
        a.segments = segments(target, &a.index).await;
        at.push(a);
    }
    Ok(at)
}

/// Waits for a copy's shards, expunges the documents a split left marked deleted, and makes
/// what it holds searchable.
async fn ready(long: &Target, name: &str) -> Result<(), String> {
    let health = long
        .primaries_of(name, COPY_TIMEOUT)
        .await
        .map_err(|e| format!("{name} did not become searchable: {e}"))?;
    if health.timed_out {
        return Err(format!("{name} did not become searchable in time"));
    }
    for path in [
        format!("/{name}/_forcemerge?only_expunge_deletes=true"),
        format!("/{name}/_refresh"),
    ] {
        long.send(Method::POST, &path, None)
            .await
            .map_err(|e| format!("{name}: {e}"))?;
    }
    Ok(())
}

/// Segments over the primaries of `index`, when the engine says.
async fn segments(target: &Target, index: &str) -> Option<u64> {
    let stats: serde_json::Value = target
        .get_json(&format!("/{index}/_stats/segments"))
        .await
        .ok()?;
    stats
        .pointer("/_all/primaries/segments/count")
        .and_then(|n| n.as_u64())
}

/// Deletes the copies among `at` (never the index itself); what cannot be deleted is left,
/// and said.
pub async fn remove(target: &Target, at: &[AtShards]) -> Vec<String> {
    let mut left = Vec::new();
    for a in at.iter().filter(|a| a.copy) {
        if let Err(e) = target
            .send(Method::DELETE, &format!("/{}", a.index), None)
            .await
        {
            left.push(format!("{} was not deleted: {e}", a.index));
        }
    }
    left
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ctrl-C while a copy is made (a split takes up to an hour) stops the wait at once: the
    /// source is opened to writes again, the copy begun removed, and the error says it was
    /// interrupted.
    #[test]
    fn ctrl_c_while_a_copy_is_made_opens_the_source_again() {
        let cluster = crate::double::Double::serve_status(|r| match r.method.as_str() {
            "GET" => (
                200,
                r#"{"logs": {"settings": {"index": {"number_of_shards": "1",
                    "number_of_replicas": "0"}}}}"#
                    .into(),
            ),
            "HEAD" => (404, String::new()),
            "POST" if r.path.contains("_split") => {
                std::thread::sleep(std::time::Duration::from_secs(20));
                (200, "{}".into())
            }
            _ => (200, "{}".into()),
        });
        let (fire, cancel) = crate::cancel::Cancel::new();
        let target = cluster.target();
        let began = std::time::Instant::now();
        let prepared = crate::double::block_on(async {
            let stop = async {
                tokio::time::sleep(std::time::Duration::from_millis(300)).await;
                let _ = fire.send(true);
                std::future::pending::<()>().await
            };
            tokio::select! {
                r = prepare(&target, "logs", &[1, 2], &|_| {}, &cancel) => r,
                () = stop => unreachable!(),
            }
        });
        let e = prepared.unwrap_err();
        assert!(e.starts_with(INTERRUPTED), "{e}");
        assert!(began.elapsed() < std::time::Duration::from_secs(10));
        let requests = cluster.requests();
        let lifted = requests.iter().rev().find(|r| r.method == "PUT").unwrap();
        let body: serde_json::Value = serde_json::from_slice(&lifted.body).unwrap();
        assert_eq!(body, serde_json::json!({"index.blocks.write": null}));
        assert!(requests.iter().any(|r| r.method == "DELETE"));
    }

    #[test]
    fn counts_are_whole_distinct_and_in_range() {
        assert_eq!(parse("1,2,4"), Ok(vec![1, 2, 4]));
        assert_eq!(parse(" 4 , 1 "), Ok(vec![4, 1]));
        for (bad, says) in [
            ("1", "two counts"),
            ("1,1", "twice"),
            ("0,2", "from 1 to 1024"),
            ("1,1025", "from 1 to 1024"),
            ("1,-2", "not a whole number"),
            ("1,99999999999", "not a whole number"),
            ("1,two", "not a whole number"),
            ("1,", "not a whole number"),
        ] {
            let err = parse(bad).expect_err(bad);
            assert!(err.contains(says), "{bad}: {err}");
        }
        assert_eq!(copy_name("metrics", 4), "metrics-searchbench-4-shards");
    }

    /// A server's settings are read as it says them; one saying the index has no shards is
    /// refused, named, rather than divided by.
    #[test]
    fn a_server_saying_an_index_has_no_shards_is_not_believed() {
        let said = |shards: &str| {
            serde_json::json!({"logs-1": {"settings": {"index": {
                "number_of_shards": shards, "number_of_replicas": "1"}}}})
        };
        assert_eq!(source_in(&said("2"), "logs"), Ok(("logs-1".into(), 2, 1)));
        assert_eq!(
            source_in(&said("0"), "logs"),
            Err("logs-1 says it has 0 shards".into())
        );
        let err = source_in(&said("many"), "logs").unwrap_err();
        assert!(err.contains("does not say its number_of_shards"), "{err}");
    }
}
