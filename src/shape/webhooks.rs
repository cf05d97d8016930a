//! What the service sends the POS by webhook (OrderUpdateEvent, MenuChangeCompletedWebhook) and
//! what the POS answers (the creation webhook answer, MerchantErrorResponse).

use super::fields::{self, as_obj, f_bool, f_change_key, f_enum, f_str, f_ts, objects, present, ts, unknown, P};
use super::rules as r;
use super::RouteInfo;
use crate::check;
use crate::contract::{ExpectedNext, MenuChangeOutcome, TargetEntity, UpdateEvent};
use crate::diagnostic::{Collector, Path};
use crate::json::{same_text, Member, Span, Value};

/// The `event` values the contract lists; new ones may be added without a version change.
pub(crate) const UPDATE_EVENTS: &[&str] = UpdateEvent::NAMES;
const CANCELLED: &str = UpdateEvent::Cancelled.as_str();
const ASSIGNED: &str = UpdateEvent::DriverAssigned.as_str();
const RELEASED: &str = UpdateEvent::DriverReleased.as_str();

/// A conditional field of OrderUpdateEvent and the events that carry it.
pub(crate) type Conditional = (&'static str, &'static [&'static str]);
pub(crate) const REASON: Conditional = ("reason", &[CANCELLED, RELEASED]);
pub(crate) const DRIVER: Conditional = ("driver", &[ASSIGNED]);
pub(crate) const RELEASED_DRIVER: Conditional = ("releasedDriver", &[RELEASED]);
pub(crate) const EXPECTED_NEXT: Conditional = ("expectedNext", &[RELEASED]);
/// Every conditional field of OrderUpdateEvent.
pub(crate) const CONDITIONALS: &[Conditional] = &[REASON, DRIVER, RELEASED_DRIVER, EXPECTED_NEXT];
/// The current value of `expectedNext` ("current value `driver_reassignment`; unknown values tolerated").
pub(crate) const EXPECTED_NEXT_VALUE: &str = ExpectedNext::DriverReassignment.as_str();

/// The fields of OrderUpdateEvent, then the former `status` (known only where it stands for `event`).
pub(crate) const UPDATE_FIELDS_WITH_STATUS: &[&str; 9] =
    &["orderKey", "remoteOrderId", "event", "occurredAt", "reason", "driver", "releasedDriver", "expectedNext", "status"];
pub(crate) const UPDATE_FIELDS: &[&str] = UPDATE_FIELDS_WITH_STATUS.split_at(UPDATE_FIELDS_WITH_STATUS.len() - 1).0;

/// A conditional field of an update (`found` in `v`): reported when present for an event that does
/// not carry it or absent for one that does; its value to check otherwise.
fn conditional<'v, 'a>(
    c: &mut Collector,
    path: &Path,
    v: &Value<'a>,
    known: Option<&str>,
    (field, events): Conditional,
    found: Option<&'v Member<'a>>,
) -> Option<&'v Value<'a>> {
    if let Some(ev) = known {
        let wanted = events.iter().any(|k| same_text(k, ev));
        match found {
            None if wanted => {
                c.push(
                    &r::UPDATE_FIELD_MISSING_FOR_EVENT,
                    &path.key(field),
                    Span::new(v.span.start, v.span.start + 1),
                    format!("{field} must be present when event is \"{ev}\""),
                );
            }
            Some(m) if !wanted => {
                c.push(
                    &r::UPDATE_FIELD_NOT_FOR_EVENT,
                    &path.key(field),
                    m.key_span,
                    format!("{field} is only present when event is {}; it is absent for \"{ev}\"", events.join(" or ")),
                );
                return None;
            }
            _ => {}
        }
    }
    present(c, path, v, field, value_of(found), P::OptNull)
}

/// The value of a member [`check::pick`] found.
fn value_of<'v, 'a>(m: Option<&'v Member<'a>>) -> Option<&'v Value<'a>> {
    m.map(|m| &m.value)
}

/// OrderUpdateEvent, the body of `PUT {pos_base_url}/v1/order/{remoteId}/{remoteOrderId}/events`.
pub(crate) fn order_update_event(c: &mut Collector, path: &Path, v: &Value, route: &RouteInfo) {
    let Some(members) = as_obj(c, path, v) else {
        return;
    };
    let ([order_key, remote_order_id, event, occurred_at, reason, assigned, released, expected_next, status], other) =
        check::pick(members, UPDATE_FIELDS_WITH_STATUS);
    if let Some(x) = present(c, path, v, "orderKey", value_of(order_key), P::Req) {
        fields::order_key(c, &path.key("orderKey"), x);
    }
    let id_path = path.key("remoteOrderId");
    if let Some(x) = present(c, path, v, "remoteOrderId", value_of(remote_order_id), P::Req) {
        if let Some(body_id) = check::string(c, &r::FIELD_TYPE, &id_path, x) {
            if let Some(path_id) = route.remote_order_id.as_deref() {
                if path_id != body_id {
                    c.push(
                        &r::UPDATE_REMOTE_ORDER_ID_PATH,
                        &id_path,
                        x.span,
                        format!(
                            "remoteOrderId \"{body_id}\" differs from \"{path_id}\" in the request path; the path parameter is authoritative"
                        ),
                    )
                    .help("look the order up by the remoteOrderId of the path");
                }
            }
        }
    }
    let old_status = event.is_none() && status.is_some();
    let event_value = match (event, status) {
        (None, Some(status)) => {
            c.push(
                &r::UPDATE_STATUS_FIELD_REMOVED,
                &path.key("status"),
                status.key_span,
                "the update webhook carries \"event\" since 2026-08-12; the former \"status\" field is no longer emitted",
            )
            .help("read the field \"event\" (cancelled, driver_assigned, driver_released, delivered)");
            None
        }
        _ => present(c, path, v, "event", value_of(event), P::Req),
    };
    let event = event_value.and_then(|x| check::string(c, &r::FIELD_TYPE, &path.key("event"), x));
    let known = event.and_then(|e| UPDATE_EVENTS.iter().copied().find(|k| same_text(k, e)));
    if let (Some(e), None, Some(x)) = (event, known, event_value) {
        c.push(
            &r::UPDATE_UNKNOWN_EVENT,
            &path.key("event"),
            x.span,
            format!("event \"{e}\" is not one the contract lists yet: it is ignored with a 200"),
        )
        .help("answer 200 and do nothing: new event values may be added without a version change");
    }
    if let Some(x) = present(c, path, v, "occurredAt", value_of(occurred_at), P::Req) {
        ts(c, &path.key("occurredAt"), x);
    }
    if let Some(x) = conditional(c, path, v, known, REASON, reason) {
        check::string(c, &r::FIELD_TYPE, &path.key("reason"), x);
    }
    for (field, found) in [(DRIVER, assigned), (RELEASED_DRIVER, released)] {
        if let Some(x) = conditional(c, path, v, known, field, found) {
            driver(c, &path.key(field.0), x);
        }
    }
    if let Some(x) = conditional(c, path, v, known, EXPECTED_NEXT, expected_next) {
        let fp = path.key("expectedNext");
        if let Some(next) = check::string(c, &r::FIELD_TYPE, &fp, x) {
            if !same_text(next, EXPECTED_NEXT_VALUE) {
                c.push(
                    &r::UPDATE_UNKNOWN_EXPECTED_NEXT,
                    &fp,
                    x.span,
                    format!("expectedNext \"{next}\" is not the current value \"{EXPECTED_NEXT_VALUE}\"; unknown values are tolerated"),
                );
            }
        }
    }
    if other || (status.is_some() && !old_status) {
        unknown(c, path, v, if old_status { UPDATE_FIELDS_WITH_STATUS } else { UPDATE_FIELDS });
    }
}

/// The fields of OrderEventDriver.
pub(crate) const DRIVER_FIELDS: [&str; 2] = ["fullName", "phone"];
/// The characters a driver `phone` may hold besides digits (`order-update/driver-phone-format`).
#[inline]
pub(crate) fn is_phone_punctuation(b: u8) -> bool {
    matches!(b, b'+' | b' ' | b'-' | b'.' | b'(' | b')')
}

/// OrderEventDriver: fullName (string, required), phone (string or null, international format).
fn driver(c: &mut Collector, path: &Path, v: &Value) {
    let Some(members) = as_obj(c, path, v) else {
        return;
    };
    let ([full_name, phone], other) = check::pick(members, &DRIVER_FIELDS);
    if let Some(x) = present(c, path, v, "fullName", value_of(full_name), P::Req) {
        check::string(c, &r::FIELD_TYPE, &path.key("fullName"), x);
    }
    let phone_path = path.key("phone");
    let phone = present(c, path, v, "phone", value_of(phone), P::OptNull)
        .and_then(|x| check::string(c, &r::FIELD_TYPE, &phone_path, x).map(|s| (x.span, s)));
    if let Some((span, phone)) = phone {
        let digits = phone.bytes().filter(u8::is_ascii_digit).count();
        let phone_chars = phone.bytes().all(|b| b.is_ascii_digit() || is_phone_punctuation(b));
        if digits == 0 || !phone_chars {
            c.push(&r::UPDATE_DRIVER_PHONE, &phone_path, span, format!("phone \"{phone}\" is not a phone number in international format"))
                .help("international format: + then the country code and number, e.g. +1 809 555 0100");
        } else if !is_international_phone(phone) {
            c.push(
                &r::UPDATE_DRIVER_PHONE_SHAPE,
                &phone_path,
                span,
                format!("phone \"{phone}\" is not written + then 7 to 15 digits; the contract says only \"international format\", so this may still be one (e.g. a 00 prefix)"),
            )
            .help("the usual international form is + then the country code and number, e.g. +52 55 1234 5678");
        }
    }
    if other {
        unknown(c, path, v, &DRIVER_FIELDS);
    }
}

/// `+` then 7 to 15 digits (E.164 length), the first digit not 0; spaces, dots, hyphens and
/// parentheses are allowed between digits.
pub(crate) fn is_international_phone(s: &str) -> bool {
    // Bytes, not chars: every allowed character is ASCII, and a multi-byte one matches none.
    let Some(rest) = s.strip_prefix('+').map(str::as_bytes) else {
        return false;
    };
    if !matches!(rest.first(), Some(b'1'..=b'9')) || matches!(rest.last(), Some(b' ' | b'-' | b'.' | b'(')) {
        return false;
    }
    if !rest.iter().all(|b| b.is_ascii_digit() || matches!(b, b' ' | b'-' | b'.' | b'(' | b')')) {
        return false;
    }
    let digits = rest.iter().filter(|b| b.is_ascii_digit()).count();
    (7..=15).contains(&digits)
}

pub(crate) const CHANGE_WEBHOOK_FIELDS: &[&str] = &["changeKey", "status", "submittedAt", "completedAt", "results"];
pub(crate) const CHANGE_RESULT_FIELDS: &[&str] = &["storeRemoteId", "targetEntity", "targetCode", "applied", "errorCode", "errorMessage"];
/// The fields of a result row present only when `applied` is false.
pub(crate) const CHANGE_ERROR_FIELDS: [&str; 2] = ["errorCode", "errorMessage"];
/// `targetEntity` values in use in the webhook.
pub(crate) const WEBHOOK_TARGET_ENTITIES: &[&str] =
    &[TargetEntity::Product.as_str(), TargetEntity::ModifierOption.as_str(), TargetEntity::LocalProduct.as_str()];
/// The webhook's `status`: `applied` (all stores succeeded), `partial`, `failed` (all failed).
pub(crate) const CHANGE_WEBHOOK_STATUSES: &[&str] = MenuChangeOutcome::NAMES;

/// MenuChangeCompletedWebhook, the body of `POST {pos_base_url}/v1/menu/change/{changeKey}`.
pub(crate) fn menu_change_completed(c: &mut Collector, path: &Path, v: &Value, route: &RouteInfo) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if let Some(key) = f_change_key(c, path, v, "changeKey", P::Req) {
        if let Some(path_key) = route.change_key.as_deref() {
            if path_key != key {
                let span = v.get("changeKey").map_or(v.span, |x| x.span);
                c.push(
                    &r::CHANGE_KEY_PATH,
                    &path.key("changeKey"),
                    span,
                    format!("changeKey \"{key}\" differs from \"{path_key}\" in the request path"),
                )
                .help("the changeKey equals the path parameter and the changeId of the original 202");
            }
        }
    }
    let status = f_enum(c, path, v, "status", P::Req, CHANGE_WEBHOOK_STATUSES, false);
    completed_after_submitted(c, path, v, P::Req);
    let (mut ok, mut failed) = (0usize, 0usize);
    if let Some(results) = super::fields::f_arr(c, path, v, "results", P::Req) {
        let rp = path.key("results");
        for (i, row) in objects(c, &rp, results) {
            let p = rp.index(i);
            f_str(c, &p, row, "storeRemoteId", P::Req);
            target_entity(c, &p, row, WEBHOOK_TARGET_ENTITIES);
            f_str(c, &p, row, "targetCode", P::Req);
            let applied = f_bool(c, &p, row, "applied", P::Req);
            match applied {
                Some(true) => {
                    ok += 1;
                    for key in CHANGE_ERROR_FIELDS {
                        if let Some(m) = row.member(key) {
                            let what = if m.value.is_null() { "serialized as null" } else { "present" };
                            c.push(
                                &r::CHANGE_ERROR_FIELDS_ON_APPLIED,
                                &p.key(key),
                                m.key_span,
                                format!("{key} is {what} although applied is true: it must be omitted from the JSON"),
                            );
                        }
                    }
                }
                Some(false) => {
                    failed += 1;
                    for key in CHANGE_ERROR_FIELDS {
                        if row.get(key).is_none() {
                            c.push(
                                &r::CHANGE_ERROR_FIELDS_MISSING,
                                &p.key(key),
                                Span::new(row.span.start, row.span.start + 1),
                                format!("{key} must be present when applied is false"),
                            );
                        } else {
                            f_str(c, &p, row, key, P::OptNull);
                        }
                    }
                }
                None => {}
            }
            unknown(c, &p, row, CHANGE_RESULT_FIELDS);
        }
        if let Some(status) = status {
            let consistent = match MenuChangeOutcome::parse(status) {
                Some(MenuChangeOutcome::Applied) => failed == 0,
                Some(MenuChangeOutcome::Failed) => ok == 0,
                _ => ok > 0 && failed > 0,
            };
            if !consistent {
                let span = v.get("status").map_or(v.span, |x| x.span);
                c.push(
                    &r::CHANGE_STATUS_RESULTS,
                    &path.key("status"),
                    span,
                    format!("status \"{status}\" disagrees with results: {ok} applied, {failed} failed"),
                )
                .help("applied = every row applied, failed = every row failed, partial = some of each");
            }
        }
    }
    unknown(c, path, v, CHANGE_WEBHOOK_FIELDS);
}

/// `submittedAt` and `completedAt` (nullable in the resource) with `completedAt` ≥ `submittedAt`.
pub(crate) fn completed_after_submitted(c: &mut Collector, path: &Path, v: &Value, completed: P) {
    let submitted = f_ts(c, path, v, "submittedAt", P::Req);
    let completed = f_ts(c, path, v, "completedAt", completed);
    if let (Some(s), Some(done)) = (submitted, completed) {
        if done < s {
            let span = v.get("completedAt").map_or(v.span, |x| x.span);
            let sspan = v.get("submittedAt").map_or(v.span, |x| x.span);
            c.push(&r::CHANGE_COMPLETED_BEFORE_SUBMITTED, &path.key("completedAt"), span, "completedAt is earlier than submittedAt")
                .related(&path.key("submittedAt"), sspan, "submitted here");
        }
    }
}

/// `targetEntity`, a string; a value outside `known` is a warning.
pub(crate) fn target_entity(c: &mut Collector, path: &Path, row: &Value, known: &[&str]) {
    if let Some(entity) = f_str(c, path, row, "targetEntity", P::Req) {
        if !known.contains(&entity) {
            let span = row.get("targetEntity").map_or(row.span, |x| x.span);
            c.push(
                &r::CHANGE_UNKNOWN_TARGET_ENTITY,
                &path.key("targetEntity"),
                span,
                format!("targetEntity \"{entity}\" is not among the values in use: {}", known.join(", ")),
            );
        }
    }
}

/// The fields of the POS's answer to the creation webhook.
pub(crate) const CREATED_RESPONSE_FIELDS: &[&str] = &["remoteOrderId"];

/// The POS's answer to the creation webhook: `{ "remoteOrderId": "…" }`, non-null, non-empty.
pub(crate) fn order_created_response(c: &mut Collector, path: &Path, v: &Value) {
    if v.as_object().is_none() {
        c.push(
            &r::POS_ANSWER_REMOTE_ORDER_ID,
            path,
            v.span,
            format!("the answer must be a JSON object {{ \"remoteOrderId\": \"…\" }}, found {}", check::describe(v)),
        )
        .help("without a valid remoteOrderId the delivery counts as failed and is retried");
        return;
    }
    let fp = path.key("remoteOrderId");
    let problem = match v.get("remoteOrderId") {
        None => Some((Span::new(v.span.start, v.span.start + 1), "remoteOrderId is missing".to_string())),
        Some(x) if x.is_null() => Some((x.span, "remoteOrderId is null".to_string())),
        Some(x) => match x.as_str() {
            None => Some((x.span, format!("remoteOrderId must be a string, found {}", check::describe(x)))),
            Some(s) if s.trim().is_empty() => Some((x.span, "remoteOrderId is empty".to_string())),
            Some(_) => None,
        },
    };
    if let Some((span, msg)) = problem {
        c.push(&r::POS_ANSWER_REMOTE_ORDER_ID, &fp, span, format!("{msg}: the delivery counts as failed and is retried"))
            .help("answer HTTP 200 with { \"remoteOrderId\": \"<your order id>\" } within 30 seconds");
    }
    unknown(c, path, v, CREATED_RESPONSE_FIELDS);
}

/// The string fields of the suggested MerchantErrorResponse ("error (string, optional), message
/// (string, optional), timestamp (optional)").
pub(crate) const MERCHANT_ERROR_TEXT_FIELDS: [&str; 2] = ["error", "message"];

/// MerchantErrorResponse: any JSON (or empty) is accepted, so deviations from the suggested shape
/// are only worth knowing.
pub(crate) fn merchant_error_response(c: &mut Collector, path: &Path, v: &Value) {
    if v.as_object().is_none() {
        c.push(
            &r::MERCHANT_ERROR_SHAPE,
            path,
            v.span,
            format!("any JSON is accepted, but the suggested error body is an object, found {}", check::describe(v)),
        );
        return;
    }
    for key in MERCHANT_ERROR_TEXT_FIELDS {
        if let Some(x) = v.get(key) {
            if x.as_str().is_none() {
                c.push(
                    &r::MERCHANT_ERROR_SHAPE,
                    &path.key(key),
                    x.span,
                    format!("the suggested {key} is a string, found {}", check::describe(x)),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones() {
        for ok in ["+18095550100", "+1 809 555 0100", "+44 (20) 7946-0958", "+5491123456789"] {
            assert!(is_international_phone(ok), "{ok}");
        }
        for bad in ["8095550100", "+0 809 555", "+1", "+1 809 555 0100 ext 3", "", "+", "+123456", "+1234567890123456", "+1 809 "] {
            assert!(!is_international_phone(bad), "{bad}");
        }
        // Digits of other scripts and other multi-byte characters are not allowed anywhere.
        for bad in ["+1 809 555 010\u{FF10}", "+\u{0661}809 555 0100", "+1 809 555 0100\u{00A0}", "+1\u{2010}809\u{2010}5550100"] {
            assert!(!is_international_phone(bad), "{bad}");
        }
    }
}
