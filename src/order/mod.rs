//! The order lifecycle as a checked state machine ("States and transitions" of the spec).
//!
//! - [`machine()`]: the transition table as data (states, vocabularies, rows with their conditions
//!   and effects, and what the spec does not show, marked unknown);
//! - [`predict_action`]: what the service answers to accept, reject or a PUT status;
//! - [`apply_event`]: what an update webhook does to an order (the receiver always answers 200);
//! - [`apply_trigger`]: what a service-side trigger does (auto-accept, the driver marking the order
//!   ready, a cancellation, a confirmed delivery);
//! - [`next_actions`]: what the POS may do now, with the time left to accept;
//! - [`check_order`]: a report on an order detail, with positions;
//! - [`diagram_svg`]: the state diagram drawn from the table.
//!
//! One reader: [`check_order`], `validatePayload(kind orderDetail)` and the simulations read an
//! order through the same function (the checker's, over the positioned JSON), so they cannot
//! disagree on what an order says. Every simulated step writes through one function that sets the
//! row's timestamps and appends the history row the contract describes; a property test holds
//! every order the simulations produce to `check_order` (no error).
//!
//! Pure: no clock (`now` is unix seconds), no I/O, no panic on any input.
//!
//! ```
//! use poscheck::order::{predict_action, Action};
//! use serde_json::json;
//! let order = json!({
//!     "orderKey": "ord_7Hq2LmXc9PzR4tBv", "status": "Ready",
//!     "order": { "expiresAt": "2026-08-20T12:05:00Z" }
//! });
//! let p = predict_action(&order, &Action::parse("ready").unwrap(), 1_787_227_200).unwrap();
//! assert_eq!(p.http_status, 409);
//! assert!(p.already_reached);
//! assert_eq!(p.problem.unwrap()["meta"]["allowedTransitions"], json!(["HandedOver"]));
//! ```

mod diagram;
mod lint;
pub mod machine;
mod simulate;

pub use diagram::diagram_svg;
pub(crate) use lint::{check_detail, OrderFacts, TOP_FIELDS as ORDER_FIELDS};
// The checker's tables, for the JSON Schema of the order resource (`crate::schema`).
pub use lint::{check_order, CheckOptions, RULES};
pub(crate) use lint::{ACTOR_TYPES, DRIVER_EVENTS, DRIVER_FIELDS as HISTORY_DRIVER_FIELDS, HISTORY_FIELDS, NULLABLE_TIMESTAMPS};
pub use machine::{machine, Basis, Machine, Row, State};
pub(crate) use simulate::predict_request_on;
pub use simulate::{
    apply_event, apply_trigger, history_path, next_actions, predict_action, predict_request, Action, EventOutcome, NextAction, NextActions,
    OrderInputError, PendingChange, Prediction, ServiceTrigger, TriggerOutcome, DELIVERED_AT_CUTOFF_UNIX, ERROR_CODES, MAX_NOW,
    PROBLEM_BASE,
};
