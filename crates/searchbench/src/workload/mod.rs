//! Built-in workloads: corpus + index setup (+ operations and ground truth where they have them).
