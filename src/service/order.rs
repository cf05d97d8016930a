//! The order as a typed value: the detail of `GET /api/v1/Orders/{orderKey}` with its history rows
//! and its commercial content, read from and written to the contract's JSON.
//!
//! The service model keeps its orders in these types. A step of the lifecycle is computed by the
//! order engine ([`crate::order`]), the one that answers the predictions, and read back into them:
//! a field the contract does not have, or a status outside the read vocabulary, cannot be stored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A status of the read vocabulary (PascalCase in every response).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// Waiting for accept or reject.
    Pending,
    /// Never observable: the accept cascade passes through it atomically.
    Accepted,
    /// Accepted and being prepared.
    Preparing,
    /// Ready for pickup.
    Ready,
    /// Handed to the driver or the customer.
    HandedOver,
    /// Rejected by the merchant (terminal).
    Rejected,
    /// Cancelled (terminal).
    Cancelled,
}

impl Status {
    /// Every status, in the order of the read vocabulary.
    pub const ALL: [Status; 7] =
        [Self::Pending, Self::Accepted, Self::Preparing, Self::Ready, Self::HandedOver, Self::Rejected, Self::Cancelled];

    /// The PascalCase name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Pending => "Pending",
            Self::Accepted => "Accepted",
            Self::Preparing => "Preparing",
            Self::Ready => "Ready",
            Self::HandedOver => "HandedOver",
            Self::Rejected => "Rejected",
            Self::Cancelled => "Cancelled",
        }
    }

    /// The status named `s` exactly (PascalCase).
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|x| x.name() == s)
    }
}

/// Who changed the order (`history[].actorType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActorType {
    /// The POS, through the REST API.
    Merchant,
    /// The customer.
    Customer,
    /// An operator of the service.
    Operator,
    /// The driver.
    Driver,
    /// The service itself (acceptance timeout, delivery failure).
    System,
}

/// `history[].driver`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryDriver {
    /// `driver_assigned`, `driver_reassigned` or `driver_released`.
    pub event: String,
    /// The driver's opaque code.
    pub code: Option<String>,
    /// The driver's name.
    pub full_name: Option<String>,
    /// The replaced driver's code (only on `driver_reassigned`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_code: Option<Option<String>>,
}

/// One row of `history[]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryRow {
    /// Null on the first row.
    pub from_status: Option<Status>,
    /// The status after the change (equal to `from_status` on driver rows).
    pub to_status: Status,
    /// When (ISO 8601 UTC).
    pub changed_at: String,
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
    /// `delivery` or `pickup`.
    #[serde(rename = "type")]
    pub kind: String,
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

/// An order: the `data` of `GET /api/v1/Orders/{orderKey}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Order {
    /// `ord_` + 16 base62.
    pub order_key: String,
    /// Internal store id.
    pub store_id: i64,
    /// Internal brand id.
    pub brand_id: i64,
    /// Current status.
    pub status: Status,
    /// Reason of the last status change, when declared.
    pub merchant_status_reason: Option<String>,
    /// The POS's order reference (from its answer to the creation webhook).
    pub remote_order_id: Option<String>,
    /// When the service received it.
    pub received_at: String,
    /// Set by accept (and auto-accept).
    pub accepted_at: Option<String>,
    /// Set by reject.
    pub rejected_at: Option<String>,
    /// Equal to acceptedAt (the accept cascade).
    pub preparing_at: Option<String>,
    /// Set when the order becomes Ready.
    pub ready_at: Option<String>,
    /// Set on driver assignment, cleared on release.
    pub driver_assigned_at: Option<String>,
    /// Set when the merchant reports the handover.
    pub handed_over_at: Option<String>,
    /// Set on confirmed delivery.
    pub delivered_at: Option<String>,
    /// Set on cancellation.
    pub cancelled_at: Option<String>,
    /// Every status change and driver change, in order.
    pub history: Vec<HistoryRow>,
    /// The commercial content.
    pub order: Option<OrderContent>,
}

impl Order {
    /// The contract's JSON of the order (what the detail's `data` holds).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The order an engine step produced, read back into the type: a field the engine wrote that
    /// the type does not know is an error, never dropped.
    pub fn from_value(value: Value) -> Result<Self, String> {
        serde_json::from_value(value).map_err(|e| format!("the order engine produced an order the model cannot read: {e}"))
    }

    /// What the order engine reads of the order ([`crate::order`]'s facts), from the typed fields:
    /// the same the checker's reader establishes from its JSON (a test holds the two equal on
    /// every order the model writes), without serializing and checking the order again.
    pub(crate) fn facts(&self) -> crate::order::OrderFacts {
        let ms = |t: &str| crate::time::parse(t).filter(|t| t.utc).map(|t| t.unix_millis);
        let received = ms(&self.received_at);
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
            .filter_map(|t| t.as_deref().and_then(ms))
            .chain(received)
            .chain(self.history.iter().filter_map(|r| ms(&r.changed_at)))
            .max();
        let content = self.order.as_ref();
        let expires_text = content.and_then(|c| c.expires_at.clone());
        let expires_broken = expires_text.as_deref().is_some_and(|t| ms(t).is_none());
        crate::order::OrderFacts {
            status: (self.status != Status::Accepted).then_some(self.status.name()),
            expires_broken,
            expires: content.map(|c| c.expires_at.as_deref().and_then(ms)).filter(|_| !expires_broken),
            expires_text,
            created: content.and_then(|c| ms(&c.created_at)).or(received),
            pickup: content.is_some_and(|c| c.fulfillment.kind == "pickup"),
            latest,
        }
    }

    /// The last history row.
    pub fn last_row_mut(&mut self) -> Option<&mut HistoryRow> {
        self.history.last_mut()
    }
}
