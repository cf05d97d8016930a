//! The diagnosis of a captured delivery that failed verification: which known mistake (a
//! re-serialized body, the wrong timestamp, a body-only MAC…) reproduces its signature.

use super::causes::{describe_skew, Evidence, Stage, DIAGNOSES, DIAGNOSE_MAX_VARIANT_BODY};
use super::verify::parse_headers;
use super::*;

/// One likely cause of a failed verification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "WebhookFinding"))]
pub struct Finding {
    /// Stable code, e.g. `BODY_RESERIALIZED`; see [`FINDING_CODES`].
    pub code: &'static str,
    /// What happened and what to change.
    pub message: String,
}

/// The result of [`diagnose`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "WebhookDiagnosis"))]
#[serde(rename_all = "camelCase")]
pub struct Diagnosis {
    /// True when [`verify`] accepts the request.
    pub valid: bool,
    /// The [`WebhookError::code`] of the failure, or `None` when valid.
    pub code: Option<&'static str>,
    /// The verification error's message, or `None` when valid.
    pub message: Option<String>,
    /// Likely causes, most specific first.
    pub findings: Vec<Finding>,
    /// Seconds the timestamp is ahead of (positive) or behind (negative) `now`, when it parsed.
    #[serde(serialize_with = "crate::json::js_safe::option_i64")]
    pub skew_seconds: Option<i64>,
    /// What verification established, when valid.
    pub verified: Option<Verified>,
}

/// Every finding code [`diagnose`] can report.
pub const FINDING_CODES: &[&str] = &[
    "VALID",
    "CLOCK_SKEW",
    "TIMESTAMP_IN_MILLISECONDS",
    "BODY_RESERIALIZED",
    "LINE_ENDINGS_CHANGED",
    "TRAILING_NEWLINE_ADDED",
    "TRAILING_NEWLINE_REMOVED",
    "BOM_ADDED",
    "BOM_REMOVED",
    "SECRET_WHITESPACE",
    "SIGNED_BODY_ONLY",
    "SIGNATURE_PREFIX_MISSING",
    "SIGNATURE_NOT_HEX",
    "TIMESTAMP_NOT_UNIX_SECONDS",
    "WRONG_SECRET_OR_BODY",
    "HEADER_MISSING",
    "SECRET_MISSING",
    "HEADER_DUPLICATED",
    "SIGNATURE_UPPERCASE_HEX",
    "DELIVERY_ID_MISSING",
    "DELIVERY_ID_NOT_UUID",
    "EVENT_TYPE_UNKNOWN",
    "EVENT_TYPE_NOT_ON_CREATION",
    "EVENT_TYPE_MISSING",
    "SIGNATURE_BASE64",
    "SECRET_ENCODING",
    "SIGNED_WITHOUT_DOT",
];

/// Verifies like [`verify`] and, on failure, names the likely cause by trying the known mistakes of
/// the catalogue of causes ([`CAUSES`](super::CAUSES)): a re-serialized body, changed line
/// endings, a trailing newline added or removed, a byte order mark, a secret with surrounding
/// whitespace or read in another encoding, a timestamp in milliseconds, a MAC over the body alone
/// or without the dot, a signature in base64 or without its prefix; and for a valid MAC outside
/// the window, the clock skew.
///
/// Meant for the checker page and for logs: a receiver decides with [`verify`].
pub fn diagnose<S: AsRef<[u8]>>(body: &[u8], headers: &Headers, secrets: &[S], now: u64, tolerance_seconds: u64) -> Diagnosis {
    // One instance of the diagnosis, whatever the secrets' type: it is large (every known mistake
    // is tried), and the wasm module would otherwise carry a copy per caller.
    let secrets: Vec<&[u8]> = secrets.iter().map(AsRef::as_ref).collect();
    diagnose_secrets(body, headers, &secrets, now, tolerance_seconds)
}

fn diagnose_secrets(body: &[u8], headers: &Headers, secrets: &[&[u8]], now: u64, tolerance_seconds: u64) -> Diagnosis {
    let result = verify(body, headers, secrets, now, tolerance_seconds);
    let skew_seconds = headers
        .get(HEADER_TIMESTAMP)
        .and_then(|t| parse_timestamp(t).ok())
        .map(|ts| (i128::from(ts) - i128::from(now)).clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64);
    let mut findings = Vec::new();
    let error = match result {
        Ok(verified) => {
            findings.push(Finding {
                code: "VALID",
                message: format!(
                    "the signature matches secret #{} and the timestamp is {} of now",
                    verified.secret_index,
                    describe_skew(skew_seconds.unwrap_or(0))
                ),
            });
            header_findings(body, headers, &mut findings);
            let ev = Evidence::new(body, headers, secrets, now, tolerance_seconds, None, None);
            for d in DIAGNOSES.iter().filter(|d| d.stage == Stage::Valid) {
                if let Some((message, _)) = (d.test)(&ev) {
                    findings.push(Finding { code: d.code, message });
                }
            }
            return Diagnosis { valid: true, code: None, message: None, findings, skew_seconds, verified: Some(verified) };
        }
        Err(e) => e,
    };
    explain(&error, body, headers, secrets, now, tolerance_seconds, &mut findings);
    header_findings(body, headers, &mut findings);
    Diagnosis { valid: false, code: Some(error.code()), message: Some(error.to_string()), findings, skew_seconds, verified: None }
}

/// What the webhook is, from its body: `Some(true)` for the creation webhook (the data.order
/// shape), `Some(false)` for an update (`event`, or the former `status`) or a menu change
/// completion (`changeKey`), `None` when the body does not tell.
fn is_creation(body: &[u8]) -> Option<bool> {
    if body.len() > DIAGNOSE_MAX_VARIANT_BODY {
        return None;
    }
    let arena = crate::json::Arena::for_input(body.len());
    let doc = crate::json::parse(body, &crate::json::Limits::default(), &arena).ok()?;
    let root = &doc.root;
    root.as_object()?;
    if root.get("event").is_some() || root.get("changeKey").is_some() || (root.get("status").is_some() && root.get("occurredAt").is_some())
    {
        Some(false)
    } else if ["displayCode", "fulfillment", "storeRemoteId", "items"].iter().any(|k| root.get(k).is_some()) {
        Some(true)
    } else {
        None
    }
}

/// Findings about the headers beyond the signature (Authentication 3, Events rule 1): they do not
/// change `valid` (that is [`verify`]'s verdict), they say what else is off.
fn header_findings(body: &[u8], headers: &Headers, findings: &mut Vec<Finding>) {
    let mut push = |code, message: String| findings.push(Finding { code, message });
    match headers.get(HEADER_DELIVERY_ID) {
        None => push(
            "DELIVERY_ID_MISSING",
            format!("no {HEADER_DELIVERY_ID} header: every delivery of the service carries one (a UUID); receivers deduplicate on it"),
        ),
        Some(id) if !crate::check::is_uuid(id.trim()) => push(
            "DELIVERY_ID_NOT_UUID",
            format!(
                "{HEADER_DELIVERY_ID} {:?} is not a UUID: the service sends a UUID, the same for every attempt of one delivery",
                id.chars().take(60).collect::<String>()
            ),
        ),
        Some(_) => {}
    }
    let creation = is_creation(body);
    match headers.get(HEADER_EVENT_TYPE) {
        Some(t) if t.trim() != crate::contract::EVENT_TYPE_ORDER_CREATED => push(
            "EVENT_TYPE_UNKNOWN",
            format!(
                "{HEADER_EVENT_TYPE} {:?}: the only value is order.created, on the creation webhook (updates are told apart by the body's event)",
                t.chars().take(60).collect::<String>()
            ),
        ),
        Some(_) if creation == Some(false) => push(
            "EVENT_TYPE_NOT_ON_CREATION",
            format!("{HEADER_EVENT_TYPE} is sent with a body that is not the creation webhook: the service declares it only on the creation webhook"),
        ),
        None if creation == Some(true) => push(
            "EVENT_TYPE_MISSING",
            format!("the body is an order creation payload but there is no {HEADER_EVENT_TYPE}: the new order webhook carries order.created"),
        ),
        _ => {}
    }
}

fn explain(error: &WebhookError, body: &[u8], headers: &Headers, secrets: &[&[u8]], now: u64, tolerance: u64, findings: &mut Vec<Finding>) {
    let mut push = |code, message: String| findings.push(Finding { code, message });
    match error {
        WebhookError::InvalidSecret { .. } => {
            push(
                "SECRET_MISSING",
                "give the account's HMAC secret from onboarding (one per account); an empty secret cannot verify anything".into(),
            );
            return;
        }
        WebhookError::MissingTimestamp | WebhookError::MissingSignature => {
            let name = if matches!(error, WebhookError::MissingTimestamp) { HEADER_TIMESTAMP } else { HEADER_SIGNATURE };
            push("HEADER_MISSING", format!("the request has no {name} header: it did not come from the service, or a proxy dropped the header; check that the proxy forwards X-Service-* headers"));
            return;
        }
        WebhookError::MalformedTimestamp { .. } | WebhookError::MalformedSignature { .. }
            if [HEADER_TIMESTAMP, HEADER_SIGNATURE].iter().any(|n| matches!(headers.lookup(n), HeaderValue::Conflicting)) =>
        {
            let name =
                if matches!(headers.lookup(HEADER_TIMESTAMP), HeaderValue::Conflicting) { HEADER_TIMESTAMP } else { HEADER_SIGNATURE };
            push(
                "HEADER_DUPLICATED",
                format!("{name} is in the request more than once, with different values: a receiver cannot tell which one the service sent, so it must refuse the delivery; look for a proxy or client code that adds the header again"),
            );
            return;
        }
        WebhookError::MalformedTimestamp { .. } => {
            let raw = headers.get(HEADER_TIMESTAMP).unwrap_or("(sent several times)");
            let hint = if crate::time::parse(raw).is_some() {
                "it is an ISO 8601 date; the header carries unix seconds"
            } else if raw.contains('.') {
                "it has a fraction; the header carries whole seconds"
            } else {
                "it must be plain decimal digits (no sign, space or fraction)"
            };
            push("TIMESTAMP_NOT_UNIX_SECONDS", format!("X-Service-Timestamp must be unix seconds as decimal digits, e.g. 1786492800: {hint}; the signed message uses the header exactly as sent"));
            return;
        }
        WebhookError::MalformedSignature { .. } => {
            let ev = Evidence::new(body, headers, secrets, now, tolerance, Some(error), None);
            match DIAGNOSES.iter().filter(|d| d.stage == Stage::Signature).find_map(|d| (d.test)(&ev).map(|(m, _)| (d.code, m))) {
                Some((code, message)) => push(code, message),
                None => push("SIGNATURE_NOT_HEX", "the signature must be \"sha256=\" followed by the 64 lowercase hex digits of the HMAC-SHA256 (not base64, not another algorithm)".into()),
            }
            return;
        }
        _ => {}
    }
    let Ok(parsed) = parse_headers(headers.lookup(HEADER_TIMESTAMP), headers.lookup(HEADER_SIGNATURE)) else { return };
    // The catalogue's causes, in order: the first whose mistake reproduces the signature ends it.
    let ev = Evidence::new(body, headers, secrets, now, tolerance, Some(error), Some(parsed));
    for d in DIAGNOSES.iter().filter(|d| d.stage == Stage::Mac) {
        if let Some((message, stop)) = (d.test)(&ev) {
            push(d.code, message);
            if stop {
                return;
            }
        }
    }
    if matches!(error, WebhookError::SignatureMismatch) {
        push("WRONG_SECRET_OR_BODY", "no known mistake reproduces the signature: the secret is not the one of this account (or was rotated), the body was altered in transit, or the timestamp header was changed".into());
    }
}
