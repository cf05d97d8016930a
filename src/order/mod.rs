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
//! One type: an order is an [`Order`] (its statuses, actors and driver events the contract's
//! enums, its timestamps [`Instant`]s), the one the service model keeps. The JSON entry points
//! read the order they are given into it once and write it out once.
//!
//! One reader: [`check_order`], `validatePayload(kind orderDetail)` and the engine read an order's
//! facts through the same function (the checker's, over the positioned JSON), so they cannot
//! disagree on what an order says. Every step writes through one function,
//! [`Order::transition`](model::Order), that sets the row's timestamps and appends the history row
//! the contract describes; a property test holds every order the engine produces to
//! `check_order` (no error).
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

mod body;
mod diagram;
mod lint;
pub mod machine;
pub mod model;
mod simulate;

pub use body::ActionBody;
pub use diagram::diagram_svg;
pub(crate) use lint::check_detail;
// The checker's tables, for the JSON Schema of the order resource (`crate::schema`).
pub use lint::{check_order, CheckOptions, RULES};
pub(crate) use lint::{DRIVER_FIELDS as HISTORY_DRIVER_FIELDS, HISTORY_FIELDS};
pub use machine::{machine, Basis, Machine, Row, State};
pub(crate) use machine::{ACTOR_TYPES, DRIVER_EVENTS};
pub use model::{Customer, Fulfillment, HistoryDriver, HistoryRow, Instant, Item, Order, OrderContent, Payment, PaymentMethod, Summary};
pub(crate) use model::{FIELDS as ORDER_FIELDS, NULLABLE_TIMESTAMPS};
pub use simulate::{
    apply_event, apply_trigger, history_path, next_actions, predict_action, predict_request, Action, EventOutcome, NextAction, NextActions,
    OrderInputError, PendingChange, Prediction, ServiceTrigger, TriggerOutcome, DELIVERED_AT_CUTOFF_UNIX, ERROR_CODES, MAX_NOW,
    PROBLEM_BASE,
};
pub(crate) use simulate::{apply_event_to, apply_trigger_to, predict_on, Who};
