//! What the service answers to accept, reject or a PUT status, with its request body.

use super::{
    action_to, actions_to, allowed_now, check_now, condition_holds, effective_now, holds, list, problem, read_order, row_grounds,
    view_of_order, Action, OrderInputError, Prediction, View,
};
use crate::basis::{Basis, Grounds, PredictionBasis};
use crate::contract::{ProblemSuffix, ReasonCode, Status, WriteStatus, REFUSED_WRITE_STATUS};
use crate::order::body::ActionBody;
use crate::order::machine::{allowed_transitions, is_terminal, normalize_write, row as table_row, Row, RowKind, TriggerKind, ROWS};
use crate::order::model::{Instant, Order, Record};
use serde_json::{json, Map, Value};

/// The chain of the merchant's statuses, in order.
const CHAIN: &[Status] = &[Status::Pending, Status::Preparing, Status::Ready, Status::HandedOver];

/// The order is at or beyond the state the action asks for (Ready when asking ready, …).
fn at_or_beyond(current: Status, target: Option<Status>) -> bool {
    let Some(target) = target else { return false };
    if current == target {
        return true;
    }
    match (CHAIN.iter().position(|s| *s == current), CHAIN.iter().position(|s| *s == target)) {
        (Some(c), Some(t)) => c >= t,
        _ => false,
    }
}

/// The 422 of a body that breaks the contract: nothing changes, the problem is a validation one
/// with `meta.errors`.
struct Invalid {
    detail: String,
    meta: Value,
    row: &'static str,
    status: Grounds,
    problem_type: Grounds,
    advice: String,
}

fn validation_failed(current: Status, invalid: Invalid, unknown: Vec<String>) -> Prediction {
    Prediction {
        http_status: 422,
        status: current.as_str().into(),
        order: Value::Null,
        event: None,
        response: None,
        problem: Some(problem(ProblemSuffix::Validation, "Validation failed", 422, invalid.detail, invalid.meta)),
        already_reached: false,
        row: invalid.row,
        basis: invalid.status.basis,
        bases: PredictionBasis {
            status: invalid.status,
            problem_type: Some(invalid.problem_type),
            meta: Some(Grounds::stated("Errors: meta shapes: validation 422 { errors: { <field path>: string[] } }")),
        },
        unknown,
        advice: invalid.advice,
    }
}

/// What the service answers to `action` on `order` at `now` (unix seconds), without the request
/// body (see [`predict_request`]): a reject without a body is answered 422 (reasonCode is
/// required); pass the body to [`predict_request`] to predict a reject.
pub fn predict_action(order: &Value, action: &Action, now: i64) -> Result<Prediction, OrderInputError> {
    predict_request(order, action, None, now)
}

/// What the service answers to `action` with its request `body` (the JSON bytes the POS sends:
/// `{}` for accept, `{ reasonCode, message }` for reject, `{ status, occurredAt }` for PUT status)
/// on `order` at `now` (unix seconds). A body that breaks the contract is answered 422 with its
/// `meta.errors`; the reject body's reasonCode is normalized as the contract says. `None`: the
/// body is not simulated (the answer rests on the state alone), except for reject, whose body has
/// a required reasonCode: no body is answered 422 with `meta.errors.reasonCode`.
pub fn predict_request(order: &Value, action: &Action, body: Option<&[u8]>, now: i64) -> Result<Prediction, OrderInputError> {
    let now = check_now(now)?;
    let view = read_order(order)?;
    let body = body.map(|b| ActionBody::check(action.body_kind(), b, now));
    let (mut p, after) = answer(view, action, body.as_ref(), now);
    p.order = after.to_value();
    Ok(p)
}

/// [`predict_request`] on an order the service model holds, with its body read once: the
/// prediction (its `order` left null) and the order after the call (unchanged when refused).
pub(crate) fn predict_on(
    order: &Order,
    action: &Action,
    body: Option<&ActionBody>,
    now: i64,
) -> Result<(Prediction, Order), OrderInputError> {
    let now = check_now(now)?;
    Ok(answer(view_of_order(order)?, action, body, now))
}

fn answer(view: View, action: &Action, body: Option<&ActionBody>, now: i64) -> (Prediction, Order) {
    let mut unknown: Vec<String> = Vec::new();
    let now = effective_now(&view, now, &mut unknown);
    let current = view.status;
    // The request body, checked by the same rules as validateRequest.
    let mut action = action.clone();
    let mut reason: Option<String> = None;
    if let Some(body) = body {
        if let (Action::Status(_), Some(v)) = (&action, body.status.as_deref()) {
            if v != action.name() {
                unknown.push(format!("the body's status {v:?} is simulated (the action named {:?})", action.name()));
                action = Action::Status(v.to_string());
            }
        }
        // A PUT status value outside the enum is answered below by its own row.
        let errors: Vec<&(String, String)> =
            body.errors.iter().filter(|(path, _)| !(matches!(action, Action::Status(_)) && path == "status")).collect();
        if !errors.is_empty() {
            let mut meta_errors: std::collections::BTreeMap<&str, Vec<&str>> = std::collections::BTreeMap::new();
            for (path, message) in &errors {
                meta_errors.entry(path.as_str()).or_default().push(message.as_str());
            }
            let state_refuses = !action.target().is_some_and(|t| allowed_now(&view, now).contains(&t));
            let status = if state_refuses {
                Grounds::assumed("not shown: the body breaks the contract (422) and the state refuses the call too (409); which the service checks first is not shown (the body is assumed first)")
            } else {
                Grounds::derived("Errors: 422 invalid body")
            };
            let invalid = Invalid {
                detail: errors.iter().map(|(_, m)| m.as_str()).collect::<Vec<_>>().join("; "),
                meta: json!({ "errors": meta_errors }),
                row: "invalid-body",
                status,
                problem_type: Grounds::stated("Errors: known type suffixes (validation); 422 invalid body"),
                advice: "fix the body (see meta.errors); do not retry unchanged".into(),
            };
            return (validation_failed(current, invalid, unknown), view.order);
        }
        if let (Action::Reject, Some(code)) = (&action, body.reason_code.as_deref()) {
            if ReasonCode::parse(code).is_none() {
                unknown.push(format!("reasonCode {code:?} is not in the list: the service normalizes it to SYSTEM_ISSUE and returns it so in data.reason (Orders rule 2)"));
            }
            reason = Some(ReasonCode::normalize(code).as_str().to_string());
        }
    } else if action == Action::Reject {
        // "POST reject | Body: reasonCode (required enum)": no body carries no reasonCode, which
        // is an invalid body (422) like a body without it.
        let message = "missing required field \"reasonCode\"";
        let status = if !allowed_now(&view, now).contains(&Status::Rejected) {
            Grounds::assumed("not shown: a reject without a reasonCode is an invalid body (422) and the state refuses the call too (409); which the service checks first is not shown (the body is assumed first)")
        } else {
            Grounds::derived("POST reject body: reasonCode (required enum); Errors: 422 invalid body")
        };
        unknown.push("no reject body given: predicted as a body without its required reasonCode; pass the body to predict a reject".into());
        let invalid = Invalid {
            detail: message.into(),
            meta: json!({ "errors": { "reasonCode": [message] } }),
            row: "invalid-body",
            status,
            problem_type: Grounds::stated("Errors: known type suffixes (validation); 422 invalid body"),
            advice: format!("send a reject body with a reasonCode ({}); do not retry unchanged", ReasonCode::NAMES.join(", ")),
        };
        return (validation_failed(current, invalid, unknown), view.order);
    }

    // A PUT status value outside the body's enum is refused before any state is looked at.
    if let Action::Status(v) = &action {
        if normalize_write(v).is_none() {
            let refused = v == REFUSED_WRITE_STATUS;
            let row = table_row(if refused { "put-cancelled" } else { "put-unknown-value" }).unwrap_or(&ROWS[0]);
            unknown.extend(row.unknown.iter().map(|s| s.to_string()));
            let message = format!("must be one of {}", WriteStatus::NAMES.join(", "));
            let advice = if refused {
                "PUT status cancelled is not accepted: the merchant cannot cancel after acceptance through the REST API; before acceptance, reject the order".to_string()
            } else {
                let hint = WriteStatus::NAMES.iter().find(|w| w.replace('_', "").eq_ignore_ascii_case(&v.replace('_', "")));
                match hint {
                    Some(h) => format!("the write vocabulary is snake_case: send \"{h}\""),
                    None => format!("send one of {}", WriteStatus::NAMES.join(", ")),
                }
            };
            let status = if refused {
                Grounds::derived("States and transitions: PUT status cancelled is not accepted; PUT status body: status (required: preparing, ready, handed_over); Errors: 422 invalid body")
            } else {
                Grounds::derived("PUT status body: status (required: preparing, ready, handed_over); Errors: 422 invalid body")
            };
            let invalid = Invalid {
                detail: format!("status {v:?} is not accepted"),
                meta: json!({ "errors": { "status": [message] } }),
                row: row.id,
                status,
                problem_type: Grounds::stated("Errors: known type suffixes (validation)"),
                advice,
            };
            return (validation_failed(current, invalid, unknown), view.order);
        }
    }

    // A transition row of this action from the current state whose condition holds.
    let name = action.name().to_string();
    for row in ROWS.iter().filter(|r| r.kind == RowKind::Transition && r.trigger.kind == TriggerKind::Action && r.trigger.name == name) {
        if !row.from.contains(&current) {
            continue;
        }
        let Some(basis) = condition_holds(row.condition, &view, now, &mut unknown) else {
            continue;
        };
        return accepted(view, row, &action, reason, basis, now, unknown);
    }
    (refused(&view, &action, now, unknown), view.order)
}

/// The 202 of a transition row.
fn accepted(
    view: View,
    row: &'static Row,
    action: &Action,
    reason: Option<String>,
    basis: Basis,
    now: i64,
    mut unknown: Vec<String>,
) -> (Prediction, Order) {
    let current = view.status;
    let at = Instant::from_unix_seconds(now);
    unknown.extend(row.unknown.iter().map(|s| s.to_string()));
    let mut record = Record::by(super::actor_of(row).0);
    if *action == Action::Reject {
        record.reason = reason.clone();
        record.status_reason = reason.clone();
        if reason.is_some() {
            unknown.push(
                "the rejection reason is stored (stated); that it shows as merchantStatusReason and as the history row's reason is assumed"
                    .into(),
            );
        }
    }
    let order = match view.transition(row, &at, record, &mut unknown) {
        Ok(o) => o,
        Err(why) => {
            unknown.push(why);
            view.order.clone()
        }
    };
    let to = row.to.unwrap_or(current);
    let mut response = Map::new();
    response.insert("orderKey".into(), view.order.member("orderKey").unwrap_or(Value::Null));
    response.insert("status".into(), Value::String(to.as_str().into()));
    match action {
        Action::Accept => {
            response.insert("acceptedAt".into(), Value::String(at.as_str().into()));
            response.insert("remoteOrderId".into(), view.order.member("remoteOrderId").unwrap_or(Value::Null));
        }
        Action::Reject => {
            response.insert("rejectedAt".into(), Value::String(at.as_str().into()));
            response.insert("reason".into(), reason.map_or(Value::Null, Value::String));
        }
        Action::Status(_) => {
            response.insert("changedAt".into(), Value::String(at.as_str().into()));
        }
    }
    let next = allowed_transitions(to);
    let advice = match action {
        Action::Accept => format!(
            "accepted: the order is {to} (it passed through Accepted atomically; acceptedAt and preparingAt are set); next: PUT status {}",
            action_to(Status::Ready)
        ),
        Action::Reject => "rejected: Rejected is terminal; nothing more to do".to_string(),
        _ if next.is_empty() => {
            format!("the order is {to}; no merchant transition is left (the service may still cancel it after a refund or incident)")
        }
        _ => format!("the order is {to}; next: {}", actions_to(&next, " or ")),
    };
    let basis = basis.max(row.basis);
    let p = Prediction {
        http_status: row.http_status.unwrap_or(202),
        status: to.as_str().into(),
        order: Value::Null,
        event: row.event.map(|e| e.as_str()),
        response: Some(Value::Object(response)),
        problem: None,
        already_reached: false,
        row: row.id,
        basis,
        bases: PredictionBasis { status: row_grounds(row, basis), problem_type: None, meta: None },
        unknown,
        advice,
    };
    (p, order)
}

/// The 409 of a refused call: the most specific refusal row, then the terminal rows, then the
/// generic one.
fn refused(view: &View, action: &Action, now: i64, mut unknown: Vec<String>) -> Prediction {
    let current = view.status;
    let name = action.name();
    let allowed = allowed_now(view, now);
    let specific = ROWS.iter().find(|r| {
        r.kind == RowKind::Refusal
            && r.trigger.kind == TriggerKind::Action
            && r.trigger.name == name
            && r.from.contains(&current)
            && holds(r.condition, view, now).is_some()
    });
    let row = specific
        .or_else(|| {
            if allowed_transitions(current).is_empty() {
                table_row(if is_terminal(current) { "terminal" } else { "no-merchant-transition" })
            } else {
                None
            }
        })
        .or_else(|| table_row("invalid-transition"))
        .unwrap_or(&ROWS[0]);
    // "State already reached" is stated for one case only: PUT status ready on a Ready order.
    let reached = row.id == "ready-already-reached";
    let beyond = !reached && at_or_beyond(current, action.target());
    unknown.extend(row.unknown.iter().map(|s| s.to_string()));
    let allowed_names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
    let meta = json!({ "currentStatus": current.as_str(), "allowedTransitions": allowed_names });
    let meta_grounds = match (row.id, current) {
        ("accept-after-expiry", _) => Grounds::assumed("not shown: the meta of the acceptance-timeout 409 (the transition shape { currentStatus, allowedTransitions } is assumed)"),
        ("ready-already-reached", _) => Grounds::stated("States and transitions: 409 with meta.currentStatus Ready and allowedTransitions [HandedOver]"),
        (_, Status::Rejected) => Grounds::stated("Errors: transition 409 meta { currentStatus, allowedTransitions }; Rejected is terminal; empty allowedTransitions means a terminal state"),
        _ => Grounds::derived("Errors: transition 409 meta { currentStatus, allowedTransitions } (PascalCase); allowedTransitions read off the table's merchant transitions from the current state"),
    };
    let target = action.target().map_or("the target", Status::as_str);
    let (suffix, title, detail, advice) = if row.problem_type == Some(ProblemSuffix::AcceptanceTimeout) {
        let when = view.expires_text.clone().unwrap_or_default();
        (
            ProblemSuffix::AcceptanceTimeout,
            "Acceptance window expired",
            format!("the acceptance deadline {when} has passed"),
            format!(
                "the acceptance window closed at {when} even though the order still reads Pending: do not retry accept{}",
                if allowed.is_empty() { String::new() } else { format!("; allowed now: {}", list(&allowed)) }
            ),
        )
    } else {
        let detail = format!("{} is not allowed while the order is {current}", action.request());
        let service_may = if current == Status::HandedOver { "; the service may still cancel it (refund or incident)" } else { "" };
        let advice = if reached {
            format!("state already reached: the order is already {current}; continue with {}", actions_to(&allowed, " or "))
        } else if allowed.is_empty() && is_terminal(current) {
            format!("{current} is terminal (allowedTransitions is empty): do not retry")
        } else if allowed.is_empty() {
            format!(
                "no merchant transition is left from {current} (allowedTransitions is empty): do not retry{service_may}{}",
                if beyond { format!(" (the order is already past {target})") } else { String::new() }
            )
        } else if beyond {
            format!("the order is already {current}, past {target}; allowed now: {} ({})", list(&allowed), actions_to(&allowed, ", "))
        } else {
            format!("the order is {current}; allowed now: {} ({})", list(&allowed), actions_to(&allowed, ", "))
        };
        (ProblemSuffix::InvalidStateTransition, "Invalid state transition", detail, advice)
    };
    let status_grounds = row_grounds(row, row.basis);
    let type_grounds = if suffix == ProblemSuffix::AcceptanceTimeout {
        Grounds::stated("States and transitions: 409 with type ending /acceptance-timeout")
    } else {
        Grounds::stated("Errors: 409 invalid state transition (type suffix invalid-state-transition)")
    };
    let bases = PredictionBasis { status: status_grounds, problem_type: Some(type_grounds), meta: Some(meta_grounds) };
    Prediction {
        http_status: row.http_status.unwrap_or(409),
        status: current.as_str().into(),
        order: Value::Null,
        event: None,
        response: None,
        problem: Some(problem(suffix, title, 409, detail, meta)),
        already_reached: reached,
        row: row.id,
        basis: bases.overall(),
        bases,
        unknown,
        advice,
    }
}
