//! The charts of the dashboards, as Vega-Lite specs: each asks the published indices with a
//! query written here whole (so a test sends it to a real engine as the apps will), draws
//! one line per workload and configuration with each night's (or engine's) runs as a bar
//! from the lowest to the highest, marks the change points `publish` found with dashed
//! rules and the team's notes (`annotate`) with solid ones, where the site marks them. The dashboard's query, filters and time range reach every query through the apps'
//! placeholders ([`context_query`]).

use serde_json::{json, Value};

use super::App;

/// How many points one chart asks for: the composite aggregation's page, the only one Vega
/// reads (it does not follow `after_key`). Ten thousand nights of a configuration, or a
/// hundred configurations over a hundred nights: past that, the dashboard's time range or
/// filters narrow it.
pub const MAX_POINTS: usize = 10_000;

/// How many change points one chart marks.
pub const MAX_CHANGES: usize = 1_000;

/// How many notes one chart marks (a team writes a few a month).
pub const MAX_NOTES: usize = 1_000;

/// What a chart is drawn over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// A point a night (a calendar day, UTC): nightlies, and what a day's runs spread over.
    Time,
    /// A point an engine, ordered by product then release ([`super::super::engine_rank`]).
    Versions,
}

impl Over {
    pub fn name(self) -> &'static str {
        match self {
            Over::Time => "time",
            Over::Versions => "version",
        }
    }
}

/// The query of every chart: the dashboard's own clauses (its search bar and filters, put in
/// by the app at view time where the placeholders stand), the time range on `time_field`,
/// and this chart's own clauses.
pub fn context_query(time_field: &str, own: Vec<Value>) -> Value {
    let mut must = vec![json!("%dashboard_context-must_clause%")];
    must.extend(own);
    must.push(json!({"range": {time_field: {"%timefilter%": true}}}));
    json!({"bool": {
        "must": must,
        "filter": ["%dashboard_context-filter_clause%"],
        "must_not": ["%dashboard_context-must_not_clause%"],
    }})
}

/// The points of `metric`: complete runs only (as `history` reads them), grouped by
/// workload, configuration and night or engine, each group's mean, lowest and highest.
pub fn points_body(metric: &str, over: Over) -> Value {
    let mut sources = vec![
        json!({"workload": {"terms": {"field": "workload"}}}),
        json!({"configuration": {"terms": {"field": "configuration"}}}),
    ];
    let mut aggs = json!({
        "mean": {"avg": {"field": "value"}},
        "low": {"min": {"field": "value"}},
        "high": {"max": {"field": "value"}},
    });
    match over {
        Over::Time => sources.push(
            json!({"night": {"date_histogram": {"field": "started_at", "calendar_interval": "1d"}}}),
        ),
        Over::Versions => {
            sources.push(json!({"engine": {"terms": {"field": "engine"}}}));
            aggs["rank"] = json!({"min": {"field": "engine_rank"}});
        }
    }
    // As `history` reads them: a part of a run split over drivers is its group's merged
    // run's (published as that run), never a line of its own at its share of the load. (A run
    // too short for its warm-up is marked `left_out_of_verdicts` but kept: whether steady runs
    // stand beside it is the history's to say, not one query's.)
    let mut query = context_query(
        "started_at",
        vec![
            json!({"term": {"metric": metric}}),
            json!({"term": {"state": "complete"}}),
        ],
    );
    if let Some(not) = query["bool"]["must_not"].as_array_mut() {
        not.push(json!({"exists": {"field": "part"}}));
    }
    json!({
        "size": 0,
        "query": query,
        "aggs": {"points": {
            "composite": {"size": MAX_POINTS, "sources": sources},
            "aggs": aggs,
        }},
    })
}

/// The change points of `metric` on this axis, as `publish` wrote them.
pub fn changes_body(metric: &str, over: Over) -> Value {
    json!({
        "size": MAX_CHANGES,
        "sort": [{"at": "asc"}],
        "_source": ["at", "engine", "engine_rank", "workload", "configuration", "shift",
                    "size_pct", "before", "after", "from", "to", "run_id", "suspect"],
        "query": context_query("at", vec![
            json!({"term": {"metric": metric}}),
            json!({"term": {"axis": over.name()}}),
        ]),
    })
}

/// The team's notes placed on this axis (at their first run, as `publish` placed them).
/// Only the time range narrows them: a note belongs to no workload or configuration, so the
/// dashboard's filters on those would hide every one.
pub fn notes_body(over: Over) -> Value {
    let mut must = vec![
        json!({"exists": {"field": "started_at"}}),
        json!({"range": {"started_at": {"%timefilter%": true}}}),
    ];
    if over == Over::Versions {
        must.push(json!({"exists": {"field": "engine"}}));
    }
    json!({
        "size": MAX_NOTES,
        "sort": [{"started_at": "asc"}],
        "_source": ["text", "tags", "started_at", "engine", "engine_rank"],
        "query": {"bool": {"must": must}},
    })
}

/// The Vega-Lite spec of one chart: `metric` over `over`, from the indices named `prefix-*`.
pub fn spec(app: App, prefix: &str, metric: &str, title: &str, over: Over) -> Value {
    let points = json!({
        "url": {"index": format!("{prefix}-metrics"), "body": points_body(metric, over)},
        "format": {"property": "aggregations.points.buckets"},
    });
    let changes = json!({
        "url": {"index": format!("{prefix}-changes"), "body": changes_body(metric, over)},
        "format": {"property": "hits.hits"},
    });
    let notes = json!({
        "url": {"index": format!("{prefix}-annotations"), "body": notes_body(over)},
        "format": {"property": "hits.hits"},
    });
    // Both layers name their fields alike (`x`, `rank`, `series`), so the axis they share
    // is one scale, ordered the same way.
    let (x_of_point, x_of_change, x_of_note, x) = match over {
        // A change point's (or a note's) run on the day its night's point stands for (UTC,
        // as the points' date histogram buckets them), not hours to its right.
        Over::Time => (
            "datum.key.night",
            "floor(datum._source.at / 86400000) * 86400000",
            "floor(datum._source.started_at / 86400000) * 86400000",
            json!({"field": "x", "type": "temporal", "title": "night (UTC)"}),
        ),
        Over::Versions => (
            "datum.key.engine",
            "datum._source.engine",
            "datum._source.engine",
            json!({"field": "x", "type": "ordinal", "title": "engine",
                   "sort": {"field": "rank", "op": "min"},
                   "axis": {"labelAngle": -30, "labelLimit": 160}}),
        ),
    };
    let rank_of_point = match over {
        Over::Time => "datum.key.night",
        Over::Versions => "datum.rank.value",
    };
    let rank_of_change = match over {
        Over::Time => "datum._source.at",
        Over::Versions => "datum._source.engine_rank",
    };
    let rank_of_note = match over {
        Over::Time => "datum._source.started_at",
        Over::Versions => "datum._source.engine_rank",
    };
    let subtitle = match over {
        Over::Time => "a night's mean, its runs' range as a bar; dashed: change point; solid: note",
        Over::Versions => {
            "an engine's mean, its runs' range as a bar; dashed: change point; solid: note"
        }
    };
    json!({
        "$schema": app.vega_lite_schema(),
        "title": {"text": title, "subtitle": format!("{metric} · {subtitle}")},
        "autosize": {"type": "fit", "contains": "padding"},
        "layer": [
            {
                "data": points,
                "transform": [
                    {"calculate": "datum.key.workload + ' ' + datum.key.configuration", "as": "series"},
                    {"calculate": x_of_point, "as": "x"},
                    {"calculate": rank_of_point, "as": "rank"},
                    {"calculate": "datum.mean.value", "as": "mean"},
                    {"calculate": "datum.low.value", "as": "low"},
                    {"calculate": "datum.high.value", "as": "high"},
                    {"calculate": "datum.doc_count", "as": "runs"},
                ],
                "encoding": {
                    "x": x,
                    "color": {"field": "series", "type": "nominal", "title": "configuration"},
                },
                "layer": [
                    {
                        "mark": {"type": "rule", "opacity": 0.6},
                        "encoding": {
                            "y": {"field": "low", "type": "quantitative", "title": metric},
                            "y2": {"field": "high"},
                        },
                    },
                    {
                        "mark": {"type": "line", "point": true},
                        "encoding": {
                            "y": {"field": "mean", "type": "quantitative", "title": metric},
                            "tooltip": [
                                {"field": "series", "title": "workload configuration"},
                                {"field": "x", "title": over.name()},
                                {"field": "mean", "format": ",.4~g"},
                                {"field": "low", "format": ",.4~g"},
                                {"field": "high", "format": ",.4~g"},
                                {"field": "runs"},
                            ],
                        },
                    },
                ],
            },
            {
                "data": changes,
                "transform": [
                    {"calculate": x_of_change, "as": "x"},
                    {"calculate": rank_of_change, "as": "rank"},
                    {"calculate": "datum._source.workload + ' ' + datum._source.configuration", "as": "series"},
                    // A suspect improvement (more errors, fewer documents) is said as such,
                    // as the site and `history` say it.
                    {"calculate": "isArray(datum._source.suspect) && length(datum._source.suspect) > 0 ? datum._source.shift + ' (suspect: ' + join(datum._source.suspect, '; ') + ')' : datum._source.shift", "as": "shift"},
                    {"calculate": "datum._source.size_pct", "as": "change_pct"},
                    {"calculate": "datum._source.from + ' → ' + datum._source.to", "as": "between"},
                    {"calculate": "datum._source.run_id", "as": "run"},
                ],
                "mark": {"type": "rule", "strokeDash": [6, 4], "strokeWidth": 2, "color": "#c0392b"},
                "encoding": {
                    "x": x,
                    "tooltip": [
                        {"field": "series", "title": "workload configuration"},
                        {"field": "shift"},
                        {"field": "change_pct", "title": "change %", "format": "+.1f"},
                        {"field": "between"},
                        {"field": "run", "title": "first run of the new level"},
                    ],
                },
            },
            {
                "data": notes,
                "transform": [
                    {"calculate": x_of_note, "as": "x"},
                    {"calculate": rank_of_note, "as": "rank"},
                    {"calculate": "datum._source.text", "as": "note"},
                ],
                // The site's colour for a note.
                "mark": {"type": "rule", "strokeWidth": 2, "color": "#8a6d00"},
                "encoding": {
                    "x": x,
                    "tooltip": [{"field": "note"}, {"field": "x", "title": over.name()}],
                },
            },
        ],
    })
}
