//! One run's lifecycle from outside the session: a toy phase, a toy instrument and a toy sink,
//! none of which `session/` names, run through `session::lifecycle::run` against the bulk sink
//! (examples/bulk_sink.rs, a server that answers `_bulk` like an engine and indexes nothing).

use std::cell::RefCell;
use std::rc::Rc;

use searchbench::cluster::{Target, TargetConfig};
use searchbench::engine::StartOptions;
use searchbench::session::lifecycle::{
    self, Finished, Hand, Identity, Instrument, Measured, Measurements, Outcome, Phase, Plan,
    Report, Seen, Sink, Stage, Step, StepEnd, Streamed, Work,
};
use searchbench::session::{ClusterSpec, SessionError, Silent};
use searchbench::store::Kind;
use serde_json::{json, Value};

#[allow(dead_code)]
#[path = "../../examples/bulk_sink.rs"]
mod bulk_sink;

type Log = Rc<RefCell<Vec<String>>>;

/// Sends `docs` documents in one `_bulk` and counts the items the answer holds.
struct Bulk {
    name: &'static str,
    docs: u64,
    fail: bool,
    log: Log,
}

impl Phase for Bulk {
    fn name(&self) -> String {
        self.name.into()
    }

    /// A phase of no documents has no work.
    fn wanted(&self, _: &lifecycle::Outcome) -> bool {
        self.docs > 0
    }

    fn run<'a>(&'a mut self, stage: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async move {
            self.log.borrow_mut().push(format!("phase {}", self.name));
            if self.fail {
                return Err(SessionError::Other("the toy phase fails".into()));
            }
            let body: String = (0..self.docs)
                .map(|i| format!("{{\"index\":{{}}}}\n{{\"n\":{i}}}\n"))
                .collect();
            let reply = stage
                .target
                .send(
                    reqwest::Method::POST,
                    "/_bulk",
                    Some(("application/x-ndjson", body.into_bytes())),
                )
                .await?;
            let answer: Value = serde_json::from_slice(&reply.body).expect("a bulk answer");
            let items = answer["items"].as_array().map_or(0, Vec::len) as u64;
            let mut m = Measurements::default();
            m.count("docs", items);
            m.count_at(1_700_000_000, "docs", items);
            Ok(m)
        })
    }
}

/// Notes when it is started and stopped; fails to start when told to.
struct Clock {
    log: Log,
    broken: bool,
}

impl Instrument for Clock {
    fn name(&self) -> String {
        "clock".into()
    }

    fn start<'a>(&'a mut self, phase: &'a str, _: &'a Stage<'a>) -> Work<'a, Result<(), String>> {
        Box::pin(async move {
            self.log.borrow_mut().push(format!("start {phase}"));
            if self.broken {
                return Err("the toy instrument cannot start".into());
            }
            Ok(())
        })
    }

    fn stop<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<Seen>, String>> {
        Box::pin(async move {
            self.log.borrow_mut().push(format!("stop {phase}"));
            // What it saw also streams to the sinks, as a sampler's rows do.
            stage
                .feed
                .send(Streamed::Telemetry(vec![Default::default()]));
            Ok(Some(
                Hand::new("clock")
                    .seen(phase.to_string())
                    .kept(json!({"saw": phase})),
            ))
        })
    }
}

/// Keeps what it is told.
struct Keep {
    log: Log,
    streamed: usize,
}

impl Sink for Keep {
    fn name(&self) -> String {
        "keep".into()
    }

    fn begin(&mut self, run: &Identity, phases: &[String]) -> Result<(), String> {
        self.log.borrow_mut().push(format!(
            "begin {} {} {}",
            run.kind.name(),
            run.workload,
            phases.join(",")
        ));
        Ok(())
    }

    fn streamed(&mut self, rows: &Streamed) -> Result<(), String> {
        if let Streamed::Telemetry(rows) = rows {
            self.streamed += rows.len();
        }
        Ok(())
    }

    fn phase(&mut self, measured: &Measured) -> Result<(), String> {
        self.log.borrow_mut().push(format!(
            "sink {} docs={} clock={}",
            measured.phase,
            measured
                .measurements
                .counts
                .get("docs")
                .copied()
                .unwrap_or(0),
            measured.instruments.contains_key("clock")
        ));
        Ok(())
    }

    fn finish(&mut self, finished: &Finished) -> Result<(), String> {
        self.log.borrow_mut().push(format!(
            "finish phases={} result={} streamed={}",
            finished.outcome.phases.len(),
            match finished.result {
                Ok(v) => v.to_string(),
                Err(_) => "error".into(),
            },
            self.streamed
        ));
        Err("the toy sink cannot finish".into())
    }
}

fn cluster() -> ClusterSpec {
    let url = bulk_sink::spawn(None).expect("the bulk sink");
    let target = Target::new(&TargetConfig::local(url.clone())).expect("a target");
    ClusterSpec {
        given: Some(target),
        urls: vec![url],
        start: StartOptions::new("opensearch-2.19.1"),
        engine_pid: None,
        rtt: None,
        warm: None,
    }
}

fn bulk(name: &'static str, docs: u64, fail: bool, log: &Log) -> Box<dyn Phase> {
    Box::new(Bulk {
        name,
        docs,
        fail,
        log: log.clone(),
    })
}

#[test]
fn a_toy_phase_instrument_and_sink_run_through_the_one_lifecycle() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let log: Log = Rc::default();
    let plan = Plan {
        identity: Identity::new(Kind::Ingest, "toy", json!({})),
        steps: vec![
            Step::One(bulk("load", 5, false, &log)),
            Step::Together(vec![bulk("a", 2, false, &log), bulk("b", 3, false, &log)]),
            // Not wanted: not run, and nothing watches it.
            Step::One(bulk("empty", 0, false, &log)),
        ],
        instruments: vec![Box::new(Clock {
            log: log.clone(),
            broken: false,
        })],
        sinks: vec![Box::new(Keep {
            log: log.clone(),
            streamed: 0,
        })],
    };
    // The command's result, derived from every phase after the run: the documents they sent.
    let ran = runtime.block_on(lifecycle::run(&cluster(), plan, &Silent, |outcome| {
        Ok(outcome
            .phases
            .iter()
            .map(|m| m.measurements.counts["docs"])
            .sum::<u64>())
    }));
    assert_eq!(ran.result.expect("the sink answers"), 10);
    let outcome = ran.outcome;
    assert_eq!(
        *log.borrow(),
        [
            "begin ingest toy load,a,b,empty",
            "start load",
            "phase load",
            "stop load",
            "sink load docs=5 clock=true",
            "start a",
            "phase a",
            "phase b",
            "stop a",
            "sink a docs=2 clock=true",
            // What the clock kept is the step's, beside its first phase only.
            "sink b docs=3 clock=false",
            // Every row streamed reached the sink before the run finished.
            "finish phases=3 result=10 streamed=2",
        ]
    );
    // The measurements of the phases merge into one run's.
    let mut all = Measurements::default();
    for m in &outcome.phases {
        all.merge(&m.measurements).unwrap();
    }
    assert_eq!(all.counts["docs"], 10);
    assert_eq!(all.rate("docs"), Some(10.0));
    // A sink that fails is a warning, not a failed run.
    assert_eq!(outcome.warnings, ["keep: the toy sink cannot finish"]);
}

#[test]
fn a_failing_phase_ends_the_run_and_a_failing_instrument_is_a_warning() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let log: Log = Rc::default();
    let plan = Plan {
        identity: Identity::new(Kind::Ingest, "toy", json!({})),
        steps: vec![
            Step::One(bulk("load", 4, false, &log)),
            Step::One(bulk("broken", 1, true, &log)),
            Step::One(bulk("never", 1, false, &log)),
            // A cleanup runs whatever happened before it.
            Step::Finally(bulk("cleanup", 1, false, &log)),
        ],
        instruments: vec![Box::new(Clock {
            log: log.clone(),
            broken: true,
        })],
        sinks: vec![Box::new(Keep {
            log: log.clone(),
            streamed: 0,
        })],
    };
    let ran = runtime.block_on(lifecycle::run(
        &cluster(),
        plan,
        &Silent,
        |_| -> Result<u64, SessionError> { panic!("a run that failed derives no result") },
    ));
    let outcome = ran.outcome;
    let ran_phases: Vec<&str> = outcome.phases.iter().map(|m| m.phase.as_str()).collect();
    assert_eq!(
        ran_phases,
        ["load", "cleanup"],
        "the phase before the failure is kept, and the cleanup ran after it"
    );
    assert_eq!(outcome.failed_phase.as_deref(), Some("broken"));
    // The phase's own error, typed: a command maps it to the exit code it always had.
    match &ran.result {
        Err(SessionError::Other(why)) => assert_eq!(why, "the toy phase fails"),
        other => panic!("{other:?}"),
    }
    assert!(
        !log.borrow().iter().any(|l| l == "phase never"),
        "{:?}",
        log.borrow()
    );
    assert_eq!(
        outcome
            .warnings
            .iter()
            .filter(|w| w.contains("the toy instrument cannot start"))
            .count(),
        3,
        "{:?}",
        outcome.warnings
    );
    assert!(log
        .borrow()
        .contains(&"finish phases=2 result=error streamed=3".to_string()));
}

/// Hands on a number: its own, plus what an earlier phase handed on (`from`) and what a phase
/// beside it in its step handed on (`beside`).
struct Relay {
    name: &'static str,
    own: u64,
    from: Option<&'static str>,
    beside: Option<&'static str>,
    given: u64,
}

impl Phase for Relay {
    fn name(&self) -> String {
        self.name.into()
    }

    /// Only when what it follows handed something on.
    fn wanted(&self, before: &Outcome) -> bool {
        self.from
            .is_none_or(|f| before.report(&number(f)).is_some())
    }

    fn given(&mut self, before: &mut Outcome) {
        if let Some(f) = self.from {
            self.given = before.take(&number(f)).expect("wanted only when there");
        }
    }

    fn run<'a>(&'a mut self, _: &'a Stage<'a>) -> Work<'a, Result<Measurements, SessionError>> {
        Box::pin(async { Ok(Measurements::default()) })
    }

    fn ended(&mut self, _: &Stage<'_>, end: &mut StepEnd) -> Option<Report> {
        let beside = self
            .beside
            .and_then(|b| end.report(&number(b)))
            .unwrap_or(0);
        Some(number(self.name).report(self.own + self.given + beside))
    }
}

/// What the relay `name` hands on: a number.
fn number(name: &'static str) -> Hand<u64> {
    Hand::new(name)
}

#[test]
fn what_a_phase_hands_on_reaches_the_phases_after_it_and_the_result() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let relay = |name, own, from, beside| -> Box<dyn Phase> {
        Box::new(Relay {
            name,
            own,
            from,
            beside,
            given: 0,
        })
    };
    let plan = Plan::new(
        Identity::new(Kind::Run, "relay", json!({})),
        vec![
            Step::One(relay("first", 1, None, None)),
            // The step's first phase ends last: it takes what the one beside it handed on.
            Step::Together(vec![
                relay("second", 10, Some("first"), Some("third")),
                relay("third", 100, None, None),
            ]),
            // Follows a phase that handed nothing on: not wanted, not run.
            Step::One(relay("never", 1000, Some("nobody"), None)),
        ],
    );
    let ran = runtime.block_on(lifecycle::run(&cluster(), plan, &Silent, |outcome| {
        // What was taken is gone: the first phase's by the second, the third's by its sibling.
        assert!(outcome.report(&number("first")).is_none());
        assert!(outcome.report(&number("third")).is_none());
        // A report is read as the type it is, and no other: a hand of another type under the
        // same name finds nothing.
        assert!(outcome.report(&Hand::<String>::new("second")).is_none());
        Ok(outcome
            .take(&number("second"))
            .expect("the second hands on"))
    }));
    assert_eq!(ran.result.expect("a result"), 111);
    let phases: Vec<&str> = ran
        .outcome
        .phases
        .iter()
        .map(|m| m.phase.as_str())
        .collect();
    assert_eq!(phases, ["first", "second", "third"]);
}

/// The bulk load through the lifecycle (`session::ingest::ingest`): two processes' loads of
/// one corpus, measured apart, merge into the counts one load of the whole would have.
#[test]
fn two_loads_measurements_merge_into_the_whole() {
    use searchbench::ingest::figures::LoadFigures;
    use searchbench::session::ingest::{ingest, LoadSpec};
    use searchbench::session::{Attach, Job};
    use searchbench::workload::WorkloadSpec;
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let spec = cluster();
    let load = |docs: u64, seed: u64| {
        let mut w = WorkloadSpec::new(seed);
        w.docs = Some(docs);
        let job = Job::generated("logs", &w, Some(format!("lifecycle-{seed}")), &[]).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut load = LoadSpec::new(job.index.clone());
        load.failures = Some(dir.path().join("failures.ndjson"));
        load.driver.warmup = std::time::Duration::ZERO;
        let report = runtime
            .block_on(ingest(job, &spec, load, &Attach::nothing(), &Silent))
            .expect("a load into the bulk sink");
        assert_eq!(report.counts.indexed, docs, "{:?}", report.counts);
        // The report's figures are the ones derived from what its phase keeps.
        let derived = LoadFigures::of(&report.measurements).expect("a load's measurements");
        assert_eq!(derived.docs_per_sec, report.docs_per_sec);
        assert_eq!(derived.counts.indexed, docs);
        report.measurements
    };
    let mut merged = load(3_000, 1);
    let other = load(2_000, 2);
    merged.merge(&other).unwrap();
    assert_eq!(merged.counts["indexed"], 5_000);
    assert_eq!(merged.counts["read"], 5_000);
    let per_second: u64 = merged.seconds.values().filter_map(|c| c.get("docs")).sum();
    assert_eq!(
        per_second, 5_000,
        "every document in some wall-clock second"
    );
    let (unit, service) = &merged.histograms["service"];
    assert_eq!(unit, "us");
    assert!(
        service.len() >= 5,
        "one sample per bulk request of both loads"
    );
    let both = LoadFigures::of(&merged).expect("a load");
    assert_eq!(both.counts.indexed, 5_000);
    assert_eq!(both.service.count, service.len());
}

/// The results store is the run's sink: it keeps the rows streamed while the run goes and the
/// result the command derived after it, then hands the run's record to its exporters: the
/// HTML page is made of it, and only for a run that ended with a result.
#[test]
fn the_store_keeps_the_run_and_hands_its_record_to_the_html_page() {
    use searchbench::session::record::{HtmlReport, StoreSink};
    use searchbench::session::{Recording, SaveSpec};
    use searchbench::store::{State, Store};
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let save = SaveSpec {
        store: Some(dir.path().join("results.db")),
        tags: Vec::new(),
        skip: false,
    };
    let log: Log = Rc::default();
    let run = |fail: bool, html: bool| {
        let identity = Identity::new(Kind::Ingest, "toy", json!({}));
        let recording = Recording::begin(&save, &identity, &Silent).expect("a store");
        let id = recording.id().clone();
        let report = html.then(|| HtmlReport::of(&recording));
        let mut sink = StoreSink::new(recording);
        if let Some(r) = report {
            sink = sink.exporter(r);
        }
        let plan = Plan::new(identity, vec![Step::One(bulk("load", 3, fail, &log))])
            .instrument(Some(Clock {
                log: log.clone(),
                broken: false,
            }))
            .sink(Some(sink));
        let ran = runtime.block_on(lifecycle::run(&cluster(), plan, &Silent, |outcome| {
            Ok(json!({"docs": outcome.phases[0].measurements.counts["docs"]}))
        }));
        assert!(
            ran.outcome.warnings.is_empty(),
            "{:?}",
            ran.outcome.warnings
        );
        let store = Store::open(dir.path().join("results.db")).unwrap();
        let row = store.get(&id.0).unwrap();
        let written = searchbench::report::default_html_path(&store, &id)
            .unwrap()
            .exists();
        let telemetry = store.telemetry(&id).unwrap().len();
        let phases: Vec<(String, Option<u64>)> = store
            .phases(&id)
            .unwrap()
            .into_iter()
            .map(|p| (p.phase, p.measurements.counts.get("docs").copied()))
            .collect();
        (row, written, telemetry, phases)
    };
    let (row, written, telemetry, phases) = run(false, true);
    assert_eq!(
        phases,
        [("load".to_string(), Some(3))],
        "what the phase measured is kept as it ended"
    );
    assert_eq!(row.state, State::Complete);
    assert_eq!(
        row.result,
        Some(json!({"docs": 3})),
        "the derived result is kept"
    );
    assert_eq!(telemetry, 1, "the row the instrument streamed is kept");
    assert!(written, "the report follows the store");
    let (row, written, _, _) = run(false, false);
    assert_eq!(row.state, State::Complete);
    assert!(!written, "the report is a sink that can be off");
    let (row, written, telemetry, phases) = run(true, true);
    assert_eq!(row.state, State::Failed);
    assert!(
        phases.is_empty(),
        "a phase that failed measured nothing: {phases:?}"
    );
    assert_eq!(row.error.as_deref(), Some("the toy phase fails"));
    assert_eq!(telemetry, 1, "what was streamed before the failure is kept");
    assert!(!written, "a failed run has no report of a result");
}
