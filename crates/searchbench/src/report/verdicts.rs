//! A command's verdict as CI plumbing takes it: a JUnit XML file (`--junit FILE`: a test case
//! per metric judged, a regression a failure, "cannot tell" skipped) and a chat message
//! (`--notify URL`: the JSON a Slack or Teams incoming webhook takes). `check`, `compare` and
//! `gate` make one from their own result, so each says what its table says.

use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::analysis::check::{Check, MetricVerdict, Outcome as CheckOutcome};
use crate::analysis::compare::{format_diff, format_verdict, Comparison, Verdict};

/// What a verdict or a metric's came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Worse,
    CannotTell,
}

impl Outcome {
    /// The rounds' decision (a gate's, `compare --sequential`'s) as plumbing says it.
    pub fn of(d: crate::analysis::sequential::Decision) -> Outcome {
        use crate::analysis::sequential::Decision;
        match d {
            Decision::Worse => Outcome::Worse,
            Decision::Better | Decision::NoChangeAsLarge => Outcome::Pass,
            Decision::Undecided => Outcome::CannotTell,
        }
    }
}

/// One metric judged (a JUnit test case).
#[derive(Debug, Clone)]
pub struct Case {
    pub name: String,
    pub outcome: Outcome,
    /// Its verdict as the command's table says it.
    pub said: String,
    /// Whether it decides the command's verdict; a row that does not (a gate's table under
    /// the rounds' verdict) never fails, its verdict kept as text.
    pub decides: bool,
}

/// A command's verdict.
#[derive(Debug, Clone)]
pub struct Verdicts {
    /// `check`, `compare`, `gate`.
    pub command: String,
    /// What was judged against what: `run 3fa9c2e1 against the last 7 runs`.
    pub subject: String,
    pub outcome: Outcome,
    /// The verdict in one line.
    pub line: String,
    pub cases: Vec<Case>,
}

impl Verdicts {
    /// `check`'s verdict: each metric asked, and each error count that rose.
    pub fn of_check(c: &Check) -> Verdicts {
        let mut cases: Vec<Case> = c
            .metrics
            .iter()
            .map(|m| Case {
                name: m.label.clone(),
                outcome: match m.verdict {
                    MetricVerdict::Regressed => Outcome::Worse,
                    MetricVerdict::CannotTell => Outcome::CannotTell,
                    _ => Outcome::Pass,
                },
                said: match (m.diff_pct, &m.why) {
                    (Some(d), _) => format!("{} ({d:+.1} %)", m.verdict_said()),
                    (None, Some(why)) => format!("{}: {why}", m.verdict_said()),
                    (None, None) => m.verdict_said(),
                },
                decides: true,
            })
            .collect();
        cases.extend(c.errors_rose.iter().map(|e| Case {
            name: e.label.clone(),
            outcome: Outcome::Worse,
            said: format!("rose from {} to {}", e.baseline, e.value),
            decides: true,
        }));
        let subject = match &c.baseline {
            Some(b) => format!("{} against {}", c.run.label, b.label),
            None => c.run.label.clone(),
        };
        let outcome = match c.outcome {
            CheckOutcome::Pass => Outcome::Pass,
            CheckOutcome::Regressed => Outcome::Worse,
            CheckOutcome::CannotTell => Outcome::CannotTell,
        };
        let line = if c.reasons.is_empty() {
            c.outcome.name().to_string()
        } else {
            format!("{}: {}", c.outcome.name(), c.reasons.join("; "))
        };
        Verdicts {
            command: "check".into(),
            subject,
            outcome,
            line,
            cases,
        }
    }

    /// A comparison's verdict: each metric of each contender, a worse one failing. `decided`:
    /// the verdict made over the rounds (a gate's, `compare --sequential`'s) and its line,
    /// which the rows then do not decide; `None`: the rows decide (`compare`).
    pub fn of_comparison(
        command: &str,
        c: &Comparison,
        decided: Option<(Outcome, String)>,
    ) -> Verdicts {
        let many = c.contenders.len() > 1;
        let rows_decide = decided.is_none();
        let mut cases = Vec::new();
        for row in &c.rows {
            for (side, cell) in c.contenders.iter().zip(&row.contenders) {
                let Some(cell) = cell else { continue };
                let outcome = match cell.verdict {
                    Verdict::Worse => Outcome::Worse,
                    Verdict::CannotTell | Verdict::TooFewSamples => Outcome::CannotTell,
                    _ => Outcome::Pass,
                };
                let name = if many {
                    format!("{} ({})", row.label, side.label)
                } else {
                    row.label.clone()
                };
                cases.push(Case {
                    name,
                    outcome,
                    said: format!(
                        "{} {}",
                        format_verdict(cell, c.threshold_pct),
                        format_diff(cell)
                    ),
                    decides: rows_decide,
                });
            }
        }
        let subject = format!(
            "{} against {}",
            c.contenders
                .iter()
                .map(|s| s.label.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            c.base.label
        );
        // A contender not complete against a base that is fails as `compare`'s exit code
        // does (`Comparison::any_worse`): the two never disagree on the same comparison.
        let partial: Vec<String> = match c.base.partial().is_empty() {
            true => (c.contenders.iter())
                .filter(|s| !s.partial().is_empty())
                .map(|s| format!("{} is not complete ({})", s.label, s.partial().join(", ")))
                .collect(),
            false => Vec::new(),
        };
        let (outcome, line) = decided.unwrap_or_else(|| {
            let worse: Vec<&Case> = cases
                .iter()
                .filter(|k| k.outcome == Outcome::Worse)
                .collect();
            if worse.is_empty() && partial.is_empty() {
                (Outcome::Pass, "no contender significantly worse".into())
            } else if worse.is_empty() {
                (Outcome::Worse, format!("worse: {}", partial.join("; ")))
            } else {
                let named: Vec<String> = worse
                    .iter()
                    .map(|k| format!("{} {}", k.name, k.said))
                    .collect();
                (Outcome::Worse, format!("worse: {}", named.join("; ")))
            }
        });
        Verdicts {
            command: command.into(),
            subject,
            outcome,
            line,
            cases,
        }
    }

    /// The verdict as JUnit XML: one suite, the verdict's own case first (it fails on a
    /// regression, is skipped when the command cannot tell), then a case per metric.
    pub fn junit(&self) -> String {
        let verdict = Case {
            name: "verdict".into(),
            outcome: self.outcome,
            said: self.line.clone(),
            decides: true,
        };
        let cases: Vec<&Case> = std::iter::once(&verdict).chain(&self.cases).collect();
        let failing = |k: &&&Case| k.decides && k.outcome == Outcome::Worse;
        let skipped = |k: &&&Case| k.decides && k.outcome == Outcome::CannotTell;
        let failures = cases.iter().filter(failing).count();
        let skips = cases.iter().filter(skipped).count();
        let suite = format!("searchbench {}: {}", self.command, self.subject);
        let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            x,
            "<testsuites name=\"searchbench\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skips}\">",
            cases.len()
        );
        let _ = writeln!(
            x,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skips}\" errors=\"0\">",
            xml(&suite),
            cases.len()
        );
        for k in cases {
            let _ = write!(
                x,
                "    <testcase classname=\"searchbench.{}\" name=\"{}\"",
                xml(&self.command),
                xml(&k.name)
            );
            match (k.decides, k.outcome) {
                (true, Outcome::Worse) => {
                    let _ = writeln!(
                        x,
                        ">\n      <failure message=\"{0}\">{0}</failure>\n    </testcase>",
                        xml(&k.said)
                    );
                }
                (true, Outcome::CannotTell) => {
                    let _ = writeln!(
                        x,
                        ">\n      <skipped message=\"{}\"/>\n    </testcase>",
                        xml(&k.said)
                    );
                }
                _ => {
                    let _ = writeln!(
                        x,
                        ">\n      <system-out>{}</system-out>\n    </testcase>",
                        xml(&k.said)
                    );
                }
            }
        }
        x.push_str("  </testsuite>\n</testsuites>\n");
        x
    }

    /// The message a Slack or Teams incoming webhook takes (`text`), with the verdict's parts
    /// beside it for a receiver of one's own (`searchbench`).
    pub fn webhook(&self) -> Value {
        let worse: Vec<String> = self
            .cases
            .iter()
            .filter(|k| k.decides && k.outcome == Outcome::Worse)
            .map(|k| format!("{}: {}", k.name, k.said))
            .collect();
        // Slack's and Teams' text is markup: `<!channel>` in a task's name would ping a whole
        // channel, `<https://x|details>` make a link. Its three escapes make the names text;
        // the parts beside it (`searchbench`) are as said.
        let text = format!(
            "searchbench {}: {} ({})",
            self.command, self.line, self.subject
        )
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
        json!({
            "text": text,
            "searchbench": {
                "command": self.command,
                "subject": self.subject,
                "outcome": match self.outcome {
                    Outcome::Pass => "pass",
                    Outcome::Worse => "worse",
                    Outcome::CannotTell => "cannot tell",
                },
                "line": self.line,
                "worse": worse,
            },
        })
    }
}

/// `text` as XML character data or an attribute's value: HTML's escapes (which XML takes),
/// and every character XML 1.0 cannot hold dropped (control characters but tab and newline,
/// U+FFFE and U+FFFF): a task's name holding one would make a CI's parser refuse the file.
fn xml(text: &str) -> String {
    let kept: String = text
        .chars()
        .filter(|c| {
            matches!(c, '\t' | '\n') || (!c.is_control() && !matches!(c, '\u{fffe}' | '\u{ffff}'))
        })
        .collect();
    super::page::esc(&kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdicts(outcome: Outcome) -> Verdicts {
        Verdicts {
            command: "check".into(),
            subject: "run <a&b> against \"last 7\"".into(),
            outcome,
            line: "regressed: throughput -12.0 %".into(),
            cases: vec![
                Case {
                    name: "throughput (headline)".into(),
                    outcome: Outcome::Worse,
                    said: "REGRESSED (-12.0 %)".into(),
                    decides: true,
                },
                Case {
                    name: "service time p99".into(),
                    outcome: Outcome::CannotTell,
                    said: "cannot tell\u{7}\u{ffff}".into(),
                    decides: true,
                },
                Case {
                    name: "gc".into(),
                    outcome: Outcome::Worse,
                    said: "worse, decides nothing".into(),
                    decides: false,
                },
            ],
        }
    }

    #[test]
    fn junit_counts_what_decides_and_escapes_what_it_quotes() {
        let x = verdicts(Outcome::Worse).junit();
        // The verdict and the headline fail; the p99 is skipped; the row that decides
        // nothing is a passing case with its words.
        assert!(
            x.contains("tests=\"4\" failures=\"2\" skipped=\"1\""),
            "{x}"
        );
        assert!(
            x.contains("run &lt;a&amp;b&gt; against &quot;last 7&quot;"),
            "{x}"
        );
        assert!(!x.contains(['\u{7}', '\u{ffff}']), "{x}");
        assert!(
            x.contains("<system-out>worse, decides nothing</system-out>"),
            "{x}"
        );
        let pass = Verdicts {
            cases: Vec::new(),
            ..verdicts(Outcome::Pass)
        };
        assert!(pass
            .junit()
            .contains("tests=\"1\" failures=\"0\" skipped=\"0\""));
    }

    /// A contender that is not complete, against a complete base, fails the JUnit and webhook
    /// verdict as it fails `compare`'s exit code, though no metric of it is worse.
    #[test]
    fn a_contender_not_complete_fails_as_the_exit_code_does() {
        use crate::analysis::compare::{compare, Side};
        use crate::store::State;
        let side = |label: &str, state: State| Side {
            label: label.into(),
            run_ids: vec![format!("{label}0001")],
            engine: None,
            cpu_model: None,
            states: vec![state],
            excluded: Vec::new(),
            whole_run: None,
            metrics: Vec::new(),
            configurations: Vec::new(),
        };
        let c = compare(
            side("base", State::Complete),
            vec![side("next", State::Interrupted)],
        );
        assert!(c.any_worse());
        let v = Verdicts::of_comparison("compare", &c, None);
        assert_eq!(v.outcome, Outcome::Worse);
        assert!(v.line.contains("next is not complete"), "{}", v.line);
        let fine = compare(
            side("base", State::Complete),
            vec![side("next", State::Complete)],
        );
        assert!(!fine.any_worse());
        assert_eq!(
            Verdicts::of_comparison("compare", &fine, None).outcome,
            Outcome::Pass
        );
    }

    #[test]
    fn the_webhook_message_is_text_a_chat_takes_with_the_parts_beside() {
        let v = verdicts(Outcome::Worse).webhook();
        let text = v["text"].as_str().unwrap();
        assert!(text.starts_with("searchbench check: regressed"), "{text}");
        // Names are text in a chat: no `<!channel>`, no link, no entity of their own.
        assert!(
            text.ends_with("(run &lt;a&amp;b&gt; against \"last 7\")"),
            "{text}"
        );
        assert_eq!(v["searchbench"]["subject"], "run <a&b> against \"last 7\"");
        assert_eq!(v["searchbench"]["outcome"], "worse");
        assert_eq!(v["searchbench"]["worse"].as_array().unwrap().len(), 1);
    }
}
