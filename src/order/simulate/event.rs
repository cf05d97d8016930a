//! What an update webhook does to an order (the receiver always answers 200).

use super::{
    applies_from, driver_object, effective_now, read_order, row_grounds, service_record, view_of_order, EventOutcome, OrderInputError, View,
};
use crate::basis::Grounds;
use crate::contract::{ActorType, DriverEvent, Status, UpdateEvent};
use crate::order::machine::{Row, ROWS};
use crate::order::model::{Instant, Order};
use serde_json::{Map, Value};

/// What the service model knows of a step beside the event: who acted, and the driver's code.
#[derive(Debug, Clone, Default)]
pub(crate) struct Who {
    /// The actor of the history row (the engine's own when `None`).
    pub actor: Option<(ActorType, Option<String>)>,
    /// The code of the driver of a driver row.
    pub driver_code: Option<String>,
}

/// The outcome of an update webhook the receiver cannot act on: still 200.
fn unusable_event(view: &View, name: &str, why: String) -> EventOutcome {
    let grounds = Grounds::stated(
        "Endpoints the POS exposes: order update: always 200; Events rule 4: the receiver only communicates through the HTTP status",
    );
    let note = format!("{why}: nothing is applied; answer 200 (the update route is always answered 200) and log it");
    EventOutcome { valid: false, problem: Some(why), ..unchanged(view, name, None, grounds, Vec::new(), note) }
}

/// An event that changes nothing (the receiver still answers 200).
fn unchanged(view: &View, name: &str, row: Option<&'static str>, grounds: Grounds, unknown: Vec<String>, note: String) -> EventOutcome {
    EventOutcome {
        order: Value::Null,
        status: view.status.as_str().into(),
        status_changed: false,
        receiver_http_status: 200,
        ignored: true,
        valid: true,
        problem: None,
        event: name.into(),
        row,
        basis: grounds.basis,
        grounds,
        unknown,
        note,
    }
}

/// Reads an OrderUpdateEvent's field as a string.
fn event_string<'e>(obj: &'e Map<String, Value>, field: &str, required: bool) -> Result<Option<&'e str>, String> {
    match obj.get(field) {
        Some(Value::String(s)) => Ok(Some(s)),
        None if !required => Ok(None),
        Some(Value::Null) if !required => Ok(None),
        None => Err(format!("missing required field {field:?}")),
        Some(_) => Err(format!("{field} must be a string")),
    }
}

/// What an update webhook (`PUT {pos_base_url}/v1/order/{remoteId}/{remoteOrderId}/events`) does
/// to `order`. The receiver always answers 200: a body it cannot act on (no `event`, the former
/// `status` discriminator, a missing field) is a verdict with `valid: false`, never an error.
/// Errors are for the caller's own inputs only: an unreadable order, an event for another order.
pub fn apply_event(order: &Value, event: &Value) -> Result<EventOutcome, OrderInputError> {
    let (mut outcome, after) = on_view(read_order(order)?, event, &Who::default())?;
    outcome.order = after.to_value();
    Ok(outcome)
}

/// [`apply_event`] on an order the service model holds, with what it knows of the actor and the
/// driver: the outcome (its `order` left null) and the order after the event.
pub(crate) fn apply_event_to(order: &Order, event: &Value, who: &Who) -> Result<(EventOutcome, Order), OrderInputError> {
    on_view(view_of_order(order)?, event, who)
}

fn on_view(view: View, event: &Value, who: &Who) -> Result<(EventOutcome, Order), OrderInputError> {
    let outcome = step(&view, event, who)?;
    Ok(match outcome {
        (o, Some(after)) => (o, after),
        (o, None) => (o, view.order),
    })
}

fn step(view: &View, event: &Value, who: &Who) -> Result<(EventOutcome, Option<Order>), OrderInputError> {
    let Value::Object(body) = event else {
        return Ok((unusable_event(view, "", "the body is not a JSON object (OrderUpdateEvent)".into()), None));
    };
    let name = match body.get("event") {
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Ok((unusable_event(view, "", "event must be a string".into()), None)),
        None if body.contains_key("status") => return Ok((unusable_event(
            view,
            "",
            "no \"event\": this is the pre-2026-08-12 shape (status field); since 2026-08-12 the discriminator is the field event and the former status field is no longer emitted".into(),
        ), None)),
        None => return Ok((unusable_event(view, "", "missing required field \"event\"".into()), None)),
    };
    let current = view.status;
    let Some(kind) = UpdateEvent::parse(name) else {
        let shown: String = name.chars().take(60).collect();
        let note = format!(
            "event {shown:?} is not one the spec lists: ignore it and answer 200 (new values may be added without a version change)"
        );
        let grounds = Grounds::stated("OrderUpdateEvent: unknown future values are ignored with a 200");
        return Ok((unchanged(view, &shown, Some("unknown-update-event"), grounds, Vec::new(), note), None));
    };
    let key = match event_string(body, "orderKey", true) {
        Ok(k) => k.unwrap_or_default(),
        Err(why) => return Ok((unusable_event(view, name, why), None)),
    };
    if let Err(why) = event_string(body, "remoteOrderId", true) {
        return Ok((unusable_event(view, name, why), None));
    }
    if let Some(own) = view.order.given_order_key() {
        if own != key {
            return Err(OrderInputError::OrderKeyMismatch { order: own.to_string(), event: key.chars().take(60).collect() });
        }
    }
    let occurred = match event_string(body, "occurredAt", true) {
        Ok(o) => o.unwrap_or_default(),
        Err(why) => return Ok((unusable_event(view, name, why), None)),
    };
    let Some(occurred_at) = Instant::parse(occurred) else {
        return Ok((
            unusable_event(
                view,
                name,
                format!("occurredAt is not an ISO 8601 UTC timestamp: {:?}", occurred.chars().take(40).collect::<String>()),
            ),
            None,
        ));
    };

    let mut unknown = Vec::new();
    let found = ROWS.iter().filter(|r| r.webhook == Some(kind)).find_map(|r| applies_from(r, current).map(|b| (r, b)));
    let Some((row, from_basis)) = found else {
        let note = match (kind, current) {
            (UpdateEvent::Cancelled, Status::Cancelled) => {
                "the order is already Cancelled: a repeated cancelled event changes nothing (deduplicate on X-Service-Delivery-Id)"
                    .to_string()
            }
            (_, Status::Rejected) => {
                format!("Rejected is terminal: a {name} event for a rejected order is not shown in the spec; nothing changes")
            }
            _ => format!("a {name} event while the order is {current} is not shown in the spec; nothing changes"),
        };
        return Ok((unchanged(view, name, None, Grounds::assumed(format!("not shown: {note}")), vec![note.clone()], note), None));
    };
    unknown.extend(row.unknown.iter().map(|s| s.to_string()));
    // The step happens at occurredAt, never before what the order already records.
    let occurred_ms = occurred_at.unix_millis();
    let floor_secs = effective_now(view, occurred_ms.div_euclid(1000), &mut unknown);
    let at = if floor_secs * 1000 > occurred_ms { Instant::from_unix_seconds(floor_secs) } else { occurred_at };
    let (driver, name_as_given) = match kind {
        UpdateEvent::DriverAssigned => driver_of(DriverEvent::Assigned, body.get("driver")),
        UpdateEvent::DriverReleased => driver_of(DriverEvent::Released, body.get("releasedDriver")),
        _ => (None, None),
    };
    let mut record = service_record(row, current, driver, &mut unknown);
    record.driver_name_as_given = name_as_given;
    if kind == UpdateEvent::Cancelled {
        record.reason = body.get("reason").and_then(Value::as_str).map(str::to_string);
    }
    if let Some((actor, id)) = &who.actor {
        record.actor_type = *actor;
        record.actor_id = id.clone();
    }
    if let (Some(code), Some(d)) = (&who.driver_code, record.driver.as_mut()) {
        d.code = Some(code.clone());
    }
    let after = match view.transition(row, &at, record, &mut unknown) {
        Ok(o) => o,
        Err(why) => {
            let note = format!("{why}; nothing is applied; answer 200");
            let grounds = Grounds::derived("Order: deliveredAt on delivery orders is later than handedOverAt");
            return Ok((unchanged(view, name, Some(row.id), grounds, unknown, note), None));
        }
    };
    let status = after.status();
    let basis = from_basis.max(row.basis);
    let outcome = EventOutcome {
        status_changed: status != current,
        order: Value::Null,
        status: status.as_str().into(),
        receiver_http_status: 200,
        ignored: false,
        valid: true,
        problem: None,
        event: name.into(),
        row: Some(row.id),
        basis,
        grounds: row_grounds(row, basis),
        unknown,
        note: note_of(kind, row, current),
    };
    Ok((outcome, Some(after)))
}

/// The driver object of a driver event's row, from the event's driver (its fullName, and that
/// name as given when it is not a string).
fn driver_of(event: DriverEvent, from: Option<&Value>) -> (Option<crate::order::model::HistoryDriver>, Option<Value>) {
    let name = from.and_then(|d| d.get("fullName")).cloned().unwrap_or(Value::Null);
    match name {
        Value::String(s) => (Some(driver_object(event, Some(s))), None),
        Value::Null => (Some(driver_object(event, None)), None),
        other => (Some(driver_object(event, None)), Some(other)),
    }
}

fn note_of(kind: UpdateEvent, row: &Row, current: Status) -> String {
    match (kind, row.to) {
        (UpdateEvent::Cancelled, _) => format!(
            "the order is Cancelled{}; cancelledAt = occurredAt; answer 200",
            if current == Status::HandedOver { " after the handover (refund or incident)" } else { "" }
        ),
        (UpdateEvent::Delivered, Some(to)) => format!("the service closed the order on confirmed delivery: {current} → {to}, handedOverAt stays as it was (null when the merchant never reported the handover); answer 200"),
        (UpdateEvent::Delivered, None) => "delivery confirmed: deliveredAt set (status unchanged); answer 200".to_string(),
        (UpdateEvent::DriverAssigned, _) => "a driver is not a status: driverAssignedAt = occurredAt, the status does not move; answer 200 (it may arrive more than once)".to_string(),
        _ => "the driver was released: driverAssignedAt is cleared, the status does not move (expectedNext tells a reassignment follows); answer 200".to_string(),
    }
}
