//! The contract's words and limits, each written once.
//!
//! Every status, event, actor, reason code, entity, scope, channel, day, override type,
//! capability field, problem-type suffix and limit of the service's contract
//! (`service-spec.md`) is spelled here and nowhere else in `src/` (tests aside). The checkers,
//! the order engine, the service model, the probe and the schema generator read them from this
//! file; the npm package's declarations and its generated `contract.json` come from it too.
//!
//! A new contract word goes here first, as a variant of its vocabulary (or a constant), with the
//! sentence of the contract it comes from.

use serde::{Deserialize, Serialize};

/// Declares one vocabulary of the contract: an enum whose variants are the contract's words,
/// each spelled once (its serde name, its `as_str`, its place in `ALL` and `NAMES`).
macro_rules! vocabulary {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident = $word:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $word)] $variant, )+
        }

        impl $name {
            /// Every word of this vocabulary, in the contract's order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];
            /// The words as the contract spells them, in the same order as [`Self::ALL`].
            pub const NAMES: &'static [&'static str] = &[$($word),+];
            /// The Rust names of the variants, in the same order (the keys of [`words_json`]).
            pub const VARIANTS: &'static [&'static str] = &[$(stringify!($variant)),+];

            /// The word as the contract spells it.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $word,)+
                }
            }

            /// The word spelled exactly as the contract spells it.
            #[allow(clippy::should_implement_trait)]
            pub fn parse(s: &str) -> Option<Self> {
                // A scan of the words rather than a `match` on them: one small loop per
                // vocabulary in the wasm modules instead of a comparison chain per word.
                Self::ALL.iter().copied().find(|w| w.as_str() == s)
            }

            /// The word, whatever its ASCII case (the contract says case-insensitive for some
            /// vocabularies: channels, days, group types).
            pub fn parse_ignore_case(s: &str) -> Option<Self> {
                Self::ALL.iter().copied().find(|w| w.as_str().eq_ignore_ascii_case(s))
            }

            /// The words joined with ", " (for messages and help texts).
            pub fn list() -> String {
                Self::NAMES.join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> {
                Self::parse(s).ok_or_else(|| format!("not one of {}", Self::list()))
            }
        }

        // Serialized as its word, by hand: serde's derive writes a unit-variant arm per word for
        // every serializer, which the wasm modules paid for several times over.
        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                self.as_str()
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Orders.

vocabulary! {
    /// An order status of the read vocabulary ("Read vocabulary (PascalCase, in every response
    /// status field and in the list filter)", States and transitions).
    pub enum Status {
        /// Waiting for accept or reject.
        Pending = "Pending",
        /// Never observable: the accept cascade passes through it atomically.
        Accepted = "Accepted",
        /// Accepted and being prepared.
        Preparing = "Preparing",
        /// Ready for pickup.
        Ready = "Ready",
        /// Handed to the driver or the customer.
        HandedOver = "HandedOver",
        /// Rejected by the merchant (terminal).
        Rejected = "Rejected",
        /// Cancelled (terminal).
        Cancelled = "Cancelled",
    }
}

impl Status {
    /// The statuses the POS can observe: every one but Accepted ("Accepted is never observable
    /// by the POS", States and transitions).
    pub const OBSERVABLE: &'static [Status] =
        &[Status::Pending, Status::Preparing, Status::Ready, Status::HandedOver, Status::Rejected, Status::Cancelled];

    /// Whether the POS can observe the status (every status but Accepted).
    pub const fn observable(self) -> bool {
        !matches!(self, Status::Accepted)
    }
}

vocabulary! {
    /// A value of the write vocabulary: the `status` of `PUT /api/v1/Orders/{orderKey}/status`
    /// ("Write vocabulary (PUT status body, snake_case): preparing, ready, handed_over").
    pub enum WriteStatus {
        /// Stays in the enum for forward compatibility; after accept it answers 409.
        Preparing = "preparing",
        /// The order is ready.
        Ready = "ready",
        /// The merchant released the food.
        HandedOver = "handed_over",
    }
}

/// The one PUT status value the contract names to refuse it ("PUT status `cancelled` is not
/// accepted; the merchant cannot cancel after acceptance through the REST API").
pub const REFUSED_WRITE_STATUS: &str = UpdateEvent::Cancelled.as_str();

impl WriteStatus {
    /// The read status this value is normalized to ("The two vocabularies differ and are
    /// normalized before comparison").
    pub const fn read(self) -> Status {
        match self {
            WriteStatus::Preparing => Status::Preparing,
            WriteStatus::Ready => Status::Ready,
            WriteStatus::HandedOver => Status::HandedOver,
        }
    }
}

vocabulary! {
    /// Who changed the order (`history[].actorType`: "merchant, customer, operator, driver,
    /// system (system covers acceptance timeout and delivery failure)").
    pub enum ActorType {
        /// The POS, through the REST API.
        Merchant = "merchant",
        /// The customer.
        Customer = "customer",
        /// An operator of the service.
        Operator = "operator",
        /// The driver.
        Driver = "driver",
        /// The service itself (acceptance timeout, delivery failure).
        System = "system",
    }
}

vocabulary! {
    /// The `event` of a history row's driver object ("driver_assigned, driver_reassigned,
    /// driver_released").
    pub enum DriverEvent {
        /// A driver was assigned.
        Assigned = "driver_assigned",
        /// Another driver took over.
        Reassigned = "driver_reassigned",
        /// The driver was released.
        Released = "driver_released",
    }
}

vocabulary! {
    /// The `event` of an OrderUpdateEvent ("cancelled, driver_assigned, driver_released,
    /// delivered; unknown future values are ignored with a 200").
    pub enum UpdateEvent {
        /// The order was cancelled (also after HandedOver: refund or incident).
        Cancelled = "cancelled",
        /// A driver was assigned (may arrive more than once, and while Preparing).
        DriverAssigned = "driver_assigned",
        /// The driver was released (carries releasedDriver and expectedNext).
        DriverReleased = "driver_released",
        /// The customer has the order.
        Delivered = "delivered",
    }
}

vocabulary! {
    /// The current value of an OrderUpdateEvent's `expectedNext` ("current value
    /// driver_reassignment; unknown values tolerated").
    pub enum ExpectedNext {
        /// Another driver is expected.
        DriverReassignment = "driver_reassignment",
    }
}

vocabulary! {
    /// A reject `reasonCode` (Orders, rule 1). A code outside the set is normalized to
    /// SYSTEM_ISSUE, never a 422 (rule 2).
    pub enum ReasonCode {
        /// Closed for the day or not yet open.
        StoreClosed = "STORE_CLOSED",
        /// Outside operating hours.
        OutOfOperatingHours = "OUT_OF_OPERATING_HOURS",
        /// An item is not offered.
        ItemNotOffered = "ITEM_NOT_OFFERED",
        /// An item is out of stock.
        ItemOutOfStock = "ITEM_OUT_OF_STOCK",
        /// The POS price differs from the order price.
        PriceMismatch = "PRICE_MISMATCH",
        /// Generic POS failure or other cause (and what an unknown code becomes).
        SystemIssue = "SYSTEM_ISSUE",
    }
}

impl ReasonCode {
    /// What the service applies for a sent code: the code itself, or SYSTEM_ISSUE for a code
    /// outside the set (Orders, rule 2).
    pub fn normalize(sent: &str) -> ReasonCode {
        ReasonCode::parse(sent).unwrap_or(ReasonCode::SystemIssue)
    }
}

vocabulary! {
    /// `fulfillment.type` of an order ("delivery or pickup").
    pub enum FulfillmentType {
        /// A driver takes the order to the customer.
        Delivery = "delivery",
        /// The customer picks the order up.
        Pickup = "pickup",
    }
}

vocabulary! {
    /// The events the REST operations publish (Events published by REST operations).
    pub enum PublishedEvent {
        /// POST accept.
        Accepted = "order.accepted_by_external_merchant.v1",
        /// POST reject.
        Rejected = "order.rejected_by_external_merchant.v1",
        /// PUT status.
        StatusChanged = "order.status_changed_by_external_merchant.v1",
        /// A menu change finished (delivered as the menu change webhook).
        MenuChangeCompleted = "menu.change.completed.v1",
    }
}

/// The one menu change `errorCode` the contract names ("errorCode (string or null; stable, e.g.
/// UNKNOWN_CATEGORY)"); the others the sandbox uses are its own, in the same style.
pub const ERROR_CODE_UNKNOWN_CATEGORY: &str = "UNKNOWN_CATEGORY";

/// `X-Service-Event-Type` of the creation webhook, the only webhook that declares one.
pub const EVENT_TYPE_ORDER_CREATED: &str = "order.created";

// ---------------------------------------------------------------------------------------------
// Menus.

vocabulary! {
    /// A `targetEntity` of a menu write or result (POST /menu/changes: "product, modifierOption,
    /// category, modifierGroup, localProduct").
    pub enum TargetEntity {
        /// A product of the catalog.
        Product = "product",
        /// An option of a modifier group.
        ModifierOption = "modifierOption",
        /// A category (brand only).
        Category = "category",
        /// A modifier group (brand only).
        ModifierGroup = "modifierGroup",
        /// A store-local product.
        LocalProduct = "localProduct",
    }
}

vocabulary! {
    /// The scope of a menu write (Menu scopes and async model).
    pub enum Scope {
        /// A per-store override on top of the master catalog (the default).
        Store = "store",
        /// The brand's master catalog.
        Brand = "brand",
    }
}

vocabulary! {
    /// A sales channel (`channels[]`: "delivery and/or pickup, case-insensitive").
    pub enum Channel {
        /// Delivery.
        Delivery = "delivery",
        /// Pickup.
        Pickup = "pickup",
    }
}

vocabulary! {
    /// A day of a schedule ("three-letter codes mon to sun, case-insensitive").
    pub enum Day {
        /// Monday.
        Mon = "mon",
        /// Tuesday.
        Tue = "tue",
        /// Wednesday.
        Wed = "wed",
        /// Thursday.
        Thu = "thu",
        /// Friday.
        Fri = "fri",
        /// Saturday.
        Sat = "sat",
        /// Sunday.
        Sun = "sun",
    }
}

vocabulary! {
    /// The `type` of a store override in the store menu read.
    pub enum OverrideType {
        /// Replaced by another item (`replacedBy`).
        Substituted = "substituted",
        /// Not available.
        Unavailable = "unavailable",
        /// Available in a window (`window`).
        Scheduled = "scheduled",
        /// Channels changed (`fields[]`).
        Channel = "channel",
        /// A value changed (`fields[]`).
        Value = "value",
    }
}

vocabulary! {
    /// The `type` of a modifier group ("radio or checkbox"; case-insensitive on PATCH modifiers).
    pub enum GroupType {
        /// One option.
        Radio = "radio",
        /// Several options.
        Checkbox = "checkbox",
    }
}

vocabulary! {
    /// The `origin` of a product in the store menu read ("brand = master catalog, store = local
    /// product").
    pub enum Origin {
        /// The brand's master catalog.
        Brand = "brand",
        /// A store-local product.
        Store = "store",
    }
}

vocabulary! {
    /// The `entity` of a capability entry.
    pub enum CapabilityEntity {
        /// A product.
        Product = "product",
        /// A modifier option.
        ModifierOption = "modifierOption",
        /// A category.
        Category = "category",
        /// A modifier group.
        ModifierGroup = "modifierGroup",
    }
}

vocabulary! {
    /// The `field` of a capability entry (and the `set` fields of the menu writes).
    pub enum CapabilityField {
        /// Availability (store scope).
        Available = "available",
        /// Price.
        Price = "price",
        /// Name.
        Name = "name",
        /// Description.
        Description = "description",
        /// Availability window.
        Schedule = "schedule",
        /// Sales channels.
        Channels = "channels",
        /// Tax fraction.
        Tax = "tax",
        /// Maximum per order.
        MaxPerOrder = "maxPerOrder",
        /// Image URL.
        Image = "image",
        /// Default option.
        IsDefault = "isDefault",
        /// Position.
        Position = "position",
        /// Group minimum.
        Min = "min",
        /// Group maximum.
        Max = "max",
        /// Group type.
        Type = "type",
    }
}

vocabulary! {
    /// The `status` of a menu change read ("Pending while being applied, Applied once
    /// processing finished; this is not the outcome").
    pub enum MenuChangeStatus {
        /// Being applied.
        Pending = "Pending",
        /// Processing finished (not the outcome).
        Applied = "Applied",
    }
}

vocabulary! {
    /// The `status` of a MenuChangeCompletedWebhook ("applied = all stores succeeded, partial,
    /// failed = all failed").
    pub enum MenuChangeOutcome {
        /// Every store succeeded.
        Applied = "applied",
        /// Some stores failed.
        Partial = "partial",
        /// Every store failed.
        Failed = "failed",
    }
}

// ---------------------------------------------------------------------------------------------
// Errors.

vocabulary! {
    /// A known problem `type` suffix ("Known type suffixes", Errors). Clients match the suffix.
    pub enum ProblemSuffix {
        /// 404.
        NotFound = "not-found",
        /// 422: the same Idempotency-Key with a different body.
        IdempotencyConflict = "idempotency-conflict",
        /// 409: the transition is not allowed.
        InvalidStateTransition = "invalid-state-transition",
        /// 422: the body breaks the contract.
        Validation = "validation",
        /// 409: the acceptance window expired.
        AcceptanceTimeout = "acceptance-timeout",
    }
}

impl Status {
    /// The statuses from which the merchant has no transition left (`allowedTransitions` is
    /// empty): HandedOver, Rejected and Cancelled. The order engine's table derives the same set
    /// (a test holds the two equal); what the service may still do from HandedOver (a
    /// cancellation by refund or incident) is not the merchant's.
    pub const MERCHANT_DONE: &'static [Status] = &[Status::HandedOver, Status::Rejected, Status::Cancelled];
}

/// How the contract writes the base of a problem type URI (`{problem_base}/<suffix>`).
pub const PROBLEM_BASE: &str = "{problem_base}";

impl ProblemSuffix {
    /// The type URI as the contract writes it: `{problem_base}/<suffix>`.
    pub fn type_uri(self) -> String {
        format!("{PROBLEM_BASE}/{}", self.as_str())
    }
}

// ---------------------------------------------------------------------------------------------
// Limits (Limits, and the sentences cited).

/// The payload schema version sent in `X-Service-Schema-Version` on every mutation.
pub const SCHEMA_VERSION: &str = "1.0";
/// "List page size: maximum 100".
pub const PAGE_SIZE_MAX: u32 = 100;
/// "List page size: … default 20".
pub const PAGE_SIZE_DEFAULT: u32 = 20;
/// "Webhook timestamp skew: at most 300 seconds".
pub const SKEW_SECONDS: i64 = 300;
/// "POS answer time to the creation webhook: 30 seconds; a slower answer counts as a failure".
pub const ANSWER_BUDGET_SECONDS: u32 = 30;
/// The same in milliseconds.
pub const ANSWER_BUDGET_MS: u32 = ANSWER_BUDGET_SECONDS * 1000;
/// "Idempotency cache: 24 hours".
pub const IDEMPOTENCY_TTL_SECONDS: i64 = 24 * 3600;
/// "Request rate, fixed window: 100 requests per minute, resets every 60 seconds".
pub const RATE_FIXED_LIMIT: u32 = 100;
/// The fixed window's length.
pub const RATE_FIXED_WINDOW_SECONDS: i64 = 60;
/// "Request rate, sliding window: 1,000 requests per hour, evaluated continuously".
pub const RATE_SLIDING_LIMIT: u32 = 1000;
/// The sliding window's length.
pub const RATE_SLIDING_WINDOW_SECONDS: i64 = 3600;
/// "occurredAt clamp: now minus 24 hours …".
pub const OCCURRED_AT_PAST_SECONDS: i64 = 24 * 3600;
/// "… to now plus 5 minutes".
pub const OCCURRED_AT_FUTURE_SECONDS: i64 = 5 * 60;
/// "remoteCode: up to 100 characters".
pub const REMOTE_CODE_MAX_CHARS: usize = 100;
/// "price (number, at least 0)" of products and options, writes and the read alike.
pub const MIN_PRICE: f64 = 0.0;
/// A brand product's `tax`: "fraction between 0 and 1".
pub const TAX_RANGE: (f64, f64) = (0.0, 1.0);
/// `maxPerOrder`: "integer above 0".
pub const MIN_MAX_PER_ORDER: i64 = 1;
/// A category's `position`: "integer, at least 0".
pub const MIN_POSITION: i64 = 0;
/// "Modifier group: min at least 0 …".
pub const MIN_GROUP_MIN: i64 = 0;
/// "… max at least 1 and at least min".
pub const MIN_GROUP_MAX: i64 = 1;

/// The bytes a remoteCode is made of: "letters, digits and `_ . - :`, no spaces".
#[inline]
pub fn is_remote_code_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-' | b':')
}

/// "Local product maxPerOrder default: 25; must be above 0".
pub const LOCAL_PRODUCT_MAX_PER_ORDER_DEFAULT: i64 = 25;
/// "Local product tax: only 0, 0.15, 0.18".
pub const LOCAL_PRODUCT_TAXES: &[f64] = &[0.0, 0.15, 0.18];
/// The local product tax's default ("tax (0, 0.15 or 0.18; default 0)").
pub const LOCAL_PRODUCT_TAX_DEFAULT: f64 = 0.0;
/// "For orders created on or after 2026-08-12, null means no confirmed delivery yet. Orders
/// created before that date return null permanently" (deliveredAt): 2026-08-12T00:00:00Z.
pub const DELIVERED_AT_CUTOFF_UNIX: i64 = 1_786_492_800;

/// Every vocabulary as one JSON object, for the faces that must not spell the words themselves
/// (the npm package's sources): `{ "Status": { "Pending": "Pending", …, "HandedOver":
/// "HandedOver" }, "WriteStatus": { "HandedOver": "handed_over", … }, …, "merchantDone": […],
/// "limits": { … } }`. The keys of each vocabulary are the Rust variant names.
pub fn words_json() -> String {
    fn vocabulary(variants: &[&str], names: &[&str]) -> serde_json::Value {
        serde_json::Value::Object(variants.iter().zip(names).map(|(v, n)| ((*v).to_string(), serde_json::Value::from(*n))).collect())
    }
    let mut out = serde_json::Map::new();
    macro_rules! add {
        ($($t:ident),+) => { $( out.insert(stringify!($t).into(), vocabulary($t::VARIANTS, $t::NAMES)); )+ };
    }
    add!(
        Status,
        WriteStatus,
        ActorType,
        DriverEvent,
        UpdateEvent,
        ExpectedNext,
        ReasonCode,
        FulfillmentType,
        PublishedEvent,
        TargetEntity,
        Scope,
        Channel,
        Day,
        OverrideType,
        GroupType,
        Origin,
        CapabilityEntity,
        CapabilityField,
        MenuChangeStatus,
        MenuChangeOutcome,
        ProblemSuffix
    );
    out.insert("merchantDone".into(), Status::MERCHANT_DONE.iter().map(|s| s.as_str()).collect::<Vec<_>>().into());
    out.insert(
        "limits".into(),
        serde_json::json!({
            "schemaVersion": SCHEMA_VERSION,
            "pageSizeMax": PAGE_SIZE_MAX,
            "pageSizeDefault": PAGE_SIZE_DEFAULT,
            "skewSeconds": SKEW_SECONDS,
            "answerBudgetMs": ANSWER_BUDGET_MS,
            "remoteCodeMaxChars": REMOTE_CODE_MAX_CHARS,
        }),
    );
    serde_json::Value::Object(out).to_string()
}

#[cfg(test)]
mod tests;
