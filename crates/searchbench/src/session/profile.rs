//! The engine profile as an instrument of the run's lifecycle: around a phase, a Java Flight
//! Recorder recording of every local node (the nodes we started, or `--profile-pid`), read
//! back and put in categories when the phase ends ([`crate::measure::profile`]). The phase
//! keeps the [`Profile`] in its result; each node's recording is kept beside the store under
//! the run's id.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use super::lifecycle::{Hand, Instrument, Seen, Stage, Work};
use crate::engine::paths::cache_root;
use crate::measure::profile::{self, jfr, reader, Profile};

/// Whether to profile, and which processes.
#[derive(Debug, Clone, Default)]
pub struct ProfileSpec {
    /// The processes to profile (`--profile-pid`); empty: the nodes the run started.
    pub pids: Vec<u32>,
}

/// The profile instrument's name: what a phase takes its [`Profile`] under.
pub const PROFILE: Hand<Profile> = Hand::new(profile::INSTRUMENT);

/// A folder of our own in the temporary directory that any user may write to (the node
/// writes its recording, perhaps as `nobody` when we are root); removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> std::io::Result<Scratch> {
        use std::os::unix::fs::PermissionsExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "searchbench-profile-{}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir(&dir)?;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777))?;
        Ok(Scratch(dir))
    }

    fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One recording under way.
struct Running {
    node: jfr::Node,
    name: String,
    file: PathBuf,
}

/// Flight Recorder recordings of the local nodes, one span at a time: started, stopped, read
/// back. What the profile instrument does around a phase, and the date-cost experiment around
/// each of its loads.
pub struct Recorder {
    spec: ProfileSpec,
    /// Where recordings are kept (the store's `profiles/<run id>/`); `None`: not kept.
    keep: Option<PathBuf>,
    /// A folder the nodes may write their recordings to (they may run as another user).
    scratch: Option<Scratch>,
    running: Vec<Running>,
    started: Option<Instant>,
    /// Nodes given by pid whose first Flight Recorder start this is (see
    /// [`Profile::first_recording_pids`]).
    first_recording: Vec<u32>,
}

/// What one span recorded: its samples (to add to another span's) and its profile.
pub struct Recorded {
    pub samples: profile::Samples,
    pub profile: Profile,
}

impl Recorder {
    pub fn new(spec: &ProfileSpec, keep: Option<PathBuf>) -> Self {
        Recorder {
            spec: spec.clone(),
            keep,
            scratch: None,
            running: Vec::new(),
            started: None,
            first_recording: Vec::new(),
        }
    }

    /// Whether a span is being recorded.
    pub fn running(&self) -> bool {
        !self.running.is_empty()
    }

    /// Starts recording each node (`--profile-pid`, else `engine_pids`: the nodes the run
    /// started); `label` names the recordings. What did start is stopped when one fails.
    pub async fn start(&mut self, label: &str, engine_pids: &[u32]) -> Result<(), String> {
        let begun = self.begin(label, engine_pids).await;
        if begun.is_err() {
            // What did start must not keep recording.
            for r in std::mem::take(&mut self.running) {
                let _ = r.node.stop(&r.name).await;
            }
            self.scratch = None;
        }
        begun
    }

    async fn begin(&mut self, label: &str, engine_pids: &[u32]) -> Result<(), String> {
        let label = recording_label(label);
        let pids = if self.spec.pids.is_empty() {
            // The nodes the run started: each its start script's process group.
            engine_pids.iter().map(|&p| jfr::group_jvm(p)).collect()
        } else {
            self.spec.pids.clone()
        };
        if pids.is_empty() {
            return Err("no local node to profile (--profile-pid names one)".into());
        }
        let scratch = Scratch::new().map_err(|e| e.to_string())?;
        let dir = scratch.path().to_path_buf();
        let settings = dir.join("searchbench.jfc");
        std::fs::write(&settings, jfr::SETTINGS).map_err(|e| e.to_string())?;
        self.scratch = Some(scratch);
        for pid in pids {
            let node = jfr::Node::of_pid(pid).map_err(|e| e.to_string())?;
            // The JVM recorded (a launcher's server child), named as such from here on.
            let pid = node.pid;
            // A node the run started is cold: nothing compiled yet to compile again.
            if !self.spec.pids.is_empty() && !node.recorder_started() {
                self.first_recording.push(pid);
            }
            node.stop_orphans(&dir).await;
            // Our own pid in the name: two runs profiling one node stop their own recording.
            let name = format!("searchbench-{}-{label}-{pid}", std::process::id());
            let file = dir.join(format!("{label}-{pid}.jfr"));
            node.start(&name, &settings, &file)
                .await
                .map_err(|e| e.to_string())?;
            self.running.push(Running { node, name, file });
        }
        self.started = Some(Instant::now());
        Ok(())
    }

    /// Stops the span, keeps its recordings and reads them, counting what began from
    /// `measured_from` on (the phase's measured window; the whole span without it). The
    /// second value says what went wrong on the way (a node that could not be stopped or
    /// read, a recording not kept); a span none of whose recordings could be read is an error.
    pub async fn stop(
        &mut self,
        measured_from: Option<Instant>,
    ) -> Result<(Recorded, Vec<String>), String> {
        let reading = Instant::now();
        // What the phase measured, when it said (a load after its warm-up): the samples
        // before are recorded, and not counted.
        let started = self.started.take().unwrap_or(reading);
        let from = measured_from.filter(|&f| f > started && f < reading);
        let since = from.map(|f| SystemTime::now() - reading.duration_since(f));
        let counted_from = from.unwrap_or(started);
        let mut kept = Vec::new();
        let mut errors = Vec::new();
        // The recordings by the JDK their node runs on: one reader for each.
        let mut recorded: BTreeMap<jfr::Jdk, Vec<(u32, PathBuf)>> = BTreeMap::new();
        for r in std::mem::take(&mut self.running) {
            if let Err(e) = r.node.stop(&r.name).await {
                errors.push(e.to_string());
                continue;
            }
            if let Some(dir) = &self.keep {
                let to = dir.join(r.file.file_name().unwrap_or_default());
                let moved = std::fs::create_dir_all(dir)
                    .and_then(|()| std::fs::copy(&r.file, &to).map(drop));
                match moved {
                    Ok(()) => kept.push(to),
                    Err(e) => errors.push(format!("keeping {}: {e}", to.display())),
                }
            }
            recorded
                .entry(r.node.jdk.clone())
                .or_default()
                .push((r.node.pid, r.file));
        }
        let mut samples = profile::Samples::default();
        // The nodes whose recordings were read: the profile's.
        let mut pids = Vec::new();
        for (jdk, recordings) in &recorded {
            let files: Vec<PathBuf> = recordings.iter().map(|(_, f)| f.clone()).collect();
            match reader::read(jdk, &cache_root(), &files, since).await {
                Ok(s) => {
                    samples.merge(s);
                    pids.extend(recordings.iter().map(|(pid, _)| *pid));
                }
                Err(e) => errors.push(e.to_string()),
            }
        }
        self.scratch = None;
        // A profile is of the recordings read: none read is no profile (not one of 0 samples).
        if pids.is_empty() {
            return Err(errors.join("; "));
        }
        let window = reading.duration_since(counted_from).as_secs_f64();
        let mut p = profile::summarise(&samples, window);
        p.warmup_secs = counted_from.duration_since(started).as_secs_f64();
        p.pids = pids;
        p.recordings = kept;
        p.first_recording_pids = std::mem::take(&mut self.first_recording);
        p.read_secs = reading.elapsed().as_secs_f64();
        Ok((
            Recorded {
                samples,
                profile: p,
            },
            errors,
        ))
    }
}

/// One profile of several spans (a variant's loads over the rounds): their samples added, over
/// their windows added; every node and recording named once.
pub fn combine(spans: Vec<Recorded>) -> Option<Profile> {
    if spans.is_empty() {
        return None;
    }
    let mut samples = profile::Samples::default();
    let (mut window, mut warmup, mut read) = (0.0, 0.0, 0.0);
    let (mut pids, mut recordings, mut first_pids) = (Vec::new(), Vec::new(), Vec::new());
    for s in spans {
        samples.merge(s.samples);
        window += s.profile.window_secs;
        warmup += s.profile.warmup_secs;
        read += s.profile.read_secs;
        pids.extend(s.profile.pids);
        recordings.extend(s.profile.recordings);
        first_pids.extend(s.profile.first_recording_pids);
    }
    pids.sort_unstable();
    pids.dedup();
    let mut p = profile::summarise(&samples, window);
    p.warmup_secs = warmup;
    p.read_secs = read;
    p.pids = pids;
    p.recordings = recordings;
    p.first_recording_pids = first_pids;
    Some(p)
}

/// Records each local node around a phase (`lifecycle::around` for one phase alone); what it
/// saw is the [`Profile`], which the phase keeps in its result and the sinks beside it.
pub struct ProfileInstrument {
    recorder: Recorder,
}

impl ProfileInstrument {
    /// The instrument `spec` asks for (`None`: no profile), keeping recordings in `keep`.
    pub fn new(spec: Option<&ProfileSpec>, keep: Option<PathBuf>) -> Option<Self> {
        Some(ProfileInstrument {
            recorder: Recorder::new(spec?, keep),
        })
    }
}

impl Instrument for ProfileInstrument {
    fn name(&self) -> String {
        PROFILE.name().into()
    }

    fn start<'a>(
        &'a mut self,
        phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<(), String>> {
        Box::pin(self.recorder.start(phase, stage.engine_pids))
    }

    fn stop<'a>(
        &'a mut self,
        _phase: &'a str,
        stage: &'a Stage<'a>,
    ) -> Work<'a, Result<Option<Seen>, String>> {
        Box::pin(async move {
            if !self.recorder.running() {
                return Ok(None);
            }
            let (recorded, errors) = self.recorder.stop(stage.measured_from.get()).await?;
            let p = recorded.profile;
            let kept = serde_json::to_value(&p).ok();
            let figures = p.figures();
            let mut seen = PROFILE.seen(p);
            if let Some(k) = kept {
                seen = seen.kept(k);
            }
            // Judged like any metric of the run, from its record (a track's tasks).
            for (key, figure) in figures {
                seen = seen.figure(&key, figure);
            }
            // What could be read is kept; what could not is the instrument's warning.
            if !errors.is_empty() {
                seen = seen.warning(errors.join("; "));
            }
            Ok(Some(seen))
        })
    }
}

/// The most of a phase's name a recording's name and file keep.
const LABEL_CHARS: usize = 64;

/// A phase's name (a track's task, as the track wrote it) as a recording's name and file name
/// hold it: letters, digits, `-` and `_` only, at most [`LABEL_CHARS`]. The engine's JVM writes
/// the file (`jcmd JFR.start filename=…`, split at spaces): a task named `../../x` or `a b`
/// would write outside the scratch folder or break the command.
fn recording_label(name: &str) -> String {
    let kept = name.chars().map(|c| {
        if c.is_ascii_alphanumeric() || c == '-' {
            c
        } else {
            '_'
        }
    });
    let label: String = kept.take(LABEL_CHARS).collect();
    if label.is_empty() {
        "phase".into()
    } else {
        label
    }
}

#[cfg(test)]
mod tests {
    use super::recording_label;

    /// A task's name cannot lead the engine's JVM to write outside the scratch folder, split
    /// the `jcmd` command, or name a file too long to make.
    #[test]
    fn a_recording_is_named_within_its_folder_whatever_the_task_is_called() {
        assert_eq!(recording_label("../../../../tmp/x"), "____________tmp_x");
        assert_eq!(recording_label("index append"), "index_append");
        assert_eq!(recording_label("bulk-1"), "bulk-1");
        assert_eq!(recording_label(""), "phase");
        assert_eq!(recording_label(&"é".repeat(300)).len(), super::LABEL_CHARS);
    }
}
