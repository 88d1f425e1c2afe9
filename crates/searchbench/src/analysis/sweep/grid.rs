//! The grid a sweep runs: its axes, the values given for each, and one cell's parameters
//! (with the tags and label it is stored and shown under).

use serde::{Deserialize, Serialize};

/// One cell's parameters. An axis that was not swept is `None` in every cell (the workload's
/// or the engine's default applies).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellParams {
    pub bulk_docs: usize,
    pub clients: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bulk_bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shards: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refresh_interval: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translog_durability: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gzip: Option<bool>,
}

/// The axes a sweep can vary, in the order cells are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Axis {
    BulkDocs,
    Clients,
    BulkBytes,
    Shards,
    RefreshInterval,
    TranslogDurability,
    Replicas,
    Gzip,
}

pub const AXES: [Axis; 8] = [
    Axis::BulkDocs,
    Axis::Clients,
    Axis::BulkBytes,
    Axis::Shards,
    Axis::RefreshInterval,
    Axis::TranslogDurability,
    Axis::Replicas,
    Axis::Gzip,
];

impl Axis {
    /// The flag's name, also the run's tag key.
    pub fn name(self) -> &'static str {
        match self {
            Axis::BulkDocs => "bulk_size",
            Axis::Clients => "clients",
            Axis::BulkBytes => "bulk_bytes",
            Axis::Shards => "shards",
            Axis::RefreshInterval => "refresh_interval",
            Axis::TranslogDurability => "translog_durability",
            Axis::Replicas => "replicas",
            Axis::Gzip => "gzip",
        }
    }

    /// Whether larger values cost more (a knee means something along it).
    pub fn ordered(self) -> bool {
        matches!(
            self,
            Axis::BulkDocs | Axis::Clients | Axis::BulkBytes | Axis::Shards | Axis::Replicas
        )
    }
}

impl CellParams {
    /// The cell's value on `axis`, as text (`None`: not swept).
    pub fn value(&self, axis: Axis) -> Option<String> {
        match axis {
            Axis::BulkDocs => Some(self.bulk_docs.to_string()),
            Axis::Clients => Some(self.clients.to_string()),
            Axis::BulkBytes => self.bulk_bytes.map(|b| b.to_string()),
            Axis::Shards => self.shards.map(|s| s.to_string()),
            Axis::RefreshInterval => self.refresh_interval.clone(),
            Axis::TranslogDurability => self.translog_durability.clone(),
            Axis::Replicas => self.replicas.map(|r| r.to_string()),
            Axis::Gzip => self.gzip.map(|g| if g { "on" } else { "off" }.to_string()),
        }
    }

    /// The cell's value on `axis` as a number for plotting and ordering (an index for words).
    pub(super) fn number(&self, axis: Axis) -> f64 {
        match axis {
            Axis::BulkDocs => self.bulk_docs as f64,
            Axis::Clients => self.clients as f64,
            Axis::BulkBytes => self.bulk_bytes.unwrap_or(0) as f64,
            Axis::Shards => f64::from(self.shards.unwrap_or(0)),
            Axis::Replicas => f64::from(self.replicas.unwrap_or(0)),
            Axis::RefreshInterval => {
                f64::from(u8::from(self.refresh_interval.as_deref() == Some("-1")))
            }
            Axis::TranslogDurability => f64::from(u8::from(
                self.translog_durability.as_deref() == Some("async"),
            )),
            Axis::Gzip => f64::from(u8::from(self.gzip == Some(true))),
        }
    }

    /// Tags of the cell's runs: one per swept axis (`bulk_size=100`, `clients=4`, ...).
    pub fn tags(&self) -> Vec<(String, String)> {
        AXES.iter()
            .filter_map(|&a| Some((a.name().to_string(), self.value(a)?)))
            .collect()
    }

    /// `bulk 100 × 4 clients, shards 2, translog async`.
    pub fn label(&self) -> String {
        let mut s = format!(
            "bulk {} × {} client{}",
            self.bulk_docs,
            self.clients,
            if self.clients == 1 { "" } else { "s" }
        );
        for axis in &AXES[2..] {
            if let Some(v) = self.value(*axis) {
                s.push_str(&format!(", {} {v}", axis.name().replace('_', " ")));
            }
        }
        s
    }

    /// Equal on every axis but `but`.
    pub fn same_except(&self, other: &CellParams, but: &[Axis]) -> bool {
        AXES.iter()
            .filter(|a| !but.contains(a))
            .all(|&a| self.value(a) == other.value(a))
    }

    /// What the cell costs, smallest first: fewer clients, smaller requests, fewer shards,
    /// then the safer settings (a durable translog, a refresh kept, no gzip CPU).
    pub(super) fn cost(&self) -> (usize, usize, usize, u32, u8) {
        let risk = u8::from(self.translog_durability.as_deref() == Some("async"))
            + u8::from(self.refresh_interval.as_deref() == Some("-1"))
            + u8::from(self.gzip == Some(true));
        (
            self.clients,
            self.bulk_docs,
            self.bulk_bytes.unwrap_or(0),
            self.shards.unwrap_or(0),
            risk,
        )
    }
}

/// The grid: the values of each axis (an empty optional axis is not swept).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Grid {
    pub bulk_docs: Vec<usize>,
    pub clients: Vec<usize>,
    pub bulk_bytes: Vec<usize>,
    pub shards: Vec<u32>,
    pub refresh_interval: Vec<String>,
    pub translog_durability: Vec<String>,
    pub replicas: Vec<u32>,
    pub gzip: Vec<bool>,
}

/// `[]` as `[None]`, else each value as `Some`.
fn optional<T: Clone>(values: &[T]) -> Vec<Option<T>> {
    if values.is_empty() {
        vec![None]
    } else {
        values.iter().cloned().map(Some).collect()
    }
}

impl Grid {
    /// Every combination, bulk size outermost.
    pub fn cells(&self) -> Vec<CellParams> {
        let mut out = Vec::new();
        for &bulk_docs in &self.bulk_docs {
            for &clients in &self.clients {
                for bulk_bytes in optional(&self.bulk_bytes) {
                    for shards in optional(&self.shards) {
                        for refresh_interval in optional(&self.refresh_interval) {
                            for translog_durability in optional(&self.translog_durability) {
                                for replicas in optional(&self.replicas) {
                                    for gzip in optional(&self.gzip) {
                                        out.push(CellParams {
                                            bulk_docs,
                                            clients,
                                            bulk_bytes,
                                            shards,
                                            refresh_interval: refresh_interval.clone(),
                                            translog_durability: translog_durability.clone(),
                                            replicas,
                                            gzip,
                                        });
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_cells_and_tags() {
        let grid = Grid {
            bulk_docs: vec![10, 100],
            clients: vec![1, 2, 4],
            translog_durability: vec!["request".into(), "async".into()],
            ..Grid::default()
        };
        let cells = grid.cells();
        assert_eq!(cells.len(), 12);
        assert_eq!(
            cells[1].tags(),
            vec![
                ("bulk_size".to_string(), "10".to_string()),
                ("clients".into(), "1".into()),
                ("translog_durability".into(), "async".into())
            ]
        );
        assert_eq!(
            cells[1].label(),
            "bulk 10 × 1 client, translog durability async"
        );
    }
}
