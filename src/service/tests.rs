use super::*;

/// The checker's reader (over the order's JSON) establishes these facts.
fn read_facts(order: &Order) -> crate::order::model::OrderFacts {
    let bytes = serde_json::to_vec(order).unwrap();
    let arena = crate::json::Arena::for_input(bytes.len());
    let doc = crate::json::parse(&bytes, &crate::json::Limits::default(), &arena).unwrap();
    let mut c = crate::diagnostic::Collector::new();
    crate::order::check_detail(&mut c, &crate::diagnostic::Path::ROOT, &doc.root)
}

fn all_agree(sb: &Service, step: &str) {
    for o in sb.orders() {
        assert_eq!(o.order.facts(), read_facts(&o.order), "{step}: {}", serde_json::to_string(&o.order).unwrap());
    }
}

#[test]
fn the_typed_order_and_the_checker_read_the_same_facts() {
    let mut now = 1_790_000_000_000;
    let mut sb = Service::new(None, Options::default(), 9).unwrap();
    let key = sb.config().clients[0].api_key.clone();
    let mut keys = Vec::new();
    for (store, kind) in [("STORE-1", "delivery"), ("STORE-1", "pickup"), ("STORE-2", "delivery"), ("STORE-1", "delivery")] {
        let c = format!(r#"{{"action":"createOrder","store":"{store}","type":"{kind}"}}"#);
        keys.push(sb.control_json(&c, now).unwrap().order.unwrap().order_key);
    }
    all_agree(&sb, "created");
    for a in sb.due(now, now / 1000) {
        sb.answered(a.attempt, 200, br#"{"remoteOrderId":"R-1"}"#, 5, now);
    }
    all_agree(&sb, "answered (auto-accept)");
    let mut n = 0;
    let mut call = |sb: &mut Service, method: &str, target: String, body: &[u8], now: i64| {
        n += 1;
        let idem = format!("0b0c7c1e-3a2b-4c5d-8e9f-{n:012x}");
        let req = Request {
            method,
            target: &target,
            api_key: Some(&key),
            schema_version: Some("1.0"),
            idempotency_key: Some(&idem),
            content_type: Some("application/json"),
            body,
        };
        sb.handle(&req, now).status
    };
    for k in &keys[..2] {
        now += 61_000;
        assert_eq!(call(&mut sb, "POST", format!("/api/v1/Orders/{k}/accept"), b"{}", now), 202);
        all_agree(&sb, "accepted");
        let c = format!(r#"{{"action":"assignDriver","orderKey":"{k}"}}"#);
        sb.control_json(&c, now).unwrap();
        sb.control_json(&c, now + 1000).unwrap();
        all_agree(&sb, "driver assigned twice");
        now += 61_000;
        assert_eq!(call(&mut sb, "PUT", format!("/api/v1/Orders/{k}/status"), br#"{"status":"ready"}"#, now), 202);
        assert_eq!(call(&mut sb, "PUT", format!("/api/v1/Orders/{k}/status"), br#"{"status":"handed_over"}"#, now), 202);
        all_agree(&sb, "handed over");
        sb.control_json(&format!(r#"{{"action":"deliver","orderKey":"{k}"}}"#), now).unwrap();
        sb.control_json(&format!(r#"{{"action":"refund","orderKey":"{k}"}}"#), now + 5000).unwrap();
        all_agree(&sb, "delivered and refunded");
    }
    sb.control_json(&format!(r#"{{"action":"releaseDriver","orderKey":"{}"}}"#, keys[2]), now).unwrap_err();
    sb.control_json(&format!(r#"{{"action":"cancel","orderKey":"{}","by":"operator"}}"#, keys[2]), now).unwrap();
    now += 600_000;
    sb.due(now, now / 1000);
    all_agree(&sb, "cancelled and timed out");
    assert_eq!(sb.order(&keys[3]).unwrap().order.status(), Status::Cancelled);
}
