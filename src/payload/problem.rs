//! Problem responses the POS reads back, turned into advice (spec, "Errors" and "Limits").

use super::fields;
use super::rules as r;
use crate::contract::{ProblemSuffix, Status};
use crate::diagnostic::{Collector, Path, Report};
use crate::http::Headers;
use crate::json::{self, Span, Value};
use serde::Serialize;
use std::collections::BTreeMap;

/// A response the service sent: its status, headers and raw body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProblemInput {
    /// The HTTP status of the response.
    pub status: u16,
    /// Its headers (`Retry-After`, `Content-Type`).
    pub headers: Headers,
    /// Its body, as received.
    pub body: Vec<u8>,
    /// Unix seconds, to turn a `Retry-After` HTTP date into seconds.
    pub now: Option<i64>,
}

impl ProblemInput {
    /// The response of a pasted raw HTTP message (`crate::http::parse_message`); `None` for a
    /// request.
    pub fn from_message(msg: &crate::http::Message, now: Option<i64>) -> Option<Self> {
        Some(Self { status: msg.status?, headers: msg.headers.clone(), body: msg.body.clone(), now })
    }
}

/// What a problem means for the POS and what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Classification {
    /// The type suffix when it is a known one (`not-found`, `idempotency-conflict`,
    /// `invalid-state-transition`, `validation`, `acceptance-timeout`: matched on the suffix, the
    /// host ignored); otherwise from the status: `schema-version` (400), `unauthorized` (401),
    /// `not-found` (404), `conflict` (409), `validation` (422), `rate-limited` (429),
    /// `unavailable` (502, 503), `client-error`, `server-error`, `not-an-error` (below 400).
    pub kind: String,
    /// The HTTP status.
    pub status: u16,
    /// The known suffix the `type` ends in, if any.
    pub type_suffix: Option<String>,
    /// Whether to retry: 429 (after Retry-After, with exponential backoff and jitter), 502 and 503.
    pub retryable: bool,
    /// From `Retry-After` (delta-seconds, or an HTTP date when `now` is given).
    #[serde(serialize_with = "crate::json::js_safe::option_u64")]
    pub retry_after_seconds: Option<u64>,
    /// Whether the retry reuses the same Idempotency-Key (a retry of the same attempt).
    pub reuse_idempotency_key: bool,
    /// A 409 with an empty `meta.allowedTransitions`: a terminal state; do not retry.
    pub terminal: bool,
    /// A 409 with `meta.currentStatus` Ready (e.g. on PUT status ready after the driver marked it
    /// ready): the state is already reached; continue with handed_over.
    pub already_reached: bool,
    /// `meta.errors` of a 422: field path → broken rules.
    pub field_errors: BTreeMap<String, Vec<String>>,
    /// `meta.currentStatus` of a transition 409.
    pub current_status: Option<String>,
    /// `meta.allowedTransitions` of a transition 409.
    pub allowed_transitions: Option<Vec<String>>,
    /// The problem's `title`.
    pub title: Option<String>,
    /// Its `detail` (for people; never parsed).
    pub detail: Option<String>,
    /// Its `traceId`, to quote to support.
    pub trace_id: Option<String>,
    /// What to do, in one or two sentences.
    pub advice: String,
    /// Diagnostics about the problem body itself (not an RFC 7807 object, status mismatch, …).
    pub report: Report,
}

/// The type suffixes the contract lists. A `type` of `about:blank` (RFC 7807: no further
/// semantics) is classified from the status without a diagnostic.
pub const KNOWN_SUFFIXES: &[&str] = ProblemSuffix::NAMES;

const NOT_FOUND: &str = ProblemSuffix::NotFound.as_str();
const IDEMPOTENCY_CONFLICT: &str = ProblemSuffix::IdempotencyConflict.as_str();
const INVALID_TRANSITION: &str = ProblemSuffix::InvalidStateTransition.as_str();
const VALIDATION: &str = ProblemSuffix::Validation.as_str();
const ACCEPTANCE_TIMEOUT: &str = ProblemSuffix::AcceptanceTimeout.as_str();

/// The known suffix `type` ends in (`…/validation`, or the bare suffix).
fn suffix_of(type_: &str) -> Option<&'static str> {
    KNOWN_SUFFIXES.iter().copied().find(|s| type_ == *s || type_.strip_suffix(s).is_some_and(|rest| rest.ends_with('/')))
}

fn kind_from_status(status: u16) -> &'static str {
    match status {
        0..=399 => "not-an-error",
        400 => "schema-version",
        401 => "unauthorized",
        404 => NOT_FOUND,
        409 => "conflict",
        422 => VALIDATION,
        429 => "rate-limited",
        502 | 503 => "unavailable",
        402..=499 => "client-error",
        _ => "server-error",
    }
}

/// Parses `Retry-After`: delta-seconds, or an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`)
/// measured from `now`.
pub(crate) fn retry_after(value: &str, now: Option<i64>) -> Option<u64> {
    let v = value.trim();
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        return v.parse().ok().or(Some(u64::MAX));
    }
    let parts: Vec<&str> = v.split_whitespace().collect();
    let [_, day, mon, year, hms, "GMT"] = parts.as_slice() else {
        return None;
    };
    const MONTHS: &[&str] = &["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let m = MONTHS.iter().position(|x| x == mon)? + 1;
    let t = crate::time::parse(&format!("{year}-{m:02}-{day:0>2}T{hms}Z"))?;
    let now = now?;
    Some(u64::try_from(t.unix_seconds().saturating_sub(now)).unwrap_or(0))
}

/// Classifies a problem response and says what to do.
pub fn classify_problem(input: &ProblemInput) -> Classification {
    let mut c = Collector::new();
    c.set_budget(crate::diagnostic::DEFAULT_MAX_DIAGNOSTICS, &super::rules::PROBLEM_TOO_MANY_DIAGNOSTICS);
    c.set_kind("problem");
    let body = &input.body;
    let arena = json::Arena::for_input(body.len());
    let parsed = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        match json::parse(body, &json::Limits::default(), &arena) {
            Ok(doc) => Some(doc),
            Err(e) => {
                let at = e.offset.min(body.len());
                c.push(
                    &r::PROBLEM_NOT_JSON,
                    &Path::ROOT,
                    Span::new(at, at),
                    format!("the body is not JSON ({}): classified from the HTTP status alone", e.message),
                );
                None
            }
        }
    };
    let root = parsed.as_ref().map(|d| &d.root);
    let obj = root.filter(|v| v.as_object().is_some());
    if let (Some(v), None) = (root, obj) {
        c.push(&r::PROBLEM_NOT_JSON, &Path::ROOT, v.span, format!("a problem is a JSON object, found {}", crate::check::describe(v)));
    }
    if input.status >= 400 && body.iter().all(u8::is_ascii_whitespace) {
        c.push(&r::PROBLEM_NOT_JSON, &Path::ROOT, Span::new(0, 0), "the error body is empty: classified from the HTTP status alone");
    }

    let text = |v: Option<&Value>, k: &str| v.and_then(|o| o.get(k)).and_then(Value::as_str).map(str::to_string);
    let type_ = text(obj, "type");
    let suffix = type_.as_deref().and_then(suffix_of);
    let meta = obj.and_then(|o| o.get("meta")).filter(|m| !m.is_null());
    let current_status = text(meta, "currentStatus");
    let allowed_transitions = meta
        .and_then(|m| m.get("allowedTransitions"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect::<Vec<_>>());
    let mut field_errors = BTreeMap::new();
    if let Some(errors) = meta.and_then(|m| m.get("errors")).and_then(Value::as_object) {
        for m in errors {
            let rules = m.value.as_array().map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect()).unwrap_or_default();
            field_errors.insert(m.key.to_string(), rules);
        }
    }

    if let Some(o) = obj {
        for key in ["type", "title", "detail", "status", "traceId", "meta"] {
            if o.get(key).is_none() {
                c.push(
                    &r::PROBLEM_MISSING_MEMBER,
                    &Path::ROOT.key(key),
                    Span::new(o.span.start, o.span.start + 1),
                    format!("the problem has no \"{key}\" member"),
                );
            }
        }
        if let Some(s) = o.get("status") {
            if s.as_number().and_then(|n| n.as_i64()) != Some(i64::from(input.status)) {
                c.push(
                    &r::PROBLEM_STATUS_MISMATCH,
                    &Path::ROOT.key("status"),
                    s.span,
                    format!("the problem's status is {}, the HTTP status is {}", crate::check::describe(s), input.status),
                );
            }
        }
        if let (Some(t), None) = (type_.as_deref().filter(|t| *t != "about:blank"), suffix) {
            let span = o.get("type").map_or(o.span, |x| x.span);
            c.push(
                &r::PROBLEM_UNKNOWN_TYPE,
                &Path::ROOT.key("type"),
                span,
                format!("type \"{t}\" ends in none of the known suffixes: {}", KNOWN_SUFFIXES.join(", ")),
            );
        }
        meta_shape(&mut c, o, suffix);
        transition_statuses(&mut c, o, suffix);
    }
    let retry_header = input.headers.get("Retry-After");
    let retry_after_seconds = retry_header.and_then(|v| retry_after(v, input.now));
    if input.status == 429 && retry_after_seconds.is_none() {
        let msg = match retry_header {
            None => "a 429 without a Retry-After header: back off exponentially with jitter".to_string(),
            Some(v) if input.now.is_none() && retry_after(v, Some(0)).is_some() => {
                format!("Retry-After \"{v}\" is an HTTP date; pass now to turn it into seconds")
            }
            Some(v) => format!("Retry-After \"{v}\" is neither seconds nor an HTTP date"),
        };
        c.push_at(&r::PROBLEM_RETRY_AFTER, "Retry-After".into(), String::new(), Span::new(0, 0), msg);
    }

    let status = input.status;
    let kind = suffix.unwrap_or_else(|| kind_from_status(status)).to_string();
    let retryable = matches!(status, 429 | 502 | 503);
    let terminal = status == 409 && allowed_transitions.as_ref().is_some_and(Vec::is_empty);
    let already_reached = status == 409 && !terminal && current_status.as_deref() == Some(Status::Ready.as_str());
    let advice = advice(
        status,
        suffix,
        &kind,
        retry_after_seconds,
        terminal,
        already_reached,
        current_status.as_deref(),
        allowed_transitions.as_deref(),
        field_errors.len(),
    );
    Classification {
        kind,
        status,
        type_suffix: suffix.map(str::to_string),
        retryable,
        retry_after_seconds,
        reuse_idempotency_key: retryable,
        terminal,
        already_reached,
        field_errors,
        current_status,
        allowed_transitions,
        title: text(obj, "title"),
        detail: text(obj, "detail"),
        trace_id: text(obj, "traceId"),
        advice,
        report: c.finish(body),
    }
}

/// `meta` against the shapes the contract gives for the suffix.
fn meta_shape(c: &mut Collector, o: &Value, suffix: Option<&str>) {
    let Some(meta) = o.get("meta") else { return };
    let mp = Path::ROOT.key("meta");
    let strings = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(|a| a.iter().all(|x| x.as_str().is_some()));
    let problem = match suffix {
        Some(INVALID_TRANSITION) => {
            let ok = meta.get("currentStatus").and_then(Value::as_str).is_some() && strings(meta.get("allowedTransitions"));
            (!ok).then_some("a transition 409 has meta { currentStatus: string, allowedTransitions: string[] }")
        }
        // Whether the acceptance-timeout 409 is a "transition 409" is not shown: null, or the
        // transition shape (what predictAction and the sandbox send, assumed), are both accepted.
        Some(ACCEPTANCE_TIMEOUT) => {
            let ok =
                meta.is_null() || (meta.get("currentStatus").and_then(Value::as_str).is_some() && strings(meta.get("allowedTransitions")));
            (!ok).then_some(
                "an acceptance-timeout 409 has meta null or the transition shape { currentStatus: string, allowedTransitions: string[] }",
            )
        }
        Some(VALIDATION) => {
            let ok = meta.get("errors").and_then(Value::as_object).is_some_and(|m| m.iter().all(|e| strings(Some(&e.value))));
            (!ok).then_some("a validation 422 has meta { errors: { <field path>: string[] } }")
        }
        Some(_) => (!meta.is_null()).then_some("meta is null for this type"),
        None => None,
    };
    if let Some(msg) = problem {
        c.push(&r::PROBLEM_META_SHAPE, &mp, meta.span, msg);
    }
}

/// The statuses in the meta of a transition 409 (an invalid-state-transition, or an
/// acceptance-timeout carrying `currentStatus` / `allowedTransitions`) against the read
/// vocabulary (`problem/read-status`): "Transition 409: { currentStatus: string,
/// allowedTransitions: string[] } (PascalCase)".
fn transition_statuses(c: &mut Collector, o: &Value, suffix: Option<&str>) {
    let Some(meta) = o.get("meta").filter(|m| m.as_object().is_some()) else { return };
    let carries_transition_meta = meta.get("currentStatus").is_some() || meta.get("allowedTransitions").is_some();
    match suffix {
        Some(INVALID_TRANSITION) => {}
        Some(ACCEPTANCE_TIMEOUT) if carries_transition_meta => {}
        _ => return,
    }
    let mp = Path::ROOT.key("meta");
    if let Some(v) = meta.get("currentStatus") {
        read_status(c, &mp.key("currentStatus"), v);
    }
    if let Some(items) = meta.get("allowedTransitions").and_then(Value::as_array) {
        let ap = mp.key("allowedTransitions");
        for (i, v) in items.iter().enumerate() {
            read_status(c, &ap.index(i), v);
        }
    }
}

/// One status of a transition 409's meta: in the read vocabulary, or `problem/read-status` with
/// the PascalCase value it spells, if any. A value that is not a string is meta-shape's to report.
fn read_status(c: &mut Collector, path: &Path, v: &Value) {
    let Some(s) = v.as_str() else { return };
    if Status::parse(s).is_some() {
        return;
    }
    let at = path.to_service_path();
    if fields::is_driver_assigned(s) {
        c.push(&r::PROBLEM_READ_STATUS, path, v.span, format!("{at} \"{s}\" is not a status: the driver is not a status since 2026-08-11"))
            .help("the driver cycle is in driverAssignedAt, history[].driver and the driver_assigned / driver_released update webhooks");
    } else if let Some(pascal) = fields::read_status_like(s) {
        c.push(&r::PROBLEM_READ_STATUS, path, v.span, format!("{at} \"{s}\" is not in the read vocabulary: the statuses of a transition 409 are PascalCase"))
            .help(format!(
                "did you mean \"{pascal}\"? statuses in responses are PascalCase (the read vocabulary); snake_case is only the write vocabulary of the PUT status body"
            ));
    } else {
        c.push(&r::PROBLEM_READ_STATUS, path, v.span, format!("{at} \"{s}\" is not an order status: expected one of {}", Status::list()));
    }
}

#[allow(clippy::too_many_arguments)]
fn advice(
    status: u16,
    suffix: Option<&str>,
    kind: &str,
    retry_after: Option<u64>,
    terminal: bool,
    already: bool,
    current: Option<&str>,
    allowed: Option<&[String]>,
    n_fields: usize,
) -> String {
    if already {
        return "The order is already Ready (e.g. the driver marked it ready in the driver's app): a state already reached, not a failure. Continue with PUT status handed_over.".into();
    }
    if terminal && current == Some(Status::HandedOver.as_str()) {
        // "Empty allowedTransitions means terminal; do not retry" (Errors), yet the table has
        // HandedOver → Cancelled (refund or incident): no merchant action is left, the service may still move it.
        return "No merchant transition is left from HandedOver (allowedTransitions is empty): do not retry. The order is not closed for the service: it may still be cancelled after a refund or incident.".into();
    }
    if terminal {
        return format!("Terminal state{}: no transition is allowed. Do not retry.", current.map_or(String::new(), |s| format!(" ({s})")));
    }
    match (suffix, status) {
        (Some(ACCEPTANCE_TIMEOUT), _) => "The acceptance window expired (expiresAt passed), even if the order still reads Pending. Do not retry the accept.".into(),
        (Some(INVALID_TRANSITION), _) | (None, 409) if current.is_some() => {
            format!("Invalid transition from {}; allowed next: {}. Do not retry the same transition.", current.unwrap_or("?"), allowed.map_or("not given".to_string(), |a| a.join(", ")))
        }
        (Some(IDEMPOTENCY_CONFLICT), _) => "This Idempotency-Key was already used with a different body (keys are cached 24 h). Resend the exact original body to get the cached response, or use a fresh key for a new attempt.".into(),
        (Some(VALIDATION), _) | (None, 422) => format!("The request is invalid: read meta.errors ({n_fields} field path(s)). Fix it and send it as a new attempt with a fresh Idempotency-Key; do not retry it unchanged."),
        (Some(NOT_FOUND), _) | (None, 404) => "The resource does not exist or belongs to another client: check the identifier (orderKey, storeRemoteId, menu code). Do not retry.".into(),
        (_, 401) => "The API key is missing, invalid or revoked: check the key. Do not retry unchanged.".into(),
        (_, 400) => "X-Service-Schema-Version is missing or unsupported: send 1.0 on every mutation.".into(),
        (_, 409) => "Conflict. On PUT /api/v1/menu this is the bulk deactivation guard: review the counts in detail, run POST /api/v1/menu/preview, and resend with confirmLargeDeactivation=true if intended. Do not retry unchanged.".into(),
        (_, 429) => match retry_after {
            Some(s) => format!("Rate limit exceeded (100 per minute and 1,000 per hour per API key): wait {s} s (Retry-After), then retry with exponential backoff and jitter, reusing the same Idempotency-Key."),
            None => "Rate limit exceeded (100 per minute and 1,000 per hour per API key) and no usable Retry-After: retry with exponential backoff and jitter, reusing the same Idempotency-Key.".into(),
        },
        (_, 502 | 503) => "The catalog back end did not respond or is unavailable: retry with the same Idempotency-Key and backoff.".into(),
        _ if kind == "not-an-error" => "Not an error status.".into(),
        (_, 402..=499) => "A client error the contract does not describe: do not retry unchanged.".into(),
        _ => "A server error the contract does not describe: whether to retry is not shown.".into(),
    }
}

#[cfg(test)]
mod tests;
