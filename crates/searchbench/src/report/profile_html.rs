//! A run's engine profile on its page: the categories' shares of CPU and of allocations as
//! bars, and the stacks as two flame graphs (icicles: CPU samples, bytes allocated), each
//! frame coloured by the category its path falls in, searchable by frame name. Drawn through
//! the one chart module.

use serde_json::Value;

use super::chart::{Axis, BarSeries, Bars, Icicle, IcicleNode, ICICLE_SEARCH};
use crate::measure::profile::{categorise, Category, Flame, Profile};

/// One colour per category, the category bars' and the flame graphs' alike.
const CATEGORY_COLOURS: [&str; 11] = [
    "#9ecae1", "#fdd49e", "#c7e9c0", "#dadaeb", "#f4a6a6", "#d9d9d9", "#fde0ef", "#e6e29a",
    "#b9e3d8", "#f7c6a3", "#cfd8e3",
];

fn colour(c: Category) -> &'static str {
    let i = Category::ALL.iter().position(|x| *x == c).unwrap_or(0);
    CATEGORY_COLOURS[i % CATEGORY_COLOURS.len()]
}

/// The profile a result keeps (`--profile`), when it has one that reads.
pub fn profile_of(result: &Value) -> Option<Profile> {
    serde_json::from_value(result.get("profile")?.clone()).ok()
}

/// `flame` as an icicle's frames, valued by `value` (CPU samples or bytes), each coloured by
/// the category of its path (`path`: its callers, root first).
fn icicle_node(flame: &Flame, value: fn(&Flame) -> u64, path: &mut Vec<String>) -> IcicleNode {
    path.push(flame.name.clone());
    // The category rules read a stack leaf first.
    let leaf_first: Vec<&str> = path.iter().rev().map(String::as_str).collect();
    let node = IcicleNode {
        name: flame.name.clone(),
        value: value(flame) as f64,
        colour: colour(categorise(&leaf_first)).to_string(),
        children: flame
            .children
            .iter()
            .filter(|c| value(c) > 0)
            .map(|c| icicle_node(c, value, path))
            .collect(),
    };
    path.pop();
    node
}

/// A flame graph's view: its name, title, unit, and the value of a frame in it.
type View = (&'static str, &'static str, &'static str, fn(&Flame) -> u64);

/// The two flame graphs of a profile's tree: CPU, then allocations.
pub fn icicles(flame: &Flame) -> Vec<Icicle> {
    let keys: Vec<(String, String)> = Category::ALL
        .iter()
        .map(|c| (c.name().to_string(), colour(*c).to_string()))
        .collect();
    let views: [View; 2] = [
        ("cpu", "Flame graph: engine CPU", "CPU samples", |f| f.cpu),
        (
            "alloc",
            "Flame graph: allocations",
            "bytes allocated",
            |f| f.bytes,
        ),
    ];
    views
        .into_iter()
        .filter(|(_, _, _, value)| value(flame) > 0)
        .map(|(view, title, unit, value)| Icicle {
            title: title.into(),
            hint: "Each frame as wide as its share of the whole, its callees below it; the \
                   colour is the category of its path. Hover a frame for its share; search by \
                   name above."
                .into(),
            unit: unit.into(),
            view: view.into(),
            root: icicle_node(flame, value, &mut Vec::new()),
            keys: keys.clone(),
        })
        .collect()
}

/// The profile's section of a run's page; empty without a profile.
pub fn section(result: &Value) -> String {
    let Some(p) = profile_of(result) else {
        return String::new();
    };
    let mut s = String::from("<h3>Where the engine's CPU and allocations went</h3>");
    let bars = Bars {
        title: "Categories: share of CPU samples and of bytes allocated".into(),
        hint: format!(
            "{} CPU samples and {} allocation samples over {:.0} s",
            p.cpu_samples, p.alloc_samples, p.window_secs
        ),
        categories: p
            .categories
            .iter()
            .map(|c| c.category.name().to_string())
            .collect(),
        series: vec![
            BarSeries {
                name: "CPU".into(),
                colour: super::chart::group_colour(0).into(),
                values: p.categories.iter().map(|c| Some(c.cpu_pct)).collect(),
            },
            BarSeries {
                name: "allocations".into(),
                colour: super::chart::group_colour(1).into(),
                values: p.categories.iter().map(|c| Some(c.alloc_pct)).collect(),
            },
        ],
        stacked: false,
        axis: Axis::new("share (%)").range(0.0, 100.0),
        unit: " %".into(),
    };
    s.push_str(&super::chart::grid([bars.into()]));
    let Some(flame) = &p.flame else {
        s.push_str(
            "<p class=\"hint\">No flame graph: this run's profile kept no stacks (recorded \
             before searchbench kept them).</p>",
        );
        return s;
    };
    s.push_str(
        "<p class=\"flame-search\"><label>Search frames <input type=\"search\" \
         id=\"flame-search\" placeholder=\"e.g. DateFormatter\"></label> \
         <span id=\"flame-matched\"></span></p>",
    );
    for icicle in icicles(flame) {
        s.push_str(&icicle.render());
    }
    s.push_str(&format!("<script>{ICICLE_SEARCH}</script>"));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::profile::samples::{stack, Samples};
    use crate::measure::profile::summarise;

    /// A profile's section: the category bars, the search box, and both flame graphs with
    /// every frame a child's width within its parent's.
    #[test]
    fn a_profile_draws_its_categories_and_both_flame_graphs() {
        let index = [
            "org.apache.lucene.index.IndexingChain.processDocument",
            "org.elasticsearch.index.shard.IndexShard.index",
            "org.elasticsearch.action.bulk.TransportShardBulkAction.performOnPrimary",
            "java.lang.Thread.run",
        ];
        let date = [
            "java.time.format.DateTimeFormatter.parse",
            "org.elasticsearch.index.mapper.DateFieldMapper.parseCreateField",
            "org.elasticsearch.action.bulk.TransportShardBulkAction.performOnPrimary",
            "java.lang.Thread.run",
        ];
        let samples = Samples {
            stacks: vec![stack(&index, 700, 4_000_000), stack(&date, 300, 6_000_000)],
            gcs: 0,
            gc_pause_ns: 0,
        };
        let p = summarise(&samples, 10.0);
        let result = serde_json::json!({ "profile": p });
        let html = section(&result);
        if let Ok(dir) = std::env::var("SEARCHBENCH_DUMP") {
            let page = crate::report::page::render("profile", "", &html);
            std::fs::write(format!("{dir}/profile.html"), page).unwrap();
        }
        assert!(html.contains("id=\"flame-search\""));
        assert_eq!(html.matches("<svg class=\"icicle\"").count(), 2);
        assert!(html.contains("data-view=\"cpu\"") && html.contains("data-view=\"alloc\""));
        assert!(html.contains("data-name=\"java.time.format.DateTimeFormatter.parse\""));
        assert!(html.contains("<svg class=\"bars\""));
        // Every frame lies within its parent's span, the root the whole width.
        let icicles = icicles(p.flame.as_ref().unwrap());
        fn within(n: &IcicleNode) {
            let sum: f64 = n.children.iter().map(|c| c.value).sum();
            assert!(sum <= n.value, "{}: {sum} > {}", n.name, n.value);
            n.children.iter().for_each(within);
        }
        for i in &icicles {
            within(&i.root);
        }
        assert_eq!(icicles[0].root.value, 1000.0);
        assert_eq!(icicles[1].root.value, 10_000_000.0);
        // A result without a profile has no section.
        assert!(section(&serde_json::json!({})).is_empty());
    }
}
