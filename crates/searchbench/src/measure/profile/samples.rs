//! The samples of one or more recordings, summed by distinct stack: what a recording reader
//! gives ([`super::reader`], and the JDK's `jfr print` in [`super::jfr::print`]) and what a
//! [`super::Profile`] is summed from. A recording holds a few thousand distinct stacks for
//! hundreds of thousands of samples, so each stack is put in its category once.

use std::collections::BTreeMap;

use serde::Deserialize;

/// Samples by stack, and the collections, of one or more recordings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Samples {
    pub stacks: Vec<Stack>,
    /// Garbage collections, and the sum of their pauses (nanoseconds).
    pub gcs: u64,
    pub gc_pause_ns: u64,
}

/// One stack and what it was sampled for. A stack may appear more than once (one entry per
/// recording read); the sums are what count.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stack {
    /// `package.Class.method`, leaf first; empty for samples recorded without a stack.
    pub frames: Vec<String>,
    /// CPU (execution) samples.
    pub cpu: u64,
    /// Allocation samples, and the bytes they stand for (their weight).
    pub allocs: u64,
    pub bytes: u64,
}

/// What one stack was sampled for, summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub cpu: u64,
    pub allocs: u64,
    pub bytes: u64,
}

impl Samples {
    /// The samples of another recording added to these.
    pub fn merge(&mut self, other: Samples) {
        self.stacks.extend(other.stacks);
        self.gcs += other.gcs;
        self.gc_pause_ns += other.gc_pause_ns;
    }

    /// Each distinct stack's sums: two readers of one recording agree on this exactly.
    pub fn by_stack(&self) -> BTreeMap<&[String], Counts> {
        let mut out: BTreeMap<&[String], Counts> = BTreeMap::new();
        for s in &self.stacks {
            let c = out.entry(&s.frames).or_default();
            c.cpu += s.cpu;
            c.allocs += s.allocs;
            c.bytes += s.bytes;
        }
        out.retain(|_, c| *c != Counts::default());
        out
    }

    pub fn cpu_samples(&self) -> u64 {
        self.stacks.iter().map(|s| s.cpu).sum()
    }

    pub fn alloc_samples(&self) -> u64 {
        self.stacks.iter().map(|s| s.allocs).sum()
    }
}

/// A stack for tests: `frames` leaf first, its CPU samples and bytes (one allocation sample
/// when it has bytes).
#[cfg(test)]
pub fn stack(frames: &[&str], cpu: u64, bytes: u64) -> Stack {
    Stack {
        frames: frames.iter().map(|f| f.to_string()).collect(),
        cpu,
        allocs: u64::from(bytes > 0),
        bytes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(frames: &[&str], cpu: u64, allocs: u64, bytes: u64) -> Stack {
        Stack {
            frames: frames.iter().map(|f| f.to_string()).collect(),
            cpu,
            allocs,
            bytes,
        }
    }

    #[test]
    fn recordings_merge_and_one_stack_sums_across_them() {
        let mut a = Samples {
            stacks: vec![stack(&["a.B.c"], 3, 1, 100), stack(&["d.E.f"], 0, 0, 0)],
            gcs: 2,
            gc_pause_ns: 5,
        };
        a.merge(Samples {
            stacks: vec![stack(&["a.B.c"], 1, 2, 50)],
            gcs: 1,
            gc_pause_ns: 7,
        });
        assert_eq!((a.gcs, a.gc_pause_ns), (3, 12));
        assert_eq!((a.cpu_samples(), a.alloc_samples()), (4, 3));
        let by = a.by_stack();
        // A stack sampled for nothing is no stack of the profile.
        assert_eq!(by.len(), 1);
        let frames = ["a.B.c".to_string()];
        assert_eq!(
            by[&frames[..]],
            Counts {
                cpu: 4,
                allocs: 3,
                bytes: 150
            }
        );
    }

    #[test]
    fn the_readers_output_reads_and_anything_else_is_refused() {
        let text = r#"{"stacks":[{"frames":["java.time.format.Parsed.resolve","x.Y.z"],"cpu":2,"allocs":1,"bytes":4096}],"gcs":1,"gc_pause_ns":2000000}"#;
        let s: Samples = serde_json::from_str(text).unwrap();
        assert_eq!(s.stacks[0].frames[0], "java.time.format.Parsed.resolve");
        assert_eq!(s.gc_pause_ns, 2_000_000);
        assert!(serde_json::from_str::<Samples>(r#"{"stacks":[],"gcs":1,"pauses":2}"#).is_err());
    }
}
