//! A profile's stacks as one tree, root first (an icicle): every node is a frame reached by
//! one path from the root, with the CPU samples and the allocated bytes of every stack that
//! passes through it. Small branches are left out (what they had stays in their parent, as
//! its own), so the tree a run keeps stays a few thousand nodes whatever the recording held:
//! a node is kept when it has at least [`MIN_SHARE`] of the CPU samples or of the bytes.

use serde::{Deserialize, Serialize};

use super::samples::Samples;

/// The least share of either view a node keeps to be drawn (0.2 %: one pixel of a 500-pixel
/// icicle).
pub const MIN_SHARE: f64 = 0.002;
/// Frames deeper than this are summed into the frame at this depth.
pub const MAX_DEPTH: usize = 256;
/// The most frames a tree read back may hold: far past the few thousand [`MIN_SHARE`] keeps.
pub const MAX_FRAMES: usize = 200_000;

/// One frame of the tree and what passed through it. Kept flat (each frame with its
/// parent's position, parents first): a JSON reader refuses nesting as deep as Java stacks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "Flat", try_from = "Flat")]
pub struct Flame {
    /// `package.Class.method`; the root is `all`.
    pub name: String,
    /// CPU samples of the stacks through this node (its own and its children's).
    pub cpu: u64,
    /// Bytes allocated by the stacks through this node.
    pub bytes: u64,
    /// Sorted by name, so two runs' trees line up.
    pub children: Vec<Flame>,
}

/// A tree as it is kept: its frames in depth-first order, each naming its parent's position.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Flat {
    pub frames: Vec<FlatFrame>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FlatFrame {
    pub name: String,
    /// The parent's position in `frames`; none for the root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
    pub cpu: u64,
    pub bytes: u64,
}

impl From<Flame> for Flat {
    fn from(root: Flame) -> Flat {
        let mut frames = Vec::new();
        let mut stack = vec![(root, None)];
        while let Some((node, parent)) = stack.pop() {
            let at = frames.len();
            frames.push(FlatFrame {
                name: node.name,
                parent,
                cpu: node.cpu,
                bytes: node.bytes,
            });
            for c in node.children.into_iter().rev() {
                stack.push((c, Some(at)));
            }
        }
        Flat { frames }
    }
}

impl TryFrom<Flat> for Flame {
    type Error = String;

    fn try_from(flat: Flat) -> Result<Flame, String> {
        // A tree read back is only as honest as the store or document it came from: one
        // deeper or wider than any this tool keeps is refused, not walked (each walk of it
        // recurses, and its drawing copies each node's path).
        if flat.frames.len() > MAX_FRAMES {
            return Err(format!(
                "{} frames, past the {MAX_FRAMES} a tree keeps",
                flat.frames.len()
            ));
        }
        // Children attach to their parent once all of theirs are in: built from the last.
        let mut nodes: Vec<Option<Flame>> = Vec::with_capacity(flat.frames.len());
        let mut parents = Vec::with_capacity(flat.frames.len());
        let mut depths: Vec<usize> = Vec::with_capacity(flat.frames.len());
        for (i, f) in flat.frames.into_iter().enumerate() {
            let depth = match f.parent {
                Some(p) if p >= i => return Err(format!("frame {i} names a later parent {p}")),
                None if i > 0 => return Err(format!("frame {i} has no parent")),
                Some(p) => depths[p] + 1,
                None => 0,
            };
            if depth > MAX_DEPTH {
                return Err(format!("frame {i} is deeper than {MAX_DEPTH} frames"));
            }
            depths.push(depth);
            parents.push(f.parent);
            nodes.push(Some(Flame {
                name: f.name,
                cpu: f.cpu,
                bytes: f.bytes,
                children: Vec::new(),
            }));
        }
        for i in (1..nodes.len()).rev() {
            let node = nodes[i].take().ok_or("a frame twice")?;
            let p = parents[i].ok_or("a frame without a parent")?;
            nodes[p]
                .as_mut()
                .ok_or("a parent taken before its child")?
                .children
                .push(node);
        }
        let mut root = nodes.into_iter().next().flatten().ok_or("no frames")?;
        fn order(n: &mut Flame) {
            n.children.reverse();
            n.children.iter_mut().for_each(order);
        }
        order(&mut root);
        Ok(root)
    }
}

impl Flame {
    fn child(&mut self, name: &str) -> &mut Flame {
        let at = match self
            .children
            .binary_search_by(|c| c.name.as_str().cmp(name))
        {
            Ok(i) => i,
            Err(i) => {
                self.children.insert(
                    i,
                    Flame {
                        name: name.to_string(),
                        ..Flame::default()
                    },
                );
                i
            }
        };
        &mut self.children[at]
    }

    /// Nodes in the tree, this one included.
    pub fn nodes(&self) -> usize {
        1 + self.children.iter().map(Flame::nodes).sum::<usize>()
    }

    /// The first node named `name` (depth first), to find a frame.
    pub fn find(&self, name: &str) -> Option<&Flame> {
        if self.name == name {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(name))
    }

    /// Leaves out the branches below `min_cpu` samples and `min_bytes` bytes.
    fn prune(&mut self, min_cpu: u64, min_bytes: u64) {
        self.children
            .retain(|c| c.cpu >= min_cpu.max(1) || c.bytes >= min_bytes.max(1));
        for c in &mut self.children {
            c.prune(min_cpu, min_bytes);
        }
    }
}

/// The tree of `samples`: each stack (leaf first, as recorded) walked from its root.
pub fn flame(samples: &Samples) -> Flame {
    let mut root = Flame {
        name: "all".into(),
        ..Flame::default()
    };
    for (frames, counts) in samples.by_stack() {
        root.cpu += counts.cpu;
        root.bytes += counts.bytes;
        let mut node = &mut root;
        if frames.is_empty() {
            node = node.child("(no stack)");
            node.cpu += counts.cpu;
            node.bytes += counts.bytes;
            continue;
        }
        for frame in frames.iter().rev().take(MAX_DEPTH) {
            node = node.child(frame);
            node.cpu += counts.cpu;
            node.bytes += counts.bytes;
        }
    }
    let share = |total: u64| (total as f64 * MIN_SHARE).ceil() as u64;
    let (min_cpu, min_bytes) = (share(root.cpu), share(root.bytes));
    root.prune(min_cpu, min_bytes);
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::profile::samples::{stack, Stack};

    /// Every node holds what passed through it; a branch too small in both views is left out
    /// and stays in its parent; a branch small in CPU but large in bytes is kept.
    #[test]
    fn the_tree_sums_every_stack_through_each_frame() {
        let samples = Samples {
            stacks: vec![
                stack(&["parse", "index", "main"], 600, 0),
                stack(&["analyze", "index", "main"], 399, 0),
                stack(&["parse", "index", "main"], 0, 9_000),
                stack(&["tiny", "main"], 1, 0),
                stack(&["alloc", "main"], 0, 1_000),
                stack(&[], 0, 0),
            ],
            gcs: 0,
            gc_pause_ns: 0,
        };
        let f = flame(&samples);
        assert_eq!((f.name.as_str(), f.cpu, f.bytes), ("all", 1000, 10_000));
        let main = &f.children[0];
        assert_eq!(
            (main.name.as_str(), main.cpu, main.bytes),
            ("main", 1000, 10_000)
        );
        let names: Vec<&str> = main.children.iter().map(|c| c.name.as_str()).collect();
        // `tiny` (0.1 % of the CPU, no bytes) is left out; its sample stays in `main`.
        assert_eq!(names, ["alloc", "index"]);
        let parse = f.find("parse").unwrap();
        assert_eq!((parse.cpu, parse.bytes), (600, 9_000));
        assert_eq!(f.find("analyze").unwrap().cpu, 399);
        assert_eq!(f.nodes(), 6);
        // Kept flat, read back the same; deeper than a JSON reader's nesting limit too.
        let text = serde_json::to_string(&f).unwrap();
        assert_eq!(serde_json::from_str::<Flame>(&text).unwrap(), f);
        let deep: Vec<String> = (0..400).map(|i| format!("f{i}")).collect();
        let deep = flame(&Samples {
            stacks: vec![Stack {
                frames: deep,
                cpu: 5,
                allocs: 0,
                bytes: 0,
            }],
            gcs: 0,
            gc_pause_ns: 0,
        });
        assert_eq!(deep.nodes(), MAX_DEPTH + 1);
        let text = serde_json::to_string(&deep).unwrap();
        assert_eq!(serde_json::from_str::<Flame>(&text).unwrap(), deep);
        assert!(serde_json::from_str::<Flame>(r#"{"frames":[]}"#).is_err());
    }

    /// A tree read back that no profile of this tool makes is refused, naming why, before it
    /// is walked: a chain of 100,000 frames (whose walk would overflow the stack), or more
    /// frames than a tree keeps.
    #[test]
    fn a_tree_deeper_or_wider_than_any_kept_is_refused_unwalked() {
        let frame = |i: usize, parent: Option<usize>| FlatFrame {
            name: format!("f{i}"),
            parent,
            cpu: 1,
            bytes: 0,
        };
        let chain = (0..100_000).map(|i| frame(i, i.checked_sub(1))).collect();
        let err = Flame::try_from(Flat { frames: chain }).unwrap_err();
        assert_eq!(err, "frame 257 is deeper than 256 frames");
        let wide = (0..=MAX_FRAMES)
            .map(|i| frame(i, (i > 0).then_some(0)))
            .collect();
        let err = Flame::try_from(Flat { frames: wide }).unwrap_err();
        assert!(err.contains("200001 frames, past the 200000"), "{err}");
        let edge = (0..=MAX_DEPTH)
            .map(|i| frame(i, i.checked_sub(1)))
            .collect();
        assert_eq!(
            Flame::try_from(Flat { frames: edge }).unwrap().nodes(),
            MAX_DEPTH + 1
        );
    }
}
