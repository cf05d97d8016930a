//! The documented 2xx answers of the REST operations, each its own kind ("Endpoints"):
//!
//! - menu writes: "Every menu write except POST /menu/preview (read-only) and PUT /menu
//!   (synchronous) returns 202 with `data.changeId`";
//! - accept: "202; data: orderKey, status (Preparing), acceptedAt, remoteOrderId (string or null).
//!   preparingAt is not included; read it from the detail.";
//! - reject: "202; data: orderKey, status (Rejected), rejectedAt, reason (the applied code).";
//! - PUT status: "202; data: orderKey, status (PascalCase result), changedAt (when the service
//!   recorded it; may differ from occurredAt)."
//!
//! Fields beyond these are not shown: they are reported as unknown (a warning), not as errors.

use super::fields::{as_obj, f_change_key, f_order_key, f_str, f_ts, get, read_status, unknown, P};
use super::rules as r;
use crate::contract::Status;
use crate::diagnostic::{Collector, Path};
use crate::json::Value;

/// The fields of each answer's `data`, and the statuses each may carry.
pub(crate) const WRITE_ACCEPTED_FIELDS: &[&str] = &["changeId"];
/// `preparingAt` is listed to be reported by its own rule ("preparingAt is not included").
pub(crate) const ACCEPT_ANSWER_FIELDS: &[&str] = &["orderKey", "status", "acceptedAt", "remoteOrderId", "preparingAt"];
pub(crate) const ACCEPT_ANSWER_STATUSES: &[&str] = &[Status::Preparing.as_str()];
pub(crate) const REJECT_ANSWER_FIELDS: &[&str] = &["orderKey", "status", "rejectedAt", "reason"];
pub(crate) const REJECT_ANSWER_STATUSES: &[&str] = &[Status::Rejected.as_str()];
pub(crate) const STATUS_ANSWER_FIELDS: &[&str] = &["orderKey", "status", "changedAt"];
/// A PUT status that succeeds leads to Ready or HandedOver (preparing after accept is a 409).
pub(crate) const STATUS_ANSWER_STATUSES: &[&str] = &[Status::Ready.as_str(), Status::HandedOver.as_str()];

/// `data` of the 202 of an asynchronous menu write.
pub(crate) fn menu_write_accepted(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    if v.get("changeId").is_none() {
        c.push(&r::WRITE_ANSWER_CHANGE_ID, &path.key("changeId"), v.span, "the 202 of a menu write carries data.changeId")
            .help("read progress with GET /api/v1/menu/changes/{changeId} or the menu change webhook");
    } else {
        f_change_key(c, path, v, "changeId", P::Req);
    }
    unknown(c, path, v, WRITE_ACCEPTED_FIELDS);
}

/// The `status` of an answer: PascalCase, one of `allowed`.
fn answer_status(c: &mut Collector, path: &Path, v: &Value, allowed: &[&str], what: &str) {
    let Some(s) = get(c, path, v, "status", P::Req) else { return };
    let sp = path.key("status");
    let Some(read) = read_status(c, &sp, s) else { return };
    if !allowed.contains(&read) {
        c.push(&r::ANSWER_STATUS, &sp, s.span, format!("status {read} in the {what} answer: it is {}", allowed.join(" or ")));
    }
}

/// `data` of the 202 of POST accept.
pub(crate) fn accept_answer(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    f_order_key(c, path, v, "orderKey", P::Req);
    answer_status(c, path, v, ACCEPT_ANSWER_STATUSES, "accept");
    f_ts(c, path, v, "acceptedAt", P::Req);
    f_str(c, path, v, "remoteOrderId", P::ReqNull);
    if let Some(m) = v.member("preparingAt") {
        c.push(&r::ANSWER_PREPARING_AT, &path.key("preparingAt"), m.key_span, "preparingAt is not included in the accept answer")
            .help("read preparingAt from the detail (GET /api/v1/Orders/{orderKey})");
    }
    unknown(c, path, v, ACCEPT_ANSWER_FIELDS);
}

/// `data` of the 202 of POST reject.
pub(crate) fn reject_answer(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    f_order_key(c, path, v, "orderKey", P::Req);
    answer_status(c, path, v, REJECT_ANSWER_STATUSES, "reject");
    f_ts(c, path, v, "rejectedAt", P::Req);
    if let Some(reason) = f_str(c, path, v, "reason", P::Req) {
        if !super::bodies::REASON_CODES.contains(&reason) {
            let span = v.get("reason").map_or(v.span, |x| x.span);
            c.push(
                &r::ANSWER_REASON,
                &path.key("reason"),
                span,
                format!("reason \"{reason}\" is not a reasonCode: the answer carries the applied code (an unknown code is normalized to SYSTEM_ISSUE)"),
            );
        }
    }
    unknown(c, path, v, REJECT_ANSWER_FIELDS);
}

/// `data` of the 202 of PUT status: a PUT status that succeeds leads to Ready or HandedOver
/// (preparing after accept is a 409).
pub(crate) fn status_answer(c: &mut Collector, path: &Path, v: &Value) {
    if as_obj(c, path, v).is_none() {
        return;
    }
    f_order_key(c, path, v, "orderKey", P::Req);
    answer_status(c, path, v, STATUS_ANSWER_STATUSES, "PUT status");
    f_ts(c, path, v, "changedAt", P::Req);
    unknown(c, path, v, STATUS_ANSWER_FIELDS);
}
