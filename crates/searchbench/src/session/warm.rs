//! Warming a node we start before its measured load. A fresh JVM loads classes and compiles
//! its hot paths during its first tens of seconds: three loads of 200,000 documents into one
//! fresh OpenSearch 2.19.1 node gave 11.6k, 24.2k and 28.2k docs/s, so a run on a node started
//! for it measured mostly the warm-up. So before the first measured load, a node searchbench
//! started is given the run's own workload, in slices, into a throwaway index
//! ([`WARM_INDEX`], a fresh one per slice as the measured load has), until the slices' rate
//! stops rising (two slices in a row: [`levelled`]) or [`WarmSpec::max`] has passed; then the
//! index is deleted and the run says what the warm-up saw ([`WarmUp`], in its report and
//! `--json`). A cluster the user gave (`--url`) is never warmed: it is theirs, and in whatever
//! state they keep it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Event, Job, Observer, SessionError};
use crate::cancel::Cancel;
use crate::cluster::Target;
use crate::corpus::{CorpusError, DocSource, Item};
pub use crate::measure::warm_up::{levelled, Slice, WarmUp, MIN_SLICES};

/// The throwaway index the warm-up loads into.
pub const WARM_INDEX: &str = "searchbench-warm-up";

/// How long a warm-up may take unless told otherwise: the rate of a fresh node levels off
/// within a minute on this 2-core machine (BENCHMARKS.md), so a node still rising after this
/// is said to be, rather than warmed for ever.
pub const WARM_MAX: Duration = Duration::from_secs(90);

/// Each slice lasts about this long at the rate of the one before it: long enough for its
/// rate to be read against the others (a slice of 1 s is mostly its first and last request).
pub const SLICE_SECS: f64 = 4.0;

/// The first slice's documents, before any rate is known.
pub const FIRST_SLICE_DOCS: u64 = 20_000;

const MIN_SLICE_DOCS: u64 = 2_000;
const MAX_SLICE_DOCS: u64 = 5_000_000;

/// What one warm-up slice did: the documents the engine took, at what rate (the load's own:
/// every acknowledged document over the load), and whether Ctrl-C stopped it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sliced {
    pub indexed: u64,
    pub docs_per_sec: f64,
    pub interrupted: bool,
    /// The warm-up's time ran out during the slice, which was stopped there.
    pub cut: bool,
}

/// A future a slice runner returns, borrowing the target and the index.
pub type SliceWork<'a> = Pin<Box<dyn Future<Output = Result<Sliced, SessionError>> + 'a>>;

/// Runs one warm-up slice: the run's own load of `docs` documents into `index` on the target
/// (see `session::ingest`, which makes one from a run's load), stopped early when `cut`
/// fires (the warm-up's time is spent). A load that fails is the slice's error (the node
/// cannot take the run's load either).
pub type RunSlice = dyn for<'a> Fn(&'a Target, &'a str, u64, Cancel) -> SliceWork<'a> + Send + Sync;

/// How to warm a node we start (see the module's words).
#[derive(Clone)]
pub struct WarmSpec {
    pub run: Arc<RunSlice>,
    /// The longest the warm-up may take (a slice is cut to what is left).
    pub max: Duration,
}

impl std::fmt::Debug for WarmSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarmSpec").field("max", &self.max).finish()
    }
}

impl WarmSpec {
    /// A warm-up of slices run by `run`, bounded by [`WARM_MAX`].
    pub fn of_slices(run: Arc<RunSlice>) -> Self {
        WarmSpec { run, max: WARM_MAX }
    }
}

/// Where a warm-up slice's refused documents go: the temporary folder, removed after.
pub fn failures_file() -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "searchbench-warm-up-{}-failures.ndjson",
        std::process::id()
    ))
}

/// The first `docs` items of `job`'s source: a slice of the run's own workload, whatever
/// it reads from (a generator, the user's files, a track's corpus).
pub fn first(mut job: Job, docs: u64) -> Job {
    job.source = Box::new(Take {
        inner: job.source,
        left: docs,
    });
    job
}

struct Take {
    inner: Box<dyn DocSource>,
    left: u64,
}

impl DocSource for Take {
    fn next_into(&mut self, out: &mut Vec<u8>) -> Result<Option<Item>, CorpusError> {
        crate::corpus::next_within(self.inner.as_mut(), &mut self.left, out)
    }

    fn len_hint(&self) -> Option<u64> {
        Some(
            self.inner
                .len_hint()
                .map_or(self.left, |n| n.min(self.left)),
        )
    }

    fn describe(&self) -> String {
        format!("{} (a warm-up slice)", self.inner.describe())
    }

    fn files(&self) -> Vec<String> {
        self.inner.files()
    }

    fn origin(&self) -> Option<(u32, u64)> {
        self.inner.origin()
    }
}

/// The next slice's documents: [`SLICE_SECS`] at `rate`, no longer than `left`.
fn next_slice(rate: f64, left: Duration) -> u64 {
    if !rate.is_finite() || rate <= 0.0 {
        return FIRST_SLICE_DOCS;
    }
    let secs = SLICE_SECS.min(left.as_secs_f64());
    ((rate * secs) as u64).clamp(MIN_SLICE_DOCS, MAX_SLICE_DOCS)
}

/// Warms the node at `target` as `spec` says (see the module's words), telling `observer`
/// each slice, and deletes the throwaway index. An error of a slice's load ends the warm-up
/// with that error (the node cannot take the run's load either).
pub async fn warm(
    target: &Target,
    spec: &WarmSpec,
    observer: &dyn Observer,
) -> Result<WarmUp, SessionError> {
    let started = Instant::now();
    let mut up = WarmUp {
        slices: Vec::new(),
        secs: 0.0,
        max_secs: spec.max.as_secs_f64(),
        levelled: false,
        rise_pct: None,
        interrupted: false,
    };
    observer.event(Event::Stage(format!(
        "warming the node with the run's workload until its rate levels off (at most {:.0} s; \
         --no-warm-node skips)",
        up.max_secs
    )));
    let mut docs = FIRST_SLICE_DOCS;
    let deadline = tokio::time::Instant::from_std(started) + spec.max;
    let outcome: Result<(), SessionError> = async {
        loop {
            // A slice is cut when the bound passes (a slow node takes far longer than its
            // rate so far said), and what it did still counts.
            let (cut_now, cut) = Cancel::new();
            let work = (spec.run)(target, WARM_INDEX, docs, cut);
            tokio::pin!(work);
            let sliced: Sliced = tokio::select! {
                sliced = &mut work => sliced?,
                () = tokio::time::sleep_until(deadline) => {
                    let _ = cut_now.send(true);
                    work.await?
                }
            };
            // A slice cut before the engine took anything measured nothing.
            if sliced.cut && sliced.indexed == 0 {
                return Ok(());
            }
            let rate = sliced.docs_per_sec;
            up.slices.push(Slice {
                docs: sliced.indexed,
                docs_per_sec: rate,
            });
            observer.event(Event::Stage(format!(
                "  warm-up slice {}: {} docs at {rate:.0} docs/s",
                up.slices.len(),
                sliced.indexed
            )));
            if sliced.interrupted {
                up.interrupted = true;
                return Ok(());
            }
            // A slice the engine took nothing of (every document refused) warms nothing: the
            // measured load says what is wrong, with its failure file, rather than slices
            // failing until the bound.
            if sliced.indexed == 0 {
                return Ok(());
            }
            let rates: Vec<f64> = up.slices.iter().map(|s| s.docs_per_sec).collect();
            if let Some((done, rise)) = levelled(&rates) {
                up.rise_pct = Some(rise);
                if done {
                    up.levelled = true;
                    return Ok(());
                }
            }
            if sliced.cut {
                return Ok(());
            }
            let left = spec.max.saturating_sub(started.elapsed());
            if left.is_zero() {
                return Ok(());
            }
            docs = next_slice(rate, left);
        }
    }
    .await;
    // The throwaway index goes whatever happened; one that cannot be deleted is the node's
    // (we started it, and it stops with the run).
    let _ = crate::ingest::index::delete_ours(target, WARM_INDEX).await;
    let _ = std::fs::remove_file(failures_file());
    outcome?;
    up.secs = started.elapsed().as_secs_f64();
    observer.event(Event::Stage(up.line()));
    Ok(up)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_lasts_about_its_seconds_and_never_past_the_bound() {
        assert_eq!(next_slice(10_000.0, Duration::from_secs(60)), 40_000);
        // 1.5 s left at 10k docs/s: 15,000 documents.
        assert_eq!(next_slice(10_000.0, Duration::from_millis(1500)), 15_000);
        assert_eq!(next_slice(10.0, Duration::from_secs(60)), MIN_SLICE_DOCS);
        assert_eq!(next_slice(1e12, Duration::from_secs(60)), MAX_SLICE_DOCS);
        assert_eq!(
            next_slice(f64::NAN, Duration::from_secs(60)),
            FIRST_SLICE_DOCS
        );
    }

    /// A slice on a slow node (500 docs/s: its first 20,000 documents take 40 s) is cut
    /// when the bound passes, and the warm-up says the time it took.
    #[tokio::test]
    async fn a_slice_still_going_at_the_bound_is_cut() {
        let run: Arc<RunSlice> = Arc::new(|_: &Target, _: &str, docs: u64, cut: Cancel| {
            Box::pin(async move {
                let began = Instant::now();
                let whole = Duration::from_secs_f64(docs as f64 / 500.0);
                tokio::select! {
                    () = tokio::time::sleep(whole) => {}
                    () = cut.cancelled() => {}
                }
                let secs = began.elapsed().as_secs_f64();
                Ok(Sliced {
                    indexed: (secs * 500.0) as u64,
                    docs_per_sec: 500.0,
                    interrupted: false,
                    cut: cut.is_cancelled(),
                })
            })
        });
        let spec = WarmSpec {
            run,
            max: Duration::from_millis(300),
        };
        // Nothing listens there: the throwaway index's delete fails at once, ignored.
        let target =
            Target::new(&crate::cluster::TargetConfig::local("http://127.0.0.1:9")).unwrap();
        let began = Instant::now();
        let up = tokio::time::timeout(
            Duration::from_secs(20),
            warm(&target, &spec, &crate::session::Silent),
        )
        .await
        .expect("the warm-up keeps its bound")
        .unwrap();
        assert!(
            began.elapsed() < Duration::from_secs(5),
            "{:?}",
            began.elapsed()
        );
        assert_eq!(up.slices.len(), 1, "{up:?}");
        assert!(up.secs < 5.0 && !up.levelled && !up.interrupted, "{up:?}");
        assert!(
            up.line().contains("STILL RISING after 0 s"),
            "{}",
            up.line()
        );
    }
}
