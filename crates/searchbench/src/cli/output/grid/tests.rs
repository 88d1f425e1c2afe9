use crate::cli::output::hang;

#[test]
fn control_characters_read_back_are_escaped_in_tables_and_lines() {
    use super::printable;
    assert_eq!(
        printable("a\x1b[2Jb\u{9b}c\x07\u{202e}"),
        "a\\u{1b}[2Jb\\u{9b}c\\u{7}\\u{202e}"
    );
    assert!(matches!(
        printable("opensearch-2.19.1 ✓\nsecond line"),
        std::borrow::Cow::Borrowed(_)
    ));
    let mut t = super::table(["run", "tags"]);
    t.add_row(["0000abcd", "build=\x1b]0;pwned\x07"]);
    t.add_row(vec![super::tone_cell("\x1b[31mred", super::Tone::Bad)]);
    let shown = t.to_string();
    assert!(!shown.contains(['\x1b', '\x07']), "{shown:?}");
    assert!(shown.contains("build=\\u{1b}]0;pwned"), "{shown}");
}

use super::*;

#[test]
fn a_legend_entry_wraps_between_words_under_its_own_text() {
    let text = "no request in flight: waiting for the batcher (generate/read, action lines)";
    let wrapped = hang("  idle  ", text, Some(40), 8);
    for line in wrapped.lines() {
        assert!(line.chars().count() <= 40, "{line:?}");
    }
    let lines: Vec<&str> = wrapped.lines().collect();
    assert!(lines.len() > 1);
    assert!(lines[1..]
        .iter()
        .all(|l| l.starts_with("        ") && !l[8..].starts_with(' ')));
    assert_eq!(
        wrapped.split_whitespace().collect::<Vec<_>>()[1..].join(" "),
        text
    );
    assert_eq!(hang("  idle  ", text, None, 8), format!("  idle  {text}"));
}

fn grid_of(width: u16, rows: &[[&str; 3]]) -> String {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .force_no_tty()
        .set_width(width)
        .set_header(["metric", "value", "verdict"]);
    for r in rows {
        t.add_row(r.to_vec());
    }
    Grid(t).to_string()
}

#[test]
fn words_are_never_split_when_they_fit_and_the_width_holds() {
    // At 40 columns comfy-table alone splits "inconclusive" across two lines.
    let rows = [
        [
            "service time mean (per-second)",
            "20.3 ms",
            "no significant change",
        ],
        [
            "throughput (headline)",
            "19456 docs/s",
            "inconclusive below ±32.2 %",
        ],
    ];
    let text = grid_of(40, &rows);
    for line in text.lines() {
        assert!(line.chars().count() <= 40, "{line}\n{text}");
    }
    let cells: Vec<&str> = text
        .split(['│', '┆', '\n'])
        .flat_map(str::split_whitespace)
        .collect();
    for word in rows.iter().flatten().flat_map(|c| c.split_whitespace()) {
        assert!(cells.contains(&word), "{word} split in\n{text}");
    }
    // Too narrow for whole words: the width still holds.
    for line in grid_of(24, &rows).lines() {
        assert!(line.chars().count() <= 24, "{line}");
    }
}

#[test]
fn when_not_every_word_fits_the_longest_give_way_and_the_rest_stay_whole() {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Dynamic)
        .force_no_tty()
        .set_width(80)
        .set_header(["id", "started (UTC)", "engine", "state", "tags"]);
    t.add_row([
        "06f28cd0",
        "2026-11-25 20:45",
        "opensearch-2.19.1",
        "interrupted",
        "build=a-rather-long-tag-value-that-cannot-fit",
    ]);
    let text = Grid(t).to_string();
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    let words: Vec<&str> = text
        .split(['│', '┆', '\n'])
        .flat_map(str::split_whitespace)
        .collect();
    // The tag (the longest word) gives way; the id, the date, the engine and the state
    // stay whole.
    for whole in ["06f28cd0", "2026-11-25", "opensearch-2.19.1", "interrupted"] {
        assert!(words.contains(&whole), "{whole} split in\n{text}");
    }
}
