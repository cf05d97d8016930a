use super::*;
use crate::http::Headers;
use crate::signature::sign;

const SECRET: &str = "whsec_receiver_test";
const NOW: u64 = 1_786_492_800;
const ID: &str = "6f1c1f7e-8d4b-4d43-9d2e-1b7f6a2c9e10";

fn matched(method: &str, path: &str) -> Route {
    match route(method, path, "") {
        Routing::Matched { route } => route,
        other => panic!("{method} {path}: {other:?}"),
    }
}

/// HMAC-SHA256 of `prefix` + `body`, as a platform's native HMAC computes it.
fn mac(secret: &str, prefix: &str, body: &[u8]) -> [u8; 32] {
    use hmac::{Hmac, Mac};
    let mut m = Hmac::<sha2::Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    m.update(prefix.as_bytes());
    m.update(body);
    m.finalize().into_bytes().into()
}

#[test]
fn verified_deliveries_without_the_handler_are_answered_200_with_why() {
    let cases = [
        (
            "PUT",
            "/v1/order/S/R-1/events",
            r#"{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"teleported","occurredAt":"2026-08-12T00:00:00Z"}"#,
            "unknown-event",
            "unknown event",
            Basis::Stated,
        ),
        ("PUT", "/v1/order/S/R-1/events", r#"{"orderKey":1}"#, "invalid-payload", "invalid payload", Basis::Stated),
        ("POST", "/v1/menu/change/chg_0123456789abcdEF", r#"{"changeKey":1}"#, "invalid-payload", "invalid payload", Basis::Assumed),
    ];
    for (method, path, body, why, ignored, basis) in cases {
        let receipt = receive(&matched(method, path), body.as_bytes(), &signed(body.as_bytes(), &[]), &[SECRET], NOW, 300);
        let Receipt::Ignore { answer, reason, .. } = receipt else { panic!("{path} {body}: {receipt:?}") };
        assert_eq!(reason, why);
        assert_eq!((answer.status, answer.retry, answer.basis), (200, false, basis), "{body}");
        let said: serde_json::Value = serde_json::from_str(&answer.body).unwrap();
        assert_eq!(said, serde_json::json!({ "received": true, "ignored": ignored }));
    }
}

#[test]
fn macs_from_the_caller_give_the_same_receipts() {
    let body = br#"{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"R-1","event":"delivered","occurredAt":"2026-08-12T00:00:00Z"}"#;
    let route = matched("PUT", "/v1/order/S/R-1/events");
    let prefix = format!("{NOW}.");
    let good = mac(SECRET, &prefix, body);
    let other = mac("another", &prefix, body);
    let cases = vec![
        (signed(body, &[("X-Service-Delivery-Id", ID)]), vec![SECRET], vec![good]),
        (signed(body, &[]), vec!["another", SECRET], vec![other, good]),
        (signed(body, &[]), vec!["another"], vec![other]),
        (signed(b"tampered", &[]), vec![SECRET], vec![good]),
        (Headers::from_pairs([("X-Service-Timestamp", NOW.to_string())]), vec![SECRET], vec![good]),
    ];
    for (headers, secrets, macs) in cases {
        let lengths: Vec<usize> = secrets.iter().map(|s| s.len()).collect();
        let expected = serde_json::to_value(receive(&route, body, &headers, &secrets, NOW, 300)).unwrap();
        let got = serde_json::to_value(receive_with_macs(&route, body, &headers, &lengths, &macs, NOW, 300)).unwrap();
        assert_eq!(got, expected, "{headers:?}");
    }
    // One MAC short of the secrets: refused, never a match.
    let r = receive_with_macs(&route, body, &signed(body, &[]), &[SECRET.len(), 3], &[good], NOW, 300);
    assert!(matches!(r, Receipt::Reject { .. }), "{r:?}");
}

fn signed(body: &[u8], extra: &[(&str, &str)]) -> Headers {
    let mut h = Headers::from_pairs([
        ("X-Service-Timestamp".to_string(), NOW.to_string()),
        ("X-Service-Signature-256".to_string(), sign(SECRET.as_bytes(), NOW, body).unwrap()),
    ]);
    for (n, v) in extra {
        h.push(*n, *v);
    }
    h
}

fn update(event: &str, remote_order_id: &str) -> Vec<u8> {
    format!(
        r#"{{"orderKey":"ord_0123456789abcdEF","remoteOrderId":"{remote_order_id}","event":"{event}","occurredAt":"2026-08-12T00:00:00Z"}}"#
    )
    .into_bytes()
}

#[test]
fn routes_and_parameters() {
    let r = matched("POST", "/v1/order/STORE-1");
    assert_eq!((r.id, r.remote_id.as_deref(), r.payload_kind), (RouteId::OrderCreated, Some("STORE-1"), "orderCreated"));
    let r = matched("PUT", "/v1/order/STORE%201/R-1/events?x=1");
    assert_eq!(r.id, RouteId::OrderUpdate);
    assert_eq!(r.remote_id.as_deref(), Some("STORE 1"));
    assert_eq!(r.remote_order_id.as_deref(), Some("R-1"));
    assert_eq!(r.path, "/v1/order/STORE%201/R-1/events");
    let r = matched("POST", "/v1/menu/change/chg_0123456789abcdEF/");
    assert_eq!((r.id, r.change_key.as_deref()), (RouteId::MenuChangeCompleted, Some("chg_0123456789abcdEF")));
    // An encoded slash stays inside its parameter.
    assert_eq!(matched("POST", "/v1/order/a%2Fb").remote_id.as_deref(), Some("a/b"));
}

#[test]
fn base_path() {
    let Routing::Matched { route: r } = route("POST", "/pos/hooks/v1/order/S1", "/pos/hooks/") else { panic!() };
    assert_eq!(r.path, "/v1/order/S1");
    assert!(matches!(route("POST", "/v1/order/S1", "/pos"), Routing::NotFound { .. }));
    assert!(matches!(route("POST", "/posx/v1/order/S1", "/pos"), Routing::NotFound { .. }));
}

#[test]
fn unknown_paths_and_methods_decided_here() {
    for p in [
        "/",
        "",
        "/v1/order",
        "/v1/order/",
        "/v1/order//R-1/events",
        "/v1/order/S1/R-1",
        "/v1/order/S1/R-1/status",
        "/v1/menu/change",
        "/x/v1/order/S1",
        "/V1/order/S1",
    ] {
        match route("POST", p, "") {
            Routing::NotFound { answer: a } => assert_eq!((a.status, a.code), (404, "NOT_FOUND"), "{p}"),
            other => panic!("{p}: {other:?}"),
        }
    }
    match route("PUT", "/v1/order/S1/R-1/status", "") {
        Routing::NotFound { answer } => {
            assert_eq!(answer.basis, Basis::Stated);
            assert!(answer.body.contains("/events since 2026-08-12"));
        }
        other => panic!("{other:?}"),
    }
    for (m, p, allow) in [
        ("GET", "/v1/order/S1", "POST"),
        ("PUT", "/v1/order/S1", "POST"),
        ("POST", "/v1/order/S1/R-1/events", "PUT"),
        ("HEAD", "/v1/menu/change/k", "POST"),
        ("post", "/v1/order/S1", "POST"),
    ] {
        match route(m, p, "") {
            Routing::MethodNotAllowed { answer: a } => {
                assert_eq!(a.status, 405);
                assert_eq!(a.headers, vec![["Allow", allow]]);
            }
            other => panic!("{m} {p}: {other:?}"),
        }
    }
}

#[test]
fn verification_failures_are_rejected_with_the_stable_code() {
    let r = matched("PUT", "/v1/order/S1/R-1/events");
    let body = update("delivered", "R-1");
    let mut h = signed(&body, &[("X-Service-Delivery-Id", ID)]);
    let tampered = update("cancelled", "R-1");
    for (b, headers, code) in [(&tampered, &h, "SIGNATURE_MISMATCH"), (&body, &Headers::new(), "MISSING_TIMESTAMP")] {
        match receive(&r, b, headers, &[SECRET], NOW, 300) {
            Receipt::Reject { answer } => {
                assert_eq!((answer.status, answer.code), (401, code));
                assert!(answer.body.contains(code));
                assert!(!answer.body.contains(SECRET));
            }
            other => panic!("{other:?}"),
        }
    }
    match receive(&r, &body, &h, &[SECRET], NOW + 301, 300) {
        Receipt::Reject { answer } => assert_eq!(answer.code, "TIMESTAMP_TOO_OLD"),
        other => panic!("{other:?}"),
    }
    h.push("x-service-delivery-id", "another-id");
    match receive(&r, &body, &h, &[SECRET], NOW, 300) {
        Receipt::Reject { answer } => assert_eq!((answer.status, answer.code), (400, "DELIVERY_ID_CONFLICTING")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn valid_update_is_handled_with_the_delivery() {
    let r = matched("PUT", "/v1/order/S1/R-1/events");
    let body = update("delivered", "R-1");
    match receive(&r, &body, &signed(&body, &[("X-Service-Delivery-Id", ID)]), &[SECRET], NOW, 300) {
        Receipt::Handle { delivery, report } => {
            assert_eq!(delivery.delivery_id.as_deref(), Some(ID));
            assert!(report.ok, "{report:?}");
            assert_eq!(report.kind.as_deref(), Some("orderUpdateEvent"));
        }
        other => panic!("{other:?}"),
    }
    // The path is authoritative: a body remoteOrderId that differs is a warning, still handled.
    let other = update("delivered", "R-OTHER");
    match receive(&r, &other, &signed(&other, &[]), &[SECRET], NOW, 300) {
        Receipt::Handle { delivery, report } => {
            assert_eq!(delivery.delivery_id, None);
            assert!(report.diagnostics.iter().any(|d| d.rule_id == "order-update/remote-order-id-path"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn update_route_answers_200_for_unknown_events_and_broken_payloads() {
    let r = matched("PUT", "/v1/order/S1/R-1/events");
    for (body, reason) in [
        (update("refunded", "R-1"), "unknown-event"),
        (b"{\"event\":\"delivered\"}".to_vec(), "invalid-payload"),
        (b"not json".to_vec(), "invalid-payload"),
        (Vec::new(), "invalid-payload"),
    ] {
        match receive(&r, &body, &signed(&body, &[]), &[SECRET], NOW, 300) {
            Receipt::Ignore { answer, reason: why, .. } => {
                assert_eq!((answer.status, why), (200, reason));
                assert!(!answer.retry);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn menu_change_key_must_equal_the_path() {
    let body = br#"{"changeKey":"chg_0123456789abcdEF","status":"applied","submittedAt":"2026-08-12T00:00:00Z","completedAt":"2026-08-12T00:01:00Z","results":[]}"#;
    let ok = matched("POST", "/v1/menu/change/chg_0123456789abcdEF");
    assert!(matches!(receive(&ok, body, &signed(body, &[]), &[SECRET], NOW, 300), Receipt::Handle { .. }));
    let other = matched("POST", "/v1/menu/change/chg_ZZZZZZZZZZZZZZZZ");
    match receive(&other, body, &signed(body, &[]), &[SECRET], NOW, 300) {
        Receipt::Ignore { answer, report, .. } => {
            assert_eq!(answer.status, 200);
            assert!(report.diagnostics.iter().any(|d| d.rule_id == "menu-change/change-key-path"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn invalid_creation_payload_is_refused_not_acknowledged() {
    let r = matched("POST", "/v1/order/S1");
    let body = b"[1,2]";
    match receive(&r, body, &signed(body, &[]), &[SECRET], NOW, 300) {
        Receipt::Refuse { answer, report, .. } => {
            assert_eq!((answer.status, answer.code), (422, "INVALID_PAYLOAD"));
            assert!(answer.retry);
            assert!(!report.ok && report.error_count > 0);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn answers_after_the_handler() {
    let created = |v: Option<&str>| answer_after(RouteId::OrderCreated, &Outcome::Returned(v.map(String::from)));
    assert_eq!(created(Some("POS-1")).body, r#"{"remoteOrderId":"POS-1"}"#);
    assert_eq!(created(Some("q\"\\")).body, r#"{"remoteOrderId":"q\"\\"}"#);
    for bad in [None, Some(""), Some("   ")] {
        let a = created(bad);
        assert_eq!((a.status, a.code, a.retry), (500, "NO_REMOTE_ORDER_ID", true));
    }
    for r in RouteId::ALL {
        for (o, status) in [
            (Outcome::Threw, 500),
            (Outcome::TimedOut, 503),
            (Outcome::StoreUnavailable, 503),
            (Outcome::InProgress, 409),
            (Outcome::TooLarge, 413),
            (Outcome::BodyUnavailable, 500),
        ] {
            let a = answer_after(*r, &o);
            assert_eq!(a.status, status, "{r:?} {o:?}");
            assert!(a.retry);
            let v: serde_json::Value = serde_json::from_str(&a.body).unwrap();
            assert_eq!(v["error"], a.code);
        }
    }
    assert_eq!(answer_after(RouteId::OrderUpdate, &Outcome::Returned(None)).status, 200);
    assert_eq!(answer_after(RouteId::MenuChangeCompleted, &Outcome::NoHandler).status, 200);
    assert_eq!(answer_after(RouteId::OrderCreated, &Outcome::NoHandler).status, 501);
    for id in Outcome::IDS {
        assert!(Outcome::from_id(id, None).is_some(), "{id}");
    }
    assert!(Outcome::from_id("nope", None).is_none());
}

#[test]
fn created_ids_answered_verbatim_are_answer_after() {
    let mut ids: Vec<String> = (0x20u8..0x7f).map(|b| format!("P{}-1", b as char)).collect();
    ids.extend(["", " ", "POS-1", " POS", "POS ", "\u{e9}", "a\tb", "\u{2028}", "\u{feff}x", "x\u{0}"].map(String::from));
    for id in ids {
        let a = answer_after(RouteId::OrderCreated, &Outcome::Returned(Some(id.clone())));
        if created_id_verbatim(&id) {
            assert_eq!((a.status, a.code, a.headers.len()), (200, "OK", 0), "{id:?}");
            assert_eq!(a.body, format!("{CREATED_PREFIX}{id}{CREATED_SUFFIX}"), "{id:?}");
        } else {
            assert!(id.is_empty() || id.bytes().any(|b| !b.is_ascii_graphic() || b == b'"' || b == b'\\'), "{id:?}");
        }
    }
}

#[test]
fn param_spans_are_the_raw_segments_or_none() {
    let cases = [
        ("POST", "/v1/order/S1", "", Some([(10, 12), (0, 0), (0, 0)])),
        ("POST", "/pos/v1/order/S1/?x=1", "/pos/", Some([(14, 16), (0, 0), (0, 0)])),
        ("PUT", "/v1/order/S1/R-1/events", "", Some([(10, 12), (13, 16), (0, 0)])),
        ("POST", "/v1/menu/change/k1", "", Some([(0, 0), (0, 0), (16, 18)])),
        ("POST", "/v1/order/S%201", "", None),
    ];
    for (method, target, base, want) in cases {
        let Routing::Matched { route: r } = route(method, target, base) else { panic!("{target}") };
        let spans = param_spans(&r, target, base);
        assert_eq!(spans, want, "{target}");
        if let Some(spans) = spans {
            let got = spans.map(|(a, b)| (b > 0).then(|| target[a as usize..b as usize].to_string()));
            assert_eq!(got, [r.remote_id.clone(), r.remote_order_id.clone(), r.change_key.clone()], "{target}");
        }
    }
}

#[test]
fn one_step_routes_then_receives() {
    let body = update("delivered", "R-1");
    let h = signed(&body, &[]);
    let r = receive_request("PUT", "/pos/v1/order/S1/R-1/events", "/pos", &body, &h, &[SECRET], NOW, 300);
    assert!(matches!(r, Received::Routed(Receipt::Handle { .. })), "{r:?}");
    let r = receive_request("GET", "/pos/v1/order/S1/R-1/events", "/pos", &body, &h, &[SECRET], NOW, 300);
    assert!(matches!(r, Received::Unrouted(Routing::MethodNotAllowed { .. })));
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["action"], "methodNotAllowed");
    assert_eq!(json["answer"]["status"], 405);
    let r = receive_request("PUT", "/v1/order/S1/R-1/events", "", b"x", &h, &[SECRET], NOW, 300);
    assert_eq!(serde_json::to_value(&r).unwrap()["action"], "reject");
}

#[test]
fn any_bytes_any_path_never_panic() {
    let paths = ["/v1/order/%", "/v1/order/%zz", "/v1/order/%ff%fe", "/\u{1F600}/", "//", "/v1/menu/change/%2", "?", "#"];
    for p in paths {
        let _ = route("POST", p, "");
        let _ = route("POST", p, "/\u{e9}");
    }
    let r = matched("POST", "/v1/order/%ff");
    for body in [&b"\xff\xfe"[..], b"{", b"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["] {
        let _ = receive(&r, body, &signed(body, &[]), &[SECRET], NOW, 300);
    }
}

#[test]
fn a_matched_route_says_what_the_payload_checks_read_of_its_path() {
    // payload_clean hands the checks the route's own parameters instead of splitting the path
    // again: for every path the receiver matches, they are what route_of says of it.
    let segments = ["v1", "order", "menu", "change", "events", "s%201", "%76%31", "a%2Fb", ""];
    let mut matched_count = 0;
    for base in ["", "/base"] {
        for n in 1..=5 {
            let mut choice = vec![0usize; n];
            loop {
                let path: String = choice.iter().map(|&i| format!("/{}", segments[i])).collect();
                for target in [format!("{base}{path}"), format!("{base}{path}/?q=1")] {
                    for method in ["POST", "PUT"] {
                        if let Ok(r) = route_ref(method, &target, base) {
                            matched_count += 1;
                            assert_eq!(r.info, crate::shape::validate::route_of(r.path), "{method} {target}");
                            assert_eq!(r.to_route(), matched(method, &target[base.len()..]), "{method} {target}");
                        }
                    }
                }
                // The next choice of segments (odometer order).
                let Some(i) = choice.iter().rposition(|&c| c + 1 < segments.len()) else { break };
                choice[i] += 1;
                choice[i + 1..].iter_mut().for_each(|c| *c = 0);
            }
        }
    }
    assert!(matched_count > 100, "{matched_count} matched routes");
}
