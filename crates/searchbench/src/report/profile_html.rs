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
    crate::analysis::said::Said::of_result(result).profile
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
        note: String::new(),
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
    match profile_of(result) {
        Some(p) => section_of(&p, "Where the engine's CPU and allocations went"),
        None => String::new(),
    }
}

/// The sections of the profiles a run's record keeps with its phases (a track's tasks), one
/// per phase profiled, titled by it.
pub fn phase_sections(phases: &[crate::store::PhaseMeasurements]) -> String {
    let mut s = String::new();
    for ph in phases {
        if let Some(p) = Profile::kept_in(&ph.kept) {
            let title = format!("{}: where the engine's CPU and allocations went", ph.phase);
            s.push_str(&section_of(&p, &title));
        }
    }
    s
}

/// The section of one profile under the heading `title`.
fn section_of(p: &Profile, title: &str) -> String {
    let mut s = format!("<h3>{}</h3>", super::page::esc(title));
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
    s.push_str(ICICLES_HERE);
    for icicle in icicles(flame) {
        s.push_str(&icicle.render());
    }
    s
}

/// Where a page's flame graphs begin: the first such place gets the page's one search box.
const ICICLES_HERE: &str = "<!--icicles-->";

/// `body` with the search box before its first flame graph and the search's script after
/// them, once for the whole page (every flame graph of it is searched).
pub fn with_search(body: String) -> String {
    let Some(at) = body.find(ICICLES_HERE) else {
        return body;
    };
    let mut out = String::with_capacity(body.len() + ICICLE_SEARCH.len() + 300);
    out.push_str(&body[..at]);
    out.push_str(
        "<p class=\"flame-search\"><label>Search frames <input type=\"search\" \
         id=\"flame-search\" placeholder=\"e.g. DateFormatter\"></label> \
         <span id=\"flame-matched\"></span></p>",
    );
    out.push_str(&body[at..].replace(ICICLES_HERE, ""));
    out.push_str(&format!("<script>{ICICLE_SEARCH}</script>"));
    out
}

/// A colour for a frame whose share changed by `delta` percentage points: red as it grew,
/// blue as it shrank, grey when it did not (full colour at [`DIFF_FULL`] points).
fn diff_colour(delta: f64) -> String {
    let t = (delta.abs() / DIFF_FULL).min(1.0);
    let (from, to) = (
        (0xee, 0xee, 0xee),
        if delta >= 0.0 {
            (0xd6, 0x60, 0x4d)
        } else {
            (0x43, 0x93, 0xc3)
        },
    );
    let mix = |a: i32, b: i32| (f64::from(a) + (f64::from(b) - f64::from(a)) * t).round() as i32;
    format!(
        "#{:02x}{:02x}{:02x}",
        mix(from.0, to.0),
        mix(from.1, to.1),
        mix(from.2, to.2)
    )
}

/// The change in share, in percentage points, that a differential frame shows in full colour.
const DIFF_FULL: f64 = 2.0;

/// A frame's own value: what it holds that none of its children do (its self time, its own
/// allocations).
fn own(node: &Flame, value: fn(&Flame) -> u64) -> u64 {
    let children = (node.children.iter().map(value)).fold(0u64, u64::saturating_add);
    value(node).saturating_sub(children)
}

/// Each frame's share of its tree's whole, and its own share (see [`own`]), by its path from
/// the root.
fn shares(
    flame: &Flame,
    value: fn(&Flame) -> u64,
) -> std::collections::HashMap<Vec<String>, (f64, f64)> {
    let total = value(flame) as f64;
    let mut out = std::collections::HashMap::new();
    let mut stack = vec![(flame, Vec::<String>::new())];
    while let Some((node, mut path)) = stack.pop() {
        path.push(node.name.clone());
        if total > 0.0 {
            let pct = |v: u64| v as f64 / total * 100.0;
            out.insert(path.clone(), (pct(value(node)), pct(own(node, value))));
        }
        for c in &node.children {
            stack.push((c, path.clone()));
        }
    }
    out
}

/// `after`'s frames, each coloured by how its own share changed since `before` (as a
/// differential flame graph colours them): a frame whose width changed only because
/// something beneath it did stays grey, and the colour sits where the time went. The
/// tooltip says both shares, then and now.
fn diff_node(
    after: &Flame,
    value: fn(&Flame) -> u64,
    total: f64,
    before: &std::collections::HashMap<Vec<String>, (f64, f64)>,
    path: &mut Vec<String>,
) -> IcicleNode {
    path.push(after.name.clone());
    let pct = |v: u64| v as f64 / total * 100.0;
    let (now, own_now) = (pct(value(after)), pct(own(after, value)));
    let (then, own_then) = before.get(path.as_slice()).copied().unwrap_or((0.0, 0.0));
    let node = IcicleNode {
        name: after.name.clone(),
        value: value(after) as f64,
        colour: diff_colour(own_now - own_then),
        note: format!(
            "; before {then:.2} %, {:+.2} points; itself {own_now:.2} %, before {own_then:.2} %, \
             {:+.2} points",
            now - then,
            own_now - own_then
        ),
        children: after
            .children
            .iter()
            .filter(|c| value(c) > 0)
            .map(|c| diff_node(c, value, total, before, path))
            .collect(),
    };
    path.pop();
    node
}

/// The differential flame graphs of two runs' trees: the frames of `after`, each coloured by
/// how its share of the whole changed since `before` (a frame `after` no longer has is not
/// drawn: it is in `before`'s own graph).
pub fn diff_icicles(before: &Flame, after: &Flame, names: (&str, &str)) -> Vec<Icicle> {
    let keys = vec![
        ("grew".to_string(), diff_colour(DIFF_FULL)),
        ("shrank".to_string(), diff_colour(-DIFF_FULL)),
        ("about the same".to_string(), diff_colour(0.0)),
    ];
    let views: [View; 2] = [
        ("cpu-diff", "What changed: engine CPU", "CPU samples", |f| {
            f.cpu
        }),
        (
            "alloc-diff",
            "What changed: allocations",
            "bytes allocated",
            |f| f.bytes,
        ),
    ];
    views
        .into_iter()
        .filter(|(_, _, _, value)| value(before) > 0 && value(after) > 0)
        .map(|(view, title, unit, value)| Icicle {
            title: format!("{title} ({} against {})", names.1, names.0),
            hint: format!(
                "The frames of {}, each as wide as its share there; red where the share it \
                 holds itself (not through the frames beneath it) grew since {}, blue where it \
                 shrank (full colour at {DIFF_FULL} points). A frame {} no longer has is in \
                 {}'s own graph.",
                names.1, names.0, names.1, names.0
            ),
            unit: unit.into(),
            view: view.into(),
            root: diff_node(
                after,
                value,
                value(after) as f64,
                &shares(before, value),
                &mut Vec::new(),
            ),
            keys: keys.clone(),
        })
        .collect()
}

/// The differential section of a comparison of two runs with profiles; empty otherwise.
pub fn diff_section(before: (&str, &Value), after: (&str, &Value)) -> String {
    let flame = |r: &Value| profile_of(r).and_then(|p| p.flame);
    let (Some(a), Some(b)) = (flame(before.1), flame(after.1)) else {
        return String::new();
    };
    let icicles = diff_icicles(&a, &b, (before.0, after.0));
    if icicles.is_empty() {
        return String::new();
    }
    let mut s = String::from("<h2>What changed in the engine's profile</h2>");
    s.push_str(ICICLES_HERE);
    for i in icicles {
        s.push_str(&i.render());
    }
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
        let html = with_search(section(&result));
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

    /// A frame that is wider only because something beneath it grew is not coloured: the
    /// colour sits on the frame that holds the time itself (main grew from 90 % to 95 % as
    /// the idle root shrank; Lucene below it grew, the date parser did not).
    #[test]
    fn a_differential_frame_is_coloured_by_what_it_holds_itself() {
        let run = |date: u64, lucene: u64, idle: u64| {
            let samples = Samples {
                stacks: vec![
                    stack(&["parse", "main"], date, 0),
                    stack(&["processDocument", "main"], lucene, 0),
                    stack(&["idle"], idle, 0),
                ],
                gcs: 0,
                gc_pause_ns: 0,
            };
            summarise(&samples, 10.0).flame.unwrap()
        };
        let icicles = diff_icicles(&run(300, 600, 100), &run(300, 650, 50), ("a", "b"));
        let root = &icicles[0].root;
        let find = |n: &IcicleNode, name: &str| n.children.iter().find(|c| c.name == name).cloned();
        let main = find(root, "main").unwrap();
        assert_eq!(main.colour, diff_colour(0.0), "{}", main.note);
        assert!(
            main.note.starts_with("; before 90.00 %, +5.00 points"),
            "{}",
            main.note
        );
        assert_eq!(find(&main, "parse").unwrap().colour, diff_colour(0.0));
        assert_eq!(
            find(&main, "processDocument").unwrap().colour,
            diff_colour(5.0)
        );
        assert_eq!(find(root, "idle").unwrap().colour, diff_colour(-5.0));
    }

    /// Two runs compared: the later run's frames, the date parser blue (its share fell from
    /// 30 % to 10 %), Lucene red (70 % to 90 %); one search box for every graph of the page.
    #[test]
    fn a_differential_flame_graph_colours_what_grew_and_what_shrank() {
        let run = |date: u64, lucene: u64| {
            let samples = Samples {
                stacks: vec![
                    stack(
                        &["java.time.format.DateTimeFormatter.parse", "main"],
                        date,
                        0,
                    ),
                    stack(
                        &[
                            "org.apache.lucene.index.IndexingChain.processDocument",
                            "main",
                        ],
                        lucene,
                        0,
                    ),
                ],
                gcs: 0,
                gc_pause_ns: 0,
            };
            serde_json::json!({ "profile": summarise(&samples, 10.0) })
        };
        let (before, after) = (run(300, 700), run(100, 900));
        let flame = |r: &Value| profile_of(r).unwrap().flame.unwrap();
        let icicles = diff_icicles(&flame(&before), &flame(&after), ("a1", "b2"));
        // No allocations: the CPU view only.
        assert_eq!(icicles.len(), 1);
        let main = &icicles[0].root.children[0];
        let node = |name: &str| {
            main.children
                .iter()
                .find(|c| c.name.ends_with(name))
                .unwrap()
        };
        assert_eq!(node("parse").colour, diff_colour(-2.0), "shrank, in full");
        assert_eq!(
            node("processDocument").colour,
            diff_colour(2.0),
            "grew, in full"
        );
        assert!(node("parse").note.contains("before 30.00 %, -20.00 points"));
        assert_eq!(main.colour, diff_colour(0.0));
        let page = with_search(format!(
            "{}{}",
            diff_section(("a1", &before), ("b2", &after)),
            section(&after)
        ));
        assert_eq!(page.matches("id=\"flame-search\"").count(), 1);
        assert_eq!(page.matches("<svg class=\"icicle\"").count(), 2);
        assert!(page.contains("data-view=\"cpu-diff\""));
        assert!(!page.contains(ICICLES_HERE));
    }
}
