//! Measurement: samples, HDR histograms, per-second timeline, statistics, attribution.
