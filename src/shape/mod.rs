//! The shape checkers: one function per payload, resource and request body of the contract
//! (fields, types, values, the rules between fields), over the positioned JSON tree. The order
//! checker and the menu diff use them, and [`crate::payload`] dispatches to them; they import
//! neither.
//!
//! The checkers' tables (field lists, value lists, limits) are crate-visible: the JSON Schemas of
//! [`crate::schema`] are generated from them.

pub(crate) mod answers;
pub(crate) mod bodies;
pub(crate) mod currency;
pub(crate) mod fields;
pub(crate) mod menu_read;
pub(crate) mod order;
pub mod rules;
pub(crate) mod validate;
pub(crate) mod webhooks;

use crate::diagnostic::{Collector, Path};
use crate::json::Value;
use serde::Serialize;
use std::borrow::Cow;

/// What a payload is. Serialized camelCase: `"orderUpdateEvent"`, `"menuChangeCompleted"`, …
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(export))]
#[serde(rename_all = "camelCase")]
pub enum PayloadKind {
    /// OrderUpdateEvent, body of `PUT {pos_base_url}/v1/order/{remoteId}/{remoteOrderId}/events`.
    OrderUpdateEvent,
    /// MenuChangeCompletedWebhook, body of `POST {pos_base_url}/v1/menu/change/{changeKey}`.
    MenuChangeCompleted,
    /// The order creation payload, body of `POST {pos_base_url}/v1/order/{remoteId}` (shape of
    /// `data.order`, and the order's `orderKey` beside those fields: its placement is assumed).
    OrderCreated,
    /// The POS's answer to the creation webhook: `{ "remoteOrderId": "…" }`.
    OrderCreatedResponse,
    /// The suggested body of the POS's error replies (any JSON or empty is accepted).
    MerchantErrorResponse,
    /// The 2xx envelope `{ message, data }` of every REST response.
    Envelope,
    /// The order resource (`data` of GET /api/v1/Orders/{orderKey}), bare or in its envelope.
    OrderDetail,
    /// A list page (`data` of GET /api/v1/Orders), bare or in its envelope.
    OrderList,
    /// The store menu (`data` of GET /api/v1/menu/stores/{storeRemoteId}), bare or in its envelope.
    StoreMenu,
    /// A menu change (`data` of GET /api/v1/menu/changes/{changeId}), bare or in its envelope.
    MenuChange,
    /// The capabilities (`data` of GET /api/v1/menu/capabilities), bare or in its envelope.
    Capabilities,
    /// The 202 answer of an asynchronous menu write (`data.changeId`), bare or in its envelope.
    MenuWriteAccepted,
    /// The 202 answer of `POST /api/v1/Orders/{orderKey}/accept`, bare or in its envelope.
    AcceptAnswer,
    /// The 202 answer of `POST /api/v1/Orders/{orderKey}/reject`, bare or in its envelope.
    RejectAnswer,
    /// The 202 answer of `PUT /api/v1/Orders/{orderKey}/status`, bare or in its envelope.
    StatusAnswer,
    /// A full menu submission (body of `PUT /api/v1/menu` and `POST /api/v1/menu/preview`),
    /// checked by the menu linter.
    FullMenu,
}

impl PayloadKind {
    /// The payloads the service sends the POS by webhook, in [`PayloadKind::ALL`]'s order: the
    /// kinds the webhook-only validation (the receiver's, `poscheck/webhook`'s) checks.
    pub const WEBHOOK: &'static [PayloadKind] = &[Self::OrderUpdateEvent, Self::MenuChangeCompleted, Self::OrderCreated];

    /// Every kind, in detection order (the first wins a tie).
    pub const ALL: &'static [PayloadKind] = &[
        Self::OrderUpdateEvent,
        Self::MenuChangeCompleted,
        Self::OrderCreated,
        Self::OrderCreatedResponse,
        Self::MerchantErrorResponse,
        Self::Envelope,
        Self::OrderDetail,
        Self::OrderList,
        Self::StoreMenu,
        Self::MenuChange,
        Self::Capabilities,
        Self::MenuWriteAccepted,
        Self::AcceptAnswer,
        Self::RejectAnswer,
        Self::StatusAnswer,
        Self::FullMenu,
    ];

    /// The camelCase id used in reports, the JS API and the CLI (`orderUpdateEvent`).
    pub fn id(&self) -> &'static str {
        match self {
            Self::OrderUpdateEvent => "orderUpdateEvent",
            Self::MenuChangeCompleted => "menuChangeCompleted",
            Self::OrderCreated => "orderCreated",
            Self::OrderCreatedResponse => "orderCreatedResponse",
            Self::MerchantErrorResponse => "merchantErrorResponse",
            Self::Envelope => "envelope",
            Self::OrderDetail => "orderDetail",
            Self::OrderList => "orderList",
            Self::StoreMenu => "storeMenu",
            Self::MenuChange => "menuChange",
            Self::Capabilities => "capabilities",
            Self::MenuWriteAccepted => "menuWriteAccepted",
            Self::AcceptAnswer => "acceptAnswer",
            Self::RejectAnswer => "rejectAnswer",
            Self::StatusAnswer => "statusAnswer",
            Self::FullMenu => "fullMenu",
        }
    }

    /// The kind of an id (exact, as returned by [`id`](Self::id)).
    pub fn from_id(id: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|k| k.id() == id)
    }

    /// Resources the POS reads, which may come bare or inside the `{ message, data }` envelope.
    pub(crate) fn is_resource(&self) -> bool {
        matches!(
            self,
            Self::OrderDetail
                | Self::OrderList
                | Self::StoreMenu
                | Self::MenuChange
                | Self::Capabilities
                | Self::MenuWriteAccepted
                | Self::AcceptAnswer
                | Self::RejectAnswer
                | Self::StatusAnswer
        )
    }
}

/// What a path says: the kind whose route it is and its parameters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RouteInfo<'p> {
    pub kind: Option<PayloadKind>,
    /// The parameters, percent-decoded: borrowed from the path when written without a `%`.
    pub remote_id: Option<Cow<'p, str>>,
    pub remote_order_id: Option<Cow<'p, str>>,
    pub change_key: Option<Cow<'p, str>>,
    /// The former `/status` route of the update webhook.
    pub old_status_route: bool,
}

/// `data.order` of an order detail: the shape of the creation payload (used by the order checker).
pub(crate) use validate::validate_store_menu;

pub(crate) fn check_order_content(c: &mut Collector, path: &Path, v: &Value) {
    order::order_content(c, path, v, &RouteInfo::default(), false);
}
