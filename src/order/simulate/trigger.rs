//! What a service-side trigger does to an order, and what the POS may do now.

use super::{
    allowed_now, applies_from, check_now, condition_holds, driver_object, effective_now, holds, merchant_rows, read_order, row_grounds,
    service_record, view_of_order, Deadline, NextAction, NextActions, OrderInputError, PendingChange, ServiceTrigger, TriggerOutcome, View,
};
use crate::basis::{Basis, Grounds};
use crate::contract::{DriverEvent, Status};
use crate::order::machine::{allowed_transitions, is_terminal, TriggerKind, ROWS};
use crate::order::model::{HistoryDriver, Instant, Order};
use serde_json::Value;

/// What a service-side trigger does to `order` at `now` (unix seconds).
pub fn apply_trigger(order: &Value, trigger: ServiceTrigger, now: i64) -> Result<TriggerOutcome, OrderInputError> {
    let now = check_now(now)?;
    let (mut outcome, after) = on_view(read_order(order)?, trigger, now, None);
    outcome.order = after.to_value();
    Ok(outcome)
}

/// [`apply_trigger`] on an order the service model holds; `driver` is the driver object of a
/// reassignment's row, when the model knows the drivers. The outcome (its `order` left null) and
/// the order after the trigger.
pub(crate) fn apply_trigger_to(
    order: &Order,
    trigger: ServiceTrigger,
    now: i64,
    driver: Option<HistoryDriver>,
) -> Result<(TriggerOutcome, Order), OrderInputError> {
    let now = check_now(now)?;
    Ok(on_view(view_of_order(order)?, trigger, now, driver))
}

fn on_view(view: View, trigger: ServiceTrigger, now: i64, driver: Option<HistoryDriver>) -> (TriggerOutcome, Order) {
    match step(&view, trigger, now, driver) {
        (o, Some(after)) => (o, after),
        (o, None) => (o, view.order),
    }
}

fn step(view: &View, trigger: ServiceTrigger, now: i64, driver: Option<HistoryDriver>) -> (TriggerOutcome, Option<Order>) {
    let mut unknown = Vec::new();
    let now = effective_now(view, now, &mut unknown);
    let at = Instant::from_unix_seconds(now);
    let current = view.status;
    let not_applied = |note: String, unknown: Vec<String>, grounds: Grounds| TriggerOutcome {
        order: Value::Null,
        status: current.as_str().into(),
        status_changed: false,
        applied: false,
        trigger: trigger.name(),
        row: None,
        webhook: None,
        event: None,
        basis: grounds.basis,
        grounds,
        unknown,
        note,
    };
    if trigger == ServiceTrigger::DriverReassigned && view.order.is_null_or_absent("driverAssignedAt") {
        let grounds = Grounds::derived("history[] driver object: driver_reassigned carries previousCode (the driver replaced)");
        return (
            not_applied("no driver is assigned (driverAssignedAt is null): there is no driver to reassign".into(), unknown, grounds),
            None,
        );
    }
    let mut driver = driver;
    for row in ROWS.iter().filter(|r| r.trigger.kind == TriggerKind::Service && r.trigger.name == trigger.name()) {
        let Some(from_basis) = applies_from(row, current) else {
            continue;
        };
        let Some(cond_basis) = condition_holds(row.condition, view, now, &mut unknown) else {
            continue;
        };
        if from_basis == Basis::Assumed {
            unknown.push(format!("applying {} from {current} is not shown in the spec", row.id));
        }
        unknown.extend(row.unknown.iter().map(|s| s.to_string()));
        let reassigned = (trigger == ServiceTrigger::DriverReassigned)
            .then(|| driver.take().unwrap_or_else(|| driver_object(DriverEvent::Reassigned, None)));
        let record = service_record(row, current, reassigned, &mut unknown);
        let after = match view.transition(row, &at, record, &mut unknown) {
            Ok(o) => o,
            Err(why) => {
                let grounds = Grounds::derived("Order: deliveredAt on delivery orders is later than handedOverAt");
                return (not_applied(why, unknown, grounds), None);
            }
        };
        let status = row.to.unwrap_or(current);
        let basis = from_basis.max(cond_basis).max(row.basis);
        let outcome = TriggerOutcome {
            order: Value::Null,
            status: status.as_str().into(),
            status_changed: status != current,
            applied: true,
            trigger: trigger.name(),
            row: Some(row.id),
            webhook: row.webhook.map(|w| w.as_str()),
            event: row.event.map(|e| e.as_str()),
            basis,
            grounds: row_grounds(row, basis),
            unknown,
            note: match row.to {
                Some(to) if to != current => format!("{current} → {to} ({})", row.trigger_text),
                _ => format!("{} (status unchanged)", row.trigger_text),
            },
        };
        return (outcome, Some(after));
    }
    let note = match (trigger, current, view.deadline) {
        (ServiceTrigger::AutoAccept, Status::Pending, Deadline::At(_)) => {
            "not an auto-accept store (order.expiresAt is set): the order stays Pending until POST accept or reject".to_string()
        }
        _ => format!("no row of the table applies {} while the order is {current}; nothing changes", trigger.name()),
    };
    (not_applied(note, unknown, Grounds::derived("States and transitions: no row of the table applies")), None)
}

/// What the POS may do with `order` at `now` (unix seconds), with the time left to accept.
pub fn next_actions(order: &Value, now: i64) -> Result<NextActions, OrderInputError> {
    let now = check_now(now)?;
    let view = read_order(order)?;
    let current = view.status;
    let mut actions = Vec::new();
    for row in merchant_rows(current) {
        if let (Some(basis), Some(to)) = (holds(row.condition, &view, now), row.to) {
            actions.push(NextAction {
                action: row.trigger.name,
                to: to.as_str(),
                event: row.event.map(|e| e.as_str()),
                row: row.id,
                basis: basis.max(row.basis),
            });
        }
    }
    let mut service_may = Vec::new();
    for row in ROWS.iter().filter(|r| r.trigger.kind != TriggerKind::Action && r.trigger.name != "*") {
        if let (Some(from_basis), Some(cond_basis)) = (applies_from(row, current), holds(row.condition, &view, now)) {
            service_may.push(PendingChange {
                kind: row.trigger.kind,
                trigger: row.trigger.name,
                row: row.id,
                to: row.to.map(Status::as_str),
                basis: from_basis.max(cond_basis).max(row.basis),
            });
        }
    }
    let pending_deadline = match (current, view.deadline) {
        (Status::Pending, Deadline::At(ms)) => Some(ms),
        _ => None,
    };
    let now_ms = now * 1000;
    let acceptance_expired = pending_deadline.is_some_and(|ms| now_ms >= ms);
    let seconds_left_to_accept = pending_deadline.map(|ms| (ms - now_ms).max(0) / 1000);
    let allowed = allowed_now(&view, now);
    let advice = match current {
        Status::Pending if acceptance_expired => {
            "the acceptance window has closed: accept would be answered 409 acceptance-timeout even though the order reads Pending"
                .to_string()
        }
        Status::Pending => match (seconds_left_to_accept, view.deadline) {
            (Some(s), _) => format!("accept or reject within {s} seconds"),
            (None, Deadline::None) => {
                "auto-accept store: answer the creation webhook with 200 and a remoteOrderId; the service accepts the order".to_string()
            }
            _ => "accept or reject; the deadline cannot be read (order.expiresAt)".to_string(),
        },
        Status::Preparing => {
            "prepare the order, then PUT status ready (the driver may mark it ready first: then continue with handed_over)".to_string()
        }
        Status::Ready => "hand the food over, then PUT status handed_over".to_string(),
        Status::HandedOver => {
            "no merchant action is left; the order is not terminal: the service may still cancel it (refund or incident)".to_string()
        }
        _ => format!("{current} is terminal: nothing left to do"),
    };
    Ok(NextActions {
        status: current.as_str(),
        terminal: is_terminal(current),
        merchant_action_left: !allowed_transitions(current).is_empty(),
        actions,
        allowed_transitions: allowed.iter().map(|s| s.as_str()).collect(),
        expires_at: if pending_deadline.is_some() { view.expires_text.clone() } else { None },
        seconds_left_to_accept,
        acceptance_expired,
        service_may,
        advice,
    })
}

/// The observable statuses an order went through, read from its history (driver rows, which do not
/// change status, are skipped); falls back to the status alone. For highlighting the diagram.
pub fn history_path(order: &Value) -> Vec<String> {
    let data = match (order.get("status"), order.get("data")) {
        (None, Some(d)) if d.is_object() => d,
        _ => order,
    };
    let mut path: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        if Status::parse(s).is_some() && path.last().map(String::as_str) != Some(s) {
            path.push(s.to_string());
        }
    };
    if let Some(rows) = data.get("history").and_then(Value::as_array) {
        for row in rows {
            if let Some(from) = row.get("fromStatus").and_then(Value::as_str) {
                push(from);
            }
            if let Some(to) = row.get("toStatus").and_then(Value::as_str) {
                push(to);
            }
        }
    }
    if let Some(s) = data.get("status").and_then(Value::as_str) {
        push(s);
    }
    path
}
