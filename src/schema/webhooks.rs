//! What the service sends the POS by webhook, and what the POS answers.

use super::{
    array, boolean, described, document, f, non_blank, object, one_of, prefixed_key, r#ref, require, string, utc_timestamp, validate_check,
    when, when_in, with_rules, About, Members, F, TIMESTAMP,
};
use crate::check::{CHANGE_KEY_PREFIX, ORDER_KEY_PREFIX};
use crate::contract::MenuChangeOutcome;
use crate::payload::fields::P;
use crate::payload::order as o;
use crate::payload::webhooks as w;
use serde_json::{json, Value};

/// A driver `phone`: digits, at least one, and the punctuation of international numbers
/// ([`w::is_phone_punctuation`]); the checker's `order-update/driver-phone-format`.
fn phone() -> Value {
    let punctuation: String = (0u8..0x80).filter(|b| w::is_phone_punctuation(*b)).map(|b| format!("\\x{b:02X}")).collect();
    json!({
        "type": "string",
        "pattern": format!("^[0-9{punctuation}]*[0-9][0-9{punctuation}]*$"),
        "examples": ["+1 809 555 0100"],
    })
}

/// OrderUpdateEvent, the body of the update webhook.
pub(crate) fn order_update_event() -> Value {
    let events = crate::payload::webhooks::UPDATE_EVENTS;
    let fields = vec![
        f("orderKey", P::Req, "Required. `ord_` + 16 base62.", prefixed_key(ORDER_KEY_PREFIX)),
        f("remoteOrderId", P::Req, "Required. POS order id; the path parameter is authoritative.", string()),
        f(
            "event",
            P::Req,
            "Required. `cancelled`, `driver_assigned`, `driver_released`, `delivered`; unknown future values are ignored with a 200.",
            json!({ "type": "string", "examples": events }),
        ),
        f("occurredAt", P::Req, "Required. Timestamp, UTC.", r#ref(TIMESTAMP)),
        f("reason", P::OptNull, "string or null, not required. Present when event is cancelled or driver_released; absent otherwise.", string()),
        f("driver", P::OptNull, "OrderEventDriver or null, not required. Present when event is driver_assigned.", r#ref("OrderEventDriver")),
        f(
            "releasedDriver",
            P::OptNull,
            "OrderEventDriver or null, not required. Present when event is driver_released.",
            r#ref("OrderEventDriver"),
        ),
        f(
            "expectedNext",
            P::OptNull,
            "string or null, not required. Present when event is driver_released; current value `driver_reassignment`; unknown values tolerated.",
            json!({ "type": "string", "examples": [w::EXPECTED_NEXT_VALUE] }),
        ),
    ];
    let root = object("", "", w::UPDATE_FIELDS, fields, Members::Additive);
    // "Present when event is …": a conditional field is required for the events that carry it
    // (`order-update/field-missing-for-event`); present for another event is only a warning.
    let rules = w::CONDITIONALS.iter().map(|(field, on)| when_in("event", on, require(&[field]))).collect();
    let driver = object(
        "OrderEventDriver",
        "OrderEventDriver: fullName (string, required); phone (string or null, optional, international format; absent or null when not registered or private).",
        &w::DRIVER_FIELDS,
        vec![
            f("fullName", P::Req, "string, required.", string()),
            f(
                "phone",
                P::OptNull,
                "string or null, optional, international format; absent or null when not registered or private.",
                phone(),
            ),
        ],
        Members::Additive,
    );
    document(
        "orderUpdateEvent",
        "OrderUpdateEvent",
        About {
            what: "OrderUpdateEvent: the body of the update webhook, `PUT {pos_base_url}/v1/order/{remoteId}/{remoteOrderId}/events` (no X-Service-Event-Type). Expected POS response: always 200.".into(),
            contract: "\"Unknown event values are ignored with 200.\" \"New values may be added to the update webhook event set without a version change; receivers ignore unknown values.\" Since 2026-08-12 update webhooks go to `/events` with field `event`; the former `/status` route and `status` field are no longer emitted.",
            check: validate_check("orderUpdateEvent"),
            left_out: &[
                ("order-update/old-route", "the route: the former /status route instead of /events"),
                ("order-update/remote-order-id-path", "remoteOrderId agreeing with the path parameter, which is authoritative"),
            ],
        },
        with_rules(root, rules),
        vec![("OrderEventDriver", driver), (TIMESTAMP, utc_timestamp())],
    )
}

/// MenuChangeCompletedWebhook, the body of the menu change webhook.
pub(crate) fn menu_change_completed() -> Value {
    let result = object(
        "MenuChangeResult",
        "MenuChangeResult: storeRemoteId (string), targetEntity (values in use: product, modifierOption, localProduct), targetCode (string), applied (boolean), errorCode and errorMessage (string or null; present only when applied is false; when applied is true both are omitted from the JSON, not serialized as null).",
        w::CHANGE_RESULT_FIELDS,
        vec![
            f("storeRemoteId", P::Req, "string.", string()),
            f(
                "targetEntity",
                P::Req,
                "Values in use: `product`, `modifierOption`, `localProduct`.",
                json!({ "type": "string", "examples": w::WEBHOOK_TARGET_ENTITIES }),
            ),
            f("targetCode", P::Req, "string.", string()),
            f("applied", P::Req, "boolean.", boolean()),
            f(
                "errorCode",
                P::OptNull,
                "string or null; present only when applied is false; when applied is true it is omitted from the JSON, not serialized as null.",
                string(),
            ),
            f(
                "errorMessage",
                P::OptNull,
                "string or null; present only when applied is false; when applied is true it is omitted from the JSON, not serialized as null.",
                string(),
            ),
        ],
        Members::Additive,
    );
    let errors = w::CHANGE_ERROR_FIELDS;
    let absent: serde_json::Map<String, Value> = errors.iter().map(|k| (k.to_string(), Value::Bool(false))).collect();
    let result = with_rules(
        result,
        vec![
            // `menu-change/error-fields-on-applied` and `menu-change/error-fields-missing`.
            when("applied", true, json!({ "properties": absent })),
            when("applied", false, require(&errors)),
        ],
    );
    let fields = vec![
        f(
            "changeKey",
            P::Req,
            "`chg_` + 16 base62; equals the path parameter and the changeId of the original 202.",
            prefixed_key(CHANGE_KEY_PREFIX),
        ),
        f("status", P::Req, "`applied` = all stores succeeded, `partial`, `failed` = all failed.", one_of(w::CHANGE_WEBHOOK_STATUSES)),
        f("submittedAt", P::Req, "Timestamp.", r#ref(TIMESTAMP)),
        f("completedAt", P::Req, "Timestamp (UTC).", r#ref(TIMESTAMP)),
        f("results", P::Req, "results[] (MenuChangeResult).", array(r#ref("MenuChangeResult"))),
    ];
    let root = object("", "", w::CHANGE_WEBHOOK_FIELDS, fields, Members::Additive);
    // `menu-change/status-results`: applied = every row applied, failed = no row applied,
    // partial = some of each.
    let row = |applied: bool| json!({ "type": "object", "properties": { "applied": { "const": applied } }, "required": ["applied"] });
    let status = |s: &str, results: Value| {
        assert!(w::CHANGE_WEBHOOK_STATUSES.contains(&s));
        when("status", s, json!({ "properties": { "results": results } }))
    };
    let rules = vec![
        status(MenuChangeOutcome::Applied.as_str(), json!({ "type": "array", "not": { "contains": row(false) } })),
        status(MenuChangeOutcome::Failed.as_str(), json!({ "type": "array", "not": { "contains": row(true) } })),
        status(
            MenuChangeOutcome::Partial.as_str(),
            json!({ "type": "array", "allOf": [{ "contains": row(true) }, { "contains": row(false) }] }),
        ),
    ];
    document(
        "menuChangeCompleted",
        "MenuChangeCompletedWebhook",
        About {
            what: "MenuChangeCompletedWebhook: the body of the menu change webhook, `POST {pos_base_url}/v1/menu/change/{changeKey}` (event name menu.change.completed.v1).".into(),
            contract: "\"A global Applied may coexist with rows where applied is false\" (in the menu change resource); in this webhook, status says `applied` when all stores succeeded, `failed` when all failed, `partial` otherwise.",
            check: validate_check("menuChangeCompleted"),
            left_out: &[
                ("menu-change/change-key-path", "changeKey equal to the {changeKey} of the request path"),
                ("menu-change/completed-before-submitted", "completedAt not earlier than submittedAt (a comparison of two fields)"),
            ],
        },
        with_rules(root, rules),
        vec![("MenuChangeResult", result), (TIMESTAMP, utc_timestamp())],
    )
}

/// The commercial content of an order (`data.order`, the shape of the creation payload): the
/// root object's fields (without `orderKey`) and the definitions it refers to.
pub(crate) fn order_content_fields() -> Vec<F> {
    vec![
        f("displayCode", P::Req, "string, human-readable code for support.", string()),
        f("storeRemoteId", P::Req, "string, the store code in the POS.", string()),
        f("currency", P::Req, "string, ISO 4217.", r#ref("CurrencyCode")),
        f("createdAt", P::Req, "timestamp.", r#ref(TIMESTAMP)),
        f("expiresAt", P::ReqNull, "timestamp or null; acceptance deadline; null for auto-accept stores.", r#ref(TIMESTAMP)),
        f(
            "fulfillment",
            P::Req,
            "object: type (`delivery` or `pickup`), isExpress, prepareBy, and driverPickupAt (delivery) or customerPickupAt (pickup).",
            r#ref("Fulfillment"),
        ),
        f("customer", P::ReqNull, "object or null: firstName; only on pickup, null on delivery.", r#ref("Customer")),
        f(
            "payment",
            P::Req,
            "object: methods[] (type, amount; cash, card and bips may be combined), amountToCollect, changeFor.",
            r#ref("Payment"),
        ),
        f("summary", P::Req, "object: subtotal, taxes, discounts, additionalCharges, grandTotal.", r#ref("Summary")),
        f("charges", P::Req, "charges[]: code, amount, billedBy.", array(r#ref("Charge"))),
        f("discounts", P::Req, "discounts[]: code, name, amount, fundedBy.", array(r#ref("Discount"))),
        f(
            "items",
            P::Req,
            "items[]: code, remoteCode, name, quantity, unitPrice, tax, lineTotal, note, modifierGroups[].",
            array(r#ref("OrderItem")),
        ),
        f("customerNote", P::ReqNull, "string or null.", string()),
        f("invoice", P::ReqNull, "object or null: taxId, businessName; null for final consumers.", r#ref("Invoice")),
    ]
}

/// "customer: only on pickup, null on delivery" (`order/customer-on-delivery`).
pub(crate) fn customer_rule() -> Value {
    json!({
        "if": {
            "properties": { "fulfillment": { "type": "object", "properties": { "type": { "const": o::CUSTOMER_NULL_ON } }, "required": ["type"] } },
            "required": ["fulfillment"]
        },
        "then": { "properties": { "customer": { "type": "null" } } }
    })
}

const NOT_SHOWN_AMOUNT: &str = "Types and formats of amount fields: not shown (any value; always present).";

/// The definitions the commercial content refers to.
pub(crate) fn order_content_defs() -> Vec<(&'static str, Value)> {
    let fulfillment = object(
        "Fulfillment",
        "fulfillment: type (`delivery` or `pickup`), isExpress, prepareBy, and driverPickupAt (delivery) or customerPickupAt (pickup).",
        o::FULFILLMENT_FIELDS,
        vec![
            f("type", P::Req, "`delivery` or `pickup`.", one_of(o::FULFILLMENT_TYPES)),
            f("isExpress", P::Req, "isExpress (listed in fulfillment; a boolean).", boolean()),
            f("prepareBy", P::ReqNull, "prepareBy (listed in fulfillment; a timestamp or null).", r#ref(TIMESTAMP)),
            f("driverPickupAt", P::OptNull, "On delivery orders (\"driverPickupAt (delivery)\"); absent on pickup.", r#ref(TIMESTAMP)),
            f("customerPickupAt", P::OptNull, "On pickup orders (\"customerPickupAt (pickup)\"); absent on delivery.", r#ref(TIMESTAMP)),
        ],
        Members::Additive,
    );
    // `order/fulfillment-time-missing` and `order/fulfillment-time-unexpected`: each type carries
    // its own pickup time and not the other's.
    let rules = o::FULFILLMENT_TYPES
        .iter()
        .map(|t| {
            let required: Vec<&str> = o::FULFILLMENT_TIMES.iter().filter(|(_, on)| on == t).map(|(k, _)| *k).collect();
            let mut then = require(&required);
            for (k, _) in o::FULFILLMENT_TIMES.iter().filter(|(_, on)| on != t) {
                then["properties"][*k] = Value::Bool(false);
            }
            when("type", *t, then)
        })
        .collect();
    let fulfillment = with_rules(fulfillment, rules);
    vec![
        ("Fulfillment", fulfillment),
        (
            "Customer",
            object(
                "Customer",
                "customer: firstName; only on pickup, null on delivery.",
                o::CUSTOMER_FIELDS,
                vec![f("firstName", P::Req, "firstName (a string).", string())],
                Members::Additive,
            ),
        ),
        (
            "Payment",
            object(
                "Payment",
                "payment: methods[] (type, amount; cash, card and bips may be combined), amountToCollect, changeFor.",
                o::PAYMENT_FIELDS,
                vec![
                    f("methods", P::Req, "methods[] (type, amount; cash, card and bips may be combined).", array(r#ref("PaymentMethod"))),
                    f("amountToCollect", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                    f("changeFor", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                ],
                Members::Additive,
            ),
        ),
        (
            "PaymentMethod",
            object(
                "PaymentMethod",
                "payment.methods[]: type, amount (cash, card and bips may be combined).",
                o::PAYMENT_METHOD_FIELDS,
                vec![
                    f(
                        "type",
                        P::Req,
                        "A string; allowed values of payment method type: not shown (cash, card and bips may be combined).",
                        json!({ "type": "string", "examples": ["cash", "card", "bips"] }),
                    ),
                    f("amount", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                ],
                Members::Additive,
            ),
        ),
        (
            "Summary",
            object(
                "Summary",
                "summary: subtotal, taxes, discounts, additionalCharges, grandTotal.",
                o::SUMMARY_FIELDS,
                o::SUMMARY_FIELDS.iter().map(|k| f(k, P::ReqNull, NOT_SHOWN_AMOUNT, json!({}))).collect(),
                Members::Additive,
            ),
        ),
        (
            "Charge",
            object(
                "Charge",
                "charges[]: code, amount, billedBy.",
                o::CHARGE_FIELDS,
                vec![
                    f("code", P::Req, "code (a string).", string()),
                    f("amount", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                    f("billedBy", P::ReqNull, "billedBy (its type is not shown).", json!({})),
                ],
                Members::Additive,
            ),
        ),
        (
            "Discount",
            object(
                "Discount",
                "discounts[]: code, name, amount, fundedBy.",
                o::DISCOUNT_FIELDS,
                vec![
                    f("code", P::Req, "code (a string).", string()),
                    f("name", P::Req, "name (a string).", string()),
                    f("amount", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                    f("fundedBy", P::ReqNull, "fundedBy (its type is not shown).", json!({})),
                ],
                Members::Additive,
            ),
        ),
        (
            "OrderItem",
            object(
                "OrderItem",
                "items[]: code, remoteCode, name, quantity, unitPrice, tax, lineTotal, note, modifierGroups[].",
                o::ITEM_FIELDS,
                vec![
                    f("code", P::Req, "code (a string).", string()),
                    f("remoteCode", P::ReqNull, "remoteCode (the POS code; its type is not shown).", json!({})),
                    f("name", P::Req, "name (a string).", string()),
                    f("quantity", P::ReqNull, "quantity (its type is not shown).", json!({})),
                    f("unitPrice", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                    f("tax", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                    f("lineTotal", P::ReqNull, NOT_SHOWN_AMOUNT, json!({})),
                    f("note", P::ReqNull, "note (a string or null).", string()),
                    f(
                        "modifierGroups",
                        P::Req,
                        "modifierGroups[]: the inner fields of items[].modifierGroups[] are not shown.",
                        json!({ "type": "array" }),
                    ),
                ],
                Members::Additive,
            ),
        ),
        (
            "Invoice",
            object(
                "Invoice",
                "invoice: taxId, businessName; null for final consumers.",
                o::INVOICE_FIELDS,
                vec![
                    f("taxId", P::ReqNull, "taxId (a string or null).", string()),
                    f("businessName", P::ReqNull, "businessName (a string or null).", string()),
                ],
                Members::Additive,
            ),
        ),
        (
            "CurrencyCode",
            json!({
                "title": "CurrencyCode",
                "description": "ISO 4217: a current alphabetic code, upper case (e.g. USD).",
                "type": "string",
                "enum": crate::payload::currency::ISO_4217,
            }),
        ),
        (TIMESTAMP, utc_timestamp()),
    ]
}

/// The order creation payload, the body of the creation webhook.
pub(crate) fn order_created() -> Value {
    let mut fields = vec![f(
        "orderKey",
        P::Opt,
        "The order's orderKey (`ord_` + 16 base62), which POST accept and reject take \"from the creation webhook\". Its place in the envelope is not shown (assumed: beside the data.order fields).",
        prefixed_key(ORDER_KEY_PREFIX),
    )];
    fields.extend(order_content_fields());
    // The rest of the creation envelope is not shown: other fields are tolerated (an info).
    let root = object("", "", o::CREATION_FIELDS, fields, Members::Open);
    document(
        "orderCreated",
        "OrderCreated",
        About {
            what: "The order creation payload: the body of the creation webhook, `POST {pos_base_url}/v1/order/{remoteId}` (X-Service-Event-Type `order.created`). Expected POS response: HTTP 200 with JSON `{ remoteOrderId: string }`, non-null and non-empty, within 30 seconds (schema `orderCreatedResponse`).".into(),
            contract: "\"Order creation payload; its commercial part has the shape of data.order. Full envelope beyond that: not shown.\" Fields beyond the data.order shape are therefore tolerated here. \"Types and formats of amount fields, allowed values of payment method type, and the inner fields of items[].modifierGroups[]: not shown.\"",
            check: validate_check("orderCreated"),
            left_out: &[("order/store-remote-id-path", "storeRemoteId agreeing with the {remoteId} of the request path")],
        },
        with_rules(root, vec![customer_rule()]),
        order_content_defs(),
    )
}

/// The POS's answer to the creation webhook.
pub(crate) fn order_created_response() -> Value {
    let root = object(
        "",
        "",
        w::CREATED_RESPONSE_FIELDS,
        vec![f(
            "remoteOrderId",
            P::Req,
            "string, non-null and non-empty: the POS's own order reference. Without a valid remoteOrderId the delivery counts as failed and is retried.",
            non_blank(),
        )],
        Members::Closed,
    );
    document(
        "orderCreatedResponse",
        "OrderCreatedResponse",
        About {
            what: "The POS's answer to the creation webhook (`POST {pos_base_url}/v1/order/{remoteId}`).".into(),
            contract: "\"HTTP 200 with JSON `{ remoteOrderId: string }`, non-null and non-empty, within 30 seconds. Without a valid remoteOrderId the delivery counts as failed and is retried.\" For auto-accept stores the service accepts the order itself when the POS answers 200 with a remoteOrderId.",
            check: validate_check("orderCreatedResponse"),
            left_out: &[],
        },
        root,
        vec![],
    )
}

/// The suggested body of the POS's error replies: any JSON is accepted.
pub(crate) fn merchant_error_response() -> Value {
    let mut properties = serde_json::Map::new();
    for k in w::MERCHANT_ERROR_TEXT_FIELDS {
        properties.insert(k.into(), described(&format!("{k} (string, optional)."), json!({})));
    }
    properties.insert("timestamp".into(), described("timestamp (optional).", json!({})));
    // Any JSON is accepted: the suggested shape is described (for editors) but not enforced.
    let root = json!({ "if": { "type": "object" }, "then": { "type": "object", "properties": properties } });
    document(
        "merchantErrorResponse",
        "MerchantErrorResponse",
        About {
            what: "MerchantErrorResponse: the suggested body of the POS's error replies to a webhook.".into(),
            contract: "\"Suggested body of the POS's error replies; any JSON or an empty body is accepted\": error (string, optional), message (string, optional), timestamp (optional). \"The receiver only communicates through the HTTP status; the body of its error replies is informational.\" Every JSON document is valid against this schema.",
            check: validate_check("merchantErrorResponse"),
            left_out: &[],
        },
        root,
        vec![],
    )
}
