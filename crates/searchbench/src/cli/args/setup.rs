//! Flags that set the index up from the user's files (`ingest`, `run`).

use std::path::PathBuf;

use clap::Args;

use crate::session::setup::SetupFiles;

/// The index's mapping, settings, template and ingest pipeline, from files.
#[derive(Debug, Clone, Default, Args)]
#[command(next_help_heading = "Index setup")]
pub struct SetupArgs {
    /// The index's mappings from this JSON file (`{"properties": ...}`), replacing the
    /// workload's (or dynamic mapping).
    #[arg(long, id = "index_mapping", value_name = "FILE", value_parser = super::input_file)]
    pub mapping: Option<PathBuf>,
    /// The index's settings from this JSON file (`{"number_of_shards": 1, ...}`).
    #[arg(long = "settings", id = "index_settings", value_name = "FILE", value_parser = super::input_file)]
    pub settings: Option<PathBuf>,
    /// The whole index body (`{"settings": ..., "mappings": ...}`) from this JSON file.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["index_mapping", "index_settings"], value_parser = super::input_file)]
    pub index_body: Option<PathBuf>,
    /// An index template (legacy or composable, told by its shape) put as
    /// searchbench-<index> before the index is created and removed after the load; its
    /// index_patterns must match the index.
    #[arg(long, value_name = "FILE", value_parser = super::input_file)]
    pub template: Option<PathBuf>,
    /// An ingest pipeline put as searchbench-<index> and used by every bulk request, removed
    /// after the load (the engine needs the processors it names).
    #[arg(long, value_name = "FILE", value_parser = super::input_file)]
    pub pipeline: Option<PathBuf>,
}

impl SetupArgs {
    pub fn spec(&self) -> SetupFiles {
        SetupFiles {
            mapping: self.mapping.clone(),
            settings: self.settings.clone(),
            index_body: self.index_body.clone(),
            template: self.template.clone(),
            pipeline: self.pipeline.clone(),
        }
    }
}
