//! The receiver core (src/receiver.rs) over the signature vectors of Python `hmac` and the payload
//! fixtures: the same checks natively (tests/receiver.rs) and in wasm (tests/wasm.rs).

use super::{b64, fixture, SIGNATURE_VECTORS};
use poscheck::receiver::{receive, route, Receipt, RouteId, Routing};
use poscheck::signature::{sign, Headers};
use serde_json::Value;

fn matched(method: &str, path: &str) -> poscheck::receiver::Route {
    match route(method, path, "") {
        Routing::Matched { route } => route,
        other => panic!("{method} {path}: {other:?}"),
    }
}

/// Every vector on the update route: a valid signature is never rejected (handled, or answered
/// 200 without the handler when the body is no OrderUpdateEvent); every failure is a 401 with the
/// vector's code.
pub fn check_receiver_vectors() {
    let doc: Value = serde_json::from_str(SIGNATURE_VECTORS).unwrap();
    let r = matched("PUT", "/v1/order/STORE-1/R-1001/events");
    let mut checked = 0;
    for case in doc["verify"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let body = b64(case["bodyBase64"].as_str().unwrap());
        let headers =
            Headers::from_pairs(case["headers"].as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string())));
        let secrets: Vec<&[u8]> = case["secrets"].as_array().unwrap().iter().map(|s| s.as_str().unwrap().as_bytes()).collect();
        let tolerance = case.get("toleranceSeconds").and_then(Value::as_u64).unwrap_or(300);
        let receipt = receive(&r, &body, &headers, &secrets, case["now"].as_u64().unwrap(), tolerance);
        match (case["expect"].as_str().unwrap(), receipt) {
            ("valid", Receipt::Handle { delivery, report }) => {
                assert!(report.ok, "{name}");
                assert_eq!(delivery.delivery_id.as_deref(), Some("6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10"), "{name}");
            }
            ("valid", Receipt::Ignore { answer, reason, .. }) => {
                assert_eq!((answer.status, reason), (200, "invalid-payload"), "{name}");
            }
            (code, Receipt::Reject { answer }) => {
                assert_eq!((answer.status, answer.code), (401, code), "{name}");
            }
            (expect, other) => panic!("{name}: expected {expect}, got {other:?}"),
        }
        checked += 1;
    }
    assert!(checked >= 25);
}

/// The payload fixtures on their routes: valid ones are handled; the update route answers 200 to
/// unknown events and broken payloads; a broken creation payload is refused (no 200).
pub fn check_receiver_payloads() {
    let now = 1_786_492_800;
    let secret = b"whsec_receiver";
    let headers = |body: &[u8]| {
        Headers::from_pairs([("X-Service-Timestamp", now.to_string()), ("X-Service-Signature-256", sign(secret, now, body).unwrap())])
    };
    let cases: &[(&str, &str, &str, &str)] = &[
        ("POST", "/v1/order/STORE-1", "payload/order-created.delivery.valid.json", "handle"),
        ("POST", "/v1/order/STORE-1", "payload/order-created.pickup.valid.json", "handle"),
        ("POST", "/v1/order/STORE-1", "payload/order-items-field-type.broken.json", "refuse"),
        // The orderKey beside the data.order fields (where the sandbox puts it) is accepted, in its stated format.
        ("POST", "/v1/order/STORE-1", "payload/order-created.order-key.valid.json", "handle"),
        ("POST", "/v1/order/STORE-1", "payload/order-created-order-key-format.broken.json", "refuse"),
        ("PUT", "/v1/order/STORE-1/R-1/events", "payload/order-update-event.delivered.valid.json", "handle"),
        ("PUT", "/v1/order/STORE-1/R-1/events", "payload/order-update-event.driver-released.valid.json", "handle"),
        ("PUT", "/v1/order/STORE-1/R-1/events", "payload/order-update-unknown-event.json", "ignore"),
        ("PUT", "/v1/order/STORE-1/R-1/events", "payload/order-update-field-missing-for-event.broken.json", "ignore"),
        ("POST", "/v1/menu/change/chg_ZZZZZZZZZZZZZZZZ", "payload/menu-change-completed.valid.json", "ignore"),
    ];
    for (method, path, file, expect) in cases {
        let body = fixture(file);
        let r = matched(method, path);
        let got = match receive(&r, body, &headers(body), &[secret], now, 300) {
            Receipt::Handle { .. } => "handle",
            Receipt::Ignore { answer, .. } => {
                assert_eq!(answer.status, 200, "{file}");
                "ignore"
            }
            Receipt::Refuse { answer, .. } => {
                assert_eq!(answer.status, 422, "{file}");
                "refuse"
            }
            Receipt::Reject { answer } => panic!("{file}: rejected {answer:?}"),
        };
        assert_eq!(got, *expect, "{file}");
    }
    // The menu change fixture on its own changeKey is handled.
    let body = fixture("payload/menu-change-completed.valid.json");
    let key: Value = serde_json::from_slice(body).unwrap();
    let r = matched("POST", &format!("/v1/menu/change/{}", key["changeKey"].as_str().unwrap()));
    assert_eq!(r.id, RouteId::MenuChangeCompleted);
    assert!(matches!(receive(&r, body, &headers(body), &[secret], now, 300), Receipt::Handle { .. }));
}
