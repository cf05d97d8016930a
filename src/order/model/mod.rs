//! The order as a typed value: the detail of `GET /api/v1/Orders/{orderKey}` with its history rows
//! and its commercial content, read from and written to the contract's JSON.
//!
//! One type for the whole house: the service model keeps its orders in it, and the engine's
//! entry points (`predictAction`, `applyEvent`, `applyTrigger`, `nextActions`) read the order they
//! are given into it once and write it out once. Its status, its transition timestamps and its
//! history change only through `Order::transition`, which writes the history row the contract
//! describes: a step that forgets its row cannot be written.
//!
//! An order given by a user may carry what the contract does not have (an unknown member, a
//! member of another type, no history): such members are kept as given, in their place, and
//! written back unchanged, so the JSON of an order is the JSON it was given plus what the
//! engine's steps wrote.

use super::machine::Row;
use crate::contract::{ActorType, DriverEvent, FulfillmentType, Status, DELIVERED_AT_CUTOFF_UNIX};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// An instant of the contract: its ISO 8601 text as written, and the instant it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instant {
    text: String,
    unix_millis: i64,
    utc: bool,
}

impl Instant {
    /// The instant `text` names, when it is an ISO 8601 date-time with an offset.
    pub fn parse(text: &str) -> Option<Self> {
        crate::time::parse(text).map(|t| Self { text: text.to_string(), unix_millis: t.unix_millis, utc: t.utc })
    }

    /// The instant `secs` (unix seconds), written in UTC.
    pub fn from_unix_seconds(secs: i64) -> Self {
        Self { text: crate::time::format_unix_seconds(secs), unix_millis: secs.saturating_mul(1000), utc: true }
    }

    /// The text, as written.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Milliseconds since the Unix epoch.
    pub fn unix_millis(&self) -> i64 {
        self.unix_millis
    }

    /// The milliseconds, when the text is in UTC (the contract's timestamps are).
    pub fn utc_millis(&self) -> Option<i64> {
        self.utc.then_some(self.unix_millis)
    }
}

impl Serialize for Instant {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for Instant {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Instant::parse(&text).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not an ISO 8601 timestamp")))
    }
}

/// `history[].driver`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryDriver {
    /// Assigned, reassigned or released.
    pub event: DriverEvent,
    /// The driver's opaque code.
    pub code: Option<String>,
    /// The driver's name.
    pub full_name: Option<String>,
    /// The replaced driver's code (only on a reassignment).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_code: Option<Option<String>>,
}

/// One row of `history[]`. Rows are written by `Order::transition` alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryRow {
    /// Null on the first row.
    pub from_status: Option<Status>,
    /// The status after the change (equal to `from_status` on driver rows).
    pub to_status: Status,
    /// When.
    pub changed_at: Instant,
    /// Who.
    pub actor_type: ActorType,
    /// Null for `system`.
    pub actor_id: Option<String>,
    /// Free text.
    pub reason: Option<String>,
    /// Present on driver changes only.
    pub driver: Option<HistoryDriver>,
}

/// `fulfillment` of the commercial content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fulfillment {
    /// Delivery or pickup.
    #[serde(rename = "type")]
    pub kind: FulfillmentType,
    /// Express delivery.
    pub is_express: bool,
    /// When the food must be ready.
    pub prepare_by: String,
    /// Delivery: when the driver picks it up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver_pickup_at: Option<String>,
    /// Pickup: when the customer picks it up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub customer_pickup_at: Option<String>,
}

/// `customer` (pickup orders only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Customer {
    /// The customer's first name.
    pub first_name: String,
}

/// One payment method.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PaymentMethod {
    /// `cash`, `card`, `bips`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The amount paid this way.
    pub amount: f64,
}

/// `payment`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Payment {
    /// Methods, possibly combined.
    pub methods: Vec<PaymentMethod>,
    /// What the driver or the counter collects.
    pub amount_to_collect: f64,
    /// Cash the customer pays with, when change is needed.
    pub change_for: Option<f64>,
}

/// `summary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Summary {
    /// Sum of the line totals.
    pub subtotal: f64,
    /// Taxes.
    pub taxes: f64,
    /// Discounts.
    pub discounts: f64,
    /// Charges.
    pub additional_charges: f64,
    /// What the customer pays.
    pub grand_total: f64,
}

/// One line of `items[]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Item {
    /// The service's product code.
    pub code: String,
    /// The POS's code.
    pub remote_code: String,
    /// The product's name.
    pub name: String,
    /// How many.
    pub quantity: i64,
    /// Price of one.
    pub unit_price: f64,
    /// Tax of the line.
    pub tax: f64,
    /// quantity × unitPrice.
    pub line_total: f64,
    /// The customer's note.
    pub note: Option<String>,
    /// Chosen options (inner fields not shown by the contract: kept as given).
    pub modifier_groups: Vec<Value>,
}

/// `data.order`: the commercial content, the same shape as the creation webhook payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OrderContent {
    /// Human-readable code for support.
    pub display_code: String,
    /// The store code in the POS.
    pub store_remote_id: String,
    /// ISO 4217.
    pub currency: String,
    /// When the customer placed it.
    pub created_at: String,
    /// The acceptance deadline; null for auto-accept stores.
    pub expires_at: Option<String>,
    /// Delivery or pickup.
    pub fulfillment: Fulfillment,
    /// Pickup only; null on delivery.
    pub customer: Option<Customer>,
    /// How it is paid.
    pub payment: Payment,
    /// Totals.
    pub summary: Summary,
    /// `charges[]` (code, amount, billedBy).
    pub charges: Vec<Value>,
    /// `discounts[]` (code, name, amount, fundedBy).
    pub discounts: Vec<Value>,
    /// The lines.
    pub items: Vec<Item>,
    /// The customer's note.
    pub customer_note: Option<String>,
    /// Null for final consumers.
    pub invoice: Option<Value>,
}

/// The members of the Order resource, in the contract's order.
pub(crate) use crate::shape::order::DETAIL_FIELDS as FIELDS;

/// The transition timestamps (nullable), in the contract's order.
pub(crate) const NULLABLE_TIMESTAMPS: &[&str] =
    &["acceptedAt", "rejectedAt", "preparingAt", "readyAt", "driverAssignedAt", "handedOverAt", "deliveredAt", "cancelledAt"];

/// An order: the `data` of `GET /api/v1/Orders/{orderKey}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Order {
    /// `ord_` + 16 base62.
    pub order_key: String,
    /// Internal store id.
    pub store_id: i64,
    /// Internal brand id.
    pub brand_id: i64,
    status: Status,
    merchant_status_reason: Option<String>,
    /// The POS's order reference (from its answer to the creation webhook).
    pub remote_order_id: Option<String>,
    received_at: Instant,
    accepted_at: Option<Instant>,
    rejected_at: Option<Instant>,
    preparing_at: Option<Instant>,
    ready_at: Option<Instant>,
    driver_assigned_at: Option<Instant>,
    handed_over_at: Option<Instant>,
    delivered_at: Option<Instant>,
    cancelled_at: Option<Instant>,
    history: Vec<HistoryRow>,
    /// The commercial content.
    pub order: Option<OrderContent>,
    /// For an order given as JSON: where each member stood, and the members kept as given.
    #[serde(skip)]
    given: Option<Box<Given>>,
}

/// What an order given as JSON carries beside its typed members.
#[derive(Debug, Clone, PartialEq, Default)]
struct Given {
    /// Every member's name, in the order given (members the engine adds come last).
    layout: Vec<String>,
    /// Members kept as given: those the contract does not have, and those not of its type.
    raw: Map<String, Value>,
}

/// The value of `v` as a `T`, when `T` writes it back exactly as given.
fn exactly<T: Serialize + ReadJson>(v: &Value) -> Option<T> {
    let t = T::read(v)?;
    let back = serde_json::to_value(&t).ok()?;
    same_text(v, &back).then_some(t)
}

/// Two values that print the same JSON text: `Value`'s own equality, and members in the same
/// order (an object's equality ignores their order; its text does not). Compared as values, not
/// as printed text: printing each typed member would bring a second serializer of every order
/// type into the wasm modules.
fn same_text(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((ka, va), (kb, vb))| ka == kb && same_text(va, vb))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(va, vb)| same_text(va, vb)),
        _ => a == b,
    }
}

/// A member of an order given as JSON, read by hand into its type (what serde's derive would read:
/// missing optional members are `None`, unknown members refuse the object). Read by hand, not by
/// `Deserialize`: serde's deserializers over `Value` cost the wasm modules about 10 KiB gzipped.
/// [`exactly`] keeps a value only when it writes back as given, so a reading that differs from
/// serde's in an edge case only moves a member between typed and kept-as-given, never its JSON.
trait ReadJson: Sized {
    fn read(v: &Value) -> Option<Self>;
}

impl ReadJson for String {
    fn read(v: &Value) -> Option<Self> {
        v.as_str().map(str::to_string)
    }
}

impl ReadJson for i64 {
    fn read(v: &Value) -> Option<Self> {
        v.as_i64()
    }
}

impl<T: ReadJson> ReadJson for Option<T> {
    fn read(v: &Value) -> Option<Self> {
        if v.is_null() {
            Some(None)
        } else {
            T::read(v).map(Some)
        }
    }
}

impl<T: ReadJson> ReadJson for Vec<T> {
    fn read(v: &Value) -> Option<Self> {
        v.as_array()?.iter().map(T::read).collect()
    }
}

impl ReadJson for Instant {
    fn read(v: &Value) -> Option<Self> {
        Instant::parse(v.as_str()?)
    }
}

impl ReadJson for Status {
    fn read(v: &Value) -> Option<Self> {
        Status::parse(v.as_str()?)
    }
}

impl ReadJson for ActorType {
    fn read(v: &Value) -> Option<Self> {
        ActorType::parse(v.as_str()?)
    }
}

impl ReadJson for DriverEvent {
    fn read(v: &Value) -> Option<Self> {
        DriverEvent::parse(v.as_str()?)
    }
}

/// Member `key` of `o` read as a `T`; an absent member reads as JSON null (an absent `Option` is
/// `None`, an absent required member refuses the object).
fn member<T: ReadJson>(o: &Map<String, Value>, key: &str) -> Option<T> {
    T::read(o.get(key).unwrap_or(&Value::Null))
}

/// `o` holds no member outside `known` (serde's `deny_unknown_fields`).
fn only(o: &Map<String, Value>, known: &[&str]) -> bool {
    o.keys().all(|k| known.contains(&k.as_str()))
}

impl ReadJson for HistoryDriver {
    fn read(v: &Value) -> Option<Self> {
        let o = v.as_object().filter(|o| only(o, &["event", "code", "fullName", "previousCode"]))?;
        // `previousCode`: absent or null is `None` (as serde reads an `Option<Option<_>>`).
        let previous_code = match o.get("previousCode") {
            None | Some(Value::Null) => None,
            Some(p) => Some(Some(String::read(p)?)),
        };
        Some(HistoryDriver { event: member(o, "event")?, code: member(o, "code")?, full_name: member(o, "fullName")?, previous_code })
    }
}

impl ReadJson for HistoryRow {
    fn read(v: &Value) -> Option<Self> {
        let o = v.as_object().filter(|o| only(o, &["fromStatus", "toStatus", "changedAt", "actorType", "actorId", "reason", "driver"]))?;
        Some(HistoryRow {
            from_status: member(o, "fromStatus")?,
            to_status: member(o, "toStatus")?,
            changed_at: member(o, "changedAt")?,
            actor_type: member(o, "actorType")?,
            actor_id: member(o, "actorId")?,
            reason: member(o, "reason")?,
            driver: member(o, "driver")?,
        })
    }
}

/// Who writes a history row and what it carries.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub actor_type: ActorType,
    pub actor_id: Option<String>,
    pub reason: Option<String>,
    /// The driver object of a driver row (assign, reassign, release).
    pub driver: Option<HistoryDriver>,
    /// A driver name the update event gave that is not a string: written as given.
    pub driver_name_as_given: Option<Value>,
    /// `merchantStatusReason` set by the step (the applied reject code).
    pub status_reason: Option<String>,
}

impl Record {
    pub(crate) fn by(actor_type: ActorType) -> Self {
        Self { actor_type, actor_id: None, reason: None, driver: None, driver_name_as_given: None, status_reason: None }
    }
}

/// What a step reads of the order beside it: whether it is a pickup, when it was created.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StepFacts {
    pub pickup: bool,
    /// `order.createdAt`, else `receivedAt` (unix millis).
    pub created: Option<i64>,
}

impl Order {
    /// An order received at `at`: Pending, with its first history row (from null, by the system).
    pub fn received(
        order_key: String,
        store_id: i64,
        brand_id: i64,
        remote_order_id: Option<String>,
        at: Instant,
        order: Option<OrderContent>,
    ) -> Self {
        let first = HistoryRow {
            from_status: None,
            to_status: Status::Pending,
            changed_at: at.clone(),
            actor_type: ActorType::System,
            actor_id: None,
            reason: None,
            driver: None,
        };
        Self {
            order_key,
            store_id,
            brand_id,
            status: Status::Pending,
            merchant_status_reason: None,
            remote_order_id,
            received_at: at,
            accepted_at: None,
            rejected_at: None,
            preparing_at: None,
            ready_at: None,
            driver_assigned_at: None,
            handed_over_at: None,
            delivered_at: None,
            cancelled_at: None,
            history: vec![first],
            order,
            given: None,
        }
    }

    /// The current status.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Reason of the last status change, when declared.
    pub fn merchant_status_reason(&self) -> Option<&str> {
        self.merchant_status_reason.as_deref()
    }

    /// When the service received it.
    pub fn received_at(&self) -> &Instant {
        &self.received_at
    }

    /// Set by accept (and auto-accept).
    pub fn accepted_at(&self) -> Option<&Instant> {
        self.accepted_at.as_ref()
    }

    /// Set on driver assignment, cleared on release.
    pub fn driver_assigned_at(&self) -> Option<&Instant> {
        self.driver_assigned_at.as_ref()
    }

    /// Set when the merchant reports the handover.
    pub fn handed_over_at(&self) -> Option<&Instant> {
        self.handed_over_at.as_ref()
    }

    /// Set on confirmed delivery.
    pub fn delivered_at(&self) -> Option<&Instant> {
        self.delivered_at.as_ref()
    }

    /// Every status change and driver change, in order.
    pub fn history(&self) -> &[HistoryRow] {
        &self.history
    }

    /// A pickup order (its commercial content says so).
    pub fn is_pickup(&self) -> bool {
        self.order.as_ref().is_some_and(|c| c.fulfillment.kind == FulfillmentType::Pickup)
    }

    /// The contract's JSON of the order (what the detail's `data` holds).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The order a JSON object holds, its members read once into the type; what the contract does
    /// not have, or has with another type, is kept as given (never read, written back unchanged).
    pub fn from_json(data: &Map<String, Value>) -> Self {
        let mut o = Order::received(String::new(), 0, 0, None, Instant::from_unix_seconds(0), None);
        o.history.clear();
        let mut given = Given::default();
        for (key, v) in data {
            given.layout.push(key.clone());
            if !o.take(key, v) {
                given.raw.insert(key.clone(), v.clone());
            }
        }
        o.given = Some(Box::new(given));
        o
    }

    /// Reads member `key` into its typed field; false when it is not a member of the type or not
    /// of its type.
    fn take(&mut self, key: &str, v: &Value) -> bool {
        fn set<T: Serialize + ReadJson>(slot: &mut T, v: &Value) -> bool {
            exactly(v).map(|t| *slot = t).is_some()
        }
        match key {
            "orderKey" => set(&mut self.order_key, v),
            "storeId" => set(&mut self.store_id, v),
            "brandId" => set(&mut self.brand_id, v),
            "status" => set(&mut self.status, v),
            "merchantStatusReason" => set(&mut self.merchant_status_reason, v),
            "remoteOrderId" => set(&mut self.remote_order_id, v),
            "receivedAt" => set(&mut self.received_at, v),
            "history" => set(&mut self.history, v),
            // The commercial content is kept as given: the engine reads its facts with the
            // checker's reader and never changes it (and a typed read of it would cost the
            // toolkit's wasm module about 25 KiB gzipped of deserializers).
            "order" => false,
            _ => self.stamp_mut(key).is_some_and(|slot| set(slot, v)),
        }
    }

    fn stamp_mut(&mut self, key: &str) -> Option<&mut Option<Instant>> {
        Some(match key {
            "acceptedAt" => &mut self.accepted_at,
            "rejectedAt" => &mut self.rejected_at,
            "preparingAt" => &mut self.preparing_at,
            "readyAt" => &mut self.ready_at,
            "driverAssignedAt" => &mut self.driver_assigned_at,
            "handedOverAt" => &mut self.handed_over_at,
            "deliveredAt" => &mut self.delivered_at,
            "cancelledAt" => &mut self.cancelled_at,
            _ => return None,
        })
    }

    fn stamp(&self, key: &str) -> Option<&Option<Instant>> {
        Some(match key {
            "acceptedAt" => &self.accepted_at,
            "rejectedAt" => &self.rejected_at,
            "preparingAt" => &self.preparing_at,
            "readyAt" => &self.ready_at,
            "driverAssignedAt" => &self.driver_assigned_at,
            "handedOverAt" => &self.handed_over_at,
            "deliveredAt" => &self.delivered_at,
            "cancelledAt" => &self.cancelled_at,
            _ => return None,
        })
    }

    fn is_present(&self, key: &str) -> bool {
        self.given.as_ref().is_none_or(|g| g.layout.iter().any(|k| k == key))
    }

    fn raw(&self, key: &str) -> Option<&Value> {
        self.given.as_ref().and_then(|g| g.raw.get(key))
    }

    /// Member `key` as the JSON of the order holds it (`None` when absent).
    pub(crate) fn member(&self, key: &str) -> Option<Value> {
        if !self.is_present(key) {
            return None;
        }
        match self.raw(key) {
            Some(v) => Some(v.clone()),
            None => self.typed_value(key),
        }
    }

    /// The orderKey, when it is a string.
    pub(crate) fn given_order_key(&self) -> Option<&str> {
        (self.is_present("orderKey") && self.raw("orderKey").is_none()).then_some(self.order_key.as_str())
    }

    /// The text of a timestamp member, when it is a string (a timestamp or not).
    fn stamp_text(&self, key: &str) -> Option<&str> {
        if !self.is_present(key) {
            return None;
        }
        match self.raw(key) {
            Some(v) => v.as_str(),
            None => self.stamp(key).and_then(|t| t.as_ref()).map(Instant::as_str),
        }
    }

    /// Member `key` is absent or null.
    pub(crate) fn is_null_or_absent(&self, key: &str) -> bool {
        match self.member(key) {
            None | Some(Value::Null) => true,
            Some(_) => false,
        }
    }

    fn typed_value(&self, key: &str) -> Option<Value> {
        let v = match key {
            "orderKey" => serde_json::to_value(&self.order_key),
            "storeId" => serde_json::to_value(self.store_id),
            "brandId" => serde_json::to_value(self.brand_id),
            "status" => serde_json::to_value(self.status),
            "merchantStatusReason" => serde_json::to_value(&self.merchant_status_reason),
            "remoteOrderId" => serde_json::to_value(&self.remote_order_id),
            "receivedAt" => serde_json::to_value(&self.received_at),
            "history" => serde_json::to_value(&self.history),
            "order" => serde_json::to_value(&self.order),
            _ => serde_json::to_value(self.stamp(key)?),
        };
        v.ok()
    }

    fn serialize_member<M: SerializeMap>(&self, m: &mut M, key: &str) -> Result<(), M::Error> {
        match key {
            "orderKey" => m.serialize_entry(key, &self.order_key),
            "storeId" => m.serialize_entry(key, &self.store_id),
            "brandId" => m.serialize_entry(key, &self.brand_id),
            "status" => m.serialize_entry(key, &self.status),
            "merchantStatusReason" => m.serialize_entry(key, &self.merchant_status_reason),
            "remoteOrderId" => m.serialize_entry(key, &self.remote_order_id),
            "receivedAt" => m.serialize_entry(key, &self.received_at),
            "history" => m.serialize_entry(key, &self.history),
            "order" => m.serialize_entry(key, &self.order),
            _ => match self.stamp(key) {
                Some(t) => m.serialize_entry(key, t),
                None => Ok(()),
            },
        }
    }

    /// Member `key` will be written by the order's typed field (and stands last when it was absent).
    fn touch(&mut self, key: &str) {
        if let Some(g) = self.given.as_mut() {
            g.raw.remove(key);
            if !g.layout.iter().any(|k| k == key) {
                g.layout.push(key.to_string());
            }
        }
    }

    /// Member `key` written as given (a value the type cannot hold).
    fn put_raw(&mut self, key: &str, v: Value) {
        let g =
            self.given.get_or_insert_with(|| Box::new(Given { layout: FIELDS.iter().map(|k| k.to_string()).collect(), raw: Map::new() }));
        if !g.layout.iter().any(|k| k == key) {
            g.layout.push(key.to_string());
        }
        g.raw.insert(key.to_string(), v);
    }

    /// Sets a timestamp member to `text` (a text that names no instant is written as given).
    fn set_stamp(&mut self, key: &str, text: &str) {
        match Instant::parse(text) {
            Some(t) => {
                if let Some(slot) = self.stamp_mut(key) {
                    *slot = Some(t);
                    self.touch(key);
                }
            }
            None => self.put_raw(key, Value::String(text.to_string())),
        }
    }

    fn clear_stamp(&mut self, key: &str) {
        if let Some(slot) = self.stamp_mut(key) {
            *slot = None;
            self.touch(key);
        }
    }

    /// Appends a history row (the JSON `entry` instead when the row carries a value the type
    /// cannot hold). `false` when the order had no history array (the row starts one).
    fn append(&mut self, row: HistoryRow, entry: Option<Value>) -> bool {
        let present = self.is_present("history");
        match (self.raw("history").cloned(), entry) {
            (Some(Value::Array(mut rows)), entry) => {
                rows.push(entry.unwrap_or_else(|| serde_json::to_value(&row).unwrap_or(Value::Null)));
                self.put_raw("history", Value::Array(rows));
                true
            }
            (Some(_), Some(entry)) => {
                self.put_raw("history", Value::Array(vec![entry]));
                false
            }
            (Some(_), None) => {
                self.history = vec![row];
                self.touch("history");
                false
            }
            (None, Some(entry)) => {
                let mut rows: Vec<Value> =
                    if present { self.history.iter().filter_map(|r| serde_json::to_value(r).ok()).collect() } else { Vec::new() };
                rows.push(entry);
                self.put_raw("history", Value::Array(rows));
                present
            }
            (None, None) => {
                if !present {
                    self.history.clear();
                }
                self.history.push(row);
                self.touch("history");
                present
            }
        }
    }

    /// The value `deliveredAt` takes on a confirmed delivery at `at`: `Ok(None)` when it stays
    /// null, `Err(why)` when no delivery can be confirmed at that instant.
    fn delivered_value(&self, facts: StepFacts, at: &Instant, unknown: &mut Vec<String>) -> Result<Option<String>, String> {
        match facts.created {
            Some(c) if c < DELIVERED_AT_CUTOFF_UNIX * 1000 => {
                unknown.push("the order was created before 2026-08-12: deliveredAt stays null permanently (no backfill); HandedOver is the only sign of closure".into());
                return Ok(None);
            }
            None => unknown.push("the creation date cannot be read (order.createdAt, receivedAt): deliveredAt is set as for orders created on or after 2026-08-12".into()),
            _ => {}
        }
        let handed = self.stamp_text("handedOverAt");
        if facts.pickup {
            if let Some(h) = handed {
                return Ok(Some(h.to_string()));
            }
        } else if let Some(h) = handed.and_then(crate::time::parse) {
            if at.unix_millis <= h.unix_millis {
                return Err(format!(
                    "a delivery confirmed at {} is not later than handedOverAt {}: on delivery orders deliveredAt is later than handedOverAt",
                    at.as_str(),
                    handed.unwrap_or("")
                ));
            }
        }
        Ok(Some(at.as_str().to_string()))
    }

    /// The order after `row` at `at`: its effects on the status and the timestamps, and the
    /// history row the contract describes (a status change: fromStatus, toStatus, changedAt,
    /// actorType; or a driver row: fromStatus equal to toStatus, with driver.event). Every step of
    /// the engine goes through here, and nothing else changes a status, a transition timestamp or
    /// the history. `Err(why)` when the row cannot happen at `at`.
    pub(crate) fn transition(
        &self,
        row: &Row,
        at: &Instant,
        record: Record,
        facts: StepFacts,
        unknown: &mut Vec<String>,
    ) -> Result<Order, String> {
        let mut o = self.clone();
        let from = self.status;
        if let Some(to) = row.to {
            o.status = to;
            o.touch("status");
        }
        for &field in row.sets {
            if field == "deliveredAt" {
                if let Some(v) = o.delivered_value(facts, at, unknown)? {
                    o.set_stamp(field, &v);
                }
            } else {
                o.set_stamp(field, at.as_str());
            }
        }
        for &field in row.clears {
            o.clear_stamp(field);
        }
        // On pickup the customer has the order when the merchant hands it over.
        if row.sets.contains(&"handedOverAt") && facts.pickup {
            if let Some(v) = o.delivered_value(facts, at, unknown)? {
                o.set_stamp("deliveredAt", &v);
            }
        }
        let status_change = row.to.is_some_and(|to| to != from);
        if status_change || record.driver.is_some() {
            let is_system = record.actor_type == ActorType::System;
            let has_driver = record.driver.is_some();
            let entry_row = HistoryRow {
                from_status: Some(from),
                to_status: row.to.unwrap_or(from),
                changed_at: at.clone(),
                actor_type: record.actor_type,
                actor_id: record.actor_id,
                reason: record.reason,
                driver: record.driver,
            };
            let entry = record.driver_name_as_given.map(|name| {
                let mut v = serde_json::to_value(&entry_row).unwrap_or(Value::Null);
                v["driver"]["fullName"] = name;
                v
            });
            if !o.append(entry_row, entry) {
                unknown.push("the order had no history array: the simulated row starts one".into());
            }
            if !is_system || has_driver {
                unknown.push("the actorId of simulated history rows is not shown (null)".into());
            }
        }
        if let Some(reason) = record.status_reason {
            o.merchant_status_reason = Some(reason);
            o.touch("merchantStatusReason");
        }
        Ok(o)
    }

    /// What the order engine reads of the order, from the typed fields: the same the checker's
    /// reader establishes from its JSON (a test holds the two equal on every order the model
    /// writes), without serializing and checking the order again.
    pub(crate) fn facts(&self) -> OrderFacts {
        let ms = |t: &str| crate::time::parse(t).filter(|t| t.utc).map(|t| t.unix_millis);
        let received = self.received_at.utc_millis();
        let stamps = [
            &self.accepted_at,
            &self.rejected_at,
            &self.preparing_at,
            &self.ready_at,
            &self.driver_assigned_at,
            &self.handed_over_at,
            &self.delivered_at,
            &self.cancelled_at,
        ];
        let latest = stamps
            .iter()
            .filter_map(|t| t.as_ref().and_then(Instant::utc_millis))
            .chain(received)
            .chain(self.history.iter().filter_map(|r| r.changed_at.utc_millis()))
            .max();
        let content = self.order.as_ref();
        let expires_text = content.and_then(|c| c.expires_at.clone());
        let expires_broken = expires_text.as_deref().is_some_and(|t| ms(t).is_none());
        OrderFacts {
            status: Some(self.status).filter(|s| s.observable()),
            expires_broken,
            expires: content.map(|c| c.expires_at.as_deref().and_then(ms)).filter(|_| !expires_broken),
            expires_text,
            created: content.and_then(|c| ms(&c.created_at)).or(received),
            pickup: self.is_pickup(),
            latest,
        }
    }
}

impl Serialize for Order {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        match &self.given {
            None => {
                for key in FIELDS {
                    self.serialize_member(&mut m, key)?;
                }
            }
            Some(g) => {
                for key in &g.layout {
                    match g.raw.get(key) {
                        Some(v) => m.serialize_entry(key, v)?,
                        None => self.serialize_member(&mut m, key)?,
                    }
                }
            }
        }
        m.end()
    }
}

/// What the one order reader establishes about an order, for the engine: it reads the order the
/// way the checker does (same fields, same rules), never on its own.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct OrderFacts {
    /// The status, when it is an observable status of the read vocabulary.
    pub status: Option<Status>,
    /// `order.expiresAt`: `None` when data.order is null or has no expiresAt; `Some(None)` when
    /// null (an auto-accept store); `Some(Some(ms))` when read.
    pub expires: Option<Option<i64>>,
    /// `order.expiresAt` is present but not a UTC timestamp.
    pub expires_broken: bool,
    pub expires_text: Option<String>,
    /// `order.createdAt`, else `receivedAt` (unix millis).
    pub created: Option<i64>,
    pub pickup: bool,
    /// The latest instant the order records (receivedAt, the transition timestamps, the history).
    pub latest: Option<i64>,
}

#[cfg(test)]
mod tests;
