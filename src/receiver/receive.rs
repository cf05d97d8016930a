//! The decisions on a delivery to a matched route: verified, deduplicable, handled, ignored or
//! refused, and the answer when it is not handed to a handler.

use super::route::{route, RouteRef};
use super::{Answer, Basis, Route, RouteId, Routing};
use crate::diagnostic::Report;
use crate::http::{HeaderValue, Headers};
use crate::payload::{validate_webhook_payload, PayloadOptions};
use crate::signature::{self, Verified, WebhookError, HEADER_DELIVERY_ID};
use serde::Serialize;

/// What to do with a request on a matched route, once its bytes are read.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum Receipt {
    /// Not verified (or not usable): answer at once; nothing reaches a handler or the store.
    Reject {
        /// The answer (401 with the verification error's code, 400, 413…).
        answer: Answer,
    },
    /// Verified and valid: deduplicate on the delivery id, call the route's handler with the
    /// payload, then answer with [`answer_after`](super::answer_after).
    Handle {
        /// The verified delivery (timestamp, delivery id, secret index).
        delivery: Verified,
        /// The payload's report (no error).
        report: Report,
    },
    /// Verified, answered 200 without the handler: an unknown `event`, or a payload that breaks
    /// the contract on a route that is always answered 200. Deduplicated; reported to `onInvalid`.
    Ignore {
        /// The 200 to send.
        answer: Answer,
        /// The verified delivery.
        delivery: Verified,
        /// The payload's report.
        report: Report,
        /// Why the handler is not called.
        reason: &'static str,
    },
    /// Verified, but a creation payload the POS cannot turn into an order: not answered 200
    /// (there is no remoteOrderId to give). Reported to `onInvalid`; nothing is stored.
    Refuse {
        /// The non-200 answer.
        answer: Answer,
        /// The verified delivery.
        delivery: Verified,
        /// The payload's report (with its errors).
        report: Report,
        /// Why it is refused.
        reason: &'static str,
    },
}

/// Verifies the delivery (Authentication 3–5), then validates its payload against the route's
/// kind, and says what to do. `now` is the receiver's clock in unix seconds.
pub fn receive<S: AsRef<[u8]>>(route: &Route, body: &[u8], headers: &Headers, secrets: &[S], now: u64, tolerance_seconds: u64) -> Receipt {
    receive_verified(route, body, headers, signature::verify(body, headers, secrets, now, tolerance_seconds))
}

/// [`receive`] where the caller computed the MACs with a native HMAC-SHA256 (Node's node:crypto):
/// `macs` holds one per secret, in order, over the signed prefix that
/// [`signature::verify_headers`] gives for these headers; `secret_lengths` are the secrets' byte
/// lengths. The header checks and the constant-time comparison are the same as in [`receive`].
pub fn receive_with_macs(
    route: &Route,
    body: &[u8],
    headers: &Headers,
    secret_lengths: &[usize],
    macs: &[[u8; 32]],
    now: u64,
    tolerance_seconds: u64,
) -> Receipt {
    let verified = signature::verify_headers(headers, secret_lengths.iter().copied(), now, tolerance_seconds).and_then(|checked| {
        if macs.len() == secret_lengths.len() {
            checked.match_macs(macs.iter().copied())
        } else {
            Err(WebhookError::SignatureMismatch)
        }
    });
    receive_verified(route, body, headers, verified)
}

fn receive_verified(route: &Route, body: &[u8], headers: &Headers, verified: Result<Verified, WebhookError>) -> Receipt {
    let delivery = match verified {
        Ok(v) => v,
        Err(e) => {
            let answer = Answer::refuse(
                e.http_status(),
                e.code(),
                &e.to_string(),
                Basis::Stated,
                "Authentication 5: reject a failed verification (sample receivers answer 401)",
            );
            return Receipt::Reject { answer };
        }
    };
    if let HeaderValue::Conflicting = headers.lookup(HEADER_DELIVERY_ID) {
        let answer = Answer::refuse(
            400,
            "DELIVERY_ID_CONFLICTING",
            "X-Service-Delivery-Id was sent several times with different values: the delivery cannot be deduplicated, so it is not processed",
            Basis::Assumed,
            "Events 1: the receiver deduplicates on X-Service-Delivery-Id; a request with two ids is not shown",
        );
        return Receipt::Reject { answer };
    }
    // An empty id is no id: never deduplicated against another delivery.
    let delivery = Verified { delivery_id: delivery.delivery_id.filter(|id| !id.trim().is_empty()), ..delivery };
    let options = PayloadOptions { kind: Some(route.id.payload_kind()), path: Some(route.path.clone()), ..PayloadOptions::default() };
    let report = validate_webhook_payload(body, &options);
    let unknown_event = report.diagnostics.iter().any(|d| d.rule_id == "order-update/unknown-event");
    // Verified, answered 200 without the handler: the body says which (`"ignored": "unknown event"`).
    let ignore = |reason: &'static str, basis, source, delivery, report| Receipt::Ignore {
        answer: Answer::ok(format!(r#"{{"received":true,"ignored":"{}"}}"#, reason.replace('-', " ")), basis, source),
        delivery,
        report,
        reason,
    };
    match route.id {
        RouteId::OrderUpdate if unknown_event => ignore(
            "unknown-event",
            Basis::Stated,
            "Endpoints the POS exposes / Webhook payloads: unknown event values are ignored with a 200",
            delivery,
            report,
        ),
        RouteId::OrderUpdate if !report.ok => ignore(
            "invalid-payload",
            Basis::Stated,
            "Endpoints the POS exposes: the update webhook is always answered 200",
            delivery,
            report,
        ),
        RouteId::MenuChangeCompleted if !report.ok => ignore(
            "invalid-payload",
            Basis::Assumed,
            "Endpoints the POS exposes: the menu change answer is not shown; the same bytes would break the contract on every retry",
            delivery,
            report,
        ),
        RouteId::OrderCreated if !report.ok => Receipt::Refuse {
            answer: Answer::refuse(
                422,
                "INVALID_PAYLOAD",
                &format!(
                    "the order creation payload breaks the contract ({} error{}): no order was created",
                    report.error_count,
                    if report.error_count == 1 { "" } else { "s" }
                ),
                Basis::Derived,
                "Endpoints the POS exposes: without a valid remoteOrderId the delivery counts as failed and is retried",
            ),
            delivery,
            report,
            reason: "invalid-payload",
        },
        _ => Receipt::Handle { delivery, report },
    }
}

/// Whether a verified delivery on `route` comes to [`Receipt::Handle`] with a clean report (no
/// diagnostic at all), checked without building the report: what [`receive`] decides, for the
/// common delivery. `false` says nothing more: [`receive`] then says what it is.
pub fn payload_clean(route: &Route, body: &[u8]) -> bool {
    payload_clean_ref(&route.borrowed(), body)
}

/// [`payload_clean`] of a borrowed route.
pub(crate) fn payload_clean_ref(route: &RouteRef<'_>, body: &[u8]) -> bool {
    // A clean outcome is ok, with no `order-update/unknown-event`: [`receive_verified`]'s Handle.
    matches!(crate::payload::webhook_delivery_outcome(body, route.path, &route.info), crate::payload::Outcome::Clean(_))
}

/// Whether [`answer_after`](super::answer_after) answers `Returned(Some(id))` on the creation route with
/// [`CREATED_PREFIX`], `id` as is, then [`CREATED_SUFFIX`] (a 200, code `OK`, no extra header):
/// true for a non-empty id of printable ASCII without space, `"` or `\` (nothing to trim, nothing
/// to escape in JSON). A caller may then build that answer without asking for it.
pub fn created_id_verbatim(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\')
}

/// The body of the creation route's 200 before the id (see [`created_id_verbatim`]).
pub const CREATED_PREFIX: &str = r#"{"remoteOrderId":""#;
/// The body of the creation route's 200 after the id.
pub const CREATED_SUFFIX: &str = r#""}"#;

/// What one request comes to: the routing answer when it names no route (or not with its
/// method), else the [`Receipt`] of [`receive`].
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(untagged)]
pub enum Received {
    /// No route matched (404) or not with this method (405).
    Unrouted(Routing),
    /// A route matched: what to do with the request.
    Routed(Receipt),
}

/// [`route`] then [`receive`], in one step (what the JS kit calls once the body is read).
#[allow(clippy::too_many_arguments)]
pub fn receive_request<S: AsRef<[u8]>>(
    method: &str,
    target: &str,
    base_path: &str,
    body: &[u8],
    headers: &Headers,
    secrets: &[S],
    now: u64,
    tolerance_seconds: u64,
) -> Received {
    routed(method, target, base_path, |route| receive(route, body, headers, secrets, now, tolerance_seconds))
}

/// Routes the request; a matched route gets `receive`'s receipt.
fn routed(method: &str, target: &str, base_path: &str, receive: impl FnOnce(&Route) -> Receipt) -> Received {
    match route(method, target, base_path) {
        Routing::Matched { route } => Received::Routed(receive(&route)),
        other => Received::Unrouted(other),
    }
}

/// [`receive_request`] with MACs computed by the caller (see [`receive_with_macs`]).
#[allow(clippy::too_many_arguments)]
pub fn receive_request_with_macs(
    method: &str,
    target: &str,
    base_path: &str,
    body: &[u8],
    headers: &Headers,
    secret_lengths: &[usize],
    macs: &[[u8; 32]],
    now: u64,
    tolerance_seconds: u64,
) -> Received {
    routed(method, target, base_path, |route| receive_with_macs(route, body, headers, secret_lengths, macs, now, tolerance_seconds))
}
