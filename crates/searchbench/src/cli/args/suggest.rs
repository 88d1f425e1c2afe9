//! Values the shell completes without limiting what is accepted: the engines of the catalogue
//! and the built-in workloads. An engine may also be `elasticsearch-8.17.x`, a workload a
//! name a newer build knows; the command itself says when a value is wrong, in its own words.

use std::ffi::OsStr;

use clap::builder::{PossibleValue, StringValueParser, TypedValueParser};

/// A string argument whose completions come from `values`.
#[derive(Clone, Copy)]
pub struct Suggest(fn() -> Vec<String>);

impl TypedValueParser for Suggest {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<String, clap::Error> {
        StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new((self.0)().into_iter().map(PossibleValue::new)))
    }
}

/// The engines of the catalogue (`opensearch-2.19.1`, …).
pub fn engines() -> Suggest {
    Suggest(|| crate::engine::all().into_iter().map(|e| e.name).collect())
}

/// The built-in workloads (`logs`, …).
pub fn workloads() -> Suggest {
    Suggest(|| {
        crate::workload::names()
            .into_iter()
            .map(String::from)
            .collect()
    })
}
