//! Every chart of every page, drawn here as inline SVG: nothing to fetch, nothing to run at
//! view time, the same axes, ticks, colours and legend everywhere. Three kinds:
//!
//! * [`Plot`]: measured points joined by straight segments (a gap in the samples is a gap in
//!   the line), loose dots, vertical marks (a GC, a change point), dashed guides (a limit, the
//!   diagonal) and intervals, on a numeric or categorical x axis and a linear or log y axis
//!   (log ticks at 1, 2 and 5 times a power of ten).
//! * [`Bars`]: horizontal bars, stacked (parts of a whole) or side by side.
//! * [`Heatmap`]: a grid of cells shaded by their share of the best.
//! * [`Icicle`]: a flame graph drawn root first (each frame as wide as its share of the
//!   whole, its callees below it), searchable by frame name from the page.
//!
//! Each renders to a `<figure class="chart">` whose `data-chart` describes what it shows
//! (name, legend, colours, log ticks, lines and their points); every mark that stands for a
//! measured value has the class `data`, which the page's check counts once laid out.

use std::fmt::Write as _;

use serde_json::{json, Value};

use super::page::esc;

/// One colour per group (a run, or repeated runs selected by tags), a node, a series.
pub const GROUP_COLOURS: [&str; 8] = [
    "#1f5fbf", "#e07b00", "#2a9d3a", "#7b3fb8", "#0e8a99", "#8c5a2b", "#c2188b", "#56606b",
];
/// The parts of a whole (where the time went) take their colours from another palette, so
/// no colour means both a group and a part.
pub const PART_COLOURS: [&str; 8] = [
    "#9ecae1", "#fdd49e", "#c7e9c0", "#dadaeb", "#f4a6a6", "#d9d9d9", "#fde0ef", "#e6e29a",
];
/// What is shown but not measured (warm-up), and the driver.
pub const GREY: &str = "#9aa3ab";
/// The most category labels an x axis writes.
pub const MAX_CATEGORY_LABELS: usize = 24;
/// The most dots of one chart that carry their hover text (a run's id and value).
pub const MAX_TITLED_DOTS: usize = 400;
pub const DARK_GREY: &str = "#56606b";
/// Bad news: failures, rejections, regressions.
pub const RED: &str = "#b3261e";
pub const GREEN: &str = "#2a9d3a";

/// The colour of group `i`.
pub fn group_colour(i: usize) -> &'static str {
    GROUP_COLOURS[i % GROUP_COLOURS.len()]
}

const W: f64 = 640.0;
const TOP: f64 = 12.0;
const RIGHT: f64 = 26.0;
const LEFT: f64 = 62.0;

/// A chart of any kind.
pub enum Chart {
    Plot(Plot),
    Bars(Bars),
    Heatmap(Heatmap),
    Icicle(Icicle),
}

impl Chart {
    /// The chart as a figure; empty when it has nothing to show.
    pub fn render(&self) -> String {
        match self {
            Chart::Plot(p) => p.render(),
            Chart::Bars(b) => b.render(),
            Chart::Heatmap(h) => h.render(),
            Chart::Icicle(i) => i.render(),
        }
    }
}

impl From<Plot> for Chart {
    fn from(p: Plot) -> Chart {
        Chart::Plot(p)
    }
}
impl From<Bars> for Chart {
    fn from(b: Bars) -> Chart {
        Chart::Bars(b)
    }
}
impl From<Icicle> for Chart {
    fn from(i: Icicle) -> Chart {
        Chart::Icicle(i)
    }
}
impl From<Heatmap> for Chart {
    fn from(h: Heatmap) -> Chart {
        Chart::Heatmap(h)
    }
}

/// Charts side by side in a grid (those with nothing to show left out).
pub fn grid(charts: impl IntoIterator<Item = Chart>) -> String {
    let inner: String = charts.into_iter().map(|c| c.render()).collect();
    if inner.is_empty() {
        String::new()
    } else {
        format!("<div class=\"grid\">{inner}</div>")
    }
}

/// An axis: its title, and whether it is logarithmic or has a fixed range.
#[derive(Debug, Clone, Default)]
pub struct Axis {
    pub label: String,
    pub log: bool,
    pub range: Option<(f64, f64)>,
}

impl Axis {
    pub fn new(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            ..Axis::default()
        }
    }

    /// A log axis (values at or below zero are not drawn).
    pub fn log(label: impl Into<String>) -> Axis {
        Axis {
            label: label.into(),
            log: true,
            range: None,
        }
    }

    pub fn range(mut self, low: f64, high: f64) -> Axis {
        self.range = Some((low, high));
        self
    }
}

/// A line: measured points joined by straight segments.
#[derive(Debug, Clone)]
pub struct Line {
    pub name: String,
    pub colour: String,
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
    /// The widest x step still joined; a wider one breaks the line.
    pub gap: f64,
    /// Each point drawn as a dot too.
    pub dots: bool,
    pub in_legend: bool,
}

impl Line {
    /// A solid line with its points drawn (while they are few enough to see apart).
    pub fn new(name: impl Into<String>, colour: &str, points: Vec<(f64, f64)>) -> Line {
        Line {
            name: name.into(),
            colour: colour.to_string(),
            dashed: false,
            dots: points.len() <= 120,
            points,
            gap: f64::INFINITY,
            in_legend: true,
        }
    }

    pub fn dashed(mut self) -> Line {
        self.dashed = true;
        self
    }

    pub fn gap(mut self, gap: f64) -> Line {
        self.gap = gap;
        self
    }

    pub fn without_dots(mut self) -> Line {
        self.dots = false;
        self
    }
}

/// A loose point (a run among repeats, a step that failed).
#[derive(Debug, Clone)]
pub struct Dot {
    pub x: f64,
    pub y: f64,
    pub colour: String,
    pub radius: f64,
    /// Shown on hover.
    pub title: String,
    /// An outline in this colour (the recommended cell).
    pub ring: Option<String>,
    pub class: &'static str,
}

/// A vertical mark at an x: full height, or a short tick at the bottom.
#[derive(Debug, Clone)]
pub struct Mark {
    pub x: f64,
    pub colour: String,
    pub full: bool,
    pub dashed: bool,
    pub title: String,
    pub class: &'static str,
}

/// A dashed reference line from one point to another (a limit, "kept up").
#[derive(Debug, Clone)]
pub struct Guide {
    pub from: (f64, f64),
    pub to: (f64, f64),
}

/// A vertical interval at an x (a confidence interval).
#[derive(Debug, Clone)]
pub struct Interval {
    pub x: f64,
    pub low: f64,
    pub high: f64,
    pub colour: String,
}

/// Points over an axis. With `categories`, x is a category's index (fractions lie between
/// neighbours).
#[derive(Debug, Clone, Default)]
pub struct Plot {
    pub title: String,
    pub hint: String,
    pub x: Axis,
    pub categories: Vec<String>,
    pub y: Axis,
    pub lines: Vec<Line>,
    pub dots: Vec<Dot>,
    pub marks: Vec<Mark>,
    pub guides: Vec<Guide>,
    pub intervals: Vec<Interval>,
    /// Legend entries for what is not a line (marks, dot colours): (colour, text).
    pub keys: Vec<(String, String)>,
    /// Extra attributes on the SVG (`name="value"` pairs, escaped here).
    pub attrs: Vec<(&'static str, String)>,
}

/// Rounds up to 1, 2 or 5 times a power of ten, for an axis maximum or a tick step.
pub fn nice(max: f64) -> f64 {
    if max <= 0.0 || !max.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(max.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|v| *v >= max * (1.0 - 1e-12))
        .unwrap_or(10.0 * p)
}

/// A tick's label: whole numbers plainly, small ones to three significant digits.
pub fn tick_label(v: f64) -> String {
    if v == 0.0 {
        "0".into()
    } else if v.abs() >= 100.0 || v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        let digits = (2 - v.abs().log10().floor() as i32).clamp(0, 9) as usize;
        let s = format!("{v:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

/// Log ticks for values between `lo` and `hi` (both > 0): 1, 2 and 5 times each power of ten
/// (only the powers over a wide range), from the step at or below `lo` to the one at or above
/// `hi`.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let e0 = lo.log10().floor() as i32 - 1;
    let e1 = hi.log10().ceil() as i32 + 1;
    let mult: &[f64] = if e1 - e0 > 5 {
        &[1.0]
    } else {
        &[1.0, 2.0, 5.0]
    };
    let steps: Vec<f64> = (e0..=e1)
        .flat_map(|e| {
            mult.iter()
                .map(move |m| format!("{m}e{e}").parse().unwrap_or(0.0))
        })
        .collect();
    let min = steps
        .iter()
        .copied()
        .filter(|v| *v <= lo * (1.0 + 1e-12))
        .fold(f64::NAN, |_, v| v);
    let max = steps
        .iter()
        .copied()
        .find(|v| *v >= hi * (1.0 - 1e-12) && *v > min)
        .unwrap_or(f64::NAN);
    steps
        .into_iter()
        .filter(|v| *v >= min && *v <= max)
        .collect()
}

/// Maps values on an axis to pixels between `from` and `to`.
struct Scale {
    lo: f64,
    hi: f64,
    log: bool,
    from: f64,
    to: f64,
}

impl Scale {
    fn at(&self, v: f64) -> f64 {
        let t = if self.log {
            (v.max(f64::MIN_POSITIVE).log10() - self.lo.log10())
                / (self.hi.log10() - self.lo.log10())
        } else {
            // In halves: a span near the largest float does not overflow to infinity.
            (v / 2.0 - self.lo / 2.0) / (self.hi / 2.0 - self.lo / 2.0)
        };
        self.from + t.clamp(0.0, 1.0) * (self.to - self.from)
    }
}

fn finite_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    let (lo, hi) = values
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
    lo.is_finite().then_some((lo, hi))
}

/// A value axis from data: the given range, else log ticks, else from zero (or the nice
/// negative below it) to a nice maximum. Returns the range and its ticks.
fn value_axis(axis: &Axis, values: &[f64]) -> Option<((f64, f64), Vec<f64>)> {
    if axis.log {
        let (lo, hi) = finite_range(values.iter().copied().filter(|v| *v > 0.0))?;
        let ticks = log_ticks(lo, hi);
        let (&first, &last) = (ticks.first()?, ticks.last()?);
        return Some(((first, last), ticks));
    }
    // Ticks at a round step, about six over the axis. Every bound stays a finite float: a
    // value near the largest one (read back from anywhere) must not make the axis infinite.
    let given = axis
        .range
        .filter(|(lo, hi)| lo.is_finite() && hi.is_finite());
    let (lo, hi) = match given {
        Some(r) => r,
        None => {
            let (min, max) = finite_range(values.iter().copied())?;
            let top = (max.max(0.0) * 1.05).min(f64::MAX);
            let bottom = (min.min(0.0) * 1.05).max(-f64::MAX);
            let step = nice(top / 6.0 - bottom / 6.0);
            (
                ((bottom / step).floor() * step).max(-f64::MAX),
                ((top / step).ceil() * step).min(f64::MAX),
            )
        }
    };
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        let d = lo.abs().max(1.0) * 0.05;
        ((lo - d).max(-f64::MAX), (hi + d).min(f64::MAX))
    };
    Some(((lo, hi), linear_ticks(lo, hi)))
}

/// The most ticks an axis gets: past it (a range no round step covers in a few) only its ends.
const MAX_TICKS: f64 = 50.0;

/// Ticks at a round step between `lo` and `hi`, about six, never more than [`MAX_TICKS`]
/// whatever the range (the span taken in sixths, so one near the largest float is finite).
fn linear_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let step = nice(hi / 6.0 - lo / 6.0);
    let (first, last) = ((lo / step).ceil(), (hi / step + 1e-9).floor());
    if !(first.is_finite() && last.is_finite()) || last < first || last - first > MAX_TICKS {
        return [lo, hi].into_iter().filter(|v| v.is_finite()).collect();
    }
    (0..=(last - first) as usize)
        .map(|i| (first + i as f64) * step)
        .filter(|v| v.is_finite())
        .collect()
}

/// A legend entry: name, colour, and how its key is drawn (`solid`, `dashed`, `swatch`).
type Key = (String, String, &'static str);

/// The keys once each, in order: the runs of a group share one entry.
fn distinct(keys: Vec<Key>) -> Vec<Key> {
    let mut out: Vec<Key> = Vec::new();
    for k in keys {
        if !out.contains(&k) {
            out.push(k);
        }
    }
    out
}

/// The legend under a chart.
fn legend(keys: &[Key]) -> String {
    let mut out = String::new();
    for (name, colour, style) in keys {
        let key = match *style {
            "swatch" => format!("<i class=\"swatch\" style=\"background:{colour}\"></i>"),
            dash => format!("<i style=\"border-top:2px {dash} {colour}\"></i>"),
        };
        let _ = write!(out, "<span>{key}{}</span>", esc(name));
    }
    if out.is_empty() {
        out
    } else {
        format!("<p class=\"legend\">{out}</p>")
    }
}

/// The figure around an SVG: title, the SVG, legend, hint, and what it shows for a checker.
fn figure(title: &str, description: &Value, svg: &str, legend: &str, hint: &str) -> String {
    let hint = if hint.is_empty() {
        String::new()
    } else {
        format!("<p class=\"hint\">{}</p>", esc(hint))
    };
    format!(
        "<figure class=\"chart\" data-chart=\"{}\"><h3>{}</h3>{svg}{legend}{hint}</figure>",
        esc(&description.to_string()),
        esc(title)
    )
}

/// An SVG `w` × `h` (drawn no wider than that: text keeps its size), scaled down to fit.
fn svg_open(class: &str, w: f64, h: f64, title: &str, attrs: &[(&'static str, String)]) -> String {
    let mut extra = String::new();
    for (k, v) in attrs {
        let _ = write!(extra, " {k}=\"{}\"", esc(v));
    }
    format!(
        "<svg class=\"{class}\" viewBox=\"0 0 {w:.0} {h:.0}\" style=\"max-width:{w:.0}px\" role=\"img\" \
         aria-label=\"{}\"{extra} xmlns=\"http://www.w3.org/2000/svg\">",
        esc(title)
    )
}

impl Plot {
    pub fn new(title: impl Into<String>, x: Axis, y: Axis) -> Plot {
        Plot {
            title: title.into(),
            x,
            y,
            ..Plot::default()
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Plot {
        self.hint = hint.into();
        self
    }

    fn ys(&self) -> Vec<f64> {
        let mut ys: Vec<f64> = self
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.1))
            .collect();
        ys.extend(self.dots.iter().map(|d| d.y));
        ys.extend(self.intervals.iter().flat_map(|i| [i.low, i.high]));
        ys.extend(self.guides.iter().flat_map(|g| [g.from.1, g.to.1]));
        ys
    }

    fn xs(&self) -> Vec<f64> {
        let mut xs: Vec<f64> = self
            .lines
            .iter()
            .flat_map(|l| l.points.iter().map(|p| p.0))
            .collect();
        xs.extend(self.dots.iter().map(|d| d.x));
        xs.extend(self.marks.iter().map(|m| m.x));
        xs.extend(self.guides.iter().flat_map(|g| [g.from.0, g.to.0]));
        xs
    }

    /// The chart as a figure; empty when no line, dot or interval has a value to show.
    pub fn render(&self) -> String {
        let has_data = self.lines.iter().any(|l| !l.points.is_empty())
            || !self.dots.is_empty()
            || !self.intervals.is_empty();
        if !has_data {
            return String::new();
        }
        let Some(((y0, y1), y_ticks)) = value_axis(&self.y, &self.ys()) else {
            return String::new();
        };
        // Categories' labels turn when they would not fit side by side.
        let longest = self.categories.iter().map(|c| c.chars().count()).max();
        let band = (W - LEFT - RIGHT) / self.categories.len().max(1) as f64;
        let turned = longest.is_some_and(|n| n as f64 * 6.2 > band);
        let bottom = match (longest, turned) {
            (Some(n), true) => 26.0 + (n as f64 * 4.6).min(90.0),
            _ => 40.0,
        };
        let h = TOP + 220.0 + bottom;
        let ys = Scale {
            lo: y0,
            hi: y1,
            log: self.y.log,
            from: h - bottom,
            to: TOP,
        };
        let (x0, x1) = if self.categories.is_empty() {
            let r = self.x.range.or_else(|| finite_range(self.xs().into_iter()));
            let (a, b) = r.unwrap_or((0.0, 1.0));
            (a, if b > a { b } else { a + 1.0 })
        } else {
            (-0.5, self.categories.len() as f64 - 0.5)
        };
        let xs = Scale {
            lo: x0,
            hi: x1,
            log: false,
            from: LEFT,
            to: W - RIGHT,
        };
        let mut svg = svg_open("plot", W, h, &self.title, &self.attrs);
        let base = h - bottom;
        // Grid and y ticks.
        for &v in &y_ticks {
            let y = ys.at(v);
            let _ = write!(
                svg,
                "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"#e3e6ea\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                W - RIGHT,
                LEFT - 5.0,
                y + 3.5,
                tick_label(v)
            );
        }
        let _ = write!(
            svg,
            "<line x1=\"{LEFT}\" x2=\"{LEFT}\" y1=\"{TOP}\" y2=\"{base:.1}\" stroke=\"#b8c0c8\"/>\
             <line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{base:.1}\" y2=\"{base:.1}\" stroke=\"#b8c0c8\"/>",
            W - RIGHT
        );
        // X ticks: the categories, or about six round steps.
        if self.categories.is_empty() {
            for t in linear_ticks(x0, x1) {
                let x = xs.at(t);
                let _ = write!(
                    svg,
                    "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{base:.1}\" y2=\"{:.1}\" stroke=\"#b8c0c8\"/>\
                     <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                    base + 4.0,
                    base + 15.0,
                    tick_label(t)
                );
            }
        } else {
            // Past MAX_CATEGORY_LABELS the labels would overlap into a smear (a thousand
            // nights): every k-th is written, the first and the last always.
            let n = self.categories.len();
            let every = n.div_ceil(MAX_CATEGORY_LABELS).max(1);
            for (i, c) in self.categories.iter().enumerate() {
                if i % every != 0 && i + 1 != n {
                    continue;
                }
                let x = xs.at(i as f64);
                if turned {
                    let _ = write!(
                        svg,
                        "<text transform=\"translate({:.1},{:.1}) rotate(-45)\" text-anchor=\"end\">{}</text>",
                        x + 3.0,
                        base + 12.0,
                        esc(c)
                    );
                } else {
                    let _ = write!(
                        svg,
                        "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                        base + 15.0,
                        esc(c)
                    );
                }
            }
        }
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>\
             <text x=\"13\" y=\"{mid:.1}\" text-anchor=\"middle\" transform=\"rotate(-90 13 {mid:.1})\">{}</text>",
            (LEFT + W - RIGHT) / 2.0,
            h - 4.0,
            esc(&self.x.label),
            esc(&self.y.label),
            mid = (TOP + base) / 2.0,
        );
        for m in &self.marks {
            let x = xs.at(m.x);
            // A short mark (one of many: young GCs) is a tick tall and thick enough to see
            // at the page's normal size.
            let top = if m.full { TOP } else { base - 16.0 };
            let dash = match (m.dashed, m.full) {
                (true, _) => " stroke-width=\"2\" stroke-dasharray=\"5,3\"",
                (false, false) => " stroke-width=\"2\"",
                (false, true) => "",
            };
            let _ = write!(
                svg,
                "<line class=\"{}\" x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{top:.1}\" y2=\"{base:.1}\" stroke=\"{}\"{dash}><title>{}</title></line>",
                m.class,
                m.colour,
                esc(&m.title)
            );
        }
        for g in &self.guides {
            let _ = write!(
                svg,
                "<line class=\"guide\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" stroke=\"#8a949e\" stroke-dasharray=\"4\"/>",
                xs.at(g.from.0),
                ys.at(g.from.1),
                xs.at(g.to.0),
                ys.at(g.to.1)
            );
        }
        for i in &self.intervals {
            let x = xs.at(i.x);
            let _ = write!(
                svg,
                "<line class=\"data interval\" x1=\"{x:.1}\" y1=\"{:.1}\" x2=\"{x:.1}\" y2=\"{:.1}\" stroke=\"{}\" stroke-width=\"2\"/>",
                ys.at(i.low),
                ys.at(i.high),
                i.colour
            );
        }
        let drawable = |v: f64| v.is_finite() && (!self.y.log || v > 0.0);
        let mut lines_json = Vec::new();
        for l in &self.lines {
            let mut d = String::new();
            let mut last: Option<f64> = None;
            let mut drawn = 0;
            for &(x, y) in &l.points {
                if !drawable(y) || !x.is_finite() {
                    last = None;
                    continue;
                }
                let op = match last {
                    Some(prev) if x - prev <= l.gap => 'L',
                    _ => 'M',
                };
                let _ = write!(d, "{op}{:.1} {:.1} ", xs.at(x), ys.at(y));
                last = Some(x);
                drawn += 1;
            }
            let dash = if l.dashed {
                " stroke-dasharray=\"5 3\""
            } else {
                ""
            };
            let _ = write!(
                svg,
                "<path class=\"data series\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{dash}><title>{}</title></path>",
                d.trim_end(),
                l.colour,
                esc(&l.name)
            );
            let mut dots = 0;
            if l.dots {
                for &(x, y) in l.points.iter().filter(|p| drawable(p.1) && p.0.is_finite()) {
                    let _ = write!(
                        svg,
                        "<circle class=\"data point\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2\" fill=\"{}\"><title>{}: {}</title></circle>",
                        xs.at(x),
                        ys.at(y),
                        l.colour,
                        esc(&l.name),
                        tick_label(y)
                    );
                    dots += 1;
                }
            }
            lines_json
                .push(json!({"name": l.name, "points": drawn, "dots": dots, "dashed": l.dashed}));
        }
        // Dots of one colour and ring share their paint (a group's), and past
        // MAX_TITLED_DOTS a dot has no hover text: a thousand nights' runs in ten charts
        // weighed 2.7 MB a page, and the runs' table below names each run.
        let titled = self.dots.len() <= MAX_TITLED_DOTS;
        let mut paint: Option<(&str, Option<&str>)> = None;
        for d in &self.dots {
            if !drawable(d.y) {
                continue;
            }
            let this = (d.colour.as_str(), d.ring.as_deref());
            if paint != Some(this) {
                if paint.is_some() {
                    svg.push_str("</g>");
                }
                let ring = d
                    .ring
                    .as_ref()
                    .map(|c| format!(" stroke=\"{c}\" stroke-width=\"3\""))
                    .unwrap_or_default();
                let _ = write!(svg, "<g fill=\"{}\" fill-opacity=\".75\"{ring}>", d.colour);
                paint = Some(this);
            }
            let _ = write!(
                svg,
                "<circle class=\"data {}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\">",
                d.class,
                xs.at(d.x),
                ys.at(d.y),
                d.radius,
            );
            if titled {
                let _ = write!(svg, "<title>{}</title>", esc(&d.title));
            }
            svg.push_str("</circle>");
        }
        if paint.is_some() {
            svg.push_str("</g>");
        }
        svg.push_str("</svg>");
        let mut keys: Vec<Key> = self
            .lines
            .iter()
            .filter(|l| l.in_legend && !l.points.is_empty())
            .map(|l| {
                let style = if l.dashed { "dashed" } else { "solid" };
                (l.name.clone(), l.colour.clone(), style)
            })
            .collect();
        keys.extend(
            self.keys
                .iter()
                .map(|(c, t)| (t.clone(), c.clone(), "swatch")),
        );
        let keys = distinct(keys);
        let description = json!({
            "name": self.title,
            "kind": "plot",
            "legend": keys.iter().map(|k| &k.0).collect::<Vec<_>>(),
            "colours": keys.iter().map(|k| &k.1).collect::<Vec<_>>(),
            "log_ticks": if self.y.log { vec![y_ticks.clone()] } else { Vec::new() },
            "lines": lines_json,
            "dots": self.dots.len(),
        });
        figure(&self.title, &description, &svg, &legend(&keys), &self.hint)
    }
}

/// A set of bars: one value per category.
#[derive(Debug, Clone)]
pub struct BarSeries {
    pub name: String,
    pub colour: String,
    pub values: Vec<Option<f64>>,
}

/// Horizontal bars, one row per category: stacked (parts of a whole) or side by side.
#[derive(Debug, Clone, Default)]
pub struct Bars {
    pub title: String,
    pub hint: String,
    pub categories: Vec<String>,
    pub series: Vec<BarSeries>,
    pub stacked: bool,
    /// The value axis (its range, when fixed: 0..100 for shares).
    pub axis: Axis,
    /// Written after each side-by-side bar's value (" s", " ms").
    pub unit: String,
}

impl Bars {
    pub fn render(&self) -> String {
        let values: Vec<f64> = if self.stacked {
            (0..self.categories.len())
                .map(|i| {
                    self.series
                        .iter()
                        .filter_map(|s| s.values.get(i).copied().flatten())
                        .sum()
                })
                .collect()
        } else {
            self.series
                .iter()
                .flat_map(|s| s.values.iter().flatten().copied())
                .collect()
        };
        if self.categories.is_empty() || values.is_empty() {
            return String::new();
        }
        let Some(((_, hi), ticks)) = value_axis(&self.axis, &values) else {
            return String::new();
        };
        let longest = self
            .categories
            .iter()
            .map(|c| c.chars().count())
            .max()
            .unwrap_or(1);
        let left = (longest as f64 * 6.4 + 14.0).clamp(60.0, 260.0);
        let right = if self.stacked { RIGHT } else { 70.0 };
        let bar = 14.0;
        let row = if self.stacked {
            26.0
        } else {
            bar * self.series.len() as f64 + 10.0
        };
        let h = TOP + row * self.categories.len() as f64 + 36.0;
        let base = h - 36.0;
        let xs = Scale {
            lo: 0.0,
            hi,
            log: false,
            from: left,
            to: W - right,
        };
        let mut svg = svg_open("bars", W, h, &self.title, &[]);
        for &t in &ticks {
            let x = xs.at(t);
            let _ = write!(
                svg,
                "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"{TOP}\" y2=\"{base:.1}\" stroke=\"#e3e6ea\"/>\
                 <text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
                base + 14.0,
                tick_label(t)
            );
        }
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            (left + W - right) / 2.0,
            h - 4.0,
            esc(&self.axis.label)
        );
        for (i, c) in self.categories.iter().enumerate() {
            let y = TOP + row * i as f64;
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                left - 6.0,
                y + row / 2.0 + 3.5,
                esc(c)
            );
            let mut at = 0.0;
            for (k, s) in self.series.iter().enumerate() {
                let Some(v) = s.values.get(i).copied().flatten().filter(|v| v.is_finite()) else {
                    continue;
                };
                let (x, top) = if self.stacked {
                    (at, y + (row - 18.0) / 2.0)
                } else {
                    (0.0, y + 5.0 + bar * k as f64)
                };
                let height = if self.stacked { 18.0 } else { bar - 2.0 };
                let (px, pw) = (xs.at(x), xs.at(x + v) - xs.at(x));
                let _ = write!(
                    svg,
                    "<rect class=\"data bar\" x=\"{px:.1}\" y=\"{top:.1}\" width=\"{:.1}\" height=\"{height:.1}\" fill=\"{}\" stroke=\"#fff\"><title>{} · {}: {}{}</title></rect>",
                    pw.max(0.0),
                    s.colour,
                    esc(c),
                    esc(&s.name),
                    tick_label(v),
                    esc(&self.unit)
                );
                if !self.stacked {
                    let _ = write!(
                        svg,
                        "<text x=\"{:.1}\" y=\"{:.1}\">{}{}</text>",
                        px + pw + 4.0,
                        top + height - 2.0,
                        tick_label(v),
                        esc(&self.unit)
                    );
                }
                at += v;
            }
        }
        svg.push_str("</svg>");
        let keys: Vec<Key> = if self.series.len() > 1 {
            self.series
                .iter()
                .map(|s| (s.name.clone(), s.colour.clone(), "swatch"))
                .collect()
        } else {
            Vec::new()
        };
        let description = json!({
            "name": self.title,
            "kind": "bars",
            "legend": keys.iter().map(|k| &k.0).collect::<Vec<_>>(),
            "colours": self.series.iter().map(|s| &s.colour).collect::<Vec<_>>(),
            "log_ticks": [],
            "bars": self.series.iter().map(|s| s.values.iter().flatten().count()).sum::<usize>(),
        });
        figure(&self.title, &description, &svg, &legend(&keys), &self.hint)
    }
}

/// How a heatmap cell is shaded.
#[derive(Debug, Clone, Copy)]
pub enum Tone {
    /// Its share of the best, 0..=1: light to dark blue.
    Share(f64),
    /// Failed: red.
    Bad,
    /// No value: grey.
    Empty,
}

/// One cell of a heatmap.
#[derive(Debug, Clone)]
pub struct HeatCell {
    pub row: usize,
    pub column: usize,
    pub tone: Tone,
    pub text: String,
    /// A second, smaller line (★ best).
    pub badge: String,
    /// Shown on hover.
    pub title: String,
    /// Outlined (the recommended cell).
    pub highlight: bool,
    pub attrs: Vec<(&'static str, String)>,
}

/// A grid of cells: rows down, columns across.
#[derive(Debug, Clone, Default)]
pub struct Heatmap {
    pub title: String,
    pub hint: String,
    pub row_label: String,
    pub column_label: String,
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    pub cells: Vec<HeatCell>,
}

/// The fill and ink of a tone.
fn shade(tone: Tone) -> (String, &'static str) {
    match tone {
        Tone::Share(share) => {
            let s = share.clamp(0.0, 1.0);
            let lerp = |a: f64, b: f64| (a + (b - a) * s).round() as u8;
            let rgb = format!(
                "rgb({},{},{})",
                lerp(239.0, 8.0),
                lerp(246.0, 69.0),
                lerp(255.0, 148.0)
            );
            (rgb, if s > 0.55 { "#fff" } else { "#1d2329" })
        }
        Tone::Bad => ("#f4d6d4".into(), "#8c1d18"),
        Tone::Empty => ("#eee".into(), "#55606b"),
    }
}

impl Heatmap {
    pub fn render(&self) -> String {
        if self.cells.is_empty() {
            return String::new();
        }
        let left = 90.0;
        let head = 40.0;
        let cw = ((W - left - 10.0) / self.columns.len().max(1) as f64).min(150.0);
        let ch = 46.0;
        let h = head + ch * self.rows.len() as f64 + 10.0;
        let w = left + cw * self.columns.len() as f64 + 10.0;
        let mut svg = svg_open("heatmap", w, h, &self.title, &[]);
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"14\" text-anchor=\"middle\">{}</text><text x=\"4\" y=\"34\">{}</text>",
            left + cw * self.columns.len() as f64 / 2.0,
            esc(&self.column_label),
            esc(&self.row_label)
        );
        for (j, c) in self.columns.iter().enumerate() {
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"32\" text-anchor=\"middle\">{}</text>",
                left + cw * (j as f64 + 0.5),
                esc(c)
            );
        }
        for (i, r) in self.rows.iter().enumerate() {
            let _ = write!(
                svg,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
                left - 8.0,
                head + ch * i as f64 + ch / 2.0 + 4.0,
                esc(r)
            );
        }
        for c in &self.cells {
            let (x, y) = (left + cw * c.column as f64, head + ch * c.row as f64);
            let (fill, ink) = shade(c.tone);
            let stroke = if c.highlight {
                "stroke=\"#e8590c\" stroke-width=\"4\""
            } else {
                "stroke=\"#fff\" stroke-width=\"1\""
            };
            let mut attrs = String::new();
            for (k, v) in &c.attrs {
                let _ = write!(attrs, " {k}=\"{}\"", esc(v));
            }
            let _ = write!(
                svg,
                "<g class=\"cell\"{attrs}><title>{}</title>\
                 <rect class=\"data\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{cw:.1}\" height=\"{ch}\" fill=\"{fill}\" {stroke}/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" style=\"fill:{ink};font-size:12px\">{}</text>\
                 <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" style=\"fill:{ink};font-size:10px\">{}</text></g>",
                esc(&c.title),
                x + cw / 2.0,
                y + 20.0,
                esc(&c.text),
                x + cw / 2.0,
                y + 36.0,
                esc(&c.badge)
            );
        }
        svg.push_str("</svg>");
        let description = json!({
            "name": self.title,
            "kind": "heatmap",
            "legend": [],
            "colours": [],
            "log_ticks": [],
            "cells": self.cells.len(),
        });
        figure(&self.title, &description, &svg, "", &self.hint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_maxima_and_steps_are_round() {
        assert_eq!(nice(0.0), 1.0);
        assert_eq!(nice(3.2), 5.0);
        assert_eq!(nice(120.0), 200.0);
        assert_eq!(nice(1000.0), 1000.0);
        assert_eq!(tick_label(0.25), "0.25");
        assert_eq!(tick_label(250.0), "250");
        assert_eq!(tick_label(0.0012345), "0.00123");
        assert_eq!(tick_label(12.5), "12.5");
    }

    #[test]
    fn values_near_the_largest_float_get_a_few_finite_ticks() {
        for v in [
            &[0.0, f64::MAX][..],
            &[-f64::MAX, f64::MAX],
            &[1.0, 1.7e308],
            &[f64::MAX],
        ] {
            let ((lo, hi), t) = value_axis(&Axis::new("y"), v).unwrap();
            assert!(
                lo.is_finite() && hi.is_finite() && lo < hi,
                "{v:?}: {lo} {hi}"
            );
            assert!(
                !t.is_empty() && t.len() <= 51 && t.iter().all(|x| x.is_finite()),
                "{v:?}: {t:?}"
            );
        }
        let mut axis = Axis::new("y");
        axis.range = Some((0.0, f64::INFINITY));
        let (_, t) = value_axis(&axis, &[1.0]).unwrap();
        assert!(t.len() <= 51);
        // A plot whose x spans every float is drawn, in bounded time and without NaN.
        let mut p = Plot::new("t", Axis::new("x"), Axis::new("y"));
        p.lines.push(Line::new(
            "l",
            "#000",
            vec![(-f64::MAX, 1.0), (0.0, f64::MAX), (f64::MAX, 2.0)],
        ));
        let svg = p.render();
        assert!(!svg.contains("NaN") && !svg.contains("inf"), "{svg}");
    }

    #[test]
    fn log_ticks_are_one_two_five_and_cover_the_values() {
        assert_eq!(log_ticks(3.0, 40.0), vec![2.0, 5.0, 10.0, 20.0, 50.0]);
        // One value still gets an axis with a height.
        assert_eq!(log_ticks(1.0, 1.0), vec![1.0, 2.0]);
        // Over many powers, only the powers.
        assert_eq!(
            log_ticks(0.5, 20_000.0),
            vec![0.1, 1.0, 10.0, 100.0, 1000.0, 10_000.0, 100_000.0]
        );
    }

    fn line_d(svg: &str) -> &str {
        let d = &svg[svg.find(" d=\"").unwrap() + 4..];
        &d[..d.find('"').unwrap()]
    }

    #[test]
    fn a_thousand_points_stay_light_every_dot_drawn_labels_thinned() {
        let plot = |n: usize| {
            let mut p = Plot::new("t", Axis::new("night"), Axis::new("docs/s"));
            p.categories = (0..n).map(|i| format!("build=nightly-{i:04}")).collect();
            p.dots = (0..n)
                .map(|i| Dot {
                    x: i as f64,
                    y: 100.0 + (i % 7) as f64,
                    colour: "#1f5fa8".into(),
                    radius: 3.0,
                    title: format!("run{i}: 100 docs/s"),
                    ring: None,
                    class: "run",
                })
                .collect();
            p.render()
        };
        let big = plot(1000);
        assert_eq!(big.matches("class=\"data run\"").count(), 1000);
        assert!(
            !big.contains("run7: 100"),
            "no hover text past {MAX_TITLED_DOTS} dots"
        );
        let labels = big.matches("build=nightly-").count();
        assert!(labels <= MAX_CATEGORY_LABELS + 1, "{labels} labels");
        assert!(big.contains("build=nightly-0000") && big.contains("build=nightly-0999"));
        // One paint for the dots of one colour.
        assert_eq!(big.matches("<g fill=").count(), 1);
        assert!(big.len() < 150_000, "{} bytes", big.len());
        let small = plot(12);
        assert_eq!(small.matches("<title>run").count(), 12);
        assert_eq!(small.matches("build=nightly-").count(), 12);
    }

    #[test]
    fn a_line_breaks_at_a_gap_and_labels_are_escaped() {
        let mut p = Plot::new("t", Axis::new("second"), Axis::new("u"));
        p.lines.push(
            Line::new(
                "<node>",
                "#000000",
                vec![(0.0, 1.0), (1.0, 2.0), (5.0, 2.0)],
            )
            .gap(2.5),
        );
        let svg = p.render();
        assert_eq!(svg.matches("<svg").count(), 1);
        let d = line_d(&svg);
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('L').count(), 1, "{d}");
        assert!(svg.contains("&lt;node&gt;") && !svg.contains("<node>"));
        assert_eq!(svg.matches("class=\"data point\"").count(), 3);
        assert!(Plot::new("t", Axis::new("x"), Axis::new("y"))
            .render()
            .is_empty());
    }

    #[test]
    fn a_log_axis_skips_what_it_cannot_draw_and_says_its_ticks() {
        let mut p = Plot::new("t", Axis::new("p"), Axis::log("ms"));
        p.categories = vec!["p50".into(), "p99".into(), "max".into()];
        p.lines.push(Line::new(
            "a",
            "#000000",
            vec![(0.0, 0.0), (1.0, 3.0), (2.0, 40.0)],
        ));
        let svg = p.render();
        assert_eq!(line_d(&svg).matches('M').count(), 1);
        assert_eq!(
            svg.matches("class=\"data point\"").count(),
            2,
            "zero is off a log axis"
        );
        let desc = &svg[svg.find("data-chart=\"").unwrap()..];
        assert!(desc.contains("[[2.0,5.0,10.0,20.0,50.0]]"), "{desc}");
    }

    #[test]
    fn stacked_bars_add_up_and_the_legend_names_each_part_once() {
        let b = Bars {
            title: "where".into(),
            categories: vec!["a".into(), "b".into()],
            series: vec![
                BarSeries {
                    name: "network".into(),
                    colour: PART_COLOURS[0].into(),
                    values: vec![Some(40.0), Some(50.0)],
                },
                BarSeries {
                    name: "server".into(),
                    colour: PART_COLOURS[1].into(),
                    values: vec![Some(60.0), None],
                },
            ],
            stacked: true,
            axis: Axis::new("% of wall").range(0.0, 100.0),
            ..Bars::default()
        };
        let svg = b.render();
        assert_eq!(svg.matches("class=\"data bar\"").count(), 3);
        assert_eq!(svg.matches(">network</span>").count(), 1);
        // The second part of the first bar starts where the first ends: 40 % along.
        let left = 60.0_f64.max(1.0 * 6.4 + 14.0);
        let at40 = left + 0.4 * (W - RIGHT - left);
        assert!(svg.contains(&format!("x=\"{at40:.1}\"")), "{svg}");
    }

    #[test]
    fn a_heatmap_shades_by_share_and_marks_failures() {
        let cell = |column, tone| HeatCell {
            row: 0,
            column,
            tone,
            text: "x".into(),
            badge: String::new(),
            title: "t".into(),
            highlight: column == 1,
            attrs: vec![("data-clients", column.to_string())],
        };
        let h = Heatmap {
            title: "docs/s".into(),
            rows: vec!["500".into()],
            columns: vec!["1".into(), "2".into()],
            cells: vec![cell(0, Tone::Bad), cell(1, Tone::Share(1.0))],
            ..Heatmap::default()
        };
        let svg = h.render();
        assert!(svg.contains("fill=\"#f4d6d4\"") && svg.contains("fill=\"rgb(8,69,148)\""));
        assert!(svg.contains("data-clients=\"1\"") && svg.contains("stroke=\"#e8590c\""));
    }
}

/// One frame of an [`Icicle`]: its value (its own and its callees'), its colour.
#[derive(Debug, Clone, Default)]
pub struct IcicleNode {
    pub name: String,
    pub value: f64,
    pub colour: String,
    /// Said after the frame's share in its tooltip (a differential graph: the share before).
    pub note: String,
    pub children: Vec<IcicleNode>,
}

/// A flame graph drawn root first. Each frame is a `data frame` rect carrying its name, value
/// and parent (`data-name`, `data-v`, `data-p`), which the page's search reads
/// ([`ICICLE_SEARCH`]); frames narrower than a third of a pixel are not drawn.
#[derive(Debug, Clone, Default)]
pub struct Icicle {
    pub title: String,
    pub hint: String,
    /// What the values are (`CPU samples`, `bytes allocated`), said in each frame's tooltip.
    pub unit: String,
    /// Names the figure for the search (`cpu`, `alloc`).
    pub view: String,
    pub root: IcicleNode,
    /// The legend: (name, colour) of what the colours mean.
    pub keys: Vec<(String, String)>,
}

/// The widest an icicle is drawn, and a row's height.
const ICICLE_W: f64 = 1200.0;
const ICICLE_ROW: f64 = 17.0;
/// The deepest row drawn.
const ICICLE_DEPTH: usize = 120;

impl Icicle {
    pub fn render(&self) -> String {
        let total = self.root.value;
        if total.is_nan() || total <= 0.0 {
            return String::new();
        }
        fn depth(n: &IcicleNode) -> usize {
            1 + n.children.iter().map(depth).max().unwrap_or(0)
        }
        let rows = depth(&self.root).min(ICICLE_DEPTH);
        let h = rows as f64 * ICICLE_ROW + 4.0;
        let scale = (ICICLE_W - 2.0) / total;
        let mut svg = svg_open(
            "icicle",
            ICICLE_W,
            h,
            &self.title,
            &[("data-view", self.view.clone())],
        );
        let mut next_id = 0usize;
        let mut drawn = 0usize;
        // Depth first, a parent before its children: the search walks `data-p` up.
        let mut stack: Vec<(&IcicleNode, f64, usize, Option<usize>)> =
            vec![(&self.root, 1.0, 0, None)];
        while let Some((node, x, d, parent)) = stack.pop() {
            let w = node.value * scale;
            if w < 0.33 || d >= ICICLE_DEPTH {
                continue;
            }
            let id = next_id;
            next_id += 1;
            drawn += 1;
            let y = 2.0 + d as f64 * ICICLE_ROW;
            let share = node.value / total * 100.0;
            let _ = write!(
                svg,
                "<g><rect class=\"data frame\" x=\"{x:.2}\" y=\"{y:.1}\" width=\"{w:.2}\" height=\"{:.1}\" \
                 fill=\"{}\" stroke=\"#fff\" stroke-width=\"0.5\" data-name=\"{}\" data-v=\"{}\" \
                 data-id=\"{id}\" data-p=\"{}\"><title>{} · {share:.2} % of {} ({}){}</title></rect>",
                ICICLE_ROW - 1.0,
                node.colour,
                esc(&node.name),
                node.value,
                parent.map_or(String::new(), |p| p.to_string()),
                esc(&node.name),
                esc(&self.unit),
                tick_label(node.value),
                esc(&node.note)
            );
            let fits = ((w - 6.0) / 6.3).floor();
            if fits >= 3.0 {
                let label = short_frame(&node.name);
                let fits = fits as usize;
                let text: String = if label.chars().count() > fits {
                    let mut t: String = label.chars().take(fits.saturating_sub(1)).collect();
                    t.push('…');
                    t
                } else {
                    label.to_string()
                };
                let _ = write!(
                    svg,
                    "<text x=\"{:.1}\" y=\"{:.1}\" style=\"pointer-events:none\">{}</text>",
                    x + 3.0,
                    y + ICICLE_ROW - 5.0,
                    esc(&text)
                );
            }
            svg.push_str("</g>");
            // Children left to right: pushed right to left.
            let mut at = x;
            let mut placed: Vec<(&IcicleNode, f64)> = Vec::new();
            for c in &node.children {
                placed.push((c, at));
                at += c.value * scale;
            }
            for (c, cx) in placed.into_iter().rev() {
                stack.push((c, cx, d + 1, Some(id)));
            }
        }
        svg.push_str("</svg>");
        let description = json!({
            "name": self.title,
            "kind": "icicle",
            "view": self.view,
            "legend": self.keys.iter().map(|k| &k.0).collect::<Vec<_>>(),
            "colours": self.keys.iter().map(|k| &k.1).collect::<Vec<_>>(),
            "log_ticks": [],
            "frames": drawn,
        });
        let keys: Vec<Key> = self
            .keys
            .iter()
            .map(|(n, c)| (n.clone(), c.clone(), "swatch"))
            .collect();
        figure(&self.title, &description, &svg, &legend(&keys), &self.hint)
    }
}

/// A frame's name as a label: `Class.method`, without the package.
fn short_frame(name: &str) -> &str {
    let mut dots = name.rmatch_indices('.');
    match (dots.next(), dots.next()) {
        (Some(_), Some((i, _))) => &name[i + 1..],
        _ => name,
    }
}

/// The search of a page's icicles: the box `#flame-search` (filled from the page's
/// `#search=TEXT`), every frame whose name holds the text marked, and each icicle's share
/// matched (frames under a matched frame counted once) written in its figure's
/// `data-matched` (percent) and `data-matched-frames`, and said beside the box.
pub const ICICLE_SEARCH: &str = r#"
(function(){
  var box = document.getElementById('flame-search'), said = document.getElementById('flame-matched');
  if (!box) return;
  function run(){
    var q = box.value.trim().toLowerCase(), words = [];
    Array.prototype.forEach.call(document.querySelectorAll('svg.icicle'), function(svg){
      var rects = svg.querySelectorAll('rect.frame'), byId = {}, hit = {}, total = 0, matched = 0, n = 0;
      Array.prototype.forEach.call(rects, function(r){ byId[r.getAttribute('data-id')] = r; });
      Array.prototype.forEach.call(rects, function(r){
        var on = q !== '' && r.getAttribute('data-name').toLowerCase().indexOf(q) >= 0;
        r.classList.toggle('match', on);
        if (r.getAttribute('data-p') === '') total = parseFloat(r.getAttribute('data-v'));
        if (!on) return;
        n++; hit[r.getAttribute('data-id')] = true;
        var p = r.getAttribute('data-p'), under = false;
        while (p !== '' && byId[p]) { if (hit[p]) { under = true; break; } p = byId[p].getAttribute('data-p'); }
        if (!under) matched += parseFloat(r.getAttribute('data-v'));
      });
      var pct = total > 0 ? matched / total * 100 : 0, fig = svg.closest('figure');
      fig.setAttribute('data-matched', pct.toFixed(2));
      fig.setAttribute('data-matched-frames', String(n));
      words.push(svg.getAttribute('data-view') + ' ' + pct.toFixed(1) + ' %');
    });
    said.textContent = q === '' ? '' : 'matched: ' + words.join(', ');
  }
  box.addEventListener('input', run);
  var m = /[#&]search=([^&]*)/.exec(location.hash);
  if (m) { box.value = decodeURIComponent(m[1]); }
  run();
})();
"#;
