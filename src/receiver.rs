//! The webhook receiver's decisions: which route a request names, and what the POS answers
//! (spec, "Endpoints the POS exposes", "Authentication" 3–5, "Events" rules 1–7, "Webhook payloads").
//!
//! Pure, like the rest of the core: the caller (the JS kit in `pkg/src/receiver.js`) reads the
//! request, keeps the deduplication store, calls the POS's handlers and writes the answer; every
//! contract decision is taken here, so the node:http, Express, Fastify and Fetch adapters cannot
//! disagree. Every [`Answer`] says what it rests on ([`Basis`]).
//!
//! ```
//! use poscheck::receiver::{route, receive, answer_after, Routing, Receipt, Outcome, RouteId};
//! use poscheck::signature::{sign, Headers};
//!
//! let Routing::Matched { route: r } = route("POST", "/v1/order/STORE-1", "") else { panic!() };
//! assert_eq!(r.id, RouteId::OrderCreated);
//! assert_eq!(r.remote_id.as_deref(), Some("STORE-1"));
//!
//! let body = br#"{"not": "signed"}"#;
//! let headers = Headers::from_pairs([("X-Service-Timestamp", "1786492800"), ("X-Service-Signature-256", "sha256=00")]);
//! let Receipt::Reject { answer } = receive(&r, body, &headers, &["secret"], 1_786_492_800, 300) else { panic!() };
//! assert_eq!(answer.status, 401);
//! assert_eq!(answer.code, "MALFORMED_SIGNATURE");
//!
//! let ok = answer_after(r.id, &Outcome::Returned(Some("POS-42".into())));
//! assert_eq!((ok.status, ok.body.as_str()), (200, r#"{"remoteOrderId":"POS-42"}"#));
//! let _ = sign; // see the tests below for a signed delivery
//! ```

use crate::diagnostic::Report;
use crate::http::{HeaderValue, Headers};
use crate::payload::{validate_webhook_payload, PayloadKind, PayloadOptions};
use crate::signature::{self, Verified, WebhookError, HEADER_DELIVERY_ID};
use serde::Serialize;
use std::borrow::Cow;

pub use crate::basis::Basis;

/// The three routes the service calls on the POS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum RouteId {
    /// `POST /v1/order/{remoteId}` (X-Service-Event-Type `order.created`).
    OrderCreated,
    /// `PUT /v1/order/{remoteId}/{remoteOrderId}/events`.
    OrderUpdate,
    /// `POST /v1/menu/change/{changeKey}`.
    MenuChangeCompleted,
}

impl RouteId {
    /// The three routes.
    pub const ALL: &'static [RouteId] = &[Self::OrderCreated, Self::OrderUpdate, Self::MenuChangeCompleted];

    /// The camelCase id used by the JS kit (`orderCreated`, `orderUpdate`, `menuChangeCompleted`).
    pub fn id(self) -> &'static str {
        match self {
            Self::OrderCreated => "orderCreated",
            Self::OrderUpdate => "orderUpdate",
            Self::MenuChangeCompleted => "menuChangeCompleted",
        }
    }

    /// The route whose [`id`](Self::id) is `id`.
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|r| r.id() == id)
    }

    /// The one method the route takes.
    pub fn method(self) -> &'static str {
        match self {
            Self::OrderCreated | Self::MenuChangeCompleted => "POST",
            Self::OrderUpdate => "PUT",
        }
    }

    /// The payload the route carries.
    pub fn payload_kind(self) -> PayloadKind {
        match self {
            Self::OrderCreated => PayloadKind::OrderCreated,
            Self::OrderUpdate => PayloadKind::OrderUpdateEvent,
            Self::MenuChangeCompleted => PayloadKind::MenuChangeCompleted,
        }
    }

    /// The route template, for messages and docs.
    pub fn template(self) -> &'static str {
        match self {
            Self::OrderCreated => "POST /v1/order/{remoteId}",
            Self::OrderUpdate => "PUT /v1/order/{remoteId}/{remoteOrderId}/events",
            Self::MenuChangeCompleted => "POST /v1/menu/change/{changeKey}",
        }
    }
}

/// A request that names one of the three routes, with its path parameters (percent-decoded).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Route {
    /// Which route.
    pub id: RouteId,
    /// The payload kind checked on this route (`orderCreated`, `orderUpdateEvent`, `menuChangeCompleted`).
    pub payload_kind: &'static str,
    /// The merchant's store code (the two order routes).
    pub remote_id: Option<String>,
    /// The POS order id the POS returned earlier (update route): authoritative over the body's.
    pub remote_order_id: Option<String>,
    /// The menu change key (menu change route).
    pub change_key: Option<String>,
    /// The path below the base path, without the query: what the payload checks compare with.
    pub path: String,
}

/// What a method and path name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(tag = "action", rename_all = "camelCase")]
pub enum Routing {
    /// One of the three routes, with its method.
    Matched {
        /// The route and its path parameters.
        route: Route,
    },
    /// One of the routes, with another method: answer 405 with `Allow`.
    MethodNotAllowed {
        /// 405, with `Allow`.
        answer: Answer,
    },
    /// None of the routes: answer 404 (or let the framework's other routes try).
    NotFound {
        /// 404.
        answer: Answer,
    },
}

/// The HTTP answer the POS gives. `body` is JSON text, written as is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct Answer {
    /// HTTP status.
    pub status: u16,
    /// Stable code: `OK`, `IGNORED`, or why it is not a 200 (`SIGNATURE_MISMATCH`, `STORE_UNAVAILABLE`, …).
    pub code: &'static str,
    /// JSON: `{ "remoteOrderId": … }` for a created order, the suggested MerchantErrorResponse
    /// `{ "error", "message" }` for a refusal, `{ "received": true }` otherwise.
    pub body: String,
    /// Extra response headers (`Allow` on a 405). Content-Type is always application/json.
    pub headers: Vec<[&'static str; 2]>,
    /// Whether the service is meant to deliver again (any answer but a 200 counts as failed).
    pub retry: bool,
    /// What the answer rests on.
    pub basis: Basis,
    /// The sentence or section of the spec the answer rests on, or why it is assumed.
    pub rests_on: &'static str,
}

impl Answer {
    fn ok(body: String, basis: Basis, rests_on: &'static str) -> Self {
        Self { status: 200, code: "OK", body, headers: Vec::new(), retry: false, basis, rests_on }
    }

    fn refuse(status: u16, code: &'static str, message: &str, basis: Basis, rests_on: &'static str) -> Self {
        let body = serde_json::json!({ "error": code, "message": message }).to_string();
        Self { status, code, body, headers: Vec::new(), retry: true, basis, rests_on }
    }
}

const RECEIVED: &str = r#"{"received":true}"#;

/// Splits the target into path and segments below `base_path`; `None` when outside it.
fn relative_path<'p>(target: &'p str, base_path: &str) -> Option<&'p str> {
    let path = target.split(['?', '#']).next().unwrap_or("");
    let base = base_path.trim_end_matches('/');
    let rest = path.strip_prefix(base)?;
    if rest.is_empty() || rest.starts_with('/') {
        Some(rest)
    } else {
        None
    }
}

/// The 404 of a path that names none of the routes (out of line: the common request never builds it).
#[cold]
#[inline(never)]
fn not_found() -> Routing {
    Routing::NotFound {
        answer: Answer::refuse(
            404,
            "NOT_FOUND",
            "not a webhook route: the service calls POST /v1/order/{remoteId}, PUT /v1/order/{remoteId}/{remoteOrderId}/events and POST /v1/menu/change/{changeKey}",
            Basis::Assumed,
            "Endpoints the POS exposes lists three routes; answers to other paths are not shown",
        ),
    }
}

/// The 404 of the former `/status` route.
#[cold]
#[inline(never)]
fn former_status_route() -> Routing {
    Routing::NotFound {
        answer: Answer::refuse(
            404,
            "NOT_FOUND",
            "the former /status route: update webhooks go to PUT /v1/order/{remoteId}/{remoteOrderId}/events since 2026-08-12",
            Basis::Stated,
            "Events 5: the former /status route and status field are no longer emitted",
        ),
    }
}

/// The 405 of a route asked with another method.
#[cold]
#[inline(never)]
fn method_not_allowed(id: RouteId) -> Routing {
    let mut a = Answer::refuse(
        405,
        "METHOD_NOT_ALLOWED",
        &format!("{} takes {} only", id.template(), id.method()),
        Basis::Stated,
        "Endpoints the POS exposes: each route has one method",
    );
    a.headers.push(["Allow", id.method()]);
    Routing::MethodNotAllowed { answer: a }
}

/// Which route `method` and `path` name. `path` is the request target as received (query allowed,
/// percent-encoded); `base_path` is the path part of `{pos_base_url}` (empty when the routes sit at
/// the root). Segments must match exactly; one trailing slash is tolerated.
pub fn route(method: &str, path: &str, base_path: &str) -> Routing {
    match route_ref(method, path, base_path) {
        Ok(route) => Routing::Matched { route: route.to_route() },
        Err(routing) => routing,
    }
}

/// A matched [`Route`] borrowing from the request target: its parameters are copied only when
/// percent-decoding changes them (the receiver's common delivery allocates nothing).
pub(crate) struct RouteRef<'t> {
    pub id: RouteId,
    /// The parameters, as the payload checks read them: what `route_of` says of
    /// [`path`](Self::path), which is the same for every path [`route_ref`] matches.
    pub info: crate::payload::RouteInfo<'t>,
    /// The path below the base path, without the query.
    pub path: &'t str,
}

impl<'t> RouteRef<'t> {
    fn new(id: RouteId, params: [Option<Cow<'t, str>>; 3], path: &'t str) -> Self {
        let [remote_id, remote_order_id, change_key] = params;
        let info =
            crate::payload::RouteInfo { kind: Some(id.payload_kind()), remote_id, remote_order_id, change_key, old_status_route: false };
        RouteRef { id, info, path }
    }

    fn to_route(&self) -> Route {
        let own = |p: &Option<Cow<'_, str>>| p.as_deref().map(str::to_owned);
        Route {
            id: self.id,
            payload_kind: self.id.payload_kind().id(),
            remote_id: own(&self.info.remote_id),
            remote_order_id: own(&self.info.remote_order_id),
            change_key: own(&self.info.change_key),
            path: self.path.to_owned(),
        }
    }
}

impl Route {
    fn borrowed(&self) -> RouteRef<'_> {
        fn lend(p: &Option<String>) -> Option<Cow<'_, str>> {
            p.as_deref().map(Cow::Borrowed)
        }
        RouteRef::new(self.id, [lend(&self.remote_id), lend(&self.remote_order_id), lend(&self.change_key)], &self.path)
    }
}

/// [`route`] without copies: the matched route, or the routing answer (404, 405).
pub(crate) fn route_ref<'t>(method: &str, path: &'t str, base_path: &str) -> Result<RouteRef<'t>, Routing> {
    let Some(rel) = relative_path(path, base_path) else { return Err(not_found()) };
    let trimmed = rel.strip_prefix('/').unwrap_or(rel);
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    // The routes have at most five segments: more is no route (no Vec per request).
    let mut seen = [""; 6];
    let mut count = 0;
    if !trimmed.is_empty() {
        for segment in trimmed.split('/') {
            if count == seen.len() {
                return Err(not_found());
            }
            seen[count] = segment;
            count += 1;
        }
    }
    let raw = &seen[..count];
    let param = |s: &'t str| {
        (!s.is_empty()).then(|| if s.contains('%') { Cow::Owned(crate::payload::percent_decode(s, false)) } else { Cow::Borrowed(s) })
    };
    let (id, remote_id, remote_order_id, change_key) = match raw {
        ["v1", "order", rid] => match param(rid) {
            Some(r) => (RouteId::OrderCreated, Some(r), None, None),
            None => return Err(not_found()),
        },
        ["v1", "order", rid, roid, "events"] => match (param(rid), param(roid)) {
            (Some(r), Some(o)) => (RouteId::OrderUpdate, Some(r), Some(o), None),
            _ => return Err(not_found()),
        },
        ["v1", "menu", "change", key] => match param(key) {
            Some(k) => (RouteId::MenuChangeCompleted, None, None, Some(k)),
            None => return Err(not_found()),
        },
        ["v1", "order", _, _, "status"] => return Err(former_status_route()),
        _ => return Err(not_found()),
    };
    if method != id.method() {
        return Err(method_not_allowed(id));
    }
    Ok(RouteRef::new(id, [remote_id, remote_order_id, change_key], rel))
}

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
    /// payload, then answer with [`answer_after`].
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

/// The byte spans in `target` of `route`'s path parameters (remoteId, remoteOrderId, changeKey;
/// `(0, 0)` for one the route does not have), when each is its segment exactly as sent (nothing
/// percent-decoded): a caller holding `target` then takes them from it without a string crossing.
/// `None` when a parameter differs from its raw segment (the caller reads the decoded [`Route`]).
pub fn param_spans(route: &Route, target: &str, base_path: &str) -> Option<[(u32, u32); 3]> {
    param_spans_ref(&route.borrowed(), target, base_path)
}

/// [`param_spans`] of a borrowed route.
pub(crate) fn param_spans_ref(route: &RouteRef<'_>, target: &str, base_path: &str) -> Option<[(u32, u32); 3]> {
    let start = base_path.trim_end_matches('/').len();
    if !target.get(start..)?.starts_with(route.path) {
        return None;
    }
    let inner = route.path.strip_prefix('/').unwrap_or(route.path);
    let mut at = start + (route.path.len() - inner.len());
    let mut segments = [(0usize, 0usize); 5];
    for (i, segment) in inner.split('/').enumerate() {
        if let Some(slot) = segments.get_mut(i) {
            *slot = (at, at + segment.len());
        }
        at += segment.len() + 1;
    }
    let pick = |i: usize, decoded: &Option<Cow<'_, str>>| -> Option<(u32, u32)> {
        let (a, b) = segments[i];
        (target.get(a..b)? == decoded.as_deref()?).then_some((a as u32, b as u32))
    };
    let none = (0, 0);
    Some(match route.id {
        RouteId::OrderCreated => [pick(2, &route.info.remote_id)?, none, none],
        RouteId::OrderUpdate => [pick(2, &route.info.remote_id)?, pick(3, &route.info.remote_order_id)?, none],
        RouteId::MenuChangeCompleted => [none, none, pick(3, &route.info.change_key)?],
    })
}

/// Whether [`answer_after`] answers `Returned(Some(id))` on the creation route with
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

/// How the handler (or the kit around it) ended, for [`answer_after`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The handler returned; for the creation route, the string it returned (if it was one).
    Returned(Option<String>),
    /// The handler threw or rejected.
    Threw,
    /// The handler did not settle within the time limit.
    TimedOut,
    /// The route has no handler.
    NoHandler,
    /// The deduplication store could not be reached: nothing was processed.
    StoreUnavailable,
    /// Another attempt of the same delivery is being handled and did not finish in time.
    InProgress,
    /// The body is larger than the receiver's limit.
    TooLarge,
    /// The raw body was consumed by another body parser before the receiver could read it.
    BodyUnavailable,
}

impl Outcome {
    /// The id the JS kit passes (`returned`, `threw`, `timeout`, `no-handler`, `store-unavailable`,
    /// `in-progress`, `too-large`, `body-unavailable`).
    pub fn from_id(id: &str, value: Option<String>) -> Option<Self> {
        Some(match id {
            "returned" => Self::Returned(value),
            "threw" => Self::Threw,
            "timeout" => Self::TimedOut,
            "no-handler" => Self::NoHandler,
            "store-unavailable" => Self::StoreUnavailable,
            "in-progress" => Self::InProgress,
            "too-large" => Self::TooLarge,
            "body-unavailable" => Self::BodyUnavailable,
            _ => return None,
        })
    }

    /// Every outcome id [`from_id`](Self::from_id) accepts.
    pub const IDS: &'static [&'static str] =
        &["returned", "threw", "timeout", "no-handler", "store-unavailable", "in-progress", "too-large", "body-unavailable"];
}

const CREATION_FAILED: &str = "Endpoints the POS exposes: HTTP 200 with a non-empty remoteOrderId within 30 seconds; without one the delivery counts as failed and is retried";

/// The answer once the handler has run (or could not be run) on `route`.
pub fn answer_after(route: RouteId, outcome: &Outcome) -> Answer {
    // A handler that failed or ran late is answered so that the service retries: derived for the
    // creation webhook (its answer is the order id), assumed for the others.
    let retry_basis = if route == RouteId::OrderCreated { Basis::Derived } else { Basis::Assumed };
    match (route, outcome) {
        (RouteId::OrderCreated, Outcome::Returned(Some(id))) if !id.trim().is_empty() => Answer::ok(
            serde_json::json!({ "remoteOrderId": id }).to_string(),
            Basis::Stated,
            "Endpoints the POS exposes: HTTP 200 with JSON { remoteOrderId: string }, non-null and non-empty",
        ),
        (RouteId::OrderCreated, Outcome::Returned(_)) => Answer::refuse(
            500,
            "NO_REMOTE_ORDER_ID",
            "the order handler did not return the POS order id (a non-empty string): the delivery counts as failed and will be retried",
            Basis::Derived,
            CREATION_FAILED,
        ),
        (RouteId::OrderUpdate, Outcome::Returned(_)) => {
            Answer::ok(RECEIVED.into(), Basis::Stated, "Endpoints the POS exposes: the update webhook is answered 200")
        }
        (RouteId::MenuChangeCompleted, Outcome::Returned(_)) => Answer::ok(
            RECEIVED.into(),
            Basis::Assumed,
            "Endpoints the POS exposes: the menu change answer is not shown; 200 acknowledges it",
        ),
        (RouteId::OrderCreated, Outcome::NoHandler) => Answer::refuse(
            501,
            "NO_HANDLER",
            "this receiver has no onOrderCreated handler: the order cannot be created; the delivery counts as failed and will be retried",
            Basis::Derived,
            CREATION_FAILED,
        ),
        (_, Outcome::NoHandler) => Answer::ok(
            r#"{"received":true,"ignored":"no handler"}"#.into(),
            Basis::Assumed,
            "the POS registered no handler for this webhook: it is acknowledged so that the service does not retry it",
        ),
        (_, Outcome::Threw) => Answer::refuse(
            500,
            "HANDLER_FAILED",
            "the POS handler failed: the delivery is not acknowledged, so that the service delivers it again",
            retry_basis,
            "Events 1: delivery is at-least-once; a failed handler answers no 200 so that the delivery is retried (the statuses that trigger a retry are not shown, Events 6)",
        ),
        (_, Outcome::TimedOut) => Answer::refuse(
            503,
            "HANDLER_TIMEOUT",
            "the POS handler did not finish in time: the delivery is not acknowledged; a retry gets the handler's answer once it finishes",
            retry_basis,
            "Limits: the service waits 30 seconds for the creation answer; a slower answer counts as a failure",
        ),
        (_, Outcome::StoreUnavailable) => Answer::refuse(
            503,
            "STORE_UNAVAILABLE",
            "the deduplication store cannot be reached: the delivery was not processed (never without deduplication); the service will deliver it again",
            Basis::Derived,
            "Events 1: the receiver deduplicates on X-Service-Delivery-Id; processing without the store could handle a delivery twice",
        ),
        (_, Outcome::InProgress) => Answer::refuse(
            409,
            "DELIVERY_IN_PROGRESS",
            "another attempt of this delivery is being handled: this attempt is not processed; a later retry gets its answer",
            Basis::Derived,
            "Events 1: every attempt of one delivery carries the same X-Service-Delivery-Id; the receiver handles it once",
        ),
        (_, Outcome::TooLarge) => Answer::refuse(
            413,
            "PAYLOAD_TOO_LARGE",
            "the body is larger than this receiver's limit (option maxBodyBytes)",
            Basis::Assumed,
            "the spec shows no body size limit for webhooks; the receiver bounds what it reads",
        ),
        (_, Outcome::BodyUnavailable) => Answer::refuse(
            500,
            "BODY_UNAVAILABLE",
            "the raw request body was already consumed by a body parser (e.g. express.json()) before the receiver: the signature covers the exact bytes, so mount the receiver before any body parser",
            Basis::Stated,
            "Authentication 5: capture the raw body before any JSON parsing and never sign a re-serialized body",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::signature::sign;

    const SECRET: &str = "whsec_receiver_test";
    const NOW: u64 = 1_786_492_800;
    const ID: &str = "6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10";

    fn matched(method: &str, path: &str) -> Route {
        match route(method, path, "") {
            Routing::Matched { route } => route,
            other => panic!("{method} {path}: {other:?}"),
        }
    }

    /// HMAC-SHA256 of `prefix` + `body`, as a platform's native HMAC computes it.
    fn mac(secret: &str, prefix: &str, body: &[u8]) -> [u8; 32] {
        use hmac::{Hmac, Mac};
        let mut m = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
        m.update(prefix.as_bytes());
        m.update(body);
        m.finalize().into_bytes().into()
    }

    #[test]
    fn verified_deliveries_without_the_handler_are_answered_200_with_why() {
        let cases = [
            (
                "PUT",
                "/v1/order/S/R-1/events",
                r#"{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"teleported","occurredAt":"2026-08-12T00:00:00Z"}"#,
                "unknown-event",
                "unknown event",
                Basis::Stated,
            ),
            ("PUT", "/v1/order/S/R-1/events", r#"{"orderKey":1}"#, "invalid-payload", "invalid payload", Basis::Stated),
            ("POST", "/v1/menu/change/chg_0123456789abcdEF", r#"{"changeKey":1}"#, "invalid-payload", "invalid payload", Basis::Assumed),
        ];
        for (method, path, body, why, ignored, basis) in cases {
            let receipt = receive(&matched(method, path), body.as_bytes(), &signed(body.as_bytes(), &[]), &[SECRET], NOW, 300);
            let Receipt::Ignore { answer, reason, .. } = receipt else { panic!("{path} {body}: {receipt:?}") };
            assert_eq!(reason, why);
            assert_eq!((answer.status, answer.retry, answer.basis), (200, false, basis), "{body}");
            let said: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
            assert_eq!(said, serde_json::json!({ "received": true, "ignored": ignored }));
        }
    }

    #[test]
    fn macs_from_the_caller_give_the_same_receipts() {
        let body = br#"{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}"#;
        let route = matched("PUT", "/v1/order/S/R-1/events");
        let prefix = format!("{NOW}.");
        let good = mac(SECRET, &prefix, body);
        let other = mac("another", &prefix, body);
        let cases = vec![
            (signed(body, &[("X-Service-Delivery-Id", ID)]), vec![SECRET], vec![good]),
            (signed(body, &[]), vec!["another", SECRET], vec![other, good]),
            (signed(body, &[]), vec!["another"], vec![other]),
            (signed(b"tampered", &[]), vec![SECRET], vec![good]),
            (Headers::from_pairs([("X-Service-Timestamp", NOW.to_string())]), vec![SECRET], vec![good]),
        ];
        for (headers, secrets, macs) in cases {
            let lengths: Vec<usize> = secrets.iter().map(|s| s.len()).collect();
            let expected = serde_json::to_value(receive(&route, body, &headers, &secrets, NOW, 300)).unwrap();
            let got = serde_json::to_value(receive_with_macs(&route, body, &headers, &lengths, &macs, NOW, 300)).unwrap();
            assert_eq!(got, expected, "{headers:?}");
        }
        // One MAC short of the secrets: refused, never a match.
        let r = receive_with_macs(&route, body, &signed(body, &[]), &[SECRET.len(), 3], &[good], NOW, 300);
        assert!(matches!(r, Receipt::Reject { .. }), "{r:?}");
    }

    fn signed(body: &[u8], extra: &[(&str, &str)]) -> Headers {
        let mut h = Headers::from_pairs([
            ("X-Service-Timestamp".to_string(), NOW.to_string()),
            ("X-Service-Signature-256".to_string(), sign(SECRET.as_bytes(), NOW, body).unwrap()),
        ]);
        for (n, v) in extra {
            h.push(*n, *v);
        }
        h
    }

    fn update(event: &str, remote_order_id: &str) -> Vec<u8> {
        format!(
            r#"{{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"{remote_order_id}","event":"{event}","occurredAt":"2026-08-12T00:00:00Z"}}"#
        )
        .into_bytes()
    }

    #[test]
    fn routes_and_parameters() {
        let r = matched("POST", "/v1/order/STORE-1");
        assert_eq!((r.id, r.remote_id.as_deref(), r.payload_kind), (RouteId::OrderCreated, Some("STORE-1"), "orderCreated"));
        let r = matched("PUT", "/v1/order/STORE%201/R-1/events?x=1");
        assert_eq!(r.id, RouteId::OrderUpdate);
        assert_eq!(r.remote_id.as_deref(), Some("STORE 1"));
        assert_eq!(r.remote_order_id.as_deref(), Some("R-1"));
        assert_eq!(r.path, "/v1/order/STORE%201/R-1/events");
        let r = matched("POST", "/v1/menu/change/chg_0123456789abcdEF/");
        assert_eq!((r.id, r.change_key.as_deref()), (RouteId::MenuChangeCompleted, Some("chg_0123456789abcdEF")));
        // An encoded slash stays inside its parameter.
        assert_eq!(matched("POST", "/v1/order/a%2Fb").remote_id.as_deref(), Some("a/b"));
    }

    #[test]
    fn base_path() {
        let Routing::Matched { route: r } = route("POST", "/pos/hooks/v1/order/S1", "/pos/hooks/") else { panic!() };
        assert_eq!(r.path, "/v1/order/S1");
        assert!(matches!(route("POST", "/v1/order/S1", "/pos"), Routing::NotFound { .. }));
        assert!(matches!(route("POST", "/posx/v1/order/S1", "/pos"), Routing::NotFound { .. }));
    }

    #[test]
    fn unknown_paths_and_methods_decided_here() {
        for p in [
            "/",
            "",
            "/v1/order",
            "/v1/order/",
            "/v1/order//R-1/events",
            "/v1/order/S1/R-1",
            "/v1/order/S1/R-1/status",
            "/v1/menu/change",
            "/x/v1/order/S1",
            "/V1/order/S1",
        ] {
            match route("POST", p, "") {
                Routing::NotFound { answer: a } => assert_eq!((a.status, a.code), (404, "NOT_FOUND"), "{p}"),
                other => panic!("{p}: {other:?}"),
            }
        }
        match route("PUT", "/v1/order/S1/R-1/status", "") {
            Routing::NotFound { answer } => {
                assert_eq!(answer.basis, Basis::Stated);
                assert!(answer.body.contains("/events since 2026-08-12"));
            }
            other => panic!("{other:?}"),
        }
        for (m, p, allow) in [
            ("GET", "/v1/order/S1", "POST"),
            ("PUT", "/v1/order/S1", "POST"),
            ("POST", "/v1/order/S1/R-1/events", "PUT"),
            ("HEAD", "/v1/menu/change/k", "POST"),
            ("post", "/v1/order/S1", "POST"),
        ] {
            match route(m, p, "") {
                Routing::MethodNotAllowed { answer: a } => {
                    assert_eq!(a.status, 405);
                    assert_eq!(a.headers, vec![["Allow", allow]]);
                }
                other => panic!("{m} {p}: {other:?}"),
            }
        }
    }

    #[test]
    fn verification_failures_are_rejected_with_the_stable_code() {
        let r = matched("PUT", "/v1/order/S1/R-1/events");
        let body = update("delivered", "R-1");
        let mut h = signed(&body, &[("X-Service-Delivery-Id", ID)]);
        let tampered = update("cancelled", "R-1");
        for (b, headers, code) in [(&tampered, &h, "SIGNATURE_MISMATCH"), (&body, &Headers::new(), "MISSING_TIMESTAMP")] {
            match receive(&r, b, headers, &[SECRET], NOW, 300) {
                Receipt::Reject { answer } => {
                    assert_eq!((answer.status, answer.code), (401, code));
                    assert!(answer.body.contains(code));
                    assert!(!answer.body.contains(SECRET));
                }
                other => panic!("{other:?}"),
            }
        }
        match receive(&r, &body, &h, &[SECRET], NOW + 301, 300) {
            Receipt::Reject { answer } => assert_eq!(answer.code, "TIMESTAMP_TOO_OLD"),
            other => panic!("{other:?}"),
        }
        h.push("x-service-delivery-id", "another-id");
        match receive(&r, &body, &h, &[SECRET], NOW, 300) {
            Receipt::Reject { answer } => assert_eq!((answer.status, answer.code), (400, "DELIVERY_ID_CONFLICTING")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn valid_update_is_handled_with_the_delivery() {
        let r = matched("PUT", "/v1/order/S1/R-1/events");
        let body = update("delivered", "R-1");
        match receive(&r, &body, &signed(&body, &[("X-Service-Delivery-Id", ID)]), &[SECRET], NOW, 300) {
            Receipt::Handle { delivery, report } => {
                assert_eq!(delivery.delivery_id.as_deref(), Some(ID));
                assert!(report.ok, "{report:?}");
                assert_eq!(report.kind.as_deref(), Some("orderUpdateEvent"));
            }
            other => panic!("{other:?}"),
        }
        // The path is authoritative: a body remoteOrderId that differs is a warning, still handled.
        let other = update("delivered", "R-OTHER");
        match receive(&r, &other, &signed(&other, &[]), &[SECRET], NOW, 300) {
            Receipt::Handle { delivery, report } => {
                assert_eq!(delivery.delivery_id, None);
                assert!(report.diagnostics.iter().any(|d| d.rule_id == "order-update/remote-order-id-path"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn update_route_answers_200_for_unknown_events_and_broken_payloads() {
        let r = matched("PUT", "/v1/order/S1/R-1/events");
        for (body, reason) in [
            (update("refunded", "R-1"), "unknown-event"),
            (b"{\"event\":\"delivered\"}".to_vec(), "invalid-payload"),
            (b"not json".to_vec(), "invalid-payload"),
            (Vec::new(), "invalid-payload"),
        ] {
            match receive(&r, &body, &signed(&body, &[]), &[SECRET], NOW, 300) {
                Receipt::Ignore { answer, reason: why, .. } => {
                    assert_eq!((answer.status, why), (200, reason));
                    assert!(!answer.retry);
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn menu_change_key_must_equal_the_path() {
        let body = br#"{"changeKey":"chg_0123456789abcdEF","status":"applied","submittedAt":"2026-08-12T00:00:00Z","completedAt":"2026-08-12T00:01:00Z","results":[]}"#;
        let ok = matched("POST", "/v1/menu/change/chg_0123456789abcdEF");
        assert!(matches!(receive(&ok, body, &signed(body, &[]), &[SECRET], NOW, 300), Receipt::Handle { .. }));
        let other = matched("POST", "/v1/menu/change/chg_ZZZZZZZZZZZZZZZZ");
        match receive(&other, body, &signed(body, &[]), &[SECRET], NOW, 300) {
            Receipt::Ignore { answer, report, .. } => {
                assert_eq!(answer.status, 200);
                assert!(report.diagnostics.iter().any(|d| d.rule_id == "menu-change/change-key-path"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_creation_payload_is_refused_not_acknowledged() {
        let r = matched("POST", "/v1/order/S1");
        let body = b"[1,2]";
        match receive(&r, body, &signed(body, &[]), &[SECRET], NOW, 300) {
            Receipt::Refuse { answer, report, .. } => {
                assert_eq!((answer.status, answer.code), (422, "INVALID_PAYLOAD"));
                assert!(answer.retry);
                assert!(!report.ok && report.error_count > 0);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn answers_after_the_handler() {
        let created = |v: Option<&str>| answer_after(RouteId::OrderCreated, &Outcome::Returned(v.map(String::from)));
        assert_eq!(created(Some("POS-1")).body, r#"{"remoteOrderId":"POS-1"}"#);
        assert_eq!(created(Some("q\"\\")).body, r#"{"remoteOrderId":"q\"\\"}"#);
        for bad in [None, Some(""), Some("   ")] {
            let a = created(bad);
            assert_eq!((a.status, a.code, a.retry), (500, "NO_REMOTE_ORDER_ID", true));
        }
        for r in RouteId::ALL {
            for (o, status) in [
                (Outcome::Threw, 500),
                (Outcome::TimedOut, 503),
                (Outcome::StoreUnavailable, 503),
                (Outcome::InProgress, 409),
                (Outcome::TooLarge, 413),
                (Outcome::BodyUnavailable, 500),
            ] {
                let a = answer_after(*r, &o);
                assert_eq!(a.status, status, "{r:?} {o:?}");
                assert!(a.retry);
                let v: serde_json::Value = serde_json::from_str(&a.body).unwrap();
                assert_eq!(v["error"], a.code);
            }
        }
        assert_eq!(answer_after(RouteId::OrderUpdate, &Outcome::Returned(None)).status, 200);
        assert_eq!(answer_after(RouteId::MenuChangeCompleted, &Outcome::NoHandler).status, 200);
        assert_eq!(answer_after(RouteId::OrderCreated, &Outcome::NoHandler).status, 501);
        for id in Outcome::IDS {
            assert!(Outcome::from_id(id, None).is_some(), "{id}");
        }
        assert!(Outcome::from_id("nope", None).is_none());
    }

    #[test]
    fn created_ids_answered_verbatim_are_answer_after() {
        let mut ids: Vec<String> = (0x20u8..0x7f).map(|b| format!("P{}-1", b as char)).collect();
        ids.extend(["", " ", "POS-1", " POS", "POS ", "\u{e9}", "a\tb", "\u{2028}", "\u{feff}x", "x\u{0}"].map(String::from));
        for id in ids {
            let a = answer_after(RouteId::OrderCreated, &Outcome::Returned(Some(id.clone())));
            if created_id_verbatim(&id) {
                assert_eq!((a.status, a.code, a.headers.len()), (200, "OK", 0), "{id:?}");
                assert_eq!(a.body, format!("{CREATED_PREFIX}{id}{CREATED_SUFFIX}"), "{id:?}");
            } else {
                assert!(id.is_empty() || id.bytes().any(|b| !b.is_ascii_graphic() || b == b'"' || b == b'\\'), "{id:?}");
            }
        }
    }

    #[test]
    fn param_spans_are_the_raw_segments_or_none() {
        let cases = [
            ("POST", "/v1/order/S1", "", Some([(10, 12), (0, 0), (0, 0)])),
            ("POST", "/pos/v1/order/S1/?x=1", "/pos/", Some([(14, 16), (0, 0), (0, 0)])),
            ("PUT", "/v1/order/S1/R-1/events", "", Some([(10, 12), (13, 16), (0, 0)])),
            ("POST", "/v1/menu/change/k1", "", Some([(0, 0), (0, 0), (16, 18)])),
            ("POST", "/v1/order/S%201", "", None),
        ];
        for (method, target, base, want) in cases {
            let Routing::Matched { route: r } = route(method, target, base) else { panic!("{target}") };
            let spans = param_spans(&r, target, base);
            assert_eq!(spans, want, "{target}");
            if let Some(spans) = spans {
                let got = spans.map(|(a, b)| (b > 0).then(|| target[a as usize..b as usize].to_string()));
                assert_eq!(got, [r.remote_id.clone(), r.remote_order_id.clone(), r.change_key.clone()], "{target}");
            }
        }
    }

    #[test]
    fn one_step_routes_then_receives() {
        let body = update("delivered", "R-1");
        let h = signed(&body, &[]);
        let r = receive_request("PUT", "/pos/v1/order/S1/R-1/events", "/pos", &body, &h, &[SECRET], NOW, 300);
        assert!(matches!(r, Received::Routed(Receipt::Handle { .. })), "{r:?}");
        let r = receive_request("GET", "/pos/v1/order/S1/R-1/events", "/pos", &body, &h, &[SECRET], NOW, 300);
        assert!(matches!(r, Received::Unrouted(Routing::MethodNotAllowed { .. })));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["action"], "methodNotAllowed");
        assert_eq!(json["answer"]["status"], 405);
        let r = receive_request("PUT", "/v1/order/S1/R-1/events", "", b"x", &h, &[SECRET], NOW, 300);
        assert_eq!(serde_json::to_value(&r).unwrap()["action"], "reject");
    }

    #[test]
    fn any_bytes_any_path_never_panic() {
        let paths = ["/v1/order/%", "/v1/order/%zz", "/v1/order/%ff%fe", "/\u{1F600}/", "//", "/v1/menu/change/%2", "?", "#"];
        for p in paths {
            let _ = route("POST", p, "");
            let _ = route("POST", p, "/\u{e9}");
        }
        let r = matched("POST", "/v1/order/%ff");
        for body in [&b"\xff\xfe"[..], b"{", b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["] {
            let _ = receive(&r, body, &signed(body, &[]), &[SECRET], NOW, 300);
        }
    }

    #[test]
    fn a_matched_route_says_what_the_payload_checks_read_of_its_path() {
        // payload_clean hands the checks the route's own parameters instead of splitting the path
        // again: for every path the receiver matches, they are what route_of says of it.
        let segments = ["v1", "order", "menu", "change", "events", "s%201", "%76%31", "a%2Fb", ""];
        let mut matched_count = 0;
        for base in ["", "/base"] {
            for n in 1..=5 {
                let mut choice = vec![0usize; n];
                loop {
                    let path: String = choice.iter().map(|&i| format!("/{}", segments[i])).collect();
                    for target in [format!("{base}{path}"), format!("{base}{path}/?q=1")] {
                        for method in ["POST", "PUT"] {
                            if let Ok(r) = route_ref(method, &target, base) {
                                matched_count += 1;
                                assert_eq!(r.info, crate::payload::route_of(r.path), "{method} {target}");
                                assert_eq!(r.to_route(), matched(method, &target[base.len()..]), "{method} {target}");
                            }
                        }
                    }
                    // The next choice of segments (odometer order).
                    let Some(i) = choice.iter().rposition(|&c| c + 1 < segments.len()) else { break };
                    choice[i] += 1;
                    choice[i + 1..].iter_mut().for_each(|c| *c = 0);
                }
            }
        }
        assert!(matched_count > 100, "{matched_count} matched routes");
    }
}
