//! Warming a node before the measured load (`session::warm`) on the shared node: slices of
//! the run's own workload into a throwaway index until their rate stops rising or the bound
//! passes, the index gone after; Ctrl-C ends it after the slice it is in; bad bounds are
//! refused before anything starts.

use std::time::{Duration, Instant};

use searchbench::cancel::Cancel;
use searchbench::session::ingest::{slice_load, LoadSpec};
use searchbench::session::warm::{self, levelled, WarmSpec, WARM_INDEX};
use searchbench::session::{Job, Silent};
use searchbench::workload::WorkloadSpec;

use crate::common;

/// The warm-up's index has one name (a node we start is the run's alone): one test at a time
/// on the shared node.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|p| p.into_inner())
}

/// A warm-up with the logs generator, bounded by `max`, its slices stopped by `cancel`.
fn logs_warm_up(max: Duration, cancel: Option<Cancel>) -> WarmSpec {
    let mut warm = WarmSpec::new(move |index: &str, docs: u64| {
        let mut spec = WorkloadSpec::new(1);
        spec.docs = Some(docs);
        let job = Job::generated("logs", &spec, Some(index.to_string()), &[])?;
        let mut load = LoadSpec::new(index);
        load.cancel = cancel.clone();
        Ok((job, slice_load(&load, index)))
    });
    warm.max = max;
    warm
}

fn warm_index_exists() -> bool {
    let rt = common::runtime();
    let target = common::target();
    rt.block_on(target.get_json::<serde_json::Value>(&format!("/{WARM_INDEX}")))
        .is_ok()
}

#[test]
fn slices_go_on_until_the_rate_levels_off_or_the_bound_passes_and_the_index_is_gone() {
    let _one = serial();
    let rt = common::runtime();
    let target = common::target();
    let max = Duration::from_secs(8);
    let started = Instant::now();
    let up = rt
        .block_on(warm::warm(&target, &logs_warm_up(max, None), &Silent))
        .expect("the warm-up");
    let took = started.elapsed().as_secs_f64();
    assert!(!up.slices.is_empty() && !up.interrupted, "{up:?}");
    assert!(
        up.slices.iter().all(|s| s.docs > 0 && s.docs_per_sec > 0.0),
        "{up:?}"
    );
    // Stopped by the rule when it says levelled, else by the bound alone.
    let rates: Vec<f64> = up.slices.iter().map(|s| s.docs_per_sec).collect();
    assert_eq!(up.levelled, levelled(&rates).is_some_and(|l| l.0), "{up:?}");
    if !up.levelled {
        assert!(up.secs >= max.as_secs_f64(), "stopped early: {up:?}");
    }
    // The last slice is cut to what is left of the bound: past it by a slice's set-up at most.
    assert!(took < max.as_secs_f64() + 6.0, "took {took:.1} s: {up:?}");
    assert!((up.max_secs - 8.0).abs() < 1e-9);
    assert!(!warm_index_exists(), "the throwaway index is left");
}

#[test]
fn a_cancelled_warm_up_ends_after_its_slice_and_says_so() {
    let _one = serial();
    let rt = common::runtime();
    let target = common::target();
    let (fire, cancel) = Cancel::new();
    fire.send(true).expect("the cancel");
    let up = rt
        .block_on(warm::warm(
            &target,
            &logs_warm_up(Duration::from_secs(60), Some(cancel)),
            &Silent,
        ))
        .expect("the warm-up");
    assert!(up.interrupted && !up.levelled, "{up:?}");
    assert_eq!(up.slices.len(), 1, "{up:?}");
    assert!(up.secs < 30.0, "{up:?}");
    assert!(!warm_index_exists(), "the throwaway index is left");
}

#[test]
fn bad_bounds_are_refused_before_anything_starts() {
    for (bound, why) in [
        ("0s", "--no-warm-node"),
        ("-5s", "negative"),
        ("1441m", "a day at most"),
        ("99999999999999999999h", ""),
        ("soon", ""),
    ] {
        let out = common::run(&["ingest", "logs", "--docs", "10", "--warm-node-max", bound]);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{bound}: {}",
            common::streams(&out)
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--warm-node-max"), "{bound}: {err}");
        assert!(err.contains(why), "{bound}: {err}");
    }
    let out = common::run(&["run", "logs", "--no-warm-node", "--warm-node-max", "10s"]);
    assert_eq!(out.status.code(), Some(2), "{}", common::streams(&out));
}
