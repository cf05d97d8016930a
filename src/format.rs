//! Formatters over a [`Report`]: human text, JSON, SARIF 2.1.0 and GitHub Actions annotations.
//! Written once, used by the CLI, the JS API and the page.

use crate::diagnostic::{Report, Rule, Severity};
use serde_json::json;
use std::borrow::Cow;
use std::fmt::Write as _;

/// Output formats of the CLI (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `file:line:col severity rule-id message` lines.
    Text,
    /// The report as JSON.
    Json,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            "sarif" => Ok(Self::Sarif),
            "github" => Ok(Self::Github),
            other => Err(format!("unknown format \"{other}\": expected text, json, sarif or github")),
        }
    }
}

/// Renders the reports of several files: text and GitHub annotations one after the other, JSON as
/// one report (a single file) or an array of `{ file, report }`, SARIF as one run.
pub fn render_many(format: Format, reports: &[(&str, &Report)], rules: &[&Rule]) -> String {
    match (format, reports) {
        (_, [(file, report)]) => render(format, report, file, rules),
        (Format::Sarif, _) => sarif_many(reports, rules),
        (Format::Json, _) => {
            let all: Vec<_> = reports.iter().map(|(file, report)| json!({ "file": file, "report": report })).collect();
            serde_json::to_string_pretty(&all).unwrap_or_default() + "\n"
        }
        _ => reports.iter().map(|(file, report)| render(format, report, file, rules)).collect(),
    }
}

/// Renders `report` for `file` in `format`; `rules` feeds SARIF's rule table.
pub fn render(format: Format, report: &Report, file: &str, rules: &[&Rule]) -> String {
    match format {
        Format::Text => text(report, file),
        Format::Json => serde_json::to_string_pretty(report).unwrap_or_default() + "\n",
        Format::Sarif => sarif(report, file, rules),
        Format::Github => github(report, file),
    }
}

/// Control characters (C0, DEL, C1) and the bidirectional overrides written as visible escapes
/// (`\n`, `\u{1b}`), so that a string from the input cannot start a new output line (a forged
/// `::error` workflow command, a forged header), move the cursor or recolor a terminal.
///
/// ```
/// use poscheck::format::escape_control;
/// assert_eq!(escape_control("a\n::error::x\u{1b}[31m"), "a\\n::error::x\\u{1b}[31m");
/// assert_eq!(escape_control("plain café"), "plain café");
/// ```
pub fn escape_control(s: &str) -> Cow<'_, str> {
    let special = |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(special) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if special(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Text for XML content or an attribute value (JUnit, SVG): the five special characters as
/// references (`&#39;` for the apostrophe, which HTML reads too), and the characters XML 1.0 cannot
/// hold (controls other than tab, newline and carriage return; U+FFFE, U+FFFF) dropped.
///
/// ```
/// use poscheck::format::escape_xml;
/// assert_eq!(escape_xml("<a href=\"x\">Tom & Jerry's</a>\u{1b}"), "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;");
/// ```
pub fn escape_xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// `file:line:col severity rule-id message`, one line per diagnostic, help indented below, and a
/// summary line. Every string from the input is written through [`escape_control`].
pub fn text(report: &Report, file: &str) -> String {
    let mut out = String::new();
    let file = escape_control(file);
    for d in &report.diagnostics {
        let _ = writeln!(out, "{file}:{}:{} {} {} {}", d.line, d.column, d.severity.as_str(), d.rule_id, escape_control(&d.message));
        if !d.path.is_empty() {
            let _ = writeln!(out, "    at {}", escape_control(&d.path));
        }
        for r in &d.related {
            let _ = writeln!(out, "    {file}:{}:{} {} ({})", r.line, r.column, escape_control(&r.message), escape_control(&r.path));
        }
        if let Some(h) = &d.help {
            let _ = writeln!(out, "    help: {}", escape_control(h));
        }
    }
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let _ = writeln!(
        out,
        "{}: {}, {}, {}",
        if report.ok { "ok" } else { "failed" },
        plural(report.error_count, "error"),
        plural(report.warning_count, "warning"),
        plural(report.info_count, "info")
    );
    out
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The tool's documentation, named in SARIF output.
pub const INFORMATION_URI: &str = "https://docs.rs/poscheck";

/// A file name as a SARIF `artifactLocation.uri`: a relative path stays a relative reference
/// (resolved against the repository root by code scanning), an absolute path becomes a `file://`
/// URI, standard input is `stdin`; characters outside RFC 3986's unreserved set and `/` are
/// percent-encoded.
///
/// ```
/// use poscheck::format::sarif_uri;
/// assert_eq!(sarif_uri("menus/main menu.json"), "menus/main%20menu.json");
/// assert_eq!(sarif_uri("/srv/pos/menú.json"), "file:///srv/pos/men%C3%BA.json");
/// assert_eq!(sarif_uri("<stdin>"), "stdin");
/// assert_eq!(sarif_uri("./a.json"), "a.json");
/// ```
pub fn sarif_uri(file: &str) -> String {
    if file == "<stdin>" || file == "-" {
        return "stdin".into();
    }
    let (prefix, path) = match file.strip_prefix('/') {
        Some(rest) => ("file:///", rest),
        None => ("", file.trim_start_matches("./")),
    };
    let mut out = String::from(prefix);
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// SARIF 2.1.0 with what GitHub code scanning needs: ruleId, message, artifactLocation.uri and
/// region.startLine (columns are UTF-16 code units, SARIF's default).
pub fn sarif(report: &Report, file: &str, rules: &[&Rule]) -> String {
    sarif_many(&[(file, report)], rules)
}

/// [`sarif`] for several files: one run whose results name each file.
pub fn sarif_many(reports: &[(&str, &Report)], rules: &[&Rule]) -> String {
    let rule_index = |id: &str| rules.iter().position(|r| r.id == id);
    let results: Vec<_> = reports
        .iter()
        .flat_map(|(file, report)| report.diagnostics.iter().map(move |d| (sarif_uri(file), d)))
        .map(|(file, d)| {
            let file = &file;
            let mut text = d.message.clone();
            if let Some(h) = &d.help {
                let _ = write!(text, " ({h})");
            }
            let mut r = json!({
                "ruleId": d.rule_id,
                "level": sarif_level(d.severity),
                "message": { "text": text },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": { "uri": file },
                        "region": {
                            "startLine": d.line,
                            "startColumn": d.column,
                            "byteOffset": d.span.start,
                            "byteLength": d.span.end.saturating_sub(d.span.start)
                        }
                    },
                    "logicalLocations": [{ "fullyQualifiedName": d.path, "kind": "member" }]
                }],
            });
            if let Some(i) = rule_index(d.rule_id) {
                r["ruleIndex"] = json!(i);
            }
            if !d.related.is_empty() {
                r["relatedLocations"] = d
                    .related
                    .iter()
                    .enumerate()
                    .map(|(i, rel)| {
                        json!({
                            "id": i,
                            "message": { "text": rel.message },
                            "physicalLocation": {
                                "artifactLocation": { "uri": file },
                                "region": { "startLine": rel.line, "startColumn": rel.column }
                            }
                        })
                    })
                    .collect();
            }
            r
        })
        .collect();
    let rules_json: Vec<_> = rules
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "shortDescription": { "text": r.doc },
                "defaultConfiguration": { "level": sarif_level(r.severity) }
            })
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "poscheck",
                "fullName": "poscheck, the POS integration checker",
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "informationUri": INFORMATION_URI,
                "rules": rules_json
            }},
            "columnKind": "utf16CodeUnits",
            "results": results
        }]
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}

/// A workflow command's data: `%`, CR and LF percent-encoded as GitHub documents, and every other
/// control character escaped visibly.
fn escape_data(s: &str) -> String {
    escape_control(&s.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")).into_owned()
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=rule::message`.
pub fn github(report: &Report, file: &str) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let cmd = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut msg = d.message.clone();
        if let Some(h) = &d.help {
            let _ = write!(msg, "\n{h}");
        }
        let _ = writeln!(
            out,
            "::{cmd} file={},line={},col={},title={}::{}",
            escape_property(file),
            d.line,
            d.column,
            escape_property(d.rule_id),
            escape_data(&msg)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Collector, Path};
    use crate::json::Span;

    static R: Rule =
        Rule { id: "demo/rule", severity: Severity::Error, doc: "A demo rule.", basis: crate::basis::Basis::Stated, source: "" };

    fn report() -> Report {
        let mut c = Collector::new();
        c.push(&R, &Path::ROOT.key("a"), Span::new(4, 5), "bad, really: bad\nnext").help("fix it");
        c.finish(b"{\n  \"a\": 1}")
    }

    #[test]
    fn text_lines() {
        let t = text(&report(), "menu.json");
        assert!(t.starts_with("menu.json:2:3 error demo/rule bad, really: bad"), "{t}");
        assert!(t.contains("help: fix it"));
        assert!(t.trim_end().ends_with("failed: 1 error, 0 warnings, 0 infos"));
    }

    #[test]
    fn sarif_minimum_for_code_scanning() {
        let v: serde_json::Value = serde_json::from_str(&sarif(&report(), "menu.json", &[&R])).unwrap();
        assert_eq!(v["version"], "2.1.0");
        let res = &v["runs"][0]["results"][0];
        assert_eq!(res["ruleId"], "demo/rule");
        assert_eq!(res["ruleIndex"], 0);
        assert_eq!(res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "menu.json");
        assert_eq!(res["locations"][0]["physicalLocation"]["region"]["startLine"], 2);
        assert_eq!(v["runs"][0]["tool"]["driver"]["rules"][0]["id"], "demo/rule");
    }

    #[test]
    fn github_escapes() {
        let g = github(&report(), "a,b.json");
        assert_eq!(g, "::error file=a%2Cb.json,line=2,col=3,title=demo/rule::bad, really: bad%0Anext%0Afix it\n");
    }
}
