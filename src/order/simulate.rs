//! The engine: what the service answers to a POS action, what an update webhook or a service-side
//! trigger does to an order, and what the POS may do now. Every answer is read off the rows of
//! [`machine`](super::machine()); nothing here knows a transition the table does not hold.

use super::machine::{
    allowed_transitions, normalize_write, read_status, Basis, Condition, Row, RowKind, TriggerKind, CANCELLED, HANDED_OVER, OBSERVABLE,
    PENDING, PREPARING, PROBLEM_ACCEPTANCE_TIMEOUT, PROBLEM_INVALID_TRANSITION, PROBLEM_VALIDATION, READY, READ_VOCABULARY, REJECTED, ROWS,
    UPDATE_EVENTS, WRITE_VOCABULARY,
};
use crate::basis::{Grounds, PredictionBasis};
use crate::time;
use serde::Serialize;
use serde_json::{json, Map, Value};

/// The problem-type base; the spec writes it `{problem_base}` and clients match on the suffix.
pub const PROBLEM_BASE: &str = "{problem_base}";

/// 2026-08-12T00:00:00Z: orders created before it return `deliveredAt` null permanently.
pub const DELIVERED_AT_CUTOFF_UNIX: i64 = 1_786_492_800;

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
            "preparing" | "ready" | "handed_over" | "cancelled" => Ok(Self::Status(s.to_string())),
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
    fn target(&self) -> Option<&'static str> {
        match self {
            Self::Accept => Some(PREPARING),
            Self::Reject => Some(REJECTED),
            Self::Status(v) => normalize_write(v),
        }
    }

    /// The action whose body rules apply (`accept`, `reject`, or `status` for PUT status).
    fn name_for_body(&self) -> &'static str {
        match self {
            Self::Accept => "accept",
            Self::Reject => "reject",
            Self::Status(_) => "status",
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
            Self::DriverReassigned => "driver_reassigned",
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

struct OrderView {
    data: Map<String, Value>,
    status: &'static str,
    deadline: Deadline,
    expires_text: Option<String>,
    /// `order.createdAt`, else `receivedAt`, unix millis.
    created: Option<i64>,
    pickup: bool,
    /// The latest instant the order records (receivedAt, the transition timestamps, the last
    /// history row), unix millis: a simulated step never happens before it.
    floor_ms: Option<i64>,
}

fn invalid(msg: impl Into<String>) -> OrderInputError {
    OrderInputError::InvalidOrder(msg.into())
}

fn read_order(order: &Value) -> Result<OrderView, OrderInputError> {
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
                "order/status" => format!("{} ({})", d.message, OBSERVABLE.join(", ")),
                _ => d.message.clone(),
            },
        );
        return Err(invalid(why));
    }
    view_of(data.clone(), facts)
}

/// The view of an order whose facts are read: by [`read_order`] (the checker's reader over the
/// JSON), or by the service model from its typed order ([`crate::service`], which holds every
/// order it writes to the same facts; a test ties the two readers).
fn view_of(data: Map<String, Value>, facts: super::lint::OrderFacts) -> Result<OrderView, OrderInputError> {
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
    Ok(OrderView { data, status, deadline, expires_text, created: facts.created, pickup: facts.pickup, floor_ms: facts.latest })
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
fn condition_holds(cond: Condition, view: &OrderView, now: i64, unknown: &mut Vec<String>) -> Option<Basis> {
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

fn applies_from(row: &Row, status: &str) -> Option<Basis> {
    if row.from.contains(&status) {
        Some(Basis::Stated)
    } else if row.from_unknown && row.from_candidates.contains(&status) {
        Some(Basis::Assumed)
    } else {
        None
    }
}

/// The targets of merchant transitions from the order's status whose conditions hold now.
fn allowed_now(view: &OrderView, now: i64) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for row in ROWS {
        if row.kind == RowKind::Transition && row.trigger.kind == TriggerKind::Action && row.from.contains(&view.status) {
            let mut scratch = Vec::new();
            if let (Some(to), Some(_)) = (row.to, condition_holds(row.condition, view, now, &mut scratch)) {
                if !out.contains(&to) {
                    out.push(to);
                }
            }
        }
    }
    out
}

fn set_ts(data: &mut Map<String, Value>, field: &str, text: &str) {
    data.insert(field.to_string(), Value::String(text.to_string()));
}

/// The instant a step is simulated at: `now` (unix seconds), or the order's latest recorded
/// instant when `now` is before it (a step never happens before what the order already records).
fn effective_now(view: &OrderView, now: i64, unknown: &mut Vec<String>) -> i64 {
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

/// Who writes a simulated history row and what it carries.
struct Record {
    actor_type: &'static str,
    reason: Option<String>,
    /// The driver object of a driver row (assign, reassign, release).
    driver: Option<Value>,
}

impl Record {
    fn by(actor_type: &'static str) -> Self {
        Self { actor_type, reason: None, driver: None }
    }
}

/// The actorType the service writes for a row, and a note when it is assumed.
fn actor_of(row: &Row) -> (&'static str, Option<&'static str>) {
    match row.id {
        "accept" | "reject" | "ready" | "handed-over" => ("merchant", None),
        "driver-marks-ready" | "delivery-confirmed" => ("driver", None),
        "auto-accept" => ("system", Some("the actorType of the auto-accept history row is not shown (system assumed: the service accepts the order itself)")),
        "refund-or-incident" => ("operator", Some("the actorType of a refund or incident cancellation is not shown (operator assumed)")),
        "cancellation-by-service" => ("system", Some("which actor cancelled (customer, operator, timeout or failed webhook) is not known here (system assumed: it covers acceptance timeout and delivery failure)")),
        _ => ("system", Some("the actorType of driver rows is not shown (system assumed)")),
    }
}

/// The value `deliveredAt` takes on a confirmed delivery at `at`: `Ok(None)` when it stays null,
/// `Err(why)` when no delivery can be confirmed at that instant.
fn delivered_value(
    view: &OrderView,
    data: &Map<String, Value>,
    at: &str,
    at_ms: i64,
    unknown: &mut Vec<String>,
) -> Result<Option<String>, String> {
    match view.created {
        Some(c) if c < DELIVERED_AT_CUTOFF_UNIX * 1000 => {
            unknown.push("the order was created before 2026-08-12: deliveredAt stays null permanently (no backfill); HandedOver is the only sign of closure".into());
            return Ok(None);
        }
        None => unknown.push("the creation date cannot be read (order.createdAt, receivedAt): deliveredAt is set as for orders created on or after 2026-08-12".into()),
        _ => {}
    }
    let handed = data.get("handedOverAt").and_then(Value::as_str).map(str::to_string);
    if view.pickup {
        if let Some(h) = handed {
            return Ok(Some(h));
        }
    } else if let Some(h) = handed.as_deref().and_then(time::parse) {
        if at_ms <= h.unix_millis {
            return Err(format!(
                "a delivery confirmed at {at} is not later than handedOverAt {}: on delivery orders deliveredAt is later than handedOverAt",
                handed.as_deref().unwrap_or("")
            ));
        }
    }
    Ok(Some(at.to_string()))
}

/// Applies a row's effects at `at` (ISO text, unix millis) and appends the history row the
/// contract describes: a status change (fromStatus, toStatus, changedAt, actorType) or a driver
/// row (fromStatus equal to toStatus, with driver.event). Every simulated step goes through here,
/// so no step can forget its history row. `Err(why)` when the row cannot happen at `at`.
fn apply_row(
    view: &OrderView,
    row: &Row,
    at: &str,
    at_ms: i64,
    record: &Record,
    unknown: &mut Vec<String>,
) -> Result<Map<String, Value>, String> {
    let mut data = view.data.clone();
    let from = view.status;
    if let Some(to) = row.to {
        data.insert("status".into(), Value::String(to.into()));
    }
    for &field in row.sets {
        if field == "deliveredAt" {
            if let Some(v) = delivered_value(view, &data, at, at_ms, unknown)? {
                set_ts(&mut data, field, &v);
            }
        } else {
            set_ts(&mut data, field, at);
        }
    }
    for &field in row.clears {
        data.insert(field.to_string(), Value::Null);
    }
    // On pickup the customer has the order when the merchant hands it over.
    if row.sets.contains(&"handedOverAt") && view.pickup {
        if let Some(v) = delivered_value(view, &data, at, at_ms, unknown)? {
            set_ts(&mut data, "deliveredAt", &v);
        }
    }
    let status_change = row.to.is_some_and(|to| to != from);
    if status_change || record.driver.is_some() {
        let entry = json!({
            "fromStatus": from,
            "toStatus": row.to.unwrap_or(from),
            "changedAt": at,
            "actorType": record.actor_type,
            "actorId": Value::Null,
            "reason": record.reason,
            "driver": record.driver.clone().unwrap_or(Value::Null),
        });
        match data.get_mut("history") {
            Some(Value::Array(rows)) => rows.push(entry),
            _ => {
                unknown.push("the order had no history array: the simulated row starts one".into());
                data.insert("history".into(), Value::Array(vec![entry]));
            }
        }
        if record.actor_type != "system" || record.driver.is_some() {
            unknown.push("the actorId of simulated history rows is not shown (null)".into());
        }
    }
    Ok(data)
}

/// The 422 of a body that breaks the contract: nothing changes, the problem is a validation one
/// with `meta.errors`.
#[allow(clippy::too_many_arguments)]
fn validation_failed(
    current: &str,
    unchanged: Value,
    detail: String,
    meta: Value,
    row: &'static str,
    status: Grounds,
    problem_type: Grounds,
    unknown: Vec<String>,
    advice: String,
) -> Prediction {
    Prediction {
        http_status: 422,
        status: current.into(),
        order: unchanged,
        event: None,
        response: None,
        problem: Some(problem(PROBLEM_VALIDATION, "Validation failed", 422, detail, meta)),
        already_reached: false,
        row,
        basis: status.basis,
        bases: PredictionBasis {
            status,
            problem_type: Some(problem_type),
            meta: Some(Grounds::stated("Errors: meta shapes: validation 422 { errors: { <field path>: string[] } }")),
        },
        unknown,
        advice,
    }
}

fn problem(suffix: &str, title: &str, status: u16, detail: String, meta: Value) -> Value {
    json!({ "type": format!("{PROBLEM_BASE}/{suffix}"), "title": title, "status": status, "detail": detail, "meta": meta })
}

const CHAIN: &[&str] = &[PENDING, PREPARING, READY, HANDED_OVER];

/// The order is at or beyond the state the action asks for (Ready when asking ready, …).
fn at_or_beyond(current: &str, target: Option<&str>) -> bool {
    let Some(target) = target else { return false };
    if current == target {
        return true;
    }
    match (CHAIN.iter().position(|s| *s == current), CHAIN.iter().position(|s| *s == target)) {
        (Some(c), Some(t)) => c >= t,
        _ => false,
    }
}

fn list(states: &[&str]) -> String {
    if states.is_empty() {
        "none".into()
    } else {
        states.join(", ")
    }
}

/// The merchant action string that leads to `to` from a state.
fn action_to(to: &str) -> &'static str {
    ROWS.iter()
        .find(|r| r.kind == RowKind::Transition && r.trigger.kind == TriggerKind::Action && r.to == Some(to))
        .map_or("", |r| r.trigger.name)
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

/// Whether the state has no transition of any kind out of it (Rejected, Cancelled).
fn terminal_state(status: &str) -> bool {
    super::machine::is_terminal(status)
}

// ---------------------------------------------------------------------------------------------
// The four answers.

/// What the service answers to `action` on `order` at `now` (unix seconds), without the request
/// body (see [`predict_request`]): a reject without a body is answered 422 (reasonCode is
/// required); pass the body to [`predict_request`] to predict a reject.
pub fn predict_action(order: &Value, action: &Action, now: i64) -> Result<Prediction, OrderInputError> {
    predict_request(order, action, None, now)
}

/// What the service answers to `action` with its request `body` (the JSON bytes the POS sends:
/// `{}` for accept, `{ reasonCode, message }` for reject, `{ status, occurredAt }` for PUT status)
/// on `order` at `now` (unix seconds). A body that breaks the contract is answered 422 with its
/// `meta.errors`; the reject body's reasonCode is normalized as the contract says. `None`: the
/// body is not simulated (the answer rests on the state alone), except for reject, whose body has
/// a required reasonCode: no body is answered 422 with `meta.errors.reasonCode`.
pub fn predict_request(order: &Value, action: &Action, body: Option<&[u8]>, now: i64) -> Result<Prediction, OrderInputError> {
    let now = check_now(now)?;
    predict_on(read_order(order)?, action, body, now)
}

/// [`predict_request`] on an order the service model holds, its facts read from its typed order
/// rather than by parsing and checking its JSON again (`data` is that order's JSON object).
pub(crate) fn predict_request_on(
    data: Map<String, Value>,
    facts: super::lint::OrderFacts,
    action: &Action,
    body: Option<&[u8]>,
    now: i64,
) -> Result<Prediction, OrderInputError> {
    let now = check_now(now)?;
    predict_on(view_of(data, facts)?, action, body, now)
}

fn predict_on(mut view: OrderView, action: &Action, body: Option<&[u8]>, now: i64) -> Result<Prediction, OrderInputError> {
    let mut unknown: Vec<String> = Vec::new();
    let now = effective_now(&view, now, &mut unknown);
    let at = time::format_unix_seconds(now);
    let current = view.status;
    let order_key = view.data.get("orderKey").cloned().unwrap_or(Value::Null);
    // The order as it was, for a refusal's `order`: taken out of the view where it returns.
    macro_rules! unchanged {
        () => {
            Value::Object(std::mem::take(&mut view.data))
        };
    }

    // The request body, checked by the same rules as validateRequest.
    let mut action = action.clone();
    let mut reason: Option<(String, Basis)> = None;
    if let Some(bytes) = body {
        let report = crate::payload::order_action_body(action.name_for_body(), bytes, now);
        if let (Action::Status(_), Ok(doc)) = (&action, serde_json::from_slice::<Value>(bytes)) {
            if let Some(v) = doc.get("status").and_then(Value::as_str) {
                if v != action.name() {
                    unknown.push(format!("the body's status {v:?} is simulated (the action named {:?})", action.name()));
                    action = Action::Status(v.to_string());
                }
            }
        }
        let errors: Vec<&crate::diagnostic::Diagnostic> =
            report.diagnostics.iter().filter(|d| d.severity == crate::diagnostic::Severity::Error).collect();
        // A PUT status value outside the enum is answered below by its own row.
        let body_errors: Vec<&&crate::diagnostic::Diagnostic> =
            errors.iter().filter(|d| !(matches!(action, Action::Status(_)) && d.path == "status")).collect();
        if !body_errors.is_empty() {
            let mut meta_errors: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
            for d in &body_errors {
                meta_errors.entry(d.path.as_str()).or_default().push(d.message.as_str());
            }
            let state_refuses = !allowed_now(&view, now).contains(&action.target().unwrap_or(""));
            let status_grounds = if state_refuses {
                Grounds::assumed("not shown: the body breaks the contract (422) and the state refuses the call too (409); which the service checks first is not shown (the body is assumed first)")
            } else {
                Grounds::derived("Errors: 422 invalid body")
            };
            return Ok(validation_failed(
                current,
                unchanged!(),
                body_errors.iter().map(|d| d.message.as_str()).collect::<Vec<_>>().join("; "),
                json!({ "errors": meta_errors }),
                "invalid-body",
                status_grounds,
                Grounds::stated("Errors: known type suffixes (validation); 422 invalid body"),
                unknown,
                "fix the body (see meta.errors); do not retry unchanged".into(),
            ));
        }
        if let Action::Reject = action {
            if let Ok(doc) = serde_json::from_slice::<Value>(bytes) {
                if let Some(code) = doc.get("reasonCode").and_then(Value::as_str) {
                    reason = Some(if crate::payload::REASON_CODES.contains(&code) {
                        (code.to_string(), Basis::Stated)
                    } else {
                        unknown.push(format!("reasonCode {code:?} is not in the list: the service normalizes it to SYSTEM_ISSUE and returns it so in data.reason (Orders rule 2)"));
                        ("SYSTEM_ISSUE".to_string(), Basis::Stated)
                    });
                }
            }
        }
    } else if action == Action::Reject {
        // "POST reject | Body: reasonCode (required enum)": no body carries no reasonCode, which
        // is an invalid body (422) like a body without it.
        let message = "missing required field \"reasonCode\"";
        let status_grounds = if !allowed_now(&view, now).contains(&REJECTED) {
            Grounds::assumed("not shown: a reject without a reasonCode is an invalid body (422) and the state refuses the call too (409); which the service checks first is not shown (the body is assumed first)")
        } else {
            Grounds::derived("POST reject body: reasonCode (required enum); Errors: 422 invalid body")
        };
        unknown.push("no reject body given: predicted as a body without its required reasonCode; pass the body to predict a reject".into());
        return Ok(validation_failed(
            current,
            unchanged!(),
            message.into(),
            json!({ "errors": { "reasonCode": [message] } }),
            "invalid-body",
            status_grounds,
            Grounds::stated("Errors: known type suffixes (validation); 422 invalid body"),
            unknown,
            format!("send a reject body with a reasonCode ({}); do not retry unchanged", crate::payload::REASON_CODES.join(", ")),
        ));
    }

    // A PUT status value outside the body's enum is refused before any state is looked at.
    if let Action::Status(v) = &action {
        if normalize_write(v).is_none() {
            let row = super::machine::row(if v == "cancelled" { "put-cancelled" } else { "put-unknown-value" }).unwrap_or(&ROWS[0]);
            unknown.extend(row.unknown.iter().map(|s| s.to_string()));
            let message = format!("must be one of {}", WRITE_VOCABULARY.join(", "));
            let advice = if v == "cancelled" {
                "PUT status cancelled is not accepted: the merchant cannot cancel after acceptance through the REST API; before acceptance, reject the order".to_string()
            } else {
                let hint = WRITE_VOCABULARY.iter().find(|w| w.replace('_', "").eq_ignore_ascii_case(&v.replace('_', "")));
                match hint {
                    Some(h) => format!("the write vocabulary is snake_case: send \"{h}\""),
                    None => format!("send one of {}", WRITE_VOCABULARY.join(", ")),
                }
            };
            let status_grounds = if v == "cancelled" {
                Grounds::derived("States and transitions: PUT status cancelled is not accepted; PUT status body: status (required: preparing, ready, handed_over); Errors: 422 invalid body")
            } else {
                Grounds::derived("PUT status body: status (required: preparing, ready, handed_over); Errors: 422 invalid body")
            };
            return Ok(validation_failed(
                current,
                unchanged!(),
                format!("status {v:?} is not accepted"),
                json!({ "errors": { "status": [message] } }),
                row.id,
                status_grounds,
                Grounds::stated("Errors: known type suffixes (validation)"),
                unknown,
                advice,
            ));
        }
    }
    let name = action.name();

    // A transition row of this action from the current state whose condition holds.
    for row in ROWS.iter().filter(|r| r.kind == RowKind::Transition && r.trigger.kind == TriggerKind::Action && r.trigger.name == name) {
        if !row.from.contains(&current) {
            continue;
        }
        let Some(basis) = condition_holds(row.condition, &view, now, &mut unknown) else {
            continue;
        };
        unknown.extend(row.unknown.iter().map(|s| s.to_string()));
        let mut record = Record::by(actor_of(row).0);
        if action == Action::Reject {
            record.reason = reason.as_ref().map(|(code, _)| code.clone());
            if reason.is_some() {
                unknown.push("the rejection reason is stored (stated); that it shows as merchantStatusReason and as the history row's reason is assumed".into());
            }
        }
        let mut data = match apply_row(&view, row, &at, now * 1000, &record, &mut unknown) {
            Ok(d) => d,
            Err(why) => {
                unknown.push(why);
                view.data.clone()
            }
        };
        if let (Action::Reject, Some((code, _))) = (&action, &reason) {
            data.insert("merchantStatusReason".into(), Value::String(code.clone()));
        }
        let to = row.to.unwrap_or(current);
        let mut response = Map::new();
        response.insert("orderKey".into(), order_key.clone());
        response.insert("status".into(), Value::String(to.into()));
        match &action {
            Action::Accept => {
                response.insert("acceptedAt".into(), Value::String(at.clone()));
                response.insert("remoteOrderId".into(), view.data.get("remoteOrderId").cloned().unwrap_or(Value::Null));
            }
            Action::Reject => {
                response.insert("rejectedAt".into(), Value::String(at.clone()));
                response.insert("reason".into(), reason.as_ref().map_or(Value::Null, |(c, _)| Value::String(c.clone())));
            }
            Action::Status(_) => {
                response.insert("changedAt".into(), Value::String(at.clone()));
            }
        }
        let next = allowed_transitions(to);
        let advice = match (&action, to) {
            (Action::Accept, _) => format!(
                "accepted: the order is {to} (it passed through Accepted atomically; acceptedAt and preparingAt are set); next: PUT status {}",
                action_to(READY)
            ),
            (Action::Reject, _) => "rejected: Rejected is terminal; nothing more to do".to_string(),
            _ if next.is_empty() => format!("the order is {to}; no merchant transition is left (the service may still cancel it after a refund or incident)"),
            _ => format!("the order is {to}; next: {}", next.iter().map(|s| action_to(s)).collect::<Vec<_>>().join(" or ")),
        };
        let basis = basis.max(row.basis);
        return Ok(Prediction {
            http_status: row.http_status.unwrap_or(202),
            status: to.into(),
            order: Value::Object(data),
            event: row.event,
            response: Some(Value::Object(response)),
            problem: None,
            already_reached: false,
            row: row.id,
            basis,
            bases: PredictionBasis { status: row_grounds(row, basis), problem_type: None, meta: None },
            unknown,
            advice,
        });
    }

    // Refused: the most specific refusal row, then the terminal rows, then the generic one.
    let allowed = allowed_now(&view, now);
    let specific = ROWS.iter().find(|r| {
        r.kind == RowKind::Refusal && r.trigger.kind == TriggerKind::Action && r.trigger.name == name && r.from.contains(&current) && {
            let mut scratch = Vec::new();
            condition_holds(r.condition, &view, now, &mut scratch).is_some()
        }
    });
    let row = specific
        .or_else(|| {
            if allowed_transitions(current).is_empty() {
                super::machine::row(if terminal_state(current) { "terminal" } else { "no-merchant-transition" })
            } else {
                None
            }
        })
        .or_else(|| super::machine::row("invalid-transition"))
        .unwrap_or(&ROWS[0]);
    // "State already reached" is stated for one case only: PUT status ready on a Ready order.
    let reached = row.id == "ready-already-reached";
    let beyond = !reached && at_or_beyond(current, action.target());
    unknown.extend(row.unknown.iter().map(|s| s.to_string()));
    let meta = json!({ "currentStatus": current, "allowedTransitions": allowed });
    let meta_grounds = match (row.id, current) {
        ("accept-after-expiry", _) => Grounds::assumed("not shown: the meta of the acceptance-timeout 409 (the transition shape { currentStatus, allowedTransitions } is assumed)"),
        ("ready-already-reached", _) => Grounds::stated("States and transitions: 409 with meta.currentStatus Ready and allowedTransitions [HandedOver]"),
        (_, REJECTED) => Grounds::stated("Errors: transition 409 meta { currentStatus, allowedTransitions }; Rejected is terminal; empty allowedTransitions means a terminal state"),
        _ => Grounds::derived("Errors: transition 409 meta { currentStatus, allowedTransitions } (PascalCase); allowedTransitions read off the table's merchant transitions from the current state"),
    };
    let (suffix, title, detail, advice) = if row.problem_type == Some(PROBLEM_ACCEPTANCE_TIMEOUT) {
        let when = view.expires_text.clone().unwrap_or_default();
        (
            PROBLEM_ACCEPTANCE_TIMEOUT,
            "Acceptance window expired",
            format!("the acceptance deadline {when} has passed"),
            format!(
                "the acceptance window closed at {when} even though the order still reads Pending: do not retry accept{}",
                if allowed.is_empty() { String::new() } else { format!("; allowed now: {}", list(&allowed)) }
            ),
        )
    } else {
        let detail = format!("{} is not allowed while the order is {current}", action.request());
        let service_may = if current == HANDED_OVER { "; the service may still cancel it (refund or incident)" } else { "" };
        let advice = if reached {
            format!(
                "state already reached: the order is already {current}; continue with {}",
                allowed.iter().map(|s| action_to(s)).collect::<Vec<_>>().join(" or ")
            )
        } else if allowed.is_empty() && terminal_state(current) {
            format!("{current} is terminal (allowedTransitions is empty): do not retry")
        } else if allowed.is_empty() {
            format!(
                "no merchant transition is left from {current} (allowedTransitions is empty): do not retry{service_may}{}",
                if beyond { format!(" (the order is already past {})", action.target().unwrap_or("the target")) } else { String::new() }
            )
        } else if beyond {
            format!(
                "the order is already {current}, past {}; allowed now: {} ({})",
                action.target().unwrap_or("the target"),
                list(&allowed),
                allowed.iter().map(|s| action_to(s)).collect::<Vec<_>>().join(", ")
            )
        } else {
            format!(
                "the order is {current}; allowed now: {} ({})",
                list(&allowed),
                allowed.iter().map(|s| action_to(s)).collect::<Vec<_>>().join(", ")
            )
        };
        (PROBLEM_INVALID_TRANSITION, "Invalid state transition", detail, advice)
    };
    let status_grounds = row_grounds(row, row.basis);
    let type_grounds = if suffix == PROBLEM_ACCEPTANCE_TIMEOUT {
        Grounds::stated("States and transitions: 409 with type ending /acceptance-timeout")
    } else {
        Grounds::stated("Errors: 409 invalid state transition (type suffix invalid-state-transition)")
    };
    let bases = PredictionBasis { status: status_grounds, problem_type: Some(type_grounds), meta: Some(meta_grounds) };
    Ok(Prediction {
        http_status: row.http_status.unwrap_or(409),
        status: current.into(),
        order: unchanged!(),
        event: None,
        response: None,
        problem: Some(problem(suffix, title, 409, detail, meta)),
        already_reached: reached,
        row: row.id,
        basis: bases.overall(),
        bases,
        unknown,
        advice,
    })
}

/// Reads an OrderUpdateEvent's field as a string.
fn event_string<'e>(obj: &'e Map<String, Value>, field: &str, required: bool) -> Result<Option<&'e str>, String> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(Some(s)),
        None if !required => Ok(None),
        Some(Value::Null) if !required => Ok(None),
        None => Err(format!("missing required field {field:?}")),
        Some(_) => Err(format!("{field} must be a string")),
    }
}

/// The driver object of a history row written for a driver event.
fn driver_object(event: &str, from: Option<&Value>) -> Value {
    let full_name = from.and_then(|d| d.get("fullName")).cloned().unwrap_or(Value::Null);
    let mut d = json!({ "event": event, "code": Value::Null, "fullName": full_name });
    if event == "driver_reassigned" {
        d["previousCode"] = Value::Null;
    }
    d
}

/// The outcome of an update webhook the receiver cannot act on: still 200.
fn unusable_event(view: &OrderView, name: &str, why: String) -> EventOutcome {
    EventOutcome {
        order: Value::Object(view.data.clone()),
        status: view.status.into(),
        status_changed: false,
        receiver_http_status: 200,
        ignored: true,
        valid: false,
        problem: Some(why.clone()),
        event: name.into(),
        row: None,
        basis: Basis::Stated,
        grounds: Grounds::stated(
            "Endpoints the POS exposes: order update: always 200; Events rule 4: the receiver only communicates through the HTTP status",
        ),
        unknown: Vec::new(),
        note: format!("{why}: nothing is applied; answer 200 (the update route is always answered 200) and log it"),
    }
}

/// What an update webhook (`PUT {pos_base_url}/v1/order/{remoteId}/{remoteOrderId}/events`) does
/// to `order`. The receiver always answers 200: a body it cannot act on (no `event`, the former
/// `status` discriminator, a missing field) is a verdict with `valid: false`, never an error.
/// Errors are for the caller's own inputs only: an unreadable order, an event for another order.
pub fn apply_event(order: &Value, event: &Value) -> Result<EventOutcome, OrderInputError> {
    let view = read_order(order)?;
    let Value::Object(body) = event else {
        return Ok(unusable_event(&view, "", "the body is not a JSON object (OrderUpdateEvent)".into()));
    };
    let name = match body.get("event") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Ok(unusable_event(&view, "", "event must be a string".into())),
        None if body.contains_key("status") => return Ok(unusable_event(
            &view,
            "",
            "no \"event\": this is the pre-2026-08-12 shape (status field); since 2026-08-12 the discriminator is the field event and the former status field is no longer emitted".into(),
        )),
        None => return Ok(unusable_event(&view, "", "missing required field \"event\"".into())),
    };
    let current = view.status;
    let unchanged = Value::Object(view.data.clone());
    if !UPDATE_EVENTS.contains(&name) {
        let shown: String = name.chars().take(60).collect();
        return Ok(EventOutcome {
            order: unchanged,
            status: current.into(),
            status_changed: false,
            receiver_http_status: 200,
            ignored: true,
            valid: true,
            problem: None,
            event: shown.clone(),
            row: Some("unknown-update-event"),
            basis: Basis::Stated,
            grounds: Grounds::stated("OrderUpdateEvent: unknown future values are ignored with a 200"),
            unknown: Vec::new(),
            note: format!(
                "event {shown:?} is not one the spec lists: ignore it and answer 200 (new values may be added without a version change)"
            ),
        });
    }
    let key = match event_string(body, "orderKey", true) {
        Ok(k) => k.unwrap_or_default(),
        Err(why) => return Ok(unusable_event(&view, name, why)),
    };
    if let Err(why) = event_string(body, "remoteOrderId", true) {
        return Ok(unusable_event(&view, name, why));
    }
    if let Some(Value::String(own)) = view.data.get("orderKey") {
        if own != key {
            return Err(OrderInputError::OrderKeyMismatch { order: own.clone(), event: key.chars().take(60).collect() });
        }
    }
    let occurred = match event_string(body, "occurredAt", true) {
        Ok(o) => o.unwrap_or_default(),
        Err(why) => return Ok(unusable_event(&view, name, why)),
    };
    let Some(occurred_ms) = time::parse(occurred).map(|t| t.unix_millis) else {
        return Ok(unusable_event(
            &view,
            name,
            format!("occurredAt is not an ISO 8601 UTC timestamp: {:?}", occurred.chars().take(40).collect::<String>()),
        ));
    };

    let mut unknown = Vec::new();
    let candidates: Vec<&'static Row> = ROWS.iter().filter(|r| r.webhook == Some(name)).collect();
    let found = candidates.iter().find_map(|r| applies_from(r, current).map(|b| (*r, b)));
    let Some((row, from_basis)) = found else {
        let note = match (name, current) {
            ("cancelled", CANCELLED) => {
                "the order is already Cancelled: a repeated cancelled event changes nothing (deduplicate on X-Service-Delivery-Id)"
                    .to_string()
            }
            (_, REJECTED) => format!("Rejected is terminal: a {name} event for a rejected order is not shown in the spec; nothing changes"),
            _ => format!("a {name} event while the order is {current} is not shown in the spec; nothing changes"),
        };
        return Ok(EventOutcome {
            order: unchanged,
            status: current.into(),
            status_changed: false,
            receiver_http_status: 200,
            ignored: true,
            valid: true,
            problem: None,
            event: name.into(),
            row: None,
            basis: Basis::Assumed,
            grounds: Grounds::assumed(format!("not shown: {note}")),
            unknown: vec![note.clone()],
            note,
        });
    };
    unknown.extend(row.unknown.iter().map(|s| s.to_string()));
    // The step happens at occurredAt, never before what the order already records.
    let floor_secs = effective_now(&view, occurred_ms.div_euclid(1000), &mut unknown);
    let (at, at_ms) = if floor_secs * 1000 > occurred_ms {
        (time::format_unix_seconds(floor_secs), floor_secs * 1000)
    } else {
        (occurred.to_string(), occurred_ms)
    };
    let (actor, actor_note) = actor_of(row);
    let mut record = Record::by(actor);
    match name {
        "driver_assigned" => record.driver = Some(driver_object(name, body.get("driver"))),
        "driver_released" => record.driver = Some(driver_object(name, body.get("releasedDriver"))),
        "cancelled" => {
            record.reason = body.get("reason").and_then(Value::as_str).map(str::to_string);
        }
        _ => {}
    }
    if let Some(n) = actor_note {
        if record.driver.is_some() || row.to.is_some_and(|t| t != current) {
            unknown.push(n.to_string());
        }
    }
    let data = match apply_row(&view, row, &at, at_ms, &record, &mut unknown) {
        Ok(d) => d,
        Err(why) => {
            let note = format!("{why}; nothing is applied; answer 200");
            return Ok(EventOutcome {
                order: unchanged,
                status: current.into(),
                status_changed: false,
                receiver_http_status: 200,
                ignored: true,
                valid: true,
                problem: None,
                event: name.into(),
                row: Some(row.id),
                basis: Basis::Derived,
                grounds: Grounds::derived("Order: deliveredAt on delivery orders is later than handedOverAt"),
                unknown,
                note,
            });
        }
    };
    let status = data.get("status").and_then(Value::as_str).and_then(read_status).unwrap_or(current);
    let basis = from_basis.max(row.basis);
    let note = match (name, row.to) {
        ("cancelled", _) => format!(
            "the order is Cancelled{}; cancelledAt = occurredAt; answer 200",
            if current == HANDED_OVER { " after the handover (refund or incident)" } else { "" }
        ),
        ("delivered", Some(to)) => format!("the service closed the order on confirmed delivery: {current} → {to}, handedOverAt stays as it was (null when the merchant never reported the handover); answer 200"),
        ("delivered", None) => "delivery confirmed: deliveredAt set (status unchanged); answer 200".to_string(),
        ("driver_assigned", _) => "a driver is not a status: driverAssignedAt = occurredAt, the status does not move; answer 200 (it may arrive more than once)".to_string(),
        _ => "the driver was released: driverAssignedAt is cleared, the status does not move (expectedNext tells a reassignment follows); answer 200".to_string(),
    };
    Ok(EventOutcome {
        status_changed: status != current,
        order: Value::Object(data),
        status: status.into(),
        receiver_http_status: 200,
        ignored: false,
        valid: true,
        problem: None,
        event: name.into(),
        row: Some(row.id),
        basis,
        grounds: row_grounds(row, basis),
        unknown,
        note,
    })
}

/// What a service-side trigger does to `order` at `now` (unix seconds).
pub fn apply_trigger(order: &Value, trigger: ServiceTrigger, now: i64) -> Result<TriggerOutcome, OrderInputError> {
    let now = check_now(now)?;
    let view = read_order(order)?;
    let mut unknown = Vec::new();
    let now = effective_now(&view, now, &mut unknown);
    let at = time::format_unix_seconds(now);
    let current = view.status;
    let not_applied = |note: String, unknown: Vec<String>, grounds: Grounds| TriggerOutcome {
        order: Value::Object(view.data.clone()),
        status: current.into(),
        status_changed: false,
        applied: false,
        trigger: trigger.name(),
        row: None,
        webhook: None,
        event: None,
        basis: grounds.basis,
        grounds,
        unknown,
        note,
    };
    if trigger == ServiceTrigger::DriverReassigned && view.data.get("driverAssignedAt").is_none_or(Value::is_null) {
        return Ok(not_applied(
            "no driver is assigned (driverAssignedAt is null): there is no driver to reassign".into(),
            unknown,
            Grounds::derived("history[] driver object: driver_reassigned carries previousCode (the driver replaced)"),
        ));
    }
    for row in ROWS.iter().filter(|r| r.trigger.kind == TriggerKind::Service && r.trigger.name == trigger.name()) {
        let Some(from_basis) = applies_from(row, current) else {
            continue;
        };
        let Some(cond_basis) = condition_holds(row.condition, &view, now, &mut unknown) else {
            continue;
        };
        if from_basis == Basis::Assumed {
            unknown.push(format!("applying {} from {current} is not shown in the spec", row.id));
        }
        unknown.extend(row.unknown.iter().map(|s| s.to_string()));
        let (actor, actor_note) = actor_of(row);
        let mut record = Record::by(actor);
        if trigger == ServiceTrigger::DriverReassigned {
            record.driver = Some(driver_object("driver_reassigned", None));
        }
        if let Some(n) = actor_note {
            if record.driver.is_some() || row.to.is_some_and(|t| t != current) {
                unknown.push(n.to_string());
            }
        }
        let data = match apply_row(&view, row, &at, now * 1000, &record, &mut unknown) {
            Ok(d) => d,
            Err(why) => {
                return Ok(not_applied(why, unknown, Grounds::derived("Order: deliveredAt on delivery orders is later than handedOverAt")))
            }
        };
        let status = row.to.unwrap_or(current);
        let basis = from_basis.max(cond_basis).max(row.basis);
        return Ok(TriggerOutcome {
            order: Value::Object(data),
            status: status.into(),
            status_changed: status != current,
            applied: true,
            trigger: trigger.name(),
            row: Some(row.id),
            webhook: row.webhook,
            event: row.event,
            basis,
            grounds: row_grounds(row, basis),
            unknown,
            note: match row.to {
                Some(to) if to != current => format!("{current} → {to} ({})", row.trigger_text),
                _ => format!("{} (status unchanged)", row.trigger_text),
            },
        });
    }
    let note = match (trigger, current, view.deadline) {
        (ServiceTrigger::AutoAccept, PENDING, Deadline::At(_)) => {
            "not an auto-accept store (order.expiresAt is set): the order stays Pending until POST accept or reject".to_string()
        }
        _ => format!("no row of the table applies {} while the order is {current}; nothing changes", trigger.name()),
    };
    Ok(not_applied(note, unknown, Grounds::derived("States and transitions: no row of the table applies")))
}

/// What the POS may do with `order` at `now` (unix seconds), with the time left to accept.
pub fn next_actions(order: &Value, now: i64) -> Result<NextActions, OrderInputError> {
    let now = check_now(now)?;
    let view = read_order(order)?;
    let current = view.status;
    let mut actions = Vec::new();
    for row in ROWS.iter().filter(|r| r.kind == RowKind::Transition && r.trigger.kind == TriggerKind::Action && r.from.contains(&current)) {
        let mut scratch = Vec::new();
        if let (Some(basis), Some(to)) = (condition_holds(row.condition, &view, now, &mut scratch), row.to) {
            actions.push(NextAction { action: row.trigger.name, to, event: row.event, row: row.id, basis: basis.max(row.basis) });
        }
    }
    let mut service_may = Vec::new();
    for row in ROWS.iter().filter(|r| r.trigger.kind != TriggerKind::Action && r.trigger.name != "*") {
        let mut scratch = Vec::new();
        if let (Some(from_basis), Some(cond_basis)) = (applies_from(row, current), condition_holds(row.condition, &view, now, &mut scratch))
        {
            service_may.push(PendingChange {
                kind: row.trigger.kind,
                trigger: row.trigger.name,
                row: row.id,
                to: row.to,
                basis: from_basis.max(cond_basis).max(row.basis),
            });
        }
    }
    let pending_deadline = if current == PENDING {
        if let Deadline::At(ms) = view.deadline {
            Some(ms)
        } else {
            None
        }
    } else {
        None
    };
    let now_ms = now * 1000;
    let acceptance_expired = pending_deadline.is_some_and(|ms| now_ms >= ms);
    let seconds_left_to_accept = pending_deadline.map(|ms| (ms - now_ms).max(0) / 1000);
    let allowed = allowed_now(&view, now);
    let terminal = terminal_state(current);
    let merchant_action_left = !allowed_transitions(current).is_empty();
    let advice = match current {
        PENDING if acceptance_expired => {
            "the acceptance window has closed: accept would be answered 409 acceptance-timeout even though the order reads Pending"
                .to_string()
        }
        PENDING => match (seconds_left_to_accept, view.deadline) {
            (Some(s), _) => format!("accept or reject within {s} seconds"),
            (None, Deadline::None) => {
                "auto-accept store: answer the creation webhook with 200 and a remoteOrderId; the service accepts the order".to_string()
            }
            _ => "accept or reject; the deadline cannot be read (order.expiresAt)".to_string(),
        },
        PREPARING => {
            "prepare the order, then PUT status ready (the driver may mark it ready first: then continue with handed_over)".to_string()
        }
        READY => "hand the food over, then PUT status handed_over".to_string(),
        HANDED_OVER => {
            "no merchant action is left; the order is not terminal: the service may still cancel it (refund or incident)".to_string()
        }
        _ => format!("{current} is terminal: nothing left to do"),
    };
    Ok(NextActions {
        status: current,
        terminal,
        merchant_action_left,
        actions,
        allowed_transitions: allowed,
        expires_at: if pending_deadline.is_some() { view.expires_text.clone() } else { None },
        seconds_left_to_accept,
        acceptance_expired,
        service_may,
        advice,
    })
}

/// The observable statuses an order went through, read from its history (driver rows, which do not
/// change status, are skipped); falls back to the status alone. For highlighting the diagram.
pub fn history_path(order: &Value) -> Vec<String> {
    let data = match (order.get("status"), order.get("data")) {
        (None, Some(d)) if d.is_object() => d,
        _ => order,
    };
    let mut path: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        if READ_VOCABULARY.contains(&s) && path.last().map(String::as_str) != Some(s) {
            path.push(s.to_string());
        }
    };
    if let Some(rows) = data.get("history").and_then(Value::as_array) {
        for row in rows {
            if let Some(from) = row.get("fromStatus").and_then(Value::as_str) {
                push(from);
            }
            if let Some(to) = row.get("toStatus").and_then(Value::as_str) {
                push(to);
            }
        }
    }
    if let Some(s) = data.get("status").and_then(Value::as_str) {
        push(s);
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(expires: &str) -> Value {
        json!({
            "orderKey": "ord_AbCdEfGhIjKlMnOp", "status": "Pending", "remoteOrderId": "R-1",
            "receivedAt": "2026-08-20T12:00:00Z",
            "acceptedAt": null, "rejectedAt": null, "preparingAt": null, "readyAt": null,
            "driverAssignedAt": null, "handedOverAt": null, "deliveredAt": null, "cancelledAt": null,
            "history": [],
            "order": { "createdAt": "2026-08-20T11:59:58Z", "expiresAt": expires, "fulfillment": { "type": "delivery" } }
        })
    }

    fn at(s: &str) -> i64 {
        time::parse(s).unwrap().unix_seconds()
    }

    fn with_status(mut o: Value, status: &str) -> Value {
        o["status"] = json!(status);
        o
    }

    #[test]
    fn accept_before_the_deadline_cascades_to_preparing() {
        let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::Accept, at("2026-08-20T12:01:00Z")).unwrap();
        assert_eq!((p.http_status, p.status.as_str(), p.event), (202, PREPARING, Some(super::super::machine::EVENT_ACCEPTED)));
        assert_eq!(p.order["acceptedAt"], "2026-08-20T12:01:00Z");
        assert_eq!(p.order["preparingAt"], p.order["acceptedAt"]);
        assert_eq!(p.response.as_ref().unwrap()["remoteOrderId"], "R-1");
        assert!(p.problem.is_none() && !p.already_reached);
    }

    #[test]
    fn accept_at_or_after_the_deadline_is_an_acceptance_timeout() {
        for now in ["2026-08-20T12:05:00Z", "2026-08-21T00:00:00Z"] {
            let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::Accept, at(now)).unwrap();
            assert_eq!((p.http_status, p.status.as_str()), (409, PENDING));
            let problem = p.problem.unwrap();
            assert!(problem["type"].as_str().unwrap().ends_with("/acceptance-timeout"));
            assert_eq!(problem["meta"]["currentStatus"], "Pending");
            assert_eq!(problem["meta"]["allowedTransitions"], json!(["Rejected"]));
            assert_eq!(p.order["acceptedAt"], Value::Null);
        }
    }

    #[test]
    fn every_service_trigger_of_the_table_can_be_applied() {
        // nextActions().serviceMay offers these; applyTrigger must accept each of them.
        for row in ROWS.iter().filter(|r| r.trigger.kind == TriggerKind::Service) {
            assert!(
                ServiceTrigger::parse(row.trigger.name).is_ok(),
                "row {} has trigger {} that apply_trigger rejects",
                row.id,
                row.trigger.name
            );
        }
    }

    #[test]
    fn ready_on_a_handed_over_order_is_past_ready_with_no_merchant_action_left() {
        let order = json!({"orderKey": "ord_0123456789abcdEF", "status": "HandedOver", "receivedAt": "2026-08-20T12:00:00Z",
            "acceptedAt": "2026-08-20T12:01:00Z", "preparingAt": "2026-08-20T12:01:00Z", "readyAt": "2026-08-20T12:10:00Z",
            "handedOverAt": "2026-08-20T12:20:00Z", "history": [], "order": null});
        let p = predict_action(&order, &Action::parse("ready").unwrap(), 1_787_230_000).unwrap();
        assert_eq!((p.http_status, p.row), (409, "no-merchant-transition"));
        // "state already reached" is stated for PUT status ready on a Ready order only.
        assert!(!p.already_reached);
        assert!(p.advice.contains("already past Ready") && p.advice.contains("do not retry"), "{}", p.advice);
        // "HandedOver | cancellation by refund or incident after handover | … | Cancelled": not terminal.
        assert!(!p.advice.contains("is terminal") && p.advice.contains("refund or incident"), "{}", p.advice);
    }

    #[test]
    fn ready_when_ready_is_already_reached() {
        let o = with_status(pending("2026-08-20T12:05:00Z"), READY);
        let p = predict_action(&o, &Action::parse("ready").unwrap(), at("2026-08-20T12:30:00Z")).unwrap();
        assert_eq!((p.http_status, p.row, p.already_reached), (409, "ready-already-reached", true));
        let meta = &p.problem.as_ref().unwrap()["meta"];
        assert_eq!(meta["currentStatus"], "Ready");
        assert_eq!(meta["allowedTransitions"], json!(["HandedOver"]));
        assert!(p.advice.contains("continue with handed_over"), "{}", p.advice);
    }

    #[test]
    fn terminal_states_answer_an_empty_allowed_list() {
        for s in [REJECTED, CANCELLED, HANDED_OVER] {
            for a in ["accept", "reject", "preparing", "ready", "handed_over"] {
                // A reject carries its required reasonCode, so that the state answers.
                let body = (a == "reject").then_some(br#"{"reasonCode": "STORE_CLOSED"}"#.as_slice());
                let p = predict_request(&with_status(pending("2026-08-20T12:05:00Z"), s), &Action::parse(a).unwrap(), body, 0).unwrap();
                assert_eq!(p.http_status, 409, "{s} {a}");
                assert_eq!(p.problem.unwrap()["meta"]["allowedTransitions"], json!([]), "{s} {a}");
                assert!(p.advice.contains("do not retry"), "{}", p.advice);
            }
        }
    }

    #[test]
    fn cancelled_and_garbage_are_refused_before_state() {
        let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::parse("cancelled").unwrap(), 0).unwrap();
        assert_eq!((p.http_status, p.row), (422, "put-cancelled"));
        assert!(p.problem.unwrap()["type"].as_str().unwrap().ends_with("/validation"));
        let p = predict_action(&pending("2026-08-20T12:05:00Z"), &Action::parse("status:Ready").unwrap(), 0).unwrap();
        assert_eq!((p.http_status, p.row), (422, "put-unknown-value"));
        assert!(p.advice.contains("\"ready\""), "{}", p.advice);
    }

    #[test]
    fn action_parser() {
        assert_eq!(Action::parse("accept").unwrap(), Action::Accept);
        assert_eq!(Action::parse("handed_over").unwrap(), Action::Status("handed_over".into()));
        assert_eq!(Action::parse("status:x").unwrap(), Action::Status("x".into()));
        assert_eq!(Action::parse("cancel").unwrap_err().code(), "UNKNOWN_ACTION");
        assert_eq!(ServiceTrigger::parse("nope").unwrap_err().code(), "UNKNOWN_TRIGGER");
        for t in ServiceTrigger::ALL {
            assert_eq!(ServiceTrigger::parse(t.name()).unwrap(), *t);
            assert!(ROWS.iter().any(|r| r.trigger.name == t.name()), "{}", t.name());
        }
    }

    #[test]
    fn bad_inputs_are_errors_with_codes() {
        let a = Action::Accept;
        assert_eq!(predict_action(&json!([]), &a, 0).unwrap_err().code(), "INVALID_ORDER");
        assert_eq!(predict_action(&json!({"status": "Accepted"}), &a, 0).unwrap_err().code(), "INVALID_ORDER");
        assert_eq!(predict_action(&json!({"status": "DriverAssigned"}), &a, 0).unwrap_err().code(), "INVALID_ORDER");
        assert_eq!(
            predict_action(&json!({"status": "Pending", "order": {"expiresAt": "soon"}}), &a, 0).unwrap_err().code(),
            "INVALID_ORDER"
        );
        assert_eq!(predict_action(&json!({"status": "Pending"}), &a, -1).unwrap_err().code(), "INVALID_NOW");
        assert_eq!(predict_action(&json!({"status": "Pending"}), &a, i64::MAX).unwrap_err().code(), "INVALID_NOW");
        let o = pending("2026-08-20T12:05:00Z");
        // "Order update … Always 200": a body the receiver cannot act on is a verdict, not an error.
        let v = apply_event(&o, &json!("x")).unwrap();
        assert!(!v.valid && v.ignored && v.receiver_http_status == 200);
        let v = apply_event(&o, &json!({"status": "cancelled"})).unwrap();
        assert!(!v.valid && v.problem.unwrap().contains("2026-08-12"));
        let e =
            json!({"orderKey": "ord_0000000000000000", "remoteOrderId": "R-1", "event": "cancelled", "occurredAt": "2026-08-20T12:00:00Z"});
        assert_eq!(apply_event(&o, &e).unwrap_err().code(), "ORDER_KEY_MISMATCH");
        for code in ERROR_CODES {
            assert!(code.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'));
        }
    }

    #[test]
    fn envelope_is_accepted() {
        let o = json!({ "message": "ok", "data": pending("2026-08-20T12:05:00Z") });
        let p = predict_request(&o, &Action::Reject, Some(br#"{"reasonCode": "STORE_CLOSED"}"#), at("2026-08-20T12:01:00Z")).unwrap();
        assert_eq!((p.http_status, p.status.as_str()), (202, REJECTED));
        assert_eq!(p.order["rejectedAt"], "2026-08-20T12:01:00Z");
        assert_eq!(history_path(&o), vec!["Pending".to_string()]);
    }

    #[test]
    fn next_actions_counts_down_the_deadline() {
        let o = pending("2026-08-20T12:05:00Z");
        let n = next_actions(&o, at("2026-08-20T12:04:00Z")).unwrap();
        assert_eq!(n.seconds_left_to_accept, Some(60));
        assert!(!n.acceptance_expired);
        assert_eq!(n.actions.iter().map(|a| a.action).collect::<Vec<_>>(), vec!["accept", "reject"]);
        let n = next_actions(&o, at("2026-08-20T12:06:00Z")).unwrap();
        assert_eq!((n.seconds_left_to_accept, n.acceptance_expired), (Some(0), true));
        assert_eq!(n.actions.iter().map(|a| a.action).collect::<Vec<_>>(), vec!["reject"]);
        assert_eq!(n.allowed_transitions, vec![REJECTED]);
        let n = next_actions(&with_status(o, READY), 0).unwrap();
        assert_eq!(n.seconds_left_to_accept, None);
        assert_eq!(n.actions.iter().map(|a| a.action).collect::<Vec<_>>(), vec!["handed_over"]);
    }
}

#[cfg(test)]
mod body_tests {
    use super::*;

    fn pending() -> Value {
        json!({
            "orderKey": "ord_AbCdEfGhIjKlMnOp", "storeId": 1, "brandId": 1, "status": "Pending", "merchantStatusReason": null,
            "remoteOrderId": "R-1", "receivedAt": "2026-08-20T12:00:00Z",
            "acceptedAt": null, "rejectedAt": null, "preparingAt": null, "readyAt": null,
            "driverAssignedAt": null, "handedOverAt": null, "deliveredAt": null, "cancelledAt": null,
            "history": [{"fromStatus": null, "toStatus": "Pending", "changedAt": "2026-08-20T12:00:00Z", "actorType": "system",
                         "actorId": null, "reason": null, "driver": null}],
            "order": null
        })
    }

    #[test]
    fn reject_takes_its_body_and_normalizes_an_unknown_reason_code() {
        // Orders rule 2: "A reasonCode outside that set does not fail: it is normalized to SYSTEM_ISSUE
        // and returned so in data.reason. It is never a 422."
        let body = br#"{"reasonCode": "KITCHEN_ON_FIRE", "message": "sorry"}"#;
        let p = predict_request(&pending(), &Action::Reject, Some(body), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 202);
        assert_eq!(p.response.as_ref().unwrap()["reason"], "SYSTEM_ISSUE");
        assert_eq!(p.order["merchantStatusReason"], "SYSTEM_ISSUE");
        let last = p.order["history"].as_array().unwrap().last().unwrap().clone();
        assert_eq!((last["toStatus"].as_str(), last["actorType"].as_str()), (Some("Rejected"), Some("merchant")));
        let p = predict_request(&pending(), &Action::Reject, Some(br#"{"reasonCode": "STORE_CLOSED"}"#), 1_787_227_260).unwrap();
        assert_eq!(p.response.unwrap()["reason"], "STORE_CLOSED");
        // "reasonCode (required enum)": without it the body is invalid (422).
        let p = predict_request(&pending(), &Action::Reject, Some(br#"{"message": "no code"}"#), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 422);
        assert!(p.problem.unwrap()["meta"]["errors"]["reasonCode"].is_array());
    }

    #[test]
    fn reject_without_a_body_is_a_422_for_its_required_reason_code() {
        // "POST reject | Body: reasonCode (required enum)"; Errors: "422 | invalid body".
        let order = pending();
        let p = predict_action(&order, &Action::Reject, 1_787_227_260).unwrap();
        assert_eq!((p.http_status, p.status.as_str(), p.row, p.event), (422, PENDING, "invalid-body", None));
        assert_eq!(p.order, order, "a refusal changes nothing");
        assert!(p.response.is_none());
        let problem = p.problem.unwrap();
        assert!(problem["type"].as_str().unwrap().ends_with("/validation"), "{problem}");
        assert_eq!(problem["status"], 422);
        assert_eq!(problem["meta"]["errors"], json!({ "reasonCode": ["missing required field \"reasonCode\""] }));
        assert_eq!(p.basis, Basis::Derived);
        assert!(p.bases.status.source.contains("reasonCode (required enum)"), "{}", p.bases.status.source);
        assert!(p.advice.contains("reasonCode"), "{}", p.advice);
        // The same answer as a body without reasonCode.
        let b = predict_request(&order, &Action::Reject, Some(br#"{"message": "closed"}"#), 1_787_227_260).unwrap();
        assert_eq!((b.http_status, &b.problem.unwrap()["meta"]["errors"]), (422, &problem["meta"]["errors"]));
        // On a state that refuses the call too, which comes first is not shown: the body is assumed first.
        let rejected = predict_request(&order, &Action::Reject, Some(br#"{"reasonCode": "STORE_CLOSED"}"#), 1_787_227_260).unwrap().order;
        let p = predict_action(&rejected, &Action::Reject, 1_787_227_300).unwrap();
        assert_eq!((p.http_status, p.basis), (422, Basis::Assumed));
    }

    #[test]
    fn accept_body_with_remote_order_id_is_invalid() {
        // "Body: empty JSON object; remoteOrderId must not be sent."
        let p = predict_request(&pending(), &Action::Accept, Some(br#"{"remoteOrderId": "X"}"#), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 422);
        let p = predict_request(&pending(), &Action::Accept, Some(b"{}"), 1_787_227_260).unwrap();
        assert_eq!(p.http_status, 202);
        assert!(p.response.as_ref().unwrap().get("preparingAt").is_none(), "preparingAt is not included");
    }

    #[test]
    fn every_step_passes_the_order_checker() {
        let check = |o: &Value| {
            let r = crate::order::check_order(&serde_json::to_vec(o).unwrap(), &crate::order::CheckOptions::default());
            assert!(r.ok, "{:#?}", r.diagnostics);
        };
        let o = pending();
        check(&o);
        let p = predict_action(&o, &Action::Accept, 1_787_227_260).unwrap();
        check(&p.order);
        let p = predict_action(&p.order, &Action::parse("ready").unwrap(), 1_787_227_900).unwrap();
        check(&p.order);
        let p = predict_action(&p.order, &Action::parse("handed_over").unwrap(), 1_787_228_000).unwrap();
        check(&p.order);
        let t = apply_trigger(&p.order, ServiceTrigger::RefundOrIncident, 1_787_229_000).unwrap();
        assert_eq!(t.status, "Cancelled");
        check(&t.order);
    }
}
