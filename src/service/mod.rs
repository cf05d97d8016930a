//! The service model: one model of the Merchant Order and Menu Integration Service, pure (no I/O,
//! no clock: `now` is passed in), kept as state by the sandbox and answering every order endpoint
//! with the same code that answers the toolkit's predictions.
//!
//! - [`Service::handle`]: a REST request → the answer (status, body, `Retry-After`). The stateless
//!   checks are [`validate_request`](crate::payload::validate_request)'s; the state's answers are
//!   the order engine's ([`predict_request`](crate::order::predict_request),
//!   [`apply_event`](crate::order::apply_event), [`apply_trigger`](crate::order::apply_trigger)),
//!   applied to the stored order. Nothing here decides a transition.
//! - [`Service::control`]: the other actors (a customer orders or cancels, a driver is assigned,
//!   released, marks the order ready or confirms the delivery, an operator cancels or refunds).
//! - [`Service::due`] / [`Service::next_due`]: the deliveries to send now (signed), after firing
//!   the timers due by `now` (acceptance timeouts, retries).
//! - [`Service::answered`]: the POS's answer to a delivery attempt, and what follows (the
//!   remoteOrderId kept, an auto-accept, a retry, a cancellation after the last failed attempt).
//!
//! What the contract does not show is an [`Options`] field with an assumed default.
//!
//! ```
//! use poscheck::service::{Service, Request};
//! let now = 1_790_000_000_000; // unix milliseconds
//! let mut sb = Service::new(None, Default::default(), 1).unwrap();
//! let key = sb.config().clients[0].api_key.clone();
//! let created = sb.control_json(r#"{"action":"createOrder","store":"STORE-1"}"#, now).unwrap();
//! let attempts = sb.due(now, now / 1000);               // the creation webhook, signed
//! assert_eq!(attempts.len(), 1);
//! sb.answered(attempts[0].attempt, 200, br#"{"remoteOrderId":"R-1"}"#, 40, now);
//! let order_key = created.order.unwrap().order_key;
//! let answer = sb.handle(&Request {
//!     method: "POST", target: &format!("/api/v1/Orders/{order_key}/accept"), api_key: Some(&key),
//!     schema_version: Some("1.0"), idempotency_key: Some("0b0c7c1e-3a2b-4c5d-8e9f-0a1b2c3d4e5f"),
//!     content_type: Some("application/json"), body: b"{}",
//! }, now + 5_000);
//! assert_eq!(answer.status, 202);
//! ```

pub mod config;
pub mod controls;
pub mod ids;
pub mod journal;
pub mod menu;
pub mod order;
mod outbox;
mod rest;

pub use config::{Client, ClientInput, Config, ConfigError, ConfigInput, Faults, Options, Store, StoreInput};
pub use ids::Ids;
pub use order::{ActorType, HistoryDriver, HistoryRow, Instant, Order, OrderContent, Status};
pub use outbox::{delivery_log_line, rest_log_line, Attempt, Delivery, DeliveryKind, DeliveryState, PosAnswer, Settled};
pub use rest::{Answer, Request};

use crate::contract::{DriverEvent, ExpectedNext, FulfillmentType, UpdateEvent};
use crate::order::Who;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap, VecDeque};

/// An order as the model keeps it: the contract's order and what the service knows beside it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoredOrder {
    /// The order number (the list's sort key and cursor).
    pub number: u64,
    /// The owning client (index in the config).
    pub client: usize,
    /// The store's remoteId.
    pub store: String,
    /// The driver assigned now: code, fullName, phone.
    pub driver: Option<(String, String, Option<String>)>,
    /// The acceptance timeout job's timer (unix ms, sequence), until it runs or is cancelled.
    #[serde(default)]
    pub timeout_job: Option<(i64, u64)>,
    /// The test knobs the order was created with.
    #[serde(default)]
    pub knobs: OrderKnobs,
    /// The order.
    pub order: Order,
    /// The order's detail answer and list item as last written, until the order changes (every
    /// change goes through `order_mut`, which drops them): reads are most of what a POS sends.
    #[serde(skip)]
    pub(crate) rendered: Rendered,
}

/// Test knobs of one order (the `createOrder` control's `autoAccept` and `readyByDriverOnAccept`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OrderKnobs {
    /// Overrides the store's autoAccept for this order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auto_accept: Option<bool>,
    /// The driver marks it ready as soon as the POS accepts it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ready_by_driver_on_accept: bool,
}

/// JSON written from a stored order, kept until it changes. Never part of the state or of equality.
#[derive(Debug, Clone, Default)]
pub(crate) struct Rendered {
    pub(crate) detail: Option<Vec<u8>>,
    pub(crate) item: Option<Vec<u8>>,
}

impl PartialEq for Rendered {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A timer of the model.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Timer {
    /// The acceptance timeout job of an order.
    AcceptanceTimeout {
        /// The order.
        order_key: String,
    },
    /// An attempt of a delivery.
    Deliver {
        /// The delivery.
        delivery_id: String,
    },
    /// A menu change is applied.
    MenuChange {
        /// The change.
        change_id: String,
    },
}

/// A control that cannot be carried out, with a stable [`code`](Self::code).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ControlError {
    /// The JSON is not a control.
    #[error("invalid control: {0}")]
    Invalid(String),
    /// No such order, store or delivery.
    #[error("{0}")]
    NotFound(String),
    /// The order is in a state where this does not apply (the engine's note says why).
    #[error("{0}")]
    NotApplicable(String),
    /// A bound of the sandbox is reached.
    #[error("{0}")]
    Limit(String),
}

impl ControlError {
    /// `INVALID_CONTROL`, `NOT_FOUND`, `NOT_APPLICABLE` or `LIMIT`.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Invalid(_) => "INVALID_CONTROL",
            Self::NotFound(_) => "NOT_FOUND",
            Self::NotApplicable(_) => "NOT_APPLICABLE",
            Self::Limit(_) => "LIMIT",
        }
    }
}

/// One line of an order to create.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewItem {
    /// The POS's product code.
    pub remote_code: String,
    /// The product's name.
    #[serde(default)]
    pub name: Option<String>,
    /// How many (default 1).
    #[serde(default)]
    pub quantity: Option<i64>,
    /// Price of one (default 10.5).
    #[serde(default)]
    pub unit_price: Option<f64>,
    /// The customer's note.
    #[serde(default)]
    pub note: Option<String>,
}

/// What the other actors do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase", deny_unknown_fields)]
pub enum Control {
    /// A customer places an order (defaults: the first store, delivery, one item, paid by card).
    #[serde(rename_all = "camelCase")]
    CreateOrder {
        /// The store's remoteId.
        #[serde(default)]
        store: Option<String>,
        /// `delivery` or `pickup`.
        #[serde(default, rename = "type")]
        kind: Option<String>,
        /// The lines.
        #[serde(default)]
        items: Option<Vec<NewItem>>,
        /// `card`, `cash` or `bips`.
        #[serde(default)]
        payment: Option<String>,
        /// The customer's note.
        #[serde(default)]
        customer_note: Option<String>,
        /// Express delivery.
        #[serde(default)]
        express: Option<bool>,
        /// Accepted by the service once the POS answers the creation webhook, as at a store with
        /// autoAccept (default: the store's setting). A test knob: the probe uses it so that update
        /// webhooks can be exercised without the POS's REST calls.
        #[serde(default)]
        auto_accept: Option<bool>,
        /// The driver marks the order ready in the driver's app the moment the POS accepts it, so
        /// that the POS's own PUT status `ready` meets the 409 with `currentStatus: Ready`
        /// (default false). A test knob, used by the probe.
        #[serde(default)]
        ready_by_driver_on_accept: Option<bool>,
    },
    /// A driver is assigned (another while one is assigned: a reassignment).
    #[serde(rename_all = "camelCase")]
    AssignDriver {
        /// The order.
        order_key: String,
        /// The driver's name (default "Ana Pérez").
        #[serde(default)]
        full_name: Option<String>,
        /// International format, or none.
        #[serde(default)]
        phone: Option<String>,
        /// The driver's code (generated when missing).
        #[serde(default)]
        code: Option<String>,
    },
    /// The driver is released.
    #[serde(rename_all = "camelCase")]
    ReleaseDriver {
        /// The order.
        order_key: String,
        /// Why (free text).
        #[serde(default)]
        reason: Option<String>,
    },
    /// The driver marks the order ready in the driver's own app.
    #[serde(rename_all = "camelCase")]
    MarkReadyByDriver {
        /// The order.
        order_key: String,
    },
    /// The driver confirms the delivery.
    #[serde(rename_all = "camelCase")]
    Deliver {
        /// The order.
        order_key: String,
    },
    /// The customer or an operator cancels.
    #[serde(rename_all = "camelCase")]
    Cancel {
        /// The order.
        order_key: String,
        /// `customer` (default) or `operator`.
        #[serde(default)]
        by: Option<String>,
        /// The comment or the chosen reason.
        #[serde(default)]
        reason: Option<String>,
    },
    /// A refund or an incident after the handover cancels the order.
    #[serde(rename_all = "camelCase")]
    Refund {
        /// The order.
        order_key: String,
        /// Why (default "refund").
        #[serde(default)]
        reason: Option<String>,
    },
}

/// What a control did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ControlOutcome {
    /// The order after it.
    pub order: Option<Order>,
    /// The deliveries it queued (ids).
    pub deliveries: Vec<String>,
    /// What happened, in a sentence.
    pub note: String,
}

/// An entry of the idempotency cache.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct IdempotencyEntry {
    client: usize,
    key: String,
    fingerprint: [u8; 32],
    at_ms: i64,
    answer: Answer,
}

/// The rate windows of one API key.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RateWindows {
    minute: i64,
    in_minute: u32,
    hour: VecDeque<i64>,
}

/// The `type` of a problem whose suffix the contract does not show (400, 401, 429, 502, 503):
/// RFC 7807's "about:blank" (the problem has no semantics beyond its status), assumed.
pub const NO_TYPE: &str = "about:blank";

/// Idempotency entries kept at most (beyond the 24 h TTL, the oldest go first): four API keys at
/// the stated 1,000 requests an hour for 24 hours; about 650 bytes each, 65 MB in all, within the
/// memory the sandbox's module reserves at start.
pub const MAX_IDEMPOTENCY_ENTRIES: usize = 100_000;

/// Deliveries kept at most (the oldest settled ones go first).
pub const MAX_DELIVERIES: usize = 200_000;

/// The model's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Service {
    config: Config,
    options: Options,
    seed: u64,
    ids: Ids,
    next_number: u64,
    orders: Vec<StoredOrder>,
    #[serde(skip)]
    index: HashMap<String, usize>,
    deliveries: VecDeque<Delivery>,
    #[serde(skip)]
    delivery_index: HashMap<String, u64>,
    delivery_base: u64,
    /// Written as `timers`, a list of `(at, seq, timer)`.
    #[serde(rename = "timers", with = "timer_list")]
    timer_queue: BTreeMap<(i64, u64), Timer>,
    timer_seq: u64,
    next_attempt: u64,
    in_flight: BTreeMap<u64, (String, bool)>,
    /// The attempts in flight as sent, for the journal.
    #[serde(skip)]
    sending: BTreeMap<u64, Attempt>,
    /// REST calls and delivery attempts, one sequence (not part of the state a face saves).
    #[serde(skip)]
    journal: journal::Journal,
    idempotency: VecDeque<IdempotencyEntry>,
    #[serde(skip)]
    idem_index: HashMap<(usize, String), usize>,
    idem_base: usize,
    #[serde(skip)]
    rates: HashMap<usize, RateWindows>,
    /// The menu half: catalogs, store layers, changes.
    #[serde(default)]
    menu: menu::MenuState,
}

/// The timer queue written as a list of `(at, seq, timer)`, as the state has always kept it.
mod timer_list {
    use super::Timer;
    use serde::{Deserialize, Deserializer, Serializer};
    use std::collections::BTreeMap;

    pub fn serialize<S: Serializer>(queue: &BTreeMap<(i64, u64), Timer>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(queue.iter().map(|(&(at, seq), t)| (at, seq, t)))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<(i64, u64), Timer>, D::Error> {
        let list: Vec<(i64, u64, Timer)> = Vec::deserialize(d)?;
        Ok(list.into_iter().map(|(at, seq, t)| ((at, seq), t)).collect())
    }
}

fn now_secs(now_ms: i64) -> i64 {
    now_ms.div_euclid(1000).clamp(0, crate::order::MAX_NOW)
}

fn iso(now_ms: i64) -> String {
    crate::time::format_unix_seconds(now_secs(now_ms))
}

impl Service {
    /// A service for the account `config` (`None`: the default account), with `options`, its ids
    /// drawn from `seed`.
    pub fn new(config: Option<ConfigInput>, options: Options, seed: u64) -> Result<Self, ConfigError> {
        options.check()?;
        // The account's generated secret and keys come from one stream of the seed, the ids of
        // orders and deliveries from another (the same after a reset).
        let config = Config::resolve(config, &mut Ids::new(seed))?;
        Ok(Self { config, options, ..Self::empty(seed) })
    }

    /// The config and options as JSON text (`{ config, options }`), for a face to parse.
    pub fn from_json(config: &str, options: &str, seed: u64) -> Result<Self, ConfigError> {
        let config: Option<ConfigInput> = if config.trim().is_empty() || config.trim() == "null" {
            None
        } else {
            Some(serde_json::from_str(config).map_err(|e| ConfigError::Shape(e.to_string()))?)
        };
        let options: Options = if options.trim().is_empty() || options.trim() == "null" {
            Options::default()
        } else {
            serde_json::from_str(options).map_err(|e| ConfigError::Shape(format!("options: {e}")))?
        };
        Self::new(config, options, seed)
    }

    /// The resolved account.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The options in force.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// Sets the problem-type base (a face sets its own URL once it listens).
    pub fn set_problem_base(&mut self, base: &str) {
        self.options.problem_base = base.trim_end_matches('/').to_string();
    }

    /// Sets the faults injected on the REST side.
    pub fn set_faults(&mut self, faults: Faults) -> Result<(), ConfigError> {
        let mut o = self.options.clone();
        o.faults = faults;
        o.check()?;
        self.options = o;
        Ok(())
    }

    /// Forgets every order, delivery, timer, idempotency entry, rate window and journal entry; the
    /// account and the options stay, the ids start again from the seed, and the journal's
    /// numbering goes on.
    pub fn reset(&mut self) {
        let mut journal = std::mem::take(&mut self.journal);
        journal.clear();
        let fresh = Self { config: self.config.clone(), options: self.options.clone(), journal, ..Self::empty(self.seed) };
        *self = fresh;
    }

    /// The journal: REST calls and delivery attempts under one sequence.
    pub fn journal(&self) -> &journal::Journal {
        &self.journal
    }

    /// Journals a REST call and the answer [`handle`](Self::handle) gave it at `now_ms` (a face
    /// calls it after each `handle`; the model's own tests and predictions need not).
    pub fn record_call(&mut self, request: &Request, answer: &Answer, now_ms: i64) {
        self.journal.record(request, answer, now_ms);
    }

    fn empty(seed: u64) -> Self {
        Self {
            config: Config { secret: String::new(), pos: String::new(), clients: Vec::new() },
            options: Options::default(),
            seed,
            ids: Ids::new(seed ^ 0xA5A5_A5A5),
            next_number: 1,
            orders: Vec::new(),
            index: HashMap::new(),
            deliveries: VecDeque::new(),
            delivery_index: HashMap::new(),
            delivery_base: 0,
            timer_queue: BTreeMap::new(),
            timer_seq: 0,
            next_attempt: 1,
            in_flight: BTreeMap::new(),
            sending: BTreeMap::new(),
            journal: journal::Journal::default(),
            idempotency: VecDeque::new(),
            idem_index: HashMap::new(),
            idem_base: 0,
            rates: HashMap::new(),
            menu: menu::MenuState::default(),
        }
    }

    /// The state as JSON (for `--state FILE`). Rate windows and the journal are not kept.
    pub fn export_state(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    /// A service from [`export_state`](Self::export_state)'s JSON. Attempts that were in flight
    /// when it was written are scheduled again.
    pub fn import_state(text: &str) -> Result<Self, ConfigError> {
        let mut s: Self = serde_json::from_str(text).map_err(|e| ConfigError::Shape(format!("state: {e}")))?;
        s.options.check()?;
        s.index = s.orders.iter().enumerate().map(|(i, o)| (o.order.order_key.clone(), i)).collect();
        s.delivery_index = s.deliveries.iter().enumerate().map(|(i, d)| (d.id.clone(), s.delivery_base + i as u64)).collect();
        s.idem_index = s.idempotency.iter().enumerate().map(|(i, e)| ((e.client, e.key.clone()), s.idem_base + i)).collect();
        let in_flight = std::mem::take(&mut s.in_flight);
        let mut again = Vec::new();
        for (_, (id, copy)) in in_flight {
            if !copy {
                again.push(id);
            }
        }
        for id in again {
            // Due at once: at the instant it was queued, before any time the face can pass.
            let Some(d) = s.delivery_mut(&id) else { continue };
            d.state = DeliveryState::Scheduled;
            let at = d.queued_at_ms;
            s.schedule(at, Timer::Deliver { delivery_id: id });
        }
        Ok(s)
    }

    // -----------------------------------------------------------------------------------------
    // Orders.

    /// The order `key` (any client's), as the model keeps it.
    pub fn order(&self, key: &str) -> Option<&StoredOrder> {
        self.index.get(key).map(|&i| &self.orders[i])
    }

    /// Every order, oldest first.
    pub fn orders(&self) -> &[StoredOrder] {
        &self.orders
    }

    fn order_mut(&mut self, key: &str) -> Option<&mut StoredOrder> {
        let i = *self.index.get(key)?;
        let s = &mut self.orders[i];
        s.rendered = Rendered::default();
        Some(s)
    }

    fn schedule(&mut self, at_ms: i64, timer: Timer) -> (i64, u64) {
        self.timer_seq += 1;
        self.timer_queue.insert((at_ms, self.timer_seq), timer);
        (at_ms, self.timer_seq)
    }

    /// Cancels the acceptance timeout job of an order that left Pending ("acceptance timeout job
    /// cancelled" on reject, stated; on accept, derived: the window no longer matters).
    pub(super) fn cancel_timeout_job(&mut self, key: &str) {
        if let Some(job) = self.order_mut(key).and_then(|s| s.timeout_job.take()) {
            self.timer_queue.remove(&job);
        }
    }

    /// The earliest instant (unix ms) a timer is due, if any.
    pub fn next_due(&self) -> Option<i64> {
        self.timer_queue.keys().next().map(|k| k.0)
    }

    /// The problem a face sends for a request its HTTP server refused before the model could read
    /// it (a body over the size bound: 413; a head over it: 431; not readable as HTTP/1.1: 400; a
    /// head or body too slow: 408): the contract's problem document, `traceId` included ("Every
    /// error follows RFC 7807 Problem Details: type, title, detail, status, traceId, meta (object or
    /// null)": only `meta` may be null), as JSON text. Any other status reads as 400.
    pub fn unread_problem(&mut self, status: u16, detail: &str) -> String {
        let (status, title) = match status {
            408 => (408, "Request Timeout"),
            413 => (413, "Payload Too Large"),
            431 => (431, "Request Header Fields Too Large"),
            _ => (400, "Bad Request"),
        };
        String::from_utf8(self.problem(status, None, title, detail.to_string(), Value::Null).body).unwrap_or_default()
    }

    /// A problem answer (RFC 7807) with a fresh traceId.
    fn problem(&mut self, status: u16, suffix: Option<&str>, title: &str, detail: String, meta: Value) -> Answer {
        let type_ = Value::String(suffix.map_or_else(|| NO_TYPE.to_string(), |s| format!("{}/{s}", self.options.problem_base)));
        let body =
            json!({ "type": type_, "title": title, "status": status, "detail": detail, "traceId": self.ids.trace_id(), "meta": meta });
        Answer::problem(status, body)
    }

    /// The problem the order engine or the request validator wrote, with this service's base and
    /// a fresh traceId.
    fn engine_problem(&mut self, status: u16, mut p: Value) -> Answer {
        if let Some(Value::String(t)) = p.get_mut("type") {
            *t = t.replace(crate::order::PROBLEM_BASE, &self.options.problem_base);
        }
        if let Value::Object(m) = &mut p {
            // A problem the contract gives no suffix (400, 401): the prediction leaves its type
            // null (not shown); an answer sends RFC 7807's "about:blank".
            if m.get("type").is_none_or(Value::is_null) {
                m.insert("type".into(), Value::String(NO_TYPE.into()));
            }
            m.insert("traceId".into(), Value::String(self.ids.trace_id()));
            m.entry("meta").or_insert(Value::Null);
            m.insert("status".into(), Value::from(status));
        }
        Answer::problem(status, p)
    }

    /// Applies an update event (the body the POS receives) to an order through the engine's
    /// [`apply_event`](crate::order::apply_event), and queues its delivery.
    fn apply_update(&mut self, key: &str, event: Value, who: Who, now_ms: i64) -> Result<ControlOutcome, ControlError> {
        let stored = self.order(key).ok_or_else(|| ControlError::NotFound(format!("no order {key}")))?;
        let (outcome, order) =
            crate::order::apply_event_to(&stored.order, &event, &who).map_err(|e| ControlError::Invalid(e.to_string()))?;
        if outcome.ignored || !outcome.valid {
            return Err(ControlError::NotApplicable(outcome.note));
        }
        let deliveries = self.queue_update(&order, &event, now_ms).into_iter().collect();
        let note = outcome.note.trim_end_matches("; answer 200").to_string();
        self.store_order(key, order.clone());
        Ok(ControlOutcome { order: Some(order), deliveries, note })
    }

    /// Applies a service-side trigger through the engine's [`apply_trigger`](crate::order::apply_trigger)
    /// (`driver`: the driver object of a reassignment's row).
    fn apply_trigger(
        &mut self,
        key: &str,
        trigger: crate::order::ServiceTrigger,
        driver: Option<HistoryDriver>,
        now_ms: i64,
    ) -> Result<(Order, String), ControlError> {
        let stored = self.order(key).ok_or_else(|| ControlError::NotFound(format!("no order {key}")))?;
        let (outcome, order) = crate::order::apply_trigger_to(&stored.order, trigger, now_secs(now_ms), driver)
            .map_err(|e| ControlError::Invalid(e.to_string()))?;
        if !outcome.applied {
            return Err(ControlError::NotApplicable(outcome.note));
        }
        self.store_order(key, order.clone());
        Ok((order, outcome.note))
    }

    /// Stores an order a step produced; one that left Pending has no acceptance timeout job left.
    pub(super) fn store_order(&mut self, key: &str, order: Order) {
        let left_pending = order.status() != Status::Pending;
        if let Some(s) = self.order_mut(key) {
            s.order = order;
        }
        if left_pending {
            self.cancel_timeout_job(key);
        }
    }

    fn update_event(order: &Order, event: UpdateEvent, now_ms: i64) -> serde_json::Map<String, Value> {
        let mut m = serde_json::Map::new();
        m.insert("orderKey".into(), Value::String(order.order_key.clone()));
        m.insert("remoteOrderId".into(), Value::String(order.remote_order_id.clone().unwrap_or_default()));
        m.insert("event".into(), Value::String(event.as_str().into()));
        m.insert("occurredAt".into(), Value::String(iso(now_ms)));
        m
    }

    /// Carries out a control at `now_ms` (unix milliseconds).
    pub fn control(&mut self, control: Control, now_ms: i64) -> Result<ControlOutcome, ControlError> {
        match control {
            Control::CreateOrder { store, kind, items, payment, customer_note, express, auto_accept, ready_by_driver_on_accept } => {
                let knobs = OrderKnobs { auto_accept, ready_by_driver_on_accept: ready_by_driver_on_accept.unwrap_or(false) };
                self.create_order(store, kind, items, payment, customer_note, express, knobs, now_ms)
            }
            Control::AssignDriver { order_key, full_name, phone, code } => {
                if self.order(&order_key).is_none() {
                    return Err(ControlError::NotFound(format!("no order {order_key}")));
                }
                let code = code.unwrap_or_else(|| format!("DRV-{:04}", self.ids.next_u64() % 10_000));
                let stored = self.order(&order_key).ok_or_else(|| ControlError::NotFound(format!("no order {order_key}")))?;
                let full_name = full_name.unwrap_or_else(|| "Ana Pérez".to_string());
                let previous = stored.driver.clone();
                let mut event = Self::update_event(&stored.order, UpdateEvent::DriverAssigned, now_ms);
                event.insert("driver".into(), json!({ "fullName": full_name, "phone": phone }));
                let event = Value::Object(event);
                let mut out = if let Some((prev_code, _, _)) = previous {
                    // A reassignment: the history row says driver_reassigned with previousCode; the
                    // POS receives driver_assigned (the events the contract lists).
                    let driver = HistoryDriver {
                        event: DriverEvent::Reassigned,
                        code: Some(code.clone()),
                        full_name: Some(full_name.clone()),
                        previous_code: Some(Some(prev_code)),
                    };
                    let trigger = crate::order::ServiceTrigger::DriverReassigned;
                    let (order, note) = self.apply_trigger(&order_key, trigger, Some(driver), now_ms)?;
                    let deliveries = self.queue_update(&order, &event, now_ms).into_iter().collect();
                    ControlOutcome { order: Some(order), deliveries, note }
                } else {
                    self.apply_update(&order_key, event, Who { actor: None, driver_code: Some(code.clone()) }, now_ms)?
                };
                if let Some(s) = self.order_mut(&order_key) {
                    s.driver = Some((code, full_name, phone));
                    out.order = Some(s.order.clone());
                }
                Ok(out)
            }
            Control::ReleaseDriver { order_key, reason } => {
                let stored = self.order(&order_key).ok_or_else(|| ControlError::NotFound(format!("no order {order_key}")))?;
                let Some((code, full_name, phone)) = stored.driver.clone() else {
                    return Err(ControlError::NotApplicable("no driver is assigned to release".into()));
                };
                let mut event = Self::update_event(&stored.order, UpdateEvent::DriverReleased, now_ms);
                event.insert("reason".into(), Value::String(reason.unwrap_or_else(|| "driver unavailable".into())));
                event.insert("releasedDriver".into(), json!({ "fullName": full_name, "phone": phone }));
                event.insert("expectedNext".into(), Value::String(ExpectedNext::DriverReassignment.as_str().into()));
                let mut out = self.apply_update(&order_key, Value::Object(event), Who { actor: None, driver_code: Some(code) }, now_ms)?;
                if let Some(s) = self.order_mut(&order_key) {
                    s.driver = None;
                    out.order = Some(s.order.clone());
                }
                Ok(out)
            }
            Control::MarkReadyByDriver { order_key } => {
                let (order, note) = self.apply_trigger(&order_key, crate::order::ServiceTrigger::DriverMarksReady, None, now_ms)?;
                Ok(ControlOutcome { order: Some(order), deliveries: Vec::new(), note })
            }
            Control::Deliver { order_key } => {
                let stored = self.order(&order_key).ok_or_else(|| ControlError::NotFound(format!("no order {order_key}")))?;
                // On delivery orders deliveredAt is later than handedOverAt (stated): a confirmation
                // in the second of the handover (a manual clock that did not move) happens a second
                // after it.
                let handed = stored.order.handed_over_at().map(Instant::unix_millis);
                let pickup = stored.order.is_pickup();
                let at = match handed {
                    Some(h) if !pickup && now_secs(now_ms) * 1000 <= h => h + 1000,
                    _ => now_ms,
                };
                let event = Value::Object(Self::update_event(&stored.order, UpdateEvent::Delivered, at));
                self.apply_update(&order_key, event, Who::default(), now_ms)
            }
            Control::Cancel { order_key, by, reason } => {
                let stored = self.order(&order_key).ok_or_else(|| ControlError::NotFound(format!("no order {order_key}")))?;
                if stored.order.status() == Status::HandedOver {
                    return Err(ControlError::NotApplicable(
                        "the order is HandedOver: after the handover only a refund or an incident cancels it (use refund)".into(),
                    ));
                }
                let (actor, id) = match by.as_deref().map_or(Some(ActorType::Customer), ActorType::parse) {
                    Some(ActorType::Customer) => (ActorType::Customer, "customer-1"),
                    Some(ActorType::Operator) => (ActorType::Operator, "operator-1"),
                    _ => {
                        let other = by.as_deref().unwrap_or_default();
                        return Err(ControlError::Invalid(format!("by must be customer or operator, found {other:?}")));
                    }
                };
                let reason =
                    reason.unwrap_or_else(|| if actor == ActorType::Customer { "changed my mind" } else { "store unreachable" }.into());
                let mut event = Self::update_event(&stored.order, UpdateEvent::Cancelled, now_ms);
                event.insert("reason".into(), Value::String(reason));
                self.apply_update(
                    &order_key,
                    Value::Object(event),
                    Who { actor: Some((actor, Some(id.into()))), driver_code: None },
                    now_ms,
                )
            }
            Control::Refund { order_key, reason } => {
                let stored = self.order(&order_key).ok_or_else(|| ControlError::NotFound(format!("no order {order_key}")))?;
                if stored.order.status() != Status::HandedOver {
                    return Err(ControlError::NotApplicable(format!(
                        "the order is {}: a refund or incident cancels an order after the handover (use cancel before it)",
                        stored.order.status()
                    )));
                }
                let mut event = Self::update_event(&stored.order, UpdateEvent::Cancelled, now_ms);
                event.insert("reason".into(), Value::String(reason.unwrap_or_else(|| "refund".into())));
                let who = Who { actor: Some((ActorType::Operator, Some("operator-1".into()))), driver_code: None };
                self.apply_update(&order_key, Value::Object(event), who, now_ms)
            }
        }
    }

    /// [`control`](Self::control) from its JSON (`{ "action": "createOrder", … }`).
    pub fn control_json(&mut self, text: &str, now_ms: i64) -> Result<ControlOutcome, ControlError> {
        if text.len() > 1 << 20 {
            return Err(ControlError::Invalid("a control is at most 1 MiB of JSON".into()));
        }
        let control: Control = serde_json::from_str(text).map_err(|e| ControlError::Invalid(e.to_string()))?;
        self.control(control, now_ms)
    }

    #[allow(clippy::too_many_arguments)]
    fn create_order(
        &mut self,
        store: Option<String>,
        kind: Option<String>,
        items: Option<Vec<NewItem>>,
        payment: Option<String>,
        customer_note: Option<String>,
        express: Option<bool>,
        knobs: OrderKnobs,
        now_ms: i64,
    ) -> Result<ControlOutcome, ControlError> {
        if self.orders.len() >= self.options.max_orders {
            return Err(ControlError::Limit(format!(
                "the sandbox holds {} orders, its maximum (maxOrders): reset it between tests",
                self.orders.len()
            )));
        }
        let (client, st) = match &store {
            Some(r) => self
                .config
                .store(r)
                .map(|(c, s)| (c, s.clone()))
                .ok_or_else(|| ControlError::NotFound(format!("no store {r:?} in the config")))?,
            None => (0, self.config.clients[0].stores[0].clone()),
        };
        let fulfillment = match kind.as_deref().map_or(Some(FulfillmentType::Delivery), FulfillmentType::parse) {
            Some(f) => f,
            None => {
                let other = kind.as_deref().unwrap_or_default();
                return Err(ControlError::Invalid(format!("type must be delivery or pickup, found {other:?}")));
            }
        };
        let pickup = fulfillment == FulfillmentType::Pickup;
        let method = payment.unwrap_or_else(|| "card".into());
        if !["card", "cash", "bips"].contains(&method.as_str()) {
            return Err(ControlError::Invalid(format!("payment must be card, cash or bips, found {method:?}")));
        }
        let items = items
            .unwrap_or_else(|| vec![NewItem { remote_code: "BURGER-1".into(), name: None, quantity: None, unit_price: None, note: None }]);
        if items.is_empty() || items.len() > 200 {
            return Err(ControlError::Invalid("items must hold 1 to 200 lines".into()));
        }
        let round = |x: f64| (x * 100.0).round() / 100.0;
        let mut lines = Vec::new();
        for (i, it) in items.into_iter().enumerate() {
            let quantity = it.quantity.unwrap_or(1);
            let unit_price = it.unit_price.unwrap_or(10.5);
            if !(1..=1000).contains(&quantity) || !(0.0..=1_000_000.0).contains(&unit_price) {
                return Err(ControlError::Invalid(format!("items[{i}]: quantity 1 to 1000, unitPrice 0 to 1000000")));
            }
            if !crate::payload::is_remote_code(&it.remote_code) {
                return Err(ControlError::Invalid(format!("items[{i}].remoteCode: letters, digits and _ . - :, up to 100 characters")));
            }
            lines.push(order::Item {
                code: format!("prd_{}", self.ids.base62(6)),
                name: it.name.unwrap_or_else(|| it.remote_code.replace(['-', '_'], " ").to_lowercase()),
                remote_code: it.remote_code,
                quantity,
                unit_price,
                tax: 0.0,
                line_total: round(unit_price * quantity as f64),
                note: it.note,
                modifier_groups: Vec::new(),
            });
        }
        let subtotal = round(lines.iter().map(|l| l.line_total).sum());
        let number = self.next_number;
        self.next_number += 1;
        let key = loop {
            let k = self.ids.order_key();
            if !self.index.contains_key(&k) {
                break k;
            }
        };
        let now_s = now_secs(now_ms);
        let at = |secs: i64| crate::time::format_unix_seconds(now_s + secs);
        let expires = (!knobs.auto_accept.unwrap_or(st.auto_accept)).then(|| now_s + self.options.acceptance_window_seconds);
        let content = OrderContent {
            display_code: format!("S-{number:04}"),
            store_remote_id: st.remote_id.clone(),
            currency: "USD".into(),
            created_at: at(0),
            expires_at: expires.map(crate::time::format_unix_seconds),
            fulfillment: order::Fulfillment {
                kind: fulfillment,
                is_express: express.unwrap_or(false),
                prepare_by: at(20 * 60),
                driver_pickup_at: (!pickup).then(|| at(25 * 60)),
                customer_pickup_at: pickup.then(|| at(30 * 60)),
            },
            customer: pickup.then(|| order::Customer { first_name: "Alex".into() }),
            payment: order::Payment {
                methods: vec![order::PaymentMethod { kind: method.clone(), amount: subtotal }],
                amount_to_collect: if method == "cash" { subtotal } else { 0.0 },
                change_for: None,
            },
            summary: order::Summary { subtotal, taxes: 0.0, discounts: 0.0, additional_charges: 0.0, grand_total: subtotal },
            charges: Vec::new(),
            discounts: Vec::new(),
            items: lines,
            customer_note,
            invoice: None,
        };
        let order = Order::received(key.clone(), st.store_id, st.brand_id, None, Instant::from_unix_seconds(now_s), Some(content.clone()));
        // The creation body: the commercial content, with the orderKey at its top level (where the
        // envelope holds it is not shown: assumed).
        let mut body = serde_json::Map::new();
        body.insert("orderKey".into(), Value::String(key.clone()));
        if let Value::Object(m) = serde_json::to_value(&content).unwrap_or(Value::Null) {
            body.extend(m);
        }
        self.index.insert(key.clone(), self.orders.len());
        let timeout_job = expires.map(|e| {
            self.schedule((e + self.options.timeout_job_delay_seconds) * 1000, Timer::AcceptanceTimeout { order_key: key.clone() })
        });
        self.orders.push(StoredOrder {
            number,
            client,
            store: st.remote_id.clone(),
            driver: None,
            timeout_job,
            knobs,
            order: order.clone(),
            rendered: Rendered::default(),
        });
        let id = self.queue(
            DeliveryKind::OrderCreated,
            Some(key),
            format!("/v1/order/{}", st.remote_id),
            "POST",
            serde_json::to_string(&Value::Object(body)).unwrap_or_default(),
            now_ms,
        );
        Ok(ControlOutcome {
            order: Some(order),
            deliveries: vec![id],
            note: format!("order {number} placed at {}: the creation webhook is queued", st.remote_id),
        })
    }
}

#[cfg(test)]
mod tests;
