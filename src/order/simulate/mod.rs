//! The engine: what the service answers to a POS action ([`predict`]), what an update webhook
//! does to an order ([`event`]), what a service-side trigger does and what the POS may do now
//! ([`trigger`]). Every answer is read off the rows of [`machine`](super::machine()); nothing here
//! knows a transition the table does not hold, and every step writes through
//! [`Order::transition`], which writes its history row.
//!
//! The JSON entry points read the order they are given once into the typed [`Order`] (its facts
//! by the checker's reader) and write it out once; the service model calls the same engine on the
//! orders it keeps, with no JSON in between.

mod event;
mod predict;
mod trigger;

pub use event::apply_event;
pub(crate) use event::{apply_event_to, Who};
pub(crate) use predict::predict_on;
pub use predict::{predict_action, predict_request};
pub(crate) use trigger::apply_trigger_to;
pub use trigger::{apply_trigger, history_path, next_actions};

use super::machine::{normalize_write, Basis, Condition, Row, RowKind, TriggerKind, ROWS};
use super::model::{Instant, Order, OrderFacts, StepFacts};
use crate::basis::{Grounds, PredictionBasis};
use crate::contract::{ActorType, DriverEvent, ProblemSuffix, Status, WriteStatus, REFUSED_WRITE_STATUS};
use crate::shape::bodies::BodyKind;
use crate::time;
use serde::Serialize;
use serde_json::{json, Value};

pub use crate::contract::{DELIVERED_AT_CUTOFF_UNIX, PROBLEM_BASE};

/// The largest `now` accepted: 9999-12-31T23:59:59Z (timestamps keep four-digit years).
pub const MAX_NOW: i64 = 253_402_300_799;

/// A bad input to the order engine. Each variant has a stable [`code`](Self::code).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OrderInputError {
    /// The order is not an order detail the engine can read.
    #[error("invalid order: {0}")]
    InvalidOrder(String),
    /// The action string is not one of accept, reject, or a PUT status value.
    #[error("unknown action {0:?}: expected accept, reject, preparing, ready, handed_over, cancelled, or status:<value>")]
    UnknownAction(String),
    /// The service-side trigger string is not known.
    #[error("unknown trigger {0:?}: expected auto_accept, driver_marks_ready, refund_or_incident, cancellation_by_service or delivery_confirmed")]
    UnknownTrigger(String),
    /// The update webhook body is not an OrderUpdateEvent.
    #[error("invalid update event: {0}")]
    InvalidEvent(String),
    /// The update webhook is about another order.
    #[error("the event is for order {event:?} but the order is {order:?}")]
    OrderKeyMismatch {
        /// The order's orderKey.
        order: String,
        /// The event's orderKey.
        event: String,
    },
    /// `now` is outside 1970-01-01 … 9999-12-31.
    #[error("now must be unix seconds between 0 and {MAX_NOW}, found {0}")]
    InvalidNow(i64),
}

impl OrderInputError {
    /// The stable error code, e.g. `INVALID_ORDER`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidOrder(_) => "INVALID_ORDER",
            Self::UnknownAction(_) => "UNKNOWN_ACTION",
            Self::UnknownTrigger(_) => "UNKNOWN_TRIGGER",
            Self::InvalidEvent(_) => "INVALID_EVENT",
            Self::OrderKeyMismatch { .. } => "ORDER_KEY_MISMATCH",
            Self::InvalidNow(_) => "INVALID_NOW",
        }
    }
}

/// Every code [`OrderInputError::code`] can return.
pub const ERROR_CODES: &[&str] =
    &["INVALID_ORDER", "UNKNOWN_ACTION", "UNKNOWN_TRIGGER", "INVALID_EVENT", "ORDER_KEY_MISMATCH", "INVALID_NOW"];

/// A REST call of the POS on an order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Action {
    /// `POST /api/v1/Orders/{orderKey}/accept`.
    Accept,
    /// `POST /api/v1/Orders/{orderKey}/reject`.
    Reject,
    /// `PUT /api/v1/Orders/{orderKey}/status` with this `status` value (`preparing`, `ready`,
    /// `handed_over`, `cancelled`, or anything else).
    Status(String),
}

impl Action {
    /// Parses the JS strings: `accept`, `reject`, `preparing`, `ready`, `handed_over`, `cancelled`,
    /// and `status:<value>` for any other PUT status value.
    pub fn parse(s: &str) -> Result<Self, OrderInputError> {
        match s {
            "accept" => Ok(Self::Accept),
            "reject" => Ok(Self::Reject),
            _ if WriteStatus::parse(s).is_some() || s == REFUSED_WRITE_STATUS => Ok(Self::Status(s.to_string())),
            _ => match s.strip_prefix("status:") {
                Some(v) => Ok(Self::Status(v.to_string())),
                None => Err(OrderInputError::UnknownAction(s.chars().take(60).collect())),
            },
        }
    }

    /// The action string (`accept`, `reject`, or the PUT status value).
    pub fn name(&self) -> &str {
        match self {
            Self::Accept => "accept",
            Self::Reject => "reject",
            Self::Status(v) => v,
        }
    }

    /// The read status this action asks for, when it names one.
    fn target(&self) -> Option<Status> {
        match self {
            Self::Accept => Some(Status::Preparing),
            Self::Reject => Some(Status::Rejected),
            Self::Status(v) => normalize_write(v),
        }
    }

    /// The body this action takes.
    pub(crate) fn body_kind(&self) -> BodyKind {
        match self {
            Self::Accept => BodyKind::Accept,
            Self::Reject => BodyKind::Reject,
            Self::Status(_) => BodyKind::Status,
        }
    }

    fn request(&self) -> String {
        match self {
            Self::Accept => "POST accept".into(),
            Self::Reject => "POST reject".into(),
            Self::Status(v) => format!("PUT status {v:?}"),
        }
    }
}

impl std::str::FromStr for Action {
    type Err = OrderInputError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// Something that happens on the service's side (or in the driver's app) rather than by a REST
/// call of the POS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServiceTrigger {
    /// The POS answered 200 with a remoteOrderId to the creation webhook (auto-accept stores).
    AutoAccept,
    /// The driver marked the order ready in the driver's own app.
    DriverMarksReady,
    /// Refund or incident after the handover.
    RefundOrIncident,
    /// Cancellation by the customer, an operator, a timeout or a failed webhook.
    CancellationByService,
    /// The driver confirmed the delivery.
    DeliveryConfirmed,
    /// The driver is replaced by another (history row `driver_reassigned`; status unchanged).
    DriverReassigned,
}

impl ServiceTrigger {
    /// Every trigger, in the table's order.
    pub const ALL: &'static [ServiceTrigger] = &[
        Self::AutoAccept,
        Self::DriverMarksReady,
        Self::RefundOrIncident,
        Self::CancellationByService,
        Self::DeliveryConfirmed,
        Self::DriverReassigned,
    ];

    /// The trigger string, as in the table's rows.
    pub fn name(self) -> &'static str {
        match self {
            Self::AutoAccept => "auto_accept",
            Self::DriverMarksReady => "driver_marks_ready",
            Self::RefundOrIncident => "refund_or_incident",
            Self::CancellationByService => "cancellation_by_service",
            Self::DeliveryConfirmed => "delivery_confirmed",
            Self::DriverReassigned => DriverEvent::Reassigned.as_str(),
        }
    }

    /// The trigger named `s` (its [`name`](Self::name)).
    pub fn parse(s: &str) -> Result<Self, OrderInputError> {
        Self::ALL.iter().copied().find(|t| t.name() == s).ok_or_else(|| OrderInputError::UnknownTrigger(s.chars().take(60).collect()))
    }
}

/// What the service would answer to a POS action.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export, rename = "OrderPrediction"))]
#[serde(rename_all = "camelCase")]
pub struct Prediction {
    /// 202, 409 or 422.
    pub http_status: u16,
    /// The status after the call (PascalCase), unchanged when refused.
    pub status: String,
    /// The order detail after the call: status, timestamps, and the history row the call writes
    /// (its actorId, not shown, is null).
    pub order: Value,
    /// The event published.
    pub event: Option<&'static str>,
    /// The `data` of the 202 answer.
    pub response: Option<Value>,
    /// The RFC 7807 problem of a 409 or 422 (`traceId` is not predictable and is left out).
    pub problem: Option<Value>,
    /// The state asked for is already reached (e.g. `ready` when the driver marked it ready).
    pub already_reached: bool,
    /// The table row that answered.
    pub row: &'static str,
    /// Whether the answer is stated by the spec, derived, or rests on something not shown (the
    /// weakest of [`bases`](Self::bases)).
    pub basis: Basis,
    /// The grounds of the status (or transition), the problem type and the meta, each with its source.
    pub bases: PredictionBasis,
    /// What the spec does not show about this answer.
    pub unknown: Vec<String>,
    /// What to do, in a sentence.
    pub advice: String,
}

/// What an update webhook does to an order, and what the receiver answers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct EventOutcome {
    /// The order after the event (the input unchanged when the event changes nothing).
    pub order: Value,
    /// Its status after the event.
    pub status: String,
    /// Whether the status moved.
    pub status_changed: bool,
    /// Always 200: the receiver only communicates through the status, and unknown events are
    /// ignored with a 200.
    pub receiver_http_status: u16,
    /// The event value is not one the spec lists (ignored), or the event changes nothing.
    pub ignored: bool,
    /// The body is an OrderUpdateEvent the receiver can act on. When false (not an object, no
    /// `event`, a missing or malformed field), `problem` says why: the receiver still answers 200
    /// (the POS only communicates through the status, and "always 200"), and decides what to log.
    pub valid: bool,
    /// Why the body cannot be acted on, when `valid` is false.
    pub problem: Option<String>,
    /// The `event` value.
    pub event: String,
    /// The table row applied, if any.
    pub row: Option<&'static str>,
    /// What the outcome rests on.
    pub basis: Basis,
    /// The grounds of the outcome, with its source.
    pub grounds: Grounds,
    /// What the spec does not show about it.
    pub unknown: Vec<String>,
    /// The outcome in a sentence.
    pub note: String,
}

/// What a service-side trigger does to an order.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct TriggerOutcome {
    /// The order after the trigger.
    pub order: Value,
    /// Its status after the trigger.
    pub status: String,
    /// Whether the status moved.
    pub status_changed: bool,
    /// A row of the table applied.
    pub applied: bool,
    /// The trigger string.
    pub trigger: &'static str,
    /// The table row applied, if any.
    pub row: Option<&'static str>,
    /// The update webhook the POS receives.
    pub webhook: Option<&'static str>,
    /// The event published, if any.
    pub event: Option<&'static str>,
    /// What the outcome rests on.
    pub basis: Basis,
    /// The grounds of the outcome, with its source.
    pub grounds: Grounds,
    /// What the spec does not show about it.
    pub unknown: Vec<String>,
    /// The outcome in a sentence.
    pub note: String,
}

/// One action the POS may take now, with what it leads to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct NextAction {
    /// The action string (`accept`, `reject`, `ready`, `handed_over`).
    pub action: &'static str,
    /// The status it leads to.
    pub to: &'static str,
    /// The event it publishes.
    pub event: Option<&'static str>,
    /// The table row.
    pub row: &'static str,
    /// What it rests on.
    pub basis: Basis,
}

/// Something the service or the driver may still do to the order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct PendingChange {
    /// `service` (a trigger of [`apply_trigger`], or a change seen in history only) or
    /// `updateEvent` (it arrives as an update webhook).
    pub kind: TriggerKind,
    /// The trigger or event name.
    pub trigger: &'static str,
    /// The table row.
    pub row: &'static str,
    /// `None`: the status does not change.
    pub to: Option<&'static str>,
    /// What it rests on.
    pub basis: Basis,
}

/// What the POS may do now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub struct NextActions {
    /// The order's status.
    pub status: &'static str,
    /// No transition of any kind leaves the status (Rejected, Cancelled). HandedOver is not
    /// terminal: the service may still cancel it (refund or incident).
    pub terminal: bool,
    /// A REST call of the merchant can still move the order (false for HandedOver, Rejected,
    /// Cancelled), before conditions such as the acceptance deadline.
    pub merchant_action_left: bool,
    /// The REST calls that would be answered 202 now.
    pub actions: Vec<NextAction>,
    /// What a 409 would carry in `meta.allowedTransitions` now.
    pub allowed_transitions: Vec<&'static str>,
    /// `order.expiresAt`, when set and the order is Pending.
    pub expires_at: Option<String>,
    /// Whole seconds left before `expiresAt` (0 once passed), when the order is Pending and has one.
    pub seconds_left_to_accept: Option<i64>,
    /// `now` is at or past `expiresAt` (an accept would be answered 409 acceptance-timeout).
    pub acceptance_expired: bool,
    /// What the service or the driver may still do.
    pub service_may: Vec<PendingChange>,
    /// What to do, in a sentence.
    pub advice: String,
}

// ---------------------------------------------------------------------------------------------
// Reading the order.

/// The acceptance deadline as the order tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Deadline {
    /// `order.expiresAt` is null: an auto-accept store.
    None,
    /// `order.expiresAt`, unix millis.
    At(i64),
    /// `order` is null or has no expiresAt: the deadline cannot be read.
    Unreadable,
}

/// An order and what the engine reads of it.
struct View {
    order: Order,
    status: Status,
    deadline: Deadline,
    expires_text: Option<String>,
    /// `order.createdAt`, else `receivedAt`, unix millis.
    created: Option<i64>,
    pickup: bool,
    /// The latest instant the order records (receivedAt, the transition timestamps, the last
    /// history row), unix millis: a simulated step never happens before it.
    floor_ms: Option<i64>,
}

impl View {
    fn step_facts(&self) -> StepFacts {
        StepFacts { pickup: self.pickup, created: self.created }
    }

    /// The order after `row` at `at`, written by the one transition.
    fn transition(&self, row: &Row, at: &Instant, record: super::model::Record, unknown: &mut Vec<String>) -> Result<Order, String> {
        self.order.transition(row, at, record, self.step_facts(), unknown)
    }
}

fn invalid(msg: impl Into<String>) -> OrderInputError {
    OrderInputError::InvalidOrder(msg.into())
}

/// The order detail `order` (or its envelope), read once: its facts by the checker's reader over
/// the positioned JSON, its members into the typed [`Order`].
fn read_order(order: &Value) -> Result<View, OrderInputError> {
    let Value::Object(root) = order else {
        return Err(invalid("the order must be a JSON object (the data of GET /api/v1/Orders/{orderKey})"));
    };
    // The whole envelope { message, data } is accepted too.
    let data = match (root.get("status"), root.get("data")) {
        (None, Some(Value::Object(d))) => d,
        _ => root,
    };
    // Read by the one order reader, the checker's (same fields, same rules, with positions).
    let bytes = serde_json::to_vec(data).map_err(|e| invalid(e.to_string()))?;
    let arena = crate::json::Arena::for_input(bytes.len());
    let doc = crate::json::parse(&bytes, &crate::json::Limits::default(), &arena).map_err(|e| invalid(e.message))?;
    let mut c = crate::diagnostic::Collector::new();
    let facts = super::lint::check_detail(&mut c, &crate::diagnostic::Path::ROOT, &doc.root);
    if facts.status.is_none() {
        let report = c.finish(&bytes);
        let why = report.diagnostics.iter().find(|d| d.path == "status").map_or_else(
            || "missing status".to_string(),
            |d| match d.rule_id {
                "order/accepted-observed" => {
                    "status Accepted is never observable by the POS: the accept cascade passes through it atomically".to_string()
                }
                "order/status" => format!("{} ({})", d.message, super::machine::OBSERVABLE.join(", ")),
                _ => d.message.clone(),
            },
        );
        return Err(invalid(why));
    }
    view_of(Order::from_json(data), facts)
}

/// The view of an order whose facts are read: by [`read_order`] (the checker's reader over the
/// JSON), or by the service model from its typed order ([`Order::facts`], a test ties the two).
fn view_of(order: Order, facts: OrderFacts) -> Result<View, OrderInputError> {
    let Some(status) = facts.status else {
        return Err(invalid("missing status"));
    };
    if facts.expires_broken {
        return Err(invalid(format!(
            "order.expiresAt is not an ISO 8601 UTC timestamp: {:?}",
            facts.expires_text.as_deref().unwrap_or("(not a string)").chars().take(40).collect::<String>()
        )));
    }
    let (deadline, expires_text) = match facts.expires {
        None => (Deadline::Unreadable, None),
        Some(None) => (Deadline::None, None),
        Some(Some(ms)) => (Deadline::At(ms), facts.expires_text.clone()),
    };
    Ok(View { order, status, deadline, expires_text, created: facts.created, pickup: facts.pickup, floor_ms: facts.latest })
}

/// The view of an order the service model keeps.
fn view_of_order(order: &Order) -> Result<View, OrderInputError> {
    view_of(order.clone(), order.facts())
}

fn check_now(now: i64) -> Result<i64, OrderInputError> {
    if (0..=MAX_NOW).contains(&now) {
        Ok(now)
    } else {
        Err(OrderInputError::InvalidNow(now))
    }
}

// ---------------------------------------------------------------------------------------------
// Conditions and effects.

/// Whether a row's condition holds: `Some(basis)` (with a note when the basis is unknown) or `None`.
fn condition_holds(cond: Condition, view: &View, now: i64, unknown: &mut Vec<String>) -> Option<Basis> {
    let now_ms = now.saturating_mul(1000);
    match (cond, view.deadline) {
        (Condition::Always, _) => Some(Basis::Stated),
        (Condition::BeforeExpiresAt, Deadline::At(ms)) => (now_ms < ms).then_some(Basis::Stated),
        (Condition::BeforeExpiresAt, Deadline::None) => {
            unknown.push("order.expiresAt is null (an auto-accept store): what POST accept does on such an order while it still reads Pending is not shown; there is no deadline to miss".into());
            Some(Basis::Assumed)
        }
        (Condition::BeforeExpiresAt, Deadline::Unreadable) => {
            unknown.push("order.expiresAt cannot be read (data.order is null or has no expiresAt): after the deadline the service answers 409 acceptance-timeout instead".into());
            Some(Basis::Assumed)
        }
        (Condition::AfterExpiresAt, Deadline::At(ms)) => (now_ms >= ms).then_some(Basis::Stated),
        (Condition::AfterExpiresAt, _) => None,
        (Condition::AutoAcceptStore, Deadline::None) => Some(Basis::Stated),
        (Condition::AutoAcceptStore, Deadline::Unreadable) => {
            unknown.push("whether the store is auto-accept cannot be read (data.order is null or has no expiresAt)".into());
            Some(Basis::Assumed)
        }
        (Condition::AutoAcceptStore, Deadline::At(_)) => None,
        (Condition::NotAutoAcceptStore, Deadline::At(_)) => Some(Basis::Stated),
        (Condition::NotAutoAcceptStore, _) => None,
    }
}

/// Whether a row's condition holds, its notes left out.
fn holds(cond: Condition, view: &View, now: i64) -> Option<Basis> {
    condition_holds(cond, view, now, &mut Vec::new())
}

fn applies_from(row: &Row, status: Status) -> Option<Basis> {
    if row.from.contains(&status) {
        Some(Basis::Stated)
    } else if row.from_unknown && row.from_candidates.contains(&status) {
        Some(Basis::Assumed)
    } else {
        None
    }
}

/// The merchant transition rows from `status`.
fn merchant_rows(status: Status) -> impl Iterator<Item = &'static Row> {
    ROWS.iter().filter(move |r| r.kind == RowKind::Transition && r.trigger.kind == TriggerKind::Action && r.from.contains(&status))
}

/// The targets of merchant transitions from the order's status whose conditions hold now.
fn allowed_now(view: &View, now: i64) -> Vec<Status> {
    let mut out: Vec<Status> = Vec::new();
    for row in merchant_rows(view.status) {
        if let (Some(to), Some(_)) = (row.to, holds(row.condition, view, now)) {
            if !out.contains(&to) {
                out.push(to);
            }
        }
    }
    out
}

/// The instant a step is simulated at: `now` (unix seconds), or the order's latest recorded
/// instant when `now` is before it (a step never happens before what the order already records).
fn effective_now(view: &View, now: i64, unknown: &mut Vec<String>) -> i64 {
    match view.floor_ms {
        Some(f) if f > now.saturating_mul(1000) => {
            let secs = f.div_euclid(1000) + i64::from(f.rem_euclid(1000) != 0);
            unknown.push(format!(
                "the time given ({}) is before the order's latest recorded change: the step is simulated at {}",
                time::format_unix_seconds(now),
                time::format_unix_seconds(secs)
            ));
            secs
        }
        _ => now,
    }
}

/// The actorType the service writes for a row, and a note when it is assumed.
fn actor_of(row: &Row) -> (ActorType, Option<&'static str>) {
    match row.id {
        "accept" | "reject" | super::machine::ROW_READY | "handed-over" => (ActorType::Merchant, None),
        "driver-marks-ready" | "delivery-confirmed" => (ActorType::Driver, None),
        "auto-accept" => (ActorType::System, Some("the actorType of the auto-accept history row is not shown (system assumed: the service accepts the order itself)")),
        "refund-or-incident" => (ActorType::Operator, Some("the actorType of a refund or incident cancellation is not shown (operator assumed)")),
        "cancellation-by-service" => (ActorType::System, Some("which actor cancelled (customer, operator, timeout or failed webhook) is not known here (system assumed: it covers acceptance timeout and delivery failure)")),
        _ => (ActorType::System, Some("the actorType of driver rows is not shown (system assumed)")),
    }
}

/// The record of a service-side row (a trigger or an update event): its actor, with the note
/// when the actor is assumed and the row writes a history row.
fn service_record(
    row: &Row,
    current: Status,
    driver: Option<super::model::HistoryDriver>,
    unknown: &mut Vec<String>,
) -> super::model::Record {
    let (actor, actor_note) = actor_of(row);
    let mut record = super::model::Record::by(actor);
    record.driver = driver;
    if let Some(n) = actor_note {
        if record.driver.is_some() || row.to.is_some_and(|t| t != current) {
            unknown.push(n.to_string());
        }
    }
    record
}

/// The driver object of a history row written for a driver event.
fn driver_object(event: DriverEvent, full_name: Option<String>) -> super::model::HistoryDriver {
    super::model::HistoryDriver { event, code: None, full_name, previous_code: (event == DriverEvent::Reassigned).then_some(None) }
}

fn problem(suffix: ProblemSuffix, title: &str, status: u16, detail: String, meta: Value) -> Value {
    json!({ "type": suffix.type_uri(), "title": title, "status": status, "detail": detail, "meta": meta })
}

fn list(states: &[Status]) -> String {
    if states.is_empty() {
        "none".into()
    } else {
        states.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
    }
}

/// The merchant action string that leads to `to` from a state.
fn action_to(to: Status) -> &'static str {
    ROWS.iter()
        .find(|r| r.kind == RowKind::Transition && r.trigger.kind == TriggerKind::Action && r.to == Some(to))
        .map_or("", |r| r.trigger.name)
}

/// The action strings that lead to `states`, joined with `sep`.
fn actions_to(states: &[Status], sep: &str) -> String {
    states.iter().map(|s| action_to(*s)).collect::<Vec<_>>().join(sep)
}

/// The grounds of a row: its basis, with the spec's words (or the sentence it is derived from).
fn row_grounds(row: &Row, basis: Basis) -> Grounds {
    let source = format!("States and transitions: {}", row.spec);
    match basis {
        Basis::Stated => Grounds::stated(source),
        Basis::Derived => Grounds::derived(source),
        Basis::Assumed => Grounds::assumed(format!("not shown: {}", row.unknown.first().copied().unwrap_or(row.spec))),
    }
}

#[cfg(test)]
mod tests;
