//! What the POS reads from the REST API: the envelope, the order, the list, the store menu, a menu
//! change, the capabilities, and the 2xx answers of the operations.

use super::webhooks::{customer_rule, order_content_defs, order_content_fields};
use super::{
    array, bare_or_enveloped, boolean, document, envelope_of, f, forbidden, http_url, integer, number, object, one_of, one_of_any_case,
    prefixed_key, r#ref, string, utc_timestamp, validate_check, when, when_in, with_rules, About, Members, TIMESTAMP,
};
use crate::check::{CHANGE_KEY_PREFIX, ORDER_KEY_PREFIX};
use crate::payload::fields::P;
use crate::payload::{answers as a, menu_read as m, order as o};
use serde_json::{json, Value};

/// The envelope alone (`validatePayload` kind `envelope`).
pub(crate) fn envelope() -> Value {
    let root = envelope_of("", json!({ "type": "object" }));
    document(
        "envelope",
        "Envelope",
        About {
            what: "The 2xx envelope of every REST response: `{ message: string, data: object }`.".into(),
            contract: "\"All 2xx responses use the envelope `{ message: string, data: object }`. message is human text that may change; business logic uses the HTTP status and data.\" The schemas of each resource (orderDetail, orderList, storeMenu, menuChange, capabilities and the answers) describe its data.",
            check: validate_check("envelope"),
            left_out: &[],
        },
        root,
        vec![],
    )
}

/// The contract's words for each nullable timestamp of the Order resource.
fn order_timestamp(name: &str) -> &'static str {
    match name {
        "acceptedAt" | "rejectedAt" | "preparingAt" | "readyAt" => {
            "timestamp or null. Merchant transition timestamps (acceptedAt, rejectedAt, preparingAt, readyAt). preparingAt usually equals acceptedAt because of the accept cascade."
        }
        "driverAssignedAt" => "timestamp or null. When a driver was assigned. Cleared when the driver is released.",
        "handedOverAt" => "timestamp or null. When the merchant released the food (to the driver on delivery, to the customer on pickup). May be null while status is HandedOver, when the merchant never reported the handover and the service closed the order on confirmed delivery. It must not be used to detect that the order left; status is used for that.",
        "deliveredAt" => "timestamp or null. Since when the customer has the order. For orders created on or after 2026-08-12, null means no confirmed delivery yet. Orders created before that date return null permanently, even if delivered (no backfill); for them HandedOver is the only sign of closure. On delivery orders it is set when the driver confirms and is later than handedOverAt; on pickup it equals handedOverAt.",
        "cancelledAt" => "timestamp or null. When cancelled. May be set after a delivery (refund or incident).",
        other => panic!("the Order resource's timestamp {other} has no description"),
    }
}

/// The Order resource (GET /api/v1/Orders/{orderKey}, `data`).
pub(crate) fn order_detail() -> Value {
    let statuses = crate::order::machine::OBSERVABLE;
    let mut fields = vec![
        f(
            "orderKey",
            P::Req,
            "string. Public opaque id, `ord_` + 16 base62 characters. The only order id used in URLs and payloads.",
            prefixed_key(ORDER_KEY_PREFIX),
        ),
        f("storeId", P::Req, "integer. Internal store id. Stores are addressed by the POS's own storeRemoteId.", integer(None)),
        f("brandId", P::Req, "integer. Internal id of the owning brand.", integer(None)),
        f(
            "status",
            P::Req,
            "string. Current status, PascalCase (see States). Accepted is never observable by the POS (the accept cascade passes through it atomically).",
            one_of(statuses),
        ),
        f("merchantStatusReason", P::ReqNull, "string or null. Reason of the last status change, when declared.", string()),
        f("remoteOrderId", P::ReqNull, "string or null. POS's own order reference.", string()),
        f("receivedAt", P::Req, "timestamp. When the service received the order; anchors the acceptance window.", r#ref(TIMESTAMP)),
    ];
    for name in crate::order::NULLABLE_TIMESTAMPS {
        fields.push(f(name, P::ReqNull, order_timestamp(name), r#ref(TIMESTAMP)));
    }
    fields.push(f("history", P::Req, "array. Chronological trace of status changes.", array(r#ref("HistoryEntry"))));
    fields.push(f(
        "order",
        P::ReqNull,
        "object or null. Commercial content (same shape as the creation webhook payload). Null only if the original snapshot cannot be read.",
        r#ref("OrderContent"),
    ));
    let detail = object(
        "OrderDetail",
        "The Order resource: `data` of GET /api/v1/Orders/{orderKey}. Timestamps are ISO 8601 in UTC; `X | null` means the field is always present and may be null.",
        crate::order::ORDER_FIELDS,
        fields,
        Members::Additive,
    );
    let entry = object(
        "HistoryEntry",
        "history[] entry. Rule: assign, reassign and release rows have fromStatus equal to toStatus. Only driver.event tells a release from an assignment.",
        crate::order::HISTORY_FIELDS,
        vec![
            f("fromStatus", P::ReqNull, "string or null. Null on the first entry.", one_of(statuses)),
            f("toStatus", P::Req, "string.", one_of(statuses)),
            f("changedAt", P::Req, "timestamp.", r#ref(TIMESTAMP)),
            f(
                "actorType",
                P::Req,
                "enum: `merchant`, `customer`, `operator`, `driver`, `system` (system covers acceptance timeout and delivery failure).",
                one_of(crate::order::ACTOR_TYPES),
            ),
            f("actorId", P::ReqNull, "string or null. Null for system.", string()),
            f(
                "reason",
                P::ReqNull,
                "string or null. Free text; never parsed. For customer cancellations it carries the customer's comment, or the name of the chosen reason when no comment was written; orders cancelled before 2026-08-11 carry a numeric identifier.",
                string(),
            ),
            f("driver", P::ReqNull, "object or null. Present only on driver changes.", r#ref("HistoryDriver")),
        ],
        Members::Additive,
    );
    let driver = object(
        "HistoryDriver",
        "driver object: event (driver_assigned, driver_reassigned, driver_released); code (string or null, opaque label; falls back to the internal id when the driver has no code on file; its format is not stable and must not be validated against a pattern); fullName (string or null); previousCode (string or null, only on driver_reassigned).",
        crate::order::HISTORY_DRIVER_FIELDS,
        vec![
            f("event", P::Req, "`driver_assigned`, `driver_reassigned`, `driver_released`.", one_of(crate::order::DRIVER_EVENTS)),
            f(
                "code",
                P::OptNull,
                "string or null, opaque label; falls back to the internal id when the driver has no code on file; its format is not stable and must not be validated against a pattern.",
                string(),
            ),
            f("fullName", P::OptNull, "string or null.", string()),
            f("previousCode", P::OptNull, "string or null, only on driver_reassigned.", string()),
        ],
        Members::Additive,
    );
    let content = with_rules(
        object(
            "OrderContent",
            "data.order: the commercial content, same shape as the creation webhook payload. \"Types and formats of amount fields, allowed values of payment method type, and the inner fields of items[].modifierGroups[]: not shown.\"",
            o::ORDER_FIELDS,
            order_content_fields(),
            Members::Additive,
        ),
        vec![customer_rule()],
    );
    let (root, envelope) = bare_or_enveloped("OrderDetail");
    let mut defs = vec![
        ("OrderDetail", detail),
        (envelope.0.as_str(), envelope.1.clone()),
        ("HistoryEntry", entry),
        ("HistoryDriver", driver),
        ("OrderContent", content),
    ];
    defs.extend(order_content_defs());
    document(
        "orderDetail",
        "OrderDetail",
        About {
            what: "The order as read from `GET /api/v1/Orders/{orderKey}`: its `data`, or the whole `{ message, data }` envelope.".into(),
            contract: "Read vocabulary (PascalCase): Pending, Accepted, Preparing, Ready, HandedOver, Rejected, Cancelled; Accepted is never observable by the POS. A driver is not a status.",
            check: format!("`poscheck order FILE` (in JS `checkOrder`), or {}", validate_check("orderDetail")),
            left_out: &[
                ("order/history-first", "fromStatus null on the first history entry, and only there (the order of the rows)"),
                ("order/history-order", "history in chronological order"),
                ("order/history-continuity", "each entry starting where the previous one ended"),
                ("order/history-transition", "each status change being a transition of the table"),
                ("order/history-status", "the last entry ending at the order's status"),
                ("order/driver-row", "driver rows keeping the status, status changes having driver null"),
                ("order/timestamp-missing", "the transition timestamps set once the order went through the transition"),
                ("order/timestamp-unexpected", "the transition timestamps null while it did not"),
                ("order/timestamp-sequence", "the transition timestamps in the order of the states"),
                ("order/accepted-after-expiry", "acceptedAt before order.expiresAt"),
                ("order/driver-assigned-at", "driverAssignedAt agreeing with the last driver row"),
                ("order/delivered-at", "deliveredAt around 2026-08-12, after handedOverAt on delivery, equal to it on pickup"),
            ],
        },
        root,
        defs,
    )
}

/// A list page (GET /api/v1/Orders, `data`).
pub(crate) fn order_list() -> Value {
    let item = object(
        "OrderListItem",
        "Order list item (GET list, data.items[]): orderKey, storeId, status, receivedAt, acceptedAt (null if pending or rejected), remoteOrderId, driverAssignedAt (null if none or released), deliveredAt.",
        o::LIST_ITEM_FIELDS,
        vec![
            f("orderKey", P::Req, "`ord_` + 16 base62 characters.", prefixed_key(ORDER_KEY_PREFIX)),
            f("storeId", P::Req, "Internal store id (integer).", integer(None)),
            f("status", P::Req, "Current status, PascalCase (read vocabulary); never Accepted, which the POS cannot observe.", one_of(crate::order::machine::OBSERVABLE)),
            f("receivedAt", P::Req, "When the service received the order.", r#ref(TIMESTAMP)),
            f("acceptedAt", P::ReqNull, "Timestamp; null if pending or rejected.", r#ref(TIMESTAMP)),
            f("remoteOrderId", P::ReqNull, "POS's own order reference, or null.", string()),
            f("driverAssignedAt", P::ReqNull, "Timestamp; null if none or released.", r#ref(TIMESTAMP)),
            f("deliveredAt", P::ReqNull, "Timestamp or null: since when the customer has the order.", r#ref(TIMESTAMP)),
        ],
        Members::Additive,
    );
    // `order-list/accepted-at-status`.
    let item =
        with_rules(item, vec![when_in("status", o::NOT_ACCEPTED_STATUSES, json!({ "properties": { "acceptedAt": { "type": "null" } } }))]);
    let page = object(
        "OrderList",
        "A list page: `data` of GET /api/v1/Orders: items[] (list item), nextCursor (string or null; null on the last page), hasMore (boolean, the loop stop condition).",
        o::LIST_FIELDS,
        vec![
            f(
                "items",
                P::Req,
                "items[] (list item). List page size: maximum 100, default 20.",
                json!({ "type": "array", "items": r#ref("OrderListItem"), "maxItems": o::MAX_PAGE_SIZE }),
            ),
            f(
                "nextCursor",
                P::ReqNull,
                "string or null; null on the last page. Opaque: taken from nextCursor, never built by hand.",
                string(),
            ),
            f("hasMore", P::Req, "boolean, the loop stop condition.", boolean()),
        ],
        Members::Additive,
    );
    // `order-list/has-more-cursor`: hasMore is true exactly when nextCursor is a string.
    let page = with_rules(
        page,
        vec![
            when("hasMore", true, json!({ "properties": { "nextCursor": { "type": "string" } } })),
            when("hasMore", false, json!({ "properties": { "nextCursor": { "type": "null" } } })),
        ],
    );
    let (root, envelope) = bare_or_enveloped("OrderList");
    document(
        "orderList",
        "OrderList",
        About {
            what: "A page of `GET /api/v1/Orders`: its `data`, or the whole `{ message, data }` envelope.".into(),
            contract: "\"The list is sorted by order number descending (newest first), not by receivedAt; the cursor is that same number.\" Query, all optional: Cursor (opaque, taken from nextCursor, never built by hand), PageSize (integer), Status (PascalCase), FromDate, ToDate (timestamps).",
            check: validate_check("orderList"),
            left_out: &[],
        },
        root,
        vec![("OrderList", page), (envelope.0.as_str(), envelope.1.clone()), ("OrderListItem", item), (TIMESTAMP, utc_timestamp())],
    )
}

/// `orderable`, `resumesAt` and `overrides[]` of a product or an option of the store menu.
fn availability_fields() -> Vec<super::F> {
    vec![
        f("orderable", P::Req, "orderable (boolean, already computed).", boolean()),
        f("resumesAt", P::ReqNull, "resumesAt (timestamp or null; null = does not return on its own).", r#ref(TIMESTAMP)),
        f(
            "overrides",
            P::Opt,
            "overrides[]: store overrides on top of the master catalog, sorted by precedence; element 0 drives orderable and resumesAt. Items with no override omit the field.",
            array(r#ref("Override")),
        ),
    ]
}

/// The store menu (GET /api/v1/menu/stores/{storeRemoteId}, `data`).
pub(crate) fn store_menu() -> Value {
    let menu = object(
        "StoreMenu",
        "Store menu: `data` of GET /api/v1/menu/stores/{storeRemoteId}: categories[].",
        m::STORE_MENU_FIELDS,
        vec![f("categories", P::Req, "data.categories[].", array(r#ref("MenuCategory")))],
        Members::Additive,
    );
    let category = object(
        "MenuCategory",
        "category: code (service-assigned), name, position, products[].",
        m::CATEGORY_FIELDS,
        vec![
            f("code", P::Req, "code (service-assigned).", string()),
            f("name", P::Req, "name.", string()),
            f("position", P::Req, "position (an integer).", integer(None)),
            f("products", P::Req, "products[].", array(r#ref("MenuProduct"))),
        ],
        Members::Additive,
    );
    let renamed = |old: &str| {
        let new = m::RENAMED_FIELDS.iter().find(|(o, _)| *o == old).map(|(_, n)| *n).unwrap_or_default();
        format!("Renamed `{new}` on 2026-08-10: \"Read field names equal write names: `image` (not imageUrl) and `modifierGroups` (not modifiers).\"")
    };
    let mut product_fields = vec![
        f("code", P::Req, "code.", string()),
        f("categoryCode", P::Req, "categoryCode.", string()),
        f("name", P::Req, "name.", string()),
        f("price", P::Req, "price (a number).", number(None, None)),
        f("tax", P::Req, "tax (a number).", number(None, None)),
        f("position", P::Req, "position (an integer).", integer(None)),
        f("maxPerOrder", P::Req, "maxPerOrder (an integer).", integer(None)),
        f("origin", P::Req, "origin (`brand` = master catalog, `store` = local product).", one_of(m::ORIGINS)),
    ];
    let mut availability = availability_fields();
    let overrides = availability.pop().expect("three fields");
    let resumes = availability.pop().expect("three fields");
    product_fields.extend(availability); // orderable
    product_fields.extend([
        f("channels", P::Req, "channels[] (empty = blocked everywhere): `delivery`, `pickup`.", array(one_of(m::CHANNELS))),
        f("remoteCode", P::ReqNull, "remoteCode (POS code).", string()),
        f("description", P::ReqNull, "description.", string()),
        f("image", P::ReqNull, "image (re-hosted WebP URL, not the submitted URL).", http_url()),
        resumes,
        overrides,
        f("modifierGroups", P::Req, "modifierGroups[].", array(r#ref("MenuModifierGroup"))),
        f("imageUrl", P::Opt, renamed("imageUrl"), forbidden()),
        f("modifiers", P::Opt, renamed("modifiers"), forbidden()),
    ]);
    let product = object(
        "MenuProduct",
        "product: code, categoryCode, name, price, tax, position, maxPerOrder, origin (`brand` = master catalog, `store` = local product), orderable (boolean, already computed), channels[] (empty = blocked everywhere), remoteCode (POS code), description, image (re-hosted WebP URL, not the submitted URL), resumesAt (timestamp or null; null = does not return on its own), overrides[], modifierGroups[].",
        m::PRODUCT_FIELDS,
        product_fields,
        Members::Additive,
    );
    let group = object(
        "MenuModifierGroup",
        "modifier group: code, name, min, max, type, position, options[]. \"Modifier group: min at least 0; max at least 1 and at least min\".",
        m::GROUP_FIELDS,
        vec![
            f("code", P::Req, "code.", string()),
            f("name", P::Req, "name.", string()),
            f("min", P::Req, "min: at least 0.", integer(Some(crate::menu::MIN_GROUP_MIN))),
            f("max", P::Req, "max: at least 1 and at least min.", integer(Some(crate::menu::MIN_GROUP_MAX))),
            f("type", P::Req, "type: `radio` or `checkbox`.", one_of_any_case(crate::menu::GROUP_TYPES)),
            f("position", P::Req, "position (an integer).", integer(None)),
            f("options", P::Req, "options[].", array(r#ref("MenuOption"))),
        ],
        Members::Additive,
    );
    let mut option_fields = vec![
        f("code", P::Req, "code.", string()),
        f("name", P::Req, "name.", string()),
        f("price", P::Req, "price (a number).", number(None, None)),
        f("isDefault", P::Req, "isDefault (a boolean).", boolean()),
    ];
    let mut availability = availability_fields();
    let overrides = availability.pop().expect("three fields");
    let resumes = availability.pop().expect("three fields");
    option_fields.extend(availability); // orderable
    option_fields.extend([
        f("remoteCode", P::ReqNull, "remoteCode (POS code).", string()),
        f("maxPerOrder", P::ReqNull, "maxPerOrder (null = the group's max governs).", integer(None)),
        resumes,
        overrides,
    ]);
    let option = object(
        "MenuOption",
        "option: code, name, price, isDefault, orderable, remoteCode, maxPerOrder (null = the group's max governs), resumesAt, overrides[].",
        m::OPTION_FIELDS,
        option_fields,
        Members::Additive,
    );
    let over = object(
        "Override",
        "overrides[] entry: `type` (`substituted`, `unavailable`, `scheduled`, `channel`, `value`; only fields applicable to the type are populated), reason (string or null), replacedBy (string or null, only on substituted), window (object or null with days[], startTime, endTime; only on scheduled; informational), fields[] (on channel and value; each has field, value in effect, base = master value restored when the override is removed).",
        m::OVERRIDE_FIELDS,
        vec![
            f(
                "type",
                P::Req,
                "`substituted`, `unavailable`, `scheduled`, `channel`, `value`; only fields applicable to the type are populated.",
                one_of(m::OVERRIDE_TYPES),
            ),
            f("reason", P::ReqNull, "string or null.", string()),
            f("replacedBy", P::OptNull, "string or null, only on substituted.", string()),
            f("window", P::OptNull, "object or null with days[], startTime, endTime; only on scheduled; informational.", r#ref("OverrideWindow")),
            f(
                "fields",
                P::OptNull,
                "fields[] (on channel and value; each has field, value in effect, base = master value restored when the override is removed).",
                array(r#ref("OverrideField")),
            ),
        ],
        Members::Additive,
    );
    // `store-menu/override-field-for-type`: a field of some types is null or absent on the others.
    let rules = m::OVERRIDE_FIELDS_BY_TYPE
        .iter()
        .map(|(key, types)| {
            let others: Vec<&str> = m::OVERRIDE_TYPES.iter().copied().filter(|t| !types.contains(t)).collect();
            when_in("type", &others, json!({ "properties": { *key: { "type": "null" } } }))
        })
        .collect();
    let over = with_rules(over, rules);
    let window = object(
        "OverrideWindow",
        "window: days[], startTime, endTime (only on scheduled; informational).",
        m::WINDOW_FIELDS,
        vec![
            f("days", P::Req, "days[].", array(string())),
            f("startTime", P::Req, "startTime.", string()),
            f("endTime", P::Req, "endTime.", string()),
        ],
        Members::Additive,
    );
    let field = object(
        "OverrideField",
        "fields[] entry: field, value in effect, base = master value restored when the override is removed.",
        m::OVERRIDE_VALUE_FIELDS,
        vec![
            f("field", P::Req, "field.", string()),
            f("value", P::ReqNull, "value in effect.", json!({})),
            f("base", P::ReqNull, "base = master value restored when the override is removed.", json!({})),
        ],
        Members::Additive,
    );
    let (root, envelope) = bare_or_enveloped("StoreMenu");
    document(
        "storeMenu",
        "StoreMenu",
        About {
            what: "The store menu as read from `GET /api/v1/menu/stores/{storeRemoteId}`: its `data`, or the whole `{ message, data }` envelope.".into(),
            contract: "\"Live, not cached. Restricted items still appear.\" \"Read field names equal write names: `image` (not imageUrl) and `modifierGroups` (not modifiers).\"",
            check: validate_check("storeMenu"),
            left_out: &[("menu/group-min-max", "a group's max at least its min (a comparison of two fields)")],
        },
        root,
        vec![
            ("StoreMenu", menu),
            (envelope.0.as_str(), envelope.1.clone()),
            ("MenuCategory", category),
            ("MenuProduct", product),
            ("MenuModifierGroup", group),
            ("MenuOption", option),
            ("Override", over),
            ("OverrideWindow", window),
            ("OverrideField", field),
            (TIMESTAMP, utc_timestamp()),
        ],
    )
}

/// A menu change (GET /api/v1/menu/changes/{changeId}, `data`).
pub(crate) fn menu_change() -> Value {
    let change = object(
        "MenuChange",
        "Menu change: `data` of GET /api/v1/menu/changes/{changeId}.",
        m::MENU_CHANGE_FIELDS,
        vec![
            f("changeId", P::Req, "changeId (`chg_` + 16 characters).", prefixed_key(CHANGE_KEY_PREFIX)),
            f(
                "status",
                P::Req,
                "status (`Pending` while being applied, `Applied` once processing finished; this is not the outcome).",
                one_of(m::MENU_CHANGE_STATUSES),
            ),
            f("schemaVersion", P::ReqNull, "schemaVersion (its type is not shown).", json!({})),
            f("submittedAt", P::Req, "submittedAt.", r#ref(TIMESTAMP)),
            f("completedAt", P::ReqNull, "completedAt (null while pending).", r#ref(TIMESTAMP)),
            f(
                "results",
                P::Req,
                "results[] (one row per store and entity, best effort per store). A global Applied may coexist with rows where applied is false.",
                array(r#ref("MenuChangeRow")),
            ),
        ],
        Members::Additive,
    );
    // `menu-change/completed-at-status`: completedAt is null while Pending, set once Applied.
    let [pending, applied] = m::MENU_CHANGE_STATUSES else { panic!("two menu change statuses") };
    let change = with_rules(
        change,
        vec![
            when("status", *pending, json!({ "properties": { "completedAt": { "type": "null" } } })),
            when("status", *applied, json!({ "properties": { "completedAt": { "not": { "type": "null" } } } })),
        ],
    );
    let row = object(
        "MenuChangeRow",
        "results[] row: storeRemoteId (null on brand scope), storeId (null on brand scope), targetEntity, targetCode, applied (boolean), errorCode (string or null; stable, e.g. UNKNOWN_CATEGORY), errorMessage (human text, never parsed), appliedAt (null when failed).",
        m::MENU_CHANGE_ROW_FIELDS,
        vec![
            f("storeRemoteId", P::ReqNull, "storeRemoteId (null on brand scope).", string()),
            f("storeId", P::ReqNull, "storeId (null on brand scope).", integer(None)),
            f(
                "targetEntity",
                P::Req,
                "targetEntity (`product`, `modifierOption`, `category`, `modifierGroup`, `localProduct`).",
                json!({ "type": "string", "examples": m::CHANGE_TARGET_ENTITIES }),
            ),
            f("targetCode", P::Req, "targetCode.", string()),
            f("applied", P::Req, "applied (boolean).", boolean()),
            f("errorCode", P::ReqNull, "errorCode (string or null; stable, e.g. UNKNOWN_CATEGORY).", string()),
            f("errorMessage", P::ReqNull, "errorMessage (human text, never parsed).", string()),
            f("appliedAt", P::ReqNull, "appliedAt (null when failed).", r#ref(TIMESTAMP)),
        ],
        Members::Additive,
    );
    // `menu-change/applied-at-failed`.
    let row = with_rules(row, vec![when("applied", false, json!({ "properties": { "appliedAt": { "type": "null" } } }))]);
    let (root, envelope) = bare_or_enveloped("MenuChange");
    document(
        "menuChange",
        "MenuChange",
        About {
            what: "A menu change as read from `GET /api/v1/menu/changes/{changeId}`: its `data`, or the whole `{ message, data }` envelope.".into(),
            contract: "\"A 202 does not mean the change was applied.\" status is Pending, then Applied once processing finished, which is not the outcome: \"A global Applied may coexist with rows where applied is false.\"",
            check: validate_check("menuChange"),
            left_out: &[("menu-change/completed-before-submitted", "completedAt not earlier than submittedAt (a comparison of two fields)")],
        },
        root,
        vec![("MenuChange", change), (envelope.0.as_str(), envelope.1.clone()), ("MenuChangeRow", row), (TIMESTAMP, utc_timestamp())],
    )
}

/// The capabilities (GET /api/v1/menu/capabilities, `data`).
pub(crate) fn capabilities() -> Value {
    let caps = object(
        "Capabilities",
        "Capability entry: `data` of GET /api/v1/menu/capabilities: capabilities[], notes (string or null).",
        m::CAPABILITIES_FIELDS,
        vec![
            f("capabilities", P::Req, "capabilities[]: entity, field, scope, pendingCustomerRollout.", array(r#ref("Capability"))),
            f("notes", P::ReqNull, "notes (string or null).", string()),
        ],
        Members::Additive,
    );
    let cap = object(
        "Capability",
        "capabilities[]: entity (`product`, `modifierOption`, `category`, `modifierGroup`), field (`available`, `price`, `name`, `description`, `schedule`, `channels`, `tax`, `maxPerOrder`, `image`, `isDefault`, `position`, `min`, `max`, `type`), scope (`store`, `brand`), pendingCustomerRollout (boolean).",
        m::CAPABILITY_FIELDS,
        vec![
            f("entity", P::Req, "`product`, `modifierOption`, `category`, `modifierGroup`.", one_of(m::CAP_ENTITIES)),
            f(
                "field",
                P::Req,
                "`available`, `price`, `name`, `description`, `schedule`, `channels`, `tax`, `maxPerOrder`, `image`, `isDefault`, `position`, `min`, `max`, `type`.",
                one_of(crate::payload::fields::MENU_FIELDS),
            ),
            f("scope", P::Req, "`store`, `brand`.", one_of(m::CAP_SCOPES)),
            f("pendingCustomerRollout", P::Req, "boolean.", boolean()),
        ],
        Members::Additive,
    );
    let (root, envelope) = bare_or_enveloped("Capabilities");
    document(
        "capabilities",
        "Capabilities",
        About {
            what: "The capabilities as read from `GET /api/v1/menu/capabilities`: its `data`, or the whole `{ message, data }` envelope."
                .into(),
            contract: "\"Only shipped (entity, field, scope) combinations are accepted; others return 422.\"",
            check: validate_check("capabilities"),
            left_out: &[("capabilities/duplicate-entry", "the same (entity, field, scope) listed twice (uniqueness across entries)")],
        },
        root,
        vec![("Capabilities", caps), (envelope.0.as_str(), envelope.1.clone()), ("Capability", cap)],
    )
}

/// A 2xx answer of an operation: `data` with `fields`, bare or in the envelope.
fn answer(id: &str, title: &str, what: &str, contract: &str, known: &[&str], fields: Vec<super::F>, defs: Vec<(&str, Value)>) -> Value {
    let data = object(title, what, known, fields, Members::Additive);
    let (root, envelope) = bare_or_enveloped(title);
    let mut all = vec![(title, data), (envelope.0.as_str(), envelope.1.clone())];
    all.extend(defs);
    document(
        id,
        title,
        About {
            what: format!("{what} Its `data`, or the whole `{{ message, data }}` envelope."),
            contract,
            check: validate_check(id),
            left_out: &[],
        },
        root,
        all,
    )
}

/// The 202 of an asynchronous menu write.
pub(crate) fn menu_write_accepted() -> Value {
    answer(
        "menuWriteAccepted",
        "MenuWriteAccepted",
        "The 202 answer of an asynchronous menu write (availability, prices, the PATCH endpoints, POST /menu/changes, POST /menu/stores/{storeRemoteId}/products).",
        "\"Every menu write except POST `/menu/preview` (read-only) and PUT `/menu` (synchronous) returns 202 with `data.changeId`. Progress is read with GET `/menu/changes/{changeId}` or through the menu change webhook. A 202 does not mean the change was applied.\"",
        a::WRITE_ACCEPTED_FIELDS,
        vec![f("changeId", P::Req, "data.changeId (`chg_` + 16 characters).", prefixed_key(CHANGE_KEY_PREFIX))],
        vec![],
    )
}

/// The 202 of POST accept.
pub(crate) fn accept_answer() -> Value {
    answer(
        "acceptAnswer",
        "AcceptAnswer",
        "The 202 answer of `POST /api/v1/Orders/{orderKey}/accept`.",
        "\"202; data: orderKey, status (Preparing), acceptedAt, remoteOrderId (string or null). preparingAt is not included; read it from the detail.\"",
        a::ACCEPT_ANSWER_FIELDS,
        vec![
            f("orderKey", P::Req, "orderKey.", prefixed_key(ORDER_KEY_PREFIX)),
            f("status", P::Req, "status (Preparing).", one_of(a::ACCEPT_ANSWER_STATUSES)),
            f("acceptedAt", P::Req, "acceptedAt.", r#ref(TIMESTAMP)),
            f("remoteOrderId", P::ReqNull, "remoteOrderId (string or null).", string()),
            f("preparingAt", P::Opt, "preparingAt is not included; read it from the detail.", forbidden()),
        ],
        vec![(TIMESTAMP, utc_timestamp())],
    )
}

/// The 202 of POST reject.
pub(crate) fn reject_answer() -> Value {
    answer(
        "rejectAnswer",
        "RejectAnswer",
        "The 202 answer of `POST /api/v1/Orders/{orderKey}/reject`.",
        "\"202; data: orderKey, status (Rejected), rejectedAt, reason (the applied code).\" \"A reasonCode outside that set does not fail: it is normalized to SYSTEM_ISSUE and returned so in data.reason.\"",
        a::REJECT_ANSWER_FIELDS,
        vec![
            f("orderKey", P::Req, "orderKey.", prefixed_key(ORDER_KEY_PREFIX)),
            f("status", P::Req, "status (Rejected).", one_of(a::REJECT_ANSWER_STATUSES)),
            f("rejectedAt", P::Req, "rejectedAt.", r#ref(TIMESTAMP)),
            f("reason", P::Req, "reason (the applied code): one of the reasonCodes.", one_of(crate::payload::REASON_CODES)),
        ],
        vec![(TIMESTAMP, utc_timestamp())],
    )
}

/// The 202 of PUT status.
pub(crate) fn status_answer() -> Value {
    answer(
        "statusAnswer",
        "StatusAnswer",
        "The 202 answer of `PUT /api/v1/Orders/{orderKey}/status`.",
        "\"202; data: orderKey, status (PascalCase result), changedAt (when the service recorded it; may differ from occurredAt).\" A PUT status that succeeds leads to Ready or HandedOver (preparing after accept is a 409).",
        a::STATUS_ANSWER_FIELDS,
        vec![
            f("orderKey", P::Req, "orderKey.", prefixed_key(ORDER_KEY_PREFIX)),
            f("status", P::Req, "status (PascalCase result).", one_of(a::STATUS_ANSWER_STATUSES)),
            f("changedAt", P::Req, "changedAt (when the service recorded it; may differ from occurredAt).", r#ref(TIMESTAMP)),
        ],
        vec![(TIMESTAMP, utc_timestamp())],
    )
}
