//! Java Flight Recorder on a local node: a recording started and stopped with `jcmd`, the tool
//! of the JDK the node runs on; and the JDK's `jfr print`, the reference a recording reader is
//! held to ([`print`]).
//!
//! Why `jcmd` (`JFR.start` / `JFR.stop`) rather than the `jdk.management.jfr` MBean: it needs
//! nothing of the node (no JMX port opened at its start, so a node searchbench did not start
//! can be profiled too), and it is the JDK's own tool for every release we run (JDK 11 on).
//! It attaches as the node's user: as root, the node may run as `nobody`, and HotSpot takes an
//! attach only from the user it runs as; the node writes the recording, so it goes in a folder
//! that user may write.

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use std::collections::HashMap;

use super::samples::{Samples, Stack};
use super::ProfileError;

/// How long a `jcmd` call may take before it is given up: a frozen node never answers an
/// attach, and the run must not wait on it much longer than on its telemetry.
const ATTACH_TIMEOUT: Duration = Duration::from_secs(30);

/// How long the check before a run waits for a JVM to answer an attach.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);
/// How long reading recordings back may take (minutes of recording, every node).
pub(super) const READ_TIMEOUT: Duration = Duration::from_secs(120);
/// The frames Flight Recorder keeps of a stack (its `stackdepth` option, left at its default).
pub const RECORDED_STACK_DEPTH: usize = 64;

/// The events a profile reads.
pub const EVENTS: &str = "jdk.ExecutionSample,jdk.ObjectAllocationSample,jdk.GarbageCollection";

/// The recording's settings: only the events a profile reads. The JDK's own `profile`
/// settings record dozens more (locks, TLABs, I/O, class loading) and cost the load about
/// 11 % of its docs/s in paired rounds (BENCHMARKS.md, engine profile); CPU samples every
/// 20 ms (as the JDK's `default` settings) and allocation samples throttled to 150 a second
/// are what the categories need.
pub const SETTINGS: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="searchbench" description="CPU and allocation samples, GC">
  <event name="jdk.ExecutionSample">
    <setting name="enabled">true</setting>
    <setting name="period">20 ms</setting>
  </event>
  <event name="jdk.ObjectAllocationSample">
    <setting name="enabled">true</setting>
    <setting name="throttle">150/s</setting>
    <setting name="stackTrace">true</setting>
  </event>
  <event name="jdk.GarbageCollection">
    <setting name="enabled">true</setting>
    <setting name="threshold">0 ms</setting>
  </event>
</configuration>
"#;

/// A JDK's tools: the folder of its `bin/java`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Jdk {
    pub bin: PathBuf,
}

impl Jdk {
    /// The tool `name` of this JDK (`java`, `javac`, `jcmd`, `jfr`).
    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }
}

fn is_java(pid: u32) -> bool {
    std::fs::read_link(format!("/proc/{pid}/exe"))
        .is_ok_and(|exe| exe.file_name().is_some_and(|n| n == "java"))
}

/// Elasticsearch 8's launcher: a small JVM (`-Dcli.name=server`) that runs the server as its
/// child and answers no attach request.
fn is_launcher(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .unwrap_or_default()
        .split(|b| *b == 0)
        .any(|arg| arg.starts_with(b"-Dcli.name="))
}

/// The JVM that does a node's work: `pid`, or the server JVM `pid` launches when it is
/// Elasticsearch 8's launcher.
pub fn server_jvm(pid: u32) -> u32 {
    if !is_launcher(pid) {
        return pid;
    }
    crate::os::children_of(pid)
        .into_iter()
        .find(|&p| is_java(p) && !is_launcher(p))
        .unwrap_or(pid)
}

/// The server JVM of a node we started, whose start script leads the process group `pgid`
/// (the script may have left, its JVMs stay in the group): the group's JVM that is not a
/// launcher, else `pgid`.
pub fn group_jvm(pgid: u32) -> u32 {
    if is_java(pgid) && !is_launcher(pgid) {
        return pgid;
    }
    crate::os::group_members(pgid)
        .into_iter()
        .find(|&p| p != pgid && is_java(p) && !is_launcher(p))
        .unwrap_or(pgid)
}

/// A local node: its JDK, and the user it runs as.
#[derive(Debug, Clone)]
pub struct Node {
    pub pid: u32,
    pub jdk: Jdk,
    uid: u32,
    gid: u32,
}

impl Node {
    /// The node `pid`: its JDK is where `/proc/PID/exe` (its `bin/java`) lies. It must have
    /// `jcmd` (to record) and `javac` (to build the recording reader, [`super::reader`]).
    pub fn of_pid(pid: u32) -> Result<Node, ProfileError> {
        let pid = server_jvm(pid);
        let proc = PathBuf::from(format!("/proc/{pid}"));
        let meta = std::fs::metadata(&proc).map_err(|e| ProfileError::Node {
            pid,
            why: format!("no such process: {e}"),
        })?;
        let java = std::fs::read_link(proc.join("exe")).map_err(|e| ProfileError::Node {
            pid,
            why: format!("cannot read its executable: {e}"),
        })?;
        // A process that is not `java` is no JVM, whatever tools lie beside it (`/usr/bin`
        // holds jcmd and javac on a machine with a JDK installed).
        if java.file_name().is_none_or(|n| n != "java") {
            return Err(ProfileError::Node {
                pid,
                why: format!(
                    "it is not a Java process (it runs {}); name the node's JVM",
                    java.display()
                ),
            });
        }
        let jdk = Jdk {
            bin: java.parent().unwrap_or(Path::new("/")).to_path_buf(),
        };
        for tool in ["jcmd", "javac"].map(|t| jdk.tool(t)) {
            if !tool.is_file() {
                return Err(ProfileError::Node {
                    pid,
                    why: format!(
                        "it runs {}, whose JDK has no {} (a JRE cannot profile)",
                        java.display(),
                        tool.display()
                    ),
                });
            }
        }
        Ok(Node {
            pid,
            jdk,
            uid: meta.uid(),
            gid: meta.gid(),
        })
    }

    /// Whether Flight Recorder has started in this JVM before: its recorder thread runs from
    /// its first start (or first `JFR.*` command) on. Read from the thread names in `/proc`,
    /// so asking does not start it.
    pub fn recorder_started(&self) -> bool {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.pid)) else {
            return false;
        };
        tasks.flatten().any(|t| {
            std::fs::read_to_string(t.path().join("comm"))
                .is_ok_and(|name| name.starts_with("JFR Recorder"))
        })
    }

    /// Whether the JVM takes an attach (`jcmd PID VM.version`, within [`PROBE_TIMEOUT`]): what
    /// a recording needs, asked before anything runs rather than found at the phase's start.
    pub fn probe(&self) -> Result<(), ProfileError> {
        let mut cmd = std::process::Command::new(self.jdk.tool("jcmd"));
        cmd.arg(self.pid.to_string())
            .arg("VM.version")
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        if crate::os::is_root() && self.uid != 0 {
            cmd.uid(self.uid).gid(self.gid);
        }
        let fail = |why: String| ProfileError::Node {
            pid: self.pid,
            why: format!("it does not take a Flight Recorder attach: {why}"),
        };
        let mut child = cmd.spawn().map_err(|e| fail(e.to_string()))?;
        let started = std::time::Instant::now();
        loop {
            match child.try_wait() {
                Ok(Some(_)) => break,
                Ok(None) if started.elapsed() < PROBE_TIMEOUT => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Ok(None) => {
                    let _ = child.kill();
                    let _ = child.wait();
                    return Err(fail(format!(
                        "jcmd had no answer in {} s",
                        PROBE_TIMEOUT.as_secs()
                    )));
                }
                Err(e) => return Err(fail(e.to_string())),
            }
        }
        let out = child.wait_with_output().map_err(|e| fail(e.to_string()))?;
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        // jcmd exits 0 even when the attach failed; a JVM that took it names its version.
        if !out.status.success()
            || said.contains("Exception")
            || said.contains("Could not")
            || !said.contains("version")
        {
            return Err(fail(short(&said)));
        }
        Ok(())
    }

    /// `jcmd PID what...` as the node's user.
    pub async fn jcmd(&self, what: &[String]) -> Result<String, ProfileError> {
        let mut cmd = std::process::Command::new(self.jdk.tool("jcmd"));
        cmd.arg(self.pid.to_string()).args(what);
        // As root, attach as the node's user: HotSpot takes an attach only from its own.
        if crate::os::is_root() && self.uid != 0 {
            cmd.uid(self.uid).gid(self.gid);
        }
        let said = run(cmd, "jcmd", ATTACH_TIMEOUT).await?;
        // jcmd exits 0 even when the command failed in the node; it says so in its output.
        if said.contains("Exception") || said.contains("Could not") {
            return Err(ProfileError::Tool {
                tool: "jcmd".into(),
                why: short(&said),
            });
        }
        Ok(said)
    }

    /// Starts a recording named `name` with the settings file `settings` (see [`SETTINGS`]),
    /// to be written to `file` when stopped.
    pub async fn start(
        &self,
        name: &str,
        settings: &Path,
        file: &Path,
    ) -> Result<(), ProfileError> {
        self.jcmd(&[
            "JFR.start".into(),
            format!("name={name}"),
            format!("settings={}", settings.display()),
            format!("filename={}", file.display()),
        ])
        .await
        .map(drop)
    }

    /// Stops the recording `name`: the node writes it to its file.
    pub async fn stop(&self, name: &str) -> Result<(), ProfileError> {
        self.jcmd(&["JFR.stop".into(), format!("name={name}")])
            .await
            .map(drop)
    }

    /// Stops the recordings of searchbench processes that are gone (a run killed before it
    /// could stop its own would otherwise record, and write to disk, as long as the node
    /// lives), each written to `dir` to be dropped with it. Their names, or nothing when the
    /// node has never recorded (asking would start Flight Recorder in it).
    pub async fn stop_orphans(&self, dir: &Path) -> Vec<String> {
        if !self.recorder_started() {
            return Vec::new();
        }
        let Ok(said) = self.jcmd(&["JFR.check".into()]).await else {
            return Vec::new();
        };
        let mut stopped = Vec::new();
        for name in orphans(&said) {
            let file = dir.join(format!("{name}.jfr"));
            let stop = [
                "JFR.stop".into(),
                format!("name={name}"),
                format!("filename={}", file.display()),
            ];
            if self.jcmd(&stop).await.is_ok() {
                stopped.push(name);
            }
        }
        stopped
    }
}

/// The recordings `JFR.check` lists (`Recording 1: name=searchbench-PID-... (running)`) whose
/// searchbench process (PID) is gone.
fn orphans(check: &str) -> Vec<String> {
    check
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("name="))
        .filter(|name| {
            name.strip_prefix("searchbench-")
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok())
                .is_some_and(|pid| !crate::os::pid_alive(pid))
        })
        .map(str::to_string)
        .collect()
}

/// The samples of a recording as the JDK's `jfr print --json` gives them, every recorded
/// frame: the reference the recording reader is held to (tests, `bench/profile-read.sh`). Not
/// the reader of a run: it writes every event with its whole stack, about 60 bytes of JSON per
/// byte of recording (BENCHMARKS.md, engine profile).
pub async fn print(jdk: &Jdk, file: &Path) -> Result<Samples, ProfileError> {
    let mut cmd = std::process::Command::new(jdk.tool("jfr"));
    cmd.args(["print", "--json", "--events", EVENTS, "--stack-depth"])
        .arg(RECORDED_STACK_DEPTH.to_string())
        .arg(file);
    let text = run(cmd, "jfr print", READ_TIMEOUT).await?;
    let events = parse(&text).map_err(|e| ProfileError::Read {
        file: file.to_path_buf(),
        why: e.to_string(),
    })?;
    Ok(samples_of(&events))
}

/// Printed events summed by stack.
pub fn samples_of(events: &[Event]) -> Samples {
    let mut by: HashMap<Vec<String>, Stack> = HashMap::new();
    let mut out = Samples::default();
    for e in events {
        let frames: Vec<String> = e
            .values
            .stack_trace
            .as_ref()
            .map(|s| s.frames.iter().map(Frame::text).collect())
            .unwrap_or_default();
        match e.kind.as_str() {
            "jdk.ExecutionSample" => by.entry(frames).or_default().cpu += 1,
            "jdk.ObjectAllocationSample" => {
                let s = by.entry(frames).or_default();
                s.allocs += 1;
                s.bytes += e.values.weight.unwrap_or(0.0).max(0.0) as u64;
            }
            "jdk.GarbageCollection" => {
                out.gcs += 1;
                let secs = e.values.sum_of_pauses.as_deref().and_then(iso_secs);
                out.gc_pause_ns += (secs.unwrap_or(0.0) * 1e9).round() as u64;
            }
            _ => {}
        }
    }
    out.stacks = by
        .into_iter()
        .map(|(frames, s)| Stack { frames, ..s })
        .collect();
    out
}

/// Runs a tool with a timeout; its stdout, or what it said when it failed.
pub(super) async fn run(
    cmd: std::process::Command,
    what: &str,
    timeout: Duration,
) -> Result<String, ProfileError> {
    let mut cmd = tokio::process::Command::from(cmd);
    cmd.kill_on_drop(true);
    let out = tokio::time::timeout(timeout, cmd.output())
        .await
        .map_err(|_| ProfileError::Tool {
            tool: what.into(),
            why: format!("no answer in {} s", timeout.as_secs()),
        })?
        .map_err(|e| ProfileError::Tool {
            tool: what.into(),
            why: e.to_string(),
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(ProfileError::Tool {
            tool: what.into(),
            why: short(&format!(
                "{} {}",
                String::from_utf8_lossy(&out.stderr).trim(),
                stdout.trim()
            )),
        });
    }
    Ok(stdout)
}

/// What a tool said, cut to a line's length for a message.
pub(super) fn short(said: &str) -> String {
    let said = said.trim();
    match said.char_indices().nth(400) {
        Some((at, _)) => format!("{}…", &said[..at]),
        None => said.to_string(),
    }
}

/// One event of a recording, as `jfr print --json` writes it (only what a profile reads).
#[derive(Debug, Clone, Deserialize)]
pub struct Event {
    #[serde(rename = "type")]
    pub kind: String,
    pub values: Values,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Values {
    pub start_time: Option<String>,
    pub stack_trace: Option<StackTrace>,
    /// Allocation samples: the bytes this sample stands for.
    pub weight: Option<f64>,
    /// GC: the pauses of the collection, an ISO-8601 duration (`PT0.0034S`).
    pub sum_of_pauses: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct StackTrace {
    pub frames: Vec<Frame>,
    pub truncated: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Frame {
    pub method: Method,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Method {
    #[serde(rename = "type")]
    pub class: Class,
    pub name: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Class {
    pub name: String,
}

impl Frame {
    /// `package.Class.method`.
    pub fn text(&self) -> String {
        // The recording holds some names in their internal form (`java/util/HashMap`); the
        // consumer API, so the reader, names every class with dots.
        format!(
            "{}.{}",
            self.method.class.name.replace('/', "."),
            self.method.name
        )
    }
}

#[derive(Deserialize)]
struct Printed {
    recording: RecordingEvents,
}

#[derive(Deserialize)]
struct RecordingEvents {
    events: Vec<Event>,
}

/// The events of `jfr print --json` output.
pub fn parse(text: &str) -> Result<Vec<Event>, serde_json::Error> {
    serde_json::from_str::<Printed>(text).map(|p| p.recording.events)
}

/// Seconds of an ISO-8601 duration as `jfr` prints them (`PT0.0034S`, `PT1M2.5S`); `None`
/// for anything else.
pub fn iso_secs(d: &str) -> Option<f64> {
    let rest = d.strip_prefix("PT")?;
    let (mut secs, mut number) = (0.0, String::new());
    for c in rest.chars() {
        match c {
            '0'..='9' | '.' | '-' => number.push(c),
            'H' | 'M' | 'S' => {
                let v: f64 = number.parse().ok()?;
                secs += v * match c {
                    'H' => 3600.0,
                    'M' => 60.0,
                    _ => 1.0,
                };
                number.clear();
            }
            _ => return None,
        }
    }
    number.is_empty().then_some(secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_jfr_prints_them() {
        assert_eq!(iso_secs("PT0.0034S"), Some(0.0034));
        assert_eq!(iso_secs("PT1M2.5S"), Some(62.5));
        assert_eq!(iso_secs("PT1H"), Some(3600.0));
        assert_eq!(iso_secs("3 ms"), None);
        assert_eq!(iso_secs("PT0.1"), None);
    }

    #[test]
    fn printed_events_read_with_their_frames() {
        let text = r#"{"recording": {"events": [
          {"type": "jdk.ExecutionSample", "values": {"startTime": "2026-11-26T07:00:00Z",
            "stackTrace": {"truncated": false, "frames": [
              {"method": {"type": {"name": "java.time.format.DateTimeFormatter"}, "name": "parse"}, "lineNumber": 1},
              {"method": {"type": {"name": "org/opensearch/index/mapper/DocumentParser"}, "name": "parseDocument"}}
            ]}}},
          {"type": "jdk.ObjectAllocationSample", "values": {"weight": 4096, "stackTrace": null}},
          {"type": "jdk.GarbageCollection", "values": {"sumOfPauses": "PT0.002S"}}
        ]}}"#;
        let events = parse(text).unwrap();
        assert_eq!(events.len(), 3);
        let frames: Vec<String> = events[0]
            .values
            .stack_trace
            .as_ref()
            .unwrap()
            .frames
            .iter()
            .map(Frame::text)
            .collect();
        assert_eq!(
            frames,
            [
                "java.time.format.DateTimeFormatter.parse",
                "org.opensearch.index.mapper.DocumentParser.parseDocument"
            ]
        );
        assert_eq!(events[1].values.weight, Some(4096.0));
        assert_eq!(events[2].values.sum_of_pauses.as_deref(), Some("PT0.002S"));
        let samples = samples_of(&events);
        assert_eq!((samples.gcs, samples.gc_pause_ns), (1, 2_000_000));
        assert_eq!((samples.cpu_samples(), samples.alloc_samples()), (1, 1));
        let no_stack: &[String] = &[];
        assert_eq!(samples.by_stack()[no_stack].bytes, 4096);
    }
}
