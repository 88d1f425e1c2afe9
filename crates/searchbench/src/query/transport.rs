//! The two ways the searches of one coverage travel.

use serde::{Deserialize, Serialize};

/// How the requests of one coverage travel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// One `_search` per search, one after the other (`?request_cache=false`).
    Serial,
    /// One `_msearch` per coverage (`"request_cache": false` in every header line).
    Msearch,
}

impl Transport {
    pub const ALL: [Transport; 2] = [Transport::Serial, Transport::Msearch];

    pub fn name(self) -> &'static str {
        match self {
            Transport::Serial => "serial",
            Transport::Msearch => "msearch",
        }
    }

    pub fn parse(s: &str) -> Option<Transport> {
        Transport::ALL
            .into_iter()
            .find(|t| t.name().eq_ignore_ascii_case(s.trim()))
    }
}
