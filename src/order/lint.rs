//! `check_order`: an order detail as read from `GET /api/v1/Orders/{orderKey}`, checked against the
//! Order resource, the history[] rules and the transition table, with a position on every finding.

use super::machine::{RowKind, ACTOR_TYPES, DRIVER_EVENTS, OBSERVABLE, ROWS};
use super::model::{OrderFacts, FIELDS as TOP_FIELDS, NULLABLE_TIMESTAMPS};
use crate::basis::Basis;
use crate::check;
use crate::contract::{ActorType, DriverEvent, FulfillmentType, Status, WriteStatus, DELIVERED_AT_CUTOFF_UNIX};
use crate::diagnostic::{parse_error_report, Collector, Path, Report, Rule, Severity};
use crate::json::{self, Span, Value};

/// Options of [`check_order`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CheckOptions {
    /// Bounds on the input (depth, size).
    pub limits: json::Limits,
}

macro_rules! rules {
    ($($name:ident = $id:literal, $basis:expr, $source:literal, $sev:ident, $doc:literal;)*) => {
        $(#[doc = $doc] pub static $name: Rule = Rule { id: $id, severity: Severity::$sev, doc: $doc, basis: $basis, source: $source };)*
        /// Every rule of `check_order`, the JSON rules included.
        pub static RULES: &[&Rule] = &[
            &crate::diagnostic::json_rules::SYNTAX,
            &crate::diagnostic::json_rules::INVALID_UTF8,
            &crate::diagnostic::json_rules::TOO_DEEP,
            &crate::diagnostic::json_rules::TOO_LARGE,
            &crate::diagnostic::json_rules::DUPLICATE_KEY,
            $(&$name,)*
            // data.order: the rules of the creation payload's shape (one checker for both).
            &crate::shape::rules::REQUIRED_FIELD,
            &crate::shape::rules::FIELD_TYPE,
            &crate::shape::rules::ENUM_VALUE,
            &crate::shape::rules::TIMESTAMP,
            &crate::shape::rules::UNKNOWN_FIELD,
            &crate::shape::rules::RENAMED_FIELD,
            &crate::shape::rules::ORDER_CURRENCY,
            &crate::shape::rules::ORDER_EXPIRES_AT_NULL,
            &crate::shape::rules::ORDER_FULFILLMENT_TIME_MISSING,
            &crate::shape::rules::ORDER_FULFILLMENT_TIME_UNEXPECTED,
            &crate::shape::rules::ORDER_CUSTOMER_ON_DELIVERY,
        ];
    };
}

rules! {
    TOO_MANY_DIAGNOSTICS = "order/too-many-diagnostics", Basis::Assumed, "a bound of this toolkit on its report (the diagnostics budget); not a rule of the service", Error, "An order report lists at most `maxDiagnostics` diagnostics (10000 by default) and 4 MiB of text; the rest is counted, not listed.";
    REQUIRED = "order/required", Basis::Stated, "Resources and their fields: X | null means the field is always present", Error, "Every field of the Order resource and of a history entry is always present (`X | null` means present, possibly null).";
    TYPE = "order/type", Basis::Stated, "Resources and their fields: Order, history[] entry (types)", Error, "Each field has the type of the Order resource: string, integer, timestamp or null, array, object.";
    UNKNOWN_FIELD = "order/unknown-field", Basis::Assumed, "the spec lists the fields; others are not shown", Warning, "A field the Order resource, a history entry or a driver object does not have (a typo, or a name from another version).";
    ORDER_KEY = "order/order-key", Basis::Stated, "Order: orderKey is ord_ + 16 base62 characters", Error, "orderKey is `ord_` followed by 16 base62 characters.";
    STATUS = "order/status", Basis::Stated, "States and transitions: read vocabulary", Error, "status, fromStatus and toStatus are in the read vocabulary (PascalCase): Pending, Preparing, Ready, HandedOver, Rejected, Cancelled.";
    ACCEPTED_OBSERVED = "order/accepted-observed", Basis::Stated, "States and transitions: Accepted is never observable by the POS", Error, "Accepted is passed through atomically by the accept cascade and is never observable by the POS.";
    TIMESTAMP = "order/timestamp", Basis::Stated, "Resources and their fields: timestamps are ISO 8601 in UTC", Error, "Timestamps are ISO 8601 in UTC.";
    HISTORY_FIRST = "order/history-first", Basis::Stated, "history[] entry: fromStatus null on the first entry", Error, "The first history entry has fromStatus null, and only the first one.";
    INITIAL_STATUS = "order/initial-status", Basis::Assumed, "the first status of an order is not shown (every trigger of the table starts from Pending)", Warning, "The first history entry leads to Pending, the state every trigger of the table starts from.";
    HISTORY_ORDER = "order/history-order", Basis::Stated, "Order: history is a chronological trace", Error, "history is chronological: changedAt never goes back.";
    HISTORY_CONTINUITY = "order/history-continuity", Basis::Derived, "Order: history is a chronological trace of status changes", Error, "Each history entry starts where the previous one ended (fromStatus equals the previous toStatus).";
    HISTORY_TRANSITION = "order/history-transition", Basis::Derived, "States and transitions: the table", Error, "Each status change in history is a transition of the table (e.g. Pending to Ready is not).";
    TRANSITION_NOT_SHOWN = "order/transition-not-shown", Basis::Stated, "States and transitions: transitions of Cancelled from states other than HandedOver: not shown", Info, "A status change whose from-state the spec does not show (Cancelled from a state other than HandedOver, the service closing an order on confirmed delivery): neither allowed nor refused.";
    HISTORY_STATUS = "order/history-status", Basis::Derived, "Order: history traces the status changes; status is the current status", Error, "The last history entry ends at the order's status.";
    DRIVER_ROW = "order/driver-row", Basis::Stated, "history[] entry rule: assign, reassign and release rows have fromStatus equal to toStatus", Error, "Assign, reassign and release rows have fromStatus equal to toStatus and a driver object; a status change has driver null. Only driver.event tells a release from an assignment.";
    DRIVER_OBJECT = "order/driver-object", Basis::Stated, "history[] entry: driver object", Error, "driver: event (driver_assigned, driver_reassigned, driver_released), code, fullName, previousCode (only on driver_reassigned); code is opaque and is not validated against a pattern.";
    ACTOR_TYPE = "order/actor-type", Basis::Stated, "history[] entry: actorType enum", Error, "actorType is merchant, customer, operator, driver or system.";
    ACTOR_ID = "order/actor-id", Basis::Stated, "history[] entry: actorId null for system", Warning, "actorId is null for system.";
    TIMESTAMP_MISSING = "order/timestamp-missing", Basis::Derived, "States and transitions: acceptedAt set, rejectedAt set; Order: merchant transition timestamps", Error, "A transition timestamp is set once the order went through the transition: acceptedAt and preparingAt (accept cascade), rejectedAt, cancelledAt, readyAt when the merchant marked it ready.";
    TIMESTAMP_UNEXPECTED = "order/timestamp-unexpected", Basis::Derived, "Order list item: acceptedAt null if pending or rejected; Order: transition timestamps", Error, "A transition timestamp stays null while the order has not gone through the transition (acceptedAt is null if pending or rejected).";
    CASCADE = "order/cascade", Basis::Assumed, "preparingAt usually equals acceptedAt: that it is never before is not stated", Warning, "preparingAt comes from the accept cascade: it is never before acceptedAt (and usually equals it).";
    TIMESTAMP_SEQUENCE = "order/timestamp-sequence", Basis::Derived, "States and transitions: the order of the states; deliveredAt later than handedOverAt", Error, "Transition timestamps follow the states: receivedAt, acceptedAt, readyAt, handedOverAt in that order; rejectedAt and cancelledAt after receivedAt; cancelledAt after handedOverAt.";
    ACCEPTED_AFTER_EXPIRY = "order/accepted-after-expiry", Basis::Stated, "States and transitions: POST accept after expiresAt: 409 acceptance-timeout", Error, "acceptedAt is before order.expiresAt: an accept after it is answered 409 acceptance-timeout.";
    DRIVER_ASSIGNED_AT = "order/driver-assigned-at", Basis::Stated, "Order: driverAssignedAt cleared when the driver is released", Error, "driverAssignedAt is set while a driver is assigned and cleared when the driver is released (per the last driver row of history).";
    DELIVERED_AT = "order/delivered-at", Basis::Stated, "Order: deliveredAt (before 2026-08-12 null; later than handedOverAt on delivery; equal on pickup)", Error, "deliveredAt: null permanently for orders created before 2026-08-12; set only once HandedOver (or Cancelled after delivery); later than handedOverAt on delivery, equal to it on pickup.";
    HANDED_OVER_AT = "order/handed-over-at", Basis::Assumed, "handedOverAt may be null while HandedOver when the merchant never reported the handover; the converse is not stated", Warning, "handedOverAt is set when the merchant reported the handover (a merchant history row to HandedOver); it may be null while HandedOver only when the service closed the order on confirmed delivery.";
    ORDER_NULL = "order/order-null", Basis::Stated, "Order: order is null only if the original snapshot cannot be read", Info, "data.order is null (the snapshot cannot be read): the acceptance deadline and the creation date are unknown.";
}

pub(crate) const HISTORY_FIELDS: &[&str] = &["fromStatus", "toStatus", "changedAt", "actorType", "actorId", "reason", "driver"];
pub(crate) const DRIVER_FIELDS: &[&str] = &["event", "code", "fullName", "previousCode"];

/// A timestamp field of the order: `known` is false when it is missing or broken (then no other
/// rule looks at it: one root cause per node).
#[derive(Debug, Clone, Copy)]
struct Ts {
    known: bool,
    ms: Option<i64>,
    span: Span,
}

impl Ts {
    const UNKNOWN: Ts = Ts { known: false, ms: None, span: Span::new(0, 0) };
    fn set(&self) -> Option<i64> {
        if self.known {
            self.ms
        } else {
            None
        }
    }
    fn is_null(&self) -> bool {
        self.known && self.ms.is_none()
    }
}

#[derive(Debug, Default)]
struct Entry {
    /// `Some(None)` = null; `None` = missing or broken.
    from: Option<Option<Status>>,
    to: Option<Status>,
    changed: Option<i64>,
    actor: Option<ActorType>,
    /// `Some(event)` on a driver row with a known event, `Some(None)` on a driver row without one.
    driver: Option<Option<DriverEvent>>,
    driver_null: bool,
    from_span: Span,
    to_span: Span,
    changed_span: Span,
    driver_span: Span,
}

/// A status of the read vocabulary (Accepted reported under its own rule).
fn status_value(c: &mut Collector, path: &Path, v: &Value) -> Option<Status> {
    let s = check::string(c, &TYPE, path, v)?;
    match Status::parse(s) {
        Some(Status::Accepted) => {
            c.push(
                &ACCEPTED_OBSERVED,
                path,
                v.span,
                "Accepted is never observable: the accept cascade passes through it atomically (Pending → Preparing)",
            )
            .help("a POS reads Preparing right after accept");
            None
        }
        Some(s) => Some(s),
        None => {
            let d = c.push(&STATUS, path, v.span, format!("\"{s}\" is not a status of the read vocabulary ({})", OBSERVABLE.join(", ")));
            if let Some(hint) = check::did_you_mean(
                s,
                OBSERVABLE,
                &[(WriteStatus::HandedOver.as_str(), Status::HandedOver.as_str()), ("DriverAssigned", Status::Preparing.as_str())],
            ) {
                if s.eq_ignore_ascii_case("DriverAssigned") {
                    d.help("a driver is not a status since 2026-08-11: driver changes are history rows with driver.event");
                } else {
                    d.help(format!("did you mean \"{hint}\"? (the read vocabulary is PascalCase)"));
                }
            }
            None
        }
    }
}

fn ts_field(c: &mut Collector, path: &Path, obj: &Value, key: &str, nullable: bool) -> Ts {
    let Some(v) = check::required(c, &REQUIRED, path, obj, key) else {
        return Ts::UNKNOWN;
    };
    let p = path.key(key);
    let r = if nullable { check::timestamp_or_null(c, &TIMESTAMP, &p, v) } else { check::timestamp(c, &TIMESTAMP, &p, v).map(Some) };
    match r {
        Some(t) => Ts { known: true, ms: t.map(|t| t.unix_millis), span: v.span },
        None => Ts::UNKNOWN,
    }
}

fn field_path(base: &Path, key: &str) -> String {
    base.key(key).to_service_path()
}

/// Checks an order detail (the `data` of `GET /api/v1/Orders/{orderKey}`, or the whole envelope).
pub fn check_order(input: &[u8], options: &CheckOptions) -> Report {
    let arena = json::Arena::for_input(input.len());
    let doc = match json::parse(input, &options.limits, &arena) {
        Ok(d) => d,
        Err(e) => return parse_error_report(input, &e, Some("orderDetail")),
    };
    let mut c = Collector::new();
    c.set_budget(options.limits.max_diagnostics, &TOO_MANY_DIAGNOSTICS);
    c.set_kind("orderDetail");
    c.duplicate_keys(&doc);
    let root = Path::ROOT;
    let envelope_path = root.key("data");
    let envelope = doc.root.get("status").is_none()
        && doc.root.get("orderKey").is_none()
        && doc.root.get("data").is_some_and(|d| d.as_object().is_some());
    let (data, base) = if envelope { (doc.root.get("data").unwrap_or(&doc.root), &envelope_path) } else { (&doc.root, &root) };
    if check::object(&mut c, &TYPE, base, data).is_some() {
        check_detail(&mut c, base, data);
    }
    c.finish(input)
}

/// The one order checker: the Order resource at `base` (its history rules, its lifecycle and its
/// commercial content). `check_order` and `validatePayload(kind orderDetail)` both call it.
pub(crate) fn check_detail(c: &mut Collector, base: &Path, data: &Value) -> OrderFacts {
    check::unknown_fields(
        c,
        &UNKNOWN_FIELD,
        base,
        data,
        TOP_FIELDS,
        &[("imageUrl", "order"), ("expiresAt", "order"), ("events", "history")],
    );

    if let Some(v) = check::required(c, &REQUIRED, base, data, "orderKey") {
        let p = base.key("orderKey");
        if let Some(s) = check::string(c, &TYPE, &p, v) {
            if !check::is_order_key(s) {
                c.push(
                    &ORDER_KEY,
                    &p,
                    v.span,
                    format!("orderKey \"{}\" is not ord_ followed by 16 base62 characters", s.chars().take(40).collect::<String>()),
                )
                .help("orderKey is the public opaque id from the creation webhook, e.g. ord_7Hq2LmXc9PzR4tBv");
            }
        }
    }
    for key in ["storeId", "brandId"] {
        if let Some(v) = check::required(c, &REQUIRED, base, data, key) {
            check::integer(c, &TYPE, &base.key(key), v, None, None);
        }
    }
    for key in ["merchantStatusReason", "remoteOrderId"] {
        if let Some(v) = check::required(c, &REQUIRED, base, data, key) {
            check::string_or_null(c, &TYPE, &base.key(key), v);
        }
    }
    let status = check::required(c, &REQUIRED, base, data, "status").and_then(|v| status_value(c, &base.key("status"), v));
    let status_span = data.get("status").map_or(Span::new(data.span.start, data.span.start + 1), |v| v.span);
    let received = ts_field(c, base, data, "receivedAt", false);
    let mut ts: Vec<(&'static str, Ts)> = Vec::new();
    for &key in NULLABLE_TIMESTAMPS {
        ts.push((key, ts_field(c, base, data, key, true)));
    }
    let get = |key: &str| ts.iter().find(|(k, _)| *k == key).map_or(Ts::UNKNOWN, |(_, t)| *t);

    // data.order: the commercial content (only what the lifecycle needs is checked here).
    let commercial = check_commercial(c, base, data);

    // history[]
    let history_path = base.key("history");
    let mut entries: Vec<Entry> = Vec::new();
    let mut history_known = false;
    if let Some(hv) = check::required(c, &REQUIRED, base, data, "history") {
        if let Some(items) = check::array(c, &TYPE, &history_path, hv) {
            history_known = true;
            for (i, item) in items.iter().enumerate() {
                let p = history_path.index(i);
                entries.push(check_entry(c, &p, item));
            }
        }
    }
    check_history(c, &history_path, &entries, status, status_span, &base.key("status"));
    let facts = OrderFacts {
        status,
        expires: commercial.expires.map(|(ms, _)| ms),
        expires_broken: commercial.expires_present && commercial.expires.is_none(),
        expires_text: commercial.expires_text.clone(),
        created: commercial.created.or(received.set()),
        pickup: commercial.fulfillment == Some(FulfillmentType::Pickup),
        latest: ts.iter().filter_map(|(_, t)| t.set()).chain(received.set()).chain(entries.iter().filter_map(|e| e.changed)).max(),
    };

    // What the order went through.
    let mut reached: Vec<Status> = Vec::new();
    for e in &entries {
        for s in [e.from.flatten(), e.to].into_iter().flatten() {
            if !reached.contains(&s) {
                reached.push(s);
            }
        }
    }
    if let Some(s) = status {
        if !reached.contains(&s) {
            reached.push(s);
        }
    }
    // The path is fully known when history is readable and ends at the status.
    let path_known =
        history_known && status.is_some() && (entries.is_empty() || entries.iter().all(|e| e.to.is_some() && e.from.is_some()));
    let accepted = reached.iter().any(|s| [Status::Preparing, Status::Ready, Status::HandedOver].contains(s));
    let merchant_reached = |target: Status| {
        entries.iter().any(|e| e.to == Some(target) && e.from.flatten() != Some(target) && e.actor == Some(ActorType::Merchant))
    };

    // Transition timestamps.
    let missing = |c: &mut Collector, key: &str, why: String| {
        let t = get(key);
        if t.is_null() {
            c.push(&TIMESTAMP_MISSING, &base.key(key), t.span, format!("{key} is null although {why}"));
        }
    };
    if accepted {
        missing(c, "acceptedAt", "the order was accepted (it reached Preparing through the accept cascade)".into());
        missing(c, "preparingAt", "the accept cascade sets it with acceptedAt".into());
    }
    if status == Some(Status::Rejected) {
        missing(c, "rejectedAt", "the order is Rejected".into());
    }
    if status == Some(Status::Cancelled) {
        missing(c, "cancelledAt", "the order is Cancelled".into());
    }
    if merchant_reached(Status::Ready) {
        missing(c, "readyAt", "a merchant history row reached Ready".into());
    }
    if merchant_reached(Status::HandedOver) {
        let t = get("handedOverAt");
        if t.is_null() {
            c.push(
                &HANDED_OVER_AT,
                &base.key("handedOverAt"),
                t.span,
                "handedOverAt is null although a merchant history row reported the handover",
            )
            .help("handedOverAt may be null while HandedOver only when the merchant never reported the handover");
        }
    }
    let unexpected = |c: &mut Collector, key: &str, why: &str| {
        let t = get(key);
        if t.set().is_some() {
            c.push(&TIMESTAMP_UNEXPECTED, &base.key(key), t.span, format!("{key} is set although {why}"));
        }
    };
    if matches!(status, Some(Status::Pending) | Some(Status::Rejected)) || (path_known && !accepted) {
        unexpected(c, "acceptedAt", "the order was never accepted (acceptedAt is null if pending or rejected)");
        unexpected(c, "preparingAt", "the order never reached Preparing");
    }
    if status.is_some() && !reached.contains(&Status::Rejected) {
        unexpected(c, "rejectedAt", "the order was never Rejected");
    }
    if status.is_some() && !reached.contains(&Status::Cancelled) {
        unexpected(c, "cancelledAt", "the order was never Cancelled");
    }
    if path_known && !reached.contains(&Status::Ready) && !entries.is_empty() {
        unexpected(c, "readyAt", "the order never reached Ready");
    }
    if path_known && !reached.contains(&Status::HandedOver) {
        unexpected(c, "handedOverAt", "the order never reached HandedOver");
    }

    // The cascade and the sequence of timestamps.
    if let (Some(a), Some(p)) = (get("acceptedAt").set(), get("preparingAt").set()) {
        if p < a {
            c.push(
                &CASCADE,
                &base.key("preparingAt"),
                get("preparingAt").span,
                "preparingAt is before acceptedAt: the accept cascade passes Accepted → Preparing",
            )
            .related_at(&field_path(base, "acceptedAt"), get("acceptedAt").span, "acceptedAt");
        }
    }
    let mut chain: Vec<(&str, Ts)> = vec![("receivedAt", received)];
    chain.extend(["acceptedAt", "readyAt", "handedOverAt"].iter().map(|k| (*k, get(k))));
    let mut last: Option<(&str, Ts)> = None;
    for (key, t) in chain {
        if let Some(ms) = t.set() {
            if let Some((lk, lt)) = last {
                if ms < lt.ms.unwrap_or(i64::MIN) {
                    c.push(&TIMESTAMP_SEQUENCE, &base.key(key), t.span, format!("{key} is before {lk}")).related_at(
                        &field_path(base, lk),
                        lt.span,
                        lk.to_string(),
                    );
                }
            }
            last = Some((key, t));
        }
    }
    for (earlier, later) in [("receivedAt", "rejectedAt"), ("receivedAt", "cancelledAt"), ("handedOverAt", "cancelledAt")] {
        let e = if earlier == "receivedAt" { received } else { get(earlier) };
        let l = get(later);
        if let (Some(em), Some(lm)) = (e.set(), l.set()) {
            if lm < em {
                c.push(&TIMESTAMP_SEQUENCE, &base.key(later), l.span, format!("{later} is before {earlier}")).related_at(
                    &field_path(base, earlier),
                    e.span,
                    earlier.to_string(),
                );
            }
        }
    }

    // The acceptance deadline.
    if let (Some(a), Some(exp)) = (get("acceptedAt").set(), commercial.expires.and_then(|(ms, _)| ms)) {
        if a >= exp {
            let span = commercial.expires.map_or(Span::default(), |(_, s)| s);
            c.push(
                &ACCEPTED_AFTER_EXPIRY,
                &base.key("acceptedAt"),
                get("acceptedAt").span,
                "acceptedAt is not before order.expiresAt: an accept after the deadline is answered 409 acceptance-timeout",
            )
            .related_at(&format!("{}.expiresAt", field_path(base, "order")), span, "the acceptance deadline");
        }
    }

    // The driver cycle.
    let last_driver = entries.iter().rev().find_map(|e| e.driver.flatten().map(|ev| (ev, e)));
    if let Some((event, e)) = last_driver {
        let t = get("driverAssignedAt");
        let at = base.key("driverAssignedAt");
        if event == DriverEvent::Released && t.set().is_some() {
            c.push(
                &DRIVER_ASSIGNED_AT,
                &at,
                t.span,
                "driverAssignedAt is set although the last driver row is a release: it is cleared when the driver is released",
            )
            .related_at(&history_path.to_service_path(), e.driver_span, "the release");
        } else if event != DriverEvent::Released && t.is_null() {
            c.push(&DRIVER_ASSIGNED_AT, &at, t.span, format!("driverAssignedAt is null although the last driver row is {event}"))
                .related_at(&history_path.to_service_path(), e.driver_span, "the last driver row");
        }
    }

    // deliveredAt around 2026-08-12.
    let delivered = get("deliveredAt");
    let delivered_path = base.key("deliveredAt");
    if let Some(d) = delivered.set() {
        let created = commercial.created.or(received.set());
        if created.is_some_and(|cr| cr < DELIVERED_AT_CUTOFF_UNIX * 1000) {
            c.push(
                &DELIVERED_AT,
                &delivered_path,
                delivered.span,
                "deliveredAt is set on an order created before 2026-08-12: such orders return null permanently (no backfill)",
            )
            .help("for orders created before 2026-08-12, HandedOver is the only sign of closure");
        } else if status.is_some() && !matches!(status, Some(Status::HandedOver) | Some(Status::Cancelled)) {
            c.push(
                &DELIVERED_AT,
                &delivered_path,
                delivered.span,
                format!(
                    "deliveredAt is set while the order is {}: a delivered order is HandedOver (or Cancelled after delivery)",
                    status.map_or("", Status::as_str)
                ),
            );
        } else if let Some(h) = get("handedOverAt").set() {
            let hspan = get("handedOverAt").span;
            match commercial.fulfillment {
                Some(FulfillmentType::Delivery) if d <= h => {
                    c.push(&DELIVERED_AT, &delivered_path, delivered.span, "deliveredAt is not later than handedOverAt: on delivery orders it is set when the driver confirms, after the handover")
                        .related_at(&field_path(base, "handedOverAt"), hspan, "handedOverAt");
                }
                Some(FulfillmentType::Pickup) if d != h => {
                    c.push(
                        &DELIVERED_AT,
                        &delivered_path,
                        delivered.span,
                        "deliveredAt differs from handedOverAt: on pickup it equals handedOverAt",
                    )
                    .related_at(&field_path(base, "handedOverAt"), hspan, "handedOverAt");
                }
                _ => {}
            }
        }
    } else if delivered.is_null() && status == Some(Status::HandedOver) && get("handedOverAt").is_null() {
        let created = commercial.created.or(received.set());
        if created.is_some_and(|cr| cr >= DELIVERED_AT_CUTOFF_UNIX * 1000) {
            c.push(&DELIVERED_AT, &delivered_path, delivered.span, "HandedOver with handedOverAt and deliveredAt both null: the service closes an order without a reported handover only on confirmed delivery, which sets deliveredAt")
                .severity(Severity::Warning);
        }
    }
    facts
}

#[derive(Debug, Clone, Default)]
struct Commercial {
    /// `Some((ms, span))`: expiresAt read (ms None = null).
    expires: Option<(Option<i64>, Span)>,
    /// data.order is an object holding an `expiresAt` member (read or broken).
    expires_present: bool,
    expires_text: Option<String>,
    created: Option<i64>,
    fulfillment: Option<FulfillmentType>,
}

fn check_commercial(c: &mut Collector, base: &Path, data: &Value) -> Commercial {
    let mut out = Commercial::default();
    let Some(v) = check::required(c, &REQUIRED, base, data, "order") else {
        return out;
    };
    let p = base.key("order");
    if v.is_null() {
        c.push(
            &ORDER_NULL,
            &p,
            v.span,
            "data.order is null (the original snapshot cannot be read): the acceptance deadline and the creation date are unknown",
        );
        return out;
    }
    if check::object(c, &TYPE, &p, v).is_none() {
        return out;
    }
    // The commercial content has the shape of the creation webhook payload: one checker for both.
    crate::shape::check_order_content(c, &p, v);
    // What the lifecycle rules need, read quietly (the checks above reported what is broken).
    let ts = |key: &str| v.get(key).and_then(Value::as_str).and_then(crate::time::parse).filter(|t| t.utc);
    if let Some(e) = v.get("expiresAt") {
        out.expires_present = true;
        out.expires_text = e.as_str().map(str::to_string);
        if e.is_null() {
            out.expires = Some((None, e.span));
        } else if let Some(t) = ts("expiresAt") {
            out.expires = Some((Some(t.unix_millis), e.span));
        }
    }
    out.created = ts("createdAt").map(|t| t.unix_millis);
    out.fulfillment = match v.get("fulfillment").and_then(|f| f.get("type")).and_then(Value::as_str) {
        Some(t) => FulfillmentType::parse(t),
        None => None,
    };
    out
}

fn check_entry(c: &mut Collector, p: &Path, item: &Value) -> Entry {
    let mut e = Entry::default();
    if check::object(c, &TYPE, p, item).is_none() {
        return e;
    }
    check::unknown_fields(
        c,
        &UNKNOWN_FIELD,
        p,
        item,
        HISTORY_FIELDS,
        &[("from", "fromStatus"), ("to", "toStatus"), ("status", "toStatus")],
    );
    if let Some(v) = check::required(c, &REQUIRED, p, item, "fromStatus") {
        e.from_span = v.span;
        e.from = if v.is_null() { Some(None) } else { status_value(c, &p.key("fromStatus"), v).map(Some) };
    }
    if let Some(v) = check::required(c, &REQUIRED, p, item, "toStatus") {
        e.to_span = v.span;
        e.to = status_value(c, &p.key("toStatus"), v);
    } else {
        e.to_span = Span::new(item.span.start, item.span.start + 1);
    }
    if let Some(v) = check::required(c, &REQUIRED, p, item, "changedAt") {
        e.changed_span = v.span;
        e.changed = check::timestamp(c, &TIMESTAMP, &p.key("changedAt"), v).map(|t| t.unix_millis);
    }
    if let Some(v) = check::required(c, &REQUIRED, p, item, "actorType") {
        e.actor = check::one_of(c, &ACTOR_TYPE, &p.key("actorType"), v, ACTOR_TYPES, false).and_then(ActorType::parse);
    }
    if let Some(v) = check::required(c, &REQUIRED, p, item, "actorId") {
        if let Some(id) = check::string_or_null(c, &TYPE, &p.key("actorId"), v) {
            if e.actor == Some(ActorType::System) && id.is_some() {
                c.push(&ACTOR_ID, &p.key("actorId"), v.span, "actorId is set on a system row: it is null for system");
            }
        }
    }
    if let Some(v) = check::required(c, &REQUIRED, p, item, "reason") {
        check::string_or_null(c, &TYPE, &p.key("reason"), v);
    }
    if let Some(v) = check::required(c, &REQUIRED, p, item, "driver") {
        e.driver_span = v.span;
        let dp = p.key("driver");
        if v.is_null() {
            e.driver_null = true;
        } else if check::object(c, &TYPE, &dp, v).is_some() {
            check::unknown_fields(c, &UNKNOWN_FIELD, &dp, v, DRIVER_FIELDS, &[("driverCode", "code"), ("name", "fullName")]);
            let event = match check::required(c, &DRIVER_OBJECT, &dp, v, "event") {
                Some(ev) => check::one_of(c, &DRIVER_OBJECT, &dp.key("event"), ev, DRIVER_EVENTS, false).and_then(DriverEvent::parse),
                None => None,
            };
            e.driver = Some(event);
            // code: an opaque label (it falls back to the internal id); never matched against a pattern.
            for key in ["code", "fullName", "previousCode"] {
                if let Some(fv) = v.get(key) {
                    if let Some(Some(_)) = check::string_or_null(c, &DRIVER_OBJECT, &dp.key(key), fv) {
                        if key == "previousCode" && event.is_some() && event != Some(DriverEvent::Reassigned) {
                            c.push(
                                &DRIVER_OBJECT,
                                &dp.key(key),
                                fv.span,
                                format!(
                                    "previousCode is set on a {} row: it is only on driver_reassigned",
                                    event.map_or("", DriverEvent::as_str)
                                ),
                            )
                            .severity(Severity::Warning);
                        }
                    }
                }
            }
        }
    }
    e
}

fn check_history(c: &mut Collector, hp: &Path, entries: &[Entry], status: Option<Status>, status_span: Span, status_path: &Path) {
    let mut prev_to: Option<(Status, usize)> = None;
    let mut prev_changed: Option<(i64, usize)> = None;
    for (i, e) in entries.iter().enumerate() {
        let p = hp.index(i);
        // fromStatus null on the first entry only.
        match (i, e.from) {
            (0, Some(Some(f))) => {
                c.push(
                    &HISTORY_FIRST,
                    &p.key("fromStatus"),
                    e.from_span,
                    format!("the first history entry has fromStatus \"{f}\": it must be null"),
                );
            }
            (i, Some(None)) if i > 0 => {
                c.push(
                    &HISTORY_FIRST,
                    &p.key("fromStatus"),
                    e.from_span,
                    "fromStatus is null on an entry that is not the first: only the first entry has fromStatus null",
                );
            }
            _ => {}
        }
        if i == 0 {
            if let (Some(to), Some(None)) = (e.to, e.from) {
                if to != Status::Pending {
                    c.push(
                        &INITIAL_STATUS,
                        &p.key("toStatus"),
                        e.to_span,
                        format!("the first history entry leads to {to}: orders start Pending"),
                    );
                }
            }
        }
        // Chronological.
        if let Some(t) = e.changed {
            if let Some((pt, pi)) = prev_changed {
                if t < pt {
                    c.push(
                        &HISTORY_ORDER,
                        &p.key("changedAt"),
                        e.changed_span,
                        format!("changedAt goes back in time: it is before history[{pi}].changedAt"),
                    )
                    .related_at(&hp.index(pi).key("changedAt").to_service_path(), entries[pi].changed_span, "the previous entry")
                    .help("history is a chronological trace of status changes");
                }
            }
            prev_changed = Some((t, i));
        }
        let from = e.from.flatten();
        if i == 0 && from.is_some() {
            // Already reported: the first entry must start from null; nothing to compare it with.
            prev_to = e.to.map(|t| (t, i));
            continue;
        }
        // Driver rows: fromStatus = toStatus, with a driver object.
        let same = matches!((from, e.to), (Some(f), Some(t)) if f == t);
        if e.driver.is_some() && !same {
            if let (Some(f), Some(t)) = (from, e.to) {
                c.push(&DRIVER_ROW, &p.key("toStatus"), e.to_span, format!("a driver row changes the status from {f} to {t}: assign, reassign and release rows have fromStatus equal to toStatus"))
                    .help("a driver is not a status: the driver cycle runs in parallel");
            }
        } else if e.driver_null && same {
            c.push(
                &DRIVER_ROW,
                &p.key("driver"),
                e.driver_span,
                "a row with fromStatus equal to toStatus is a driver row, but driver is null",
            )
            .help("assign, reassign and release rows carry driver.event; only driver.event tells a release from an assignment");
        }
        // Continuity and the table.
        if let (Some(f), Some((pt, pi))) = (from, prev_to) {
            if f != pt {
                c.push(
                    &HISTORY_CONTINUITY,
                    &p.key("fromStatus"),
                    e.from_span,
                    format!("fromStatus is {f} but the previous entry ended at {pt}"),
                )
                .related_at(&hp.index(pi).key("toStatus").to_service_path(), entries[pi].to_span, "the previous entry");
            }
        }
        if let (Some(f), Some(t)) = (from, e.to) {
            if f != t && prev_to.is_none_or(|(pt, _)| pt == f) {
                check_step(c, &p, e, f, t);
            }
        }
        // An unreadable toStatus (already reported) breaks the chain: the next entry is not compared.
        prev_to = e.to.map(|t| (t, i));
    }
    if let (Some(s), Some((last, li))) = (status, prev_to) {
        if s != last {
            c.push(&HISTORY_STATUS, status_path, status_span, format!("status is {s} but the history ends at {last}")).related_at(
                &hp.index(li).key("toStatus").to_service_path(),
                entries[li].to_span,
                "the last history entry",
            );
        }
    }
}

/// One status change against the table.
fn check_step(c: &mut Collector, p: &Path, e: &Entry, from: Status, to: Status) {
    let stated = ROWS.iter().find(|r| r.kind == RowKind::Transition && r.to == Some(to) && r.from.contains(&from));
    if stated.is_some() {
        return;
    }
    if let Some(r) =
        ROWS.iter().find(|r| r.kind == RowKind::Transition && r.to == Some(to) && r.from_unknown && r.from_candidates.contains(&from))
    {
        c.push(
            &TRANSITION_NOT_SHOWN,
            &p.key("toStatus"),
            e.to_span,
            format!("{from} → {to} ({}): the spec does not show this from-state", r.trigger_text),
        )
        .help(r.unknown.first().copied().unwrap_or("not shown in the spec"));
        return;
    }
    let targets: Vec<&str> = {
        let mut v: Vec<&str> = Vec::new();
        for r in ROWS.iter().filter(|r| r.kind == RowKind::Transition && r.from.contains(&from)) {
            if let Some(t) = r.to.map(Status::as_str) {
                if !v.contains(&t) {
                    v.push(t);
                }
            }
        }
        v
    };
    let d = c.push(&HISTORY_TRANSITION, &p.key("toStatus"), e.to_span, format!("{from} → {to} is not a transition of the table"));
    if targets.is_empty() {
        d.help(format!("{from} is terminal: nothing leaves it"));
    } else {
        d.help(format!("from {from} the table leads to {}", targets.join(", ")));
    }
}

#[cfg(test)]
mod tests;
