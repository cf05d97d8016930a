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

use crate::contract::ProblemSuffix;

/// A GET on the model with the first client's key.
fn get(sb: &mut Service, target: &str, now: i64) -> (u16, Value) {
    let key = sb.config().clients[0].api_key.clone();
    let req = Request { method: "GET", target, api_key: Some(&key), ..Default::default() };
    let a = sb.handle(&req, now);
    (a.status, serde_json::from_slice(&a.body).unwrap_or(Value::Null))
}

/// Issue 41, found by Schemathesis: "List page size: maximum 100, default 20" and "PageSize
/// (integer)" (Endpoints, Orders): one rule for every invalid page size. -1, 0, `abc` and 1.5
/// answered 200 with 20 items while 101 answered 422; every one is now the 422 of 101.
#[test]
fn every_invalid_page_size_is_one_422() {
    let now = 1_790_000_000_000;
    let mut sb = Service::new(None, Options::default(), 3).unwrap();
    for _ in 0..3 {
        sb.control_json(r#"{"action":"createOrder"}"#, now).unwrap();
    }
    for size in ["-1", "0", "abc", "1.5", "101", "1e2", "+5", ""] {
        let (status, body) = get(&mut sb, &format!("/api/v1/Orders?PageSize={size}"), now);
        assert_eq!(status, 422, "PageSize={size}: {body}");
        assert!(body["type"].as_str().unwrap().ends_with(ProblemSuffix::Validation.as_str()), "PageSize={size}: {body}");
        assert!(body["meta"]["errors"]["PageSize"].is_array(), "PageSize={size}: {body}");
    }
    for (size, items) in [("1", 1), ("2", 2), ("100", 3)] {
        let (status, body) = get(&mut sb, &format!("/api/v1/Orders?PageSize={size}"), now);
        assert_eq!((status, body["data"]["items"].as_array().unwrap().len()), (200, items), "PageSize={size}");
    }
}

/// Issue 41, found by Schemathesis: the 413, 431 and 400 a face's HTTP server answers before the
/// model reads the request carried `traceId: null`. "Every error follows RFC 7807 Problem Details:
/// type, title, detail, status (integer), traceId, meta (object or null)": only meta may be null.
#[test]
fn a_request_the_face_cannot_read_gets_a_problem_with_a_trace_id() {
    let mut sb = Service::new(None, Options::default(), 3).unwrap();
    let mut ids = Vec::new();
    for (asked, status, title) in [
        (413, 413, "Payload Too Large"),
        (431, 431, "Request Header Fields Too Large"),
        (400, 400, "Bad Request"),
        (408, 408, "Request Timeout"),
        (999, 400, "Bad Request"),
    ] {
        let p: Value = serde_json::from_str(&sb.unread_problem(asked, "why")).unwrap();
        assert_eq!((p["status"].as_u64(), p["title"].as_str(), p["detail"].as_str()), (Some(status), Some(title), Some("why")));
        let trace = p["traceId"].as_str().expect("a traceId string");
        assert!(trace.len() == 32 && trace.bytes().all(|b| b.is_ascii_hexdigit()), "{trace}");
        assert!(p["meta"].is_null() && p["type"].is_string(), "{p}");
        ids.push(trace.to_string());
    }
    ids.dedup();
    assert_eq!(ids.len(), 5, "a fresh traceId each");
}

/// `GET /_sandbox/openapi.json`: the service's OpenAPI document, `servers[0].url` the face's URL
/// (the default base before the face said it), byte for byte `poscheck openapi` otherwise.
#[test]
fn the_controls_serve_the_openapi_document_with_the_faces_url() {
    let mut sb = Service::new(None, Options::default(), 3).unwrap();
    let mut face = controls::Face::default();
    let r = controls::handle(&mut sb, &face, "GET", "/_sandbox/openapi.json", b"", 0, 0);
    assert_eq!((r.status, r.body.as_str()), (200, crate::schema::openapi::render(crate::schema::openapi::DEFAULT_BASE_URL).as_str()));
    face.url = "http://127.0.0.1:4242".into();
    let r = controls::handle(&mut sb, &face, "GET", "/_sandbox/openapi.json", b"", 0, 0);
    let doc: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(doc["servers"][0]["url"], "http://127.0.0.1:4242");
    assert_eq!(r.body, crate::schema::openapi::render("http://127.0.0.1:4242"));
    assert_eq!(controls::handle(&mut sb, &face, "POST", "/_sandbox/openapi.json", b"", 0, 0).status, 404);
}
