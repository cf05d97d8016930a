//! A probe run's report, and its four forms: JSON (`{ ok, checks }`), text for a terminal, JUnit
//! XML for a CI system's test results, Markdown for a pull request.

use super::{Check, CheckStatus, Exchange};
use crate::format::{escape_control, escape_xml as xml};
use serde::{Deserialize, Serialize};

/// Counts of a run's checks by status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Checks passed.
    pub passed: usize,
    /// Checks failed.
    pub failed: usize,
    /// Checks that could not be judged.
    pub inconclusive: usize,
    /// Checks not run.
    pub skipped: usize,
}

/// A run's report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// No check failed (passed and inconclusive ones are fine).
    pub ok: bool,
    /// The counts.
    pub summary: Summary,
    /// The POS's base URL.
    pub pos: String,
    /// How long the run took, ms.
    #[serde(rename = "durationMs")]
    pub duration_ms: f64,
    /// Every check, in the order of [`super::RULES`].
    pub checks: Vec<Check>,
}

impl Report {
    /// The report of `checks`.
    pub fn new(pos: &str, duration_ms: f64, checks: Vec<Check>) -> Self {
        let mut summary = Summary::default();
        for c in &checks {
            match c.status {
                CheckStatus::Passed => summary.passed += 1,
                CheckStatus::Failed => summary.failed += 1,
                CheckStatus::Inconclusive => summary.inconclusive += 1,
                CheckStatus::Skipped => summary.skipped += 1,
            }
        }
        Self { ok: summary.failed == 0, summary, pos: pos.to_string(), duration_ms, checks }
    }

    /// The exit status of `poscheck probe`: 0 when no check failed, 1 when one did.
    pub fn exit_code(&self) -> i32 {
        i32::from(!self.ok)
    }
}

/// The forms of a report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// For a terminal.
    Text,
    /// `{ ok, summary, pos, durationMs, checks }`.
    Json,
    /// JUnit XML: one testcase per check.
    Junit,
    /// A Markdown table, for a pull request.
    Markdown,
}

impl Format {
    /// The format named `s` (`text`, `json`, `junit`, `markdown`).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "text" => Some(Self::Text),
            "json" => Some(Self::Json),
            "junit" => Some(Self::Junit),
            "markdown" => Some(Self::Markdown),
            _ => None,
        }
    }
}

/// The report in `format`.
pub fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Json => serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
        Format::Text => text(report),
        Format::Junit => junit(report),
        Format::Markdown => markdown(report),
    }
}

fn mark(s: CheckStatus) -> &'static str {
    match s {
        CheckStatus::Passed => "pass",
        CheckStatus::Failed => "FAIL",
        CheckStatus::Inconclusive => "????",
        CheckStatus::Skipped => "skip",
    }
}

/// One exchange on a line or a few: the request line, its headers, its body, the answer.
fn exchange_text(e: &Exchange, indent: &str) -> String {
    let mut out = String::new();
    if let Some(n) = &e.note {
        out.push_str(&format!("{indent}({})\n", one_line(n, 300)));
    }
    out.push_str(&format!("{indent}> {} {}\n", one_line(&e.method, 20), one_line(&e.url, 300)));
    for (k, v) in &e.headers {
        out.push_str(&format!("{indent}> {}: {}\n", one_line(k, 100), one_line(v, 300)));
    }
    if !e.body.is_empty() {
        out.push_str(&format!("{indent}> {}\n", one_line(&e.body, 300)));
    }
    let ms = e.ms.map(|m| format!(" in {m} ms")).unwrap_or_default();
    out.push_str(&format!("{indent}< {}{ms}", one_line(&e.outcome(), 300)));
    if let Some(a) = e.answer.as_deref().filter(|a| !a.is_empty()) {
        out.push_str(&format!(" {}", one_line(a, 300)));
    }
    out.push('\n');
    out
}

/// One line of at most `max` characters, whatever the POS sent: newlines as spaces, the other
/// controls (a terminal's escape sequences) written out by [`escape_control`].
fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.chars().map(|c| if c == '\n' || c == '\r' { ' ' } else { c }).collect();
    let flat = escape_control(&flat).into_owned();
    match flat.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn text(r: &Report) -> String {
    let mut out = format!("poscheck probe of {}\n\n", r.pos);
    for c in &r.checks {
        out.push_str(&format!("{} {:<44} {}\n", mark(c.status), one_line(&c.id, 100), escape_control(&c.message)));
        if c.status == CheckStatus::Failed {
            out.push_str(&format!("       rests on ({}): {}\n", c.basis.basis, c.basis.source));
            for e in &c.evidence {
                out.push_str(&exchange_text(e, "       "));
            }
        }
    }
    let s = r.summary;
    out.push_str(&format!(
        "\n{} passed, {} failed, {} inconclusive, {} skipped in {:.1} s: {}\n",
        s.passed,
        s.failed,
        s.inconclusive,
        s.skipped,
        r.duration_ms / 1000.0,
        if r.ok { "ok" } else { "FAILED" }
    ));
    out
}

fn junit(r: &Report) -> String {
    let s = r.summary;
    let secs = format!("{:.3}", r.duration_ms / 1000.0);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    out.push_str(&format!(
        "<testsuites name=\"poscheck probe\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{secs}\">\n",
        r.checks.len(),
        s.failed,
        s.skipped + s.inconclusive
    ));
    for side in ["receiver", "client"] {
        let checks: Vec<&Check> = r.checks.iter().filter(|c| c.id.starts_with(side)).collect();
        let failed = checks.iter().filter(|c| c.status == CheckStatus::Failed).count();
        let skipped = checks.iter().filter(|c| matches!(c.status, CheckStatus::Skipped | CheckStatus::Inconclusive)).count();
        out.push_str(&format!(
            "  <testsuite name=\"poscheck probe: {side}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"{skipped}\">\n",
            checks.len()
        ));
        for c in checks {
            out.push_str(&format!("    <testcase classname=\"poscheck.probe.{side}\" name=\"{}\"", xml(&c.id)));
            match c.status {
                CheckStatus::Passed => out.push_str(&format!(">\n      <system-out>{}</system-out>\n    </testcase>\n", xml(&c.message))),
                CheckStatus::Skipped | CheckStatus::Inconclusive => {
                    out.push_str(&format!(">\n      <skipped message=\"{}: {}\"/>\n    </testcase>\n", c.status.as_str(), xml(&c.message)))
                }
                CheckStatus::Failed => {
                    let evidence: String = c.evidence.iter().map(|e| exchange_text(e, "")).collect::<Vec<_>>().join("\n");
                    out.push_str(&format!(
                        ">\n      <failure message=\"{}\" type=\"{}\">{}\n\nRests on ({}): {}\n\n{}</failure>\n    </testcase>\n",
                        xml(&c.message),
                        xml(&c.severity),
                        xml(&c.message),
                        xml(&c.basis.basis),
                        xml(&c.basis.source),
                        xml(&evidence)
                    ));
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// Text for a Markdown table cell.
fn cell(s: &str) -> String {
    one_line(s, 400).replace('\\', "\\\\").replace('|', "\\|").replace('<', "&lt;")
}

fn markdown(r: &Report) -> String {
    let s = r.summary;
    let mut out = format!(
        "### poscheck probe: {}\n\n{} passed, {} failed, {} inconclusive, {} skipped, against `{}`.\n\n| | Check | Severity | Result |\n|---|---|---|---|\n",
        if r.ok { "ok" } else { "failed" },
        s.passed,
        s.failed,
        s.inconclusive,
        s.skipped,
        r.pos.replace('`', "")
    );
    for c in &r.checks {
        let icon = match c.status {
            CheckStatus::Passed => "✅",
            CheckStatus::Failed => "❌",
            CheckStatus::Inconclusive => "❔",
            CheckStatus::Skipped => "⏭️",
        };
        out.push_str(&format!("| {icon} | `{}` | {} | {} |\n", c.id, c.severity, cell(&c.message)));
    }
    let failed: Vec<&Check> = r.checks.iter().filter(|c| c.status == CheckStatus::Failed).collect();
    for c in failed {
        out.push_str(&format!(
            "\n<details><summary><code>{}</code>: evidence</summary>\n\nRests on ({}): {}\n\n```http\n",
            c.id,
            c.basis.basis,
            c.basis.source.replace('<', "&lt;")
        ));
        for e in &c.evidence {
            out.push_str(&exchange_text(e, "").replace("```", "ʼʼʼ"));
        }
        out.push_str("```\n\n</details>\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Report {
        let e = Exchange {
            method: "POST".into(),
            url: "http://127.0.0.1:1/v1/order/S".into(),
            body: "{\"a\":\"<&>|\"}".into(),
            status: Some(200),
            answer: Some("{}".into()),
            ms: Some(2.5),
            ..Exchange::default()
        };
        let checks = vec![
            Check::of("receiver/signature-tampered-body", CheckStatus::Failed, "accepted <a> & \"b\" | c", &[&e]).unwrap(),
            Check::of("receiver/order-created-answered", CheckStatus::Passed, "answered 200", &[]).unwrap(),
            Check::of("client/path-casing", CheckStatus::Inconclusive, "no call", &[]).unwrap(),
            Check::of("client/schema-version", CheckStatus::Skipped, "--receiver-only", &[]).unwrap(),
        ];
        Report::new("http://127.0.0.1:1", 1234.0, checks)
    }

    #[test]
    fn counts_and_exit_code() {
        let r = sample();
        assert!(!r.ok);
        assert_eq!(r.exit_code(), 1);
        assert_eq!(r.summary, Summary { passed: 1, failed: 1, inconclusive: 1, skipped: 1 });
        let v: serde_json::Value = serde_json::from_str(&render(&r, Format::Json)).unwrap();
        assert_eq!(v["checks"][0]["status"], "failed");
        assert_eq!(v["checks"][0]["evidence"][0]["status"], 200);
    }

    #[test]
    fn junit_escapes_and_has_one_testcase_per_check() {
        let x = render(&sample(), Format::Junit);
        assert_eq!(x.matches("<testcase ").count(), 4);
        assert_eq!(x.matches("<failure ").count(), 1);
        assert!(x.contains("accepted &lt;a&gt; &amp; &quot;b&quot; | c"));
        assert!(!x.contains("<a>"));
    }

    #[test]
    fn markdown_is_a_table_with_escaped_cells() {
        let m = render(&sample(), Format::Markdown);
        assert!(m.contains("| ❌ | `receiver/signature-tampered-body` | error | accepted &lt;a> & \"b\" \\| c |"), "{m}");
        assert!(m.contains("<details>"));
    }
}
