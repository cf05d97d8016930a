//! The answer once the handler has run (or could not be run).

use super::{Answer, Basis, RouteId, RECEIVED};

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
