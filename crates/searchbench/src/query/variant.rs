//! A variant: the name of one query of a workload (`D_td`, `range_terms_s10`, a queries
//! file's `all_docs`). The workload that owns the query gives it its name and knows what it
//! asks; the method only carries the name through cells, results and the store.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// The name of one query of a workload; cheap to clone.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Variant(Arc<str>);

impl Variant {
    pub fn new(name: &str) -> Self {
        Variant(Arc::from(name))
    }

    pub fn name(&self) -> &str {
        &self.0
    }

    /// The variant of `among` called `name`, ignoring case and surrounding blanks.
    pub fn find_in(among: &[Variant], name: &str) -> Option<Variant> {
        among
            .iter()
            .find(|v| v.name().eq_ignore_ascii_case(name.trim()))
            .cloned()
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl PartialEq<str> for Variant {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Variant {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl From<&str> for Variant {
    fn from(name: &str) -> Self {
        Variant::new(name)
    }
}

impl Serialize for Variant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Variant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Variant(Arc::from(String::deserialize(d)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_variant_is_its_name() {
        let v = Variant::new("C_hdr");
        assert_eq!(serde_json::to_string(&v).unwrap(), "\"C_hdr\"");
        let back: Variant = serde_json::from_str("\"C_hdr\"").unwrap();
        assert_eq!(back, v);
        assert_eq!(v, "C_hdr");
        let among = [Variant::new("A"), Variant::new("C_hdr")];
        assert_eq!(Variant::find_in(&among, " c_HDR "), Some(v));
        assert_eq!(Variant::find_in(&among, "D"), None);
    }
}
