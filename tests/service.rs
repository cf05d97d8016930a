//! The service model (`poscheck::service`) driven as a POS meets it: REST calls through `handle`,
//! the other actors through `control`, the clock through `due`, and a fake POS (tests/common/
//! sandbox.rs) that verifies and answers every delivery attempt. Every REST answer body is held
//! to the toolkit's own checkers (`validate_payload`, `check_order`, `classify_problem`), every
//! delivery body to `validate_payload`, every signature to `signature::verify`. Expected values
//! are written from the contract (service-spec.md) and the options the test sets, never read
//! back from the code under test.

#[path = "common/sandbox.rs"]
mod sandbox;

use hmac::{Hmac, Mac};
use poscheck::payload::{classify_problem, ProblemInput};
use poscheck::service::{ClientInput, ConfigInput, Control, DeliveryKind, DeliveryState, Options, Request, Service, StoreInput};
use sandbox::{iso, json, suffix, uuid, Harness, Reply, T0, T0_ISO};
use serde_json::{json, Value};
use sha2::Sha256;

/// Options with the values the tests rely on written out (they are what the contract does not
/// show; the model's defaults are not what is under test here).
fn options() -> Options {
    Options {
        acceptance_window_seconds: 300,
        timeout_job_delay_seconds: 0,
        retry_schedule_seconds: vec![30, 120, 300],
        answer_budget_ms: 30_000,
        ..Options::default()
    }
}

fn harness() -> Harness {
    Harness::new(None, options())
}

fn statuses(order: &Value) -> Vec<String> {
    order["history"].as_array().unwrap().iter().map(|r| r["toStatus"].as_str().unwrap().to_string()).collect()
}

fn last_row(order: &Value) -> Value {
    order["history"].as_array().unwrap().last().unwrap().clone()
}

/// `sha256=` + lowercase hex of HMAC-SHA256(secret, timestamp + "." + body), with the `hmac`
/// and `sha2` crates directly.
fn independent_signature(secret: &str, timestamp: &str, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{timestamp}.{body}").as_bytes());
    let hex: String = mac.finalize().into_bytes().iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256={hex}")
}

fn header<'a>(attempt: &'a poscheck::service::Attempt, name: &str) -> Option<&'a str> {
    attempt.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[test]
fn the_harness_clock_is_written_out_by_hand() {
    assert_eq!(iso(T0), T0_ISO);
    assert_eq!(iso(0), "1970-01-01T00:00:00Z");
    assert_eq!(iso(951_782_400_000), "2000-02-29T00:00:00Z");
    assert_eq!(iso(T0 + 86_400_000 * 102), "2027-01-01T14:13:20Z");
}

// ---------------------------------------------------------------------------------------------
// Lifecycles.

#[test]
fn lifecycle_created_accepted_ready_handed_over_delivered() {
    let mut h = harness();
    let key = h.place("STORE-1");
    assert!(key.starts_with("ord_") && key.len() == 20 && key[4..].bytes().all(|b| b.is_ascii_alphanumeric()), "{key}");

    // Before the POS answers: Pending, no remoteOrderId yet.
    let d = h.detail(&key);
    assert_eq!(d["status"], "Pending");
    assert_eq!(d["remoteOrderId"], Value::Null);
    assert_eq!(d["receivedAt"], T0_ISO);
    assert_eq!(d["order"]["expiresAt"], iso(T0 + 300_000));
    assert_eq!(statuses(&d), ["Pending"]);
    assert_eq!(d["history"][0]["fromStatus"], Value::Null);

    // The creation webhook: signed, body of the order, answered 200 with a remoteOrderId.
    let got = h.pump();
    assert_eq!(got.len(), 1);
    let c = &got[0];
    assert_eq!(c.attempt.kind, DeliveryKind::OrderCreated);
    assert_eq!(c.attempt.number, 1);
    assert_eq!(c.path, "/v1/order/STORE-1");
    assert_eq!(c.attempt.url, format!("{}/v1/order/STORE-1", h.sb.config().pos));
    assert_eq!(c.timestamp, (T0 / 1000) as u64);
    assert_eq!(header(&c.attempt, "X-Service-Timestamp"), Some((T0 / 1000).to_string().as_str()));
    let sig = header(&c.attempt, "X-Service-Signature-256").unwrap();
    assert_eq!(sig, independent_signature(&h.sb.config().secret, &(T0 / 1000).to_string(), &c.attempt.body));
    // The signature means something: another secret or a changed body does not verify.
    let headers = poscheck::http::Headers::from_pairs(c.attempt.headers.iter().cloned());
    assert!(poscheck::signature::verify(c.attempt.body.as_bytes(), &headers, &[b"another secret".as_slice()], c.timestamp, 300).is_err());
    let tampered = c.attempt.body.replace("STORE-1", "STORE-9");
    assert!(poscheck::signature::verify(tampered.as_bytes(), &headers, &[h.sb.config().secret.as_bytes()], c.timestamp, 300).is_err());
    assert_eq!(c.body["orderKey"], key.as_str());
    assert_eq!(c.body["storeRemoteId"], "STORE-1");
    assert_eq!(c.body["createdAt"], T0_ISO);
    assert_eq!(c.body["expiresAt"], iso(T0 + 300_000));
    assert_eq!(c.body["fulfillment"]["type"], "delivery");
    assert_eq!(c.body["customer"], Value::Null, "customer is null on delivery");
    let s = c.settled.as_ref().unwrap();
    assert!(s.ok && s.retry_at_ms.is_none() && !s.exhausted, "{s:?}");
    let d = h.detail(&key);
    assert_eq!(d["status"], "Pending");
    assert_eq!(d["remoteOrderId"], "POS-1");
    // The commercial content of the detail is the creation payload's.
    let mut created = c.body.clone();
    created.as_object_mut().unwrap().remove("orderKey");
    assert_eq!(d["order"], created);

    // Accept, 5 s later: 202, Preparing (through Accepted atomically).
    h.advance(5);
    let (a, body) = h.accept(&key);
    assert_eq!(a.status, 202, "{body}");
    assert_eq!(body["data"], json!({ "orderKey": key, "status": "Preparing", "acceptedAt": iso(h.now), "remoteOrderId": "POS-1" }));
    let d = h.detail(&key);
    assert_eq!(d["status"], "Preparing");
    assert_eq!(d["acceptedAt"], iso(h.now));
    assert_eq!(d["preparingAt"], d["acceptedAt"]);
    assert_eq!(statuses(&d), ["Pending", "Preparing"], "Accepted is never observable");
    assert_eq!(last_row(&d)["actorType"], "merchant");
    assert_eq!(last_row(&d)["fromStatus"], "Pending");

    h.advance(60);
    let (a, body) = h.status(&key, r#"{"status":"ready"}"#);
    assert_eq!(a.status, 202, "{body}");
    assert_eq!(body["data"], json!({ "orderKey": key, "status": "Ready", "changedAt": iso(h.now) }));
    assert_eq!(h.detail(&key)["readyAt"], iso(h.now));

    // A driver, while Ready: the status does not move.
    h.advance(30);
    let assigned_at = h.now;
    let out =
        h.control(json!({ "action": "assignDriver", "orderKey": key, "fullName": "Ana Pérez", "phone": "+593991234567", "code": "DRV-A" }));
    assert_eq!(out.deliveries.len(), 1);
    let got = h.pump();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].path, "/v1/order/STORE-1/POS-1/events");
    assert_eq!(
        got[0].body,
        json!({ "orderKey": key, "remoteOrderId": "POS-1", "event": "driver_assigned", "occurredAt": iso(h.now),
                "driver": { "fullName": "Ana Pérez", "phone": "+593991234567" } })
    );
    let ts = header(&got[0].attempt, "X-Service-Timestamp").unwrap();
    assert_eq!(
        header(&got[0].attempt, "X-Service-Signature-256").unwrap(),
        independent_signature(&h.sb.config().secret, ts, &got[0].attempt.body)
    );
    let d = h.detail(&key);
    assert_eq!(d["status"], "Ready");
    assert_eq!(d["driverAssignedAt"], iso(assigned_at));
    let row = last_row(&d);
    assert_eq!((row["fromStatus"].as_str(), row["toStatus"].as_str()), (Some("Ready"), Some("Ready")));
    assert_eq!(row["driver"]["event"], "driver_assigned");
    assert_eq!(row["driver"]["code"], "DRV-A");
    assert_eq!(row["driver"]["fullName"], "Ana Pérez");

    h.advance(60);
    let handed_at = h.now;
    let (a, body) = h.status(&key, r#"{"status":"handed_over"}"#);
    assert_eq!(a.status, 202, "{body}");
    assert_eq!(body["data"], json!({ "orderKey": key, "status": "HandedOver", "changedAt": iso(h.now) }));

    // The driver confirms the delivery 10 minutes later: deliveredAt, status unchanged.
    h.advance(600);
    h.control(json!({ "action": "deliver", "orderKey": key }));
    let got = h.pump();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body, json!({ "orderKey": key, "remoteOrderId": "POS-1", "event": "delivered", "occurredAt": iso(h.now) }));
    let d = h.detail(&key);
    assert_eq!(d["status"], "HandedOver");
    assert_eq!(d["handedOverAt"], iso(handed_at));
    assert_eq!(d["deliveredAt"], iso(h.now));
    assert_eq!(d["cancelledAt"], Value::Null);
    let s = statuses(&d);
    assert_eq!(s[..4], ["Pending", "Preparing", "Ready", "Ready"]);
    assert!(s[4..].iter().all(|x| x == "HandedOver"), "{s:?}");

    // What the POS received, in order: one creation, then driver_assigned, delivered.
    let events: Vec<String> = h.pos.events(&key).iter().map(|e| e["event"].as_str().unwrap().to_string()).collect();
    assert_eq!(events, ["driver_assigned", "delivered"]);
    assert!(h.sb.deliveries().all(|d| d.state == DeliveryState::Delivered));
    assert_eq!(h.sb.next_due(), None, "nothing is left to fire (the acceptance timeout went with the accept)");

    // The list item says the same as the detail.
    let list = h.list("");
    assert_eq!(
        list["items"],
        json!([{ "orderKey": key, "storeId": d["storeId"], "status": "HandedOver", "receivedAt": T0_ISO, "acceptedAt": d["acceptedAt"],
                 "remoteOrderId": "POS-1", "driverAssignedAt": iso(assigned_at), "deliveredAt": iso(h.now) }])
    );
}

#[test]
fn lifecycle_rejected_with_a_listed_reason_code() {
    let mut h = harness();
    let key = h.create("STORE-1");
    h.advance(10);
    let (a, body) = h.reject(&key, r#"{"reasonCode":"ITEM_OUT_OF_STOCK","message":"no buns left"}"#);
    assert_eq!(a.status, 202, "{body}");
    assert_eq!(body["data"], json!({ "orderKey": key, "status": "Rejected", "rejectedAt": iso(h.now), "reason": "ITEM_OUT_OF_STOCK" }));
    let d = h.detail(&key);
    assert_eq!(d["status"], "Rejected");
    assert_eq!(d["rejectedAt"], iso(h.now));
    assert_eq!(d["acceptedAt"], Value::Null);
    assert_eq!(statuses(&d), ["Pending", "Rejected"]);
    assert_eq!(last_row(&d)["actorType"], "merchant");

    // Rejected is terminal: 409 with an empty allowedTransitions.
    let (a, body) = h.accept(&key);
    assert_eq!(a.status, 409);
    assert_eq!(suffix(&body).as_deref(), Some("invalid-state-transition"));
    assert_eq!(body["meta"], json!({ "currentStatus": "Rejected", "allowedTransitions": [] }));

    // The acceptance timeout job was cancelled: past expiresAt nothing fires and nothing is sent.
    h.advance(3600);
    assert!(h.pump().is_empty());
    assert_eq!(h.detail(&key)["status"], "Rejected");
    assert_eq!(h.pos.events(&key), Vec::<Value>::new());
}

#[test]
fn lifecycle_rejected_with_an_unknown_reason_code_is_normalized_to_system_issue() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let (a, body) = h.reject(&key, r#"{"reasonCode":"KITCHEN_ON_FIRE"}"#);
    assert_eq!(a.status, 202, "an unknown reasonCode is never a 422: {body}");
    assert_eq!(body["data"]["reason"], "SYSTEM_ISSUE");
    assert_eq!(body["data"]["status"], "Rejected");
    assert_eq!(h.detail(&key)["status"], "Rejected");
    // A missing reasonCode is a 422 (required), and changes nothing.
    let other = h.create("STORE-1");
    let (a, body) = h.reject(&other, r#"{"message":"no reason"}"#);
    assert_eq!(a.status, 422, "{body}");
    assert_eq!(suffix(&body).as_deref(), Some("validation"));
    assert!(body["meta"]["errors"]["reasonCode"].is_array(), "{body}");
    assert_eq!(h.detail(&other)["status"], "Pending");
}

#[test]
fn lifecycle_acceptance_timeout_cancels_at_expires_at() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let expires = T0 + 300_000;
    assert_eq!(h.sb.next_due(), Some(expires), "the acceptance timeout job is due at expiresAt");
    h.now = expires - 1;
    assert!(h.pump().is_empty());
    assert_eq!(h.detail(&key)["status"], "Pending");
    // Pumped late (the face was busy): the cancellation still happens at expiresAt.
    h.now = expires + 7_500;
    let got = h.pump();
    assert_eq!(got.len(), 1, "the cancelled update is sent");
    assert_eq!(got[0].attempt.kind, DeliveryKind::OrderUpdate);
    assert_eq!(got[0].body["event"], "cancelled");
    assert_eq!(got[0].body["occurredAt"], iso(expires));
    assert!(got[0].body["reason"].is_string(), "cancelled carries a reason: {}", got[0].body);
    let d = h.detail(&key);
    assert_eq!(d["status"], "Cancelled");
    assert_eq!(d["cancelledAt"], iso(expires));
    let row = last_row(&d);
    assert_eq!(row["fromStatus"], "Pending");
    assert_eq!(row["actorType"], "system", "system covers the acceptance timeout");
    assert_eq!(row["actorId"], Value::Null, "actorId is null for system");
    assert_eq!(row["changedAt"], iso(expires));
    // Accept after it: a 409, the order stays Cancelled.
    let (a, body) = h.accept(&key);
    assert_eq!(a.status, 409, "{body}");
    assert_eq!(h.detail(&key)["status"], "Cancelled");
    assert_eq!(h.sb.next_due(), None);
}

#[test]
fn lifecycle_auto_accept_store() {
    let mut h = harness();
    let key = h.place("STORE-2");
    let d = h.detail(&key);
    assert_eq!(d["status"], "Pending");
    assert_eq!(d["order"]["expiresAt"], Value::Null, "expiresAt is null for auto-accept stores");
    // A 200 without a remoteOrderId counts as failed: still Pending, retried.
    h.pos.script.push_back(Reply::OkWithoutRemoteId);
    let got = h.pump();
    let s = got[0].settled.clone().unwrap();
    assert!(!s.ok && s.retry_at_ms == Some(h.now + 30_000), "{s:?}");
    assert_eq!(got[0].body["expiresAt"], Value::Null);
    assert_eq!(h.detail(&key)["status"], "Pending");
    // The retry answered 200 with a remoteOrderId: the service accepts the order itself.
    h.advance(30);
    let got = h.pump();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].attempt.number, 2);
    assert!(got[0].settled.as_ref().unwrap().ok);
    let d = h.detail(&key);
    assert_eq!(d["status"], "Preparing");
    assert_eq!(d["remoteOrderId"], "POS-1");
    assert_eq!(d["acceptedAt"], iso(h.now));
    assert_eq!(d["preparingAt"], d["acceptedAt"]);
    assert_eq!(d["order"]["expiresAt"], Value::Null);
    assert_eq!(statuses(&d), ["Pending", "Preparing"]);
    // No acceptance timeout for an auto-accept store; the POS continues with ready.
    assert_eq!(h.sb.next_due(), None);
    h.advance(3600);
    assert!(h.pump().is_empty());
    let (a, body) = h.status(&key, r#"{"status":"ready"}"#);
    assert_eq!(a.status, 202, "{body}");
    // An accept now is a 409 from Ready.
    let (a, body) = h.accept(&key);
    assert_eq!(a.status, 409);
    assert_eq!(body["meta"]["currentStatus"], "Ready");
}

#[test]
fn lifecycle_driver_assigned_twice_released_and_reassigned() {
    let mut h = harness();
    let key = h.create("STORE-1");
    h.accept(&key);
    let assign = |code: &str, name: &str| json!({ "action": "assignDriver", "orderKey": key, "fullName": name, "code": code });
    h.advance(60);
    h.control(assign("DRV-A", "Ana"));
    h.advance(60);
    let second_at = h.now;
    h.control(assign("DRV-B", "Bo"));
    let d = h.detail(&key);
    let row = last_row(&d);
    assert_eq!(row["driver"], json!({ "event": "driver_reassigned", "code": "DRV-B", "fullName": "Bo", "previousCode": "DRV-A" }));
    assert_eq!((row["fromStatus"].as_str(), row["toStatus"].as_str()), (Some("Preparing"), Some("Preparing")));
    assert_eq!(d["status"], "Preparing");
    // Whether a reassignment moves driverAssignedAt is not shown: the first or the second time.
    assert!([iso(second_at - 60_000), iso(second_at)].contains(&d["driverAssignedAt"].as_str().unwrap().to_string()), "{d}");

    h.advance(60);
    h.control(json!({ "action": "releaseDriver", "orderKey": key, "reason": "vehicle broke down" }));
    let d = h.detail(&key);
    let row = last_row(&d);
    assert_eq!(row["driver"]["event"], "driver_released");
    assert_eq!(row["driver"]["code"], "DRV-B");
    assert_eq!(row["fromStatus"], row["toStatus"]);
    assert_eq!(d["driverAssignedAt"], Value::Null, "cleared when the driver is released");
    assert_eq!(d["status"], "Preparing");
    // Nothing to release now.
    let e = h.sb.control_json(&json!({ "action": "releaseDriver", "orderKey": key }).to_string(), h.now).unwrap_err();
    assert_eq!(e.code(), "NOT_APPLICABLE");

    h.advance(60);
    let third_at = h.now;
    h.control(assign("DRV-C", "Cy"));
    let d = h.detail(&key);
    assert_eq!(
        last_row(&d)["driver"],
        json!({ "event": "driver_assigned", "code": "DRV-C", "fullName": "Cy" }),
        "after a release, an assignment"
    );
    assert_eq!(d["driverAssignedAt"], iso(third_at));
    assert_eq!(d["status"], "Preparing");
    let events: Vec<&str> = d["history"].as_array().unwrap().iter().filter_map(|r| r["driver"]["event"].as_str()).collect();
    assert_eq!(events, ["driver_assigned", "driver_reassigned", "driver_released", "driver_assigned"]);

    // The POS got them all (the reassignment as driver_assigned: the events the contract lists).
    let got = h.pump();
    let bodies: Vec<&Value> = got.iter().map(|r| &r.body).collect();
    let names: Vec<&str> = bodies.iter().map(|b| b["event"].as_str().unwrap()).collect();
    assert_eq!(names, ["driver_assigned", "driver_assigned", "driver_released", "driver_assigned"]);
    assert_eq!(bodies[1]["driver"]["fullName"], "Bo");
    assert_eq!(bodies[2]["reason"], "vehicle broke down");
    assert_eq!(bodies[2]["releasedDriver"]["fullName"], "Bo", "releasedDriver is the driver released");
    assert_eq!(bodies[2]["expectedNext"], "driver_reassignment");
    assert!(bodies[2].get("driver").is_none(), "driver is present when the event is driver_assigned");
    assert!(bodies[0].get("reason").is_none(), "reason is absent on driver_assigned");
    // One delivery id per event.
    let mut ids: Vec<&str> = got.iter().map(|r| r.attempt.delivery_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 4);

    // Ready and handed over with a driver assigned.
    assert_eq!(h.status(&key, r#"{"status":"ready"}"#).0.status, 202);
    h.advance(1);
    assert_eq!(h.status(&key, r#"{"status":"handed_over"}"#).0.status, 202);
}

#[test]
fn lifecycle_cancelled_after_handover_by_refund() {
    let mut h = harness();
    let key = h.create("STORE-1");
    h.accept(&key);
    h.advance(60);
    h.status(&key, r#"{"status":"ready"}"#);
    h.advance(60);
    let handed = h.now;
    h.status(&key, r#"{"status":"handed_over"}"#);
    // After the handover a customer's cancellation does not apply; a refund does.
    let e = h.sb.control(Control::Cancel { order_key: key.clone(), by: None, reason: None }, h.now).unwrap_err();
    assert_eq!(e.code(), "NOT_APPLICABLE");
    h.advance(3600);
    h.control(json!({ "action": "refund", "orderKey": key, "reason": "cold food" }));
    let d = h.detail(&key);
    assert_eq!(d["status"], "Cancelled");
    assert_eq!(d["cancelledAt"], iso(h.now));
    assert_eq!(d["handedOverAt"], iso(handed), "the handover stays recorded");
    let row = last_row(&d);
    assert_eq!(row["fromStatus"], "HandedOver");
    assert_eq!(row["toStatus"], "Cancelled");
    let got = h.pump();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body["event"], "cancelled", "cancelled is also sent for an order already HandedOver");
    assert_eq!(got[0].body["reason"], "cold food");
    // Cancelled is terminal for the POS.
    let (a, body) = h.status(&key, r#"{"status":"handed_over"}"#);
    assert_eq!(a.status, 409);
    assert_eq!(body["meta"], json!({ "currentStatus": "Cancelled", "allowedTransitions": [] }));
    // A refund applies to HandedOver orders only.
    let other = h.create("STORE-1");
    let e = h.sb.control_json(&json!({ "action": "refund", "orderKey": other }).to_string(), h.now).unwrap_err();
    assert_eq!(e.code(), "NOT_APPLICABLE");
    h.control(json!({ "action": "cancel", "orderKey": other, "by": "operator", "reason": "store unreachable" }));
    let d = h.detail(&other);
    assert_eq!(d["status"], "Cancelled");
    assert_eq!(last_row(&d)["actorType"], "operator");
    assert_eq!(last_row(&d)["reason"], "store unreachable");
}

#[test]
fn lifecycle_creation_delivery_failed_twice_then_answered() {
    let mut h = harness();
    let key = h.place("STORE-1");
    // 500, then a 200 that came after the 30 s budget (a failure), then 200.
    h.pos.script.extend([Reply::Status(500), Reply::Slow(31_000), Reply::Ok]);
    let first = h.pump();
    assert_eq!(first.len(), 1);
    let s = first[0].settled.clone().unwrap();
    assert!(!s.ok && !s.exhausted, "{s:?}");
    assert_eq!(s.retry_at_ms, Some(T0 + 30_000));
    assert_eq!(h.sb.next_due(), Some(T0 + 30_000));
    h.now = T0 + 29_999;
    assert!(h.pump().is_empty(), "not before the scheduled time");
    h.now = T0 + 30_000;
    let second = h.pump();
    assert_eq!(second.len(), 1);
    let s = second[0].settled.clone().unwrap();
    assert!(!s.ok, "a 200 after 31 s counts as a failure: {s:?}");
    assert_eq!(s.retry_at_ms, Some(T0 + 150_000));
    assert_eq!(h.order(&key)["remoteOrderId"], Value::Null, "a late answer is not taken");
    h.now = T0 + 150_000;
    let third = h.pump();
    assert_eq!(third.len(), 1);
    assert!(third[0].settled.as_ref().unwrap().ok);
    assert!(third[0].duplicate, "the POS had seen this delivery id (it answered the late attempt)");

    let attempts: Vec<_> = [&first[0], &second[0], &third[0]].iter().map(|r| r.attempt.clone()).collect();
    assert!(attempts.iter().all(|a| a.delivery_id == attempts[0].delivery_id), "the same X-Service-Delivery-Id on every attempt");
    assert!(attempts.iter().all(|a| a.body == attempts[0].body), "the same body on every attempt");
    assert_eq!(attempts.iter().map(|a| a.number).collect::<Vec<_>>(), [1, 2, 3]);
    let stamps: Vec<u64> = [&first[0], &second[0], &third[0]].iter().map(|r| r.timestamp).collect();
    assert_eq!(stamps, [(T0 / 1000) as u64, (T0 / 1000 + 30) as u64, (T0 / 1000 + 150) as u64], "each attempt signed when sent");
    assert_eq!(h.sb.orders().len(), 1, "one order");
    assert_eq!(h.sb.deliveries().count(), 1, "one delivery");
    assert_eq!(h.sb.delivery(&attempts[0].delivery_id).unwrap().state, DeliveryState::Delivered);
    let d = h.detail(&key);
    assert_eq!(d["remoteOrderId"], "POS-1");
    assert_eq!(d["status"], "Pending");
    assert_eq!(h.sb.next_due(), Some(T0 + 300_000), "only the acceptance timeout is left");
    assert_eq!(h.accept(&key).0.status, 202);
}

#[test]
fn default_retry_schedule_retries_at_least_three_times_within_ten_minutes() {
    let mut h = Harness::default_account();
    h.place("STORE-1");
    h.pos.default = Reply::Status(503);
    let mut times = Vec::new();
    while let Some(at) = h.sb.next_due() {
        if at > T0 + 600_000 {
            break;
        }
        h.now = at;
        for r in h.pump() {
            if r.attempt.kind == DeliveryKind::OrderCreated {
                times.push(h.now);
            }
        }
    }
    assert!(times.len() >= 4, "a first attempt and at least 3 retries within 10 minutes: {times:?}");
    assert!(times.windows(2).all(|w| w[1] > w[0]), "{times:?}");
}

#[test]
fn lifecycle_creation_delivery_failing_on_every_attempt_cancels_the_order() {
    let mut h = harness();
    let key = h.place("STORE-1");
    h.pos.default = Reply::NoAnswer;
    let mut attempts = Vec::new();
    let mut last = None;
    while let Some(at) = h.sb.next_due() {
        if at >= T0 + 300_000 {
            break; // the acceptance timeout: not reached by then
        }
        h.now = at;
        for r in h.pump() {
            attempts.push((h.now, r.attempt.number, r.attempt.delivery_id.clone()));
            last = r.settled;
        }
    }
    // 1 + 3 retries at +30, +150, +450 s (the options' schedule)... but 450 s is past expiresAt
    // (300 s): the acceptance timeout comes first.
    assert_eq!(attempts.iter().map(|a| a.0 - T0).collect::<Vec<_>>(), [0, 30_000, 150_000]);
    assert!(!last.unwrap().exhausted);
    assert_eq!(h.order(&key)["status"], "Pending");
    h.now = T0 + 300_000;
    h.pump();
    assert_eq!(h.order(&key)["status"], "Cancelled", "the acceptance timeout");

    // With an acceptance window longer than the retries, the last failure cancels the order.
    let mut h = Harness::new(None, Options { acceptance_window_seconds: 3600, ..options() });
    let key2 = h.place("STORE-1");
    h.pos.default = Reply::Status(500);
    let mut settled = Vec::new();
    while let Some(at) = h.sb.next_due() {
        if at >= T0 + 3_600_000 {
            break;
        }
        h.now = at;
        settled.extend(h.pump().into_iter().map(|r| (h.now, r.attempt.number, r.settled.unwrap())));
    }
    assert_eq!(settled.iter().map(|s| (s.0 - T0, s.1)).collect::<Vec<_>>(), [(0, 1), (30_000, 2), (150_000, 3), (450_000, 4)]);
    let (at, _, s) = settled.last().unwrap();
    assert!(s.exhausted && !s.ok && s.retry_at_ms.is_none(), "{s:?}");
    let d = h.detail(&key2);
    assert_eq!(d["status"], "Cancelled", "a failed webhook cancels the order");
    assert_eq!(d["cancelledAt"], iso(*at));
    assert_eq!(last_row(&d)["actorType"], "system", "system covers delivery failure");
    assert_eq!(h.sb.delivery(&s.delivery_id).unwrap().state, DeliveryState::Failed);
    // No retry is left; at expiresAt nothing more happens.
    h.now = T0 + 3_600_000;
    assert!(h.pump().is_empty());
    assert_eq!(h.order(&key2)["cancelledAt"], iso(*at));
    // The POS never gave a remoteOrderId: there is no update route to send the cancellation to.
    assert!(s.deliveries.is_empty());
    assert!(h.pos.events(&key2).is_empty());
    // The POS may still try to accept: 409.
    assert_eq!(h.accept(&key2).0.status, 409);
}

#[test]
fn redelivery_repeats_the_delivery_id_and_body() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let id = h.pos.received[0].attempt.delivery_id.clone();
    let copies = h.sb.redeliver(&id, 2, h.now / 1000 + 5).unwrap();
    assert_eq!(copies.len(), 2);
    for c in &copies {
        assert!(c.redelivery);
        assert_eq!(c.delivery_id, id);
        assert_eq!(c.body, h.pos.received[0].attempt.body);
        let (status, body, elapsed, r) = h.pos.receive(c, h.now / 1000 + 5);
        assert!(r.duplicate);
        assert_eq!(json(&body)["remoteOrderId"], "POS-1", "the POS answers a duplicate as before");
        h.sb.answered(c.attempt, status, &body, elapsed, h.now).unwrap();
    }
    assert_eq!(h.sb.orders().len(), 1);
    assert_eq!(h.detail(&key)["remoteOrderId"], "POS-1");
    assert_eq!(h.sb.redeliver("nope", 1, 0).unwrap_err().code(), "NOT_FOUND");
    assert_eq!(h.sb.redeliver(&id, 0, 0).unwrap_err().code(), "INVALID_CONTROL");
    // An attempt is settled once.
    assert!(h.sb.answered(copies[0].attempt, 200, b"{}", 1, h.now).is_none());
}

// ---------------------------------------------------------------------------------------------
// Contract answers.

fn bare<'a>(method: &'a str, target: &'a str, body: &'a [u8]) -> Request<'a> {
    Request { method, target, body, ..Default::default() }
}

#[test]
fn api_key_missing_or_unknown_is_401() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let target = format!("/api/v1/Orders/{key}/accept");
    let idem = uuid(1);
    for api_key in [None, Some(""), Some("sbx_key_not_issued"), Some(&h.key.to_uppercase()[..])] {
        for (method, target, body) in
            [("GET", format!("/api/v1/Orders/{key}"), &b""[..]), ("GET", "/api/v1/Orders".into(), b""), ("POST", target.clone(), b"{}")]
        {
            let req = Request {
                api_key,
                schema_version: Some("1.0"),
                idempotency_key: Some(&idem),
                content_type: Some("application/json"),
                ..bare(method, &target, body)
            };
            let (a, body) = h.request(&req);
            assert_eq!(a.status, 401, "{api_key:?} {method} {target}: {body}");
            let c = classify_problem(&ProblemInput { status: 401, body: a.body.clone(), ..Default::default() });
            assert_eq!(c.kind, "unauthorized");
        }
    }
    assert_eq!(h.detail(&key)["status"], "Pending", "nothing was executed");
    // The Idempotency-Key a 401 carried was not consumed.
    let (a, _) = h.send("POST", &target, Some(&idem), b"{}");
    assert_eq!(a.status, 202);
}

fn two_clients() -> ConfigInput {
    let store = |r: &str| StoreInput { remote_id: r.into(), ..Default::default() };
    ConfigInput {
        secret: Some("whsec_two_clients".into()),
        pos: Some("https://pos.example.test/base/".into()),
        clients: Some(vec![
            ClientInput { api_key: Some("key-a".into()), stores: vec![store("A-1"), store("A-2")] },
            ClientInput { api_key: Some("key-b".into()), stores: vec![store("B-1")] },
        ]),
    }
}

#[test]
fn another_clients_order_is_not_found() {
    let mut h = Harness::new(Some(two_clients()), options());
    assert_eq!(h.key, "key-a");
    assert_eq!(h.sb.config().pos, "https://pos.example.test/base");
    let mine = h.create("A-2");
    let theirs = h.create("B-1");
    assert!(h.pos.received.iter().any(|r| r.attempt.url == "https://pos.example.test/base/v1/order/B-1"));
    for (method, suffix_path, body) in [
        ("GET", "", ""),
        ("POST", "/accept", "{}"),
        ("POST", "/reject", r#"{"reasonCode":"STORE_CLOSED"}"#),
        ("PUT", "/status", r#"{"status":"ready"}"#),
    ] {
        let target = format!("/api/v1/Orders/{theirs}{suffix_path}");
        let k = h.fresh_key();
        let (a, body) = h.send_as("key-a", method, &target, Some(&k), body.as_bytes());
        assert_eq!(a.status, 404, "{method} {target}: {body}");
        assert_eq!(suffix(&body).as_deref(), Some("not-found"));
        assert_eq!(body["meta"], Value::Null);
    }
    assert_eq!(h.order(&theirs)["status"], "Pending", "nothing happened to the other client's order");
    let keys =
        |list: &Value| list["items"].as_array().unwrap().iter().map(|i| i["orderKey"].as_str().unwrap().to_string()).collect::<Vec<_>>();
    assert_eq!(keys(&h.list("")), vec![mine.clone()]);
    let (a, body) = h.send_as("key-b", "GET", "/api/v1/Orders", None, b"");
    assert_eq!(a.status, 200);
    assert_eq!(keys(&body["data"]), vec![theirs.clone()]);
    let (a, _) = h.send_as("key-b", "GET", &format!("/api/v1/Orders/{theirs}"), None, b"");
    assert_eq!(a.status, 200);
    let (a, _) = h.send_as("key-b", "GET", &format!("/api/v1/Orders/{mine}"), None, b"");
    assert_eq!(a.status, 404);
    // A well-formed key of no order at all: the same 404.
    let (a, body) = h.send("GET", "/api/v1/Orders/ord_0000000000000000", None, b"");
    assert_eq!((a.status, suffix(&body).as_deref()), (404, Some("not-found")));
    // Idempotency keys are the client's own: the same key by another client is another request.
    let k = uuid(999);
    assert_eq!(h.send_as("key-a", "POST", &format!("/api/v1/Orders/{mine}/accept"), Some(&k), b"{}").0.status, 202);
    assert_eq!(h.send_as("key-b", "POST", &format!("/api/v1/Orders/{theirs}/accept"), Some(&k), b"{}").0.status, 202);
}

#[test]
fn schema_version_missing_or_unsupported_is_400() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let target = format!("/api/v1/Orders/{key}/accept");
    let api_key = h.key.clone();
    for version in [None, Some("2.0"), Some("")] {
        let idem = h.fresh_key();
        let req = Request {
            api_key: Some(&api_key),
            schema_version: version,
            idempotency_key: Some(&idem),
            content_type: Some("application/json"),
            ..bare("POST", &target, b"{}")
        };
        let (a, body) = h.request(&req);
        assert_eq!(a.status, 400, "{version:?}: {body}");
        assert_eq!(body["type"], "about:blank", "the contract shows no suffix for a 400: RFC 7807's about:blank");
        // Not executed, not cached: the same key with the version is executed.
        let (a, _) = h.send("POST", &target, Some(&idem), b"{}");
        assert_eq!(a.status, if version.is_none() { 202 } else { 409 });
    }
    // GET needs no schema version.
    let req = Request { api_key: Some(&api_key), ..bare("GET", "/api/v1/Orders", b"") };
    assert_eq!(h.request(&req).0.status, 200);
}

#[test]
fn idempotency_key_missing_is_422() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let (a, body) = h.send("POST", &format!("/api/v1/Orders/{key}/accept"), None, b"{}");
    assert_eq!(a.status, 422, "{body}");
    assert_eq!(suffix(&body).as_deref(), Some("validation"));
    assert!(body["meta"]["errors"]["Idempotency-Key"].is_array(), "{body}");
    assert_eq!(h.detail(&key)["status"], "Pending");
    let (a, _) = h.send("PUT", &format!("/api/v1/Orders/{key}/status"), None, br#"{"status":"ready"}"#);
    assert_eq!(a.status, 422);
}

#[test]
fn idempotency_replay_returns_the_cached_answer_without_re_executing() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let reject = format!("/api/v1/Orders/{key}/reject");
    let body = br#"{"reasonCode":"STORE_CLOSED"}"#;
    let k = uuid(42);
    let (first, first_body) = h.send("POST", &reject, Some(&k), body);
    assert_eq!(first.status, 202, "{first_body}");
    assert!(!first.replayed);
    let rejected = h.detail(&key);
    // An hour later, the same key and body: the cached 202, byte for byte (a re-executed reject
    // would be a 409 from Rejected, and another rejectedAt).
    h.advance(3600);
    let (again, _) = h.send("POST", &reject, Some(&k), body);
    assert_eq!(again.status, 202);
    assert_eq!(again.body, first.body);
    assert!(again.replayed);
    assert_eq!(h.detail(&key), rejected, "not re-executed");
    // A fresh key is executed: 409.
    let (fresh, _) = h.mutate("POST", &reject, body);
    assert_eq!(fresh.status, 409);

    // Errors of the state are cached too: the 409 replays as it was, even once allowed.
    let other = h.create("STORE-1");
    let status = format!("/api/v1/Orders/{other}/status");
    let k2 = uuid(43);
    let (early, early_body) = h.send("PUT", &status, Some(&k2), br#"{"status":"ready"}"#);
    assert_eq!(early.status, 409, "ready while Pending: {early_body}");
    h.accept(&other);
    let (later, _) = h.send("PUT", &status, Some(&k2), br#"{"status":"ready"}"#);
    assert_eq!((later.status, later.body.clone()), (409, early.body.clone()));
    assert_eq!(h.detail(&other)["status"], "Preparing");

    // After 24 hours the key is forgotten: executed again.
    h.advance(24 * 3600 + 1);
    let (after, _) = h.send("PUT", &status, Some(&k2), br#"{"status":"ready"}"#);
    assert_eq!(after.status, 202);
    assert!(!after.replayed);
}

#[test]
fn idempotency_key_with_another_body_is_a_conflict() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let reject = format!("/api/v1/Orders/{key}/reject");
    let k = uuid(7);
    let (a, _) = h.send("POST", &reject, Some(&k), br#"{"reasonCode":"STORE_CLOSED"}"#);
    assert_eq!(a.status, 202);
    let (b, body) = h.send("POST", &reject, Some(&k), br#"{"reasonCode":"PRICE_MISMATCH"}"#);
    assert_eq!(b.status, 422, "{body}");
    assert_eq!(suffix(&body).as_deref(), Some("idempotency-conflict"));
    // The same key on another order (another path) is another request too.
    let other = h.create("STORE-1");
    let (c, body) = h.send("POST", &format!("/api/v1/Orders/{other}/accept"), Some(&k), b"{}");
    assert_eq!(c.status, 422, "{body}");
    assert_eq!(suffix(&body).as_deref(), Some("idempotency-conflict"));
    assert_eq!(h.detail(&other)["status"], "Pending");
    // The original answer still replays.
    let (d, _) = h.send("POST", &reject, Some(&k), br#"{"reasonCode":"STORE_CLOSED"}"#);
    assert_eq!((d.status, d.body), (202, a.body));
}

#[test]
fn put_ready_after_the_driver_marked_it_ready_is_409_already_reached() {
    let mut h = harness();
    let key = h.create("STORE-1");
    h.accept(&key);
    h.advance(120);
    let out = h.control(json!({ "action": "markReadyByDriver", "orderKey": key }));
    assert!(out.deliveries.is_empty(), "no update webhook: ready is not an update event");
    let d = h.detail(&key);
    assert_eq!(d["status"], "Ready");
    // readyAt is a merchant transition timestamp; whether the driver's ready sets it is not shown.
    assert!(d["readyAt"].is_null() || d["readyAt"] == iso(h.now), "{d}");
    assert_eq!(last_row(&d)["toStatus"], "Ready");
    assert_eq!(last_row(&d)["actorType"], "driver");
    h.advance(5);
    let (a, body) = h.status(&key, r#"{"status":"ready"}"#);
    assert_eq!(a.status, 409, "{body}");
    assert_eq!(suffix(&body).as_deref(), Some("invalid-state-transition"));
    assert_eq!(body["meta"], json!({ "currentStatus": "Ready", "allowedTransitions": ["HandedOver"] }));
    let c = classify_problem(&ProblemInput { status: 409, body: a.body.clone(), ..Default::default() });
    assert!(c.already_reached && !c.terminal, "{c:?}");
    assert_eq!(h.detail(&key), d, "nothing changed");
    // Continue with handed_over.
    assert_eq!(h.status(&key, r#"{"status":"handed_over"}"#).0.status, 202);
    // PUT status preparing after accept: 409; cancelled: not accepted.
    let other = h.create("STORE-1");
    h.accept(&other);
    let (a, body) = h.status(&other, r#"{"status":"preparing"}"#);
    assert_eq!(a.status, 409, "{body}");
    assert_eq!(body["meta"], json!({ "currentStatus": "Preparing", "allowedTransitions": ["Ready"] }));
    let (a, body) = h.status(&other, r#"{"status":"cancelled"}"#);
    assert!(a.status == 422 || a.status == 409, "{body}");
    assert_eq!(h.detail(&other)["status"], "Preparing");
}

#[test]
fn accept_after_expires_at_while_still_pending_is_409_acceptance_timeout() {
    let mut h = Harness::new(None, Options { timeout_job_delay_seconds: 120, ..options() });
    let late = h.create("STORE-1");
    let in_time = h.create("STORE-1");
    let expires = T0 + 300_000;
    assert_eq!(h.sb.next_due(), Some(expires + 120_000), "the job runs 120 s after expiresAt");
    // Just before expiresAt: accepted.
    h.now = expires - 1000;
    assert_eq!(h.accept(&in_time).0.status, 202);
    // After expiresAt, the job not run yet: the order reads Pending, accept is a 409.
    h.now = expires + 1000;
    assert!(h.pump().is_empty());
    assert_eq!(h.detail(&late)["status"], "Pending");
    let (a, body) = h.accept(&late);
    assert_eq!(a.status, 409, "{body}");
    assert_eq!(suffix(&body).as_deref(), Some("acceptance-timeout"));
    assert_eq!(h.detail(&late)["status"], "Pending", "the refusal changes nothing");
    // Then the job cancels it.
    h.now = expires + 120_000;
    let got = h.pump();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].body["event"], "cancelled");
    let d = h.detail(&late);
    assert_eq!(d["status"], "Cancelled");
    assert_eq!(d["cancelledAt"], iso(expires + 120_000));
    assert_eq!(h.detail(&in_time)["status"], "Preparing");
}

#[test]
fn occurred_at_on_put_status_is_clamped_never_refused() {
    // [now − 24 h, now + 5 min]: out of range is clamped (202), never a 422; the answer's
    // changedAt is when the service recorded the change.
    for (offset_secs, label) in [(-48 * 3600, "48 h ago"), (3600, "an hour ahead"), (-600, "10 min ago"), (120, "2 min ahead")] {
        let mut h = harness();
        let key = h.create("STORE-1");
        h.accept(&key);
        h.advance(600);
        let occurred = iso(h.now + offset_secs * 1000);
        let (a, body) = h.status(&key, &format!(r#"{{"status":"ready","occurredAt":"{occurred}"}}"#));
        assert_eq!(a.status, 202, "{label}: {body}");
        assert_eq!(body["data"]["changedAt"], iso(h.now), "{label}");
        let d = h.detail(&key);
        let ready_at = d["readyAt"].as_str().unwrap().to_string();
        let clamped = iso(h.now + offset_secs.clamp(-24 * 3600, 300) * 1000);
        assert!(
            ready_at == iso(h.now) || ready_at == clamped,
            "{label}: readyAt {ready_at} is neither now nor the clamped occurredAt {clamped}"
        );
        assert!(
            ready_at.as_str() >= iso(h.now - 24 * 3_600_000).as_str() && ready_at.as_str() <= iso(h.now + 300_000).as_str(),
            "{label}: {ready_at}"
        );
    }
    // A malformed occurredAt is a 422.
    let mut h = harness();
    let key = h.create("STORE-1");
    h.accept(&key);
    let (a, body) = h.status(&key, r#"{"status":"ready","occurredAt":"yesterday"}"#);
    assert_eq!(a.status, 422, "{body}");
    assert!(body["meta"]["errors"]["occurredAt"].is_array(), "{body}");
}

#[test]
fn rate_limit_per_minute_is_100_then_429_with_retry_after() {
    let mut h = harness();
    // T0 is 20 s into its minute; the window resets on the minute.
    for i in 0..100 {
        let (a, _) = h.send("GET", "/api/v1/Orders", None, b"");
        assert_eq!(a.status, 200, "request {}", i + 1);
        if i % 10 == 9 {
            h.now += 3000;
        }
    }
    // 100 requests between T0 and T0 + 30 s; the 101st, at T0 + 30 s, 30 s before the reset.
    let (a, body) = h.send("GET", "/api/v1/Orders", None, b"");
    assert_eq!(a.status, 429, "{body}");
    assert_eq!(a.retry_after, Some(10));
    let c = classify_problem(&ProblemInput {
        status: 429,
        headers: poscheck::http::Headers::from_pairs([("Retry-After", "10")]),
        body: a.body.clone(),
        now: None,
    });
    assert!(c.retryable && c.retry_after_seconds == Some(10), "{c:?}");
    // Every endpoint counts, mutations too, and other clients are not affected.
    let (a, _) = h.mutate("POST", "/api/v1/Orders/ord_0000000000000000/accept", b"{}");
    assert_eq!(a.status, 429);
    h.now = T0 + 39_999;
    assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 429);
    h.now = T0 + 40_000;
    assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 200, "the fixed window reset on the minute");
}

#[test]
fn rate_limit_per_minute_is_per_api_key() {
    let mut h = Harness::new(Some(two_clients()), options());
    for _ in 0..100 {
        assert_eq!(h.send_as("key-a", "GET", "/api/v1/Orders", None, b"").0.status, 200);
    }
    assert_eq!(h.send_as("key-a", "GET", "/api/v1/Orders", None, b"").0.status, 429);
    assert_eq!(h.send_as("key-b", "GET", "/api/v1/Orders", None, b"").0.status, 200);
}

#[test]
fn rate_limit_per_hour_is_a_sliding_1000() {
    let mut h = harness();
    // 100 a minute for 10 minutes, starting at T0: the hour's 1,000.
    let start = T0;
    for minute in 0..10 {
        h.now = start + minute * 60_000;
        for _ in 0..100 {
            assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 200, "minute {minute}");
        }
    }
    // Minute 10 is a fresh fixed window, but the hour holds 1,000.
    h.now = start + 10 * 60_000;
    let (a, body) = h.send("GET", "/api/v1/Orders", None, b"");
    assert_eq!(a.status, 429, "{body}");
    assert_eq!(a.retry_after, Some(3000), "until the oldest request leaves the hour (T0 + 3600 s)");
    // Sliding: at T0 + 1 h the first 100 (all at T0) leave.
    h.now = start + 3_600_000 - 1;
    assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 429);
    h.now = start + 3_600_000;
    for _ in 0..100 {
        assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 200);
    }
    // The per-minute window is full again now (100 in this minute).
    assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 429);
    // The next minute (T0 + 3640 s): the hour still holds 1,000 (minutes 1 to 9 and the last
    // 100) until minute 1's requests leave at T0 + 3660 s.
    h.now = start + 3_640_000;
    let (a, _) = h.send("GET", "/api/v1/Orders", None, b"");
    assert_eq!((a.status, a.retry_after), (429, Some(20)));
    h.now = start + 3_660_000;
    assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 200);
}

#[test]
fn rate_limit_per_hour_option() {
    let mut h = Harness::new(None, Options { per_hour: 5, per_minute: 1000, ..options() });
    for i in 0..5 {
        h.now = T0 + i * 600_000;
        assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 200);
    }
    h.now = T0 + 2_700_000;
    let (a, _) = h.send("GET", "/api/v1/Orders", None, b"");
    assert_eq!(a.status, 429);
    assert_eq!(a.retry_after, Some(900), "the oldest (T0) leaves the hour at T0 + 3600 s");
    // The 429 at T0 + 2700 s is not a request the hour counts (assumed; not shown): at T0 + 3600 s
    // the hour holds the four from T0 + 600 s on.
    h.now = T0 + 3_600_000;
    assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 200);
    assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 429, "the one at T0 + 600 s is still in the hour");
    // And with rate limits off, nothing is counted.
    let mut h = Harness::new(None, Options { rate_limits: false, per_hour: 5, ..options() });
    for _ in 0..200 {
        assert_eq!(h.send("GET", "/api/v1/Orders", None, b"").0.status, 200);
    }
}

fn list_keys(list: &Value) -> Vec<String> {
    list["items"].as_array().unwrap().iter().map(|i| i["orderKey"].as_str().unwrap().to_string()).collect()
}

#[test]
fn list_is_newest_number_first_with_cursor_paging_and_status_filter() {
    let mut h = Harness::new(None, Options { rate_limits: false, ..options() });
    // Five orders, placed with a clock that goes back and forth: the list sorts by order number
    // (the creation sequence), not by receivedAt.
    let offsets = [50_000, 0, 40_000, 10_000, 20_000];
    let mut keys = Vec::new();
    for off in offsets {
        h.now = T0 + off;
        keys.push(h.create("STORE-1"));
    }
    h.now = T0 + 60_000;
    let newest_first: Vec<String> = keys.iter().rev().cloned().collect();
    let all = h.list("");
    assert_eq!(list_keys(&all), newest_first);
    assert_eq!(all["hasMore"], false);
    assert_eq!(all["nextCursor"], Value::Null);
    let received: Vec<String> = all["items"].as_array().unwrap().iter().map(|i| i["receivedAt"].as_str().unwrap().to_string()).collect();
    assert_eq!(received, offsets.iter().rev().map(|o| iso(T0 + o)).collect::<Vec<_>>());

    // Paging by 2: [5, 4], [3, 2], [1].
    let mut pages = Vec::new();
    let mut query = "?PageSize=2".to_string();
    loop {
        let page = h.list(&query);
        pages.push(list_keys(&page));
        if page["hasMore"] == false {
            assert_eq!(page["nextCursor"], Value::Null, "null on the last page");
            break;
        }
        let cursor = page["nextCursor"].as_str().expect("a cursor while hasMore").to_string();
        query = format!("?PageSize=2&Cursor={cursor}");
        assert!(pages.len() < 10);
    }
    assert_eq!(pages, [newest_first[0..2].to_vec(), newest_first[2..4].to_vec(), newest_first[4..5].to_vec()]);
    // A page size equal to what is left: the last page, no cursor.
    let page = h.list("?PageSize=5");
    assert_eq!((page["hasMore"].clone(), page["nextCursor"].clone()), (json!(false), Value::Null));
    let page = h.list("?PageSize=4");
    assert_eq!(page["hasMore"], true);
    let page = h.list(&format!("?PageSize=4&Cursor={}", page["nextCursor"].as_str().unwrap()));
    assert_eq!(list_keys(&page), [keys[0].clone()]);

    // Status filter: accept two, reject one.
    h.accept(&keys[1]);
    h.accept(&keys[3]);
    h.reject(&keys[4], r#"{"reasonCode":"STORE_CLOSED"}"#);
    assert_eq!(list_keys(&h.list("?Status=Preparing")), [keys[3].clone(), keys[1].clone()]);
    assert_eq!(list_keys(&h.list("?Status=Pending")), [keys[2].clone(), keys[0].clone()]);
    assert_eq!(list_keys(&h.list("?Status=Rejected")), [keys[4].clone()]);
    assert!(list_keys(&h.list("?Status=Cancelled")).is_empty());
    let page = h.list("?Status=Pending&PageSize=1");
    assert_eq!((list_keys(&page), page["hasMore"].clone()), (vec![keys[2].clone()], json!(true)));
    let page = h.list(&format!("?Status=Pending&PageSize=1&Cursor={}", page["nextCursor"].as_str().unwrap()));
    assert_eq!((list_keys(&page), page["hasMore"].clone(), page["nextCursor"].clone()), (vec![keys[0].clone()], json!(false), Value::Null));
    // The items carry the list fields.
    let item = h.list("?Status=Rejected")["items"][0].clone();
    assert_eq!(item["acceptedAt"], Value::Null, "null if rejected");
    assert_eq!(item["status"], "Rejected");

    // The default page size is 20; at most 100.
    for _ in 0..20 {
        h.create("STORE-2");
    }
    let page = h.list("");
    assert_eq!((page["items"].as_array().unwrap().len(), page["hasMore"].clone()), (20, json!(true)));
    assert_eq!(h.list("?PageSize=100")["items"].as_array().unwrap().len(), 25);
    for bad in ["?PageSize=101", "?PageSize=1000", "?Status=DriverAssigned", "?Status=pending"] {
        let (a, body) = h.send("GET", &format!("/api/v1/Orders{bad}"), None, b"");
        assert_eq!(a.status, 422, "{bad}: {body}");
        assert_eq!(suffix(&body).as_deref(), Some("validation"), "{bad}");
    }
    let (a, body) = h.send("GET", "/api/v1/Orders?PageSize=101", None, b"");
    assert!(body["meta"]["errors"]["PageSize"].is_array(), "{body}");
    assert_eq!(a.status, 422);
    // A cursor never built by hand.
    let (a, body) = h.send("GET", "/api/v1/Orders?Cursor=12", None, b"");
    assert_eq!(a.status, 422, "{body}");
}

#[test]
fn list_filters_by_received_dates() {
    let mut h = Harness::new(None, Options { rate_limits: false, ..options() });
    let mut keys = Vec::new();
    for i in 0..4 {
        h.now = T0 + i * 3_600_000;
        keys.push(h.create("STORE-1"));
    }
    let from = iso(T0 + 3_600_000);
    let to = iso(T0 + 2 * 3_600_000);
    assert_eq!(list_keys(&h.list(&format!("?FromDate={from}&ToDate={to}"))), [keys[2].clone(), keys[1].clone()]);
    assert_eq!(list_keys(&h.list(&format!("?FromDate={}", iso(T0 + 3 * 3_600_000)))), [keys[3].clone()]);
}

// ---------------------------------------------------------------------------------------------
// Determinism and state.

/// One REST call of the scripted run, logged.
fn logged_call(sb: &mut Service, log: &mut Vec<String>, now: i64, method: &str, target: String, idem: Option<String>, body: &[u8]) {
    let api = sb.config().clients[0].api_key.clone();
    let req = Request {
        method,
        target: &target,
        api_key: Some(&api),
        schema_version: Some("1.0"),
        idempotency_key: idem.as_deref(),
        content_type: Some("application/json"),
        body,
    };
    let a = sb.handle(&req, now);
    log.push(serde_json::to_string(&a).unwrap());
}

/// A scripted run of steps `from..to`: every answer, attempt and settlement, serialized.
fn script(sb: &mut Service, from: usize, to: usize, log: &mut Vec<String>) {
    let mut keys: Vec<String> = sb.orders().iter().map(|o| o.order.order_key.clone()).collect();
    for step in from..to {
        let now = T0 + step as i64 * 7_000;
        match step % 9 {
            0 | 5 => {
                let store = if step % 2 == 0 { "STORE-1" } else { "STORE-2" };
                let out = sb.control_json(&json!({ "action": "createOrder", "store": store }).to_string(), now).unwrap();
                keys.push(out.order.unwrap().order_key);
                log.push(serde_json::to_string(&out.deliveries).unwrap());
            }
            1 => {
                logged_call(sb, log, now, "POST", format!("/api/v1/Orders/{}/accept", keys[keys.len() - 1]), Some(uuid(step as u64)), b"{}")
            }
            2 => logged_call(
                sb,
                log,
                now,
                "PUT",
                format!("/api/v1/Orders/{}/status", keys[keys.len() - 1]),
                Some(uuid(step as u64 % 4)),
                br#"{"status":"ready"}"#,
            ),
            3 => {
                let r = sb.control_json(&json!({ "action": "assignDriver", "orderKey": keys[keys.len() / 2] }).to_string(), now);
                log.push(format!("{:?}", r.map(|o| o.deliveries)));
            }
            4 => logged_call(sb, log, now, "GET", format!("/api/v1/Orders/{}", keys[0]), None, b""),
            6 => logged_call(
                sb,
                log,
                now,
                "POST",
                format!("/api/v1/Orders/{}/reject", keys[keys.len() - 1]),
                Some(uuid(9)),
                br#"{"reasonCode":"X"}"#,
            ),
            7 => logged_call(sb, log, now, "GET", "/api/v1/Orders?PageSize=2".into(), None, b""),
            _ => {
                let r = sb.control_json(&json!({ "action": "cancel", "orderKey": keys[step % keys.len()] }).to_string(), now);
                log.push(format!("{:?}", r.map(|o| o.deliveries)));
            }
        }
        // The face pumps late now and then (up to 2 minutes).
        let pumped = now + 60_000 * (step as i64 % 3);
        let attempts = sb.due(pumped, pumped / 1000);
        for (i, a) in attempts.iter().enumerate() {
            log.push(serde_json::to_string(a).unwrap());
            let status = if (step + i) % 3 == 0 { 500 } else { 200 };
            let s = sb.answered(a.attempt, status, format!(r#"{{"remoteOrderId":"R-{step}-{i}"}}"#).as_bytes(), 5, pumped);
            log.push(serde_json::to_string(&s).unwrap());
        }
        log.push(format!("{:?}", sb.next_due()));
    }
}

#[test]
fn same_seed_same_inputs_same_bytes() {
    let run = |seed: u64| {
        let mut sb = Service::new(None, options(), seed).unwrap();
        let mut log = Vec::new();
        script(&mut sb, 0, 60, &mut log);
        (log, sb.export_state())
    };
    let (a, state_a) = run(11);
    let (b, state_b) = run(11);
    assert!(a.len() > 100);
    assert_eq!(a, b);
    assert_eq!(state_a, state_b);
    let (c, state_c) = run(12);
    assert_ne!(a, c, "the seed draws the ids");
    assert_ne!(state_a, state_c);
}

#[test]
fn import_of_the_export_continues_identically() {
    let mut sb = Service::new(None, options(), 5).unwrap();
    let mut log = Vec::new();
    script(&mut sb, 0, 30, &mut log);
    let state = sb.export_state();
    let mut copy = Service::import_state(&state).unwrap();
    assert_eq!(copy.export_state(), state);
    let (mut rest_a, mut rest_b) = (Vec::new(), Vec::new());
    script(&mut sb, 30, 70, &mut rest_a);
    script(&mut copy, 30, 70, &mut rest_b);
    assert!(rest_a.len() > 60);
    assert_eq!(rest_a, rest_b);
    assert_eq!(sb.export_state(), copy.export_state());
    // And a run without the export in the middle reads the same.
    let mut whole = Service::new(None, options(), 5).unwrap();
    let mut whole_log = Vec::new();
    script(&mut whole, 0, 70, &mut whole_log);
    assert_eq!(whole_log[log.len()..], rest_a[..]);
    assert!(Service::import_state("{").is_err());
    assert!(Service::import_state("null").is_err());
}

#[test]
fn an_attempt_in_flight_at_export_is_sent_again_after_import() {
    let mut h = harness();
    let key = h.place("STORE-1");
    let attempts = h.sb.due(h.now, h.now / 1000);
    assert_eq!(attempts.len(), 1);
    let mut copy = Service::import_state(&h.sb.export_state()).unwrap();
    let again = copy.due(h.now + 1000, h.now / 1000 + 1);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].delivery_id, attempts[0].delivery_id);
    assert_eq!(again[0].body, attempts[0].body);
    assert_ne!(again[0].attempt, attempts[0].attempt);
    // The answer to the attempt sent before the export is not the copy's to settle.
    assert!(copy.answered(attempts[0].attempt, 200, br#"{"remoteOrderId":"X"}"#, 5, h.now).is_none());
    copy.answered(again[0].attempt, 200, br#"{"remoteOrderId":"R-9"}"#, 5, h.now + 1000).unwrap();
    assert_eq!(copy.order(&key).unwrap().order.remote_order_id.as_deref(), Some("R-9"));
}

#[test]
fn reset_forgets_everything_but_the_account() {
    let mut h = harness();
    let fresh = h.sb.export_state();
    let key = h.create("STORE-1");
    h.accept(&key);
    let config = h.sb.config().clone();
    h.sb.reset();
    assert_eq!(h.sb.config(), &config);
    assert!(h.sb.orders().is_empty() && h.sb.deliveries().next().is_none() && h.sb.next_due().is_none());
    assert_eq!(h.sb.export_state(), fresh, "as new: the ids start again from the seed");
    assert_eq!(h.list("")["items"], json!([]));
    assert_eq!(h.create("STORE-1"), key, "the same seed draws the same first orderKey");
    assert_eq!(h.detail(&key)["status"], "Pending");
}

// ---------------------------------------------------------------------------------------------
// Hostile input.

fn assert_4xx_problem(answer: &poscheck::service::Answer, what: &str) {
    assert!((400..500).contains(&answer.status), "{what}: status {}", answer.status);
    assert!(answer.problem, "{what}");
    let body: Value = serde_json::from_slice(&answer.body).unwrap_or_else(|e| panic!("{what}: not JSON: {e}"));
    assert_eq!(body["status"], Value::from(answer.status), "{what}");
    assert!(body["title"].is_string(), "{what}");
    assert!(answer.body.len() < 16 * 1024, "{what}: a bounded problem body ({} bytes)", answer.body.len());
}

#[test]
fn hostile_requests_are_4xx_problems() {
    let mut h = Harness::new(None, Options { rate_limits: false, ..options() });
    let key = h.create("STORE-1");
    let api = h.key.clone();
    let accept = format!("/api/v1/Orders/{key}/accept");
    let status = format!("/api/v1/Orders/{key}/status");
    let reject = format!("/api/v1/Orders/{key}/reject");
    let deep_object = format!("{}{}", "{\"a\":".repeat(100_000), "}".repeat(100_000)).into_bytes();
    let deep_array = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).into_bytes();
    let mut unterminated = br#"{"status":"ready","x":""#.to_vec();
    unterminated.extend(std::iter::repeat_n(b'a', 1 << 20));
    let megabyte_junk = vec![b'x'; 1 << 20];
    let megabyte = |head: &str, fill: u8, tail: &str| {
        let mut v = head.as_bytes().to_vec();
        v.extend(std::iter::repeat_n(fill, 1 << 20));
        v.extend(tail.as_bytes());
        v
    };
    // Bodies no endpoint can take (not JSON, not an object, too deep).
    let for_all: Vec<(&str, Vec<u8>)> = vec![
        ("deep object", deep_object),
        ("deep array", deep_array),
        ("1 MB of x", megabyte_junk),
        ("1 MB unterminated string", unterminated),
        ("invalid UTF-8", b"{\"status\":\"\xff\xfe\xc0\xaf\"}".to_vec()),
        ("NUL in a string", b"{\"status\":\"ready\0\"}".to_vec()),
        ("NUL bytes", vec![0; 4096]),
        ("lone surrogate", br#""\ud800""#.to_vec()),
        ("truncated", br#"{"status":"rea"#.to_vec()),
        ("1 MB array", megabyte("[", b'1', "]")),
    ];
    // 1 MB of JSON that breaks each endpoint's body.
    let for_one: Vec<(&str, &String, Vec<u8>)> = vec![
        ("1 MB remoteOrderId on accept", &accept, megabyte(r#"{"remoteOrderId":""#, b'r', r#""}"#)),
        ("1 MB reasonCode number on reject", &reject, megabyte(r#"{"reasonCode":"#, b'1', "}")),
        ("1 MB status value", &status, megabyte(r#"{"status":""#, b's', r#""}"#)),
    ];
    let mut cases: Vec<(&str, &String, &[u8])> = Vec::new();
    for (what, body) in &for_all {
        for target in [&accept, &status, &reject] {
            cases.push((what, target, body));
        }
    }
    cases.extend(for_one.iter().map(|(what, target, body)| (*what, *target, body.as_slice())));
    for (what, target, body) in cases {
        let idem = h.fresh_key();
        let req = Request {
            method: if target == &status { "PUT" } else { "POST" },
            target,
            api_key: Some(&api),
            schema_version: Some("1.0"),
            idempotency_key: Some(&idem),
            content_type: Some("application/json"),
            body,
        };
        let a = h.sb.handle(&req, h.now);
        assert_4xx_problem(&a, &format!("{what} to {target}"));
    }
    // Hostile targets, methods and headers.
    let long_target = format!("/api/v1/Orders/{}", "a".repeat(1 << 20));
    let nul_target = format!("/api/v1/Orders/{key}\0/accept");
    let targets = [
        "",
        "/",
        "*",
        "http://[::1",
        "/api/v1/Orders/%",
        "/api/v1/Orders/%ff%fe",
        "/api/v1/Orders/ord_%00%00",
        "/api/v1/orders",
        "/api/v1/Orders/../Orders",
        "/api/v1/Orders?Cursor=%ff",
        "/api/v1/Orders?Cursor=czzzzzzzzzzzzzzzzzzzzzz",
        "/api/v1/Orders?Status=%00",
        "/api/v1/Orders?FromDate=9999999-01-01T00:00:00Z",
        "/api/v1/Orders/ord_0000000000000000/status",
        &long_target,
        &nul_target,
        "/api/v1/menu/stores/STORE-999",
        "/api/v1/menu/changes/chg_0000000000000000",
        "/api/v1/Orders/\u{1F600}",
    ];
    for target in targets {
        for method in ["GET", "POST", "PUT", "DELETE", "get", "", "\0", "P\u{e9}ST"] {
            for api_key in [Some(api.as_str()), Some("\0"), None, Some("\u{202e}")] {
                let idem = h.fresh_key();
                let req = Request {
                    method,
                    target,
                    api_key,
                    schema_version: Some("1.0"),
                    idempotency_key: Some(&idem),
                    content_type: Some("application/json"),
                    body: b"{}",
                };
                let a = h.sb.handle(&req, h.now);
                assert_4xx_problem(&a, &format!("{method:?} {:?} {api_key:?}", target.chars().take(60).collect::<String>()));
            }
        }
    }
    let weird_headers = ["\0", "1.0\0", "\u{feff}1.0", &"9".repeat(1 << 20)];
    for v in weird_headers {
        let req = Request {
            method: "POST",
            target: &accept,
            api_key: Some(&api),
            schema_version: Some(v),
            idempotency_key: Some(v),
            content_type: Some(v),
            body: b"{}",
        };
        let a = h.sb.handle(&req, h.now);
        assert_4xx_problem(&a, &format!("headers {:?}", v.chars().take(20).collect::<String>()));
    }
    // The order is untouched by all of it.
    assert_eq!(h.order(&key)["status"], "Pending");
    // Extreme clocks.
    for now in [i64::MIN, -1, 0, i64::MAX] {
        let req = Request { method: "GET", target: "/api/v1/Orders", api_key: Some("nope"), ..Default::default() };
        assert_4xx_problem(&h.sb.handle(&req, now), &format!("now {now}"));
        let _ = h.sb.due(now, now);
        let _ = h.sb.next_due();
    }
}

#[test]
fn hostile_controls_are_errors() {
    let mut h = harness();
    let key = h.create("STORE-1");
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let deep_in_field = format!(r#"{{"action":"createOrder","items":{}{}}}"#, "[".repeat(100_000), "]".repeat(100_000));
    let huge = format!(r#"{{"action":"createOrder","customerNote":"{}"}}"#, "a".repeat(2 << 20));
    let many_items =
        json!({ "action": "createOrder", "items": (0..201).map(|i| json!({ "remoteCode": format!("P-{i}") })).collect::<Vec<_>>() })
            .to_string();
    let cases: Vec<String> = vec![
        "".into(),
        "null".into(),
        "{}".into(),
        "[]".into(),
        "\0".into(),
        "\u{feff}{}".into(),
        r#"{"action":"nope"}"#.into(),
        r#"{"action":"createOrder","extra":1}"#.into(),
        r#"{"action":"createOrder","store":"NOPE"}"#.into(),
        r#"{"action":"createOrder","type":"drone"}"#.into(),
        r#"{"action":"createOrder","payment":"gold"}"#.into(),
        r#"{"action":"createOrder","items":[]}"#.into(),
        r#"{"action":"createOrder","items":[{"remoteCode":"has space"}]}"#.into(),
        r#"{"action":"createOrder","items":[{"remoteCode":"A","quantity":0}]}"#.into(),
        r#"{"action":"createOrder","items":[{"remoteCode":"A","quantity":-9223372036854775808}]}"#.into(),
        r#"{"action":"createOrder","items":[{"remoteCode":"A","unitPrice":1e308}]}"#.into(),
        r#"{"action":"createOrder","items":[{"remoteCode":"A","unitPrice":-0.01}]}"#.into(),
        r#"{"action":"createOrder","items":[{"remoteCode":""}]}"#.into(),
        r#"{"action":"assignDriver"}"#.into(),
        r#"{"action":"assignDriver","orderKey":"ord_0000000000000000"}"#.into(),
        r#"{"action":"assignDriver","orderKey":7}"#.into(),
        r#"{"action":"releaseDriver","orderKey":"nope"}"#.into(),
        format!(r#"{{"action":"releaseDriver","orderKey":"{key}"}}"#),
        format!(r#"{{"action":"markReadyByDriver","orderKey":"{key}"}}"#),
        format!(r#"{{"action":"deliver","orderKey":"{key}"}}"#),
        format!(r#"{{"action":"refund","orderKey":"{key}"}}"#),
        format!(r#"{{"action":"cancel","orderKey":"{key}","by":"driver"}}"#),
        format!(r#"{{"action":"cancel","orderKey":"{key}\u0000"}}"#),
        deep,
        deep_in_field,
        huge,
        many_items,
    ];
    for text in &cases {
        let before = h.sb.export_state();
        let r = h.sb.control_json(text, h.now);
        let shown: String = text.chars().take(80).collect();
        let e = r.err().unwrap_or_else(|| panic!("{shown:?} was carried out"));
        assert!(["INVALID_CONTROL", "NOT_FOUND", "NOT_APPLICABLE", "LIMIT"].contains(&e.code()), "{shown:?}: {e}");
        assert!(e.to_string().len() < 4096, "{shown:?}: a bounded message");
        assert_eq!(h.sb.export_state(), before, "{shown:?}: a refused control changes nothing");
    }
    let bytes: Vec<u8> = (0..=255u8).cycle().take(10_000).collect();
    assert!(h.sb.control_json(&String::from_utf8_lossy(&bytes), h.now).is_err());
    assert_eq!(h.order(&key)["status"], "Pending");
    // Answers reported for attempts never sent.
    assert!(h.sb.answered(u64::MAX, 200, &[0xff; 100], u64::MAX, i64::MIN).is_none());
}

#[test]
fn the_order_limit_is_enforced() {
    let mut h = Harness::new(None, Options { max_orders: 3, ..options() });
    for _ in 0..3 {
        h.place("STORE-1");
    }
    let e = h.sb.control_json(r#"{"action":"createOrder"}"#, h.now).unwrap_err();
    assert_eq!(e.code(), "LIMIT");
}

#[test]
fn configs_that_break_onboarding_are_refused() {
    let bad = [
        r#"{"secret":""}"#,
        r#"{"pos":"ftp://x"}"#,
        r#"{"clients":[]}"#,
        r#"{"clients":[{"apiKey":"k","stores":[]}]}"#,
        r#"{"clients":[{"apiKey":"k","stores":[{"remoteId":"A"}]},{"apiKey":"k","stores":[{"remoteId":"B"}]}]}"#,
        r#"{"clients":[{"stores":[{"remoteId":"A"},{"remoteId":"A"}]}]}"#,
        r#"{"clients":[{"stores":[{"remoteId":"has space"}]}]}"#,
        r#"{"clients":[{"stores":[{"remoteId":"A","storeId":1},{"remoteId":"B","storeId":1}]}]}"#,
        r#"{"unknown":1}"#,
        "[",
    ];
    for text in bad {
        let e = Service::from_json(text, "", 1).unwrap_err();
        assert_eq!(e.code(), "INVALID_CONFIG", "{text}");
    }
    for options in [
        r#"{"acceptanceWindowSeconds":0}"#,
        r#"{"retryScheduleSeconds":[-1]}"#,
        r#"{"faults":{"badGateway":2}}"#,
        r#"{"perMinute":0}"#,
        r#"{"nope":1}"#,
    ] {
        assert!(Service::from_json("", options, 1).is_err(), "{options}");
    }
    let sb = Service::from_json("null", "null", 1).unwrap();
    assert_eq!(
        sb.config().clients[0].stores.iter().map(|s| (s.remote_id.as_str(), s.auto_accept)).collect::<Vec<_>>(),
        [("STORE-1", false), ("STORE-2", true)]
    );
}

#[test]
fn injected_faults_answer_retryable_problems_and_change_nothing() {
    let mut h = harness();
    let key = h.create("STORE-1");
    h.sb.set_faults(poscheck::service::Faults { unavailable: 1.0, path_prefix: Some("/api/v1/Orders".into()), ..Default::default() })
        .unwrap();
    let k = h.fresh_key();
    let (a, _) = h.send("POST", &format!("/api/v1/Orders/{key}/accept"), Some(&k), b"{}");
    assert_eq!(a.status, 503);
    assert_eq!(h.order(&key)["status"], "Pending");
    h.sb.set_faults(poscheck::service::Faults { rate_limited: 1.0, retry_after_seconds: Some(7), ..Default::default() }).unwrap();
    let (a, _) = h.send("POST", &format!("/api/v1/Orders/{key}/accept"), Some(&k), b"{}");
    assert_eq!((a.status, a.retry_after), (429, Some(7)));
    assert!(h.sb.set_faults(poscheck::service::Faults { slow: 2.0, ..Default::default() }).is_err());
    h.sb.set_faults(Default::default()).unwrap();
    // The retry with the same Idempotency-Key goes through.
    let (a, _) = h.send("POST", &format!("/api/v1/Orders/{key}/accept"), Some(&k), b"{}");
    assert_eq!(a.status, 202);
}

#[test]
fn page_size_above_100_is_422_however_many_digits() {
    let mut h = harness();
    for size in ["101", "4294967297", "18446744073709551617", "99999999999999999999999"] {
        let (a, body) = h.send("GET", &format!("/api/v1/Orders?PageSize={size}"), None, b"");
        assert_eq!(a.status, 422, "PageSize={size}: {body}");
    }
}

#[test]
fn a_creation_delivered_by_a_redelivered_copy_is_not_retried() {
    let mut h = harness();
    let key = h.place("STORE-1");
    let wall = h.now / 1000;
    let first = h.sb.due(h.now, wall);
    assert_eq!(first.len(), 1);
    // While the first attempt is still in flight, a copy is sent and answered 200.
    let copy = h.sb.redeliver(&first[0].delivery_id, 1, wall).unwrap();
    let s = h.sb.answered(copy[0].attempt, 200, br#"{"remoteOrderId":"R-7"}"#, 10, h.now).unwrap();
    assert!(s.ok);
    assert_eq!(h.order(&key)["remoteOrderId"], "R-7");
    // Then the first attempt times out: the delivery is delivered, nothing is retried.
    h.advance(31);
    let s = h.sb.answered(first[0].attempt, 0, b"", 31_000, h.now).unwrap();
    assert_eq!(s.retry_at_ms, None, "{s:?}");
    assert!(!s.exhausted);
    assert_eq!(h.sb.delivery(&first[0].delivery_id).unwrap().state, DeliveryState::Delivered);
    h.advance(600);
    let again: Vec<_> = h.sb.due(h.now, h.now / 1000).into_iter().filter(|a| a.kind == DeliveryKind::OrderCreated).collect();
    assert!(again.is_empty(), "a delivered creation is sent again: {again:?}");
}

/// The probe's knobs (issue 28): an order accepted by the service at a store that accepts by
/// hand, and a driver who marks it ready the moment the POS accepts; the 502s and 503s limited to
/// the menu endpoints, as the contract gives them.
#[test]
fn create_order_knobs_and_server_errors_on_menu_paths_only() {
    let mut h = harness();
    let out = h.control(serde_json::json!({ "action": "createOrder", "store": "STORE-1", "autoAccept": true }));
    let auto = out.order.unwrap().order_key;
    let got = h.pump();
    assert_eq!(got[0].body["expiresAt"], Value::Null, "accepted by the service: no expiresAt");
    assert_eq!(h.detail(&auto)["status"], "Preparing", "STORE-1 accepts by hand, this order did not need to");

    let out = h.control(serde_json::json!({ "action": "createOrder", "store": "STORE-1", "readyByDriverOnAccept": true }));
    let key = out.order.unwrap().order_key;
    h.pump();
    assert_eq!(h.detail(&key)["status"], "Pending");
    let (a, body) = h.accept(&key);
    assert_eq!(a.status, 202, "{body}");
    assert_eq!(body["data"]["status"], "Preparing", "the accept's answer says what it did");
    assert_eq!(statuses(&h.detail(&key)), ["Pending", "Preparing", "Ready"]);
    let (a, body) = h.status(&key, r#"{"status":"ready"}"#);
    assert_eq!((a.status, body["meta"]["currentStatus"].as_str()), (409, Some("Ready")));
    let (a, _) = h.status(&key, r#"{"status":"handed_over"}"#);
    assert_eq!(a.status, 202);
    assert!(h.sb.control_json(r#"{"action":"createOrder","readyByDriverOnAccept":"yes"}"#, h.now).is_err());

    h.sb.set_faults(poscheck::service::Faults {
        unavailable: 1.0,
        server_errors_prefix: Some("/api/v1/menu".into()),
        ..Default::default()
    })
    .unwrap();
    let (a, _) = h.send("GET", "/api/v1/Orders", None, b"");
    assert_eq!(a.status, 200, "no 503 on an order endpoint");
    let (a, _) = h.send("GET", "/api/v1/menu/capabilities", None, b"");
    assert_eq!(a.status, 503);
}
