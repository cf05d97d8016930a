use super::*;
use crate::http::Headers;

fn creation() -> Exchange {
    let mut e = Exchange {
        method: "POST".into(),
        url: "http://127.0.0.1:9/v1/order/STORE-1".into(),
        body: r#"{"orderKey":"ord_abcdefghijklmnop","note":"a, b: {c}","amount":0.0,"items":[{"q":1}]}"#.into(),
        ..Exchange::default()
    };
    e.headers.insert("X-Service-Event-Type".into(), "order.created".into());
    e.headers.insert("X-Service-Delivery-Id".into(), "11111111-1111-4111-8111-111111111111".into());
    e
}

/// The toolkit's own verifier (its vectors come from Python's hmac: tests/fixtures/signature).
fn verifies(e: &Exchange, secret: &[u8], now: u64) -> bool {
    let headers = Headers::from_pairs(e.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    crate::signature::verify(e.body.as_bytes(), &headers, &[secret], now, 300).is_ok()
}

#[test]
fn each_variant_breaks_exactly_what_it_names() {
    let secret = b"whsec_test_secret_0123456789";
    let now = 1_790_000_000;
    let mut ids = Ids::new(7);
    let g = creation();
    let fresh = make(Variant::FreshOrder, &g, secret, now, &mut ids).unwrap();
    assert!(verifies(&fresh, secret, now));
    assert_ne!(fresh.headers[DELIVERY_ID], g.headers[DELIVERY_ID]);
    assert_ne!(order_key_of(&fresh.body), order_key_of(&g.body));
    assert_eq!(fresh.headers["X-Service-Event-Type"], "order.created");

    let t = make(Variant::TamperedBody, &g, secret, now, &mut ids).unwrap();
    assert!(!verifies(&t, secret, now));
    let signed_body_differs = t.body.bytes().zip(fresh.body.bytes()).filter(|(a, b)| a != b).count();
    assert!(signed_body_differs >= 1);
    assert!(serde_json::from_str::<Value>(&t.body).is_ok(), "still JSON");

    assert!(!verifies(&make(Variant::WrongSecret, &g, secret, now, &mut ids).unwrap(), secret, now));
    let old = make(Variant::TimestampOld, &g, secret, now, &mut ids).unwrap();
    assert_eq!(old.headers[TIMESTAMP], (now - 330).to_string());
    assert!(verifies(&old, secret, now - 330) && !verifies(&old, secret, now));
    let ahead = make(Variant::TimestampAhead, &g, secret, now, &mut ids).unwrap();
    assert!(verifies(&ahead, secret, now + 330) && !verifies(&ahead, secret, now));
    assert!(!make(Variant::SignatureMissing, &g, secret, now, &mut ids).unwrap().headers.contains_key(SIGNATURE));
    assert!(!make(Variant::TimestampMissing, &g, secret, now, &mut ids).unwrap().headers.contains_key(TIMESTAMP));

    let w = make(Variant::Whitespace, &g, secret, now, &mut ids).unwrap();
    assert!(verifies(&w, secret, now));
    let parsed: Value = serde_json::from_str(&w.body).unwrap();
    assert_eq!(parsed["note"], "a, b: {c}", "strings untouched");
    assert_ne!(serde_json::to_string(&parsed).unwrap(), w.body, "a re-serialization differs from the bytes sent");
}

#[test]
fn update_variants_keep_the_order_and_change_the_event_or_add_fields() {
    let secret = b"s3cret";
    let mut ids = Ids::new(1);
    let g = Exchange {
        method: "PUT".into(),
        url: "http://127.0.0.1:9/v1/order/STORE-1/R-1/events".into(),
        body: r#"{"orderKey":"ord_abcdefghijklmnop","remoteOrderId":"R-1","event":"driver_released","occurredAt":"2026-11-27T06:00:00Z","reason":"x","releasedDriver":{"fullName":"A","phone":null},"expectedNext":"driver_reassignment"}"#.into(),
        ..Exchange::default()
    };
    let u = make(Variant::UnknownEvent, &g, secret, 1_790_000_000, &mut ids).unwrap();
    let v: Value = serde_json::from_str(&u.body).unwrap();
    assert_eq!(v["event"], UNKNOWN_EVENT);
    assert_eq!(v["remoteOrderId"], "R-1");
    assert!(verifies(&u, secret, 1_790_000_000));
    let f = make(Variant::UnknownFields, &g, secret, 1_790_000_000, &mut ids).unwrap();
    let v: Value = serde_json::from_str(&f.body).unwrap();
    assert_eq!(v["event"], "driver_released");
    assert_eq!(v["loyaltyTier"], "gold");
    assert!(make(Variant::UnknownEvent, &creation(), secret, 1, &mut ids).is_err());
    assert!(make(Variant::FreshOrder, &g, b"", 1, &mut ids).is_err());
}
