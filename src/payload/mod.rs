//! Everything else a POS exchanges with the service, checked against the contract: the payloads
//! it receives or reads ([`validate_payload`]), the REST requests it sends with the answer the
//! service would give ([`validate_request`]), and the problem responses it reads back
//! ([`classify_problem`]).
//!
//! Pure: no clock, no I/O. Every entry point returns a result for any input bytes and never
//! panics. Every diagnostic uses the one report shape of [`crate::diagnostic`]; the rules are data
//! ([`RULES`]).
//!
//! ```
//! use poscheck::payload::{validate_payload, PayloadOptions};
//!
//! let body = br#"{"orderKey": "ord_0123456789abcDEF", "remoteOrderId": "R-1",
//!                 "event": "refunded", "occurredAt": "2026-08-12T14:30:00Z"}"#;
//! let report = validate_payload(body, &PayloadOptions::default());
//! assert_eq!(report.kind.as_deref(), Some("orderUpdateEvent"));
//! assert!(report.ok); // an unknown event is info: receivers answer 200
//! assert_eq!(report.diagnostics[0].rule_id, "order-update/unknown-event");
//! ```

// The checkers of each shape live in `crate::shape` (below the order and menu checkers, which use
// them); this module dispatches a payload or a request to them and predicts the answer.
pub use crate::shape::rules;
pub use crate::shape::validate::PayloadOptions;
pub(crate) use crate::shape::validate::{
    percent_decode, segments, split_target, validate_webhook_payload, webhook_delivery_outcome, Outcome,
};
pub use crate::shape::PayloadKind;
pub(crate) use crate::shape::RouteInfo;
pub(crate) use crate::shape::{answers, bodies, currency, fields, menu_read, order, webhooks};
// Used by the wasm faces only (the webhook module's one-call path).
use crate::shape::validate::{envelope, validate_with, Checkers};
#[allow(unused_imports)]
pub(crate) use crate::shape::validate::{route_of, validate_webhook_payload_outcome};
mod inspect;
mod problem;
mod request;

pub(crate) use bodies::is_remote_code;
pub(crate) use bodies::BodyKind;
pub use bodies::REASON_CODES;
pub(crate) use bodies::SHIPPED as SHIPPED_COMBINATIONS;
pub use inspect::{inspect, Inspection};
pub use problem::{classify_problem, Classification, ProblemInput};
pub(crate) use request::validate_request_linted;
pub use request::{validate_request, Endpoint, Prediction, Request, ENDPOINTS};
pub use rules::RULES;

/// Every rule [`validate_payload`], [`validate_request`] and [`classify_problem`] can emit: this
/// module's, the order checker's (orderDetail) and the menu linter's (menu bodies).
pub fn all_rules() -> Vec<&'static crate::diagnostic::Rule> {
    let mut rules: Vec<&'static crate::diagnostic::Rule> = RULES.to_vec();
    rules.extend(crate::order::RULES.iter().copied());
    rules.extend(crate::menu::RULES.iter().copied());
    let mut seen = std::collections::BTreeSet::new();
    rules.retain(|r| seen.insert(r.id));
    rules
}

/// The basis and source of a rule [`validate_request`] can emit (assumed for an id it has not).
pub(crate) fn grounds(id: &str) -> (crate::basis::Basis, &'static str) {
    let find = |list: &[&'static crate::diagnostic::Rule]| list.iter().find(|r| r.id == id).map(|r| (r.basis, r.source));
    find(RULES)
        .or_else(|| find(crate::order::RULES))
        .or_else(|| find(crate::menu::RULES))
        .unwrap_or((crate::basis::Basis::Assumed, "not a rule of this toolkit"))
}

/// The body of an order action (`accept`, `reject`, or `status` for PUT status), checked by the
/// same rules as [`validate_request`]; `now` (unix seconds) serves the occurredAt clamp.
pub fn order_action_body(action: &str, body: &[u8], now: i64) -> Report {
    let kind = match action {
        "accept" => bodies::BodyKind::Accept,
        "reject" => bodies::BodyKind::Reject,
        _ => bodies::BodyKind::Status,
    };
    let arena = json::Arena::for_input(body.len());
    let doc = match json::parse(body, &json::Limits::default(), &arena) {
        Ok(d) => d,
        Err(e) => return parse_error_report(body, &e, Some("request")),
    };
    let mut c = Collector::new();
    c.set_kind("request");
    c.duplicate_keys(&doc);
    bodies::check(&mut c, kind, &Path::ROOT, &doc.root, now);
    c.finish(body)
}

use crate::diagnostic::{parse_error_report, Collector, Path, Report};
use crate::json::{self, Value};

/// Validates one payload of the contract and returns the report, with `kind` set to the kind
/// checked (given, named by the path, or detected from the shape).
///
/// Detection: a path naming a route decides; otherwise the shape (distinctive keys) does. A
/// `{ message, data }` envelope whose `data` is a resource is reported as that resource (checked
/// with its envelope). When shapes tie, the first in [`PayloadKind::ALL`] is used and a
/// `payload/kind-ambiguous` info says so; when nothing fits, `payload/kind-undetected` (error).
pub fn validate_payload(input: &[u8], options: &PayloadOptions) -> Report {
    validate_payload_outcome(input, options).into_report(input)
}

/// [`validate_payload`], answering a clean payload without building its report.
pub(crate) fn validate_payload_outcome(input: &[u8], options: &PayloadOptions) -> Outcome {
    validate_with::<AllKinds>(input, options)
}

struct AllKinds;

impl Checkers for AllKinds {
    fn check(c: &mut Collector, kind: PayloadKind, root: &Value, route: &RouteInfo) -> bool {
        check_kind(c, kind, root, route);
        true
    }
    fn full_menu(input: &[u8], limits: json::Limits) -> Option<Report> {
        Some(crate::menu::lint(input, &crate::menu::LintOptions { limits, ..Default::default() }))
    }
}

fn check_kind(c: &mut Collector, kind: PayloadKind, root: &Value, route: &RouteInfo) {
    let path = Path::ROOT;
    if kind.is_resource() && root.get("data").is_some() {
        if envelope(c, &path, root) {
            let data = root.get("data").expect("checked above");
            check_resource(c, kind, &path.key("data"), data);
        }
        return;
    }
    match kind {
        PayloadKind::OrderUpdateEvent => webhooks::order_update_event(c, &path, root, route),
        PayloadKind::MenuChangeCompleted => webhooks::menu_change_completed(c, &path, root, route),
        PayloadKind::OrderCreated => order::order_content(c, &path, root, route, true),
        PayloadKind::OrderCreatedResponse => webhooks::order_created_response(c, &path, root),
        PayloadKind::MerchantErrorResponse => webhooks::merchant_error_response(c, &path, root),
        PayloadKind::Envelope => {
            envelope(c, &path, root);
        }
        _ => check_resource(c, kind, &path, root),
    }
}

/// The order resource (`data` of GET /api/v1/Orders/{orderKey}): the one order checker of
/// [`crate::order::check_order`].
fn order_detail(c: &mut Collector, path: &Path, v: &Value) {
    if fields::as_obj(c, path, v).is_some() {
        crate::order::check_detail(c, path, v);
    }
}

fn check_resource(c: &mut Collector, kind: PayloadKind, path: &Path, v: &Value) {
    match kind {
        PayloadKind::OrderDetail => order_detail(c, path, v),
        PayloadKind::OrderList => order::order_list(c, path, v),
        PayloadKind::StoreMenu => menu_read::store_menu(c, path, v),
        PayloadKind::MenuChange => menu_read::menu_change(c, path, v),
        PayloadKind::Capabilities => menu_read::capabilities(c, path, v),
        PayloadKind::MenuWriteAccepted => answers::menu_write_accepted(c, path, v),
        PayloadKind::AcceptAnswer => answers::accept_answer(c, path, v),
        PayloadKind::RejectAnswer => answers::reject_answer(c, path, v),
        PayloadKind::StatusAnswer => answers::status_answer(c, path, v),
        _ => {}
    }
}

#[cfg(test)]
mod tests;
