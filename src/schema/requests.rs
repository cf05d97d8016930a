//! The bodies of the REST requests the POS sends: the full menu submission (the menu linter's
//! input), the order operations and the menu writes.

use super::{
    any_offset_timestamp, array, boolean, document, f, forbidden, http_url, integer, json_number, non_blank, number, object, one_of,
    one_of_any_case, r#ref, remote_code, request_check, require, string, when, with_rules, About, Members, F,
};
use crate::menu::{self as lint, GROUP_TYPES, MIN_GROUP_MAX, MIN_GROUP_MIN, MIN_MAX_PER_ORDER, MIN_POSITION, MIN_PRICE, TAX_RANGE};
use crate::payload::bodies::{self as b, Entity};
use crate::payload::fields::P;
use crate::payload::menu_read::CHANNELS;
use serde_json::{json, Map, Value};

const REMOTE_CODE: &str = "remoteCode: required on every entity; letters, digits and `_ . - :`, no spaces, up to 100 characters.";

/// The full menu submission tree, the body of PUT /api/v1/menu and POST /api/v1/menu/preview.
pub(crate) fn full_menu() -> Value {
    let root =
        object("", "", &lint::ROOT_FIELDS, vec![f("categories", P::Req, "categories[].", array(r#ref("Category")))], Members::Closed);
    let category = object(
        "Category",
        "category: remoteCode, name, position (integer), products[]. Category remoteCodes are unique across categories; they are not preserved: the service assigns its own codes.",
        &lint::CATEGORY_FIELDS,
        vec![
            f("remoteCode", P::Req, format!("{REMOTE_CODE} Unique across categories. Not preserved: the service assigns its own codes."), remote_code()),
            f("name", P::Opt, "name (a string).", string()),
            f("position", P::Opt, "position (integer, at least 0).", integer(Some(MIN_POSITION))),
            f("products", P::Opt, "products[].", array(r#ref("Product"))),
        ],
        Members::Closed,
    );
    let product = object(
        "Product",
        "product: remoteCode, name, description, price (number), tax (number), maxPerOrder (integer), image (absolute http or https URL), modifierGroups[]. Product remoteCodes are unique across the whole menu; image is required on every product of a full submission.",
        &lint::PRODUCT_FIELDS,
        vec![
            f("remoteCode", P::Req, format!("{REMOTE_CODE} Unique across the whole menu for products."), remote_code()),
            f("name", P::Opt, "name (a string).", string()),
            f("description", P::OptNull, "description (a string or null).", string()),
            f("price", P::Opt, "price (number, at least 0).", number(Some(MIN_PRICE), None)),
            f(
                "tax",
                P::Opt,
                "tax (number): a fraction between 0 and 1, not a percentage (\"Brand product tax: fraction between 0 and 1\").",
                number(Some(TAX_RANGE.0), Some(TAX_RANGE.1)),
            ),
            f("maxPerOrder", P::Opt, "maxPerOrder (integer, above 0).", integer(Some(MIN_MAX_PER_ORDER))),
            f(
                "image",
                P::Req,
                "image (absolute http or https URL): required on every product of a full submission. The service downloads it and re-hosts it as WebP.",
                http_url(),
            ),
            f("modifierGroups", P::Opt, "modifierGroups[] (not `modifiers`).", array(r#ref("ModifierGroup"))),
        ],
        Members::Closed,
    );
    let group = object(
        "ModifierGroup",
        "modifier group: remoteCode, name, min, max, type (`radio` or `checkbox`), options[]. Group remoteCodes are unique within a product; two products declaring a group with the same remoteCode share that group (defined once at brand level). Not preserved: the service assigns its own codes.",
        &lint::GROUP_FIELDS,
        vec![
            f(
                "remoteCode",
                P::Req,
                format!("{REMOTE_CODE} Unique within a product; two products declaring a group with the same remoteCode share that group."),
                remote_code(),
            ),
            f("name", P::Opt, "name (a string).", string()),
            f("min", P::Opt, "min: an integer, at least 0.", integer(Some(MIN_GROUP_MIN))),
            f("max", P::Opt, "max: an integer, at least 1 and at least min.", integer(Some(MIN_GROUP_MAX))),
            f("type", P::Opt, "type (`radio` or `checkbox`, case-insensitive).", one_of_any_case(GROUP_TYPES)),
            f("options", P::Opt, "options[].", array(r#ref("Option"))),
        ],
        Members::Closed,
    );
    let option = object(
        "Option",
        "option: remoteCode, name, price, isDefault (boolean), maxPerOrder. Option remoteCodes are unique within a group.",
        &lint::OPTION_FIELDS,
        vec![
            f("remoteCode", P::Req, format!("{REMOTE_CODE} Unique within a group for options."), remote_code()),
            f("name", P::Opt, "name (a string).", string()),
            f("price", P::Opt, "price (a number, at least 0).", number(Some(MIN_PRICE), None)),
            f("isDefault", P::Opt, "isDefault (boolean).", boolean()),
            f(
                "maxPerOrder",
                P::OptNull,
                "maxPerOrder: an integer above 0, or null (the group's max governs).",
                integer(Some(MIN_MAX_PER_ORDER)),
            ),
        ],
        Members::Closed,
    );
    document(
        "fullMenu",
        "FullMenuSubmission",
        About {
            what: "The full menu submission tree: the body of `PUT /api/v1/menu` (synchronous, brand scope) and `POST /api/v1/menu/preview` (a dry run).".into(),
            contract: "\"The submitted menu is the complete source of truth for the brand: items in the master catalog but absent from the submission are deactivated (replacement, not merge).\" \"Running preview with the same body first is the recommended practice.\"",
            check: "`poscheck lint menu.json` (in JS `lintMenu`; `poscheck diff` shows what PUT /api/v1/menu would deactivate)".into(),
            left_out: &[
                ("remote-code/unique-category", "category remoteCodes unique across categories"),
                ("remote-code/unique-product", "product remoteCodes unique across the whole menu"),
                ("remote-code/unique-group", "group remoteCodes unique within a product"),
                ("remote-code/unique-option", "option remoteCodes unique within a group"),
                ("modifier-group/max-below-min", "a group's max at least its min (a comparison of two fields)"),
                (
                    "remote-code/format",
                    "characters outside ASCII in a remoteCode: this schema lets them all through, the linter refuses those that are not letters or digits (and warns about letters, whose acceptance is not shown)",
                ),
                ("modifier-group/shared-mismatch", "products declaring a shared group (same remoteCode) identically"),
            ],
        },
        root,
        vec![("Category", category), ("Product", product), ("ModifierGroup", group), ("Option", option)],
    )
}

/// The body of POST accept: an empty object.
pub(crate) fn accept() -> Value {
    let root = object(
        "",
        "",
        b::ACCEPT_FIELDS,
        vec![f(
            "remoteOrderId",
            P::Opt,
            "remoteOrderId must not be sent: it is the one the POS returned to the creation webhook.",
            forbidden(),
        )],
        Members::Closed,
    );
    document(
        "accept",
        "AcceptRequest",
        About {
            what: "The body of `POST /api/v1/Orders/{orderKey}/accept`: an empty JSON object.".into(),
            contract: "\"Path orderKey (`ord_` + 16 base62, from the creation webhook). Body: empty JSON object; remoteOrderId must not be sent.\" The order moves to Preparing (through Accepted, atomically); an accept after expiresAt is answered 409 acceptance-timeout.",
            check: request_check(),
            left_out: &[],
        },
        root,
        vec![],
    )
}

/// The body of POST reject.
pub(crate) fn reject() -> Value {
    let root = object(
        "",
        "",
        b::REJECT_FIELDS,
        vec![
            f(
                "reasonCode",
                P::Req,
                "reasonCode (required enum): STORE_CLOSED (closed for the day or not yet open), OUT_OF_OPERATING_HOURS, ITEM_NOT_OFFERED, ITEM_OUT_OF_STOCK, PRICE_MISMATCH (POS price differs from order price), SYSTEM_ISSUE (generic POS failure or other cause). A reasonCode outside that set does not fail: it is normalized to SYSTEM_ISSUE.",
                json!({ "type": "string", "examples": crate::payload::REASON_CODES }),
            ),
            f("message", P::OptNull, "message (optional string, hidden from the end customer).", string()),
        ],
        Members::Closed,
    );
    document(
        "reject",
        "RejectRequest",
        About {
            what: "The body of `POST /api/v1/Orders/{orderKey}/reject`.".into(),
            contract: "\"Body: reasonCode (required enum), message (optional string, hidden from the end customer).\" \"A reasonCode outside that set does not fail: it is normalized to SYSTEM_ISSUE and returned so in data.reason. It is never a 422.\"",
            check: request_check(),
            left_out: &[("reject/reason-code-normalized", "a reasonCode outside the list: accepted and normalized to SYSTEM_ISSUE, so this schema takes any string")],
        },
        root,
        vec![],
    )
}

/// The body of PUT status.
pub(crate) fn status_update() -> Value {
    let status = json!({
        "type": "string",
        "enum": b::WRITE_STATUSES,
        "not": { "const": b::STATUS_CONFLICT_AFTER_ACCEPT },
    });
    let root = object(
        "",
        "",
        b::STATUS_FIELDS,
        vec![
            f(
                "status",
                P::Req,
                "status (required: `preparing`, `ready`, `handed_over`), the write vocabulary (snake_case). PUT status `preparing` after accept returns 409 (the value stays in the enum for forward compatibility), so it is refused here; `cancelled` is not accepted.",
                status,
            ),
            f(
                "occurredAt",
                P::OptNull,
                "occurredAt (optional timestamp, when the change happened in the POS). Clamped to [now minus 24 hours, now plus 5 minutes]; when omitted the service clock is used.",
                any_offset_timestamp(),
            ),
        ],
        Members::Closed,
    );
    document(
        "statusUpdate",
        "StatusUpdateRequest",
        About {
            what: "The body of `PUT /api/v1/Orders/{orderKey}/status`.".into(),
            contract: "\"Body: status (required: `preparing`, `ready`, `handed_over`), occurredAt (optional timestamp, when the change happened in the POS).\" \"PUT status `preparing` after accept returns 409\"; \"PUT status `cancelled` is not accepted; the merchant cannot cancel after acceptance through the REST API.\"",
            check: request_check(),
            left_out: &[
                ("status-update/occurred-at-clamped", "occurredAt within [now − 24 h, now + 5 min] (it depends on the clock; the service clamps it)"),
                ("payload/timestamp-offset", "occurredAt in UTC: an offset is ISO 8601, and the service's answer to it is not shown, so this schema takes any offset"),
            ],
        },
        root,
        vec![],
    )
}

/// `stores[]` of a menu write.
fn stores(description: &str, p: P) -> F {
    f("stores", p, description, array(non_blank()))
}

/// PUT /menu/availability (`prices` false) and PUT /menu/prices (`prices` true).
fn bulk(prices: bool) -> Value {
    let (id, title, path, item_fields, value) = if prices {
        (
            "prices",
            "PricesRequest",
            "PUT /api/v1/menu/prices",
            b::PRICE_ITEM_FIELDS,
            f("price", P::Req, "price (number, at least 0).", number(Some(MIN_PRICE), None)),
        )
    } else {
        (
            "availability",
            "AvailabilityRequest",
            "PUT /api/v1/menu/availability",
            b::AVAILABILITY_ITEM_FIELDS,
            f("available", P::Req, "available (boolean).", boolean()),
        )
    };
    let item_title = if prices { "PriceItem" } else { "AvailabilityItem" };
    let item = object(
        item_title,
        "items[]: targetEntity (`product` or `modifierOption`), targetCode (POS remoteCode), the new value, categoryCode (optional; disambiguator; for modifierOption it is the parent group code).",
        item_fields,
        vec![
            f("targetEntity", P::Req, "targetEntity (`product` or `modifierOption`).", one_of(b::BULK_TARGET_ENTITIES)),
            f("targetCode", P::Req, "targetCode (POS remoteCode).", string()),
            value,
            f(
                "categoryCode",
                P::OptNull,
                "categoryCode (optional; disambiguator; for modifierOption it is the parent group code).",
                string(),
            ),
        ],
        Members::Closed,
    );
    let root = object(
        "",
        "",
        b::BULK_FIELDS,
        vec![
            stores("stores[] (strings, required, POS remoteIds of one brand).", P::Req),
            f("items", P::Req, "items[] (required).", array(r#ref(item_title))),
        ],
        Members::Closed,
    );
    let contract = if prices {
        "\"stores[] (required); items[]: targetEntity, targetCode, price (number, at least 0), categoryCode (optional). Store scope only.\" A modifierOption's price in store scope is accepted and persisted but not yet reflected in the customer app (pendingCustomerRollout)."
    } else {
        "\"stores[] (strings, required, POS remoteIds of one brand); items[] (required): targetEntity (`product` or `modifierOption`), targetCode (POS remoteCode), available (boolean), categoryCode (optional; disambiguator; for modifierOption it is the parent group code). Store scope.\""
    };
    document(
        id,
        title,
        About {
            what: format!("The body of `{path}`: answered 202 with data.changeId (a 202 does not mean the change was applied)."),
            contract,
            check: request_check(),
            left_out: &[],
        },
        root,
        vec![(item_title, item)],
    )
}

pub(crate) fn availability() -> Value {
    bulk(false)
}

pub(crate) fn prices() -> Value {
    bulk(true)
}

/// The `scope` other than the default: `brand`.
fn brand_scope() -> &'static str {
    b::SCOPES.iter().copied().find(|s| *s != b::DEFAULT_SCOPE).expect("two scopes")
}

/// The fields `entity` ships in `scope` ([`b::SHIPPED`]).
fn shipped(entity: Entity, scope: &str) -> Vec<&'static str> {
    b::SHIPPED.iter().filter(|(e, _, s, _)| *e == entity.id() && *s == scope).map(|x| x.1).collect()
}

/// The fields `entity` ships in any scope, in the table's order.
fn shipped_any(entity: Entity) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (e, field, _, _) in b::SHIPPED {
        if *e == entity.id() && !out.contains(field) {
            out.push(field);
        }
    }
    out
}

/// The contract's words and the value schema of the `set` field `field` of `entity` (the checker's
/// `set_value`).
fn set_field(entity: Entity, field: &str) -> (String, Value) {
    let scopes: Vec<&str> = b::SHIPPED.iter().filter(|(e, f, _, _)| *e == entity.id() && *f == field).map(|x| x.2).collect();
    let pending = b::SHIPPED.iter().any(|(e, f, _, p)| *e == entity.id() && *f == field && *p);
    let (words, schema) = match field {
        "available" => ("available (boolean)", boolean()),
        "price" => ("price (number at least 0)", number(Some(MIN_PRICE), None)),
        "name" => ("name (string)", string()),
        "description" => ("description (string)", string()),
        "schedule" => (
            "schedule: days[] (three-letter codes mon to sun, case-insensitive, at least one), startTime and endTime (`HH:mm`); outside the window the item is unavailable",
            r#ref("Schedule"),
        ),
        "channels" => (
            "channels[]: `delivery` and/or `pickup`, case-insensitive; an unknown value gives 422; an empty list means no channel",
            array(one_of_any_case(CHANNELS)),
        ),
        "tax" => ("tax (number between 0 and 1)", number(Some(TAX_RANGE.0), Some(TAX_RANGE.1))),
        "maxPerOrder" if entity == Entity::Product => ("maxPerOrder (integer above 0)", integer(Some(MIN_MAX_PER_ORDER))),
        "maxPerOrder" => (
            "maxPerOrder (an integer above 0: derived from the product's \"maxPerOrder (integer above 0)\"; the option's bound is not written out)",
            integer(Some(MIN_MAX_PER_ORDER)),
        ),
        "image" => (
            "image: absolute http or https URL; the service downloads it, converts it to WebP and re-hosts it; the 202 does not mean the image is ready; an unreachable URL, a non-image or an oversized file gives 422 before emission",
            http_url(),
        ),
        "isDefault" => ("isDefault (boolean)", boolean()),
        "position" => ("position (integer, at least 0)", integer(Some(MIN_POSITION))),
        "min" => ("min (integer, at least 0)", integer(Some(MIN_GROUP_MIN))),
        "max" => ("max (integer, at least 1 and at least min)", integer(Some(MIN_GROUP_MAX))),
        "type" => ("type (`radio` or `checkbox`, case-insensitive; unknown gives 422)", one_of_any_case(GROUP_TYPES)),
        other => panic!("the set field {other} of {} has no schema", entity.id()),
    };
    let mut text = format!("{words}. Shipped for {} in {} scope", entity.id(), scopes.join(" and "));
    if pending {
        text.push_str(" (in store scope: accepted and persisted, not yet reflected in the customer app: pendingCustomerRollout)");
    }
    text.push_str(". Absent or null = no change.");
    (text, schema)
}

/// The definitions' name of `entity`'s `set` object.
fn set_name(entity: Entity) -> &'static str {
    match entity {
        Entity::Product => "ProductSet",
        Entity::ModifierOption => "ModifierOptionSet",
        Entity::Category => "CategorySet",
        Entity::ModifierGroup => "ModifierGroupSet",
    }
}

/// `set` of `entity`: every field it ships in some scope; any other field only null ("absent or
/// null field = no change"; a non-null field that is not shipped is a 422).
fn set_object(entity: Entity) -> Value {
    let mut properties = Map::new();
    for field in shipped_any(entity) {
        let (text, schema) = set_field(entity, field);
        properties.insert(field.into(), super::described(&text, super::or_null(schema)));
    }
    json!({
        "title": set_name(entity),
        "description": format!("set (required object; absent or null field = no change): only shipped (entity, field, scope) combinations are accepted, others return 422. Fields of {}: {}.", entity.id(), shipped_any(entity).join(", ")),
        "type": "object",
        "properties": properties,
        "additionalProperties": { "type": "null" },
    })
}

/// `set` holding only fields shipped in `scope` (the others null or absent).
fn set_in_scope(entity: Entity, scope: &str) -> Value {
    let here = shipped(entity, scope);
    let absent: Map<String, Value> =
        shipped_any(entity).into_iter().filter(|f| !here.contains(f)).map(|f| (f.to_string(), json!({ "type": "null" }))).collect();
    json!({ "type": "object", "properties": absent })
}

/// The rules of a write to `entity` that depend on its scope: the `set` fields shipped in that
/// scope, `stores[]` (with `stores` true: required in store scope, omitted in brand scope), and a
/// modifierOption's `categoryCode` in brand scope.
fn scope_rules(entity: Entity, stores: bool) -> Vec<Value> {
    let brand = brand_scope();
    if entity.brand_only() {
        // `menu-write/brand-only`: scope must be brand (store is the default when omitted).
        let mut then = json!({ "required": ["scope"], "properties": { "scope": { "const": brand } } });
        if stores {
            then["properties"]["stores"] = Value::Bool(false);
        }
        return vec![then];
    }
    let mut in_brand = json!({ "properties": { "set": set_in_scope(entity, brand) } });
    let mut in_store = json!({ "properties": { "set": set_in_scope(entity, b::DEFAULT_SCOPE) } });
    if stores {
        // `menu-write/stores-scope`.
        in_brand["properties"]["stores"] = Value::Bool(false);
        in_store["required"] = json!(["stores"]);
        in_store["properties"]["stores"] = Value::Bool(true);
    }
    if entity == Entity::ModifierOption {
        // `menu-write/category-code-required`: the parent modifier group code, in brand scope.
        in_brand["required"] = json!(["categoryCode"]);
        in_brand["properties"]["categoryCode"] = json!({ "type": "string" });
    }
    vec![json!({
        "if": { "properties": { "scope": { "const": brand } }, "required": ["scope"] },
        "then": in_brand,
        "else": in_store,
    })]
}

/// The `set` definition and the schedule's, for `entity`.
fn set_defs(entity: Entity) -> Vec<(&'static str, Value)> {
    let mut defs = vec![(set_name(entity), set_object(entity))];
    if shipped_any(entity).contains(&"schedule") {
        defs.push(("Schedule", schedule()));
    }
    defs
}

/// `schedule`: days[] (mon to sun, case-insensitive, at least one), startTime and endTime (HH:mm).
fn schedule() -> Value {
    let hh_mm = json!({ "type": "string", "pattern": "^(?:[01][0-9]|2[0-3]):[0-5][0-9]$", "examples": ["09:00", "22:30"] });
    object(
        "Schedule",
        "schedule: days[] (three-letter codes mon to sun, case-insensitive, at least one), startTime and endTime (`HH:mm`); outside the window the item is unavailable.",
        b::SCHEDULE_FIELDS,
        vec![
            f(
                "days",
                P::Req,
                "days[]: three-letter codes mon to sun, case-insensitive, at least one.",
                json!({ "type": "array", "minItems": 1, "items": one_of_any_case(b::DAYS) }),
            ),
            f("startTime", P::Req, "startTime (`HH:mm`).", hh_mm.clone()),
            f("endTime", P::Req, "endTime (`HH:mm`).", hh_mm),
        ],
        Members::Closed,
    )
}

/// PATCH /api/v1/menu/{products,modifier-options,categories,modifiers}/{code}.
fn patch(entity: Entity) -> Value {
    let (id, title, path, what) = match entity {
        Entity::Product => (
            "productPatch",
            "ProductPatchRequest",
            "PATCH /api/v1/menu/products/{code}",
            "\"Path code: product code as returned by the store menu read. Body: scope (`store` default or `brand`), stores[] (required in store, omitted in brand), categoryCode (optional), set (required object; absent or null field = no change).\" Set fields per scope: store scope: available (boolean), price (number at least 0), name, description (strings), schedule, channels; brand scope: price, name, description, tax (number between 0 and 1), maxPerOrder (integer above 0), image.",
        ),
        Entity::ModifierOption => (
            "modifierOptionPatch",
            "ModifierOptionPatchRequest",
            "PATCH /api/v1/menu/modifier-options/{code}",
            "\"scope, stores[], categoryCode (the parent modifier group code, not a menu category; optional in store scope, required in brand scope), set.\" \"modifierOption set: available (store only), price, name, isDefault (brand only), maxPerOrder (brand only).\" modifierOption price and name in store scope carry pendingCustomerRollout true.",
        ),
        Entity::Category => (
            "categoryPatch",
            "CategoryPatchRequest",
            "PATCH /api/v1/menu/categories/{code}",
            "\"scope must be `brand`; stores omitted; set: name (string), position (integer, at least 0). Path code is the service's code.\"",
        ),
        Entity::ModifierGroup => (
            "modifierGroupPatch",
            "ModifierGroupPatchRequest",
            "PATCH /api/v1/menu/modifiers/{code}",
            "\"scope must be `brand`; set: name, min (integer, at least 0), max (integer, at least 1 and at least min), type (`radio` or `checkbox`, case-insensitive; unknown gives 422).\"",
        ),
    };
    let brand = brand_scope();
    let fields = if entity.brand_only() {
        vec![
            f(
                "scope",
                P::Req,
                format!("scope must be `{brand}`: {} is brand-only (store is the default when scope is omitted).", entity.id()),
                one_of(&[brand]),
            ),
            f("stores", P::Opt, "stores must be omitted in brand scope: a brand write affects every store of the brand.", forbidden()),
            f("categoryCode", P::OptNull, "categoryCode (optional).", string()),
            f("set", P::Req, "set (required object; absent or null field = no change).", r#ref(set_name(entity))),
        ]
    } else {
        let category = if entity == Entity::ModifierOption {
            "categoryCode: the parent modifier group code, not a menu category; optional in store scope, required in brand scope."
        } else {
            "categoryCode (optional; a disambiguator)."
        };
        vec![
            f(
                "scope",
                P::OptNull,
                "scope: `store` (default: per-store override on top of the master catalog; reversible; stores[] required) or `brand` (the brand's master catalog; affects every store of the brand; stores must be omitted).",
                one_of(b::SCOPES),
            ),
            stores("stores[] (POS remoteIds): required in store scope, omitted in brand scope.", P::Opt),
            f("categoryCode", P::OptNull, category, string()),
            f("set", P::Req, "set (required object; absent or null field = no change).", r#ref(set_name(entity))),
        ]
    };
    let root = object("", "", b::PATCH_FIELDS, fields, Members::Closed);
    let rules = if entity.brand_only() { vec![] } else { scope_rules(entity, true) };
    let left_out: &[(&str, &str)] = if entity == Entity::ModifierGroup {
        &[("menu/group-min-max", "set.max at least set.min (a comparison of two fields)")]
    } else {
        &[]
    };
    document(
        id,
        title,
        About {
            what: format!("The body of `{path}`: answered 202 with data.changeId (a 202 does not mean the change was applied)."),
            contract: what,
            check: request_check(),
            left_out,
        },
        with_rules(root, rules),
        set_defs(entity),
    )
}

pub(crate) fn product_patch() -> Value {
    patch(Entity::Product)
}

pub(crate) fn modifier_option_patch() -> Value {
    patch(Entity::ModifierOption)
}

pub(crate) fn category_patch() -> Value {
    patch(Entity::Category)
}

pub(crate) fn modifier_group_patch() -> Value {
    patch(Entity::ModifierGroup)
}

/// POST /api/v1/menu/changes.
pub(crate) fn menu_change_batch() -> Value {
    let brand = brand_scope();
    let change = object(
        "Change",
        "changes[]: targetEntity (`product`, `modifierOption`, `category`, `modifierGroup`, `localProduct`), targetCode, scope, categoryCode (parent category or group; required for modifierOption in brand scope), set (same fields as the PATCH endpoints).",
        b::CHANGE_FIELDS,
        vec![
            f(
                "targetEntity",
                P::Req,
                "targetEntity (`product`, `modifierOption`, `category`, `modifierGroup`, `localProduct`).",
                one_of(b::CHANGE_ENTITIES),
            ),
            f("targetCode", P::Req, "targetCode.", string()),
            f("scope", P::OptNull, "scope: `store` (default) or `brand`; category and modifierGroup are brand-only.", one_of(b::SCOPES)),
            f(
                "categoryCode",
                P::OptNull,
                "categoryCode (parent category or group; required for modifierOption in brand scope).",
                string(),
            ),
            f(
                "set",
                P::Req,
                "set (same fields as the PATCH endpoints; absent or null field = no change). The set fields of a localProduct change are not shown.",
                json!({ "type": "object" }),
            ),
        ],
        Members::Closed,
    );
    // Per entity: its set (in its scope), brand-only scope, categoryCode in brand scope.
    let rules: Vec<Value> = Entity::ALL
        .iter()
        .map(|e| {
            let mut then = json!({ "properties": { "set": r#ref(set_name(*e)) } });
            let rules = scope_rules(*e, false);
            then["allOf"] = Value::Array(rules);
            when("targetEntity", e.id(), then)
        })
        .collect();
    let change = with_rules(change, rules);
    let root = object(
        "",
        "",
        b::CHANGES_FIELDS,
        vec![
            stores(
                "stores[] (targets for every change; all changes must resolve to stores of one brand): required when a change is in store scope, omitted when every change is in brand scope.",
                P::Opt,
            ),
            f("changes", P::Req, "changes[] (required).", array(r#ref("Change"))),
        ],
        Members::Closed,
    );
    // `menu-write/stores-scope`: stores[] is required when some change is in store scope (the
    // default) and omitted when every change is in brand scope.
    let store_change = json!({ "type": "object", "properties": { "scope": { "enum": [null, b::DEFAULT_SCOPE] } } });
    let brand_change = json!({ "type": "object", "properties": { "scope": { "const": brand } }, "required": ["scope"] });
    let rules = vec![
        json!({
            "if": { "properties": { "changes": { "type": "array", "contains": store_change } }, "required": ["changes"] },
            "then": require(&["stores"]),
        }),
        json!({
            "if": {
                "properties": { "changes": { "type": "array", "contains": brand_change, "not": { "contains": store_change } } },
                "required": ["changes"]
            },
            "then": { "properties": { "stores": false } },
        }),
    ];
    let mut defs = vec![("Change", change)];
    for e in Entity::ALL {
        for d in set_defs(e) {
            if !defs.iter().any(|(n, _)| *n == d.0) {
                defs.push(d);
            }
        }
    }
    document(
        "menuChangeBatch",
        "MenuChangeBatchRequest",
        About {
            what: "The body of `POST /api/v1/menu/changes`: answered 202 with one changeId for the batch.".into(),
            contract: "\"stores[] (targets for every change; all changes must resolve to stores of one brand); changes[] (required): targetEntity (`product`, `modifierOption`, `category`, `modifierGroup`, `localProduct`), targetCode, scope, categoryCode (parent category or group; required for modifierOption in brand scope), set (same fields as the PATCH endpoints). The shortcuts and PATCH endpoints compile to this shape.\"",
            check: request_check(),
            left_out: &[("menu/group-min-max", "a modifierGroup change's set.max at least its set.min (a comparison of two fields)")],
        },
        with_rules(root, rules),
        defs,
    )
}

/// POST /api/v1/menu/stores/{storeRemoteId}/products.
pub(crate) fn local_product() -> Value {
    let taxes: Vec<Value> = b::LOCAL_PRODUCT_TAXES.iter().map(|t| json_number(*t)).collect();
    let root = object(
        "",
        "",
        b::LOCAL_PRODUCT_FIELDS,
        vec![
            f(
                "code",
                P::Req,
                "code (required, unique within the store; kept as remoteCode while the service derives its own code; later calls accept either). As a remoteCode: letters, digits and `_ . - :`, no spaces, up to 100 characters.",
                string(),
            ),
            f("name", P::Req, "name (required).", string()),
            f("price", P::Req, "price (required, at least 0).", number(Some(MIN_PRICE), None)),
            f(
                "categoryCode",
                P::Req,
                "categoryCode (required; must be an existing category of the store menu, otherwise the product is created but never displayed).",
                string(),
            ),
            f("description", P::OptNull, "description.", string()),
            f("channels", P::OptNull, "channels[] (`delivery`, `pickup`; default delivery only).", array(one_of_any_case(CHANNELS))),
            f("tax", P::OptNull, "tax (`0`, `0.15` or `0.18`; default 0).", json!({ "type": "number", "enum": taxes })),
            f("maxPerOrder", P::OptNull, "maxPerOrder (integer above 0; default 25).", integer(Some(MIN_MAX_PER_ORDER))),
            f("image", P::OptNull, "image (absolute http or https URL, re-hosted as WebP).", http_url()),
            f(
                "available",
                P::OptNull,
                "available (boolean; ignored on creation, the product is always created active).",
                json!({ "type": "boolean", "deprecated": true }),
            ),
            f("position", P::Opt, "Position is not accepted (placed at the end of its category).", json!({ "deprecated": true })),
        ],
        Members::Closed,
    );
    document(
        crate::contract::TargetEntity::LocalProduct.as_str(),
        "LocalProductRequest",
        About {
            what: "The body of `POST /api/v1/menu/stores/{storeRemoteId}/products`: creates a store-local product; answered 202 with data.changeId.".into(),
            contract: "\"Local product maxPerOrder default: 25; must be above 0.\" \"Local product tax: only 0, 0.15, 0.18.\" \"available (boolean; ignored on creation, the product is always created active). Position is not accepted (placed at the end of its category).\" (both marked deprecated here).",
            check: request_check(),
            left_out: &[("local-product/code-format", "code written as a remoteCode (a warning: the service keeps it as remoteCode)")],
        },
        root,
        vec![],
    )
}
