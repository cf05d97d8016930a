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

use crate::payload::PayloadKind;
use serde::Serialize;

pub use crate::basis::Basis;

mod answer;
mod receive;
mod route;
#[cfg(test)]
mod tests;

pub use answer::{answer_after, Outcome};
// For the wasm face (src/wasm/): the webhook-only module uses all of them, other builds some or none.
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook", not(feature = "toolkit"))), allow(unused_imports))]
pub(crate) use receive::payload_clean_ref;
pub use receive::{
    created_id_verbatim, payload_clean, receive, receive_request, receive_request_with_macs, receive_with_macs, Receipt, Received,
    CREATED_PREFIX, CREATED_SUFFIX,
};
pub use route::{param_spans, route};
#[cfg_attr(not(all(target_arch = "wasm32", feature = "webhook", not(feature = "toolkit"))), allow(unused_imports))]
pub(crate) use route::{param_spans_ref, route_ref};

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
