//! The engine modules a track's challenge needs ([`crate::tasks::needs`]), asked of the node
//! once, by the run's first task or bulk, before it sends anything: on Elasticsearch 8 and
//! later a module that the track's indices, templates or pipelines need refuses the run, and
//! a module only a task needs leaves that task out, listed with why.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use tokio::sync::OnceCell;

use super::SessionError;
use crate::cluster::Target;
use crate::tasks::needs::{self, Need};
use crate::tasks::plan::Item;

/// The engine modules a challenge needs ([`crate::tasks::needs`]), asked of the node once,
/// by the first task or bulk, before it sends anything; and the tasks left out for a module
/// the node lacks.
pub struct ModulesCheck {
    needs: Vec<Need>,
    /// What the node lacks, once asked.
    lacking: OnceCell<Vec<Need>>,
    /// The tasks left out, by name, with why.
    left_out: Mutex<BTreeMap<String, Item>>,
}

impl ModulesCheck {
    pub fn new(needs: Vec<Need>) -> Self {
        ModulesCheck {
            needs,
            lacking: OnceCell::new(),
            left_out: Default::default(),
        }
    }

    /// Asks the node (once). A module a task that makes an index, a template, a data stream
    /// or a pipeline needs refuses the run: nothing after it would mean anything.
    pub async fn ensure(&self, target: &Target) -> Result<(), SessionError> {
        let lacking = self
            .lacking
            .get_or_try_init(|| lacking(target, &self.needs))
            .await?;
        let setup: Vec<&Need> = lacking.iter().filter(|n| n.setup).collect();
        if setup.is_empty() {
            return Ok(());
        }
        Err(SessionError::Usage(format!(
            "this Elasticsearch lacks module(s) the track needs to make its indices, so no \
             task was run:\n  {}\n(Elasticsearch's distribution on Maven Central, which \
             searchbench starts, has only a few modules and nothing there carries these: run \
             the track against a full Elasticsearch with --url)",
            needs::describe(&setup).join("\n  ")
        )))
    }

    /// Whether task `name` is left out for a module it needs that the node lacks: noted, with
    /// why, for the run's list of what did not run. Nothing is left out before the node was
    /// asked.
    pub fn leaves_out(&self, name: &str, operation_type: &str) -> bool {
        let Some(lacking) = self.lacking.get() else {
            return false;
        };
        let mine: Vec<&Need> = lacking
            .iter()
            .filter(|n| n.tasks.iter().any(|t| t == name))
            .collect();
        if mine.is_empty() {
            return false;
        }
        let why = mine
            .iter()
            .map(|n| format!("{} ({})", n.module, n.features.join(", ")))
            .collect::<Vec<_>>()
            .join(", ");
        let item = Item {
            what: format!("task {name} ({operation_type})"),
            runs: false,
            worker: false,
            how: format!(
                "it needs the module(s) {why}, which this Elasticsearch lacks (its distribution \
                 on Maven Central has only a few modules): run it against a full cluster at \
                 --url"
            ),
        };
        if let Ok(mut left) = self.left_out.lock() {
            left.insert(name.to_string(), item);
        }
        true
    }

    /// The tasks left out, in name order.
    pub fn left_out(&self) -> Vec<Item> {
        self.left_out
            .lock()
            .map(|l| l.values().cloned().collect())
            .unwrap_or_default()
    }
}

/// The needs a node lacks: on Elasticsearch 8 and later, where its modules hold what the
/// tracks use; none elsewhere (OpenSearch and Elasticsearch 7 keep some in the server).
async fn lacking(target: &Target, needs: &[Need]) -> Result<Vec<Need>, SessionError> {
    if needs.is_empty() {
        return Ok(Vec::new());
    }
    let (product, version, _) = target.product().await?;
    if !needs::applies(product, &version) {
        return Ok(Vec::new());
    }
    // A user who may not read the nodes' plugins (a cluster's own roles) is not refused for
    // it: the engine's own errors will name what it lacks, as before this check.
    let Ok(answer) = target
        .get_json::<serde_json::Value>(
            "/_nodes/plugins?filter_path=nodes.*.modules.name,nodes.*.plugins.name",
        )
        .await
    else {
        return Ok(Vec::new());
    };
    // A module every node has: one node without it fails the steps that need it there.
    let mut common: Option<BTreeSet<String>> = None;
    for node in answer["nodes"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, n)| n)
    {
        let names: BTreeSet<String> = ["modules", "plugins"]
            .iter()
            .flat_map(|k| node[*k].as_array().into_iter().flatten())
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect();
        common = Some(match common {
            Some(c) => c.intersection(&names).cloned().collect(),
            None => names,
        });
    }
    Ok(needs::lacking(needs, &common.unwrap_or_default())
        .into_iter()
        .cloned()
        .collect())
}
