//! The order creation payload (shape of `data.order`), the order detail and the order list page.

use super::currency::is_iso_4217;
use super::fields::{
    as_obj, f_arr, f_bool, f_enum, f_int, f_obj, f_order_key, f_str, f_ts, get, objects, read_status, unknown, ALIASES, P,
};
use super::rules as r;
use super::RouteInfo;
use crate::check;
use crate::contract::{FulfillmentType, Status, PAGE_SIZE_MAX};
use crate::diagnostic::{Collector, Path, Severity};
use crate::json::{Member, Span, Value};

/// The top-level fields of the creation webhook payload: the `data.order` shape, and the order's
/// `orderKey` beside it. Assumed: POST accept takes the orderKey "from the creation webhook", but
/// the contract does not show where its envelope holds it; the service model (the sandbox) puts it
/// at the top level, and the format is the stated one (`ord_` + 16 base62).
pub(crate) const CREATION_FIELDS: &[&str] = &[
    "orderKey",
    "displayCode",
    "storeRemoteId",
    "currency",
    "createdAt",
    "expiresAt",
    "fulfillment",
    "customer",
    "payment",
    "summary",
    "charges",
    "discounts",
    "items",
    "customerNote",
    "invoice",
];

/// The fields of the Order resource (GET /api/v1/Orders/{orderKey}, `data`), in the contract's
/// order: what detection scores an order detail by, and what the order checker and the order
/// engine read.
pub(crate) const DETAIL_FIELDS: &[&str] = &[
    "orderKey",
    "storeId",
    "brandId",
    "status",
    "merchantStatusReason",
    "remoteOrderId",
    "receivedAt",
    "acceptedAt",
    "rejectedAt",
    "preparingAt",
    "readyAt",
    "driverAssignedAt",
    "handedOverAt",
    "deliveredAt",
    "cancelledAt",
    "history",
    "order",
];

/// The fields of `data.order` (the commercial content of an order).
pub(crate) const ORDER_FIELDS: &[&str] = CREATION_FIELDS.split_at(1).1;

/// The fields of the nested objects of `data.order`, in the contract's order.
pub(crate) const CUSTOMER_FIELDS: &[&str] = &["firstName"];
pub(crate) const PAYMENT_FIELDS: &[&str] = &["methods", "amountToCollect", "changeFor"];
pub(crate) const PAYMENT_METHOD_FIELDS: &[&str] = &["type", "amount"];
pub(crate) const SUMMARY_FIELDS: &[&str] = &["subtotal", "taxes", "discounts", "additionalCharges", "grandTotal"];
pub(crate) const CHARGE_FIELDS: &[&str] = &["code", "amount", "billedBy"];
pub(crate) const DISCOUNT_FIELDS: &[&str] = &["code", "name", "amount", "fundedBy"];
pub(crate) const ITEM_FIELDS: &[&str] =
    &["code", "remoteCode", "name", "quantity", "unitPrice", "tax", "lineTotal", "note", "modifierGroups"];
pub(crate) const INVOICE_FIELDS: &[&str] = &["taxId", "businessName"];
pub(crate) const FULFILLMENT_FIELDS: &[&str] = &["type", "isExpress", "prepareBy", "driverPickupAt", "customerPickupAt"];
/// `fulfillment.type`.
pub(crate) const FULFILLMENT_TYPES: &[&str] = FulfillmentType::NAMES;
/// The pickup time of each fulfillment type: driverPickupAt (delivery) or customerPickupAt (pickup).
pub(crate) const FULFILLMENT_TIMES: &[(&str, &str)] =
    &[("driverPickupAt", FulfillmentType::Delivery.as_str()), ("customerPickupAt", FulfillmentType::Pickup.as_str())];
/// The fulfillment type on which `customer` is null ("only on pickup, null on delivery").
pub(crate) const CUSTOMER_NULL_ON: &str = FulfillmentType::Delivery.as_str();

/// The commercial content of an order: the creation webhook payload (`creation` true: the root,
/// which may carry the order's `orderKey` beside the `data.order` fields, and whose envelope
/// beyond those is not shown) or `data.order` of the detail.
pub(crate) fn order_content(c: &mut Collector, path: &Path, v: &Value, route: &RouteInfo, creation: bool) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    f_str(c, path, v, "displayCode", P::Req);
    if let Some(store) = f_str(c, path, v, "storeRemoteId", P::Req) {
        if let (true, Some(remote_id)) = (creation, route.remote_id.as_deref()) {
            if remote_id != store {
                store_differs(c, path, v, store, remote_id);
            }
        }
    }
    if let Some(cur) = f_str(c, path, v, "currency", P::Req) {
        if !is_iso_4217(cur) {
            not_a_currency(c, path, v, cur);
        }
    }
    f_ts(c, path, v, "createdAt", P::Req);
    match v.get("expiresAt") {
        Some(x) if x.is_null() => {
            c.push(&r::ORDER_EXPIRES_AT_NULL, &path.key("expiresAt"), x.span, "expiresAt is null, which is right only for an auto-accept store (the payload alone cannot tell whether this store is one)")
                .help("for an auto-accept store the service accepts the order itself when you answer 200 with a remoteOrderId; otherwise expect an acceptance deadline here");
        }
        _ => {
            f_ts(c, path, v, "expiresAt", P::ReqNull);
        }
    }
    let ftype = fulfillment(c, path, v);
    match get(c, path, v, "customer", P::ReqNull) {
        Some(cust) if ftype == Some(CUSTOMER_NULL_ON) => {
            c.push(
                &r::ORDER_CUSTOMER_ON_DELIVERY,
                &path.key("customer"),
                cust.span,
                "customer is only on pickup orders; it is null on delivery",
            );
        }
        Some(cust) => {
            let cp = path.key("customer");
            if as_obj(c, &cp, cust).is_some() {
                f_str(c, &cp, cust, "firstName", P::Req);
                unknown(c, &cp, cust, CUSTOMER_FIELDS);
            }
        }
        None => {}
    }
    if let Some(pay) = f_obj(c, path, v, "payment", P::Req) {
        let pp = path.key("payment");
        if let Some(methods) = f_arr(c, &pp, pay, "methods", P::Req) {
            let mp = pp.key("methods");
            for (i, m) in objects(c, &mp, methods) {
                let p = mp.index(i);
                f_str(c, &p, m, "type", P::Req);
                get(c, &p, m, "amount", P::ReqNull);
                unknown(c, &p, m, PAYMENT_METHOD_FIELDS);
            }
        }
        present(c, &pp, pay, &PAYMENT_FIELDS[1..]);
        unknown(c, &pp, pay, PAYMENT_FIELDS);
    }
    if let Some(sum) = f_obj(c, path, v, "summary", P::Req) {
        let sp = path.key("summary");
        present(c, &sp, sum, SUMMARY_FIELDS);
        unknown(c, &sp, sum, SUMMARY_FIELDS);
    }
    rows(c, path, v, "charges", CHARGE_FIELDS);
    rows(c, path, v, "discounts", DISCOUNT_FIELDS);
    if let Some(items) = f_arr(c, path, v, "items", P::Req) {
        let ip = path.key("items");
        for (i, it) in objects(c, &ip, items) {
            let p = ip.index(i);
            f_str(c, &p, it, "code", P::Req);
            get(c, &p, it, "remoteCode", P::ReqNull);
            f_str(c, &p, it, "name", P::Req);
            present(c, &p, it, &["quantity", "unitPrice", "tax", "lineTotal"]);
            f_str(c, &p, it, "note", P::ReqNull);
            // Inner fields of items[].modifierGroups[]: not shown.
            f_arr(c, &p, it, "modifierGroups", P::Req);
            unknown(c, &p, it, ITEM_FIELDS);
        }
    }
    f_str(c, path, v, "customerNote", P::ReqNull);
    if let Some(inv) = f_obj(c, path, v, "invoice", P::ReqNull) {
        let p = path.key("invoice");
        f_str(c, &p, inv, "taxId", P::ReqNull);
        f_str(c, &p, inv, "businessName", P::ReqNull);
        unknown(c, &p, inv, INVOICE_FIELDS);
    }
    if creation {
        // The orderKey the POS accepts or rejects the order with (its placement is assumed).
        f_order_key(c, path, v, "orderKey", P::Opt);
        // The full envelope of the creation payload beyond the data.order shape is not shown.
        for m in v.as_object().unwrap_or_default() {
            if !crate::check::is_known(CREATION_FIELDS, m) {
                beyond_the_order(c, path, m);
            }
        }
    } else {
        unknown(c, path, v, ORDER_FIELDS);
    }
}

// The findings of order_content that a clean order never has, out of line (issue 30: the machine
// code a delivery runs through).

/// storeRemoteId is not the store of the creation webhook's path.
#[cold]
#[inline(never)]
fn store_differs(c: &mut Collector, path: &Path, v: &Value, store: &str, remote_id: &str) {
    let span = v.get("storeRemoteId").map_or(v.span, |x| x.span);
    c.push(
        &r::ORDER_STORE_REMOTE_ID_PATH,
        &path.key("storeRemoteId"),
        span,
        format!("storeRemoteId \"{store}\" differs from the store \"{remote_id}\" of the request path"),
    )
    .help("the creation webhook goes to /v1/order/{remoteId}, the store's own code");
}

/// currency is not an ISO 4217 code.
#[cold]
#[inline(never)]
fn not_a_currency(c: &mut Collector, path: &Path, v: &Value, cur: &str) {
    let span = v.get("currency").map_or(v.span, |x| x.span);
    let d = c.push(&r::ORDER_CURRENCY, &path.key("currency"), span, format!("currency \"{cur}\" is not an ISO 4217 code"));
    if is_iso_4217(&cur.to_ascii_uppercase()) {
        d.help(format!("ISO 4217 codes are upper case: \"{}\"", cur.to_ascii_uppercase()));
    }
}

/// A member of the creation payload beyond the data.order shape and its orderKey.
#[cold]
#[inline(never)]
fn beyond_the_order(c: &mut Collector, path: &Path, m: &Member) {
    let d = c
        .push(
            &r::UNKNOWN_FIELD,
            &path.key(m.key),
            m.key_span,
            format!("field \"{}\" is not in the data.order shape nor the orderKey beside it (the rest of the creation envelope is not shown in the contract)", m.key),
        )
        .severity(Severity::Info);
    if let Some(s) = check::did_you_mean(m.key, CREATION_FIELDS, ALIASES) {
        d.help(format!("did you mean \"{s}\"?"));
    }
}

/// Fields whose types the contract does not show: only their presence is checked.
fn present(c: &mut Collector, path: &Path, v: &Value, keys: &[&str]) {
    for k in keys {
        get(c, path, v, k, P::ReqNull);
    }
}

/// `charges[]` / `discounts[]`: an array of objects holding `keys` (`code` and `name` strings).
fn rows(c: &mut Collector, path: &Path, v: &Value, key: &str, keys: &'static [&'static str]) {
    let Some(items) = f_arr(c, path, v, key, P::Req) else {
        return;
    };
    let ap = path.key(key);
    for (i, row) in objects(c, &ap, items) {
        let p = ap.index(i);
        for k in keys {
            if matches!(*k, "code" | "name") {
                f_str(c, &p, row, k, P::Req);
            } else {
                get(c, &p, row, k, P::ReqNull);
            }
        }
        unknown(c, &p, row, keys);
    }
}

/// `fulfillment`: type, isExpress, prepareBy and the pickup time of its type. Returns the type.
fn fulfillment(c: &mut Collector, path: &Path, v: &Value) -> Option<&'static str> {
    let f = f_obj(c, path, v, "fulfillment", P::Req)?;
    let fp = path.key("fulfillment");
    let ftype = f_enum(c, &fp, f, "type", P::Req, FULFILLMENT_TYPES, false);
    f_bool(c, &fp, f, "isExpress", P::Req);
    f_ts(c, &fp, f, "prepareBy", P::ReqNull);
    for &(key, for_type) in FULFILLMENT_TIMES {
        match (ftype, f.member(key)) {
            (Some(t), None) if t == for_type => {
                c.push(
                    &r::ORDER_FULFILLMENT_TIME_MISSING,
                    &fp.key(key),
                    Span::new(f.span.start, f.span.start + 1),
                    format!("{key} must be present on a {t} order"),
                );
            }
            (Some(t), Some(m)) if t != for_type => {
                c.push(
                    &r::ORDER_FULFILLMENT_TIME_UNEXPECTED,
                    &fp.key(key),
                    m.key_span,
                    format!("{key} belongs to {for_type} orders, not to a {t} order"),
                );
            }
            _ => {
                f_ts(c, &fp, f, key, P::OptNull);
            }
        }
    }
    unknown(c, &fp, f, FULFILLMENT_FIELDS);
    ftype
}

pub(crate) const LIST_ITEM_FIELDS: &[&str] =
    &["orderKey", "storeId", "status", "receivedAt", "acceptedAt", "remoteOrderId", "driverAssignedAt", "deliveredAt"];
pub(crate) const LIST_FIELDS: &[&str] = &["items", "nextCursor", "hasMore"];
/// "List page size: maximum 100".
pub(crate) const MAX_PAGE_SIZE: usize = PAGE_SIZE_MAX as usize;
/// The statuses on which a list item's `acceptedAt` is null ("null if pending or rejected").
pub(crate) const NOT_ACCEPTED_STATUSES: &[&str] = &[Status::Pending.as_str(), Status::Rejected.as_str()];

/// A list page (`data` of GET /api/v1/Orders).
pub(crate) fn order_list(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if let Some(items) = f_arr(c, path, v, "items", P::Req) {
        let ip = path.key("items");
        if items.len() > MAX_PAGE_SIZE {
            let span = v.get("items").map_or(v.span, |x| x.span);
            c.push(&r::LIST_PAGE_SIZE, &ip, span, format!("a page holds at most {MAX_PAGE_SIZE} items, found {}", items.len()));
        }
        for (i, it) in objects(c, &ip, items) {
            let p = ip.index(i);
            f_order_key(c, &p, it, "orderKey", P::Req);
            f_int(c, &p, it, "storeId", P::Req, None, None);
            let status = get(c, &p, it, "status", P::Req).and_then(|s| read_status(c, &p.key("status"), s));
            let status = match status {
                Some(s) if s == Status::Accepted.as_str() => {
                    let span = it.get("status").map_or(it.span, |x| x.span);
                    c.push(
                        &r::LIST_ACCEPTED_OBSERVED,
                        &p.key("status"),
                        span,
                        "Accepted is never observable: the accept cascade passes through it atomically (Pending → Preparing)",
                    )
                    .help("a POS reads Preparing right after accept, in the list as in the detail");
                    None
                }
                s => s,
            };
            if let Some(acc) = get(c, &p, it, "acceptedAt", P::ReqNull) {
                if let Some(st) = status.filter(|s| NOT_ACCEPTED_STATUSES.contains(s)) {
                    c.push(
                        &r::LIST_ACCEPTED_AT_STATUS,
                        &p.key("acceptedAt"),
                        acc.span,
                        format!("acceptedAt is null while the order is {st}"),
                    );
                } else {
                    super::fields::ts(c, &p.key("acceptedAt"), acc);
                }
            }
            f_ts(c, &p, it, "receivedAt", P::Req);
            f_str(c, &p, it, "remoteOrderId", P::ReqNull);
            f_ts(c, &p, it, "driverAssignedAt", P::ReqNull);
            f_ts(c, &p, it, "deliveredAt", P::ReqNull);
            unknown(c, &p, it, LIST_ITEM_FIELDS);
        }
    }
    let cursor = f_str(c, path, v, "nextCursor", P::ReqNull);
    let cursor_null = v.get("nextCursor").is_some_and(|x| x.is_null());
    if let Some(more) = f_bool(c, path, v, "hasMore", P::Req) {
        if more && cursor_null {
            let span = v.get("hasMore").map_or(v.span, |x| x.span);
            c.push(
                &r::LIST_HAS_MORE_CURSOR,
                &path.key("hasMore"),
                span,
                "hasMore is true but nextCursor is null: there is no cursor to fetch the next page",
            );
        } else if !more && cursor.is_some() {
            let span = v.get("nextCursor").map_or(v.span, |x| x.span);
            c.push(
                &r::LIST_HAS_MORE_CURSOR,
                &path.key("nextCursor"),
                span,
                "nextCursor is set but hasMore is false: nextCursor is null on the last page",
            );
        }
    }
    unknown(c, path, v, LIST_FIELDS);
}
