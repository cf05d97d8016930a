//! The diagnosis of a captured delivery that failed verification: which known mistake (a
//! re-serialized body, the wrong timestamp, a body-only MAC…) reproduces its signature.

use super::verify::{matching_secret, parse_headers, same_mac};
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
];

/// Tries each transformation of the received body that reproduces a known mistake, one at a
/// time (only one variant is alive at once), until `found` says one matched: its code and message.
///
/// Work is linear in the body: each variant is at most [`MAX_VARIANT_GROWTH`] times the body
/// (a pretty-printing of deeply nested JSON, whose indentation grows with the depth, is given up
/// past that), and there are at most nine of them.
fn find_variant(body: &[u8], mut found: impl FnMut(&[u8]) -> bool) -> Option<(&'static str, &'static str)> {
    let mut tried = |code: &'static str, bytes: &[u8], message: &'static str| (bytes != body && found(bytes)).then_some((code, message));
    // Line endings.
    let has_crlf = body.windows(2).any(|w| w == b"\r\n");
    if has_crlf {
        if let Some(hit) = tried("LINE_ENDINGS_CHANGED", &replace(body, b"\r\n", b"\n"), "the service signed the body with LF line endings, but the body checked has CRLF: something converted line endings (a proxy, a text-mode read, a copy through an editor); verify the bytes as received") {
            return Some(hit);
        }
    }
    if body.contains(&b'\n') && !has_crlf {
        if let Some(hit) = tried("LINE_ENDINGS_CHANGED", &replace(body, b"\n", b"\r\n"), "the service signed the body with CRLF line endings, but the body checked has LF: something converted line endings; verify the bytes as received") {
            return Some(hit);
        }
    }
    // Trailing newline.
    if let Some(stripped) = body.strip_suffix(b"\r\n").or_else(|| body.strip_suffix(b"\n")) {
        if let Some(hit) = tried("TRAILING_NEWLINE_ADDED", stripped, "the body checked ends with a newline the service did not sign: something appended it (a pasted file, an echo, a text editor); remove it and verify the bytes as received") {
            return Some(hit);
        }
    }
    if let Some(hit) = tried(
        "TRAILING_NEWLINE_REMOVED",
        &[body, b"\n"].concat(),
        "the service signed the body with a trailing newline that the body checked lacks: something trimmed it; do not trim the raw body",
    ) {
        return Some(hit);
    }
    // Byte order mark.
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let bom = if let Some(stripped) = body.strip_prefix(BOM) {
        tried("BOM_ADDED", stripped, "the body checked starts with a UTF-8 byte order mark the service did not sign: something added it while decoding or saving; verify the bytes as received")
    } else {
        tried("BOM_REMOVED", &[BOM, body].concat(), "the service signed a body starting with a UTF-8 byte order mark that the body checked lacks: a text decoder stripped it; verify the bytes as received, before any decoding")
    };
    if bom.is_some() {
        return bom;
    }
    // Re-serialized JSON: try the common serializations of the same value (serde_json bounds
    // the nesting at 128 levels).
    const MSG: &str = "the body was re-serialized: it is the same JSON value as what the service signed, with different spacing; capture the raw body bytes before any JSON parsing (Express: express.raw({ type: 'application/json' }); node:http: concatenate the request chunks) and verify those";
    const MSG_FORMAT: &str = "the body was re-serialized: it is the same JSON value as what the service signed, written differently (not only spacing: numbers such as 23.40 written 23.4, string escapes or key order changed too); capture the raw body bytes before any JSON parsing (Express: express.raw({ type: 'application/json' }); node:http: concatenate the request chunks) and verify those";
    let value = serde_json::from_slice::<serde_json::Value>(body.strip_prefix(BOM).unwrap_or(body)).ok()?;
    let cap = body.len().saturating_mul(MAX_VARIANT_GROWTH).saturating_add(4096);
    // Compact, pretty with 2 spaces, 4 spaces, a tab, and Python's ", " / ": " separators.
    for indent in [None, Some(&b"  "[..]), Some(b"    "), Some(b"\t"), Some(b"")] {
        let mut w = CappedWriter { buf: Vec::new(), cap };
        let written = match indent {
            None => serde_json::to_writer(&mut w, &value),
            Some(b"") => spaced_json(&value, &mut w),
            Some(indent) => {
                let mut ser = serde_json::Serializer::with_formatter(&mut w, serde_json::ser::PrettyFormatter::with_indent(indent));
                serde::Serialize::serialize(&value, &mut ser)
            }
        };
        if written.is_ok() {
            // Spacing alone, or also how numbers, strings or key order are written (23.40 → 23.4).
            let message = if json_tokens(&w.buf).eq(json_tokens(body)) { MSG } else { MSG_FORMAT };
            if let Some(hit) = tried("BODY_RESERIALIZED", &w.buf, message) {
                return Some(hit);
            }
        }
    }
    None
}

/// The bytes of a JSON text without the whitespace outside strings (linear, no allocation).
fn json_tokens(json: &[u8]) -> impl Iterator<Item = u8> + '_ {
    let mut in_string = false;
    let mut escaped = false;
    json.iter().copied().filter(move |&b| {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            return true;
        }
        if b == b'"' {
            in_string = true;
        }
        !matches!(b, b' ' | b'\t' | b'\n' | b'\r')
    })
}

/// A re-serialization is given up when it grows past this many times the body.
const MAX_VARIANT_GROWTH: usize = 4;

/// A `Vec` writer that refuses to grow past `cap` bytes.
struct CappedWriter {
    buf: Vec<u8>,
    cap: usize,
}

impl std::io::Write for CappedWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        if self.buf.len() + data.len() > self.cap {
            return Err(std::io::Error::other("variant larger than its bound"));
        }
        self.buf.extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// JSON with `", "` and `": "` separators (Python's `json.dumps` default).
fn spaced_json(value: &serde_json::Value, w: &mut CappedWriter) -> Result<(), serde_json::Error> {
    struct Spaced;
    impl serde_json::ser::Formatter for Spaced {
        fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
            if first {
                Ok(())
            } else {
                w.write_all(b", ")
            }
        }
        fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
            w.write_all(b": ")
        }
    }
    let mut ser = serde_json::Serializer::with_formatter(w, Spaced);
    serde::Serialize::serialize(value, &mut ser)
}

pub(super) fn replace(haystack: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(haystack.len());
    let mut i = 0;
    while i < haystack.len() {
        if haystack[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(haystack[i]);
            i += 1;
        }
    }
    out
}

/// Bodies larger than this are not re-serialized or transformed by [`diagnose`] (each variant is
/// one more HMAC over the whole body); the verification verdict itself is unaffected.
pub const DIAGNOSE_MAX_VARIANT_BODY: usize = 4 * 1024 * 1024;

/// Verifies like [`verify`] and, on failure, names the likely cause by trying the known mistakes:
/// a re-serialized body, changed line endings, a trailing newline added or removed, a byte order
/// mark, a secret with surrounding whitespace, a timestamp in milliseconds, a MAC over the body
/// alone; and for a valid MAC outside the window, the clock skew.
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
            let hex = headers.get(HEADER_SIGNATURE).and_then(|v| v.strip_prefix(SIGNATURE_PREFIX)).unwrap_or("");
            if hex.bytes().any(|b| b.is_ascii_uppercase()) {
                findings.push(Finding {
                    code: "SIGNATURE_UPPERCASE_HEX",
                    message: "the signature uses uppercase hex digits: the MAC matches, but the contract says lowercase hex, and a receiver that compares hex strings (instead of the decoded bytes) would reject it".into(),
                });
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

fn describe_skew(skew: i64) -> String {
    match skew {
        0 => "exactly that".to_string(),
        s if s > 0 => format!("{s} s ahead"),
        s => format!("{} s behind", s.unsigned_abs()),
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
            let raw = headers.get(HEADER_SIGNATURE).unwrap_or("");
            if raw.len() == 64 && raw.bytes().all(|b| b.is_ascii_hexdigit()) {
                push("SIGNATURE_PREFIX_MISSING", "the signature is 64 hex digits without the \"sha256=\" prefix: the header value must be \"sha256=\" followed by the hex digest".into());
            } else {
                push("SIGNATURE_NOT_HEX", "the signature must be \"sha256=\" followed by the 64 lowercase hex digits of the HMAC-SHA256 (not base64, not another algorithm)".into());
            }
            return;
        }
        _ => {}
    }
    let Ok(parsed) = parse_headers(headers.lookup(HEADER_TIMESTAMP), headers.lookup(HEADER_SIGNATURE)) else { return };
    let ts = parsed.timestamp_raw.as_bytes();
    if parsed.timestamp > 100_000_000_000 {
        let secs = parsed.timestamp / 1000;
        let close = secs.abs_diff(now) <= tolerance.max(DEFAULT_TOLERANCE_SECONDS);
        // The MAC over the milliseconds matching is not a clock to sync: say it here, once.
        let mac_ok = matching_secret(secrets, ts, body, &parsed.signature).is_some();
        push(
            "TIMESTAMP_IN_MILLISECONDS",
            format!(
                "X-Service-Timestamp {} looks like milliseconds{}: the service sends unix seconds; if you produced this request, sign with seconds (Math.floor(Date.now() / 1000)){}",
                parsed.timestamp,
                if close { format!(" ({secs} s is within the window of now)") } else { String::new() },
                if mac_ok { "; the HMAC itself matches" } else { "" }
            ),
        );
        if mac_ok {
            return;
        }
    }
    // A valid MAC outside the window: the clock of one side is off, or the request is a replay.
    if matches!(error, WebhookError::TimestampTooOld { .. } | WebhookError::TimestampInFuture { .. })
        && matching_secret(secrets, ts, body, &parsed.signature).is_some()
    {
        let skew = i128::from(parsed.timestamp) - i128::from(now);
        push(
            "CLOCK_SKEW",
            format!(
                "the signature is valid but the timestamp is {} of your clock (tolerance {tolerance} s): a replayed delivery, or a receiver clock that is off; sync the clock with NTP and never take the timestamp from your own clock",
                describe_skew(skew.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64)
            ),
        );
        return;
    }
    // Secret with surrounding whitespace.
    let trimmed: Vec<&[u8]> = secrets.iter().map(|s| s.trim_ascii()).collect();
    let any_untrimmed = secrets.iter().zip(&trimmed).any(|(s, t)| *s != *t && !t.is_empty());
    if any_untrimmed && matching_secret(&trimmed, ts, body, &parsed.signature).is_some() {
        push(
            "SECRET_WHITESPACE",
            "the secret has surrounding whitespace (often a trailing newline from a file or an environment variable): trim it".into(),
        );
        return;
    }
    // MAC over the body alone.
    if secrets.iter().any(|s| same_mac(&mac_body_only(s, body), &parsed.signature)) {
        push("SIGNED_BODY_ONLY", "the signature is the HMAC of the body alone: the signed message is the timestamp, a dot, then the raw body (\"<X-Service-Timestamp>.<body>\")".into());
        return;
    }
    if body.len() <= DIAGNOSE_MAX_VARIANT_BODY {
        let hit = find_variant(body, |bytes| {
            matching_secret(secrets, ts, bytes, &parsed.signature).is_some()
                || (any_untrimmed && matching_secret(&trimmed, ts, bytes, &parsed.signature).is_some())
        });
        if let Some((code, message)) = hit {
            push(code, message.to_string());
            return;
        }
    }
    if matches!(error, WebhookError::SignatureMismatch) {
        push("WRONG_SECRET_OR_BODY", "no known mistake reproduces the signature: the secret is not the one of this account (or was rotated), the body was altered in transit, or the timestamp header was changed".into());
    }
}
