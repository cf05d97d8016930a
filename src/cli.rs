//! What each `poscheck` command prints and exits with, given its inputs already read: shared by the
//! native binary (which parses arguments with clap and reads files) and by the npm package's
//! `poscheck` bin (which runs the same functions through the wasm), so both print the same bytes
//! and exit with the same status.
//!
//! Exit status: 0 valid or clean, 1 invalid or errors found (or warnings over `max_warnings`),
//! 2 usage or read error (decided by the callers, which read the inputs).

use crate::diagnostic::{Report, Rule};
use crate::format::{self, Format};
use crate::http::Headers;
use crate::payload::{self, Inspection, PayloadKind, PayloadOptions};
use crate::{menu, order, signature};
use serde::Serialize;

/// What a command printed and its exit status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "CliOutput"))]
pub struct Output {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status.
    pub code: u8,
}

impl Output {
    fn new(stdout: String, failed: bool) -> Self {
        Self { stdout, stderr: String::new(), code: u8::from(failed) }
    }

    /// A usage or read error: exit 2 with `message` on standard error.
    pub fn usage_error(message: &str) -> Self {
        Self { stdout: String::new(), stderr: format!("poscheck: {message}\nRun `poscheck --help` for usage.\n"), code: 2 }
    }
}

/// The checker a report command runs.
#[derive(Debug, Clone)]
pub enum Check {
    /// `lint`: a full menu submission.
    Lint,
    /// `order`: an order as read from the service.
    Order,
    /// `validate`: a payload (kind detected unless given), a raw request or a problem response.
    Validate {
        /// `--kind`.
        kind: Option<PayloadKind>,
        /// `--path`.
        path: Option<String>,
        /// Unix seconds, for the predictions that depend on the time.
        now: i64,
    },
}

impl Check {
    /// The rules of this check, for SARIF's rule table.
    pub fn rules(&self) -> Vec<&'static Rule> {
        match self {
            Check::Lint => menu::RULES.to_vec(),
            Check::Order => order::RULES.to_vec(),
            Check::Validate { .. } => payload::RULES.iter().chain(menu::RULES).copied().collect(),
        }
    }
}

/// `lint`, `validate`, `order` over `inputs` (`(name, bytes)`, the name `<stdin>` for standard
/// input): one report each, in `format`; exit 1 when one has an error, or more warnings than
/// `max_warnings`. `validate` with JSON output prints the predicted answer of a request (or the
/// advice on a problem response) with its report; with the other formats, on standard error.
pub fn report_command(check: &Check, inputs: &[(String, Vec<u8>)], format: Format, max_warnings: Option<usize>) -> Output {
    let json = format == Format::Json;
    let mut stderr = String::new();
    let mut reports: Vec<(&str, Report)> = Vec::with_capacity(inputs.len());
    let mut whole: Vec<Option<serde_json::Value>> = Vec::with_capacity(inputs.len());
    for (name, input) in inputs {
        let (report, answer) = match check {
            Check::Lint => (menu::lint(input, &menu::LintOptions::default()), None),
            Check::Order => (order::check_order(input, &order::CheckOptions::default()), None),
            Check::Validate { kind, path, now } => {
                let options = PayloadOptions { kind: *kind, path: path.clone(), ..Default::default() };
                validate(input, &options, *now, json, &mut stderr)
            }
        };
        whole.push(answer);
        reports.push((name.as_str(), report));
    }
    let stdout = if json && whole.iter().any(Option::is_some) {
        let items: Vec<serde_json::Value> = reports
            .iter()
            .zip(whole)
            .map(|((file, report), answer)| answer.unwrap_or_else(|| serde_json::json!({ "file": file, "report": report })))
            .collect();
        let value = if items.len() == 1 { items.into_iter().next().unwrap_or_default() } else { serde_json::Value::Array(items) };
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    } else {
        let refs: Vec<(&str, &Report)> = reports.iter().map(|(f, r)| (*f, r)).collect();
        format::render_many(format, &refs, &check.rules())
    };
    let failed = reports.iter().any(|(_, r)| !r.ok || max_warnings.is_some_and(|m| r.warning_count > m));
    Output { stdout, stderr, code: u8::from(failed) }
}

/// One input of `validate`: its report, and for JSON output of a request or a problem response the
/// whole inspection (the predicted answer with its basis, or the advice).
fn validate(input: &[u8], options: &PayloadOptions, now: i64, json: bool, stderr: &mut String) -> (Report, Option<serde_json::Value>) {
    let inspection = payload::inspect(input, options, now);
    let answered = matches!(inspection, Inspection::Request { .. } | Inspection::Problem { .. });
    let whole = (json && answered).then(|| serde_json::to_value(&inspection).unwrap_or_default());
    let report = match inspection {
        Inspection::Payload { report } | Inspection::Response { report, .. } => report,
        Inspection::Request { method, path, prediction } => {
            if !json {
                stderr.push_str(&format!(
                    "{} {}: the service would answer {} ({}: {})\n",
                    format::escape_control(&method),
                    format::escape_control(&path),
                    prediction.status,
                    prediction.basis.status.basis.as_str(),
                    format::escape_control(&prediction.basis.status.source)
                ));
                if let Some(p) = &prediction.problem {
                    stderr.push_str(&(serde_json::to_string_pretty(p).unwrap_or_default() + "\n"));
                }
            }
            prediction.report
        }
        Inspection::Problem { status, classification } => {
            if !json {
                stderr.push_str(&format!("{status} {}: {}\n", classification.kind, format::escape_control(&classification.advice)));
            }
            classification.report
        }
    };
    (report, whole)
}

/// `sign`: the X-Service-* headers for `body`, as `Name: value` lines or a JSON object.
pub fn sign(
    secret: &[u8],
    timestamp: u64,
    body: &[u8],
    delivery_id: Option<&str>,
    event_type: Option<&str>,
    json: bool,
) -> Result<Output, String> {
    let sig = signature::sign(secret, timestamp, body).map_err(|e| format!("{}: {e}", e.code()))?;
    let mut headers = vec![(signature::HEADER_TIMESTAMP, timestamp.to_string()), (signature::HEADER_SIGNATURE, sig)];
    for (option, name, value) in
        [("delivery-id", signature::HEADER_DELIVERY_ID, delivery_id), ("event-type", signature::HEADER_EVENT_TYPE, event_type)]
    {
        if let Some(value) = value {
            if value.chars().any(char::is_control) {
                return Err(format!("--{option} must not contain control characters: a header value cannot hold CR, LF or other controls"));
            }
            headers.push((name, value.to_string()));
        }
    }
    let stdout = if json {
        let map: serde_json::Map<String, serde_json::Value> = headers.iter().map(|(k, v)| (k.to_string(), v.clone().into())).collect();
        serde_json::to_string_pretty(&map).unwrap_or_default() + "\n"
    } else {
        headers.iter().map(|(k, v)| format!("{k}: {v}\n")).collect()
    };
    Ok(Output::new(stdout, false))
}

/// `verify` from its inputs: `input` is the body, or with `request` a whole raw HTTP request;
/// `header_args` are the `--header 'Name: value'` arguments. A malformed request or header is a
/// usage error (exit 2).
pub fn verify_command<S: AsRef<[u8]>>(
    input: &[u8],
    request: bool,
    header_args: &[String],
    secrets: &[S],
    now: u64,
    tolerance: u64,
    json: bool,
) -> Output {
    let (mut headers, body) = if request {
        match crate::http::parse_message(input) {
            Ok(m) => (m.headers, m.body),
            Err(e) => return Output::usage_error(&format!("{}: {e}", e.code())),
        }
    } else {
        (Headers::new(), input.to_vec())
    };
    for h in header_args {
        let Some((name, value)) = h.split_once(':') else {
            return Output::usage_error(&format!("--header expects 'Name: value', got {:?}", format::escape_control(h)));
        };
        headers.push(name.trim(), value.trim_matches([' ', '\t']));
    }
    verify(&body, &headers, secrets, now, tolerance, json)
}

/// `verify`: the diagnosis of a webhook, as text (the verdict, then each finding) or JSON; exit 1
/// when it is not valid.
pub fn verify<S: AsRef<[u8]>>(body: &[u8], headers: &Headers, secrets: &[S], now: u64, tolerance: u64, json: bool) -> Output {
    let d = signature::diagnose(body, headers, secrets, now, tolerance);
    let stdout = if json {
        serde_json::to_string_pretty(&d).unwrap_or_default() + "\n"
    } else {
        let mut s = match (&d.verified, d.code) {
            (Some(v), _) => format!(
                "valid: timestamp {} ({}), delivery id {}, event type {}, secret #{}\n",
                v.timestamp,
                crate::time::format_unix_seconds(v.timestamp.min(i64::MAX as u64) as i64),
                format::escape_control(v.delivery_id.as_deref().unwrap_or("(none)")),
                format::escape_control(v.event_type.as_deref().unwrap_or("(none)")),
                v.secret_index
            ),
            (None, code) => format!("invalid: {} {}\n", code.unwrap_or("?"), format::escape_control(d.message.as_deref().unwrap_or(""))),
        };
        for f in d.findings.iter().filter(|f| f.code != "VALID") {
            s.push_str(&format!("  {}: {}\n", f.code, format::escape_control(&f.message)));
        }
        s
    };
    Output::new(stdout, !d.valid)
}

/// `rules`: every rule with its severity, basis, documentation and source: the checkers' rules,
/// then the probe's checks (`receiver/…`, `client/…`, [`crate::probe::RULES`]).
pub fn rules(json: bool) -> Output {
    let rules = crate::probe::every_rule();
    let stdout = if json {
        serde_json::to_string_pretty(&rules).unwrap_or_default() + "\n"
    } else {
        rules
            .iter()
            .map(|r| format!("{:<40} {:<8} {:<8} {}  [{}]\n", r.id, r.severity.as_str(), r.basis.as_str(), r.doc, r.source))
            .collect()
    };
    Output::new(stdout, false)
}

/// `schema [KIND]`: the JSON Schema of KIND (as the npm package ships it in
/// `schemas/<kind>.schema.json`); without a kind (or with `--list`), the kinds, one a line with
/// what each is. An unknown kind is a usage error (exit 2) naming the kinds.
pub fn schema(kind: Option<&str>) -> Output {
    let kinds = crate::schema::kinds();
    let Some(kind) = kind else {
        let stdout = kinds.iter().map(|k| format!("{:<22} {}\n", k.id, k.summary)).collect();
        return Output::new(stdout, false);
    };
    match crate::schema::render(kind) {
        Some(text) => Output::new(text, false),
        None => {
            let ids: Vec<&str> = kinds.iter().map(|k| k.id).collect();
            // The kind quoted as JSON (as the npm bin's JSON.stringify quotes it): same bytes.
            let quoted = serde_json::to_string(kind).unwrap_or_default();
            Output::usage_error(&format!("unknown schema kind {quoted}: expected one of {}", ids.join(", ")))
        }
    }
}

/// `openapi`: the OpenAPI 3.1 document of the service, `servers[0].url` the sandbox's default base
/// (as the npm package ships it in `schemas/openapi.json`).
pub fn openapi() -> Output {
    Output::new(crate::schema::openapi::render(crate::schema::openapi::DEFAULT_BASE_URL), false)
}

/// The formats of `diff`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffFormat {
    /// Human text.
    Text,
    /// The diff as JSON.
    Json,
    /// A Markdown summary (for a pull request comment).
    Markdown,
}

/// `diff CURRENT NEXT`; exit 1 above the threshold, when NEXT has lint errors, or when a side
/// cannot be read as a menu.
pub fn diff(current: (&str, &[u8]), next: (&str, &[u8]), options: &menu::diff::DiffOptions, format: DiffFormat) -> Output {
    let d = menu::diff::diff(current.1, next.1, options);
    let stdout = match format {
        DiffFormat::Json => serde_json::to_string_pretty(&d).unwrap_or_default() + "\n",
        DiffFormat::Markdown => menu::diff::render::markdown(&d, current.0, next.0),
        DiffFormat::Text => menu::diff::render::text(&d, current.0, next.0),
    };
    Output::new(stdout, !d.compared || d.summary.above_threshold || d.summary.would_be_refused)
}
