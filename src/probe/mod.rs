//! The go-live probe (`poscheck probe`, `probe()` of `poscheck/sandbox`): grades a running POS
//! against the contract, in both directions.
//!
//! - **Receiver checks** grade what the POS answers to webhooks: genuine deliveries of the service
//!   model ([`crate::service`]) and variants of them made here ([`variant`]: a body changed by one
//!   byte, another secret, a stale or future timestamp, a missing header, insignificant whitespace,
//!   an unknown event, unknown fields, copies sent together).
//! - **Client checks** grade the REST calls the POS makes to the sandbox while the scenarios run,
//!   read from the sandbox's call log ([`client`]).
//!
//! Like the rest of the core, nothing here does I/O or reads a clock: the face
//! (`pkg/src/probe.js`) sends, waits and reads the logs as the plan ([`plan`]) says; this module
//! decides what a run plays, every verdict, and writes every report ([`report`]).

pub mod client;
pub mod plan;
pub mod receiver;
pub mod report;
pub mod variant;

use crate::basis::Basis;
use crate::diagnostic::Severity;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Which side of the POS a check grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Side {
    /// Its webhook receiver (needs nothing else from the POS).
    Receiver,
    /// Its REST client (needs the POS to act on the orders it receives).
    Client,
}

/// A check of the probe: its id, severity, one-line documentation and the contract's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProbeRule {
    /// Stable kebab-case id, `receiver/…` or `client/…`.
    pub id: &'static str,
    /// Which side it grades.
    pub side: Side,
    /// Its severity when it fails.
    pub severity: Severity,
    /// What the POS must do.
    pub doc: &'static str,
    /// What it rests on.
    pub basis: Basis,
    /// The contract's sentence (and section) it rests on.
    pub source: &'static str,
}

macro_rules! rule {
    ($id:literal, $side:ident, $sev:ident, $basis:ident, $doc:literal, $source:literal) => {
        ProbeRule { id: $id, side: Side::$side, severity: Severity::$sev, basis: Basis::$basis, doc: $doc, source: $source }
    };
}

/// Every rule the toolkit has, with its basis: the checkers' ([`crate::rules::all`]), then the
/// probe's checks ([`RULES`]). `poscheck rules` and the page's rule list print this.
pub fn every_rule() -> Vec<crate::rules::RuleInfo> {
    let mut rules = crate::rules::infos(&crate::rules::all());
    rules.extend(RULES.iter().map(|r| crate::rules::RuleInfo {
        id: r.id,
        severity: r.severity,
        doc: r.doc,
        basis: r.basis,
        source: r.source,
    }));
    rules
}

/// Every check, in the order a report lists them (the order a run plays them is the plan's:
/// [`plan::RECEIVER_SCENES`], then the client scenario).
pub static RULES: &[ProbeRule] = &[
    rule!("receiver/order-created-answered", Receiver, Error, Stated,
        "A valid order.created is answered 200 with a non-empty remoteOrderId within 30 s.",
        "Endpoints the POS exposes: \"HTTP 200 with JSON { remoteOrderId: string }, non-null and non-empty, within 30 seconds. Without a valid remoteOrderId the delivery counts as failed and is retried.\""),
    ProbeRule { id: crate::signature::REFUSAL_CAUSE_RULE.id, side: Side::Receiver, severity: Severity::Error, basis: crate::signature::REFUSAL_CAUSE_RULE.basis, doc: crate::signature::REFUSAL_CAUSE_RULE.doc, source: crate::signature::REFUSAL_CAUSE_RULE.source },
    ProbeRule { id: crate::signature::FOREIGN_SIGNATURE_RULE.id, side: Side::Receiver, severity: Severity::Error, basis: crate::signature::FOREIGN_SIGNATURE_RULE.basis, doc: crate::signature::FOREIGN_SIGNATURE_RULE.doc, source: crate::signature::FOREIGN_SIGNATURE_RULE.source },
    rule!("receiver/duplicate-retry-same-id", Receiver, Error, Derived,
        "A retry of a delivery (same X-Service-Delivery-Id) is answered 200 with the same remoteOrderId.",
        "Events, rule 1: \"Every attempt of one delivery carries the same X-Service-Delivery-Id (UUID); the receiver deduplicates on it and answers 200 without reprocessing when the id was already handled.\""),
    rule!("receiver/duplicate-concurrent-copies", Receiver, Error, Derived,
        "Copies of one new delivery sent at the same moment are handled once: every 200 carries the same remoteOrderId.",
        "Events, rule 1: \"Delivery is at-least-once. Every attempt of one delivery carries the same X-Service-Delivery-Id (UUID); the receiver deduplicates on it and answers 200 without reprocessing when the id was already handled.\""),
    rule!("receiver/signature-tampered-body", Receiver, Error, Stated,
        "A body changed by one byte after signing is refused (not 2xx).",
        "Authentication 4-5: \"message = timestamp + . + raw request body bytes\"; \"reject a failed verification (sample receivers answer 401).\""),
    rule!("receiver/signature-wrong-secret", Receiver, Error, Stated,
        "A signature made with another secret is refused (not 2xx).",
        "Authentication 3-5: signed \"using the account's HMAC secret\"; \"reject a failed verification (sample receivers answer 401).\""),
    rule!("receiver/timestamp-too-old", Receiver, Error, Stated,
        "A delivery whose X-Service-Timestamp is 330 s old (when sent) is refused.",
        "Authentication 5: \"reject when the absolute difference to its own clock exceeds 300 seconds (replay protection)\"; Limits: \"Webhook timestamp skew: at most 300 seconds\"."),
    rule!("receiver/timestamp-in-future", Receiver, Error, Stated,
        "A delivery whose X-Service-Timestamp is 330 s ahead (when sent) is refused.",
        "Authentication 5: \"reject when the absolute difference to its own clock exceeds 300 seconds (replay protection)\"."),
    rule!("receiver/signature-missing", Receiver, Error, Stated,
        "A delivery without X-Service-Signature-256 is refused.",
        "Authentication 3, 5: request headers X-Service-Timestamp and X-Service-Signature-256; \"reject a failed verification\"."),
    rule!("receiver/timestamp-missing", Receiver, Error, Stated,
        "A delivery without X-Service-Timestamp is refused.",
        "Authentication 5: \"take the timestamp from the header, never from its own clock\"; \"reject a failed verification\"."),
    rule!("receiver/signature-raw-body", Receiver, Error, Stated,
        "The signature is checked on the raw bytes: a body with insignificant whitespace, signed as sent, is accepted.",
        "Authentication 5: \"capture the raw body before any JSON parsing and never sign a re-serialized body\"."),
    rule!("receiver/update-cancelled", Receiver, Error, Stated,
        "A cancelled update webhook is answered 200.",
        "Endpoints the POS exposes: order update, expected POS response \"Always 200.\""),
    rule!("receiver/update-driver-assigned-twice", Receiver, Error, Stated,
        "driver_assigned twice while the order is Preparing: both answered 200.",
        "Events, rule 3: \"driver_assigned can arrive more than once per order and while the order is Preparing\"; order update: \"Always 200.\""),
    rule!("receiver/update-driver-released", Receiver, Error, Stated,
        "driver_released with releasedDriver and expectedNext is answered 200.",
        "Events, rule 3: \"driver_released carries releasedDriver and expectedNext\"; order update: \"Always 200.\""),
    rule!("receiver/update-delivered", Receiver, Error, Stated,
        "A delivered update webhook is answered 200.",
        "Endpoints the POS exposes: order update, expected POS response \"Always 200.\""),
    rule!("receiver/update-cancelled-after-handover", Receiver, Error, Stated,
        "A cancelled update webhook for an order already HandedOver is answered 200.",
        "Events, rule 2: \"cancelled is also sent for an order already in HandedOver (refund or incident).\""),
    rule!("receiver/update-unknown-event", Receiver, Error, Stated,
        "An update webhook with an unknown future event value is answered 200.",
        "Endpoints the POS exposes: \"Always 200. Unknown event values are ignored with 200.\"; Versioning 5."),
    rule!("receiver/update-unknown-fields", Receiver, Error, Derived,
        "An update webhook with unknown extra fields is answered 200.",
        "Order update: \"Always 200.\"; Versioning 3: Additive changes (new fields) are made without a new version."),
    rule!("receiver/menu-change-answered", Receiver, Warning, Assumed,
        "The menu change completed webhook is answered 2xx.",
        "Endpoints the POS exposes: menu change completed, \"Response body: not shown.\" The status the service counts as received is not shown either: 2xx assumed."),
    rule!("receiver/answer-latency", Receiver, Error, Stated,
        "Every webhook is answered within the budget (30 s: the creation webhook's), per route p50, p99 and max.",
        "Limits: \"POS answer time to the creation webhook: 30 seconds; a slower answer counts as a failure\" (the same budget for the other routes: assumed)."),
    rule!("client/authenticated", Client, Error, Stated,
        "Every REST call carries the API key the sandbox issued (no 401).",
        "Authentication 1: \"A missing, invalid or revoked key gives 401.\""),
    rule!("client/idempotency-key-present", Client, Error, Stated,
        "Every mutation (POST, PUT, PATCH) carries Idempotency-Key.",
        "Conventions: \"Every mutation (POST, PUT, PATCH) additionally carries Idempotency-Key (UUID v4)\"; Limits: \"missing key gives 422\"."),
    rule!("client/idempotency-key-uuid-v4", Client, Error, Stated,
        "Every Idempotency-Key is a UUID v4.",
        "Limits: \"Idempotency key: UUID v4\"."),
    rule!("client/idempotency-key-fresh", Client, Error, Stated,
        "A new logical attempt (another method, path or body) gets a fresh Idempotency-Key.",
        "Limits: \"Idempotency key: UUID v4, fresh per logical attempt\"; \"same key and different body gives 422 idempotency-conflict\"."),
    rule!("client/idempotency-key-reused-on-retry", Client, Error, Stated,
        "A retry of a call answered 429 (the same method, path and body) carries the same Idempotency-Key.",
        "Limits: \"Idempotency key: ... reused for retries of the same attempt\"."),
    rule!("client/schema-version", Client, Error, Stated,
        "Every mutation carries X-Service-Schema-Version: 1.0.",
        "Versioning 2: \"The payload schema version is 1.0, sent in X-Service-Schema-Version on every mutation. Missing or unsupported gives 400.\""),
    rule!("client/path-casing", Client, Error, Stated,
        "Paths are cased exactly (/api/v1/Orders with a capital O, /api/v1/menu lowercase).",
        "Conventions: \"Casing is exact: /api/v1/Orders with capital O, /api/v1/menu lowercase.\""),
    rule!("client/accept-before-expiry", Client, Error, Stated,
        "Orders are accepted before their expiresAt (no 409 acceptance-timeout).",
        "Orders, rule 5: \"Accept is checked against the expiresAt published in the creation webhook.\""),
    rule!("client/accept-without-remote-order-id", Client, Error, Stated,
        "The accept body is an empty object: remoteOrderId is not sent.",
        "Orders: POST accept, \"Body: empty JSON object; remoteOrderId must not be sent.\""),
    rule!("client/reject-reason-code", Client, Warning, Stated,
        "A reject carries a reasonCode of the contract's set (another is normalized to SYSTEM_ISSUE).",
        "Orders, rules 1-2: the reasonCode values; \"A reasonCode outside that set does not fail: it is normalized to SYSTEM_ISSUE\"."),
    rule!("client/status-write-values", Client, Error, Stated,
        "PUT status is never sent with preparing or cancelled.",
        "States and transitions: \"PUT status preparing after accept returns 409\"; \"PUT status cancelled is not accepted\"."),
    rule!("client/ready-conflict-continues", Client, Error, Stated,
        "After PUT status ready is answered 409 with currentStatus Ready, the POS continues with handed_over instead of retrying ready.",
        "States and transitions: \"a later PUT status ready then returns 409 with meta.currentStatus Ready and allowedTransitions [HandedOver]; this is a state already reached, continue with handed_over\"."),
    rule!("client/no-retry-terminal-conflict", Client, Error, Stated,
        "A call answered 409 with an empty allowedTransitions is not sent again.",
        "Errors: \"Empty allowedTransitions means terminal; do not retry.\""),
    rule!("client/no-retry-unchanged-422", Client, Error, Stated,
        "A call answered 422 is not sent again unchanged.",
        "Errors: 422, \"read meta.errors; do not retry unchanged\"."),
    rule!("client/retry-after-honoured", Client, Error, Stated,
        "After a 429, the same call is not sent again before its Retry-After has passed.",
        "Errors: 429, \"honour Retry-After, back off exponentially with jitter\"."),
    rule!("client/unavailable-retried-same-key", Client, Error, Stated,
        "A call answered 502 or 503 is retried, with the same Idempotency-Key.",
        "Errors: 502, 503, \"retry with the same Idempotency-Key and backoff\"."),
    rule!("client/list-cursor-followed", Client, Error, Stated,
        "List pages are followed through nextCursor: every Cursor sent is one the service returned.",
        "Orders: GET list, \"Cursor (opaque, taken from nextCursor, never built by hand)\"; \"hasMore (boolean, the loop stop condition)\"."),
];

/// The rule of `id`.
pub fn rule(id: &str) -> Option<&'static ProbeRule> {
    RULES.iter().find(|r| r.id == id)
}

/// Where a check stands after a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CheckStatus {
    /// The POS did what the contract asks.
    Passed,
    /// It did not: the evidence shows the exchange.
    Failed,
    /// Nothing to judge: the POS did not act within the wait, or what the check needs did not happen.
    Inconclusive,
    /// Not run (`--only`, `--receiver-only`).
    Skipped,
}

impl CheckStatus {
    /// `passed`, `failed`, `inconclusive` or `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::Inconclusive => "inconclusive",
            Self::Skipped => "skipped",
        }
    }
}

/// What a check rests on, as the report prints it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckBasis {
    /// `stated`, `derived` or `assumed`.
    pub basis: String,
    /// The contract's sentence.
    pub source: String,
}

/// One exchange of the evidence: what was sent and what came back.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Exchange {
    /// `POST`, `PUT`, `GET`, …
    pub method: String,
    /// The URL (a webhook) or the path with its query (a REST call).
    pub url: String,
    /// The request's headers (the signature shortened in a report).
    pub headers: BTreeMap<String, String>,
    /// The request's body.
    pub body: String,
    /// The answer's status; `None` when no answer came.
    pub status: Option<u16>,
    /// The answer's body.
    pub answer: Option<String>,
    /// Milliseconds to the answer (webhooks).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<f64>,
    /// Why no answer came (connection refused, timeout, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// When it was sent or answered, unix seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<f64>,
    /// What this exchange is in the check (e.g. "copy 2 of 3").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl Exchange {
    /// Answered 2xx.
    pub fn ok(&self) -> bool {
        self.status.is_some_and(|s| (200..300).contains(&s))
    }

    /// The non-empty `remoteOrderId` of a 200 answer.
    pub fn remote_order_id(&self) -> Option<String> {
        if self.status != Some(200) {
            return None;
        }
        let v: serde_json::Value = serde_json::from_str(self.answer.as_deref()?).ok()?;
        v.get("remoteOrderId")?.as_str().filter(|s| !s.trim().is_empty()).map(str::to_string)
    }

    /// "HTTP 401", or "no answer (…)".
    pub fn outcome(&self) -> String {
        match (self.status, &self.error) {
            (Some(s), _) => format!("HTTP {s}"),
            (None, Some(e)) => format!("no answer ({e})"),
            (None, None) => "no answer".into(),
        }
    }

    /// A copy fit for a report: bodies cut to 2,000 characters, the signature shortened.
    pub fn evidence(&self) -> Self {
        let mut e = self.clone();
        e.body = cut(&e.body, 2000);
        e.answer = e.answer.as_deref().map(|a| cut(a, 2000));
        for (k, v) in e.headers.iter_mut() {
            if k.eq_ignore_ascii_case("x-service-signature-256") && v.chars().count() > 19 {
                *v = format!("{}…", v.chars().take(19).collect::<String>());
            }
            if k.eq_ignore_ascii_case("x-service-api-key") && v.chars().count() > 8 {
                *v = format!("{}…", v.chars().take(8).collect::<String>());
            }
        }
        e
    }
}

fn cut(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… ({} bytes in all)", &s[..i], s.len()),
        None => s.to_string(),
    }
}

/// One check of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// The rule id.
    pub id: String,
    /// `error` or `warning`.
    pub severity: String,
    /// Where it stands.
    pub status: CheckStatus,
    /// What happened, in a sentence or two.
    pub message: String,
    /// What it rests on.
    pub basis: CheckBasis,
    /// The exchanges behind the verdict (request and answer).
    pub evidence: Vec<Exchange>,
}

impl Check {
    /// A check of `rule` with `status` and `message`, and the evidence shortened for a report.
    pub fn new(rule: &ProbeRule, status: CheckStatus, message: impl Into<String>, evidence: &[&Exchange]) -> Self {
        Self {
            id: rule.id.to_string(),
            severity: rule.severity.as_str().to_string(),
            status,
            message: message.into(),
            basis: CheckBasis { basis: rule.basis.as_str().to_string(), source: rule.source.to_string() },
            evidence: evidence.iter().map(|e| e.evidence()).collect(),
        }
    }

    /// The check of `id` (a rule id of [`RULES`]); `None` for an unknown id.
    pub fn of(id: &str, status: CheckStatus, message: impl Into<String>, evidence: &[&Exchange]) -> Option<Self> {
        rule(id).map(|r| Self::new(r, status, message, evidence))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_ids_are_unique_kebab_case_and_sided() {
        let mut seen = std::collections::HashSet::new();
        for r in RULES {
            assert!(seen.insert(r.id), "{} twice", r.id);
            let (side, name) = r.id.split_once('/').unwrap();
            assert_eq!(side, if r.side == Side::Receiver { "receiver" } else { "client" }, "{}", r.id);
            assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'), "{}", r.id);
            assert!(r.doc.ends_with('.'), "{}", r.id);
            // An assumed outcome is at most a warning (basis.rs).
            assert!(!(r.basis == Basis::Assumed && r.severity == Severity::Error), "{}", r.id);
        }
    }

    #[test]
    fn evidence_shortens_the_signature_and_long_bodies() {
        let mut e = Exchange { body: "x".repeat(5000), ..Exchange::default() };
        e.headers.insert("X-Service-Signature-256".into(), format!("sha256={}", "a".repeat(64)));
        let ev = e.evidence();
        assert_eq!(ev.headers["X-Service-Signature-256"], "sha256=aaaaaaaaaaaa…");
        assert!(ev.body.len() < 2100 && ev.body.ends_with("(5000 bytes in all)"));
    }
}
